/* SPDX-License-Identifier: MIT */
/* MPI_Intercomm_merge over a spawned intercommunicator: the parents (high=0)
 * come first, the size % 2 + 1 children after them; an allgather over the
 * merged communicator checks the order and the data, and a second merge with
 * the sides swapped (parents high) puts the children first. */
#include "mpitest.h"

static void check_merged(MPI_Comm merged, int nparents, int nchildren, int parents_first,
                         int am_parent, int myrank)
{
    int size, rank;
    MPI_Comm_size(merged, &size);
    MPI_Comm_rank(merged, &rank);
    CHECK_INT(size, nparents + nchildren);
    int want_rank = am_parent ? (parents_first ? myrank : nchildren + myrank)
                              : (parents_first ? nparents + myrank : myrank);
    CHECK_INT(rank, want_rank);
    int mine = (am_parent ? 100 : 200) + myrank, *all = mt_malloc(sizeof(int) * (size_t)size);
    CHECK_MPI(MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, merged));
    for (int i = 0; i < size; i++) {
        int p = parents_first ? i < nparents : i >= nchildren;
        int idx = parents_first ? (p ? i : i - nparents) : (p ? i - nchildren : i);
        CHECK_INT(all[i], (p ? 100 : 200) + idx);
    }
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter, merged;
    MPI_Comm_get_parent(&parent);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parent != MPI_COMM_NULL) {
        int np;
        MPI_Comm_remote_size(parent, &np);
        CHECK_MPI(MPI_Intercomm_merge(parent, 1, &merged));
        check_merged(merged, np, size, 1, 0, rank);
        MPI_Comm_free(&merged);
        CHECK_MPI(MPI_Intercomm_merge(parent, 0, &merged));
        check_merged(merged, np, size, 0, 0, rank);
        MPI_Comm_free(&merged);
        MPI_Comm_disconnect(&parent);
        int e = mt_errors_;
        MPI_Finalize();
        return e ? 1 : 0;
    }
    int n = size % 2 + 1;
    CHECK_MPI(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             MPI_ERRCODES_IGNORE));
    CHECK_MPI(MPI_Intercomm_merge(inter, 0, &merged));
    check_merged(merged, size, n, 1, 1, rank);
    MPI_Comm_free(&merged);
    CHECK_MPI(MPI_Intercomm_merge(inter, 1, &merged));
    check_merged(merged, size, n, 0, 1, rank);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    int rc = mt_finish("dyn_spawn_merge");
    MPI_Finalize();
    return rc;
}
