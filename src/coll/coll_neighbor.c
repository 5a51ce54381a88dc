/* SPDX-License-Identifier: MIT */
/* Neighbor collectives (MPI 4.0, 8.6): Neighbor_allgather(v), Neighbor_alltoall(v,w)
 * in their blocking, non-blocking and persistent forms, on Cartesian, graph and
 * distributed-graph communicators.
 *
 * One exchange per call, as a one-round schedule (coll.h): every receive from
 * an in-neighbor and every send to an out-neighbor is started at once on the
 * collective context, and the call completes when all have.  Blocks of
 * MPI_PROC_NULL neighbors (Cartesian edges) keep their place in the buffers but
 * move no data.
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
#include "coll/api.h"
#include "core/topo.h"

enum { NBR_TAG = -200, NBR_TAG_SPAN = 700 };   /* tags -200 .. -899 */

/* Tag of out-block k (send) or in-block k (receive). */
static int nbr_tag(const cr_topo_t *t, int k, int recv)
{
    if (t->kind != MPI_CART) return NBR_TAG;
    int dir = recv ? (k ^ 1) : k;
    return NBR_TAG - dir % NBR_TAG_SPAN;
}

/* Blocks are found as an all-to-all side finds them (coll_block): uniform,
 * v (counts and element displacements) or w (counts, byte displacements,
 * one datatype each). */
static int nbr_count(MPI_Count n, const char *fname, const char *arg, int k)
{
    if (n >= 0) return MPI_SUCCESS;
    return cr_error(MPI_ERR_COUNT, "%s: %s[%d]=%lld: negative count", fname, arg, k,
                    (long long)n);
}

/* Build the exchange (receives first, so that self-messages and early arrivals
 * find them) and run, start or keep it.  With send_all, every out-block is the
 * whole send buffer (the allgather forms). */
static int nbr_call(cr_comm_t *c, const coll_side_t *send, int send_all, const coll_side_t *recv,
                    cr_how_t how, MPI_Request *request, const char *fname)
{
    const cr_topo_t *t = cr_topo_of(c);
    if (c->remote || !t)
        return cr_error(MPI_ERR_TOPOLOGY, "%s: comm has no process topology", fname);
    coll_sched_t s;
    coll_sched_init(&s, c, 0);
    int err = MPI_SUCCESS;
    for (int k = 0; k < t->nin && !err; k++) {
        char *p;
        MPI_Aint n;
        cr_datatype_t *dt;
        coll_block(recv, k, &p, &n, &dt);
        err = nbr_count(n, fname, "recvcounts", k);
        if (!err && t->in[k] != MPI_PROC_NULL)
            coll_sched_recv_tag(&s, p, n, dt, t->in[k], nbr_tag(t, k, 1));
    }
    for (int k = 0; k < t->nout && !err; k++) {
        char *p;
        MPI_Aint n;
        cr_datatype_t *dt;
        coll_block(send, send_all ? 0 : k, &p, &n, &dt);
        err = nbr_count(n, fname, "sendcounts", k);
        if (!err && t->out[k] != MPI_PROC_NULL)
            coll_sched_send_tag(&s, p, n, dt, t->out[k], nbr_tag(t, k, 0));
    }
    if (!err) err = s.err;
    if (err) {
        coll_sched_free(&s);
        return err;
    }
    if (how != CR_BLOCKING) return coll_nbc_start_sched(&s, how == CR_PERSISTENT, request);
    err = coll_sched_run(&s);
    coll_sched_free(&s);
    return err;
}

/* ---- the calls ----------------------------------------------------------------- */
int core_neighbor_allgather(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                            void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype,
                            cr_comm_t *comm, cr_how_t how, cr_info_t *info,
                            MPI_Request *request)
{
    coll_side_t snd = { .buf = sendbuf, .count = sendcount, .dt = sendtype };
    coll_side_t rcv = { .buf = recvbuf, .count = recvcount, .dt = recvtype };
    return nbr_call(comm, &snd, 1, &rcv, how, request, "MPI_Neighbor_allgather");
}

int core_neighbor_allgatherv(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                             void *recvbuf, cr_vec_t recvcounts, cr_vec_t displs,
                             cr_datatype_t *recvtype, cr_comm_t *comm, cr_how_t how,
                             cr_info_t *info, MPI_Request *request)
{
    coll_side_t snd = { .buf = sendbuf, .count = sendcount, .dt = sendtype };
    coll_side_t rcv = { .buf = recvbuf, .dt = recvtype, .counts = recvcounts, .displs = displs };
    return nbr_call(comm, &snd, 1, &rcv, how, request, "MPI_Neighbor_allgatherv");
}

int core_neighbor_alltoall(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype,
                           void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype,
                           cr_comm_t *comm, cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    coll_side_t snd = { .buf = sendbuf, .count = sendcount, .dt = sendtype };
    coll_side_t rcv = { .buf = recvbuf, .count = recvcount, .dt = recvtype };
    return nbr_call(comm, &snd, 0, &rcv, how, request, "MPI_Neighbor_alltoall");
}

int core_neighbor_alltoallv(const void *sendbuf, cr_vec_t sendcounts, cr_vec_t sdispls,
                            cr_datatype_t *sendtype, void *recvbuf, cr_vec_t recvcounts,
                            cr_vec_t rdispls, cr_datatype_t *recvtype, cr_comm_t *comm,
                            cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    coll_side_t snd = { .buf = sendbuf, .dt = sendtype, .counts = sendcounts, .displs = sdispls };
    coll_side_t rcv = { .buf = recvbuf, .dt = recvtype, .counts = recvcounts, .displs = rdispls };
    return nbr_call(comm, &snd, 0, &rcv, how, request, "MPI_Neighbor_alltoallv");
}

/* Displacements in bytes, one datatype per block. */
int core_neighbor_alltoallw(const void *sendbuf, cr_vec_t sendcounts, cr_vec_t sdispls,
                            cr_datatype_t *const sendtypes[], void *recvbuf, cr_vec_t recvcounts,
                            cr_vec_t rdispls, cr_datatype_t *const recvtypes[], cr_comm_t *comm,
                            cr_how_t how, cr_info_t *info, MPI_Request *request)
{
    coll_side_t snd = { .buf = sendbuf, .counts = sendcounts, .displs = sdispls, .dts = sendtypes };
    coll_side_t rcv = { .buf = recvbuf, .counts = recvcounts, .displs = rdispls, .dts = recvtypes };
    return nbr_call(comm, &snd, 0, &rcv, how, request, "MPI_Neighbor_alltoallw");
}
