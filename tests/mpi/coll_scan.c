/* SPDX-License-Identifier: MIT */
/* MPI_Scan and MPI_Exscan: counts 0, 1, 7 and past the eager limit,
 * MPI_IN_PLACE, ops: MPI_SUM on MPI_INT and MPI_DOUBLE, MPI_MAXLOC on
 * MPI_2INT, a commutative user op on a contiguous type and a
 * non-commutative user op (prefixes must be in rank order).  Checked byte
 * for byte; Exscan's result on rank 0 is undefined, so it is not checked. */
#include "coll_common.h"

static int rank, size;

static void scan_one(const rd_kind_t *k, int count, int inplace, int ex)
{
    size_t es = rd_esize(k);
    char *sbuf = mt_malloc(es * (count + 1)), *rbuf = mt_malloc(es * (count + 1)),
         *want = mt_malloc(es * (count + 1));
    memset(rbuf, 0x5a, es * (count + 1));
    rd_fill(k, inplace ? rbuf : sbuf, count, rank, 0);
    const void *s = inplace ? MPI_IN_PLACE : sbuf;
    if (ex) CHECK_MPI(MPI_Exscan(s, rbuf, count, k->dt, k->op, MPI_COMM_WORLD));
    else CHECK_MPI(MPI_Scan(s, rbuf, count, k->dt, k->op, MPI_COMM_WORLD));
    if (!ex || rank > 0) {
        rd_expect(k, want, count, 0, ex ? rank - 1 : rank, 0);
        RD_CHECK(k, rbuf, want, count, "%s count %d inplace %d", ex ? "Exscan" : "Scan", count, inplace);
    }
    free(sbuf); free(rbuf); free(want);
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
            for (int inplace = 0; inplace < 2; inplace++)
                for (int ex = 0; ex < 2; ex++) scan_one(&rd_kinds[ki], ct_counts[c], inplace, ex);
    /* back to back, many */
    for (int i = 0; i < 100; i++) {
        int v = i + rank, r = -1;
        CHECK_MPI(MPI_Scan(&v, &r, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK_INT(r, (rank + 1) * i + rank * (rank + 1) / 2);
    }
    rd_free_kinds();
    ct_free_types();
    return mt_finish("coll_scan") | (MPI_Finalize() != MPI_SUCCESS);
}
