/* SPDX-License-Identifier: MIT */
/* The PMI-1 and PMI-2 wire protocols (see pmi.h for when each is used).
 *
 * PMI-1 is line oriented: each request and each reply is one line of
 * space-separated key=value pairs ending in '\n', the first pair being
 * cmd=<name>.  A request gets exactly one reply (abort gets none).
 *
 * PMI-2 starts with the same PMI-1 line, "cmd=init pmi_version=2
 * pmi_subversion=0"; a launcher that speaks PMI-2 answers pmi_version=2, one
 * that does not answers pmi_version=1 (Courier's mpiexec) and the connection
 * goes on in PMI-1.  After that every PMI-2 message is a 6-byte decimal
 * length, left-justified and padded with spaces, then that many bytes of
 * "key=value;" pairs, the first being cmd=<name>; a ';' inside a value is
 * doubled.  Slurm's server does not undouble, so crpmi_put refuses ';'.
 *
 * Connection, in order of preference:
 *   PMI_FD      an inherited, connected socket (Courier's mpiexec, Hydra,
 *               srun --mpi=pmi2); PMI_RANK and PMI_SIZE; with PMI-2 also
 *               PMI_JOBID (Slurm), sent back in fullinit
 *   PMI_PORT    host:port to connect to, then "cmd=initack pmiid=$PMI_ID"
 *               (Hydra's -pmi-port mode); the launcher answers with
 *               cmd=set size=, cmd=set rank=, cmd=set debug=.  Always PMI-1.
 *
 * Courier's mpiexec adds launcher=courier to its response_to_init; then
 * abort sends the message along (message= is the last field and runs to the
 * end of the line) and lets mpiexec print it.  With other launchers the
 * message is printed here. */
#define _GNU_SOURCE
#include "pmi/pmi_impl.h"
#include "util/field.h"

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

/* Limits we assume until the launcher tells us (PMI-1 get_maxes); PMI-2's
 * are fixed by its definition (MPICH's pmi2.h, Slurm's and Hydra's servers). */
#define PMI1_DEF_KEYLEN 64
#define PMI1_DEF_VALLEN 1024
#define PMI2_KEYLEN 64
#define PMI2_VALLEN 1024
/* Bytes of the length field in front of every PMI-2 message. */
#define PMI2_LENLEN 6
/* Longest PMI-2 message we accept (the length field has 6 digits). */
#define PMI2_MSG_MAX 999999
/* How long abort waits for the launcher to kill us. */
#define PMI_ABORT_WAIT_MS 10000
/* With other launchers, how long the abort message gets to reach them. */
#define PMI_ABORT_MSG_DELAY_MS 100
/* The longest request line Courier's mpiexec reads (launcher/ranks.h
 * LA_PMI_LINE_MAX); a spawn request must fit. */
#define PMI_SPAWN_LINE_MAX (256 + 65536)

/* A parsed PMI-2 reply: the command and its key/value pairs, pointing into
 * the message buffer. */
#define PMI2_MAX_PAIRS 64
typedef struct {
    const char *cmd;
    int n;
    const char *key[PMI2_MAX_PAIRS], *val[PMI2_MAX_PAIRS];
} pmi2_msg_t;

static struct {
    int fd;                 /* -1 when closed */
    int version;            /* 1 or 2 */
    int courier;            /* the launcher is Courier's mpiexec */
    int spawn_id;           /* the launcher's number of the last job spawned, -1: none */
    int rank, size;
    char kvsname[256];
    char *rbuf;             /* received bytes not yet consumed */
    size_t rlen, rcap;
    char *line;             /* the last line / message returned by a read */
    size_t line_cap;
} w = { .fd = -1, .spawn_id = -1 };

/* ---- transport ------------------------------------------------------------ */

static int w_write_all(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(w.fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) n = write(w.fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                struct pollfd p = { .fd = w.fd, .events = POLLOUT };
                poll(&p, 1, -1);
                continue;
            }
            crpmi_err("write to the launcher failed: %s", strerror(errno));
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* printf to the launcher. */
static int w_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int w_send(const char *fmt, ...)
{
    char small[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return -1;
    if ((size_t)n < sizeof small) return w_write_all(small, (size_t)n);
    char *big = malloc((size_t)n + 1);
    if (!big) {
        crpmi_err("out of memory");
        return -1;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    int rc = w_write_all(big, (size_t)n);
    free(big);
    return rc;
}

/* Make room for need more bytes in the receive buffer. */
static int w_reserve(size_t need)
{
    if (w.rcap - w.rlen >= need) return 0;
    size_t cap = w.rcap ? w.rcap : 4096;
    while (cap - w.rlen < need) cap *= 2;
    char *p = realloc(w.rbuf, cap);
    if (!p) {
        crpmi_err("out of memory");
        return -1;
    }
    w.rbuf = p;
    w.rcap = cap;
    return 0;
}

/* Read more bytes from the launcher into the receive buffer.  Returns 0, or
 * -1 on end of file / error (with a message). */
static int w_fill(void)
{
    if (w_reserve(1024) < 0) return -1;
    for (;;) {
        ssize_t n = read(w.fd, w.rbuf + w.rlen, w.rcap - w.rlen);
        if (n > 0) {
            w.rlen += (size_t)n;
            return 0;
        }
        if (n == 0) {
            crpmi_err("the launcher closed the connection");
            return -1;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            struct pollfd p = { .fd = w.fd, .events = POLLIN };
            poll(&p, 1, -1);
            continue;
        }
        crpmi_err("read from the launcher failed: %s", strerror(errno));
        return -1;
    }
}

/* Move the first len bytes of the receive buffer into w.line (NUL-terminated)
 * and drop them plus skip more bytes from the buffer. */
static char *w_take(size_t len, size_t skip)
{
    if (len + 1 > w.line_cap) {
        char *p = realloc(w.line, len + 1);
        if (!p) {
            crpmi_err("out of memory");
            return NULL;
        }
        w.line = p;
        w.line_cap = len + 1;
    }
    memcpy(w.line, w.rbuf, len);
    w.line[len] = '\0';
    w.rlen -= len + skip;
    memmove(w.rbuf, w.rbuf + len + skip, w.rlen);
    return w.line;
}

/* One PMI-1 line (without its '\n'), valid until the next read. */
static char *w_readline(void)
{
    for (;;) {
        char *nl = w.rlen ? memchr(w.rbuf, '\n', w.rlen) : NULL;
        if (nl) {
            char *line = w_take((size_t)(nl - w.rbuf), 1);
            size_t len = line ? strlen(line) : 0;
            if (len > 0 && line[len - 1] == '\r') line[len - 1] = '\0';
            return line;
        }
        if (w_fill() < 0) return NULL;
    }
}

/* ---- PMI-1 messages ---------------------------------------------------------- */

/* A key's value in a PMI-1 line: ut_line_field (util/field.h). */
static int w1_field_int(const char *line, const char *key, int *out)
{
    char buf[32];
    if (ut_line_field(line, key, buf, sizeof buf) < 0) return -1;
    char *end;
    long v = strtol(buf, &end, 10);
    if (end == buf) return -1;
    *out = (int)v;
    return 0;
}

/* Read the reply to a request and check that it is cmd=<cmd> (and rc=0 unless
 * rc_out is given, which then receives the rc).  Returns the line. */
static char *w1_expect(const char *cmd, int *rc_out)
{
    char *line = w_readline();
    if (!line) return NULL;
    char got[64];
    if (ut_line_field(line, "cmd", got, sizeof got) < 0 || strcmp(got, cmd)) {
        crpmi_err("expected cmd=%s from the launcher, got \"%.200s\"", cmd, line);
        return NULL;
    }
    int rc = 0;
    w1_field_int(line, "rc", &rc);
    if (rc_out) {
        *rc_out = rc;
    } else if (rc != 0) {
        char msg[256] = "";
        ut_line_field(line, "msg", msg, sizeof msg);
        crpmi_err("%s failed (rc=%d%s%s)", cmd, rc, *msg ? ", " : "", msg);
        return NULL;
    }
    return line;
}

/* ---- PMI-2 messages ---------------------------------------------------------- */

/* Send cmd with the NULL-terminated list of key, value arguments. */
static int w2_send(const char *cmd, ...)
{
    size_t cap = PMI2_LENLEN + strlen(cmd) + 6, len;
    va_list ap;
    va_start(ap, cmd);
    for (const char *k; (k = va_arg(ap, const char *));) {
        const char *v = va_arg(ap, const char *);
        cap += strlen(k) + 2 + 2 * strlen(v);
    }
    va_end(ap);
    char *buf = malloc(cap + 1);
    if (!buf) {
        crpmi_err("out of memory");
        return -1;
    }
    len = PMI2_LENLEN + (size_t)sprintf(buf + PMI2_LENLEN, "cmd=%s;", cmd);
    va_start(ap, cmd);
    for (const char *k; (k = va_arg(ap, const char *));) {
        const char *v = va_arg(ap, const char *);
        len += (size_t)sprintf(buf + len, "%s=", k);
        for (; *v; v++) {
            if (*v == ';') buf[len++] = ';';
            buf[len++] = *v;
        }
        buf[len++] = ';';
    }
    va_end(ap);
    int rc = -1;
    if (len - PMI2_LENLEN > PMI2_MSG_MAX) {
        crpmi_err("PMI-2 %s message of %zu bytes is too long", cmd, len - PMI2_LENLEN);
    } else {
        char head[PMI2_LENLEN + 1];
        snprintf(head, sizeof head, "%-*zu", PMI2_LENLEN, len - PMI2_LENLEN);
        memcpy(buf, head, PMI2_LENLEN);
        rc = w_write_all(buf, len);
    }
    free(buf);
    return rc;
}

/* Split a PMI-2 message (in place) into its pairs; ";;" inside a value is a
 * ';'.  Returns 0, or -1 when it is not "cmd=<name>;..." */
static int w2_parse(char *s, pmi2_msg_t *m)
{
    m->n = 0;
    m->cmd = NULL;
    while (*s) {
        char *eq = strchr(s, '=');
        if (!eq) return -1;
        *eq = '\0';
        char *key = s, *val = eq + 1, *out = val, *in = val;
        for (;;) {
            if (*in == '\0') break;
            if (*in == ';') {
                if (in[1] != ';') {
                    in++;
                    break;
                }
                in++;
            }
            *out++ = *in++;
        }
        *out = '\0';
        s = in;
        if (!m->cmd) {
            if (strcmp(key, "cmd")) return -1;
            m->cmd = val;
        } else if (m->n < PMI2_MAX_PAIRS) {
            m->key[m->n] = key;
            m->val[m->n] = val;
            m->n++;
        }
    }
    return m->cmd ? 0 : -1;
}

static const char *w2_field(const pmi2_msg_t *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->key[i], key)) return m->val[i];
    return NULL;
}

static int w2_field_int(const pmi2_msg_t *m, const char *key, int *out)
{
    const char *v = w2_field(m, key);
    if (!v) return -1;
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v) return -1;
    *out = (int)x;
    return 0;
}

static int w2_true(const pmi2_msg_t *m, const char *key)
{
    const char *v = w2_field(m, key);
    return v && !strcasecmp(v, "TRUE");
}

/* Read one PMI-2 message, check that it is <cmd> with rc=0 and parse it. */
static int w2_expect(const char *cmd, pmi2_msg_t *m)
{
    while (w.rlen < PMI2_LENLEN)
        if (w_fill() < 0) return -1;
    char head[PMI2_LENLEN + 1];
    memcpy(head, w.rbuf, PMI2_LENLEN);
    head[PMI2_LENLEN] = '\0';
    char *end;
    long len = strtol(head, &end, 10);
    while (*end == ' ') end++;
    if (end == head || *end || len < 0 || len > PMI2_MSG_MAX) {
        crpmi_err("bad PMI-2 length field \"%s\" from the launcher", head);
        return -1;
    }
    if (w_reserve((size_t)len + PMI2_LENLEN) < 0) return -1;
    while (w.rlen < (size_t)len + PMI2_LENLEN)
        if (w_fill() < 0) return -1;
    memmove(w.rbuf, w.rbuf + PMI2_LENLEN, w.rlen - PMI2_LENLEN);
    w.rlen -= PMI2_LENLEN;
    char *msg = w_take((size_t)len, 0);
    if (!msg) return -1;
    char copy[200];
    snprintf(copy, sizeof copy, "%s", msg);
    if (w2_parse(msg, m) < 0 || strcmp(m->cmd, cmd)) {
        crpmi_err("expected cmd=%s from the launcher, got \"%s\"", cmd, copy);
        return -1;
    }
    int rc = 0;
    w2_field_int(m, "rc", &rc);
    if (rc != 0) {
        const char *why = w2_field(m, "errmsg");
        crpmi_err("%s failed (rc=%d%s%s)", cmd, rc, why ? ", " : "", why ? why : "");
        return -1;
    }
    return 0;
}

/* ---- operations -------------------------------------------------------------- */

static int wire_put(const char *key, const char *value)
{
    if (w.version == 2) {
        pmi2_msg_t m;
        if (w2_send("kvs-put", "key", key, "value", value, (char *)NULL) < 0) return -1;
        return w2_expect("kvs-put-response", &m);
    }
    if (w_send("cmd=put kvsname=%s key=%s value=%s\n", w.kvsname, key, value) < 0) return -1;
    return w1_expect("put_result", NULL) ? 0 : -1;
}

static int wire_get(int rank, const char *key, char *val, int len)
{
    (void)rank;   /* one key-value space for the whole job */
    if (w.version == 2) {
        pmi2_msg_t m;
        if (w2_send("kvs-get", "jobid", w.kvsname, "srcid", "-1", "key", key, (char *)NULL) < 0 ||
            w2_expect("kvs-get-response", &m) < 0)
            return -1;
        const char *v = w2_field(&m, "value");
        if (!w2_true(&m, "found") || !v) return 1;
        if (strlen(v) >= (size_t)len) {
            crpmi_err("value of key %s has %zu bytes, more than the buffer's %d", key, strlen(v),
                      len - 1);
            return -1;
        }
        strcpy(val, v);
        return 0;
    }
    if (w_send("cmd=get kvsname=%s key=%s\n", w.kvsname, key) < 0) return -1;
    int rc;
    char *line = w1_expect("get_result", &rc);
    if (!line) return -1;
    if (rc != 0) return 1;   /* not found: no message, callers may probe */
    int vlen = ut_line_field(line, "value", val, (size_t)len);
    if (vlen < 0) {
        crpmi_err("get_result for key %s without a value", key);
        return -1;
    }
    if (vlen >= len) {
        crpmi_err("value of key %s has %d bytes, more than the buffer's %d", key, vlen, len - 1);
        return -1;
    }
    return 0;
}

static int wire_fence(void)
{
    if (w.version == 2) {
        pmi2_msg_t m;
        if (w2_send("kvs-fence", (char *)NULL) < 0) return -1;
        return w2_expect("kvs-fence-response", &m);
    }
    if (w_send("cmd=barrier_in\n") < 0) return -1;
    return w1_expect("barrier_out", NULL) ? 0 : -1;
}

static void wire_abort(int code, const char *msg)
{
    /* The message travels flattened: one line, no ';'. */
    char m[1024];
    snprintf(m, sizeof m, "%s", msg);
    for (char *p = m; *p; p++)
        if (*p == '\n' || *p == '\r' || (w.version == 2 && *p == ';')) *p = ' ';
    if (w.courier && w_send("cmd=abort exitcode=%d message=%s\n", code, m) == 0) {
        /* Courier's mpiexec prints the message, naming rank and host */
    } else {
        if (*m) {
            fprintf(stderr, "[courier] %s\n", m);
            fflush(stderr);
            /* The launcher may kill us before it forwards our stderr: give
             * it a moment to read the message first. */
            poll(NULL, 0, PMI_ABORT_MSG_DELAY_MS);
        }
        if (w.version == 2)
            w2_send("abort", "isworld", "TRUE", "msg", m, (char *)NULL);
        else
            w_send("cmd=abort exitcode=%d\n", code);
    }
    /* Wait for the launcher to end us; leave by ourselves if it does not. */
    struct pollfd p = { .fd = w.fd, .events = POLLIN };
    char buf[256];
    for (int waited = 0; waited < PMI_ABORT_WAIT_MS; waited += 100) {
        int r = poll(&p, 1, 100);
        if (r > 0 && read(w.fd, buf, sizeof buf) <= 0) break;   /* launcher gone */
    }
}

static void wire_close(void)
{
    if (w.fd >= 0) close(w.fd);
    w.fd = -1;
    free(w.rbuf);
    free(w.line);
    w.rbuf = w.line = NULL;
    w.rlen = w.rcap = w.line_cap = 0;
    w.courier = 0;
}

static int wire_finalize(void)
{
    int rc = 0;
    if (w.version == 2) {
        pmi2_msg_t m;
        if (w2_send("finalize", (char *)NULL) < 0 || w2_expect("finalize-response", &m) < 0)
            rc = -1;
    } else if (w_send("cmd=finalize\n") < 0 || !w1_expect("finalize_ack", NULL)) {
        rc = -1;
    }
    wire_close();
    return rc;
}

static int wire_local_ranks(int **ranks, int *n)
{
    char map[PMI2_VALLEN];
    if (w.version == 2) {
        pmi2_msg_t m;
        const char *v;
        if (w2_send("info-getjobattr", "key", "PMI_process_mapping", (char *)NULL) < 0 ||
            w2_expect("info-getjobattr-response", &m) < 0 || !w2_true(&m, "found") ||
            !(v = w2_field(&m, "value")))
            return -1;
        snprintf(map, sizeof map, "%s", v);
    } else if (w.courier || wire_get(0, "PMI_process_mapping", map, sizeof map) != 0) {
        return -1;   /* Courier's mpiexec runs every rank on its own node */
    }
    return crpmi_parse_mapping(map, w.rank, w.size, ranks, n);
}

static int wire_check(char *why, size_t len)
{
    if (w.fd < 0) return 0;
    struct pollfd p = { .fd = w.fd, .events = POLLIN | POLLRDHUP };
    if (poll(&p, 1, 0) <= 0) return 0;
    char c;
    ssize_t n = 0;
    if (!(p.revents & (POLLHUP | POLLERR | POLLRDHUP))) {
        n = recv(w.fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR || errno == ENOTSOCK)))
            return 0;   /* unsolicited bytes: not ours to read now */
    }
    snprintf(why, len, "lost the connection to the launcher (PMI_FD %d: %s)", w.fd,
             n < 0 ? strerror(errno) : "closed");
    return -1;
}

/* Courier's mpiexec only (its PMI-1 extension, launcher=courier):
 * "cmd=spawn_courier args=<hex> env=<hex>", answered by "cmd=spawn_result
 * rc=<0|-1> reason=<hex>".  The lists are hex so that spaces and '=' pass. */
static char *hex_of(const char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    char *h = malloc(2 * n + 1);
    if (!h) return NULL;
    for (size_t i = 0; i < n; i++) {
        h[2 * i] = digits[(unsigned char)p[i] >> 4];
        h[2 * i + 1] = digits[(unsigned char)p[i] & 15];
    }
    h[2 * n] = '\0';
    return h;
}

static int wire_spawn(const char *args, size_t alen, const char *env, size_t elen, char *why,
                      size_t wlen)
{
    if (!w.courier || w.version != 1) {
        snprintf(why, wlen, "the launcher (%s) offers no spawn that Courier can use; "
                            "Courier's own mpiexec can spawn", w.version == 2 ? "PMI-2" : "PMI-1");
        return -1;
    }
    char *ah = hex_of(args, alen), *eh = hex_of(env, elen);
    int rc = -1;
    if (!ah || !eh) {
        snprintf(why, wlen, "out of memory");
    } else if (2 * (alen + elen) + 64 > PMI_SPAWN_LINE_MAX) {
        snprintf(why, wlen, "the spawn request (%zu bytes of programs, arguments and "
                            "settings) is longer than the launcher takes", alen + elen);
    } else if (w_send("cmd=spawn_courier args=%s env=%s\n", ah, eh) == 0) {
        char *line = w1_expect("spawn_result", &rc);
        if (line && rc == 0 && w1_field_int(line, "id", &w.spawn_id) < 0) w.spawn_id = -1;
        if (!line) {
            snprintf(why, wlen, "the launcher did not answer the spawn request");
            rc = -1;
        } else if (rc != 0) {
            char hex[512];
            int n = ut_line_field(line, "reason", hex, sizeof hex);
            size_t k = 0;
            for (int i = 0; i + 1 < n && k + 1 < wlen && hex[i + 1]; i += 2) {
                unsigned v;
                if (sscanf(hex + i, "%2x", &v) != 1) break;
                why[k++] = (char)v;
            }
            if (wlen) why[k < wlen ? k : wlen - 1] = '\0';
            rc = -1;
        }
    } else {
        snprintf(why, wlen, "cannot write to the launcher");
    }
    free(ah);
    free(eh);
    return rc;
}

/* Courier's mpiexec only: "cmd=name_courier op=<p|l|u> service=<hex>
 * port=<hex>", answered by "cmd=name_result rc=<0|1|2> value=<hex>" (the
 * port of a lookup, or the reason of a refusal). */
static int wire_name(int op, const char *service, char *port, size_t plen, char *why, size_t wlen)
{
    if (!w.courier || w.version != 1) return -1;
    char *hs = hex_of(service, strlen(service)), *hp = hex_of(port, op == 'l' ? 0 : strlen(port));
    int rc = 2;
    snprintf(why, wlen, "the launcher did not answer");
    if (hs && hp && w_send("cmd=name_courier op=%c service=%s port=%s\n", op, hs, hp) == 0) {
        char *line = w1_expect("name_result", &rc);
        int n = line ? ut_line_field(line, "value", NULL, 0) : -1;
        char *hex = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (!line || !hex || rc < 0 || rc > 2) {
            rc = 2;
        } else if (rc != 0 || op == 'l') {
            ut_line_field(line, "value", hex, (size_t)n + 1);
            char *out = rc == 0 ? port : why;
            size_t olen = rc == 0 ? plen : wlen, k = 0;
            for (int i = 0; i + 1 < n && k + 1 < olen; i += 2) {
                unsigned v;
                if (sscanf(hex + i, "%2x", &v) != 1) break;
                out[k++] = (char)v;
            }
            if (olen) out[k] = '\0';
        }
        free(hex);
    }
    free(hs);
    free(hp);
    return rc;
}

/* Courier's mpiexec only: "cmd=spawn_ended id=<n>", answered by
 * "cmd=spawn_ended_result rc=<1 ended, 0 running, -1 unknown>". */
static int wire_spawn_ended(void)
{
    if (!w.courier || w.version != 1 || w.spawn_id < 0) return -1;
    int rc = -1;
    if (w_send("cmd=spawn_ended id=%d\n", w.spawn_id) != 0 || !w1_expect("spawn_ended_result", &rc))
        return -1;
    return rc;
}

static const crpmi_ops_t wire_ops = {
    .spawn = wire_spawn,
    .spawn_ended = wire_spawn_ended,
    .name = wire_name,
    .put = wire_put,
    .get = wire_get,
    .fence = wire_fence,
    .abort = wire_abort,
    .finalize = wire_finalize,
    .local_ranks = wire_local_ranks,
    .check = wire_check,
};

/* ---- connecting -------------------------------------------------------------- */

static int w_connect_port(const char *port_spec)
{
    char host[256];
    const char *colon = strrchr(port_spec, ':');
    if (!colon || colon == port_spec || (size_t)(colon - port_spec) >= sizeof host) {
        crpmi_err("cannot parse PMI_PORT=\"%s\" (expected host:port)", port_spec);
        return -1;
    }
    memcpy(host, port_spec, (size_t)(colon - port_spec));
    host[colon - port_spec] = '\0';
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res, *ai;
    int e = getaddrinfo(host, colon + 1, &hints, &res);
    if (e) {
        crpmi_err("cannot resolve PMI_PORT=\"%s\": %s", port_spec, gai_strerror(e));
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
    if (fd < 0) crpmi_err("cannot connect to PMI_PORT=\"%s\": %s", port_spec, strerror(errno));
    return fd;
}

/* Hydra's -pmi-port handshake: identify ourselves, learn rank and size. */
static int w_port_handshake(const char *id, crpmi_info_t *in)
{
    if (w_send("cmd=initack pmiid=%s\n", id) < 0) return -1;
    if (!w1_expect("initack", NULL)) return -1;
    for (int i = 0; i < 3; i++) {
        char *line = w1_expect("set", NULL);
        if (!line) return -1;
        w1_field_int(line, "size", &in->size);
        w1_field_int(line, "rank", &in->rank);
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

/* PMI-1 after init: limits, appnum, universe size, the KVS name. */
static int w1_setup(crpmi_info_t *in)
{
    char *line;
    in->max_key = PMI1_DEF_KEYLEN;
    in->max_val = PMI1_DEF_VALLEN;
    if (w_send("cmd=get_maxes\n") < 0 || !(line = w1_expect("maxes", NULL))) return -1;
    int v;
    if (w1_field_int(line, "keylen_max", &v) == 0 && v > 0) in->max_key = v;
    if (w1_field_int(line, "vallen_max", &v) == 0 && v > 0) in->max_val = v;

    if (w_send("cmd=get_appnum\n") < 0 || !(line = w1_expect("appnum", NULL))) return -1;
    w1_field_int(line, "appnum", &in->appnum);

    int rc;
    if (w_send("cmd=get_universe_size\n") < 0 || !(line = w1_expect("universe_size", &rc)))
        return -1;
    if (rc == 0) w1_field_int(line, "size", &in->universe_size);

    if (w_send("cmd=get_my_kvsname\n") < 0 || !(line = w1_expect("my_kvsname", NULL))) return -1;
    if (ut_line_field(line, "kvsname", in->kvsname, sizeof in->kvsname) < 0) {
        crpmi_err("no kvsname in the launcher's reply");
        return -1;
    }
    in->flavour = "PMI-1";
    return 0;
}

/* PMI-2 after init: fullinit (rank, size, appnum), the job id, universe size. */
static int w2_setup(crpmi_info_t *in)
{
    char rank[16];
    snprintf(rank, sizeof rank, "%d", in->rank);
    const char *jobid = getenv("PMI_JOBID");
    int rc = jobid && *jobid
                 ? w2_send("fullinit", "pmijobid", jobid, "pmirank", rank, "threaded", "FALSE",
                           (char *)NULL)
                 : w2_send("fullinit", "pmirank", rank, "threaded", "FALSE", (char *)NULL);
    pmi2_msg_t m;
    if (rc < 0 || w2_expect("fullinit-response", &m) < 0) return -1;
    int size = in->size, r = in->rank;
    w2_field_int(&m, "size", &size);
    w2_field_int(&m, "rank", &r);
    if (size != in->size || r != in->rank) {
        crpmi_err("the launcher says rank %d of %d, the environment rank %d of %d", r, size,
                  in->rank, in->size);
        return -1;
    }
    w2_field_int(&m, "appnum", &in->appnum);

    if (w2_send("job-getid", (char *)NULL) < 0 || w2_expect("job-getid-response", &m) < 0)
        return -1;
    const char *id = w2_field(&m, "jobid");
    if (!id || !*id) {
        crpmi_err("no jobid in the launcher's job-getid-response");
        return -1;
    }
    snprintf(in->kvsname, sizeof in->kvsname, "%s", id);

    if (w2_send("info-getjobattr", "key", "universeSize", (char *)NULL) < 0 ||
        w2_expect("info-getjobattr-response", &m) < 0)
        return -1;
    if (w2_true(&m, "found")) w2_field_int(&m, "value", &in->universe_size);
    in->max_key = PMI2_KEYLEN;
    in->max_val = PMI2_VALLEN;
    in->flavour = "PMI-2";
    return 0;
}

const crpmi_ops_t *crpmi_wire_init(crpmi_info_t *in, int version)
{
    const char *fds = getenv("PMI_FD"), *port = getenv("PMI_PORT");
    /* PMI-2 where the environment names a PMI-2 job (Slurm's PMI_JOBID):
     * Hydra answers version 2 too, but its kvs-fence does not wait for the
     * other ranks when nobody put anything, and it has no PMI-2 abort. */
    const char *jobid = getenv("PMI_JOBID");
    int want = version ? version : jobid && *jobid ? 2 : 1;
    if (fds && *fds) {
        char *end;
        long fd = strtol(fds, &end, 10);
        if (*end || fd < 0 || fcntl((int)fd, F_GETFD) < 0) {
            crpmi_err("PMI_FD=\"%s\" is not an open file descriptor", fds);
            return NULL;
        }
        w.fd = (int)fd;
        /* Programs the rank starts must not inherit the launcher's socket. */
        fcntl(w.fd, F_SETFD, FD_CLOEXEC);
        if (env_int("PMI_RANK", &in->rank) < 0 || env_int("PMI_SIZE", &in->size) < 0) {
            crpmi_err("PMI_FD is set but PMI_RANK or PMI_SIZE is missing");
            return NULL;
        }
    } else {
        const char *id = getenv("PMI_ID");
        if (!id || !*id) {
            crpmi_err("PMI_PORT is set but PMI_ID is missing");
            return NULL;
        }
        if (version == 2) {
            crpmi_err("COURIER_PMI=2, but PMI-2 is not spoken over PMI_PORT (Hydra's -pmi-port)");
            return NULL;
        }
        want = 1;
        if ((w.fd = w_connect_port(port)) < 0) return NULL;
        if (w_port_handshake(id, in) < 0) goto fail;
    }
    if (in->size < 1 || in->rank >= in->size) {
        crpmi_err("bad rank %d / size %d from the launcher", in->rank, in->size);
        goto fail;
    }
    w.rank = in->rank;
    w.size = in->size;
    crpmi_my_rank = in->rank;

    char *line;
    if (w_send("cmd=init pmi_version=%d pmi_subversion=%d\n", want, want == 2 ? 0 : 1) < 0)
        goto fail;
    int rc;
    if (!(line = w1_expect("response_to_init", &rc))) goto fail;
    char buf[256];
    if (ut_line_field(line, "launcher", buf, sizeof buf) >= 0 && !strcmp(buf, "courier"))
        w.courier = 1;
    int offered = 1;
    w1_field_int(line, "pmi_version", &offered);
    if (rc != 0 || (offered != want && version != 0) || (offered != 1 && offered != 2)) {
        crpmi_err("the launcher refused PMI version %d (it answered version %d, rc=%d)", want,
                  offered, rc);
        goto fail;
    }
    w.version = offered;
    if ((w.version == 2 ? w2_setup(in) : w1_setup(in)) < 0) goto fail;
    snprintf(w.kvsname, sizeof w.kvsname, "%s", in->kvsname);
    return &wire_ops;
fail:
    if (!(fds && *fds) && w.fd >= 0) close(w.fd);
    w.fd = -1;
    crpmi_my_rank = -1;
    return NULL;
}
