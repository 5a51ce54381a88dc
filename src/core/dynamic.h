/* SPDX-License-Identifier: MIT */
/* Inside the core: dynamic processes (dynamic.c) and what init.c lends them.
 * The public entries are in api_dyn.h. */
#ifndef COURIER_CORE_DYNAMIC_H
#define COURIER_CORE_DYNAMIC_H
#include "core/core.h"
#include "transport/transport.h"

/* The network transport, started now by this process alone (without PMI)
 * when the job did not start it together, and added to the point-to-point
 * channel (init.c).  NULL, after a message on stderr, when no network
 * transport works here. */
tr_iface_t *cr_net_up(void);

/* The peer number this process gives process `rank` of job `job` (a world
 * rank for its own job, the number given when a dynamic call connected
 * it for another), or -1 when it is not connected to this process. */
int cr_dyn_peer_of(int job, int rank);

/* MPI_Init of a spawned process: when the parent's port is in the
 * environment (COURIER_PARENT_PORT), connect the new MPI_COMM_WORLD to the
 * parents (collective over the world).  MPI_SUCCESS when not spawned. */
int cr_dyn_child_init(void);
/* Close the ports this process left open (MPI_Finalize). */
void cr_dyn_finalize(void);
#endif
