/* SPDX-License-Identifier: MIT */
/* Large messages to ranks that do not run (issue 18's staging): rank 0 starts
 * one busy process per core, then every rank sends its right neighbour
 * messages of 8 KiB to 4 MiB (eager, the adaptive eager range, staged or
 * rendezvous, whatever the protocol picks) and checks every byte of what its
 * left neighbour sent:
 *   order:  one tag, sizes mixed, received with MPI_ANY_SOURCE and in order
 *           (non-overtaking across protocol switches), the receiver
 *           computing before some receives so that the sender sees it late;
 *   probe:  MPI_Probe and a loop of MPI_Iprobe learn each message's size and
 *           tag before it is received (MPI_Mprobe for every third);
 *   reuse:  MPI_Send returns and the sender overwrites its buffer at once,
 *           while the receiver is still computing: a staged copy must be the
 *           one that arrives;
 *   types:  a strided (vector) datatype of 1 MiB, sent by MPI_Isend while the
 *           receiver computes, and MPI_Ssend of 256 KiB;
 *   cancel: a posted receive that nothing matches is cancelled between
 *           messages, and the stream goes on.
 * Rank counts 2-4 on a 2-core machine; the list's timeout catches a hang. */
#define _GNU_SOURCE
#include "mpitest.h"
#include "hogs.h"
#include <time.h>

static const int sizes[] = { 8192, 4194304, 65536, 100000, 16384, 1048576, 262144, 70000,
                             2097152, 32768, 524288 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))
#define MAXSZ 4194304

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void compute(double s)
{
    double t = now();
    while (now() - t < s) { }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) start_hogs();
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    /* one send buffer per message of a burst, back to back */
    size_t off[NSIZES + 1];
    off[0] = 0;
    for (int i = 0; i < NSIZES; i++) off[i + 1] = off[i] + (size_t)sizes[i];
    unsigned char *sb = mt_malloc(off[NSIZES]), *rb = mt_malloc(MAXSZ);
    MPI_Request rq[NSIZES];

    /* order: one tag, any source, in order; the receiver computes now and then */
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < NSIZES; i++) {
            mt_fill(sb + off[i], (size_t)sizes[i], rank * 1000 + round * 100 + i);
            CHECK_MPI(MPI_Isend(sb + off[i], sizes[i], MPI_BYTE, right, 7,
                                MPI_COMM_WORLD, &rq[i]));
        }
        for (int i = 0; i < NSIZES; i++) {
            MPI_Status st;
            int n = -1;
            if (i % 4 == 1) compute(0.005);
            CHECK_MPI(MPI_Recv(rb, MAXSZ, MPI_BYTE, size == 2 ? MPI_ANY_SOURCE : left, 7,
                               MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_BYTE, &n);
            CHECK_INT(n, sizes[i]);
            CHECK_INT(st.MPI_SOURCE, left);
            CHECK_PATTERN(rb, (size_t)sizes[i], left * 1000 + round * 100 + i);
        }
        CHECK_MPI(MPI_Waitall(NSIZES, rq, MPI_STATUSES_IGNORE));
    }

    /* probe: sizes and tags learnt before receiving, in the order sent */
    for (int i = 0; i < NSIZES; i++) {
        mt_fill(sb + off[i], (size_t)sizes[i], rank * 77 + i);
        CHECK_MPI(MPI_Isend(sb + off[i], sizes[i], MPI_BYTE, right, 100 + i,
                            MPI_COMM_WORLD, &rq[i]));
    }
    for (int i = 0; i < NSIZES; i++) {
        MPI_Status st;
        int n = -1, flag = 0;
        if (i % 3 == 2) {
            MPI_Message m;
            CHECK_MPI(MPI_Mprobe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st));
            CHECK_INT(st.MPI_TAG, 100 + i);
            MPI_Get_count(&st, MPI_BYTE, &n);
            CHECK_INT(n, sizes[i]);
            CHECK_MPI(MPI_Mrecv(rb, n, MPI_BYTE, &m, &st));
        } else {
            if (i % 3 == 0)
                CHECK_MPI(MPI_Probe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            else
                while (!flag) CHECK_MPI(MPI_Iprobe(left, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            CHECK_INT(st.MPI_TAG, 100 + i);
            MPI_Get_count(&st, MPI_BYTE, &n);
            CHECK_INT(n, sizes[i]);
            CHECK_MPI(MPI_Recv(rb, n, MPI_BYTE, left, st.MPI_TAG, MPI_COMM_WORLD, &st));
        }
        CHECK_PATTERN(rb, (size_t)sizes[i], left * 77 + i);
    }
    CHECK_MPI(MPI_Waitall(NSIZES, rq, MPI_STATUSES_IGNORE));

    /* reuse: blocking sends to a computing receiver, the buffer overwritten at
     * once; even ranks send first, odd ones receive first (no cycle of
     * blocking sends), and with an odd count the last rank receives first */
    int sender_first = rank % 2 == 0 && !(size % 2 == 1 && rank == size - 1);
    for (int pass = 0; pass < 2; pass++) {
        if ((pass == 0) == sender_first) {
            for (int i = 0; i < NSIZES; i++) {
                mt_fill(sb, (size_t)sizes[i], rank * 31 + i);
                CHECK_MPI(MPI_Send(sb, sizes[i], MPI_BYTE, right, 20, MPI_COMM_WORLD));
                mt_fill(sb, (size_t)sizes[i], 999);    /* the message is gone: reuse */
            }
        } else {
            compute(0.02);
            for (int i = 0; i < NSIZES; i++) {
                CHECK_MPI(MPI_Recv(rb, MAXSZ, MPI_BYTE, left, 20, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
                CHECK_PATTERN(rb, (size_t)sizes[i], left * 31 + i);
                if (i % 3 == 0) compute(0.003);
            }
        }
    }

    /* types: a strided 1 MiB message (every other 4 KiB block of 2 MiB) and a
     * synchronous 256 KiB one, to a receiver that computes first */
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(256, 4096, 8192, MPI_BYTE, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    mt_fill(sb, 2 * 1048576, rank + 5);
    mt_fill(sb + 2 * 1048576, 262144, rank + 6);
    MPI_Request vr, sr;
    CHECK_MPI(MPI_Isend(sb, 1, vec, right, 30, MPI_COMM_WORLD, &vr));
    CHECK_MPI(MPI_Issend(sb + 2 * 1048576, 262144, MPI_BYTE, right, 31, MPI_COMM_WORLD, &sr));
    compute(0.01);
    CHECK_MPI(MPI_Recv(rb, 1048576, MPI_BYTE, left, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int b = 0; b < 256; b++)
        for (int k = 0; k < 4096; k += 509) {
            size_t src = (size_t)b * 8192 + (size_t)k;
            CHECK(rb[(size_t)b * 4096 + (size_t)k] == mt_pattern(left + 5, src),
                  "strided byte %zu of block %d", (size_t)k, b);
        }
    CHECK_MPI(MPI_Wait(&vr, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(rb, 262144, MPI_BYTE, left, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_PATTERN(rb, 262144, left + 6);
    CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Type_free(&vec));

    /* cancel: a receive nothing matches, between messages of the stream */
    for (int i = 0; i < 4; i++) {
        MPI_Request cr, s;
        MPI_Status st;
        int cancelled = 0;
        mt_fill(sb, (size_t)sizes[i], rank * 3 + i);
        CHECK_MPI(MPI_Irecv(rb, MAXSZ, MPI_BYTE, left, 999, MPI_COMM_WORLD, &cr));
        CHECK_MPI(MPI_Isend(sb, sizes[i], MPI_BYTE, right, 40, MPI_COMM_WORLD, &s));
        CHECK_MPI(MPI_Cancel(&cr));
        CHECK_MPI(MPI_Wait(&cr, &st));
        MPI_Test_cancelled(&st, &cancelled);
        CHECK_INT(cancelled, 1);
        CHECK_MPI(MPI_Recv(rb, MAXSZ, MPI_BYTE, left, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_PATTERN(rb, (size_t)sizes[i], left * 3 + i);
        CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    }

    free(sb);
    free(rb);
    if (rank == 0) stop_hogs();
    int rc = mt_finish("load_stage");
    MPI_Finalize();
    return rc;
}
