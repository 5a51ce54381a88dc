/* SPDX-License-Identifier: MIT */
/* MPI_Comm_join: ranks 0 and 1 connect a TCP socket (rank 0 listens on the
 * loopback address and sends the port number over MPI_COMM_WORLD), join over
 * it, and swap 1 MiB and a few ints over the intercommunicator.  The other
 * ranks only wait. */
#include "mpitest.h"
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank < 2) {
        struct sockaddr_in sa = { .sin_family = AF_INET };
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t sl = sizeof sa;
        int fd = -1, port = 0;
        if (rank == 0) {
            int l = socket(AF_INET, SOCK_STREAM, 0);
            CHECK(l >= 0 && bind(l, (struct sockaddr *)&sa, sizeof sa) == 0 && listen(l, 1) == 0 &&
                  getsockname(l, (struct sockaddr *)&sa, &sl) == 0, "cannot listen");
            port = ntohs(sa.sin_port);
            MPI_Send(&port, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            fd = accept(l, NULL, NULL);
            close(l);
        } else {
            MPI_Recv(&port, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sa.sin_port = htons((unsigned short)port);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            CHECK(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "cannot connect");
        }
        CHECK(fd >= 0, "no socket");
        MPI_Comm inter;
        CHECK_MPI(MPI_Comm_join(fd, &inter));
        int lsize = 0, rsize = 0;
        MPI_Comm_size(inter, &lsize);
        MPI_Comm_remote_size(inter, &rsize);
        CHECK_INT(lsize, 1);
        CHECK_INT(rsize, 1);
        size_t n = 1 << 20;
        char *out = mt_malloc(n), *in = mt_malloc(n);
        mt_fill(out, n, rank);
        CHECK_MPI(MPI_Sendrecv(out, (int)n, MPI_CHAR, 0, 1, in, (int)n, MPI_CHAR, 0, 1, inter,
                               MPI_STATUS_IGNORE));
        CHECK_PATTERN(in, n, 1 - rank);
        int v = rank + 10, w = -1;
        CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, 0, 2, &w, 1, MPI_INT, 0, 2, inter, MPI_STATUS_IGNORE));
        CHECK_INT(w, 11 - rank);
        free(out);
        free(in);
        CHECK_MPI(MPI_Comm_disconnect(&inter));
        close(fd);
    }
    int rc = mt_finish("dyn_join");
    MPI_Finalize();
    return rc;
}
