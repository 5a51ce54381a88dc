/* SPDX-License-Identifier: MIT */
/* A target that waits in MPI_Recv serves the one-sided requests in the ring
 * of its MPI_Win_create window (docs/rma.md, "Small operations on
 * MPI_Win_create memory"): rank 0 sits in one MPI_Recv from the last rank
 * while every other rank does ROUNDS puts of 8 bytes + MPI_Win_flush into
 * its own slot of rank 0's window, then gets the slot back; only then does
 * the last rank send what rank 0 waits for.
 *
 * The list runs it with every small operation sent as a request
 * (COURIER_RMA_SHM_AM=2) and a long time before a request is taken back
 * (COURIER_RMA_SHM_AM_SLOW_US): a target whose wait did not look at its ring
 * would leave each request to be taken back after that time and done by a
 * copy.  Checked through the MPI_T performance variables (src/tools/mpit.c):
 * at each origin, none was taken back and every put and get went as a
 * request; at rank 0, it served every request; and the data: the
 * get returns the last put, rank 0's window holds every origin's last value.
 * With one rank there is no other rank to wait for: it checks nothing but
 * the variables' presence.  Uses Courier's variable names; standard MPI
 * otherwise. */
#include "mpitest.h"
#include "mt_pvars.h"

enum { ROUNDS = 1000 };
enum { V_REQS = 0, V_BACK, V_COPIES, V_SERVED, NV };
static const char *const vname[NV] = { "rma_shm_requests", "rma_shm_requests_back",
                                       "rma_shm_copies", "rma_shm_requests_served" };

static mt_pvars_t pv;

static int64_t value(int rank, int i)
{
    return ((int64_t)rank << 32) | (int64_t)i;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_pvars_open(&pv, vname, NV);
    int64_t *mem = mt_malloc((size_t)np * sizeof(int64_t));
    for (int r = 0; r < np; r++) mem[r] = -1;
    MPI_Win win;
    CHECK_MPI(MPI_Win_create(mem, (MPI_Aint)((size_t)np * sizeof(int64_t)), sizeof(int64_t),
                             MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    /* the origins among themselves (made while rank 0 can still take part) */
    MPI_Comm origins;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, me == 0, me, &origins));
    unsigned long long before[NV], after[NV], sent_as_requests = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int v = 0; v < NV; v++) before[v] = mt_pvar(&pv, v);
    if (np > 1 && me == 0) {
        /* all of the origins' operations happen while rank 0 is in here */
        unsigned long long token[2] = {0, 0};
        CHECK_MPI(MPI_Recv(token, 2, MPI_UNSIGNED_LONG_LONG, np - 1, 7, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        CHECK(token[0] == (unsigned long long)(np - 1), "token %llu from rank %d", token[0], np - 1);
        sent_as_requests = token[1];
    } else if (np > 1) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        for (int i = 0; i < ROUNDS; i++) {
            int64_t v = value(me, i);
            CHECK_MPI(MPI_Put(&v, 1, MPI_INT64_T, 0, me, 1, MPI_INT64_T, win));
            CHECK_MPI(MPI_Win_flush(0, win));
        }
        int64_t got = -1;
        CHECK_MPI(MPI_Get(&got, 1, MPI_INT64_T, 0, me, 1, MPI_INT64_T, win));
        CHECK_MPI(MPI_Win_flush(0, win));
        CHECK(got == value(me, ROUNDS - 1), "rank %d got 0x%llx back, put 0x%llx last", me,
              (unsigned long long)got, (unsigned long long)value(me, ROUNDS - 1));
        CHECK_MPI(MPI_Win_unlock(0, win));
        for (int v = 0; v < NV; v++) after[v] = mt_pvar(&pv, v);
        unsigned long long reqs = after[V_REQS] - before[V_REQS];
        unsigned long long copies = after[V_COPIES] - before[V_COPIES];
        CHECK(after[V_BACK] == before[V_BACK], "rank %d: %llu requests taken back (not served "
              "while the target waited in MPI_Recv)", me, after[V_BACK] - before[V_BACK]);
        CHECK(reqs + copies == ROUNDS + 1, "rank %d: %llu requests + %llu copies, not %d", me,
              reqs, copies, ROUNDS + 1);
        /* each origin has one request at a time in the ring, so it always has room
         * (a data-returning request's slot is freed by the target, which leaves the
         * results in the origin's area: before that, a slot held by an origin
         * descheduled after its get stopped the others here at 3-4 ranks) */
        CHECK(reqs == ROUNDS + 1, "rank %d: %llu of its %d operations went as requests", me,
              reqs, ROUNDS + 1);
        /* every origin is done: the last one lets rank 0 go, with the origins' total */
        unsigned long long total = 0;
        CHECK_MPI(MPI_Allreduce(&reqs, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, origins));
        if (me == np - 1) {
            unsigned long long token[2] = {(unsigned long long)me, total};
            CHECK_MPI(MPI_Send(token, 2, MPI_UNSIGNED_LONG_LONG, 0, 7, MPI_COMM_WORLD));
        }
    }
    if (np > 1 && me == 0) {
        for (int v = 0; v < NV; v++) after[v] = mt_pvar(&pv, v);
        unsigned long long want = sent_as_requests;
        CHECK(after[V_SERVED] - before[V_SERVED] == want, "rank 0 served %llu requests, not %llu",
              after[V_SERVED] - before[V_SERVED], want);
    }
    MPI_Comm_free(&origins);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    if (me == 0)
        for (int r = 1; r < np; r++)
            CHECK(mem[r] == value(r, ROUNDS - 1), "rank 0's slot %d holds 0x%llx, not 0x%llx", r,
                  (unsigned long long)mem[r], (unsigned long long)value(r, ROUNDS - 1));
    CHECK_MPI(MPI_Win_unlock(me, win));
    CHECK_MPI(MPI_Win_free(&win));
    free(mem);
    mt_pvars_close(&pv);
    int rc = mt_finish("rma_shm_recv");
    MPI_Finalize();
    return rc;
}
