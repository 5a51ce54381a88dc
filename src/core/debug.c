/* SPDX-License-Identifier: MIT */
/* Debugging one rank: the crash backtrace and the COURIER_ATTACH wait (see
 * debug.h; the recipe is in docs/usage.md). */
#include "core/debug.h"
#include "util/backtrace.h"
#include "util/settings.h"
#include <stdio.h>
#include <unistd.h>

__attribute__((visibility("default"))) volatile int courier_debug_wait = 1;

void core_debug_init(int world_rank, const char *hostname)
{
    char label[256];
    snprintf(label, sizeof label, "rank %d (pid %ld on %s)", world_rank, (long)getpid(), hostname);
    if (ut_settings.backtrace) ut_backtrace_install(label);
    if (ut_settings.attach != world_rank) return;
    fprintf(stderr,
            "[courier] rank %d waits for a debugger: pid %ld on %s\n"
            "[courier]   gdb -p %ld -ex 'set var *(int *)&courier_debug_wait = 0' -ex continue\n",
            world_rank, (long)getpid(), hostname, (long)getpid());
    fflush(stderr);
    while (courier_debug_wait) sleep(1);
    fprintf(stderr, "[courier] rank %d: debugger attached, going on\n", world_rank);
}
