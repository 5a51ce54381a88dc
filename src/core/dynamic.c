/* SPDX-License-Identifier: MIT */
/* Dynamic processes (MPI 4.0 chapter 11): ports, accept / connect / join,
 * spawn, the parent intercommunicator and disconnect.
 *
 * A port is a TCP socket this process listens on; its name carries the host
 * name, the TCP port and 16 random hex digits that a connecting root must
 * present ("courier-port:<host>:<port>:<nonce>").  The socket only carries
 * the handshake: the two roots swap their groups' tables over it (each
 * process's network address and its next free context id), each root
 * broadcasts the other side's table in its group.  Then every process
 * reserves peer numbers for the remote processes (cr_chan_reserve_peers) and
 * the groups settle the context id as every communicator constructor does
 * (cr_ctx_settle_rounds, comm.c), each settling round carrying the first
 * reserved number of every process through the same exchange; so two
 * threads of a process that connect at once neither take the same id nor
 * count on the same peer numbers.  Every process then adds the remote
 * processes to its network transport (tr_add_peer, cr_chan_bind_peer) and
 * builds the intercommunicator with intercomm.c's cr_inter_make.  All traffic after
 * that goes through the network transport (ofi), which a process starts
 * alone at its first dynamic call when its job did not need it.
 *
 * MPI_Comm_join runs the same handshake over the user's socket; spawn asks
 * the launcher (crpmi_spawn) for a new job whose processes get the parent
 * root's port in COURIER_PARENT_PORT and connect to it inside MPI_Init. */
#define _GNU_SOURCE
#include "core/api_dyn.h"
#include "core/attr.h"
#include "core/comm_priv.h"
#include "core/check.h"
#include "core/dynamic.h"
#include "core/pt2pt.h"
#include "core/threads.h"
#include "pmi/pmi.h"
#include "util/settings.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PORT_PREFIX "courier-port:"
#define NONCE_HEX 16
#define HS_MAGIC 0x43524459   /* "CRDY" */
#define HS_VERSION 2        /* 2: settling rounds follow the tables */
/* One process's row in the handshake tables, in ints. */
enum { ROW_CTX, ROW_BASE, ROW_OK, ROW_JOB, ROW_RANK, ROW_ALEN, ROW_ADDR,
       ROW_INTS = ROW_ADDR + TR_ADDR_MAX / 4 };
_Static_assert(TR_ADDR_MAX % 4 == 0, "addresses are carried in ints");

/* This process's network address into its row (ROW_OK, ROW_ALEN, ROW_ADDR)
 * when net, the network interface cr_net_up gave (channel 0's), is there.
 * Threads on channel 0's channel path use the same endpoint: it is asked
 * through the channel's locked view. */
static void row_address(tr_iface_t *net, int *row)
{
    size_t alen = 0;
    if (net && tr_my_address(cr_chan_net_shared(&cr_chan0), &row[ROW_ADDR], &alen) == TR_OK) {
        row[ROW_OK] = 1;
        row[ROW_ALEN] = (int)alen;
    }
}

/* ---- ports -------------------------------------------------------------------------- */
typedef struct dyn_port {
    struct dyn_port *next;
    int fd;
    char name[MPI_MAX_PORT_NAME];
} dyn_port_t;
static dyn_port_t *ports;
static cr_comm_t *parent;     /* MPI_Comm_get_parent */


static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* poll() without the library lock, so that other threads keep going while
 * a root waits for the other side (threads.h). */
static int poll_unlocked(struct pollfd *pf, int n, int ms)
{
    int depth = cr_lib_release_all();
    int rc = poll(pf, (nfds_t)n, ms);
    int e = errno;
    cr_lib_reacquire(depth);
    errno = e;
    return rc;
}

static dyn_port_t *port_find(const char *name)
{
    for (dyn_port_t *p = ports; p; p = p->next)
        if (!strcmp(p->name, name)) return p;
    return NULL;
}

/* Open a port: MPI_SUCCESS and *out, or an error. */
static int port_open(dyn_port_t **out)
{
    dyn_port_t *p = calloc(1, sizeof *p);
    if (!p) return cr_error(MPI_ERR_NO_MEM, "MPI_Open_port: out of memory");
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t sl = sizeof sa;
    unsigned char rnd[NONCE_HEX / 2];
    p->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (p->fd < 0 || bind(p->fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        listen(p->fd, (int)ut_settings.dyn_port_backlog) < 0 ||
        getsockname(p->fd, (struct sockaddr *)&sa, &sl) < 0 ||
        getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd) {
        int e = errno;
        if (p->fd >= 0) close(p->fd);
        free(p);
        return cr_error(MPI_ERR_OTHER, "MPI_Open_port: cannot listen on a TCP socket: %s",
                        strerror(e));
    }
    int n = snprintf(p->name, sizeof p->name, PORT_PREFIX "%s:%u:", cr_proc.hostname,
                     (unsigned)ntohs(sa.sin_port));
    for (size_t i = 0; i < sizeof rnd; i++)
        n += snprintf(p->name + n, sizeof p->name - (size_t)n, "%02x", rnd[i]);
    p->next = ports;
    ports = p;
    *out = p;
    return MPI_SUCCESS;
}

static void port_close(dyn_port_t *p)
{
    for (dyn_port_t **pp = &ports; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    close(p->fd);
    free(p);
}

int core_open_port(cr_info_t *info, char *port_name)
{
    (void)info;
    dyn_port_t *p;
    int err = port_open(&p);
    if (err) return err;
    snprintf(port_name, MPI_MAX_PORT_NAME, "%s", p->name);
    return MPI_SUCCESS;
}

int core_close_port(const char *port_name)
{
    dyn_port_t *p = port_find(port_name);
    if (!p)
        return cr_error(MPI_ERR_PORT, "MPI_Close_port: port_name=\"%.300s\" is not a port this "
                        "process opened", port_name);
    port_close(p);
    return MPI_SUCCESS;
}

void cr_dyn_finalize(void)
{
    while (ports) port_close(ports);
    parent = NULL;
}

/* ---- socket helpers ---------------------------------------------------------------- */
/* Send out[0..olen) and receive in[0..ilen) at once (both sides may write
 * first), by deadline (-1: none, while the launcher is there; the other
 * group's root answers only once all its processes are in the call, which
 * for freshly spawned ones may take long on a loaded machine).  0, or -1
 * with the reason in why. */
static int sock_swap(int fd, const void *out, size_t olen, void *in, size_t ilen,
                     long long deadline, char *why, size_t wlen)
{
    size_t sent = 0, got = 0;
    while (sent < olen || got < ilen) {
        struct pollfd pf = { fd, (short)((got < ilen ? POLLIN : 0) | (sent < olen ? POLLOUT : 0)), 0 };
        long long left = deadline < 0 ? ut_settings.dyn_poll_ms : deadline - now_ms();
        if (left <= 0) {
            snprintf(why, wlen, "the other side did not answer in time "
                     "(COURIER_DYN_CONNECT_TIMEOUT_MS, COURIER_DYN_ACCEPT_TIMEOUT_MS)");
            return -1;
        }
        if (deadline < 0 && crpmi_check(why, wlen) != 0) return -1;
        if (left > ut_settings.dyn_poll_ms) left = ut_settings.dyn_poll_ms;
        int rc = poll_unlocked(&pf, 1, (int)left);
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) {
            snprintf(why, wlen, "poll: %s", strerror(errno));
            return -1;
        }
        if (pf.revents & POLLOUT && sent < olen) {
            ssize_t k = send(fd, (const char *)out + sent, olen - sent, MSG_NOSIGNAL);
            if (k < 0 && errno != EAGAIN && errno != EINTR) {
                snprintf(why, wlen, "send: %s", strerror(errno));
                return -1;
            }
            if (k > 0) sent += (size_t)k;
        }
        if (pf.revents & (POLLIN | POLLHUP | POLLERR) && got < ilen) {
            ssize_t k = recv(fd, (char *)in + got, ilen - got, 0);
            if (k == 0) {
                snprintf(why, wlen, "the other side closed the connection");
                return -1;
            }
            if (k < 0 && errno != EAGAIN && errno != EINTR) {
                snprintf(why, wlen, "recv: %s", strerror(errno));
                return -1;
            }
            if (k > 0) got += (size_t)k;
        }
    }
    return 0;
}

/* Split a port name into host, TCP port and nonce; -1 when it is not one. */
static int port_parse(const char *name, char *host, size_t hlen, unsigned *tcp, char *nonce)
{
    if (strncmp(name, PORT_PREFIX, strlen(PORT_PREFIX))) return -1;
    const char *h = name + strlen(PORT_PREFIX), *c = strrchr(h, ':');
    if (!c || strlen(c + 1) != NONCE_HEX) return -1;
    memcpy(nonce, c + 1, NONCE_HEX + 1);
    const char *c2 = c - 1;
    while (c2 > h && *c2 != ':') c2--;
    if (c2 <= h || (size_t)(c2 - h) >= hlen) return -1;
    memcpy(host, h, (size_t)(c2 - h));
    host[c2 - h] = '\0';
    char *end;
    unsigned long v = strtoul(c2 + 1, &end, 10);
    if (end != c || v == 0 || v > 65535) return -1;
    *tcp = (unsigned)v;
    return 0;
}

/* Connect to the port (retrying while nobody listens yet, until deadline)
 * and present its nonce.  The socket, or -1 with the reason in why. */
static int port_dial(const char *name, long long deadline, char *why, size_t wlen)
{
    char host[256], nonce[NONCE_HEX + 1], service[16];
    unsigned tcp;
    if (port_parse(name, host, sizeof host, &tcp, nonce) < 0) {
        snprintf(why, wlen, "\"%.300s\" is not a port name (MPI_Open_port gives one)", name);
        return -1;
    }
    snprintf(service, sizeof service, "%u", tcp);
    /* our own host: the loopback address, whatever the name resolves to */
    const char *target = strcmp(host, cr_proc.hostname) ? host : "127.0.0.1";
    for (;;) {
        struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai = NULL;
        int gai = getaddrinfo(target, service, &hints, &ai);
        if (gai) {
            snprintf(why, wlen, "cannot resolve host %s of the port: %s", host, gai_strerror(gai));
            return -1;
        }
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int rc = fd < 0 ? -1 : connect(fd, ai->ai_addr, ai->ai_addrlen);
        int e = errno;
        freeaddrinfo(ai);
        if (rc == 0) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            char dummy[NONCE_HEX];
            if (sock_swap(fd, nonce, NONCE_HEX, dummy, 0, deadline, why, wlen) < 0) {
                close(fd);
                return -1;
            }
            return fd;
        }
        if (fd >= 0) close(fd);
        if ((e != ECONNREFUSED && e != EAGAIN) || now_ms() >= deadline) {
            snprintf(why, wlen, "nobody accepts on port %s:%u: %s", host, tcp, strerror(e));
            return -1;
        }
        poll_unlocked(NULL, 0, (int)ut_settings.dyn_poll_ms);
    }
}

/* Wait for a connection on the port that presents its nonce.  The socket, or
 * -1 with the reason in why.  spawned: the connection is to come from the job
 * just spawned, so stop waiting when that job has ended. */
static int port_take(dyn_port_t *p, int spawned, char *why, size_t wlen)
{
    long long deadline = ut_settings.dyn_accept_timeout_ms > 0
                             ? now_ms() + ut_settings.dyn_accept_timeout_ms : -1;
    const char *nonce = strrchr(p->name, ':') + 1;
    for (;;) {
        struct pollfd pf = { p->fd, POLLIN, 0 };
        int rc = poll_unlocked(&pf, 1, (int)ut_settings.dyn_poll_ms);
        if (rc < 0 && errno != EINTR) {
            snprintf(why, wlen, "poll: %s", strerror(errno));
            return -1;
        }
        char lost[256];
        if (crpmi_check(lost, sizeof lost) != 0) {
            snprintf(why, wlen, "%s", lost);
            return -1;
        }
        if (rc == 0 && spawned && crpmi_spawn_ended() == 1) {
            snprintf(why, wlen, "the spawned processes ended without connecting to the parents "
                     "(is the program an MPI program that calls MPI_Init?)");
            return -1;
        }
        if (rc > 0) {
            int fd = accept4(p->fd, NULL, NULL, SOCK_CLOEXEC);
            if (fd >= 0) {
                char got[NONCE_HEX];
                char ignore[128];
                int one = 1;
                setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                if (sock_swap(fd, NULL, 0, got, NONCE_HEX,
                              now_ms() + ut_settings.dyn_connect_timeout_ms, ignore,
                              sizeof ignore) == 0 &&
                    !memcmp(got, nonce, NONCE_HEX))
                    return fd;
                close(fd);   /* not a Courier root that knows the port: ignore it */
            }
        }
        if (deadline >= 0 && now_ms() >= deadline) {
            snprintf(why, wlen, "nobody connected within %ld ms (COURIER_DYN_ACCEPT_TIMEOUT_MS)",
                     ut_settings.dyn_accept_timeout_ms);
            return -1;
        }
    }
}

/* ---- the handshake -------------------------------------------------------------------- */
typedef struct {
    uint32_t magic;
    int32_t n;          /* rows that follow */
    int32_t ok;         /* every process of the group has a network address */
    int32_t version;    /* HS_VERSION */
} hs_hdr_t;

/* The root's part: swap headers and tables with the other root over fd.
 * answer_by: the deadline of the other root's header (MPI_Comm_connect: the
 * port's owner has taken the connection only when it answers; a connection
 * that the port's listen queue holds while nobody accepts gets no answer),
 * -1 for the accept timeout.  Returns 0 (*rtab malloc'd, *rn rows) or an MPI
 * error class with the reason in why. */
static int root_swap(int fd, const int *ltab, int ln, int lok, long long answer_by, int **rtab,
                     int *rn, char *why, size_t wlen)
{
    long long deadline = ut_settings.dyn_accept_timeout_ms > 0
                             ? now_ms() + ut_settings.dyn_accept_timeout_ms : -1;
    hs_hdr_t mine = { HS_MAGIC, ln, lok, HS_VERSION }, theirs;
    if (sock_swap(fd, &mine, sizeof mine, &theirs, sizeof theirs,
                  answer_by >= 0 ? answer_by : deadline, why, wlen) < 0) {
        if (answer_by >= 0 && now_ms() >= answer_by)
            snprintf(why, wlen, "nobody accepted the connection in time (info key \"timeout\", "
                     "COURIER_DYN_CONNECT_TIMEOUT_MS)");
        return MPI_ERR_PORT;
    }
    if (theirs.magic != HS_MAGIC || theirs.version != HS_VERSION || theirs.n < 1) {
        snprintf(why, wlen, "the other side is not a Courier process (bad handshake)");
        return MPI_ERR_PORT;
    }
    if (!theirs.ok || !lok) {
        snprintf(why, wlen, "%s group has a process without a network transport (libfabric)",
                 lok ? "the remote" : "this");
        return MPI_ERR_OTHER;
    }
    int *r = malloc((size_t)theirs.n * ROW_INTS * sizeof(int));
    if (!r) {
        snprintf(why, wlen, "out of memory");
        return MPI_ERR_NO_MEM;
    }
    if (sock_swap(fd, ltab, (size_t)ln * ROW_INTS * sizeof(int), r,
                  (size_t)theirs.n * ROW_INTS * sizeof(int), deadline, why, wlen) < 0) {
        free(r);
        return MPI_ERR_PORT;
    }
    *rtab = r;
    *rn = theirs.n;
    return 0;
}

/* A settling round of the context id (cr_ctx_settle_rounds) over both groups:
 * each process contributes (could take the id, next free id, the first peer
 * number it reserved for the remote group), the group gathers them, the roots
 * swap the tables over fd and broadcast the other side's.  out as the
 * settling wants it; rbase[j] receives remote process j's first number. */
typedef struct {
    cr_comm_t *lc;
    int root, fd;          /* fd: the root's socket to the other root */
    int base, rn;          /* my first reserved number; remote group size */
    int *rbase;
    const char *fname;
} dyn_round_t;

static int dyn_round(void *arg, const int in[2], int out[2])
{
    dyn_round_t *a = arg;
    cr_comm_t *lc = a->lc;
    int row[3] = { in[0], in[1], a->base };
    int *lt = malloc((size_t)lc->size * 3 * sizeof(int)), *rt = malloc((size_t)a->rn * 3 * sizeof(int));
    int err = lt && rt ? MPI_SUCCESS : cr_error(MPI_ERR_NO_MEM, "%s: out of memory", a->fname);
    if (!err) err = cr_comm_allgather_ints(lc, row, 3, lt, CR_TAG_CTX);
    int st = 0;
    char why[512] = "";
    if (!err && lc->rank == a->root) {
        long long deadline = ut_settings.dyn_accept_timeout_ms > 0
                                 ? now_ms() + ut_settings.dyn_accept_timeout_ms : -1;
        if (sock_swap(a->fd, lt, (size_t)lc->size * 3 * sizeof(int), rt,
                      (size_t)a->rn * 3 * sizeof(int), deadline, why, sizeof why) < 0)
            st = MPI_ERR_PORT;
    }
    if (!err) err = cr_comm_bcast_ints(lc, a->root, &st, 1, CR_TAG_INTER);
    if (!err && st)
        err = cr_error(st, "%s: %s", a->fname,
                       lc->rank == a->root ? why : "the root lost the other side");
    if (!err) err = cr_comm_bcast_ints(lc, a->root, rt, a->rn * 3, CR_TAG_INTER);
    if (!err) {
        out[0] = 1;
        out[1] = 0;
        for (int i = 0; i < lc->size; i++) {
            out[0] &= lt[3 * i];
            out[1] = lt[3 * i + 1] > out[1] ? lt[3 * i + 1] : out[1];
        }
        for (int j = 0; j < a->rn; j++) {
            out[0] &= rt[3 * j];
            out[1] = rt[3 * j + 1] > out[1] ? rt[3 * j + 1] : out[1];
            a->rbase[j] = rt[3 * j + 2];
        }
    }
    free(lt);
    free(rt);
    return err;
}

/* Build the intercommunicator between lc's group and the group whose root is
 * at the other end of fd (used at lc's root only; -1 there when the root
 * failed before, with the reason in root_why and class root_err); answer_by
 * as root_swap's.  Collective over lc. */
static int dyn_bridge(cr_comm_t *lc, int root, int fd, int root_err, const char *root_why,
                      long long answer_by, const char *fname, cr_comm_t **out)
{
    *out = NULL;
    int row[ROW_INTS] = { 0 };
    tr_iface_t *net = cr_net_up();
    row[ROW_CTX] = cr_ctx_offer(0);
    row[ROW_JOB] = cr_proc.job_id;      /* ROW_BASE: in the settling rounds */
    row[ROW_RANK] = cr_proc.world_rank;
    row_address(net, row);
    int *ltab = malloc((size_t)lc->size * ROW_INTS * sizeof(int)), *rtab = NULL;
    if (!ltab) return cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    cr_ctx_agreeing++;
    int err = cr_comm_allgather_ints(lc, row, ROW_INTS, ltab, CR_TAG_CTX);
    /* hdr: error class (0: fine), remote size */
    int hdr[2] = { 0, 0 };
    char why[512] = "";
    if (!err && lc->rank == root) {
        int lok = 1;
        for (int i = 0; i < lc->size; i++) lok &= ltab[i * ROW_INTS + ROW_OK];
        if (fd < 0) {
            hdr[0] = root_err;
            snprintf(why, sizeof why, "%s", root_why);
        } else {
            hdr[0] = root_swap(fd, ltab, lc->size, lok, answer_by, &rtab, &hdr[1], why,
                               sizeof why);
        }
    }
    if (!err) err = cr_comm_bcast_ints(lc, root, hdr, 2, CR_TAG_INTER);
    if (!err && hdr[0] == 0 && lc->rank != root &&
        !(rtab = malloc((size_t)hdr[1] * ROW_INTS * sizeof(int))))
        err = cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    if (!err && hdr[0] == 0) err = cr_comm_bcast_ints(lc, root, rtab, hdr[1] * ROW_INTS, CR_TAG_INTER);
    cr_ctx_agreeing--;
    if (!err && hdr[0] != 0)
        err = cr_error(hdr[0], "%s: %s", fname,
                       lc->rank == root ? why : "the root could not reach the other side");
    if (err) {
        free(ltab);
        free(rtab);
        return err;
    }
    int rsize = hdr[1];
    uint32_t ctx = 0;
    for (int i = 0; i < lc->size; i++)
        if ((uint32_t)ltab[i * ROW_INTS + ROW_CTX] > ctx) ctx = (uint32_t)ltab[i * ROW_INTS + ROW_CTX];
    for (int i = 0; i < rsize; i++)
        if ((uint32_t)rtab[i * ROW_INTS + ROW_CTX] > ctx) ctx = (uint32_t)rtab[i * ROW_INTS + ROW_CTX];
    /* peer numbers for the remote processes, taken at once (the lock is
     * held): another thread's connection cannot count on the same ones */
    int *rbase = malloc((size_t)rsize * sizeof(int));
    dyn_round_t a = { lc, root, fd, cr_chan_reserve_peers(&cr_chan0, rsize), rsize, rbase, fname };
    if (!rbase) err = cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    else err = cr_ctx_settle_rounds(dyn_round, &a, 2, &ctx);
    /* from here on a failure is this process's own (lerr): the groups still
     * meet once more below, so that all of them report it */
    int lerr = err || a.base >= 0 ? MPI_SUCCESS : cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    cr_group_t *remote = err || lerr ? NULL : cr_group_new(rsize);
    if (!err && !lerr && !remote) lerr = cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    for (int j = 0; !err && !lerr && j < rsize; j++) {
        const int *rr = &rtab[j * ROW_INTS];
        /* remote process j numbers our group from its own first reserved number */
        if (cr_chan_bind_peer(&cr_chan0, a.base + j, net, &rr[ROW_ADDR], (size_t)rr[ROW_ALEN],
                              rbase[j] + lc->rank) < 0)
            lerr = cr_error(MPI_ERR_OTHER, "%s: cannot reach remote process %d through the "
                            "network transport", fname, j);
        else
            remote->world[j] = a.base + j;
    }
    /* a barrier over both groups: no process sends on the new
     * intercommunicator before every process of either group can take it in
     * (a message from a peer number reserved but not yet reached could not be
     * answered) */
    if (!err) {
        int in[2] = { lerr == MPI_SUCCESS, 0 }, all[2];
        err = dyn_round(&a, in, all);
        if (!err && lerr) err = lerr;
        else if (!err && !all[0])
            err = cr_error(MPI_ERR_OTHER, "%s: a process of either group could not reach the "
                           "other group", fname);
    }
    free(ltab);
    free(rtab);
    free(rbase);
    if (err) {
        if (remote) cr_group_release(remote);
        return err;
    }
    cr_group_retain(lc->group);
    return cr_inter_make(lc->group, remote, ctx, lc->errh, out);
}

/* dyn_bridge for a socket of our own (closed after it), the new
 * intercommunicator's handle into *out. */
static int bridge_own(cr_comm_t *lc, int root, int fd, int root_err, const char *root_why,
                      long long answer_by, const char *fname, MPI_Comm *out)
{
    cr_comm_t *c;
    int err = dyn_bridge(lc, root, fd, root_err, root_why, answer_by, fname, &c);
    if (fd >= 0) close(fd);
    if (!err) *out = c->handle;
    return err;
}

int cr_dyn_row_ints(void)
{
    return ROW_INTS;
}

void cr_dyn_row(int *row)
{
    memset(row, 0, ROW_INTS * sizeof(int));
    tr_iface_t *net = cr_net_up();
    row[ROW_BASE] = cr_chan0.nvc;
    row[ROW_JOB] = cr_proc.job_id;
    row[ROW_RANK] = cr_proc.world_rank;
    row_address(net, row);
}

/* Remote process j of another job becomes peer base + (the number of other-job
 * processes before it in the remote table), and it numbers this process the
 * same way: its base + the other-job processes (for it) before us in ours. */
int cr_dyn_peers_from(const int *ids, const int *rows, int ln, int me, const int *rids,
                      const int *rrows, int rn, int id_stride, int *peers, const char *fname)
{
    tr_iface_t *net = cr_net_up();
    int mybase = rows[me * ROW_INTS + ROW_BASE], k = 0;
    for (int j = 0; j < rn; j++) {
        int job = rids[j * id_stride], rank = rids[j * id_stride + 1];
        if (job == cr_proc.job_id) {
            peers[j] = rank;
            continue;
        }
        const int *rr = &rrows[j * ROW_INTS];
        int before = 0;   /* processes of our table that are foreign to j, before us */
        for (int i = 0; i < me; i++) before += ids[i * id_stride] != job;
        int peer = net && rr[ROW_OK] ? cr_chan_add_peer(&cr_chan0, net, &rr[ROW_ADDR],
                                                        (size_t)rr[ROW_ALEN],
                                                        rr[ROW_BASE] + before) : -1;
        peers[j] = peer;
        if (peer != mybase + k++)
            return cr_error(MPI_ERR_OTHER, "%s: cannot reach remote process %d (world rank %d "
                            "of another job) through the network transport", fname, j, rank);
    }
    (void)ln;
    return MPI_SUCCESS;
}

/* Check root and comm of accept / connect / spawn. */
static int check_root(const char *fname, int root, cr_comm_t *comm)
{
    if (comm->remote)
        return cr_error(MPI_ERR_COMM, "%s: comm is an intercommunicator", fname);
    if (root < 0 || root >= comm->size)
        return cr_error(MPI_ERR_ROOT, "%s: root=%d: invalid rank (comm size is %d)", fname, root,
                        comm->size);
    return MPI_SUCCESS;
}

int core_comm_accept(const char *port_name, cr_info_t *info, int root, cr_comm_t *comm,
                     MPI_Comm *newcomm)
{
    (void)info;
    *newcomm = MPI_COMM_NULL;
    int err = check_root("MPI_Comm_accept", root, comm);
    if (err) return err;
    int fd = -1, rerr = 0;
    char why[512] = "";
    if (comm->rank == root) {
        dyn_port_t *p = port_find(port_name);
        if (!p) {
            rerr = MPI_ERR_PORT;
            snprintf(why, sizeof why, "port_name=\"%.300s\" is not a port this process opened",
                     port_name);
        } else if ((fd = port_take(p, 0, why, sizeof why)) < 0) {
            rerr = MPI_ERR_PORT;
        }
    }
    return bridge_own(comm, root, fd, rerr, why, -1, "MPI_Comm_accept", newcomm);
}

/* How long MPI_Comm_connect waits for an accept, in ms: the info key
 * "timeout" (seconds, as MPICH reads it) at the root, else the setting. */
static long long connect_timeout_ms(const cr_info_t *info)
{
    const char *v = info ? cr_info_get(info, "timeout") : NULL;
    char *end;
    long long s = v ? strtoll(v, &end, 10) : 0;
    if (v && end != v && *end == '\0' && s > 0 && s <= INT32_MAX / 1000) return s * 1000;
    return ut_settings.dyn_connect_timeout_ms;
}

int core_comm_connect(const char *port_name, cr_info_t *info, int root, cr_comm_t *comm,
                      MPI_Comm *newcomm)
{
    *newcomm = MPI_COMM_NULL;
    int err = check_root("MPI_Comm_connect", root, comm);
    if (err) return err;
    int fd = -1;
    char why[512] = "";
    long long deadline = now_ms() + connect_timeout_ms(info);
    if (comm->rank == root) fd = port_dial(port_name, deadline, why, sizeof why);
    return bridge_own(comm, root, fd, MPI_ERR_PORT, why, deadline, "MPI_Comm_connect", newcomm);
}

int core_comm_join(int fd, MPI_Comm *intercomm)
{
    *intercomm = MPI_COMM_NULL;
    int ok = fd >= 0 && fcntl(fd, F_GETFD) >= 0;
    cr_comm_t *c;
    int err = dyn_bridge(&cr_comm_self, 0, ok ? fd : -1, MPI_ERR_ARG,
                         "fd is not an open file descriptor", -1, "MPI_Comm_join", &c);
    if (!err) *intercomm = c->handle;
    return err;
}

/* ---- disconnect and the parent ------------------------------------------------------ */
/* A barrier over both groups of an intercommunicator (or over an
 * intracommunicator): the local groups meet, their first ranks meet, the
 * local groups meet again. */
static int inter_barrier(cr_comm_t *c)
{
    if (!c->remote) return cr_barrier_internal(c);
    int err = cr_barrier_internal(c->local_comm);
    cr_datatype_t *dt = cr_datatype_ptr(MPI_INT);
    int out = 0, in = 0;
    if (!err && c->rank == 0)
        err = cr_sendrecv(&out, 1, dt, 0, CR_TAG_BARRIER, &in, 1, dt, 0, CR_TAG_BARRIER, c,
                          CR_CTX_COLL, MPI_STATUS_IGNORE);
    if (!err) err = cr_barrier_internal(c->local_comm);
    return err;
}

int core_comm_disconnect(MPI_Comm *comm)
{
    cr_comm_t *c = cr_comm_ptr(*comm);
    if (!c || *comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return cr_error(MPI_ERR_COMM, "MPI_Comm_disconnect: comm is %s", !c ? "not a valid "
                        "communicator" : "predefined and cannot be disconnected");
    /* every pending operation completes first: nobody passes the barrier
     * before every process started it, and each sends all it owes meanwhile */
    int err = inter_barrier(c);
    if (err) return err;
    if (c == parent) parent = NULL;
    err = cr_attr_delete_all(CR_K_COMM, c->handle, &c->attrs);
    if (err) return err;
    cr_comm_free_handle(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int core_comm_get_parent(MPI_Comm *out)
{
    *out = parent ? parent->handle : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int cr_dyn_child_init(void)
{
    const char *port = getenv("COURIER_PARENT_PORT");
    if (!port || !*port) return MPI_SUCCESS;
    char *copy = strdup(port);
    if (!copy) return cr_error(MPI_ERR_NO_MEM, "MPI_Init: out of memory");
    /* the children's own children must not take it for theirs */
    unsetenv("COURIER_PARENT_PORT");
    int fd = -1;
    char why[512] = "";
    if (cr_comm_world.rank == 0)
        fd = port_dial(copy, now_ms() + ut_settings.dyn_connect_timeout_ms, why, sizeof why);
    free(copy);
    int err = dyn_bridge(&cr_comm_world, 0, fd, MPI_ERR_SPAWN, why, -1,
                         "MPI_Init (connecting to the parents)", &parent);
    if (fd >= 0) close(fd);
    if (!err) snprintf(parent->name, sizeof parent->name, "MPI_COMM_PARENT");
    return err;
}

/* ---- spawn ------------------------------------------------------------------------------ */
/* A growing argument list. */
typedef struct {
    char **v;
    int n, cap;
} arglist_t;

static int arg_add(arglist_t *a, const char *s)
{
    if (a->n == a->cap) {
        int cap = a->cap ? 2 * a->cap : 32;
        char **v = realloc(a->v, (size_t)cap * sizeof(char *));
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    return (a->v[a->n++] = strdup(s)) ? 0 : -1;
}

static void arg_free(arglist_t *a)
{
    for (int i = 0; i < a->n; i++) free(a->v[i]);
    free(a->v);
}

/* An info value under any of its spellings (MPICH's, Open MPI's). */
static const char *info_any(const cr_info_t *info, const char *const *keys)
{
    const char *v = NULL;
    for (; info && !v && *keys; keys++) v = cr_info_get(info, *keys);
    return v;
}

/* The launcher's arguments for one command: -n, the info keys it honours
 * (hosts: host or add-host, else hostfile or add-hostfile; wdir; path), the
 * program and its arguments.  A command without hosts goes where the
 * launcher's mapping puts it (the job's host list). */
static int spawn_args(arglist_t *a, const char *command, char **argv, int maxprocs,
                      const cr_info_t *info)
{
    static const char *const host_keys[] = { "host", "add-host", NULL };
    static const char *const file_keys[] = { "hostfile", "add-hostfile", NULL };
    char num[32], cwd[4096], file[4096 + 256];
    const char *host = info_any(info, host_keys), *hostfile = info_any(info, file_keys);
    const char *wdir = info ? cr_info_get(info, "wdir") : NULL;
    const char *path = info ? cr_info_get(info, "path") : NULL;
    char prog[4096];
    snprintf(num, sizeof num, "%d", maxprocs);
    /* a program without a directory is looked up in the info's path first */
    if (path && !strchr(command, '/')) {
        snprintf(prog, sizeof prog, "%s/%s", path, command);
        if (access(prog, X_OK) != 0) snprintf(prog, sizeof prog, "%s", command);
    } else {
        snprintf(prog, sizeof prog, "%s", command);
    }
    /* relative names mean what they mean to the spawning process */
    int have_cwd = getcwd(cwd, sizeof cwd) != NULL;
    if (!wdir && have_cwd) wdir = cwd;
    if (!host && hostfile && hostfile[0] != '/' && have_cwd) {
        snprintf(file, sizeof file, "%s/%s", cwd, hostfile);
        hostfile = file;
    }
    int rc = arg_add(a, "-n") | arg_add(a, num);
    if (host) rc |= arg_add(a, "-hosts") | arg_add(a, host);
    else if (hostfile) rc |= arg_add(a, "-f") | arg_add(a, hostfile);
    if (wdir) rc |= arg_add(a, "-wdir") | arg_add(a, wdir);
    rc |= arg_add(a, prog);
    for (int i = 0; argv && argv[i]; i++) rc |= arg_add(a, argv[i]);
    return rc;
}

/* The settings the children get: the parent root's port, and the choice of
 * network provider (both sides must use the same). */
static int spawn_env(arglist_t *e, const char *port)
{
    char buf[MPI_MAX_PORT_NAME + 64];
    snprintf(buf, sizeof buf, "COURIER_PARENT_PORT=%s", port);
    int rc = arg_add(e, buf);
    static const char *const pass[] = { "FI_PROVIDER", "COURIER_OFI_PROVIDER" };
    for (size_t i = 0; i < sizeof pass / sizeof pass[0]; i++) {
        const char *v = getenv(pass[i]);
        if (!v) continue;
        char kv[512];
        snprintf(kv, sizeof kv, "%s=%s", pass[i], v);
        rc |= arg_add(e, kv);
    }
    return rc;
}

/* The common part of spawn and spawn_multiple. */
static int spawn_common(const char *fname, int count, char **commands, char ***argvs,
                        const int *maxprocs, cr_info_t **infos, int root, cr_comm_t *comm,
                        MPI_Comm *intercomm, int *errcodes)
{
    *intercomm = MPI_COMM_NULL;
    int err = check_root(fname, root, comm);
    if (err) return err;
    /* st: error class at the root (0: launched), total processes */
    int st[2] = { 0, 0 };
    char why[512] = "";
    dyn_port_t *port = NULL;
    if (comm->rank == root) {
        for (int i = 0; i < count; i++) {
            if (maxprocs[i] < 1) {
                st[0] = MPI_ERR_SPAWN;
                snprintf(why, sizeof why, "maxprocs=%d: must be at least 1", maxprocs[i]);
            }
            st[1] += maxprocs[i];
        }
        arglist_t a = { 0 }, e = { 0 };
        if (!st[0] && port_open(&port) != MPI_SUCCESS) {
            st[0] = MPI_ERR_SPAWN;
            snprintf(why, sizeof why, "cannot open a port for the children");
        }
        for (int i = 0; !st[0] && i < count; i++)
            if ((i > 0 && arg_add(&a, ":")) ||
                spawn_args(&a, commands[i], argvs ? argvs[i] : NULL, maxprocs[i],
                           infos ? infos[i] : NULL)) {
                st[0] = MPI_ERR_NO_MEM;
                snprintf(why, sizeof why, "out of memory");
            }
        if (!st[0] && spawn_env(&e, port->name)) {
            st[0] = MPI_ERR_NO_MEM;
            snprintf(why, sizeof why, "out of memory");
        }
        if (!st[0] && crpmi_spawn(a.v, a.n, e.v, e.n, why, sizeof why) != 0) st[0] = MPI_ERR_SPAWN;
        arg_free(&a);
        arg_free(&e);
    }
    err = cr_comm_bcast_ints(comm, root, st, 2, CR_TAG_INTER);
    if (!err && st[0]) {
        if (port) port_close(port);
        if (errcodes)
            for (int i = 0; i < st[1]; i++) errcodes[i] = MPI_ERR_SPAWN;
        return cr_error(st[0], "%s: %s", fname, comm->rank == root ? why
                        : "the root could not start the processes");
    }
    if (err) return err;
    int fd = -1, rerr = 0;
    if (comm->rank == root && (fd = port_take(port, 1, why, sizeof why)) < 0) rerr = MPI_ERR_SPAWN;
    err = bridge_own(comm, root, fd, rerr, why, -1, fname, intercomm);
    if (port) port_close(port);
    if (errcodes)
        for (int i = 0; i < st[1]; i++) errcodes[i] = err ? MPI_ERR_SPAWN : MPI_SUCCESS;
    return err;
}

int core_comm_spawn(const char *command, char *argv[], int maxprocs, cr_info_t *info, int root,
                    cr_comm_t *comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmd = (char *)command;
    return spawn_common("MPI_Comm_spawn", 1, &cmd, argv == MPI_ARGV_NULL ? NULL : &argv,
                        &maxprocs, &info, root, comm, intercomm, array_of_errcodes);
}

int core_comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, cr_comm_t *comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    cr_info_t **infos = NULL;
    if (comm->rank == root) {
        if (count < 1)
            return cr_error(MPI_ERR_ARG, "MPI_Comm_spawn_multiple: count=%d: must be at least 1",
                            count);
        infos = calloc((size_t)count, sizeof *infos);
        if (!infos) return cr_error(MPI_ERR_NO_MEM, "MPI_Comm_spawn_multiple: out of memory");
        for (int i = 0; i < count; i++) {
            if (array_of_info[i] == MPI_INFO_NULL) continue;
            infos[i] = cr_info_ptr(array_of_info[i]);
            if (!infos[i]) {
                free(infos);
                return cr_error(MPI_ERR_INFO, "MPI_Comm_spawn_multiple: array_of_info[%d] is "
                                "not a valid info object", i);
            }
        }
    }
    int err = spawn_common("MPI_Comm_spawn_multiple", count, array_of_commands,
                           array_of_argv == MPI_ARGVS_NULL ? NULL : array_of_argv,
                           array_of_maxprocs, infos, root, comm, intercomm, array_of_errcodes);
    free(infos);
    return err;
}
