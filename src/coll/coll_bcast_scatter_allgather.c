/* SPDX-License-Identifier: MIT */
/* Broadcast of large messages: the root scatters the data in `size` chunks
 * down a binomial tree (relative rank v gets chunk v, and its subtree's chunks
 * to pass on), then a ring allgather gives every rank every chunk: in step k,
 * rank v sends chunk (v-k) mod size to v+1 and receives chunk (v-k-1) mod size
 * from v-1.  Each byte crosses about two links instead of log2(size).
 * The data are moved as bytes: in place for contiguous datatypes, else
 * through a packed temporary. */
#include "coll/coll.h"

typedef struct {
    size_t chunk, total;
} split_t;

/* Byte range of chunks [c0, c1) */
static void range(const split_t *sp, long c0, long c1, size_t *off, size_t *len)
{
    size_t b0 = (size_t)c0 * sp->chunk, b1 = (size_t)c1 * sp->chunk;
    if (b0 > sp->total) b0 = sp->total;
    if (b1 > sp->total) b1 = sp->total;
    *off = b0;
    *len = b1 - b0;
}

int coll_bcast_scatter_allgather(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank, root = a->root;
    int v = (me - root + n) % n;
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE), *dt = a->dt;
    split_t sp = { .total = coll_bytes(a) };
    sp.chunk = (sp.total + (size_t)n - 1) / (size_t)n;
    if (!sp.total) return s->err;
    char *base;
    if (dt->contig) {
        base = (char *)a->rbuf + dt->true_lb;
    } else {
        base = coll_sched_tmp(s, (MPI_Aint)sp.total, byte);
        if (!base) return s->err;
        if (v == 0)   /* pack */
            coll_sched_copy(s, a->rbuf, a->count, dt, base, (MPI_Aint)sp.total, byte);
    }
    size_t off, len;
    /* scatter */
    int top;
    if (v == 0) {
        top = 1;
        while (top < n) top <<= 1;
    } else {
        int low = coll_lowbit(v);
        range(&sp, v, v + low < n ? v + low : n, &off, &len);
        if (len) coll_sched_recv(s, base + off, (MPI_Aint)len, byte, (v - low + root) % n);
        coll_sched_next_round(s);
        top = low;
    }
    for (int m = top >> 1; m >= 1; m >>= 1) {
        int c = v + m;
        if (c >= n) continue;
        range(&sp, c, c + m < n ? c + m : n, &off, &len);
        if (len) coll_sched_send(s, base + off, (MPI_Aint)len, byte, (c + root) % n);
    }
    coll_sched_next_round(s);
    /* ring allgather */
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    for (int k = 0; k < n - 1; k++) {
        int cs = ((v - k) % n + n) % n, cr = ((v - k - 1) % n + n) % n;
        range(&sp, cs, cs + 1, &off, &len);
        if (len) coll_sched_send(s, base + off, (MPI_Aint)len, byte, right);
        range(&sp, cr, cr + 1, &off, &len);
        if (len) coll_sched_recv(s, base + off, (MPI_Aint)len, byte, left);
        coll_sched_next_round(s);
    }
    if (!dt->contig && v != 0)   /* unpack */
        coll_sched_copy(s, base, (MPI_Aint)sp.total, byte, a->rbuf, a->count, dt);
    return s->err;
}
