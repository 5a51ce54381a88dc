/* SPDX-License-Identifier: MIT */
/* The progress engine: a registry of pollers (channels and their transports,
 * non-blocking collectives; later RMA and I/O register themselves) and the one
 * waiting policy that every blocking loop of the library uses (core.h). */
#define _GNU_SOURCE
#include "core/progress.h"
#include "core/threads.h"
#include "core/liveness.h"
#include "util/settings.h"

#include <sched.h>
#include <time.h>

#define CR_MAX_POLLERS 16

static cr_poller_t *pollers[CR_MAX_POLLERS];
static int npollers;
int cr_progress_nactive;
unsigned cr_wait_spin_limit = 1;
static tr_iface_t *bell;

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

cr_wait_sys_t cr_wait_sys = { sys_yield, sys_now_ns };
cr_wait_stats_t cr_wait_stats;

void cr_progress_register(cr_poller_t *p)
{
    if (p->registered) return;
    if (npollers == CR_MAX_POLLERS) cr_abort_job(1, "too many progress pollers");
    pollers[npollers++] = p;
    p->registered = 1;
    if (p->active) cr_progress_nactive++;
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
    if (p->active) cr_progress_nactive--;
}

void cr_poller_set_active(cr_poller_t *p, int active)
{
    active = active != 0;
    if (p->active == active) return;
    p->active = active;
    if (p->registered) cr_progress_nactive += active ? 1 : -1;
}

unsigned long cr_progress_events;

int cr_progress(void)
{
    int events = 0;
    for (int i = 0; i < npollers; i++) events += pollers[i]->poll(pollers[i]->arg);
    cr_progress_events += (unsigned)events;
    return events;
}

void cr_progress_init(int oversubscribed, tr_iface_t *b)
{
    long n = oversubscribed ? ut_settings.spin_count_oversubscribed : ut_settings.spin_count;
    cr_wait_spin_limit = n > 0 ? (unsigned)n : 1;
    /* threads: every idle poll lets the library lock go (cr_wait_idle_slow) */
    if (cr_threaded) cr_wait_spin_limit = 1;
    bell = b && (b->caps.flags & TR_CAP_SLEEP) ? b : NULL;
}

void cr_progress_fini(void)
{
    while (npollers) cr_progress_unregister(pollers[npollers - 1]);
    bell = NULL;
}

int cr_progress_can_sleep(void)
{
    if (!bell || ut_settings.wait_sleep_us < 0) return 0;
    for (int i = 0; i < npollers; i++)
        if (pollers[i]->can_sleep && !pollers[i]->can_sleep(pollers[i]->arg)) return 0;
    return 1;
}

void cr_progress_wake_sleepers(void)
{
    tr_iface_t *b = bell;
    if (b) b->ops->sleep_wake(b);
}

/* The longest single sleep: COURIER_WAIT_SLEEP_MAX_US, and short enough that
 * the liveness checks still run every COURIER_LIVENESS_MS. */
static long sleep_max_us(void)
{
    long max = ut_settings.wait_sleep_max_us;
    long live = ut_settings.liveness_ms * 1000;
    return live > 0 && live < max ? live : max;
}

/* Once idle for wait_sleep_us, sleep on the doorbell.  The announcement
 * comes first, then one more poll: a message sent before the announcement is
 * found by that poll, one sent after it rings the doorbell, so none is slept
 * through.  With threads the library lock is let go for the sleep: a thread
 * of this process that completes a request meanwhile rings the doorbell when
 * it lets the lock go (threads.c), so no wake-up is lost either; and a
 * process whose threads all sleep is woken by its peers' messages like a
 * single-threaded one.  Returns -1 when it did not sleep, else as
 * cr_wait_idle_sleep. */
static int wait_sleep(cr_wait_t *w, uint64_t now, const int *quit)
{
    if (!w->yielding) {
        w->yielding = 1;
        w->idle_since_ns = now;
        return -1;
    }
    if (now - w->idle_since_ns < (uint64_t)ut_settings.wait_sleep_us * 1000u ||
        !cr_progress_can_sleep() || bell->ops->sleep_prepare(bell) != 0)
        return -1;
    int events = cr_progress();
    if (events > 0 || (quit && __atomic_load_n(quit, __ATOMIC_ACQUIRE))) {
        bell->ops->sleep_cancel(bell);
        cr_wait_stats.sleep_aborts++;
        return events;
    }
    cr_wait_stats.sleeps++;
    int depth = cr_lib_release_all();   /* 0 without threads */
    bell->ops->sleep_wait(bell, sleep_max_us());
    cr_lib_reacquire(depth);
    return 1;      /* woken (or timed out): look again, spinning */
}

int cr_wait_idle_sleep(cr_wait_t *w, const int *quit)
{
    cr_liveness_check();
    return wait_sleep(w, cr_wait_sys.now_ns(), quit);
}

/* Past the spin phase: yield on every idle poll (letting the library lock go
 * with threads: another thread may be about to send what this one waits
 * for), and sleep once idle long enough (wait_sleep).  Every visit here also
 * gives the liveness checks their turn (liveness.h). */
int cr_wait_idle_slow(cr_wait_t *w)
{
    uint64_t now = cr_wait_sys.now_ns();
    cr_liveness_check();   /* at most every COURIER_LIVENESS_MS; may end the job */
    int r = wait_sleep(w, now, NULL);
    if (r >= 0) return r;
    cr_wait_stats.yields++;
    int depth = cr_lib_release_all();
    cr_wait_sys.yield();
    cr_lib_reacquire(depth);
    return 0;
}

void cr_progress_wait(volatile int *flag)
{
    cr_wait_t w = CR_WAIT_INIT;
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) cr_wait_poll(&w);
}
