/* SPDX-License-Identifier: MIT */
/* MPI_Comm_connect to a port that nobody accepts on (MPICH's
 * errors/spawn/connect_timeout_no_accept): the port's listen queue takes the
 * connection, but no MPI_Comm_accept answers, so the connect must end with
 * MPI_ERR_PORT on every process of the connecting group once its time is up,
 * not wait forever.  The time comes from the info key "timeout" (seconds, as
 * MPICH reads it) or else from COURIER_DYN_CONNECT_TIMEOUT_MS, or from
 * MPIR_CVAR_CH4_COMM_CONNECT_TIMEOUT in seconds (dyn.list sets it to 3).
 * The upper half of the ranks connects, the lower half owns the port; at one
 * rank the process connects to its own port.  Both connects must take at
 * least their timeout and well under the test's limit. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int client = size == 1 || rank >= (size + 1) / 2;
    MPI_Comm group;
    MPI_Comm_split(MPI_COMM_WORLD, client, rank, &group);
    MPI_Comm_set_errhandler(group, MPI_ERRORS_RETURN);
    char port[MPI_MAX_PORT_NAME] = "";
    if (rank == 0) CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (client) {
        MPI_Comm inter = MPI_COMM_NULL;
        const char *env = getenv("MPIR_CVAR_CH4_COMM_CONNECT_TIMEOUT");
        double want = env ? atof(env) : 0, t0 = mt_now();
        /* the default time: the setting's alias */
        CHECK_CLASS(MPI_Comm_connect(port, MPI_INFO_NULL, 0, group, &inter), MPI_ERR_PORT);
        double t = mt_now() - t0;
        CHECK(t >= want - 0.5 && t < want + 30, "connect gave up after %.1f s, timeout %.0f s", t, want);
        CHECK(inter == MPI_COMM_NULL, "a communicator after an error");
        /* the info key: 1 second */
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "timeout", "1");
        t0 = mt_now();
        CHECK_CLASS(MPI_Comm_connect(port, info, 0, group, &inter), MPI_ERR_PORT);
        t = mt_now() - t0;
        CHECK(t >= 0.5 && t < 30, "connect with timeout=1 gave up after %.1f s", t);
        MPI_Info_free(&info);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_Close_port(port));
    MPI_Comm_free(&group);
    int rc = mt_finish("dyn_connect_timeout");
    MPI_Finalize();
    return rc;
}
