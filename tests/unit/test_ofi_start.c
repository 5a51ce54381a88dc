/* SPDX-License-Identifier: MIT */
// sources: src/transport/ofi/ofi.c src/transport/ofi/ofi_dl.c src/transport/transport.c src/util/settings.c
// timeout: 60
/* Unit test of the network transport's start (src/transport/ofi/ofi_dl.c):
 * libfabric's verbs provider reads /proc/kallsyms twice when libfabric
 * starts, whatever FI_PROVIDER says, unless COURIER_OFI_KALLSYMS=1 lets it.
 * Two processes (forked, so that each starts libfabric afresh) open the
 * transport over the tcp provider, one with the default and one with
 * COURIER_OFI_KALLSYMS=1, and report the bytes they read (rchar of
 * /proc/self/io) and the CPU time the start took:
 *   - both starts work (the redirected fopen leaves libfabric working);
 *   - by default the start reads less than one copy of /proc/kallsyms;
 *   - where the other one read it (a libfabric with verbs built in), that
 *     is the difference; elsewhere the test says so and passes.
 * Skips (passes with a message) where libfabric or its tcp provider is
 * missing. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "transport/ofi/ofi.h"
#include "util/settings.h"

typedef struct {
    int ok;                  /* 1 started, 0 no transport */
    long long read_bytes;    /* rchar during the start */
    double cpu_s;            /* user + system CPU during the start */
} start_t;

static long long rchar(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    long long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "rchar: %lld", &v) == 1) break;
    if (f) fclose(f);
    return v;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static int no_put(const char *k, const char *v)
{
    (void)k, (void)v;
    return -1;
}

static int no_get(int r, const char *k, char *v, size_t n)
{
    (void)r, (void)k, (void)v, (void)n;
    return -1;
}

static int no_barrier(void)
{
    return -1;
}

/* Start and stop the transport in a child with COURIER_OFI_KALLSYMS=kallsyms. */
static start_t start_in_child(const char *kallsyms)
{
    int p[2];
    start_t r = { 0, 0, 0 };
    if (pipe(p) != 0) return r;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        alarm(50);
        setenv("COURIER_OFI_KALLSYMS", kallsyms, 1);
        ut_settings_load();
        tr_boot_t boot = { .rank = 0, .size = 1, .put = no_put, .get = no_get,
                           .barrier = no_barrier };
        long long b0 = rchar();
        double c0 = cpu_seconds();
        tr_iface_t *tr = NULL;   /* alone: nothing goes to a bootstrap */
        if (ofi_init(&boot, OFI_ALONE, 1, &tr) != 0) tr = NULL;
        start_t s = { tr != NULL, rchar() - b0, cpu_seconds() - c0 };
        if (tr) tr_finalize(tr);
        if (write(p[1], &s, sizeof s) != (ssize_t)sizeof s) _exit(2);
        _exit(0);
    }
    close(p[1]);
    if (pid < 0 || read(p[0], &r, sizeof r) != (ssize_t)sizeof r) r.ok = -1;
    close(p[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    return r;
}

int main(void)
{
    setenv("FI_PROVIDER", "tcp", 1);
    long long ksyms = 0;
    FILE *k = fopen("/proc/kallsyms", "r");
    char line[256];
    while (k && fgets(line, sizeof line, k)) ksyms += (long long)strlen(line);
    if (k) fclose(k);

    start_t hidden = start_in_child("0"), seen = start_in_child("1");
    if (hidden.ok < 0 || seen.ok < 0) {
        printf("FAIL: a child did not report\n");
        return 1;
    }
    if (!hidden.ok && !seen.ok) {
        printf("ofi start: SKIP (no libfabric tcp provider here)\n");
        return 0;
    }
    int fails = 0;
    printf("ofi start: /proc/kallsyms is %lld bytes\n", ksyms);
    printf("ofi start: default:                read %lld bytes, %.3f s of CPU\n",
           hidden.read_bytes, hidden.cpu_s);
    printf("ofi start: COURIER_OFI_KALLSYMS=1: read %lld bytes, %.3f s of CPU\n",
           seen.read_bytes, seen.cpu_s);
    if (!hidden.ok || !seen.ok) {
        printf("FAIL: the transport started in only one of them (default %d, kallsyms %d)\n",
               hidden.ok, seen.ok);
        fails++;
    }
    if (ksyms > 0 && hidden.read_bytes >= ksyms) {
        printf("FAIL: by default the start still read %lld bytes (kallsyms: %lld)\n",
               hidden.read_bytes, ksyms);
        fails++;
    }
    if (ksyms > 0 && seen.read_bytes < ksyms)
        printf("ofi start: this libfabric does not read /proc/kallsyms (no verbs provider "
               "built in): nothing to hide\n");
    if (!fails) printf("ofi start: PASS\n");
    return fails ? 1 : 0;
}
