/* SPDX-License-Identifier: MIT */
/* courier_info: the version, every tunable setting, the network providers and
 * the MPI API coverage.
 *   courier_info                 version, network providers and settings
 *   courier_info --settings-md   the settings as a Markdown table (docs/settings.md)
 *   courier_info --api           implemented / total procedures and the missing ones
 *   courier_info --topology [-n N] [-ppn N] [-hosts H,...] [-f FILE] [-bind-to X] [-map-by Y]
 *                                the machine as hwloc sees it, and where mpiexec would
 *                                put and bind N ranks with those options (launcher/place.c)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"
#include "util/settings.h"
#include "binding/api_table.h"
#include "transport/ofi/ofi.h"
#include "place.h"

#ifndef COURIER_VERSION
#define COURIER_VERSION "unknown"
#endif

static const char *default_str(const ut_setting_desc_t *d, char *buf, size_t len)
{
    if (d->type == UT_SET_STRING) snprintf(buf, len, "%s", d->def ? (const char *)d->def : "");
    else if (d->type == UT_SET_BOOL) snprintf(buf, len, "%s", d->def ? "true" : "false");
    else snprintf(buf, len, "%ld", d->def);
    return buf;
}

static const char *current_str(const ut_setting_desc_t *d, char *buf, size_t len)
{
    long v = *ut_setting_slot(d);
    if (d->type == UT_SET_STRING) snprintf(buf, len, "%s", v ? (const char *)v : "");
    else if (d->type == UT_SET_BOOL) snprintf(buf, len, "%s", v ? "true" : "false");
    else snprintf(buf, len, "%ld", v);
    return buf;
}

static void print_settings(void)
{
    char env[128], def[64], cur[256];
    printf("Settings (environment variables; `mpiexec -env` sets them too):\n");
    for (int i = 0; i < ut_setting_count; i++) {
        const ut_setting_desc_t *d = &ut_setting_descs[i];
        ut_setting_env(d, env, sizeof env);
        printf("  %-28s %-6s default %-8s current %-8s range %ld .. %ld\n      %s\n", env,
               ut_setting_type_name(d->type), default_str(d, def, sizeof def),
               current_str(d, cur, sizeof cur), d->min, d->max, d->doc);
    }
}

static void print_settings_md(void)
{
    char env[128], def[64];
    printf("| Variable | Type | Default | Range | Description |\n|---|---|---|---|---|\n");
    for (int i = 0; i < ut_setting_count; i++) {
        const ut_setting_desc_t *d = &ut_setting_descs[i];
        ut_setting_env(d, env, sizeof env);
        printf("| `%s` | %s | %s | %ld .. %ld | %s |\n", env, ut_setting_type_name(d->type),
               default_str(d, def, sizeof def), d->min, d->max, d->doc);
    }
}

static void print_api(void)
{
    int done = 0;
    for (int i = 0; i < cr_api_count; i++) done += cr_api_table[i].implemented;
    /* The table is every procedure of the standard's API description that
     * maint/gen_bindings.py reads (pympistandard 0.2.0's apis.json): MPI 4.1's
     * and MPI 5.0's ABI procedures, so more than the MPI version Courier
     * reports (MPI_VERSION, what MPI_Get_version says) contains. */
    printf("MPI procedures of the standard's API description (pympistandard 0.2.0: MPI 4.1 and "
           "MPI 5.0's ABI chapter; C, with large-count forms): %d of %d implemented\n",
           done, cr_api_count);
    printf("MPI_Get_version reports MPI %d.%d; MPI_Abi_get_version -1.-1 (MPICH ABI, not the "
           "MPI 5.0 standard ABI)\n", MPI_VERSION, MPI_SUBVERSION);
    printf("Not implemented yet:%s\n", done == cr_api_count ? " none" : "");
    for (int i = 0; i < cr_api_count; i++)
        if (!cr_api_table[i].implemented) printf("  %s\n", cr_api_table[i].name);
}

static int topo_usage(const char *why)
{
    fprintf(stderr, "courier_info --topology: %s\n"
            "usage: courier_info --topology [-n N] [-ppn N] [-hosts H1,H2:2,...] [-f FILE]\n"
            "                               [-bind-to LEVEL] [-map-by LEVEL[:PE=n]]\n", why);
    return 2;
}

/* The machine, then where mpiexec would run and bind the ranks (each host
 * taken to look like this one). */
static int print_topology(int argc, char **argv)
{
    la_hostlist_t hl = { 0 };
    la_place_t o = { 0 };
    int n = -1, bind_given = 0;
    char err[512];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i][0] == '-' && argv[i][1] == '-' ? argv[i] + 1 : argv[i];
        if (i + 1 >= argc) return topo_usage("an option lacks its value");
        const char *v = argv[++i];
        if (!strcmp(a, "-n") || !strcmp(a, "-np")) {
            n = atoi(v);
            if (n < 1) return topo_usage("bad -n");
        } else if (!strcmp(a, "-ppn") || !strcmp(a, "-npernode")) {
            o.ppn = atoi(v);
            if (o.ppn < 1) return topo_usage("bad -ppn");
        } else if (!strcmp(a, "-hosts") || !strcmp(a, "-host")) {
            if (la_hosts_parse_list(&hl, v, err, sizeof err) < 0) return topo_usage(err);
        } else if (!strcmp(a, "-f") || !strcmp(a, "-hostfile") || !strcmp(a, "-machinefile")) {
            if (la_hosts_parse_file(&hl, v, err, sizeof err) < 0) return topo_usage(err);
        } else if (!strcmp(a, "-bind-to")) {
            if (la_place_parse_bind(&o, v, err, sizeof err) < 0) return topo_usage(err);
            bind_given = 1;
        } else if (!strcmp(a, "-map-by")) {
            if (la_place_parse_map(&o, v, err, sizeof err) < 0) return topo_usage(err);
        } else {
            return topo_usage("unknown option");
        }
    }
    la_topo_t *t = la_topo_load(err, sizeof err);
    if (!t) {
        fprintf(stderr, "courier_info: %s\n", err);
        return 1;
    }
    la_topo_print(t, stdout);
    if (n < 0) n = hl.n ? la_hosts_total_slots(&hl) : 1;
    if (!hl.n) la_hosts_parse_list(&hl, "localhost", err, sizeof err);
    if (!bind_given && o.pe == 0) o.bind = LA_LVL_CORE;
    la_place_finish(&o, getenv("OMP_NUM_THREADS"));
    o.progress = la_place_progress(getenv("COURIER_ASYNC_PROGRESS"), getenv("MPIR_CVAR_ASYNC_PROGRESS"));
    printf("\nMapping of %d process%s: -bind-to %s%s -map-by %s, %d %s%s per process%s\n", n, n == 1 ? "" : "es",
           la_level_name(o.bind), bind_given ? "" : " (mpiexec binds only when asked)", la_level_name(o.map),
           o.pe, o.bind == LA_LVL_HWTHREAD ? "hwthread" : "core", o.pe == 1 ? "" : "s",
           o.pe_from_omp ? " (from OMP_NUM_THREADS)" : "");
    int *host_of = malloc(sizeof(int) * (size_t)n);
    la_hosts_map(&hl, n, o.ppn, o.by_node, host_of);
    for (int h = 0; h < hl.n; h++) {
        int nl = 0;
        for (int r = 0; r < n; r++) nl += host_of[r] == h;
        if (!nl) continue;
        printf("  host %s: %d process%s\n", hl.h[h].name, nl, nl == 1 ? "" : "es");
        la_binding_t *b = calloc((size_t)nl, sizeof *b);
        char why[512];
        int bound = la_topo_place(t, &o, nl, b, why, sizeof why);
        if (!bound && why[0]) printf("    %s\n", why);
        for (int r = 0, li = 0; r < n; r++) {
            if (host_of[r] != h) continue;
            char desc[1024], cpus[256];
            if (bound) {
                la_topo_describe(t, &b[li].cpus, desc, sizeof desc);
                la_cpus_format(&b[li].cpus, cpus, sizeof cpus);
                printf("    rank %d (local %d): cpus %s  %s  OMP_PLACES=%s\n", r, li, cpus, desc, b[li].omp_places);
                if (b[li].progress != LA_PROGRESS_NONE) {
                    la_cpus_format(&b[li].progress_cpus, cpus, sizeof cpus);
                    printf("      progress thread (COURIER_ASYNC_PROGRESS): cpus %s%s\n", cpus,
                           b[li].progress == LA_PROGRESS_SHARED ? " (shared with the rank)" : "");
                }
            } else {
                printf("    rank %d (local %d): not bound\n", r, li);
            }
            li++;
        }
        la_binding_free(b, nl);
        free(b);
    }
    free(host_of);
    la_hosts_free(&hl);
    la_topo_free(t);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 0;
    if (ut_settings_load() != 0) {
        fprintf(stderr, "courier_info: %s\n", ut_settings_error());
        rc = 1;
    }
    if (argc > 1 && strcmp(argv[1], "--settings-md") == 0) {
        print_settings_md();
    } else if (argc > 1 && strcmp(argv[1], "--api") == 0) {
        print_api();
    } else if (argc > 1 && strcmp(argv[1], "--topology") == 0) {
        return print_topology(argc, argv);
    } else if (argc > 1) {
        fprintf(stderr, "usage: courier_info [--settings-md | --api | --topology [options]]\n");
        return 2;
    } else {
        printf("Courier %s: MPI %d.%d, MPICH ABI (libmpi.so.12)\n\n", COURIER_VERSION,
               MPI_VERSION, MPI_SUBVERSION);
        printf("Network transport (between nodes): ");
        ofi_print_providers(stdout);
        printf("\n");
        print_settings();
    }
    return rc;
}
