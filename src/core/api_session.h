/* SPDX-License-Identifier: MIT */
/* The core's interface to the binding layer for sessions (session.c); the
 * conventions are those of src/core/api.h.  Every entry here may be called
 * before MPI_Init, after MPI_Finalize, and without the world model at all. */
#ifndef COURIER_CORE_API_SESSION_H
#define COURIER_CORE_API_SESSION_H
#include "core/core.h"
#include "core/info.h"

/* Starts the runtime if nothing has yet (MPI_Init and every session share
 * one); info may ask for thread_level; errhandler becomes the session's. */
int core_session_init(cr_info_t *info, cr_errhandler_t *errhandler, MPI_Session *session);
/* The session's handle becomes invalid; the runtime stays up for later
 * sessions and ends when the process exits (or at MPI_Finalize). */
int core_session_finalize(cr_session_t *session);
/* A new info: thread_level, mpi_memory_alloc_kinds and the keys given to
 * MPI_Session_init. */
int core_session_get_info(cr_session_t *session, MPI_Info *info_used);
/* Process sets: mpi://WORLD, mpi://SELF and mpix://SHARED (the processes on
 * this process's node), in that order. */
int core_session_get_num_psets(cr_session_t *session, cr_info_t *info, int *npset_names);
/* *pset_len 0: only the length (with the NUL) is returned. */
int core_session_get_nth_pset(cr_session_t *session, cr_info_t *info, int n, int *pset_len,
                              char *pset_name);
/* A new info with mpi_size (the number of processes of the set). */
int core_session_get_pset_info(cr_session_t *session, const char *pset_name, MPI_Info *info);
int core_group_from_session_pset(cr_session_t *session, const char *pset_name,
                                 MPI_Group *newgroup);
int core_session_set_errhandler(cr_session_t *session, cr_errhandler_t *errhandler);
int core_session_get_errhandler(cr_session_t *session, MPI_Errhandler *errhandler);
int core_session_call_errhandler(cr_session_t *session, int errorcode);

#endif
