/* SPDX-License-Identifier: MIT */
/* The libfabric transport (ofi.h): one RDM endpoint per channel, each with
 * its own fabric domain, completion queue and address vector; active
 * messages, fi_read for get, fi_write (delivery complete) for put, fi_atomic
 * / fi_fetch_atomic / fi_compare_atomic for one-sided atomics, lazy address
 * look-up, and sleeping on the completion queue's wait object. */
#define _GNU_SOURCE
#include "transport/ofi/ofi.h"
#include "util/settings.h"

#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char prov_name[64];

const char *ofi_provider_name(void)
{
    return prov_name;
}

#ifndef COURIER_HAVE_OFI
int ofi_init(const tr_boot_t *boot, int publish, int n, tr_iface_t **out)
{
    (void)boot, (void)publish, (void)n, (void)out;
    fprintf(stderr, "courier: built without libfabric: no network transport\n");
    return -1;
}

int ofi_open_begin(int n)
{
    (void)n;
    return -1;
}

void ofi_print_providers(FILE *out)
{
    fprintf(out, "built without libfabric: no network transport\n");
}
#else
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_atomic.h>

/* What goes on the wire before the payload. */
typedef struct {
    int32_t peer;            /* the sender's peer number */
    uint32_t len;            /* payload bytes */
    tr_am_hdr_t am;
} ofi_wire_t;
_Static_assert(sizeof(ofi_wire_t) == 32, "the wire header is 32 bytes");

enum { OP_RECV = 1, OP_SEND_COPY, OP_SEND_BULK, OP_READ, OP_WRITE, OP_ATOMIC };
/* One operation in flight; the libfabric context comes first. */
typedef struct ofi_op {
    struct fi_context2 ctx;
    int kind;
    tr_comp_t *comp;         /* bulk sends and reads */
    struct ofi_op *next;     /* reads and writes waiting to be retried */
    /* a read or write to retry */
    void *local;
    size_t len;
    fi_addr_t addr;
    uint64_t raddr, rkey;
    ofi_wire_t wire;         /* receives and copies: the message starts here */
    char data[];
} ofi_op_t;

/* Flushes wait for every outstanding operation of their endpoint. */
typedef struct ofi_flush {
    struct ofi_flush *next;
    tr_comp_t *comp;
} ofi_flush_t;

/* The peers an endpoint sends to: a handle (the core's addr) indexes this
 * table.  id is what the peer calls this process (the wire header's peer):
 * our rank for the job's own processes, the number the peer chose for peers
 * added by address (add_peer). */
typedef struct {
    fi_addr_t fa;
    int32_t id;
} ofi_peer_t;

/* One endpoint (tr->priv): the interface of one channel.  Each has a fabric
 * and domain of its own, so that threads on different channels never share a
 * libfabric object (the domain is opened with FI_THREAD_DOMAIN: its user
 * serialises every call on it, which the channel's lock does). */
typedef struct ofi_ep {
    tr_iface_t iface;
    int index;                   /* the channel: which published address it is */
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_ep *ep;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_wait *wset;       /* the completion queue's wait set (NULL: its own wait object or none) */
    ofi_op_t **rx;
    int nrx;
    uint64_t next_key;
    long outstanding;            /* sends and reads not yet completed */
    int closing;                 /* finalize: arriving messages are dropped */
    ofi_op_t *retry_head, *retry_tail;
    int wait_fd;                 /* the completion queue's wait object (-1: none) */
    unsigned char name[512];     /* the endpoint's address, as published */
    size_t name_len;
    ofi_flush_t *flushes;
    ofi_peer_t *peers;
    size_t npeers, peers_cap;
    /* what the provider answered to atomic_max, + 1 (0: not asked yet) */
    size_t atomic_counts[3][TR_AOP_COUNT][TR_AT_COUNT];
} ofi_ep_t;

/* What every endpoint shares: the provider's description and what follows
 * from it, read-only once ofi_init has returned. */
static struct fi_info *info;
static tr_boot_t boot;
static size_t rx_bytes, inject_max;
static int have_rma, have_atomic, iov_ok, virt_addr, prov_keys;
/* the provider moves data and completes operations on its own (sockets:
 * FI_PROGRESS_AUTO): a process may sleep on the completion queue's wait
 * object while its operations are in flight, as their completions ring it */
static int auto_progress;
static int published;            /* started by every process together, address in PMI */
static ofi_ep_t **eps;           /* the endpoints, one per channel */
static int neps, nclosed;

static inline ofi_ep_t *ep_of(tr_iface_t *tr)
{
    return (ofi_ep_t *)tr->priv;
}

/* A new handle for (fa, id); -1 when out of memory. */
static long peer_new(ofi_ep_t *e, fi_addr_t fa, int32_t id)
{
    if (e->npeers == e->peers_cap) {
        size_t cap = e->peers_cap ? 2 * e->peers_cap : 64;
        ofi_peer_t *p = realloc(e->peers, cap * sizeof *p);
        if (!p) return -1;
        e->peers = p;
        e->peers_cap = cap;
    }
    e->peers[e->npeers] = (ofi_peer_t){ fa, id };
    return (long)e->npeers++;
}

static void ofi_fail(const char *what, int rc)
{
    fprintf(stderr, "courier: libfabric (%s): %s failed: %s\n", prov_name, what,
            fi_strerror(-rc));
}

static int post_recv(ofi_ep_t *e, ofi_op_t *op)
{
    op->kind = OP_RECV;
    ssize_t rc;
    do {
        rc = fi_recv(e->ep, &op->wire, sizeof(ofi_wire_t) + rx_bytes, NULL, FI_ADDR_UNSPEC, op);
        if (rc == -FI_EAGAIN) fi_cq_read(e->cq, NULL, 0);
    } while (rc == -FI_EAGAIN);
    return (int)rc;
}

/* The PMI key of peer's endpoint of channel index: channel 0's keeps the
 * name it had when there was one endpoint per process. */
static void key_of(int peer, int index, char *key, size_t n)
{
    if (index == 0) snprintf(key, n, "courier-ofi-%d", peer);
    else snprintf(key, n, "courier-ofi-%d.%d", peer, index);
}

static tr_status_t ofi_connect(tr_iface_t *tr, int peer, uint64_t *addr)
{
    ofi_ep_t *e = ep_of(tr);
    unsigned char name[512];
    char key[64], hex[2 * sizeof name + 1];
    /* this process itself too: one-sided atomics on its own window go
     * through the network when origins on other nodes use it (src/rma/net.c) */
    if (!published) return TR_ERR_UNREACHABLE;
    key_of(peer, e->index, key, sizeof key);
    if (boot.get(peer, key, hex, sizeof hex) != 0) {
        fprintf(stderr, "courier: no network address of peer %d (PMI key %s)\n", peer, key);
        return TR_ERR_UNREACHABLE;
    }
    size_t n = strlen(hex) / 2;
    if (n > sizeof name) return TR_ERR_UNREACHABLE;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return TR_ERR_UNREACHABLE;
        name[i] = (unsigned char)v;
    }
    fi_addr_t fa;
    int rc = fi_av_insert(e->av, name, 1, &fa, 0, NULL);
    if (rc != 1) {
        fprintf(stderr, "courier: libfabric (%s): cannot insert peer %d's address: %d\n",
                prov_name, peer, rc);
        return TR_ERR_UNREACHABLE;
    }
    long h = peer_new(e, fa, boot.rank);
    if (h < 0) return TR_ERR_NO_MEMORY;
    *addr = (uint64_t)h;
    return TR_OK;
}

static tr_status_t ofi_my_address(tr_iface_t *tr, void *addr, size_t *len)
{
    size_t n = TR_ADDR_MAX;
    int rc = fi_getname(&ep_of(tr)->ep->fid, addr, &n);
    if (rc) {
        ofi_fail("fi_getname", rc);
        return TR_ERR_IO;
    }
    *len = n;
    return TR_OK;
}

static tr_status_t ofi_add_peer(tr_iface_t *tr, const void *addr, size_t len, int32_t id,
                                uint64_t *handle)
{
    (void)len;
    ofi_ep_t *e = ep_of(tr);
    fi_addr_t fa;
    int rc = fi_av_insert(e->av, addr, 1, &fa, 0, NULL);
    if (rc != 1) {
        fprintf(stderr, "courier: libfabric (%s): cannot insert a dynamic peer's address: %d\n",
                prov_name, rc);
        return TR_ERR_UNREACHABLE;
    }
    long h = peer_new(e, fa, id);
    if (h < 0) return TR_ERR_NO_MEMORY;
    *handle = (uint64_t)h;
    return TR_OK;
}

static tr_status_t send_copy(ofi_ep_t *e, uint64_t addr, const tr_am_hdr_t *hdr,
                             const void *payload, size_t len)
{
    const ofi_peer_t *to = &e->peers[addr];
    size_t total = sizeof(ofi_wire_t) + len;
    if (total <= inject_max) {
        char buf[sizeof(ofi_wire_t) + 256];
        ofi_wire_t *w = (ofi_wire_t *)(void *)buf;
        w->peer = to->id;
        w->len = (uint32_t)len;
        w->am = *hdr;
        if (len) memcpy(buf + sizeof *w, payload, len);
        ssize_t rc = fi_inject(e->ep, buf, total, to->fa);
        if (rc == -FI_EAGAIN) return TR_ERR_NO_RESOURCE;
        return rc ? TR_ERR_IO : TR_OK;
    }
    ofi_op_t *op = malloc(sizeof *op + len);
    if (!op) return TR_ERR_NO_MEMORY;
    op->kind = OP_SEND_COPY;
    op->wire.peer = to->id;
    op->wire.len = (uint32_t)len;
    op->wire.am = *hdr;
    if (len) memcpy(op->data, payload, len);
    ssize_t rc = fi_send(e->ep, &op->wire, total, NULL, to->fa, op);
    if (rc) {
        free(op);
        return rc == -FI_EAGAIN ? TR_ERR_NO_RESOURCE : TR_ERR_IO;
    }
    e->outstanding++;
    return TR_OK;
}

static tr_status_t ofi_am_short(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                                const void *payload, size_t len)
{
    return send_copy(ep_of(tr), addr, hdr, payload, len);
}

static tr_status_t ofi_am_bulk(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                               const void *payload, size_t len, tr_comp_t *comp)
{
    ofi_ep_t *e = ep_of(tr);
    if (!iov_ok || sizeof(ofi_wire_t) + len <= inject_max)
        return send_copy(e, addr, hdr, payload, len);
    const ofi_peer_t *to = &e->peers[addr];
    ofi_op_t *op = malloc(sizeof *op);
    if (!op) return TR_ERR_NO_MEMORY;
    op->kind = OP_SEND_BULK;
    op->comp = comp;
    op->wire.peer = to->id;
    op->wire.len = (uint32_t)len;
    op->wire.am = *hdr;
    struct iovec iov[2] = { { &op->wire, sizeof op->wire }, { (void *)payload, len } };
    ssize_t rc = fi_sendv(e->ep, iov, NULL, 2, to->fa, op);
    if (rc) {
        free(op);
        return rc == -FI_EAGAIN ? TR_ERR_NO_RESOURCE : TR_ERR_IO;
    }
    e->outstanding++;
    return TR_INPROGRESS;
}

/* Remote keys: w[0] the address the peer names (0-based without
 * FI_MR_VIRT_ADDR), w[1] the registration key, w[2] the owner's registration. */
static tr_status_t ofi_mem_key(tr_iface_t *tr, void *buf, size_t len, tr_rkey_t *key)
{
    ofi_ep_t *e = ep_of(tr);
    struct fid_mr *mr;
    if (!have_rma) return TR_ERR_UNSUPPORTED;
    /* where the provider does not choose keys, each registration needs its
     * own (in its domain: the peer reads through the same channel) */
    uint64_t want = prov_keys ? 0 : ++e->next_key;
    int rc = fi_mr_reg(e->domain, buf, len, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, want, 0, &mr, NULL);
    if (rc) {
        ofi_fail("fi_mr_reg", rc);
        return TR_ERR_IO;
    }
    key->w[0] = virt_addr ? (uint64_t)(uintptr_t)buf : 0;
    key->w[1] = fi_mr_key(mr);
    key->w[2] = (uint64_t)(uintptr_t)mr;
    return TR_OK;
}

static void ofi_mem_release(tr_iface_t *tr, tr_rkey_t *key)
{
    (void)tr;
    if (key->w[2]) fi_close(&((struct fid_mr *)(uintptr_t)key->w[2])->fid);
    key->w[2] = 0;
}

/* Start a read or a write: -FI_EAGAIN (retry later), 0, or another error. */
static ssize_t rma_post(ofi_ep_t *e, ofi_op_t *op)
{
    if (op->kind == OP_READ)
        return fi_read(e->ep, op->local, op->len, NULL, op->addr, op->raddr, op->rkey, op);
    /* delivery complete: when the write completes, the bytes are in the peer's
     * memory, so a message sent after it (an unlock) cannot overtake them */
    struct iovec iov = { op->local, op->len };
    struct fi_rma_iov riov = { op->raddr, op->len, op->rkey };
    struct fi_msg_rma msg = { .msg_iov = &iov, .desc = NULL, .iov_count = 1, .addr = op->addr,
                              .rma_iov = &riov, .rma_iov_count = 1, .context = op, .data = 0 };
    return fi_writemsg(e->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
}

static int rma_retry(ofi_ep_t *e, ofi_op_t *op)
{
    ssize_t rc = rma_post(e, op);
    if (rc == -FI_EAGAIN) return 1;
    if (rc) {
        ofi_fail(op->kind == OP_READ ? "fi_read" : "fi_writemsg", (int)rc);
        op->comp->cb(op->comp, TR_ERR_IO);
        free(op);
        return 0;
    }
    e->outstanding++;
    return 0;
}

/* A read (get) or a write (put) of len bytes between local and offset off of
 * the peer's registration key. */
static tr_status_t rma_start(ofi_ep_t *e, int kind, uint64_t addr, void *local, size_t len,
                             const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    if (!have_rma) return TR_ERR_UNSUPPORTED;
    ofi_op_t *op = malloc(sizeof *op);
    if (!op) return TR_ERR_NO_MEMORY;
    op->kind = kind;
    op->comp = comp;
    op->local = local;
    op->len = len;
    op->addr = e->peers[addr].fa;
    op->raddr = key->w[0] + off;
    op->rkey = key->w[1];
    op->next = NULL;
    ssize_t rc = rma_post(e, op);
    if (rc == -FI_EAGAIN) {
        /* retried by progress(): the completion still comes from there */
        if (e->retry_tail) e->retry_tail->next = op; else e->retry_head = op;
        e->retry_tail = op;
        return TR_INPROGRESS;
    }
    if (rc) {
        ofi_fail(kind == OP_READ ? "fi_read" : "fi_writemsg", (int)rc);
        free(op);
        return TR_ERR_IO;
    }
    e->outstanding++;
    return TR_INPROGRESS;
}

static tr_status_t ofi_get(tr_iface_t *tr, uint64_t addr, void *local, size_t len,
                           const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    return rma_start(ep_of(tr), OP_READ, addr, local, len, key, off, comp);
}

static tr_status_t ofi_put(tr_iface_t *tr, uint64_t addr, const void *local, size_t len,
                           const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    return rma_start(ep_of(tr), OP_WRITE, addr, (void *)local, len, key, off, comp);
}

/* ---- atomics ------------------------------------------------------------------- */
static const enum fi_op aop_fi[TR_AOP_COUNT] = {
    [TR_AOP_SUM] = FI_SUM, [TR_AOP_PROD] = FI_PROD, [TR_AOP_MIN] = FI_MIN, [TR_AOP_MAX] = FI_MAX,
    [TR_AOP_LAND] = FI_LAND, [TR_AOP_LOR] = FI_LOR, [TR_AOP_LXOR] = FI_LXOR,
    [TR_AOP_BAND] = FI_BAND, [TR_AOP_BOR] = FI_BOR, [TR_AOP_BXOR] = FI_BXOR,
    [TR_AOP_READ] = FI_ATOMIC_READ, [TR_AOP_WRITE] = FI_ATOMIC_WRITE, [TR_AOP_CSWAP] = FI_CSWAP,
};
static const enum fi_datatype at_fi[TR_AT_COUNT] = {
    [TR_AT_I8] = FI_INT8, [TR_AT_U8] = FI_UINT8, [TR_AT_I16] = FI_INT16, [TR_AT_U16] = FI_UINT16,
    [TR_AT_I32] = FI_INT32, [TR_AT_U32] = FI_UINT32, [TR_AT_I64] = FI_INT64,
    [TR_AT_U64] = FI_UINT64, [TR_AT_F32] = FI_FLOAT, [TR_AT_F64] = FI_DOUBLE,
};
static size_t ofi_atomic_max(tr_iface_t *tr, tr_aop_t op, tr_atype_t type, int form)
{
    ofi_ep_t *e = ep_of(tr);
    if (!have_atomic || form < 0 || form > 2 || op >= TR_AOP_COUNT || type >= TR_AT_COUNT)
        return 0;
    size_t *c = &e->atomic_counts[form][op][type];
    if (*c) return *c - 1;
    struct fi_atomic_attr attr = { 0, 0 };
    uint64_t flags = form == TR_ATOMIC_FETCH ? FI_FETCH_ATOMIC
                     : form == TR_ATOMIC_COMPARE ? FI_COMPARE_ATOMIC : 0;
    int rc = fi_query_atomic(e->domain, at_fi[type], aop_fi[op], &attr, flags);
    size_t n = rc == 0 ? attr.count : 0;
    if (rc == -FI_ENOSYS) {     /* a provider that only answers on the endpoint */
        n = 0;
        struct fid_ep *ep = e->ep;
        rc = form == TR_ATOMIC_FETCH ? fi_fetch_atomicvalid(ep, at_fi[type], aop_fi[op], &n)
             : form == TR_ATOMIC_COMPARE ? fi_compare_atomicvalid(ep, at_fi[type], aop_fi[op], &n)
                                         : fi_atomicvalid(ep, at_fi[type], aop_fi[op], &n);
        if (rc) n = 0;
    }
    *c = n + 1;
    return n;
}

/* The most pieces of the peer's memory one vector atomic names: the
 * provider's rma_iov_limit, at most TR_ASEG_MAX. */
static size_t aseg_max;

static tr_status_t ofi_atomicv(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                               const void *operand, const void *compare, void *result,
                               const tr_aseg_t *segs, size_t nseg, const tr_rkey_t *key,
                               tr_comp_t *comp)
{
    ofi_ep_t *e = ep_of(tr);
    if (!have_atomic) return TR_ERR_UNSUPPORTED;
    if (nseg < 1 || nseg > aseg_max) return TR_ERR_IO;
    struct fi_rma_ioc riov[TR_ASEG_MAX];
    size_t count = 0;
    for (size_t i = 0; i < nseg; i++) {
        riov[i] = (struct fi_rma_ioc){ key->w[0] + segs[i].off, segs[i].count, key->w[1] };
        count += segs[i].count;
    }
    ofi_op_t *o = malloc(sizeof *o);
    if (!o) return TR_ERR_NO_MEMORY;
    o->kind = OP_ATOMIC;
    o->comp = comp;
    /* the elements of every piece in one local buffer each; a read has no
     * operand, but some providers look at the buffer anyway */
    struct fi_ioc iov = { (void *)(operand ? operand : result), count };
    struct fi_msg_atomic msg = { .msg_iov = &iov, .desc = NULL, .iov_count = 1,
                                 .addr = e->peers[addr].fa, .rma_iov = riov, .rma_iov_count = nseg,
                                 .datatype = at_fi[type], .op = aop_fi[op], .context = o,
                                 .data = 0 };
    struct fi_ioc cmp = { (void *)compare, count }, res = { result, count };
    ssize_t rc;
    if (compare)
        rc = fi_compare_atomicmsg(e->ep, &msg, &cmp, NULL, 1, &res, NULL, 1, FI_COMPLETION);
    else if (result)
        rc = fi_fetch_atomicmsg(e->ep, &msg, &res, NULL, 1, FI_COMPLETION);
    else    /* delivery complete: done at the peer when it completes (as writes) */
        rc = fi_atomicmsg(e->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
    if (rc) {
        free(o);
        if (rc == -FI_EAGAIN) return TR_ERR_NO_RESOURCE;
        ofi_fail("fi_atomic", (int)rc);
        return TR_ERR_IO;
    }
    e->outstanding++;
    return TR_INPROGRESS;
}

static tr_status_t ofi_atomic(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                              const void *operand, const void *compare, void *result,
                              size_t count, const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    tr_aseg_t seg = { off, count };
    return ofi_atomicv(tr, addr, op, type, operand, compare, result, &seg, 1, key, comp);
}

static int flushes_done(ofi_ep_t *e);

static int ofi_progress(tr_iface_t *tr)
{
    ofi_ep_t *e = ep_of(tr);
    struct fi_cq_msg_entry ent[16];
    int events = 0;
    while (e->retry_head && rma_retry(e, e->retry_head) == 0) {
        ofi_op_t *op = e->retry_head;
        e->retry_head = op->next;
        if (!e->retry_head) e->retry_tail = NULL;
        events++;
    }
    for (;;) {
        ssize_t n = fi_cq_read(e->cq, ent, 16);
        if (n == -FI_EAGAIN || n == 0) break;
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err;
            memset(&err, 0, sizeof err);
            fi_cq_readerr(e->cq, &err, 0);
            fprintf(stderr, "courier: libfabric (%s): an operation failed: %s\n", prov_name,
                    fi_strerror(err.err));
            ofi_op_t *op = err.op_context;
            if (op && (op->kind == OP_SEND_BULK || op->kind == OP_READ || op->kind == OP_WRITE ||
                       op->kind == OP_ATOMIC)) {
                e->outstanding--;
                op->comp->cb(op->comp, TR_ERR_IO);
                free(op);
            }
            events++;
            continue;
        }
        if (n < 0) {
            ofi_fail("fi_cq_read", (int)n);
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            ofi_op_t *op = ent[i].op_context;
            switch (op->kind) {
            case OP_RECV:
                if (!e->closing) {
                    tr_am_rx_t m = { .hdr = op->wire.am, .len = op->wire.len,
                                     .p = { op->data, NULL }, .n = { op->wire.len, 0 } };
                    tr->am_handler(tr->am_arg, op->wire.peer, &m);
                }
                post_recv(e, op);
                break;
            case OP_SEND_COPY:
                e->outstanding--;
                free(op);
                break;
            default:            /* bulk send, read, write, atomic */
                e->outstanding--;
                op->comp->cb(op->comp, TR_OK);
                free(op);
                break;
            }
            events++;
        }
        /* fewer than asked for: the queue was empty a moment ago.  Another
         * read would be one more system call (tcp's progress is an
         * epoll_wait) between a message that arrived and the caller who
         * waits for it; the next poll takes what came since. */
        if (n < (ssize_t)(sizeof ent / sizeof *ent)) break;
    }
    return events + flushes_done(e);
}

/* Flushes wait for every outstanding operation of the endpoint (not only
 * addr's): simple and enough for the finalize-like uses flush has. */
static tr_status_t ofi_flush(tr_iface_t *tr, uint64_t addr, tr_comp_t *comp)
{
    (void)addr;
    ofi_ep_t *e = ep_of(tr);
    if (!e->outstanding && !e->retry_head) return TR_OK;
    ofi_flush_t *f = malloc(sizeof *f);
    if (!f) return TR_ERR_NO_MEMORY;
    f->comp = comp;
    f->next = e->flushes;
    e->flushes = f;
    return TR_INPROGRESS;
}

static int flushes_done(ofi_ep_t *e)
{
    int n = 0;
    while (e->flushes && !e->outstanding && !e->retry_head) {
        ofi_flush_t *f = e->flushes;
        e->flushes = f->next;
        f->comp->cb(f->comp, TR_OK);
        free(f);
        n++;
    }
    return n;
}

/* Close one endpoint and everything it owns (also a half-opened one). */
static void ep_close(ofi_ep_t *e)
{
    if (e->ep) fi_close(&e->ep->fid);
    if (e->av) fi_close(&e->av->fid);
    if (e->cq) fi_close(&e->cq->fid);
    if (e->wset) fi_close(&e->wset->fid);
    for (int i = 0; i < e->nrx; i++) free(e->rx[i]);
    free(e->rx);
    if (e->domain) fi_close(&e->domain->fid);
    if (e->fabric) fi_close(&e->fabric->fid);
    free(e->peers);
    free(e);
}

/* Close every endpoint and forget the provider. */
static void close_all(void)
{
    for (int i = 0; i < neps; i++)
        if (eps[i]) ep_close(eps[i]);
    free(eps);
    eps = NULL;
    neps = nclosed = 0;
    if (info) fi_freeinfo(info);
    info = NULL;
    published = 0;
}

/* Every send this process started completes before the endpoints close, and
 * nobody closes before everybody has flushed (a peer may still be receiving
 * the last messages of MPI_Finalize's barrier).  The core finalizes each
 * channel's endpoint; the last of them meets the other processes and closes
 * them all. */
static void ofi_finalize(tr_iface_t *tr)
{
    ofi_ep_t *e = ep_of(tr);
    e->closing = 1;
    while (e->outstanding > 0 || e->retry_head) ofi_progress(tr);
    if (++nclosed < neps) return;
    if (published) boot.barrier();
    close_all();
}

/* Sleeping (transport.h): only with nothing of ours in flight (a send or read
 * may need this process to drive it, which no arriving message signals),
 * unless the provider progresses by itself (auto_progress: sockets' own
 * thread completes them and its completions make the descriptor readable;
 * a waiting process that yields instead takes the core that thread needs), and
 * only when fi_trywait says that every completion and every byte that arrived
 * has been taken (else the caller polls again first).  Without a wait object
 * the sleep cannot be ended by a peer: it lasts at most
 * COURIER_WAIT_SLEEP_POLL_US. */
static int ofi_sleep_prepare(tr_iface_t *tr)
{
    ofi_ep_t *e = ep_of(tr);
    if ((e->outstanding && !auto_progress) || e->retry_head || e->flushes) return -1;
    if (e->wait_fd < 0) return 0;
    struct fid *fids[1] = { &e->cq->fid };
    if (fi_trywait(e->fabric, fids, 1) != FI_SUCCESS) return -1;
    /* fi_wait with no time lowers the wait set's signal, which the provider
     * raises at every completion: net's fi_trywait does not look at it, and
     * the descriptor would stay readable, the sleep spinning.  It answers
     * -FI_ETIMEDOUT when nothing is pending. */
    return !e->wset || fi_wait(e->wset, 0) == -FI_ETIMEDOUT ? 0 : -1;
}

static void ofi_sleep_wait(tr_iface_t *tr, long max_us)
{
    int fd = ep_of(tr)->wait_fd;
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    if (fd < 0 && max_us > ut_settings.wait_sleep_poll_us) max_us = ut_settings.wait_sleep_poll_us;
    struct timespec ts = { max_us / 1000000, (max_us % 1000000) * 1000 };
    ppoll(&pfd, fd < 0 ? 0 : 1, &ts, NULL);
}

static int ofi_sleep_fd(tr_iface_t *tr)
{
    return ep_of(tr)->wait_fd;
}

static const tr_ops_t ofi_ops = {
    .name = "ofi",
    .connect = ofi_connect,
    .my_address = ofi_my_address,
    .add_peer = ofi_add_peer,
    .am_short = ofi_am_short,
    .am_bulk = ofi_am_bulk,
    .mem_key = ofi_mem_key,
    .mem_release = ofi_mem_release,
    .get = ofi_get,
    .put = ofi_put,
    .atomic_max = ofi_atomic_max,
    .atomic = ofi_atomic,
    .atomicv = ofi_atomicv,
    .progress = ofi_progress,
    .flush = ofi_flush,
    .sleep_prepare = ofi_sleep_prepare,
    .sleep_wait = ofi_sleep_wait,
    .sleep_cancel = tr_stub_sleep_cancel,    /* nothing was announced */
    .sleep_fd = ofi_sleep_fd,
    .sleep_wake = tr_stub_sleep_wake,       /* threads never sleep on it (progress.c) */
    .finalize = ofi_finalize,
};

/* Every RDM provider with send-after-send ordering and the memory modes we
 * handle, offering caps; NULL when none. */
static struct fi_info *offered(uint64_t caps)
{
    struct fi_info *hints = fi_allocinfo(), *list = NULL;
    if (!hints) return NULL;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = caps;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    return rc ? NULL : list;
}

/* The provider COURIER_OFI_PROVIDER asks for (NULL: any). */
static const char *wanted_provider(void)
{
    const char *w = (const char *)(intptr_t)ut_settings.ofi_provider;
    return w && *w ? w : NULL;
}

/* Whether provider name prov ("tcp;ofi_rxm") is the one asked for: the
 * whole name, or one of its layers ("tcp", "ofi_rxm"). */
static int provider_matches(const char *prov, const char *want)
{
    if (!want) return 1;
    size_t n = strlen(want);
    for (const char *p = prov; p; p = strchr(p, ';')) {
        if (*p == ';') p++;
        if (!strncmp(p, want, n) && (p[n] == '\0' || p[n] == ';')) return 1;
    }
    return !strcmp(prov, want);
}

/* The TCP provider's own reliable-datagram endpoint where libfabric would
 * take rxm over TCP: rxm's layering costs a small message about 2 us of a
 * half round trip over TCP (docs/performance.md, "small messages over
 * libfabric"), and libfabric 1.17 lists the endpoint that avoids it, its net
 * provider (1.18 renamed it tcp), after tcp;ofi_rxm.  The same
 * interface and address family only: NULL where there is none. */
static const char *const tcp_native_names[] = { "net", "tcp" };

static int is_tcp_native(const char *prov)
{
    for (size_t k = 0; k < sizeof tcp_native_names / sizeof *tcp_native_names; k++)
        if (!strcmp(prov, tcp_native_names[k])) return 1;
    return 0;
}

static struct fi_info *tcp_native(struct fi_info *list, const struct fi_info *pick)
{
    if (strcmp(pick->fabric_attr->prov_name, "tcp;ofi_rxm") != 0) return NULL;
    for (struct fi_info *i = list; i; i = i->next)
        if (is_tcp_native(i->fabric_attr->prov_name) &&
            !strcmp(i->domain_attr->name, pick->domain_attr->name) &&
            !strcmp(i->fabric_attr->name, pick->fabric_attr->name))
            return i;
    return NULL;
}

/* The first of them that can reach other hosts (libfabric's own shm provider
 * cannot) and is the one COURIER_OFI_PROVIDER names, if set; unset and with
 * COURIER_OFI_TCP_NATIVE on, the TCP provider's own endpoint rather than rxm
 * over it. */
static struct fi_info *choose(uint64_t caps)
{
    struct fi_info *list = offered(caps);
    if (!list) return NULL;
    struct fi_info *pick = NULL;
    const char *want = wanted_provider();
    for (struct fi_info *i = list; i && !pick; i = i->next)
        if (strcmp(i->fabric_attr->prov_name, "shm") != 0 &&
            provider_matches(i->fabric_attr->prov_name, want))
            pick = i;
    if (pick && !want && ut_settings.ofi_tcp_native) {
        struct fi_info *native = tcp_native(list, pick);
        if (native) pick = native;
    }
    struct fi_info *dup = pick ? fi_dupinfo(pick) : NULL;
    fi_freeinfo(list);
    return dup;
}

static int same_place(const struct fi_info *a, const struct fi_info *b)
{
    return !strcmp(a->fabric_attr->prov_name, b->fabric_attr->prov_name) &&
           !strcmp(a->domain_attr->name, b->domain_attr->name) &&
           !strcmp(a->fabric_attr->name, b->fabric_attr->name);
}

void ofi_print_providers(FILE *out)
{
    uint64_t rma = FI_MSG | FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    struct fi_info *list = offered(rma), *msg = offered(FI_MSG), *atom = offered(rma | FI_ATOMIC);
    struct fi_info *pick = choose(rma);
    if (!pick) pick = choose(FI_MSG);
    fprintf(out, "libfabric %u.%u: reliable-datagram providers with ordered messages:\n",
            FI_MAJOR(fi_version()), FI_MINOR(fi_version()));
    for (struct fi_info *i = msg; i; i = i->next) {
        int seen = 0, has_rma = 0, has_atomic = 0;
        for (struct fi_info *j = msg; j != i; j = j->next)   /* one line per place */
            if (same_place(i, j)) seen = 1;
        if (seen) continue;
        for (struct fi_info *j = list; j; j = j->next)
            if (same_place(i, j)) has_rma = 1;
        for (struct fi_info *j = atom; j; j = j->next)
            if (same_place(i, j)) has_atomic = 1;
        fprintf(out, "  %-16s %-10s %-24s%s%s%s\n", i->fabric_attr->prov_name,
                i->domain_attr->name, i->fabric_attr->name, has_rma ? " rma" : "",
                has_atomic ? " atomic" : "", pick && same_place(pick, i) ? "   <- used" : "");
    }
    if (!msg) fprintf(out, "  none (FI_PROVIDER=%s)\n", getenv("FI_PROVIDER") ? getenv("FI_PROVIDER") : "");
    else if (!pick && wanted_provider())
        fprintf(out, "  none of them is COURIER_OFI_PROVIDER=\"%s\"\n", wanted_provider());
    if (list) fi_freeinfo(list);
    if (atom) fi_freeinfo(atom);
    if (msg) fi_freeinfo(msg);
    if (pick) fi_freeinfo(pick);
}

/* Open the completion queue with a descriptor to sleep on where the provider
 * offers one (and COURIER_OFI_WAIT allows), else without a wait object. */
static int cq_open(ofi_ep_t *e, struct fi_cq_attr *attr)
{
    e->wait_fd = -1;
    if (ut_settings.ofi_wait) {
        /* the TCP provider's own endpoint: a wait set of our own, as fi_wait
         * on it lowers the signal its fi_trywait leaves raised
         * (ofi_sleep_prepare); the others keep the queue's own wait object
         * (sockets' progress thread does not wake a sleeper on a wait set) */
        struct fi_wait_attr wattr = { .wait_obj = FI_WAIT_FD };
        if (is_tcp_native(prov_name) && fi_wait_open(e->fabric, &wattr, &e->wset) == 0) {
            int fd = -1;
            attr->wait_obj = FI_WAIT_SET;
            attr->wait_set = e->wset;
            if (fi_control(&e->wset->fid, FI_GETWAIT, &fd) == 0 && fd >= 0 &&
                fi_cq_open(e->domain, attr, &e->cq, NULL) == 0) {
                e->wait_fd = fd;
                return 0;
            }
            attr->wait_set = NULL;
            fi_close(&e->wset->fid);
            e->wset = NULL;
        }
        attr->wait_obj = FI_WAIT_FD;
        if (fi_cq_open(e->domain, attr, &e->cq, NULL) == 0) {
            int fd = -1;
            if (fi_control(&e->cq->fid, FI_GETWAIT, &fd) == 0 && fd >= 0) {
                e->wait_fd = fd;
                return 0;
            }
            fi_close(&e->cq->fid);   /* a wait object without a descriptor (udp;ofi_rxd) */
            e->cq = NULL;
        }
    }
    attr->wait_obj = FI_WAIT_NONE;
    return fi_cq_open(e->domain, attr, &e->cq, NULL);
}

/* Open the endpoint of channel index with its receives posted; its name goes
 * to e->name (published by ofi_init).  NULL with a message on stderr.  Runs
 * on the thread of ofi_open_begin or in ofi_init; touches this file's state
 * only. */
static ofi_ep_t *ep_open(int index)
{
    ofi_ep_t *e = calloc(1, sizeof *e);
    if (!e) return NULL;
    e->index = index;
    e->wait_fd = -1;
    struct fi_cq_attr cq_attr = { .size = 1024, .format = FI_CQ_FORMAT_MSG };
    struct fi_av_attr av_attr = { .type = FI_AV_UNSPEC };
    int rc;
    if ((rc = fi_fabric(info->fabric_attr, &e->fabric, NULL)) != 0 ||
        (rc = fi_domain(e->fabric, info, &e->domain, NULL)) != 0 ||
        (rc = cq_open(e, &cq_attr)) != 0 ||
        (rc = fi_av_open(e->domain, &av_attr, &e->av, NULL)) != 0 ||
        (rc = fi_endpoint(e->domain, info, &e->ep, NULL)) != 0 ||
        (rc = fi_ep_bind(e->ep, &e->av->fid, 0)) != 0 ||
        (rc = fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV)) != 0 ||
        (rc = fi_enable(e->ep)) != 0) {
        ofi_fail("opening the endpoint", rc);
        ep_close(e);
        return NULL;
    }
    int nrx = ut_settings.ofi_rx_count > 0 ? (int)ut_settings.ofi_rx_count : 1;
    e->rx = calloc((size_t)nrx, sizeof *e->rx);
    if (!e->rx) {
        ep_close(e);
        return NULL;
    }
    for (int i = 0; i < nrx; i++) {
        ofi_op_t *op = malloc(sizeof(ofi_op_t) + rx_bytes);
        if (op) e->rx[e->nrx++] = op;
        if (!op || post_recv(e, op) != 0) {
            fprintf(stderr, "courier: libfabric (%s): cannot post receives\n", prov_name);
            ep_close(e);
            return NULL;
        }
    }
    e->name_len = sizeof e->name;
    if ((rc = fi_getname(&e->ep->fid, e->name, &e->name_len)) != 0) {
        ofi_fail("fi_getname", rc);
        ep_close(e);
        return NULL;
    }
    e->iface.ops = &ofi_ops;
    e->iface.caps.max_short = rx_bytes;
    e->iface.caps.max_bulk = rx_bytes;
    size_t eager = (size_t)ut_settings.eager_limit;
    e->iface.caps.eager_max = eager < rx_bytes ? eager : rx_bytes;
    e->iface.caps.atomic_segs = have_atomic ? aseg_max : 0;
    /* rxm, rxd and sockets execute atomics in the target's process with
     * libfabric's util_atomic.c, which uses the compiler's atomic builtins */
    int cpu_atomics = strstr(prov_name, "ofi_rxm") || strstr(prov_name, "ofi_rxd") ||
                      strcmp(prov_name, "sockets") == 0;
    e->iface.caps.flags = TR_CAP_ORDERED | (have_rma ? TR_CAP_GET | TR_CAP_ONESIDED : 0) |
                          (have_atomic ? TR_CAP_ATOMIC : 0) |
                          (have_atomic && cpu_atomics ? TR_CAP_ATOMIC_CPU : 0) |
                          (ut_settings.ofi_wait ? TR_CAP_SLEEP : 0);
    e->iface.priv = e;
    return e;
}

/* Choose the provider and open n endpoints into eps.  0, or -1 with a
 * message on stderr (nothing left open). */
static int open_all(int n)
{
    have_rma = 1;
    have_atomic = 0;
    uint64_t rma = FI_MSG | FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    info = choose(rma);
    if (!info) {
        have_rma = 0;
        info = choose(FI_MSG);
    }
    /* the same provider with atomics, where it has them (never another one) */
    struct fi_info *atom = have_rma ? choose(rma | FI_ATOMIC) : NULL;
    if (atom && same_place(atom, info)) {
        fi_freeinfo(info);
        info = atom;
        have_atomic = 1;
    } else if (atom) {
        fi_freeinfo(atom);
    }
    if (!info) {
        const char *want = wanted_provider();
        fprintf(stderr, "courier: libfabric offers no reliable-datagram provider with ordered "
                        "messages%s%s%s (FI_PROVIDER=%s; courier_info lists the providers found)\n",
                want ? " named by COURIER_OFI_PROVIDER=\"" : "", want ? want : "", want ? "\"" : "",
                getenv("FI_PROVIDER") ? getenv("FI_PROVIDER") : "");
        return -1;
    }
    snprintf(prov_name, sizeof prov_name, "%s", info->fabric_attr->prov_name);
    virt_addr = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
    /* net reports FI_PROGRESS_AUTO but starts no thread of its own for a
     * queue with a wait object: its sends move only when we call it */
    auto_progress = info->domain_attr->data_progress == FI_PROGRESS_AUTO &&
                    !is_tcp_native(prov_name);
    prov_keys = (info->domain_attr->mr_mode & FI_MR_PROV_KEY) != 0;
    iov_ok = info->tx_attr->iov_limit >= 2;
    inject_max = info->tx_attr->inject_size;
    if (inject_max > sizeof(ofi_wire_t) + 256) inject_max = sizeof(ofi_wire_t) + 256;
    rx_bytes = (size_t)ut_settings.ofi_rx_bytes;
    if (rx_bytes < 256) rx_bytes = 256;
    aseg_max = info->tx_attr->rma_iov_limit < TR_ASEG_MAX ? info->tx_attr->rma_iov_limit
                                                            : TR_ASEG_MAX;
    if (!aseg_max) aseg_max = 1;
    eps = calloc((size_t)n, sizeof *eps);
    if (!eps) {
        close_all();
        return -1;
    }
    neps = n;
    nclosed = 0;
    for (int i = 0; i < n; i++) {
        eps[i] = ep_open(i);
        if (!eps[i]) {
            close_all();
            return -1;
        }
    }
    return 0;
}

/* libfabric's rxm layer (tcp;ofi_rxm, verbs;ofi_rxm) zeroes, for every
 * endpoint, buffer pools of 1024 buffers of FI_OFI_RXM_BUFFER_SIZE payload
 * bytes (16 KiB by default): 68 MB and about 17000 page faults per process
 * while MPI_Init waits, more than the rest of libfabric's start.  Courier's
 * largest eager message to another node is its eager limit (at most the
 * receive buffer) plus the 32-byte wire header, so rxm's buffers need not be
 * larger: unless the user set FI_OFI_RXM_BUFFER_SIZE, it is set to that, at
 * least RXM_MIN_BUFFER (rxm's atomics and control messages) and only when
 * below rxm's default.  Larger active messages (the pipeline of providers
 * without RMA) still go, segmented, through rxm.  Called before libfabric
 * reads its parameters (its first call), before the thread that opens it. */
enum { RXM_MIN_BUFFER = 4096, RXM_DEFAULT_BUFFER = 16384 };

static void rxm_buffer_default(void)
{
    static int done;
    if (done || getenv("FI_OFI_RXM_BUFFER_SIZE")) return;
    done = 1;
    size_t eager = (size_t)ut_settings.eager_limit, rxb = (size_t)ut_settings.ofi_rx_bytes;
    size_t want = (eager < rxb ? eager : rxb) + sizeof(ofi_wire_t);
    if (want < RXM_MIN_BUFFER) want = RXM_MIN_BUFFER;
    if (want >= RXM_DEFAULT_BUFFER) return;
    char v[32];
    snprintf(v, sizeof v, "%zu", want);
    setenv("FI_OFI_RXM_BUFFER_SIZE", v, 0);
}

/* The endpoints being opened on a thread (ofi_open_begin), and the result. */
static pthread_t open_tid;
static int open_pending, open_n, open_rc;

static void *open_thread(void *arg)
{
    (void)arg;
    open_rc = open_all(open_n);
    return NULL;
}

int ofi_open_begin(int n)
{
    if (open_pending) return 0;
    if (n < 1) return -1;
    rxm_buffer_default();     /* before the thread: it reads the environment */
    /* libfabric's start takes its time in system calls: let it run beside the
     * rest of MPI_Init */
    open_n = n;
    if (pthread_create(&open_tid, NULL, open_thread, NULL) != 0) return -1;
    open_pending = 1;
    return 0;
}

int ofi_init(const tr_boot_t *b, int publish, int n, tr_iface_t **out)
{
    if (n < 1) return -1;
    boot = *b;
    int rc;
    if (open_pending) {
        pthread_join(open_tid, NULL);
        open_pending = 0;
        rc = open_rc;
        if (rc == 0 && neps != n) {   /* the caller promised the same n */
            close_all();
            rc = -1;
        }
    } else {
        rxm_buffer_default();
        rc = open_all(n);
    }
    if (rc) return -1;
    for (int i = 0; i < n && publish != OFI_ALONE; i++) {
        ofi_ep_t *e = eps[i];
        char key[64], hex[2 * sizeof e->name + 1];
        for (size_t k = 0; k < e->name_len; k++) snprintf(hex + 2 * k, 3, "%02x", e->name[k]);
        key_of(boot.rank, e->index, key, sizeof key);
        if (boot.put(key, hex) != 0) {
            close_all();
            return -1;
        }
    }
    /* every name is in PMI before anyone looks one up */
    if (publish == OFI_PUBLISH && boot.barrier() != 0) {
        close_all();
        return -1;
    }
    published = publish != OFI_ALONE;
    for (int i = 0; i < n; i++) out[i] = &eps[i]->iface;
    return 0;
}
#endif
