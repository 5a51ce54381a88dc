/* SPDX-License-Identifier: MIT */
/* The hardware floor under small-message latency: how long one core takes to
 * see a cache line that another core just wrote.  Two processes share one
 * page (a shared anonymous mapping) and hand a counter back and forth; half
 * the round trip is the one-way hand-over.  No MPI: this is what any MPI's
 * 0-byte latency on this machine is bounded by.
 *
 *   cacheline [--lines 1|2] [--cpus A,B | --no-pin] [--reps R] [--json] [ROUND_TRIPS]
 *
 * --lines 2 (the default): each process writes its own line and polls the
 *   other's, like the two cells of a shared-memory MPI ping-pong;
 * --lines 1: both write one line (odd values one way, even values back), the
 *   least a hand-over can cost.
 * By default the two processes are pinned to the first two CPUs this process
 * may run on (on a loaded machine two unpinned spinners can share a core and
 * then wait for time slices); --cpus picks the CPUs, --no-pin leaves it to the
 * scheduler.  ROUND_TRIPS (default 2000000) are split into R repetitions
 * (default 5), each timed; the best is reported, and the median too.
 * Prints "one-way cache-line hand-over: X ns (...)", or with --json one line
 * {"test": "cacheline", "lines": .., "cpus": [A, B] or null, "best_ns": .., ...}. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CACHELINE_REPS_MAX 101

typedef struct {
    _Alignas(64) volatile uint64_t ping; /* written by the parent (and, with one line, by both) */
    _Alignas(64) volatile uint64_t pong; /* written by the child with two lines */
    _Alignas(64) volatile int ready;     /* the child: 1 when pinned and running, 2 when it cannot pin */
} cacheline_lines_t;

typedef struct {
    int lines;
    int pin;
    int cpu[2];
    int reps;
    int json;
    long round_trips;
} cacheline_opts_t;

static double cacheline_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cacheline_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

/* The first two CPUs this process may run on; 0 when there are fewer than two. */
static int cacheline_default_cpus(int cpu[2])
{
    cpu_set_t set;
    int n = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
        if (CPU_ISSET(c, &set)) cpu[n++] = c;
    return n == 2;
}

static void cacheline_usage(void)
{
    fprintf(stderr, "usage: cacheline [--lines 1|2] [--cpus A,B | --no-pin] [--reps R] [--json] "
                    "[ROUND_TRIPS]\n");
    exit(2);
}

static cacheline_opts_t cacheline_parse(int argc, char **argv)
{
    cacheline_opts_t o = {.lines = 2, .pin = 1, .cpu = {-1, -1}, .reps = 5, .json = 0,
                          .round_trips = 2000000};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--lines") && i + 1 < argc) {
            o.lines = atoi(argv[++i]);
            if (o.lines != 1 && o.lines != 2) cacheline_usage();
        } else if (!strcmp(argv[i], "--cpus") && i + 1 < argc) {
            if (sscanf(argv[++i], "%d,%d", &o.cpu[0], &o.cpu[1]) != 2) cacheline_usage();
        } else if (!strcmp(argv[i], "--no-pin")) {
            o.pin = 0;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            o.reps = atoi(argv[++i]);
            if (o.reps < 1 || o.reps > CACHELINE_REPS_MAX) cacheline_usage();
        } else if (!strcmp(argv[i], "--json")) {
            o.json = 1;
        } else if (argv[i][0] != '-') {
            o.round_trips = atol(argv[i]);
        } else {
            cacheline_usage();
        }
    }
    if (o.round_trips < o.reps) cacheline_usage();
    if (o.pin && o.cpu[0] < 0 && !cacheline_default_cpus(o.cpu)) o.pin = 0;
    return o;
}

/* The child's side: answer round trips 1..n. */
static void cacheline_child(cacheline_lines_t *l, int lines, uint64_t n)
{
    for (uint64_t i = 1; i <= n; i++) {
        if (lines == 1) {
            while (l->ping != 2 * i - 1) {}
            l->ping = 2 * i;
        } else {
            while (l->ping != i) {}
            l->pong = i;
        }
    }
}

static int cacheline_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    cacheline_opts_t o = cacheline_parse(argc, argv);
    long m = o.round_trips / o.reps;
    uint64_t n = (uint64_t)m * (uint64_t)o.reps;
    cacheline_lines_t *l = mmap(NULL, sizeof *l, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                                -1, 0);
    if (l == MAP_FAILED) {
        perror("cacheline: mmap");
        return 1;
    }
    l->ping = l->pong = 0;
    l->ready = 0;
    if (o.pin && cacheline_pin(o.cpu[0]) != 0) {
        fprintf(stderr, "cacheline: cannot pin to CPU %d; running unpinned\n", o.cpu[0]);
        o.pin = 0;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("cacheline: fork");
        return 1;
    }
    if (child == 0) {
        if (o.pin && cacheline_pin(o.cpu[1]) != 0) {
            l->ready = 2;
            _exit(3);
        }
        l->ready = 1;
        cacheline_child(l, o.lines, n);
        _exit(0);
    }
    while (l->ready == 0) {}
    if (l->ready != 1) {
        waitpid(child, NULL, 0);
        fprintf(stderr, "cacheline: cannot pin the second process to CPU %d\n", o.cpu[1]);
        return 1;
    }
    double ns[CACHELINE_REPS_MAX];
    for (int rep = 0; rep < o.reps; rep++) {
        uint64_t base = (uint64_t)rep * (uint64_t)m;
        double t = cacheline_now();
        for (uint64_t i = base + 1; i <= base + (uint64_t)m; i++) {
            if (o.lines == 1) {
                l->ping = 2 * i - 1;
                while (l->ping != 2 * i) {}
            } else {
                l->ping = i;
                while (l->pong != i) {}
            }
        }
        ns[rep] = (cacheline_now() - t) / (double)m / 2 * 1e9;
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "cacheline: the second process failed\n");
        return 1;
    }
    qsort(ns, (size_t)o.reps, sizeof ns[0], cacheline_cmp);
    double best = ns[0], median = ns[o.reps / 2];
    char where[64] = "unpinned";
    if (o.pin) snprintf(where, sizeof where, "pinned to CPUs %d,%d", o.cpu[0], o.cpu[1]);
    if (o.json) {
        char cpus[32] = "null";
        if (o.pin) snprintf(cpus, sizeof cpus, "[%d, %d]", o.cpu[0], o.cpu[1]);
        printf("{\"test\": \"cacheline\", \"lines\": %d, \"cpus\": %s, \"reps\": %d, "
               "\"round_trips\": %ld, \"best_ns\": %.2f, \"median_ns\": %.2f}\n",
               o.lines, cpus, o.reps, m, best, median);
    } else {
        printf("one-way cache-line hand-over: %.1f ns (best of %d x %ld round trips, median %.1f; "
               "%s; %s)\n", best, o.reps, m, median, o.lines == 1 ? "one line" : "two lines", where);
    }
    return 0;
}
