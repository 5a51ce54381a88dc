/* SPDX-License-Identifier: MIT */
/* mpibench one-sided tests (group rma), in the manner of OSU's one-sided
 * benchmarks, at 2 ranks (issue 13):
 *
 *   put_lat, get_lat   passive target: MPI_Win_lock(SHARED) once, then per
 *                      iteration one operation and MPI_Win_flush (OSU's
 *                      default, "flush"); half a round trip is not what is
 *                      timed: one operation completed at the target is
 *   put_lat_fence,     active target, OSU's fence ping-pong: rank 0 puts
 *   get_lat_fence      (gets), fence, rank 1 puts (gets), fence; time per
 *                      operation (an epoch with one operation)
 *   put_bw, get_bw     lock(SHARED) once, then per iteration a window of
 *                      operations to distinct places and one flush
 *   acc_lat            MPI_Accumulate SUM of doubles + flush
 *   get_acc_lat        MPI_Get_accumulate SUM of doubles + flush (old values fetched)
 *   fop_lat            MPI_Fetch_and_op SUM of one int64_t + flush (8 B)
 *   cas_lat            MPI_Compare_and_swap of one int64_t + flush (8 B)
 *   fence              an empty fence epoch on every rank (MPI_Win_fence)
 *   lock_unlock        an empty MPI_Win_lock(SHARED) + MPI_Win_unlock
 *   shm_store          MPI_Win_allocate_shared: rank 0 writes rank 1's
 *                      segment with plain stores, then reads it back; MB/s
 *                      of bytes stored plus bytes loaded
 *   mem_store          the same loop on rank 0's private memory, no MPI:
 *                      the memory speed shm_store is to reach
 *
 * Rank 0 is the origin and rank 1 the target (rank 0 itself with one rank);
 * other ranks only take part in the window's creation and in the fences.
 * The window comes from MPI_Win_allocate (as OSU's by default), or with
 * --win create from MPI_Win_create on memory of our own; one window per test
 * and size, made before and freed after the size's runs.  The check of every
 * test runs the same kernel as the measurement, once, on patterned data; the
 * target checks its window (puts, accumulates) or the origin what it got
 * (gets, fetches), each after a barrier and under a lock of its own window. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

static int peer_of(const bench_ctx_t *c) { return c->o->np > 1 ? 1 : 0; }
static int is_origin(const bench_ctx_t *c) { return c->o->rank == 0; }
static int is_target(const bench_ctx_t *c) { return c->o->rank == peer_of(c); }

/* ---- windows ---------------------------------------------------------------- */

/* Window lengths are rounded up to a multiple of 64 bytes: Debian's MPICH
 * 4.0.2 (ch4) places a rank's MPI_Win_allocate memory on a 16-byte boundary
 * in the node's segment but computes its peers' addresses without the
 * padding, so with lengths that are not multiples of 16 an origin reads and
 * writes the wrong bytes (a get of 8 bytes from rank 1 returns rank 0's). */
static size_t win_len(size_t len)
{
    return len < 64 ? 64 : (len + 63) / 64 * 64;
}

/* Every rank makes a window of win_len(len) bytes over MPI_COMM_WORLD. */
static int win_make(bench_ctx_t *c, size_t len)
{
    int rc;
    c->wlen = win_len(len);
    if (c->o->win_create) {
        c->wmem = bench_alloc(c->wlen);
        c->wbase = c->wmem;
        rc = MPI_Win_create(c->wbase, (MPI_Aint)c->wlen, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c->win);
    } else {
        rc = MPI_Win_allocate((MPI_Aint)c->wlen, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c->wbase, &c->win);
    }
    if (bench_mpi_err(c, rc, c->o->win_create ? "MPI_Win_create" : "MPI_Win_allocate")) {
        c->win = MPI_WIN_NULL;
        return rc;
    }
    MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN);
    return MPI_SUCCESS;
}

static void win_drop(bench_ctx_t *c)
{
    if (c->win != MPI_WIN_NULL)
        MPI_Win_free(&c->win);
    c->win = MPI_WIN_NULL;
    free(c->wmem);
    c->wmem = NULL;
    if (c->comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->comm);
    c->comm = MPI_COMM_NULL;
}

static int lat_setup(bench_ctx_t *c) { return win_make(c, c->bytes); }
static int bw_setup(bench_ctx_t *c) { return win_make(c, c->bytes * (size_t)c->window); }
static int word_setup(bench_ctx_t *c) { return win_make(c, 64); }

/* The target's own window under an exclusive lock of itself: cleared or
 * filled before a check, read after it (the origin's accesses are over). */
static int own_lock(bench_ctx_t *c)
{
    return MPI_Win_lock(MPI_LOCK_EXCLUSIVE, c->o->rank, 0, c->win);
}
static int own_unlock(bench_ctx_t *c) { return MPI_Win_unlock(c->o->rank, c->win); }

/* ---- timing helpers ------------------------------------------------------------- */

typedef int (*rma_op_fn)(bench_ctx_t *c, long i);

/* Passive target: lock(SHARED) the peer, then `iters` times op + flush. */
static int lock_flush_loop(bench_ctx_t *c, long iters, double *secs, rma_op_fn op)
{
    int peer = peer_of(c), rc;
    *secs = 0.0;
    if (!is_origin(c))
        return MPI_SUCCESS;
    rc = MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, c->win);
    if (rc != MPI_SUCCESS)
        return rc;
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++) {
        rc = op(c, i);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_flush(peer, c->win);
    }
    *secs = MPI_Wtime() - t0;
    int rc2 = MPI_Win_unlock(peer, c->win);
    return rc != MPI_SUCCESS ? rc : rc2;
}

static double lat_value(const bench_ctx_t *c, double secs, long iters)
{
    (void)c;
    return secs * 1e6 / (double)iters;
}

static double bw_value(const bench_ctx_t *c, double secs, long iters)
{
    return (double)c->bytes * c->window * (double)iters / secs / 1e6;
}

/* ---- put and get latency (lock + flush) ------------------------------------------ */

static void lat_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = *r = c->bytes;
}

static int put_op(bench_ctx_t *c, long i)
{
    (void)i;
    return MPI_Put(c->sbuf, (int)c->bytes, MPI_BYTE, peer_of(c), 0, (int)c->bytes, MPI_BYTE, c->win);
}

static int get_op(bench_ctx_t *c, long i)
{
    (void)i;
    return MPI_Get(c->rbuf, (int)c->bytes, MPI_BYTE, peer_of(c), 0, (int)c->bytes, MPI_BYTE, c->win);
}

static int put_lat_run(bench_ctx_t *c, long iters, double *secs)
{
    return lock_flush_loop(c, iters, secs, put_op);
}

static int get_lat_run(bench_ctx_t *c, long iters, double *secs)
{
    return lock_flush_loop(c, iters, secs, get_op);
}

/* Before a check: the target sets its window to `fill` (a byte, or the
 * pattern of seed `seed` when fill < 0); then everyone meets. */
static long prepare_target(bench_ctx_t *c, int fill, unsigned seed)
{
    int rc = MPI_SUCCESS;
    if (is_target(c)) {
        rc = own_lock(c);
        if (rc == MPI_SUCCESS) {
            if (fill >= 0)
                memset(c->wbase, fill, c->wlen);
            else
                bench_fill(c->wbase, c->wlen, seed);
            rc = own_unlock(c);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return bench_mpi_err(c, rc, "MPI_Win_lock/unlock of the own window") ? -1 : 0;
}

/* After the kernel: everyone meets, then the target checks `n` bytes of its
 * window at `off` against the pattern of `seed` under its own lock. */
static long verify_target(bench_ctx_t *c, size_t off, size_t n, unsigned seed)
{
    long bad = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (!is_target(c))
        return 0;
    int rc = own_lock(c);
    if (bench_mpi_err(c, rc, "MPI_Win_lock of the own window"))
        return -1;
    bad = bench_verify(c->wbase + off, n, seed);
    rc = own_unlock(c);
    return bench_mpi_err(c, rc, "MPI_Win_unlock of the own window") ? -1 : bad;
}

static long run_once(bench_ctx_t *c, long iters, const char *what)
{
    double s;
    int rc = c->t->run(c, iters, &s);
    return bench_mpi_err(c, rc, what) ? -1 : 0;
}

static long put_lat_check(bench_ctx_t *c)
{
    unsigned seed = bench_seed(0, c->bytes, 31);
    if (is_origin(c))
        bench_fill(c->sbuf, c->bytes, seed);
    if (prepare_target(c, 0x5a, 0) < 0)
        return -1;
    long e = run_once(c, 1, "MPI_Win_lock/MPI_Put/MPI_Win_flush");
    long bad = verify_target(c, 0, c->bytes, seed);
    return e < 0 ? -1 : bad;
}

static long get_lat_check(bench_ctx_t *c)
{
    unsigned seed = bench_seed(peer_of(c), c->bytes, 32);
    if (prepare_target(c, -1, seed) < 0)
        return -1;
    if (is_origin(c))
        memset(c->rbuf, 0x5a, c->bytes);
    long e = run_once(c, 1, "MPI_Win_lock/MPI_Get/MPI_Win_flush");
    MPI_Barrier(MPI_COMM_WORLD);
    if (e < 0)
        return -1;
    return is_origin(c) ? bench_verify(c->rbuf, c->bytes, seed) : 0;
}

/* ---- put and get latency (fence ping-pong) ---------------------------------------- */

/* rank 0 to peer, fence, peer to rank 0, fence; every rank fences */
static int fence_pp_run(bench_ctx_t *c, long iters, double *secs, int get)
{
    int me = c->o->rank, peer = peer_of(c), n = (int)c->bytes;
    int rc = MPI_Win_fence(0, c->win);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++) {
        for (int half = 0; half < 2 && rc == MPI_SUCCESS; half++) {
            int from = half == 0 ? 0 : peer, to = half == 0 ? peer : 0;
            if (me == from && get)
                rc = MPI_Get(c->rbuf, n, MPI_BYTE, to, 0, n, MPI_BYTE, c->win);
            else if (me == from)
                rc = MPI_Put(c->sbuf, n, MPI_BYTE, to, 0, n, MPI_BYTE, c->win);
            if (rc == MPI_SUCCESS)
                rc = MPI_Win_fence(0, c->win);
        }
    }
    *secs = MPI_Wtime() - t0;
    if (me > peer)
        *secs = 0.0;
    return rc;
}

static int put_fence_run(bench_ctx_t *c, long iters, double *secs) { return fence_pp_run(c, iters, secs, 0); }
static int get_fence_run(bench_ctx_t *c, long iters, double *secs) { return fence_pp_run(c, iters, secs, 1); }

static double fence_pp_value(const bench_ctx_t *c, double secs, long iters)
{
    (void)c;
    return secs * 1e6 / (2.0 * (double)iters);
}

/* The rank whose data rank r holds after a ping-pong (puts: r's window;
 * gets: r's receive buffer): rank 0's peer for rank 0, rank 0 for the peer. */
static int fence_source(const bench_ctx_t *c, int r) { return r == 0 ? peer_of(c) : 0; }

static long put_fence_check(bench_ctx_t *c)
{
    int me = c->o->rank;
    if (me > peer_of(c)) {
        long e = run_once(c, 1, "MPI_Win_fence");
        return e;
    }
    bench_fill(c->sbuf, c->bytes, bench_seed(me, c->bytes, 33));
    memset(c->wbase, 0x5a, c->wlen); /* before the first fence: no epoch is open */
    long e = run_once(c, 1, "MPI_Put/MPI_Win_fence");
    if (e < 0)
        return -1;
    /* after the closing fence the window is ours to read */
    return bench_verify(c->wbase, c->bytes, bench_seed(fence_source(c, me), c->bytes, 33));
}

static long get_fence_check(bench_ctx_t *c)
{
    int me = c->o->rank;
    if (me > peer_of(c))
        return run_once(c, 1, "MPI_Win_fence");
    bench_fill(c->wbase, c->wlen, bench_seed(me, c->bytes, 34));
    memset(c->rbuf, 0x5a, c->bytes);
    long e = run_once(c, 1, "MPI_Get/MPI_Win_fence");
    if (e < 0)
        return -1;
    return bench_verify(c->rbuf, c->bytes, bench_seed(fence_source(c, me), c->bytes, 34));
}

/* ---- put and get bandwidth ------------------------------------------------------- */

static void bw_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = *r = c->bytes * (size_t)c->window;
}

/* one window of puts (from distinct slots of sbuf when `slots`) to distinct
 * places in the target's window, then one flush */
static int put_window(bench_ctx_t *c, int slots)
{
    int n = (int)c->bytes, peer = peer_of(c), rc = MPI_SUCCESS;
    for (int w = 0; w < c->window && rc == MPI_SUCCESS; w++)
        rc = MPI_Put(c->sbuf + (slots ? (size_t)w * c->bytes : 0), n, MPI_BYTE, peer,
                     (MPI_Aint)w * (MPI_Aint)c->bytes, n, MPI_BYTE, c->win);
    return rc;
}

static int put_window_op(bench_ctx_t *c, long i) { (void)i; return put_window(c, 0); }
static int put_window_slots_op(bench_ctx_t *c, long i) { (void)i; return put_window(c, 1); }

static int get_window_op(bench_ctx_t *c, long i)
{
    int n = (int)c->bytes, peer = peer_of(c), rc = MPI_SUCCESS;
    (void)i;
    for (int w = 0; w < c->window && rc == MPI_SUCCESS; w++)
        rc = MPI_Get(c->rbuf + (size_t)w * c->bytes, n, MPI_BYTE, peer, (MPI_Aint)w * (MPI_Aint)c->bytes,
                     n, MPI_BYTE, c->win);
    return rc;
}

static int put_bw_run(bench_ctx_t *c, long iters, double *secs)
{
    return lock_flush_loop(c, iters, secs, put_window_op);
}

static int get_bw_run(bench_ctx_t *c, long iters, double *secs)
{
    return lock_flush_loop(c, iters, secs, get_window_op);
}

static long put_bw_check(bench_ctx_t *c)
{
    if (is_origin(c))
        for (int w = 0; w < c->window; w++)
            bench_fill(c->sbuf + (size_t)w * c->bytes, c->bytes, bench_seed(0, c->bytes, 300 + w));
    if (prepare_target(c, 0x5a, 0) < 0)
        return -1;
    double s;
    int rc = lock_flush_loop(c, 1, &s, put_window_slots_op);
    long e = bench_mpi_err(c, rc, "window of MPI_Put + MPI_Win_flush") ? -1 : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    long bad = 0;
    if (is_target(c)) {
        rc = own_lock(c);
        if (bench_mpi_err(c, rc, "MPI_Win_lock of the own window"))
            return -1;
        for (int w = 0; w < c->window; w++)
            bad += bench_verify(c->wbase + (size_t)w * c->bytes, c->bytes, bench_seed(0, c->bytes, 300 + w));
        if (bench_mpi_err(c, own_unlock(c), "MPI_Win_unlock of the own window"))
            return -1;
    }
    return e < 0 ? -1 : bad;
}

static long get_bw_check(bench_ctx_t *c)
{
    unsigned seed = bench_seed(peer_of(c), c->bytes, 301);
    if (prepare_target(c, -1, seed) < 0)
        return -1;
    if (is_origin(c))
        memset(c->rbuf, 0x5a, c->rbuf_len);
    long e = run_once(c, 1, "window of MPI_Get + MPI_Win_flush");
    MPI_Barrier(MPI_COMM_WORLD);
    if (e < 0 || !is_origin(c))
        return e;
    /* slot w holds bytes [w*size, (w+1)*size) of the target's window, whose
     * pattern is one run over the whole window: compare with a copy */
    char *want = bench_alloc(c->wlen);
    bench_fill(want, c->wlen, seed);
    long bad = 0;
    size_t total = c->bytes * (size_t)c->window;
    for (size_t k = 0; k < total; k++)
        bad += c->rbuf[k] != want[k];
    free(want);
    return bad;
}

/* ---- accumulates -------------------------------------------------------------- */

static void acc_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = *r = c->bytes < 8 ? 8 : c->bytes;
}

static int acc_op(bench_ctx_t *c, long i)
{
    int n = (int)(c->bytes / sizeof(double));
    (void)i;
    return MPI_Accumulate(c->sbuf, n, MPI_DOUBLE, peer_of(c), 0, n, MPI_DOUBLE, MPI_SUM, c->win);
}

static int acc_lat_run(bench_ctx_t *c, long iters, double *secs)
{
    return lock_flush_loop(c, iters, secs, acc_op);
}

/* small integers: every sum is exact */
static double acc_base(size_t k) { return (double)(k % 1000); }
static double acc_add(size_t k) { return (double)((k * 7) % 13 + 1); }

/* The target's window holds acc_base, the origin adds acc_add once (one
 * run of the job's operation + flush), then the target checks every sum;
 * with fetch (MPI_Get_accumulate), the origin also checks the old values it
 * fetched into rbuf. */
static long acc_check_sums(bench_ctx_t *c, int fetch, const char *what)
{
    size_t n = c->bytes / sizeof(double);
    double *a = (double *)(void *)c->sbuf, *old = (double *)(void *)c->rbuf;
    if (is_origin(c))
        for (size_t k = 0; k < n; k++) {
            a[k] = acc_add(k);
            if (fetch) old[k] = -1;
        }
    int rc = MPI_SUCCESS;
    if (is_target(c) && (rc = own_lock(c)) == MPI_SUCCESS) {
        double *w = (double *)(void *)c->wbase;
        for (size_t k = 0; k < n; k++)
            w[k] = acc_base(k);
        rc = own_unlock(c);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (bench_mpi_err(c, rc, "MPI_Win_lock/unlock of the own window"))
        return -1;
    long e = run_once(c, 1, what);
    MPI_Barrier(MPI_COMM_WORLD);
    if (e < 0)
        return e;
    long bad = 0;
    if (fetch && is_origin(c))
        for (size_t k = 0; k < n; k++)
            bad += old[k] != acc_base(k) ? (long)sizeof(double) : 0;
    if (!is_target(c))
        return bad;
    if (bench_mpi_err(c, own_lock(c), "MPI_Win_lock of the own window"))
        return -1;
    const double *w = (const double *)(const void *)c->wbase;
    for (size_t k = 0; k < n; k++)
        bad += w[k] != acc_base(k) + acc_add(k) ? (long)sizeof(double) : 0;
    if (bench_mpi_err(c, own_unlock(c), "MPI_Win_unlock of the own window"))
        return -1;
    return bad;
}

static long acc_lat_check(bench_ctx_t *c)
{
    return acc_check_sums(c, 0, "MPI_Accumulate + MPI_Win_flush");
}

/* MPI_Get_accumulate: acc_lat's sum, the old values into rbuf */
static int get_acc_op(bench_ctx_t *c, long i)
{
    int n = (int)(c->bytes / sizeof(double));
    (void)i;
    return MPI_Get_accumulate(c->sbuf, n, MPI_DOUBLE, c->rbuf, n, MPI_DOUBLE, peer_of(c), 0, n,
                              MPI_DOUBLE, MPI_SUM, c->win);
}

static int get_acc_lat_run(bench_ctx_t *c, long iters, double *secs)
{
    return lock_flush_loop(c, iters, secs, get_acc_op);
}

static long get_acc_lat_check(bench_ctx_t *c)
{
    return acc_check_sums(c, 1, "MPI_Get_accumulate + MPI_Win_flush");
}

/* fetch-and-op and compare-and-swap on the first int64_t of the window */
static void word_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    (void)c;
    *s = *r = 16;
}

static int fop_op(bench_ctx_t *c, long i)
{
    (void)i;
    return MPI_Fetch_and_op(c->sbuf, c->rbuf, MPI_INT64_T, peer_of(c), 0, MPI_SUM, c->win);
}

/* swap i with i+1: the target's word counts the iterations when it starts at
 * 0.  The new value and the one compared with are sbuf's two words, which
 * stay put until the flush. */
static int cas_op(bench_ctx_t *c, long i)
{
    int64_t v[2] = { (int64_t)i + 1, (int64_t)i };
    memcpy(c->sbuf, v, sizeof v);
    return MPI_Compare_and_swap(c->sbuf, c->sbuf + 8, c->rbuf, MPI_INT64_T, peer_of(c), 0, c->win);
}

static int fop_lat_run(bench_ctx_t *c, long iters, double *secs)
{
    int64_t one = 1;
    memcpy(c->sbuf, &one, sizeof one);
    return lock_flush_loop(c, iters, secs, fop_op);
}

static int cas_lat_run(bench_ctx_t *c, long iters, double *secs)
{
    return lock_flush_loop(c, iters, secs, cas_op);
}

/* The target's word set to `start`, `iters` operations, then the origin
 * checks the last value fetched and the target its word. */
static long word_check(bench_ctx_t *c, int64_t start, int64_t last_fetched, int64_t final, long iters,
                       const char *what)
{
    int rc = MPI_SUCCESS;
    if (is_target(c) && (rc = own_lock(c)) == MPI_SUCCESS) {
        memcpy(c->wbase, &start, sizeof start);
        rc = own_unlock(c);
    }
    if (is_origin(c))
        memset(c->rbuf, 0x5a, 8);
    MPI_Barrier(MPI_COMM_WORLD);
    if (bench_mpi_err(c, rc, "MPI_Win_lock/unlock of the own window"))
        return -1;
    long e = run_once(c, iters, what);
    MPI_Barrier(MPI_COMM_WORLD);
    if (e < 0)
        return -1;
    long bad = 0;
    int64_t v;
    if (is_origin(c)) {
        memcpy(&v, c->rbuf, sizeof v);
        bad += v != last_fetched ? 8 : 0;
    }
    if (is_target(c)) {
        if (bench_mpi_err(c, own_lock(c), "MPI_Win_lock of the own window"))
            return -1;
        memcpy(&v, c->wbase, sizeof v);
        if (bench_mpi_err(c, own_unlock(c), "MPI_Win_unlock of the own window"))
            return -1;
        bad += v != final ? 8 : 0;
    }
    return bad;
}

static long fop_lat_check(bench_ctx_t *c)
{
    return word_check(c, 1000, 1000 + 2, 1000 + 3, 3, "MPI_Fetch_and_op + MPI_Win_flush");
}

static long cas_lat_check(bench_ctx_t *c)
{
    /* from 0: swaps 0->1, 1->2, 2->3; the last one fetches 2 */
    return word_check(c, 0, 2, 3, 3, "MPI_Compare_and_swap + MPI_Win_flush");
}

/* ---- synchronization alone ------------------------------------------------------- */

static void none_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    (void)c;
    *s = *r = 0;
}

static int fence_run(bench_ctx_t *c, long iters, double *secs)
{
    int rc = MPI_Win_fence(0, c->win);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Win_fence(0, c->win);
    *secs = MPI_Wtime() - t0;
    return rc;
}

/* Fences around puts of rank 0 into every rank's window, epoch `it` into
 * word `it` (its rank number times 100 plus the epoch): each fence must have
 * completed its epoch's puts.  The words differ so that a rank reading word
 * `it` after a fence does not conflict with the next epoch's put, which may
 * already be under way (Open MPI's fences do not wait for the slowest rank). */
static long fence_check(bench_ctx_t *c)
{
    enum { EPOCHS = 3 };
    int me = c->o->rank, np = c->o->np, rc;
    int64_t *v = malloc(sizeof(int64_t) * (size_t)np * EPOCHS), w[EPOCHS];
    long bad = 0;
    memset(c->wbase, 0xff, sizeof w);
    rc = MPI_Win_fence(0, c->win);
    for (int it = 0; it < EPOCHS && rc == MPI_SUCCESS; it++) {
        for (int r = 0; me == 0 && r < np && rc == MPI_SUCCESS; r++) {
            int64_t *x = &v[it * np + r]; /* untouched until the fence */
            *x = (int64_t)r * 100 + it;
            rc = MPI_Put(x, 1, MPI_INT64_T, r, 8 * it, 1, MPI_INT64_T, c->win); /* disp_unit 1 */
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_fence(0, c->win);
        memcpy(&w[it], c->wbase + 8 * it, sizeof w[it]);
        if (rc == MPI_SUCCESS && w[it] != (int64_t)me * 100 + it)
            bad += 8;
    }
    free(v);
    if (bench_mpi_err(c, rc, "MPI_Put/MPI_Win_fence"))
        return -1;
    return run_once(c, 2, "MPI_Win_fence") < 0 ? -1 : bad;
}

static int lock_unlock_run(bench_ctx_t *c, long iters, double *secs)
{
    int peer = peer_of(c), rc = MPI_SUCCESS;
    *secs = 0.0;
    if (!is_origin(c))
        return MPI_SUCCESS;
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++) {
        rc = MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, c->win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_unlock(peer, c->win);
    }
    *secs = MPI_Wtime() - t0;
    return rc;
}

/* The lock must exclude: the target, holding an exclusive lock of itself,
 * writes a word; the origin's shared lock waits for it (a barrier after the
 * target locked), then reads the word with a get. */
static long lock_unlock_check(bench_ctx_t *c)
{
    int rc = MPI_SUCCESS, peer = peer_of(c);
    int64_t want = 0x1234567, got = 0;
    if (peer == 0) /* one rank: nothing to exclude */
        return run_once(c, 2, "MPI_Win_lock/MPI_Win_unlock");
    if (is_target(c)) {
        rc = own_lock(c);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rc == MPI_SUCCESS) {
            memcpy(c->wbase, &want, sizeof want);
            rc = own_unlock(c);
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (is_origin(c)) {
        rc = MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, c->win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Get(&got, 1, MPI_INT64_T, peer, 0, 1, MPI_INT64_T, c->win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_unlock(peer, c->win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (bench_mpi_err(c, rc, "MPI_Win_lock/MPI_Get/MPI_Win_unlock"))
        return -1;
    long e = run_once(c, 2, "MPI_Win_lock/MPI_Win_unlock");
    if (e < 0)
        return -1;
    return is_origin(c) && got != want ? 8 : 0;
}

static double sync_value(const bench_ctx_t *c, double secs, long iters)
{
    (void)c;
    return secs * 1e6 / (double)iters;
}

/* ---- shared-memory window: loads and stores ------------------------------------------ */

/* MPI_Win_allocate_shared over the node's ranks (MPI_Comm_split_type): every
 * rank of the node gives c->bytes; rank 0 finds rank 1's segment with
 * MPI_Win_shared_query.  Ranks 0 and 1 must share a node. */
static int shm_setup(bench_ctx_t *c)
{
    int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c->comm);
    if (bench_mpi_err(c, rc, "MPI_Comm_split_type"))
        return rc;
    c->wlen = win_len(c->bytes);
    rc = MPI_Win_allocate_shared((MPI_Aint)c->wlen, 1, MPI_INFO_NULL, c->comm, &c->wbase, &c->win);
    if (bench_mpi_err(c, rc, "MPI_Win_allocate_shared")) {
        c->win = MPI_WIN_NULL;
        return rc;
    }
    MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN);
    /* rank 1 of the world, in the node's communicator */
    int ok = 1, peer_world = peer_of(c), peer_node = MPI_UNDEFINED;
    MPI_Group gw, gn;
    MPI_Comm_group(MPI_COMM_WORLD, &gw);
    MPI_Comm_group(c->comm, &gn);
    MPI_Group_translate_ranks(gw, 1, &peer_world, gn, &peer_node);
    MPI_Group_free(&gw);
    MPI_Group_free(&gn);
    c->peer_base = NULL;
    if (is_origin(c)) {
        MPI_Aint sz = 0;
        int du = 0;
        if (peer_node == MPI_UNDEFINED) {
            ok = 0;
        } else {
            rc = MPI_Win_shared_query(c->win, peer_node, &sz, &du, &c->peer_base);
            ok = rc == MPI_SUCCESS && (size_t)sz >= c->wlen;
        }
    }
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        snprintf(c->errbuf, sizeof c->errbuf, "MPI_Win_shared_query: no segment of rank %d on rank 0's node",
                 peer_of(c));
        return MPI_ERR_OTHER;
    }
    rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, c->win);
    if (bench_mpi_err(c, rc, "MPI_Win_lock_all"))
        return rc;
    c->locked_all = 1;
    return MPI_SUCCESS;
}

static void shm_teardown(bench_ctx_t *c)
{
    if (c->win != MPI_WIN_NULL && c->locked_all)
        MPI_Win_unlock_all(c->win);
    c->locked_all = 0;
    win_drop(c);
}

static volatile uint64_t shm_sink;

/* Stores of v + k into the words at `base` (c->bytes of them, the tail bytes
 * too), then loads of them all. */
static uint64_t store_load_pass(void *base, size_t bytes, uint64_t v)
{
    uint64_t *p = (uint64_t *)base, sum = 0;
    size_t n = bytes / 8;
    for (size_t k = 0; k < n; k++)
        p[k] = v + k;
    unsigned char *tail = (unsigned char *)(p + n);
    for (size_t k = 0; k < bytes % 8; k++)
        tail[k] = (unsigned char)(v + k);
    for (size_t k = 0; k < n; k++)
        sum += p[k];
    for (size_t k = 0; k < bytes % 8; k++)
        sum += tail[k];
    return sum;
}

static uint64_t shm_pass(bench_ctx_t *c, uint64_t v) { return store_load_pass(c->peer_base, c->bytes, v); }

/* what store_load_pass returns for value v */
static uint64_t store_load_sum(size_t bytes, uint64_t v)
{
    uint64_t want = 0;
    for (size_t k = 0; k < bytes / 8; k++)
        want += v + k;
    for (size_t k = 0; k < bytes % 8; k++)
        want += (unsigned char)(v + k);
    return want;
}

static int shm_store_run(bench_ctx_t *c, long iters, double *secs)
{
    *secs = 0.0;
    if (!is_origin(c))
        return MPI_SUCCESS;
    uint64_t sum = 0;
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++)
        sum += shm_pass(c, (uint64_t)i);
    *secs = MPI_Wtime() - t0;
    shm_sink = sum;
    return MPI_Win_sync(c->win);
}

/* rank 0 stores a pattern into rank 1's segment and checks what it loads
 * back; rank 1 then checks its own segment (MPI_Win_sync on both sides of a
 * barrier: the unified model's memory ordering) */
static long shm_store_check(bench_ctx_t *c)
{
    long bad = 0;
    const uint64_t v = 0x0101010101010101ull * 0x3c;
    if (is_origin(c)) {
        bad += shm_pass(c, v) != store_load_sum(c->bytes, v) ? 8 : 0;
    }
    MPI_Win_sync(c->win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(c->win);
    if (is_target(c)) {
        const uint64_t *p = (const uint64_t *)(const void *)c->wbase;
        size_t n = c->bytes / 8;
        for (size_t k = 0; k < n; k++)
            bad += p[k] != v + k ? 8 : 0;
        const unsigned char *tail = (const unsigned char *)(p + n);
        for (size_t k = 0; k < c->bytes % 8; k++)
            bad += tail[k] != (unsigned char)(v + k);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return bad;
}

static double shm_value(const bench_ctx_t *c, double secs, long iters)
{
    return 2.0 * (double)c->bytes * (double)iters / secs / 1e6;
}

/* mem_store: the same stores and loads on rank 0's private memory (no MPI
 * at all), the memory speed that shm_store is compared with */
static void mem_bufsize(const bench_ctx_t *c, size_t *s, size_t *r)
{
    *s = 0;
    *r = c->bytes;
}

static int mem_store_run(bench_ctx_t *c, long iters, double *secs)
{
    *secs = 0.0;
    if (!is_origin(c))
        return MPI_SUCCESS;
    uint64_t sum = 0;
    double t0 = MPI_Wtime();
    for (long i = 0; i < iters; i++)
        sum += store_load_pass(c->rbuf, c->bytes, (uint64_t)i);
    *secs = MPI_Wtime() - t0;
    shm_sink = sum;
    return MPI_SUCCESS;
}

static long mem_store_check(bench_ctx_t *c)
{
    const uint64_t v = 0x0101010101010101ull * 0x3d;
    if (!is_origin(c))
        return 0;
    long bad = store_load_pass(c->rbuf, c->bytes, v) != store_load_sum(c->bytes, v) ? 8 : 0;
    const uint64_t *p = (const uint64_t *)(const void *)c->rbuf;
    for (size_t k = 0; k < c->bytes / 8; k++)
        bad += p[k] != v + k ? 8 : 0;
    return bad;
}

/* ---- the table ------------------------------------------------------------------ */

#define RMA(n, m, win, sl, unit_, fn, setup_, teardown_, value_)                                 \
    { .name = n, .group = "rma", .metric = m, .min_np = 1, .windowed = win, .sizeless = sl,     \
      .unit = unit_, .bufsize = fn##_bufsize, .run = fn##_run, .check = fn##_check,              \
      .value = value_, .setup = setup_, .teardown = teardown_ }
#define put_lat_bufsize lat_bufsize
#define get_lat_bufsize lat_bufsize
#define put_fence_bufsize lat_bufsize
#define get_fence_bufsize lat_bufsize
#define put_bw_bufsize bw_bufsize
#define get_bw_bufsize bw_bufsize
#define acc_lat_bufsize acc_bufsize
#define get_acc_lat_bufsize acc_bufsize
#define fop_lat_bufsize word_bufsize
#define cas_lat_bufsize word_bufsize
#define fence_bufsize none_bufsize
#define lock_unlock_bufsize none_bufsize
#define shm_store_bufsize none_bufsize
#define mem_store_bufsize mem_bufsize
const bench_test_t bench_rma_tests[] = {
    RMA("put_lat", METRIC_LAT, 0, 0, 0, put_lat, lat_setup, win_drop, lat_value),
    RMA("get_lat", METRIC_LAT, 0, 0, 0, get_lat, lat_setup, win_drop, lat_value),
    RMA("put_lat_fence", METRIC_LAT, 0, 0, 0, put_fence, lat_setup, win_drop, fence_pp_value),
    RMA("get_lat_fence", METRIC_LAT, 0, 0, 0, get_fence, lat_setup, win_drop, fence_pp_value),
    RMA("put_bw", METRIC_BW, 1, 0, 0, put_bw, bw_setup, win_drop, bw_value),
    RMA("get_bw", METRIC_BW, 1, 0, 0, get_bw, bw_setup, win_drop, bw_value),
    RMA("acc_lat", METRIC_LAT, 0, 0, 8, acc_lat, lat_setup, win_drop, lat_value),
    RMA("get_acc_lat", METRIC_LAT, 0, 0, 8, get_acc_lat, lat_setup, win_drop, lat_value),
    RMA("fop_lat", METRIC_LAT, 0, 1, 0, fop_lat, word_setup, win_drop, lat_value),
    RMA("cas_lat", METRIC_LAT, 0, 1, 0, cas_lat, word_setup, win_drop, lat_value),
    RMA("fence", METRIC_LAT, 0, 1, 0, fence, word_setup, win_drop, sync_value),
    RMA("lock_unlock", METRIC_LAT, 0, 1, 0, lock_unlock, word_setup, win_drop, sync_value),
    RMA("shm_store", METRIC_BW, 0, 0, 0, shm_store, shm_setup, shm_teardown, shm_value),
    RMA("mem_store", METRIC_BW, 0, 0, 0, mem_store, NULL, NULL, shm_value),
};
const int bench_n_rma_tests = (int)(sizeof bench_rma_tests / sizeof bench_rma_tests[0]);
