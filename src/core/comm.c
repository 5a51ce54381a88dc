/* SPDX-License-Identifier: MIT */
/* Communicators: rank/size, dup, split, free, compare, names, context ids, and
 * the small internal collectives that communicator creation needs. */
#include "core/core.h"
#include "core/errh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Internal tags on the collective context; negative, so no user receive matches. */
enum { TAG_CTX = -100, TAG_GATHER = -101, TAG_BCAST = -102, TAG_BARRIER = -103 };

cr_group_t *cr_group_new(int size);
void cr_group_release(cr_group_t *g);

/* Gather n ints from every rank to every rank (out has n*size ints), through
 * rank 0.  Used only where communicators are created, so simplicity wins. */
static int allgather_ints(cr_comm_t *c, const int *in, int n, int *out)
{
    cr_datatype_t *dt = cr_datatype_ptr(MPI_INT);
    int err = MPI_SUCCESS;
    if (c->rank == 0) {
        memcpy(out, in, (size_t)n * sizeof(int));
        for (int r = 1; r < c->size && !err; r++)
            err = cr_recv(out + (size_t)r * n, n, dt, r, TAG_GATHER, c, CR_CTX_COLL,
                          MPI_STATUS_IGNORE);
        for (int r = 1; r < c->size && !err; r++)
            err = cr_send(out, (MPI_Aint)n * c->size, dt, r, TAG_BCAST, c, CR_CTX_COLL);
    } else {
        err = cr_send(in, n, dt, 0, TAG_GATHER, c, CR_CTX_COLL);
        if (!err)
            err = cr_recv(out, (MPI_Aint)n * c->size, dt, 0, TAG_BCAST, c, CR_CTX_COLL,
                          MPI_STATUS_IGNORE);
    }
    return err;
}

/* Dissemination barrier on the collective context; makes progress while waiting. */
int cr_barrier_internal(cr_comm_t *c)
{
    cr_datatype_t *dt = cr_datatype_ptr(MPI_BYTE);
    for (int d = 1; d < c->size; d <<= 1) {
        int err = cr_sendrecv(NULL, 0, dt, (c->rank + d) % c->size, TAG_BARRIER, NULL, 0, dt,
                              (c->rank - d + c->size) % c->size, TAG_BARRIER, c, CR_CTX_COLL,
                              MPI_STATUS_IGNORE);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

int cr_ctx_alloc(cr_comm_t *comm, uint32_t *ctx)
{
    int mine = (int)cr_proc.next_ctx;
    int *all = malloc((size_t)comm->size * sizeof(int));
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory to agree on a context id");
    int err = allgather_ints(comm, &mine, 1, all);
    if (!err) {
        int mx = 0;
        for (int i = 0; i < comm->size; i++) mx = all[i] > mx ? all[i] : mx;
        *ctx = (uint32_t)mx;
        cr_proc.next_ctx = (uint32_t)mx + CR_CTX_STRIDE;
    }
    free(all);
    return err;
}

/* Make a communicator object over group g (takes the reference) with context ctx. */
static int comm_new(cr_group_t *g, uint32_t ctx, cr_errhandler_t *errh, MPI_Comm *out)
{
    cr_comm_t *c = calloc(1, sizeof *c);
    if (!c) return cr_error(MPI_ERR_NO_MEM, "no memory for a communicator");
    int idx = cr_objtab_add(&cr_comm_tab, c);
    if (idx < 0) {
        free(c);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a communicator handle");
    }
    c->handle = CR_H_MAKE(CR_ST_USER, CR_K_COMM, idx);
    c->refcount = 1;
    c->group = g;
    c->rank = g->rank;
    c->size = g->size;
    c->ctx = ctx;
    c->errh = errh;
    errh->refcount++;
    *out = c->handle;
    return MPI_SUCCESS;
}

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

int core_comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    uint32_t ctx;
    int err = cr_ctx_alloc(c, &ctx);
    if (err) return err;
    c->group->refcount++;
    return comm_new(c->group, ctx, c->errh, newcomm);
}

int core_comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    int in[2] = { color, key };
    int *all = malloc((size_t)c->size * 2 * sizeof(int));
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory for MPI_Comm_split");
    int err = allgather_ints(c, in, 2, all);
    uint32_t ctx = 0;
    if (!err) err = cr_ctx_alloc(c, &ctx);
    if (err || color == MPI_UNDEFINED) {
        free(all);
        *newcomm = MPI_COMM_NULL;
        return err;
    }
    int n = 0;
    for (int r = 0; r < c->size; r++) n += all[2 * r] == color;
    cr_group_t *g = cr_group_new(n);
    if (!g) {
        free(all);
        return cr_error(MPI_ERR_NO_MEM, "no memory for MPI_Comm_split");
    }
    /* members in order of (key, parent rank): insertion sort, stable */
    int *order = malloc((size_t)n * sizeof(int)), m = 0;
    for (int r = 0; r < c->size; r++) {
        if (all[2 * r] != color) continue;
        int j = m++;
        while (j > 0 && all[2 * order[j - 1] + 1] > all[2 * r + 1]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = r;
    }
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < n; i++) {
        g->world[i] = cr_comm_world_rank(c, order[i]);
        if (order[i] == c->rank) g->rank = i;
    }
    free(order);
    free(all);
    return comm_new(g, ctx, c->errh, newcomm);
}

int core_comm_free(MPI_Comm *comm)
{
    cr_comm_t *c = cr_comm_ptr(*comm);
    if (c == &cr_comm_world || c == &cr_comm_self)
        return cr_error(MPI_ERR_COMM, "comm=%s: a predefined communicator cannot be freed",
                        c->name);
    *comm = MPI_COMM_NULL;
    if (--c->refcount > 0) return MPI_SUCCESS;
    cr_objtab_remove(&cr_comm_tab, CR_H_INDEX(c->handle));
    cr_group_release(c->group);
    if (c->remote) cr_group_release(c->remote);
    cr_errhandler_release(c->errh);
    free(c);
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

int core_comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    int rel = cr_group_relation(cr_comm_ptr(comm1)->group, cr_comm_ptr(comm2)->group);
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

int core_comm_group(MPI_Comm comm, MPI_Group *group);

/* Predefined attributes (user keyvals arrive with the attributes issue). */
int core_comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    static int tag_ub = INT32_MAX, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0;
    static int universe, appnum;
    void **out = attribute_val;
    *flag = 1;
    switch (comm_keyval) {
    case MPI_TAG_UB: *out = &tag_ub; break;
    case MPI_HOST: *out = &host; break;
    case MPI_IO: *out = &io; break;
    case MPI_WTIME_IS_GLOBAL: *out = &wtime_global; break;
    case MPI_UNIVERSE_SIZE:
        universe = cr_proc.world_size;
        *out = &universe;
        break;
    case MPI_APPNUM:
        appnum = cr_proc.appnum;
        *out = &appnum;
        break;
    default:
        *flag = 0;
        return cr_error(MPI_ERR_KEYVAL, "comm_keyval=%d: no such attribute key (user keyvals "
                        "are not implemented yet)", comm_keyval);
    }
    return MPI_SUCCESS;
}

int core_comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return core_comm_dup(comm, newcomm);
}

/* Every rank of a Courier job shares one node today, so all the node-level split
 * types give one communicator per node: a split with the same color for all. */
int core_comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    return core_comm_split(comm, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : 0, key, newcomm);
}
