/* SPDX-License-Identifier: MIT */
/* Spawning across hosts (tests/launcher/test_hosts.sh t_spawn runs it under
 * mpiexec -hosts cn1,cn2,cn3 on three namespace hosts):
 *   dyn_spawn_hosts HOST_A HOST_B HOSTFILE BAD_HOST
 * The parents spawn, one after the other: two children with no info (the
 * launcher places them on the job's host list after the parents), two with
 * info host=HOST_B, two with info hostfile=HOSTFILE, with
 * MPI_Comm_spawn_multiple one on HOST_A (host) and two on HOST_B (add-host,
 * wdir=/tmp); then two spawns that must fail with MPI_ERR_SPAWN and leave the
 * job working: info host=BAD_HOST (cannot be reached) and a missing program
 * on HOST_A.  Every child sends the parent root its host
 * (MPI_Get_processor_name), MPI_APPNUM and working directory, and answers a
 * number over the intercommunicator; the root prints one line per child,
 *   "spawn <label> child <i> host <name> appnum <k> cwd <dir>",
 * which the script checks against where the children should be. */
#include "mpitest.h"

#include <unistd.h>

#define TXT 256

static void child(MPI_Comm parent)
{
    int rank, *appnum = NULL, flag = 0, len = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    char host[MPI_MAX_PROCESSOR_NAME] = "", cwd[TXT] = "", msg[2 * TXT + 64];
    MPI_Get_processor_name(host, &len);
    if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, "?");
    snprintf(msg, sizeof msg, "host %s appnum %d cwd %s", host, flag ? *appnum : -1, cwd);
    CHECK_MPI(MPI_Send(msg, (int)strlen(msg) + 1, MPI_CHAR, 0, 1, parent));
    int v = 0;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 2, parent, MPI_STATUS_IGNORE));
    v += rank;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 3, parent));
    CHECK_MPI(MPI_Comm_disconnect(&parent));
}

/* The root hears from each of n children and checks the numbers they answer. */
static void talk(MPI_Comm inter, int n, const char *label)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        for (int c = 0; c < n; c++) {
            char msg[2 * TXT + 64] = "";
            CHECK_MPI(MPI_Recv(msg, sizeof msg, MPI_CHAR, c, 1, inter, MPI_STATUS_IGNORE));
            printf("spawn %s child %d %s\n", label, c, msg);
            int v = 1000 * (c + 1);
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, c, 2, inter));
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, c, 3, inter, MPI_STATUS_IGNORE));
            CHECK_INT(v, 1000 * (c + 1) + c);
        }
    fflush(stdout);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
}

static void spawn_with(const char *prog, const char *key, const char *val, int n, const char *label)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, val);
    }
    MPI_Comm inter;
    int codes[4] = { -1, -1, -1, -1 };
    CHECK_MPI(MPI_Comm_spawn(prog, MPI_ARGV_NULL, n, info, 0, MPI_COMM_WORLD, &inter, codes));
    for (int i = 0; i < n; i++) CHECK_INT(codes[i], MPI_SUCCESS);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    talk(inter, n, label);
}

/* A spawn that must fail; then the job still works. */
static void spawn_fails(const char *prog, const char *host, const char *label)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", host);
    MPI_Comm inter = MPI_COMM_WORLD;
    int codes[2] = { -1, -1 }, cls = -1;
    int rc = MPI_Comm_spawn(prog, MPI_ARGV_NULL, 2, info, 0, MPI_COMM_WORLD, &inter, codes);
    MPI_Info_free(&info);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "%s: class %d, expected MPI_ERR_SPAWN", label, cls);
    CHECK(inter == MPI_COMM_NULL, "%s: intercommunicator not MPI_COMM_NULL", label);
    for (int i = 0; i < 2; i++) {
        int c = -1;
        MPI_Error_class(codes[i], &c);
        CHECK(c == MPI_ERR_SPAWN, "%s: array_of_errcodes[%d] has class %d", label, i, c);
    }
    int mine = rank + 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(sum, size * (size + 1) / 2);
    if (rank == 0) printf("spawn %s failed as it should (MPI_ERR_SPAWN)\n", label);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        child(parent);
        int e = mt_errors_;
        MPI_Finalize();
        return e ? 1 : 0;
    }
    if (argc < 5) {
        fprintf(stderr, "usage: %s HOST_A HOST_B HOSTFILE BAD_HOST\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    spawn_with(argv[0], NULL, NULL, 2, "default");
    spawn_with(argv[0], "host", argv[2], 2, "host");
    spawn_with(argv[0], "hostfile", argv[3], 2, "hostfile");

    char *cmds[2] = { argv[0], argv[0] };
    int np[2] = { 1, 2 }, codes[3] = { -1, -1, -1 };
    MPI_Info infos[2];
    MPI_Info_create(&infos[0]);
    MPI_Info_set(infos[0], "host", argv[1]);
    MPI_Info_create(&infos[1]);
    MPI_Info_set(infos[1], "add-host", argv[2]);
    MPI_Info_set(infos[1], "wdir", "/tmp");
    MPI_Comm inter;
    CHECK_MPI(MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, np, infos, 0, MPI_COMM_WORLD, &inter,
                                      codes));
    for (int i = 0; i < 3; i++) CHECK_INT(codes[i], MPI_SUCCESS);
    MPI_Info_free(&infos[0]);
    MPI_Info_free(&infos[1]);
    talk(inter, 3, "multiple");

    spawn_fails(argv[0], argv[4], "unreachable");
    spawn_fails("/nonexistent/courier-no-such-program", argv[1], "missing");
    int rc = mt_finish("dyn_spawn_hosts");
    MPI_Finalize();
    return rc;
}
