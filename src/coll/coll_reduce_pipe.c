/* SPDX-License-Identifier: MIT */
/* Reduce down a binomial tree in segments, through shared buffers
 * (coll_shm.h), for commutative ops on contiguous datatypes: what runs a
 * large MPI_Reduce when the node's ranks outnumber its cores.
 *
 * The tree is the binomial one of coll_reduce_binomial.c rooted at the root
 * (v = (rank - root) mod p; v's children are v + 1, v + 2, v + 4, ... below
 * its lowest set bit, its parent v - lowbit(v)), so the result has the same
 * association, and the same bits, as that algorithm's.  Each rank's partial
 * result goes in a buffer of its own: its pipe buffer for the call
 * (cshm_pipe: where ranks outnumber cores the area has CSHM_PIPE_NBUF of
 * COURIER_COLL_REDUCE_PIPE_BUF_BYTES per rank) when the vector fits one,
 * else its data slot for the call.  The vector is cut into segments of
 * COURIER_COLL_REDUCE_PIPE_SEG_BYTES (more when it would need over
 * CSHM_PIPE_MAX_SEGS of them), and the buffer holds nbuf of them at once
 * (buffer bytes / segment bytes), segment s in place s % nbuf.  For each
 * segment in turn a rank waits until each child posted it (phase s + 1 of
 * the call), folds its own operand's segment with the children's straight
 * from their buffers into its own (the root: into recvbuf), and posts phase
 * s + 1; a leaf only copies its segment in.  Before writing segment s a rank
 * waits until its parent posted segment s - nbuf, which it has then read
 * (never, when the whole vector fits).  The last segment's post is FIN.
 *
 * So a rank that has posted its part returns at once, and runs as many calls
 * ahead of its parent as the buffers' ring allows (CSHM_PIPE_NBUF, or
 * CSHM_NBUF slots); the fold is spread over the tree's inner ranks, where the
 * cma algorithm's folders read every rank's operand by a system call each
 * and all ranks meet twice, and the shm algorithm's root folds every
 * operand alone (docs/collectives.md, "Pipelined reduce").  No rank waits
 * for more than its children and its parent, and a rank scheduled after its
 * children finds their parts there without waiting.
 * alpha-beta, per segment of m bytes: leaves m beta_copy; an inner rank of
 * k children k alpha_line + k m (beta_x + gamma); pipelined, the root ends
 * about (log2 p + n / m - 1) segment steps after the start. */
#include "coll/coll_shm.h"
#include "util/settings.h"

/* Phases 1 .. segments - 1 and FIN: the segments of a call must fit below
 * FIN, and phase 1 is what tells a rank's peers that it finished the call
 * before (coll_shm.c, finished). */
enum { CSHM_PIPE_MAX_SEGS = CSHM_FIN - 1 };

/* Elements per segment for count elements of esz bytes in buffers of cap
 * bytes, or 0 when the vector does not fit CSHM_PIPE_MAX_SEGS segments of
 * such a buffer. */
static MPI_Aint pipe_per(MPI_Aint count, size_t esz, size_t cap)
{
    size_t seg = (size_t)ut_settings.coll_reduce_pipe_seg_bytes;
    if (esz == 0 || esz > cap) return 0;
    if (seg > cap) seg = cap;
    MPI_Aint per = (MPI_Aint)(seg / esz);
    if (per < 1) per = 1;
    MPI_Aint least = (count + CSHM_PIPE_MAX_SEGS - 1) / CSHM_PIPE_MAX_SEGS;
    if (per < least) per = least;
    return (size_t)per * esz <= cap ? per : 0;
}

int coll_reduce_pipe_fits(const cr_comm_t *c, const coll_args_t *a)
{
    size_t esz = (size_t)a->dt->size;
    if (!a->dt->contig || !esz) return 0;
    return (size_t)a->count * esz <= coll_shm_pipe_bytes(c) ||
           pipe_per(a->count, esz, coll_shm_slot_cap()) > 0;
}

int coll_reduce_pipe(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_REDUCE, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size, root = a->root;
    const cr_datatype_t *dt = a->dt;
    const cr_op_t *op = a->op;
    size_t esz = (size_t)dt->size;
    MPI_Aint count = a->count;
    /* the whole vector in a pipe buffer where it fits, else the call's slots */
    int whole = sh->pipe && (size_t)count * esz <= sh->pipe_bytes;
    size_t cap = whole ? sh->pipe_bytes : coll_shm_slot_cap();
    MPI_Aint per = pipe_per(count, esz, cap);
    if (whole) cshm_claim_depth(sh, n, CSHM_PIPE_NBUF);
    else cshm_claim(sh, n);
    if (count <= 0 || per <= 0) {
        /* nothing to do, or (settings that differ from rank 0's) the vector
         * fits neither the area's pipe buffers nor its slots: every rank
         * finds the same, ends this call on the area and takes the schedule */
        cshm_post(sh, n, CSHM_FIN);
        return count <= 0 ? MPI_SUCCESS : coll_fallback(COLL_REDUCE, c, a);
    }
    int nseg = (int)((count + per - 1) / per);
    int nbuf = (int)(cap / ((size_t)per * esz));
    int v = me - root < 0 ? me - root + p : me - root;
    int top = v ? coll_lowbit(v) : p;       /* children: v + m for m < top */
    int parent = v ? cshm_peer(me, p - coll_lowbit(v), p) : -1;
    int kids[sizeof(int) * 8], nkids = 0;
    for (int m = 1; m < top && v + m < p; m <<= 1) kids[nkids++] = cshm_peer(me, m, p);
    /* operands as buffer pointers of dt: packed byte b of the vector is at
     * base + true_lb + b */
    MPI_Aint lb = dt->true_lb;
    const char *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    char *slot = (whole ? cshm_pipe(sh, me, n) : cshm_slot(sh, me, n)) - lb;
    size_t segb = (size_t)per * esz;
    for (int s = 0; s < nseg; s++) {
        MPI_Aint x = (MPI_Aint)s * per, k = count - x < per ? count - x : per;
        char *dst;
        if (parent < 0) {
            dst = coll_elem(a->rbuf, x, dt);
        } else {
            /* the parent has read what this buffer held (segment s - nbuf) */
            if (s >= nbuf) cshm_wait(sh, parent, n, s - nbuf + 1);
            dst = slot + (size_t)(s % nbuf) * segb;
        }
        const char *own = coll_elem(mine, x, dt);
        int first = 1;
        for (int i = 0; i < nkids; i++) {
            cshm_wait(sh, kids[i], n, s + 1);
            const char *kid = (whole ? cshm_pipe(sh, kids[i], n) : cshm_slot(sh, kids[i], n)) - lb +
                              (size_t)(s % nbuf) * segb;
            if (first && own != dst && cr_op_apply3(op, own, kid, dst, k, dt)) {
                first = 0;
                continue;
            }
            if (first && own != dst) coll_copy(own, dst, k, dt);
            first = 0;
            /* dst = kid op dst: for a commutative op the bits of dst op kid */
            cr_op_apply(op, kid, dst, k, dt);
        }
        if (first && own != dst) coll_copy(own, dst, k, dt);
        cshm_post(sh, n, s == nseg - 1 ? CSHM_FIN : s + 1);
    }
    return MPI_SUCCESS;
}

/* Allreduce as this reduce to rank 0 and a broadcast from rank 0 on the
 * area (shm where the vector fits a slot, else through rank 0's pipe buffer
 * where it fits one, else cma), two calls on the area: the fold spread over the
 * tree's inner ranks, and each rank waits for its children, its parent and
 * once for the broadcast.  A rank's operand is read before it posts its
 * last segment, so an in-place operand in recvbuf is not overwritten by the
 * broadcast before it is used. */
int coll_allreduce_pipe(cr_comm_t *c, const coll_args_t *a)
{
    coll_args_t r = *a;
    r.root = 0;
    if (c->rank != 0 && a->sbuf == MPI_IN_PLACE) r.sbuf = a->rbuf;
    int e = coll_reduce_pipe(c, &r);
    coll_args_t b = { .rbuf = a->rbuf, .count = a->count, .dt = a->dt, .root = 0,
                      .bytes = a->bytes };
    int e2 = coll_bcast_shm_fits(c, &b) ? coll_bcast_shm(c, &b)
             : coll_bcast_pipe_fits(c, &b) ? coll_bcast_pipe(c, &b)
                                          : coll_bcast_cma(c, &b);
    return e ? e : e2;
}
