/* SPDX-License-Identifier: MIT */
/* Long runs of back-to-back single-copy collectives (Bcast, Scatter, Gather,
 * Allgather, Alltoall, Alltoallv, Reduce, Allreduce, Reduce_scatter(_block)),
 * as an oversubscribed benchmark loop issues them.  With more ranks than
 * cores (or COURIER_COLL_SHM_MEET=1) Courier's cma algorithms end their calls
 * in meetings (src/coll/coll_shm.c, cshm_fin_all) and the roots of the
 * rooted ones wait on one count of their own control line that the last
 * reader completes (cshm_wait_done): so this checks that no call sees another
 * call's count or release and that no root lets its buffer go while a
 * reader still copies it.  Every call carries data unique to it, roots move,
 * in place and not, a datatype with holes (packed by the root), five kinds of
 * reduction (one not commutative, checked bit for bit), small shared-memory
 * scans and barriers in between (the scans let ranks run ahead through the
 * rings; the barriers meet at the same counter), and one rank at
 * a time is made slow so that the last arrival changes.  Every datum is
 * checked.  Works under any MPI.  Argument: rounds (default 40). */
#include <unistd.h>
#include "coll_common.h"

static int rank, size;

/* Element counts: one, odd, a few lines, a chunk of a single copy. */
static const long counts[] = { 1, 5, 40, 300, 2500 };
enum { NCOUNTS = sizeof(counts) / sizeof(counts[0]) };

static void bcast(const ct_type_t *t, long c, int root, int tag)
{
    void *b = ct_alloc(t, c);
    if (rank == root) ct_fill(t, b, c, root, 0, tag);
    CHECK_MPI(MPI_Bcast(b, (int)c, t->dt, root, MPI_COMM_WORLD));
    CT_CHECK(t, b, c, root, 0, tag, "bcast of %ld from %d, tag %d", c, root, tag);
    free(b);
}

static void scatter(const ct_type_t *t, long c, int root, int tag, int in_place)
{
    size_t eb = ct_bytes(t, c);
    void *all = rank == root ? ct_alloc(t, c * size) : NULL, *mine = ct_alloc(t, c);
    if (rank == root)
        for (int r = 0; r < size; r++) ct_fill(t, (char *)all + eb * (size_t)r, c, r, 0, tag);
    int ip = in_place && rank == root;
    CHECK_MPI(MPI_Scatter(all, (int)c, t->dt, ip ? MPI_IN_PLACE : mine, (int)c, t->dt, root,
                          MPI_COMM_WORLD));
    if (ip) CT_CHECK(t, (char *)all + eb * (size_t)rank, c, rank, 0, tag, "scatter in place");
    else CT_CHECK(t, mine, c, rank, 0, tag, "scatter of %ld from %d, tag %d", c, root, tag);
    free(all), free(mine);
}

static void gather(const ct_type_t *t, long c, int root, int tag, int in_place)
{
    size_t eb = ct_bytes(t, c);
    void *all = rank == root ? ct_alloc(t, c * size) : NULL, *mine = ct_alloc(t, c);
    int ip = in_place && rank == root;
    if (ip) ct_fill(t, (char *)all + eb * (size_t)rank, c, rank, 0, tag);
    else ct_fill(t, mine, c, rank, 0, tag);
    CHECK_MPI(MPI_Gather(ip ? MPI_IN_PLACE : mine, (int)c, t->dt, all, (int)c, t->dt, root,
                         MPI_COMM_WORLD));
    if (rank == root)
        for (int r = 0; r < size; r++)
            CT_CHECK(t, (char *)all + eb * (size_t)r, c, r, 0, tag, "gather of %ld to %d, tag %d",
                     c, root, tag);
    free(all), free(mine);
}

static void allgather(const ct_type_t *t, long c, int tag, int in_place)
{
    void *in = ct_alloc(t, c), *out = ct_alloc(t, c * size);
    size_t eb = ct_bytes(t, c);
    if (in_place) ct_fill(t, (char *)out + eb * (size_t)rank, c, rank, 0, tag);
    else ct_fill(t, in, c, rank, 0, tag);
    CHECK_MPI(MPI_Allgather(in_place ? MPI_IN_PLACE : in, (int)c, t->dt, out, (int)c, t->dt,
                            MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        CT_CHECK(t, (char *)out + eb * (size_t)r, c, r, 0, tag, "allgather of %ld, tag %d", c, tag);
    free(in), free(out);
}

static void alltoall(const ct_type_t *t, long c, int tag)
{
    void *in = ct_alloc(t, c * size), *out = ct_alloc(t, c * size);
    size_t eb = ct_bytes(t, c);
    for (int r = 0; r < size; r++)   /* block r goes to rank r */
        ct_fill(t, (char *)in + eb * (size_t)r, c, rank, (long)r * c * t->nval, tag);
    CHECK_MPI(MPI_Alltoall(in, (int)c, t->dt, out, (int)c, t->dt, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        CT_CHECK(t, (char *)out + eb * (size_t)r, c, r, (long)rank * c * t->nval, tag,
                 "alltoall of %ld, tag %d", c, tag);
    free(in), free(out);
}

/* Alltoallv of ints: rank s sends rank d (s + d + shift) % 4 * c elements. */
static int a2av_n(int s, int d, long c, int shift) { return (int)((s + d + shift) % 4 * c); }
static void alltoallv(long c, int tag)
{
    int *sc = mt_malloc(sizeof(int) * (size_t)size), *sd = mt_malloc(sizeof(int) * (size_t)size);
    int *rc = mt_malloc(sizeof(int) * (size_t)size), *rd = mt_malloc(sizeof(int) * (size_t)size);
    int st = 0, rt = 0;
    for (int r = 0; r < size; r++) {
        sc[r] = a2av_n(rank, r, c, tag), sd[r] = st, st += sc[r];
        rc[r] = a2av_n(r, rank, c, tag), rd[r] = rt, rt += rc[r];
    }
    int *in = mt_malloc(sizeof(int) * (size_t)(st + 1));
    int *out = mt_malloc(sizeof(int) * (size_t)(rt + 1));
    for (int r = 0; r < size; r++)
        for (int k = 0; k < sc[r]; k++)
            in[sd[r] + k] = (int)ct_val(rank, (long)r * 100000 + k, tag);
    memset(out, 0xff, sizeof(int) * (size_t)(rt + 1));
    CHECK_MPI(MPI_Alltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        for (int k = 0; k < rc[r]; k++)
            CHECK(out[rd[r] + k] == (int)ct_val(r, (long)rank * 100000 + k, tag),
                  "alltoallv: element %d from rank %d is %d, tag %d", k, r, out[rd[r] + k], tag);
    free(sc), free(sd), free(rc), free(rd), free(in), free(out);
}

static void reduce(const rd_kind_t *k, long c, long first, int root, int in_place)
{
    size_t es = rd_esize(k);
    char *in = mt_malloc(es * (size_t)c), *out = mt_malloc(es * (size_t)c),
         *want = mt_malloc(es * (size_t)c);
    int ip = in_place && rank == root;
    rd_fill(k, ip ? out : in, c, rank, first);
    CHECK_MPI(MPI_Reduce(ip ? MPI_IN_PLACE : in, out, (int)c, k->dt, k->op, root, MPI_COMM_WORLD));
    if (rank == root) {
        rd_expect(k, want, c, 0, size - 1, first);
        RD_CHECK(k, out, want, c, "reduce of %ld to %d, first %ld", c, root, first);
    }
    free(in), free(out), free(want);
}

static void allreduce(const rd_kind_t *k, long c, long first, int in_place)
{
    size_t es = rd_esize(k);
    char *in = mt_malloc(es * (size_t)c), *out = mt_malloc(es * (size_t)c),
         *want = mt_malloc(es * (size_t)c);
    rd_fill(k, in_place ? out : in, c, rank, first);
    CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, (int)c, k->dt, k->op, MPI_COMM_WORLD));
    rd_expect(k, want, c, 0, size - 1, first);
    RD_CHECK(k, out, want, c, "allreduce of %ld, first %ld, in place %d", c, first, in_place);
    free(in), free(out), free(want);
}

/* Reduce_scatter with uneven blocks (rank r gets (r + shift) % 3 * c elements),
 * or Reduce_scatter_block of c each; in place or not. */
static void reduce_scatter(const rd_kind_t *k, long c, long first, int block, int shift,
                           int in_place)
{
    size_t es = rd_esize(k);
    int *rc = mt_malloc(sizeof(int) * (size_t)size);
    long total = 0, mine_at = 0;
    for (int r = 0; r < size; r++) {
        rc[r] = block ? (int)c : (int)((r + shift) % 3 * c);
        if (r == rank) mine_at = total;
        total += rc[r];
    }
    long mine = rc[rank];
    char *in = mt_malloc(es * (size_t)total + 1), *out = mt_malloc(es * (size_t)total + 1);
    char *want = mt_malloc(es * (size_t)mine + 1);
    rd_fill(k, in_place ? out : in, total, rank, first);
    const void *s = in_place ? MPI_IN_PLACE : in;
    if (block) CHECK_MPI(MPI_Reduce_scatter_block(s, out, (int)c, k->dt, k->op, MPI_COMM_WORLD));
    else CHECK_MPI(MPI_Reduce_scatter(s, out, rc, k->dt, k->op, MPI_COMM_WORLD));
    rd_expect(k, want, mine, 0, size - 1, first + mine_at);
    RD_CHECK(k, out, want, mine, "reduce_scatter%s, first %ld, in place %d", block ? "_block" : "",
             first, in_place);
    free(rc), free(in), free(out), free(want);
}

/* A Scan of two ints (not forced to single copy: the shm chain or fold). */
static void small_scan(int tag)
{
    int in[2] = { rank + tag, 1 }, out[2] = { -1, -1 };
    CHECK_MPI(MPI_Scan(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(out[0] == rank * (rank + 1) / 2 + (rank + 1) * tag && out[1] == rank + 1,
          "scan, tag %d: got %d %d", tag, out[0], out[1]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ct_init_types();
    rd_init_kinds();
    int rounds = argc > 1 ? atoi(argv[1]) : 40;

    for (int i = 0; i < rounds; i++) {
        if (i % 2 == 0 && rank == (i / 2) % size) usleep(200);   /* a late arrival */
        const rd_kind_t *k = &rd_kinds[i % RD_NKINDS];
        const ct_type_t *t = &ct_types[i % CT_NTYPES];
        long c = counts[i % NCOUNTS], first = (long)i * 11;
        int root = (i * 7 + 3) % size, ip = (i / 2) % 2;
        bcast(t, c, root, i);
        small_scan(i);   /* shared memory's scan: lower ranks run ahead through the rings */
        if (i % 4 == 3) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        scatter(t, c, root, i, ip);
        gather(t, c, (root + 1) % size, i, ip);
        allgather(t, c, i, ip);
        alltoall(t, c > 300 ? 300 : c, i);
        alltoallv(c > 300 ? 300 : c, i);
        reduce(k, c, first, root, ip);
        allreduce(k, c, first, ip);
        reduce_scatter(k, c > 300 ? 300 : c, first, i % 2, i, ip);
    }

    rd_free_kinds();
    ct_free_types();
    int rc = mt_finish("coll_cma_meet");
    MPI_Finalize();
    return rc;
}
