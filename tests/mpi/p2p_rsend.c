/* SPDX-License-Identifier: MIT */
/* Ready sends: the receiver posts MPI_Irecv, then tells the sender (zero-byte
 * message); only then does the sender call MPI_Rsend / MPI_Irsend. */
#include "mpitest.h"

static const int sizes[] = {0, 8, 16384, 16385, 200000};
#define NS (int)(sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    unsigned char *sb = mt_malloc(200000), *rb = mt_malloc(200000);

    for (int s = 0; s < NS; s++)
        for (int imm = 0; imm < 2; imm++) {
            MPI_Request rr, sr;
            MPI_Status st;
            int tag = s * 2 + imm;
            memset(rb, 0, sizes[s]);
            CHECK_MPI(MPI_Irecv(rb, sizes[s], MPI_BYTE, from, tag, MPI_COMM_WORLD, &rr));
            /* ready-signal to my sender, wait for my receiver's */
            CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_BYTE, from, 1000, NULL, 0, MPI_BYTE, to, 1000,
                                   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            mt_fill(sb, sizes[s], rank * 100 + tag);
            if (imm) {
                CHECK_MPI(MPI_Irsend(sb, sizes[s], MPI_BYTE, to, tag, MPI_COMM_WORLD, &sr));
                CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
            } else {
                CHECK_MPI(MPI_Rsend(sb, sizes[s], MPI_BYTE, to, tag, MPI_COMM_WORLD));
            }
            CHECK_MPI(MPI_Wait(&rr, &st));
            CHECK_INT(st.MPI_SOURCE, from);
            CHECK_INT(st.MPI_TAG, tag);
            CHECK_PATTERN(rb, sizes[s], from * 100 + tag);
        }
    free(sb); free(rb);
    int rc = mt_finish("p2p_rsend");
    MPI_Finalize();
    return rc;
}
