/* SPDX-License-Identifier: MIT */
/* Intercommunicators: Intercomm_create, Intercomm_merge, and dup / split /
 * create on an intercommunicator.
 *
 * An intercommunicator has its local group in `group` (rank and size are the
 * local ones), the remote group in `remote`, and one base context id that both
 * groups share.  Point-to-point needs nothing more: a destination rank indexes
 * the remote group (cr_comm_world_rank), and a sender stamps its own rank in
 * its local group, which is exactly the remote rank the receiver must see.
 * `local_comm` is an internal intracommunicator over the local group with the
 * next context id, for the steps that run inside one group (allgathers here,
 * the local parts of intercomm collectives).
 *
 * Everything that creates an intercommunicator runs one pattern: an allgather
 * of a few ints per process inside each group, a swap of the two tables
 * between the group leaders over a bridge, and a broadcast of the remote table
 * inside each group.  The tables carry each process's next free context id, so
 * the maximum over both tables is a collision-free id for everybody (see
 * comm.c). */
#include "core/core.h"
#include "core/comm_priv.h"
#include "core/api_comm.h"
#include "core/dynamic.h"

#include <stdlib.h>
#include <string.h>

/* The exchange.  local: intracommunicator of my group; leader: its rank there;
 * bridge / remote_leader / tag: where the leaders talk (used by the leader
 * only).  mine: n ints.  On success *ltab (local->size * n ints) and *rtab
 * (*rsize * n ints) are malloc'd tables in rank order. */
static int exchange(cr_comm_t *local, int leader, cr_comm_t *bridge, int remote_leader, int tag,
                    const int *mine, int n, int **ltab, int **rtab, int *rsize)
{
    cr_datatype_t *dt = cr_datatype_ptr(MPI_INT);
    int *l = malloc((size_t)local->size * n * sizeof(int)), *r = NULL;
    if (!l) return cr_error(MPI_ERR_NO_MEM, "no memory to build an intercommunicator");
    cr_ctx_agreeing++;
    int err = cr_comm_allgather_ints(local, mine, n, l, CR_TAG_CTX);
    int hdr = 0;   /* the remote group's size */
    if (!err && local->rank == leader)
        err = cr_sendrecv(&local->size, 1, dt, remote_leader, tag, &hdr, 1, dt, remote_leader,
                          tag, bridge, CR_CTX_COLL, MPI_STATUS_IGNORE);
    if (!err) err = cr_comm_bcast_ints(local, leader, &hdr, 1, CR_TAG_INTER);
    if (!err && !(r = malloc((size_t)(hdr ? hdr : 1) * n * sizeof(int))))
        err = cr_error(MPI_ERR_NO_MEM, "no memory to build an intercommunicator");
    if (!err && local->rank == leader)
        err = cr_sendrecv(l, (MPI_Aint)local->size * n, dt, remote_leader, tag, r,
                          (MPI_Aint)hdr * n, dt, remote_leader, tag, bridge, CR_CTX_COLL,
                          MPI_STATUS_IGNORE);
    if (!err) err = cr_comm_bcast_ints(local, leader, r, hdr * n, CR_TAG_INTER);
    cr_ctx_agreeing--;
    if (err) {
        free(l);
        free(r);
        return err;
    }
    *ltab = l;
    *rtab = r;
    *rsize = hdr;
    return MPI_SUCCESS;
}

/* The largest value of column col in both tables. */
static uint32_t table_max(const int *l, int ln, const int *r, int rn, int n, int col)
{
    uint32_t mx = 0;
    for (int i = 0; i < ln; i++) mx = (uint32_t)l[i * n + col] > mx ? (uint32_t)l[i * n + col] : mx;
    for (int i = 0; i < rn; i++) mx = (uint32_t)r[i * n + col] > mx ? (uint32_t)r[i * n + col] : mx;
    return mx;
}

/* A settling round (cr_ctx_settle) over both groups, through the same
 * exchange as the first round. */
typedef struct {
    cr_comm_t *local, *bridge;
    int leader, remote_leader, tag;
} inter_round_t;

static int inter_round(void *arg, const int in[2], int out[2])
{
    inter_round_t *a = arg;
    int *l, *r, rsize;
    int err = exchange(a->local, a->leader, a->bridge, a->remote_leader, a->tag, in, 2, &l, &r,
                       &rsize);
    if (err) return err;
    out[0] = 1;
    for (int i = 0; i < a->local->size; i++) out[0] &= l[2 * i];
    for (int i = 0; i < rsize; i++) out[0] &= r[2 * i];
    out[1] = (int)table_max(l, a->local->size, r, rsize, 2, 1);
    free(l);
    free(r);
    return MPI_SUCCESS;
}

/* cr_ctx_settle on ctx (n ids) over both groups of an exchange. */
static int inter_settle(cr_comm_t *local, int leader, cr_comm_t *bridge, int remote_leader,
                        int tag, int n, uint32_t *ctx)
{
    inter_round_t a = { local, bridge, leader, remote_leader, tag };
    return cr_ctx_settle(inter_round, &a, n, ctx);
}

int cr_inter_make(cr_group_t *local, cr_group_t *remote, uint32_t ctx, cr_errhandler_t *errh,
                  cr_comm_t **out)
{
    cr_comm_t *c;
    cr_group_retain(local);   /* one for the intercomm, one for its local_comm */
    int err = cr_comm_make(local, remote, ctx, errh, &c);
    if (err) {
        cr_group_release(local);
        return err;
    }
    c->local_comm = cr_comm_make_internal(local, ctx + CR_CTX_STRIDE);
    if (!c->local_comm) {
        cr_comm_free_handle(c);
        return cr_error(MPI_ERR_NO_MEM, "no memory for an intercommunicator");
    }
    *out = c;
    return MPI_SUCCESS;
}

int core_intercomm_create(cr_comm_t *local_comm, int local_leader, cr_comm_t *peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    cr_comm_t *lc = local_comm;
    *newintercomm = MPI_COMM_NULL;
    if (lc->remote)
        return cr_error(MPI_ERR_COMM, "MPI_Intercomm_create: local_comm is an "
                        "intercommunicator");
    if (local_leader < 0 || local_leader >= lc->size)
        return cr_error(MPI_ERR_RANK, "MPI_Intercomm_create: local_leader=%d: invalid rank "
                        "(local_comm size is %d)", local_leader, lc->size);
    if (lc->rank == local_leader) {
        if (!peer_comm)
            return cr_error(MPI_ERR_COMM, "MPI_Intercomm_create: peer_comm=MPI_COMM_NULL at the "
                            "local leader");
        int psize = peer_comm->remote ? peer_comm->remote->size : peer_comm->size;
        if (remote_leader < 0 || remote_leader >= psize)
            return cr_error(MPI_ERR_RANK, "MPI_Intercomm_create: remote_leader=%d: invalid "
                            "rank (peer_comm size is %d)", remote_leader, psize);
        if (cr_comm_world_rank(peer_comm, remote_leader) == cr_proc.world_rank)
            return cr_error(MPI_ERR_RANK, "MPI_Intercomm_create: remote_leader=%d is the local "
                            "leader itself", remote_leader);
    }
    cr_comm_t *n;
    int err = cr_inter_from(lc, local_leader, peer_comm, remote_leader, cr_comm_user_tag(tag),
                            lc->errh, "MPI_Intercomm_create", &n);
    if (!err) *newintercomm = n->handle;
    return err;
}

/* The intercommunicator between the group of the intracommunicator lc and
 * the group whose leader is remote_leader on bridge (used by the local leader
 * only), exchanging tables over tag. */
int cr_inter_from(cr_comm_t *lc, int local_leader, cr_comm_t *bridge, int remote_leader, int tag,
                  cr_errhandler_t *errh, const char *fname, cr_comm_t **out)
{
    /* processes name themselves by job and world rank, which every process
     * turns into its own peer number (the jobs may differ: dynamic.c) */
    int mine[3] = { cr_proc.job_id, cr_proc.world_rank, cr_ctx_offer(0) };
    int *l, *r, rsize;
    *out = NULL;
    int err = exchange(lc, local_leader, bridge, remote_leader, tag, mine, 3, &l, &r, &rsize);
    if (err) return err;
    uint32_t ctx = table_max(l, lc->size, r, rsize, 3, 2);
    err = inter_settle(lc, local_leader, bridge, remote_leader, tag, 2, &ctx);
    cr_group_t *remote = cr_group_new(rsize);
    if (!remote) err = cr_error(MPI_ERR_NO_MEM, "no memory for an intercommunicator");
    /* groups that span jobs: a second round with network addresses, and the
     * remote processes of other jobs become peers (dynamic.c) */
    int spans = 0;
    for (int i = 0; i < lc->size; i++) spans |= l[3 * i] != l[0];
    for (int i = 0; i < rsize; i++) spans |= r[3 * i] != l[0];
    if (!err && spans) {
        int n = cr_dyn_row_ints(), *row = malloc((size_t)n * sizeof(int)), *l2 = NULL, *r2 = NULL;
        int rsize2 = 0;
        if (!row) err = cr_error(MPI_ERR_NO_MEM, "no memory for an intercommunicator");
        if (!err) {
            cr_dyn_row(row);
            err = exchange(lc, local_leader, bridge, remote_leader, tag, row, n, &l2, &r2, &rsize2);
        }
        if (!err) err = cr_dyn_peers_from(l, l2, lc->size, lc->rank, r, r2, rsize, 3,
                                          remote->world, fname);
        free(row);
        free(l2);
        free(r2);
    }
    for (int i = 0; !err && i < rsize; i++) {
        if (!spans) remote->world[i] = r[3 * i + 1];
        for (int j = 0; j < lc->size; j++)
            if (lc->group->world[j] == remote->world[i])
                err = cr_error(MPI_ERR_COMM, "%s: world rank %d is in both groups", fname,
                               remote->world[i]);
    }
    free(l);
    free(r);
    if (err) {
        cr_group_release(remote);
        return err;
    }
    cr_group_retain(lc->group);
    return cr_inter_make(lc->group, remote, ctx, errh, out);
}

int core_intercomm_merge(cr_comm_t *intercomm, int high, MPI_Comm *newintracomm)
{
    cr_comm_t *c = intercomm;
    *newintracomm = MPI_COMM_NULL;
    if (!c->remote)
        return cr_error(MPI_ERR_COMM, "MPI_Intercomm_merge: intercomm is an intracommunicator");
    int mine[4] = { high ? 1 : 0, cr_ctx_offer(0), cr_proc.job_id, cr_proc.world_rank };
    int *l, *r, rsize;
    int err = exchange(c->local_comm, 0, c, 0, CR_TAG_INTER, mine, 4, &l, &r, &rsize);
    if (err) return err;
    uint32_t ctx = table_max(l, c->size, r, rsize, 4, 1);
    if ((err = inter_settle(c->local_comm, 0, c, 0, CR_TAG_INTER, 1, &ctx))) {
        free(l);
        free(r);
        return err;
    }
    /* the group that said high goes last; on a tie, the group whose first
     * process has the lower (job, world rank) goes first (both sides see the
     * same, also when the groups are different jobs: dynamic.c) */
    int lhigh = l[0], rhigh = r[0];
    int local_first = lhigh != rhigh ? !lhigh
                      : l[2] != r[2] ? l[2] < r[2] : l[3] < r[3];
    free(l);
    free(r);
    const cr_group_t *first = local_first ? c->group : c->remote;
    const cr_group_t *second = local_first ? c->remote : c->group;
    cr_group_t *g = cr_group_new(first->size + second->size);
    if (!g) return cr_error(MPI_ERR_NO_MEM, "no memory for MPI_Intercomm_merge");
    memcpy(g->world, first->world, (size_t)first->size * sizeof(int));
    memcpy(g->world + first->size, second->world, (size_t)second->size * sizeof(int));
    cr_group_set_rank(g);
    cr_comm_t *n;
    err = cr_comm_make(g, NULL, ctx, c->errh, &n);
    if (!err) *newintracomm = n->handle;
    return err;
}

int cr_inter_dup(cr_comm_t *c, cr_comm_t **out)
{
    int mine = cr_ctx_offer(0);
    int *l, *r, rsize;
    *out = NULL;
    int err = exchange(c->local_comm, 0, c, 0, CR_TAG_INTER, &mine, 1, &l, &r, &rsize);
    if (err) return err;
    uint32_t ctx = table_max(l, c->size, r, rsize, 1, 0);
    free(l);
    free(r);
    if ((err = inter_settle(c->local_comm, 0, c, 0, CR_TAG_INTER, 2, &ctx))) return err;
    cr_group_retain(c->group);
    cr_group_retain(c->remote);
    return cr_inter_make(c->group, c->remote, ctx, c->errh, out);
}

/* Each group splits by color; a process gets an intercommunicator between its
 * part and the remote part of the same color, or MPI_COMM_NULL when either is
 * empty (MPI 4.0, 7.4.2 on MPI_COMM_SPLIT). */
int cr_inter_split(cr_comm_t *c, int color, int key, cr_comm_t **out)
{
    int mine[3] = { color, key, cr_ctx_offer(0) };
    int *l, *r, rsize;
    *out = NULL;
    int err = exchange(c->local_comm, 0, c, 0, CR_TAG_INTER, mine, 3, &l, &r, &rsize);
    if (err) return err;
    uint32_t ctx = table_max(l, c->size, r, rsize, 3, 2);
    err = inter_settle(c->local_comm, 0, c, 0, CR_TAG_INTER, 2, &ctx);
    cr_group_t *lg = NULL, *rg = NULL;
    if (!err && color != MPI_UNDEFINED) {
        lg = cr_group_split(c->group, l, 3, color);
        rg = cr_group_split(c->remote, r, 3, color);
        if (!lg || !rg) err = cr_error(MPI_ERR_NO_MEM, "no memory for MPI_Comm_split");
    }
    free(l);
    free(r);
    if (!err && lg && rg && rg->size > 0) {
        rg->rank = MPI_UNDEFINED;
        return cr_inter_make(lg, rg, ctx, c->errh, out);
    }
    cr_group_release(lg);
    cr_group_release(rg);
    return err;
}

/* Comm_create on an intercommunicator is a split in which the members of
 * group (in group order) take one color and everybody else none. */
int cr_inter_create(cr_comm_t *c, cr_group_t *g, cr_comm_t **out)
{
    int in = g->rank != MPI_UNDEFINED;
    return cr_inter_split(c, in ? 0 : MPI_UNDEFINED, in ? g->rank : 0, out);
}
