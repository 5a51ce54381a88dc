/* SPDX-License-Identifier: MIT */
/* Helpers shared by mpiexec and courier_proxy (see common.h). */
#define _GNU_SOURCE
#include "common.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

char la_prog[320] = "mpiexec";
void (*la_die_hook)(const char *msg);

static void vmsg(const char *fmt, va_list ap)
{
    char buf[2048];
    int n = snprintf(buf, sizeof buf, "%s: ", la_prog);
    if (n < 0 || (size_t)n >= sizeof buf) n = 0;
    vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    size_t len = strlen(buf);
    buf[len++] = '\n';
    la_write_all(2, buf, len);
}

void la_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (la_die_hook) {
        char msg[1024];
        va_list aq;
        va_copy(aq, ap);
        vsnprintf(msg, sizeof msg, fmt, aq);
        va_end(aq);
        la_die_hook(msg);
    }
    vmsg(fmt, ap);
    va_end(ap);
    exit(code);
}

void la_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(fmt, ap);
    va_end(ap);
}

int la_tracing;

void la_trace(const char *fmt, ...)
{
    if (!la_tracing) return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    localtime_r(&ts.tv_sec, &tm);
    char f[512];
    snprintf(f, sizeof f, "trace %02d:%02d:%02d.%03ld: %s", tm.tm_hour, tm.tm_min, tm.tm_sec,
             ts.tv_nsec / 1000000, fmt);
    va_list ap;
    va_start(ap, fmt);
    vmsg(f, ap);
    va_end(ap);
}

void *la_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) la_die(1, "out of memory");
    return p;
}

void *la_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) la_die(1, "out of memory");
    return p;
}

void *la_realloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p) la_die(1, "out of memory");
    return p;
}

char *la_strdup(const char *s)
{
    char *p = strdup(s);
    if (!p) la_die(1, "out of memory");
    return p;
}

char *la_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0) la_die(1, "out of memory");
    return s;
}

long long la_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void la_set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

int la_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd pf = { .fd = fd, .events = POLLOUT };
                poll(&pf, 1, -1);
                continue;
            }
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---- output buffer ------------------------------------------------------------ */

void la_buf_add(la_buf_t *b, const void *p, size_t n)
{
    if (b->off > 0 && b->off == b->len) b->off = b->len = 0;
    if (b->len + n > b->cap) {
        if (b->off > 0) {   /* make room by dropping what is written */
            memmove(b->p, b->p + b->off, b->len - b->off);
            b->len -= b->off;
            b->off = 0;
        }
        if (b->len + n > b->cap) {
            size_t cap = b->cap ? b->cap : 4096;
            while (cap < b->len + n) cap *= 2;
            b->p = la_realloc(b->p, cap);
            b->cap = cap;
        }
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

int la_buf_flush(la_buf_t *b, int fd)
{
    while (b->off < b->len) {
        ssize_t n = write(fd, b->p + b->off, b->len - b->off);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return -1;
        }
        b->off += (size_t)n;
    }
    b->off = b->len = 0;
    return 0;
}

void la_buf_free(la_buf_t *b)
{
    free(b->p);
    *b = (la_buf_t){ 0 };
}

/* ---- poll set ---------------------------------------------------------------- */

void la_poll_begin(la_poll_t *p)
{
    p->n = 0;
    p->timeout = -1;
}

void la_poll_add(la_poll_t *p, int fd, short events, la_poll_fn fn, void *obj, int idx)
{
    if (fd < 0) return;
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 64;
        p->fds = la_realloc(p->fds, sizeof *p->fds * (size_t)p->cap);
        p->cb = la_realloc(p->cb, sizeof *p->cb * (size_t)p->cap);
    }
    p->fds[p->n] = (struct pollfd){ .fd = fd, .events = events };
    p->cb[p->n] = (struct la_poll_cb){ fn, obj, idx };
    p->n++;
}

void la_poll_within(la_poll_t *p, long long ms)
{
    if (ms < 0) ms = 0;
    if (ms > 1000000) ms = 1000000;
    if (p->timeout < 0 || ms < p->timeout) p->timeout = (int)ms;
}

int la_poll_run(la_poll_t *p)
{
    int rc = poll(p->fds, (nfds_t)p->n, p->timeout);
    if (rc < 0) return errno == EINTR ? 0 : -1;
    for (int k = 0; k < p->n && rc > 0; k++)
        if (p->fds[k].revents)
            p->cb[k].fn(p->cb[k].obj, p->cb[k].idx, p->fds[k].fd, p->fds[k].revents);
    return rc;
}

void la_poll_free(la_poll_t *p)
{
    free(p->fds);
    free(p->cb);
    *p = (la_poll_t){ 0 };
}

/* ---- misc ---------------------------------------------------------------------- */

char *la_shell_quote(const char *s)
{
    size_t n = 3;
    for (const char *c = s; *c; c++) n += *c == '\'' ? 4 : 1;
    char *q = la_malloc(n), *o = q;
    *o++ = '\'';
    for (const char *c = s; *c; c++) {
        if (*c == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *c;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

/* Is h (a numeric address) one of this machine's interface addresses? */
static int is_local_address(const char *h)
{
    struct in_addr a4;
    struct in6_addr a6;
    int fam = inet_pton(AF_INET, h, &a4) == 1 ? AF_INET : inet_pton(AF_INET6, h, &a6) == 1 ? AF_INET6 : 0;
    struct ifaddrs *ifs, *i;
    int found = 0;
    if (!fam || getifaddrs(&ifs) < 0) return 0;
    for (i = ifs; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != fam) continue;
        if (fam == AF_INET)
            found = !memcmp(&((struct sockaddr_in *)i->ifa_addr)->sin_addr, &a4, sizeof a4);
        else
            found = !memcmp(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, &a6, sizeof a6);
    }
    freeifaddrs(ifs);
    return found;
}

int la_is_local_host(const char *h)
{
    char me[256];
    if (!strcmp(h, "localhost") || !strncmp(h, "127.", 4) || !strcmp(h, "::1")) return 1;
    if (is_local_address(h)) return 1;
    if (gethostname(me, sizeof me) == 0) {
        me[sizeof me - 1] = '\0';
        if (!strcmp(h, me)) return 1;
        /* short and full forms of the same name */
        size_t ms = strcspn(me, "."), hs = strcspn(h, ".");
        if ((me[ms] == '\0' || h[hs] == '\0') && ms == hs && !strncmp(h, me, ms)) return 1;
    }
    return 0;
}

static int env_is(const char *entry, const char *name)
{
    size_t n = strlen(name);
    return !strncmp(entry, name, n) && entry[n] == '=';
}

int la_env_reserved(const char *entry)
{
    static const char *const names[] = {
        "COURIER_JOBID", "COURIER_LAUNCH_SECRET", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", NULL
    };
    if (!strncmp(entry, "PMI_", 4) || !strncmp(entry, "PMIX_", 5)) return 1;
    for (int k = 0; names[k]; k++)
        if (env_is(entry, names[k])) return 1;
    return 0;
}

int la_env_host_specific(const char *entry)
{
    static const char *const names[] = {
        "HOSTNAME", "PWD", "OLDPWD", "SHLVL", "_", "DISPLAY", "XAUTHORITY", "TERM", NULL
    };
    if (!strncmp(entry, "SSH_", 4) || !strncmp(entry, "SLURM_", 6) || !strncmp(entry, "SLURMD_", 7))
        return 1;
    for (int k = 0; names[k]; k++)
        if (env_is(entry, names[k])) return 1;
    return 0;
}

void la_shm_cleanup(const char *kvsname)
{
    char prefix[320];
    int plen = snprintf(prefix, sizeof prefix, "courier.%s.", kvsname);
    if (plen <= 0 || (size_t)plen >= sizeof prefix) return;
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)))
        if (!strncmp(de->d_name, prefix, (size_t)plen)) unlinkat(dirfd(d), de->d_name, 0);
    closedir(d);
}
