/* SPDX-License-Identifier: MIT */
/* MPI_Initialized / MPI_Finalized before, during and after; MPI_Init_thread
 * reports an honest level within range; MPI_Query_thread agrees;
 * MPI_Is_thread_main is true on the main thread. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, q = -1, rank, size, errs = 0;
    MPI_Initialized(&flag);
    if (flag != 0) { fprintf(stderr, "FAIL: MPI_Initialized before init gave %d\n", flag); errs++; }
    MPI_Finalized(&flag);
    if (flag != 0) { fprintf(stderr, "FAIL: MPI_Finalized before init gave %d\n", flag); errs++; }

    int want = MPI_THREAD_MULTIPLE;
    if (argc > 1) want = atoi(argv[1]);
    CHECK_MPI(MPI_Init_thread(&argc, &argv, want, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
          MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE, "thread level constants out of order");
    CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided = %d", provided);
    CHECK_MPI(MPI_Query_thread(&q));
    CHECK_INT(q, provided);
    flag = 0;
    CHECK_MPI(MPI_Is_thread_main(&flag));
    CHECK_INT(flag, 1);
    flag = 0;
    CHECK_MPI(MPI_Initialized(&flag));
    CHECK_INT(flag, 1);
    flag = 1;
    CHECK_MPI(MPI_Finalized(&flag));
    CHECK_INT(flag, 0);
    /* every rank got the same level */
    int lo = 0, hi = 0;
    MPI_Allreduce(&provided, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&provided, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK_INT(lo, hi);
    if (rank == 0) printf("thread level requested %d provided %d\n", want, provided);
    int rc = mt_finish("env_init") | errs;
    CHECK_MPI(MPI_Finalize());
    flag = 0;
    MPI_Finalized(&flag);
    if (flag != 1) { fprintf(stderr, "FAIL: MPI_Finalized after finalize gave %d\n", flag); rc = 1; }
    flag = 0;
    MPI_Initialized(&flag);
    if (flag != 1) { fprintf(stderr, "FAIL: MPI_Initialized after finalize gave %d\n", flag); rc = 1; }
    return rc;
}
