/* SPDX-License-Identifier: MIT */
/* The adaptive protocol choice for time-sliced peers (issue 18): per peer,
 * whether messages between the eager limit and the adaptive eager limit go
 * eagerly through the shared ring (the peer is seen not polling: a
 * rendezvous handshake would cost it a scheduling quantum) or by rendezvous
 * with single copy (both sides run).  Pure logic over what the caller
 * observed; pt2pt.c measures and applies it (docs/architecture.md). */
#ifndef COURIER_ADAPT_H
#define COURIER_ADAPT_H
#include <stdint.h>

enum { CR_ADAPT_OFF = 0, CR_ADAPT_AUTO = 1, CR_ADAPT_FORCE = 2 };

typedef struct {
    int mode;                 /* CR_ADAPT_*: COURIER_ADAPTIVE */
    uint64_t slow_ns;         /* a handshake slower than this: the peer was not polling */
    uint32_t probe_every;     /* eager mode: one message in this many goes by rendezvous, */
    uint32_t probe_max;       /* the interval doubling after each slow probe up to this */
} cr_adapt_cfg_t;

/* One peer's state (zeroed: rendezvous, nothing observed). */
typedef struct {
    uint8_t eager;            /* the adaptive range goes eagerly */
    uint32_t since_probe;     /* adaptive-range messages sent eagerly since the last probe */
    uint32_t interval;        /* messages from one probe to the next */
    uint32_t slow, fast;      /* handshakes observed of each kind (statistics) */
} cr_adapt_t;

/* Start a peer: in eager mode when ranks outnumber cores (time-slicing is
 * certain until a fast handshake says otherwise) or the mode forces it. */
void cr_adapt_init(cr_adapt_t *a, const cr_adapt_cfg_t *cfg, int oversubscribed);

/* A message in the adaptive range is about to go: 1 to send it eagerly, 0
 * by rendezvous (always 0 when off; in eager mode 0 once per probe interval,
 * so that a handshake is measured again; always 1 when forced).  The interval
 * starts at probe_every and doubles with every slow probe, up to probe_max:
 * on a node that stays time-sliced, each probe costs a quantum, so they
 * become rare. */
int cr_adapt_choose_eager(cr_adapt_t *a, const cr_adapt_cfg_t *cfg);

/* A rendezvous handshake with the peer took handshake_ns (request sent to
 * the receiver's first answer), and peer_slept tells whether the peer had
 * announced that it sleeps when the request went.  A slow one (or a
 * sleeping peer) turns eager mode on (or, in eager mode, lengthens the probe
 * interval); a fast one turns it off and resets the interval. */
void cr_adapt_observe(cr_adapt_t *a, const cr_adapt_cfg_t *cfg, uint64_t handshake_ns,
                      int peer_slept);
#endif
