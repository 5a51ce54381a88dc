/* SPDX-License-Identifier: MIT */
// sources: src/core/pt2pt.c src/core/chan_net.c src/core/adapt.c src/core/progress.c src/core/threads.c src/core/request.c src/core/objtab.c src/transport/transport.c src/transport/self/self.c src/transport/shm/shm.c src/util/settings.c src/util/log.c
// timeout: 60
/* Unit test of the core's matching queues and protocol state machines
 * (src/core/pt2pt.c) through a loopback test transport: two channels in this
 * one process play ranks 0 and 1, and the transport between them can be made
 * to push back (a queue of a few messages: TR_ERR_NO_RESOURCE), to complete
 * bulk sends and gets later (TR_INPROGRESS), and to refuse get (TR_ERR_REFUSED).
 *   matching:  posted-first and unexpected-first, wildcards, contexts, order;
 *   eager:     sizes 0..eager_max, short and bulk, with back-pressure;
 *   sync:      an eager-sync send completes only when the receive matches;
 *   single copy, split copy (WDONE, and the refused put), and pipeline;
 *   refusal:   a peer whose get is refused uses the pipeline, the other way
 *              keeps the single copy;
 *   truncation: MPI_ERR_TRUNCATE and the bytes that fit. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/pt2pt.h"
#include "util/settings.h"

#include "unit_expect.h"

/* ---- what pt2pt.c needs from the rest of the core ---------------------------- */
cr_proc_t cr_proc;
int cr_error(int cls, const char *fmt, ...)
{
    (void)fmt;
    return cls;
}
void cr_abort_job(int code, const char *msg)
{
    fprintf(stderr, "abort: %s\n", msg ? msg : "");
    exit(code ? code : 1);
}
/* The liveness checks need PMI; the waiting policy calls them here. */
unsigned long liveness_checks;
void cr_liveness_check(void)
{
    liveness_checks++;
}
void cr_status_set_bytes(MPI_Status *st, MPI_Count bytes)
{
    st->count_lo = (int)bytes;
}
void cr_dt_retain(cr_datatype_t *dt) { (void)dt; }
void cr_dt_release(cr_datatype_t *dt) { (void)dt; }
void cr_comm_release(cr_comm_t *c) { (void)c; }   /* (request.c: persistent requests) */
void cr_dt_pack(const void *buf, MPI_Aint count, const cr_datatype_t *dt, void *out)
{
    memcpy(out, buf, (size_t)count * (size_t)dt->size);
}
void cr_dt_unpack(const void *in, size_t bytes, void *buf, MPI_Aint count, const cr_datatype_t *dt)
{
    (void)count, (void)dt;
    memcpy(buf, in, bytes);
}
/* a short receive into a non-contiguous type counts its elements (pt2pt.c,
 * recv_accept); this test's types hold whole bytes */
MPI_Count cr_dt_count_elements(const cr_datatype_t *dt, MPI_Count bytes)
{
    (void)dt;
    return bytes;
}
/* the memcheck marks (pt2pt.c) use the segment forms; contiguous here too */
size_t cr_dt_pack_seg(const void *buf, MPI_Aint count, const cr_datatype_t *dt, size_t offset,
                      void *out, size_t max_bytes)
{
    (void)count, (void)dt;
    memcpy(out, (const char *)buf + offset, max_bytes);
    return max_bytes;
}
size_t cr_dt_unpack_seg(void *buf, MPI_Aint count, const cr_datatype_t *dt, size_t offset,
                        const void *in, size_t bytes)
{
    (void)count, (void)dt;
    memcpy((char *)buf + offset, in, bytes);
    return bytes;
}
int cr_objtab_add(cr_objtab_t *t, void *obj);

/* ---- the loopback transport -------------------------------------------------- */
typedef struct loop_msg {
    struct loop_msg *next;
    tr_am_hdr_t hdr;
    size_t len;
    char data[];
} loop_msg_t;
typedef struct loop_comp {
    struct loop_comp *next;
    tr_comp_t *comp;
} loop_comp_t;
typedef struct loop {
    int me;
    struct loop *other;
    loop_msg_t *head, *tail;       /* arrived, not yet delivered */
    int queued, capacity;          /* capacity: NO_RESOURCE beyond it (0: none) */
    int async;                     /* bulk sends and gets complete on the next progress */
    int refuse_get;                /* get from the other side is refused */
    int refuse_put;
    loop_comp_t *comps;            /* completions due at the next progress */
    unsigned long sent, bulk, gets, puts;
} loop_t;

static loop_t la, lb;
static tr_iface_t ta, tb;

static tr_status_t loop_connect(tr_iface_t *tr, int peer, uint64_t *addr)
{
    loop_t *l = tr->priv;
    if (peer != l->other->me) return TR_ERR_UNREACHABLE;
    *addr = (uint64_t)peer;
    return TR_OK;
}

static tr_status_t loop_send(tr_iface_t *tr, const tr_am_hdr_t *hdr, const void *p, size_t len)
{
    loop_t *l = tr->priv, *o = l->other;
    if (o->capacity && o->queued >= o->capacity) return TR_ERR_NO_RESOURCE;
    loop_msg_t *m = malloc(sizeof *m + len + 1);
    m->next = NULL;
    m->hdr = *hdr;
    m->len = len;
    if (len) memcpy(m->data, p, len);
    if (o->tail) o->tail->next = m; else o->head = m;
    o->tail = m;
    o->queued++;
    l->sent++;
    return TR_OK;
}

static void later(loop_t *l, tr_comp_t *comp)
{
    loop_comp_t *c = malloc(sizeof *c);
    c->comp = comp;
    c->next = l->comps;
    l->comps = c;
}

static tr_status_t loop_am_short(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                                 const void *payload, size_t len)
{
    (void)addr;
    if (len > tr->caps.max_short) cr_abort_job(1, "am_short: payload over max_short");
    return loop_send(tr, hdr, payload, len);
}

static tr_status_t loop_am_bulk(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                                const void *payload, size_t len, tr_comp_t *comp)
{
    (void)addr;
    loop_t *l = tr->priv;
    if (len > tr->caps.max_bulk) cr_abort_job(1, "am_bulk: payload over max_bulk");
    tr_status_t st = loop_send(tr, hdr, payload, len);
    if (st != TR_OK) return st;
    l->bulk++;
    if (!l->async) return TR_OK;
    later(l, comp);
    return TR_INPROGRESS;
}

static tr_status_t loop_rw(tr_iface_t *tr, void *local, size_t len, const tr_rkey_t *key,
                           size_t off, tr_comp_t *comp, int put)
{
    loop_t *l = tr->priv;
    if (put ? l->refuse_put : l->refuse_get) return TR_ERR_REFUSED;
    char *remote = (char *)(uintptr_t)key->w[0] + off;
    if (put) {
        memcpy(remote, local, len);
        l->puts++;
    } else {
        memcpy(local, remote, len);
        l->gets++;
    }
    if (!l->async) return TR_OK;
    later(l, comp);
    return TR_INPROGRESS;
}

static tr_status_t loop_get(tr_iface_t *tr, uint64_t addr, void *local, size_t len,
                            const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)addr;
    return loop_rw(tr, local, len, key, off, comp, 0);
}

static tr_status_t loop_put(tr_iface_t *tr, uint64_t addr, const void *local, size_t len,
                            const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)addr;
    return loop_rw(tr, (void *)local, len, key, off, comp, 1);
}

static int loop_progress(tr_iface_t *tr)
{
    loop_t *l = tr->priv;
    int n = 0;
    loop_comp_t *c = l->comps;
    l->comps = NULL;
    while (c) {
        loop_comp_t *next = c->next;
        c->comp->cb(c->comp, TR_OK);
        free(c);
        c = next;
        n++;
    }
    while (l->head) {
        loop_msg_t *m = l->head;
        l->head = m->next;
        if (!l->head) l->tail = NULL;
        l->queued--;
        tr_am_rx_t rx = { .hdr = m->hdr, .len = m->len, .p = { m->data, NULL },
                          .n = { m->len, 0 } };
        /* deliver in two pieces sometimes, as a wrapping ring does */
        if (m->len > 3 && (m->hdr.tag & 1)) {
            rx.n[0] = m->len / 3;
            rx.p[1] = m->data + rx.n[0];
            rx.n[1] = m->len - rx.n[0];
        }
        tr->am_handler(tr->am_arg, l->other->me, &rx);
        free(m);
        n++;
    }
    return n;
}

static const tr_ops_t loop_ops = {
    .name = "loop",
    .connect = loop_connect,
    .my_address = tr_stub_my_address,
    .add_peer = tr_stub_add_peer,
    .am_short = loop_am_short,
    .am_bulk = loop_am_bulk,
    .mem_key = tr_stub_mem_key,
    .mem_release = tr_stub_mem_release,
    .get = loop_get,
    .put = loop_put,
    .progress = loop_progress,
    .flush = tr_stub_flush,
    .atomic_max = tr_stub_atomic_max,
    .atomic = tr_stub_atomic,
    .sleep_prepare = tr_stub_sleep_prepare,
    .sleep_wait = tr_stub_sleep_wait,
    .sleep_cancel = tr_stub_sleep_cancel,
    .sleep_fd = tr_stub_sleep_fd,
    .finalize = tr_stub_finalize,
};

/* ---- the two ranks ---------------------------------------------------------------- */
static cr_chan_t ca, cb;
static int world[2] = { 0, 1 };
static cr_group_t grp = { .size = 2, .world = world };
static cr_comm_t comm_a, comm_b;      /* rank 0's and rank 1's view of one communicator */
static cr_datatype_t byte_t = { .size = 1, .contig = 1, .extent = 1, .true_extent = 1 };

#define EAGER_MAX 512
#define MAX_SHORT 100
#define MAX_BULK 700

static void setup(void)
{
    ta = (tr_iface_t){ .ops = &loop_ops, .priv = &la,
                       .caps = { .max_short = MAX_SHORT, .max_bulk = MAX_BULK,
                                 .eager_max = EAGER_MAX,
                                 .flags = TR_CAP_GET | TR_CAP_PUT | TR_CAP_ORDERED } };
    tb = ta;
    tb.priv = &lb;
    la = (loop_t){ .me = 0, .other = &lb };
    lb = (loop_t){ .me = 1, .other = &la };
    tr_iface_t *a[1] = { &ta }, *b[1] = { &tb };
    if (cr_chan_init(&ca, 0, 2, a, 1, NULL, NULL) || cr_chan_init(&cb, 1, 2, b, 1, NULL, NULL))
        cr_abort_job(1, "init");
    comm_a = (cr_comm_t){ .rank = 0, .size = 2, .ctx = 8, .group = &grp };
    comm_b = comm_a;
    comm_b.rank = 1;
}

static void teardown(void)
{
    cr_chan_fini(&ca);
    cr_chan_fini(&cb);
}

/* Progress both ranks until every request given is complete (or give up). */
static int run(cr_request_t **r, int n)
{
    for (int it = 0; it < 100000; it++) {
        int done = 1;
        for (int i = 0; i < n; i++)
            if (r[i] && !r[i]->complete) done = 0;
        if (done) return 1;
        cr_chan_progress(&ca);
        cr_chan_progress(&cb);
    }
    return 0;
}

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++) b[i] = (unsigned char)(i * 31u + (unsigned)seed * 7u + 3u);
}

static int same(const unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 31u + (unsigned)seed * 7u + 3u)) return 0;
    return 1;
}

/* One message a -> b (or b -> a) of n bytes; recv_first posts the receive
 * first.  Returns 1 when the data, status and both completions are right. */
static int one(int from_a, size_t n, int recv_first, int mode, int tag)
{
    unsigned char *s = malloc(n + 1), *d = calloc(1, n + 1);
    fill(s, n, (int)n + tag);
    cr_request_t *rs = NULL, *rr = NULL;
    cr_chan_t *cs = from_a ? &ca : &cb, *cr = from_a ? &cb : &ca;
    cr_comm_t *ms = from_a ? &comm_a : &comm_b, *mr = from_a ? &comm_b : &comm_a;
    int dest = from_a ? 1 : 0, src = from_a ? 0 : 1;
    if (recv_first) EXPECT(cr_chan_irecv(cr, d, (MPI_Aint)n, &byte_t, src, tag, mr, 0, &rr) == 0);
    EXPECT(cr_chan_isend(cs, s, (MPI_Aint)n, &byte_t, dest, tag, ms, 0, mode, &rs) == 0);
    if (mode == CR_MODE_SYNC && !recv_first) {
        /* a synchronous send cannot complete before the receive matches */
        for (int i = 0; i < 50; i++) {
            cr_chan_progress(&ca);
            cr_chan_progress(&cb);
        }
        EXPECT(!rs->complete);
    }
    if (!recv_first) EXPECT(cr_chan_irecv(cr, d, (MPI_Aint)n, &byte_t, src, tag, mr, 0, &rr) == 0);
    cr_request_t *both[2] = { rs, rr };
    int ok = run(both, 2);
    EXPECT(ok);
    ok = ok && same(d, n, (int)n + tag) && rr->status.MPI_SOURCE == src &&
         rr->status.MPI_TAG == tag && rr->status.count_lo == (int)n && rr->err == 0;
    if (!ok) fprintf(stderr, "  message of %zu bytes (from %s, mode %d, recv first %d) wrong\n",
                     n, from_a ? "a" : "b", mode, recv_first);
    cr_request_free(rs);
    cr_request_free(rr);
    free(s);
    free(d);
    return ok;
}

static void test_sizes(const char *what)
{
    static const size_t sizes[] = { 0, 1, 7, MAX_SHORT, MAX_SHORT + 1, EAGER_MAX,
                                    EAGER_MAX + 1, MAX_BULK + 5, 5000, 100000 };
    int bad = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int rf = 0; rf < 2; rf++)
            for (int mode = 0; mode < 2; mode++)
                for (int dir = 0; dir < 2; dir++)
                    bad += !one(dir, sizes[i], rf, mode ? CR_MODE_SYNC : CR_MODE_STD,
                                (int)i + rf * 2);
    if (bad) fprintf(stderr, "FAIL %s: %d messages wrong\n", what, bad);
    unit_failures += bad;
}

/* Matching: wildcards, contexts and MPI's order among many messages. */
static void test_matching(void)
{
    enum { N = 40 };
    int sv[N], rv[N];
    cr_request_t *rs[N], *rr[N];
    /* unexpected first: tags alternate 1, 2; receive tag 2 ones first, then ANY */
    for (int i = 0; i < N; i++) {
        sv[i] = 1000 + i;
        EXPECT(cr_chan_isend(&ca, &sv[i], sizeof(int), &byte_t, 1, 1 + i % 2, &comm_a, 0,
                             CR_MODE_STD, &rs[i]) == 0);
    }
    EXPECT(run(rs, N));
    for (int i = 0; i < N / 2; i++)
        EXPECT(cr_chan_irecv(&cb, &rv[i], sizeof(int), &byte_t, 0, 2, &comm_b, 0, &rr[i]) == 0);
    for (int i = N / 2; i < N; i++)
        EXPECT(cr_chan_irecv(&cb, &rv[i], sizeof(int), &byte_t, MPI_ANY_SOURCE, MPI_ANY_TAG,
                             &comm_b, 0, &rr[i]) == 0);
    EXPECT(run(rr, N));
    for (int i = 0; i < N / 2; i++) EXPECT(rv[i] == 1000 + 2 * i + 1);
    for (int i = N / 2; i < N; i++) {
        EXPECT(rv[i] == 1000 + 2 * (i - N / 2));
        EXPECT(rr[i]->status.MPI_TAG == 1 && rr[i]->status.MPI_SOURCE == 0);
    }
    for (int i = 0; i < N; i++) {
        cr_request_free(rs[i]);
        cr_request_free(rr[i]);
    }
    /* posted first: another context does not match; ANY_TAG takes the first */
    int x = 0, y = 0, v1 = 11, v2 = 22;
    cr_request_t *r1, *r2, *s1, *s2;
    EXPECT(cr_chan_irecv(&cb, &x, sizeof(int), &byte_t, 0, 5, &comm_b, CR_CTX_COLL, &r1) == 0);
    EXPECT(cr_chan_irecv(&cb, &y, sizeof(int), &byte_t, 0, MPI_ANY_TAG, &comm_b, 0, &r2) == 0);
    EXPECT(cr_chan_isend(&ca, &v1, sizeof(int), &byte_t, 1, 5, &comm_a, 0, CR_MODE_STD, &s1) == 0);
    EXPECT(cr_chan_isend(&ca, &v2, sizeof(int), &byte_t, 1, 5, &comm_a, CR_CTX_COLL,
                         CR_MODE_STD, &s2) == 0);
    cr_request_t *all[4] = { r1, r2, s1, s2 };
    EXPECT(run(all, 4));
    EXPECT(y == 11 && x == 22);
    for (int i = 0; i < 4; i++) cr_request_free(all[i]);
    EXPECT(!cb.posted_head && !cb.ux_head);
}

static void test_truncate(void)
{
    static unsigned char s[4000], d[4000];
    fill(s, sizeof s, 9);
    size_t sizes[2] = { 300, 4000 };            /* eager, rendezvous */
    for (int k = 0; k < 2; k++) {
        memset(d, 0, sizeof d);
        cr_request_t *rs, *rr;
        EXPECT(cr_chan_irecv(&cb, d, 100, &byte_t, 0, 3, &comm_b, 0, &rr) == 0);
        EXPECT(cr_chan_isend(&ca, s, (MPI_Aint)sizes[k], &byte_t, 1, 3, &comm_a, 0, CR_MODE_STD,
                             &rs) == 0);
        cr_request_t *both[2] = { rs, rr };
        EXPECT(run(both, 2));
        EXPECT(rr->err == MPI_ERR_TRUNCATE);
        EXPECT(rr->status.count_lo == 100);
        EXPECT(same(d, 100, 9) && d[100] == 0);
        cr_request_free(rs);
        cr_request_free(rr);
    }
}

int main(void)
{
    ut_settings_load();
    ut_settings.cma_min = 1;
    ut_settings.cma_split_min = 0;
    ut_settings.rndv_chunk_bytes = 333;

    /* plain: single copy for rendezvous */
    setup();
    test_matching();
    test_sizes("single copy");
    EXPECT(la.gets > 0 && lb.gets > 0 && la.puts == 0);
    EXPECT(ca.vc[1].get_state == CR_GET_WORKS);
    test_truncate();
    teardown();

    /* split copy (after a first single copy worked), then with the put refused */
    setup();
    ut_settings.cma_split_min = 1000;
    test_sizes("split copy");
    EXPECT(la.puts > 0 && lb.puts > 0);
    la.refuse_put = lb.refuse_put = 1;
    test_sizes("split copy, put refused");
    test_truncate();
    teardown();

    /* refusal: a cannot get from b; b -> a uses the pipeline, a -> b gets */
    setup();
    ut_settings.cma_split_min = 0;
    la.refuse_get = 1;
    unsigned long before = lb.bulk;
    test_sizes("get refused one way");
    EXPECT(ca.vc[1].get_state == CR_GET_REFUSED);
    EXPECT(cb.vc[0].get_state == CR_GET_WORKS);
    EXPECT(lb.bulk > before + 100);       /* 100000 bytes in 333-byte pieces */
    test_truncate();
    teardown();

    /* everything asynchronous and a transport that holds two messages */
    setup();
    ut_settings.cma_split_min = 1000;
    la.async = lb.async = 1;
    la.capacity = lb.capacity = 2;
    test_matching();
    test_sizes("asynchronous, back-pressure");
    test_truncate();
    lb.refuse_get = 1;
    test_sizes("asynchronous, back-pressure, get refused");
    EXPECT(!ca.busy && !cb.busy);
    teardown();

    /* the pipeline everywhere (cma_min 0) */
    setup();
    ut_settings.cma_min = 0;
    la.capacity = lb.capacity = 3;
    test_sizes("pipeline");
    EXPECT(la.gets == 0 && lb.gets == 0);
    teardown();

    if (unit_failures) return 1;
    printf("pt2pt: all checks passed\n");
    return 0;
}
