/* SPDX-License-Identifier: MIT */
/* Alltoall, Alltoallv and Alltoallw on an intercommunicator, direct: each
 * process sends block r of sendbuf to remote rank r and receives block r of
 * recvbuf from it, every exchange started in one round, straight between the
 * user buffers with the user datatypes.  The two groups are disjoint, so
 * there is no own block to copy and no MPI_IN_PLACE.
 *
 * The three forms differ only in where block r is: uniform (count, datatype,
 * r * count elements), v (counts[r], datatype, displs[r] elements) or w
 * (counts[r], types[r], displs[r] bytes), as in coll_alltoall_pairwise.c. */
#include "coll/coll_inter.h"

typedef struct {
    const char *buf;
    MPI_Aint count;          /* uniform form */
    cr_datatype_t *dt;
    const int *counts, *displs;
    cr_datatype_t *const *dts;
} side_t;

/* Block r of one side: address, count and datatype. */
static void block_of(const side_t *sd, int r, char **p, MPI_Aint *count, cr_datatype_t **dt)
{
    if (sd->dts) {   /* w: displacements in bytes */
        *dt = sd->dts[r];
        *count = sd->counts[r];
        *p = (char *)sd->buf + sd->displs[r];
    } else if (sd->counts) {
        *dt = sd->dt;
        *count = sd->counts[r];
        *p = coll_elem(sd->buf, sd->displs[r], sd->dt);
    } else {
        *dt = sd->dt;
        *count = sd->count;
        *p = coll_elem(sd->buf, (MPI_Aint)r * sd->count, sd->dt);
    }
}

static int nonempty(MPI_Aint count, const cr_datatype_t *dt)
{
    return dt && count * (MPI_Aint)dt->size > 0;
}

int coll_inter_alltoall(coll_sched_t *s, const coll_args_t *a)
{
    cr_comm_t *c = s->comm;
    int nremote = c->remote->size;
    side_t ss = { a->sbuf, a->scount, a->sdt, a->scounts, a->sdispls, a->sdts };
    side_t rs = { a->rbuf, a->rcount, a->rdt, a->rcounts, a->rdispls, a->rdts };
    /* start at a different remote rank on each process (see coll_inter_allgather.c) */
    for (int k = 0; k < nremote; k++) {
        int r = (c->rank + k) % nremote;
        char *p;
        MPI_Aint count;
        cr_datatype_t *dt;
        block_of(&ss, r, &p, &count, &dt);
        if (nonempty(count, dt)) coll_sched_send(s, p, count, dt, r);
        block_of(&rs, r, &p, &count, &dt);
        if (nonempty(count, dt)) coll_sched_recv(s, p, count, dt, r);
    }
    return s->err;
}
