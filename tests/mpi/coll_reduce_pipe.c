/* SPDX-License-Identifier: MIT */
/* MPI_Reduce of integers as the pipelined algorithm (coll_reduce_pipe.c)
 * takes them: counts from 0 to several segments and not a multiple of one,
 * every root (a few at more than 4 ranks), in place and not, MPI_SUM and
 * MPI_MAX (three-operand kernels), a commutative user op (copy and apply),
 * and a non-commutative one that must fall back and keep rank order;
 * MPI_Allreduce of the same counts (pipe_bcast, in place and not); then
 * runs of calls with a moving root, each checked, so that leaves run ahead
 * of their parents through every slot.  Every element is checked exactly.
 * With PIPE_EXPECT=<id> in the environment, the MPI_T state variable
 * coll_reduce_algorithm (PIPE_EXPECT_AR: coll_allreduce_algorithm, after
 * each Allreduce) must say <id> after every call that the algorithm can
 * take (commutative op, at least 2 ranks, count above 0: an empty call runs
 * no algorithm; with PIPE_MIN_BYTES and PIPE_MAX_BYTES, within those
 * bytes): the list's variants force it (COURIER_COLL_REDUCE_ALG=6)
 * with small segments and slots, or expect the automatic choice at 8-16
 * ranks on 2 cores. */
#include <stdlib.h>
#include "mpitest.h"
#include "coll_intops.h"

static int rank, size, expect_alg, expect_ar;
static long expect_min_bytes, expect_max_bytes;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle alg_pv, ar_pv;
static int have_pv;

static void pv_open(void)
{
    const char *e = getenv("PIPE_EXPECT");
    expect_alg = e ? atoi(e) : 0;
    e = getenv("PIPE_EXPECT_AR");
    expect_ar = e ? atoi(e) : 0;
    e = getenv("PIPE_MIN_BYTES");
    expect_min_bytes = e ? atol(e) : 0;
    e = getenv("PIPE_MAX_BYTES");
    expect_max_bytes = e ? atol(e) : 0;
    int provided, idx, count;
    if (!expect_alg || MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    CHECK_MPI(MPI_T_pvar_session_create(&session));
    if (MPI_T_pvar_get_index("coll_reduce_algorithm", MPI_T_PVAR_CLASS_STATE, &idx) != MPI_SUCCESS)
        return;
    CHECK_MPI(MPI_T_pvar_handle_alloc(session, idx, NULL, &alg_pv, &count));
    if (MPI_T_pvar_get_index("coll_allreduce_algorithm", MPI_T_PVAR_CLASS_STATE, &idx) != MPI_SUCCESS)
        return;
    CHECK_MPI(MPI_T_pvar_handle_alloc(session, idx, NULL, &ar_pv, &count));
    have_pv = 1;
}

static void pv_close(void)
{
    if (!have_pv) return;
    MPI_T_pvar_handle_free(session, &alg_pv);
    MPI_T_pvar_handle_free(session, &ar_pv);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
}

/* After a call the algorithm can take: did it (MPI_T variable pv, expected
 * id want)? */
static void check_alg(const char *what, int count, MPI_T_pvar_handle pv, int want)
{
    long bytes = (long)count * (long)sizeof(int);
    if (!have_pv || !want || size < 2 || count == 0 || bytes < expect_min_bytes ||
        (expect_max_bytes && bytes > expect_max_bytes))
        return;
    unsigned long long v = 0;
    CHECK_MPI(MPI_T_pvar_read(session, pv, &v));
    CHECK((int)v == want, "%s count %d: algorithm %llu, expected %d", what, count, v, want);
}

static void one(int kind, MPI_Op op, int count, int root, int inplace, int *sbuf, int *rbuf)
{
    for (long i = 0; i < count; i++) {
        sbuf[i] = coll_val(rank, i);
        rbuf[i] = rank == root && inplace ? coll_val(rank, i) : -7777;
    }
    void *s = rank == root && inplace ? MPI_IN_PLACE : sbuf;
    CHECK_MPI(MPI_Reduce(s, rbuf, count, MPI_INT, op, root, MPI_COMM_WORLD));
    if (kind != K_USER_FIRST) check_alg(kind_names[kind], count, alg_pv, expect_alg);
    int bad = 0;
    for (long i = 0; i < count && bad < 3; i++) {
        long w = rank == root ? coll_want(kind, i, size) : -7777;
        if (rank != root) continue;   /* a non-root's recvbuf is not significant */
        if (rbuf[i] != w) {
            bad++;
            CHECK(0, "%s count %d root %d inplace %d: element %ld is %d, expected %ld",
                  kind_names[kind], count, root, inplace, i, rbuf[i], w);
        }
    }
    for (long i = 0; i < count && rank != root; i++)
        if (sbuf[i] != coll_val(rank, i)) {
            CHECK(0, "%s count %d root %d: sendbuf element %ld changed to %d", kind_names[kind],
                  count, root, i, sbuf[i]);
            break;
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pv_open();
    /* 16 KiB segments hold 4096 ints: counts around one, several, and not a multiple */
    static const int counts[] = { 0, 1, 5, 1000, 4096, 4099, 8193, 16384, 16391, 70000 };
    enum { NCOUNT = sizeof counts / sizeof counts[0], MAXC = 70000 };
    int *sbuf = malloc(MAXC * sizeof(int)), *rbuf = malloc(MAXC * sizeof(int));
    MPI_Op ops[NKIND];
    coll_ops_make(ops);
    int roots[4] = { 0, size - 1, size / 2, 1 % size }, nroots = size <= 4 ? size : 4;
    for (int c = 0; c < NCOUNT; c++)
        for (int k = 0; k < NKIND; k++)
            for (int ri = 0; ri < nroots; ri++) {
                int root = size <= 4 ? ri : roots[ri];
                for (int inplace = 0; inplace < 2; inplace++)
                    one(k, ops[k], counts[c], root, inplace, sbuf, rbuf);
            }
    /* Allreduce (pipe_bcast: this reduce to rank 0, then a broadcast): every
     * rank gets the sum, in place and not */
    for (int c = 0; c < NCOUNT; c++)
        for (int inplace = 0; inplace < 2; inplace++) {
            int count = counts[c];
            for (long i = 0; i < count; i++) rbuf[i] = sbuf[i] = coll_val(rank, i);
            CHECK_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, count, MPI_INT, MPI_SUM,
                                    MPI_COMM_WORLD));
            check_alg("allreduce", count, ar_pv, expect_ar);
            for (long i = 0; i < count; i++)
                if (rbuf[i] != coll_want(K_SUM, i, size)) {
                    CHECK(0, "allreduce count %d inplace %d: element %ld is %d, expected %ld", count,
                          inplace, i, rbuf[i], coll_want(K_SUM, i, size));
                    break;
                }
        }
    /* runs of calls back to back, the root moving on each call */
    for (int it = 0; it < 60; it++)
        one(it % 3 == 2 ? K_MAX : K_SUM, it % 3 == 2 ? MPI_MAX : MPI_SUM, it % 2 ? 16384 : 12001,
            it % size, it % 4 == 3, sbuf, rbuf);
    coll_ops_free(ops);
    free(sbuf);
    free(rbuf);
    pv_close();
    return mt_finish("coll_reduce_pipe") | (MPI_Finalize() != MPI_SUCCESS);
}
