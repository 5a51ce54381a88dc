/* SPDX-License-Identifier: MIT */
/* The node's shared-memory collective area of a communicator: making it on
 * first use, the waits and wake-ups of a call, single copies between ranks'
 * own buffers, and the pieces the shm and cma algorithms share (coll_shm.h). */
#define _GNU_SOURCE
#include "coll/coll_shm.h"
#include "coll/coll_hier.h"
#include "core/liveness.h"
#include "core/pt2pt.h"
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
 * [pad to a page][slots: p x NBUF x slot_bytes][cells: p x ncell x cell_bytes]
 * [pad to a page][pipe buffers: p x PIPE_NBUF x pipe_bytes, where ranks
 * outnumber cores][pad to a page][staging buffers: p x stage_bytes, where
 * they do not], then the non-blocking calls' rings (coll_shm_t.nb), laid
 * out the same way without header and info lines: [sleepers][arrivals]
 * [release][waitfor][ctl: p x nb lines][pad][slots][cells: p x nb cells]. */
typedef struct {
    uint32_t magic, p;
    uint64_t slot_bytes;
} cshm_hdr_t;

enum { INFO_PID = 0, INFO_PROBE = 1, INFO_PING = 2 };
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

/* Bytes of each of a rank's pipe buffers in the areas this process makes as
 * rank 0 (the pipelined reduce's whole vector, coll_reduce_pipe.c): only
 * where the node's ranks outnumber its cores, the one case that algorithm
 * is chosen for; rounded up to whole lines; 0 elsewhere (the others take
 * rank 0's number). */
static int pipe_setting(void)
{
    long b = ut_settings.coll_reduce_pipe_buf_bytes;
    if (!cr_proc.oversubscribed || b <= 0) return 0;
    return (int)((b + CSHM_LINE - 1) / CSHM_LINE * CSHM_LINE);
}

size_t coll_shm_pipe_bytes(const cr_comm_t *c)
{
    const coll_shm_t *a = c->coll_shm;
    if (a && a->state == CSHM_OK) return a->pipe_bytes;
    return (size_t)pipe_setting();
}

/* Bytes of each rank's staging buffer in the areas this process makes as
 * rank 0 (coll_stage.c): only where the node's ranks do not outnumber its
 * cores (there the stage algorithms' waits would cost context switches);
 * whole pages; 0 elsewhere (the others take rank 0's number). */
static int stage_setting(void)
{
    long b = ut_settings.coll_stage_bytes;
    if (cr_proc.oversubscribed || b <= 0) return 0;
    return (int)((b + CSHM_PAGE - 1) / CSHM_PAGE * CSHM_PAGE);
}

size_t coll_shm_stage_bytes(const cr_comm_t *c)
{
    const coll_shm_t *a = c->coll_shm;
    if (a && a->state == CSHM_OK) return a->stage_bytes;
    return (size_t)stage_setting();
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
    free(a->nb);   /* a view into the same mapping */
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
/* The tag of the exchanges that make an area (or a hierarchy): above the
 * collectives' tags (coll.c: 1 .. 2^30) and below partitioned communication's
 * (p2p_part.c).  A tag from the non-blocking sequence would be taken in a different place on a rank that started a
 * non-blocking schedule before the blocking call that makes the area than on
 * one that started it after (MPI_Ibcast; MPI_Barrier against MPI_Barrier;
 * MPI_Ibcast), and the schedule's message would match the making's.  One tag
 * serves every making: they are blocking, one after the other in the same
 * order on every rank, and messages between two ranks do not overtake. */
#define CSHM_MAKE_TAG ((1 << 30) + 1)

/* Through a schedule: the area does not exist yet. */
int coll_shm_small_coll(cr_comm_t *c, int *v, int n, int allreduce)
{
    coll_args_t a = { .sbuf = MPI_IN_PLACE, .rbuf = v, .count = n,
                      .dt = cr_datatype_ptr(MPI_INT), .op = cr_op_ptr(MPI_MIN) };
    a.bytes = (size_t)n * sizeof(int);
    coll_sched_t s;
    coll_sched_init(&s, c, CSHM_MAKE_TAG);
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

/* The rings of one sequence at offset `at` of the mapping (base NULL: only
 * the sizes), with the info lines when `info` (the blocking calls' part),
 * and CSHM_PIPE_NBUF pipe buffers of `pipe` bytes and a staging buffer of
 * `stage` bytes per rank after the cells; returns the offset after them,
 * rounded up to a page. */
static size_t lay_rings(coll_shm_t *a, char *base, size_t at, int info, size_t slot,
                        uint64_t nline, size_t cell, uint64_t ncell, size_t pipe, size_t stage)
{
    size_t p = (size_t)a->p;
    char *o = base + at;
    a->slot_bytes = slot;
    a->nline = nline;
    a->cell_bytes = cell;
    a->ncell = ncell;
    size_t line = info ? 1 : 0;   /* the header line */
    a->sleepers = (volatile uint32_t *)(o + line * CSHM_LINE);
    a->arrivals = (volatile uint64_t *)(o + (line + 1) * CSHM_LINE);
    a->release = (volatile uint64_t *)(o + (line + 2) * CSHM_LINE);
    a->waitfor = (volatile uint32_t *)(o + (line + 3) * CSHM_LINE);
    line += 3 + (p * sizeof(uint32_t) + CSHM_LINE - 1) / CSHM_LINE;
    if (info) {
        a->info = (const volatile uint64_t *)(o + line * CSHM_LINE);
        line += p;
    }
    a->ctl = (cshm_ctl_t *)(o + line * CSHM_LINE);
    size_t head = (line + p * (size_t)nline) * CSHM_LINE;
    head = (head + CSHM_PAGE - 1) / CSHM_PAGE * CSHM_PAGE;
    a->slots = o + head;
    a->cells = a->slots + p * CSHM_NBUF * slot;
    size_t end = head + p * CSHM_NBUF * slot + p * (size_t)ncell * cell;
    end = (end + CSHM_PAGE - 1) / CSHM_PAGE * CSHM_PAGE;
    a->pipe_bytes = pipe;
    a->pipe = pipe ? o + end : NULL;
    end += p * CSHM_PIPE_NBUF * pipe;
    end = (end + CSHM_PAGE - 1) / CSHM_PAGE * CSHM_PAGE;
    a->stage_bytes = stage;
    a->stage = stage ? o + end : NULL;
    end += p * stage;
    return at + (end + CSHM_PAGE - 1) / CSHM_PAGE * CSHM_PAGE;
}

/* The area's numbers, as rank 0 announces them (make_area's hello). */
enum { H_OK, H_PID, H_SERIAL, H_NLINE, H_CELL, H_NCELL, H_MEET, H_NB_NLINE, H_NB_NCELL, H_PIPE,
       H_STAGE, H_N };

/* Both parts of the area at base (NULL: only the size); the view of the
 * non-blocking calls' part, nb, shares the rest (info, doorbells). */
static void set_layout(coll_shm_t *a, coll_shm_t *nb, char *base, size_t slot, const int *h)
{
    size_t mid = lay_rings(a, base, 0, 1, slot, (uint64_t)h[H_NLINE], (size_t)h[H_CELL],
                           (uint64_t)h[H_NCELL], (size_t)h[H_PIPE], (size_t)h[H_STAGE]);
    a->base = base;
    coll_shm_t tmp;
    if (!nb) {
        tmp = *a;
        nb = &tmp;
    }
    a->bytes = lay_rings(nb, base, mid, 0, slot, (uint64_t)h[H_NB_NLINE], (size_t)h[H_CELL],
                         (uint64_t)h[H_NB_NCELL], 0, 0);
}

/* Whether this node's ranks outnumber the CPUs they may run on more than
 * COURIER_COLL_SHM_DEEP_RATIO times (any oversubscription when it is 0). */
static int deep_oversubscribed(void)
{
    if (!cr_proc.oversubscribed) return 0;
    long ratio = ut_settings.coll_shm_deep_ratio;
    return ratio <= 0 || (long)cr_proc.local_size > ratio * (long)cr_proc.node_cpus;
}

/* The view of the non-blocking calls' part of area a (coll_shm_t.nb): the
 * same ranks, single copy and doorbells, its own rings and counters; it
 * never meets (the state machines post in their lines). */
static coll_shm_t *nb_view(const coll_shm_t *a)
{
    coll_shm_t *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->state = CSHM_OK;
    v->p = a->p;
    v->me = a->me;
    v->bell = a->bell;
    v->info = a->info;
    return v;
}

/* The staging buffers pay only where the ranks' cores hand cache lines over
 * fast: they move data as lines one rank has just written and another
 * reads.  On this 2-core virtual machine some jobs find their two CPUs far
 * apart on the host (the same shared-memory ping-pong then takes 3-4 times
 * as long), and there an Allgather of 1 MiB through the buffers took 480-500
 * us where cma took about 105 (docs/collectives.md, "Staging buffers").  So
 * when an area with staging buffers is made, ranks 0 and 1 time a ping-pong
 * of one word each in their information lines; rank 0 keeps the buffers
 * when a round trip takes at most COURIER_COLL_STAGE_MAX_RTT_NS (-1: no
 * probe) and tells everyone; a peer that does not answer within 2 ms (not
 * scheduled) counts as slow.  Returns rank 0's verdict there (1: keep), 1
 * elsewhere. */
enum { STAGE_PROBE_WARM = 64, STAGE_PROBE_ROUNDS = 256 };
#define STAGE_PROBE_GIVE_UP_NS 2000000ull   /* a peer that does not answer: slow */

static int stage_probe(coll_shm_t *a)
{
    long max = ut_settings.coll_stage_max_rtt_ns;
    if (max < 0 || a->me > 1) return 1;   /* -1: keep them without a probe */
    volatile uint64_t *mine = (volatile uint64_t *)a->info + a->me * 8 + INFO_PING;
    volatile uint64_t *peer = (volatile uint64_t *)a->info + (1 - a->me) * 8 + INFO_PING;
    const uint64_t stop = ~0ull;
    uint64_t start = cr_wait_sys.now_ns(), t0 = start;
    for (uint64_t i = 1; i <= STAGE_PROBE_WARM + STAGE_PROBE_ROUNDS; i++) {
        if (i == STAGE_PROBE_WARM + 1) t0 = cr_wait_sys.now_ns();
        if (a->me == 0) __atomic_store_n(mine, i, __ATOMIC_RELEASE);
        for (unsigned k = 0;; k++) {
            uint64_t v = __atomic_load_n(peer, __ATOMIC_ACQUIRE);
            if (v == stop) return 0;
            if (v >= i) break;
            if ((k & 1023) == 1023 && cr_wait_sys.now_ns() - start > STAGE_PROBE_GIVE_UP_NS) {
                __atomic_store_n(mine, stop, __ATOMIC_RELEASE);
                return 0;
            }
        }
        if (a->me == 1) __atomic_store_n(mine, i, __ATOMIC_RELEASE);
    }
    uint64_t rtt = (cr_wait_sys.now_ns() - t0) / STAGE_PROBE_ROUNDS;
    return rtt <= (uint64_t)max;
}

static int make_area(cr_comm_t *c, coll_shm_t *a)
{
    static int serial;
    size_t slot = coll_shm_slot_cap();
    /* rank 0: create; tell everyone whether it worked, the name's parts and
     * the number of control lines and the cells' size */
    int nline = (int)ring_setting(ut_settings.coll_shm_lines, 1u << 16);
    int nb_nline = (int)ring_setting(ut_settings.coll_nb_shm_lines, 1u << 16);
    int meet = ut_settings.coll_shm_meet >= 0 ? (int)ut_settings.coll_shm_meet
                                              : cr_proc.oversubscribed;
    int hello[H_N] = { 0, (int)getpid(), ++serial, nline, (int)cell_setting(),
                       (int)ring_setting(ut_settings.coll_shm_cells, (uint64_t)nline), meet,
                       nb_nline, (int)ring_setting(ut_settings.coll_nb_shm_cells, (uint64_t)nb_nline),
                       pipe_setting(), stage_setting() };
    coll_shm_t probe = *a;
    set_layout(&probe, NULL, NULL, slot, hello);
    size_t bytes = probe.bytes;
    char name[320];
    char *base = NULL;
    if (a->me == 0) {
        area_name(name, sizeof name, hello[H_PID], hello[H_SERIAL]);
        base = area_create(name, bytes);
        hello[H_OK] = base != NULL;
    }
    int e = coll_shm_small_coll(c, hello, H_N, 0);
    if (e) return e;
    if (!hello[H_OK]) return MPI_SUCCESS;
    area_name(name, sizeof name, hello[H_PID], hello[H_SERIAL]);
    set_layout(&probe, NULL, NULL, slot, hello);
    bytes = probe.bytes;
    if (a->me != 0) base = area_open(name, bytes);
    coll_shm_t *nb = base ? nb_view(a) : NULL;
    if (base && !nb) {
        munmap(base, bytes);
        base = NULL;
    }
    if (base) {
        set_layout(a, nb, base, slot, hello);
        nb->info = a->info;
        a->meet = hello[H_MEET];
        /* deeply oversubscribed: the rank waited for is most likely
         * descheduled, so yielding to it through the other ranks of its core
         * costs a context switch each; sleep at once and let it wake us.  A
         * few ranks per core find it back sooner by the usual spin and yield
         * (docs/collectives.md, "Many ranks on few cores") */
        int deep = deep_oversubscribed();
        long us = ut_settings.coll_shm_sleep_us;
        a->sleep_ns = deep && us >= 0 ? (uint64_t)us * 1000u + 1u : 0;
        long spin = ut_settings.coll_shm_spin;
        a->spin_skip = deep && spin >= 0 && (unsigned long)spin < cr_wait_spin_limit
                           ? cr_wait_spin_limit - (unsigned)spin
                           : 0;
        /* a rank of its own core first looks only at the word it waits
         * for; with more ranks than cores the peer is likely descheduled and
         * the wait goes straight to the policy */
        a->word_polls = cr_proc.oversubscribed ? 0 : (unsigned)ut_settings.coll_shm_word_polls;
        nb->sleep_ns = a->sleep_ns;
        nb->spin_skip = a->spin_skip;
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
    /* whether every rank mapped it (the minimum), and the most non-blocking
     * calls any rank has made so far (the minimum of their negatives): the
     * later ones take the state machines on every rank (coll_nbshm_ready) */
    int agree[2] = { base != NULL, -(int)(a->nb_calls & 0x3fffffff) };
    e = coll_shm_small_coll(c, agree, 2, 1);   /* also: every info line is written */
    if (a->me == 0) shm_unlink(name);
    if (e || !agree[0]) {
        if (base) munmap(base, bytes);
        free(nb);
        a->base = NULL;
        return e;
    }
    a->nb = nb;
    a->nb_from = (uint64_t)-(int64_t)agree[1];
    a->state = CSHM_OK;
    /* single copy: each reads its successor; every rank must be readable, and
     * the area's own allreduce tells everyone */
    int cma = probe_cma(a, (a->me + 1) % a->p);
    coll_args_t m = { .sbuf = MPI_IN_PLACE, .rbuf = &cma, .count = 1,
                      .dt = cr_datatype_ptr(MPI_INT), .op = cr_op_ptr(MPI_MIN),
                      .bytes = sizeof(int) };
    e = coll_allreduce_shm(c, &m);
    a->cma = cma;
    nb->cma = cma;
    if (!e && a->stage) {
        int keep = stage_probe(a);
        e = coll_shm_small_coll(c, &keep, 1, 0);   /* rank 0's verdict */
        if (e || !keep) {
            a->stage = NULL;
            a->stage_bytes = 0;
        }
    }
    return e;
}

coll_shm_t *coll_shm_area(cr_comm_t *c)
{
    coll_shm_t *a = c->coll_shm;
    /* the non-blocking calls pending on the area are in a sequence of their
     * own (coll_shm_t.nb): a blocking call need not wait for them */
    if (CR_LIKELY(a && a->state == CSHM_OK)) return a;
    if (!a) a = coll_shm_state(c);
    if (!a || a->state == CSHM_NONE) return NULL;
    if (make_area(c, a) != MPI_SUCCESS || a->state != CSHM_OK) {
        a->state = CSHM_NONE;
        return NULL;
    }
    return a;
}

void coll_shm_publish_unlocked(cr_comm_t *c)
{
    coll_shm_t *a = c->coll_shm;
    if (!a || a->state != CSHM_OK || a->unlocked_ok) return;
    /* the channel the communicator's collective traffic takes, whose polls
     * the waits without the library lock make (with the channel locks off
     * the library lock covers every channel: those waits poll none) */
    a->chan = cr_chan_locking ? cr_chan_of(c, CR_CTX_COLL, 0, c->rank) : NULL;
    __atomic_store_n(&a->unlocked_ok, 1, __ATOMIC_RELEASE);
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
    volatile uint64_t *w, *w2;  /* w2: a second word that also ends the wait, or NULL */
    uint64_t target, target2;
} waiting;
static int nwaiting;

static int wait_poll(void *arg)
{
    (void)arg;
    return waiting.w && (__atomic_load_n(waiting.w, __ATOMIC_ACQUIRE) >= waiting.target ||
                         (waiting.w2 &&
                          __atomic_load_n(waiting.w2, __ATOMIC_ACQUIRE) >= waiting.target2));
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

/* Whether *w >= target or (w2 set) *w2 >= target2. */
static inline int either_done(volatile uint64_t *w, uint64_t target, volatile uint64_t *w2,
                              uint64_t target2)
{
    return __atomic_load_n(w, __ATOMIC_ACQUIRE) >= target ||
           (w2 && __atomic_load_n(w2, __ATOMIC_ACQUIRE) >= target2);
}

/* The waits of a call without the library lock (coll.c, coll_call_mt; the
 * area's `unlocked`), as a channel-path wait does (p2p_api.c,
 * chan_wait_until): poll the area's word and the communicator's channel,
 * yielding the core between polls; once idle for the area's yield phase
 * (COURIER_WAIT_SLEEP_US, or COURIER_COLL_SHM_SLEEP_US deeply
 * oversubscribed) sleep on the process's doorbell, holding no lock.  The
 * sleep is announced as cshm_wait_slow announces it (waitfor, sleepers),
 * then on the doorbell (whose membarrier orders a poster's store before its
 * read of sleepers), then the word is read once more: a post either is seen
 * by that read or finds the announcement and rings the doorbell.  The
 * library's step (liveness checks, every poller: what a peer may wait for
 * before it comes to this call) runs once per COURIER_WAIT_SLEEP_US of
 * idleness, and on every turn while a channel has queued outgoing work,
 * under the library lock taken only when it is free (a thread that holds it
 * moves that work itself). */
static void sleep_unlocked(coll_shm_t *a, volatile uint64_t *w, uint64_t target,
                           volatile uint64_t *w2, uint64_t target2, cr_chan_t *ch, long max_us)
{
    if (max_us <= 0) {
        cr_wait_sys.yield();
        return;
    }
    __atomic_store_n(&a->waitfor[a->me], wait_tag(a, w), __ATOMIC_RELAXED);
    __atomic_add_fetch(a->sleepers, 1, __ATOMIC_SEQ_CST);
    if (cr_wait_bell_prepare() != 0) {
        cr_wait_sys.yield();        /* the process may not sleep now */
    } else {
        int quiet = !either_done(w, target, w2, target2);
        if (quiet && ch) {
            cr_chan_lock_slow(ch);
            quiet = cr_chan_progress(ch) == 0 && cr_chan_can_sleep(ch);
            cr_chan_unlock_slow(ch);
        }
        if (quiet && !__atomic_load_n(&cr_chans_busy, __ATOMIC_RELAXED))
            cr_wait_bell_sleep(max_us);
        else
            cr_wait_bell_cancel();
    }
    __atomic_store_n(&a->waitfor[a->me], CSHM_WF_NONE, __ATOMIC_RELAXED);
    __atomic_sub_fetch(a->sleepers, 1, __ATOMIC_RELEASE);
}

static void wait_unlocked(coll_shm_t *a, volatile uint64_t *w, uint64_t target,
                          volatile uint64_t *w2, uint64_t target2)
{
    cr_chan_t *ch = a->chan;
    long sleep_us = ut_settings.wait_sleep_us;   /* -1: never sleeps */
    uint64_t period = (uint64_t)(sleep_us > 0 ? sleep_us : 0) * 1000u;
    uint64_t yield_ns = a->sleep_ns ? a->sleep_ns : period;
    uint64_t idle_since = 0, step_at = 0;
    while (!either_done(w, target, w2, target2)) {
        if (ch) {
            cr_chan_lock_slow(ch);
            int events = cr_chan_progress(ch);
            cr_chan_unlock_slow(ch);
            if (events > 0) {
                idle_since = 0;
                continue;
            }
        }
        uint64_t now = cr_wait_sys.now_ns();
        if (!idle_since) {
            idle_since = now;
            step_at = now + period;
        }
        if (now - idle_since < yield_ns) {
            cr_wait_sys.yield();
            continue;
        }
        if (now >= step_at || __atomic_load_n(&cr_chans_busy, __ATOMIC_RELAXED)) {
            step_at = now + period;
            if (cr_lib_try_reacquire()) {
                cr_liveness_check();
                int events = !either_done(w, target, w2, target2) ? cr_progress() : 1;
                cr_lib_unlock_slow();
                if (events > 0) {
                    idle_since = 0;
                    continue;
                }
                /* nothing: yield or sleep as below (going round at once
                 * starved, with COURIER_WAIT_SLEEP_US 0 or -1, the ranks
                 * that share the core: 4 ranks x 3 threads on 2 cores ran
                 * 100 rounds of thr_collshm in minutes instead of 0.3 s) */
            }
        }
        if (sleep_us < 0) {
            cr_wait_sys.yield();
        } else {
            /* until the next step; with COURIER_WAIT_SLEEP_US 0 (a step on
             * every turn) as long as the policy's longest sleep */
            long max_us = period ? (long)((step_at - now) / 1000u)
                                 : (long)ut_settings.wait_sleep_max_us;
            sleep_unlocked(a, w, target, w2, target2, ch, max_us);
        }
    }
}

/* Between two loads of a word another core will write. */
static inline void word_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    __asm__ volatile("" ::: "memory");
#endif
}

/* Wait until *w >= target or (w2 set) *w2 >= target2; both words of one
 * rank's lines, or w the release word of a meeting (what a waiter past its
 * spin phase says it waits for is w's). */
static void wait_either(coll_shm_t *a, volatile uint64_t *w, uint64_t target,
                        volatile uint64_t *w2, uint64_t target2)
{
    if (a->unlocked) {
        wait_unlocked(a, w, target, w2, target2);
        return;
    }
    cr_wait_t wt = CR_WAIT_INIT;
    wt.sleep_ns = a->sleep_ns;
    wt.polls = a->spin_skip;   /* a shorter spin phase (only the first) */
    int slow = 0;
    /* first the word alone, for a bounded while: a poll of the engine costs
     * some 300 instructions (2 ranks, callgrind), and a post that lands
     * during one is seen that much later, where most waits of a small
     * collective end within a few hundred nanoseconds.  pt2pt progress waits
     * at most word_polls pauses. */
    for (unsigned k = a->word_polls; k; k--) {
        if (__atomic_load_n(w, __ATOMIC_ACQUIRE) >= target) return;
        if (w2 && __atomic_load_n(w2, __ATOMIC_ACQUIRE) >= target2) return;
        word_relax();
    }
    for (;;) {
        if (__atomic_load_n(w, __ATOMIC_ACQUIRE) >= target) break;
        if (w2 && __atomic_load_n(w2, __ATOMIC_ACQUIRE) >= target2) break;
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
            waiting.w2 = w2;
            waiting.target2 = target2;
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

void cshm_wait_slow(coll_shm_t *a, volatile uint64_t *w, uint64_t target)
{
    wait_either(a, w, target, NULL, 0);
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

void cshm_fin_all(coll_shm_t *a, uint64_t n)
{
    if (a->meet) {
        /* nobody waits for this line's FIN: the others are in the meeting */
        cshm_mark(a, n, CSHM_FIN);
        cshm_meet(a, n);
    } else {
        cshm_post(a, n, CSHM_FIN);
        cshm_wait_all(a, n, CSHM_FIN);
    }
    if (a->safe < n) a->safe = n;
}

void cshm_done(coll_shm_t *a, int root, uint64_t n)
{
    /* FIN first: a root that saw the count complete knows every rank finished n */
    cshm_post(a, n, CSHM_FIN);
    if (!a->meet) return;
    volatile uint64_t *w = &cshm_ctl(a, root, n)->w[CSHM_W_DONE];
    if (__atomic_add_fetch(w, 1, __ATOMIC_SEQ_CST) != (uint64_t)a->p - 1) return;
    /* the sleepers count is read after the addition (cshm_post) */
    if (CR_UNLIKELY(*a->sleepers != 0)) cshm_wake(a, (uint32_t)root + 1);
}

void cshm_wait_done(coll_shm_t *a, uint64_t n)
{
    if (!a->meet) {
        cshm_wait_all(a, n, CSHM_FIN);
        return;
    }
    volatile uint64_t *w = &cshm_ctl(a, a->me, n)->w[CSHM_W_DONE];
    uint64_t all = (uint64_t)a->p - 1;
    if (__atomic_load_n(w, __ATOMIC_ACQUIRE) < all) cshm_wait_slow(a, w, all);
    if (a->safe < n) a->safe = n;
}

/* Did rank r finish call m?  Its line for m holds the step of the last call
 * it posted there: m's own, or a later call's once r is nline calls further
 * (it finished m then), or an earlier call's (r is not at m yet).  A call
 * that ends with FIN says so in m's line; one that ends without
 * (cshm_post_once) says so when r posts anything in call m + 1, which it
 * does only once it finished m (a rank finishes the area's calls in order,
 * and every call posts at least once).  So the answer is monotone in m. */
static int finished(const coll_shm_t *a, int r, uint64_t m)
{
    return m == 0 ||
           __atomic_load_n(&cshm_ctl(a, r, m)->step, __ATOMIC_ACQUIRE) >= cshm_step(m, CSHM_FIN) ||
           __atomic_load_n(&cshm_ctl(a, r, m + 1)->step, __ATOMIC_ACQUIRE) >=
               cshm_step(m + 1, CSHM_POSTED);
}

/* Wait until rank r finished call m (finished: its FIN in m, or its first
 * post in m + 1). */
static void wait_finished(coll_shm_t *a, int r, uint64_t m)
{
    wait_either(a, &cshm_ctl(a, r, m)->step, cshm_step(m, CSHM_FIN), &cshm_ctl(a, r, m + 1)->step,
                cshm_step(m + 1, CSHM_POSTED));
}

void cshm_claim_slow(coll_shm_t *a, uint64_t n, uint64_t depth)
{
    uint64_t need = n - depth;
    uint64_t safe = n - 1;   /* this rank itself finished every earlier call */
    for (int r = 0; r < a->p; r++) {
        if (r == a->me || finished(a, r, safe)) continue;
        if (!finished(a, r, need)) wait_finished(a, r, need);
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

int cshm_claim_ready(coll_shm_t *a, uint64_t n, uint64_t depth, int *behind)
{
    if (n <= depth || a->safe >= n - depth) return 1;
    for (int r = 0; r < a->p; r++)
        if (r != a->me && !finished(a, r, n - depth)) {
            *behind = r;
            return 0;
        }
    cshm_claim_slow(a, n, depth);   /* waits for nothing now; learns how far they got */
    return 1;
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
    int i = p - 2;
    /* The first op reads both operands and writes acc in one pass where a
     * kernel does that (cr_op_apply3): at two ranks the whole fold.  Only
     * with operands in the slots or the staging buffers, which stay put; a
     * single-copy fold fetches each into the same bounce buffer (cma_operand). */
    if (last != acc && !(i >= 0 &&
                         (operand == cshm_slot_operand || operand == cshm_stage_operand) &&
                         cr_op_apply3(op, operand(ctx, i--), last, acc, count, dt))) {
        i = p - 2;
        coll_copy(last, acc, count, dt);
    }
    for (; i >= 0; i--) cr_op_apply(op, operand(ctx, i), acc, count, dt);
}

/* Can the association change the op's result?  Only for MPI_SUM and MPI_PROD
 * on floating-point (and complex) elements, and for user ops. */
static int fold_assoc_matters(const cr_op_t *op, const cr_datatype_t *dt)
{
    if (!op->builtin) return 1;
    if (op->handle != MPI_SUM && op->handle != MPI_PROD) return 0;
    switch (dt->basic) {
    case CR_B_FLOAT: case CR_B_DOUBLE: case CR_B_LDOUBLE: case CR_B_F_REAL: case CR_B_F_DOUBLE:
    case CR_B_F_REAL4: case CR_B_F_REAL8: case CR_B_F_REAL16: case CR_B_FLOAT16:
    case CR_B_F_REAL2: case CR_B_BFLOAT16: case CR_B_FCOMPLEX: case CR_B_DCOMPLEX:
    case CR_B_LDCOMPLEX: case CR_B_F_COMPLEX: case CR_B_F_DCOMPLEX: case CR_B_F_COMPLEX8:
    case CR_B_F_COMPLEX16: case CR_B_F_COMPLEX32: case CR_B_F_COMPLEX4:
        return 1;
    default:
        return 0;
    }
}

/* A partial result of a tree fold: an operand (read only) or a temporary. */
typedef struct {
    const void *v;
    int tmp;                    /* index of the temporary holding it, or -1 */
    int weight;                 /* leaves under it */
} fold_part_t;

typedef struct {
    const cr_op_t *op;
    MPI_Aint count;
    const cr_datatype_t *dt;
    char *pool;                 /* ntmp temporaries of `stride` bytes */
    size_t stride;
    uint64_t used;              /* bit t: temporary t holds a part */
} fold_tree_t;

#define FOLD_MAX_TMP 40         /* > log2 of any rank count + 3 */
#define FOLD_SMALL_BYTES 64     /* temporaries of up to this on the stack */

static void *fold_tmp(fold_tree_t *t, int *idx)
{
    int i = 0;
    while (t->used & (1ull << i)) i++;
    t->used |= 1ull << i;
    *idx = i;
    return cshm_lay(t->pool + (size_t)i * t->stride, t->count, t->dt);
}

/* l op r, into a temporary: r's when r is one, l's when l is one and the op
 * commutes (r op l then has the same bits), else a fresh copy of r. */
static fold_part_t fold_merge(fold_tree_t *t, fold_part_t l, fold_part_t r)
{
    fold_part_t o = { NULL, -1, l.weight + r.weight };
    if (r.tmp >= 0) {
        cr_op_apply(t->op, l.v, (void *)r.v, t->count, t->dt);
        o.v = r.v;
        o.tmp = r.tmp;
        if (l.tmp >= 0) t->used &= ~(1ull << l.tmp);
    } else if (l.tmp >= 0 && t->op->commute) {
        cr_op_apply(t->op, r.v, (void *)l.v, t->count, t->dt);
        o.v = l.v;
        o.tmp = l.tmp;
    } else {
        void *d = fold_tmp(t, &o.tmp);
        if (!cr_op_apply3(t->op, l.v, r.v, d, t->count, t->dt)) {
            coll_copy(r.v, d, t->count, t->dt);
            cr_op_apply(t->op, l.v, d, t->count, t->dt);
        }
        o.v = d;
        if (l.tmp >= 0) t->used &= ~(1ull << l.tmp);
    }
    return o;
}

static int fold_bitrev(int j, int n)
{
    int r = 0;
    for (int b = 1; b < n; b <<= 1) r = (r << 1) | ((j & b) != 0);
    return r;
}

/* Leaf u of the tree (u = 0 .. nunits-1): operand *a, or the pair *a op *b
 * (*b = -1 for a single operand).  q, r as in the header. */
static void fold_unit(cshm_order_t order, int u, int p, int q, int r, int *a, int *b)
{
    *b = -1;
    if (order.how == CSHM_BINOMIAL) {
        *a = (u + order.root) % p;
        return;
    }
    int j = order.how == CSHM_HALVING ? fold_bitrev(u, q) : u;
    if (j < r) {
        *a = 2 * j;
        *b = 2 * j + 1;
    } else {
        *a = j + r;
    }
}

/* The common small case without temporaries or op dispatch: MPI_SUM of a few
 * contiguous doubles or floats (HPCG's and miniFE's dot products), the same
 * tree element by element in registers.  x[i]: rank i's first element. */
#define FOLD_FAST_MAX_P 64
#define FOLD_FAST_MAX_ELEMS 64
#define DEF_FOLD_FAST(NAME, T)                                                             \
    static void NAME(const char *const *x, const int *ua, const int *ub, int nunits,      \
                     char *out, MPI_Aint n)                                                \
    {                                                                                      \
        for (MPI_Aint e = 0; e < n; e++) {                                                 \
            T st[FOLD_MAX_TMP];                                                            \
            int w[FOLD_MAX_TMP], top = 0;                                                  \
            for (int u = 0; u < nunits; u++) {                                             \
                T v = ((const T *)x[ua[u]])[e];                                            \
                if (ub[u] >= 0) v = v + ((const T *)x[ub[u]])[e];                          \
                st[top] = v;                                                               \
                w[top++] = 1;                                                              \
                while (top >= 2 && w[top - 1] == w[top - 2]) {                             \
                    st[top - 2] = st[top - 2] + st[top - 1];                               \
                    w[top - 2] *= 2;                                                       \
                    top--;                                                                 \
                }                                                                          \
            }                                                                              \
            for (; top >= 2; top--) st[top - 2] = st[top - 2] + st[top - 1];               \
            ((T *)out)[e] = st[0];                                                         \
        }                                                                                  \
    }
DEF_FOLD_FAST(fold_fast_double, double)
DEF_FOLD_FAST(fold_fast_float, float)

static int fold_fast(const cr_op_t *op, cshm_operand_fn operand, void *ctx, int p, void *acc,
                     MPI_Aint count, const cr_datatype_t *dt, cshm_order_t order, int q, int r,
                     int nunits)
{
    cr_basic_t b = dt->basic;
    int dbl = b == CR_B_DOUBLE || b == CR_B_F_DOUBLE || b == CR_B_F_REAL8;
    int flt = b == CR_B_FLOAT || b == CR_B_F_REAL || b == CR_B_F_REAL4;
    MPI_Aint n = count * (MPI_Aint)dt->nbasic;
    if (op->handle != MPI_SUM || !dt->contig || !(dbl || flt) || p > FOLD_FAST_MAX_P ||
        n > FOLD_FAST_MAX_ELEMS)
        return 0;
    const char *x[FOLD_FAST_MAX_P];
    int ua[FOLD_FAST_MAX_P], ub[FOLD_FAST_MAX_P];
    for (int i = 0; i < p; i++) x[i] = (const char *)operand(ctx, i) + dt->true_lb;
    for (int u = 0; u < nunits; u++) fold_unit(order, u, p, q, r, &ua[u], &ub[u]);
    if (dbl) fold_fast_double(x, ua, ub, nunits, (char *)acc + dt->true_lb, n);
    else fold_fast_float(x, ua, ub, nunits, (char *)acc + dt->true_lb, n);
    return 1;
}

void cshm_fold_order(const cr_op_t *op, cshm_operand_fn operand, void *ctx, int p, void *acc,
                     MPI_Aint count, const cr_datatype_t *dt, cshm_order_t order)
{
    if (order.how == CSHM_RANK || p <= 2 || count <= 0 || !fold_assoc_matters(op, dt)) {
        cshm_fold(op, operand, ctx, p, acc, count, dt);
        return;
    }
    int q = 1;
    while (q * 2 <= p) q *= 2;
    int r = p - q, nunits = order.how == CSHM_BINOMIAL ? p : q;
    if (fold_fast(op, operand, ctx, p, acc, count, dt, order, q, r, nunits)) return;
    size_t span = cshm_span(count, dt), stride = (span + 63) & ~(size_t)63;
    _Alignas(64) char small[FOLD_MAX_TMP * FOLD_SMALL_BYTES];
    fold_tree_t t = { op, count, dt, small, stride, 0 };
    if (stride > FOLD_SMALL_BYTES) {
        t.pool = malloc(stride * FOLD_MAX_TMP);
        if (!t.pool) cr_abort_job(1, "out of memory for a reduction temporary");
    } else {
        t.stride = FOLD_SMALL_BYTES;
    }
    /* Leaves left to right; equal neighbours merge at once (a binary counter),
     * what is left merges from the right: that is tree() of the header. */
    fold_part_t st[FOLD_MAX_TMP];
    int top = 0;
    for (int u = 0; u < nunits; u++) {
        fold_part_t x = { NULL, -1, 1 };
        int ia, ib;
        fold_unit(order, u, p, q, r, &ia, &ib);
        x.v = operand(ctx, ia);
        if (ib >= 0) {
            fold_part_t y = { operand(ctx, ib), -1, 1 };
            x = fold_merge(&t, x, y);
            x.weight = 1;
        }
        st[top++] = x;
        while (top >= 2 && st[top - 1].weight == st[top - 2].weight) {
            st[top - 2] = fold_merge(&t, st[top - 2], st[top - 1]);
            top--;
        }
    }
    while (top >= 2) {
        st[top - 2] = fold_merge(&t, st[top - 2], st[top - 1]);
        top--;
    }
    if (st[0].v != acc) coll_copy(st[0].v, acc, count, dt);
    if (t.pool != small) free(t.pool);
}

cshm_order_t cshm_order_allreduce(void)
{
    return (cshm_order_t){ CSHM_RECDBL, 0 };
}

cshm_order_t cshm_order_reduce(const cr_op_t *op, MPI_Aint count, const cr_datatype_t *dt,
                               int root, int p)
{
    /* MPICH: binomial up to the short limit (rooted at 0 for non-commutative
     * ops), reduce-scatter + gather above it for commutative ops when every
     * rank of the power of two gets an element */
    int q = 1;
    while (q * 2 <= p) q *= 2;
    if (op->commute && count >= q &&
        (size_t)count * (size_t)dt->size > (size_t)ut_settings.coll_reduce_short_bytes)
        return (cshm_order_t){ CSHM_RECDBL, 0 };
    return (cshm_order_t){ CSHM_BINOMIAL, op->commute ? root : 0 };
}

cshm_order_t cshm_order_reduce_scatter(const cr_op_t *op)
{
    return (cshm_order_t){ op->commute ? CSHM_HALVING : CSHM_RANK, 0 };
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
    char *tmp;                  /* fetched operand chunks: one, or one per rank (keep) */
    int keep;                   /* a tree fold: operands must stay until it ends */
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
    char *dst = f->tmp + (f->keep ? (size_t)i * len : 0);
    int e = cshm_get(f->a, i, cshm_ctl(f->a, i, f->n)->w[f->word] + off, len, dst);
    if (e && !f->err) f->err = e;
    return dst - f->lb;
}

int cshm_folders(const coll_shm_t *a, MPI_Aint count, size_t esz)
{
    size_t min = (size_t)ut_settings.coll_cma_slice_min_bytes;
    if (!a->meet || !min) return a->p;
    size_t k = (size_t)count * esz / min;
    return k < 1 ? 1 : k > (size_t)a->p ? a->p : (int)k;
}

int cshm_fold_cma(coll_shm_t *a, uint64_t n, int word, const void *mine, const cr_op_t *op,
                  const cr_datatype_t *dt, MPI_Aint lo, MPI_Aint hi, cshm_chunk_fn out,
                  void *ctx, cshm_order_t order)
{
    if (hi <= lo) return MPI_SUCCESS;
    size_t esz = (size_t)dt->size;
    MPI_Aint per = (MPI_Aint)((size_t)ut_settings.coll_cma_chunk_bytes / esz);
    if (per < 1) per = 1;
    if (per > hi - lo) per = hi - lo;
    int keep = order.how != CSHM_RANK && a->p > 2 && fold_assoc_matters(op, dt);
    char *acc = malloc((size_t)per * esz), *tmp = malloc((size_t)per * esz * (keep ? a->p : 1));
    fold_cma_t f = { a, n, word, (const char *)mine + dt->true_lb, tmp, keep, 0, 0, esz,
                     dt->true_lb, MPI_SUCCESS };
    if (!acc || !tmp) {
        /* cannot fold: still take part, so that nobody waits for ever */
        f.err = cr_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte reduction chunk",
                         (size_t)per * esz);
    }
    for (MPI_Aint x = lo; x < hi && acc && tmp; x += per) {
        f.x = x;
        f.k = hi - x < per ? hi - x : per;
        cshm_fold_order(op, cma_operand, &f, a->p, acc - dt->true_lb, f.k, dt, order);
        int e = out(ctx, x, f.k, acc);
        if (e && !f.err) f.err = e;
    }
    free(acc);
    free(tmp);
    return f.err;
}
