/* SPDX-License-Identifier: MIT */
/* Communicators: rank/size, dup/dup_with_info, split, create, create_group,
 * free, compare, names, info hints, references, context ids, and the small
 * internal collectives that communicator creation needs.  Intercommunicators
 * live in intercomm.c, MPI_Comm_idup in comm_idup.c, MPI_Comm_split_type in
 * comm_hw.c, creation from groups in comm_from_group.c, topologies in topo.c
 * (see docs/communicators.md). */
#include "core/core.h"
#include "core/errh.h"
#include "core/comm_priv.h"
#include "core/info.h"
#include "core/attr.h"
#include "core/api_comm.h"
#include "util/log.h"
#include "util/settings.h"
#include "core/threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- internal collectives for communicator creation -------------------------- */

/* Some of c's ranks meeting for an agreement: messages go over c's collective
 * context and carry c's ranks, so the sender of each is known by its rank in
 * c.  (Ranks in a group of c would not do: MPI_Comm_create_group called over
 * changing groups with one tag, as MPICH's comm/comm_group_rand does, would
 * let a member take a message that another group's member sent, with the
 * same group rank, for its next call.) */
typedef struct {
    cr_comm_t *c;
    const int *crank;    /* the rank in c of each member; NULL: every rank of c */
    int size, rank;      /* the number of members, this process's index among them */
    int tag;
} members_t;

static members_t members_all(cr_comm_t *c, int tag)
{
    return (members_t){ .c = c, .crank = NULL, .size = c->size, .rank = c->rank, .tag = tag };
}

static int member_rank(const members_t *m, int i)
{
    return m->crank ? m->crank[i] : i;
}

/* Gather n ints from every member to the first, then send the whole table to
 * every member.  One tag serves both directions: a member receives gather
 * messages only as the root and the table only as a non-root. */
static int members_allgather_ints(const members_t *m, const int *in, int n, int *out)
{
    cr_datatype_t *dt = cr_datatype_ptr(MPI_INT);
    int err = MPI_SUCCESS, root = member_rank(m, 0);
    if (m->rank == 0) {
        memcpy(out, in, (size_t)n * sizeof(int));
        for (int r = 1; r < m->size && !err; r++)
            err = cr_recv(out + (size_t)r * n, n, dt, member_rank(m, r), m->tag, m->c,
                          CR_CTX_COLL, MPI_STATUS_IGNORE);
        for (int r = 1; r < m->size && !err; r++)
            err = cr_send(out, (MPI_Aint)n * m->size, dt, member_rank(m, r), m->tag, m->c,
                          CR_CTX_COLL);
    } else {
        err = cr_send(in, n, dt, root, m->tag, m->c, CR_CTX_COLL);
        if (!err)
            err = cr_recv(out, (MPI_Aint)n * m->size, dt, root, m->tag, m->c, CR_CTX_COLL,
                          MPI_STATUS_IGNORE);
    }
    return err;
}

int cr_comm_allgather_ints(cr_comm_t *c, const int *in, int n, int *out, int tag)
{
    members_t m = members_all(c, tag);
    return members_allgather_ints(&m, in, n, out);
}

int cr_comm_bcast_ints(cr_comm_t *c, int root, int *buf, int n, int tag)
{
    cr_datatype_t *dt = cr_datatype_ptr(MPI_INT);
    int err = MPI_SUCCESS;
    if (c->rank == root) {
        for (int r = 0; r < c->size && !err; r++)
            if (r != root) err = cr_send(buf, n, dt, r, tag, c, CR_CTX_COLL);
    } else {
        err = cr_recv(buf, n, dt, root, tag, c, CR_CTX_COLL, MPI_STATUS_IGNORE);
    }
    return err;
}

/* Dissemination barrier on the collective context; makes progress while waiting. */
int cr_barrier_tag(cr_comm_t *c, int tag)
{
    cr_datatype_t *dt = cr_datatype_ptr(MPI_BYTE);
    for (int d = 1; d < c->size; d <<= 1) {
        int err = cr_sendrecv(NULL, 0, dt, (c->rank + d) % c->size, tag, NULL, 0, dt,
                              (c->rank - d + c->size) % c->size, tag, c, CR_CTX_COLL,
                              MPI_STATUS_IGNORE);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

int cr_barrier_internal(cr_comm_t *c)
{
    return cr_barrier_tag(c, CR_TAG_BARRIER);
}

/* ---- context ids -------------------------------------------------------------
 * Every process keeps next_ctx, above every base id it has ever used.  A new
 * communicator takes the maximum of its members' next_ctx: that id is above
 * every id any member uses, so no member can confuse traffic of the new
 * communicator with traffic of an older one.  Processes outside the new
 * communicator may use the same id for something else, which is harmless:
 * matching happens per receiving process.  The argument needs no more than the
 * members themselves, so it holds for Comm_create_group (collective only over
 * the group) and for intercommunicators (the maximum over both groups). */
int cr_ctx_agreeing;

/* Communicators whose handle this process holds (from cr_comm_make until
 * the handle is freed): the limit COURIER_MAX_COMMS counts them.  Internal ones
 * (an intercommunicator's local_comm, the node layers of the hierarchical
 * collectives) are not counted: they belong to a counted one, or to the
 * collectives, which must not fail for want of an id. */
static long comm_live;

/* The ids travel as ints: stop well below INT32_MAX, which means exhausted
 * (a settling round after a clash reserves a few ids more). */
#define CTX_ID_LIMIT ((uint32_t)INT32_MAX - 64u * CR_CTX_STRIDE)

int cr_ctx_offer(int made)
{
    if (comm_live - made >= ut_settings.max_comms || cr_proc.next_ctx >= CTX_ID_LIMIT)
        return (int)CR_CTX_EXHAUSTED;
    return (int)cr_proc.next_ctx;
}

int cr_ctx_exhausted_error(void)
{
    if (cr_proc.next_ctx >= CTX_ID_LIMIT)
        return cr_error(MPI_ERR_OTHER, "too many communicators: this process has used up its "
                        "context ids (%u communicators made since MPI_Init)",
                        (unsigned)(cr_proc.next_ctx / CR_CTX_STRIDE));
    if (comm_live >= ut_settings.max_comms)
        return cr_error(MPI_ERR_OTHER, "too many communicators: this process holds %ld, "
                        "COURIER_MAX_COMMS=%ld (MPI_Comm_free some, or raise the setting)",
                        comm_live, ut_settings.max_comms);
    return cr_error(MPI_ERR_OTHER, "too many communicators: another member holds "
                    "COURIER_MAX_COMMS=%ld (MPI_Comm_free some there, or raise the setting)",
                    ut_settings.max_comms);
}

static int members_ctx_max(const members_t *m, uint32_t *ctx)
{
    int mine = cr_ctx_offer(0);
    int *all = malloc((size_t)m->size * sizeof(int));
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory to agree on a context id");
    cr_ctx_agreeing++;
    int err = members_allgather_ints(m, &mine, 1, all);
    cr_ctx_agreeing--;
    if (!err) {
        int mx = 0;
        for (int i = 0; i < m->size; i++) mx = all[i] > mx ? all[i] : mx;
        *ctx = (uint32_t)mx;
    }
    free(all);
    return err;
}

int cr_ctx_max(cr_comm_t *c, int tag, uint32_t *ctx)
{
    members_t m = members_all(c, tag);
    return members_ctx_max(&m, ctx);
}

void cr_ctx_reserve(uint32_t ctx, int n)
{
    uint32_t next = ctx + (uint32_t)n * CR_CTX_STRIDE;
    if (next > cr_proc.next_ctx) cr_proc.next_ctx = next;
}

/* Threads (threads.h): two agreements that run at once in one process (two
 * threads creating communicators on different parents) may reach the same
 * maximum.  Each process remembers every id its agreements took (claimed);
 * an agreement whose id another one of this process claimed first is
 * repeated, from above it, until every member could claim the id it reached
 * (cr_ctx_settle).  Every way of making a communicator goes through this:
 * Comm_dup, Comm_create, Comm_split(_type), Comm_create_group,
 * Comm_create_from_group, the intercommunicator calls and Comm_idup. */
static uint32_t *claimed;
static size_t nclaimed, claimed_cap;

static int ctx_claimed(uint32_t ctx)
{
    for (size_t i = 0; i < nclaimed; i++)
        if (claimed[i] == ctx) return 1;
    return 0;
}

int cr_ctx_take(uint32_t ctx, int n)
{
    if (cr_threaded) {
        for (int i = 0; i < n; i++)
            if (ctx_claimed(ctx + (uint32_t)i * CR_CTX_STRIDE)) return 0;
        if (nclaimed + (size_t)n > claimed_cap) {
            size_t cap = claimed_cap ? 2 * claimed_cap : 64;
            uint32_t *c = realloc(claimed, cap * sizeof *c);
            if (!c) return 0;           /* try again with another id */
            claimed = c;
            claimed_cap = cap;
        }
        for (int i = 0; i < n; i++) claimed[nclaimed++] = ctx + (uint32_t)i * CR_CTX_STRIDE;
    }
    cr_ctx_reserve(ctx, n);
    return 1;
}

int cr_ctx_settle(cr_ctx_round_fn round, void *arg, int n, uint32_t *ctx)
{
    if (*ctx >= CR_CTX_EXHAUSTED) return cr_ctx_exhausted_error();
    if (!cr_threaded) {
        cr_ctx_reserve(*ctx, n);
        return MPI_SUCCESS;
    }
    return cr_ctx_settle_rounds(round, arg, n, ctx);
}

int cr_ctx_settle_rounds(cr_ctx_round_fn round, void *arg, int n, uint32_t *ctx)
{
    if (*ctx >= CR_CTX_EXHAUSTED) return cr_ctx_exhausted_error();
    for (int r = 0;; r++) {
        int ok = cr_ctx_take(*ctx, n);
        /* after a clash, step a little further on each rank, so that the
         * clashing agreements do not meet on the same id again */
        if (!ok) cr_ctx_reserve(*ctx, n + 1 + (cr_proc.world_rank + r) % 3);
        int in[2] = { ok, (int)cr_proc.next_ctx }, out[2];
        cr_ctx_agreeing++;
        int err = round(arg, in, out);
        cr_ctx_agreeing--;
        if (err || out[0]) return err;
        ut_log(UT_LOG_EVENTS, "comm", "context id %u was taken by another thread, round %d",
               (unsigned)*ctx, r + 2);
        *ctx = (uint32_t)out[1];
    }
}

/* A settling round among the members of an intracommunicator (or some of
 * its ranks, as in Comm_create_group); arg is a members_t. */
static int members_round(void *arg, const int in[2], int out[2])
{
    const members_t *m = arg;
    int *all = malloc((size_t)m->size * 2 * sizeof(int));
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory to agree on a context id");
    int err = members_allgather_ints(m, in, 2, all);
    if (!err) {
        out[0] = 1;
        out[1] = 0;
        for (int r = 0; r < m->size; r++) {
            out[0] &= all[2 * r];
            out[1] = all[2 * r + 1] > out[1] ? all[2 * r + 1] : out[1];
        }
    }
    free(all);
    return err;
}

int cr_ctx_settle_intra(cr_comm_t *c, int tag, int n, uint32_t *ctx)
{
    members_t m = members_all(c, tag);
    return cr_ctx_settle(members_round, &m, n, ctx);
}

static int members_ctx_agree(members_t *m, uint32_t *ctx)
{
    int err = members_ctx_max(m, ctx);
    if (!err) err = cr_ctx_settle(members_round, m, 1, ctx);
    return err;
}

int cr_ctx_agree(cr_comm_t *c, int tag, uint32_t *ctx)
{
    members_t m = members_all(c, tag);
    return members_ctx_agree(&m, ctx);
}

int cr_ctx_alloc(cr_comm_t *comm, uint32_t *ctx)
{
    return cr_ctx_agree(comm, CR_TAG_CTX, ctx);
}

/* ---- communicator objects ------------------------------------------------------ */
int cr_comm_make(cr_group_t *g, cr_group_t *remote, uint32_t ctx, cr_errhandler_t *errh,
                 cr_comm_t **out)
{
    *out = NULL;
    cr_comm_t *c = calloc(1, sizeof *c);
    int idx = c ? cr_objtab_add(&cr_comm_tab, c) : -1;
    if (idx < 0) {
        free(c);
        cr_group_release(g);
        cr_group_release(remote);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a communicator");
    }
    c->handle = CR_H_MAKE(CR_ST_USER, CR_K_COMM, idx);
    c->refcount = 1;
    c->group = g;
    c->remote = remote;
    c->rank = g->rank;
    c->size = g->size;
    c->ctx = ctx;
    c->errh = errh;
    cr_errhandler_retain(errh);
    comm_live++;
    *out = c;
    ut_log(UT_LOG_EVENTS, "comm", "new %scommunicator 0x%08x: rank %d of %d (remote group %d), "
           "context %u", remote ? "inter" : "", (unsigned)c->handle, c->rank, c->size,
           remote ? remote->size : 0, (unsigned)ctx);
    return MPI_SUCCESS;
}

cr_comm_t *cr_comm_make_internal(cr_group_t *g, uint32_t ctx)
{
    cr_comm_t *c = calloc(1, sizeof *c);
    if (!c) {
        cr_group_release(g);
        return NULL;
    }
    c->handle = MPI_COMM_NULL;
    c->refcount = 1;
    c->group = g;
    c->rank = g->rank;
    c->size = g->size;
    c->ctx = ctx;
    snprintf(c->name, sizeof c->name, "(local group)");
    return c;
}

void (*cr_comm_coll_shm_free)(cr_comm_t *c);

static int comm_predefined(const cr_comm_t *c)
{
    return c == &cr_comm_world || c == &cr_comm_self;
}

void cr_comm_retain(cr_comm_t *c)
{
    if (c && !comm_predefined(c)) c->refcount++;
}

/* The handle stops naming c (the communicator leaves comm_live's count). */
static void comm_drop_handle(cr_comm_t *c)
{
    if (c->handle == MPI_COMM_NULL) return;
    cr_objtab_remove(&cr_comm_tab, CR_H_INDEX(c->handle));
    c->handle = MPI_COMM_NULL;
    comm_live--;
}

/* The last release frees everything the communicator owns. */
void cr_comm_release(cr_comm_t *c)
{
    if (!c || comm_predefined(c) || --c->refcount > 0) return;
    comm_drop_handle(c);
    cr_group_release(c->group);
    cr_group_release(c->remote);
    cr_errhandler_release(c->errh);
    cr_comm_release(c->local_comm);
    if (c->coll_shm && cr_comm_coll_shm_free) cr_comm_coll_shm_free(c);
    cr_topo_free(c->topo);
    cr_info_destroy(c->info);
    free(c);
}

void cr_comm_free_handle(cr_comm_t *c)
{
    comm_drop_handle(c);
    cr_comm_release(c);
}

/* Hand a new communicator to the user. */
static int comm_out(int err, cr_comm_t *c, MPI_Comm *out)
{
    *out = err ? MPI_COMM_NULL : cr_comm_handle(c);
    return err;
}

/* ---- info hints ------------------------------------------------------------------ */
/* An assertion hint set to "true". */
static int hint_true(const cr_info_t *info, const char *key)
{
    const char *v = info ? cr_info_get(info, key) : NULL;
    return v && strcmp(v, "true") == 0;
}

/* The communicator hints Courier knows: the standard's assertions (MPI 4.1
 * section 7.4.4) and the kind of an MPI_Comm_split_type.  Other keys are
 * ignored and not returned by MPI_Comm_get_info, which the standard allows
 * and MPICH does (its comm/comm_info checks it). */
static const char *const comm_hint_keys[] = {
    "mpi_assert_no_any_tag", "mpi_assert_no_any_source", "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking", "mpi_hw_resource_type",
};

int cr_comm_set_hints(cr_comm_t *c, const cr_info_t *info)
{
    cr_info_t *copy = NULL;
    for (size_t i = 0; info && i < sizeof comm_hint_keys / sizeof comm_hint_keys[0]; i++) {
        const char *v = cr_info_get(info, comm_hint_keys[i]);
        if (!v) continue;
        int err = copy ? MPI_SUCCESS : cr_info_new(&copy);
        if (!err) err = cr_info_put(copy, comm_hint_keys[i], v);
        if (err) {
            cr_info_destroy(copy);
            return err;
        }
    }
    cr_info_destroy(c->info);
    c->info = copy;
    /* the assertions that let point-to-point traffic spread over channels
     * (docs/threads.md); read once, at the communicator's first message */
    c->asserts = (hint_true(copy, "mpi_assert_no_any_tag") ? CR_COMM_ASSERT_NO_ANY_TAG : 0u) |
                 (hint_true(copy, "mpi_assert_no_any_source") ? CR_COMM_ASSERT_NO_ANY_SOURCE : 0u);
    return MPI_SUCCESS;
}

int core_comm_set_info(cr_comm_t *comm, cr_info_t *info)
{
    return cr_comm_set_hints(comm, info);
}

int core_comm_get_info(cr_comm_t *comm, MPI_Info *info_used)
{
    return cr_info_to_user(comm->info, info_used);
}

/* ---- the calls ------------------------------------------------------------------------ */
int core_comm_rank(cr_comm_t *comm, int *rank)
{
    *rank = comm->rank;
    return MPI_SUCCESS;
}

int core_comm_size(cr_comm_t *comm, int *size)
{
    *size = comm->size;
    return MPI_SUCCESS;
}

/* A duplicate of c with the hints info: same groups, fresh context, a copy of
 * the topology, the attributes the copy callbacks keep.  Used by MPI_Comm_dup,
 * MPI_Comm_dup_with_info and, once the context is known, MPI_Comm_idup. */
int cr_comm_dup_finish(cr_comm_t *c, cr_comm_t *n, const cr_info_t *info)
{
    int err = MPI_SUCCESS;
    if (c->topo && !(n->topo = cr_topo_dup(c->topo)))
        err = cr_error(MPI_ERR_NO_MEM, "no memory to copy a topology");
    if (!err) err = cr_comm_set_hints(n, info);
    if (!err) err = cr_attr_copy_all(CR_K_COMM, c->handle, &c->attrs, n->handle, &n->attrs);
    return err;
}

static int comm_dup(cr_comm_t *c, const cr_info_t *info, MPI_Comm *newcomm)
{
    cr_comm_t *n;
    int err;
    *newcomm = MPI_COMM_NULL;
    if (c->remote) {
        err = cr_inter_dup(c, &n);
    } else {
        uint32_t ctx;
        if ((err = cr_ctx_alloc(c, &ctx))) return err;
        cr_group_retain(c->group);
        err = cr_comm_make(c->group, NULL, ctx, c->errh, &n);
    }
    if (err) return err;
    if ((err = cr_comm_dup_finish(c, n, info))) {
        cr_comm_free_handle(n);
        return err;
    }
    return comm_out(MPI_SUCCESS, n, newcomm);
}

int core_comm_dup(cr_comm_t *comm, MPI_Comm *newcomm)
{
    return comm_dup(comm, comm->info, newcomm);
}

int core_comm_dup_with_info(cr_comm_t *comm, cr_info_t *info, MPI_Comm *newcomm)
{
    return comm_dup(comm, info, newcomm);
}

/* all holds `stride` ints per rank of base, the first two being (color, key).
 * The members of color, ordered by key and then rank in base (a stable
 * insertion sort), form the group returned. */
cr_group_t *cr_group_split(const cr_group_t *base, const int *all, int stride, int color)
{
    int n = 0;
    for (int r = 0; r < base->size; r++) n += all[stride * r] == color;
    cr_group_t *g = cr_group_new(n);
    int *order = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (!g || !order) {
        cr_group_release(g);
        free(order);
        return NULL;
    }
    int m = 0;
    for (int r = 0; r < base->size; r++) {
        if (all[stride * r] != color) continue;
        int j = m++;
        while (j > 0 && all[stride * order[j - 1] + 1] > all[stride * r + 1]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = r;
    }
    for (int i = 0; i < n; i++) g->world[i] = base->world[order[i]];
    cr_group_set_rank(g);
    free(order);
    return g;
}

int cr_comm_split(cr_comm_t *c, int color, int key, cr_comm_t **out)
{
    *out = NULL;
    if (color < 0 && color != MPI_UNDEFINED)
        return cr_error(MPI_ERR_ARG, "color=%d: must be non-negative or MPI_UNDEFINED", color);
    if (c->remote) return cr_inter_split(c, color, key, out);
    /* one round: (color, key, next free context id) of every rank */
    int in[3] = { color, key, cr_ctx_offer(0) };
    int *all = malloc((size_t)c->size * 3 * sizeof(int));
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory for MPI_Comm_split");
    cr_ctx_agreeing++;
    int err = cr_comm_allgather_ints(c, in, 3, all, CR_TAG_CTX);
    cr_ctx_agreeing--;
    if (err) {
        free(all);
        return err;
    }
    uint32_t ctx = 0;
    for (int r = 0; r < c->size; r++)
        if ((uint32_t)all[3 * r + 2] > ctx) ctx = (uint32_t)all[3 * r + 2];
    /* every rank takes the id, also those left out, so all stay in step */
    if ((err = cr_ctx_settle_intra(c, CR_TAG_CTX, 1, &ctx)) || color == MPI_UNDEFINED) {
        free(all);
        return err;
    }
    cr_group_t *g = cr_group_split(c->group, all, 3, color);
    free(all);
    if (!g) return cr_error(MPI_ERR_NO_MEM, "no memory for MPI_Comm_split");
    return cr_comm_make(g, NULL, ctx, c->errh, out);
}

int core_comm_split(cr_comm_t *comm, int color, int key, MPI_Comm *newcomm)
{
    cr_comm_t *n;
    int err = cr_comm_split(comm, color, key, &n);
    return comm_out(err, n, newcomm);
}

int core_comm_create(cr_comm_t *comm, cr_group_t *group, MPI_Comm *newcomm)
{
    *newcomm = MPI_COMM_NULL;
    if (!cr_group_within(group, comm->group))
        return cr_error(MPI_ERR_GROUP, "MPI_Comm_create: group has a process that is not in "
                        "comm's group");
    cr_comm_t *n = NULL;
    int err;
    if (comm->remote) {
        err = cr_inter_create(comm, group, &n);
    } else {
        uint32_t ctx;
        err = cr_ctx_alloc(comm, &ctx);
        if (err || group->rank == MPI_UNDEFINED) return err;
        cr_group_retain(group);
        err = cr_comm_make(group, NULL, ctx, comm->errh, &n);
    }
    return comm_out(err, n, newcomm);
}

/* Collective over the group only: the agreement runs among the group's members
 * on comm's collective context, addressed by their ranks in comm (members_t),
 * with a tag made from the user's tag, so that calls over other groups of comm
 * stay apart.  MPI 4.1 defines it on intracommunicators only. */
int core_comm_create_group(cr_comm_t *comm, cr_group_t *group, int tag, MPI_Comm *newcomm)
{
    *newcomm = MPI_COMM_NULL;
    if (comm->remote)
        return cr_error(MPI_ERR_COMM, "MPI_Comm_create_group: comm is an intercommunicator "
                        "(MPI 4.1 defines the call on intracommunicators)");
    if (group->rank == MPI_UNDEFINED)
        return cr_error(MPI_ERR_GROUP, "MPI_Comm_create_group: the calling process is not in "
                        "group");
    if (!cr_group_within(group, comm->group))
        return cr_error(MPI_ERR_GROUP, "MPI_Comm_create_group: group has a process that is "
                        "not in comm");
    int *crank = malloc((size_t)group->size * sizeof(int));
    if (!crank) return cr_error(MPI_ERR_NO_MEM, "MPI_Comm_create_group: no memory");
    for (int r = 0; r < group->size; r++)
        for (int i = 0; i < comm->size; i++)
            if (comm->group->world[i] == group->world[r]) {
                crank[r] = i;
                break;
            }
    members_t m = { .c = comm, .crank = crank, .size = group->size, .rank = group->rank,
                    .tag = cr_comm_user_tag(tag) };
    uint32_t ctx;
    int err = members_ctx_agree(&m, &ctx);
    free(crank);
    if (err) return err;
    cr_comm_t *n;
    cr_group_retain(group);
    err = cr_comm_make(group, NULL, ctx, comm->errh, &n);
    return comm_out(err, n, newcomm);
}

int core_comm_free(cr_comm_t *comm)
{
    if (comm_predefined(comm))
        return cr_error(MPI_ERR_COMM, "comm=%s: a predefined communicator cannot be freed",
                        comm->name);
    /* a failing delete callback fails the free */
    int err = cr_attr_delete_all(CR_K_COMM, comm->handle, &comm->attrs);
    if (err) return err;
    cr_comm_free_handle(comm);
    return MPI_SUCCESS;
}

/* Intercommunicators compare both groups: congruent when both are identical,
 * similar when both are similar (MPI 4.0, 7.4.1). */
int core_comm_compare(cr_comm_t *comm1, cr_comm_t *comm2, int *result)
{
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (!comm1->remote != !comm2->remote) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int rel = cr_group_relation(comm1->group, comm2->group);
    if (comm1->remote) {
        int rrel = cr_group_relation(comm1->remote, comm2->remote);
        if (rrel == MPI_UNEQUAL || rel == MPI_UNEQUAL) rel = MPI_UNEQUAL;
        else if (rrel == MPI_SIMILAR) rel = MPI_SIMILAR;
    }
    *result = rel == MPI_IDENT ? MPI_CONGRUENT : rel;
    return MPI_SUCCESS;
}

int core_comm_set_name(cr_comm_t *comm, const char *comm_name)
{
    snprintf(comm->name, sizeof comm->name, "%s", comm_name);
    return MPI_SUCCESS;
}

int core_comm_get_name(cr_comm_t *comm, char *comm_name, int *resultlen)
{
    snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
    *resultlen = (int)strlen(comm_name);
    return MPI_SUCCESS;
}

int core_comm_test_inter(cr_comm_t *comm, int *flag)
{
    *flag = comm->remote != NULL;
    return MPI_SUCCESS;
}

int core_comm_remote_size(cr_comm_t *comm, int *size)
{
    if (!comm->remote)
        return cr_error(MPI_ERR_COMM, "MPI_Comm_remote_size: comm is an intracommunicator");
    *size = comm->remote->size;
    return MPI_SUCCESS;
}

int core_comm_remote_group(cr_comm_t *comm, MPI_Group *group)
{
    if (!comm->remote)
        return cr_error(MPI_ERR_COMM, "MPI_Comm_remote_group: comm is an intracommunicator");
    cr_group_retain(comm->remote);
    return cr_group_to_handle(comm->remote, group);
}
