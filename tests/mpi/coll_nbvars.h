/* SPDX-License-Identifier: MIT */
/* For the tests of the non-blocking shm path (coll_nbshm.c, coll_nb_mixed.c):
 * its six collectives, the id of their shm algorithm (src/coll/coll_select.c)
 * and Courier's MPI_T state variables coll_<name>_algorithm, which say what
 * the last call of each took (src/tools/mpit.c).  pvar_open makes a handle
 * per collective in one session (have_pvar stays 0 where a variable is
 * missing: the tests then check data only); pvar_close frees them. */
#ifndef COURIER_COLL_NBVARS_H
#define COURIER_COLL_NBVARS_H
#include "mpitest.h"

enum { NCOLL = 6 };
enum { BARRIER, BCAST, REDUCE, ALLREDUCE, GATHER, ALLGATHER };
static const char *const names[NCOLL] = { "barrier", "bcast", "reduce", "allreduce", "gather",
                                          "allgather" };
static const int shm_id[NCOLL] = { 3, 4, 3, 4, 4, 4 };
static MPI_T_pvar_session session;
static MPI_T_pvar_handle pv[NCOLL];
static int have_pvar;

static void pvar_open(void)
{
    int provided, idx, count;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    CHECK_MPI(MPI_T_pvar_session_create(&session));
    for (int c = 0; c < NCOLL; c++) {
        char name[64];
        snprintf(name, sizeof name, "coll_%s_algorithm", names[c]);
        if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_STATE, &idx) != MPI_SUCCESS) return;
        CHECK_MPI(MPI_T_pvar_handle_alloc(session, idx, NULL, &pv[c], &count));
    }
    have_pvar = 1;
}

static void pvar_close(void)
{
    if (!have_pvar) return;
    for (int c = 0; c < NCOLL; c++) MPI_T_pvar_handle_free(session, &pv[c]);
    MPI_T_pvar_session_free(&session);
    MPI_T_finalize();
}
#endif
