/* SPDX-License-Identifier: MIT */
/* The libfabric transport (ofi.h): one RDM endpoint, its completion queue and
 * address vector; active messages, fi_read for get, fi_write (delivery
 * complete) for put, fi_atomic / fi_fetch_atomic / fi_compare_atomic for
 * one-sided atomics, lazy address look-up, and sleeping on the completion
 * queue's wait object. */
#define _GNU_SOURCE
#include "transport/ofi/ofi.h"
#include "util/settings.h"

#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

tr_iface_t ofi_iface;
static char prov_name[64];

const char *ofi_provider_name(void)
{
    return prov_name;
}

#ifndef COURIER_HAVE_OFI
tr_iface_t *ofi_init(const tr_boot_t *boot, int publish)
{
    (void)boot, (void)publish;
    fprintf(stderr, "courier: built without libfabric: no network transport\n");
    return NULL;
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

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_ep *ep;
static struct fid_av *av;
static struct fid_cq *cq;
static tr_boot_t boot;
static ofi_op_t **rx;
static int nrx;
static size_t rx_bytes, inject_max;
static int have_rma, have_atomic, iov_ok, virt_addr, prov_keys;
static uint64_t next_key;
static long outstanding;         /* sends and reads not yet completed */
static int closing;              /* finalize: arriving messages are dropped */
static ofi_op_t *retry_head, *retry_tail;
static int wait_fd = -1;         /* the completion queue's wait object (-1: none) */
static int published;            /* started by every process together, address in PMI */
/* The peers this process sends to: a handle (the core's addr) indexes this
 * table.  id is what the peer calls this process (the wire header's peer):
 * our rank for the job's own processes, the number the peer chose for peers
 * added by address (add_peer). */
typedef struct {
    fi_addr_t fa;
    int32_t id;
} ofi_peer_t;
static ofi_peer_t *peers;
static size_t npeers, peers_cap;

/* A new handle for (fa, id); -1 when out of memory. */
static long peer_new(fi_addr_t fa, int32_t id)
{
    if (npeers == peers_cap) {
        size_t cap = peers_cap ? 2 * peers_cap : 64;
        ofi_peer_t *p = realloc(peers, cap * sizeof *p);
        if (!p) return -1;
        peers = p;
        peers_cap = cap;
    }
    peers[npeers] = (ofi_peer_t){ fa, id };
    return (long)npeers++;
}

static void ofi_fail(const char *what, int rc)
{
    fprintf(stderr, "courier: libfabric (%s): %s failed: %s\n", prov_name, what,
            fi_strerror(-rc));
}

static int post_recv(ofi_op_t *op)
{
    op->kind = OP_RECV;
    ssize_t rc;
    do {
        rc = fi_recv(ep, &op->wire, sizeof(ofi_wire_t) + rx_bytes, NULL, FI_ADDR_UNSPEC, op);
        if (rc == -FI_EAGAIN) fi_cq_read(cq, NULL, 0);
    } while (rc == -FI_EAGAIN);
    return (int)rc;
}

static void key_of(int peer, char *key, size_t n)
{
    snprintf(key, n, "courier-ofi-%d", peer);
}

static tr_status_t ofi_connect(tr_iface_t *tr, int peer, uint64_t *addr)
{
    (void)tr;
    unsigned char name[512];
    char key[64], hex[2 * sizeof name + 1];
    /* this process itself too: one-sided atomics on its own window go
     * through the network when origins on other nodes use it (src/rma/net.c) */
    if (!published) return TR_ERR_UNREACHABLE;
    key_of(peer, key, sizeof key);
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
    int rc = fi_av_insert(av, name, 1, &fa, 0, NULL);
    if (rc != 1) {
        fprintf(stderr, "courier: libfabric (%s): cannot insert peer %d's address: %d\n",
                prov_name, peer, rc);
        return TR_ERR_UNREACHABLE;
    }
    long h = peer_new(fa, boot.rank);
    if (h < 0) return TR_ERR_NO_MEMORY;
    *addr = (uint64_t)h;
    return TR_OK;
}

static tr_status_t ofi_my_address(tr_iface_t *tr, void *addr, size_t *len)
{
    (void)tr;
    size_t n = TR_ADDR_MAX;
    int rc = fi_getname(&ep->fid, addr, &n);
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
    (void)tr, (void)len;
    fi_addr_t fa;
    int rc = fi_av_insert(av, addr, 1, &fa, 0, NULL);
    if (rc != 1) {
        fprintf(stderr, "courier: libfabric (%s): cannot insert a dynamic peer's address: %d\n",
                prov_name, rc);
        return TR_ERR_UNREACHABLE;
    }
    long h = peer_new(fa, id);
    if (h < 0) return TR_ERR_NO_MEMORY;
    *handle = (uint64_t)h;
    return TR_OK;
}

static tr_status_t send_copy(uint64_t addr, const tr_am_hdr_t *hdr, const void *payload,
                             size_t len)
{
    size_t total = sizeof(ofi_wire_t) + len;
    if (total <= inject_max) {
        char buf[sizeof(ofi_wire_t) + 256];
        ofi_wire_t *w = (ofi_wire_t *)(void *)buf;
        w->peer = peers[addr].id;
        w->len = (uint32_t)len;
        w->am = *hdr;
        if (len) memcpy(buf + sizeof *w, payload, len);
        ssize_t rc = fi_inject(ep, buf, total, peers[addr].fa);
        if (rc == -FI_EAGAIN) return TR_ERR_NO_RESOURCE;
        return rc ? TR_ERR_IO : TR_OK;
    }
    ofi_op_t *op = malloc(sizeof *op + len);
    if (!op) return TR_ERR_NO_MEMORY;
    op->kind = OP_SEND_COPY;
    op->wire.peer = peers[addr].id;
    op->wire.len = (uint32_t)len;
    op->wire.am = *hdr;
    if (len) memcpy(op->data, payload, len);
    ssize_t rc = fi_send(ep, &op->wire, total, NULL, peers[addr].fa, op);
    if (rc) {
        free(op);
        return rc == -FI_EAGAIN ? TR_ERR_NO_RESOURCE : TR_ERR_IO;
    }
    outstanding++;
    return TR_OK;
}

static tr_status_t ofi_am_short(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                                const void *payload, size_t len)
{
    (void)tr;
    return send_copy(addr, hdr, payload, len);
}

static tr_status_t ofi_am_bulk(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                               const void *payload, size_t len, tr_comp_t *comp)
{
    (void)tr;
    if (!iov_ok || sizeof(ofi_wire_t) + len <= inject_max) return send_copy(addr, hdr, payload, len);
    ofi_op_t *op = malloc(sizeof *op);
    if (!op) return TR_ERR_NO_MEMORY;
    op->kind = OP_SEND_BULK;
    op->comp = comp;
    op->wire.peer = peers[addr].id;
    op->wire.len = (uint32_t)len;
    op->wire.am = *hdr;
    struct iovec iov[2] = { { &op->wire, sizeof op->wire }, { (void *)payload, len } };
    ssize_t rc = fi_sendv(ep, iov, NULL, 2, peers[addr].fa, op);
    if (rc) {
        free(op);
        return rc == -FI_EAGAIN ? TR_ERR_NO_RESOURCE : TR_ERR_IO;
    }
    outstanding++;
    return TR_INPROGRESS;
}

/* Remote keys: w[0] the address the peer names (0-based without
 * FI_MR_VIRT_ADDR), w[1] the registration key, w[2] the owner's registration. */
static tr_status_t ofi_mem_key(tr_iface_t *tr, void *buf, size_t len, tr_rkey_t *key)
{
    (void)tr;
    struct fid_mr *mr;
    if (!have_rma) return TR_ERR_UNSUPPORTED;
    /* where the provider does not choose keys, each registration needs its own */
    uint64_t want = prov_keys ? 0 : ++next_key;
    int rc = fi_mr_reg(domain, buf, len, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, want, 0, &mr, NULL);
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
static ssize_t rma_post(ofi_op_t *op)
{
    if (op->kind == OP_READ)
        return fi_read(ep, op->local, op->len, NULL, op->addr, op->raddr, op->rkey, op);
    /* delivery complete: when the write completes, the bytes are in the peer's
     * memory, so a message sent after it (an unlock) cannot overtake them */
    struct iovec iov = { op->local, op->len };
    struct fi_rma_iov riov = { op->raddr, op->len, op->rkey };
    struct fi_msg_rma msg = { .msg_iov = &iov, .desc = NULL, .iov_count = 1, .addr = op->addr,
                              .rma_iov = &riov, .rma_iov_count = 1, .context = op, .data = 0 };
    return fi_writemsg(ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
}

static int rma_retry(ofi_op_t *op)
{
    ssize_t rc = rma_post(op);
    if (rc == -FI_EAGAIN) return 1;
    if (rc) {
        ofi_fail(op->kind == OP_READ ? "fi_read" : "fi_writemsg", (int)rc);
        op->comp->cb(op->comp, TR_ERR_IO);
        free(op);
        return 0;
    }
    outstanding++;
    return 0;
}

/* A read (get) or a write (put) of len bytes between local and offset off of
 * the peer's registration key. */
static tr_status_t rma_start(int kind, uint64_t addr, void *local, size_t len,
                             const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    if (!have_rma) return TR_ERR_UNSUPPORTED;
    ofi_op_t *op = malloc(sizeof *op);
    if (!op) return TR_ERR_NO_MEMORY;
    op->kind = kind;
    op->comp = comp;
    op->local = local;
    op->len = len;
    op->addr = peers[addr].fa;
    op->raddr = key->w[0] + off;
    op->rkey = key->w[1];
    op->next = NULL;
    ssize_t rc = rma_post(op);
    if (rc == -FI_EAGAIN) {
        /* retried by progress(): the completion still comes from there */
        if (retry_tail) retry_tail->next = op; else retry_head = op;
        retry_tail = op;
        return TR_INPROGRESS;
    }
    if (rc) {
        ofi_fail(kind == OP_READ ? "fi_read" : "fi_writemsg", (int)rc);
        free(op);
        return TR_ERR_IO;
    }
    outstanding++;
    return TR_INPROGRESS;
}

static tr_status_t ofi_get(tr_iface_t *tr, uint64_t addr, void *local, size_t len,
                           const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)tr;
    return rma_start(OP_READ, addr, local, len, key, off, comp);
}

static tr_status_t ofi_put(tr_iface_t *tr, uint64_t addr, const void *local, size_t len,
                           const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)tr;
    return rma_start(OP_WRITE, addr, (void *)local, len, key, off, comp);
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
/* what the provider answered, + 1 (0: not asked yet) */
static size_t atomic_counts[3][TR_AOP_COUNT][TR_AT_COUNT];

static size_t ofi_atomic_max(tr_iface_t *tr, tr_aop_t op, tr_atype_t type, int form)
{
    (void)tr;
    if (!have_atomic || form < 0 || form > 2 || op >= TR_AOP_COUNT || type >= TR_AT_COUNT)
        return 0;
    size_t *c = &atomic_counts[form][op][type];
    if (*c) return *c - 1;
    struct fi_atomic_attr attr = { 0, 0 };
    uint64_t flags = form == TR_ATOMIC_FETCH ? FI_FETCH_ATOMIC
                     : form == TR_ATOMIC_COMPARE ? FI_COMPARE_ATOMIC : 0;
    int rc = fi_query_atomic(domain, at_fi[type], aop_fi[op], &attr, flags);
    size_t n = rc == 0 ? attr.count : 0;
    if (rc == -FI_ENOSYS) {     /* a provider that only answers on the endpoint */
        n = 0;
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
    (void)tr;
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
                                 .addr = peers[addr].fa, .rma_iov = riov, .rma_iov_count = nseg,
                                 .datatype = at_fi[type], .op = aop_fi[op], .context = o,
                                 .data = 0 };
    struct fi_ioc cmp = { (void *)compare, count }, res = { result, count };
    ssize_t rc;
    if (compare)
        rc = fi_compare_atomicmsg(ep, &msg, &cmp, NULL, 1, &res, NULL, 1, FI_COMPLETION);
    else if (result)
        rc = fi_fetch_atomicmsg(ep, &msg, &res, NULL, 1, FI_COMPLETION);
    else    /* delivery complete: done at the peer when it completes (as writes) */
        rc = fi_atomicmsg(ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
    if (rc) {
        free(o);
        if (rc == -FI_EAGAIN) return TR_ERR_NO_RESOURCE;
        ofi_fail("fi_atomic", (int)rc);
        return TR_ERR_IO;
    }
    outstanding++;
    return TR_INPROGRESS;
}

static tr_status_t ofi_atomic(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                              const void *operand, const void *compare, void *result,
                              size_t count, const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    tr_aseg_t seg = { off, count };
    return ofi_atomicv(tr, addr, op, type, operand, compare, result, &seg, 1, key, comp);
}

static int flushes_done(void);

static int ofi_progress(tr_iface_t *tr)
{
    struct fi_cq_msg_entry e[16];
    int events = 0;
    while (retry_head && rma_retry(retry_head) == 0) {
        ofi_op_t *op = retry_head;
        retry_head = op->next;
        if (!retry_head) retry_tail = NULL;
        events++;
    }
    for (;;) {
        ssize_t n = fi_cq_read(cq, e, 16);
        if (n == -FI_EAGAIN || n == 0) break;
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err;
            memset(&err, 0, sizeof err);
            fi_cq_readerr(cq, &err, 0);
            fprintf(stderr, "courier: libfabric (%s): an operation failed: %s\n", prov_name,
                    fi_strerror(err.err));
            ofi_op_t *op = err.op_context;
            if (op && (op->kind == OP_SEND_BULK || op->kind == OP_READ || op->kind == OP_WRITE ||
                       op->kind == OP_ATOMIC)) {
                outstanding--;
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
            ofi_op_t *op = e[i].op_context;
            switch (op->kind) {
            case OP_RECV:
                if (!closing) {
                    tr_am_rx_t m = { .hdr = op->wire.am, .len = op->wire.len,
                                     .p = { op->data, NULL }, .n = { op->wire.len, 0 } };
                    tr->am_handler(tr->am_arg, op->wire.peer, &m);
                }
                post_recv(op);
                break;
            case OP_SEND_COPY:
                outstanding--;
                free(op);
                break;
            default:            /* bulk send, read, write, atomic */
                outstanding--;
                op->comp->cb(op->comp, TR_OK);
                free(op);
                break;
            }
            events++;
        }
    }
    return events + flushes_done();
}

/* Flushes wait for every outstanding operation (not only addr's): simple and
 * enough for the finalize-like uses flush has. */
typedef struct ofi_flush {
    struct ofi_flush *next;
    tr_comp_t *comp;
} ofi_flush_t;
static ofi_flush_t *flushes;

static tr_status_t ofi_flush(tr_iface_t *tr, uint64_t addr, tr_comp_t *comp)
{
    (void)tr, (void)addr;
    if (!outstanding && !retry_head) return TR_OK;
    ofi_flush_t *f = malloc(sizeof *f);
    if (!f) return TR_ERR_NO_MEMORY;
    f->comp = comp;
    f->next = flushes;
    flushes = f;
    return TR_INPROGRESS;
}

static int flushes_done(void)
{
    int n = 0;
    while (flushes && !outstanding && !retry_head) {
        ofi_flush_t *f = flushes;
        flushes = f->next;
        f->comp->cb(f->comp, TR_OK);
        free(f);
        n++;
    }
    return n;
}

/* Every send this process started completes before the endpoint closes, and
 * nobody closes before everybody has flushed (a peer may still be receiving
 * the last messages of MPI_Finalize's barrier). */
static void ofi_finalize(tr_iface_t *tr)
{
    closing = 1;
    while (outstanding > 0 || retry_head) ofi_progress(tr);
    if (published) boot.barrier();
    if (ep) fi_close(&ep->fid);
    if (av) fi_close(&av->fid);
    if (cq) fi_close(&cq->fid);
    for (int i = 0; i < nrx; i++) free(rx[i]);
    free(rx);
    if (domain) fi_close(&domain->fid);
    if (fabric) fi_close(&fabric->fid);
    if (info) fi_freeinfo(info);
    ep = NULL, av = NULL, cq = NULL, domain = NULL, fabric = NULL, info = NULL, rx = NULL;
    nrx = 0;
    wait_fd = -1;
    free(peers);
    peers = NULL;
    npeers = peers_cap = 0;
    published = closing = 0;
}

/* Sleeping (transport.h): only with nothing of ours in flight (a send or read
 * may need this process to drive it, which no arriving message signals), and
 * only when fi_trywait says that every completion and every byte that arrived
 * has been taken (else the caller polls again first).  Without a wait object
 * the sleep cannot be ended by a peer: it lasts at most
 * COURIER_WAIT_SLEEP_POLL_US. */
static int ofi_sleep_prepare(tr_iface_t *tr)
{
    (void)tr;
    if (outstanding || retry_head || flushes) return -1;
    if (wait_fd < 0) return 0;
    struct fid *fids[1] = { &cq->fid };
    return fi_trywait(fabric, fids, 1) == FI_SUCCESS ? 0 : -1;
}

static void ofi_sleep_wait(tr_iface_t *tr, long max_us)
{
    (void)tr;
    struct pollfd pfd = { .fd = wait_fd, .events = POLLIN };
    if (wait_fd < 0 && max_us > ut_settings.wait_sleep_poll_us) max_us = ut_settings.wait_sleep_poll_us;
    struct timespec ts = { max_us / 1000000, (max_us % 1000000) * 1000 };
    ppoll(&pfd, wait_fd < 0 ? 0 : 1, &ts, NULL);
}

static int ofi_sleep_fd(tr_iface_t *tr)
{
    (void)tr;
    return wait_fd;
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

/* The first of them that can reach other hosts (libfabric's own shm provider
 * cannot) and is the one COURIER_OFI_PROVIDER names, if set. */
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
static int cq_open(struct fi_cq_attr *attr)
{
    wait_fd = -1;
    if (ut_settings.ofi_wait) {
        attr->wait_obj = FI_WAIT_FD;
        if (fi_cq_open(domain, attr, &cq, NULL) == 0) {
            int fd = -1;
            if (fi_control(&cq->fid, FI_GETWAIT, &fd) == 0 && fd >= 0) {
                wait_fd = fd;
                return 0;
            }
            fi_close(&cq->fid);     /* a wait object without a descriptor (udp;ofi_rxd) */
            cq = NULL;
        }
    }
    attr->wait_obj = FI_WAIT_NONE;
    return fi_cq_open(domain, attr, &cq, NULL);
}

tr_iface_t *ofi_init(const tr_boot_t *b, int publish)
{
    boot = *b;
    have_rma = 1;
    have_atomic = 0;
    memset(atomic_counts, 0, sizeof atomic_counts);
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
        return NULL;
    }
    snprintf(prov_name, sizeof prov_name, "%s", info->fabric_attr->prov_name);
    virt_addr = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
    prov_keys = (info->domain_attr->mr_mode & FI_MR_PROV_KEY) != 0;
    iov_ok = info->tx_attr->iov_limit >= 2;
    inject_max = info->tx_attr->inject_size;
    if (inject_max > sizeof(ofi_wire_t) + 256) inject_max = sizeof(ofi_wire_t) + 256;
    rx_bytes = (size_t)ut_settings.ofi_rx_bytes;
    if (rx_bytes < 256) rx_bytes = 256;
    struct fi_cq_attr cq_attr = { .size = 1024, .format = FI_CQ_FORMAT_MSG };
    struct fi_av_attr av_attr = { .type = FI_AV_UNSPEC };
    int rc;
    if ((rc = fi_fabric(info->fabric_attr, &fabric, NULL)) != 0 ||
        (rc = fi_domain(fabric, info, &domain, NULL)) != 0 ||
        (rc = cq_open(&cq_attr)) != 0 ||
        (rc = fi_av_open(domain, &av_attr, &av, NULL)) != 0 ||
        (rc = fi_endpoint(domain, info, &ep, NULL)) != 0 ||
        (rc = fi_ep_bind(ep, &av->fid, 0)) != 0 ||
        (rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV)) != 0 ||
        (rc = fi_enable(ep)) != 0) {
        ofi_fail("opening the endpoint", rc);
        return NULL;
    }
    nrx = ut_settings.ofi_rx_count > 0 ? (int)ut_settings.ofi_rx_count : 1;
    rx = calloc((size_t)nrx, sizeof *rx);
    if (!rx) return NULL;
    for (int i = 0; i < nrx; i++) {
        rx[i] = malloc(sizeof(ofi_op_t) + rx_bytes);
        if (!rx[i] || post_recv(rx[i]) != 0) {
            fprintf(stderr, "courier: libfabric (%s): cannot post receives\n", prov_name);
            return NULL;
        }
    }
    unsigned char name[512];
    size_t nlen = sizeof name;
    if ((rc = fi_getname(&ep->fid, name, &nlen)) != 0) {
        ofi_fail("fi_getname", rc);
        return NULL;
    }
    char key[64], hex[2 * sizeof name + 1];
    for (size_t i = 0; i < nlen; i++) snprintf(hex + 2 * i, 3, "%02x", name[i]);
    key_of(boot.rank, key, sizeof key);
    if (publish && (boot.put(key, hex) != 0 || boot.barrier() != 0)) return NULL;
    published = publish;

    ofi_iface.ops = &ofi_ops;
    ofi_iface.caps.max_short = rx_bytes;
    ofi_iface.caps.max_bulk = rx_bytes;
    size_t eager = (size_t)ut_settings.eager_limit;
    ofi_iface.caps.eager_max = eager < rx_bytes ? eager : rx_bytes;
    aseg_max = info->tx_attr->rma_iov_limit < TR_ASEG_MAX ? info->tx_attr->rma_iov_limit
                                                            : TR_ASEG_MAX;
    if (!aseg_max) aseg_max = 1;
    ofi_iface.caps.atomic_segs = have_atomic ? aseg_max : 0;
    ofi_iface.caps.flags = TR_CAP_ORDERED | (have_rma ? TR_CAP_GET | TR_CAP_ONESIDED : 0) |
                           (have_atomic ? TR_CAP_ATOMIC : 0) |
                           (ut_settings.ofi_wait ? TR_CAP_SLEEP : 0);
    return &ofi_iface;
}
#endif
