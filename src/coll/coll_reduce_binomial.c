/* SPDX-License-Identifier: MIT */
/* Reduce up a binomial tree.  With v = (rank - vroot) mod size, rank v
 * receives, for m = 1, 2, 4, ... while v has bit m clear, the partial result
 * of ranks [v+m, v+2m) from v+m, combines it after its own [v, v+m), and at
 * its first set bit m sends its partial result to v-m.
 *
 * Operands are always combined as (lower block) op (higher block), so with
 * vroot = 0 the result is in rank order and correct for non-commutative ops;
 * it is then sent from rank 0 to the root.  For commutative ops the tree is
 * rooted at the root itself (vroot = root).
 *
 * Buffers: the partial result (acc) starts as the send buffer; each received
 * block R becomes the new acc (R = acc op R), so two buffers alternate.  At
 * the root they are arranged so the last result lands in recvbuf. */
#include "coll/coll.h"

int coll_reduce_binomial(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank, root = a->root;
    int vroot = a->op->commute ? root : 0;
    int v = (me - vroot + n) % n;
    MPI_Aint count = a->count;
    cr_datatype_t *dt = a->dt;
    int inplace = a->sbuf == MPI_IN_PLACE;
    const void *acc = (me == root && inplace) ? a->rbuf : a->sbuf;

    /* children: m = 1, 2, ... below lowbit(v) (all m < n for v = 0) */
    int nkids = 0, mtop = v ? coll_lowbit(v) : n;
    for (int m = 1; m < mtop && v + m < n; m <<= 1) nkids++;

    void *buf[2] = { NULL, NULL };   /* buf[j % 2] receives the j-th child's block */
    int final_here = me == root && vroot == root;
    if (nkids) {
        if (final_here && !inplace) {
            /* R_nkids must be rbuf */
            buf[nkids % 2] = a->rbuf;
            buf[(nkids + 1) % 2] = nkids > 1 ? coll_sched_tmp(s, count, dt) : NULL;
        } else if (final_here) {
            /* acc starts in rbuf: the first block goes elsewhere */
            buf[1] = coll_sched_tmp(s, count, dt);
            buf[0] = a->rbuf;
        } else {
            buf[1] = coll_sched_tmp(s, count, dt);
            buf[0] = nkids > 1 ? coll_sched_tmp(s, count, dt) : NULL;
        }
        if (s->err) return s->err;
    }
    int j = 0;
    for (int m = 1; m < n; m <<= 1) {
        if (v & m) {
            coll_sched_send(s, acc, count, dt, (v - m + vroot) % n);
            coll_sched_next_round(s);
            break;
        }
        if (v + m >= n) continue;
        void *r = buf[++j % 2];
        coll_sched_recv(s, r, count, dt, (v + m + vroot) % n);
        coll_sched_next_round(s);
        coll_sched_reduce(s, a->op, acc, r, count, dt);   /* r = acc op r */
        acc = r;
    }
    if (final_here) {
        if (acc != a->rbuf) coll_sched_copy(s, acc, count, dt, a->rbuf, count, dt);
    } else if (vroot != root) {
        if (me == vroot) coll_sched_send(s, acc, count, dt, root);
        if (me == root) coll_sched_recv(s, a->rbuf, count, dt, vroot);
    }
    return s->err;
}
