/* SPDX-License-Identifier: MIT */
/* One-sided communication between nodes (run on pretend nodes over
 * libfabric's tcp provider, with the network's own RMA on or off, with and
 * without the asynchronous progress thread; docs/rma.md):
 * - every rank puts a contiguous block and a strided one into every rank's
 *   window under an exclusive lock, gets them back after a flush, and the
 *   targets check what arrived; then accumulates, fetch-and-op tickets and
 *   compare-and-swap on per-origin slots under shared locks, with exact
 *   totals; then a ring of puts under fences; on MPI_Win_allocate and
 *   MPI_Win_create memory;
 * - rank 0 computes for 2 s without calling MPI while the others lock, put,
 *   get and unlock its window.  The data must be right in every case; with
 *   COURIER_ASYNC_PROGRESS=1 every origin must have finished (by the clock
 *   shared by the processes of this machine) before rank 0's loop ended;
 * - with FI_PROVIDER=sockets (whose RMA needs no target progress) and the
 *   network RMA on, puts under a MPI_MODE_NOCHECK lock reach rank 0 while it
 *   computes without MPI and without a progress thread. */
#include "mpitest.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PUTN = 16, PUTAREA = 64, ACC = PUTAREA, NACC = 8, CNT = ACC + NACC, SLOT = CNT + 1,
       WLONGS = 128, BUSY_S = 2 };
static int me, np;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long val(int origin, int target, int i)
{
    return 100000L * (origin + 1) + 1000L * target + i;
}

static void puts_gets(MPI_Win w, long *mem)
{
    /* contiguous PUTN longs at origin me's block, then a strided get back */
    MPI_Datatype vec;
    MPI_Type_vector(PUTN / 2, 1, 2, MPI_LONG, &vec);
    MPI_Type_commit(&vec);
    for (int t = 0; t < np; t++) {
        long out[PUTN], back[PUTN], odd[PUTN / 2];
        for (int i = 0; i < PUTN; i++) out[i] = val(me, t, i), back[i] = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w));
        CHECK_MPI(MPI_Put(out, PUTN, MPI_LONG, t, me * PUTN, PUTN, MPI_LONG, w));
        CHECK_MPI(MPI_Win_flush(t, w));
        CHECK_MPI(MPI_Get(back, PUTN, MPI_LONG, t, me * PUTN, PUTN, MPI_LONG, w));
        CHECK_MPI(MPI_Win_flush(t, w));
        for (int i = 0; i < PUTN; i++) CHECK(back[i] == out[i], "target %d [%d] = %ld", t, i, back[i]);
        /* strided: the odd elements, negated, by a vector target type */
        for (int i = 0; i < PUTN / 2; i++) odd[i] = -out[2 * i + 1];
        CHECK_MPI(MPI_Put(odd, PUTN / 2, MPI_LONG, t, me * PUTN + 1, 1, vec, w));
        CHECK_MPI(MPI_Win_unlock(t, w));
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w));
        memset(odd, 0, sizeof odd);
        CHECK_MPI(MPI_Get(odd, PUTN / 2, MPI_LONG, t, me * PUTN + 1, 1, vec, w));
        CHECK_MPI(MPI_Win_unlock(t, w));
        for (int i = 0; i < PUTN / 2; i++)
            CHECK(odd[i] == -out[2 * i + 1], "target %d strided [%d] = %ld", t, i, odd[i]);
    }
    MPI_Type_free(&vec);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w));   /* see the others' writes */
    for (int o = 0; o < np; o++)
        for (int i = 0; i < PUTN; i++) {
            long want = i % 2 ? -val(o, me, i) : val(o, me, i);
            CHECK(mem[o * PUTN + i] == want, "from %d [%d]: %ld, not %ld", o, i,
                  mem[o * PUTN + i], want);
        }
    CHECK_MPI(MPI_Win_unlock(me, w));
}

static void atomics(MPI_Win w, long *mem)
{
    for (int t = 0; t < np; t++) {
        long add[NACC], one = 1, ticket = -1, mine = me + 1, zero = 0, old = -1;
        for (int i = 0; i < NACC; i++) add[i] = (me + 1) * (i + 1);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w));
        CHECK_MPI(MPI_Accumulate(add, NACC, MPI_LONG, t, ACC, NACC, MPI_LONG, MPI_SUM, w));
        CHECK_MPI(MPI_Fetch_and_op(&one, &ticket, MPI_LONG, t, CNT, MPI_SUM, w));
        CHECK_MPI(MPI_Compare_and_swap(&mine, &zero, &old, MPI_LONG, t, SLOT + me, w));
        CHECK_MPI(MPI_Win_flush(t, w));
        CHECK(ticket >= 0 && ticket < np, "ticket %ld from target %d", ticket, t);
        CHECK(old == 0, "first compare-and-swap at target %d found %ld", t, old);
        old = -1;
        CHECK_MPI(MPI_Compare_and_swap(&zero, &zero, &old, MPI_LONG, t, SLOT + me, w));
        CHECK_MPI(MPI_Win_unlock(t, w));
        CHECK(old == me + 1, "second compare-and-swap at target %d found %ld", t, old);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w));
    long s = (long)np * (np + 1) / 2;
    for (int i = 0; i < NACC; i++)
        CHECK(mem[ACC + i] == s * (i + 1), "accumulated [%d] = %ld, not %ld", i, mem[ACC + i],
              s * (i + 1));
    CHECK(mem[CNT] == np, "counter %ld, not %d", mem[CNT], np);
    for (int o = 0; o < np; o++) CHECK(mem[SLOT + o] == o + 1, "slot %d = %ld", o, mem[SLOT + o]);
    CHECK_MPI(MPI_Win_unlock(me, w));
}

static void fences(MPI_Win w, long *mem)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    long v = val(me, right, 7);
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, right, WLONGS - 1, 1, MPI_LONG, w));
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK(mem[WLONGS - 1] == val(left, me, 7), "fence put from %d: %ld", left, mem[WLONGS - 1]);
    long got = -1;
    CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, left, WLONGS - 1, 1, MPI_LONG, w));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
    CHECK(got == val((me + 2 * np - 2) % np, left, 7), "fence get from %d: %ld", left, got);
}

/* Rank 0 computes without MPI for BUSY_S seconds; the others lock, put, get
 * and unlock its window meanwhile. */
static void busy_target(void)
{
    long *mem;
    MPI_Win w;
    int async = getenv("COURIER_ASYNC_PROGRESS") && atoi(getenv("COURIER_ASYNC_PROGRESS"));
    CHECK_MPI(MPI_Win_allocate(np * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &mem, &w));
    for (int i = 0; i < np; i++) mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t_mine = 0;
    if (me == 0) {
        double t0 = now();
        volatile double x = 1;
        while (now() - t0 < BUSY_S) x = x * 1.0000001 + 1e-9;
        t_mine = now();                      /* the end of the loop */
    } else {
        long v = val(me, 0, 3), back = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, me, 1, MPI_LONG, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        CHECK_MPI(MPI_Get(&back, 1, MPI_LONG, 0, me, 1, MPI_LONG, w));
        CHECK_MPI(MPI_Win_unlock(0, w));
        t_mine = now();                      /* when this origin was done */
        CHECK(back == v, "got back %ld, not %ld", back, v);
    }
    double *all = mt_malloc(sizeof(double) * (size_t)np);
    MPI_Gather(&t_mine, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me == 0) {
        for (int o = 1; o < np; o++) {
            CHECK(mem[o] == val(o, 0, 3), "origin %d's put: %ld", o, mem[o]);
            if (async)
                CHECK(all[o] < all[0], "origin %d finished %.3f s after the target's loop ended "
                      "(asynchronous progress should serve it)", o, all[o] - all[0]);
        }
    }
    free(all);
    CHECK_MPI(MPI_Win_free(&w));
}

/* With a provider that moves RMA data without the target's help (sockets:
 * automatic data progress) and the network RMA on, puts and gets under a
 * MPI_MODE_NOCHECK lock (no lock message) reach rank 0 while it computes
 * without MPI and without a progress thread. */
static void nocheck_target(void)
{
    long *mem;
    MPI_Win w;
    CHECK_MPI(MPI_Win_allocate(np * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &mem, &w));
    for (int i = 0; i < np; i++) mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        double t0 = now();
        int have = 0;
        while (have < np - 1 && now() - t0 < 20) {
            have = 0;
            for (int o = 1; o < np; o++)
                have += __atomic_load_n(&mem[o], __ATOMIC_ACQUIRE) == val(o, 0, 5);
        }
        CHECK(have == np - 1, "only %d of %d origins' puts arrived while the target computed",
              have, np - 1);
    } else {
        long v = val(me, 0, 5), back = -1;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, w));
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, me, 1, MPI_LONG, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        CHECK_MPI(MPI_Get(&back, 1, MPI_LONG, 0, me, 1, MPI_LONG, w));
        CHECK_MPI(MPI_Win_unlock(0, w));
        CHECK(back == v, "got back %ld, not %ld", back, v);
    }
    CHECK_MPI(MPI_Win_free(&w));
}

static void window_body(MPI_Win w, void *mem, int kind)
{
    (void)kind;
    puts_gets(w, mem);
    atomics(w, mem);
    fences(w, mem);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_each_window(WLONGS * sizeof(long), sizeof(long), window_body);
    busy_target();
    const char *prov = getenv("FI_PROVIDER"), *native = getenv("COURIER_RMA_OFI_NATIVE");
    if (prov && !strcmp(prov, "sockets") && !(native && !atoi(native))) nocheck_target();
    int rc = mt_finish("rma_net");
    MPI_Finalize();
    return rc;
}
