/* SPDX-License-Identifier: MIT */
/* Sessions (src/core/session.c) and the runtime they share with the world
 * model (src/core/init.c).
 *
 * The runtime (PMI, shared memory, the world and self groups) starts with the
 * first MPI_Init or MPI_Session_init of the process and stays up while the
 * world model or any session is active.  MPI_Finalize stops it when no session
 * remains; otherwise, and for programs that use sessions only, it stops when
 * the process exits (after a barrier over the job, as MPI_Finalize does), so
 * sessions may be initialised and finalised any number of times. */
#ifndef COURIER_CORE_SESSION_H
#define COURIER_CORE_SESSION_H
#include "core/core.h"
#include "core/info.h"

struct cr_session {
    int handle;
    cr_errhandler_t *errh;   /* holds a reference */
    int thread_level;        /* provided to this session */
    cr_info_t *info;         /* the keys given to MPI_Session_init (a copy), or NULL */
};

/* Start the runtime if it is not up (every later call: nothing to do), with
 * the thread locks on when `required` is MPI_THREAD_MULTIPLE and that is
 * provided.  MPI_ERR_OTHER when it cannot start or was stopped already. */
int cr_runtime_start(int required);
/* Stop it now (MPI_Finalize with no session left). */
void cr_runtime_stop(void);
/* The thread level provided for a request: at most COURIER_THREAD_LEVEL_MAX,
 * at most MPI_THREAD_SERIALIZED once the runtime runs without the thread
 * locks, and MPI_THREAD_MULTIPLE (whatever was required) once it was started
 * at that level (valid once the settings are loaded, i.e. inside
 * cr_runtime_start). */
int cr_thread_level_provided(int required);

#endif
