/* SPDX-License-Identifier: MIT */
/* Starting courier_proxy on other hosts and finding the way back.
 *
 * mpiexec listens on a TCP port (all interfaces) and starts a proxy on each
 * remote host through a launcher:
 *   ssh, rsh   `ssh -x HOST 'PROXY --id N --port P --addr A,B,... --ssh-peer'`,
 *              the job's secret written to the session's stdin (never argv),
 *              and, with --job-stdin, the proxy's job right after it, so that
 *              the proxy starts its ranks before it has connected back;
 *              with COURIER_SSH_PERSIST_S, ssh keeps its connection to the
 *              host for the next job (ControlMaster=auto, ControlPersist);
 *              with COURIER_SSH_FAST_KEX (default), ssh is asked for the
 *              classic key exchanges, not sntrup761x25519 (LA_SSH_KEX);
 *   fork       PROXY itself on this machine (for testing, as Hydra's fork);
 *   slurm      one `srun --nodelist=... --ntasks-per-node=1 PROXY --slurm ...`
 *              for all hosts, the secret in srun's environment (srun passes
 *              it to the tasks; it is on no command line).
 * Proxies themselves start further proxies the same way (a tree, so that
 * start-up takes about log_F(hosts) launch round trips instead of hosts); every
 * proxy connects straight back to mpiexec.  A proxy tries mpiexec's addresses
 * in order: the ssh client's address (SSH_CONNECTION) when mpiexec started it
 * directly, then the list it was given. */
#ifndef COURIER_LAUNCHER_START_H
#define COURIER_LAUNCHER_START_H
#include <signal.h>
#include <sys/types.h>

typedef enum { LA_LAUNCH_SSH, LA_LAUNCH_RSH, LA_LAUNCH_FORK, LA_LAUNCH_SLURM } la_launcher_t;

/* "ssh" etc. to the enum: 0, or -1 when unknown. */
int la_launcher_parse(const char *s, la_launcher_t *out);
const char *la_launcher_name(la_launcher_t l);

typedef struct {
    la_launcher_t kind;
    const char *exec;       /* the launcher program (NULL: ssh, rsh or srun from PATH) */
    const char *proxy;      /* courier_proxy, at the same path on every host */
    int port;               /* mpiexec's port */
    const char *addrs;      /* mpiexec's addresses, comma-separated, best first */
    int verbose;            /* print each launch command on stderr */
    int trace;              /* the proxies trace their steps (COURIER_LAUNCH_TRACE) */
    int job_stdin;          /* the job description follows the secret on stdin (ssh, rsh, fork) */
    int persist_s;          /* ssh: keep the connection this long for the next job (ControlPersist) */
    const char *control_dir;/* ssh with persist_s: where the control sockets live */
    int fast_kex;           /* ssh: classic key exchanges first (COURIER_SSH_FAST_KEX) */
} la_launch_t;

typedef struct {
    pid_t pid;              /* the launcher process (ssh, srun, or the proxy itself) */
    int stdin_w;            /* write end of its stdin, kept open; -1 for srun */
} la_started_t;

/* Start proxies first_id.. on hosts[0..nhosts-1]: one process per host, or
 * one srun for all with LA_LAUNCH_SLURM.  ssh_peer: the proxies may connect
 * to the ssh client's address first.  The launcher process gets its own
 * process group, SIGTERM when its parent dies, our stderr for stdout and
 * stderr, and the signal mask mask.  Returns the number of processes started
 * (in out), or -1 with a message in err. */
int la_launch_start(const la_launch_t *l, const char *const *hosts, int nhosts, int first_id,
                    int ssh_peer, const char *secret_hex, const sigset_t *mask,
                    la_started_t *out, char *err, size_t errlen);

/* The directory for ssh's control sockets (COURIER_SSH_PERSIST_S):
 * $XDG_RUNTIME_DIR/courier-ssh, else /tmp/courier-ssh-<uid>, made with mode
 * 0700 and checked to be ours.  Returns it (malloc'ed), or NULL with a message
 * in err. */
char *la_ssh_control_dir(char *err, size_t errlen);

/* A listening TCP socket on every interface (IPv6 and IPv4 where possible,
 * an ephemeral port in *port).  Returns the descriptor, or -1 with errno. */
int la_listen_any(int *port);
/* This host's addresses for proxies to call back, best first (interface
 * iface only, when not NULL), malloc'ed and comma-separated; NULL with a
 * message in err when iface has none. */
char *la_local_addrs(const char *iface, char *err, size_t errlen);
/* Connect to port on the first address of the comma-separated list that
 * answers before deadline_ms (la_now_ms time).  Returns the descriptor, or -1
 * with a message in err.  *used receives the address (malloc'ed). */
int la_connect_any(const char *addrs, int port, long long deadline_ms, char **used,
                   char *err, size_t errlen);
#endif
