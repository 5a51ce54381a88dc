/* SPDX-License-Identifier: MIT */
/* MPI_Comm_spawn: the parents (any number) spawn (size % 3) + 1 copies of this
 * program with arguments; data goes both ways over the intercommunicator
 * (point-to-point from every parent to a child and back, a broadcast from the
 * parent root, an allreduce over both groups), and every side checks it.
 * The children see their own MPI_COMM_WORLD and MPI_Comm_get_parent. */
#include "mpitest.h"

static void child(int argc, char **argv, MPI_Comm parent)
{
    int rank, size, psize;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_remote_size(parent, &psize);
    CHECK(argc == 3 && !strcmp(argv[1], "child"), "argv[1] is %s", argc > 1 ? argv[1] : "(none)");
    if (argc == 3) CHECK_INT(atoi(argv[2]), size);
    int inter = 0;
    MPI_Comm_test_inter(parent, &inter);
    CHECK_INT(inter, 1);
    /* from every parent p with p % size == rank: 64 ints */
    for (int p = rank; p < psize; p += size) {
        int buf[64];
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, 64, MPI_INT, p, 7, parent, &st));
        CHECK_INT(st.MPI_SOURCE, p);
        for (int i = 0; i < 64; i++) CHECK_INT(buf[i], p * 1000 + rank * 100 + i);
        for (int i = 0; i < 64; i++) buf[i] = -(p * 1000 + rank * 100 + i);
        CHECK_MPI(MPI_Send(buf, 64, MPI_INT, p, 8, parent));
    }
    /* a large message (rendezvous over the network) from parent 0 to child 0 */
    if (rank == 0) {
        size_t n = 1 << 20;
        char *big = mt_malloc(n);
        CHECK_MPI(MPI_Recv(big, (int)n, MPI_CHAR, 0, 9, parent, MPI_STATUS_IGNORE));
        CHECK_PATTERN(big, n, 42);
        free(big);
    }
    int b = 0;
    CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, 0, parent));
    CHECK_INT(b, 4711);
    int mine = 1000 + rank, sum = 0;
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, parent));
    CHECK_INT(sum, psize * (psize - 1) / 2);   /* the parents' ranks */
    int errs = 0, mine_err = 0;
    /* report through the parents: they print the verdict */
    mine_err = 0;
    CHECK_MPI(MPI_Allreduce(&mine_err, &errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Comm_disconnect(&parent));
    CHECK(parent == MPI_COMM_NULL, "disconnect left the handle");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        child(argc, argv, parent);
        int e = mt_errors_;
        MPI_Finalize();
        return e ? 1 : 0;
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = size % 3 + 1;
    char num[16];
    snprintf(num, sizeof num, "%d", n);
    char *args[] = { "child", num, NULL };
    MPI_Comm inter;
    int codes[3] = { -1, -1, -1 };
    CHECK_MPI(MPI_Comm_spawn(argv[0], args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes));
    for (int i = 0; i < n; i++) CHECK_INT(codes[i], MPI_SUCCESS);
    int rsize = 0, lsize = 0;
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_size(inter, &lsize);
    CHECK_INT(rsize, n);
    CHECK_INT(lsize, size);
    int c = rank % n, buf[64];
    for (int i = 0; i < 64; i++) buf[i] = rank * 1000 + c * 100 + i;
    CHECK_MPI(MPI_Send(buf, 64, MPI_INT, c, 7, inter));
    CHECK_MPI(MPI_Recv(buf, 64, MPI_INT, c, 8, inter, MPI_STATUS_IGNORE));
    for (int i = 0; i < 64; i++) CHECK_INT(buf[i], -(rank * 1000 + c * 100 + i));
    if (rank == 0) {
        size_t nb = 1 << 20;
        char *big = mt_malloc(nb);
        mt_fill(big, nb, 42);
        CHECK_MPI(MPI_Send(big, (int)nb, MPI_CHAR, 0, 9, inter));
        free(big);
    }
    int b = 4711;
    CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter));
    int mine = rank, sum = 0;
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter));
    int want = 0;
    for (int i = 0; i < n; i++) want += 1000 + i;
    CHECK_INT(sum, want);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL, "disconnect left the handle");
    int rc = mt_finish("dyn_spawn");
    MPI_Finalize();
    return rc;
}
