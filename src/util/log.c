/* SPDX-License-Identifier: MIT */
/* The logging family of log.h. */
#include "util/log.h"
#include "util/settings.h"
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

int ut_log_level;
static int log_rank = -1;

void ut_log_init(int rank)
{
    ut_log_level = (int)ut_settings.debug;
    log_rank = rank;
}

void ut_log_write(int level, const char *subsys, const char *fmt, ...)
{
    char line[1280];
    int n = log_rank >= 0 ? snprintf(line, sizeof line, "[courier %d] %s: ", log_rank, subsys)
                          : snprintf(line, sizeof line, "[courier] %s: ", subsys);
    (void)level;
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && n < (int)sizeof line) n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w;
}
