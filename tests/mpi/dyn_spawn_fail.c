/* SPDX-License-Identifier: MIT */
/* A spawn that cannot start its processes fails through the communicator's
 * error handler (MPI_ERRORS_RETURN here) with MPI_ERR_SPAWN, every entry of
 * array_of_errcodes an error of class MPI_ERR_SPAWN and the intercommunicator
 * MPI_COMM_NULL, at every rank; the job goes on: after each failure an
 * allreduce over MPI_COMM_WORLD (its result checked) and, at the end, a spawn
 * that works (this program as the child) with data both ways.  The failures:
 * a program that does not exist, a file that is not executable, (with
 * MPI_Comm_spawn_multiple) one good and one missing program, where none of
 * the processes may start, and a program that is no MPI program (/bin/true:
 * it ends without connecting to the parents). */
#include "mpitest.h"

#include <sys/stat.h>
#include <unistd.h>

/* One failed spawn: the class, the codes, the handle; then the job still works. */
static void expect_failed(int rc, MPI_Comm inter, const int *codes, int n, const char *what)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "%s: error class %d, expected MPI_ERR_SPAWN (%d)", what, cls,
          MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "%s: the intercommunicator is not MPI_COMM_NULL", what);
    for (int i = 0; i < n; i++) {
        int c = -1;
        MPI_Error_class(codes[i], &c);
        CHECK(c == MPI_ERR_SPAWN, "%s: array_of_errcodes[%d] = %d (class %d), expected MPI_ERR_SPAWN",
              what, i, codes[i], c);
    }
    if (rank == 0 && rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        printf("%s: %s\n", what, msg);
        fflush(stdout);
    }
    /* the job goes on */
    int mine = rank + 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(sum, size * (size + 1) / 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        int rank, v = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 3, parent, MPI_STATUS_IGNORE));
        CHECK_INT(v, 4242);
        v = -(rank + 1);
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 4, parent));
        CHECK_MPI(MPI_Comm_disconnect(&parent));
        int e = mt_errors_;
        MPI_Finalize();
        return e ? 1 : 0;
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm inter = MPI_COMM_WORLD;
    int codes[4] = { -1, -1, -1, -1 };

    /* 1. no such program */
    int rc = MPI_Comm_spawn("/nonexistent/courier-no-such-program", MPI_ARGV_NULL, 2, MPI_INFO_NULL,
                            0, MPI_COMM_WORLD, &inter, codes);
    expect_failed(rc, inter, codes, 2, "missing program");

    /* 2. a file that is not executable (made by rank 0, known to all) */
    char file[64] = "";
    if (rank == 0) {
        snprintf(file, sizeof file, "/tmp/courier-spawn-noexec.%d", (int)getpid());
        FILE *f = fopen(file, "w");
        CHECK(f != NULL, "cannot create %s", file);
        if (f) {
            fputs("not a program\n", f);
            fclose(f);
            chmod(file, 0644);
        }
    }
    CHECK_MPI(MPI_Bcast(file, sizeof file, MPI_CHAR, 0, MPI_COMM_WORLD));
    inter = MPI_COMM_WORLD;
    for (int i = 0; i < 4; i++) codes[i] = -1;
    rc = MPI_Comm_spawn(file, MPI_ARGV_NULL, 1, MPI_INFO_NULL, size - 1, MPI_COMM_WORLD, &inter,
                        codes);
    expect_failed(rc, inter, codes, 1, "file not executable");
    if (rank == 0) unlink(file);

    /* 3. spawn_multiple: one good command, one missing: nothing starts */
    char *cmds[2] = { argv[0], "/nonexistent/courier-no-such-program" };
    int np[2] = { 1, 2 };
    MPI_Info infos[2] = { MPI_INFO_NULL, MPI_INFO_NULL };
    inter = MPI_COMM_WORLD;
    for (int i = 0; i < 4; i++) codes[i] = -1;
    rc = MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, np, infos, 0, MPI_COMM_WORLD, &inter,
                                 codes);
    expect_failed(rc, inter, codes, 3, "spawn_multiple with a missing program");

    /* 4. a program that runs but is no MPI program: it never connects */
    inter = MPI_COMM_WORLD;
    for (int i = 0; i < 4; i++) codes[i] = -1;
    rc = MPI_Comm_spawn("/bin/true", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                        codes);
    expect_failed(rc, inter, codes, 2, "not an MPI program");

    /* 5. after all that, a spawn that works */
    int n = size % 2 + 1;
    for (int i = 0; i < 4; i++) codes[i] = -1;
    CHECK_MPI(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             codes));
    for (int i = 0; i < n; i++) CHECK_INT(codes[i], MPI_SUCCESS);
    if (rank == 0)
        for (int c = 0; c < n; c++) {
            int v = 4242;
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, c, 3, inter));
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, c, 4, inter, MPI_STATUS_IGNORE));
            CHECK_INT(v, -(c + 1));
        }
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    rc = mt_finish("dyn_spawn_fail");
    MPI_Finalize();
    return rc;
}
