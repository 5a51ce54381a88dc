/* SPDX-License-Identifier: MIT */
/* Point-to-point: matching (posted and unexpected queues, MPI ordering) and the
 * protocols, written once over the transport interface (transport.h), with
 * every piece of state in a channel (cr_chan_t).
 *
 *  eager:        message <= the peer transport's eager_max: header + data in
 *                one active message; the send completes when the transport
 *                has the data.
 *  eager sync:   same, and the receiver acknowledges the match (Ssend).
 *  rendezvous:   RTS (the sender's remote key) -> (match), then one of
 *    single copy (message >= cma_min and the transport can get from this
 *                peer): the receiver gets the sender's bytes and sends FIN;
 *    split copy  (>= cma_split_min, not oversubscribed, get from this peer has
 *                worked before, none of our rendezvous sends to it
 *                unanswered): the receiver sends CTS asking the sender to
 *                put the second half while it gets the first; WDONE, then FIN;
 *    pipeline    (the peer refused get, or cma_min is 0): CTS, then the sender
 *                streams CR_AM_DATA messages which the receiver copies out.
 * A peer whose get is refused (TR_ERR_REFUSED: a non-dumpable process, ptrace
 * policy) is remembered, and only that peer's messages use the pipeline.
 *  adaptive:     a shared-memory peer seen not running (its rendezvous
 *                handshakes are looked at late, and it published that it
 *                yields or sleeps, or nothing of ours was queued before) gets
 *                messages up to the adaptive eager limit eagerly through the
 *                ring, and larger standard sends staged: copied into this
 *                process's staging area for that peer, the send complete at
 *                once, and the peer gets the copy alone when it matches
 *                (core/adapt.h decides, from the handshakes timed here).
 * Transports deliver one peer's messages in order and the queues are FIFO,
 * so MPI's non-overtaking rule holds.
 *
 * Shared memory is the one transport the core calls directly, on the fast
 * paths of the blocking calls (MPI_Send, MPI_Isend, MPI_Recv): one visible
 * branch on the peer's kind, which LTO inlines. */
#define _GNU_SOURCE
#include "core/pt2pt.h"
#include "core/progress.h"
#include "core/pvar.h"
#include "core/datatype.h"
#include "transport/self/self.h"
#include "transport/shm/shm.h"
#include "util/log.h"
#include "util/settings.h"
#include "util/vg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cr_chan_t cr_chans[CR_MAX_CHANNELS];
int cr_nchan = 1;
/* The generation the next send's message id carries (cr_msg_id, pt2pt.h):
 * it must differ between successive messages of one request object, which
 * may be reused while an earlier message from it still waits unexpected.
 * Without the channel locks one counter serves every send (MPI_Isend's fast
 * path, which runs without threads, takes it too).  With them, each channel
 * has its own, under its lock: a channel-path request comes from its
 * channel's pool and goes back to it (cr_chan_request_new,
 * cr_request_free), so every message of one object counts on one channel's
 * counter.  One counter for all channels was an atomic increment on one
 * cache line by every sending thread (docs/threads.md). */
static uint32_t wire_gen_next;
static inline uint32_t wire_gen_take(cr_chan_t *ch)
{
    if (CR_UNLIKELY(cr_chan_locking)) return ++ch->wire_gen;
    return ++wire_gen_next;
}
/* The adaptive protocol's settings (core/adapt.h), read by cr_chan_init. */
static cr_adapt_cfg_t adapt_cfg;

/* Outgoing work for one peer, in order: a send to (re)try, a control message
 * that found the transport full, or a rendezvous send streaming its data. */
enum { OUT_SEND = 1, OUT_CTRL, OUT_STREAM };
struct cr_out {
    struct cr_out *next;
    int kind;
    cr_request_t *req;      /* OUT_SEND, OUT_STREAM */
    tr_am_hdr_t hdr;        /* OUT_CTRL */
    int len;
    char payload[sizeof(cr_cts_t)];   /* the largest control payload */
};

/* ---- channels: their locks and which one a message takes ------------------------ */
int cr_chan_locking;

/* cr_comm_t.chan_sel: what the choice of a communicator's channel depends on,
 * worked out on first use (under the library lock, as the hints that
 * comm->asserts holds may change). */
enum { SEL_KNOWN = 1, SEL_IN_JOB = 2, SEL_BY_TAG = 4, SEL_BY_SRC = 8 };

/* Every member in this job (reached through self, shm, or the network's
 * endpoint of each channel; another job's processes only through channel
 * 0's network interface, which dynamic processes add). */
static int group_in_job(const cr_group_t *g)
{
    for (int i = 0; i < g->size; i++) {
        int p = g->world[i];
        if (p < 0 || p >= cr_proc.world_size) return 0;
    }
    return 1;
}

static unsigned chan_sel(cr_comm_t *comm)
{
    unsigned sel = __atomic_load_n(&comm->chan_sel, __ATOMIC_ACQUIRE);
    if (CR_LIKELY(sel)) return sel;
    cr_lib_lock();
    sel = SEL_KNOWN;
    if (group_in_job(comm->group) && (!comm->remote || group_in_job(comm->remote)))
        sel |= SEL_IN_JOB;
    if (comm->asserts & CR_COMM_ASSERT_NO_ANY_TAG) sel |= SEL_BY_TAG;
    if (comm->asserts & CR_COMM_ASSERT_NO_ANY_SOURCE) sel |= SEL_BY_SRC;
    /* one channel for all its traffic: cr_chan_of takes it without a call */
    cr_chan_t *fixed = NULL;
    if (!(sel & SEL_IN_JOB))
        fixed = &cr_chan0;
    else if (!(sel & (SEL_BY_TAG | SEL_BY_SRC)))
        fixed = &cr_chans[comm->ctx / CR_CTX_STRIDE % (unsigned)cr_nchan];
    __atomic_store_n(&comm->chan_fixed, fixed, __ATOMIC_RELEASE);
    __atomic_store_n(&comm->chan_sel, sel, __ATOMIC_RELEASE);
    cr_lib_unlock();
    return sel;
}

cr_chan_t *cr_chan_pick(cr_comm_t *comm, int ctx_off, int tag, int src)
{
    unsigned sel = chan_sel(comm);
    if (!(sel & SEL_IN_JOB)) return &cr_chan0;
    unsigned k = comm->ctx / CR_CTX_STRIDE;
    if (ctx_off == CR_CTX_PT2PT) {
        if (sel & SEL_BY_TAG) k += (unsigned)tag;
        if (sel & SEL_BY_SRC) k += (unsigned)src;
    }
    return &cr_chans[k % (unsigned)cr_nchan];
}

/* ---- helpers ------------------------------------------------------------------ */
/* A detached request (MPI_Request_free, a buffered send) completed while
 * the channel locks are on: its free may run callbacks that send again (a
 * buffered send's next message) and release objects that the library lock
 * guards (a derived datatype), neither of which may happen under the
 * channel's lock; so it goes on the channel's list (under the channel lock,
 * held here), and the next poll of the channel by the progress engine, under
 * the library lock and no longer holding the channel's, frees it
 * (chan_poll). */
static void stage_release(cr_request_t *s);
static void chan_free_detached(cr_request_t *r)
{
    cr_chan_t *ch = r->chan;
    if (!ch) {
        cr_request_free(r);
        return;
    }
    /* a staged send's space belongs to its peer's channel state, which only
     * the channel's lock guards: give it back now, not at the free */
    if (r->on_free == stage_release) {
        stage_release(r);
        r->on_free = NULL;
    }
    r->next = ch->detached;
    ch->detached = r;
}

/* cr_req_complete, inlined on the eager send path. */
static inline __attribute__((always_inline)) void req_complete(cr_request_t *r)
{
    if (r->tmp && r->kind == CR_REQ_SEND) {
        free(r->tmp);
        r->tmp = NULL;
    }
    __atomic_store_n(&r->complete, 1, __ATOMIC_RELEASE);
    if (r->detached) {
        if (CR_UNLIKELY(cr_chan_locking)) chan_free_detached(r);
        else cr_request_free(r);
    }
}

void cr_req_complete(cr_request_t *r)
{
    req_complete(r);
}

/* Source, tag and count of a status; never its MPI_ERROR, which only the
 * multiple-completion calls set (MPI 4.1 section 3.2.5). */
static void status_fill(MPI_Status *st, int src, int tag, size_t bytes)
{
    st->MPI_SOURCE = src;
    st->MPI_TAG = tag;
    st->count_hi_and_cancelled = 0;
    cr_status_set_bytes(st, (MPI_Count)bytes);
}

static void status_set(cr_request_t *r, int src, int tag, size_t bytes)
{
    status_fill(&r->status, src, tag, bytes);
}

/* A transport failed in a way the protocol cannot recover from. */
static void __attribute__((noreturn)) chan_fail(int peer, const char *what, tr_status_t st)
{
    char msg[160];
    snprintf(msg, sizeof msg, "rank %d: %s with rank %d failed: %s", cr_proc.world_rank, what, peer,
             tr_status_str(st));
    cr_abort_job(1, msg);
}

/* Record the matched message's size; on overflow note MPI_ERR_TRUNCATE and
 * return how many bytes fit.  A shorter message that ends inside a basic
 * element of a non-contiguous receive type cannot come from a matching type
 * signature: MPI_ERR_TYPE (what arrived is still delivered). */
static size_t recv_accept(cr_request_t *r, int src, int tag, size_t bytes)
{
    r->msg_bytes = bytes;
    size_t n = bytes;
    if (bytes > r->bytes) {
        r->err = cr_error(MPI_ERR_TRUNCATE,
                          "message of %zu bytes from rank %d (tag %d) truncated: the receive "
                          "buffer holds %zu bytes", bytes, src, tag, r->bytes);
        n = r->bytes;
    } else if (CR_UNLIKELY(bytes < r->bytes) && !r->dt->contig &&
               cr_dt_count_elements(r->dt, (MPI_Count)bytes) < 0) {
        r->err = cr_error(MPI_ERR_TYPE,
                          "message of %zu bytes from rank %d (tag %d) ends inside a basic "
                          "element of the receive datatype: the type signatures of the send "
                          "and the receive differ", bytes, src, tag);
    }
    status_set(r, src, tag, n);
    r->status.MPI_ERROR = r->err;
    return n;
}

/* The bytes of the matched message that fit the receive. */
static inline size_t recv_kept(const cr_request_t *r)
{
    return r->msg_bytes < r->bytes ? r->msg_bytes : r->bytes;
}

/* Where received packed bytes go: the user buffer itself or a staging copy. */
static char *recv_target(cr_request_t *r, size_t n)
{
    if (r->dt->contig) return (char *)r->buf + r->dt->lb;
    if (!r->tmp && n) r->tmp = malloc(n);
    return r->tmp;
}

/* ---- memcheck (util/vg.h) ---------------------------------------------------------
 * A posted receive's buffer is undefined until the receive completes (MPI
 * forbids reading it before).  At completion the bytes received are defined,
 * however they were written (a peer's process_vm_writev included, which
 * memcheck cannot see), and the rest gets back the definedness it had when the
 * receive was posted (MPI leaves bytes past a short message untouched).  The
 * bytes marked are exactly those the datatype writes: a derived type's holes
 * are left alone, so receives into interleaved parts of one array do not
 * disturb each other.  Under memcheck only, the saved definedness (a byte per
 * packed byte) sits in r->proto until the receive completes or is cancelled.
 * A receive that an eager message already waiting completes at once is not
 * marked undefined first. */
enum { VG_GET, VG_SET, VG_UNDEFINED };

/* Get (into bits) or set (from bits) the definedness of packed bytes
 * [off, off + len) of r's buffer, or make them undefined; for a derived type
 * through a packed copy of those bytes, written back unchanged but for their
 * definedness.  Returns 1 when memcheck did it. */
static int recv_vg_bits(cr_request_t *r, size_t off, size_t len, char *bits, int what)
{
    const cr_datatype_t *dt = r->dt;
    char *p = (char *)r->buf + dt->lb + off, *s = NULL;
    if (!dt->contig) {
        if (!(p = s = malloc(len))) return 0;
        cr_dt_pack_seg(r->buf, r->count, dt, off, s, len);
    }
    int ok = 1;
    if (what == VG_GET) ok = UT_VG_GET_VBITS(p, bits, len);
    else if (what == VG_SET) ok = UT_VG_SET_VBITS(p, bits, len);
    else UT_VG_UNDEFINED(p, len);
    if (s) {
        if (what != VG_GET) cr_dt_unpack_seg(r->buf, r->count, dt, off, s, len);
        free(s);
    }
    return ok;
}

static void recv_vg_post(cr_request_t *r)
{
    if (!UT_VG_RUNNING() || r->bytes == 0) return;
    char *bits = malloc(r->bytes);
    if (!bits) return;
    if (recv_vg_bits(r, 0, r->bytes, bits, VG_GET) != 1) {   /* not memcheck, or a bad buffer */
        free(bits);
        return;
    }
    r->proto = bits;
    recv_vg_bits(r, 0, r->bytes, NULL, VG_UNDEFINED);
}

/* Give the packed bytes from `from` on their saved definedness back. */
static void recv_vg_restore(cr_request_t *r, size_t from)
{
    if (from < r->bytes) recv_vg_bits(r, from, r->bytes - from, (char *)r->proto + from, VG_SET);
    free(r->proto);
    r->proto = NULL;
}

static void recv_finish(cr_request_t *r, size_t n)
{
    if (r->proto) recv_vg_restore(r, n);
    if (r->dt->contig) UT_VG_DEFINED((char *)r->buf + r->dt->lb, n);
    if (!r->dt->contig && r->tmp) {
        UT_VG_DEFINED(r->tmp, n);
        cr_dt_unpack(r->tmp, n, r->buf, r->count, r->dt);
        free(r->tmp);
        r->tmp = NULL;
    }
    req_complete(r);
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

/* One protocol step of a send finished; the last completes it. */
static void send_step_done(cr_request_t *s)
{
    if (--s->pending == 0) cr_req_complete(s);
}

static inline cr_request_t *req_of_comp(tr_comp_t *c)
{
    return (cr_request_t *)(void *)((char *)c - offsetof(cr_request_t, comp));
}

static void send_comp_cb(tr_comp_t *c, tr_status_t st)
{
    cr_request_t *s = req_of_comp(c);
    if (st != TR_OK) chan_fail(s->vpeer, "sending data", st);
    send_step_done(s);
}

/* ---- matching queues ------------------------------------------------------------ */
static inline int match(uint32_t ctx, int src, int tag, uint32_t mctx, int msrc, int mtag)
{
    return ctx == mctx && (src == msrc || src == MPI_ANY_SOURCE) &&
           (tag == mtag || (tag == MPI_ANY_TAG && mtag >= 0));
}

static cr_request_t *posted_find(cr_chan_t *ch, uint32_t ctx, int src, int tag)
{
    for (cr_request_t *r = ch->posted_head; r; r = r->next)
        if (match(r->ctx, r->peer, r->tag, ctx, src, tag)) {
            if (r->prev) r->prev->next = r->next; else ch->posted_head = r->next;
            if (r->next) r->next->prev = r->prev; else ch->posted_tail = r->prev;
            r->next = r->prev = NULL;
            return r;
        }
    return NULL;
}

static void posted_add(cr_chan_t *ch, cr_request_t *r)
{
    r->proto_state = PS_POSTED;
    r->next = NULL;
    r->prev = ch->posted_tail;
    if (ch->posted_tail) ch->posted_tail->next = r; else ch->posted_head = r;
    ch->posted_tail = r;
}

static void ux_add(cr_chan_t *ch, cr_unexp_t *u)
{
    u->next = NULL;
    if (ch->ux_tail) ch->ux_tail->next = u; else ch->ux_head = u;
    ch->ux_tail = u;
}

/* Find (and with remove, unlink) the first unexpected message matching. */
static cr_unexp_t *ux_find(cr_chan_t *ch, uint32_t ctx, int src, int tag, int remove)
{
    cr_unexp_t *prev = NULL;
    for (cr_unexp_t *u = ch->ux_head; u; prev = u, u = u->next)
        if (match(ctx, src, tag, u->ctx, u->src, u->tag)) {
            if (remove) {
                if (prev) prev->next = u->next; else ch->ux_head = u->next;
                if (ch->ux_tail == u) ch->ux_tail = prev;
                u->next = NULL;
            }
            return u;
        }
    return NULL;
}

/* ---- connections ------------------------------------------------------------------ */
static void vc_bind(const cr_chan_t *ch, cr_vc_t *v, tr_iface_t *tr, uint64_t addr)
{
    v->tr = tr;
    v->addr = addr;
    v->eager_max = tr->caps.eager_max;
    v->kind = tr == ch->self ? CR_VC_SELF : tr == ch->shm ? CR_VC_SHM : CR_VC_NET;
    /* the adaptive range: above the eager limit, up to what one packet of
     * the ring holds */
    size_t amax = (size_t)ut_settings.adaptive_eager_limit;
    if (amax > tr->caps.max_short) amax = tr->caps.max_short;
    v->adapt_on = v->kind == CR_VC_SHM && adapt_cfg.mode != CR_ADAPT_OFF;
    v->adapt_max = v->adapt_on && amax > v->eager_max ? amax : 0;
    cr_adapt_init(&v->adapt, &adapt_cfg, cr_proc.oversubscribed);
}

/* Connect the channel to a peer through the first transport that reaches it. */
static cr_vc_t *vc_get(cr_chan_t *ch, int peer)
{
    cr_vc_t *v = &ch->vc[peer];
    if (CR_LIKELY(v->kind != CR_VC_NONE)) return v;
    for (int i = 0; i < ch->ntr; i++) {
        uint64_t addr;
        if (tr_connect(ch->tr[i], peer, &addr) == TR_OK) {
            vc_bind(ch, v, ch->tr[i], addr);
            return v;
        }
    }
    return NULL;
}

tr_iface_t *cr_chan_net_peer(cr_chan_t *ch, int peer, uint64_t *addr)
{
    cr_chan_lock(ch);
    cr_vc_t *v = vc_get(ch, peer);
    tr_iface_t *tr = v && v->kind == CR_VC_NET ? v->tr : NULL;
    if (tr) *addr = v->addr;
    cr_chan_unlock(ch);
    return tr && tr == ch->net ? cr_chan_net_shared(ch) : tr;
}

/* With the channel locks on: how many channels have out-queue work (a
 * non-empty busy list), which moves only when its channel is polled.  A
 * thread waiting on one channel polls only that one (p2p_api.c,
 * chan_wait_until) while this is 0; otherwise it polls every channel, as
 * the work queued on another may be what its peer waits for before it
 * answers.  Changed only when a channel's list becomes empty or non-empty
 * (a full ring, a peer not connected yet), never per message. */
int cr_chans_busy;

static void busy_add(cr_chan_t *ch, cr_vc_t *v)
{
    if (v->in_busy) return;
    if (!ch->busy && CR_UNLIKELY(cr_chan_locking))
        __atomic_fetch_add(&cr_chans_busy, 1, __ATOMIC_RELAXED);
    v->in_busy = 1;
    v->busy_next = ch->busy;
    ch->busy = v;
}

static void out_append(cr_chan_t *ch, cr_vc_t *v, cr_out_t *o)
{
    o->next = NULL;
    if (v->out_tail) v->out_tail->next = o; else v->out_head = o;
    v->out_tail = o;
    busy_add(ch, v);
}

static cr_out_t *out_new(int kind, cr_request_t *req)
{
    cr_out_t *o = calloc(1, sizeof *o);
    if (!o) cr_abort_job(1, "out of memory queueing a message");
    o->kind = kind;
    o->req = req;
    return o;
}

/* An AM of at most max_short bytes: shm directly, others through their table. */
static inline tr_status_t am_short(cr_vc_t *v, const tr_am_hdr_t *h, const void *p, size_t len)
{
    if (v->kind == CR_VC_SHM)
        return shm_send_pkt(shm_ctx_of(v->tr), (int)v->addr, h, p, len) ? TR_ERR_NO_RESOURCE
                                                                          : TR_OK;
    return tr_am_short(v->tr, v->addr, h, p, len);
}

static tr_status_t ctrl_try(cr_chan_t *ch, cr_vc_t *v, const tr_am_hdr_t *h,
                            const void *payload, size_t len)
{
    tr_status_t st = am_short(v, h, payload, len);
    if (st != TR_OK && st != TR_ERR_NO_RESOURCE)
        chan_fail((int)(v - ch->vc), "sending a control message", st);
    return st;
}

/* Send a control message now, or queue it behind earlier work to that peer;
 * stamp (CTS, FIN: when the RTS arrived, pt2pt.h) goes in src and tag. */
static void ctrl_send_stamped(cr_chan_t *ch, int peer, int type, uint64_t aux,
                              const void *payload, int len, uint64_t stamp)
{
    cr_vc_t *v = &ch->vc[peer];
    tr_am_hdr_t h = { .type = (uint16_t)type, .aux = aux, .src = (int32_t)(uint32_t)stamp,
                      .tag = (int32_t)(uint32_t)(stamp >> 32) };
    if (!v->out_head && ctrl_try(ch, v, &h, payload, (size_t)len) == TR_OK) return;
    cr_out_t *o = out_new(OUT_CTRL, NULL);
    o->hdr = h;
    if (len) memcpy(o->payload, payload, (size_t)len);
    o->len = len;
    out_append(ch, v, o);
}

static void ctrl_send(cr_chan_t *ch, int peer, int type, uint64_t aux, const void *payload,
                      int len)
{
    ctrl_send_stamped(ch, peer, type, aux, payload, len, 0);
}

/* Each channel's counters fill one CR_CHAN_ALIGN block (4 kinds x 2
 * protocols x 16 bytes), aligned: threads of different channels count
 * their sends on lines of their own. */
cr_pvar_sent_t cr_pvar_sent[CR_PVAR_NCHAN][CR_PVAR_NKIND][CR_PVAR_NPROTO]
    __attribute__((aligned(CR_CHAN_ALIGN)));
unsigned long long cr_pvar_rma[CR_PVAR_NRMA];
_Static_assert(sizeof cr_pvar_sent[0] % CR_CHAN_ALIGN == 0, "a channel's send counters fill whole blocks");
_Static_assert(CR_PVAR_NCHAN == CR_MAX_CHANNELS, "a set of send counters per channel");

cr_pvar_sent_t cr_pvar_sent_total(int kind, int proto)
{
    cr_pvar_sent_t t = { 0, 0 };
    for (int c = 0; c < CR_PVAR_NCHAN; c++) {
        t.msgs += cr_pvar_sent[c][kind][proto].msgs;
        t.bytes += cr_pvar_sent[c][kind][proto].bytes;
    }
    return t;
}

size_t cr_pvar_queue_length(int unexpected)
{
    size_t n = 0;
    for (int c = 0; c < cr_nchan; c++) {
        cr_chan_t *ch = &cr_chans[c];
        cr_chan_lock(ch);
        if (unexpected)
            for (const cr_unexp_t *u = ch->ux_head; u; u = u->next) n++;
        else
            for (const cr_request_t *r = ch->posted_head; r; r = r->next) n++;
        cr_chan_unlock(ch);
    }
    return n;
}

/* ---- the adaptive protocol (core/adapt.h) ----------------------------------------------
 * One rendezvous send per peer at a time is timed: from just before its RTS
 * is published to the receiver's first look at it, which the receiver stamps
 * into its answer (CTS or FIN, pt2pt.h), so neither the copy nor this side's
 * delay in reading the answer counts.  With it go the peer's published
 * waiting word, read before the RTS went (a sender that rings a sleeper
 * clears its doorbell), and whether earlier rendezvous sends of ours to it
 * were unanswered. */
static int adapt_probe_want(const cr_vc_t *v)
{
    return v->adapt_on && adapt_cfg.mode == CR_ADAPT_AUTO && !v->probe_req;
}

static void adapt_probe_look(cr_vc_t *v)
{
    int st = shm_peer_idle(shm_ctx_of(v->tr), (int)v->addr);
    /* a peer's progress thread answers when rung, sleeping or not: only
     * when it looked tells whether the peer runs */
    if (st & SHM_PEER_ANSWERS) st = 0;
    v->probe_obs.peer_idle = (st & SHM_PEER_YIELDS) != 0 || (st & SHM_PEER_SLEEPS) != 0;
    v->probe_obs.peer_slept = (st & SHM_PEER_SLEEPS) != 0;
    v->probe_obs.queued = v->rndv_out > 0;
    v->probe_copied = shm_peer_copied(shm_ctx_of(v->tr), (int)v->addr);
    v->probe_t0 = cr_wait_sys.now_ns();
}

/* The receiver answered send s (h: its CTS or FIN, NULL when none came): if
 * it was timed, decide on when the receiver looked. */
static void adapt_probe_end(cr_vc_t *v, const cr_request_t *s, const tr_am_hdr_t *h)
{
    if (CR_LIKELY(v->probe_req != s)) return;
    v->probe_req = NULL;
    uint64_t seen = h ? (uint64_t)(uint32_t)h->src | (uint64_t)(uint32_t)h->tag << 32 : 0;
    if (!seen) seen = cr_wait_sys.now_ns();      /* not stamped: the round trip */
    v->probe_obs.look_ns = seen > v->probe_t0 ? seen - v->probe_t0 : 0;
    /* what the peer copied meanwhile, less its copy of this message (a FIN
     * comes after it) */
    uint64_t copied = shm_peer_copied(shm_ctx_of(v->tr), (int)v->addr) - v->probe_copied;
    uint64_t own = h && h->type == CR_AM_FIN ? (uint64_t)s->bytes : 0;
    v->probe_obs.copied = copied > own ? copied - own : 0;
    cr_adapt_observe(&v->adapt, &adapt_cfg, &v->probe_obs);
}

/* When a rendezvous from peer arrived, for its answer's stamp (0: not kept). */
static inline uint64_t rts_stamp(const cr_chan_t *ch, int peer)
{
    return adapt_cfg.mode == CR_ADAPT_AUTO && ch->vc[peer].kind == CR_VC_SHM
               ? cr_wait_sys.now_ns() : 0;
}

/* ---- staging (the adaptive protocol's large messages) -----------------------------------
 * A standard send above the adaptive eager range to a peer seen not running
 * is copied into this process's staging area for that peer (allocated on
 * first need, COURIER_ADAPTIVE_STAGE_BYTES) and carried by an internal
 * rendezvous send of that copy (a detached request); the user's send
 * completes at once.  The peer gets the copy with a single copy when it
 * matches, whether or not this process runs then; the FIN frees the slot.
 * The area is handed out in order and reused whole once no staged send is
 * left in it.  Returns 0 when sent, 1 when the transport is full (nothing
 * done), -1 when the message does not qualify or the area has no room. */
static int rts_send(cr_vc_t *v, cr_request_t *r, uint16_t flags);

/* The staged copy's type: contiguous bytes (marked predefined: no reference
 * counting). */
static cr_datatype_t stage_dt = { .builtin = 1, .size = 1, .extent = 1, .true_extent = 1,
                                  .contig = 1 };

static void stage_release(cr_request_t *s)
{
    cr_vc_t *v = &s->chan->vc[s->vpeer];
    if (--v->stage_live == 0) v->stage_used = 0;
}

static int stage_send(cr_chan_t *ch, cr_vc_t *v, cr_request_t *r)
{
    size_t cap = (size_t)ut_settings.adaptive_stage_bytes;
    size_t need = (r->bytes + 63) & ~(size_t)63;
    if (r->mode != CR_MODE_STD || r->bytes > cap || v->stage_used + need > cap ||
        v->get_state == CR_GET_REFUSED || !(v->tr->caps.flags & TR_CAP_GET) ||
        ut_settings.cma_min <= 0 || (size_t)ut_settings.cma_min > r->bytes)
        return -1;
    if (!v->stage && !(v->stage = malloc(cap))) return -1;
    /* from the channel's pool: with the channel locks on, the global pool is
     * the library lock's, which a thread on the channel path does not hold
     * (ThreadSanitizer saw two channels' threads take from it at once) */
    cr_request_t *s = cr_chan_request_new(ch, CR_REQ_SEND);
    if (!s) return -1;
    char *copy = v->stage + v->stage_used;
    memcpy(copy, send_bytes(r), r->bytes);
    shm_publish_copied(r->bytes);
    s->mode = CR_MODE_STD;
    s->chan = ch;
    s->ctx = r->ctx;
    s->src_rank = r->src_rank;
    s->peer = r->peer;
    s->tag = r->tag;
    s->buf = copy;
    s->count = (MPI_Aint)r->bytes;
    s->dt = &stage_dt;
    s->bytes = r->bytes;
    s->vpeer = r->vpeer;
    if (rts_send(v, s, CR_RTS_STAGED)) {
        cr_request_free(s);
        return 1;
    }
    s->on_free = stage_release;
    s->detached = 1;
    v->stage_used += need;
    v->stage_live++;
    r->proto_state = PS_NONE;
    r->pending = 0;
    req_complete(r);
    return 0;
}

/* ---- sending ----------------------------------------------------------------------- */
/* Put a send's first message on the wire.  Returns 0 when done, 1 when the
 * transport is full (try again later). */
static int send_inject(cr_chan_t *ch, cr_request_t *r)
{
    cr_vc_t *v = &ch->vc[r->vpeer];
    tr_am_hdr_t h = { .ctx = r->ctx, .src = r->src_rank, .tag = r->tag, .aux = cr_msg_id(r) };
    tr_status_t st;
    if (r->bytes <= v->eager_max ||
        (r->bytes <= v->adapt_max && cr_adapt_choose_eager(&v->adapt, &adapt_cfg))) {
        h.type = r->mode == CR_MODE_SYNC ? CR_AM_EAGER_SYNC : CR_AM_EAGER;
        if (r->bytes <= v->tr->caps.max_short) {
            st = am_short(v, &h, send_bytes(r), r->bytes);
        } else {
            r->comp.cb = send_comp_cb;
            st = tr_am_bulk(v->tr, v->addr, &h, send_bytes(r), r->bytes, &r->comp);
        }
        if (st == TR_ERR_NO_RESOURCE) return 1;
        if (st != TR_OK && st != TR_INPROGRESS) chan_fail(r->vpeer, "an eager send", st);
        cr_pvar_count_send(ch->index, v->kind, CR_PVAR_EAGER, r->bytes);
        /* added, not set: a send that waited in the out queue (a network
         * peer not connected yet, a full ring) may have been cancelled
         * meanwhile, and the cancel's answer is pending already */
        r->pending += (st == TR_INPROGRESS) + (r->mode == CR_MODE_SYNC);
        r->proto_state = r->mode == CR_MODE_SYNC ? PS_WAIT_ACK : PS_NONE;
        if (r->pending == 0) req_complete(r);
        return 0;
    }
    if (v->adapt_on && r->bytes > v->adapt_max && ut_settings.adaptive_stage_bytes > 0 &&
        cr_adapt_choose_eager(&v->adapt, &adapt_cfg)) {
        int rc = stage_send(ch, v, r);
        if (rc >= 0) return rc;
    }
    return rts_send(v, r, 0);
}

/* Send r's RTS (the key of its bytes); 0, or 1 when the transport is full. */
static int rts_send(cr_vc_t *v, cr_request_t *r, uint16_t flags)
{
    tr_am_hdr_t h = { .type = CR_AM_RTS, .flags = flags, .ctx = r->ctx, .src = r->src_rank,
                      .tag = r->tag, .aux = cr_msg_id(r) };
    cr_rts_t rts = { .bytes = r->bytes };
    tr_status_t st = tr_mem_key(v->tr, (void *)send_bytes(r), r->bytes, &rts.key);
    if (st != TR_OK) chan_fail(r->vpeer, "describing a send buffer", st);
    int probe = adapt_probe_want(v);
    if (probe) adapt_probe_look(v);
    st = am_short(v, &h, &rts, sizeof rts);
    if (st == TR_ERR_NO_RESOURCE) {
        tr_mem_release(v->tr, &rts.key);
        return 1;
    }
    if (st != TR_OK) chan_fail(r->vpeer, "a rendezvous request", st);
    cr_pvar_count_send(r->chan->index, v->kind, CR_PVAR_RNDV, r->bytes);
    r->remote_key = rts.key;     /* a sender keeps its own key here, to release it */
    r->proto_state = PS_WAIT_CTS;
    r->pending += 1;         /* FIN, or the last streamed data (added: see send_inject) */
    if (probe) v->probe_req = r;
    v->rndv_out++;
    return 0;
}

/* A rendezvous send's data is with the receiver (FIN, or the last of the
 * stream went): its buffer needs no key any more. */
static void rndv_send_end(cr_request_t *s, const tr_am_hdr_t *fin)
{
    cr_chan_t *ch = s->chan;
    cr_vc_t *v = &ch->vc[s->vpeer];
    adapt_probe_end(v, s, fin);
    v->rndv_out--;
    tr_mem_release(v->tr, &s->remote_key);
    send_step_done(s);
}

int cr_chan_isend(cr_chan_t *ch, const void *buf, MPI_Aint count, cr_datatype_t *dt, int dest,
                  int tag, cr_comm_t *comm, int ctx_off, int mode, cr_request_t **req)
{
    cr_request_t *r = cr_chan_request_new(ch, CR_REQ_SEND);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "out of memory for a send request");
    *req = r;
    r->mode = mode;
    r->comm = comm;
    r->src_rank = comm->rank;
    r->chan = ch;
    r->ctx = comm->ctx + (uint32_t)ctx_off;
    r->peer = dest;
    r->tag = tag;
    r->buf = (void *)buf;
    r->count = count;
    r->dt = dt;
    cr_dt_retain(dt);        /* released with the request: MPI_Type_free may come first */
    r->bytes = (size_t)count * (size_t)dt->size;
    r->wire_gen = wire_gen_take(ch);
    if (dest == MPI_PROC_NULL) {
        cr_req_complete(r);
        return MPI_SUCCESS;
    }
    int peer = cr_comm_world_rank(comm, dest);
    cr_vc_t *v = vc_get(ch, peer);
    if (CR_UNLIKELY(!v)) {
        cr_req_complete(r);
        return cr_error(MPI_ERR_INTERN, "rank %d (world rank %d) cannot be reached: no "
                        "transport connects to it", dest, peer);
    }
    r->vpeer = peer;
    if (!v->out_head && send_inject(ch, r) == 0) return MPI_SUCCESS;
    r->proto_state = PS_QUEUED;
    out_append(ch, v, out_new(OUT_SEND, r));
    return MPI_SUCCESS;
}

int cr_isend(const void *buf, MPI_Aint count, cr_datatype_t *dt, int dest, int tag,
             cr_comm_t *comm, int ctx_off, int mode, cr_request_t **req)
{
    cr_chan_t *ch = cr_chan_of(comm, ctx_off, tag, comm->rank);
    cr_chan_lock(ch);
    int err = cr_chan_isend(ch, buf, count, dt, dest, tag, comm, ctx_off, mode, req);
    cr_chan_unlock(ch);
    return err;
}

/* ---- rendezvous, receiving side ------------------------------------------------------- */
static void rndv_recv_step_done(cr_request_t *r);

static void rndv_get_cb(tr_comp_t *c, tr_status_t st)
{
    cr_request_t *r = req_of_comp(c);
    if (st != TR_OK) chan_fail(r->vpeer, "getting rendezvous data", st);
    rndv_recv_step_done(r);
}

/* The receive's get (and, split, the sender's put) finished: FIN, done. */
static void rndv_recv_step_done(cr_request_t *r)
{
    if (--r->pending) return;
    cr_chan_t *ch = r->chan;
    cr_vc_t *v = &ch->vc[r->vpeer];
    if (v->get_state == CR_GET_UNTRIED) v->get_state = CR_GET_WORKS;
    ctrl_send_stamped(ch, r->vpeer, CR_AM_FIN, r->remote_req, NULL, 0, r->rts_seen_ns);
    recv_finish(r, recv_kept(r));
}

/* A matched rendezvous receive: get the data (alone, or split with the
 * sender), or ask for the pipeline. */
static void rndv_start(cr_chan_t *ch, cr_request_t *r)
{
    size_t n = recv_accept(r, r->status.MPI_SOURCE, r->status.MPI_TAG, r->msg_bytes);
    cr_vc_t *v = &ch->vc[r->vpeer];
    long single_min = ut_settings.cma_min;
    if ((v->tr->caps.flags & TR_CAP_GET) && v->get_state != CR_GET_REFUSED && single_min > 0 &&
        r->msg_bytes >= (size_t)single_min) {
        char *dst = recv_target(r, n);
        size_t mine = n;
        long split_min = ut_settings.cma_split_min;
        r->proto_state = PS_RNDV_GET;
        r->pending = 1;
        r->comp.cb = rndv_get_cb;
        if (v->get_state == CR_GET_WORKS && (v->tr->caps.flags & TR_CAP_PUT) && split_min > 0 &&
            n >= (size_t)split_min && !cr_proc.oversubscribed && v->rndv_out == 0 &&
            !(r->rts_flags & CR_RTS_STAGED)) {
            /* The sender puts the second half (from a cache-line boundary)
             * while this side gets the first; only while none of our own
             * rendezvous sends waits on it, since then it has copies of its
             * own to make for us (traffic both ways: a split only adds a
             * round trip to each message, and cost bidirectional bandwidth
             * 0.6-0.8x at 64 KiB-4 MiB) */
            mine = (n / 2) & ~(size_t)63;
            cr_cts_t cts = { .rreq = (uint64_t)(uintptr_t)r, .method = CR_RNDV_SPLIT,
                             .off = mine, .len = n - mine };
            tr_status_t ks = tr_mem_key(v->tr, dst, n, &cts.key);
            if (ks != TR_OK) chan_fail(r->vpeer, "describing a receive buffer", ks);
            r->pending = 2;                 /* our get, and WDONE */
            r->done_bytes = mine;
            ctrl_send_stamped(ch, r->vpeer, CR_AM_CTS, r->remote_req, &cts, sizeof cts,
                              r->rts_seen_ns);
        }
        tr_status_t st = tr_get(v->tr, v->addr, dst, mine, &r->remote_key, 0, &r->comp);
        if (st == TR_OK) {
            rndv_recv_step_done(r);
            return;
        }
        if (st == TR_INPROGRESS) return;
        if (st != TR_ERR_REFUSED || r->pending != 1)
            chan_fail(r->vpeer, "getting rendezvous data", st);
        /* This peer's memory cannot be read (a non-dumpable process, ptrace
         * policy): from now on its messages come through the pipeline. */
        v->get_state = CR_GET_REFUSED;
    }
    cr_cts_t cts = { .rreq = (uint64_t)(uintptr_t)r, .method = CR_RNDV_PIPE };
    r->proto_state = PS_RNDV_PULL;
    r->done_bytes = 0;
    ctrl_send_stamped(ch, r->vpeer, CR_AM_CTS, r->remote_req, &cts, sizeof cts, r->rts_seen_ns);
}

/* ---- receiving ------------------------------------------------------------------------- */
/* Deliver an unexpected message to a receive. */
static void ux_deliver(cr_chan_t *ch, cr_request_t *r, cr_unexp_t *u)
{
    if (u->kind == UX_EAGER) {
        size_t n = recv_accept(r, u->src, u->tag, u->bytes);
        char *dst = recv_target(r, n);
        if (n) memcpy(dst, u->data, n);
        if (u->sync) ctrl_send(ch, u->peer, CR_AM_ACK, u->sreq, NULL, 0);
        recv_finish(r, n);
        free(u->data);
    } else {
        r->vpeer = u->peer;
        r->remote_req = u->sreq;
        r->remote_key = u->key;
        r->rts_seen_ns = u->seen_ns;
        r->rts_flags = u->rts_flags;
        r->msg_bytes = u->bytes;
        r->status.MPI_SOURCE = u->src;
        r->status.MPI_TAG = u->tag;
        rndv_start(ch, r);
    }
    free(u);
}

static void recv_init(cr_chan_t *ch, cr_request_t *r, void *buf, MPI_Aint count,
                      cr_datatype_t *dt, int src, int tag, cr_comm_t *comm, int ctx_off)
{
    r->comm = comm;
    r->chan = ch;
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

/* Start receive r (recv_init done, a real source): the first unexpected
 * message that matches is delivered to it, or it is queued as posted. */
static inline __attribute__((always_inline)) void recv_post(cr_chan_t *ch, cr_request_t *r)
{
    cr_unexp_t *u = CR_LIKELY(ch->ux_head == NULL) ? NULL : ux_find(ch, r->ctx, r->peer, r->tag, 1);
    if (!u || u->kind != UX_EAGER) recv_vg_post(r);
    if (u)
        ux_deliver(ch, r, u);
    else
        posted_add(ch, r);
}

int cr_chan_irecv(cr_chan_t *ch, void *buf, MPI_Aint count, cr_datatype_t *dt, int src, int tag,
                  cr_comm_t *comm, int ctx_off, cr_request_t **req)
{
    cr_request_t *r = cr_chan_request_new(ch, CR_REQ_RECV);
    if (!r) return cr_error(MPI_ERR_NO_MEM, "out of memory for a receive request");
    *req = r;
    recv_init(ch, r, buf, count, dt, src, tag, comm, ctx_off);
    if (src == MPI_PROC_NULL) {
        recv_proc_null(r);
        return MPI_SUCCESS;
    }
    recv_post(ch, r);
    return MPI_SUCCESS;
}

int cr_irecv(void *buf, MPI_Aint count, cr_datatype_t *dt, int src, int tag, cr_comm_t *comm,
             int ctx_off, cr_request_t **req)
{
    cr_chan_t *ch = cr_chan_of(comm, ctx_off, tag, src);
    cr_chan_lock(ch);
    int err = cr_chan_irecv(ch, buf, count, dt, src, tag, comm, ctx_off, req);
    cr_chan_unlock(ch);
    return err;
}

/* ---- arriving messages ---------------------------------------------------------------------- */
static void on_rts(cr_chan_t *ch, int peer, const tr_am_rx_t *m)
{
    const tr_am_hdr_t *h = &m->hdr;
    cr_rts_t rts;
    tr_am_copy(m, 0, &rts, sizeof rts);
    uint64_t seen = rts_stamp(ch, peer);
    cr_request_t *r = posted_find(ch, h->ctx, h->src, h->tag);
    if (r) {
        r->vpeer = peer;
        r->remote_req = h->aux;
        r->remote_key = rts.key;
        r->rts_seen_ns = seen;
        r->rts_flags = h->flags;
        r->msg_bytes = rts.bytes;
        r->status.MPI_SOURCE = h->src;
        r->status.MPI_TAG = h->tag;
        rndv_start(ch, r);
        return;
    }
    cr_unexp_t *u = calloc(1, sizeof *u);
    if (!u) cr_abort_job(1, "out of memory for an unexpected message");
    u->kind = UX_RTS;
    u->ctx = h->ctx;
    u->src = h->src;
    u->tag = h->tag;
    u->bytes = rts.bytes;
    u->peer = peer;
    u->sreq = h->aux;
    u->key = rts.key;
    u->seen_ns = seen;
    u->rts_flags = h->flags;
    ux_add(ch, u);
}

static void on_eager(cr_chan_t *ch, int peer, const tr_am_rx_t *m)
{
    const tr_am_hdr_t *h = &m->hdr;
    int sync = h->type == CR_AM_EAGER_SYNC;
    cr_request_t *r = posted_find(ch, h->ctx, h->src, h->tag);
    if (r) {
        size_t n = recv_accept(r, h->src, h->tag, m->len);
        if (n) tr_am_copy(m, 0, recv_target(r, n), n);
        if (sync) ctrl_send(ch, peer, CR_AM_ACK, h->aux, NULL, 0);
        recv_finish(r, n);
        return;
    }
    cr_unexp_t *u = malloc(sizeof *u);
    void *data = malloc(m->len ? m->len : 1);
    if (!u || !data) cr_abort_job(1, "out of memory for an unexpected message");
    u->next = NULL;
    u->kind = UX_EAGER;
    u->ctx = h->ctx;
    u->src = h->src;
    u->tag = h->tag;
    u->bytes = m->len;
    u->peer = peer;
    u->sync = sync;
    u->sreq = h->aux;
    u->data = data;
    tr_am_copy(m, 0, u->data, m->len);
    ux_add(ch, u);
}

/* The sender's share of a split copy is in place (or could not be put: then
 * get it here).  The sender's buffer is free after FIN. */
static void on_wdone(cr_chan_t *ch, const tr_am_rx_t *m)
{
    cr_request_t *r = (cr_request_t *)(uintptr_t)m->hdr.aux;
    int32_t ok = 0;
    tr_am_copy(m, 0, &ok, sizeof ok);
    if (!ok) {
        cr_vc_t *v = &ch->vc[r->vpeer];
        size_t n = recv_kept(r), mine = r->done_bytes;
        r->pending++;
        tr_status_t st = tr_get(v->tr, v->addr, recv_target(r, n) + mine, n - mine,
                                &r->remote_key, mine, &r->comp);
        if (st == TR_OK) rndv_recv_step_done(r);
        else if (st != TR_INPROGRESS) chan_fail(r->vpeer, "getting rendezvous data", st);
    }
    rndv_recv_step_done(r);
}

static void on_data(const tr_am_rx_t *m)
{
    cr_request_t *r = (cr_request_t *)(uintptr_t)m->hdr.aux;
    size_t n = recv_kept(r);
    if (r->done_bytes < n) {
        size_t k = n - r->done_bytes < m->len ? n - r->done_bytes : m->len;
        tr_am_copy(m, 0, recv_target(r, n) + r->done_bytes, k);
    }
    r->done_bytes += m->len;
    if (r->done_bytes >= r->msg_bytes) recv_finish(r, n);
}

/* The sender's side of a split copy: put our share, then WDONE. */
static void split_put_cb(tr_comp_t *c, tr_status_t st)
{
    cr_request_t *s = req_of_comp(c);
    int32_t ok = st == TR_OK;
    s->proto_state = PS_WAIT_FIN;
    ctrl_send(s->chan, s->vpeer, CR_AM_WDONE, s->remote_req, &ok, sizeof ok);
}

static void on_cts(cr_chan_t *ch, int peer, const tr_am_rx_t *m)
{
    cr_request_t *s = cr_msg_id_req(m->hdr.aux);
    cr_cts_t cts;
    tr_am_copy(m, 0, &cts, sizeof cts);
    s->remote_req = cts.rreq;
    cr_vc_t *v = &ch->vc[peer];
    adapt_probe_end(v, s, &m->hdr);
    if (cts.method == CR_RNDV_SPLIT) {
        s->comp.cb = split_put_cb;
        tr_status_t st = tr_put(v->tr, v->addr, send_bytes(s) + cts.off, cts.len, &cts.key,
                                cts.off, &s->comp);
        if (st != TR_INPROGRESS) split_put_cb(&s->comp, st);
        return;
    }
    s->proto_state = PS_STREAM;
    s->done_bytes = 0;
    out_append(ch, v, out_new(OUT_STREAM, s));
}

/* ---- cancelling a send ----------------------------------------------------------------
 * MPI_Cancel of a send sends CR_AM_CANCEL with the message's id to the
 * receiver, behind the message itself (a peer's messages arrive in order, and
 * the cancel queues behind earlier work to that peer), so the message has
 * been handled when the cancel is: either a receive matched it (or it went
 * to MPI_Mprobe), and the answer is no, or it waits in the unexpected queue,
 * where the cancel drops it (an eager copy, or an RTS whose data was never
 * read) and the answer is yes.  The sender's request stays incomplete until
 * the answer; a yes also ends the step that a rendezvous (FIN) or synchronous
 * (ACK) send was waiting for, since that message will never come. */
static void on_cancel(cr_chan_t *ch, int peer, const tr_am_rx_t *m)
{
    cr_cancel_t c;
    tr_am_copy(m, 0, &c, sizeof c);
    cr_cancel_ans_t a = { .sreq = m->hdr.aux };
    cr_unexp_t *prev = NULL;
    for (cr_unexp_t *u = ch->ux_head; u; prev = u, u = u->next) {
        if (u->peer != peer || u->sreq != m->hdr.aux) continue;
        if (prev) prev->next = u->next; else ch->ux_head = u->next;
        if (ch->ux_tail == u) ch->ux_tail = prev;
        a.cancelled = 1;
        a.kind = u->kind == UX_EAGER && u->sync ? CR_CANCEL_SYNC : u->kind;
        if (u->kind == UX_EAGER) free(u->data);
        free(u);
        break;
    }
    ctrl_send(ch, peer, CR_AM_CANCEL_ANS, c.reply, &a, sizeof a);
}

static void on_cancel_ans(cr_chan_t *ch, const tr_am_rx_t *m)
{
    cr_request_t *s = cr_msg_id_req(m->hdr.aux);
    cr_cancel_ans_t a;
    tr_am_copy(m, 0, &a, sizeof a);
    if (a.cancelled) {
        s->status.count_hi_and_cancelled |= 1;
        if (a.kind != UX_EAGER) {
            /* The send that carried the message (s itself, or a buffered
             * send's own) is alive: it waits for the FIN or ACK that the
             * dropped message will never bring. */
            cr_request_t *w = cr_msg_id_req(a.sreq);
            if (a.kind == UX_RTS) {
                cr_vc_t *v = &ch->vc[w->vpeer];
                if (v->probe_req == w) v->probe_req = NULL;
                tr_mem_release(v->tr, &w->remote_key);
            }
            w->proto_state = PS_NONE;
            send_step_done(w);
        }
    }
    s->cancelled = 2;                   /* answered */
    send_step_done(s);
}

/* The id of a message from request pointer and generation (a buffered send's
 * user request names the send that carried it, which may be gone). */
static inline uint64_t msg_id_of(const cr_request_t *r, uint32_t gen)
{
    return (uint64_t)(uintptr_t)r | (uint64_t)(gen & 0xffffu) << CR_MSG_ID_REQ_BITS;
}

void cr_cancel_send(cr_request_t *s)
{
    if (s->kind != CR_REQ_SEND || s->cancelled || s->vpeer < 0) return;
    cr_chan_t *ch = s->chan ? s->chan : &cr_chan0;   /* the MPI_Isend fast path: channel 0 */
    /* the request's state, the peer's out queue and the transport are the
     * channel's: other threads may be completing its sends meanwhile */
    cr_chan_lock(ch);
    uint64_t id = s->child ? msg_id_of(s->child, s->wire_gen) : cr_msg_id(s);
    cr_cancel_t c = { .reply = cr_msg_id(s) };
    s->cancelled = 1;
    s->pending++;                       /* the answer */
    __atomic_store_n(&s->complete, 0, __ATOMIC_RELAXED);
    ctrl_send(ch, s->vpeer, CR_AM_CANCEL, id, &c, sizeof c);
    int self = ch->vc[s->vpeer].kind == CR_VC_SELF;
    cr_chan_unlock(ch);
    /* A send to this very process is decided here and now: a program may ask
     * MPI_Request_get_status right after MPI_Cancel and, seeing it not
     * cancelled, receive the message itself (mpi4py's testProbeCancel). */
    for (int i = 0, decided = !self; i < 1000 && !decided; i++) {
        cr_progress();
        cr_chan_lock(ch);
        decided = s->cancelled == 2;
        cr_chan_unlock(ch);
    }
}

/* COURIER_DEBUG=3: one line per packet that arrives (src/util/log.h). */
static void am_log(int peer, const tr_am_rx_t *m)
{
    static const char *const names[] = { "?", "eager", "eager-sync", "ack", "rts", "cts",
                                         "fin", "wdone", "data", "cancel", "cancel-answer" };
    unsigned t = m->hdr.type < sizeof names / sizeof names[0] ? m->hdr.type : 0;
    ut_log_write(UT_LOG_PACKETS, "packet", "from %d: %s ctx %u src %d tag %d, %zu bytes", peer,
                 names[t], (unsigned)m->hdr.ctx, (int)m->hdr.src, (int)m->hdr.tag, m->len);
}

static void chan_am_handler(void *arg, int peer, const tr_am_rx_t *m)
{
    cr_chan_t *ch = arg;
    if (ut_log_on(UT_LOG_PACKETS)) am_log(peer, m);
    /* a peer that reached us first (lazily connected transports) */
    if (CR_UNLIKELY(ch->vc[peer].kind == CR_VC_NONE) && !vc_get(ch, peer))
        chan_fail(peer, "answering a message", TR_ERR_UNREACHABLE);
    switch (m->hdr.type) {
    case CR_AM_EAGER:
    case CR_AM_EAGER_SYNC:
        on_eager(ch, peer, m);
        break;
    case CR_AM_RTS:
        on_rts(ch, peer, m);
        break;
    case CR_AM_ACK:
        send_step_done(cr_msg_id_req(m->hdr.aux));
        break;
    case CR_AM_FIN:
        rndv_send_end(cr_msg_id_req(m->hdr.aux), &m->hdr);
        break;
    case CR_AM_CTS:
        on_cts(ch, peer, m);
        break;
    case CR_AM_WDONE:
        on_wdone(ch, m);
        break;
    case CR_AM_DATA:
        on_data(m);
        break;
    case CR_AM_CANCEL:
        on_cancel(ch, peer, m);
        break;
    case CR_AM_CANCEL_ANS:
        on_cancel_ans(ch, m);
        break;
    default:
        cr_abort_job(1, "a message of unknown type arrived (corrupt transport?)");
    }
}

/* ---- queued work ------------------------------------------------------------------------------ */
/* Push a streaming send's data; 0 when all of it went, 1 when the transport is full. */
static int stream_push(cr_vc_t *v, cr_request_t *s)
{
    size_t chunk = (size_t)ut_settings.rndv_chunk_bytes;
    if (chunk > v->tr->caps.max_bulk) chunk = v->tr->caps.max_bulk;
    if (chunk == 0) chunk = 1;
    const char *src = send_bytes(s);
    tr_am_hdr_t h = { .type = CR_AM_DATA, .aux = s->remote_req };
    s->comp.cb = send_comp_cb;
    while (s->done_bytes < s->bytes) {
        size_t k = s->bytes - s->done_bytes < chunk ? s->bytes - s->done_bytes : chunk;
        tr_status_t st = tr_am_bulk(v->tr, v->addr, &h, src + s->done_bytes, k, &s->comp);
        if (st == TR_ERR_NO_RESOURCE) return 1;
        if (st == TR_INPROGRESS) s->pending++;
        else if (st != TR_OK) chan_fail(s->vpeer, "streaming rendezvous data", st);
        s->done_bytes += k;
    }
    rndv_send_end(s, NULL);
    return 0;
}

/* Advance one peer's out queue as far as its transport takes; returns events. */
static int vc_progress(cr_chan_t *ch, cr_vc_t *v)
{
    int n = 0;
    while (v->out_head) {
        cr_out_t *o = v->out_head;
        if (o->kind == OUT_SEND) {
            if (send_inject(ch, o->req)) break;
        } else if (o->kind == OUT_CTRL) {
            if (ctrl_try(ch, v, &o->hdr, o->payload, (size_t)o->len) != TR_OK) break;
        } else if (stream_push(v, o->req)) {
            n++;
            break;
        }
        v->out_head = o->next;
        if (!v->out_head) v->out_tail = NULL;
        free(o);
        n++;
    }
    return n;
}

/* cr_chan_progress, inlined into the progress engine's poll of the channel. */
static inline __attribute__((always_inline)) int chan_progress(cr_chan_t *ch)
{
    int n = 0;
    for (int i = 0; i < ch->ntr; i++) n += tr_progress(ch->tr[i]);
    if (ch->busy) {
        cr_vc_t **pp = &ch->busy;
        while (*pp) {
            cr_vc_t *v = *pp;
            n += vc_progress(ch, v);
            if (v->out_head) {
                pp = &v->busy_next;
            } else {
                *pp = v->busy_next;
                v->in_busy = 0;
            }
        }
        if (!ch->busy && CR_UNLIKELY(cr_chan_locking))
            __atomic_fetch_sub(&cr_chans_busy, 1, __ATOMIC_RELAXED);
    }
    ch->hold_events += (unsigned)n;
    return n;
}

int cr_chan_progress(cr_chan_t *ch)
{
    return chan_progress(ch);
}

/* Queued outgoing work waits for room that a peer frees without telling us
 * (no message): such a wait must poll, not sleep. */
int cr_chan_can_sleep(cr_chan_t *ch)
{
    return !ch->busy && !ch->nosleep;
}

static int chan_poll(void *arg)
{
    cr_chan_t *ch = arg;
    /* without the channel locks, nothing waits on the detached list and the
     * locks are no-ops: an empty poll costs 24 instructions less (of ~146) */
    if (CR_LIKELY(!cr_chan_locking)) return chan_progress(ch);
    cr_chan_lock(ch);
    int n = cr_chan_progress(ch);
    cr_request_t *done = ch->detached;
    ch->detached = NULL;
    cr_chan_unlock(ch);
    /* detached requests left by the channel path, freed under the library
     * lock (the progress engine's caller holds it) but not the channel's: a
     * callback may send again */
    while (done) {
        cr_request_t *r = done;
        done = r->next;
        cr_request_free(r);
    }
    return n;
}

static int chan_can_sleep(void *arg)
{
    cr_chan_t *ch = arg;
    cr_chan_lock(ch);
    int ok = cr_chan_can_sleep(ch);
    cr_chan_unlock(ch);
    return ok;
}

int cr_chan_init(cr_chan_t *ch, int me, int npeers, tr_iface_t **trs, int ntr, tr_iface_t *self,
                 tr_iface_t *shm)
{
    memset(ch, 0, sizeof *ch);
    pthread_mutex_init(&ch->pool_lock.m, NULL);
    adapt_cfg.mode = (int)ut_settings.adaptive;
    adapt_cfg.slow_ns = (uint64_t)ut_settings.adaptive_slow_us * 1000u;
    adapt_cfg.busy_bytes_per_us = (uint64_t)ut_settings.adaptive_busy_bytes_per_us;
    adapt_cfg.probe_every = (uint32_t)ut_settings.adaptive_probe;
    adapt_cfg.probe_max = (uint32_t)ut_settings.adaptive_probe_max;
    ch->self = self;
    ch->shm = shm;
    ch->me = me;
    ch->nvc = npeers;
    ch->vc = calloc((size_t)npeers, sizeof(cr_vc_t));
    if (!ch->vc || ntr > CR_CHAN_MAX_TR) return -1;
    for (int i = 0; i < ntr; i++) {
        ch->tr[i] = trs[i];
        trs[i]->am_handler = chan_am_handler;
        trs[i]->am_arg = ch;
        if (trs[i] == shm) ch->shm_eager_max = trs[i]->caps.eager_max;
        else if (trs[i] != self && !ch->net) ch->net = trs[i];
        /* a peer may send through it before we ever use it: its message must
         * not wait for a sleeper that it cannot wake */
        if (trs[i] != self && !(trs[i]->caps.flags & TR_CAP_SLEEP)) ch->nosleep = 1;
    }
    ch->ntr = ntr;
    /* Peers reached through self and shared memory are connected at once (it
     * costs nothing), so the fast paths see them from the first message. */
    for (int p = 0; p < npeers; p++)
        for (int i = 0; i < ntr; i++) {
            uint64_t addr;
            if ((trs[i] == self || trs[i] == shm) && tr_connect(trs[i], p, &addr) == TR_OK) {
                vc_bind(ch, &ch->vc[p], trs[i], addr);
                break;
            }
        }
    return 0;
}

int cr_chan_add_transport(cr_chan_t *ch, tr_iface_t *tr)
{
    for (int i = 0; i < ch->ntr; i++)
        if (ch->tr[i] == tr) return 0;
    if (ch->ntr == CR_CHAN_MAX_TR) return -1;
    cr_chan_lock(ch);
    tr->am_handler = chan_am_handler;
    tr->am_arg = ch;
    if (!ch->net) ch->net = tr;
    if (!(tr->caps.flags & TR_CAP_SLEEP)) ch->nosleep = 1;
    ch->tr[ch->ntr++] = tr;
    cr_chan_unlock(ch);
    return 0;
}

/* The channel's peer table grows under the channel's lock: threads on the
 * lock-free path of this channel read ch->vc (docs/threads.md). */
static int chan_reserve_peers(cr_chan_t *ch, int n)
{
    /* the busy list points into vc: remember it by index across the realloc */
    int nbusy = 0;
    for (cr_vc_t *v = ch->busy; v; v = v->busy_next) nbusy++;
    int *busy = malloc(((size_t)nbusy + 1) * sizeof(int));
    if (!busy) return -1;
    nbusy = 0;
    for (cr_vc_t *v = ch->busy; v; v = v->busy_next) busy[nbusy++] = (int)(v - ch->vc);
    cr_vc_t *vc = realloc(ch->vc, ((size_t)ch->nvc + (size_t)n) * sizeof(cr_vc_t));
    if (!vc) {
        free(busy);
        return -1;
    }
    ch->vc = vc;
    ch->busy = NULL;
    for (int k = nbusy - 1; k >= 0; k--) {
        vc[busy[k]].busy_next = ch->busy;
        ch->busy = &vc[busy[k]];
    }
    free(busy);
    int first = ch->nvc;
    memset(&vc[first], 0, (size_t)n * sizeof vc[first]);
    ch->nvc += n;
    return first;
}

int cr_chan_reserve_peers(cr_chan_t *ch, int n)
{
    cr_chan_lock(ch);
    int first = chan_reserve_peers(ch, n);
    cr_chan_unlock(ch);
    return first;
}

int cr_chan_bind_peer(cr_chan_t *ch, int peer, tr_iface_t *tr, const void *addr, size_t len,
                      int32_t id)
{
    uint64_t handle;
    /* the interface is the channel's: called under its lock */
    cr_chan_lock(ch);
    int ok = tr_add_peer(tr, addr, len, id, &handle) == TR_OK;
    if (ok) vc_bind(ch, &ch->vc[peer], tr, handle);
    cr_chan_unlock(ch);
    return ok ? 0 : -1;
}

int cr_chan_add_peer(cr_chan_t *ch, tr_iface_t *tr, const void *addr, size_t len, int32_t id)
{
    uint64_t handle;
    cr_chan_lock(ch);
    int peer = tr_add_peer(tr, addr, len, id, &handle) == TR_OK ? chan_reserve_peers(ch, 1) : -1;
    if (peer >= 0) vc_bind(ch, &ch->vc[peer], tr, handle);
    cr_chan_unlock(ch);
    return peer;
}

void cr_chan_fini(cr_chan_t *ch)
{
    /* COURIER_DEBUG=2: what the adaptive protocol saw of each peer */
    for (int p = 0; p < ch->nvc && ut_log_on(UT_LOG_EVENTS); p++)
        if (ch->vc[p].adapt_on)
            ut_log_write(UT_LOG_EVENTS, "adaptive", "channel %d, rank %d: %u handshakes found it "
                         "not running, %u running, %u unknown; ending in %s mode", ch->index, p,
                         ch->vc[p].adapt.slow, ch->vc[p].adapt.fast, ch->vc[p].adapt.unknown,
                         ch->vc[p].adapt.eager ? "eager" : "rendezvous");
    for (int p = 0; p < ch->nvc; p++)
        free(ch->vc[p].stage);    /* a staged send still unfinished is dropped with it */
    for (int p = 0; p < ch->nvc; p++)
        while (ch->vc[p].out_head) {
            cr_out_t *o = ch->vc[p].out_head;
            ch->vc[p].out_head = o->next;
            free(o);
        }
    while (ch->ux_head) {
        cr_unexp_t *u = ch->ux_head;
        ch->ux_head = u->next;
        if (u->kind == UX_EAGER) free(u->data);
        free(u);
    }
    while (ch->detached) {
        cr_request_t *r = ch->detached;
        ch->detached = r->next;
        cr_request_free(r);
    }
    while (ch->pool) {
        cr_request_t *r = ch->pool;
        ch->pool = r->next;
        cr_request_retire(r);
    }
    while (ch->pool_remote) {
        cr_request_t *r = ch->pool_remote;
        ch->pool_remote = r->next;
        cr_request_retire(r);
    }
    free(ch->vc);
    memset(ch, 0, sizeof *ch);
}

int cr_pt2pt_init(tr_iface_t *trs[][CR_CHAN_MAX_TR], int nchan, const int *ntr, int fast)
{
    if (nchan < 1 || nchan > CR_MAX_CHANNELS) return -1;
    for (int c = 0; c < nchan; c++) {
        cr_chan_t *ch = &cr_chans[c];
        /* init.c starts them in this order: self, shm, then the network */
        if (cr_chan_init(ch, cr_proc.world_rank, cr_proc.world_size, trs[c],
                         ntr[c], trs[c][0], trs[c][1]) != 0)
            return -1;
        ch->index = c;
        ch->fast_end = fast && c == 0 && ch->shm_eager_max ? ch->shm_eager_max + 1 : 0;
        ch->poller.name = "pt2pt";
        ch->poller.poll = chan_poll;
        ch->poller.can_sleep = chan_can_sleep;
        ch->poller.arg = ch;
        cr_progress_register(&ch->poller);
        cr_nchan = c + 1;
    }
    cr_chan_locking = cr_threaded && nchan > 1;
    ut_log(UT_LOG_EVENTS, "channels", "%d channel%s, channel locks %s", nchan,
           nchan > 1 ? "s" : "", cr_chan_locking ? "on" : "off");
    return 0;
}

void cr_pt2pt_fini(void)
{
    for (int c = 0; c < cr_nchan && cr_nchan > 1 && ut_log_on(UT_LOG_EVENTS); c++) {
        unsigned long long msgs = 0;
        for (int k = 0; k < CR_PVAR_NKIND; k++)
            for (int p = 0; p < CR_PVAR_NPROTO; p++) msgs += cr_pvar_sent[c][k][p].msgs;
        ut_log_write(UT_LOG_EVENTS, "channels", "channel %d sent %llu messages", c, msgs);
    }
    for (int c = 0; c < cr_nchan; c++) {
        cr_progress_unregister(&cr_chans[c].poller);
        cr_chan_fini(&cr_chans[c]);
    }
    cr_nchan = 1;
    cr_chan_locking = 0;
}

/* ---- probe and cancel ------------------------------------------------------- */
int cr_iprobe(int src, int tag, cr_comm_t *comm, int *flag, MPI_Status *status, int remove,
              cr_unexp_t **out)
{
    cr_chan_t *ch = cr_chan_of(comm, CR_CTX_PT2PT, tag, src);
    cr_chan_lock(ch);
    cr_unexp_t *u = ux_find(ch, comm->ctx + CR_CTX_PT2PT, src, tag, remove);
    cr_chan_unlock(ch);
    if (!u) {
        cr_progress();
        cr_chan_lock(ch);
        u = ux_find(ch, comm->ctx + CR_CTX_PT2PT, src, tag, remove);
        cr_chan_unlock(ch);
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
    cr_chan_t *ch = u ? cr_chan_of(comm, CR_CTX_PT2PT, u->tag, u->src) : &cr_chan0;
    cr_chan_lock(ch);
    recv_init(ch, r, buf, count, dt, u ? u->src : MPI_PROC_NULL, u ? u->tag : MPI_ANY_TAG, comm,
              CR_CTX_PT2PT);
    if (!u)
        recv_proc_null(r);
    else
        ux_deliver(ch, r, u);
    cr_chan_unlock(ch);
}

/* Cancel a receive that has not matched yet.  Returns 1 when cancelled. */
int cr_cancel_recv(cr_request_t *r)
{
    cr_chan_t *ch = r->chan;
    cr_chan_lock(ch);
    if (r->proto_state != PS_POSTED || r->complete) {
        cr_chan_unlock(ch);
        return 0;
    }
    if (r->prev) r->prev->next = r->next; else ch->posted_head = r->next;
    if (r->next) r->next->prev = r->prev; else ch->posted_tail = r->prev;
    r->next = r->prev = NULL;
    r->proto_state = PS_NONE;
    if (r->proto) recv_vg_restore(r, 0);
    status_set(r, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    r->status.count_hi_and_cancelled |= 1;
    cr_req_complete(r);
    cr_chan_unlock(ch);
    return 1;
}

/* ---- fast paths for the blocking calls ---------------------------------------
 * MPI_Send and MPI_Recv of small contiguous messages between two local ranks
 * are the latency benchmark and the inner loop of halo exchanges.  The general
 * path costs a request, a queue walk and the progress loop; these skip all of
 * that when nothing else is in flight, and hand over to the general path
 * whenever something is. */

/* The shared-memory peer an eager message of `bytes` to comm rank dest may be
 * written to right now (nothing queued ahead of it), or NULL.  Always inlined:
 * it sits on MPI_Send's fast path, where a call costs a tenth of the
 * software's share of latency. */
static inline __attribute__((always_inline)) cr_vc_t *eager_now(size_t bytes, int dest,
                                                                 cr_comm_t *comm, int *peer)
{
    if (bytes >= cr_chan0.fast_end || dest < 0) return NULL;
    *peer = cr_comm_world_rank(comm, dest);
    cr_vc_t *v = &cr_chan0.vc[*peer];
    return v->kind == CR_VC_SHM && !v->out_head ? v : NULL;
}

/* id: the message's id (cr_msg_id), 0 for MPI_Send's (no request). */
static inline __attribute__((always_inline)) int eager_put(cr_vc_t *v, const void *data,
                                                           size_t bytes, int tag,
                                                           cr_comm_t *comm, uint64_t id)
{
    tr_am_hdr_t h = { .type = CR_AM_EAGER, .ctx = comm->ctx + CR_CTX_PT2PT, .src = comm->rank,
                      .tag = tag, .aux = id };
    int rc = shm_send_pkt(&shm_ctxs[0], (int)v->addr, &h, data, bytes);
    if (CR_LIKELY(rc == 0)) cr_pvar_count_send(0, CR_VC_SHM, CR_PVAR_EAGER, bytes);
    return rc;
}

/* Send `bytes` contiguous bytes eagerly, straight into the ring, when the peer
 * is another local rank with no earlier send queued to it.  Returns 0 when
 * sent, 1 when the caller must take the general path. */
int cr_send_fast(const void *data, size_t bytes, int dest, int tag, cr_comm_t *comm)
{
    int peer;
    cr_vc_t *v = eager_now(bytes, dest, comm, &peer);
    return !v || eager_put(v, data, bytes, tag, comm, 0);
}

/* MPI_Isend's form of cr_send_fast: when the message goes straight into the
 * ring, the request is born complete (nothing refers to it but the user's
 * handle).  Returns it, or NULL when the caller must take the general path. */
cr_request_t *cr_isend_fast(const void *data, size_t bytes, int dest, int tag, cr_comm_t *comm)
{
    int peer;
    cr_vc_t *v = eager_now(bytes, dest, comm, &peer);
    if (!v) return NULL;
    cr_request_t *r = cr_request_new(CR_REQ_SEND, 1);
    if (!r) return NULL;
    r->wire_gen = ++wire_gen_next;     /* the fast paths run without threads */
    if (eager_put(v, data, bytes, tag, comm, cr_msg_id(r))) {
        cr_request_free(r);
        return NULL;
    }
    r->vpeer = peer;          /* for MPI_Cancel (cr_cancel_send) */
    r->complete = 1;
    return r;
}

/* The channel path's form of cr_isend_fast (channel ch held, the channel
 * locks on): a standard send of `bytes` contiguous bytes that fits one
 * eager packet to a shared-memory peer with nothing queued ahead of it goes
 * straight into channel ch's ring, and its request, from ch's own pool, is
 * born complete with its handle.  Returns it, or NULL when the caller must
 * take cr_chan_isend (ch still held): what that would do for such a message,
 * less its layers (no datatype reference, no protocol state, no completion
 * step).  With one channel, or without threads, it never runs. */
cr_request_t *cr_chan_isend_now(cr_chan_t *ch, const void *data, size_t bytes, int dest, int tag,
                                cr_comm_t *comm)
{
    if (CR_UNLIKELY(dest < 0)) return NULL;           /* MPI_PROC_NULL */
    int peer = cr_comm_world_rank(comm, dest);
    cr_vc_t *v = &ch->vc[peer];
    if (v->kind != CR_VC_SHM || v->out_head || bytes > v->eager_max ||
        bytes > v->tr->caps.max_short)
        return NULL;
    cr_request_t *r = cr_chan_request_new(ch, CR_REQ_SEND);
    if (CR_UNLIKELY(!r)) return NULL;
    if (CR_UNLIKELY(cr_request_attach_handle(r) != MPI_SUCCESS)) {
        cr_request_free(r);
        return NULL;
    }
    r->wire_gen = wire_gen_take(ch);
    tr_am_hdr_t h = { .type = CR_AM_EAGER, .ctx = comm->ctx + CR_CTX_PT2PT, .src = comm->rank,
                      .tag = tag, .aux = cr_msg_id(r) };
    if (shm_send_pkt(shm_ctx_of(v->tr), (int)v->addr, &h, data, bytes)) {
        cr_request_free(r);      /* the ring is full: the general path queues it */
        return NULL;
    }
    cr_pvar_count_send(ch->index, CR_VC_SHM, CR_PVAR_EAGER, bytes);
    r->chan = ch;             /* for MPI_Cancel (cr_cancel_send) */
    r->vpeer = peer;
    r->complete = 1;
    return r;
}

/* MPI_Irecv's form: without threads (no library or channel lock to take) the
 * general path's receive less its layers, for any datatype: a request from
 * the pool with its handle, matched or posted on its channel (cr_chan_of).
 * Returns it, or NULL when the caller must take the general path (threads,
 * MPI_PROC_NULL, no memory). */
cr_request_t *cr_irecv_fast(void *buf, MPI_Aint count, cr_datatype_t *dt, int src, int tag,
                            cr_comm_t *comm)
{
    if (CR_UNLIKELY(cr_threaded) || src == MPI_PROC_NULL) return NULL;
    cr_request_t *r = cr_request_new(CR_REQ_RECV, 1);
    if (CR_UNLIKELY(!r)) return NULL;
    cr_chan_t *ch = cr_chan_of(comm, CR_CTX_PT2PT, tag, src);
    recv_init(ch, r, buf, count, dt, src, tag, comm, CR_CTX_PT2PT);
    recv_post(ch, r);
    return r;
}

/* Receive into `cap` contiguous bytes at dst from one local rank, when no
 * message is waiting unmatched, no receive is posted, no outgoing work is
 * pending and no other poller has work under way: then the next matching
 * message can only be the next packet of that peer's ring, and an eager one is
 * copied straight to dst.  Any other packet (rendezvous, synchronous, another
 * context or tag, one that would truncate, one from another peer) is left
 * where it is and 1 returned: the general path takes over with nothing
 * consumed.  Returns 0 when the message arrived. */
int cr_recv_fast(void *dst, size_t cap, int src, int tag, cr_comm_t *comm, MPI_Status *status)
{
    cr_chan_t *ch = &cr_chan0;
    /* cr_progress_nactive first: with threads it is never 0, so the queues,
     * which other threads change under their locks, are not even read */
    if (__atomic_load_n(&cr_progress_nactive, __ATOMIC_RELAXED) || ch->ux_head ||
        ch->posted_head || ch->busy || src < 0 ||
        ut_log_on(UT_LOG_PACKETS))      /* the general path logs every packet */
        return 1;
    cr_vc_t *v = &ch->vc[cr_comm_world_rank(comm, src)];
    if (v->kind != CR_VC_SHM) return 1;
    int from = (int)v->addr;
    uint32_t ctx = comm->ctx + CR_CTX_PT2PT;
    cr_wait_t w = CR_WAIT_INIT;
    for (;;) {
        const shm_hdr_t *h = shm_peek(&shm_ctxs[0], from);
        if (h) {
            cr_wait_end(&w);
            if (h->am.type != CR_AM_EAGER || h->len > cap ||
                !match(ctx, src, tag, h->am.ctx, h->am.src, h->am.tag))
                return 1;
            size_t n = h->len;
            int mtag = h->am.tag;
            if (n) shm_pkt_copy(&shm_ctxs[0], from, h, 0, dst, n);
            shm_pkt_done(&shm_ctxs[0], from, h);
            if (status != MPI_STATUS_IGNORE) status_fill(status, src, mtag, n);
            return 0;
        }
        /* another peer's message, a remote peer waiting for an answer (a
         * rendezvous), one-sided requests to serve (cr_wait_side), or the
         * policy's last poll before sleeping (it may have taken our
         * message): the general path goes on */
        if (shm_pending_except(&shm_ctxs[0], from) || (ch->net && tr_progress(ch->net)) ||
            CR_UNLIKELY(cr_wait_side != NULL && cr_wait_side()) || cr_wait_idle(&w)) {
            cr_wait_end(&w);
            return 1;
        }
    }
}
