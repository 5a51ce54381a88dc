/* SPDX-License-Identifier: MIT */
/* Alltoall, Alltoallv and Alltoallw on an intercommunicator, direct: each
 * process sends block r of sendbuf to remote rank r and receives block r of
 * recvbuf from it, every exchange started in one round, straight between the
 * user buffers with the user datatypes.  The two groups are disjoint, so
 * there is no own block to copy and no MPI_IN_PLACE.
 *
 * The three forms differ only in where block r is: uniform (count, datatype,
 * r * count elements), v (counts[r], datatype, displs[r] elements) or w
 * (counts[r], types[r], displs[r] bytes): coll_block() in coll.h finds it. */
#include "coll/coll_inter.h"

static int nonempty(MPI_Aint count, const cr_datatype_t *dt)
{
    return dt && count * (MPI_Aint)dt->size > 0;
}

int coll_inter_alltoall(coll_sched_t *s, const coll_args_t *a)
{
    cr_comm_t *c = s->comm;
    int nremote = c->remote->size;
    coll_side_t ss = coll_send_side(a);
    coll_side_t rs = coll_recv_side(a);
    /* start at a different remote rank on each process (see coll_inter_allgather.c) */
    for (int k = 0; k < nremote; k++) {
        int r = (c->rank + k) % nremote;
        char *p;
        MPI_Aint count;
        cr_datatype_t *dt;
        coll_block(&ss, r, &p, &count, &dt);
        if (nonempty(count, dt)) coll_sched_send(s, p, count, dt, r);
        coll_block(&rs, r, &p, &count, &dt);
        if (nonempty(count, dt)) coll_sched_recv(s, p, count, dt, r);
    }
    return s->err;
}
