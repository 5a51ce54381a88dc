/* SPDX-License-Identifier: MIT */
/* Alltoall, Alltoallv and Alltoallw by pairwise exchange: after copying its
 * own block, in step k = 1 .. size-1 each rank sends its block for rank + k
 * and receives the block from rank - k, one partner pair per step, straight
 * between the user buffers with the user datatypes.  size-1 steps: for large
 * blocks (and the only choice for the v and w forms).
 *
 * The three forms differ only in where block i is: uniform (count, datatype,
 * i * count elements), v (counts[i], datatype, displs[i] elements) or w
 * (counts[i], types[i], displs[i] bytes): coll_block() in coll.h finds it.
 * With MPI_IN_PLACE the receive buffer's blocks are first copied into a
 * temporary with the same layout, which then serves as the send buffer. */
#include <stdint.h>
#include "coll/coll.h"

static size_t bytes_of(MPI_Aint count, const cr_datatype_t *dt)
{
    return dt ? (size_t)count * (size_t)dt->size : 0;
}

/* A copy of the receive side's blocks in a temporary laid out like them. */
static int copy_in_place(coll_sched_t *s, int n, const coll_side_t *rs, coll_side_t *out)
{
    /* the address range [lo, hi) the blocks cover, relative to rs->buf */
    intptr_t lo = INTPTR_MAX, hi = INTPTR_MIN;
    for (int i = 0; i < n; i++) {
        char *p;
        MPI_Aint c;
        cr_datatype_t *dt;
        coll_block(rs, i, &p, &c, &dt);
        if (!bytes_of(c, dt)) continue;
        MPI_Aint ext = dt->extent < 0 ? -dt->extent : dt->extent;
        intptr_t first = (intptr_t)(p - rs->buf) + dt->true_lb + (dt->extent < 0 ? (c - 1) * dt->extent : 0);
        intptr_t end = first + (intptr_t)((c - 1) * ext + dt->true_extent);
        if (first < lo) lo = first;
        if (end > hi) hi = end;
    }
    *out = *rs;
    if (lo > hi) return s->err;   /* nothing to exchange */
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    char *raw = coll_sched_tmp(s, (MPI_Aint)(hi - lo), byte);
    if (!raw) return s->err;
    out->buf = raw - lo;
    for (int i = 0; i < n; i++) {
        char *p, *q;
        MPI_Aint c;
        cr_datatype_t *dt;
        coll_block(rs, i, &p, &c, &dt);
        coll_block(out, i, &q, &c, &dt);
        if (bytes_of(c, dt)) coll_sched_copy(s, p, c, dt, q, c, dt);
    }
    coll_sched_next_round(s);
    return s->err;
}

int coll_alltoall_pairwise(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    coll_side_t ss = coll_send_side(a);
    coll_side_t rs = coll_recv_side(a);
    if (a->sbuf == MPI_IN_PLACE) {
        if (copy_in_place(s, n, &rs, &ss)) return s->err;
    }
    char *sp, *rp;
    MPI_Aint sc, rc;
    cr_datatype_t *sdt, *rdt;
    if (a->sbuf != MPI_IN_PLACE) {
        coll_block(&ss, me, &sp, &sc, &sdt);
        coll_block(&rs, me, &rp, &rc, &rdt);
        if (bytes_of(sc, sdt)) coll_sched_copy(s, sp, sc, sdt, rp, rc, rdt);
    }
    for (int k = 1; k < n; k++) {
        int dst = (me + k) % n, src = coll_mod(me - k, n);
        coll_block(&ss, dst, &sp, &sc, &sdt);
        coll_block(&rs, src, &rp, &rc, &rdt);
        if (bytes_of(sc, sdt)) coll_sched_send(s, sp, sc, sdt, dst);
        if (bytes_of(rc, rdt)) coll_sched_recv(s, rp, rc, rdt, src);
        coll_sched_next_round(s);
    }
    return s->err;
}
