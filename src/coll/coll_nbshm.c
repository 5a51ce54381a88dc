/* SPDX-License-Identifier: MIT */
/* Non-blocking and persistent collectives through the node's shared memory:
 * the shm algorithms of barrier, bcast, reduce, allreduce, gather and
 * allgather (coll_<x>_shm.c) cut into steps that the progress engine runs
 * (coll_nbc.c lists them like schedules).  A step either moves the call on
 * or finds that a peer is not there yet and returns; nothing here waits.
 *
 * Sequence.  The non-blocking calls have a sequence of their own, apart from
 * the blocking calls': rings of their own in the same area (coll_shm_t.nb, a
 * view with its own seq, safe, lines, cells, slots, sleepers and waitfor
 * words), so that a non-blocking call and a blocking one may be issued in
 * different orders on different ranks, as MPICH and Open MPI allow (their
 * non-blocking calls are message schedules with tags of their own): one
 * rank's MPI_Iallreduce before a barrier and another's after it are the same
 * call n of the view.  A call takes the view's next number when it starts
 * (MPI_Ixxx, or each MPI_Start of a persistent one); the non-blocking calls
 * among themselves come in the same order on every rank (MPI requires it),
 * so the numbers agree.  The view's bookkeeping (safe, cshm_claim_slow's
 * search) rests on each rank finishing the view's calls in sequence order:
 * the calls this rank started and has not finished wait on the view's queue
 * (coll_shm_t.nb_head), oldest first, and only the oldest moves.  A blocking
 * call does not wait for them (its own sequence is not behind them).
 * A call that finds the slot it writes still in use (cshm_claim_ready) waits
 * in its first step, like the blocking call's claim.
 *
 * Waking.  A rank whose waiting policy is about to sleep (MPI_Wait on such a
 * call, or any other wait, a blocking shm call's included) asks the poller
 * whether it may (coll_nbc.c, can_sleep): for the oldest call of each view
 * it says whom the call waits for in the view's waitfor word and counts
 * itself among the view's sleepers, as a blocking wait past its spin phase
 * does in the blocking part (cshm_wait_slow), so that the peer's cshm_post
 * in the view rings its doorbell; the policy's last poll comes after that,
 * then the sleep.  The words are the view's own, so a blocking shm wait of
 * the same rank, which may be under way (its waiting policy asks too), keeps
 * its own, and a post in either part wakes the rank.  The poll after the
 * sleep takes the announcement back.  A call that waits in its claim waits
 * for the first rank it found behind: that rank's FIN of the call that used
 * the slot last is a cshm_post (the view's calls never meet).
 *
 * When.  Only where the area already exists (made by an earlier blocking
 * call of the communicator): making it is a blocking exchange, which a
 * non-blocking call must not do.  The blocking call that made it may have
 * come before a non-blocking call on one rank and after it on another, so
 * the area's existence alone does not decide: every non-blocking call (and
 * persistent init) of the communicator is counted (coll_nbshm_count), the
 * making agrees on the largest count any rank had then (nb_from), and only
 * the calls counted beyond it take the machines, on every rank alike.  The
 * selection (coll_select_nb) takes the shm rows for calls whose data
 * fit a slot, and for bcast of any length where single copy works (its root
 * then publishes its buffer, coll_bcast_cma.c's protocol, split between two
 * ranks as there), and falls back to the schedules otherwise;
 * COURIER_COLL_NB_SHM=0 turns it off.  The calls run the algorithms of ranks that do not meet
 * (coll_shm.h): every rank posts in its line, also where the blocking calls
 * meet at the counter. */
#include <stdlib.h>
#include <string.h>
#include "coll/coll_shm_steps.h"
#include "util/settings.h"

struct coll_nbshm {
    struct coll_nbshm *next;    /* the area's queue */
    cr_comm_t *c;
    coll_kind_t coll;
    coll_args_t a;              /* the arguments (datatypes and op held) */
    uint64_t n;                 /* the call's sequence number while it runs */
    int step;                   /* NB_* */
    int r;                      /* peers 1 .. r-1 after this rank seen (gather, allgather) */
    int behind;                 /* a rank the claim waits for, -1: none */
    int err;
    cshm_view_t v;              /* bcast by single copy: the root's packed message */
};

/* Steps: before the claim; posted this rank's part and waiting for the
 * peers'; done; a split single-copy bcast's exchange of halves (between the
 * first two). */
enum { NB_CLAIM = 0, NB_PEERS = 1, NB_DONE = 2, NB_SPLIT = 3 };

static void unannounce(coll_shm_t *sh);   /* sleeping, below */

/* The claim of m's data of `depth` (cshm_claim_ready): 1 when free, else 0
 * and m->behind says whom it waits for. */
static int claim(coll_nbshm_t *m, coll_shm_t *sh, uint64_t depth)
{
    m->behind = -1;
    return cshm_claim_ready(sh, m->n, depth, &m->behind);
}

int coll_nbshm_fits(coll_kind_t coll, const cr_comm_t *c, const coll_args_t *a,
                    coll_fits_fn fits)
{
    /* bcast: every length where single copy works (bcast_by_cma), so that
     * root and readers take this path whatever their counts */
    if (coll == COLL_BCAST && ((const coll_shm_t *)c->coll_shm)->cma) return 1;
    return !fits || fits(c, a);
}

int coll_nbshm_ready(const cr_comm_t *c)
{
    const coll_shm_t *a = c->coll_shm;
    return ut_settings.coll_nb_shm && ut_settings.coll_shm && !c->remote && c->size > 1 && a &&
           a->state == CSHM_OK && a->nb_calls >= a->nb_from;
}

void coll_nbshm_count(cr_comm_t *c)
{
    if (c->remote) return;
    coll_shm_t *a = c->coll_shm ? c->coll_shm : coll_shm_state(c);
    if (a) a->nb_calls++;
}

/* Freed machines kept for the next call (as coll_nbc.c's entries; the
 * library's lock guards both). */
enum { NBSHM_CACHE = 8 };
static coll_nbshm_t *cache[NBSHM_CACHE];
static int ncache;

coll_nbshm_t *coll_nbshm_new(cr_comm_t *c, coll_kind_t coll, const coll_args_t *a)
{
    coll_nbshm_t *m = ncache ? cache[--ncache] : malloc(sizeof *m);
    if (!m) return NULL;
    memset(m, 0, sizeof *m);
    m->c = c;
    m->coll = coll;
    m->a = *a;
    if (m->a.dt) cr_dt_retain(m->a.dt);
    if (m->a.sdt) cr_dt_retain(m->a.sdt);
    if (m->a.rdt) cr_dt_retain(m->a.rdt);
    if (m->a.op) cr_op_retain((cr_op_t *)m->a.op);
    m->step = NB_DONE;
    return m;
}

void coll_nbshm_free(coll_nbshm_t *m)
{
    if (!m) return;
    cshm_view_free(&m->v);
    if (m->a.dt) cr_dt_release(m->a.dt);
    if (m->a.sdt) cr_dt_release(m->a.sdt);
    if (m->a.rdt) cr_dt_release(m->a.rdt);
    if (m->a.op) cr_op_release((cr_op_t *)m->a.op);
    if (ncache < NBSHM_CACHE) cache[ncache++] = m;
    else free(m);
}

int coll_nbshm_err(const coll_nbshm_t *m)
{
    return m->err;
}

/* The view of the non-blocking calls' sequence of m's communicator. */
static coll_shm_t *view(const coll_nbshm_t *m)
{
    return ((coll_shm_t *)m->c->coll_shm)->nb;   /* made: coll_nbshm_ready said so */
}

void coll_nbshm_begin(coll_nbshm_t *m)
{
    coll_shm_t *sh = view(m);
    m->n = cshm_begin(sh);
    m->step = NB_CLAIM;
    m->r = 1;
    m->behind = -1;
    m->err = MPI_SUCCESS;
    m->v.tmp = NULL;
    m->next = NULL;
    if (sh->nb_tail) sh->nb_tail->next = m;
    else sh->nb_head = m;
    sh->nb_tail = m;
    /* written under the library lock (with threads), read without it by
     * this thread (coll_shm_unlocked): no locked instruction needed */
    __atomic_store_n(&sh->nb_pending, sh->nb_pending + 1, __ATOMIC_RELAXED);
}

/* Have all ranks but this one reached `phase` of call n?  Looks at each once
 * more only from the first that had not (m->r). */
static int peers_at(coll_nbshm_t *m, coll_shm_t *sh, int phase)
{
    for (; m->r < sh->p; m->r++)
        if (!cshm_reached(sh, (sh->me + m->r) % sh->p, m->n, phase)) return 0;
    return 1;
}

/* ---- the machines: each returns NB_DONE, or the step it stopped at ---------------- */
static int barrier_step(coll_nbshm_t *m, coll_shm_t *sh)
{
    if (m->step == NB_CLAIM) {
        cshm_post(sh, m->n, CSHM_FIN);   /* reads nothing of the call: arriving is finishing */
        m->step = NB_PEERS;
    }
    if (!peers_at(m, sh, CSHM_FIN)) return NB_PEERS;
    if (sh->safe < m->n - 1) sh->safe = m->n - 1;
    return NB_DONE;
}

/* Does the root of a bcast of `bytes` take single copy (coll_bcast_cma.c's
 * protocol without the split): at COURIER_COLL_BCAST_CMA_MIN_BYTES, and
 * always above a slot. */
static int bcast_by_cma(const coll_shm_t *sh, size_t bytes)
{
    return sh->cma && (bytes > coll_shm_slot_cap() ||
                       bytes >= (size_t)ut_settings.coll_bcast_cma_min_bytes);
}

/* The root of a single-copy bcast: publish the buffer's address (a packed
 * copy's for a non-contiguous type) and the byte count marked CSHM_BCAST_CMA,
 * then wait until every reader posted FIN (they read the buffer until then). */
static int bcast_cma_root(coll_nbshm_t *m, coll_shm_t *sh)
{
    const coll_args_t *a = &m->a;
    uint64_t n = m->n;
    if (m->step == NB_CLAIM) {
        if (!claim(m, sh, CSHM_NBUF)) return NB_CLAIM;
        m->err = cshm_view(&m->v, a->rbuf, a->count, a->dt);
        /* two ranks on cores of their own: the root puts the second half while
         * the reader gets the first (coll_bcast_cma.c, CSHM_BCAST_SPLIT) */
        int split = !m->err && sh->p == 2 && !cr_proc.oversubscribed &&
                    ut_settings.cma_split_min > 0 && a->bytes >= (size_t)ut_settings.cma_split_min;
        cshm_done_open(sh, n);   /* readers count themselves there where ranks meet */
        cshm_ctl(sh, sh->me, n)->w[0] = m->err ? 0 : (uint64_t)(uintptr_t)m->v.p;
        cshm_ctl(sh, sh->me, n)->w[CSHM_BCAST_BYTES] =
            a->bytes | CSHM_BCAST_CMA | (split ? CSHM_BCAST_SPLIT : 0);
        cshm_post(sh, n, CSHM_POSTED);
        m->step = split ? NB_SPLIT : NB_PEERS;
    }
    if (m->step == NB_SPLIT) {
        /* the reader's address (CSHM_READY), or its FIN: it does not split */
        int reader = 1 - sh->me;
        if (!cshm_reached(sh, reader, n, CSHM_READY)) return NB_SPLIT;
        cshm_ctl_t *rl = cshm_ctl(sh, reader, n);
        if (__atomic_load_n(&rl->step, __ATOMIC_ACQUIRE) == cshm_step(n, CSHM_READY)) {
            size_t half = cshm_bcast_half(a->bytes);
            int e = cshm_put(sh, reader, rl->w[0] + half, a->bytes - half, m->v.p + half);
            cshm_ctl(sh, sh->me, n)->w[1] = e != MPI_SUCCESS;
            if (e && !m->err) m->err = e;
            cshm_post(sh, n, CSHM_READY);
        }
        m->step = NB_PEERS;
    }
    if (!peers_at(m, sh, CSHM_FIN)) return NB_PEERS;
    cshm_view_free(&m->v);
    if (sh->safe < n) sh->safe = n;
    cshm_post(sh, n, CSHM_FIN);
    return NB_DONE;
}

/* The root chooses the path by its own length; a reader follows the root's
 * mark, so that a reader whose count differs (an erroneous program, which
 * must get an error, not hang: coll_bcast_length) still meets it here. */
static int bcast_step(coll_nbshm_t *m, coll_shm_t *sh)
{
    const coll_args_t *a = &m->a;
    uint64_t n = m->n;
    int root = a->root;
    size_t at = cshm_bcast_place(a->bytes);
    if (sh->me == root && (m->step != NB_CLAIM || bcast_by_cma(sh, a->bytes)))
        return bcast_cma_root(m, sh);
    if (m->step == NB_SPLIT) {
        /* the reader of a split: the root's half is there once it posts READY */
        if (!cshm_reached(sh, root, n, CSHM_READY)) return NB_SPLIT;
        if (!m->err && cshm_ctl(sh, root, n)->w[1])
            m->err = cr_error(MPI_ERR_OTHER, "MPI_Ibcast: the root could not write the second "
                              "half of %zu bytes into this process's buffer", a->bytes);
        cshm_bcast_end(sh, root, n, cshm_ctl(sh, root, n)->w[CSHM_BCAST_BYTES]);
        return NB_DONE;
    }
    if (sh->me == root) {
        if (!claim(m, sh, cshm_data_depth(sh, at))) return NB_CLAIM;
        cshm_bcast_put(sh, n, a, at);   /* the blocking root's step */
        return NB_DONE;
    }
    if (!cshm_reached(sh, root, n, CSHM_POSTED)) return NB_CLAIM;
    uint64_t sent = cshm_ctl(sh, root, n)->w[CSHM_BCAST_BYTES];
    m->err = cshm_bcast_length(sent, a);
    if (!m->err && (sent & CSHM_BCAST_SPLIT) && a->dt->contig && cshm_ctl(sh, root, n)->w[0]) {
        /* publish where the message goes, get the first half; the root puts the second */
        uint64_t mine = cshm_addr(a->rbuf, a->dt);
        cshm_ctl(sh, sh->me, n)->w[0] = mine;
        cshm_post(sh, n, CSHM_READY);
        m->err = cshm_get(sh, root, cshm_ctl(sh, root, n)->w[0], cshm_bcast_half(a->bytes),
                          (void *)(uintptr_t)mine);
        return NB_SPLIT;
    }
    if (!m->err && (sent & CSHM_BCAST_CMA)) {
        uint64_t addr = cshm_ctl(sh, root, n)->w[0];
        m->err = addr ? cshm_get_into(sh, root, addr, a->bytes, a->rbuf, a->count, a->dt, 0)
                      : cr_error(MPI_ERR_OTHER,
                                 "MPI_Ibcast: the root could not publish its buffer");
    } else if (!m->err) {
        cshm_unpack(cshm_data(sh, root, n, at), a->rbuf, a->count, a->dt);
    }
    cshm_bcast_end(sh, root, n, sent);
    return NB_DONE;
}

static int reduce_step(coll_nbshm_t *m, coll_shm_t *sh)
{
    const coll_args_t *a = &m->a;
    uint64_t n = m->n;
    int me = sh->me;
    if (m->step == NB_CLAIM) {
        size_t bytes = cshm_operand_bytes(a->count, a->dt);
        if (!claim(m, sh, cshm_data_depth(sh, bytes))) return NB_CLAIM;
        if (me != a->root) {
            coll_copy(a->sbuf, cshm_operand(sh, me, n, a->count, a->dt), a->count, a->dt);
            cshm_post(sh, n, CSHM_FIN);
            return NB_DONE;
        }
        /* the root's own operand: in place, it is in recvbuf, which the fold overwrites */
        if (a->sbuf == MPI_IN_PLACE)
            coll_copy(a->rbuf, cshm_operand(sh, me, n, a->count, a->dt), a->count, a->dt);
        m->step = NB_PEERS;
    }
    if (!peers_at(m, sh, CSHM_FIN)) return NB_PEERS;
    cshm_slots_t o = { sh, n, a->count, a->dt, CSHM_FIN,
                       a->sbuf == MPI_IN_PLACE ? NULL : a->sbuf, 0 };
    cshm_fold_order(a->op, cshm_slot_operand, &o, sh->p, a->rbuf, a->count, a->dt,
                    cshm_order_reduce(a->op, a->count, a->dt, a->root, sh->p));
    cshm_post(sh, n, CSHM_FIN);
    return NB_DONE;
}

/* The three below run the blocking algorithms' steps (coll_shm_steps.h),
 * with a test where those wait. */
static int allreduce_step(coll_nbshm_t *m, coll_shm_t *sh)
{
    if (m->step == NB_CLAIM) {
        if (!claim(m, sh, CSHM_NBUF)) return NB_CLAIM;
        cshm_allreduce_put(sh, m->n, &m->a);
        cshm_post(sh, m->n, CSHM_POSTED);
        m->step = NB_PEERS;
    }
    if (!peers_at(m, sh, CSHM_POSTED)) return NB_PEERS;
    cshm_allreduce_fold(sh, m->n, &m->a);   /* every operand is there: it waits for none */
    cshm_post(sh, m->n, CSHM_FIN);
    return NB_DONE;
}

static int gather_step(coll_nbshm_t *m, coll_shm_t *sh)
{
    const coll_args_t *a = &m->a;
    if (sh->me != a->root) {
        if (!claim(m, sh, cshm_data_depth(sh, a->bytes))) return NB_CLAIM;
        cshm_gather_put(sh, m->n, a);
        return NB_DONE;
    }
    if (m->step == NB_CLAIM) {
        cshm_gather_own(sh, a);
        m->step = NB_PEERS;
    }
    return cshm_gather_take(sh, m->n, a, &m->r, 0) ? NB_DONE : NB_PEERS;
}

static int allgather_step(coll_nbshm_t *m, coll_shm_t *sh)
{
    if (m->step == NB_CLAIM) {
        if (!claim(m, sh, CSHM_NBUF)) return NB_CLAIM;
        cshm_allgather_put(sh, m->n, &m->a);
        cshm_post(sh, m->n, CSHM_POSTED);
        m->step = NB_PEERS;
    }
    if (!cshm_allgather_take(sh, m->n, &m->a, &m->r, 0)) return NB_PEERS;
    cshm_post(sh, m->n, CSHM_FIN);
    return NB_DONE;
}

int coll_nbshm_advance(coll_nbshm_t *m, int *moved)
{
    coll_shm_t *sh = view(m);
    *moved = 0;
    if (m->step == NB_DONE) return 1;
    if (sh->nb_head != m) return 0;   /* an older call of this rank goes first */
    int before = m->step, r = m->r;
    switch (m->coll) {
    case COLL_BARRIER: m->step = barrier_step(m, sh); break;
    case COLL_BCAST: m->step = bcast_step(m, sh); break;
    case COLL_REDUCE: m->step = reduce_step(m, sh); break;
    case COLL_ALLREDUCE: m->step = allreduce_step(m, sh); break;
    case COLL_GATHER: m->step = gather_step(m, sh); break;
    case COLL_ALLGATHER: m->step = allgather_step(m, sh); break;
    default:
        m->err = cr_error(MPI_ERR_INTERN, "%s has no shared-memory state machine",
                          coll_names[m->coll]);
        m->step = NB_DONE;
        break;
    }
    *moved = m->step != before || m->r != r;
    if (m->step != NB_DONE) return 0;
    sh->nb_head = m->next;
    if (!sh->nb_head) sh->nb_tail = NULL;
    if (!sh->nb_head && sh->nb_announced) unannounce(sh);   /* the area may go with its comm */
    m->next = NULL;
    /* the last touch of the view: a blocking call of the communicator's
     * thread without the library lock starts once it sees the count drop */
    __atomic_store_n(&sh->nb_pending, sh->nb_pending - 1, __ATOMIC_RELEASE);
    return 1;
}

int coll_nbshm_pending(const coll_nbshm_t *m)
{
    return m->step != NB_DONE;
}

/* ---- sleeping --------------------------------------------------------------------- */
static coll_shm_t *announced;   /* areas this rank announced itself on, linked */
static int announce_fresh;      /* the next poll is the policy's last before the sleep */

/* The rank the area's oldest call m waits for, or -1 when it cannot tell. */
static int waits_for(const coll_nbshm_t *m, const coll_shm_t *sh)
{
    if (m->step == NB_SPLIT) return 1 - sh->me;   /* two ranks: the other */
    if (m->step == NB_PEERS) return (sh->me + m->r) % sh->p;
    if (m->behind >= 0) return m->behind;         /* in its claim: the rank behind */
    if (m->coll == COLL_BCAST && sh->me != m->a.root) return m->a.root;
    if (m->coll == COLL_BARRIER || (m->coll == COLL_GATHER && sh->me == m->a.root))
        return (sh->me + m->r) % sh->p;   /* they claim nothing */
    return -1;
}

static void unannounce(coll_shm_t *sh)
{
    __atomic_store_n(&sh->waitfor[sh->me], CSHM_WF_NONE, __ATOMIC_RELAXED);
    __atomic_sub_fetch(sh->sleepers, 1, __ATOMIC_RELEASE);
    sh->nb_announced = 0;
    for (coll_shm_t **pp = &announced; *pp; pp = &(*pp)->nb_next_announced)
        if (*pp == sh) {
            *pp = sh->nb_next_announced;
            break;
        }
    sh->nb_next_announced = NULL;
}

int coll_nbshm_announce(coll_nbshm_t *m)
{
    coll_shm_t *sh = view(m);
    if (sh->nb_head != m || m->step == NB_DONE) return 1;   /* only the oldest waits */
    int r = waits_for(m, sh);
    if (r < 0) return 0;
    /* the word before the count, and both before the policy's last poll
     * (cshm_wait_slow: a poster that reads a stale tag is one whose post
     * that poll sees) */
    __atomic_store_n(&sh->waitfor[sh->me], (uint32_t)r + 1, __ATOMIC_RELAXED);
    if (!sh->nb_announced) {
        __atomic_add_fetch(sh->sleepers, 1, __ATOMIC_SEQ_CST);
        sh->nb_announced = 1;
        sh->nb_next_announced = announced;
        announced = sh;
    }
    announce_fresh = 1;
    return 1;
}

void coll_nbshm_polled(void)
{
    if (announce_fresh) {
        announce_fresh = 0;   /* the last poll before the sleep: keep it */
        return;
    }
    while (announced) unannounce(announced);
}
