/* SPDX-License-Identifier: MIT */
/* The transport interface: what src/core needs from anything that moves bytes
 * between processes.  One ops table per transport (self, shm, ofi),
 * filled with designated initialisers; a slot a transport cannot fill points
 * at one of the "not supported" stubs below, never at NULL.  The core calls
 * transports through the static inline wrappers at the end of this file, and
 * calls shm directly where the MPI_Send fast path needs it (shm/shm.h).
 *
 * Vocabulary
 * - peer: a process the core talks to, numbered by the core (today the world
 *   rank).  A peer is reached through one transport at an address: connect()
 *   turns a peer number into the transport's address handle, once.
 * - active message (AM): a 24-byte header chosen by the core (tr_am_hdr_t,
 *   carried unchanged) plus a payload.  Every AM that arrives is handed to the
 *   one handler the core installed in the interface (am_handler), from inside
 *   that transport's progress() call and never from inside a send, get or put.
 * - completion callback (tr_comp_t): embedded by the caller in its own object;
 *   an operation that returns TR_INPROGRESS calls comp->cb exactly once, from
 *   a later progress() call of the same transport.  An operation that returns
 *   anything else never calls it.
 *
 * Ordering: every transport delivers the AMs sent to one peer in the order
 * they were sent (TR_CAP_ORDERED); the core's matching relies on it (MPI's
 * non-overtaking rule).  No order holds between AMs and get/put.
 *
 * Threads: an interface is not thread-safe; the core calls each interface
 * from one thread at a time (under its channel's lock).  A transport may hand
 * out several interfaces (one per channel: their own rings, queues or
 * endpoints), and different interfaces may be called from different threads
 * at once.  The sleep hooks concern the whole process: several threads may
 * sleep in sleep_wait at once, and a peer's AM on any interface, or
 * sleep_wake, wakes them all. */
#ifndef COURIER_TRANSPORT_H
#define COURIER_TRANSPORT_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- status ---------------------------------------------------------------- */
typedef enum {
    TR_OK = 0,               /* done: complete before the call returned */
    TR_INPROGRESS = 1,       /* started: comp->cb runs later, from progress() */
    TR_ERR_NO_RESOURCE = -1, /* back-pressure: nothing was done (ring or queue full); retry
                                after progress() */
    TR_ERR_UNSUPPORTED = -2, /* this transport has no such operation */
    TR_ERR_REFUSED = -3,     /* the kernel or the peer refused this peer's memory (CMA on a
                                non-dumpable process); nothing was moved: use another way */
    TR_ERR_UNREACHABLE = -4, /* the peer cannot be reached through this transport */
    TR_ERR_NO_MEMORY = -5,
    TR_ERR_IO = -6,          /* any other failure; the operation's effect is unknown */
} tr_status_t;

/* ---- capabilities ------------------------------------------------------------ */
enum {
    TR_CAP_GET = 1u << 0,     /* get() moves data (it may still refuse one peer: TR_ERR_REFUSED) */
    TR_CAP_PUT = 1u << 1,     /* put() moves data (same) */
    TR_CAP_ORDERED = 1u << 2, /* AMs to one peer arrive in send order (required by the core) */
    TR_CAP_SLEEP = 1u << 3,   /* sleep_prepare/sleep_wait work: a peer's AM wakes a sleeper
                                 (or ends its sleep within COURIER_WAIT_SLEEP_POLL_US); also
                                 set by a transport that has no peer to wake it */
    TR_CAP_ONESIDED = 1u << 4,/* get() and put() both work on mem_key memory, for one-sided
                                 communication (RMA windows); put() may be offered for this
                                 only, without TR_CAP_PUT, where the core's rendezvous should
                                 not use it.  A put's completion means the bytes are in the
                                 peer's memory (visible to the peer), not only sent. */
    TR_CAP_ATOMIC = 1u << 5,  /* atomic() works on mem_key memory for the (op, type) pairs
                                 atomic_max() names (one-sided accumulates and locks) */
    TR_CAP_ATOMIC_CPU = 1u << 6, /* atomic() is done in the peer's process with the CPU's
                                 atomic instructions on each element (software atomics), so
                                 the peer's own compare-and-swap on that memory is atomic
                                 with it */
};
typedef struct {
    size_t max_short;   /* largest payload am_short() takes (at least 64 bytes) */
    size_t max_bulk;    /* largest payload am_bulk() takes (>= max_short) */
    size_t eager_max;   /* largest message the core should send eagerly to this transport's
                           peers; larger ones use rendezvous (SIZE_MAX: always eager) */
    unsigned flags;     /* TR_CAP_* */
    size_t atomic_segs; /* most pieces of the peer's memory one atomicv() takes (0: no atomicv) */
} tr_caps_t;

/* ---- messages ----------------------------------------------------------------- */
/* The core's header of an active message, carried unchanged.  `type` names the
 * core's message kind; the other fields are the core's to use. */
typedef struct {
    uint16_t type;
    uint16_t flags;
    uint32_t ctx;
    int32_t src;
    int32_t tag;
    uint64_t aux;
} tr_am_hdr_t;
_Static_assert(sizeof(tr_am_hdr_t) == 24, "tr_am_hdr_t is 24 bytes on the wire");

/* An arrived active message, valid only while the handler runs.  The payload
 * lies in at most two pieces (a ring may wrap): p[0] of n[0] bytes, then p[1]
 * of n[1] bytes; n[0] + n[1] == len. */
typedef struct {
    tr_am_hdr_t hdr;
    size_t len;
    const char *p[2];
    size_t n[2];
} tr_am_rx_t;

/* Copy bytes [off, off + n) of an arrived message's payload to dst. */
static inline void tr_am_copy(const tr_am_rx_t *m, size_t off, void *dst, size_t n)
{
    if (off < m->n[0]) {
        size_t k = m->n[0] - off < n ? m->n[0] - off : n;
        memcpy(dst, m->p[0] + off, k);
        dst = (char *)dst + k;
        n -= k;
        off = 0;
    } else {
        off -= m->n[0];
    }
    if (n) memcpy(dst, m->p[1] + off, n);
}

/* A remote key: a description of a buffer that lets a peer get() from it or
 * put() into it (shm: address and process id; a network: address and
 * registration key).  Opaque to the core; it travels inside AM payloads. */
typedef struct {
    uint64_t w[3];
} tr_rkey_t;

/* One-sided atomics (TR_CAP_ATOMIC): the operation applied to each element
 * of the peer's memory, and the element types.  TR_AOP_READ only fetches,
 * TR_AOP_WRITE replaces (a swap when fetching), TR_AOP_CSWAP compares and
 * swaps; the others combine the operand into the element as MPI's predefined
 * ops do (logical ops give 0 or 1). */
typedef enum {
    TR_AOP_SUM, TR_AOP_PROD, TR_AOP_MIN, TR_AOP_MAX, TR_AOP_LAND, TR_AOP_LOR, TR_AOP_LXOR,
    TR_AOP_BAND, TR_AOP_BOR, TR_AOP_BXOR, TR_AOP_READ, TR_AOP_WRITE, TR_AOP_CSWAP,
    TR_AOP_COUNT
} tr_aop_t;
typedef enum {
    TR_AT_I8, TR_AT_U8, TR_AT_I16, TR_AT_U16, TR_AT_I32, TR_AT_U32, TR_AT_I64, TR_AT_U64,
    TR_AT_F32, TR_AT_F64, TR_AT_COUNT
} tr_atype_t;
/* The three forms of an atomic: no result, the old values fetched, and
 * compare-and-swap (fetching too). */
enum { TR_ATOMIC_PLAIN = 0, TR_ATOMIC_FETCH = 1, TR_ATOMIC_COMPARE = 2 };

/* One piece of the peer's memory in a vector atomic: count elements from
 * offset off of the registration.  caps.atomic_segs is at most TR_ASEG_MAX. */
enum { TR_ASEG_MAX = 16 };
typedef struct {
    size_t off, count;
} tr_aseg_t;

typedef struct tr_comp {
    void (*cb)(struct tr_comp *comp, tr_status_t status);
} tr_comp_t;

struct tr_iface;
/* The core's handler of arriving AMs: peer is the sender's peer number. */
typedef void (*tr_am_handler_t)(void *arg, int peer, const tr_am_rx_t *msg);

/* Start-up services the core lends to a transport (PMI underneath), so that a
 * transport can publish its address and look up a peer's, lazily. */
typedef struct {
    int rank, size;                                   /* this process, among all peers */
    int (*put)(const char *key, const char *value);   /* 0 on success */
    /* the value `rank` published under key (before the last barrier) */
    int (*get)(int rank, const char *key, char *value, size_t len);
    int (*barrier)(void);                             /* collective over all peers */
} tr_boot_t;

/* The longest address a transport gives for peers that add this process by
 * address (my_address / add_peer): a libfabric endpoint name fits. */
#define TR_ADDR_MAX 256

/* ---- the ops table ------------------------------------------------------------ */
typedef struct tr_iface tr_iface_t;
typedef struct tr_ops {
    const char *name;
    /* Make peer reachable: resolve its address (which may mean fetching the
     * address the peer published at start-up), and store the transport's
     * handle for it in *addr.  TR_OK, or TR_ERR_UNREACHABLE when this
     * transport cannot reach that peer.  Called once per peer, on first use. */
    tr_status_t (*connect)(tr_iface_t *tr, int peer, uint64_t *addr);
    /* Peers that are not in this job (dynamic processes: another job's
     * processes, known only by the address they sent over some other channel).
     * my_address writes this process's address (at most TR_ADDR_MAX bytes) to
     * addr and its length to *len.  add_peer makes the process at address
     * [addr, addr + len) reachable and stores the handle for it in *handle:
     * TR_OK or TR_ERR_UNREACHABLE.  id is the peer number that the new peer
     * has given this process; the transport delivers what this process sends
     * there as coming from peer id (so each side numbers its peers as it
     * likes).  Both TR_ERR_UNSUPPORTED where a transport cannot reach other
     * jobs (self, shm). */
    tr_status_t (*my_address)(tr_iface_t *tr, void *addr, size_t *len);
    tr_status_t (*add_peer)(tr_iface_t *tr, const void *addr, size_t len, int32_t id,
                            uint64_t *handle);
    /* Send an AM with a payload of at most caps.max_short bytes.  The header
     * and payload are copied before the call returns: TR_OK, or
     * TR_ERR_NO_RESOURCE with nothing sent.  Never TR_INPROGRESS. */
    tr_status_t (*am_short)(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                            const void *payload, size_t len);
    /* Send an AM with a payload of at most caps.max_bulk bytes, taken by
     * reference: TR_OK when the payload was already copied or sent (the buffer
     * is free again), TR_INPROGRESS when the transport still reads the buffer
     * (comp->cb runs when it is free again), TR_ERR_NO_RESOURCE with nothing
     * sent. */
    tr_status_t (*am_bulk)(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                           const void *payload, size_t len, tr_comp_t *comp);
    /* Describe [buf, buf + len) for peers' get/put into *key; mem_release
     * ends that (after every get/put on it completed).  Both TR_OK or an error. */
    tr_status_t (*mem_key)(tr_iface_t *tr, void *buf, size_t len, tr_rkey_t *key);
    void (*mem_release)(tr_iface_t *tr, tr_rkey_t *key);
    /* Copy len bytes from offset off of the peer's buffer described by key to
     * local (get), or from local to that offset (put).  TR_OK when the bytes
     * were moved before return, TR_INPROGRESS (comp->cb later), TR_ERR_REFUSED
     * when the kernel or peer refused with nothing moved (the core then uses
     * AMs for this peer), another error when the copy failed part-way. */
    tr_status_t (*get)(tr_iface_t *tr, uint64_t addr, void *local, size_t len,
                       const tr_rkey_t *key, size_t off, tr_comp_t *comp);
    tr_status_t (*put)(tr_iface_t *tr, uint64_t addr, const void *local, size_t len,
                       const tr_rkey_t *key, size_t off, tr_comp_t *comp);
    /* Atomics (TR_CAP_ATOMIC).  atomic_max: how many elements of type one
     * call of that form (TR_ATOMIC_*) takes for op, 0 when the transport
     * cannot do it.  atomic: apply op to count elements of type at offset
     * off of the peer's buffer described by key, with the operands at
     * operand (NULL for TR_AOP_READ); the form follows from the arguments:
     * compare != NULL is compare-and-swap (the compare values there), else
     * result != NULL fetches, else plain.  The old values go to result.
     * Operand, compare and result stay the caller's until the completion.
     * TR_INPROGRESS (comp->cb later; then the operation is done at the peer
     * and the results have arrived), TR_ERR_NO_RESOURCE (nothing started:
     * retry after progress()), or another error. */
    size_t (*atomic_max)(tr_iface_t *tr, tr_aop_t op, tr_atype_t type, int form);
    tr_status_t (*atomic)(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                          const void *operand, const void *compare, void *result, size_t count,
                          const tr_rkey_t *key, size_t off, tr_comp_t *comp);
    /* Vector atomics: as atomic, in one operation, on the nseg pieces segs[]
     * of the peer's buffer (1 <= nseg <= caps.atomic_segs, their counts
     * together at most atomic_max()); operand, compare and result hold the
     * elements of every piece one after the other, in the order of segs.
     * NULL where caps.atomic_segs is 0. */
    tr_status_t (*atomicv)(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                           const void *operand, const void *compare, void *result,
                           const tr_aseg_t *segs, size_t nseg, const tr_rkey_t *key,
                           tr_comp_t *comp);
    /* Deliver arrived AMs to am_handler and run due completion callbacks.
     * Returns how many events it handled (0: nothing happened). */
    int (*progress)(tr_iface_t *tr);
    /* Complete every operation started towards addr at the peer: TR_OK when
     * nothing is outstanding, else TR_INPROGRESS and comp->cb later. */
    tr_status_t (*flush)(tr_iface_t *tr, uint64_t addr, tr_comp_t *comp);
    /* Sleeping in the waiting policy (TR_CAP_SLEEP).  sleep_prepare announces
     * that this process is about to sleep, so that any AM a peer sends from
     * now on wakes it; after it, the core polls once more and then calls
     * sleep_wait (blocks until woken, at most max_us microseconds) or, when
     * the poll found something, sleep_cancel.  sleep_prepare returns 0, or -1
     * when this transport cannot wake a sleeper now. */
    int (*sleep_prepare)(tr_iface_t *tr);
    void (*sleep_wait)(tr_iface_t *tr, long max_us);
    void (*sleep_cancel)(tr_iface_t *tr);
    /* A descriptor that becomes readable (POLLIN) when this transport's
     * sleep_wait would return, or -1 when there is none.  A process that
     * sleeps on several transports' doorbells at once calls sleep_prepare on
     * each, polls once more, blocks in poll() on their descriptors and then
     * calls sleep_cancel on each (sleep_wait is not called). */
    int (*sleep_fd)(tr_iface_t *tr);
    /* Wake every thread of this process that sleeps in sleep_wait (another
     * thread of the process made progress the sleepers may wait for).  Costs
     * one load when nobody sleeps. */
    void (*sleep_wake)(tr_iface_t *tr);
    /* Release everything; after it no other op may be called. */
    void (*finalize)(tr_iface_t *tr);
} tr_ops_t;

/* One transport instance, as the core sees it. */
struct tr_iface {
    const tr_ops_t *ops;
    tr_caps_t caps;
    tr_am_handler_t am_handler;   /* installed by the core before the first progress() */
    void *am_arg;
    void *priv;                   /* the transport's own state */
};

/* "Not supported" stubs for the slots a transport leaves empty (transport.c). */
tr_status_t tr_stub_am_bulk(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                            const void *payload, size_t len, tr_comp_t *comp);
tr_status_t tr_stub_my_address(tr_iface_t *tr, void *addr, size_t *len);
tr_status_t tr_stub_add_peer(tr_iface_t *tr, const void *addr, size_t len, int32_t id,
                             uint64_t *handle);
tr_status_t tr_stub_mem_key(tr_iface_t *tr, void *buf, size_t len, tr_rkey_t *key);
void tr_stub_mem_release(tr_iface_t *tr, tr_rkey_t *key);
tr_status_t tr_stub_get(tr_iface_t *tr, uint64_t addr, void *local, size_t len,
                        const tr_rkey_t *key, size_t off, tr_comp_t *comp);
tr_status_t tr_stub_put(tr_iface_t *tr, uint64_t addr, const void *local, size_t len,
                        const tr_rkey_t *key, size_t off, tr_comp_t *comp);
tr_status_t tr_stub_flush(tr_iface_t *tr, uint64_t addr, tr_comp_t *comp);   /* TR_OK */
size_t tr_stub_atomic_max(tr_iface_t *tr, tr_aop_t op, tr_atype_t type, int form); /* 0 */
tr_status_t tr_stub_atomic(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                           const void *operand, const void *compare, void *result, size_t count,
                           const tr_rkey_t *key, size_t off, tr_comp_t *comp);

int tr_stub_sleep_prepare(tr_iface_t *tr);                                   /* -1 */
void tr_stub_sleep_wait(tr_iface_t *tr, long max_us);
void tr_stub_sleep_cancel(tr_iface_t *tr);
int tr_stub_sleep_fd(tr_iface_t *tr);                                        /* -1 */
void tr_stub_sleep_wake(tr_iface_t *tr);
void tr_stub_finalize(tr_iface_t *tr);
/* A short name for a status, for messages. */
const char *tr_status_str(tr_status_t st);

/* ---- calls (the core uses these, not the table) ------------------------------ */
static inline tr_status_t tr_connect(tr_iface_t *tr, int peer, uint64_t *addr)
{
    return tr->ops->connect(tr, peer, addr);
}
static inline tr_status_t tr_my_address(tr_iface_t *tr, void *addr, size_t *len)
{
    return tr->ops->my_address(tr, addr, len);
}
static inline tr_status_t tr_add_peer(tr_iface_t *tr, const void *addr, size_t len, int32_t id,
                                      uint64_t *handle)
{
    return tr->ops->add_peer(tr, addr, len, id, handle);
}
static inline tr_status_t tr_am_short(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                                      const void *payload, size_t len)
{
    return tr->ops->am_short(tr, addr, hdr, payload, len);
}
static inline tr_status_t tr_am_bulk(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                                     const void *payload, size_t len, tr_comp_t *comp)
{
    return tr->ops->am_bulk(tr, addr, hdr, payload, len, comp);
}
static inline tr_status_t tr_mem_key(tr_iface_t *tr, void *buf, size_t len, tr_rkey_t *key)
{
    return tr->ops->mem_key(tr, buf, len, key);
}
static inline void tr_mem_release(tr_iface_t *tr, tr_rkey_t *key)
{
    tr->ops->mem_release(tr, key);
}
static inline tr_status_t tr_get(tr_iface_t *tr, uint64_t addr, void *local, size_t len,
                                 const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    return tr->ops->get(tr, addr, local, len, key, off, comp);
}
static inline tr_status_t tr_put(tr_iface_t *tr, uint64_t addr, const void *local, size_t len,
                                 const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    return tr->ops->put(tr, addr, local, len, key, off, comp);
}
static inline size_t tr_atomic_max(tr_iface_t *tr, tr_aop_t op, tr_atype_t type, int form)
{
    return tr->ops->atomic_max(tr, op, type, form);
}
static inline tr_status_t tr_atomic(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                                    const void *operand, const void *compare, void *result,
                                    size_t count, const tr_rkey_t *key, size_t off,
                                    tr_comp_t *comp)
{
    return tr->ops->atomic(tr, addr, op, type, operand, compare, result, count, key, off, comp);
}
static inline tr_status_t tr_atomicv(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                                     const void *operand, const void *compare, void *result,
                                     const tr_aseg_t *segs, size_t nseg, const tr_rkey_t *key,
                                     tr_comp_t *comp)
{
    if (!tr->ops->atomicv) return TR_ERR_UNSUPPORTED;
    return tr->ops->atomicv(tr, addr, op, type, operand, compare, result, segs, nseg, key, comp);
}
static inline int tr_progress(tr_iface_t *tr)
{
    return tr->ops->progress(tr);
}
static inline tr_status_t tr_flush(tr_iface_t *tr, uint64_t addr, tr_comp_t *comp)
{
    return tr->ops->flush(tr, addr, comp);
}
static inline void tr_finalize(tr_iface_t *tr)
{
    tr->ops->finalize(tr);
}
#endif
