/* SPDX-License-Identifier: MIT */
/* Freeing objects that pending operations use is legal MPI (the objects go
 * once the operations are done): a communicator freed while non-blocking
 * sends and receives (eager and rendezvous) are in flight, while persistent
 * and partitioned requests on it live (started again after the free), and
 * between MPI_Mprobe and MPI_Mrecv; a datatype freed after MPI_Send_init.
 * The data must still arrive (and `make check-asan` sees no use after free). */
#include "mpitest.h"

#define BIG 40000     /* ints: rendezvous */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int *out = mt_malloc(sizeof(int) * BIG), *in = mt_malloc(sizeof(int) * BIG);
    MPI_Comm dup;

    /* non-blocking operations in flight */
    for (int len = 1; len <= BIG; len *= 200) {
        MPI_Request r[2];
        for (int i = 0; i < len; i++) {
            out[i] = rank * 1000 + i;
            in[i] = -1;
        }
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        CHECK_MPI(MPI_Irecv(in, len, MPI_INT, from, 1, dup, &r[0]));
        CHECK_MPI(MPI_Issend(out, len, MPI_INT, to, 1, dup, &r[1]));
        CHECK_MPI(MPI_Comm_free(&dup));
        CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < len; i++)
            if (in[i] != from * 1000 + i) {
                CHECK_INT(in[i], from * 1000 + i);
                break;
            }
    }

    /* persistent and partitioned requests outlive the communicator's handle */
    {
        MPI_Request r[4];
        MPI_Datatype two;
        MPI_Type_contiguous(2, MPI_INT, &two);
        MPI_Type_commit(&two);
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        CHECK_MPI(MPI_Recv_init(in, BIG / 2, two, from, 2, dup, &r[0]));
        CHECK_MPI(MPI_Send_init(out, BIG / 2, two, to, 2, dup, &r[1]));
        CHECK_MPI(MPI_Precv_init(in + BIG - 8, 2, 4, MPI_INT, from, 3, dup, MPI_INFO_NULL, &r[2]));
        CHECK_MPI(MPI_Psend_init(out + BIG - 8, 2, 4, MPI_INT, to, 3, dup, MPI_INFO_NULL, &r[3]));
        CHECK_MPI(MPI_Comm_free(&dup));
        MPI_Type_free(&two);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < BIG; i++) {
                out[i] = rank * 7 + round * 3 + i;
                in[i] = -1;
            }
            CHECK_MPI(MPI_Startall(4, r));
            CHECK_MPI(MPI_Pready_range(0, 1, r[3]));
            CHECK_MPI(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
            for (int i = 0; i < BIG; i++)
                if (in[i] != from * 7 + round * 3 + i) {
                    CHECK_INT(in[i], from * 7 + round * 3 + i);
                    break;
                }
        }
        for (int i = 0; i < 4; i++) CHECK_MPI(MPI_Request_free(&r[i]));
    }

    /* a message handle outlives the communicator's handle */
    {
        MPI_Message msg;
        MPI_Request sr;
        MPI_Status st;
        int v = rank + 50, got = -1;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, to, 4, dup, &sr));
        CHECK_MPI(MPI_Mprobe(from, 4, dup, &msg, &st));
        CHECK_MPI(MPI_Comm_free(&dup));
        CHECK_MPI(MPI_Mrecv(&got, 1, MPI_INT, &msg, &st));
        CHECK_INT(got, from + 50);
        CHECK_INT(st.MPI_SOURCE, from);
        CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    }
    free(out);
    free(in);
    return mt_finish("p2p_free_pending") + (MPI_Finalize() != MPI_SUCCESS);
}
