/* SPDX-License-Identifier: MIT */
/* Operations: how a data access runs when it is not a blocking independent
 * one.
 *
 * - Non-blocking independent accesses go to a worker thread (setting
 *   COURIER_IO_WORKER, on by default) that runs jobs (io_job_t): io_indep,
 *   and the writes of two-phase aggregators (twophase.c), nothing else: it
 *   makes no MPI call and touches no MPI state, so it needs no lock of the
 *   core.  Without it they run at the call.
 * - Collective accesses (blocking, non-blocking and split) are state
 *   machines: non-blocking collectives of the file's private communicator
 *   agree on the ranges, ordered accesses first agree on the shared
 *   pointer, then the two-phase rounds run (twophase.c) or each rank goes
 *   independent (on the worker, or in the calling thread when the
 *   collective is blocking), and a last reduction agrees on the outcome (so that no rank
 *   starts independent I/O on the file while an aggregator still writes).
 *   Each file runs its collectives one after the other, in the order they
 *   were started, so every rank issues the same internal collectives in the
 *   same order.
 * Everything advances from one poller of the progress engine, so MPI_Wait,
 * MPI_Test and every other blocking MPI call move file operations on; a
 * blocking call waits for its own operation with the waiting policy. */
#define _GNU_SOURCE
#include "io/io.h"
#include "coll/api.h"
#include "core/api.h"
#include "core/progress.h"
#include "core/pt2pt.h"
#include "util/settings.h"

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum {
    S_QUEUED = 0,      /* behind another collective of its file */
    S_INDEP_JOB,       /* independent part on the worker (or done inline) */
    S_ORD_GATHER,      /* ordered: every rank's etypes */
    S_ORD_BCAST,       /* ordered: rank 0's shared pointer */
    S_GATHER,          /* every rank's range */
    S_TP,              /* two-phase rounds */
    S_FINAL,           /* agreement on the outcome */
    S_DONE
};

static io_op_t *active;        /* every operation under way */
static int busy;               /* guards the poller against re-entry */
static int io_poll(void *arg);
static int io_can_sleep(void *arg);
static cr_poller_t io_poller = { .name = "io", .poll = io_poll, .can_sleep = io_can_sleep };

/* ---- the worker thread ------------------------------------------------------------------- */
static pthread_mutex_t wk_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wk_cond = PTHREAD_COND_INITIALIZER;
static io_job_t *wk_head, *wk_tail;
static int wk_started;

static void *worker_main(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&wk_lock);
    for (;;) {
        while (!wk_head) pthread_cond_wait(&wk_cond, &wk_lock);
        io_job_t *j = wk_head;
        wk_head = j->next;
        if (!wk_head) wk_tail = NULL;
        pthread_mutex_unlock(&wk_lock);
        j->run(j);
        __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
        /* a thread of the process that sleeps in the waiting policy looks
         * again (its last poll before sleeping found the job unfinished, or
         * this wakes it) */
        cr_progress_wake_sleepers();
        pthread_mutex_lock(&wk_lock);
    }
    return NULL;
}

int io_job_submit(io_job_t *j)
{
    j->done = 0;
    j->queued = 0;
    if (ut_settings.io_worker) {
        pthread_mutex_lock(&wk_lock);
        if (!wk_started) {
            pthread_t t;
            pthread_attr_t a;
            pthread_attr_init(&a);
            pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
            if (pthread_create(&t, &a, worker_main, NULL) == 0) wk_started = 1;
            pthread_attr_destroy(&a);
        }
        if (wk_started) {
            j->next = NULL;
            if (wk_tail) wk_tail->next = j;
            else wk_head = j;
            wk_tail = j;
            j->queued = 1;
            pthread_cond_signal(&wk_cond);
        }
        pthread_mutex_unlock(&wk_lock);
    }
    if (j->queued) return 1;
    io_job_run(j);
    return 0;
}

void io_job_run(io_job_t *j)
{
    j->queued = 0;
    j->run(j);
    j->done = 1;
}

int io_job_finished(io_job_t *j)
{
    if (!__atomic_load_n(&j->done, __ATOMIC_ACQUIRE)) return 0;
    j->queued = 0;
    return 1;
}

static void indep_job(io_job_t *j)
{
    io_op_t *op = (io_op_t *)((char *)j - offsetof(io_op_t, job));
    op->job_err = io_indep(&op->x, op->fname);
}

void io_op_run_indep(io_op_t *op)
{
    op->job.run = indep_job;
    /* a blocking collective's caller only waits: it moves the data itself
     * rather than spin beside the worker (two threads on one core's work) */
    int blocking = !op->req && !(op->op & CR_IO_SPLIT);
    if (blocking) io_job_run(&op->job);
    else io_job_submit(&op->job);
}

/* ---- lists ---------------------------------------------------------------------------------- */
static void activate(io_op_t *op)
{
    op->aprev = NULL;
    op->anext = active;
    if (active) active->aprev = op;
    active = op;
    cr_progress_register(&io_poller);
    cr_poller_set_active(&io_poller, 1);
}

static void deactivate(io_op_t *op)
{
    if (op->aprev) op->aprev->anext = op->anext;
    else if (active == op) active = op->anext;
    if (op->anext) op->anext->aprev = op->aprev;
    op->anext = op->aprev = NULL;
    if (!active) cr_poller_set_active(&io_poller, 0);
}

static void dequeue(io_op_t *op)
{
    cr_file_t *fh = op->fh;
    if (!op->queued) return;
    op->queued = 0;
    if (fh->coll_head == op) {
        fh->coll_head = op->next;
        if (!fh->coll_head) fh->coll_tail = NULL;
    }
}

/* ---- sub-collectives ------------------------------------------------------------------------- */
/* Is the collective under op->sub finished?  Frees it then. */
static int sub_done(io_op_t *op)
{
    if (op->sub == MPI_REQUEST_NULL) return 1;
    cr_request_t *r = cr_request_ptr(op->sub);
    if (r && !r->complete) return 0;
    int err = core_wait(&op->sub, MPI_STATUS_IGNORE);
    if (err && !op->err) op->err = err;
    op->sub = MPI_REQUEST_NULL;
    return 1;
}

static int sub_allgather(io_op_t *op, const int64_t *in, int n)
{
    cr_file_t *fh = op->fh;
    free(op->gath);
    op->gath = malloc((size_t)fh->size * (size_t)n * sizeof(int64_t));
    if (!op->gath) return cr_error(MPI_ERR_NO_MEM, "%s: out of memory", op->fname);
    if (fh->size == 1) {
        memcpy(op->gath, in, (size_t)n * sizeof *in);
        return MPI_SUCCESS;
    }
    memcpy(op->scratch, in, (size_t)n * sizeof *in);
    cr_datatype_t *t = cr_datatype_ptr(MPI_INT64_T);
    return core_allgather(op->scratch, n, t, op->gath, n, t, fh->comm, CR_NONBLOCKING, NULL, &op->sub);
}

/* ---- the state machine ---------------------------------------------------------------------- */
static void finish(io_op_t *op)
{
    op->err = io_xfer_finish(&op->x, op->err, &op->status, op->fname);
    op->state = S_DONE;
    dequeue(op);
    deactivate(op);
    if (op->req) {
        cr_request_t *r = op->req;
        r->status = op->status;
        r->status.MPI_ERROR = op->err;
        r->err = op->err;
        op->req = NULL;
        op->fh->pending--;
        io_op_free(op);
        cr_req_complete(r);
        return;
    }
    __atomic_store_n(&op->done, 1, __ATOMIC_RELEASE);
}

static void start_summary(io_op_t *op)
{
    int64_t s[IO_G_N];
    io_tp_summary(&op->x, s);
    if (op->err) s[IO_G_FLAGS] |= IO_GF_ERR;
    int err = sub_allgather(op, s, IO_G_N);
    if (err && !op->err) op->err = err;
    op->state = S_GATHER;
}

static void start_final(io_op_t *op)
{
    cr_file_t *fh = op->fh;
    op->scratch[0] = op->err ? cr_error_class(op->err) : 0;
    op->state = S_FINAL;
    if (fh->size == 1) return;
    int err = core_allreduce(MPI_IN_PLACE, op->scratch, 1, cr_datatype_ptr(MPI_INT64_T),
                             cr_op_ptr(MPI_MAX), fh->comm, CR_NONBLOCKING, NULL, &op->sub);
    if (err && !op->err) op->err = err;
}

/* Move op on as far as it goes; 1 when it finished (and was finished). */
static int advance(io_op_t *op)
{
    cr_file_t *fh = op->fh;
    for (;;) {
        switch (op->state) {
        case S_QUEUED:
            if (fh->coll_head != op) return 0;
            if (op->op & CR_IO_ORDERED) {
                op->scratch[1] = op->count_etypes;
                int err = sub_allgather(op, &op->scratch[1], 1);
                if (err && !op->err) op->err = err;
                op->state = S_ORD_GATHER;
            } else {
                start_summary(op);
            }
            break;
        case S_ORD_GATHER: {
            if (!sub_done(op)) return 0;
            int64_t total = 0, before = 0;
            for (int r = 0; r < fh->size; r++) {
                if (r < fh->rank) before += op->gath[r];
                total += op->gath[r];
            }
            op->scratch[4] = before;
            op->scratch[2] = 0;       /* base */
            op->scratch[3] = 0;       /* error class at rank 0 */
            if (fh->rank == 0 && !op->err) {
                int err = io_shfp_fetch_add(fh, total, &op->scratch[2], op->fname);
                if (err) op->scratch[3] = cr_error_class(err), op->err = err;
            }
            op->state = S_ORD_BCAST;
            if (fh->size > 1) {
                int err = core_bcast(&op->scratch[2], 2, cr_datatype_ptr(MPI_INT64_T), 0, fh->comm,
                                     CR_NONBLOCKING, NULL, &op->sub);
                if (err && !op->err) op->err = err;
            }
            break;
        }
        case S_ORD_BCAST:
            if (!sub_done(op)) return 0;
            if (op->scratch[3] && !op->err)
                op->err = cr_error((int)op->scratch[3], "%s: rank 0 could not update the shared "
                                   "file pointer", op->fname);
            op->x.vpos = (op->scratch[2] + op->scratch[4]) * fh->view.esize;
            start_summary(op);
            break;
        case S_GATHER:
            if (!sub_done(op)) return 0;
            for (int r = 0; r < fh->size; r++)
                if (op->gath[r * IO_G_N + IO_G_FLAGS] & IO_GF_ERR) {
                    if (!op->err)
                        op->err = cr_error(MPI_ERR_IO, "%s: rank %d failed before the collective "
                                           "transfer", op->fname, r);
                }
            if (op->err) {
                start_final(op);
            } else if (io_tp_setup(op)) {
                io_op_run_indep(op);
                op->state = S_INDEP_JOB;
            } else {
                op->state = S_TP;
            }
            break;
        case S_INDEP_JOB:
            if (!io_job_finished(&op->job)) return 0;
            if (op->job_err && !op->err) op->err = op->job_err;
            if (op->op & (CR_IO_COLL | CR_IO_ORDERED)) start_final(op);
            else {
                finish(op);
                return 1;
            }
            break;
        case S_TP:
            if (!io_tp_advance(op)) return 0;
            start_final(op);
            break;
        case S_FINAL:
            if (!sub_done(op)) return 0;
            if (op->scratch[0] && !op->err)
                op->err = cr_error((int)op->scratch[0], "%s: the collective access failed at "
                                   "another rank", op->fname);
            io_tp_free(op);
            {
                io_op_t *next = op->next;
                finish(op);
                if (next) advance(next);   /* the file's next collective may start */
            }
            return 1;
        default:
            return 1;
        }
    }
}

static int io_poll(void *arg)
{
    (void)arg;
    if (busy || !active) return 0;
    busy = 1;
    int events = 0;
    for (io_op_t *op = active, *next; op; op = next) {
        next = op->anext;
        int before = op->state;
        if (advance(op)) {
            events++;
            next = active;    /* the list changed: start over (finished ones are gone) */
            if (next == NULL) break;
        } else if (op->state != before) {
            events++;
        }
    }
    busy = 0;
    return events;
}

static int io_can_sleep(void *arg)
{
    (void)arg;
    /* the worker rings the doorbell when a job finishes */
    return 1;
}

/* ---- starting and waiting -------------------------------------------------------------------- */
int io_op_start(io_op_t *op)
{
    cr_file_t *fh = op->fh;
    op->sub = MPI_REQUEST_NULL;
    activate(op);
    if (!(op->op & (CR_IO_COLL | CR_IO_ORDERED))) {
        io_op_run_indep(op);
        op->state = S_INDEP_JOB;
    } else {
        op->state = S_QUEUED;
        op->queued = 1;
        op->next = NULL;
        if (fh->coll_tail) fh->coll_tail->next = op;
        else fh->coll_head = op;
        fh->coll_tail = op;
    }
    if (op->req) fh->pending++;
    if (!busy) {
        busy = 1;
        advance(op);    /* may finish at once (and free op when it has a request) */
        busy = 0;
    }
    return MPI_SUCCESS;
}

int io_op_wait(io_op_t *op)
{
    cr_wait_t w = CR_WAIT_INIT;
    while (!__atomic_load_n(&op->done, __ATOMIC_ACQUIRE)) {
        if (!busy) {
            busy = 1;
            int moved = advance(op);
            busy = 0;
            if (moved) break;
        }
        cr_wait_poll(&w);
    }
    return op->err;
}

void io_op_free(io_op_t *op)
{
    if (!op) return;
    free(op->gath);
    free(op);
}

void io_op_drain(cr_file_t *fh)
{
    cr_wait_t w = CR_WAIT_INIT;
    while (fh->pending > 0 || fh->coll_head) cr_wait_poll(&w);
}

int io_progress(void)
{
    return io_poll(NULL);
}
