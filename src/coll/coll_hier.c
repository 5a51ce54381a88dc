/* SPDX-License-Identifier: MIT */
/* Hierarchical collectives: a communicator whose ranks span several nodes
 * runs a collective as a node-local phase among the ranks of each node plus a
 * phase among the nodes' leaders over the network (coll_hier.h).
 *
 * The node layer of a communicator (its node communicator, its leaders'
 * communicator and where every rank lives) is made on the first blocking call
 * that considers a hierarchical algorithm and lives in the communicator's
 * collective state (coll_shm_t.hier) until the communicator is freed.  The
 * phases are ordinary blocking collectives on the two internal
 * communicators (src/coll/api.h's core entry points), so each phase takes the
 * algorithm the selection gives there: the shm and cma algorithms on a node,
 * the message algorithms among the leaders, and any forced algorithm. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll_hier.h"
#include "coll/coll_shm.h"
#include "coll/api.h"
#include "util/settings.h"

typedef struct coll_hier {
    int state;                  /* CSHM_UNKNOWN until made, CSHM_OK, CSHM_NONE for good */
    int nnodes, min_ppn;
    cr_comm_t *node;            /* the ranks of this node, in the communicator's order */
    cr_comm_t *leaders;         /* the nodes' first ranks; NULL on the other ranks */
    int *node_of;               /* rank -> node (= leader's rank in leaders) */
    int *order;                 /* position -> rank, nodes one after the other */
    int *pos;                   /* rank -> position */
    int *first;                 /* node k holds positions first[k] .. first[k+1]-1 */
    int identity;               /* order[i] == i: every node is a run of ranks */
    int64_t *counts, *displs;   /* each node's share of a packed vector (node_shares) */
} coll_hier_t;

void coll_hier_free(coll_hier_t *h)
{
    if (!h) return;
    cr_comm_release(h->node);
    cr_comm_release(h->leaders);
    free(h->node_of);
    free(h->order);
    free(h->pos);
    free(h->first);
    free(h->counts);
    free(h->displs);
    free(h);
}

/* Does c have ranks on another node than this one?  Every rank gets the same
 * answer: if any rank sees a rank elsewhere, c spans at least two nodes.
 * A communicator with processes of another job (dynamic processes: their
 * peer numbers follow the world ranks) answers no on every rank, since each
 * sees the other job's processes so: the node colours of two jobs do not
 * name the same nodes, so such communicators stay flat. */
static int spans_nodes(const cr_comm_t *c)
{
    int elsewhere = 0;
    for (int r = 0; r < c->size; r++) {
        int peer = cr_comm_world_rank(c, r);
        if (peer >= cr_proc.world_size) return 0;
        elsewhere |= cr_peer_local(peer) < 0;
    }
    return elsewhere;
}

/* Make the node layer (collective over c).  State CSHM_NONE where it would not
 * help: every node holds one rank (the leaders would be c itself). */
static int make_layer(cr_comm_t *c, coll_hier_t *h)
{
    int p = c->size;
    h->node_of = malloc((size_t)p * sizeof(int));
    h->order = malloc((size_t)p * sizeof(int));
    h->pos = malloc((size_t)p * sizeof(int));
    h->first = malloc((size_t)(p + 1) * sizeof(int));
    h->counts = malloc((size_t)p * sizeof(int64_t));   /* nnodes <= p */
    h->displs = malloc((size_t)p * sizeof(int64_t));
    int *fill = malloc((size_t)p * sizeof(int));   /* next free position of each node */
    int ok = h->node_of && h->order && h->pos && h->first && h->counts && h->displs && fill;
    int e = ok ? cr_comm_node_split(c, h->node_of, &h->nnodes, &h->node, &h->leaders)
               : cr_error(MPI_ERR_NO_MEM, "no memory for the node layer of a communicator");
    /* every rank must take the same decision: agree on whether it worked */
    ok = !e;
    int e2 = coll_shm_small_coll(c, &ok, 1, 1);
    if (e || e2 || !ok || h->nnodes >= p) {
        free(fill);
        h->state = CSHM_NONE;
        return e ? e : e2;
    }
    /* positions: node by node, each node's ranks in rank order */
    int n = h->nnodes;
    memset(h->first, 0, (size_t)(n + 1) * sizeof(int));
    for (int r = 0; r < p; r++) h->first[h->node_of[r] + 1]++;
    h->min_ppn = p;
    for (int k = 0; k < n; k++) {
        if (h->first[k + 1] < h->min_ppn) h->min_ppn = h->first[k + 1];
        h->first[k + 1] += h->first[k];
    }
    memcpy(fill, h->first, (size_t)n * sizeof(int));
    h->identity = 1;
    for (int r = 0; r < p; r++) {
        int i = fill[h->node_of[r]]++;
        h->order[i] = r;
        h->pos[r] = i;
        if (i != r) h->identity = 0;
    }
    free(fill);
    /* the leaders' communicator has one rank per node: no layer to make there */
    coll_shm_t *la = h->leaders ? coll_shm_state(h->leaders) : NULL;
    if (la && !la->hier && (la->hier = calloc(1, sizeof *la->hier))) la->hier->state = CSHM_NONE;
    h->state = CSHM_OK;
    return MPI_SUCCESS;
}

int coll_hier_usable(cr_comm_t *c, int forced)
{
    if (c->remote || c->size < 3 || !ut_settings.coll_hier) return 0;
    coll_shm_t *a = coll_shm_state(c);
    if (!a) return 0;
    coll_hier_t *h = a->hier;
    if (!h) {
        h = calloc(1, sizeof *h);
        if (!h) return 0;   /* out of memory: flat here (as when coll_shm_state fails) */
        h->state = spans_nodes(c) ? CSHM_UNKNOWN : CSHM_NONE;
        a->hier = h;
    }
    if (h->state == CSHM_UNKNOWN) make_layer(c, h);
    if (h->state != CSHM_OK) return 0;
    return forced || h->min_ppn >= ut_settings.coll_hier_min_ppn;
}

static coll_hier_t *hier_of(const cr_comm_t *c)
{
    return ((coll_shm_t *)c->coll_shm)->hier;
}

/* The first error of two steps (later phases still run, so that no peer is
 * left waiting on a rank that gave up). */
static int keep(int e, int e2)
{
    return e ? e : e2;
}

/* This rank's node. */
static int my_node(const coll_hier_t *h, const cr_comm_t *c)
{
    return h->node_of[c->rank];
}
/* Rank r's rank in its node's communicator. */
static int node_rank(const coll_hier_t *h, int r)
{
    return h->pos[r] - h->first[h->node_of[r]];
}

/* count elements of dt from node rank `from` to node rank `to` over the node
 * communicator: every rank of the node calls it (the node's collective
 * sequence stays in step). */
static int node_hop(coll_hier_t *h, void *buf, MPI_Aint count, cr_datatype_t *dt, int from,
                    int to)
{
    cr_comm_t *n = h->node;
    coll_sched_t s;
    coll_sched_init(&s, n, coll_blocking_tag(n));   /* a blocking call's phase */
    if (n->rank == from) coll_sched_send(&s, buf, count, dt, to);
    else if (n->rank == to) coll_sched_recv(&s, buf, count, dt, from);
    int e = coll_sched_run(&s);
    coll_sched_free(&s);
    return e;
}

/* A temporary for count elements of dt in dt's layout (the pointer a user
 * would pass); *raw is what to free. */
static void *tmp_of(MPI_Aint count, const cr_datatype_t *dt, void **raw)
{
    size_t span = cshm_span(count, dt);
    *raw = malloc(span ? span : 1);
    return *raw ? cshm_lay(*raw, count, dt) : NULL;
}

/* Run one hierarchical algorithm; the phases' own selections must not show
 * in the tools interface's coll_last_alg (coll_select set this call's). */
typedef int (*hier_fn)(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a);
static int hier_run(cr_comm_t *c, const coll_args_t *a, hier_fn fn)
{
    int saved[COLL_NCOLL];
    memcpy(saved, coll_last_alg, sizeof saved);
    int e = fn(hier_of(c), c, a);
    memcpy(coll_last_alg, saved, sizeof saved);
    return e;
}

/* ---- barrier: node, leaders, node ------------------------------------------------ */
static int barrier(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    (void)c, (void)a;
    int e = core_barrier(h->node, CR_BLOCKING, NULL, NULL);
    if (h->leaders) e = keep(e, core_barrier(h->leaders, CR_BLOCKING, NULL, NULL));
    return keep(e, core_barrier(h->node, CR_BLOCKING, NULL, NULL));
}

int coll_barrier_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, barrier);
}

/* ---- bcast: the root's node, the leaders, the other nodes --------------------------- */
static int bcast(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    int rn = h->node_of[a->root], mine = my_node(h, c), e = MPI_SUCCESS;
    if (mine == rn)
        e = core_bcast(a->rbuf, a->count, a->dt, node_rank(h, a->root), h->node, CR_BLOCKING,
                       NULL, NULL);
    if (h->leaders)
        e = keep(e, core_bcast(a->rbuf, a->count, a->dt, rn, h->leaders, CR_BLOCKING, NULL, NULL));
    if (mine != rn)
        e = keep(e, core_bcast(a->rbuf, a->count, a->dt, 0, h->node, CR_BLOCKING, NULL, NULL));
    return e;
}

int coll_bcast_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, bcast);
}

/* ---- reduce (commutative ops): node to its leader, leaders to the root's leader,
 * then a hop to the root when it does not lead its node ----------------------------- */
static int reduce(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    int rn = h->node_of[a->root], mine = my_node(h, c);
    int am_root = c->rank == a->root, leads = h->node->rank == 0;
    cr_op_t *op = (cr_op_t *)a->op;
    /* this rank's operand: MPI_IN_PLACE only at the root, whose operand is in rbuf */
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    void *raw = NULL, *part = NULL;   /* a leader's partial result */
    int e;
    if (leads) {
        part = am_root ? a->rbuf : tmp_of(a->count, a->dt, &raw);
        if (!part) return cr_error(MPI_ERR_NO_MEM, "MPI_Reduce: no memory for a partial result");
        e = core_reduce(in == part ? MPI_IN_PLACE : in, part, a->count, a->dt, op, 0, h->node,
                        CR_BLOCKING, NULL, NULL);
        int lroot = h->leaders->rank == rn;
        e = keep(e, core_reduce(lroot ? MPI_IN_PLACE : part, lroot ? part : NULL, a->count,
                                a->dt, op, rn, h->leaders, CR_BLOCKING, NULL, NULL));
    } else {
        e = core_reduce(in, NULL, a->count, a->dt, op, 0, h->node, CR_BLOCKING, NULL, NULL);
    }
    if (mine == rn && node_rank(h, a->root) != 0)
        e = keep(e, node_hop(h, leads ? part : a->rbuf, a->count, a->dt, 0, node_rank(h, a->root)));
    free(raw);
    return e;
}

int coll_reduce_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, reduce);
}

/* ---- allreduce (commutative ops): node reduce, leaders allreduce, node bcast -------- */
static int allreduce(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    cr_op_t *op = (cr_op_t *)a->op;
    int e;
    if (h->node->rank == 0) {
        e = core_reduce(a->sbuf, a->rbuf, a->count, a->dt, op, 0, h->node, CR_BLOCKING, NULL,
                        NULL);
        e = keep(e, core_allreduce(MPI_IN_PLACE, a->rbuf, a->count, a->dt, op, h->leaders,
                                   CR_BLOCKING, NULL, NULL));
    } else {
        const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
        e = core_reduce(in, NULL, a->count, a->dt, op, 0, h->node, CR_BLOCKING, NULL, NULL);
    }
    return keep(e, core_bcast(a->rbuf, a->count, a->dt, 0, h->node, CR_BLOCKING, NULL, NULL));
}

int coll_allreduce_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, allreduce);
}

/* ---- gather and allgather: blocks travel packed (B bytes each), node by node ------ */
/* The packed vector of all blocks (size * B bytes, position order): rbuf
 * itself where positions are ranks and the receive type is contiguous, else a
 * temporary (*raw) that unpack_all() spreads into rbuf. */
static char *packed_all(const coll_hier_t *h, const cr_comm_t *c, const coll_args_t *a,
                        size_t B, void **raw)
{
    *raw = NULL;
    if (h->identity && a->rdt && a->rdt->contig) return (char *)a->rbuf + a->rdt->true_lb;
    *raw = malloc((size_t)c->size * B);
    return *raw;
}

static void unpack_all(const coll_hier_t *h, const cr_comm_t *c, const coll_args_t *a,
                       const char *all, size_t B)
{
    for (int i = 0; i < c->size; i++) {
        int r = h->order[i];
        if (r == c->rank && a->sbuf == MPI_IN_PLACE) continue;   /* already there */
        cshm_unpack(all + (size_t)i * B, coll_elem(a->rbuf, (MPI_Aint)r * a->rcount, a->rdt),
                    a->rcount, a->rdt);
    }
}

/* Node phase of both: gather every rank's block, packed, to the node's leader
 * at nodebuf (its node's part of the packed vector; significant there only). */
static int node_gather(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a, size_t B,
                       char *nodebuf)
{
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    cshm_view_t v;
    int e = a->sbuf == MPI_IN_PLACE
                ? cshm_view(&v, coll_elem(a->rbuf, (MPI_Aint)c->rank * a->rcount, a->rdt),
                            a->rcount, a->rdt)
                : cshm_view(&v, a->sbuf, a->scount, a->sdt);
    if (e) return e;   /* out of memory packing: nothing sensible to send */
    if (h->node->rank == 0) {
        if (!e && nodebuf != v.p) memcpy(nodebuf, v.p, B);
        e = keep(e, core_gather(MPI_IN_PLACE, 0, NULL, nodebuf, (MPI_Count)B, byte, 0, h->node,
                                CR_BLOCKING, NULL, NULL));
    } else {
        e = keep(e, core_gather(v.p, (MPI_Count)B, byte, NULL, 0, NULL, 0, h->node, CR_BLOCKING,
                                NULL, NULL));
    }
    cshm_view_free(&v);
    return e;
}

/* Each node's share of the packed vector of B-byte blocks, for the leaders'
 * v collectives (h->counts, h->displs; blocking calls on one communicator
 * never overlap, so one pair of arrays serves them all). */
static void node_shares(coll_hier_t *h, size_t B)
{
    for (int k = 0; k < h->nnodes; k++) {
        h->counts[k] = (int64_t)((size_t)(h->first[k + 1] - h->first[k]) * B);
        h->displs[k] = (int64_t)((size_t)h->first[k] * B);
    }
}

static int gather(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    size_t B = a->bytes;
    if (B == 0) return MPI_SUCCESS;   /* the same on every rank: nothing moves */
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    int rn = h->node_of[a->root], mine = my_node(h, c);
    int am_root = c->rank == a->root, leads = h->node->rank == 0;
    int in_root_node = mine == rn;
    size_t nb = (size_t)(h->first[mine + 1] - h->first[mine]) * B;
    /* the packed vector: at the root, and at its node's leader (for the hop) */
    void *raw = NULL;
    char *all = NULL, *nodebuf = NULL;
    int e = MPI_SUCCESS;
    if (am_root) all = packed_all(h, c, a, B, &raw);
    else if (in_root_node && leads) all = raw = malloc((size_t)c->size * B);
    else if (leads) nodebuf = raw = malloc(nb);
    if (all) nodebuf = all + (size_t)h->first[mine] * B;
    if ((am_root || leads) && !nodebuf)
        e = cr_error(MPI_ERR_NO_MEM, "MPI_Gather: no memory for %zu bytes", (size_t)c->size * B);
    if (am_root && !leads) nodebuf = NULL;   /* not significant at a non-leader */
    char scratch;
    e = keep(e, node_gather(h, c, a, B, nodebuf ? nodebuf : &scratch));
    if (leads) {
        node_shares(h, B);
        e = keep(e, core_gatherv(mine == rn ? MPI_IN_PLACE : nodebuf, (MPI_Count)nb, byte, all,
                                 CR_VEC(h->counts), CR_VEC(h->displs), byte, rn, h->leaders,
                                 CR_BLOCKING, NULL, NULL));
    }
    if (in_root_node && node_rank(h, a->root) != 0)
        e = keep(e, node_hop(h, all, (MPI_Aint)((size_t)c->size * B), byte, 0,
                             node_rank(h, a->root)));
    if (am_root && raw && !e) unpack_all(h, c, a, all, B);
    free(raw);
    return e;
}

int coll_gather_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, gather);
}

static int allgather(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    size_t B = a->bytes;
    if (B == 0) return MPI_SUCCESS;
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    int mine = my_node(h, c);
    void *raw;
    char *all = packed_all(h, c, a, B, &raw);
    int e = all ? MPI_SUCCESS
                : cr_error(MPI_ERR_NO_MEM, "MPI_Allgather: no memory for %zu bytes",
                           (size_t)c->size * B);
    char scratch;
    char *nodebuf = all ? all + (size_t)h->first[mine] * B : &scratch;
    e = keep(e, node_gather(h, c, a, B, nodebuf));
    if (h->leaders) {
        node_shares(h, B);
        e = keep(e, core_allgatherv(MPI_IN_PLACE, 0, NULL, all, CR_VEC(h->counts),
                                    CR_VEC(h->displs), byte, h->leaders, CR_BLOCKING, NULL, NULL));
    }
    e = keep(e, core_bcast(all, (MPI_Count)((size_t)c->size * B), byte, 0, h->node, CR_BLOCKING,
                           NULL, NULL));
    if (raw && !e) unpack_all(h, c, a, all, B);
    free(raw);
    return e;
}

int coll_allgather_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, allgather);
}

/* ---- scatter: the mirror of gather ---------------------------------------------- */
/* The root packs the blocks in position order (or uses sbuf itself where the
 * positions are the ranks and the send type is contiguous), hands them to its
 * node's leader when it does not lead, the leaders scatter each node its share
 * (scatterv), each leader scatters its node's blocks. */
static int scatter(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    size_t B = a->bytes;
    if (B == 0) return MPI_SUCCESS;
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    int rn = h->node_of[a->root], mine = my_node(h, c);
    int am_root = c->rank == a->root, leads = h->node->rank == 0, in_root_node = mine == rn;
    size_t nb = (size_t)(h->first[mine + 1] - h->first[mine]) * B;
    void *raw = NULL;
    char *all = NULL, *nodebuf = NULL;
    int e = MPI_SUCCESS;
    if (am_root && h->identity && a->sdt->contig) {
        all = (char *)a->sbuf + a->sdt->true_lb;
    } else if (am_root || (in_root_node && leads)) {
        all = raw = malloc((size_t)c->size * B);
        if (all && am_root)
            for (int i = 0; i < c->size; i++)
                cshm_pack(coll_elem(a->sbuf, (MPI_Aint)h->order[i] * a->scount, a->sdt),
                          a->scount, a->sdt, all + (size_t)i * B);
    } else if (leads) {
        nodebuf = raw = malloc(nb);
    }
    if (all) nodebuf = all + (size_t)h->first[mine] * B;
    if ((am_root || leads) && !nodebuf)
        return cr_error(MPI_ERR_NO_MEM, "MPI_Scatter: no memory for %zu bytes",
                        (size_t)c->size * B);
    if (in_root_node && node_rank(h, a->root) != 0)
        e = node_hop(h, all, (MPI_Aint)((size_t)c->size * B), byte, node_rank(h, a->root), 0);
    if (leads) {
        node_shares(h, B);
        e = keep(e, core_scatterv(all, CR_VEC(h->counts), CR_VEC(h->displs), byte,
                                  mine == rn ? MPI_IN_PLACE : nodebuf, (MPI_Count)nb, byte, rn,
                                  h->leaders, CR_BLOCKING, NULL, NULL));
    }
    /* the node phase: this rank's block, packed, straight into rbuf for a
     * contiguous type, else into a temporary; the root that passed
     * MPI_IN_PLACE receives its own block into the temporary and drops it */
    int keep_own = am_root && a->rbuf == MPI_IN_PLACE;
    int direct = !keep_own && a->rdt->contig;
    void *got = direct ? (char *)a->rbuf + a->rdt->true_lb : malloc(B);
    if (!got) e = keep(e, cr_error(MPI_ERR_NO_MEM, "MPI_Scatter: no memory for %zu bytes", B));
    if (leads) {
        e = keep(e, core_scatter(nodebuf, (MPI_Count)B, byte, MPI_IN_PLACE, 0, NULL, 0, h->node,
                                 CR_BLOCKING, NULL, NULL));
        if (got) memcpy(got, nodebuf, B);   /* the leader's own block comes first */
    } else if (got) {
        e = keep(e, core_scatter(NULL, 0, NULL, got, (MPI_Count)B, byte, 0, h->node, CR_BLOCKING,
                                 NULL, NULL));
    }
    if (got && !direct && !keep_own && !e) cshm_unpack(got, a->rbuf, a->rcount, a->rdt);
    if (!direct) free(got);
    free(raw);
    return e;
}

int coll_scatter_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, scatter);
}

/* ---- alltoall: node gather to the leader, leaders' alltoallv, node scatter -------- */
/* Every rank packs its p blocks (B bytes each) in the destination's position
 * order and the node gathers these rows to its leader.  Leader k sends leader
 * j, in one message, the blocks its node's ranks hold for node j's ranks
 * (q_k x q_j blocks, by source then destination), so that what arrives, from
 * all nodes, is a (source position) x (destination on this node) matrix; the
 * leader turns it into one row per destination (by source position) and
 * scatters the rows; each rank unpacks its row in rank order.  Between nodes
 * N (N - 1) messages instead of p (p - q). */
static int alltoall(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    size_t B = a->bytes;
    if (B == 0) return MPI_SUCCESS;
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    int p = c->size, mine = my_node(h, c), leads = h->node->rank == 0, n = h->nnodes;
    size_t q = (size_t)(h->first[mine + 1] - h->first[mine]), row = (size_t)p * B;
    char *out = malloc(row), *rows = NULL, *sendv = NULL, *recvv = NULL;
    int64_t *v = NULL;   /* the leaders' counts and displacements, 4 x nnodes */
    if (leads) {
        rows = malloc(q * row);
        sendv = malloc(q * row);
        recvv = malloc(q * row);
        v = malloc(4 * (size_t)n * sizeof *v);
    }
    if (!out || (leads && (!rows || !sendv || !recvv || !v))) {
        free(out), free(rows), free(sendv), free(recvv), free(v);
        return cr_error(MPI_ERR_NO_MEM, "MPI_Alltoall: no memory for %zu bytes", q * row);
    }
    coll_side_t sd = a->sbuf == MPI_IN_PLACE ? coll_recv_side(a) : coll_send_side(a);
    coll_side_t rd = coll_recv_side(a);
    for (int i = 0; i < p; i++) {
        char *blk;
        MPI_Aint cnt;
        cr_datatype_t *dt;
        coll_block(&sd, h->order[i], &blk, &cnt, &dt);
        cshm_pack(blk, cnt, dt, out + (size_t)i * B);
    }
    int e = core_gather(out, (MPI_Count)row, byte, rows, (MPI_Count)row, byte, 0, h->node,
                        CR_BLOCKING, NULL, NULL);
    if (leads) {
        int64_t *sc = v, *sdp = v + n, *rc = v + 2 * n, *rdp = v + 3 * n;
        size_t off = 0;
        for (int j = 0; j < n; j++) {
            size_t qj = (size_t)(h->first[j + 1] - h->first[j]);
            sc[j] = (int64_t)(q * qj * B);
            sdp[j] = (int64_t)off;
            rc[j] = (int64_t)(qj * q * B);
            rdp[j] = (int64_t)((size_t)h->first[j] * q * B);
            for (size_t l = 0; l < q; l++, off += qj * B)
                memcpy(sendv + off, rows + l * row + (size_t)h->first[j] * B, qj * B);
        }
        e = keep(e, core_alltoallv(sendv, CR_VEC(sc), CR_VEC(sdp), byte, recvv, CR_VEC(rc),
                                   CR_VEC(rdp), byte, h->leaders, CR_BLOCKING, NULL, NULL));
        /* recvv holds the block from position s to local rank m at (s q + m) B */
        for (size_t m = 0; m < q; m++)
            for (int s = 0; s < p; s++)
                memcpy(rows + m * row + (size_t)s * B, recvv + ((size_t)s * q + m) * B, B);
    }
    e = keep(e, core_scatter(rows, (MPI_Count)row, byte, out, (MPI_Count)row, byte, 0, h->node,
                             CR_BLOCKING, NULL, NULL));
    if (!e)
        for (int s = 0; s < p; s++) {
            char *blk;
            MPI_Aint cnt;
            cr_datatype_t *dt;
            coll_block(&rd, h->order[s], &blk, &cnt, &dt);
            cshm_unpack(out + (size_t)s * B, blk, cnt, dt);
        }
    free(out), free(rows), free(sendv), free(recvv), free(v);
    return e;
}

int coll_alltoall_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, alltoall);
}

/* ---- reduce_scatter(_block) (commutative ops): node reduce of the whole vector,
 * leaders' reduce_scatter of each node's share, node scatterv ------------------- */
static MPI_Aint rs_count(const coll_args_t *a, int r)
{
    return a->rcounts.p ? (MPI_Aint)cr_vec_get(a->rcounts, r) : a->rcount;
}

static int reduce_scatter(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    int p = c->size, mine = my_node(h, c), leads = h->node->rank == 0;
    int q = h->first[mine + 1] - h->first[mine];
    cr_op_t *op = (cr_op_t *)a->op;
    cr_datatype_t *dt = a->dt;
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    MPI_Aint total = 0;
    for (int r = 0; r < p; r++) total += rs_count(a, r);
    void *raw_sum = NULL, *raw_pos = NULL, *raw_part = NULL;
    void *sum = NULL, *pos = NULL, *part = NULL;
    int64_t *sc = NULL, *sdp = NULL;
    int e = MPI_SUCCESS;
    if (leads) {
        sum = tmp_of(total, dt, &raw_sum);
        pos = h->identity ? sum : tmp_of(total, dt, &raw_pos);
        sc = malloc(2 * (size_t)q * sizeof *sc);
        if (!sum || !pos || !sc) {
            free(raw_sum), free(raw_pos), free(sc);
            return cr_error(MPI_ERR_NO_MEM, "MPI_Reduce_scatter: no memory for %zu bytes",
                            cshm_span(total, dt));
        }
        sdp = sc + q;
    }
    e = core_reduce(in, sum, total, dt, op, 0, h->node, CR_BLOCKING, NULL, NULL);
    if (leads) {
        /* the blocks in position order (each node's ranks' blocks together) */
        if (pos != sum) {
            MPI_Aint *at = malloc((size_t)p * sizeof *at), x = 0, y = 0;
            if (!at) e = keep(e, cr_error(MPI_ERR_NO_MEM, "MPI_Reduce_scatter: no memory"));
            for (int r = 0; at && r < p; r++) at[r] = x, x += rs_count(a, r);
            for (int i = 0; at && i < p; i++) {
                int r = h->order[i];
                coll_copy(coll_elem(sum, at[r], dt), coll_elem(pos, y, dt), rs_count(a, r), dt);
                y += rs_count(a, r);
            }
            free(at);
        }
        MPI_Aint nodecount = 0;
        for (int k = 0; k < h->nnodes; k++) {
            MPI_Aint m = 0;
            for (int i = h->first[k]; i < h->first[k + 1]; i++) m += rs_count(a, h->order[i]);
            h->counts[k] = m;
            if (k == mine) nodecount = m;
        }
        part = tmp_of(nodecount, dt, &raw_part);
        if (!part) e = keep(e, cr_error(MPI_ERR_NO_MEM, "MPI_Reduce_scatter: no memory"));
        e = keep(e, core_reduce_scatter(pos, part, CR_VEC(h->counts), dt, op, h->leaders,
                                        CR_BLOCKING, NULL, NULL));
        MPI_Aint x = 0;
        for (int l = 0; l < q; l++) {
            sc[l] = rs_count(a, h->order[h->first[mine] + l]);
            sdp[l] = x;
            x += sc[l];
        }
    }
    e = keep(e, core_scatterv(part, leads ? CR_VEC(sc) : CR_VEC_NONE,
                              leads ? CR_VEC(sdp) : CR_VEC_NONE, dt, a->rbuf,
                              rs_count(a, c->rank), dt, 0, h->node, CR_BLOCKING, NULL, NULL));
    free(raw_sum), free(raw_pos), free(raw_part), free(sc);
    return e;
}

int coll_reduce_scatter_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, reduce_scatter);
}

/* ---- scan and exscan, where every node is a run of consecutive ranks ------------ */
/* Node k's ranks then follow all ranks of nodes 0 .. k-1, so rank r's result
 * is (the leaders' exscan of the node totals) op (r's scan on its node), in
 * rank order for any op: node scan (Exscan: node exscan, and the node's last
 * rank adds its own operand to get the total), a hop of the node's total from
 * its last rank to its leader, exscan among the leaders, broadcast of that
 * prefix on each node but the first, and one local op. */
int coll_scan_hier_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)a;
    return hier_of(c)->identity;
}

static int scan_both(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a, int exclusive)
{
    int mine = my_node(h, c), nr = h->node->rank, leads = nr == 0;
    int last = h->first[mine + 1] - h->first[mine] - 1;
    cr_op_t *op = (cr_op_t *)a->op;
    MPI_Aint n = a->count;
    cr_datatype_t *dt = a->dt;
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    /* tot: the node's total (at its last rank and, after the hop, its leader);
     * pre: the prefix of the nodes before this one */
    void *raw_tot = NULL, *raw_pre = NULL, *tot = NULL;
    void *pre = tmp_of(n, dt, &raw_pre);
    if (last > 0 && (leads || (nr == last && exclusive))) tot = tmp_of(n, dt, &raw_tot);
    else if (nr == last) tot = last == 0 && exclusive ? (void *)in : a->rbuf;
    if (!pre || ((leads || nr == last) && !tot)) {
        free(raw_pre), free(raw_tot);
        return cr_error(MPI_ERR_NO_MEM, "%s: no memory for %zu bytes",
                        exclusive ? "MPI_Exscan" : "MPI_Scan", cshm_span(n, dt));
    }
    int e;
    if (exclusive) {
        if (last > 0 && nr == last) coll_copy(in, tot, n, dt);   /* before rbuf changes */
        e = core_exscan(a->sbuf, a->rbuf, n, dt, op, h->node, CR_BLOCKING, NULL, NULL);
        if (last > 0 && nr == last) cr_op_apply(op, a->rbuf, tot, n, dt);
    } else {
        e = core_scan(a->sbuf, a->rbuf, n, dt, op, h->node, CR_BLOCKING, NULL, NULL);
    }
    if (last > 0) e = keep(e, node_hop(h, tot, n, dt, last, 0));
    if (leads)
        e = keep(e, core_exscan(tot, pre, n, dt, op, h->leaders, CR_BLOCKING, NULL, NULL));
    if (mine > 0) {
        e = keep(e, core_bcast(pre, n, dt, 0, h->node, CR_BLOCKING, NULL, NULL));
        if (exclusive && leads) coll_copy(pre, a->rbuf, n, dt);
        else cr_op_apply(op, pre, a->rbuf, n, dt);
    }
    free(raw_pre), free(raw_tot);
    return e;
}

static int scan(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    return scan_both(h, c, a, 0);
}

static int exscan(coll_hier_t *h, cr_comm_t *c, const coll_args_t *a)
{
    return scan_both(h, c, a, 1);
}

int coll_scan_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, scan);
}

int coll_exscan_hier(cr_comm_t *c, const coll_args_t *a)
{
    return hier_run(c, a, exscan);
}
