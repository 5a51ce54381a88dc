/* SPDX-License-Identifier: MIT */
/* Shared-memory transport: segment set-up, cell rings (a set per channel),
 * single copy with cross-memory attach, doorbells, and its ops table (see
 * shm.h). */
#define _GNU_SOURCE
#include "transport/shm/shm.h"
#include "util/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SHM_MAGIC 0x43525349u /* "CRSI" */

/* Consumer-written state of a ring, alone in its cache line. */
typedef struct {
    volatile uint64_t head;   /* cells consumed */
    char pad[SHM_CELL - sizeof(uint64_t)];
} shm_ring_ctl_t;

/* A process's doorbell, alone in its cache line: `sleeping` is nonzero while
 * it sleeps (or is about to): BELL_FUTEX when it waits on the word itself,
 * BELL_FD when it waits in poll() on its descriptor doorbell (a datagram
 * socket, shm_sleep_fd_enable); set by the sleeper and cleared by the first
 * sender who sees it; `idle` is 1 while its waiting policy is past spinning (it
 * yields the core or sleeps), written by the process only when that changes
 * (shm_publish_idle), read by senders deciding on a protocol. */
typedef struct {
    volatile uint32_t sleeping;
    volatile uint32_t idle;
    volatile uint32_t answers;   /* a progress thread answers for the process (shm_publish_answers) */
    char pad[SHM_CELL - 3 * sizeof(uint32_t)];
    /* In a line of its own, since it changes with every large copy while
     * senders read the doorbell on every send: bytes this process has copied
     * for rendezvous and staged messages (shm_publish_copied), so that a
     * sender can tell a peer busy copying from one that does not run. */
    volatile uint64_t copied;
    char pad2[SHM_CELL - sizeof(uint64_t)];
} shm_bell_t;

enum { BELL_FUTEX = 1, BELL_FD = 2 };

typedef struct {
    uint32_t magic;
    uint32_t nlocal;
    uint64_t ring_cells;
    uint64_t pair_bytes;      /* bytes per ordered pair */
    volatile int attached;    /* ranks that mapped the segment */
    uint32_t nchan;           /* channels: a set of rings each */
} shm_seg_hdr_t;

/* Layout: [header: 2 cells][doorbells: two cells per local rank][pairs], the
 * pairs channel by channel, and per ordered pair [ring ctl][cells...]. */
typedef struct {
    shm_ring_ctl_t *ctl;
    char *cells;
} shm_pair_t;

/* Private state of this process per local peer, on one channel. */
struct shm_peer {
    shm_pair_t out;           /* me -> peer */
    volatile uint32_t *bell;  /* the peer's doorbell */
    uint64_t tail;            /* producer position in out ring */
    uint64_t head_cache;      /* last seen consumer head of out ring */
    shm_pair_t in;            /* peer -> me */
    uint64_t head;            /* consumer position in in ring */
    int peer;                 /* the core's number for this process */
};

int shm_nlocal;
int shm_me;
shm_ctx_t shm_ctxs[SHM_MAX_CHANNELS];
static int nchan, nlive;      /* channels set up, and not yet finalized */
static void *seg;
static size_t seg_bytes;
static uint64_t ring_cells, ring_mask;
static shm_bell_t *my_bell;
static const int *local_of;   /* the core's peer number -> local index */
static int npeers_total;
static int can_sleep;         /* membarrier works: doorbells are safe */
static char seg_name[256];    /* the segment's name, for shm_seg_name() */
/* Threads of this process sleeping on its doorbell, and the lock that keeps
 * that count and the doorbell word in step (only the sleep path takes it). */
static int sleepers;
static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
/* The descriptor doorbell (shm_sleep_fd_enable): this process's bound socket
 * (-1: it sleeps on the futex), and the unbound one it rings others' with,
 * made at the first ring. */
static int bell_fd = -1;
static int ring_fd = -1;

static size_t round_pow2(size_t v)
{
    size_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

static shm_bell_t *bell_at(int local)
{
    return (shm_bell_t *)((char *)seg + SHM_CELL * 2) + local;
}

static shm_pair_t pair_at(int chan, int from, int to)
{
    shm_seg_hdr_t *h = seg;
    size_t pair = ((size_t)chan * (size_t)shm_nlocal + (size_t)from) * (size_t)shm_nlocal + (size_t)to;
    char *base = (char *)seg + SHM_CELL * 2 + (size_t)shm_nlocal * sizeof(shm_bell_t) +
                 pair * h->pair_bytes;
    shm_pair_t p;
    p.ctl = (shm_ring_ctl_t *)base;
    p.cells = base + SHM_CELL;
    return p;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/* Map this rank's pages of its rings now rather than one page fault per 64
 * cells as the first messages reach them (a fault costs the message that
 * takes it several microseconds: at 2 ranks the first ~4000 round trips ran
 * at 2.7x the latency of the later ones). Inbound and outbound rings share
 * COURIER_SHM_PREFAULT_BYTES evenly, each from its start: at 2 ranks that is
 * all of both rings, which any program that sends a few thousand messages
 * touches anyway. A kernel without MADV_POPULATE_WRITE leaves the faults to
 * the messages. */
static void prefault_rings(int nch)
{
    size_t total = (size_t)ut_settings.shm_prefault_bytes;
    size_t nrings = 2 * (size_t)(shm_nlocal - 1) * (size_t)nch;
    if (total == 0 || nrings == 0) return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t each = total / nrings;
    if (each > SHM_CELL + ring_cells * SHM_CELL) each = SHM_CELL + ring_cells * SHM_CELL;
    if (each < page) return;
    for (int c = 0; c < nch; c++)
        for (int p = 0; p < shm_nlocal; p++) {
            if (p == shm_me) continue;
            shm_pair_t pr[2] = {pair_at(c, shm_me, p), pair_at(c, p, shm_me)};
            for (int k = 0; k < 2; k++) {
                uintptr_t a = (uintptr_t)pr[k].ctl & ~(uintptr_t)(page - 1);
                uintptr_t e = (uintptr_t)pr[k].ctl + each;
                if (madvise((void *)a, e - a, MADV_POPULATE_WRITE) != 0) return;
            }
        }
}

static long sys_membarrier(int cmd)
{
    return syscall(__NR_membarrier, cmd, 0, 0);
}

static size_t max_payload(void)
{
    /* at most half the ring, so two large packets can be in flight */
    return (ring_cells / 2) * SHM_CELL - SHM_HDR;
}

static const tr_ops_t shm_ops;

static void set_caps(tr_iface_t *tr)
{
    size_t mp = shm_nlocal > 1 ? max_payload() : 0;
    size_t eager = (size_t)ut_settings.eager_limit;
    tr->caps.max_short = mp;
    tr->caps.max_bulk = mp;
    tr->caps.eager_max = eager < mp ? eager : mp;
    /* without a local peer no message of ours can miss a sleeper (sleep_prepare
     * still refuses: the process sleeps on the other transports' doorbells) */
    int sleep_ok = can_sleep || shm_nlocal <= 1;
    tr->caps.flags = TR_CAP_GET | TR_CAP_PUT | TR_CAP_ORDERED | (sleep_ok ? TR_CAP_SLEEP : 0);
}

static void set_all_caps(void)
{
    for (int c = 0; c < nchan; c++) set_caps(&shm_ctxs[c].iface);
}

int shm_init(tr_iface_t **out, int nch, int local_rank, int local_size,
             const int *local_of_peer, int npeers, const char *name, const tr_boot_t *boot)
{
    if (nch < 1 || nch > SHM_MAX_CHANNELS) {
        fprintf(stderr, "courier: %d shared-memory channels asked for (1 to %d)\n", nch,
                SHM_MAX_CHANNELS);
        return -1;
    }
    shm_me = local_rank;
    shm_nlocal = local_size;
    local_of = local_of_peer;
    npeers_total = npeers;
    nchan = nlive = nch;
    for (int c = 0; c < nch; c++) {
        shm_ctx_t *x = &shm_ctxs[c];
        memset(&x->iface, 0, sizeof x->iface);
        x->iface.ops = &shm_ops;
        x->iface.priv = x;
        out[c] = &x->iface;
        /* each channel's array on cache-line pairs of its own: the
         * positions in it (tail, head) change with every message, and
         * threads of different channels write them side by side */
        size_t bytes = ((size_t)local_size * sizeof(shm_peer_t) + 127) / 128 * 128;
        void *mem = NULL;
        if (posix_memalign(&mem, 128, bytes) != 0) return -1;
        memset(mem, 0, bytes);
        x->peers = mem;
        for (int p = 0; p < npeers; p++)
            if (local_of_peer[p] >= 0) x->peers[local_of_peer[p]].peer = p;
    }
    if (local_size <= 1) {
        /* the barrier is over every process of the job: take part, as the
         * ranks of other nodes do in theirs */
        set_all_caps();
        return boot->barrier() == 0 ? 0 : -1;
    }

    snprintf(seg_name, sizeof seg_name, "%s", name);
    /* Each rank has one inbound ring per local peer and channel: with many
     * ranks on the node (or many channels) the rings shrink (halving) until
     * they fit the per-rank budget. */
    size_t rb = round_pow2((size_t)ut_settings.shm_ring_bytes);
    size_t budget = (size_t)ut_settings.shm_ring_budget;
    size_t inbound = (size_t)(local_size - 1) * (size_t)nch;
    while (budget > 0 && rb > SHM_RING_MIN && rb * inbound > budget) rb >>= 1;
    if (rb < SHM_RING_MIN) rb = SHM_RING_MIN;
    ring_cells = rb / SHM_CELL;
    ring_mask = ring_cells - 1;
    size_t pair_bytes = SHM_CELL + rb;
    seg_bytes = SHM_CELL * 2 + (size_t)local_size * sizeof(shm_bell_t) +
                (size_t)nch * (size_t)local_size * (size_t)local_size * pair_bytes;

    int fd = -1;
    if (local_rank == 0) {
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0) {
            fprintf(stderr, "courier: shm_open(%s) failed: %s\n", name, strerror(errno));
            return -1;
        }
        if (ftruncate(fd, (off_t)seg_bytes) != 0) {
            fprintf(stderr, "courier: cannot size shared memory %s to %zu bytes: %s\n", name,
                    seg_bytes, strerror(errno));
            close(fd);
            shm_unlink(name);
            return -1;
        }
    }
    /* A sleeper makes every sender pass a barrier (membarrier) instead of every
     * send paying a fence; without it nobody sleeps, the waits only yield.
     * Registered before the barrier, so before any peer could sleep. */
    can_sleep = sys_membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
    if (boot->barrier() != 0) return -1;
    if (local_rank != 0) {
        fd = shm_open(name, O_RDWR, 0600);
        if (fd < 0) {
            fprintf(stderr, "courier: cannot open shared memory %s: %s\n", name, strerror(errno));
            return -1;
        }
    }
    seg = mmap(NULL, seg_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (seg == MAP_FAILED) {
        fprintf(stderr, "courier: mmap of %zu bytes of shared memory failed: %s\n", seg_bytes,
                strerror(errno));
        seg = NULL;
        if (local_rank == 0) shm_unlink(name);
        return -1;
    }
    shm_seg_hdr_t *h = seg;
    if (local_rank == 0) {
        /* the file is fresh (zero-filled), so rings are empty and nobody sleeps */
        h->nlocal = (uint32_t)local_size;
        h->ring_cells = ring_cells;
        h->pair_bytes = pair_bytes;
        h->nchan = (uint32_t)nch;
        __atomic_store_n(&h->magic, SHM_MAGIC, __ATOMIC_RELEASE);
    } else {
        while (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != SHM_MAGIC) __builtin_ia32_pause();
        if (h->nchan != (uint32_t)nch || h->ring_cells != ring_cells) {
            fprintf(stderr, "courier: local rank %d wants %d shared-memory channels of %zu-byte "
                    "rings, local rank 0 made %u of %zu bytes (the same settings everywhere?)\n",
                    local_rank, nch, rb, h->nchan, (size_t)h->ring_cells * SHM_CELL);
            return -1;
        }
    }
    /* The last rank to attach removes the name: from now on nothing can be left behind. */
    if (__atomic_add_fetch(&h->attached, 1, __ATOMIC_ACQ_REL) == local_size) shm_unlink(name);

    prefault_rings(nch);
    my_bell = bell_at(local_rank);
    for (int c = 0; c < nch; c++) {
        shm_peer_t *peers = shm_ctxs[c].peers;
        for (int p = 0; p < local_size; p++) {
            if (p == local_rank) continue;
            peers[p].out = pair_at(c, local_rank, p);
            peers[p].in = pair_at(c, p, local_rank);
            peers[p].bell = &bell_at(p)->sleeping;
        }
    }
    set_all_caps();
    return 0;
}

/* The seq word that marks position pos as published: never 0 (0 means free). */
static inline uint32_t seq_of(uint64_t pos)
{
    uint32_t s = (uint32_t)(pos + 1);
    return s ? s : 1;
}

static inline size_t pkt_cells(size_t len)
{
    return len <= SHM_CELL - SHM_HDR ? 1 : 1 + (len - (SHM_CELL - SHM_HDR) + SHM_CELL - 1) / SHM_CELL;
}

/* Copy n bytes to ring byte offset `off` (mod ring size). */
static inline void ring_write(char *cells, uint64_t off, const void *src, size_t n)
{
    size_t rbytes = ring_cells * SHM_CELL;
    off &= rbytes - 1;
    size_t first = rbytes - off < n ? rbytes - off : n;
    memcpy(cells + off, src, first);
    if (first < n) memcpy(cells, (const char *)src + first, n - first);
}

static long sys_futex(volatile uint32_t *word, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

/* The name of local index i's descriptor doorbell: an abstract socket named
 * after the node's segment (so after the job and its secret). */
static socklen_t bell_name(int i, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1, "courier-bell%s.%d", seg_name, i);
    if (n < 0 || (size_t)n >= sizeof a->sun_path - 1) n = (int)sizeof a->sun_path - 2;
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* Wake a process that sleeps in poll() on its descriptor doorbell: one
 * datagram (a full queue means one is already there). */
static void bell_send(volatile uint32_t *bell)
{
    int fd = __atomic_load_n(&ring_fd, __ATOMIC_ACQUIRE);
    if (fd < 0) {
        int mine = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (mine < 0) return;
        fd = -1;
        if (__atomic_compare_exchange_n(&ring_fd, &fd, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            fd = mine;
        else
            close(mine);     /* another thread made it first: fd is its */
    }
    struct sockaddr_un a;
    socklen_t len = bell_name((int)((const shm_bell_t *)(uintptr_t)bell - bell_at(0)), &a);
    char c = 0;
    sendto(fd, &c, 1, MSG_DONTWAIT | MSG_NOSIGNAL, (struct sockaddr *)&a, len);
}

/* A sender found the doorbell of a sleeper set: the first to clear it wakes
 * it, every thread of it that sleeps (threads of one process share the
 * doorbell), by the futex or by a datagram as the sleeper announced. */
static __attribute__((noinline, cold)) void bell_ring(volatile uint32_t *bell)
{
    uint32_t was = __atomic_exchange_n(bell, 0, __ATOMIC_ACQ_REL);
    if (was == BELL_FUTEX) sys_futex(bell, FUTEX_WAKE, INT_MAX, NULL);
    else if (was == BELL_FD) bell_send(bell);
}

int shm_send_pkt(shm_ctx_t *c, int to, const tr_am_hdr_t *am, const void *payload, size_t len)
{
    shm_peer_t *p = &c->peers[to];
    size_t nc = pkt_cells(len);
    if (p->tail + nc - p->head_cache > ring_cells) {
        p->head_cache = __atomic_load_n(&p->out.ctl->head, __ATOMIC_ACQUIRE);
        if (p->tail + nc - p->head_cache > ring_cells) return 1;
    }
    shm_hdr_t *h = (shm_hdr_t *)(p->out.cells + (p->tail & ring_mask) * SHM_CELL);
    if (len) ring_write(p->out.cells, (p->tail & ring_mask) * SHM_CELL + SHM_HDR, payload, len);
    h->len = (uint32_t)len;
    h->am = *am;
    __atomic_store_n(&h->seq, seq_of(p->tail), __ATOMIC_RELEASE);
    p->tail += nc;
    /* The doorbell is read after the publishing store; the sleeper's membarrier
     * orders the two for us (no fence here), the compiler must not swap them. */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(__atomic_load_n(p->bell, __ATOMIC_RELAXED) != 0, 0)) bell_ring(p->bell);
    return 0;
}

int shm_peer_idle(shm_ctx_t *c, int to)
{
    const shm_bell_t *b = (const shm_bell_t *)(uintptr_t)c->peers[to].bell;
    int st = __atomic_load_n(&b->idle, __ATOMIC_RELAXED) ? SHM_PEER_YIELDS : 0;
    if (__atomic_load_n(&b->answers, __ATOMIC_RELAXED)) st |= SHM_PEER_ANSWERS;
    return st | (__atomic_load_n(&b->sleeping, __ATOMIC_RELAXED) ? SHM_PEER_SLEEPS : 0);
}

uint64_t shm_peer_copied(shm_ctx_t *c, int to)
{
    const shm_bell_t *b = (const shm_bell_t *)(uintptr_t)c->peers[to].bell;
    return __atomic_load_n(&b->copied, __ATOMIC_RELAXED);
}

void shm_publish_copied(size_t n)
{
    /* only this process writes it: a load and a store, no atomic add */
    if (my_bell)
        __atomic_store_n(&my_bell->copied, __atomic_load_n(&my_bell->copied, __ATOMIC_RELAXED) + n,
                         __ATOMIC_RELAXED);
}

void shm_publish_answers(void)
{
    if (my_bell) __atomic_store_n(&my_bell->answers, 1, __ATOMIC_RELAXED);
}

void shm_publish_idle(int idle)
{
    /* a store only when the word changes: the line stays shared with the
     * senders that read the doorbell on every send */
    uint32_t v = idle != 0;
    if (my_bell && __atomic_load_n(&my_bell->idle, __ATOMIC_RELAXED) != v)
        __atomic_store_n(&my_bell->idle, v, __ATOMIC_RELAXED);
}

void shm_wake(int to)
{
    if (!shm_ctxs[0].peers) return;   /* after shm_finalize */
    volatile uint32_t *bell = shm_ctxs[0].peers[to].bell;
    if (__builtin_expect(bell && __atomic_load_n(bell, __ATOMIC_RELAXED) != 0, 0)) bell_ring(bell);
}

const char *shm_seg_name(void)
{
    return seg_name;
}

const shm_hdr_t *shm_peek(shm_ctx_t *c, int from)
{
    shm_peer_t *p = &c->peers[from];
    const shm_hdr_t *h = (const shm_hdr_t *)(p->in.cells + (p->head & ring_mask) * SHM_CELL);
    if (__atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) != seq_of(p->head)) return NULL;
    return h;
}

/* The payload of h as (up to) two pieces of the ring. */
static inline void pkt_pieces(const shm_peer_t *p, const shm_hdr_t *h, tr_am_rx_t *m)
{
    size_t rbytes = ring_cells * SHM_CELL;
    size_t off = (size_t)((const char *)h - p->in.cells) + SHM_HDR;
    size_t len = h->len;
    if (off >= rbytes) off -= rbytes;
    size_t first = rbytes - off < len ? rbytes - off : len;
    m->len = len;
    m->p[0] = p->in.cells + off;
    m->n[0] = first;
    m->p[1] = p->in.cells;
    m->n[1] = len - first;
}

void shm_pkt_copy(shm_ctx_t *c, int from, const shm_hdr_t *h, size_t off, void *dst, size_t n)
{
    tr_am_rx_t m;
    pkt_pieces(&c->peers[from], h, &m);
    tr_am_copy(&m, off, dst, n);
}

void shm_pkt_done(shm_ctx_t *c, int from, const shm_hdr_t *h)
{
    shm_peer_t *p = &c->peers[from];
    size_t nc = pkt_cells(h->len);
    /* Clear the first word of every payload cell consumed, so that a stale payload
     * word can never look like a published header on a later lap.  A header cell
     * needs no clearing: its stale seq is from an earlier lap, never seq_of(pos),
     * and leaving it alone keeps single-cell packets free of writes here (the line
     * stays shared instead of moving to this core and back). */
    for (size_t i = 1; i < nc; i++)
        ((shm_hdr_t *)(p->in.cells + ((p->head + i) & ring_mask) * SHM_CELL))->seq = 0;
    p->head += nc;
    __atomic_store_n(&p->in.ctl->head, p->head, __ATOMIC_RELEASE);
}

int shm_pending_except(shm_ctx_t *c, int from)
{
    for (int i = 0; i < shm_nlocal; i++)
        if (i != shm_me && i != from && shm_peek(c, i)) return 1;
    return 0;
}

/* ---- the ops table ---------------------------------------------------------- */
static tr_status_t shm_connect(tr_iface_t *tr, int peer, uint64_t *addr)
{
    (void)tr;
    if (peer < 0 || peer >= npeers_total || local_of[peer] < 0 || local_of[peer] == shm_me ||
        shm_nlocal <= 1)
        return TR_ERR_UNREACHABLE;
    *addr = (uint64_t)local_of[peer];
    return TR_OK;
}

static tr_status_t shm_am_short(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                                const void *payload, size_t len)
{
    return shm_send_pkt(shm_ctx_of(tr), (int)addr, hdr, payload, len) ? TR_ERR_NO_RESOURCE : TR_OK;
}

/* The ring copies the payload at once, so a bulk AM completes before return. */
static tr_status_t shm_am_bulk(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                               const void *payload, size_t len, tr_comp_t *comp)
{
    (void)comp;
    return shm_am_short(tr, addr, hdr, payload, len);
}

static int shm_progress(tr_iface_t *tr)
{
    shm_ctx_t *c = shm_ctx_of(tr);
    int n = 0;
    for (int i = 0; i < shm_nlocal; i++) {
        if (i == shm_me) continue;
        const shm_hdr_t *h;
        while ((h = shm_peek(c, i)) != NULL) {
            tr_am_rx_t m;
            m.hdr = h->am;
            pkt_pieces(&c->peers[i], h, &m);
            tr->am_handler(tr->am_arg, c->peers[i].peer, &m);
            shm_pkt_done(c, i, h);
            n++;
        }
    }
    return n;
}

/* Remote keys: w[0] the address, w[1] the owner's process id. */
static tr_status_t shm_mem_key(tr_iface_t *tr, void *buf, size_t len, tr_rkey_t *key)
{
    (void)tr, (void)len;
    key->w[0] = (uint64_t)(uintptr_t)buf;
    key->w[1] = (uint64_t)getpid();
    key->w[2] = 0;
    return TR_OK;
}

/* Move n bytes between local memory and the peer's with process_vm_readv
 * (write = 0) or process_vm_writev. */
static tr_status_t cma_copy(const tr_rkey_t *key, size_t off, void *local, size_t n, int write)
{
    pid_t pid = (pid_t)key->w[1];
    size_t done = 0;
    while (done < n) {
        struct iovec l = { (char *)local + done, n - done };
        struct iovec rm = { (char *)(uintptr_t)key->w[0] + off + done, n - done };
        ssize_t k = write ? process_vm_writev(pid, &l, 1, &rm, 1, 0)
                          : process_vm_readv(pid, &l, 1, &rm, 1, 0);
        if (k <= 0) {
            int e = errno;
            if (done == 0 && (e == EPERM || e == EACCES || e == ENOSYS)) return TR_ERR_REFUSED;
            return TR_ERR_IO;
        }
        done += (size_t)k;
    }
    return TR_OK;
}

tr_status_t shm_cma_copyv(const tr_rkey_t *key, const size_t *off, const size_t *len, int n,
                          void *local, int write)
{
    pid_t pid = (pid_t)key->w[1];
    char *l = local;
    for (int first = 0; first < n;) {
        int k = n - first < SHM_CMA_PIECES ? n - first : SHM_CMA_PIECES;
        struct iovec rm[SHM_CMA_PIECES];
        size_t total = 0;
        for (int i = 0; i < k; i++) {
            rm[i] = (struct iovec){ (char *)(uintptr_t)key->w[0] + off[first + i], len[first + i] };
            total += len[first + i];
        }
        struct iovec lv = { l, total };
        ssize_t got = write ? process_vm_writev(pid, &lv, 1, rm, (unsigned long)k, 0)
                            : process_vm_readv(pid, &lv, 1, rm, (unsigned long)k, 0);
        if (got < 0 && first == 0 && (errno == EPERM || errno == EACCES || errno == ENOSYS))
            return TR_ERR_REFUSED;
        if (got < 0) return TR_ERR_IO;
        /* a partial copy (the kernel stops at a piece it cannot take
         * whole): the rest piece by piece, from where it stopped */
        size_t moved = (size_t)got, pos = 0;
        for (int i = 0; moved < total && i < k; pos += len[first + i], i++) {
            if (moved >= pos + len[first + i]) continue;
            size_t d = moved > pos ? moved - pos : 0;
            tr_status_t st = cma_copy(key, off[first + i] + d, l + pos + d, len[first + i] - d,
                                      write);
            if (st != TR_OK) return TR_ERR_IO;
        }
        l += total;
        first += k;
        shm_publish_copied(total);
    }
    return TR_OK;
}

static tr_status_t shm_get(tr_iface_t *tr, uint64_t addr, void *local, size_t len,
                           const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)tr, (void)addr, (void)comp;
    tr_status_t st = cma_copy(key, off, local, len, 0);
    shm_publish_copied(len);
    return st;
}

static tr_status_t shm_put(tr_iface_t *tr, uint64_t addr, const void *local, size_t len,
                           const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)tr, (void)addr, (void)comp;
    tr_status_t st = cma_copy(key, off, (void *)local, len, 1);
    shm_publish_copied(len);
    return st;
}

/* Sleeping: set the doorbell, then make every other process pass a barrier, so
 * that a sender either published before it (the caller's poll sees the AM) or
 * reads the doorbell after it (and wakes us). */
static void sleeper_leaves(void)
{
    pthread_mutex_lock(&sleep_lock);
    /* the last sleeper clears the doorbell (a sender may have done so already);
     * one arriving meanwhile sets it again under the same lock */
    if (--sleepers == 0) {
        __atomic_store_n(&my_bell->sleeping, 0, __ATOMIC_RELEASE);
        /* take the datagrams of rings so far (one sent later only makes the
         * next sleep return at once) */
        char c[16];
        if (bell_fd >= 0)
            while (recv(bell_fd, c, sizeof c, MSG_DONTWAIT) >= 0) {}
    }
    pthread_mutex_unlock(&sleep_lock);
}

static int shm_sleep_prepare(tr_iface_t *tr)
{
    (void)tr;
    if (!can_sleep || !my_bell) return -1;
    pthread_mutex_lock(&sleep_lock);
    sleepers++;
    __atomic_store_n(&my_bell->sleeping, bell_fd >= 0 ? BELL_FD : BELL_FUTEX, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&sleep_lock);
    if (sys_membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0) {
        sleeper_leaves();
        return -1;
    }
    return 0;
}

static void shm_sleep_wait(tr_iface_t *tr, long max_us)
{
    (void)tr;
    struct timespec ts = { max_us / 1000000, (max_us % 1000000) * 1000 };
    if (bell_fd >= 0) {
        struct pollfd p = { .fd = bell_fd, .events = POLLIN };
        if (__atomic_load_n(&my_bell->sleeping, __ATOMIC_ACQUIRE)) ppoll(&p, 1, &ts, NULL);
    } else {
        /* returns at once when a sender already cleared the doorbell */
        sys_futex(&my_bell->sleeping, FUTEX_WAIT, BELL_FUTEX, &ts);
    }
    sleeper_leaves();
}

static int shm_sleep_fd(tr_iface_t *tr)
{
    (void)tr;
    return bell_fd;
}

int shm_sleep_fd_enable(void)
{
    if (bell_fd >= 0) return 0;
    if (!my_bell || !can_sleep || !ut_settings.shm_sleep_fd) return -1;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_un a;
    socklen_t len = bell_name(shm_me, &a);
    if (bind(fd, (struct sockaddr *)&a, len) != 0) {
        close(fd);
        return -1;
    }
    pthread_mutex_lock(&sleep_lock);     /* no sleep is half announced */
    bell_fd = fd;
    pthread_mutex_unlock(&sleep_lock);
    return 0;
}

static void shm_sleep_cancel(tr_iface_t *tr)
{
    (void)tr;
    sleeper_leaves();
}

static void shm_sleep_wake(tr_iface_t *tr)
{
    (void)tr;
    /* threads of this process set and clear the word under sleep_lock; this
     * check runs outside it (threads.c, after the library lock is let go) */
    if (my_bell && __builtin_expect(__atomic_load_n(&my_bell->sleeping, __ATOMIC_ACQUIRE) != 0, 0))
        bell_ring(&my_bell->sleeping);
}

/* Each channel's interface is finalized on its own; the segment goes with
 * the last. */
static void shm_finalize(tr_iface_t *tr)
{
    shm_ctx_t *c = shm_ctx_of(tr);
    free(c->peers);
    c->peers = NULL;
    if (--nlive > 0) return;
    if (seg) munmap(seg, seg_bytes);
    seg = NULL;
    my_bell = NULL;
    if (bell_fd >= 0) close(bell_fd);
    if (ring_fd >= 0) close(ring_fd);
    bell_fd = ring_fd = -1;
    shm_nlocal = 0;
    seg_name[0] = 0;
    nchan = 0;
}

static const tr_ops_t shm_ops = {
    .name = "shm",
    .connect = shm_connect,
    .my_address = tr_stub_my_address,
    .add_peer = tr_stub_add_peer,
    .am_short = shm_am_short,
    .am_bulk = shm_am_bulk,
    .mem_key = shm_mem_key,
    .mem_release = tr_stub_mem_release,
    .get = shm_get,
    .put = shm_put,
    .progress = shm_progress,
    .flush = tr_stub_flush,          /* every operation completes before it returns */
    .atomic_max = tr_stub_atomic_max,
    .atomic = tr_stub_atomic,
    .sleep_prepare = shm_sleep_prepare,
    .sleep_wait = shm_sleep_wait,
    .sleep_cancel = shm_sleep_cancel,
    .sleep_fd = shm_sleep_fd,           /* a futex, or the socket once enabled */
    .sleep_wake = shm_sleep_wake,
    .finalize = shm_finalize,
};
