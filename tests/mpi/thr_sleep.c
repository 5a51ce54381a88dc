/* SPDX-License-Identifier: MIT */
/* Threads that wait sleep (MPI_THREAD_MULTIPLE, docs/threads.md "Waiting").
 * Part 1: on every rank but 0, three threads wait in MPI_Recv while rank 0
 * sleeps 2 s outside MPI; the CPU time the waiting process spent meanwhile
 * (getrusage, all its threads) must stay small, and every message must arrive
 * intact afterwards.  Part 2 (argument "stress"): many short waits, each
 * thread receiving from another thread of its own process (a completion that
 * rings no peer's doorbell) and from the previous rank, with short random
 * pauses so that threads fall asleep often; a lost wake-up hangs it (the
 * list runs it with the sleep cap and the liveness checks off) and the
 * timeout catches it.  Every value is checked. */
#include "mpitest.h"
#include <pthread.h>
#include <unistd.h>

#define NT 3
#define WAIT_S 2
#define MAX_CPU_S 0.3
#define ROUNDS 400

static int rank, size;
static MPI_Comm comm[NT], selfc[NT];

static void *idle_receiver(void *arg)
{
    int t = (int)(intptr_t)arg, v[64];
    CHECK_MPI(MPI_Recv(v, 64, MPI_INT, 0, t, comm[t], MPI_STATUS_IGNORE));
    for (int i = 0; i < 64; i++)
        CHECK(v[i] == rank * 1000 + t * 64 + i, "thread %d: element %d is %d", t, i, v[i]);
    return NULL;
}

static void idle_part(void)
{
    if (rank == 0) {
        sleep(WAIT_S);
        int v[64];
        for (int r = 1; r < size; r++)
            for (int t = 0; t < NT; t++) {
                for (int i = 0; i < 64; i++) v[i] = r * 1000 + t * 64 + i;
                CHECK_MPI(MPI_Send(v, 64, MPI_INT, r, t, comm[t]));
            }
        return;
    }
    pthread_t th[NT];
    double c0 = mt_cpu_seconds();
    for (int t = 0; t < NT; t++) pthread_create(&th[t], NULL, idle_receiver, (void *)(intptr_t)t);
    for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    double used = mt_cpu_seconds() - c0;
    if (getenv("THR_SLEEP_VERBOSE")) printf("rank %d: %.3f s of CPU\n", rank, used);
    CHECK(used < MAX_CPU_S, "%d threads waiting %d s in MPI_Recv used %.2f s of CPU", NT, WAIT_S,
          used);
}

static void pause_a_little(unsigned *seed)
{
    if (rand_r(seed) % 3 == 0) usleep((useconds_t)(rand_r(seed) % 400));
}

static void *stress_worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned seed = (unsigned)(rank * 31 + t);
    int next = (t + 1) % NT, prev = (t + NT - 1) % NT;
    for (int i = 0; i < ROUNDS; i++) {
        /* from the previous thread of this process on MPI_COMM_SELF's dup */
        int v[2] = { t, i }, r[2] = { -1, -1 };
        MPI_Request q;
        CHECK_MPI(MPI_Irecv(r, 2, MPI_INT, 0, t, selfc[t], &q));
        pause_a_little(&seed);
        CHECK_MPI(MPI_Send(v, 2, MPI_INT, 0, next, selfc[next]));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(r[0] == prev && r[1] == i, "thread %d round %d: got (%d,%d) from thread %d", t, i,
              r[0], r[1], prev);
        /* from the previous rank on this thread's communicator */
        int w[2] = { rank, i }, s[2] = { -1, -1 };
        CHECK_MPI(MPI_Irecv(s, 2, MPI_INT, (rank + size - 1) % size, 0, comm[t], &q));
        pause_a_little(&seed);
        CHECK_MPI(MPI_Send(w, 2, MPI_INT, (rank + 1) % size, 0, comm[t]));
        CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(s[0] == (rank + size - 1) % size && s[1] == i,
              "thread %d round %d: got (%d,%d) from the previous rank", t, i, s[0], s[1]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_rank();
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int t = 0; t < NT; t++) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm[t]));
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_SELF, &selfc[t]));
    }
    if (argc > 1 && !strcmp(argv[1], "stress")) {
        pthread_t th[NT];
        for (int t = 0; t < NT; t++)
            pthread_create(&th[t], NULL, stress_worker, (void *)(intptr_t)t);
        for (int t = 0; t < NT; t++) pthread_join(th[t], NULL);
    } else {
        idle_part();
    }
    for (int t = 0; t < NT; t++) {
        CHECK_MPI(MPI_Comm_free(&comm[t]));
        CHECK_MPI(MPI_Comm_free(&selfc[t]));
    }
    int rc = mt_finish("thr_sleep");
    MPI_Finalize();
    return rc;
}
