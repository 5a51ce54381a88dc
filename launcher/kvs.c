/* SPDX-License-Identifier: MIT */
/* The launcher's PMI-1 key-value space and request fields (see kvs.h). */
#define _GNU_SOURCE
#include "kvs.h"
#include "wire.h"
#include "util/field.h"

#include <stdlib.h>
#include <string.h>

/* Hash buckets of a key-value space. */
#define LA_KVS_BUCKETS 4096

static unsigned kvs_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h % LA_KVS_BUCKETS;
}

static void mark_fresh(la_kvs_t *s, la_kv_t *kv)
{
    if (kv->fresh) return;
    kv->fresh = 1;
    if (s->nfresh == s->capfresh) {
        s->capfresh = s->capfresh ? 2 * s->capfresh : 64;
        s->fresh = la_realloc(s->fresh, sizeof *s->fresh * (size_t)s->capfresh);
    }
    s->fresh[s->nfresh++] = kv;
}

void la_kvs_put(la_kvs_t *s, const char *key, const char *val)
{
    if (!s->b) s->b = la_calloc(LA_KVS_BUCKETS, sizeof *s->b);
    unsigned h = kvs_hash(key);
    for (la_kv_t *kv = s->b[h]; kv; kv = kv->next)
        if (!strcmp(kv->key, key)) {
            free(kv->val);
            kv->val = la_strdup(val);
            mark_fresh(s, kv);
            return;
        }
    la_kv_t *kv = la_calloc(1, sizeof *kv);
    kv->key = la_strdup(key);
    kv->val = la_strdup(val);
    kv->next = s->b[h];
    s->b[h] = kv;
    mark_fresh(s, kv);
}

const char *la_kvs_get(const la_kvs_t *s, const char *key)
{
    if (!s->b) return NULL;
    for (la_kv_t *kv = s->b[kvs_hash(key)]; kv; kv = kv->next)
        if (!strcmp(kv->key, key)) return kv->val;
    return NULL;
}

int la_kvs_fresh(la_kvs_t *s, la_buf_t *out)
{
    int n = s->nfresh;
    for (int k = 0; k < n; k++) {
        if (out) la_kv_add(out, s->fresh[k]->key, s->fresh[k]->val);
        s->fresh[k]->fresh = 0;
    }
    s->nfresh = 0;
    return n;
}

void la_kvs_free(la_kvs_t *s)
{
    for (int h = 0; s->b && h < LA_KVS_BUCKETS; h++)
        for (la_kv_t *kv = s->b[h], *nx; kv; kv = nx) {
            nx = kv->next;
            free(kv->key);
            free(kv->val);
            free(kv);
        }
    free(s->b);
    free(s->fresh);
    *s = (la_kvs_t){ 0 };
}

int la_pmi_field(const char *line, const char *key, char *out, size_t outlen)
{
    int n = ut_line_field(line, key, out, outlen);
    return n < 0 || (size_t)n >= outlen ? -1 : 0;
}
