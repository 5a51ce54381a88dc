/* SPDX-License-Identifier: MIT */
/* MPI_Finalize first deletes the attributes of MPI_COMM_SELF, in the reverse
 * order of setting, while MPI is still usable (MPI_Finalized gives false and
 * MPI calls work inside the callbacks).  Checked after MPI_Finalize; each rank
 * exits non-zero on a wrong order and rank 0 prints the PASS line. */
#include "mpitest.h"

static int order[8], norder, finalized_inside = -1, rank_inside = -1;

static int delete_cb(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)key, (void)extra;
    if (norder < 8) order[norder++] = (int)(intptr_t)val;
    int fin = -1, r = -1;
    MPI_Finalized(&fin);
    if (finalized_inside != 1) finalized_inside = fin;
    if (MPI_Comm_rank(comm, &r) == MPI_SUCCESS && r == 0 && comm == MPI_COMM_SELF) rank_inside = r;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int k[3], rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 3; i++)
        CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &k[i], NULL));
    /* set in the order k1, k0, k2 (values name the order of setting) */
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, k[1], (void *)(intptr_t)1));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, k[0], (void *)(intptr_t)2));
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, k[2], (void *)(intptr_t)3));
    /* the keyvals may be freed: the attributes keep them */
    for (int i = 0; i < 3; i++) CHECK_MPI(MPI_Comm_free_keyval(&k[i]));
    CHECK_INT(norder, 0);
    if (mt_finish("attr_finalize (before MPI_Finalize)") != 0) {
        MPI_Finalize();
        return 1;
    }
    MPI_Finalize();
    int ok = norder == 3 && order[0] == 3 && order[1] == 2 && order[2] == 1 &&
             finalized_inside == 0 && rank_inside == 0;
    if (!ok) {
        fprintf(stderr, "FAIL rank %d: %d callbacks, order %d %d %d (want 3 2 1), "
                "MPI_Finalized inside %d, MPI_Comm_rank inside %d\n", rank, norder, order[0],
                order[1], order[2], finalized_inside, rank_inside);
        return 1;
    }
    if (rank == 0) printf("PASS attr_finalize\n");
    return 0;
}
