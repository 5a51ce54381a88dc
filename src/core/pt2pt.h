/* SPDX-License-Identifier: MIT */
/* Point-to-point internals: the channels (all pt2pt state: matching queues and
 * per-peer connections and out queues, a request pool, transport interfaces
 * of their own), the protocol messages the core sends over every transport,
 * and the fast paths of the blocking calls. */
#ifndef COURIER_CORE_PT2PT_H
#define COURIER_CORE_PT2PT_H
#include "core/adapt.h"
#include "core/core.h"
#include "core/progress.h"
#include "core/threads.h"
#include "transport/transport.h"
#include "util/settings.h"

/* An arrived message that no posted receive matched yet. */
typedef struct cr_unexp {
    struct cr_unexp *next;
    uint32_t ctx;
    int src, tag;
    int kind;             /* UX_* */
    size_t bytes;         /* message size */
    void *data;           /* eager payload copy (UX_EAGER) */
    int peer;             /* the sender's peer number */
    int sync;             /* sender waits for a match acknowledgement */
    uint64_t sreq;        /* sender's request (sync ack, rendezvous) */
    tr_rkey_t key;        /* rendezvous: the sender's data */
    uint16_t rts_flags;   /* rendezvous: CR_RTS_* */
    uint64_t seen_ns;     /* rendezvous from a shm peer, adaptive: when it arrived */
} cr_unexp_t;
enum { UX_EAGER = 1, UX_RTS };

/* The core's active messages (tr_am_hdr_t.type). */
enum {
    CR_AM_EAGER = 1,    /* ctx/src/tag, payload = message */
    CR_AM_EAGER_SYNC,   /* same, the sender wants CR_AM_ACK(aux) when it matches */
    CR_AM_ACK,          /* aux = sender's request */
    CR_AM_RTS,          /* rendezvous request: aux = sender's request, payload = cr_rts_t */
    CR_AM_CTS,          /* receiver matched an RTS: aux = sender's request, payload = cr_cts_t */
    CR_AM_FIN,          /* receiver has the data (it got it itself): aux = sender's request */
    CR_AM_WDONE,        /* sender put its share of a split copy: aux = receiver's request,
                           payload = int32 1 when written, 0 when the put was refused */
    CR_AM_DATA,         /* pipelined rendezvous data, in order: aux = receiver's request */
    CR_AM_CANCEL,       /* MPI_Cancel of a send: aux = the message's id (its sreq),
                           payload = cr_cancel_t (whom to answer) */
    CR_AM_CANCEL_ANS,   /* the answer: aux = cr_cancel_t.reply, payload = cr_cancel_ans_t */
};
/* Flags of an RTS (tr_am_hdr_t.flags).  CR_RTS_STAGED: the data lies in the
 * sender's staging area and the sender's request is complete; the receiver
 * copies it out alone (no split copy, which needs the sender to run). */
enum { CR_RTS_STAGED = 1 };
/* CTS and FIN of a rendezvous from a shm peer carry, in their src and tag
 * fields (low and high 32 bits), the receiver's CLOCK_MONOTONIC when the RTS
 * first arrived there (0: not recorded): the sender times the peer's look
 * (core/adapt.h) without its own delay in reading the answer. */
/* A message's id (the sender's aux on EAGER, EAGER_SYNC and RTS, and what ACK,
 * CTS, FIN and CANCEL_ANS carry back): the sender's request in the low 48
 * bits, the request's wire_gen in the high 16, so that a request object
 * reused for a later message gives it another id while an earlier message
 * from it may still wait unexpected (MPI_Cancel names a message by its id).
 * A message of the blocking MPI_Send fast path has id 0 (it cannot be
 * cancelled). */
#define CR_MSG_ID_REQ_BITS 48
static inline cr_request_t *cr_msg_id_req(uint64_t id)
{
    return (cr_request_t *)(uintptr_t)(id & (((uint64_t)1 << CR_MSG_ID_REQ_BITS) - 1));
}
static inline uint64_t cr_msg_id(const cr_request_t *r)
{
    return (uint64_t)(uintptr_t)r | (uint64_t)(r->wire_gen & 0xffffu) << CR_MSG_ID_REQ_BITS;
}
typedef struct {
    uint64_t reply;     /* the id of the request that waits for the answer */
} cr_cancel_t;
typedef struct {
    uint64_t sreq;      /* the message's id */
    int32_t cancelled;  /* 1: it was unexpected and is gone, never to be delivered */
    int32_t kind;       /* what it was: UX_EAGER, UX_RTS, or CR_CANCEL_SYNC for a
                           synchronous eager message */
} cr_cancel_ans_t;
enum { CR_CANCEL_SYNC = 3 };
typedef struct {
    uint64_t bytes;     /* whole message size */
    tr_rkey_t key;      /* the sender's contiguous bytes */
} cr_rts_t;
typedef struct {
    uint64_t rreq;      /* receiver's request */
    int32_t method;     /* CR_RNDV_PIPE or CR_RNDV_SPLIT */
    int32_t pad;
    tr_rkey_t key;      /* SPLIT: the receiver's contiguous destination */
    uint64_t off, len;  /* SPLIT: the sender puts bytes [off, off+len) of the message */
} cr_cts_t;
/* CR_RNDV_SPLIT: a single copy done by both sides at once, the receiver getting
 * the first part while the sender puts the rest, so two cores copy.
 * CR_RNDV_PIPE: the sender streams CR_AM_DATA messages (the receiver cannot
 * get from this peer). */
enum { CR_RNDV_PIPE = 1, CR_RNDV_SPLIT = 2 };

/* Request states (cr_request_t.proto_state). */
enum {
    PS_NONE = 0,
    PS_QUEUED,         /* send waiting in the peer's out queue */
    PS_WAIT_ACK,       /* synchronous eager send waiting for the match */
    PS_WAIT_CTS,       /* rendezvous send waiting for the receiver */
    PS_STREAM,         /* rendezvous send pushing CR_AM_DATA */
    PS_WAIT_FIN,       /* rendezvous send waiting for the receiver's FIN */
    PS_POSTED,         /* receive in the posted queue */
    PS_RNDV_GET,       /* matched rendezvous receive getting the data */
    PS_RNDV_PULL,      /* rendezvous receive taking CR_AM_DATA */
};

/* How a channel reaches one peer. */
enum { CR_VC_NONE = 0, CR_VC_SELF, CR_VC_SHM, CR_VC_NET };
enum { CR_GET_UNTRIED = 0, CR_GET_WORKS, CR_GET_REFUSED };
typedef struct cr_out cr_out_t;
typedef struct cr_vc {
    uint8_t kind;             /* CR_VC_*: CR_VC_NONE until first use connects it */
    uint8_t get_state;        /* CR_GET_*: what get() from this peer did so far */
    uint8_t in_busy;          /* on the channel's busy list */
    cr_out_t *out_head, *out_tail;  /* work waiting to go out, in order */
    uint64_t addr;            /* the transport's address (shm: local index) */
    tr_iface_t *tr;
    size_t eager_max;
    struct cr_vc *busy_next;
    /* the adaptive protocol (core/adapt.h), shm peers only; under the library lock */
    uint8_t adapt_on;         /* adaptation runs for this peer */
    size_t adapt_max;         /* adaptive eager limit (0: no eager range for this peer) */
    cr_adapt_t adapt;
    struct cr_request *probe_req;  /* the rendezvous send whose handshake is timed */
    uint64_t probe_t0;        /* when its RTS went */
    cr_adapt_obs_t probe_obs; /* what was seen of the peer then */
    uint64_t probe_copied;    /* the peer's copied-bytes count then (shm_peer_copied) */
    int rndv_out;             /* rendezvous sends to it not yet answered (FIN) */
    /* the staging area (pt2pt.c: stage_*), allocated on first need */
    char *stage;
    size_t stage_used;        /* bytes handed out since it was last empty */
    int stage_live;           /* staged sends not yet finished */
} cr_vc_t;

#define CR_CHAN_MAX_TR 4
/* Interfaces every channel has (self and shm); the network's endpoint of the
 * channel follows when the job spans nodes. */
#define CR_CHAN_LOCAL_TR 2
#define CR_MAX_CHANNELS 64
/* A channel (a "virtual communication interface", as MPICH ch4 calls it): all
 * point-to-point state of one stream of traffic.  A process has cr_nchan of
 * them (COURIER_NUM_CHANNELS, the same on every rank); channel c of
 * one process talks to channel c of the others, through interfaces of its own
 * (its own shm rings, self queue).  Communicators are mapped to channels
 * (cr_chan_of); with threads, everything in a channel is under its lock
 * (docs/threads.md: the library lock comes before it, and a thread that
 * holds it takes no other lock but leaves).  Aligned to CR_CHAN_ALIGN, so
 * that two channels never share a cache line (nor the pair of lines that
 * x86's adjacent-line prefetcher fetches together): unaligned (288 bytes),
 * channel c's pool, detached list and hold_events, written on every message,
 * lay in one line with channel c+1's posted and unexpected queues, and two
 * threads on neighbouring channels wrote one line (docs/threads.md, "What
 * two threads on distinct channels share"). */
#define CR_CHAN_ALIGN 128
typedef struct __attribute__((aligned(CR_CHAN_ALIGN))) cr_chan {
    cr_request_t *posted_head, *posted_tail;
    cr_unexp_t *ux_head, *ux_tail;
    cr_vc_t *vc;              /* per peer */
    int nvc;
    int me;                   /* this process's peer number */
    cr_vc_t *busy;            /* peers with out-queue work */
    size_t shm_eager_max;     /* the eager limit of shm peers, 0: no shm */
    tr_iface_t *tr[CR_CHAN_MAX_TR];   /* transports, tried in order when connecting */
    int ntr;
    int nosleep;              /* one of its transports cannot wake a sleeper */
    tr_iface_t *net;          /* the network transport, if any (polled by the MPI_Recv
                                 fast path too) */
    tr_iface_t *self, *shm;   /* which of tr[] are the self and shm interfaces */
    /* The fast paths take messages of fewer than fast_end bytes (0: off; they
     * run on the first channel, and only without threads). */
    size_t fast_end;
    int index;                /* in cr_chans */
    cr_poller_t poller;       /* its poller in the progress engine */
    /* last, so that the fields of the fast paths above keep their places */
    cr_mutex_t lock;          /* with the channel locks on: everything above */
    cr_lock_t pool_lock;      /* a leaf lock: pool_remote */
    /* Its free requests.  Taken from under the channel's lock (every caller
     * of cr_chan_request_new holds it), and given back there by a thread that
     * holds it (owner); a thread that does not (the library lock's waits,
     * the progress engine's frees of detached requests) gives them to
     * pool_remote, under pool_lock, which the channel takes over when pool
     * runs dry (request.c).  So the channel path's own take and give back,
     * twice per message, need no other lock than the channel's. */
    cr_request_t *pool;
    cr_request_t *pool_remote;
    pthread_t owner;          /* the thread that holds lock, 0 when none (atomic) */
    cr_request_t *detached;   /* detached requests completed by the channel path, to be
                                 freed under the library lock (pt2pt.c) */
    unsigned long hold_events;    /* events found during the current hold */
    uint32_t wire_gen;        /* with the channel locks on: the generation of its
                                 sends' message ids (pt2pt.c, wire_gen_take) */
} cr_chan_t;

/* The process's channels; the first carries MPI_COMM_WORLD. */
extern cr_chan_t cr_chans[CR_MAX_CHANNELS];
extern int cr_nchan;
#define cr_chan0 (cr_chans[0])

/* The channel that carries comm's traffic of kind ctx_off (CR_CTX_PT2PT or
 * CR_CTX_COLL) with tag from the sender of comm rank src (a sender passes
 * comm->rank, a receiver the source it names).  Both sides of a message get
 * the same channel (docs/threads.md, "Channels"): channel 0 with one
 * channel, for communicators that reach another job; otherwise one
 * by the context id, spread by tag and source on point-to-point traffic
 * where the communicator's hints rule out MPI_ANY_TAG / MPI_ANY_SOURCE. */
cr_chan_t *cr_chan_pick(cr_comm_t *comm, int ctx_off, int tag, int src);
static inline cr_chan_t *cr_chan_of(cr_comm_t *comm, int ctx_off, int tag, int src)
{
    if (CR_LIKELY(cr_nchan == 1)) return &cr_chan0;
    cr_chan_t *fixed = __atomic_load_n(&comm->chan_fixed, __ATOMIC_ACQUIRE);
    if (CR_LIKELY(fixed != NULL)) return fixed;
    return cr_chan_pick(comm, ctx_off, tag, src);
}
/* Take and let go of a channel's lock: only while the channel locks are on
 * (cr_chan_locking: threads and more than one channel; else the library lock
 * covers the channels, as before channels had locks).  Letting it go after a
 * hold whose polls found events wakes this process's sleeping threads (their
 * requests may be among those completed). */
extern int cr_chan_locking;
/* The _slow forms: the lock itself, inline on the channel path (taken and let
 * go twice per message sent, once per MPI_Isend and per MPI_Waitall). */
static inline __attribute__((always_inline)) void cr_chan_lock_slow(cr_chan_t *ch)
{
    cr_mutex_lock(&ch->lock);
    __atomic_store_n(&ch->owner, pthread_self(), __ATOMIC_RELAXED);
    ch->hold_events = 0;
}
static inline __attribute__((always_inline)) void cr_chan_unlock_slow(cr_chan_t *ch)
{
    int ring = ch->hold_events != 0;
    __atomic_store_n(&ch->owner, (pthread_t)0, __ATOMIC_RELAXED);
    cr_mutex_unlock(&ch->lock);
    /* a thread of this process may sleep on a request this hold completed */
    if (CR_UNLIKELY(ring)) cr_progress_wake_sleepers();
}
static inline void cr_chan_lock(cr_chan_t *ch)
{
    if (CR_UNLIKELY(cr_chan_locking)) cr_chan_lock_slow(ch);
}
static inline void cr_chan_unlock(cr_chan_t *ch)
{
    if (CR_UNLIKELY(cr_chan_locking)) cr_chan_unlock_slow(ch);
}

/* How many channels have outgoing work queued (with the channel locks on;
 * read atomically, pt2pt.c). */
extern int cr_chans_busy;

/* Set up a channel for npeers peers, this process being peer me, reaching
 * them through the transports given (tried in this order: self, shm, network;
 * self and shm name which of trs are those, or NULL); installs the channel as
 * those transports' AM handler.  0 or -1. */
int cr_chan_init(cr_chan_t *ch, int me, int npeers, tr_iface_t **trs, int ntr, tr_iface_t *self,
                 tr_iface_t *shm);
void cr_chan_fini(cr_chan_t *ch);
/* The network interface through which the channel reaches peer (connecting
 * it on first use), as cr_chan_net_shared gives it, and the transport's
 * address of it in *addr; NULL when the peer is reached otherwise (itself,
 * shared memory) or not at all.  One-sided communication uses it for the
 * network transport's get/put and atomics. */
tr_iface_t *cr_chan_net_peer(cr_chan_t *ch, int peer, uint64_t *addr);
/* The channel's network interface (NULL: none) for callers outside the
 * channel that use it beside the channel's own traffic (one-sided
 * communication, dynamic processes' addresses): with the channel locks on, a
 * view of it whose every call takes the channel's lock around the
 * transport's (src/core/chan_net.c), else the interface itself.  Call it, and
 * the view, with the library lock held and not the channel's.  Completion
 * callbacks of operations started through it run from the channel's polls,
 * under the channel's lock, possibly in a thread that does not hold the
 * library lock. */
tr_iface_t *cr_chan_net_shared(cr_chan_t *ch);
/* Add a transport started after the channel (the network transport, started
 * on first use by dynamic processes): it joins the list tried on connect and
 * the channel becomes its AM handler.  0, or -1 when the list is full. */
int cr_chan_add_transport(cr_chan_t *ch, tr_iface_t *tr);
/* Add a peer of another job, reached through tr at the transport address
 * [addr, addr + len), which calls this process id (tr_add_peer).  Returns
 * the new peer number (the next after every earlier one: nvc before the
 * call), or -1 when the transport cannot reach it or memory ran out. */
int cr_chan_add_peer(cr_chan_t *ch, tr_iface_t *tr, const void *addr, size_t len, int32_t id);
/* The same in two steps, for peers numbered before they are reached (two
 * threads making dynamic connections at once must not both count on the same
 * nvc): cr_chan_reserve_peers makes n unconnected peer numbers and returns the
 * first (-1: out of memory); cr_chan_bind_peer reaches one of them as
 * cr_chan_add_peer would (0, or -1). */
int cr_chan_reserve_peers(cr_chan_t *ch, int n);
int cr_chan_bind_peer(cr_chan_t *ch, int peer, tr_iface_t *tr, const void *addr, size_t len,
                      int32_t id);
/* Poll the channel's transports and advance queued work; returns events. */
int cr_chan_progress(cr_chan_t *ch);
/* 1 when nothing in the channel keeps a sleeping process from being woken. */
int cr_chan_can_sleep(cr_chan_t *ch);
/* The general forms behind cr_isend / cr_irecv, on a given channel. */
int cr_chan_isend(cr_chan_t *ch, const void *buf, MPI_Aint count, cr_datatype_t *dt, int dest,
                  int tag, cr_comm_t *comm, int ctx_off, int mode, cr_request_t **req);
int cr_chan_irecv(cr_chan_t *ch, void *buf, MPI_Aint count, cr_datatype_t *dt, int src, int tag,
                  cr_comm_t *comm, int ctx_off, cr_request_t **req);

/* The channel path's MPI_Isend of contiguous bytes to a shared-memory peer,
 * straight into channel ch's ring (ch held, the channel locks on): a
 * complete request with its handle, or NULL for cr_chan_isend (pt2pt.c). */
cr_request_t *cr_chan_isend_now(cr_chan_t *ch, const void *data, size_t bytes, int dest, int tag,
                                cr_comm_t *comm);

/* Start a buffered send (p2p_bsend.c): the data is packed into memory of its
 * own and charged to the attached buffer that serves comm; *out (when out is
 * not NULL) gets a complete request with a handle. */
int cr_bsend_start(const void *buf, MPI_Aint count, cr_datatype_t *dt, int dest, int tag,
                   cr_comm_t *comm, cr_request_t **out);

/* Cancel a receive that has not matched yet (pt2pt.c): 1 when cancelled (it is
 * then complete, its status says so), 0 when it had matched already. */
int cr_cancel_recv(cr_request_t *r);

/* MPI_Cancel of a send (pt2pt.c): asks the receiver to drop the message if
 * no receive matched it yet.  The request becomes incomplete (again) until
 * the answer comes; it then completes with the cancelled flag of its status
 * set (the message will never be delivered) or clear (it is, or will be,
 * received).  A second cancel, or one of a send to MPI_PROC_NULL, does
 * nothing. */
void cr_cancel_send(cr_request_t *s);

/* Is r a partitioned request (p2p_part.c)?  Its status reports the user's tag. */
int cr_part_is(const cr_request_t *r);

/* Generalized requests (p2p_greq.c), for the completion calls: finish (query,
 * then free callback) a completed one, query only (MPI_Request_get_status),
 * MPI_Request_free and MPI_Cancel.  Each returns the callbacks' error code. */
int cr_greq_finish(cr_request_t *r, MPI_Status *status);
int cr_greq_query(cr_request_t *r, MPI_Status *status);
int cr_greq_user_free(cr_request_t *r);
int cr_greq_cancel(cr_request_t *r);

/* A request (without a handle) from the channel's own pool while the channel
 * locks are on, else from the global one (request.c); cr_request_free puts
 * it back where it came from. */
cr_request_t *cr_chan_request_new(cr_chan_t *ch, cr_req_kind_t kind);
/* Give back a complete channel-path request to its own channel's pool, ch
 * (r->home), held by the caller: one with no callback, no communicator
 * reference, no packed copy and a predefined datatype or none (what
 * cr_request_free would do for it, less its tests). */
static inline __attribute__((always_inline)) void cr_chan_request_put(cr_chan_t *ch,
                                                                      cr_request_t *r)
{
    r->comm = NULL;
    r->handle = MPI_REQUEST_NULL;      /* the slot stays with the object */
    r->dt = NULL;                      /* predefined: its reference was never counted */
    r->next = ch->pool;
    ch->pool = r;
}
/* Put a request of a channel's pool into the global one (the channel ends). */
void cr_request_retire(cr_request_t *r);

/* Complete a request: sets the flag (release), frees detached requests. */
void cr_req_complete(cr_request_t *r);

/* Set up nchan channels: trs[c] holds channel c's ntr[c] transport
 * interfaces (self, shm, and the network's endpoint of channel c when the
 * job spans nodes), as init.c started them.  fast: the fast paths may run
 * (no threads). */
int cr_pt2pt_init(tr_iface_t *trs[][CR_CHAN_MAX_TR], int nchan, const int *ntr, int fast);
void cr_pt2pt_fini(void);

#endif
