/* SPDX-License-Identifier: MIT */
/* Partitioned communication: MPI_Psend_init / MPI_Precv_init around a ring,
 * several rounds of MPI_Start, partitions marked ready in reverse order with
 * MPI_Pready, MPI_Pready_range and MPI_Pready_list, MPI_Parrived polled until
 * every partition has arrived, small (eager) and large (rendezvous) buffers,
 * a derived datatype, a different partitioning on the two sides, and the
 * status's source and tag.  A partitioned message never matches an ordinary
 * receive: an MPI_ANY_TAG receive posted first gets the ordinary message. */
#include "mpitest.h"

#define PARTS 8

static void round_trip(int rank, int size, MPI_Count count, int rounds, int use)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Count total = count * PARTS;
    int *out = mt_malloc(sizeof(int) * (size_t)total), *in = mt_malloc(sizeof(int) * (size_t)total);
    MPI_Request sr, rr;
    MPI_Status st;
    /* the receiver sees PARTS/2 partitions of twice the count */
    CHECK_MPI(MPI_Precv_init(in, PARTS / 2, count * 2, MPI_INT, from, 5, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &rr));
    CHECK_MPI(MPI_Psend_init(out, PARTS, count, MPI_INT, to, 5, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &sr));
    for (int round = 0; round < rounds; round++) {
        for (MPI_Count i = 0; i < total; i++) in[i] = -1;
        CHECK_MPI(MPI_Start(&rr));
        CHECK_MPI(MPI_Start(&sr));
        for (int p = PARTS - 1; p >= 0; p--) {
            for (MPI_Count i = 0; i < count; i++)
                out[p * count + i] = (int)(rank * 100000 + round * 1000 + p * 100 + i % 100);
            if (use == 0) CHECK_MPI(MPI_Pready(p, sr));
        }
        if (use == 1) {
            CHECK_MPI(MPI_Pready_range(PARTS / 2, PARTS - 1, sr));
            CHECK_MPI(MPI_Pready_range(0, PARTS / 2 - 1, sr));
        } else if (use == 2) {
            int list[PARTS];
            for (int p = 0; p < PARTS; p++) list[p] = (p * 3) % PARTS;
            CHECK_MPI(MPI_Pready_list(PARTS, list, sr));
        }
        int arrived = 0;
        while (arrived < PARTS / 2) {
            arrived = 0;
            for (int p = 0; p < PARTS / 2; p++) {
                int flag = 0;
                CHECK_MPI(MPI_Parrived(rr, p, &flag));
                arrived += flag;
            }
        }
        CHECK_MPI(MPI_Wait(&rr, &st));
        CHECK_INT(st.MPI_SOURCE, from);
        CHECK_INT(st.MPI_TAG, 5);
        CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        for (int p = 0; p < PARTS; p++)
            for (MPI_Count i = 0; i < count; i++)
                if (in[p * count + i] != (int)(from * 100000 + round * 1000 + p * 100 + i % 100)) {
                    CHECK_INT(in[p * count + i], from * 100000 + round * 1000 + p * 100 + i % 100);
                    p = PARTS;
                    break;
                }
    }
    CHECK_MPI(MPI_Request_free(&sr));
    CHECK_MPI(MPI_Request_free(&rr));
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;

    round_trip(rank, size, 4, 3, 0);          /* 128 bytes: eager */
    round_trip(rank, size, 5000, 2, 1);       /* 160 kB: rendezvous */
    round_trip(rank, size, 16, 2, 2);

    /* a strided type (every other int), partitioned send and receive */
    {
        MPI_Datatype vec;
        MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
        MPI_Type_commit(&vec);
        int out[4 * 6], in[4 * 6];
        MPI_Request sr, rr;
        for (int i = 0; i < 24; i++) {
            out[i] = rank * 100 + i;
            in[i] = -1;
        }
        CHECK_MPI(MPI_Precv_init(in, 2, 2, vec, from, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &rr));
        CHECK_MPI(MPI_Psend_init(out, 4, 1, vec, to, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &sr));
        MPI_Type_free(&vec);        /* the requests keep it */
        CHECK_MPI(MPI_Start(&rr));
        CHECK_MPI(MPI_Start(&sr));
        for (int p = 0; p < 4; p++) CHECK_MPI(MPI_Pready(p, sr));
        CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
        /* the vector with extent 5 ints: elements at 0,2,4 of each 5-int block */
        for (int e = 0; e < 4; e++)
            for (int k = 0; k < 3; k++) CHECK_INT(in[e * 5 + 2 * k], from * 100 + e * 5 + 2 * k);
        CHECK_INT(in[1], -1);
        CHECK_MPI(MPI_Request_free(&sr));
        CHECK_MPI(MPI_Request_free(&rr));
    }

    /* an ordinary receive with MPI_ANY_TAG does not take a partitioned message */
    {
        int pin = -1, pout = rank + 7, oin = -1, oout = rank + 9;
        MPI_Request sr, rr, orr;
        CHECK_MPI(MPI_Irecv(&oin, 1, MPI_INT, from, MPI_ANY_TAG, MPI_COMM_WORLD, &orr));
        CHECK_MPI(MPI_Psend_init(&pout, 1, 1, MPI_INT, to, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &sr));
        CHECK_MPI(MPI_Start(&sr));
        CHECK_MPI(MPI_Pready(0, sr));
        CHECK_MPI(MPI_Send(&oout, 1, MPI_INT, to, 3, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&orr, MPI_STATUS_IGNORE));
        CHECK_INT(oin, from + 9);
        CHECK_MPI(MPI_Precv_init(&pin, 1, 1, MPI_INT, from, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &rr));
        CHECK_MPI(MPI_Start(&rr));
        CHECK_MPI(MPI_Wait(&rr, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        CHECK_INT(pin, from + 7);
        CHECK_MPI(MPI_Request_free(&sr));
        CHECK_MPI(MPI_Request_free(&rr));
    }
    return mt_finish("p2p_part") + (MPI_Finalize() != MPI_SUCCESS);
}
