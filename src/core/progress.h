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
