/* SPDX-License-Identifier: MIT */
/* A mix of point-to-point and collective traffic meant for jobs that span
 * hosts (launcher.hosts_mpi runs it over two namespace hosts, where pairs of
 * ranks on different hosts talk through the network transport), and run on
 * one host like any other test: every pair of ranks exchanges messages of
 * sizes on both sides of the eager limits (empty, small, the shared-memory
 * and network eager limits, rendezvous sizes), blocking and non-blocking;
 * messages from one sender keep their order; MPI_ANY_SOURCE receives find
 * every sender; then barrier, bcast, reduce, allreduce, allgather and
 * alltoall of small and large buffers.  Every byte that arrives is checked. */
#include "mpitest.h"

static const int sizes[] = { 0, 1, 100, 8192, 8193, 65536, 65537, 300000, 1 << 20 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* The seed of the message from src to dst of the i-th size. */
static long seed_of(int src, int dst, int i)
{
    return 1000L * src + 37L * dst + i;
}

/* Every pair, every size: blocking MPI_Sendrecv with a partner on each round
 * of a pairing (rank r talks to (k - r) mod n in round k). */
static void pairs_blocking(int rank, int size)
{
    for (int k = 0; k < size; k++) {
        int peer = ((k - rank) % size + size) % size;
        if (peer == rank) continue;
        for (int i = 0; i < NSIZES; i++) {
            size_t n = (size_t)sizes[i];
            unsigned char *out = mt_malloc(n + 1), *in = mt_malloc(n + 1);
            mt_fill(out, n, seed_of(rank, peer, i));
            memset(in, 0xee, n + 1);
            MPI_Status st;
            CHECK_MPI(MPI_Sendrecv(out, (int)n, MPI_BYTE, peer, i, in, (int)n, MPI_BYTE, peer, i,
                                   MPI_COMM_WORLD, &st));
            int count = -1;
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK_INT(count, n);
            CHECK_INT(st.MPI_SOURCE, peer);
            CHECK_PATTERN(in, n, seed_of(peer, rank, i));
            CHECK_INT(in[n], 0xee);
            free(out);
            free(in);
        }
    }
}

/* Every rank sends every size to every other rank at once, non-blocking. */
static void all_nonblocking(int rank, int size)
{
    int nreq = 2 * size * NSIZES, k = 0;
    MPI_Request *req = mt_malloc((size_t)nreq * sizeof *req);
    unsigned char **in = mt_malloc((size_t)size * NSIZES * sizeof *in);
    unsigned char **out = mt_malloc((size_t)size * NSIZES * sizeof *out);
    for (int p = 0; p < size; p++)
        for (int i = 0; i < NSIZES; i++) {
            size_t n = (size_t)sizes[i];
            in[p * NSIZES + i] = mt_malloc(n + 1);
            memset(in[p * NSIZES + i], 0xee, n + 1);
            CHECK_MPI(MPI_Irecv(in[p * NSIZES + i], (int)n, MPI_BYTE, p, 100 + i, MPI_COMM_WORLD,
                                &req[k++]));
        }
    for (int p = 0; p < size; p++)
        for (int i = 0; i < NSIZES; i++) {
            size_t n = (size_t)sizes[i];
            out[p * NSIZES + i] = mt_malloc(n + 1);
            mt_fill(out[p * NSIZES + i], n, seed_of(rank, p, i) + 5);
            CHECK_MPI(MPI_Isend(out[p * NSIZES + i], (int)n, MPI_BYTE, p, 100 + i, MPI_COMM_WORLD,
                                &req[k++]));
        }
    CHECK_MPI(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < NSIZES; i++) {
            size_t n = (size_t)sizes[i];
            CHECK_PATTERN(in[p * NSIZES + i], n, seed_of(p, rank, i) + 5);
            CHECK_INT(in[p * NSIZES + i][n], 0xee);
            free(in[p * NSIZES + i]);
            free(out[p * NSIZES + i]);
        }
    free(in);
    free(out);
    free(req);
}

/* Rank 0 receives from MPI_ANY_SOURCE: every other rank sends all sizes in
 * increasing order with one tag; per sender they must arrive in that order. */
static void any_source_order(int rank, int size)
{
    if (rank != 0) {
        for (int i = 0; i < NSIZES; i++) {
            size_t n = (size_t)sizes[i];
            unsigned char *out = mt_malloc(n + 1);
            mt_fill(out, n, seed_of(rank, 0, i) + 9);
            CHECK_MPI(MPI_Send(out, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD));
            free(out);
        }
        return;
    }
    int *next = calloc((size_t)size, sizeof *next);
    size_t max = (size_t)sizes[NSIZES - 1];
    unsigned char *in = mt_malloc(max);
    for (int m = 0; m < (size - 1) * NSIZES; m++) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(in, (int)max, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st));
        int src = st.MPI_SOURCE, count = -1;
        CHECK(src > 0 && src < size, "source %d", src);
        if (src <= 0 || src >= size) continue;
        MPI_Get_count(&st, MPI_BYTE, &count);
        int i = next[src]++;
        CHECK(i < NSIZES, "message %d from rank %d", i, src);
        if (i >= NSIZES) continue;
        CHECK_INT(count, sizes[i]);
        CHECK_PATTERN(in, (size_t)sizes[i], seed_of(src, 0, i) + 9);
    }
    for (int p = 1; p < size; p++) CHECK_INT(next[p], NSIZES);
    free(next);
    free(in);
}

static void collectives(int rank, int size)
{
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    /* bcast from every root, small and large */
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < NSIZES; i++) {
            size_t n = (size_t)sizes[i];
            unsigned char *buf = mt_malloc(n + 1);
            if (rank == root) mt_fill(buf, n, seed_of(root, root, i) + 11);
            else memset(buf, 0xee, n + 1);
            CHECK_MPI(MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD));
            CHECK_PATTERN(buf, n, seed_of(root, root, i) + 11);
            free(buf);
        }
    }
    /* reduce and allreduce of integers: small and 256 Ki elements */
    const int counts[] = { 1, 7, 1000, 1 << 18 };
    for (int c = 0; c < 4; c++) {
        int n = counts[c];
        int *in = mt_malloc((size_t)n * sizeof(int)), *out = mt_malloc((size_t)n * sizeof(int));
        for (int j = 0; j < n; j++) in[j] = rank * 3 + j % 101;
        long base = 3L * size * (size - 1) / 2;
        CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (int j = 0; j < n; j++)
            if (out[j] != base + (long)size * (j % 101)) {
                CHECK_INT(out[j], base + (long)size * (j % 101));
                break;
            }
        int root = (c + 1) % size;
        memset(out, 0, (size_t)n * sizeof(int));
        CHECK_MPI(MPI_Reduce(in, out, n, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int j = 0; j < n; j++)
                if (out[j] != (size - 1) * 3 + j % 101) {
                    CHECK_INT(out[j], (size - 1) * 3 + j % 101);
                    break;
                }
        free(in);
        free(out);
    }
    /* allgather and alltoall: each block says who sent it to whom */
    const int blocks[] = { 1, 4096, 70000 };
    for (int b = 0; b < 3; b++) {
        int n = blocks[b];
        int *mine = mt_malloc((size_t)n * size * sizeof(int));
        int *all = mt_malloc((size_t)n * size * sizeof(int));
        for (int j = 0; j < n; j++) mine[j] = rank * 100000 + j;
        CHECK_MPI(MPI_Allgather(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD));
        for (int p = 0; p < size; p++)
            for (int j = 0; j < n; j++)
                if (all[p * n + j] != p * 100000 + j) {
                    CHECK_INT(all[p * n + j], p * 100000 + j);
                    p = size;
                    break;
                }
        for (int p = 0; p < size; p++)
            for (int j = 0; j < n; j++) mine[p * n + j] = rank * 1000000 + p * 10000 + j % 10000;
        CHECK_MPI(MPI_Alltoall(mine, n, MPI_INT, all, n, MPI_INT, MPI_COMM_WORLD));
        for (int p = 0; p < size; p++)
            for (int j = 0; j < n; j++)
                if (all[p * n + j] != p * 1000000 + rank * 10000 + j % 10000) {
                    CHECK_INT(all[p * n + j], p * 1000000 + rank * 10000 + j % 10000);
                    p = size;
                    break;
                }
        free(mine);
        free(all);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pairs_blocking(rank, size);
    all_nonblocking(rank, size);
    any_source_order(rank, size);
    collectives(rank, size);
    int rc = mt_finish("net_traffic");
    MPI_Finalize();
    return rc;
}
