/* SPDX-License-Identifier: MIT */
/* mpiexec: start N ranks of a program on this machine and serve them PMI-1.
 *
 * One process, one poll loop over: a signalfd (SIGCHLD, SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT), each rank's PMI socket, each rank's stdout and stderr
 * pipes, and (when stdin is a terminal) the stdin forwarding pipe of rank 0.
 *
 * Ranks run in one process group of their own, with PR_SET_PDEATHSIG=SIGKILL,
 * so that the whole job can be signalled at once and dies with mpiexec.  A
 * small watcher process (a fork of mpiexec that does nothing else) notices
 * when mpiexec dies without cleaning up (kill -9): it then kills the job's
 * process group (grandchildren included) and removes the job's shared-memory
 * files.
 *
 * The first rank that fails (non-zero exit, signal, MPI_Abort, or exit after
 * PMI init without PMI finalize) decides mpiexec's exit status and makes
 * mpiexec print one line and tear the job down: SIGTERM, then SIGKILL after
 * the abort_timeout_ms setting. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/settings.h"

#ifndef COURIER_VERSION
#define COURIER_VERSION "unknown"
#endif

extern char **environ;

/* PMI limits we announce (get_maxes). */
#define KVSNAME_MAX 256
#define KEYLEN_MAX 256
#define VALLEN_MAX 4096
/* Largest PMI request line we accept. */
#define PMI_LINE_MAX (KEYLEN_MAX + VALLEN_MAX + KVSNAME_MAX + 256)
/* Output buffering per stream: a line longer than this is passed on in pieces. */
#define OUT_CHUNK 65536
/* A partial line waits this long for its end before it is passed on. */
#define PARTIAL_FLUSH_MS 200

/* ---- the job ---------------------------------------------------------------- */

typedef struct {
    int fd;              /* read end of the rank's pipe, -1 once closed */
    int dest;            /* 1 or 2 */
    char *buf;           /* bytes of an unfinished line */
    size_t len;
    int at_bol;          /* the next byte we print starts a line (for the prefix) */
} stream_t;

typedef struct {
    pid_t pid;
    int alive;
    int pmi_fd;          /* our end of the PMI socket, -1 once closed */
    char *in;            /* received PMI bytes not yet parsed */
    size_t inlen, incap;
    int pmi_init, pmi_finalized, in_barrier;
    stream_t out[2];
} rank_t;

typedef struct kv {
    struct kv *next;
    char *key, *val;
} kv_t;

#define KVS_BUCKETS 4096

static struct {
    /* options */
    int n;
    int prefix;
    int bind_core;
    int envnone;
    char **envlist;      /* -genvlist names, NULL = all */
    int nenvlist;
    char **setenv;       /* "NAME=VALUE" from -env/-genv/-x */
    int nsetenv;
    const char *wdir;
    char **argv;         /* the program and its arguments */
    char *path;          /* the resolved program */

    /* state */
    char kvsname[64];
    rank_t *ranks;
    int nalive;
    pid_t pgid;
    pid_t watcher;
    int watcher_fd;
    int sigfd;
    sigset_t orig_mask;
    int devnull;
    kv_t *kvs[KVS_BUCKETS];
    int nbarrier;
    int failed;          /* the job is being torn down */
    int exit_code;
    int killed_hard;     /* SIGKILL sent */
    long long kill_at_ms;
    int stdout_broken;
    /* stdin forwarding to rank 0 (only when stdin is a terminal) */
    int stdin_w;         /* write end of rank 0's stdin pipe, -1 when none */
    int stdin_eof;
    char stdin_buf[4096];
    size_t stdin_len;
    /* spawn error reported by the vfork child */
    volatile int spawn_errno;
} job = { .watcher = -1, .watcher_fd = -1, .stdin_w = -1, .devnull = -1 };

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpiexec: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die(1, "out of memory");
    return p;
}

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) die(1, "out of memory");
    return p;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Write everything (blocking even on a non-blocking fd).  Returns -1 on error. */
static int write_all(int fd, const char *p, size_t len, int use_send)
{
    while (len > 0) {
        ssize_t n = use_send ? send(fd, p, len, MSG_NOSIGNAL) : write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd pf = { .fd = fd, .events = POLLOUT };
                /* A peer that never reads must not hang us forever. */
                if (poll(&pf, 1, use_send ? 5000 : -1) == 0) return -1;
                continue;
            }
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---- options ------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: mpiexec [options] [-n N] program [args...]\n"
        "Start N processes of program on this machine (Courier %s).\n"
        "\n"
        "  -n N, -np N             number of processes (default 1)\n"
        "  -env NAME VALUE         set an environment variable in every process\n"
        "  -genv NAME VALUE        the same (every option is global here)\n"
        "  -x NAME[=VALUE]         pass NAME (with VALUE, or mpiexec's own value)\n"
        "  -genvall, -envall       pass mpiexec's whole environment (the default)\n"
        "  -genvnone, -envnone     pass no environment but the variables set above\n"
        "  -genvlist A,B,...       pass only these variables of mpiexec's environment\n"
        "  -prefix-output, -l      prefix each line of output with \"[rank] \"\n"
        "  -bind-to none|core      bind rank r to the r-th allowed core (modulo their number)\n"
        "  -map-by WHAT            accepted, ignored\n"
        "  -host H, -hosts H       only localhost (and this machine's name) for now\n"
        "  -wdir DIR               working directory of the processes\n"
        "  -h, --help              this text\n"
        "  -version, --version     print the version\n"
        "\n"
        "Exit status: 0 when every process exits 0; otherwise the status of the first\n"
        "process that failed (128+N for signal N), and the others are terminated.\n"
        "COURIER_ABORT_TIMEOUT_MS: time between SIGTERM and SIGKILL at teardown.\n",
        COURIER_VERSION);
}

static int is_local_host(const char *h)
{
    char me[256];
    if (!strcmp(h, "localhost") || !strcmp(h, "127.0.0.1") || !strcmp(h, "::1")) return 1;
    if (gethostname(me, sizeof me) == 0) {
        me[sizeof me - 1] = '\0';
        if (!strcmp(h, me)) return 1;
        char *dot = strchr(me, '.');
        if (dot && !strncmp(h, me, (size_t)(dot - me)) && h[dot - me] == '\0') return 1;
    }
    return 0;
}

static void check_hosts(const char *list)
{
    char *copy = strdup(list), *save = NULL;
    if (!copy) die(1, "out of memory");
    for (char *h = strtok_r(copy, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(h, ':');
        if (colon) *colon = '\0';
        if (*h && !is_local_host(h))
            die(2, "host \"%s\": only this machine can run processes for now", h);
    }
    free(copy);
}

static void add_setenv(const char *name, const char *value)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *s = xmalloc(len);
    snprintf(s, len, "%s=%s", name, value);
    job.setenv = xrealloc(job.setenv, sizeof(char *) * (size_t)(job.nsetenv + 1));
    job.setenv[job.nsetenv++] = s;
}

static void parse_args(int argc, char **argv)
{
    int i = 1;
    job.n = -1;
    while (i < argc) {
        const char *a = argv[i];
        if (a[0] != '-') break;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        const char *o = (a[1] == '-') ? a + 1 : a;   /* --opt == -opt */
#define NEED(k) do { if (i + (k) >= argc) die(2, "option %s needs %s", a, (k) == 1 ? "an argument" : "two arguments"); } while (0)
        if (!strcmp(o, "-n") || !strcmp(o, "-np") || !strcmp(o, "-c")) {
            NEED(1);
            char *end;
            long v = strtol(argv[i + 1], &end, 10);
            if (*end || v < 1 || v > 1000000) die(2, "bad number of processes \"%s\"", argv[i + 1]);
            job.n = (int)v;
            i += 2;
        } else if (!strcmp(o, "-env") || !strcmp(o, "-genv")) {
            NEED(2);
            if (!*argv[i + 1] || strchr(argv[i + 1], '=')) die(2, "bad variable name \"%s\" for %s", argv[i + 1], a);
            add_setenv(argv[i + 1], argv[i + 2]);
            i += 3;
        } else if (!strcmp(o, "-x")) {
            NEED(1);
            const char *eq = strchr(argv[i + 1], '=');
            if (eq) {
                char *name = strndup(argv[i + 1], (size_t)(eq - argv[i + 1]));
                add_setenv(name, eq + 1);
                free(name);
            } else if (getenv(argv[i + 1])) {
                add_setenv(argv[i + 1], getenv(argv[i + 1]));
            }
            i += 2;
        } else if (!strcmp(o, "-genvall") || !strcmp(o, "-envall")) {
            job.envnone = 0;
            job.envlist = NULL;
            i++;
        } else if (!strcmp(o, "-genvnone") || !strcmp(o, "-envnone")) {
            job.envnone = 1;
            i++;
        } else if (!strcmp(o, "-genvlist") || !strcmp(o, "-envlist")) {
            NEED(1);
            char *copy = strdup(argv[i + 1]), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                job.envlist = xrealloc(job.envlist, sizeof(char *) * (size_t)(job.nenvlist + 1));
                job.envlist[job.nenvlist++] = t;
            }
            i += 2;
        } else if (!strcmp(o, "-prefix-output") || !strcmp(o, "-l") || !strcmp(o, "-label") ||
                   !strcmp(o, "-tag-output")) {
            job.prefix = 1;
            i++;
        } else if (!strcmp(o, "-h") || !strcmp(o, "-help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(o, "-version") || !strcmp(o, "-V")) {
            printf("mpiexec (Courier) %s\n", COURIER_VERSION);
            exit(0);
        } else if (!strcmp(o, "-bind-to") || !strcmp(o, "-binding")) {
            NEED(1);
            const char *b = argv[i + 1];
            if (!strcmp(b, "none")) job.bind_core = 0;
            else if (!strcmp(b, "core") || !strcmp(b, "hwthread") || !strcmp(b, "cpu")) job.bind_core = 1;
            else if (!strcmp(b, "socket") || !strcmp(b, "numa") || !strcmp(b, "board") || !strcmp(b, "l3cache"))
                job.bind_core = 0;   /* accepted; no binding at that level yet */
            else die(2, "unknown binding \"%s\" (none or core)", b);
            i += 2;
        } else if (!strcmp(o, "-map-by") || !strcmp(o, "-ppn") || !strcmp(o, "-rr") ||
                   !strcmp(o, "-launcher") || !strcmp(o, "-bootstrap") || !strcmp(o, "-rmk")) {
            if (!strcmp(o, "-rr")) i++;
            else { NEED(1); i += 2; }
        } else if (!strcmp(o, "-host") || !strcmp(o, "-hosts")) {
            NEED(1);
            check_hosts(argv[i + 1]);
            i += 2;
        } else if (!strcmp(o, "-wdir") || !strcmp(o, "-dir")) {
            NEED(1);
            job.wdir = argv[i + 1];
            i += 2;
        } else if (!strcmp(o, "-v") || !strcmp(o, "-verbose") || !strcmp(o, "-oversubscribe") ||
                   !strcmp(o, "-disable-x")) {
            i++;
        } else {
            die(2, "unknown option \"%s\" (see mpiexec -h)", a);
        }
#undef NEED
    }
    if (i >= argc) {
        usage(stderr);
        exit(2);
    }
    job.argv = argv + i;
    for (int k = i; k < argc; k++)
        if (!strcmp(argv[k], ":") && k > i)
            die(2, "several programs (\":\") are not supported yet");
    if (job.n < 0) job.n = 1;
}

/* Find the program the way the shell would; exit 127 (126) when we cannot. */
static void resolve_program(void)
{
    const char *prog = job.argv[0];
    struct stat st;
    if (strchr(prog, '/')) {
        if (stat(prog, &st) < 0) die(127, "cannot execute \"%s\": %s", prog, strerror(errno));
        if (S_ISDIR(st.st_mode)) die(126, "cannot execute \"%s\": Is a directory", prog);
        if (access(prog, X_OK) < 0) die(126, "cannot execute \"%s\": %s", prog, strerror(errno));
        job.path = (char *)prog;
        return;
    }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    size_t plen = strlen(prog);
    int found_noexec = 0;
    for (const char *p = path;;) {
        const char *e = strchr(p, ':');
        size_t dlen = e ? (size_t)(e - p) : strlen(p);
        char *cand = xmalloc(dlen + plen + 3);
        if (dlen == 0) snprintf(cand, plen + 3, "./%s", prog);
        else snprintf(cand, dlen + plen + 2, "%.*s/%s", (int)dlen, p, prog);
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(cand, X_OK) == 0) {
                job.path = cand;
                return;
            }
            found_noexec = 1;
        }
        free(cand);
        if (!e) break;
        p = e + 1;
    }
    if (found_noexec) die(126, "cannot execute \"%s\": Permission denied", prog);
    die(127, "cannot execute \"%s\": command not found (not in PATH)", prog);
}

/* ---- environment of the ranks --------------------------------------------------- */

static int env_name_eq(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(entry, name, n) && entry[n] == '=';
}

static const char *const reserved_env[] = {
    "PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT", "PMI_ID", "PMI_SPAWNED", "COURIER_JOBID",
    "MPI_LOCALRANKID", "MPI_LOCALNRANKS", NULL
};

/* The environment: inherited part, then -env variables, then ours.  The
 * per-rank entries are the last three; their buffers are rewritten per rank. */
static char **envp;
static char env_fd[32], env_rank[32], env_localrank[48];

static void build_env(void)
{
    int cap = 16 + job.nsetenv, n = 0;
    for (char **e = environ; *e; e++) cap++;
    envp = xmalloc(sizeof(char *) * (size_t)cap);
    if (!job.envnone) {
        for (char **e = environ; *e; e++) {
            int skip = 0;
            for (int k = 0; reserved_env[k] && !skip; k++) skip = env_name_eq(*e, reserved_env[k]);
            for (int k = 0; k < job.nsetenv && !skip; k++) {
                size_t nl = strcspn(job.setenv[k], "=");
                skip = !strncmp(*e, job.setenv[k], nl + 1);
            }
            if (!skip && job.envlist) {
                skip = 1;
                for (int k = 0; k < job.nenvlist && skip; k++) skip = !env_name_eq(*e, job.envlist[k]);
            }
            if (!skip) envp[n++] = *e;
        }
    }
    for (int k = 0; k < job.nsetenv; k++) envp[n++] = job.setenv[k];
    static char size[32], jobid[96], nlocal[48];
    snprintf(size, sizeof size, "PMI_SIZE=%d", job.n);
    snprintf(jobid, sizeof jobid, "COURIER_JOBID=%s", job.kvsname);
    snprintf(nlocal, sizeof nlocal, "MPI_LOCALNRANKS=%d", job.n);
    envp[n++] = size;
    envp[n++] = jobid;
    envp[n++] = nlocal;
    envp[n++] = env_fd;
    envp[n++] = env_rank;
    envp[n++] = env_localrank;
    envp[n] = NULL;
}

/* ---- shared-memory cleanup ------------------------------------------------------- */

static void shm_cleanup(const char *kvsname)
{
    char prefix[128];
    int plen = snprintf(prefix, sizeof prefix, "courier.%s.", kvsname);
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strncmp(de->d_name, prefix, (size_t)plen)) unlinkat(dirfd(d), de->d_name, 0);
    }
    closedir(d);
}

/* ---- spawning ---------------------------------------------------------------- */

static cpu_set_t allowed_cpus;
static int nallowed;

static int cpu_for_rank(int r)
{
    int want = r % nallowed, k = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed_cpus) && k++ == want) return c;
    return -1;
}

struct child_args {
    pid_t parent, pgid;
    int pmi_fd, in_fd, out_fd, err_fd, bind;
    const cpu_set_t *cpus;
};

/* vfork and exec; the child runs only system calls until execve and reports
 * an error in job.spawn_errno (vfork shares our memory).  Kept apart so that
 * no local variable of the caller lives across vfork. */
static pid_t __attribute__((noinline)) spawn_child(const struct child_args *a)
{
    job.spawn_errno = 0;
    pid_t pid = vfork();
    if (pid == 0) {
        setpgid(0, a->pgid);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != a->parent) _exit(127);
        fcntl(a->pmi_fd, F_SETFD, 0);
        if (a->in_fd >= 0) dup2(a->in_fd, 0);
        dup2(a->out_fd, 1);
        dup2(a->err_fd, 2);
        if (a->bind) sched_setaffinity(0, sizeof *a->cpus, a->cpus);
        if (job.wdir && chdir(job.wdir) < 0) {
            job.spawn_errno = errno;
            _exit(127);
        }
        sigprocmask(SIG_SETMASK, &job.orig_mask, NULL);
        execve(job.path, job.argv, envp);
        job.spawn_errno = errno;
        _exit(127);
    }
    return pid;
}

static void spawn_rank(int r, int stdin_r)
{
    rank_t *rk = &job.ranks[r];
    int sv[2], po[2], pe[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(po, O_CLOEXEC) < 0 ||
        pipe2(pe, O_CLOEXEC) < 0) {
        fprintf(stderr, "mpiexec: cannot start rank %d: %s\n", r, strerror(errno));
        rk->pid = -1;
        return;
    }
    snprintf(env_fd, sizeof env_fd, "PMI_FD=%d", sv[1]);
    snprintf(env_rank, sizeof env_rank, "PMI_RANK=%d", r);
    snprintf(env_localrank, sizeof env_localrank, "MPI_LOCALRANKID=%d", r);
    cpu_set_t cpus;
    int bind = 0;
    if (job.bind_core && nallowed > 0) {
        int c = cpu_for_rank(r);
        if (c >= 0) {
            CPU_ZERO(&cpus);
            CPU_SET(c, &cpus);
            bind = 1;
        }
    }
    struct child_args a = {
        .parent = getpid(), .pgid = job.pgid, .pmi_fd = sv[1],
        .in_fd = r == 0 ? stdin_r : job.devnull, .out_fd = po[1], .err_fd = pe[1],
        .bind = bind, .cpus = &cpus,
    };
    pid_t pid = spawn_child(&a);
    close(sv[1]);
    close(po[1]);
    close(pe[1]);
    if (pid < 0 || job.spawn_errno) {
        int e = pid < 0 ? errno : job.spawn_errno;
        fprintf(stderr, "mpiexec: cannot start rank %d (%s%s%s): %s\n", r, job.path,
                job.wdir ? " in " : "", job.wdir ? job.wdir : "", strerror(e));
        close(sv[0]);
        close(po[0]);
        close(pe[0]);
        if (pid > 0) {
            waitpid(pid, NULL, 0);
            if (!job.pgid) job.pgid = pid;   /* the group lives on while others are in it */
        }
        rk->pid = -1;
        return;
    }
    if (!job.pgid) job.pgid = pid;
    rk->pid = pid;
    rk->alive = 1;
    job.nalive++;
    rk->pmi_fd = sv[0];
    set_nonblock(sv[0]);
    for (int s = 0; s < 2; s++) {
        rk->out[s].fd = s ? pe[0] : po[0];
        rk->out[s].dest = s ? 2 : 1;
        rk->out[s].at_bol = 1;
        set_nonblock(rk->out[s].fd);
    }
}

/* Is process pid dead (gone, or a zombie nobody reaps yet)? */
static int pid_gone(pid_t pid)
{
    if (kill(pid, 0) < 0 && errno == ESRCH) return 1;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* Are all ranks dead?  (For the watcher, after mpiexec died.) */
static int job_gone(void)
{
    for (int r = 0; r < job.n; r++)
        if (job.ranks[r].pid > 0 && !pid_gone(job.ranks[r].pid)) return 0;
    return 1;
}

/* The watcher: a fork that waits for mpiexec's end.  A byte means "all is
 * done"; end of file means mpiexec died, and the watcher cleans up. */
static void start_watcher(void)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) return;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return;
    }
    if (pid == 0) {
        int keep = p[0];
        if (keep > 0) close_range(0, (unsigned)keep - 1, 0);
        close_range((unsigned)keep + 1, ~0U, 0);
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_SETMASK, &all, NULL);
        char c;
        ssize_t n;
        do n = read(keep, &c, 1); while (n < 0 && errno == EINTR);
        if (n == 1) _exit(0);
        /* mpiexec is gone: end the job and clean up. */
        if (job.pgid > 0) kill(-job.pgid, SIGKILL);
        shm_cleanup(job.kvsname);
        for (int i = 0; i < 200 && !job_gone(); i++) {
            kill(-job.pgid, SIGKILL);
            struct timespec ts = { 0, 5 * 1000000 };
            nanosleep(&ts, NULL);
        }
        shm_cleanup(job.kvsname);
        _exit(0);
    }
    close(p[0]);
    job.watcher = pid;
    job.watcher_fd = p[1];
}

static void stop_watcher(void)
{
    if (job.watcher <= 0) return;
    write_all(job.watcher_fd, "x", 1, 0);
    close(job.watcher_fd);
    int st;
    while (waitpid(job.watcher, &st, 0) < 0 && errno == EINTR) {}
    job.watcher = -1;
}

/* ---- output forwarding ------------------------------------------------------------ */

static void out_write(int dest, const char *p, size_t len)
{
    if (job.stdout_broken & dest) return;
    if (write_all(dest, p, len, 0) < 0) {
        /* Our reader is gone (mpiexec ... | head): close the ranks' pipes
         * too, so that they get SIGPIPE as in any shell pipeline. */
        job.stdout_broken |= dest;
        for (int r = 0; r < job.n; r++) {
            stream_t *s = &job.ranks[r].out[dest - 1];
            if (s->fd >= 0) close(s->fd);
            s->fd = -1;
            s->len = 0;
        }
    }
}

/* Print bytes [p, p+len) of rank r's stream s, prefixing each line start. */
static void emit(int r, stream_t *s, const char *p, size_t len)
{
    if (!job.prefix) {
        out_write(s->dest, p, len);
        if (len) s->at_bol = p[len - 1] == '\n';
        return;
    }
    char pre[24];
    int plen = snprintf(pre, sizeof pre, "[%d] ", r);
    /* Build one buffer so that one write carries whole lines. */
    size_t nl = 0;
    for (size_t i = 0; i < len; i++) nl += p[i] == '\n';
    char *b = xmalloc(len + (nl + 1) * (size_t)plen);
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (s->at_bol) {
            memcpy(b + o, pre, (size_t)plen);
            o += (size_t)plen;
            s->at_bol = 0;
        }
        b[o++] = p[i];
        if (p[i] == '\n') s->at_bol = 1;
    }
    out_write(s->dest, b, o);
    free(b);
}

static void stream_flush_partial(int r, stream_t *s)
{
    if (s->len) emit(r, s, s->buf, s->len);
    s->len = 0;
}

static void stream_close(int r, stream_t *s)
{
    stream_flush_partial(r, s);
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
}

/* Read what is there; pass on whole lines.  Returns 1 when data was read. */
static int stream_read(int r, stream_t *s)
{
    char tmp[OUT_CHUNK];
    int got = 0;
    while (s->fd >= 0) {
        ssize_t n = read(s->fd, tmp, sizeof tmp);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) stream_close(r, s);
            return got;
        }
        if (n == 0) {
            stream_close(r, s);
            return got;
        }
        got = 1;
        /* Complete lines: the pending part plus tmp up to the last '\n'. */
        char *last = memrchr(tmp, '\n', (size_t)n);
        if (last) {
            size_t head = (size_t)(last - tmp) + 1;
            if (s->len) {
                s->buf = xrealloc(s->buf, s->len + head);
                memcpy(s->buf + s->len, tmp, head);
                emit(r, s, s->buf, s->len + head);
                s->len = 0;
            } else {
                emit(r, s, tmp, head);
            }
            size_t rest = (size_t)n - head;
            if (rest) {
                s->buf = xrealloc(s->buf, rest);
                memcpy(s->buf, tmp + head, rest);
                s->len = rest;
            }
        } else {
            s->buf = xrealloc(s->buf, s->len + (size_t)n);
            memcpy(s->buf + s->len, tmp, (size_t)n);
            s->len += (size_t)n;
            if (s->len >= OUT_CHUNK) stream_flush_partial(r, s);
        }
        if (n < (ssize_t)sizeof tmp) return got;
    }
    return got;
}

/* ---- teardown ------------------------------------------------------------------- */

static void signal_job(int sig)
{
    if (job.pgid > 0) kill(-job.pgid, sig);
    for (int r = 0; r < job.n; r++)
        if (job.ranks[r].alive) kill(job.ranks[r].pid, sig);
}

/* The first failure: remember the exit code, say why, end the job. */
static void job_fail(int r, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void job_fail(int r, int code, const char *fmt, ...)
{
    if (job.failed) return;
    job.failed = 1;
    job.exit_code = code;
    char why[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    int others = job.nalive - (r >= 0 && job.ranks[r].alive ? 1 : 0);
    if (r >= 0)
        fprintf(stderr, "mpiexec: rank %d (pid %d) %s%s\n", r, (int)job.ranks[r].pid, why,
                others > 0 ? "; terminating the job" : "");
    else
        fprintf(stderr, "mpiexec: %s%s\n", why, others > 0 ? "; terminating the job" : "");
    fflush(stderr);
    signal_job(SIGTERM);
    job.kill_at_ms = now_ms() + ut_settings.abort_timeout_ms;
}

/* ---- PMI server ---------------------------------------------------------------- */

static unsigned kvs_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h % KVS_BUCKETS;
}

static void kvs_put(const char *key, const char *val)
{
    unsigned h = kvs_hash(key);
    for (kv_t *kv = job.kvs[h]; kv; kv = kv->next)
        if (!strcmp(kv->key, key)) {
            free(kv->val);
            kv->val = strdup(val);
            return;
        }
    kv_t *kv = xmalloc(sizeof *kv);
    kv->key = strdup(key);
    kv->val = strdup(val);
    if (!kv->key || !kv->val) die(1, "out of memory");
    kv->next = job.kvs[h];
    job.kvs[h] = kv;
}

static const char *kvs_get(const char *key)
{
    for (kv_t *kv = job.kvs[kvs_hash(key)]; kv; kv = kv->next)
        if (!strcmp(kv->key, key)) return kv->val;
    return NULL;
}

static void pmi_reply(int r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pmi_reply(int r, const char *fmt, ...)
{
    rank_t *rk = &job.ranks[r];
    if (rk->pmi_fd < 0) return;
    char buf[VALLEN_MAX + KEYLEN_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) return;
    write_all(rk->pmi_fd, buf, (size_t)n, 1);
}

/* Copy the value of key in a request (a token up to the next blank) into out.
 * Returns 0, or -1 when the key is absent or its value does not fit. */
static int field(const char *line, const char *key, char *out, size_t outlen)
{
    size_t klen = strlen(key);
    const char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        if (!strncmp(p, key, klen) && p[klen] == '=') {
            const char *v = p + klen + 1;
            size_t vlen = strcspn(v, " \t");
            if (vlen >= outlen) return -1;
            memcpy(out, v, vlen);
            out[vlen] = '\0';
            return 0;
        }
        p += strcspn(p, " \t");
    }
    return -1;
}

static void barrier_check(void)
{
    if (job.nbarrier < job.n) return;
    for (int r = 0; r < job.n; r++) {
        job.ranks[r].in_barrier = 0;
        pmi_reply(r, "cmd=barrier_out rc=0\n");
    }
    job.nbarrier = 0;
}

static void pmi_handle(int r, char *line)
{
    rank_t *rk = &job.ranks[r];
    char cmd[64], key[KEYLEN_MAX + 1], val[VALLEN_MAX + 1];
    if (field(line, "cmd", cmd, sizeof cmd) < 0) {
        if (!strncmp(line, "mcmd=", 5))
            fprintf(stderr, "mpiexec: rank %d: PMI spawn (mcmd) is not supported\n", r);
        else
            fprintf(stderr, "mpiexec: rank %d: malformed PMI request \"%.100s\"\n", r, line);
        return;
    }
    if (!strcmp(cmd, "init")) {
        rk->pmi_init = 1;
        pmi_reply(r, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1 launcher=courier\n");
    } else if (!strcmp(cmd, "get_maxes")) {
        pmi_reply(r, "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d vallen_max=%d\n",
                  KVSNAME_MAX, KEYLEN_MAX, VALLEN_MAX);
    } else if (!strcmp(cmd, "get_appnum")) {
        pmi_reply(r, "cmd=appnum rc=0 appnum=0\n");
    } else if (!strcmp(cmd, "get_my_kvsname")) {
        pmi_reply(r, "cmd=my_kvsname rc=0 kvsname=%s\n", job.kvsname);
    } else if (!strcmp(cmd, "get_universe_size")) {
        pmi_reply(r, "cmd=universe_size rc=0 size=%d\n", job.n);
    } else if (!strcmp(cmd, "put")) {
        if (field(line, "key", key, sizeof key) < 0) {
            pmi_reply(r, "cmd=put_result rc=-1 msg=missing_or_too_long_key\n");
            return;
        }
        if (field(line, "value", val, sizeof val) < 0) {
            if (strstr(line, " value=")) {
                pmi_reply(r, "cmd=put_result rc=-1 msg=value_too_long\n");
                return;
            }
            val[0] = '\0';
        }
        kvs_put(key, val);
        pmi_reply(r, "cmd=put_result rc=0 msg=success\n");
    } else if (!strcmp(cmd, "get")) {
        const char *v = NULL;
        if (field(line, "key", key, sizeof key) == 0) v = kvs_get(key);
        if (v) pmi_reply(r, "cmd=get_result rc=0 msg=success value=%s\n", v);
        else pmi_reply(r, "cmd=get_result rc=-1 msg=key_not_found\n");
    } else if (!strcmp(cmd, "barrier_in")) {
        if (!rk->in_barrier) {
            rk->in_barrier = 1;
            job.nbarrier++;
        }
        barrier_check();
    } else if (!strcmp(cmd, "finalize")) {
        rk->pmi_finalized = 1;
        pmi_reply(r, "cmd=finalize_ack rc=0\n");
    } else if (!strcmp(cmd, "abort")) {
        int code = 1;
        if (field(line, "exitcode", val, sizeof val) == 0) code = atoi(val);
        const char *msg = strstr(line, " message=");
        msg = msg ? msg + 9 : "";
        job_fail(r, code, "called MPI_Abort(MPI_COMM_WORLD, %d)%s%.1000s", code, *msg ? ": " : "", msg);
    } else {
        fprintf(stderr, "mpiexec: rank %d: unsupported PMI command \"%s\"\n", r, cmd);
        pmi_reply(r, "cmd=%s_result rc=-1 msg=unsupported\n", cmd);
    }
}

static void pmi_close(int r)
{
    rank_t *rk = &job.ranks[r];
    if (rk->pmi_fd >= 0) close(rk->pmi_fd);
    rk->pmi_fd = -1;
    free(rk->in);
    rk->in = NULL;
    rk->inlen = rk->incap = 0;
}

static void pmi_read(int r)
{
    rank_t *rk = &job.ranks[r];
    while (rk->pmi_fd >= 0) {
        if (rk->incap - rk->inlen < 4096) {
            rk->incap = rk->incap ? rk->incap * 2 : 8192;
            rk->in = xrealloc(rk->in, rk->incap);
        }
        ssize_t n = read(rk->pmi_fd, rk->in + rk->inlen, rk->incap - rk->inlen - 1);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            pmi_close(r);
            return;
        }
        if (n == 0) {
            pmi_close(r);
            return;
        }
        rk->inlen += (size_t)n;
        char *start = rk->in, *nl;
        while ((nl = memchr(start, '\n', rk->inlen - (size_t)(start - rk->in)))) {
            *nl = '\0';
            if (nl > start && nl[-1] == '\r') nl[-1] = '\0';
            pmi_handle(r, start);
            start = nl + 1;
            if (rk->pmi_fd < 0) return;
        }
        rk->inlen -= (size_t)(start - rk->in);
        memmove(rk->in, start, rk->inlen);
        if (rk->inlen > PMI_LINE_MAX) {
            fprintf(stderr, "mpiexec: rank %d: PMI request longer than %d bytes\n", r, PMI_LINE_MAX);
            pmi_close(r);
            return;
        }
    }
}

/* ---- children and signals ------------------------------------------------------ */

static void rank_exited(int r, int st)
{
    rank_t *rk = &job.ranks[r];
    /* Take what it left in its pipes and socket before judging. */
    pmi_read(r);
    for (int s = 0; s < 2; s++)
        if (rk->out[s].fd >= 0) stream_read(r, &rk->out[s]);
    rk->alive = 0;
    job.nalive--;
    if (rk->in_barrier) {
        rk->in_barrier = 0;
        job.nbarrier--;
    }
    if (job.failed) return;
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE && (job.stdout_broken & 1)) {
        /* mpiexec ... | head: the end of a pipeline, not an error to report. */
        job.failed = 1;
        job.exit_code = 128 + SIGPIPE;
        signal_job(SIGTERM);
        job.kill_at_ms = now_ms() + ut_settings.abort_timeout_ms;
    } else if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        job_fail(r, 128 + sig, "was killed by signal %d (%s)", sig, strsignal(sig));
    } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        job_fail(r, WEXITSTATUS(st), "exited with status %d", WEXITSTATUS(st));
    } else if (rk->pmi_init && !rk->pmi_finalized) {
        job_fail(r, 1, "exited without calling MPI_Finalize");
    }
}

static void reap(void)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid <= 0) return;
        if (pid == job.watcher) {
            job.watcher = -1;
            continue;
        }
        for (int r = 0; r < job.n; r++)
            if (job.ranks[r].pid == pid && job.ranks[r].alive) {
                rank_exited(r, st);
                break;
            }
    }
}

static void handle_signals(void)
{
    struct signalfd_siginfo si[8];
    ssize_t n;
    while ((n = read(job.sigfd, si, sizeof si)) > 0) {
        for (size_t k = 0; k < (size_t)n / sizeof si[0]; k++) {
            int sig = (int)si[k].ssi_signo;
            if (sig == SIGCHLD) continue;
            if (!job.failed) {
                job_fail(-1, 128 + sig, "received signal %d (%s)", sig, strsignal(sig));
                signal_job(sig);   /* forward it, too */
            } else if (!job.killed_hard) {
                signal_job(SIGKILL);   /* a second signal: no more patience */
                job.killed_hard = 1;
            }
        }
    }
    reap();
}

/* ---- stdin forwarding (terminal only) ---------------------------------------------- */

static void stdin_close(void)
{
    if (job.stdin_w >= 0) close(job.stdin_w);
    job.stdin_w = -1;
    job.stdin_len = 0;
}

static void stdin_pump(short rev_in, short rev_out)
{
    if (rev_in && job.stdin_len == 0) {
        ssize_t n = read(0, job.stdin_buf, sizeof job.stdin_buf);
        if (n > 0) job.stdin_len = (size_t)n;
        else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            job.stdin_eof = 1;
            stdin_close();
        }
    }
    if ((rev_out || rev_in) && job.stdin_len > 0 && job.stdin_w >= 0) {
        ssize_t n = write(job.stdin_w, job.stdin_buf, job.stdin_len);
        if (n > 0) {
            memmove(job.stdin_buf, job.stdin_buf + n, job.stdin_len - (size_t)n);
            job.stdin_len -= (size_t)n;
        } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
            stdin_close();
        }
    }
}

/* ---- main ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    ut_settings_load();
    if (ut_settings.abort_timeout_ms < 0) ut_settings.abort_timeout_ms = 0;
    resolve_program();

    snprintf(job.kvsname, sizeof job.kvsname, "kvs_%d_0", (int)getpid());
    job.ranks = calloc((size_t)job.n, sizeof(rank_t));
    if (!job.ranks) die(1, "out of memory");
    for (int r = 0; r < job.n; r++) {
        job.ranks[r].pmi_fd = -1;
        job.ranks[r].out[0].fd = job.ranks[r].out[1].fd = -1;
    }

    /* Three descriptors per rank, plus a few. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)job.n * 3 + 64) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (job.bind_core) {
        if (sched_getaffinity(0, sizeof allowed_cpus, &allowed_cpus) == 0)
            nallowed = CPU_COUNT(&allowed_cpus);
    }

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGQUIT);
    sigprocmask(SIG_BLOCK, &mask, &job.orig_mask);
    job.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (job.sigfd < 0) die(1, "signalfd: %s", strerror(errno));
    /* A closed stdout must not kill us: block SIGPIPE (the ranks get the
     * original mask back) and handle EPIPE. */
    sigset_t pipe_mask;
    sigemptyset(&pipe_mask);
    sigaddset(&pipe_mask, SIGPIPE);
    sigprocmask(SIG_BLOCK, &pipe_mask, NULL);

    job.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int stdin_r = -1;
    if (isatty(0)) {
        /* Ranks run in their own process group: reading the terminal would
         * stop them (SIGTTIN), so rank 0 reads a pipe that we feed. */
        int p[2];
        if (pipe2(p, O_CLOEXEC) == 0) {
            stdin_r = p[0];
            job.stdin_w = p[1];
            set_nonblock(p[1]);
        }
    } else {
        stdin_r = -1;   /* rank 0 inherits our stdin as it is */
    }

    build_env();
    for (int r = 0; r < job.n && !job.failed; r++) {
        spawn_rank(r, stdin_r);
        if (job.ranks[r].pid < 0) {
            job_fail(-1, 127, "could not start every process");
            for (int k = r + 1; k < job.n; k++) job.ranks[k].pid = -1;
            break;
        }
    }
    if (stdin_r >= 0) close(stdin_r);
    start_watcher();

    struct pollfd *pfd = xmalloc(sizeof(struct pollfd) * (size_t)(job.n * 3 + 3));
    int *owner = xmalloc(sizeof(int) * (size_t)(job.n * 3 + 3));
    for (;;) {
        int np = 0;
        int pending_partial = 0;
        pfd[np] = (struct pollfd){ .fd = job.sigfd, .events = POLLIN };
        owner[np++] = -1;
        if (job.stdin_w >= 0) {
            if (job.stdin_len == 0 && !job.stdin_eof) {
                pfd[np] = (struct pollfd){ .fd = 0, .events = POLLIN };
                owner[np++] = -2;
            } else if (job.stdin_len > 0) {
                pfd[np] = (struct pollfd){ .fd = job.stdin_w, .events = POLLOUT };
                owner[np++] = -3;
            }
        }
        for (int r = 0; r < job.n; r++) {
            rank_t *rk = &job.ranks[r];
            if (rk->pmi_fd >= 0) {
                pfd[np] = (struct pollfd){ .fd = rk->pmi_fd, .events = POLLIN };
                owner[np++] = r * 3;
            }
            for (int s = 0; s < 2; s++)
                if (rk->out[s].fd >= 0) {
                    pfd[np] = (struct pollfd){ .fd = rk->out[s].fd, .events = POLLIN };
                    owner[np++] = r * 3 + 1 + s;
                    pending_partial |= rk->out[s].len > 0;
                }
        }
        if (job.nalive == 0) {
            /* Everyone is gone: take what is left in the pipes (a grandchild
             * may hold them open, so do not wait for end of file). */
            for (int r = 0; r < job.n; r++)
                for (int s = 0; s < 2; s++)
                    if (job.ranks[r].out[s].fd >= 0) {
                        stream_read(r, &job.ranks[r].out[s]);
                        stream_close(r, &job.ranks[r].out[s]);
                    }
            break;
        }
        int timeout = -1;
        if (job.failed && !job.killed_hard) {
            long long left = job.kill_at_ms - now_ms();
            timeout = left > 0 ? (int)left : 0;
        }
        if (pending_partial && (timeout < 0 || timeout > PARTIAL_FLUSH_MS)) timeout = PARTIAL_FLUSH_MS;
        int rc = poll(pfd, (nfds_t)np, timeout);
        if (rc < 0 && errno != EINTR) die(1, "poll: %s", strerror(errno));
        if (job.failed && !job.killed_hard && now_ms() >= job.kill_at_ms) {
            signal_job(SIGKILL);
            job.killed_hard = 1;
        }
        if (rc == 0 && pending_partial) {
            for (int r = 0; r < job.n; r++)
                for (int s = 0; s < 2; s++) stream_flush_partial(r, &job.ranks[r].out[s]);
        }
        if (rc <= 0) continue;
        int sigready = 0;
        for (int k = 0; k < np; k++) {
            if (!pfd[k].revents) continue;
            int o = owner[k];
            if (o == -1) sigready = 1;
            else if (o == -2) stdin_pump(1, 0);
            else if (o == -3) stdin_pump(0, 1);
            else {
                int r = o / 3, w = o % 3;
                if (w == 0) pmi_read(r);
                else if (job.ranks[r].out[w - 1].fd >= 0) stream_read(r, &job.ranks[r].out[w - 1]);
            }
        }
        /* Children last, so that their final output and PMI messages are in. */
        if (sigready) handle_signals();
        if (job.stdin_w >= 0 && !job.ranks[0].alive) stdin_close();
    }

    free(pfd);
    free(owner);
    stop_watcher();
    shm_cleanup(job.kvsname);
    return job.exit_code;
}
