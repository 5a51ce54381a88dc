/* SPDX-License-Identifier: MIT */
/* Typed settings read once from the environment (see settings_table.h). */
#ifndef COURIER_UTIL_SETTINGS_H
#define COURIER_UTIL_SETTINGS_H
#include <stddef.h>
#include <stdint.h>

typedef enum { UT_SET_INT, UT_SET_SIZE, UT_SET_BOOL, UT_SET_STRING } ut_setting_type_t;

typedef struct {
#define CR_SETTING(field, type, def, min, max, doc) long field;
#define CR_SETTING_ALIAS(field, name)
#define CR_SETTING_ALIAS_UNIT(field, name, unit)
#include "util/settings_table.h"
#undef CR_SETTING_ALIAS_UNIT
#undef CR_SETTING_ALIAS
#undef CR_SETTING
} ut_settings_t;

typedef struct {
    const char *name;      /* field name, e.g. "eager_limit" */
    ut_setting_type_t type;
    long def;
    long min, max;         /* the values allowed, both included */
    const char *doc;
    size_t offset;         /* into ut_settings_t */
} ut_setting_desc_t;

extern ut_settings_t ut_settings;
/* Counts the changes of ut_settings after the first load (ut_settings_load,
 * a write through the tools interface): whatever is computed from settings
 * and kept (the collective selection's memo, coll_select.c) is stale once
 * this moved.  Code that writes ut_settings directly increments it too. */
extern unsigned long ut_settings_serial;
extern const ut_setting_desc_t ut_setting_descs[];
extern const int ut_setting_count;

/* The field of ut_settings that setting d fills. */
static inline long *ut_setting_slot(const ut_setting_desc_t *d)
{
    return (long *)((char *)&ut_settings + d->offset);
}

/* The value of a STRING setting (NULL when unset). */
static inline const char *ut_setting_str(long v)
{
    return v ? (const char *)(intptr_t)v : NULL;
}

/* Fill ut_settings from defaults and the environment.  Returns 0, or -1 when
 * a value does not parse or lies outside its range: that setting keeps its
 * default and ut_settings_error() says which setting, its value and the range
 * (the first such problem).  Nothing is printed for those.  A bad line of the
 * tuning file (COURIER_TUNE_FILE) is printed on stderr and skipped; it also
 * makes the result -1, with ut_settings_error() empty. */
int ut_settings_load(void);
const char *ut_settings_error(void);
const char *ut_setting_type_name(ut_setting_type_t t);
/* Setting i was written through the tools interface: ut_settings_load keeps
 * its value instead of reading the environment. */
void ut_setting_pin(int i);
/* Setting i was written through the tools interface: outside != 0 when
 * `written` lies outside its range and the library uses `used` instead.
 * While that holds, ut_setting_held gives back what was written (1, with
 * *written; else 0); with say as well, the next ut_settings_say() prints it
 * once on stderr.  A write in range (outside == 0) ends both, so a value
 * put back before any use says nothing.  ut_settings_notice is non-zero
 * while a notice may wait: one load for the caller that says it, the
 * collective selection. */
void ut_setting_written(int i, long written, long used, int outside, int say);
int ut_setting_held(int i, long *written);
extern int ut_settings_notice;
void ut_settings_say(void);
/* The environment variable of a setting, e.g. "COURIER_EAGER_LIMIT". */
void ut_setting_env(const ut_setting_desc_t *d, char *buf, size_t len);
#endif
