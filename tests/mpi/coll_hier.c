/* SPDX-License-Identifier: MIT */
/* Collectives on communicators whose ranks span several nodes: Barrier,
 * Bcast, Reduce, Allreduce, Gather, Allgather, Scatter, Alltoall,
 * Reduce_scatter, Reduce_scatter_block, Scan and Exscan at 0 B, 8 B, 64 KiB and
 * 1 MiB, in place and not, every root, on MPI_COMM_WORLD and on a
 * communicator whose rank order interleaves the nodes, plus a non-contiguous
 * datatype and a non-commutative op (rank order must hold); the last five
 * also in their non-blocking and persistent forms.  Every result is checked
 * element by element against a reference computed locally.  Run it on
 * pretend nodes (COURIER_NODE_SIZE) or on several hosts.
 *
 * Under Courier the tools interface's coll_<x>_algorithm variables say which
 * algorithm ran; with HIER_TEST_EXPECT=forced (the hierarchical algorithms
 * forced) or =auto (default selection) the test checks that the hierarchical
 * one ran exactly where it should: forced, on a communicator with two or more
 * nodes and fewer nodes than ranks; automatic, also with two or more ranks on
 * every node (and Alltoall blocks up to COURIER_COLL_ALLTOALL_HIER_MAX_BYTES);
 * never for a non-commutative op, except Scan and Exscan where every node is a
 * run of consecutive ranks; Scan and Exscan never elsewhere; never for the
 * non-blocking and persistent forms.  Works under any MPI. */
#include <time.h>
#include <unistd.h>
#include "mpitest.h"

static int wrank, wsize;
static const char *expect;       /* HIER_TEST_EXPECT, or NULL */
static int have_pvars;
static MPI_T_pvar_session session;

enum {
    C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_ALLGATHER, C_SCATTER,
    C_ALLTOALL, C_REDUCE_SCATTER, C_REDUCE_SCATTER_BLOCK, C_SCAN, C_EXSCAN, C_N
};
static const char *const pvar_names[C_N] = {
    "coll_barrier_algorithm", "coll_bcast_algorithm", "coll_reduce_algorithm",
    "coll_allreduce_algorithm", "coll_gather_algorithm", "coll_allgather_algorithm",
    "coll_scatter_algorithm", "coll_alltoall_algorithm", "coll_reduce_scatter_algorithm",
    "coll_reduce_scatter_block_algorithm", "coll_scan_algorithm", "coll_exscan_algorithm",
};
/* COURIER_COLL_<X>_ALG=hier */
static const int hier_id[C_N] = { 4, 6, 5, 6, 6, 6, 6, 6, 6, 6, 3, 3 };
static long alltoall_hier_max = 1024;   /* COURIER_COLL_ALLTOALL_HIER_MAX_BYTES */
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

/* The node layout of comm: number of nodes, smallest number of ranks on one,
 * whether every node is a run of consecutive ranks. */
typedef struct {
    int nnodes, min_ppn, size, runs;
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
    int lo, hi, run;
    CHECK_MPI(MPI_Allreduce(&me, &lo, 1, MPI_INT, MPI_MIN, node));
    CHECK_MPI(MPI_Allreduce(&me, &hi, 1, MPI_INT, MPI_MAX, node));
    run = hi - lo + 1 == nsize;
    CHECK_MPI(MPI_Allreduce(&run, &l.runs, 1, MPI_INT, MPI_LAND, comm));
    MPI_Comm_free(&node);
    return l;
}

/* After a call of collective c: did the expected algorithm run?  `can`: the
 * hierarchical algorithm takes this call (commutative op, or what the
 * collective needs); `auto_can`: the automatic choice takes it too. */
static void check_alg2(int c, const layout_t *l, int can, int auto_can, const char *what)
{
    if (!have_pvars || !expect || l->size < 2) return;
    int got = -1;
    CHECK_MPI(MPI_T_pvar_read(session, pvar[c], &got));
    int spans = l->nnodes >= 2 && l->nnodes < l->size && can;
    int want = !strcmp(expect, "forced") ? spans : spans && auto_can && l->min_ppn >= 2;
    CHECK((got == hier_id[c]) == want, "%s: algorithm %d ran (hierarchical %d expected: %s)",
          what, got, hier_id[c], want ? "yes" : "no");
}

static void check_alg(int c, const layout_t *l, int commutative, const char *what)
{
    check_alg2(c, l, commutative, 1, what);
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
    /* Alltoall: contiguous blocks sent, received into the holes' type */
    int *sb = malloc((size_t)p * N * sizeof(int));
    for (int j = 0; j < p; j++)
        for (int i = 0; i < N; i++) sb[j * N + i] = val(me, i, j + 70);
    for (int i = 0; i < p * 2 * N; i++) buf[i] = -3;
    CHECK_MPI(MPI_Alltoall(sb, N, MPI_INT, buf, 1, rvec, comm));
    check_alg2(C_ALLTOALL, l, 1, N * (long)sizeof(int) <= alltoall_hier_max,
               "MPI_Alltoall (vector)");
    for (int r = 0; r < p; r++)
        for (int i = 0; i < 2 * N; i++) {
            int want = i % 2 ? -3 : val(r, i / 2, me + 70);
            if (buf[r * 2 * N + i] != want) {
                CHECK(0, "alltoall block %d position %d: got %d, expected %d", r, i,
                      buf[r * 2 * N + i], want);
                r = p;
                break;
            }
        }
    free(sb);
    MPI_Type_free(&rvec);
    MPI_Type_free(&vec);
    free(buf);
}

/* ---- Alltoall, Reduce_scatter(_block), Scan, Exscan in three forms ------------- */
enum { BLOCKING, NONBLOCKING, PERSISTENT, NMODES };
static const char *const mode_name[NMODES] = { "", " (non-blocking)", " (persistent)" };

/* Run one call in the given form: the blocking call, the non-blocking one and
 * a wait, or the persistent one started once, waited for and freed (each
 * call expression names the request rq_). */
#define RUN_MODE(mode, blocking, nonblocking, init)                          \
    do {                                                                     \
        MPI_Request rq_;                                                     \
        if ((mode) == BLOCKING) {                                            \
            CHECK_MPI(blocking);                                             \
        } else if ((mode) == NONBLOCKING) {                                  \
            CHECK_MPI(nonblocking);                                          \
            CHECK_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                    \
        } else {                                                             \
            CHECK_MPI(init);                                                 \
            CHECK_MPI(MPI_Start(&rq_));                                      \
            CHECK_MPI(MPI_Wait(&rq_, MPI_STATUS_IGNORE));                    \
            CHECK_MPI(MPI_Request_free(&rq_));                               \
        }                                                                    \
    } while (0)

static void what_of(char *buf, size_t len, const char *call, int mode, int in_place)
{
    snprintf(buf, len, "%s%s%s", call, mode_name[mode], in_place ? " (in place)" : "");
}

/* Alltoall of n ints per pair: block j of rank r holds val(r, i, j + 40). */
static void run_alltoall(MPI_Comm comm, const layout_t *l, long n, int in_place, int mode)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    size_t tot = (size_t)p * (size_t)(n ? n : 1);
    int *sb = malloc(tot * sizeof(int)), *rb = malloc(tot * sizeof(int));
    for (int j = 0; j < p; j++)
        for (long i = 0; i < n; i++) {
            sb[(size_t)j * (size_t)n + (size_t)i] = val(me, i, j + 40);
            rb[(size_t)j * (size_t)n + (size_t)i] = in_place ? val(me, i, j + 40) : -7;
        }
    const void *s = in_place ? MPI_IN_PLACE : sb;
    int cnt = (int)n;
    RUN_MODE(mode, MPI_Alltoall(s, cnt, MPI_INT, rb, cnt, MPI_INT, comm),
             MPI_Ialltoall(s, cnt, MPI_INT, rb, cnt, MPI_INT, comm, &rq_),
             MPI_Alltoall_init(s, cnt, MPI_INT, rb, cnt, MPI_INT, comm, MPI_INFO_NULL, &rq_));
    char what[96];
    what_of(what, sizeof what, "MPI_Alltoall", mode, in_place);
    if (n)
        check_alg2(C_ALLTOALL, l, mode == BLOCKING,
                   n * (long)sizeof(int) <= alltoall_hier_max, what);
    for (int r = 0; r < p; r++)
        for (long i = 0; i < n; i++)
            if (rb[(size_t)r * (size_t)n + (size_t)i] != val(r, i, me + 40)) {
                CHECK(0, "%s: block %d element %ld: got %d, expected %d", what, r, i,
                      rb[(size_t)r * (size_t)n + (size_t)i], val(r, i, me + 40));
                r = p;
                break;
            }
    free(sb);
    free(rb);
}

/* Reduce_scatter_block of n ints per rank, or Reduce_scatter with n + (r % 2)
 * ints at rank r (uneven blocks), MPI_SUM. */
static void run_reduce_scatter(MPI_Comm comm, const layout_t *l, long n, int in_place, int mode,
                               int block)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
#ifdef MT_REFERENCE_MPICH
    /* MPICH 4.0.2 asserts (memcpy ranges overlap) in MPI_Reduce_scatter with
     * MPI_IN_PLACE and uneven blocks of 1 MiB */
    if (in_place && !block && n > 16384) return;
#endif
    int *counts = malloc((size_t)p * sizeof(int));
    long total = 0, first = 0;
    for (int r = 0; r < p; r++) {
        counts[r] = (int)(block ? n : n + r % 2);
        if (r == me) first = total;
        total += counts[r];
    }
    int *sb = malloc((size_t)(total ? total : 1) * sizeof(int));
    int *rb = malloc((size_t)(total ? total : 1) * sizeof(int));
    for (long j = 0; j < total; j++) sb[j] = val(me, j, 50), rb[j] = in_place ? sb[j] : -7;
    const void *s = in_place ? MPI_IN_PLACE : sb;
    int cnt = (int)n;
    char what[96];
    if (block) {
        RUN_MODE(mode, MPI_Reduce_scatter_block(s, rb, cnt, MPI_INT, MPI_SUM, comm),
                 MPI_Ireduce_scatter_block(s, rb, cnt, MPI_INT, MPI_SUM, comm, &rq_),
                 MPI_Reduce_scatter_block_init(s, rb, cnt, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                                               &rq_));
        what_of(what, sizeof what, "MPI_Reduce_scatter_block", mode, in_place);
    } else {
        RUN_MODE(mode, MPI_Reduce_scatter(s, rb, counts, MPI_INT, MPI_SUM, comm),
                 MPI_Ireduce_scatter(s, rb, counts, MPI_INT, MPI_SUM, comm, &rq_),
                 MPI_Reduce_scatter_init(s, rb, counts, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                                         &rq_));
        what_of(what, sizeof what, "MPI_Reduce_scatter", mode, in_place);
    }
    if (total) check_alg2(block ? C_REDUCE_SCATTER_BLOCK : C_REDUCE_SCATTER, l,
                          mode == BLOCKING, 1, what);
    for (long i = 0; i < counts[me]; i++) {
        int want = 0;
        for (int r = 0; r < p; r++) want += val(r, first + i, 50);
        if (rb[i] != want) {
            CHECK(0, "%s: element %ld: got %d, expected %d", what, i, rb[i], want);
            break;
        }
    }
    free(counts);
    free(sb);
    free(rb);
}

/* Scan or Exscan of n ints, MPI_SUM (Exscan: rank 0's result is undefined). */
static void run_scan(MPI_Comm comm, const layout_t *l, long n, int in_place, int mode,
                     int exclusive)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int tag = 60 + exclusive;
    int *sb = malloc((size_t)(n ? n : 1) * sizeof(int)), *rb = malloc((size_t)(n ? n : 1) * sizeof(int));
    for (long i = 0; i < n; i++) sb[i] = val(me, i, tag), rb[i] = in_place ? sb[i] : -7;
    const void *s = in_place ? MPI_IN_PLACE : sb;
    int cnt = (int)n;
    char what[96];
    if (exclusive) {
        RUN_MODE(mode, MPI_Exscan(s, rb, cnt, MPI_INT, MPI_SUM, comm),
                 MPI_Iexscan(s, rb, cnt, MPI_INT, MPI_SUM, comm, &rq_),
                 MPI_Exscan_init(s, rb, cnt, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq_));
        what_of(what, sizeof what, "MPI_Exscan", mode, in_place);
    } else {
        RUN_MODE(mode, MPI_Scan(s, rb, cnt, MPI_INT, MPI_SUM, comm),
                 MPI_Iscan(s, rb, cnt, MPI_INT, MPI_SUM, comm, &rq_),
                 MPI_Scan_init(s, rb, cnt, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq_));
        what_of(what, sizeof what, "MPI_Scan", mode, in_place);
    }
    if (n) check_alg2(exclusive ? C_EXSCAN : C_SCAN, l, mode == BLOCKING && l->runs, 1, what);
    for (long i = 0; i < n && !(exclusive && me == 0); i++) {
        int want = 0;
        for (int r = 0; r < (exclusive ? me : me + 1); r++) want += val(r, i, tag);
        if (rb[i] != want) {
            CHECK(0, "%s: element %ld: got %d, expected %d", what, i, rb[i], want);
            break;
        }
    }
    free(sb);
    free(rb);
}

/* Reduce_scatter_block, Scan and Exscan with the non-commutative op: rank
 * order (the hierarchical scans only where nodes are runs of ranks). */
static void run_noncommutative2(MPI_Comm comm, const layout_t *l, long n)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    size_t len = (size_t)p * (size_t)(n ? n : 1) * 16;
    long long *sb = malloc(len), *rb = malloc(len);
    for (long i = 0; i < (long)p * n; i++) sb[2 * i] = (me + i) % 9 + 1, sb[2 * i + 1] = 1;
    for (int c = 0; c < 3; c++) {
        for (size_t i = 0; i < len / 8; i++) rb[i] = -1;
        int from = 0, upto = me + 1;   /* ranks folded */
        long at = 0;                   /* element index of rb[0] in the operands */
        const char *what;
        if (c == 0) {
            CHECK_MPI(MPI_Reduce_scatter_block(sb, rb, (int)n, pair_dt, concat_op, comm));
            what = "MPI_Reduce_scatter_block (non-commutative)";
            if (n) check_alg2(C_REDUCE_SCATTER_BLOCK, l, 0, 1, what);
            upto = p;
            at = (long)me * n;
        } else if (c == 1) {
            CHECK_MPI(MPI_Scan(sb, rb, (int)n, pair_dt, concat_op, comm));
            what = "MPI_Scan (non-commutative)";
            if (n) check_alg2(C_SCAN, l, l->runs, 1, what);
        } else {
            CHECK_MPI(MPI_Exscan(sb, rb, (int)n, pair_dt, concat_op, comm));
            what = "MPI_Exscan (non-commutative)";
            if (n) check_alg2(C_EXSCAN, l, l->runs, 1, what);
            upto = me;
            if (me == 0) continue;
        }
        for (long i = 0; i < n; i++) {
            long long want = 0;
            for (int r = from; r < upto; r++) want = (want * 10 + (r + at + i) % 9 + 1) % 1000000000;
            if (rb[2 * i] != want || rb[2 * i + 1] != upto - from) {
                CHECK(0, "%s: element %ld: got (%lld, %lld), expected (%lld, %d)", what, i,
                      rb[2 * i], rb[2 * i + 1], want, upto - from);
                break;
            }
        }
    }
    free(sb);
    free(rb);
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
        /* the non-blocking and persistent forms up to 64 KiB */
        int modes = sizes[s] <= 65536 ? NMODES : 1;
        for (int m = 0; m < modes; m++)
            for (int ip = 0; ip < 2; ip++) {
                run_alltoall(comm, &l, n, ip, m);
                run_reduce_scatter(comm, &l, n, ip, m, 1);
                run_reduce_scatter(comm, &l, n, ip, m, 0);
                run_scan(comm, &l, n, ip, m, 0);
                run_scan(comm, &l, n, ip, m, 1);
            }
        run_noncommutative2(comm, &l, sizes[s] ? sizes[s] / 64 + 1 : 0);
    }
    run_vector(comm, &l);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    expect = getenv("HIER_TEST_EXPECT");
    const char *maxb = getenv("COURIER_COLL_ALLTOALL_HIER_MAX_BYTES");
    if (maxb) alltoall_hier_max = atol(maxb);
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
