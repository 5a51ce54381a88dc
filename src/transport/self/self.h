/* SPDX-License-Identifier: MIT */
/* The self transport: active messages from this process to itself
 * (transport.h).  An AM is queued and handed to the handler by the next
 * progress() call, never from inside the send, so the core's protocols run
 * unchanged for self messages; get and put are memcpy. */
#ifndef COURIER_TRANSPORT_SELF_H
#define COURIER_TRANSPORT_SELF_H
#include "transport/transport.h"

/* The interface; me is this process's peer number (the only peer it reaches). */
tr_iface_t *self_init(int me);
extern tr_iface_t self_iface;
#endif
