/* SPDX-License-Identifier: MIT */
/* Alltoall by Bruck's algorithm, for small blocks: ceil(log2 size) steps
 * instead of size-1, at the price of moving each block up to log2 size times.
 *
 * A byte temporary T holds size blocks.  Rotation: T[i] = my block for rank
 * (rank + i).  In the step with distance d = 1, 2, 4, ..., every block T[i]
 * whose index has bit d set is packed into a staging buffer, sent to
 * rank + d, and replaced by the blocks received from rank - d (also those with
 * bit d).  Afterwards T[i] is the block that rank (rank - i) sent to me, so it
 * is unpacked to recvbuf block (rank - i). */
#include "coll/coll.h"

int coll_alltoall_bruck(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    MPI_Aint blk = a->rcount * (MPI_Aint)a->rdt->size;
    int inplace = a->sbuf == MPI_IN_PLACE;
    const void *sbuf = inplace ? a->rbuf : a->sbuf;
    MPI_Aint scount = inplace ? a->rcount : a->scount;
    cr_datatype_t *sdt = inplace ? a->rdt : a->sdt;
    if (blk == 0) return s->err;
    if (n == 1) {
        if (!inplace) coll_sched_copy(s, sbuf, scount, sdt, a->rbuf, a->rcount, a->rdt);
        return s->err;
    }
    int half = (n + 1) / 2;   /* most blocks with one bit set */
    char *t = coll_sched_tmp(s, (MPI_Aint)n * blk, byte);
    char *stage_s = coll_sched_tmp(s, (MPI_Aint)half * blk, byte);
    char *stage_r = coll_sched_tmp(s, (MPI_Aint)half * blk, byte);
    if (s->err) return s->err;
#define T(i) (t + (size_t)(i) * (size_t)blk)
    /* rotate: blocks me..n-1 to T[0..], 0..me-1 after them */
    coll_sched_copy(s, coll_elem(sbuf, (MPI_Aint)me * scount, sdt), (MPI_Aint)(n - me) * scount,
                    sdt, T(0), (MPI_Aint)(n - me) * blk, byte);
    if (me > 0)
        coll_sched_copy(s, sbuf, (MPI_Aint)me * scount, sdt, T(n - me), (MPI_Aint)me * blk, byte);
    int prev = 0;   /* the distance whose received blocks wait in stage_r */
    for (int d = 1; d < n; d <<= 1) {
        if (prev) {
            int k = 0;
            for (int i = 1; i < n; i++)
                if (i & prev) coll_sched_copy(s, stage_r + (size_t)k++ * (size_t)blk, blk, byte,
                                              T(i), blk, byte);
        }
        int k = 0;
        for (int i = 1; i < n; i++)
            if (i & d) coll_sched_copy(s, T(i), blk, byte, stage_s + (size_t)k++ * (size_t)blk,
                                       blk, byte);
        coll_sched_send(s, stage_s, (MPI_Aint)k * blk, byte, (me + d) % n);
        coll_sched_recv(s, stage_r, (MPI_Aint)k * blk, byte, coll_mod(me - d, n));
        coll_sched_next_round(s);
        prev = d;
    }
    int k = 0;
    for (int i = 1; i < n; i++)
        if (i & prev) coll_sched_copy(s, stage_r + (size_t)k++ * (size_t)blk, blk, byte, T(i),
                                      blk, byte);
    /* T[i] came from rank me - i */
    for (int i = 0; i < n; i++)
        coll_sched_copy(s, T(i), blk, byte,
                        coll_elem(a->rbuf, (MPI_Aint)coll_mod(me - i, n) * a->rcount, a->rdt),
                        a->rcount, a->rdt);
#undef T
    return s->err;
}
