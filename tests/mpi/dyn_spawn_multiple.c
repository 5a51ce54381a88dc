/* SPDX-License-Identifier: MIT */
/* MPI_Comm_spawn_multiple with two commands (this program with two different
 * arguments, 1 and 2 processes): the children form one MPI_COMM_WORLD of 3,
 * MPI_APPNUM tells the commands apart, each child gets its own argv, and the
 * children send their world rank, appnum and argument to the parent root. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter;
    MPI_Comm_get_parent(&parent);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (parent != MPI_COMM_NULL) {
        int *appnum = NULL, flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
        int msg[3] = { rank, flag ? *appnum : -1, argc > 1 ? atoi(argv[1]) : -1 };
        CHECK_INT(size, 3);
        CHECK_MPI(MPI_Send(msg, 3, MPI_INT, 0, 5, parent));
        MPI_Comm_disconnect(&parent);
        int e = mt_errors_;
        MPI_Finalize();
        return e ? 1 : 0;
    }
    char *cmds[2] = { argv[0], argv[0] };
    char *a0[] = { "10", NULL }, *a1[] = { "20", NULL };
    char **argvs[2] = { a0, a1 };
    int np[2] = { 1, 2 }, codes[3] = { -1, -1, -1 };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    CHECK_MPI(MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &inter, codes));
    for (int i = 0; i < 3; i++) CHECK_INT(codes[i], MPI_SUCCESS);
    int rsize = 0;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK_INT(rsize, 3);
    if (rank == 0)
        for (int c = 0; c < 3; c++) {
            int msg[3];
            CHECK_MPI(MPI_Recv(msg, 3, MPI_INT, c, 5, inter, MPI_STATUS_IGNORE));
            CHECK_INT(msg[0], c);
            CHECK_INT(msg[1], c == 0 ? 0 : 1);
            CHECK_INT(msg[2], c == 0 ? 10 : 20);
        }
    MPI_Comm_disconnect(&inter);
    int rc = mt_finish("dyn_spawn_multiple");
    MPI_Finalize();
    return rc;
}
