/* SPDX-License-Identifier: MIT */
/* Reduce_scatter and Reduce_scatter_block on an intercommunicator.  Group A
 * must end with R(B), the reduction over group B's vectors in rank order,
 * scattered over A by A's counts, and B with R(A) scattered over B.  The
 * vector has the same length in both groups: the sum of this group's rcounts,
 * or rcount * local size.  As in coll_inter_allreduce.c:
 *   1. every process sends its whole vector to the remote leader, who folds
 *      them in rank order (so the leader of B computes R(A));
 *   2. the leaders swap what they computed (A's leader now holds R(A));
 *   3. each leader scatters that over the remote group (A's leader R(A) over
 *      B) and every process receives its part from the remote leader.
 * In step 3 a leader knows the remote group's blocks only for the block form
 * (length / remote size each); the remote counts of the v form are not known
 * on this side, so there the leader sends the whole vector to every remote
 * process, which keeps its own block (found from its group's rcounts).
 * Each block is computed once, on the leader of the other group. */
#include "coll/coll_inter.h"

int coll_inter_reduce_scatter(coll_sched_t *s, const coll_args_t *a)
{
    cr_comm_t *c = s->comm;
    int nlocal = c->size, nremote = c->remote->size, me = c->rank;
    cr_datatype_t *dt = a->dt;
    /* the vector's length, and this process's block in it */
    MPI_Aint total = 0, mine_off = 0, mine;
    if (a->rcounts.p) {
        for (int i = 0; i < nlocal; i++) {
            if (i < me) mine_off += cr_vec_get(a->rcounts, i);
            total += cr_vec_get(a->rcounts, i);
        }
        mine = cr_vec_get(a->rcounts, me);
    } else {
        total = a->rcount * nlocal;
        mine_off = a->rcount * me;
        mine = a->rcount;
    }
    if (total == 0) return s->err;

    coll_sched_send(s, a->sbuf, total, dt, 0);
    void *whole = NULL;   /* v form: where the whole result vector arrives */
    if (me == 0) {
        void *theirs = coll_sched_tmp(s, total, dt);   /* R(remote group), for my group */
        void *ours = coll_sched_tmp(s, total, dt);     /* R(my group), for the remote group */
        if (s->err) return s->err;
        int e = coll_inter_fold_remote(s, theirs, total, dt, a->op);
        if (e) return e;
        coll_sched_send(s, theirs, total, dt, 0);
        coll_sched_recv(s, ours, total, dt, 0);
        coll_sched_next_round(s);
        if (a->rcounts.p) {
            for (int r = 0; r < nremote; r++) coll_sched_send(s, ours, total, dt, r);
        } else {
            MPI_Aint per = total / nremote;   /* the remote group's rcount */
            if (per > 0)
                for (int r = 0; r < nremote; r++)
                    coll_sched_send(s, coll_elem(ours, (MPI_Aint)r * per, dt), per, dt, r);
        }
        /* the swap's send of `theirs` completed with the round before: reuse it */
        whole = theirs;
    } else {
        coll_sched_next_round(s);
        if (a->rcounts.p) whole = coll_sched_tmp(s, total, dt);
        if (s->err) return s->err;
    }
    if (!a->rcounts.p) {
        if (mine > 0) coll_sched_recv(s, a->rbuf, mine, dt, 0);
        return s->err;
    }
    coll_sched_recv(s, whole, total, dt, 0);
    coll_sched_next_round(s);
    if (mine > 0) coll_sched_copy(s, coll_elem(whole, mine_off, dt), mine, dt, a->rbuf, mine, dt);
    return s->err;
}
