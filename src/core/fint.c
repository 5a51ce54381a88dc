/* SPDX-License-Identifier: MIT */
/* Statuses between the languages (MPI 4.0 19.3.5): C's MPI_Status, Fortran's
 * INTEGER status(MPI_STATUS_SIZE) and Fortran 2008's TYPE(MPI_Status)
 * (MPI_F08_status in C).  In the MPICH ABI all three hold the same five
 * integers in the same order (count_lo, count_hi_and_cancelled, MPI_SOURCE,
 * MPI_TAG, MPI_ERROR), so each conversion is a copy.  The handle conversions
 * (MPI_Comm_c2f, ...) are macros in mpi.h, as in MPICH, and need no code. */
#include "core/core.h"
#include "core/api_comm.h"

#include <string.h>

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_Status is MPI_F_STATUS_SIZE Fortran integers");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPI_F08_status is MPI_Status");

/* The ignore markers are not statuses to convert (MPI 4.0 19.3.5). */
static int check(const void *p, const void *ignore, const char *arg)
{
    if (p == ignore)
        return cr_error(MPI_ERR_ARG, "%s: an MPI_STATUS_IGNORE marker is not a status", arg);
    return MPI_SUCCESS;
}

static int copy(const void *from, const void *ign_from, const char *from_arg, void *to,
                const void *ign_to, const char *to_arg)
{
    int err = check(from, ign_from, from_arg);
    if (!err) err = check(to, ign_to, to_arg);
    if (!err) memcpy(to, from, sizeof(MPI_Status));
    return err;
}

int core_status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
    return copy(c_status, MPI_STATUS_IGNORE, "c_status", f_status, MPI_F_STATUS_IGNORE, "f_status");
}

int core_status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
    return copy(f_status, MPI_F_STATUS_IGNORE, "f_status", c_status, MPI_STATUS_IGNORE, "c_status");
}

int core_status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
    return copy(c_status, MPI_STATUS_IGNORE, "c_status", f08_status, MPI_F08_STATUS_IGNORE,
                "f08_status");
}

int core_status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
    return copy(f08_status, MPI_F08_STATUS_IGNORE, "f08_status", c_status, MPI_STATUS_IGNORE,
                "c_status");
}

int core_status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
    return copy(f_status, MPI_F_STATUS_IGNORE, "f_status", f08_status, MPI_F08_STATUS_IGNORE,
                "f08_status");
}

int core_status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
    return copy(f08_status, MPI_F08_STATUS_IGNORE, "f08_status", f_status, MPI_F_STATUS_IGNORE,
                "f_status");
}
