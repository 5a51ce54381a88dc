/* SPDX-License-Identifier: MIT */
/* mpiexec's name service (see names.h).  The wire: one line each way,
 *   request  "<secret> <op> <service in hex> <port in hex or ->\n"
 *   answer   "<0|1|2> <port or reason in hex, or ->\n"
 * and the connection closes. */
#define _GNU_SOURCE
#include "names.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "start.h"
#include "util/settings.h"

#define SECRET_BYTES 16
/* A request line: secret, op, two hex fields. */
#define LINE_MAX_BYTES (2 * SECRET_BYTES + 8 + 4 * LA_NAME_MAX)

typedef struct name {
    struct name *next;
    char *service, *port;
} name_t;

typedef struct {
    int fd;
    size_t len;
    long long deadline;
    char buf[LINE_MAX_BYTES];
} nconn_t;

struct la_names {
    char *remote;        /* a client: the server's "addresses port secret" */
    name_t *table;       /* a server: the names */
    const char *iface;
    int listen_fd;
    char secret[2 * SECRET_BYTES + 1];
    char *address;       /* "addresses port secret" once listening */
    char *file;          /* the address file we wrote, removed at close */
    nconn_t *c;
    int nc;
};

static const char *setting_str(intptr_t v)
{
    const char *s = (const char *)v;
    return s && *s ? s : NULL;
}

static char *hex_of(const char *s)
{
    size_t n = strlen(s);
    char *h = la_malloc(2 * n + 2);
    if (!n) return strcpy(h, "-");
    la_hex((const uint8_t *)s, n, h);
    return h;
}

/* Decode hex (or "-": empty) into out (len bytes); -1 when malformed or too long. */
static int unhex(const char *h, size_t hl, char *out, size_t len)
{
    if (hl == 1 && h[0] == '-') hl = 0;
    if (hl % 2 || hl / 2 >= len || (hl && la_unhex(h, (uint8_t *)out, hl / 2) < 0)) return -1;
    out[hl / 2] = '\0';
    return 0;
}

/* ---- the table ------------------------------------------------------------------- */

static int table_do(la_names_t *ns, int op, const char *service, char *port, size_t plen,
                    char *why, size_t wlen)
{
    name_t **pp = &ns->table;
    while (*pp && strcmp((*pp)->service, service)) pp = &(*pp)->next;
    name_t *n = *pp;
    if (op == 'p') {
        if (n) {
            snprintf(why, wlen, "service_name=\"%.200s\" is already published", service);
            return LA_NAME_REFUSED;
        }
        n = la_malloc(sizeof *n);
        n->service = la_strdup(service);
        n->port = la_strdup(port);
        n->next = ns->table;
        ns->table = n;
        return LA_NAME_OK;
    }
    if (!n) {
        snprintf(why, wlen, "service_name=\"%.200s\" is not published", service);
        return LA_NAME_REFUSED;
    }
    if (op == 'l') {
        snprintf(port, plen, "%s", n->port);
        return LA_NAME_OK;
    }
    if (strcmp(n->port, port)) {
        snprintf(why, wlen, "service_name=\"%.200s\" is published with another port than "
                 "port_name=\"%.200s\"", service, port);
        return LA_NAME_REFUSED;
    }
    *pp = n->next;
    free(n->service);
    free(n->port);
    free(n);
    return LA_NAME_OK;
}

/* ---- a client ---------------------------------------------------------------------- */

/* Ask the server at address ("addresses port secret"). */
static int remote_do(const char *address, int op, const char *service, char *port, size_t plen,
                     char *why, size_t wlen)
{
    char addrs[1024], secret[2 * SECRET_BYTES + 1];
    int tcp = 0;
    if (sscanf(address, "%1023s %d %32s", addrs, &tcp, secret) != 3) {
        snprintf(why, wlen, "the name server's address \"%.100s\" is malformed (COURIER_NAMESERVER)",
                 address);
        return LA_NAME_FAILED;
    }
    long long deadline = la_now_ms() + ut_settings.nameserver_timeout_ms;
    char err[512];
    char *used = NULL;
    int fd = la_connect_any(addrs, tcp, deadline, &used, err, sizeof err);
    free(used);
    if (fd < 0) {
        snprintf(why, wlen, "cannot reach the name server (%.300s)", err);
        return LA_NAME_FAILED;
    }
    char *hs = hex_of(service), *hp = hex_of(op == 'l' ? "" : port);
    char *req = la_asprintf("%s %c %s %s\n", secret, op, hs, hp);
    free(hs);
    free(hp);
    int rc = la_write_all(fd, req, strlen(req));
    free(req);
    char line[LINE_MAX_BYTES];
    size_t len = 0;
    while (rc == 0 && !memchr(line, '\n', len) && len < sizeof line - 1) {
        struct pollfd pf = { fd, POLLIN, 0 };
        long long left = deadline - la_now_ms();
        if (left <= 0 || poll(&pf, 1, (int)left) <= 0) {
            rc = -1;
            break;
        }
        ssize_t k = read(fd, line + len, sizeof line - 1 - len);
        if (k <= 0) rc = -1;
        else len += (size_t)k;
    }
    close(fd);
    line[len] = '\0';
    int ans = -1;
    char *sp = strchr(line, ' ');
    if (rc < 0 || !sp || sscanf(line, "%d", &ans) != 1 || ans < LA_NAME_OK || ans > LA_NAME_FAILED) {
        snprintf(why, wlen, "the name server did not answer in %ld ms (COURIER_NAMESERVER_TIMEOUT_MS)",
                 ut_settings.nameserver_timeout_ms);
        return LA_NAME_FAILED;
    }
    sp++;
    size_t hl = strcspn(sp, " \n");
    if (ans == LA_NAME_OK && op == 'l') {
        if (unhex(sp, hl, port, plen) < 0) ans = LA_NAME_FAILED;
    } else if (ans != LA_NAME_OK && unhex(sp, hl, why, wlen) < 0) {
        snprintf(why, wlen, "the name server refused");
    }
    return ans;
}

/* Does the server at address answer?  (A lookup of a name nobody uses.) */
static int remote_alive(const char *address)
{
    char port[8], why[256];
    return remote_do(address, 'l', "courier-nameserver-ping", port, sizeof port, why,
                     sizeof why) != LA_NAME_FAILED;
}

/* ---- a server ----------------------------------------------------------------------- */

static int start_listening(la_names_t *ns)
{
    if (ns->listen_fd >= 0) return 0;
    uint8_t rnd[SECRET_BYTES];
    char err[512];
    int tcp = 0;
    if (la_random(rnd, sizeof rnd) < 0) return -1;
    la_hex(rnd, sizeof rnd, ns->secret);
    char *addrs = la_local_addrs(ns->iface, err, sizeof err);
    if (!addrs) {
        la_warn("name service: %s", err);
        return -1;
    }
    ns->listen_fd = la_listen_any(&tcp);
    if (ns->listen_fd < 0) {
        la_warn("name service: cannot listen: %s", strerror(errno));
        free(addrs);
        return -1;
    }
    la_set_nonblock(ns->listen_fd);
    ns->address = la_asprintf("%s %d %s", addrs, tcp, ns->secret);
    free(addrs);
    return 0;
}

/* Write our address into path (created here, mode 0600): 0, or -1. */
static int write_file(la_names_t *ns, const char *path)
{
    char *tmp = la_asprintf("%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    char *line = la_asprintf("%s\n", ns->address);
    int rc = fd < 0 || la_write_all(fd, line, strlen(line)) < 0 ? -1 : 0;
    if (fd >= 0) close(fd);
    free(line);
    int e = errno;
    if (rc == 0 && link(tmp, path) < 0) {
        rc = -1;
        e = errno;
    }
    unlink(tmp);
    free(tmp);
    if (rc == 0) ns->file = la_strdup(path);
    errno = e;
    return rc;
}

/* The address in the file at path, malloc'ed, or NULL. */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f) return NULL;
    char line[1200];
    char *got = fgets(line, sizeof line, f);
    fclose(f);
    if (!got) return NULL;
    line[strcspn(line, "\n")] = '\0';
    return la_strdup(line);
}

la_names_t *la_names_open(const char *iface)
{
    la_names_t *ns = la_calloc(1, sizeof *ns);
    ns->listen_fd = -1;
    ns->iface = iface;
    const char *remote = setting_str(ut_settings.nameserver);
    const char *file = setting_str(ut_settings.nameserver_file);
    if (remote) {
        ns->remote = la_strdup(remote);
        return ns;
    }
    if (!file) return ns;
    /* a server that answers, or take its place (twice: another mpiexec may
     * be doing the same right now) */
    for (int attempt = 0; attempt < 2; attempt++) {
        char *addr = read_file(file);
        if (addr && remote_alive(addr)) {
            ns->remote = addr;
            return ns;
        }
        free(addr);
        if (start_listening(ns) < 0) break;
        if (write_file(ns, file) == 0) return ns;
        if (errno != EEXIST) break;
        if (addr) unlink(file);   /* a server that is gone left it */
    }
    la_warn("name service: cannot use %s (COURIER_NAMESERVER_FILE): %s; names stay within this job",
            file, strerror(errno));
    return ns;
}

const char *la_names_address(la_names_t *ns)
{
    if (ns->remote) return ns->remote;
    return start_listening(ns) == 0 ? ns->address : NULL;
}

int la_names_request(la_names_t *ns, int op, const char *service, char *port, size_t plen,
                     char *why, size_t wlen)
{
    if (ns->remote) return remote_do(ns->remote, op, service, port, plen, why, wlen);
    return table_do(ns, op, service, port, plen, why, wlen);
}

static void conn_drop(la_names_t *ns, int i)
{
    close(ns->c[i].fd);
    ns->c[i] = ns->c[--ns->nc];
}

/* A whole request on connection i: answer it and close. */
static void conn_serve(la_names_t *ns, int i)
{
    nconn_t *c = &ns->c[i];
    c->buf[c->len] = '\0';
    char secret[2 * SECRET_BYTES + 1], op = 0, hs[2 * LA_NAME_MAX + 2], hp[2 * LA_NAME_MAX + 2];
    char service[LA_NAME_MAX], port[LA_NAME_MAX], why[600] = "";
    int ans = LA_NAME_FAILED;
    if (sscanf(c->buf, "%32s %c %2049s %2049s", secret, &op, hs, hp) != 4 ||
        strlen(secret) != 2 * SECRET_BYTES || !la_equal_ct(secret, ns->secret, 2 * SECRET_BYTES)) {
        conn_drop(ns, i);   /* not one of ours */
        return;
    }
    if ((op != 'p' && op != 'l' && op != 'u') || unhex(hs, strlen(hs), service, sizeof service) < 0 ||
        unhex(hp, strlen(hp), port, sizeof port) < 0)
        snprintf(why, sizeof why, "malformed request");
    else
        ans = table_do(ns, op, service, port, sizeof port, why, sizeof why);
    char *h = hex_of(ans == LA_NAME_OK ? (op == 'l' ? port : "") : why);
    char *line = la_asprintf("%d %s\n", ans, h);
    if (send(c->fd, line, strlen(line), MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {}
    free(h);
    free(line);
    conn_drop(ns, i);
}

static void on_conn(void *obj, int i, int fd, short rev)
{
    la_names_t *ns = obj;
    if (i >= ns->nc || ns->c[i].fd != fd) return;
    nconn_t *c = &ns->c[i];
    ssize_t k = read(fd, c->buf + c->len, sizeof c->buf - 1 - c->len);
    if (k < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (k <= 0) {
        conn_drop(ns, i);
        return;
    }
    c->len += (size_t)k;
    if (memchr(c->buf, '\n', c->len)) conn_serve(ns, i);
    else if (c->len >= sizeof c->buf - 1) conn_drop(ns, i);
}

static void on_listen(void *obj, int idx, int fd, short rev)
{
    la_names_t *ns = obj;
    for (;;) {
        int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0) return;
        ns->c = la_realloc(ns->c, sizeof *ns->c * (size_t)(ns->nc + 1));
        ns->c[ns->nc].fd = c;
        ns->c[ns->nc].len = 0;
        ns->c[ns->nc++].deadline = la_now_ms() + ut_settings.nameserver_timeout_ms;
    }
}

void la_names_poll(la_names_t *ns, la_poll_t *p)
{
    if (ns->listen_fd < 0) return;
    long long now = la_now_ms();
    for (int i = 0; i < ns->nc; i++)
        if (now >= ns->c[i].deadline) conn_drop(ns, i--);
    la_poll_add(p, ns->listen_fd, POLLIN, on_listen, ns, 0);
    for (int i = 0; i < ns->nc; i++) {
        la_poll_add(p, ns->c[i].fd, POLLIN, on_conn, ns, i);
        la_poll_within(p, ns->c[i].deadline - now);
    }
}

void la_names_close(la_names_t *ns)
{
    if (!ns) return;
    while (ns->nc) conn_drop(ns, 0);
    if (ns->listen_fd >= 0) close(ns->listen_fd);
    ns->listen_fd = -1;
    if (ns->file) {
        /* only while it still holds our address */
        char *addr = read_file(ns->file);
        if (addr && ns->address && !strcmp(addr, ns->address)) unlink(ns->file);
        free(addr);
    }
}
