/* SPDX-License-Identifier: MIT */
/* Allgather and Allgatherv on an intercommunicator, direct: every process
 * sends its block to every process of the remote group and receives block r
 * of recvbuf (rcount elements at r * rcount, or rcounts[r] at rdispls[r])
 * from remote rank r, all in one round, straight between user buffers.
 *
 * Why not through the leaders (gather to the leader, swap, broadcast): here
 * a leader cannot reach its own group (that needs local_comm, outside this
 * schedule), so the gathered vector would have to travel to every remote
 * process as a whole, which moves the same nlocal * nremote blocks as the
 * direct exchange, plus the gathering and the swap, in three rounds instead
 * of one.  Empty blocks are not sent (both ends skip them alike). */
#include "coll/coll_inter.h"

int coll_inter_allgather(coll_sched_t *s, const coll_args_t *a)
{
    cr_comm_t *c = s->comm;
    int nremote = c->remote->size;
    int send = a->sdt && a->scount * (MPI_Aint)a->sdt->size > 0;
    /* start at a different remote rank on each process, so that the first
     * messages of all senders do not converge on remote rank 0 */
    for (int k = 0; k < nremote; k++) {
        int r = (c->rank + k) % nremote;
        if (send) coll_sched_send(s, a->sbuf, a->scount, a->sdt, r);
        MPI_Aint count = a->rcounts.p ? cr_vec_get(a->rcounts, r) : a->rcount;
        MPI_Aint disp = a->rdispls.p ? cr_vec_get(a->rdispls, r) : (MPI_Aint)r * a->rcount;
        if (count * (MPI_Aint)a->rdt->size > 0)
            coll_sched_recv(s, coll_elem(a->rbuf, disp, a->rdt), count, a->rdt, r);
    }
    return s->err;
}
