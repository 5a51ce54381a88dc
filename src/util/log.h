/* SPDX-License-Identifier: MIT */
/* Courier's one logging family: numbered levels, a subsystem name per line,
 * stderr.  The level is the setting COURIER_DEBUG (settings_table.h):
 *   1 errors as they are made (cr_error), 2 also events (the runtime starting
 *   and stopping, communicators and sessions made, context ids agreed),
 *   3 also packets (the transport's and the protocols' traffic).
 * A line reads "[courier <rank>] <subsystem>: <text>" and goes out in one
 * write, so lines of different ranks do not mix.  Levels above
 * UT_LOG_MAX_LEVEL (a build option, default 3) are compiled out. */
#ifndef COURIER_UTIL_LOG_H
#define COURIER_UTIL_LOG_H

enum { UT_LOG_ERRORS = 1, UT_LOG_EVENTS = 2, UT_LOG_PACKETS = 3 };
#ifndef UT_LOG_MAX_LEVEL
#define UT_LOG_MAX_LEVEL 3
#endif

extern int ut_log_level;
/* Take the level from the settings and the rank for the prefix (-1: none yet). */
void ut_log_init(int rank);
static inline int ut_log_on(int level)
{
    return level <= UT_LOG_MAX_LEVEL && __builtin_expect(level <= ut_log_level, 0);
}
void ut_log_write(int level, const char *subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define ut_log(level, subsys, ...) \
    do { if (ut_log_on(level)) ut_log_write(level, subsys, __VA_ARGS__); } while (0)
#endif
