/* SPDX-License-Identifier: MIT */
/* Accumulates from many origins at once on one target, by every kind of
 * accumulate-class call and several basic types (docs/rma.md, "Accumulates
 * by CPU atomics"), on MPI_Win_allocate and MPI_Win_create windows.  On one
 * node the origins apply them with the CPU's atomic instructions (or the
 * accumulate lock with COURIER_RMA_CPU_ATOMICS=0); on pretend nodes the
 * target's node does so while the other nodes' arrive by network atomics or
 * by messages, all on the same elements.  Every rank, NITER times, under
 * MPI_Win_lock_all, on rank 0 and on the last rank:
 * - MPI_Fetch_and_op(MPI_SUM) of 1 on an int: the tickets fetched by all the
 *   ranks are 0 .. total - 1, each once;
 * - MPI_Get_accumulate(MPI_SUM) of 1 on each of NE contiguous ints: the old
 *   values of each element are 0 .. total - 1, each once;
 * - MPI_Accumulate(MPI_SUM) on a long long (1), a double (0.5), a float
 *   (1.0): exact totals;
 * - an int incremented by a compare-and-swap loop (MPI_Compare_and_swap
 *   retried until it hits) and by accumulates and fetch-and-ops of other
 *   ranks at once: exact total;
 * - MPI_Fetch_and_op(MPI_REPLACE) of a value unique to (rank, round): the
 *   fetched old values and the final value are the initial 0 and every
 *   written value, each exactly once (a swap chain loses no link);
 * - MPI_Accumulate with MPI_MAX (double), MPI_MIN (int), MPI_BOR (unsigned),
 *   MPI_BXOR (unsigned long long): the exact results;
 * - MPI_Fetch_and_op(MPI_NO_OP) of the long long: never more than its total.
 * With the environment variable RMA_CPU_RATE=<seconds> it measures instead
 * (a diagnostic, not a test): every rank accumulates one int into rank 0 by
 * MPI_Accumulate for that long, then by MPI_Fetch_and_op + MPI_Win_flush,
 * all in one MPI_Win_lock_all epoch on an MPI_Win_allocate window, and
 * prints the operations per second and the CPU seconds of each rank; the
 * final counter is checked against the operations counted. */
#include "mpitest.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { NITER = 150, NE = 16 };
/* rounds per target: NITER, or fewer when argv[1] says so (the sockets variant,
 * whose every network round trip costs scheduler slices on a loaded machine) */
static int niter = NITER;
/* byte offsets of the slots in each window */
enum {
    OFF_FOP = 0,       /* int: fetch-and-op tickets */
    OFF_LL = 8,        /* long long: accumulate 1 */
    OFF_D = 16,        /* double: accumulate 0.5 */
    OFF_F = 24,        /* float: accumulate 1 */
    OFF_MIX = 28,      /* int: compare-and-swap loops, accumulates and fetch-and-ops */
    OFF_SWAP = 32,     /* int: MPI_REPLACE chain */
    OFF_BOR = 36,      /* unsigned */
    OFF_BXOR = 40,     /* unsigned long long */
    OFF_MAX = 48,      /* double */
    OFF_MIN = 56,      /* int */
    OFF_ARR = 64,      /* NE ints: get-accumulate */
    WIN_BYTES = OFF_ARR + NE * 4
};
static int me, np;

static void one_target(MPI_Win w, int target, int *tickets, int *olds, int *swaps, int *mix_tries)
{
    /* every result buffer lives until the flush that completes it (old
     * too: a block-scoped one was written after its scope ended, which
     * check-asan caught over tcp) */
    int one = 1, ones[NE], res[NE], old;
    for (int i = 0; i < NE; i++) ones[i] = 1;
    long long onell = 1, seen;
    double half = 0.5, dv;
    float onef = 1.0f;
    for (int k = 0; k < niter; k++) {
        CHECK_MPI(MPI_Fetch_and_op(&one, &tickets[k], MPI_INT, target, OFF_FOP, MPI_SUM, w));
        CHECK_MPI(MPI_Get_accumulate(ones, NE, MPI_INT, res, NE, MPI_INT, target, OFF_ARR, NE,
                                     MPI_INT, MPI_SUM, w));
        CHECK_MPI(MPI_Accumulate(&onell, 1, MPI_LONG_LONG, target, OFF_LL, 1, MPI_LONG_LONG,
                                 MPI_SUM, w));
        CHECK_MPI(MPI_Accumulate(&half, 1, MPI_DOUBLE, target, OFF_D, 1, MPI_DOUBLE, MPI_SUM, w));
        CHECK_MPI(MPI_Accumulate(&onef, 1, MPI_FLOAT, target, OFF_F, 1, MPI_FLOAT, MPI_SUM, w));
        /* the mixed counter: a compare-and-swap loop on even rounds, an
         * accumulate or a fetch-and-op on odd ones (by rank parity) */
        if (k % 2 == 0) {
            int cur = 0, got;
            for (int tries = 0;; tries++) {
                int next = cur + 1;
                CHECK_MPI(MPI_Compare_and_swap(&next, &cur, &got, MPI_INT, target, OFF_MIX, w));
                CHECK_MPI(MPI_Win_flush(target, w));
                if (got == cur) break;
                cur = got;
                (*mix_tries)++;
                if (tries > 1000000) {
                    CHECK(0, "compare-and-swap on rank %d never hit", target);
                    break;
                }
            }
        } else if (me % 2) {
            CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT, target, OFF_MIX, 1, MPI_INT, MPI_SUM, w));
        } else {
            CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT, target, OFF_MIX, MPI_SUM, w));
        }
        int mine = me * niter + k + 1;
        CHECK_MPI(MPI_Fetch_and_op(&mine, &swaps[k], MPI_INT, target, OFF_SWAP, MPI_REPLACE, w));
        unsigned bit = 1u << (me % 32);
        CHECK_MPI(MPI_Accumulate(&bit, 1, MPI_UNSIGNED, target, OFF_BOR, 1, MPI_UNSIGNED, MPI_BOR,
                                 w));
        unsigned long long x = 1ull << ((me * 7 + k) % 64);
        CHECK_MPI(MPI_Accumulate(&x, 1, MPI_UNSIGNED_LONG_LONG, target, OFF_BXOR, 1,
                                 MPI_UNSIGNED_LONG_LONG, MPI_BXOR, w));
        dv = me * 1000.0 + k;
        CHECK_MPI(MPI_Accumulate(&dv, 1, MPI_DOUBLE, target, OFF_MAX, 1, MPI_DOUBLE, MPI_MAX, w));
        int iv = -(me * 1000 + k);
        CHECK_MPI(MPI_Accumulate(&iv, 1, MPI_INT, target, OFF_MIN, 1, MPI_INT, MPI_MIN, w));
        CHECK_MPI(MPI_Fetch_and_op(&onell, &seen, MPI_LONG_LONG, target, OFF_LL, MPI_NO_OP, w));
        CHECK_MPI(MPI_Win_flush(target, w));
        memcpy(olds + k * NE, res, sizeof res);
        CHECK(seen >= k + 1 && seen <= (long long)niter * np, "MPI_NO_OP read %lld of rank %d's "
              "counter in round %d (not in [%d, %d])", seen, target, k, k + 1, niter * np);
    }
}

/* Each of values[0..n) is in [0, n) and none repeats. */
static int permutation_bad(const int *values, int n, int stride)
{
    char *seen = calloc((size_t)n, 1);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int v = values[(size_t)i * stride];
        if (v < 0 || v >= n || seen[v]++) bad++;
    }
    free(seen);
    return bad;
}

static void check_target(MPI_Win w, int target, const int *tickets, const int *olds,
                         const int *swaps)
{
    int total = niter * np;
    int *allt = me == 0 ? mt_malloc(sizeof(int) * (size_t)total) : NULL;
    int *allo = me == 0 ? mt_malloc(sizeof(int) * (size_t)total * NE) : NULL;
    int *alls = me == 0 ? mt_malloc(sizeof(int) * (size_t)total) : NULL;
    MPI_Gather(tickets, niter, MPI_INT, allt, niter, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(olds, niter * NE, MPI_INT, allo, niter * NE, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(swaps, niter, MPI_INT, alls, niter, MPI_INT, 0, MPI_COMM_WORLD);
    unsigned char mem[WIN_BYTES];
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w));
    CHECK_MPI(MPI_Get(mem, WIN_BYTES, MPI_BYTE, target, 0, WIN_BYTES, MPI_BYTE, w));
    CHECK_MPI(MPI_Win_unlock(target, w));
    if (me != 0) return;
    int bad = permutation_bad(allt, total, 1);
    CHECK(bad == 0, "rank %d: %d of the %d fetch-and-op tickets repeat or are out of range", target,
          bad, total);
    for (int e = 0; e < NE; e++) {
        bad = permutation_bad(allo + e, total, NE);
        CHECK(bad == 0, "rank %d, element %d: %d of the %d get-accumulate old values repeat or "
              "are out of range (an add was lost or seen twice)", target, e, bad, total);
    }
    int iv;
    long long ll;
    double d;
    float f;
    unsigned u;
    unsigned long long x;
    memcpy(&iv, mem + OFF_FOP, 4);
    CHECK(iv == total, "rank %d: fetch-and-op counter %d, not %d", target, iv, total);
    for (int e = 0; e < NE; e++) {
        memcpy(&iv, mem + OFF_ARR + 4 * e, 4);
        CHECK(iv == total, "rank %d: element %d = %d, not %d", target, e, iv, total);
    }
    memcpy(&ll, mem + OFF_LL, 8);
    CHECK(ll == total, "rank %d: long long sum %lld, not %d", target, ll, total);
    memcpy(&d, mem + OFF_D, 8);
    CHECK(d == 0.5 * total, "rank %d: double sum %g, not %g", target, d, 0.5 * total);
    memcpy(&f, mem + OFF_F, 4);
    CHECK(f == (float)total, "rank %d: float sum %g, not %d", target, (double)f, total);
    memcpy(&iv, mem + OFF_MIX, 4);
    CHECK(iv == total, "rank %d: the counter of compare-and-swap loops, accumulates and "
          "fetch-and-ops is %d, not %d", target, iv, total);
    memcpy(&u, mem + OFF_BOR, 4);
    unsigned bor = 0;
    unsigned long long bx = 0;
    for (int r = 0; r < np; r++) {
        bor |= 1u << (r % 32);
        for (int k = 0; k < niter; k++) bx ^= 1ull << ((r * 7 + k) % 64);
    }
    CHECK(u == bor, "rank %d: MPI_BOR gave 0x%x, not 0x%x", target, u, bor);
    memcpy(&x, mem + OFF_BXOR, 8);
    CHECK(x == bx, "rank %d: MPI_BXOR gave 0x%llx, not 0x%llx", target, x, bx);
    memcpy(&d, mem + OFF_MAX, 8);
    CHECK(d == (np - 1) * 1000.0 + niter - 1, "rank %d: MPI_MAX gave %g", target, d);
    memcpy(&iv, mem + OFF_MIN, 4);
    CHECK(iv == -((np - 1) * 1000 + niter - 1), "rank %d: MPI_MIN gave %d", target, iv);
    /* the swap chain: the fetched values and the final one are 0 and every
     * written value (r * niter + k + 1), each once */
    int final;
    memcpy(&final, mem + OFF_SWAP, 4);
    int *chain = mt_malloc(sizeof(int) * (size_t)(total + 1));
    memcpy(chain, alls, sizeof(int) * (size_t)total);
    chain[total] = final;
    bad = permutation_bad(chain, total + 1, 1);
    CHECK(bad == 0, "rank %d: %d links of the MPI_REPLACE chain are lost or repeated", target, bad);
    free(chain);
    free(allt);
    free(allo);
    free(alls);
}

static void body(MPI_Win w, void *mem, int kind)
{
    (void)mem, (void)kind;
    int *tickets = mt_malloc(sizeof(int) * NITER), *swaps = mt_malloc(sizeof(int) * NITER);
    int *olds = mt_malloc(sizeof(int) * NITER * NE), tries = 0;
    int targets[2] = { 0, np - 1 };
    for (int i = 0; i < (np > 1 ? 2 : 1); i++) {
        CHECK_MPI(MPI_Win_lock_all(0, w));
        one_target(w, targets[i], tickets, olds, swaps, &tries);
        CHECK_MPI(MPI_Win_unlock_all(w));
        MPI_Barrier(MPI_COMM_WORLD);
        check_target(w, targets[i], tickets, olds, swaps);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(tickets);
    free(swaps);
    free(olds);
}

/* The diagnostic: ops per second into rank 0, by every rank at once. */
static void rate(double seconds)
{
    int *mem, one = 1, old;
    MPI_Win w;
    CHECK_MPI(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w));
    memset(mem, 0, 64);
    MPI_Barrier(MPI_COMM_WORLD);
    long n[2] = { 0, 0 };
    double wall[2], cpu[2];
    CHECK_MPI(MPI_Win_lock_all(0, w));
    for (int phase = 0; phase < 2; phase++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = mt_now(), c0 = mt_cpu_seconds(), t = t0;
        while (t - t0 < seconds) {
            for (int i = 0; i < 256; i++) {
                if (phase == 0) {
                    MPI_Accumulate(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w);
                } else {
                    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, w);
                    MPI_Win_flush(0, w);
                }
            }
            n[phase] += 256;
            t = mt_now();
        }
        wall[phase] = t - t0;
        cpu[phase] = mt_cpu_seconds() - c0;
    }
    CHECK_MPI(MPI_Win_unlock_all(w));
    MPI_Barrier(MPI_COMM_WORLD);
    long all = n[0] + n[1], sum = 0;
    MPI_Reduce(&all, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    printf("rank %d: MPI_Accumulate %.0f ops/s (%.2f CPU s in %.2f s), MPI_Fetch_and_op + "
           "flush %.0f ops/s (%.2f CPU s in %.2f s)\n", me, n[0] / wall[0], cpu[0], wall[0],
           n[1] / wall[1], cpu[1], wall[1]);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        CHECK(mem[0] == (int)sum, "the counter is %d after %ld operations", mem[0], sum);
        printf("all ranks: %ld operations into rank 0, counter %d\n", sum, mem[0]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_free(&w));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) < NITER) niter = atoi(argv[1]);
    const char *r = getenv("RMA_CPU_RATE");
    if (r && atof(r) > 0) rate(atof(r));
    else mt_each_window(WIN_BYTES, 1, body);
    int rc = mt_finish("rma_cpu");
    MPI_Finalize();
    return rc;
}
