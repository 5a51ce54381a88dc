/* SPDX-License-Identifier: MIT */
/* Halo exchanges beside CPU hogs (issue 18's protocols for time-sliced
 * ranks): rank 0 starts one busy process per core, then
 *   halo:  every rank exchanges 16 KB - 256 KB messages with both ring
 *          neighbours (both ways, non-blocking), data checked; the 32 KB
 *          exchange is timed and printed (an indication, not a benchmark);
 *   order: rank 0 sends rank 1 a stream of mixed sizes (8 B - 300 KB) with one
 *          tag, while rank 1 first receives late (each handshake slow: the
 *          sender switches the peer to eager), then takes a burst with many
 *          messages in flight, then receives at once (handshakes fast: back
 *          to rendezvous); every message must arrive in the order sent.
 * Under Courier with COURIER_ADAPTIVE set, rank 0 also checks through MPI_T's
 * counters which protocol the adaptive range (above the 8 KiB eager limit, up
 * to the 64 KiB adaptive limit) took: never eager at 0, always at 2, both
 * (a switch) at 1.  Rank counts 2-4 on a 2-core machine; the list's timeout
 * catches a hang. */
#define _GNU_SOURCE
#include "mpitest.h"
#include "hogs.h"
#include <time.h>
#include <unistd.h>

static const int halo_sizes[] = { 16384, 20000, 32768, 40000, 65536, 131072, 262144 };
#define NHALO ((int)(sizeof halo_sizes / sizeof halo_sizes[0]))
static const int order_sizes[] = { 8, 16384, 300000, 32768, 4096, 65536, 100000, 40000, 20000 };
#define NORDER ((int)(sizeof order_sizes / sizeof order_sizes[0]))
#define EAGER_LIMIT 8192        /* Courier's defaults, for the counter checks */
#define ADAPT_LIMIT 65536

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long seed_of(int src, int it, int si, int dir)
{
    return (((long)src * 64 + si) * 2 + dir) * 100000L + it;
}

/* One exchange of n bytes with both neighbours; dir 0 travels rightwards. */
static void halo_once(int rank, int left, int right, int it, int si, int n, char *bufs[4])
{
    MPI_Request rq[4];
    mt_fill(bufs[2], (size_t)n, seed_of(rank, it, si, 0));
    mt_fill(bufs[3], (size_t)n, seed_of(rank, it, si, 1));
    CHECK_MPI(MPI_Irecv(bufs[0], n, MPI_CHAR, left, 2 * si, MPI_COMM_WORLD, &rq[0]));
    CHECK_MPI(MPI_Irecv(bufs[1], n, MPI_CHAR, right, 2 * si + 1, MPI_COMM_WORLD, &rq[1]));
    CHECK_MPI(MPI_Isend(bufs[2], n, MPI_CHAR, right, 2 * si, MPI_COMM_WORLD, &rq[2]));
    CHECK_MPI(MPI_Isend(bufs[3], n, MPI_CHAR, left, 2 * si + 1, MPI_COMM_WORLD, &rq[3]));
    CHECK_MPI(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    CHECK_PATTERN(bufs[0], (size_t)n, seed_of(left, it, si, 0));
    CHECK_PATTERN(bufs[1], (size_t)n, seed_of(right, it, si, 1));
}

static void halo(int rank, int size)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    char *bufs[4];
    for (int i = 0; i < 4; i++) bufs[i] = mt_malloc(262144);
    for (int it = 0; it < 6; it++)
        for (int si = 0; si < NHALO; si++) halo_once(rank, left, right, it, si, halo_sizes[si], bufs);
    /* the 32 KB exchange, timed */
    int reps = 200;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (int it = 0; it < reps; it++) halo_once(rank, left, right, it, 2, 32768, bufs);
    double t = now() - t0, tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        const char *m = getenv("COURIER_ADAPTIVE");
        printf("# load_halo np=%d adaptive=%s: 32 KB halo exchange %.1f us each (%d reps)\n", size,
               m ? m : "default", 1e6 * tmax / reps, reps);
    }
    for (int i = 0; i < 4; i++) free(bufs[i]);
}

/* MPI_T counter `name` (a new handle starts at 0), or -1 when there is none
 * (another MPI). */
static int counter_open(MPI_T_pvar_session s, const char *name, MPI_T_pvar_handle *h)
{
    int idx, count;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS) return -1;
    if (MPI_T_pvar_handle_alloc(s, idx, NULL, h, &count) != MPI_SUCCESS) return -1;
    return 0;
}

static unsigned long long counter_read(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    CHECK_MPI(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* Message i of the stream: its size, and its first long holds i. */
static void order_send(int i, char *buf, MPI_Request *rq)
{
    int n = order_sizes[i % NORDER];
    mt_fill(buf, (size_t)n, i);
    long seq = i;
    memcpy(buf, &seq, sizeof seq);
    if (rq)
        CHECK_MPI(MPI_Isend(buf, n, MPI_CHAR, 1, 7, MPI_COMM_WORLD, rq));
    else
        CHECK_MPI(MPI_Send(buf, n, MPI_CHAR, 1, 7, MPI_COMM_WORLD));
}

static void order_recv(int i, char *buf)
{
    MPI_Status st;
    int n = order_sizes[i % NORDER], got = -1;
    CHECK_MPI(MPI_Recv(buf, 300000, MPI_CHAR, 0, 7, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Get_count(&st, MPI_CHAR, &got));
    long seq = -1;
    memcpy(&seq, buf, sizeof seq);
    CHECK_INT(seq, i);
    CHECK_INT(got, n);
    if (seq == i && got == n) {
        /* the pattern holds from byte 8 on */
        char *ref = mt_malloc((size_t)n);
        mt_fill(ref, (size_t)n, i);
        CHECK(memcmp(buf + 8, ref + 8, (size_t)n - 8) == 0, "message %d: data differ", i);
        free(ref);
    }
}

enum { SLOW = 27, BURST = 36, FAST = 45 };

static void order(int rank)
{
    if (rank > 1) return;
    if (rank == 1) {
        char *buf = mt_malloc(300000);
        for (int i = 0; i < SLOW; i++) {
            usleep(2000);                  /* not polling: every handshake is slow */
            order_recv(i, buf);
        }
        usleep(20000);                     /* the whole burst is in flight */
        for (int i = SLOW; i < SLOW + BURST; i++) order_recv(i, buf);
        for (int i = SLOW + BURST; i < SLOW + BURST + FAST; i++) order_recv(i, buf);
        free(buf);
        return;
    }
    char *bufs[BURST];
    for (int i = 0; i < BURST; i++) bufs[i] = mt_malloc(300000);
    for (int i = 0; i < SLOW; i++) order_send(i, bufs[0], NULL);
    MPI_Request rq[BURST];
    for (int i = 0; i < BURST; i++) order_send(SLOW + i, bufs[i], &rq[i]);
    CHECK_MPI(MPI_Waitall(BURST, rq, MPI_STATUSES_IGNORE));
    for (int i = SLOW + BURST; i < SLOW + BURST + FAST; i++) order_send(i, bufs[0], NULL);
    for (int i = 0; i < BURST; i++) free(bufs[i]);
}

/* Rank 0's messages of the order stream by protocol, against the mode. */
static void order_counted(int rank)
{
    const char *mode = getenv("COURIER_ADAPTIVE");
    MPI_T_pvar_session s;
    MPI_T_pvar_handle he, hr;
    int have = rank == 0 && mode && MPI_T_pvar_session_create(&s) == MPI_SUCCESS;
    if (have && (counter_open(s, "sent_messages_shm_eager", &he) != 0 ||
                 counter_open(s, "sent_messages_shm_rndv", &hr) != 0))
        have = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    order(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!have) return;
    int total = SLOW + BURST + FAST, small = 0, big = 0;
    for (int i = 0; i < total; i++) {
        int n = order_sizes[i % NORDER];
        small += n <= EAGER_LIMIT;
        big += n > ADAPT_LIMIT;
    }
    /* rank 0 sent nothing else on shm between the barriers (barriers that
     * go through messages add small eager ones: counted apart) */
    long long eager = (long long)counter_read(s, he), rndv = (long long)counter_read(s, hr);
    long long a_eager = eager - small, a_rndv = rndv - big, range = total - small - big;
    CHECK(a_eager >= 0 && a_rndv >= 0, "eager %lld, rendezvous %lld", eager, rndv);
    CHECK(a_eager + a_rndv >= range, "adaptive range: %lld + %lld of %lld", a_eager, a_rndv,
          range);
    if (!strcmp(mode, "0")) CHECK_INT(a_rndv, range);
    if (!strcmp(mode, "2")) CHECK_INT(a_rndv, 0);
    /* automatic: some went eagerly (the slow part), and, unless ranks
     * outnumber cores (then a peer may rightly stay time-sliced to the end,
     * its probe interval grown past the stream), some by rendezvous again */
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int oversub = size > sysconf(_SC_NPROCESSORS_ONLN);
    if (!strcmp(mode, "1"))
        CHECK(a_rndv < range && (a_rndv > 0 || oversub),
              "auto: %lld of %lld by rendezvous (no switch)", a_rndv, range);
    MPI_T_pvar_session_free(&s);
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) start_hogs();
    MPI_Barrier(MPI_COMM_WORLD);
    halo(rank, size);
    order_counted(rank);
    int rc = mt_finish("load_halo");
    if (rank == 0) stop_hogs();
    MPI_T_finalize();
    MPI_Finalize();
    return rc;
}
