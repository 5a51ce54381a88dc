/* SPDX-License-Identifier: MIT */
/* RMA over the network transport's own one-sided operations (libfabric
 * fi_read / fi_write): MPI_Put and MPI_Get to targets on other nodes without
 * the target's MPI library executing them (see rma.h and docs/rma.md).
 *
 * At window creation (MPI_Win_create and MPI_Win_allocate; not dynamic
 * windows) every rank of a window that spans nodes registers its window
 * memory with the network transport (mem_key) and the keys are exchanged;
 * a target whose key arrived gets net = 1 and its puts and gets go here.
 * Everything else on such a target (locks, accumulates, PSCW signals,
 * flush acknowledgements) stays on the active messages of am.c, which drain
 * this file's operations first (rma_net_drain), so a flush or an unlock
 * completes the puts before the target hears of it.
 *
 * A put copies the origin's packed data into memory of its own (so the
 * origin buffer is free when MPI_Put returns, as flush_local promises) and
 * starts one write per contiguous run of the target datatype; the writes
 * complete in the progress engine, and the staging memory goes with the
 * last.  A get starts one read per run into the packed stream and waits for
 * them, as the message path does. */
#include "rma/rma.h"
#include "core/comm_priv.h"
#include "core/pt2pt.h"
#include "util/settings.h"

#include <stdlib.h>
#include <string.h>

enum { RMA_TAG_NET = -301 };     /* internal tag of the key exchange */
enum { KEY_INTS = 5 };           /* valid flag, key w[0] and w[1] as two ints each */

/* One call's operations on one target: a completion per run. */
typedef struct {
    tr_comp_t comp;
    struct net_batch *b;
} net_piece_t;

typedef struct net_batch {
    rma_target_t *t;
    int left;                    /* pieces not yet complete */
    int write;
    tr_status_t st;              /* the first failure */
    char *staging;               /* write: the packed data, freed with the batch */
    int n;                       /* pieces started */
    MPI_Aint base;               /* target offset of the datatype's base */
    char *stream;                /* where the next run's bytes are */
    net_piece_t piece[];
} net_batch_t;

static void batch_end(net_batch_t *b)
{
    if (b->st != TR_OK && !b->t->net_err) b->t->net_err = (int)b->st;
    free(b->staging);
    free(b);
}

static void piece_done(tr_comp_t *c, tr_status_t st)
{
    net_batch_t *b = ((net_piece_t *)(void *)c)->b;
    if (st != TR_OK && b->st == TR_OK) b->st = st;
    __atomic_fetch_sub(&b->t->net_pending, 1, __ATOMIC_RELEASE);
    /* a get's batch belongs to its waiting caller */
    if (__atomic_sub_fetch(&b->left, 1, __ATOMIC_ACQ_REL) == 0 && b->write) batch_end(b);
}

static void count_run(void *arg, MPI_Aint off, size_t len)
{
    (void)off, (void)len;
    (*(int *)arg)++;
}

static void start_run(void *arg, MPI_Aint off, size_t len)
{
    net_batch_t *b = arg;
    rma_target_t *t = b->t;
    net_piece_t *p = &b->piece[b->n++];
    p->comp.cb = piece_done;
    p->b = b;
    size_t at = (size_t)(b->base + off);
    tr_status_t st = b->st != TR_OK ? b->st
                     : b->write ? tr_put(t->ntr, t->naddr, b->stream, len, &t->nkey, at, &p->comp)
                                : tr_get(t->ntr, t->naddr, b->stream, len, &t->nkey, at, &p->comp);
    b->stream += len;
    /* done at once or failed: complete the piece here (never the batch's
     * last count: the caller holds one until every piece started) */
    if (st != TR_INPROGRESS) piece_done(&p->comp, st);
}

int rma_net_move(cr_win_t *w, int rank, MPI_Aint at, MPI_Aint tcount, cr_datatype_t *tdt,
                 void *stream, size_t bytes, int write)
{
    rma_target_t *t = &w->t[rank];
    int runs = 0;
    if (!bytes) return MPI_SUCCESS;
    rma_dt_runs(tcount, tdt, count_run, &runs);
    net_batch_t *b = malloc(sizeof *b + (size_t)runs * sizeof(net_piece_t));
    char *staging = write ? malloc(bytes) : NULL;
    if (!b || (write && !staging)) {
        free(b);
        free(staging);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a one-sided operation of %zu bytes", bytes);
    }
    if (write) memcpy(staging, stream, bytes);
    *b = (net_batch_t){ .t = t, .left = runs + 1, .write = write, .st = TR_OK,
                        .staging = staging, .base = at, .stream = write ? staging : stream };
    /* every piece counts as pending from before it starts */
    __atomic_fetch_add(&t->net_pending, (uint64_t)runs, __ATOMIC_RELAXED);
    rma_dt_runs(tcount, tdt, start_run, b);     /* starts exactly `runs` pieces */
    int left = __atomic_sub_fetch(&b->left, 1, __ATOMIC_ACQ_REL);
    if (write) {
        if (left == 0) batch_end(b);
        return MPI_SUCCESS;
    }
    cr_wait_t wt = CR_WAIT_INIT;
    while (__atomic_load_n(&b->left, __ATOMIC_ACQUIRE) > 0) cr_wait_poll(&wt);
    tr_status_t st = b->st;
    free(b);
    if (st == TR_OK) return MPI_SUCCESS;
    return cr_error(MPI_ERR_OTHER, "cannot read the window memory of rank %d on another node "
                    "(network transport %s: %s)", rank, t->ntr->ops->name, tr_status_str(st));
}

int rma_net_drain(cr_win_t *w, int rank)
{
    rma_target_t *t = &w->t[rank];
    if (!t->net) return MPI_SUCCESS;
    cr_wait_t wt = CR_WAIT_INIT;
    while (__atomic_load_n(&t->net_pending, __ATOMIC_ACQUIRE) > 0) cr_wait_poll(&wt);
    int st = t->net_err;
    t->net_err = 0;
    if (!st) return MPI_SUCCESS;
    return cr_error(MPI_ERR_OTHER, "a put to the window memory of rank %d on another node "
                    "failed (network transport %s: %s)", rank, t->ntr->ops->name,
                    tr_status_str((tr_status_t)st));
}

int rma_net_init(cr_win_t *w, void *mem, size_t bytes)
{
    tr_iface_t *net = cr_chan0.net;
    if (!ut_settings.rma_ofi_native || !net || !(net->caps.flags & TR_CAP_ONESIDED) ||
        w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return MPI_SUCCESS;
    /* every rank of the window gets here (the conditions are the job's) */
    int mine[KEY_INTS] = { 0 }, *all = malloc(sizeof(int) * KEY_INTS * (size_t)w->size);
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory for a window");
    if (bytes && tr_mem_key(net, mem, bytes, &w->net_key) == TR_OK) {
        w->net_keyed = 1;
        mine[0] = 1;
        mine[1] = (int)(uint32_t)w->net_key.w[0];
        mine[2] = (int)(w->net_key.w[0] >> 32);
        mine[3] = (int)(uint32_t)w->net_key.w[1];
        mine[4] = (int)(w->net_key.w[1] >> 32);
    }
    int err = cr_comm_allgather_ints(w->comm, mine, KEY_INTS, all, RMA_TAG_NET);
    for (int r = 0; r < w->size && !err; r++) {
        rma_target_t *t = &w->t[r];
        const int *k = all + r * KEY_INTS;
        if (t->path != RMA_AM || !k[0]) continue;
        t->ntr = cr_chan_net_peer(&cr_chan0, t->world, &t->naddr);
        if (!t->ntr) continue;
        t->nkey.w[0] = (uint64_t)(uint32_t)k[1] | (uint64_t)(uint32_t)k[2] << 32;
        t->nkey.w[1] = (uint64_t)(uint32_t)k[3] | (uint64_t)(uint32_t)k[4] << 32;
        t->net = 1;
        w->net_targets++;
    }
    free(all);
    return err;
}

void rma_net_fini(cr_win_t *w)
{
    if (w->net_keyed) tr_mem_release(cr_chan0.net, &w->net_key);
    w->net_keyed = 0;
}
