/* SPDX-License-Identifier: MIT */
/* Two-phase collective buffering (learned from ROMIO's design, written
 * anew).
 *
 * Every rank has summarised its access (first and last file byte, bytes,
 * an estimate of its runs); from the allgathered summaries each rank decides
 * the same thing:
 *  - independent: atomic mode, non-monotonic views, collective buffering
 *    disabled, or (automatic) accesses that do not interleave between ranks
 *    or whose runs are long (courier_direct_min_run): each rank moves its own
 *    data (io_indep);
 *  - independent and never sieved (x->direct; automatic): every rank maps
 *    the file (tmpfs), or reads whose runs average courier_coll_read_direct
 *    bytes: one copy of each byte instead of two-phase's three;
 *  - two-phase: the span [first, last) of all accesses is cut into one
 *    domain per aggregator (cb_nodes; by default every rank of every node,
 *    at most io_cb_per_node per node), and each domain is moved in rounds of
 *    one window of cb_buffer_size bytes.
 *
 * A round, for each aggregator's window: every rank finds the part of its
 * stream that falls in the window (two inverse mappings, no flattening: the
 * view is monotonic) and walks it into run records, which are vectors (off,
 * len, stride, count), so a strided access sends one record per window
 * rather than one offset/length pair per block.  It sends a fixed-size meta
 * message (length, record count, the first records), the remaining records
 * if any, and the data straight from the user's buffer when it is one run
 * there.  The aggregator
 *  - for writes: reads the window's span first only where it may have holes
 *    (the records' bytes add up to less than the span, or to more: overlap),
 *    receives each rank's data (into its place in the window when it is one
 *    block), copies the records in, and writes the span once.  When the
 *    bytes add up exactly but the ranks' blocks interleave, a bitmap of the
 *    bytes written proves there is no hole (or the holes are read and
 *    filled);
 *  - for reads: reads the span once and sends each rank its records' bytes
 *    (straight from the window when they are one block).
 * Messages travel on the file's private communicator (tags META, RECS,
 * DATA); every step is non-blocking, so the same rounds serve blocking,
 * non-blocking and split collectives. */
#define _GNU_SOURCE
#include "io/io.h"
#include "core/pt2pt.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>

#define TP_INLINE 30
enum { TAG_META = 1, TAG_RECS = 2, TAG_DATA = 3 };
enum { R_START = 0, R_META, R_RECS, R_DATA, R_SENDS };

typedef struct {
    int64_t len, nrec;
    io_run_t inl[TP_INLINE];
} meta_t;

typedef struct {
    cr_request_t **v;
    int n, cap;
} reqs_t;

/* An aggregator's buffers for one round, and the write of that round, which
 * may run on the helper thread while the next round uses the other set. */
typedef struct {
    char *cb, *rstage;             /* the window's file bytes; other ranks' data */
    size_t cb_cap, rstage_cap;
    char *own;                     /* this rank's packed data, kept while the write runs */
    size_t own_cap;
    struct iovec *iov;             /* the write as pieces where the data arrived (or NULL: cb) */
    int niov;
    size_t iov_cap;
    io_job_t job;
    int busy;                      /* its write is under way */
    int fd, err, behind;           /* err: errno of the write; behind: start write-back */
    int64_t lo, span;
} tp_buf_t;

typedef struct {
    const io_run_t *rec;
    int64_t n, k, j, off;          /* record k, block j of it, at file offset off */
    const char *src;
} cursor_t;

struct io_tp {
    int write;
    int naggr, me;                 /* aggregators; my index among them or -1 */
    const int *aggr;
    int64_t base, dsize, win;      /* domains: base + i * dsize; rounds of win bytes */
    int64_t ntimes, t;
    int rstate;
    int64_t st, end;               /* my access's file range */
    /* this rank, per aggregator */
    io_runvec_t *rv;
    int64_t *p0, *len;
    char **data;                   /* the stream bytes: user memory or stage[i] */
    char **stage;
    size_t *stage_cap;
    meta_t *mout;
    reqs_t mine;
    /* the aggregator */
    meta_t *min;                   /* per rank */
    io_run_t **recs;               /* per rank: its records this round */
    io_run_t **extra;
    size_t *extra_cap;
    int64_t *roff;                 /* per rank: offset of its data in rstage, -1: in place */
    tp_buf_t buf[2];               /* round t uses buf[cur]: t & 1 when writes overlap */
    int cur, overlap;
    cursor_t *cursor;              /* per rank: the merge of the records into file order */
    char *tmp;
    size_t tmp_cap;
    unsigned char *bm;
    size_t bm_cap;
    int64_t lo, hi, sum, nblk;
    int preread, verify;
    reqs_t agg;
};

/* ---- helpers ------------------------------------------------------------------------------ */
static int reqs_add(reqs_t *q, cr_request_t *r)
{
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : 16;
        cr_request_t **v = realloc(q->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        q->v = v;
        q->cap = cap;
    }
    q->v[q->n++] = r;
    return 0;
}

/* All complete?  Then they are freed; the first error goes to *err. */
static int reqs_done(reqs_t *q, int *err)
{
    for (int i = 0; i < q->n; i++)
        if (!q->v[i]->complete) return 0;
    for (int i = 0; i < q->n; i++) {
        int e = cr_wait(q->v[i], MPI_STATUS_IGNORE);
        if (e && !*err) *err = e;
    }
    q->n = 0;
    return 1;
}

static int grow(char **p, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    char *n = realloc(*p, need);
    if (!n) return -1;
    *p = n;
    *cap = need;
    return 0;
}

static int64_t rend(const io_run_t *r)
{
    return r->off + (r->count - 1) * r->stride + r->len;
}

static void set_err(io_op_t *op, int err)
{
    if (err && !op->err) op->err = err;
}

static int nomem(io_op_t *op)
{
    return cr_error(MPI_ERR_NO_MEM, "%s: out of memory for collective buffering", op->fname);
}

static int post_send(io_op_t *op, reqs_t *q, const void *buf, int64_t bytes, int dest, int tag)
{
    cr_request_t *r;
    int err = cr_isend(buf, (MPI_Aint)bytes, cr_datatype_ptr(MPI_BYTE), dest, tag, op->fh->comm,
                       CR_CTX_PT2PT, CR_MODE_STD, &r);
    if (err) return err;
    if (reqs_add(q, r)) {
        cr_wait(r, MPI_STATUS_IGNORE);
        return nomem(op);
    }
    return 0;
}

static int post_recv(io_op_t *op, reqs_t *q, void *buf, int64_t bytes, int src, int tag)
{
    cr_request_t *r;
    int err = cr_irecv(buf, (MPI_Aint)bytes, cr_datatype_ptr(MPI_BYTE), src, tag, op->fh->comm,
                       CR_CTX_PT2PT, &r);
    if (err) return err;
    if (reqs_add(q, r)) {
        cr_wait(r, MPI_STATUS_IGNORE);
        return nomem(op);
    }
    return 0;
}

/* ---- the decision --------------------------------------------------------------------------- */
void io_tp_summary(const io_xfer_t *x, int64_t out[IO_G_N])
{
    const io_view_t *v = &x->fh->view;
    out[IO_G_BYTES] = x->n;
    out[IO_G_FLAGS] = (x->fh->readable ? 0 : IO_GF_NOREAD) | (io_mapped(x->fh) ? 0 : IO_GF_NOMAP);
    if (x->n <= 0) {
        out[IO_G_ST] = INT64_MAX;
        out[IO_G_END] = INT64_MIN;
        out[IO_G_RUNS] = 0;
    } else if (!v->monotonic) {
        out[IO_G_FLAGS] |= IO_GF_NONMONO;
        out[IO_G_ST] = out[IO_G_END] = 0;
        out[IO_G_RUNS] = 1;
    } else {
        out[IO_G_ST] = io_view_offset(v, x->vpos);
        out[IO_G_END] = io_view_offset(v, x->vpos + x->n - 1) + 1;
        if (v->contig) out[IO_G_RUNS] = 1;
        else if (v->vec) out[IO_G_RUNS] = x->n / v->blen + 1;
        else out[IO_G_RUNS] = (x->n / v->fsize + 1) * (v->iblocks > 0 ? v->iblocks : 1);
    }
}

typedef struct {
    int64_t st, end;
} range_t;

static int cmp_range(const void *a, const void *b)
{
    const range_t *x = a, *y = b;
    return x->st < y->st ? -1 : x->st > y->st;
}

int io_tp_setup(io_op_t *op)
{
    cr_file_t *fh = op->fh;
    const int64_t *G = op->gath;
    int write = op->x.write;
    long cb = write ? fh->hints.cb_write : fh->hints.cb_read;
    int64_t total = 0, runs = 0, gmin = INT64_MAX, gmax = INT64_MIN;
    int nonmono = 0, noread = 0, nomap = 0, nr = 0;
    range_t *rg = malloc((size_t)fh->size * sizeof *rg);
    if (!rg) {
        set_err(op, nomem(op));
        return 1;
    }
    for (int r = 0; r < fh->size; r++) {
        const int64_t *g = G + r * IO_G_N;
        if (g[IO_G_FLAGS] & IO_GF_NONMONO) nonmono = 1;
        if (g[IO_G_FLAGS] & IO_GF_NOREAD) noread = 1;
        if (g[IO_G_FLAGS] & IO_GF_NOMAP) nomap = 1;
        if (g[IO_G_BYTES] <= 0) continue;
        total += g[IO_G_BYTES];
        runs += g[IO_G_RUNS];
        if (g[IO_G_ST] < gmin) gmin = g[IO_G_ST];
        if (g[IO_G_END] > gmax) gmax = g[IO_G_END];
        rg[nr++] = (range_t){ g[IO_G_ST], g[IO_G_END] };
    }
    int indep = total == 0 || nonmono || fh->atomic || cb == IO_DISABLE || fh->size == 1 ||
                (write && noread);
    if (!indep && cb == IO_AUTO) {
        qsort(rg, (size_t)nr, sizeof *rg, cmp_range);
        int interleaved = 0;
        int64_t reach = INT64_MIN;
        for (int i = 0; i < nr; i++) {
            if (rg[i].st < reach) interleaved = 1;
            if (rg[i].end > reach) reach = rg[i].end;
        }
        int64_t mean = total / (runs > 0 ? runs : 1);
        if (!interleaved || mean >= fh->hints.direct_min_run) indep = 1;
        /* every rank maps a tmpfs file, or reads runs of some size: each
         * rank's own accesses copy every byte once, where two-phase copies
         * it three times (read, pack, send; receive, place, write) */
        if (!indep && (!nomap || (!write && fh->hints.coll_read_direct > 0 &&
                                  mean >= fh->hints.coll_read_direct)))
            indep = op->x.direct = 1;
    }
    free(rg);
    if (indep) return 1;

    struct io_tp *tp = calloc(1, sizeof *tp);
    int na = fh->naggr, P = fh->size;
    if (!tp) goto oom;
    op->tp = tp;
    tp->write = write;
    tp->naggr = na;
    tp->aggr = fh->aggr;
    tp->me = -1;
    for (int i = 0; i < na; i++)
        if (fh->aggr[i] == fh->rank) tp->me = i;
    int64_t align = fh->hints.striping_unit > 0 ? fh->hints.striping_unit : 1;
    tp->base = gmin - gmin % align;
    int64_t span = gmax - tp->base;
    tp->dsize = (span + na - 1) / na;
    if (tp->dsize > align) tp->dsize = (tp->dsize + align - 1) / align * align;
    tp->win = fh->hints.cb_buffer_size;
    tp->overlap = write && ut_settings.io_cb_overlap && ut_settings.io_worker;
    tp->ntimes = (tp->dsize + tp->win - 1) / tp->win;
    const int64_t *g = G + fh->rank * IO_G_N;
    tp->st = g[IO_G_ST];
    tp->end = g[IO_G_END];
    tp->rv = calloc((size_t)na, sizeof *tp->rv);
    tp->p0 = calloc((size_t)na, sizeof *tp->p0);
    tp->len = calloc((size_t)na, sizeof *tp->len);
    tp->data = calloc((size_t)na, sizeof *tp->data);
    tp->stage = calloc((size_t)na, sizeof *tp->stage);
    tp->stage_cap = calloc((size_t)na, sizeof *tp->stage_cap);
    tp->mout = calloc((size_t)na, sizeof *tp->mout);
    if (!tp->rv || !tp->p0 || !tp->len || !tp->data || !tp->stage || !tp->stage_cap || !tp->mout) goto oom;
    for (int i = 0; i < na; i++) io_runvec_init(&tp->rv[i]);
    if (tp->me >= 0) {
        tp->min = calloc((size_t)P, sizeof *tp->min);
        tp->recs = calloc((size_t)P, sizeof *tp->recs);
        tp->extra = calloc((size_t)P, sizeof *tp->extra);
        tp->extra_cap = calloc((size_t)P, sizeof *tp->extra_cap);
        tp->roff = calloc((size_t)P, sizeof *tp->roff);
        tp->cursor = calloc((size_t)P, sizeof *tp->cursor);
        if (!tp->min || !tp->recs || !tp->extra || !tp->extra_cap || !tp->roff || !tp->cursor) goto oom;
    }
    if (!write) {
        /* what a read finds: the data before the end of the file */
        struct stat st;
        int64_t size = fstat(fh->fd, &st) == 0 ? st.st_size : INT64_MAX;
        int64_t avail = io_view_pos(&fh->view, size) - op->x.vpos;
        op->x.done = avail < 0 ? 0 : avail > op->x.n ? op->x.n : avail;
    }
    return 0;
oom:
    set_err(op, nomem(op));
    io_tp_free(op);
    return 1;
}

void io_tp_free(io_op_t *op)
{
    struct io_tp *tp = op->tp;
    if (!tp) return;
    int dummy = 0;
    /* requests and writes still out (an error stopped the rounds): wait them out */
    if (tp->mine.n || tp->agg.n || tp->buf[0].busy || tp->buf[1].busy) {
        cr_wait_t w = CR_WAIT_INIT;
        while (!reqs_done(&tp->mine, &dummy)) cr_wait_poll(&w);
        while (!reqs_done(&tp->agg, &dummy)) cr_wait_poll(&w);
        for (int b = 0; b < 2; b++)
            while (tp->buf[b].busy && !io_job_finished(&tp->buf[b].job)) cr_wait_poll(&w);
    }
    for (int i = 0; tp->rv && i < tp->naggr; i++) io_runvec_free(&tp->rv[i]);
    for (int i = 0; tp->stage && i < tp->naggr; i++) free(tp->stage[i]);
    for (int r = 0; tp->extra && r < op->fh->size; r++) free(tp->extra[r]);
    free(tp->rv);
    free(tp->p0);
    free(tp->len);
    free(tp->data);
    free(tp->stage);
    free(tp->stage_cap);
    free(tp->mout);
    free(tp->mine.v);
    free(tp->min);
    free(tp->recs);
    free(tp->extra);
    free(tp->extra_cap);
    free(tp->roff);
    free(tp->cursor);
    for (int b = 0; b < 2; b++) {
        free(tp->buf[b].cb);
        free(tp->buf[b].rstage);
        free(tp->buf[b].own);
        free(tp->buf[b].iov);
    }
    free(tp->tmp);
    free(tp->bm);
    free(tp->agg.v);
    free(tp);
    op->tp = NULL;
}

/* ---- rounds ---------------------------------------------------------------------------------- */
static void window(const struct io_tp *tp, int i, int64_t *lo, int64_t *hi)
{
    int64_t d0 = tp->base + i * tp->dsize, d1 = d0 + tp->dsize;
    *lo = d0 + tp->t * tp->win;
    if (*lo > d1) *lo = d1;
    *hi = d1 - *lo > tp->win ? *lo + tp->win : d1;
}

/* This rank's part of every aggregator's window: records, data, messages. */
static int round_start(io_op_t *op)
{
    struct io_tp *tp = op->tp;
    io_xfer_t *x = &op->x;
    const io_view_t *v = &op->fh->view;
    int err;
    for (int i = 0; i < tp->naggr; i++) {
        int64_t lo, hi;
        window(tp, i, &lo, &hi);
        io_runvec_t *rv = &tp->rv[i];
        rv->n = 0;
        rv->bytes = 0;
        rv->s.cur.count = 0;
        tp->len[i] = 0;
        tp->data[i] = NULL;
        if (x->n > 0 && hi > tp->st && lo < tp->end && hi > lo) {
            int64_t p0 = io_view_pos(v, lo), p1 = io_view_pos(v, hi);
            if (p0 < x->vpos) p0 = x->vpos;
            if (p1 > x->vpos + x->n) p1 = x->vpos + x->n;
            if (p1 > p0) {
                int64_t a = p0 - x->vpos;
                char *p = io_mem_ptr(x, a, p1 - p0);
                err = io_view_walk(v, p0, p1 - p0, &rv->s);
                if (!err) err = io_runvec_finish(rv);
                if (!err && !p) {
                    if (grow(&tp->stage[i], &tp->stage_cap[i], (size_t)(p1 - p0))) err = nomem(op);
                    else {
                        p = tp->stage[i];
                        if (x->write) io_mem_pack(x, a, p1 - p0, p);
                    }
                }
                if (err) {   /* take no part in this window, but say so */
                    set_err(op, err);
                    rv->n = 0;
                    rv->bytes = 0;
                } else {
                    tp->p0[i] = p0;
                    tp->len[i] = p1 - p0;
                    tp->data[i] = p;
                }
            }
        }
        if (i == tp->me) continue;
        int dest = tp->aggr[i];
        meta_t *m = &tp->mout[i];
        m->len = tp->len[i];
        m->nrec = rv->n;
        int k = rv->n < TP_INLINE ? rv->n : TP_INLINE;
        if (k > 0) memcpy(m->inl, rv->v, (size_t)k * sizeof *rv->v);
        if ((err = post_send(op, &tp->mine, m, 16 + (int64_t)k * (int64_t)sizeof(io_run_t), dest, TAG_META)))
            return err;
        if (rv->n > TP_INLINE &&
            (err = post_send(op, &tp->mine, rv->v + TP_INLINE,
                             (int64_t)(rv->n - TP_INLINE) * (int64_t)sizeof(io_run_t), dest, TAG_RECS)))
            return err;
        if (tp->len[i] > 0) {
            err = x->write ? post_send(op, &tp->mine, tp->data[i], tp->len[i], dest, TAG_DATA)
                           : post_recv(op, &tp->mine, tp->data[i], tp->len[i], dest, TAG_DATA);
            if (err) return err;
        }
    }
    if (tp->me >= 0) {
        for (int r = 0; r < op->fh->size; r++) {
            if (r == op->fh->rank) continue;
            if ((err = post_recv(op, &tp->agg, &tp->min[r], (int64_t)sizeof(meta_t), r, TAG_META))) return err;
        }
    }
    return 0;
}

/* Metas arrived: receive the records that did not fit. */
static int agg_records(io_op_t *op)
{
    struct io_tp *tp = op->tp;
    cr_file_t *fh = op->fh;
    for (int r = 0; r < fh->size; r++) {
        if (r == fh->rank) {
            tp->recs[r] = tp->rv[tp->me].v;
            continue;
        }
        meta_t *m = &tp->min[r];
        if (m->nrec <= TP_INLINE) {
            tp->recs[r] = m->inl;
            continue;
        }
        size_t need = (size_t)m->nrec * sizeof(io_run_t);
        if (grow((char **)&tp->extra[r], &tp->extra_cap[r], need)) return nomem(op);
        memcpy(tp->extra[r], m->inl, TP_INLINE * sizeof(io_run_t));
        tp->recs[r] = tp->extra[r];
        int err = post_recv(op, &tp->agg, tp->extra[r] + TP_INLINE,
                            (int64_t)(m->nrec - TP_INLINE) * (int64_t)sizeof(io_run_t), r, TAG_RECS);
        if (err) return err;
    }
    return 0;
}

static int64_t rank_nrec(const struct io_tp *tp, const cr_file_t *fh, int r)
{
    return r == fh->rank ? tp->rv[tp->me].n : tp->min[r].nrec;
}

static int64_t rank_len(const struct io_tp *tp, const cr_file_t *fh, int r)
{
    return r == fh->rank ? tp->len[tp->me] : tp->min[r].len;
}

typedef struct {
    int64_t off, end;
} blk_t;

static int cmp_blk(const void *a, const void *b)
{
    const blk_t *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Records arrived: the span, whether it has holes, and the data's places. */
static int agg_plan(io_op_t *op)
{
    struct io_tp *tp = op->tp;
    cr_file_t *fh = op->fh;
    tp_buf_t *B = &tp->buf[tp->cur];
    int P = fh->size;
    tp->lo = INT64_MAX;
    tp->hi = INT64_MIN;
    tp->sum = 0;
    tp->nblk = 0;
    int singles = 1, ncontrib = 0;
    for (int r = 0; r < P; r++) {
        int64_t n = rank_nrec(tp, fh, r);
        if (n == 0) continue;
        ncontrib++;
        const io_run_t *rec = tp->recs[r];
        for (int64_t k = 0; k < n; k++) {
            if (rec[k].off < tp->lo) tp->lo = rec[k].off;
            if (rend(&rec[k]) > tp->hi) tp->hi = rend(&rec[k]);
            tp->sum += rec[k].len * rec[k].count;
            tp->nblk += rec[k].count;
        }
        if (n != 1 || rec[0].count != 1) singles = 0;
    }
    if (tp->sum == 0) return 0;
    int64_t span = tp->hi - tp->lo;
    if (grow(&B->cb, &B->cb_cap, (size_t)span)) return nomem(op);
    tp->preread = tp->verify = 0;
    if (tp->write) {
        if (tp->sum != span) {
            tp->preread = 1;
        } else if (singles) {
            /* single blocks: sorted, they tile the span or there is a hole */
            blk_t *b = malloc((size_t)ncontrib * sizeof *b);
            if (!b) return nomem(op);
            int nb = 0;
            for (int r = 0; r < P; r++)
                if (rank_nrec(tp, fh, r)) b[nb++] = (blk_t){ tp->recs[r][0].off, rend(&tp->recs[r][0]) };
            qsort(b, (size_t)nb, sizeof *b, cmp_blk);
            for (int k = 1; k < nb; k++)
                if (b[k].off != b[k - 1].end) tp->preread = 1;
            free(b);
        } else {
            tp->verify = 1;
        }
        if (tp->preread) {
            size_t got = 0;
            int e = io_pread(fh->fd, B->cb, (size_t)span, tp->lo, &got);
            if (e) set_err(op, io_errno(e, op->fname, "cannot read (collective buffering)", fh->path));
            if ((int64_t)got < span) memset(B->cb + got, 0, (size_t)(span - (int64_t)got));
        }
        /* where each rank's data lands */
        int64_t stage = 0;
        for (int r = 0; r < P; r++) {
            tp->roff[r] = -1;
            if (r == fh->rank) continue;
            int64_t len = rank_len(tp, fh, r);
            if (len == 0) continue;
            if (!tp->verify && tp->min[r].nrec == 1 && tp->recs[r][0].count == 1) continue;
            tp->roff[r] = stage;
            stage += len;
        }
        if (stage && grow(&B->rstage, &B->rstage_cap, (size_t)stage)) return nomem(op);
        for (int r = 0; r < P; r++) {
            if (r == fh->rank) continue;
            int64_t len = rank_len(tp, fh, r);
            if (len == 0) continue;
            char *dst = tp->roff[r] >= 0 ? B->rstage + tp->roff[r] : B->cb + (tp->recs[r][0].off - tp->lo);
            int err = post_recv(op, &tp->agg, dst, len, r, TAG_DATA);
            if (err) return err;
        }
        return 0;
    }
    /* reads: the span once, then every rank's bytes; on a disk the next
     * window is asked for first, so that the device reads it meanwhile */
    int64_t ahead = fh->fs == IO_FS_TMPFS ? 0 : (int64_t)ut_settings.io_read_ahead;
    if (ahead > 0 && tp->t + 1 < tp->ntimes) {
        int64_t nlo, nhi;
        tp->t++;
        window(tp, tp->me, &nlo, &nhi);
        tp->t--;
        io_read_ahead(fh->fd, nlo, nlo + ahead, nhi);
    }
    size_t got = 0;
    int e = io_pread(fh->fd, B->cb, (size_t)span, tp->lo, &got);
    if (e) set_err(op, io_errno(e, op->fname, "cannot read", fh->path));
    if ((int64_t)got < span) memset(B->cb + got, 0, (size_t)(span - (int64_t)got));
    int64_t stage = 0;
    for (int r = 0; r < P; r++) {
        tp->roff[r] = -1;
        int64_t len = rank_len(tp, fh, r);
        if (r == fh->rank || len == 0) continue;
        if (tp->min[r].nrec == 1 && tp->recs[r][0].count == 1) continue;
        tp->roff[r] = stage;
        stage += len;
    }
    if (stage && grow(&B->rstage, &B->rstage_cap, (size_t)stage)) return nomem(op);
    for (int r = 0; r < P; r++) {
        int64_t len = rank_len(tp, fh, r);
        if (len == 0) continue;
        if (r == fh->rank) {
            io_runs_copy(1, tp->recs[r], (int)rank_nrec(tp, fh, r), B->cb, tp->lo, tp->data[tp->me]);
            continue;
        }
        const char *src;
        if (tp->roff[r] >= 0) {
            io_runs_copy(1, tp->recs[r], (int)tp->min[r].nrec, B->cb, tp->lo, B->rstage + tp->roff[r]);
            src = B->rstage + tp->roff[r];
        } else {
            src = B->cb + (tp->recs[r][0].off - tp->lo);
        }
        int err = post_send(op, &tp->agg, src, len, r, TAG_DATA);
        if (err) return err;
    }
    return 0;
}

static void bits_set(unsigned char *bm, int64_t from, int64_t len)
{
    int64_t to = from + len;
    while (from < to && (from & 7)) {
        bm[from >> 3] |= (unsigned char)(1u << (from & 7));
        from++;
    }
    if (to - from >= 8) {
        memset(bm + (from >> 3), 0xff, (size_t)((to - from) >> 3));
        from += (to - from) & ~(int64_t)7;
    }
    while (from < to) {
        bm[from >> 3] |= (unsigned char)(1u << (from & 7));
        from++;
    }
}

static void bits_records(unsigned char *bm, const io_run_t *r, int64_t n, int64_t base)
{
    for (int64_t k = 0; k < n; k++)
        for (int64_t j = 0; j < r[k].count; j++) bits_set(bm, r[k].off + j * r[k].stride - base, r[k].len);
}

/* The round's write (on the helper thread, or here): the pieces where the
 * data arrived, or the window's buffer; then, on a disk, the start of the
 * range's write-back, so that MPI_File_sync finds less to do. */
static void write_job(io_job_t *j)
{
    tp_buf_t *b = (tp_buf_t *)((char *)j - offsetof(tp_buf_t, job));
    b->err = b->niov ? io_pwritev(b->fd, b->iov, b->niov, b->lo) : io_pwrite(b->fd, b->cb, (size_t)b->span, b->lo);
    if (!b->err && b->behind) io_write_behind(b->fd, b->lo, b->span);
}

/* Is buffer set b free (its write finished)?  A write's error goes to op. */
static int buf_idle(io_op_t *op, tp_buf_t *b)
{
    if (!b->busy) return 1;
    if (!io_job_finished(&b->job)) return 0;
    b->busy = 0;
    if (b->err) set_err(op, io_errno(b->err, op->fname, "cannot write", op->fh->path));
    return 1;
}

/* The window's blocks in file order as pieces of memory where they already
 * are (this rank's data, other ranks' data as it arrived), when they tile
 * the span [lo, hi) exactly: the write then needs no copy into the window's
 * buffer.  Returns 0 (nothing built) when they do not tile it or when the
 * pieces would be too short for one pwritev each (io_cb_iov_min). */
static int build_iov(io_op_t *op, tp_buf_t *B)
{
    struct io_tp *tp = op->tp;
    cr_file_t *fh = op->fh;
    int64_t min = (int64_t)ut_settings.io_cb_iov_min;
    if (min <= 0 || tp->nblk <= 0 || tp->sum / tp->nblk < min) return 0;
    if ((size_t)tp->nblk > B->iov_cap) {
        struct iovec *v = realloc(B->iov, (size_t)tp->nblk * sizeof *v);
        if (!v) return 0;
        B->iov = v;
        B->iov_cap = (size_t)tp->nblk;
    }
    /* this rank's packed data must outlive the round: the buffer set keeps it */
    char *mine = tp->data[tp->me];
    if (mine && mine == tp->stage[tp->me]) {
        char *p = B->own;
        size_t c = B->own_cap;
        B->own = tp->stage[tp->me];
        B->own_cap = tp->stage_cap[tp->me];
        tp->stage[tp->me] = p;
        tp->stage_cap[tp->me] = c;
    }
    int nc = 0;
    for (int r = 0; r < fh->size; r++) {
        int64_t n = rank_nrec(tp, fh, r);
        if (n == 0) continue;
        cursor_t *c = &tp->cursor[nc++];
        c->rec = tp->recs[r];
        c->n = n;
        c->k = c->j = 0;
        c->off = c->rec[0].off;
        c->src = r == fh->rank ? mine : tp->roff[r] >= 0 ? B->rstage + tp->roff[r] : B->cb + (c->off - tp->lo);
    }
    int niov = 0, last = 0;
    for (int64_t at = tp->lo; at < tp->hi;) {
        int i = -1;
        /* round-robin patterns find the next block at the next rank */
        for (int s = 1; s <= nc; s++) {
            int q = (last + s) % nc;
            if (tp->cursor[q].off == at) {
                i = q;
                break;
            }
        }
        if (i < 0) return 0;   /* a hole or an overlap */
        cursor_t *c = &tp->cursor[i];
        const io_run_t *r = &c->rec[c->k];
        if (niov > 0 && (const char *)B->iov[niov - 1].iov_base + B->iov[niov - 1].iov_len == c->src)
            B->iov[niov - 1].iov_len += (size_t)r->len;
        else
            B->iov[niov++] = (struct iovec){ .iov_base = (void *)c->src, .iov_len = (size_t)r->len };
        at += r->len;
        c->src += r->len;
        if (++c->j == r->count) {
            c->j = 0;
            c->k++;
        }
        c->off = c->k < c->n ? c->rec[c->k].off + c->j * c->rec[c->k].stride : INT64_MIN;
        last = i;
    }
    B->niov = niov;
    return 1;
}

/* Data arrived: the window's write, from where the data lies or after
 * copying it into the window's buffer. */
static int agg_write(io_op_t *op)
{
    struct io_tp *tp = op->tp;
    cr_file_t *fh = op->fh;
    tp_buf_t *B = &tp->buf[tp->cur];
    int64_t span = tp->hi - tp->lo;
    B->niov = 0;
    if (!tp->verify || !build_iov(op, B)) {
        if (tp->verify) {
            size_t nb = (size_t)(span + 7) / 8;
            if (grow((char **)&tp->bm, &tp->bm_cap, nb)) return nomem(op);
            memset(tp->bm, 0, nb);
        }
        for (int r = 0; r < fh->size; r++) {
            int64_t n = rank_nrec(tp, fh, r);
            if (n == 0) continue;
            const char *src = r == fh->rank ? tp->data[tp->me] : tp->roff[r] >= 0 ? B->rstage + tp->roff[r] : NULL;
            if (src) io_runs_copy(0, tp->recs[r], (int)n, B->cb, tp->lo, (char *)src);
            if (tp->verify) bits_records(tp->bm, tp->recs[r], n, tp->lo);
        }
        if (tp->verify) {
            /* every byte written?  Else fill the holes from the file (the
             * bitmap is checked a word at a time: it is span / 8 bytes) */
            int64_t full = span / 8, k = 0;
            int holes = 0;
            for (uint64_t w; k + 8 <= full && !holes; k += 8) {
                memcpy(&w, tp->bm + k, 8);
                holes = w != UINT64_MAX;
            }
            for (; k < full && !holes; k++)
                if (tp->bm[k] != 0xff) holes = 1;
            for (int64_t b = full * 8; b < span && !holes; b++)
                if (!(tp->bm[b >> 3] & (1u << (b & 7)))) holes = 1;
            if (holes) {
                if (grow(&tp->tmp, &tp->tmp_cap, (size_t)span)) return nomem(op);
                size_t got;
                int e = io_pread(fh->fd, tp->tmp, (size_t)span, tp->lo, &got);
                if (e) return io_errno(e, op->fname, "cannot read (collective buffering)", fh->path);
                if ((int64_t)got < span) memset(tp->tmp + got, 0, (size_t)(span - (int64_t)got));
                for (int64_t b = 0; b < span; b++)
                    if (!(tp->bm[b >> 3] & (1u << (b & 7)))) B->cb[b] = tp->tmp[b];
            }
        }
    }
    B->job.run = write_job;
    B->fd = fh->fd;
    B->lo = tp->lo;
    B->span = span;
    B->err = 0;
    B->behind = fh->fs != IO_FS_TMPFS && ut_settings.io_write_behind;
    B->busy = 1;
    if (tp->overlap) io_job_submit(&B->job);
    else io_job_run(&B->job);
    return 0;
}

/* The round's own data arrived (reads): unpack what went through a stage. */
static void rank_unpack(io_op_t *op)
{
    struct io_tp *tp = op->tp;
    for (int i = 0; i < tp->naggr; i++)
        if (tp->len[i] > 0 && tp->stage[i] && tp->data[i] == tp->stage[i])
            io_mem_unpack(&op->x, tp->p0[i] - op->x.vpos, tp->len[i], tp->data[i]);
}

int io_tp_advance(io_op_t *op)
{
    struct io_tp *tp = op->tp;
    if (!tp) return 1;
    for (;;) {
        int err = 0;
        switch (tp->rstate) {
        case R_START:
            if (tp->t >= tp->ntimes) {
                if (!buf_idle(op, &tp->buf[0]) || !buf_idle(op, &tp->buf[1])) return 0;
                if (tp->write && !op->err) op->x.done = op->x.n;
                return 1;
            }
            tp->cur = tp->overlap ? (int)(tp->t & 1) : 0;
            err = round_start(op);
            tp->rstate = tp->me >= 0 ? R_META : R_SENDS;
            break;
        case R_META:
            if (!reqs_done(&tp->agg, &err)) return 0;
            if (!err) err = agg_records(op);
            tp->rstate = R_RECS;
            break;
        case R_RECS:
            if (!buf_idle(op, &tp->buf[tp->cur])) return 0;   /* its write two rounds ago */
            if (!reqs_done(&tp->agg, &err)) return 0;
            if (!err) err = agg_plan(op);
            tp->rstate = R_DATA;
            break;
        case R_DATA:
            if (!reqs_done(&tp->agg, &err)) return 0;
            if (!err && tp->write && tp->sum > 0 && !op->err) err = agg_write(op);
            tp->rstate = R_SENDS;
            break;
        case R_SENDS:
            if (!reqs_done(&tp->mine, &err)) return 0;
            if (!err && !tp->write) rank_unpack(op);
            tp->t++;
            tp->rstate = R_START;
            break;
        }
        set_err(op, err);
    }
}
