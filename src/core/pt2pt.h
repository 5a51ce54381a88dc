/* SPDX-License-Identifier: MIT */
/* Point-to-point internals shared by pt2pt.c, request.c and progress.c. */
#ifndef COURIER_CORE_PT2PT_H
#define COURIER_CORE_PT2PT_H
#include "core/core.h"
#include "core/liveness.h"
#include "util/settings.h"
#include <sched.h>

/* An arrived message that no posted receive matched yet. */
typedef struct cr_unexp {
    struct cr_unexp *next;
    uint32_t ctx;
    int src, tag;
    int kind;             /* UX_* */
    size_t bytes;         /* message size */
    void *data;           /* eager payload copy (UX_EAGER) */
    int from;             /* local index of the sender, -1 for this process */
    int sync;             /* sender waits for a match acknowledgement */
    uint64_t sreq;        /* sender's request (sync ack, rendezvous) */
    uint64_t addr;        /* rendezvous: sender's buffer, for single copy */
    int pid, contig;
    cr_request_t *self_req; /* self-send that waits for the match (UX_SELF) */
} cr_unexp_t;
enum { UX_EAGER = 1, UX_RTS, UX_SELF };

/* Request states for proto_state. */
enum {
    PS_NONE = 0,
    PS_QUEUED,         /* send waiting in the peer's out queue */
    PS_WAIT_ACK,       /* synchronous eager send waiting for the match */
    PS_WAIT_CTS,       /* rendezvous send waiting for the receiver */
    PS_STREAM,         /* rendezvous send pushing chunks */
    PS_WAIT_FIN,       /* rendezvous send waiting for the single-copy receiver */
    PS_POSTED,         /* receive in the posted queue */
    PS_RNDV_WAIT,      /* matched rendezvous receive waiting for its turn */
    PS_RNDV_PULL,      /* rendezvous receive pulling chunks */
    PS_RNDV_SPLIT,     /* split single copy: own part read, waiting for the sender's part */
};

/* Complete a request: fills nothing, sets the flag, frees detached requests. */
void cr_req_complete(cr_request_t *r);
void cr_pt2pt_init(void);
int cr_pt2pt_progress(void);
/* One idle poll of a wait loop: when ranks outnumber cores, give the core
 * away after spin_count polls that found nothing. */
static inline void cr_idle_poll(long *spins)
{
    cr_liveness_poll();
    if (cr_proc.oversubscribed && ++*spins >= ut_settings.spin_count) {
        sched_yield();
        *spins = 0;
    }
}

/* Fast paths of the blocking calls (pt2pt.c): 0 done, 1 take the general path. */
int cr_send_fast(const void *data, size_t bytes, int dest, int tag, cr_comm_t *comm);
cr_request_t *cr_isend_fast(const void *data, size_t bytes, int dest, int tag, cr_comm_t *comm);
int cr_recv_fast(void *dst, size_t cap, int src, int tag, cr_comm_t *comm, MPI_Status *status);
#endif
