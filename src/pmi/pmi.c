/* SPDX-License-Identifier: MIT */
/* PMI-1 wire protocol client (see pmi.h).
 *
 * The protocol is line oriented: each request and each reply is one line of
 * space-separated key=value pairs ending in '\n', the first pair being
 * cmd=<name>.  A request gets exactly one reply, so the client is a simple
 * send-then-read-one-line loop.  Values therefore cannot hold spaces or
 * newlines; crpmi_put() refuses them.
 *
 * Connection, in order of preference:
 *   PMI_FD      an inherited, connected socket (Courier's mpiexec, Hydra)
 *   PMI_PORT    host:port to connect to, then "cmd=initack pmiid=$PMI_ID"
 *               (Hydra's -pmi-port mode); the launcher answers with
 *               cmd=set size=, cmd=set rank=, cmd=set debug=
 *   neither     singleton: rank 0 of 1 with a KVS in this process.
 *
 * Courier's mpiexec adds launcher=courier to its response_to_init; then
 * crpmi_abort() sends the message along (message= is the last field and runs
 * to the end of the line) and lets mpiexec print it.  With other launchers
 * the message is printed here. */
#define _GNU_SOURCE
#include "pmi/pmi.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Limits we assume until the launcher tells us (get_maxes). */
#define PMI_DEF_KEYLEN 64
#define PMI_DEF_VALLEN 1024
/* How long crpmi_abort() waits for the launcher to kill us. */
#define PMI_ABORT_WAIT_MS 10000
/* With other launchers, how long the abort message gets to reach them. */
#define PMI_ABORT_MSG_DELAY_MS 100

typedef struct pmi_kv {
    struct pmi_kv *next;
    char *key, *val;
} pmi_kv_t;

static struct {
    int initialized;
    int fd;                 /* -1 in singleton mode */
    int courier;            /* the launcher is Courier's mpiexec */
    crpmi_info_t info;
    char *rbuf;             /* received bytes not yet consumed */
    size_t rlen, rcap;
    char *line;             /* the last line returned by pmi_readline */
    size_t line_cap;
    pmi_kv_t *local;        /* singleton KVS */
} pmi = { .fd = -1 };

static void pmi_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void pmi_err(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (pmi.initialized && !pmi.info.singleton)
        fprintf(stderr, "courier: [rank %d] PMI: %s\n", pmi.info.rank, buf);
    else
        fprintf(stderr, "courier: PMI: %s\n", buf);
}

/* ---- transport ------------------------------------------------------------ */

static int pmi_write_all(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(pmi.fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) n = write(pmi.fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd p = { .fd = pmi.fd, .events = POLLOUT };
                poll(&p, 1, -1);
                continue;
            }
            pmi_err("write to the launcher failed: %s", strerror(errno));
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int pmi_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int pmi_send(const char *fmt, ...)
{
    char small[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return -1;
    if ((size_t)n < sizeof small) return pmi_write_all(small, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big) {
        pmi_err("out of memory");
        return -1;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = pmi_write_all(big, (size_t)n);
    free(big);
    return rc;
}

/* Read one line from the launcher (without its '\n').  Returns it, valid until
 * the next call, or NULL on end of file / error (with a message unless quiet). */
static char *pmi_readline(int quiet)
{
    for (;;) {
        char *nl = pmi.rlen ? memchr(pmi.rbuf, '\n', pmi.rlen) : NULL;
        if (nl) {
            size_t len = (size_t)(nl - pmi.rbuf);
            if (len + 1 > pmi.line_cap) {
                char *p = realloc(pmi.line, len + 1);
                if (!p) {
                    pmi_err("out of memory");
                    return NULL;
                }
                pmi.line = p;
                pmi.line_cap = len + 1;
            }
            memcpy(pmi.line, pmi.rbuf, len);
            pmi.line[len] = '\0';
            if (len > 0 && pmi.line[len - 1] == '\r') pmi.line[len - 1] = '\0';
            pmi.rlen -= len + 1;
            memmove(pmi.rbuf, nl + 1, pmi.rlen);
            return pmi.line;
        }
        if (pmi.rcap - pmi.rlen < 1024) {
            size_t cap = pmi.rcap ? pmi.rcap * 2 : 4096;
            char *p = realloc(pmi.rbuf, cap);
            if (!p) {
                pmi_err("out of memory");
                return NULL;
            }
            pmi.rbuf = p;
            pmi.rcap = cap;
        }
        ssize_t n = read(pmi.fd, pmi.rbuf + pmi.rlen, pmi.rcap - pmi.rlen);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd p = { .fd = pmi.fd, .events = POLLIN };
                poll(&p, 1, -1);
                continue;
            }
            if (!quiet) pmi_err("read from the launcher failed: %s", strerror(errno));
            return NULL;
        }
        if (n == 0) {
            if (!quiet) pmi_err("the launcher closed the connection");
            return NULL;
        }
        pmi.rlen += (size_t)n;
    }
}

/* The value of key in a reply line, copied into out (outlen bytes).  Returns
 * the full length of the value, or -1 when the key is absent. */
static int pmi_field(const char *line, const char *key, char *out, size_t outlen)
{
    size_t klen = strlen(key);
    const char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        if (!strncmp(p, key, klen) && p[klen] == '=') {
            const char *v = p + klen + 1;
            size_t vlen = strcspn(v, " \t");
            if (out && outlen) {
                size_t c = vlen < outlen - 1 ? vlen : outlen - 1;
                memcpy(out, v, c);
                out[c] = '\0';
            }
            return (int)vlen;
        }
        p += strcspn(p, " \t");
    }
    return -1;
}

static int pmi_field_int(const char *line, const char *key, int *out)
{
    char buf[32];
    if (pmi_field(line, key, buf, sizeof buf) < 0) return -1;
    char *end;
    long v = strtol(buf, &end, 10);
    if (end == buf) return -1;
    *out = (int)v;
    return 0;
}

/* Read the reply to a request and check that it is cmd=<cmd> (and rc=0 unless
 * rc_ok is NULL, in which case *rc_ok receives the rc).  Returns the line. */
static char *pmi_expect(const char *cmd, int *rc_out)
{
    char *line = pmi_readline(0);
    if (!line) return NULL;
    char got[64];
    if (pmi_field(line, "cmd", got, sizeof got) < 0 || strcmp(got, cmd)) {
        pmi_err("expected cmd=%s from the launcher, got \"%.200s\"", cmd, line);
        return NULL;
    }
    int rc = 0;
    pmi_field_int(line, "rc", &rc);
    if (rc_out) {
        *rc_out = rc;
    } else if (rc != 0) {
        char msg[256] = "";
        pmi_field(line, "msg", msg, sizeof msg);
        pmi_err("%s failed (rc=%d%s%s)", cmd, rc, *msg ? ", " : "", msg);
        return NULL;
    }
    return line;
}

/* ---- connecting ------------------------------------------------------------ */

static int pmi_connect_port(const char *port_spec)
{
    char host[256];
    const char *colon = strrchr(port_spec, ':');
    if (!colon || colon == port_spec || (size_t)(colon - port_spec) >= sizeof host) {
        pmi_err("cannot parse PMI_PORT=\"%s\" (expected host:port)", port_spec);
        return -1;
    }
    memcpy(host, port_spec, (size_t)(colon - port_spec));
    host[colon - port_spec] = '\0';
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
    int e = getaddrinfo(host, colon + 1, &hints, &res);
    if (e) {
        pmi_err("cannot resolve PMI_PORT=\"%s\": %s", port_spec, gai_strerror(e));
        return -1;
    }
    int fd = -1;
    for (ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        int r;
        do r = connect(fd, ai->ai_addr, ai->ai_addrlen); while (r < 0 && errno == EINTR);
        if (r == 0) break;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) pmi_err("cannot connect to PMI_PORT=\"%s\": %s", port_spec, strerror(errno));
    return fd;
}

/* Hydra's -pmi-port handshake: identify ourselves, learn rank and size. */
static int pmi_port_handshake(const char *id)
{
    if (pmi_send("cmd=initack pmiid=%s\n", id) < 0) return -1;
    if (!pmi_expect("initack", NULL)) return -1;
    for (int i = 0; i < 3; i++) {
        char *line = pmi_expect("set", NULL);
        if (!line) return -1;
        pmi_field_int(line, "size", &pmi.info.size);
        pmi_field_int(line, "rank", &pmi.info.rank);
    }
    return 0;
}

static int env_int(const char *name, int *out)
{
    const char *s = getenv(name);
    if (!s || !*s) return -1;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 0) return -1;
    *out = (int)v;
    return 0;
}

int crpmi_init(crpmi_info_t *info)
{
    if (pmi.initialized) {
        if (info) *info = pmi.info;
        return 0;
    }
    crpmi_info_t *in = &pmi.info;
    memset(in, 0, sizeof *in);
    in->size = 1;
    in->max_key = PMI_DEF_KEYLEN;
    in->max_val = PMI_DEF_VALLEN;

    const char *fds = getenv("PMI_FD"), *port = getenv("PMI_PORT");
    if (fds && *fds) {
        char *end;
        long fd = strtol(fds, &end, 10);
        if (*end || fd < 0 || fcntl((int)fd, F_GETFD) < 0) {
            pmi_err("PMI_FD=\"%s\" is not an open file descriptor", fds);
            return -1;
        }
        pmi.fd = (int)fd;
        /* Programs the rank starts must not inherit the launcher's socket. */
        fcntl(pmi.fd, F_SETFD, FD_CLOEXEC);
        if (env_int("PMI_RANK", &in->rank) < 0 || env_int("PMI_SIZE", &in->size) < 0) {
            pmi_err("PMI_FD is set but PMI_RANK or PMI_SIZE is missing");
            return -1;
        }
    } else if (port && *port) {
        const char *id = getenv("PMI_ID");
        if (!id || !*id) {
            pmi_err("PMI_PORT is set but PMI_ID is missing");
            return -1;
        }
        if ((pmi.fd = pmi_connect_port(port)) < 0) return -1;
        if (pmi_port_handshake(id) < 0) goto fail;
    } else {
        /* Singleton. */
        in->singleton = 1;
        in->max_key = 256;
        in->max_val = 1 << 20;
        snprintf(in->kvsname, sizeof in->kvsname, "singleton_%d", (int)getpid());
        pmi.initialized = 1;
        if (info) *info = *in;
        return 0;
    }
    if (in->size < 1 || in->rank >= in->size) {
        pmi_err("bad rank %d / size %d from the launcher", in->rank, in->size);
        goto fail;
    }

    char *line;
    if (pmi_send("cmd=init pmi_version=1 pmi_subversion=1\n") < 0) goto fail;
    if (!(line = pmi_expect("response_to_init", NULL))) goto fail;
    char buf[256];
    if (pmi_field(line, "launcher", buf, sizeof buf) >= 0 && !strcmp(buf, "courier"))
        pmi.courier = 1;

    if (pmi_send("cmd=get_maxes\n") < 0) goto fail;
    if (!(line = pmi_expect("maxes", NULL))) goto fail;
    int v;
    if (pmi_field_int(line, "keylen_max", &v) == 0 && v > 0) in->max_key = v;
    if (pmi_field_int(line, "vallen_max", &v) == 0 && v > 0) in->max_val = v;

    if (pmi_send("cmd=get_appnum\n") < 0) goto fail;
    if (!(line = pmi_expect("appnum", NULL))) goto fail;
    pmi_field_int(line, "appnum", &in->appnum);

    if (pmi_send("cmd=get_my_kvsname\n") < 0) goto fail;
    if (!(line = pmi_expect("my_kvsname", NULL))) goto fail;
    if (pmi_field(line, "kvsname", in->kvsname, sizeof in->kvsname) < 0) {
        pmi_err("no kvsname in the launcher's reply");
        goto fail;
    }
    pmi.initialized = 1;
    if (info) *info = *in;
    return 0;
fail:
    if (port && *port && pmi.fd >= 0) close(pmi.fd);
    pmi.fd = -1;
    return -1;
}

/* ---- key-value space --------------------------------------------------------- */

static int pmi_check_token(const char *what, const char *s, int max)
{
    size_t len = strlen(s);
    if (len == 0 || (int)len >= max) {
        pmi_err("%s of %zu bytes (the launcher allows 1 to %d)", what, len, max - 1);
        return -1;
    }
    if (strpbrk(s, " \t\r\n")) {
        pmi_err("%s \"%.40s\" contains white space", what, s);
        return -1;
    }
    return 0;
}

int crpmi_put(const char *key, const char *value)
{
    if (!pmi.initialized) {
        pmi_err("crpmi_put before crpmi_init");
        return -1;
    }
    if (pmi_check_token("key", key, pmi.info.max_key) < 0) return -1;
    if (*value && pmi_check_token("value", value, pmi.info.max_val) < 0) return -1;
    if (pmi.info.singleton) {
        for (pmi_kv_t *kv = pmi.local; kv; kv = kv->next)
            if (!strcmp(kv->key, key)) {
                char *v = strdup(value);
                if (!v) return -1;
                free(kv->val);
                kv->val = v;
                return 0;
            }
        pmi_kv_t *kv = malloc(sizeof *kv);
        if (!kv || !(kv->key = strdup(key)) || !(kv->val = strdup(value))) {
            pmi_err("out of memory");
            return -1;
        }
        kv->next = pmi.local;
        pmi.local = kv;
        return 0;
    }
    if (pmi_send("cmd=put kvsname=%s key=%s value=%s\n", pmi.info.kvsname, key, value) < 0)
        return -1;
    return pmi_expect("put_result", NULL) ? 0 : -1;
}

int crpmi_get(const char *key, char *val, int len)
{
    if (!pmi.initialized) {
        pmi_err("crpmi_get before crpmi_init");
        return -1;
    }
    if (len <= 0) return -1;
    if (pmi.info.singleton) {
        for (pmi_kv_t *kv = pmi.local; kv; kv = kv->next)
            if (!strcmp(kv->key, key)) {
                snprintf(val, (size_t)len, "%s", kv->val);
                return 0;
            }
        return -1;
    }
    if (pmi_send("cmd=get kvsname=%s key=%s\n", pmi.info.kvsname, key) < 0) return -1;
    int rc;
    char *line = pmi_expect("get_result", &rc);
    if (!line || rc != 0) return -1;   /* not found: no message, callers may probe */
    int vlen = pmi_field(line, "value", val, (size_t)len);
    if (vlen < 0) {
        pmi_err("get_result for key %s without a value", key);
        return -1;
    }
    if (vlen >= len) {
        pmi_err("value of key %s has %d bytes, more than the buffer's %d", key, vlen, len - 1);
        return -1;
    }
    return 0;
}

int crpmi_barrier(void)
{
    if (!pmi.initialized) {
        pmi_err("crpmi_barrier before crpmi_init");
        return -1;
    }
    if (pmi.info.singleton) return 0;
    if (pmi_send("cmd=barrier_in\n") < 0) return -1;
    return pmi_expect("barrier_out", NULL) ? 0 : -1;
}

void crpmi_abort(int code, const char *msg)
{
    if (!pmi.initialized || pmi.info.singleton || pmi.fd < 0) {
        if (msg && *msg) fprintf(stderr, "%s\n", msg);
        fflush(stderr);
        _exit(code);
    }
    if (pmi.courier) {
        /* message= runs to the end of the line: flatten newlines. */
        char m[1024];
        snprintf(m, sizeof m, "%s", msg ? msg : "");
        for (char *p = m; *p; p++)
            if (*p == '\n' || *p == '\r') *p = ' ';
        pmi_send("cmd=abort exitcode=%d message=%s\n", code, m);
    } else {
        if (msg && *msg) {
            fprintf(stderr, "[rank %d] %s\n", pmi.info.rank, msg);
            fflush(stderr);
            /* Hydra may kill us before it forwards our stderr: give its
             * proxy a moment to read the message first. */
            poll(NULL, 0, PMI_ABORT_MSG_DELAY_MS);
        }
        pmi_send("cmd=abort exitcode=%d\n", code);
    }
    /* Wait for the launcher to end us; leave by ourselves if it does not. */
    struct pollfd p = { .fd = pmi.fd, .events = POLLIN };
    char buf[256];
    for (int waited = 0; waited < PMI_ABORT_WAIT_MS; waited += 100) {
        int r = poll(&p, 1, 100);
        if (r > 0 && read(pmi.fd, buf, sizeof buf) == 0) break;   /* launcher gone */
    }
    _exit(code);
}

int crpmi_finalize(void)
{
    if (!pmi.initialized) return 0;
    int rc = 0;
    if (!pmi.info.singleton && pmi.fd >= 0) {
        if (pmi_send("cmd=finalize\n") < 0 || !pmi_expect("finalize_ack", NULL)) rc = -1;
        close(pmi.fd);
        pmi.fd = -1;
    }
    while (pmi.local) {
        pmi_kv_t *kv = pmi.local;
        pmi.local = kv->next;
        free(kv->key);
        free(kv->val);
        free(kv);
    }
    free(pmi.rbuf);
    free(pmi.line);
    pmi.rbuf = pmi.line = NULL;
    pmi.rlen = pmi.rcap = pmi.line_cap = 0;
    pmi.initialized = 0;
    pmi.courier = 0;
    return rc;
}
