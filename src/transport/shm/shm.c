/* SPDX-License-Identifier: MIT */
/* Shared-memory transport: segment set-up, cell rings, chunk pipeline (see shm.h). */
#include "transport/shm/shm.h"
#include "util/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHM_MAGIC 0x43525348u /* "CRSH" */

/* Consumer-written state of a ring, alone in its cache line. */
typedef struct {
    volatile uint64_t head;   /* cells consumed */
    char pad[SHM_CELL - sizeof(uint64_t)];
} shm_ring_ctl_t;

/* One chunk slot of the rendezvous pipeline. */
typedef struct {
    volatile uint64_t seq;    /* chunk number + 1 when full, written by the producer */
    uint64_t len;
    char pad[SHM_CELL - 2 * sizeof(uint64_t)];
} shm_chunk_ctl_t;

typedef struct {
    volatile uint64_t consumed;  /* chunks consumed, written by the consumer */
    char pad[SHM_CELL - sizeof(uint64_t)];
} shm_pipe_ctl_t;

typedef struct {
    uint32_t magic;
    uint32_t nlocal;
    uint64_t ring_cells;
    uint64_t chunk_bytes;
    uint64_t nchunks;
    uint64_t pair_bytes;      /* bytes per ordered pair */
    volatile int attached;    /* ranks that mapped the segment */
} shm_seg_hdr_t;

/* Per ordered pair, in the segment: [ring ctl][cells...][pipe ctl][chunk ctls][chunk data] */
typedef struct {
    shm_ring_ctl_t *ctl;
    char *cells;
    shm_pipe_ctl_t *pipe;
    shm_chunk_ctl_t *chunk_ctl;
    char *chunk_data;
} shm_pair_t;

/* Private state of this process. */
typedef struct {
    shm_pair_t out;           /* me -> peer */
    shm_pair_t in;            /* peer -> me */
    uint64_t tail;            /* producer position in out ring */
    uint64_t head_cache;      /* last seen consumer head of out ring */
    uint64_t head;            /* consumer position in in ring */
    uint64_t chunk_put;       /* chunks produced on out pipe */
    uint64_t chunk_consumed_cache;
    uint64_t chunk_got;       /* chunks consumed from in pipe */
} shm_peer_t;

int shm_nlocal;
static int me;
static void *seg;
static size_t seg_bytes;
static uint64_t ring_cells, ring_mask;
static size_t chunk_bytes, nchunks;
static shm_peer_t *peers;

static size_t round_pow2(size_t v)
{
    size_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

static shm_pair_t pair_at(int from, int to)
{
    shm_seg_hdr_t *h = seg;
    char *base = (char *)seg + SHM_CELL * 2 + (size_t)(from * shm_nlocal + to) * h->pair_bytes;
    shm_pair_t p;
    p.ctl = (shm_ring_ctl_t *)base;
    p.cells = base + SHM_CELL;
    p.pipe = (shm_pipe_ctl_t *)(p.cells + ring_cells * SHM_CELL);
    p.chunk_ctl = (shm_chunk_ctl_t *)((char *)p.pipe + SHM_CELL);
    p.chunk_data = (char *)(p.chunk_ctl + nchunks);
    return p;
}

int shm_init(int local_rank, int local_size, const char *name, int (*barrier)(void))
{
    me = local_rank;
    shm_nlocal = local_size;
    if (local_size <= 1) return 0;

    /* Each rank has one inbound ring per local peer: with many ranks on the node
     * the rings shrink (halving) until they fit the per-rank budget. */
    size_t rb = round_pow2((size_t)ut_settings.shm_ring_bytes);
    size_t budget = (size_t)ut_settings.shm_ring_budget;
    while (budget > 0 && rb > SHM_RING_MIN && rb * (size_t)(local_size - 1) > budget) rb >>= 1;
    if (rb < SHM_RING_MIN) rb = SHM_RING_MIN;
    ring_cells = rb / SHM_CELL;
    ring_mask = ring_cells - 1;
    chunk_bytes = ((size_t)ut_settings.shm_chunk_bytes + SHM_CELL - 1) & ~(size_t)(SHM_CELL - 1);
    if (chunk_bytes < 4096) chunk_bytes = 4096;
    nchunks = ut_settings.shm_chunks > 1 ? (size_t)ut_settings.shm_chunks : 2;
    size_t pair_bytes = SHM_CELL + rb + SHM_CELL + nchunks * SHM_CELL + nchunks * chunk_bytes;
    pair_bytes = (pair_bytes + 4095) & ~(size_t)4095;
    seg_bytes = SHM_CELL * 2 + (size_t)local_size * local_size * pair_bytes;

    int fd;
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
    if (barrier() != 0) return -1;
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
        if (local_rank == 0) shm_unlink(name);
        return -1;
    }
    shm_seg_hdr_t *h = seg;
    if (local_rank == 0) {
        /* the file is fresh (zero-filled), so rings are empty */
        h->nlocal = (uint32_t)local_size;
        h->ring_cells = ring_cells;
        h->chunk_bytes = chunk_bytes;
        h->nchunks = nchunks;
        h->pair_bytes = pair_bytes;
        __atomic_store_n(&h->magic, SHM_MAGIC, __ATOMIC_RELEASE);
    } else {
        while (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != SHM_MAGIC) __builtin_ia32_pause();
    }
    /* The last rank to attach removes the name: from now on nothing can be left behind. */
    if (__atomic_add_fetch(&h->attached, 1, __ATOMIC_ACQ_REL) == local_size) shm_unlink(name);

    peers = calloc((size_t)local_size, sizeof(shm_peer_t));
    if (!peers) return -1;
    for (int p = 0; p < local_size; p++) {
        if (p == me) continue;
        peers[p].out = pair_at(me, p);
        peers[p].in = pair_at(p, me);
    }
    return 0;
}

void shm_finalize(void)
{
    if (seg) munmap(seg, seg_bytes);
    seg = NULL;
    free(peers);
    peers = NULL;
}

size_t shm_max_payload(void)
{
    /* at most half the ring, so two large packets can be in flight */
    return (ring_cells / 2) * SHM_CELL - SHM_HDR;
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

/* Copy n bytes to/from ring byte offset `off` (mod ring size). */
static inline void ring_write(char *cells, uint64_t off, const void *src, size_t n)
{
    size_t rbytes = ring_cells * SHM_CELL;
    off &= rbytes - 1;
    size_t first = rbytes - off < n ? rbytes - off : n;
    memcpy(cells + off, src, first);
    if (first < n) memcpy(cells, (const char *)src + first, n - first);
}

static inline void ring_read(const char *cells, uint64_t off, void *dst, size_t n)
{
    size_t rbytes = ring_cells * SHM_CELL;
    off &= rbytes - 1;
    size_t first = rbytes - off < n ? rbytes - off : n;
    memcpy(dst, cells + off, first);
    if (first < n) memcpy((char *)dst + first, cells, n - first);
}

int shm_send_pkt(int to, int type, uint32_t ctx, int32_t src, int32_t tag, uint64_t aux,
                 const void *payload, size_t len)
{
    shm_peer_t *p = &peers[to];
    size_t nc = pkt_cells(len);
    if (p->tail + nc - p->head_cache > ring_cells) {
        p->head_cache = __atomic_load_n(&p->out.ctl->head, __ATOMIC_ACQUIRE);
        if (p->tail + nc - p->head_cache > ring_cells) return 1;
    }
    shm_hdr_t *h = (shm_hdr_t *)(p->out.cells + (p->tail & ring_mask) * SHM_CELL);
    if (len) ring_write(p->out.cells, (p->tail & ring_mask) * SHM_CELL + SHM_HDR, payload, len);
    h->type = (uint16_t)type;
    h->ncells = (uint16_t)nc;
    h->ctx = ctx;
    h->src = src;
    h->tag = tag;
    h->len = (uint32_t)len;
    h->aux = aux;
    __atomic_store_n(&h->seq, seq_of(p->tail), __ATOMIC_RELEASE);
    p->tail += nc;
    return 0;
}

const shm_hdr_t *shm_peek(int from)
{
    shm_peer_t *p = &peers[from];
    const shm_hdr_t *h = (const shm_hdr_t *)(p->in.cells + (p->head & ring_mask) * SHM_CELL);
    if (__atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) != seq_of(p->head)) return NULL;
    return h;
}

void shm_pkt_copy(int from, const shm_hdr_t *h, size_t off, void *dst, size_t n)
{
    shm_peer_t *p = &peers[from];
    ring_read(p->in.cells, (uint64_t)((const char *)h - p->in.cells) + SHM_HDR + off, dst, n);
}

void shm_pkt_done(int from, const shm_hdr_t *h)
{
    shm_peer_t *p = &peers[from];
    size_t nc = h->ncells;
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

size_t shm_chunk_size(void) { return chunk_bytes; }

size_t shm_chunk_put(int to, const void *src, size_t n)
{
    shm_peer_t *p = &peers[to];
    if (p->chunk_put - p->chunk_consumed_cache >= nchunks) {
        p->chunk_consumed_cache = __atomic_load_n(&p->out.pipe->consumed, __ATOMIC_ACQUIRE);
        if (p->chunk_put - p->chunk_consumed_cache >= nchunks) return 0;
    }
    size_t slot = p->chunk_put % nchunks;
    if (n > chunk_bytes) n = chunk_bytes;
    memcpy(p->out.chunk_data + slot * chunk_bytes, src, n);
    p->out.chunk_ctl[slot].len = n;
    __atomic_store_n(&p->out.chunk_ctl[slot].seq, p->chunk_put + 1, __ATOMIC_RELEASE);
    p->chunk_put++;
    return n;
}

size_t shm_chunk_get(int from, void *dst, size_t cap)
{
    shm_peer_t *p = &peers[from];
    size_t slot = p->chunk_got % nchunks;
    shm_chunk_ctl_t *c = &p->in.chunk_ctl[slot];
    if (__atomic_load_n(&c->seq, __ATOMIC_ACQUIRE) != p->chunk_got + 1) return 0;
    size_t len = c->len;
    memcpy(dst, p->in.chunk_data + slot * chunk_bytes, len < cap ? len : cap);
    p->chunk_got++;
    __atomic_store_n(&p->in.pipe->consumed, p->chunk_got, __ATOMIC_RELEASE);
    return len;
}
