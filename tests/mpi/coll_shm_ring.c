/* SPDX-License-Identifier: MIT */
/* Long runs of back-to-back rooted collectives (Bcast, Reduce, Gather,
 * Scatter) without any other synchronisation, as a benchmark loop issues
 * them: on one node the shm algorithms let a root (bcast, scatter) or the
 * contributors (reduce, gather) run many calls ahead of the others through
 * the ring of control lines and cells and the slots of the communicator's
 * area (src/coll/coll_shm.c, COURIER_COLL_SHM_LINES and _CELL_BYTES), so
 * this checks that no call reads data of another: every call carries data
 * unique to the call (its index, the root, the sender), sizes 0, 8 bytes, a
 * cache line, 1 KiB and 64 KiB are mixed in one run (calls through the line,
 * the cell and a slot alternate), the root moves, roots sometimes pass
 * MPI_IN_PLACE, and one rank at a time is made slow (short sleeps) so that
 * the others run ahead until the ring is full.  Every datum is checked.
 * A last run mixes in the all-rank calls (Allreduce, Alltoall,
 * Reduce_scatter_block, Allgather) that end without FIN where ranks do not meet
 * (cshm_post_once): a root running ahead must learn from their next call's
 * post that they are done with its line, cell or slot.
 * Works under any MPI. */
#include <unistd.h>
#include "mpitest.h"

static int rank, size;

enum { NSIZES = 5 };
static const size_t sizes[NSIZES] = { 0, 8, 64, 1024, 65536 };

/* The value of element k of rank r's contribution to reduction call i. */
static int red_in(int r, long i, size_t k)
{
    return r * 1000 + (int)(i % 97) * 7 + (int)(k & 0xff);
}
static int red_sum(long i, size_t k)
{
    return 1000 * (size * (size - 1) / 2) + size * ((int)(i % 97) * 7 + (int)(k & 0xff));
}
/* The pattern seed of rank r's block in call i of a movement collective. */
static long seed_of(long i, int root, int r)
{
    return i * 131 + root * 17 + r * 5 + 3;
}

/* Sometimes this rank dawdles: which rank is slow changes every 64 calls. */
static void maybe_slow(long i)
{
    if ((i / 64) % size == rank && i % 16 == 0) usleep(200);
}

static char *sbuf, *rbuf;

/* Call i of collective `what` with blocks of b bytes, rooted at `root`. */
static void one(const char *what, long i, size_t b, int root)
{
    int in_place = rank == root && i % 7 == 3;
#ifdef MT_REFERENCE_MPICH
    /* MPICH 4.0.2 (ch4:ucx) crashes in such a run of reduces with MPI_IN_PLACE
     * at moving roots (a memcpy from MPI_IN_PLACE's address, -1) */
    if (what[0] == 'r') in_place = 0;
#endif
    maybe_slow(i);
    if (!strcmp(what, "allreduce") || !strcmp(what, "reduce_scatter")) {
        /* reduce_scatter: size blocks of n ints, block r left at rank r */
        int rs = what[0] == 'r';
        size_t n = b / sizeof(int), all = rs ? n * (size_t)size : n, first = rs ? n * (size_t)rank : 0;
        int *in = (int *)sbuf, *out = (int *)rbuf;
        for (size_t k = 0; k < all; k++) in[k] = red_in(rank, i, k);
        memset(rbuf, 0x5a, n * sizeof(int));
        if (rs)
            CHECK_MPI(MPI_Reduce_scatter_block(sbuf, rbuf, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        else
            CHECK_MPI(MPI_Allreduce(sbuf, rbuf, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        for (size_t k = 0; k < n; k++)
            if (out[k] != red_sum(i, first + k)) {
                CHECK(out[k] == red_sum(i, first + k), "%s call %ld elem %zu: %d, want %d", what,
                      i, k, out[k], red_sum(i, first + k));
                break;
            }
    } else if (!strcmp(what, "alltoall")) {   /* block from s to d: seed_of(i, d, s) */
        for (int d = 0; d < size; d++) mt_fill(sbuf + (size_t)d * b, b, seed_of(i, d, rank));
        memset(rbuf, 0x5a, b * (size_t)size);
        CHECK_MPI(MPI_Alltoall(sbuf, (int)b, MPI_BYTE, rbuf, (int)b, MPI_BYTE, MPI_COMM_WORLD));
        for (int r = 0; r < size; r++) CHECK_PATTERN(rbuf + (size_t)r * b, b, seed_of(i, rank, r));
    } else if (!strcmp(what, "allgather")) {   /* rank r's block: seed_of(i, size, r) */
        int all_in_place = i % 7 == 3;   /* every rank or none */
        memset(rbuf, 0x5a, b * (size_t)size);
        if (all_in_place) mt_fill(rbuf + (size_t)rank * b, b, seed_of(i, size, rank));
        else mt_fill(sbuf, b, seed_of(i, size, rank));
        CHECK_MPI(MPI_Allgather(all_in_place ? MPI_IN_PLACE : sbuf, (int)b, MPI_BYTE, rbuf, (int)b,
                                MPI_BYTE, MPI_COMM_WORLD));
        for (int r = 0; r < size; r++) CHECK_PATTERN(rbuf + (size_t)r * b, b, seed_of(i, size, r));
    } else if (what[0] == 'b') {   /* bcast */
        if (rank == root) mt_fill(rbuf, b, seed_of(i, root, root));
        else memset(rbuf, 0x5a, b);
        CHECK_MPI(MPI_Bcast(rbuf, (int)b, MPI_BYTE, root, MPI_COMM_WORLD));
        CHECK_PATTERN(rbuf, b, seed_of(i, root, root));
    } else if (what[0] == 'r') {   /* reduce */
        size_t n = b / sizeof(int);
        int *in = (int *)sbuf, *out = (int *)rbuf;
        for (size_t k = 0; k < n; k++) (in_place ? out : in)[k] = red_in(rank, i, k);
        if (!in_place) memset(rbuf, 0x5a, n * sizeof(int));
        CHECK_MPI(MPI_Reduce(in_place ? MPI_IN_PLACE : sbuf, rbuf, (int)n, MPI_INT, MPI_SUM,
                             root, MPI_COMM_WORLD));
        if (rank == root)
            for (size_t k = 0; k < n; k++)
                if (out[k] != red_sum(i, k)) {
                    CHECK(out[k] == red_sum(i, k), "reduce call %ld root %d elem %zu: %d, want %d",
                          i, root, k, out[k], red_sum(i, k));
                    break;
                }
    } else if (what[0] == 'g') {   /* gather */
        if (rank == root) memset(rbuf, 0x5a, b * (size_t)size);
        if (in_place) mt_fill(rbuf + (size_t)rank * b, b, seed_of(i, root, rank));
        else mt_fill(sbuf, b, seed_of(i, root, rank));
        CHECK_MPI(MPI_Gather(in_place ? MPI_IN_PLACE : sbuf, (int)b, MPI_BYTE, rbuf, (int)b,
                             MPI_BYTE, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int r = 0; r < size; r++) CHECK_PATTERN(rbuf + (size_t)r * b, b, seed_of(i, root, r));
    } else {                       /* scatter */
        if (rank == root)
            for (int r = 0; r < size; r++) mt_fill(sbuf + (size_t)r * b, b, seed_of(i, root, r));
        memset(rbuf, 0x5a, b);
        CHECK_MPI(MPI_Scatter(sbuf, (int)b, MPI_BYTE, in_place ? MPI_IN_PLACE : rbuf, (int)b,
                              MPI_BYTE, root, MPI_COMM_WORLD));
        if (!in_place) CHECK_PATTERN(rbuf, b, seed_of(i, root, rank));
        else CHECK_PATTERN(sbuf + (size_t)rank * b, b, seed_of(i, root, rank));
    }
}

/* iters calls of `what`: the size changes every `size_every` calls (0, 8,
 * 64, 1024 bytes in turn; every 500th call 64 KiB, slow oversubscribed), the
 * root every `root_every` calls.  Only a root that stays for more calls than
 * the ring holds, with data that fit a line or cell, runs that far ahead. */
static void run(const char *what, long iters, long size_every, long root_every)
{
    for (long i = 0; i < iters; i++) {
        size_t b = sizes[(i / size_every) % (NSIZES - 1)];
        if (i % 500 == 499) b = sizes[NSIZES - 1];
        one(what, i, b, (int)((i / root_every) % size));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t maxb = sizes[NSIZES - 1] * (size_t)size;
    sbuf = mt_malloc(maxb);
    rbuf = mt_malloc(maxb);
    /* long runs of one collective: the ring fills; then all four interleaved */
    long iters = size > 4 ? 1200 : 2400;
    const char *colls[] = { "bcast", "reduce", "gather", "scatter" };
    for (int c = 0; c < 4; c++) run(colls[c], iters, 1000, 1200);
    for (int c = 0; c < 4; c++) run(colls[c], iters / 2, 1, 5);
    for (long i = 0; i < iters; i++)
        one(colls[(i + i / 3) % 4], i, i % 40 == 39 ? sizes[NSIZES - 1] : sizes[i % (NSIZES - 1)],
            (int)((i / 3) % size));
    /* each all-rank call without FIN followed by five rooted calls of one
     * root, which runs ahead past the ring (COURIER_COLL_SHM_LINES=4) and
     * must wait in its claim until the slow rank's next post */
    const char *mixed[] = { "allreduce", "alltoall", "reduce_scatter", "allgather" };
    const char *ahead[] = { "bcast", "scatter", "reduce" };
    for (long i = 0; i < iters; i++) {
        long k = i / 6;
        /* (k + k / 4) % 4: each all-rank call meets every size (sizes[k % 4]) */
        one(i % 6 ? ahead[k % 3] : mixed[(k + k / 4) % 4], i,
            i % 50 == 49 ? sizes[NSIZES - 1] : sizes[k % (NSIZES - 1)], (int)(k % size));
    }
    free(sbuf);
    free(rbuf);
    int rc = mt_finish("coll_shm_ring");
    MPI_Finalize();
    return rc;
}
