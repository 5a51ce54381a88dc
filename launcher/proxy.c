/* SPDX-License-Identifier: MIT */
/* courier_proxy: mpiexec's hands on another host.
 *
 *   courier_proxy --id N --port P --addr A,B,... [--ssh-peer] [--job-stdin] [--verbose] [--trace]
 *   courier_proxy --slurm-base N ...        (under srun: id N + SLURM_PROCID)
 *
 * Started by mpiexec (or by another proxy) through ssh, rsh, fork or srun.
 * It reads the job's secret from the first line of stdin (or, under srun,
 * from COURIER_LAUNCH_SECRET, which it removes at once), connects back to
 * mpiexec (the ssh client's address first with --ssh-peer, then the list),
 * proves it knows the secret and checks that mpiexec does (wire.h), says
 * HELLO, and waits for the JOB frame: the program, its arguments and
 * environment, working directory, which ranks run here, how to bind them, and
 * which further proxies to start (the launch tree).  With --job-stdin the JOB
 * frame follows the secret on stdin instead, and the proxy starts its ranks
 * before it connects (their first PMI requests wait here meanwhile).  It
 * starts the further proxies first, then the ranks (ranks.c), and from then on
 * relays: PMI requests up and replies down, output up, stdin down (to rank
 * 0), exit statuses up, signals down.  It answers on its own what needs no
 * other host (init, maxes, appnum, kvsname, universe size, put, finalize: the
 * request still goes up, marked answered, for mpiexec's bookkeeping; and a get
 * of a key it has seen: its ranks' puts and the keys mpiexec sends with each
 * barrier's release), so a rank waits for mpiexec only in barriers and in
 * gets of keys put since the last barrier elsewhere.  It exits once its ranks
 * have all ended (or when mpiexec says BYE); when the connection to mpiexec
 * breaks, or it is told to stop by a signal, it kills its ranks and exits. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "auth.h"
#include "common.h"
#include "kvs.h"
#include "place.h"
#include "ranks.h"
#include "start.h"
#include "util/settings.h"
#include "wire.h"

extern char **environ;

/* Bytes waiting for mpiexec beyond which the ranks' output is left in their
 * pipes (so a slow reader slows the writers instead of filling our memory). */
#define OUT_BACKLOG (4 << 20)
/* After BYE: how long started proxies (our children in the tree) get to end. */
#define CHILD_EXIT_WAIT_MS 3000

static struct {
    int id;
    la_conn_t conn;
    uint8_t secret[LA_SECRET_BYTES];
    char secret_hex[2 * LA_SECRET_BYTES + 1];
    char *addr_used;
    char *addrs;
    char *cands;         /* mpiexec's addresses to try, best first */
    int port;
    int verbose;
    char host[256];
    int sigfd;
    sigset_t orig_mask;

    /* the job */
    int have_job;
    la_ranks_t rs;
    char **argv;
    int argc;
    char **env;
    int nenv;
    char *kvsname;
    char *job_host;      /* our name in mpiexec's host list */
    int stopping;        /* told to end: start no more ranks */
    int bye;
    la_kvs_t kvs;        /* the keys seen here (kvs.h) */
    int *appnum;         /* per local rank */
    int usize;           /* MPI_UNIVERSE_SIZE, 0: unknown */
    int fast_kex;        /* our ssh launches: mpiexec's COURIER_SSH_FAST_KEX */

    /* the proxies we started (the launch tree) */
    la_started_t *kids;
    int *kid_id;
    int nkids;
} px = { .id = -1, .sigfd = -1 };

static void send_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void send_msg(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
    la_conn_send(&px.conn, LA_F_MSG, 0, 0, buf, (size_t)n);
}

/* ---- the secret ------------------------------------------------------------------ */

static void read_secret(int from_env)
{
    char line[2 * LA_SECRET_BYTES + 4];
    size_t len = 0;
    if (from_env) {
        const char *s = getenv(LA_SECRET_ENV);
        if (!s) la_die(255, "no %s in the environment", LA_SECRET_ENV);
        snprintf(line, sizeof line, "%s", s);
        unsetenv(LA_SECRET_ENV);
    } else {
        /* byte by byte: nothing after the line may be taken from stdin */
        long long end = la_now_ms() + ut_settings.launch_timeout_ms;
        while (len < sizeof line - 1) {
            struct pollfd pf = { .fd = 0, .events = POLLIN };
            long long left = end - la_now_ms();
            if (left <= 0 || poll(&pf, 1, (int)left) <= 0) la_die(255, "no secret on stdin");
            char c;
            ssize_t n = read(0, &c, 1);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) la_die(255, "stdin closed before the secret arrived");
            if (c == '\n') break;
            line[len++] = c;
        }
        line[len] = '\0';
    }
    if (la_unhex(line, px.secret, sizeof px.secret) < 0) la_die(255, "malformed secret");
    la_hex(px.secret, sizeof px.secret, px.secret_hex);
}

/* ---- the launch tree ---------------------------------------------------------------- */

static void start_children(const char *launcher, const char *lexec, const char *proxy, char **kids, int nk)
{
    if (nk == 0) return;
    la_launch_t l = { .exec = lexec, .proxy = proxy, .port = px.port, .verbose = px.verbose, .trace = la_tracing,
                      .fast_kex = px.fast_kex };
    if (la_launcher_parse(launcher, &l.kind) < 0) l.kind = LA_LAUNCH_SSH;
    /* our way to mpiexec first: it works from here, likely from our children
     * too (not known yet when the job came on stdin: then our candidates) */
    char *addrs = px.addr_used ? la_asprintf("%s,%s", px.addr_used, px.addrs) : la_strdup(px.cands);
    l.addrs = addrs;
    px.kids = la_calloc((size_t)nk, sizeof *px.kids);
    px.kid_id = la_calloc((size_t)nk, sizeof(int));
    for (int k = 0; k < nk; k++) {
        char *sp = strchr(kids[k], ' ');
        if (!sp) continue;
        *sp = '\0';
        int id = atoi(kids[k]);
        const char *host = sp + 1;
        char err[512];
        la_started_t st;
        if (la_launch_start(&l, &host, 1, id, 0, px.secret_hex, &px.orig_mask, &st, err, sizeof err) < 0) {
            la_conn_send(&px.conn, LA_F_CHILD_FAIL, 0, id, err, strlen(err));
            continue;
        }
        px.kids[px.nkids] = st;
        px.kid_id[px.nkids++] = id;
    }
    free(addrs);
}

static void kids_signal(int sig)
{
    for (int k = 0; k < px.nkids; k++)
        if (px.kids[k].pid > 0) kill(-px.kids[k].pid, sig);
}

static int kid_exited(pid_t pid, int st)
{
    for (int k = 0; k < px.nkids; k++) {
        if (px.kids[k].pid != pid) continue;
        px.kids[k].pid = -1;
        if (px.kids[k].stdin_w >= 0) close(px.kids[k].stdin_w);
        px.kids[k].stdin_w = -1;
        if (!px.bye && (!WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
            char msg[128];
            if (WIFSIGNALED(st)) snprintf(msg, sizeof msg, "its launcher was killed by signal %d", WTERMSIG(st));
            else snprintf(msg, sizeof msg, "its launcher exited with status %d (see its message above)", WEXITSTATUS(st));
            la_conn_send(&px.conn, LA_F_CHILD_FAIL, 0, px.kid_id[k], msg, strlen(msg));
        }
        return 1;
    }
    return 0;
}

/* ---- ranks (callbacks of ranks.c) ------------------------------------------------------- */

/* Answer rank i's request here if no other host is needed: 0 mpiexec must
 * answer it; 1 answered here, mpiexec takes note; 2 answered here, nothing
 * goes up (a get of a key seen here). */
static int pmi_here(int i, const char *line)
{
    char cmd[64], key[LA_PMI_KEYLEN_MAX + 1], val[LA_PMI_VALLEN_MAX + 1];
    char buf[LA_PMI_KEYLEN_MAX + LA_PMI_VALLEN_MAX + 128];
    const char *v;
    int n, how = 1;
    if (la_pmi_field(line, "cmd", cmd, sizeof cmd) < 0) return 0;
    if (!strcmp(cmd, "init")) {
        n = snprintf(buf, sizeof buf, "%s", LA_PMI_INIT_REPLY);
    } else if (!strcmp(cmd, "get_maxes")) {
        n = snprintf(buf, sizeof buf, "%s", LA_PMI_MAXES_REPLY);
    } else if (!strcmp(cmd, "get_appnum")) {
        n = snprintf(buf, sizeof buf, "cmd=appnum rc=0 appnum=%d\n", px.appnum ? px.appnum[i] : 0);
    } else if (!strcmp(cmd, "get_my_kvsname")) {
        n = snprintf(buf, sizeof buf, "cmd=my_kvsname rc=0 kvsname=%s\n", px.kvsname);
    } else if (!strcmp(cmd, "get_universe_size")) {
        n = px.usize > 0 ? snprintf(buf, sizeof buf, "cmd=universe_size rc=0 size=%d\n", px.usize)
                         : snprintf(buf, sizeof buf, "cmd=universe_size rc=-1 msg=unknown\n");
    } else if (!strcmp(cmd, "put")) {
        /* what mpiexec would refuse, it answers itself */
        if (la_pmi_field(line, "key", key, sizeof key) < 0 || la_pmi_field(line, "value", val, sizeof val) < 0)
            return 0;
        la_kvs_put(&px.kvs, key, val);
        n = snprintf(buf, sizeof buf, "%s", LA_PMI_PUT_REPLY);
    } else if (!strcmp(cmd, "get")) {
        if (la_pmi_field(line, "key", key, sizeof key) < 0 || !(v = la_kvs_get(&px.kvs, key))) return 0;
        n = snprintf(buf, sizeof buf, "cmd=get_result rc=0 msg=success value=%s\n", v);
        how = 2;
    } else if (!strcmp(cmd, "finalize")) {
        n = snprintf(buf, sizeof buf, "%s", LA_PMI_FINALIZE_REPLY);
    } else {
        return 0;
    }
    if (n < 0 || (size_t)n >= sizeof buf) return 0;
    la_ranks_reply(&px.rs, i, buf, (size_t)n);
    return how;
}

static void on_rank_pmi(void *ctx, int i, char *line)
{
    int how = pmi_here(i, line);
    if (la_tracing)
        la_trace("rank %d: PMI %.40s%s", px.rs.r[i].rank, line,
                 how == 2 ? " (answered here)" : how ? " (answered here, noted upstream)" : "");
    if (how != 2) la_conn_send(&px.conn, LA_F_PMI, how, px.rs.r[i].rank, line, strlen(line));
}

static void on_rank_output(void *ctx, int i, int stream, const char *p, size_t len)
{
    la_conn_send(&px.conn, LA_F_OUT, stream, px.rs.r[i].rank, p, len);
}

static void on_rank_exited(void *ctx, int i, int st)
{
    la_trace("rank %d exited (status 0x%x)", px.rs.r[i].rank, st);
    char s[32];
    int n = snprintf(s, sizeof s, "%d", st);
    la_conn_send(&px.conn, LA_F_EXIT, 0, px.rs.r[i].rank, s, (size_t)n);
}

static void on_stdin_drained(void *ctx)
{
    la_conn_send(&px.conn, LA_F_STDIN_ACK, 0, 0, NULL, 0);
}

/* The ranks' environment: ours (what the login gave us), then mpiexec's. */
static char **rank_env(int nlocal, int size)
{
    int cap = px.nenv + 8, n = 0;
    for (char **e = environ; *e; e++) cap++;
    char **envp = la_malloc(sizeof(char *) * (size_t)cap);
    for (char **e = environ; *e; e++) {
        if (la_env_reserved(*e)) continue;
        size_t nl = strcspn(*e, "=");
        int overridden = 0;
        for (int k = 0; k < px.nenv && !overridden; k++) overridden = !strncmp(px.env[k], *e, nl + 1);
        if (!overridden) envp[n++] = *e;
    }
    for (int k = 0; k < px.nenv; k++) envp[n++] = px.env[k];
    envp[n++] = la_asprintf("PMI_SIZE=%d", size);
    envp[n++] = la_asprintf("COURIER_JOBID=%s", px.kvsname);
    envp[n++] = la_asprintf("MPI_LOCALNRANKS=%d", nlocal);
    envp[n] = NULL;
    return envp;
}

static void rank_failed_to_start(int i, int code, const char *msg)
{
    la_conn_send(&px.conn, LA_F_SPAWNERR, code, px.rs.r[i].rank, msg, strlen(msg));
    px.rs.r[i].alive = 0;
}

/* Several programs (mpiexec's ":"): each one's arguments and directory. */
typedef struct {
    char **argv;
    int argc;
    const char *wdir;
    char *path;          /* resolved, when a rank here runs it */
} app_t;

/* The app of "<k> <value>" (grown to hold k), the value in *v; NULL when malformed. */
static app_t *app_item(app_t **apps, int *napps, const char *val, const char **v)
{
    char *end;
    long k = strtol(val, &end, 10);
    if (end == val || *end != ' ' || k < 0 || k > 1000000) return NULL;
    if (k >= *napps) {
        *apps = la_realloc(*apps, sizeof **apps * (size_t)(k + 1));
        memset(*apps + *napps, 0, sizeof **apps * (size_t)(k + 1 - *napps));
        *napps = (int)k + 1;
    }
    *v = end + 1;
    return &(*apps)[k];
}

/* Several programs: each rank gets its program, arguments and directory;
 * a rank whose program is not found here fails to start (*skip[i] = 1). */
static void assign_apps(la_ranks_t *rs, app_t *apps, int napps, const int *rank_app, char *skip)
{
    char err[1024];
    for (int i = 0; i < rs->n; i++) {
        int k = rank_app[i];
        if (k < 0 || k >= napps || !apps[k].argc) {
            rank_failed_to_start(i, 127, "no program to run");
            skip[i] = 1;
            continue;
        }
        app_t *a = &apps[k];
        int code = a->path ? 0 : la_resolve_program(a->argv[0], la_env_get(rs->env, "PATH"), &a->path, err,
                                                    sizeof err);
        if (code) {
            rank_failed_to_start(i, code, err);
            skip[i] = 1;
            continue;
        }
        rs->r[i].path = a->path;
        rs->r[i].argv = a->argv;
        rs->r[i].wdir = a->wdir;
    }
}

static void start_job(const la_frame_t *f)
{
    const char *pos = f->p, *end = f->p + f->len, *key, *val;
    int *ranks = NULL, nranks = 0, size = 0, want_stdin = 0, pmi_batch = (int)ut_settings.pmi_batch;
    int *rank_app = NULL, nrank_app = 0, napps = 0;
    app_t *apps = NULL;
    const char *wdir = NULL, *cwd = NULL, *launcher = "ssh", *lexec = NULL, *proxy = NULL;
    char **kids = NULL;
    int nk = 0;
    la_place_t place = { 0 };
    char err[1024];
    while (la_kv_next(&pos, end, &key, &val) == 1) {
        if (!strcmp(key, "kvsname")) px.kvsname = la_strdup(val);
        else if (!strcmp(key, "usize")) px.usize = atoi(val);
        else if (!strcmp(key, "size")) size = atoi(val);
        else if (!strcmp(key, "host")) px.job_host = la_strdup(val);
        else if (!strcmp(key, "rank")) {
            ranks = la_realloc(ranks, sizeof(int) * (size_t)(nranks + 1));
            ranks[nranks++] = atoi(val);
        } else if (!strcmp(key, "rank_app")) {
            rank_app = la_realloc(rank_app, sizeof(int) * (size_t)(nrank_app + 1));
            rank_app[nrank_app++] = atoi(val);
        } else if (!strcmp(key, "app_arg") || !strcmp(key, "app_wdir")) {
            const char *v;
            app_t *a = app_item(&apps, &napps, val, &v);
            if (a && key[4] == 'w') {
                a->wdir = v;
            } else if (a) {
                a->argv = la_realloc(a->argv, sizeof(char *) * (size_t)(a->argc + 2));
                a->argv[a->argc++] = la_strdup(v);
                a->argv[a->argc] = NULL;
            }
        } else if (!strcmp(key, "arg")) {
            px.argv = la_realloc(px.argv, sizeof(char *) * (size_t)(px.argc + 2));
            px.argv[px.argc++] = la_strdup(val);
            px.argv[px.argc] = NULL;
        } else if (!strcmp(key, "env")) {
            px.env = la_realloc(px.env, sizeof(char *) * (size_t)(px.nenv + 1));
            px.env[px.nenv++] = la_strdup(val);
        } else if (!strcmp(key, "wdir")) wdir = val;
        else if (!strcmp(key, "cwd")) cwd = val;
        else if (!strcmp(key, "bind")) la_place_parse_bind(&place, val, err, sizeof err);
        else if (!strcmp(key, "map")) la_place_parse_map(&place, val, err, sizeof err);
        else if (!strcmp(key, "pe")) place.pe = atoi(val);
        else if (!strcmp(key, "pe_from_omp")) place.pe_from_omp = atoi(val);
        else if (!strcmp(key, "report")) place.report = atoi(val);
        else if (!strcmp(key, "progress")) place.progress = atoi(val);
        else if (!strcmp(key, "pmi_batch")) pmi_batch = atoi(val);
        else if (!strcmp(key, "stdin")) want_stdin = atoi(val);
        else if (!strcmp(key, "launcher")) launcher = val;
        else if (!strcmp(key, "launcher_exec")) lexec = val;
        else if (!strcmp(key, "proxy")) proxy = val;
        else if (!strcmp(key, "verbose")) px.verbose = atoi(val);
        else if (!strcmp(key, "fast_kex")) px.fast_kex = atoi(val);
        else if (!strcmp(key, "child")) {
            kids = la_realloc(kids, sizeof(char *) * (size_t)(nk + 1));
            kids[nk++] = la_strdup(val);
        }
    }
    px.have_job = 1;
    if (px.job_host) snprintf(la_prog, sizeof la_prog, "courier_proxy@%s", px.job_host);
    /* the tree first: our children's ssh start while we fork ranks */
    if (proxy) start_children(launcher, lexec, proxy, kids, nk);
    for (int k = 0; k < nk; k++) free(kids[k]);
    free(kids);

    la_ranks_t *rs = &px.rs;
    la_ranks_init(rs, nranks, ranks);
    free(ranks);
    rs->size = size;
    rs->kvsname = px.kvsname;
    rs->argv = px.argv;
    rs->child_mask = px.orig_mask;
    rs->pmi_batch = pmi_batch;
    rs->max_outstanding = pmi_batch;   /* a flood waits here, not in the connection */
    rs->ops = (la_ranks_ops_t){ on_rank_pmi, on_rank_output, on_rank_exited, on_stdin_drained };
    rs->ctx = NULL;
    if (want_stdin) rs->stdin_mode = LA_STDIN_PIPE;
    rs->env = rank_env(nranks, size);

    /* where: the given directory must exist; mpiexec's own is tried */
    if (wdir && chdir(wdir) < 0) {
        snprintf(err, sizeof err, "cannot start rank %%d (in %s): %s", wdir, strerror(errno));
        for (int i = 0; i < rs->n; i++) {
            char m[1200];
            snprintf(m, sizeof m, err, rs->r[i].rank);
            rank_failed_to_start(i, 127, m);
        }
        return;
    }
    if (!wdir && cwd && chdir(cwd) < 0) {
        const char *home = getenv("HOME");
        send_msg("%s: warning: no directory %s here; the ranks start in %s", la_prog, cwd, home ? home : "/");
        if (chdir(home ? home : "/") < 0) {}
    }
    char *skip = la_calloc((size_t)rs->n + 1, 1);
    if (napps > 0 && nrank_app == rs->n) {
        assign_apps(rs, apps, napps, rank_app, skip);
        px.appnum = rank_app;
        rank_app = NULL;
    } else {
        char *path = NULL;
        int code = px.argc ? la_resolve_program(px.argv[0], la_env_get(rs->env, "PATH"), &path, err, sizeof err) : 127;
        if (code) {
            if (!px.argc) snprintf(err, sizeof err, "no program to run");
            for (int i = 0; i < rs->n; i++) rank_failed_to_start(i, code, err);
            free(skip);
            return;
        }
        rs->path = path;
    }
    free(rank_app);

    la_topo_t *topo = NULL;
    if (place.bind != LA_LVL_NONE && rs->n > 0) {
        topo = la_topo_load(err, sizeof err);
        if (!topo) {
            send_msg("mpiexec: warning: host %s: %s; not binding", px.job_host, err);
        } else {
            la_binding_t *b = la_calloc((size_t)rs->n, sizeof *b);
            char why[512];
            if (!la_topo_place(topo, &place, rs->n, b, why, sizeof why) && why[0])
                send_msg("mpiexec: warning: host %s: %s", px.job_host, why);
            for (int i = 0; i < rs->n; i++) rs->r[i].bind = b[i];
            free(b);
        }
    }
    for (int i = 0; i < rs->n; i++) {
        if (skip[i]) continue;
        if (px.stopping) {   /* ended before it started */
            on_rank_exited(NULL, i, SIGKILL);
            continue;
        }
        int code = la_ranks_spawn(rs, i, err, sizeof err);
        if (code) {
            rank_failed_to_start(i, code, err);
            continue;
        }
        char s[32];
        int n = snprintf(s, sizeof s, "%d", (int)rs->r[i].pid);
        la_conn_send(&px.conn, LA_F_STARTED, 0, rs->r[i].rank, s, (size_t)n);
        la_trace("rank %d started (pid %d)", rs->r[i].rank, (int)rs->r[i].pid);
        if (place.report) {
            char line[2048];
            la_binding_report(topo, &rs->r[i].bind, px.host, rs->r[i].pid, rs->r[i].rank, line, sizeof line);
            la_conn_send(&px.conn, LA_F_MSG, 0, 0, line, strlen(line));
        }
    }
    la_topo_free(topo);
    free(skip);
}

static int local_index(int rank)
{
    for (int i = 0; i < px.rs.n; i++)
        if (px.rs.r[i].rank == rank) return i;
    return -1;
}

static void handle_frame(const la_frame_t *f)
{
    int i;
    switch (f->type) {
    case LA_F_JOB:
        if (!px.have_job) start_job(f);
        break;
    case LA_F_KVS: {
        const char *pos = f->p, *end = f->p + f->len, *key, *val;
        int n = 0;
        while (la_kv_next(&pos, end, &key, &val) == 1) {
            la_kvs_put(&px.kvs, key, val);
            n++;
        }
        la_trace("%d keys from the barrier", n);
        break;
    }
    case LA_F_REPLY:
        if (f->rank < 0) {
            for (i = 0; i < px.rs.n; i++) la_ranks_reply(&px.rs, i, f->p, f->len);
        } else if ((i = local_index(f->rank)) >= 0) {
            la_ranks_reply(&px.rs, i, f->p, f->len);
        }
        break;
    case LA_F_STDIN:
        if (f->len) la_ranks_stdin_write(&px.rs, f->p, f->len);
        else la_ranks_stdin_close(&px.rs);
        break;
    case LA_F_SIGNAL:
        la_ranks_signal(&px.rs, f->arg);
        break;
    case LA_F_KILL:
        px.stopping = 1;
        la_ranks_signal(&px.rs, f->arg);
        kids_signal(SIGTERM);
        break;
    case LA_F_CLOSE_OUT:
        if (f->arg == 1 || f->arg == 2) la_ranks_close_output(&px.rs, f->arg);
        break;
    case LA_F_BYE:
        px.bye = 1;
        break;
    default:
        break;
    }
}

/* ---- the loop ------------------------------------------------------------------------------ */

static int conn_eof;

static void on_conn(void *obj, int idx, int fd, short rev)
{
    if (px.conn.fd != fd) return;
    if ((rev & POLLOUT) && la_conn_flush(&px.conn) < 0) conn_eof = 1;
    if ((rev & (POLLIN | POLLHUP | POLLERR)) && la_conn_fill(&px.conn) < 0) conn_eof = 1;
}

static int got_stop_signal;

static void reap(void)
{
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid <= 0) return;
        if (px.have_job && la_ranks_reaped(&px.rs, pid, st)) continue;
        kid_exited(pid, st);
    }
}

static void on_signal(void *obj, int idx, int fd, short rev)
{
    struct signalfd_siginfo si[8];
    ssize_t n;
    while ((n = read(px.sigfd, si, sizeof si)) > 0)
        for (size_t k = 0; k < (size_t)n / sizeof si[0]; k++)
            if (si[k].ssi_signo != SIGCHLD) got_stop_signal = (int)si[k].ssi_signo;
    reap();
}

/* Ranks still running are killed (and reaped, a second at most). */
static void kill_ranks(void)
{
    if (!px.have_job || px.rs.nalive == 0) return;
    la_ranks_signal(&px.rs, SIGKILL);
    for (int i = 0; i < 200 && px.rs.nalive > 0; i++) {
        poll(NULL, 0, 5);
        reap();
    }
}

/* Everything ends here: the ranks and the proxies we started, then files. */
static void __attribute__((noreturn)) bail_out(int code)
{
    kill_ranks();
    if (px.kvsname) la_shm_cleanup(px.kvsname);
    kids_signal(SIGTERM);
    exit(code);
}

static int kids_alive(void)
{
    int n = 0;
    for (int k = 0; k < px.nkids; k++) n += px.kids[k].pid > 0;
    return n;
}

static void send_hello(const char *host)
{
    la_buf_t hello = { 0 };
    la_kv_add(&hello, "host", host);
    const char *node = getenv("SLURMD_NODENAME");
    la_kv_add(&hello, "node", node && *node ? node : host);
    la_kv_addf(&hello, "pid", "%d", (int)getpid());
    la_conn_send(&px.conn, LA_F_HELLO, 0, px.id, hello.p, hello.len);
    la_buf_free(&hello);
}

int main(int argc, char **argv)
{
    int slurm = 0, ssh_peer = 0, job_stdin = 0;
    char host[256];
    if (gethostname(host, sizeof host - 1) < 0) strcpy(host, "?");
    host[sizeof host - 1] = '\0';
    snprintf(px.host, sizeof px.host, "%s", host);
    snprintf(la_prog, sizeof la_prog, "courier_proxy@%s", host);
    ut_settings_load();
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((!strcmp(a, "--id") || !strcmp(a, "--slurm-base")) && i + 1 < argc) {
            slurm = !strcmp(a, "--slurm-base");
            px.id = atoi(argv[++i]);
        } else if (!strcmp(a, "--port") && i + 1 < argc) {
            px.port = atoi(argv[++i]);
        } else if (!strcmp(a, "--addr") && i + 1 < argc) {
            px.addrs = la_strdup(argv[++i]);
        } else if (!strcmp(a, "--ssh-peer")) {
            ssh_peer = 1;
        } else if (!strcmp(a, "--verbose")) {
            px.verbose = 1;
        } else if (!strcmp(a, "--trace")) {
            la_tracing = 1;
        } else if (!strcmp(a, "--job-stdin")) {
            job_stdin = 1;
        } else {
            la_die(2, "unknown argument \"%s\" (courier_proxy is started by mpiexec)", a);
        }
    }
    if (px.id < 0 || px.port <= 0 || !px.addrs) la_die(2, "needs --id, --port and --addr (it is started by mpiexec)");
    if (slurm) {
        const char *pid = getenv("SLURM_PROCID");
        px.id += pid ? atoi(pid) : 0;
    }
    la_trace("started");
    read_secret(slurm);
    la_frame_t jf = { 0 };
    char *jstore = NULL;
    if (job_stdin && (la_frame_read_fd(0, &jf, &jstore, LA_FRAME_MAX, la_now_ms() + ut_settings.launch_timeout_ms) < 0 ||
                      jf.type != LA_F_JOB))
        la_die(255, "no job description on stdin");
    if (!slurm) {
        /* nothing more is read from stdin */
        int dn = open("/dev/null", O_RDONLY);
        if (dn >= 0 && dn != 0) {
            dup2(dn, 0);
            close(dn);
        }
    }
    /* nothing of ours on stdout: it may be mpiexec's terminal */
    dup2(2, 1);

    sigset_t mask;
    sigemptyset(&mask);
    int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) sigaddset(&mask, sigs[k]);
    sigprocmask(SIG_BLOCK, &mask, &px.orig_mask);
    px.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (px.sigfd < 0) la_die(255, "signalfd: %s", strerror(errno));
    signal(SIGPIPE, SIG_IGN);

    /* mpiexec's addresses: the ssh client's first, when it started us */
    char *cands = la_strdup(px.addrs);
    const char *sc = getenv("SSH_CONNECTION");
    if (ssh_peer && sc && *sc) {
        char *peer = la_strdup(sc);
        peer[strcspn(peer, " ")] = '\0';
        char *c = la_asprintf("%s,%s", peer, px.addrs);
        free(cands);
        free(peer);
        cands = c;
    }
    px.cands = cands;
    if (job_stdin) {
        /* the job is here: start the ranks (and further proxies) while we
         * connect; HELLO and what they say wait in the queue */
        la_trace("job from stdin (%zu bytes)", jf.len);
        px.conn = (la_conn_t){ .fd = LA_CONN_LATER };
        send_hello(host);
        start_job(&jf);
        free(jstore);
    }
    char err[1024];
    long long deadline = la_now_ms() + ut_settings.launch_timeout_ms;
    int fd = la_connect_any(cands, px.port, deadline, &px.addr_used, err, sizeof err);
    if (fd < 0) {
        la_warn("cannot reach mpiexec: %s", err);
        bail_out(255);
    }
    la_conn_t c;
    la_conn_init(&c, fd);
    if (la_auth_client(&c, px.secret, px.id, deadline, err, sizeof err) < 0) {
        la_warn("%s (at %s:%d)", err, px.addr_used, px.port);
        la_conn_close(&c);
        bail_out(255);
    }
    la_trace("connected to mpiexec at %s", px.addr_used);
    if (job_stdin) {
        la_conn_attach(&px.conn, &c);
    } else {
        px.conn = c;
        send_hello(host);
    }

    la_poll_t P = { 0 };
    while (!px.bye) {
        la_poll_begin(&P);
        la_poll_add(&P, px.sigfd, POLLIN, on_signal, NULL, 0);
        if (!conn_eof)
            la_poll_add(&P, px.conn.fd, POLLIN | (la_conn_want_write(&px.conn) ? POLLOUT : 0), on_conn, NULL, 0);
        if (px.have_job) {
            px.rs.hold_output = la_buf_pending(&px.conn.out) > OUT_BACKLOG;
            la_ranks_poll(&px.rs, &P);
        }
        if (la_poll_run(&P) < 0) la_die(255, "poll: %s", strerror(errno));
        if (px.have_job) la_ranks_serve(&px.rs);
        la_frame_t f;
        int got = 0;
        while (!px.bye && (got = la_conn_next(&px.conn, &f, LA_FRAME_MAX)) == 1) handle_frame(&f);
        if (got < 0) {
            la_warn("malformed message from mpiexec");
            bail_out(255);
        }
        if (conn_eof && !px.bye) bail_out(1);   /* mpiexec is gone */
        if (got_stop_signal) bail_out(128 + got_stop_signal);
        /* every rank here has ended (and said so): nothing is left to do,
         * and mpiexec need not tell us */
        if (px.have_job && px.rs.nalive == 0 && !kids_alive()) break;
    }
    la_trace("ending (%s)", px.bye ? "told to" : "every rank here has ended");
    /* pass on what is left, then go; our children get their own BYE.  The
     * connection closes last, so that its end tells mpiexec we are done. */
    kill_ranks();   /* BYE with ranks still running: a job that failed */
    if (px.have_job) la_ranks_finish_output(&px.rs);
    if (px.kvsname) la_shm_cleanup(px.kvsname);
    long long end = la_now_ms() + CHILD_EXIT_WAIT_MS;
    for (;;) {
        if (!kids_alive() || la_now_ms() >= end) break;
        struct pollfd pf = { .fd = px.sigfd, .events = POLLIN };
        poll(&pf, 1, (int)(end - la_now_ms()));
        on_signal(NULL, 0, px.sigfd, POLLIN);
    }
    kids_signal(SIGTERM);
    la_conn_flush_wait(&px.conn, CHILD_EXIT_WAIT_MS);
    la_conn_close(&px.conn);
    la_poll_free(&P);
    return 0;
}
