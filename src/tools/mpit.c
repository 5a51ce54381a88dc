/* SPDX-License-Identifier: MIT */
/* The tools interface (MPI_T): control variables over the settings table,
 * performance variables over the core's counters and queues, categories.
 * See tools/api.h for what each kind of variable promises. */
#include "tools/api.h"
#include "coll/coll.h"
#include "core/core.h"
#include "core/pvar.h"
#include "core/threads.h"
#include "util/settings.h"
#include <ctype.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The interface's own lock (tools/api.h): taken in every MPI_T call, after
 * the library lock when that is on and before a channel's (a queue length
 * takes each channel's lock); no thread that holds a channel's lock calls
 * MPI_T, so the order library, tools, channel is kept. */
static pthread_mutex_t t_mutex = PTHREAD_MUTEX_INITIALIZER;

int core_t_lock(void)
{
    /* cr_threaded turns on inside MPI_Init_thread, perhaps while another
     * thread is in here: remember whether this call took the library lock */
    int held = __atomic_load_n(&cr_threaded, __ATOMIC_RELAXED);
    if (held) cr_lib_lock_slow();
    pthread_mutex_lock(&t_mutex);
    return held;
}

void core_t_unlock(int held)
{
    pthread_mutex_unlock(&t_mutex);
    if (held) cr_lib_unlock_slow();
}

/* MPI_T_init_thread calls not yet matched by MPI_T_finalize. */
static int t_refs;
/* The settings were read from the environment by the first MPI_T_init_thread. */
static int t_loaded;

#define T_CHECK_INIT() \
    do { \
        if (t_refs <= 0) return MPI_T_ERR_NOT_INITIALIZED; \
    } while (0)

/* Copy s to buf under the MPI_T string rules (MPI 4.1 section 15.3.3):
 * with buf NULL or *len 0 nothing is written; otherwise at most *len - 1
 * characters and a terminating NUL.  *len becomes the full length including
 * the NUL (MPICH answers the same, so tools that size buffers work on both). */
static void put_str(const char *s, char *buf, int *len)
{
    if (!len) return;
    int full = (int)strlen(s) + 1;
    if (buf && *len > 0) {
        int n = *len - 1 < full - 1 ? *len - 1 : full - 1;
        memcpy(buf, s, (size_t)n);
        buf[n] = '\0';
    }
    *len = full;
}

static void put_int(int *p, int v)
{
    if (p) *p = v;
}

/* ---- categories ---------------------------------------------------------------- */
enum { CAT_PT2PT = 0, CAT_COLL, NCAT };
static const char *const cat_name[NCAT] = { "courier_runtime", "courier_collectives" };
static const char *const cat_desc[NCAT] = {
    "Point-to-point protocols, transports, the progress engine and the launcher",
    "Collective algorithms and their selection",
};

/* ---- control variables: the settings table ---------------------------------------- */
/* The environment variable names, built once ("COURIER_EAGER_LIMIT"). */
static char (*cvar_names)[96];

static int cvar_is_coll(int i)
{
    return strncmp(ut_setting_descs[i].name, "coll_", 5) == 0;
}

static int cvar_category(int i)
{
    return cvar_is_coll(i) ? CAT_COLL : CAT_PT2PT;
}

/* String settings (a file name) are read-only strings of at most this many bytes. */
enum { CVAR_STRING_MAX = 4096 };

static int cvar_is_string(int i)
{
    return ut_setting_descs[i].type == UT_SET_STRING;
}

static MPI_Datatype cvar_type(int i)
{
    if (cvar_is_string(i)) return MPI_CHAR;
    return ut_setting_descs[i].type == UT_SET_SIZE ? MPI_UNSIGNED_LONG : MPI_INT;
}

/* Collective settings are read at every call: writable any time, the same on
 * every rank.  The rest are read by MPI_Init: writable until then, read-only
 * afterwards (they may still differ between ranks). */
static int cvar_scope(int i)
{
    if (cvar_is_string(i)) return MPI_T_SCOPE_READONLY;
    if (cvar_is_coll(i)) return MPI_T_SCOPE_ALL_EQ;
    return cr_proc.state == CR_STATE_PRE_INIT ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_READONLY;
}

struct courier_t_cvar_handle {
    int index;
};

/* ---- performance variables ---------------------------------------------------------- */
typedef enum { PV_QUEUE, PV_SENT_MSGS, PV_SENT_BYTES, PV_COLL_ALG, PV_RMA } pv_source_t;

typedef struct {
    char name[64];
    char desc[160];
    int var_class;             /* MPI_T_PVAR_CLASS_* */
    pv_source_t source;
    int a, b;                  /* source arguments: queue; kind and protocol; collective */
    int category;
} pvar_t;

static pvar_t *pvars;
static int npvars;

static const char *const kind_name[CR_PVAR_NKIND] = { NULL, "self", "shm", "net" };
static const char *const kind_desc[CR_PVAR_NKIND] = {
    NULL, "to itself", "to ranks on the node through shared memory",
    "to ranks on other nodes through the network transport",
};
static const char *const proto_name[CR_PVAR_NPROTO] = { "eager", "rndv" };

static void pvars_build(void)
{
    static const char *const rma_name[CR_PVAR_NRMA] = {
        "rma_shm_requests", "rma_shm_requests_back", "rma_shm_copies", "rma_shm_requests_served",
        "rma_acc_vector", "rma_acc_bulk_entries",
    };
    static const char *const rma_desc[CR_PVAR_NRMA] = {
        "Small one-sided operations sent as requests to a ring of a target on the node "
        "(MPI_Win_create and dynamic windows)",
        "Of those, requests taken back because the target did not take them in time, done by copies",
        "Small one-sided operations to such targets done by copies at once (target not polling, "
        "or its ring full)",
        "Requests of other ranks served from this rank's rings",
        "Accumulate-class calls on CPU-atomic windows applied by the vector kernels (exclusive "
        "lock epoch, or bulk mode)",
        "Times this rank entered bulk mode on a target (membarrier; COURIER_RMA_ACC_BULK_BYTES)",
    };
    int max = 2 + 2 * (CR_PVAR_NKIND - 1) * CR_PVAR_NPROTO + COLL_NCOLL + CR_PVAR_NRMA;
    pvars = calloc((size_t)max, sizeof *pvars);
    if (!pvars) return;
    pvar_t *p = pvars;
    for (int q = 0; q < 2; q++, p++) {
        snprintf(p->name, sizeof p->name, "%s_queue_length", q ? "unexpected" : "posted");
        snprintf(p->desc, sizeof p->desc, q ? "Messages arrived and not yet matched by a receive"
                                            : "Receives posted and not yet matched by a message");
        p->var_class = MPI_T_PVAR_CLASS_LEVEL;
        p->source = PV_QUEUE;
        p->a = q;
        p->category = CAT_PT2PT;
    }
    for (int k = 1; k < CR_PVAR_NKIND; k++)
        for (int pr = 0; pr < CR_PVAR_NPROTO; pr++)
            for (int bytes = 0; bytes < 2; bytes++, p++) {
                snprintf(p->name, sizeof p->name, "sent_%s_%s_%s", bytes ? "bytes" : "messages",
                         kind_name[k], proto_name[pr]);
                snprintf(p->desc, sizeof p->desc, "%s sent %s by the %s protocol",
                         bytes ? "Bytes of point-to-point messages" : "Point-to-point messages",
                         kind_desc[k], pr == CR_PVAR_EAGER ? "eager" : "rendezvous");
                p->var_class = MPI_T_PVAR_CLASS_COUNTER;
                p->source = bytes ? PV_SENT_BYTES : PV_SENT_MSGS;
                p->a = k;
                p->b = pr;
                p->category = CAT_PT2PT;
            }
    for (int c = 0; c < COLL_NCOLL; c++, p++) {
        char lower[48];
        snprintf(lower, sizeof lower, "%s", coll_names[c] + 4);
        for (char *s = lower; *s; s++) *s = (char)tolower((unsigned char)*s);
        snprintf(p->name, sizeof p->name, "coll_%s_algorithm", lower);
        snprintf(p->desc, sizeof p->desc,
                 "The algorithm %s chose last (its COURIER_COLL_*_ALG number; 0 before the first call)",
                 coll_names[c]);
        p->var_class = MPI_T_PVAR_CLASS_STATE;
        p->source = PV_COLL_ALG;
        p->a = c;
        p->category = CAT_COLL;
    }
    for (int k = 0; k < CR_PVAR_NRMA; k++, p++) {
        snprintf(p->name, sizeof p->name, "%s", rma_name[k]);
        snprintf(p->desc, sizeof p->desc, "%s", rma_desc[k]);
        p->var_class = MPI_T_PVAR_CLASS_COUNTER;
        p->source = PV_RMA;
        p->a = k;
        p->category = CAT_PT2PT;
    }
    npvars = (int)(p - pvars);
}

/* Counters can be reset and written (per handle); levels and states cannot. */
static int pvar_writable(const pvar_t *p)
{
    return p->var_class == MPI_T_PVAR_CLASS_COUNTER;
}

static MPI_Datatype pvar_type(const pvar_t *p)
{
    return p->var_class == MPI_T_PVAR_CLASS_STATE ? MPI_INT : MPI_UNSIGNED_LONG_LONG;
}

static unsigned long long pvar_now(const pvar_t *p)
{
    switch (p->source) {
    case PV_QUEUE: return cr_proc.state == CR_STATE_INIT ? cr_pvar_queue_length(p->a) : 0;
    case PV_SENT_MSGS: return cr_pvar_sent_total(p->a, p->b).msgs;
    case PV_SENT_BYTES: return cr_pvar_sent_total(p->a, p->b).bytes;
    case PV_COLL_ALG: return (unsigned long long)__atomic_load_n(&coll_last_alg[p->a], __ATOMIC_RELAXED);
    case PV_RMA: return cr_pvar_rma[p->a];
    }
    return 0;
}

struct courier_t_pvar_session {
    struct courier_t_pvar_handle *handles;
};

struct courier_t_pvar_handle {
    struct courier_t_pvar_handle *next;
    struct courier_t_pvar_session *session;
    int index;
    unsigned long long base;    /* counters: the handle reads now - base */
};

/* ---- init and finalize ------------------------------------------------------------- */
int core_t_init_thread(int required, int *provided)
{
    if (!provided) return MPI_T_ERR_INVALID;
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) return MPI_T_ERR_INVALID;
    if (t_refs == 0) {
        if (!cvar_names) {
            cvar_names = calloc((size_t)ut_setting_count, sizeof *cvar_names);
            if (!cvar_names) return MPI_T_ERR_MEMORY;
            for (int i = 0; i < ut_setting_count; i++)
                ut_setting_env(&ut_setting_descs[i], cvar_names[i], sizeof cvar_names[i]);
        }
        if (!pvars) pvars_build();
        if (!pvars) return MPI_T_ERR_MEMORY;
        /* before MPI_Init the settings have not been read yet: read them, so
         * tools see (and may change) what MPI_Init will use */
        if (!t_loaded && cr_proc.state == CR_STATE_PRE_INIT) ut_settings_load();
        t_loaded = 1;
    }
    t_refs++;
    /* every call holds the interface's lock (core_t_lock) */
    *provided = required;
    return MPI_SUCCESS;
}

int core_t_finalize(void)
{
    T_CHECK_INIT();
    t_refs--;
    return MPI_SUCCESS;
}

/* ---- enumerations: none ------------------------------------------------------------- */
int core_t_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    (void)enumtype, (void)num, (void)name, (void)name_len;
    T_CHECK_INIT();
    return MPI_T_ERR_INVALID_HANDLE;
}

int core_t_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    (void)enumtype, (void)index, (void)value, (void)name, (void)name_len;
    T_CHECK_INIT();
    return MPI_T_ERR_INVALID_HANDLE;
}

/* ---- control variables ------------------------------------------------------------ */
int core_t_cvar_get_num(int *num_cvar)
{
    T_CHECK_INIT();
    if (!num_cvar) return MPI_T_ERR_INVALID;
    *num_cvar = ut_setting_count;
    return MPI_SUCCESS;
}

int core_t_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                         int *desc_len, int *bind, int *scope)
{
    T_CHECK_INIT();
    if (cvar_index < 0 || cvar_index >= ut_setting_count) return MPI_T_ERR_INVALID_INDEX;
    put_str(cvar_names[cvar_index], name, name_len);
    put_int(verbosity, cvar_is_coll(cvar_index) ? MPI_T_VERBOSITY_TUNER_BASIC
                                                : MPI_T_VERBOSITY_USER_BASIC);
    if (datatype) *datatype = cvar_type(cvar_index);
    if (enumtype) *enumtype = MPI_T_ENUM_NULL;
    put_str(ut_setting_descs[cvar_index].doc, desc, desc_len);
    put_int(bind, MPI_T_BIND_NO_OBJECT);
    put_int(scope, cvar_scope(cvar_index));
    return MPI_SUCCESS;
}

int core_t_cvar_get_index(const char *name, int *cvar_index)
{
    T_CHECK_INIT();
    if (!name || !cvar_index) return MPI_T_ERR_INVALID;
    for (int i = 0; i < ut_setting_count; i++)
        if (!strcmp(name, cvar_names[i])) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

int core_t_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    (void)obj_handle;      /* every variable is bound to no object */
    T_CHECK_INIT();
    if (cvar_index < 0 || cvar_index >= ut_setting_count) return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count) return MPI_T_ERR_INVALID;
    struct courier_t_cvar_handle *h = malloc(sizeof *h);
    if (!h) return MPI_T_ERR_OUT_OF_HANDLES;
    h->index = cvar_index;
    *handle = h;
    *count = cvar_is_string(cvar_index) ? CVAR_STRING_MAX : 1;
    return MPI_SUCCESS;
}

int core_t_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    T_CHECK_INIT();
    if (!handle || *handle == MPI_T_CVAR_HANDLE_NULL) return MPI_T_ERR_INVALID_HANDLE;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

int core_t_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    T_CHECK_INIT();
    if (handle == MPI_T_CVAR_HANDLE_NULL) return MPI_T_ERR_INVALID_HANDLE;
    if (!buf) return MPI_T_ERR_INVALID;
    long v = *ut_setting_slot(&ut_setting_descs[handle->index]);
    long written;
    if (ut_setting_held(handle->index, &written)) v = written;   /* outside its range */
    if (cvar_is_string(handle->index)) {
        const char *str = ut_setting_str(v);
        snprintf(buf, CVAR_STRING_MAX, "%s", str ? str : "");
    } else if (cvar_type(handle->index) == MPI_UNSIGNED_LONG)
        *(unsigned long *)buf = (unsigned long)v;
    else
        *(int *)buf = (int)v;
    return MPI_SUCCESS;
}

int core_t_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    T_CHECK_INIT();
    if (handle == MPI_T_CVAR_HANDLE_NULL) return MPI_T_ERR_INVALID_HANDLE;
    if (!buf) return MPI_T_ERR_INVALID;
    int i = handle->index;
    if (cvar_is_string(i)) return MPI_T_ERR_CVAR_SET_NEVER;
    /* the collective selection reads its settings at every call; the rest are
     * read by MPI_Init, so they can change only before it */
    if (!cvar_is_coll(i) && cr_proc.state != CR_STATE_PRE_INIT)
        return MPI_T_ERR_CVAR_SET_NOT_NOW;
    long v;
    if (cvar_type(i) == MPI_UNSIGNED_LONG) {
        unsigned long u = *(const unsigned long *)buf;
        if (u > (unsigned long)LONG_MAX) return MPI_T_ERR_INVALID;
        v = (long)u;
    } else {
        v = *(const int *)buf;
    }
    const ut_setting_desc_t *d = &ut_setting_descs[i];
    int outside = v < d->min || v > d->max;
    /* a setting read by MPI_Init refuses a value outside its range
     * (settings_table.h), as the environment would stop MPI_Init on it */
    if (outside && !cvar_is_coll(i)) return MPI_T_ERR_INVALID;
    /* a collective setting keeps what was written, as MPICH's control
     * variables do (tools read back what they wrote), and the library uses a
     * value it can take: a BOOL any non-zero value as 1, the others their
     * default, which the next collective selection says once on stderr */
    long used = !outside ? v : d->type == UT_SET_BOOL ? 1 : d->def;
    ut_setting_written(i, v, used, outside, d->type != UT_SET_BOOL);
    *ut_setting_slot(d) = used;
    __atomic_add_fetch(&ut_settings_serial, 1, __ATOMIC_RELAXED);   /* stale selection memos */
    ut_setting_pin(i);
    return MPI_SUCCESS;
}

/* ---- performance variables ---------------------------------------------------------- */
int core_t_pvar_get_num(int *num_pvar)
{
    T_CHECK_INIT();
    if (!num_pvar) return MPI_T_ERR_INVALID;
    *num_pvar = npvars;
    return MPI_SUCCESS;
}

int core_t_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                         char *desc, int *desc_len, int *bind, int *readonly,
                         int *continuous, int *atomic)
{
    T_CHECK_INIT();
    if (pvar_index < 0 || pvar_index >= npvars) return MPI_T_ERR_INVALID_INDEX;
    const pvar_t *p = &pvars[pvar_index];
    put_str(p->name, name, name_len);
    put_int(verbosity, MPI_T_VERBOSITY_USER_BASIC);
    put_int(var_class, p->var_class);
    if (datatype) *datatype = pvar_type(p);
    if (enumtype) *enumtype = MPI_T_ENUM_NULL;
    put_str(p->desc, desc, desc_len);
    put_int(bind, MPI_T_BIND_NO_OBJECT);
    put_int(readonly, !pvar_writable(p));
    put_int(continuous, 1);
    put_int(atomic, 0);
    return MPI_SUCCESS;
}

int core_t_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    T_CHECK_INIT();
    if (!name || !pvar_index) return MPI_T_ERR_INVALID;
    if (var_class < MPI_T_PVAR_CLASS_STATE || var_class > MPI_T_PVAR_CLASS_GENERIC)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < npvars; i++)
        if (pvars[i].var_class == var_class && !strcmp(name, pvars[i].name)) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

int core_t_pvar_session_create(MPI_T_pvar_session *pe_session)
{
    T_CHECK_INIT();
    if (!pe_session) return MPI_T_ERR_INVALID;
    struct courier_t_pvar_session *s = calloc(1, sizeof *s);
    if (!s) return MPI_T_ERR_OUT_OF_SESSIONS;
    *pe_session = s;
    return MPI_SUCCESS;
}

int core_t_pvar_session_free(MPI_T_pvar_session *pe_session)
{
    T_CHECK_INIT();
    if (!pe_session || *pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    struct courier_t_pvar_session *s = *pe_session;
    while (s->handles) {
        struct courier_t_pvar_handle *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
    *pe_session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

int core_t_pvar_handle_alloc(MPI_T_pvar_session pe_session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle;
    T_CHECK_INIT();
    if (pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    if (pvar_index < 0 || pvar_index >= npvars) return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count) return MPI_T_ERR_INVALID;
    struct courier_t_pvar_handle *h = calloc(1, sizeof *h);
    if (!h) return MPI_T_ERR_OUT_OF_HANDLES;
    h->session = pe_session;
    h->index = pvar_index;
    h->base = pvar_writable(&pvars[pvar_index]) ? pvar_now(&pvars[pvar_index]) : 0;
    h->next = pe_session->handles;
    pe_session->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}

/* A handle of this session (not MPI_T_PVAR_ALL_HANDLES)? */
static int pvar_check(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    T_CHECK_INIT();
    if (s == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    if (h == MPI_T_PVAR_HANDLE_NULL || h == MPI_T_PVAR_ALL_HANDLES || h->session != s)
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_SUCCESS;
}

int core_t_pvar_handle_free(MPI_T_pvar_session pe_session, MPI_T_pvar_handle *handle)
{
    if (!handle) return t_refs > 0 ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_NOT_INITIALIZED;
    int rc = pvar_check(pe_session, *handle);
    if (rc) return rc;
    for (struct courier_t_pvar_handle **pp = &pe_session->handles; *pp; pp = &(*pp)->next)
        if (*pp == *handle) {
            *pp = (*handle)->next;
            break;
        }
    free(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

/* Every variable is continuous: starting and stopping are refused (for
 * MPI_T_PVAR_ALL_HANDLES they do nothing, as the standard asks). */
static int pvar_startstop(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    T_CHECK_INIT();
    if (s == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    if (h == MPI_T_PVAR_ALL_HANDLES) return MPI_SUCCESS;
    int rc = pvar_check(s, h);
    return rc ? rc : MPI_T_ERR_PVAR_NO_STARTSTOP;
}

int core_t_pvar_start(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    return pvar_startstop(pe_session, handle);
}

int core_t_pvar_stop(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    return pvar_startstop(pe_session, handle);
}

int core_t_pvar_read(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = pvar_check(pe_session, handle);
    if (rc) return rc;
    if (!buf) return MPI_T_ERR_INVALID;
    const pvar_t *p = &pvars[handle->index];
    unsigned long long v = pvar_now(p) - handle->base;
    if (pvar_type(p) == MPI_INT)
        *(int *)buf = (int)v;
    else
        *(unsigned long long *)buf = v;
    return MPI_SUCCESS;
}

int core_t_pvar_write(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle,
                      const void *buf)
{
    int rc = pvar_check(pe_session, handle);
    if (rc) return rc;
    if (!pvar_writable(&pvars[handle->index])) return MPI_T_ERR_PVAR_NO_WRITE;
    if (!buf) return MPI_T_ERR_INVALID;
    handle->base = pvar_now(&pvars[handle->index]) - *(const unsigned long long *)buf;
    return MPI_SUCCESS;
}

int core_t_pvar_reset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle)
{
    T_CHECK_INIT();
    if (pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct courier_t_pvar_handle *h = pe_session->handles; h; h = h->next)
            if (pvar_writable(&pvars[h->index])) h->base = pvar_now(&pvars[h->index]);
        return MPI_SUCCESS;
    }
    int rc = pvar_check(pe_session, handle);
    if (rc) return rc;
    if (!pvar_writable(&pvars[handle->index])) return MPI_T_ERR_PVAR_NO_WRITE;
    handle->base = pvar_now(&pvars[handle->index]);
    return MPI_SUCCESS;
}

int core_t_pvar_readreset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = pvar_check(pe_session, handle);
    if (rc) return rc;
    if (!pvar_writable(&pvars[handle->index])) return MPI_T_ERR_PVAR_NO_WRITE;
    rc = core_t_pvar_read(pe_session, handle, buf);
    if (rc == MPI_SUCCESS) handle->base = pvar_now(&pvars[handle->index]);
    return rc;
}

/* ---- categories --------------------------------------------------------------------- */
int core_t_category_get_num(int *num_cat)
{
    T_CHECK_INIT();
    if (!num_cat) return MPI_T_ERR_INVALID;
    *num_cat = NCAT;
    return MPI_SUCCESS;
}

static int cat_count(int cat, int pv)
{
    int n = 0;
    if (pv) {
        for (int i = 0; i < npvars; i++) n += pvars[i].category == cat;
    } else {
        for (int i = 0; i < ut_setting_count; i++) n += cvar_category(i) == cat;
    }
    return n;
}

int core_t_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                             int *desc_len, int *num_cvars, int *num_pvars,
                             int *num_categories)
{
    T_CHECK_INIT();
    if (cat_index < 0 || cat_index >= NCAT) return MPI_T_ERR_INVALID_INDEX;
    put_str(cat_name[cat_index], name, name_len);
    put_str(cat_desc[cat_index], desc, desc_len);
    put_int(num_cvars, cat_count(cat_index, 0));
    put_int(num_pvars, cat_count(cat_index, 1));
    put_int(num_categories, 0);
    return MPI_SUCCESS;
}

int core_t_category_get_num_events(int cat_index, int *num_events)
{
    T_CHECK_INIT();
    if (cat_index < 0 || cat_index >= NCAT) return MPI_T_ERR_INVALID_INDEX;
    if (!num_events) return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}

int core_t_category_get_index(const char *name, int *cat_index)
{
    T_CHECK_INIT();
    if (!name || !cat_index) return MPI_T_ERR_INVALID;
    for (int i = 0; i < NCAT; i++)
        if (!strcmp(name, cat_name[i])) {
            *cat_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

static int cat_members(int cat, int pv, int len, int indices[])
{
    T_CHECK_INIT();
    if (cat < 0 || cat >= NCAT) return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices)) return MPI_T_ERR_INVALID;
    int n = 0, total = pv ? npvars : ut_setting_count;
    for (int i = 0; i < total && n < len; i++)
        if ((pv ? pvars[i].category : cvar_category(i)) == cat) indices[n++] = i;
    return MPI_SUCCESS;
}

int core_t_category_get_cvars(int cat_index, int len, int indices[])
{
    return cat_members(cat_index, 0, len, indices);
}

int core_t_category_get_pvars(int cat_index, int len, int indices[])
{
    return cat_members(cat_index, 1, len, indices);
}

int core_t_category_get_events(int cat_index, int len, int indices[])
{
    (void)indices;
    T_CHECK_INIT();
    if (cat_index < 0 || cat_index >= NCAT) return MPI_T_ERR_INVALID_INDEX;
    return len < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

int core_t_category_get_categories(int cat_index, int len, int indices[])
{
    (void)indices;
    T_CHECK_INIT();
    if (cat_index < 0 || cat_index >= NCAT) return MPI_T_ERR_INVALID_INDEX;
    return len < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

int core_t_category_changed(int *update_number)
{
    T_CHECK_INIT();
    if (!update_number) return MPI_T_ERR_INVALID;
    *update_number = 0;     /* the variables and categories never change */
    return MPI_SUCCESS;
}

/* ---- events and event sources: Courier defines none ----------------------------------- */
int core_t_source_get_num(int *num_sources)
{
    T_CHECK_INIT();
    if (!num_sources) return MPI_T_ERR_INVALID;
    *num_sources = 0;
    return MPI_SUCCESS;
}

int core_t_source_get_info(int source_index, char *name, int *name_len, char *desc,
                           int *desc_len, MPI_T_source_order *ordering,
                           MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info)
{
    (void)source_index, (void)name, (void)name_len, (void)desc, (void)desc_len;
    (void)ordering, (void)ticks_per_second, (void)max_ticks, (void)info;
    T_CHECK_INIT();
    return MPI_T_ERR_INVALID_INDEX;
}

int core_t_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    (void)source_index, (void)timestamp;
    T_CHECK_INIT();
    return MPI_T_ERR_INVALID_INDEX;
}

int core_t_event_get_num(int *num_events)
{
    T_CHECK_INIT();
    if (!num_events) return MPI_T_ERR_INVALID;
    *num_events = 0;
    return MPI_SUCCESS;
}

int core_t_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind)
{
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info;
    (void)desc, (void)desc_len, (void)bind;
    T_CHECK_INIT();
    return MPI_T_ERR_INVALID_INDEX;
}

int core_t_event_get_index(const char *name, int *event_index)
{
    T_CHECK_INIT();
    if (!name || !event_index) return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}

int core_t_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
    T_CHECK_INIT();
    return MPI_T_ERR_INVALID_INDEX;
}

/* No registration can exist, so every handle given is invalid. */
#define T_NO_REGISTRATION() \
    do { \
        T_CHECK_INIT(); \
        return MPI_T_ERR_INVALID_HANDLE; \
    } while (0)

int core_t_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration, (void)info;
    T_NO_REGISTRATION();
}

int core_t_event_handle_get_info(MPI_T_event_registration event_registration,
                                 MPI_Info *info_used)
{
    (void)event_registration, (void)info_used;
    T_NO_REGISTRATION();
}

int core_t_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data;
    (void)event_cb_function;
    T_NO_REGISTRATION();
}

int core_t_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    T_NO_REGISTRATION();
}

int core_t_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety, (void)info_used;
    T_NO_REGISTRATION();
}

int core_t_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    T_NO_REGISTRATION();
}

int core_t_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    T_NO_REGISTRATION();
}

/* Event instances exist only inside callbacks, which never run. */
int core_t_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance, (void)element_index, (void)buffer;
    T_NO_REGISTRATION();
}

int core_t_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance, (void)buffer;
    T_NO_REGISTRATION();
}

int core_t_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance, (void)event_timestamp;
    T_NO_REGISTRATION();
}

int core_t_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance, (void)source_index;
    T_NO_REGISTRATION();
}
