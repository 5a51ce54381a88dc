/* SPDX-License-Identifier: MIT */
/* MPI_Allreduce, MPI_Reduce_scatter_block, MPI_Reduce_scatter and
 * MPI_Allgather and MPI_Alltoall as the staging-buffer algorithms take them
 * (coll_stage.c):
 * counts from 0 and fewer than the ranks to several rounds of the buffer
 * (the list's variants make it small: COURIER_COLL_STAGE_BYTES), uneven and
 * empty blocks, in place where the algorithm allows it, MPI_SUM and MPI_MAX,
 * a commutative user op and a non-commutative one (rank order kept); each
 * large call followed by small ones that end without FIN on the shared
 * area, so that the next large call must find out that the ranks finished
 * the one that last wrote the buffers (it used to wait for ever).  Every
 * element is checked exactly.  With STAGE_EXPECT=1 the MPI_T state
 * variables coll_<x>_algorithm must name the stage algorithm (8 for
 * Allreduce, 7 for the others) after each call that it can take; with
 * STAGE_EXPECT=-1 (the buffers dropped by the probe of the cores' hand-over)
 * they must name another. */
#include <stdlib.h>
#include "mpitest.h"
#include "coll_intops.h"
#include "mt_pvars.h"

static int rank, size, expect;
static mt_pvars_t pv;
enum { PV_AR, PV_RSB, PV_RS, PV_AG, PV_A2A };

static void check_alg(const char *what, int v, int want, long count)
{
    if (!expect || size < 2 || count == 0) return;
    unsigned long long got = mt_pvar(&pv, v);
    if (expect < 0)   /* the buffers were dropped: anything but stage */
        CHECK((int)got != want, "%s count %ld: algorithm %llu (stage) without buffers", what,
              count, got);
    else
        CHECK((int)got == want, "%s count %ld: algorithm %llu, expected %d", what, count, got,
              want);
}

/* A few small calls that end without FIN on the area (shm allreduce and
 * allgather post once per call), checked. */
static void small_calls(int round)
{
    int x = rank + round, s = 0, all[64];
    CHECK_MPI(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(s, size * (size - 1) / 2 + size * round);
    CHECK_MPI(MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < size && r < 64; r++) CHECK_INT(all[r], r + round);
}

static void allreduce(int kind, MPI_Op op, long count, int inplace, int *sbuf, int *rbuf)
{
    for (long i = 0; i < count; i++) {
        sbuf[i] = coll_val(rank, i);
        rbuf[i] = inplace ? coll_val(rank, i) : -7777;
    }
    CHECK_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : sbuf, rbuf, (int)count, MPI_INT, op,
                            MPI_COMM_WORLD));
    check_alg("allreduce", PV_AR, 8, count);
    for (long i = 0; i < count; i++)
        if (rbuf[i] != coll_want(kind, i, size)) {
            CHECK(0, "allreduce %s count %ld inplace %d: element %ld is %d, expected %ld",
                  kind_names[kind], count, inplace, i, rbuf[i], coll_want(kind, i, size));
            break;
        }
    if (!inplace)
        for (long i = 0; i < count; i++)
            if (sbuf[i] != coll_val(rank, i)) {
                CHECK(0, "allreduce count %ld: sendbuf element %ld changed", count, i);
                break;
            }
}

/* Reduce_scatter with counts[r] elements for rank r (block: all equal). */
static void reduce_scatter(int kind, MPI_Op op, const int *counts, int block, int *sbuf,
                           int *rbuf)
{
    long total = 0, first = 0;
    for (int r = 0; r < size; r++) {
        if (r == rank) first = total;
        total += counts[r];
    }
    for (long i = 0; i < total; i++) sbuf[i] = coll_val(rank, i);
    for (long i = 0; i < counts[rank]; i++) rbuf[i] = -7777;
    if (block) {
        CHECK_MPI(MPI_Reduce_scatter_block(sbuf, rbuf, counts[0], MPI_INT, op, MPI_COMM_WORLD));
        check_alg("reduce_scatter_block", PV_RSB, 7, total);
    } else {
        CHECK_MPI(MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INT, op, MPI_COMM_WORLD));
        check_alg("reduce_scatter", PV_RS, 7, total);
    }
    for (long i = 0; i < counts[rank]; i++)
        if (rbuf[i] != coll_want(kind, first + i, size)) {
            CHECK(0, "reduce_scatter%s %s total %ld: element %ld of the block is %d, expected %ld",
                  block ? "_block" : "", kind_names[kind], total, i, rbuf[i],
                  coll_want(kind, first + i, size));
            break;
        }
}

static void allgather(long count, int inplace, int *sbuf, int *rbuf)
{
    for (long i = 0; i < count; i++) sbuf[i] = coll_val(rank, i);
    for (long i = 0; i < count * size; i++) rbuf[i] = -7777;
    if (inplace)
        for (long i = 0; i < count; i++) rbuf[rank * count + i] = coll_val(rank, i);
    CHECK_MPI(MPI_Allgather(inplace ? MPI_IN_PLACE : sbuf, (int)count, MPI_INT, rbuf, (int)count,
                            MPI_INT, MPI_COMM_WORLD));
    check_alg("allgather", PV_AG, 7, count);
    for (int r = 0; r < size; r++)
        for (long i = 0; i < count; i++)
            if (rbuf[r * count + i] != coll_val(r, i)) {
                CHECK(0, "allgather count %ld inplace %d: rank %d's element %ld is %d, expected %d",
                      count, inplace, r, i, rbuf[r * count + i], coll_val(r, i));
                r = size;
                break;
            }
}

/* rank r's element i of its block for rank d */
static int a2a_val(int r, int d, long i)
{
    return (int)((r * 7919 + d * 104729 + i * 13) % 100003);
}

static void alltoall(long count, int inplace, int *sbuf, int *rbuf)
{
    int *out = inplace ? rbuf : sbuf;
    for (int d = 0; d < size; d++)
        for (long i = 0; i < count; i++) out[d * count + i] = a2a_val(rank, d, i);
    if (!inplace)
        for (long i = 0; i < count * size; i++) rbuf[i] = -7777;
    CHECK_MPI(MPI_Alltoall(inplace ? MPI_IN_PLACE : sbuf, (int)count, MPI_INT, rbuf, (int)count,
                           MPI_INT, MPI_COMM_WORLD));
    check_alg("alltoall", PV_A2A, 7, count);
    for (int r = 0; r < size; r++)
        for (long i = 0; i < count; i++)
            if (rbuf[r * count + i] != a2a_val(r, rank, i)) {
                CHECK(0, "alltoall count %ld inplace %d: rank %d's element %ld is %d, expected %d",
                      count, inplace, r, i, rbuf[r * count + i], a2a_val(r, rank, i));
                r = size;
                break;
            }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *e = getenv("STAGE_EXPECT");
    expect = e ? atoi(e) : 0;
    if (expect) {
        static const char *const names[] = { "coll_allreduce_algorithm",
                                             "coll_reduce_scatter_block_algorithm",
                                             "coll_reduce_scatter_algorithm",
                                             "coll_allgather_algorithm",
                                             "coll_alltoall_algorithm" };
        mt_pvars_open_class(&pv, names, 5, MPI_T_PVAR_CLASS_STATE);
    }
    static const long counts[] = { 0, 1, 3, 1000, 16384, 16387, 70001, 300000 };
    enum { NCOUNT = sizeof counts / sizeof counts[0], MAXC = 300000 };
    int *sbuf = malloc((size_t)MAXC * (size_t)size * sizeof(int));
    int *rbuf = malloc((size_t)MAXC * (size_t)size * sizeof(int));
    MPI_Op ops[NKIND];
    coll_ops_make(ops);
    int round = 0;
    for (int c = 0; c < NCOUNT; c++)
        for (int k = 0; k < NKIND; k++) {
            for (int inplace = 0; inplace < 2; inplace++) {
                allreduce(k, ops[k], counts[c], inplace, sbuf, rbuf);
                small_calls(round++);
            }
            int bc[64], uc[64];
            for (int r = 0; r < size && r < 64; r++) {
                bc[r] = (int)(counts[c] / size);
                /* uneven, one rank (1) with an empty block */
                uc[r] = r == 1 ? 0 : (int)(counts[c] / size + (r * 977) % 5000);
            }
            reduce_scatter(k, ops[k], bc, 1, sbuf, rbuf);
            small_calls(round++);
            reduce_scatter(k, ops[k], uc, 0, sbuf, rbuf);
            small_calls(round++);
        }
    for (int c = 0; c < NCOUNT; c++)
        for (int inplace = 0; inplace < 2; inplace++) {
            allgather(counts[c], inplace, sbuf, rbuf);
            small_calls(round++);
            alltoall(counts[c], inplace, sbuf, rbuf);
            small_calls(round++);
        }
    /* back to back, no small call between */
    for (int it = 0; it < 20; it++) {
        allreduce(K_SUM, MPI_SUM, it % 2 ? 70001 : 16384, it % 3 == 0, sbuf, rbuf);
        allgather(it % 2 ? 16387 : 70001, it % 4 == 1, sbuf, rbuf);
        alltoall(it % 2 ? 70001 : 16387, it % 4 == 2, sbuf, rbuf);
    }
    coll_ops_free(ops);
    free(sbuf);
    free(rbuf);
    if (expect) mt_pvars_close(&pv);
    return mt_finish("coll_stage") | (MPI_Finalize() != MPI_SUCCESS);
}
