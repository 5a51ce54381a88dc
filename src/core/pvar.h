/* SPDX-License-Identifier: MIT */
/* Counters the tools interface reads as performance variables
 * (src/tools/mpit.c): messages and bytes sent, per kind of peer (self,
 * shared memory, network: CR_VC_* of pt2pt.h) and per protocol.
 *
 * The counters are plain integers, one set per channel (core/pt2pt.h), bumped
 * where a message goes on the wire under its channel's lock: two additions
 * on MPI_Send's path, no branch.  Threads on different channels count in
 * different sets, so no count is lost; a reader sums them (a sum read while
 * messages go out may be a few messages behind: performance variables say
 * so). */
#ifndef COURIER_CORE_PVAR_H
#define COURIER_CORE_PVAR_H
#include <stddef.h>

enum { CR_PVAR_EAGER = 0, CR_PVAR_RNDV, CR_PVAR_NPROTO };
enum { CR_PVAR_NKIND = 4 };     /* CR_VC_NONE, _SELF, _SHM, _NET */
enum { CR_PVAR_NCHAN = 64 };    /* CR_MAX_CHANNELS */

typedef struct {
    unsigned long long msgs, bytes;
} cr_pvar_sent_t;

extern cr_pvar_sent_t cr_pvar_sent[CR_PVAR_NCHAN][CR_PVAR_NKIND][CR_PVAR_NPROTO];

/* One message of `bytes` went on channel chan to a peer of kind `kind` by
 * protocol `proto`. */
static inline void cr_pvar_count_send(int chan, int kind, int proto, size_t bytes)
{
    cr_pvar_sent[chan][kind][proto].msgs++;
    cr_pvar_sent[chan][kind][proto].bytes += bytes;
}
/* Small one-sided operations to ranks of this node on MPI_Win_create and
 * dynamic windows (src/rma/shmam.c), this process's totals over all its
 * windows: sent as requests into the target's ring; of those, taken back
 * because the target did not take them in time (then done by copies); done
 * by copies at once (the target seen not polling, or its ring full); and the
 * requests of other ranks this process served from its own rings.  Bumped
 * under the library lock, read as MPI_T performance variables. */
/* Then accumulate-class calls on CPU-atomic windows applied by the vector
 * kernels (an exclusive lock epoch, or bulk mode: src/rma/ops.c), and the
 * times this process entered bulk mode on a target. */
enum { CR_PVAR_RMA_SHM_REQS = 0, CR_PVAR_RMA_SHM_BACK, CR_PVAR_RMA_SHM_COPIES,
       CR_PVAR_RMA_SHM_SERVED, CR_PVAR_RMA_ACC_VECTOR, CR_PVAR_RMA_ACC_BULK_ENTRIES,
       CR_PVAR_NRMA };
extern unsigned long long cr_pvar_rma[CR_PVAR_NRMA];
/* The counts of every channel together. */
cr_pvar_sent_t cr_pvar_sent_total(int kind, int proto);
/* Receives posted and not yet matched (unexpected 0), or messages arrived
 * and not yet matched (unexpected 1), now. */
size_t cr_pvar_queue_length(int unexpected);
#endif
