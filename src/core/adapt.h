/* SPDX-License-Identifier: MIT */
/* The adaptive protocol choice for time-sliced peers (issue 18): per peer,
 * whether a message above the eager limit avoids the rendezvous handshake
 * (the peer is seen not running: a handshake would cost it a scheduling
 * quantum) -- up to the adaptive eager limit eagerly through the shared ring,
 * above it through the sender's staging area -- or goes by rendezvous with
 * single copy (both sides run).  Pure logic over what the caller observed;
 * pt2pt.c measures and applies it (docs/architecture.md). */
#ifndef COURIER_ADAPT_H
#define COURIER_ADAPT_H
#include <stdint.h>

enum { CR_ADAPT_OFF = 0, CR_ADAPT_AUTO = 1, CR_ADAPT_FORCE = 2 };

typedef struct {
    int mode;                 /* CR_ADAPT_*: COURIER_ADAPTIVE */
    uint64_t slow_ns;         /* the peer looked at a request later than this: not polling */
    uint32_t probe_every;     /* eager mode: one message in this many goes by rendezvous, */
    uint32_t probe_max;       /* the interval doubling after each slow probe up to this */
    uint64_t busy_bytes_per_us;   /* a late peer that copied at least this much per us of
                                     the delay was busy copying, not descheduled (0: never) */
} cr_adapt_cfg_t;

/* What the sender saw of one rendezvous handshake with the peer. */
typedef struct {
    uint64_t look_ns;         /* from publishing the request to the peer's first look at it */
    uint8_t peer_idle;        /* the peer had published that it is in its waiting policy's
                                 yield or sleep phase when the request went */
    uint8_t peer_slept;       /* ... and that it sleeps on its doorbell */
    uint8_t queued;           /* earlier rendezvous sends of ours to the peer were still
                                 unanswered: the peer may have been busy with them */
    uint64_t copied;          /* bytes the peer copied for messages (its gets, puts and
                                 staging) between the request and its answer, less
                                 this message's own */
} cr_adapt_obs_t;

/* What one handshake says about the peer. */
enum { CR_PEER_UNKNOWN = 0, CR_PEER_RUNNING, CR_PEER_NOT_RUNNING };

/* One peer's state (zeroed: rendezvous, nothing observed). */
typedef struct {
    uint8_t eager;            /* the peer is taken as not running: avoid handshakes */
    uint32_t since_probe;     /* messages that avoided a handshake since the last probe */
    uint32_t interval;        /* messages from one probe to the next */
    uint32_t slow, fast, unknown;   /* verdicts of each kind (statistics) */
} cr_adapt_t;

/* Start a peer: in eager mode when ranks outnumber cores (time-slicing is
 * certain until a fast handshake says otherwise) or the mode forces it. */
void cr_adapt_init(cr_adapt_t *a, const cr_adapt_cfg_t *cfg, int oversubscribed);

/* A message above the eager limit is about to go: 1 to avoid the handshake
 * (eagerly, or staged), 0 by rendezvous (always 0 when off; in eager mode 0
 * once per probe interval, so that a handshake is measured again; always 1
 * when forced).  The interval starts at probe_every and doubles with every
 * probe that finds the peer still not running, up to probe_max: on a node
 * that stays time-sliced each probe costs a quantum, so they become rare. */
int cr_adapt_choose_eager(cr_adapt_t *a, const cr_adapt_cfg_t *cfg);

/* The verdict on one handshake (CR_PEER_*), from the published word first:
 * - a peer that slept is not running (its answer waits for a wake-up);
 * - a look within slow_ns: the peer polls, it runs;
 * - a late look by a peer that copied for messages meanwhile at least
 *   busy_bytes_per_us per microsecond of the delay: it ran, busy with
 *   copies (its own staged sends, its gets of others' messages), and a
 *   handshake costs it no quantum: running;
 * - a late look by a peer in its yield phase: it gave its core away and did
 *   not get it back in time, it is time-sliced: not running;
 * - a late look by a peer that was not waiting, with nothing of ours queued
 *   before the request: it was not polling (descheduled while it spun, or
 *   computing): not running;
 * - a late look with earlier rendezvous of ours unanswered: it may have been
 *   busy copying them (a busy peer, not a descheduled one): unknown. */
int cr_adapt_verdict(const cr_adapt_cfg_t *cfg, const cr_adapt_obs_t *o);

/* Apply one handshake's verdict: not running turns eager mode on (or, in
 * eager mode, lengthens the probe interval); running turns it off and resets
 * the interval; unknown changes nothing.  Returns the verdict. */
int cr_adapt_observe(cr_adapt_t *a, const cr_adapt_cfg_t *cfg, const cr_adapt_obs_t *o);
#endif
