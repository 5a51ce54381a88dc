/* SPDX-License-Identifier: MIT */
/* Error codes, messages and error handlers.
 *
 * An error code carries its class in the low bits (so MPI_Error_class is a
 * mask) and the slot of its message in a small ring (see errh.h).  The ring is
 * overwritten after CR_ERR_RING errors; then MPI_Error_string of an old code
 * shows its class's generic text rather than a stranger's message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/core.h"
#include "core/errh.h"
#include "core/api.h"
#include "binding/core_legacy.h" /* transition: entries not yet in an api.h */
#include "pmi/pmi.h"
#include "util/settings.h"

cr_errhandler_t cr_errh_fatal = {MPI_ERRORS_ARE_FATAL, 1, 0, NULL};
cr_errhandler_t cr_errh_return = {MPI_ERRORS_RETURN, 1, 0, NULL};
cr_errhandler_t cr_errh_abort = {MPI_ERRORS_ABORT, 1, 0, NULL};
/* Files default to MPI_ERRORS_RETURN (MPI 4.0, 14.7). */
static cr_errhandler_t *file_default_errh = &cr_errh_return;
static cr_objtab_t errh_tab;

/* ---- codes and messages ---------------------------------------------------- */
static struct {
    int code;                      /* the code that owns this slot */
    char msg[MPI_MAX_ERROR_STRING];
} ring[CR_ERR_RING];
static unsigned ring_next;

/* Strings and classes added with MPI_Add_error_* */
#define USER_MAX 256
static char *user_code_str[USER_MAX];
static int n_user_codes;
static char *user_class_str[CR_ERR_CLASS_MASK + 1];
static int next_user_class = CR_ERR_FIRST_USER_CLASS;

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
};
#define N_CLASS_NAMES ((int)(sizeof class_names / sizeof class_names[0]))

int cr_error_class(int code)
{
    return code & CR_ERR_CLASS_MASK;
}

/* "MPI_ERR_RANK: invalid rank" for a class (NULL when unknown). */
static const char *class_text(int cls)
{
    if (cls >= 0 && cls < N_CLASS_NAMES && class_names[cls]) return class_names[cls];
    if (cls >= CR_ERR_FIRST_USER_CLASS && cls < next_user_class)
        return user_class_str[cls] ? user_class_str[cls] : "";
    return NULL;
}

/* The class name alone, "MPI_ERR_RANK". */
static void class_name(int cls, char *buf, size_t len)
{
    const char *t = class_text(cls);
    if (!t || cls >= CR_ERR_FIRST_USER_CLASS) {
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
    ring[slot].code = code;
    if (ut_settings.debug >= 1) fprintf(stderr, "[courier] error %d: %s\n", code, ring[slot].msg);
    return code;
}

/* The text of a code into buf: "<CLASS>: <message>"; -1 when code is no code of ours. */
static int code_string(int code, char *buf, size_t len)
{
    int cls = cr_error_class(code);
    if (code < 0 || code > MPI_ERR_LASTCODE) return -1;
    if (code & CR_ERR_USER_CODE) {
        int i = (code >> CR_ERR_CLASS_BITS) & 0xff;
        if (i >= n_user_codes) return -1;
        snprintf(buf, len, "%s", user_code_str[i] ? user_code_str[i] : "");
        return 0;
    }
    const char *t = class_text(cls);
    if (!t) return -1;
    int slot = (code >> CR_ERR_CLASS_BITS) - 1;
    if (slot >= 0 && slot < CR_ERR_RING && ring[slot].code == code) {
        char name[64];
        class_name(cls, name, sizeof name);
        snprintf(buf, len, "%s: %s", name, ring[slot].msg);
    } else if (slot >= CR_ERR_RING) {
        return -1;
    } else {
        snprintf(buf, len, "%s", t);
    }
    return 0;
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
    if (CR_H_STORAGE(h) == CR_ST_USER && CR_H_KIND(h) == CR_K_ERRHANDLER)
        return (cr_errhandler_t *)cr_objtab_get(&errh_tab, CR_H_INDEX(h));
    return NULL;
}

void cr_errhandler_release(cr_errhandler_t *e)
{
    if (!e || e->kind == 0) return;          /* predefined handlers live forever */
    if (--e->refcount > 0) return;
    cr_objtab_remove(&errh_tab, CR_H_INDEX(e->handle));
    free(e);
}

static void fatal(int code, const char *fname) __attribute__((noreturn));
static void fatal(int code, const char *fname)
{
    char text[MPI_MAX_ERROR_STRING], line[MPI_MAX_ERROR_STRING + 128];
    if (code_string(code, text, sizeof text) != 0) snprintf(text, sizeof text, "error code %d", code);
    if (cr_proc.state == CR_STATE_PRE_INIT)
        snprintf(line, sizeof line, "%s: %s", fname, text);
    else
        snprintf(line, sizeof line, "rank %d: %s: %s", cr_proc.world_rank, fname, text);
    cr_abort_job(1, line);
}

/* Call handler e for an error on the object at obj (an MPI_Comm, MPI_Win or
 * MPI_File, passed by address as the user's function expects). */
static int invoke(cr_errhandler_t *e, void *obj, int code, const char *fname)
{
    if (e == NULL || e == &cr_errh_fatal || e == &cr_errh_abort) fatal(code, fname);
    if (e == &cr_errh_return || e->fn == NULL) return code;
    /* All three kinds of user functions take (object *, int *, ...). */
    ((void (*)(void *, int *, ...))e->fn)(obj, &code);
    return code;
}

/* The handler of world after MPI_Init, else NULL (fatal). */
static cr_errhandler_t *default_errh(void)
{
    return cr_proc.state == CR_STATE_INIT ? cr_comm_world.errh : NULL;
}

int cr_raise_comm(MPI_Comm comm, int code, const char *fname)
{
    cr_comm_t *c = cr_proc.state == CR_STATE_INIT ? cr_comm_ptr(comm) : NULL;
    cr_errhandler_t *e = c ? c->errh : default_errh();
    return invoke(e, &comm, code, fname);
}

int cr_raise_win(MPI_Win win, int code, const char *fname)
{
    /* Windows have no objects yet: their errors go to MPI_COMM_WORLD's handler. */
    MPI_Comm world = MPI_COMM_WORLD;
    return invoke(default_errh(), &world, code, fname);
}

int cr_raise_file(MPI_File file, int code, const char *fname)
{
    return invoke(file_default_errh, &file, code, fname);
}

int cr_raise_session(MPI_Session session, int code, const char *fname)
{
    /* Sessions have no objects yet: their errors go to MPI_COMM_WORLD's handler. */
    (void)session;
    return cr_raise_none(code, fname);
}

int cr_raise_none(int code, const char *fname)
{
    MPI_Comm world = MPI_COMM_WORLD;
    return invoke(default_errh(), &world, code, fname);
}

/* The message is printed once: by Courier's mpiexec (it names the rank and its
 * host), or, under any other launcher and in a singleton, by crpmi_abort. */
void cr_abort_job(int exitcode, const char *msg)
{
    crpmi_abort(exitcode, msg ? msg : "aborted");
    _Exit(exitcode);    /* crpmi_abort does not return; be sure */
}

/* ---- core functions behind the MPI procedures -------------------------------- */
int core_comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    cr_errhandler_t *e = calloc(1, sizeof *e);
    int idx = e ? cr_objtab_add(&errh_tab, e) : -1;
    if (idx < 0) {
        free(e);
        return cr_error(MPI_ERR_NO_MEM, "out of memory creating an error handler");
    }
    e->handle = CR_H_MAKE(CR_ST_USER, CR_K_ERRHANDLER, idx);
    e->refcount = 1;
    e->kind = CR_K_COMM;
    e->fn = (void (*)(void))fn;
    *errhandler = e->handle;
    return MPI_SUCCESS;
}

int core_errhandler_free(MPI_Errhandler *errhandler)
{
    cr_errhandler_t *e = cr_errhandler_ptr(*errhandler);
    if (!e) return cr_error(MPI_ERR_ARG, "errhandler=0x%08x: invalid error handler", (unsigned)*errhandler);
    cr_errhandler_release(e);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int core_comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    cr_errhandler_t *e = cr_errhandler_ptr(errhandler);
    if (e->kind != 0 && e->kind != CR_K_COMM)
        return cr_error(MPI_ERR_ARG, "errhandler=0x%08x: not a communicator error handler", (unsigned)errhandler);
    e->refcount++;
    cr_errhandler_release(c->errh);
    c->errh = e;
    return MPI_SUCCESS;
}

int core_comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    cr_comm_t *c = cr_comm_ptr(comm);
    cr_errhandler_t *e = c->errh ? c->errh : &cr_errh_fatal;
    e->refcount++;    /* the user frees what MPI_Comm_get_errhandler returns */
    *errhandler = e->handle;
    return MPI_SUCCESS;
}

int core_comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    cr_raise_comm(comm, errorcode, "MPI_Comm_call_errhandler");
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
    if (code_string(errorcode, string, MPI_MAX_ERROR_STRING) != 0)
        return cr_error(MPI_ERR_ARG, "errorcode=%d: invalid error code", errorcode);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

int core_add_error_class(int *errorclass)
{
    if (next_user_class > CR_ERR_CLASS_MASK)
        return cr_error(MPI_ERR_OTHER, "no more error classes (at most %d)",
                        CR_ERR_CLASS_MASK + 1 - CR_ERR_FIRST_USER_CLASS);
    *errorclass = next_user_class++;
    return MPI_SUCCESS;
}

int core_add_error_code(int errorclass, int *errorcode)
{
    if (errorclass < CR_ERR_FIRST_USER_CLASS || errorclass >= next_user_class)
        return cr_error(MPI_ERR_ARG, "errorclass=%d: not a class made by MPI_Add_error_class", errorclass);
    if (n_user_codes >= USER_MAX) return cr_error(MPI_ERR_OTHER, "no more error codes (at most %d)", USER_MAX);
    int i = n_user_codes++;
    *errorcode = CR_ERR_USER_CODE | (i << CR_ERR_CLASS_BITS) | errorclass;
    return MPI_SUCCESS;
}

int core_add_error_string(int errorcode, const char *string)
{
    char **slot = NULL;
    if (errorcode & CR_ERR_USER_CODE) {
        int i = (errorcode >> CR_ERR_CLASS_BITS) & 0xff;
        if (errorcode <= MPI_ERR_LASTCODE && i < n_user_codes) slot = &user_code_str[i];
    } else if (errorcode >= CR_ERR_FIRST_USER_CLASS && errorcode < next_user_class) {
        slot = &user_class_str[errorcode];
    }
    if (!slot) return cr_error(MPI_ERR_ARG, "errorcode=%d: not a code or class added by the user", errorcode);
    char *s = strdup(string);
    if (!s) return cr_error(MPI_ERR_NO_MEM, "out of memory");
    free(*slot);
    *slot = s;
    return MPI_SUCCESS;
}
