/* SPDX-License-Identifier: MIT */
/* Allreduce on an intercommunicator, with messages between the groups only.
 * Group A must end with R(B), the reduction over group B's sendbufs in rank
 * order, and B with R(A):
 *   1. every process sends its sendbuf to the remote leader, who folds the
 *      values in rank order as they come (so the leader of B computes R(A));
 *   2. the leaders swap what they computed (A's leader now holds R(A) too);
 *   3. each leader sends that to every process of the remote group (A's
 *      leader sends R(A) to all of B), and every process receives its result
 *      from the remote leader.
 * The fold is acc = acc op next in rank order, right for non-commutative ops. */
#include "coll/coll_inter.h"

int coll_inter_allreduce(coll_sched_t *s, const coll_args_t *a)
{
    cr_comm_t *c = s->comm;
    int nremote = c->remote->size;
    MPI_Aint count = a->count;
    cr_datatype_t *dt = a->dt;
    if (count == 0) return s->err;
    coll_sched_send(s, a->sbuf, count, dt, 0);
    if (c->rank == 0) {
        /* two buffers take turns: acc holds ranks 0..r-1 folded, the other
         * receives rank r, then becomes acc = acc op it */
        void *buf[2] = { coll_sched_tmp(s, count, dt), coll_sched_tmp(s, count, dt) };
        void *other = coll_sched_tmp(s, count, dt);   /* the remote leader's result */
        if (s->err) return s->err;
        coll_sched_recv(s, buf[0], count, dt, 0);
        coll_sched_next_round(s);
        void *acc = buf[0];
        for (int r = 1; r < nremote; r++) {
            void *next = buf[r % 2];
            coll_sched_recv(s, next, count, dt, r);
            coll_sched_next_round(s);
            coll_sched_reduce(s, a->op, acc, next, count, dt);   /* next = acc op next */
            acc = next;
        }
        coll_sched_send(s, acc, count, dt, 0);
        coll_sched_recv(s, other, count, dt, 0);
        coll_sched_next_round(s);
        for (int r = 0; r < nremote; r++) coll_sched_send(s, other, count, dt, r);
    } else {
        coll_sched_next_round(s);
    }
    coll_sched_recv(s, a->rbuf, count, dt, 0);
    return s->err;
}
