/* SPDX-License-Identifier: MIT */
/* The MPI point-to-point calls (core_* behind the generated bindings), built on
 * cr_isend/cr_irecv and the request machinery. */
#include "core/pt2pt.h"
#include "core/threads.h"
#include "core/progress.h"
#include "core/datatype.h"
#include "core/api.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

int cr_iprobe(int src, int tag, cr_comm_t *comm, int *flag, MPI_Status *status, int remove,
              cr_unexp_t **out);
void cr_mrecv_start(cr_request_t *r, void *buf, MPI_Aint count, cr_datatype_t *dt,
                    cr_comm_t *comm, cr_unexp_t *u);

/* A completed request's status for the user: every field but MPI_ERROR.  A
 * single-completion call (MPI_Wait, MPI_Test, MPI_Recv, ...) leaves the user's
 * MPI_ERROR as it was; only the multiple-completion calls set it (MPI 4.1
 * section 3.2.5). */
_Static_assert(offsetof(MPI_Status, MPI_ERROR) + sizeof(int) == sizeof(MPI_Status),
               "MPI_ERROR is the last field of MPI_Status");
static inline void status_copy(MPI_Status *st, const MPI_Status *from)
{
    if (st != MPI_STATUS_IGNORE) memcpy(st, from, offsetof(MPI_Status, MPI_ERROR));
}

static inline void status_out(MPI_Status *st, const cr_request_t *r)
{
    status_copy(st, &r->status);
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

/* ---- sends and receives: the families ------------------------------------------ */
/* Start one operation and either wait for it (blocking) or hand its request to
 * the user. */
static int finish_start(int err, cr_request_t *r, MPI_Status *status, MPI_Request *request)
{
    if (err) return err;
    if (!request) return cr_wait(r, status);
    if ((err = cr_request_attach_handle(r)) != 0) return err;
    *request = r->handle;
    return MPI_SUCCESS;
}

static int persistent_new(cr_req_kind_t kind, const void *buf, MPI_Count count,
                          cr_datatype_t *dt, int peer, int tag, cr_comm_t *comm, int mode,
                          MPI_Request *request);

static int send_general(const void *buf, MPI_Count count, cr_datatype_t *datatype, int dest,
                        int tag, cr_comm_t *comm, int mode, cr_how_t how, MPI_Request *request)
{
    if (how == CR_PERSISTENT)
        return persistent_new(CR_REQ_PREQ_SEND, buf, count, datatype, dest, tag, comm, mode,
                              request);
    cr_request_t *r;
    if (mode == CR_MODE_BUFFERED) {
        int err = cr_bsend_start(buf, count, datatype, dest, tag, comm,
                              how == CR_NONBLOCKING ? &r : NULL);
        if (!err && request) *request = r->handle;
        return err;
    }
    int err = cr_isend(buf, count, datatype, dest, tag, comm, CR_CTX_PT2PT, mode, &r);
    return finish_start(err, r, MPI_STATUS_IGNORE, request);
}

static int recv_general(void *buf, MPI_Count count, cr_datatype_t *datatype, int source, int tag,
                        cr_comm_t *comm, MPI_Status *status, cr_how_t how, MPI_Request *request)
{
    if (how == CR_PERSISTENT)
        return persistent_new(CR_REQ_PREQ_RECV, buf, count, datatype, source, tag, comm, 0,
                              request);
    cr_request_t *r;
    int err = cr_irecv(buf, count, datatype, source, tag, comm, CR_CTX_PT2PT, &r);
    return finish_start(err, r, status, request);
}

/* ---- the channel path (docs/threads.md, "Channels") ---------------------------------
 * With the channel locks on, a send or receive that is neither persistent nor
 * buffered, of a predefined datatype (whose references cost nothing: no
 * other object's state is touched), runs under its channel's lock alone.  A
 * blocking one waits polling its channel, the lock let go and the core
 * yielded between polls; once idle for COURIER_WAIT_SLEEP_US it takes a step
 * of the library's waiting policy (liveness checks, every poller, the
 * doorbell sleep) under the library lock, not holding its channel. */
static int chan_path(cr_datatype_t *dt, int mode, cr_how_t how)
{
    return cr_chan_locking && how != CR_PERSISTENT && mode != CR_MODE_BUFFERED && dt->builtin;
}

/* What a wait on a channel waits for: request one to complete, or (one
 * NULL) any active request of reqs[0..count). */
typedef struct {
    cr_request_t *one;
    int count;
    const MPI_Request *reqs;
} chan_until_t;

static inline __attribute__((always_inline)) cr_request_t *active_req(MPI_Request h);

static int chan_done(const chan_until_t *u)
{
    if (u->one) return __atomic_load_n(&u->one->complete, __ATOMIC_ACQUIRE);
    for (int i = 0; i < u->count; i++) {
        cr_request_t *r = active_req(u->reqs[i]);
        if (r && __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE)) return 1;
    }
    return 0;
}

/* Once idle for COURIER_WAIT_SLEEP_US, a wait on a channel sleeps on the
 * process's doorbell without the library lock (chan_wait_until), at most
 * max_us: announced first, then one more poll of its channel, as the
 * library's policy does (progress.c, wait_sleep).  What completes its
 * requests either comes from a peer through its channel's transports, which
 * ring the doorbell, or is done by another thread under its channel's lock,
 * whose unlock rings it (cr_chan_unlock_slow); so no wake-up is lost.  It
 * only yields when the process may not sleep now (cr_wait_bell_prepare) or
 * its channel has queued work that polling must move. */
static void chan_sleep(cr_chan_t *ch, const chan_until_t *u, long max_us)
{
    if (max_us <= 0 || cr_wait_bell_prepare() != 0) {
        cr_wait_sys.yield();
        return;
    }
    cr_chan_lock(ch);
    int quiet = cr_chan_progress(ch) == 0 && !chan_done(u) && cr_chan_can_sleep(ch);
    cr_chan_unlock(ch);
    if (!quiet || __atomic_load_n(&cr_chans_busy, __ATOMIC_RELAXED)) {
        cr_wait_bell_cancel();
        return;
    }
    cr_wait_bell_sleep(max_us);
}

/* Wait on channel ch (held) until u is done: poll the channel, letting its
 * lock go and yielding between polls.  Once idle for COURIER_WAIT_SLEEP_US it
 * sleeps on the doorbell (chan_sleep), touching no other channel and not the
 * library lock, so that threads waiting on distinct channels do not meet;
 * the library's whole step (liveness checks, every poller, its own sleep)
 * under the library lock, when no other thread holds it (one that does
 * moves that work itself, or runs a user function there that this thread's
 * requests need not wait for), comes first, and then again once per
 * COURIER_WAIT_SLEEP_US of idleness, and on every turn while some channel
 * has out-queue work (cr_chans_busy): what this thread's peer waits for
 * before it answers may be another channel's message or another poller's
 * work (a cancel on another communicator of this thread, a non-blocking
 * collective), which this channel's polls do not move.  Before, that step
 * ran on every turn, a library lock and every channel's lock per yield. */
static void chan_wait_until(cr_chan_t *ch, const chan_until_t *u)
{
    cr_wait_t w = CR_WAIT_INIT;
    uint64_t idle_since = 0, full_at = 0;
    while (!chan_done(u)) {
        if (cr_chan_progress(ch) > 0) {
            idle_since = 0;
            continue;
        }
        if (chan_done(u)) break;
        cr_chan_unlock(ch);
        uint64_t now = cr_wait_sys.now_ns();
        if (!idle_since) idle_since = now;
        long sleep_us = ut_settings.wait_sleep_us;   /* -1: never sleeps */
        uint64_t period = (uint64_t)(sleep_us > 0 ? sleep_us : 0) * 1000u;
        if (now - idle_since < period) {
            cr_wait_sys.yield();
        } else if (now >= full_at || __atomic_load_n(&cr_chans_busy, __ATOMIC_RELAXED)) {
            full_at = now + period;
            /* taken as a waiting thread takes it back (threads.c): letting
             * it go rings the doorbell only when its polls found events, so
             * threads that all wait can all fall asleep.  Only when free:
             * a thread that holds it moves the library's work itself (or
             * runs a user function there, which this thread's requests
             * need not wait for), and this one sleeps on its channel */
            if (cr_lib_try_reacquire()) {
                if (!chan_done(u)) cr_wait_poll(&w);
                cr_lib_unlock_slow();
            } else {
                chan_sleep(ch, u, (long)((full_at - now) / 1000u));
            }
        } else {
            chan_sleep(ch, u, (long)((full_at - now) / 1000u));
        }
        cr_chan_lock(ch);
    }
}

/* Wait for r, on channel ch (held). */
static void chan_wait(cr_chan_t *ch, cr_request_t *r)
{
    chan_wait_until(ch, &(chan_until_t){ .one = r });
}

/* Hand a started request to the user, or wait for it (channel ch held). */
static int chan_finish(cr_chan_t *ch, int err, cr_request_t *r, MPI_Status *status,
                       MPI_Request *request)
{
    if (err) return err;
    if (request) {
        /* a new handle slot is added under the table's own leaf lock
         * (cr_request_attach_slot), never the library lock: a thread that
         * holds that lock (a user function running inside MPI) must not stop
         * the other channels' threads, whose peak count of live requests
         * may exceed what their channel's pool held before */
        if ((err = cr_request_attach_handle(r)) != 0) return err;
        *request = r->handle;
        return MPI_SUCCESS;
    }
    chan_wait(ch, r);
    err = r->err;
    status_out(status, r);
    cr_request_free(r);
    return err;
}

/* The channel to take the channel path on, locked.  Every channel's network
 * endpoint is called under its lock only, channel 0's too: one-sided
 * communication and dynamic processes reach it through its locked view
 * (cr_chan_net_shared). */
static cr_chan_t *chan_take(cr_comm_t *comm, int tag, int src)
{
    cr_chan_t *ch = cr_chan_of(comm, CR_CTX_PT2PT, tag, src);
    cr_chan_lock_slow(ch);
    return ch;
}

static __attribute__((noinline)) int send_chan(cr_chan_t *ch, const void *buf, MPI_Count count,
                                               cr_datatype_t *datatype, int dest, int tag,
                                               cr_comm_t *comm, int mode, MPI_Request *request)
{
    cr_request_t *r = NULL;
    int err = cr_chan_isend(ch, buf, count, datatype, dest, tag, comm, CR_CTX_PT2PT, mode, &r);
    err = chan_finish(ch, err, r, MPI_STATUS_IGNORE, request);
    cr_chan_unlock_slow(ch);
    return err;
}

static __attribute__((noinline)) int recv_chan(cr_chan_t *ch, void *buf, MPI_Count count,
                                               cr_datatype_t *datatype, int source, int tag,
                                               cr_comm_t *comm, MPI_Status *status,
                                               MPI_Request *request)
{
    cr_request_t *r = NULL;
    int err = cr_chan_irecv(ch, buf, count, datatype, source, tag, comm, CR_CTX_PT2PT, &r);
    err = chan_finish(ch, err, r, status, request);
    cr_chan_unlock_slow(ch);
    return err;
}

/* The binding calls core_send and core_recv without the library lock, so
 * that their fast paths stay as they are without threads (threads.h): the
 * general paths take it here (or their channel's lock alone: above), one
 * test of cr_threaded when it is off. */
static __attribute__((noinline, cold)) int send_general_locked(
    const void *buf, MPI_Count count, cr_datatype_t *datatype, int dest, int tag, cr_comm_t *comm,
    int mode, cr_how_t how, MPI_Request *request)
{
    if (chan_path(datatype, mode, how))
        return send_chan(chan_take(comm, tag, comm->rank), buf, count, datatype, dest, tag, comm,
                         mode, how == CR_NONBLOCKING ? request : NULL);
    cr_lib_lock_slow();
    int err = send_general(buf, count, datatype, dest, tag, comm, mode, how, request);
    cr_lib_unlock_slow();
    return err;
}

static __attribute__((noinline, cold)) int recv_general_locked(
    void *buf, MPI_Count count, cr_datatype_t *datatype, int source, int tag, cr_comm_t *comm,
    MPI_Status *status, cr_how_t how, MPI_Request *request)
{
    if (chan_path(datatype, 0, how))
        return recv_chan(chan_take(comm, tag, source), buf, count, datatype, source, tag, comm,
                         status, how == CR_NONBLOCKING ? request : NULL);
    cr_lib_lock_slow();
    int err = recv_general(buf, count, datatype, source, tag, comm, status, how, request);
    cr_lib_unlock_slow();
    return err;
}

/* MPI_Isend in standard mode of a predefined datatype on the channel path:
 * a small message to a shared-memory peer goes straight into the channel's
 * ring with a request born complete (cr_chan_isend_now), under the channel's
 * lock alone; any other takes send_chan, under the same hold. */
static __attribute__((noinline, cold)) int isend_chan(const void *buf, MPI_Count count,
                                                      cr_datatype_t *datatype, int dest, int tag,
                                                      cr_comm_t *comm, MPI_Request *request)
{
    cr_chan_t *ch = chan_take(comm, tag, comm->rank);
    if (CR_LIKELY(datatype->contig)) {
        cr_request_t *r = cr_chan_isend_now(ch, (const char *)buf + datatype->lb,
                                            (size_t)count * (size_t)datatype->size, dest, tag,
                                            comm);
        if (CR_LIKELY(r != NULL)) {
            cr_chan_unlock_slow(ch);
            *request = r->handle;
            return MPI_SUCCESS;
        }
    }
    return send_chan(ch, buf, count, datatype, dest, tag, comm, CR_MODE_STD, request);
}

__attribute__((noinline)) int cr_send_general(const void *buf, MPI_Count count, cr_datatype_t *datatype, int dest, int tag,
                    cr_comm_t *comm, int mode, cr_how_t how, MPI_Request *request)
{
    if (CR_UNLIKELY(cr_threaded)) {
        if (how == CR_NONBLOCKING && mode == CR_MODE_STD && cr_chan_locking && datatype->builtin)
            return isend_chan(buf, count, datatype, dest, tag, comm, request);
        return send_general_locked(buf, count, datatype, dest, tag, comm, mode, how, request);
    }
    return send_general(buf, count, datatype, dest, tag, comm, mode, how, request);
}

/* MPI_Irecv of a predefined datatype on the channel path: recv_chan's work,
 * taken from cr_recv_general's threaded branch without the hops through
 * recv_general_locked and chan_finish. */
static __attribute__((noinline, cold)) int irecv_chan(void *buf, MPI_Count count,
                                                      cr_datatype_t *datatype, int source, int tag,
                                                      cr_comm_t *comm, MPI_Request *request)
{
    cr_chan_t *ch = chan_take(comm, tag, source);
    cr_request_t *r = NULL;
    int err = cr_chan_irecv(ch, buf, count, datatype, source, tag, comm, CR_CTX_PT2PT, &r);
    if (CR_LIKELY(!err) && CR_LIKELY(!(err = cr_request_attach_handle(r)))) *request = r->handle;
    cr_chan_unlock_slow(ch);
    return err;
}

__attribute__((noinline)) int cr_recv_general(void *buf, MPI_Count count, cr_datatype_t *datatype, int source, int tag,
                    cr_comm_t *comm, MPI_Status *status, cr_how_t how, MPI_Request *request)
{
    if (CR_UNLIKELY(cr_threaded)) {
        if (how == CR_NONBLOCKING && cr_chan_locking && datatype->builtin)
            return irecv_chan(buf, count, datatype, source, tag, comm, request);
        return recv_general_locked(buf, count, datatype, source, tag, comm, status, how, request);
    }
    return recv_general(buf, count, datatype, source, tag, comm, status, how, request);
}

/* ---- sendrecv and sendrecv_replace ----------------------------------------------- */
/* The request of MPI_Isendrecv(_replace): done when its receive and its send
 * are; its status is the receive's. */
typedef struct {
    cr_request_t *send, *recv;
    void *tmp;                  /* sendrecv_replace: the packed outgoing data */
} pair_t;

static int pair_poll(cr_request_t *r)
{
    pair_t *p = r->sched;
    if (!p->send->complete || !p->recv->complete) return 0;
    r->status = p->recv->status;
    r->err = p->recv->err ? p->recv->err : p->send->err;
    cr_request_free(p->send);
    cr_request_free(p->recv);
    p->send = p->recv = NULL;
    return 1;
}

static void pair_free(cr_request_t *r)
{
    pair_t *p = r->sched;
    if (!p) return;
    if (p->send) cr_request_free(p->send);
    if (p->recv) cr_request_free(p->recv);
    free(p->tmp);
    free(p);
    r->sched = NULL;
}

/* Post the receive, then the send (so that a sendrecv with oneself matches),
 * and wait for both or make one request of them. */
static int sendrecv_start(const void *sbuf, MPI_Count scount, cr_datatype_t *sdt, int dest,
                          int stag, void *rbuf, MPI_Count rcount, cr_datatype_t *rdt, int src,
                          int rtag, cr_comm_t *comm, void *tmp, MPI_Status *status,
                          MPI_Request *request)
{
    cr_request_t *rr, *sr;
    int err = cr_irecv(rbuf, rcount, rdt, src, rtag, comm, CR_CTX_PT2PT, &rr);
    if (err) {
        free(tmp);
        return err;
    }
    err = cr_isend(sbuf, scount, sdt, dest, stag, comm, CR_CTX_PT2PT, CR_MODE_STD, &sr);
    if (err) {
        cr_wait(rr, MPI_STATUS_IGNORE);
        free(tmp);
        return err;
    }
    if (!request) {
        int e1 = cr_wait(sr, MPI_STATUS_IGNORE);
        int e2 = cr_wait(rr, status);
        free(tmp);
        return e2 ? e2 : e1;
    }
    cr_request_t *r = cr_request_new(CR_REQ_COLL, 1);
    pair_t *p = malloc(sizeof *p);
    if (!r || !p) {
        free(p);
        if (r) cr_request_free(r);
        cr_wait(sr, MPI_STATUS_IGNORE);
        cr_wait(rr, MPI_STATUS_IGNORE);
        free(tmp);
        return cr_error(MPI_ERR_NO_MEM, "out of memory for a sendrecv request");
    }
    *p = (pair_t){ sr, rr, tmp };
    r->sched = p;
    r->poll = pair_poll;
    r->on_free = pair_free;
    *request = r->handle;
    return MPI_SUCCESS;
}

/* MPI_Sendrecv, MPI_Isendrecv. */
int core_sendrecv(const void *sendbuf, MPI_Count sendcount, cr_datatype_t *sendtype, int dest,
                  int sendtag, void *recvbuf, MPI_Count recvcount, cr_datatype_t *recvtype,
                  int source, int recvtag, cr_comm_t *comm, MPI_Status *status, cr_how_t how,
                  MPI_Request *request)
{
    (void)how;
    return sendrecv_start(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                          recvtype, source, recvtag, comm, NULL, status, request);
}

/* MPI_Sendrecv_replace, MPI_Isendrecv_replace: the outgoing data is packed
 * first, then the buffer receives. */
int core_sendrecv_replace(void *buf, MPI_Count count, cr_datatype_t *datatype, int dest,
                          int sendtag, int source, int recvtag, cr_comm_t *comm,
                          MPI_Status *status, cr_how_t how, MPI_Request *request)
{
    (void)how;
    size_t bytes = (size_t)count * (size_t)datatype->size;
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp) return cr_error(MPI_ERR_NO_MEM, "no memory for a %zu-byte copy", bytes);
    cr_dt_pack(buf, count, datatype, tmp);
    return sendrecv_start(tmp, (MPI_Count)bytes, cr_datatype_ptr(MPI_BYTE), dest, sendtag, buf,
                          count, datatype, source, recvtag, comm, tmp, status, request);
}

/* ---- completion ------------------------------------------------------------------ */
/* The request whose completion a handle waits for (persistent: the started one). */
static inline volatile int *done_flag(cr_request_t *r)
{
    return r->persistent ? (r->child ? &r->child->complete : &r->complete) : &r->complete;
}

/* finish() of a request that is neither persistent nor generalized. */
static inline __attribute__((always_inline)) int finish_plain(MPI_Request *h, cr_request_t *r,
                                                             MPI_Status *status)
{
    int err = r->err;
    if (r->kind == CR_REQ_SEND && status != MPI_STATUS_IGNORE) {
        status->count_hi_and_cancelled = r->status.count_hi_and_cancelled & 1;
        status->count_lo = 0;
    } else {
        status_out(status, r);
    }
    *h = MPI_REQUEST_NULL;
    cr_request_free(r);
    return err;
}

/* finish_plain() of a complete channel-path request (chan_req) under its
 * channel's lock, ch: back to ch's pool without cr_request_free's tests (it
 * has no callback, no communicator reference, and a predefined datatype or
 * none, whose reference costs nothing). */
static inline __attribute__((always_inline)) int finish_chan(cr_chan_t *ch, MPI_Request *h,
                                                            cr_request_t *r, MPI_Status *status)
{
    if (CR_UNLIKELY(r->home != ch || r->tmp)) return finish_plain(h, r, status);
    int err = r->err;
    if (r->kind == CR_REQ_SEND) {
        if (status != MPI_STATUS_IGNORE) {
            status->count_hi_and_cancelled = r->status.count_hi_and_cancelled & 1;
            status->count_lo = 0;
        }
    } else {
        status_out(status, r);
    }
    *h = MPI_REQUEST_NULL;
    cr_chan_request_put(ch, r);
    return err;
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
            if (r->kind == CR_REQ_PREQ_RECV && cr_part_is(r)) r->status.MPI_TAG = r->tag;
            cr_request_free(r->child);
            r->child = NULL;
        }
        r->active = 0;
        status_out(status, r);
        return err;
    }
    if (r->kind == CR_REQ_GREQ) {
        int err = cr_greq_finish(r, status);
        *h = MPI_REQUEST_NULL;
        cr_request_free(r);
        return err;
    }
    return finish_plain(h, r, status);
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
static inline __attribute__((always_inline)) cr_request_t *active_req(MPI_Request h)
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

/* MPI_Wait and MPI_Test are bound without the library lock (maint/notes.py,
 * LIB_LOCK_FREE_ENTRIES): a request of the channel path is finished under
 * its channel's lock alone, any other under the library lock, as before (and
 * every request when the caller holds it already: MPI_Waitall and the other
 * completion calls, non-blocking I/O).
 * Such a request is a plain send or receive from a channel's pool, of a
 * predefined datatype, with nothing to call when it is freed. */
static inline __attribute__((always_inline)) int chan_req(const cr_request_t *r)
{
    return r->home && (r->kind == CR_REQ_SEND || r->kind == CR_REQ_RECV) && !r->persistent &&
           !r->on_free && (!r->dt || r->dt->builtin);
}

static int wait_chan(cr_request_t *r, MPI_Request *request, MPI_Status *status)
{
    cr_chan_t *ch = r->chan;
    cr_chan_lock_slow(ch);
    chan_wait(ch, r);
    int err = finish(request, r, status);
    cr_chan_unlock_slow(ch);
    return err;
}

static int test_chan(cr_request_t *r, MPI_Request *request, int *flag, MPI_Status *status)
{
    cr_chan_t *ch = r->chan;
    cr_chan_lock_slow(ch);
    if (!__atomic_load_n(&r->complete, __ATOMIC_ACQUIRE)) cr_chan_progress(ch);
    int err = MPI_SUCCESS;
    *flag = __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE);
    if (*flag) err = finish(request, r, status);
    cr_chan_unlock_slow(ch);
    return err;
}

static int wait_locked(MPI_Request *request, MPI_Status *status);
static int test_locked(MPI_Request *request, int *flag, MPI_Status *status);

int core_wait(MPI_Request *request, MPI_Status *status)
{
    if (CR_UNLIKELY(cr_chan_locking)) {
        cr_request_t *r = active_req(*request);
        if (r && chan_req(r) && !cr_lib_held()) return wait_chan(r, request, status);
    }
    cr_lib_lock();
    int err = wait_locked(request, status);
    cr_lib_unlock();
    return err;
}

int core_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (CR_UNLIKELY(cr_chan_locking)) {
        cr_request_t *r = active_req(*request);
        if (r && chan_req(r) && !cr_lib_held()) return test_chan(r, request, flag, status);
    }
    cr_lib_lock();
    int err = test_locked(request, flag, status);
    cr_lib_unlock();
    return err;
}

static int wait_locked(MPI_Request *request, MPI_Status *status)
{
    cr_request_t *r = active_req(*request);
    if (!r) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (r->poll) {
        cr_wait_t w = CR_WAIT_INIT;
        while (!poll_req(r)) cr_wait_poll(&w);
        cr_wait_end(&w);
    } else if (!__atomic_load_n(done_flag(r), __ATOMIC_ACQUIRE)) {
        cr_progress_wait(done_flag(r));
    }
    return finish(request, r, status);
}

static int test_locked(MPI_Request *request, int *flag, MPI_Status *status)
{
    cr_request_t *r = active_req(*request);
    if (!r) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!poll_req(r)) {
        unsigned long before = cr_progress_events;
        cr_progress();
        if (!poll_req(r)) {
            *flag = 0;
            cr_wait_test(before, 0);       /* a polling loop yields, then sleeps */
            return MPI_SUCCESS;
        }
    }
    *flag = 1;
    cr_wait_test(0, 1);
    return finish(request, r, status);
}

static inline MPI_Status *status_at(MPI_Status *arr, int i)
{
    return arr == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &arr[i];
}

/* The multiple-completion calls set the MPI_ERROR of each status they fill:
 * the request's error, MPI_SUCCESS for one that succeeded (the standard lets
 * them; MPICH does, and its tests, e.g. part/multipart, expect it), and
 * return MPI_ERR_IN_STATUS when one failed. */
static inline void err_note(MPI_Status arr[], int i, int err, int *any_err)
{
    if (err) *any_err = 1;
    if (arr != MPI_STATUSES_IGNORE) arr[i].MPI_ERROR = err;
}

/* ---- completion of several requests --------------------------------------------
 * MPI_Waitall, MPI_Testall, MPI_Waitany, MPI_Testany, MPI_Waitsome and
 * MPI_Testsome are bound without the library lock too (maint/notes.py): when
 * every active request of the array is a channel-path request (chan_req) of
 * one channel, they run under that channel's lock alone and poll that
 * channel; otherwise (requests of several channels or of other kinds, no
 * active request, or a caller that holds the library lock) under the library
 * lock, polling everything, as before.  ch below: the channel held, or NULL
 * for the library lock. */
static cr_chan_t *chan_of_all(int count, const MPI_Request reqs[])
{
    if (CR_LIKELY(!cr_chan_locking) || cr_lib_held()) return NULL;
    cr_chan_t *ch = NULL;
    for (int i = 0; i < count; i++) {
        cr_request_t *r = active_req(reqs[i]);
        if (!r) continue;
        if (!chan_req(r) || (ch && r->chan != ch)) return NULL;
        ch = r->chan;
    }
    return ch;
}

static void hold(cr_chan_t *ch)
{
    if (ch) cr_chan_lock_slow(ch);
    else cr_lib_lock();
}

static void let_go(cr_chan_t *ch)
{
    if (ch) cr_chan_unlock_slow(ch);
    else cr_lib_unlock();
}

/* cr_progress_events as the waiting policy of a call under the library lock
 * reads it (ch NULL); a call under a channel's lock does not use it, and may
 * not read it: the library lock guards it. */
static inline unsigned long events_before(const cr_chan_t *ch)
{
    return ch ? 0 : cr_progress_events;
}

/* One poll: of the channel held, or of everything. */
static int poll_in(cr_chan_t *ch)
{
    return ch ? cr_chan_progress(ch) : cr_progress();
}

/* MPI_Wait of one handle under ch (or the library lock). */
static int wait_in(cr_chan_t *ch, MPI_Request *h, MPI_Status *status)
{
    if (!ch) return wait_locked(h, status);
    cr_request_t *r = active_req(*h);
    if (!r) {
        empty_status(status);
        return MPI_SUCCESS;
    }
    chan_wait(ch, r);
    return finish(h, r, status);
}

/* MPI_Waitall waits for each request under the lock it holds (wait_in),
 * without going through core_wait's choice of lock.  Under the library lock,
 * a plain send or receive that is complete already (every send of MPI_Isend's
 * fast path is born complete) is finished in the loop, with no call but the
 * request's free: per request, the sender of a message-rate loop pays little
 * more than that free. */
/* MPI_Waitall on the channel path, in one pass: the first active request
 * names the channel, whose lock is taken then, and every entry is finished
 * under it up to the first active request that is not a channel-path request
 * (chan_req) of that channel.  One that is complete already (a send born
 * complete, cr_chan_isend_now) goes straight back to the channel's pool,
 * with no wait and no free call; the others wait on the channel (wait_in).
 * Returns how many entries it finished (count: all of them); the caller
 * finishes the rest under the library lock, as before channels (they wait
 * in order, so finishing the first ones early changes nothing). */
static __attribute__((noinline)) int waitall_chan(int count, MPI_Request array_of_requests[],
                                                  MPI_Status array_of_statuses[], int *any_err)
{
    cr_chan_t *ch = NULL;
    int i;
    for (i = 0; i < count; i++) {
        MPI_Status tmp, *st = status_at(array_of_statuses, i);
        cr_request_t *r = active_req(array_of_requests[i]);
        int err = MPI_SUCCESS;
        if (!r) {
            empty_status(st);
        } else {
            if (!chan_req(r) || (ch && r->chan != ch)) break;
            if (!ch) {
                ch = r->chan;
                cr_chan_lock_slow(ch);
            }
            if (__atomic_load_n(&r->complete, __ATOMIC_ACQUIRE))
                err = finish_chan(ch, &array_of_requests[i], r, st);
            else
                err = wait_in(ch, &array_of_requests[i], st == MPI_STATUS_IGNORE ? &tmp : st);
        }
        err_note(array_of_statuses, i, err, any_err);
    }
    if (ch) cr_chan_unlock_slow(ch);
    return i;
}

/* MPI_Waitall waits for each request under the lock it holds (wait_in),
 * without going through core_wait's choice of lock.  Under the library lock,
 * a plain send or receive that is complete already (every send of MPI_Isend's
 * fast path is born complete) is finished in the loop, with no call but the
 * request's free: per request, the sender of a message-rate loop pays little
 * more than that free. */
int core_waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    int any_err = 0, i = 0;
    if (CR_UNLIKELY(cr_chan_locking) && !cr_lib_held()) {
        i = waitall_chan(count, array_of_requests, array_of_statuses, &any_err);
        if (i == count) return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
    }
    cr_lib_lock();
    for (; i < count; i++) {
        MPI_Status tmp, *st = status_at(array_of_statuses, i);
        MPI_Request h = array_of_requests[i];
        cr_request_t *r = h == MPI_REQUEST_NULL ? NULL : cr_request_ptr(h);
        if (r && (r->kind == CR_REQ_SEND || r->kind == CR_REQ_RECV) && !r->persistent &&
            __atomic_load_n(&r->complete, __ATOMIC_ACQUIRE)) {
            int err = finish_plain(&array_of_requests[i], r, st);
            err_note(array_of_statuses, i, err, &any_err);
            continue;
        }
        int err = wait_locked(&array_of_requests[i], st == MPI_STATUS_IGNORE ? &tmp : st);
        err_note(array_of_statuses, i, err, &any_err);
    }
    cr_lib_unlock();
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

/* After one poll: is every active request of the array complete? */
static int all_complete(cr_chan_t *ch, int count, const MPI_Request reqs[])
{
    poll_in(ch);
    for (int i = 0; i < count; i++) {
        cr_request_t *r = active_req(reqs[i]);
        if (r && !poll_req(r)) return 0;
    }
    return 1;
}

int core_testall(int count, MPI_Request array_of_requests[], int *flag,
                 MPI_Status array_of_statuses[])
{
    cr_chan_t *ch = chan_of_all(count, array_of_requests);
    hold(ch);
    unsigned long before = events_before(ch);
    *flag = all_complete(ch, count, array_of_requests);
    if (!ch) cr_wait_test(before, *flag);
    int any_err = 0;
    for (int i = 0; *flag && i < count; i++) {
        MPI_Status tmp, *st = status_at(array_of_statuses, i);
        int f, err = ch ? wait_in(ch, &array_of_requests[i], st == MPI_STATUS_IGNORE ? &tmp : st)
                        : core_test(&array_of_requests[i], &f,
                                    st == MPI_STATUS_IGNORE ? &tmp : st);
        err_note(array_of_statuses, i, err, &any_err);
    }
    let_go(ch);
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

/* MPI_Testany's one look, which MPI_Waitany repeats. */
static int testany_once(cr_chan_t *ch, int count, MPI_Request array_of_requests[], int *index,
                        int *flag, MPI_Status *status)
{
    int nactive = 0;
    poll_in(ch);
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
    cr_chan_t *ch = chan_of_all(count, array_of_requests);
    cr_wait_t w = CR_WAIT_INIT;
    hold(ch);
    for (;;) {
        unsigned long before = events_before(ch);
        int flag, err = testany_once(ch, count, array_of_requests, index, &flag, status);
        if (err || flag) {
            if (!ch) cr_wait_end(&w);
            let_go(ch);
            return err;
        }
        if (ch) chan_wait_until(ch, &(chan_until_t){ .count = count, .reqs = array_of_requests });
        else cr_wait_after(&w, before);
    }
}

int core_testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                 MPI_Status *status)
{
    cr_chan_t *ch = chan_of_all(count, array_of_requests);
    hold(ch);
    unsigned long before = events_before(ch);
    int err = testany_once(ch, count, array_of_requests, index, flag, status);
    if (!ch) cr_wait_test(before, err || *flag);
    let_go(ch);
    return err;
}

/* MPI_Testsome's one look, which MPI_Waitsome repeats. */
static int testsome_once(cr_chan_t *ch, int incount, MPI_Request array_of_requests[],
                         int *outcount, int array_of_indices[], MPI_Status array_of_statuses[])
{
    int n = 0, nactive = 0, any_err = 0;
    poll_in(ch);
    for (int i = 0; i < incount; i++) {
        cr_request_t *r = active_req(array_of_requests[i]);
        if (!r) continue;
        nactive++;
        if (!poll_req(r)) continue;
        MPI_Status tmp, *st = status_at(array_of_statuses, n);
        int err = finish(&array_of_requests[i], r, st == MPI_STATUS_IGNORE ? &tmp : st);
        err_note(array_of_statuses, n, err, &any_err);
        array_of_indices[n++] = i;
    }
    *outcount = nactive ? n : MPI_UNDEFINED;
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int core_waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    cr_chan_t *ch = chan_of_all(incount, array_of_requests);
    cr_wait_t w = CR_WAIT_INIT;
    hold(ch);
    for (;;) {
        unsigned long before = events_before(ch);
        int err = testsome_once(ch, incount, array_of_requests, outcount, array_of_indices,
                                array_of_statuses);
        if (err || *outcount != 0) {
            if (!ch) cr_wait_end(&w);
            let_go(ch);
            return err;
        }
        if (ch) chan_wait_until(ch, &(chan_until_t){ .count = incount, .reqs = array_of_requests });
        else cr_wait_after(&w, before);
    }
}

int core_testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                  int array_of_indices[], MPI_Status array_of_statuses[])
{
    cr_chan_t *ch = chan_of_all(incount, array_of_requests);
    hold(ch);
    unsigned long before = events_before(ch);
    int err = testsome_once(ch, incount, array_of_requests, outcount, array_of_indices,
                            array_of_statuses);
    if (!ch) cr_wait_test(before, err || *outcount != 0);
    let_go(ch);
    return err;
}

int core_request_get_status(cr_request_t *request, int *flag, MPI_Status *status)
{
    cr_request_t *r = request && !(request->persistent && !request->active) ? request : NULL;
    if (!r) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!poll_req(r)) cr_progress();
    *flag = poll_req(r);
    if (*flag) {
        if (r->kind == CR_REQ_GREQ) return cr_greq_query(r, status);
        const cr_request_t *src = r->persistent && r->child ? r->child : r;
        status_copy(status, &src->status);
    }
    return MPI_SUCCESS;
}

/* MPI_Request_get_status_any/all/some: the test calls without freeing or
 * deactivating anything (MPI 4.1 section 3.7.3). */
static int peek(MPI_Request h, int *flag, MPI_Status *status)
{
    return core_request_get_status(cr_request_ptr(h), flag, status);
}

static int nactive_of(int count, const MPI_Request reqs[])
{
    int n = 0;
    for (int i = 0; i < count; i++) n += active_req(reqs[i]) != NULL;
    return n;
}

int core_request_get_status_any(int count, const MPI_Request array_of_requests[], int *index,
                                int *flag, MPI_Status *status)
{
    *index = MPI_UNDEFINED;
    if (nactive_of(count, array_of_requests) == 0) {
        *flag = 1;
        empty_status(status);
        return MPI_SUCCESS;
    }
    cr_progress();
    for (int i = 0; i < count; i++) {
        if (!active_req(array_of_requests[i])) continue;
        int f, err = peek(array_of_requests[i], &f, status);
        if (err || f) {
            *index = i;
            *flag = 1;
            return err;
        }
    }
    *flag = 0;
    return MPI_SUCCESS;
}

int core_request_get_status_all(int count, const MPI_Request array_of_requests[], int *flag,
                                MPI_Status array_of_statuses[])
{
    if (!(*flag = all_complete(NULL, count, array_of_requests))) return MPI_SUCCESS;
    int any_err = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status tmp, *st = status_at(array_of_statuses, i);
        int f, err = peek(array_of_requests[i], &f, st == MPI_STATUS_IGNORE ? &tmp : st);
        err_note(array_of_statuses, i, err, &any_err);
    }
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int core_request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                 int *outcount, int array_of_indices[],
                                 MPI_Status array_of_statuses[])
{
    if (nactive_of(incount, array_of_requests) == 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    cr_progress();
    int n = 0, any_err = 0;
    for (int i = 0; i < incount; i++) {
        cr_request_t *r = active_req(array_of_requests[i]);
        if (!r || !poll_req(r)) continue;
        MPI_Status tmp, *st = status_at(array_of_statuses, n);
        int f, err = peek(array_of_requests[i], &f, st == MPI_STATUS_IGNORE ? &tmp : st);
        err_note(array_of_statuses, n, err, &any_err);
        array_of_indices[n++] = i;
    }
    *outcount = n;
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int core_request_free(MPI_Request *request)
{
    cr_request_t *r = cr_request_ptr(*request);
    if (!r)
        return cr_error(MPI_ERR_REQUEST, "request=0x%x: not an active request", (unsigned)*request);
    *request = MPI_REQUEST_NULL;
    if (r->kind == CR_REQ_GREQ) return cr_greq_user_free(r);
    if (r->persistent) {
        if (r->child) r->child->detached = 1;
        if (r->child && r->child->complete) cr_request_free(r->child);
        cr_request_free(r);
        return MPI_SUCCESS;
    }
    /* the channel path may complete it meanwhile: decide under its lock */
    cr_chan_t *ch = (r->kind == CR_REQ_SEND || r->kind == CR_REQ_RECV) ? r->chan : NULL;
    if (ch) cr_chan_lock(ch);
    int done = r->complete;
    if (!done) {
        /* the operation goes on; the request disappears when it completes */
        cr_request_drop_handle(r);
        r->detached = 1;
    }
    if (ch) cr_chan_unlock(ch);
    if (done) cr_request_free(r);
    return MPI_SUCCESS;
}

int core_cancel(MPI_Request *request)
{
    cr_request_t *r = cr_request_ptr(*request);
    if (!r)
        return cr_error(MPI_ERR_REQUEST, "request=0x%x: not an active request", (unsigned)*request);
    if (r->kind == CR_REQ_GREQ) return cr_greq_cancel(r);
    int part = cr_part_is(r);
    if (r->persistent) r = r->child;
    if (r && r->kind == CR_REQ_RECV) cr_cancel_recv(r);
    /* A send is cancelled when its message has not matched a receive yet
     * (the receiver answers; the request completes then).  Partitioned
     * sends are not cancelled. */
    else if (r && r->kind == CR_REQ_SEND && !part) cr_cancel_send(r);
    return MPI_SUCCESS;
}

/* ---- probe ------------------------------------------------------------------------ */
static void proc_null_status(MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE) return;
    status->MPI_SOURCE = MPI_PROC_NULL;
    status->MPI_TAG = MPI_ANY_TAG;
    status->count_lo = 0;
    status->count_hi_and_cancelled = 0;
}

/* MPI_Probe, MPI_Iprobe (flag is NULL for the blocking form). */
int core_probe(int source, int tag, cr_comm_t *comm, int *flag, MPI_Status *status, cr_how_t how)
{
    int found = 0;
    if (source == MPI_PROC_NULL) {
        found = 1;
        proc_null_status(status);
    } else if (how == CR_NONBLOCKING) {
        unsigned long before = cr_progress_events;
        cr_iprobe(source, tag, comm, &found, status, 0, NULL);
        cr_wait_test(before, found);       /* a polling loop yields, then sleeps */
    } else {
        cr_wait_t w = CR_WAIT_INIT;
        for (;;) {
            unsigned long before = cr_progress_events;
            cr_iprobe(source, tag, comm, &found, status, 0, NULL);
            if (found) break;
            cr_wait_after(&w, before);
        }
        cr_wait_end(&w);
    }
    if (flag) *flag = found;
    return MPI_SUCCESS;
}

/* MPI_Mprobe, MPI_Improbe: the matched message leaves the queue and becomes
 * an MPI_Message (a request of kind CR_REQ_MPROBE holding it). */
int core_mprobe(int source, int tag, cr_comm_t *comm, int *flag, MPI_Message *message,
                MPI_Status *status, cr_how_t how)
{
    int found = 0;
    if (source == MPI_PROC_NULL) {
        found = 1;
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        if (flag) *flag = 1;
        return MPI_SUCCESS;
    }
    cr_unexp_t *u = NULL;
    cr_wait_t w = CR_WAIT_INIT;
    for (;;) {
        unsigned long before = cr_progress_events;
        cr_iprobe(source, tag, comm, &found, status, 1, &u);
        if (how == CR_NONBLOCKING) cr_wait_test(before, found);
        if (found || how == CR_NONBLOCKING) break;
        cr_wait_after(&w, before);
    }
    cr_wait_end(&w);
    if (found) {
        cr_request_t *m = cr_request_new(CR_REQ_MPROBE, 1);
        if (!m) return cr_error(MPI_ERR_NO_MEM, "out of memory for a message handle");
        m->proto = u;
        cr_request_hold_comm(m, comm);
        *message = m->handle;
    } else {
        *message = MPI_MESSAGE_NULL;
    }
    if (flag) *flag = found;
    return MPI_SUCCESS;
}

/* MPI_Mrecv, MPI_Imrecv. */
int core_mrecv(void *buf, MPI_Count count, cr_datatype_t *datatype, MPI_Message *message,
               MPI_Status *status, cr_how_t how, MPI_Request *request)
{
    int noproc = *message == MPI_MESSAGE_NO_PROC;
    cr_request_t *m = noproc ? NULL : cr_request_ptr(*message);
    if (!noproc && (!m || m->kind != CR_REQ_MPROBE))
        return cr_error(MPI_ERR_REQUEST, "message=0x%x: not a message from MPI_Mprobe",
                        (unsigned)*message);
    cr_request_t *r = cr_request_new(CR_REQ_RECV, 0);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "out of memory for a request");
    if (noproc) {
        cr_mrecv_start(r, buf, count, datatype, &cr_comm_self, NULL);
    } else {
        cr_mrecv_start(r, buf, count, datatype, m->comm, m->proto);
        cr_request_free(m);
    }
    *message = MPI_MESSAGE_NULL;
    (void)how;
    return finish_start(MPI_SUCCESS, r, status, request);
}

/* ---- persistent requests ------------------------------------------------------------ */
static int persistent_new(cr_req_kind_t kind, const void *buf, MPI_Count count,
                          cr_datatype_t *dt, int peer, int tag, cr_comm_t *comm, int mode,
                          MPI_Request *request)
{
    cr_request_t *r = cr_request_new(kind, 1);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "out of memory for a request");
    r->persistent = 1;
    r->buf = (void *)buf;
    r->count = count;
    r->dt = dt;
    cr_dt_retain(r->dt);     /* the type may be freed while the request lives */
    r->peer = peer;
    r->tag = tag;
    cr_request_hold_comm(r, comm);
    r->mode = mode;
    *request = r->handle;
    return MPI_SUCCESS;
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
    if (r->start) {
        err = r->start(r, &c);
    } else if (r->kind == CR_REQ_PREQ_RECV) {
        err = cr_irecv(r->buf, r->count, r->dt, r->peer, r->tag, r->comm, CR_CTX_PT2PT, &c);
    } else if (r->mode == CR_MODE_BUFFERED) {
        err = cr_bsend_start(r->buf, r->count, r->dt, r->peer, r->tag, r->comm, &c);
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
