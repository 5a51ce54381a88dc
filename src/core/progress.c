/* SPDX-License-Identifier: MIT */
/* The progress engine: a registry of pollers (channels and their transports,
 * non-blocking collectives; later RMA and I/O register themselves) and the one
 * waiting policy that every blocking loop of the library uses (core.h). */
#define _GNU_SOURCE
#include "core/progress.h"
#include "core/threads.h"
#include "core/liveness.h"
#include "util/settings.h"

#include <poll.h>
#include <sched.h>
#include <time.h>

#define CR_MAX_POLLERS 16

static cr_poller_t *pollers[CR_MAX_POLLERS];
static int npollers;
int cr_progress_nactive;
int (*cr_wait_side)(void);
unsigned cr_wait_spin_limit = 1;
/* The transports whose doorbells wake this process (none: it never sleeps). */
static tr_iface_t *bells[CR_PROGRESS_MAX_BELLS];
static int nbells;
static int bells_off;            /* a waker could not ring: never sleep (until fini) */

static void sys_yield(void)
{
    sched_yield();
}

static uint64_t sys_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Block until one of fds is readable or max_us pass (no fds: a plain sleep). */
static int sys_block(struct pollfd *fds, int nfds, long max_us)
{
    struct timespec ts = { max_us / 1000000, (max_us % 1000000) * 1000 };
    return ppoll(fds, (nfds_t)nfds, &ts, NULL);
}

cr_wait_sys_t cr_wait_sys = { sys_yield, sys_now_ns, sys_block };
cr_wait_stats_t cr_wait_stats;

/* cr_progress_nactive changes under the library lock (or without threads);
 * the MPI_Recv fast path reads it without the lock, first of all its tests
 * (with threads it is never 0: init.c), so the change is one atomic store. */
static void nactive_add(int d)
{
    /* atomic: MPI_Recv's fast path reads it without the library lock, and a
     * channel's lock-free path may change it (docs/threads.md) */
    __atomic_fetch_add(&cr_progress_nactive, d, __ATOMIC_RELAXED);
}

void cr_progress_register(cr_poller_t *p)
{
    if (p->registered) return;
    if (npollers == CR_MAX_POLLERS) cr_abort_job(1, "too many progress pollers");
    pollers[npollers++] = p;
    p->registered = 1;
    if (p->active) nactive_add(1);
}

void cr_progress_unregister(cr_poller_t *p)
{
    if (!p->registered) return;
    for (int i = 0; i < npollers; i++)
        if (pollers[i] == p) {
            pollers[i] = pollers[--npollers];
            break;
        }
    p->registered = 0;
    if (p->active) nactive_add(-1);
}

void cr_poller_set_active(cr_poller_t *p, int active)
{
    active = active != 0;
    if (p->active == active) return;
    p->active = active;
    if (p->registered) nactive_add(active ? 1 : -1);
}

unsigned long cr_progress_events;

int cr_progress(void)
{
    int events = 0;
    for (int i = 0; i < npollers; i++) events += pollers[i]->poll(pollers[i]->arg);
    cr_progress_events += (unsigned)events;
    return events;
}

void cr_progress_init(int oversubscribed, tr_iface_t **wakers, int n)
{
    long spin = oversubscribed ? ut_settings.spin_count_oversubscribed : ut_settings.spin_count;
    cr_wait_spin_limit = spin > 0 ? (unsigned)spin : 1;
    /* threads: every idle poll lets the library lock go (cr_wait_idle_slow) */
    if (cr_threaded) cr_wait_spin_limit = 1;
    nbells = 0;
    bells_off = 0;
    for (int i = 0; i < n; i++)
        if (wakers[i]) cr_progress_add_waker(wakers[i]);
}

void cr_progress_net_polled(void)
{
    long cap = ut_settings.spin_count_network > 0 ? ut_settings.spin_count_network : 1;
    if (cr_wait_spin_limit > (unsigned long)cap) cr_wait_spin_limit = (unsigned)cap;
}

void cr_progress_add_waker(tr_iface_t *tr)
{
    if (bells_off) return;
    for (int i = 0; i < nbells; i++)
        if (bells[i] == tr) return;
    if (!(tr->caps.flags & TR_CAP_SLEEP) || nbells == CR_PROGRESS_MAX_BELLS) {
        /* a peer's message could not wake a sleeper (nbells atomic: a
         * channel's waiting thread reads it without the library lock) */
        __atomic_store_n(&nbells, 0, __ATOMIC_RELEASE);
        bells_off = 1;
        return;
    }
    bells[nbells] = tr;
    __atomic_store_n(&nbells, nbells + 1, __ATOMIC_RELEASE);
}

void cr_progress_fini(void)
{
    while (npollers) cr_progress_unregister(pollers[npollers - 1]);
    nbells = 0;
    bells_off = 0;
}

int cr_progress_can_sleep(void)
{
    if (!nbells || ut_settings.wait_sleep_us < 0) return 0;
    /* threads: a thread of this process wakes the others through the one
     * doorbell's sleep_wake (threads.c); a sleep in poll() on several
     * doorbells' descriptors could not be ended that way, so threads sleep
     * only on a single doorbell without a descriptor (shm's futex), and
     * yield otherwise */
    if (cr_threaded && (nbells != 1 || bells[0]->ops->sleep_fd(bells[0]) >= 0)) return 0;
    for (int i = 0; i < npollers; i++)
        if (pollers[i]->can_sleep && !pollers[i]->can_sleep(pollers[i]->arg)) return 0;
    return 1;
}

void cr_progress_wake_sleepers(void)
{
    for (int i = 0; i < nbells; i++) bells[i]->ops->sleep_wake(bells[i]);
}

/* The longest single sleep: COURIER_WAIT_SLEEP_MAX_US, and short enough that
 * the liveness checks still run every COURIER_LIVENESS_MS. */
static long sleep_max_us(void)
{
    long max = ut_settings.wait_sleep_max_us;
    long live = ut_settings.liveness_ms * 1000;
    return live > 0 && live < max ? live : max;
}

/* Take back the announcements of the first n doorbells. */
static void bells_cancel(int n)
{
    for (int i = 0; i < n; i++) bells[i]->ops->sleep_cancel(bells[i]);
}

/* Announce the sleep on every doorbell: 0, or -1 with nothing announced when
 * one of them cannot wake this process now. */
static int bells_prepare(void)
{
    for (int i = 0; i < nbells; i++)
        if (bells[i]->ops->sleep_prepare(bells[i]) != 0) {
            bells_cancel(i);
            return -1;
        }
    return 0;
}

/* Sleep until a doorbell rings, at most max_us.  One doorbell without a
 * descriptor (shm's futex): its own sleep_wait.  Otherwise poll() on the
 * descriptors the doorbells offer (sleep_fd); a doorbell without one cannot
 * end that wait, which then lasts at most COURIER_WAIT_SLEEP_POLL_US (the
 * caller polls and sleeps again).  Returns 0 when the time ran out with no
 * descriptor ready, else 1. */
static int bells_wait(long max_us)
{
    struct pollfd fds[CR_PROGRESS_MAX_BELLS];
    int nfds = 0;
    long cap = max_us;
    for (int i = 0; i < nbells; i++) {
        int fd = bells[i]->ops->sleep_fd(bells[i]);
        if (fd >= 0) fds[nfds++] = (struct pollfd){ .fd = fd, .events = POLLIN };
        else if (cap > ut_settings.wait_sleep_poll_us) cap = ut_settings.wait_sleep_poll_us;
    }
    if (nbells == 1 && nfds == 0) {
        bells[0]->ops->sleep_wait(bells[0], max_us);
        return 1;
    }
    int ready = cr_wait_sys.block(fds, nfds, cap);
    bells_cancel(nbells);
    return ready != 0;
}

/* Once idle for wait_sleep_us, sleep on the doorbells.  The announcement
 * comes first, then one more poll: a message sent before the announcement is
 * found by that poll, one sent after it rings a doorbell, so none is slept
 * through.  With threads the library lock is let go for the sleep: a thread
 * of this process that completes a request meanwhile rings the doorbell when
 * it lets the lock go (threads.c), so no wake-up is lost either; and a
 * process whose threads all sleep is woken by its peers' messages like a
 * single-threaded one.  A sleep that ran out with no doorbell rung returns 0
 * and leaves the loop idle: it sleeps again at its next idle poll.  Returns
 * -1 when it did not sleep, else as cr_wait_idle_sleep. */
static int wait_sleep(cr_wait_t *w, uint64_t now, const int *quit, long max_us)
{
    if (!w->yielding) {
        w->yielding = 1;
        w->idle_since_ns = now;
        if (cr_wait_publish) cr_wait_publish(1);
        return -1;
    }
    uint64_t yield_ns = w->sleep_ns ? w->sleep_ns : (uint64_t)ut_settings.wait_sleep_us * 1000u;
    if (now - w->idle_since_ns < yield_ns ||
        !cr_progress_can_sleep() || bells_prepare() != 0)
        return -1;
    int events = cr_progress();
    if (events > 0 || (quit && __atomic_load_n(quit, __ATOMIC_ACQUIRE))) {
        bells_cancel(nbells);
        cr_wait_stats.sleep_aborts++;
        return events;
    }
    cr_wait_stats.sleeps++;
    int depth = cr_lib_release_all();   /* 0 without threads */
    int woken = bells_wait(max_us);
    cr_lib_reacquire(depth);
    if (woken) return 1;                /* look again, spinning */
    cr_wait_stats.sleep_timeouts++;
    return 0;
}

/* ---- the sleep of a thread waiting on one channel ---------------------------------
 * (pt2pt's channel path, p2p_api.c chan_wait_until): outside the library
 * lock, on the one doorbell a threaded process sleeps on (as
 * cr_progress_can_sleep allows threads).  bells[] and nbells change only at
 * set-up and when dynamic processes add the network, under the library lock;
 * nbells is read here atomically, and a network transport, once added,
 * keeps threads from sleeping (it has a descriptor or no doorbell). */
int cr_wait_bell_prepare(void)
{
    int n = __atomic_load_n(&nbells, __ATOMIC_ACQUIRE);
    if (n != 1 || ut_settings.wait_sleep_us < 0 || bells[0]->ops->sleep_fd(bells[0]) >= 0)
        return -1;
    return bells[0]->ops->sleep_prepare(bells[0]) != 0 ? -1 : 0;
}

void cr_wait_bell_cancel(void)
{
    bells[0]->ops->sleep_cancel(bells[0]);
}

void cr_wait_bell_sleep(long max_us)
{
    bells[0]->ops->sleep_wait(bells[0], max_us);
}

int cr_wait_idle_sleep(cr_wait_t *w, const int *quit)
{
    cr_liveness_check();
    return wait_sleep(w, cr_wait_sys.now_ns(), quit, sleep_max_us());
}

void (*cr_wait_publish)(int idle);

void cr_wait_leave(cr_wait_t *w)
{
    w->yielding = 0;
    if (cr_wait_publish) cr_wait_publish(0);
}

/* Past the spin phase: yield on every idle poll (letting the library lock go
 * with threads: another thread may be about to send what this one waits
 * for), and sleep once idle long enough (wait_sleep).  Every visit here also
 * gives the liveness checks their turn (liveness.h). */
static int idle_slow(cr_wait_t *w, uint64_t now, long max_us)
{
    cr_liveness_check();   /* at most every COURIER_LIVENESS_MS; may end the job */
    int r = wait_sleep(w, now, NULL, max_us);
    if (r >= 0) return r;
    cr_wait_stats.yields++;
    int depth = cr_lib_release_all();
    cr_wait_sys.yield();
    cr_lib_reacquire(depth);
    return 0;
}

int cr_wait_idle_slow(cr_wait_t *w)
{
    return idle_slow(w, cr_wait_sys.now_ns(), sleep_max_us());
}

/* The test calls' waiting state (core.h), and when the last test call that
 * went through the policy returned. */
cr_wait_t cr_test_wait = CR_WAIT_INIT;
static uint64_t test_last_ns;

void cr_wait_test_slow(void)
{
    cr_wait_t *w = &cr_test_wait;
    long gap_us = ut_settings.wait_test_gap_us;
    if (gap_us <= 0) {
        w->polls = 0;
        return;
    }
    uint64_t now = cr_wait_sys.now_ns();
    if (w->polls == cr_wait_spin_limit) {
        test_last_ns = now;      /* the end of a spin phase: see how soon the next call comes */
        return;
    }
    uint64_t gap = now - test_last_ns;
    if (gap > (uint64_t)gap_us * 1000u) {
        /* the caller worked since its last test call (or lost its core): no
         * yield now; after work longer than the policy's yield phase, back to
         * spinning */
        if (gap > (uint64_t)ut_settings.wait_sleep_us * 1000u) cr_wait_busy(w);
        test_last_ns = now;
        return;
    }
    long max = ut_settings.wait_test_sleep_max_us, cap = sleep_max_us();
    if (idle_slow(w, now, max < cap ? max : cap) > 0) cr_wait_busy(w);
    test_last_ns = cr_wait_sys.now_ns();
}

void cr_progress_wait(volatile int *flag)
{
    cr_wait_t w = CR_WAIT_INIT;
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) cr_wait_poll(&w);
    cr_wait_end(&w);
}
