/* SPDX-License-Identifier: MIT */
/* Accumulates and window locks by the network's atomics (docs/rma.md,
 * "Accumulates and locks by network atomics"), run on pretend nodes so that
 * rank 0's memory gets origins on its own node (itself included) and on
 * others at once, on MPI_Win_allocate and MPI_Win_create windows:
 * - every rank hammers one counter of rank 0 with MPI_Fetch_and_op(+1) and
 *   with compare-and-swap increments (read, then swap until it takes), under
 *   MPI_Win_lock_all; the fetch-and-op tickets are all different and the
 *   final value is exact;
 * - accumulates of int and double arrays (contiguous and strided) with
 *   MPI_SUM and MPI_MAX, get-accumulate with MPI_REPLACE and MPI_NO_OP:
 *   exact;
 * - exclusive-lock increments (get, put +1, unlock) from every rank on a
 *   counter of rank 0, while rank 0 first computes without calling MPI, then
 *   takes part: exact.  With FI_PROVIDER=sockets (whose atomics and RMA need
 *   no progress by the target's library) some increments are done while
 *   rank 0 computes;
 * - strided accumulates of many single elements (vector atomics): every
 *   rank adds the transpose of its matrix into rank 0's and the last rank's
 *   at once (exact sums), adds into every other element of a row with
 *   MPI_Get_accumulate (the old values each rank fetched form one chain per
 *   element: atomic), and reads the transposed matrix back with MPI_NO_OP;
 * - a dynamic window: every rank attaches two regions, puts into and gets
 *   from every rank's, contiguous and strided, then detaches one, attaches a
 *   new one and does it again in a new epoch. */
#include "mpitest.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { NHAMMER = 100, NACC = 8, NLOCK = 25, BUSY_S = 2, NV = 40 };
/* window layout, in longs */
enum { CNT = 0, LCNT = 1, IACC = 2, DACC = IACC + NACC, SWAP = DACC + NACC, WLONGS = SWAP + 2 };
static int me, np;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

/* Fetch-and-op and compare-and-swap increments of one counter at rank 0. */
static void hammer(MPI_Win w, long *mem)
{
    long *tickets = mt_malloc(sizeof(long) * NHAMMER);
    long one = 1, cas_tries = 0;
    CHECK_MPI(MPI_Win_lock_all(0, w));
    for (int i = 0; i < NHAMMER; i++) {
        CHECK_MPI(MPI_Fetch_and_op(&one, &tickets[i], MPI_LONG, 0, CNT, MPI_SUM, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        long cur = 0, got = -1, dummy = 0;
        CHECK_MPI(MPI_Fetch_and_op(&dummy, &cur, MPI_LONG, 0, CNT, MPI_NO_OP, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        for (;;) {
            long next = cur + 1;
            CHECK_MPI(MPI_Compare_and_swap(&next, &cur, &got, MPI_LONG, 0, CNT, w));
            CHECK_MPI(MPI_Win_flush(0, w));
            cas_tries++;
            if (got == cur) break;
            cur = got;
        }
    }
    CHECK_MPI(MPI_Win_unlock_all(w));
    /* every ticket is a distinct counter value */
    long *all = me == 0 ? mt_malloc(sizeof(long) * NHAMMER * (size_t)np) : NULL;
    MPI_Gather(tickets, NHAMMER, MPI_LONG, all, NHAMMER, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        long total = 2L * NHAMMER * np;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
        CHECK(mem[CNT] == total, "counter %ld after %d fetch-and-ops and as many "
              "compare-and-swaps from each of %d ranks, not %ld", mem[CNT], NHAMMER, np, total);
        CHECK_MPI(MPI_Win_unlock(0, w));
        qsort(all, (size_t)NHAMMER * np, sizeof(long), cmp_long);
        for (int i = 1; i < NHAMMER * np; i++)
            CHECK(all[i] != all[i - 1], "ticket %ld given twice", all[i]);
        CHECK(all[0] >= 0 && all[NHAMMER * np - 1] < total, "tickets from %ld to %ld", all[0],
              all[NHAMMER * np - 1]);
    }
    free(all);
    free(tickets);
}

/* Accumulates of arrays, contiguous and strided, and get-accumulates. */
static void arrays(MPI_Win w, long *mem)
{
    /* 2 * NACC ints at long IACC (the window's unit is a long), NACC doubles at DACC */
    int iadd[2 * NACC];
    double dadd[NACC];
    for (int i = 0; i < 2 * NACC; i++) iadd[i] = (me + 1) * (i + 1);
    for (int i = 0; i < NACC; i++) dadd[i] = 0.5 * (me + 1) + i;
    MPI_Datatype every_other, odd;
    MPI_Aint one_int = sizeof(int);
    MPI_Type_vector(NACC, 1, 2, MPI_INT, &every_other);
    MPI_Type_create_hindexed_block(1, 1, &one_int, every_other, &odd);
    MPI_Type_commit(&every_other);
    MPI_Type_commit(&odd);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    /* even ints: a sum; odd ints (strided): a maximum; doubles: a sum */
    CHECK_MPI(MPI_Accumulate(iadd, NACC, MPI_INT, 0, IACC, 1, every_other, MPI_SUM, w));
    CHECK_MPI(MPI_Accumulate(iadd + NACC, NACC, MPI_INT, 0, IACC, 1, odd, MPI_MAX, w));
    CHECK_MPI(MPI_Accumulate(dadd, NACC, MPI_DOUBLE, 0, DACC, NACC, MPI_DOUBLE, MPI_SUM, w));
    CHECK_MPI(MPI_Win_unlock(0, w));
    MPI_Type_free(&every_other);
    MPI_Type_free(&odd);
    MPI_Barrier(MPI_COMM_WORLD);
    long s = (long)np * (np + 1) / 2;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    int iback[2 * NACC];
    double dback[NACC];
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, iback, 2 * NACC, MPI_INT, 0, IACC,
                                 2 * NACC, MPI_INT, MPI_NO_OP, w));
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_DOUBLE, dback, NACC, MPI_DOUBLE, 0, DACC, NACC,
                                 MPI_DOUBLE, MPI_NO_OP, w));
    CHECK_MPI(MPI_Win_unlock(0, w));
    for (int i = 0; i < NACC; i++) {
        CHECK(iback[2 * i] == s * (i + 1), "int sum [%d] = %d, not %ld", i, iback[2 * i],
              s * (i + 1));
        CHECK(iback[2 * i + 1] == np * (NACC + i + 1), "int max [%d] = %d, not %d", i,
              iback[2 * i + 1], np * (NACC + i + 1));
        double want = 0.5 * s + (double)np * i;
        CHECK(dback[i] == want, "double sum [%d] = %g, not %g", i, dback[i], want);
    }
    /* a swap chain: each rank replaces the value and gets the one before */
    long mine = me + 1, prev = -1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    CHECK_MPI(MPI_Get_accumulate(&mine, 1, MPI_LONG, &prev, 1, MPI_LONG, 0, SWAP, 1, MPI_LONG,
                                 MPI_REPLACE, w));
    CHECK_MPI(MPI_Win_unlock(0, w));
    long *prevs = me == 0 ? mt_malloc(sizeof(long) * (size_t)np) : NULL;
    MPI_Gather(&prev, 1, MPI_LONG, prevs, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        /* the values seen and the last one form one chain: 0 and every rank + 1 once */
        long *seen = mt_malloc(sizeof(long) * (size_t)(np + 1));
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
        memcpy(seen, prevs, sizeof(long) * (size_t)np);
        seen[np] = mem[SWAP];
        CHECK_MPI(MPI_Win_unlock(0, w));
        qsort(seen, (size_t)np + 1, sizeof(long), cmp_long);
        for (int i = 0; i <= np; i++) CHECK(seen[i] == i, "swap chain value %d is %ld", i, seen[i]);
        free(seen);
    }
    free(prevs);
}

/* Exclusive-lock increments of one counter at rank 0, which first computes
 * without MPI for BUSY_S seconds. */
static void locked_increments(MPI_Win w, long *mem)
{
    long seen = 0;     /* rank 0: the increments done while it computed */
    if (me == 0) {
        double t0 = now();
        volatile double x = 1;
        while (now() - t0 < BUSY_S) x = x * 1.0000001 + 1e-9;
        /* read in an epoch of its own (the origins' puts land there from
         * the network, on a progress thread: an unsynchronized load was a
         * data race for ThreadSanitizer) */
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
        seen = mem[LCNT];
        CHECK_MPI(MPI_Win_unlock(0, w));
    }
    for (int i = 0; i < NLOCK; i++) {
        long v = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
        CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, LCNT, 1, MPI_LONG, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        v++;
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, LCNT, 1, MPI_LONG, w));
        CHECK_MPI(MPI_Win_unlock(0, w));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
        CHECK(mem[LCNT] == (long)NLOCK * np, "counter %ld after %d locked increments from each "
              "of %d ranks, not %ld", mem[LCNT], NLOCK, np, (long)NLOCK * np);
        CHECK_MPI(MPI_Win_unlock(0, w));
#ifndef MT_REFERENCE_MPICH
        const char *prov = getenv("FI_PROVIDER"), *atom = getenv("COURIER_RMA_OFI_ATOMICS");
        if (np > 1 && prov && !strcmp(prov, "sockets") && !(atom && !atoi(atom)))
            CHECK(seen > 0, "no locked increment was done while rank 0 computed without MPI "
                  "(the network's atomics should lock without the target)");
        printf("rma_nat: %ld of %ld locked increments done while rank 0 computed\n", seen,
               (long)NLOCK * (np - 1));
#endif
    }
    (void)seen;     /* unused where MPICH checks the test */
}

/* Puts and gets on every rank's attached regions of a dynamic window. */
enum { DYN = 64 };
static void dyn_round(MPI_Win w, long *region, int round)
{
    MPI_Aint mine, *addr = mt_malloc(sizeof(MPI_Aint) * (size_t)np);
    MPI_Get_address(region, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Datatype odd;
    MPI_Type_vector(DYN / 4, 1, 2, MPI_LONG, &odd);
    MPI_Type_commit(&odd);
    CHECK_MPI(MPI_Win_lock_all(0, w));
    for (int k = 0; k < np; k++) {
        int t = (me + k) % np;
        long out[DYN / 2], back[DYN / 2];
        /* my slot in t's region: DYN / np longs from me * (DYN / np) */
        int n = DYN / np < DYN / 2 ? DYN / np : DYN / 2;
        for (int i = 0; i < n; i++) out[i] = 1000L * round + 100L * me + i, back[i] = -1;
        MPI_Aint at = addr[t] + (MPI_Aint)(sizeof(long) * (size_t)(me * (DYN / np)));
        CHECK_MPI(MPI_Put(out, n, MPI_LONG, t, at, n, MPI_LONG, w));
        CHECK_MPI(MPI_Win_flush(t, w));
        CHECK_MPI(MPI_Get(back, n, MPI_LONG, t, at, n, MPI_LONG, w));
        CHECK_MPI(MPI_Win_flush(t, w));
        for (int i = 0; i < n; i++)
            CHECK(back[i] == out[i], "round %d target %d [%d] = %ld, not %ld", round, t, i,
                  back[i], out[i]);
    }
    CHECK_MPI(MPI_Win_unlock_all(w));
    MPI_Barrier(MPI_COMM_WORLD);
    for (int o = 0; o < np; o++) {
        int n = DYN / np < DYN / 2 ? DYN / np : DYN / 2;
        for (int i = 0; i < n; i++)
            CHECK(region[o * (DYN / np) + i] == 1000L * round + 100L * o + i,
                  "round %d from %d [%d] = %ld", round, o, i, region[o * (DYN / np) + i]);
    }
    /* strided: every other long of the first half of the right neighbour's region */
    int right = (me + 1) % np;
    long got[DYN / 4];
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w));
    CHECK_MPI(MPI_Get(got, DYN / 4, MPI_LONG, right, addr[right], 1, odd, w));
    CHECK_MPI(MPI_Win_unlock(right, w));
    for (int i = 0; i < DYN / 4; i++) {
        int j = 2 * i, o = j / (DYN / np), k = j % (DYN / np);
        int n = DYN / np < DYN / 2 ? DYN / np : DYN / 2;
        long want = o < np && k < n ? 1000L * round + 100L * o + k : 0;
        CHECK(got[i] == want, "round %d strided [%d] from %d = %ld, not %ld", round, i, right,
              got[i], want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Type_free(&odd);
    free(addr);
}

static void dynamic_window(void)
{
    MPI_Win w;
    long *a = mt_malloc(sizeof(long) * DYN), *b = mt_malloc(sizeof(long) * DYN);
    long *c = mt_malloc(sizeof(long) * DYN);
    memset(a, 0, sizeof(long) * DYN);
    memset(b, 0, sizeof(long) * DYN);
    memset(c, 0, sizeof(long) * DYN);
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    CHECK_MPI(MPI_Win_attach(w, a, sizeof(long) * DYN));
    CHECK_MPI(MPI_Win_attach(w, b, sizeof(long) * DYN));
    MPI_Barrier(MPI_COMM_WORLD);
    dyn_round(w, a, 1);
    dyn_round(w, b, 2);
    CHECK_MPI(MPI_Win_detach(w, a));
    CHECK_MPI(MPI_Win_attach(w, c, sizeof(long) * DYN));
    MPI_Barrier(MPI_COMM_WORLD);
    dyn_round(w, c, 3);
    dyn_round(w, b, 4);
    CHECK_MPI(MPI_Win_detach(w, b));
    CHECK_MPI(MPI_Win_detach(w, c));
    CHECK_MPI(MPI_Win_free(&w));
    free(a);
    free(b);
    free(c);
}

/* Strided accumulates on an NV x NV int matrix per rank (vector atomics). */
static void vectors(MPI_Win w, void *wmem, int kind)
{
    int *mat = wmem, *a = mt_malloc(sizeof(int) * NV * NV), *back = mt_malloc(sizeof(int) * NV * NV);
    (void)kind;
    for (int i = 0; i < NV * NV; i++) a[i] = (me + 1) * i;
    /* the transpose: column-major order of the target matrix */
    MPI_Datatype column, xpose, other;
    MPI_Type_vector(NV, 1, NV, MPI_INT, &column);
    MPI_Type_create_hvector(NV, 1, sizeof(int), column, &xpose);
    MPI_Type_vector(NV / 2, 1, 2, MPI_INT, &other);
    MPI_Type_commit(&xpose);
    MPI_Type_commit(&other);
    int last = np - 1;
    CHECK_MPI(MPI_Win_lock_all(0, w));
    CHECK_MPI(MPI_Accumulate(a, NV * NV, MPI_INT, 0, 0, 1, xpose, MPI_SUM, w));
    if (last != 0) CHECK_MPI(MPI_Accumulate(a, NV * NV, MPI_INT, last, 0, 1, xpose, MPI_SUM, w));
    CHECK_MPI(MPI_Win_unlock_all(w));
    MPI_Barrier(MPI_COMM_WORLD);
    long s = (long)np * (np + 1) / 2;
    /* the target's own view, then a strided read by MPI_NO_OP from another rank */
    if (me == 0 || me == last) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w));
        for (int i = 0; i < NV; i++)
            for (int j = 0; j < NV; j++)
                CHECK(mat[j * NV + i] == s * (i * NV + j), "[%d][%d] = %d, not %ld", j, i,
                      mat[j * NV + i], s * (i * NV + j));
        CHECK_MPI(MPI_Win_unlock(me, w));
    }
    if (me == (np > 1 ? 1 : 0)) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
        CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, back, NV * NV, MPI_INT, 0, 0, 1, xpose,
                                     MPI_NO_OP, w));
        CHECK_MPI(MPI_Win_unlock(0, w));
        for (int i = 0; i < NV * NV; i++)
            CHECK(back[i] == s * i, "transposed read [%d] = %d, not %ld", i, back[i], s * i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* every other element of row 1 of rank 0: + (me + 1), fetching the old values */
    int inc[NV / 2], old[NV / 2];
    for (int i = 0; i < NV / 2; i++) inc[i] = me + 1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    CHECK_MPI(MPI_Get_accumulate(inc, NV / 2, MPI_INT, old, NV / 2, MPI_INT, 0, NV, 1, other,
                                 MPI_SUM, w));
    CHECK_MPI(MPI_Win_unlock(0, w));
    int *olds = me == 0 ? mt_malloc(sizeof(int) * (NV / 2) * (size_t)np) : NULL;
    MPI_Gather(old, NV / 2, MPI_INT, olds, NV / 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
        for (int e = 0; e < NV / 2; e++) {
            /* rank r saw base + the increments of the ranks before it, in some order */
            long base = s * (2 * e * NV + 1), seen = 0;
            for (int r = 0; r < np; r++) {
                long d = olds[r * (NV / 2) + e] - base;
                CHECK(d >= 0 && d <= s - (r + 1), "element %d: rank %d fetched base + %ld", e, r, d);
                seen |= 1L << (d < 62 && d >= 0 ? d : 62);
            }
            CHECK(mat[NV + 2 * e] == base + s, "element %d = %d after the adds, not %ld", e,
                  mat[NV + 2 * e], base + s);
            /* fetched values are distinct partial sums */
            CHECK(__builtin_popcountl((unsigned long)seen) == np, "element %d: %d distinct "
                  "old values from %d ranks", e, __builtin_popcountl((unsigned long)seen), np);
        }
        CHECK_MPI(MPI_Win_unlock(0, w));
    }
    free(olds);
    MPI_Type_free(&column);
    MPI_Type_free(&xpose);
    MPI_Type_free(&other);
    free(a);
    free(back);
}

static void window_body(MPI_Win w, void *mem, int kind)
{
    hammer(w, mem);
    arrays(w, mem);
    if (kind == 0) locked_increments(w, mem);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_each_window(WLONGS * sizeof(long), sizeof(long), window_body);
    mt_each_window(NV * NV * sizeof(int), sizeof(int), vectors);
    dynamic_window();
    int rc = mt_finish("rma_nat");
    MPI_Finalize();
    return rc;
}
