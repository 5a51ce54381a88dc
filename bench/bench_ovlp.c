/* SPDX-License-Identifier: MIT */
/* mpibench overlap mode: how much of a non-blocking operation's time a rank
 * can hide behind computation, measured the way OSU's non-blocking
 * benchmarks (osu_iallreduce, osu_ialltoall, osu_ibcast) define it, in our
 * own code and with the suite's sampling (bench.h).
 *
 * Operations (all ranks take part): isendrecv (each rank MPI_Irecv's from its
 * left neighbour and MPI_Isend's to its right one, a ring; at 2 ranks an
 * exchange both ways), iallreduce and ireduce (MPI_SUM of MPI_INT, root 0),
 * ialltoall and iallgather (the size is the block per rank pair), ibcast
 * (root 0).  For every size, after one checked run (post, compute, wait,
 * every byte verified), each sample times three phases of `iters`
 * iterations each, the ranks starting every phase together:
 *   pure     post; wait                              -> t_pure
 *   compute  compute(units), no MPI call             -> t_compute
 *   overlap  post; compute(units); wait              -> t_total, and the
 *            time spent inside compute()             -> t_compute_in
 * `units` is calibrated once per size so that compute() lasts about t_pure:
 * from this rank's compute rate, then scaled by the warm-up sample's
 * t_pure / t_compute (the slowest rank's).  Per sample, each time is the
 * slowest rank's (MPI_Allreduce MAX), per operation, and
 *   overlap        = 100 * (1 - (t_total - t_compute_in) / t_pure), in [0, 100]
 *                    (OSU: the computation as measured during the overlapped
 *                    run, so a progress thread that takes CPU time from the
 *                    computation is not charged for it);
 *   overlap_strict = 100 * (1 - (t_total - t_compute) / t_pure), in [0, 100]
 *                    (the computation as it runs alone: what the application
 *                    really gains, progress thread's CPU time included);
 *   total_over_pure = t_total / t_pure (1: all of the communication hidden,
 *                    2: none).
 * The medians over the samples are reported, with the overlap's min and max. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_OVLP = 31, SALT_RING = 800, SALT_A2A = 900, SALT_BCAST = 1000, SALT_AG = 1100 };
/* most requests one operation posts (isendrecv: a receive and a send) */
#define OVLP_MAX_REQS 2
/* the computation in the checked run, seconds */
#define OVLP_CHECK_COMPUTE_S 1e-3
/* calibration of the compute rate: runs of at least this long, best of this many */
#define OVLP_RATE_MIN_S 5e-3
#define OVLP_RATE_RUNS 3

typedef struct {
    const char *name;
    int reduction;          /* sizes must be multiples of sizeof(int) */
    void (*bufsize)(const bench_ctx_t *c, size_t *s, size_t *r);
    /* start the operation into reqs; *n: how many requests */
    int (*post)(bench_ctx_t *c, MPI_Request *reqs, int *n);
    /* before the checked run: the send data, the receive buffer cleared */
    void (*fill)(bench_ctx_t *c);
    /* after it: wrong bytes (or elements) this rank received */
    long (*verify)(const bench_ctx_t *c);
} ovlp_op_t;

#define W MPI_COMM_WORLD

static int left(const bench_ctx_t *c) { return (c->o->rank + c->o->np - 1) % c->o->np; }
static int right(const bench_ctx_t *c) { return (c->o->rank + 1) % c->o->np; }
static size_t nint(const bench_ctx_t *c) { return c->bytes / sizeof(int); }
static char *blk(char *b, const bench_ctx_t *c, int i) { return b + (size_t)i * c->bytes; }

static void same_bufsize(const bench_ctx_t *c, size_t *s, size_t *r) { *s = *r = c->bytes; }
static void blocks_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = *r = c->bytes * (size_t)c->o->np;
}
static void gather_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = c->bytes;
    *r = c->bytes * (size_t)c->o->np;
}

/* ---- isendrecv: a ring of rendezvous-sized (or any) messages ---- */
static int ring_post(bench_ctx_t *c, MPI_Request *q, int *n)
{
    int cnt = (int)c->bytes;
    *n = 2;
    int rc = MPI_Irecv(c->rbuf, cnt, MPI_BYTE, left(c), TAG_OVLP, W, &q[0]);
    if (rc != MPI_SUCCESS) {
        *n = 0;
        return rc;
    }
    rc = MPI_Isend(c->sbuf, cnt, MPI_BYTE, right(c), TAG_OVLP, W, &q[1]);
    if (rc != MPI_SUCCESS)
        *n = 1;
    return rc;
}
static void ring_fill(bench_ctx_t *c)
{
    bench_fill(c->sbuf, c->bytes, bench_seed(c->o->rank, c->bytes, SALT_RING));
    memset(c->rbuf, 0x5a, c->rbuf_len);
}
static long ring_verify(const bench_ctx_t *c)
{
    return bench_verify(c->rbuf, c->bytes, bench_seed(left(c), c->bytes, SALT_RING));
}

/* ---- iallreduce / ireduce: MPI_SUM of MPI_INT, exact ---- */
static int red_elem(int rank, size_t k) { return (rank + 1) * 3 + (int)(k % 997); }
static int red_total(int np, size_t k) { return 3 * np * (np + 1) / 2 + np * (int)(k % 997); }
static void red_fill(bench_ctx_t *c)
{
    int *in = (int *)c->sbuf;
    for (size_t k = 0; k < nint(c); k++)
        in[k] = red_elem(c->o->rank, k);
    memset(c->rbuf, 0x5a, c->rbuf_len);
}
static long red_check(const bench_ctx_t *c)
{
    const int *out = (const int *)c->rbuf;
    long bad = 0;
    for (size_t k = 0; k < nint(c); k++)
        bad += out[k] != red_total(c->o->np, k);
    return bad;
}
static int allreduce_post(bench_ctx_t *c, MPI_Request *q, int *n)
{
    *n = 1;
    return MPI_Iallreduce(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM, W, q);
}
static int reduce_post(bench_ctx_t *c, MPI_Request *q, int *n)
{
    *n = 1;
    return MPI_Ireduce(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM, 0, W, q);
}
static long reduce_verify(const bench_ctx_t *c)
{
    return c->o->rank == 0 ? red_check(c) : 0;
}

/* ---- ialltoall: the block from rank s to rank d carries seed(s, bytes, SALT_A2A + d) ---- */
static int alltoall_post(bench_ctx_t *c, MPI_Request *q, int *n)
{
    int cnt = (int)c->bytes;
    *n = 1;
    return MPI_Ialltoall(c->sbuf, cnt, MPI_BYTE, c->rbuf, cnt, MPI_BYTE, W, q);
}
static void alltoall_fill(bench_ctx_t *c)
{
    for (int d = 0; d < c->o->np; d++)
        bench_fill(blk(c->sbuf, c, d), c->bytes, bench_seed(c->o->rank, c->bytes, SALT_A2A + d));
    memset(c->rbuf, 0x5a, c->rbuf_len);
}
static long alltoall_verify(const bench_ctx_t *c)
{
    long bad = 0;
    for (int s = 0; s < c->o->np; s++)
        bad += bench_verify(blk(c->rbuf, c, s), c->bytes, bench_seed(s, c->bytes, SALT_A2A + c->o->rank));
    return bad;
}

/* ---- iallgather ---- */
static int allgather_post(bench_ctx_t *c, MPI_Request *q, int *n)
{
    int cnt = (int)c->bytes;
    *n = 1;
    return MPI_Iallgather(c->sbuf, cnt, MPI_BYTE, c->rbuf, cnt, MPI_BYTE, W, q);
}
static void allgather_fill(bench_ctx_t *c)
{
    bench_fill(c->sbuf, c->bytes, bench_seed(c->o->rank, c->bytes, SALT_AG));
    memset(c->rbuf, 0x5a, c->rbuf_len);
}
static long allgather_verify(const bench_ctx_t *c)
{
    long bad = 0;
    for (int s = 0; s < c->o->np; s++)
        bad += bench_verify(blk(c->rbuf, c, s), c->bytes, bench_seed(s, c->bytes, SALT_AG));
    return bad;
}

/* ---- ibcast: root 0, in sbuf ---- */
static int bcast_post(bench_ctx_t *c, MPI_Request *q, int *n)
{
    *n = 1;
    return MPI_Ibcast(c->sbuf, (int)c->bytes, MPI_BYTE, 0, W, q);
}
static void bcast_fill(bench_ctx_t *c)
{
    if (c->o->rank == 0)
        bench_fill(c->sbuf, c->bytes, bench_seed(0, c->bytes, SALT_BCAST));
    else
        memset(c->sbuf, 0x5a, c->sbuf_len);
}
static long bcast_verify(const bench_ctx_t *c)
{
    return bench_verify(c->sbuf, c->bytes, bench_seed(0, c->bytes, SALT_BCAST));
}

static const ovlp_op_t ops[] = {
    { "isendrecv", 0, same_bufsize, ring_post, ring_fill, ring_verify },
    { "iallreduce", 1, same_bufsize, allreduce_post, red_fill, red_check },
    { "ialltoall", 0, blocks_bufsize, alltoall_post, alltoall_fill, alltoall_verify },
    { "ibcast", 0, same_bufsize, bcast_post, bcast_fill, bcast_verify },
    { "iallgather", 0, gather_bufsize, allgather_post, allgather_fill, allgather_verify },
    { "ireduce", 1, same_bufsize, reduce_post, red_fill, reduce_verify },
};
const int bench_n_ovlp_ops = (int)(sizeof ops / sizeof ops[0]);

const char *bench_ovlp_name(int i)
{
    return ops[i].name;
}

int bench_ovlp_find(const char *name)
{
    for (int i = 0; i < bench_n_ovlp_ops; i++)
        if (!strcmp(name, ops[i].name))
            return i;
    return -1;
}

/* ---- the computation --------------------------------------------------------
 * A chain of dependent floating-point operations: no memory traffic (it does
 * not compete with the copies for memory bandwidth), no MPI call, and the
 * compiler cannot shorten it.  One unit is one step. */
static volatile double compute_sink;
static double units_per_s;

static void compute(long units)
{
    double x = 1.0 + compute_sink * 1e-300;
    for (long i = 0; i < units; i++)
        x = x * 0.999999999 + 1e-9;
    compute_sink = x;
}

/* This rank's compute rate: the best of a few runs of OVLP_RATE_MIN_S. */
static double compute_rate(void)
{
    long n = 1000;
    double dt;
    for (;;) {
        double t0 = MPI_Wtime();
        compute(n);
        dt = MPI_Wtime() - t0;
        if (dt >= OVLP_RATE_MIN_S)
            break;
        n *= 2;
    }
    double best = (double)n / dt;
    for (int i = 1; i < OVLP_RATE_RUNS; i++) {
        double t0 = MPI_Wtime();
        compute(n);
        dt = MPI_Wtime() - t0;
        if (dt > 0 && (double)n / dt > best)
            best = (double)n / dt;
    }
    return best;
}

static long units_for(double secs)
{
    double u = secs * units_per_s;
    return u < 1.0 ? 1 : (long)u;
}

/* ---- the phases (this rank's seconds) ---------------------------------------- */

static int post_wait(bench_ctx_t *c, const ovlp_op_t *op, long units, double *comp)
{
    MPI_Request q[OVLP_MAX_REQS];
    int n = 0;
    int rc = op->post(c, q, &n);
    if (units > 0 && rc == MPI_SUCCESS) {
        double t0 = MPI_Wtime();
        compute(units);
        *comp += MPI_Wtime() - t0;
    }
    if (n > 0) {
        int rc2 = MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    return rc;
}

/* iters x (post; [compute(units);] wait): total seconds, and into *comp the
 * seconds inside compute() */
static int run_ops(bench_ctx_t *c, const ovlp_op_t *op, long units, long iters, double *secs,
                   double *comp)
{
    int rc = MPI_SUCCESS;
    *comp = 0.0;
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = post_wait(c, op, units, comp);
    *secs = MPI_Wtime() - t0;
    return rc;
}

typedef struct {
    double pure, comp, total, comp_in;   /* seconds per operation, slowest rank */
} ovlp_sample_t;

/* One sample: the three phases of iters iterations, each started by all
 * ranks together; units == 0 (on every rank alike): the pure phase only.
 * Returns 1 when some rank saw an MPI error (its text in c->errbuf). */
static int sample(bench_ctx_t *c, const ovlp_op_t *op, long units, long iters, ovlp_sample_t *s)
{
    double mine[5] = { 0, 0, 0, 0, 0 }, all[5], ignore;
    int rc;
    MPI_Barrier(W);
    rc = run_ops(c, op, 0, iters, &mine[0], &ignore);
    if (units > 0) {
        /* the barriers even after an error, so that the ranks stay in step */
        MPI_Barrier(W);
        double t0 = MPI_Wtime();
        for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
            compute(units);
        mine[1] = MPI_Wtime() - t0;
        MPI_Barrier(W);
        if (rc == MPI_SUCCESS)
            rc = run_ops(c, op, units, iters, &mine[2], &mine[3]);
    }
    if (rc != MPI_SUCCESS)
        bench_mpi_err(c, rc, op->name);
    mine[4] = rc != MPI_SUCCESS;
    MPI_Allreduce(mine, all, 5, MPI_DOUBLE, MPI_MAX, W);
    s->pure = all[0] / (double)iters;
    s->comp = all[1] / (double)iters;
    s->total = all[2] / (double)iters;
    s->comp_in = all[3] / (double)iters;
    return all[4] != 0.0;
}

static double clamp_pct(double x)
{
    return x < 0.0 ? 0.0 : x > 100.0 ? 100.0 : x;
}

static double overlap_pct(double total, double comp, double pure)
{
    return pure > 0.0 ? clamp_pct(100.0 * (1.0 - (total - comp) / pure)) : 0.0;
}

/* ---- output ------------------------------------------------------------------ */

typedef struct {
    double pure, comp, comp_in, total, ovl, ovl_min, ovl_max, strict, ratio;
} ovlp_result_t;

static void out_title(const bench_opts_t *o, const ovlp_op_t *op)
{
    if (o->rank != 0 || o->fmt != FMT_TABLE)
        return;
    printf("\n# overlap: %s (np=%d; times per operation in us, slowest rank; overlap %% as OSU, "
           "strict: against the computation alone)\n", op->name, o->np);
    printf("%10s %11s %11s %11s %11s %8s %8s %8s %8s %6s\n", "bytes", "t_pure", "t_compute",
           "t_comp_in", "t_total", "overlap", "min", "strict", "tot/pure", "check");
}

static void out_result(const bench_opts_t *o, const ovlp_op_t *op, size_t bytes, long iters, int ns,
                       long units, const ovlp_result_t *r, long bad)
{
    const char *chk = bad ? "FAIL" : "ok";
    if (o->rank != 0)
        return;
    if (o->fmt == FMT_JSON)
        printf("{\"test\":\"overlap\",\"op\":\"%s\",\"group\":\"overlap\",\"np\":%d,\"bytes\":%zu,"
               "\"iters\":%ld,\"samples\":%d,\"units\":%ld,\"unit\":\"us\",\"t_pure\":%.6g,"
               "\"t_compute\":%.6g,\"t_compute_in\":%.6g,\"t_total\":%.6g,\"overlap\":%.4g,"
               "\"overlap_min\":%.4g,\"overlap_max\":%.4g,\"overlap_strict\":%.4g,"
               "\"total_over_pure\":%.4g,\"check\":\"%s\"}\n",
               op->name, o->np, bytes, iters, ns, units, r->pure, r->comp, r->comp_in, r->total, r->ovl,
               r->ovl_min, r->ovl_max, r->strict, r->ratio, chk);
    else if (o->fmt == FMT_CSV)
        printf("overlap,%s,%d,%zu,%ld,%d,%.6g,%.6g,%.6g,%.6g,%.4g,%.4g,%.4g,%.4g,%.4g,%s,\n", op->name,
               o->np, bytes, iters, ns, r->pure, r->comp, r->comp_in, r->total, r->ovl, r->ovl_min,
               r->ovl_max, r->strict, r->ratio, chk);
    else
        printf("%10zu %11.2f %11.2f %11.2f %11.2f %8.1f %8.1f %8.1f %8.3f %6s\n", bytes, r->pure,
               r->comp, r->comp_in, r->total, r->ovl, r->ovl_min, r->strict, r->ratio, chk);
    fflush(stdout);
}

static void out_error(const bench_opts_t *o, const ovlp_op_t *op, size_t bytes, const char *err)
{
    if (o->rank != 0)
        return;
    if (o->fmt == FMT_JSON)
        printf("{\"test\":\"overlap\",\"op\":\"%s\",\"group\":\"overlap\",\"np\":%d,\"bytes\":%zu,"
               "\"error\":\"%s\"}\n", op->name, o->np, bytes, err);
    else if (o->fmt == FMT_CSV)
        printf("overlap,%s,%d,%zu,,,,,,,,,,,,,%s\n", op->name, o->np, bytes, err);
    else
        printf("%10zu  n/a (error: %s)\n", bytes, err);
    fflush(stdout);
}

void bench_ovlp_csv_header(void)
{
    printf("test,op,np,bytes,iters,samples,t_pure_us,t_compute_us,t_compute_in_us,t_total_us,"
           "overlap,overlap_min,overlap_max,overlap_strict,total_over_pure,check,error\n");
}

/* ---- one operation at every size --------------------------------------------- */

/* The checked run: post, compute, wait, every byte verified; the worst
 * rank's count of wrong bytes, or -1 when some rank saw an MPI error. */
static long checked_run(bench_ctx_t *c, const ovlp_op_t *op)
{
    double comp = 0.0;
    op->fill(c);
    int rc = post_wait(c, op, units_for(OVLP_CHECK_COMPUTE_S), &comp);
    long bad = rc != MPI_SUCCESS ? -1 : op->verify(c);
    if (rc != MPI_SUCCESS)
        bench_mpi_err(c, rc, op->name);
    long mine[2] = { bad < 0, bad > 0 ? bad : 0 }, worst[2];
    MPI_Allreduce(mine, worst, 2, MPI_LONG, MPI_MAX, W);
    return worst[0] ? -1 : worst[1];
}

int bench_ovlp_run(bench_opts_t *o, int which)
{
    const ovlp_op_t *op = &ops[which];
    int ns_max = o->samples > 0 ? o->samples : 1;
    double *v[7];
    for (int k = 0; k < 7; k++)
        v[k] = malloc(sizeof(double) * (size_t)ns_max);
    if (units_per_s == 0.0)
        units_per_s = compute_rate();
    out_title(o, op);
    int failed = 0;
    for (int si = 0; si < o->nsizes && !failed; si++) {
        bench_ctx_t c;
        memset(&c, 0, sizeof c);
        c.o = o;
        c.bytes = o->sizes[si];
        c.window = 1;
        if ((op->reduction && c.bytes % sizeof(int)) || c.bytes > (size_t)0x7fffffff)
            continue;
        if (o->progress && o->rank == 0)
            fprintf(stderr, "mpibench: overlap %s %zu B (%d/%d)\n", op->name, c.bytes, si + 1, o->nsizes);
        op->bufsize(&c, &c.sbuf_len, &c.rbuf_len);
        c.sbuf = bench_alloc(c.sbuf_len);
        c.rbuf = bench_alloc(c.rbuf_len);

        /* 1. one checked run */
        long bad = checked_run(&c, op);
        ovlp_sample_t s = { 0, 0, 0, 0 };
        int err = bad < 0;

        /* 2. calibration (not in smoke mode): the pure phase's iterations
         * doubled until a run takes a tenth of a sample, the iterations per
         * sample sized from that; then the computation sized to t_pure and one
         * whole sample run and discarded, and the computation sized again
         * from that sample's t_pure */
        long k = 1, iters = o->max_iters;
        while (!err && !o->smoke) {
            if ((err = sample(&c, op, 0, k, &s)))
                break;
            if (s.pure * (double)k >= o->sample_time / 10.0 || k >= o->max_iters)
                break;
            k *= 2;
        }
        if (!err && !o->smoke) {
            double want = o->sample_time / (s.pure > 1e-9 ? s.pure : 1e-9);
            iters = want > (double)o->max_iters ? o->max_iters : want < 1.0 ? 1 : (long)want;
        } else if (!err) {
            err = sample(&c, op, 0, iters, &s);
        }
        long units = units_for(s.pure);
        if (!err && !o->smoke && !(err = sample(&c, op, units, iters, &s)) && s.comp > 0.0) {
            /* the warm-up's computation lasted s.comp (the slowest rank's):
             * scale it to that sample's t_pure */
            double u = (double)units * s.pure / s.comp;
            units = u < 1.0 ? 1 : (long)u;
        }

        /* 3. the samples */
        int ns = 0;
        for (int i = 0; i < o->samples && !err; i++) {
            if ((err = sample(&c, op, units, iters, &s)))
                break;
            v[0][ns] = s.pure * 1e6;
            v[1][ns] = s.comp * 1e6;
            v[2][ns] = s.comp_in * 1e6;
            v[3][ns] = s.total * 1e6;
            v[4][ns] = overlap_pct(s.total, s.comp_in, s.pure);
            v[5][ns] = overlap_pct(s.total, s.comp, s.pure);
            v[6][ns] = s.pure > 0.0 ? s.total / s.pure : 0.0;
            ns++;
        }
        if (err) {
            bench_share_text(c.errbuf, (int)sizeof c.errbuf, c.errbuf[0] != 0);
            out_error(o, op, c.bytes, c.errbuf);
            failed = 1;
        } else {
            ovlp_result_t r;
            r.pure = bench_median(v[0], ns);
            r.comp = bench_median(v[1], ns);
            r.comp_in = bench_median(v[2], ns);
            r.total = bench_median(v[3], ns);
            r.ovl = bench_median(v[4], ns);   /* sorts v[4] */
            r.ovl_min = v[4][0];
            r.ovl_max = v[4][ns - 1];
            r.strict = bench_median(v[5], ns);
            r.ratio = bench_median(v[6], ns);
            out_result(o, op, c.bytes, iters, ns, units, &r, bad);
            if (bad) {
                o->errors++;
                if (o->rank == 0)
                    fprintf(stderr, "mpibench: overlap %s %zu B: received data is wrong (%ld bytes at "
                            "the worst rank)\n", op->name, c.bytes, bad);
            }
        }
        free(c.sbuf);
        free(c.rbuf);
    }
    for (int k = 0; k < 7; k++)
        free(v[k]);
    return failed;
}
