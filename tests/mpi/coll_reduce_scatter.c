/* SPDX-License-Identifier: MIT */
/* MPI_Reduce_scatter_block and MPI_Reduce_scatter: block sizes 0, 1, 7 and
 * past the eager limit (Reduce_scatter: a different size per rank, some
 * zero), MPI_IN_PLACE, ops: MPI_SUM on MPI_INT and MPI_DOUBLE, MPI_MAXLOC on
 * MPI_2INT, a commutative user op on a contiguous type and a
 * non-commutative user op (the result must be in rank order).  Checked byte
 * for byte.  Run under COURIER_COLL_REDUCE_SCATTER_ALG=1/2. */
#include "coll_common.h"

static int rank, size;

static void rsb_one(const rd_kind_t *k, int count, int inplace)
{
    size_t es = rd_esize(k);
    long total = (long)count * size;
    char *sbuf = mt_malloc(es * total), *rbuf = mt_malloc(es * (total + 1)), *want = mt_malloc(es * (count + 1));
    memset(rbuf, 0x5a, es * (total + 1));
    rd_fill(k, inplace ? rbuf : sbuf, total, rank, 0);
    CHECK_MPI(MPI_Reduce_scatter_block(inplace ? MPI_IN_PLACE : sbuf, rbuf, count, k->dt, k->op,
                                       MPI_COMM_WORLD));
    rd_expect(k, want, count, 0, size - 1, (long)rank * count);
    RD_CHECK(k, rbuf, want, count, "Reduce_scatter_block count %d inplace %d", count, inplace);
    if (!inplace)
        for (size_t b = (size_t)count * es; b < es * (total + 1); b++)
            if ((unsigned char)rbuf[b] != 0x5a) { CHECK(0, "Reduce_scatter_block wrote past its block at byte %zu", b); break; }
    free(sbuf); free(rbuf); free(want);
}

static int rcount_of(int count, int i) { return count ? ((count + i) % 3) * (count / 2 + 1) + (i == 1) : 0; }

static void rs_one(const rd_kind_t *k, int count, int inplace)
{
    size_t es = rd_esize(k);
    int *counts = mt_malloc(sizeof(int) * size);
    long total = 0, first = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = rcount_of(count, i);
        if (i < rank) first += counts[i];
        total += counts[i];
    }
    char *sbuf = mt_malloc(es * (total + 1)), *rbuf = mt_malloc(es * (total + 1)),
         *want = mt_malloc(es * (counts[rank] + 1));
    rd_fill(k, inplace ? rbuf : sbuf, total, rank, 0);
    CHECK_MPI(MPI_Reduce_scatter(inplace ? MPI_IN_PLACE : sbuf, rbuf, counts, k->dt, k->op,
                                 MPI_COMM_WORLD));
    rd_expect(k, want, counts[rank], 0, size - 1, first);
    RD_CHECK(k, rbuf, want, counts[rank], "Reduce_scatter count %d inplace %d", count, inplace);
    free(sbuf); free(rbuf); free(want); free(counts);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ct_init_types();
    rd_init_kinds();
    for (int ki = 0; ki < RD_NKINDS; ki++)
        for (int c = 0; c < CT_NCOUNTS; c++)
            for (int inplace = 0; inplace < 2; inplace++) {
                rsb_one(&rd_kinds[ki], ct_counts[c], inplace);
                rs_one(&rd_kinds[ki], ct_counts[c], inplace);
            }
    rd_free_kinds();
    ct_free_types();
    return mt_finish("coll_reduce_scatter") | (MPI_Finalize() != MPI_SUCCESS);
}
