/* SPDX-License-Identifier: MIT */
// sources: src/transport/ofi/ofi.c src/transport/ofi/ofi_dl.c src/transport/transport.c src/util/settings.c
// timeout: 60
/* Unit test of the network transport's start (src/transport/ofi/ofi_dl.c):
 * libfabric's verbs provider reads /proc/kallsyms twice when libfabric
 * starts, whatever FI_PROVIDER says, unless COURIER_OFI_KALLSYMS=1 lets it;
 * and libfabric's libpsm2 / libpsm_infinipath (whose constructors sleep 0.1 s
 * each) are replaced by stand-ins where no device for them exists, unless
 * COURIER_OFI_PSM_LIBS=1.  Three processes (forked, so that each starts
 * libfabric afresh) open the transport over the tcp provider: one with the
 * defaults, one with COURIER_OFI_KALLSYMS=1, one with COURIER_OFI_PSM_LIBS=1;
 * each reports the bytes it read (rchar of /proc/self/io), the CPU and wall
 * time the start took and which psm libraries it then had loaded:
 *   - every start works (the redirected fopen and the stand-ins leave
 *     libfabric working);
 *   - by default the start reads less than one copy of /proc/kallsyms;
 *   - where the second one read it (a libfabric with verbs built in), that
 *     is the difference; elsewhere the test says so and passes;
 *   - where the third one loaded the real libpsm2 (a libfabric that links
 *     it) and no Omni-Path/TrueScale device exists, the default start has
 *     the stand-ins and neither libpsm2 nor libinfinipath itself; with such
 *     a device it has the real ones.
 * Skips (passes with a message) where libfabric or its tcp provider is
 * missing. */
#define _GNU_SOURCE
#include <glob.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "transport/ofi/ofi.h"
#include "util/settings.h"

typedef struct {
    int ok;                  /* 1 started, 0 no transport */
    long long read_bytes;    /* rchar during the start */
    double cpu_s;            /* user + system CPU during the start */
    double wall_s;           /* wall time of the start */
    int psm2;                /* libpsm2.so.2 then loaded: 0 no, 1 stand-in, 2 real */
    int infinipath;          /* libinfinipath.so.4 (behind the real psm) loaded */
} start_t;

/* Which psm libraries the process has loaded (dl_iterate_phdr callback). */
static int find_psm(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    start_t *s = arg;
    const char *name = info->dlpi_name;
    if (!name) return 0;
    if (strstr(name, "libpsm2.so"))
        s->psm2 = strncmp(name, COURIER_OFI_STANDIN_DIR "/", strlen(COURIER_OFI_STANDIN_DIR "/"))
                      ? 2 : 1;
    if (strstr(name, "libinfinipath.so")) s->infinipath = 1;
    return 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 1 where an Omni-Path or TrueScale device exists (ofi_dl.c then loads the real libraries). */
static int psm_device(void)
{
    glob_t g;
    int found = glob("/dev/hfi[0-9]_*", 0, NULL, &g) == 0;
    if (found) globfree(&g);
    if (!found && glob("/dev/ipath*", 0, NULL, &g) == 0) {
        found = 1;
        globfree(&g);
    }
    return found;
}

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

/* Start and stop the transport in a child with setting var=value. */
static start_t start_in_child(const char *var, const char *value)
{
    int p[2];
    start_t r = { 0 };
    if (pipe(p) != 0) return r;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        alarm(50);
        setenv(var, value, 1);
        ut_settings_load();
        tr_boot_t boot = { .rank = 0, .size = 1, .put = no_put, .get = no_get,
                           .barrier = no_barrier };
        long long b0 = rchar();
        double c0 = cpu_seconds(), w0 = now_s();
        tr_iface_t *tr = NULL;   /* alone: nothing goes to a bootstrap */
        if (ofi_init(&boot, OFI_ALONE, 1, &tr) != 0) tr = NULL;
        start_t s = { tr != NULL, rchar() - b0, cpu_seconds() - c0, now_s() - w0, 0, 0 };
        dl_iterate_phdr(find_psm, &s);
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

    start_t hidden = start_in_child("COURIER_OFI_KALLSYMS", "0");
    start_t seen = start_in_child("COURIER_OFI_KALLSYMS", "1");
    start_t real = start_in_child("COURIER_OFI_PSM_LIBS", "1");
    if (hidden.ok < 0 || seen.ok < 0 || real.ok < 0) {
        printf("FAIL: a child did not report\n");
        return 1;
    }
    if (!hidden.ok && !seen.ok && !real.ok) {
        printf("ofi start: SKIP (no libfabric tcp provider here)\n");
        return 0;
    }
    int fails = 0;
    printf("ofi start: /proc/kallsyms is %lld bytes\n", ksyms);
    static const char *const psm[] = { "none", "stand-in", "real" };
    const start_t *runs[] = { &hidden, &seen, &real };
    static const char *const names[] = { "default:               ", "COURIER_OFI_KALLSYMS=1:",
                                         "COURIER_OFI_PSM_LIBS=1:" };
    for (int i = 0; i < 3; i++)
        printf("ofi start: %s read %lld bytes, %.3f s of CPU, %.3f s wall; libpsm2 %s, "
               "libinfinipath %s\n", names[i], runs[i]->read_bytes, runs[i]->cpu_s,
               runs[i]->wall_s, psm[runs[i]->psm2], runs[i]->infinipath ? "loaded" : "not loaded");
    if (!hidden.ok || !seen.ok || !real.ok) {
        printf("FAIL: the transport started in only some of them (default %d, kallsyms %d, "
               "psm libs %d)\n", hidden.ok, seen.ok, real.ok);
        fails++;
    }
    if (real.psm2 != 2) {
        printf("ofi start: this libfabric does not link libpsm2: no stand-ins needed\n");
    } else if (psm_device()) {
        if (hidden.psm2 != 2) {
            printf("FAIL: a psm device exists, yet the default start has libpsm2 %s\n",
                   psm[hidden.psm2]);
            fails++;
        }
    } else if (hidden.psm2 != 1 || hidden.infinipath) {
        printf("FAIL: no psm device, yet the default start has libpsm2 %s, libinfinipath %s\n",
               psm[hidden.psm2], hidden.infinipath ? "loaded" : "not loaded");
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
