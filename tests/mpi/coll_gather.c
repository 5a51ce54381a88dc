/* SPDX-License-Identifier: MIT */
/* MPI_Gather and MPI_Gatherv (and MPI_Gather_c): every root, counts 0, 1, 7
 * and past the eager limit, MPI_INT, MPI_DOUBLE, a contiguous and a vector
 * type (whose holes must stay untouched), MPI_IN_PLACE at the root, and a
 * receive type that differs from the send type (ints received as
 * contiguous(3,int)).  Gatherv uses per-rank counts and displacements with
 * gaps, which must stay untouched.  Values identify sender and position.
 * Run under COURIER_COLL_GATHER_ALG=1/2 to force the algorithms. */
#include "coll_common.h"

static int rank, size;

static void gather_one(const ct_type_t *t, int count, int root, int inplace, int tag)
{
    void *sbuf = ct_alloc(t, count), *rbuf = NULL;
    ct_fill(t, sbuf, count, rank, 0, tag);
    if (rank == root) {
        rbuf = ct_alloc(t, (long)count * size);
        if (inplace) ct_fill(t, (char *)rbuf + (size_t)rank * count * t->ext * ct_slot(t),
                             count, rank, 0, tag);
    }
    const void *s = rank == root && inplace ? MPI_IN_PLACE : sbuf;
    CHECK_MPI(MPI_Gather(s, count, t->dt, rbuf, count, t->dt, root, MPI_COMM_WORLD));
    if (rank == root)
        for (int i = 0; i < size; i++)
            CT_CHECK(t, (char *)rbuf + (size_t)i * count * t->ext * ct_slot(t), count, i, 0, tag,
                     "Gather count %d root %d inplace %d block %d", count, root, inplace, i);
    free(sbuf);
    free(rbuf);
}

/* rank i sends (count + i) % 5 * count/2 + i%2 elements; block i at displs[i] with a gap of i+1 */
static int vcount(int count, int i) { return count ? ((count + i) % 5) * (count / 2 + 1) + i % 2 : 0; }

static void gatherv_one(const ct_type_t *t, int count, int root, int inplace, int tag)
{
    int *counts = mt_malloc(sizeof(int) * size), *displs = mt_malloc(sizeof(int) * size);
    long total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = vcount(count, i);
        displs[i] = (int)total + i + 1;
        total += counts[i] + i + 1;
    }
    void *sbuf = ct_alloc(t, counts[rank]), *rbuf = NULL;
    ct_fill(t, sbuf, counts[rank], rank, 0, tag);
    size_t es = (size_t)t->ext * ct_slot(t);
    if (rank == root) {
        rbuf = ct_alloc(t, total + 1);
        if (inplace) ct_fill(t, (char *)rbuf + displs[rank] * es, counts[rank], rank, 0, tag);
    }
    const void *s = rank == root && inplace ? MPI_IN_PLACE : sbuf;
    CHECK_MPI(MPI_Gatherv(s, counts[rank], t->dt, rbuf, counts, displs, t->dt, root,
                          MPI_COMM_WORLD));
    if (rank == root) {
        long at = 0;
        for (int i = 0; i < size; i++) {
            CT_UNTOUCHED(t, (char *)rbuf + at * es, displs[i] - at, "Gatherv gap before %d", i);
            CT_CHECK(t, (char *)rbuf + displs[i] * es, counts[i], i, 0, tag,
                     "Gatherv count %d root %d inplace %d block %d", count, root, inplace, i);
            at = displs[i] + counts[i];
        }
        CT_UNTOUCHED(t, (char *)rbuf + at * es, total + 1 - at, "Gatherv tail");
    }
    free(sbuf);
    free(rbuf);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ct_init_types();
    int tag = 0;
    for (int ti = 0; ti < CT_NTYPES; ti++)
        for (int c = 0; c < CT_NCOUNTS; c++)
            for (int root = 0; root < size; root++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    gather_one(&ct_types[ti], ct_counts[c], root, inplace, ++tag);
                    gatherv_one(&ct_types[ti], ct_counts[c], root, inplace, ++tag);
                }
    /* different send and receive types: 3 ints each, received as one contiguous(3,int) */
    for (int root = 0; root < size; root++) {
        int mine[3] = { rank * 10, rank * 10 + 1, rank * 10 + 2 }, *all = NULL;
        if (rank == root) all = mt_malloc(sizeof(int) * 3 * size);
        CHECK_MPI(MPI_Gather(mine, 3, MPI_INT, all, 1, ct_types[CT_CONTIG].dt, root, MPI_COMM_WORLD));
        if (rank == root)
            for (int i = 0; i < 3 * size; i++) CHECK_INT(all[i], (i / 3) * 10 + i % 3);
        free(all);
    }
    /* large count form */
    {
        int v = rank + 5, *all = mt_malloc(sizeof(int) * size);
        CHECK_MPI(MPI_Gather_c(&v, 1, MPI_INT, all, 1, MPI_INT, size - 1, MPI_COMM_WORLD));
        if (rank == size - 1)
            for (int i = 0; i < size; i++) CHECK_INT(all[i], i + 5);
        free(all);
    }
    ct_free_types();
    return mt_finish("coll_gather") | (MPI_Finalize() != MPI_SUCCESS);
}
