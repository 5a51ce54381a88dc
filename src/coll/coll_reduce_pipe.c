/* SPDX-License-Identifier: MIT */
/* Reduce down a binomial tree in segments, through the ranks' data slots
 * (coll_shm.h), for commutative ops on contiguous datatypes: what runs a
 * large MPI_Reduce when the node's ranks outnumber its cores.
 *
 * The tree is the binomial one of coll_reduce_binomial.c rooted at the root
 * (v = (rank - root) mod p; v's children are v + 1, v + 2, v + 4, ... below
 * its lowest set bit, its parent v - lowbit(v)), so the result has the same
 * association, and the same bits, as that algorithm's.  The vector is cut
 * into segments of COURIER_COLL_REDUCE_PIPE_SEG_BYTES (more when the vector
 * would need over CSHM_PIPE_MAX_SEGS of them), and a rank's slot holds nbuf
 * of them at once (slot bytes / segment bytes), segment s in buffer s % nbuf.
 * For each segment in turn a rank waits until each child posted it (phase
 * s + 1 of the call), folds its own operand's segment with the children's
 * straight from their slots into its own slot (the root: into recvbuf), and
 * posts phase s + 1; a leaf only copies its segment in.  Before writing
 * segment s a rank waits until its parent posted segment s - nbuf, which it
 * has then read.  The last segment's post is FIN.
 *
 * So each rank runs as far ahead of its parent as its slot allows and leaves
 * (half the ranks) never wait for anything in a call of at most nbuf
 * segments; the fold is spread over the tree's inner ranks, where the cma
 * algorithm's folders read every rank's operand by a system call each and
 * all ranks meet twice, and the shm algorithm's root folds every operand
 * alone (docs/collectives.md, "Pipelined reduce").  No rank waits for more
 * than its children and its parent.
 * alpha-beta, per segment of m bytes: leaves m beta_copy; an inner rank of
 * k children k alpha_line + k m (beta_x + gamma); pipelined, the root ends
 * about (log2 p + n / m - 1) segment steps after the start. */
#include "coll/coll_shm.h"
#include "util/settings.h"

/* Phases 1 .. segments - 1 and FIN: the segments of a call must fit below
 * FIN, and phase 1 is what tells a rank's peers that it finished the call
 * before (coll_shm.c, finished). */
enum { CSHM_PIPE_MAX_SEGS = CSHM_FIN - 1 };

/* Elements per segment for count elements of esz bytes, or 0 when the vector
 * does not fit CSHM_PIPE_MAX_SEGS segments of a slot. */
static MPI_Aint pipe_per(MPI_Aint count, size_t esz)
{
    size_t cap = coll_shm_slot_cap(), seg = (size_t)ut_settings.coll_reduce_pipe_seg_bytes;
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
    (void)c;
    return a->dt->contig && pipe_per(a->count, (size_t)a->dt->size) > 0;
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
    MPI_Aint count = a->count, per = pipe_per(count, esz);
    cshm_claim(sh, n);
    if (count <= 0 || per <= 0) {
        cshm_post(sh, n, CSHM_FIN);
        return MPI_SUCCESS;
    }
    int nseg = (int)((count + per - 1) / per);
    int nbuf = (int)(coll_shm_slot_cap() / ((size_t)per * esz));
    int v = me - root < 0 ? me - root + p : me - root;
    int top = v ? coll_lowbit(v) : p;       /* children: v + m for m < top */
    int parent = v ? cshm_peer(me, p - coll_lowbit(v), p) : -1;
    int kids[sizeof(int) * 8], nkids = 0;
    for (int m = 1; m < top && v + m < p; m <<= 1) kids[nkids++] = cshm_peer(me, m, p);
    /* operands as buffer pointers of dt: packed byte b of the vector is at
     * base + true_lb + b */
    MPI_Aint lb = dt->true_lb;
    const char *mine = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    char *slot = cshm_slot(sh, me, n) - lb;
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
            const char *kid = cshm_slot(sh, kids[i], n) - lb + (size_t)(s % nbuf) * segb;
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
