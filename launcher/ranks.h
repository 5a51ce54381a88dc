/* SPDX-License-Identifier: MIT */
/* The ranks of a job on one host: mpiexec uses it for the ranks on its own
 * host, courier_proxy for the ranks on a remote one.
 *
 * Each rank is forked with a socket pair for PMI (PMI_FD), pipes for stdout
 * and stderr, /dev/null (or, for rank 0, stdin) as stdin, in one process group
 * per host, with PR_SET_PDEATHSIG=SIGKILL, and bound to its CPUs when the
 * caller gives it a binding.  The owner's poll loop drives everything:
 *   la_ranks_poll()   adds this host's descriptors to the round's poll set;
 *   la_ranks_serve()  after the round, hands each rank's complete PMI request
 *                     lines to ops.pmi, at most pmi_batch per rank per round,
 *                     so a rank that floods the launcher delays only itself;
 *                     a rank whose replies pile up unread (more than
 *                     LA_REPLY_CAP bytes), or that has max_outstanding
 *                     requests unanswered (a proxy relaying to mpiexec), is
 *                     not read from until that changes;
 *   la_ranks_reaped() when the owner's waitpid() returns one of our pids:
 *                     takes what the rank left in its socket and pipes, then
 *                     calls ops.exited.
 * Output is passed on as it arrives (ops.output, raw bytes; length 0 at end
 * of file); lines are assembled by mpiexec only. */
#ifndef COURIER_LAUNCHER_RANKS_H
#define COURIER_LAUNCHER_RANKS_H
#include <signal.h>
#include <sys/types.h>
#include "common.h"
#include "place.h"

/* Largest PMI request line accepted: a spawn request (cmd=spawn_courier,
 * its programs, arguments and settings in hex) is the longest; a put is
 * key + value + kvsname + the rest.  src/pmi/pmi_wire.c knows it too. */
#define LA_PMI_LINE_MAX (256 + 65536)
/* Unread PMI replies, in bytes, beyond which a rank's requests wait. */
#define LA_REPLY_CAP (1 << 20)

typedef struct {
    void (*pmi)(void *ctx, int i, char *line);
    void (*output)(void *ctx, int i, int stream, const char *p, size_t len);
    void (*exited)(void *ctx, int i, int status);
    void (*stdin_drained)(void *ctx);      /* may be NULL */
} la_ranks_ops_t;

enum { LA_STDIN_NULL, LA_STDIN_INHERIT, LA_STDIN_PIPE };

typedef struct {
    int rank;                 /* global rank */
    pid_t pid;                /* -1 until started */
    int alive;
    int pmi_fd;               /* our end of its PMI socket, -1 once closed */
    char *in;                 /* received PMI bytes not yet served */
    size_t inlen, incap;
    la_buf_t reply;           /* PMI replies not yet written */
    int outstanding;          /* requests handed on and not yet answered */
    int out_fd[2];            /* stdout, stderr pipes; -1 once closed */
    la_binding_t bind;        /* set by the owner before la_ranks_spawn */
    const char *path;         /* several programs (mpiexec's ":"): this rank's, else NULL */
    char *const *argv;        /* (the owner sets both; NULL: the ranks' common ones) */
    const char *wdir;         /* this rank's working directory, else NULL: the common one */
} la_lrank_t;

typedef struct {
    /* set by the owner (la_ranks_init fills n and r) */
    int n;
    la_lrank_t *r;
    int size;                 /* PMI_SIZE */
    const char *kvsname;      /* COURIER_JOBID */
    const char *path;         /* the program, resolved */
    char *const *argv;
    const char *wdir;         /* NULL: stay */
    char **env;               /* base environment, NULL-terminated, without the per-rank variables */
    int stdin_mode;           /* for the rank whose global rank is 0 */
    int stdin_fd;             /* LA_STDIN_INHERIT: the descriptor it gets */
    sigset_t child_mask;      /* signal mask the ranks start with */
    int pmi_batch;            /* requests served per rank per round */
    int max_outstanding;      /* unanswered requests per rank (0: no limit) */
    int hold_output;          /* do not read the ranks' output now (backpressure) */
    la_ranks_ops_t ops;
    void *ctx;
    int own_session;          /* each rank leads its own session (COURIER_RANK_SESSION) */
    /* state */
    pid_t pgid;               /* the ranks' process group (0 with own_session) */
    int nalive;
    int devnull;
    int stdin_w;              /* LA_STDIN_PIPE: write end, -1 when closed */
    la_buf_t stdin_buf;
    int stdin_eof;            /* close stdin_w once stdin_buf is written */
    volatile int spawn_errno;
} la_ranks_t;

/* Ranks ranks[0..n-1] (global ranks) on this host, none started. */
void la_ranks_init(la_ranks_t *rs, int n, const int *ranks);
/* Start local rank i.  Returns 0, or an exit status (126, 127) with a
 * message in err ("cannot start rank 3 (prog): No such file or directory"). */
int la_ranks_spawn(la_ranks_t *rs, int i, char *err, size_t errlen);
void la_ranks_poll(la_ranks_t *rs, la_poll_t *p);
void la_ranks_serve(la_ranks_t *rs);
/* Queue a PMI reply for local rank i. */
void la_ranks_reply(la_ranks_t *rs, int i, const char *p, size_t len);
/* 1 when pid was one of our ranks (now handled), else 0. */
int la_ranks_reaped(la_ranks_t *rs, pid_t pid, int status);
/* Signal every rank (and the process group, grandchildren included). */
void la_ranks_signal(la_ranks_t *rs, int sig);
/* Our reader of stream 1 or 2 is gone: close those pipes (the ranks then get
 * SIGPIPE, as in a shell pipeline). */
void la_ranks_close_output(la_ranks_t *rs, int stream);
/* The job is over: pass on what is left in the pipes and close them (a
 * grandchild may hold them open, so do not wait for end of file). */
void la_ranks_finish_output(la_ranks_t *rs);
/* LA_STDIN_PIPE: bytes for rank 0's stdin, and its end. */
void la_ranks_stdin_write(la_ranks_t *rs, const char *p, size_t len);
void la_ranks_stdin_close(la_ranks_t *rs);
static inline size_t la_ranks_stdin_pending(const la_ranks_t *rs) { return la_buf_pending(&rs->stdin_buf); }
void la_ranks_free(la_ranks_t *rs);

/* Find prog as a shell would, with search path PATH (NULL: a default).
 * Returns 0 with *out (malloc'ed) set, or 126 / 127 with a message. */
int la_resolve_program(const char *prog, const char *path, char **out, char *err, size_t errlen);
/* Is name=... in env (a NULL-terminated array)? */
const char *la_env_get(char *const *env, const char *name);
#endif
