/* SPDX-License-Identifier: MIT */
/* Liveness of the job seen from one rank (liveness.c): a rank that dies must
 * end the whole job even under a launcher that does not end it (srun keeps
 * the other ranks waiting).  While a wait is idle, every COURIER_LIVENESS_MS
 * the ranks on this node are checked through pidfds (one poll() for all of
 * them) and the launcher connection through crpmi_check(); a rank that is
 * gone aborts the job with a message naming it (and its signal where the
 * kernel still shows it).  A rank that crashes on a signal says so itself
 * first (the backtrace of src/util/backtrace.c, COURIER_BACKTRACE). */
#ifndef COURIER_CORE_LIVENESS_H
#define COURIER_CORE_LIVENESS_H

/* MPI_Init, before the ranks exchange their nodes: this process's identity
 * (pid, start time, pid namespace).  Does nothing in a job of one rank. */
void cr_liveness_init(void);
/* This process's identity as a string without spaces or '#' ("" when the
 * checks are off): find_local_ranks (init.c) publishes it with its node, so
 * that the checks need no PMI request of their own once the job runs (a
 * request in flight when a rank dies can break a launcher: Hydra's proxy
 * gave up on the reply it could not deliver, and the crashed rank's report
 * with it). */
const char *cr_liveness_ident(void);
/* The identity world rank `rank` (on this node) published; ident is copied. */
void cr_liveness_peer(int rank, const char *ident);
/* MPI_Finalize entered: from now on a peer may exit normally (it finished
 * MPI_Finalize first), so a dead peer only aborts the job when the wait stays
 * idle well past what ending MPI_Finalize takes. */
void cr_liveness_finalizing(void);
/* The check itself, called by the waiting policy on every idle poll past
 * its spin phase (progress.c): returns at once unless COURIER_LIVENESS_MS
 * passed since the last one (one read of the coarse clock); aborts the job
 * (does not return) when a local rank or the launcher is gone.  The policy's
 * sleep in the kernel wakes at least every COURIER_LIVENESS_MS for it. */
void cr_liveness_check(void);
#endif
