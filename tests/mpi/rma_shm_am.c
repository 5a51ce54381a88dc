/* SPDX-License-Identifier: MIT */
/* Small one-sided operations on windows whose memory the target allocated
 * itself (MPI_Win_create, MPI_Win_create_dynamic): on one node Courier sends
 * them as requests the target serves while it polls, else (and larger ones)
 * does them by cross-memory copies (docs/rma.md, COURIER_RMA_SHM_AM; the list
 * runs this test with the requests forced, off, and through a ring of two
 * slots that takes back nearly every request).
 * - every operation kind (put, get, accumulate, get_accumulate with SUM,
 *   NO_OP and REPLACE, fetch_and_op, compare_and_swap, Rput, Rget) on
 *   elements of 1, 2, 4, 8 and 16 bytes, and large contiguous ones mixed
 *   with small ones on the same elements, on both window kinds, data checked
 *   at the origin and at the target;
 * - a target that sleeps, and one that computes, without calling MPI: the
 *   origins' epochs must end while it does;
 * - every rank accumulates into rank 0 at once under lock_all, small
 *   (requests) and large (copies) on the same elements, with fetch_and_op:
 *   the totals must be exact.
 * Standard MPI only. */
#include "mpitest.h"
#include <time.h>

static int me, np;

enum { NT = 5, NE = 8, SLOT = 256, LARGE_OFF = 2048, LARGE_INTS = 512, WIN_BYTES = 4096 };
enum { ROUNDS = 200, BIG_EVERY = 10, NC = 64 };

/* the element types: 1, 2, 4 and 8-byte integers, a 16-byte complex */
static MPI_Datatype type_of(int k)
{
    switch (k) {
    case 0: return MPI_INT8_T;
    case 1: return MPI_INT16_T;
    case 2: return MPI_INT32_T;
    case 3: return MPI_INT64_T;
    default: return MPI_C_DOUBLE_COMPLEX;
    }
}
static size_t size_of(int k)
{
    return k == 4 ? 16 : (size_t)1 << k;
}

/* element i of buf (type k) = v (a complex gets v - v i) */
static void set_el(void *buf, int k, int i, long v)
{
    char *p = (char *)buf + (size_t)i * size_of(k);
    if (k == 4) {
        double d[2] = { (double)v, (double)-v };
        memcpy(p, d, sizeof d);
    } else {
        int64_t x = v;
        memcpy(p, &x, size_of(k));   /* little-endian truncation */
    }
}
/* element i of buf, or a value no check expects for a malformed complex */
static long get_el(const void *buf, int k, int i)
{
    const char *p = (const char *)buf + (size_t)i * size_of(k);
    if (k == 4) {
        double d[2];
        memcpy(d, p, sizeof d);
        return d[1] == -d[0] ? (long)d[0] : -999999;
    }
    switch (k) {
    case 0: { int8_t x; memcpy(&x, p, 1); return x; }
    case 1: { int16_t x; memcpy(&x, p, 2); return x; }
    case 2: { int32_t x; memcpy(&x, p, 4); return x; }
    default: { int64_t x; memcpy(&x, p, 8); return (long)x; }
    }
}

static void fill(void *buf, int k, long v0)
{
    for (int i = 0; i < NE; i++) set_el(buf, k, i, v0 + i);
}

#define CHECK_EL(buf, k, i, want) \
    CHECK(get_el(buf, k, i) == (want), "type %d element %d: %ld, want %ld", k, i, \
          get_el(buf, k, i), (long)(want))

/* Every operation kind from me to tgt; base: the target displacement of the
 * window's first byte (0, or an address on a dynamic window). */
static void each_op(MPI_Win w, int tgt, MPI_Aint base)
{
    char a[SLOT], b[SLOT], r[SLOT];
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tgt, 0, w));
    for (int k = 0; k < NT; k++) {
        MPI_Datatype t = type_of(k);
        MPI_Aint at = base + k * SLOT;
        long v = me * 10 + 1;
        /* put, get */
        fill(a, k, v);
        CHECK_MPI(MPI_Put(a, NE, t, tgt, at, NE, t, w));
        CHECK_MPI(MPI_Win_flush(tgt, w));
        memset(r, 0, sizeof r);
        CHECK_MPI(MPI_Get(r, NE, t, tgt, at, NE, t, w));
        CHECK_MPI(MPI_Win_flush(tgt, w));
        for (int i = 0; i < NE; i++) CHECK_EL(r, k, i, v + i);
        /* accumulate, two of them before the flush */
        for (int i = 0; i < NE; i++) set_el(b, k, i, 1);
        CHECK_MPI(MPI_Accumulate(b, NE, t, tgt, at, NE, t, MPI_SUM, w));
        CHECK_MPI(MPI_Accumulate(b, NE, t, tgt, at, NE, t, MPI_SUM, w));
        CHECK_MPI(MPI_Win_flush(tgt, w));
        /* get_accumulate: SUM, NO_OP, REPLACE */
        for (int i = 0; i < NE; i++) set_el(b, k, i, 2);
        CHECK_MPI(MPI_Get_accumulate(b, NE, t, r, NE, t, tgt, at, NE, t, MPI_SUM, w));
        for (int i = 0; i < NE; i++) CHECK_EL(r, k, i, v + i + 2);
        CHECK_MPI(MPI_Get_accumulate(NULL, 0, t, r, NE, t, tgt, at, NE, t, MPI_NO_OP, w));
        for (int i = 0; i < NE; i++) CHECK_EL(r, k, i, v + i + 4);
        for (int i = 0; i < NE; i++) set_el(b, k, i, 5);
        CHECK_MPI(MPI_Get_accumulate(b, NE, t, r, NE, t, tgt, at, NE, t, MPI_REPLACE, w));
        CHECK_MPI(MPI_Win_flush(tgt, w));
        for (int i = 0; i < NE; i++) CHECK_EL(r, k, i, v + i + 4);
        /* fetch_and_op on element 0: 5 -> 6 */
        set_el(b, k, 0, 1);
        CHECK_MPI(MPI_Fetch_and_op(b, r, t, tgt, at, MPI_SUM, w));
        CHECK_MPI(MPI_Win_flush(tgt, w));
        CHECK_EL(r, k, 0, 5);
        CHECK_MPI(MPI_Fetch_and_op(NULL, r, t, tgt, at, MPI_NO_OP, w));
        CHECK_MPI(MPI_Win_flush(tgt, w));
        CHECK_EL(r, k, 0, 6);
        /* compare_and_swap on element 1 (integers only): 5 -> 9, then no swap */
        if (k < 4) {
            long c = 5;
            set_el(a, k, 0, 9);
            set_el(b, k, 0, c);
            CHECK_MPI(MPI_Compare_and_swap(a, b, r, t, tgt, at + (MPI_Aint)size_of(k), w));
            CHECK_MPI(MPI_Win_flush(tgt, w));
            CHECK_EL(r, k, 0, 5);
            set_el(a, k, 0, 11);
            CHECK_MPI(MPI_Compare_and_swap(a, b, r, t, tgt, at + (MPI_Aint)size_of(k), w));
            CHECK_MPI(MPI_Win_flush(tgt, w));
            CHECK_EL(r, k, 0, 9);
        }
        /* Rput and Rget on elements 2 and 3 */
        MPI_Request q;
        set_el(a, k, 0, 40 + me);
        set_el(a, k, 1, 50 + me);
        CHECK_MPI(MPI_Rput(a, 2, t, tgt, at + 2 * (MPI_Aint)size_of(k), 2, t, w, &q));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Win_flush(tgt, w));
        memset(r, 0, sizeof r);
        CHECK_MPI(MPI_Rget(r, 2, t, tgt, at + 2 * (MPI_Aint)size_of(k), 2, t, w, &q));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK_EL(r, k, 0, 40 + me);
        CHECK_EL(r, k, 1, 50 + me);
    }
    /* large (copies) and small (requests) accumulates on the same ints, in
     * order: the last one sees both */
    int *big = mt_malloc(LARGE_INTS * sizeof(int)), *got = mt_malloc(LARGE_INTS * sizeof(int));
    for (int i = 0; i < LARGE_INTS; i++) big[i] = i;
    CHECK_MPI(MPI_Put(big, LARGE_INTS, MPI_INT, tgt, base + LARGE_OFF, LARGE_INTS, MPI_INT, w));
    CHECK_MPI(MPI_Win_flush(tgt, w));
    int one = 1, two[2] = { 2, 2 }, seen[2] = { -1, -1 };
    CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, tgt, base + LARGE_OFF, 1, MPI_INT, MPI_SUM, w));
    CHECK_MPI(MPI_Accumulate(big, LARGE_INTS, MPI_INT, tgt, base + LARGE_OFF, LARGE_INTS, MPI_INT,
                             MPI_SUM, w));
    CHECK_MPI(MPI_Accumulate(two, 2, MPI_INT, tgt, base + LARGE_OFF, 2, MPI_INT, MPI_SUM, w));
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, seen, 2, MPI_INT, tgt, base + LARGE_OFF, 2,
                                 MPI_INT, MPI_NO_OP, w));
    CHECK_INT(seen[0], 0 + 1 + 0 + 2);
    CHECK_INT(seen[1], 1 + 1 + 2);
    CHECK_MPI(MPI_Get(got, LARGE_INTS, MPI_INT, tgt, base + LARGE_OFF, LARGE_INTS, MPI_INT, w));
    CHECK_MPI(MPI_Win_unlock(tgt, w));
    for (int i = 2; i < LARGE_INTS; i++)
        if (got[i] != 2 * i) {
            CHECK(0, "large element %d is %d, want %d", i, got[i], 2 * i);
            break;
        }
    free(big);
    free(got);
}

/* What the origin src left in this rank's window mem. */
static void check_target(const char *mem, int src)
{
    for (int k = 0; k < NT; k++) {
        const char *p = mem + k * SLOT;
        CHECK_EL(p, k, 0, 6);
        CHECK_EL(p, k, 1, k < 4 ? 9 : 5);
        CHECK_EL(p, k, 2, 40 + src);
        CHECK_EL(p, k, 3, 50 + src);
        for (int i = 4; i < NE; i++) CHECK_EL(p, k, i, 5);
    }
    const int *ints = (const int *)(const void *)(mem + LARGE_OFF);
    CHECK_INT(ints[0], 3);
    CHECK_INT(ints[1], 4);
    CHECK_INT(ints[LARGE_INTS - 1], 2 * (LARGE_INTS - 1));
}

static void all_ops(int dynamic)
{
    int tgt = (me + 1) % np, src = (me + np - 1) % np;
    char *mem = mt_malloc(WIN_BYTES);
    memset(mem, 0, WIN_BYTES);
    MPI_Win w;
    MPI_Aint mine = 0, *bases = mt_malloc(sizeof(MPI_Aint) * np);
    if (dynamic) {
        CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
        CHECK_MPI(MPI_Win_attach(w, mem, WIN_BYTES));
        CHECK_MPI(MPI_Get_address(mem, &mine));
    } else {
        CHECK_MPI(MPI_Win_create(mem, WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    }
    MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
    each_op(w, tgt, bases[tgt]);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w));
    check_target(mem, src);
    CHECK_MPI(MPI_Win_unlock(me, w));
    MPI_Barrier(MPI_COMM_WORLD);
    if (dynamic) CHECK_MPI(MPI_Win_detach(w, mem));
    CHECK_MPI(MPI_Win_free(&w));
    free(bases);
    free(mem);
}

/* Rank 0 sleeps (how 0) or computes (how 1) for NAP_MS without calling MPI;
 * the others lock its window, operate on it and unlock 20 times, and must be
 * done in half that time. */
static void absent_target(int how)
{
    enum { NAP_MS = 1500 };
    long *mem = mt_malloc(sizeof(long) * (size_t)(np + 1));
    for (int i = 0; i <= np; i++) mem[i] = 0;
    MPI_Win w;
    CHECK_MPI(MPI_Win_create(mem, sizeof(long) * (np + 1), sizeof(long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &w));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        if (how == 0) {
            struct timespec ts = { NAP_MS / 1000, (NAP_MS % 1000) * 1000000L };
            nanosleep(&ts, NULL);
        } else {
            /* on the CPU all along (it does not read its window meanwhile: with
             * COURIER_ASYNC_PROGRESS its own thread may be writing it) */
            double t0 = mt_now();
            volatile double x = 0;
            while (mt_now() - t0 < NAP_MS / 1000.0) x = x + 1;
        }
    } else {
        double t0 = mt_now();
        for (int round = 0; round < 20; round++) {
            long v = 100 + me, one = 1, old = -1, back = -1;
            CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
            CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, np, 1, MPI_LONG, MPI_SUM, w));
            CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, np, MPI_SUM, w));
            CHECK(old >= 1, "fetch_and_op saw %ld before this rank's accumulate", old);
            if (round == 19) {
                CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, me, 1, MPI_LONG, w));
                CHECK_MPI(MPI_Win_flush(0, w));
            }
            CHECK_MPI(MPI_Get(&back, 1, MPI_LONG, 0, me, 1, MPI_LONG, w));
            CHECK_MPI(MPI_Win_unlock(0, w));
            CHECK_INT(back, round == 19 ? v : 0);
        }
        double took = mt_now() - t0;
        CHECK(took < NAP_MS / 2000.0, "the origin took %.3f s while the target %s %d ms", took,
              how == 0 ? "slept" : "computed", NAP_MS);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
        CHECK_INT(mem[np], 40L * (np - 1));
        CHECK_MPI(MPI_Win_unlock(0, w));
    }
    CHECK_MPI(MPI_Win_free(&w));
    free(mem);
}

/* Every rank into rank 0 at once: one long at a time (requests) and all NC
 * (copies) on the same elements, and tickets by fetch_and_op. */
static void concurrent(void)
{
    long *mem = mt_malloc(sizeof(long) * NC), ones[NC], prev = -1;
    for (int i = 0; i < NC; i++) mem[i] = 0, ones[i] = 1;
    MPI_Win w;
    CHECK_MPI(MPI_Win_create(mem, sizeof(long) * NC, sizeof(long), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &w));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock_all(0, w));
    for (int r = 0; r < ROUNDS; r++) {
        long one = 1, t = -1;
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, r % (NC - 1), 1, MPI_LONG, MPI_SUM, w));
        if (r % BIG_EVERY == 0)
            CHECK_MPI(MPI_Accumulate(ones, NC, MPI_LONG, 0, 0, NC, MPI_LONG, MPI_SUM, w));
        CHECK_MPI(MPI_Fetch_and_op(&one, &t, MPI_LONG, 0, NC - 1, MPI_SUM, w));
        CHECK(t > prev, "ticket %ld after %ld", t, prev);
        prev = t;
        if (r % 4 == 3) CHECK_MPI(MPI_Win_flush(0, w));
    }
    CHECK_MPI(MPI_Win_unlock_all(w));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
        long bigs = (ROUNDS + BIG_EVERY - 1) / BIG_EVERY;
        for (int j = 0; j < NC - 1; j++) {
            long small = ROUNDS / (NC - 1) + (j < ROUNDS % (NC - 1));
            CHECK(mem[j] == np * (small + bigs), "element %d is %ld, want %ld", j, mem[j],
                  np * (small + bigs));
        }
        CHECK(mem[NC - 1] == np * (ROUNDS + bigs), "the ticket counter is %ld, want %ld",
              mem[NC - 1], np * (ROUNDS + bigs));
        CHECK_MPI(MPI_Win_unlock(0, w));
    }
    CHECK_MPI(MPI_Win_free(&w));
    free(mem);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    all_ops(0);
    all_ops(1);
    concurrent();
    if (np > 1) {
        absent_target(0);
        absent_target(1);
    }
    int rc = mt_finish("rma_shm_am");
    MPI_Finalize();
    return rc;
}
