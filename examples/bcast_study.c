/* SPDX-License-Identifier: MIT */
/* bcast_study: three hand-written broadcasts, checked and then timed against
 * MPI_Bcast over a range of message sizes.
 *   Trivial  the root sends the whole message to every other rank in turn
 *   Tree     binomial tree: in round k every rank that has the data sends it
 *            to the rank 2^k further on (relative to the root)
 *   Buffer   pipelined chain: the message is cut into chunks that travel
 *            root -> root+1 -> ... -> root-1; a rank forwards chunk k while
 *            chunk k+1 is already on its way to it
 * Every algorithm is first run at every message size (and at a few awkward
 * counts, with two different roots) and the data checked on every rank; only
 * then are they timed.  For each size the program prints a table with the
 * messages and data on the critical path, the messages and data of the whole
 * broadcast, the time per broadcast (the slowest rank's) and the bandwidth
 * message-size / time.
 *
 *   mpiexec -n P bcast_study [--quick] [--chunk BYTES] [--root R] [--reps N]
 *
 * --quick uses fewer and smaller sizes and few repetitions (for CI).  The
 * exit status is 0 only if every check passed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_TRIVIAL = 101, TAG_TREE = 102, TAG_CHAIN = 103 };

typedef int (*bcast_fn_t)(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm);

static int chunk_elems = 8192; /* Buffer algorithm: elements per chunk */

/* ---- the three algorithms -------------------------------------------------- */

static int bcast_trivial(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int rank, size, rc = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != root) return MPI_Recv(buf, count, type, root, TAG_TRIVIAL, comm, MPI_STATUS_IGNORE);
    for (int i = 0; i < size && rc == MPI_SUCCESS; i++)
        if (i != root) rc = MPI_Send(buf, count, type, i, TAG_TRIVIAL, comm);
    return rc;
}

static int bcast_tree(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int rank, size, rc = MPI_SUCCESS, mask = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int rel = (rank - root + size) % size; /* rank relative to the root */

    /* receive from the rank that differs in the lowest set bit of rel */
    while (mask < size) {
        if (rel & mask) {
            int src = (rel - mask + root) % size;
            rc = MPI_Recv(buf, count, type, src, TAG_TREE, comm, MPI_STATUS_IGNORE);
            break;
        }
        mask <<= 1;
    }
    /* then send to rel + mask for every lower bit, largest subtree first */
    for (mask >>= 1; mask > 0 && rc == MPI_SUCCESS; mask >>= 1)
        if (rel + mask < size)
            rc = MPI_Send(buf, count, type, (rel + mask + root) % size, TAG_TREE, comm);
    return rc;
}

static int bcast_chain(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int rank, size, rc = MPI_SUCCESS;
    MPI_Aint lb, extent;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Type_get_extent(type, &lb, &extent);
    int rel = (rank - root + size) % size;
    int prev = (rank - 1 + size) % size, next = (rank + 1) % size;
    int nchunks = (count + chunk_elems - 1) / chunk_elems;
    char *p = buf;

#define CHUNK_PTR(k) (p + (MPI_Aint)(k) * chunk_elems * extent)
#define CHUNK_LEN(k) ((k) == nchunks - 1 ? count - (k) * chunk_elems : chunk_elems)
    if (rel > 0 && nchunks > 0)
        rc = MPI_Irecv(CHUNK_PTR(0), CHUNK_LEN(0), type, prev, TAG_CHAIN, comm, &req);
    for (int k = 0; k < nchunks && rc == MPI_SUCCESS; k++) {
        if (rel > 0) {
            rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS && k + 1 < nchunks) /* the next chunk may arrive meanwhile */
                rc = MPI_Irecv(CHUNK_PTR(k + 1), CHUNK_LEN(k + 1), type, prev, TAG_CHAIN, comm,
                               &req);
        }
        if (rc == MPI_SUCCESS && rel < size - 1)
            rc = MPI_Send(CHUNK_PTR(k), CHUNK_LEN(k), type, next, TAG_CHAIN, comm);
    }
#undef CHUNK_PTR
#undef CHUNK_LEN
    return rc;
}

static const struct {
    const char *name;
    bcast_fn_t fn;
} algs[] = {
    {"Trivial", bcast_trivial},
    {"Tree", bcast_tree},
    {"Buffer", bcast_chain},
    {"MPI_Bcast", MPI_Bcast},
};
enum { NALGS = sizeof algs / sizeof algs[0] };

/* ---- message and data counts of each algorithm ---------------------------- */

static int ceil_log2(int p)
{
    int k = 0;
    while ((1 << k) < p) k++;
    return k;
}

/* "1000B", "16KiB", "4MiB": exact when the size is a multiple of the unit */
static void fmt_bytes(char *out, size_t len, long long b)
{
    if (b >= 1048576 && b % 1048576 == 0) snprintf(out, len, "%lldMiB", b / 1048576);
    else if (b >= 1024 && b % 1024 == 0) snprintf(out, len, "%lldKiB", b / 1024);
    else snprintf(out, len, "%lldB", b);
}

/* an amount of data as "k*<message size>" when it is a multiple of it */
static void fmt_amount(char *out, size_t len, long long amount, long long msg)
{
    char unit[32];
    if (msg > 0 && amount % msg == 0) {
        fmt_bytes(unit, sizeof unit, msg);
        snprintf(out, len, "%lld*%s", amount / msg, unit);
    } else {
        fmt_bytes(out, len, amount);
    }
}

/* messages and bytes on the critical path and in the whole broadcast */
static void alg_cost(int a, int p, int count, long long *crit_msgs, long long *crit_bytes,
                     long long *all_msgs, long long *all_bytes)
{
    long long n = (long long)count * (long long)sizeof(double);
    long long nchunks = (count + chunk_elems - 1) / chunk_elems;
    long long first = (count < chunk_elems ? count : chunk_elems) * (long long)sizeof(double);
    switch (a) {
    case 0: /* Trivial: the root's p-1 sends are one after the other */
        *crit_msgs = p - 1, *crit_bytes = (p - 1) * n, *all_msgs = p - 1, *all_bytes = (p - 1) * n;
        break;
    case 1: /* Tree: one message per round, ceil(log2 p) rounds */
        *crit_msgs = ceil_log2(p), *crit_bytes = ceil_log2(p) * n;
        *all_msgs = p - 1, *all_bytes = (p - 1) * n;
        break;
    case 2: /* Buffer: all chunks into rank 1, then the last one down p-2 more links */
        *crit_msgs = p > 1 && nchunks > 0 ? nchunks + p - 2 : 0;
        *crit_bytes = p > 1 ? n + (p - 2) * first : 0;
        *all_msgs = (p - 1) * nchunks, *all_bytes = (p - 1) * n;
        break;
    default: /* MPI_Bcast: the library chooses, we cannot see it */
        *crit_msgs = *crit_bytes = *all_msgs = *all_bytes = -1;
    }
}

/* ---- checking ------------------------------------------------------------- */

static double pattern(int i, int count, int root)
{
    return (double)((i * 7L + count * 13L + root) % 1000003L) + 0.25;
}

/* Run algorithm a once on count doubles from root; return the number of
 * wrong elements summed over all ranks (0: correct everywhere). */
static long check_one(int a, double *buf, int count, int root, MPI_Comm comm)
{
    int rank;
    long bad = 0, bad_all = 0;
    MPI_Comm_rank(comm, &rank);
    for (int i = 0; i < count; i++) buf[i] = rank == root ? pattern(i, count, root) : -1.0;
    if (algs[a].fn(buf, count, MPI_DOUBLE, root, comm) != MPI_SUCCESS) bad = count + 1;
    for (int i = 0; i < count && bad == 0; i++)
        if (buf[i] != pattern(i, count, root)) bad++;
    if (bad)
        fprintf(stderr, "bcast_study: %s from root %d, %d doubles: rank %d has %ld wrong values\n",
                algs[a].name, root, count, rank, bad);
    MPI_Allreduce(&bad, &bad_all, 1, MPI_LONG, MPI_SUM, comm);
    return bad_all;
}

/* ---- timing --------------------------------------------------------------- */

/* Seconds per broadcast, the slowest rank's, valid on rank 0. */
static double time_one(int a, double *buf, int count, int root, int reps, MPI_Comm comm)
{
    double t, tmax = 0.0;
    algs[a].fn(buf, count, MPI_DOUBLE, root, comm); /* warm-up */
    MPI_Barrier(comm);
    t = MPI_Wtime();
    for (int r = 0; r < reps; r++) algs[a].fn(buf, count, MPI_DOUBLE, root, comm);
    t = (MPI_Wtime() - t) / reps;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    return tmax;
}

static void usage(void)
{
    fprintf(stderr, "usage: bcast_study [--quick] [--chunk BYTES] [--root R] [--reps N]\n");
}

int main(int argc, char **argv)
{
    static const int full_counts[] = {1, 8, 64, 512, 2048, 8192, 32768, 131072, 524288};
    static const int quick_counts[] = {1, 64, 2048, 65536};
    int rank, size, quick = 0, root = 0, reps_opt = 0;
    long chunk_bytes = 65536;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--chunk") && i + 1 < argc) chunk_bytes = atol(argv[++i]);
        else if (!strcmp(argv[i], "--root") && i + 1 < argc) root = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps_opt = atoi(argv[++i]);
        else {
            if (rank == 0) usage();
            MPI_Finalize();
            return 2;
        }
    }
    if (chunk_bytes < (long)sizeof(double) || root < 0 || root >= size || reps_opt < 0) {
        if (rank == 0) fprintf(stderr, "bcast_study: bad --chunk, --root or --reps\n");
        MPI_Finalize();
        return 2;
    }
    chunk_elems = (int)(chunk_bytes / (long)sizeof(double));

    const int *counts = quick ? quick_counts : full_counts;
    int ncounts = quick ? (int)(sizeof quick_counts / sizeof *quick_counts)
                        : (int)(sizeof full_counts / sizeof *full_counts);
    int max_count = counts[ncounts - 1];
    if (max_count < 3 * chunk_elems + 7) max_count = 3 * chunk_elems + 7;
    double *buf = malloc((size_t)max_count * sizeof(double));
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);

    if (rank == 0)
        printf("bcast_study: %d processes, root %d, Buffer chunk %ld bytes (%d doubles)%s\n", size,
               root, (long)chunk_elems * (long)sizeof(double), chunk_elems,
               quick ? ", quick mode" : "");

    /* 1. check: every size, plus counts around the chunk size, from two roots */
    int extra[] = {0, 3, chunk_elems - 1, chunk_elems + 1, 3 * chunk_elems + 7};
    int roots[2] = {root, (root + size - 1) % size};
    int nroots = size > 1 ? 2 : 1, failed = 0;
    for (int a = 0; a < NALGS; a++) {
        int checks = 0;
        long bad = 0;
        for (int r = 0; r < nroots; r++) {
            for (int c = 0; c < ncounts; c++, checks++)
                bad += check_one(a, buf, counts[c], roots[r], MPI_COMM_WORLD);
            for (int c = 0; c < (int)(sizeof extra / sizeof *extra); c++, checks++)
                bad += check_one(a, buf, extra[c], roots[r], MPI_COMM_WORLD);
        }
        if (rank == 0)
            printf("verify %-9s %s (%d broadcasts, data compared on every rank)\n", algs[a].name,
                   bad ? "FAILED" : "ok", checks);
        failed |= bad != 0;
    }
    if (failed) {
        if (rank == 0) printf("bcast_study: verification FAILED, no timings\n");
        free(buf);
        MPI_Finalize();
        return 1;
    }

    /* 2. time: one table per message size */
    double times[sizeof full_counts / sizeof *full_counts][NALGS];
    for (int c = 0; c < ncounts; c++) {
        int count = counts[c];
        long long n = (long long)count * (long long)sizeof(double);
        int reps = reps_opt;
        if (reps == 0) { /* about 4 MiB (quick: 256 KiB) moved per algorithm, within bounds */
            long long budget = quick ? 262144 : 4194304;
            reps = (int)(budget / n);
            if (reps < (quick ? 2 : 5)) reps = quick ? 2 : 5;
            if (reps > (quick ? 20 : 200)) reps = quick ? 20 : 200;
        }
        char nstr[32];
        fmt_bytes(nstr, sizeof nstr, n);
        if (rank == 0) {
            printf("\nn = %d doubles (%s), %d repetitions\n", count, nstr, reps);
            printf("%-10s %-8s %-13s %-13s %-10s %-13s %-12s %s\n", "Topology", "NUM_PROC",
                   "CritPath-Msgs", "CritPath-Data", "Bcast-Msgs", "Bcast-Data", "Time[s]",
                   "MB/s");
        }
        for (int a = 0; a < NALGS; a++) {
            times[c][a] = time_one(a, buf, count, root, reps, MPI_COMM_WORLD);
            if (rank != 0) continue;
            long long cm, cb, am, ab;
            char s_cm[32], s_cb[48], s_am[32], s_ab[48];
            alg_cost(a, size, count, &cm, &cb, &am, &ab);
            if (cm < 0) {
                strcpy(s_cm, "unknown"), strcpy(s_cb, "unknown");
                strcpy(s_am, "unknown"), strcpy(s_ab, "unknown");
            } else {
                snprintf(s_cm, sizeof s_cm, "%lld", cm);
                snprintf(s_am, sizeof s_am, "%lld", am);
                fmt_amount(s_cb, sizeof s_cb, cb, n);
                fmt_amount(s_ab, sizeof s_ab, ab, n);
            }
            printf("%-10s %-8d %-13s %-13s %-10s %-13s %-12.6g %.1f\n", algs[a].name, size, s_cm,
                   s_cb, s_am, s_ab, times[c][a], times[c][a] > 0 ? n / times[c][a] / 1e6 : 0.0);
        }
    }

    /* 3. summary: seconds per broadcast, one row per size (for plotting) */
    if (rank == 0) {
        printf("\nsummary: seconds per broadcast, %d processes\n%-10s", size, "bytes");
        for (int a = 0; a < NALGS; a++) printf(" %-12s", algs[a].name);
        printf("\n");
        for (int c = 0; c < ncounts; c++) {
            printf("%-10lld", (long long)counts[c] * (long long)sizeof(double));
            for (int a = 0; a < NALGS; a++) printf(" %-12.6g", times[c][a]);
            printf("\n");
        }
        printf("bcast_study: all algorithms verified\n");
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
