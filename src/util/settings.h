/* SPDX-License-Identifier: MIT */
/* Typed settings read once from the environment (see settings_table.h). */
#ifndef COURIER_UTIL_SETTINGS_H
#define COURIER_UTIL_SETTINGS_H
#include <stddef.h>

typedef enum { UT_SET_INT, UT_SET_SIZE, UT_SET_BOOL, UT_SET_STRING } ut_setting_type_t;

typedef struct {
#define CR_SETTING(field, type, def, doc) long field;
#define CR_SETTING_ALIAS(field, name)
#include "util/settings_table.h"
#undef CR_SETTING_ALIAS
#undef CR_SETTING
} ut_settings_t;

typedef struct {
    const char *name;      /* field name, e.g. "eager_limit" */
    ut_setting_type_t type;
    long def;
    const char *doc;
    size_t offset;         /* into ut_settings_t */
} ut_setting_desc_t;

extern ut_settings_t ut_settings;
extern const ut_setting_desc_t ut_setting_descs[];
extern const int ut_setting_count;

/* Fill ut_settings from defaults and the environment.  Returns 0, or -1 with
 * a message on stderr for a value that does not parse. */
int ut_settings_load(void);
const char *ut_setting_type_name(ut_setting_type_t t);
/* Setting i was written through the tools interface: ut_settings_load keeps
 * its value instead of reading the environment. */
void ut_setting_pin(int i);
/* The environment variable of a setting, e.g. "COURIER_EAGER_LIMIT". */
void ut_setting_env(const ut_setting_desc_t *d, char *buf, size_t len);
#endif
