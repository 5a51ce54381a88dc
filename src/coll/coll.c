/* SPDX-License-Identifier: MIT */
/* The collective calls: one core entry per collective (src/coll/api.h) serves
 * its blocking, non-blocking and persistent forms, int and large-count alike.
 * Each turns its arguments into a coll_args_t, and coll_call() selects an
 * algorithm, builds its schedule and either runs it to completion (blocking),
 * starts it as a request (non-blocking, coll_nbc.c) or keeps it in a
 * persistent request that MPI_Start runs again and again (coll_nbc.c).  The
 * three forms share everything but the selection's mode and the last step;
 * every rank makes the same call in the same form, so they agree on
 * algorithms and on message tags.  On a node's shared area the non-blocking
 * and persistent forms of some collectives run the shm algorithms' state
 * machines instead of a schedule (coll_nbshm.c). */
#include <stdlib.h>
#include <string.h>
#include "coll/coll.h"
#include "coll/api.h"
#include "coll/coll_shm.h"
#include "core/threads.h"

/* Collective traffic uses CR_CTX_COLL with tags 1 .. 2^30 (src/core uses
 * negative tags there for its internal exchanges, the tags above 2^30 are the
 * area makings' and partitioned communication's).  Non-blocking and
 * persistent collectives take the odd tags, blocking ones that run as
 * message schedules the even ones, each from a sequence of its own: every
 * rank calls a communicator's collectives in the same order, so the
 * sequence numbers, and thus the tags, agree; and a non-blocking call
 * started before a blocking one on one rank and after it on another (an
 * order MPI calls erroneous, which MPICH and Open MPI run, and mpi4py's
 * fallback for MPI_Comm_iagree uses) still gives each its own tags.  A
 * sequence wraps only after 2^29 calls, far beyond any number of
 * collectives that can be outstanding at once.  A persistent collective
 * takes its tag at initialisation (also collective, also in order) and
 * keeps it for every start. */
int coll_next_tag(cr_comm_t *c)
{
    unsigned seq = c->coll_seq++;
    return (int)((seq & 0x1fffffffu) << 1) + 1;
}

int coll_blocking_tag(cr_comm_t *c)
{
    unsigned seq = c->coll_bseq++;
    return (int)((seq & 0x1fffffffu) << 1) + 2;
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

const char *const coll_names[COLL_NCOLL] = {
    "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Gatherv",
    "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall",
    "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
    "MPI_Scan", "MPI_Exscan",
};

/* Build alg's schedule for a blocking call and run it to completion. */
static int run_sched(const coll_alg_t *alg, cr_comm_t *c, int tag, const coll_args_t *a)
{
    coll_sched_t s;
    coll_sched_init(&s, c, tag);
    int e = alg->build(&s, a);
    if (!e) e = coll_sched_run(&s);
    coll_sched_free(&s);
    return e;
}

static int coll_call_mt(coll_kind_t coll, cr_comm_t *c, const coll_args_t *a, cr_how_t how,
                        MPI_Request *req, int trivial);

/* Run (blocking), start (non-blocking) or set up (persistent) one collective.
 * `trivial`: a blocking call that has nothing to do on any rank (no data, or a
 * single rank with no local copy) returns at once; the same decision is taken
 * on every rank, so the sequence numbers stay in step.  With threads a
 * blocking call comes here without the library lock (maint/notes.py,
 * LIB_LOCK_FREE_BLOCKING): coll_call_mt decides which lock it needs, and
 * comes back here holding the library lock when it needs that. */
static int coll_call(coll_kind_t coll, cr_comm_t *c, const coll_args_t *a, cr_how_t how,
                     MPI_Request *req, int trivial)
{
    /* the same arguments in the same registers: a jump (testing `how` here
     * too cost single-threaded calls 5 instructions of register shuffling) */
    if (CR_UNLIKELY(cr_threaded) && !cr_lib_held())
        return coll_call_mt(coll, c, a, how, req, trivial);
    const char *what = coll_names[coll];
    /* Every collective has an algorithm for intracommunicators, so a trivial
     * blocking call there needs no selection at all. */
    if (how == CR_BLOCKING && trivial && !c->remote) return MPI_SUCCESS;
    if (c->remote && inter_in_place(coll, a))
        return cr_error(MPI_ERR_BUFFER, "%s: %s=MPI_IN_PLACE: not allowed on an intercommunicator",
                        what, a->sbuf == MPI_IN_PLACE ? "sendbuf" : "recvbuf");
    const coll_alg_t *alg = how != CR_BLOCKING ? coll_select_nb(coll, c, a)
                            : !trivial         ? coll_select(coll, c, a)
                                               : coll_select_sched(coll, c, a);
    if (!alg)
        return cr_error(MPI_ERR_UNSUPPORTED_OPERATION,
                        "%s on an %s is not implemented yet", what,
                        c->remote ? "intercommunicator" : "intracommunicator");
    if (how == CR_BLOCKING && trivial) return MPI_SUCCESS;
    if (alg->run && how == CR_BLOCKING) return alg->run(c, a);   /* direct: no tag, no schedule */
    if (alg->run)   /* a shm algorithm's state machine (coll_nbshm.c): no tag either */
        return coll_nbc_start_shm(c, coll, a, how == CR_PERSISTENT, req);
    if (how == CR_NONBLOCKING) return coll_nbc_start(c, coll_next_tag(c), alg, a, req);
    if (how == CR_PERSISTENT) return coll_persist_init(c, coll_next_tag(c), alg, a, req);
    return run_sched(alg, c, coll_blocking_tag(c), a);
}

/* The blocking call of a threaded process (docs/threads.md, "Collectives on
 * distinct communicators").  On an intracommunicator whose shared-memory
 * area is made and published (coll_shm_unlocked), a call whose algorithm
 * runs on the area (shm, cma) takes no library lock: the area's protocol
 * keeps the ranks of one communicator in step, MPI forbids two threads to
 * call collectives on one communicator at once, and nothing else of the
 * library is touched (builtin ops only: user functions run under the
 * library lock).  Its waits poll the area and the communicator's channel
 * alone (coll_shm.c, wait_unlocked).  Everything else runs under the
 * library lock as before: the first calls (selection's first-use data, the
 * area made, collectively, then published for the calls without the lock),
 * message algorithms (schedules over point-to-point: requests from the
 * global pool, the progress engine), intercommunicators, communicators
 * spanning nodes, non-blocking calls of this rank unfinished on the area, a
 * user op, and a caller that holds the lock already (the hierarchical
 * collectives' phases, a fence: coll_call does not come here then).  A
 * non-blocking or persistent form that comes without the lock (none is
 * bound so) takes it. */
static __attribute__((noinline)) int coll_call_mt(coll_kind_t coll, cr_comm_t *c,
                                                  const coll_args_t *a, cr_how_t how,
                                                  MPI_Request *req, int trivial)
{
    int blocking = how == CR_BLOCKING;
    if (blocking && trivial && !c->remote) return MPI_SUCCESS;
    coll_shm_t *sh = blocking ? coll_shm_unlocked(c) : NULL;
    if (sh && (!a->op || a->op->builtin)) {
        const coll_alg_t *alg = coll_select(coll, c, a);
        if (alg && alg->run && (alg->flags & COLL_ALG_SHM)) {
            int was = sh->unlocked;   /* (a call inside a call keeps the outer's) */
            sh->unlocked = 1;
            int e = alg->run(c, a);
            sh->unlocked = was;
            return e;
        }
    }
    cr_lib_lock_slow();
    int e = coll_call(coll, c, a, how, req, trivial);
    if (blocking && !c->remote) coll_shm_publish_unlocked(c);
    cr_lib_unlock_slow();
    return e;
}

int coll_fallback(coll_kind_t coll, cr_comm_t *c, const coll_args_t *a)
{
    const coll_alg_t *alg = coll_select_sched(coll, c, a);
    if (!alg)
        return cr_error(MPI_ERR_UNSUPPORTED_OPERATION, "%s: no algorithm for this call",
                        coll_names[coll]);
    /* a schedule is the library lock's (a call without it only comes here
     * when its area vanished, which a published area does not) */
    cr_lib_lock();
    int e = run_sched(alg, c, coll_blocking_tag(c), a);
    cr_lib_unlock();
    return e;
}

/* A datatype argument that is used, or NULL for one the standard says to
 * ignore (the binding passes NULL where it skipped the check). */
static cr_datatype_t *dt_if(int used, cr_datatype_t *dt)
{
    return used ? dt : NULL;
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

/* Gather, scatter, allgather, alltoall with one count for every rank: on an
 * intracommunicator the type signatures must match, so a call whose block is
 * empty on this rank is empty on every rank, and no rank has anything to do.
 * (On an intercommunicator the two groups' blocks may differ in size.) */
static int no_data(const cr_comm_t *c, const coll_args_t *a)
{
    return !c->remote && a->bytes == 0;
}

/* A blocking call on an intracommunicator that moves no bytes returns before
 * its arguments are gathered and passed on (a coll_args_t is some 30 stores;
 * with coll_call they were 60 of a 0-byte MPI_Bcast's 155 instructions). */
static inline int nothing_to_do(const cr_comm_t *c, cr_how_t how, size_t bytes)
{
    return how == CR_BLOCKING && !c->remote && bytes == 0;
}

static cr_vec_t vec_if(int used, cr_vec_t v)
{
    return used ? v : CR_VEC_NONE;
}

/* ---- barrier, bcast, reduce, allreduce ------------------------------------ */
int core_barrier(cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    coll_args_t a = { 0 };
    return coll_call(COLL_BARRIER, comm, &a, how, request, !comm->remote && comm->size == 1);
}

int core_bcast(void *buffer, MPI_Count count, cr_datatype_t *datatype, int root, cr_comm_t *comm,
               cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    if (nothing_to_do(comm, how, block_bytes(count, datatype) * (comm->size > 1)))
        return MPI_SUCCESS;
    coll_args_t a = { .rbuf = buffer, .count = count, .dt = datatype, .root = root };
    a.bytes = datatype ? coll_bytes(&a) : 0;
    return coll_call(COLL_BCAST, comm, &a, how, request,
                     (!comm->remote && comm->size == 1) || a.bytes == 0);
}

/* The arguments of a reduction over count elements (the op already checked). */
static void reduction_args(coll_args_t *a, const void *sendbuf, void *recvbuf, MPI_Aint count,
                           cr_datatype_t *dt, cr_op_t *op, int root)
{
    *a = (coll_args_t){ .sbuf = sendbuf, .rbuf = recvbuf, .count = count, .dt = dt, .op = op,
                        .root = root };
    a->bytes = coll_bytes(a);
}

/* The same, checking the op first. */
static int reduction(coll_args_t *a, const void *sendbuf, void *recvbuf, MPI_Aint count,
                     cr_datatype_t *dt, cr_op_t *op, int root)
{
    int e = cr_op_check(op, dt);
    if (e) return e;
    reduction_args(a, sendbuf, recvbuf, count, dt, op, root);
    return MPI_SUCCESS;
}

int core_reduce(const void *sendbuf, void *recvbuf, MPI_Count count, cr_datatype_t *datatype,
                cr_op_t *op, int root, cr_comm_t *comm, cr_how_t how, cr_info_t *info,
                MPI_Request *request)
{
    coll_args_t a;
    int e = cr_op_check(op, datatype);
    if (e) return e;
    if (nothing_to_do(comm, how, block_bytes(count, datatype))) return MPI_SUCCESS;
    reduction_args(&a, sendbuf, recvbuf, count, datatype, op, root);   /* op checked above */
    return coll_call(COLL_REDUCE, comm, &a, how, request, a.bytes == 0);
}

int core_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, cr_datatype_t *datatype,
                   cr_op_t *op, cr_comm_t *comm, cr_how_t how, cr_info_t *info,
                   MPI_Request *request)
{
    coll_args_t a;
    int e = cr_op_check(op, datatype);
    if (e) return e;
    if (nothing_to_do(comm, how, block_bytes(count, datatype))) return MPI_SUCCESS;
    reduction_args(&a, sendbuf, recvbuf, count, datatype, op, 0);   /* op checked above */
    return coll_call(COLL_ALLREDUCE, comm, &a, how, request, a.bytes == 0);
}

/* ---- gather, scatter ------------------------------------------------------ */
int core_gather(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype, void *recvbuf,
                MPI_Count recvcount, cr_datatype_t *recvtype, int root, cr_comm_t *comm,
                cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    int is_root = is_root_of(comm, root);
    int sends = sendbuf != MPI_IN_PLACE && !in_root_group(comm, root);
    size_t bytes = is_root ? block_bytes(recvcount, dt_if(is_root, recvtype))
                           : block_bytes(sendcount, dt_if(sends, sendtype));
    if (nothing_to_do(comm, how, bytes)) return MPI_SUCCESS;
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .root = root,
                      .scount = sendcount, .sdt = dt_if(sends, sendtype),
                      .rcount = recvcount, .rdt = dt_if(is_root, recvtype) };
    a.bytes = bytes;
    return coll_call(COLL_GATHER, comm, &a, how, request, no_data(comm, &a));
}

int core_gatherv(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype, void *recvbuf,
                 cr_vec_t recvcounts, cr_vec_t displs, cr_datatype_t *recvtype, int root,
                 cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    int is_root = is_root_of(comm, root);
    int sends = sendbuf != MPI_IN_PLACE && !in_root_group(comm, root);
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .root = root,
                      .scount = sendcount, .sdt = dt_if(sends, sendtype),
                      .rdt = dt_if(is_root, recvtype),
                      .rcounts = vec_if(is_root, recvcounts), .rdispls = vec_if(is_root, displs) };
    return coll_call(COLL_GATHERV, comm, &a, how, request, 0);
}

int core_scatter(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                 void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype, int root,
                 cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    int is_root = is_root_of(comm, root);
    int receives = recvbuf != MPI_IN_PLACE && !in_root_group(comm, root);
    size_t bytes = is_root ? block_bytes(sendcount, dt_if(is_root, sendtype))
                           : block_bytes(recvcount, dt_if(receives, recvtype));
    if (nothing_to_do(comm, how, bytes)) return MPI_SUCCESS;
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .root = root,
                      .scount = sendcount, .sdt = dt_if(is_root, sendtype),
                      .rcount = recvcount, .rdt = dt_if(receives, recvtype) };
    a.bytes = bytes;
    return coll_call(COLL_SCATTER, comm, &a, how, request, no_data(comm, &a));
}

int core_scatterv(const void *sendbuf, cr_vec_t sendcounts, cr_vec_t displs,
                  cr_datatype_t *sendtype, void *recvbuf, MPI_Count recvcount,
                  cr_datatype_t *recvtype, int root, cr_comm_t *comm, cr_how_t how,
                  cr_info_t *info, MPI_Request *request)
{
    int is_root = is_root_of(comm, root);
    int receives = recvbuf != MPI_IN_PLACE && !in_root_group(comm, root);
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .root = root,
                      .sdt = dt_if(is_root, sendtype),
                      .scounts = vec_if(is_root, sendcounts), .sdispls = vec_if(is_root, displs),
                      .rcount = recvcount, .rdt = dt_if(receives, recvtype) };
    return coll_call(COLL_SCATTERV, comm, &a, how, request, 0);
}

/* ---- allgather, alltoall ---------------------------------------------------- */
int core_allgather(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                   void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype, cr_comm_t *comm,
                   cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    if (nothing_to_do(comm, how, block_bytes(recvcount, recvtype))) return MPI_SUCCESS;
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf,
                      .scount = sendcount, .sdt = dt_if(sendbuf != MPI_IN_PLACE, sendtype),
                      .rcount = recvcount, .rdt = recvtype };
    a.bytes = block_bytes(recvcount, a.rdt);
    return coll_call(COLL_ALLGATHER, comm, &a, how, request, no_data(comm, &a));
}

int core_allgatherv(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                    void *recvbuf, cr_vec_t recvcounts, cr_vec_t displs, cr_datatype_t *recvtype,
                    cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf,
                      .scount = sendcount, .sdt = dt_if(sendbuf != MPI_IN_PLACE, sendtype),
                      .rdt = recvtype, .rcounts = recvcounts, .rdispls = displs };
    return coll_call(COLL_ALLGATHERV, comm, &a, how, request, 0);
}

int core_alltoall(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                  void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype, cr_comm_t *comm,
                  cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    if (nothing_to_do(comm, how, block_bytes(recvcount, recvtype))) return MPI_SUCCESS;
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf,
                      .scount = sendcount, .sdt = dt_if(sendbuf != MPI_IN_PLACE, sendtype),
                      .rcount = recvcount, .rdt = recvtype };
    a.bytes = block_bytes(recvcount, a.rdt);
    return coll_call(COLL_ALLTOALL, comm, &a, how, request, no_data(comm, &a));
}

int core_alltoallv(const void *sendbuf, cr_vec_t sendcounts, cr_vec_t sdispls,
                   cr_datatype_t *sendtype, void *recvbuf, cr_vec_t recvcounts, cr_vec_t rdispls,
                   cr_datatype_t *recvtype, cr_comm_t *comm, cr_how_t how, cr_info_t *info,
                   MPI_Request *request)
{
    int sends = sendbuf != MPI_IN_PLACE;
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .sdt = dt_if(sends, sendtype),
                      .scounts = vec_if(sends, sendcounts), .sdispls = vec_if(sends, sdispls),
                      .rdt = recvtype, .rcounts = recvcounts, .rdispls = rdispls };
    return coll_call(COLL_ALLTOALLV, comm, &a, how, request, 0);
}

/* The schedule keeps the datatype pointers (with references of its own), not
 * the arrays, which the binding frees when the call returns. */
int core_alltoallw(const void *sendbuf, cr_vec_t sendcounts, cr_vec_t sdispls,
                   cr_datatype_t *const sendtypes[], void *recvbuf, cr_vec_t recvcounts,
                   cr_vec_t rdispls, cr_datatype_t *const recvtypes[], cr_comm_t *comm,
                   cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    int sends = sendbuf != MPI_IN_PLACE;
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf,
                      .scounts = vec_if(sends, sendcounts), .sdispls = vec_if(sends, sdispls),
                      .sdts = sends ? sendtypes : NULL,
                      .rcounts = recvcounts, .rdispls = rdispls, .rdts = recvtypes };
    return coll_call(COLL_ALLTOALLW, comm, &a, how, request, 0);
}

/* ---- reduce_scatter, scan, exscan ------------------------------------------- */
static int reduce_scatter(const void *sendbuf, void *recvbuf, cr_vec_t recvcounts,
                          MPI_Aint recvcount, cr_datatype_t *datatype, cr_op_t *op,
                          cr_comm_t *c, cr_how_t how, MPI_Request *req)
{
    coll_args_t a;
    int e = reduction(&a, sendbuf, recvbuf, 0, datatype, op, 0);
    if (e) return e;
    a.rcounts = recvcounts;
    a.rcount = recvcount;
    MPI_Aint total = 0;
    if (recvcounts.p) {
        for (int i = 0; i < c->size; i++) total += cr_vec_get(recvcounts, i);
    } else {
        total = recvcount * c->size;
    }
    a.bytes = block_bytes(total, a.dt);
    return coll_call(recvcounts.p ? COLL_REDUCE_SCATTER : COLL_REDUCE_SCATTER_BLOCK, c, &a, how,
                     req, a.bytes == 0);
}

int core_reduce_scatter(const void *sendbuf, void *recvbuf, cr_vec_t recvcounts,
                        cr_datatype_t *datatype, cr_op_t *op, cr_comm_t *comm, cr_how_t how,
                        cr_info_t *info, MPI_Request *request)
{
    return reduce_scatter(sendbuf, recvbuf, recvcounts, 0, datatype, op, comm, how, request);
}

int core_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                              cr_datatype_t *datatype, cr_op_t *op, cr_comm_t *comm, cr_how_t how,
                              cr_info_t *info, MPI_Request *request)
{
    return reduce_scatter(sendbuf, recvbuf, CR_VEC_NONE, recvcount, datatype, op, comm, how,
                          request);
}

static int scan(coll_kind_t coll, const void *sendbuf, void *recvbuf, MPI_Aint count,
                cr_datatype_t *datatype, cr_op_t *op, cr_comm_t *c, cr_how_t how,
                MPI_Request *req)
{
    /* MPI-4.0 6.11: the scans are defined on intracommunicators only */
    if (c->remote)
        return cr_error(MPI_ERR_COMM, "%s: comm is an intercommunicator: not defined there",
                        coll_names[coll]);
    coll_args_t a;
    int e = reduction(&a, sendbuf, recvbuf, count, datatype, op, 0);
    if (e) return e;
    int trivial = a.bytes == 0 || (coll == COLL_EXSCAN && c->size == 1);
    return coll_call(coll, c, &a, how, req, trivial);
}

int core_scan(const void *sendbuf, void *recvbuf, MPI_Count count, cr_datatype_t *datatype,
              cr_op_t *op, cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    return scan(COLL_SCAN, sendbuf, recvbuf, count, datatype, op, comm, how, request);
}

int core_exscan(const void *sendbuf, void *recvbuf, MPI_Count count, cr_datatype_t *datatype,
                cr_op_t *op, cr_comm_t *comm, cr_how_t how, cr_info_t *info,
                MPI_Request *request)
{
    return scan(COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, how, request);
}
