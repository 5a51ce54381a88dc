/* SPDX-License-Identifier: MIT */
/* The protocol between mpiexec and its proxies: framed messages over one TCP
 * connection per proxy, and the handshake that opens every connection.
 *
 * A frame is a 12-byte header (payload length, type, a small argument, a
 * rank; big-endian) and the payload.  The handshake, before any other frame:
 *   mpiexec -> proxy   CHALLENGE  32 random bytes Ns
 *   proxy -> mpiexec   RESPONSE   rank = proxy id; Nc (32 random bytes) and
 *                                 HMAC(secret, "courier-proxy" Ns Nc id)
 *   mpiexec -> proxy   ACCEPT     HMAC(secret, "courier-mpiexec" Nc Ns)
 * so each side proves it knows the job's secret without sending it, and a
 * recorded exchange is worth nothing for another connection.  mpiexec drops a
 * connection whose first frame is anything else or comes too late, and a
 * proxy never runs anything for a peer that has not answered with ACCEPT.
 * After the handshake the connection carries frames of the types below, in
 * order; nothing is encrypted (as with Hydra), only authenticated at the start.
 *
 * Connections are non-blocking: la_conn_send() queues and writes what the
 * socket takes; the rest goes out from the caller's poll loop (POLLOUT). */
#ifndef COURIER_LAUNCHER_WIRE_H
#define COURIER_LAUNCHER_WIRE_H
#include <stdint.h>
#include "auth.h"
#include "common.h"

enum {
    LA_F_CHALLENGE = 1, /* m->p  nonce */
    LA_F_RESPONSE,      /* p->m  rank=id; nonce + mac */
    LA_F_ACCEPT,        /* m->p  mac */
    LA_F_HELLO,         /* p->m  key/value: host, pid */
    LA_F_JOB,           /* m->p  key/value job description (proxy.c) */
    LA_F_STARTED,       /* p->m  rank; pid in decimal */
    LA_F_PMI,           /* p->m  rank; one PMI request line without '\n'; arg 1: the
                         *       proxy has answered it (mpiexec only takes note) */
    LA_F_REPLY,         /* m->p  rank (-1: every rank of the proxy); PMI reply bytes */
    LA_F_OUT,           /* p->m  rank; arg 1 stdout, 2 stderr; bytes (none: end of file) */
    LA_F_EXIT,          /* p->m  rank; wait status in decimal */
    LA_F_SPAWNERR,      /* p->m  rank; arg exit code (126/127); message */
    LA_F_MSG,           /* p->m  a line for mpiexec's stderr (warnings, binding reports) */
    LA_F_STDIN,         /* m->p  rank; bytes for its stdin (none: end of file) */
    LA_F_STDIN_ACK,     /* p->m  the last STDIN bytes were written to the rank */
    LA_F_SIGNAL,        /* m->p  arg = signal for every rank of the proxy (SIGUSR1, ...) */
    LA_F_KILL,          /* m->p  the job ends: start nothing more, send arg to every rank */
    LA_F_CLOSE_OUT,     /* m->p  arg = 1 or 2: mpiexec's stdout/stderr is gone */
    LA_F_CHILD_FAIL,    /* p->m  rank = proxy id it failed to start; message */
    LA_F_BYE,           /* m->p  the job is over: exit */
    LA_F_KVS,           /* m->p  key/value: keys put since the last barrier (before its REPLY) */
};

#define LA_FRAME_HDR 12
/* Largest payload accepted once authenticated (a job description with a big
 * environment is the largest frame), and before. */
#define LA_FRAME_MAX (64u << 20)
#define LA_FRAME_MAX_UNAUTH 256

typedef struct {
    int type, arg, rank;
    const char *p;      /* payload, valid until the next la_conn_* call */
    size_t len;
} la_frame_t;

/* A connection's descriptor before it exists: frames are queued (a proxy
 * that got its job on stdin starts its ranks while it connects). */
#define LA_CONN_LATER (-2)

typedef struct {
    int fd;             /* -1 once closed; LA_CONN_LATER: not yet open */
    la_buf_t out;
    char *in;
    size_t ioff, ilen, icap;   /* unparsed input is in[ioff, ilen) */
} la_conn_t;

void la_conn_init(la_conn_t *c, int fd);
/* Close the socket and free the buffers. */
void la_conn_close(la_conn_t *c);
/* c (LA_CONN_LATER, frames queued) takes over the socket of from, which has
 * just finished the handshake: what from holds goes first, then c's queue. */
void la_conn_attach(la_conn_t *c, la_conn_t *from);
/* One frame, encoded, appended to b. */
void la_frame_add(la_buf_t *b, int type, int arg, int rank, const void *p, size_t len);
/* Read exactly one frame of at most maxlen bytes from descriptor fd (a pipe:
 * nothing after it is consumed), waiting until deadline_ms.  Returns 1 with
 * *f pointing into *store (malloc'ed; the caller frees it), or -1. */
int la_frame_read_fd(int fd, la_frame_t *f, char **store, size_t maxlen, long long deadline_ms);
/* Queue one frame and write what the socket takes now. */
void la_conn_send(la_conn_t *c, int type, int arg, int rank, const void *p, size_t len);
/* Write queued bytes without blocking: 0, or -1 when the connection broke. */
int la_conn_flush(la_conn_t *c);
/* Write every queued byte, waiting up to timeout_ms: 0, or -1. */
int la_conn_flush_wait(la_conn_t *c, int timeout_ms);
static inline int la_conn_want_write(const la_conn_t *c) { return la_buf_pending(&c->out) > 0; }
/* One read() of what has arrived: > 0 bytes read, 0 nothing now, -1 end of
 * file or error. */
int la_conn_fill(la_conn_t *c);
/* The next complete frame: 1 (in *f), 0 none yet, -1 a frame longer than
 * maxlen (a broken or hostile peer). */
int la_conn_next(la_conn_t *c, la_frame_t *f, size_t maxlen);

/* Handshake, mpiexec's side: send CHALLENGE with a fresh nonce (kept in
 * nonce).  Returns 0, or -1 when no random bytes are to be had. */
int la_auth_challenge(la_conn_t *c, uint8_t nonce[LA_NONCE_BYTES]);
/* Check a RESPONSE frame against the challenge; on success send ACCEPT, set
 * *id and return 0.  Returns -1 (send nothing) when the proof is wrong. */
int la_auth_accept(la_conn_t *c, const uint8_t secret[LA_SECRET_BYTES],
                   const uint8_t nonce[LA_NONCE_BYTES], const la_frame_t *f, int *id);
/* Handshake, the proxy's side, blocking until deadline_ms (la_now_ms time):
 * answer the challenge as proxy id and check mpiexec's proof.  Returns 0, or
 * -1 with a reason in why. */
int la_auth_client(la_conn_t *c, const uint8_t secret[LA_SECRET_BYTES], int id,
                   long long deadline_ms, char *why, size_t whylen);

/* Key/value payloads ("key\0value\0" ...; keys may repeat). */
void la_kv_add(la_buf_t *b, const char *key, const char *val);
void la_kv_addf(la_buf_t *b, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Step through a payload: 1 with *key and *val set, 0 at the end, -1 if malformed. */
int la_kv_next(const char **pos, const char *end, const char **key, const char **val);
#endif
