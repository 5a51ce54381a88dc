/* SPDX-License-Identifier: MIT */
/* A fence followed by a passive-target or a post/start/complete/wait epoch
 * (MPICH's errors/rma/win_sync_lock_fence): the lock, lock_all or start ends
 * the fence's epoch, so after the unlock (or complete) an operation without a
 * new fence is MPI_ERR_RMA_SYNC on the window's handler; the next fence opens
 * an epoch again and the data of every epoch arrive. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int *buf;
    MPI_Win w;
    CHECK_MPI(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &buf,
                               &w));
    CHECK_MPI(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    for (int i = 0; i < 4; i++) buf[i] = -1;
    int right = (me + 1) % np, left = (me - 1 + np) % np, got = -1;
    MPI_Group wg, peer;
    MPI_Win_get_group(w, &wg);
    MPI_Group_incl(wg, 1, &right, &peer);   /* start: my target */
    MPI_Group from;
    MPI_Group_incl(wg, 1, &left, &from);    /* post: my origin */

    /* fence, then a lock epoch: the fence's epoch is over */
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w));
    CHECK_MPI(MPI_Put(&me, 1, MPI_INT, right, 0, 1, MPI_INT, w));
    CHECK_MPI(MPI_Win_unlock(right, w));
#ifndef MT_REFERENCE_MPICH   /* checked with Courier only: MPICH may miss some of these */
    CHECK_CLASS(MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, w), MPI_ERR_RMA_SYNC);
#endif
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_INT(buf[0], left);

    /* fence, then lock_all */
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Win_lock_all(0, w));
    CHECK_MPI(MPI_Put(&me, 1, MPI_INT, right, 1, 1, MPI_INT, w));
    CHECK_MPI(MPI_Win_unlock_all(w));
#ifndef MT_REFERENCE_MPICH
    CHECK_CLASS(MPI_Put(&me, 1, MPI_INT, right, 3, 1, MPI_INT, w), MPI_ERR_RMA_SYNC);
#endif
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_INT(buf[1], left);

    /* fence, then post/start/complete/wait */
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Win_post(from, 0, w));
    CHECK_MPI(MPI_Win_start(peer, 0, w));
    CHECK_MPI(MPI_Put(&me, 1, MPI_INT, right, 2, 1, MPI_INT, w));
    CHECK_MPI(MPI_Win_complete(w));
    CHECK_MPI(MPI_Win_wait(w));
    CHECK_INT(buf[2], left);
#ifndef MT_REFERENCE_MPICH
    CHECK_CLASS(MPI_Put(&me, 1, MPI_INT, right, 3, 1, MPI_INT, w), MPI_ERR_RMA_SYNC);
#endif

    /* a fence epoch works again, and no stray put landed */
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, w));
    CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
    CHECK_INT(got, me);
    CHECK_INT(buf[3], -1);

    MPI_Group_free(&peer);
    MPI_Group_free(&from);
    MPI_Group_free(&wg);
    CHECK_MPI(MPI_Win_free(&w));
    int rc = mt_finish("rma_epoch_mix");
    MPI_Finalize();
    return rc;
}
