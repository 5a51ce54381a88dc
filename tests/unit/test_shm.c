/* SPDX-License-Identifier: MIT */
// sources: src/transport/shm/shm.c src/transport/transport.c src/util/settings.c
// timeout: 60
/* Unit test of the shared-memory transport (src/transport/shm), between two
 * real processes (this one, local rank 0, and a forked child, local rank 1),
 * with a deliberately small ring (4 KiB) so that it wraps and fills:
 *   ring:     6000 AMs of sizes 0..max_bulk, every header field and payload
 *             byte checked, in order, with the sender spinning on back-pressure;
 *   channels: the segment holds two channels; a message on channel 1 arrives
 *             through channel 1's interface only, behind one sent later on
 *             channel 0 (the channels' rings are separate);
 *   get/put:  single copies between the two address spaces;
 *   doorbell: the receiver sleeps between messages while the sender posts at
 *             random moments (sometimes exactly as the receiver announces
 *             that it sleeps): every message must wake it (no sleep may last
 *             anywhere near the 5 s limit: that would be a lost wake-up);
 *   refusal:  a non-dumpable child's memory: get answers TR_ERR_REFUSED. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "transport/shm/shm.h"
#include "util/settings.h"

#define NMSG 6000
#define NWAKE 1500
#define SLEEP_LIMIT_US 5000000L

static int to_child[2], to_parent[2];
static int is_child;
static tr_iface_t *trs[2];          /* the two channels' interfaces */
#define shm0 (trs[0])

static void die(const char *what)
{
    fprintf(stderr, "FAIL (%s): %s\n", is_child ? "child" : "parent", what);
    exit(1);
}

/* The two processes meet: each writes one byte and reads the other's. */
static int pipe_barrier(void)
{
    char c = 0;
    int wfd = is_child ? to_parent[1] : to_child[1];
    int rfd = is_child ? to_child[0] : to_parent[0];
    if (write(wfd, &c, 1) != 1 || read(rfd, &c, 1) != 1) return -1;
    return 0;
}

static unsigned char pat(unsigned i, size_t k)
{
    return (unsigned char)(i * 7u + k * 13u + 1u);
}

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* ---- the receiving side's handler ---------------------------------------- */
static unsigned expect_next;
static int got_bad;
static tr_rkey_t peer_key;
static size_t peer_len;
static int got_key, got_done;
static int got_chan_msg = -1;       /* the channel a type-4 message came through */

static void handler(void *arg, int peer, const tr_am_rx_t *m)
{
    if (peer != (is_child ? 0 : 1)) got_bad = 1;
    if (m->hdr.type == 4) {
        got_chan_msg = (int)(intptr_t)arg;
        return;
    }
    if (arg != NULL) got_bad = 1;           /* everything else goes on channel 0 */
    if (m->hdr.type == 1) {                 /* ring test message */
        unsigned i = (unsigned)m->hdr.aux;
        if (i != expect_next || m->hdr.ctx != i * 3u || m->hdr.src != (int32_t)i ||
            m->hdr.tag != -(int32_t)i || m->len != i % (shm0->caps.max_bulk + 1))
            got_bad = 1;
        unsigned char buf[8192];
        tr_am_copy(m, 0, buf, m->len);
        for (size_t k = 0; k < m->len; k++)
            if (buf[k] != pat(i, k)) got_bad = 1;
        /* a piece-wise copy gives the same bytes */
        if (m->len > 10) {
            unsigned char part[16];
            tr_am_copy(m, m->len - 10, part, 10);
            if (memcmp(part, buf + m->len - 10, 10)) got_bad = 1;
        }
        expect_next++;
    } else if (m->hdr.type == 2) {          /* a remote key */
        tr_am_copy(m, 0, &peer_key, sizeof peer_key);
        peer_len = (size_t)m->hdr.aux;
        got_key = 1;
    } else if (m->hdr.type == 3) {
        got_done++;
    }
}

static void send_spin(int to, const tr_am_hdr_t *h, const void *p, size_t n)
{
    while (shm_send_pkt(&shm_ctxs[0], to, h, p, n)) shm0->ops->progress(shm0);
}

static void send_key(int to, void *buf, size_t len)
{
    tr_rkey_t k;
    if (shm0->ops->mem_key(shm0, buf, len, &k) != TR_OK) die("mem_key");
    tr_am_hdr_t h = { .type = 2, .aux = len };
    send_spin(to, &h, &k, sizeof k);
}

static void wait_for(int *flag)
{
    while (!*flag) shm0->ops->progress(shm0);
}

/* Drop CAP_SYS_PTRACE, so that root too is refused a non-dumpable process's
 * memory.  Returns 0 when this process no longer has it. */
static int drop_ptrace_cap(void)
{
    struct __user_cap_header_struct hd = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &hd, d) != 0) return -1;
    d[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
    d[CAP_SYS_PTRACE / 32].permitted &= ~(1u << (CAP_SYS_PTRACE % 32));
    return syscall(SYS_capset, &hd, d) == 0 ? 0 : -1;
}

/* ---- the child: local rank 1 ----------------------------------------------- */
static void child_main(void)
{
    /* ring */
    while (expect_next < NMSG && !got_bad) shm0->ops->progress(shm0);
    if (got_bad) die("ring: a message arrived wrong");

    /* channels: the parent sent on channel 1, then "done" on channel 0 */
    wait_for(&got_done);
    if (got_chan_msg != -1) die("channels: channel 1's message came through channel 0");
    while (got_chan_msg == -1) trs[1]->ops->progress(trs[1]);
    if (got_chan_msg != 1 || got_bad) die("channels: wrong channel");
    got_done = 0;

    /* get/put: offer a buffer, the parent reads it and writes its second half */
    static unsigned char buf[100000];
    for (size_t k = 0; k < sizeof buf; k++) buf[k] = pat(5, k);
    send_key(0, buf, sizeof buf);
    wait_for(&got_done);
    for (size_t k = 0; k < sizeof buf; k++)
        if (buf[k] != (k < sizeof buf / 2 ? pat(5, k) : pat(6, k))) die("put: wrong bytes");

    /* doorbell: sleep whenever nothing is there; the parent starts sending when
     * it hears that we are ready */
    long max_sleep = 0, slept = 0, aborted = 0;
    expect_next = 0;
    tr_am_hdr_t ready = { .type = 3 };
    send_spin(0, &ready, NULL, 0);
    while (expect_next < NWAKE) {
        if (shm0->ops->progress(shm0)) continue;
        if (shm0->ops->sleep_prepare(shm0) != 0) die("doorbell: cannot sleep");
        if (shm0->ops->progress(shm0)) {
            shm0->ops->sleep_cancel(shm0);
            aborted++;
            continue;
        }
        uint64_t t0 = now_us();
        shm0->ops->sleep_wait(shm0, SLEEP_LIMIT_US);
        long d = (long)(now_us() - t0);
        if (d > max_sleep) max_sleep = d;
        slept++;
    }
    if (got_bad) die("doorbell: a message arrived wrong");
    printf("doorbell: %d messages, %ld sleeps, %ld announcements cancelled, longest sleep %ld us\n",
           NWAKE, slept, aborted, max_sleep);
    if (max_sleep > SLEEP_LIMIT_US / 5) die("doorbell: a wake-up was lost");
    if (slept == 0) die("doorbell: never slept");

    /* refusal: make this process non-dumpable; the parent tries to read it */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    send_key(0, buf, sizeof buf);
    wait_for(&got_done);        /* got_done becomes 2 */
    while (got_done < 2) shm0->ops->progress(shm0);
    shm0->ops->finalize(shm0);
    trs[1]->ops->finalize(trs[1]);
    exit(0);
}

int main(void)
{
    ut_settings_load();
    ut_settings.shm_ring_bytes = 4096;
    if (pipe(to_child) || pipe(to_parent)) die("pipe");
    char name[64];
    snprintf(name, sizeof name, "/courier.unit.%d", (int)getpid());
    static const int local_of[2] = { 0, 1 };
    tr_boot_t boot = { .rank = 0, .size = 2, .barrier = pipe_barrier };
    pid_t pid = fork();
    if (pid < 0) die("fork");
    is_child = pid == 0;
    if (is_child) prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (shm_init(trs, 2, is_child, 2, local_of, 2, name, &boot) != 0) die("shm_init");
    tr_iface_t *tr = trs[0];
    if (tr != &shm_ctxs[0].iface || trs[1] != &shm_ctxs[1].iface) die("shm_init: interfaces");
    for (int c = 0; c < 2; c++) {
        trs[c]->am_handler = handler;
        trs[c]->am_arg = (void *)(intptr_t)c;
    }
    if (tr->caps.max_bulk != 4096 / 2 - SHM_HDR) die("caps: max_bulk");
    if (!(tr->caps.flags & TR_CAP_ORDERED)) die("caps: ordered");
    uint64_t addr;
    if (tr_connect(tr, is_child ? 0 : 1, &addr) != TR_OK || addr != (is_child ? 0u : 1u))
        die("connect");
    if (tr_connect(tr, is_child ? 1 : 0, &addr) != TR_ERR_UNREACHABLE) die("connect to self");
    if (is_child) child_main();

    /* ring: sizes cycle through 0..max_bulk, so packets start at every offset */
    static unsigned char buf[8192];
    for (unsigned i = 0; i < NMSG; i++) {
        size_t n = i % (tr->caps.max_bulk + 1);
        for (size_t k = 0; k < n; k++) buf[k] = pat(i, k);
        tr_am_hdr_t h = { .type = 1, .ctx = i * 3u, .src = (int32_t)i, .tag = -(int32_t)i,
                          .aux = i };
        send_spin(1, &h, buf, n);
    }

    /* channels */
    tr_am_hdr_t on1 = { .type = 4 }, done = { .type = 3 };
    while (shm_send_pkt(&shm_ctxs[1], 1, &on1, NULL, 0)) trs[1]->ops->progress(trs[1]);
    send_spin(1, &done, NULL, 0);

    /* get/put */
    wait_for(&got_key);
    static unsigned char big[100000];
    if (peer_len != sizeof big) die("get: key length");
    tr_status_t st = tr_get(tr, 1, big, sizeof big, &peer_key, 0, NULL);
    if (st != TR_OK) die("get");
    for (size_t k = 0; k < sizeof big; k++)
        if (big[k] != pat(5, k)) die("get: wrong bytes");
    for (size_t k = 0; k < sizeof big; k++) big[k] = pat(6, k);
    st = tr_put(tr, 1, big + sizeof big / 2, sizeof big / 2, &peer_key, sizeof big / 2, NULL);
    if (st != TR_OK) die("put");
    send_spin(1, &done, NULL, 0);

    /* doorbell: post at random moments, from back-to-back to 300 us apart */
    wait_for(&got_done);
    srand(12345);
    for (unsigned i = 0; i < NWAKE; i++) {
        unsigned r = (unsigned)rand();
        uint64_t gap = r % 4 == 0 ? 0 : r % 4 == 1 ? r % 5 : r % 300;
        uint64_t t0 = now_us();
        while (now_us() - t0 < gap) __builtin_ia32_pause();
        tr_am_hdr_t h = { .type = 1, .ctx = i * 3u, .src = (int32_t)i, .tag = -(int32_t)i,
                          .aux = i };
        size_t n = i % (tr->caps.max_bulk + 1);
        for (size_t k = 0; k < n; k++) buf[k] = pat(i, k);
        send_spin(1, &h, buf, n);
    }

    /* refusal */
    got_key = 0;
    wait_for(&got_key);
    int capped = drop_ptrace_cap() == 0;
    st = tr_get(tr, 1, big, 64, &peer_key, 0, NULL);
    if (capped && st != TR_ERR_REFUSED) {
        fprintf(stderr, "get from a non-dumpable process: %s\n", tr_status_str(st));
        die("refusal");
    }
    if (!capped) printf("refusal: cannot drop CAP_SYS_PTRACE, check skipped\n");
    send_spin(1, &done, NULL, 0);

    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("the child failed");
    tr->ops->finalize(tr);
    trs[1]->ops->finalize(trs[1]);
    printf("shm: all checks passed\n");
    return 0;
}
