/* SPDX-License-Identifier: MIT */
/* Debugging one rank (docs/usage.md, "Debugging"): crash backtraces and
 * COURIER_ATTACH.  Called once at the end of MPI_Init. */
#ifndef COURIER_CORE_DEBUG_H
#define COURIER_CORE_DEBUG_H

/* The rank's debugger hook: while it is nonzero, the rank named by
 * COURIER_ATTACH waits in core_debug_init(); a debugger attaches and sets it
 * to 0 (`set var *(int *)&courier_debug_wait = 0`).  Exported so gdb finds it. */
extern volatile int courier_debug_wait;

/* With COURIER_BACKTRACE (default on), install the fatal-signal backtrace
 * (util/backtrace.h) labelled with this rank, pid and host.  When
 * COURIER_ATTACH equals `world_rank`, print "rank R waits for a debugger: pid
 * P on host H" and the gdb command on stderr, then sleep until a debugger
 * clears courier_debug_wait.  Returns when both are done. */
void core_debug_init(int world_rank, const char *hostname);
#endif
