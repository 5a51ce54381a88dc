/* SPDX-License-Identifier: MIT */
/* A PMI client for the launcher tests, built from src/pmi/pmi.c directly.
 * Usage: pmi_test MODE [ARGS...] [--marker=ANY]
 * (arguments starting with --marker are ignored: the scripts use them to find
 * their processes with pgrep -f).  Modes:
 *   kvs                 every rank puts a long value, barrier, checks every
 *                       other rank's value; twice, then with 8000-byte values
 *                       (longer than PMI allows: stored in parts); prints
 *                       "PASS size N" on rank 0
 *   exit R CODE         rank R exits with CODE after a barrier; the others sleep
 *   segv R              rank R raises SIGSEGV after a barrier; the others wait in
 *                       a barrier that never completes
 *   abort R CODE MSG    rank R calls crpmi_abort(CODE, MSG); the others wait in a barrier
 *   nofinalize          every rank exits 0 without crpmi_finalize
 *   sleep               every rank creates /dev/shm/courier.<kvs>.test<rank>, prints
 *                       "ready RANK PID" and sleeps
 *   ignoreterm R CODE   every rank but R ignores SIGTERM and sleeps; R exits CODE
 *   lines K             every rank prints K lines, each in several write() calls
 *   stdin               rank 0 copies its stdin to stdout, prefixed with "got: "
 *   env NAME            prints "NAME=value" or "NAME unset"
 *   partial             prints "no newline" without a newline, then exits normally
 *   where               every rank publishes "host local-rank local-size cpus"; rank 0
 *                       prints "rank R host H local L of N cpus C" for every rank
 *   usr1                every rank prints "ready RANK PID", waits for SIGUSR1, prints
 *                       "rank R got SIGUSR1"
 *   flood R MS LIMIT    rank R writes PMI requests as fast as it can for MS ms without
 *                       reading the replies; the others time PMI gets meanwhile and fail
 *                       when one takes LIMIT ms or more; prints "PASS flood" on rank 0 */
#define _GNU_SOURCE
#include "pmi/pmi.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static crpmi_info_t info;

static void fail(const char *what)
{
    fprintf(stderr, "pmi_test rank %d: FAIL: %s\n", info.rank, what);
    exit(1);
}

static void make_value(char *buf, int len, int rank, int round)
{
    int n = snprintf(buf, (size_t)len, "r%d-round%d-", rank, round);
    for (int i = n; i < len - 1; i++) buf[i] = (char)('a' + (rank * 7 + i + round) % 26);
    buf[len - 1] = '\0';
}

static void sleep_forever(void)
{
    for (;;) pause();
}

static int mode_kvs(void)
{
    /* rounds 0 and 1: values every launcher takes whole; round 2: longer
     * than any launcher's limit (stored in parts by crpmi_put) */
    static char val[9000], want[9000], got[9000];
    char key[64];
    for (int round = 0; round < 3; round++) {
        int base = round < 2 ? 600 : 8000;
        snprintf(key, sizeof key, "key-%d-%d", round, info.rank);
        make_value(val, base + info.rank % 3, info.rank, round);
        if (crpmi_put(key, val) < 0) fail("put");
        if (crpmi_barrier() < 0) fail("barrier");
        for (int r = 0; r < info.size; r++) {
            snprintf(key, sizeof key, "key-%d-%d", round, r);
            make_value(want, base + r % 3, r, round);
            if (crpmi_get(r, key, got, sizeof got) < 0) fail("get");
            if (strcmp(got, want)) fail("value differs");
        }
    }
    if (crpmi_get(0, "no-such-key", got, sizeof got) == 0) fail("get of a missing key succeeded");
    if (crpmi_barrier() < 0) fail("last barrier");
    if (info.rank == 0) printf("PASS size %d kvs %s\n", info.size, info.kvsname);
    return 0;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int mode_where(void)
{
    char key[64], val[512], cpus[256] = "?", line[512];
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Cpus_allowed_list:", 18)) sscanf(line + 18, "%255s", cpus);
    if (f) fclose(f);
    char host[256];
    gethostname(host, sizeof host);
    const char *lr = getenv("MPI_LOCALRANKID"), *ln = getenv("MPI_LOCALNRANKS");
    snprintf(key, sizeof key, "where-%d", info.rank);
    snprintf(val, sizeof val, "%s,%s,%s,%s", host, lr ? lr : "?", ln ? ln : "?", cpus);
    if (crpmi_put(key, val) < 0) fail("put");
    if (crpmi_barrier() < 0) fail("barrier");
    if (info.rank == 0) {
        for (int r = 0; r < info.size; r++) {
            char got[512], h[256], l[32], n[32], c[256];
            snprintf(key, sizeof key, "where-%d", r);
            if (crpmi_get(r, key, got, sizeof got) < 0) fail("get");
            if (sscanf(got, "%255[^,],%31[^,],%31[^,],%255s", h, l, n, c) != 4) fail("value");
            printf("rank %d host %s local %s of %s cpus %s\n", r, h, l, n, c);
        }
    }
    return 0;
}

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig) { got_usr1 = 1; }

static int mode_usr1(void)
{
    signal(SIGUSR1, on_usr1);
    if (crpmi_barrier() < 0) fail("barrier");
    printf("ready %d %d %s\n", info.rank, (int)getpid(), info.kvsname);
    fflush(stdout);
    while (!got_usr1) pause();
    printf("rank %d got SIGUSR1\n", info.rank);
    return 0;
}

/* Rank `who` floods the launcher with requests for ms milliseconds without
 * reading the replies, then reads them all; the others time their gets. */
static int mode_flood(int who, int ms, int limit)
{
    char key[64];
    snprintf(key, sizeof key, "flood-%d", info.rank);
    if (crpmi_put(key, "x") < 0 || crpmi_barrier() < 0) fail("put/barrier");
    if (info.rank == who) {
        int fd = atoi(getenv("PMI_FD") ? getenv("PMI_FD") : "-1");
        if (fd < 0) fail("flood needs PMI_FD");
        char req[512];
        int len = snprintf(req, sizeof req, "cmd=get kvsname=%s key=no-such-key\n", info.kvsname);
        long long end = now_ms() + ms, sent = 0;
        while (now_ms() < end) {
            struct pollfd pf = { .fd = fd, .events = POLLOUT };
            if (poll(&pf, 1, 10) <= 0) continue;
            ssize_t n = send(fd, req, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n == len) {
                sent++;
            } else if (n > 0) {   /* finish the line */
                if (write(fd, req + n, (size_t)(len - n)) != len - n) fail("flood write");
                sent++;
            } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
                fail("flood send");
            }
        }
        /* read every reply: the connection is in step again */
        long long lines = 0;
        char buf[65536];
        while (lines < sent) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n <= 0) fail("flood read");
            for (ssize_t i = 0; i < n; i++) lines += buf[i] == '\n';
        }
        fprintf(stderr, "rank %d: flooded with %lld requests\n", info.rank, sent);
    } else {
        struct timespec ts = { 0, 100 * 1000000 };
        nanosleep(&ts, NULL);
        long long end = now_ms() + ms / 2, worst = 0, count = 0;
        char got[64];
        snprintf(key, sizeof key, "flood-%d", (info.rank + 1) % info.size);
        while (now_ms() < end) {
            long long t0 = now_ms();
            if (crpmi_get((info.rank + 1) % info.size, key, got, sizeof got) < 0) fail("get during the flood");
            long long dt = now_ms() - t0;
            if (dt > worst) worst = dt;
            count++;
        }
        fprintf(stderr, "rank %d: %lld gets during the flood, slowest %lld ms\n", info.rank, count, worst);
        if (worst >= limit) fail("a get took too long during the flood");
    }
    if (crpmi_barrier() < 0) fail("barrier after the flood");
    if (info.rank == 0) printf("PASS flood\n");
    return 0;
}

static void write_str(const char *s)
{
    size_t len = strlen(s);
    while (len) {
        ssize_t n = write(1, s, len);
        if (n <= 0) exit(3);
        s += n;
        len -= (size_t)n;
    }
}

int main(int argc, char **argv)
{
    /* Drop the marker arguments. */
    int n = 0;
    for (int i = 0; i < argc; i++)
        if (strncmp(argv[i], "--marker", 8)) argv[n++] = argv[i];
    argc = n;
    if (argc < 2) {
        fprintf(stderr, "usage: pmi_test MODE [ARGS]\n");
        return 2;
    }
    const char *mode = argv[1];
    if (crpmi_init(&info) < 0) fail("init");
    if (info.size < 1 || info.rank < 0 || info.rank >= info.size || !info.kvsname[0]) fail("info");
    const char *es = getenv("PMI_SIZE");
    if (es && atoi(es) != info.size) fail("size differs from PMI_SIZE");
    int arg1 = argc > 2 ? atoi(argv[2]) : 0, arg2 = argc > 3 ? atoi(argv[3]) : 0;

    if (!strcmp(mode, "kvs")) {
        mode_kvs();
    } else if (!strcmp(mode, "exit")) {
        if (crpmi_barrier() < 0) fail("barrier");
        if (info.rank == arg1) exit(arg2);
        sleep_forever();
    } else if (!strcmp(mode, "segv")) {
        if (crpmi_barrier() < 0) fail("barrier");
        if (info.rank == arg1) {
            signal(SIGSEGV, SIG_DFL);   /* not a sanitizer's handler */
            raise(SIGSEGV);
        }
        crpmi_barrier();
        sleep_forever();
    } else if (!strcmp(mode, "abort")) {
        if (crpmi_barrier() < 0) fail("barrier");
        if (info.rank == arg1) crpmi_abort(arg2, argc > 4 ? argv[4] : "");
        crpmi_barrier();
        sleep_forever();
    } else if (!strcmp(mode, "nofinalize")) {
        if (crpmi_barrier() < 0) fail("barrier");
        exit(0);
    } else if (!strcmp(mode, "sleep") || !strcmp(mode, "ignoreterm")) {
        char path[512];
        snprintf(path, sizeof path, "/dev/shm/courier.%s.test%d", info.kvsname, info.rank);
        int fd = open(path, O_CREAT | O_WRONLY, 0600);
        if (fd < 0) fail("creating the /dev/shm file");
        close(fd);
        if (!strcmp(mode, "ignoreterm")) {
            if (info.rank == arg1) {
                if (crpmi_barrier() < 0) fail("barrier");
                exit(arg2);
            }
            signal(SIGTERM, SIG_IGN);
            crpmi_barrier();
        }
        printf("ready %d %d %s\n", info.rank, (int)getpid(), info.kvsname);
        fflush(stdout);
        sleep_forever();
    } else if (!strcmp(mode, "lines")) {
        char part[256];
        for (int i = 0; i < arg1; i++) {
            snprintf(part, sizeof part, "rank %d ", info.rank);
            write_str(part);
            snprintf(part, sizeof part, "line %d ", i);
            write_str(part);
            memset(part, 'x', 100);
            part[100] = '\n';
            part[101] = '\0';
            write_str(part);
        }
    } else if (!strcmp(mode, "stdin")) {
        if (info.rank == 0) {
            char buf[4096];
            size_t len = fread(buf, 1, sizeof buf - 1, stdin);
            buf[len] = '\0';
            printf("got: %s", buf);
        }
    } else if (!strcmp(mode, "env")) {
        const char *v = argc > 2 ? getenv(argv[2]) : NULL;
        if (v) printf("%s=%s\n", argv[2], v);
        else printf("%s unset\n", argc > 2 ? argv[2] : "?");
    } else if (!strcmp(mode, "where")) {
        mode_where();
    } else if (!strcmp(mode, "usr1")) {
        mode_usr1();
    } else if (!strcmp(mode, "flood")) {
        mode_flood(arg1, arg2, argc > 4 ? atoi(argv[4]) : 500);
    } else if (!strcmp(mode, "partial")) {
        printf("no newline");
    } else {
        fail("unknown mode");
    }
    fflush(stdout);
    if (crpmi_finalize() < 0) fail("finalize");
    return 0;
}
