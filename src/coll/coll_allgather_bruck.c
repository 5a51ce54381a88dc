/* SPDX-License-Identifier: MIT */
/* Allgather by Bruck's algorithm, for any size: a byte temporary holds, at
 * position i, the block of rank (rank + i) mod size.  It starts with the own
 * block at 0; in the step with distance d = 1, 2, 4, ... each rank sends its
 * first min(d, size - d) blocks to rank - d and receives as many from
 * rank + d into positions d...  After ceil(log2 size) steps every position is
 * filled and the blocks are unpacked, rotated, into recvbuf.  Few steps and
 * one extra copy: for small blocks. */
#include "coll/coll.h"

int coll_allgather_bruck(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    MPI_Aint blk = a->rcount * (MPI_Aint)a->rdt->size;
    if (a->sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, a->sbuf, a->scount, a->sdt,
                        coll_elem(a->rbuf, (MPI_Aint)me * a->rcount, a->rdt), a->rcount, a->rdt);
    if (blk == 0 || n == 1) return s->err;
    char *tmp = coll_sched_tmp(s, (MPI_Aint)n * blk, byte);
    if (!tmp) return s->err;
    coll_sched_copy(s, coll_elem(a->rbuf, (MPI_Aint)me * a->rcount, a->rdt), a->rcount, a->rdt,
                    tmp, blk, byte);
    for (int d = 1; d < n; d <<= 1) {
        int cnt = d < n - d ? d : n - d;
        coll_sched_send(s, tmp, (MPI_Aint)cnt * blk, byte, coll_mod(me - d, n));
        coll_sched_recv(s, tmp + (size_t)d * (size_t)blk, (MPI_Aint)cnt * blk, byte, (me + d) % n);
        coll_sched_next_round(s);
    }
    /* position i holds rank (me + i) mod n: i < n-me go to me.., the rest to 0.. */
    if (n - me - 1 > 0)
        coll_sched_copy(s, tmp + blk, (MPI_Aint)(n - me - 1) * blk, byte,
                        coll_elem(a->rbuf, (MPI_Aint)(me + 1) * a->rcount, a->rdt),
                        (MPI_Aint)(n - me - 1) * a->rcount, a->rdt);
    if (me > 0)
        coll_sched_copy(s, tmp + (size_t)(n - me) * (size_t)blk, (MPI_Aint)me * blk, byte,
                        a->rbuf, (MPI_Aint)me * a->rcount, a->rdt);
    return s->err;
}
