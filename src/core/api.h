/* SPDX-License-Identifier: MIT */
/* The core's interface to the binding layer: the entries that the generated
 * MPI_X / PMPI_X functions (src/binding, maint/gen_bindings.py) call.
 *
 * The generator reads the prototypes in this file (and in every other
 * src/<layer>/api.h) and binds each MPI procedure to one of them, matching
 * parameters by name.  Conventions (maint/gen_bindings.py has the details):
 * - An entry receives objects, never handles: the binding has checked every
 *   handle argument and turned it into its object (cr_comm_t *, ...).  The
 *   exceptions are MPI_Request and MPI_Message pointers and arrays, which the
 *   completion calls update in place.
 * - Counts are MPI_Count (or MPI_Aint), arrays of counts and displacements
 *   cr_vec_t, so one entry serves the int and the large-count (_c) forms.
 * - An entry with a `cr_how_t how` parameter serves a family: the blocking,
 *   non-blocking (I-) and persistent (_init) forms; `request` is NULL for the
 *   blocking form.
 * - An entry returns MPI_SUCCESS or an error code made by cr_error(); the
 *   binding hands a non-zero code to the error handler.  It may assume that its
 *   arguments passed the generated checks (check.h).
 */
#ifndef COURIER_CORE_API_H
#define COURIER_CORE_API_H
#include "core/core.h"

/* ---- point-to-point (p2p_api.c) ---------------------------------------------- */
/* The general paths of core_send and core_recv. */
int cr_send_general(const void *buf, MPI_Count count, cr_datatype_t *datatype, int dest, int tag,
                    cr_comm_t *comm, int mode, cr_how_t how, MPI_Request *request);
int cr_recv_general(void *buf, MPI_Count count, cr_datatype_t *datatype, int source, int tag,
                    cr_comm_t *comm, MPI_Status *status, cr_how_t how, MPI_Request *request);

/* MPI_Send, MPI_Ssend, MPI_Rsend, MPI_Bsend (mode CR_MODE_*), their I- and _init
 * forms.  Inline, so that each entry point sees its own constant mode and how:
 * standard sends of contiguous data try the fast paths first (straight into
 * the ring, no request). */
static inline int core_send(const void *buf, MPI_Count count, cr_datatype_t *datatype, int dest,
                            int tag, cr_comm_t *comm, int mode, cr_how_t how,
                            MPI_Request *request)
{
    if (CR_LIKELY(mode == CR_MODE_STD && datatype->contig)) {
        const char *data = (const char *)buf + datatype->lb;
        size_t bytes = (size_t)count * (size_t)datatype->size;
        if (how == CR_BLOCKING) {
            if (CR_LIKELY(cr_send_fast(data, bytes, dest, tag, comm) == 0)) return MPI_SUCCESS;
        } else if (how == CR_NONBLOCKING) {
            cr_request_t *r = cr_isend_fast(data, bytes, dest, tag, comm);
            if (CR_LIKELY(r != NULL)) {
                *request = r->handle;
                return MPI_SUCCESS;
            }
        }
    }
    return cr_send_general(buf, count, datatype, dest, tag, comm, mode, how, request);
}

/* MPI_Recv, MPI_Irecv, MPI_Recv_init; the blocking receive of contiguous data
 * and every non-blocking one try their fast paths first. */
static inline int core_recv(void *buf, MPI_Count count, cr_datatype_t *datatype, int source,
                            int tag, cr_comm_t *comm, MPI_Status *status, cr_how_t how,
                            MPI_Request *request)
{
    if (how == CR_NONBLOCKING) {
        cr_request_t *r = cr_irecv_fast(buf, count, datatype, source, tag, comm);
        if (CR_LIKELY(r != NULL)) {
            *request = r->handle;
            return MPI_SUCCESS;
        }
    }
    if (how == CR_BLOCKING && datatype->contig &&
        CR_LIKELY(cr_recv_fast((char *)buf + datatype->lb, (size_t)count * (size_t)datatype->size,
                               source, tag, comm, status) == 0))
        return MPI_SUCCESS;
    return cr_recv_general(buf, count, datatype, source, tag, comm, status, how, request);
}
/* MPI_Sendrecv, MPI_Isendrecv. */
int core_sendrecv(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype, int dest,
                  int sendtag, void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype,
                  int source, int recvtag, cr_comm_t *comm, MPI_Status *status, cr_how_t how,
                  MPI_Request *request);
/* MPI_Sendrecv_replace, MPI_Isendrecv_replace. */
int core_sendrecv_replace(void *buf, MPI_Count count, cr_datatype_t *datatype, int dest,
                          int sendtag, int source, int recvtag, cr_comm_t *comm,
                          MPI_Status *status, cr_how_t how, MPI_Request *request);
/* MPI_Probe, MPI_Iprobe (flag NULL for the blocking form). */
int core_probe(int source, int tag, cr_comm_t *comm, int *flag, MPI_Status *status, cr_how_t how);
/* MPI_Mprobe, MPI_Improbe. */
int core_mprobe(int source, int tag, cr_comm_t *comm, int *flag, MPI_Message *message,
                MPI_Status *status, cr_how_t how);
/* MPI_Mrecv, MPI_Imrecv. */
int core_mrecv(void *buf, MPI_Count count, cr_datatype_t *datatype, MPI_Message *message,
               MPI_Status *status, cr_how_t how, MPI_Request *request);
/* Buffered mode (p2p_bsend.c): the process's, a communicator's and a
 * session's buffer (buffer may be MPI_BUFFER_AUTOMATIC); detach and flush
 * return once the buffer's pending messages are sent, iflush gives a request
 * that completes then. */
int core_buffer_attach(void *buffer, MPI_Count size);
int core_buffer_detach(void *buffer_addr, MPI_Count *size);
int core_buffer_flush(void);
int core_buffer_iflush(MPI_Request *request);
int core_comm_attach_buffer(cr_comm_t *comm, void *buffer, MPI_Count size);
int core_comm_detach_buffer(cr_comm_t *comm, void *buffer_addr, MPI_Count *size);
int core_comm_flush_buffer(cr_comm_t *comm);
int core_comm_iflush_buffer(cr_comm_t *comm, MPI_Request *request);
int core_session_attach_buffer(cr_session_t *session, void *buffer, MPI_Count size);
int core_session_detach_buffer(cr_session_t *session, void *buffer_addr, MPI_Count *size);
int core_session_flush_buffer(cr_session_t *session);
int core_session_iflush_buffer(cr_session_t *session, MPI_Request *request);

/* Partitioned communication (p2p_part.c): persistent requests whose send goes
 * out when every partition is ready (one message per round). */
int core_psend_init(const void *buf, int partitions, MPI_Count count, cr_datatype_t *datatype,
                    int dest, int tag, cr_comm_t *comm, MPI_Request *request);
int core_precv_init(void *buf, int partitions, MPI_Count count, cr_datatype_t *datatype,
                    int source, int tag, cr_comm_t *comm, MPI_Request *request);
int core_pready(int partition, cr_request_t *request);
int core_pready_range(int partition_low, int partition_high, cr_request_t *request);
int core_pready_list(int length, const int array_of_partitions[], cr_request_t *request);
int core_parrived(cr_request_t *request, int partition, int *flag);

/* ---- requests (p2p_api.c) ------------------------------------------------------ */
int core_wait(MPI_Request *request, MPI_Status *status);
int core_test(MPI_Request *request, int *flag, MPI_Status *status);
int core_waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]);
int core_testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[]);
int core_waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status);
int core_testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status);
int core_waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[]);
int core_testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[]);
int core_request_get_status(cr_request_t *request, int *flag, MPI_Status *status);
/* MPI 4.1's multi-request MPI_Request_get_status: like Testany/Testall/Testsome
 * but nothing is freed or deactivated. */
int core_request_get_status_any(int count, const MPI_Request array_of_requests[], int *index,
                                int *flag, MPI_Status *status);
int core_request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[]);
int core_request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                 int *outcount, int array_of_indices[],
                                 MPI_Status array_of_statuses[]);
int core_request_free(MPI_Request *request);
int core_cancel(MPI_Request *request);
int core_start(MPI_Request *request);
/* Generalized requests (p2p_greq.c). */
int core_grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request);
int core_grequest_complete(cr_request_t *request);
int core_startall(int count, MPI_Request array_of_requests[]);

/* ---- reduction operations (op.c) ------------------------------------------------ */
/* MPI_Op_create (user_fn) and MPI_Op_create_c (user_fn_c). */
int core_op_create(MPI_User_function *user_fn, MPI_User_function_c *user_fn_c, int commute,
                   MPI_Op *op);
int core_op_free(cr_op_t *op);
int core_op_commutative(cr_op_t *op, int *commute);
int core_reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count, cr_datatype_t *datatype,
                      cr_op_t *op);

#endif
