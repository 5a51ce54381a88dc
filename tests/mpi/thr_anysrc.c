/* SPDX-License-Identifier: MIT */
/* MPI_THREAD_MULTIPLE stress with MPI_ANY_SOURCE and MPI_ANY_TAG: on every
 * rank, T sender threads each send M messages to every rank (itself too) with
 * their thread number as tag, while T receiver threads take messages with
 * MPI_ANY_SOURCE / MPI_ANY_TAG until all have arrived.  Every message carries
 * (source, tag, sequence) and a pattern; each is checked, must arrive exactly
 * once, and its status must name its true source and tag.  Argument: T
 * (default 2). */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 4
#define M 60
#define WORDS 4
#define BIG 20000      /* every 7th message is this long (rendezvous at default settings) */

static int rank, size, nthreads;
static MPI_Comm comm;
static unsigned char *seen;      /* [src][tag][seq] */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static int received;             /* under seen_lock */

static size_t len_of(int seq)
{
    return seq % 7 == 3 ? BIG : (size_t)(seq % 5) * 40 + WORDS * sizeof(int);
}

static void *sender(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *buf = mt_malloc(BIG);
    for (int seq = 0; seq < M; seq++)
        for (int k = 0; k < size; k++) {
            int dest = (rank + k + t) % size;
            size_t n = len_of(seq);
            mt_fill(buf, n, (long)rank * 1000 + t * 100 + seq);
            int hdr[WORDS] = { rank, t, seq, (int)n };
            memcpy(buf, hdr, sizeof hdr);
            if (seq % 3 == 0) {
                MPI_Request rq;
                CHECK_MPI(MPI_Isend(buf, (int)n, MPI_BYTE, dest, t, comm, &rq));
                CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            } else {
                CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, dest, t, comm));
            }
        }
    free(buf);
    return NULL;
}

static void *receiver(void *arg)
{
    (void)arg;
    unsigned char *buf = mt_malloc(BIG);
    int total = size * nthreads * M;
    for (;;) {
        pthread_mutex_lock(&seen_lock);
        int mine = received < total ? ++received : 0;
        pthread_mutex_unlock(&seen_lock);
        if (!mine) break;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(buf, BIG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
        int hdr[WORDS];
        memcpy(hdr, buf, sizeof hdr);
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK_INT(st.MPI_SOURCE, hdr[0]);
        CHECK_INT(st.MPI_TAG, hdr[1]);
        CHECK_INT(count, hdr[3]);
        if (hdr[0] < 0 || hdr[0] >= size || hdr[1] < 0 || hdr[1] >= nthreads || hdr[2] < 0 ||
            hdr[2] >= M || (size_t)hdr[3] != len_of(hdr[2])) {
            CHECK(0, "bad header %d %d %d %d", hdr[0], hdr[1], hdr[2], hdr[3]);
            continue;
        }
        unsigned char want[BIG];
        mt_fill(want, (size_t)count, (long)hdr[0] * 1000 + hdr[1] * 100 + hdr[2]);
        CHECK(memcmp(buf + sizeof hdr, want + sizeof hdr, (size_t)count - sizeof hdr) == 0,
              "payload of message (%d,%d,%d) differs", hdr[0], hdr[1], hdr[2]);
        pthread_mutex_lock(&seen_lock);
        unsigned char *s = &seen[((size_t)hdr[0] * MAXT + (size_t)hdr[1]) * M + (size_t)hdr[2]];
        int dup = (*s)++;
        pthread_mutex_unlock(&seen_lock);
        CHECK(dup == 0, "message (%d,%d,%d) arrived twice", hdr[0], hdr[1], hdr[2]);
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 1, MAXT, 2);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    seen = calloc((size_t)size * MAXT * M, 1);
    pthread_t th[2 * MAXT];
    for (int t = 0; t < nthreads; t++) {
        pthread_create(&th[2 * t], NULL, receiver, NULL);
        pthread_create(&th[2 * t + 1], NULL, sender, (void *)(intptr_t)t);
    }
    for (int t = 0; t < 2 * nthreads; t++) pthread_join(th[t], NULL);
    for (int s = 0; s < size; s++)
        for (int t = 0; t < nthreads; t++)
            for (int q = 0; q < M; q++)
                CHECK(seen[((size_t)s * MAXT + (size_t)t) * M + (size_t)q] == 1,
                      "message (%d,%d,%d) arrived %d times", s, t, q,
                      seen[((size_t)s * MAXT + (size_t)t) * M + (size_t)q]);
    free(seen);
    CHECK_MPI(MPI_Comm_free(&comm));
    int rc = mt_finish("thr_anysrc");
    MPI_Finalize();
    return rc;
}
