/* SPDX-License-Identifier: MIT */
/* Starting proxies through ssh, rsh, fork or srun; addresses and connections
 * between mpiexec and its proxies (see start.h). */
#define _GNU_SOURCE
#include "start.h"
#include "auth.h"
#include "common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* Longest wait for one address while trying mpiexec's addresses in turn. */
#define LA_CONNECT_TRY_MS 3000
/* Key exchanges the ssh launcher asks for with COURIER_SSH_FAST_KEX: the
 * classic ones that OpenSSH has had since 7.4, without sntrup761x25519 (the
 * default since 9.0, whose key generation costs most of a connection's CPU). */
#define LA_SSH_KEX "curve25519-sha256,ecdh-sha2-nistp256,ecdh-sha2-nistp384,ecdh-sha2-nistp521," \
    "diffie-hellman-group-exchange-sha256,diffie-hellman-group16-sha512,diffie-hellman-group18-sha512," \
    "diffie-hellman-group14-sha256"
/* Pending connections the kernel keeps for mpiexec's listening socket. */
#define LA_LISTEN_BACKLOG 512

static const char *const launcher_names[] = { "ssh", "rsh", "fork", "slurm" };

int la_launcher_parse(const char *s, la_launcher_t *out)
{
    for (int i = 0; i < 4; i++)
        if (!strcmp(s, launcher_names[i])) {
            *out = (la_launcher_t)i;
            return 0;
        }
    if (!strcmp(s, "srun")) {
        *out = LA_LAUNCH_SLURM;
        return 0;
    }
    return -1;
}

const char *la_launcher_name(la_launcher_t l)
{
    return (unsigned)l < 4 ? launcher_names[l] : "?";
}

/* argv of the proxy itself (for fork and slurm) or words of the remote command. */
static char **proxy_args(const la_launch_t *l, int id, int ssh_peer, int slurm, int *n)
{
    char **a = la_malloc(sizeof(char *) * 16);
    int k = 0;
    a[k++] = la_strdup(l->proxy);
    a[k++] = la_strdup(slurm ? "--slurm-base" : "--id");
    a[k++] = la_asprintf("%d", id);
    a[k++] = la_strdup("--port");
    a[k++] = la_asprintf("%d", l->port);
    a[k++] = la_strdup("--addr");
    a[k++] = la_strdup(l->addrs);
    if (ssh_peer) a[k++] = la_strdup("--ssh-peer");
    if (l->verbose) a[k++] = la_strdup("--verbose");
    if (l->trace) a[k++] = la_strdup("--trace");
    if (l->job_stdin && !slurm) a[k++] = la_strdup("--job-stdin");
    a[k] = NULL;
    *n = k;
    return a;
}

static void free_words(char **a)
{
    for (char **p = a; p && *p; p++) free(*p);
    free(a);
}

static void show(const la_launch_t *l, char **argv)
{
    if (!l->verbose) return;
    char line[8192];
    size_t o = (size_t)snprintf(line, sizeof line, "%s: launching:", la_prog);
    for (char **p = argv; *p && o < sizeof line; p++) {
        char *q = la_shell_quote(*p);
        o += (size_t)snprintf(line + o, sizeof line - o, " %s", q);
        free(q);
    }
    if (o >= sizeof line - 1) o = sizeof line - 2;
    line[o++] = '\n';
    la_write_all(2, line, o);
}

/* Fork and exec argv with environment envp; stdin from a pipe when want_stdin. */
static int run_launcher(const la_launch_t *l, char **argv, char **envp, int want_stdin,
                        const sigset_t *mask, la_started_t *out, char *err, size_t errlen)
{
    int p[2] = { -1, -1 };
    if (want_stdin && pipe2(p, O_CLOEXEC) < 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    show(l, argv);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "fork: %s", strerror(errno));
        if (p[0] >= 0) {
            close(p[0]);
            close(p[1]);
        }
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127);
        int in = want_stdin ? p[0] : open("/dev/null", O_RDONLY);
        if (in >= 0) dup2(in, 0);
        dup2(2, 1);
        sigprocmask(SIG_SETMASK, mask, NULL);
        execvpe(argv[0], argv, envp);
        fprintf(stderr, "%s: cannot run the launcher \"%s\": %s\n", la_prog, argv[0], strerror(errno));
        _exit(127);
    }
    out->pid = pid;
    out->stdin_w = -1;
    if (want_stdin) {
        close(p[0]);
        out->stdin_w = p[1];
    }
    return 0;
}

int la_launch_start(const la_launch_t *l, const char *const *hosts, int nhosts, int first_id,
                    int ssh_peer, const char *secret_hex, const sigset_t *mask,
                    la_started_t *out, char *err, size_t errlen)
{
    if (l->kind == LA_LAUNCH_SLURM) {
        /* one srun for all hosts; the secret in its environment */
        size_t nl = 1;
        for (int h = 0; h < nhosts; h++) nl += strlen(hosts[h]) + 1;
        char *list = la_malloc(nl);
        list[0] = '\0';
        for (int h = 0; h < nhosts; h++) {
            if (h) strcat(list, ",");
            strcat(list, hosts[h]);
        }
        int np;
        char **pa = proxy_args(l, first_id, 0, 1, &np);
        char **argv = la_malloc(sizeof(char *) * (size_t)(np + 16));
        int k = 0;
        argv[k++] = la_strdup(l->exec ? l->exec : "srun");
        argv[k++] = la_asprintf("--nodelist=%s", list);
        argv[k++] = la_asprintf("--nodes=%d", nhosts);
        argv[k++] = la_asprintf("--ntasks=%d", nhosts);
        argv[k++] = la_strdup("--ntasks-per-node=1");
        argv[k++] = la_strdup("--kill-on-bad-exit=1");
        argv[k++] = la_strdup("--cpu-bind=none");
        argv[k++] = la_strdup("--mpi=none");
        argv[k++] = la_strdup("--input=none");
        for (int i = 0; i < np; i++) argv[k++] = la_strdup(pa[i]);
        argv[k] = NULL;
        free_words(pa);
        free(list);
        int ne = 0;
        for (char **e = environ; *e; e++) ne++;
        char **envp = la_malloc(sizeof(char *) * (size_t)(ne + 2));
        int m = 0;
        for (char **e = environ; *e; e++)
            if (strncmp(*e, LA_SECRET_ENV "=", sizeof LA_SECRET_ENV)) envp[m++] = *e;
        char *sec = la_asprintf("%s=%s", LA_SECRET_ENV, secret_hex);
        envp[m++] = sec;
        envp[m] = NULL;
        int rc = run_launcher(l, argv, envp, 0, mask, &out[0], err, errlen);
        free(sec);
        free(envp);
        free_words(argv);
        return rc < 0 ? -1 : 1;
    }
    int started = 0;
    for (int h = 0; h < nhosts; h++) {
        int np;
        char **pa = proxy_args(l, first_id + h, ssh_peer && l->kind == LA_LAUNCH_SSH, 0, &np);
        char **argv;
        if (l->kind == LA_LAUNCH_FORK) {
            argv = pa;
        } else {
            /* one shell command for the remote side */
            size_t len = 8;
            char **q = la_malloc(sizeof(char *) * (size_t)np);
            for (int i = 0; i < np; i++) {
                q[i] = la_shell_quote(pa[i]);
                len += strlen(q[i]) + 1;
            }
            char *cmd = la_malloc(len);
            strcpy(cmd, "exec");
            for (int i = 0; i < np; i++) {
                strcat(cmd, " ");
                strcat(cmd, q[i]);
                free(q[i]);
            }
            free(q);
            free_words(pa);
            argv = la_malloc(sizeof(char *) * 13);
            int k = 0;
            argv[k++] = la_strdup(l->exec ? l->exec : l->kind == LA_LAUNCH_SSH ? "ssh" : "rsh");
            if (l->kind == LA_LAUNCH_SSH) argv[k++] = la_strdup("-x");
            if (l->kind == LA_LAUNCH_SSH && l->fast_kex) {
                argv[k++] = la_strdup("-o");
                argv[k++] = la_strdup("KexAlgorithms=" LA_SSH_KEX);
            }
            if (l->kind == LA_LAUNCH_SSH && l->persist_s > 0 && l->control_dir) {
                /* the first job to a host leaves a master connection behind
                 * (in its own session: ssh daemonizes it); later ones reuse it */
                argv[k++] = la_strdup("-o");
                argv[k++] = la_strdup("ControlMaster=auto");
                argv[k++] = la_strdup("-o");
                argv[k++] = la_asprintf("ControlPath=%s/%%C", l->control_dir);
                argv[k++] = la_strdup("-o");
                argv[k++] = la_asprintf("ControlPersist=%d", l->persist_s);
            }
            argv[k++] = la_strdup(hosts[h]);
            argv[k++] = cmd;
            argv[k] = NULL;
        }
        int rc = run_launcher(l, argv, environ, 1, mask, &out[started], err, errlen);
        free_words(argv);
        if (rc < 0) return -1;
        /* the secret and a newline; a fresh pipe takes it without blocking */
        char line[2 * LA_SECRET_BYTES + 2];
        int n = snprintf(line, sizeof line, "%s\n", secret_hex);
        if (write(out[started].stdin_w, line, (size_t)n) != n) {
            /* the launcher died at once; its exit status will tell */
        }
        started++;
    }
    return started;
}

char *la_ssh_control_dir(char *err, size_t errlen)
{
    const char *run = getenv("XDG_RUNTIME_DIR");
    char *dir = run && *run == '/' ? la_asprintf("%s/courier-ssh", run)
                                   : la_asprintf("/tmp/courier-ssh-%d", (int)getuid());
    struct stat st;
    if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot make %s for ssh's control sockets: %s", dir, strerror(errno));
    } else if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() || (st.st_mode & 077)) {
        snprintf(err, errlen, "%s (for ssh's control sockets) is not a directory of ours with mode 0700", dir);
    } else {
        return dir;
    }
    free(dir);
    return NULL;
}

/* ---- addresses and connections ------------------------------------------------------ */

int la_listen_any(int *port)
{
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
        int off = 0, on = 1;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = in6addr_any };
        if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, LA_LISTEN_BACKLOG) == 0) {
            socklen_t len = sizeof a;
            getsockname(fd, (struct sockaddr *)&a, &len);
            *port = ntohs(a.sin6_port);
            return fd;
        }
        close(fd);
    }
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, LA_LISTEN_BACKLOG) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    *port = ntohs(a.sin_port);
    return fd;
}

char *la_local_addrs(const char *iface, char *err, size_t errlen)
{
    struct ifaddrs *ifs = NULL;
    char *list = la_strdup("");
    if (getifaddrs(&ifs) < 0) ifs = NULL;
    /* pass 0: IPv4 not loopback; 1: IPv6 global; 2: loopback */
    for (int pass = 0; pass < 3; pass++) {
        for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
            if (!i->ifa_addr || !(i->ifa_flags & IFF_UP)) continue;
            if (iface && strcmp(i->ifa_name, iface)) continue;
            int fam = i->ifa_addr->sa_family, loop = (i->ifa_flags & IFF_LOOPBACK) != 0;
            char a[INET6_ADDRSTRLEN];
            if (fam == AF_INET) {
                if ((pass == 2) != loop || pass == 1) continue;
                inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, a, sizeof a);
            } else if (fam == AF_INET6) {
                struct in6_addr *x = &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr;
                if (pass != 1 || loop || IN6_IS_ADDR_LINKLOCAL(x) || IN6_IS_ADDR_LOOPBACK(x)) continue;
                inet_ntop(AF_INET6, x, a, sizeof a);
            } else {
                continue;
            }
            char *n = la_asprintf("%s%s%s", list, *list ? "," : "", a);
            free(list);
            list = n;
        }
    }
    if (ifs) freeifaddrs(ifs);
    if (iface && !*list) {
        snprintf(err, errlen, "network interface \"%s\" has no address (see ip addr)", iface);
        free(list);
        return NULL;
    }
    if (!*list) {
        free(list);
        list = la_strdup("127.0.0.1");
    }
    return list;
}

/* Non-blocking connect to one address, waiting up to ms. */
static int connect_one(const char *addr, int port, long long ms)
{
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
    if (getaddrinfo(addr, ps, &hints, &res)) return -1;
    int fd = -1;
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) continue;
        int r = connect(fd, ai->ai_addr, ai->ai_addrlen);
        if (r < 0 && errno == EINPROGRESS) {
            struct pollfd pf = { .fd = fd, .events = POLLOUT };
            int e = 0;
            socklen_t el = sizeof e;
            if (poll(&pf, 1, (int)ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0)
                r = 0;
            else if (e)
                errno = e;
            else
                errno = ETIMEDOUT;
        }
        if (r < 0) {
            int e = errno;
            close(fd);
            errno = e;
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

int la_connect_any(const char *addrs, int port, long long deadline_ms, char **used, char *err, size_t errlen)
{
    char *copy = la_strdup(addrs), *save = NULL;
    int fd = -1;
    err[0] = '\0';
    for (char *a = strtok_r(copy, ",", &save); a && fd < 0; a = strtok_r(NULL, ",", &save)) {
        long long left = deadline_ms - la_now_ms();
        if (left <= 0) break;
        fd = connect_one(a, port, left < LA_CONNECT_TRY_MS ? left : LA_CONNECT_TRY_MS);
        if (fd >= 0) {
            *used = la_strdup(a);
            int on = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
            setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
        } else {
            size_t o = strlen(err);
            snprintf(err + o, errlen - o, "%s%s:%d: %s", o ? "; " : "", a, port, strerror(errno));
        }
    }
    free(copy);
    if (fd < 0 && !err[0]) snprintf(err, errlen, "no address of mpiexec answered in time");
    return fd;
}
