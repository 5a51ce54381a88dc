/* SPDX-License-Identifier: MIT */
/* The RMA layer's interface to the binding layer (one-sided communication,
 * MPI chapter 12; see src/core/api.h for the conventions and docs/rma.md for
 * the design).  Windows arrive as cr_win_t *, checked by the binding.
 *
 * The communication calls serve their request forms through `how`:
 * MPI_Put and MPI_Rput call core_put (CR_BLOCKING / CR_NONBLOCKING, request
 * NULL for the first; maint/notes.py MEMBERS), likewise Get/Rget,
 * Accumulate/Raccumulate, Get_accumulate/Rget_accumulate.  Every entry
 * returns MPI_SUCCESS or an error code for the window's error handler:
 * MPI_ERR_RMA_SYNC outside an access epoch, MPI_ERR_RMA_RANGE for target
 * memory outside the window, MPI_ERR_RANK, MPI_ERR_TYPE for datatypes that
 * do not match, MPI_ERR_OP for an op the window cannot apply. */
#ifndef COURIER_RMA_API_H
#define COURIER_RMA_API_H
#include "core/core.h"
#include "core/info.h"

/* ---- windows (win.c) ------------------------------------------------------------ */
/* Collective over comm.  Memory: the user's (create), in a segment shared by the
 * ranks of each node (allocate, allocate_shared: *(void **)baseptr is set),
 * none until attached (create_dynamic). */
int core_win_create(void *base, MPI_Aint size, MPI_Aint disp_unit, cr_info_t *info,
                    cr_comm_t *comm, MPI_Win *win);
int core_win_allocate(MPI_Aint size, MPI_Aint disp_unit, cr_info_t *info, cr_comm_t *comm,
                      void *baseptr, MPI_Win *win);
int core_win_allocate_shared(MPI_Aint size, MPI_Aint disp_unit, cr_info_t *info,
                             cr_comm_t *comm, void *baseptr, MPI_Win *win);
int core_win_create_dynamic(cr_info_t *info, cr_comm_t *comm, MPI_Win *win);
/* rank's memory as mapped in this process (shared and allocate flavours). */
int core_win_shared_query(cr_win_t *win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                          void *baseptr);
int core_win_attach(cr_win_t *win, void *base, MPI_Aint size);
int core_win_detach(cr_win_t *win, const void *base);
/* Collective; waits until no rank has an epoch open on the window. */
int core_win_free(cr_win_t *win);
int core_win_get_group(cr_win_t *win, MPI_Group *group);
int core_win_set_name(cr_win_t *win, const char *win_name);
int core_win_get_name(cr_win_t *win, char *win_name, int *resultlen);
int core_win_set_info(cr_win_t *win, cr_info_t *info);
int core_win_get_info(cr_win_t *win, MPI_Info *info_used);
/* Attributes: the predefined window attributes (MPI_WIN_BASE, SIZE,
 * DISP_UNIT, CREATE_FLAVOR, MODEL) and the user's keyvals (src/core/attr.h). */
int core_win_set_attr(cr_win_t *win, int win_keyval, void *attribute_val);
int core_win_get_attr(cr_win_t *win, int win_keyval, void *attribute_val, int *flag);
int core_win_delete_attr(cr_win_t *win, int win_keyval);
/* Error handlers. */
int core_win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler);
int core_win_set_errhandler(cr_win_t *win, cr_errhandler_t *errhandler);
int core_win_get_errhandler(cr_win_t *win, MPI_Errhandler *errhandler);
int core_win_call_errhandler(cr_win_t *win, int errorcode);

/* ---- communication (ops.c) ---------------------------------------------------------- */
/* MPI_Put, MPI_Rput.  On a target mapped in this process the data is in the
 * target's memory when the call returns. */
int core_put(const void *origin_addr, MPI_Count origin_count, cr_datatype_t *origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             cr_datatype_t *target_datatype, cr_win_t *win, cr_how_t how,
             MPI_Request *request);
/* MPI_Get, MPI_Rget. */
int core_get(void *origin_addr, MPI_Count origin_count, cr_datatype_t *origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Count target_count,
             cr_datatype_t *target_datatype, cr_win_t *win, cr_how_t how,
             MPI_Request *request);
/* MPI_Accumulate, MPI_Raccumulate. */
int core_accumulate(const void *origin_addr, MPI_Count origin_count,
                    cr_datatype_t *origin_datatype, int target_rank, MPI_Aint target_disp,
                    MPI_Count target_count, cr_datatype_t *target_datatype, cr_op_t *op,
                    cr_win_t *win, cr_how_t how, MPI_Request *request);
/* MPI_Get_accumulate, MPI_Rget_accumulate. */
int core_get_accumulate(const void *origin_addr, MPI_Count origin_count,
                        cr_datatype_t *origin_datatype, void *result_addr,
                        MPI_Count result_count, cr_datatype_t *result_datatype,
                        int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                        cr_datatype_t *target_datatype, cr_op_t *op, cr_win_t *win,
                        cr_how_t how, MPI_Request *request);
int core_fetch_and_op(const void *origin_addr, void *result_addr, cr_datatype_t *datatype,
                      int target_rank, MPI_Aint target_disp, cr_op_t *op, cr_win_t *win);
int core_compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          cr_datatype_t *datatype, int target_rank, MPI_Aint target_disp,
                          cr_win_t *win);

/* ---- synchronization (sync.c) ---------------------------------------------------------- */
int core_win_fence(int assert, cr_win_t *win);
int core_win_start(cr_group_t *group, int assert, cr_win_t *win);
int core_win_complete(cr_win_t *win);
int core_win_post(cr_group_t *group, int assert, cr_win_t *win);
int core_win_wait(cr_win_t *win);
int core_win_test(cr_win_t *win, int *flag);
int core_win_lock(int lock_type, int rank, int assert, cr_win_t *win);
int core_win_unlock(int rank, cr_win_t *win);
int core_win_lock_all(int assert, cr_win_t *win);
int core_win_unlock_all(cr_win_t *win);
int core_win_flush(int rank, cr_win_t *win);
int core_win_flush_all(cr_win_t *win);
int core_win_flush_local(int rank, cr_win_t *win);
int core_win_flush_local_all(cr_win_t *win);
int core_win_sync(cr_win_t *win);
/* The short ways of MPI_Put, MPI_Get and MPI_Win_flush that their entry
 * points try first (maint/notes.py FAST_PATHS). */
#include "rma/fast.h"
#endif
