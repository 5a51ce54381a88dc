/* SPDX-License-Identifier: MIT */
/* mpibench multi-threaded point-to-point tests (group "thread"): T threads
 * per rank (--threads, default 2), thread t of rank 0 paired with thread t of
 * rank 1; the other ranks wait.
 *
 *   latency_mt          every pair ping-pongs on a communicator of its own
 *                       (duplicates of MPI_COMM_WORLD, one per thread), as
 *                       OSU's osu_latency_mt; the figure is the time per
 *                       one-way message of the slowest pair
 *   msgrate_mt          every pair streams windows of non-blocking sends on
 *                       its own communicator (a window of MPI_Isend, then a
 *                       zero-byte acknowledgement, as bw/msgrate); the figure
 *                       is the messages per second of all pairs together
 *   msgrate_mt_shared   the same on one communicator shared by all threads,
 *                       each pair with a tag of its own; the communicator is
 *                       made with the MPI 4 hint mpi_assert_no_any_tag, which
 *                       an MPI may use to keep the tags apart (Courier spreads
 *                       them over its channels; others ignore it)
 *   allreduce_mt        every thread of every rank runs MPI_Allreduce (MPI_MAX
 *                       of unsigned chars) on its own communicator; the
 *                       figure is the time per call of the slowest thread
 *                       (collectives on distinct communicators, which MPI
 *                       lets threads run at once: docs/threads.md)
 *
 * The tests need MPI_THREAD_MULTIPLE: mpibench asks for it when one of them
 * is named, and they stop with an error record when it is not provided.
 * Threads are pthreads, started for every kernel run and timed from a
 * pthread barrier, each by itself: a run's time is its slowest thread's.
 * Every thread of a run uses its own slice of the send and receive buffers
 * and its own requests; the threads share nothing else of the benchmark. */
#include "bench.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MT_MAX_WINDOW 1024

int bench_mt_threads = 2;

static MPI_Comm own_comm[BENCH_MT_MAX_THREADS];
static MPI_Comm shared_comm = MPI_COMM_NULL;
static int comms_made;

/* Which test: the kernel and the communicator of thread t. */
enum { MT_LAT, MT_RATE, MT_ALLRED };
typedef struct {
    int kind;
    int shared;
} mt_kind_t;

/* One thread's part of a kernel run or of the verified exchange. */
typedef struct {
    bench_ctx_t *c;
    mt_kind_t k;         /* the test's, looked up once per run */
    int t;               /* thread index */
    long iters;
    int check;           /* the verified exchange instead of the kernel */
    pthread_barrier_t *bar;
    double secs;
    int rc;
    long bad;
    char err[MPI_MAX_ERROR_STRING + 64];
} mt_thr_t;

static mt_kind_t kind_of(const bench_ctx_t *c)
{
    mt_kind_t k = { MT_RATE, 0 };
    if (!strcmp(c->t->name, "latency_mt"))
        k.kind = MT_LAT;
    else if (!strcmp(c->t->name, "allreduce_mt"))
        k.kind = MT_ALLRED;
    else if (!strcmp(c->t->name, "msgrate_mt_shared"))
        k.shared = 1;
    return k;
}

/* Thread t's communicator and tag: its own duplicate with tag 1, or the
 * shared one with tag 1 + t.  Data, replies and acknowledgements of a pair
 * all use this one tag (they go in opposite directions or in turn), so an
 * MPI that picks a stream by (communicator, tag) keeps a pair on one stream. */
static MPI_Comm comm_of(const mt_thr_t *a, int *tag)
{
    if (a->k.shared) {
        *tag = 1 + a->t;
        return shared_comm;
    }
    *tag = 1;
    return own_comm[a->t];
}

/* Bytes of one thread's slice of a buffer (bench_alloc aligns the buffer to a page). */
static size_t slice(const bench_ctx_t *c)
{
    size_t n = kind_of(c).kind != MT_RATE ? c->bytes : c->bytes * (size_t)c->window;
    /* rounded up so that no two threads' slices share a cache line (or the
     * pair of lines an adjacent-line prefetcher fetches together) */
    return (n + 255) / 256 * 256 + 256;
}

static void mt_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = *r = slice(c) * (size_t)bench_mt_threads;
}

static unsigned mt_seed(int rank, const bench_ctx_t *c, int t, int w)
{
    return bench_seed(rank, c->bytes, 300 + 1031 * t + w);
}

static int err_text(mt_thr_t *a, int rc, const char *what)
{
    return bench_err_text(a->err, sizeof a->err, rc, what);
}

/* ---- the kernels, one thread's part ------------------------------------------ */

static int lat_thread(mt_thr_t *a, char *sb, char *rb)
{
    bench_ctx_t *c = a->c;
    int tag, me = c->o->rank, n = (int)c->bytes, rc = MPI_SUCCESS;
    MPI_Comm comm = comm_of(a, &tag);
    for (long i = 0; i < a->iters && rc == MPI_SUCCESS; i++) {
        if (me == 0) {
            rc = MPI_Send(sb, n, MPI_BYTE, 1, tag, comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(rb, n, MPI_BYTE, 1, tag, comm, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Recv(rb, n, MPI_BYTE, 0, tag, comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(sb, n, MPI_BYTE, 0, tag, comm);
        }
    }
    if (rc != MPI_SUCCESS)
        err_text(a, rc, "MPI_Send/MPI_Recv");
    return rc;
}

static int allred_thread(mt_thr_t *a, char *sb, char *rb)
{
    int tag, n = (int)a->c->bytes, rc = MPI_SUCCESS;
    MPI_Comm comm = comm_of(a, &tag);
    for (long i = 0; i < a->iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Allreduce(sb, rb, n, MPI_UNSIGNED_CHAR, MPI_MAX, comm);
    if (rc != MPI_SUCCESS)
        err_text(a, rc, "MPI_Allreduce");
    return rc;
}

/* One window: rank 0 sends `window` messages (from distinct slots when
 * `slots`) and waits for the acknowledgement; rank 1 receives them into
 * distinct slots and acknowledges. */
static int rate_window(mt_thr_t *a, char *sb, char *rb, int slots, MPI_Request *req)
{
    bench_ctx_t *c = a->c;
    int tag, n = (int)c->bytes, rc = MPI_SUCCESS;
    MPI_Comm comm = comm_of(a, &tag);
    if (c->o->rank == 0) {
        for (int w = 0; w < c->window && rc == MPI_SUCCESS; w++)
            rc = MPI_Isend(sb + (slots ? (size_t)w * c->bytes : 0), n, MPI_BYTE, 1, tag, comm, &req[w]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Waitall(c->window, req, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(NULL, 0, MPI_BYTE, 1, tag, comm, MPI_STATUS_IGNORE);
    } else {
        for (int w = 0; w < c->window && rc == MPI_SUCCESS; w++)
            rc = MPI_Irecv(rb + (size_t)w * c->bytes, n, MPI_BYTE, 0, tag, comm, &req[w]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Waitall(c->window, req, MPI_STATUSES_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Send(NULL, 0, MPI_BYTE, 0, tag, comm);
    }
    if (rc != MPI_SUCCESS)
        err_text(a, rc, "window of MPI_Isend/MPI_Irecv");
    return rc;
}

/* The verified exchange of thread t: patterned data one way (rate) or both
 * ways (latency), every byte, the size and the envelope checked. */
static void check_thread(mt_thr_t *a, char *sb, char *rb, MPI_Request *req)
{
    bench_ctx_t *c = a->c;
    int me = c->o->rank, other = 1 - me, tag;
    MPI_Comm comm = comm_of(a, &tag);
    if (a->k.kind == MT_ALLRED) {
        /* every byte the largest of the ranks' patterned bytes */
        bench_fill(sb, c->bytes, mt_seed(me, c, a->t, 0));
        memset(rb, 0x5a, c->bytes);
        a->rc = MPI_Allreduce(sb, rb, (int)c->bytes, MPI_UNSIGNED_CHAR, MPI_MAX, comm);
        if (err_text(a, a->rc, "MPI_Allreduce"))
            return;
        unsigned char *want = calloc(c->bytes ? c->bytes : 1, 1), *one = malloc(c->bytes ? c->bytes : 1);
        for (int r = 0; r < c->o->np; r++) {
            bench_fill((char *)one, c->bytes, mt_seed(r, c, a->t, 0));
            for (size_t i = 0; i < c->bytes; i++)
                if (one[i] > want[i]) want[i] = one[i];
        }
        for (size_t i = 0; i < c->bytes; i++)
            a->bad += (unsigned char)rb[i] != want[i];
        free(want);
        free(one);
        return;
    }
    if (a->k.kind == MT_LAT) {
        MPI_Status st;
        int count = -1;
        bench_fill(sb, c->bytes, mt_seed(me, c, a->t, 0));
        memset(rb, 0x5a, c->bytes);
        if (me == 0) {
            a->rc = MPI_Send(sb, (int)c->bytes, MPI_BYTE, 1, tag, comm);
            if (a->rc == MPI_SUCCESS)
                a->rc = MPI_Recv(rb, (int)c->bytes, MPI_BYTE, 1, tag, comm, &st);
        } else {
            a->rc = MPI_Recv(rb, (int)c->bytes, MPI_BYTE, 0, tag, comm, &st);
            if (a->rc == MPI_SUCCESS)
                a->rc = MPI_Send(sb, (int)c->bytes, MPI_BYTE, 0, tag, comm);
        }
        if (err_text(a, a->rc, "MPI_Send/MPI_Recv"))
            return;
        MPI_Get_count(&st, MPI_BYTE, &count);
        a->bad = bench_verify(rb, c->bytes, mt_seed(other, c, a->t, 0));
        if (count != (int)c->bytes || st.MPI_SOURCE != other || st.MPI_TAG != tag)
            a->bad++;
        return;
    }
    if (me == 0)
        for (int w = 0; w < c->window; w++)
            bench_fill(sb + (size_t)w * c->bytes, c->bytes, mt_seed(0, c, a->t, w));
    else
        memset(rb, 0x5a, c->bytes * (size_t)c->window);
    a->rc = rate_window(a, sb, rb, 1, req);
    if (a->rc != MPI_SUCCESS || me == 0)
        return;
    for (int w = 0; w < c->window; w++)
        a->bad += bench_verify(rb + (size_t)w * c->bytes, c->bytes, mt_seed(0, c, a->t, w));
}

static void *thread_main(void *p)
{
    mt_thr_t *a = p;
    bench_ctx_t *c = a->c;
    char *sb = c->sbuf + (size_t)a->t * slice(c), *rb = c->rbuf + (size_t)a->t * slice(c);
    MPI_Request *req = malloc(sizeof(MPI_Request) * MT_MAX_WINDOW);
    pthread_barrier_wait(a->bar);
    if (a->check) {
        check_thread(a, sb, rb, req);
        free(req);
        return NULL;
    }
    double t0 = MPI_Wtime();
    if (a->k.kind == MT_LAT) {
        a->rc = lat_thread(a, sb, rb);
    } else if (a->k.kind == MT_ALLRED) {
        a->rc = allred_thread(a, sb, rb);
    } else {
        a->rc = MPI_SUCCESS;
        for (long i = 0; i < a->iters && a->rc == MPI_SUCCESS; i++)
            a->rc = rate_window(a, sb, rb, 0, req);
    }
    a->secs = MPI_Wtime() - t0;
    free(req);
    return NULL;
}

/* ---- set-up, and running the threads ---------------------------------------- */

/* Collective over MPI_COMM_WORLD (every rank calls the check of every size):
 * the first call makes the communicators.  0, or -1 with the text in c->errbuf. */
static int setup(bench_ctx_t *c)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Query_thread(&provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        snprintf(c->errbuf, sizeof c->errbuf,
                 "%s needs MPI_THREAD_MULTIPLE; the MPI provided level %d (MPI_THREAD_MULTIPLE is %d)",
                 c->t->name, provided, MPI_THREAD_MULTIPLE);
        return -1;
    }
    if (c->window > MT_MAX_WINDOW) {
        snprintf(c->errbuf, sizeof c->errbuf, "window over %d", MT_MAX_WINDOW);
        return -1;
    }
    if (comms_made)
        return 0;
    for (int t = 0; t < bench_mt_threads; t++)
        if (bench_mpi_err(c, MPI_Comm_dup(MPI_COMM_WORLD, &own_comm[t]), "MPI_Comm_dup"))
            return -1;
    MPI_Info info;
    MPI_Info_create(&info);
    /* no_any_tag only: an MPI that also spread by source (Courier does with
     * mpi_assert_no_any_source) would put a pair's acknowledgements, which
     * come from the other rank, on the next pair's stream */
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    int rc = MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &shared_comm);
    MPI_Info_free(&info);
    if (bench_mpi_err(c, rc, "MPI_Comm_dup_with_info"))
        return -1;
    for (int t = 0; t < bench_mt_threads; t++)
        MPI_Comm_set_errhandler(own_comm[t], MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(shared_comm, MPI_ERRORS_RETURN);
    comms_made = 1;
    return 0;
}

void bench_mt_free(void)
{
    if (!comms_made)
        return;
    for (int t = 0; t < bench_mt_threads; t++)
        MPI_Comm_free(&own_comm[t]);
    MPI_Comm_free(&shared_comm);
    comms_made = 0;
}

/* Starts the threads, joins them; the first error's text goes to c->errbuf.
 * Returns the first MPI error code (or MPI_SUCCESS). */
static int run_threads(bench_ctx_t *c, long iters, int check, double *secs, long *bad)
{
    int nt = bench_mt_threads, rc = MPI_SUCCESS;
    mt_thr_t *a = calloc((size_t)nt, sizeof *a);
    pthread_t *th = malloc(sizeof(pthread_t) * (size_t)nt);
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, (unsigned)nt);
    *secs = 0.0;
    *bad = 0;
    int started = 0;
    for (int t = 0; t < nt; t++) {
        a[t] = (mt_thr_t){ .c = c, .k = kind_of(c), .t = t, .iters = iters, .check = check, .bar = &bar };
        if (pthread_create(&th[t], NULL, thread_main, &a[t]) != 0)
            break;
        started++;
    }
    if (started < nt) {
        /* a barrier that will never fill: nothing can be run; should not happen */
        fprintf(stderr, "mpibench: pthread_create failed\n");
        abort();
    }
    for (int t = 0; t < nt; t++) {
        pthread_join(th[t], NULL);
        if (a[t].secs > *secs)
            *secs = a[t].secs;
        *bad += a[t].bad;
        if (a[t].rc != MPI_SUCCESS && rc == MPI_SUCCESS) {
            rc = a[t].rc;
            snprintf(c->errbuf, sizeof c->errbuf, "thread %d: %s", t, a[t].err);
        }
    }
    pthread_barrier_destroy(&bar);
    free(th);
    free(a);
    return rc;
}

static int mt_run(bench_ctx_t *c, long iters, double *secs)
{
    long bad;
    *secs = 0.0;
    if (c->o->rank > 1 && kind_of(c).kind != MT_ALLRED)   /* a collective: every rank */
        return MPI_SUCCESS;
    return run_threads(c, iters, 0, secs, &bad);
}

static long mt_check(bench_ctx_t *c)
{
    if (setup(c))
        return -1;
    if (c->o->rank > 1 && kind_of(c).kind != MT_ALLRED)
        return 0;
    double secs;
    long bad;
    if (run_threads(c, 1, 1, &secs, &bad) != MPI_SUCCESS)
        return -1;
    return bad;
}

static double lat_value(const bench_ctx_t *c, double secs, long iters)
{
    return secs * 1e6 / (2.0 * (double)iters);
}

static double call_value(const bench_ctx_t *c, double secs, long iters)
{
    return secs * 1e6 / (double)iters;
}

static double rate_value(const bench_ctx_t *c, double secs, long iters)
{
    return (double)bench_mt_threads * c->window * (double)iters / secs;
}

#define MT(n, m, win, val)                                                                     \
    { .name = n, .group = "thread", .metric = m, .min_np = 2, .windowed = win,                  \
      .bufsize = mt_bufsize, .run = mt_run, .check = mt_check, .value = val }
const bench_test_t bench_mt_tests[] = {
    MT("latency_mt", METRIC_LAT, 0, lat_value),
    MT("msgrate_mt", METRIC_RATE, 1, rate_value),
    MT("msgrate_mt_shared", METRIC_RATE, 1, rate_value),
    MT("allreduce_mt", METRIC_LAT, 0, call_value),
};
const int bench_n_mt_tests = (int)(sizeof bench_mt_tests / sizeof bench_mt_tests[0]);
