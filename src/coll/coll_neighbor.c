/* SPDX-License-Identifier: MIT */
/* Neighbor collectives (MPI 4.0, 8.6): Neighbor_allgather(v), Neighbor_alltoall(v,w)
 * and their non-blocking forms, on Cartesian, graph and distributed-graph
 * communicators.
 *
 * One exchange per call: every receive from an in-neighbor and every send to
 * an out-neighbor is started at once on the collective context, and the call
 * completes when all have.  Blocks of MPI_PROC_NULL neighbors (Cartesian edges)
 * keep their place in the buffers but move no data.
 *
 * Matching.  A process can be the same neighbor twice (a periodic dimension of
 * size 1 or 2, or repeated graph edges).  Graphs: both ends list an edge in the
 * same order, so one tag and MPI's non-overtaking rule pair the k-th message
 * from p with the k-th receive from p.  Cartesian: the data that a process
 * sends towards -1 along dimension d arrives at its -1 neighbor as the data
 * from that neighbor's +1 side, so the tag names the direction of travel:
 * out-block 2d+s travels with tag base+2d+s, in-block 2d+s (from the -1 / +1
 * side) expects the message sent the other way, tag base+2d+(1-s).
 * The tags are negative, apart from the positive tags of src/coll's other
 * algorithms and below the fixed internal tags of src/core (-100 .. -130). */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "core/topo.h"
#include "binding/core_api.h"

enum { NBR_TAG = -200, NBR_TAG_SPAN = 700 };   /* tags -200 .. -899 */

/* Tag of out-block k (send) or in-block k (receive). */
static int nbr_tag(const cr_topo_t *t, int k, int recv)
{
    if (t->kind != MPI_CART) return NBR_TAG;
    int dir = recv ? (k ^ 1) : k;
    return NBR_TAG - dir % NBR_TAG_SPAN;
}

/* One block to move: buffer, count and type; peer in the comm. */
typedef struct {
    const void *buf;
    MPI_Aint count;
    cr_datatype_t *dt;
} nbr_block_t;

/* The state of one call; the request's sched field points to it for the
 * non-blocking forms. */
typedef struct {
    int nreqs;
    int err;
    cr_request_t **reqs;
} nbr_op_t;

static void nbr_op_free(nbr_op_t *op)
{
    if (!op) return;
    free(op->reqs);
    free(op);
}

/* Start the exchange: recv[k] from t->in[k], send[k] to t->out[k]. */
static int nbr_start(cr_comm_t *c, const cr_topo_t *t, const nbr_block_t *send,
                     const nbr_block_t *recv, nbr_op_t **out)
{
    nbr_op_t *op = calloc(1, sizeof *op);
    if (!op) return cr_error(MPI_ERR_NO_MEM, "no memory for a neighbor collective");
    op->reqs = malloc((size_t)(t->nin + t->nout + 1) * sizeof(*op->reqs));
    if (!op->reqs) {
        free(op);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a neighbor collective");
    }
    /* receives first, so that self-messages and early arrivals find them */
    for (int k = 0; k < t->nin && !op->err; k++) {
        if (t->in[k] == MPI_PROC_NULL) continue;
        cr_request_t *r;
        op->err = cr_irecv((void *)recv[k].buf, recv[k].count, recv[k].dt, t->in[k],
                           nbr_tag(t, k, 1), c, CR_CTX_COLL, &r);
        if (!op->err) op->reqs[op->nreqs++] = r;
    }
    for (int k = 0; k < t->nout && !op->err; k++) {
        if (t->out[k] == MPI_PROC_NULL) continue;
        cr_request_t *r;
        op->err = cr_isend(send[k].buf, send[k].count, send[k].dt, t->out[k], nbr_tag(t, k, 0),
                           c, CR_CTX_COLL, CR_MODE_STD, &r);
        if (!op->err) op->reqs[op->nreqs++] = r;
    }
    *out = op;
    return MPI_SUCCESS;
}

/* Wait for everything started and free op; returns the first error. */
static int nbr_finish(nbr_op_t *op)
{
    for (int i = 0; i < op->nreqs; i++) {
        int e = cr_wait(op->reqs[i], MPI_STATUS_IGNORE);
        if (e && !op->err) op->err = e;
    }
    int err = op->err;
    nbr_op_free(op);
    return err;
}

/* Non-blocking forms: the request polls its operations. */
static int nbr_poll(cr_request_t *r)
{
    nbr_op_t *op = r->sched;
    for (int i = 0; i < op->nreqs; i++)
        if (op->reqs[i] && !__atomic_load_n(&op->reqs[i]->complete, __ATOMIC_ACQUIRE)) return 0;
    for (int i = 0; i < op->nreqs; i++) {
        if (!op->reqs[i]) continue;
        int e = cr_wait(op->reqs[i], MPI_STATUS_IGNORE);
        if (e && !op->err) op->err = e;
        op->reqs[i] = NULL;
    }
    r->err = op->err;
    return 1;
}

static void nbr_on_free(cr_request_t *r)
{
    nbr_op_t *op = r->sched;
    if (op) {
        /* a request freed before completion leaves its parts to finish alone */
        for (int i = 0; i < op->nreqs; i++)
            if (op->reqs[i]) cr_wait(op->reqs[i], MPI_STATUS_IGNORE);
        nbr_op_free(op);
    }
    r->sched = NULL;
}

/* Run the exchange blocking (request == NULL) or start it. */
static int nbr_run(cr_comm_t *c, const cr_topo_t *t, const nbr_block_t *send,
                   const nbr_block_t *recv, MPI_Request *request)
{
    nbr_op_t *op;
    int err = nbr_start(c, t, send, recv, &op);
    if (err) return err;
    if (!request) return nbr_finish(op);
    cr_request_t *r = cr_request_new(CR_REQ_COLL, 1);
    if (!r) {
        nbr_finish(op);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a neighbor collective request");
    }
    r->comm = c;
    r->sched = op;
    r->poll = nbr_poll;
    r->on_free = nbr_on_free;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    *request = r->handle;
    return MPI_SUCCESS;
}

/* The checks every neighbor collective shares; on success *tp is comm's
 * topology and *sblk / *rblk arrays for its out- and in-blocks. */
static int nbr_prepare(MPI_Comm comm, const char *fname, cr_comm_t **cp, const cr_topo_t **tp,
                       nbr_block_t **sblk, nbr_block_t **rblk)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    const cr_topo_t *t = cr_topo_of(c);
    if (c->remote || !t)
        return cr_error(MPI_ERR_TOPOLOGY, "%s: comm has no process topology", fname);
    *sblk = calloc((size_t)t->nout + 1, sizeof(nbr_block_t));
    *rblk = calloc((size_t)t->nin + 1, sizeof(nbr_block_t));
    if (!*sblk || !*rblk) {
        free(*sblk);
        free(*rblk);
        return cr_error(MPI_ERR_NO_MEM, "%s: no memory", fname);
    }
    *cp = c;
    *tp = t;
    return MPI_SUCCESS;
}

static int nbr_type(MPI_Datatype h, const char *fname, const char *arg, cr_datatype_t **out)
{
    cr_datatype_t *dt = cr_datatype_ptr(h);
    if (!dt || (!dt->builtin && !dt->committed))
        return cr_error(MPI_ERR_TYPE, "%s: %s=0x%08x: invalid or uncommitted datatype", fname,
                        arg, (unsigned)h);
    *out = dt;
    return MPI_SUCCESS;
}

static int nbr_count(MPI_Aint n, const char *fname, const char *arg, int k)
{
    if (n >= 0) return MPI_SUCCESS;
    return cr_error(MPI_ERR_COUNT, "%s: %s[%d]=%ld: negative count", fname, arg, k, (long)n);
}

/* The address of element `at` of a buffer of type dt. */
static inline const char *at_elem(const void *buf, MPI_Aint at, const cr_datatype_t *dt)
{
    return (const char *)buf + at * dt->extent;
}

static int allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request,
                      const char *fname)
{
    cr_comm_t *c;
    const cr_topo_t *t;
    nbr_block_t *s, *r;
    cr_datatype_t *sdt, *rdt;
    int err = nbr_prepare(comm, fname, &c, &t, &s, &r);
    if (err) return err;
    if (!(err = nbr_type(sendtype, fname, "sendtype", &sdt)))
        err = nbr_type(recvtype, fname, "recvtype", &rdt);
    if (!err && sendcount < 0) err = nbr_count(sendcount, fname, "sendcount", 0);
    for (int k = 0; k < t->nout && !err; k++) s[k] = (nbr_block_t){ sendbuf, sendcount, sdt };
    for (int k = 0; k < t->nin && !err; k++) {
        MPI_Aint n = recvcounts ? recvcounts[k] : recvcount;
        MPI_Aint at = recvcounts ? displs[k] : (MPI_Aint)k * recvcount;
        err = nbr_count(n, fname, "recvcounts", k);
        r[k] = (nbr_block_t){ at_elem(recvbuf, at, rdt), n, rdt };
    }
    if (!err) err = nbr_run(c, t, s, r, request);
    free(s);
    free(r);
    return err;
}

static int alltoallw(const void *sendbuf, int sendcount, const int sendcounts[],
                     const int sdispls[], const MPI_Aint sdispls_b[], MPI_Datatype sendtype,
                     const MPI_Datatype sendtypes[], void *recvbuf, int recvcount,
                     const int recvcounts[], const int rdispls[], const MPI_Aint rdispls_b[],
                     MPI_Datatype recvtype, const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request *request, const char *fname)
{
    cr_comm_t *c;
    const cr_topo_t *t;
    nbr_block_t *s, *r;
    cr_datatype_t *sdt = NULL, *rdt = NULL;
    int err = nbr_prepare(comm, fname, &c, &t, &s, &r);
    if (err) return err;
    if (!sendtypes && !(err = nbr_type(sendtype, fname, "sendtype", &sdt)))
        err = nbr_type(recvtype, fname, "recvtype", &rdt);
    for (int k = 0; k < t->nout && !err; k++) {
        cr_datatype_t *dt = sdt;
        if (sendtypes) err = nbr_type(sendtypes[k], fname, "sendtypes[k]", &dt);
        if (err) break;
        MPI_Aint n = sendcounts ? sendcounts[k] : sendcount;
        const char *p;
        if (sdispls_b) p = (const char *)sendbuf + sdispls_b[k];               /* bytes (w) */
        else p = at_elem(sendbuf, sendcounts ? sdispls[k] : (MPI_Aint)k * sendcount, dt);
        err = nbr_count(n, fname, "sendcounts", k);
        s[k] = (nbr_block_t){ p, n, dt };
    }
    for (int k = 0; k < t->nin && !err; k++) {
        cr_datatype_t *dt = rdt;
        if (recvtypes) err = nbr_type(recvtypes[k], fname, "recvtypes[k]", &dt);
        if (err) break;
        MPI_Aint n = recvcounts ? recvcounts[k] : recvcount;
        const char *p;
        if (rdispls_b) p = (const char *)recvbuf + rdispls_b[k];
        else p = at_elem(recvbuf, recvcounts ? rdispls[k] : (MPI_Aint)k * recvcount, dt);
        err = nbr_count(n, fname, "recvcounts", k);
        r[k] = (nbr_block_t){ p, n, dt };
    }
    if (!err) err = nbr_run(c, t, s, r, request);
    free(s);
    free(r);
    return err;
}

/* ---- the calls ----------------------------------------------------------------- */
int core_neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype,
                      comm, NULL, "MPI_Neighbor_allgather");
}

int core_neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype,
                      comm, NULL, "MPI_Neighbor_allgatherv");
}

int core_neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (sendcount < 0 || recvcount < 0)
        return cr_error(MPI_ERR_COUNT, "MPI_Neighbor_alltoall: sendcount=%d, recvcount=%d: "
                        "negative count", sendcount, recvcount);
    return alltoallw(sendbuf, sendcount, NULL, NULL, NULL, sendtype, NULL, recvbuf, recvcount,
                     NULL, NULL, NULL, recvtype, NULL, comm, NULL, "MPI_Neighbor_alltoall");
}

int core_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallw(sendbuf, 0, sendcounts, sdispls, NULL, sendtype, NULL, recvbuf, 0,
                     recvcounts, rdispls, NULL, recvtype, NULL, comm, NULL,
                     "MPI_Neighbor_alltoallv");
}

int core_neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm)
{
    return alltoallw(sendbuf, 0, sendcounts, NULL, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf,
                     0, recvcounts, NULL, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, NULL,
                     "MPI_Neighbor_alltoallw");
}

int core_ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL, NULL, recvtype,
                      comm, request, "MPI_Ineighbor_allgather");
}

int core_ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs, recvtype,
                      comm, request, "MPI_Ineighbor_allgatherv");
}

int core_ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    if (sendcount < 0 || recvcount < 0)
        return cr_error(MPI_ERR_COUNT, "MPI_Ineighbor_alltoall: sendcount=%d, recvcount=%d: "
                        "negative count", sendcount, recvcount);
    return alltoallw(sendbuf, sendcount, NULL, NULL, NULL, sendtype, NULL, recvbuf, recvcount,
                     NULL, NULL, NULL, recvtype, NULL, comm, request, "MPI_Ineighbor_alltoall");
}

int core_ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    return alltoallw(sendbuf, 0, sendcounts, sdispls, NULL, sendtype, NULL, recvbuf, 0,
                     recvcounts, rdispls, NULL, recvtype, NULL, comm, request,
                     "MPI_Ineighbor_alltoallv");
}

int core_ineighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    return alltoallw(sendbuf, 0, sendcounts, NULL, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf,
                     0, recvcounts, NULL, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, request,
                     "MPI_Ineighbor_alltoallw");
}
