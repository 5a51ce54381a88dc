/* SPDX-License-Identifier: MIT */
/* MPI_Comm_split_type: communicators of processes that share a piece of
 * hardware, on intra- and intercommunicators (an intercommunicator splits
 * each group, as MPI_Comm_split does).
 *
 * MPI_COMM_TYPE_SHARED: the processes of a node.
 * MPI_COMM_TYPE_HW_GUIDED: info key mpi_hw_resource_type names the kind of
 *   resource: "mpi_shared_memory" (the node) or, with hwloc, one of hwloc's
 *   levels: machine, package (socket), numanode, l3cache, l2cache, l1cache
 *   (and their u/d/i forms), core, pu (hwthread).  A process belongs to the
 *   object of that kind that contains all the processors it may run on (its
 *   binding); an unbound process is contained only in the machine, and gets
 *   MPI_COMM_NULL for finer kinds, as does a kind Courier does not know or a
 *   missing key (MPI 4.0, 7.4.2).
 * MPI_COMM_TYPE_HW_UNGUIDED: the coarsest of those levels (the node first,
 *   then package, numanode, l3cache, l2cache, core, pu) at which the members
 *   of comm do not all share one object; the kind chosen is stored under
 *   mpi_hw_resource_type in the info argument and in the new communicator's
 *   hints.  MPI_COMM_NULL where no level divides comm.
 * The colors are (node, hwloc logical index) and the key orders ranks as in
 * MPI_Comm_split. */
#include "core/core.h"
#include "core/comm_priv.h"
#include "core/api_comm.h"
#include "util/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef COURIER_HAVE_HWLOC
#include <hwloc.h>
#endif

/* The color of this process for a node-level split: the smallest world rank
 * on its node, the same for both groups of an intercommunicator. */
static int node_color(void)
{
    for (int w = 0; cr_proc.local_of_world && w < cr_proc.world_size; w++)
        if (cr_proc.local_of_world[w] >= 0) return w;
    return cr_proc.world_rank;
}

/* Resource kinds: "machine" is the node (no hwloc needed). */
typedef struct {
    const char *name;
    int level;          /* index into the hwloc types below; -1: the node */
} hw_kind_t;

#ifdef COURIER_HAVE_HWLOC
static const hwloc_obj_type_t hw_types[] = {
    HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
    HWLOC_OBJ_L1CACHE, HWLOC_OBJ_CORE, HWLOC_OBJ_PU, HWLOC_OBJ_L1ICACHE, HWLOC_OBJ_L2ICACHE,
    HWLOC_OBJ_L3ICACHE
};
#endif
static const hw_kind_t hw_kinds[] = {
    { "mpi_shared_memory", -1 }, { "machine", -1 }, { "package", 0 }, { "socket", 0 },
    { "numanode", 1 }, { "l3cache", 2 }, { "l3ucache", 2 }, { "l3dcache", 2 },
    { "l2cache", 3 }, { "l2ucache", 3 }, { "l2dcache", 3 }, { "l1cache", 4 },
    { "l1ucache", 4 }, { "l1dcache", 4 }, { "core", 5 }, { "pu", 6 }, { "hwthread", 6 },
    { "l1icache", 7 }, { "l2icache", 8 }, { "l3icache", 9 },
};
/* HW_UNGUIDED's levels, coarse to fine (indices into hw_kinds). */
static const int unguided[] = { 1, 2, 4, 5, 8, 14, 15 };
enum { N_UNGUIDED = sizeof unguided / sizeof unguided[0] };

static const hw_kind_t *kind_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof hw_kinds / sizeof hw_kinds[0]; i++)
        if (strcasecmp(name, hw_kinds[i].name) == 0) return &hw_kinds[i];
    return NULL;
}

#ifdef COURIER_HAVE_HWLOC
/* The topology of this machine, loaded on first use. */
static hwloc_topology_t topo;
static int topo_state;          /* 0 not tried, 1 loaded, -1 unavailable */

static int topo_get(void)
{
    if (topo_state == 0) {
        topo_state = -1;
        if (hwloc_topology_init(&topo) == 0) {
            if (hwloc_topology_load(topo) == 0) topo_state = 1;
            else hwloc_topology_destroy(topo);
        }
    }
    return topo_state == 1;
}
#endif

/* The color of this process for resource kind k (MPI_UNDEFINED when it is not
 * within one object of that kind, or the kind is unknown here). */
static int kind_color(const hw_kind_t *k)
{
    if (!k) return MPI_UNDEFINED;
    int node = node_color();
    if (k->level < 0) return node;
#ifdef COURIER_HAVE_HWLOC
    if (!topo_get()) return MPI_UNDEFINED;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int color = MPI_UNDEFINED;
    if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(set)) {
        hwloc_obj_t o = hwloc_get_obj_covering_cpuset(topo, set);
        while (o && o->type != hw_types[k->level]) o = o->parent;
        /* a NUMA node is a memory child, not an ancestor, of the cpus */
        if (!o && hw_types[k->level] == HWLOC_OBJ_NUMANODE) {
            hwloc_obj_t n = NULL;
            int found = 0;
            while ((n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)))
                if (hwloc_bitmap_isincluded(set, n->cpuset)) {
                    o = n;
                    found++;
                }
            if (found != 1) o = NULL;
        }
        if (o && o->logical_index < 65536) color = node * 65536 + (int)o->logical_index;
    }
    hwloc_bitmap_free(set);
    return color;
#else
    return MPI_UNDEFINED;
#endif
}

/* How many objects of kind k the node has (1 for the node itself). */
static int kind_count(const hw_kind_t *k)
{
    if (k->level < 0) return 1;
#ifdef COURIER_HAVE_HWLOC
    if (topo_get()) {
        int n = hwloc_get_nbobjs_by_type(topo, hw_types[k->level]);
        return n > 0 ? n : 0;
    }
#endif
    return 0;
}

int core_get_hw_resource_info(MPI_Info *hw_info)
{
    cr_info_t *in;
    int err = cr_info_new(&in);
    if (err) return err;
    char list[256] = "mpi_shared_memory", key[64], val[16];
    for (int l = 0; !err && l < N_UNGUIDED; l++) {
        const hw_kind_t *k = &hw_kinds[unguided[l]];
        if (kind_color(k) == MPI_UNDEFINED) continue;
        strncat(list, ",", sizeof list - strlen(list) - 1);
        strncat(list, k->name, sizeof list - strlen(list) - 1);
        snprintf(key, sizeof key, "mpi_hw_res_%s_count", k->name);
        snprintf(val, sizeof val, "%d", kind_count(k));
        err = cr_info_put(in, key, val);
    }
    if (!err) err = cr_info_put(in, "mpi_hw_resource_type", list);
    if (!err) err = cr_info_to_user(in, hw_info);
    cr_info_destroy(in);
    return err;
}

/* HW_UNGUIDED: the kind (index into hw_kinds) whose split divides comm's
 * (local) group, or -1.  Every member computes its color at each level; one
 * allgather shows everybody the same table. */
static int unguided_kind(cr_comm_t *c, int *err)
{
    cr_comm_t *local = c->remote ? c->local_comm : c;
    int mine[N_UNGUIDED];
    for (int l = 0; l < N_UNGUIDED; l++) mine[l] = kind_color(&hw_kinds[unguided[l]]);
    int *all = malloc((size_t)local->size * N_UNGUIDED * sizeof(int));
    if (!all) {
        *err = cr_error(MPI_ERR_NO_MEM, "MPI_Comm_split_type: no memory");
        return -1;
    }
    *err = cr_comm_allgather_ints(local, mine, N_UNGUIDED, all, CR_TAG_CTX);
    int chosen = -1;
    for (int l = 0; !*err && l < N_UNGUIDED && chosen < 0; l++) {
        int first = all[l], defined = 0, differ = 0;
        for (int r = 0; r < local->size; r++) {
            int v = all[r * N_UNGUIDED + l];
            defined |= v != MPI_UNDEFINED;
            differ |= v != first;
        }
        if (defined && differ) chosen = unguided[l];
    }
    free(all);
    return chosen;
}

/* ---- the node layer of hierarchical collectives ------------------------------ */
/* One exchange of (node color, rank, next free context id) gives every rank
 * the nodes of all and one agreed context id for both new communicators (the
 * node communicators of different nodes share one: they are disjoint),
 * settled as every communicator's id is (with threads, rounds more). */
int cr_comm_node_split(cr_comm_t *c, int *node_of, int *nnodes, cr_comm_t **node,
                       cr_comm_t **leaders)
{
    *node = *leaders = NULL;
    int p = c->size, n = 0;
    int in[3] = { node_color(), c->rank, (int)cr_proc.next_ctx };
    int *all = malloc((size_t)p * 3 * sizeof(int)), *index = NULL;
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory for the node layer of a communicator");
    cr_ctx_agreeing++;
    int err = cr_comm_allgather_ints(c, in, 3, all, CR_TAG_CTX);
    cr_ctx_agreeing--;
    uint32_t ctx = 0;
    for (int r = 0; !err && r < p; r++)
        if ((uint32_t)all[3 * r + 2] > ctx) ctx = (uint32_t)all[3 * r + 2];
    /* both ids are taken as every communicator's are (comm.c): with threads,
     * another thread of this process may be making a communicator, or the
     * node layer of another one, from the same next free id at the same time
     * (docs/threads.md, "Making communicators from several threads") */
    if (!err) err = cr_ctx_settle_intra(c, CR_TAG_CTX, 2, &ctx);
    /* colors are world ranks, of the process's own world (another job's, for
     * processes that connected): size the color -> node table by the largest */
    int colors = 0;
    for (int r = 0; !err && r < p; r++)
        if (all[3 * r] >= colors) colors = all[3 * r] + 1;
    if (!err && !(index = malloc((size_t)colors * sizeof(int))))
        err = cr_error(MPI_ERR_NO_MEM, "no memory for the node layer of a communicator");
    for (int w = 0; !err && w < colors; w++) index[w] = -1;
    for (int r = 0; !err && r < p; r++) {
        int color = all[3 * r];
        if (index[color] < 0) index[color] = n++;
        node_of[r] = index[color];
    }
    free(index);
    if (err) {
        free(all);
        return err;
    }
    *nnodes = n;
    int leader = 1;
    cr_group_t *g = cr_group_split(c->group, all, 3, in[0]);
    /* the leaders: a node's first rank in c gets color 0, the others 1 */
    for (int r = 0, seen = 0; r < p; r++) {
        int first = node_of[r] == seen;
        if (first) seen++;
        if (r == c->rank) leader = first;
        all[3 * r] = !first;
    }
    cr_group_t *lg = leader ? cr_group_split(c->group, all, 3, 0) : NULL;
    free(all);
    if (g) *node = cr_comm_make_internal(g, ctx);
    else cr_group_release(lg), lg = NULL;
    if (lg) *leaders = cr_comm_make_internal(lg, ctx + CR_CTX_STRIDE);
    if (!*node || (leader && !*leaders)) {
        cr_comm_release(*node);
        cr_comm_release(*leaders);
        *node = *leaders = NULL;
        return cr_error(MPI_ERR_NO_MEM, "no memory for the node layer of a communicator");
    }
    snprintf((*node)->name, sizeof (*node)->name, "(node of 0x%08x)", (unsigned)c->handle);
    if (*leaders)
        snprintf((*leaders)->name, sizeof (*leaders)->name, "(leaders of 0x%08x)",
                 (unsigned)c->handle);
    return MPI_SUCCESS;
}

int core_comm_split_type(cr_comm_t *comm, int split_type, int key, cr_info_t *info,
                         MPI_Comm *newcomm)
{
    const hw_kind_t *kind = NULL;
    int color, err = MPI_SUCCESS;
    *newcomm = MPI_COMM_NULL;
    switch (split_type) {
    case MPI_UNDEFINED:
        color = MPI_UNDEFINED;
        break;
    case MPI_COMM_TYPE_SHARED:
        color = node_color();
        break;
    case MPI_COMM_TYPE_HW_GUIDED:
        kind = kind_find(cr_info_get(info, "mpi_hw_resource_type"));
        color = kind_color(kind);
        break;
    case MPI_COMM_TYPE_HW_UNGUIDED: {
        int k = unguided_kind(comm, &err);
        if (err) return err;
        kind = k >= 0 ? &hw_kinds[k] : NULL;
        color = kind_color(kind);
        break;
    }
    default:
        return cr_error(MPI_ERR_ARG, "split_type=%d: unknown split type", split_type);
    }
    cr_comm_t *n;
    if ((err = cr_comm_split(comm, color, key, &n)) || !n) return err;
    err = cr_comm_set_hints(n, info);
    if (!err && kind && !n->info) err = cr_info_new(&n->info);
    if (!err && kind) err = cr_info_put(n->info, "mpi_hw_resource_type", kind->name);
    if (!err && kind && split_type == MPI_COMM_TYPE_HW_UNGUIDED && info)
        err = cr_info_put(info, "mpi_hw_resource_type", kind->name);
    if (err) {
        cr_comm_free_handle(n);
        return err;
    }
    ut_log(UT_LOG_EVENTS, "comm", "MPI_Comm_split_type(%d%s%s): 0x%08x of %d processes", split_type,
           kind ? ", " : "", kind ? kind->name : "", (unsigned)n->handle, n->size);
    *newcomm = n->handle;
    return MPI_SUCCESS;
}
