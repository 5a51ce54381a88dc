/* SPDX-License-Identifier: MIT */
/* The network transport over libfabric's reliable datagram endpoints
 * (FI_EP_RDM), for peers on other nodes (transport.h): one endpoint per
 * channel, so that threads on different channels share nothing in it.
 *
 * - Active messages are fi_send/fi_sendv of a 32-byte wire header (sender's
 *   peer number, payload length, the core's tr_am_hdr_t) plus the payload,
 *   into receive buffers this process keeps posted (COURIER_OFI_RX_COUNT of
 *   COURIER_OFI_RX_BYTES).  Short AMs are copied (or injected); bulk AMs send
 *   the caller's buffer by reference and complete from progress().
 * - get is fi_read where the provider has RMA (the remote key is a memory
 *   registration); without it the core uses its active-message pipeline.
 *   put is fi_write with FI_DELIVERY_COMPLETE, offered to one-sided
 *   communication only (TR_CAP_ONESIDED; not TR_CAP_PUT, so the rendezvous
 *   does not register a buffer per message for split copies).
 * - atomic is fi_atomic (delivery complete) / fi_fetch_atomic /
 *   fi_compare_atomic where the provider chosen for RMA has FI_ATOMIC too
 *   (TR_CAP_ATOMIC); atomic_max asks fi_query_atomic.  connect() reaches this
 *   process itself too (atomics on its own window memory).
 * - Addresses: at start-up every process publishes its endpoints' names
 *   through the bootstrap (PMI), one key per channel; connect() on channel c
 *   looks up the peer's endpoint of channel c on first use and inserts it in
 *   that endpoint's address vector, so start-up does not grow with N^2
 *   exchanges.
 * - Start-up: MPI_Init opens the endpoints on a thread (ofi_open_begin) and
 *   publishes their addresses in a barrier it already makes; libfabric is kept
 *   from reading /proc/kallsyms (ofi_dl.c) and rxm's bounce buffers are sized
 *   to Courier's largest eager message unless FI_OFI_RXM_BUFFER_SIZE is set.
 * - Sleeping (TR_CAP_SLEEP unless COURIER_OFI_WAIT=0): the completion queue
 *   has a wait object whose descriptor (sleep_fd) becomes readable when a
 *   peer's bytes arrive; sleep_prepare refuses while operations of this
 *   process are in flight (unless the provider has automatic data progress,
 *   as sockets has: its thread completes them and rings the descriptor) or
 *   fi_trywait finds something unread.  A provider
 *   without such a descriptor gets sleeps capped at COURIER_WAIT_SLEEP_POLL_US.
 * - The provider is libfabric's choice among those that give FI_EP_RDM with
 *   send-after-send ordering, narrowed by FI_PROVIDER as libfabric reads it
 *   (e.g. FI_PROVIDER=tcp for tcp;ofi_rxm), except that where it would take
 *   tcp;ofi_rxm, the TCP provider's own RDM endpoint on the same interface
 *   (libfabric 1.17's net) is taken when offered and COURIER_OFI_TCP_NATIVE
 *   is on (off by default: docs/architecture.md, "ofi");
 *   that endpoint's completion queue sleeps on a wait set of the transport's
 *   own.  No other provider-specific code.
 * Built only when libfabric is found (COURIER_HAVE_OFI); else ofi_init fails. */
#ifndef COURIER_TRANSPORT_OFI_H
#define COURIER_TRANSPORT_OFI_H
#include "transport/transport.h"
#include <stdio.h>

/* Open n endpoints, one per channel, each with a fabric domain, completion
 * queue and address vector of its own, into out[0..n-1] (or take the ones
 * ofi_open_begin opened, with the same n): channel c's traffic goes through
 * endpoint c of both processes.  publish: OFI_PUBLISH when every process of
 * the job starts it together, with the same n (collective: each endpoint's
 * address goes to PMI, then one boot->barrier, and finalize meets the others
 * once more, when the last of the n is finalized); OFI_PUBLISH_PUT the same
 * without the barrier, which the caller promises as its next collective step
 * (MPI_Init shares shm_init's); OFI_ALONE when this process starts it alone
 * for peers of other jobs (dynamic processes: add_peer), without PMI.  Each
 * interface is called under its channel's lock alone (transport.h).  Returns
 * 0, or -1 with a message on stderr when no provider works. */
enum { OFI_ALONE = 0, OFI_PUBLISH = 1, OFI_PUBLISH_PUT = 2 };
int ofi_init(const tr_boot_t *boot, int publish, int n, tr_iface_t **out);
/* Start choosing the provider and opening n endpoints on a thread of its
 * own, so that libfabric's start (tens of milliseconds of system calls, most
 * of a multi-node MPI_Init) runs beside the caller's other start-up work; the
 * next ofi_init waits for it and reports its errors.  0, or -1 when no thread
 * could be made (ofi_init then opens them itself). */
int ofi_open_begin(int n);
/* List the providers libfabric offers that this transport can use, marking
 * the one it would choose (courier_info). */
void ofi_print_providers(FILE *out);
/* The provider in use, for messages ("" before ofi_init). */
const char *ofi_provider_name(void);
#endif
