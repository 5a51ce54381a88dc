/* SPDX-License-Identifier: MIT */
/* Frames, connections and the handshake between mpiexec and its proxies
 * (see wire.h). */
#define _GNU_SOURCE
#include "wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Bytes asked of each read(). */
#define LA_READ_CHUNK 65536

static const char client_tag[] = "courier-proxy", server_tag[] = "courier-mpiexec";

void la_conn_init(la_conn_t *c, int fd)
{
    *c = (la_conn_t){ .fd = fd };
    la_set_nonblock(fd);
}

void la_conn_close(la_conn_t *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    la_buf_free(&c->out);
    free(c->in);
    c->in = NULL;
    c->ioff = c->ilen = c->icap = 0;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

void la_frame_add(la_buf_t *b, int type, int arg, int rank, const void *p, size_t len)
{
    uint8_t h[LA_FRAME_HDR];
    put32(h, (uint32_t)len);
    h[4] = (uint8_t)(type >> 8);
    h[5] = (uint8_t)type;
    h[6] = (uint8_t)(arg >> 8);
    h[7] = (uint8_t)arg;
    put32(h + 8, (uint32_t)rank);
    la_buf_add(b, h, sizeof h);
    if (len) la_buf_add(b, p, len);
}

void la_conn_send(la_conn_t *c, int type, int arg, int rank, const void *p, size_t len)
{
    if (c->fd < 0 && c->fd != LA_CONN_LATER) return;
    la_frame_add(&c->out, type, arg, rank, p, len);
    la_conn_flush(c);
}

void la_conn_attach(la_conn_t *c, la_conn_t *from)
{
    la_buf_t out = { 0 };
    la_buf_add(&out, from->out.p + from->out.off, la_buf_pending(&from->out));
    la_buf_add(&out, c->out.p + c->out.off, la_buf_pending(&c->out));
    la_buf_free(&from->out);
    la_buf_free(&c->out);
    free(c->in);
    *c = *from;
    c->out = out;
    *from = (la_conn_t){ .fd = -1 };
    la_conn_flush(c);
}

/* Read exactly n bytes from fd before deadline: 0, or -1. */
static int read_exact(int fd, void *p, size_t n, long long deadline)
{
    size_t got = 0;
    while (got < n) {
        long long left = deadline - la_now_ms();
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        if (left <= 0) return -1;
        int r = poll(&pf, 1, (int)left);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        ssize_t k = read(fd, (char *)p + got, n - got);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) return -1;
        got += (size_t)k;
    }
    return 0;
}

int la_frame_read_fd(int fd, la_frame_t *f, char **store, size_t maxlen, long long deadline_ms)
{
    uint8_t h[LA_FRAME_HDR];
    *store = NULL;
    if (read_exact(fd, h, sizeof h, deadline_ms) < 0) return -1;
    size_t len = get32(h);
    if (len > maxlen) return -1;
    char *b = la_malloc(len + 1);
    if (read_exact(fd, b, len, deadline_ms) < 0) {
        free(b);
        return -1;
    }
    f->type = h[4] << 8 | h[5];
    f->arg = h[6] << 8 | h[7];
    f->rank = (int32_t)get32(h + 8);
    f->p = b;
    f->len = len;
    *store = b;
    return 1;
}

int la_conn_flush(la_conn_t *c)
{
    if (c->fd == LA_CONN_LATER) return 0;
    if (c->fd < 0) return -1;
    while (la_buf_pending(&c->out)) {
        ssize_t n = send(c->fd, c->out.p + c->out.off, la_buf_pending(&c->out), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return -1;
        }
        c->out.off += (size_t)n;
    }
    c->out.off = c->out.len = 0;
    return 0;
}

int la_conn_flush_wait(la_conn_t *c, int timeout_ms)
{
    long long end = la_now_ms() + timeout_ms;
    for (;;) {
        if (la_conn_flush(c) < 0) return -1;
        if (!la_conn_want_write(c)) return 0;
        long long left = end - la_now_ms();
        if (left <= 0) return -1;
        struct pollfd pf = { .fd = c->fd, .events = POLLOUT };
        poll(&pf, 1, (int)left);
    }
}

int la_conn_fill(la_conn_t *c)
{
    if (c->fd < 0) return -1;
    if (c->ioff > 0 && c->ioff == c->ilen) c->ioff = c->ilen = 0;
    if (c->icap - c->ilen < LA_READ_CHUNK) {
        if (c->ioff > 0) {
            memmove(c->in, c->in + c->ioff, c->ilen - c->ioff);
            c->ilen -= c->ioff;
            c->ioff = 0;
        }
        if (c->icap - c->ilen < LA_READ_CHUNK) {
            c->icap = c->ilen + 2 * LA_READ_CHUNK;
            c->in = la_realloc(c->in, c->icap);
        }
    }
    for (;;) {
        ssize_t n = read(c->fd, c->in + c->ilen, c->icap - c->ilen);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (n <= 0) return -1;
        c->ilen += (size_t)n;
        return (int)n;
    }
}

int la_conn_next(la_conn_t *c, la_frame_t *f, size_t maxlen)
{
    size_t avail = c->ilen - c->ioff;
    if (avail < LA_FRAME_HDR) return 0;
    const uint8_t *h = (const uint8_t *)c->in + c->ioff;
    size_t len = get32(h);
    if (len > maxlen) return -1;
    if (avail < LA_FRAME_HDR + len) {
        /* Make sure the whole frame will fit. */
        if (c->icap < LA_FRAME_HDR + len + LA_READ_CHUNK) {
            memmove(c->in, c->in + c->ioff, avail);
            c->ilen = avail;
            c->ioff = 0;
            c->icap = LA_FRAME_HDR + len + 2 * LA_READ_CHUNK;
            c->in = la_realloc(c->in, c->icap);
        }
        return 0;
    }
    f->type = h[4] << 8 | h[5];
    f->arg = h[6] << 8 | h[7];
    f->rank = (int32_t)get32(h + 8);
    f->p = c->in + c->ioff + LA_FRAME_HDR;
    f->len = len;
    c->ioff += LA_FRAME_HDR + len;
    return 1;
}

/* ---- handshake ------------------------------------------------------------------- */

int la_auth_challenge(la_conn_t *c, uint8_t nonce[LA_NONCE_BYTES])
{
    if (la_random(nonce, LA_NONCE_BYTES) < 0) return -1;
    la_conn_send(c, LA_F_CHALLENGE, 0, 0, nonce, LA_NONCE_BYTES);
    return 0;
}

int la_auth_accept(la_conn_t *c, const uint8_t secret[LA_SECRET_BYTES],
                   const uint8_t nonce[LA_NONCE_BYTES], const la_frame_t *f, int *id)
{
    if (f->type != LA_F_RESPONSE || f->len != LA_NONCE_BYTES + LA_MAC_BYTES || f->rank < 0) return -1;
    const uint8_t *nc = (const uint8_t *)f->p;
    uint8_t idb[4], want[LA_MAC_BYTES], reply[LA_MAC_BYTES];
    put32(idb, (uint32_t)f->rank);
    la_hmac(secret, LA_SECRET_BYTES, want, 4, client_tag, sizeof client_tag, nonce, (size_t)LA_NONCE_BYTES,
            nc, (size_t)LA_NONCE_BYTES, idb, sizeof idb);
    if (!la_equal_ct(want, nc + LA_NONCE_BYTES, LA_MAC_BYTES)) return -1;
    la_hmac(secret, LA_SECRET_BYTES, reply, 3, server_tag, sizeof server_tag, nc, (size_t)LA_NONCE_BYTES,
            nonce, (size_t)LA_NONCE_BYTES);
    la_conn_send(c, LA_F_ACCEPT, 0, 0, reply, sizeof reply);
    *id = f->rank;
    return 0;
}

/* Wait for the next frame (at most maxlen bytes) until deadline. */
static int next_blocking(la_conn_t *c, la_frame_t *f, size_t maxlen, long long deadline)
{
    for (;;) {
        int r = la_conn_next(c, f, maxlen);
        if (r) return r;
        long long left = deadline - la_now_ms();
        if (left <= 0) return -1;
        struct pollfd pf = { .fd = c->fd, .events = POLLIN };
        if (la_conn_want_write(c)) pf.events |= POLLOUT;
        if (poll(&pf, 1, (int)left) < 0 && errno != EINTR) return -1;
        if (pf.revents & POLLOUT) la_conn_flush(c);
        if ((pf.revents & (POLLIN | POLLHUP | POLLERR)) && la_conn_fill(c) < 0) return -1;
    }
}

int la_auth_client(la_conn_t *c, const uint8_t secret[LA_SECRET_BYTES], int id,
                   long long deadline_ms, char *why, size_t whylen)
{
    la_frame_t f;
    if (next_blocking(c, &f, LA_FRAME_MAX_UNAUTH, deadline_ms) != 1 || f.type != LA_F_CHALLENGE ||
        f.len != LA_NONCE_BYTES) {
        snprintf(why, whylen, "no challenge from mpiexec");
        return -1;
    }
    uint8_t ns[LA_NONCE_BYTES], resp[LA_NONCE_BYTES + LA_MAC_BYTES], idb[4], want[LA_MAC_BYTES];
    memcpy(ns, f.p, sizeof ns);
    if (la_random(resp, LA_NONCE_BYTES) < 0) {
        snprintf(why, whylen, "no random bytes: %s", strerror(errno));
        return -1;
    }
    put32(idb, (uint32_t)id);
    la_hmac(secret, LA_SECRET_BYTES, resp + LA_NONCE_BYTES, 4, client_tag, sizeof client_tag, ns,
            sizeof ns, resp, (size_t)LA_NONCE_BYTES, idb, sizeof idb);
    la_conn_send(c, LA_F_RESPONSE, 0, id, resp, sizeof resp);
    if (next_blocking(c, &f, LA_FRAME_MAX_UNAUTH, deadline_ms) != 1 || f.type != LA_F_ACCEPT ||
        f.len != LA_MAC_BYTES) {
        snprintf(why, whylen, "mpiexec did not accept this proxy (wrong secret?)");
        return -1;
    }
    la_hmac(secret, LA_SECRET_BYTES, want, 3, server_tag, sizeof server_tag, resp, (size_t)LA_NONCE_BYTES,
            ns, sizeof ns);
    if (!la_equal_ct(want, f.p, LA_MAC_BYTES)) {
        snprintf(why, whylen, "the peer does not know the job's secret");
        return -1;
    }
    return 0;
}

/* ---- key/value payloads ------------------------------------------------------------- */

void la_kv_add(la_buf_t *b, const char *key, const char *val)
{
    la_buf_add(b, key, strlen(key) + 1);
    la_buf_add(b, val, strlen(val) + 1);
}

void la_kv_addf(la_buf_t *b, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) la_die(1, "out of memory");
    va_end(ap);
    la_kv_add(b, key, s);
    free(s);
}

int la_kv_next(const char **pos, const char *end, const char **key, const char **val)
{
    const char *p = *pos;
    if (p >= end) return 0;
    const char *z1 = memchr(p, '\0', (size_t)(end - p));
    if (!z1) return -1;
    const char *z2 = memchr(z1 + 1, '\0', (size_t)(end - z1 - 1));
    if (!z2) return -1;
    *key = p;
    *val = z1 + 1;
    *pos = z2 + 1;
    return 1;
}
