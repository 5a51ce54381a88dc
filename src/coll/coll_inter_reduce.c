/* SPDX-License-Identifier: MIT */
/* Reduce on an intercommunicator: every process of the remote group sends its
 * sendbuf to the root (MPI_ROOT), which folds them in rank order straight
 * into recvbuf; the root's group-mates (MPI_PROC_NULL) take no part.  Linear:
 * the root's link carries every vector anyway, and a tree inside the sending
 * group would need messages on its local communicator, outside this schedule.
 * Also home of coll_inter_fold_remote(), which the other intercommunicator
 * reductions use at their leaders. */
#include "coll/coll_inter.h"

int coll_inter_fold_remote(coll_sched_t *s, void *dst, MPI_Aint count, cr_datatype_t *dt,
                           const cr_op_t *op)
{
    int nremote = s->comm->remote->size;
    /* Two buffers take turns, as in coll_inter_allreduce: acc holds ranks
     * 0..r-1 folded, the other receives rank r and then becomes acc op it.
     * The last rank is received into dst itself, so no final copy; with one
     * or two remote processes fewer temporaries are needed. */
    void *buf[2] = { NULL, NULL };
    if (nremote >= 2) buf[0] = coll_sched_tmp(s, count, dt);
    if (nremote >= 3) buf[1] = coll_sched_tmp(s, count, dt);
    if (s->err) return s->err;
    void *acc = nremote == 1 ? dst : buf[0];
    coll_sched_recv(s, acc, count, dt, 0);
    coll_sched_next_round(s);
    for (int r = 1; r < nremote; r++) {
        void *next = r == nremote - 1 ? dst : buf[r % 2];
        /* the reduce of the round before (added first, so run first) has
         * consumed the old acc, which this receive may now overwrite */
        coll_sched_recv(s, next, count, dt, r);
        coll_sched_next_round(s);
        coll_sched_reduce(s, op, acc, next, count, dt);   /* next = acc op next */
        acc = next;
    }
    return s->err;
}

int coll_inter_reduce(coll_sched_t *s, const coll_args_t *a)
{
    if (a->root == MPI_PROC_NULL || a->count == 0) return s->err;
    if (a->root == MPI_ROOT) return coll_inter_fold_remote(s, a->rbuf, a->count, a->dt, a->op);
    coll_sched_send(s, a->sbuf, a->count, a->dt, a->root);
    return s->err;
}
