/* SPDX-License-Identifier: MIT */
/* Error codes, messages, error classes and codes added by the user, and error
 * handlers.
 *
 * A code that Courier makes (cr_error) carries its class in the low bits (so
 * MPI_Error_class is a mask) and the slot of its message in a small ring (see
 * errh.h).  The ring is overwritten after CR_ERR_RING errors; then
 * MPI_Error_string of an old code shows its class's generic text rather than a
 * stranger's message.  Classes and codes added with MPI_Add_error_class/code
 * live above MPI_ERR_LASTCODE (errh.h, "dynamic codes").
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/core.h"
#include "core/errh.h"
#include "core/session.h"
#include "core/api_comm.h"
#include "core/api_session.h"
#include "io/api.h"
#include "pmi/pmi.h"
#include "util/log.h"
#include "util/settings.h"

cr_errhandler_t cr_errh_fatal = {MPI_ERRORS_ARE_FATAL, 1, 1, 0, NULL};
cr_errhandler_t cr_errh_return = {MPI_ERRORS_RETURN, 1, 1, 0, NULL};
cr_errhandler_t cr_errh_abort = {MPI_ERRORS_ABORT, 1, 1, 0, NULL};
/* The handler of MPI_FILE_NULL, which new files take: MPI_ERRORS_RETURN
 * (MPI 4.0, 14.7) until the user sets another. */
static cr_errhandler_t *file_default_errh = &cr_errh_return;
static cr_objtab_t errh_tab;

/* ---- codes and messages ---------------------------------------------------- */
static struct {
    int code;                      /* the code that owns this slot */
    char call[48];                 /* the MPI call that first raised it ("" until then) */
    char msg[MPI_MAX_ERROR_STRING];
} ring[CR_ERR_RING];
static unsigned ring_next;

static const char *const class_names[] = {
    [MPI_SUCCESS] = "MPI_SUCCESS: no error",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER: invalid buffer pointer",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT: invalid count",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE: invalid datatype",
    [MPI_ERR_TAG] = "MPI_ERR_TAG: invalid tag",
    [MPI_ERR_COMM] = "MPI_ERR_COMM: invalid communicator",
    [MPI_ERR_RANK] = "MPI_ERR_RANK: invalid rank",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT: invalid root",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP: invalid group",
    [MPI_ERR_OP] = "MPI_ERR_OP: invalid operation",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY: invalid topology",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS: invalid dimensions",
    [MPI_ERR_ARG] = "MPI_ERR_ARG: invalid argument",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN: unknown error",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE: message truncated",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER: other error",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN: internal error",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS: error code is in status",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING: pending request",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST: invalid request",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS: permission denied",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE: invalid access mode",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE: invalid file name",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION: data conversion failed",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP: data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS: file exists",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE: file in use",
    [MPI_ERR_FILE] = "MPI_ERR_FILE: invalid file handle",
    [MPI_ERR_INFO] = "MPI_ERR_INFO: invalid info object",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY: invalid info key",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE: invalid info value",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY: no such info key",
    [MPI_ERR_IO] = "MPI_ERR_IO: I/O error",
    [MPI_ERR_NAME] = "MPI_ERR_NAME: invalid service name",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM: out of memory",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME: arguments differ between processes",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE: no space left",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE: no such file",
    [MPI_ERR_PORT] = "MPI_ERR_PORT: invalid port name",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA: quota exceeded",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY: read-only file or file system",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE: invalid service",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN: could not spawn processes",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP: unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION: unsupported operation",
    [MPI_ERR_WIN] = "MPI_ERR_WIN: invalid window",
    [MPI_ERR_BASE] = "MPI_ERR_BASE: invalid base address",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE: invalid lock type",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL: invalid attribute key",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT: conflicting window accesses",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC: wrong RMA synchronization",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE: invalid size",
    [MPI_ERR_DISP] = "MPI_ERR_DISP: invalid displacement",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT: invalid assertion",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE: target memory outside the window",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH: memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED: memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR: wrong window flavor",
    [MPI_T_ERR_MEMORY] = "MPI_T_ERR_MEMORY: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T_ERR_NOT_INITIALIZED: tools interface not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T_ERR_CANNOT_INIT: tools interface cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T_ERR_INVALID_INDEX: invalid index",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T_ERR_INVALID_ITEM: invalid item",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T_ERR_INVALID_HANDLE: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T_ERR_OUT_OF_HANDLES: out of handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T_ERR_OUT_OF_SESSIONS: out of sessions",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T_ERR_INVALID_SESSION: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T_ERR_CVAR_SET_NOT_NOW: variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T_ERR_CVAR_SET_NEVER: variable cannot be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T_ERR_PVAR_NO_STARTSTOP: variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T_ERR_PVAR_NO_WRITE: variable cannot be written",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T_ERR_PVAR_NO_ATOMIC: variable cannot be read and written atomically",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T_ERR_INVALID_NAME: invalid name",
    [MPI_T_ERR_INVALID] = "MPI_T_ERR_INVALID: invalid use of the tools interface",
    [MPI_ERR_SESSION] = "MPI_ERR_SESSION: invalid session",
    [MPI_ERR_PROC_ABORTED] = "MPI_ERR_PROC_ABORTED: peer process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "MPI_ERR_VALUE_TOO_LARGE: value too large",
    [MPI_T_ERR_NOT_SUPPORTED] = "MPI_T_ERR_NOT_SUPPORTED: not supported",
    [MPI_T_ERR_NOT_ACCESSIBLE] = "MPI_T_ERR_NOT_ACCESSIBLE: not accessible to this process",
    [MPI_ERR_ERRHANDLER] = "MPI_ERR_ERRHANDLER: invalid error handler",
    [MPI_ERR_ABI] = "MPI_ERR_ABI: the ABI properties are already set",
    /* MPICH's extension classes MPIX_ERR_* (101 .. 105 in its ABI) */
    [101] = "MPIX_ERR_PROC_FAILED: process failed",
    [102] = "MPIX_ERR_PROC_FAILED_PENDING: process failure pending",
    [103] = "MPIX_ERR_REVOKED: communication object revoked",
    [104] = "MPIX_ERR_EAGAIN: operation could not be issued",
    [105] = "MPIX_ERR_NOREQ: cannot allocate a request",
};
#define N_CLASS_NAMES ((int)(sizeof class_names / sizeof class_names[0]))

/* "MPI_ERR_RANK: invalid rank" for a predefined class (NULL when unknown). */
static const char *class_text(int cls)
{
    return cls >= 0 && cls < N_CLASS_NAMES ? class_names[cls] : NULL;
}

/* ---- dynamic classes and codes (MPI_Add_error_class / _code) ----------------
 * A dynamic value is CR_ERR_DYN | id << CR_ERR_DYN_ID_SHIFT | index.  id names
 * its class: below CR_ERR_PREDEF_IDS a predefined class (codes the user added
 * to MPI_ERR_OTHER, say), above a class made by MPI_Add_error_class, whose own
 * value has index 0.  Index 1.. are the codes of the class. */
typedef struct {
    int live;
    char *str;                     /* MPI_Add_error_string, or NULL */
} dyn_entry_t;
typedef struct {
    dyn_entry_t self;              /* the class itself (user classes) */
    dyn_entry_t *codes;            /* codes[i] is index i + 1 */
    int ncodes, cap;
} dyn_class_t;
static dyn_class_t *dyn;           /* indexed by id */
static int ndyn;                   /* ids in use: 0 .. ndyn - 1 */

static int dyn_value(int id, int index)
{
    return CR_ERR_DYN | (id << CR_ERR_DYN_ID_SHIFT) | index;
}

/* The entry of a dynamic value, or NULL when it names no live class or code. */
static dyn_entry_t *dyn_entry(int value)
{
    if (!(value & CR_ERR_DYN) || value < 0) return NULL;
    int id = (value >> CR_ERR_DYN_ID_SHIFT) & CR_ERR_DYN_ID_MASK;
    int index = value & CR_ERR_DYN_INDEX_MASK;
    if (id >= ndyn) return NULL;
    dyn_class_t *k = &dyn[id];
    dyn_entry_t *e = index == 0 ? (id >= CR_ERR_PREDEF_IDS ? &k->self : NULL)
                     : index <= k->ncodes ? &k->codes[index - 1] : NULL;
    return e && e->live ? e : NULL;
}

/* The class of a live dynamic value. */
static int dyn_class(int value)
{
    int id = (value >> CR_ERR_DYN_ID_SHIFT) & CR_ERR_DYN_ID_MASK;
    return id < CR_ERR_PREDEF_IDS ? id : dyn_value(id, 0);
}

/* Room for id in the table. */
static int dyn_grow(int id)
{
    if (id < ndyn) return 0;
    dyn_class_t *t = realloc(dyn, (size_t)(id + 1) * sizeof *t);
    if (!t) return -1;
    memset(t + ndyn, 0, (size_t)(id + 1 - ndyn) * sizeof *t);
    dyn = t;
    ndyn = id + 1;
    return 0;
}

/* The largest live dynamic value (MPI_LASTUSEDCODE), else MPI_ERR_LASTCODE. */
int cr_error_last_used(void)
{
    int last = MPI_ERR_LASTCODE;
    for (int id = 0; id < ndyn; id++) {
        if (dyn[id].self.live) last = dyn_value(id, 0);
        for (int i = 0; i < dyn[id].ncodes; i++)
            if (dyn[id].codes[i].live) last = dyn_value(id, i + 1);
    }
    return last;
}

int cr_error_class(int code)
{
    if (code & CR_ERR_DYN) return dyn_entry(code) ? dyn_class(code) : MPI_ERR_UNKNOWN;
    return code & CR_ERR_CLASS_MASK;
}

/* The class name alone, "MPI_ERR_RANK". */
static void class_name(int cls, char *buf, size_t len)
{
    const char *t = class_text(cls);
    if (!t) {
        snprintf(buf, len, "error class %d", cls);
        return;
    }
    size_t n = strcspn(t, ":");
    snprintf(buf, len, "%.*s", (int)n, t);
}

int cr_error(int cls, const char *fmt, ...)
{
    unsigned slot = __atomic_fetch_add(&ring_next, 1, __ATOMIC_RELAXED) % CR_ERR_RING;
    int code = (cls & CR_ERR_CLASS_MASK) | (int)((slot + 1) << CR_ERR_CLASS_BITS);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ring[slot].msg, sizeof ring[slot].msg, fmt, ap);
    va_end(ap);
    ring[slot].call[0] = 0;
    ring[slot].code = code;
    if (ut_log_on(UT_LOG_ERRORS)) {
        char name[64];
        class_name(cls, name, sizeof name);
        ut_log(UT_LOG_ERRORS, "error", "%s: %s (code %d)", name, ring[slot].msg, code);
    }
    return code;
}

/* The ring slot that holds code's message, or -1. */
static int ring_slot(int code)
{
    if (code < 0 || (code & CR_ERR_DYN)) return -1;
    int slot = (code >> CR_ERR_CLASS_BITS) - 1;
    return slot >= 0 && slot < CR_ERR_RING && ring[slot].code == code ? slot : -1;
}

/* Remember the call that raised code (the first one: a code handed on to
 * MPI_Comm_call_errhandler, say, keeps the call where it arose). */
static void note_call(int code, const char *fname)
{
    int slot = ring_slot(code);
    if (slot >= 0 && !ring[slot].call[0] && fname)
        snprintf(ring[slot].call, sizeof ring[slot].call, "%s", fname);
}

/* The text of a code into buf: "<CLASS>: <message>", or "<call>: <CLASS>:
 * <message>" (the line MPI_ERRORS_ARE_FATAL prints, less the rank) with the
 * call an error handler saw it raised in when with_call is set, else with
 * `call` when that is not NULL; a message that starts with the call's name
 * does not repeat it.  -1 when code is no code of ours. */
static int code_string_how(int code, char *buf, size_t len, int with_call, const char *call)
{
    if (code < 0) return -1;
    if (code & CR_ERR_DYN) {
        dyn_entry_t *e = dyn_entry(code);
        if (!e) return -1;
        if (call) snprintf(buf, len, "%s: %s", call, e->str ? e->str : "");
        else snprintf(buf, len, "%s", e->str ? e->str : "");
        return 0;
    }
    int cls = code & CR_ERR_CLASS_MASK;
    const char *t = class_text(cls);
    int slot = (code >> CR_ERR_CLASS_BITS) - 1;
    if (!t || slot >= CR_ERR_RING) return -1;
    int ours = slot >= 0 && ring[slot].code == code;
    if (with_call && ours && ring[slot].call[0]) call = ring[slot].call;
    if (!ours) {
        if (call) snprintf(buf, len, "%s: %s", call, t);
        else snprintf(buf, len, "%s", t);
        return 0;
    }
    char name[64];
    class_name(cls, name, sizeof name);
    const char *msg = ring[slot].msg;
    if (!call) {
        snprintf(buf, len, "%s: %s", name, msg);
        return 0;
    }
    size_t n = strlen(call);
    if (strncmp(msg, call, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ') msg += n + 2;
    snprintf(buf, len, "%s: %s: %s", call, name, msg);
    return 0;
}

static int code_string(int code, char *buf, size_t len)
{
    return code_string_how(code, buf, len, 0, NULL);
}

/* ---- error handlers ------------------------------------------------------- */
cr_errhandler_t *cr_errhandler_ptr(MPI_Errhandler h)
{
    switch (h) {
    case MPI_ERRORS_ARE_FATAL: return &cr_errh_fatal;
    case MPI_ERRORS_RETURN: return &cr_errh_return;
    case MPI_ERRORS_ABORT: return &cr_errh_abort;
    default: break;
    }
    if (CR_H_STORAGE(h) == CR_ST_USER && CR_H_KIND(h) == CR_K_ERRHANDLER) {
        cr_errhandler_t *e = cr_objtab_get(&errh_tab, CR_H_INDEX(h));
        return e && e->handle == h ? e : NULL;
    }
    return NULL;
}

void cr_errhandler_retain(cr_errhandler_t *e)
{
    if (e && e->kind != 0) e->refcount++;
}

void cr_errhandler_release(cr_errhandler_t *e)
{
    if (!e || e->kind == 0) return;          /* predefined handlers live forever */
    if (--e->refcount > 0) return;
    if (e->handle != MPI_ERRHANDLER_NULL) cr_objtab_remove(&errh_tab, CR_H_INDEX(e->handle));
    free(e);
}

static void fatal(int code, const char *fname) __attribute__((noreturn));
static void fatal(int code, const char *fname)
{
    char text[MPI_MAX_ERROR_STRING], line[MPI_MAX_ERROR_STRING + 128];
    if (code_string_how(code, text, sizeof text, 1, fname) != 0)
        snprintf(text, sizeof text, "%s: error code %d", fname, code);
    if (cr_proc.state == CR_STATE_PRE_INIT)
        snprintf(line, sizeof line, "%s", text);
    else
        snprintf(line, sizeof line, "rank %d: %s", cr_proc.world_rank, text);
    cr_abort_job(1, line);
}

/* Call handler e for an error on the object at obj (an MPI_Comm, MPI_Win,
 * MPI_File or MPI_Session, passed by address as the user's function expects). */
static int invoke(cr_errhandler_t *e, void *obj, int code, const char *fname)
{
    note_call(code, fname);
    if (e == NULL || e == &cr_errh_fatal || e == &cr_errh_abort) fatal(code, fname);
    if (e == &cr_errh_return || e->fn == NULL) return code;
    if (e->fortran) {
        /* a Fortran file handler: the INTEGER handle (MPI_File is a pointer
         * in C) and the code, by reference */
        MPI_Fint fh = core_file_c2f(*(MPI_File *)obj), fcode = code;
        ((void (*)(MPI_Fint *, MPI_Fint *))e->fn)(&fh, &fcode);
        return fcode;
    }
    /* All four kinds of user functions take (object *, int *, ...). */
    ((void (*)(void *, int *, ...))e->fn)(obj, &code);
    return code;
}

/* Set once the program gave MPI_COMM_SELF a handler of its own. */
static int self_errh_set;

/* Errors that belong to no object (a datatype or group call, an invalid
 * communicator or window handle) are raised on MPI_COMM_SELF (MPI 4.1,
 * section 9.3).  Before MPI 4.0 they were raised on MPI_COMM_WORLD, and
 * programs of that time (MPICH's test suite among them) set only its
 * handler: until the program sets MPI_COMM_SELF's, MPI_COMM_WORLD's handler
 * applies, as in MPICH.  Before MPI_Init, after MPI_Finalize and in the
 * sessions model alone: NULL, the initial handler (fatal).  *comm: the
 * communicator the handler is called for. */
static cr_errhandler_t *default_errh(MPI_Comm *comm)
{
    if (cr_proc.world_state != CR_STATE_INIT) {
        *comm = MPI_COMM_SELF;
        return NULL;
    }
    *comm = self_errh_set ? MPI_COMM_SELF : MPI_COMM_WORLD;
    return self_errh_set ? cr_comm_self.errh : cr_comm_world.errh;
}

int cr_raise_comm(MPI_Comm comm, int code, const char *fname)
{
    cr_comm_t *c = cr_proc.state == CR_STATE_INIT ? cr_comm_ptr(comm) : NULL;
    if (!c) return cr_raise_none(code, fname);
    return invoke(c->errh, &comm, code, fname);
}

int cr_raise_win(MPI_Win win, int code, const char *fname)
{
    cr_win_t *w = cr_proc.state == CR_STATE_INIT ? cr_win_ptr(win) : NULL;
    if (!w) return cr_raise_none(code, fname);   /* MPI_WIN_NULL, a bad handle */
    return invoke(((cr_win_head_t *)(void *)w)->errh, &win, code, fname);
}

/* A file's error handler lives in its object (src/io); MPI_FILE_NULL's is
 * the default that new files take. */
static cr_errhandler_t **file_slot(cr_file_t *f)
{
    return f ? cr_file_errh_slot(f) : &file_default_errh;
}

int cr_raise_file(MPI_File file, int code, const char *fname)
{
    cr_file_t *f = cr_proc.state == CR_STATE_INIT ? cr_file_ptr(file) : NULL;
    return invoke(*file_slot(f), &file, code, fname);
}

cr_errhandler_t *cr_file_errh_default(void)
{
    if (file_default_errh->kind != 0) file_default_errh->refcount++;
    return file_default_errh;
}

int cr_raise_session(MPI_Session session, int code, const char *fname)
{
    cr_session_t *s = cr_session_ptr(session);
    if (!s) return cr_raise_none(code, fname);
    return invoke(s->errh, &session, code, fname);
}

int cr_raise_none(int code, const char *fname)
{
    MPI_Comm comm;
    cr_errhandler_t *e = default_errh(&comm);
    return invoke(e, &comm, code, fname);
}

int cr_abort_exit_status(int errorcode)
{
    int st = errorcode & 0xff;
    return st ? st : 1;
}

void cr_abort_job(int exitcode, const char *msg)
{
    /* the message is printed once: by Courier's mpiexec (it names the rank
     * and its host), or, under any other launcher and in a singleton, by
     * crpmi_abort */
    crpmi_abort(cr_abort_exit_status(exitcode), msg ? msg : "aborted");
    _Exit(cr_abort_exit_status(exitcode));    /* crpmi_abort does not return; be sure */
}

/* ---- core functions behind the MPI procedures -------------------------------- */
int cr_errhandler_create(int kind, void (*fn)(void), MPI_Errhandler *errhandler)
{
    cr_errhandler_t *e = calloc(1, sizeof *e);
    int idx = e ? cr_objtab_add(&errh_tab, e) : -1;
    if (idx < 0) {
        free(e);
        return cr_error(MPI_ERR_NO_MEM, "out of memory creating an error handler");
    }
    e->handle = CR_H_MAKE(CR_ST_USER, CR_K_ERRHANDLER, idx);
    e->refcount = 1;
    e->urefs = 1;
    e->kind = kind;
    e->fn = fn;
    *errhandler = e->handle;
    return MPI_SUCCESS;
}

int cr_errhandler_create_fortran(int kind, void (*fn)(void), MPI_Errhandler *errhandler)
{
    int err = cr_errhandler_create(kind, fn, errhandler);
    if (err == MPI_SUCCESS) cr_errhandler_ptr(*errhandler)->fortran = 1;
    return err;
}

int core_comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    return cr_errhandler_create(CR_K_COMM, (void (*)(void))comm_errhandler_fn, errhandler);
}

int core_file_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    return cr_errhandler_create(CR_K_FILE, (void (*)(void))file_errhandler_fn, errhandler);
}

int core_session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    return cr_errhandler_create(CR_K_SESSION, (void (*)(void))session_errhandler_fn, errhandler);
}

/* One of the user's references goes; with the last one the handle becomes
 * invalid.  Objects that use the handler keep it. */
int core_errhandler_free(cr_errhandler_t *errhandler)
{
    if (errhandler->kind == 0) return MPI_SUCCESS;   /* predefined: nothing to drop */
    if (--errhandler->urefs == 0) {
        cr_objtab_remove(&errh_tab, CR_H_INDEX(errhandler->handle));
        errhandler->handle = MPI_ERRHANDLER_NULL;
    }
    cr_errhandler_release(errhandler);
    return MPI_SUCCESS;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case CR_K_COMM: return "communicator";
    case CR_K_WIN: return "window";
    case CR_K_FILE: return "file";
    default: return "session";
    }
}

/* Put e (predefined, or made for objects of kind) in *slot. */
int cr_errhandler_set(cr_errhandler_t **slot, cr_errhandler_t *e, int kind)
{
    if (e->kind != 0 && e->kind != kind)
        return cr_error(MPI_ERR_ARG, "errhandler=0x%08x: a %s error handler, not a %s one",
                        (unsigned)e->handle, kind_name(e->kind), kind_name(kind));
    cr_errhandler_retain(e);
    cr_errhandler_release(*slot);
    *slot = e;
    return MPI_SUCCESS;
}

/* A handle for the user to e, who frees it; a handler whose user handle was
 * freed while objects still use it gets a new one. */
int cr_errhandler_get(cr_errhandler_t *e, MPI_Errhandler *errhandler)
{
    if (!e) e = &cr_errh_fatal;
    if (e->kind != 0) {
        if (e->handle == MPI_ERRHANDLER_NULL) {
            int idx = cr_objtab_add(&errh_tab, e);
            if (idx < 0) return cr_error(MPI_ERR_NO_MEM, "out of memory for an error handler handle");
            e->handle = CR_H_MAKE(CR_ST_USER, CR_K_ERRHANDLER, idx);
        }
        e->refcount++;
        e->urefs++;
    }
    *errhandler = e->handle;
    return MPI_SUCCESS;
}

int core_comm_set_errhandler(cr_comm_t *comm, cr_errhandler_t *errhandler)
{
    int e = cr_errhandler_set(&comm->errh, errhandler, CR_K_COMM);
    if (!e && comm == &cr_comm_self) self_errh_set = 1;
    return e;
}

int core_comm_get_errhandler(cr_comm_t *comm, MPI_Errhandler *errhandler)
{
    return cr_errhandler_get(comm->errh, errhandler);
}

int core_comm_call_errhandler(cr_comm_t *comm, int errorcode)
{
    MPI_Comm h = comm->handle;
    invoke(comm->errh, &h, errorcode, "MPI_Comm_call_errhandler");
    return MPI_SUCCESS;
}

/* file NULL: MPI_FILE_NULL, whose handler new files take */
int core_file_set_errhandler(cr_file_t *file, cr_errhandler_t *errhandler)
{
    return cr_errhandler_set(file_slot(file), errhandler, CR_K_FILE);
}

int core_file_get_errhandler(cr_file_t *file, MPI_Errhandler *errhandler)
{
    return cr_errhandler_get(*file_slot(file), errhandler);
}

int core_file_call_errhandler(cr_file_t *fh, int errorcode)
{
    MPI_File h = fh ? cr_file_handle(fh) : MPI_FILE_NULL;
    invoke(*file_slot(fh), &h, errorcode, "MPI_File_call_errhandler");
    return MPI_SUCCESS;
}

int core_session_set_errhandler(cr_session_t *session, cr_errhandler_t *errhandler)
{
    return cr_errhandler_set(&session->errh, errhandler, CR_K_SESSION);
}

int core_session_get_errhandler(cr_session_t *session, MPI_Errhandler *errhandler)
{
    return cr_errhandler_get(session->errh, errhandler);
}

int core_session_call_errhandler(cr_session_t *session, int errorcode)
{
    MPI_Session h = session->handle;
    invoke(session->errh, &h, errorcode, "MPI_Session_call_errhandler");
    return MPI_SUCCESS;
}

int core_error_class(int errorcode, int *errorclass)
{
    char buf[MPI_MAX_ERROR_STRING];
    if (code_string(errorcode, buf, sizeof buf) != 0)
        return cr_error(MPI_ERR_ARG, "errorcode=%d: invalid error code", errorcode);
    *errorclass = cr_error_class(errorcode);
    return MPI_SUCCESS;
}

int core_error_string(int errorcode, char *string, int *resultlen)
{
    if (code_string_how(errorcode, string, MPI_MAX_ERROR_STRING, 1, NULL) != 0)
        return cr_error(MPI_ERR_ARG, "errorcode=%d: invalid error code", errorcode);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

int core_add_error_class(int *errorclass)
{
    int id = CR_ERR_PREDEF_IDS;      /* the lowest free id */
    while (id < ndyn && (dyn[id].self.live || dyn[id].ncodes)) id++;
    if (id > CR_ERR_DYN_ID_MASK)
        return cr_error(MPI_ERR_OTHER, "no more error classes (at most %d)",
                        CR_ERR_DYN_ID_MASK + 1 - CR_ERR_PREDEF_IDS);
    if (dyn_grow(id) != 0) return cr_error(MPI_ERR_NO_MEM, "no memory for an error class");
    dyn[id].self.live = 1;
    *errorclass = dyn_value(id, 0);
    return MPI_SUCCESS;
}

int core_add_error_code(int errorclass, int *errorcode)
{
    int id;
    if (errorclass & CR_ERR_DYN) {
        if (!dyn_entry(errorclass) || (errorclass & CR_ERR_DYN_INDEX_MASK) != 0)
            return cr_error(MPI_ERR_ARG, "errorclass=%d: not an error class", errorclass);
        id = (errorclass >> CR_ERR_DYN_ID_SHIFT) & CR_ERR_DYN_ID_MASK;
    } else {
        if (errorclass <= MPI_SUCCESS || !class_text(errorclass))
            return cr_error(MPI_ERR_ARG, "errorclass=%d: not an error class", errorclass);
        id = errorclass;
    }
    if (dyn_grow(id) != 0) return cr_error(MPI_ERR_NO_MEM, "no memory for an error code");
    dyn_class_t *k = &dyn[id];
    int i = 0;
    while (i < k->ncodes && k->codes[i].live) i++;
    if (i + 1 > CR_ERR_DYN_INDEX_MASK)
        return cr_error(MPI_ERR_OTHER, "errorclass=%d: no more error codes in this class (at "
                        "most %d)", errorclass, CR_ERR_DYN_INDEX_MASK);
    if (i == k->ncodes) {
        if (k->ncodes == k->cap) {
            int cap = k->cap ? 2 * k->cap : 8;
            dyn_entry_t *c = realloc(k->codes, (size_t)cap * sizeof *c);
            if (!c) return cr_error(MPI_ERR_NO_MEM, "no memory for an error code");
            k->codes = c;
            k->cap = cap;
        }
        k->ncodes++;
    }
    k->codes[i] = (dyn_entry_t){ 1, NULL };
    *errorcode = dyn_value(id, i + 1);
    return MPI_SUCCESS;
}

/* The entry of a class or code the user added, or NULL with an error in *err. */
static dyn_entry_t *user_entry(int value, const char *what, int *err)
{
    dyn_entry_t *e = dyn_entry(value);
    if (!e)
        *err = cr_error(MPI_ERR_ARG, "%s=%d: not an error %s added with MPI_Add_error_%s", what,
                        value, strcmp(what, "errorclass") ? "code or class" : "class",
                        strcmp(what, "errorclass") ? "code or _class" : "class");
    return e;
}

int core_add_error_string(int errorcode, const char *string)
{
    int err;
    dyn_entry_t *e = user_entry(errorcode, "errorcode", &err);
    if (!e) return err;
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return cr_error(MPI_ERR_ARG, "string of %zu characters: at most %d are allowed",
                        strlen(string), MPI_MAX_ERROR_STRING - 1);
    char *s = strdup(string);
    if (!s) return cr_error(MPI_ERR_NO_MEM, "out of memory");
    free(e->str);
    e->str = s;
    return MPI_SUCCESS;
}

int core_remove_error_string(int errorcode)
{
    int err;
    dyn_entry_t *e = user_entry(errorcode, "errorcode", &err);
    if (!e) return err;
    free(e->str);
    e->str = NULL;
    return MPI_SUCCESS;
}

/* A code or class goes only once nothing hangs on it (MPI 4.1, 9.5). */
int core_remove_error_code(int errorcode)
{
    int err;
    dyn_entry_t *e = user_entry(errorcode, "errorcode", &err);
    if (!e) return err;
    if ((errorcode & CR_ERR_DYN_INDEX_MASK) == 0)
        return cr_error(MPI_ERR_ARG, "errorcode=%d: an error class (MPI_Remove_error_class "
                        "removes it)", errorcode);
    if (e->str)
        return cr_error(MPI_ERR_ARG, "errorcode=%d: still has a string (remove it first with "
                        "MPI_Remove_error_string)", errorcode);
    e->live = 0;
    return MPI_SUCCESS;
}

int core_remove_error_class(int errorclass)
{
    int err;
    dyn_entry_t *e = user_entry(errorclass, "errorclass", &err);
    if (!e) return err;
    if ((errorclass & CR_ERR_DYN_INDEX_MASK) != 0)
        return cr_error(MPI_ERR_ARG, "errorclass=%d: an error code, not a class", errorclass);
    dyn_class_t *k = &dyn[(errorclass >> CR_ERR_DYN_ID_SHIFT) & CR_ERR_DYN_ID_MASK];
    for (int i = 0; i < k->ncodes; i++)
        if (k->codes[i].live)
            return cr_error(MPI_ERR_ARG, "errorclass=%d: still has error code %d (remove it "
                            "first with MPI_Remove_error_code)", errorclass,
                            errorclass | (i + 1));
    if (e->str)
        return cr_error(MPI_ERR_ARG, "errorclass=%d: still has a string (remove it first with "
                        "MPI_Remove_error_string)", errorclass);
    e->live = 0;
    k->ncodes = 0;
    return MPI_SUCCESS;
}
