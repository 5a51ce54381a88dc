/* SPDX-License-Identifier: MIT */
/* The automatic choice of the Allreduce algorithm on one node depends on
 * oversubscription (src/coll/coll_select.c, rows marked OVERSUB): with more
 * ranks than cores, vectors from COURIER_COLL_ALLREDUCE_CMA_MIN_BYTES up to
 * COURIER_COLL_REDUCE_PIPE_MAX_BYTES take the pipelined reduce and a
 * broadcast (7) on communicators of at least COURIER_COLL_REDUCE_PIPE_MIN_RANKS
 * (3), up to COURIER_COLL_ALLREDUCE_OVERSUB_TREE_MAX_BYTES reduce +
 * broadcast (2), larger ones single copy (5); without oversubscription
 * vectors from COURIER_COLL_ALLREDUCE_STAGE_MIN_BYTES (64 KiB) go through the
 * staging buffers (8), smaller ones from the cma size by single copy (5).  Run with COURIER_OVERSUBSCRIBED=1 or 0 and SELECT_EXPECT=oversub or
 * not; Courier's coll_allreduce_algorithm performance variable says which
 * algorithm ran (other MPIs: only the sums are checked).  Every element of
 * every result is checked, blocking and MPI_IN_PLACE. */
#include "mpitest.h"

static int rank, size;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle alg_pvar;
static int have_pvar;

static void pvar_open(void)
{
    int provided, idx, count;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    if (MPI_T_pvar_get_index("coll_allreduce_algorithm", MPI_T_PVAR_CLASS_STATE, &idx) != MPI_SUCCESS)
        return;
    CHECK_MPI(MPI_T_pvar_session_create(&session));
    CHECK_MPI(MPI_T_pvar_handle_alloc(session, idx, NULL, &alg_pvar, &count));
    have_pvar = 1;
}

static void one(size_t n, int in_place, int want_alg)
{
    int *in = mt_malloc(n * sizeof(int)), *out = mt_malloc(n * sizeof(int));
    for (size_t k = 0; k < n; k++) (in_place ? out : in)[k] = rank * 3 + (int)(k % 1000);
    CHECK_MPI(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, (int)n, MPI_INT, MPI_SUM,
                            MPI_COMM_WORLD));
    for (size_t k = 0; k < n; k++) {
        int want = 3 * (size * (size - 1) / 2) + size * (int)(k % 1000);
        if (out[k] != want) {
            CHECK(out[k] == want, "allreduce of %zu ints, element %zu: %d, want %d", n, k, out[k], want);
            break;
        }
    }
    if (have_pvar && size > 1 && want_alg) {
        int got = -1;
        CHECK_MPI(MPI_T_pvar_read(session, alg_pvar, &got));
        CHECK(got == want_alg, "allreduce of %zu bytes: algorithm %d ran, %d expected", n * sizeof(int),
              got, want_alg);
    }
    free(in);
    free(out);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    pvar_open();
    const char *e = getenv("SELECT_EXPECT");
    int oversub = e && !strcmp(e, "oversub");
    int known = e != NULL;
    for (int in_place = 0; in_place < 2; in_place++) {
        one(8192, in_place, known ? (oversub ? (size >= 3 ? 7 : 2) : 5) : 0);    /* 32 KiB */
        one(16384, in_place, known ? (oversub ? (size >= 3 ? 7 : 2) : 8) : 0);   /* 64 KiB */
        one(32768, in_place, known ? (oversub ? 2 : 8) : 0);   /* 128 KiB */
        one(262144, in_place, known ? (oversub ? 5 : 8) : 0);  /* 1 MiB */
    }
    if (have_pvar) {
        MPI_T_pvar_handle_free(session, &alg_pvar);
        MPI_T_pvar_session_free(&session);
        MPI_T_finalize();
    }
    int rc = mt_finish("coll_select_oversub");
    MPI_Finalize();
    return rc;
}
