/* SPDX-License-Identifier: MIT */
/* mpiexec: start N ranks of a program on this machine and on other hosts, and
 * serve them PMI-1.
 *
 * Ranks on this host are forked here (ranks.c); every other host runs a
 * courier_proxy, started through ssh, rsh, fork or srun (start.c), that forks
 * the ranks there and relays their PMI requests, output and exit statuses over
 * one authenticated TCP connection (wire.c).  Which rank runs where is
 * place.c's (Hydra's spreading over hosts, hwloc binding on each host).
 *
 * One process, one poll loop over: a signalfd (SIGCHLD; SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT end the job; SIGUSR1 and SIGUSR2 are passed on), the local
 * ranks' PMI sockets and output pipes, the listening socket and the proxies'
 * connections, and stdin when it goes to rank 0 through us.
 *
 * The PMI server (a key-value space and a barrier) lives here for all ranks.
 * It is fair: each round serves at most COURIER_PMI_BATCH requests per rank
 * (per proxy: that many per rank it holds), and a rank that does not read its
 * replies is not read from, so a rank flooding PMI delays only itself.
 *
 * The first rank that fails (non-zero exit, signal, MPI_Abort, or exit after
 * PMI init without PMI finalize) decides mpiexec's exit status and makes
 * mpiexec print one line naming the rank, its host and why, and tear the job
 * down everywhere: SIGTERM, then SIGKILL after COURIER_ABORT_TIMEOUT_MS.  A
 * small watcher process (a fork of mpiexec that does nothing else) ends the
 * local ranks and removes the job's shared-memory files when mpiexec dies
 * without cleaning up (kill -9); proxies end theirs when their connection to
 * mpiexec closes. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "common.h"
#include "kvs.h"
#include "names.h"
#include "place.h"
#include "ranks.h"
#include "start.h"
#include "util/settings.h"
#include "wire.h"

#ifndef COURIER_VERSION
#define COURIER_VERSION "unknown"
#endif
#ifndef COURIER_BUILD_INFO
#define COURIER_BUILD_INFO "unknown"
#endif
#ifndef COURIER_TRANSPORTS
#define COURIER_TRANSPORTS "self shm"
#endif

extern char **environ;

/* Output buffering per stream: a line longer than this is passed on in pieces. */
#define OUT_CHUNK 65536
/* A partial line waits this long for its end before it is passed on. */
#define PARTIAL_FLUSH_MS 200
/* Bytes of stdin in flight to a remote rank 0 (one chunk, then an ack). */
#define STDIN_CHUNK 65536
/* After the last rank: how long proxies and launchers get to finish. */
#define PROXY_EXIT_WAIT_MS 3000
/* Random bytes in the KVS name, which names the shared-memory segments:
 * another user cannot guess it to pre-create them. */
#define KVS_SECRET_BYTES 8

/* ---- the job ---------------------------------------------------------------- */

typedef struct {
    int dest;            /* 1 or 2 */
    int open;            /* 0 once at end of file */
    char *buf;           /* bytes of an unfinished line */
    size_t len;
    int at_bol;          /* the next byte we print starts a line (for the prefix) */
} stream_t;

enum { R_PENDING, R_RUNNING, R_DONE };

typedef struct {
    int host;            /* index into job.hosts */
    int li;              /* index among its host's ranks */
    int state;
    int pid;
    int pmi_init, pmi_finalized, in_barrier;
    stream_t out[2];
} grank_t;

enum { PX_WAIT, PX_CONNECTED, PX_RUNNING, PX_GONE };

typedef struct {
    int host;            /* index into job.hosts */
    int state;
    la_conn_t conn;
    la_started_t l;      /* its launcher process when we started it (pid -1 otherwise) */
    int pid;             /* the proxy's pid on its host */
    int hello;           /* sent HELLO */
    int job_early;       /* its job went on its launcher's stdin: its ranks start before it connects */
    la_buf_t job_in;     /* what is left to write of it there */
} proxy_t;

typedef struct {
    la_conn_t conn;
    uint8_t nonce[LA_NONCE_BYTES];
    long long deadline;
} pending_t;

/* Jobs that ranks spawned (MPI_Comm_spawn): each is an mpiexec of its own,
 * started by this one, which waits for them and fails when one fails after
 * it started its processes.  Its start report (a line on a pipe: "ok", or
 * "fail <reason>") answers the rank's spawn request; a job that could not
 * start is the spawn's failure (MPI_ERR_SPAWN in the rank), not the job's. */
typedef struct {
    pid_t pid;
    int rank;            /* the rank that asked */
    int status_fd;       /* the start report's pipe, -1 once read */
    int start_failed;    /* it reported (or ended) without starting its processes */
    char status[512];
    size_t slen;
} spawned_t;

static struct {
    /* options */
    int n;
    int usize;           /* -usize: MPI_UNIVERSE_SIZE, 0: the number of ranks */
    spawned_t *sp;       /* spawned jobs still running (pid -1 once reaped) */
    /* several programs ("-n 2 a : -n 1 b"): app k runs ranks [app_first[k],
     * app_first[k + 1]) with app_argv[k] (resolved: app_path[k]) */
    int napps;
    int *app_first;
    char ***app_argv;
    char **app_path;
    char **app_wdir;     /* "-wdir D" after ":", else NULL (the job's) */
    int nsp, sp_live;
    int spawn_used;      /* slots of the host list taken by the job and its spawns */
    int status_fd;       /* spawned by another mpiexec: where to report the start, else -1 */
    la_hostlist_t *app_hl;   /* per program: its own hosts (-hosts/-f after ":"), n 0: the job's */
    la_names_t *names;   /* the name service (names.h) */
    int prefix;
    int envnone;
    char **envlist;      /* -genvlist names, NULL = all */
    int nenvlist;
    char **setenv;       /* "NAME=VALUE" from -env/-genv/-x */
    int nsetenv;
    const char *wdir;
    char **argv;         /* the program and its arguments */
    char *path;          /* the resolved program (when this host runs ranks) */
    la_hostlist_t hl;
    int hosts_given;
    la_place_t place;
    la_launcher_t launcher;
    int launcher_given;
    const char *launcher_exec;
    const char *iface;
    int verbose;

    /* hosts and ranks */
    int *host_local;     /* per host: 1 when it is this machine */
    int *host_proxy;     /* per host: proxy index, -1 for local hosts */
    int **host_ranks;    /* per host: its global ranks, ascending */
    int *host_nranks;
    grank_t *r;
    int ndone;           /* ranks in R_DONE */
    la_ranks_t lr;       /* the ranks on this machine */
    int local_host;      /* host index of this machine's ranks, -1 when none */
    char myname[256];

    /* proxies */
    proxy_t *px;
    int npx;
    pending_t *pend;
    int npend;
    int listen_fd;
    int port;
    char *addrs;
    char *proxy_path;
    char *ssh_control_dir;   /* COURIER_SSH_PERSIST_S: ssh's control sockets */
    uint8_t secret[LA_SECRET_BYTES];
    char secret_hex[2 * LA_SECRET_BYTES + 1];
    long long launch_deadline;

    /* PMI */
    char kvsname[96];
    la_kvs_t kvs;
    int pmi_quiet;       /* the request being served was answered by its proxy */
    int nbarrier;

    /* teardown */
    int failed;
    int exit_code;
    int killed_hard;
    long long kill_at_ms;
    int stdout_broken;
    pid_t watcher;
    int watcher_fd;
    int sigfd;
    sigset_t orig_mask;

    /* stdin: to a local rank 0 through a pipe (terminal), or to a remote one */
    int stdin_to;        /* 0 none, 1 local pipe, 2 remote */
    int stdin_eof;
    int stdin_inflight;
} job = { .watcher = -1, .watcher_fd = -1, .listen_fd = -1, .local_host = -1, .status_fd = -1 };

/* ---- options ------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: mpiexec [options] program [args...]\n"
        "Start processes of program on this machine and on other hosts (Courier %s).\n"
        "\n"
        "Processes and hosts:\n"
        "  -n N, -np N               number of processes (default 1, or the hosts' slots\n"
        "                            with -f or inside a Slurm allocation)\n"
        "  -hosts H1,H2:2,...        hosts to run on, each with a process count (slots,\n"
        "                            default 1); also -host\n"
        "  -f FILE, -hostfile FILE, -machinefile FILE\n"
        "                            hosts from a file: one \"host[:n]\" per line, # comments\n"
        "  -ppn N                    N consecutive processes per host (instead of the slots)\n"
        "  -npernode N               the same (Open MPI's spelling)\n"
        "  Processes go to the hosts in blocks of each host's slots (or -ppn), round and\n"
        "  round, as with MPICH's Hydra.  Inside a Slurm allocation (SLURM_JOB_ID) the\n"
        "  allocation's nodes are the default hosts.\n"
        "\n"
        "Launching on other hosts:\n"
        "  -launcher ssh|rsh|fork|slurm\n"
        "                            how courier_proxy is started on the other hosts\n"
        "                            (default: slurm inside a Slurm allocation, else ssh);\n"
        "                            also -bootstrap\n"
        "  -launcher-exec PATH       the launcher program (default ssh, rsh or srun);\n"
        "                            also -bootstrap-exec\n"
        "  -iface NAME               the network interface proxies use to reach mpiexec\n"
        "  -verbose, -v              print the launch commands\n"
        "\n"
        "Binding (hwloc; nothing is bound unless asked):\n"
        "  -bind-to none|hwthread|core|socket|numa   (core:N, hwthread:N: N per process)\n"
        "  -map-by core|hwthread|socket|numa|node|slot[:PE=n], ppr:N:node\n"
        "                            how processes are spread over a host (node: one\n"
        "                            per host in turn); PE=n gives each n cores\n"
        "  --report-bindings, -print-bindings\n"
        "                            print each process's binding as Open MPI does\n"
        "  With OMP_NUM_THREADS=t and binding, each process gets t cores and\n"
        "  OMP_PLACES / OMP_PROC_BIND are set for it unless already set.  When the\n"
        "  cores do not suffice, binding is turned off with a warning.\n"
        "\n"
        "Environment:\n"
        "  -env NAME VALUE, -genv NAME VALUE   set a variable in every process\n"
        "  -x NAME[=VALUE]           pass NAME (with VALUE, or mpiexec's own value)\n"
        "  -genvall, -envall         pass mpiexec's whole environment (the default)\n"
        "  -genvnone, -envnone       pass none of it, only the variables set above\n"
        "  -genvlist A,B,...         pass only these variables (also -envlist)\n"
        "\n"
        "Other:\n"
        "  -prefix-output, -l        prefix each line of output with \"[rank] \"\n"
        "                            (also -label, -tag-output, -prepend-rank)\n"
        "  -usize N                  MPI_UNIVERSE_SIZE the processes see (default: the\n"
        "                            hosts' slots with -hosts/-f, else not set)\n"
        "  -wdir DIR                 working directory of the processes (default: the\n"
        "                            current one, on every host)\n"
        "  -info                     build details: version, launchers, binding, transports\n"
        "  -h, --help                this text\n"
        "  -version, --version       print the version\n"
        "  Accepted and ignored: -rmk X, -disable-x, -enable-x, -oversubscribe.\n"
        "\n"
        "Exit status: 0 when every process exits 0; otherwise the status of the first\n"
        "process that failed (128+N for signal N; 255 when a host could not be reached),\n"
        "and every other process is terminated.  Ctrl-C ends the whole job; SIGUSR1 and\n"
        "SIGUSR2 are passed on to every process.\n"
        "Settings: COURIER_ABORT_TIMEOUT_MS (SIGTERM to SIGKILL at teardown),\n"
        "COURIER_LAUNCH_FANOUT, COURIER_LAUNCH_TIMEOUT_MS, COURIER_PMI_BATCH (courier_info).\n",
        COURIER_VERSION);
}

static void print_info(void)
{
    char ver[32];
    printf("Courier mpiexec build details:\n"
           "    Version:                 %s\n"
           "    Build:                   %s\n"
           "    Process manager:         PMI-1 wire protocol (PMI_FD), proxies over TCP\n"
           "                             authenticated with a per-job secret\n"
           "    Launchers available:     ssh rsh fork slurm\n"
           "    Topology library:        hwloc %s\n"
           "    Binding levels:          none hwthread core socket numa\n"
           "    Mapping levels:          core hwthread socket numa node slot ppr:N:node (:PE=n)\n"
           "    Transports:              %s\n",
           COURIER_VERSION, COURIER_BUILD_INFO, la_topo_lib_version(ver, sizeof ver), COURIER_TRANSPORTS);
}

static void add_setenv(const char *name, const char *value)
{
    job.setenv = la_realloc(job.setenv, sizeof(char *) * (size_t)(job.nsetenv + 1));
    job.setenv[job.nsetenv++] = la_asprintf("%s=%s", name, value);
}

static int parse_int_arg(const char *opt, const char *s, int lo, int hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) la_die(2, "bad value \"%s\" for %s (expected %d to %d)", s, opt, lo, hi);
    return (int)v;
}

static void parse_args(int argc, char **argv)
{
    int i = 1;
    char err[512];
    job.n = -1;
    while (i < argc) {
        const char *a = argv[i];
        if (a[0] != '-') break;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        const char *o = (a[1] == '-') ? a + 1 : a;   /* --opt == -opt */
#define NEED(k) do { if (i + (k) >= argc) la_die(2, "option %s needs %s", a, (k) == 1 ? "an argument" : "two arguments"); } while (0)
#define IS(s) (!strcmp(o, s))
        if (IS("-n") || IS("-np") || IS("-c")) {
            NEED(1);
            job.n = parse_int_arg(a, argv[i + 1], 1, 1000000);
            i += 2;
        } else if (IS("-env") || IS("-genv")) {
            NEED(2);
            if (!*argv[i + 1] || strchr(argv[i + 1], '=')) la_die(2, "bad variable name \"%s\" for %s", argv[i + 1], a);
            add_setenv(argv[i + 1], argv[i + 2]);
            i += 3;
        } else if (IS("-x")) {
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
        } else if (IS("-genvall") || IS("-envall")) {
            job.envnone = 0;
            job.envlist = NULL;
            i++;
        } else if (IS("-genvnone") || IS("-envnone")) {
            job.envnone = 1;
            i++;
        } else if (IS("-genvlist") || IS("-envlist")) {
            NEED(1);
            char *copy = la_strdup(argv[i + 1]), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                job.envlist = la_realloc(job.envlist, sizeof(char *) * (size_t)(job.nenvlist + 1));
                job.envlist[job.nenvlist++] = t;
            }
            i += 2;
        } else if (IS("-prefix-output") || IS("-l") || IS("-label") || IS("-tag-output") || IS("-prepend-rank")) {
            job.prefix = 1;
            i++;
        } else if (IS("-h") || IS("-help")) {
            usage(stdout);
            exit(0);
        } else if (IS("-version") || IS("-V")) {
            printf("mpiexec (Courier) %s\n", COURIER_VERSION);
            exit(0);
        } else if (IS("-info")) {
            print_info();
            exit(0);
        } else if (IS("-bind-to") || IS("-binding")) {
            NEED(1);
            if (la_place_parse_bind(&job.place, argv[i + 1], err, sizeof err) < 0) la_die(2, "%s: %s", a, err);
            i += 2;
        } else if (IS("-map-by")) {
            NEED(1);
            if (la_place_parse_map(&job.place, argv[i + 1], err, sizeof err) < 0) la_die(2, "%s: %s", a, err);
            i += 2;
        } else if (IS("-report-bindings") || IS("-print-bindings")) {
            job.place.report = 1;
            i++;
        } else if (IS("-ppn") || IS("-npernode") || IS("-perhost")) {
            NEED(1);
            job.place.ppn = parse_int_arg(a, argv[i + 1], 1, 1000000);
            i += 2;
        } else if (IS("-host") || IS("-hosts")) {
            NEED(1);
            if (la_hosts_parse_list(&job.hl, argv[i + 1], err, sizeof err) < 0) la_die(2, "%s: %s", a, err);
            job.hosts_given = 1;
            i += 2;
        } else if (IS("-f") || IS("-hostfile") || IS("-machinefile")) {
            NEED(1);
            if (la_hosts_parse_file(&job.hl, argv[i + 1], err, sizeof err) < 0) la_die(2, "%s", err);
            job.hosts_given = 1;
            i += 2;
        } else if (IS("-launcher") || IS("-bootstrap")) {
            NEED(1);
            if (la_launcher_parse(argv[i + 1], &job.launcher) < 0)
                la_die(2, "unknown launcher \"%s\" (ssh, rsh, fork or slurm)", argv[i + 1]);
            job.launcher_given = 1;
            i += 2;
        } else if (IS("-launcher-exec") || IS("-bootstrap-exec")) {
            NEED(1);
            job.launcher_exec = argv[i + 1];
            i += 2;
        } else if (IS("-iface")) {
            NEED(1);
            job.iface = argv[i + 1];
            i += 2;
        } else if (IS("-rmk")) {
            NEED(1);
            i += 2;
        } else if (IS("-usize") || IS("-universe-size")) {
            NEED(1);
            job.usize = parse_int_arg(a, argv[i + 1], 1, 1000000);
            i += 2;
        } else if (IS("-wdir") || IS("-dir")) {
            NEED(1);
            job.wdir = argv[i + 1];
            i += 2;
        } else if (IS("-v") || IS("-verbose")) {
            job.verbose = 1;
            i++;
        } else if (IS("-oversubscribe") || IS("-disable-x") || IS("-enable-x") || IS("-rr")) {
            i++;
        } else {
            la_die(2, "unknown option \"%s\" (see mpiexec -h)", a);
        }
#undef IS
#undef NEED
    }
    if (i >= argc) {
        usage(stderr);
        exit(2);
    }
    job.argv = argv + i;
    /* more programs after ":", each "-n N program args..." */
    job.napps = 1;
    job.app_argv = la_malloc(sizeof(char **));
    job.app_wdir = la_calloc(1, sizeof(char *));
    job.app_hl = la_calloc(1, sizeof(la_hostlist_t));
    job.app_first = la_malloc(sizeof(int) * 2);
    job.app_argv[0] = job.argv;
    job.app_first[0] = 0;
    for (int k = i; k < argc; k++) {
        if (strcmp(argv[k], ":") || k == i) continue;
        argv[k] = NULL;   /* ends the previous program's arguments */
        if (job.n < 0) la_die(2, "several programs (\":\") need -n for each");
        int first = job.napps == 1 ? job.n : job.app_first[job.napps];
        if (k + 3 >= argc || (strcmp(argv[k + 1], "-n") && strcmp(argv[k + 1], "-np")))
            la_die(2, "after \":\" give \"-n N [-wdir DIR] [-hosts H | -f FILE] program [arguments]\"");
        int nk = parse_int_arg(argv[k + 1], argv[k + 2], 1, 1000000);
        job.app_argv = la_realloc(job.app_argv, sizeof(char **) * (size_t)(job.napps + 1));
        job.app_wdir = la_realloc(job.app_wdir, sizeof(char *) * (size_t)(job.napps + 1));
        job.app_hl = la_realloc(job.app_hl, sizeof(la_hostlist_t) * (size_t)(job.napps + 1));
        job.app_first = la_realloc(job.app_first, sizeof(int) * (size_t)(job.napps + 2));
        job.app_first[job.napps] = first;
        job.app_wdir[job.napps] = NULL;
        job.app_hl[job.napps] = (la_hostlist_t){ 0 };
        k += 2;
        /* this program's own options: its directory and its hosts */
        while (k + 3 < argc) {
            const char *o = argv[k + 1];
            int rc = 0;
            if (!strcmp(o, "-wdir"))
                job.app_wdir[job.napps] = argv[k + 2];
            else if (!strcmp(o, "-hosts") || !strcmp(o, "-host"))
                rc = la_hosts_parse_list(&job.app_hl[job.napps], argv[k + 2], err, sizeof err);
            else if (!strcmp(o, "-f") || !strcmp(o, "-hostfile") || !strcmp(o, "-machinefile"))
                rc = la_hosts_parse_file(&job.app_hl[job.napps], argv[k + 2], err, sizeof err);
            else
                break;
            if (rc < 0) la_die(2, "%s: %s", o, err);
            k += 2;
        }
        job.app_argv[job.napps++] = argv + k + 1;
        job.app_first[job.napps] = first + nk;
    }
    if (job.napps > 1) job.n = job.app_first[job.napps];
    else job.app_first[1] = job.n;
}

/* The program (app) rank r runs. */
static int app_of(int r)
{
    int k = 0;
    while (k + 1 < job.napps && r >= job.app_first[k + 1]) k++;
    return k;
}

/* The value the ranks will see for NAME (an -env setting, else ours if passed). */
static const char *rank_env_value(const char *name)
{
    size_t n = strlen(name);
    for (int k = job.nsetenv - 1; k >= 0; k--)
        if (!strncmp(job.setenv[k], name, n) && job.setenv[k][n] == '=') return job.setenv[k] + n + 1;
    if (job.envnone) return NULL;
    if (job.envlist) {
        int listed = 0;
        for (int k = 0; k < job.nenvlist; k++) listed |= !strcmp(job.envlist[k], name);
        if (!listed) return NULL;
    }
    return getenv(name);
}

/* ---- hosts and ranks ----------------------------------------------------------- */

/* Index of a host in the job's host list, added (one slot) when absent; this
 * machine under any of its names is one host. */
static int host_index(const char *name)
{
    int local = la_is_local_host(name);
    for (int h = 0; h < job.hl.n; h++)
        if (!strcmp(job.hl.h[h].name, name) || (local && la_is_local_host(job.hl.h[h].name))) return h;
    char err[512];
    if (la_hosts_parse_list(&job.hl, name, err, sizeof err) < 0) la_die(2, "%s", err);
    return job.hl.n - 1;
}

/* Programs with hosts of their own (-hosts/-f after ":") are spread over
 * those as a job of their own would be; the others keep their places in the
 * job's mapping. */
static void map_own_hosts(int *host_of)
{
    for (int k = 0; k < job.napps; k++) {
        const la_hostlist_t *l = &job.app_hl[k];
        if (!l->n) continue;
        int first = job.app_first[k], nk = job.app_first[k + 1] - first;
        int *m = la_malloc(sizeof(int) * (size_t)nk);
        la_hosts_map(l, nk, job.place.ppn, job.place.by_node, m);
        for (int i = 0; i < nk; i++) host_of[first + i] = host_index(l->h[m[i]].name);
        free(m);
    }
}

static void plan_job(void)
{
    char err[512];
    if (!job.hosts_given && getenv("SLURM_JOB_ID")) {
        if (la_hosts_from_slurm(&job.hl, err, sizeof err) < 0) la_die(2, "%s", err);
        job.hosts_given = 1;
    }
    if (!job.launcher_given) job.launcher = getenv("SLURM_JOB_ID") ? LA_LAUNCH_SLURM : LA_LAUNCH_SSH;
    if (job.n < 0) job.n = job.hosts_given ? la_hosts_total_slots(&job.hl) : 1;
    if (job.napps == 1) job.app_first[1] = job.n;
    if (job.hl.n == 0) la_hosts_parse_list(&job.hl, "localhost", err, sizeof err);
    la_place_finish(&job.place, rank_env_value("OMP_NUM_THREADS"));
    job.place.progress = la_place_progress(rank_env_value("COURIER_ASYNC_PROGRESS"),
                                           rank_env_value("MPIR_CVAR_ASYNC_PROGRESS"));

    int *host_of = la_malloc(sizeof(int) * (size_t)job.n);
    la_hosts_map(&job.hl, job.n, job.place.ppn, job.place.by_node, host_of);
    map_own_hosts(host_of);
    job.spawn_used = job.n;
    int nh = job.hl.n;
    job.host_local = la_calloc((size_t)nh, sizeof(int));
    job.host_proxy = la_malloc(sizeof(int) * (size_t)nh);
    job.host_nranks = la_calloc((size_t)nh, sizeof(int));
    job.host_ranks = la_calloc((size_t)nh, sizeof(int *));
    job.r = la_calloc((size_t)job.n, sizeof(grank_t));
    for (int r = 0; r < job.n; r++) job.host_nranks[host_of[r]]++;
    for (int h = 0; h < nh; h++) {
        job.host_ranks[h] = la_malloc(sizeof(int) * (size_t)(job.host_nranks[h] + 1));
        job.host_nranks[h] = 0;
        job.host_proxy[h] = -1;
    }
    for (int r = 0; r < job.n; r++) {
        int h = host_of[r];
        job.r[r].host = h;
        job.r[r].li = job.host_nranks[h];
        job.host_ranks[h][job.host_nranks[h]++] = r;
        for (int s = 0; s < 2; s++) job.r[r].out[s] = (stream_t){ .dest = s + 1, .open = 1, .at_bol = 1 };
    }
    free(host_of);
    /* This machine's ranks are forked here; several names of this machine
     * in the list would make several hosts of one: refuse. */
    for (int h = 0; h < nh; h++) {
        if (!job.host_nranks[h]) continue;
        job.host_local[h] = la_is_local_host(job.hl.h[h].name);
        if (job.host_local[h]) {
            if (job.local_host >= 0)
                la_die(2, "hosts \"%s\" and \"%s\" are both this machine; name it once",
                       job.hl.h[job.local_host].name, job.hl.h[h].name);
            job.local_host = h;
        } else {
            job.host_proxy[h] = job.npx++;
        }
    }
    job.px = la_calloc((size_t)(job.npx ? job.npx : 1), sizeof(proxy_t));
    for (int h = 0; h < nh; h++)
        if (job.host_proxy[h] >= 0) {
            proxy_t *p = &job.px[job.host_proxy[h]];
            p->host = h;
            p->state = PX_WAIT;
            p->conn.fd = -1;
            p->l.pid = -1;
            p->l.stdin_w = -1;
        }
    if (gethostname(job.myname, sizeof job.myname - 1) < 0) strcpy(job.myname, "localhost");
}

static const char *host_name(int h)
{
    return job.host_local[h] ? job.myname : job.hl.h[h].name;
}

/* ---- output ------------------------------------------------------------------------ */

static void close_output_everywhere(int dest);

static void out_write(int dest, const char *p, size_t len)
{
    if (job.stdout_broken & dest) return;
    if (la_write_all(dest, p, len) < 0) {
        /* Our reader is gone (mpiexec ... | head): close the ranks' pipes
         * too, so that they get SIGPIPE as in any shell pipeline. */
        job.stdout_broken |= dest;
        close_output_everywhere(dest);
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
    char *b = la_malloc(len + (nl + 1) * (size_t)plen);
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

/* Bytes of rank r's stream (1 or 2); pass on whole lines.  len 0: end of file. */
static void stream_data(int r, int stream, const char *p, size_t n)
{
    stream_t *s = &job.r[r].out[stream - 1];
    if (n == 0) {
        stream_flush_partial(r, s);
        s->open = 0;
        free(s->buf);
        s->buf = NULL;
        return;
    }
    const char *last = memrchr(p, '\n', n);
    if (last) {
        size_t head = (size_t)(last - p) + 1;
        if (s->len) {
            s->buf = la_realloc(s->buf, s->len + head);
            memcpy(s->buf + s->len, p, head);
            emit(r, s, s->buf, s->len + head);
            s->len = 0;
        } else {
            emit(r, s, p, head);
        }
        size_t rest = n - head;
        if (rest) {
            s->buf = la_realloc(s->buf, rest);
            memcpy(s->buf, p + head, rest);
            s->len = rest;
        }
    } else {
        s->buf = la_realloc(s->buf, s->len + n);
        memcpy(s->buf + s->len, p, n);
        s->len += n;
        if (s->len >= OUT_CHUNK) stream_flush_partial(r, s);
    }
}

/* ---- teardown ------------------------------------------------------------------- */

static void px_send(proxy_t *p, int type, int arg, int rank, const void *d, size_t len)
{
    if (p->state == PX_CONNECTED || p->state == PX_RUNNING) la_conn_send(&p->conn, type, arg, rank, d, len);
}

/* Send sig to every rank; kill: the job is ending (SIGTERM, SIGKILL), else
 * only passed on (SIGUSR1, SIGUSR2). */
static void signal_job(int sig, int ending)
{
    la_ranks_signal(&job.lr, sig);
    for (int k = 0; k < job.nsp; k++)
        if (job.sp[k].pid > 0) kill(job.sp[k].pid, sig);
    for (int k = 0; k < job.npx; k++) px_send(&job.px[k], ending ? LA_F_KILL : LA_F_SIGNAL, sig, 0, NULL, 0);
}

static void close_output_everywhere(int dest)
{
    la_ranks_close_output(&job.lr, dest);
    for (int r = 0; r < job.n; r++) {
        stream_t *s = &job.r[r].out[dest - 1];
        s->len = 0;
    }
    for (int k = 0; k < job.npx; k++) px_send(&job.px[k], LA_F_CLOSE_OUT, dest, 0, NULL, 0);
}

static void rank_done(int r)
{
    if (job.r[r].state == R_DONE) return;
    if (job.r[r].in_barrier) {
        job.r[r].in_barrier = 0;
        job.nbarrier--;
    }
    job.r[r].state = R_DONE;
    job.ndone++;
}

/* Ranks of proxies that have not got the job yet will never run: send those
 * proxies away and count their ranks done. */
static void give_up_unstarted(void)
{
    for (int k = 0; k < job.npx; k++) {
        proxy_t *p = &job.px[k];
        if (p->state == PX_CONNECTED) {
            la_conn_send(&p->conn, LA_F_BYE, 0, 0, NULL, 0);
            la_conn_flush_wait(&p->conn, PROXY_EXIT_WAIT_MS);
            la_conn_close(&p->conn);
        } else if (p->state != PX_WAIT) {
            continue;
        }
        p->state = PX_GONE;
        if (p->l.pid > 0 && job.launcher != LA_LAUNCH_SLURM) kill(-p->l.pid, SIGTERM);
        int h = p->host;
        for (int j = 0; j < job.host_nranks[h]; j++) rank_done(job.host_ranks[h][j]);
    }
}

/* ---- start report (a job spawned by another mpiexec) ------------------------------- */

/* The spawning mpiexec gives a pipe in COURIER_SPAWN_STATUS_FD; the ranks
 * must not inherit it. */
static void status_fail(const char *why);
static void status_open(void)
{
    const char *v = getenv("COURIER_SPAWN_STATUS_FD");
    if (!v) return;
    job.status_fd = atoi(v);
    unsetenv("COURIER_SPAWN_STATUS_FD");
    if (job.status_fd < 3 || fcntl(job.status_fd, F_SETFD, FD_CLOEXEC) < 0) job.status_fd = -1;
    else la_die_hook = status_fail;
}

/* Report once: "ok" (every process started) or "fail <why>" (none will run). */
static void status_send(const char *what, const char *why)
{
    if (job.status_fd < 0) return;
    char line[600];
    int n = snprintf(line, sizeof line, "%s%s%.500s", what, why ? " " : "", why ? why : "");
    for (int i = 0; i < n; i++)
        if (line[i] == '\n') line[i] = ' ';
    line[n++] = '\n';
    la_write_all(job.status_fd, line, (size_t)n);
    close(job.status_fd);
    job.status_fd = -1;
}

static void status_fail(const char *why)
{
    status_send("fail", why);
}

/* Every rank has a pid: tell the spawning mpiexec. */
static void status_check_started(void)
{
    if (job.status_fd < 0 || job.failed) return;
    for (int r = 0; r < job.n; r++)
        if (job.r[r].pid <= 0) return;
    status_send("ok", NULL);
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
    status_fail(why);
    int others = 0;
    for (int k = 0; k < job.n; k++) others += k != r && job.r[k].state != R_DONE;
    if (r >= 0)
        fprintf(stderr, "mpiexec: rank %d (pid %d on %s) %s%s\n", r, job.r[r].pid, host_name(job.r[r].host),
                why, others > 0 ? "; terminating the job" : "");
    else
        fprintf(stderr, "mpiexec: %s%s\n", why, others > 0 ? "; terminating the job" : "");
    fflush(stderr);
    give_up_unstarted();
    signal_job(SIGTERM, 1);
    job.kill_at_ms = la_now_ms() + ut_settings.abort_timeout_ms;
}

/* Rank r ended with wait status st (its output and PMI requests are in). */
static void rank_exited(int r, int st)
{
    grank_t *g = &job.r[r];
    if (g->state == R_DONE) return;
    rank_done(r);
    if (job.failed) return;
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGPIPE && (job.stdout_broken & 1)) {
        /* mpiexec ... | head: the end of a pipeline, not an error to report. */
        job.failed = 1;
        job.exit_code = 128 + SIGPIPE;
        give_up_unstarted();
        signal_job(SIGTERM, 1);
        job.kill_at_ms = la_now_ms() + ut_settings.abort_timeout_ms;
    } else if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        job_fail(r, 128 + sig, "was killed by signal %d (%s)", sig, strsignal(sig));
    } else if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
        job_fail(r, WEXITSTATUS(st), "exited with status %d", WEXITSTATUS(st));
    } else if (g->pmi_init && !g->pmi_finalized) {
        job_fail(r, 1, "exited without calling MPI_Finalize");
    }
}

/* ---- PMI server ---------------------------------------------------------------- */

static void send_to_rank(int r, const char *buf, size_t n)
{
    grank_t *g = &job.r[r];
    if (job.pmi_quiet) return;
    if (job.host_local[g->host]) la_ranks_reply(&job.lr, g->li, buf, n);
    else px_send(&job.px[job.host_proxy[g->host]], LA_F_REPLY, 0, r, buf, n);
}

static void pmi_reply(int r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pmi_reply(int r, const char *fmt, ...)
{
    char buf[LA_PMI_VALLEN_MAX + LA_PMI_KEYLEN_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) return;
    send_to_rank(r, buf, (size_t)n);
}

static void barrier_check(void)
{
    int live = job.n - job.ndone;
    if (job.nbarrier < live || live == 0) return;
    static const char out[] = LA_PMI_BARRIER_REPLY;
    for (int r = 0; r < job.n; r++) {
        if (!job.r[r].in_barrier) continue;
        job.r[r].in_barrier = 0;
        if (job.host_local[job.r[r].host]) send_to_rank(r, out, sizeof out - 1);
    }
    /* every key put since the last barrier, to every proxy (one message, so
     * that its ranks' gets are answered on their host), then one reply per
     * proxy for all its ranks */
    la_buf_t fresh = { 0 };
    int nfresh = la_kvs_fresh(&job.kvs, job.npx ? &fresh : NULL);
    for (int k = 0; k < job.npx; k++) {
        if (nfresh) px_send(&job.px[k], LA_F_KVS, 0, 0, fresh.p, fresh.len);
        px_send(&job.px[k], LA_F_REPLY, 0, -1, out, sizeof out - 1);
    }
    la_buf_free(&fresh);
    la_trace("barrier released (%d keys to %d proxies)", nfresh, job.npx);
    job.nbarrier = 0;
}

/* Decode the hex field key of line into a list of NUL-terminated strings
 * (a malloc'ed vector ending in NULL, strings in *store); -1 if malformed. */
static int hex_list(const char *line, const char *key, char ***vec, char **store)
{
    size_t klen = strlen(key);
    const char *p = strstr(line, key);
    while (p && !(p[klen] == '=' && (p == line || p[-1] == ' '))) p = strstr(p + 1, key);
    if (!p) return -1;
    p += klen + 1;
    size_t hl = strcspn(p, " \t\n");
    if (hl % 2) return -1;
    char *b = la_malloc(hl / 2 + 1);
    int n = 0;
    for (size_t i = 0; i < hl / 2; i++) {
        unsigned v;
        if (sscanf(p + 2 * i, "%2x", &v) != 1) {
            free(b);
            return -1;
        }
        b[i] = (char)v;
        n += v == 0;
    }
    b[hl / 2] = '\0';
    char **v = la_malloc(sizeof(char *) * (size_t)(n + 1));
    size_t off = 0;
    for (int k = 0; k < n; k++) {
        v[k] = b + off;
        off += strlen(b + off) + 1;
    }
    v[n] = NULL;
    *vec = v;
    *store = b;
    return n;
}

static void spawn_reply(int r, int rc, const char *reason)
{
    char hex[2 * 200 + 1];
    size_t n = strlen(reason) < 200 ? strlen(reason) : 200;
    la_hex((const uint8_t *)reason, n, hex);
    pmi_reply(r, "cmd=spawn_result rc=%d reason=%s\n", rc, n ? hex : "00");
}

/* A growing argument vector. */
typedef struct {
    char **v;
    int n;
} argv_t;

static void argv_add(argv_t *a, char *s)
{
    a->v = la_realloc(a->v, sizeof(char *) * (size_t)(a->n + 2));
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

/* The next n processes on our host list, continuing the job's mapping after
 * the slots its ranks and earlier spawns took: "h1:c1,h2:c2" (malloc'ed). */
static char *spawn_hosts(int n)
{
    int total = job.spawn_used + n;
    int *ho = la_malloc(sizeof(int) * (size_t)total), *cnt = la_calloc((size_t)job.hl.n, sizeof(int));
    la_hosts_map(&job.hl, total, job.place.ppn, job.place.by_node, ho);
    la_buf_t b = { 0 };
    for (int i = job.spawn_used; i < total; i++) cnt[ho[i]]++;
    for (int i = job.spawn_used; i < total; i++) {
        int h = ho[i];
        if (!cnt[h]) continue;
        char item[300];
        int k = snprintf(item, sizeof item, "%s%s:%d", b.len ? "," : "", job.hl.h[h].name, cnt[h]);
        la_buf_add(&b, item, (size_t)k);
        cnt[h] = 0;
    }
    la_buf_add(&b, "", 1);
    job.spawn_used = total;
    free(ho);
    free(cnt);
    return b.p;
}

/* The spawned job's mpiexec arguments: our launcher options, then the
 * request's programs ("-n N [-hosts H | -f F] [-wdir D] prog args", ":"
 * between them).  A program without hosts of its own goes on our host list
 * (-hosts, -f, Slurm) where our mapping goes on; without a host list, on this
 * host.  Strings added here are collected in *own for freeing. */
static void spawn_argv(argv_t *out, char *exe, char **args, int na, argv_t *own)
{
    argv_add(out, exe);
    argv_add(out, "-launcher");
    argv_add(out, (char *)la_launcher_name(job.launcher));
    if (job.launcher_exec) {
        argv_add(out, "-launcher-exec");
        argv_add(out, (char *)job.launcher_exec);
    }
    if (job.iface) {
        argv_add(out, "-iface");
        argv_add(out, (char *)job.iface);
    }
    /* does any program name hosts? (then the others are placed too) */
    int any = job.hosts_given;
    for (int i = 0; i < na; i++)
        any |= !strcmp(args[i], "-hosts") || !strcmp(args[i], "-f");
    int i = 0;
    while (i < na) {
        /* one program: "-n N", its options, the program and its arguments */
        int nk = i + 1 < na && !strcmp(args[i], "-n") ? atoi(args[i + 1]) : 0;
        int j = nk > 0 ? i + 2 : i, own_hosts = 0;
        while (j + 1 < na && (!strcmp(args[j], "-hosts") || !strcmp(args[j], "-f") || !strcmp(args[j], "-wdir"))) {
            own_hosts |= strcmp(args[j], "-wdir") != 0;
            j += 2;
        }
        for (int k = i; k < j; k++) argv_add(out, args[k]);
        if (nk > 0 && !own_hosts && any) {
            char *h = job.hosts_given ? spawn_hosts(nk) : la_strdup("localhost");
            argv_add(own, h);
            argv_add(out, "-hosts");
            argv_add(out, h);
        }
        for (i = j; i < na && strcmp(args[i], ":"); i++) argv_add(out, args[i]);
        if (i < na) argv_add(out, args[i++]);   /* the ":" */
    }
}

/* cmd=spawn_courier args=<hex> env=<hex>: start another mpiexec with those
 * arguments (options, programs) and the new processes' settings in its
 * environment.  Its output goes where ours goes, its stdin is /dev/null.
 * The rank's answer waits for the new job's start report (spawn_status). */
static void spawn_job(int r, const char *line)
{
    char **args = NULL, **env = NULL, *as = NULL, *es = NULL;
    int na = hex_list(line, "args", &args, &as), ne = hex_list(line, "env", &env, &es);
    char exe[PATH_MAX];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    int ep[2], sp[2];
    if (na < 1 || ne < 0) {
        spawn_reply(r, -1, "malformed spawn request");
    } else if (job.failed) {
        spawn_reply(r, -1, "the job is ending");
    } else if (el < 0) {
        spawn_reply(r, -1, "cannot find mpiexec's own executable (/proc/self/exe)");
    } else if (pipe2(ep, O_CLOEXEC) < 0 || pipe2(sp, O_CLOEXEC) < 0) {
        la_die(1, "pipe: %s", strerror(errno));
    } else {
        exe[el] = '\0';
        argv_t argv = { 0 }, own = { 0 };
        spawn_argv(&argv, exe, args, na, &own);
        char fdvar[64];
        snprintf(fdvar, sizeof fdvar, "COURIER_SPAWN_STATUS_FD=%d", sp[1]);
        /* the new job shares our names */
        const char *nsaddr = la_names_address(job.names);
        char *nsvar = nsaddr ? la_asprintf("COURIER_NAMESERVER=%s", nsaddr) : NULL;
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            close(ep[0]);
            close(sp[0]);
            sigprocmask(SIG_SETMASK, &job.orig_mask, NULL);
            int nul = open("/dev/null", O_RDONLY);
            if (nul >= 0) dup2(nul, 0);
            for (int k = 0; k < ne; k++) putenv(env[k]);
            putenv(fdvar);
            if (nsvar) putenv(nsvar);
            /* nothing of ours but the two pipes goes along */
            if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
                long maxfd = sysconf(_SC_OPEN_MAX);
                for (int fd = 3; fd < maxfd; fd++)
                    if (fd != ep[1] && fd != sp[1]) close(fd);
            }
            fcntl(sp[1], F_SETFD, 0);
            execv(exe, argv.v);
            int e = errno;
            if (write(ep[1], &e, sizeof e) < 0) _exit(127);
            _exit(127);
        }
        close(ep[1]);
        close(sp[1]);
        int e = 0;
        ssize_t got = pid < 0 ? 0 : read(ep[0], &e, sizeof e);
        close(ep[0]);
        if (pid < 0 || got == (ssize_t)sizeof e) {
            char why[300];
            snprintf(why, sizeof why, "cannot start %.200s: %s", exe, strerror(pid < 0 ? errno : e));
            spawn_reply(r, -1, why);
            close(sp[0]);
            if (pid > 0) waitpid(pid, NULL, 0);
        } else {
            la_set_nonblock(sp[0]);
            job.sp = la_realloc(job.sp, sizeof *job.sp * (size_t)(job.nsp + 1));
            job.sp[job.nsp++] = (spawned_t){ .pid = pid, .rank = r, .status_fd = sp[0] };
            job.sp_live++;
            if (job.verbose) fprintf(stderr, "mpiexec: rank %d spawned a job (mpiexec pid %d)\n", r, (int)pid);
        }
        for (int k = 0; k < own.n; k++) free(own.v[k]);
        free(own.v);
        free(argv.v);
        free(nsvar);
    }
    free(args);
    free(env);
    free(as);
    free(es);
}

/* Read spawned job k's start report; at its end (a line, or end of file: it
 * ended without one) answer the rank that asked. */
static void spawn_status(int k)
{
    spawned_t *s = &job.sp[k];
    if (s->status_fd < 0) return;
    ssize_t n = 1;
    while (s->slen < sizeof s->status - 1 &&
           (n = read(s->status_fd, s->status + s->slen, sizeof s->status - 1 - s->slen)) > 0)
        s->slen += (size_t)n;
    s->status[s->slen] = '\0';
    int eof = s->slen == sizeof s->status - 1 || n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
    char *nl = strchr(s->status, '\n');
    if (!nl && !eof) return;
    if (nl) *nl = '\0';
    close(s->status_fd);
    s->status_fd = -1;
    if (!strcmp(s->status, "ok")) {
        pmi_reply(s->rank, "cmd=spawn_result rc=0 reason=00 id=%d\n", k);
        return;
    }
    s->start_failed = 1;
    spawn_reply(s->rank, -1, !strncmp(s->status, "fail ", 5) ? s->status + 5
                : "the spawned job's mpiexec ended before it started its processes");
}

static void on_spawn_status(void *obj, int k, int fd, short rev)
{
    if (k < job.nsp && job.sp[k].status_fd == fd) spawn_status(k);
}

/* A spawned job's mpiexec ended with wait status st: 1 when pid was one. */
static int spawned_exited(pid_t pid, int st)
{
    for (int k = 0; k < job.nsp; k++) {
        if (job.sp[k].pid != pid) continue;
        job.sp[k].pid = -1;
        job.sp_live--;
        spawn_status(k);   /* its report is all there now */
        if (job.sp[k].status_fd >= 0) {
            close(job.sp[k].status_fd);
            job.sp[k].status_fd = -1;
        }
        if (!job.failed && !job.sp[k].start_failed && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            if (WIFSIGNALED(st))
                job_fail(-1, 128 + WTERMSIG(st), "the job spawned by rank %d (mpiexec pid %d) was killed by signal %d",
                         job.sp[k].rank, (int)pid, WTERMSIG(st));
            else
                job_fail(-1, WEXITSTATUS(st), "the job spawned by rank %d (mpiexec pid %d) failed with status %d",
                         job.sp[k].rank, (int)pid, WEXITSTATUS(st));
        }
        return 1;
    }
    return 0;
}

/* cmd=name_courier op=<p|l|u> service=<hex> port=<hex>: the name service
 * (names.h), answered by "cmd=name_result rc=<0|1|2> value=<hex>" (the port
 * of a lookup, or why not). */
static void name_request(int r, const char *line)
{
    char op[4], *sv = NULL, *pv = NULL, **v1 = NULL, **v2 = NULL, why[600] = "", port[LA_NAME_MAX] = "";
    int rc = LA_NAME_FAILED;
    if (la_pmi_field(line, "op", op, sizeof op) < 0 || strlen(op) != 1 || hex_list(line, "service", &v1, &sv) < 0 ||
        hex_list(line, "port", &v2, &pv) < 0 || strlen(sv) >= LA_NAME_MAX || strlen(pv) >= LA_NAME_MAX) {
        snprintf(why, sizeof why, "malformed name service request");
    } else {
        snprintf(port, sizeof port, "%s", pv);
        rc = la_names_request(job.names, op[0], sv, port, sizeof port, why, sizeof why);
    }
    const char *val = rc == LA_NAME_OK ? (op[0] == 'l' ? port : "") : why;
    size_t n = strlen(val);
    char *hex = la_malloc(2 * n + 1);
    la_hex((const uint8_t *)val, n, hex);
    pmi_reply(r, "cmd=name_result rc=%d value=%s\n", rc, hex);
    free(hex);
    free(v1);
    free(v2);
    free(sv);
    free(pv);
}

/* MPI_UNIVERSE_SIZE: -usize, else COURIER_UNIVERSE_SIZE, else the slots of
 * -hosts / -f; else unknown (0), as under Hydra (it is then not set). */
static int universe_size(void)
{
    int u = job.usize > 0 ? job.usize : ut_settings.universe_size > 0 ? (int)ut_settings.universe_size
            : job.hosts_given ? la_hosts_total_slots(&job.hl) : 0;
    return u > 0 && u < job.n ? job.n : u;
}

static void pmi_handle(int r, char *line)
{
    grank_t *g = &job.r[r];
    char cmd[64], key[LA_PMI_KEYLEN_MAX + 1], val[LA_PMI_VALLEN_MAX + 1];
    if (g->state == R_DONE && g->pmi_finalized) return;
    if (la_tracing) la_trace("rank %d: PMI %.40s%s", r, line, job.pmi_quiet ? " (answered by its proxy)" : "");
    if (la_pmi_field(line, "cmd", cmd, sizeof cmd) < 0) {
        if (!strncmp(line, "mcmd=", 5))
            fprintf(stderr, "mpiexec: rank %d: PMI spawn (mcmd) is not supported\n", r);
        else
            fprintf(stderr, "mpiexec: rank %d: malformed PMI request \"%.100s\"\n", r, line);
        return;
    }
    if (!strcmp(cmd, "init")) {
        g->pmi_init = 1;
        pmi_reply(r, LA_PMI_INIT_REPLY);
    } else if (!strcmp(cmd, "get_maxes")) {
        pmi_reply(r, LA_PMI_MAXES_REPLY);
    } else if (!strcmp(cmd, "get_appnum")) {
        pmi_reply(r, "cmd=appnum rc=0 appnum=%d\n", app_of(r));
    } else if (!strcmp(cmd, "get_my_kvsname")) {
        pmi_reply(r, "cmd=my_kvsname rc=0 kvsname=%s\n", job.kvsname);
    } else if (!strcmp(cmd, "get_universe_size")) {
        int u = universe_size();
        if (u > 0) pmi_reply(r, "cmd=universe_size rc=0 size=%d\n", u);
        else pmi_reply(r, "cmd=universe_size rc=-1 msg=unknown\n");
    } else if (!strcmp(cmd, "spawn_courier")) {
        spawn_job(r, line);
    } else if (!strcmp(cmd, "spawn_ended")) {
        /* has the job of spawn id ended?  (its processes never connected when
         * the spawning root still waits for them) */
        int k = la_pmi_field(line, "id", val, sizeof val) == 0 ? atoi(val) : -1;
        pmi_reply(r, "cmd=spawn_ended_result rc=%d\n", k < 0 || k >= job.nsp ? -1 : job.sp[k].pid < 0);
    } else if (!strcmp(cmd, "name_courier")) {
        name_request(r, line);
    } else if (!strcmp(cmd, "put")) {
        if (la_pmi_field(line, "key", key, sizeof key) < 0) {
            pmi_reply(r, "cmd=put_result rc=-1 msg=missing_or_too_long_key\n");
            return;
        }
        if (la_pmi_field(line, "value", val, sizeof val) < 0) {
            if (strstr(line, " value=")) {
                pmi_reply(r, "cmd=put_result rc=-1 msg=value_too_long\n");
                return;
            }
            val[0] = '\0';
        }
        la_kvs_put(&job.kvs, key, val);
        pmi_reply(r, LA_PMI_PUT_REPLY);
    } else if (!strcmp(cmd, "get")) {
        const char *v = NULL;
        if (la_pmi_field(line, "key", key, sizeof key) == 0) v = la_kvs_get(&job.kvs, key);
        if (v) pmi_reply(r, "cmd=get_result rc=0 msg=success value=%s\n", v);
        else pmi_reply(r, "cmd=get_result rc=-1 msg=key_not_found\n");
    } else if (!strcmp(cmd, "barrier_in")) {
        if (!g->in_barrier && g->state != R_DONE) {
            g->in_barrier = 1;
            job.nbarrier++;
        }
        barrier_check();
    } else if (!strcmp(cmd, "finalize")) {
        g->pmi_finalized = 1;
        pmi_reply(r, LA_PMI_FINALIZE_REPLY);
    } else if (!strcmp(cmd, "abort")) {
        int code = 1;
        if (la_pmi_field(line, "exitcode", val, sizeof val) == 0) code = atoi(val);
        const char *msg = strstr(line, " message=");
        msg = msg ? msg + 9 : "";
        job_fail(r, code, "called MPI_Abort(MPI_COMM_WORLD, %d)%s%.1000s", code, *msg ? ": " : "", msg);
    } else {
        fprintf(stderr, "mpiexec: rank %d: unsupported PMI command \"%s\"\n", r, cmd);
        pmi_reply(r, "cmd=%s_result rc=-1 msg=unsupported\n", cmd);
    }
}

/* ---- local ranks (callbacks of ranks.c) ------------------------------------------- */

static int local_rank(int li) { return job.host_ranks[job.local_host][li]; }

static void lr_pmi(void *ctx, int li, char *line) { pmi_handle(local_rank(li), line); }

static void lr_output(void *ctx, int li, int stream, const char *p, size_t len)
{
    stream_data(local_rank(li), stream, p, len);
}

static void lr_exited(void *ctx, int li, int st)
{
    la_trace("rank %d (here) exited", local_rank(li));
    rank_exited(local_rank(li), st);
    barrier_check();
}

/* Build the base environment of local ranks (or, remote: what proxies get). */
static char **build_env(int remote, int nlocal)
{
    int cap = 8 + job.nsetenv, n = 0;
    for (char **e = environ; *e; e++) cap++;
    char **envp = la_malloc(sizeof(char *) * (size_t)cap);
    if (!job.envnone) {
        for (char **e = environ; *e; e++) {
            int skip = la_env_reserved(*e) || (remote && la_env_host_specific(*e));
            for (int k = 0; k < job.nsetenv && !skip; k++) {
                size_t nl = strcspn(job.setenv[k], "=");
                skip = !strncmp(*e, job.setenv[k], nl + 1);
            }
            if (!skip && job.envlist) {
                skip = 1;
                size_t el = strcspn(*e, "=");
                for (int k = 0; k < job.nenvlist && skip; k++)
                    skip = !(strlen(job.envlist[k]) == el && !strncmp(*e, job.envlist[k], el));
            }
            if (!skip) envp[n++] = *e;
        }
    }
    for (int k = 0; k < job.nsetenv; k++) envp[n++] = job.setenv[k];
    if (!remote) {
        envp[n++] = la_asprintf("PMI_SIZE=%d", job.n);
        envp[n++] = la_asprintf("COURIER_JOBID=%s", job.kvsname);
        envp[n++] = la_asprintf("MPI_LOCALNRANKS=%d", nlocal);
    }
    envp[n] = NULL;
    return envp;
}

/* Bindings of nlocal ranks on this machine: 1 when bound. */
static int bind_local(la_lrank_t *lr, int nlocal, la_topo_t **topo)
{
    if (job.place.bind == LA_LVL_NONE) return 0;
    char err[512], why[512];
    *topo = la_topo_load(err, sizeof err);
    if (!*topo) {
        la_warn("warning: %s; not binding", err);
        return 0;
    }
    la_binding_t *b = la_calloc((size_t)nlocal, sizeof *b);
    int bound = la_topo_place(*topo, &job.place, nlocal, b, why, sizeof why);
    if (!bound && why[0]) la_warn("warning: host %s: %s", job.myname, why);
    for (int i = 0; i < nlocal; i++) lr[i].bind = b[i];
    free(b);
    return bound;
}

static void start_local_ranks(int stdin_r)
{
    int h = job.local_host;
    la_ranks_t *rs = &job.lr;
    la_ranks_init(rs, job.host_nranks[h], job.host_ranks[h]);
    rs->size = job.n;
    rs->kvsname = job.kvsname;
    rs->path = job.path;
    rs->argv = job.argv;
    for (int i = 0; job.napps > 1 && i < rs->n; i++) {
        int k = app_of(rs->r[i].rank);
        rs->r[i].path = job.app_path[k];
        rs->r[i].argv = job.app_argv[k];
        rs->r[i].wdir = job.app_wdir[k];
    }
    rs->wdir = job.wdir;
    rs->env = build_env(0, job.host_nranks[h]);
    rs->child_mask = job.orig_mask;
    rs->pmi_batch = (int)ut_settings.pmi_batch;
    rs->ops = (la_ranks_ops_t){ lr_pmi, lr_output, lr_exited, NULL };
    if (job.r[0].host == h) {
        rs->stdin_mode = stdin_r >= 0 ? LA_STDIN_PIPE : LA_STDIN_INHERIT;
        rs->stdin_fd = 0;
    }
    la_topo_t *topo = NULL;
    bind_local(rs->r, rs->n, &topo);
    char err[1024];
    for (int i = 0; i < rs->n && !job.failed; i++) {
        int r = rs->r[i].rank;
        int code = la_ranks_spawn(rs, i, err, sizeof err);
        if (code) {
            fprintf(stderr, "mpiexec: %s\n", err);
            status_fail(err);
            for (int k = i; k < rs->n; k++) rank_done(rs->r[k].rank);
            job_fail(-1, code, "could not start every process");
            break;
        }
        job.r[r].pid = rs->r[i].pid;
        job.r[r].state = R_RUNNING;
        if (job.place.report) {
            char line[2048];
            la_binding_report(topo, &rs->r[i].bind, job.myname, rs->r[i].pid, r, line, sizeof line);
            fprintf(stderr, "%s\n", line);
        }
    }
    fflush(stderr);
    la_topo_free(topo);
    la_trace("%d local rank%s started", rs->n, rs->n == 1 ? "" : "s");
}

/* ---- the watcher --------------------------------------------------------------------- */

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

/* ---- the watcher's hold on the ranks -------------------------------------------
 * A pidfd per local rank, opened by the watcher as soon as it is forked, while
 * every rank is still mpiexec's unreaped child: once mpiexec is gone the ranks
 * are reaped by others, and a pid (or a process group's id) may then name an
 * unrelated process; a pidfd always names the rank itself.  Where the kernel
 * has no pidfds (Linux < 5.3) the pids stand in, as before. */
static int *watch_fd;

static void watch_open(void)
{
    watch_fd = malloc((size_t)(job.lr.n > 0 ? job.lr.n : 1) * sizeof *watch_fd);
    if (!watch_fd) return;
    for (int i = 0; i < job.lr.n; i++)
        watch_fd[i] = job.lr.r[i].pid > 0 ? (int)syscall(SYS_pidfd_open, job.lr.r[i].pid, 0) : -1;
}

/* Whether rank i's pid still names it (running, or a zombie nobody reaped). */
static int watch_held(int i)
{
    if (!watch_fd || watch_fd[i] < 0) return job.lr.r[i].pid > 0 && !pid_gone(job.lr.r[i].pid);
    return syscall(SYS_pidfd_send_signal, watch_fd[i], 0, NULL, 0) == 0;
}

/* SIGKILL to every local rank and the groups they lead or share, but a
 * group only while one of its ranks still holds the group's id. */
static void watch_kill(void)
{
    int group_killed = 0;
    for (int i = 0; i < job.lr.n; i++) {
        if (job.lr.r[i].pid <= 0 || !watch_held(i)) continue;
        if (!group_killed && job.lr.pgid > 0) kill(-job.lr.pgid, SIGKILL);
        group_killed = 1;
        if (job.lr.own_session) kill(-job.lr.r[i].pid, SIGKILL);
        if (watch_fd && watch_fd[i] >= 0)
            syscall(SYS_pidfd_send_signal, watch_fd[i], SIGKILL, NULL, 0);
        else
            kill(job.lr.r[i].pid, SIGKILL);
    }
}

/* Whether every local rank has ended (a pidfd is readable once its process
 * exited). */
static int watch_gone(void)
{
    for (int i = 0; i < job.lr.n; i++) {
        if (job.lr.r[i].pid <= 0) continue;
        if (watch_fd && watch_fd[i] >= 0) {
            struct pollfd p = { .fd = watch_fd[i], .events = POLLIN };
            if (poll(&p, 1, 0) == 0) return 0;
        } else if (!pid_gone(job.lr.r[i].pid)) {
            return 0;
        }
    }
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
        watch_open();
        char c;
        ssize_t n;
        do n = read(keep, &c, 1); while (n < 0 && errno == EINTR);
        if (n == 1) _exit(0);
        /* mpiexec is gone: end the job and clean up. */
        watch_kill();
        la_shm_cleanup(job.kvsname);
        for (int i = 0; i < 200 && !watch_gone(); i++) {
            watch_kill();
            struct timespec ts = { 0, 5 * 1000000 };
            nanosleep(&ts, NULL);
        }
        la_shm_cleanup(job.kvsname);
        _exit(0);
    }
    close(p[0]);
    job.watcher = pid;
    job.watcher_fd = p[1];
}

static void stop_watcher(void)
{
    if (job.watcher <= 0) return;
    la_write_all(job.watcher_fd, "x", 1);
    close(job.watcher_fd);
    int st;
    while (waitpid(job.watcher, &st, 0) < 0 && errno == EINTR) {}
    job.watcher = -1;
}

/* ---- proxies ------------------------------------------------------------------------- */

static la_launch_t launch_params(void)
{
    return (la_launch_t){
        .kind = job.launcher, .exec = job.launcher_exec, .proxy = job.proxy_path,
        .port = job.port, .addrs = job.addrs, .verbose = job.verbose, .trace = la_tracing,
        .job_stdin = job.launcher != LA_LAUNCH_SLURM, .persist_s = (int)ut_settings.ssh_persist_s,
        .control_dir = job.ssh_control_dir, .fast_kex = (int)ut_settings.ssh_fast_kex,
    };
}

/* Proxies mpiexec starts itself: the first F (a tree below them), or every
 * one with srun (Slurm's own launch is a tree). */
static int direct_children(void)
{
    if (job.launcher == LA_LAUNCH_SLURM) return job.npx;
    int f = (int)ut_settings.launch_fanout;
    if (f < 1) f = 1;
    return f < job.npx ? f : job.npx;
}

static void job_on_stdin(int k);

static void start_proxies(void)
{
    if (job.npx == 0) return;
    char err[512];
    if (la_random(job.secret, sizeof job.secret) < 0) la_die(1, "no random bytes for the job's secret: %s", strerror(errno));
    la_hex(job.secret, sizeof job.secret, job.secret_hex);
    job.listen_fd = la_listen_any(&job.port);
    if (job.listen_fd < 0) la_die(1, "cannot listen for proxies: %s", strerror(errno));
    la_set_nonblock(job.listen_fd);
    job.addrs = la_local_addrs(job.iface, err, sizeof err);
    if (!job.addrs) la_die(2, "%s", err);
    /* courier_proxy lives next to mpiexec, at the same path on every host */
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) la_die(1, "cannot find mpiexec's own path: %s", strerror(errno));
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    job.proxy_path = la_asprintf("%s/courier_proxy", self);
    if (job.launcher == LA_LAUNCH_FORK && access(job.proxy_path, X_OK) < 0)
        la_die(1, "cannot run %s: %s", job.proxy_path, strerror(errno));
    job.launch_deadline = la_now_ms() + ut_settings.launch_timeout_ms;
    if (job.launcher == LA_LAUNCH_SSH && ut_settings.ssh_persist_s > 0) {
        job.ssh_control_dir = la_ssh_control_dir(err, sizeof err);
        if (!job.ssh_control_dir) la_warn("warning: %s; COURIER_SSH_PERSIST_S is ignored", err);
    }

    int nd = direct_children();
    const char **hosts = la_malloc(sizeof(char *) * (size_t)nd);
    for (int k = 0; k < nd; k++) hosts[k] = job.hl.h[job.px[k].host].name;
    la_started_t *st = la_malloc(sizeof *st * (size_t)nd);
    la_launch_t l = launch_params();
    int got = la_launch_start(&l, hosts, nd, 0, 1, job.secret_hex, &job.orig_mask, st, err, sizeof err);
    if (got < 0) la_die(255, "cannot start the proxies: %s", err);
    if (job.launcher == LA_LAUNCH_SLURM) {
        job.px[0].l = st[0];   /* the srun, for all of them */
    } else {
        for (int k = 0; k < got; k++) {
            job.px[k].l = st[k];
            job_on_stdin(k);
        }
    }
    la_trace("started %d launcher%s (%s) for %d proxies", got, got == 1 ? "" : "s",
             la_launcher_name(job.launcher), job.npx);
    free(st);
    free(hosts);
}

/* The children proxy k starts (ssh/rsh/fork trees). */
static void add_children(la_buf_t *b, int k)
{
    if (job.launcher == LA_LAUNCH_SLURM) return;
    int f = (int)ut_settings.launch_fanout;
    if (f < 1) f = 1;
    for (int j = 0; j < f; j++) {
        int c = f + k * f + j;
        if (c >= job.npx) break;
        la_kv_addf(b, "child", "%d %s", c, job.hl.h[job.px[c].host].name);
    }
}

/* The job description of proxy k (proxy.c reads it). */
static void job_payload(int k, la_buf_t *out)
{
    proxy_t *p = &job.px[k];
    int h = p->host;
    la_buf_t b = { 0 };
    la_kv_add(&b, "kvsname", job.kvsname);
    la_kv_addf(&b, "usize", "%d", universe_size());
    la_kv_addf(&b, "size", "%d", job.n);
    la_kv_add(&b, "host", job.hl.h[h].name);
    char ranks[64];
    for (int j = 0; j < job.host_nranks[h]; j++) {
        snprintf(ranks, sizeof ranks, "%d", job.host_ranks[h][j]);
        la_kv_add(&b, "rank", ranks);
        if (job.napps > 1) la_kv_addf(&b, "rank_app", "%d", app_of(job.host_ranks[h][j]));
    }
    for (char **a = job.argv; *a; a++) la_kv_add(&b, "arg", *a);
    /* several programs: each one's arguments and directory, "<app> <value>" */
    for (int k = 0; job.napps > 1 && k < job.napps; k++) {
        for (char **a = job.app_argv[k]; *a; a++) la_kv_addf(&b, "app_arg", "%d %s", k, *a);
        if (job.app_wdir[k]) la_kv_addf(&b, "app_wdir", "%d %s", k, job.app_wdir[k]);
    }
    if (job.wdir) {
        la_kv_add(&b, "wdir", job.wdir);
    } else {
        char cwd[PATH_MAX];
        if (getcwd(cwd, sizeof cwd)) la_kv_add(&b, "cwd", cwd);
    }
    char **env = build_env(1, 0);
    for (char **e = env; *e; e++) la_kv_add(&b, "env", *e);
    free(env);
    la_kv_add(&b, "bind", la_level_name(job.place.bind));
    la_kv_add(&b, "map", la_level_name(job.place.map));
    la_kv_addf(&b, "pe", "%d", job.place.pe);
    la_kv_addf(&b, "pe_from_omp", "%d", job.place.pe_from_omp);
    la_kv_addf(&b, "report", "%d", job.place.report);
    la_kv_addf(&b, "progress", "%d", job.place.progress);
    la_kv_addf(&b, "pmi_batch", "%ld", ut_settings.pmi_batch);
    la_kv_addf(&b, "stdin", "%d", job.r[0].host == h);
    /* for its children */
    la_kv_add(&b, "launcher", la_launcher_name(job.launcher));
    if (job.launcher_exec) la_kv_add(&b, "launcher_exec", job.launcher_exec);
    la_kv_add(&b, "proxy", job.proxy_path);
    la_kv_addf(&b, "verbose", "%d", job.verbose);
    la_kv_addf(&b, "fast_kex", "%d", (int)ut_settings.ssh_fast_kex);
    add_children(&b, k);
    la_frame_add(out, LA_F_JOB, 0, 0, b.p, b.len);
    la_buf_free(&b);
}

/* Proxy k has its job: its ranks run. */
static void job_running(int k)
{
    proxy_t *p = &job.px[k];
    p->state = PX_RUNNING;
    for (int j = 0; j < job.host_nranks[p->host]; j++) job.r[job.host_ranks[p->host][j]].state = R_RUNNING;
}

static void send_job(int k)
{
    proxy_t *p = &job.px[k];
    job_payload(k, &p->conn.out);
    la_conn_flush(&p->conn);
    job_running(k);
    la_trace("proxy %d (%s): job sent", k, host_name(p->host));
}

/* Write what the socket or pipe takes of proxy k's job on its launcher's stdin. */
static void job_in_flush(int k)
{
    proxy_t *p = &job.px[k];
    if (p->l.stdin_w < 0 || !la_buf_pending(&p->job_in)) return;
    if (la_buf_flush(&p->job_in, p->l.stdin_w) < 0 || !la_buf_pending(&p->job_in)) {
        la_buf_free(&p->job_in);   /* written, or the launcher is gone (its exit tells) */
        la_trace("proxy %d (%s): job written to its launcher's stdin", k, host_name(p->host));
    }
}

/* Proxy k's job right after the secret on its launcher's stdin (la_launch_t
 * job_stdin), written as the pipe takes it, so that no launcher waits for
 * another's ssh connection. */
static void job_on_stdin(int k)
{
    proxy_t *p = &job.px[k];
    if (p->l.stdin_w < 0) return;
    la_set_nonblock(p->l.stdin_w);
    job_payload(k, &p->job_in);
    p->job_early = 1;
    job_in_flush(k);
}

/* Lost proxy k (its connection closed or broke). */
static void proxy_lost(int k, const char *why)
{
    proxy_t *p = &job.px[k];
    int h = p->host, running = 0;
    for (int j = 0; j < job.host_nranks[h]; j++) running += job.r[job.host_ranks[h][j]].state != R_DONE;
    la_conn_close(&p->conn);
    p->state = PX_GONE;
    if (running && !job.failed)
        job_fail(-1, 255, "lost the proxy on host %s (%s) with %d rank%s running", job.hl.h[h].name, why,
                 running, running == 1 ? "" : "s");
    for (int j = 0; j < job.host_nranks[h]; j++) rank_done(job.host_ranks[h][j]);
    barrier_check();
}

/* HELLO from proxy k: under srun the proxies come in Slurm's node order;
 * give k the host it reports. */
static void proxy_hello(int k, const la_frame_t *f)
{
    proxy_t *p = &job.px[k];
    const char *pos = f->p, *end = f->p + f->len, *key, *val, *node = NULL;
    while (la_kv_next(&pos, end, &key, &val) == 1) {
        if (!strcmp(key, "pid")) p->pid = atoi(val);
        else if (!strcmp(key, "node")) node = val;
    }
    if (job.launcher == LA_LAUNCH_SLURM && node && strcmp(job.hl.h[p->host].name, node)) {
        for (int j = 0; j < job.npx; j++) {
            proxy_t *q = &job.px[j];
            if (j == k || q->hello || strcmp(job.hl.h[q->host].name, node)) continue;
            int t = p->host;
            p->host = q->host;
            q->host = t;
            job.host_proxy[p->host] = k;
            job.host_proxy[q->host] = j;
            break;
        }
    }
    p->hello = 1;
    la_trace("proxy %d (%s): connected and said hello", k, host_name(p->host));
    if (job.failed) {
        /* its ranks may have started from the job on stdin */
        if (p->job_early) la_conn_send(&p->conn, LA_F_KILL, SIGKILL, 0, NULL, 0);
        la_conn_send(&p->conn, LA_F_BYE, 0, 0, NULL, 0);
        return;
    }
    if (p->job_early) job_running(k);
    else send_job(k);
}

static void on_stdin_ack(void);

/* The decimal number a frame carries (payloads are not NUL-terminated). */
static int frame_int(const la_frame_t *f)
{
    char s[32];
    size_t n = f->len < sizeof s - 1 ? f->len : sizeof s - 1;
    memcpy(s, f->p, n);
    s[n] = '\0';
    return atoi(s);
}

static int frame_rank_ok(int k, const la_frame_t *f)
{
    return f->rank >= 0 && f->rank < job.n && job.r[f->rank].host == job.px[k].host;
}

static void proxy_frame(int k, const la_frame_t *f)
{
    proxy_t *p = &job.px[k];
    switch (f->type) {
    case LA_F_HELLO:
        if (!p->hello) proxy_hello(k, f);
        break;
    case LA_F_STARTED:
        if (frame_rank_ok(k, f)) job.r[f->rank].pid = frame_int(f);
        la_trace("rank %d started on %s", f->rank, host_name(p->host));
        break;
    case LA_F_PMI:
        if (frame_rank_ok(k, f)) {
            char *line = la_malloc(f->len + 1);
            memcpy(line, f->p, f->len);
            line[f->len] = '\0';
            job.pmi_quiet = f->arg == 1;   /* answered by the proxy: take note only */
            pmi_handle(f->rank, line);
            job.pmi_quiet = 0;
            free(line);
        }
        break;
    case LA_F_OUT:
        if (frame_rank_ok(k, f) && (f->arg == 1 || f->arg == 2)) stream_data(f->rank, f->arg, f->p, f->len);
        break;
    case LA_F_EXIT:
        la_trace("rank %d on %s exited", f->rank, host_name(p->host));
        if (frame_rank_ok(k, f)) {
            rank_exited(f->rank, frame_int(f));
            barrier_check();
        }
        break;
    case LA_F_SPAWNERR:
        if (frame_rank_ok(k, f)) {
            if (!job.failed) {
                char why[700];
                snprintf(why, sizeof why, "host %s: %.*s", job.hl.h[p->host].name, (int)f->len, f->p);
                fprintf(stderr, "mpiexec: %s\n", why);
                status_fail(why);
            }
            rank_done(f->rank);
            job_fail(-1, f->arg ? f->arg : 127, "could not start every process");
            barrier_check();
        }
        break;
    case LA_F_MSG:
        fprintf(stderr, "%.*s\n", (int)f->len, f->p);
        break;
    case LA_F_STDIN_ACK:
        on_stdin_ack();
        break;
    case LA_F_CHILD_FAIL:
        if (f->rank >= 0 && f->rank < job.npx && job.px[f->rank].state == PX_WAIT && !job.failed)
            job_fail(-1, 255, "cannot start the proxy on host %s: %.*s", job.hl.h[job.px[f->rank].host].name,
                     (int)f->len, f->p);
        break;
    default:
        break;
    }
}

/* ---- connections ------------------------------------------------------------------------ */

static void on_accept(void *obj, int idx, int fd, short rev)
{
    for (;;) {
        int c = accept4(job.listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0) return;
        if (job.failed) {
            close(c);
            continue;
        }
        int on = 1;
        setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        job.pend = la_realloc(job.pend, sizeof *job.pend * (size_t)(job.npend + 1));
        pending_t *p = &job.pend[job.npend++];
        la_conn_init(&p->conn, c);
        p->deadline = la_now_ms() + ut_settings.launch_timeout_ms;
        if (la_auth_challenge(&p->conn, p->nonce) < 0) la_conn_close(&p->conn);
    }
}

static void pending_drop(int i)
{
    la_conn_close(&job.pend[i].conn);
    job.pend[i] = job.pend[--job.npend];
}

static void peer_name(int fd, char *buf, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    snprintf(buf, len, "?");
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0 &&
        getnameinfo((struct sockaddr *)&ss, sl, buf, (socklen_t)len, NULL, 0, NI_NUMERICHOST) == 0 &&
        !strncmp(buf, "::ffff:", 7))
        memmove(buf, buf + 7, strlen(buf + 7) + 1);   /* an IPv4 address */
}

static void on_pending(void *obj, int i, int fd, short rev)
{
    if (i >= job.npend || job.pend[i].conn.fd != fd) return;
    pending_t *p = &job.pend[i];
    if (rev & POLLOUT) la_conn_flush(&p->conn);
    if (!(rev & (POLLIN | POLLHUP | POLLERR))) return;
    int eof = la_conn_fill(&p->conn) < 0;
    la_frame_t f;
    int got = la_conn_next(&p->conn, &f, LA_FRAME_MAX_UNAUTH);
    if (got == 0 && !eof) return;
    int id = -1;
    char who[128];
    peer_name(fd, who, sizeof who);
    if (got != 1 || la_auth_accept(&p->conn, job.secret, p->nonce, &f, &id) < 0) {
        if (got != 0) la_warn("refused a connection from %s: it does not know the job's secret", who);
        pending_drop(i);
        return;
    }
    if (id >= job.npx || job.px[id].state != PX_WAIT) {
        la_warn("refused proxy %d from %s: %s", id, who, id >= job.npx ? "no such proxy" : "already connected");
        pending_drop(i);
        return;
    }
    job.px[id].conn = p->conn;   /* keeps what arrived after the response */
    job.px[id].state = PX_CONNECTED;
    la_trace("proxy %d (%s): authenticated from %s", id, host_name(job.px[id].host), who);
    job.pend[i] = job.pend[--job.npend];
}

static int *px_eof;   /* per proxy: its connection reached end of file */

static void on_job_in(void *obj, int k, int fd, short rev)
{
    if (job.px[k].l.stdin_w == fd) job_in_flush(k);
}

static void on_proxy(void *obj, int k, int fd, short rev)
{
    proxy_t *p = &job.px[k];
    if (p->conn.fd != fd) return;
    if ((rev & POLLOUT) && la_conn_flush(&p->conn) < 0) px_eof[k] = 1;
    if ((rev & (POLLIN | POLLHUP | POLLERR)) && la_conn_fill(&p->conn) < 0) px_eof[k] = 1;
}

/* Handle the frames that came from proxies, a bounded number per proxy
 * (fairness).  Returns 1 when some are left for the next round. */
static int serve_proxies(void)
{
    int more = 0;
    for (int k = 0; k < job.npx; k++) {
        proxy_t *p = &job.px[k];
        if (p->state != PX_CONNECTED && p->state != PX_RUNNING) continue;
        long budget = ut_settings.pmi_batch * (job.host_nranks[p->host] + 1) + 1;
        la_frame_t f;
        int got = 0;
        while (budget-- > 0 && p->conn.fd >= 0 && (got = la_conn_next(&p->conn, &f, LA_FRAME_MAX)) == 1)
            proxy_frame(k, &f);
        if (got < 0) {
            proxy_lost(k, "a malformed message");
            continue;
        }
        if (p->conn.fd < 0 || (p->state != PX_CONNECTED && p->state != PX_RUNNING)) continue;
        if (got == 1 && budget < 0) {
            more = 1;
        } else if (px_eof[k]) {
            int running = 0, h = p->host;
            for (int j = 0; j < job.host_nranks[h]; j++) running += job.r[job.host_ranks[h][j]].state != R_DONE;
            if (running) proxy_lost(k, "its connection closed");
            else {
                la_conn_close(&p->conn);
                p->state = PX_GONE;
            }
        }
    }
    return more;
}

/* ---- stdin --------------------------------------------------------------------------------- */

static int rank0_proxy(void)
{
    return job.host_proxy[job.r[0].host];
}

static void on_stdin_ack(void)
{
    job.stdin_inflight = 0;
}

static void on_stdin(void *obj, int idx, int fd, short rev)
{
    char buf[STDIN_CHUNK];
    ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) job.stdin_eof = 1;
    if (job.stdin_to == 1) {
        if (n > 0) la_ranks_stdin_write(&job.lr, buf, (size_t)n);
        else la_ranks_stdin_close(&job.lr);
    } else {
        proxy_t *p = &job.px[rank0_proxy()];
        px_send(p, LA_F_STDIN, 0, 0, buf, n > 0 ? (size_t)n : 0);
        job.stdin_inflight = n > 0;
    }
}

static int stdin_wanted(void)
{
    if (job.stdin_eof || job.r[0].state == R_DONE) return 0;
    if (job.stdin_to == 1) return job.lr.stdin_w >= 0 && la_ranks_stdin_pending(&job.lr) == 0;
    if (job.stdin_to == 2) return job.px[rank0_proxy()].state == PX_RUNNING && !job.stdin_inflight;
    return 0;
}

/* ---- children and signals ------------------------------------------------------------ */

static void launcher_exited(pid_t pid, int st)
{
    for (int k = 0; k < job.npx; k++) {
        proxy_t *p = &job.px[k];
        if (p->l.pid != pid) continue;
        p->l.pid = -1;
        if (p->l.stdin_w >= 0) close(p->l.stdin_w);
        p->l.stdin_w = -1;
        la_buf_free(&p->job_in);
        la_trace("launcher of proxy %d (%s) ended (status 0x%x)", k, host_name(p->host), st);
        /* under srun one launcher serves every proxy */
        for (int j = 0; j < job.npx && !job.failed; j++) {
            proxy_t *q = &job.px[j];
            if (q->state != PX_WAIT || (job.launcher != LA_LAUNCH_SLURM && j != k)) continue;
            char how[64];
            if (WIFSIGNALED(st)) snprintf(how, sizeof how, "was killed by signal %d", WTERMSIG(st));
            else snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(st));
            job_fail(-1, 255, "cannot start the proxy on host %s: %s %s%s", job.hl.h[q->host].name,
                     job.launcher_exec ? job.launcher_exec : job.launcher == LA_LAUNCH_SLURM ? "srun"
                     : job.launcher == LA_LAUNCH_FORK ? "courier_proxy" : la_launcher_name(job.launcher),
                     how, WIFEXITED(st) && WEXITSTATUS(st) ? " (see its message above)" : "");
        }
        return;
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
        if (job.local_host >= 0 && la_ranks_reaped(&job.lr, pid, st)) continue;
        if (spawned_exited(pid, st)) continue;
        launcher_exited(pid, st);
    }
}

static void on_signal(void *obj, int idx, int fd, short rev)
{
    struct signalfd_siginfo si[8];
    ssize_t n;
    while ((n = read(job.sigfd, si, sizeof si)) > 0) {
        for (size_t k = 0; k < (size_t)n / sizeof si[0]; k++) {
            int sig = (int)si[k].ssi_signo;
            if (sig == SIGCHLD) continue;
            if (sig == SIGUSR1 || sig == SIGUSR2) {
                signal_job(sig, 0);
            } else if (!job.failed) {
                job_fail(-1, 128 + sig, "received signal %d (%s)", sig, strsignal(sig));
                signal_job(sig, 1);   /* forward it, too */
            } else if (!job.killed_hard) {
                signal_job(SIGKILL, 1);   /* a second signal: no more patience */
                job.killed_hard = 1;
            }
        }
    }
    reap();
}

/* ---- main ---------------------------------------------------------------------------- */

static void poll_proxies(la_poll_t *P)
{
    for (int i = 0; i < job.npend; i++) {
        short ev = POLLIN | (la_conn_want_write(&job.pend[i].conn) ? POLLOUT : 0);
        la_poll_add(P, job.pend[i].conn.fd, ev, on_pending, NULL, i);
        la_poll_within(P, job.pend[i].deadline - la_now_ms());
    }
    int waiting = 0;
    for (int k = 0; k < job.npx; k++) {
        proxy_t *p = &job.px[k];
        waiting |= p->state == PX_WAIT;
        if (la_buf_pending(&p->job_in) && p->l.stdin_w >= 0)
            la_poll_add(P, p->l.stdin_w, POLLOUT, on_job_in, NULL, k);
        if ((p->state != PX_CONNECTED && p->state != PX_RUNNING) || px_eof[k]) continue;
        la_poll_add(P, p->conn.fd, POLLIN | (la_conn_want_write(&p->conn) ? POLLOUT : 0), on_proxy, NULL, k);
    }
    if (waiting && !job.failed) la_poll_within(P, job.launch_deadline - la_now_ms());
}

/* After a round: connections past their deadline. */
static void check_deadlines(void)
{
    long long now = la_now_ms();
    for (int i = 0; i < job.npend; i++)
        if (now >= job.pend[i].deadline) pending_drop(i--);
    if (job.failed || now < job.launch_deadline) return;
    for (int k = 0; k < job.npx; k++)
        if (job.px[k].state == PX_WAIT) {
            job_fail(-1, 255, "no proxy from host %s connected within %ld ms (COURIER_LAUNCH_TIMEOUT_MS)",
                     job.hl.h[job.px[k].host].name, ut_settings.launch_timeout_ms);
            break;
        }
}

/* Partial lines older than PARTIAL_FLUSH_MS go out; returns ms to the next one, or -1. */
static long long partial_lines(void)
{
    static long long since = -1;
    int any = 0;
    for (int r = 0; r < job.n; r++) any |= job.r[r].out[0].len || job.r[r].out[1].len;
    if (!any) {
        since = -1;
        return -1;
    }
    long long now = la_now_ms();
    if (since < 0) since = now;
    if (now - since < PARTIAL_FLUSH_MS) return PARTIAL_FLUSH_MS - (now - since);
    for (int r = 0; r < job.n; r++)
        for (int s = 0; s < 2; s++) stream_flush_partial(r, &job.r[r].out[s]);
    since = -1;
    return -1;
}

/* Every rank is done: pass on the last output, let the proxies go, and wait
 * (a little) for them and their launchers to end. */
static void finish(la_poll_t *P)
{
    la_trace("every rank is done; ending");
    if (job.local_host >= 0) la_ranks_finish_output(&job.lr);
    for (int k = 0; k < job.npx; k++) px_send(&job.px[k], LA_F_BYE, 0, 0, NULL, 0);
    long long end = la_now_ms() + PROXY_EXIT_WAIT_MS;
    for (;;) {
        int open = 0, launchers = 0;
        for (int k = 0; k < job.npx; k++) {
            open += job.px[k].state == PX_CONNECTED || job.px[k].state == PX_RUNNING;
            launchers += job.px[k].l.pid > 0;
        }
        if ((!open && !launchers) || la_now_ms() >= end) break;
        la_poll_begin(P);
        la_poll_add(P, job.sigfd, POLLIN, on_signal, NULL, 0);
        poll_proxies(P);
        la_poll_within(P, end - la_now_ms());
        la_poll_run(P);
        serve_proxies();
    }
    /* launchers still there (an ssh that does not end): SIGTERM, then SIGKILL */
    for (int k = 0; k < job.npx; k++) {
        proxy_t *p = &job.px[k];
        if (p->conn.fd >= 0) la_conn_close(&p->conn);
        if (p->l.pid > 0) kill(-p->l.pid, SIGTERM);
        if (p->l.stdin_w >= 0) close(p->l.stdin_w);
        p->l.stdin_w = -1;
    }
    for (int k = 0; k < job.npx; k++) {
        proxy_t *p = &job.px[k];
        for (int i = 0; p->l.pid > 0 && i < PROXY_EXIT_WAIT_MS / 10; i++) {
            if (waitpid(p->l.pid, NULL, WNOHANG) == p->l.pid) p->l.pid = -1;
            else poll(NULL, 0, 10);
        }
        if (p->l.pid > 0) {
            kill(-p->l.pid, SIGKILL);
            waitpid(p->l.pid, NULL, 0);
            p->l.pid = -1;
        }
    }
    for (int r = 0; r < job.n; r++)
        for (int s = 0; s < 2; s++) stream_flush_partial(r, &job.r[r].out[s]);
    la_trace("done");
}

int main(int argc, char **argv)
{
    status_open();
    parse_args(argc, argv);
    ut_settings_load();
    la_tracing = (int)ut_settings.launch_trace;
    la_trace("mpiexec started");
    if (ut_settings.abort_timeout_ms < 0) ut_settings.abort_timeout_ms = 0;
    plan_job();
    char err[1024];
    if (job.local_host >= 0) {
        /* the programs of this host's ranks */
        job.app_path = la_calloc((size_t)job.napps, sizeof(char *));
        for (int k = 0; k < job.napps; k++) {
            int here = 0;
            for (int r = job.app_first[k]; r < job.app_first[k + 1] && !here; r++)
                here = job.r[r].host == job.local_host;
            int code = here ? la_resolve_program(job.app_argv[k][0], getenv("PATH"), &job.app_path[k],
                                                 err, sizeof err) : 0;
            if (code) la_die(code, "%s", err);
        }
        job.path = job.app_path[0];
    }

    /* The KVS name carries a random part: it names the shared-memory
     * segments, which another user must not be able to create first. */
    uint8_t rnd[KVS_SECRET_BYTES];
    char rhex[2 * KVS_SECRET_BYTES + 1];
    if (la_random(rnd, sizeof rnd) < 0) la_die(1, "no random bytes: %s", strerror(errno));
    la_hex(rnd, sizeof rnd, rhex);
    snprintf(job.kvsname, sizeof job.kvsname, "kvs_%d_0_%s", (int)getpid(), rhex);

    /* Three descriptors per local rank and one per proxy, plus a few. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)job.n * 3 + (rlim_t)job.npx * 2 + 64) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }

    sigset_t mask;
    sigemptyset(&mask);
    int sigs[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2 };
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) sigaddset(&mask, sigs[k]);
    sigprocmask(SIG_BLOCK, &mask, &job.orig_mask);
    job.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (job.sigfd < 0) la_die(1, "signalfd: %s", strerror(errno));
    /* A closed stdout must not kill us: block SIGPIPE (the ranks get the
     * original mask back) and handle EPIPE. */
    sigset_t pipe_mask;
    sigemptyset(&pipe_mask);
    sigaddset(&pipe_mask, SIGPIPE);
    sigprocmask(SIG_BLOCK, &pipe_mask, NULL);

    /* stdin goes to rank 0: inherited when it runs here (through a pipe we
     * feed when stdin is a terminal: ranks run in a process group of their
     * own, and reading the terminal would stop them), else sent to its proxy. */
    if (job.r[0].host == job.local_host) job.stdin_to = isatty(0) ? 1 : 0;
    else job.stdin_to = 2;

    px_eof = la_calloc((size_t)(job.npx + 1), sizeof(int));
    job.names = la_names_open(job.iface);
    start_proxies();
    if (job.local_host >= 0) start_local_ranks(job.stdin_to == 1 ? 0 : -1);
    status_check_started();   /* all here: before any of them can end */
    start_watcher();

    la_poll_t P = { 0 };
    int more = 0;
    while (job.ndone < job.n || job.sp_live > 0) {
        la_poll_begin(&P);
        if (more) la_poll_within(&P, 0);
        la_poll_add(&P, job.sigfd, POLLIN, on_signal, NULL, 0);
        if (job.local_host >= 0) la_ranks_poll(&job.lr, &P);
        if (job.listen_fd >= 0 && !job.failed) la_poll_add(&P, job.listen_fd, POLLIN, on_accept, NULL, 0);
        for (int k = 0; k < job.nsp; k++)
            if (job.sp[k].status_fd >= 0) la_poll_add(&P, job.sp[k].status_fd, POLLIN, on_spawn_status, NULL, k);
        la_names_poll(job.names, &P);
        poll_proxies(&P);
        if (stdin_wanted()) la_poll_add(&P, 0, POLLIN, on_stdin, NULL, 0);
        long long partial = partial_lines();
        if (partial >= 0) la_poll_within(&P, partial);
        if (job.failed && !job.killed_hard) la_poll_within(&P, job.kill_at_ms - la_now_ms());
        if (la_poll_run(&P) < 0) la_die(1, "poll: %s", strerror(errno));
        if (job.failed && !job.killed_hard && la_now_ms() >= job.kill_at_ms) {
            signal_job(SIGKILL, 1);
            job.killed_hard = 1;
        }
        if (job.local_host >= 0) la_ranks_serve(&job.lr);
        more = serve_proxies();
        check_deadlines();
        status_check_started();
        if (job.stdin_to == 1 && job.r[0].state == R_DONE && job.lr.stdin_w >= 0) la_ranks_stdin_close(&job.lr);
    }
    finish(&P);
    la_names_close(job.names);
    la_poll_free(&P);
    stop_watcher();
    la_shm_cleanup(job.kvsname);
    return job.exit_code;
}
