/* SPDX-License-Identifier: MIT */
/* Exscan by recursive doubling, as coll_scan_recdbl.c with two values: acc,
 * the window [p-d+1, p] including my own input (what I send), and recvbuf,
 * the window [p-d+1, p-1] without it (the result).  A received window goes in
 * front of both.  Rank 0's recvbuf is left alone, as the standard says its
 * value is undefined. */
#include "coll/coll.h"

int coll_exscan_recdbl(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    MPI_Aint count = a->count;
    cr_datatype_t *dt = a->dt;
    if (count == 0 || n == 1) return s->err;
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    void *acc = coll_sched_tmp(s, count, dt);
    void *tmp = coll_sched_tmp(s, count, dt);
    if (s->err) return s->err;
    coll_sched_copy(s, in, count, dt, acc, count, dt);
    coll_sched_next_round(s);
    int got = 0, have_result = 0;
    for (int d = 1; d < n; d <<= 1) {
        if (got) {
            if (have_result) coll_sched_reduce(s, a->op, tmp, a->rbuf, count, dt);
            else coll_sched_copy(s, tmp, count, dt, a->rbuf, count, dt);
            have_result = 1;
            coll_sched_reduce(s, a->op, tmp, acc, count, dt);
        }
        if (me + d < n) coll_sched_send(s, acc, count, dt, me + d);
        got = me - d >= 0;
        if (got) coll_sched_recv(s, tmp, count, dt, me - d);
        coll_sched_next_round(s);
    }
    if (got) {
        if (have_result) coll_sched_reduce(s, a->op, tmp, a->rbuf, count, dt);
        else coll_sched_copy(s, tmp, count, dt, a->rbuf, count, dt);
    }
    return s->err;
}
