/* SPDX-License-Identifier: MIT */
/* Helpers of the generated Fortran entry points (src/fortran/fort_*.c).
 *
 * Fortran passes every argument by reference; handles are the C handle
 * integers (MPICH ABI) and a status is MPI_F_STATUS_SIZE integers laid out as
 * MPI_Status, so most arguments pass straight through.  These helpers convert
 * the rest: the sentinels (addresses of MPICH's common blocks), strings with
 * Fortran's hidden lengths, 0-based indices, attribute values and keys.
 */
#ifndef COURIER_FORTRAN_FORT_UTIL_H
#define COURIER_FORTRAN_FORT_UTIL_H
#include <stddef.h>
#include <stdlib.h>
#include "mpi.h"

#define CR_F_EXPORT __attribute__((visibility("default")))
/* The other three names of an entry point (mpi_x_, mpi_x__, pmpi_x__): weak,
 * so a profiling library can replace the MPI_ names. */
#define CR_F_ALIAS(target) __attribute__((weak, alias(#target), visibility("default")))

/* gfortran's LOGICAL values (MPICH on gfortran uses the same). */
#define CR_F_TRUE 1
#define CR_F_FALSE 0

/* MPICH's Fortran common blocks, same names and layout: mpif.h, the mpi and
 * the mpi_f08 modules place the sentinels here, and binaries built with
 * MPICH's mpif.h define the same blocks. */
struct cr_f_priv1 {
    MPI_Fint bottom, in_place, status_ignore[MPI_F_STATUS_SIZE];
};
struct cr_f_priv2 {
    MPI_Fint statuses_ignore[MPI_F_STATUS_SIZE], errcodes_ignore[1];
};
struct cr_f_privc {
    char argvs_null[1], argv_null[1];
};
extern struct cr_f_priv1 mpipriv1_ CR_F_EXPORT;
extern struct cr_f_priv2 mpipriv2_ CR_F_EXPORT;
extern struct cr_f_privc mpiprivc_ CR_F_EXPORT;
extern MPI_Fint mpifcmb5_ CR_F_EXPORT, mpifcmb9_ CR_F_EXPORT;

/* A choice buffer: MPI_BOTTOM and MPI_IN_PLACE become the C values. */
static inline void *cr_f_buf(void *p)
{
    if (p == &mpipriv1_.bottom || p == &MPIR_F08_MPI_BOTTOM)
        return MPI_BOTTOM;
    if (p == &mpipriv1_.in_place || p == &MPIR_F08_MPI_IN_PLACE)
        return MPI_IN_PLACE;
    return p;
}

/* A weights array: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY become the C values. */
static inline int *cr_f_weights(MPI_Fint *w)
{
    if (w == &mpifcmb5_)
        return MPI_UNWEIGHTED;
    if (w == &mpifcmb9_)
        return MPI_WEIGHTS_EMPTY;
    return (int *)w;
}

static inline MPI_Status *cr_f_status(MPI_Fint *s)
{
    if (s == mpipriv1_.status_ignore || s == (MPI_Fint *)&MPIR_F08_MPI_STATUS_IGNORE_OBJ)
        return MPI_STATUS_IGNORE;
    return (MPI_Status *)s;
}

static inline MPI_Status *cr_f_statuses(MPI_Fint *s)
{
    if (s == mpipriv2_.statuses_ignore || s == (MPI_Fint *)MPIR_F08_MPI_STATUSES_IGNORE_OBJ)
        return MPI_STATUSES_IGNORE;
    return (MPI_Status *)s;
}

/* A choice buffer given as an assumed-rank array descriptor (MPICH's
 * mpi_f08 calls the mpi_x_f08ts_ names so): gfortran's descriptor starts
 * with the base address.  Only contiguous buffers are right this way. */
static inline void *cr_f_desc(void *desc)
{
    return *(void **)desc;
}

/* A string argument: a NUL-terminated copy without the trailing blanks
 * (NULL when out of memory, which the C function then reports). */
char *cr_f_str_in(const char *s, size_t len);
/* The same without leading blanks either (info keys and values). */
char *cr_f_str_in_trim(const char *s, size_t len);
/* A string result: copied into the Fortran variable, blank-padded. */
void cr_f_str_out(char *dst, size_t len, const char *src);
/* Arrays of strings of length len (MPI_COMM_SPAWN's argv and the arrays of
 * MPI_COMM_SPAWN_MULTIPLE), as NULL-terminated C vectors of copies:
 * argv: entries up to the first blank one (MPI_ARGV_NULL is blank);
 * strs: n entries; argvs: array_of_argv(count, *), each row up to its first
 * blank entry.  NULL when out of memory.  The _free calls release them. */
char **cr_f_argv_in(const char *a, size_t len);
char **cr_f_strs_in(const char *a, int n, size_t len);
char ***cr_f_argvs_in(const char *a, int count, size_t len);
void cr_f_strv_free(char **v);
void cr_f_argvs_free(char ***v);

/* Attribute keyvals made from Fortran (MPI_COMM_CREATE_KEYVAL & co.): the
 * object kind, whether the callbacks are MPI_KEYVAL_CREATE's default-INTEGER
 * form, the Fortran copy and delete procedures, the caller's keyval variable,
 * extra_state's value, and the MPI name for errors (raised like the C call's). */
enum { CR_F_KEYVAL_COMM, CR_F_KEYVAL_TYPE, CR_F_KEYVAL_WIN };
int cr_f_keyval_create(int kind, int legacy, void (*copy)(void), void (*del)(void), int *keyval,
                       MPI_Aint extra_state, const char *fname);

/* An attribute key given in Fortran: MPICH's Fortran values of the
 * predefined keys (MPI_TAG_UB = 0x64400002, the C value + 1; mpif.h and the
 * modules use them) become the C values; the C values and user keyvals stay. */
static inline int cr_f_keyval(MPI_Fint k)
{
    switch (k - 1) {
    case MPI_TAG_UB: case MPI_HOST: case MPI_IO: case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE: case MPI_LASTUSEDCODE: case MPI_APPNUM:
    case MPI_WIN_BASE: case MPI_WIN_SIZE: case MPI_WIN_DISP_UNIT:
    case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
        return k - 1;
    default:
        return k;
    }
}

/* MPI_X_SET_ATTR and MPI_ATTR_PUT (legacy: its INTEGER value), MPI_X_GET_ATTR
 * and MPI_ATTR_GET, on the object of kind obj (CR_F_KEYVAL_COMM, _TYPE,
 * _WIN) with the Fortran handle and key: the attribute is stored as a
 * Fortran one (a C get of it returns the address of the value, MPI-4.1
 * 19.3.7), and a get returns the integer a Fortran program reads: the value
 * of a Fortran attribute or a predefined one, the pointer of a C one.
 * Errors are raised as the C calls raise them, and returned. */
int cr_f_attr_set(int obj, MPI_Fint handle, MPI_Fint keyval, MPI_Aint value, int legacy,
                  const char *fname);
int cr_f_attr_get(int obj, MPI_Fint handle, MPI_Fint keyval, MPI_Aint *value, int *flag,
                  const char *fname);

/* MPI_GREQUEST_START's entry: starts the request with C callbacks that call
 * the Fortran query, free and cancel procedures (every argument by reference,
 * the error code in a last ierror argument), giving them extra_state, the
 * address of the caller's variable.  Errors as the C call's. */
int cr_f_grequest_start(void (*query)(void), void (*free_fn)(void), void (*cancel)(void),
                        MPI_Aint *extra_state, MPI_Request *request);

/* MPI_FILE_CREATE_ERRHANDLER's entry: an error handler that calls the
 * Fortran procedure with an INTEGER file handle and error code (by
 * reference).  Errors as the C call's. */
int cr_f_file_create_errhandler(void (*fn)(void), MPI_Errhandler *errhandler);

/* 0-based C indices to 1-based Fortran ones (MPI_UNDEFINED stays). */
static inline void cr_f_index_out(MPI_Fint *idx, int n)
{
    for (int i = 0; i < n && n != MPI_UNDEFINED; i++)
        if (idx[i] != MPI_UNDEFINED && idx[i] >= 0)
            idx[i] += 1;
}
#endif
