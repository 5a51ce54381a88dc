/* SPDX-License-Identifier: MIT */
/* Graph and distributed-graph topologies against hand-computed answers:
 * Graph_create (a ring with chords, fewer nodes than processes), Graphdims_get,
 * Graph_get, Graph_neighbors_count / Graph_neighbors for every node,
 * Graph_map, Topo_test; Dist_graph_create_adjacent (weighted, order kept),
 * Dist_graph_create (edges named by other processes, weighted and
 * MPI_UNWEIGHTED), Dist_graph_neighbors_count / Dist_graph_neighbors, and the
 * topology copied by Comm_dup. */
#include "mpitest.h"

/* Node i of an n-ring with chords: i+1, i-1, and i+n/2 when n >= 4. */
static int ring_nbrs(int i, int n, int *out)
{
    int k = 0;
    out[k++] = (i + 1) % n;
    out[k++] = (i - 1 + n) % n;
    if (n >= 4) out[k++] = (i + n / 2) % n;
    return k;
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

int main(int argc, char **argv)
{
    int rank, size, t;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* graph over all processes */
    int n = size, *index = mt_malloc(sizeof(int) * n), *edges = mt_malloc(sizeof(int) * 3 * n);
    int ne = 0;
    for (int i = 0; i < n; i++) {
        ne += ring_nbrs(i, n, edges + ne);
        index[i] = ne;
    }
    int nr;
    CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &nr));
    CHECK_INT(nr, rank);
    MPI_Comm g;
    CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g));
    for (int pass = 0; pass < 2; pass++) {
        MPI_Comm gg = g;
        if (pass == 1) CHECK_MPI(MPI_Comm_dup(g, &gg));
        CHECK_MPI(MPI_Topo_test(gg, &t));
        CHECK_INT(t, MPI_GRAPH);
        int nn, nedges;
        CHECK_MPI(MPI_Graphdims_get(gg, &nn, &nedges));
        CHECK_INT(nn, n);
        CHECK_INT(nedges, ne);
        int *gi = mt_malloc(sizeof(int) * n), *ge = mt_malloc(sizeof(int) * ne);
        CHECK_MPI(MPI_Graph_get(gg, n, ne, gi, ge));
        for (int i = 0; i < n; i++) CHECK_INT(gi[i], index[i]);
        for (int e = 0; e < ne; e++) CHECK_INT(ge[e], edges[e]);
        for (int i = 0; i < n; i++) {
            int want[3], k = ring_nbrs(i, n, want), cnt, got[3];
            CHECK_MPI(MPI_Graph_neighbors_count(gg, i, &cnt));
            CHECK_INT(cnt, k);
            CHECK_MPI(MPI_Graph_neighbors(gg, i, 3, got));
            for (int j = 0; j < k; j++) CHECK_INT(got[j], want[j]);
        }
        free(gi);
        free(ge);
        if (pass == 1) MPI_Comm_free(&gg);
    }
    MPI_Comm_free(&g);

    /* a graph of size-1 nodes (a path): the last process is left out */
    if (size > 1) {
        int m = size - 1, pidx[8], pe[16], k = 0;
        for (int i = 0; i < m && m <= 8; i++) {
            if (i > 0) pe[k++] = i - 1;
            if (i < m - 1) pe[k++] = i + 1;
            pidx[i] = k;
        }
        if (m <= 8) {
            CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, m, pidx, pe, 1, &g));
            if (rank >= m) {
                CHECK(g == MPI_COMM_NULL, "rank %d outside the graph got a communicator", rank);
            } else {
                int cnt;
                CHECK_MPI(MPI_Graph_neighbors_count(g, rank, &cnt));
                CHECK_INT(cnt, (rank > 0) + (rank < m - 1));
                MPI_Comm_free(&g);
            }
        }
    }

    /* Dist_graph_create_adjacent: sources i-1, i+2; destinations i+1, i-2 */
    int src[2] = { (rank - 1 + size) % size, (rank + 2) % size };
    int dst[2] = { (rank + 1) % size, (rank - 2 + 2 * size) % size };
    int sw[2] = { 10 + src[0], 20 + src[1] }, dw[2] = { 10 + rank, 20 + rank };
    MPI_Comm dg;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw,
                                             MPI_INFO_NULL, 0, &dg));
    for (int pass = 0; pass < 2; pass++) {
        MPI_Comm d = dg;
        if (pass == 1) CHECK_MPI(MPI_Comm_dup(dg, &d));
        CHECK_MPI(MPI_Topo_test(d, &t));
        CHECK_INT(t, MPI_DIST_GRAPH);
        int indeg, outdeg, weighted, gs[2], gsw[2], gd[2], gdw[2];
        CHECK_MPI(MPI_Dist_graph_neighbors_count(d, &indeg, &outdeg, &weighted));
        CHECK_INT(indeg, 2);
        CHECK_INT(outdeg, 2);
        CHECK(weighted, "weighted flag not set");
        CHECK_MPI(MPI_Dist_graph_neighbors(d, 2, gs, gsw, 2, gd, gdw));
        for (int i = 0; i < 2; i++) {
            CHECK_INT(gs[i], src[i]);
            CHECK_INT(gsw[i], sw[i]);
            CHECK_INT(gd[i], dst[i]);
            CHECK_INT(gdw[i], dw[i]);
        }
        if (pass == 1) MPI_Comm_free(&d);
    }
    MPI_Comm_free(&dg);

    /* Dist_graph_create: rank 0 names every edge i -> i+1 (weight 100+i); every
     * rank names its own edge i -> i+3 (weight 300+i) */
    for (int weighted_pass = 0; weighted_pass < 2; weighted_pass++) {
        int ns = rank == 0 ? size + 1 : 1;
        int *sources = mt_malloc(sizeof(int) * ns), *degrees = mt_malloc(sizeof(int) * ns);
        int *dests = mt_malloc(sizeof(int) * ns), *w = mt_malloc(sizeof(int) * ns);
        int k = 0;
        if (rank == 0)
            for (int i = 0; i < size; i++, k++) {
                sources[k] = i;
                degrees[k] = 1;
                dests[k] = (i + 1) % size;
                w[k] = 100 + i;
            }
        sources[k] = rank;
        degrees[k] = 1;
        dests[k] = (rank + 3) % size;
        w[k] = 300 + rank;
        k++;
        CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, k, sources, degrees, dests,
                                        weighted_pass ? w : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg));
        int indeg, outdeg, weighted;
        CHECK_MPI(MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted));
        CHECK_INT(indeg, 2);
        CHECK_INT(outdeg, 2);
        CHECK_INT(!!weighted, weighted_pass);
        int gs[2], gsw[2], gd[2], gdw[2];
        CHECK_MPI(MPI_Dist_graph_neighbors(dg, 2, gs, weighted_pass ? gsw : MPI_UNWEIGHTED, 2, gd,
                                           weighted_pass ? gdw : MPI_UNWEIGHTED));
        /* the order of neighbors is not specified here: compare as sets of
         * (rank, weight), encoded as rank * 1000 + weight */
        int ws[2], wd[2], es[2], ed[2];
        for (int i = 0; i < 2; i++) {
            ws[i] = gs[i] * 1000 + (weighted_pass ? gsw[i] : 0);
            wd[i] = gd[i] * 1000 + (weighted_pass ? gdw[i] : 0);
        }
        int from1 = (rank - 1 + size) % size, from3 = ((rank - 3) % size + size) % size;
        es[0] = from1 * 1000 + (weighted_pass ? 100 + from1 : 0);
        es[1] = from3 * 1000 + (weighted_pass ? 300 + from3 : 0);
        ed[0] = ((rank + 1) % size) * 1000 + (weighted_pass ? 100 + rank : 0);
        ed[1] = ((rank + 3) % size) * 1000 + (weighted_pass ? 300 + rank : 0);
        qsort(ws, 2, sizeof(int), cmp_int);
        qsort(wd, 2, sizeof(int), cmp_int);
        qsort(es, 2, sizeof(int), cmp_int);
        qsort(ed, 2, sizeof(int), cmp_int);
        for (int i = 0; i < 2; i++) {
            CHECK_INT(ws[i], es[i]);
            CHECK_INT(wd[i], ed[i]);
        }
        MPI_Comm_free(&dg);
        free(sources);
        free(degrees);
        free(dests);
        free(w);
    }
    free(index);
    free(edges);
    int ret = mt_finish("topo_graph");
    MPI_Finalize();
    return ret;
}
