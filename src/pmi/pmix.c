/* SPDX-License-Identifier: MIT */
/* PMIx client (see pmi.h for when it is used): srun --mpi=pmix, Open MPI's
 * prterun, any PMIx server.  libpmix.so.2 is loaded with dlopen when a PMIx
 * launcher started the process, so libmpi.so does not depend on it and a
 * machine without PMIx still runs Courier.  The ABI subset used is declared
 * in pmix_abi.h (checked against <pmix.h> by tests/unit/test_pmix_abi.c).
 *
 * The key-value space maps onto PMIx's: put is PMIx_Put(GLOBAL), barrier is
 * PMIx_Commit + PMIx_Fence over the whole namespace with data collection, so
 * after it every key is in the local store and get reads it there
 * (PMIX_OPTIONAL: never ask the server, so a missing key is an answer, not a
 * wait).  PMIx keeps keys per rank, hence crpmi_get's rank argument.  An
 * event handler notes a lost server connection or a rank that ended without
 * finalizing, for crpmi_check(). */
#define _GNU_SOURCE
#include "pmi/pmi_impl.h"
#include "pmi/pmix_abi.h"

#include <dlfcn.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The library, by its soname first. */
static const char *const pmix_lib_names[] = { "libpmix.so.2", "libpmix.so" };
/* Longest value we let through (PMIx has no fixed limit). */
#define PMIX_VALLEN (1 << 20)
/* How long abort waits for the launcher to kill us. */
#define PMIX_ABORT_WAIT_MS 10000
/* How long the abort message gets to reach the launcher's output. */
#define PMIX_ABORT_MSG_DELAY_MS 100

static struct {
    void *lib;
    int up;                      /* PMIx_Init succeeded, PMIx_Finalize not yet */
    crpmix_proc_t me;
    int bad;                     /* set (atomically) by the event handler */
    char bad_why[256];
    crpmix_init_fn_t init;
    crpmix_finalize_fn_t finalize;
    crpmix_put_fn_t put;
    crpmix_commit_fn_t commit;
    crpmix_fence_fn_t fence;
    crpmix_get_fn_t get;
    crpmix_abort_fn_t abort;
    crpmix_error_string_fn_t error_string;        /* optional */
    crpmix_register_event_fn_t register_event;    /* optional */
} px;

static const char *px_strerror(crpmix_status_t rc)
{
    static char buf[32];
    if (px.error_string) return px.error_string(rc);
    snprintf(buf, sizeof buf, "PMIx status %d", rc);
    return buf;
}

static void px_info_bool(crpmix_info_t *info, const char *key)
{
    memset(info, 0, sizeof *info);
    snprintf(info->key, sizeof info->key, "%s", key);
    info->value.type = CRPMIX_BOOL;
    info->value.data.flag = true;
}

static void px_value_free(crpmix_value_t *v)
{
    if (!v) return;
    if (v->type == CRPMIX_STRING) free(v->data.string);
    free(v);
}

/* Get key of rank (or a wildcard) from the local store. */
static crpmix_status_t px_get(crpmix_rank_t rank, const char *key, crpmix_value_t **v)
{
    crpmix_proc_t p;
    memcpy(p.nspace, px.me.nspace, sizeof p.nspace);
    p.rank = rank;
    crpmix_info_t opt;
    px_info_bool(&opt, CRPMIX_KEY_OPTIONAL);
    *v = NULL;
    return px.get(&p, key, &opt, 1, v);
}

/* An integer attribute; -1 when absent or not an integer. */
static long px_get_int(crpmix_rank_t rank, const char *key)
{
    crpmix_value_t *v;
    long out = -1;
    if (px_get(rank, key, &v) != CRPMIX_SUCCESS || !v) return -1;
    switch (v->type) {
    case CRPMIX_UINT32: out = v->data.uint32; break;
    case CRPMIX_INT: out = v->data.integer; break;
    case CRPMIX_INT32: out = v->data.int32; break;
    case CRPMIX_UINT16: out = v->data.uint16; break;
    case CRPMIX_UINT64: out = (long)v->data.uint64; break;
    case CRPMIX_SIZE: out = (long)v->data.size; break;
    case CRPMIX_PROC_RANK: out = (long)v->data.rank; break;
    default: break;
    }
    px_value_free(v);
    return out;
}

/* ---- operations -------------------------------------------------------------- */

static int pmix_put(const char *key, const char *value)
{
    crpmix_value_t v = { .type = CRPMIX_STRING };
    v.data.string = (char *)value;
    crpmix_status_t rc = px.put(CRPMIX_GLOBAL, key, &v);
    if (rc != CRPMIX_SUCCESS) {
        crpmi_err("PMIx_Put of key %s failed: %s", key, px_strerror(rc));
        return -1;
    }
    return 0;
}

static int pmix_get(int rank, const char *key, char *val, int len)
{
    crpmix_value_t *v;
    crpmix_status_t rc = px_get((crpmix_rank_t)rank, key, &v);
    if (rc == CRPMIX_ERR_NOT_FOUND) return 1;
    if (rc != CRPMIX_SUCCESS || !v) {
        crpmi_err("PMIx_Get of key %s failed: %s", key, px_strerror(rc));
        return -1;
    }
    int ret = 0;
    if (v->type != CRPMIX_STRING || !v->data.string) {
        crpmi_err("PMIx_Get of key %s gave a value of type %d, not a string", key, v->type);
        ret = -1;
    } else if (strlen(v->data.string) >= (size_t)len) {
        crpmi_err("value of key %s has %zu bytes, more than the buffer's %d", key,
                  strlen(v->data.string), len - 1);
        ret = -1;
    } else {
        strcpy(val, v->data.string);
    }
    px_value_free(v);
    return ret;
}

static int pmix_fence(void)
{
    crpmix_status_t rc = px.commit();
    if (rc != CRPMIX_SUCCESS) {
        crpmi_err("PMIx_Commit failed: %s", px_strerror(rc));
        return -1;
    }
    crpmix_proc_t all;
    memcpy(all.nspace, px.me.nspace, sizeof all.nspace);
    all.rank = CRPMIX_RANK_WILDCARD;
    crpmix_info_t collect;
    px_info_bool(&collect, CRPMIX_KEY_COLLECT_DATA);
    rc = px.fence(&all, 1, &collect, 1);
    if (rc != CRPMIX_SUCCESS) {
        crpmi_err("PMIx_Fence failed: %s", px_strerror(rc));
        return -1;
    }
    return 0;
}

static void pmix_abort(int code, const char *msg)
{
    if (*msg) {
        fprintf(stderr, "[courier] %s\n", msg);
        fflush(stderr);
        poll(NULL, 0, PMIX_ABORT_MSG_DELAY_MS);
    }
    px.abort(code, msg, NULL, 0);
    /* The server has taken the request; the launcher ends the job. */
    poll(NULL, 0, PMIX_ABORT_WAIT_MS);
}

static int pmix_finalize(void)
{
    if (!px.up) return 0;
    px.up = 0;
    crpmix_status_t rc = px.finalize(NULL, 0);
    if (rc != CRPMIX_SUCCESS) {
        crpmi_err("PMIx_Finalize failed: %s", px_strerror(rc));
        return -1;
    }
    return 0;
}

static int pmix_local_ranks(int **ranks, int *n)
{
    crpmix_value_t *v;
    if (px_get(CRPMIX_RANK_WILDCARD, CRPMIX_KEY_LOCAL_PEERS, &v) != CRPMIX_SUCCESS || !v)
        return -1;
    int ret = -1;
    if (v->type == CRPMIX_STRING && v->data.string) {
        const char *s = v->data.string;
        int count = 1;
        for (const char *p = s; *p; p++) count += *p == ',';
        int *out = malloc((size_t)count * sizeof *out), k = 0;
        while (out && *s) {
            char *end;
            long r = strtol(s, &end, 10);
            if (end == s || r < 0 || k == count) break;
            out[k++] = (int)r;
            s = *end == ',' ? end + 1 : end;
            if (*end && *end != ',') break;
        }
        if (out && k == count && !*s) {
            *ranks = out;
            *n = k;
            ret = 0;
        } else {
            free(out);
        }
    }
    px_value_free(v);
    return ret;
}

static int pmix_check(char *why, size_t len)
{
    if (!__atomic_load_n(&px.bad, __ATOMIC_ACQUIRE)) return 0;
    snprintf(why, len, "%s", px.bad_why);
    return -1;
}

static const crpmi_ops_t pmix_ops = {
    .put = pmix_put,
    .get = pmix_get,
    .fence = pmix_fence,
    .abort = pmix_abort,
    .finalize = pmix_finalize,
    .local_ranks = pmix_local_ranks,
    .check = pmix_check,
};

/* ---- events --------------------------------------------------------------------- */

/* Runs on PMIx's progress thread: note the first bad event for crpmi_check. */
static void px_event(size_t id, crpmix_status_t status, const crpmix_proc_t *source,
                     crpmix_info_t info[], size_t ninfo, crpmix_info_t *results,
                     size_t nresults, crpmix_event_done_fn_t done, void *cbdata)
{
    (void)id, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (!__atomic_load_n(&px.bad, __ATOMIC_ACQUIRE)) {
        if (status == CRPMIX_ERR_LOST_CONNECTION)
            snprintf(px.bad_why, sizeof px.bad_why, "lost the connection to the PMIx server");
        else if (source)
            snprintf(px.bad_why, sizeof px.bad_why, "the PMIx server reports rank %u %s",
                     source->rank,
                     status == CRPMIX_ERR_PROC_ABORTED ? "aborted" : "ended without finalizing");
        else
            snprintf(px.bad_why, sizeof px.bad_why, "the PMIx server reports %s",
                     px_strerror(status));
        __atomic_store_n(&px.bad, 1, __ATOMIC_RELEASE);
    }
    if (done) done(CRPMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* ---- loading and connecting ------------------------------------------------------ */

static int px_load(void)
{
    if (px.lib) return 0;
    char why[512] = "";
    for (size_t i = 0; i < sizeof pmix_lib_names / sizeof *pmix_lib_names && !px.lib; i++) {
        px.lib = dlopen(pmix_lib_names[i], RTLD_NOW | RTLD_LOCAL);
        if (!px.lib && !*why) snprintf(why, sizeof why, "%s", dlerror());
    }
    if (!px.lib) {
        crpmi_err("a PMIx launcher started this process (PMIX_NAMESPACE=%s), but libpmix "
                  "cannot be loaded: %s.  Install libpmix2 (Debian) or start the job with "
                  "srun --mpi=pmi2", getenv("PMIX_NAMESPACE"), why);
        return -1;
    }
    struct {
        void **fn;
        const char *name;
        int required;
    } syms[] = {
        { (void **)&px.init, "PMIx_Init", 1 },
        { (void **)&px.finalize, "PMIx_Finalize", 1 },
        { (void **)&px.put, "PMIx_Put", 1 },
        { (void **)&px.commit, "PMIx_Commit", 1 },
        { (void **)&px.fence, "PMIx_Fence", 1 },
        { (void **)&px.get, "PMIx_Get", 1 },
        { (void **)&px.abort, "PMIx_Abort", 1 },
        { (void **)&px.error_string, "PMIx_Error_string", 0 },
        { (void **)&px.register_event, "PMIx_Register_event_handler", 0 },
    };
    for (size_t i = 0; i < sizeof syms / sizeof *syms; i++) {
        *syms[i].fn = dlsym(px.lib, syms[i].name);
        if (!*syms[i].fn && syms[i].required) {
            crpmi_err("libpmix lacks %s: %s", syms[i].name, dlerror());
            return -1;
        }
    }
    return 0;
}

const crpmi_ops_t *crpmi_pmix_init(crpmi_info_t *in)
{
    if (px_load() < 0) return NULL;
    crpmix_status_t rc = px.init(&px.me, NULL, 0);
    if (rc != CRPMIX_SUCCESS) {
        crpmi_err("PMIx_Init failed: %s", px_strerror(rc));
        return NULL;
    }
    px.up = 1;
    crpmi_my_rank = (int)px.me.rank;
    long size = px_get_int(CRPMIX_RANK_WILDCARD, CRPMIX_KEY_JOB_SIZE);
    if (size < 1 || px.me.rank >= (crpmix_rank_t)size) {
        crpmi_err("the PMIx server gives rank %u and job size %ld", px.me.rank, size);
        pmix_finalize();
        return NULL;
    }
    in->rank = (int)px.me.rank;
    in->size = (int)size;
    long appnum = px_get_int(px.me.rank, CRPMIX_KEY_APPNUM);
    if (appnum < 0) appnum = px_get_int(CRPMIX_RANK_WILDCARD, CRPMIX_KEY_APPNUM);
    in->appnum = appnum < 0 ? 0 : (int)appnum;
    in->universe_size = (int)px_get_int(CRPMIX_RANK_WILDCARD, CRPMIX_KEY_UNIV_SIZE);
    snprintf(in->kvsname, sizeof in->kvsname, "%s", px.me.nspace);
    in->max_key = CRPMIX_MAX_KEYLEN + 1;
    in->max_val = PMIX_VALLEN;
    in->flavour = "PMIx";
    __atomic_store_n(&px.bad, 0, __ATOMIC_RELEASE);
    if (px.register_event) {
        crpmix_status_t codes[] = { CRPMIX_ERR_LOST_CONNECTION, CRPMIX_ERR_PROC_ABORTED,
                                    CRPMIX_ERR_PROC_TERM_WO_SYNC };
        /* Without a callback the registration is blocking; failure only
         * costs the early warning. */
        px.register_event(codes, sizeof codes / sizeof *codes, NULL, 0, px_event, NULL, NULL);
    }
    return &pmix_ops;
}
