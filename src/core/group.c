/* SPDX-License-Identifier: MIT */
/* Groups: ordered sets of world ranks, reference counted (core.h).
 *
 * A group gets a handle the first time the user receives it; the handle holds
 * `urefs` of the group's references (MPI_Comm_group twice on one communicator
 * returns the same handle twice, and the user frees it twice).  When the user
 * has freed every one, the handle leaves the table: using or freeing it again
 * is MPI_ERR_GROUP, while communicators that use the group keep it alive. */
#include "core/core.h"
#include "core/comm_priv.h"
#include "core/api_comm.h"

#include <stdlib.h>
#include <string.h>

static cr_objtab_t group_tab;
static cr_group_t group_empty = { .handle = MPI_GROUP_EMPTY, .refcount = 1, .size = 0,
                                  .rank = MPI_UNDEFINED };

cr_group_t *cr_group_ptr(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY) return &group_empty;
    if (CR_H_STORAGE(h) == CR_ST_USER && CR_H_KIND(h) == CR_K_GROUP) {
        cr_group_t *g = cr_objtab_get(&group_tab, CR_H_INDEX(h));
        return g && g->handle == h ? g : NULL;
    }
    return NULL;
}

cr_group_t *cr_group_new(int size)
{
    cr_group_t *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->world = malloc((size_t)(size ? size : 1) * sizeof(int));
    if (!g->world) {
        free(g);
        return NULL;
    }
    g->handle = MPI_GROUP_NULL;
    g->refcount = 1;
    g->size = size;
    g->rank = MPI_UNDEFINED;
    return g;
}

void cr_group_retain(cr_group_t *g)
{
    if (g && g != &group_empty) g->refcount++;
}

void cr_group_release(cr_group_t *g)
{
    if (!g || g == &group_empty || --g->refcount > 0) return;
    if (g->handle != MPI_GROUP_NULL) cr_objtab_remove(&group_tab, CR_H_INDEX(g->handle));
    free(g->world);
    free(g);
}

int cr_group_to_handle(cr_group_t *g, MPI_Group *out)
{
    if (g->size == 0) {
        cr_group_release(g);
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    if (g->handle == MPI_GROUP_NULL) {
        int idx = cr_objtab_add(&group_tab, g);
        if (idx < 0) {
            cr_group_release(g);
            return cr_error(MPI_ERR_NO_MEM, "no memory for a group handle");
        }
        g->handle = CR_H_MAKE(CR_ST_USER, CR_K_GROUP, idx);
    }
    g->urefs++;
    *out = g->handle;
    return MPI_SUCCESS;
}

void cr_group_set_rank(cr_group_t *g)
{
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == cr_proc.world_rank) g->rank = i;
}

static int in_group(const cr_group_t *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w) return 1;
    return 0;
}

int cr_group_within(const cr_group_t *g, const cr_group_t *of)
{
    for (int i = 0; i < g->size; i++)
        if (!in_group(of, g->world[i])) return 0;
    return 1;
}

/* MPI_IDENT/SIMILAR/UNEQUAL for two groups. */
int cr_group_relation(const cr_group_t *a, const cr_group_t *b)
{
    if (a->size != b->size) return MPI_UNEQUAL;
    if (memcmp(a->world, b->world, (size_t)a->size * sizeof(int)) == 0) return MPI_IDENT;
    return cr_group_within(a, b) ? MPI_SIMILAR : MPI_UNEQUAL;
}

/* ---- the calls ---------------------------------------------------------------- */
int core_comm_group(cr_comm_t *comm, MPI_Group *group)
{
    cr_group_retain(comm->group);
    return cr_group_to_handle(comm->group, group);
}

int core_group_size(cr_group_t *group, int *size)
{
    *size = group->size;
    return MPI_SUCCESS;
}

int core_group_rank(cr_group_t *group, int *rank)
{
    *rank = group->rank;
    return MPI_SUCCESS;
}

int core_group_free(cr_group_t *group)
{
    if (group == &group_empty) return MPI_SUCCESS;   /* predefined: nothing to drop */
    if (--group->urefs == 0) {
        cr_objtab_remove(&group_tab, CR_H_INDEX(group->handle));
        group->handle = MPI_GROUP_NULL;
    }
    cr_group_release(group);
    return MPI_SUCCESS;
}

int core_group_compare(cr_group_t *group1, cr_group_t *group2, int *result)
{
    *result = cr_group_relation(group1, group2);
    return MPI_SUCCESS;
}

int core_group_translate_ranks(cr_group_t *group1, int n, const int ranks1[], cr_group_t *group2,
                               int ranks2[])
{
    if (n < 0) return cr_error(MPI_ERR_ARG, "n=%d: must not be negative", n);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (ranks1[i] < 0 || ranks1[i] >= group1->size)
            return cr_error(MPI_ERR_RANK, "ranks1[%d]=%d: invalid rank (group size is %d)", i,
                            ranks1[i], group1->size);
        ranks2[i] = MPI_UNDEFINED;
        for (int j = 0; j < group2->size; j++)
            if (group2->world[j] == group1->world[ranks1[i]]) ranks2[i] = j;
    }
    return MPI_SUCCESS;
}

/* A new group of the members ranks[0..n) of g, in that order, for the user. */
int core_group_incl(cr_group_t *g, int n, const int ranks[], MPI_Group *newgroup)
{
    if (n < 0 || n > g->size)
        return cr_error(MPI_ERR_ARG, "n=%d: must be 0..%d (the group size)", n, g->size);
    char *seen = calloc((size_t)g->size + 1, 1);
    if (!seen) return cr_error(MPI_ERR_NO_MEM, "no memory for a group");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || seen[ranks[i]]) {
            free(seen);
            return cr_error(MPI_ERR_RANK, "ranks[%d]=%d: %s (group size is %d)", i, ranks[i],
                            ranks[i] < 0 || ranks[i] >= g->size ? "invalid rank"
                                                                : "rank appears twice", g->size);
        }
        seen[ranks[i]] = 1;
    }
    free(seen);
    cr_group_t *ng = cr_group_new(n);
    if (!ng) return cr_error(MPI_ERR_NO_MEM, "no memory for a group");
    for (int i = 0; i < n; i++) ng->world[i] = g->world[ranks[i]];
    cr_group_set_rank(ng);
    return cr_group_to_handle(ng, newgroup);
}

/* The members of g that ranks[0..n) does not name, in g's order. */
int core_group_excl(cr_group_t *g, int n, const int ranks[], MPI_Group *newgroup)
{
    if (n < 0 || n > g->size)
        return cr_error(MPI_ERR_ARG, "n=%d: must be 0..%d (the group size)", n, g->size);
    char *drop = calloc((size_t)g->size + 1, 1);
    if (!drop) return cr_error(MPI_ERR_NO_MEM, "no memory for a group");
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || drop[ranks[i]]) {
            free(drop);
            return cr_error(MPI_ERR_RANK, "ranks[%d]=%d: invalid or repeated rank (group size "
                            "is %d)", i, ranks[i], g->size);
        }
        drop[ranks[i]] = 1;
    }
    cr_group_t *ng = cr_group_new(g->size - n);
    if (!ng) {
        free(drop);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a group");
    }
    int k = 0;
    for (int i = 0; i < g->size; i++)
        if (!drop[i]) ng->world[k++] = g->world[i];
    free(drop);
    cr_group_set_rank(ng);
    return cr_group_to_handle(ng, newgroup);
}

/* union (op 0), intersection (1), difference (2), in the standard's order. */
static int group_setop(const cr_group_t *a, const cr_group_t *b, int op, MPI_Group *newgroup)
{
    cr_group_t *ng = cr_group_new(a->size + b->size);
    if (!ng) return cr_error(MPI_ERR_NO_MEM, "no memory for a group");
    int k = 0;
    for (int i = 0; i < a->size; i++) {
        int inb = in_group(b, a->world[i]);
        if (op == 0 || (op == 1 && inb) || (op == 2 && !inb)) ng->world[k++] = a->world[i];
    }
    if (op == 0)
        for (int j = 0; j < b->size; j++)
            if (!in_group(a, b->world[j])) ng->world[k++] = b->world[j];
    ng->size = k;
    cr_group_set_rank(ng);
    return cr_group_to_handle(ng, newgroup);
}

int core_group_union(cr_group_t *group1, cr_group_t *group2, MPI_Group *newgroup)
{
    return group_setop(group1, group2, 0, newgroup);
}

int core_group_intersection(cr_group_t *group1, cr_group_t *group2, MPI_Group *newgroup)
{
    return group_setop(group1, group2, 1, newgroup);
}

int core_group_difference(cr_group_t *group1, cr_group_t *group2, MPI_Group *newgroup)
{
    return group_setop(group1, group2, 2, newgroup);
}

/* Expand (first, last, stride) triplets into a rank list. */
static int expand_ranges(const cr_group_t *g, int n, int ranges[][3], int **out, int *count)
{
    if (n < 0) return cr_error(MPI_ERR_ARG, "n=%d: must not be negative", n);
    long total = 0;
    for (int i = 0; i < n; i++) {
        int f = ranges[i][0], l = ranges[i][1], s = ranges[i][2];
        if (s == 0 || f < 0 || f >= g->size || l < 0 || l >= g->size || (l - f) / s < 0)
            return cr_error(MPI_ERR_ARG, "ranges[%d]={%d,%d,%d}: invalid range for a group of "
                            "size %d", i, f, l, s, g->size);
        total += (l - f) / s + 1;
        if (total > g->size)
            return cr_error(MPI_ERR_RANK, "ranges: more than %d ranks (the group size): a rank "
                            "appears twice", g->size);
    }
    int *r = malloc((size_t)(total ? total : 1) * sizeof(int)), k = 0;
    if (!r) return cr_error(MPI_ERR_NO_MEM, "no memory for group ranges");
    for (int i = 0; i < n; i++)
        for (int v = ranges[i][0]; ranges[i][2] > 0 ? v <= ranges[i][1] : v >= ranges[i][1];
             v += ranges[i][2])
            r[k++] = v;
    *out = r;
    *count = k;
    return MPI_SUCCESS;
}

int core_group_range_incl(cr_group_t *group, int n, int ranges[][3], MPI_Group *newgroup)
{
    int *r, k, err = expand_ranges(group, n, ranges, &r, &k);
    if (err) return err;
    err = core_group_incl(group, k, r, newgroup);
    free(r);
    return err;
}

int core_group_range_excl(cr_group_t *group, int n, int ranges[][3], MPI_Group *newgroup)
{
    int *r, k, err = expand_ranges(group, n, ranges, &r, &k);
    if (err) return err;
    err = core_group_excl(group, k, r, newgroup);
    free(r);
    return err;
}
