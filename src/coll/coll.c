/* SPDX-License-Identifier: MIT */
/* The collective calls: each turns its arguments into a coll_args_t, and
 * coll_call() selects an algorithm, builds its schedule and either runs it to
 * completion (blocking forms) or starts it as a request (non-blocking forms,
 * coll_nbc.c).  The blocking and non-blocking forms share everything but the
 * last step, so they always agree on algorithms and on message tags. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "binding/core_api.h"

/* Collective traffic uses CR_CTX_COLL with tags 1 .. 2^30 (src/core uses
 * negative tags there for its internal exchanges).  Every rank calls a
 * communicator's collectives in the same order, so the sequence numbers, and
 * thus the tags, agree; the tag wraps only after 2^30 calls, far beyond any
 * number of collectives that can be outstanding at once. */
static int next_tag(cr_comm_t *c)
{
    unsigned seq = c->coll_seq++;
    return (int)(seq & 0x3fffffffu) + 1;
}

/* Does this process of an intercommunicator pass MPI_IN_PLACE for a buffer it
 * uses?  MPI_IN_PLACE has no meaning between two disjoint groups; buffers the
 * standard says to ignore (the root's send buffer in Gather, the root group's
 * receive buffers in Scatter, everything at MPI_PROC_NULL) may be anything. */
static int inter_in_place(coll_kind_t coll, const coll_args_t *a)
{
    if (a->root == MPI_PROC_NULL) return 0;
    switch (coll) {
    case COLL_GATHER: case COLL_GATHERV: case COLL_REDUCE:
        return a->root == MPI_ROOT ? a->rbuf == MPI_IN_PLACE : a->sbuf == MPI_IN_PLACE;
    case COLL_SCATTER: case COLL_SCATTERV:
        return a->root == MPI_ROOT ? a->sbuf == MPI_IN_PLACE : a->rbuf == MPI_IN_PLACE;
    default:
        return a->sbuf == MPI_IN_PLACE || a->rbuf == MPI_IN_PLACE;
    }
}

/* Run (req == NULL) or start one collective.  `trivial`: a blocking call that
 * has nothing to do on any rank (no data, or a single rank with no local
 * copy) returns at once; the same decision is taken on every rank, so the
 * sequence numbers stay in step. */
static int coll_call(coll_kind_t coll, cr_comm_t *c, const coll_args_t *a, MPI_Request *req,
                     int trivial, const char *what)
{
    if (c->remote && inter_in_place(coll, a))
        return cr_error(MPI_ERR_BUFFER, "%s: %s=MPI_IN_PLACE: not allowed on an intercommunicator",
                        what, a->sbuf == MPI_IN_PLACE ? "sendbuf" : "recvbuf");
    const coll_alg_t *alg = coll_select(coll, c, a);
    if (!alg)
        return cr_error(MPI_ERR_UNSUPPORTED_OPERATION,
                        "%s on an %s is not implemented yet", what,
                        c->remote ? "intercommunicator" : "intracommunicator");
    if (!req && trivial) return MPI_SUCCESS;
    int tag = next_tag(c);
    if (req) return coll_nbc_start(c, tag, alg, a, req);
    coll_sched_t s;
    coll_sched_init(&s, c, tag);
    int e = alg->build(&s, a);
    if (!e) e = coll_sched_run(&s);
    coll_sched_free(&s);
    return e;
}

/* The datatype of an argument that is used (NULL for one the standard says
 * to ignore, whose handle may be anything). */
static cr_datatype_t *dt_if(int used, MPI_Datatype h)
{
    return used ? cr_datatype_ptr(h) : NULL;
}

/* Rooted collectives: is this process the root?  On an intercommunicator the
 * root passes MPI_ROOT. */
static int is_root_of(const cr_comm_t *c, int root)
{
    return c->remote ? root == MPI_ROOT : c->rank == root;
}

/* On an intercommunicator the processes of the root's group (MPI_ROOT,
 * MPI_PROC_NULL) have no data of their own to contribute or receive: only
 * the root's side of the root arguments is significant there. */
static int in_root_group(const cr_comm_t *c, int root)
{
    return c->remote && (root == MPI_ROOT || root == MPI_PROC_NULL);
}

static size_t block_bytes(MPI_Aint count, const cr_datatype_t *dt)
{
    return dt ? (size_t)count * (size_t)dt->size : 0;
}

/* ---- barrier, bcast, reduce, allreduce ------------------------------------ */
static int barrier(MPI_Comm comm, MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    coll_args_t a = { 0 };
    return coll_call(COLL_BARRIER, c, &a, req, !c->remote && c->size == 1, "MPI_Barrier");
}

static int bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    coll_args_t a = { .rbuf = buffer, .count = count, .dt = dt, .root = root };
    a.bytes = coll_bytes(&a);
    return coll_call(COLL_BCAST, c, &a, req, (!c->remote && c->size == 1) || a.bytes == 0, "MPI_Bcast");
}

/* The arguments of a reduction over count elements; checks the op. */
static int reduction(coll_args_t *a, const void *sendbuf, void *recvbuf, MPI_Aint count,
                     MPI_Datatype datatype, MPI_Op op, int root)
{
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    cr_op_t *o = cr_op_ptr(op);
    int e = cr_op_check(o, dt);
    if (e) return e;
    *a = (coll_args_t){ .sbuf = sendbuf, .rbuf = recvbuf, .count = count, .dt = dt, .op = o,
                        .root = root };
    a->bytes = coll_bytes(a);
    return MPI_SUCCESS;
}

static int reduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    coll_args_t a;
    int e = reduction(&a, sendbuf, recvbuf, count, datatype, op, root);
    if (e) return e;
    return coll_call(COLL_REDUCE, c, &a, req, a.bytes == 0, "MPI_Reduce");
}

static int allreduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    coll_args_t a;
    int e = reduction(&a, sendbuf, recvbuf, count, datatype, op, 0);
    if (e) return e;
    return coll_call(COLL_ALLREDUCE, c, &a, req, a.bytes == 0, "MPI_Allreduce");
}

/* ---- gather, scatter ------------------------------------------------------ */
static int gather(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Aint recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    int is_root = is_root_of(c, root);
    int sends = sendbuf != MPI_IN_PLACE && !in_root_group(c, root);
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .root = root,
                      .scount = sendcount, .sdt = dt_if(sends, sendtype),
                      .rcount = recvcount, .rdt = dt_if(is_root, recvtype) };
    a.bytes = is_root ? block_bytes(recvcount, a.rdt) : block_bytes(sendcount, a.sdt);
    return coll_call(COLL_GATHER, c, &a, req, 0, "MPI_Gather");
}

static int gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    int is_root = is_root_of(c, root);
    int sends = sendbuf != MPI_IN_PLACE && !in_root_group(c, root);
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .root = root,
                      .scount = sendcount, .sdt = dt_if(sends, sendtype),
                      .rdt = dt_if(is_root, recvtype),
                      .rcounts = is_root ? recvcounts : NULL, .rdispls = is_root ? displs : NULL };
    return coll_call(COLL_GATHERV, c, &a, req, 0, "MPI_Gatherv");
}

static int scatter(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                   void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm, MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    int is_root = is_root_of(c, root);
    int receives = recvbuf != MPI_IN_PLACE && !in_root_group(c, root);
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .root = root,
                      .scount = sendcount, .sdt = dt_if(is_root, sendtype),
                      .rcount = recvcount, .rdt = dt_if(receives, recvtype) };
    a.bytes = is_root ? block_bytes(sendcount, a.sdt) : block_bytes(recvcount, a.rdt);
    return coll_call(COLL_SCATTER, c, &a, req, 0, "MPI_Scatter");
}

static int scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                    MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    int is_root = is_root_of(c, root);
    int receives = recvbuf != MPI_IN_PLACE && !in_root_group(c, root);
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .root = root,
                      .sdt = dt_if(is_root, sendtype),
                      .scounts = is_root ? sendcounts : NULL, .sdispls = is_root ? displs : NULL,
                      .rcount = recvcount, .rdt = dt_if(receives, recvtype) };
    return coll_call(COLL_SCATTERV, c, &a, req, 0, "MPI_Scatterv");
}

/* ---- allgather, alltoall ---------------------------------------------------- */
static int allgather(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                     void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf,
                      .scount = sendcount, .sdt = dt_if(sendbuf != MPI_IN_PLACE, sendtype),
                      .rcount = recvcount, .rdt = cr_datatype_ptr(recvtype) };
    a.bytes = block_bytes(recvcount, a.rdt);
    return coll_call(COLL_ALLGATHER, c, &a, req, 0, "MPI_Allgather");
}

static int allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                      MPI_Comm comm, MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf,
                      .scount = sendcount, .sdt = dt_if(sendbuf != MPI_IN_PLACE, sendtype),
                      .rdt = cr_datatype_ptr(recvtype), .rcounts = recvcounts,
                      .rdispls = displs };
    return coll_call(COLL_ALLGATHERV, c, &a, req, 0, "MPI_Allgatherv");
}

static int alltoall(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf,
                      .scount = sendcount, .sdt = dt_if(sendbuf != MPI_IN_PLACE, sendtype),
                      .rcount = recvcount, .rdt = cr_datatype_ptr(recvtype) };
    a.bytes = block_bytes(recvcount, a.rdt);
    return coll_call(COLL_ALLTOALL, c, &a, req, 0, "MPI_Alltoall");
}

static int alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    int inplace = sendbuf == MPI_IN_PLACE;
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .sdt = dt_if(!inplace, sendtype),
                      .scounts = inplace ? NULL : sendcounts,
                      .sdispls = inplace ? NULL : sdispls,
                      .rdt = cr_datatype_ptr(recvtype), .rcounts = recvcounts,
                      .rdispls = rdispls };
    return coll_call(COLL_ALLTOALLV, c, &a, req, 0, "MPI_Alltoallv");
}

static int alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                     const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    int inplace = sendbuf == MPI_IN_PLACE;
    int n = c->remote ? c->remote->size : c->size;
    cr_datatype_t **types = malloc((size_t)(2 * n + 1) * sizeof(*types));
    if (!types) return cr_error(MPI_ERR_NO_MEM, "MPI_Alltoallw: out of memory for %d types", n);
    cr_datatype_t **st = types, **rt = types + n;
    for (int i = 0; i < n; i++) {
        st[i] = inplace ? NULL : cr_datatype_ptr(sendtypes[i]);
        rt[i] = cr_datatype_ptr(recvtypes[i]);
    }
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf,
                      .scounts = inplace ? NULL : sendcounts,
                      .sdispls = inplace ? NULL : sdispls, .sdts = inplace ? NULL : st,
                      .rcounts = recvcounts, .rdispls = rdispls, .rdts = rt };
    /* the schedule keeps the datatype pointers, not this array */
    int e = coll_call(COLL_ALLTOALLW, c, &a, req, 0, "MPI_Alltoallw");
    free(types);
    return e;
}

/* ---- reduce_scatter, scan, exscan ------------------------------------------- */
static int reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                          MPI_Aint recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                          MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    coll_args_t a;
    int e = reduction(&a, sendbuf, recvbuf, 0, datatype, op, 0);
    if (e) return e;
    a.rcounts = recvcounts;
    a.rcount = recvcount;
    MPI_Aint total = 0;
    if (recvcounts) {
        for (int i = 0; i < c->size; i++) total += recvcounts[i];
    } else {
        total = recvcount * c->size;
    }
    a.bytes = block_bytes(total, a.dt);
    return coll_call(recvcounts ? COLL_REDUCE_SCATTER : COLL_REDUCE_SCATTER_BLOCK, c, &a, req,
                     a.bytes == 0, recvcounts ? "MPI_Reduce_scatter" : "MPI_Reduce_scatter_block");
}

static int scan(coll_kind_t coll, const void *sendbuf, void *recvbuf, MPI_Aint count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    const char *what = coll == COLL_SCAN ? "MPI_Scan" : "MPI_Exscan";
    /* MPI-4.0 6.11: the scans are defined on intracommunicators only */
    if (c->remote)
        return cr_error(MPI_ERR_COMM, "%s: comm is an intercommunicator: not defined there",
                        what);
    coll_args_t a;
    int e = reduction(&a, sendbuf, recvbuf, count, datatype, op, 0);
    if (e) return e;
    int trivial = a.bytes == 0 || (coll == COLL_EXSCAN && c->size == 1);
    return coll_call(coll, c, &a, req, trivial, what);
}

/* ---- the MPI entry points ---------------------------------------------------- */
int core_barrier(MPI_Comm comm) { return barrier(comm, NULL); }
int core_ibarrier(MPI_Comm comm, MPI_Request *request) { return barrier(comm, request); }

int core_bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast(buffer, (MPI_Aint)count, datatype, root, comm, NULL);
}
int core_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return bcast(buffer, count, datatype, root, comm, NULL);
}
int core_ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    return bcast(buffer, count, datatype, root, comm, request);
}

int core_reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    return reduce(sendbuf, recvbuf, (MPI_Aint)count, datatype, op, root, comm, NULL);
}
int core_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, NULL);
}
int core_ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    return reduce(sendbuf, recvbuf, count, datatype, op, root, comm, request);
}

int core_allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return allreduce(sendbuf, recvbuf, (MPI_Aint)count, datatype, op, comm, NULL);
}
int core_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm)
{
    return allreduce(sendbuf, recvbuf, count, datatype, op, comm, NULL);
}
int core_iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return allreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int core_gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather(sendbuf, (MPI_Aint)sendcount, sendtype, recvbuf, (MPI_Aint)recvcount,
                  recvtype, root, comm, NULL);
}
int core_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL);
}
int core_igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                  request);
}
int core_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                   comm, NULL);
}
int core_igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    return gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                   comm, request);
}

int core_scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                   MPI_Comm comm)
{
    return scatter(sendbuf, (MPI_Aint)sendcount, sendtype, recvbuf, (MPI_Aint)recvcount,
                   recvtype, root, comm, NULL);
}
int core_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL);
}
int core_iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                   request);
}
int core_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                    comm, NULL);
}
int core_iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    return scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                    comm, request);
}

int core_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather(sendbuf, (MPI_Aint)sendcount, sendtype, recvbuf, (MPI_Aint)recvcount,
                     recvtype, comm, NULL);
}
int core_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL);
}
int core_iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int core_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                      NULL);
}
int core_iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,
                      request);
}

int core_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall(sendbuf, (MPI_Aint)sendcount, sendtype, recvbuf, (MPI_Aint)recvcount,
                    recvtype, comm, NULL);
}
int core_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL);
}
int core_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}
int core_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm, NULL);
}
int core_ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request *request)
{
    return alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                     recvtype, comm, request);
}
int core_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                     recvtypes, comm, NULL);
}
int core_ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    return alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                     recvtypes, comm, request);
}

int core_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, NULL);
}
int core_ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, request);
}
int core_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, NULL);
}
int core_ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    return reduce_scatter(sendbuf, recvbuf, NULL, recvcount, datatype, op, comm, request);
}

int core_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    return scan(COLL_SCAN, sendbuf, recvbuf, count, datatype, op, comm, NULL);
}
int core_iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    return scan(COLL_SCAN, sendbuf, recvbuf, count, datatype, op, comm, request);
}
int core_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    return scan(COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, NULL);
}
int core_iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return scan(COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, request);
}
