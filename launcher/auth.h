/* SPDX-License-Identifier: MIT */
/* The per-job secret and what proves knowledge of it: SHA-256 (FIPS 180-4),
 * HMAC-SHA-256 (RFC 2104), random bytes from the kernel, hex encoding and a
 * constant-time comparison.  mpiexec makes the secret; it reaches a proxy on
 * the ssh session's stdin (or in the environment under srun), never on a
 * command line, and both sides prove they know it with HMACs over fresh
 * nonces (wire.h) before anything else crosses a TCP connection. */
#ifndef COURIER_LAUNCHER_AUTH_H
#define COURIER_LAUNCHER_AUTH_H
#include <stddef.h>
#include <stdint.h>

#define LA_SECRET_BYTES 32
#define LA_NONCE_BYTES 32
#define LA_MAC_BYTES 32
/* Environment variable that carries the secret in hex where there is no stdin
 * to pass it on (srun); the proxy removes it from its environment at once. */
#define LA_SECRET_ENV "COURIER_LAUNCH_SECRET"

typedef struct {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t block[64];
    size_t fill;
} la_sha256_t;

void la_sha256_init(la_sha256_t *c);
void la_sha256_update(la_sha256_t *c, const void *p, size_t n);
void la_sha256_final(la_sha256_t *c, uint8_t out[32]);

/* HMAC-SHA-256 of the concatenation of n parts (pointer, length pairs). */
void la_hmac(const uint8_t *key, size_t keylen, uint8_t out[LA_MAC_BYTES], int n, ...);

/* n random bytes (getrandom).  Returns 0, or -1 when the kernel gives none. */
int la_random(void *p, size_t n);
/* 2n hex digits and a NUL into out. */
void la_hex(const uint8_t *p, size_t n, char *out);
/* Exactly 2n hex digits from s into p.  Returns 0, or -1. */
int la_unhex(const char *s, uint8_t *p, size_t n);
/* 1 when a and b are equal, in time independent of where they differ. */
int la_equal_ct(const void *a, const void *b, size_t n);
#endif
