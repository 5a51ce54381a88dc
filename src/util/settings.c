/* SPDX-License-Identifier: MIT */
/* The settings table read from the environment: parsing, other MPIs' names,
 * range checks (settings.h, settings_table.h). */
#include "util/settings.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

unsigned long ut_settings_serial;

ut_settings_t ut_settings = {
#define CR_SETTING(field, type, def, min, max, doc) .field = (def),
#define CR_SETTING_ALIAS(field, name)
#define CR_SETTING_ALIAS_UNIT(field, name, unit)
#include "util/settings_table.h"
#undef CR_SETTING_ALIAS_UNIT
#undef CR_SETTING_ALIAS
#undef CR_SETTING
};

const ut_setting_desc_t ut_setting_descs[] = {
#define CR_SETTING(field, type, def, min, max, doc) \
    { #field, UT_SET_##type, (def), (min), (max), doc, offsetof(ut_settings_t, field) },
#define CR_SETTING_ALIAS(field, name)
#define CR_SETTING_ALIAS_UNIT(field, name, unit)
#include "util/settings_table.h"
#undef CR_SETTING_ALIAS_UNIT
#undef CR_SETTING_ALIAS
#undef CR_SETTING
};

/* Other MPIs' names for settings: (field, variable, unit) from the table; a
 * value given under the other name counts in units of `unit` of the
 * setting's own (MPICH's timeouts in seconds for a setting in ms: 1000). */
typedef struct {
    const char *field, *env;
    long unit;
} setting_alias_t;
static const setting_alias_t setting_aliases[] = {
#define CR_SETTING(field, type, def, min, max, doc)
#define CR_SETTING_ALIAS(field, name) { #field, name, 1 },
#define CR_SETTING_ALIAS_UNIT(field, name, unit) { #field, name, (unit) },
#include "util/settings_table.h"
#undef CR_SETTING_ALIAS_UNIT
#undef CR_SETTING_ALIAS
#undef CR_SETTING
    { NULL, NULL, 1 }
};

static const setting_alias_t *alias_of(const char *field)
{
    for (int i = 0; setting_aliases[i].field; i++)
        if (!strcmp(setting_aliases[i].field, field)) return &setting_aliases[i];
    return NULL;
}
const int ut_setting_count = sizeof(ut_setting_descs) / sizeof(ut_setting_descs[0]);

static char load_error[512];

/* Settings given a value through the tools interface before MPI_Init: loading
 * the environment leaves them as they are. */
static unsigned char pinned[sizeof(ut_setting_descs) / sizeof(ut_setting_descs[0])];

void ut_setting_pin(int i)
{
    if (i >= 0 && i < ut_setting_count) pinned[i] = 1;
}

int ut_settings_notice;
/* per setting written outside its range through the tools interface: the
 * value written (read back while held) and the one used, and whether its
 * notice still waits */
static struct {
    unsigned char held, waits;
    long written, used;
} outside_of[sizeof(ut_setting_descs) / sizeof(ut_setting_descs[0])];

void ut_setting_written(int i, long written, long used, int outside, int say)
{
    if (i < 0 || i >= ut_setting_count) return;
    outside_of[i].held = (unsigned char)outside;
    outside_of[i].written = written, outside_of[i].used = used;
    __atomic_store_n(&outside_of[i].waits, (unsigned char)(outside && say), __ATOMIC_RELEASE);
    if (outside && say) __atomic_store_n(&ut_settings_notice, 1, __ATOMIC_RELEASE);
}

int ut_setting_held(int i, long *written)
{
    if (i < 0 || i >= ut_setting_count || !outside_of[i].held) return 0;
    *written = outside_of[i].written;
    return 1;
}

void ut_settings_say(void)
{
    if (!__atomic_exchange_n(&ut_settings_notice, 0, __ATOMIC_ACQ_REL)) return;
    for (int i = 0; i < ut_setting_count; i++) {
        if (!__atomic_exchange_n(&outside_of[i].waits, 0, __ATOMIC_ACQ_REL)) continue;
        const ut_setting_desc_t *d = &ut_setting_descs[i];
        char env[96];
        ut_setting_env(d, env, sizeof env);
        fprintf(stderr, "courier: %s is %ld (written through MPI_T), outside its range "
                "%ld..%ld: the library uses %ld\n", env, outside_of[i].written, d->min, d->max,
                outside_of[i].used);
    }
}

const char *ut_setting_type_name(ut_setting_type_t t)
{
    switch (t) {
    case UT_SET_INT: return "int";
    case UT_SET_SIZE: return "size";
    case UT_SET_BOOL: return "bool";
    case UT_SET_STRING: return "string";
    }
    return "?";
}

/* 0 and the value in *out, or -1 (not a number of the type, or too large to
 * represent: a suffix that would overflow counts as too large). */
static int parse_value(const ut_setting_desc_t *d, const char *s, long *out)
{
    char *end;
    errno = 0;
    if (d->type == UT_SET_STRING) {
        /* the environment's own string: it lives as long as the process */
        *out = (long)(intptr_t)s;
        return 0;
    }
    if (d->type == UT_SET_BOOL) {
        if (!strcasecmp(s, "1") || !strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcasecmp(s, "on")) { *out = 1; return 0; }
        if (!strcasecmp(s, "0") || !strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcasecmp(s, "off")) { *out = 0; return 0; }
        return -1;
    }
    if (d->type == UT_SET_STRING) {   /* the environment's own string, kept as it is */
        *out = (long)(intptr_t)s;
        return 0;
    }
    long v = strtol(s, &end, 0);
    if (errno || end == s) return -1;
    if (d->type == UT_SET_SIZE) {
        int shift = 0;
        switch (tolower((unsigned char)*end)) {
        case 'k': shift = 10; end++; break;
        case 'm': shift = 20; end++; break;
        case 'g': shift = 30; end++; break;
        default: break;
        }
        if (v < 0 || v > (LONG_MAX >> shift)) return -1;
        v <<= shift;
        if (*end == 'b' || *end == 'B') end++;
    }
    if (*end) return -1;
    *out = v;
    return 0;
}

void ut_setting_env(const ut_setting_desc_t *d, char *buf, size_t len)
{
    snprintf(buf, len, "COURIER_%s", d->name);
    for (char *p = buf; *p; p++) *p = (char)toupper((unsigned char)*p);
}

const char *ut_settings_error(void)
{
    return load_error;
}

/* Setting d's value in the environment: COURIER_<NAME>, or when that is unset
 * or empty, another MPI's name for it (CR_SETTING_ALIAS).  env receives the
 * variable's name and *unit what its value counts in (1 but for
 * CR_SETTING_ALIAS_UNIT); NULL when neither is set. */
static const char *env_value(const ut_setting_desc_t *d, char *env, size_t len, long *unit)
{
    ut_setting_env(d, env, len);
    const char *s = getenv(env);
    const setting_alias_t *alias = alias_of(d->name);
    *unit = 1;
    if ((!s || !*s) && alias && (s = getenv(alias->env)) != NULL) {
        snprintf(env, len, "%s", alias->env);
        *unit = alias->unit;
    }
    return s;
}

/* Is setting d given in the environment (its own name or its alias)? */
static int in_env(const ut_setting_desc_t *d)
{
    char env[96];
    long unit;
    const char *s = env_value(d, env, sizeof env, &unit);
    return s && *s;
}

/* The tuning file (COURIER_TUNE_FILE, written by tools/courier_tune): lines
 * NAME=VALUE, NAME a setting's variable (COURIER_X) or field name (x), '#'
 * comments.  A setting given in the environment (or written through the
 * tools interface before MPI_Init) keeps that value. */
static int load_tune_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "courier: cannot read the tuning file COURIER_TUNE_FILE=\"%s\": %s; "
                "using the defaults\n", path, strerror(errno));
        return -1;
    }
    char line[512];
    int rc = 0, no = 0;
    while (fgets(line, sizeof line, f)) {
        no++;
        char *p = line, *eq, *end;
        while (isspace((unsigned char)*p)) p++;
        if (!*p || *p == '#') continue;
        eq = strchr(p, '=');
        end = p + strlen(p);
        while (end > p && isspace((unsigned char)end[-1])) *--end = 0;
        if (!eq) {
            fprintf(stderr, "courier: %s:%d: expected NAME=VALUE\n", path, no);
            rc = -1;
            continue;
        }
        char *name = p, *val = eq + 1;
        for (char *q = eq; q > name && isspace((unsigned char)q[-1]); q--) q[-1] = 0;
        *eq = 0;
        while (isspace((unsigned char)*val)) val++;
        if (!strncasecmp(name, "COURIER_", 8)) name += 8;
        const ut_setting_desc_t *d = NULL;
        for (int i = 0; i < ut_setting_count && !d; i++)
            if (!strcasecmp(ut_setting_descs[i].name, name)) d = &ut_setting_descs[i];
        long v;
        if (!d) {
            fprintf(stderr, "courier: %s:%d: unknown setting \"%s\"\n", path, no, name);
            rc = -1;
        } else if (in_env(d) || pinned[d - ut_setting_descs]) {
            continue;
        } else if (d->type == UT_SET_STRING) {
            char *copy = strdup(val);   /* lives as long as the process */
            if (copy) *ut_setting_slot(d) = (long)(intptr_t)copy;
        } else if (parse_value(d, val, &v) != 0 || v < d->min || v > d->max) {
            fprintf(stderr, "courier: %s:%d: %s=\"%s\" is not a %s in %ld .. %ld\n", path, no,
                    name, val, ut_setting_type_name(d->type), d->min, d->max);
            rc = -1;
        } else {
            *ut_setting_slot(d) = v;
        }
    }
    fclose(f);
    return rc;
}

int ut_settings_load(void)
{
    int rc = 0;
    load_error[0] = '\0';
    __atomic_add_fetch(&ut_settings_serial, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < ut_setting_count; i++) {
        const ut_setting_desc_t *d = &ut_setting_descs[i];
        if (pinned[i]) continue;
        char env[96];
        long unit;
        const char *s = env_value(d, env, sizeof env, &unit);
        long v = d->def;
        if (s && *s) {
            int bad = parse_value(d, s, &v) != 0;
            if (!bad && unit != 1 && d->type != UT_SET_STRING) {
                if (v > LONG_MAX / unit || v < LONG_MIN / unit) bad = 1;
                else v *= unit;
            }
            if (bad || (d->type != UT_SET_STRING && (v < d->min || v > d->max))) {
                if (rc == 0)
                    snprintf(load_error, sizeof load_error, "%s=\"%s\": %s; the range of %s "
                             "is %ld .. %ld (default %ld)", env, s,
                             bad ? "not a value of its type" : "out of range", env, d->min,
                             d->max, d->def);
                v = d->def;
                rc = -1;
            }
        }
        *ut_setting_slot(d) = v;
    }
    const char *tune = ut_setting_str(ut_settings.tune_file);
    /* a bad line of the tuning file is reported on stderr and skipped (the
     * built-in value holds): -1, but no ut_settings_error(), so the job runs */
    if (tune && load_tune_file(tune) != 0) rc = -1;
    return rc;
}
