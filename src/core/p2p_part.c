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
 * The messages use the communicator's point-to-point context with a negative
 * tag derived from the user's (-2 - tag), which no user receive or probe can
 * match (MPI_ANY_TAG matches only tags >= 0).  Two partitioned pairs between
 * the same processes with the same tag on the same communicator are matched
 * in the order of their rounds' last MPI_Pready, not of their init calls. */
#include "core/pt2pt.h"
#include "core/api.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    int partitions;
    int nready;                /* send: partitions marked ready in this round */
    int itag;                  /* the internal tag of the messages */
    unsigned char ready[];     /* send: per partition, marked in this round */
} part_t;

static int part_start(cr_request_t *r, cr_request_t **child);

static void part_free(cr_request_t *r)
{
    free(r->sched);
    r->sched = NULL;
}

static inline int part_itag(int tag)
{
    return -2 - (int)((unsigned)tag % 0x7ffffffeu);
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
    p->itag = part_itag(tag);
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
    if (r->kind == CR_REQ_PREQ_RECV)
        return cr_irecv(r->buf, r->count, r->dt, r->peer, p->itag, r->comm, CR_CTX_PT2PT, child);
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
    return cr_isend(r->buf, r->count, r->dt, r->peer, p->itag, r->comm, CR_CTX_PT2PT,
                    CR_MODE_STD, &r->child);
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
    if (!r->active || !r->child) {
        *flag = 1;              /* inactive: nothing outstanding */
        return MPI_SUCCESS;
    }
    if (!r->child->complete) cr_progress();
    *flag = r->child->complete;
    return MPI_SUCCESS;
}
