/* SPDX-License-Identifier: MIT */
// sources: src/core/progress.c src/core/threads.c src/util/settings.c
/* Unit test of the progress engine (src/core/progress.c): the poller registry
 * (events summed, active count, can_sleep vetoes) and the waiting policy's
 * steps, watched through its seams: a fake clock and yield (cr_wait_sys) and a
 * fake doorbell transport whose sleep hooks record what the policy did.
 *   spin: no yield before spin_count idle polls;
 *   yield: then a yield on every idle poll;
 *   sleep: once idle for wait_sleep_us, announce, poll once more, then sleep;
 *   abort: a message found by that last poll cancels the sleep;
 *   wake: after sleeping the policy spins again;
 *   vetoes: no sleep while a poller objects or without a doorbell;
 *   several doorbells (shm's futex and the network's descriptor): every one
 *   announced, a block in poll() on the descriptors, capped at
 *   wait_sleep_poll_us when one has none, every announcement taken back; a
 *   sleep that ran out sleeps again at once; one doorbell that cannot sleep
 *   now takes the others' announcements back; a waker without TR_CAP_SLEEP
 *   vetoes sleeping. */
#include <stdio.h>
#include <stdlib.h>
#include "core/progress.h"
#include "util/settings.h"

#include "unit_expect.h"

void cr_abort_job(int code, const char *msg)
{
    fprintf(stderr, "abort: %s\n", msg ? msg : "");
    exit(code ? code : 1);
}
/* The liveness checks need PMI; the waiting policy calls them here. */
unsigned long liveness_checks;
void cr_liveness_check(void)
{
    liveness_checks++;
}

/* the fake system */
static uint64_t now_ns;
static unsigned long yields;
static void fake_yield(void)
{
    yields++;
    now_ns += 1000;          /* a yield takes 1 us */
}
static uint64_t fake_now(void)
{
    return now_ns;
}

/* the fake waiting word: every publication, and the last value */
static int published, published_idle = -1;
static void fake_publish(int idle)
{
    published++;
    published_idle = idle;
}

/* the fake doorbell */
static int prepared, waited, cancelled;
static long last_max_us;
static int bell_prepare(tr_iface_t *tr)
{
    (void)tr;
    prepared++;
    return 0;
}
static void bell_wait(tr_iface_t *tr, long max_us)
{
    (void)tr;
    waited++;
    last_max_us = max_us;
}
static void bell_cancel(tr_iface_t *tr)
{
    (void)tr;
    cancelled++;
}
static int no_fd(tr_iface_t *tr)
{
    (void)tr;
    return -1;
}
static const tr_ops_t bell_ops = { .name = "bell", .sleep_prepare = bell_prepare,
                                   .sleep_wait = bell_wait, .sleep_cancel = bell_cancel,
                                   .sleep_fd = no_fd };     /* like shm's futex */
static tr_iface_t bell = { .ops = &bell_ops, .caps = { .flags = TR_CAP_SLEEP } };
static tr_iface_t *bell1[1] = { &bell };

/* a second, fake network doorbell with a descriptor (fd 42) that can refuse */
static int net_prepared, net_cancelled, net_refuse, net_fd = 42;
static int net_prepare(tr_iface_t *tr)
{
    (void)tr;
    if (net_refuse) return -1;
    net_prepared++;
    return 0;
}
static void net_cancel(tr_iface_t *tr)
{
    (void)tr;
    net_cancelled++;
}
static int net_sleep_fd(tr_iface_t *tr)
{
    (void)tr;
    return net_fd;
}
static int fd_7(tr_iface_t *tr)
{
    (void)tr;
    return 7;
}
static const tr_ops_t net_ops = { .name = "net", .sleep_prepare = net_prepare,
                                  .sleep_wait = bell_wait, .sleep_cancel = net_cancel,
                                  .sleep_fd = net_sleep_fd };
static tr_iface_t net = { .ops = &net_ops, .caps = { .flags = TR_CAP_SLEEP } };

/* the fake ppoll of several doorbells */
static int blocks, block_nfds, block_fd0, block_fd1, block_ready;
static long block_max_us;
static int fake_block(struct pollfd *fds, int nfds, long max_us)
{
    blocks++;
    block_nfds = nfds;
    block_fd0 = nfds > 0 ? fds[0].fd : -1;
    block_fd1 = nfds > 1 ? fds[1].fd : -1;
    block_max_us = max_us;
    now_ns += 1000;
    return block_ready;
}

/* fake pollers: `events` is what the next poll reports */
static int events_a, events_b, polls_a, sleep_ok_b = 1;
static int poll_a(void *arg)
{
    (void)arg;
    polls_a++;
    int e = events_a;
    events_a = 0;
    return e;
}
static int poll_b(void *arg)
{
    (void)arg;
    int e = events_b;
    events_b = 0;
    return e;
}
static int can_sleep_b(void *arg)
{
    (void)arg;
    return sleep_ok_b;
}
static cr_poller_t pa = { .name = "a", .poll = poll_a };
static cr_poller_t pb = { .name = "b", .poll = poll_b, .can_sleep = can_sleep_b };

/* Idle polls until the policy's first yield; returns how many. */
static unsigned polls_to_first_yield(cr_wait_t *w)
{
    unsigned long y0 = yields;
    unsigned n = 0;
    while (yields == y0 && n < 100000) {
        cr_wait_poll(w);
        n++;
    }
    return n;
}

int main(void)
{
    ut_settings_load();
    cr_wait_sys.yield = fake_yield;
    cr_wait_sys.now_ns = fake_now;
    cr_wait_sys.block = fake_block;
    ut_settings.spin_count = 100;
    ut_settings.spin_count_oversubscribed = 7;
    ut_settings.wait_sleep_us = 50;
    ut_settings.wait_sleep_max_us = 1234;

    /* registry: events add up, registering twice is once, active is counted */
    cr_progress_register(&pa);
    cr_progress_register(&pb);
    cr_progress_register(&pa);
    events_a = 2;
    events_b = 3;
    unsigned long before = cr_progress_events;
    EXPECT(cr_progress() == 5);
    EXPECT(cr_progress_events == before + 5);
    EXPECT(polls_a == 1);
    EXPECT(cr_progress_nactive == 0);
    cr_poller_set_active(&pb, 1);
    cr_poller_set_active(&pb, 1);
    EXPECT(cr_progress_nactive == 1);
    cr_progress_unregister(&pb);
    EXPECT(cr_progress_nactive == 0);
    cr_progress_register(&pb);
    EXPECT(cr_progress_nactive == 1);
    cr_poller_set_active(&pb, 0);
    EXPECT(cr_progress_nactive == 0);

    /* spin: exactly spin_count idle polls before the first yield */
    cr_progress_init(0, bell1, 1);
    cr_wait_t w = CR_WAIT_INIT;
    EXPECT(polls_to_first_yield(&w) == 100);
    /* yield: from then on every idle poll yields */
    unsigned long y = yields;
    cr_wait_poll(&w);
    cr_wait_poll(&w);
    EXPECT(yields == y + 2);
    EXPECT(prepared == 0);
    /* an event sends the policy back to spinning */
    events_a = 1;
    cr_wait_poll(&w);
    EXPECT(w.polls == 0 && !w.yielding);
    EXPECT(polls_to_first_yield(&w) == 100);

    /* oversubscribed: its own (smaller) spin count */
    cr_progress_init(1, bell1, 1);
    cr_wait_t wo = CR_WAIT_INIT;
    EXPECT(polls_to_first_yield(&wo) == 7);

    /* sleep: idle for wait_sleep_us (50 us: 50 fake yields) -> announce, poll, sleep */
    cr_progress_init(0, bell1, 1);
    cr_wait_t ws = CR_WAIT_INIT;
    polls_to_first_yield(&ws);
    int guard = 0;
    while (!waited && guard++ < 1000) cr_wait_poll(&ws);
    EXPECT(waited == 1);
    EXPECT(prepared == 1 && cancelled == 0);
    EXPECT(last_max_us == 1234);
    EXPECT(guard >= 49 && guard <= 51);
    EXPECT(cr_wait_stats.sleeps == 1);
    /* wake: after the sleep the loop spins again */
    EXPECT(ws.polls == 0 && !ws.yielding);
    EXPECT(polls_to_first_yield(&ws) == 100);

    /* abort: a message found by the poll right after the announcement cancels
     * the sleep (cr_wait_idle is the step after a poll that found nothing) */
    cr_wait_t wa = CR_WAIT_INIT;
    polls_to_first_yield(&wa);       /* yielding now, idle since now_ns */
    now_ns += 100000;                /* long idle */
    int p0 = prepared, c0 = cancelled, w0 = waited;
    events_b = 1;                    /* arrives just as the process announces */
    EXPECT(cr_wait_idle(&wa) == 1);
    EXPECT(prepared == p0 + 1 && cancelled == c0 + 1 && waited == w0);
    EXPECT(cr_wait_stats.sleep_aborts == 1);

    /* vetoes: a poller that cannot sleep, a negative wait_sleep_us, no doorbell */
    cr_wait_t wv = CR_WAIT_INIT;
    sleep_ok_b = 0;
    polls_to_first_yield(&wv);
    now_ns += 10000000;
    int p1 = prepared;
    for (int i = 0; i < 10; i++) cr_wait_poll(&wv);
    EXPECT(prepared == p1);
    EXPECT(cr_progress_can_sleep() == 0);
    sleep_ok_b = 1;
    EXPECT(cr_progress_can_sleep() == 1);
    ut_settings.wait_sleep_us = -1;
    EXPECT(cr_progress_can_sleep() == 0);
    ut_settings.wait_sleep_us = 50;
    cr_progress_init(0, NULL, 0);
    EXPECT(cr_progress_can_sleep() == 0);
    tr_iface_t nobell = { .ops = &bell_ops, .caps = { .flags = 0 } };
    tr_iface_t *nobell1[1] = { &nobell };
    cr_progress_init(0, nobell1, 1);
    EXPECT(cr_progress_can_sleep() == 0);

    /* several doorbells: shm's (no descriptor) and the network's (fd 42) */
    ut_settings.wait_sleep_poll_us = 77;
    tr_iface_t *both[3] = { NULL, &bell, &net };     /* NULL: skipped */
    cr_progress_init(0, both, 3);
    EXPECT(cr_progress_can_sleep() == 1);
    cr_wait_t wm = CR_WAIT_INIT;
    polls_to_first_yield(&wm);
    now_ns += 100000;
    int pm = prepared, cm = cancelled, wtm = waited;
    unsigned long sm = cr_wait_stats.sleeps;
    block_ready = 1;                 /* the network's descriptor becomes readable */
    cr_wait_poll(&wm);
    EXPECT(blocks == 1 && block_nfds == 1 && block_fd0 == 42);
    EXPECT(block_max_us == 77);      /* shm's futex cannot end a poll(): capped */
    EXPECT(prepared == pm + 1 && net_prepared == 1);
    EXPECT(cancelled == cm + 1 && net_cancelled == 1);
    EXPECT(waited == wtm);           /* no transport's own sleep_wait */
    EXPECT(cr_wait_stats.sleeps == sm + 1);
    EXPECT(wm.polls == 0 && !wm.yielding);   /* woken: spinning again */
    /* a sleep that ran out leaves the loop idle: the next idle poll sleeps again */
    polls_to_first_yield(&wm);
    now_ns += 100000;
    block_ready = 0;
    unsigned long tm = cr_wait_stats.sleep_timeouts;
    cr_wait_poll(&wm);
    EXPECT(blocks == 2 && cr_wait_stats.sleep_timeouts == tm + 1);
    unsigned long y2 = yields;
    cr_wait_poll(&wm);
    EXPECT(blocks == 3 && yields == y2);
    /* every doorbell with a descriptor: the ordinary longest sleep */
    static const tr_ops_t fd7_ops = { .name = "fd7", .sleep_prepare = bell_prepare,
                                      .sleep_wait = bell_wait, .sleep_cancel = bell_cancel,
                                      .sleep_fd = fd_7 };
    tr_iface_t fd7 = { .ops = &fd7_ops, .caps = { .flags = TR_CAP_SLEEP } };
    tr_iface_t *fds2[2] = { &fd7, &net };
    cr_progress_init(0, fds2, 2);
    cr_wait_poll(&wm);
    EXPECT(blocks == 4 && block_nfds == 2 && block_fd0 == 7 && block_fd1 == 42);
    EXPECT(block_max_us == 1234);
    /* a network provider without a wait object: no descriptor, capped sleeps */
    static const tr_ops_t nofd_ops = { .name = "nofd", .sleep_prepare = bell_prepare,
                                       .sleep_wait = bell_wait, .sleep_cancel = bell_cancel,
                                       .sleep_fd = no_fd };
    tr_iface_t nofd = { .ops = &nofd_ops, .caps = { .flags = TR_CAP_SLEEP } };
    tr_iface_t *nofd2[2] = { &bell, &nofd };
    cr_progress_init(0, nofd2, 2);
    cr_wait_poll(&wm);
    EXPECT(blocks == 5 && block_nfds == 0 && block_max_us == 77);
    /* one doorbell that cannot sleep now: the others' announcements are taken
     * back and the loop yields */
    cr_progress_init(0, both, 3);
    net_refuse = 1;
    pm = prepared, cm = cancelled;
    y2 = yields;
    cr_wait_poll(&wm);
    EXPECT(blocks == 5 && prepared == pm + 1 && cancelled == cm + 1 && yields == y2 + 1);
    net_refuse = 0;
    /* the network's doorbell alone (a node per rank): poll() on its descriptor,
     * for the ordinary longest sleep */
    tr_iface_t *net1[1] = { &net };
    cr_progress_init(0, net1, 1);
    wtm = waited;
    cr_wait_poll(&wm);
    EXPECT(blocks == 6 && block_nfds == 1 && block_fd0 == 42 && block_max_us == 1234);
    EXPECT(waited == wtm);
    /* a transport among the wakers that cannot wake a sleeper: never sleep */
    tr_iface_t *mixed[2] = { &net, &nobell };
    cr_progress_init(0, mixed, 2);
    EXPECT(cr_progress_can_sleep() == 0);
    ut_settings.wait_sleep_poll_us = 1000;

    /* cr_wait_after: an event inside another call counts as progress */
    cr_progress_init(0, bell1, 1);
    cr_wait_t wf = CR_WAIT_INIT;
    wf.polls = 5;
    unsigned long b0 = cr_progress_events;
    events_a = 1;
    cr_progress();
    cr_wait_after(&wf, b0);
    EXPECT(wf.polls == 0);
    b0 = cr_progress_events;
    cr_wait_after(&wf, b0);
    EXPECT(wf.polls == 1);

    /* publish: entering the yield phase once, leaving it once */
    cr_wait_publish = fake_publish;
    cr_progress_init(0, bell1, 1);
    cr_wait_t wp = CR_WAIT_INIT;
    for (int i = 0; i < 99; i++) cr_wait_poll(&wp);
    EXPECT(published == 0);                      /* spinning: nothing written */
    cr_wait_poll(&wp);
    cr_wait_poll(&wp);
    cr_wait_poll(&wp);
    EXPECT(published == 1 && published_idle == 1);
    events_a = 1;
    cr_wait_poll(&wp);
    EXPECT(published == 2 && published_idle == 0 && !wp.yielding);
    cr_wait_poll(&wp);
    EXPECT(published == 2);
    polls_to_first_yield(&wp);
    EXPECT(published == 3 && published_idle == 1);
    cr_wait_end(&wp);                            /* the loop's condition holds */
    EXPECT(published == 4 && published_idle == 0);
    cr_wait_end(&wp);
    EXPECT(published == 4);

    /* test loops: back to back, they yield past the spin count, then sleep */
    ut_settings.wait_test_gap_us = 2;
    ut_settings.wait_test_sleep_max_us = 300;
    unsigned long yt = yields;
    int pt = published, wt0 = waited;
    for (int i = 0; i < 99; i++) {
        unsigned long b = cr_progress_events;
        cr_progress();
        cr_wait_test(b, 0);
    }
    EXPECT(yields == yt && published == pt);
    for (int i = 0; i < 10; i++) {
        unsigned long b = cr_progress_events;
        cr_progress();
        cr_wait_test(b, 0);
    }
    EXPECT(yields == yt + 9 && published == pt + 1 && published_idle == 1);
    int gt = 0;
    while (waited == wt0 && gt++ < 1000) {
        unsigned long b = cr_progress_events;
        cr_progress();
        cr_wait_test(b, 0);
    }
    EXPECT(waited == wt0 + 1 && last_max_us == 300);
    /* a call that finds something ends the loop */
    cr_wait_test(cr_progress_events, 1);
    EXPECT(cr_test_wait.polls == 0 && !cr_test_wait.yielding && published_idle == 0);
    /* work between the calls (10 us each): never a yield */
    yt = yields;
    for (int i = 0; i < 1000; i++) {
        now_ns += 10000;
        unsigned long b = cr_progress_events;
        cr_progress();
        cr_wait_test(b, 0);
    }
    EXPECT(yields == yt);
    /* one late call in a polling loop (the caller lost its core) does not
     * restart the yield phase; work longer than wait_sleep_us does */
    cr_wait_test(cr_progress_events, 1);
    for (int i = 0; i < 105; i++) cr_wait_test(cr_progress_events, 0);
    EXPECT(cr_test_wait.yielding);
    now_ns += 20000;
    yt = yields;
    cr_wait_test(cr_progress_events, 0);
    EXPECT(yields == yt && cr_test_wait.yielding);
    cr_wait_test(cr_progress_events, 0);
    EXPECT(yields == yt + 1);
    now_ns += 60000;                             /* over wait_sleep_us (50) */
    cr_wait_test(cr_progress_events, 0);
    EXPECT(!cr_test_wait.yielding && cr_test_wait.polls == 0);
    /* 0: test calls never yield */
    ut_settings.wait_test_gap_us = 0;
    cr_wait_test(cr_progress_events, 1);
    yt = yields;
    for (int i = 0; i < 1000; i++) cr_wait_test(cr_progress_events, 0);
    EXPECT(yields == yt);
    cr_wait_publish = NULL;

    cr_progress_fini();
    EXPECT(cr_progress() == 0);
    if (unit_failures) return 1;
    printf("progress: all checks passed\n");
    return 0;
}
