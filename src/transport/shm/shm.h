/* SPDX-License-Identifier: MIT */
/* Shared-memory transport between the ranks of one node.
 *
 * One segment per node (created by local rank 0, unlinked as soon as every
 * local rank has mapped it).  Per ordered pair of local ranks (s -> r):
 *  - a single-producer/single-consumer ring of 64-byte cells.  A packet is a
 *    32-byte header plus payload, spanning one or more consecutive cells; the
 *    producer writes the payload, then publishes the header cell's `seq` with
 *    one release store.  The consumer spins on the `seq` of the cell at its
 *    head, copies out, clears the seq words it consumed and publishes its head.
 *  - a small array of chunk buffers for the pipelined rendezvous copy.
 * Nothing on the fast path takes a lock or makes a system call.
 */
#ifndef COURIER_SHM_H
#define COURIER_SHM_H
#include <stddef.h>
#include <stdint.h>

#define SHM_CELL 64
#define SHM_HDR 32
#define SHM_RING_MIN 4096    /* smallest ring: one page */

/* Packet types. */
enum {
    SHM_PKT_EAGER = 1,     /* payload = message */
    SHM_PKT_EAGER_SYNC,    /* same, sender wants SHM_PKT_ACK(aux) when matched */
    SHM_PKT_ACK,           /* aux = sender's request */
    SHM_PKT_RTS,           /* rendezvous request; payload = shm_rts_t */
    SHM_PKT_CTS,           /* receiver matched an RTS: aux = sender request, payload = shm_cts_t */
    SHM_PKT_FIN,           /* receiver copied the data itself (single copy): aux = sender request */
    SHM_PKT_WDONE,         /* sender wrote its share of a split copy: aux = receiver request,
                              payload = int32 1 when written, 0 when the write failed */
};

typedef struct {
    volatile uint32_t seq;   /* position + 1 once published; 0 when free */
    uint16_t type;
    uint16_t ncells;
    uint32_t ctx;
    int32_t src;             /* sender's rank in the communicator */
    int32_t tag;
    uint32_t len;            /* payload bytes */
    uint64_t aux;
} shm_hdr_t;

typedef struct {
    uint64_t bytes;          /* whole message size */
    uint64_t addr;           /* sender's buffer (contiguous data) for single copy */
    int32_t pid;             /* sender's pid */
    int32_t contig;          /* 1 when addr holds the packed bytes */
} shm_rts_t;

typedef struct {
    uint64_t rreq;           /* receiver's request */
    int32_t method;          /* SHM_RNDV_PIPE or SHM_RNDV_SPLIT */
    int32_t pid;             /* SPLIT: receiver's pid */
    uint64_t addr;           /* SPLIT: receiver's contiguous destination */
    uint64_t off, len;       /* SPLIT: the sender writes bytes [off, off+len) of the message */
} shm_cts_t;
/* SHM_RNDV_SPLIT: single copy done by both sides at once, the receiver reading
 * the first part with process_vm_readv while the sender writes the rest with
 * process_vm_writev, so two cores copy. */
enum { SHM_RNDV_PIPE = 1, SHM_RNDV_SPLIT = 2 };

/* Set up the node's segment.  local_rank/local_size describe this process
 * among the node's ranks; name is unique to the job and node.  Collective over
 * the node's ranks (uses PMI barriers supplied by the caller through barrier()). */
int shm_init(int local_rank, int local_size, const char *name, int (*barrier)(void));
void shm_finalize(void);

/* Try to send one packet to local rank `to`.  Returns 0, or 1 when the ring is
 * full (nothing written; try again after progress). */
int shm_send_pkt(int to, int type, uint32_t ctx, int32_t src, int32_t tag, uint64_t aux,
                 const void *payload, size_t len);
/* Largest payload shm_send_pkt accepts. */
size_t shm_max_payload(void);

/* Receiving: look at the next packet from local rank `from`.  Returns its
 * header or NULL.  The payload is copied out with shm_pkt_copy (handles
 * wrap-around); shm_pkt_done releases it. */
const shm_hdr_t *shm_peek(int from);
void shm_pkt_copy(int from, const shm_hdr_t *h, size_t off, void *dst, size_t n);
void shm_pkt_done(int from, const shm_hdr_t *h);

/* Pipelined rendezvous through chunk buffers (one stream per ordered pair,
 * messages in order).  Producer: shm_chunk_put copies up to one chunk into the
 * next free slot; returns bytes copied (0 when no slot is free).  Consumer:
 * shm_chunk_get copies the next full chunk out (at most cap bytes of it) and
 * returns the chunk's length (0 when none is ready). */
size_t shm_chunk_put(int to, const void *src, size_t n);
size_t shm_chunk_get(int from, void *dst, size_t cap);
size_t shm_chunk_size(void);

extern int shm_nlocal;
#endif
