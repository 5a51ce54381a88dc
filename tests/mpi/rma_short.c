/* SPDX-License-Identifier: MIT */
/* The entry points' short ways of MPI_Fetch_and_op, MPI_Compare_and_swap,
 * MPI_Win_lock and MPI_Win_unlock (src/rma/fast.h) on an MPI_Win_allocate
 * window, mixed with the full ways on the same words so that the two must
 * agree on atomicity: every rank takes tickets from rank 0 by fetch-and-op
 * on an int64 (short way) and by MPI_Accumulate (full way), sums doubles,
 * swaps and reads with MPI_REPLACE and MPI_NO_OP, increments a counter under
 * a spin lock built from compare-and-swap and under exclusive locks
 * (mutual exclusion of the short lock's word with the full one's); the
 * totals must be exact.  The cases the short ways leave to the full checks
 * (MPI_PROC_NULL, a displacement outside the window, a lock taken twice, an
 * unlock without a lock, MPI_MODE_NOCHECK) must still behave as before. */
#include "mpitest.h"
#include <stdint.h>
#include <string.h>

enum { ROUNDS = 300, XROUNDS = 50 };
/* rank 0's window, in int64 words */
enum { W_TICKET, W_DSUM, W_SPIN, W_CTR, W_XCTR, W_SWAP, W_UNS, W_WORDS };

static int me, np;

static void tickets_and_sums(MPI_Win w, int64_t *mem)
{
    int64_t got[ROUNDS];
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    for (int r = 0; r < ROUNDS; r++) {
        int64_t one = 1;
        if (r % 3 == 2) {   /* the full way on the same word */
            CHECK_MPI(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, W_TICKET, 1, MPI_INT64_T, MPI_SUM, w));
            got[r] = -1;
        } else {
            CHECK_MPI(MPI_Fetch_and_op(&one, &got[r], MPI_INT64_T, 0, W_TICKET, MPI_SUM, w));
        }
        double d = 0.5, dold = -1;
        CHECK_MPI(MPI_Fetch_and_op(&d, &dold, MPI_DOUBLE, 0, W_DSUM, MPI_SUM, w));
        CHECK(dold >= 0 && dold <= 0.5 * (ROUNDS * np - 1), "old double sum %g", dold);
        unsigned long u = 2, uold = 1;
        CHECK_MPI(MPI_Fetch_and_op(&u, &uold, MPI_UNSIGNED_LONG, 0, W_UNS, MPI_SUM, w));
        CHECK(uold % 2 == 0, "old unsigned sum %lu", uold);
        CHECK_MPI(MPI_Win_flush(0, w));
    }
    /* tickets are distinct and increasing for this origin */
    for (int r = 1; r < ROUNDS; r++)
        if (got[r] >= 0 && got[r - 1] >= 0) CHECK(got[r] > got[r - 1], "ticket %d", r);
    CHECK_MPI(MPI_Win_unlock(0, w));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        CHECK_INT(mem[W_TICKET], (int64_t)ROUNDS * np);
        double s;
        memcpy(&s, &mem[W_DSUM], sizeof s);
        CHECK(s == 0.5 * ROUNDS * np, "double sum %g, expected %g", s, 0.5 * ROUNDS * np);
        CHECK_INT(mem[W_UNS], (int64_t)2 * ROUNDS * np);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* A spin lock from compare-and-swap (short way), the counter it protects by
 * get + put; then the same counter under MPI_LOCK_EXCLUSIVE. */
static void mutual_exclusion(MPI_Win w, int64_t *mem)
{
    int64_t zero = 0, mine = me + 1, seen;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    for (int r = 0; r < XROUNDS; r++) {
        do {
            CHECK_MPI(MPI_Compare_and_swap(&mine, &zero, &seen, MPI_INT64_T, 0, W_SPIN, w));
            CHECK_MPI(MPI_Win_flush(0, w));
        } while (seen != 0);
        int64_t c;
        CHECK_MPI(MPI_Get(&c, 1, MPI_INT64_T, 0, W_CTR, 1, MPI_INT64_T, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        c++;
        CHECK_MPI(MPI_Put(&c, 1, MPI_INT64_T, 0, W_CTR, 1, MPI_INT64_T, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        /* release: a compare-and-swap that must find our mark */
        CHECK_MPI(MPI_Compare_and_swap(&zero, &mine, &seen, MPI_INT64_T, 0, W_SPIN, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        CHECK_INT(seen, mine);
    }
    CHECK_MPI(MPI_Win_unlock(0, w));
    for (int r = 0; r < XROUNDS; r++) {
        int64_t c;
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
        CHECK_MPI(MPI_Get(&c, 1, MPI_INT64_T, 0, W_XCTR, 1, MPI_INT64_T, w));
        CHECK_MPI(MPI_Win_flush(0, w));
        c++;
        CHECK_MPI(MPI_Put(&c, 1, MPI_INT64_T, 0, W_XCTR, 1, MPI_INT64_T, w));
        CHECK_MPI(MPI_Win_unlock(0, w));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        CHECK_INT(mem[W_CTR], (int64_t)XROUNDS * np);
        CHECK_INT(mem[W_XCTR], (int64_t)XROUNDS * np);
        CHECK_INT(mem[W_SPIN], 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* MPI_REPLACE, MPI_NO_OP and a failing compare-and-swap on this rank's own
 * word of the next rank, then the cases left to the full checks. */
static void own_words(MPI_Win w, int64_t *mem)
{
    int peer = (me + 1) % np;
    MPI_Aint disp = W_WORDS + me;   /* one word per origin */
    int64_t v = 1000 + me, old = -7, cmp = -1, res = -7;
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w));
    CHECK_MPI(MPI_Fetch_and_op(&v, &old, MPI_INT64_T, peer, disp, MPI_REPLACE, w));
    CHECK_INT(old, 0);
    CHECK_MPI(MPI_Fetch_and_op(NULL, &old, MPI_INT64_T, peer, disp, MPI_NO_OP, w));
    CHECK_INT(old, 1000 + me);
    int64_t nv = 5;
    CHECK_MPI(MPI_Compare_and_swap(&nv, &cmp, &res, MPI_INT64_T, peer, disp, w));   /* fails */
    CHECK_INT(res, 1000 + me);
    cmp = 1000 + me;
    CHECK_MPI(MPI_Compare_and_swap(&nv, &cmp, &res, MPI_INT64_T, peer, disp, w));   /* swaps */
    CHECK_INT(res, 1000 + me);
    long long ll = 3, llold = -1;
    CHECK_MPI(MPI_Fetch_and_op(&ll, &llold, MPI_LONG_LONG, peer, disp, MPI_SUM, w));
    CHECK_INT(llold, 5);
    /* left to the full way: MPI_PROC_NULL does nothing, a displacement past
     * the window is an error, an op other than the short way's (MPI_MAX) */
    res = -7;
    CHECK_MPI(MPI_Fetch_and_op(&v, &res, MPI_INT64_T, MPI_PROC_NULL, 0, MPI_SUM, w));
    CHECK_MPI(MPI_Compare_and_swap(&v, &cmp, &res, MPI_INT64_T, MPI_PROC_NULL, 0, w));
    CHECK_INT(res, -7);
    int rc = MPI_Fetch_and_op(&v, &res, MPI_INT64_T, peer, (MPI_Aint)(W_WORDS + np), MPI_SUM, w);
    CHECK(rc != MPI_SUCCESS, "a displacement outside the window was accepted");
    rc = MPI_Compare_and_swap(&v, &cmp, &res, MPI_INT64_T, peer, (MPI_Aint)(W_WORDS + np), w);
    CHECK(rc != MPI_SUCCESS, "a displacement outside the window was accepted");
    double dv = 1.0;
    rc = MPI_Compare_and_swap(&dv, &dv, &dv, MPI_DOUBLE, peer, disp, w);
    CHECK_CLASS(rc, MPI_ERR_TYPE);
    int64_t big = 100;
    CHECK_MPI(MPI_Fetch_and_op(&big, &old, MPI_INT64_T, peer, disp, MPI_MAX, w));
    CHECK_INT(old, 8);
    /* a second lock on a locked target is an error, the first lock stays */
    rc = MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, w);
    CHECK_CLASS(rc, MPI_ERR_RMA_SYNC);
    rc = MPI_Win_lock(3, peer, 0, w);   /* neither shared nor exclusive */
    CHECK_CLASS(rc, MPI_ERR_LOCKTYPE);
    CHECK_MPI(MPI_Win_unlock(peer, w));
    rc = MPI_Win_unlock(peer, w);       /* not locked any more */
    CHECK_CLASS(rc, MPI_ERR_RMA_SYNC);
    /* MPI_MODE_NOCHECK takes the full way; its unlock too */
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, peer, MPI_MODE_NOCHECK, w));
    CHECK_MPI(MPI_Fetch_and_op(NULL, &old, MPI_INT64_T, peer, disp, MPI_NO_OP, w));
    CHECK_INT(old, 100);
    CHECK_MPI(MPI_Win_unlock(peer, w));
    /* without an epoch the fetch-and-op takes the full way's error */
    rc = MPI_Fetch_and_op(&v, &old, MPI_INT64_T, peer, disp, MPI_SUM, w);
    CHECK_CLASS(rc, MPI_ERR_RMA_SYNC);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_INT(mem[W_WORDS + (me + np - 1) % np], 100);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int64_t *mem;
    MPI_Win w;
    MPI_Aint bytes = (MPI_Aint)(W_WORDS + np) * (MPI_Aint)sizeof(int64_t);
    CHECK_MPI(MPI_Win_allocate(bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w));
    CHECK_MPI(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w));
    memset(mem, 0, (size_t)bytes);
    CHECK_MPI(MPI_Win_unlock(me, w));
    MPI_Barrier(MPI_COMM_WORLD);
    tickets_and_sums(w, mem);
    mutual_exclusion(w, mem);
    own_words(w, mem);
    CHECK_MPI(MPI_Win_free(&w));
    int rc = mt_finish("rma_short");
    MPI_Finalize();
    return rc;
}
