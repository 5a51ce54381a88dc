/* SPDX-License-Identifier: MIT */
/* The PMI-1 key-value space as the launcher keeps it, and what mpiexec and
 * courier_proxy both need to serve PMI-1 requests: the limits they announce,
 * the replies that never depend on the job's state, and a request's fields.
 *
 * mpiexec holds the job's space; each proxy holds a copy of what it has seen
 * (its own ranks' puts, and every key put anywhere before a barrier, which
 * mpiexec sends each proxy with the barrier's release), so that a rank's get
 * after a barrier is answered on its own host. */
#ifndef COURIER_LAUNCHER_KVS_H
#define COURIER_LAUNCHER_KVS_H
#include <stddef.h>
#include "common.h"

#define LA_PMI_KVSNAME_MAX 256
#define LA_PMI_KEYLEN_MAX 256
#define LA_PMI_VALLEN_MAX 4096
/* The replies to init (always PMI-1: src/pmi/pmi_wire.c then speaks PMI-1),
 * get_maxes, a put that was stored, finalize and a barrier. */
#define LA_PMI_STR_(x) #x
#define LA_PMI_STR(x) LA_PMI_STR_(x)
#define LA_PMI_MAXES_REPLY "cmd=maxes rc=0 kvsname_max=" LA_PMI_STR(LA_PMI_KVSNAME_MAX) \
    " keylen_max=" LA_PMI_STR(LA_PMI_KEYLEN_MAX) " vallen_max=" LA_PMI_STR(LA_PMI_VALLEN_MAX) "\n"
#define LA_PMI_INIT_REPLY "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1 launcher=courier\n"
#define LA_PMI_PUT_REPLY "cmd=put_result rc=0 msg=success\n"
#define LA_PMI_FINALIZE_REPLY "cmd=finalize_ack rc=0\n"
#define LA_PMI_BARRIER_REPLY "cmd=barrier_out rc=0\n"

typedef struct la_kv {
    struct la_kv *next;
    char *key, *val;
    int fresh;                /* put since the last la_kvs_fresh() */
} la_kv_t;

typedef struct {
    la_kv_t **b;              /* buckets (NULL until the first put) */
    la_kv_t **fresh;          /* keys put since the last la_kvs_fresh() */
    int nfresh, capfresh;
} la_kvs_t;

/* Store (or replace) key = val; it counts as fresh. */
void la_kvs_put(la_kvs_t *s, const char *key, const char *val);
/* The value of key, or NULL. */
const char *la_kvs_get(const la_kvs_t *s, const char *key);
/* The keys put since the last call, as a key/value payload (wire.h's
 * la_kv_add format) appended to out; returns how many. */
int la_kvs_fresh(la_kvs_t *s, la_buf_t *out);
void la_kvs_free(la_kvs_t *s);

/* The value of word key=... of a PMI-1 request line (up to the next blank)
 * into out.  Returns 0, or -1 when the key is absent or its value does not
 * fit. */
int la_pmi_field(const char *line, const char *key, char *out, size_t outlen);
#endif
