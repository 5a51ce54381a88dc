/* SPDX-License-Identifier: MIT */
/* Asynchronous progress of a non-blocking collective (COURIER_ASYNC_PROGRESS=1,
 * docs/threads.md): every rank starts an MPI_Iallreduce of 1 MiB (MPI_SUM of
 * MPI_INT) and then computes without calling MPI, watching its receive
 * buffer: the sums must land while the ranks compute (only the progress
 * threads can move the collective's schedule on: it has several steps, each
 * a rendezvous exchange that needs both sides, and a local reduction).  Then
 * MPI_Wait and every element checked.  Three rounds with different data,
 * the last with MPI_IN_PLACE.  Argument "multiple": MPI_Init_thread with
 * MPI_THREAD_MULTIPLE (MPICH runs its progress thread, MPIR_CVAR_ASYNC_PROGRESS=1,
 * only then), else MPI_THREAD_SINGLE. */
#include "mpitest.h"

#define COUNT ((1u << 20) / sizeof(int))
#define ROUNDS 3
#define LIMIT_S 20.0

/* Every contribution is positive, so a partial sum never equals the final one. */
static int elem(int rank, int round, size_t k)
{
    return (rank + 1) * 1000 + round * 7 + (int)(k % 991) + 1;
}
static int total(int size, int round, size_t k)
{
    return 1000 * size * (size + 1) / 2 + size * (round * 7 + (int)(k % 991) + 1);
}

/* The elements watched while computing: both ends and a few between. */
static const size_t watch[] = { 0, COUNT / 3, COUNT / 2, COUNT - 1 - COUNT / 5, COUNT - 1 };
#define NWATCH (sizeof watch / sizeof watch[0])

static volatile double sink;

int main(int argc, char **argv)
{
    int provided, rank, size;
    int multiple = argc > 1 && !strcmp(argv[1], "multiple");
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_rank();
    int *in = mt_malloc(COUNT * sizeof(int));
    int *out = mt_malloc(COUNT * sizeof(int));
    for (int round = 0; round < ROUNDS; round++) {
        int in_place = round == ROUNDS - 1;
        for (size_t k = 0; k < COUNT; k++) {
            in[k] = elem(rank, round, k);
            out[k] = in_place ? in[k] : 0;
        }
        MPI_Request rq;
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Iallreduce(in_place ? MPI_IN_PLACE : in, out, (int)COUNT, MPI_INT, MPI_SUM,
                                 MPI_COMM_WORLD, &rq));
        /* compute: no MPI call until every watched element holds its sum */
        volatile int *o = out;
        double t0 = mt_now(), spent = 0, x = 1.0;
        int arrived = 0;
        while (!arrived && (spent = mt_now() - t0) < LIMIT_S) {
            for (int k = 0; k < 20000; k++) x = x * 1.0000001 + 1e-9;   /* "work" */
            arrived = 1;
            for (size_t w = 0; w < NWATCH && arrived; w++)
                arrived = o[watch[w]] == total(size, round, watch[w]);
        }
        sink = x;
        CHECK(arrived, "round %d: the 1 MiB allreduce did not complete in %.0f s of computing "
              "without MPI calls", round, LIMIT_S);
        if (arrived && rank == 0)
            printf("round %d: the sums arrived after %.3f ms of computing\n", round, spent * 1e3);
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        long bad = 0;
        size_t first = 0;
        for (size_t k = 0; k < COUNT; k++)
            if (out[k] != total(size, round, k) && bad++ == 0) first = k;
        CHECK(bad == 0, "round %d: %ld wrong sums, the first at element %zu: %d, not %d", round, bad,
              first, out[first], total(size, round, first));
    }
    free(in);
    free(out);
    int rc = mt_finish("thr_async_nbc");
    MPI_Finalize();
    return rc;
}
