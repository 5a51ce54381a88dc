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
    CR_TAG_EXIT = -130,       /* the barrier at exit of a program without MPI_Finalize */
    CR_TAG_USER_BASE = -1000  /* -1000 - user tag: Comm_create_group, Intercomm_create */
};
/* Below every user tag (cr_comm_user_tag) lies a range of 64 Ki tags that
 * MPI_Comm_idup uses: CR_TAG_IDUP_BASE + 8 * (sequence number mod
 * CR_IDUP_TAGS) + step. */
#define CR_TAG_IDUP_BASE INT32_MIN
enum { CR_IDUP_TAGS = 8000 };
/* The internal tag that stands for a user tag (>= 0) of Comm_create_group or
 * Intercomm_create: below every fixed internal tag, never MPI_ANY_TAG. */
static inline int cr_comm_user_tag(int tag)
{
    return CR_TAG_USER_BASE - (int)((unsigned)tag % 0x7fff0000u);
}

/* Groups (group.c). */
cr_group_t *cr_group_new(int size);   /* refcount 1, rank MPI_UNDEFINED, world unset */
void cr_group_set_rank(cr_group_t *g); /* find this process's rank in g->world */
/* Is every member of g a member of of? */
int cr_group_within(const cr_group_t *g, const cr_group_t *of);
int cr_group_relation(const cr_group_t *a, const cr_group_t *b);
/* all holds `stride` ints per rank of base, the first two (color, key): the
 * members of color ordered by (key, rank in base); NULL when out of memory. */
cr_group_t *cr_group_split(const cr_group_t *base, const int *all, int stride, int color);
/* A handle for g that the caller hands to the user: the handle takes over one
 * reference the caller holds (on failure the reference is dropped). */
int cr_group_to_handle(cr_group_t *g, MPI_Group *out);
/* The world and self groups, made at start-up (init.c). */
extern cr_group_t *cr_group_world, *cr_group_self;

/* A new communicator object with a handle: local group g (takes the
 * reference), remote group remote (takes it; NULL for an intracommunicator),
 * base context ctx, error handler errh (adds a reference). */
int cr_comm_make(cr_group_t *g, cr_group_t *remote, uint32_t ctx, cr_errhandler_t *errh,
                 cr_comm_t **out);
/* An intracommunicator object over g with no handle, for internal use
 * (an intercommunicator's local_comm); takes the reference on g. */
cr_comm_t *cr_comm_make_internal(cr_group_t *g, uint32_t ctx);
/* The handle a new communicator gets for the user (MPI_COMM_NULL for NULL). */
static inline MPI_Comm cr_comm_handle(const cr_comm_t *c)
{
    return c ? c->handle : MPI_COMM_NULL;
}
/* The user's MPI_Comm_free: the handle becomes invalid, the user's
 * reference is dropped (pending operations may keep the object). */
void cr_comm_free_handle(cr_comm_t *c);

/* The communicator-creating operations as the other core files use them: a new
 * communicator in *out (NULL where this process gets MPI_COMM_NULL), with the
 * user's handle; errors leave *out NULL. */
int cr_comm_split(cr_comm_t *c, int color, int key, cr_comm_t **out);
/* Hints: keep a copy of info (NULL: none) as c's hints. */
int cr_comm_set_hints(cr_comm_t *c, const cr_info_t *info);
/* The rest of duplicating c into n (which has its groups and context): the
 * topology, hints info, the attributes the copy callbacks keep. */
int cr_comm_dup_finish(cr_comm_t *c, cr_comm_t *n, const cr_info_t *info);

/* The base context id of the communicators made from groups (reserved by
 * every process at start-up): creation from a group has no parent to talk on. */
#define CR_CTX_FROM_GROUP (2 * CR_CTX_STRIDE)

/* A barrier over c on its collective context with an internal tag
 * (cr_barrier_internal: CR_TAG_BARRIER); makes progress while waiting. */
int cr_barrier_tag(cr_comm_t *c, int tag);
int cr_barrier_internal(cr_comm_t *c);

/* Small collectives on c's collective context with an internal tag; they only
 * run where communicators are made, so they are simple (through one root).
 * allgather: out gets n ints from every rank, rank order.  bcast: root's n ints. */
int cr_comm_allgather_ints(cr_comm_t *c, const int *in, int n, int *out, int tag);
int cr_comm_bcast_ints(cr_comm_t *c, int root, int *buf, int n, int tag);
/* A barrier over c on its collective context (internal tag); progress while waiting. */
int cr_barrier_internal(cr_comm_t *c);
/* What this process contributes to an agreement on a context id: its next
 * free id, or CR_CTX_EXHAUSTED when it may not take part in one more
 * communicator: it holds COURIER_MAX_COMMS communicators already (`made`
 * of them belong to this agreement: MPI_Comm_idup makes its object first),
 * or its ids have run out (they travel as ints).  Every agreement takes the
 * maximum of the contributions, so every member sees CR_CTX_EXHAUSTED
 * together and the settling (cr_ctx_settle, cr_ctx_settle_rounds) fails on
 * all of them with cr_ctx_exhausted_error: no member waits for another. */
#define CR_CTX_EXHAUSTED ((uint32_t)INT32_MAX)
int cr_ctx_offer(int made);
/* The MPI_ERR_OTHER of an agreement that reached CR_CTX_EXHAUSTED. */
int cr_ctx_exhausted_error(void);
/* The maximum of every member's next free context id (collective over c);
 * does not reserve anything (see cr_ctx_reserve). */
int cr_ctx_max(cr_comm_t *c, int tag, uint32_t *ctx);
/* Mark base ids ctx .. ctx + (n-1)*CR_CTX_STRIDE as used by this process. */
void cr_ctx_reserve(uint32_t ctx, int n);
/* Take the n base ids from ctx for a communicator of this process: with
 * threads, 1 when no other agreement of this process took any of them first
 * (they are then claimed), 0 otherwise (nothing taken); reserves them
 * (cr_ctx_reserve) when it returns 1.  Without threads it reserves and
 * returns 1. */
int cr_ctx_take(uint32_t ctx, int n);
/* One round of a settling agreement among all members: out[0] is the
 * minimum of every member's in[0], out[1] the maximum of their in[1]. */
typedef int (*cr_ctx_round_fn)(void *arg, const int in[2], int out[2]);
/* Settle on *ctx, the maximum of the members' next free ids that a first
 * round reached (and n ids from it): without threads it only reserves them;
 * with threads every member takes them (cr_ctx_take) and the rounds repeat
 * from a higher id until all members could (threads.h, docs/threads.md).
 * Collective over the members that `round` reaches; *ctx is the id agreed. */
int cr_ctx_settle(cr_ctx_round_fn round, void *arg, int n, uint32_t *ctx);
/* cr_ctx_settle that runs its rounds (at least one) with or without threads:
 * for members that cannot know whether all the others run without threads
 * (two jobs meeting in MPI_Comm_accept / connect, dynamic.c). */
int cr_ctx_settle_rounds(cr_ctx_round_fn round, void *arg, int n, uint32_t *ctx);
/* cr_ctx_settle whose rounds are allgathers over c with tag. */
int cr_ctx_settle_intra(cr_comm_t *c, int tag, int n, uint32_t *ctx);
/* cr_ctx_max then cr_ctx_settle_intra over c with tag: a new id for c's
 * members (collective over c); cr_ctx_alloc is it with CR_TAG_CTX. */
int cr_ctx_agree(cr_comm_t *c, int tag, uint32_t *ctx);

/* Topologies (topo.c): deep copy for Comm_dup (NULL stays NULL), free. */
void *cr_topo_dup(const void *topo);
void cr_topo_free(void *topo);

/* Intercommunicators (intercomm.c), called from comm.c's generic entry points. */
int cr_inter_dup(cr_comm_t *c, cr_comm_t **out);
int cr_inter_split(cr_comm_t *c, int color, int key, cr_comm_t **out);
int cr_inter_create(cr_comm_t *c, cr_group_t *g, cr_comm_t **out);
/* An intercommunicator object over (local, remote) with base id ctx (its
 * local_comm takes ctx + CR_CTX_STRIDE); takes both group references. */
int cr_inter_make(cr_group_t *local, cr_group_t *remote, uint32_t ctx, cr_errhandler_t *errh,
                  cr_comm_t **out);
/* The intercommunicator between the group of intracommunicator lc and the
 * group whose leader the local leader reaches as remote_leader on bridge
 * (significant at the local leader only), its tables exchanged with tag.
 * Overlapping groups are MPI_ERR_COMM (fname names the call). */
int cr_inter_from(cr_comm_t *lc, int local_leader, cr_comm_t *bridge, int remote_leader, int tag,
                  cr_errhandler_t *errh, const char *fname, cr_comm_t **out);

/* Agreements on context ids may not overlap at one process with the check
 * step of a non-blocking one (MPI_Comm_idup, comm_idup.c): set while a
 * blocking agreement runs. */
extern int cr_ctx_agreeing;
#endif
