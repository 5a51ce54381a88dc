/* SPDX-License-Identifier: MIT */
/* Synchronous sends.  MPI_Issend must not complete before the matching
 * receive is posted: rank 0 polls it with MPI_Test while rank 1 deliberately
 * holds back its receive until told to go (a handshake over another tag).
 * MPI_Ssend must block until the receiver arrives (checked with a delay). */
#include "mpitest.h"
#include <unistd.h>

static const int sizes[] = {0, 8, 16384, 16385, 1 << 20};
#define NS (int)(sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *buf = mt_malloc(1 << 20);

    if (size == 1) {
        /* self: Issend + Recv + Wait completes */
        for (int s = 0; s < NS; s++) {
            MPI_Request r;
            unsigned char *sb = mt_malloc(sizes[s]);
            mt_fill(sb, sizes[s], s);
            CHECK_MPI(MPI_Issend(sb, sizes[s], MPI_BYTE, 0, s, MPI_COMM_WORLD, &r));
            int flag = 1;
            CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            CHECK(flag == 0, "self Issend of %d bytes completed before its receive", sizes[s]);
            CHECK_MPI(MPI_Recv(buf, sizes[s], MPI_BYTE, 0, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK_PATTERN(buf, sizes[s], s);
            free(sb);
        }
    } else if (rank < 2) {
        for (int s = 0; s < NS; s++) {
            int n = sizes[s], go = 0;
            if (rank == 0) {
                MPI_Request r;
                unsigned char *sb = mt_malloc(n);
                mt_fill(sb, n, s + 1);
                CHECK_MPI(MPI_Issend(sb, n, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &r));
                double t0 = MPI_Wtime();
                int flag = 0, polls = 0;
                while (MPI_Wtime() - t0 < 0.05) {
                    CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
                    polls++;
                    if (flag) break;
                }
                CHECK(flag == 0, "Issend of %d bytes completed before the receive was posted (after %d polls)", n, polls);
                CHECK_MPI(MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD));
                if (!flag) CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
                free(sb);
            } else {
                MPI_Status st;
                int cnt = -1;
                CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                memset(buf, 0, n);
                CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK_INT(cnt, n);
                CHECK_PATTERN(buf, n, s + 1);
            }
        }
        /* blocking Ssend: the receiver posts 200 ms late */
        for (int s = 0; s < NS; s += 2) {
            int n = sizes[s];
            CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_BYTE, 1 - rank, 9, NULL, 0, MPI_BYTE, 1 - rank, 9,
                                   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            if (rank == 0) {
                unsigned char *sb = mt_malloc(n);
                mt_fill(sb, n, s + 7);
                double t0 = MPI_Wtime();
                CHECK_MPI(MPI_Ssend(sb, n, MPI_BYTE, 1, 8, MPI_COMM_WORLD));
                double dt = MPI_Wtime() - t0;
                CHECK(dt > 0.1, "Ssend of %d bytes returned after %.3f s, before the receive was posted (0.2 s)", n, dt);
                free(sb);
            } else {
                usleep(200000);
                CHECK_MPI(MPI_Recv(buf, n, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK_PATTERN(buf, n, s + 7);
            }
        }
    }
    free(buf);
    int rc = mt_finish("p2p_ssend");
    MPI_Finalize();
    return rc;
}
