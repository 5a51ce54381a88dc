/* SPDX-License-Identifier: MIT */
/* Accept/connect between two separately started jobs (dyn_two_jobs.sh starts
 * both).  Usage: dyn_two_jobs server|client FILE [names]
 *   server: root opens a port and writes it to FILE (or, with "names",
 *           publishes it under the service name FILE), then accepts
 *   client: root waits for FILE (or looks the name up until it appears),
 *           then connects.
 * Both sides send every remote rank a checked pattern, run an allreduce over
 * the intercommunicator and over the merged communicator, and disconnect. */
#include "mpitest.h"
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        fprintf(stderr, "usage: dyn_two_jobs server|client FILE [names]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int server = !strcmp(argv[1], "server"), names = argc > 3 && !strcmp(argv[3], "names");
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    if (server) {
        if (rank == 0) {
            CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
            if (names) {
                CHECK_MPI(MPI_Publish_name(argv[2], MPI_INFO_NULL, port));
            } else {
                char tmp[4096];
                snprintf(tmp, sizeof tmp, "%s.tmp", argv[2]);
                FILE *f = fopen(tmp, "w");
                CHECK(f != NULL, "cannot write %s", tmp);
                if (f) {
                    fprintf(f, "%s\n", port);
                    fclose(f);
                    rename(tmp, argv[2]);
                }
            }
        }
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    } else {
        if (rank == 0) {
            /* a name not yet published is an error to retry: MPI 4.0 raises it on
             * MPI_COMM_SELF, MPI 3.1 on MPI_COMM_WORLD */
            MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            for (int tries = 0; tries < 3000 && !port[0]; tries++) {
                if (names) {
                    if (MPI_Lookup_name(argv[2], MPI_INFO_NULL, port) != MPI_SUCCESS) port[0] = 0;
                } else {
                    FILE *f = fopen(argv[2], "r");
                    if (f) {
                        if (!fgets(port, sizeof port, f)) port[0] = 0;
                        port[strcspn(port, "\n")] = 0;
                        fclose(f);
                    }
                }
                if (!port[0]) usleep(10000);
            }
            CHECK(port[0] != 0, "no port in %s", argv[2]);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        }
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter));
    }
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    int base = server ? 100000 : 200000, rbase = server ? 200000 : 100000;
    MPI_Request *reqs = mt_malloc(sizeof(MPI_Request) * (size_t)rsize);
    int (*out)[32] = mt_malloc(sizeof(int[32]) * (size_t)rsize);
    for (int r = 0; r < rsize; r++) {
        for (int i = 0; i < 32; i++) out[r][i] = base + rank * 1000 + r * 32 + i;
        CHECK_MPI(MPI_Isend(out[r], 32, MPI_INT, r, 4, inter, &reqs[r]));
    }
    for (int r = 0; r < rsize; r++) {
        int in[32];
        CHECK_MPI(MPI_Recv(in, 32, MPI_INT, r, 4, inter, MPI_STATUS_IGNORE));
        for (int i = 0; i < 32; i++) CHECK_INT(in[i], rbase + r * 1000 + rank * 32 + i);
    }
    CHECK_MPI(MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE));
    int one = 1, total = 0;
    CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, inter));
    CHECK_INT(total, rsize);
    MPI_Comm merged;
    CHECK_MPI(MPI_Intercomm_merge(inter, !server, &merged));
    int msize, mrank, sum = 0;
    MPI_Comm_size(merged, &msize);
    MPI_Comm_rank(merged, &mrank);
    CHECK_INT(msize, size + rsize);
    CHECK_INT(mrank, server ? rank : rsize + rank);
    CHECK_MPI(MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK_INT(sum, msize * (msize - 1) / 2);
    MPI_Comm_free(&merged);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    if (server && rank == 0) {
        if (names) CHECK_MPI(MPI_Unpublish_name(argv[2], MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Close_port(port));
    }
    free(reqs);
    free(out);
    int rc = mt_finish(server ? "dyn_two_jobs server" : "dyn_two_jobs client");
    MPI_Finalize();
    return rc;
}
