/* SPDX-License-Identifier: MIT */
/* The ranks of a job on one host (see ranks.h). */
#define _GNU_SOURCE
#include "ranks.h"
#include "util/settings.h"
#include "util/cpus.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Bytes asked of one read() of a rank's output or PMI socket. */
#define LA_RANK_READ 65536

void la_ranks_init(la_ranks_t *rs, int n, const int *ranks)
{
    *rs = (la_ranks_t){ .n = n, .stdin_w = -1, .stdin_fd = -1, .devnull = -1,
                       .pmi_batch = (int)ut_settings.pmi_batch };
    /* A session per rank gives each a session's share of its core beside other
     * sessions' work (autogroup); but where this host's ranks outnumber its
     * cores they share cores with each other, and a rank alone in its group
     * yields to nobody (sched_yield stays inside the group), so they share
     * one process group in mpiexec's session, as the library's waiting policy
     * assumes. */
    rs->own_session = ut_settings.rank_session >= 0 ? (int)ut_settings.rank_session
                                                    : !ut_oversubscribed(n);
    rs->r = la_calloc((size_t)(n > 0 ? n : 1), sizeof *rs->r);
    sigemptyset(&rs->child_mask);
    for (int i = 0; i < n; i++) {
        rs->r[i].rank = ranks[i];
        rs->r[i].pid = -1;
        rs->r[i].pmi_fd = -1;
        rs->r[i].out_fd[0] = rs->r[i].out_fd[1] = -1;
    }
}

const char *la_env_get(char *const *env, const char *name)
{
    size_t n = strlen(name);
    for (; env && *env; env++)
        if (!strncmp(*env, name, n) && (*env)[n] == '=') return *env + n + 1;
    return NULL;
}

int la_resolve_program(const char *prog, const char *path, char **out, char *err, size_t errlen)
{
    struct stat st;
    if (strchr(prog, '/')) {
        if (stat(prog, &st) < 0) {
            snprintf(err, errlen, "cannot execute \"%s\": %s", prog, strerror(errno));
            return 127;
        }
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "cannot execute \"%s\": Is a directory", prog);
            return 126;
        }
        if (access(prog, X_OK) < 0) {
            snprintf(err, errlen, "cannot execute \"%s\": %s", prog, strerror(errno));
            return 126;
        }
        *out = la_strdup(prog);
        return 0;
    }
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    int found_noexec = 0;
    for (const char *p = path;;) {
        const char *e = strchr(p, ':');
        size_t dlen = e ? (size_t)(e - p) : strlen(p);
        char *cand = dlen ? la_asprintf("%.*s/%s", (int)dlen, p, prog) : la_asprintf("./%s", prog);
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(cand, X_OK) == 0) {
                *out = cand;
                return 0;
            }
            found_noexec = 1;
        }
        free(cand);
        if (!e) break;
        p = e + 1;
    }
    if (found_noexec) {
        snprintf(err, errlen, "cannot execute \"%s\": Permission denied", prog);
        return 126;
    }
    snprintf(err, errlen, "cannot execute \"%s\": command not found (not in PATH)", prog);
    return 127;
}

/* ---- spawning ------------------------------------------------------------------ */

struct child_args {
    pid_t parent, pgid;       /* pgid unused with own_session */
    int own_session;          /* COURIER_RANK_SESSION: setsid() instead of joining pgid */
    int pmi_fd, in_fd, out_fd, err_fd;
    const cpu_set_t *cpus;    /* NULL: not bound */
    char **envp;
    const char *path;         /* the program and its arguments */
    char *const *argv;
    const char *wdir;         /* NULL: stay */
};

/* vfork and exec; the child runs only system calls until execve and reports
 * an error in rs->spawn_errno (vfork shares our memory).  Kept apart so that
 * no local variable of the caller lives across vfork. */
static pid_t __attribute__((noinline)) spawn_child(la_ranks_t *rs, const struct child_args *a)
{
    rs->spawn_errno = 0;
    pid_t pid = vfork();
    if (pid == 0) {
        if (a->own_session) setsid();
        else setpgid(0, a->pgid);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != a->parent) _exit(127);
        fcntl(a->pmi_fd, F_SETFD, 0);
        if (a->in_fd >= 0) dup2(a->in_fd, 0);
        dup2(a->out_fd, 1);
        dup2(a->err_fd, 2);
        if (a->cpus && sched_setaffinity(0, sizeof *a->cpus, a->cpus) < 0) {
            rs->spawn_errno = errno;
            _exit(127);
        }
        if (a->wdir && chdir(a->wdir) < 0) {
            rs->spawn_errno = errno;
            _exit(127);
        }
        sigprocmask(SIG_SETMASK, &rs->child_mask, NULL);
        execve(a->path, a->argv, a->envp);
        rs->spawn_errno = errno;
        _exit(127);
    }
    return pid;
}

/* The environment of local rank i: the base, then the per-rank variables. */
static char **rank_env(la_ranks_t *rs, int i, int pmi_fd, char **owned, int *nowned)
{
    int nbase = 0;
    while (rs->env && rs->env[nbase]) nbase++;
    char **envp = la_malloc(sizeof(char *) * (size_t)(nbase + 8));
    int n = 0;
    for (int k = 0; k < nbase; k++) envp[n++] = rs->env[k];
    *nowned = 0;
    owned[(*nowned)++] = envp[n++] = la_asprintf("PMI_FD=%d", pmi_fd);
    owned[(*nowned)++] = envp[n++] = la_asprintf("PMI_RANK=%d", rs->r[i].rank);
    owned[(*nowned)++] = envp[n++] = la_asprintf("MPI_LOCALRANKID=%d", i);
    const la_binding_t *b = &rs->r[i].bind;
    if (b->bound && b->omp_places) {
        /* OpenMP threads on the rank's own cores, unless the user chose */
        if (!la_env_get(rs->env, "OMP_PLACES"))
            owned[(*nowned)++] = envp[n++] = la_asprintf("OMP_PLACES=%s", b->omp_places);
        if (!la_env_get(rs->env, "OMP_PROC_BIND"))
            owned[(*nowned)++] = envp[n++] = la_strdup("OMP_PROC_BIND=close");
    }
    if (b->bound && b->progress != LA_PROGRESS_NONE) {
        /* where the rank's progress thread pins itself (src/core/async.c) */
        char cpus[1024];
        la_cpus_format(&b->progress_cpus, cpus, sizeof cpus);
        owned[(*nowned)++] = envp[n++] = la_asprintf("COURIER_PROGRESS_CPUS=%s", cpus);
    }
    envp[n] = NULL;
    return envp;
}

int la_ranks_spawn(la_ranks_t *rs, int i, char *err, size_t errlen)
{
    la_lrank_t *rk = &rs->r[i];
    if (rs->devnull < 0) rs->devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int in_fd = rs->devnull, pipe_r = -1;
    if (rk->rank == 0 && rs->stdin_mode == LA_STDIN_INHERIT) {
        in_fd = rs->stdin_fd;
    } else if (rk->rank == 0 && rs->stdin_mode == LA_STDIN_PIPE) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) == 0) {
            pipe_r = in_fd = p[0];
            rs->stdin_w = p[1];
            la_set_nonblock(p[1]);
        }
    }
    int sv[2], po[2], pe[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) goto sys_fail;
    if (pipe2(po, O_CLOEXEC) < 0) {
        close(sv[0]);
        close(sv[1]);
        goto sys_fail;
    }
    if (pipe2(pe, O_CLOEXEC) < 0) {
        close(sv[0]);
        close(sv[1]);
        close(po[0]);
        close(po[1]);
        goto sys_fail;
    }
    char *owned[8];
    int nowned;
    char **envp = rank_env(rs, i, sv[1], owned, &nowned);
    struct child_args a = {
        .parent = getpid(), .pgid = rs->pgid, .own_session = rs->own_session, .pmi_fd = sv[1], .in_fd = in_fd,
        .out_fd = po[1], .err_fd = pe[1], .cpus = rk->bind.bound ? &rk->bind.cpus : NULL, .envp = envp,
        .path = rk->path ? rk->path : rs->path, .argv = rk->argv ? rk->argv : rs->argv,
        .wdir = rk->wdir ? rk->wdir : rs->wdir,
    };
    pid_t pid = spawn_child(rs, &a);
    for (int k = 0; k < nowned; k++) free(owned[k]);
    free(envp);
    close(sv[1]);
    close(po[1]);
    close(pe[1]);
    if (pipe_r >= 0) close(pipe_r);
    if (pid < 0 || rs->spawn_errno) {
        int e = pid < 0 ? errno : rs->spawn_errno;
        snprintf(err, errlen, "cannot start rank %d (%s%s%s): %s", rk->rank, rs->path,
                 rs->wdir ? " in " : "", rs->wdir ? rs->wdir : "", strerror(e));
        close(sv[0]);
        close(po[0]);
        close(pe[0]);
        if (pid > 0) {
            waitpid(pid, NULL, 0);
            if (!rs->pgid && !rs->own_session) rs->pgid = pid;   /* the group lives on while others are in it */
        }
        return e == EACCES || e == ENOEXEC || e == EISDIR ? 126 : 127;
    }
    if (!rs->pgid && !rs->own_session) rs->pgid = pid;
    rk->pid = pid;
    rk->alive = 1;
    rs->nalive++;
    rk->pmi_fd = sv[0];
    la_set_nonblock(sv[0]);
    rk->out_fd[0] = po[0];
    rk->out_fd[1] = pe[0];
    la_set_nonblock(po[0]);
    la_set_nonblock(pe[0]);
    return 0;
sys_fail:
    snprintf(err, errlen, "cannot start rank %d: %s", rk->rank, strerror(errno));
    if (pipe_r >= 0) close(pipe_r);
    return 127;
}

/* ---- PMI sockets -------------------------------------------------------------------- */

static void pmi_close(la_lrank_t *rk)
{
    if (rk->pmi_fd >= 0) close(rk->pmi_fd);
    rk->pmi_fd = -1;
    la_buf_free(&rk->reply);
}

/* One read() of rank i's PMI socket.  Returns 1 when bytes came, 0 when
 * nothing is there, -1 when the socket is closed (now or before). */
static int pmi_fill(la_ranks_t *rs, int i)
{
    la_lrank_t *rk = &rs->r[i];
    if (rk->pmi_fd < 0) return -1;
    if (rk->incap - rk->inlen < LA_RANK_READ / 4) {
        rk->incap = rk->incap ? rk->incap * 2 : LA_RANK_READ;
        rk->in = la_realloc(rk->in, rk->incap);
    }
    for (;;) {
        ssize_t n = read(rk->pmi_fd, rk->in + rk->inlen, rk->incap - rk->inlen - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (n <= 0) {
            pmi_close(rk);
            return -1;
        }
        rk->inlen += (size_t)n;
        return 1;
    }
}

static int has_line(const la_lrank_t *rk)
{
    return rk->inlen && memchr(rk->in, '\n', rk->inlen);
}

/* May rank i's requests be served now? */
static int can_serve(const la_ranks_t *rs, const la_lrank_t *rk)
{
    return la_buf_pending(&rk->reply) <= LA_REPLY_CAP &&
           (rs->max_outstanding <= 0 || rk->outstanding < rs->max_outstanding);
}

/* Hand up to max complete lines of rank i to ops.pmi (max < 0: all). */
static void pmi_lines(la_ranks_t *rs, int i, int max)
{
    la_lrank_t *rk = &rs->r[i];
    size_t start = 0;
    int done = 0;
    char *nl;
    while ((max < 0 || (done < max && can_serve(rs, rk))) && start < rk->inlen &&
           (nl = memchr(rk->in + start, '\n', rk->inlen - start))) {
        *nl = '\0';
        rk->outstanding++;
        if (nl > rk->in + start && nl[-1] == '\r') nl[-1] = '\0';
        rs->ops.pmi(rs->ctx, i, rk->in + start);
        start = (size_t)(nl - rk->in) + 1;
        done++;
    }
    if (start) {
        rk->inlen -= start;
        memmove(rk->in, rk->in + start, rk->inlen);
    }
    if (rk->inlen > LA_PMI_LINE_MAX && !memchr(rk->in, '\n', rk->inlen)) {
        la_warn("rank %d: PMI request longer than %d bytes", rk->rank, LA_PMI_LINE_MAX);
        pmi_close(rk);
        rk->inlen = 0;
    }
}

void la_ranks_reply(la_ranks_t *rs, int i, const char *p, size_t len)
{
    la_lrank_t *rk = &rs->r[i];
    for (size_t k = 0; k < len; k++)
        if (p[k] == '\n' && rk->outstanding > 0) rk->outstanding--;
    if (rk->pmi_fd < 0) return;
    la_buf_add(&rk->reply, p, len);
    if (la_buf_flush(&rk->reply, rk->pmi_fd) < 0) pmi_close(rk);
}

/* ---- output --------------------------------------------------------------------------- */

static void out_close(la_ranks_t *rs, int i, int s)
{
    la_lrank_t *rk = &rs->r[i];
    if (rk->out_fd[s] < 0) return;
    close(rk->out_fd[s]);
    rk->out_fd[s] = -1;
    rs->ops.output(rs->ctx, i, s + 1, "", 0);
}

/* Read stream s of rank i: once, or (all) until nothing is left. */
static void out_read(la_ranks_t *rs, int i, int s, int all)
{
    la_lrank_t *rk = &rs->r[i];
    char buf[LA_RANK_READ];
    while (rk->out_fd[s] >= 0) {
        ssize_t n = read(rk->out_fd[s], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
            out_close(rs, i, s);
            return;
        }
        rs->ops.output(rs->ctx, i, s + 1, buf, (size_t)n);
        if (!all || n < (ssize_t)sizeof buf) return;
    }
}

/* ---- the poll loop ---------------------------------------------------------------------- */

static void on_pmi(void *obj, int i, int fd, short rev)
{
    la_ranks_t *rs = obj;
    la_lrank_t *rk = &rs->r[i];
    if (rk->pmi_fd != fd) return;
    if (rev & POLLOUT) {
        if (la_buf_flush(&rk->reply, fd) < 0) {
            pmi_close(rk);
            return;
        }
    }
    if (rev & (POLLIN | POLLHUP | POLLERR)) pmi_fill(rs, i);
}

static void on_out(void *obj, int idx, int fd, short rev)
{
    la_ranks_t *rs = obj;
    int i = idx / 2, s = idx % 2;
    if (rs->r[i].out_fd[s] == fd) out_read(rs, i, s, 0);
}

static void on_stdin(void *obj, int idx, int fd, short rev)
{
    la_ranks_t *rs = obj;
    if (rs->stdin_w != fd) return;
    if (la_buf_flush(&rs->stdin_buf, fd) < 0) {
        la_buf_free(&rs->stdin_buf);
        rs->stdin_eof = 1;
    }
    if (!la_buf_pending(&rs->stdin_buf)) {
        if (rs->stdin_eof) {
            close(rs->stdin_w);
            rs->stdin_w = -1;
        }
        if (rs->ops.stdin_drained) rs->ops.stdin_drained(rs->ctx);
    }
}

void la_ranks_poll(la_ranks_t *rs, la_poll_t *p)
{
    for (int i = 0; i < rs->n; i++) {
        la_lrank_t *rk = &rs->r[i];
        if (rk->pmi_fd >= 0) {
            short ev = 0;
            int ok = can_serve(rs, rk);
            if (la_buf_pending(&rk->reply)) ev |= POLLOUT;
            if (has_line(rk)) {
                if (ok) la_poll_within(p, 0);   /* serve the rest next round */
            } else if (ok) {
                ev |= POLLIN;
            }
            if (ev) la_poll_add(p, rk->pmi_fd, ev, on_pmi, rs, i);
        }
        for (int s = 0; s < 2 && !rs->hold_output; s++)
            if (rk->out_fd[s] >= 0) la_poll_add(p, rk->out_fd[s], POLLIN, on_out, rs, 2 * i + s);
    }
    if (rs->stdin_w >= 0 && (la_buf_pending(&rs->stdin_buf) || rs->stdin_eof))
        la_poll_add(p, rs->stdin_w, POLLOUT, on_stdin, rs, 0);
}

void la_ranks_serve(la_ranks_t *rs)
{
    for (int i = 0; i < rs->n; i++) {
        la_lrank_t *rk = &rs->r[i];
        if (rk->pmi_fd >= 0 && can_serve(rs, rk)) pmi_lines(rs, i, rs->pmi_batch > 0 ? rs->pmi_batch : 1);
    }
}

int la_ranks_reaped(la_ranks_t *rs, pid_t pid, int status)
{
    for (int i = 0; i < rs->n; i++) {
        la_lrank_t *rk = &rs->r[i];
        if (rk->pid != pid || !rk->alive) continue;
        /* Take what it left in its socket and pipes before judging. */
        while (pmi_fill(rs, i) > 0) {}
        pmi_lines(rs, i, -1);
        for (int s = 0; s < 2; s++) out_read(rs, i, s, 1);
        rk->alive = 0;
        rs->nalive--;
        rs->ops.exited(rs->ctx, i, status);
        return 1;
    }
    return 0;
}

void la_ranks_signal(la_ranks_t *rs, int sig)
{
    if (rs->pgid > 0) kill(-rs->pgid, sig);
    for (int i = 0; i < rs->n; i++) {
        if (!rs->r[i].alive) continue;
        /* a rank in its own session leads its own process group, which holds
         * whatever it started (a wrapper script's program, a tool's child) */
        if (rs->own_session) kill(-rs->r[i].pid, sig);
        kill(rs->r[i].pid, sig);
    }
}

void la_ranks_close_output(la_ranks_t *rs, int stream)
{
    for (int i = 0; i < rs->n; i++) {
        la_lrank_t *rk = &rs->r[i];
        if (rk->out_fd[stream - 1] >= 0) close(rk->out_fd[stream - 1]);
        rk->out_fd[stream - 1] = -1;
    }
}

void la_ranks_finish_output(la_ranks_t *rs)
{
    for (int i = 0; i < rs->n; i++)
        for (int s = 0; s < 2; s++) {
            out_read(rs, i, s, 1);
            out_close(rs, i, s);
        }
}

void la_ranks_stdin_write(la_ranks_t *rs, const char *p, size_t len)
{
    if (rs->stdin_w < 0) return;
    la_buf_add(&rs->stdin_buf, p, len);
    on_stdin(rs, 0, rs->stdin_w, POLLOUT);
}

void la_ranks_stdin_close(la_ranks_t *rs)
{
    rs->stdin_eof = 1;
    if (rs->stdin_w >= 0) on_stdin(rs, 0, rs->stdin_w, POLLOUT);
}

void la_ranks_free(la_ranks_t *rs)
{
    for (int i = 0; i < rs->n; i++) {
        la_lrank_t *rk = &rs->r[i];
        pmi_close(rk);
        free(rk->in);
        for (int s = 0; s < 2; s++)
            if (rk->out_fd[s] >= 0) close(rk->out_fd[s]);
        la_binding_free(&rk->bind, 1);
    }
    if (rs->stdin_w >= 0) close(rs->stdin_w);
    if (rs->devnull >= 0) close(rs->devnull);
    la_buf_free(&rs->stdin_buf);
    free(rs->r);
    rs->r = NULL;
    rs->n = 0;
}
