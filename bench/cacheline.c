/* SPDX-License-Identifier: MIT */
/* The hardware floor under small-message latency: how long one core takes to
 * see a cache line that another core just wrote.  Two processes share one
 * page (a shared anonymous mapping) and bounce a counter through two cache
 * lines, like the flag of a shared-memory MPI message; half the round trip is
 * the one-way hand-over.  No MPI: this is what any MPI's 0-byte latency on this
 * machine is bounded by.
 *   cacheline [iterations]      prints "one-way cache-line hand-over: X ns" */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    _Alignas(64) volatile uint64_t ping;
    _Alignas(64) volatile uint64_t pong;
} lines_t;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    lines_t *l = mmap(NULL, sizeof *l, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (l == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    l->ping = l->pong = 0;
    pid_t child = fork();
    if (child == 0) {
        for (uint64_t i = 1; i <= (uint64_t)n; i++) {
            while (l->ping != i) {}
            l->pong = i;
        }
        _exit(0);
    }
    double best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        uint64_t base = (uint64_t)rep * (uint64_t)n / 5;
        long m = n / 5;
        double t = now();
        for (uint64_t i = base + 1; i <= base + (uint64_t)m; i++) {
            l->ping = i;
            while (l->pong != i) {}
        }
        t = now() - t;
        if (t < best) best = t;
    }
    waitpid(child, NULL, 0);
    printf("one-way cache-line hand-over: %.1f ns (best of 5 x %ld round trips)\n",
           best / (double)(n / 5) / 2 * 1e9, n / 5);
    return 0;
}
