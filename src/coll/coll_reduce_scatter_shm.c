/* SPDX-License-Identifier: MIT */
/* Reduce_scatter and Reduce_scatter_block through the node's shared memory
 * (coll_shm.h): every rank copies its whole vector, in the datatype's layout,
 * into its slot and posts; then each rank folds its own block of all p
 * vectors into recvbuf in the association of MPICH's algorithm
 * (cshm_order_reduce_scatter).  Every block is computed once, by its
 * owner, for any op.  Vectors up to a slot.  alpha-beta: alpha_line +
 * n beta_copy + (p - 1) (n / p) (beta_copy + gamma).
 *
 * When ranks outnumber cores and the vector does not fit a slot but its
 * blocks do (64 ranks of 1 KiB blocks), it goes in up to CSHM_NBUF rounds,
 * each a call of its own on the area: round j carries the blocks of the
 * ranks that fit a slot together, every rank copies that part of its vector,
 * posts (a meeting), and those ranks fold theirs.  Single copy would cost
 * p - 1 cross-memory copies of one block per rank instead. */
#include "coll/coll_shm.h"

static MPI_Aint rs_count(const coll_args_t *a, int i)
{
    return a->rcounts.p ? (MPI_Aint)cr_vec_get(a->rcounts, i) : a->rcount;
}

/* The round that starts with rank b0's block, at element e0: the ranks
 * b0 .. b1-1 whose blocks fit a slot together; returns b1 (b0 when block b0
 * alone does not fit) and sets *e1 to the element after their blocks. */
static int round_end(const coll_args_t *a, int p, int b0, MPI_Aint e0, MPI_Aint *e1)
{
    int b = b0;
    MPI_Aint e = e0;
    while (b < p && cshm_fits_layout(e + rs_count(a, b) - e0, a->dt)) e += rs_count(a, b++);
    *e1 = e;
    return b;
}

/* Does the call go in rounds (see the head comment)? */
static int in_rounds(const cr_comm_t *c, const coll_args_t *a)
{
    if (!cr_proc.oversubscribed) return 0;
    int p = c->size, rounds = 0;
    MPI_Aint e = 0, e1;
    for (int b = 0, b1; b < p; b = b1, e = e1) {
        b1 = round_end(a, p, b, e, &e1);
        if (b1 == b || ++rounds > CSHM_NBUF) return 0;
    }
    return 1;
}

static int whole_fits(const coll_args_t *a)
{
    return a->bytes <= coll_shm_slot_cap() &&
           cshm_fits_layout((MPI_Aint)(a->bytes / (size_t)a->dt->size), a->dt);
}

int coll_reduce_scatter_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    return whole_fits(a) || in_rounds(c, a);
}

/* The rounds (see the head comment).  With MPI_IN_PLACE this rank's result
 * overwrites elements 0 .. mine-1 of its vector in its own round, when every
 * round that copies them is done. */
static int reduce_scatter_rounds(coll_shm_t *sh, const coll_args_t *a)
{
    int me = sh->me, p = sh->p;
    MPI_Aint first, mine, e0 = 0, e1;
    cshm_rs_block(a, p, me, &first, &mine);
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    for (int b0 = 0, b1; b0 < p; b0 = b1, e0 = e1) {
        b1 = round_end(a, p, b0, e0, &e1);
        uint64_t n = cshm_begin(sh);
        cshm_claim(sh, n);
        coll_copy(coll_elem(src, e0, a->dt), cshm_operand(sh, me, n, e1 - e0, a->dt), e1 - e0,
                  a->dt);
        cshm_post_all(sh, n);
        if (me >= b0 && me < b1 && mine > 0) {
            cshm_slots_t o = { sh, n, e1 - e0, a->dt, CSHM_POSTED, NULL, first - e0 };
            cshm_fold_order(a->op, cshm_slot_operand, &o, p, a->rbuf, mine, a->dt,
                            cshm_order_reduce_scatter(a->op));
        }
        cshm_post(sh, n, CSHM_FIN);
    }
    return MPI_SUCCESS;
}

int coll_reduce_scatter_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(a->rcounts.p ? COLL_REDUCE_SCATTER : COLL_REDUCE_SCATTER_BLOCK,
                                  c, a);
    if (!whole_fits(a)) return reduce_scatter_rounds(sh, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    MPI_Aint first, mine, total = cshm_rs_block(a, p, me, &first, &mine);
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    cshm_claim(sh, n);
    coll_copy(src, cshm_operand(sh, me, n, total, a->dt), total, a->dt);
    /* every rank's vector must stay until its readers are done: where ranks
     * meet they post FIN, else the first post of their next call says it
     * (cshm_post_once: one post per call) */
    if (sh->meet) cshm_post_all(sh, n);
    else cshm_post_once(sh, n, CSHM_POSTED);
    if (mine > 0) {
        cshm_slots_t o = { sh, n, total, a->dt, CSHM_POSTED, NULL, first };
        cshm_fold_order(a->op, cshm_slot_operand, &o, p, a->rbuf, mine, a->dt,
                        cshm_order_reduce_scatter(a->op));
        /* every rank posted in call n: the next calls' claims need not look
         * at their lines (a look costs a line from each) */
        if (sh->safe < n - 1) sh->safe = n - 1;
    }
    if (sh->meet) cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
