/* SPDX-License-Identifier: MIT */
/* Liveness of the job seen from one rank (liveness.c): a rank that dies must
 * end the whole job even under a launcher that does not end it (srun keeps
 * the other ranks waiting).  While a wait is idle, every COURIER_LIVENESS_MS
 * the ranks on this node are checked through pidfds (one poll() for all of
 * them) and the launcher connection through crpmi_check(); a rank that is
 * gone aborts the job with a message naming it (and its signal where the
 * kernel still shows it).  A rank that crashes on a signal says so itself
 * first (COURIER_CRASH_REPORT). */
#ifndef COURIER_CORE_LIVENESS_H
#define COURIER_CORE_LIVENESS_H

/* Idle polls between two looks at the clock in cr_liveness_poll(). */
#define CR_LIVENESS_POLL_BATCH 64u

extern unsigned cr_liveness_idle_polls;

/* MPI_Init, before the first PMI barrier: publish this process's identity
 * (pid, start time, pid namespace) for the other ranks of its node and
 * install the crash report.  Does nothing more in a job of one rank. */
void cr_liveness_init(void);
/* MPI_Finalize entered: from now on a peer may exit normally (it finished
 * MPI_Finalize first), so a dead peer only aborts the job when the wait stays
 * idle well past what ending MPI_Finalize takes. */
void cr_liveness_finalizing(void);
/* The check itself: returns at once unless COURIER_LIVENESS_MS passed since
 * the last one; aborts the job (does not return) when a local rank or the
 * launcher is gone. */
void cr_liveness_check(void);

/* Call from the idle branch of every wait loop (one that found nothing to do).
 * Costs an increment and a compare; every CR_LIVENESS_POLL_BATCH idle polls
 * it calls cr_liveness_check().  A wait that blocks in the kernel instead of
 * polling must wake at least every COURIER_LIVENESS_MS and call this. */
static inline void cr_liveness_poll(void)
{
    if (__builtin_expect(++cr_liveness_idle_polls >= CR_LIVENESS_POLL_BATCH, 0))
        cr_liveness_check();
}
#endif
