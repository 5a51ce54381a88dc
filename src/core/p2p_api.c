/* SPDX-License-Identifier: MIT */
/* The MPI point-to-point calls (core_* behind the generated bindings), built on
 * cr_isend/cr_irecv and the request machinery. */
#include "core/pt2pt.h"
#include "core/datatype.h"

#include <stdlib.h>
#include <string.h>

int cr_iprobe(int src, int tag, cr_comm_t *comm, int *flag, MPI_Status *status, int remove,
              cr_unexp_t **out);
void cr_mrecv_start(cr_request_t *r, void *buf, MPI_Aint count, cr_datatype_t *dt,
                    cr_comm_t *comm, cr_unexp_t *u);
int cr_cancel_recv(cr_request_t *r);
int cr_request_attach_handle(cr_request_t *r);

static inline void status_out(MPI_Status *st, const cr_request_t *r)
{
    if (st != MPI_STATUS_IGNORE) *st = r->status;
}

/* ---- internal blocking forms ------------------------------------------------ */
int cr_wait(cr_request_t *r, MPI_Status *status)
{
    cr_progress_wait(&r->complete);
    int err = r->err;
    status_out(status, r);
    cr_request_free(r);
    return err;
}

int cr_waitall(int n, cr_request_t **reqs)
{
    int err = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (!reqs[i]) continue;
        int e = cr_wait(reqs[i], MPI_STATUS_IGNORE);
        if (e && !err) err = e;
        reqs[i] = NULL;
    }
    return err;
}

int cr_send(const void *buf, MPI_Aint count, cr_datatype_t *dt, int dest, int tag,
            cr_comm_t *comm, int ctx_off)
{
    cr_request_t *r;
    int err = cr_isend(buf, count, dt, dest, tag, comm, ctx_off, CR_MODE_STD, &r);
    return err ? err : cr_wait(r, MPI_STATUS_IGNORE);
}

int cr_recv(void *buf, MPI_Aint count, cr_datatype_t *dt, int src, int tag, cr_comm_t *comm,
            int ctx_off, MPI_Status *status)
{
    cr_request_t *r;
    int err = cr_irecv(buf, count, dt, src, tag, comm, ctx_off, &r);
    return err ? err : cr_wait(r, status);
}

int cr_sendrecv(const void *sbuf, MPI_Aint scount, cr_datatype_t *sdt, int dest, int stag,
                void *rbuf, MPI_Aint rcount, cr_datatype_t *rdt, int src, int rtag,
                cr_comm_t *comm, int ctx_off, MPI_Status *status)
{
    cr_request_t *rr, *sr;
    int err = cr_irecv(rbuf, rcount, rdt, src, rtag, comm, ctx_off, &rr);
    if (err) return err;
    err = cr_isend(sbuf, scount, sdt, dest, stag, comm, ctx_off, CR_MODE_STD, &sr);
    if (err) return err;
    int e1 = cr_wait(sr, MPI_STATUS_IGNORE);
    int e2 = cr_wait(rr, status);
    return e2 ? e2 : e1;
}

/* ---- blocking and non-blocking sends and receives --------------------------- */
static int send_mode(const void *buf, MPI_Aint count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, int mode, MPI_Request *request)
{
    cr_request_t *r;
    int err = cr_isend(buf, count, cr_datatype_ptr(dt), dest, tag, cr_comm_ptr(comm),
                       CR_CTX_PT2PT, mode, &r);
    if (err) return err;
    if (!request) return cr_wait(r, MPI_STATUS_IGNORE);
    if ((err = cr_request_attach_handle(r)) != 0) return err;
    *request = r->handle;
    return MPI_SUCCESS;
}

int core_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    const cr_datatype_t *dt = cr_datatype_ptr(datatype);
    if (dt->contig && cr_send_fast((const char *)buf + dt->lb, (size_t)count * (size_t)dt->size,
                                   dest, tag, cr_comm_ptr(comm)) == 0)
        return MPI_SUCCESS;
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_STD, NULL);
}
int core_send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_STD, NULL);
}
int core_ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_SYNC, NULL);
}
int core_rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_READY, NULL);
}
int core_isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    const cr_datatype_t *dt = cr_datatype_ptr(datatype);
    if (dt->contig) {
        cr_request_t *r = cr_isend_fast((const char *)buf + dt->lb,
                                        (size_t)count * (size_t)dt->size, dest, tag,
                                        cr_comm_ptr(comm));
        if (r) {
            *request = r->handle;
            return MPI_SUCCESS;
        }
    }
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_STD, request);
}
int core_isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_STD, request);
}
int core_issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_SYNC, request);
}
int core_irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_READY, request);
}

static int recv_any(void *buf, MPI_Aint count, MPI_Datatype dt, int source, int tag,
                    MPI_Comm comm, MPI_Status *status, MPI_Request *request)
{
    cr_request_t *r;
    int err = cr_irecv(buf, count, cr_datatype_ptr(dt), source, tag, cr_comm_ptr(comm),
                       CR_CTX_PT2PT, &r);
    if (err) return err;
    if (!request) return cr_wait(r, status);
    if ((err = cr_request_attach_handle(r)) != 0) return err;
    *request = r->handle;
    return MPI_SUCCESS;
}

int core_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    const cr_datatype_t *dt = cr_datatype_ptr(datatype);
    if (dt->contig && cr_recv_fast((char *)buf + dt->lb, (size_t)count * (size_t)dt->size,
                                   source, tag, cr_comm_ptr(comm), status) == 0)
        return MPI_SUCCESS;
    return recv_any(buf, count, datatype, source, tag, comm, status, NULL);
}
int core_recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status)
{
    return recv_any(buf, count, datatype, source, tag, comm, status, NULL);
}
int core_irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return recv_any(buf, count, datatype, source, tag, comm, MPI_STATUS_IGNORE, request);
}
int core_irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return recv_any(buf, count, datatype, source, tag, comm, MPI_STATUS_IGNORE, request);
}

int core_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return cr_sendrecv(sendbuf, sendcount, cr_datatype_ptr(sendtype), dest, sendtag, recvbuf,
                       recvcount, cr_datatype_ptr(recvtype), source, recvtag, cr_comm_ptr(comm),
                       CR_CTX_PT2PT, status);
}

static int sendrecv_replace(void *buf, MPI_Aint count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    size_t bytes = (size_t)count * (size_t)dt->size;
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp) return cr_error(MPI_ERR_NO_MEM, "no memory for a %zu-byte copy", bytes);
    cr_dt_pack(buf, count, dt, tmp);
    cr_request_t *sr, *rr;
    int err = cr_irecv(buf, count, dt, source, recvtag, cr_comm_ptr(comm), CR_CTX_PT2PT, &rr);
    if (!err)
        err = cr_isend(tmp, (MPI_Aint)bytes, cr_datatype_ptr(MPI_BYTE), dest, sendtag,
                       cr_comm_ptr(comm), CR_CTX_PT2PT, CR_MODE_STD, &sr);
    if (!err) {
        int e1 = cr_wait(sr, MPI_STATUS_IGNORE);
        err = cr_wait(rr, status);
        if (!err) err = e1;
    }
    free(tmp);
    return err;
}

/* ---- buffered sends ----------------------------------------------------------- */
static void *bsend_buf;
static size_t bsend_size, bsend_used;

static void bsend_release(cr_request_t *r)
{
    bsend_used -= r->msg_bytes;
    free(r->proto);
    r->proto = NULL;
}

int core_buffer_attach(void *buffer, int size)
{
    if (bsend_buf)
        return cr_error(MPI_ERR_BUFFER, "a buffer is already attached (detach it first)");
    bsend_buf = buffer;
    bsend_size = (size_t)size;
    bsend_used = 0;
    return MPI_SUCCESS;
}

int core_buffer_detach(void *buffer_addr, int *size)
{
    cr_wait_t w = CR_WAIT_INIT;
    while (bsend_used) cr_wait_poll(&w);
    *(void **)buffer_addr = bsend_buf;
    *size = (int)bsend_size;
    bsend_buf = NULL;
    bsend_size = 0;
    return MPI_SUCCESS;
}

static int bsend_start(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, cr_request_t **out)
{
    cr_datatype_t *dt = cr_datatype_ptr(datatype);
    size_t bytes = (size_t)count * (size_t)dt->size;
    size_t need = bytes + MPI_BSEND_OVERHEAD;
    if (bsend_used + need > bsend_size)
        return cr_error(MPI_ERR_BUFFER, "buffered send of %zu bytes does not fit: attached "
                        "buffer is %zu bytes, %zu in use (plus MPI_BSEND_OVERHEAD=%d per message)",
                        bytes, bsend_size, bsend_used, MPI_BSEND_OVERHEAD);
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy) return cr_error(MPI_ERR_NO_MEM, "no memory for a buffered send");
    cr_dt_pack(buf, count, dt, copy);
    cr_request_t *r;
    int err = cr_isend(copy, (MPI_Aint)bytes, cr_datatype_ptr(MPI_BYTE), dest, tag,
                       cr_comm_ptr(comm), CR_CTX_PT2PT, CR_MODE_STD, &r);
    if (err) {
        free(copy);
        return err;
    }
    bsend_used += need;
    if (r->complete) {
        bsend_used -= need;
        free(copy);
        cr_request_free(r);
    } else {
        r->proto = copy;
        r->msg_bytes = need;     /* for a send: bytes of the attached buffer it holds */
        r->on_free = bsend_release;
        r->detached = 1;
    }
    if (out) {
        *out = cr_request_new(CR_REQ_SEND, 1);
        cr_req_complete(*out);
    }
    return MPI_SUCCESS;
}

int core_bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return bsend_start(buf, count, datatype, dest, tag, comm, NULL);
}

int core_ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    cr_request_t *r;
    int err = bsend_start(buf, count, datatype, dest, tag, comm, &r);
    if (!err) *request = r->handle;
    return err;
}

/* ---- completion ------------------------------------------------------------------ */
/* The request whose completion a handle waits for (persistent: the started one). */
static inline volatile int *done_flag(cr_request_t *r)
{
    return r->persistent ? (r->child ? &r->child->complete : &r->complete) : &r->complete;
}

/* Finish a completed request for the user: status out, free or deactivate, and
 * return its error. */
static int finish(MPI_Request *h, cr_request_t *r, MPI_Status *status)
{
    if (r->persistent) {
        int err = MPI_SUCCESS;
        if (r->child) {
            err = r->child->err;
            r->status = r->child->status;
            cr_request_free(r->child);
            r->child = NULL;
        }
        r->active = 0;
        status_out(status, r);
        return err;
    }
    int err = r->err;
    if (r->kind == CR_REQ_SEND && status != MPI_STATUS_IGNORE) {
        status->MPI_ERROR = MPI_SUCCESS;
        status->count_hi_and_cancelled = r->status.count_hi_and_cancelled & 1;
        status->count_lo = 0;
    } else {
        status_out(status, r);
    }
    *h = MPI_REQUEST_NULL;
    cr_request_free(r);
    return err;
}

static void empty_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->count_lo = 0;
    st->count_hi_and_cancelled = 0;
}

/* NULL for MPI_REQUEST_NULL and inactive persistent requests. */
static inline cr_request_t *active_req(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL) return NULL;
    cr_request_t *r = cr_request_ptr(h);
    if (r && r->persistent && !r->active) return NULL;
    return r;
}

static int poll_req(cr_request_t *r)
{
    if (r->poll && !r->complete && r->poll(r)) cr_req_complete(r);
    return *done_flag(r);
}

int core_wait(MPI_Request *request, MPI_Status *status)
{
    cr_request_t *r = active_req(*request);
    if (!r) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (r->poll) {
        cr_wait_t w = CR_WAIT_INIT;
        while (!poll_req(r)) cr_wait_poll(&w);
    } else {
        cr_progress_wait(done_flag(r));
    }
    return finish(request, r, status);
}

int core_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    cr_request_t *r = active_req(*request);
    if (!r) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!poll_req(r)) {
        cr_progress();
        if (!poll_req(r)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    return finish(request, r, status);
}

static inline MPI_Status *status_at(MPI_Status *arr, int i)
{
    return arr == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &arr[i];
}

int core_waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    int any_err = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status tmp, *st = status_at(array_of_statuses, i);
        int err = core_wait(&array_of_requests[i], st == MPI_STATUS_IGNORE ? &tmp : st);
        if (err) any_err = 1;
        if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = err;
    }
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int core_testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[])
{
    cr_progress();
    for (int i = 0; i < count; i++) {
        cr_request_t *r = active_req(array_of_requests[i]);
        if (r && !poll_req(r)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    int any_err = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status tmp, *st = status_at(array_of_statuses, i);
        int f, err = core_test(&array_of_requests[i], &f, st == MPI_STATUS_IGNORE ? &tmp : st);
        if (err) any_err = 1;
        if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = err;
    }
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int core_testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status)
{
    int nactive = 0;
    cr_progress();
    for (int i = 0; i < count; i++) {
        cr_request_t *r = active_req(array_of_requests[i]);
        if (!r) continue;
        nactive++;
        if (poll_req(r)) {
            *index = i;
            *flag = 1;
            return finish(&array_of_requests[i], r, status);
        }
    }
    *index = MPI_UNDEFINED;
    *flag = nactive == 0;
    if (nactive == 0) empty_status(status);
    return MPI_SUCCESS;
}

int core_waitany(int count, MPI_Request array_of_requests[], int *index, MPI_Status *status)
{
    cr_wait_t w = CR_WAIT_INIT;
    for (;;) {
        unsigned long before = cr_progress_events;
        int flag, err = core_testany(count, array_of_requests, index, &flag, status);
        if (err || flag) return err;
        cr_wait_after(&w, before);
    }
}

int core_testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    int n = 0, nactive = 0, any_err = 0;
    cr_progress();
    for (int i = 0; i < incount; i++) {
        cr_request_t *r = active_req(array_of_requests[i]);
        if (!r) continue;
        nactive++;
        if (!poll_req(r)) continue;
        MPI_Status tmp, *st = status_at(array_of_statuses, n);
        int err = finish(&array_of_requests[i], r, st == MPI_STATUS_IGNORE ? &tmp : st);
        if (err) any_err = 1;
        if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = err;
        array_of_indices[n++] = i;
    }
    *outcount = nactive ? n : MPI_UNDEFINED;
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int core_waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    cr_wait_t w = CR_WAIT_INIT;
    for (;;) {
        unsigned long before = cr_progress_events;
        int err = core_testsome(incount, array_of_requests, outcount, array_of_indices,
                                array_of_statuses);
        if (err || *outcount != 0) return err;
        cr_wait_after(&w, before);
    }
}

int core_request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    cr_request_t *r = active_req(request);
    if (!r) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!poll_req(r)) cr_progress();
    *flag = poll_req(r);
    if (*flag) {
        const cr_request_t *src = r->persistent && r->child ? r->child : r;
        if (status != MPI_STATUS_IGNORE) *status = src->status;
    }
    return MPI_SUCCESS;
}

int core_request_free(MPI_Request *request)
{
    cr_request_t *r = cr_request_ptr(*request);
    if (!r)
        return cr_error(MPI_ERR_REQUEST, "request=0x%x: not an active request", (unsigned)*request);
    *request = MPI_REQUEST_NULL;
    if (r->persistent) {
        if (r->child) r->child->detached = 1;
        if (r->child && r->child->complete) cr_request_free(r->child);
        cr_request_free(r);
        return MPI_SUCCESS;
    }
    if (r->complete) {
        cr_request_free(r);
    } else {
        /* the operation goes on; the request disappears when it completes */
        cr_request_drop_handle(r);
        r->detached = 1;
    }
    return MPI_SUCCESS;
}

int core_cancel(MPI_Request *request)
{
    cr_request_t *r = cr_request_ptr(*request);
    if (!r)
        return cr_error(MPI_ERR_REQUEST, "request=0x%x: not an active request", (unsigned)*request);
    if (r->persistent) r = r->child;
    if (r && r->kind == CR_REQ_RECV) cr_cancel_recv(r);
    /* Cancelling sends is deprecated (MPI 4.1); a send is never cancelled. */
    return MPI_SUCCESS;
}

/* ---- probe ------------------------------------------------------------------------ */
static void proc_null_status(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE) return;
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    status->count_lo = 0;
    status->count_hi_and_cancelled = 0;
}

int core_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    return cr_iprobe(source, tag, cr_comm_ptr(comm), flag, status, 0, NULL);
}

int core_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int flag = 0;
    cr_wait_t w = CR_WAIT_INIT;
    for (;;) {
        unsigned long before = cr_progress_events;
        core_iprobe(source, tag, comm, &flag, status);
        if (flag) return MPI_SUCCESS;
        cr_wait_after(&w, before);
    }
}

int core_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    cr_unexp_t *u;
    cr_comm_t *c = cr_comm_ptr(comm);
    cr_iprobe(source, tag, c, flag, status, 1, &u);
    if (*flag) {
        cr_request_t *m = cr_request_new(CR_REQ_MPROBE, 1);
        m->proto = u;
        m->comm = c;
        *message = m->handle;
    }
    return MPI_SUCCESS;
}

int core_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    int flag = 0;
    cr_wait_t w = CR_WAIT_INIT;
    for (;;) {
        unsigned long before = cr_progress_events;
        core_improbe(source, tag, comm, &flag, message, status);
        if (flag) return MPI_SUCCESS;
        cr_wait_after(&w, before);
    }
}

int core_imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    cr_request_t *m = *message == MPI_MESSAGE_NO_PROC ? NULL : cr_request_ptr(*message);
    if (*message != MPI_MESSAGE_NO_PROC && (!m || m->kind != CR_REQ_MPROBE))
        return cr_error(MPI_ERR_REQUEST, "message=0x%x: not a message from MPI_Mprobe",
                        (unsigned)*message);
    cr_request_t *r = cr_request_new(CR_REQ_RECV, 1);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "out of memory for a request");
    if (*message == MPI_MESSAGE_NO_PROC) {
        cr_mrecv_start(r, buf, count, cr_datatype_ptr(datatype), &cr_comm_self, NULL);
    } else {
        cr_mrecv_start(r, buf, count, cr_datatype_ptr(datatype), m->comm, m->proto);
        cr_request_free(m);
    }
    *message = MPI_MESSAGE_NULL;
    *request = r->handle;
    return MPI_SUCCESS;
}

int core_mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    MPI_Request req;
    int err = core_imrecv(buf, count, datatype, message, &req);
    return err ? err : core_wait(&req, status);
}

/* ---- persistent requests ------------------------------------------------------------ */
static int persistent_new(cr_req_kind_t kind, const void *buf, int count, MPI_Datatype dt,
                          int peer, int tag, MPI_Comm comm, int mode, MPI_Request *request)
{
    cr_request_t *r = cr_request_new(kind, 1);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "out of memory for a request");
    r->persistent = 1;
    r->buf = (void *)buf;
    r->count = count;
    r->dt = cr_datatype_ptr(dt);
    cr_dt_retain(r->dt);     /* the type may be freed while the request lives */
    r->peer = peer;
    r->tag = tag;
    r->comm = cr_comm_ptr(comm);
    r->mode = mode;
    *request = r->handle;
    return MPI_SUCCESS;
}

int core_send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return persistent_new(CR_REQ_PREQ_SEND, buf, count, datatype, dest, tag, comm, CR_MODE_STD,
                          request);
}
int core_ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persistent_new(CR_REQ_PREQ_SEND, buf, count, datatype, dest, tag, comm, CR_MODE_SYNC,
                          request);
}
int core_rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persistent_new(CR_REQ_PREQ_SEND, buf, count, datatype, dest, tag, comm,
                          CR_MODE_READY, request);
}
int core_bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return persistent_new(CR_REQ_PREQ_SEND, buf, count, datatype, dest, tag, comm,
                          CR_MODE_BUFFERED, request);
}
int core_recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return persistent_new(CR_REQ_PREQ_RECV, buf, count, datatype, source, tag, comm, 0, request);
}

/* A user's persistent request, or NULL after recording MPI_ERR_REQUEST in *err. */
static cr_request_t *persistent_req(MPI_Request h, const char *arg, int *err)
{
    cr_request_t *r = cr_request_ptr(h);
    if (!r || !r->persistent) {
        *err = cr_error(MPI_ERR_REQUEST, "%s=0x%x: not a persistent request", arg, (unsigned)h);
        return NULL;
    }
    return r;
}

int core_start(MPI_Request *request)
{
    int err;
    cr_request_t *r = persistent_req(*request, "request", &err), *c = NULL;
    if (!r) return err;
    if (r->active)
        return cr_error(MPI_ERR_REQUEST, "request=0x%x: persistent request is already active",
                        (unsigned)*request);
    if (r->kind == CR_REQ_PREQ_RECV) {
        err = cr_irecv(r->buf, r->count, r->dt, r->peer, r->tag, r->comm, CR_CTX_PT2PT, &c);
    } else if (r->mode == CR_MODE_BUFFERED) {
        err = bsend_start(r->buf, (int)r->count, r->dt->handle, r->peer, r->tag, r->comm->handle,
                          &c);
        if (!err) {
            /* the started operation is already complete; drop its handle */
            cr_request_drop_handle(c);
        }
    } else {
        err = cr_isend(r->buf, r->count, r->dt, r->peer, r->tag, r->comm, CR_CTX_PT2PT, r->mode,
                       &c);
    }
    if (err) return err;
    r->child = c;
    r->active = 1;
    return MPI_SUCCESS;
}

int core_startall(int count, MPI_Request array_of_requests[])
{
    for (int i = 0; i < count; i++) {
        int err = core_start(&array_of_requests[i]);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

/* ---- the remaining int and large-count forms ---------------------------------------- */
int core_sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}
int core_sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Status *status)
{
    return sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
}
int core_sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return cr_sendrecv(sendbuf, sendcount, cr_datatype_ptr(sendtype), dest, sendtag, recvbuf,
                       recvcount, cr_datatype_ptr(recvtype), source, recvtag, cr_comm_ptr(comm),
                       CR_CTX_PT2PT, status);
}
int core_ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_SYNC, NULL);
}
int core_rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_READY, NULL);
}
int core_issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_SYNC, request);
}
int core_irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return send_mode(buf, count, datatype, dest, tag, comm, CR_MODE_READY, request);
}
int core_bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return bsend_start(buf, count, datatype, dest, tag, comm, NULL);
}
int core_ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    cr_request_t *r;
    int err = bsend_start(buf, count, datatype, dest, tag, comm, &r);
    if (!err) *request = r->handle;
    return err;
}
