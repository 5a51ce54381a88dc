/* SPDX-License-Identifier: MIT */
/* The network transport over libfabric's reliable datagram endpoints
 * (FI_EP_RDM), for peers on other nodes (transport.h).
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
 * - Addresses: at start-up every process publishes its endpoint name through
 *   the bootstrap (PMI); connect() looks a peer's up on first use and inserts
 *   it in the address vector, so start-up does not grow with N^2 exchanges.
 * - Start-up: MPI_Init opens the endpoint on a thread (ofi_open_begin) and
 *   publishes its address in a barrier it already makes; libfabric is kept
 *   from reading /proc/kallsyms (ofi_dl.c) and rxm's bounce buffers are sized
 *   to Courier's largest eager message unless FI_OFI_RXM_BUFFER_SIZE is set.
 * - Sleeping (TR_CAP_SLEEP unless COURIER_OFI_WAIT=0): the completion queue
 *   has a wait object whose descriptor (sleep_fd) becomes readable when a
 *   peer's bytes arrive; sleep_prepare refuses while operations of this
 *   process are in flight or fi_trywait finds something unread.  A provider
 *   without such a descriptor gets sleeps capped at COURIER_WAIT_SLEEP_POLL_US.
 * - The provider is libfabric's choice among those that give FI_EP_RDM with
 *   send-after-send ordering, narrowed by FI_PROVIDER as libfabric reads it
 *   (e.g. FI_PROVIDER=tcp for tcp;ofi_rxm).  No provider-specific code.
 * Built only when libfabric is found (COURIER_HAVE_OFI); else ofi_init fails. */
#ifndef COURIER_TRANSPORT_OFI_H
#define COURIER_TRANSPORT_OFI_H
#include "transport/transport.h"
#include <stdio.h>

/* Open the endpoint (or take the one ofi_open_begin opened).  publish:
 * OFI_PUBLISH when every process of the job starts it together (collective:
 * the address goes to PMI, then boot->barrier, and finalize meets the others
 * once more); OFI_PUBLISH_PUT the same without the barrier, which the caller
 * promises as its next collective step (MPI_Init shares shm_init's);
 * OFI_ALONE when this process starts it alone for peers of other jobs
 * (dynamic processes: add_peer), without PMI.  Returns the interface, or NULL
 * with a message on stderr when no provider works. */
enum { OFI_ALONE = 0, OFI_PUBLISH = 1, OFI_PUBLISH_PUT = 2 };
tr_iface_t *ofi_init(const tr_boot_t *boot, int publish);
/* Start choosing the provider and opening the endpoint on a thread of its
 * own, so that libfabric's start (tens of milliseconds of system calls, most
 * of a multi-node MPI_Init) runs beside the caller's other start-up work; the
 * next ofi_init waits for it and reports its errors.  0, or -1 when no thread
 * could be made (ofi_init then opens it itself). */
int ofi_open_begin(void);
/* List the providers libfabric offers that this transport can use, marking
 * the one it would choose (courier_info). */
void ofi_print_providers(FILE *out);
/* The provider in use, for messages ("" before ofi_init). */
const char *ofi_provider_name(void);
extern tr_iface_t ofi_iface;
#endif
