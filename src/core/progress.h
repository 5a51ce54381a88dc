/* SPDX-License-Identifier: MIT */
/* The progress engine's set-up and its test seams (the engine's interface is
 * in core.h: pollers, cr_progress, the waiting policy). */
#ifndef COURIER_CORE_PROGRESS_H
#define COURIER_CORE_PROGRESS_H
#include "core/core.h"

/* Choose the policy's numbers from the settings (oversubscribed: ranks
 * outnumber cores, or forced) and the transport whose doorbell wakes this
 * process (NULL, or one without TR_CAP_SLEEP: the policy never sleeps). */
void cr_progress_init(int oversubscribed, tr_iface_t *bell);
/* Drop every poller and the doorbell (finalize). */
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

/* What the policy calls to yield and to read the clock; unit tests replace
 * them to watch the policy's steps. */
typedef struct {
    void (*yield)(void);
    uint64_t (*now_ns)(void);
} cr_wait_sys_t;
extern cr_wait_sys_t cr_wait_sys;
/* What the policy did so far (for tests and debugging). */
typedef struct {
    unsigned long yields, sleeps, sleep_aborts;
} cr_wait_stats_t;
extern cr_wait_stats_t cr_wait_stats;
#endif
