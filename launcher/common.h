/* SPDX-License-Identifier: MIT */
/* Helpers shared by mpiexec and courier_proxy: messages, memory, time, file
 * descriptors, a growable output buffer, a poll set rebuilt every round, and
 * shell quoting.  Nothing here knows about MPI, PMI or jobs. */
#ifndef COURIER_LAUNCHER_COMMON_H
#define COURIER_LAUNCHER_COMMON_H
#include <poll.h>
#include <stddef.h>

/* Name that prefixes every message ("mpiexec", "courier_proxy@h2"). */
extern char la_prog[320];

/* Print "<prog>: <message>" on stderr and exit with code; la_die_hook, when
 * set, gets the message (without the prefix) first. */
extern void (*la_die_hook)(const char *msg);
void la_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* Print "<prog>: <message>" on stderr. */
void la_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* With la_tracing set (COURIER_LAUNCH_TRACE): print "<prog>: trace
 * HH:MM:SS.mmm: <message>" on stderr, the wall clock in milliseconds, so that
 * the lines of mpiexec and of proxies on other hosts can be merged. */
extern int la_tracing;
void la_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that never returns NULL (dies with a message instead). */
void *la_malloc(size_t n);
void *la_calloc(size_t n, size_t size);
void *la_realloc(void *p, size_t n);
char *la_strdup(const char *s);
/* A malloc'ed printf. */
char *la_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Milliseconds of CLOCK_MONOTONIC. */
long long la_now_ms(void);
void la_set_nonblock(int fd);
/* Write everything to fd, waiting when it is non-blocking and full.  Returns
 * 0, or -1 on an error (EPIPE included: SIGPIPE must be blocked or ignored). */
int la_write_all(int fd, const void *p, size_t len);

/* Bytes waiting to be written to a non-blocking descriptor. */
typedef struct {
    char *p;
    size_t off, len, cap;   /* pending bytes are p[off, len) */
} la_buf_t;
void la_buf_add(la_buf_t *b, const void *p, size_t n);
static inline size_t la_buf_pending(const la_buf_t *b) { return b->len - b->off; }
/* Write what the descriptor takes without blocking.  Returns 0 (some may be
 * left), or -1 when the descriptor is broken. */
int la_buf_flush(la_buf_t *b, int fd);
void la_buf_free(la_buf_t *b);

/* A poll set: callers add their descriptors each round, then la_poll_run
 * polls and calls each ready descriptor's function with its object, index and
 * the descriptor itself (so that a callback can tell that its object has
 * since closed that descriptor). */
typedef void (*la_poll_fn)(void *obj, int idx, int fd, short revents);
typedef struct {
    struct pollfd *fds;
    struct la_poll_cb { la_poll_fn fn; void *obj; int idx; } *cb;
    int n, cap;
    int timeout;             /* -1 none, else ms until the earliest deadline */
} la_poll_t;
void la_poll_begin(la_poll_t *p);
void la_poll_add(la_poll_t *p, int fd, short events, la_poll_fn fn, void *obj, int idx);
/* Wake up after at most ms milliseconds (0: do not sleep). */
void la_poll_within(la_poll_t *p, long long ms);
/* Poll, then dispatch.  Returns the number of ready descriptors, or -1. */
int la_poll_run(la_poll_t *p);
void la_poll_free(la_poll_t *p);

/* s quoted for a POSIX shell ('...'), malloc'ed. */
char *la_shell_quote(const char *s);

/* Is h this machine: localhost, a loopback address, an address of one of our
 * interfaces, or our host name (short or full)? */
int la_is_local_host(const char *h);

/* Is environment entry "NAME=value" one the launcher sets for each rank
 * (PMI_*, PMIX_*, COURIER_JOBID, MPI_LOCALRANKID, ...), so that an inherited
 * value must not pass? */
int la_env_reserved(const char *entry);
/* Does NAME=value describe the machine or session mpiexec runs on (HOSTNAME,
 * SSH_*, PWD, SLURM_*, ...), so that it must not be copied to other hosts? */
int la_env_host_specific(const char *entry);

/* Remove /dev/shm/courier.<kvsname>.* (a job's shared-memory leftovers). */
void la_shm_cleanup(const char *kvsname);
#endif
