/* SPDX-License-Identifier: MIT */
/* mpibench collective tests on MPI_COMM_WORLD.  The size is the block each
 * rank contributes or receives: bcast and reduce move `bytes`, gather and
 * scatter move `bytes` per rank (np*bytes at the root), allgather and alltoall
 * np*bytes per rank, reduce_scatter reduces np*bytes and leaves `bytes` at
 * each rank.  Movement uses MPI_BYTE; reductions MPI_INT with MPI_SUM (exact,
 * so results can be checked).  Roots are rank 0.  The timed loop issues the
 * operations back to back, as OSU does; a sample's time is the slowest rank's.
 *
 * Group icoll: the non-blocking forms' latency, each iteration MPI_Ixxx then
 * MPI_Wait with nothing between (ibarrier, ibcast, ireduce, iallreduce,
 * igather, iallgather), checked like the blocking ones; and the persistent
 * forms (pbcast, pallreduce: MPI_Xxx_init once per sample, then MPI_Start +
 * MPI_Wait per iteration). */
#include "bench.h"

#include <string.h>

/* Element k of rank r's contribution to a reduction, and the expected sum. */
static int red_in(int r, size_t k) { return r * 1000 + (int)(k & 0xffff); }
static int red_sum(int np, size_t k) { return 1000 * (np * (np - 1) / 2) + np * (int)(k & 0xffff); }

static size_t nint(const bench_ctx_t *c) { return c->bytes / sizeof(int); }

#define TIMED(call)                                                                            \
    do {                                                                                       \
        int rc_ = MPI_SUCCESS;                                                                 \
        double t0_ = MPI_Wtime();                                                              \
        for (long i_ = 0; i_ < iters && rc_ == MPI_SUCCESS; i_++)                              \
            rc_ = (call);                                                                      \
        *secs = MPI_Wtime() - t0_;                                                             \
        return rc_;                                                                            \
    } while (0)

#define W MPI_COMM_WORLD

static double coll_value(const bench_ctx_t *c, double secs, long iters)
{
    return secs * 1e6 / (double)iters;
}

/* ---- barrier ---- */
static void barrier_bufsize(const bench_ctx_t *c, size_t *s, size_t *r) { *s = *r = 0; }
static int barrier_run(bench_ctx_t *c, long iters, double *secs) { TIMED(MPI_Barrier(W)); }
static long barrier_check(bench_ctx_t *c)
{
    return bench_mpi_err(c, MPI_Barrier(W), "MPI_Barrier") ? -1 : 0;
}

/* ---- bcast ---- */
static void bcast_bufsize(const bench_ctx_t *c, size_t *s, size_t *r) { *s = *r = c->bytes; }
static int bcast_run(bench_ctx_t *c, long iters, double *secs)
{
    TIMED(MPI_Bcast(c->sbuf, (int)c->bytes, MPI_BYTE, 0, W));
}
static long bcast_check(bench_ctx_t *c)
{
    unsigned seed = bench_seed(0, c->bytes, 300);
    if (c->o->rank == 0)
        bench_fill(c->sbuf, c->bytes, seed);
    else
        memset(c->sbuf, 0x5a, c->bytes);
    if (bench_mpi_err(c, MPI_Bcast(c->sbuf, (int)c->bytes, MPI_BYTE, 0, W), "MPI_Bcast"))
        return -1;
    return bench_verify(c->sbuf, c->bytes, seed);
}

/* ---- reduce / allreduce ---- */
static void red_bufsize(const bench_ctx_t *c, size_t *s, size_t *r) { *s = *r = c->bytes; }
static void red_fill(bench_ctx_t *c, size_t n, size_t first)
{
    int *in = (int *)c->sbuf;
    for (size_t k = 0; k < n; k++)
        in[k] = red_in(c->o->rank, first + k);
    memset(c->rbuf, 0x5a, n * sizeof(int));
}
static long red_verify(const bench_ctx_t *c, size_t n, size_t first)
{
    const int *out = (const int *)c->rbuf;
    long bad = 0;
    for (size_t k = 0; k < n; k++)
        bad += out[k] != red_sum(c->o->np, first + k);
    return bad;
}
#define reduce_bufsize red_bufsize
#define allreduce_bufsize red_bufsize
static int reduce_run(bench_ctx_t *c, long iters, double *secs)
{
    TIMED(MPI_Reduce(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM, 0, W));
}
static long reduce_check(bench_ctx_t *c)
{
    red_fill(c, nint(c), 0);
    if (bench_mpi_err(c, MPI_Reduce(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM, 0, W), "MPI_Reduce"))
        return -1;
    return c->o->rank == 0 ? red_verify(c, nint(c), 0) : 0;
}
static int allreduce_run(bench_ctx_t *c, long iters, double *secs)
{
    TIMED(MPI_Allreduce(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM, W));
}
static long allreduce_check(bench_ctx_t *c)
{
    red_fill(c, nint(c), 0);
    if (bench_mpi_err(c, MPI_Allreduce(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM, W), "MPI_Allreduce"))
        return -1;
    return red_verify(c, nint(c), 0);
}

/* ---- reduce_scatter: np blocks of `bytes` reduced, block r left at rank r ---- */
static void rs_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = c->bytes * (size_t)c->o->np;
    *r = c->bytes;
}
#define reduce_scatter_bufsize rs_bufsize
static int rs_call(bench_ctx_t *c)
{
    int counts[c->o->np];
    for (int i = 0; i < c->o->np; i++)
        counts[i] = (int)nint(c);
    return MPI_Reduce_scatter(c->sbuf, c->rbuf, counts, MPI_INT, MPI_SUM, W);
}
static int reduce_scatter_run(bench_ctx_t *c, long iters, double *secs) { TIMED(rs_call(c)); }
static long reduce_scatter_check(bench_ctx_t *c)
{
    size_t n = nint(c);
    int *in = (int *)c->sbuf;
    for (size_t k = 0; k < n * (size_t)c->o->np; k++)
        in[k] = red_in(c->o->rank, k);
    memset(c->rbuf, 0x5a, c->bytes);
    if (bench_mpi_err(c, rs_call(c), "MPI_Reduce_scatter"))
        return -1;
    return red_verify(c, n, n * (size_t)c->o->rank);
}

/* ---- gather / scatter / allgather / alltoall ---- */
static char *blk(char *b, const bench_ctx_t *c, int i) { return b + (size_t)i * c->bytes; }

static void gather_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = c->bytes;
    *r = c->bytes * (size_t)c->o->np;
}
#define allgather_bufsize gather_bufsize
static void scatter_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = c->bytes * (size_t)c->o->np;
    *r = c->bytes;
}
static void alltoall_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = *r = c->bytes * (size_t)c->o->np;
}

static int gather_run(bench_ctx_t *c, long iters, double *secs)
{
    int n = (int)c->bytes;
    TIMED(MPI_Gather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, 0, W));
}
static long gather_check(bench_ctx_t *c)
{
    int n = (int)c->bytes;
    long bad = 0;
    bench_fill(c->sbuf, c->bytes, bench_seed(c->o->rank, c->bytes, 400));
    memset(c->rbuf, 0x5a, c->rbuf_len);
    if (bench_mpi_err(c, MPI_Gather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, 0, W), "MPI_Gather"))
        return -1;
    if (c->o->rank == 0)
        for (int i = 0; i < c->o->np; i++)
            bad += bench_verify(blk(c->rbuf, c, i), c->bytes, bench_seed(i, c->bytes, 400));
    return bad;
}

static int scatter_run(bench_ctx_t *c, long iters, double *secs)
{
    int n = (int)c->bytes;
    TIMED(MPI_Scatter(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, 0, W));
}
static long scatter_check(bench_ctx_t *c)
{
    int n = (int)c->bytes;
    if (c->o->rank == 0)
        for (int i = 0; i < c->o->np; i++)
            bench_fill(blk(c->sbuf, c, i), c->bytes, bench_seed(i, c->bytes, 500));
    memset(c->rbuf, 0x5a, c->bytes);
    if (bench_mpi_err(c, MPI_Scatter(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, 0, W), "MPI_Scatter"))
        return -1;
    return bench_verify(c->rbuf, c->bytes, bench_seed(c->o->rank, c->bytes, 500));
}

static int allgather_run(bench_ctx_t *c, long iters, double *secs)
{
    int n = (int)c->bytes;
    TIMED(MPI_Allgather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, W));
}
static long allgather_check(bench_ctx_t *c)
{
    int n = (int)c->bytes;
    long bad = 0;
    bench_fill(c->sbuf, c->bytes, bench_seed(c->o->rank, c->bytes, 600));
    memset(c->rbuf, 0x5a, c->rbuf_len);
    if (bench_mpi_err(c, MPI_Allgather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, W), "MPI_Allgather"))
        return -1;
    for (int i = 0; i < c->o->np; i++)
        bad += bench_verify(blk(c->rbuf, c, i), c->bytes, bench_seed(i, c->bytes, 600));
    return bad;
}

static int alltoall_run(bench_ctx_t *c, long iters, double *secs)
{
    int n = (int)c->bytes;
    TIMED(MPI_Alltoall(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, W));
}
static long alltoall_check(bench_ctx_t *c)
{
    int n = (int)c->bytes, me = c->o->rank, np = c->o->np;
    long bad = 0;
    /* the block from rank s to rank d carries seed(s, bytes, 700 + d) */
    for (int d = 0; d < np; d++)
        bench_fill(blk(c->sbuf, c, d), c->bytes, bench_seed(me, c->bytes, 700 + d));
    memset(c->rbuf, 0x5a, c->rbuf_len);
    if (bench_mpi_err(c, MPI_Alltoall(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, W), "MPI_Alltoall"))
        return -1;
    for (int s = 0; s < np; s++)
        bad += bench_verify(blk(c->rbuf, c, s), c->bytes, bench_seed(s, c->bytes, 700 + me));
    return bad;
}

/* ---- the non-blocking forms: start + wait ---- */
static int wait1(int rc, MPI_Request *r)
{
    return rc == MPI_SUCCESS ? MPI_Wait(r, MPI_STATUS_IGNORE) : rc;
}
#define ITIMED(start)                                                                         \
    do {                                                                                       \
        MPI_Request r_;                                                                        \
        TIMED(wait1((start), &r_));                                                            \
    } while (0)
static int ibarrier_run(bench_ctx_t *c, long iters, double *secs) { ITIMED(MPI_Ibarrier(W, &r_)); }
static int ibcast_run(bench_ctx_t *c, long iters, double *secs)
{
    ITIMED(MPI_Ibcast(c->sbuf, (int)c->bytes, MPI_BYTE, 0, W, &r_));
}
static int ireduce_run(bench_ctx_t *c, long iters, double *secs)
{
    ITIMED(MPI_Ireduce(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM, 0, W, &r_));
}
static int iallreduce_run(bench_ctx_t *c, long iters, double *secs)
{
    ITIMED(MPI_Iallreduce(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM, W, &r_));
}
static int igather_run(bench_ctx_t *c, long iters, double *secs)
{
    int n = (int)c->bytes;
    ITIMED(MPI_Igather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, 0, W, &r_));
}
static int iallgather_run(bench_ctx_t *c, long iters, double *secs)
{
    int n = (int)c->bytes;
    ITIMED(MPI_Iallgather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, W, &r_));
}
/* persistent: set up per sample (collective: every rank runs the same samples).
 * MPI 4.0 procedures: an MPI of an older version (Open MPI 4.1) builds without them. */
#if MPI_VERSION >= 4
static int pstart_loop(MPI_Request *r, long iters, double *secs)
{
    int rc = MPI_SUCCESS;
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++) {
        rc = MPI_Start(r);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(r, MPI_STATUS_IGNORE);
    }
    *secs = MPI_Wtime() - t0;
    int rf = MPI_Request_free(r);
    return rc != MPI_SUCCESS ? rc : rf;
}
static int pbcast_run(bench_ctx_t *c, long iters, double *secs)
{
    MPI_Request r;
    int rc = MPI_Bcast_init(c->sbuf, (int)c->bytes, MPI_BYTE, 0, W, MPI_INFO_NULL, &r);
    return rc != MPI_SUCCESS ? rc : pstart_loop(&r, iters, secs);
}
static int pallreduce_run(bench_ctx_t *c, long iters, double *secs)
{
    MPI_Request r;
    int rc = MPI_Allreduce_init(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM, W,
                                MPI_INFO_NULL, &r);
    return rc != MPI_SUCCESS ? rc : pstart_loop(&r, iters, secs);
}
#endif
/* the checks: one non-blocking call, then the blocking form's verification */
static long ibarrier_check(bench_ctx_t *c)
{
    MPI_Request r;
    return bench_mpi_err(c, wait1(MPI_Ibarrier(W, &r), &r), "MPI_Ibarrier") ? -1 : 0;
}
static long ibcast_check(bench_ctx_t *c)
{
    unsigned seed = bench_seed(0, c->bytes, 310);
    MPI_Request r;
    if (c->o->rank == 0)
        bench_fill(c->sbuf, c->bytes, seed);
    else
        memset(c->sbuf, 0x5a, c->bytes);
    if (bench_mpi_err(c, wait1(MPI_Ibcast(c->sbuf, (int)c->bytes, MPI_BYTE, 0, W, &r), &r),
                      "MPI_Ibcast"))
        return -1;
    return bench_verify(c->sbuf, c->bytes, seed);
}
static long ireduce_check(bench_ctx_t *c)
{
    MPI_Request r;
    red_fill(c, nint(c), 0);
    if (bench_mpi_err(c, wait1(MPI_Ireduce(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM, 0,
                                           W, &r), &r), "MPI_Ireduce"))
        return -1;
    return c->o->rank == 0 ? red_verify(c, nint(c), 0) : 0;
}
static long iallreduce_check(bench_ctx_t *c)
{
    MPI_Request r;
    red_fill(c, nint(c), 0);
    if (bench_mpi_err(c, wait1(MPI_Iallreduce(c->sbuf, c->rbuf, (int)nint(c), MPI_INT, MPI_SUM,
                                              W, &r), &r), "MPI_Iallreduce"))
        return -1;
    return red_verify(c, nint(c), 0);
}
static long igather_check(bench_ctx_t *c)
{
    int n = (int)c->bytes;
    long bad = 0;
    MPI_Request r;
    bench_fill(c->sbuf, c->bytes, bench_seed(c->o->rank, c->bytes, 410));
    memset(c->rbuf, 0x5a, c->rbuf_len);
    if (bench_mpi_err(c, wait1(MPI_Igather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, 0, W, &r),
                               &r), "MPI_Igather"))
        return -1;
    if (c->o->rank == 0)
        for (int i = 0; i < c->o->np; i++)
            bad += bench_verify(blk(c->rbuf, c, i), c->bytes, bench_seed(i, c->bytes, 410));
    return bad;
}
static long iallgather_check(bench_ctx_t *c)
{
    int n = (int)c->bytes;
    long bad = 0;
    MPI_Request r;
    bench_fill(c->sbuf, c->bytes, bench_seed(c->o->rank, c->bytes, 610));
    memset(c->rbuf, 0x5a, c->rbuf_len);
    if (bench_mpi_err(c, wait1(MPI_Iallgather(c->sbuf, n, MPI_BYTE, c->rbuf, n, MPI_BYTE, W, &r),
                               &r), "MPI_Iallgather"))
        return -1;
    for (int i = 0; i < c->o->np; i++)
        bad += bench_verify(blk(c->rbuf, c, i), c->bytes, bench_seed(i, c->bytes, 610));
    return bad;
}
#define pbcast_check ibcast_check
#define pallreduce_check iallreduce_check
#define ibarrier_bufsize barrier_bufsize
#define ibcast_bufsize bcast_bufsize
#define pbcast_bufsize bcast_bufsize
#define ireduce_bufsize red_bufsize
#define iallreduce_bufsize red_bufsize
#define pallreduce_bufsize red_bufsize
#define igather_bufsize gather_bufsize
#define iallgather_bufsize gather_bufsize

#define COLL(n, red, sl, fn)                                                                  \
    { .name = #n, .group = "coll", .metric = METRIC_LAT, .min_np = 1, .reduction = red,       \
      .sizeless = sl, .bufsize = fn##_bufsize, .run = fn##_run, .check = fn##_check,           \
      .value = coll_value }
const bench_test_t bench_coll_tests[] = {
    COLL(barrier, 0, 1, barrier),
    COLL(bcast, 0, 0, bcast),
    COLL(reduce, 1, 0, reduce),
    COLL(allreduce, 1, 0, allreduce),
    COLL(gather, 0, 0, gather),
    COLL(scatter, 0, 0, scatter),
    COLL(allgather, 0, 0, allgather),
    COLL(alltoall, 0, 0, alltoall),
    COLL(reduce_scatter, 1, 0, reduce_scatter),
};
const int bench_n_coll_tests = (int)(sizeof bench_coll_tests / sizeof bench_coll_tests[0]);

#define ICOLL(n, red, sl) \
    { .name = #n, .group = "icoll", .metric = METRIC_LAT, .min_np = 1, .reduction = red,      \
      .sizeless = sl, .bufsize = n##_bufsize, .run = n##_run, .check = n##_check,              \
      .value = coll_value }
const bench_test_t bench_icoll_tests[] = {
    ICOLL(ibarrier, 0, 1),   ICOLL(ibcast, 0, 0),  ICOLL(ireduce, 1, 0),
    ICOLL(iallreduce, 1, 0), ICOLL(igather, 0, 0), ICOLL(iallgather, 0, 0),
#if MPI_VERSION >= 4
    ICOLL(pbcast, 0, 0),     ICOLL(pallreduce, 1, 0),
#endif
};
const int bench_n_icoll_tests = (int)(sizeof bench_icoll_tests / sizeof bench_icoll_tests[0]);
