/* SPDX-License-Identifier: MIT */
/* Ports and names inside one job: the lower half of MPI_COMM_WORLD opens a
 * port, publishes it as a service and accepts; the upper half looks the name
 * up and connects.  Data goes both ways over the intercommunicator, then it is
 * disconnected and the name unpublished (a second lookup then fails with
 * MPI_ERR_NAME).  At one rank only the name service is checked. */
#include "mpitest.h"
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char service[64], port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME];
    /* a name of this run only: the job's first rank's pid, sent to all */
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(service, sizeof service, "dyn_ports-%d", pid);
    if (size == 1) {
        CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
#ifndef MT_REFERENCE_MPICH   /* erroneous uses Courier reports; the reference (Open MPI) accepts them */
        CHECK_CLASS(MPI_Publish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE);
#endif
        CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, found));
        CHECK(!strcmp(found, port), "looked up \"%s\", published \"%s\"", found, port);
        CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
        CHECK_CLASS(MPI_Lookup_name(service, MPI_INFO_NULL, found), MPI_ERR_NAME);
        CHECK_MPI(MPI_Close_port(port));
#ifndef MT_REFERENCE_MPICH
        CHECK_CLASS(MPI_Close_port(port), MPI_ERR_PORT);
#endif
        int rc = mt_finish("dyn_ports");
        MPI_Finalize();
        return rc;
    }
    int low = rank < size / 2 + size % 2;   /* the accepting half (the larger one) */
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
    int hrank, hsize;
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    if (low) {
        if (hrank == 0) {
            CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
            CHECK_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
        }
        MPI_Barrier(MPI_COMM_WORLD);   /* published before anyone looks */
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter));
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (hrank == 0) CHECK_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter));
    }
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK_INT(rsize, size - hsize);
    /* every process sends its rank-pattern to remote rank hrank % rsize and
     * receives from each remote rank r with r % hsize == hrank */
    int out[16], in[16];
    for (int i = 0; i < 16; i++) out[i] = (low ? 1000 : 2000) + hrank * 16 + i;
    MPI_Request req;
    CHECK_MPI(MPI_Isend(out, 16, MPI_INT, hrank % rsize, 3, inter, &req));
    for (int r = hrank; r < rsize; r += hsize) {
        CHECK_MPI(MPI_Recv(in, 16, MPI_INT, r, 3, inter, MPI_STATUS_IGNORE));
        for (int i = 0; i < 16; i++) CHECK_INT(in[i], (low ? 2000 : 1000) + r * 16 + i);
    }
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL, "disconnect left the handle");
    MPI_Barrier(MPI_COMM_WORLD);
    if (low && hrank == 0) {
        CHECK_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
        CHECK_CLASS(MPI_Lookup_name(service, MPI_INFO_NULL, found), MPI_ERR_NAME);
        CHECK_MPI(MPI_Close_port(port));
    }
    MPI_Comm_free(&half);
    int rc = mt_finish("dyn_ports");
    MPI_Finalize();
    return rc;
}
