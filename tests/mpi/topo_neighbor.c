/* SPDX-License-Identifier: MIT */
/* Neighbor collectives, checking every block: Neighbor_allgather(v),
 * Neighbor_alltoall(v,w) and the I-forms on Cartesian grids (periodic, where
 * a process can be its own or a double neighbor, and non-periodic, where
 * MPI_PROC_NULL blocks keep their place untouched), on a graph and on a
 * distributed graph.  Block k that rank q sends carries q*100+k.
 *
 * Which block lands in in-slot j: on a Cartesian grid the data from the -1
 * side of dimension d (slot 2d) is what that neighbor sent towards +1 (its
 * block 2d+1), and vice versa.  On graphs the o-th edge from s to me pairs
 * with the o-th occurrence of me in s's destination list. */
#include "mpitest.h"

#define MAXD 8
static int rank, size;

typedef struct {
    MPI_Comm comm;
    int cart;
    int nin, nout, in[MAXD], out[MAXD];
    int *all_out;   /* graphs: everybody's destination list, MAXD per rank (-1 = none) */
} topo_t;

/* The block index that in-slot j receives, or -1 for MPI_PROC_NULL. */
static int expect_block(const topo_t *t, int j)
{
    int s = t->in[j];
    if (s == MPI_PROC_NULL) return -1;
#ifdef MT_REFERENCE_MPICH
    /* MPICH 4.0 predates the MPI-4.0 erratum (mpi-forum/mpi-issues#153) for a
     * periodic dimension of 1 or 2 processes, where both sides are the same
     * process: skip those slots */
    if (t->cart && t->in[j ^ 1] == s) return -3;
#endif
    if (t->cart) return j ^ 1;
    int o = 0;
#ifdef MT_REFERENCE_MPICH
    /* nor does it pair repeated graph edges in list order: skip them */
    for (int i = 0; i < t->nin; i++)
        if (i != j && t->in[i] == s) return -3;
#endif
    for (int i = 0; i < j; i++) o += t->in[i] == s;
    for (int k = 0; k < MAXD; k++)
        if (t->all_out[s * MAXD + k] == rank && o-- == 0) return k;
    return -2;
}

static void run(const topo_t *t, const char *what)
{
    int ni = t->nin, no = t->nout;
    int sb[2 * MAXD], rb[4 * MAXD], sc[MAXD], sd[MAXD], rc[MAXD], rd[MAXD];
    MPI_Aint sdb[MAXD], rdb[MAXD];
    MPI_Datatype st[MAXD], rt[MAXD];
    /* allgather: one int, q*100+77 */
    int v = rank * 100 + 77;
    for (int i = 0; i < 4 * MAXD; i++) rb[i] = -9;
    CHECK_MPI(MPI_Neighbor_allgather(&v, 1, MPI_INT, rb, 1, MPI_INT, t->comm));
    for (int j = 0; j < ni; j++)
        CHECK(rb[j] == (t->in[j] == MPI_PROC_NULL ? -9 : t->in[j] * 100 + 77),
              "%s allgather slot %d: %d", what, j, rb[j]);
    /* allgatherv: reversed, with gaps */
    for (int i = 0; i < 4 * MAXD; i++) rb[i] = -9;
    for (int j = 0; j < ni; j++) {
        rc[j] = 1;
        rd[j] = 2 * (ni - 1 - j);
    }
    CHECK_MPI(MPI_Neighbor_allgatherv(&v, 1, MPI_INT, rb, rc, rd, MPI_INT, t->comm));
    for (int j = 0; j < ni; j++)
        CHECK(rb[rd[j]] == (t->in[j] == MPI_PROC_NULL ? -9 : t->in[j] * 100 + 77),
              "%s allgatherv slot %d: %d", what, j, rb[rd[j]]);
    /* alltoall: two ints per block */
    for (int k = 0; k < no; k++) {
        sb[2 * k] = rank * 100 + k;
        sb[2 * k + 1] = -(rank * 100 + k);
    }
    for (int i = 0; i < 4 * MAXD; i++) rb[i] = -9;
    CHECK_MPI(MPI_Neighbor_alltoall(sb, 2, MPI_INT, rb, 2, MPI_INT, t->comm));
    for (int j = 0; j < ni; j++) {
        int b = expect_block(t, j);
        if (b == -3) continue;
        int want = b < 0 ? -9 : t->in[j] * 100 + b;
        CHECK(rb[2 * j] == want && rb[2 * j + 1] == (b < 0 ? -9 : -want),
              "%s alltoall slot %d: %d %d, expected %d", what, j, rb[2 * j], rb[2 * j + 1], want);
    }
    /* alltoallv: send blocks stored reversed, receive into reversed slots */
    for (int k = 0; k < no; k++) {
        sc[k] = 1;
        sd[k] = no - 1 - k;
        sb[no - 1 - k] = rank * 100 + k;
    }
    for (int i = 0; i < 4 * MAXD; i++) rb[i] = -9;
    CHECK_MPI(MPI_Neighbor_alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, t->comm));
    for (int j = 0; j < ni; j++) {
        int b = expect_block(t, j);
        if (b == -3) continue;
        CHECK(rb[rd[j]] == (b < 0 ? -9 : t->in[j] * 100 + b), "%s alltoallv slot %d: %d", what,
              j, rb[rd[j]]);
    }
    /* alltoallw: byte displacements, per-neighbor types */
    for (int k = 0; k < no; k++) {
        sdb[k] = (MPI_Aint)sizeof(int) * (no - 1 - k);
        st[k] = MPI_INT;
    }
    for (int j = 0; j < ni; j++) {
        rdb[j] = (MPI_Aint)sizeof(int) * rd[j];
        rt[j] = MPI_INT;
    }
    for (int i = 0; i < 4 * MAXD; i++) rb[i] = -9;
    CHECK_MPI(MPI_Neighbor_alltoallw(sb, sc, sdb, st, rb, rc, rdb, rt, t->comm));
    for (int j = 0; j < ni; j++) {
        int b = expect_block(t, j);
        if (b == -3) continue;
        CHECK(rb[rd[j]] == (b < 0 ? -9 : t->in[j] * 100 + b), "%s alltoallw slot %d: %d", what,
              j, rb[rd[j]]);
    }
    /* non-blocking forms, two in flight at once */
    int rb2[4 * MAXD];
    for (int k = 0; k < no; k++) sb[k] = rank * 100 + k;
    for (int i = 0; i < 4 * MAXD; i++) rb[i] = rb2[i] = -9;
    MPI_Request q[2];
    CHECK_MPI(MPI_Ineighbor_allgather(&v, 1, MPI_INT, rb2, 1, MPI_INT, t->comm, &q[0]));
    CHECK_MPI(MPI_Ineighbor_alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, t->comm, &q[1]));
    CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    for (int j = 0; j < ni; j++) {
        int b = expect_block(t, j);
        CHECK(b == -3 || rb[j] == (b < 0 ? -9 : t->in[j] * 100 + b), "%s ialltoall slot %d: %d", what, j,
              rb[j]);
        CHECK(rb2[j] == (t->in[j] == MPI_PROC_NULL ? -9 : t->in[j] * 100 + 77),
              "%s iallgather slot %d: %d", what, j, rb2[j]);
    }
}

static void cart(int nd, const int *dims, const int *periods, const char *what)
{
    topo_t t = { .cart = 1 };
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &t.comm));
    if (t.comm == MPI_COMM_NULL) return;
    t.nin = t.nout = 2 * nd;
    for (int d = 0; d < nd; d++) {
        MPI_Cart_shift(t.comm, d, 1, &t.in[2 * d], &t.in[2 * d + 1]);
        t.out[2 * d] = t.in[2 * d];
        t.out[2 * d + 1] = t.in[2 * d + 1];
    }
    run(&t, what);
    MPI_Comm_free(&t.comm);
}

/* A graph-like topology: learn everybody's destination list. */
static void graph_common(topo_t *t, const char *what)
{
    int mine[MAXD];
    for (int k = 0; k < MAXD; k++) mine[k] = k < t->nout ? t->out[k] : -1;
    t->all_out = mt_malloc(sizeof(int) * MAXD * size);
    MPI_Allgather(mine, MAXD, MPI_INT, t->all_out, MAXD, MPI_INT, MPI_COMM_WORLD);
    run(t, what);
    free(t->all_out);
    MPI_Comm_free(&t->comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int d1 = size, p1 = 1, p0 = 0;
    cart(1, &d1, &p1, "1-D periodic");
    cart(1, &d1, &p0, "1-D open");
    int d2[2] = { 0, 0 }, p2[2] = { 1, 0 };
    MPI_Dims_create(size, 2, d2);
    cart(2, d2, p2, "2-D");
    int d3[3] = { 0, 0, 0 }, p3[3] = { 1, 1, 1 };
    MPI_Dims_create(size, 3, d3);
    cart(3, d3, p3, "3-D periodic");
    if (size > 1) {
        int dd = size - 1;   /* the last rank is outside the grid */
        cart(1, &dd, &p1, "smaller grid");
    }

    /* graph: ring with chords (repeated neighbors at small sizes) */
    {
        int *index = mt_malloc(sizeof(int) * size), *edges = mt_malloc(sizeof(int) * 3 * size);
        int ne = 0;
        for (int i = 0; i < size; i++) {
            edges[ne++] = (i + 1) % size;
            edges[ne++] = (i - 1 + size) % size;
            if (size >= 4 && size % 2 == 0) edges[ne++] = (i + size / 2) % size;  /* symmetric */
            index[i] = ne;
        }
        topo_t t = { 0 };
        CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &t.comm));
        MPI_Graph_neighbors_count(t.comm, rank, &t.nin);
        MPI_Graph_neighbors(t.comm, rank, MAXD, t.in);
        t.nout = t.nin;
        memcpy(t.out, t.in, sizeof t.in);
        graph_common(&t, "graph");
        free(index);
        free(edges);
    }
    /* distributed graph: sources i-1, i+2, i+2; destinations i+1, i-2, i-2 */
    {
        topo_t t = { 0 };
        t.nin = t.nout = 3;
        t.in[0] = (rank - 1 + size) % size;
        t.in[1] = t.in[2] = (rank + 2) % size;
        t.out[0] = (rank + 1) % size;
        t.out[1] = t.out[2] = (rank - 2 + 2 * size) % size;
        CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 3, t.in, MPI_UNWEIGHTED, 3,
                                                 t.out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &t.comm));
        graph_common(&t, "dist graph");
    }
    /* a distributed graph with no edges at all on odd ranks */
    {
        topo_t t = { 0 };
        if (rank % 2 == 0 && size > 1) {
            t.nin = t.nout = 1;
            t.in[0] = t.out[0] = (rank ^ 1) < size ? (rank ^ 1) : rank;
        }
        if (rank % 2 == 1) {
            t.nin = t.nout = 1;
            t.in[0] = t.out[0] = rank ^ 1;
        }
        CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t.nin, t.in, MPI_UNWEIGHTED,
                                                 t.nout, t.out, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                                 &t.comm));
        graph_common(&t, "pairs");
    }
    int ret = mt_finish("topo_neighbor");
    MPI_Finalize();
    return ret;
}
