/* SPDX-License-Identifier: MIT */
/* MPI_Allgather and MPI_Allgatherv (and MPI_Allgather_c): counts 0, 1, 7 and
 * past the eager limit, MPI_INT, MPI_DOUBLE, a contiguous and a vector type,
 * MPI_IN_PLACE, differing send/receive types; Allgatherv with per-rank counts
 * (some zero) and displacements with gaps.  Run under
 * COURIER_COLL_ALLGATHER_ALG=1/2. */
#include "coll_common.h"

static int rank, size;

static void allgather_one(const ct_type_t *t, int count, int inplace, int tag)
{
    size_t es = (size_t)t->ext * ct_slot(t);
    void *sbuf = ct_alloc(t, count), *rbuf = ct_alloc(t, (long)count * size);
    ct_fill(t, sbuf, count, rank, 0, tag);
    if (inplace) ct_fill(t, (char *)rbuf + (size_t)rank * count * es, count, rank, 0, tag);
    CHECK_MPI(MPI_Allgather(inplace ? MPI_IN_PLACE : sbuf, count, t->dt, rbuf, count, t->dt,
                            MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CT_CHECK(t, (char *)rbuf + (size_t)i * count * es, count, i, 0, tag,
                 "Allgather count %d inplace %d block %d", count, inplace, i);
    free(sbuf);
    free(rbuf);
}

static int vcount(int count, int i) { return count ? ((count + i) % 3) * (count / 2 + 1) : 0; }

static void allgatherv_one(const ct_type_t *t, int count, int inplace, int tag)
{
    size_t es = (size_t)t->ext * ct_slot(t);
    int *counts = mt_malloc(sizeof(int) * size), *displs = mt_malloc(sizeof(int) * size);
    long total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = vcount(count, i);
        displs[i] = (int)total + 2;
        total += counts[i] + 2;
    }
    void *sbuf = ct_alloc(t, counts[rank]), *rbuf = ct_alloc(t, total);
    ct_fill(t, sbuf, counts[rank], rank, 0, tag);
    if (inplace) ct_fill(t, (char *)rbuf + displs[rank] * es, counts[rank], rank, 0, tag);
    CHECK_MPI(MPI_Allgatherv(inplace ? MPI_IN_PLACE : sbuf, counts[rank], t->dt, rbuf, counts,
                             displs, t->dt, MPI_COMM_WORLD));
    long at = 0;
    for (int i = 0; i < size; i++) {
        CT_UNTOUCHED(t, (char *)rbuf + at * es, displs[i] - at, "Allgatherv gap before %d", i);
        CT_CHECK(t, (char *)rbuf + displs[i] * es, counts[i], i, 0, tag,
                 "Allgatherv count %d inplace %d block %d", count, inplace, i);
        at = displs[i] + counts[i];
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
            for (int inplace = 0; inplace < 2; inplace++) {
                allgather_one(&ct_types[ti], ct_counts[c], inplace, ++tag);
#ifdef MT_REFERENCE_MPICH
                /* MPICH 4.0 on one rank copies the block to recvbuf itself,
                 * ignoring displs[0] */
                if (size == 1) continue;
#endif
                allgatherv_one(&ct_types[ti], ct_counts[c], inplace, ++tag);
            }
    {
        int mine[3] = { rank, rank + 1, rank + 2 }, *all = mt_malloc(sizeof(int) * 3 * size);
        CHECK_MPI(MPI_Allgather(mine, 1, ct_types[CT_CONTIG].dt, all, 3, MPI_INT, MPI_COMM_WORLD));
        for (int i = 0; i < 3 * size; i++) CHECK_INT(all[i], i / 3 + i % 3);
        CHECK_MPI(MPI_Allgather_c(&mine[1], 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
        for (int i = 0; i < size; i++) CHECK_INT(all[i], i + 1);
        free(all);
    }
    /* many back-to-back small ones */
    for (int k = 0; k < 100; k++) {
        int v = rank * 1000 + k, *all = mt_malloc(sizeof(int) * size);
        CHECK_MPI(MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
        for (int i = 0; i < size; i++) CHECK_INT(all[i], i * 1000 + k);
        free(all);
    }
    ct_free_types();
    return mt_finish("coll_allgather") | (MPI_Finalize() != MPI_SUCCESS);
}
