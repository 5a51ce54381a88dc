/* SPDX-License-Identifier: MIT */
/* Process topologies: Cartesian grids, graphs and distributed graphs.
 *
 * A topology is a cr_topo_t hung on cr_comm_t.topo (see topo.h).  Courier does
 * not reorder ranks (reorder is allowed to be ignored): a topology
 * communicator is a split of comm_old with the kept ranks in their old order,
 * so the map functions answer "rank r keeps rank r when r fits".  Each
 * topology stores this process's neighbor lists in the order the standard
 * gives them, ready for the neighbor collectives. */
#include "core/core.h"
#include "core/comm_priv.h"
#include "core/topo.h"
#include "core/api_comm.h"

#include <stdlib.h>
#include <string.h>

/* ---- objects ------------------------------------------------------------------ */
static int *int_dup(const int *a, int n)
{
    if (!a) return NULL;
    int *b = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (b && n > 0) memcpy(b, a, (size_t)n * sizeof(int));
    return b;
}

void cr_topo_free(void *topo)
{
    cr_topo_t *t = topo;
    if (!t) return;
    free(t->dims);
    free(t->periods);
    free(t->coords);
    free(t->index);
    free(t->edges);
    free(t->inw);
    free(t->outw);
    free(t->in);
    free(t->out);
    free(t);
}

void *cr_topo_dup(const void *topo)
{
    const cr_topo_t *t = topo;
    if (!t) return NULL;
    cr_topo_t *n = malloc(sizeof *n);
    if (!n) return NULL;
    *n = *t;
    n->dims = int_dup(t->dims, t->ndims);
    n->periods = int_dup(t->periods, t->ndims);
    n->coords = int_dup(t->coords, t->ndims);
    n->index = int_dup(t->index, t->nnodes);
    n->edges = int_dup(t->edges, t->nedges);
    n->inw = int_dup(t->inw, t->nin);
    n->outw = int_dup(t->outw, t->nout);
    n->in = int_dup(t->in, t->nin);
    n->out = int_dup(t->out, t->nout);
    if ((t->dims && !n->dims) || (t->periods && !n->periods) || (t->coords && !n->coords) ||
        (t->index && !n->index) || (t->edges && !n->edges) || (t->inw && !n->inw) ||
        (t->outw && !n->outw) || (t->in && !n->in) || (t->out && !n->out)) {
        cr_topo_free(n);
        return NULL;
    }
    return n;
}

static cr_topo_t *topo_new(int kind)
{
    cr_topo_t *t = calloc(1, sizeof *t);
    if (t) t->kind = kind;
    return t;
}

/* Hang t on the new communicator c (replacing what was there) and give it
 * to the user; on NULL t the communicator is freed and an out-of-memory error
 * returned.  c NULL (this process gets MPI_COMM_NULL): nothing to hang. */
static int topo_attach(cr_comm_t *c, cr_topo_t *t, const char *fname, MPI_Comm *out)
{
    *out = MPI_COMM_NULL;
    if (!c) {
        cr_topo_free(t);
        return MPI_SUCCESS;
    }
    if (!t) {
        cr_comm_free_handle(c);
        return cr_error(MPI_ERR_NO_MEM, "%s: no memory for the topology", fname);
    }
    cr_topo_free(c->topo);
    c->topo = t;
    *out = c->handle;
    return MPI_SUCCESS;
}

/* The topology of c if it is of the kind wanted (0: any kind), else an
 * MPI_ERR_TOPOLOGY error in *err. */
static cr_topo_t *topo_get(const cr_comm_t *c, int kind, const char *fname, int *err)
{
    cr_topo_t *t = c->topo;
    if (t && (!kind || t->kind == kind)) return t;
    static const char *const names[] = { "topology", "graph topology", "Cartesian topology",
                                         "distributed graph topology" };
    *err = cr_error(MPI_ERR_TOPOLOGY, "%s: comm has no %s", fname,
                    names[kind >= 0 && kind <= 3 ? kind : 0]);
    return NULL;
}

int core_topo_test(cr_comm_t *comm, int *status)
{
    cr_topo_t *t = comm->topo;
    *status = t ? t->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- Cartesian ----------------------------------------------------------------- */
/* Row-major rank of coords (already in range). */
static int cart_rank_of(const cr_topo_t *t, const int *coords)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++) r = r * t->dims[i] + coords[i];
    return r;
}

static void cart_coords_of(const cr_topo_t *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* The neighbor rank at displacement disp along dim, or MPI_PROC_NULL off a
 * non-periodic edge. */
static int cart_neighbor(const cr_topo_t *t, int dim, int disp)
{
    int d = t->dims[dim], c = t->coords[dim] + disp;
    if (t->periods[dim]) {
        c %= d;
        if (c < 0) c += d;
    } else if (c < 0 || c >= d) {
        return MPI_PROC_NULL;
    }
    /* my rank with coordinate dim replaced (no writes: queries may run
     * concurrently under MPI_THREAD_MULTIPLE) */
    int stride = 1;
    for (int i = dim + 1; i < t->ndims; i++) stride *= t->dims[i];
    return cart_rank_of(t, t->coords) + (c - t->coords[dim]) * stride;
}

/* A Cartesian topology for the process of rank `rank` (NULL: out of memory). */
static cr_topo_t *cart_topo(int ndims, const int *dims, const int *periods, int rank)
{
    cr_topo_t *t = topo_new(MPI_CART);
    if (!t) return NULL;
    int n = ndims > 0 ? ndims : 1;
    t->ndims = ndims;
    t->dims = malloc((size_t)n * sizeof(int));
    t->periods = malloc((size_t)n * sizeof(int));
    t->coords = malloc((size_t)n * sizeof(int));
    t->nin = t->nout = 2 * ndims;
    t->in = malloc((size_t)(2 * n) * sizeof(int));
    t->out = malloc((size_t)(2 * n) * sizeof(int));
    if (!t->dims || !t->periods || !t->coords || !t->in || !t->out) {
        cr_topo_free(t);
        return NULL;
    }
    for (int i = 0; i < ndims; i++) {
        t->dims[i] = dims[i];
        t->periods[i] = periods[i] != 0;
    }
    cart_coords_of(t, rank, t->coords);
    for (int i = 0; i < ndims; i++) {
        t->in[2 * i] = t->out[2 * i] = cart_neighbor(t, i, -1);
        t->in[2 * i + 1] = t->out[2 * i + 1] = cart_neighbor(t, i, +1);
    }
    return t;
}

/* Product of dims (checked positive), or -1 after setting *err. */
static long dims_product(int ndims, const int dims[], const char *fname, int *err)
{
    long p = 1;
    if (ndims < 0) {
        *err = cr_error(MPI_ERR_DIMS, "%s: ndims=%d: must not be negative", fname, ndims);
        return -1;
    }
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0) {
            *err = cr_error(MPI_ERR_DIMS, "%s: dims[%d]=%d: must be positive", fname, i, dims[i]);
            return -1;
        }
        p *= dims[i];
        if (p > INT32_MAX) {
            *err = cr_error(MPI_ERR_DIMS, "%s: the grid has more than 2^31 processes", fname);
            return -1;
        }
    }
    return p;
}

int core_cart_create(cr_comm_t *comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart)
{
    cr_comm_t *c = comm_old, *n;
    int err = MPI_SUCCESS;
    (void)reorder;
    *comm_cart = MPI_COMM_NULL;
    if (c->remote) return cr_error(MPI_ERR_COMM, "MPI_Cart_create: comm_old is an intercommunicator");
    long p = dims_product(ndims, dims, "MPI_Cart_create", &err);
    if (p < 0) return err;
    if (p > c->size)
        return cr_error(MPI_ERR_DIMS, "MPI_Cart_create: the grid needs %ld processes, comm_old "
                        "has %d", p, c->size);
    err = cr_comm_split(c, c->rank < p ? 0 : MPI_UNDEFINED, c->rank, &n);
    if (err || !n) return err;
    return topo_attach(n, cart_topo(ndims, dims, periods, c->rank), "MPI_Cart_create", comm_cart);
}

int core_cart_map(cr_comm_t *comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    cr_comm_t *c = comm;
    int err = MPI_SUCCESS;
    (void)periods;
    long p = dims_product(ndims, dims, "MPI_Cart_map", &err);
    if (p < 0) return err;
    if (p > c->size)
        return cr_error(MPI_ERR_DIMS, "MPI_Cart_map: the grid needs %ld processes, comm has %d",
                        p, c->size);
    *newrank = c->rank < p ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int core_cartdim_get(cr_comm_t *comm, int *ndims)
{
    int err;
    cr_topo_t *t = topo_get(comm, MPI_CART, "MPI_Cartdim_get", &err);
    if (!t) return err;
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

int core_cart_get(cr_comm_t *comm, int maxdims, int dims[], int periods[], int coords[])
{
    int err;
    cr_topo_t *t = topo_get(comm, MPI_CART, "MPI_Cart_get", &err);
    if (!t) return err;
    if (maxdims < t->ndims)
        return cr_error(MPI_ERR_ARG, "MPI_Cart_get: maxdims=%d: the topology has %d dimensions",
                        maxdims, t->ndims);
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
        coords[i] = t->coords[i];
    }
    return MPI_SUCCESS;
}

int core_cart_rank(cr_comm_t *comm, const int coords[], int *rank)
{
    int err;
    cr_topo_t *t = topo_get(comm, MPI_CART, "MPI_Cart_rank", &err);
    if (!t) return err;
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];
        if (t->periods[i]) {
            c %= d;
            if (c < 0) c += d;
        } else if (c < 0 || c >= d) {
            return cr_error(MPI_ERR_ARG, "MPI_Cart_rank: coords[%d]=%d: outside 0..%d of a "
                            "non-periodic dimension", i, coords[i], d - 1);
        }
        r = r * d + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int core_cart_coords(cr_comm_t *comm, int rank, int maxdims, int coords[])
{
    int err;
    cr_topo_t *t = topo_get(comm, MPI_CART, "MPI_Cart_coords", &err);
    if (!t) return err;
    int size = comm->size;
    if (rank < 0 || rank >= size)
        return cr_error(MPI_ERR_RANK, "MPI_Cart_coords: rank=%d: invalid rank (communicator "
                        "size is %d)", rank, size);
    if (maxdims < t->ndims)
        return cr_error(MPI_ERR_ARG, "MPI_Cart_coords: maxdims=%d: the topology has %d "
                        "dimensions", maxdims, t->ndims);
    cart_coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

int core_cart_shift(cr_comm_t *comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    int err;
    cr_topo_t *t = topo_get(comm, MPI_CART, "MPI_Cart_shift", &err);
    if (!t) return err;
    if (direction < 0 || direction >= t->ndims)
        return cr_error(MPI_ERR_ARG, "MPI_Cart_shift: direction=%d: the topology has %d "
                        "dimensions", direction, t->ndims);
    *rank_dest = cart_neighbor(t, direction, disp);
    *rank_source = cart_neighbor(t, direction, -disp);
    return MPI_SUCCESS;
}

/* Keep the dimensions marked in remain_dims: the processes that agree on the
 * coordinates of the dropped dimensions form one subgrid, in rank order (which
 * is the row-major order of the kept coordinates).  With no dimension kept
 * the result is a zero-dimensional grid, which holds one process (MPI 4.1
 * section 8.5.8): rank 0 of comm gets it, the others MPI_COMM_NULL (as for
 * MPI_Cart_create with ndims 0, and as MPICH does). */
int core_cart_sub(cr_comm_t *comm, const int remain_dims[], MPI_Comm *newcomm)
{
    int err;
    cr_comm_t *n;
    cr_topo_t *t = topo_get(comm, MPI_CART, "MPI_Cart_sub", &err);
    *newcomm = MPI_COMM_NULL;
    if (!t) return err;
    int color = 0, kept = 0;
    int *dims = malloc((size_t)(t->ndims + 1) * sizeof(int));
    int *periods = malloc((size_t)(t->ndims + 1) * sizeof(int));
    if (!dims || !periods) {
        free(dims);
        free(periods);
        return cr_error(MPI_ERR_NO_MEM, "MPI_Cart_sub: no memory");
    }
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            dims[kept] = t->dims[i];
            periods[kept++] = t->periods[i];
        } else {
            color = color * t->dims[i] + t->coords[i];
        }
    }
    if (kept == 0) color = comm->rank == 0 ? 0 : MPI_UNDEFINED;
    err = cr_comm_split(comm, color, comm->rank, &n);
    if (!err && n)
        err = topo_attach(n, cart_topo(kept, dims, periods, n->rank), "MPI_Cart_sub", newcomm);
    free(dims);
    free(periods);
    return err;
}

/* Balanced factorisation for MPI_Dims_create: d[0..k) non-increasing with
 * product n and the smallest spread (largest - smallest) that exists; among
 * equal spreads the one with the largest last entry, then the largest entry
 * before it, and so on (MPICH's choice: its topo/dims5 lists 75,000 answers
 * for n up to a million).  The search tries only divisors of n, smallest
 * first, from the smallest that leaves room for the rest (d^r >= n for r
 * entries still to choose), and stops a level as soon as the spread it must
 * reach (the largest entry minus the r-1'th root of what is left, which no
 * later entry can exceed) is worse than the best found. */
enum { DIMS_MAX_DIVISORS = 1600 };   /* the most any positive int has (2095133040) */

typedef struct {
    int div[DIMS_MAX_DIVISORS];      /* the divisors of the first n, ascending */
    int ndiv, k;
    int *cur, *best, best_spread;
} dims_search_t;

static void dims_divisors(dims_search_t *s, int n)
{
    int nlow = 0, high[DIMS_MAX_DIVISORS / 2], nhigh = 0;
    for (int d = 1; (long)d * d <= n; d++) {
        if (n % d) continue;
        s->div[nlow++] = d;
        if (d != n / d) high[nhigh++] = n / d;
    }
    while (nhigh > 0) s->div[nlow++] = high[--nhigh];
    s->ndiv = nlow;
}

/* x^r <= n (x, n >= 1). */
static int dims_pow_le(long x, int r, long n)
{
    long p = 1;
    for (int i = 0; i < r; i++)
        if ((p *= x) > n) return 0;
    return 1;
}

/* The largest x with x^r <= n (n, r >= 1). */
static int dims_root(int n, int r)
{
    int lo = 1, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (dims_pow_le(mid, r, n)) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* Among equal spreads: a beats b when its last differing entry is larger. */
static int dims_better_tie(const int *a, const int *b, int k)
{
    for (int i = k - 1; i >= 0; i--)
        if (a[i] != b[i]) return a[i] > b[i];
    return 0;
}

static void dims_search(dims_search_t *s, int n, int depth, int maxd)
{
    int *cur = s->cur, r = s->k - depth;       /* r entries still to choose */
    if (r == 1) {
        if (n > maxd) return;
        cur[depth] = n;
        int spread = cur[0] - n;
        if (s->best_spread < 0 || spread < s->best_spread ||
            (spread == s->best_spread && dims_better_tie(cur, s->best, s->k))) {
            s->best_spread = spread;
            memcpy(s->best, cur, (size_t)s->k * sizeof(int));
        }
        return;
    }
    for (int i = 0; i < s->ndiv; i++) {
        int d = s->div[i];
        if (d > maxd || d > n) break;
        if (n % d || dims_pow_le(d, r, n - 1)) continue;   /* no room: d^r < n */
        int largest = depth ? cur[0] : d, smallest_max = dims_root(n / d, r - 1);
        if (s->best_spread >= 0 && largest - smallest_max > s->best_spread) break;
        cur[depth] = d;
        dims_search(s, n / d, depth + 1, d);
    }
}

int core_dims_create(int nnodes, int ndims, int dims[])
{
    if (nnodes <= 0)
        return cr_error(MPI_ERR_ARG, "MPI_Dims_create: nnodes=%d: must be positive", nnodes);
    if (ndims < 0)
        return cr_error(MPI_ERR_DIMS, "MPI_Dims_create: ndims=%d: must not be negative", ndims);
    if (ndims == 0) return MPI_SUCCESS;   /* nothing to fill (MPICH agrees) */
    long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return cr_error(MPI_ERR_DIMS, "MPI_Dims_create: dims[%d]=%d: must not be negative",
                            i, dims[i]);
        if (dims[i] == 0) nfree++;
        else fixed *= dims[i];
        if (fixed > nnodes) break;
    }
    if (nnodes % fixed != 0 || (nfree == 0 && fixed != nnodes))
        return cr_error(MPI_ERR_DIMS, "MPI_Dims_create: nnodes=%d is not a multiple of the "
                        "product %ld of the given dims", nnodes, fixed);
    if (nfree == 0) return MPI_SUCCESS;
    dims_search_t *s = malloc(sizeof *s);
    int *cur = malloc((size_t)nfree * sizeof(int)), *best = malloc((size_t)nfree * sizeof(int));
    if (!s || !cur || !best) {
        free(s);
        free(cur);
        free(best);
        return cr_error(MPI_ERR_NO_MEM, "MPI_Dims_create: no memory");
    }
    int n = (int)(nnodes / fixed);
    dims_divisors(s, n);
    s->k = nfree;
    s->cur = cur;
    s->best = best;
    s->best_spread = -1;
    dims_search(s, n, 0, n);
    for (int i = 0, j = 0; i < ndims; i++)
        if (dims[i] == 0) dims[i] = best[j++];
    free(s);
    free(cur);
    free(best);
    return MPI_SUCCESS;
}

/* ---- graphs ---------------------------------------------------------------------- */
/* Neighbors of node r in (index, edges): edges[index[r-1] .. index[r]). */
static void graph_span(const cr_topo_t *t, int r, int *first, int *count)
{
    *first = r > 0 ? t->index[r - 1] : 0;
    *count = t->index[r] - *first;
}

int core_graph_create(cr_comm_t *comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    cr_comm_t *c = comm_old, *nc;
    (void)reorder;
    *comm_graph = MPI_COMM_NULL;
    if (c->remote)
        return cr_error(MPI_ERR_COMM, "MPI_Graph_create: comm_old is an intercommunicator");
    if (nnodes < 0 || nnodes > c->size)
        return cr_error(MPI_ERR_ARG, "MPI_Graph_create: nnodes=%d: must be 0..%d (the size of "
                        "comm_old)", nnodes, c->size);
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return cr_error(MPI_ERR_ARG, "MPI_Graph_create: index[%d]=%d: index must not "
                            "decrease", i, index[i]);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return cr_error(MPI_ERR_ARG, "MPI_Graph_create: edges[%d]=%d: not a node of the "
                            "graph (0..%d)", e, edges[e], nnodes - 1);
    int err = cr_comm_split(c, c->rank < nnodes ? 0 : MPI_UNDEFINED, c->rank, &nc);
    if (err || !nc) return err;
    cr_topo_t *t = topo_new(MPI_GRAPH);
    if (t) {
        t->nnodes = nnodes;
        t->nedges = nedges;
        t->index = int_dup(index, nnodes);
        t->edges = int_dup(edges, nedges);
        int first, n;
        if (t->index) {
            graph_span(t, c->rank, &first, &n);
            t->nin = t->nout = n;
            t->in = int_dup(edges + first, n);
            t->out = int_dup(edges + first, n);
        }
        if (!t->index || !t->edges || !t->in || !t->out) {
            cr_topo_free(t);
            t = NULL;
        }
    }
    return topo_attach(nc, t, "MPI_Graph_create", comm_graph);
}

int core_graph_map(cr_comm_t *comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    cr_comm_t *c = comm;
    (void)index;
    (void)edges;
    if (nnodes < 0 || nnodes > c->size)
        return cr_error(MPI_ERR_ARG, "MPI_Graph_map: nnodes=%d: must be 0..%d", nnodes, c->size);
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int core_graphdims_get(cr_comm_t *comm, int *nnodes, int *nedges)
{
    int err;
    cr_topo_t *t = topo_get(comm, MPI_GRAPH, "MPI_Graphdims_get", &err);
    if (!t) return err;
    *nnodes = t->nnodes;
    *nedges = t->nedges;
    return MPI_SUCCESS;
}

int core_graph_get(cr_comm_t *comm, int maxindex, int maxedges, int index[], int edges[])
{
    int err;
    cr_topo_t *t = topo_get(comm, MPI_GRAPH, "MPI_Graph_get", &err);
    if (!t) return err;
    for (int i = 0; i < t->nnodes && i < maxindex; i++) index[i] = t->index[i];
    for (int e = 0; e < t->nedges && e < maxedges; e++) edges[e] = t->edges[e];
    return MPI_SUCCESS;
}

int core_graph_neighbors_count(cr_comm_t *comm, int rank, int *nneighbors)
{
    int err, first;
    cr_topo_t *t = topo_get(comm, MPI_GRAPH, "MPI_Graph_neighbors_count", &err);
    if (!t) return err;
    if (rank < 0 || rank >= t->nnodes)
        return cr_error(MPI_ERR_RANK, "MPI_Graph_neighbors_count: rank=%d: not a node of the "
                        "graph (0..%d)", rank, t->nnodes - 1);
    graph_span(t, rank, &first, nneighbors);
    return MPI_SUCCESS;
}

int core_graph_neighbors(cr_comm_t *comm, int rank, int maxneighbors, int neighbors[])
{
    int err, first, n;
    cr_topo_t *t = topo_get(comm, MPI_GRAPH, "MPI_Graph_neighbors", &err);
    if (!t) return err;
    if (rank < 0 || rank >= t->nnodes)
        return cr_error(MPI_ERR_RANK, "MPI_Graph_neighbors: rank=%d: not a node of the graph "
                        "(0..%d)", rank, t->nnodes - 1);
    graph_span(t, rank, &first, &n);
    for (int i = 0; i < n && i < maxneighbors; i++) neighbors[i] = t->edges[first + i];
    return MPI_SUCCESS;
}

/* ---- distributed graphs ----------------------------------------------------------- */
static int is_unweighted(const int *w)
{
    return w == MPI_UNWEIGHTED;
}

/* A distributed-graph topology from this process's own adjacency lists. */
static cr_topo_t *dist_topo(int indegree, const int *sources, const int *sw, int outdegree,
                            const int *dests, const int *dw, int weighted)
{
    cr_topo_t *t = topo_new(MPI_DIST_GRAPH);
    if (!t) return NULL;
    t->nin = indegree;
    t->nout = outdegree;
    t->in = int_dup(sources ? sources : (const int[]){ 0 }, indegree);
    t->out = int_dup(dests ? dests : (const int[]){ 0 }, outdegree);
    t->weighted = weighted;
    if (weighted) {
        t->inw = indegree ? int_dup(sw, indegree) : calloc(1, sizeof(int));
        t->outw = outdegree ? int_dup(dw, outdegree) : calloc(1, sizeof(int));
    }
    if (!t->in || !t->out || (weighted && (!t->inw || !t->outw))) {
        cr_topo_free(t);
        return NULL;
    }
    return t;
}

static int check_ranks(const int *r, int n, int size, const char *fname, const char *arg)
{
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= size)
            return cr_error(MPI_ERR_RANK, "%s: %s[%d]=%d: invalid rank (communicator size is %d)",
                            fname, arg, i, r[i], size);
    return MPI_SUCCESS;
}

int core_dist_graph_create_adjacent(cr_comm_t *comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    cr_info_t *info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fname[] = "MPI_Dist_graph_create_adjacent";
    cr_comm_t *c = comm_old, *nc;
    (void)info;
    (void)reorder;
    *comm_dist_graph = MPI_COMM_NULL;
    if (c->remote) return cr_error(MPI_ERR_COMM, "%s: comm_old is an intercommunicator", fname);
    if (indegree < 0 || outdegree < 0)
        return cr_error(MPI_ERR_ARG, "%s: indegree=%d, outdegree=%d: must not be negative", fname,
                        indegree, outdegree);
    int err = check_ranks(sources, indegree, c->size, fname, "sources");
    if (!err) err = check_ranks(destinations, outdegree, c->size, fname, "destinations");
    if (err) return err;
    int weighted = !is_unweighted(sourceweights) && !is_unweighted(destweights);
    err = cr_comm_split(c, 0, c->rank, &nc);
    if (err) return err;
    return topo_attach(nc, dist_topo(indegree, sources, sourceweights, outdegree, destinations,
                                     destweights, weighted), fname, comm_dist_graph);
}

/* Every process names some edges (source, destination, weight); each process
 * needs the edges that leave it and those that arrive at it.  All edges go to
 * every process (through rank 0, like the other creation collectives): simple,
 * and graph creation is rare.  A process's edges are then ordered by the rank
 * that named them and their position there, which is the same order on both
 * ends of an edge, as the neighbor collectives need. */
int core_dist_graph_create(cr_comm_t *comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], cr_info_t *info,
                           int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fname[] = "MPI_Dist_graph_create";
    cr_comm_t *c = comm_old, *nc;
    (void)info;
    (void)reorder;
    *comm_dist_graph = MPI_COMM_NULL;
    if (c->remote) return cr_error(MPI_ERR_COMM, "%s: comm_old is an intercommunicator", fname);
    int err = check_ranks(sources, n, c->size, fname, "sources"), nedges = 0;
    for (int i = 0; !err && i < n; i++) {
        if (degrees[i] < 0)
            err = cr_error(MPI_ERR_ARG, "%s: degrees[%d]=%d: must not be negative", fname, i,
                           degrees[i]);
        nedges += degrees[i];
    }
    if (!err) err = check_ranks(destinations, nedges, c->size, fname, "destinations");
    if (err) return err;
    int weighted = !is_unweighted(weights);
    err = cr_comm_split(c, 0, c->rank, &nc);
    if (err) return err;

    /* counts and weightedness of everybody, then all edges as (src, dst, w) */
    int mine[2] = { nedges, weighted }, *counts = malloc((size_t)nc->size * 2 * sizeof(int));
    int *edges = NULL, *all = NULL, total = 0;
    if (!counts) err = cr_error(MPI_ERR_NO_MEM, "%s: no memory", fname);
    if (!err) err = cr_comm_allgather_ints(nc, mine, 2, counts, CR_TAG_TOPO);
    if (!err) {
        for (int r = 0; r < nc->size; r++) {
            total += counts[2 * r];
            weighted |= counts[2 * r + 1];
        }
        edges = malloc((size_t)(nedges ? nedges : 1) * 3 * sizeof(int));
        all = malloc((size_t)(total ? total : 1) * 3 * sizeof(int));
        if (!edges || !all) err = cr_error(MPI_ERR_NO_MEM, "%s: no memory", fname);
    }
    if (!err) {
        for (int i = 0, e = 0; i < n; i++)
            for (int k = 0; k < degrees[i]; k++, e++) {
                edges[3 * e] = sources[i];
                edges[3 * e + 1] = destinations[e];
                edges[3 * e + 2] = is_unweighted(weights) ? 1 : weights[e];
            }
        /* allgatherv through rank 0 */
        cr_datatype_t *dt = cr_datatype_ptr(MPI_INT);
        if (nc->rank == 0) {
            memcpy(all, edges, (size_t)nedges * 3 * sizeof(int));
            for (int r = 1, off = nedges; r < nc->size && !err; off += counts[2 * r], r++)
                err = cr_recv(all + 3 * off, 3 * counts[2 * r], dt, r, CR_TAG_TOPO, nc,
                              CR_CTX_COLL, MPI_STATUS_IGNORE);
            for (int r = 1; r < nc->size && !err; r++)
                err = cr_send(all, 3 * total, dt, r, CR_TAG_TOPO, nc, CR_CTX_COLL);
        } else {
            err = cr_send(edges, 3 * nedges, dt, 0, CR_TAG_TOPO, nc, CR_CTX_COLL);
            if (!err)
                err = cr_recv(all, 3 * total, dt, 0, CR_TAG_TOPO, nc, CR_CTX_COLL,
                              MPI_STATUS_IGNORE);
        }
    }
    cr_topo_t *t = NULL;
    if (!err) {
        int nin = 0, nout = 0;
        for (int e = 0; e < total; e++) {
            nin += all[3 * e + 1] == nc->rank;
            nout += all[3 * e] == nc->rank;
        }
        int *in = malloc((size_t)(nin + 1) * sizeof(int)), *inw = malloc((size_t)(nin + 1) * sizeof(int));
        int *out = malloc((size_t)(nout + 1) * sizeof(int)), *outw = malloc((size_t)(nout + 1) * sizeof(int));
        if (in && inw && out && outw) {
            for (int e = 0, i = 0, o = 0; e < total; e++) {
                if (all[3 * e + 1] == nc->rank) {
                    in[i] = all[3 * e];
                    inw[i++] = all[3 * e + 2];
                }
                if (all[3 * e] == nc->rank) {
                    out[o] = all[3 * e + 1];
                    outw[o++] = all[3 * e + 2];
                }
            }
            t = dist_topo(nin, in, inw, nout, out, outw, weighted);
        }
        free(in);
        free(inw);
        free(out);
        free(outw);
    }
    free(counts);
    free(edges);
    free(all);
    if (err) {
        cr_topo_free(t);
        cr_comm_free_handle(nc);
        return err;
    }
    return topo_attach(nc, t, fname, comm_dist_graph);
}

int core_dist_graph_neighbors_count(cr_comm_t *comm, int *indegree, int *outdegree, int *weighted)
{
    int err;
    cr_topo_t *t = topo_get(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors_count", &err);
    if (!t) return err;
    *indegree = t->nin;
    *outdegree = t->nout;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

int core_dist_graph_neighbors(cr_comm_t *comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    int err;
    cr_topo_t *t = topo_get(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors", &err);
    if (!t) return err;
    if (maxindegree < t->nin || maxoutdegree < t->nout)
        return cr_error(MPI_ERR_ARG, "MPI_Dist_graph_neighbors: maxindegree=%d, maxoutdegree=%d: "
                        "the process has %d sources and %d destinations", maxindegree,
                        maxoutdegree, t->nin, t->nout);
    for (int i = 0; i < t->nin; i++) {
        sources[i] = t->in[i];
        if (t->weighted && !is_unweighted(sourceweights)) sourceweights[i] = t->inw[i];
    }
    for (int i = 0; i < t->nout; i++) {
        destinations[i] = t->out[i];
        if (t->weighted && !is_unweighted(destweights)) destweights[i] = t->outw[i];
    }
    return MPI_SUCCESS;
}
