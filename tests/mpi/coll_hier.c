/* SPDX-License-Identifier: MIT */
/* Collectives on communicators whose ranks span several nodes: Barrier,
 * Bcast, Reduce, Allreduce, Gather, Allgather and Scatter at 0 B, 8 B, 64 KiB and
 * 1 MiB, in place and not, every root, on MPI_COMM_WORLD and on a
 * communicator whose rank order interleaves the nodes, plus a non-contiguous
 * datatype and a non-commutative op (rank order must hold).  Every result is
 * checked element by element.  Run it on pretend nodes (COURIER_NODE_SIZE)
 * or on several hosts.
 *
 * Under Courier the tools interface's coll_<x>_algorithm variables say which
 * algorithm ran; with HIER_TEST_EXPECT=forced (the hierarchical algorithms
 * forced) or =auto (default selection) the test checks that the hierarchical
 * one ran exactly where it should: forced, on a communicator with two or more
 * nodes and fewer nodes than ranks; automatic, also with two or more ranks on
 * every node; never for the non-commutative op.  Works under any MPI. */
#include <time.h>
#include <unistd.h>
#include "mpitest.h"

static int wrank, wsize;
static const char *expect;       /* HIER_TEST_EXPECT, or NULL */
static int have_pvars;
static MPI_T_pvar_session session;

enum { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_ALLGATHER, C_SCATTER, C_N };
static const char *const pvar_names[C_N] = {
    "coll_barrier_algorithm", "coll_bcast_algorithm", "coll_reduce_algorithm",
    "coll_allreduce_algorithm", "coll_gather_algorithm", "coll_allgather_algorithm",
    "coll_scatter_algorithm",
};
static const int hier_id[C_N] = { 4, 6, 5, 6, 6, 6, 6 };   /* COURIER_COLL_<X>_ALG=hier */
static MPI_T_pvar_handle pvar[C_N];

static void pvars_open(void)
{
    int provided, n = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    MPI_T_pvar_get_num(&n);
    int found = 0;
    CHECK_MPI(MPI_T_pvar_session_create(&session));
    for (int c = 0; c < C_N; c++) {
        int idx, count;
        if (MPI_T_pvar_get_index(pvar_names[c], MPI_T_PVAR_CLASS_STATE, &idx) != MPI_SUCCESS)
            continue;
        CHECK_MPI(MPI_T_pvar_handle_alloc(session, idx, NULL, &pvar[c], &count));
        found++;
    }
    have_pvars = found == C_N;
}

static void pvars_close(void)
{
    if (!have_pvars) return;
    for (int c = 0; c < C_N; c++) MPI_T_pvar_handle_free(session, &pvar[c]);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
}

/* The node layout of comm: number of nodes, smallest number of ranks on one. */
typedef struct {
    int nnodes, min_ppn, size;
} layout_t;

static layout_t layout_of(MPI_Comm comm)
{
    layout_t l;
    MPI_Comm node;
    int me, nsize, nrank;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &l.size);
    CHECK_MPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nsize);
    MPI_Comm_rank(node, &nrank);
    int lead = nrank == 0;
    CHECK_MPI(MPI_Allreduce(&lead, &l.nnodes, 1, MPI_INT, MPI_SUM, comm));
    CHECK_MPI(MPI_Allreduce(&nsize, &l.min_ppn, 1, MPI_INT, MPI_MIN, comm));
    MPI_Comm_free(&node);
    return l;
}

/* After a call of collective c: did the expected algorithm run? */
static void check_alg(int c, const layout_t *l, int commutative, const char *what)
{
    if (!have_pvars || !expect || l->size < 2) return;
    int got = -1;
    CHECK_MPI(MPI_T_pvar_read(session, pvar[c], &got));
    int spans = l->nnodes >= 2 && l->nnodes < l->size && commutative;
    int want = !strcmp(expect, "forced") ? spans : spans && l->min_ppn >= 2;
    CHECK((got == hier_id[c]) == want, "%s: algorithm %d ran (hierarchical %d expected: %s)",
          what, got, hier_id[c], want ? "yes" : "no");
}

static int val(int r, long i, int tag)
{
    return r * 100003 + (int)(i % 100000) * 7 + tag;
}

/* Non-commutative op on int pairs: (a, n) op (b, m) = (a * 10^m + b, n + m)
 * kept mod 1e9 (rank order visible), as a contiguous pair type. */
static MPI_Datatype pair_dt;
static MPI_Op concat_op;
static void concat_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    long long *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        long long p = 1;
        for (long long k = 0; k < b[2 * i + 1]; k++) p = p * 10 % 1000000000;
        b[2 * i] = (a[2 * i] * p + b[2 * i]) % 1000000000;
        b[2 * i + 1] += a[2 * i + 1];
    }
}

static const long sizes[] = { 0, 8, 65536, 1048576 };   /* bytes */
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

/* Seconds on the machine's monotonic clock: one clock for every process of
 * the machine (MPI_Wtime need not be: MPI_WTIME_IS_GLOBAL), which the barrier
 * check needs; pretend nodes and the namespace hosts share one machine. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run_barrier(MPI_Comm comm, const layout_t *l)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    /* the last rank arrives late: nobody may leave before it entered */
    for (int k = 0; k < 3; k++) {
        if (me == p - 1) usleep(20000);
        double entered = me == p - 1 ? now() : 0;
        CHECK_MPI(MPI_Barrier(comm));
        double left = now();
        check_alg(C_BARRIER, l, 1, "MPI_Barrier");
        CHECK_MPI(MPI_Bcast(&entered, 1, MPI_DOUBLE, p - 1, comm));
        CHECK(left >= entered, "left the barrier at %.6f before rank %d entered at %.6f", left,
              p - 1, entered);
    }
}

static void run_bcast(MPI_Comm comm, const layout_t *l, long n)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *buf = malloc((size_t)(n ? n : 1) * sizeof(int));
    for (int root = 0; root < p; root++) {
        for (long i = 0; i < n; i++) buf[i] = me == root ? val(root, i, 1) : -1;
        CHECK_MPI(MPI_Bcast(buf, (int)n, MPI_INT, root, comm));
        if (n) check_alg(C_BCAST, l, 1, "MPI_Bcast");
        for (long i = 0; i < n; i++)
            if (buf[i] != val(root, i, 1)) {
                CHECK_INT(buf[i], val(root, i, 1));
                break;
            }
    }
    free(buf);
}

/* Reduce and Allreduce with MPI_SUM on int, in place and not. */
static void run_reduce(MPI_Comm comm, const layout_t *l, long n, int in_place)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    size_t b = (size_t)(n ? n : 1) * sizeof(int);
    int *sb = malloc(b), *rb = malloc(b);
    for (int root = 0; root < p; root++) {
#ifdef MT_REFERENCE_MPICH
        /* MPICH 4.0.2 crashes (copies from MPI_IN_PLACE) in MPI_Reduce with
         * MPI_IN_PLACE at a root other than 0 from about 4000 bytes on */
        if (in_place && root != 0 && n >= 256) continue;
#endif
        for (long i = 0; i < n; i++) sb[i] = val(me, i, root), rb[i] = -7;
        const void *s = sb;
        if (in_place && me == root) {
            memcpy(rb, sb, (size_t)n * sizeof(int));
            s = MPI_IN_PLACE;
        }
        CHECK_MPI(MPI_Reduce(s, rb, (int)n, MPI_INT, MPI_SUM, root, comm));
        if (n) check_alg(C_REDUCE, l, 1, "MPI_Reduce");
        for (long i = 0; me == root && i < n; i++) {
            int want = 0;
            for (int r = 0; r < p; r++) want += val(r, i, root);
            if (rb[i] != want) {
                CHECK_INT(rb[i], want);
                break;
            }
        }
    }
    for (long i = 0; i < n; i++) sb[i] = val(me, i, 5), rb[i] = in_place ? sb[i] : -7;
    CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : sb, rb, (int)n, MPI_INT, MPI_SUM, comm));
    if (n) check_alg(C_ALLREDUCE, l, 1, "MPI_Allreduce");
    for (long i = 0; i < n; i++) {
        int want = 0;
        for (int r = 0; r < p; r++) want += val(r, i, 5);
        if (rb[i] != want) {
            CHECK_INT(rb[i], want);
            break;
        }
    }
    free(sb);
    free(rb);
}

/* Reduce (every root) and Allreduce with a non-commutative op: rank order. */
static void run_noncommutative(MPI_Comm comm, const layout_t *l, long n)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    long long *sb = malloc((size_t)(n ? n : 1) * 16), *rb = malloc((size_t)(n ? n : 1) * 16);
    for (long i = 0; i < n; i++) sb[2 * i] = (me + i) % 9 + 1, sb[2 * i + 1] = 1;
    for (int root = -1; root < p; root++) {
        for (long i = 0; i < 2 * n; i++) rb[i] = -1;
        if (root < 0) {
            CHECK_MPI(MPI_Allreduce(sb, rb, (int)n, pair_dt, concat_op, comm));
            if (n) check_alg(C_ALLREDUCE, l, 0, "MPI_Allreduce (non-commutative)");
        } else {
            CHECK_MPI(MPI_Reduce(sb, rb, (int)n, pair_dt, concat_op, root, comm));
            if (n) check_alg(C_REDUCE, l, 0, "MPI_Reduce (non-commutative)");
            if (me != root) continue;
        }
        for (long i = 0; i < n; i++) {
            long long want = 0;
            for (int r = 0; r < p; r++) want = (want * 10 + (r + i) % 9 + 1) % 1000000000;
            if (rb[2 * i] != want || rb[2 * i + 1] != p) {
                CHECK(0, "element %ld: got (%lld, %lld), expected (%lld, %d)", i, rb[2 * i],
                      rb[2 * i + 1], want, p);
                break;
            }
        }
    }
    free(sb);
    free(rb);
}

/* Gather (every root) and Allgather of n ints per rank, in place and not. */
static void run_gathers(MPI_Comm comm, const layout_t *l, long n, int in_place)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *sb = malloc((size_t)(n ? n : 1) * sizeof(int));
    int *rb = malloc((size_t)p * (size_t)(n ? n : 1) * sizeof(int));
    for (int root = -1; root < p; root++) {
        for (long i = 0; i < n; i++) sb[i] = val(me, i, root + 2);
        for (long i = 0; i < (long)p * n; i++) rb[i] = -7;
        int ip = in_place && (root < 0 || me == root);
        if (ip) memcpy(rb + (size_t)me * (size_t)n, sb, (size_t)n * sizeof(int));
        if (root < 0) {
            CHECK_MPI(MPI_Allgather(ip ? MPI_IN_PLACE : sb, (int)n, MPI_INT, rb, (int)n, MPI_INT,
                                    comm));
            if (n) check_alg(C_ALLGATHER, l, 1, "MPI_Allgather");
        } else {
            CHECK_MPI(MPI_Gather(ip ? MPI_IN_PLACE : sb, (int)n, MPI_INT, rb, (int)n, MPI_INT,
                                 root, comm));
            if (n) check_alg(C_GATHER, l, 1, "MPI_Gather");
            if (me != root) continue;
        }
        for (int r = 0; r < p; r++)
            for (long i = 0; i < n; i++)
                if (rb[(size_t)r * (size_t)n + (size_t)i] != val(r, i, root + 2)) {
                    CHECK(0, "root %d: block %d element %ld: got %d, expected %d", root, r, i,
                          rb[(size_t)r * (size_t)n + (size_t)i], val(r, i, root + 2));
                    r = p;
                    break;
                }
    }
    free(sb);
    free(rb);
}

/* Scatter (every root) of n ints per rank, in place at the root and not. */
static void run_scatter(MPI_Comm comm, const layout_t *l, long n, int in_place)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *sb = malloc((size_t)p * (size_t)(n ? n : 1) * sizeof(int));
    int *rb = malloc((size_t)(n ? n : 1) * sizeof(int));
    for (int root = 0; root < p; root++) {
        for (int r = 0; r < p; r++)
            for (long i = 0; i < n; i++)
                sb[(size_t)r * (size_t)n + (size_t)i] = me == root ? val(r, i, root + 20) : -5;
        for (long i = 0; i < n; i++) rb[i] = -7;
        int ip = in_place && me == root;
        CHECK_MPI(MPI_Scatter(sb, (int)n, MPI_INT, ip ? MPI_IN_PLACE : rb, (int)n, MPI_INT, root,
                              comm));
        if (n) check_alg(C_SCATTER, l, 1, "MPI_Scatter");
        const int *got = ip ? sb + (size_t)me * (size_t)n : rb;
        for (long i = 0; i < n; i++)
            if (got[i] != val(me, i, root + 20)) {
                CHECK(0, "root %d: element %ld: got %d, expected %d", root, i, got[i],
                      val(me, i, root + 20));
                break;
            }
    }
    free(sb);
    free(rb);
}

/* A vector type with holes (every other int), through Bcast and Allgather. */
static void run_vector(MPI_Comm comm, const layout_t *l)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    enum { N = 1000 };
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    int *buf = malloc((size_t)p * 2 * N * sizeof(int));
    for (int i = 0; i < 2 * N; i++) buf[i] = me == 0 ? (i % 2 ? -3 : val(0, i, 9)) : -3;
    CHECK_MPI(MPI_Bcast(buf, 1, vec, 0, comm));
    check_alg(C_BCAST, l, 1, "MPI_Bcast (vector)");
    for (int i = 0; i < 2 * N; i++)
        if (buf[i] != (i % 2 ? -3 : val(0, i, 9))) {
            CHECK_INT(buf[i], i % 2 ? -3 : val(0, i, 9));
            break;
        }
    int mine[N];
    for (int i = 0; i < N; i++) mine[i] = val(me, i, 11);
    MPI_Datatype rvec;   /* N ints with holes, resized so blocks interleave */
    CHECK_MPI(MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * N * sizeof(int)), &rvec));
    CHECK_MPI(MPI_Type_commit(&rvec));
    for (int i = 0; i < p * 2 * N; i++) buf[i] = -3;
    CHECK_MPI(MPI_Allgather(mine, N, MPI_INT, buf, 1, rvec, comm));
    check_alg(C_ALLGATHER, l, 1, "MPI_Allgather (vector)");
    for (int r = 0; r < p; r++)
        for (int i = 0; i < 2 * N; i++) {
            int want = i % 2 ? -3 : val(r, i / 2, 11);
            if (buf[r * 2 * N + i] != want) {
                CHECK(0, "block %d position %d: got %d, expected %d", r, i, buf[r * 2 * N + i],
                      want);
                r = p;
                break;
            }
        }
    MPI_Type_free(&rvec);
    MPI_Type_free(&vec);
    free(buf);
}

static void run_comm(MPI_Comm comm)
{
    layout_t l = layout_of(comm);
    run_barrier(comm, &l);
    for (int s = 0; s < NSIZES; s++) {
        long n = sizes[s] / (long)sizeof(int);
        run_bcast(comm, &l, n);
        for (int ip = 0; ip < 2; ip++) {
            run_reduce(comm, &l, n, ip);
            run_gathers(comm, &l, n, ip);
            run_scatter(comm, &l, n, ip);
        }
        run_noncommutative(comm, &l, sizes[s] / 16);
    }
    run_vector(comm, &l);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    expect = getenv("HIER_TEST_EXPECT");
    pvars_open();
    CHECK_MPI(MPI_Type_contiguous(2, MPI_LONG_LONG, &pair_dt));
    CHECK_MPI(MPI_Type_commit(&pair_dt));
    CHECK_MPI(MPI_Op_create(concat_fn, 0, &concat_op));

    run_comm(MPI_COMM_WORLD);
    /* nodes interleaved in rank order: even world ranks first */
    for (int k = 0; k < 2; k++) {   /* twice: each communicator makes and frees its layer */
        MPI_Comm mixed;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, (wrank % 2) * wsize + wrank, &mixed));
        run_comm(mixed);
        CHECK_MPI(MPI_Comm_free(&mixed));
    }

    MPI_Op_free(&concat_op);
    MPI_Type_free(&pair_dt);
    pvars_close();
    int rc = mt_finish("coll_hier");
    MPI_Finalize();
    return rc;
}
