/* SPDX-License-Identifier: MIT */
/* Large all-rank collectives through the ranks' staging buffers (coll_shm.h,
 * COURIER_COLL_STAGE_BYTES each, where the node's ranks do not outnumber its
 * cores), for contiguous datatypes: Allreduce (a reduce-scatter and an
 * allgather), Reduce_scatter(_block) and Allgather.
 *
 * Why two copies beat one.  Single copy (cma: process_vm_readv) pins and
 * maps the peer's pages one 4 KiB page at a time, about 0.3 us each here:
 * 11-13 GB/s, where memcpy runs at 45-50 GB/s (measured on this machine, 25
 * Nov; with the peer's buffer on huge pages the kernel's copy reaches 26
 * GB/s, but the buffers are the user's).  So a rank that copies its data
 * into its staging buffer and lets the others copy it out moves it faster
 * than one copy through the kernel: at 2 ranks an Allgather of 1 MiB takes
 * 72-77 us against 102-104 (docs/collectives.md, "Staging buffers").  The
 * buffer is written whole and then read whole: a ring of small segments
 * rewritten while the peer reads the one before ran at half that speed
 * (each rewrite takes back lines the reader had just fetched), so data
 * larger than the buffer go in rounds of the buffer's size, each round
 * ending before the next rewrites the buffer.
 *
 * Phases.  Call n's rounds post phases of the rank's control line: data
 * staged, (Allreduce) result slice staged, done reading the round; the last
 * round's last phase is FIN.  Before writing its buffer in round r a rank
 * waits until every rank is done reading round r - 1 (round 0: every rank
 * finished the last call that wrote the buffers, stage_claim).  So the number of
 * rounds is bounded by the phases a line has (stage_rounds); a call that
 * would need more takes cma.  Every rank computes the same rounds from the
 * same arguments and rank 0's buffer size.
 *
 * alpha-beta per round of m bytes of vector at p ranks (beta_copy the
 * memcpy cost per byte, some 4x less than beta_cma): Allreduce
 * 3 alpha_line + m ((p - 1) / p) 2 beta_copy + m / p (p beta_copy + gamma)
 * + m (p - 1) / p beta_copy; Allgather of blocks of m: 2 alpha_line +
 * (p + 1) m beta_copy. */
#include "coll/coll_shm.h"
#include "util/settings.h"

/* The phases a call may post before FIN (coll_reduce_pipe.c: the same) */
enum { STAGE_MAX_PHASE = CSHM_FIN - 1 };

/* Rounds of `per` units for a total of `count`, or 0 when per is 0 or they
 * would need more than STAGE_MAX_PHASE / phases phases. */
static MPI_Aint stage_rounds(MPI_Aint count, MPI_Aint per, int phases)
{
    if (per <= 0) return 0;
    MPI_Aint r = count > 0 ? (count + per - 1) / per : 1;
    return r * phases <= STAGE_MAX_PHASE ? r : 0;
}

/* Before call n writes this rank's staging buffer: wait until every rank
 * finished the last call that wrote one (they read them until its end).
 * That call ended with FIN on every rank, so its lines say so; waiting for
 * call n - 1 instead could wait for ever, since a call that ends without FIN
 * (cshm_post_once) says it finished only by the next call's first post. */
static void stage_claim(coll_shm_t *sh, uint64_t n)
{
    if (sh->stage_last) cshm_claim_depth(sh, n, n - sh->stage_last);
    sh->stage_last = n;
}

/* Where Reduce_scatter and Alltoall put rank j's piece in rank r's buffer:
 * the other ranks in rank order, without r itself. */
static int stage_place(int j, int r)
{
    return j < r ? j : j - 1;
}

/* ---- the operands of a fold ------------------------------------------------------- */
/* Operand i of a fold of elements [x, x + k): this rank's own at mine + x,
 * another rank's in its staging buffer, at stage_place(me, i) * piece
 * (Reduce_scatter: rank i's piece of this rank's block) or at 0 (Allreduce:
 * piece 0, the round's elements at their places), waited for before the
 * fold; all as buffer pointers of dt. */
typedef struct {
    const coll_shm_t *sh;
    const char *mine;           /* this rank's operand, packed: element 0 */
    size_t esz;
    MPI_Aint x;                 /* first element of this piece */
    MPI_Aint lb;                /* dt->true_lb */
    size_t piece;               /* bytes of one rank's place in a buffer (0: one place) */
} stage_opnd_t;

const void *cshm_stage_operand(void *ctx, int i)
{
    const stage_opnd_t *o = ctx;
    int me = o->sh->me;
    const char *b = i == me ? o->mine
                            : cshm_stage(o->sh, i) + (size_t)stage_place(me, i) * o->piece;
    return b + (size_t)o->x * o->esz - o->lb;
}

/* Fold elements [0, k) of the operands into acc (packed), in pieces of
 * COURIER_COLL_CMA_CHUNK_BYTES so that a tree's temporaries stay in the
 * cache. */
static void stage_fold(stage_opnd_t *o, const coll_args_t *a, char *acc, MPI_Aint k,
                       cshm_order_t order)
{
    size_t chunk = (size_t)ut_settings.coll_cma_chunk_bytes;
    MPI_Aint per = (MPI_Aint)(chunk / o->esz);
    if (per < 1) per = 1;
    MPI_Aint base = o->x;
    for (MPI_Aint d = 0; d < k; d += per) {
        MPI_Aint m = k - d < per ? k - d : per;
        o->x = base + d;
        cshm_fold_order(a->op, cshm_stage_operand, o, o->sh->p, acc + (size_t)d * o->esz - o->lb,
                        m, a->dt, order);
    }
    o->x = base;
}

/* ---- Allreduce ------------------------------------------------------------------------ */
/* A round of `per` elements of the vector: rank r's buffer holds the round's
 * elements at their round-relative places, its own operand's slices of the
 * other ranks (phase 1), and in its own slice's place the folded result
 * (phase 2). */
static MPI_Aint allreduce_per(const coll_shm_t *sh, size_t esz)
{
    return esz ? (MPI_Aint)(sh->stage_bytes / esz) : 0;
}

int coll_allreduce_stage_fits(const cr_comm_t *c, const coll_args_t *a)
{
    size_t esz = (size_t)a->dt->size, stage = coll_shm_stage_bytes(c);
    return a->dt->contig && esz && stage >= esz &&
           stage_rounds(a->count, (MPI_Aint)(stage / esz), 3) > 0;
}

int coll_allreduce_stage(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->stage) return coll_fallback(COLL_ALLREDUCE, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    const cr_datatype_t *dt = a->dt;
    size_t esz = (size_t)dt->size;
    MPI_Aint count = a->count, per = allreduce_per(sh, esz);
    MPI_Aint nr = stage_rounds(count, per, 3);
    stage_claim(sh, n);
    if (count <= 0 || nr <= 0) {
        /* nothing to do, or (settings that differ from rank 0's) too many
         * rounds: every rank finds the same */
        cshm_post(sh, n, CSHM_FIN);
        return count <= 0 ? MPI_SUCCESS : coll_fallback(COLL_ALLREDUCE, c, a);
    }
    const char *src = (const char *)(a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf) + dt->true_lb;
    char *dst = (char *)a->rbuf + dt->true_lb;
    char *buf = cshm_stage(sh, me);
    for (MPI_Aint r = 0; r < nr; r++) {
        int ph = (int)(3 * r);
        MPI_Aint x = r * per, k = count - x < per ? count - x : per, lo, hi;
        if (r) cshm_wait_all(sh, n, ph);   /* every rank done reading round r - 1 */
        /* phase 1: the other ranks' slices of this rank's operand (an
         * operand in recvbuf, MPI_IN_PLACE, is read here before this round
         * writes any of recvbuf) */
        cshm_slice(k, p, me, &lo, &hi);
        memcpy(buf, src + (size_t)x * esz, (size_t)lo * esz);
        memcpy(buf + (size_t)hi * esz, src + (size_t)(x + hi) * esz, (size_t)(k - hi) * esz);
        cshm_post(sh, n, ph + 1);
        /* fold this rank's slice into its place in the buffer, then into recvbuf */
        cshm_wait_all(sh, n, ph + 1);   /* (every rank posted in call n) */
        stage_opnd_t o = { sh, src + (size_t)x * esz, esz, lo, dt->true_lb, 0 };
        stage_fold(&o, a, buf + (size_t)lo * esz, hi - lo, cshm_order_allreduce());
        memcpy(dst + (size_t)(x + lo) * esz, buf + (size_t)lo * esz, (size_t)(hi - lo) * esz);
        cshm_post(sh, n, ph + 2);
        /* phase 3: the other ranks' result slices */
        for (int q = 1; q < p; q++) {
            int j = cshm_peer(me, q, p);
            MPI_Aint jlo, jhi;
            cshm_slice(k, p, j, &jlo, &jhi);
            cshm_wait(sh, j, n, ph + 2);
            memcpy(dst + (size_t)(x + jlo) * esz, cshm_stage(sh, j) + (size_t)jlo * esz,
                   (size_t)(jhi - jlo) * esz);
        }
        cshm_post(sh, n, r == nr - 1 ? CSHM_FIN : ph + 3);
    }
    return MPI_SUCCESS;
}

/* ---- Reduce_scatter(_block) ------------------------------------------------------------ */
/* A round covers elements [x, x + per) of every rank's block; rank r's
 * buffer holds that piece of each other rank j's block of its operand, at
 * stage_place(j, r) * per elements. */
/* The largest block (elements) of the call. */
static MPI_Aint rs_max_block(const coll_args_t *a, int p)
{
    if (!a->rcounts.p) return a->rcount;
    MPI_Aint m = 0;
    for (int i = 0; i < p; i++) {
        MPI_Aint k = (MPI_Aint)cr_vec_get(a->rcounts, i);
        if (k > m) m = k;
    }
    return m;
}

static MPI_Aint rs_per(size_t stage, size_t esz, int p)
{
    return esz && p > 1 ? (MPI_Aint)(stage / esz / (size_t)(p - 1)) : 0;
}

int coll_reduce_scatter_stage_fits(const cr_comm_t *c, const coll_args_t *a)
{
    size_t esz = (size_t)a->dt->size;
    return a->dt->contig && a->sbuf != MPI_IN_PLACE && esz &&
           stage_rounds(rs_max_block(a, c->size), rs_per(coll_shm_stage_bytes(c), esz, c->size),
                        2) > 0;
}

int coll_reduce_scatter_stage(cr_comm_t *c, const coll_args_t *a)
{
    coll_kind_t coll = a->rcounts.p ? COLL_REDUCE_SCATTER : COLL_REDUCE_SCATTER_BLOCK;
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->stage || a->sbuf == MPI_IN_PLACE) return coll_fallback(coll, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    const cr_datatype_t *dt = a->dt;
    size_t esz = (size_t)dt->size;
    MPI_Aint per = rs_per(sh->stage_bytes, esz, p), most = rs_max_block(a, p);
    MPI_Aint nr = stage_rounds(most, per, 2);
    stage_claim(sh, n);
    if (most <= 0 || nr <= 0) {
        cshm_post(sh, n, CSHM_FIN);
        return most <= 0 ? MPI_SUCCESS : coll_fallback(coll, c, a);
    }
    const char *src = (const char *)a->sbuf + dt->true_lb;
    char *dst = (char *)a->rbuf + dt->true_lb;
    char *buf = cshm_stage(sh, me);
    MPI_Aint first, mine;
    cshm_rs_block(a, p, me, &first, &mine);
    size_t piece = (size_t)per * esz;
    for (MPI_Aint r = 0; r < nr; r++) {
        int ph = (int)(2 * r);
        MPI_Aint x = r * per;
        if (r) cshm_wait_all(sh, n, ph);
        /* this round's piece of every other rank's block */
        MPI_Aint start = 0;
        for (int j = 0; j < p; j++) {
            MPI_Aint bj = a->rcounts.p ? (MPI_Aint)cr_vec_get(a->rcounts, j) : a->rcount;
            if (j != me && bj > x) {
                MPI_Aint k = bj - x < per ? bj - x : per;
                memcpy(buf + (size_t)stage_place(j, me) * piece,
                       src + (size_t)(start + x) * esz, (size_t)k * esz);
            }
            start += bj;
        }
        cshm_post(sh, n, ph + 1);
        cshm_wait_all(sh, n, ph + 1);   /* (every rank posted in call n) */
        if (mine > x) {
            MPI_Aint k = mine - x < per ? mine - x : per;
            /* the others' pieces of this round are at the start of their places */
            stage_opnd_t o = { sh, src + (size_t)(first + x) * esz, esz, 0, dt->true_lb, piece };
            stage_fold(&o, a, dst + (size_t)x * esz, k, cshm_order_reduce_scatter(a->op));
        }
        cshm_post(sh, n, r == nr - 1 ? CSHM_FIN : ph + 2);
    }
    return MPI_SUCCESS;
}

/* ---- Allgather ---------------------------------------------------------------------------- */
/* A round covers bytes [x, x + stage) of every rank's packed block. */
int coll_allgather_stage_fits(const cr_comm_t *c, const coll_args_t *a)
{
    size_t stage = coll_shm_stage_bytes(c);
    return a->rdt->contig && (a->sbuf == MPI_IN_PLACE || a->sdt->contig) &&
           stage_rounds((MPI_Aint)a->bytes, (MPI_Aint)stage, 2) > 0;
}

int coll_allgather_stage(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->stage) return coll_fallback(COLL_ALLGATHER, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    MPI_Aint bytes = (MPI_Aint)a->bytes, per = (MPI_Aint)sh->stage_bytes;
    MPI_Aint nr = stage_rounds(bytes, per, 2);
    stage_claim(sh, n);
    if (bytes <= 0 || nr <= 0) {
        cshm_post(sh, n, CSHM_FIN);
        return bytes <= 0 ? MPI_SUCCESS : coll_fallback(COLL_ALLGATHER, c, a);
    }
    size_t blk = (size_t)a->rcount * (size_t)a->rdt->extent;   /* recvbuf stride */
    char *dst = (char *)a->rbuf + a->rdt->true_lb;
    char *own = dst + (size_t)me * blk;
    const char *src = a->sbuf == MPI_IN_PLACE ? own : (const char *)a->sbuf + a->sdt->true_lb;
    char *buf = cshm_stage(sh, me);
    for (MPI_Aint r = 0; r < nr; r++) {
        int ph = (int)(2 * r);
        MPI_Aint x = r * per, k = bytes - x < per ? bytes - x : per;
        if (r) cshm_wait_all(sh, n, ph);
        memcpy(buf, src + x, (size_t)k);
        cshm_post(sh, n, ph + 1);
        if (src != own) memcpy(own + x, src + x, (size_t)k);
        for (int q = 1; q < p; q++) {
            int j = cshm_peer(me, q, p);
            cshm_wait(sh, j, n, ph + 1);
            memcpy(dst + (size_t)j * blk + x, cshm_stage(sh, j), (size_t)k);
        }
        cshm_post(sh, n, r == nr - 1 ? CSHM_FIN : ph + 2);
    }
    if (sh->safe < n - 1) sh->safe = n - 1;
    return MPI_SUCCESS;
}

/* ---- Alltoall ------------------------------------------------------------------------------ */
/* A round covers bytes [x, x + per) of every block; rank r's buffer holds
 * that piece of its block for each other rank j, in rank order without its
 * own: at (j < r ? j : j - 1) * per.  In place works: a round stages the
 * pieces of recvbuf it is about to overwrite, and writes no other. */
static MPI_Aint a2a_per(size_t stage, int p)
{
    return p > 1 ? (MPI_Aint)(stage / (size_t)(p - 1)) : 0;
}

int coll_alltoall_stage_fits(const cr_comm_t *c, const coll_args_t *a)
{
    return a->rdt->contig && (a->sbuf == MPI_IN_PLACE || a->sdt->contig) &&
           stage_rounds((MPI_Aint)a->bytes, a2a_per(coll_shm_stage_bytes(c), c->size), 2) > 0;
}

int coll_alltoall_stage(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->stage) return coll_fallback(COLL_ALLTOALL, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    MPI_Aint bytes = (MPI_Aint)a->bytes, per = a2a_per(sh->stage_bytes, p);
    MPI_Aint nr = stage_rounds(bytes, per, 2);
    stage_claim(sh, n);
    if (bytes <= 0 || nr <= 0) {
        cshm_post(sh, n, CSHM_FIN);
        return bytes <= 0 ? MPI_SUCCESS : coll_fallback(COLL_ALLTOALL, c, a);
    }
    int inplace = a->sbuf == MPI_IN_PLACE;
    size_t rblk = (size_t)a->rcount * (size_t)a->rdt->extent;
    size_t sblk = inplace ? rblk : (size_t)a->scount * (size_t)a->sdt->extent;
    char *dst = (char *)a->rbuf + a->rdt->true_lb;
    const char *src = inplace ? dst : (const char *)a->sbuf + a->sdt->true_lb;
    char *buf = cshm_stage(sh, me);
    for (MPI_Aint r = 0; r < nr; r++) {
        int ph = (int)(2 * r);
        MPI_Aint x = r * per, k = bytes - x < per ? bytes - x : per;
        if (r) cshm_wait_all(sh, n, ph);
        for (int j = 0; j < p; j++)
            if (j != me)
                memcpy(buf + (size_t)stage_place(j, me) * (size_t)per,
                       src + (size_t)j * sblk + (size_t)x, (size_t)k);
        cshm_post(sh, n, ph + 1);
        if (!inplace)
            memcpy(dst + (size_t)me * rblk + (size_t)x, src + (size_t)me * sblk + (size_t)x,
                   (size_t)k);
        for (int q = 1; q < p; q++) {
            int j = cshm_peer(me, q, p);
            cshm_wait(sh, j, n, ph + 1);
            memcpy(dst + (size_t)j * rblk + (size_t)x,
                   cshm_stage(sh, j) + (size_t)stage_place(me, j) * (size_t)per, (size_t)k);
        }
        cshm_post(sh, n, r == nr - 1 ? CSHM_FIN : ph + 2);
    }
    if (sh->safe < n - 1) sh->safe = n - 1;
    return MPI_SUCCESS;
}
