/* SPDX-License-Identifier: MIT */
/* Bulk accumulates against element-wise atomics on the same elements
 * (docs/rma.md, "Bulk accumulates"): every rank at once, on rank 0 and on
 * the last rank, accumulates whole arrays (int64 and double sums, uint32
 * exclusive-or, an int64 get-accumulate), which go by the vector kernels in
 * bulk mode or in an exclusive lock epoch, mixed with fetch-and-ops and
 * single-element accumulates with the same op on elements of those arrays
 * and a compare-and-swap counter, which go lock-free by the CPU's atomics
 * (the entry points' short ways included) or under the accumulate lock
 * while an origin is in bulk mode.  Under shared locks (an epoch per round),
 * lock_all with flushes, fences, exclusive locks and post/start/complete/
 * wait; on MPI_Win_allocate and
 * MPI_Win_allocate_shared windows; every third round of an origin has no
 * whole-array operation, so that it leaves bulk mode at that epoch's end
 * and enters it again in the next.  Every total must be exact (the doubles
 * are multiples of 0.25, exactly representable), and the old values that
 * one origin's get-accumulates fetch from an element must grow by at least
 * what it added in between.  Through the MPI_T counters rma_acc_vector and
 * rma_acc_bulk_entries, the first argument says what Courier must have
 * done: "bulk" (default: vector kernels and bulk-mode entries), "excl"
 * (vector kernels, no entries: COURIER_RMA_ACC_BULK_BYTES=0) or "none"
 * (neither: COURIER_RMA_CPU_ATOMICS=0). */
#include "mpitest.h"
#include "mt_pvars.h"
#include <stdint.h>
#include <string.h>

enum { NE = 512, ROUNDS = 200, SMALL = 12 };
enum { M_SHARED, M_LOCKALL, M_FENCE, M_EXCL, M_PSCW, NMODES };
static const char *const mode_name[NMODES] = { "shared lock", "lock_all", "fence",
                                               "exclusive lock", "post/start" };
/* active target: no flush, the fetched values known at the epoch's end only */
static int active(int mode) { return mode == M_FENCE || mode == M_PSCW; }

/* the window of every rank: NE int64, NE doubles, NE uint32 (padded to 8
 * bytes each), the counter; displacements in bytes (disp_unit 1) */
#define OFF_A 0
#define OFF_D (OFF_A + NE * 8)
#define OFF_X (OFF_D + NE * 8)
#define OFF_C (OFF_X + NE * 4)
#define WIN_BYTES (OFF_C + 64)

static int me, np;

/* the elements of round r's small operations of origin o */
static int k_fop(int o, int r) { return (r * 7 + o * 3) % NE; }
static int k_acc(int o, int r, int i) { return (r * 13 + o * 5 + i * 41 + 1) % NE; }
static int k_xor(int o, int r) { return (r * 11 + o * 17 + 3) % NE; }
static uint32_t xbits(int o, int r, int k) { return (uint32_t)(o * 2654435761u ^ r * 40503u ^ k * 97u); }
static uint32_t fbits(int o, int r) { return (uint32_t)(0x9e3779b9u * (unsigned)(o + 1) + (unsigned)r); }
/* rounds with the whole-array operations; in the others only the small
 * ones, so that an origin's epoch without any leaves bulk mode, and the
 * next round's enters it again while the others go on */
static int big(int o, int r) { return (r + o) % 3 != 2; }

static void epoch_open(int mode, int tg, MPI_Win w)
{
    if (mode == M_SHARED) CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, tg, 0, w));
    else if (mode == M_EXCL) CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tg, 0, w));
}

static void epoch_close(int mode, int tg, MPI_Win w)
{
    if (mode == M_SHARED || mode == M_EXCL) CHECK_MPI(MPI_Win_unlock(tg, w));
    else if (mode == M_LOCKALL) CHECK_MPI(MPI_Win_flush(tg, w));
}

/* One round of origin me on target tg; prev: the old values its last
 * get-accumulate on tg fetched (-1: none yet). */
static void round_on(int mode, int tg, int r, MPI_Win w, int64_t *prev)
{
    static int64_t ones[NE], res[NE];
    static double halves[NE];
    static uint32_t xs[NE];
    for (int k = 0; k < NE; k++) {
        ones[k] = 1;
        halves[k] = 0.5;
        xs[k] = xbits(me, r, k);
    }
    epoch_open(mode, tg, w);
    int b = big(me, r);
    /* int64: +1 on every element; the small ones between the big ones */
    if (b) CHECK_MPI(MPI_Accumulate(ones, NE, MPI_INT64_T, tg, OFF_A, NE, MPI_INT64_T, MPI_SUM, w));
    int64_t one = 1, two = 2, old = -1;
    CHECK_MPI(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, tg, OFF_A + 8 * k_fop(me, r), MPI_SUM, w));
    for (int i = 0; i < SMALL; i++)
        CHECK_MPI(MPI_Accumulate(&two, 1, MPI_INT64_T, tg, OFF_A + 8 * k_acc(me, r, i), 1,
                                 MPI_INT64_T, MPI_SUM, w));
    /* +1 on every element, fetching the old values */
    if (b)
        CHECK_MPI(MPI_Get_accumulate(ones, NE, MPI_INT64_T, res, NE, MPI_INT64_T, tg, OFF_A, NE,
                                     MPI_INT64_T, MPI_SUM, w));
    if (!active(mode)) CHECK_MPI(MPI_Win_flush(tg, w));
    /* doubles: 0.5 on every element, 0.25 on SMALL of them */
    if (b) CHECK_MPI(MPI_Accumulate(halves, NE, MPI_DOUBLE, tg, OFF_D, NE, MPI_DOUBLE, MPI_SUM, w));
    double q = 0.25, dold[SMALL];
    for (int i = 0; i < SMALL; i++) {
        dold[i] = -1;
        CHECK_MPI(MPI_Fetch_and_op(&q, &dold[i], MPI_DOUBLE, tg, OFF_D + 8 * k_acc(me, r, i),
                                   MPI_SUM, w));
    }
    /* uint32 exclusive-or of every element, and of one alone */
    if (b) CHECK_MPI(MPI_Accumulate(xs, NE, MPI_UINT32_T, tg, OFF_X, NE, MPI_UINT32_T, MPI_BXOR, w));
    uint32_t fb = fbits(me, r), xold;
    CHECK_MPI(MPI_Fetch_and_op(&fb, &xold, MPI_UINT32_T, tg, OFF_X + 4 * k_xor(me, r), MPI_BXOR,
                               w));
    /* the counter: a compare-and-swap loop */
    int64_t seen = 0, cur = 0, next;
    for (;;) {
        next = cur + 1;
        CHECK_MPI(MPI_Compare_and_swap(&next, &cur, &seen, MPI_INT64_T, tg, OFF_C, w));
        if (!active(mode)) CHECK_MPI(MPI_Win_flush(tg, w));
        if (mode == M_FENCE || seen == cur) break;   /* fence: no result inside the epoch */
        cur = seen;
    }
    epoch_close(mode, tg, w);
    if (active(mode)) return;   /* the fetched values are known at the epoch's end only */
    /* complete now (flush or unlock) */
    CHECK(old >= 0, "old value %lld", (long long)old);
    for (int i = 0; i < SMALL; i++) CHECK(dold[i] >= 0, "old double %g", dold[i]);
    if (!b) return;
    for (int k = 0; k < NE; k++) {
        if (prev[k] >= 0)
            CHECK(res[k] >= prev[k] + 2, "element %d: fetched %lld after %lld", k,
                  (long long)res[k], (long long)prev[k]);
        prev[k] = res[k];
    }
}

static int64_t want_a(int k, int rounds)
{
    int64_t v = 0;
    for (int o = 0; o < np; o++)
        for (int r = 0; r < rounds; r++) {
            v += 2 * big(o, r) + (k == k_fop(o, r));
            for (int i = 0; i < SMALL; i++) v += 2 * (k == k_acc(o, r, i));
        }
    return v;
}

static void check_target(int mode, char *mem)
{
    const int64_t *a = (const int64_t *)(void *)(mem + OFF_A);
    const double *d = (const double *)(void *)(mem + OFF_D);
    const uint32_t *x = (const uint32_t *)(void *)(mem + OFF_X);
    int64_t c;
    memcpy(&c, mem + OFF_C, sizeof c);
    int bad = 0;
    for (int k = 0; k < NE && bad < 5; k++) {
        int64_t wa = want_a(k, ROUNDS);
        double wd = 0;
        uint32_t wx = 0;
        for (int o = 0; o < np; o++)
            for (int r = 0; r < ROUNDS; r++) {
                wd += 0.5 * big(o, r);
                for (int i = 0; i < SMALL; i++) wd += 0.25 * (k == k_acc(o, r, i));
                wx ^= (big(o, r) ? xbits(o, r, k) : 0) ^ (k == k_xor(o, r) ? fbits(o, r) : 0);
            }
        if (a[k] != wa || d[k] != wd || x[k] != wx) {
            bad++;
            CHECK(0, "%s: element %d: int64 %lld (want %lld), double %g (want %g), uint32 "
                  "0x%x (want 0x%x)", mode_name[mode], k, (long long)a[k], (long long)wa, d[k],
                  wd, x[k], wx);
        }
    }
    /* with fences and post/start the compare-and-swap may fail (no retry
     * inside the epoch) */
    if (!active(mode)) CHECK(c == (int64_t)np * ROUNDS, "%s: counter %lld, want %lld",
                               mode_name[mode], (long long)c, (long long)np * ROUNDS);
}

static void run_mode(int mode, MPI_Win w, char *mem)
{
    /* clear this rank's window */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w));
    memset(mem, 0, WIN_BYTES);
    CHECK_MPI(MPI_Win_unlock(me, w));
    MPI_Barrier(MPI_COMM_WORLD);
    int tgs[2] = { 0, np - 1 }, ntg = np > 1 ? 2 : 1;
    static int64_t prev[2][NE];
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < NE; k++) prev[t][k] = -1;
    if (mode == M_LOCKALL) CHECK_MPI(MPI_Win_lock_all(0, w));
    if (mode == M_FENCE) CHECK_MPI(MPI_Win_fence(0, w));
    MPI_Group all;
    CHECK_MPI(MPI_Win_get_group(w, &all));
    for (int r = 0; r < ROUNDS; r++) {
        if (mode == M_PSCW) {
            CHECK_MPI(MPI_Win_post(all, 0, w));
            CHECK_MPI(MPI_Win_start(all, 0, w));
        }
        for (int t = 0; t < ntg; t++) {
            /* start on different targets, so that origins cross */
            int tt = (t + me + r) % ntg;
            round_on(mode, tgs[tt], r, w, prev[tt]);
        }
        if (mode == M_FENCE) CHECK_MPI(MPI_Win_fence(0, w));
        if (mode == M_PSCW) {
            CHECK_MPI(MPI_Win_complete(w));
            CHECK_MPI(MPI_Win_wait(w));
        }
    }
    CHECK_MPI(MPI_Group_free(&all));
    if (mode == M_LOCKALL) CHECK_MPI(MPI_Win_unlock_all(w));
    if (mode == M_FENCE) CHECK_MPI(MPI_Win_fence(0, w));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0 || me == np - 1) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w));
        check_target(mode, mem);
        CHECK_MPI(MPI_Win_unlock(me, w));
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

#ifndef MT_REFERENCE_MPICH
/* Courier's MPI_T counters (counted from when their handles are made) */
enum { V_VECTOR, V_ENTRIES, NV };
static const char *const vname[NV] = { "rma_acc_vector", "rma_acc_bulk_entries" };
static mt_pvars_t pv;
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *expect = argc > 1 ? argv[1] : "bulk";
#ifndef MT_REFERENCE_MPICH
    mt_pvars_open(&pv, vname, NV);
#endif
    for (int flavor = 0; flavor < 2; flavor++) {
        char *mem;
        MPI_Win w;
        if (flavor == 0)
            CHECK_MPI(MPI_Win_allocate(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w));
        else
            CHECK_MPI(MPI_Win_allocate_shared(WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                                              &w));
        for (int mode = 0; mode < NMODES; mode++) run_mode(mode, w, mem);
        CHECK_MPI(MPI_Win_free(&w));
    }
#ifndef MT_REFERENCE_MPICH
    unsigned long long vec = mt_pvar(&pv, V_VECTOR), ent = mt_pvar(&pv, V_ENTRIES);
    if (!strcmp(expect, "bulk")) {
        CHECK(vec > 0 && ent > 0, "vector kernels %llu times, bulk mode entered %llu times", vec,
              ent);
    } else if (!strcmp(expect, "excl")) {
        CHECK(vec > 0 && ent == 0, "vector kernels %llu times, bulk mode entered %llu times", vec,
              ent);
    } else {
        CHECK(vec == 0 && ent == 0, "vector kernels %llu times, bulk mode entered %llu times", vec,
              ent);
    }
    mt_pvars_close(&pv);
#endif
    int rc = mt_finish("rma_bulk");
    MPI_Finalize();
    return rc;
}
