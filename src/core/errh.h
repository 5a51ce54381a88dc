/* SPDX-License-Identifier: MIT */
/* Error codes and error handlers inside the core (src/core/error.c).
 * Communicator code sets cr_comm_world.errh and cr_comm_self.errh to
 * &cr_errh_fatal at start-up; an object that uses a handler holds a reference
 * (cr_errhandler_retain / cr_errhandler_release, core.h). */
#ifndef COURIER_CORE_ERRH_H
#define COURIER_CORE_ERRH_H
#include "core/core.h"

extern cr_errhandler_t cr_errh_fatal;    /* MPI_ERRORS_ARE_FATAL */
extern cr_errhandler_t cr_errh_return;   /* MPI_ERRORS_RETURN */
extern cr_errhandler_t cr_errh_abort;    /* MPI_ERRORS_ABORT */

/* Error codes that Courier makes: bits 0-6 the class (MPICH's values, < 128),
 * bits 7-14 the slot (+1) of the message in a ring of CR_ERR_RING messages
 * (0: no message).  All of them are below MPI_ERR_LASTCODE. */
#define CR_ERR_CLASS_BITS 7
#define CR_ERR_CLASS_MASK 0x7f
#define CR_ERR_RING 128
/* Classes and codes added by the user ("dynamic"), all above MPI_ERR_LASTCODE
 * (0x3fffffff in MPICH's ABI): CR_ERR_DYN | id << CR_ERR_DYN_ID_SHIFT | index.
 * id < CR_ERR_PREDEF_IDS: codes added to that predefined class; above: a user
 * class (index 0 is the class itself, 1.. its codes). */
#define CR_ERR_DYN 0x40000000
#define CR_ERR_DYN_ID_SHIFT 12
#define CR_ERR_DYN_ID_MASK 0x3ffff
#define CR_ERR_DYN_INDEX_MASK 0xfff
#define CR_ERR_PREDEF_IDS 128

/* The value of the MPI_LASTUSEDCODE attribute: the largest class or code the
 * user added and did not remove, MPI_ERR_LASTCODE when there is none. */
int cr_error_last_used(void);
/* The process exit status for MPI_Abort(comm, errorcode): errorcode mod 256,
 * or 1 where that is 0 (an abort never looks like success). */
int cr_abort_exit_status(int errorcode);
/* Set an object's handler slot to e (a predefined one or one made for objects
 * of kind, else MPI_ERR_ARG), moving the references. */
int cr_errhandler_set(cr_errhandler_t **slot, cr_errhandler_t *e, int kind);
/* A handle to e (NULL: MPI_ERRORS_ARE_FATAL) for the user, who frees it. */
int cr_errhandler_get(cr_errhandler_t *e, MPI_Errhandler *errhandler);
#endif
