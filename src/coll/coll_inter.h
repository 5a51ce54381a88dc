/* SPDX-License-Identifier: MIT */
/* Collective algorithms for intercommunicators (coll_inter_*.c).
 *
 * They are ordinary schedule builders (coll_build_fn) for rows flagged
 * COLL_ALG_INTER in coll_select.c: s->comm is the intercommunicator, so every
 * peer is a rank of the remote group, and the algorithms use only messages
 * between the two groups (no local_comm steps), which keeps them inside one
 * schedule and so usable by the non-blocking forms too.  "Leader" is local
 * rank 0 of each group.  Arguments follow the intercommunicator rules of the
 * standard: a->root is MPI_ROOT at the root, MPI_PROC_NULL at the root's
 * group-mates and the root's remote rank in the other group; MPI_IN_PLACE is
 * not allowed.  Per-rank arrays (counts, displacements, Alltoallw types) are
 * indexed by remote rank, except Reduce_scatter's rcounts, which describe the
 * local group. */
#ifndef COURIER_COLL_INTER_H
#define COURIER_COLL_INTER_H
#include "coll/coll.h"

int coll_inter_barrier(coll_sched_t *s, const coll_args_t *a);
int coll_inter_bcast(coll_sched_t *s, const coll_args_t *a);
/* Each group receives the reduction (in rank order) of the other group's sbufs. */
int coll_inter_allreduce(coll_sched_t *s, const coll_args_t *a);
/* The root receives the reduction (in rank order) of the remote group's sbufs. */
int coll_inter_reduce(coll_sched_t *s, const coll_args_t *a);
/* Gather and Gatherv: the root receives one block from each remote process. */
int coll_inter_gather(coll_sched_t *s, const coll_args_t *a);
/* Scatter and Scatterv: the root sends one block to each remote process. */
int coll_inter_scatter(coll_sched_t *s, const coll_args_t *a);
/* Allgather and Allgatherv: each process receives every remote process's block. */
int coll_inter_allgather(coll_sched_t *s, const coll_args_t *a);
/* Alltoall, Alltoallv and Alltoallw: block r goes to / comes from remote rank r. */
int coll_inter_alltoall(coll_sched_t *s, const coll_args_t *a);
/* Reduce_scatter and Reduce_scatter_block: the reduction of the other group's
 * vectors, scattered over this group by this group's counts. */
int coll_inter_reduce_scatter(coll_sched_t *s, const coll_args_t *a);

/* Shared step of the reductions: receive count elements of dt from every
 * process of the remote group, one receive per round, and fold them in rank
 * order into dst (dst = v0 op v1 op ... op vn-1, right for non-commutative
 * ops).  Uses at most two temporaries.  Steps added after it, in the same
 * round, see the result. */
int coll_inter_fold_remote(coll_sched_t *s, void *dst, MPI_Aint count, cr_datatype_t *dt,
                           const cr_op_t *op);
#endif
