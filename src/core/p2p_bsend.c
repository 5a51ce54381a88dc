/* SPDX-License-Identifier: MIT */
/* Buffered mode (MPI 4.1 section 3.6): the buffers that MPI_Bsend and its
 * forms draw on, attached to the process (MPI_Buffer_attach), to a
 * communicator (MPI_Comm_attach_buffer) or to a session
 * (MPI_Session_attach_buffer), their flushes and MPI_BUFFER_AUTOMATIC.
 *
 * A buffered send packs its data into memory of its own and sends that; the
 * attached buffer is only accounted (each pending message holds its size plus
 * MPI_BSEND_OVERHEAD of it until the send completes), so a message that does
 * not fit is refused exactly as the standard says, and an automatic buffer
 * never refuses.  A send uses its communicator's buffer if one is attached,
 * else the process's, else a session's (Courier's communicators do not record
 * the session they came from, so the first session with a buffer serves).
 * A send that finds the buffer full first runs progress, so that messages
 * sent before it that have completed give their room back (make_room).
 * Detach and flush wait until the messages that hold the buffer are sent.
 * A communicator or session keeps its (small) entry after a detach, for a
 * later attach and for iflush requests still looking at it. */
#include "core/pt2pt.h"
#include "core/api.h"
#include "core/progress.h"
#include "util/settings.h"

#include <stdlib.h>

typedef struct bbuf {
    struct bbuf *next;       /* comm and session buffers: the list */
    const void *owner;       /* the cr_comm_t / cr_session_t, NULL: the process's */
    int owner_handle;        /* the owner's handle (a freed owner's memory may be reused) */
    int kind;                /* CR_K_COMM or CR_K_SESSION; 0: the process's */
    int attached, automatic;
    void *buf;
    size_t size, used;
} bbuf_t;

static bbuf_t proc_buf;
static bbuf_t *owned;        /* attached comm and session buffers */

static bbuf_t *owned_find(int kind, const void *owner, int handle)
{
    for (bbuf_t *b = owned; b; b = b->next)
        if (b->kind == kind && b->owner == owner && b->owner_handle == handle) return b;
    return NULL;
}

/* The buffer a buffered send on comm draws on, or NULL. */
static bbuf_t *bbuf_for(cr_comm_t *comm)
{
    bbuf_t *b = owned_find(CR_K_COMM, comm, comm->handle);
    if (b && b->attached) return b;
    if (proc_buf.attached) return &proc_buf;
    for (b = owned; b; b = b->next)
        if (b->kind == CR_K_SESSION && b->attached) return b;
    return NULL;
}

/* Room for need more bytes in b now. */
static int fits(const bbuf_t *b, size_t need)
{
    return b->automatic || b->used + need <= b->size;
}

/* A buffered send that finds no room.  The standard's model implementation
 * (MPI 4.1 section 3.6.2) first removes the pending messages that have
 * completed; here they complete in the progress engine, which may not have
 * run since their receivers answered (an acknowledgement still in a ring
 * that a collective's own waiting did not poll, MPICH's threads/pt2pt
 * mt_bsendrecv_huge), or they complete soon.  So run it, with the waiting
 * policy, until the message fits, no pending message is left to give room
 * back, or COURIER_BSEND_WAIT_MS has passed: bounded, so that a program whose
 * buffer is too small gets MPI_ERR_BUFFER, not a hang.  Returns the buffer to
 * use, looked up again after each poll (with threads, another thread may
 * have detached it meanwhile: NULL). */
static bbuf_t *make_room(cr_comm_t *comm, size_t need)
{
    bbuf_t *b = bbuf_for(comm);
    if (!b || fits(b, need) || need > b->size) return b;
    uint64_t limit = (uint64_t)ut_settings.bsend_wait_ms * 1000000u;
    uint64_t start = cr_wait_sys.now_ns();
    cr_wait_t w = CR_WAIT_INIT;
    do {
        cr_wait_poll(&w);
        b = bbuf_for(comm);
    } while (b && !fits(b, need) && b->used && cr_wait_sys.now_ns() - start < limit);
    cr_wait_end(&w);
    return b;
}

static void bsend_release(cr_request_t *r)
{
    bbuf_t *b = r->sched;
    b->used -= r->msg_bytes;
    free(r->proto);
    r->proto = NULL;
    r->sched = NULL;
}

int cr_bsend_start(const void *buf, MPI_Aint count, cr_datatype_t *dt, int dest, int tag,
                   cr_comm_t *comm, cr_request_t **out)
{
    size_t bytes = (size_t)count * (size_t)dt->size;
    size_t need = bytes + MPI_BSEND_OVERHEAD;
    bbuf_t *b = bbuf_for(comm);
    if (b && !fits(b, need)) b = make_room(comm, need);
    if (!b)
        return cr_error(MPI_ERR_BUFFER, "buffered send of %zu bytes: no buffer is attached "
                        "(MPI_Buffer_attach, MPI_Comm_attach_buffer)", bytes);
    if (!fits(b, need))
        return cr_error(MPI_ERR_BUFFER, "buffered send of %zu bytes does not fit: attached "
                        "buffer is %zu bytes, %zu in use by messages not yet delivered "
                        "(plus MPI_BSEND_OVERHEAD=%d per message; waited up to "
                        "COURIER_BSEND_WAIT_MS=%ld ms for them)",
                        bytes, b->size, b->used, MPI_BSEND_OVERHEAD, (long)ut_settings.bsend_wait_ms);
    void *copy = malloc(bytes ? bytes : 1);
    if (!copy) return cr_error(MPI_ERR_NO_MEM, "no memory for a buffered send of %zu bytes", bytes);
    cr_request_t *done = NULL;
    if (out && !(done = cr_request_new(CR_REQ_SEND, 1))) {
        free(copy);
        return cr_error(MPI_ERR_NO_MEM, "out of memory for a buffered send's request");
    }
    cr_dt_pack(buf, count, dt, copy);
    cr_request_t *r;
    int err = cr_isend(copy, (MPI_Aint)bytes, cr_datatype_ptr(MPI_BYTE), dest, tag, comm,
                       CR_CTX_PT2PT, CR_MODE_STD, &r);
    if (err) {
        free(copy);
        if (done) cr_request_free(done);
        return err;
    }
    if (done) {
        /* MPI_Cancel of the user's request cancels r's message, which it
         * names by r's address and generation (r may be gone by then) */
        done->child = r;
        done->wire_gen = r->wire_gen;
        done->vpeer = r->vpeer;
        done->chan = r->chan;
    }
    if (r->complete) {
        free(copy);
        cr_request_free(r);
    } else {
        b->used += need;
        r->proto = copy;
        r->sched = b;
        r->msg_bytes = need;     /* for a send: bytes of the attached buffer it holds */
        r->on_free = bsend_release;
        r->detached = 1;
    }
    if (out) {
        cr_req_complete(done);   /* the user's request: the data is in the buffer */
        *out = done;
    }
    return MPI_SUCCESS;
}

/* ---- attach, detach, flush ---------------------------------------------------------- */
static int attach(bbuf_t *b, void *buffer, MPI_Count size, const char *what)
{
    if (b->attached) return cr_error(MPI_ERR_BUFFER, "a buffer is already attached to %s "
                                     "(detach it first)", what);
    b->attached = 1;
    b->automatic = buffer == MPI_BUFFER_AUTOMATIC;
    b->buf = buffer;
    b->size = b->automatic ? 0 : (size_t)size;
    b->used = 0;
    return MPI_SUCCESS;
}

static void drain(bbuf_t *b)
{
    cr_wait_t w = CR_WAIT_INIT;
    while (b->used) cr_wait_poll(&w);
}

/* Wait for the buffer's messages and hand it back. */
static int detach(bbuf_t *b, void *buffer_addr, MPI_Count *size, const char *what)
{
    if (!b || !b->attached)
        return cr_error(MPI_ERR_BUFFER, "no buffer is attached to %s", what);
    drain(b);
    *(void **)buffer_addr = b->buf;
    *size = (MPI_Count)b->size;
    b->attached = 0;
    b->buf = NULL;
    b->size = 0;
    return MPI_SUCCESS;
}

static int owned_attach(int kind, const void *owner, int handle, void *buffer, MPI_Count size,
                        const char *what)
{
    bbuf_t *b = owned_find(kind, owner, handle);
    if (!b) {
        if (!(b = calloc(1, sizeof *b)))
            return cr_error(MPI_ERR_NO_MEM, "out of memory attaching a buffer to %s", what);
        b->kind = kind;
        b->owner = owner;
        b->owner_handle = handle;
        b->next = owned;
        owned = b;
    }
    return attach(b, buffer, size, what);
}

static int owned_detach(int kind, const void *owner, int handle, void *buffer_addr,
                        MPI_Count *size, const char *what)
{
    /* The entry stays (unattached) for a later attach: a pending iflush
     * request may still look at it. */
    return detach(owned_find(kind, owner, handle), buffer_addr, size, what);
}

/* The iflush request: complete once the buffer holds no pending message. */
static int iflush_poll(cr_request_t *r)
{
    bbuf_t *b = r->sched;
    return b == NULL || b->used == 0;
}

static void iflush_free(cr_request_t *r)
{
    r->sched = NULL;
}

static int iflush(bbuf_t *b, MPI_Request *request)
{
    cr_request_t *r = cr_request_new(CR_REQ_COLL, 1);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "out of memory for a flush request");
    r->sched = b;
    r->poll = iflush_poll;
    r->on_free = iflush_free;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    if (iflush_poll(r)) cr_req_complete(r);
    *request = r->handle;
    return MPI_SUCCESS;
}

int core_buffer_attach(void *buffer, MPI_Count size)
{
    return attach(&proc_buf, buffer, size, "the process");
}

int core_buffer_detach(void *buffer_addr, MPI_Count *size)
{
    return detach(&proc_buf, buffer_addr, size, "the process");
}

int core_buffer_flush(void)
{
    drain(&proc_buf);
    return MPI_SUCCESS;
}

int core_buffer_iflush(MPI_Request *request)
{
    return iflush(&proc_buf, request);
}

int core_comm_attach_buffer(cr_comm_t *comm, void *buffer, MPI_Count size)
{
    return owned_attach(CR_K_COMM, comm, comm->handle, buffer, size, "the communicator");
}

int core_comm_detach_buffer(cr_comm_t *comm, void *buffer_addr, MPI_Count *size)
{
    return owned_detach(CR_K_COMM, comm, comm->handle, buffer_addr, size, "the communicator");
}

int core_comm_flush_buffer(cr_comm_t *comm)
{
    bbuf_t *b = owned_find(CR_K_COMM, comm, comm->handle);
    if (b) drain(b);
    return MPI_SUCCESS;
}

int core_comm_iflush_buffer(cr_comm_t *comm, MPI_Request *request)
{
    return iflush(owned_find(CR_K_COMM, comm, comm->handle), request);
}

/* Sessions have no handle field visible here; their pointer names them. */
int core_session_attach_buffer(cr_session_t *session, void *buffer, MPI_Count size)
{
    return owned_attach(CR_K_SESSION, session, 0, buffer, size, "the session");
}

int core_session_detach_buffer(cr_session_t *session, void *buffer_addr, MPI_Count *size)
{
    return owned_detach(CR_K_SESSION, session, 0, buffer_addr, size, "the session");
}

int core_session_flush_buffer(cr_session_t *session)
{
    bbuf_t *b = owned_find(CR_K_SESSION, session, 0);
    if (b) drain(b);
    return MPI_SUCCESS;
}

int core_session_iflush_buffer(cr_session_t *session, MPI_Request *request)
{
    return iflush(owned_find(CR_K_SESSION, session, 0), request);
}
