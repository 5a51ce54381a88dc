/* SPDX-License-Identifier: MIT */
/* Blocking collectives on the node's shared-memory area from several threads
 * at once, each thread on a communicator of its own (MPI_THREAD_MULTIPLE;
 * docs/threads.md, "Collectives on distinct communicators": such calls take
 * no library lock once the communicator's area is made).  Every round a
 * thread runs MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Gather,
 * MPI_Scatter, MPI_Allgather, MPI_Alltoall, MPI_Reduce_scatter_block and
 * MPI_Reduce_scatter on its communicator, with roots and ops that move with
 * the round and counts from 1 element to past a slot (single copy; a few
 * sizes take the message algorithms, under the library lock, on the same
 * communicators); every element of every result names the rank, thread,
 * round and position it must come from and is checked.
 *
 * Arguments: [T] [mode] [rounds] (T threads, 2..4, default 3):
 *   all   every thread runs the rounds on a duplicate of its own;
 *   mix   the same, while thread 0 instead passes messages (0 B to 64 KiB)
 *         around the ring of ranks on a third communicator, checked;
 *   race  every round each thread duplicates a fresh communicator, the
 *         threads meet at a barrier of their own and all make their new
 *         areas at the same moment with their first collective, then run a
 *         round on them and free them;
 *   hold  after a first round (the areas made), thread 0 stays inside a
 *         user reduction operation, which runs under the library lock, while
 *         the others run the rounds with small counts (the shm algorithms at
 *         every rank count): they finish only if those calls take no library
 *         lock, else thread 0 gives up after HOLD_S seconds and the test
 *         fails. */
#include "mt_hold.h"
#include <pthread.h>
#include <sched.h>

#define MAXT 4
#define HOLD_S 20.0
#define RACE_ROUNDS 40
#define RING_MAX 65536

static int rank, size, nthreads, rounds = 1000, mode;
enum { MODE_ALL, MODE_MIX, MODE_RACE, MODE_HOLD };
static MPI_Comm own[MAXT], ring_comm;
static pthread_barrier_t meet;

/* Counts (elements per block) by round: mostly in a control line or a cell,
 * then a slot, and every 16th round past the single-copy limits.  `hold`
 * keeps to the first five, which the shm algorithms take at any rank count. */
static const int small_counts[] = { 1, 2, 14, 100, 250 };
static const int big_counts[] = { 3000, 9000 };
enum { NSMALL = sizeof small_counts / sizeof small_counts[0], MAXN = 9000 };

static int count_of(int i)
{
    if (mode != MODE_HOLD && i % 16 == 15) return big_counts[(i / 16) % 2];
    return small_counts[i % NSMALL];
}

/* The element k of what rank r of thread t sends to rank q in round i. */
static int val(int r, int q, int t, int i, int k)
{
    return r * 1000003 + q * 101 + t * 10007 + (i % 1000) * 31 + k;
}

typedef struct {
    int *s, *r;                 /* MAXN * size elements each */
    int *counts;
} bufs_t;

static void round_on(MPI_Comm c, int t, int i, bufs_t *b)
{
    int n = count_of(i), p = size;
    int *s = b->s, *r = b->r;
    MPI_Op op = i % 2 ? MPI_MAX : MPI_SUM;

    CHECK_MPI(MPI_Barrier(c));

    /* bcast */
    int root = i % p;
    for (int k = 0; k < n; k++) s[k] = rank == root ? val(root, 0, t, i, k) : -1;
    CHECK_MPI(MPI_Bcast(s, n, MPI_INT, root, c));
    for (int k = 0; k < n; k++)
        if (s[k] != val(root, 0, t, i, k)) {
            CHECK(0, "thread %d round %d: bcast (n %d) element %d is %d", t, i, n, k, s[k]);
            break;
        }

    /* reduce and allreduce: sum or max over the ranks of val(r, 0, ...) */
    for (int k = 0; k < n; k++) s[k] = val(rank, 0, t, i, k);
    root = (i + 1) % p;
    CHECK_MPI(MPI_Reduce(s, r, n, MPI_INT, op, root, c));
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) CHECK_MPI(MPI_Allreduce(s, r, n, MPI_INT, op, c));
        else if (rank != root) continue;
        for (int k = 0; k < n; k++) {
            long want = 0;
            for (int q = 0; q < p; q++)
                want = op == MPI_SUM ? want + val(q, 0, t, i, k) : val(q, 0, t, i, k);
            if (r[k] != (int)want) {
                CHECK(0, "thread %d round %d: %s (n %d) element %d is %d, not %ld", t, i,
                      pass ? "allreduce" : "reduce", n, k, r[k], want);
                break;
            }
        }
    }

    /* gather */
    root = (i + 2) % p;
    for (int k = 0; k < n; k++) s[k] = val(rank, root, t, i, k);
    CHECK_MPI(MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, root, c));
    if (rank == root)
        for (int q = 0; q < p; q++)
            for (int k = 0; k < n; k++)
                if (r[q * n + k] != val(q, root, t, i, k)) {
                    CHECK(0, "thread %d round %d: gather (n %d) block %d element %d is %d", t,
                          i, n, q, k, r[q * n + k]);
                    q = p;
                    break;
                }

    /* scatter */
    root = (i + 3) % p;
    if (rank == root)
        for (int q = 0; q < p; q++)
            for (int k = 0; k < n; k++) s[q * n + k] = val(root, q, t, i, k);
    CHECK_MPI(MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, root, c));
    for (int k = 0; k < n; k++)
        if (r[k] != val(root, rank, t, i, k)) {
            CHECK(0, "thread %d round %d: scatter (n %d) element %d is %d", t, i, n, k, r[k]);
            break;
        }

    /* allgather */
    for (int k = 0; k < n; k++) s[k] = val(rank, 1, t, i, k);
    CHECK_MPI(MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, c));
    for (int q = 0; q < p; q++)
        for (int k = 0; k < n; k++)
            if (r[q * n + k] != val(q, 1, t, i, k)) {
                CHECK(0, "thread %d round %d: allgather (n %d) block %d element %d is %d", t, i,
                      n, q, k, r[q * n + k]);
                q = p;
                break;
            }

    /* alltoall, and reduce_scatter_block over the same blocks: rank q gets
     * every rank's block q (and its sum) */
    for (int q = 0; q < p; q++)
        for (int k = 0; k < n; k++) s[q * n + k] = val(rank, q, t, i, k);
    CHECK_MPI(MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, c));
    for (int q = 0; q < p; q++)
        for (int k = 0; k < n; k++)
            if (r[q * n + k] != val(q, rank, t, i, k)) {
                CHECK(0, "thread %d round %d: alltoall (n %d) block %d element %d is %d", t, i,
                      n, q, k, r[q * n + k]);
                q = p;
                break;
            }
    CHECK_MPI(MPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, c));
    for (int k = 0; k < n; k++) {
        long want = 0;
        for (int q = 0; q < p; q++) want += val(q, rank, t, i, k);
        if (r[k] != (int)want) {
            CHECK(0, "thread %d round %d: reduce_scatter_block (n %d) element %d is %d", t, i, n,
                  k, r[k]);
            break;
        }
    }

    /* reduce_scatter: rank q's block has n + q elements (max with MPI_MAX) */
    int off = 0, mine = 0;
    for (int q = 0; q < p; q++) {
        b->counts[q] = n + q;
        if (q == rank) mine = off;
        for (int k = 0; k < n + q; k++) s[off + k] = val(rank, q, t, i, k);
        off += n + q;
    }
    CHECK_MPI(MPI_Reduce_scatter(s, r, b->counts, MPI_INT, op, c));
    for (int k = 0; k < n + rank; k++) {
        long want = 0;
        for (int q = 0; q < p; q++)
            want = op == MPI_SUM ? want + val(q, rank, t, i, k) : val(q, rank, t, i, k);
        if (r[k] != (int)want) {
            CHECK(0, "thread %d round %d: reduce_scatter (n %d) element %d is %d, not %ld (at %d)",
                  t, i, n, k, r[k], want, mine);
            break;
        }
    }
}

/* mix: messages around the ring of ranks on ring_comm, each checked. */
static void ring_rounds(int t)
{
    unsigned char *sb = mt_malloc(RING_MAX), *rb = mt_malloc(RING_MAX);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < rounds / 4 + 1; i++) {
        size_t len = i % 5 == 4 ? RING_MAX : (size_t)(i % 5) * 100;
        mt_fill(sb, len, (long)rank * 7919 + i);
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(sb, (int)len, MPI_BYTE, right, i, rb, RING_MAX, MPI_BYTE, left, i,
                               ring_comm, &st));
        int got = -1;
        MPI_Get_count(&st, MPI_BYTE, &got);
        CHECK(got == (int)len, "thread %d ring %d: %d bytes, not %zu", t, i, got, len);
        CHECK_PATTERN(rb, len, (long)left * 7919 + i);
    }
    free(sb);
    free(rb);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    bufs_t b = { mt_malloc((size_t)MAXN * (size_t)size * sizeof(int) + 64 * sizeof(int)),
                 mt_malloc((size_t)MAXN * (size_t)size * sizeof(int) + 64 * sizeof(int)),
                 mt_malloc((size_t)size * sizeof(int)) };
    if (mode == MODE_MIX && t == 0) {
        ring_rounds(t);
    } else if (mode == MODE_RACE) {
        for (int i = 0; i < RACE_ROUNDS; i++) {
            MPI_Comm c;
            CHECK_MPI(MPI_Comm_dup(own[t], &c));
            pthread_barrier_wait(&meet);   /* every thread's first call on its area at once */
            round_on(c, t, i, &b);
            CHECK_MPI(MPI_Comm_free(&c));
        }
    } else {
        if (mode == MODE_HOLD)
            mt_hold_wait_held();
        for (int i = 0; i < rounds; i++) round_on(own[t], t, i, &b);
    }
    mt_hold_done();
    free(b.s);
    free(b.r);
    free(b.counts);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 2, MAXT, 3);
    if (argc > 2) {
        mode = !strcmp(argv[2], "mix") ? MODE_MIX : !strcmp(argv[2], "race") ? MODE_RACE
               : !strcmp(argv[2], "hold") ? MODE_HOLD : MODE_ALL;
    }
    if (argc > 3 && atoi(argv[3]) > 0) rounds = atoi(argv[3]);
    for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &ring_comm));
    pthread_barrier_init(&meet, NULL, (unsigned)nthreads);
    pthread_t th[MAXT];
    double t0 = mt_now();
    if (mode == MODE_HOLD) {
        /* a first round on every thread's communicator makes its area, under
         * the library lock; then thread 0 holds that lock while the others
         * run every round */
        bufs_t b = { mt_malloc((size_t)MAXN * (size_t)size * sizeof(int)),
                     mt_malloc((size_t)MAXN * (size_t)size * sizeof(int)),
                     mt_malloc((size_t)size * sizeof(int)) };
        for (int t = 1; t < nthreads; t++) round_on(own[t], t, 0, &b);
        free(b.s);
        free(b.r);
        free(b.counts);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Op op;
        int x = 1, y = 2;
        mt_hold.workers = nthreads - 1;
        mt_hold.limit = HOLD_S;
        CHECK_MPI(MPI_Op_create(mt_hold_op, 1, &op));
        for (int t = 1; t < nthreads; t++)
            pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        CHECK_MPI(MPI_Reduce_local(&x, &y, 1, MPI_INT, op));
        for (int t = 1; t < nthreads; t++) pthread_join(th[t], NULL);
        CHECK(!mt_hold.too_long, "threads did not finish %d rounds of collectives in %.0f s while "
                          "another thread held the library lock", rounds, HOLD_S);
        MPI_Op_free(&op);
    } else {
        for (int t = 0; t < nthreads; t++)
            pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    }
    double dt = mt_now() - t0;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0 && getenv("THR_COLLSHM_VERBOSE"))
        printf("thr_collshm: %d threads, %d rounds, %.3f s\n", nthreads, rounds, dt);
    pthread_barrier_destroy(&meet);
    for (int t = 0; t < nthreads; t++) MPI_Comm_free(&own[t]);
    MPI_Comm_free(&ring_comm);
    int rc = mt_finish("thr_collshm");
    MPI_Finalize();
    return rc;
}
