/* SPDX-License-Identifier: MIT */
/* Atomicity and progress of one-sided operations: every rank accumulates
 * into the same elements of rank 0 at once (under a shared lock, so the
 * operations really are concurrent), takes tickets with MPI_Fetch_and_op,
 * and increments a counter under a spin lock built from
 * MPI_Compare_and_swap; the totals must be exact.  A large get and put (many
 * times the active-message piece size, with a strided datatype) check the
 * pieces, and a fetch-and-op on padded pairs (MPI_SHORT_INT).  When every rank is on one node, rank 0 then computes without
 * calling MPI while the others lock, put, get and unlock its window: their
 * data must arrive before rank 0 calls MPI again (across nodes the target
 * serves requests only inside MPI calls: docs/rma.md). */
#include "mpitest.h"
#include <string.h>
#include <time.h>

enum { MAX_ROUNDS = 200, NE = 8, BIG = 200000 };
static int me, np;
static int ROUNDS = MAX_ROUNDS;  /* fewer across nodes, where each step is a round trip */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void concurrent(MPI_Win w, long *mem)
{
    /* mem[0..NE): accumulate targets; mem[NE]: tickets; mem[NE+1]: the spin lock;
     * mem[NE+2]: the counter it protects */
    long one[NE], tickets[MAX_ROUNDS];
    for (int i = 0; i < NE; i++) one[i] = i + 1;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    for (int r = 0; r < ROUNDS; r++) {
        CHECK_MPI(MPI_Accumulate(one, NE, MPI_LONG, 0, 0, NE, MPI_LONG, MPI_SUM, w));
        long inc = 1;
        CHECK_MPI(MPI_Fetch_and_op(&inc, &tickets[r], MPI_LONG, 0, NE, MPI_SUM, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        /* take the spin lock, increment the counter with get + put, release */
        long zero = 0, mine = me + 1, seen = -1;
        do {
            CHECK_MPI(MPI_Compare_and_swap(&mine, &zero, &seen, MPI_LONG, 0, NE + 1, w));
            CHECK_MPI(MPI_Win_flush(0, w));
        } while (seen != 0);
        long c = -1, noop = 0;
        CHECK_MPI(MPI_Fetch_and_op(&noop, &c, MPI_LONG, 0, NE + 2, MPI_NO_OP, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        c++;
        CHECK_MPI(MPI_Accumulate(&c, 1, MPI_LONG, 0, NE + 2, 1, MPI_LONG, MPI_REPLACE, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        CHECK_MPI(MPI_Compare_and_swap(&zero, &mine, &seen, MPI_LONG, 0, NE + 1, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        CHECK_INT(seen, mine);
    }
    CHECK_MPI(MPI_Win_unlock(0, w));
    /* tickets are distinct across ranks: gather them and look */
    long *all = mt_malloc(sizeof(long) * ROUNDS * np);
    MPI_Gather(tickets, ROUNDS, MPI_LONG, all, ROUNDS, MPI_LONG, 0, MPI_COMM_WORLD);
    if (me == 0) {
        char *seen = calloc((size_t)ROUNDS * np, 1);
        for (int i = 0; i < ROUNDS * np; i++) {
            CHECK(all[i] >= 0 && all[i] < ROUNDS * np && !seen[all[i]], "ticket %ld twice or "
                  "out of range", all[i]);
            if (all[i] >= 0 && all[i] < ROUNDS * np) seen[all[i]] = 1;
        }
        free(seen);
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
        for (int i = 0; i < NE; i++) CHECK_INT(mem[i], (long)(i + 1) * ROUNDS * np);
        CHECK_INT(mem[NE], ROUNDS * np);
        CHECK_INT(mem[NE + 1], 0);
        CHECK_INT(mem[NE + 2], ROUNDS * np);
        CHECK_MPI(MPI_Win_unlock(0, w));
    }
    free(all);
}

/* A strided put and get of BIG ints to the next rank, then read back. */
static void big(void)
{
    int *mem;
    MPI_Win w;
    CHECK_MPI(MPI_Win_allocate(2 * BIG * sizeof(int), sizeof(int), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &mem, &w));
    for (int i = 0; i < 2 * BIG; i++) mem[i] = -1;
    int tgt = (me + 1) % np, src = (me + np - 1) % np;
    int *out = mt_malloc(BIG * sizeof(int)), *in = mt_malloc(BIG * sizeof(int));
    for (int i = 0; i < BIG; i++) out[i] = me * 1000000 + i;
    MPI_Datatype every2;     /* BIG ints at even positions */
    MPI_Type_vector(BIG, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Put(out, BIG, MPI_INT, tgt, 0, 1, every2, w));
    CHECK_MPI(MPI_Win_fence(0, w));
    for (int i = 0; i < 2 * BIG; i++)
        if (mem[i] != (i % 2 ? -1 : src * 1000000 + i / 2)) {
            CHECK(0, "element %d is %d after the strided put", i, mem[i]);
            break;
        }
    MPI_Barrier(MPI_COMM_WORLD);    /* everyone checked before the next epoch's operations */
    CHECK_MPI(MPI_Get(in, BIG, MPI_INT, tgt, 0, 1, every2, w));
    CHECK_MPI(MPI_Accumulate(out, BIG, MPI_INT, tgt, 1, 1, every2, MPI_SUM, w));
    CHECK_MPI(MPI_Win_fence(0, w));
    for (int i = 0; i < BIG; i++)
        if (in[i] != me * 1000000 + i) {
            CHECK(0, "element %d of the strided get is %d", i, in[i]);
            break;
        }
    for (int i = 1; i < 2 * BIG; i += 2)
        if (mem[i] != src * 1000000 + i / 2 - 1) {
            CHECK(0, "element %d is %d after the strided accumulate", i, mem[i]);
            break;
        }
    MPI_Type_free(&every2);
    free(out);
    free(in);
    CHECK_MPI(MPI_Win_free(&w));
}

/* MPI_Fetch_and_op on a pair type with padding (MPI_SHORT_INT). */
static void padded_pairs(void)
{
    struct si { short a; int b; } *mem, mine, old = { 0, 0 };
    MPI_Win w;
    CHECK_MPI(MPI_Win_allocate(sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w));
    mem->a = -1;
    mem->b = -2;
    MPI_Barrier(MPI_COMM_WORLD);
    int tgt = (me + 1) % np, src = (me + np - 1) % np;
    mine.a = (short)me;
    mine.b = 100 + me;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tgt, 0, w));
    CHECK_MPI(MPI_Fetch_and_op(&mine, &old, MPI_SHORT_INT, tgt, 0, MPI_REPLACE, w));
    CHECK_MPI(MPI_Win_unlock(tgt, w));
    CHECK_INT(old.a, -1);
    CHECK_INT(old.b, -2);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_INT(mem->a, src);
    CHECK_INT(mem->b, 100 + src);
    CHECK_MPI(MPI_Win_free(&w));
}

/* Rank 0 computes without MPI; the others put into its window under a lock. */
static void busy_target(void)
{
    int *mem;
    MPI_Win w;
    CHECK_MPI(MPI_Win_allocate(np * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &mem, &w));
    for (int i = 0; i < np; i++) mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        /* no MPI call until every origin's value is there (or 20 s passed) */
        double t0 = now();
        int have = 0;
        while (have < np - 1 && now() - t0 < 20) {
            have = 0;
            for (int i = 1; i < np; i++) have += __atomic_load_n(&mem[i], __ATOMIC_ACQUIRE) == i + 7;
        }
        CHECK(have == np - 1, "only %d of %d origins' puts arrived while the target computed",
              have, np - 1);
    } else {
        int v = me + 7;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
        CHECK_MPI(MPI_Put(&v, 1, MPI_INT, 0, me, 1, MPI_INT, w));
        int back = -1;
        CHECK_MPI(MPI_Get(&back, 1, MPI_INT, 0, me, 1, MPI_INT, w));
        CHECK_MPI(MPI_Win_unlock(0, w));
        CHECK_INT(back, v);
    }
    CHECK_MPI(MPI_Win_free(&w));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm node;
    int nn;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nn);
    MPI_Comm_free(&node);
    if (nn != np) ROUNDS = MAX_ROUNDS / 4;
    for (int kind = 0; kind < 2; kind++) {
        long *mem, own[NE + 3];
        MPI_Win w;
        if (kind == 0) {
            CHECK_MPI(MPI_Win_allocate((NE + 3) * sizeof(long), sizeof(long), MPI_INFO_NULL,
                                       MPI_COMM_WORLD, &mem, &w));
        } else {
            mem = own;
            CHECK_MPI(MPI_Win_create(own, sizeof own, sizeof(long), MPI_INFO_NULL,
                                     MPI_COMM_WORLD, &w));
        }
        memset(mem, 0, (NE + 3) * sizeof(long));
        MPI_Barrier(MPI_COMM_WORLD);
        concurrent(w, mem);
        CHECK_MPI(MPI_Win_free(&w));
    }
    big();
#ifndef MT_REFERENCE_MPICH
    /* MPICH 4.0 (Debian) gives other values here: to be looked into (docs/rma.md) */
    padded_pairs();
#endif
#ifndef MT_REFERENCE_MPICH
    /* MPICH's targets serve passive-target requests only inside MPI calls */
    if (nn == np) busy_target();
#endif
    int rc = mt_finish("rma_atomic");
    MPI_Finalize();
    return rc;
}
