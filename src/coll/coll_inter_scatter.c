/* SPDX-License-Identifier: MIT */
/* Scatter and Scatterv on an intercommunicator, linear: the root (MPI_ROOT)
 * sends block r of sendbuf (scount elements at r * scount, or scounts[r] at
 * sdispls[r]) to remote rank r, all in one round, and every process of the
 * remote group receives its block from the root straight into recvbuf.  The
 * root's group-mates (MPI_PROC_NULL) take no part.  Empty blocks are not sent
 * (both ends see the same type signature, so both skip them). */
#include "coll/coll_inter.h"

int coll_inter_scatter(coll_sched_t *s, const coll_args_t *a)
{
    if (a->root == MPI_PROC_NULL) return s->err;
    if (a->root != MPI_ROOT) {
        if (a->rdt && a->rcount * (MPI_Aint)a->rdt->size > 0)
            coll_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
        return s->err;
    }
    int nremote = s->comm->remote->size;
    for (int r = 0; r < nremote; r++) {
        MPI_Aint count = a->scounts.p ? cr_vec_get(a->scounts, r) : a->scount;
        MPI_Aint disp = a->sdispls.p ? cr_vec_get(a->sdispls, r) : (MPI_Aint)r * a->scount;
        if (count * (MPI_Aint)a->sdt->size > 0)
            coll_sched_send(s, coll_elem(a->sbuf, disp, a->sdt), count, a->sdt, r);
    }
    return s->err;
}
