/* SPDX-License-Identifier: MIT */
/* MPI 5.0's ABI chapter as it applies to an implementation of another ABI.
 *
 * Courier is binary compatible with the MPICH ABI (libmpi.so.12, integer
 * handles), not with the MPI 5.0 standard ABI (libmpi_abi, pointer handles and
 * its own constants).  MPI 5.0 section 21.2: MPI_Abi_get_version "produces the
 * standard ABI version, if supported.  Otherwise, the values of the major and
 * minor version are set to -1", so Courier answers -1, -1.  The other
 * procedures of the chapter are still meaningful here:
 *
 * - MPI_Abi_get_info: a new info object with the sizes of MPI_Aint, MPI_Count
 *   and MPI_Offset in bytes (keys mpi_aint_size, mpi_count_size,
 *   mpi_offset_size), as decimal strings.
 * - MPI_Abi_get_fortran_info: Courier's Fortran entry points are part of
 *   libmpi and follow gfortran's conventions (docs/fortran.md), so the library
 *   knows its Fortran ABI: the sizes of INTEGER, REAL, DOUBLE PRECISION and
 *   LOGICAL (those of MPI_INTEGER and friends) and which optional Fortran
 *   datatypes Courier supports (mpi_<type><bytes>_supported, "true" or
 *   "false", as the datatypes themselves say: all of them).
 * - MPI_Abi_get_fortran_booleans: gfortran's .TRUE. is 1 and .FALSE. 0 in
 *   every LOGICAL kind; is_set is true, the values having been set "internally
 *   by MPI" when the library was built.
 * - MPI_Abi_set_fortran_info and MPI_Abi_set_fortran_booleans: "Only the first
 *   call ... affects the state of the MPI library; all subsequent calls will
 *   return the error code MPI_ERR_ABI."  Courier's properties are fixed at
 *   build time, which counts as that first setting, so both answer MPI_ERR_ABI
 *   (after the argument checks: a bad logical_size is MPI_ERR_ARG).
 * - MPI_<Handle>_toint / _fromint: MPICH ABI handles are ints, so the integer
 *   of a handle is its value, and back.  The standard makes an invalid handle,
 *   or an integer that no toint gave, erroneous, and the functions return no
 *   error code, so nothing is checked.  The predefined handles keep their
 *   MPICH values (not the standard ABI's table, which belongs to libmpi_abi).
 *   MPI_File is a pointer in the MPICH ABI that holds a Courier handle
 *   integer: io/file.c converts it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "core/core.h"
#include "core/api_comm.h"
#include "core/info.h"

int core_abi_get_version(int *abi_major, int *abi_minor)
{
    *abi_major = -1;
    *abi_minor = -1;
    return MPI_SUCCESS;
}

/* A new user info (handle in *info) holding n (key, value) pairs. */
static int info_of(const char *const (*kv)[2], int n, MPI_Info *info)
{
    cr_info_t *tmp;
    int err = cr_info_new(&tmp);
    for (int i = 0; !err && i < n; i++) err = cr_info_put(tmp, kv[i][0], kv[i][1]);
    if (!err) err = cr_info_to_user(tmp, info);
    cr_info_destroy(tmp);
    return err;
}

/* The size of a predefined datatype, as a decimal string in buf. */
static const char *size_str(MPI_Datatype dt, char *buf, size_t len)
{
    cr_datatype_t *d = cr_datatype_ptr(dt);
    snprintf(buf, len, "%lld", d ? (long long)d->size : 0LL);
    return buf;
}

int core_abi_get_info(MPI_Info *info)
{
    char a[24], c[24], o[24];
    snprintf(a, sizeof a, "%zu", sizeof(MPI_Aint));
    snprintf(c, sizeof c, "%zu", sizeof(MPI_Count));
    snprintf(o, sizeof o, "%zu", sizeof(MPI_Offset));
    const char *const kv[][2] = {
        {"mpi_aint_size", a}, {"mpi_count_size", c}, {"mpi_offset_size", o},
    };
    return info_of(kv, (int)(sizeof kv / sizeof kv[0]), info);
}

/* The optional Fortran datatypes, whose mpi_<name>_supported keys say whether
 * Courier supports them.  MPI 5.0 21.4 has a program detect an optional
 * predefined datatype that is absent by its size, MPI_UNDEFINED, so the key
 * answers the same question as the datatype: true when the datatype is there
 * with a size.  Courier has every one, MPI_REAL2 and MPI_COMPLEX4 included
 * (2-byte halves, as C's _Float16), although gfortran itself has no REAL(2);
 * mpi4py's test suite checks exactly this agreement. */
static const struct {
    const char *key;
    MPI_Datatype type;
} fortran_kinds[] = {
    {"mpi_logical1_supported", MPI_LOGICAL1},  {"mpi_logical2_supported", MPI_LOGICAL2},
    {"mpi_logical4_supported", MPI_LOGICAL4},  {"mpi_logical8_supported", MPI_LOGICAL8},
    {"mpi_logical16_supported", MPI_LOGICAL16}, {"mpi_integer1_supported", MPI_INTEGER1},
    {"mpi_integer2_supported", MPI_INTEGER2},  {"mpi_integer4_supported", MPI_INTEGER4},
    {"mpi_integer8_supported", MPI_INTEGER8},  {"mpi_integer16_supported", MPI_INTEGER16},
    {"mpi_real2_supported", MPI_REAL2},        {"mpi_real4_supported", MPI_REAL4},
    {"mpi_real8_supported", MPI_REAL8},        {"mpi_real16_supported", MPI_REAL16},
    {"mpi_complex4_supported", MPI_COMPLEX4},  {"mpi_complex8_supported", MPI_COMPLEX8},
    {"mpi_complex16_supported", MPI_COMPLEX16}, {"mpi_complex32_supported", MPI_COMPLEX32},
    {"mpi_double_complex_supported", MPI_DOUBLE_COMPLEX},
};
#define N_FORTRAN_KINDS ((int)(sizeof fortran_kinds / sizeof fortran_kinds[0]))

int core_abi_get_fortran_info(MPI_Info *info)
{
    char l[24], i[24], r[24], d[24];
    const char *kv[4 + N_FORTRAN_KINDS][2] = {
        {"mpi_logical_size", size_str(MPI_LOGICAL, l, sizeof l)},
        {"mpi_integer_size", size_str(MPI_INTEGER, i, sizeof i)},
        {"mpi_real_size", size_str(MPI_REAL, r, sizeof r)},
        {"mpi_double_precision_size", size_str(MPI_DOUBLE_PRECISION, d, sizeof d)},
    };
    for (int k = 0; k < N_FORTRAN_KINDS; k++) {
        kv[4 + k][0] = fortran_kinds[k].key;
        cr_datatype_t *t = cr_datatype_ptr(fortran_kinds[k].type);
        kv[4 + k][1] = t && t->size > 0 ? "true" : "false";
    }
    return info_of((const char *const (*)[2])kv, 4 + N_FORTRAN_KINDS, info);
}

int core_abi_set_fortran_info(cr_info_t *info)
{
    if (!info) return cr_error(MPI_ERR_INFO, "info is MPI_INFO_NULL: there is nothing to set");
    return cr_error(MPI_ERR_ABI, "the Fortran ABI of Courier's own Fortran bindings is fixed when "
                                 "the library is built (see MPI_Abi_get_fortran_info)");
}

/* A LOGICAL kind: 1, 2, 4, 8 or 16 bytes. */
static int logical_size_ok(int n)
{
    return n == 1 || n == 2 || n == 4 || n == 8 || n == 16;
}

/* value (0 or 1) as a native-endian integer of n bytes at p. */
static void put_logical(void *p, int n, unsigned value)
{
    switch (n) {
    case 1: { uint8_t v = (uint8_t)value; memcpy(p, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)value; memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = value; memcpy(p, &v, 4); break; }
    case 8: { uint64_t v = value; memcpy(p, &v, 8); break; }
    default: { unsigned __int128 v = value; memcpy(p, &v, 16); break; }
    }
}

int core_abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false,
                                  int *is_set)
{
    if (!logical_size_ok(logical_size))
        return cr_error(MPI_ERR_ARG, "logical_size %d is not the size of a Fortran LOGICAL kind "
                                     "(1, 2, 4, 8 or 16)", logical_size);
    put_logical(logical_true, logical_size, 1);
    put_logical(logical_false, logical_size, 0);
    *is_set = 1;
    return MPI_SUCCESS;
}

int core_abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    if (!logical_size_ok(logical_size))
        return cr_error(MPI_ERR_ARG, "logical_size %d is not the size of a Fortran LOGICAL kind "
                                     "(1, 2, 4, 8 or 16)", logical_size);
    if (!logical_true || !logical_false)
        return cr_error(MPI_ERR_ARG, "%s is NULL", logical_true ? "logical_false" : "logical_true");
    return cr_error(MPI_ERR_ABI, "Courier's Fortran LOGICAL values (gfortran's: .TRUE. 1, "
                                 ".FALSE. 0) are fixed when the library is built");
}

/* The handle serialization functions: identity on MPICH ABI handles. */
#define TOINT_FROMINT(lower, type)                                                  \
    int core_##lower##_toint(type h) { return (int)h; }                            \
    type core_##lower##_fromint(int i) { return (type)i; }
TOINT_FROMINT(comm, MPI_Comm)
TOINT_FROMINT(errhandler, MPI_Errhandler)
TOINT_FROMINT(group, MPI_Group)
TOINT_FROMINT(info, MPI_Info)
TOINT_FROMINT(message, MPI_Message)
TOINT_FROMINT(op, MPI_Op)
TOINT_FROMINT(request, MPI_Request)
TOINT_FROMINT(session, MPI_Session)
TOINT_FROMINT(type, MPI_Datatype)
TOINT_FROMINT(win, MPI_Win)
