/* SPDX-License-Identifier: MIT */
/* Shared-memory transport between the processes of one node (transport.h).
 *
 * One segment per node (created by local rank 0, unlinked as soon as every
 * local rank has mapped it).  It holds, per channel and ordered pair of local
 * ranks (c: s -> r), a single-producer/single-consumer ring of 64-byte cells,
 * and per local rank one doorbell line that wakes it when it sleeps.  Each
 * channel is an interface of its own (shm_ctx_t): channel c of one process
 * talks only to channel c of the others, so the core's channels share no
 * ring.
 * - An AM is a 32-byte header (shm_hdr_t: sequence word, payload length, the
 *   core's 24-byte tr_am_hdr_t) followed by its payload, spanning one or more
 *   consecutive cells; the producer writes the payload and the header, then
 *   publishes with one release store of the header's `seq`.  The consumer
 *   spins on the `seq` of the cell at its head, copies out, clears the first
 *   word of every payload cell it consumed and publishes its head.
 * - get/put are single copies with process_vm_readv / process_vm_writev
 *   (cross-memory attach); a peer the kernel does not let us read (ptrace
 *   policy, a non-dumpable process) answers TR_ERR_REFUSED.
 * - Waiting word: beside the doorbell each process publishes whether its
 *   waiting policy is past spinning (yielding or sleeping), written only on
 *   the transitions; the adaptive protocol reads it (core/adapt.h).
 * - Doorbell: a process about to sleep sets its doorbell word and makes every
 *   other process pass a memory barrier (membarrier(2)); a sender reads the
 *   doorbell after publishing and, when it is set, clears it and wakes the
 *   sleeper with FUTEX_WAKE.  The sender pays one load of a line that is
 *   only written around a sleep.  A process that also sleeps on another
 *   transport's descriptor (the network's completion queue) cannot wait on a
 *   futex at the same time: after shm_sleep_fd_enable its doorbell is a
 *   datagram socket too (sleep_fd), and the word it sets says so; the sender
 *   that clears such a word sends it one datagram instead of FUTEX_WAKE.
 * Nothing on the send or receive path takes a lock or makes a system call.
 *
 * The core calls shm_send_pkt / shm_peek / shm_pkt_copy / shm_pkt_done
 * directly on MPI_Send's and MPI_Recv's fast paths (inlined by LTO; channel
 * 0's context is a constant address there); all else goes through the ops
 * table of the channel's interface. */
#ifndef COURIER_SHM_H
#define COURIER_SHM_H
#include "transport/transport.h"
#include <stddef.h>
#include <stdint.h>

#define SHM_CELL 64
#define SHM_HDR 32
#define SHM_RING_MIN 4096    /* smallest ring: one page */

typedef struct {
    volatile uint32_t seq;   /* position + 1 once published; never 0 then */
    uint32_t len;            /* payload bytes */
    tr_am_hdr_t am;          /* the core's header, unchanged */
} shm_hdr_t;
_Static_assert(sizeof(shm_hdr_t) == SHM_HDR, "one header is half a cell");

/* One channel's rings: its interface (iface.priv points back here) and this
 * process's view of each local peer's rings on that channel. */
#define SHM_MAX_CHANNELS 64
typedef struct shm_peer shm_peer_t;
typedef struct shm_ctx {
    shm_peer_t *peers;        /* per local index */
    tr_iface_t iface;
} shm_ctx_t;
extern shm_ctx_t shm_ctxs[SHM_MAX_CHANNELS];   /* channel c is shm_ctxs[c] */
static inline shm_ctx_t *shm_ctx_of(tr_iface_t *tr)
{
    return (shm_ctx_t *)tr->priv;
}

/* Cross-memory copies of many pieces at once (one-sided communication on
 * MPI_Win_create memory): move n pieces of the peer's memory described by
 * key (piece i: len[i] bytes at offset off[i]) to (write = 0) or from
 * (write = 1) the contiguous local buffer, the pieces one after the other,
 * in few system calls.  TR_OK, TR_ERR_REFUSED (nothing moved: the kernel
 * refused this peer), or TR_ERR_IO. */
enum { SHM_CMA_PIECES = 256 };   /* most pieces one system call takes here */
tr_status_t shm_cma_copyv(const tr_rkey_t *key, const size_t *off, const size_t *len, int n,
                          void *local, int write);

/* Set up the node's segment with nchan channels (at most SHM_MAX_CHANNELS;
 * every local process must give the same number) and their interfaces.
 * local_of_peer[p] is peer p's index among the node's local_size processes,
 * or -1 when p is elsewhere (npeers entries); this process is local_rank.
 * Collective over all the job's processes, every node's alike (one
 * boot->barrier each).  On success out[c] is channel c's interface (its
 * am_handler still to be installed); the segment goes when the last of them
 * is finalized.  Returns 0 or -1 with a message on stderr. */
int shm_init(tr_iface_t **out, int nchan, int local_rank, int local_size,
             const int *local_of_peer, int npeers, const char *name, const tr_boot_t *boot);

/* Fast path, on one channel's rings.  shm_send_pkt: copy one AM into the ring
 * to local index `to`; returns 0, or 1 when the ring is full (nothing
 * written).  Wakes `to` when it sleeps.  len <= caps.max_bulk. */
int shm_send_pkt(shm_ctx_t *c, int to, const tr_am_hdr_t *am, const void *payload, size_t len);
/* Receiving from local index `from`: the next published AM or NULL; its
 * payload is copied with shm_pkt_copy, and shm_pkt_done releases it. */
const shm_hdr_t *shm_peek(shm_ctx_t *c, int from);
void shm_pkt_copy(shm_ctx_t *c, int from, const shm_hdr_t *h, size_t off, void *dst, size_t n);
void shm_pkt_done(shm_ctx_t *c, int from, const shm_hdr_t *h);
/* What local index `to` has published about its waiting (one load of its
 * doorbell line): SHM_PEER_YIELDS while its waiting policy is past spinning
 * (it yields the core or sleeps), SHM_PEER_SLEEPS while it sleeps on its
 * doorbell; 0 while it spins or works; SHM_PEER_ANSWERS besides when a
 * progress thread of its own answers its messages (shm_publish_answers), so
 * that its yielding or sleeping says nothing about when it answers. */
enum { SHM_PEER_YIELDS = 1, SHM_PEER_SLEEPS = 2, SHM_PEER_ANSWERS = 4 };
int shm_peer_idle(shm_ctx_t *c, int to);
/* Bytes local index `to` has copied for messages so far (its CMA gets and
 * puts, its staging copies): a sender compares two readings to tell a peer
 * that answered late because it was copying from one that did not run. */
uint64_t shm_peer_copied(shm_ctx_t *c, int to);
/* Count n bytes this process copied for a message (shm_peer_copied). */
void shm_publish_copied(size_t n);
/* Publish, once, that a progress thread (COURIER_ASYNC_PROGRESS) answers
 * this process's messages whatever its other threads do.  Nothing before
 * shm_init or alone on the node. */
void shm_publish_answers(void);
/* Publish this process's waiting phase (1: yielding or sleeping, 0: spinning
 * or working) for shm_peer_idle; stores only when it changes, so the waiting
 * policy calls it on its transitions and the fast path never pays.  Nothing
 * before shm_init or alone on the node. */
void shm_publish_idle(int idle);
/* 1 when an AM waits in any inbound ring of this channel other than from's. */
int shm_pending_except(shm_ctx_t *c, int from);

/* Make this process's doorbell a descriptor (sleep_fd) that poll() can wait
 * on beside other transports' (the init calls it when the network transport
 * starts): an abstract datagram socket named after the node's segment, which
 * local senders ring when the doorbell word says so.  Sleeps announced after
 * it use the socket, on every channel.  0, or -1 when alone on the node, when
 * nobody may sleep (no membarrier) or the socket cannot be made (sleeps then
 * stay on the futex, which a poll() on several descriptors cannot see: the
 * waiting policy caps them at COURIER_WAIT_SLEEP_POLL_US). */
int shm_sleep_fd_enable(void);

/* For other shared memory of the node (the collectives' areas): wake local
 * index `to` if it sleeps on its doorbell.  Call it after publishing, with a
 * store, something `to` may wait for; the sleeper's membarrier orders the two
 * (see the doorbell above), so no fence is needed.  One load when it is awake. */
void shm_wake(int to);
/* The name of the node's segment (its prefix names the job, so mpiexec's
 * clean-up of courier.<kvs>.* covers segments named after it); "" before
 * shm_init or when this process is alone on its node. */
const char *shm_seg_name(void);

extern int shm_nlocal;       /* processes on this node (0 before shm_init) */
extern int shm_me;           /* this process's local index */
#endif
