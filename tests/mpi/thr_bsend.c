/* SPDX-License-Identifier: MIT */
/* Buffered sends from several threads, phase after phase, through a buffer
 * that holds one phase's messages (as MPICH's threads/pt2pt
 * mt_bsendrecv_huge sizes it): T threads per rank each send N messages of
 * 16 KiB (past the eager limit: they stay pending until received) with
 * MPI_Bsend (or MPI_Ibsend + MPI_Wait with the argument "ibsend") to the
 * next rank, whose thread of the same number receives them from the
 * previous rank with its own tag and checks every byte; then MPI_Barrier
 * and the next phase.  At the start of a phase the last phase's messages
 * have arrived, but the sender may not have seen their acknowledgements
 * yet: a send that finds the buffer full must let progress give their room
 * back rather than fail with MPI_ERR_BUFFER.  Then, in one thread, a buffer
 * too small for two pending messages: the second is refused with
 * MPI_ERR_BUFFER (after a bounded wait), not a hang.  Arguments: T (default
 * 4), then "ibsend". */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 4
#define NMSG 8
#define LEN 4096          /* ints: 16 KiB */
#define PHASES 3

static int rank, size, nthreads, nonblocking, phase;

/* Distinct modulo 256 (what mt_pattern sees) for every sender, thread and
 * message of a phase, and from those of the phases before and after. */
static long seed_of(int from, int t, int i)
{
    return (long)phase * 128 + (from * MAXT + t) * NMSG + i;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int *out = mt_malloc(LEN * sizeof(int));
    MPI_Request rr[NMSG];
    int *inbox = mt_malloc((size_t)NMSG * LEN * sizeof(int));
    for (int i = 0; i < NMSG; i++)
        CHECK_MPI(MPI_Irecv(inbox + (size_t)i * LEN, LEN, MPI_INT, from, t, MPI_COMM_WORLD, &rr[i]));
    for (int i = 0; i < NMSG; i++) {
        mt_fill(out, LEN * sizeof(int), seed_of(rank, t, i));
        if (nonblocking) {
            MPI_Request r;
            CHECK_MPI(MPI_Ibsend(out, LEN, MPI_INT, to, t, MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Bsend(out, LEN, MPI_INT, to, t, MPI_COMM_WORLD));
        }
        memset(out, 0xaa, LEN * sizeof(int));   /* the data was copied: free again */
    }
    CHECK_MPI(MPI_Waitall(NMSG, rr, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NMSG; i++) CHECK_PATTERN(inbox + (size_t)i * LEN, LEN * sizeof(int), seed_of(from, t, i));
    free(inbox);
    free(out);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 1, MAXT, 4);
    nonblocking = argc > 2 && strcmp(argv[2], "ibsend") == 0;

    /* room for one phase's messages, and MPI_BSEND_OVERHEAD for all of them */
    int bytes = (int)(LEN * sizeof(int)) * NMSG * nthreads + MPI_BSEND_OVERHEAD * NMSG * nthreads * PHASES;
    char *buf = mt_malloc((size_t)bytes);
    CHECK_MPI(MPI_Buffer_attach(buf, bytes));
    for (phase = 0; phase < PHASES; phase++) {
        pthread_t th[MAXT];
        for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    char *back = NULL;
    int bsize = -1;
    CHECK_MPI(MPI_Buffer_detach(&back, &bsize));
    CHECK(back == buf && bsize == bytes, "detach returned %p, %d bytes", (void *)back, bsize);

    /* a buffer for one pending message: the second is refused, in time */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int one = (int)(LEN * sizeof(int)) + MPI_BSEND_OVERHEAD;
    CHECK_MPI(MPI_Buffer_attach(buf, one));
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int *out = mt_malloc(2 * LEN * sizeof(int)), *in = mt_malloc(LEN * sizeof(int));
    mt_fill(out, LEN * sizeof(int), 77 + rank);
    mt_fill(out + LEN, LEN * sizeof(int), 177 + rank);
    CHECK_MPI(MPI_Bsend(out, LEN, MPI_INT, to, 50, MPI_COMM_WORLD));
    int rc2 = MPI_Bsend(out + LEN, LEN, MPI_INT, to, 51, MPI_COMM_WORLD);
    /* an MPI whose 16 KiB messages go eagerly (MPICH; Courier to itself, or
     * staged for a peer it sees not running) may have room again; Courier's
     * rendezvous to another rank stays pending until received, so there
     * (the list sets COURIER_BSEND_REFUSED with the adaptive protocol off)
     * the second must be refused after the wait */
    if (getenv("COURIER_BSEND_REFUSED") && size > 1) CHECK_CLASS(rc2, MPI_ERR_BUFFER);
    else if (rc2 != MPI_SUCCESS) CHECK_CLASS(rc2, MPI_ERR_BUFFER);
    /* everyone's second send was decided before anyone receives */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(in, LEN, MPI_INT, from, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_PATTERN(in, LEN * sizeof(int), 77 + from);
    /* whether the previous rank's second message went (its decision, not ours) */
    int sent2 = rc2 == MPI_SUCCESS, from_sent2 = -1;
    CHECK_MPI(MPI_Sendrecv(&sent2, 1, MPI_INT, to, 52, &from_sent2, 1, MPI_INT, from, 52,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (from_sent2) {
        CHECK_MPI(MPI_Recv(in, LEN, MPI_INT, from, 51, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_PATTERN(in, LEN * sizeof(int), 177 + from);
    }
    CHECK_MPI(MPI_Buffer_detach(&back, &bsize));
    free(out);
    free(in);
    free(buf);
    int rc = mt_finish(nonblocking ? "thr_bsend ibsend" : "thr_bsend");
    MPI_Finalize();
    return rc;
}
