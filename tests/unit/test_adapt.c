/* SPDX-License-Identifier: MIT */
// sources: src/core/adapt.c
/* Unit test of the adaptive protocol choice (src/core/adapt.c) with made-up
 * observations:
 *   start: rendezvous, or eager when oversubscribed or forced;
 *   slow: a slow handshake, or a peer that had announced it sleeps, turns
 *         eager mode on; a fast one (at the threshold) turns it off;
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
    cr_adapt_observe(&a, &on, 5000, 0);          /* 5 us: both run */
    EXPECT(!a.eager && a.fast == 1);
    cr_adapt_observe(&a, &on, 200000, 0);        /* at the threshold: still fast */
    EXPECT(!a.eager && a.fast == 2);
    cr_adapt_observe(&a, &on, 4000000, 0);       /* a 4 ms quantum: slow */
    EXPECT(a.eager && a.slow == 1);
    cr_adapt_observe(&a, &on, 3000, 0);          /* polling again */
    EXPECT(!a.eager);
    cr_adapt_observe(&a, &on, 3000, 1);          /* quick, but it had gone to sleep */
    EXPECT(a.eager && a.slow == 2);
}

static void test_probe(void)
{
    cr_adapt_cfg_t on = cfg(CR_ADAPT_AUTO);
    cr_adapt_t a;
    cr_adapt_init(&a, &on, 0);
    cr_adapt_observe(&a, &on, 1000000, 0);
    /* 8 per probe: 7 eager, then one rendezvous, and again */
    EXPECT(eager_of(&a, &on, 7) == 7);
    EXPECT(cr_adapt_choose_eager(&a, &on) == 0);
    EXPECT(eager_of(&a, &on, 7) == 7);
    EXPECT(cr_adapt_choose_eager(&a, &on) == 0);
    /* a slow probe: stay eager, probe half as often (16, 32, then the cap 40) */
    cr_adapt_observe(&a, &on, 1000000, 0);
    EXPECT(a.eager && eager_of(&a, &on, 15) == 15);
    EXPECT(cr_adapt_choose_eager(&a, &on) == 0);
    cr_adapt_observe(&a, &on, 1000000, 1);
    EXPECT(eager_of(&a, &on, 31) == 31 && cr_adapt_choose_eager(&a, &on) == 0);
    cr_adapt_observe(&a, &on, 1000000, 0);
    EXPECT(eager_of(&a, &on, 39) == 39 && cr_adapt_choose_eager(&a, &on) == 0);
    cr_adapt_observe(&a, &on, 1000000, 0);
    EXPECT(a.interval == 40 && eager_of(&a, &on, 39) == 39 && cr_adapt_choose_eager(&a, &on) == 0);
    /* a fast probe: rendezvous from now on */
    cr_adapt_observe(&a, &on, 1000, 0);
    EXPECT(!a.eager && eager_of(&a, &on, 50) == 0);
    /* switching on again starts from probe_every with a fresh count */
    cr_adapt_observe(&a, &on, 1000000, 0);
    EXPECT(eager_of(&a, &on, 7) == 7 && cr_adapt_choose_eager(&a, &on) == 0);
    /* probe_every 1: every message measures */
    on.probe_every = 1;
    cr_adapt_init(&a, &on, 1);
    EXPECT(a.eager && eager_of(&a, &on, 10) == 0);
    /* a cap below probe_every: the interval stays at probe_every */
    on.probe_every = 8;
    on.probe_max = 2;
    cr_adapt_init(&a, &on, 1);
    cr_adapt_observe(&a, &on, 1000000, 0);
    EXPECT(a.interval == 8);
}

static void test_off_forced(void)
{
    cr_adapt_cfg_t off = cfg(CR_ADAPT_OFF), force = cfg(CR_ADAPT_FORCE);
    cr_adapt_t a;
    cr_adapt_init(&a, &off, 0);
    cr_adapt_observe(&a, &off, 1000000000, 1);
    EXPECT(!a.eager && a.slow == 0 && eager_of(&a, &off, 10) == 0);
    cr_adapt_init(&a, &force, 0);
    cr_adapt_observe(&a, &force, 1, 0);
    EXPECT(a.eager && a.fast == 0 && eager_of(&a, &force, 200) == 200);
}

int main(void)
{
    test_start();
    test_slow_fast();
    test_probe();
    test_off_forced();
    if (!unit_failures) printf("adapt: all passed\n");
    return unit_failures != 0;
}
