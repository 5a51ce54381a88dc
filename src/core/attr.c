/* SPDX-License-Identifier: MIT */
/* Keyvals and attributes on communicators, datatypes and windows, the MPI-1
 * forms (MPI_Keyval_create, MPI_Attr_*), and the predefined attributes
 * (MPI_TAG_UB, ...).  See attr.h and docs/attributes.md.
 *
 * A keyval is a reference-counted object: the user's handle holds one
 * reference and every attribute stored under it holds one, so a keyval freed
 * by the user while attributes still use it keeps its callbacks until the
 * last of them is deleted.  An object's attributes are a singly linked list,
 * most recently set first, so deleting from the head gives the reverse order
 * of setting that MPI_Finalize needs for MPI_COMM_SELF. */
#include "core/attr.h"
#include "core/check.h"
#include "core/errh.h"
#include "core/api_comm.h"

#include <stdlib.h>

/* Keyval handles: user storage, kind CR_K_KEYVAL, the kind of object the
 * keyval is for in bits 25-22 (as MPICH does), the table index below. */
#define KV_OBJ_SHIFT 22
#define KV_INDEX_MASK ((1 << KV_OBJ_SHIFT) - 1)

/* All three kinds of copy and delete callbacks have the same C shape: the
 * object handle types are all int. */
typedef int (copy_fn_t)(int handle, int keyval, void *extra_state, void *in, void *out, int *flag);
typedef int (delete_fn_t)(int handle, int keyval, void *value, void *extra_state);

typedef struct cr_keyval {
    int handle;
    int refcount;        /* the user's handle (until freed) + one per attribute */
    int kind;            /* CR_K_COMM, CR_K_DATATYPE or CR_K_WIN */
    int freed;           /* the user freed the handle: no new use */
    copy_fn_t *copy;     /* NULL: MPI_*_NULL_COPY_FN */
    delete_fn_t *del;    /* NULL: MPI_*_NULL_DELETE_FN */
    void *extra_state;
    /* Fortran keyvals (cr_keyval_create_fortran): copy and del are Fortran
     * procedures, called by fortran_copy / fortran_delete below */
    int fortran;         /* 0: C; KV_F_AINT: MPI-2 forms; KV_F_INT: MPI_KEYVAL_CREATE */
    MPI_Aint f_extra;    /* extra_state, passed by reference (KV_F_AINT) */
    MPI_Fint f_extra_int; /* the same for KV_F_INT */
} cr_keyval_t;

/* An attribute remembers which language set it (MPI-4.1 19.3.7): C stores a
 * pointer (value), Fortran an integer (aval; MPI_ATTR_PUT's INTEGER also in
 * ival).  A C reader of a Fortran attribute gets the address of the stored
 * integer (attr_cvalue), a Fortran reader gets the integer (attr_fvalue), so
 * that of a C attribute is the pointer's address. */
typedef struct cr_attr {
    struct cr_attr *next;
    cr_keyval_t *kv;
    int lang;            /* CR_ATTR_C, CR_ATTR_F_AINT or CR_ATTR_F_INT */
    void *value;         /* CR_ATTR_C: the pointer the program gave */
    MPI_Aint aval;       /* Fortran: the value (MPI_ATTR_PUT's sign-extended) */
    MPI_Fint ival;       /* CR_ATTR_F_INT: the INTEGER, which C readers get */
} cr_attr_t;

static void attr_store(cr_attr_t *a, int lang, void *cval, MPI_Aint fval)
{
    a->lang = lang;
    a->value = lang == CR_ATTR_C ? cval : NULL;
    a->aval = lang == CR_ATTR_C ? 0 : fval;
    a->ival = (MPI_Fint)a->aval;
}

/* What C sees: the pointer, or the address of the Fortran integer. */
static void *attr_cvalue(cr_attr_t *a)
{
    if (a->lang == CR_ATTR_F_INT) return &a->ival;
    if (a->lang == CR_ATTR_F_AINT) return &a->aval;
    return a->value;
}

/* After a C callback had the address of the stored integer (it may write
 * through it, as C code may to any attribute it reads): the two forms agree. */
static void attr_sync(cr_attr_t *a)
{
    if (a->lang == CR_ATTR_F_INT) a->aval = a->ival;
    else if (a->lang == CR_ATTR_F_AINT) a->ival = (MPI_Fint)a->aval;
}

/* What Fortran sees: the integer, or the C pointer's address. */
static MPI_Aint attr_fvalue(const cr_attr_t *a)
{
    return a->lang == CR_ATTR_C ? (MPI_Aint)a->value : a->aval;
}

static cr_objtab_t keyval_tab;

static const char *kind_name(int kind)
{
    return kind == CR_K_COMM ? "communicator" : kind == CR_K_DATATYPE ? "datatype" : "window";
}

/* ---- keyvals ------------------------------------------------------------------ */
static int keyval_create(int kind, void (*copy)(void), void (*del)(void), int *keyval,
                         void *extra_state)
{
    cr_keyval_t *kv = calloc(1, sizeof *kv);
    if (!kv) return cr_error(MPI_ERR_NO_MEM, "no memory for a keyval");
    int idx = cr_objtab_add(&keyval_tab, kv);
    if (idx < 0 || idx > KV_INDEX_MASK) {
        if (idx >= 0) cr_objtab_remove(&keyval_tab, idx);
        free(kv);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a keyval handle");
    }
    kv->handle = CR_H_MAKE(CR_ST_USER, CR_K_KEYVAL, ((unsigned)kind << KV_OBJ_SHIFT) | (unsigned)idx);
    kv->refcount = 1;
    kv->kind = kind;
    kv->copy = (copy_fn_t *)copy;
    kv->del = (delete_fn_t *)del;
    kv->extra_state = extra_state;
    *keyval = kv->handle;
    return MPI_SUCCESS;
}

static void keyval_release(cr_keyval_t *kv)
{
    if (--kv->refcount > 0) return;
    cr_objtab_remove(&keyval_tab, kv->handle & KV_INDEX_MASK);
    free(kv);
}

/* The user keyval for h while it exists (the user's handle, or attributes,
 * keep it), or NULL (predefined, gone, or not a keyval). */
static cr_keyval_t *keyval_alive(int h)
{
    if (CR_H_STORAGE(h) != CR_ST_USER || CR_H_KIND(h) != CR_K_KEYVAL) return NULL;
    cr_keyval_t *kv = cr_objtab_get(&keyval_tab, h & KV_INDEX_MASK);
    return kv && kv->handle == h ? kv : NULL;
}

/* The same, not yet freed by the user. */
static cr_keyval_t *keyval_ptr(int h)
{
    cr_keyval_t *kv = keyval_alive(h);
    return kv && !kv->freed ? kv : NULL;
}

/* Is h one of the predefined attribute keys of objects of kind? */
static int keyval_predefined(int kind, int h)
{
    if (kind == CR_K_COMM)
        return h == MPI_TAG_UB || h == MPI_HOST || h == MPI_IO || h == MPI_WTIME_IS_GLOBAL ||
               h == MPI_UNIVERSE_SIZE || h == MPI_LASTUSEDCODE || h == MPI_APPNUM;
    if (kind == CR_K_WIN)
        return h == MPI_WIN_BASE || h == MPI_WIN_SIZE || h == MPI_WIN_DISP_UNIT ||
               h == MPI_WIN_CREATE_FLAVOR || h == MPI_WIN_MODEL;
    return 0;
}

/* The user keyval h for objects of kind, or NULL with an MPI_ERR_KEYVAL code.
 * freed_ok: a keyval the user freed while attributes still use it is good
 * (reading and deleting those attributes, MPI 4.0 7.7.2). */
static cr_keyval_t *keyval_arg(int kind, int h, const char *fname, int freed_ok, int *err)
{
    cr_keyval_t *kv = freed_ok ? keyval_alive(h) : keyval_ptr(h);
    if (kv && kv->kind == kind) return kv;
    if (kv)
        *err = cr_error(MPI_ERR_KEYVAL, "%s: keyval=0x%08x: a %s keyval, not a %s keyval", fname,
                        (unsigned)h, kind_name(kv->kind), kind_name(kind));
    else if (keyval_predefined(kind, h))
        *err = cr_error(MPI_ERR_KEYVAL, "%s: keyval=0x%08x: a predefined attribute cannot be "
                        "set, deleted or freed", fname, (unsigned)h);
    else
        *err = cr_error(MPI_ERR_KEYVAL, "%s: keyval=0x%08x: not a valid keyval%s", fname,
                        (unsigned)h, h == MPI_KEYVAL_INVALID ? " (MPI_KEYVAL_INVALID)"
                                                              : " (freed, or never created)");
    return NULL;
}

static int keyval_free(int kind, int *keyval, const char *fname)
{
    int err = MPI_SUCCESS;
    cr_keyval_t *kv = keyval_arg(kind, *keyval, fname, 1, &err);
    if (!kv) return err;
    /* Freeing again a keyval that attributes still keep alive (a delete
     * callback freeing the keyval it is called for, once per attribute, as
     * MPICH's keyval_double_free tests do) is tolerated and changes nothing. */
    if (kv->freed) {
        *keyval = MPI_KEYVAL_INVALID;
        return MPI_SUCCESS;
    }
    kv->freed = 1;          /* attributes that use it keep it alive */
    *keyval = MPI_KEYVAL_INVALID;
    keyval_release(kv);
    return MPI_SUCCESS;
}

/* ---- predefined attributes ---------------------------------------------------- */

/* The values live in static ints because the caller receives their address. */
static int predefined_get(int keyval, void *value_out, int *flag)
{
    static int tag_ub, host, io, wtime_global, universe, appnum, lastused;
    int *p;
    switch (keyval) {
    case MPI_TAG_UB: tag_ub = CR_TAG_UB; p = &tag_ub; break;
    case MPI_HOST: host = MPI_PROC_NULL; p = &host; break;          /* no host process */
    case MPI_IO: io = MPI_ANY_SOURCE; p = &io; break;               /* every rank can do I/O */
    case MPI_WTIME_IS_GLOBAL: wtime_global = 0; p = &wtime_global; break;
    case MPI_UNIVERSE_SIZE:
        if (!cr_proc.universe_stated) {   /* as under Hydra: the launcher did not say */
            *flag = 0;
            return MPI_SUCCESS;
        }
        universe = cr_proc.universe_size;
        p = &universe;
        break;
    case MPI_APPNUM: appnum = cr_proc.appnum; p = &appnum; break;
    case MPI_LASTUSEDCODE:
        lastused = cr_error_last_used();
        p = &lastused;
        break;
    default:
        *flag = 0;     /* window keys: the window module answers them */
        return MPI_SUCCESS;
    }
    *(void **)value_out = p;
    *flag = 1;
    return MPI_SUCCESS;
}

/* ---- attribute lists ------------------------------------------------------------ */
static cr_attr_t *attr_find(void **list, const cr_keyval_t *kv)
{
    for (cr_attr_t *a = *list; a; a = a->next)
        if (a->kv == kv) return a;
    return NULL;
}

/* Take a out of the list (it may have moved while a callback ran) and free it. */
static void attr_unlink(void **list, cr_attr_t *a)
{
    for (cr_attr_t **pp = (cr_attr_t **)list; *pp; pp = &(*pp)->next) {
        if (*pp == a) {
            *pp = a->next;
            break;
        }
    }
    keyval_release(a->kv);
    free(a);
}

static int fortran_copy(cr_keyval_t *kv, int handle, MPI_Aint in, MPI_Aint *out, int *flag);
static int fortran_delete(cr_keyval_t *kv, int handle, MPI_Aint value);

/* The delete callback sees the value as its language reads it: a Fortran one
 * the integer, a C one the pointer (for a Fortran-set attribute, the address
 * of the stored integer). */
static int run_delete(cr_attr_t *a, int handle)
{
    if (!a->kv->del) return MPI_SUCCESS;
    if (a->kv->fortran) return fortran_delete(a->kv, handle, attr_fvalue(a));
    /* the callback's code is passed on unchanged: it may be one of the user's
     * own error codes (MPI_Add_error_code) */
    return a->kv->del(handle, a->kv->handle, attr_cvalue(a), a->kv->extra_state);
}

static int attr_set(int kind, int handle, void **list, int keyval, int lang, void *cval,
                    MPI_Aint fval, const char *fname)
{
    int err = MPI_SUCCESS;
    cr_keyval_t *kv = keyval_arg(kind, keyval, fname, 0, &err);
    if (!kv) return err;
    cr_attr_t *a = attr_find(list, kv);
    if (a) {
        /* replacing a value deletes the old one first; if that fails, the old
         * value stays */
        if ((err = run_delete(a, handle))) return err;
        a = attr_find(list, kv);    /* the callback may have deleted it itself */
        if (a) {
            attr_store(a, lang, cval, fval);
            return MPI_SUCCESS;
        }
    }
    a = malloc(sizeof *a);
    if (!a) return cr_error(MPI_ERR_NO_MEM, "%s: no memory for an attribute", fname);
    a->kv = kv;
    attr_store(a, lang, cval, fval);
    a->next = *list;
    *list = a;
    kv->refcount++;
    return MPI_SUCCESS;
}

int cr_attr_set(int kind, int handle, void **list, int keyval, void *value, const char *fname)
{
    return attr_set(kind, handle, list, keyval, CR_ATTR_C, value, 0, fname);
}

int cr_attr_set_fortran(int kind, int handle, void **list, int keyval, MPI_Aint value,
                        int legacy, const char *fname)
{
    return attr_set(kind, handle, list, keyval, legacy ? CR_ATTR_F_INT : CR_ATTR_F_AINT, NULL,
                    legacy ? (MPI_Aint)(MPI_Fint)value : value, fname);
}

int cr_attr_get(int kind, void **list, int keyval, void *value_out, int *flag, const char *fname)
{
    if (keyval_predefined(kind, keyval)) return predefined_get(keyval, value_out, flag);
    int err = MPI_SUCCESS;
    cr_keyval_t *kv = keyval_arg(kind, keyval, fname, 1, &err);
    if (!kv) {
        *flag = 0;
        return err;
    }
    cr_attr_t *a = attr_find(list, kv);
    *flag = a != NULL;
    if (a) *(void **)value_out = attr_cvalue(a);
    return MPI_SUCCESS;
}

int cr_attr_get_fortran(int kind, void **list, int keyval, MPI_Aint *value, int *flag,
                        const char *fname)
{
    if (keyval_predefined(kind, keyval)) {
        void *p = NULL;
        int err = predefined_get(keyval, &p, flag);
        if (!err && *flag) *value = *(int *)p;    /* the communicator ones are all ints */
        return err;
    }
    int err = MPI_SUCCESS;
    cr_keyval_t *kv = keyval_arg(kind, keyval, fname, 1, &err);
    if (!kv) {
        *flag = 0;
        return err;
    }
    cr_attr_t *a = attr_find(list, kv);
    *flag = a != NULL;
    if (a) *value = attr_fvalue(a);
    return MPI_SUCCESS;
}

int cr_attr_delete(int kind, int handle, void **list, int keyval, const char *fname)
{
    int err = MPI_SUCCESS;
    cr_keyval_t *kv = keyval_arg(kind, keyval, fname, 1, &err);
    if (!kv) return err;
    cr_attr_t *a = attr_find(list, kv);
    /* nothing stored under the key: nothing to do (MPICH answers the same, and
     * programs built against it rely on that) */
    if (!a) return MPI_SUCCESS;
    if ((err = run_delete(a, handle))) return err;
    if ((a = attr_find(list, kv))) attr_unlink(list, a);
    return MPI_SUCCESS;
}

int cr_attr_delete_all(int kind, int handle, void **list)
{
    (void)kind;
    while (*list) {
        cr_attr_t *a = *list;      /* the most recently set one */
        a->kv->refcount++;         /* keep the keyval while its callback runs */
        cr_keyval_t *kv = a->kv;
        int err = run_delete(a, handle);
        if (!err) {
            for (cr_attr_t *b = *list; b; b = b->next)
                if (b == a) {
                    attr_unlink(list, a);
                    break;
                }
        }
        keyval_release(kv);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

int cr_attr_copy_all(int kind, int old_handle, void **old_list, int new_handle, void **new_list)
{
    cr_attr_t **tail = (cr_attr_t **)new_list;
    *new_list = NULL;
    for (cr_attr_t *a = *old_list; a; a = a->next) {
        if (!a->kv->copy) continue;            /* MPI_*_NULL_COPY_FN: not copied */
        /* The copy has the language of the original.  A Fortran callback
         * gets and returns the integer; a C one gets what C reads (for a
         * Fortran-set attribute the address of the integer) and returns a
         * pointer.  Returning the address it was given (MPI_COMM_DUP_FN)
         * copies the Fortran value; another pointer makes a C attribute. */
        int flag = 0, lang = a->lang, rc;
        void *out = NULL;
        MPI_Aint fout = 0;
        if (a->kv->fortran) {
            rc = fortran_copy(a->kv, old_handle, attr_fvalue(a), &fout, &flag);
            out = (void *)fout;
        } else {
            void *in = attr_cvalue(a);
            rc = a->kv->copy(old_handle, a->kv->handle, a->kv->extra_state, in, &out, &flag);
            attr_sync(a);
            if (lang != CR_ATTR_C && out == in)
                fout = a->aval;
            else
                lang = CR_ATTR_C;
        }
        if (rc != MPI_SUCCESS) {
            /* undo: the new object gets no attributes at all */
            cr_attr_delete_all(kind, new_handle, new_list);
            *new_list = NULL;
            return rc;
        }
        if (!flag) continue;
        cr_attr_t *b = malloc(sizeof *b);
        if (!b) {
            cr_attr_delete_all(kind, new_handle, new_list);
            return cr_error(MPI_ERR_NO_MEM, "no memory to copy attributes");
        }
        b->kv = a->kv;
        attr_store(b, lang, out, fout);
        b->next = NULL;
        a->kv->refcount++;
        *tail = b;            /* same order as on the old object */
        tail = &b->next;
    }
    return MPI_SUCCESS;
}

int cr_attr_finalize(void)
{
    int err = cr_attr_delete_all(CR_K_COMM, MPI_COMM_SELF, &cr_comm_self.attrs);
    if (!err) err = cr_attr_delete_all(CR_K_COMM, MPI_COMM_WORLD, &cr_comm_world.attrs);
    return err;
}

/* ---- Fortran keyvals ------------------------------------------------------------- */
/* A keyval made by MPI_COMM_CREATE_KEYVAL, MPI_TYPE_CREATE_KEYVAL,
 * MPI_WIN_CREATE_KEYVAL or MPI_KEYVAL_CREATE called from Fortran (see attr.h).
 * Its callbacks take every argument by reference and return their code in
 * ierror; the attribute value is what Fortran reads (attr_fvalue), as an
 * INTEGER(KIND=MPI_ADDRESS_KIND) (or a default INTEGER, truncated, for the
 * MPI-1 form).  A LOGICAL flag is true when nonzero (gfortran: .TRUE. = 1). */
enum { KV_F_AINT = 1, KV_F_INT = 2 };

typedef void (f_copy_t)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra_state, MPI_Aint *in,
                        MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror);
typedef void (f_delete_t)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *value, MPI_Aint *extra_state,
                          MPI_Fint *ierror);
typedef void (f_copy_int_t)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *extra_state, MPI_Fint *in,
                            MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierror);
typedef void (f_delete_int_t)(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *value,
                              MPI_Fint *extra_state, MPI_Fint *ierror);

int cr_keyval_create_fortran(int kind, void (*copy)(void), void (*del)(void), MPI_Aint extra_state,
                             int legacy, int *keyval)
{
    int h;
    int err = keyval_create(kind, copy, del, &h, NULL);
    if (err) return err;
    cr_keyval_t *kv = keyval_ptr(h);
    kv->fortran = legacy ? KV_F_INT : KV_F_AINT;
    kv->f_extra = extra_state;
    kv->f_extra_int = (MPI_Fint)extra_state;
    *keyval = h;
    return MPI_SUCCESS;
}

static int fortran_copy(cr_keyval_t *kv, int handle, MPI_Aint in, MPI_Aint *out, int *flag)
{
    MPI_Fint obj = handle, key = kv->handle, fflag = 0, ierror = MPI_SUCCESS;
    void (*fn)(void) = (void (*)(void))kv->copy;
    if (kv->fortran == KV_F_INT) {
        MPI_Fint vin = (MPI_Fint)in, vout = 0;
        ((f_copy_int_t *)fn)(&obj, &key, &kv->f_extra_int, &vin, &vout, &fflag, &ierror);
        *out = vout;      /* sign-extended */
    } else {
        MPI_Aint vin = in, vout = 0;
        ((f_copy_t *)fn)(&obj, &key, &kv->f_extra, &vin, &vout, &fflag, &ierror);
        *out = vout;
    }
    *flag = fflag != 0;
    return ierror;
}

static int fortran_delete(cr_keyval_t *kv, int handle, MPI_Aint value)
{
    MPI_Fint obj = handle, key = kv->handle, ierror = MPI_SUCCESS;
    void (*fn)(void) = (void (*)(void))kv->del;
    if (kv->fortran == KV_F_INT) {
        MPI_Fint v = (MPI_Fint)value;
        ((f_delete_int_t *)fn)(&obj, &key, &v, &kv->f_extra_int, &ierror);
    } else {
        MPI_Aint v = value;
        ((f_delete_t *)fn)(&obj, &key, &v, &kv->f_extra, &ierror);
    }
    return ierror;
}

/* ---- communicators --------------------------------------------------------------- */
/* The MPI-1 names (MPI_Keyval_create, MPI_Keyval_free, MPI_Attr_put/get/delete)
 * are bound to these entries too; fname tells them apart in messages. */
int core_comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state)
{
    return keyval_create(CR_K_COMM, (void (*)(void))comm_copy_attr_fn,
                         (void (*)(void))comm_delete_attr_fn, comm_keyval, extra_state);
}

int core_comm_free_keyval(int *comm_keyval, const char *fname)
{
    return keyval_free(CR_K_COMM, comm_keyval, fname);
}

int core_comm_set_attr(cr_comm_t *comm, int comm_keyval, void *attribute_val, const char *fname)
{
    return cr_attr_set(CR_K_COMM, comm->handle, &comm->attrs, comm_keyval, attribute_val, fname);
}

int core_comm_get_attr(cr_comm_t *comm, int comm_keyval, void *attribute_val, int *flag,
                       const char *fname)
{
    return cr_attr_get(CR_K_COMM, &comm->attrs, comm_keyval, attribute_val, flag, fname);
}

int core_comm_set_attr_fortran(cr_comm_t *comm, int keyval, MPI_Aint value, int legacy,
                               const char *fname)
{
    return cr_attr_set_fortran(CR_K_COMM, comm->handle, &comm->attrs, keyval, value, legacy, fname);
}

int core_comm_get_attr_fortran(cr_comm_t *comm, int keyval, MPI_Aint *value, int *flag,
                               const char *fname)
{
    return cr_attr_get_fortran(CR_K_COMM, &comm->attrs, keyval, value, flag, fname);
}

int core_comm_delete_attr(cr_comm_t *comm, int comm_keyval, const char *fname)
{
    return cr_attr_delete(CR_K_COMM, comm->handle, &comm->attrs, comm_keyval, fname);
}

/* ---- datatypes ---------------------------------------------------------------------- */
int core_type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state)
{
    return keyval_create(CR_K_DATATYPE, (void (*)(void))type_copy_attr_fn,
                         (void (*)(void))type_delete_attr_fn, type_keyval, extra_state);
}

int core_type_free_keyval(int *type_keyval)
{
    return keyval_free(CR_K_DATATYPE, type_keyval, "MPI_Type_free_keyval");
}

int core_type_set_attr(cr_datatype_t *datatype, int type_keyval, void *attribute_val)
{
    return cr_attr_set(CR_K_DATATYPE, datatype->handle, &datatype->attrs, type_keyval,
                       attribute_val, "MPI_Type_set_attr");
}

int core_type_get_attr(cr_datatype_t *datatype, int type_keyval, void *attribute_val, int *flag)
{
    return cr_attr_get(CR_K_DATATYPE, &datatype->attrs, type_keyval, attribute_val, flag,
                       "MPI_Type_get_attr");
}

int core_type_set_attr_fortran(cr_datatype_t *datatype, int keyval, MPI_Aint value)
{
    return cr_attr_set_fortran(CR_K_DATATYPE, datatype->handle, &datatype->attrs, keyval, value, 0,
                               "MPI_Type_set_attr");
}

int core_type_get_attr_fortran(cr_datatype_t *datatype, int keyval, MPI_Aint *value, int *flag)
{
    return cr_attr_get_fortran(CR_K_DATATYPE, &datatype->attrs, keyval, value, flag,
                               "MPI_Type_get_attr");
}

int core_type_delete_attr(cr_datatype_t *datatype, int type_keyval)
{
    return cr_attr_delete(CR_K_DATATYPE, datatype->handle, &datatype->attrs, type_keyval,
                          "MPI_Type_delete_attr");
}

/* ---- windows ------------------------------------------------------------------------- */
/* Window keyvals work now; attributes need window objects, which do not exist
 * yet.  The window module will call cr_attr_set/get/delete with its object's
 * list, and answer the predefined MPI_WIN_* keys itself. */
int core_win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    return keyval_create(CR_K_WIN, (void (*)(void))win_copy_attr_fn,
                         (void (*)(void))win_delete_attr_fn, win_keyval, extra_state);
}

int core_win_free_keyval(int *win_keyval)
{
    return keyval_free(CR_K_WIN, win_keyval, "MPI_Win_free_keyval");
}
