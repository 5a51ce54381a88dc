/* SPDX-License-Identifier: MIT */
/* Liveness of the ranks on this node and of the launcher (see liveness.h).
 *
 * At MPI_Init every rank publishes pid:start:pidns with its node (start: the
 * start time in /proc/<pid>/stat, pidns: the inode of /proc/self/ns/pid;
 * init.c's find_local_ranks, which hands the values of the ranks on this
 * node to cr_liveness_peer).  The first check after start-up opens a pidfd
 * for each of them in the same pid
 * namespace whose start time still matches (so a recycled pid is never
 * mistaken for the rank).  A check is then one poll() over those pidfds (a
 * pidfd becomes readable when its process ends) plus crpmi_check().  Where
 * pidfd_open is missing (Linux < 5.3) kill(pid, 0) and the zombie state in
 * /proc stand in.
 *
 * A rank only ends normally after MPI_Finalize, and its MPI_Finalize only
 * ends after every rank entered it: so before this rank enters MPI_Finalize a
 * dead peer is always a failure, and after it a dead peer is one only when
 * the wait stays idle for CR_LIVENESS_FINALIZE_GRACE checks. */
#define _GNU_SOURCE
#include "core/liveness.h"
#include "core/core.h"
#include "pmi/pmi.h"
#include "util/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Checks (of COURIER_LIVENESS_MS each) a wait inside MPI_Finalize may stay
 * idle with a dead peer before that counts as a failure. */
#define CR_LIVENESS_FINALIZE_GRACE 20
/* Exit code of a job this module aborts. */
#define CR_LIVENESS_EXIT_CODE 1

typedef struct {
    int rank;          /* world rank */
    pid_t pid;
    int pidfd;         /* -1: watched with kill(pid, 0) */
} live_peer_t;

static struct {
    int enabled;
    int finalizing;
    int set_up;              /* peers read and opened */
    long last_ms;            /* time of the last check */
    long dead_since_ms;      /* in MPI_Finalize: when a dead peer was first seen */
    unsigned long long my_ns;
    char ident[64];          /* this process's pid:start:pidns */
    struct live_ident { int rank; char *ident; } *idents;   /* what this node's ranks published */
    int nidents, idents_cap;
    live_peer_t *peers;
    struct pollfd *pfds;
    int npeers;
} live;

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* State, start time and exit code (waitpid status, valid for a zombie) of a
 * process, from /proc/<pid>/stat.  Returns -1 when it cannot be read. */
static int proc_stat(pid_t pid, char *state, unsigned long long *start, int *exit_code)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');   /* the command name may hold anything */
    if (!p) return -1;
    p++;
    /* Fields after the name: 3 state ... 22 starttime ... 52 exit_code. */
    *exit_code = -1;
    for (int field = 3; field <= 52; field++) {
        while (*p == ' ') p++;
        if (!*p) return field > 22 ? 0 : -1;
        if (field == 3) *state = *p;
        if (field == 22) *start = strtoull(p, NULL, 10);
        if (field == 52) *exit_code = atoi(p);
        p += strcspn(p, " ");
    }
    return 0;
}

static unsigned long long pid_namespace(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* ---- start-up ---------------------------------------------------------------- */

void cr_liveness_init(void)
{
    live.enabled = 0;
    live.ident[0] = '\0';
    if (cr_proc.world_size < 2 || ut_settings.liveness_ms <= 0) return;
    char st = 0;
    unsigned long long start = 0;
    int code;
    live.my_ns = pid_namespace();
    if (proc_stat(getpid(), &st, &start, &code) < 0) start = 0;
    snprintf(live.ident, sizeof live.ident, "%d:%llu:%llu", (int)getpid(), start, live.my_ns);
    live.idents = NULL;
    live.nidents = live.idents_cap = 0;
    live.enabled = 1;
    live.finalizing = 0;
    live.set_up = 0;
    live.dead_since_ms = -1;
    live.last_ms = now_ms();
}

const char *cr_liveness_ident(void)
{
    return live.enabled ? live.ident : "";
}

void cr_liveness_peer(int rank, const char *ident)
{
    if (!live.enabled || rank < 0 || rank >= cr_proc.world_size) return;
    if (live.nidents == live.idents_cap) {
        int cap = live.idents_cap ? 2 * live.idents_cap : 16;
        struct live_ident *grown = realloc(live.idents, (size_t)cap * sizeof *grown);
        if (!grown) return;   /* that rank is not watched */
        live.idents = grown;
        live.idents_cap = cap;
    }
    char *copy = strdup(ident);
    if (!copy) return;
    live.idents[live.nidents++] = (struct live_ident){ rank, copy };
}

static void idents_release(void)
{
    for (int i = 0; i < live.nidents; i++) free(live.idents[i].ident);
    free(live.idents);
    live.idents = NULL;
    live.nidents = live.idents_cap = 0;
}

void cr_liveness_finalizing(void)
{
    live.finalizing = 1;
}

static void live_release(void)
{
    for (int i = 0; i < live.npeers; i++)
        if (live.peers[i].pidfd >= 0) close(live.peers[i].pidfd);
    free(live.peers);
    free(live.pfds);
    live.peers = NULL;
    live.pfds = NULL;
    live.npeers = 0;
    live.enabled = 0;
    idents_release();
}

/* How a peer ended, for the message: its signal or exit status while it is a
 * zombie, else only that it is gone (its launcher has reaped it). */
static void describe_death(const live_peer_t *p, char *buf, size_t len)
{
    char state = 0;
    unsigned long long start = 0;
    int code = -1;
    if (proc_stat(p->pid, &state, &start, &code) == 0 && state == 'Z' && code >= 0) {
        if ((code & 0x7f) != 0 && (code & 0x7f) != 0x7f)
            snprintf(buf, len, "was killed by signal %d (%s)", code & 0x7f,
                     strsignal(code & 0x7f));
        else
            snprintf(buf, len, "exited with status %d before MPI_Finalize", (code >> 8) & 0xff);
    } else {
        snprintf(buf, len, "ended before MPI_Finalize (its launcher reports how)");
    }
}

/* Open the pidfds of the peers whose identities arrived.  A peer already gone
 * shows up at the first poll: its slot stays with pid and no pidfd, and
 * kill(pid, 0) finds it missing. */
static void live_setup(void)
{
    live.set_up = 1;
    int n = live.nidents;
    live.peers = calloc((size_t)n + 1, sizeof *live.peers);
    live.pfds = calloc((size_t)n + 1, sizeof *live.pfds);
    if (!live.peers || !live.pfds) {
        live_release();
        return;
    }
    for (int i = 0; i < live.nidents; i++) {
        int r = live.idents[i].rank, pid = 0;
        unsigned long long start = 0, ns = 0;
        if (r == cr_proc.world_rank ||
            sscanf(live.idents[i].ident, "%d:%llu:%llu", &pid, &start, &ns) != 3 || pid <= 0)
            continue;   /* did not publish: not watched */
        if (ns != live.my_ns || !ns) continue;   /* another pid namespace: invisible here */
        live_peer_t *p = &live.peers[live.npeers];
        p->rank = r;
        p->pid = pid;
        p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        char state;
        unsigned long long now_start = 0;
        int code;
        if (p->pidfd >= 0 && start &&
            (proc_stat(pid, &state, &now_start, &code) < 0 || now_start != start)) {
            close(p->pidfd);   /* the pid names another process now: the rank is gone */
            p->pidfd = -1;
        }
        live.pfds[live.npeers].fd = p->pidfd;
        live.pfds[live.npeers].events = POLLIN;
        live.npeers++;
    }
    idents_release();   /* read once */
}

/* Whether the peer without a pidfd is gone. */
static int live_gone_by_kill(const live_peer_t *p)
{
    if (kill(p->pid, 0) != 0) return errno == ESRCH;
    char state = 0;
    unsigned long long start;
    int code;
    return proc_stat(p->pid, &state, &start, &code) == 0 && state == 'Z';
}

void cr_liveness_check(void)
{
    if (!live.enabled || cr_proc.state != CR_STATE_INIT) return;
    long now = now_ms();
    if (now - live.last_ms < ut_settings.liveness_ms) return;
    live.last_ms = now;

    char why[512], how[160];
    if (crpmi_check(why, sizeof why) != 0) {
        char msg[700];
        snprintf(msg, sizeof msg, "rank %d: %s; aborting the job", cr_proc.world_rank, why);
        cr_abort_job(CR_LIVENESS_EXIT_CODE, msg);
    }
    if (!live.set_up) live_setup();
    if (live.npeers == 0) return;

    int dead = -1;
    if (poll(live.pfds, (nfds_t)live.npeers, 0) > 0)
        for (int i = 0; i < live.npeers && dead < 0; i++)
            if (live.pfds[i].revents) dead = i;
    for (int i = 0; i < live.npeers && dead < 0; i++)
        if (live.peers[i].pidfd < 0 && live_gone_by_kill(&live.peers[i])) dead = i;
    if (dead < 0) {
        live.dead_since_ms = -1;
        return;
    }
    if (live.finalizing) {
        if (live.dead_since_ms < 0) live.dead_since_ms = now;
        if (now - live.dead_since_ms < CR_LIVENESS_FINALIZE_GRACE * ut_settings.liveness_ms)
            return;
    }
    const live_peer_t *p = &live.peers[dead];
    describe_death(p, how, sizeof how);
    snprintf(why, sizeof why, "rank %d: rank %d (pid %d) on %s %s; aborting the job",
             cr_proc.world_rank, p->rank, (int)p->pid, cr_proc.hostname, how);
    live_release();
    cr_abort_job(CR_LIVENESS_EXIT_CODE, why);
}
