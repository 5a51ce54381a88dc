/* SPDX-License-Identifier: MIT */
/* RMA through active messages: targets on other nodes (RMA_AM, see rma.h and
 * docs/rma.md).  An origin sends requests as internal messages on the
 * window's own communicator (its point-to-point context, which nothing else
 * uses); every rank of a window that spans nodes keeps one receive posted
 * for them, and a progress-engine poller executes what arrives on the
 * target's memory.  So the target serves RMA whenever it runs the progress
 * engine: in any MPI call, a blocking wait included, and all the time with
 * the asynchronous progress thread (COURIER_ASYNC_PROGRESS); without it, not
 * while it computes without calling MPI (docs/rma.md).  Puts and gets to a
 * target with rma_target_t.net go by the network's own RMA (net.c); flush,
 * unlock and complete drain those before they send their message.
 *
 * A request names target memory as a list of runs (byte offset from the
 * target's window base, or an absolute address for dynamic windows, and a
 * length) computed by the origin from the target datatype, followed by the
 * packed data.  Operations larger than COURIER_RMA_AM_CHUNK_BYTES go in
 * pieces cut at element boundaries, so accumulates stay atomic per element.
 * The target applies accumulates itself under its accumulate lock (the same
 * word that origins on its node take), or element by element with the CPU's
 * atomics on the types that the other origins update so (network atomics,
 * or this node's origins on catomic windows).  Requests that return data (get,
 * get-accumulate, fetch-and-op, compare-and-swap, the key of a dynamic
 * window's region) and those that need an answer (lock, unlock, flush) are
 * answered on the reply tag; the origin
 * waits for each answer before it sends anything else to that target, so an
 * answer is never ambiguous.  Messages from one origin are executed in the
 * order sent (MPI's non-overtaking rule), which makes a flush or an unlock
 * complete every operation sent before it. */
#include "rma/rma.h"
#include "core/comm_priv.h"
#include "util/settings.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_REQ = 1, TAG_REPLY = 2 };
enum { AM_PUT = 1, AM_GET, AM_ACC, AM_LOCK, AM_UNLOCK, AM_FLUSH, AM_POST, AM_COMPLETE, AM_STOP,
       AM_KEY };
enum { ACC_CAS = 1, ACC_OLD = 2 };
enum { MAX_RUNS = 64 };    /* runs (am_run_t) in one request, one more at most (for_pieces) */

typedef struct {
    uint32_t kind;         /* AM_* */
    int32_t arg;           /* LOCK/UNLOCK: the lock type; ACC: ACC_* flags */
    int32_t nruns;
    int32_t basic;         /* ACC: the target datatype's cr_basic_t */
    int32_t op;            /* ACC: the MPI_Op */
    int32_t pad;
    uint64_t bytes;        /* data bytes (ACC with ACC_CAS: twice that follow, in then compare) */
} am_msg_t;
/* count runs of len bytes, the first at off, each stride bytes after the
 * one before (a strided target datatype of many single elements is a few of
 * these, not one per element) */
typedef struct {
    int64_t off, len, stride, count;
} am_run_t;
typedef struct {
    int32_t err;           /* MPI_SUCCESS or an error class the target met */
    int32_t pad;
} am_reply_t;

/* A lock request that the target could not grant yet. */
typedef struct am_pend {
    struct am_pend *next;
    int origin, type;
} am_pend_t;

/* A reply still being sent. */
typedef struct am_out {
    struct am_out *next;
    cr_request_t *req;
    void *buf;
} am_out_t;

/* The per-window state of a rank that listens (rma.h: cr_win.am). */
struct rma_am_win {
    cr_win_t *w;
    struct rma_am_win *next;
    cr_request_t *listen;
    char *buf;
    size_t cap;
    int stopped;
    int err;               /* an error met on behalf of an origin, for its next flush */
    am_pend_t *pend, **pend_tail;
};

static struct rma_am_win *am_wins;
static am_out_t *am_outs;
static int am_npend;
static int am_poll(void *arg);
static int am_can_sleep(void *arg);
static cr_poller_t am_poller = { "rma", am_poll, am_can_sleep, NULL, 0, 0 };

static size_t chunk_bytes(void)
{
    size_t c = (size_t)ut_settings.rma_am_chunk_bytes;
    return c < 64 ? 64 : c;
}

static size_t msg_cap(void)
{
    return sizeof(am_msg_t) + (MAX_RUNS + 1) * sizeof(am_run_t) + 2 * chunk_bytes();
}

static cr_datatype_t *bytes_dt(void)
{
    return cr_datatype_ptr(MPI_BYTE);
}

static int post_listen(struct rma_am_win *a)
{
    return cr_irecv(a->buf, (MPI_Aint)a->cap, bytes_dt(), MPI_ANY_SOURCE, TAG_REQ, a->w->comm,
                    CR_CTX_PT2PT, &a->listen);
}

int rma_am_init(cr_win_t *w)
{
    struct rma_am_win *a = calloc(1, sizeof *a);
    if (!a) return cr_error(MPI_ERR_NO_MEM, "no memory for a window's messages");
    a->w = w;
    a->cap = msg_cap();
    a->buf = malloc(a->cap);
    a->pend_tail = &a->pend;
    if (!a->buf) {
        free(a);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a window's messages");
    }
    int err = post_listen(a);
    if (err) {
        free(a->buf);
        free(a);
        return err;
    }
    w->am = a;
    a->next = am_wins;
    am_wins = a;
    cr_progress_register(&am_poller);
    cr_poller_set_active(&am_poller, 1);
    return MPI_SUCCESS;
}

/* ---- the target's side -------------------------------------------------------------- */
/* Send a reply (header and n bytes of data) to origin without waiting. */
static void reply(struct rma_am_win *a, int origin, int err, const void *data, size_t n)
{
    am_out_t *o = malloc(sizeof *o);
    char *buf = malloc(sizeof(am_reply_t) + n);
    if (!o || !buf) cr_abort_job(1, "courier: out of memory answering a one-sided operation");
    am_reply_t h = { err, 0 };
    memcpy(buf, &h, sizeof h);
    if (n) memcpy(buf + sizeof h, data, n);
    o->buf = buf;
    if (cr_isend(buf, (MPI_Aint)(sizeof h + n), bytes_dt(), origin, TAG_REPLY, a->w->comm,
                 CR_CTX_PT2PT, CR_MODE_STD, &o->req) != MPI_SUCCESS)
        cr_abort_job(1, "courier: cannot answer a one-sided operation");
    o->next = am_outs;
    am_outs = o;
}

/* Check runs against this rank's window; returns 0 or MPI_ERR_RMA_RANGE. */
static int runs_check(cr_win_t *w, const am_run_t *r, int n)
{
    for (int i = 0; i < n; i++) {
        if (r[i].len < 0 || r[i].count < 1) return MPI_ERR_RMA_RANGE;
        int64_t last = r[i].off + (r[i].count - 1) * r[i].stride;
        if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
            int64_t lo = r[i].off < last ? r[i].off : last, hi = (r[i].off > last ? r[i].off : last);
            if (lo < 0 || (uint64_t)hi + (uint64_t)r[i].len > (uint64_t)w->wsize)
                return MPI_ERR_RMA_RANGE;
            continue;
        }
        for (int64_t k = 0; k < r[i].count; k++) {
            uint64_t a = (uint64_t)(r[i].off + k * r[i].stride), e = a + (uint64_t)r[i].len;
            if (!rma_dyn_covers(rma_dyn(w, w->my_local), w->me->ndyn, a, e))
                return MPI_ERR_RMA_RANGE;
        }
    }
    return MPI_SUCCESS;
}

/* Where the k-th run of r is. */
static char *run_addr(cr_win_t *w, const am_run_t *r, int64_t k)
{
    int64_t off = r->off + k * r->stride;
    return w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (char *)(uintptr_t)off : (char *)w->base + off;
}

/* Gather the runs' bytes into s (write 0) or scatter s into them (write 1). */
static void runs_copy(cr_win_t *w, const am_run_t *r, int n, char *s, int write)
{
    for (int i = 0; i < n; i++)
        for (int64_t k = 0; k < r[i].count; k++) {
            if (write) memcpy(run_addr(w, &r[i], k), s, (size_t)r[i].len);
            else memcpy(s, run_addr(w, &r[i], k), (size_t)r[i].len);
            s += r[i].len;
        }
}

int rma_am_acc_by_atomics(cr_win_t *w, cr_basic_t b)
{
    return rma_net_atomic_type(w, b) || (w->catomic && rma_cpu_type(b));
}

static void on_acc(struct rma_am_win *a, int origin, const am_msg_t *m, const am_run_t *r,
                   const char *data)
{
    cr_win_t *w = a->w;
    size_t n = (size_t)m->bytes;
    char *cur = malloc(n ? n : 1), *old = (m->arg & ACC_OLD) ? malloc(n ? n : 1) : NULL;
    if (!cur || ((m->arg & ACC_OLD) && !old))
        cr_abort_job(1, "courier: out of memory in a one-sided accumulate");
    int err = runs_check(w, r, m->nruns);
    if (!err && rma_am_acc_by_atomics(w, (cr_basic_t)m->basic)) {
        /* a type the network's atomics do on this window, or that this
         * node's origins update by the CPU's atomics (catomic): other origins
         * update these elements by them, not under the accumulate lock, so
         * every element is updated as they do it (rma_acc_atomic_elems) */
        size_t es = cr_basic_size((cr_basic_t)m->basic), s = 0;
        const char *in = m->op == MPI_NO_OP && !(m->arg & ACC_CAS) ? NULL : data;
        const char *cmp = (m->arg & ACC_CAS) ? data + n : NULL;
        for (int i = 0; i < m->nruns; i++)
            for (int64_t k = 0; k < r[i].count; k++) {
                rma_acc_atomic_elems(run_addr(w, &r[i], k), (size_t)r[i].len / es,
                                     (cr_basic_t)m->basic, cr_op_ptr(m->op), in ? in + s : NULL,
                                     cmp ? cmp + s : NULL, old ? old + s : NULL);
                s += (size_t)r[i].len;
            }
    } else if (!err) {
        rma_acc_lock(w->me);
        runs_copy(w, r, m->nruns, cur, 0);
        if (old) memcpy(old, cur, n);
        int write = 0;
        if (m->arg & ACC_CAS) {
            write = memcmp(cur, data + n, n) == 0;
            if (write) memcpy(cur, data, n);
        } else if (m->op != MPI_NO_OP) {
            cr_op_apply_packed(cr_op_ptr(m->op), (cr_basic_t)m->basic, data, cur, n);
            write = 1;
        }
        if (write) runs_copy(w, r, m->nruns, cur, 1);
        rma_acc_unlock(w->me);
    }
    if (old) reply(a, origin, err, old, err ? 0 : n);
    else if (err && !a->err) a->err = err;
    free(cur);
    free(old);
}

static void on_msg(struct rma_am_win *a, int origin, size_t len)
{
    cr_win_t *w = a->w;
    am_msg_t m;
    memcpy(&m, a->buf, sizeof m);
    const am_run_t *r = (const am_run_t *)(void *)(a->buf + sizeof m);
    const char *data = a->buf + sizeof m + (size_t)m.nruns * sizeof(am_run_t);
    (void)len;
    int err;
    switch (m.kind) {
    case AM_PUT:
        err = runs_check(w, r, m.nruns);
        if (!err) runs_copy(w, r, m.nruns, (char *)data, 1);
        else if (!a->err) a->err = err;
        break;
    case AM_GET: {
        char *s = malloc(m.bytes ? m.bytes : 1);
        if (!s) cr_abort_job(1, "courier: out of memory in a one-sided get");
        err = runs_check(w, r, m.nruns);
        if (!err) runs_copy(w, r, m.nruns, s, 0);
        reply(a, origin, err, s, err ? 0 : (size_t)m.bytes);
        free(s);
        break;
    }
    case AM_ACC: on_acc(a, origin, &m, r, data); break;
    case AM_LOCK:
        if (!a->pend && rma_lock_try(&w->me->lock, m.arg)) {
            reply(a, origin, MPI_SUCCESS, NULL, 0);
        } else {
            am_pend_t *p = malloc(sizeof *p);
            if (!p) cr_abort_job(1, "courier: out of memory queueing a window lock");
            p->next = NULL;
            p->origin = origin;
            p->type = m.arg;
            *a->pend_tail = p;
            a->pend_tail = &p->next;
            am_npend++;
        }
        break;
    case AM_UNLOCK:
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        rma_lock_release(&w->me->lock, m.arg);
        /* the answer says every operation before it is done */
        __attribute__((fallthrough));
    case AM_FLUSH:
        reply(a, origin, a->err, NULL, 0);
        a->err = MPI_SUCCESS;
        break;
    case AM_POST: __atomic_fetch_add(w->t[origin].posted_to_me, 1, __ATOMIC_RELEASE); break;
    case AM_COMPLETE: __atomic_fetch_add(&w->me->complete, 1, __ATOMIC_RELEASE); break;
    case AM_STOP: a->stopped = 1; break;
    case AM_KEY: {     /* the registered region of a dynamic window holding address bytes */
        uint64_t r[4];
        rma_net_dyn_lookup(w, m.bytes, r);
        reply(a, origin, MPI_SUCCESS, r, sizeof r);
        break;
    }
    default: cr_abort_job(1, "courier: a one-sided request of unknown kind arrived");
    }
}

/* Grant waiting locks, in arrival order, while the lock word allows. */
static int grant_pending(struct rma_am_win *a)
{
    int n = 0;
    while (a->pend && rma_lock_try(&a->w->me->lock, a->pend->type)) {
        am_pend_t *p = a->pend;
        a->pend = p->next;
        if (!a->pend) a->pend_tail = &a->pend;
        am_npend--;
        reply(a, p->origin, MPI_SUCCESS, NULL, 0);
        free(p);
        n++;
    }
    return n;
}

static int am_poll(void *arg)
{
    (void)arg;
    int events = 0;
    for (struct rma_am_win *a = am_wins; a; a = a->next) {
        while (!a->stopped && a->listen && a->listen->complete) {
            cr_request_t *r = a->listen;
            int origin = r->status.MPI_SOURCE;
            size_t len = r->msg_bytes;
            a->listen = NULL;
            cr_request_free(r);
            on_msg(a, origin, len);
            if (!a->stopped && post_listen(a) != MPI_SUCCESS)
                cr_abort_job(1, "courier: cannot listen for one-sided requests");
            events++;
        }
        if (a->pend) events += grant_pending(a);
    }
    for (am_out_t **pp = &am_outs; *pp;) {
        am_out_t *o = *pp;
        if (o->req->complete) {
            *pp = o->next;
            cr_request_free(o->req);
            free(o->buf);
            free(o);
            events++;
        } else {
            pp = &o->next;
        }
    }
    return events;
}

/* Waiting locks are granted when a rank of this node unlocks, which sends no
 * message: do not sleep while any wait. */
static int am_can_sleep(void *arg)
{
    (void)arg;
    return am_npend == 0;
}

void rma_am_fini(cr_win_t *w)
{
    struct rma_am_win *a = w->am;
    if (!a) return;
    /* the last request this rank gets on the window is its own stop */
    am_msg_t m = { AM_STOP, 0, 0, 0, 0, 0, 0 };
    if (cr_send(&m, sizeof m, bytes_dt(), w->rank, TAG_REQ, w->comm, CR_CTX_PT2PT) != MPI_SUCCESS)
        cr_abort_job(1, "courier: cannot stop a window's messages");
    cr_wait_t wt = CR_WAIT_INIT;
    while (!a->stopped) cr_wait_poll(&wt);
    /* replies still going out keep their buffers until sent */
    while (am_outs) cr_wait_poll(&wt);
    for (struct rma_am_win **pp = &am_wins; *pp; pp = &(*pp)->next)
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    free(a->buf);
    free(a);
    w->am = NULL;
    if (!am_wins) cr_poller_set_active(&am_poller, 0);
}

/* ---- the origin's side --------------------------------------------------------------- */
/* Send one request (blocking until the transport has it). */
static int send_req(cr_win_t *w, int target, const am_msg_t *m, const am_run_t *runs,
                    const void *d1, size_t n1, const void *d2, size_t n2)
{
    size_t rb = (size_t)m->nruns * sizeof(am_run_t);
    size_t len = sizeof *m + rb + n1 + n2;
    char *buf = malloc(len);
    if (!buf) return cr_error(MPI_ERR_NO_MEM, "no memory for a one-sided request");
    memcpy(buf, m, sizeof *m);
    if (rb) memcpy(buf + sizeof *m, runs, rb);
    if (n1) memcpy(buf + sizeof *m + rb, d1, n1);
    if (n2) memcpy(buf + sizeof *m + rb + n1, d2, n2);
    int err = cr_send(buf, (MPI_Aint)len, bytes_dt(), target, TAG_REQ, w->comm, CR_CTX_PT2PT);
    free(buf);
    w->t[target].am_ops++;
    w->stats.am_msgs++;
    return err;
}

/* Wait for target's answer: n bytes of data to out (may be NULL). */
static int wait_reply(cr_win_t *w, int target, void *out, size_t n)
{
    char stack[256], *buf = sizeof(am_reply_t) + n <= sizeof stack ? stack
                                                                   : malloc(sizeof(am_reply_t) + n);
    if (!buf) return cr_error(MPI_ERR_NO_MEM, "no memory for a one-sided answer");
    w->stats.waits++;
    MPI_Status st;
    int err = cr_recv(buf, (MPI_Aint)(sizeof(am_reply_t) + n), bytes_dt(), target, TAG_REPLY,
                      w->comm, CR_CTX_PT2PT, &st);
    am_reply_t h = { MPI_SUCCESS, 0 };
    if (!err) {
        memcpy(&h, buf, sizeof h);
        if (!h.err && n && out) memcpy(out, buf + sizeof h, n);
    }
    if (buf != stack) free(buf);
    if (err) return err;
    if (h.err)
        return cr_error(h.err, "rank %d of the window refused a one-sided operation: the target "
                        "memory is not in its window (or attached to it)", target);
    return MPI_SUCCESS;
}

/* The runs of (tcount, tdt) at byte displacement at, in type-map order. */
typedef struct {
    int64_t off, len;
} flat_run_t;
typedef struct {
    flat_run_t *r;
    size_t n, cap;
    MPI_Aint at;
    int nomem;
} runlist_t;

static void runlist_add(void *arg, MPI_Aint off, size_t len)
{
    runlist_t *l = arg;
    if (l->n == l->cap) {
        size_t c = l->cap ? 2 * l->cap : 16;
        flat_run_t *r = realloc(l->r, c * sizeof *r);
        if (!r) {
            l->nomem = 1;
            return;
        }
        l->r = r;
        l->cap = c;
    }
    l->r[l->n++] = (flat_run_t){ (int64_t)(l->at + off), (int64_t)len };
}

/* Add the run [off, off + len) to the last of a request's runs when it
 * continues it (adjacent to a single run, or the next of equal runs at a
 * constant stride): 1 when it did. */
static int run_extend(am_run_t *last, int64_t off, int64_t len)
{
    if (last->count == 1 && last->off + last->len == off) {
        last->len += len;
        return 1;
    }
    if (len != last->len) return 0;
    if (last->count == 1) last->stride = off - last->off;
    else if (off != last->off + last->count * last->stride) return 0;
    last->count++;
    return 1;
}

/* One request per piece: for each piece of at most chunk bytes (a multiple
 * of elem) and MAX_RUNS runs (strided runs of one length count as one),
 * call fn with the piece's runs and its place in the packed stream. */
typedef int (*piece_fn)(cr_win_t *w, int target, void *arg, const am_run_t *r, int nr,
                        size_t soff, size_t n);

static int for_pieces(cr_win_t *w, int target, MPI_Aint at, MPI_Aint tcount, cr_datatype_t *tdt,
                      size_t elem, piece_fn fn, void *arg)
{
    runlist_t l = { NULL, 0, 0, at, 0 };
    rma_dt_runs(tcount, tdt, runlist_add, &l);
    if (l.nomem) {
        free(l.r);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a one-sided operation's layout");
    }
    size_t chunk = chunk_bytes() / elem * elem;
    if (chunk == 0) chunk = elem;
    am_run_t piece[MAX_RUNS + 1];
    size_t ri = 0, rdone = 0, soff = 0;   /* run index, bytes of it sent, stream offset */
    int err = MPI_SUCCESS;
    while (ri < l.n && !err) {
        /* how much MAX_RUNS runs of at most chunk bytes cover from here */
        size_t n = 0, k = ri, kd = rdone;
        am_run_t last = { 0, 0, 0, 0 };
        for (int nr = 0; k < l.n && n < chunk; k++, kd = 0) {
            size_t left = (size_t)l.r[k].len - kd, take = left < chunk - n ? left : chunk - n;
            int64_t off = l.r[k].off + (int64_t)kd;
            if (!nr || !run_extend(&last, off, (int64_t)take)) {
                if (nr == MAX_RUNS) break;
                last = (am_run_t){ off, (int64_t)take, 0, 1 };
                nr++;
            }
            n += take;
        }
        /* whole elements only (the runs of one element are few: a pair has two) */
        n -= n % elem;
        if (n == 0) {
            err = cr_error(MPI_ERR_INTERN, "a one-sided operation's element spans more than %d "
                           "pieces of memory", MAX_RUNS);
            break;
        }
        /* the same runs again (the last may be shorter now, and take one
         * more than it did) */
        int nr = 0;
        for (size_t want = n; want;) {
            size_t left = (size_t)l.r[ri].len - rdone, take = left < want ? left : want;
            int64_t off = l.r[ri].off + (int64_t)rdone;
            if (!nr || !run_extend(&piece[nr - 1], off, (int64_t)take))
                piece[nr++] = (am_run_t){ off, (int64_t)take, 0, 1 };
            want -= take;
            rdone += take;
            if (rdone == (size_t)l.r[ri].len) ri++, rdone = 0;
        }
        err = fn(w, target, arg, piece, nr, soff, n);
        soff += n;
    }
    free(l.r);
    return err;
}

typedef struct {
    const char *in;        /* put, acc: the packed origin data */
    const char *cmp;       /* cas */
    char *out;             /* get: the packed stream; acc: the old values (may be NULL) */
    const cr_op_t *op;
    int basic;
} io_t;

static int put_piece(cr_win_t *w, int target, void *arg, const am_run_t *r, int nr, size_t soff,
                     size_t n)
{
    io_t *io = arg;
    am_msg_t m = { AM_PUT, 0, nr, 0, 0, 0, n };
    return send_req(w, target, &m, r, io->in + soff, n, NULL, 0);
}

static int get_piece(cr_win_t *w, int target, void *arg, const am_run_t *r, int nr, size_t soff,
                     size_t n)
{
    io_t *io = arg;
    am_msg_t m = { AM_GET, 0, nr, 0, 0, 0, n };
    int err = send_req(w, target, &m, r, NULL, 0, NULL, 0);
    return err ? err : wait_reply(w, target, io->out + soff, n);
}

static int acc_piece(cr_win_t *w, int target, void *arg, const am_run_t *r, int nr, size_t soff,
                     size_t n)
{
    io_t *io = arg;
    am_msg_t m = { AM_ACC, (io->cmp ? ACC_CAS : 0) | (io->out ? ACC_OLD : 0), nr, io->basic,
                   io->op ? io->op->handle : 0, 0, n };
    int err = send_req(w, target, &m, r, io->in ? io->in + soff : NULL, io->in ? n : 0,
                       io->cmp ? io->cmp + soff : NULL, io->cmp ? n : 0);
    if (!err && io->out) err = wait_reply(w, target, io->out + soff, n);
    return err;
}

int rma_am_put(cr_win_t *w, int target, const void *packed, size_t bytes, MPI_Aint disp,
               MPI_Aint tcount, cr_datatype_t *tdt)
{
    (void)bytes;
    io_t io = { packed, NULL, NULL, NULL, 0 };
    return for_pieces(w, target, disp, tcount, tdt, 1, put_piece, &io);
}

int rma_am_get(cr_win_t *w, int target, void *packed, size_t bytes, MPI_Aint disp,
               MPI_Aint tcount, cr_datatype_t *tdt, volatile int *done)
{
    (void)bytes;
    io_t io = { NULL, NULL, packed, NULL, 0 };
    int err = for_pieces(w, target, disp, tcount, tdt, 1, get_piece, &io);
    *done = 1;
    return err;
}

int rma_am_acc(cr_win_t *w, int target, const void *packed, size_t bytes, void *old,
               MPI_Aint disp, MPI_Aint tcount, cr_datatype_t *tdt, const cr_op_t *op,
               int cas, volatile int *done)
{
    size_t n = cas ? bytes / 2 : bytes;
    io_t io = { op && op->handle == MPI_NO_OP ? NULL : packed, cas ? (const char *)packed + n : NULL,
                old, cas ? NULL : op, (int)tdt->basic };
    size_t elem = tdt->size > 0 ? cr_basic_size(tdt->basic) : 1;
    int err = for_pieces(w, target, disp, tcount, tdt, elem ? elem : 1, acc_piece, &io);
    if (done) *done = 1;
    return err;
}

/* Operations by the network's own RMA (net.c) complete before any message
 * that says they have: flush, unlock and complete drain them first. */
int rma_am_flush(cr_win_t *w, int target)
{
    int nerr = rma_net_drain(w, target);
    if (!w->t[target].am_ops) return nerr;
    am_msg_t m = { AM_FLUSH, 0, 0, 0, 0, 0, 0 };
    int err = send_req(w, target, &m, NULL, NULL, 0, NULL, 0);
    if (!err) err = wait_reply(w, target, NULL, 0);
    w->t[target].am_ops = 0;
    return err ? err : nerr;
}

int rma_am_lock(cr_win_t *w, int target, int type)
{
    am_msg_t m = { AM_LOCK, type, 0, 0, 0, 0, 0 };
    int err = send_req(w, target, &m, NULL, NULL, 0, NULL, 0);
    return err ? err : wait_reply(w, target, NULL, 0);
}

int rma_am_unlock(cr_win_t *w, int target, int type)
{
    int nerr = rma_net_drain(w, target);
    am_msg_t m = { AM_UNLOCK, type, 0, 0, 0, 0, 0 };
    int err = send_req(w, target, &m, NULL, NULL, 0, NULL, 0);
    if (!err) err = wait_reply(w, target, NULL, 0);
    w->t[target].am_ops = 0;
    return err ? err : nerr;
}

int rma_am_post(cr_win_t *w, int origin)
{
    am_msg_t m = { AM_POST, 0, 0, 0, 0, 0, 0 };
    return send_req(w, origin, &m, NULL, NULL, 0, NULL, 0);
}

int rma_am_key(cr_win_t *w, int target, uint64_t addr, uint64_t out[4])
{
    am_msg_t m = { AM_KEY, 0, 0, 0, 0, 0, addr };
    int err = send_req(w, target, &m, NULL, NULL, 0, NULL, 0);
    if (!err) err = wait_reply(w, target, out, 4 * sizeof(uint64_t));
    w->t[target].am_ops--;     /* nothing for a flush to wait for */
    return err;
}

int rma_am_complete(cr_win_t *w, int target)
{
    int nerr = rma_net_drain(w, target);
    am_msg_t m = { AM_COMPLETE, 0, 0, 0, 0, 0, 0 };
    int err = send_req(w, target, &m, NULL, NULL, 0, NULL, 0);
    w->t[target].am_ops = 0;
    return err ? err : nerr;
}
