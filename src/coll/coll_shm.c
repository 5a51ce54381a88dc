/* SPDX-License-Identifier: MIT */
/* The node's shared-memory collective area of a communicator: making it on
 * first use, the waits and wake-ups of a call, single copies between ranks'
 * own buffers, and the pieces the shm and cma algorithms share (coll_shm.h). */
#define _GNU_SOURCE
#include "coll/coll_shm.h"
#include "coll/coll_hier.h"
#include "transport/shm/shm.h"
#include "util/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CSHM_MAGIC 0x43534843u   /* "CHSC" */
#define CSHM_PAGE 4096

/* Layout: [header line][sleepers line][arrivals line][release line]
 * [waitfor: p words, whole lines][info: p lines][ctl: p x nline lines]
 * [pad to a page][slots: p x NBUF x slot_bytes][cells: p x ncell x cell_bytes]. */
typedef struct {
    uint32_t magic, p;
    uint64_t slot_bytes;
} cshm_hdr_t;

enum { INFO_PID = 0, INFO_PROBE = 1 };
static const volatile uint64_t cshm_probe_word = 0x636f6c6c73686d21ull;   /* read by a peer */

/* A count of lines or cells from a setting: rounded up to a power of two, at
 * least CSHM_NBUF, at most max (the other ranks of an area take rank 0's
 * numbers, so they agree). */
static uint64_t ring_setting(long want, uint64_t max)
{
    uint64_t k = CSHM_NBUF;
    while (k < (uint64_t)want && k < max) k <<= 1;
    return k;
}

/* Data bytes of a cell of the areas this process makes as rank 0:
 * COURIER_COLL_SHM_CELL_BYTES rounded up to whole lines (the others take rank
 * 0's number). */
static size_t cell_setting(void)
{
    size_t c = (size_t)ut_settings.coll_shm_cell_bytes;
    return (c + CSHM_LINE - 1) / CSHM_LINE * CSHM_LINE;
}

/* Read once, at the first use: every area of the process has this slot size,
 * even if the setting is written later (the tools interface may write it). */
size_t coll_shm_slot_cap(void)
{
    static size_t cap;
    if (CR_UNLIKELY(!cap)) {
        size_t s = (size_t)ut_settings.coll_shm_slot_bytes;
        cap = s < CSHM_LINE ? CSHM_LINE : (s + CSHM_LINE - 1) / CSHM_LINE * CSHM_LINE;
    }
    return cap;
}

static void area_free(cr_comm_t *c)
{
    coll_shm_t *a = c->coll_shm;
    if (!a) return;
    if (a->base) munmap(a->base, a->bytes);
    coll_hier_free(a->hier);
    free(a->bell);
    free(a);
    c->coll_shm = NULL;
}

/* The state of comm, made (not the area) on first sight. */
coll_shm_t *coll_shm_state(cr_comm_t *c)
{
    coll_shm_t *a = c->coll_shm;
    if (a) return a;
    a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->p = c->size;
    a->me = c->rank;
    a->state = CSHM_UNKNOWN;
    a->cma = 1;
    a->bell = malloc((size_t)c->size * sizeof(int));
    if (!a->bell) {
        free(a);
        return NULL;
    }
    for (int r = 0; r < c->size; r++) {
        a->bell[r] = cr_peer_local(cr_comm_world_rank(c, r));
        if (a->bell[r] < 0) a->state = CSHM_NONE;   /* not all on this node */
    }
    if (shm_nlocal < 2) a->state = CSHM_NONE;
    cr_comm_coll_shm_free = area_free;
    c->coll_shm = a;
    return a;
}

int coll_shm_usable(const cr_comm_t *cc, int need_cma)
{
    if (cc->remote || cc->size < 2 || !ut_settings.coll_shm) return 0;
    coll_shm_t *a = cc->coll_shm;
    if (!a) a = coll_shm_state((cr_comm_t *)cc);   /* only this process's view: no communication */
    if (!a || a->state == CSHM_NONE) return 0;
    return !need_cma || a->cma;
}

/* ---- making the area -------------------------------------------------------------- */
/* Through a schedule: the area does not exist yet. */
int coll_shm_small_coll(cr_comm_t *c, int *v, int n, int allreduce)
{
    coll_args_t a = { .sbuf = MPI_IN_PLACE, .rbuf = v, .count = n,
                      .dt = cr_datatype_ptr(MPI_INT), .op = cr_op_ptr(MPI_MIN) };
    a.bytes = (size_t)n * sizeof(int);
    coll_sched_t s;
    coll_sched_init(&s, c, coll_next_tag(c));
    int e = allreduce ? coll_allreduce_recdbl(&s, &a) : coll_bcast_binomial(&s, &a);
    if (!e) e = coll_sched_run(&s);
    coll_sched_free(&s);
    return e;
}

static void area_name(char *buf, size_t len, int pid, int serial)
{
    snprintf(buf, len, "%s.coll.%x.%x", shm_seg_name(), (unsigned)pid, (unsigned)serial);
}

/* Rank 0 creates and sizes the file and maps it; returns the mapping or NULL. */
static char *area_create(const char *name, size_t bytes)
{
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return NULL;
    char *base = MAP_FAILED;
    if (ftruncate(fd, (off_t)bytes) == 0)
        base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (base == MAP_FAILED) {
        shm_unlink(name);
        return NULL;
    }
    return base;
}

static char *area_open(const char *name, size_t bytes)
{
    int fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) return NULL;
    char *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return base == MAP_FAILED ? NULL : base;
}

/* Does single copy from rank r work?  Reads r's probe word. */
static int probe_cma(coll_shm_t *a, int r)
{
    uint64_t v = 0;
    tr_rkey_t key = { { a->info[r * 8 + INFO_PROBE], a->info[r * 8 + INFO_PID], 0 } };
    tr_status_t st = tr_get(&shm_ctxs[0].iface, 0, &v, sizeof v, &key, 0, NULL);
    return st == TR_OK && v == cshm_probe_word;
}

static void set_layout(coll_shm_t *a, char *base, size_t slot, uint64_t nline, size_t cell,
                       uint64_t ncell)
{
    size_t p = (size_t)a->p;
    a->base = base;
    a->slot_bytes = slot;
    a->nline = nline;
    a->cell_bytes = cell;
    a->ncell = ncell;
    a->sleepers = (volatile uint32_t *)(base + CSHM_LINE);
    a->arrivals = (volatile uint64_t *)(base + 2 * CSHM_LINE);
    a->release = (volatile uint64_t *)(base + 3 * CSHM_LINE);
    a->waitfor = (volatile uint32_t *)(base + 4 * CSHM_LINE);
    size_t front = 4 + (p * sizeof(uint32_t) + CSHM_LINE - 1) / CSHM_LINE;
    a->info = (const volatile uint64_t *)(base + front * CSHM_LINE);
    a->ctl = (cshm_ctl_t *)(base + (front + p) * CSHM_LINE);
    size_t head = (front + p + p * (size_t)nline) * CSHM_LINE;
    head = (head + CSHM_PAGE - 1) / CSHM_PAGE * CSHM_PAGE;
    a->slots = base + head;
    a->cells = a->slots + p * CSHM_NBUF * slot;
    a->bytes = head + p * CSHM_NBUF * slot + p * (size_t)ncell * cell;
}

static int make_area(cr_comm_t *c, coll_shm_t *a)
{
    static int serial;
    size_t slot = coll_shm_slot_cap();
    /* rank 0: create; tell everyone whether it worked, the name's parts and
     * the number of control lines and the cells' size */
    int nline = (int)ring_setting(ut_settings.coll_shm_lines, 1u << 16);
    int meet = ut_settings.coll_shm_meet >= 0 ? (int)ut_settings.coll_shm_meet
                                              : cr_proc.oversubscribed;
    int hello[7] = { 0, (int)getpid(), ++serial, nline, (int)cell_setting(),
                     (int)ring_setting(ut_settings.coll_shm_cells, (uint64_t)nline), meet };
    coll_shm_t probe = *a;
    set_layout(&probe, NULL, slot, (uint64_t)hello[3], (size_t)hello[4], (uint64_t)hello[5]);
    size_t bytes = probe.bytes;
    char name[320];
    char *base = NULL;
    if (a->me == 0) {
        area_name(name, sizeof name, hello[1], hello[2]);
        base = area_create(name, bytes);
        hello[0] = base != NULL;
    }
    int e = coll_shm_small_coll(c, hello, 7, 0);
    if (e) return e;
    if (!hello[0]) return MPI_SUCCESS;
    area_name(name, sizeof name, hello[1], hello[2]);
    set_layout(&probe, NULL, slot, (uint64_t)hello[3], (size_t)hello[4], (uint64_t)hello[5]);
    bytes = probe.bytes;
    if (a->me != 0) base = area_open(name, bytes);
    if (base) {
        set_layout(a, base, slot, (uint64_t)hello[3], (size_t)hello[4], (uint64_t)hello[5]);
        a->meet = hello[6];
        /* oversubscribed: the rank waited for is most likely descheduled, so
         * yielding to it through the other ranks of its core costs a context
         * switch each; sleep at once and let it wake us */
        long us = ut_settings.coll_shm_sleep_us;
        a->sleep_ns = cr_proc.oversubscribed && us >= 0 ? (uint64_t)us * 1000u + 1u : 0;
        long spin = ut_settings.coll_shm_spin;
        a->spin_skip = cr_proc.oversubscribed && spin >= 0 && (unsigned long)spin < cr_wait_spin_limit
                           ? cr_wait_spin_limit - (unsigned)spin
                           : 0;
        volatile uint64_t *mine = (volatile uint64_t *)a->info + a->me * 8;
        mine[INFO_PID] = (uint64_t)getpid();
        mine[INFO_PROBE] = (uint64_t)(uintptr_t)&cshm_probe_word;
        if (a->me == 0) {
            cshm_hdr_t *h = (cshm_hdr_t *)base;
            h->p = (uint32_t)a->p;
            h->slot_bytes = slot;
            h->magic = CSHM_MAGIC;
        }
    }
    int ok = base != NULL;
    e = coll_shm_small_coll(c, &ok, 1, 1);   /* also: every info line is written */
    if (a->me == 0) shm_unlink(name);
    if (e || !ok) {
        if (base) munmap(base, bytes);
        a->base = NULL;
        return e;
    }
    a->state = CSHM_OK;
    /* single copy: each reads its successor; every rank must be readable, and
     * the area's own allreduce tells everyone */
    int cma = probe_cma(a, (a->me + 1) % a->p);
    coll_args_t m = { .sbuf = MPI_IN_PLACE, .rbuf = &cma, .count = 1,
                      .dt = cr_datatype_ptr(MPI_INT), .op = cr_op_ptr(MPI_MIN),
                      .bytes = sizeof(int) };
    e = coll_allreduce_shm(c, &m);
    a->cma = cma;
    return e;
}

coll_shm_t *coll_shm_area(cr_comm_t *c)
{
    coll_shm_t *a = c->coll_shm;
    if (CR_LIKELY(a && a->state == CSHM_OK)) return a;
    if (!a) a = coll_shm_state(c);
    if (!a || a->state == CSHM_NONE) return NULL;
    if (make_area(c, a) != MPI_SUCCESS || a->state != CSHM_OK) {
        a->state = CSHM_NONE;
        return NULL;
    }
    return a;
}

/* ---- waiting and waking ----------------------------------------------------------- */
/* While a wait is past its spin phase, a poller of the progress engine looks
 * at its word: the waiting policy's last poll before sleeping must see a post
 * that came before its doorbell was set.  The word is the calling thread's
 * own: with MPI_THREAD_MULTIPLE several threads may wait at once (each on its
 * own communicator), and one must not count another's word as its event, or
 * it would go on polling with the library lock held and never let the other
 * thread in to see it.  The poller stays registered while any thread waits
 * (the library lock guards the count). */
static _Thread_local struct {
    volatile uint64_t *w;
    uint64_t target;
} waiting;
static int nwaiting;

static int wait_poll(void *arg)
{
    (void)arg;
    return waiting.w && __atomic_load_n(waiting.w, __ATOMIC_ACQUIRE) >= waiting.target;
}

static cr_poller_t wait_poller = { .name = "coll_shm", .poll = wait_poll };

/* What a wait on word w waits for (coll_shm_t.waitfor): a rank's line, or
 * a meeting's release. */
static uint32_t wait_tag(const coll_shm_t *a, volatile uint64_t *w)
{
    const char *x = (const char *)(uintptr_t)w, *lo = (const char *)a->ctl;
    size_t lines = (size_t)a->p * a->nline;
    if (x >= lo && x < lo + lines * CSHM_LINE)
        return (uint32_t)((size_t)(x - lo) / CSHM_LINE / a->nline) + 1;
    return CSHM_WF_RELEASE;
}

void cshm_wait_slow(coll_shm_t *a, volatile uint64_t *w, uint64_t target)
{
    cr_wait_t wt = CR_WAIT_INIT;
    wt.sleep_ns = a->sleep_ns;
    wt.polls = a->spin_skip;   /* a shorter spin phase (only the first) */
    int slow = 0;
    for (;;) {
        if (__atomic_load_n(w, __ATOMIC_ACQUIRE) >= target) break;
        if (cr_progress() > 0) {
            cr_wait_busy(&wt);
            continue;
        }
        if (!slow && wt.polls + 1 >= cr_wait_spin_limit) {
            /* from now on posters wake us; look again after saying so */
            slow = 1;
            __atomic_store_n(&a->waitfor[a->me], wait_tag(a, w), __ATOMIC_RELAXED);
            __atomic_add_fetch(a->sleepers, 1, __ATOMIC_SEQ_CST);
            waiting.w = w;
            waiting.target = target;
            if (nwaiting++ == 0) cr_progress_register(&wait_poller);
            continue;
        }
        if (cr_wait_idle(&wt) > 0) cr_wait_busy(&wt);
    }
    if (slow) {
        waiting.w = NULL;
        if (--nwaiting == 0) cr_progress_unregister(&wait_poller);
        __atomic_store_n(&a->waitfor[a->me], CSHM_WF_NONE, __ATOMIC_RELAXED);
        __atomic_sub_fetch(a->sleepers, 1, __ATOMIC_RELEASE);
    }
    cr_wait_end(&wt);
}

/* The waiter wrote its tag before it counted itself among the sleepers and
 * before its doorbell's membarrier, so a poster that reads a stale tag (or
 * none) is one whose post the waiter's last look before sleeping sees. */
void cshm_wake(coll_shm_t *a, uint32_t tag)
{
    for (int r = 0; r < a->p; r++)
        if (r != a->me && __atomic_load_n(&a->waitfor[r], __ATOMIC_RELAXED) == tag)
            shm_wake(a->bell[r]);
}

int cshm_arrive(coll_shm_t *a, uint64_t *gen)
{
    uint64_t p = (uint64_t)a->p;
    uint64_t t = __atomic_fetch_add(a->arrivals, 1, __ATOMIC_ACQ_REL);
    *gen = t / p + 1;   /* meetings completed once this one is */
    return t % p == p - 1;
}

void cshm_release(coll_shm_t *a, uint64_t gen)
{
    a->release[1] = (uint64_t)a->me;
    __atomic_store_n(&a->release[0], gen, __ATOMIC_RELEASE);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);   /* the store before the load (cshm_post) */
    if (CR_UNLIKELY(*a->sleepers != 0)) cshm_wake(a, CSHM_WF_RELEASE);
}

int cshm_await(coll_shm_t *a, uint64_t gen)
{
    if (__atomic_load_n(&a->release[0], __ATOMIC_ACQUIRE) < gen)
        cshm_wait_slow(a, &a->release[0], gen);
    /* the next release comes after every rank arrived again, so after this read */
    return (int)a->release[1];
}

void cshm_meet(coll_shm_t *a, uint64_t n)
{
    uint64_t gen;
    if (cshm_arrive(a, &gen)) cshm_release(a, gen);
    else cshm_await(a, gen);
    if (a->safe < n - 1) a->safe = n - 1;
}

void cshm_wait_all(coll_shm_t *a, uint64_t n, int phase)
{
    for (int r = 0; r < a->p; r++)
        if (r != a->me) cshm_wait(a, r, n, phase);
    if (a->safe < n - 1) a->safe = n - 1;
}

/* Did rank r finish call m?  Its line for m holds the step of the last call
 * it posted there: m's own, or a later call's once r is nline calls further
 * (it finished m then), or an earlier call's (r is not at m yet).  Ranks
 * finish calls in order, so the answer is monotone in m. */
static int finished(const coll_shm_t *a, int r, uint64_t m)
{
    return m == 0 ||
           __atomic_load_n(&cshm_ctl(a, r, m)->step, __ATOMIC_ACQUIRE) >= cshm_step(m, CSHM_FIN);
}

void cshm_claim_slow(coll_shm_t *a, uint64_t n, uint64_t depth)
{
    uint64_t need = n - depth;
    uint64_t safe = n - 1;   /* this rank itself finished every earlier call */
    for (int r = 0; r < a->p; r++) {
        if (r == a->me || finished(a, r, safe)) continue;
        if (!finished(a, r, need)) cshm_wait(a, r, need, CSHM_FIN);
        /* the last call r finished, in (need, safe): a binary search over its
         * lines, so that a root that ran ahead learns at once how far the
         * readers got and does not come here again on every call */
        uint64_t lo = need, hi = safe - 1;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo + 1) / 2;
            if (finished(a, r, mid)) lo = mid;
            else hi = mid - 1;
        }
        safe = lo;
    }
    if (safe > a->safe) a->safe = safe;
}

/* ---- single copy ------------------------------------------------------------------- */
static int cma_error(tr_status_t st, const char *what, int r, size_t len)
{
    return cr_error(MPI_ERR_OTHER, "collective single copy (%s) of %zu bytes with rank %d failed: %s",
                    what, len, r, tr_status_str(st));
}

int cshm_get(coll_shm_t *a, int r, uint64_t raddr, size_t len, void *local)
{
    if (!len) return MPI_SUCCESS;
    tr_rkey_t key = { { raddr, a->info[r * 8 + INFO_PID], 0 } };
    tr_status_t st = tr_get(&shm_ctxs[0].iface, 0, local, len, &key, 0, NULL);
    return st == TR_OK ? MPI_SUCCESS : cma_error(st, "get", r, len);
}

int cshm_put(coll_shm_t *a, int r, uint64_t raddr, size_t len, const void *local)
{
    if (!len) return MPI_SUCCESS;
    tr_rkey_t key = { { raddr, a->info[r * 8 + INFO_PID], 0 } };
    tr_status_t st = tr_put(&shm_ctxs[0].iface, 0, local, len, &key, 0, NULL);
    return st == TR_OK ? MPI_SUCCESS : cma_error(st, "put", r, len);
}

int cshm_view(cshm_view_t *v, const void *buf, MPI_Aint count, const cr_datatype_t *dt)
{
    v->tmp = NULL;
    if (count <= 0 || dt->contig) {
        v->p = count > 0 ? (char *)buf + dt->true_lb : (char *)buf;
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)count * (size_t)dt->size;
    v->tmp = malloc(bytes ? bytes : 1);
    if (!v->tmp)
        return cr_error(MPI_ERR_NO_MEM, "out of memory packing %zu bytes for a collective", bytes);
    cr_dt_pack(buf, count, dt, v->tmp);
    v->p = v->tmp;
    return MPI_SUCCESS;
}

void cshm_view_free(cshm_view_t *v)
{
    free(v->tmp);
    v->tmp = NULL;
}

int cshm_get_into(coll_shm_t *a, int r, uint64_t raddr, size_t len, void *buf, MPI_Aint count,
                  const cr_datatype_t *dt, size_t off)
{
    if (!len) return MPI_SUCCESS;
    if (dt->contig) return cshm_get(a, r, raddr, len, (char *)buf + dt->true_lb + off);
    size_t chunk = (size_t)ut_settings.coll_cma_chunk_bytes;
    if (chunk < CSHM_LINE) chunk = CSHM_LINE;
    if (chunk > len) chunk = len;
    char *t = malloc(chunk);
    if (!t) return cr_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte bounce buffer", chunk);
    int e = MPI_SUCCESS;
    for (size_t done = 0; done < len && !e; done += chunk) {
        size_t k = len - done < chunk ? len - done : chunk;
        e = cshm_get(a, r, raddr + done, k, t);
        if (!e) cr_dt_unpack_seg(buf, count, dt, off + done, t, k);
    }
    free(t);
    return e;
}

/* ---- shared pieces ------------------------------------------------------------------ */
void cshm_fold(const cr_op_t *op, cshm_operand_fn operand, void *ctx, int p, void *acc,
               MPI_Aint count, const cr_datatype_t *dt)
{
    const void *last = operand(ctx, p - 1);
    if (last != acc) coll_copy(last, acc, count, dt);
    for (int i = p - 2; i >= 0; i--) cr_op_apply(op, operand(ctx, i), acc, count, dt);
}

const void *cshm_slot_operand(void *ctx, int i)
{
    cshm_slots_t *o = ctx;
    const void *base;
    if (i == o->a->me && o->mine) {
        base = o->mine;
    } else {
        if (i != o->a->me) cshm_wait(o->a, i, o->n, o->phase);
        base = cshm_operand(o->a, i, o->n, o->count, o->dt);
    }
    return coll_elem(base, o->first, o->dt);
}

void cshm_copy(const void *src, MPI_Aint scount, const cr_datatype_t *sdt, void *dst,
               MPI_Aint dcount, const cr_datatype_t *ddt)
{
    size_t bytes = (size_t)scount * (size_t)sdt->size;
    if (!bytes || (src == dst && sdt == ddt)) return;
    if (sdt->contig) {
        cshm_unpack((const char *)src + sdt->true_lb, dst, dcount, ddt);
    } else if (ddt->contig) {
        cshm_pack(src, scount, sdt, (char *)dst + ddt->true_lb);
    } else {
        void *t = malloc(bytes);
        if (!t) cr_abort_job(1, "out of memory copying a collective buffer");
        cr_dt_pack(src, scount, sdt, t);
        cr_dt_unpack(t, bytes, dst, dcount, ddt);
        free(t);
    }
}

/* Operands of one chunk of a single-copy fold. */
typedef struct {
    coll_shm_t *a;
    uint64_t n;
    int word;
    const char *mine;           /* packed address of this rank's element 0 */
    char *tmp;                  /* one fetched operand chunk */
    MPI_Aint x, k;              /* the chunk */
    size_t esz;
    MPI_Aint lb;                /* dt->true_lb: packed address -> buffer pointer */
    int err;
} fold_cma_t;

static const void *cma_operand(void *ctx, int i)
{
    fold_cma_t *f = ctx;
    size_t off = (size_t)f->x * f->esz, len = (size_t)f->k * f->esz;
    if (i == f->a->me) return f->mine + off - f->lb;
    cshm_wait(f->a, i, f->n, CSHM_POSTED);
    int e = cshm_get(f->a, i, cshm_ctl(f->a, i, f->n)->w[f->word] + off, len, f->tmp);
    if (e && !f->err) f->err = e;
    return f->tmp - f->lb;
}

int cshm_fold_cma(coll_shm_t *a, uint64_t n, int word, const void *mine, const cr_op_t *op,
                  const cr_datatype_t *dt, MPI_Aint lo, MPI_Aint hi, cshm_chunk_fn out,
                  void *ctx)
{
    if (hi <= lo) return MPI_SUCCESS;
    size_t esz = (size_t)dt->size;
    MPI_Aint per = (MPI_Aint)((size_t)ut_settings.coll_cma_chunk_bytes / esz);
    if (per < 1) per = 1;
    if (per > hi - lo) per = hi - lo;
    char *acc = malloc((size_t)per * esz), *tmp = malloc((size_t)per * esz);
    fold_cma_t f = { a, n, word, (const char *)mine + dt->true_lb, tmp, 0, 0, esz, dt->true_lb,
                     MPI_SUCCESS };
    if (!acc || !tmp) {
        /* cannot fold: still take part, so that nobody waits for ever */
        f.err = cr_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte reduction chunk",
                         (size_t)per * esz);
    }
    for (MPI_Aint x = lo; x < hi && acc && tmp; x += per) {
        f.x = x;
        f.k = hi - x < per ? hi - x : per;
        cshm_fold(op, cma_operand, &f, a->p, acc - dt->true_lb, f.k, dt);
        int e = out(ctx, x, f.k, acc);
        if (e && !f.err) f.err = e;
    }
    free(acc);
    free(tmp);
    return f.err;
}
