/* SPDX-License-Identifier: MIT */
/* The Fortran sentinels' storage, string conversion, MPI_Sizeof, the handle
 * comparisons of mpi_f08, attribute keyvals, the predefined attribute
 * callbacks, generalized requests' Fortran callbacks and the MPI-1 procedures
 * the standard removed: the hand-written part of the Fortran bindings (the
 * entry points are generated into fort_*.c). */
#include <string.h>
#include "fortran/fort_util.h"
#include "core/attr.h"
#include "core/check.h"
#include "core/threads.h"

struct cr_f_priv1 mpipriv1_;
struct cr_f_priv2 mpipriv2_;
struct cr_f_privc mpiprivc_;
MPI_Fint mpifcmb5_, mpifcmb9_;

char *cr_f_str_in(const char *s, size_t len)
{
    while (len > 0 && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = 0;
    }
    return c;
}

char *cr_f_str_in_trim(const char *s, size_t len)
{
    while (len > 0 && *s == ' ') {
        s++;
        len--;
    }
    return cr_f_str_in(s, len);
}

/* Whether a Fortran string is blank (spaces, or the NULs of MPI_ARGV_NULL). */
static int f_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\0') return 0;
    return 1;
}

/* n entries of a, stride bytes apart, each len long, as a C vector; the
 * blanks that pad an entry on either side are not part of it (a spawned
 * program's " x" arrives as "x", as MPICH and Open MPI pass it). */
static char **f_strv(const char *a, int n, size_t stride, size_t len)
{
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int i = 0; v && i < n; i++)
        if (!(v[i] = cr_f_str_in_trim(a + (size_t)i * stride, len))) {
            cr_f_strv_free(v);
            return NULL;
        }
    return v;
}

char **cr_f_argv_in(const char *a, size_t len)
{
    int n = 0;
    while (!f_blank(a + (size_t)n * len, len)) n++;
    return f_strv(a, n, len, len);
}

char **cr_f_strs_in(const char *a, int n, size_t len)
{
    return f_strv(a, n > 0 ? n : 0, len, len);
}

char ***cr_f_argvs_in(const char *a, int count, size_t len)
{
    if (count < 1) count = 0;
    char ***v = calloc((size_t)count + 1, sizeof *v);
    for (int i = 0; v && i < count; i++) {
        /* entry (i, j) of array_of_argv(count, *) is at (j * count + i) * len */
        size_t stride = (size_t)count * len;
        const char *row = a + (size_t)i * len;
        int n = 0;
        while (!f_blank(row + (size_t)n * stride, len)) n++;
        if (!(v[i] = f_strv(row, n, stride, len))) {
            cr_f_argvs_free(v);
            return NULL;
        }
    }
    return v;
}

void cr_f_strv_free(char **v)
{
    for (int i = 0; v && v[i]; i++) free(v[i]);
    free(v);
}

void cr_f_argvs_free(char ***v)
{
    for (int i = 0; v && v[i]; i++) cr_f_strv_free(v[i]);
    free(v);
}

void cr_f_str_out(char *dst, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (n > len)
        n = len;
    memcpy(dst, src, n);
    memset(dst + n, ' ', len - n);
}

/* MPI_Sizeof(x, size, ierror): the modules' generic resolves to one of these
 * by the type of x (an assumed-rank descriptor the size does not depend on). */
#define CR_F_SIZEOF(tag, bytes)                                                          \
    CR_F_EXPORT void courier_sizeof_##tag##_(void *x, MPI_Fint *size, MPI_Fint *ierror, \
                                             ...)                                       \
    {                                                                                    \
        (void)x;                                                                         \
        *size = (bytes);                                                                 \
        if (ierror)                                                                      \
            *ierror = MPI_SUCCESS;                                                       \
    }
CR_F_SIZEOF(i1, 1) CR_F_SIZEOF(i2, 2) CR_F_SIZEOF(i4, 4) CR_F_SIZEOF(i8, 8)
CR_F_SIZEOF(r4, 4) CR_F_SIZEOF(r8, 8) CR_F_SIZEOF(c4, 8) CR_F_SIZEOF(c8, 16)
CR_F_SIZEOF(l1, 1) CR_F_SIZEOF(l4, 4) CR_F_SIZEOF(ch, 1)
CR_F_SIZEOF(r16, 16) CR_F_SIZEOF(c16, 32)

/* The same under the names of MPICH's mpi_f08 module procedures, which
 * binaries built against MPICH's mpi_f08 call (same arguments). */
#define CR_F_MPICH_SIZEOF(mpich, ours)                                                  \
    void __mpi_f08_types_MOD_mpi_sizeof_##mpich(void *x, MPI_Fint *size, MPI_Fint *ierror, \
                                                ...) CR_F_ALIAS(courier_sizeof_##ours##_);
CR_F_MPICH_SIZEOF(xint8, i1) CR_F_MPICH_SIZEOF(xint16, i2) CR_F_MPICH_SIZEOF(xint32, i4)
CR_F_MPICH_SIZEOF(xint64, i8) CR_F_MPICH_SIZEOF(xreal32, r4) CR_F_MPICH_SIZEOF(xreal64, r8)
CR_F_MPICH_SIZEOF(xreal128, r16) CR_F_MPICH_SIZEOF(xcomplex32, c4)
CR_F_MPICH_SIZEOF(xcomplex64, c8) CR_F_MPICH_SIZEOF(xcomplex128, c16)
CR_F_MPICH_SIZEOF(logical, l4) CR_F_MPICH_SIZEOF(character, ch)

/* mpi_f08's == and /= on handle types (each a one-integer bind(C) type). */
CR_F_EXPORT int courier_handle_eq(const MPI_Fint *a, const MPI_Fint *b)
{
    return *a == *b ? CR_F_TRUE : CR_F_FALSE;
}

CR_F_EXPORT int courier_handle_ne(const MPI_Fint *a, const MPI_Fint *b)
{
    return *a != *b ? CR_F_TRUE : CR_F_FALSE;
}

#define CR_F_MPICH_EQ(t)                                                                    \
    int __mpi_f08_types_MOD_mpi_##t##_eq(const MPI_Fint *a, const MPI_Fint *b)             \
        CR_F_ALIAS(courier_handle_eq);                                                       \
    int __mpi_f08_types_MOD_mpi_##t##_neq(const MPI_Fint *a, const MPI_Fint *b)            \
        CR_F_ALIAS(courier_handle_ne);
CR_F_MPICH_EQ(comm) CR_F_MPICH_EQ(datatype) CR_F_MPICH_EQ(errhandler) CR_F_MPICH_EQ(file)
CR_F_MPICH_EQ(group) CR_F_MPICH_EQ(info) CR_F_MPICH_EQ(message) CR_F_MPICH_EQ(op)
CR_F_MPICH_EQ(request) CR_F_MPICH_EQ(session) CR_F_MPICH_EQ(win)

/* ---- attributes ----------------------------------------------------------------- */
int cr_f_keyval_create(int kind, int legacy, void (*copy)(void), void (*del)(void), int *keyval,
                       MPI_Aint extra_state, const char *fname)
{
    int err, h;
    if (CR_UNLIKELY(cr_proc.state != CR_STATE_INIT)) {
        err = cr_chk_init_error(fname);
    } else {
        int k = kind == CR_F_KEYVAL_TYPE ? CR_K_DATATYPE : kind == CR_F_KEYVAL_WIN ? CR_K_WIN
                                                                                  : CR_K_COMM;
        err = cr_keyval_create_fortran(k, copy, del, extra_state, legacy, &h);
        if (err == MPI_SUCCESS) {
            *keyval = h;
            return MPI_SUCCESS;
        }
    }
    return cr_raise_none(err, fname);
}

/* The Fortran attribute calls check their arguments and raise errors as the
 * C calls do (src/binding), and reach attr.c through its Fortran forms: a get
 * when flag is given (value is written), else a set of *value. */
static int f_attr(int obj, MPI_Fint handle, MPI_Fint keyval, MPI_Aint *value, int *flag,
                  int legacy, const char *fname)
{
    int err, key = cr_f_keyval(keyval);
    if (flag) *flag = 0;
    if (CR_UNLIKELY(cr_proc.state != CR_STATE_INIT))
        return cr_raise_none(cr_chk_init_error(fname), fname);
    if (obj == CR_F_KEYVAL_TYPE) {
        cr_datatype_t *dt = NULL;
        if (!(err = cr_chk_datatype(handle, "datatype", 0, &dt))) {
            cr_lib_lock();
            err = flag ? core_type_get_attr_fortran(dt, key, value, flag)
                       : core_type_set_attr_fortran(dt, key, *value);
            cr_lib_unlock();
        }
        return err ? cr_raise_none(err, fname) : MPI_SUCCESS;
    }
    if (obj == CR_F_KEYVAL_WIN) {
        cr_win_t *w = NULL;
        if (!(err = cr_chk_win(handle, "win", &w))) {
            cr_lib_lock();
            err = flag ? core_win_get_attr_fortran(w, key, value, flag)
                       : core_win_set_attr_fortran(w, key, *value);
            cr_lib_unlock();
        }
        return err ? cr_raise_win(handle, err, fname) : MPI_SUCCESS;
    }
    cr_comm_t *c = NULL;
    if (!(err = cr_chk_comm(handle, "comm", &c))) {
        cr_lib_lock();
        err = flag ? core_comm_get_attr_fortran(c, key, value, flag, fname)
                   : core_comm_set_attr_fortran(c, key, *value, legacy, fname);
        cr_lib_unlock();
    }
    return err ? cr_raise_comm(handle, err, fname) : MPI_SUCCESS;
}

int cr_f_attr_set(int obj, MPI_Fint handle, MPI_Fint keyval, MPI_Aint value, int legacy,
                  const char *fname)
{
    return f_attr(obj, handle, keyval, &value, NULL, legacy, fname);
}

int cr_f_attr_get(int obj, MPI_Fint handle, MPI_Fint keyval, MPI_Aint *value, int *flag,
                  const char *fname)
{
    return f_attr(obj, handle, keyval, value, flag, 0, fname);
}

/* The predefined callbacks of Fortran programs, each a Fortran procedure with
 * the standard's interface (every argument by reference).  MPI_X_NULL_COPY_FN
 * returns flag = .FALSE. (not copied), MPI_X_DUP_FN copies the value with flag
 * = .TRUE., MPI_X_NULL_DELETE_FN does nothing; all return MPI_SUCCESS.  The
 * MPI-1 forms take default INTEGER values.  Names as MPICH's: mpi_x_ and the
 * other manglings, and its mpi_f08 module procedures. */
#define CR_F_COPY_FN(name, T, dup)                                                            \
    CR_F_EXPORT void p##name##_(MPI_Fint *obj, MPI_Fint *keyval, T *extra_state, T *in, T *out, \
                                MPI_Fint *flag, MPI_Fint *ierror)                             \
    {                                                                                         \
        (void)obj, (void)keyval, (void)extra_state;                                           \
        if (dup) *out = *in;                                                                  \
        *flag = (dup) ? CR_F_TRUE : CR_F_FALSE;                                               \
        *ierror = MPI_SUCCESS;                                                                \
    }                                                                                         \
    CR_F_FN_ALIASES(name, (MPI_Fint *, MPI_Fint *, T *, T *, T *, MPI_Fint *, MPI_Fint *))
#define CR_F_DELETE_FN(name, T)                                                               \
    CR_F_EXPORT void p##name##_(MPI_Fint *obj, MPI_Fint *keyval, T *value, T *extra_state,      \
                                MPI_Fint *ierror)                                             \
    {                                                                                         \
        (void)obj, (void)keyval, (void)value, (void)extra_state;                              \
        *ierror = MPI_SUCCESS;                                                                \
    }                                                                                         \
    CR_F_FN_ALIASES(name, (MPI_Fint *, MPI_Fint *, T *, T *, MPI_Fint *))
#define CR_F_FN_ALIASES(name, args)                                                           \
    void p##name##__ args CR_F_ALIAS(p##name##_);                                             \
    void name##_ args CR_F_ALIAS(p##name##_);                                                 \
    void name##__ args CR_F_ALIAS(p##name##_);
#define CR_F_MPICH_F08_FN(name, args)                                                         \
    void __mpi_f08_callbacks_MOD_##name args CR_F_ALIAS(p##name##_);

CR_F_COPY_FN(mpi_null_copy_fn, MPI_Fint, 0)
CR_F_DELETE_FN(mpi_null_delete_fn, MPI_Fint)
CR_F_COPY_FN(mpi_dup_fn, MPI_Fint, 1)
#define CR_F_ATTR_FNS(obj)                                                                    \
    CR_F_COPY_FN(mpi_##obj##_null_copy_fn, MPI_Aint, 0)                                       \
    CR_F_DELETE_FN(mpi_##obj##_null_delete_fn, MPI_Aint)                                      \
    CR_F_COPY_FN(mpi_##obj##_dup_fn, MPI_Aint, 1)                                             \
    CR_F_MPICH_F08_FN(mpi_##obj##_null_copy_fn, (MPI_Fint *, MPI_Fint *, MPI_Aint *,          \
                      MPI_Aint *, MPI_Aint *, MPI_Fint *, MPI_Fint *))                        \
    CR_F_MPICH_F08_FN(mpi_##obj##_dup_fn, (MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *,    \
                      MPI_Aint *, MPI_Fint *, MPI_Fint *))                                    \
    CR_F_MPICH_F08_FN(mpi_##obj##_null_delete_fn, (MPI_Fint *, MPI_Fint *, MPI_Aint *,        \
                      MPI_Aint *, MPI_Fint *))
CR_F_ATTR_FNS(comm)
CR_F_ATTR_FNS(type)
CR_F_ATTR_FNS(win)

/* ---- file error handlers --------------------------------------------------------- */
/* MPI_FILE_CREATE_ERRHANDLER from Fortran: the procedure takes an INTEGER
 * file handle where C's takes an MPI_File (a pointer), so the core remembers
 * that the handler is Fortran's and calls it so (error.c). */
int cr_f_file_create_errhandler(void (*fn)(void), MPI_Errhandler *errhandler)
{
    static const char fname[] = "MPI_File_create_errhandler";
    int err;
    if (CR_UNLIKELY(cr_proc.state != CR_STATE_INIT)) {
        err = cr_chk_init_error(fname);
    } else {
        cr_lib_lock();
        err = cr_errhandler_create_fortran(CR_K_FILE, fn, errhandler);
        cr_lib_unlock();
        if (err == MPI_SUCCESS) return MPI_SUCCESS;
    }
    return cr_raise_none(err, fname);
}

/* ---- generalized requests ----------------------------------------------------- */
/* MPI_GREQUEST_START from Fortran: the three Fortran procedures and the
 * address of the caller's extra_state, behind the C callbacks below.  The
 * Fortran callbacks take every argument by reference and return their error
 * code in a last ierror argument; the cancel callback's complete is a LOGICAL. */
typedef struct {
    void (*query)(MPI_Aint *, MPI_Fint *, MPI_Fint *);
    void (*free_fn)(MPI_Aint *, MPI_Fint *);
    void (*cancel)(MPI_Aint *, MPI_Fint *, MPI_Fint *);
    MPI_Aint *extra_state;
} f_greq_t;

static int f_greq_query(void *s, MPI_Status *status)
{
    f_greq_t *g = s;
    MPI_Fint ierr = MPI_SUCCESS;
    g->query(g->extra_state, (MPI_Fint *)status, &ierr);
    return ierr;
}

/* Called once, when the request is freed: the last use of g. */
static int f_greq_free(void *s)
{
    f_greq_t *g = s;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free_fn(g->extra_state, &ierr);
    free(g);
    return ierr;
}

static int f_greq_cancel(void *s, int complete)
{
    f_greq_t *g = s;
    MPI_Fint ierr = MPI_SUCCESS, c = complete ? CR_F_TRUE : CR_F_FALSE;
    g->cancel(g->extra_state, &c, &ierr);
    return ierr;
}

int cr_f_grequest_start(void (*query)(void), void (*free_fn)(void), void (*cancel)(void),
                        MPI_Aint *extra_state, MPI_Request *request)
{
    f_greq_t *g = malloc(sizeof *g);
    if (!g)
        return cr_raise_none(cr_error(MPI_ERR_NO_MEM, "no memory for the Fortran callbacks of "
                                      "a generalized request"), "MPI_Grequest_start");
    g->query = (void (*)(MPI_Aint *, MPI_Fint *, MPI_Fint *))query;
    g->free_fn = (void (*)(MPI_Aint *, MPI_Fint *))free_fn;
    g->cancel = (void (*)(MPI_Aint *, MPI_Fint *, MPI_Fint *))cancel;
    g->extra_state = extra_state;
    int err = PMPI_Grequest_start(f_greq_query, f_greq_free, f_greq_cancel, g, request);
    if (err != MPI_SUCCESS)
        free(g);
    return err;
}

/* ---- MPI-1 procedures that later standards removed ------------------------------ */
/* MPICH still exports their Fortran forms, and Fortran programs and MPICH's
 * test suite (f77/datatype/hindex1f, f90/datatype/get_elem_u) call them.  The
 * standard's apis.json no longer describes them, so they are written here;
 * their addresses, extents and displacements are default INTEGERs (MPI-1),
 * converted to and from MPI_Aint.  A value that does not fit is MPI_ERR_ARG. */
static int f_aint_out(MPI_Aint v, MPI_Fint *out, const char *fname, const char *arg)
{
    if (v != (MPI_Fint)v)
        return cr_raise_none(cr_error(MPI_ERR_ARG, "%s=%ld: does not fit in a default INTEGER "
                                      "(use the MPI-2 form)", arg, (long)v), fname);
    *out = (MPI_Fint)v;
    return MPI_SUCCESS;
}

/* n default INTEGER displacements as MPI_Aint (NULL for n <= 0: the C call
 * then checks count); *err is MPI_ERR_NO_MEM raised when out of memory. */
static MPI_Aint *f_aints_in(const MPI_Fint *d, MPI_Fint n, const char *fname, int *err)
{
    *err = MPI_SUCCESS;
    if (n <= 0)
        return NULL;
    MPI_Aint *a = malloc((size_t)n * sizeof *a);
    if (!a) {
        *err = cr_raise_none(cr_error(MPI_ERR_NO_MEM, "no memory for %d displacements", (int)n),
                             fname);
        return NULL;
    }
    for (MPI_Fint i = 0; i < n; i++)
        a[i] = d[i];
    return a;
}

#define CR_F_SET_IERROR(e) do { if (ierror) *ierror = (e); } while (0)

CR_F_EXPORT void pmpi_address_(void *location, MPI_Fint *address, MPI_Fint *ierror)
{
    MPI_Aint a = 0;
    int err = PMPI_Get_address(cr_f_buf(location), &a);
    if (err == MPI_SUCCESS)
        err = f_aint_out(a, address, "MPI_Address", "address");
    CR_F_SET_IERROR(err);
}
CR_F_FN_ALIASES(mpi_address, (void *, MPI_Fint *, MPI_Fint *))

/* MPI_TYPE_EXTENT, MPI_TYPE_LB, MPI_TYPE_UB: one MPI_Aint result each. */
#define CR_F_TYPE_AINT(lower, Cname, arg)                                                     \
    CR_F_EXPORT void p##lower##_(MPI_Fint *datatype, MPI_Fint *out, MPI_Fint *ierror)         \
    {                                                                                         \
        MPI_Aint v = 0;                                                                       \
        int err = P##Cname(*datatype, &v);                                                    \
        if (err == MPI_SUCCESS)                                                               \
            err = f_aint_out(v, out, #Cname, arg);                                            \
        CR_F_SET_IERROR(err);                                                                 \
    }                                                                                         \
    CR_F_FN_ALIASES(lower, (MPI_Fint *, MPI_Fint *, MPI_Fint *))
CR_F_TYPE_AINT(mpi_type_extent, MPI_Type_extent, "extent")
CR_F_TYPE_AINT(mpi_type_lb, MPI_Type_lb, "displacement")
CR_F_TYPE_AINT(mpi_type_ub, MPI_Type_ub, "displacement")

CR_F_EXPORT void pmpi_type_hvector_(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride,
                                    MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror)
{
    CR_F_SET_IERROR(PMPI_Type_hvector(*count, *blocklength, *stride, *oldtype,
                                      (MPI_Datatype *)newtype));
}
CR_F_FN_ALIASES(mpi_type_hvector, (MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                                   MPI_Fint *))

CR_F_EXPORT void pmpi_type_hindexed_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displs,
                                     MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierror)
{
    int err;
    MPI_Aint *d = f_aints_in(displs, *count, "MPI_Type_hindexed", &err);
    if (err == MPI_SUCCESS)
        err = PMPI_Type_hindexed(*count, blocklengths, d, *oldtype, (MPI_Datatype *)newtype);
    free(d);
    CR_F_SET_IERROR(err);
}
CR_F_FN_ALIASES(mpi_type_hindexed, (MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                                    MPI_Fint *))

CR_F_EXPORT void pmpi_type_struct_(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displs,
                                   MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierror)
{
    int err;
    MPI_Aint *d = f_aints_in(displs, *count, "MPI_Type_struct", &err);
    if (err == MPI_SUCCESS)
        err = PMPI_Type_struct(*count, blocklengths, d, (MPI_Datatype *)types,
                               (MPI_Datatype *)newtype);
    free(d);
    CR_F_SET_IERROR(err);
}
CR_F_FN_ALIASES(mpi_type_struct, (MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *,
                                  MPI_Fint *))

/* MPI_ERRHANDLER_CREATE's function has MPI_COMM_CREATE_ERRHANDLER's
 * convention (every argument by reference), so it passes through. */
CR_F_EXPORT void pmpi_errhandler_create_(void (*function)(void), MPI_Fint *errhandler,
                                         MPI_Fint *ierror)
{
    CR_F_SET_IERROR(PMPI_Errhandler_create((MPI_Handler_function *)function,
                                           (MPI_Errhandler *)errhandler));
}
CR_F_FN_ALIASES(mpi_errhandler_create, (void (*)(void), MPI_Fint *, MPI_Fint *))

CR_F_EXPORT void pmpi_errhandler_set_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    CR_F_SET_IERROR(PMPI_Errhandler_set(*comm, *errhandler));
}
CR_F_FN_ALIASES(mpi_errhandler_set, (MPI_Fint *, MPI_Fint *, MPI_Fint *))

CR_F_EXPORT void pmpi_errhandler_get_(MPI_Fint *comm, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    CR_F_SET_IERROR(PMPI_Errhandler_get(*comm, (MPI_Errhandler *)errhandler));
}
CR_F_FN_ALIASES(mpi_errhandler_get, (MPI_Fint *, MPI_Fint *, MPI_Fint *))
