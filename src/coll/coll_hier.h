/* SPDX-License-Identifier: MIT */
/* Hierarchical collectives (coll_hier.c): on an intracommunicator whose ranks
 * span several nodes, a node-local phase on each node's communicator (the
 * shm and cma algorithms there) plus a phase among the nodes' leaders (the
 * message algorithms), for blocking calls.  The algorithms themselves are
 * declared in coll.h with the other direct algorithms (coll_<x>_hier). */
#ifndef COURIER_COLL_HIER_H
#define COURIER_COLL_HIER_H
#include "coll/coll.h"

typedef struct coll_hier coll_hier_t;

/* May a hierarchical algorithm run a blocking call on c: an intracommunicator
 * whose ranks span at least two nodes, with some node holding two or more of
 * them, and COURIER_COLL_HIER on; unless `forced`, also every node holding at
 * least COURIER_COLL_HIER_MIN_PPN of them.  The first time it is asked for a
 * communicator that spans nodes it makes the node layer (the node and
 * leaders communicators), which is collective over c: every rank of c must
 * ask in the same call (the selection does, for the collectives that have a
 * hierarchical algorithm).  Every rank gets the same answer. */
int coll_hier_usable(cr_comm_t *c, int forced);
/* Free a communicator's node layer (with its collective state). */
void coll_hier_free(coll_hier_t *h);
#endif
