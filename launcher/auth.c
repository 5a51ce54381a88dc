/* SPDX-License-Identifier: MIT */
/* SHA-256, HMAC-SHA-256, random bytes and hex (see auth.h). */
#define _GNU_SOURCE
#include "auth.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/random.h>

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t h[8], const uint8_t *b)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 | (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = hh + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = bb;
        bb = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += bb;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += hh;
}

void la_sha256_init(la_sha256_t *c)
{
    static const uint32_t init[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    memcpy(c->h, init, sizeof init);
    c->bytes = 0;
    c->fill = 0;
}

void la_sha256_update(la_sha256_t *c, const void *data, size_t n)
{
    const uint8_t *p = data;
    c->bytes += n;
    while (n > 0) {
        size_t take = 64 - c->fill < n ? 64 - c->fill : n;
        memcpy(c->block + c->fill, p, take);
        c->fill += take;
        p += take;
        n -= take;
        if (c->fill == 64) {
            compress(c->h, c->block);
            c->fill = 0;
        }
    }
}

void la_sha256_final(la_sha256_t *c, uint8_t out[32])
{
    uint64_t bits = c->bytes * 8;
    uint8_t pad = 0x80;
    la_sha256_update(c, &pad, 1);
    pad = 0;
    while (c->fill != 56) la_sha256_update(c, &pad, 1);
    uint8_t len[8];
    for (int i = 0; i < 8; i++) len[i] = (uint8_t)(bits >> (56 - 8 * i));
    la_sha256_update(c, len, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(c->h[i] >> 24);
        out[4 * i + 1] = (uint8_t)(c->h[i] >> 16);
        out[4 * i + 2] = (uint8_t)(c->h[i] >> 8);
        out[4 * i + 3] = (uint8_t)c->h[i];
    }
}

void la_hmac(const uint8_t *key, size_t keylen, uint8_t out[LA_MAC_BYTES], int n, ...)
{
    uint8_t k[64] = { 0 }, pad[64], inner[32];
    if (keylen > 64) {
        la_sha256_t c;
        la_sha256_init(&c);
        la_sha256_update(&c, key, keylen);
        la_sha256_final(&c, k);
    } else {
        memcpy(k, key, keylen);
    }
    la_sha256_t c;
    la_sha256_init(&c);
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
    la_sha256_update(&c, pad, 64);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        const void *p = va_arg(ap, const void *);
        size_t len = va_arg(ap, size_t);
        la_sha256_update(&c, p, len);
    }
    va_end(ap);
    la_sha256_final(&c, inner);
    la_sha256_init(&c);
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
    la_sha256_update(&c, pad, 64);
    la_sha256_update(&c, inner, 32);
    la_sha256_final(&c, out);
}

int la_random(void *p, size_t n)
{
    uint8_t *b = p;
    while (n > 0) {
        ssize_t got = getrandom(b, n, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        b += got;
        n -= (size_t)got;
    }
    return 0;
}

void la_hex(const uint8_t *p, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int la_unhex(const char *s, uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(s[2 * i]), lo = hi < 0 ? -1 : hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        p[i] = (uint8_t)(hi << 4 | lo);
    }
    return s[2 * n] == '\0' || s[2 * n] == '\n' || s[2 * n] == '\r' ? 0 : -1;
}

int la_equal_ct(const void *a, const void *b, size_t n)
{
    const volatile uint8_t *x = a, *y = b;
    uint8_t d = 0;
    for (size_t i = 0; i < n; i++) d |= x[i] ^ y[i];
    return d == 0;
}
