/* SPDX-License-Identifier: MIT */
/* Internals shared by the communicator files: comm.c (intracommunicators,
 * context ids), intercomm.c (intercommunicators) and topo.c (process
 * topologies).  Nothing outside src/core/ should need this header. */
#ifndef COURIER_CORE_COMM_PRIV_H
#define COURIER_CORE_COMM_PRIV_H
#include "core/core.h"

/* Internal tags on a communicator's collective context.  They are negative,
 * so that neither a user receive nor an algorithm of src/coll (positive tags)
 * can match them.  Comm_create_group and Intercomm_create derive their tag
 * from the user's tag (cr_comm_user_tag). */
enum {
    CR_TAG_CTX = -100,        /* context-id agreement, split, create */
    CR_TAG_BARRIER = -103,    /* cr_barrier_internal */
    CR_TAG_INTER = -110,      /* leader-to-leader exchanges of intercomm creation */
    CR_TAG_TOPO = -120,       /* Dist_graph_create's edge exchange */
    CR_TAG_USER_BASE = -1000  /* -1000 - user tag: Comm_create_group, Intercomm_create */
};
/* The internal tag that stands for a user tag (>= 0) of Comm_create_group or
 * Intercomm_create: below every fixed internal tag, never MPI_ANY_TAG. */
static inline int cr_comm_user_tag(int tag)
{
    return CR_TAG_USER_BASE - (int)((unsigned)tag % 0x7fff0000u);
}

/* Groups (group.c). */
cr_group_t *cr_group_new(int size);   /* refcount 1, rank MPI_UNDEFINED, world unset */
void cr_group_release(cr_group_t *g);
void cr_group_set_rank(cr_group_t *g); /* find this process's rank in g->world */
int cr_group_relation(const cr_group_t *a, const cr_group_t *b);
/* all holds `stride` ints per rank of base, the first two (color, key): the
 * members of color ordered by (key, rank in base); NULL when out of memory. */
cr_group_t *cr_group_split(const cr_group_t *base, const int *all, int stride, int color);
/* A handle for g that the caller hands to the user (takes one reference). */
int cr_group_to_handle(cr_group_t *g, MPI_Group *out);

/* A new communicator object with a handle: local group g (takes the
 * reference), remote group remote (takes it; NULL for an intracommunicator),
 * base context ctx, error handler errh (adds a reference). */
int cr_comm_make(cr_group_t *g, cr_group_t *remote, uint32_t ctx, cr_errhandler_t *errh,
                 cr_comm_t **out);
/* An intracommunicator object over g with no handle, for internal use
 * (an intercommunicator's local_comm); takes the reference on g. */
cr_comm_t *cr_comm_make_internal(cr_group_t *g, uint32_t ctx);
void cr_comm_release(cr_comm_t *c);

/* Small collectives on c's collective context with an internal tag; they only
 * run where communicators are made, so they are simple (through one root).
 * allgather: out gets n ints from every rank, rank order.  bcast: root's n ints. */
int cr_comm_allgather_ints(cr_comm_t *c, const int *in, int n, int *out, int tag);
int cr_comm_bcast_ints(cr_comm_t *c, int root, int *buf, int n, int tag);
/* A barrier over c on its collective context (internal tag); progress while waiting. */
int cr_barrier_internal(cr_comm_t *c);
/* The maximum of every member's next free context id (collective over c);
 * does not reserve anything (see cr_ctx_reserve). */
int cr_ctx_max(cr_comm_t *c, int tag, uint32_t *ctx);
/* Mark base ids ctx .. ctx + (n-1)*CR_CTX_STRIDE as used by this process. */
void cr_ctx_reserve(uint32_t ctx, int n);

/* Topologies (topo.c): deep copy for Comm_dup (NULL stays NULL), free. */
void *cr_topo_dup(const void *topo);
void cr_topo_free(void *topo);

/* Intercommunicators (intercomm.c), called from comm.c's generic entry points. */
int cr_inter_dup(cr_comm_t *c, MPI_Comm *newcomm);
int cr_inter_split(cr_comm_t *c, int color, int key, MPI_Comm *newcomm);
int cr_inter_create(cr_comm_t *c, cr_group_t *g, MPI_Comm *newcomm);
#endif
