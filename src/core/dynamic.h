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

/* MPI_Intercomm_create between groups that span jobs: processes of another
 * job that this process may never have met become peers of their own.
 * cr_dyn_row fills this process's row of cr_dyn_row_ints() ints (network
 * address, next free peer number; the network transport starts if needed).
 * cr_dyn_peers_from then gives the peer number of every remote process:
 * ids/rids are (job, world rank) pairs of the local (ln, this process at
 * index me) and remote (rn) groups, rows/rrows their rows.  MPI_SUCCESS or
 * an error. */
int cr_dyn_row_ints(void);
void cr_dyn_row(int *row);
int cr_dyn_peers_from(const int *ids, const int *rows, int ln, int me, const int *rids,
                      const int *rrows, int rn, int id_stride, int *peers, const char *fname);

/* MPI_Init of a spawned process: when the parent's port is in the
 * environment (COURIER_PARENT_PORT), connect the new MPI_COMM_WORLD to the
 * parents (collective over the world).  MPI_SUCCESS when not spawned. */
int cr_dyn_child_init(void);
/* Close the ports this process left open (MPI_Finalize). */
void cr_dyn_finalize(void);
#endif
