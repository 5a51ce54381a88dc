/* SPDX-License-Identifier: MIT */
/* mpibench point-to-point tests: latency (ping-pong), bandwidth (a window of
 * non-blocking sends, then a zero-byte acknowledgement), bidirectional
 * bandwidth (both ranks send a window at once), and the multi-pair message
 * rate (ranks 0..P-1 each stream windows to rank i+P).  The two-rank tests use
 * ranks 0 and 1; any other rank waits. */
#include "bench.h"

#include <string.h>

enum { TAG_PING = 11, TAG_PONG = 12, TAG_DATA = 13, TAG_ACK = 14 };

#define BENCH_MAX_WINDOW 1024

/* ---- latency ------------------------------------------------------------ */

static void lat_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = *r = c->bytes;
}

static int lat_run(bench_ctx_t *c, long iters, double *secs)
{
    int me = c->o->rank, rc = MPI_SUCCESS;
    int n = (int)c->bytes;
    double t0 = MPI_Wtime();
    *secs = 0.0;
    if (me == 0) {
        for (long i = 0; i < iters && rc == MPI_SUCCESS; i++) {
            rc = MPI_Send(c->sbuf, n, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(c->rbuf, n, MPI_BYTE, 1, TAG_PONG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (me == 1) {
        for (long i = 0; i < iters && rc == MPI_SUCCESS; i++) {
            rc = MPI_Recv(c->rbuf, n, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(c->sbuf, n, MPI_BYTE, 0, TAG_PONG, MPI_COMM_WORLD);
        }
    } else {
        return MPI_SUCCESS;
    }
    *secs = MPI_Wtime() - t0;
    return rc;
}

/* Receive one message of c->bytes from `src` and check its pattern, size and
 * envelope. */
static long recv_checked(bench_ctx_t *c, char *buf, int src, int tag, unsigned seed)
{
    MPI_Status st;
    int count = -1;
    memset(buf, 0x5a, c->bytes);
    int rc = MPI_Recv(buf, (int)c->bytes, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st);
    if (bench_mpi_err(c, rc, "MPI_Recv"))
        return -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    long bad = bench_verify(buf, c->bytes, seed);
    if (count != (int)c->bytes || st.MPI_SOURCE != src || st.MPI_TAG != tag)
        bad++;
    return bad;
}

static long lat_check(bench_ctx_t *c)
{
    int me = c->o->rank;
    long bad = 0;
    if (me > 1)
        return 0;
    bench_fill(c->sbuf, c->bytes, bench_seed(me, c->bytes, 1));
    if (me == 0) {
        int rc = MPI_Send(c->sbuf, (int)c->bytes, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
        if (bench_mpi_err(c, rc, "MPI_Send"))
            return -1;
        bad = recv_checked(c, c->rbuf, 1, TAG_PONG, bench_seed(1, c->bytes, 1));
    } else {
        bad = recv_checked(c, c->rbuf, 0, TAG_PING, bench_seed(0, c->bytes, 1));
        if (bad < 0)
            return -1;
        int rc = MPI_Send(c->sbuf, (int)c->bytes, MPI_BYTE, 0, TAG_PONG, MPI_COMM_WORLD);
        if (bench_mpi_err(c, rc, "MPI_Send"))
            return -1;
    }
    return bad;
}

static double lat_value(const bench_ctx_t *c, double secs, long iters)
{
    return secs * 1e6 / (2.0 * (double)iters);
}

/* ---- windows of non-blocking sends --------------------------------------- */

static void win_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = *r = c->bytes * (size_t)c->window;
}

/* Sender side of one window: `window` sends of the same buffer (or of
 * distinct slots when `slots`), then wait for the receiver's zero-byte ack. */
static int win_send(bench_ctx_t *c, int peer, int slots)
{
    MPI_Request req[BENCH_MAX_WINDOW];
    int n = (int)c->bytes, rc;
    for (int w = 0; w < c->window; w++) {
        rc = MPI_Isend(c->sbuf + (slots ? (size_t)w * c->bytes : 0), n, MPI_BYTE, peer, TAG_DATA,
                       MPI_COMM_WORLD, &req[w]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    rc = MPI_Waitall(c->window, req, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Receiver side: `window` receives into distinct slots, then the ack. */
static int win_recv(bench_ctx_t *c, int peer)
{
    MPI_Request req[BENCH_MAX_WINDOW];
    int n = (int)c->bytes, rc;
    for (int w = 0; w < c->window; w++) {
        rc = MPI_Irecv(c->rbuf + (size_t)w * c->bytes, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                       &req[w]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    rc = MPI_Waitall(c->window, req, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
}

/* Pairs for a streaming test: ranks 0..P-1 send to rank+P.  `pairs` 1 gives
 * the two-rank bandwidth test. */
static int stream_run(bench_ctx_t *c, long iters, double *secs, int pairs)
{
    int me = c->o->rank, rc = MPI_SUCCESS;
    double t0 = MPI_Wtime();
    *secs = 0.0;
    if (me < pairs) {
        for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
            rc = win_send(c, me + pairs, 0);
    } else if (me < 2 * pairs) {
        for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
            rc = win_recv(c, me - pairs);
    } else {
        return MPI_SUCCESS;
    }
    *secs = MPI_Wtime() - t0;
    return rc;
}

static long stream_check(bench_ctx_t *c, int pairs)
{
    int me = c->o->rank;
    if (me < pairs) {
        for (int w = 0; w < c->window; w++)
            bench_fill(c->sbuf + (size_t)w * c->bytes, c->bytes, bench_seed(me, c->bytes, 100 + w));
        return bench_mpi_err(c, win_send(c, me + pairs, 1), "window of MPI_Isend") ? -1 : 0;
    }
    if (me < 2 * pairs) {
        memset(c->rbuf, 0x5a, c->bytes * (size_t)c->window);
        if (bench_mpi_err(c, win_recv(c, me - pairs), "window of MPI_Irecv"))
            return -1;
        long bad = 0;
        for (int w = 0; w < c->window; w++)
            bad += bench_verify(c->rbuf + (size_t)w * c->bytes, c->bytes,
                                bench_seed(me - pairs, c->bytes, 100 + w));
        return bad;
    }
    return 0;
}

static int bw_run(bench_ctx_t *c, long iters, double *secs) { return stream_run(c, iters, secs, 1); }
static long bw_check(bench_ctx_t *c) { return stream_check(c, 1); }

static double bw_value(const bench_ctx_t *c, double secs, long iters)
{
    return (double)c->bytes * c->window * (double)iters / secs / 1e6;
}

static int mr_pairs(const bench_ctx_t *c) { return c->o->np / 2; }
static int mr_run(bench_ctx_t *c, long iters, double *secs)
{
    return stream_run(c, iters, secs, mr_pairs(c));
}
static long mr_check(bench_ctx_t *c) { return stream_check(c, mr_pairs(c)); }

static double mr_value(const bench_ctx_t *c, double secs, long iters)
{
    return (double)mr_pairs(c) * c->window * (double)iters / secs;
}

/* ---- bidirectional bandwidth ---------------------------------------------- */

static int bibw_once(bench_ctx_t *c, int peer, int slots)
{
    MPI_Request req[2 * BENCH_MAX_WINDOW];
    int n = (int)c->bytes, rc;
    for (int w = 0; w < c->window; w++) {
        rc = MPI_Irecv(c->rbuf + (size_t)w * c->bytes, n, MPI_BYTE, peer, TAG_DATA, MPI_COMM_WORLD,
                       &req[w]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int w = 0; w < c->window; w++) {
        rc = MPI_Isend(c->sbuf + (slots ? (size_t)w * c->bytes : 0), n, MPI_BYTE, peer, TAG_DATA,
                       MPI_COMM_WORLD, &req[c->window + w]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_Waitall(2 * c->window, req, MPI_STATUSES_IGNORE);
}

static int bibw_run(bench_ctx_t *c, long iters, double *secs)
{
    int me = c->o->rank, rc = MPI_SUCCESS;
    double t0 = MPI_Wtime();
    *secs = 0.0;
    if (me > 1)
        return MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = bibw_once(c, 1 - me, 0);
    *secs = MPI_Wtime() - t0;
    return rc;
}

static long bibw_check(bench_ctx_t *c)
{
    int me = c->o->rank;
    long bad = 0;
    if (me > 1)
        return 0;
    for (int w = 0; w < c->window; w++)
        bench_fill(c->sbuf + (size_t)w * c->bytes, c->bytes, bench_seed(me, c->bytes, 200 + w));
    memset(c->rbuf, 0x5a, c->bytes * (size_t)c->window);
    if (bench_mpi_err(c, bibw_once(c, 1 - me, 1), "MPI_Irecv/MPI_Isend/MPI_Waitall"))
        return -1;
    for (int w = 0; w < c->window; w++)
        bad += bench_verify(c->rbuf + (size_t)w * c->bytes, c->bytes, bench_seed(1 - me, c->bytes, 200 + w));
    return bad;
}

static double bibw_value(const bench_ctx_t *c, double secs, long iters)
{
    return 2.0 * (double)c->bytes * c->window * (double)iters / secs / 1e6;
}

#define P2P(n, m, win, fn)                                                                   \
    { .name = n, .group = "pt2pt", .metric = m, .min_np = 2, .windowed = win,                 \
      .bufsize = fn##_bufsize, .run = fn##_run, .check = fn##_check, .value = fn##_value }
#define mr_bufsize win_bufsize
#define bw_bufsize win_bufsize
#define bibw_bufsize win_bufsize
const bench_test_t bench_p2p_tests[] = {
    P2P("latency", METRIC_LAT, 0, lat),
    P2P("bw", METRIC_BW, 1, bw),
    P2P("bibw", METRIC_BW, 1, bibw),
    P2P("msgrate", METRIC_RATE, 1, mr),
};
const int bench_n_p2p_tests = (int)(sizeof bench_p2p_tests / sizeof bench_p2p_tests[0]);
