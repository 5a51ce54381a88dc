/* SPDX-License-Identifier: MIT */
/* courier_info: the version, every tunable setting and the MPI API coverage.
 *   courier_info                 version and settings
 *   courier_info --settings-md   the settings as a Markdown table (docs/settings.md)
 *   courier_info --api           implemented / total procedures and the missing ones
 */
#include <stdio.h>
#include <string.h>
#include "mpi.h"
#include "util/settings.h"
#include "binding/api_table.h"

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
    long v = *(const long *)((const char *)&ut_settings + d->offset);
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
    printf("MPI %d.%d procedures (C, with large-count forms): %d of %d implemented\n",
           MPI_VERSION, MPI_SUBVERSION, done, cr_api_count);
    printf("Not implemented yet:\n");
    for (int i = 0; i < cr_api_count; i++)
        if (!cr_api_table[i].implemented) printf("  %s\n", cr_api_table[i].name);
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
    } else if (argc > 1) {
        fprintf(stderr, "usage: courier_info [--settings-md | --api]\n");
        return 2;
    } else {
        printf("Courier %s: MPI %d.%d, MPICH ABI (libmpi.so.12)\n\n", COURIER_VERSION,
               MPI_VERSION, MPI_SUBVERSION);
        print_settings();
    }
    return rc;
}
