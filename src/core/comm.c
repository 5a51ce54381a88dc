/* SPDX-License-Identifier: MIT */
/* Communicators: rank/size, dup/idup/dup_with_info, split/split_type, create,
 * create_group, free, compare, names, info hints, context ids, and the small
 * internal collectives that communicator creation needs.  Intercommunicators
 * live in intercomm.c, topologies in topo.c (see docs/communicators.md). */
#include "core/core.h"
#include "core/errh.h"
#include "core/comm_priv.h"
#include "core/info.h"
#include "core/attr.h"
#include "core/api.h"
#include "core/threads.h"
#include "binding/core_legacy.h" /* transition: entries not yet in an api.h */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- internal collectives for communicator creation -------------------------- */

/* Gather n ints from every rank to rank 0, then send the whole table to every
 * rank.  One tag serves both directions: a rank receives gather messages only
 * as the root and the table only as a non-root. */
int cr_comm_allgather_ints(cr_comm_t *c, const int *in, int n, int *out, int tag)
{
    cr_datatype_t *dt = cr_datatype_ptr(MPI_INT);
    int err = MPI_SUCCESS;
    if (c->rank == 0) {
        memcpy(out, in, (size_t)n * sizeof(int));
        for (int r = 1; r < c->size && !err; r++)
            err = cr_recv(out + (size_t)r * n, n, dt, r, tag, c, CR_CTX_COLL,
                          MPI_STATUS_IGNORE);
        for (int r = 1; r < c->size && !err; r++)
            err = cr_send(out, (MPI_Aint)n * c->size, dt, r, tag, c, CR_CTX_COLL);
    } else {
        err = cr_send(in, n, dt, 0, tag, c, CR_CTX_COLL);
        if (!err)
            err = cr_recv(out, (MPI_Aint)n * c->size, dt, 0, tag, c, CR_CTX_COLL,
                          MPI_STATUS_IGNORE);
    }
    return err;
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
int cr_barrier_internal(cr_comm_t *c)
{
    cr_datatype_t *dt = cr_datatype_ptr(MPI_BYTE);
    for (int d = 1; d < c->size; d <<= 1) {
        int err = cr_sendrecv(NULL, 0, dt, (c->rank + d) % c->size, CR_TAG_BARRIER, NULL, 0, dt,
                              (c->rank - d + c->size) % c->size, CR_TAG_BARRIER, c, CR_CTX_COLL,
                              MPI_STATUS_IGNORE);
        if (err) return err;
    }
    return MPI_SUCCESS;
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
int cr_ctx_max(cr_comm_t *c, int tag, uint32_t *ctx)
{
    int mine = (int)cr_proc.next_ctx;
    int *all = malloc((size_t)c->size * sizeof(int));
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory to agree on a context id");
    int err = cr_comm_allgather_ints(c, &mine, 1, all, tag);
    if (!err) {
        int mx = 0;
        for (int i = 0; i < c->size; i++) mx = all[i] > mx ? all[i] : mx;
        *ctx = (uint32_t)mx;
    }
    free(all);
    return err;
}

void cr_ctx_reserve(uint32_t ctx, int n)
{
    uint32_t next = ctx + (uint32_t)n * CR_CTX_STRIDE;
    if (next > cr_proc.next_ctx) cr_proc.next_ctx = next;
}

/* Threads (threads.h): two agreements that run at once in one process (two
 * threads duplicating different communicators) may reach the same maximum.
 * Each process remembers every id its agreements reached (claimed); an
 * agreement whose id another one of this process claimed first is repeated,
 * from above it, until every member could claim the id it reached. */
static uint32_t *claimed;
static size_t nclaimed, claimed_cap;

static int ctx_claim(uint32_t ctx)
{
    for (size_t i = 0; i < nclaimed; i++)
        if (claimed[i] == ctx) return 0;
    if (nclaimed == claimed_cap) {
        size_t cap = claimed_cap ? 2 * claimed_cap : 64;
        uint32_t *c = realloc(claimed, cap * sizeof *c);
        if (!c) return 0;           /* try again with another id */
        claimed = c;
        claimed_cap = cap;
    }
    claimed[nclaimed++] = ctx;
    return 1;
}

static int ctx_alloc_threaded(cr_comm_t *comm, uint32_t *ctx)
{
    int *oks = malloc((size_t)comm->size * sizeof(int));
    if (!oks) return cr_error(MPI_ERR_NO_MEM, "no memory to agree on a context id");
    int err;
    for (int round = 0;; round++) {
        err = cr_ctx_max(comm, CR_TAG_CTX, ctx);
        if (err) break;
        int ok = ctx_claim(*ctx), all = 1;
        /* after a clash, step a little further on each rank, so that the
         * clashing agreements do not meet on the same id again */
        cr_ctx_reserve(*ctx, ok ? 1 : 1 + (cr_proc.world_rank + round) % 3);
        err = cr_comm_allgather_ints(comm, &ok, 1, oks, CR_TAG_CTX);
        if (err) break;
        for (int r = 0; r < comm->size; r++) all &= oks[r];
        if (all) break;
    }
    free(oks);
    return err;
}

int cr_ctx_alloc(cr_comm_t *comm, uint32_t *ctx)
{
    if (cr_threaded) return ctx_alloc_threaded(comm, ctx);
    int err = cr_ctx_max(comm, CR_TAG_CTX, ctx);
    if (!err) cr_ctx_reserve(*ctx, 1);
    return err;
}

/* ---- communicator objects ------------------------------------------------------ */
int cr_comm_make(cr_group_t *g, cr_group_t *remote, uint32_t ctx, cr_errhandler_t *errh,
                 cr_comm_t **out)
{
    cr_comm_t *c = calloc(1, sizeof *c);
    if (!c) {
        cr_group_release(g);
        cr_group_release(remote);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a communicator");
    }
    int idx = cr_objtab_add(&cr_comm_tab, c);
    if (idx < 0) {
        free(c);
        cr_group_release(g);
        cr_group_release(remote);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a communicator handle");
    }
    c->handle = CR_H_MAKE(CR_ST_USER, CR_K_COMM, idx);
    c->refcount = 1;
    c->group = g;
    c->remote = remote;
    c->rank = g->rank;
    c->size = g->size;
    c->ctx = ctx;
    c->errh = errh;
    errh->refcount++;
    *out = c;
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

/* Drop the last reference: everything the communicator owns goes with it. */
void cr_comm_release(cr_comm_t *c)
{
    if (!c || --c->refcount > 0) return;
    if (c->handle != MPI_COMM_NULL) cr_objtab_remove(&cr_comm_tab, CR_H_INDEX(c->handle));
    cr_group_release(c->group);
    cr_group_release(c->remote);
    if (c->errh) cr_errhandler_release(c->errh);
    cr_comm_release(c->local_comm);
    cr_topo_free(c->topo);
    if (c->info) core_info_free(&c->info);
    free(c);
}

/* Hand a new communicator to the user. */
static int comm_out(int err, cr_comm_t *c, MPI_Comm *out)
{
    *out = err ? MPI_COMM_NULL : c->handle;
    return err;
}

/* ---- info hints ------------------------------------------------------------------ */
/* Keep a private copy of the user's info (MPI_INFO_NULL: none). */
static int comm_info_set(cr_comm_t *c, MPI_Info info)
{
    MPI_Info copy = 0;
    if (info != MPI_INFO_NULL) {
        int err = cr_info_dup_handle(info, &copy);
        if (err) return err;
        if (copy == MPI_INFO_NULL) copy = 0;
    }
    if (c->info) core_info_free(&c->info);
    c->info = copy;
    return MPI_SUCCESS;
}

int core_comm_set_info(MPI_Comm comm, MPI_Info info)
{
    return comm_info_set(cr_comm_ptr(comm), info);
}

int core_comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    if (c->info) return cr_info_dup_handle(c->info, info_used);
    return core_info_create(info_used);
}

/* ---- the calls ------------------------------------------------------------------------ */
int core_comm_rank(MPI_Comm comm, int *rank)
{
    *rank = cr_comm_ptr(comm)->rank;
    return MPI_SUCCESS;
}

int core_comm_size(MPI_Comm comm, int *size)
{
    *size = cr_comm_ptr(comm)->size;
    return MPI_SUCCESS;
}

/* A duplicate of c: same groups, fresh context, copies of topology and hints. */
static int comm_dup(cr_comm_t *c, MPI_Comm *newcomm)
{
    if (c->remote) return cr_inter_dup(c, newcomm);
    uint32_t ctx;
    int err = cr_ctx_alloc(c, &ctx);
    if (err) return err;
    cr_comm_t *n;
    c->group->refcount++;
    err = cr_comm_make(c->group, NULL, ctx, c->errh, &n);
    if (err) return comm_out(err, NULL, newcomm);
    if (c->topo && !(n->topo = cr_topo_dup(c->topo))) {
        cr_comm_release(n);
        return comm_out(cr_error(MPI_ERR_NO_MEM, "no memory to copy a topology"), NULL, newcomm);
    }
    return comm_out(MPI_SUCCESS, n, newcomm);
}

int core_comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    int err = comm_dup(c, newcomm);
    if (!err && (err = comm_info_set(cr_comm_ptr(*newcomm), c->info ? c->info : MPI_INFO_NULL)))
        core_comm_free(newcomm);
    if (!err && (err = cr_attr_copy_all(CR_K_COMM, comm, &c->attrs, *newcomm, &cr_comm_ptr(*newcomm)->attrs))) core_comm_free(newcomm);
    return err;
}

int core_comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    int err = comm_dup(cr_comm_ptr(comm), newcomm);
    if (!err && (err = comm_info_set(cr_comm_ptr(*newcomm), info))) core_comm_free(newcomm);
    if (!err && (err = cr_attr_copy_all(CR_K_COMM, comm, &cr_comm_ptr(comm)->attrs, *newcomm, &cr_comm_ptr(*newcomm)->attrs))) core_comm_free(newcomm);
    return err;
}

/* The duplicate is made at once (the agreement is short), so the request is
 * complete when it is returned; waiting on it only frees it. */
int core_comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    int err = core_comm_dup(comm, newcomm);
    if (err) return err;
    cr_request_t *r = cr_request_new(CR_REQ_COLL, 1);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "MPI_Comm_idup: no memory for a request");
    r->comm = cr_comm_ptr(comm);
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    r->complete = 1;
    *request = r->handle;
    return MPI_SUCCESS;
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

int core_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    *newcomm = MPI_COMM_NULL;
    if (color < 0 && color != MPI_UNDEFINED)
        return cr_error(MPI_ERR_ARG, "color=%d: must be non-negative or MPI_UNDEFINED", color);
    if (c->remote) return cr_inter_split(c, color, key, newcomm);
    /* one round: (color, key, next free context id) of every rank */
    int in[3] = { color, key, (int)cr_proc.next_ctx };
    int *all = malloc((size_t)c->size * 3 * sizeof(int));
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory for MPI_Comm_split");
    int err = cr_comm_allgather_ints(c, in, 3, all, CR_TAG_CTX);
    if (err) {
        free(all);
        return err;
    }
    uint32_t ctx = 0;
    for (int r = 0; r < c->size; r++)
        if ((uint32_t)all[3 * r + 2] > ctx) ctx = (uint32_t)all[3 * r + 2];
    /* every rank reserves the id, also those left out, so all stay in step */
    cr_ctx_reserve(ctx, 1);
    if (color == MPI_UNDEFINED) {
        free(all);
        return MPI_SUCCESS;
    }
    cr_group_t *g = cr_group_split(c->group, all, 3, color);
    free(all);
    if (!g) return cr_error(MPI_ERR_NO_MEM, "no memory for MPI_Comm_split");
    cr_comm_t *n;
    err = cr_comm_make(g, NULL, ctx, c->errh, &n);
    return comm_out(err, n, newcomm);
}

/* The color of this process for a node-level split: the smallest world rank
 * of comm's members that share this process's node. */
static int node_color(const cr_comm_t *c)
{
    int color = cr_proc.world_rank;
    for (int r = 0; r < c->size; r++) {
        int w = c->group->world[r];
        if (cr_proc.local_of_world && cr_proc.local_of_world[w] >= 0 && w < color) color = w;
    }
    return color;
}

/* All ranks of comm on this node: is that a strict subset of comm?  Decided
 * the same way on every rank, since it depends on the node layout only. */
static int node_is_strict_subset(const cr_comm_t *c)
{
    for (int r = 0; r < c->size; r++)
        if (!cr_proc.local_of_world || cr_proc.local_of_world[c->group->world[r]] < 0) return 1;
    return 0;
}

/* Courier knows one level of hardware below the job: the node (shared memory).
 * MPI_COMM_TYPE_SHARED and MPI_COMM_TYPE_HW_GUIDED with
 * mpi_hw_resource_type=mpi_shared_memory give the node's communicator; other
 * resource types are unknown here and give MPI_COMM_NULL, as the standard asks.
 * MPI_COMM_TYPE_HW_UNGUIDED must return a strict subset of comm: the node when
 * comm spans several nodes, else MPI_COMM_NULL (nothing finer is known). */
int core_comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    if (c->remote)
        return cr_error(MPI_ERR_COMM, "MPI_Comm_split_type: comm is an intercommunicator");
    int color;
    switch (split_type) {
    case MPI_UNDEFINED: color = MPI_UNDEFINED; break;
    case MPI_COMM_TYPE_SHARED: color = node_color(c); break;
    case MPI_COMM_TYPE_HW_GUIDED: {
        const char *v = cr_info_lookup(info, "mpi_hw_resource_type");
        color = v && strcmp(v, "mpi_shared_memory") == 0 ? node_color(c) : MPI_UNDEFINED;
        break;
    }
    case MPI_COMM_TYPE_HW_UNGUIDED:
        color = node_is_strict_subset(c) ? node_color(c) : MPI_UNDEFINED;
        break;
    default:
        return cr_error(MPI_ERR_ARG, "split_type=%d: unknown split type", split_type);
    }
    int err = core_comm_split(comm, color, key, newcomm);
    if (!err && *newcomm != MPI_COMM_NULL && (err = comm_info_set(cr_comm_ptr(*newcomm), info)))
        core_comm_free(newcomm);
    return err;
}

/* Is every member of g a member of comm's (local) group? */
static int group_within(const cr_group_t *g, const cr_group_t *of)
{
    for (int i = 0; i < g->size; i++) {
        int found = 0;
        for (int j = 0; j < of->size && !found; j++) found = g->world[i] == of->world[j];
        if (!found) return 0;
    }
    return 1;
}

int core_comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    cr_group_t *g = cr_group_ptr(group);
    *newcomm = MPI_COMM_NULL;
    if (!group_within(g, c->group))
        return cr_error(MPI_ERR_GROUP, "MPI_Comm_create: group has a process that is not in "
                        "comm's group");
    if (c->remote) return cr_inter_create(c, g, newcomm);
    uint32_t ctx;
    int err = cr_ctx_alloc(c, &ctx);
    if (err || g->rank == MPI_UNDEFINED) return err;
    cr_comm_t *n;
    g->refcount++;
    err = cr_comm_make(g, NULL, ctx, c->errh, &n);
    return comm_out(err, n, newcomm);
}

/* Collective over the group only: the agreement runs among the group's members
 * on comm's collective context, with ranks of the group and a tag made from the
 * user's tag, so concurrent calls over other groups of comm stay apart. */
int core_comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    cr_group_t *g = cr_group_ptr(group);
    *newcomm = MPI_COMM_NULL;
    if (c->remote)
        return cr_error(MPI_ERR_COMM, "MPI_Comm_create_group: comm is an intercommunicator");
    if (g->rank == MPI_UNDEFINED)
        return cr_error(MPI_ERR_GROUP, "MPI_Comm_create_group: the calling process is not in "
                        "group");
    if (!group_within(g, c->group))
        return cr_error(MPI_ERR_GROUP, "MPI_Comm_create_group: group has a process that is "
                        "not in comm");
    cr_comm_t tmp = { .handle = MPI_COMM_NULL, .rank = g->rank, .size = g->size,
                      .ctx = c->ctx, .group = g };
    uint32_t ctx;
    int err = cr_ctx_max(&tmp, cr_comm_user_tag(tag), &ctx);
    if (err) return err;
    cr_ctx_reserve(ctx, 1);
    cr_comm_t *n;
    g->refcount++;
    err = cr_comm_make(g, NULL, ctx, c->errh, &n);
    return comm_out(err, n, newcomm);
}

int core_comm_free(MPI_Comm *comm)
{
    cr_comm_t *c = cr_comm_ptr(*comm);
    if (c == &cr_comm_world || c == &cr_comm_self)
        return cr_error(MPI_ERR_COMM, "comm=%s: a predefined communicator cannot be freed",
                        c->name);
    int err = cr_attr_delete_all(CR_K_COMM, *comm, &c->attrs);   /* a failing delete callback fails the free */
    if (err) return err;
    *comm = MPI_COMM_NULL;
    cr_comm_release(c);
    return MPI_SUCCESS;
}

/* MPI_IDENT/CONGRUENT/SIMILAR/UNEQUAL for two groups. */
int cr_group_relation(const cr_group_t *a, const cr_group_t *b)
{
    if (a->size != b->size) return MPI_UNEQUAL;
    int same_order = 1;
    for (int i = 0; i < a->size; i++)
        if (a->world[i] != b->world[i]) same_order = 0;
    if (same_order) return MPI_IDENT;
    for (int i = 0; i < a->size; i++) {
        int found = 0;
        for (int j = 0; j < b->size && !found; j++) found = a->world[i] == b->world[j];
        if (!found) return MPI_UNEQUAL;
    }
    return MPI_SIMILAR;
}

/* Intercommunicators compare both groups: congruent when both are identical,
 * similar when both are similar (MPI 4.0, 7.4.1). */
int core_comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    cr_comm_t *a = cr_comm_ptr(comm1), *b = cr_comm_ptr(comm2);
    if (!a->remote != !b->remote) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int rel = cr_group_relation(a->group, b->group);
    if (a->remote) {
        int rrel = cr_group_relation(a->remote, b->remote);
        if (rrel == MPI_UNEQUAL || rel == MPI_UNEQUAL) rel = MPI_UNEQUAL;
        else if (rrel == MPI_SIMILAR) rel = MPI_SIMILAR;
    }
    *result = rel == MPI_IDENT ? MPI_CONGRUENT : rel;
    return MPI_SUCCESS;
}

int core_comm_set_name(MPI_Comm comm, const char *comm_name)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    snprintf(c->name, sizeof c->name, "%s", comm_name);
    return MPI_SUCCESS;
}

int core_comm_get_name(MPI_Comm comm, char *comm_name, int *resultlen)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", c->name);
    *resultlen = (int)strlen(comm_name);
    return MPI_SUCCESS;
}

int core_comm_test_inter(MPI_Comm comm, int *flag)
{
    *flag = cr_comm_ptr(comm)->remote != NULL;
    return MPI_SUCCESS;
}

int core_comm_remote_size(MPI_Comm comm, int *size)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    if (!c->remote)
        return cr_error(MPI_ERR_COMM, "MPI_Comm_remote_size: comm is an intracommunicator");
    *size = c->remote->size;
    return MPI_SUCCESS;
}

int core_comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    if (!c->remote)
        return cr_error(MPI_ERR_COMM, "MPI_Comm_remote_group: comm is an intracommunicator");
    c->remote->refcount++;
    return cr_group_to_handle(c->remote, group);
}

int core_comm_group(MPI_Comm comm, MPI_Group *group);

