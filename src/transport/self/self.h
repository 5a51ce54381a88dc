/* SPDX-License-Identifier: MIT */
/* The self transport: active messages from this process to itself
 * (transport.h).  An AM is queued and handed to the handler by the next
 * progress() call, never from inside the send, so the core's protocols run
 * unchanged for self messages; get and put are memcpy. */
#ifndef COURIER_TRANSPORT_SELF_H
#define COURIER_TRANSPORT_SELF_H
#include "transport/transport.h"

/* One interface per channel (each its own queue): fills out[0..n-1]; me is
 * this process's peer number (the only peer it reaches).  0, or -1 when out
 * of memory.  Each interface is released by its finalize(). */
int self_init(int me, tr_iface_t **out, int n);
#endif
