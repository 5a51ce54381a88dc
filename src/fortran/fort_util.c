/* SPDX-License-Identifier: MIT */
/* The Fortran sentinels' storage, string conversion, MPI_Sizeof, the handle
 * comparisons of mpi_f08, attribute keyvals and the predefined attribute
 * callbacks: the hand-written part of the Fortran bindings (the entry points
 * are generated into fort_*.c). */
#include <string.h>
#include "fortran/fort_util.h"
#include "core/attr.h"
#include "core/check.h"

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

/* Whether a Fortran string is blank (spaces, or the NULs of MPI_ARGV_NULL). */
static int f_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] != ' ' && s[i] != '\0') return 0;
    return 1;
}

/* n entries of a, stride bytes apart, each len long, as a C vector. */
static char **f_strv(const char *a, int n, size_t stride, size_t len)
{
    char **v = calloc((size_t)n + 1, sizeof *v);
    for (int i = 0; v && i < n; i++)
        if (!(v[i] = cr_f_str_in(a + (size_t)i * stride, len))) {
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

MPI_Aint cr_f_attr_value(int keyval, void *v)
{
    switch (keyval) {
    case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE: case MPI_LASTUSEDCODE: case MPI_APPNUM:
    case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
        return *(int *)v;
    case MPI_WIN_SIZE:
        return *(MPI_Aint *)v;
    default:            /* MPI_WIN_BASE, and every user attribute: the value */
        return (MPI_Aint)v;
    }
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
