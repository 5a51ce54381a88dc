/* SPDX-License-Identifier: MIT */
/* Barrier by dissemination: in round k every rank sends an empty message to
 * rank+2^k and receives one from rank-2^k (mod size); after ceil(log2 size)
 * rounds every rank has heard, directly or not, from every other. */
#include "coll/coll.h"

int coll_barrier_dissemination(coll_sched_t *s, const coll_args_t *a)
{
    static char dummy;
    int n = s->comm->size, me = s->comm->rank;
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    for (int d = 1; d < n; d <<= 1) {
        coll_sched_send(s, &dummy, 0, byte, (me + d) % n);
        coll_sched_recv(s, &dummy, 0, byte, (me - d + n) % n);
        coll_sched_next_round(s);
    }
    return s->err;
}
