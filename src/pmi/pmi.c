/* SPDX-License-Identifier: MIT */
/* Front end of the process-manager client (see pmi.h): picks the protocol
 * from the environment, checks arguments and state, keeps the singleton's
 * key-value space, and shares small helpers with the clients (pmi_impl.h).
 *
 * Choice (COURIER_PMI: 0 automatic, 1 PMI-1, 2 PMI-2, 3 PMIx):
 *   PMI_FD or PMI_PORT set   the wire protocols (pmi_wire.c); automatic
 *                            asks for PMI-2 when PMI_JOBID is set too and
 *                            takes what the launcher answers, else PMI-1
 *   else PMIX_RANK and PMIX_NAMESPACE set   PMIx (pmix.c)
 *   else                     singleton. */
#define _GNU_SOURCE
#include "pmi/pmi_impl.h"
#include "util/settings.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Values of COURIER_PMI. */
enum { PMI_CHOOSE_AUTO = 0, PMI_CHOOSE_V1 = 1, PMI_CHOOSE_V2 = 2, PMI_CHOOSE_PMIX = 3 };
/* Limits of the singleton's own key-value space. */
#define PMI_SINGLETON_KEYLEN 256
#define PMI_SINGLETON_VALLEN (1 << 20)

typedef struct pmi_kv {
    struct pmi_kv *next;
    char *key, *val;
} pmi_kv_t;

static struct {
    int initialized;
    int finalized;
    const crpmi_ops_t *ops;   /* NULL for a singleton */
    crpmi_info_t info;
    pmi_kv_t *local;          /* singleton KVS */
} pmi;

/* One request at a time on the launcher's connection: threads on different
 * channels may look up peers' network addresses at once (the network
 * transport's connect, under a channel's lock alone), beside calls made
 * under the library lock.  A leaf lock: nothing else is taken while it is
 * held. */
static pthread_mutex_t pmi_lock = PTHREAD_MUTEX_INITIALIZER;
#define PMI_LOCKED(expr)                  \
    ({                                    \
        pthread_mutex_lock(&pmi_lock);    \
        __typeof__(expr) rc_ = (expr);    \
        pthread_mutex_unlock(&pmi_lock);  \
        rc_;                              \
    })

int crpmi_my_rank = -1;

void crpmi_err(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (crpmi_my_rank >= 0)
        fprintf(stderr, "courier: [rank %d] PMI: %s\n", crpmi_my_rank, buf);
    else
        fprintf(stderr, "courier: PMI: %s\n", buf);
}

static int env_set(const char *name)
{
    const char *s = getenv(name);
    return s && *s;
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
    in->universe_size = -1;
    long choose = ut_settings.pmi;
    if (choose < PMI_CHOOSE_AUTO || choose > PMI_CHOOSE_PMIX) {
        crpmi_err("COURIER_PMI=%ld is not one of 0 (automatic), 1 (PMI-1), 2 (PMI-2), 3 (PMIx)",
                  choose);
        return -1;
    }
    int wire = env_set("PMI_FD") || env_set("PMI_PORT");
    int pmix = env_set("PMIX_RANK") && env_set("PMIX_NAMESPACE");

    if (choose == PMI_CHOOSE_PMIX || (choose == PMI_CHOOSE_AUTO && !wire && pmix)) {
        pmi.ops = crpmi_pmix_init(in);
    } else if (wire) {
        pmi.ops = crpmi_wire_init(in, (int)choose);
    } else if (choose != PMI_CHOOSE_AUTO) {
        crpmi_err("COURIER_PMI=%ld asks for %s, but neither PMI_FD nor PMI_PORT is set "
                  "(was the program started by a launcher?)", choose,
                  choose == PMI_CHOOSE_V1 ? "PMI-1" : "PMI-2");
        return -1;
    } else {
        in->singleton = 1;
        in->flavour = "singleton";
        in->max_key = PMI_SINGLETON_KEYLEN;
        in->max_val = PMI_SINGLETON_VALLEN;
        in->universe_size = 1;
        snprintf(in->kvsname, sizeof in->kvsname, "singleton_%d", (int)getpid());
        pmi.initialized = 1;
        if (info) *info = *in;
        return 0;
    }
    if (!pmi.ops) return -1;
    in->universe_stated = in->universe_size > 0;
    if (in->universe_size < in->size) in->universe_size = in->size;
    /* Slurm answers -1 (unknown): one srun starts one application. */
    if (in->appnum < 0) in->appnum = 0;
    crpmi_my_rank = in->rank;
    pmi.initialized = 1;
    pmi.finalized = 0;
    if (info) *info = *in;
    return 0;
}

/* ---- key-value space --------------------------------------------------------- */

static int pmi_ready(const char *call)
{
    if (pmi.initialized) return 1;
    crpmi_err("%s before crpmi_init", call);
    return 0;
}

static int pmi_check_token(const char *what, const char *s, int max)
{
    size_t len = strlen(s);
    if (len == 0 || (int)len >= max) {
        crpmi_err("%s of %zu bytes (the launcher allows 1 to %d)", what, len, max - 1);
        return -1;
    }
    if (strpbrk(s, " \t\r\n;")) {
        crpmi_err("%s \"%.40s\" contains white space or ';'", what, s);
        return -1;
    }
    return 0;
}

static int singleton_put(const char *key, const char *value)
{
    for (pmi_kv_t *kv = pmi.local; kv; kv = kv->next)
        if (!strcmp(kv->key, key)) {
            char *v = strdup(value);
            if (!v) return -1;
            free(kv->val);
            kv->val = v;
            return 0;
        }
    pmi_kv_t *kv = calloc(1, sizeof *kv);
    if (!kv || !(kv->key = strdup(key)) || !(kv->val = strdup(value))) {
        if (kv) free(kv->key);
        free(kv);
        crpmi_err("out of memory");
        return -1;
    }
    kv->next = pmi.local;
    pmi.local = kv;
    return 0;
}

/* One key=value within the launcher's limits. */
static int put_one(const char *key, const char *value)
{
    if (pmi_check_token("key", key, pmi.info.max_key) < 0) return -1;
    if (*value && pmi_check_token("value", value, pmi.info.max_val) < 0) return -1;
    if (!pmi.ops) return singleton_put(key, value);
    return pmi.ops->put(key, value);
}

/* A value longer than the launcher takes (PMI-2: 1024 bytes) is stored in
 * parts: key holds PMI_PARTS_TAG and the number of parts, key:0, key:1, ...
 * hold the pieces; crpmi_get() puts them together again.  A piece is at most
 * PMI_PART_MAX bytes, whatever vallen_max says: Slurm's PMI-1 reader takes a
 * whole request (command, job name, key and value) in one read of 1024. */
#define PMI_PARTS_TAG "%parts:"
#define PMI_PART_MAX 512

static int put_whole(const char *key, const char *value)
{
    if (!pmi_ready("crpmi_put")) return -1;
    size_t len = strlen(value), piece = pmi.info.max_val > 1 ? (size_t)pmi.info.max_val - 1 : 1;
    if (len <= piece) return put_one(key, value);
    if (strpbrk(value, " \t\r\n;")) return pmi_check_token("value", value, (int)len + 1);
    if (piece > PMI_PART_MAX) piece = PMI_PART_MAX;
    size_t nparts = (len + piece - 1) / piece;
    char head[64], part[256], *buf = malloc(piece + 1);
    if (!buf) return -1;
    int rc = 0;
    for (size_t i = 0; i < nparts && rc == 0; i++) {
        size_t off = i * piece, n = len - off < piece ? len - off : piece;
        memcpy(buf, value + off, n);
        buf[n] = '\0';
        snprintf(part, sizeof part, "%s:%zu", key, i);
        rc = put_one(part, buf);
    }
    free(buf);
    snprintf(head, sizeof head, "%s%zu", PMI_PARTS_TAG, nparts);
    return rc ? rc : put_one(key, head);
}

/* One key as the launcher (or the singleton's list) has it: 0, or -1. */
static int get_one(int rank, const char *key, char *val, int len)
{
    if (pmi.ops) return pmi.ops->get(rank, key, val, len) == 0 ? 0 : -1;
    for (pmi_kv_t *kv = pmi.local; kv; kv = kv->next)
        if (!strcmp(kv->key, key)) {
            snprintf(val, (size_t)len, "%s", kv->val);
            return 0;
        }
    return -1;
}

int crpmi_put(const char *key, const char *value)
{
    return PMI_LOCKED(put_whole(key, value));
}

static int get_whole(int rank, const char *key, char *val, int len)
{
    if (!pmi_ready("crpmi_get") || len <= 0) return -1;
    if (rank < 0 || rank >= pmi.info.size) {
        crpmi_err("crpmi_get of key %s from rank %d, not a rank of the job (size %d)", key, rank,
                  pmi.info.size);
        return -1;
    }
    if (get_one(rank, key, val, len) != 0) return -1;
    if (strncmp(val, PMI_PARTS_TAG, sizeof PMI_PARTS_TAG - 1)) return 0;
    /* a value stored in parts (crpmi_put) */
    long nparts = strtol(val + sizeof PMI_PARTS_TAG - 1, NULL, 10);
    int off = 0;
    char part[256];
    for (long i = 0; i < nparts; i++) {
        snprintf(part, sizeof part, "%s:%ld", key, i);
        if (off >= len - 1 || get_one(rank, part, val + off, len - off) != 0) {
            crpmi_err("crpmi_get of key %s from rank %d: part %ld of %ld %s", key, rank, i,
                      nparts, off >= len - 1 ? "does not fit the buffer" : "is missing");
            val[0] = '\0';
            return -1;
        }
        off += (int)strlen(val + off);
    }
    return 0;
}

int crpmi_get(int rank, const char *key, char *val, int len)
{
    return PMI_LOCKED(get_whole(rank, key, val, len));
}

int crpmi_barrier(void)
{
    if (!pmi_ready("crpmi_barrier")) return -1;
    return pmi.ops ? PMI_LOCKED(pmi.ops->fence()) : 0;
}

void crpmi_abort(int code, const char *msg)
{
    if (!pmi.initialized || !pmi.ops || pmi.finalized) {
        if (msg && *msg) fprintf(stderr, "[courier] %s\n", msg);
        fflush(stderr);
        _exit(code);
    }
    pmi.ops->abort(code, msg ? msg : "");
    _exit(code);
}

int crpmi_local_ranks(int **ranks, int *n)
{
    if (!pmi.initialized) return -1;
    if (!pmi.ops) {
        if (!(*ranks = malloc(sizeof **ranks))) return -1;
        (*ranks)[0] = 0;
        *n = 1;
        return 0;
    }
    return PMI_LOCKED(pmi.ops->local_ranks(ranks, n));
}

/* Join n strings into one buffer of NUL-terminated pieces; NULL when out of memory. */
static char *join_nul(char *const *v, int n, size_t *len)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) total += strlen(v[i]) + 1;
    char *b = malloc(total ? total : 1), *p = b;
    if (!b) return NULL;
    for (int i = 0; i < n; i++) p = stpcpy(p, v[i]) + 1;
    *len = total;
    return b;
}

int crpmi_spawn(char *const *args, int nargs, char *const *env, int nenv, char *why, size_t len)
{
    if (!pmi.initialized || pmi.finalized || !pmi.ops) {
        snprintf(why, len, "no launcher: a process started without mpiexec cannot spawn "
                           "(start it with Courier's mpiexec)");
        return -1;
    }
    if (!pmi.ops->spawn) {
        snprintf(why, len, "the launcher (%s) offers no spawn that Courier can use; "
                           "Courier's own mpiexec can spawn", pmi.info.flavour);
        return -1;
    }
    size_t alen, elen;
    char *a = join_nul(args, nargs, &alen), *e = join_nul(env, nenv, &elen);
    int rc = -1;
    if (a && e) rc = PMI_LOCKED(pmi.ops->spawn(a, alen, e, elen, why, len));
    else snprintf(why, len, "out of memory");
    free(a);
    free(e);
    return rc;
}

int crpmi_spawn_ended(void)
{
    if (!pmi.initialized || pmi.finalized || !pmi.ops || !pmi.ops->spawn_ended) return -1;
    return PMI_LOCKED(pmi.ops->spawn_ended());
}

int crpmi_name(int op, const char *service, char *port, size_t plen, char *why, size_t wlen)
{
    if (!pmi.initialized || pmi.finalized || !pmi.ops || !pmi.ops->name) return -1;
    return PMI_LOCKED(pmi.ops->name(op, service, port, plen, why, wlen));
}

int crpmi_check(char *why, size_t len)
{
    if (!pmi.initialized || !pmi.ops || pmi.finalized) return 0;
    return PMI_LOCKED(pmi.ops->check(why, len));
}

int crpmi_finalize(void)
{
    if (!pmi.initialized) return 0;
    int rc = 0;
    if (pmi.ops && !pmi.finalized) rc = pmi.ops->finalize();
    while (pmi.local) {
        pmi_kv_t *kv = pmi.local;
        pmi.local = kv->next;
        free(kv->key);
        free(kv->val);
        free(kv);
    }
    /* A PMIx library stays loaded (its threads may still run); a second
     * crpmi_init() starts over with the environment. */
    pmi.initialized = 0;
    pmi.finalized = 1;
    pmi.ops = NULL;
    crpmi_my_rank = -1;
    return rc;
}

/* ---- PMI_process_mapping ------------------------------------------------------ */

/* Reads "(a,b,c)" at *p; advances *p past it. */
static int mapping_triple(const char **p, long t[3])
{
    const char *s = *p;
    if (*s++ != '(') return -1;
    for (int i = 0; i < 3; i++) {
        char *end;
        t[i] = strtol(s, &end, 10);
        if (end == s || t[i] < 0) return -1;
        s = end;
        if (*s++ != (i < 2 ? ',' : ')')) return -1;
    }
    *p = s;
    return 0;
}

int crpmi_parse_mapping(const char *map, int rank, int size, int **ranks, int *n)
{
    enum { MAX_BLOCKS = 256 };
    long blk[MAX_BLOCKS][3];
    int nblk = 0;
    const char *p = map;
    while (*p == ' ') p++;
    if (strncmp(p, "(vector,", 8)) return -1;
    p += 8;
    for (;;) {
        if (nblk == MAX_BLOCKS || mapping_triple(&p, blk[nblk]) < 0) return -1;
        if (blk[nblk][1] == 0 || blk[nblk][2] == 0) return -1;
        nblk++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == ')') break;
        return -1;
    }
    if (rank < 0 || rank >= size) return -1;
    /* Ranks go to nodes block by block, node by node; the blocks repeat
     * (cyclic placement) until every rank has a node. */
    long *node = malloc((size_t)size * sizeof *node);
    if (!node) return -1;
    int r = 0;
    while (r < size)
        for (int b = 0; b < nblk && r < size; b++)
            for (long k = 0; k < blk[b][1] && r < size; k++)
                for (long j = 0; j < blk[b][2] && r < size; j++) node[r++] = blk[b][0] + k;
    int count = 0;
    for (r = 0; r < size; r++) count += node[r] == node[rank];
    int *out = malloc((size_t)count * sizeof *out);
    if (!out) {
        free(node);
        return -1;
    }
    count = 0;
    for (r = 0; r < size; r++)
        if (node[r] == node[rank]) out[count++] = r;
    free(node);
    *ranks = out;
    *n = count;
    return 0;
}
