/* SPDX-License-Identifier: MIT */
/* Fragmented one-sided operations across nodes and the atomicity of
 * accumulates from many origins at once (docs/rma.md, "Fragmented operations
 * over the network"), on MPI_Win_allocate and MPI_Win_create windows.  Run on
 * pretend nodes, an operation whose target datatype has many contiguous runs
 * goes by active messages (packed at the origin, applied by the target,
 * atomically per element), a contiguous one by the network's atomics:
 * - atomicity: every rank adds 1 to the NE ints of the last rank, NITER
 *   times, at once, with MPI_Get_accumulate: on odd rounds through a target
 *   datatype that names the elements in reverse order (NE runs: fragmented),
 *   on even rounds as one contiguous block (one network atomic), and adds 1
 *   to the first element by MPI_Fetch_and_op every round.  The values each
 *   element had before each add, fetched by all the ranks together, are
 *   exactly 0, 1, ..., total - 1 (no add lost or seen twice), and the final
 *   values are exact;
 * - data: each rank puts the transpose of its matrix into the next rank's
 *   window (a column-major target datatype: one run per element) under
 *   fences, reads it back the same way, then every rank accumulates its
 *   transpose into rank 0's under MPI_Win_lock_all and reads the sum back
 *   with a strided MPI_Get_accumulate(MPI_NO_OP); everything is checked
 *   element by element. */
#include "mpitest.h"
#include <stdlib.h>
#include <string.h>

enum { NE = 128, NITER = 60, NV = 48 };
static int me, np;

static void atomicity(MPI_Win w, void *wmem, int kind)
{
    int *mem = wmem, target = np - 1;
    (void)kind;
    int displs[NE], ones[NE];
    for (int i = 0; i < NE; i++) {
        displs[i] = NE - 1 - i;
        ones[i] = 1;
    }
    MPI_Datatype rev;
    MPI_Type_create_indexed_block(NE, 1, displs, MPI_INT, &rev);
    MPI_Type_commit(&rev);
    /* olds[k * NE + e]: the value element e had before round k's add */
    int *olds = mt_malloc(sizeof(int) * NE * NITER), *fop = mt_malloc(sizeof(int) * NITER);
    int res[NE];
    CHECK_MPI(MPI_Win_lock_all(0, w));
    for (int k = 0; k < NITER; k++) {
        if ((k + me) % 2) {
            CHECK_MPI(MPI_Get_accumulate(ones, NE, MPI_INT, res, NE, MPI_INT, target, 0, 1, rev,
                                         MPI_SUM, w));
            CHECK_MPI(MPI_Win_flush(target, w));
            for (int i = 0; i < NE; i++) olds[k * NE + NE - 1 - i] = res[i];
        } else {
            CHECK_MPI(MPI_Get_accumulate(ones, NE, MPI_INT, olds + k * NE, NE, MPI_INT, target, 0,
                                         NE, MPI_INT, MPI_SUM, w));
            CHECK_MPI(MPI_Win_flush(target, w));
        }
        CHECK_MPI(MPI_Fetch_and_op(&ones[0], &fop[k], MPI_INT, target, 0, MPI_SUM, w));
        CHECK_MPI(MPI_Win_flush(target, w));
    }
    CHECK_MPI(MPI_Win_unlock_all(w));
    int *all = me == 0 ? mt_malloc(sizeof(int) * NE * NITER * (size_t)np) : NULL;
    int *allf = me == 0 ? mt_malloc(sizeof(int) * NITER * (size_t)np) : NULL;
    MPI_Gather(olds, NE * NITER, MPI_INT, all, NE * NITER, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(fop, NITER, MPI_INT, allf, NITER, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        int total0 = 2 * NITER * np, total = NITER * np;
        char *seen = mt_malloc((size_t)total0);
        for (int e = 0; e < NE; e++) {
            int n = e ? total : total0, bad = 0;
            memset(seen, 0, (size_t)total0);
            for (int r = 0; r < np; r++)
                for (int k = 0; k < NITER; k++) {
                    int v = all[((size_t)r * NITER + k) * NE + e];
                    if (v < 0 || v >= n || seen[v]++) bad++;
                    if (e == 0) {
                        v = allf[r * NITER + k];
                        if (v < 0 || v >= n || seen[v]++) bad++;
                    }
                }
            CHECK(bad == 0, "element %d: %d of the %d fetched old values are repeated or out "
                  "of [0, %d) (an add was lost or seen twice)", e, bad, n, n);
        }
        free(seen);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == target) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w));
        for (int e = 0; e < NE; e++)
            CHECK(mem[e] == (e ? 1 : 2) * NITER * np, "element %d = %d after the adds, not %d", e,
                  mem[e], (e ? 1 : 2) * NITER * np);
        CHECK_MPI(MPI_Win_unlock(me, w));
    }
    free(all);
    free(allf);
    free(olds);
    free(fop);
    MPI_Type_free(&rev);
}

static int val(int r, int i)
{
    return 1000 * (r + 1) + i;
}

/* window: matrix A (puts), then matrix B (accumulates), NV * NV ints each */
static void transposes(MPI_Win w, void *wmem, int kind)
{
    int *mat = wmem, *b = mat + NV * NV;
    int *a = mt_malloc(sizeof(int) * NV * NV), *back = mt_malloc(sizeof(int) * NV * NV);
    (void)kind;
    for (int i = 0; i < NV * NV; i++) a[i] = val(me, i);
    MPI_Datatype column, xpose;
    MPI_Type_vector(NV, 1, NV, MPI_INT, &column);
    MPI_Type_create_hvector(NV, 1, sizeof(int), column, &xpose);
    MPI_Type_commit(&xpose);
    int next = (me + 1) % np, prev = (me + np - 1) % np;
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Put(a, NV * NV, MPI_INT, next, 0, 1, xpose, w));
    CHECK_MPI(MPI_Win_fence(0, w));
    for (int i = 0; i < NV; i++)
        for (int j = 0; j < NV; j++)
            CHECK(mat[j * NV + i] == val(prev, i * NV + j), "put: [%d][%d] = %d, not %d", j, i,
                  mat[j * NV + i], val(prev, i * NV + j));
    memset(back, 0, sizeof(int) * NV * NV);
    CHECK_MPI(MPI_Get(back, NV * NV, MPI_INT, next, 0, 1, xpose, w));
    CHECK_MPI(MPI_Win_fence(0, w));
    for (int i = 0; i < NV * NV; i++)
        CHECK(back[i] == val(me, i), "get: [%d] = %d, not %d", i, back[i], val(me, i));
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Win_lock_all(0, w));
    CHECK_MPI(MPI_Accumulate(a, NV * NV, MPI_INT, 0, NV * NV, 1, xpose, MPI_SUM, w));
    CHECK_MPI(MPI_Win_unlock_all(w));
    MPI_Barrier(MPI_COMM_WORLD);
    long s = 0;
    for (int r = 0; r < np; r++) s += 1000 * (r + 1);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    memset(back, 0, sizeof(int) * NV * NV);
    CHECK_MPI(MPI_Get_accumulate(NULL, 0, MPI_INT, back, NV * NV, MPI_INT, 0, NV * NV, 1, xpose,
                                 MPI_NO_OP, w));
    CHECK_MPI(MPI_Win_unlock(0, w));
    for (int i = 0; i < NV * NV; i++)
        CHECK(back[i] == s + (long)np * i, "accumulated, read back: [%d] = %d, not %ld", i,
              back[i], s + (long)np * i);
    if (me == 0) {
        CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
        for (int i = 0; i < NV; i++)
            for (int j = 0; j < NV; j++)
                CHECK(b[j * NV + i] == s + (long)np * (i * NV + j), "accumulate: [%d][%d] = %d, "
                      "not %ld", j, i, b[j * NV + i], s + (long)np * (i * NV + j));
        CHECK_MPI(MPI_Win_unlock(0, w));
    }
    MPI_Type_free(&column);
    MPI_Type_free(&xpose);
    free(a);
    free(back);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    mt_each_window(NE * sizeof(int), sizeof(int), atomicity);
    mt_each_window(2 * NV * NV * sizeof(int), sizeof(int), transposes);
    int rc = mt_finish("rma_frag");
    MPI_Finalize();
    return rc;
}
