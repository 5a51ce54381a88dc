/* SPDX-License-Identifier: MIT */
/* Process topologies (src/core/topo.c), as the neighbor collectives
 * (src/coll/coll_neighbor.c) see them. */
#ifndef COURIER_CORE_TOPO_H
#define COURIER_CORE_TOPO_H
#include "core/core.h"

typedef struct cr_topo {
    int kind;                 /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART */
    int ndims;
    int *dims, *periods, *coords;   /* coords: this process's */
    /* MPI_GRAPH: the whole graph, as given to MPI_Graph_create */
    int nnodes, nedges;
    int *index, *edges;
    /* MPI_DIST_GRAPH: weights are NULL when unweighted */
    int weighted;
    int *inw, *outw;
    /* This process's neighbors in the standard's order (comm ranks, maybe
     * MPI_PROC_NULL for a cart edge): the sources of neighbor-collective data
     * (in) and its destinations (out).  Cart: for each dimension the -1 then
     * the +1 neighbor, in and out alike; graph: the adjacency list, both ways. */
    int nin, nout;
    int *in, *out;
} cr_topo_t;

/* comm's topology, or NULL when it has none. */
static inline const cr_topo_t *cr_topo_of(const cr_comm_t *c)
{
    return (const cr_topo_t *)c->topo;
}
#endif
