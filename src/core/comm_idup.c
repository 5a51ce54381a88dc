/* SPDX-License-Identifier: MIT */
/* MPI_Comm_idup and MPI_Comm_idup_with_info: truly non-blocking duplication.
 *
 * The new communicator object exists (and its handle is returned) at once; its
 * context id is agreed without blocking, and the request completes when the
 * agreement has.  Meanwhile the process may create other communicators, so
 * taking the maximum of the members' next free ids (comm.c) is not enough: an
 * id a member hands out in between could be the one agreed.  Each round
 * therefore has two halves, all through the group's root (rank 0 of the
 * communicator; on an intercommunicator each group's rank 0, the two leaders
 * swapping what they gathered):
 *   1. gather every member's next free id, the maximum R goes to everybody;
 *   2. every member checks that R is still free for it (nothing it handed out
 *      since reaches R) and reserves it at once; the root gathers the answers
 *      and tells everybody whether all could.  If one could not, the reserved
 *      ids are dropped (never reused) and the next round starts.
 * A blocking agreement in progress at this process holds the check back
 * (cr_ctx_agreeing): its result is computed from a contribution made before
 * the reservation could be seen.
 *
 * Each step waits for its own messages only (internal requests on the
 * parent's collective context, tags CR_TAG_IDUP_BASE + 8 * (sequence number)
 * + step); the request's poll function and a poller of the progress engine
 * advance every outstanding idup, so several idups on overlapping
 * communicators complete in any order, and blocking calls drive them too. */
#include "core/core.h"
#include "core/comm_priv.h"
#include "core/errh.h"
#include "core/pt2pt.h"
#include "core/api_comm.h"
#include "util/log.h"

#include <stdlib.h>
#include <string.h>

/* Steps of a round, each also the tag offset of its messages. */
enum {
    ST_GATHER = 0,    /* next free ids up to the root */
    ST_SWAP,          /* intercommunicator: the leaders swap their maxima */
    ST_BCAST,         /* R down to everybody */
    ST_OKS,           /* check and reserve R, answers up to the root */
    ST_OKSWAP,        /* intercommunicator: the leaders swap their answers */
    ST_DECIDE,        /* the decision down to everybody */
    ST_DONE
};

typedef struct idup {
    struct idup *next, *prev;    /* outstanding idups of this process */
    cr_request_t *req;
    cr_comm_t *parent;           /* retained */
    cr_comm_t *n;                /* the new communicator (retained while pending) */
    cr_info_t *info;             /* its hints (a copy) */
    cr_comm_t *local;            /* where gathers and broadcasts run */
    unsigned seq;
    int step, round;
    int nids;                    /* ids to reserve: 1, or 2 for an intercommunicator */
    int value;                   /* this step's own value */
    int *vals;                   /* the root's gathered values (local->size) */
    int swap;                    /* the value from the remote leader */
    cr_request_t **reqs;         /* this step's messages */
    int nreqs;
    int err;
    int running, finished;
} idup_t;

static idup_t *pending;
static int idup_progress(void *arg);
/* The progress engine's poller of the outstanding idups. */
static cr_poller_t idup_poller = { .name = "comm_idup", .poll = idup_progress };

static int tag_of(const idup_t *d, int step)
{
    return CR_TAG_IDUP_BASE + 8 * (int)(d->seq % CR_IDUP_TAGS) + step;
}

static int post(idup_t *d, int send, int *buf, int peer, cr_comm_t *c, int step)
{
    cr_datatype_t *dt = cr_datatype_ptr(MPI_INT);
    cr_request_t **r = &d->reqs[d->nreqs];
    int err = send ? cr_isend(buf, 1, dt, peer, tag_of(d, step), c, CR_CTX_COLL, CR_MODE_STD, r)
                   : cr_irecv(buf, 1, dt, peer, tag_of(d, step), c, CR_CTX_COLL, r);
    if (!err) d->nreqs++;
    return err;
}

/* Start the messages of d's current step. */
static int step_start(idup_t *d)
{
    cr_comm_t *l = d->local;
    int root = l->rank == 0, err = MPI_SUCCESS;
    d->nreqs = 0;
    switch (d->step) {
    case ST_GATHER:
    case ST_OKS:
        if (root) {
            d->vals[0] = d->value;
            for (int r = 1; r < l->size && !err; r++) err = post(d, 0, &d->vals[r], r, l, d->step);
        } else {
            err = post(d, 1, &d->value, 0, l, d->step);
        }
        break;
    case ST_SWAP:
    case ST_OKSWAP:
        if (root) {
            err = post(d, 0, &d->swap, 0, d->parent, d->step);
            if (!err) err = post(d, 1, &d->value, 0, d->parent, d->step);
        }
        break;
    case ST_BCAST:
    case ST_DECIDE:
        for (int r = 1; root && r < l->size && !err; r++) err = post(d, 1, &d->value, r, l, d->step);
        if (!root) err = post(d, 0, &d->value, 0, l, d->step);
        break;
    }
    return err;
}

/* Are this step's messages all done?  Frees them when they are. */
static int step_done(idup_t *d)
{
    for (int i = 0; i < d->nreqs; i++)
        if (!d->reqs[i]->complete) return 0;
    for (int i = 0; i < d->nreqs; i++) {
        int e = cr_wait(d->reqs[i], MPI_STATUS_IGNORE);
        if (e && !d->err) d->err = e;
    }
    d->nreqs = 0;
    return 1;
}

/* The step's result at the root (and at everybody after a broadcast). */
static void step_finish(idup_t *d)
{
    cr_comm_t *l = d->local;
    int inter = d->parent->remote != NULL;
    switch (d->step) {
    case ST_GATHER:
        if (l->rank == 0)
            for (int r = 1; r < l->size; r++)
                if ((unsigned)d->vals[r] > (unsigned)d->value) d->value = d->vals[r];
        d->step = inter ? ST_SWAP : ST_BCAST;
        break;
    case ST_SWAP:
        if (l->rank == 0 && (unsigned)d->swap > (unsigned)d->value) d->value = d->swap;
        d->step = ST_BCAST;
        break;
    case ST_BCAST:
        d->step = ST_OKS;    /* d->value is R; the check comes at the start of ST_OKS */
        break;
    case ST_OKS:
        if (l->rank == 0)
            for (int r = 1; r < l->size; r++) d->value &= d->vals[r];
        d->step = inter ? ST_OKSWAP : ST_DECIDE;
        break;
    case ST_OKSWAP:
        if (l->rank == 0) d->value &= d->swap;
        d->step = ST_DECIDE;
        break;
    case ST_DECIDE:
        d->step = ST_DONE;
        break;
    }
}

/* Half 2's local part: is R free here?  Reserve it if so.  The answer
 * replaces R in d->value; R is kept in the new communicator. */
static void check_and_reserve(idup_t *d)
{
    uint32_t r = (uint32_t)d->value;
    int ok = r >= cr_proc.next_ctx && cr_ctx_take(r, d->nids);
    d->n->ctx = r;
    d->value = ok;
}

static void finish(idup_t *d);

/* After a step: on a "no" decision, the next round. */
static void after_step(idup_t *d)
{
    if (d->step != ST_DONE || d->value) return;
    d->round++;
    d->step = ST_GATHER;
    ut_log(UT_LOG_EVENTS, "comm", "MPI_Comm_idup of 0x%08x: id %u was taken, round %d",
           (unsigned)d->parent->handle, (unsigned)d->n->ctx, d->round + 1);
    d->value = cr_ctx_offer(1);
}

/* Move d on as far as its messages allow; 1 when it is complete.  Not
 * re-entered (a send may make progress, which calls the hook). */
static int advance(idup_t *d)
{
    if (d->finished) return 1;
    if (d->running) return 0;
    d->running = 1;
    for (;;) {
        if (d->nreqs && !d->err) {
            if (!step_done(d)) break;
            if (d->err) continue;
            step_finish(d);
            after_step(d);
            continue;
        }
        if (d->err || d->step == ST_DONE) {
            finish(d);
            break;
        }
        if (d->step == ST_OKS) {
            if (cr_ctx_agreeing) break;      /* a blocking agreement first */
            if ((uint32_t)d->value >= CR_CTX_EXHAUSTED) {   /* R is every member's */
                d->err = cr_ctx_exhausted_error();
                continue;
            }
            check_and_reserve(d);
        }
        int err = step_start(d);
        if (err) {
            d->err = err;
        } else if (d->nreqs == 0) {          /* nothing to exchange at this step */
            step_finish(d);
            after_step(d);
        }
    }
    d->running = 0;
    return d->finished;
}

static void unlist(idup_t *d);

/* Done (or failed): the rest of the duplicate, the request's error. */
static void finish(idup_t *d)
{
    int err = d->err;
    cr_comm_t *n = d->n;
    for (int i = 0; i < d->nreqs; i++) cr_wait(d->reqs[i], MPI_STATUS_IGNORE);   /* after errors */
    d->nreqs = 0;
    if (!err && d->parent->remote) {
        cr_group_retain(n->group);
        n->local_comm = cr_comm_make_internal(n->group, n->ctx + CR_CTX_STRIDE);
        if (!n->local_comm) err = cr_error(MPI_ERR_NO_MEM, "no memory for an intercommunicator");
    }
    if (!err) err = cr_comm_dup_finish(d->parent, n, d->info);
    if (!err)
        ut_log(UT_LOG_EVENTS, "comm", "MPI_Comm_idup of 0x%08x: 0x%08x has context %u (%d "
               "round(s))", (unsigned)d->parent->handle, (unsigned)n->handle, (unsigned)n->ctx,
               d->round + 1);
    d->req->err = err;
    d->finished = 1;
    unlist(d);
}

static void unlist(idup_t *d)
{
    if (d->prev) d->prev->next = d->next;
    else if (pending == d) pending = d->next;
    else return;                 /* not listed */
    if (d->next) d->next->prev = d->prev;
    d->next = d->prev = NULL;
    if (!pending) cr_poller_set_active(&idup_poller, 0);
}

static int idup_poll(cr_request_t *r)
{
    idup_t *d = r->sched;
    return advance(d);
}

static void idup_free(cr_request_t *r)
{
    idup_t *d = r->sched;
    if (!d) return;
    unlist(d);
    for (int i = 0; i < d->nreqs; i++) cr_wait(d->reqs[i], MPI_STATUS_IGNORE);
    cr_comm_release(d->n);
    cr_comm_release(d->parent);
    cr_info_destroy(d->info);
    free(d->vals);
    free(d->reqs);
    free(d);
    r->sched = NULL;
}

/* The poller: every outstanding idup moves on. */
static int idup_progress(void *arg)
{
    static int inside;           /* a send made from advance() may make progress */
    int events = 0;
    (void)arg;
    if (inside) return events;
    inside = 1;
    for (idup_t *d = pending, *next; d; d = next) {
        next = d->next;          /* advance may unlist d, never another */
        if (!d->req->complete && advance(d)) {
            cr_req_complete(d->req);
            events++;
        }
    }
    inside = 0;
    return events;
}

static int comm_idup(cr_comm_t *comm, const cr_info_t *info, MPI_Comm *newcomm,
                     MPI_Request *request)
{
    *newcomm = MPI_COMM_NULL;
    idup_t *d = calloc(1, sizeof *d);
    cr_request_t *r = cr_request_new(CR_REQ_COLL, 1);
    cr_comm_t *local = comm->remote ? comm->local_comm : comm;
    if (d) {
        d->vals = malloc((size_t)local->size * sizeof(int));
        d->reqs = malloc((size_t)(local->size + 2) * sizeof *d->reqs);
    }
    int err = !d || !r || !d->vals || !d->reqs
                  ? cr_error(MPI_ERR_NO_MEM, "MPI_Comm_idup: no memory for a request") : MPI_SUCCESS;
    if (!err) err = cr_info_copy(info, &d->info);
    cr_comm_t *n = NULL;
    if (!err) {
        cr_group_retain(comm->group);
        cr_group_retain(comm->remote);
        err = cr_comm_make(comm->group, comm->remote, 0, comm->errh, &n);
    }
    if (err) {
        if (d) {
            cr_info_destroy(d->info);
            free(d->vals);
            free(d->reqs);
            free(d);
        }
        if (r) cr_request_free(r);
        return err;
    }
    d->req = r;
    d->parent = comm;
    cr_comm_retain(comm);
    d->n = n;
    cr_comm_retain(n);              /* the user's handle and ours until completion */
    d->local = local;
    d->seq = comm->idup_seq++;
    d->nids = comm->remote ? 2 : 1;
    d->step = ST_GATHER;
    d->value = cr_ctx_offer(1);       /* n is made already */
    r->comm = comm;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    r->sched = d;
    r->poll = idup_poll;
    r->on_free = idup_free;
    d->next = pending;
    if (pending) pending->prev = d;
    pending = d;
    cr_progress_register(&idup_poller);
    cr_poller_set_active(&idup_poller, 1);
    if (advance(d)) cr_req_complete(r);
    *newcomm = n->handle;
    *request = r->handle;
    return MPI_SUCCESS;
}

int core_comm_idup(cr_comm_t *comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return comm_idup(comm, comm->info, newcomm, request);
}

int core_comm_idup_with_info(cr_comm_t *comm, cr_info_t *info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    return comm_idup(comm, info, newcomm, request);
}
