/* SPDX-License-Identifier: MIT */
/* The progress engine's set-up and its test seams (the engine's interface is
 * in core.h: pollers, cr_progress, the waiting policy). */
#ifndef COURIER_CORE_PROGRESS_H
#define COURIER_CORE_PROGRESS_H
#include "core/core.h"

#include <poll.h>

/* Most transports whose doorbells one process sleeps on. */
#define CR_PROGRESS_MAX_BELLS 4
/* Choose the policy's numbers from the settings (oversubscribed: ranks
 * outnumber cores, or forced) and the n transports through which a peer's
 * message may arrive, whose doorbells wake this process (NULL entries are
 * skipped).  When one of them lacks TR_CAP_SLEEP (or none is given, or more
 * than CR_PROGRESS_MAX_BELLS), the policy never sleeps.  With several, a
 * sleep blocks in poll() on their sleep_fd descriptors, at most
 * COURIER_WAIT_SLEEP_POLL_US when one of them has none. */
void cr_progress_init(int oversubscribed, tr_iface_t **wakers, int n);
/* A transport started later (the network, for dynamic processes) through
 * which messages may now arrive: its doorbell joins the others, or, when it
 * lacks TR_CAP_SLEEP or there is no room, the policy stops sleeping. */
void cr_progress_add_waker(tr_iface_t *tr);
/* The network transport is polled from now on: an idle poll then costs
 * microseconds of system calls (libfabric's tcp: epoll_wait and reads)
 * instead of the nanoseconds of a shared-memory poll, so the spin phase is
 * capped at COURIER_SPIN_COUNT_NETWORK polls; past it a wait yields and then
 * sleeps as always.  (With 1000 polls a rank spun for milliseconds before
 * yielding, which starved its peer wherever ranks share cores: pretend nodes,
 * oversubscribed hosts.) */
void cr_progress_net_polled(void);
/* Drop every poller and the doorbells (finalize). */
void cr_progress_fini(void);
/* 1 when the policy may sleep now: a doorbell exists and no poller objects. */
int cr_progress_can_sleep(void);
/* Wake every thread of this process that sleeps on its doorbell (nothing
 * when none does, or there is no doorbell); threads.c calls it when it lets
 * the library lock go after a hold that may have completed their requests. */
void cr_progress_wake_sleepers(void);
/* The idle step of a loop that holds the library lock at depth 1 and runs
 * no request of its own (the asynchronous progress thread): once idle for
 * COURIER_WAIT_SLEEP_US, sleep on the doorbell unless *quit is set; returns
 * the events a last poll found, 1 after a sleep, or -1 when it did not
 * sleep (the caller naps or yields). */
int cr_wait_idle_sleep(cr_wait_t *w, const int *quit);

/* The doorbell sleep of a thread that waits on one channel, without the
 * library lock (the channel path's waits, p2p_api.c): cr_wait_bell_prepare
 * announces the sleep on the process's doorbell (0), or returns -1 when a
 * thread may not sleep now (no doorbell, several, one with a descriptor, or
 * COURIER_WAIT_SLEEP_US -1); after it the caller polls once more and either
 * takes the announcement back (cr_wait_bell_cancel) or sleeps until the
 * doorbell rings, at most max_us (cr_wait_bell_sleep). */
int cr_wait_bell_prepare(void);
void cr_wait_bell_cancel(void);
void cr_wait_bell_sleep(long max_us);

/* What the policy calls to yield, to read the clock and to block on several
 * doorbells' descriptors (ppoll: returns how many are ready, 0 when max_us
 * ran out); unit tests replace them to watch the policy's steps. */
typedef struct {
    void (*yield)(void);
    uint64_t (*now_ns)(void);
    int (*block)(struct pollfd *fds, int nfds, long max_us);
} cr_wait_sys_t;
extern cr_wait_sys_t cr_wait_sys;
/* What the policy did so far (for tests and debugging). */
typedef struct {
    unsigned long yields, sleeps, sleep_aborts;
    unsigned long sleep_timeouts;   /* sleeps on several doorbells that ran out */
} cr_wait_stats_t;
extern cr_wait_stats_t cr_wait_stats;
#endif
