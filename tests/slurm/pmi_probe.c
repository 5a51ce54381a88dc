/* SPDX-License-Identifier: MIT */
/* A PMI client for the process-manager tests, built from src/pmi directly
 * (not libmpi), run by run_slurm_test.sh under srun (--mpi=pmi2, --mpi=pmix),
 * Hydra and Courier's mpiexec.  Usage: pmi_probe FLAVOUR
 * Every rank checks what crpmi_init found (the protocol must be FLAVOUR,
 * "PMI-1", "PMI-2" or "PMIx"; rank and size within bounds and equal to what
 * the launcher's environment says), exchanges a value of every rank through
 * the key-value space twice (long values, each rank's own content), then
 * once with values three times as long (stored in parts: over PMI-2's 1024),
 * checks that a missing key is reported as missing, that every rank of the
 * job is on this node (crpmi_local_ranks, where the launcher says), that the
 * universe is at least the job and that crpmi_check() is happy; rank 0 prints
 * "PASS <flavour> size <n> ..." when every rank passed (a last exchange
 * carries each rank's verdict). */
#include "pmi/pmi.h"
#include "util/settings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the values exchanged (below every launcher's limit). */
#define PROBE_VALLEN 900

static crpmi_info_t info;
static int failures;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pmi_probe rank %d: FAIL: ", info.rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    failures++;
}

static void make_value(char *buf, int len, int rank, int round)
{
    int n = snprintf(buf, (size_t)len, "r%d-round%d-", rank, round);
    for (int i = n; i < len - 1; i++) buf[i] = (char)('A' + (rank * 13 + i * 7 + round) % 58);
    for (int i = n; i < len - 1; i++)
        if (buf[i] == '\\' || buf[i] == '`' || buf[i] == '[' || buf[i] == ']') buf[i] = 'x';
    buf[len - 1] = '\0';
}

static const char *env_rank_var(void)
{
    if (getenv("PMIX_RANK")) return "PMIX_RANK";
    if (getenv("PMI_RANK")) return "PMI_RANK";
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: pmi_probe FLAVOUR\n");
        return 2;
    }
    ut_settings_load();
    if (crpmi_init(&info) < 0) {
        fprintf(stderr, "pmi_probe: FAIL: crpmi_init\n");
        return 1;
    }
    if (strcmp(info.flavour, argv[1])) fail("protocol %s, expected %s", info.flavour, argv[1]);
    if (info.size < 1 || info.rank < 0 || info.rank >= info.size)
        fail("rank %d out of range (size %d)", info.rank, info.size);
    const char *rv = env_rank_var();
    if (rv && atoi(getenv(rv)) != info.rank) fail("rank differs from %s=%s", rv, getenv(rv));
    const char *sz = getenv("SLURM_STEP_NUM_TASKS");
    if (!sz) sz = getenv("PMI_SIZE");
    if (sz && atoi(sz) != info.size)
        fail("size %d differs from the environment's %s", info.size, sz);
    if (info.universe_size < info.size)
        fail("universe size %d below the job's %d", info.universe_size, info.size);
    if (!info.kvsname[0]) fail("empty job name");

    /* rounds 0 and 1 at the launcher's limit; round 2 three times longer
     * (crpmi_put stores it in parts, crpmi_get joins them) */
    static char val[3 * PROBE_VALLEN], want[3 * PROBE_VALLEN], got[3 * PROBE_VALLEN + 8];
    char key[64];
    for (int round = 0; round < 3; round++) {
        int base = round < 2 ? PROBE_VALLEN : 3 * PROBE_VALLEN;
        snprintf(key, sizeof key, "probe-%d-%d", round, info.rank);
        make_value(val, base - info.rank % 5, info.rank, round);
        if (crpmi_put(key, val) < 0) fail("put in round %d", round);
        if (crpmi_barrier() < 0) fail("barrier in round %d", round);
        for (int r = 0; r < info.size; r++) {
            snprintf(key, sizeof key, "probe-%d-%d", round, r);
            make_value(want, base - r % 5, r, round);
            if (crpmi_get(r, key, got, sizeof got) < 0)
                fail("get of %s failed (round %d)", key, round);
            else if (strcmp(got, want))
                fail("value of %s differs (round %d)", key, round);
        }
    }
    if (crpmi_get(info.size - 1, "probe-no-such-key", got, sizeof got) == 0)
        fail("a missing key was found");

    int *local, nlocal;
    if (crpmi_local_ranks(&local, &nlocal) == 0) {
        /* Every test job runs on this one node. */
        if (nlocal != info.size) fail("%d ranks on this node, expected %d", nlocal, info.size);
        for (int i = 0; i < nlocal && i < info.size; i++)
            if (local[i] != i) fail("local rank list has %d at %d", local[i], i);
        free(local);
    } else if (!strcmp(info.flavour, "PMI-2") || !strcmp(info.flavour, "PMIx")) {
        fail("no node-local ranks from the %s launcher", info.flavour);
    }
    char why[256];
    if (crpmi_check(why, sizeof why) != 0) fail("crpmi_check: %s", why);

    /* Everyone's verdict to rank 0. */
    snprintf(key, sizeof key, "probe-verdict-%d", info.rank);
    snprintf(val, sizeof val, "%d", failures);
    if (crpmi_put(key, val) < 0 || crpmi_barrier() < 0) fail("verdict exchange");
    if (info.rank == 0) {
        int total = 0;
        for (int r = 0; r < info.size; r++) {
            snprintf(key, sizeof key, "probe-verdict-%d", r);
            if (crpmi_get(r, key, got, sizeof got) < 0) total++;
            else total += atoi(got);
        }
        if (total == 0)
            printf("PASS %s size %d universe %d appnum %d job %s\n", info.flavour, info.size,
                   info.universe_size, info.appnum, info.kvsname);
        else
            printf("FAILED %s: %d failures\n", info.flavour, total);
    }
    fflush(stdout);
    if (crpmi_finalize() < 0) fail("finalize");
    return failures ? 1 : 0;
}
