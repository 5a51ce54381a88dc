/* SPDX-License-Identifier: MIT */
/* A channel's network interface as callers outside the channel use it
 * (pt2pt.h, cr_chan_net_shared): one-sided communication (src/rma/net.c)
 * puts, gets and atomics through channel 0's endpoint, under the library lock
 * but not the channel's, while threads on the channel path send and receive
 * through the same endpoint under the channel's lock alone.  The interface
 * is not thread-safe (transport.h), so this view of it takes the channel's
 * lock around every call (lock order: library lock, then the channel's);
 * completions still come from the channel's polls, under its lock. */
#include "core/pt2pt.h"

typedef struct {
    tr_iface_t iface;       /* what callers get: priv points at the view */
    tr_ops_t ops;           /* the forwarders below, named as the transport */
    tr_iface_t *real;
    cr_chan_t *ch;
} chan_view_t;

static chan_view_t views[CR_MAX_CHANNELS];

/* The view's channel locked; the caller lets it go (view_unlock). */
static inline chan_view_t *view_lock(tr_iface_t *tr)
{
    chan_view_t *v = tr->priv;
    cr_chan_lock(v->ch);
    return v;
}

static inline void view_unlock(chan_view_t *v)
{
    cr_chan_unlock(v->ch);
}

static tr_status_t view_connect(tr_iface_t *tr, int peer, uint64_t *addr)
{
    chan_view_t *v = view_lock(tr);
    tr_status_t st = tr_connect(v->real, peer, addr);
    view_unlock(v);
    return st;
}

static tr_status_t view_my_address(tr_iface_t *tr, void *addr, size_t *len)
{
    chan_view_t *v = view_lock(tr);
    tr_status_t st = tr_my_address(v->real, addr, len);
    view_unlock(v);
    return st;
}

static tr_status_t view_add_peer(tr_iface_t *tr, const void *addr, size_t len, int32_t id,
                                 uint64_t *handle)
{
    chan_view_t *v = view_lock(tr);
    tr_status_t st = tr_add_peer(v->real, addr, len, id, handle);
    view_unlock(v);
    return st;
}

static tr_status_t view_am_short(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                                 const void *payload, size_t len)
{
    chan_view_t *v = view_lock(tr);
    tr_status_t st = tr_am_short(v->real, addr, hdr, payload, len);
    view_unlock(v);
    return st;
}

static tr_status_t view_mem_key(tr_iface_t *tr, void *buf, size_t len, tr_rkey_t *key)
{
    chan_view_t *v = view_lock(tr);
    tr_status_t st = tr_mem_key(v->real, buf, len, key);
    view_unlock(v);
    return st;
}

static void view_mem_release(tr_iface_t *tr, tr_rkey_t *key)
{
    chan_view_t *v = view_lock(tr);
    tr_mem_release(v->real, key);
    view_unlock(v);
}

static tr_status_t view_get(tr_iface_t *tr, uint64_t addr, void *local, size_t len,
                            const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    chan_view_t *v = view_lock(tr);
    tr_status_t st = tr_get(v->real, addr, local, len, key, off, comp);
    view_unlock(v);
    return st;
}

static tr_status_t view_put(tr_iface_t *tr, uint64_t addr, const void *local, size_t len,
                            const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    chan_view_t *v = view_lock(tr);
    tr_status_t st = tr_put(v->real, addr, local, len, key, off, comp);
    view_unlock(v);
    return st;
}

static size_t view_atomic_max(tr_iface_t *tr, tr_aop_t op, tr_atype_t type, int form)
{
    chan_view_t *v = view_lock(tr);
    size_t n = tr_atomic_max(v->real, op, type, form);
    view_unlock(v);
    return n;
}

static tr_status_t view_atomic(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                               const void *operand, const void *compare, void *result,
                               size_t count, const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    chan_view_t *v = view_lock(tr);
    tr_status_t st = tr_atomic(v->real, addr, op, type, operand, compare, result, count, key,
                               off, comp);
    view_unlock(v);
    return st;
}

static tr_status_t view_atomicv(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                                const void *operand, const void *compare, void *result,
                                const tr_aseg_t *segs, size_t nseg, const tr_rkey_t *key,
                                tr_comp_t *comp)
{
    chan_view_t *v = view_lock(tr);
    tr_status_t st = tr_atomicv(v->real, addr, op, type, operand, compare, result, segs, nseg,
                                key, comp);
    view_unlock(v);
    return st;
}

static int view_progress(tr_iface_t *tr)
{
    chan_view_t *v = view_lock(tr);
    int n = tr_progress(v->real);
    view_unlock(v);
    return n;
}

static tr_status_t view_flush(tr_iface_t *tr, uint64_t addr, tr_comp_t *comp)
{
    chan_view_t *v = view_lock(tr);
    tr_status_t st = tr_flush(v->real, addr, comp);
    view_unlock(v);
    return st;
}

/* The view is no doorbell and never ends the endpoint: the channel does. */
static const tr_ops_t view_ops = {
    .connect = view_connect,
    .my_address = view_my_address,
    .add_peer = view_add_peer,
    .am_short = view_am_short,
    .am_bulk = tr_stub_am_bulk,
    .mem_key = view_mem_key,
    .mem_release = view_mem_release,
    .get = view_get,
    .put = view_put,
    .atomic_max = view_atomic_max,
    .atomic = view_atomic,
    .atomicv = view_atomicv,
    .progress = view_progress,
    .flush = view_flush,
    .sleep_prepare = tr_stub_sleep_prepare,
    .sleep_wait = tr_stub_sleep_wait,
    .sleep_cancel = tr_stub_sleep_cancel,
    .sleep_fd = tr_stub_sleep_fd,
    .sleep_wake = tr_stub_sleep_wake,
    .finalize = tr_stub_finalize,
};

tr_iface_t *cr_chan_net_shared(cr_chan_t *ch)
{
    tr_iface_t *net = ch->net;
    if (!net || !cr_chan_locking) return net;
    chan_view_t *v = &views[ch->index];
    if (v->real != net) {
        /* made (or remade for a new endpoint: the runtime restarted) under
         * the library lock, which every caller holds */
        v->ops = view_ops;
        v->ops.name = net->ops->name;
        if (!net->ops->atomicv) v->ops.atomicv = NULL;
        v->iface = (tr_iface_t){ .ops = &v->ops, .caps = net->caps, .priv = v };
        v->ch = ch;
        v->real = net;
    }
    return &v->iface;
}
