/* SPDX-License-Identifier: MIT */
/* RMA over the network transport's own one-sided operations (libfabric
 * fi_read / fi_write): MPI_Put and MPI_Get to targets on other nodes without
 * the target's MPI library executing them (see rma.h and docs/rma.md).
 *
 * At window creation (MPI_Win_create and MPI_Win_allocate) every rank of a
 * window that spans nodes registers its window memory with the network
 * transport (mem_key) and the keys are exchanged; a target whose key
 * arrived gets net = 1 and its puts and gets go here.  On dynamic windows
 * each attached region is registered at MPI_Win_attach, and an origin asks
 * the target for the key of the region that holds an address on first use
 * (rma_am_key), remembering it until its next epoch (dnet, dkeys).
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
 * them, as the message path does.
 *
 * Network atomics (docs/rma.md, "Accumulates and locks by network
 * atomics"): where the provider has atomics for every op MPI allows on a
 * basic type, accumulate-class operations on that type go by fi_atomic /
 * fi_fetch_atomic / fi_compare_atomic (several runs of the target datatype
 * to one vector atomic, fi_atomicmsg with several target pieces, where the
 * provider takes them) from every origin of the window on another node;
 * those on the target's node and the target itself use the CPU's atomics
 * where the provider's are the CPU's (w->catomic, ops.c), else these too
 * (through their own endpoint), so that no origin touches those elements
 * under the accumulate lock; other types keep the accumulate lock and
 * active messages.  Passive-target lock words likewise, when 64-bit
 * compare-and-swap and fetch-and-add are there: every locker takes them by
 * network atomics, with back-off (this node's words by the CPU's on clock
 * windows).  A plain accumulate to another node is not waited for, as a put
 * is not; lock_all and unlock_all have every rank's word atomic in flight
 * at once.  The decision is collective at window
 * creation, so every origin uses the same mechanism on every word.  No
 * target is connected at creation: a rank only checks that it can reach
 * every rank, and connects to a target at its first operation on it.
 * The endpoint is channel 0's, which threads on the channel path use at the
 * same time: it is reached through the channel's locked view
 * (cr_chan_net_shared, core/pt2pt.h), and completions may run in such a
 * thread, without the library lock. */
#include "rma/rma.h"
#include "core/comm_priv.h"
#include "core/pt2pt.h"
#include "util/settings.h"

#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { RMA_TAG_NET = -301 };     /* internal tag of the key exchange */
/* per rank: flags, the window memory's key and the control block's key
 * (w[0] and w[1] as two ints each), the mask of atomic types */
enum { KEY_INTS = 10 };
enum { KEY_MEM = 1, KEY_ATOMIC = 2, KEY_LOCK = 4 };

static int net_connect(cr_win_t *w, int rank);

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
    tr_rkey_t key;               /* the target memory's registration */
    net_piece_t piece[];
} net_batch_t;

static void batch_end(net_batch_t *b)
{
    free(b->staging);
    free(b);
}

/* A batch's status and its target's net_err are written by the pieces'
 * completions, which may run in any thread that polls channel 0 (on the
 * channel path without the library lock) while the origin starts more
 * pieces or drains: so the first failure is kept with compare-and-swap and
 * read with atomic loads. */
static tr_status_t batch_st(net_batch_t *b)
{
    return __atomic_load_n(&b->st, __ATOMIC_RELAXED);
}

static void piece_done(tr_comp_t *c, tr_status_t st)
{
    net_batch_t *b = ((net_piece_t *)(void *)c)->b;
    if (st != TR_OK) {
        tr_status_t ok = TR_OK;
        int none = 0;
        __atomic_compare_exchange_n(&b->st, &ok, st, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        /* a put's failure goes to its target before the pending count
         * drops (release), so the drain that sees the count at 0 sees it */
        if (b->write)
            __atomic_compare_exchange_n(&b->t->net_err, &none, (int)st, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
    }
    __atomic_fetch_sub(&b->t->net_pending, 1, __ATOMIC_RELEASE);
    /* a get's batch belongs to its waiting caller, who may free it as soon as
     * left reaches 0 (in another thread: completions run on the channel
     * path too), so write is read before */
    int write = b->write;
    if (__atomic_sub_fetch(&b->left, 1, __ATOMIC_ACQ_REL) == 0 && write) batch_end(b);
}

/* Wait until every piece of a batch its caller keeps (a get, an
 * accumulate) has completed, free it, and report a failure: "<what> the
 * window memory of rank ... failed". */
static int batch_wait(net_batch_t *b, int rank, const char *what)
{
    cr_wait_t wt = CR_WAIT_INIT;
    while (__atomic_load_n(&b->left, __ATOMIC_ACQUIRE) > 0) cr_wait_poll(&wt);
    tr_status_t st = batch_st(b);
    const char *tr = b->t->ntr->ops->name;
    free(b);
    if (st == TR_OK) return MPI_SUCCESS;
    return cr_error(MPI_ERR_OTHER, "%s the window memory of rank %d on another node failed "
                    "(network transport %s: %s)", what, rank, tr, tr_status_str(st));
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
    tr_status_t st = batch_st(b) != TR_OK ? batch_st(b)
                     : b->write ? tr_put(t->ntr, t->naddr, b->stream, len, &b->key, at, &p->comp)
                                : tr_get(t->ntr, t->naddr, b->stream, len, &b->key, at, &p->comp);
    b->stream += len;
    /* done at once or failed: complete the piece here (never the batch's
     * last count: the caller holds one until every piece started) */
    if (st != TR_INPROGRESS) piece_done(&p->comp, st);
}

int rma_net_move(cr_win_t *w, int rank, MPI_Aint at, MPI_Aint tcount, cr_datatype_t *tdt,
                 void *stream, size_t bytes, int write, const tr_rkey_t *key)
{
    rma_target_t *t = &w->t[rank];
    int runs = 0;
    if (!bytes) return MPI_SUCCESS;
    int err = net_connect(w, rank);
    if (err) return err;
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
                        .staging = staging, .base = at, .stream = write ? staging : stream,
                        .key = key ? *key : t->nkey };
    /* every piece counts as pending from before it starts */
    __atomic_fetch_add(&t->net_pending, (uint64_t)runs, __ATOMIC_RELAXED);
    rma_dt_runs(tcount, tdt, start_run, b);     /* starts exactly `runs` pieces */
    int left = __atomic_sub_fetch(&b->left, 1, __ATOMIC_ACQ_REL);
    if (write) {
        if (left == 0) batch_end(b);
        return MPI_SUCCESS;
    }
    w->stats.waits++;
    return batch_wait(b, rank, "a read of");
}

int rma_net_drain(cr_win_t *w, int rank)
{
    rma_target_t *t = &w->t[rank];
    if (!t->net && !t->dnet) return MPI_SUCCESS;
    if (__atomic_load_n(&t->net_pending, __ATOMIC_ACQUIRE) > 0) w->stats.waits++;
    cr_wait_t wt = CR_WAIT_INIT;
    while (__atomic_load_n(&t->net_pending, __ATOMIC_ACQUIRE) > 0) cr_wait_poll(&wt);
    int st = __atomic_exchange_n(&t->net_err, 0, __ATOMIC_RELAXED);
    if (!st) return MPI_SUCCESS;
    return cr_error(MPI_ERR_OTHER, "a put to the window memory of rank %d on another node "
                    "failed (network transport %s: %s)", rank, t->ntr->ops->name,
                    tr_status_str((tr_status_t)st));
}

int rma_net_fragmented(MPI_Aint tcount, const cr_datatype_t *tdt, int atomic)
{
    tr_iface_t *net = cr_chan0.net;
    if (tcount <= 0 || tdt->contig || !net || (atomic && !(net->caps.flags & TR_CAP_ATOMIC_CPU)))
        return 0;
    int runs = 0;
    rma_dt_runs(tcount, tdt, count_run, &runs);
    size_t segs = atomic && net->caps.atomic_segs ? net->caps.atomic_segs : 1;
    return ((size_t)runs + segs - 1) / segs > (size_t)ut_settings.rma_net_max_calls;
}

/* ---- reaching every rank through the network ---------------------------------------- */
/* Ranks on this node and this process itself are reached by shared memory
 * and the self transport; for atomics they get a network address of their
 * own, made once per process. */
typedef struct {
    int peer;
    uint64_t addr;
} net_extra_t;
static net_extra_t *extra;
static int nextra;

static tr_iface_t *net_reach(int world, uint64_t *addr)
{
    tr_iface_t *net = cr_chan_net_shared(&cr_chan0);
    tr_iface_t *tr = cr_chan_net_peer(&cr_chan0, world, addr);
    if (tr) return tr;
    if (!net || world >= cr_proc.world_size) return NULL;   /* another job's: not published */
    for (int i = 0; i < nextra; i++)
        if (extra[i].peer == world) {
            *addr = extra[i].addr;
            return net;
        }
    net_extra_t *e = realloc(extra, sizeof *e * (size_t)(nextra + 1));
    if (!e) return NULL;
    extra = e;
    if (tr_connect(net, world, addr) != TR_OK) return NULL;
    extra[nextra++] = (net_extra_t){ world, *addr };
    return net;
}

/* Whether rank (peer number world) can be reached through the network,
 * without connecting to it yet: another job's processes only once they were
 * added (they are connected then); this job's when this process's own
 * network address was published, which happens for every process of the job
 * together (a connection to itself tells). */
static int net_reachable(int world)
{
    uint64_t addr;
    if (world >= cr_proc.world_size) return net_reach(world, &addr) != NULL;
    return net_reach(cr_proc.world_rank, &addr) != NULL;
}

/* Connect to a target on first use (t->ntr, t->naddr): the window's
 * creation only checked that it can be reached (net_reachable). */
static int net_connect(cr_win_t *w, int rank)
{
    rma_target_t *t = &w->t[rank];
    if (CR_LIKELY(t->ntr != NULL)) return MPI_SUCCESS;
    if ((t->ntr = net_reach(t->world, &t->naddr))) return MPI_SUCCESS;
    return cr_error(MPI_ERR_OTHER, "cannot reach rank %d of the window through the network "
                    "transport", rank);
}

/* ---- which types and ops the atomics cover -------------------------------------------- */
static int atype_of(cr_basic_t b)
{
    size_t n = cr_basic_size(b);
    int log2 = n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : n == 8 ? 3 : -1;
    switch (b) {
    case CR_B_FLOAT: case CR_B_F_REAL: case CR_B_F_REAL4:
        return n == 4 ? TR_AT_F32 : -1;
    case CR_B_DOUBLE: case CR_B_F_DOUBLE: case CR_B_F_REAL8:
        return n == 8 ? TR_AT_F64 : -1;
    case CR_B_SCHAR: case CR_B_SHORT: case CR_B_INT: case CR_B_LONG: case CR_B_LLONG:
    case CR_B_INT8: case CR_B_INT16: case CR_B_INT32: case CR_B_INT64: case CR_B_AINT:
    case CR_B_OFFSET: case CR_B_COUNT: case CR_B_F_INTEGER: case CR_B_F_INTEGER1:
    case CR_B_F_INTEGER2: case CR_B_F_INTEGER4: case CR_B_F_INTEGER8:
        return log2 < 0 ? -1 : TR_AT_I8 + 2 * log2;
    case CR_B_UCHAR: case CR_B_BYTE: case CR_B_USHORT: case CR_B_UINT: case CR_B_ULONG:
    case CR_B_ULLONG: case CR_B_UINT8: case CR_B_UINT16: case CR_B_UINT32: case CR_B_UINT64:
        return log2 < 0 ? -1 : TR_AT_U8 + 2 * log2;
    default:
        return -1;   /* char (signedness), bool, logical, complex, long double, pairs */
    }
}

static int aop_of(MPI_Op op)
{
    switch (op) {
    case MPI_SUM: return TR_AOP_SUM;
    case MPI_PROD: return TR_AOP_PROD;
    case MPI_MIN: return TR_AOP_MIN;
    case MPI_MAX: return TR_AOP_MAX;
    case MPI_LAND: return TR_AOP_LAND;
    case MPI_LOR: return TR_AOP_LOR;
    case MPI_LXOR: return TR_AOP_LXOR;
    case MPI_BAND: return TR_AOP_BAND;
    case MPI_BOR: return TR_AOP_BOR;
    case MPI_BXOR: return TR_AOP_BXOR;
    case MPI_REPLACE: return TR_AOP_WRITE;
    case MPI_NO_OP: return TR_AOP_READ;
    default: return -1;
    }
}

/* Whether the network does every (op, form) MPI can ask for on type a. */
static int type_covered(tr_iface_t *net, int a)
{
    int integer = a < TR_AT_F32;
    int last = integer ? TR_AOP_BXOR : TR_AOP_MAX;
    for (int op = TR_AOP_SUM; op <= last; op++)
        if (!tr_atomic_max(net, (tr_aop_t)op, (tr_atype_t)a, TR_ATOMIC_PLAIN) ||
            !tr_atomic_max(net, (tr_aop_t)op, (tr_atype_t)a, TR_ATOMIC_FETCH))
            return 0;
    return tr_atomic_max(net, TR_AOP_READ, (tr_atype_t)a, TR_ATOMIC_FETCH) &&
           tr_atomic_max(net, TR_AOP_WRITE, (tr_atype_t)a, TR_ATOMIC_PLAIN) &&
           tr_atomic_max(net, TR_AOP_WRITE, (tr_atype_t)a, TR_ATOMIC_FETCH) &&
           (!integer || tr_atomic_max(net, TR_AOP_CSWAP, (tr_atype_t)a, TR_ATOMIC_COMPARE));
}

int rma_net_atomic_type(cr_win_t *w, cr_basic_t b)
{
    int a = w->natomic ? atype_of(b) : -1;
    return a >= 0 && (w->nat_types >> a & 1);
}

/* ---- creation ------------------------------------------------------------------------ */
static void key_put(int *k, const tr_rkey_t *key)
{
    k[0] = (int)(uint32_t)key->w[0];
    k[1] = (int)(key->w[0] >> 32);
    k[2] = (int)(uint32_t)key->w[1];
    k[3] = (int)(key->w[1] >> 32);
}

static void key_get(const int *k, tr_rkey_t *key)
{
    key->w[0] = (uint64_t)(uint32_t)k[0] | (uint64_t)(uint32_t)k[1] << 32;
    key->w[1] = (uint64_t)(uint32_t)k[2] | (uint64_t)(uint32_t)k[3] << 32;
    key->w[2] = 0;
}

/* This rank's part of the atomics decision: KEY_ATOMIC (and KEY_LOCK) when
 * its control block is registered and it reaches every rank. */
static int atomic_ready(cr_win_t *w, tr_iface_t *net, uint32_t *types)
{
    if (!ut_settings.rma_ofi_atomics || !(net->caps.flags & TR_CAP_ATOMIC)) return 0;
    for (int a = 0; a < TR_AT_COUNT; a++)
        if (type_covered(net, a)) *types |= 1u << a;
    int lock = tr_atomic_max(net, TR_AOP_CSWAP, TR_AT_U64, TR_ATOMIC_COMPARE) &&
               tr_atomic_max(net, TR_AOP_SUM, TR_AT_U64, TR_ATOMIC_FETCH) &&
               tr_atomic_max(net, TR_AOP_SUM, TR_AT_U64, TR_ATOMIC_PLAIN);
    if (!*types && !lock) return 0;
    if (tr_mem_key(net, w->me, sizeof *w->me, &w->net_ckey) != TR_OK) return 0;
    w->net_ckeyed = 1;
    for (int r = 0; r < w->size; r++)
        if (!net_reachable(w->t[r].world)) return 0;
    return KEY_ATOMIC | (lock ? KEY_LOCK : 0);
}

int rma_net_init(cr_win_t *w, void *mem, size_t bytes)
{
    tr_iface_t *net = cr_chan_net_shared(&cr_chan0);
    if (!ut_settings.rma_ofi_native || !net || !(net->caps.flags & TR_CAP_ONESIDED))
        return MPI_SUCCESS;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        /* regions are registered as they are attached; origins ask for the
         * keys on first use (no exchange here) */
        w->dyn_regs = calloc((size_t)w->dyn_max, sizeof(rma_dkey_t));
        if (!w->dyn_regs) return cr_error(MPI_ERR_NO_MEM, "no memory for a dynamic window");
        for (int r = 0; r < w->size; r++)
            if (w->t[r].path == RMA_AM) w->t[r].dnet = 1;   /* connected on first use */
        return MPI_SUCCESS;
    }
    /* every rank of the window gets here (the conditions are the job's) */
    int mine[KEY_INTS] = { 0 }, *all = malloc(sizeof(int) * KEY_INTS * (size_t)w->size);
    if (!all) return cr_error(MPI_ERR_NO_MEM, "no memory for a window");
    if (bytes && tr_mem_key(net, mem, bytes, &w->net_key) == TR_OK) {
        w->net_keyed = 1;
        mine[0] = KEY_MEM;
        key_put(mine + 1, &w->net_key);
    }
    uint32_t types = 0;
    mine[0] |= atomic_ready(w, net, &types);
    if (w->net_ckeyed) key_put(mine + 5, &w->net_ckey);
    mine[9] = (int)types;
    int err = cr_comm_allgather_ints(w->comm, mine, KEY_INTS, all, RMA_TAG_NET);
    /* atomics only where every rank is ready, on the types every rank covers */
    int agree = KEY_ATOMIC | KEY_LOCK;
    uint32_t common = ~0u;
    for (int r = 0; r < w->size && !err; r++) {
        agree &= all[r * KEY_INTS];
        common &= (uint32_t)all[r * KEY_INTS + 9];
    }
    if (!(agree & KEY_ATOMIC)) agree = 0;
    w->natomic = !err && (agree & KEY_ATOMIC) && common;
    w->nat_types = w->natomic ? common : 0;
    w->nlock = !err && (agree & KEY_LOCK);
    for (int r = 0; r < w->size && !err; r++) {
        rma_target_t *t = &w->t[r];
        const int *k = all + r * KEY_INTS;
        /* every target is connected on first use (net_connect) */
        if (agree) {
            /* every target, this node's and this rank too, by the network */
            key_get(k + 5, &t->ckey);
            if (k[0] & KEY_MEM) key_get(k + 1, &t->nkey);
        }
        if (t->path != RMA_AM || !(k[0] & KEY_MEM)) continue;
        key_get(k + 1, &t->nkey);
        t->net = 1;
        w->net_targets++;
    }
    free(all);
    return err;
}

void rma_net_fini(cr_win_t *w)
{
    if (w->net_keyed) tr_mem_release(cr_chan_net_shared(&cr_chan0), &w->net_key);
    if (w->net_ckeyed) tr_mem_release(cr_chan_net_shared(&cr_chan0), &w->net_ckey);
    w->net_keyed = w->net_ckeyed = 0;
    for (int i = 0; w->dyn_regs && i < w->dyn_max; i++) rma_net_dyn_detach(w, i);
    free(w->dyn_regs);
    w->dyn_regs = NULL;
    for (int r = 0; r < w->size; r++) {
        free(w->t[r].dkeys);
        w->t[r].dkeys = NULL;
    }
}

/* ---- dynamic windows ------------------------------------------------------------------ */
void rma_net_dyn_attach(cr_win_t *w, int slot, void *base, size_t size)
{
    rma_dkey_t *d = w->dyn_regs ? &w->dyn_regs[slot] : NULL;
    if (!d || !size) return;
    if (tr_mem_key(cr_chan_net_shared(&cr_chan0), base, size, &d->key) != TR_OK) return;
    d->base = (uint64_t)(uintptr_t)base;
    d->size = size;
}

void rma_net_dyn_detach(cr_win_t *w, int slot)
{
    rma_dkey_t *d = w->dyn_regs ? &w->dyn_regs[slot] : NULL;
    if (!d || !d->size) return;
    tr_mem_release(cr_chan_net_shared(&cr_chan0), &d->key);
    d->size = 0;
}

void rma_net_dyn_lookup(cr_win_t *w, uint64_t a, uint64_t out[4])
{
    memset(out, 0, 4 * sizeof(uint64_t));
    for (int i = 0; w->dyn_regs && i < w->dyn_max; i++) {
        const rma_dkey_t *d = &w->dyn_regs[i];
        if (d->size && a >= d->base && a - d->base < d->size) {
            out[0] = d->base;
            out[1] = d->size;
            out[2] = d->key.w[0];
            out[3] = d->key.w[1];
            return;
        }
    }
}

int rma_net_dyn_find(cr_win_t *w, int rank, uint64_t a, uint64_t e, const rma_dkey_t **out)
{
    rma_target_t *t = &w->t[rank];
    *out = NULL;
    for (int i = 0; i < t->ndkeys; i++) {
        const rma_dkey_t *d = &t->dkeys[i];
        if (d->size ? a >= d->base && a - d->base < d->size : a == d->base) {
            if (d->size && e - d->base <= d->size) *out = d;
            return MPI_SUCCESS;    /* known (size 0: not registered) */
        }
    }
    uint64_t r[4];
    int err = rma_am_key(w, rank, a, r);
    if (err) return err;
    if (t->ndkeys == t->dkeys_cap) {
        int cap = t->dkeys_cap ? 2 * t->dkeys_cap : 8;
        rma_dkey_t *n = realloc(t->dkeys, sizeof *n * (size_t)cap);
        if (!n) return MPI_SUCCESS;    /* not remembered: messages do it */
        t->dkeys = n;
        t->dkeys_cap = cap;
    }
    /* a region the target did not register is remembered as [a, a + 1) of size 0 */
    rma_dkey_t *d = &t->dkeys[t->ndkeys++];
    *d = (rma_dkey_t){ r[1] ? r[0] : a, r[1], { { r[2], r[3], 0 } } };
    if (d->size && a >= d->base && e - d->base <= d->size) *out = d;
    return MPI_SUCCESS;
}

void rma_net_dyn_forget(cr_win_t *w)
{
    for (int r = 0; r < w->size; r++) w->t[r].ndkeys = 0;
}

/* ---- accumulates by network atomics ------------------------------------------------ */
/* The runs of the target datatype are gathered into calls: adjacent runs
 * merge, and one call (a vector atomic where the transport has them) takes
 * up to the transport's number of pieces and the provider's number of
 * elements, so a strided accumulate is one call per few runs, not one per
 * element.  The walk runs twice with the same cuts: once counting the calls
 * (dry), once starting them. */
typedef struct {
    net_batch_t *b;
    tr_aop_t aop;
    tr_atype_t at;
    size_t elem, maxc, maxseg;   /* element bytes, elements and pieces per call */
    const char *in, *cmp;        /* packed operands (in NULL: a read) */
    char *old;                   /* packed results (NULL: plain) */
    size_t soff;                 /* stream offset of the gathered call's first element */
    tr_aseg_t seg[TR_ASEG_MAX]; /* the call being gathered */
    size_t nseg, nelem;
    int dry;
    int pieces;                  /* calls counted (dry) */
} acc_walk_t;

/* Start (or, dry, count) the gathered call. */
static void acc_call(acc_walk_t *a)
{
    if (!a->nseg) return;
    if (a->dry) {
        a->pieces++;
    } else {
        net_batch_t *b = a->b;
        rma_target_t *t = b->t;
        net_piece_t *p = &b->piece[b->n++];
        p->comp.cb = piece_done;
        p->b = b;
        const char *in = a->in ? a->in + a->soff : NULL, *cmp = a->cmp ? a->cmp + a->soff : NULL;
        char *old = a->old ? a->old + a->soff : NULL;
        tr_status_t st = batch_st(b);
        cr_wait_t wt = CR_WAIT_INIT;
        while (st == TR_OK) {
            st = a->nseg == 1 ? tr_atomic(t->ntr, t->naddr, a->aop, a->at, in, cmp, old,
                                          a->seg[0].count, &t->nkey, a->seg[0].off, &p->comp)
                              : tr_atomicv(t->ntr, t->naddr, a->aop, a->at, in, cmp, old, a->seg,
                                           a->nseg, &t->nkey, &p->comp);
            if (st != TR_ERR_NO_RESOURCE) break;
            st = TR_OK;
            cr_wait_poll(&wt);
        }
        if (st != TR_INPROGRESS) piece_done(&p->comp, st);
    }
    a->soff += a->nelem * a->elem;
    a->nseg = a->nelem = 0;
}

static void acc_run(void *arg, MPI_Aint off, size_t len)
{
    acc_walk_t *a = arg;
    size_t at = (size_t)(a->b->base + off), n = len / a->elem;
    while (n) {
        tr_aseg_t *last = a->nseg ? &a->seg[a->nseg - 1] : NULL;
        int adjacent = last && last->off + last->count * a->elem == at;
        if (a->nelem == a->maxc || (!adjacent && a->nseg == a->maxseg)) {
            acc_call(a);
            continue;
        }
        size_t k = a->maxc - a->nelem < n ? a->maxc - a->nelem : n;
        if (adjacent) last->count += k;
        else a->seg[a->nseg++] = (tr_aseg_t){ at, k };
        a->nelem += k;
        at += k * a->elem;
        n -= k;
    }
}

int rma_net_acc(cr_win_t *w, int rank, MPI_Aint off, MPI_Aint tcount, cr_datatype_t *tdt,
                const cr_op_t *op, const void *in, const void *cmp, void *old, int defer)
{
    rma_target_t *t = &w->t[rank];
    size_t bytes = (size_t)tcount * (size_t)tdt->size;
    int aop = cmp ? TR_AOP_CSWAP : aop_of(op->handle);
    if (!bytes || (aop == TR_AOP_READ && !old)) return MPI_SUCCESS;   /* nothing to do */
    int err = net_connect(w, rank);
    if (err) return err;
    int form = cmp ? TR_ATOMIC_COMPARE : old ? TR_ATOMIC_FETCH : TR_ATOMIC_PLAIN;
    int at = atype_of(tdt->basic);
    net_batch_t head = { .base = off };
    acc_walk_t a = { .b = &head, .aop = (tr_aop_t)aop, .at = (tr_atype_t)at,
                     .elem = cr_basic_size(tdt->basic), .in = aop == TR_AOP_READ ? NULL : in,
                     .cmp = cmp, .old = old, .dry = 1 };
    if (aop >= 0 && at >= 0) a.maxc = tr_atomic_max(t->ntr, a.aop, a.at, form);
    if (!a.maxc)
        return cr_error(MPI_ERR_INTERN, "an accumulate the network's atomics were to do is not "
                        "among those it offers");
    a.maxseg = t->ntr->caps.atomic_segs;
    if (a.maxseg > TR_ASEG_MAX) a.maxseg = TR_ASEG_MAX;
    if (a.maxseg < 1) a.maxseg = 1;
    rma_dt_runs(tcount, tdt, acc_run, &a);
    acc_call(&a);
    /* to another node, where the caller allows it, not waited for (as a put
     * is not): the operands are copied, the old values land in the caller's
     * buffer, it completes at the next drain, and the next accumulate-class
     * operation to the target drains first (ops.c) */
    int later = defer && t->path == RMA_AM && t->net;
    size_t sbytes = later ? (a.in ? bytes : 0) + (cmp ? bytes : 0) : 0;
    char *staging = sbytes ? malloc(sbytes) : NULL;
    net_batch_t *b = malloc(sizeof *b + (size_t)a.pieces * sizeof(net_piece_t));
    if (!b || (sbytes && !staging)) {
        free(b);
        free(staging);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a one-sided accumulate");
    }
    if (sbytes) {
        char *sp = staging;
        if (a.in) {
            memcpy(sp, a.in, bytes);
            a.in = sp;
            sp += bytes;
        }
        if (cmp) {
            memcpy(sp, cmp, bytes);
            a.cmp = sp;
        }
    }
    *b = (net_batch_t){ .t = t, .left = a.pieces + 1, .write = later, .st = TR_OK,
                        .staging = staging, .base = off };
    __atomic_fetch_add(&t->net_pending, (uint64_t)a.pieces, __ATOMIC_RELAXED);
    a.b = b;
    a.dry = 0;
    a.soff = 0;
    rma_dt_runs(tcount, tdt, acc_run, &a);     /* starts exactly a.pieces calls */
    acc_call(&a);
    int left = __atomic_sub_fetch(&b->left, 1, __ATOMIC_ACQ_REL);
    w->stats.acc_net++;
    if (later) {
        w->stats.acc_net_later++;
        t->nacc_open = 1;
        if (left == 0) batch_end(b);
        return MPI_SUCCESS;
    }
    w->stats.waits++;
    return batch_wait(b, rank, "an atomic operation on");
}

/* ---- lock words by network atomics --------------------------------------------------- */
typedef struct {
    tr_comp_t comp;
    volatile int done;
    tr_status_t st;
    uint64_t v, cmp, res;        /* operand, compare value, old value */
} net_one_t;

static void one_done(tr_comp_t *c, tr_status_t st)
{
    net_one_t *o = (net_one_t *)(void *)c;
    o->st = st;
    __atomic_store_n(&o->done, 1, __ATOMIC_RELEASE);
}

/* Start one atomic on rank's lock word: op with operand v (compare cmp for
 * TR_AOP_CSWAP), fetching the old value into o->res when fetch is set; o
 * says when it is done.  On clock windows the words of this node's ranks
 * are the CPU's (done at once): the network's atomics on them are the
 * CPU's too. */
static int word_start(cr_win_t *w, int rank, tr_aop_t op, uint64_t v, uint64_t cmp, int fetch,
                      net_one_t *o)
{
    rma_target_t *t = &w->t[rank];
    *o = (net_one_t){ { one_done }, 0, TR_OK, v, cmp, 0 };
    if (w->clock && t->ctl) {
        volatile uint64_t *word = &t->ctl->lock;
        if (op == TR_AOP_CSWAP) {
            uint64_t e = cmp;
            __atomic_compare_exchange_n(word, &e, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            o->res = e;
        } else {
            o->res = __atomic_fetch_add(word, v, __ATOMIC_SEQ_CST);
        }
        o->done = 1;
        w->stats.word_cpu++;
        return MPI_SUCCESS;
    }
    int err = net_connect(w, rank);
    if (err) return err;
    w->stats.word_net++;
    size_t at = offsetof(rma_ctl_t, lock);
    tr_status_t st;
    cr_wait_t wt = CR_WAIT_INIT;
    while ((st = tr_atomic(t->ntr, t->naddr, op, TR_AT_U64, &o->v,
                           op == TR_AOP_CSWAP ? &o->cmp : NULL, fetch ? &o->res : NULL, 1,
                           &t->ckey, at, &o->comp)) == TR_ERR_NO_RESOURCE)
        cr_wait_poll(&wt);
    if (st != TR_INPROGRESS) {
        o->st = st;
        o->done = 1;
    }
    return MPI_SUCCESS;
}

/* Wait for an atomic word_start started. */
static int word_wait(cr_win_t *w, int rank, net_one_t *o)
{
    rma_target_t *t = &w->t[rank];
    cr_wait_t wt = CR_WAIT_INIT;
    while (!__atomic_load_n(&o->done, __ATOMIC_ACQUIRE)) cr_wait_poll(&wt);
    cr_wait_end(&wt);
    if (o->st == TR_OK) return MPI_SUCCESS;
    return cr_error(MPI_ERR_OTHER, "an atomic operation on the lock of rank %d of the window "
                    "failed (network transport %s: %s)", rank, t->ntr ? t->ntr->ops->name : "?",
                    tr_status_str(o->st));
}

/* One atomic on rank's lock word, waited for (see word_start); the old
 * value to *old (NULL: plain). */
static int word_op(cr_win_t *w, int rank, tr_aop_t op, uint64_t v, uint64_t cmp, uint64_t *old)
{
    net_one_t o;
    int err = word_start(w, rank, op, v, cmp, old != NULL, &o);
    if (!err && !o.done) w->stats.waits++;
    if (!err) err = word_wait(w, rank, &o);
    if (!err && old) *old = o.res;
    return err;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

int rma_net_lock(cr_win_t *w, int rank, int type)
{
    long backoff = 1;
    for (;;) {
        uint64_t old = 0;
        int err;
        if (type == RMA_EXCL) {
            err = word_op(w, rank, TR_AOP_CSWAP, RMA_LOCK_EXCL_BIT, 0, &old);
            if (err || old == 0) return err;
        } else {
            /* one more shared holder, taken back when a writer holds it */
            err = word_op(w, rank, TR_AOP_SUM, 1, 0, &old);
            if (err || !(old & RMA_LOCK_EXCL_BIT)) return err;
            if ((err = word_op(w, rank, TR_AOP_SUM, (uint64_t)-1, 0, NULL))) return err;
        }
        /* back off (serving others meanwhile), doubling up to the setting */
        double until = now_us() + (double)backoff;
        do {
            cr_progress();
            sched_yield();      /* the holder may need this core */
        } while (now_us() < until);
        backoff = 2 * backoff > ut_settings.rma_lock_backoff_us ? ut_settings.rma_lock_backoff_us
                                                                : 2 * backoff;
    }
}

/* A release of a lock word in flight: not waited for (the caller completed
 * its operations first); the window counts it until rma_net_quiesce. */
typedef struct {
    tr_comp_t comp;
    cr_win_t *w;
    uint64_t v;
} net_release_t;

static void release_done(tr_comp_t *c, tr_status_t st)
{
    net_release_t *u = (net_release_t *)(void *)c;
    int none = 0;
    if (st != TR_OK)
        __atomic_compare_exchange_n(&u->w->word_err, &none, (int)st, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_RELAXED);
    __atomic_fetch_sub(&u->w->word_pending, 1, __ATOMIC_RELEASE);
    free(u);
}

/* Add v to rank's lock word without waiting for it: a lock released this
 * way is free a moment after the call (an origin that tries it meanwhile
 * backs off and tries again), and nobody's operations depend on it. */
static int word_release(cr_win_t *w, int rank, uint64_t v)
{
    rma_target_t *t = &w->t[rank];
    if (w->clock && t->ctl) {
        __atomic_fetch_add(&t->ctl->lock, v, __ATOMIC_SEQ_CST);
        w->stats.word_cpu++;
        return MPI_SUCCESS;
    }
    int err = net_connect(w, rank);
    if (err) return err;
    net_release_t *u = malloc(sizeof *u);
    if (!u) return word_op(w, rank, TR_AOP_SUM, v, 0, NULL);
    *u = (net_release_t){ { release_done }, w, v };
    w->stats.word_net++;
    __atomic_fetch_add(&w->word_pending, 1, __ATOMIC_RELAXED);
    tr_status_t st;
    cr_wait_t wt = CR_WAIT_INIT;
    while ((st = tr_atomic(t->ntr, t->naddr, TR_AOP_SUM, TR_AT_U64, &u->v, NULL, NULL, 1,
                           &t->ckey, offsetof(rma_ctl_t, lock), &u->comp)) == TR_ERR_NO_RESOURCE)
        cr_wait_poll(&wt);
    if (st != TR_INPROGRESS) release_done(&u->comp, st);
    return MPI_SUCCESS;
}

int rma_net_quiesce(cr_win_t *w)
{
    cr_wait_t wt = CR_WAIT_INIT;
    if (__atomic_load_n(&w->word_pending, __ATOMIC_ACQUIRE) > 0) w->stats.waits++;
    while (__atomic_load_n(&w->word_pending, __ATOMIC_ACQUIRE) > 0) cr_wait_poll(&wt);
    cr_wait_end(&wt);
    int st = __atomic_exchange_n(&w->word_err, 0, __ATOMIC_ACQ_REL);
    if (!st) return MPI_SUCCESS;
    return cr_error(MPI_ERR_OTHER, "releasing a window lock of a rank on another node failed "
                    "(network transport %s: %s)", cr_chan0.net ? cr_chan0.net->ops->name : "?",
                    tr_status_str((tr_status_t)st));
}

int rma_net_unlock(cr_win_t *w, int rank, int type)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return word_release(w, rank, type == RMA_EXCL ? (uint64_t)0 - RMA_LOCK_EXCL_BIT
                                                  : (uint64_t)-1);
}

/* Count one wait for the atomics of a lock_all or unlock_all still in flight. */
static void batch_waits(cr_win_t *w, const net_one_t *o, int n)
{
    for (int r = 0; r < n; r++)
        if (!o[r].done) {
            w->stats.waits++;
            return;
        }
}

int rma_net_lock_all(cr_win_t *w)
{
    net_one_t *o = malloc(sizeof *o * (size_t)w->size);
    if (!o) return cr_error(MPI_ERR_NO_MEM, "no memory to lock a window");
    /* one more shared holder on every rank at once */
    int err = MPI_SUCCESS, started = 0;
    for (; started < w->size && !err; started++)
        err = word_start(w, started, TR_AOP_SUM, 1, 0, 1, &o[started]);
    if (err) started--;
    batch_waits(w, o, started);
    for (int r = 0; r < started; r++) {
        int e = word_wait(w, r, &o[r]);
        if (e && !err) err = e;
    }
    /* where a writer held it: take the count back, and wait as MPI_Win_lock does */
    for (int r = 0; r < started && !err; r++)
        if (o[r].st == TR_OK && (o[r].res & RMA_LOCK_EXCL_BIT) &&
            !(err = word_op(w, r, TR_AOP_SUM, (uint64_t)-1, 0, NULL)))
            err = rma_net_lock(w, r, RMA_SHARED);
    free(o);
    return err;
}

int rma_net_unlock_all(cr_win_t *w)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    int err = MPI_SUCCESS;
    for (int r = 0; r < w->size && !err; r++) err = word_release(w, r, (uint64_t)-1);
    return err;
}

int rma_net_atomic_cpu(void)
{
    tr_iface_t *net = cr_chan0.net;
    return net && (net->caps.flags & TR_CAP_ATOMIC_CPU);
}
