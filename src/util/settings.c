/* SPDX-License-Identifier: MIT */
#include "util/settings.h"
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ut_settings_t ut_settings = {
#define CR_SETTING(field, type, def, doc) .field = (def),
#define CR_SETTING_ALIAS(field, name)
#include "util/settings_table.h"
#undef CR_SETTING_ALIAS
#undef CR_SETTING
};

const ut_setting_desc_t ut_setting_descs[] = {
#define CR_SETTING(field, type, def, doc) \
    { #field, UT_SET_##type, (def), doc, offsetof(ut_settings_t, field) },
#define CR_SETTING_ALIAS(field, name)
#include "util/settings_table.h"
#undef CR_SETTING_ALIAS
#undef CR_SETTING
};

/* Other MPIs' names for settings: (field, variable) pairs from the table. */
static const struct {
    const char *field, *env;
} setting_aliases[] = {
#define CR_SETTING(field, type, def, doc)
#define CR_SETTING_ALIAS(field, name) { #field, name },
#include "util/settings_table.h"
#undef CR_SETTING_ALIAS
#undef CR_SETTING
    { NULL, NULL }
};

static const char *alias_of(const char *field)
{
    for (int i = 0; setting_aliases[i].field; i++)
        if (!strcmp(setting_aliases[i].field, field)) return setting_aliases[i].env;
    return NULL;
}
const int ut_setting_count = sizeof(ut_setting_descs) / sizeof(ut_setting_descs[0]);

/* Settings given a value through the tools interface before MPI_Init: loading
 * the environment leaves them as they are. */
static unsigned char pinned[sizeof(ut_setting_descs) / sizeof(ut_setting_descs[0])];

void ut_setting_pin(int i)
{
    if (i >= 0 && i < ut_setting_count) pinned[i] = 1;
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

static int parse_value(const ut_setting_desc_t *d, const char *s, long *out)
{
    char *end;
    errno = 0;
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
        switch (tolower((unsigned char)*end)) {
        case 'k': v <<= 10; end++; break;
        case 'm': v <<= 20; end++; break;
        case 'g': v <<= 30; end++; break;
        default: break;
        }
        if (*end == 'b' || *end == 'B') end++;
        if (v < 0) return -1;
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

int ut_settings_load(void)
{
    int rc = 0;
    for (int i = 0; i < ut_setting_count; i++) {
        const ut_setting_desc_t *d = &ut_setting_descs[i];
        if (pinned[i]) continue;
        char env[96];
        ut_setting_env(d, env, sizeof env);
        const char *s = getenv(env);
        const char *alias = alias_of(d->name);
        if ((!s || !*s) && alias && (s = getenv(alias)) != NULL)
            snprintf(env, sizeof env, "%s", alias);
        long v = d->def;
        if (s && *s && parse_value(d, s, &v) != 0) {
            fprintf(stderr, "courier: cannot parse %s=\"%s\" (expected %s); using default %ld\n",
                    env, s, ut_setting_type_name(d->type), d->def);
            v = d->def;
            rc = -1;
        }
        *(long *)((char *)&ut_settings + d->offset) = v;
    }
    return rc;
}
