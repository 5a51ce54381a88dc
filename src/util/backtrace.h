/* SPDX-License-Identifier: MIT */
/* Crash reports: on a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT)
 * the process prints which signal it got and a backtrace with function names
 * on stderr, then dies of that signal as it would have without us.  No MPI
 * concepts here: the caller passes a label ("rank 3 (pid 123 on node1)"). */
#ifndef COURIER_UTIL_BACKTRACE_H
#define COURIER_UTIL_BACKTRACE_H

/* Install the handlers, with their own signal stack (so a stack overflow is
 * reported too).  A signal that already has a handler (the program's own, a
 * sanitizer's) keeps it.  `label` is copied (at most 255 bytes).  Returns 0,
 * or -1 when no handler could be installed.  Calling it again replaces the
 * label only. */
int ut_backtrace_install(const char *label);

/* Write the current call stack to `fd`, one frame a line ("  #2 name+0x1f
 * (/path/to/object)"), skipping the `skip` innermost frames.  Safe to call
 * from a signal handler: it only uses write(), open(), mmap() and the loader's
 * symbol lookup (dladdr), and reads function names from the object's own
 * symbol table when the dynamic one does not have them (static functions,
 * executables not linked with -rdynamic). */
void ut_backtrace_write(int fd, int skip);
#endif
