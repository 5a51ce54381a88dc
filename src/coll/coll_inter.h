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
 * not allowed. */
#ifndef COURIER_COLL_INTER_H
#define COURIER_COLL_INTER_H
#include "coll/coll.h"

int coll_inter_barrier(coll_sched_t *s, const coll_args_t *a);
int coll_inter_bcast(coll_sched_t *s, const coll_args_t *a);
/* Each group receives the reduction (in rank order) of the other group's sbufs. */
int coll_inter_allreduce(coll_sched_t *s, const coll_args_t *a);
#endif
