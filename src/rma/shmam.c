/* SPDX-License-Identifier: MIT */
/* Small one-sided operations to a target on this node whose window memory is
 * its own (RMA_CMA: MPI_Win_create, MPI_Win_create_dynamic) as requests that
 * the target's progress engine serves (rma.h, docs/rma.md).  A cross-memory
 * copy is a system call of a microsecond and more even for 8 bytes; a
 * request through shared memory to a target that polls costs two cache-line
 * transfers.  So each rank of such a window has, in its control area of the
 * window's node segment, a ring of COURIER_RMA_SHM_AM_SLOTS slots that every
 * origin of the node may fill and that its poller drains in order:
 *
 * - A slot's word is ticket << 3 | state.  The slot of ticket p is free for
 *   it when its word is (p, FREE); an origin takes ticket p by advancing the
 *   ring's tail from p with a compare-and-swap, writes the request (kind,
 *   place, the data, up to COURIER_RMA_SHM_AM_MAX bytes) and publishes it as
 *   (p, POSTED) (a bounded multi-producer queue, as in Vyukov's).  A word
 *   that still holds an older ticket means the ring is full: the operation
 *   goes by copies.
 * - The target serves the slot at its head when it is POSTED, after taking
 *   it (POSTED -> TAKEN by compare-and-swap), then frees the slot for ticket
 *   p + slots, having copied the results of a request that returns data into
 *   the origin's result area first (res_of: an origin has at most one such
 *   request unsettled, so a slot never waits for an origin that was
 *   descheduled before it read its results).  As the target serves in ticket
 *   order, an origin's requests are all served when the word of its newest
 *   one holds a later ticket: flush watches that one line, which the target
 *   wrote last.  Up to 16 bytes of data share the line of the slot's word.
 * - An origin that waited COURIER_RMA_SHM_AM_SLOW_US for its requests takes
 *   back, newest first, those the target has not taken (POSTED -> BACK by
 *   compare-and-swap, then reads and frees the slot; the target skips a slot
 *   taken back, or freed so, at its head), waits for
 *   the ones it has taken (it is running them), and does the taken-back ones
 *   by copies, in order.  So an origin never needs the target to call MPI
 *   (issue 13's passive-target progress), at the cost of that wait.  An
 *   origin that waited longer than COURIER_RMA_SHM_AM_LATE_US (about what a
 *   copy costs) judges the target not polling (core/adapt.h's verdicts: one
 *   request in COURIER_ADAPTIVE_PROBE, doubling, tries again), its operations
 *   going by copies meanwhile: on a node whose cores are shared with other
 *   work a request often waits for the target's next time slice.  A target
 *   that sleeps on its doorbell gets the operation by copies and is woken, to
 *   poll for the next ones.
 * - Ordering: the target serves requests in ticket order, and an origin
 *   settles (completes) every request of its to a target before any copy to
 *   it, and in flush, unlock, fence and complete; a request that returns data
 *   is settled at once.  Accumulates are applied by the target under its
 *   accumulate lock, the one word that origins' copies hold too (or by the
 *   CPU's atomics where am.c's handler uses those), so they stay atomic with
 *   each other across the paths.
 * Errors met by the target (a dynamic window's memory detached meanwhile)
 * are kept in err[origin] beside the count and reported at the next settle. */
#define _GNU_SOURCE
#include "rma/rma.h"
#include "core/progress.h"
#include "core/pvar.h"
#include "transport/shm/shm.h"
#include "util/settings.h"

#include <stdlib.h>
#include <string.h>

enum { SAM_FREE = 0, SAM_POSTED, SAM_TAKEN, SAM_DONE, SAM_BACK };
enum { SAM_STATE_BITS = 3 };
#define SAM_WORD(ticket, st) (((uint64_t)(ticket) << SAM_STATE_BITS) | (uint64_t)(st))
/* request flags */
enum { SAM_CAS = 1, SAM_OLD = 2 };

/* The ring's header; the origins' error words follow (per window rank, a
 * cache line each), then the origins' result areas (per window rank), then
 * the slots. */
typedef struct {
    volatile uint64_t tail;        /* the next ticket an origin takes */
    char pad[56];
} sam_ring_t;

typedef struct {
    volatile uint64_t err;         /* the first error met serving this origin's requests
                                      that return nothing (an MPI error class) */
    char pad[56];
} sam_count_t;

typedef struct {
    volatile uint64_t word;        /* SAM_WORD(ticket, state) */
    uint32_t kind, flags;          /* RMA_SAM_*, SAM_* */
    int32_t basic, op;             /* accumulates: the element type, the MPI_Op */
    int32_t origin, err;           /* window rank of the origin; MPI_SUCCESS or an error class */
    uint64_t at, bytes;            /* offset from the window base (dynamic: the address), length */
} sam_slot_t;                      /* the data follow: in (then cmp); results replace them */
enum { SAM_LINE = 64 };
_Static_assert(sizeof(sam_slot_t) == 48, "a slot's header leaves 16 bytes of its line for data");

/* Where the target leaves the results of an origin's data-returning request
 * before it frees the request's slot: an origin has at most one such request
 * unsettled per target (it settles each at once), so one area per origin
 * does.  The target frees the slot itself, so an origin descheduled before
 * it reads its result holds no slot, and other origins' tickets go on (a
 * held slot stopped the ring for everyone when it came round). */
typedef struct {
    uint64_t ticket;               /* the request whose results these are */
    int32_t err;                   /* MPI_SUCCESS or an error class */
    int32_t pad;
} sam_res_t;                       /* the results follow */
_Static_assert(sizeof(sam_count_t) == 64, "one origin's counters are one cache line");

/* One request of this process not yet settled: its ticket, and where a
 * data-returning one's results go. */
struct rma_sam_pend {
    uint64_t ticket;
    void *out;
    size_t bytes;                  /* of the results */
};

static cr_win_t *sam_wins;         /* windows whose ring this rank serves */
static int sam_poll(void *arg);
static int sam_waiting(void);
static cr_poller_t sam_poller = { "rma-shm", sam_poll, NULL, NULL, 0, 0 };
static cr_adapt_cfg_t sam_cfg;     /* mode CR_ADAPT_AUTO where COURIER_RMA_SHM_AM=1 */
static uint64_t sam_slow_ns;       /* COURIER_RMA_SHM_AM_SLOW_US: when requests are taken back */

static sam_ring_t *ring_of(cr_win_t *w, int local)
{
    return (sam_ring_t *)(void *)((char *)rma_ctl_at(w, local) + w->sam_off);
}
static sam_count_t *count_of(sam_ring_t *r, int origin)
{
    return (sam_count_t *)(void *)(r + 1) + origin;
}
static sam_res_t *res_of(cr_win_t *w, sam_ring_t *r, int origin)
{
    return (sam_res_t *)(void *)((char *)count_of(r, w->size) + (size_t)origin * w->sam_res_bytes);
}
static sam_slot_t *slot_of(cr_win_t *w, sam_ring_t *r, uint64_t ticket)
{
    return (sam_slot_t *)(void *)((char *)res_of(w, r, w->size) +
                                  (size_t)(ticket & (w->sam_nslots - 1)) * w->sam_slot_bytes);
}
static char *slot_data(sam_slot_t *s)
{
    return (char *)(s + 1);
}

size_t rma_sam_bytes(cr_win_t *w, int flavor)
{
    w->sam = ut_settings.rma_shm_am != 0 && w->nlocal > 1 &&
             (flavor == MPI_WIN_FLAVOR_CREATE || flavor == MPI_WIN_FLAVOR_DYNAMIC);
    if (!w->sam) return 0;
    size_t n = sizeof(sam_slot_t) + (size_t)ut_settings.rma_shm_am_max;
    w->sam_slot_bytes = (n + SAM_LINE - 1) / SAM_LINE * SAM_LINE;
    n = sizeof(sam_res_t) + (size_t)ut_settings.rma_shm_am_max;
    w->sam_res_bytes = (n + SAM_LINE - 1) / SAM_LINE * SAM_LINE;
    /* a power of two: a slot's index is a mask of the ticket */
    w->sam_nslots = 1;
    while (w->sam_nslots < (uint32_t)ut_settings.rma_shm_am_slots) w->sam_nslots <<= 1;
    return sizeof(sam_ring_t) + (size_t)w->size * (sizeof(sam_count_t) + w->sam_res_bytes) +
           (size_t)w->sam_nslots * w->sam_slot_bytes;
}

void rma_sam_init(cr_win_t *w)
{
    if (!w->sam) return;
    sam_ring_t *r = ring_of(w, w->my_local);
    r->tail = 0;
    for (int o = 0; o < w->size; o++) count_of(r, o)->err = 0;
    for (uint32_t i = 0; i < w->sam_nslots; i++) slot_of(w, r, i)->word = SAM_WORD(i, SAM_FREE);
    w->sam_head = 0;
    w->sam_headw = &slot_of(w, r, 0)->word;
    sam_cfg.mode = ut_settings.rma_shm_am == 1 ? CR_ADAPT_AUTO : CR_ADAPT_OFF;
    sam_cfg.slow_ns = (uint64_t)ut_settings.rma_shm_am_late_us * 1000u;
    sam_slow_ns = (uint64_t)ut_settings.rma_shm_am_slow_us * 1000u;
    sam_cfg.probe_every = (uint32_t)ut_settings.adaptive_probe;
    sam_cfg.probe_max = (uint32_t)ut_settings.adaptive_probe_max;
    sam_cfg.busy_bytes_per_us = 0;
    for (int k = 0; k < w->size; k++) {
        rma_target_t *t = &w->t[k];
        if (t->path != RMA_CMA) continue;
        t->shm_local = cr_peer_local(t->world);
        /* ranks outnumbering cores: taken as not polling until a probe says otherwise */
        cr_adapt_init(&t->sam_adapt, &sam_cfg, cr_proc.oversubscribed);
    }
    w->sam_next = sam_wins;
    sam_wins = w;
    cr_progress_register(&sam_poller);
    cr_wait_side = sam_waiting;
}

void rma_sam_fini(cr_win_t *w)
{
    if (!w->sam) return;
    for (cr_win_t **pp = &sam_wins; *pp; pp = &(*pp)->sam_next)
        if (*pp == w) {
            *pp = w->sam_next;
            break;
        }
    for (int k = 0; k < w->size; k++) {
        free(w->t[k].sam_pend);
        w->t[k].sam_pend = NULL;
    }
    if (!sam_wins) {
        cr_progress_unregister(&sam_poller);
        cr_wait_side = NULL;
    }
}

/* ---- the target's side ------------------------------------------------------------- */
/* An accumulate-class request on the n bytes at p, as am.c's handler applies
 * one: element by element with the CPU's atomics where the other origins
 * update this type so, else under this rank's accumulate lock. */
static void serve_acc(cr_win_t *w, sam_slot_t *s, char *p, size_t n)
{
    cr_basic_t b = (cr_basic_t)s->basic;
    int cas = (s->flags & SAM_CAS) != 0;
    const cr_op_t *op = cas ? NULL : cr_op_ptr(s->op);
    char *d = slot_data(s);
    const char *in = !cas && s->op == MPI_NO_OP ? NULL : d;
    const char *cmp = cas ? d + n : NULL;
    char stack[256], *old = NULL;
    if (s->flags & SAM_OLD) {
        old = n <= sizeof stack ? stack : malloc(n);
        if (!old) cr_abort_job(1, "courier: out of memory serving a one-sided accumulate");
    }
    if (rma_am_acc_by_atomics(w, b)) {
        rma_acc_atomic_elems(p, n / cr_basic_size(b), b, op, in, cmp, old);
    } else {
        rma_acc_lock(w->me);
        if (old) memcpy(old, p, n);
        if (cas) {
            if (memcmp(p, cmp, n) == 0) memcpy(p, in, n);
        } else if (in) {
            cr_op_apply_packed(op, b, in, p, n);
        }
        rma_acc_unlock(w->me);
    }
    if (old) {
        memcpy(d, old, n);
        if (old != stack) free(old);
    }
}

static void serve(cr_win_t *w, sam_slot_t *s)
{
    size_t n = (size_t)s->bytes;
    char *p;
    int err = MPI_SUCCESS;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        p = (char *)(uintptr_t)s->at;
        if (!rma_dyn_covers(rma_dyn(w, w->my_local), __atomic_load_n(&w->me->ndyn, __ATOMIC_ACQUIRE),
                            s->at, s->at + n))
            err = MPI_ERR_RMA_RANGE;
    } else {
        p = (char *)w->base + s->at;
        if (s->at + n > (uint64_t)w->wsize) err = MPI_ERR_RMA_RANGE;
    }
    if (!err) switch (s->kind) {
        case RMA_SAM_PUT: memcpy(p, slot_data(s), n); break;
        case RMA_SAM_GET: memcpy(slot_data(s), p, n); break;
        default: serve_acc(w, s, p, n); break;
        }
    s->err = err;
}

/* The next ticket to serve. */
static void head_advance(cr_win_t *w, sam_ring_t *r)
{
    w->sam_head++;
    w->sam_headw = &slot_of(w, r, w->sam_head)->word;
}

/* Serve what waits in w's ring. */
static __attribute__((noinline)) int serve_ring(cr_win_t *w)
{
    sam_ring_t *r = ring_of(w, w->my_local);
    int events = 0;
    for (;;) {
        uint64_t h = w->sam_head;
        sam_slot_t *s = slot_of(w, r, h);
        uint64_t v = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
        if (v == SAM_WORD(h, SAM_BACK) || (v >> SAM_STATE_BITS) > h) {
            /* taken back by its origin, which frees the slot once it has
             * read it (maybe already) */
            head_advance(w, r);
            continue;
        }
        if (v != SAM_WORD(h, SAM_POSTED)) break;   /* nothing (more) published */
        if (!__atomic_compare_exchange_n(&s->word, &v, SAM_WORD(h, SAM_TAKEN), 0,
                                         __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;                               /* taken back meanwhile */
        serve(w, s);
        int origin = s->origin, err = s->err;
        int result = s->kind == RMA_SAM_GET || (s->flags & SAM_OLD);
        if (err && !result) {
            uint64_t none = 0;
            __atomic_compare_exchange_n(&count_of(r, origin)->err, &none, (uint64_t)err, 0,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED);
        }
        if (result) {
            /* the results to the origin's area; the slot's release below
             * publishes them (served(): a later ticket in the word) */
            sam_res_t *res = res_of(w, r, origin);
            res->ticket = h;
            res->err = err;
            if (!err) memcpy(res + 1, slot_data(s), (size_t)s->bytes);
        }
        __atomic_store_n(&s->word, SAM_WORD(h + w->sam_nslots, SAM_FREE), __ATOMIC_RELEASE);
        head_advance(w, r);
        w->stats.sam_served++;
        cr_pvar_rma[CR_PVAR_RMA_SHM_SERVED]++;
        events++;
    }
    return events;
}

/* cr_wait_side (core.h): 1 when a request waits at the head of one of this
 * rank's rings, for the waits that poll only a peer's ring (MPI_Recv's fast
 * path), which then run the whole progress step (sam_poll among it). */
static int sam_waiting(void)
{
    for (cr_win_t *w = sam_wins; w; w = w->sam_next)
        if (__atomic_load_n(w->sam_headw, __ATOMIC_RELAXED) != SAM_WORD(w->sam_head, SAM_FREE))
            return 1;
    return 0;
}

static int sam_poll(void *arg)
{
    (void)arg;
    int events = 0;
    for (cr_win_t *w = sam_wins; w; w = w->sam_next)
        /* the common case, every poll of the process: nothing at the head */
        if (CR_UNLIKELY(__atomic_load_n(w->sam_headw, __ATOMIC_RELAXED) !=
                        SAM_WORD(w->sam_head, SAM_FREE)))
            events += serve_ring(w);
    return events;
}

/* ---- the origin's side -------------------------------------------------------------- */
/* Whether the next small operation to t goes as a request. */
static int sam_want(rma_target_t *t)
{
    if (ut_settings.rma_shm_am == 2) return 1;
    int st = shm_peer_idle(&shm_ctxs[0], t->shm_local);
    if ((st & SHM_PEER_SLEEPS) && !(st & SHM_PEER_ANSWERS)) {
        /* asleep in a blocking call (it sleeps after COURIER_WAIT_SLEEP_US
         * without events, copies giving it none): this one by copies, and
         * it is woken to poll for the next ones (it then stays awake as
         * long as requests come; judging it not polling instead would keep
         * it asleep, as a probe's wake-up is always late) */
        shm_wake(t->shm_local);
        return 0;
    }
    return !cr_adapt_choose_eager(&t->sam_adapt, &sam_cfg);
}

/* Put one request into t's ring: 0 when the ring is full (nothing written). */
static int sam_post(cr_win_t *w, rma_target_t *t, int kind, uint32_t flags, uint64_t at,
                    size_t bytes, cr_basic_t b, const cr_op_t *op, const void *in,
                    const void *cmp, void *out)
{
    sam_ring_t *r = ring_of(w, t->local);
    uint64_t p = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    sam_slot_t *s;
    for (;;) {
        s = slot_of(w, r, p);
        uint64_t v = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
        if (v == SAM_WORD(p, SAM_FREE)) {
            if (__atomic_compare_exchange_n(&r->tail, &p, p + 1, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_RELAXED))
                break;
            continue;                            /* another origin took p: p is the tail now */
        }
        if ((v >> SAM_STATE_BITS) < p) return 0; /* an older request still holds the slot */
        p = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
    }
    s->kind = (uint32_t)kind;
    s->flags = flags;
    s->basic = (int32_t)b;
    s->op = op ? (int32_t)op->handle : 0;
    s->origin = w->rank;
    s->err = MPI_SUCCESS;
    s->at = at;
    s->bytes = bytes;
    if (in) memcpy(slot_data(s), in, bytes);
    if (cmp) memcpy(slot_data(s) + bytes, cmp, bytes);
    __atomic_store_n(&s->word, SAM_WORD(p, SAM_POSTED), __ATOMIC_RELEASE);
    t->sam_pend[t->sam_npend++] = (struct rma_sam_pend){ p, out, bytes };
    w->stats.sam_reqs++;
    cr_pvar_rma[CR_PVAR_RMA_SHM_REQS]++;
    return 1;
}

/* A request taken back (c: a copy of its slot), done by cross-memory copies
 * as the origin's own operations are (ops.c): accumulates under the target's
 * accumulate lock. */
static int back_copy(cr_win_t *w, rma_target_t *t, sam_slot_t *c, void *out)
{
    size_t n = (size_t)c->bytes, off = (size_t)c->at;
    char *d = slot_data(c);
    tr_status_t st = TR_OK;
    if (c->kind == RMA_SAM_PUT) {
        st = shm_cma_copyv(&t->key, &off, &n, 1, d, 1);
    } else if (c->kind == RMA_SAM_GET) {
        st = shm_cma_copyv(&t->key, &off, &n, 1, out, 0);
    } else {
        cr_basic_t b = (cr_basic_t)c->basic;
        int cas = (c->flags & SAM_CAS) != 0;
        char stack[256], *cur = n <= sizeof stack ? stack : malloc(n);
        if (!cur) return cr_error(MPI_ERR_NO_MEM, "no memory");
        rma_acc_lock(t->ctl);
        st = shm_cma_copyv(&t->key, &off, &n, 1, cur, 0);
        int write = 0;
        if (st == TR_OK) {
            if (c->flags & SAM_OLD) memcpy(out, cur, n);
            if (cas) {
                write = memcmp(cur, d + n, n) == 0;
                if (write) memcpy(cur, d, n);
            } else if (c->op != MPI_NO_OP) {
                cr_op_apply_packed(cr_op_ptr(c->op), b, d, cur, n);
                write = 1;
            }
            if (write) st = shm_cma_copyv(&t->key, &off, &n, 1, cur, 1);
        }
        rma_acc_unlock(t->ctl);
        if (cur != stack) free(cur);
    }
    if (st == TR_OK) return MPI_SUCCESS;
    return cr_error(MPI_ERR_RMA_SHARED, "cannot %s the memory of process %d on this node "
                    "(cross-memory attach: %s)", c->kind == RMA_SAM_GET ? "read" : "write",
                    t->world, tr_status_str(st));
}

/* 1 when the target has served the request of ticket p (and so every
 * earlier one: it serves in order): its slot was freed (DONE is no longer
 * written: results go to the origin's area). */
static inline int served(cr_win_t *w, sam_ring_t *r, uint64_t p)
{
    uint64_t v = __atomic_load_n(&slot_of(w, r, p)->word, __ATOMIC_ACQUIRE);
    return v == SAM_WORD(p, SAM_DONE) || (v >> SAM_STATE_BITS) > p;
}

/* Wait, with progress, until the target has served ticket p; with a limit
 * (limit_ns > 0), at most that long, and *waited says how long it waited
 * (0 when served already): 1 when it was served. */
static int wait_served(cr_win_t *w, sam_ring_t *r, uint64_t p, uint64_t limit_ns,
                       uint64_t *waited)
{
    if (served(w, r, p)) return 1;
    cr_wait_t wt = CR_WAIT_INIT;
    uint64_t t0 = limit_ns ? cr_wait_sys.now_ns() : 0, now = t0;
    int ok = 1;
    while (!served(w, r, p)) {
        if (limit_ns && (now = cr_wait_sys.now_ns()) - t0 > limit_ns) {
            ok = 0;
            break;
        }
        cr_wait_poll(&wt);
    }
    cr_wait_end(&wt);
    if (limit_ns) *waited = (ok ? cr_wait_sys.now_ns() : now) - t0;
    return ok;
}

int rma_sam_settle_slow(cr_win_t *w, int rank)
{
    rma_target_t *t = &w->t[rank];
    sam_ring_t *r = ring_of(w, t->local);
    sam_count_t *c = count_of(r, w->rank);
    struct rma_sam_pend *pd = t->sam_pend;
    int n = t->sam_npend, kept = n, err = MPI_SUCCESS;
    cr_adapt_obs_t obs = { 0, 0, 0, 0, 0 };
    /* a limit of 0 would take back even what the target is serving now; the
     * wait is the verdict's look: longer than a copy takes, the target was
     * not polling when the requests came (descheduled, or computing) */
    if (!wait_served(w, r, pd[n - 1].ticket, sam_slow_ns ? sam_slow_ns : 1, &obs.look_ns)) {
        /* not looked at in time: take back what the target has not taken,
         * newest first (it serves in order: the first it took ends it) */
        char *copies = malloc((size_t)n * w->sam_slot_bytes);
        if (!copies) return cr_error(MPI_ERR_NO_MEM, "no memory to take back requests");
        for (int i = n - 1; i >= 0; i--) {
            sam_slot_t *s = slot_of(w, r, pd[i].ticket);
            uint64_t v = SAM_WORD(pd[i].ticket, SAM_POSTED);
            if (!__atomic_compare_exchange_n(&s->word, &v, SAM_WORD(pd[i].ticket, SAM_BACK), 0,
                                             __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                break;
            /* the target skips it now and nobody else writes it: read it,
             * then free it */
            memcpy(copies + (size_t)i * w->sam_slot_bytes, s, w->sam_slot_bytes);
            __atomic_store_n(&s->word, SAM_WORD(pd[i].ticket + w->sam_nslots, SAM_FREE),
                             __ATOMIC_RELEASE);
            kept = i;
            w->stats.sam_back++;
            cr_pvar_rma[CR_PVAR_RMA_SHM_BACK]++;
        }
        /* the ones it took, it is serving */
        if (kept > 0) wait_served(w, r, pd[kept - 1].ticket, 0, NULL);
        for (int i = kept; i < n && !err; i++)
            err = back_copy(w, t, (sam_slot_t *)(void *)(copies + (size_t)i * w->sam_slot_bytes),
                            pd[i].out);
        free(copies);
    }
    cr_adapt_observe(&t->sam_adapt, &sam_cfg, &obs);
    /* the results of the data-returning one it served (one at most: each
     * is settled at once), which the target left in this origin's area */
    for (int i = 0; i < kept; i++) {
        if (!pd[i].out) continue;
        sam_res_t *res = res_of(w, r, w->rank);
        if (res->ticket != pd[i].ticket && !err)
            err = cr_error(MPI_ERR_INTERN, "the results of a one-sided request to rank %d were "
                           "overwritten", rank);
        else if (res->err && !err)
            err = cr_error(res->err, "rank %d of the window refused a one-sided operation: the "
                           "target memory is not attached to it", rank);
        else if (!err) memcpy(pd[i].out, res + 1, pd[i].bytes);
    }
    t->sam_npend = 0;
    if (CR_UNLIKELY(__atomic_load_n(&c->err, __ATOMIC_RELAXED))) {
        int e = (int)__atomic_exchange_n(&c->err, 0, __ATOMIC_RELAXED);
        if (!err)
            err = cr_error(e, "rank %d of the window refused a one-sided operation: the target "
                           "memory is not attached to it", rank);
    }
    return err;
}

int rma_sam_op(cr_win_t *w, int rank, int kind, MPI_Aint at, size_t bytes, cr_basic_t b,
               const cr_op_t *op, const void *in, const void *cmp, void *out, int *err)
{
    rma_target_t *t = &w->t[rank];
    *err = MPI_SUCCESS;
    /* serve others' requests here too (one load per window when none wait):
     * ranks that all operate on each other keep one another's rings moving */
    sam_poll(NULL);
    if (bytes == 0 || (cmp ? 2 * bytes : bytes) > (size_t)ut_settings.rma_shm_am_max ||
        (kind == RMA_SAM_ACC && rma_am_acc_by_atomics(w, b))) {
        *err = rma_sam_settle(w, rank);
        return 0;
    }
    if (!sam_want(t)) {
        w->stats.sam_copies++;
        cr_pvar_rma[CR_PVAR_RMA_SHM_COPIES]++;
        *err = rma_sam_settle(w, rank);
        return 0;
    }
    if (!t->sam_pend) {
        t->sam_pend = malloc(sizeof *t->sam_pend * w->sam_nslots);
        if (!t->sam_pend) {
            *err = cr_error(MPI_ERR_NO_MEM, "no memory for one-sided requests");
            return 1;
        }
    }
    /* as many unsettled as the ring has slots at most */
    if (t->sam_npend == (int)w->sam_nslots && (*err = rma_sam_settle_slow(w, rank))) return 1;
    if (kind == RMA_SAM_ACC && !cmp && op->handle == MPI_NO_OP) in = NULL;
    uint32_t flags = (cmp ? SAM_CAS : 0) | (kind == RMA_SAM_ACC && out ? SAM_OLD : 0);
    if (!sam_post(w, t, kind, flags, (uint64_t)at, bytes, b, op, in, cmp,
                  kind == RMA_SAM_PUT ? NULL : out)) {
        w->stats.sam_copies++;
        cr_pvar_rma[CR_PVAR_RMA_SHM_COPIES]++;
        *err = rma_sam_settle(w, rank);
        return 0;
    }
    /* a target that sleeps on its doorbell is woken (one load when awake) */
    shm_wake(t->shm_local);
    /* data-returning requests complete now (with every earlier one) */
    if (kind == RMA_SAM_GET || out) *err = rma_sam_settle_slow(w, rank);
    return 1;
}
