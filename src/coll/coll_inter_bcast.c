/* SPDX-License-Identifier: MIT */
/* Bcast on an intercommunicator, linear: the root (MPI_ROOT) sends the buffer
 * to every process of the remote group, each of which receives it from the
 * root; the root's group-mates (MPI_PROC_NULL) take no part.  One message per
 * receiver and no local steps; a tree inside the receiving group would need
 * messages on its local communicator, outside this schedule. */
#include "coll/coll_inter.h"

int coll_inter_bcast(coll_sched_t *s, const coll_args_t *a)
{
    cr_comm_t *c = s->comm;
    if (a->root == MPI_PROC_NULL || a->count == 0) return s->err;
    if (a->root == MPI_ROOT) {
        for (int r = 0; r < c->remote->size; r++) coll_sched_send(s, a->rbuf, a->count, a->dt, r);
    } else {
        coll_sched_recv(s, a->rbuf, a->count, a->dt, a->root);
    }
    return s->err;
}
