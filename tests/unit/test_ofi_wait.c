/* SPDX-License-Identifier: MIT */
// sources: src/transport/ofi/ofi.c src/transport/ofi/ofi_dl.c src/transport/transport.c src/util/settings.c
// timeout: 120
/* Unit test of sleeping on the network transport (src/transport/ofi) between
 * two real processes over libfabric's tcp provider (this one, peer 0, and a
 * forked child, peer 1; the bootstrap is a directory of files and a pipe):
 *   quiet:  after sleep_prepare, with nothing on the way, the descriptor of
 *           sleep_fd stays unreadable (the sleep would last);
 *   wake:   peer 0 announces a sleep, tells peer 1 through a pipe, polls once
 *           more (as the waiting policy does) and blocks in poll() on the
 *           descriptor; peer 1 sends at once or after a random delay, so
 *           some messages arrive just as peer 0 goes to sleep.  Every message
 *           must end the sleep (none may last anywhere near the 5 s limit:
 *           that would be a lost wake-up) and arrive intact and in order.
 * It runs twice: with FI_PROVIDER=tcp (rxm over tcp), then, in a new
 * process of itself, with FI_PROVIDER=tcp,net, where the transport takes
 * libfabric 1.17's net provider, the TCP provider's own reliable-datagram
 * endpoint (COURIER_OFI_TCP_NATIVE), whose completion queue's descriptor
 * stayed readable after the first completion until the transport lowered the
 * wait set's signal (net6).  Skips (passes with a message) where libfabric or
 * its tcp provider is missing. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "transport/ofi/ofi.h"
#include "util/settings.h"

#define NWAKE 300
#define NQUIET 3
#define LIMIT_MS 5000

static int to_child[2], to_parent[2];
static int is_child;
static char dir[64];

static void die(const char *what)
{
    fprintf(stderr, "FAIL (%s): %s\n", is_child ? "peer 1" : "peer 0", what);
    exit(1);
}

/* ---- the bootstrap: a key is a file in dir, the barrier a pipe exchange ---- */
static int boot_put(const char *key, const char *value)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%d.%s", dir, is_child, key);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(value, f);
    return fclose(f) == 0 ? 0 : -1;
}

static int boot_get(int rank, const char *key, char *value, size_t len)
{
    char path[160];
    snprintf(path, sizeof path, "%s/%d.%s", dir, rank, key);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int ok = fgets(value, (int)len, f) != NULL;
    fclose(f);
    return ok ? 0 : -1;
}

static int boot_barrier(void)
{
    char c = 0;
    int wfd = is_child ? to_parent[1] : to_child[1];
    int rfd = is_child ? to_child[0] : to_parent[0];
    if (write(wfd, &c, 1) != 1 || read(rfd, &c, 1) != 1) return -1;
    return 0;
}

/* ---- messages: aux is the sequence number, the payload a pattern of it ---- */
static unsigned expect_next;
static int got_bad;

static unsigned char pat(unsigned i, size_t k)
{
    return (unsigned char)(i * 5u + k * 11u + 3u);
}

static void handler(void *arg, int peer, const tr_am_rx_t *m)
{
    (void)arg;
    unsigned i = (unsigned)m->hdr.aux;
    if (peer != 1 || m->hdr.type != 7 || i != expect_next || m->len != i % 100) got_bad = 1;
    unsigned char buf[100];
    tr_am_copy(m, 0, buf, m->len < sizeof buf ? m->len : sizeof buf);
    for (size_t k = 0; k < m->len && k < sizeof buf; k++)
        if (buf[k] != pat(i, k)) got_bad = 1;
    expect_next++;
}

static long elapsed_ms(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Peer 0: announce, tell peer 1, poll once more, then sleep on the descriptor
 * until message i is in. */
static void receiver(tr_iface_t *tr)
{
    int fd = tr->ops->sleep_fd(tr);
    if (fd < 0) die("the tcp provider's completion queue has no descriptor");
    unsigned long aborts = 0, sleeps = 0;
    for (unsigned i = 0; i < NWAKE; i++) {
        while (tr->ops->sleep_prepare(tr) != 0) tr_progress(tr);
        if (i < NQUIET) {
            /* nothing is on the way: the descriptor must not be readable */
            struct pollfd q = { .fd = fd, .events = POLLIN };
            if (poll(&q, 1, 50) != 0) die("the descriptor is readable with nothing on the way");
        }
        char c = 1;
        if (write(to_child[1], &c, 1) != 1) die("pipe");
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int announced = 1;
        while (expect_next <= i) {
            if (!announced) {
                if (tr->ops->sleep_prepare(tr) != 0) {
                    tr_progress(tr);
                    continue;
                }
                announced = 1;
            }
            if (tr_progress(tr) > 0) {        /* the policy's last poll */
                tr->ops->sleep_cancel(tr);
                announced = 0;
                aborts++;
                continue;
            }
            struct pollfd p = { .fd = fd, .events = POLLIN };
            int rc = poll(&p, 1, LIMIT_MS);
            tr->ops->sleep_cancel(tr);
            announced = 0;
            sleeps++;
            if (rc == 0) die("a sleep ran to the 5 s limit: lost wake-up");
            if (elapsed_ms(&t0) > LIMIT_MS) die("message took over 5 s");
        }
        if (got_bad) die("a message arrived damaged or out of order");
    }
    printf("ofi wait (%s): %d messages each woke a sleeper (%lu sleeps, %lu announcements "
           "cancelled by the last poll)\n", ofi_provider_name(), NWAKE, sleeps, aborts);
}

/* Peer 1: for each token, send at once or after up to 300 us, polling
 * meanwhile (connection set-up and sends need it). */
static void sender(tr_iface_t *tr, uint64_t addr)
{
    fcntl(to_child[0], F_SETFL, O_NONBLOCK);
    srand(12345);
    for (unsigned i = 0; i < NWAKE; i++) {
        char c;
        while (read(to_child[0], &c, 1) != 1) tr_progress(tr);
        long delay_ns = i % 3 == 0 ? 0 : (rand() % 300) * 1000L;
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) >= delay_ns) break;
        }
        unsigned char buf[100];
        size_t len = i % 100;
        for (size_t k = 0; k < len; k++) buf[k] = pat(i, k);
        tr_am_hdr_t h = { .type = 7, .aux = i };
        tr_status_t st;
        while ((st = tr_am_short(tr, addr, &h, buf, len)) == TR_ERR_NO_RESOURCE) tr_progress(tr);
        if (st != TR_OK) die("send failed");
    }
}

/* The second run, FI_PROVIDER=tcp,net, in a process of its own: libfabric
 * reads FI_PROVIDER once. */
static int run_native(const char *self)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        execl(self, self, "tcp,net", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
    const char *prov = argc > 1 ? argv[1] : "tcp";
    setenv("FI_PROVIDER", prov, 1);
    if (argc > 1) setenv("COURIER_OFI_TCP_NATIVE", "1", 1);   /* net is not the default */
    ut_settings_load();
    snprintf(dir, sizeof dir, "/tmp/courier_ofi_wait.XXXXXX");
    if (!mkdtemp(dir)) die("mkdtemp");
    if (pipe(to_child) || pipe(to_parent)) die("pipe");
    pid_t pid = fork();
    if (pid < 0) die("fork");
    is_child = pid == 0;
    if (is_child) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        alarm(110);
    }
    tr_boot_t boot = { .rank = is_child, .size = 2, .put = boot_put, .get = boot_get,
                       .barrier = boot_barrier };
    tr_iface_t *tr = NULL;
    if (ofi_init(&boot, OFI_PUBLISH, 1, &tr) != 0) tr = NULL;
    char c = tr ? 1 : 0, other = 0;
    /* both learn whether both have the transport, then both go on or skip */
    if (write(is_child ? to_parent[1] : to_child[1], &c, 1) != 1 ||
        read(is_child ? to_child[0] : to_parent[0], &other, 1) != 1)
        die("pipe");
    if (!c || !other) {
        if (is_child) _exit(0);
        waitpid(pid, NULL, 0);
        printf("ofi wait: SKIP (no libfabric tcp provider here)\n");
        return 0;
    }
    if (!(tr->caps.flags & TR_CAP_SLEEP)) die("no TR_CAP_SLEEP with COURIER_OFI_WAIT=1");
    tr->am_handler = handler;
    tr->am_arg = NULL;
    uint64_t addr;
    if (tr_connect(tr, 1 - is_child, &addr) != TR_OK) die("connect");
    if (is_child) sender(tr, addr);
    else receiver(tr);
    tr_finalize(tr);
    if (is_child) _exit(0);
    int status = 0;
    waitpid(pid, &status, 0);
    char path[160];
    for (int r = 0; r < 2; r++) {
        snprintf(path, sizeof path, "%s/%d.courier-ofi-%d", dir, r, r);
        unlink(path);
    }
    rmdir(dir);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("peer 1 failed");
    if (argc == 1 && run_native("/proc/self/exe") != 0) die("the run with FI_PROVIDER=tcp,net failed");
    printf("ofi wait (FI_PROVIDER=%s): all checks passed\n", prov);
    return 0;
}
