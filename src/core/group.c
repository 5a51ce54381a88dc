/* SPDX-License-Identifier: MIT */
/* Groups: ordered sets of world ranks. */
#include "core/core.h"
#include "core/comm_priv.h"

#include <stdlib.h>
#include <string.h>

static cr_objtab_t group_tab;
static cr_group_t group_empty = { .handle = MPI_GROUP_EMPTY, .refcount = 1, .size = 0,
                                  .rank = MPI_UNDEFINED };

cr_group_t *cr_group_ptr(MPI_Group h)
{
    if (h == MPI_GROUP_EMPTY) return &group_empty;
    if (CR_H_STORAGE(h) == CR_ST_USER && CR_H_KIND(h) == CR_K_GROUP)
        return cr_objtab_get(&group_tab, CR_H_INDEX(h));
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

void cr_group_release(cr_group_t *g)
{
    if (!g || g == &group_empty || --g->refcount > 0) return;
    if (g->handle != MPI_GROUP_NULL) cr_objtab_remove(&group_tab, CR_H_INDEX(g->handle));
    free(g->world);
    free(g);
}

/* Give g a handle (a reference held by the user). */
int cr_group_to_handle(cr_group_t *g, MPI_Group *out)
{
    if (g->size == 0) {
        cr_group_release(g);
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    if (g->handle == MPI_GROUP_NULL) {
        int idx = cr_objtab_add(&group_tab, g);
        if (idx < 0) return cr_error(MPI_ERR_NO_MEM, "no memory for a group handle");
        g->handle = CR_H_MAKE(CR_ST_USER, CR_K_GROUP, idx);
    }
    *out = g->handle;
    return MPI_SUCCESS;
}

void cr_group_set_rank(cr_group_t *g)
{
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == cr_proc.world_rank) g->rank = i;
}

int core_comm_group(MPI_Comm comm, MPI_Group *group)
{
    cr_group_t *g = cr_comm_ptr(comm)->group;
    g->refcount++;
    return cr_group_to_handle(g, group);
}

int core_group_size(MPI_Group group, int *size)
{
    *size = cr_group_ptr(group)->size;
    return MPI_SUCCESS;
}

int core_group_rank(MPI_Group group, int *rank)
{
    *rank = cr_group_ptr(group)->rank;
    return MPI_SUCCESS;
}

int core_group_free(MPI_Group *group)
{
    cr_group_release(cr_group_ptr(*group));
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int core_group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    *result = cr_group_relation(cr_group_ptr(group1), cr_group_ptr(group2));
    return MPI_SUCCESS;
}

int core_group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    cr_group_t *a = cr_group_ptr(group1), *b = cr_group_ptr(group2);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (ranks1[i] < 0 || ranks1[i] >= a->size)
            return cr_error(MPI_ERR_RANK, "ranks1[%d]=%d: invalid rank (group size is %d)", i,
                            ranks1[i], a->size);
        ranks2[i] = MPI_UNDEFINED;
        for (int j = 0; j < b->size; j++)
            if (b->world[j] == a->world[ranks1[i]]) ranks2[i] = j;
    }
    return MPI_SUCCESS;
}

int core_group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    cr_group_t *g = cr_group_ptr(group), *ng;
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return cr_error(MPI_ERR_RANK, "ranks[%d]=%d: invalid rank (group size is %d)", i,
                            ranks[i], g->size);
        for (int j = 0; j < i; j++)
            if (ranks[j] == ranks[i])
                return cr_error(MPI_ERR_RANK, "ranks[%d]=%d: rank appears twice", i, ranks[i]);
    }
    if (!(ng = cr_group_new(n))) return cr_error(MPI_ERR_NO_MEM, "no memory for a group");
    for (int i = 0; i < n; i++) ng->world[i] = g->world[ranks[i]];
    cr_group_set_rank(ng);
    return cr_group_to_handle(ng, newgroup);
}

int core_group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    cr_group_t *g = cr_group_ptr(group), *ng;
    char *drop = calloc((size_t)g->size + 1, 1);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || drop[ranks[i]]) {
            free(drop);
            return cr_error(MPI_ERR_RANK, "ranks[%d]=%d: invalid or repeated rank (group size "
                            "is %d)", i, ranks[i], g->size);
        }
        drop[ranks[i]] = 1;
    }
    if (!(ng = cr_group_new(g->size - n))) {
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

static int in_group(const cr_group_t *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w) return 1;
    return 0;
}

/* union (op 0), intersection (1), difference (2), in the standard's order. */
static int group_setop(MPI_Group group1, MPI_Group group2, int op, MPI_Group *newgroup)
{
    cr_group_t *a = cr_group_ptr(group1), *b = cr_group_ptr(group2);
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

int core_group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop(group1, group2, 0, newgroup);
}

int core_group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop(group1, group2, 1, newgroup);
}

int core_group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return group_setop(group1, group2, 2, newgroup);
}

/* Expand (first, last, stride) triplets into a rank list. */
static int expand_ranges(const cr_group_t *g, int n, int ranges[][3], int **out, int *count)
{
    int total = 0;
    for (int i = 0; i < n; i++) {
        int f = ranges[i][0], l = ranges[i][1], s = ranges[i][2];
        if (s == 0 || f < 0 || f >= g->size || l < 0 || l >= g->size || (l - f) / s < 0)
            return cr_error(MPI_ERR_ARG, "ranges[%d]={%d,%d,%d}: invalid range for a group of "
                            "size %d", i, f, l, s, g->size);
        total += (l - f) / s + 1;
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

int core_group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    int *r, k, err = expand_ranges(cr_group_ptr(group), n, ranges, &r, &k);
    if (err) return err;
    err = core_group_incl(group, k, r, newgroup);
    free(r);
    return err;
}

int core_group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    int *r, k, err = expand_ranges(cr_group_ptr(group), n, ranges, &r, &k);
    if (err) return err;
    err = core_group_excl(group, k, r, newgroup);
    free(r);
    return err;
}
