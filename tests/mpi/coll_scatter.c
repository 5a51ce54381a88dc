/* SPDX-License-Identifier: MIT */
/* MPI_Scatter and MPI_Scatterv (and MPI_Scatter_c): every root, counts 0, 1,
 * 7 and past the eager limit, MPI_INT, MPI_DOUBLE, a contiguous and a vector
 * type, MPI_IN_PLACE at the root (its receive block stays where it is), and
 * send/receive types that differ.  Scatterv uses per-rank counts and
 * displacements with gaps.  Run under COURIER_COLL_SCATTER_ALG=1/2. */
#include "coll_common.h"

static int rank, size;

static void scatter_one(const ct_type_t *t, int count, int root, int inplace, int tag)
{
    size_t es = (size_t)t->ext * ct_slot(t);
    void *sbuf = NULL, *rbuf = ct_alloc(t, count);
    if (rank == root) {
        sbuf = ct_alloc(t, (long)count * size);
        for (int i = 0; i < size; i++) ct_fill(t, (char *)sbuf + (size_t)i * count * es, count, i, 0, tag);
    }
    void *r = rank == root && inplace ? MPI_IN_PLACE : rbuf;
    CHECK_MPI(MPI_Scatter(sbuf, count, t->dt, r, count, t->dt, root, MPI_COMM_WORLD));
    if (rank == root && inplace) {
        CT_UNTOUCHED(t, rbuf, count, "Scatter in place: recvbuf must stay alone");
        CT_CHECK(t, (char *)sbuf + (size_t)rank * count * es, count, rank, 0, tag, "Scatter in place own block");
    } else {
        CT_CHECK(t, rbuf, count, rank, 0, tag, "Scatter count %d root %d", count, root);
    }
    free(sbuf);
    free(rbuf);
}

static int vcount(int count, int i) { return count ? ((count + i) % 5) * (count / 2 + 1) + i % 2 : 0; }

static void scatterv_one(const ct_type_t *t, int count, int root, int inplace, int tag)
{
    size_t es = (size_t)t->ext * ct_slot(t);
    int *counts = mt_malloc(sizeof(int) * size), *displs = mt_malloc(sizeof(int) * size);
    long total = 0;
    for (int i = 0; i < size; i++) {
        /* blocks in reverse rank order, with gaps */
        int j = size - 1 - i;
        counts[j] = vcount(count, j);
        displs[j] = (int)total + 1;
        total += counts[j] + 1;
    }
    void *sbuf = NULL, *rbuf = ct_alloc(t, counts[rank]);
    if (rank == root) {
        sbuf = ct_alloc(t, total);
        for (int i = 0; i < size; i++) ct_fill(t, (char *)sbuf + displs[i] * es, counts[i], i, 0, tag);
    }
    void *r = rank == root && inplace ? MPI_IN_PLACE : rbuf;
    CHECK_MPI(MPI_Scatterv(sbuf, counts, displs, t->dt, r, counts[rank], t->dt, root, MPI_COMM_WORLD));
    if (rank == root && inplace) CT_UNTOUCHED(t, rbuf, counts[rank], "Scatterv in place");
    else CT_CHECK(t, rbuf, counts[rank], rank, 0, tag, "Scatterv count %d root %d", count, root);
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
                    scatter_one(&ct_types[ti], ct_counts[c], root, inplace, ++tag);
                    scatterv_one(&ct_types[ti], ct_counts[c], root, inplace, ++tag);
                }
    /* one contiguous(3,int) per rank, received as 3 ints */
    for (int root = 0; root < size; root++) {
        int *all = NULL, mine[3] = { -1, -1, -1 };
        if (rank == root) {
            all = mt_malloc(sizeof(int) * 3 * size);
            for (int i = 0; i < 3 * size; i++) all[i] = i * 3 + root;
        }
        CHECK_MPI(MPI_Scatter(all, 1, ct_types[CT_CONTIG].dt, mine, 3, MPI_INT, root, MPI_COMM_WORLD));
        for (int k = 0; k < 3; k++) CHECK_INT(mine[k], (rank * 3 + k) * 3 + root);
        free(all);
    }
    {
        int *all = mt_malloc(sizeof(int) * size), v = -1;
        for (int i = 0; i < size; i++) all[i] = 100 + i;
        CHECK_MPI(MPI_Scatter_c(all, 1, MPI_INT, &v, 1, MPI_INT, 0, MPI_COMM_WORLD));
        CHECK_INT(v, 100 + rank);
        free(all);
    }
    ct_free_types();
    return mt_finish("coll_scatter") | (MPI_Finalize() != MPI_SUCCESS);
}
