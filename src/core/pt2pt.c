/* SPDX-License-Identifier: MIT */
/* Point-to-point: matching (posted and unexpected queues, MPI ordering) and the
 * protocols over the shared-memory transport and to self.
 *
 *  eager:        message <= eager_limit: header + data through the cell ring.
 *  eager sync:   same, and the receiver acknowledges the match (Ssend).
 *  rendezvous:   RTS -> (match), then one of
 *    single copy (message >= cma_min and the kernel allows it): the receiver
 *                reads the sender's buffer with process_vm_readv and sends FIN;
 *    split copy  (>= cma_split_min, not oversubscribed): the receiver sends CTS
 *                asking the sender to write the second half with
 *                process_vm_writev while it reads the first; WDONE, then FIN;
 *    pipeline    (otherwise): CTS -> the sender streams chunks through the
 *                pair's chunk buffers -> the receiver copies out.
 * Messages from one sender are handled in ring order, the queues are FIFO, so
 * the non-overtaking rule holds. */
#define _GNU_SOURCE
#include "core/pt2pt.h"
#include "core/datatype.h"
#include "transport/shm/shm.h"
#include "util/settings.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- queues --------------------------------------------------------------- */
static cr_request_t *posted_head, *posted_tail;
static cr_unexp_t *ux_head, *ux_tail;

/* Per local peer: outgoing work in order (sends not yet injected, control
 * packets that found the ring full), the one rendezvous send streaming to it,
 * and the matched rendezvous receives from it (the head one pulls chunks). */
typedef struct cr_ctrl {
    struct cr_ctrl *next;
    cr_request_t *req;      /* a send to (re)try, or NULL for a control packet */
    int type;
    uint64_t aux;
    char payload[sizeof(shm_cts_t)];   /* the largest control payload */
    int len;
} cr_out_t;

typedef struct {
    cr_out_t *out_head, *out_tail;
    cr_request_t *stream;             /* rendezvous send in PS_STREAM */
    cr_request_t *rndv_head, *rndv_tail; /* matched rendezvous receives, in order */
} cr_peer_t;

static cr_peer_t *peers;
static int npeers;
static int busy_peers;      /* peers with out/stream/rndv work: skip the scan when 0 */
static int my_pid;

void cr_pt2pt_init(void)
{
    npeers = cr_proc.local_size;
    peers = calloc((size_t)npeers, sizeof(cr_peer_t));
    my_pid = (int)getpid();
}

static inline size_t eager_limit(void)
{
    size_t lim = (size_t)ut_settings.eager_limit;
    size_t max = shm_nlocal > 1 ? shm_max_payload() : lim;
    return lim < max ? lim : max;
}

void cr_req_complete(cr_request_t *r)
{
    if (r->tmp && r->kind == CR_REQ_SEND) {
        free(r->tmp);
        r->tmp = NULL;
    }
    __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    if (r->detached) cr_request_free(r);
}

static void status_fill(MPI_Status *st, int src, int tag, size_t bytes)
{
    st->MPI_SOURCE = src;
    st->MPI_TAG = tag;
    st->MPI_ERROR = MPI_SUCCESS;
    st->count_hi_and_cancelled = 0;
    cr_status_set_bytes(st, (MPI_Count)bytes);
}

static void status_set(cr_request_t *r, int src, int tag, size_t bytes)
{
    status_fill(&r->status, src, tag, bytes);
}

/* Record the matched message's size; on overflow note MPI_ERR_TRUNCATE and
 * return how many bytes fit. */
static size_t recv_accept(cr_request_t *r, int src, int tag, size_t bytes)
{
    r->msg_bytes = bytes;
    size_t n = bytes;
    if (bytes > r->bytes) {
        r->err = cr_error(MPI_ERR_TRUNCATE,
                          "message of %zu bytes from rank %d (tag %d) truncated: the receive "
                          "buffer holds %zu bytes", bytes, src, tag, r->bytes);
        n = r->bytes;
    }
    status_set(r, src, tag, n);
    r->status.MPI_ERROR = r->err;
    return n;
}

/* Where received packed bytes go: the user buffer itself or a staging copy. */
static char *recv_target(cr_request_t *r, size_t n)
{
    if (r->dt->contig) return (char *)r->buf + r->dt->lb;
    if (!r->tmp && n) r->tmp = malloc(n);
    return r->tmp;
}

static void recv_finish(cr_request_t *r, size_t n)
{
    if (!r->dt->contig && r->tmp) {
        cr_dt_unpack(r->tmp, n, r->buf, r->count, r->dt);
        free(r->tmp);
        r->tmp = NULL;
    }
    cr_req_complete(r);
}

/* The bytes of a send: the user buffer when contiguous, else a packed copy. */
static const char *send_bytes(cr_request_t *r)
{
    if (r->dt->contig) return (const char *)r->buf + r->dt->lb;
    if (!r->tmp && r->bytes) {
        r->tmp = malloc(r->bytes);
        cr_dt_pack(r->buf, r->count, r->dt, r->tmp);
    }
    return r->tmp;
}

static inline int match(uint32_t ctx, int src, int tag, uint32_t mctx, int msrc, int mtag)
{
    return ctx == mctx && (src == msrc || src == MPI_ANY_SOURCE) &&
           (tag == mtag || (tag == MPI_ANY_TAG && mtag >= 0));
}

static cr_request_t *posted_find(uint32_t ctx, int src, int tag)
{
    for (cr_request_t *r = posted_head; r; r = r->next)
        if (match(r->ctx, r->peer, r->tag, ctx, src, tag)) {
            if (r->prev) r->prev->next = r->next; else posted_head = r->next;
            if (r->next) r->next->prev = r->prev; else posted_tail = r->prev;
            r->next = r->prev = NULL;
            return r;
        }
    return NULL;
}

static void posted_add(cr_request_t *r)
{
    r->proto_state = PS_POSTED;
    r->next = NULL;
    r->prev = posted_tail;
    if (posted_tail) posted_tail->next = r; else posted_head = r;
    posted_tail = r;
}

static void ux_add(cr_unexp_t *u)
{
    u->next = NULL;
    if (ux_tail) ux_tail->next = u; else ux_head = u;
    ux_tail = u;
}

/* Find (and with remove, unlink) the first unexpected message matching. */
static cr_unexp_t *ux_find(uint32_t ctx, int src, int tag, int remove)
{
    cr_unexp_t *prev = NULL;
    for (cr_unexp_t *u = ux_head; u; prev = u, u = u->next)
        if (match(ctx, src, tag, u->ctx, u->src, u->tag)) {
            if (remove) {
                if (prev) prev->next = u->next; else ux_head = u->next;
                if (ux_tail == u) ux_tail = prev;
                u->next = NULL;
            }
            return u;
        }
    return NULL;
}

/* ---- outgoing work per peer ------------------------------------------------ */
static void out_append(int to, cr_out_t *o)
{
    cr_peer_t *p = &peers[to];
    if (!p->out_head && !p->stream && !p->rndv_head) busy_peers++;
    o->next = NULL;
    if (p->out_tail) p->out_tail->next = o; else p->out_head = o;
    p->out_tail = o;
}

static inline int peer_busy(const cr_peer_t *p)
{
    return p->out_head || p->stream || p->rndv_head;
}

/* Send a control packet now, or queue it behind earlier work to that peer. */
static void ctrl_send(int to, int type, uint64_t aux, const void *payload, int len)
{
    if (!peers[to].out_head && shm_send_pkt(to, type, 0, 0, 0, aux, payload, (size_t)len) == 0)
        return;
    cr_out_t *o = calloc(1, sizeof *o);
    o->type = type;
    o->aux = aux;
    memcpy(o->payload, payload, (size_t)len);
    o->len = len;
    out_append(to, o);
}

/* Try to put a send's first packet on the wire.  Returns 0 when done, 1 when
 * the ring is full. */
static int send_inject(cr_request_t *r)
{
    int to = r->local;
    if (r->bytes <= eager_limit()) {
        int type = r->mode == CR_MODE_SYNC ? SHM_PKT_EAGER_SYNC : SHM_PKT_EAGER;
        if (shm_send_pkt(to, type, r->ctx, r->comm->rank, r->tag, (uint64_t)(uintptr_t)r,
                         send_bytes(r), r->bytes))
            return 1;
        if (r->mode == CR_MODE_SYNC)
            r->proto_state = PS_WAIT_ACK;
        else
            cr_req_complete(r);
        return 0;
    }
    shm_rts_t rts = { .bytes = r->bytes, .pid = my_pid, .contig = 1 };
    rts.addr = (uint64_t)(uintptr_t)send_bytes(r);
    if (shm_send_pkt(to, SHM_PKT_RTS, r->ctx, r->comm->rank, r->tag, (uint64_t)(uintptr_t)r,
                     &rts, sizeof rts))
        return 1;
    r->proto_state = PS_WAIT_CTS;
    return 0;
}

/* ---- self ------------------------------------------------------------------ */
static void copy_self(cr_request_t *rr, const void *packed, size_t bytes, int src, int tag)
{
    size_t n = recv_accept(rr, src, tag, bytes);
    char *dst = recv_target(rr, n);
    if (n) memcpy(dst, packed, n);
    recv_finish(rr, n);
}

static void send_self(cr_request_t *s)
{
    const char *data = send_bytes(s);
    cr_request_t *rr = posted_find(s->ctx, s->comm->rank, s->tag);
    if (rr) {
        copy_self(rr, data, s->bytes, s->comm->rank, s->tag);
        cr_req_complete(s);
        return;
    }
    cr_unexp_t *u = calloc(1, sizeof *u);
    u->ctx = s->ctx;
    u->src = s->comm->rank;
    u->tag = s->tag;
    u->bytes = s->bytes;
    u->from = -1;
    if (s->mode == CR_MODE_SYNC) {
        u->kind = UX_SELF;            /* data stays with the sender until matched */
        u->self_req = s;
        s->proto_state = PS_WAIT_ACK;
    } else {
        u->kind = UX_EAGER;
        u->data = malloc(s->bytes ? s->bytes : 1);
        if (s->bytes) memcpy(u->data, data, s->bytes);
        cr_req_complete(s);
    }
    ux_add(u);
}

/* ---- starting sends and receives ------------------------------------------- */
int cr_isend(const void *buf, MPI_Aint count, cr_datatype_t *dt, int dest, int tag,
             cr_comm_t *comm, int ctx_off, int mode, cr_request_t **req)
{
    cr_request_t *r = cr_request_new(CR_REQ_SEND, 0);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "out of memory for a send request");
    *req = r;
    r->mode = mode;
    r->comm = comm;
    r->ctx = comm->ctx + (uint32_t)ctx_off;
    r->peer = dest;
    r->tag = tag;
    r->buf = (void *)buf;
    r->count = count;
    r->dt = dt;
    cr_dt_retain(dt);        /* released with the request: MPI_Type_free may come first */
    r->bytes = (size_t)count * (size_t)dt->size;
    if (dest == MPI_PROC_NULL) {
        cr_req_complete(r);
        return MPI_SUCCESS;
    }
    int wr = cr_comm_world_rank(comm, dest);
    if (wr == cr_proc.world_rank) {
        r->local = -1;
        send_self(r);
        return MPI_SUCCESS;
    }
    r->local = cr_proc.local_of_world[wr];
    if (CR_UNLIKELY(r->local < 0))
        return cr_error(MPI_ERR_INTERN, "rank %d is not on this node; Courier has no network "
                        "transport yet", dest);
    if (!peers[r->local].out_head && send_inject(r) == 0) return MPI_SUCCESS;
    r->proto_state = PS_QUEUED;
    cr_out_t *o = calloc(1, sizeof *o);
    o->req = r;
    out_append(r->local, o);
    return MPI_SUCCESS;
}

/* Copy n bytes between this process and process pid with process_vm_readv
 * (write = 0: from remote to local) or process_vm_writev.  Returns the bytes
 * moved: n, or less when the kernel refuses (ptrace policy, seccomp). */
static size_t cma_copy(int pid, void *local, uint64_t remote, size_t n, int write)
{
    size_t done = 0;
    while (done < n) {
        struct iovec l = { (char *)local + done, n - done };
        struct iovec rm = { (char *)(uintptr_t)remote + done, n - done };
        ssize_t k = write ? process_vm_writev(pid, &l, 1, &rm, 1, 0)
                          : process_vm_readv(pid, &l, 1, &rm, 1, 0);
        if (k <= 0) break;
        done += (size_t)k;
    }
    return done;
}

/* Set once a single copy succeeded: only then is a copy split with the sender
 * (a refused split would leave half a message to recover). */
static int cma_works;

/* A matched rendezvous receive: copy once (alone, or split with the sender),
 * or queue for the chunk pipeline. */
static void rndv_start(cr_request_t *r)
{
    size_t n = recv_accept(r, r->status.MPI_SOURCE, r->status.MPI_TAG, r->msg_bytes);
    long cma = ut_settings.cma_min;
    if (cma > 0 && r->msg_bytes >= (size_t)cma && r->remote_contig) {
        char *dst = recv_target(r, n);
        size_t mine = n;
        long split_min = ut_settings.cma_split_min;
        if (cma_works && split_min > 0 && n >= (size_t)split_min && !cr_proc.oversubscribed) {
            /* The sender writes the second half (from a cache-line boundary)
             * while this side reads the first. */
            mine = (n / 2) & ~(size_t)(SHM_CELL - 1);
            shm_cts_t cts = { .rreq = (uint64_t)(uintptr_t)r, .method = SHM_RNDV_SPLIT,
                              .pid = my_pid, .addr = (uint64_t)(uintptr_t)dst, .off = mine,
                              .len = n - mine };
            ctrl_send(r->local, SHM_PKT_CTS, r->remote_req, &cts, sizeof cts);
        }
        size_t got = cma_copy(r->remote_pid, dst, r->remote_addr, mine, 0);
        if (got == mine && mine < n) {
            r->proto_state = PS_RNDV_SPLIT;     /* SHM_PKT_WDONE finishes it */
            r->done_bytes = mine;
            return;
        }
        if (got == n) {
            cma_works = 1;
            ctrl_send(r->local, SHM_PKT_FIN, r->remote_req, NULL, 0);
            recv_finish(r, n);
            return;
        }
        if (mine < n)
            cr_abort_job(1, "process_vm_readv failed after single copies had worked");
        /* CMA not permitted here (ptrace scope, containers): fall back to the pipeline. */
        ut_settings.cma_min = 0;
    }
    cr_peer_t *p = &peers[r->local];
    int was_busy = peer_busy(p);
    r->next = NULL;
    r->done_bytes = 0;
    if (p->rndv_tail) p->rndv_tail->next = r; else p->rndv_head = r;
    p->rndv_tail = r;
    if (!was_busy) busy_peers++;
    if (p->rndv_head == r) {
        shm_cts_t cts = { .rreq = (uint64_t)(uintptr_t)r, .method = SHM_RNDV_PIPE };
        r->proto_state = PS_RNDV_PULL;
        ctrl_send(r->local, SHM_PKT_CTS, r->remote_req, &cts, sizeof cts);
    } else {
        r->proto_state = PS_RNDV_WAIT;
    }
}

/* Deliver an unexpected message to a receive. */
static void ux_deliver(cr_request_t *r, cr_unexp_t *u)
{
    switch (u->kind) {
    case UX_EAGER: {
        size_t n = recv_accept(r, u->src, u->tag, u->bytes);
        char *dst = recv_target(r, n);
        if (n) memcpy(dst, u->data, n);
        if (u->sync) ctrl_send(u->from, SHM_PKT_ACK, u->sreq, NULL, 0);
        recv_finish(r, n);
        free(u->data);
        break;
    }
    case UX_SELF: {
        cr_request_t *s = u->self_req;
        copy_self(r, send_bytes(s), s->bytes, u->src, u->tag);
        cr_req_complete(s);
        break;
    }
    case UX_RTS:
        r->local = u->from;
        r->remote_req = u->sreq;
        r->remote_addr = u->addr;
        r->remote_pid = u->pid;
        r->remote_contig = u->contig;
        r->msg_bytes = u->bytes;
        r->status.MPI_SOURCE = u->src;
        r->status.MPI_TAG = u->tag;
        rndv_start(r);
        break;
    }
    free(u);
}

static void recv_init(cr_request_t *r, void *buf, MPI_Aint count, cr_datatype_t *dt, int src,
                      int tag, cr_comm_t *comm, int ctx_off)
{
    r->comm = comm;
    r->ctx = comm->ctx + (uint32_t)ctx_off;
    r->peer = src;
    r->tag = tag;
    r->buf = buf;
    r->count = count;
    r->dt = dt;
    cr_dt_retain(dt);        /* released with the request: MPI_Type_free may come first */
    r->bytes = (size_t)count * (size_t)dt->size;
}

static void recv_proc_null(cr_request_t *r)
{
    status_set(r, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    cr_req_complete(r);
}

int cr_irecv(void *buf, MPI_Aint count, cr_datatype_t *dt, int src, int tag, cr_comm_t *comm,
             int ctx_off, cr_request_t **req)
{
    cr_request_t *r = cr_request_new(CR_REQ_RECV, 0);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "out of memory for a receive request");
    *req = r;
    recv_init(r, buf, count, dt, src, tag, comm, ctx_off);
    if (src == MPI_PROC_NULL) {
        recv_proc_null(r);
        return MPI_SUCCESS;
    }
    cr_unexp_t *u = ux_find(r->ctx, src, tag, 1);
    if (u)
        ux_deliver(r, u);
    else
        posted_add(r);
    return MPI_SUCCESS;
}

/* ---- incoming packets ------------------------------------------------------ */
static void on_message(int from, const shm_hdr_t *h)
{
    cr_request_t *r = posted_find(h->ctx, h->src, h->tag);
    if (h->type == SHM_PKT_RTS) {
        shm_rts_t rts;
        shm_pkt_copy(from, h, 0, &rts, sizeof rts);
        if (r) {
            r->local = from;
            r->remote_req = h->aux;
            r->remote_addr = rts.addr;
            r->remote_pid = rts.pid;
            r->remote_contig = rts.contig;
            r->msg_bytes = rts.bytes;
            r->status.MPI_SOURCE = h->src;
            r->status.MPI_TAG = h->tag;
            rndv_start(r);
            return;
        }
        cr_unexp_t *u = calloc(1, sizeof *u);
        u->kind = UX_RTS;
        u->ctx = h->ctx;
        u->src = h->src;
        u->tag = h->tag;
        u->bytes = rts.bytes;
        u->from = from;
        u->sreq = h->aux;
        u->addr = rts.addr;
        u->pid = rts.pid;
        u->contig = rts.contig;
        ux_add(u);
        return;
    }
    int sync = h->type == SHM_PKT_EAGER_SYNC;
    if (r) {
        size_t n = recv_accept(r, h->src, h->tag, h->len);
        if (n) shm_pkt_copy(from, h, 0, recv_target(r, n), n);
        if (sync) ctrl_send(from, SHM_PKT_ACK, h->aux, NULL, 0);
        recv_finish(r, n);
        return;
    }
    cr_unexp_t *u = malloc(sizeof *u);
    u->next = NULL;
    u->kind = UX_EAGER;
    u->ctx = h->ctx;
    u->src = h->src;
    u->tag = h->tag;
    u->bytes = h->len;
    u->from = from;
    u->sync = sync;
    u->sreq = h->aux;
    u->data = malloc(h->len ? h->len : 1);
    shm_pkt_copy(from, h, 0, u->data, h->len);
    ux_add(u);
}

static void on_packet(int from, const shm_hdr_t *h)
{
    switch (h->type) {
    case SHM_PKT_EAGER:
    case SHM_PKT_EAGER_SYNC:
    case SHM_PKT_RTS:
        on_message(from, h);
        break;
    case SHM_PKT_ACK:
    case SHM_PKT_FIN:
        cr_req_complete((cr_request_t *)(uintptr_t)h->aux);
        break;
    case SHM_PKT_WDONE: {
        /* The sender's share of a split copy is in place (or could not be
         * written: then read it here).  The sender's buffer is free after FIN. */
        cr_request_t *r = (cr_request_t *)(uintptr_t)h->aux;
        int32_t ok = 0;
        shm_pkt_copy(from, h, 0, &ok, sizeof ok);
        size_t n = r->msg_bytes < r->bytes ? r->msg_bytes : r->bytes;   /* as accepted */
        char *dst = recv_target(r, n);
        size_t mine = r->done_bytes;        /* this side's share, read at the start */
        if (!ok && cma_copy(r->remote_pid, dst + mine, r->remote_addr + mine, n - mine, 0) != n - mine)
            cr_abort_job(1, "process_vm_readv failed after single copies had worked");
        ctrl_send(from, SHM_PKT_FIN, r->remote_req, NULL, 0);
        recv_finish(r, n);
        break;
    }
    case SHM_PKT_CTS: {
        cr_request_t *s = (cr_request_t *)(uintptr_t)h->aux;
        shm_cts_t cts;
        shm_pkt_copy(from, h, 0, &cts, sizeof cts);
        if (cts.method == SHM_RNDV_SPLIT) {
            int32_t ok = cma_copy(cts.pid, (char *)send_bytes(s) + cts.off, cts.addr + cts.off,
                                  cts.len, 1) == cts.len;
            s->proto_state = PS_WAIT_FIN;
            ctrl_send(from, SHM_PKT_WDONE, cts.rreq, &ok, sizeof ok);
            break;
        }
        cr_peer_t *p = &peers[from];
        if (!peer_busy(p)) busy_peers++;
        s->proto_state = PS_STREAM;
        s->done_bytes = 0;
        p->stream = s;
        break;
    }
    }
}

/* Advance one peer's outgoing queue, stream and rendezvous receives. */
static int peer_progress(int i)
{
    cr_peer_t *p = &peers[i];
    int n = 0;
    while (p->out_head) {
        cr_out_t *o = p->out_head;
        if (o->req) {
            if (send_inject(o->req)) break;
        } else if (shm_send_pkt(i, o->type, 0, 0, 0, o->aux, o->payload, (size_t)o->len)) {
            break;
        }
        p->out_head = o->next;
        if (!p->out_head) p->out_tail = NULL;
        free(o);
        n++;
    }
    if (p->stream) {
        cr_request_t *s = p->stream;
        const char *src = send_bytes(s);
        size_t k;
        while (s->done_bytes < s->bytes &&
               (k = shm_chunk_put(i, src + s->done_bytes, s->bytes - s->done_bytes)) > 0) {
            s->done_bytes += k;
            n++;
        }
        if (s->done_bytes >= s->bytes) {
            p->stream = NULL;
            cr_req_complete(s);
        }
    }
    while (p->rndv_head) {
        cr_request_t *r = p->rndv_head;
        size_t cap = r->bytes > r->done_bytes ? r->bytes - r->done_bytes : 0;
        char *dst = recv_target(r, r->bytes < r->msg_bytes ? r->bytes : r->msg_bytes);
        size_t k;
        while (r->done_bytes < r->msg_bytes &&
               (k = shm_chunk_get(i, dst ? dst + (r->done_bytes < r->bytes ? r->done_bytes : 0) : NULL,
                                  dst ? cap : 0)) > 0) {
            r->done_bytes += k;
            cap = r->bytes > r->done_bytes ? r->bytes - r->done_bytes : 0;
            n++;
        }
        if (r->done_bytes < r->msg_bytes) break;
        p->rndv_head = r->next;
        if (!p->rndv_head) p->rndv_tail = NULL;
        r->next = NULL;
        recv_finish(r, r->bytes < r->msg_bytes ? r->bytes : r->msg_bytes);
        if (p->rndv_head) {
            cr_request_t *nx = p->rndv_head;
            shm_cts_t cts = { .rreq = (uint64_t)(uintptr_t)nx, .method = SHM_RNDV_PIPE };
            nx->proto_state = PS_RNDV_PULL;
            ctrl_send(i, SHM_PKT_CTS, nx->remote_req, &cts, sizeof cts);
        }
    }
    if (!peer_busy(p)) busy_peers--;
    return n;
}

int cr_pt2pt_progress(void)
{
    int n = 0;
    if (shm_nlocal <= 1) return 0;
    int me = cr_proc.local_rank;
    for (int i = 0; i < npeers; i++) {
        if (i == me) continue;
        const shm_hdr_t *h;
        while ((h = shm_peek(i)) != NULL) {
            on_packet(i, h);
            shm_pkt_done(i, h);
            n++;
        }
    }
    if (busy_peers)
        for (int i = 0; i < npeers; i++)
            if (i != me && peer_busy(&peers[i])) n += peer_progress(i);
    return n;
}

/* ---- probe and cancel ------------------------------------------------------- */
int cr_iprobe(int src, int tag, cr_comm_t *comm, int *flag, MPI_Status *status, int remove,
              cr_unexp_t **out)
{
    cr_unexp_t *u = ux_find(comm->ctx + CR_CTX_PT2PT, src, tag, remove);
    if (!u) {
        cr_progress();
        u = ux_find(comm->ctx + CR_CTX_PT2PT, src, tag, remove);
    }
    *flag = u != NULL;
    if (u && status != MPI_STATUS_IGNORE) status_fill(status, u->src, u->tag, u->bytes);
    if (out) *out = u;
    return MPI_SUCCESS;
}

/* Start a receive of a message taken out by Mprobe. */
void cr_mrecv_start(cr_request_t *r, void *buf, MPI_Aint count, cr_datatype_t *dt,
                    cr_comm_t *comm, cr_unexp_t *u)
{
    recv_init(r, buf, count, dt, u ? u->src : MPI_PROC_NULL, u ? u->tag : MPI_ANY_TAG, comm,
              CR_CTX_PT2PT);
    if (!u)
        recv_proc_null(r);
    else
        ux_deliver(r, u);
}

/* Cancel a receive that has not matched yet.  Returns 1 when cancelled. */
int cr_cancel_recv(cr_request_t *r)
{
    if (r->proto_state != PS_POSTED || r->complete) return 0;
    if (r->prev) r->prev->next = r->next; else posted_head = r->next;
    if (r->next) r->next->prev = r->prev; else posted_tail = r->prev;
    r->next = r->prev = NULL;
    r->proto_state = PS_NONE;
    status_set(r, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    r->status.count_hi_and_cancelled |= 1;
    cr_req_complete(r);
    return 1;
}

/* ---- fast paths for the blocking calls ---------------------------------------
 * MPI_Send and MPI_Recv of small contiguous messages between two local ranks
 * are the latency benchmark and the inner loop of halo exchanges.  The general
 * path costs a request, a queue walk and the progress loop; these two skip all
 * of that when nothing else is in flight, and hand over to the general path
 * whenever something is. */

/* Send `bytes` contiguous bytes eagerly, straight into the ring, when the peer
 * is another local rank with no earlier send queued to it.  Returns 0 when
 * sent, 1 when the caller must take the general path. */

/* The local index of comm rank `rank` when it is another process on this node,
 * else -1 (MPI_PROC_NULL and the wildcards included, and this process). */
static inline int other_local(cr_comm_t *comm, int rank)
{
    if (rank < 0) return -1;
    int wr = cr_comm_world_rank(comm, rank);
    return wr == cr_proc.world_rank ? -1 : cr_proc.local_of_world[wr];
}

/* The local peer an eager message of `bytes` may be written to right now
 * (nothing queued ahead of it), or -1.  Always inlined: it sits on MPI_Send's
 * fast path, where a call costs a tenth of the software's share of latency. */
static inline __attribute__((always_inline)) int eager_now(size_t bytes, int dest, cr_comm_t *comm)
{
    if (bytes > eager_limit()) return -1;
    int local = other_local(comm, dest);
    return local >= 0 && !peers[local].out_head ? local : -1;
}

static int eager_put(int local, const void *data, size_t bytes, int tag, cr_comm_t *comm)
{
    return shm_send_pkt(local, SHM_PKT_EAGER, comm->ctx + CR_CTX_PT2PT, comm->rank, tag, 0,
                        data, bytes);
}

int cr_send_fast(const void *data, size_t bytes, int dest, int tag, cr_comm_t *comm)
{
    int local = eager_now(bytes, dest, comm);
    return local < 0 || eager_put(local, data, bytes, tag, comm);
}

/* MPI_Isend's form of cr_send_fast: when the message goes straight into the
 * ring, the request is born complete (nothing refers to it but the user's
 * handle).  Returns it, or NULL when the caller must take the general path. */
cr_request_t *cr_isend_fast(const void *data, size_t bytes, int dest, int tag, cr_comm_t *comm)
{
    int local = eager_now(bytes, dest, comm);
    if (local < 0) return NULL;
    cr_request_t *r = cr_request_new(CR_REQ_SEND, 1);
    if (!r) return NULL;
    if (eager_put(local, data, bytes, tag, comm)) {
        cr_request_free(r);
        return NULL;
    }
    r->complete = 1;
    return r;
}

/* Receive into `cap` contiguous bytes at dst from one local rank, when no
 * message is waiting unmatched, no receive is posted and no outgoing work is
 * pending: then the next matching message can only be the next packet of that
 * peer's ring, and an eager one is copied straight to dst.  Any other packet
 * (rendezvous, synchronous, another context or tag, one that would truncate,
 * one from another peer) is left where it is and 1 returned: the general path
 * takes over with nothing consumed.  Returns 0 when the message arrived. */
int cr_recv_fast(void *dst, size_t cap, int src, int tag, cr_comm_t *comm, MPI_Status *status)
{
    if (ux_head || posted_head || busy_peers || shm_nlocal <= 1) return 1;
    int from = other_local(comm, src);
    int me = cr_proc.local_rank;
    if (from < 0) return 1;
    uint32_t ctx = comm->ctx + CR_CTX_PT2PT;
    long spins = 0;
    for (;;) {
        const shm_hdr_t *h = shm_peek(from);
        if (h) {
            if (h->type != SHM_PKT_EAGER || h->len > cap ||
                !match(ctx, src, tag, h->ctx, h->src, h->tag))
                return 1;
            size_t n = h->len;
            int mtag = h->tag;
            if (n) shm_pkt_copy(from, h, 0, dst, n);
            shm_pkt_done(from, h);
            if (status != MPI_STATUS_IGNORE) status_fill(status, src, mtag, n);
            return 0;
        }
        for (int i = 0; i < npeers; i++)
            if (i != me && i != from && shm_peek(i)) return 1;
        cr_idle_poll(&spins);
    }
}
