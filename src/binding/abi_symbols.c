/* SPDX-License-Identifier: MIT */
/* Objects and functions that mpi.h refers to by name.  MPICH's header refers to
 * the same names, so binaries built against MPICH link with Courier too. */
#include "core/core.h"

/* Sentinels: only their addresses matter. */
static int unweighted_obj, weights_empty_obj;
int MPIR_C_MPI_UNWEIGHTED __attribute__((visibility("default")));
int MPIR_C_MPI_WEIGHTS_EMPTY __attribute__((visibility("default")));
int *const MPI_UNWEIGHTED = &unweighted_obj;
int *const MPI_WEIGHTS_EMPTY = &weights_empty_obj;

/* Fortran status sentinels, seen from C. */
static MPI_Fint f_status_ignore[MPI_F_STATUS_SIZE], f_statuses_ignore[MPI_F_STATUS_SIZE];
MPI_Fint *MPI_F_STATUS_IGNORE = f_status_ignore;
MPI_Fint *MPI_F_STATUSES_IGNORE = f_statuses_ignore;
MPI_F08_status MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status MPIR_F08_MPI_STATUSES_IGNORE_OBJ[1];
MPI_F08_status *MPI_F08_STATUS_IGNORE = &MPIR_F08_MPI_STATUS_IGNORE_OBJ;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = &MPIR_F08_MPI_STATUSES_IGNORE_OBJ[0];
int MPIR_F08_MPI_IN_PLACE;
int MPIR_F08_MPI_BOTTOM;

/* MPI_T_PVAR_ALL_HANDLES: a handle value no real handle can take. */
struct courier_t_pvar_handle *const MPI_T_PVAR_ALL_HANDLES = (struct courier_t_pvar_handle *)-1;

/* MPI_DUP_FN, MPI_COMM_DUP_FN, MPI_TYPE_DUP_FN, MPI_WIN_DUP_FN: copy the
 * attribute value and keep it. */
int MPIR_Dup_fn(MPI_Comm comm, int keyval, void *extra_state, void *attr_in,
                void *attr_out, int *flag)
{
    (void)comm, (void)keyval, (void)extra_state;
    *(void **)attr_out = attr_in;
    *flag = 1;
    return MPI_SUCCESS;
}
