/* SPDX-License-Identifier: MIT */
/* The predefined error handlers (src/core/error.c).  Communicator code sets
 * cr_comm_world.errh and cr_comm_self.errh to &cr_errh_fatal at MPI_Init; a
 * communicator that copies another's handler increments its refcount and
 * calls cr_errhandler_release() when it is freed. */
#ifndef COURIER_CORE_ERRH_H
#define COURIER_CORE_ERRH_H
#include "core/core.h"

extern cr_errhandler_t cr_errh_fatal;    /* MPI_ERRORS_ARE_FATAL */
extern cr_errhandler_t cr_errh_return;   /* MPI_ERRORS_RETURN */
extern cr_errhandler_t cr_errh_abort;    /* MPI_ERRORS_ABORT */

/* Error codes: bits 0-6 the class (MPICH's values, < 128), bits 7-14 the slot
 * (+1) of the message in a ring of CR_ERR_RING messages (0: no message), bit 15
 * marks codes made by MPI_Add_error_code (bits 7-14 then index their strings). */
#define CR_ERR_CLASS_BITS 7
#define CR_ERR_CLASS_MASK 0x7f
#define CR_ERR_RING 128
#define CR_ERR_USER_CODE 0x8000
/* First class handed out by MPI_Add_error_class (after MPICH's MPIX classes). */
#define CR_ERR_FIRST_USER_CLASS 106
#endif
