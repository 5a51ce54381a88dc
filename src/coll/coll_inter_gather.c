/* SPDX-License-Identifier: MIT */
/* Gather and Gatherv on an intercommunicator, linear: every process of the
 * remote group sends its block to the root (MPI_ROOT), which receives them all
 * in one round straight into recvbuf, block r (rcount elements at r * rcount,
 * or rcounts[r] at rdispls[r]) from remote rank r.  The root's group-mates
 * (MPI_PROC_NULL) take no part.  No copies and no temporaries; a tree in the
 * sending group would need its local communicator, outside this schedule.
 * Empty blocks are not sent: the type signatures of both ends agree, so the
 * sender skips exactly the messages the root skips. */
#include "coll/coll_inter.h"

int coll_inter_gather(coll_sched_t *s, const coll_args_t *a)
{
    if (a->root == MPI_PROC_NULL) return s->err;
    if (a->root != MPI_ROOT) {
        if (a->sdt && a->scount * (MPI_Aint)a->sdt->size > 0)
            coll_sched_send(s, a->sbuf, a->scount, a->sdt, a->root);
        return s->err;
    }
    int nremote = s->comm->remote->size;
    for (int r = 0; r < nremote; r++) {
        MPI_Aint count = a->rcounts.p ? cr_vec_get(a->rcounts, r) : a->rcount;
        MPI_Aint disp = a->rdispls.p ? cr_vec_get(a->rdispls, r) : (MPI_Aint)r * a->rcount;
        if (count * (MPI_Aint)a->rdt->size > 0)
            coll_sched_recv(s, coll_elem(a->rbuf, disp, a->rdt), count, a->rdt, r);
    }
    return s->err;
}
