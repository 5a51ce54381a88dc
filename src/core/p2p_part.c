/* SPDX-License-Identifier: MIT */
/* Partitioned communication (MPI 4.1 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready(_range, _list), MPI_Parrived, over the
 * point-to-point engine.
 *
 * Design: one message per round.  The partitioned send is a persistent
 * request; MPI_Start resets its partitions, and the MPI_Pready that marks the
 * last partition ready sends the whole buffer as one ordinary message (eager
 * or rendezvous by size).  The partitioned receive posts one receive of the
 * whole buffer at MPI_Start; MPI_Parrived reports a partition as arrived once
 * that receive is complete (the standard lets it say "not yet" until then).
 * This is simple and correct for any partitioning on either side (only the
 * total size must agree); the price is that no partition moves before the
 * last one is ready.
 *
 * Matching follows the order of the initialization calls (MPI 4.1 section
 * 4.2.1), not of the rounds: MPI_Psend_init sends a hello carrying a number
 * unique to this sender (its send id), with the communicator's point-to-point
 * context and a negative tag derived from the user's (-2 - tag), which no user
 * receive or probe can match (MPI_ANY_TAG matches only tags >= 0);
 * MPI_Precv_init posts the receive of that hello, so the k-th Psend_init and
 * the k-th Precv_init with the same peer, tag and communicator pair up (MPI's
 * non-overtaking rule).  Every round's data then goes in the communicator's
 * collective context with a tag made from the send id, above the tags that
 * collectives take (1 .. 2^30), which only that receive names.  A receive
 * started before its hello has come posts its data receive as soon as the
 * hello is there (its poll function, run by the completion calls and
 * MPI_Parrived), so no call blocks on the peer. */
#include "core/pt2pt.h"
#include "core/api.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct part {
    int partitions;
    int nready;                /* send: partitions marked ready in this round */
    cr_request_t *hello;       /* the hello's send or receive, NULL once done (send) */
    int sid;                   /* the send id: the sender's own, or the hello's (receive) */
    cr_request_t *owner;       /* the partitioned request */
    struct part *wnext, *wprev;   /* receive: started before its hello came */
    int waiting;
    unsigned char ready[];     /* send: per partition, marked in this round */
} part_t;

/* Data tags: above the collectives' 1 .. 2^30 (coll.c) and the area makings'
 * 2^30 + 1 (coll_shm.c) in the collective context. */
#define PART_DATA_TAG_BASE ((1 << 30) + 2)

static unsigned part_next_sid;   /* this process's next send id */

/* Started receives whose hello has not come yet: the progress engine posts
 * their data receive when it comes (a sender may wait for its rendezvous
 * data to be matched while the receiver waits for something else). */
static part_t *waiting_head;
static int part_progress(void *arg);
static cr_poller_t part_poller = { "partitioned", part_progress, NULL, NULL, 0, 0 };

static void wait_add(part_t *p)
{
    if (p->waiting) return;
    p->waiting = 1;
    p->wprev = NULL;
    p->wnext = waiting_head;
    if (waiting_head) waiting_head->wprev = p;
    waiting_head = p;
    cr_progress_register(&part_poller);
    cr_poller_set_active(&part_poller, 1);
}

static void wait_remove(part_t *p)
{
    if (!p->waiting) return;
    p->waiting = 0;
    if (p->wprev) p->wprev->wnext = p->wnext; else waiting_head = p->wnext;
    if (p->wnext) p->wnext->wprev = p->wprev;
    if (!waiting_head) cr_poller_set_active(&part_poller, 0);
}

static int part_start(cr_request_t *r, cr_request_t **child);

static void part_free(cr_request_t *r)
{
    part_t *p = r->sched;
    if (p) wait_remove(p);
    if (p && p->hello) {
        cr_request_t *h = p->hello;
        if (h->kind == CR_REQ_SEND) {
            /* the peer may init later: the hello goes on alone (its value in h->tmp) */
            if (h->complete) cr_request_free(h); else h->detached = 1;
        } else {
            /* a hello that no send will ever come for is cancelled */
            if (!cr_cancel_recv(h)) cr_progress_wait(&h->complete);
            cr_request_free(h);
        }
    }
    free(p);
    r->sched = NULL;
}

static inline int part_hello_tag(int tag)
{
    return -2 - (int)((unsigned)tag % 0x7ffffffeu);
}

static inline int part_data_tag(int sid)
{
    return PART_DATA_TAG_BASE + (int)((unsigned)sid % (unsigned)(INT_MAX - PART_DATA_TAG_BASE));
}

/* The hello of a partitioned send: its send id, from memory of its own that
 * the request frees when it completes (a send's tmp). */
static int part_hello_send(part_t *p, int dest, int tag, cr_comm_t *comm)
{
    int *v = malloc(sizeof *v);
    if (!v) return cr_error(MPI_ERR_NO_MEM, "MPI_Psend_init: out of memory");
    *v = p->sid = (int)(part_next_sid++ & 0x7fffffffu);
    cr_request_t *h;
    int err = cr_isend(v, 1, cr_datatype_ptr(MPI_INT), dest, part_hello_tag(tag), comm,
                       CR_CTX_PT2PT, CR_MODE_STD, &h);
    if (err) {
        free(v);
        return err;
    }
    if (h->complete) {
        free(v);
        cr_request_free(h);
        h = NULL;
    } else {
        h->tmp = v;
    }
    p->hello = h;
    return MPI_SUCCESS;
}

/* A started receive whose hello has come posts its data receive (1: posted). */
static int part_post(part_t *p)
{
    cr_request_t *r = p->owner;
    if (!r->active || r->child || !p->hello->complete) return 0;
    wait_remove(p);
    /* out of memory leaves it waiting: the next poll tries again */
    if (cr_irecv(r->buf, r->count, r->dt, r->peer, part_data_tag(p->sid), r->comm, CR_CTX_COLL,
                 &r->child) != MPI_SUCCESS) {
        r->child = NULL;
        wait_add(p);
        return 0;
    }
    return 1;
}

static int part_progress(void *arg)
{
    (void)arg;
    int n = 0;
    for (part_t *p = waiting_head, *next; p; p = next) {
        next = p->wnext;
        n += part_post(p);
    }
    return n;
}

/* The request's poll function: the completion calls re-read its child (the
 * data receive) after each call. */
static int part_poll(cr_request_t *r)
{
    part_post(r->sched);
    return 0;
}

static int part_init(cr_req_kind_t kind, const void *buf, int partitions, MPI_Count count,
                     cr_datatype_t *dt, int peer, int tag, cr_comm_t *comm, MPI_Request *request)
{
    const char *fn = kind == CR_REQ_PREQ_SEND ? "MPI_Psend_init" : "MPI_Precv_init";
    if (partitions < 1)
        return cr_error(MPI_ERR_ARG, "%s: partitions=%d: must be at least 1", fn, partitions);
    if (peer == MPI_ANY_SOURCE)
        return cr_error(MPI_ERR_RANK, "%s: source=MPI_ANY_SOURCE: a partitioned receive "
                        "names its sender", fn);
    if (tag == MPI_ANY_TAG)
        return cr_error(MPI_ERR_TAG, "%s: tag=MPI_ANY_TAG: a partitioned receive names its tag",
                        fn);
    part_t *p = calloc(1, sizeof *p + (kind == CR_REQ_PREQ_SEND ? (size_t)partitions : 0));
    cr_request_t *r = p ? cr_request_new(kind, 1) : NULL;
    if (!r) {
        free(p);
        return cr_error(MPI_ERR_NO_MEM, "%s: out of memory for %d partitions", fn, partitions);
    }
    p->partitions = partitions;
    int err = kind == CR_REQ_PREQ_SEND
                  ? part_hello_send(p, peer, tag, comm)
                  : cr_irecv(&p->sid, 1, cr_datatype_ptr(MPI_INT), peer, part_hello_tag(tag), comm,
                             CR_CTX_PT2PT, &p->hello);
    if (err) {
        free(p);
        cr_request_free(r);
        return err;
    }
    if (kind == CR_REQ_PREQ_RECV) r->poll = part_poll;
    p->owner = r;
    r->persistent = 1;
    r->buf = (void *)buf;
    r->count = (MPI_Aint)count * partitions;
    r->dt = dt;
    cr_dt_retain(dt);
    r->peer = peer;
    r->tag = tag;
    cr_request_hold_comm(r, comm);
    r->sched = p;
    r->on_free = part_free;
    r->start = part_start;
    *request = r->handle;
    return MPI_SUCCESS;
}

int core_psend_init(const void *buf, int partitions, MPI_Count count, cr_datatype_t *datatype,
                    int dest, int tag, cr_comm_t *comm, MPI_Request *request)
{
    return part_init(CR_REQ_PREQ_SEND, buf, partitions, count, datatype, dest, tag, comm,
                     request);
}

int core_precv_init(void *buf, int partitions, MPI_Count count, cr_datatype_t *datatype,
                    int source, int tag, cr_comm_t *comm, MPI_Request *request)
{
    return part_init(CR_REQ_PREQ_RECV, buf, partitions, count, datatype, source, tag, comm,
                     request);
}

/* MPI_Start: the receive is posted at once; the send waits for its partitions. */
static int part_start(cr_request_t *r, cr_request_t **child)
{
    part_t *p = r->sched;
    *child = NULL;
    if (r->kind == CR_REQ_PREQ_RECV) {
        if (!p->hello->complete) cr_progress();
        if (!p->hello->complete) {
            wait_add(p);        /* part_progress posts it */
            return MPI_SUCCESS;
        }
        return cr_irecv(r->buf, r->count, r->dt, r->peer, part_data_tag(p->sid), r->comm,
                        CR_CTX_COLL, child);
    }
    memset(p->ready, 0, (size_t)p->partitions);
    p->nready = 0;
    r->complete = 0;
    return MPI_SUCCESS;
}

int cr_part_is(const cr_request_t *r)
{
    return r && r->start == part_start;
}

/* The partitioned request of kind for a Pready / Parrived call, or NULL
 * after setting *err. */
static cr_request_t *part_req(cr_request_t *r, cr_req_kind_t kind, const char *fn, int *err)
{
    if (!cr_part_is(r) || r->kind != kind) {
        *err = cr_error(MPI_ERR_REQUEST, "%s: request=0x%x: not a partitioned %s request", fn,
                        r ? (unsigned)r->handle : (unsigned)MPI_REQUEST_NULL,
                        kind == CR_REQ_PREQ_SEND ? "send" : "receive");
        return NULL;
    }
    return r;
}

/* Mark one partition ready; the last one sends the message. */
static int ready_one(cr_request_t *r, int partition, const char *fn)
{
    part_t *p = r->sched;
    if (!r->active)
        return cr_error(MPI_ERR_REQUEST, "%s: request=0x%x is not active (MPI_Start it first)",
                        fn, (unsigned)r->handle);
    if (partition < 0 || partition >= p->partitions)
        return cr_error(MPI_ERR_ARG, "%s: partition=%d: the request has partitions 0..%d", fn,
                        partition, p->partitions - 1);
    if (p->ready[partition])
        return cr_error(MPI_ERR_ARG, "%s: partition=%d is already ready in this round", fn,
                        partition);
    p->ready[partition] = 1;
    if (++p->nready < p->partitions) return MPI_SUCCESS;
    return cr_isend(r->buf, r->count, r->dt, r->peer, part_data_tag(p->sid), r->comm,
                    CR_CTX_COLL, CR_MODE_STD, &r->child);
}

int core_pready(int partition, cr_request_t *request)
{
    int err;
    cr_request_t *r = part_req(request, CR_REQ_PREQ_SEND, "MPI_Pready", &err);
    return r ? ready_one(r, partition, "MPI_Pready") : err;
}

int core_pready_range(int partition_low, int partition_high, cr_request_t *request)
{
    int err = MPI_SUCCESS;
    cr_request_t *r = part_req(request, CR_REQ_PREQ_SEND, "MPI_Pready_range", &err);
    if (r && partition_low > partition_high)
        return cr_error(MPI_ERR_ARG, "MPI_Pready_range: partition_low=%d > partition_high=%d",
                        partition_low, partition_high);
    for (int i = partition_low; r && !err && i <= partition_high; i++)
        err = ready_one(r, i, "MPI_Pready_range");
    return err;
}

int core_pready_list(int length, const int array_of_partitions[], cr_request_t *request)
{
    int err = MPI_SUCCESS;
    cr_request_t *r = part_req(request, CR_REQ_PREQ_SEND, "MPI_Pready_list", &err);
    for (int i = 0; r && !err && i < length; i++)
        err = ready_one(r, array_of_partitions[i], "MPI_Pready_list");
    return err;
}

int core_parrived(cr_request_t *request, int partition, int *flag)
{
    int err;
    cr_request_t *r = part_req(request, CR_REQ_PREQ_RECV, "MPI_Parrived", &err);
    if (!r) return err;
    part_t *p = r->sched;
    if (partition < 0 || partition >= p->partitions)
        return cr_error(MPI_ERR_ARG, "MPI_Parrived: partition=%d: the request has partitions "
                        "0..%d", partition, p->partitions - 1);
    if (!r->active) {
        *flag = 1;              /* inactive: nothing outstanding */
        return MPI_SUCCESS;
    }
    if (!r->child || !r->child->complete) {
        cr_progress();
        part_post(p);
    }
    *flag = r->child && r->child->complete;
    return MPI_SUCCESS;
}
