/* SPDX-License-Identifier: MIT */
// sources: src/core/adapt.c
/* Unit test of the adaptive protocol choice (src/core/adapt.c) with made-up
 * observations:
 *   start: rendezvous, or eager when oversubscribed or forced;
 *   slow: a slow handshake, or a peer that had announced it sleeps, turns
 *         eager mode on; a fast one (at the threshold) turns it off;
 *   verdict: the published yield/sleep word, the queue and what the peer
 *         copied meanwhile tell a busy peer from a descheduled one (scripted
 *         observations, every case);
 *   probe: in eager mode one message per interval goes by rendezvous; a
 *          slow probe keeps eager mode and doubles the interval up to
 *          probe_max, a fast one returns to rendezvous;
 *   off and forced: observations change nothing. */
#include "core/adapt.h"

#include "unit_expect.h"

static cr_adapt_cfg_t cfg(int mode)
{
    cr_adapt_cfg_t c = { .mode = mode, .slow_ns = 200000, .probe_every = 8, .probe_max = 40 };
    return c;
}

/* An observation: the peer looked after look_ns; idle 1: it had published
 * its yield phase, 2: its sleep; queued: earlier rendezvous were unanswered. */
static cr_adapt_obs_t ob(uint64_t look_ns, int idle, int queued)
{
    cr_adapt_obs_t o = { .look_ns = look_ns, .peer_idle = idle != 0, .peer_slept = idle == 2,
                         .queued = (uint8_t)queued };
    return o;
}

static void see(cr_adapt_t *a, const cr_adapt_cfg_t *c, uint64_t look_ns, int slept)
{
    cr_adapt_obs_t o = ob(look_ns, slept ? 2 : 0, 0);
    cr_adapt_observe(a, c, &o);
}

/* How many of n adaptive-range messages choose the eager path. */
static int eager_of(cr_adapt_t *a, const cr_adapt_cfg_t *c, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++) k += cr_adapt_choose_eager(a, c);
    return k;
}

static void test_start(void)
{
    cr_adapt_t a;
    cr_adapt_cfg_t on = cfg(CR_ADAPT_AUTO), off = cfg(CR_ADAPT_OFF), force = cfg(CR_ADAPT_FORCE);
    cr_adapt_init(&a, &on, 0);
    EXPECT(!a.eager && eager_of(&a, &on, 100) == 0);
    cr_adapt_init(&a, &on, 1);
    EXPECT(a.eager);
    cr_adapt_init(&a, &off, 1);
    EXPECT(!a.eager && eager_of(&a, &off, 100) == 0);
    cr_adapt_init(&a, &force, 0);
    EXPECT(a.eager && eager_of(&a, &force, 100) == 100);
}

static void test_slow_fast(void)
{
    cr_adapt_cfg_t on = cfg(CR_ADAPT_AUTO);
    cr_adapt_t a;
    cr_adapt_init(&a, &on, 0);
    see(&a, &on, 5000, 0);          /* 5 us: both run */
    EXPECT(!a.eager && a.fast == 1);
    see(&a, &on, 200000, 0);        /* at the threshold: still fast */
    EXPECT(!a.eager && a.fast == 2);
    see(&a, &on, 4000000, 0);       /* a 4 ms quantum: slow */
    EXPECT(a.eager && a.slow == 1);
    see(&a, &on, 3000, 0);          /* polling again */
    EXPECT(!a.eager);
    see(&a, &on, 3000, 1);          /* quick, but it had gone to sleep */
    EXPECT(a.eager && a.slow == 2);
}

static void test_probe(void)
{
    cr_adapt_cfg_t on = cfg(CR_ADAPT_AUTO);
    cr_adapt_t a;
    cr_adapt_init(&a, &on, 0);
    see(&a, &on, 1000000, 0);
    /* 8 per probe: 7 eager, then one rendezvous, and again */
    EXPECT(eager_of(&a, &on, 7) == 7);
    EXPECT(cr_adapt_choose_eager(&a, &on) == 0);
    EXPECT(eager_of(&a, &on, 7) == 7);
    EXPECT(cr_adapt_choose_eager(&a, &on) == 0);
    /* a slow probe: stay eager, probe half as often (16, 32, then the cap 40) */
    see(&a, &on, 1000000, 0);
    EXPECT(a.eager && eager_of(&a, &on, 15) == 15);
    EXPECT(cr_adapt_choose_eager(&a, &on) == 0);
    see(&a, &on, 1000000, 1);
    EXPECT(eager_of(&a, &on, 31) == 31 && cr_adapt_choose_eager(&a, &on) == 0);
    see(&a, &on, 1000000, 0);
    EXPECT(eager_of(&a, &on, 39) == 39 && cr_adapt_choose_eager(&a, &on) == 0);
    see(&a, &on, 1000000, 0);
    EXPECT(a.interval == 40 && eager_of(&a, &on, 39) == 39 && cr_adapt_choose_eager(&a, &on) == 0);
    /* a fast probe: rendezvous from now on */
    see(&a, &on, 1000, 0);
    EXPECT(!a.eager && eager_of(&a, &on, 50) == 0);
    /* switching on again starts from probe_every with a fresh count */
    see(&a, &on, 1000000, 0);
    EXPECT(eager_of(&a, &on, 7) == 7 && cr_adapt_choose_eager(&a, &on) == 0);
    /* probe_every 1: every message measures */
    on.probe_every = 1;
    cr_adapt_init(&a, &on, 1);
    EXPECT(a.eager && eager_of(&a, &on, 10) == 0);
    /* a cap below probe_every: the interval stays at probe_every */
    on.probe_every = 8;
    on.probe_max = 2;
    cr_adapt_init(&a, &on, 1);
    see(&a, &on, 1000000, 0);
    EXPECT(a.interval == 8);
}

static void test_verdict(void)
{
    cr_adapt_cfg_t on = cfg(CR_ADAPT_AUTO);
    cr_adapt_obs_t o;
    /* quick looks: running, whatever the word, unless it slept */
    o = ob(5000, 0, 0);
    EXPECT(cr_adapt_verdict(&on, &o) == CR_PEER_RUNNING);
    o = ob(5000, 1, 1);
    EXPECT(cr_adapt_verdict(&on, &o) == CR_PEER_RUNNING);     /* yields on a quiet core */
    o = ob(5000, 2, 0);
    EXPECT(cr_adapt_verdict(&on, &o) == CR_PEER_NOT_RUNNING); /* asleep: a wake-up away */
    /* late looks */
    o = ob(4000000, 1, 0);
    EXPECT(cr_adapt_verdict(&on, &o) == CR_PEER_NOT_RUNNING); /* yielded, got no core */
    o = ob(4000000, 1, 1);
    EXPECT(cr_adapt_verdict(&on, &o) == CR_PEER_NOT_RUNNING); /* queue or not: it yielded */
    o = ob(4000000, 0, 0);
    EXPECT(cr_adapt_verdict(&on, &o) == CR_PEER_NOT_RUNNING); /* nothing before it: not polling */
    o = ob(4000000, 0, 1);
    EXPECT(cr_adapt_verdict(&on, &o) == CR_PEER_UNKNOWN);     /* busy with our earlier data */
    /* late looks by a peer that copied for other messages meanwhile: with
     * the rule on (1000 bytes per us), 4 ms late and 4 MB copied is a peer
     * busy copying (its own staged sends, its gets): running, whatever the
     * queue and the word said when the request went; less than that
     * (descheduled for most of the delay) is judged as before; asleep stays
     * asleep */
    cr_adapt_cfg_t busy = on;
    busy.busy_bytes_per_us = 1000;
    o = ob(4000000, 0, 0);
    o.copied = 4000000;
    EXPECT(cr_adapt_verdict(&busy, &o) == CR_PEER_RUNNING);
    EXPECT(cr_adapt_verdict(&on, &o) == CR_PEER_NOT_RUNNING);   /* rule off */
    o = ob(4000000, 1, 0);
    o.copied = 8000000;
    EXPECT(cr_adapt_verdict(&busy, &o) == CR_PEER_RUNNING);
    o = ob(4000000, 0, 0);
    o.copied = 3999999;
    EXPECT(cr_adapt_verdict(&busy, &o) == CR_PEER_NOT_RUNNING);
    o = ob(4000000, 0, 1);
    o.copied = 100000;
    EXPECT(cr_adapt_verdict(&busy, &o) == CR_PEER_UNKNOWN);
    o = ob(4000000, 2, 0);
    o.copied = 40000000;
    EXPECT(cr_adapt_verdict(&busy, &o) == CR_PEER_NOT_RUNNING);
    /* bibw at 64 KiB: both ranks queue a window of rendezvous; the first
     * request of each window is looked at at once, the later ones late, behind
     * the copies of those before them, by a peer that never yields: the pair
     * stays in rendezvous mode */
    cr_adapt_t a;
    cr_adapt_init(&a, &on, 0);
    for (int win = 0; win < 100; win++) {
        o = ob(3000, 0, 0);
        cr_adapt_observe(&a, &on, &o);
        for (int k = 1; k < 8; k++) {
            o = ob(300000 + 50000 * (uint64_t)k, 0, 1);
            cr_adapt_observe(&a, &on, &o);
            EXPECT(!a.eager && eager_of(&a, &on, 1) == 0);
        }
    }
    EXPECT(a.fast == 100 && a.unknown == 700 && a.slow == 0);
    /* the same beside CPU hogs: the peer yields and its looks come a quantum
     * late: eager mode, and an unknown verdict keeps it (no probe reset) */
    o = ob(4000000, 1, 1);
    cr_adapt_observe(&a, &on, &o);
    EXPECT(a.eager && a.interval == 8);
    o = ob(4000000, 0, 1);
    EXPECT(cr_adapt_observe(&a, &on, &o) == CR_PEER_UNKNOWN && a.eager && a.interval == 8);
    /* the load goes: a quick probe returns to rendezvous */
    o = ob(2000, 0, 1);
    EXPECT(cr_adapt_observe(&a, &on, &o) == CR_PEER_RUNNING && !a.eager);
    /* off and forced give no verdict through observe */
    cr_adapt_cfg_t off = cfg(CR_ADAPT_OFF);
    o = ob(4000000, 2, 0);
    EXPECT(cr_adapt_observe(&a, &off, &o) == CR_PEER_UNKNOWN && !a.eager);
}

static void test_off_forced(void)
{
    cr_adapt_cfg_t off = cfg(CR_ADAPT_OFF), force = cfg(CR_ADAPT_FORCE);
    cr_adapt_t a;
    cr_adapt_init(&a, &off, 0);
    see(&a, &off, 1000000000, 1);
    EXPECT(!a.eager && a.slow == 0 && eager_of(&a, &off, 10) == 0);
    cr_adapt_init(&a, &force, 0);
    see(&a, &force, 1, 0);
    EXPECT(a.eager && a.fast == 0 && eager_of(&a, &force, 200) == 200);
}

int main(void)
{
    test_start();
    test_slow_fast();
    test_probe();
    test_verdict();
    test_off_forced();
    if (!unit_failures) printf("adapt: all passed\n");
    return unit_failures != 0;
}
