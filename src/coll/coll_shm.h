/* SPDX-License-Identifier: MIT */
/* The node's shared-memory collective area: what the shared-memory ("shm")
 * and single-copy ("cma") algorithms of an intracommunicator whose ranks all
 * share one node run on, without schedules, message headers, matching or
 * requests.  coll_shm.c makes it; the algorithms are coll_<x>_shm.c and
 * coll_<x>_cma.c.
 *
 * The area.  A communicator gets one on the first collective call that
 * selects such an algorithm (collective: every rank makes that call): its rank
 * 0 creates a file in /dev/shm named after the node's segment (so mpiexec's
 * clean-up of the job's names covers it), the others map it, and rank 0
 * removes the name once everyone has mapped it.  It holds, per rank, an
 * information line (process id, a probe word for single copy), a ring of
 * COURIER_COLL_SHM_LINES control lines (rank 0's value, rounded up to a power
 * of two: nline), CSHM_NBUF data slots of COURIER_COLL_SHM_SLOT_BYTES and a
 * ring of COURIER_COLL_SHM_CELLS cells of COURIER_COLL_SHM_CELL_BYTES (rank
 * 0's values; ncell, a power of two, at most nline), and where ranks
 * outnumber cores CSHM_PIPE_NBUF pipe buffers of
 * COURIER_COLL_REDUCE_PIPE_BUF_BYTES (the pipelined reduce's,
 * coll_reduce_pipe.c, and the pipe bcast's, coll_bcast_shm.c), or where
 * they do not one staging buffer of COURIER_COLL_STAGE_BYTES (the stage
 * algorithms', coll_stage.c).
 *
 * The non-blocking and persistent calls' state machines (coll_nbshm.c) have
 * a second, smaller set of the rings below in the same mapping, with a
 * sequence and counters of their own (coll_shm_t.nb, a view that every
 * cshm_* helper takes as it takes an area), so that blocking and
 * non-blocking calls may come in different orders on different ranks.
 *
 * Calls.  Every call on the area takes the next sequence number n (all ranks
 * call a communicator's collectives in the same order, so they agree) and uses
 * control line n % nline, cell n % ncell and data slot n % CSHM_NBUF of
 * every rank.  A control line's first word is its owner's progress in the call that last used it,
 * step = n << 8 | phase, written only by the owner and only upwards; the rest
 * of the line carries up to CSHM_INLINE bytes of data or the addresses that
 * peers copy from.  A rank publishes with one release store of its step
 * (cshm_post) and waits for a peer's step with the progress engine's waiting
 * policy (cshm_wait): spin, then yield on every idle poll, then sleep on the
 * doorbell, woken by the rank it waits for when that one posts (a waiter
 * past its spin phase writes whom it waits for in the area's waitfor words,
 * so a post wakes only its own waiters).  With more ranks than cores the
 * waiter spins COURIER_COLL_SHM_SPIN polls and yields COURIER_COLL_SHM_SLEEP_US
 * (0) before it sleeps: the rank it waits for is most likely descheduled, and
 * yielding to it through the other ranks of its core costs a context switch
 * each.  There, too, the all-rank collectives (barrier, allreduce,
 * allgather, alltoall, reduce_scatter) meet at one arrival counter
 * (cshm_meet, COURIER_COLL_SHM_MEET): the last rank to arrive releases and
 * wakes the others, so each waits once per call; so do the single-copy
 * algorithms' phases (cshm_post_all, cshm_fin_all), and the root of a rooted
 * single copy waits on one count of its own line that the last reader
 * completes (cshm_wait_done).  Every call posts at least once, and ends
 * with CSHM_FIN posted (the rank no longer reads anything of that call) or,
 * where nobody waits for that FIN within the call, ends without it
 * (cshm_post_once: its one post was its data's): the rank's first post in
 * its next call says that it finished this one.  So a rank's lines for
 * calls m and m + 1 show whether it finished m (cshm_claim_slow relies on
 * it).  Before a rank writes its slot for call n it makes
 * sure that every rank finished call n - CSHM_NBUF, the slot's last user
 * (cshm_claim: nearly always known already, since a rank that saw every rank
 * post in call m knows they all finished m - 1); a call whose data all fit
 * in the line only needs call n - nline finished, one whose data fit a cell
 * call n - ncell (cshm_claim_data; cshm_data says where data go).  So a
 * root of small rooted collectives (bcast, scatter) runs up to nline calls
 * (ncell with data in cells) ahead of its slowest reader, and the contributors of small reduces and
 * gathers as far ahead of the root: nobody waits for a rank that is not
 * scheduled until the ring is full, as with eager messages.
 *
 * The same algorithms serve as the node phase of a hierarchical collective:
 * their entry points (coll_<x>_shm/cma, coll.h) take any intracommunicator
 * whose ranks share a node, such as a node's sub-communicator. */
#ifndef COURIER_COLL_SHM_H
#define COURIER_COLL_SHM_H
#include <string.h>
#include "coll/coll.h"

enum {
    CSHM_NBUF = 4,       /* data slots per rank: calls whose slots may be in use at once */
    CSHM_PIPE_NBUF = 4,  /* pipe buffers per rank: call n uses buffer n % CSHM_PIPE_NBUF */
    CSHM_LINE = 64,
    CSHM_INLINE = 56,    /* data bytes that travel in the control line itself */
};
/* Phases of a call (the low byte of a step). */
enum { CSHM_POSTED = 1, CSHM_READY = 2, CSHM_FIN = 0xff };

/* A control line: the owner's step and CSHM_INLINE bytes of data (w). */
typedef struct {
    volatile uint64_t step;
    uint64_t w[7];
} cshm_ctl_t;
_Static_assert(sizeof(cshm_ctl_t) == CSHM_LINE, "a control line is one cache line");

enum { CSHM_UNKNOWN = 0, CSHM_OK = 1, CSHM_NONE = -1 };

/* This process's view of a communicator's area (cr_comm_t.coll_shm). */
typedef struct coll_shm {
    int state;                  /* CSHM_UNKNOWN until made, CSHM_OK, or CSHM_NONE for good */
    int cma;                    /* single copy works between every pair (after making) */
    int p, me;                  /* communicator size and rank */
    uint64_t seq;               /* sequence number of the last call */
    uint64_t safe;              /* every rank finished every call <= safe */
    uint64_t nline;             /* control lines per rank (a power of two >= CSHM_NBUF) */
    uint64_t ncell;             /* cells per rank (a power of two, CSHM_NBUF .. nline) */
    size_t slot_bytes;
    size_t cell_bytes;          /* data bytes of a cell (a multiple of CSHM_LINE; 0: none) */
    char *base;                 /* the mapping */
    size_t bytes;
    volatile uint32_t *sleepers;   /* ranks waiting past their spin phase */
    volatile uint32_t *waitfor;    /* per rank, while it waits past its spin
                                    * phase: whom for (CSHM_WF_*, r + 1: rank r's
                                    * line), so a poster wakes only its waiters */
    volatile uint64_t *arrivals;   /* meetings: arrivals so far (cshm_meet) */
    volatile uint64_t *release;    /* meetings: [0] meetings completed, [1] the
                                    * rank that arrived last at the latest */
    int meet;                   /* the all-rank collectives meet at the counter
                                 * (rank 0's choice: COURIER_COLL_SHM_MEET) */
    uint64_t sleep_ns;          /* a waiter's yield phase (cr_wait_t.sleep_ns) */
    unsigned spin_skip;         /* polls of the spin phase a waiter skips */
    unsigned word_polls;        /* loads of the awaited word before a wait's first
                                 * progress poll (COURIER_COLL_SHM_WORD_POLLS; 0 where
                                 * ranks outnumber cores) */
    const volatile uint64_t *info; /* per rank, one line: pid, probe address */
    cshm_ctl_t *ctl;            /* p x nline control lines */
    char *slots;                /* p x CSHM_NBUF slots */
    char *cells;                /* p x ncell cells */
    char *pipe;                 /* p x CSHM_PIPE_NBUF pipe buffers (coll_reduce_pipe.c,
                                 * coll_bcast_shm.c), or NULL */
    size_t pipe_bytes;          /* bytes of a pipe buffer (0: none; rank 0's
                                 * COURIER_COLL_REDUCE_PIPE_BUF_BYTES where ranks
                                 * outnumber cores) */
    char *stage;                /* p staging buffers (coll_stage.c), or NULL */
    size_t stage_bytes;         /* bytes of one (0: none; rank 0's
                                 * COURIER_COLL_STAGE_BYTES where ranks do not
                                 * outnumber cores) */
    uint64_t stage_last;        /* the last call that wrote the staging buffers
                                 * (0: none); it ended with FIN on every rank */
    int *bell;                  /* comm rank -> node-local index (doorbells) */
    struct coll_hier *hier;     /* the node layer of a communicator that spans nodes
                                 * (coll_hier.c), NULL until first considered */
    /* The non-blocking and persistent calls' own sequence (coll_nbshm.c): a
     * second set of rings in the same mapping, made with the first, seen
     * through a coll_shm_t of its own (its seq, safe, lines, cells, slots,
     * sleepers and waitfor words; it never meets), so that a blocking call
     * and a non-blocking one may pass each other (one rank starts the
     * non-blocking call before a blocking one, another after it).  NULL
     * until the area is made, and in the view itself. */
    struct coll_shm *nb;
    /* Non-blocking and persistent-init calls this rank made on the
     * communicator (counted by coll_nbc.c whatever path they took), and
     * the largest count any rank had when the area was made: the calls
     * numbered above it take the state machines (coll_nbshm_ready), so that
     * every rank picks the same path for the same call even where the call
     * and the blocking call that made the area came in different orders. */
    uint64_t nb_calls, nb_from;
    /* In the view: the calls this rank started and has not finished, oldest
     * first; only the oldest moves, so this rank finishes the view's calls in
     * its sequence order (what safe and cshm_claim_slow rest on). */
    struct coll_nbshm *nb_head, *nb_tail;
    unsigned nb_pending;        /* how many (coll_shm_unlocked reads it) */
    int nb_announced;           /* counted among the view's sleepers for a sleep of the
                                 * waiting policy (coll_nbshm_announce) */
    struct coll_shm *nb_next_announced;
    /* Threads (coll.c, coll_call_mt; docs/threads.md, "Collectives on
     * distinct communicators"): unlocked_ok is set (release) under the
     * library lock once the area is made, after a call that also made this
     * process's first-use selection data of the communicator; from then on a
     * blocking call whose algorithm runs on the area takes no library lock,
     * and sets `unlocked` for its duration, so that its waits poll only the
     * area and the communicator's channel (`chan`, NULL while the channel
     * locks are off) instead of the whole progress engine.  Only the thread
     * that calls the communicator's collectives touches `unlocked`. */
    int unlocked_ok;
    int unlocked;
    struct cr_chan *chan;
    /* coll_select's last choice per collective once the area exists
     * (coll_select.c, "memo") */
    coll_memo_t memo[COLL_NCOLL];
} coll_shm_t;

/* comm's area when a blocking call on it may run without the library lock:
 * made and published (unlocked_ok), and no non-blocking call of this rank on
 * it unfinished (those are the progress engine's, under the library lock;
 * the engine's last touch of the view is the release that counts one
 * finished, so nothing it wrote is missed).  They run in the view of their
 * own sequence (nb), which the blocking call does not touch, so this is
 * caution rather than need: such a call takes the lock, as before.  NULL
 * otherwise. */
static inline coll_shm_t *coll_shm_unlocked(const cr_comm_t *c)
{
    coll_shm_t *a = __atomic_load_n((coll_shm_t *const *)&c->coll_shm, __ATOMIC_ACQUIRE);
    if (!a || !__atomic_load_n(&a->unlocked_ok, __ATOMIC_ACQUIRE)) return NULL;
    return __atomic_load_n(&a->nb->nb_pending, __ATOMIC_ACQUIRE) == 0 ? a : NULL;
}
/* After a blocking call under the library lock (held): publish comm's area
 * for calls without it, when it is made. */
void coll_shm_publish_unlocked(cr_comm_t *c);

/* May comm's collectives use the node's shared memory: an intracommunicator
 * of at least two ranks, all on this node, with COURIER_COLL_SHM on and no
 * failed attempt to make its area; with need_cma also single copy between
 * every pair (assumed until the area is made).  Local and cheap after the
 * first call; every rank gets the same answer. */
int coll_shm_usable(const cr_comm_t *c, int need_cma);
/* comm's collective state (this process's view, made on first sight without
 * any communication), NULL when out of memory; freed with the communicator. */
coll_shm_t *coll_shm_state(cr_comm_t *c);
/* A small collective over c through a schedule: bcast of n ints from rank 0,
 * or (allreduce) their minimum everywhere. */
int coll_shm_small_coll(cr_comm_t *c, int *v, int n, int allreduce);
/* The bytes of comm's pipe buffers: its area's once made, else what rank 0
 * will make them (the same on every rank: the setting where ranks outnumber
 * cores, else 0). */
size_t coll_shm_pipe_bytes(const cr_comm_t *c);
/* The bytes of comm's staging buffers, as coll_shm_pipe_bytes (the setting
 * where ranks do not outnumber cores, else 0). */
size_t coll_shm_stage_bytes(const cr_comm_t *c);
/* The largest payload of a slot (the same on every rank). */
size_t coll_shm_slot_cap(void);
/* comm's area, made on first use: collective over comm (every rank calls it
 * from the same collective call).  NULL on every rank when it cannot be made;
 * coll_shm_usable() then says no for good and the caller falls back. */
coll_shm_t *coll_shm_area(cr_comm_t *c);

/* ---- one call ------------------------------------------------------------------ */
static inline uint64_t cshm_begin(coll_shm_t *a)
{
    return ++a->seq;
}
static inline uint64_t cshm_step(uint64_t n, int phase)
{
    return n << 8 | (uint64_t)phase;
}
/* Rank (me + k) mod p for 0 <= k < p, without a division: the loops over
 * the peers compute it right before they wait on that rank's line, and an
 * integer division's latency (some 20-40 cycles) would sit on every
 * hand-over of a small call (the idivl in a 2-rank gather's root). */
static inline int cshm_peer(int me, int k, int p)
{
    int r = me + k;
    return r >= p ? r - p : r;
}
static inline cshm_ctl_t *cshm_ctl(const coll_shm_t *a, int r, uint64_t n)
{
    return &a->ctl[(size_t)r * a->nline + (n & (a->nline - 1))];
}
static inline char *cshm_slot(const coll_shm_t *a, int r, uint64_t n)
{
    return a->slots + ((size_t)r * CSHM_NBUF + n % CSHM_NBUF) * a->slot_bytes;
}
/* Rank r's pipe buffer for call n (a->pipe set); written after every rank
 * finished call n - CSHM_PIPE_NBUF (cshm_claim_depth). */
static inline char *cshm_pipe(const coll_shm_t *a, int r, uint64_t n)
{
    return a->pipe + ((size_t)r * CSHM_PIPE_NBUF + n % CSHM_PIPE_NBUF) * a->pipe_bytes;
}
/* Rank r's staging buffer (a->stage set); a call writes its own after
 * every rank finished the last call that wrote one (coll_stage.c,
 * stage_claim). */
static inline char *cshm_stage(const coll_shm_t *a, int r)
{
    return a->stage + (size_t)r * a->stage_bytes;
}
static inline char *cshm_cell(const coll_shm_t *a, int r, uint64_t n)
{
    return a->cells + ((size_t)r * a->ncell + (n & (a->ncell - 1))) * a->cell_bytes;
}
/* Where rank r's data of `bytes` for call n travel: in its control line (up
 * to CSHM_INLINE bytes), in its cell (up to cell_bytes), else in its slot. */
static inline char *cshm_data(const coll_shm_t *a, int r, uint64_t n, size_t bytes)
{
    if (bytes <= CSHM_INLINE) return (char *)cshm_ctl(a, r, n)->w;
    if (bytes <= a->cell_bytes) return cshm_cell(a, r, n);
    return cshm_slot(a, r, n);
}
/* Wait until every rank finished call n - depth (and learn how far they got). */
void cshm_claim_slow(coll_shm_t *a, uint64_t n, uint64_t depth);
/* Before writing this rank's slot for call n (or its line beyond the step):
 * wait until every rank finished call n - CSHM_NBUF, the slot's last user. */
static inline void cshm_claim(coll_shm_t *a, uint64_t n)
{
    if (CR_UNLIKELY(n > CSHM_NBUF && a->safe < n - CSHM_NBUF)) cshm_claim_slow(a, n, CSHM_NBUF);
}
/* cshm_claim_depth without waiting (the non-blocking calls' state
 * machines): 1 when every rank finished call n - depth (then as
 * cshm_claim_slow, it records how far they got), else 0 and *behind is a
 * rank that did not (the one to wait for). */
int cshm_claim_ready(coll_shm_t *a, uint64_t n, uint64_t depth, int *behind);
/* The depth cshm_claim_data claims for data of `bytes` (line, cell, slot). */
static inline uint64_t cshm_data_depth(const coll_shm_t *a, size_t bytes)
{
    return bytes <= CSHM_INLINE ? a->nline : bytes <= a->cell_bytes ? a->ncell : CSHM_NBUF;
}
/* Has rank r reached `phase` of call n (acquire, as cshm_wait)? */
static inline int cshm_reached(const coll_shm_t *a, int r, uint64_t n, int phase)
{
    return __atomic_load_n(&cshm_ctl(a, r, n)->step, __ATOMIC_ACQUIRE) >= cshm_step(n, phase);
}
/* Before writing only this rank's line (beyond its step) for call n, or
 * its cell (depth ncell): wait until every rank finished call n - depth, the
 * last user. */
static inline void cshm_claim_depth(coll_shm_t *a, uint64_t n, uint64_t depth)
{
    if (CR_UNLIKELY(n > depth && a->safe < n - depth)) cshm_claim_slow(a, n, depth);
}
/* What a rank waiting past its spin phase waits for (coll_shm_t.waitfor):
 * nothing, a meeting's release, or (r + 1) rank r's line. */
enum { CSHM_WF_NONE = 0, CSHM_WF_RELEASE = 0xffffffffu };
/* Wake the ranks that wait past their spin phase for `tag` (only called when
 * one does). */
void cshm_wake(coll_shm_t *a, uint32_t tag);
/* Publish this rank's progress in call n (release: what it wrote before is
 * visible to whoever sees the step). */
static inline void cshm_post(coll_shm_t *a, uint64_t n, int phase)
{
    __atomic_store_n(&cshm_ctl(a, a->me, n)->step, cshm_step(n, phase), __ATOMIC_RELEASE);
    /* the sleepers count is read after the store: a sleeper's membarrier orders
     * the two (src/transport/shm/shm.h, doorbells); the compiler must not swap them */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (CR_UNLIKELY(*a->sleepers != 0)) cshm_wake(a, (uint32_t)a->me + 1);
}
/* The last post of a call n that ends without FIN (its data and phase, in
 * a call where no rank waits for this rank's FIN): the others learn that
 * this rank finished n from its first post in its next call (coll_shm.c,
 * finished).  So each rank of a two-rank allreduce writes one line per call
 * where it wrote it twice, and the FIN's invalidation of the copy the peer
 * had just read no longer comes, in store order, before the next call's
 * post.  Meanwhile this rank takes its line for call n + 1 for writing
 * (a write prefetch: it holds call n + 1 - nline's step, which the peers
 * read), so that the next post finds it in its cache, not shared. */
static inline void cshm_post_once(coll_shm_t *a, uint64_t n, int phase)
{
    cshm_post(a, n, phase);
#if defined(__x86_64__) || defined(__i386__)
    /* PREFETCHW (a no-op on the few x86 processors without it); GCC emits it
     * for __builtin_prefetch(p, 1) only where the target says it has it */
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)cshm_ctl(a, a->me, n + 1)));
#else
    __builtin_prefetch(cshm_ctl(a, a->me, n + 1), 1);
#endif
}
/* A reader of rooted call n (bcast, scatter) done with the root's line:
 * ask for the root's line for call n + 1 now (a read prefetch).  In a run of
 * calls from one root that runs ahead, that line is then on its way while
 * this call copies out and returns, where the next call would wait a whole
 * line hand-over for it.  Where the root has not written it yet the
 * prefetch finds this rank's own copy from call n + 1 - nline (nothing
 * moves), or fetches a line the root's write must take back, as it must
 * take back that old copy otherwise. */
static inline void cshm_prefetch_next(const coll_shm_t *a, int r, uint64_t n)
{
    __builtin_prefetch(cshm_ctl(a, r, n + 1), 0);
}
/* Publish this rank's progress in call n where nobody waits for it (every
 * rank of a meeting learns it from the meeting): no wake-up. */
static inline void cshm_mark(coll_shm_t *a, uint64_t n, int phase)
{
    __atomic_store_n(&cshm_ctl(a, a->me, n)->step, cshm_step(n, phase), __ATOMIC_RELEASE);
}
/* A meeting of every rank in call n (areas with meet set): this rank arrives
 * at the counter; the last to arrive stores the release and wakes the
 * sleepers, the others wait for it (one wait, on one word, so each sleeps at
 * most once, where waiting for every rank's line in turn could wake a rank
 * p - 1 times).  Everything every rank wrote before arriving is visible to
 * every rank after it; records that every rank finished call n - 1. */
void cshm_meet(coll_shm_t *a, uint64_t n);
/* cshm_meet in parts, for a last arrival that works before it releases:
 * arrive (1 when this rank is the last; *gen: the meeting's number), then
 * the last releases and the others await the release, which returns the
 * rank that released. */
int cshm_arrive(coll_shm_t *a, uint64_t *gen);
void cshm_release(coll_shm_t *a, uint64_t gen);
int cshm_await(coll_shm_t *a, uint64_t gen);
/* Post `phase` in call n; on an area whose ranks meet, also wait until
 * every rank posted it (then the waits for their posts that follow cost a
 * load each). */
static inline void cshm_post_phase_all(coll_shm_t *a, uint64_t n, int phase)
{
    if (a->meet) {
        cshm_mark(a, n, phase);
        cshm_meet(a, n);
    } else {
        cshm_post(a, n, phase);
    }
}
/* cshm_post_phase_all of CSHM_POSTED: the all-rank algorithms (allgather,
 * alltoall, reduce_scatter, and the single-copy ones) publish their data or
 * their buffers' addresses with it. */
static inline void cshm_post_all(coll_shm_t *a, uint64_t n)
{
    cshm_post_phase_all(a, n, CSHM_POSTED);
}
/* The end of an all-rank single-copy call n: this rank reads and writes
 * nothing of the call any more, and its own buffers are read or written by
 * the others until every rank is there.  Posts CSHM_FIN and waits for every
 * rank's; on an area whose ranks meet, one meeting instead (each rank sleeps
 * at most once, where waiting for every rank's line in turn could wake it
 * p - 1 times).  Records that every rank finished call n. */
void cshm_fin_all(coll_shm_t *a, uint64_t n);
/* Rooted single copy (bcast, scatter, gather): the root's buffer is read or
 * written by the others until each posts CSHM_FIN.  On an area whose ranks
 * meet they also count themselves done in word CSHM_W_DONE of the root's
 * line for the call (the root zeroes it before it posts: cshm_done_open), and
 * the one that completes the count wakes the root, so the root sleeps at
 * most once per call instead of once per rank it waits for. */
enum { CSHM_W_DONE = 5 };   /* below CSHM_BCAST_BYTES: a cma bcast root's line holds both */
static inline void cshm_done_open(coll_shm_t *a, uint64_t n)
{
    cshm_ctl(a, a->me, n)->w[CSHM_W_DONE] = 0;
}
/* A non-root rank is done with call n of root `root` (posts CSHM_FIN). */
void cshm_done(coll_shm_t *a, int root, uint64_t n);
/* The root waits until every other rank is done with call n; records that
 * they all finished it. */
void cshm_wait_done(coll_shm_t *a, uint64_t n);
/* Before writing this rank's data of `bytes` for call n (cshm_data). */
static inline void cshm_claim_data(coll_shm_t *a, uint64_t n, size_t bytes)
{
    if (bytes <= CSHM_INLINE) cshm_claim_depth(a, n, a->nline);
    else if (bytes <= a->cell_bytes) cshm_claim_depth(a, n, a->ncell);
    else cshm_claim(a, n);
}
/* Wait, with the waiting policy, until *w >= target. */
void cshm_wait_slow(coll_shm_t *a, volatile uint64_t *w, uint64_t target);
/* Wait until rank r reached `phase` of call n (acquire: what r wrote before
 * posting it is visible). */
static inline void cshm_wait(coll_shm_t *a, int r, uint64_t n, int phase)
{
    volatile uint64_t *w = &cshm_ctl(a, r, n)->step;
    uint64_t t = cshm_step(n, phase);
    if (CR_UNLIKELY(__atomic_load_n(w, __ATOMIC_ACQUIRE) < t)) cshm_wait_slow(a, w, t);
}
/* Wait until every other rank reached `phase` of call n; records that they
 * all finished call n - 1. */
void cshm_wait_all(coll_shm_t *a, uint64_t n, int phase);
/* Bcast (shm and cma alike): the root's byte count travels in this word of its
 * control line, so each reader checks its own against it (its data then go
 * inline only up to CSHM_INLINE - 8 bytes).  cshm_bcast_length: MPI_SUCCESS
 * when they agree, else MPI_ERR_TRUNCATE (the root sent more) or
 * MPI_ERR_OTHER (less), and the reader's buffer is left alone. */
enum { CSHM_BCAST_BYTES = 6 };
int cshm_bcast_length(uint64_t sent, const coll_args_t *a);
/* Where a split bcast's second half begins (a cache-line boundary). */
static inline size_t cshm_bcast_half(size_t bytes)
{
    return (bytes / 2) & ~(size_t)(CSHM_LINE - 1);
}
/* A cma root (which waits for its readers) marks its byte count with this bit,
 * so that a reader on either path that disagrees with it on the length, and
 * may therefore have taken the other algorithm, still ends the call the way
 * the root waits for (cshm_bcast_end): counted done for a cma root, FIN
 * alone for an shm root, whose line's word CSHM_W_DONE is data. */
#define CSHM_BCAST_CMA (1ull << 63)
/* A cma root of two ranks asks its reader to split the copy: the reader posts
 * CSHM_READY with its buffer's address in word 0 of its line and gets the
 * first half while the root puts the second, then waits for the root's
 * CSHM_READY (word 1 of the root's line nonzero: the put failed).  A reader
 * that does not split (another length, a non-contiguous buffer, the shm path)
 * posts only FIN, which the root's wait for CSHM_READY also takes. */
#define CSHM_BCAST_SPLIT (1ull << 62)
static inline void cshm_bcast_end(coll_shm_t *a, int root, uint64_t n, uint64_t sent)
{
    if (sent & CSHM_BCAST_CMA) cshm_done(a, root, n);
    else cshm_post(a, n, CSHM_FIN);
}

/* ---- data in slots ------------------------------------------------------------- */
/* Bytes from the first to the last byte of count elements of dt. */
static inline size_t cshm_span(MPI_Aint count, const cr_datatype_t *dt)
{
    MPI_Aint ext = dt->extent < 0 ? -dt->extent : dt->extent;
    return count > 0 ? (size_t)(count - 1) * (size_t)ext + (size_t)dt->true_extent : 0;
}
/* The buffer pointer whose count elements of dt lie in [raw, raw + span). */
static inline void *cshm_lay(void *raw, MPI_Aint count, const cr_datatype_t *dt)
{
    MPI_Aint ext = dt->extent < 0 ? -dt->extent : dt->extent;
    MPI_Aint shift = dt->extent < 0 && count > 0 ? (count - 1) * ext : 0;
    return (char *)raw + shift - dt->true_lb;
}
/* The largest dt->size * count that the reductions may put in a slot. */
static inline int cshm_fits_layout(MPI_Aint count, const cr_datatype_t *dt)
{
    return cshm_span(count, dt) <= coll_shm_slot_cap();
}

/* ---- single copy between the ranks' own buffers ----------------------------------- */
/* Copy len bytes from address raddr of rank r's memory to local, or from
 * local to raddr (the shm transport's get / put, cross-memory attach).
 * MPI_SUCCESS or an error naming what failed. */
int cshm_get(coll_shm_t *a, int r, uint64_t raddr, size_t len, void *local);
int cshm_put(coll_shm_t *a, int r, uint64_t raddr, size_t len, const void *local);

/* count elements of dt at buf as one packed run of bytes that peers may copy:
 * the buffer itself for contiguous types, else a packed temporary. */
typedef struct {
    char *p;                    /* the packed bytes */
    void *tmp;                  /* what to free */
} cshm_view_t;
int cshm_view(cshm_view_t *v, const void *buf, MPI_Aint count, const cr_datatype_t *dt);
void cshm_view_free(cshm_view_t *v);
/* Copy len bytes of rank r's packed run at raddr into the packed stream of
 * count elements of dt at buf, at stream offset off (straight into buf for
 * contiguous types, through a bounce buffer otherwise). */
int cshm_get_into(coll_shm_t *a, int r, uint64_t raddr, size_t len, void *buf, MPI_Aint count,
                  const cr_datatype_t *dt, size_t off);
/* The address at which count elements of a contiguous dt at buf begin. */
static inline uint64_t cshm_addr(const void *buf, const cr_datatype_t *dt)
{
    return (uint64_t)(uintptr_t)((const char *)buf + dt->true_lb);
}

/* The elements [lo, hi) of count that rank r of p handles when a vector is
 * cut into p slices (sizes differ by at most one). */
static inline void cshm_slice(MPI_Aint count, int p, int r, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint base = count / p, rem = count % p;
    *lo = (MPI_Aint)r * base + (r < rem ? r : rem);
    *hi = *lo + base + (r < rem ? 1 : 0);
}
/* How many ranks fold a single-copy reduction (Reduce, Allreduce) of count
 * elements of esz bytes, rank i < k taking slice i of k (cshm_slice): every
 * rank; or, on an area whose ranks meet (more ranks than cores, where folding
 * in parallel gains nothing beyond the cores and every slice costs a
 * cross-memory copy from every rank), as many as give slices of at least
 * COURIER_COLL_CMA_SLICE_MIN_BYTES (at least one).  The same on every rank. */
int cshm_folders(const coll_shm_t *a, MPI_Aint count, size_t esz);
/* Rank r's slice of a reduction that k ranks fold (empty when r >= k). */
static inline void cshm_fold_slice(MPI_Aint count, int k, int r, MPI_Aint *lo, MPI_Aint *hi)
{
    if (r < k) cshm_slice(count, k, r, lo, hi);
    else *lo = *hi = 0;
}
/* Reduce_scatter(_block): this rank's block (first element, count) of the
 * whole vector, and the vector's length in elements. */
static inline MPI_Aint cshm_rs_block(const coll_args_t *a, int p, int me, MPI_Aint *first,
                                     MPI_Aint *mine)
{
    MPI_Aint total = 0;
    *first = 0;
    *mine = a->rcount;
    for (int i = 0; i < p; i++) {
        MPI_Aint k = a->rcounts.p ? (MPI_Aint)cr_vec_get(a->rcounts, i) : a->rcount;
        if (i == me) {
            *first = total;
            *mine = k;
        }
        total += k;
    }
    return total;
}
/* A fold's association (CSHM_*: see cshm_fold_order below). */
enum { CSHM_RANK, CSHM_RECDBL, CSHM_BINOMIAL, CSHM_HALVING };
typedef struct {
    int how;
    int root;                   /* CSHM_BINOMIAL */
} cshm_order_t;
/* Single-copy reduction: fold elements [lo, hi) of every rank's operand of
 * call n in the association `order` (cshm_fold_order).  Rank i's operand is a contiguous dt vector at the
 * address it published in w[word] of its control line (waited for: posted);
 * this rank's is at `mine` (a buffer pointer).  The work goes in chunks of
 * COURIER_COLL_CMA_CHUNK_BYTES, each handed to out(ctx, x, k, acc): elements
 * x .. x+k-1 of the result, packed at acc.  Returns the first error (the
 * fold still runs to its end, so that the peers are not left waiting). */
typedef int (*cshm_chunk_fn)(void *ctx, MPI_Aint x, MPI_Aint k, const void *acc);
int cshm_fold_cma(coll_shm_t *a, uint64_t n, int word, const void *mine, const cr_op_t *op,
                  const cr_datatype_t *dt, MPI_Aint lo, MPI_Aint hi, cshm_chunk_fn out,
                  void *ctx, cshm_order_t order);

/* ---- what the algorithms share ------------------------------------------------------ */
/* Fold the p operands op(i) (i = 0 .. p-1, each count elements of dt in dt's
 * layout) into acc in rank order: acc = op(0) op op(1) op ... op op(p-1),
 * associated from the right.  acc may be one of them only if it is op(p-1). */
typedef const void *(*cshm_operand_fn)(void *ctx, int i);
void cshm_fold(const cr_op_t *op, cshm_operand_fn operand, void *ctx, int p, void *acc,
               MPI_Aint count, const cr_datatype_t *dt);

/* The association of a fold (docs/collectives.md, "Reduction order"): the
 * one MPICH's default algorithm for the call gives, so that floating-point
 * results are MPICH's bits.  With q the largest power of two <= p and
 * r = p - q, the *units* are (0 op 1), (2 op 3), ..., (2r-2 op 2r-1) and then
 * the single operands 2r .. p-1 (q units); tree(x_0 .. x_n-1) =
 * tree(x_0 .. x_m-1) op tree(x_m .. x_n-1), m the largest power of two < n.
 *   CSHM_RANK      right to left in rank order (cshm_fold);
 *   CSHM_RECDBL    tree(units): recursive doubling, and reduce-scatter +
 *                  allgather / gather by recursive halving from distance 1;
 *   CSHM_BINOMIAL  tree(root, root+1, ..., root-1 mod p): a binomial tree
 *                  rooted at `root`;
 *   CSHM_HALVING   tree(units in bit-reversed order): recursive halving from
 *                  distance q/2 (MPICH's reduce_scatter(_block)).
 * Operands stay in rank order within each op of RECDBL and HALVING, and of
 * BINOMIAL when root is 0, so non-commutative ops keep their meaning
 * (the enum and cshm_order_t are above, with cshm_fold_cma). */
/* cshm_fold in the association `order`.  Where the op's result cannot depend
 * on the association (a predefined op other than MPI_SUM and MPI_PROD, or
 * those two on integers) it is cshm_fold, the cheapest. */
void cshm_fold_order(const cr_op_t *op, cshm_operand_fn operand, void *ctx, int p, void *acc,
                     MPI_Aint count, const cr_datatype_t *dt, cshm_order_t order);
/* The associations of MPICH's default algorithms: Allreduce; Reduce of
 * count elements of dt to root (COURIER_COLL_REDUCE_SHORT_BYTES);
 * Reduce_scatter(_block). */
cshm_order_t cshm_order_allreduce(void);
cshm_order_t cshm_order_reduce(const cr_op_t *op, MPI_Aint count, const cr_datatype_t *dt,
                               int root, int p);
cshm_order_t cshm_order_reduce_scatter(const cr_op_t *op);
/* Pack count elements of dt at buf into dst (bytes: dt->size * count), and back. */
static inline void cshm_pack(const void *buf, MPI_Aint count, const cr_datatype_t *dt, void *dst)
{
    if (count <= 0) return;
    if (dt->contig) memcpy(dst, (const char *)buf + dt->true_lb, (size_t)count * (size_t)dt->size);
    else cr_dt_pack(buf, count, dt, dst);
}
static inline void cshm_unpack(const void *src, void *buf, MPI_Aint count, const cr_datatype_t *dt)
{
    if (count <= 0) return;
    if (dt->contig) memcpy((char *)buf + dt->true_lb, src, (size_t)count * (size_t)dt->size);
    else cr_dt_unpack(src, (size_t)count * (size_t)dt->size, buf, count, dt);
}
/* Copy between two buffers whose type signatures match (scount elements of
 * sdt at src, dcount of ddt at dst). */
void cshm_copy(const void *src, MPI_Aint scount, const cr_datatype_t *sdt, void *dst,
               MPI_Aint dcount, const cr_datatype_t *ddt);

/* The bytes a reduction operand of count elements of dt takes in the line,
 * cell or slot (cshm_claim_data).  Inline operands start 16 bytes into the
 * line (w + 1), aligned for every type an op is applied to in place (long
 * double, __int128): so they may take 8 bytes less than other data. */
static inline size_t cshm_operand_bytes(MPI_Aint count, const cr_datatype_t *dt)
{
    size_t span = cshm_span(count, dt);
    return span <= CSHM_INLINE - 8 ? span : span > CSHM_INLINE ? span : CSHM_INLINE + 1;
}
/* Rank r's reduction operand of call n, count elements of dt in dt's layout:
 * in its control line, its cell or its slot (cshm_operand_bytes). */
static inline void *cshm_operand(const coll_shm_t *a, int r, uint64_t n, MPI_Aint count,
                                 const cr_datatype_t *dt)
{
    size_t bytes = cshm_operand_bytes(count, dt);
    void *raw = bytes <= CSHM_INLINE ? (void *)(cshm_ctl(a, r, n)->w + 1)
                                     : (void *)cshm_data(a, r, n, bytes);
    return cshm_lay(raw, count, dt);
}
/* cshm_fold's operands in the ranks' slots: operand i is element `first` on
 * of rank i's operand (this rank's own: `mine` when set), waited for
 * (phase) before it is used. */
typedef struct {
    coll_shm_t *a;
    uint64_t n;
    MPI_Aint count;             /* elements in each rank's operand */
    const cr_datatype_t *dt;
    int phase;
    const void *mine;
    MPI_Aint first;
} cshm_slots_t;
const void *cshm_slot_operand(void *ctx, int i);
/* A fold's operands in the ranks' staging buffers (coll_stage.c), which,
 * like the slots, stay put during the fold. */
const void *cshm_stage_operand(void *ctx, int i);

#endif
