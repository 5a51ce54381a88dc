/* SPDX-License-Identifier: MIT */
/* The self transport (self.h): a FIFO of AMs this process sent itself, one
 * per interface (channel). */
#include "transport/self/self.h"

#include <stdlib.h>
#include <string.h>

typedef struct self_am {
    struct self_am *next;
    tr_am_hdr_t hdr;
    const void *payload;      /* bulk: the sender's buffer; short: data[] below */
    size_t len;
    tr_comp_t *comp;          /* bulk: completed once delivered */
    char data[];
} self_am_t;

/* One interface's state (tr->priv). */
typedef struct {
    self_am_t *head, *tail;
    int me_peer;
} self_q_t;

static tr_status_t self_connect(tr_iface_t *tr, int peer, uint64_t *addr)
{
    const self_q_t *q = tr->priv;
    if (peer != q->me_peer) return TR_ERR_UNREACHABLE;
    *addr = 0;
    return TR_OK;
}

static tr_status_t enqueue(self_q_t *q, const tr_am_hdr_t *hdr, const void *payload, size_t len,
                           tr_comp_t *comp)
{
    self_am_t *a = malloc(sizeof *a + (comp ? 0 : len));
    if (!a) return TR_ERR_NO_MEMORY;
    a->next = NULL;
    a->hdr = *hdr;
    a->len = len;
    a->comp = comp;
    if (comp) {
        a->payload = payload;
    } else {
        if (len) memcpy(a->data, payload, len);
        a->payload = a->data;
    }
    if (q->tail) q->tail->next = a; else q->head = a;
    q->tail = a;
    return comp ? TR_INPROGRESS : TR_OK;
}

static tr_status_t self_am_short(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                                 const void *payload, size_t len)
{
    (void)addr;
    return enqueue(tr->priv, hdr, payload, len, NULL);
}

static tr_status_t self_am_bulk(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                                const void *payload, size_t len, tr_comp_t *comp)
{
    (void)addr;
    return enqueue(tr->priv, hdr, payload, len, comp);
}

/* Deliver what is queued now; AMs that handlers send meanwhile wait for the
 * next call (bounded work per call, no recursion). */
static int self_progress(tr_iface_t *tr)
{
    self_q_t *q = tr->priv;
    self_am_t *a = q->head;
    int n = 0;
    q->head = q->tail = NULL;
    while (a) {
        self_am_t *next = a->next;
        tr_am_rx_t m = { .hdr = a->hdr, .len = a->len, .p = { a->payload, NULL },
                         .n = { a->len, 0 } };
        tr->am_handler(tr->am_arg, q->me_peer, &m);
        if (a->comp) a->comp->cb(a->comp, TR_OK);
        free(a);
        a = next;
        n++;
    }
    return n;
}

static tr_status_t self_get(tr_iface_t *tr, uint64_t addr, void *local, size_t len,
                            const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)tr, (void)addr, (void)comp;
    if (len) memcpy(local, (const char *)(uintptr_t)key->w[0] + off, len);
    return TR_OK;
}

static tr_status_t self_put(tr_iface_t *tr, uint64_t addr, const void *local, size_t len,
                            const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)tr, (void)addr, (void)comp;
    if (len) memcpy((char *)(uintptr_t)key->w[0] + off, local, len);
    return TR_OK;
}

static void self_finalize(tr_iface_t *tr)
{
    self_q_t *q = tr->priv;
    while (q->head) {
        self_am_t *a = q->head;
        q->head = a->next;
        free(a);
    }
    free(q);
    free(tr);
}

static const tr_ops_t self_ops = {
    .name = "self",
    .connect = self_connect,
    .my_address = tr_stub_my_address,
    .add_peer = tr_stub_add_peer,
    .am_short = self_am_short,
    .am_bulk = self_am_bulk,
    .mem_key = tr_stub_mem_key,       /* the address is the key */
    .mem_release = tr_stub_mem_release,
    .get = self_get,
    .put = self_put,
    .progress = self_progress,
    .flush = tr_stub_flush,
    .atomic_max = tr_stub_atomic_max,
    .atomic = tr_stub_atomic,
    .sleep_prepare = tr_stub_sleep_prepare,
    .sleep_wait = tr_stub_sleep_wait,
    .sleep_cancel = tr_stub_sleep_cancel,
    .sleep_fd = tr_stub_sleep_fd,
    .sleep_wake = tr_stub_sleep_wake,
    .finalize = self_finalize,
};

/* Short AMs (control messages) are copied; anything larger goes by reference
 * and its send completes when the handler took it, so a self message is
 * copied once, as by any eager protocol. */
#define SELF_MAX_SHORT 64
int self_init(int me, tr_iface_t **out, int n)
{
    for (int i = 0; i < n; i++) {
        tr_iface_t *tr = calloc(1, sizeof *tr);
        self_q_t *q = calloc(1, sizeof *q);
        if (!tr || !q) {
            free(tr);
            free(q);
            while (i > 0) self_finalize(out[--i]);
            return -1;
        }
        q->me_peer = me;
        tr->ops = &self_ops;
        tr->caps = (tr_caps_t){ .max_short = SELF_MAX_SHORT, .max_bulk = SIZE_MAX,
                                .eager_max = SIZE_MAX,
                                .flags = TR_CAP_GET | TR_CAP_PUT | TR_CAP_ORDERED };
        tr->priv = q;
        out[i] = tr;
    }
    return 0;
}
