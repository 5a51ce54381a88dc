/* SPDX-License-Identifier: MIT */
/* Long runs of back-to-back all-rank collectives (Barrier, Allreduce,
 * Allgather, Alltoall, Reduce_scatter(_block), Scan, Exscan), as a
 * benchmark loop or an oversubscribed application issues them.  With more
 * ranks than cores (or COURIER_COLL_SHM_MEET=1) Courier's shm algorithms
 * meet at one arrival counter of the communicator's area, the last arrival
 * releasing the others (src/coll/coll_shm.c, cshm_meet); Allreduce's last
 * arrival folds every operand and the others copy its result; Scan and
 * Exscan let the lower ranks run ahead through the rings.  So this
 * checks that no call sees another call's data or release: every call
 * carries data unique to it, sizes move between the control line, the cell
 * and a slot, in place and not, reductions of several kinds (a
 * non-commutative one among them, checked bit for bit), and one rank at a
 * time is made slow so that the last arrival changes.  The barrier is
 * checked through a shared window: after it every rank sees every other's
 * stamp of this round.  Every datum is checked.  Works under any MPI.
 * Argument: rounds (default 60). */
#include <unistd.h>
#include "coll_common.h"

static int rank, size;

/* Element counts that put a rank's data in the line, a cell or a slot. */
static const long counts[] = { 1, 2, 7, 60, 700 };
enum { NCOUNTS = sizeof(counts) / sizeof(counts[0]) };

static void barrier_check(MPI_Win w, volatile int *stamps, int round)
{
    if (!stamps) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        return;
    }
    stamps[rank] = round + 1;
    MPI_Win_sync(w);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Win_sync(w);
    for (int r = 0; r < size; r++)
        CHECK(stamps[r] >= round + 1, "round %d: after the barrier rank %d's stamp is %d", round, r,
              stamps[r]);
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

static void scan(const rd_kind_t *k, long c, long first, int ex)
{
    size_t es = rd_esize(k);
    char *in = mt_malloc(es * (size_t)c), *out = mt_malloc(es * (size_t)c),
         *want = mt_malloc(es * (size_t)c);
    rd_fill(k, in, c, rank, first);
    if (ex) CHECK_MPI(MPI_Exscan(in, out, (int)c, k->dt, k->op, MPI_COMM_WORLD));
    else CHECK_MPI(MPI_Scan(in, out, (int)c, k->dt, k->op, MPI_COMM_WORLD));
    if (!ex || rank > 0) {
        rd_expect(k, want, c, 0, ex ? rank - 1 : rank, first);
        RD_CHECK(k, out, want, c, "%s of %ld, first %ld", ex ? "exscan" : "scan", c, first);
    }
    free(in), free(out), free(want);
}

/* Reduce_scatter with uneven blocks (rank r gets (r + shift) % 3 elements),
 * or Reduce_scatter_block of c each. */
static void reduce_scatter(const rd_kind_t *k, long c, long first, int block, int shift)
{
    size_t es = rd_esize(k);
    int *rc = mt_malloc(sizeof(int) * (size_t)size);
    long total = 0, mine_at = 0;
    for (int r = 0; r < size; r++) {
        rc[r] = block ? (int)c : (r + shift) % 3;
        if (r == rank) mine_at = total;
        total += rc[r];
    }
    long mine = rc[rank];
    char *in = mt_malloc(es * (size_t)total + 1), *out = mt_malloc(es * (size_t)mine + 1),
         *want = mt_malloc(es * (size_t)mine + 1);
    rd_fill(k, in, total, rank, first);
    if (block) CHECK_MPI(MPI_Reduce_scatter_block(in, out, (int)c, k->dt, k->op, MPI_COMM_WORLD));
    else CHECK_MPI(MPI_Reduce_scatter(in, out, rc, k->dt, k->op, MPI_COMM_WORLD));
    rd_expect(k, want, mine, 0, size - 1, first + mine_at);
    RD_CHECK(k, out, want, mine, "reduce_scatter%s, first %ld", block ? "_block" : "", first);
    free(rc), free(in), free(out), free(want);
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
    for (int r = 0; r < size; r++)   /* block r goes to rank r: its data slots count from r * c */
        ct_fill(t, (char *)in + eb * (size_t)r, c, rank, (long)r * c * t->nval, tag);
    CHECK_MPI(MPI_Alltoall(in, (int)c, t->dt, out, (int)c, t->dt, MPI_COMM_WORLD));
    for (int r = 0; r < size; r++)
        CT_CHECK(t, (char *)out + eb * (size_t)r, c, r, (long)rank * c * t->nval, tag,
                 "alltoall of %ld, tag %d", c, tag);
    free(in), free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ct_init_types();
    rd_init_kinds();
    int rounds = argc > 1 ? atoi(argv[1]) : 60;

    /* every rank's stamp, readable by all (when the ranks share a node) */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nsize;
    MPI_Comm_size(node, &nsize);
    MPI_Win win = MPI_WIN_NULL;
    volatile int *stamps = NULL;
    if (nsize == size) {
        int *base;
        CHECK_MPI(MPI_Win_allocate_shared(rank == 0 ? (MPI_Aint)(sizeof(int) * (size_t)size) : 0,
                                          sizeof(int), MPI_INFO_NULL, node, &base, &win));
        MPI_Aint sz;
        int du;
        CHECK_MPI(MPI_Win_shared_query(win, 0, &sz, &du, &base));
        stamps = base;
        CHECK_MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
        stamps[rank] = 0;
        MPI_Win_sync(win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_sync(win);
    }

    for (int i = 0; i < rounds; i++) {
        if (i % 3 == 0 && rank == (i / 3) % size) usleep(200);   /* a late arrival */
        const rd_kind_t *k = &rd_kinds[i % RD_NKINDS];
        const ct_type_t *t = &ct_types[i % CT_NTYPES];
        long c = counts[i % NCOUNTS], first = (long)i * 11;
        barrier_check(win, stamps, i);
        allreduce(k, c, first, (i / 2) % 2);
        allreduce(&rd_kinds[RD_INT_SUM], 2, first + 1, 0);   /* the benchmark's call */
        allgather(t, c > 60 ? 60 : c, i, (i / 2) % 2);
        alltoall(t, c > 7 ? 7 : c, i);
        reduce_scatter(k, c > 60 ? 60 : c, first, i % 2, i);
        scan(k, c, first, i % 2);
        barrier_check(win, stamps, i);
    }

    if (win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }
    MPI_Comm_free(&node);
    rd_free_kinds();
    ct_free_types();
    int rc = mt_finish("coll_shm_meet");
    MPI_Finalize();
    return rc;
}
