/* SPDX-License-Identifier: MIT */
/* Non-blocking and persistent collectives issued before a blocking one on
 * one rank ("early") and after it on the others, for each of the six
 * collectives that have shm state machines (barrier, bcast, reduce,
 * allreduce, gather, allgather), at 8 bytes (in the line), 1 KiB (a cell)
 * and 8 KiB (a slot), with the blocking call in between a barrier, a bcast or
 * an allreduce, and with a second non-blocking call outstanding (the early
 * rank starts both before the blocking call).  MPI 4.1 section 6.12 calls
 * that order erroneous, but MPICH and Open MPI run it (mpi4py's test_ulfm
 * testIAgree does it), and so does Courier: the non-blocking calls on the
 * shared area have a sequence of their own (src/coll/coll_nbshm.c).  Also a
 * new communicator whose first non-blocking call comes before the blocking
 * call that makes its area on one rank and after it on the others.  Every
 * datum is checked; with MIXED_EXPECT=on (off) the coll_<x>_algorithm
 * performance variables must name the shm algorithm (a schedule). */
#include "coll_nbvars.h"
#include <stdlib.h>
#include <string.h>

#define CHECK_FAIL(...) (mt_fail_(__FILE__, __LINE__, "data", __VA_ARGS__), 1)
enum { NSIZE = 3, NBLOCK = 3, ROUNDS = 2, SMALL_MAX = 4096 };
static const int counts[NSIZE] = { 2, 256, 2048 };      /* ints: 8 B, 1 KiB, 8 KiB */
static int rank, size, expect = -1;                      /* MIXED_EXPECT: 1 on, 0 off */
/* Right after a non-blocking or persistent call's selection: did it take
 * the path MIXED_EXPECT names?  Only for data of up to SMALL_MAX bytes (the
 * thresholds above belong to the selection table). */
static void check_alg(int c, int n, const char *what)
{
    if (!have_pvar || expect < 0 || size < 2 || n * (int)sizeof(int) > SMALL_MAX) return;
    int got = -1;
    CHECK_MPI(MPI_T_pvar_read(session, pv[c], &got));
    if (expect)
        CHECK(got == shm_id[c], "%s %s: algorithm %d, want shm (%d)", what, names[c], got,
              shm_id[c]);
    else
        CHECK(got != shm_id[c], "%s %s: the shm path ran, want a schedule", what, names[c]);
}

static int val(int r, int i, int salt)
{
    return r * 1000 + i * 3 + salt;
}
static int sum(int i, int salt)
{
    return 1000 * (size * (size - 1) / 2) + size * (i * 3 + salt);
}

/* One call's buffers: n ints (blocks of gather and allgather: n per rank). */
typedef struct {
    int coll, n, root, salt;
    int *s, *r;
} call_t;

static void call_init(call_t *k, int coll, int n, int root)
{
    k->coll = coll;
    k->n = n;
    k->root = root;
    k->s = mt_malloc(sizeof(int) * (size_t)n);
    k->r = mt_malloc(sizeof(int) * (size_t)n * (size_t)size);
}
static void call_free(call_t *k)
{
    free(k->s);
    free(k->r);
}
/* New data (salt) and cleared results. */
static void call_fill(call_t *k, int salt)
{
    k->salt = salt;
    for (int i = 0; i < k->n; i++) k->s[i] = val(rank, i, salt);
    for (int i = 0; i < k->n * size; i++) k->r[i] = -1;
    if (k->coll == BCAST)
        for (int i = 0; i < k->n; i++) k->r[i] = rank == k->root ? val(rank, i, salt) : -1;
}
static int call_start(call_t *k, MPI_Comm c, MPI_Request *req)
{
    switch (k->coll) {
    case BARRIER: return MPI_Ibarrier(c, req);
    case BCAST: return MPI_Ibcast(k->r, k->n, MPI_INT, k->root, c, req);
    case REDUCE: return MPI_Ireduce(k->s, k->r, k->n, MPI_INT, MPI_SUM, k->root, c, req);
    case ALLREDUCE: return MPI_Iallreduce(k->s, k->r, k->n, MPI_INT, MPI_SUM, c, req);
    case GATHER: return MPI_Igather(k->s, k->n, MPI_INT, k->r, k->n, MPI_INT, k->root, c, req);
    default: return MPI_Iallgather(k->s, k->n, MPI_INT, k->r, k->n, MPI_INT, c, req);
    }
}
static int call_init_persistent(call_t *k, MPI_Comm c, MPI_Request *req)
{
    MPI_Info i = MPI_INFO_NULL;
    switch (k->coll) {
    case BARRIER: return MPI_Barrier_init(c, i, req);
    case BCAST: return MPI_Bcast_init(k->r, k->n, MPI_INT, k->root, c, i, req);
    case REDUCE: return MPI_Reduce_init(k->s, k->r, k->n, MPI_INT, MPI_SUM, k->root, c, i, req);
    case ALLREDUCE: return MPI_Allreduce_init(k->s, k->r, k->n, MPI_INT, MPI_SUM, c, i, req);
    case GATHER:
        return MPI_Gather_init(k->s, k->n, MPI_INT, k->r, k->n, MPI_INT, k->root, c, i, req);
    default: return MPI_Allgather_init(k->s, k->n, MPI_INT, k->r, k->n, MPI_INT, c, i, req);
    }
}
static void call_check(const call_t *k, const char *what)
{
    int n = k->n, salt = k->salt, bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        if (k->coll == BCAST && k->r[i] != val(k->root, i, salt))
            bad = CHECK_FAIL("%s bcast n=%d [%d]: %d, want %d", what, n, i, k->r[i],
                             val(k->root, i, salt));
        if ((k->coll == ALLREDUCE || (k->coll == REDUCE && rank == k->root)) &&
            k->r[i] != sum(i, salt))
            bad = CHECK_FAIL("%s %s n=%d [%d]: %d, want %d", what, names[k->coll], n, i, k->r[i],
                             sum(i, salt));
    }
    if (k->coll == ALLGATHER || (k->coll == GATHER && rank == k->root))
        for (int r = 0; r < size && !bad; r++)
            for (int i = 0; i < n && !bad; i++)
                if (k->r[r * n + i] != val(r, i, salt))
                    bad = CHECK_FAIL("%s %s n=%d block %d [%d]: %d, want %d", what,
                                     names[k->coll], n, r, i, k->r[r * n + i], val(r, i, salt));
}

/* The blocking call between: a barrier, a bcast from `early`, or an
 * allreduce, its data checked. */
static void blocking(int kind, int early, int salt, MPI_Comm c)
{
    int v[2] = { val(rank, 0, salt), val(rank, 1, salt) }, w[2];
    if (kind == 0) {
        CHECK_MPI(MPI_Barrier(c));
    } else if (kind == 1) {
        CHECK_MPI(MPI_Bcast(v, 2, MPI_INT, early, c));
        CHECK(v[0] == val(early, 0, salt) && v[1] == val(early, 1, salt),
              "blocking bcast between: %d %d", v[0], v[1]);
    } else {
        CHECK_MPI(MPI_Allreduce(v, w, 2, MPI_INT, MPI_SUM, c));
        CHECK(w[0] == sum(0, salt) && w[1] == sum(1, salt), "blocking allreduce between: %d %d",
              w[0], w[1]);
    }
}

/* The early rank starts k (and a second non-blocking call, an Iallreduce of
 * two ints, when `two`) before the blocking call, the others after it.
 * persistent: *preq was made by call_init_persistent and is started. */
static void mixed(call_t *k, MPI_Request *preq, int early, int kind, int two, int salt,
                  MPI_Comm c, const char *what)
{
    MPI_Request req[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    int x[2] = { val(rank, 0, salt + 1), val(rank, 1, salt + 1) }, y[2] = { -1, -1 };
    call_fill(k, salt);
    CHECK_MPI(MPI_Barrier(c));
    for (int pass = 0; pass < 2; pass++) {
        if ((pass == 0) == (rank == early)) {
            if (preq) {
                CHECK_MPI(MPI_Start(preq));
                req[0] = *preq;
            } else {
                CHECK_MPI(call_start(k, c, &req[0]));
                check_alg(k->coll, k->n, what);
            }
            if (two) CHECK_MPI(MPI_Iallreduce(x, y, 2, MPI_INT, MPI_SUM, c, &req[1]));
        } else {
            blocking(kind, early, salt + 2, c);
        }
    }
    if (preq) {
        CHECK_MPI(MPI_Wait(&req[1], MPI_STATUS_IGNORE));   /* the later one first */
        CHECK_MPI(MPI_Wait(preq, MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    }
    call_check(k, what);
    if (two)
        CHECK(y[0] == sum(0, salt + 1) && y[1] == sum(1, salt + 1),
              "%s: second call's allreduce: %d %d", what, y[0], y[1]);
}

static void run_all(MPI_Comm c)
{
    int salt = 0;
    for (int coll = 0; coll < NCOLL; coll++)
        for (int z = 0; z < NSIZE; z++)
            for (int persistent = 0; persistent < 2; persistent++)
                for (int round = 0; round < ROUNDS; round++) {
                    int root = (round + coll) % size;
                    call_t k;
                    MPI_Request preq = MPI_REQUEST_NULL;
                    call_init(&k, coll, counts[z], root);
                    char what[96];
                    if (persistent) {
                        CHECK_MPI(call_init_persistent(&k, c, &preq));
                        check_alg(coll, counts[z], "persistent init");
                    }
                    for (int early = 0; early < size; early++) {
                        int kind = (early + round) % NBLOCK, two = (early + z) % 2;
                        snprintf(what, sizeof what, "%s %s n=%d root %d early %d between %d%s",
                                 persistent ? "persistent" : "non-blocking", names[coll],
                                 counts[z], root, early, kind, two ? " two" : "");
                        mixed(&k, persistent ? &preq : NULL, early, kind, two, salt += 5, c,
                              what);
                    }
                    if (persistent) CHECK_MPI(MPI_Request_free(&preq));
                    call_free(&k);
                }
}

/* A new communicator: rank 0 starts an Ibcast before the first blocking call
 * (which makes the area), the others after it, then the same again once the
 * area exists; the first is a schedule everywhere, the second not. */
static void new_comm(void)
{
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    for (int round = 0; round < 2; round++) {
        int v[4], w[2] = { rank, rank };
        MPI_Request req;
        for (int i = 0; i < 4; i++) v[i] = rank == 0 ? val(0, i, round) : -1;
        for (int pass = 0; pass < 2; pass++) {
            if ((pass == 0) == (rank == 0)) CHECK_MPI(MPI_Ibcast(v, 4, MPI_INT, 0, c, &req));
            else CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, w, 2, MPI_INT, MPI_SUM, c));
        }
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int i = 0; i < 4; i++)
            CHECK(v[i] == val(0, i, round), "new comm round %d bcast [%d]: %d", round, i, v[i]);
        CHECK(w[0] == size * (size - 1) / 2, "new comm round %d allreduce: %d", round, w[0]);
    }
    CHECK_MPI(MPI_Comm_free(&c));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *e = getenv("MIXED_EXPECT");
    if (e) expect = strcmp(e, "on") == 0 ? 1 : strcmp(e, "off") == 0 ? 0 : -1;
    pvar_open();
    new_comm();
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Barrier(c));   /* makes the area */
    run_all(c);
    CHECK_MPI(MPI_Comm_free(&c));
    pvar_close();
    return mt_finish("coll_nb_mixed") | (MPI_Finalize() != MPI_SUCCESS);
}
