/* SPDX-License-Identifier: MIT */
/* MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce on intracommunicators:
 * trivial cases here, everything else through a selected algorithm's
 * schedule, run to completion. */
#include <string.h>
#include "coll/coll.h"
#include "binding/core_api.h"

static const int coll_tags[COLL_NCOLL] = {
    [COLL_BARRIER] = COLL_TAG_BARRIER, [COLL_BCAST] = COLL_TAG_BCAST,
    [COLL_REDUCE] = COLL_TAG_REDUCE, [COLL_ALLREDUCE] = COLL_TAG_ALLREDUCE,
};

static int run(coll_kind_t coll, cr_comm_t *c, const coll_args_t *a)
{
    const coll_alg_t *alg = coll_select(coll, c, a);
    coll_sched_t s;
    coll_sched_init(&s, c, coll_tags[coll]);
    int e = alg->build(&s, a);
    if (!e) e = coll_sched_run(&s);
    coll_sched_free(&s);
    return e;
}

static int intercomm_error(const char *what)
{
    return cr_error(MPI_ERR_UNSUPPORTED_OPERATION,
                    "%s on an intercommunicator is not implemented yet", what);
}

int core_barrier(MPI_Comm comm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    if (c->remote) return intercomm_error("MPI_Barrier");
    if (c->size == 1) return MPI_SUCCESS;
    coll_args_t a = { 0 };
    return run(COLL_BARRIER, c, &a);
}

int core_bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    if (c->remote) return intercomm_error("MPI_Bcast");
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    coll_args_t a = { .rbuf = buffer, .count = (MPI_Aint)count, .dt = dt, .root = root };
    if (c->size == 1 || coll_bytes(&a) == 0) return MPI_SUCCESS;
    return run(COLL_BCAST, c, &a);
}

int core_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return core_bcast_c(buffer, count, datatype, root, comm);
}

int core_reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    if (c->remote) return intercomm_error("MPI_Reduce");
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    cr_op_t *o = cr_op_ptr(op);
    int e = cr_op_check(o, dt);
    if (e) return e;
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .count = (MPI_Aint)count, .dt = dt,
                      .op = o, .root = root };
    if (coll_bytes(&a) == 0) return MPI_SUCCESS;
    if (c->size == 1) {
        if (sendbuf != MPI_IN_PLACE) coll_copy(sendbuf, recvbuf, a.count, dt);
        return MPI_SUCCESS;
    }
    return run(COLL_REDUCE, c, &a);
}

int core_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    return core_reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int core_allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    if (c->remote) return intercomm_error("MPI_Allreduce");
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    cr_op_t *o = cr_op_ptr(op);
    int e = cr_op_check(o, dt);
    if (e) return e;
    coll_args_t a = { .sbuf = sendbuf, .rbuf = recvbuf, .count = (MPI_Aint)count, .dt = dt,
                      .op = o, .root = 0 };
    if (coll_bytes(&a) == 0) return MPI_SUCCESS;
    if (c->size == 1) {
        if (sendbuf != MPI_IN_PLACE) coll_copy(sendbuf, recvbuf, a.count, dt);
        return MPI_SUCCESS;
    }
    return run(COLL_ALLREDUCE, c, &a);
}

int core_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm)
{
    return core_allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
}
