/* SPDX-License-Identifier: MIT */
/* Datatype objects: the predefined types, handle lookup, and the size, extent
 * and name queries.  The engine that packs and unpacks is in dt_engine.c, the
 * constructors in dt_create.c, MPI_Pack & co in dt_pack.c, the counts in a
 * status (MPI_Get_count, MPI_Get_elements) in status.c. */
#include "core/core.h"
#include "core/datatype.h"
#include "core/api_dt.h"

#include <complex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

cr_objtab_t cr_datatype_tab;

/* Predefined types whose handle has builtin storage live in a table indexed by
 * the handle's low byte; the MPICH ABI puts five pair types in "direct" storage
 * (0x8c00000N), which have their own small table. */
cr_datatype_t *cr_builtin_by_index[256];
uint64_t cr_builtin_plain[256];
static cr_datatype_t *pair_by_index[8];

typedef struct { float v; int i; } cr_float_int_t;
typedef struct { double v; int i; } cr_double_int_t;
typedef struct { long v; int i; } cr_long_int_t;
typedef struct { short v; int i; } cr_short_int_t;
typedef struct { long double v; int i; } cr_ldouble_int_t;

/* A predefined type named by its handle's macro, or (BTN) by an explicit name. */
#define BTN(h, name, b, sz) { .handle = (h), .refcount = 1, .committed = 1, .builtin = 1,      \
    .basic = (b), .size = (sz), .lb = 0, .extent = (sz), .true_lb = 0, .true_extent = (sz),     \
    .nbasic = 1, .contig = 1, .name_builtin = (name) }
#define BT(h, b, sz) BTN(h, #h, b, sz)
#define PT(h, b, T, VT) { .handle = (h), .refcount = 1, .committed = 1, .builtin = 1,         \
    .basic = (b), .size = sizeof(VT) + sizeof(int), .lb = 0, .extent = sizeof(T), .true_lb = 0,  \
    .true_extent = sizeof(T), .nbasic = 1,                                                       \
    .contig = sizeof(VT) + sizeof(int) == sizeof(T), .name_builtin = #h }

static cr_datatype_t builtins[] = {
    BT(MPI_CHAR, CR_B_CHAR, 1), BT(MPI_SIGNED_CHAR, CR_B_SCHAR, 1),
    BT(MPI_UNSIGNED_CHAR, CR_B_UCHAR, 1), BT(MPI_BYTE, CR_B_BYTE, 1),
    BT(MPI_WCHAR, CR_B_WCHAR, sizeof(wchar_t)), BT(MPI_SHORT, CR_B_SHORT, sizeof(short)),
    BT(MPI_UNSIGNED_SHORT, CR_B_USHORT, sizeof(short)), BT(MPI_INT, CR_B_INT, sizeof(int)),
    BT(MPI_UNSIGNED, CR_B_UINT, sizeof(int)), BT(MPI_LONG, CR_B_LONG, sizeof(long)),
    BT(MPI_UNSIGNED_LONG, CR_B_ULONG, sizeof(long)), BT(MPI_FLOAT, CR_B_FLOAT, sizeof(float)),
    BT(MPI_DOUBLE, CR_B_DOUBLE, sizeof(double)),
    BT(MPI_LONG_DOUBLE, CR_B_LDOUBLE, sizeof(long double)),
    BT(MPI_LONG_LONG_INT, CR_B_LLONG, sizeof(long long)),
    BT(MPI_UNSIGNED_LONG_LONG, CR_B_ULLONG, sizeof(long long)),
    BT(MPI_PACKED, CR_B_PACKED, 1),
    BT(MPI_2INT, CR_B_2INT, 2 * sizeof(int)),
    BT(MPI_INT8_T, CR_B_INT8, 1), BT(MPI_INT16_T, CR_B_INT16, 2),
    BT(MPI_INT32_T, CR_B_INT32, 4), BT(MPI_INT64_T, CR_B_INT64, 8),
    BT(MPI_UINT8_T, CR_B_UINT8, 1), BT(MPI_UINT16_T, CR_B_UINT16, 2),
    BT(MPI_UINT32_T, CR_B_UINT32, 4), BT(MPI_UINT64_T, CR_B_UINT64, 8),
    BT(MPI_C_BOOL, CR_B_BOOL, sizeof(bool)),
    /* MPI_C_COMPLEX is this type's first name in the standard (and MPICH's) */
    BTN(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", CR_B_FCOMPLEX, sizeof(float _Complex)),
    BT(MPI_C_DOUBLE_COMPLEX, CR_B_DCOMPLEX, sizeof(double _Complex)),
    BT(MPI_C_LONG_DOUBLE_COMPLEX, CR_B_LDCOMPLEX, sizeof(long double _Complex)),
    BT(MPI_CXX_BOOL, CR_B_BOOL, sizeof(bool)),
    BT(MPI_CXX_FLOAT_COMPLEX, CR_B_FCOMPLEX, sizeof(float _Complex)),
    BT(MPI_CXX_DOUBLE_COMPLEX, CR_B_DCOMPLEX, sizeof(double _Complex)),
    BT(MPI_CXX_LONG_DOUBLE_COMPLEX, CR_B_LDCOMPLEX, sizeof(long double _Complex)),
    BT(MPI_AINT, CR_B_AINT, sizeof(MPI_Aint)), BT(MPI_OFFSET, CR_B_OFFSET, sizeof(MPI_Offset)),
    BT(MPI_COUNT, CR_B_COUNT, sizeof(MPI_Count)),
    /* Fortran */
    BT(MPI_INTEGER, CR_B_F_INTEGER, 4), BT(MPI_REAL, CR_B_F_REAL, 4),
    BT(MPI_DOUBLE_PRECISION, CR_B_F_DOUBLE, 8), BT(MPI_LOGICAL, CR_B_F_LOGICAL, 4),
    BT(MPI_CHARACTER, CR_B_F_CHARACTER, 1), BT(MPI_COMPLEX, CR_B_F_COMPLEX, 8),
    BT(MPI_DOUBLE_COMPLEX, CR_B_F_DCOMPLEX, 16),
    BT(MPI_INTEGER1, CR_B_F_INTEGER1, 1), BT(MPI_INTEGER2, CR_B_F_INTEGER2, 2),
    BT(MPI_INTEGER4, CR_B_F_INTEGER4, 4), BT(MPI_INTEGER8, CR_B_F_INTEGER8, 8),
    BT(MPI_REAL4, CR_B_F_REAL4, 4), BT(MPI_REAL8, CR_B_F_REAL8, 8),
    BT(MPI_REAL16, CR_B_F_REAL16, 16), BT(MPI_COMPLEX8, CR_B_F_COMPLEX8, 8),
    BT(MPI_COMPLEX16, CR_B_F_COMPLEX16, 16), BT(MPI_COMPLEX32, CR_B_F_COMPLEX32, 32),
    BT(MPI_2INTEGER, CR_B_F_2INTEGER, 8), BT(MPI_2REAL, CR_B_F_2REAL, 8),
    BT(MPI_2DOUBLE_PRECISION, CR_B_F_2DOUBLE, 16),
    /* half precision, and the Fortran types of later MPICH releases (same ABI,
     * their handles; include/mpi.h says why MPI_INTEGER16 has one) */
    BT(MPIX_C_FLOAT16, CR_B_FLOAT16, 2), BT(MPIX_BFLOAT16, CR_B_BFLOAT16, 2),
    BT(MPI_REAL2, CR_B_F_REAL2, 2), BT(MPI_COMPLEX4, CR_B_F_COMPLEX4, 4),
    BT(MPI_INTEGER16, CR_B_F_INTEGER16, 16),
    BT(MPI_LOGICAL1, CR_B_F_LOGICAL1, 1), BT(MPI_LOGICAL2, CR_B_F_LOGICAL2, 2),
    BT(MPI_LOGICAL4, CR_B_F_LOGICAL4, 4), BT(MPI_LOGICAL8, CR_B_F_LOGICAL8, 8),
    BT(MPI_LOGICAL16, CR_B_F_LOGICAL16, 16),
    /* The deprecated bound markers: size 0. */
    { .handle = MPI_LB, .refcount = 1, .committed = 1, .builtin = 1, .basic = CR_B_LB,
      .contig = 1, .name_builtin = "MPI_LB" },
    { .handle = MPI_UB, .refcount = 1, .committed = 1, .builtin = 1, .basic = CR_B_UB,
      .contig = 1, .name_builtin = "MPI_UB" },
    /* value-index pairs */
    PT(MPI_FLOAT_INT, CR_B_FLOAT_INT, cr_float_int_t, float),
    PT(MPI_DOUBLE_INT, CR_B_DOUBLE_INT, cr_double_int_t, double),
    PT(MPI_LONG_INT, CR_B_LONG_INT, cr_long_int_t, long),
    PT(MPI_SHORT_INT, CR_B_SHORT_INT, cr_short_int_t, short),
    PT(MPI_LONG_DOUBLE_INT, CR_B_LDOUBLE_INT, cr_ldouble_int_t, long double),
};

static size_t basic_sizes[CR_B_COUNT_OF_KINDS];

/* The components of a value-index pair: value at 0, the int at offsetof(T, i). */
#define PAIR_KIDS(T, VK, VT)                                                            \
    { { .count = 1, .size = sizeof(VT), .basic = (VK), .esize = sizeof(VT) },            \
      { .off = offsetof(T, i), .count = 1, .size = sizeof(int), .basic = CR_B_INT,       \
        .esize = sizeof(int) } }

/* The layout of a predefined type as the engine sees it: one leaf of its own
 * kind, except that the pair types are two basic elements each (as
 * MPI_Get_elements counts them). */
static int builtin_layout(cr_datatype_t *d)
{
    static const cr_dt_node_t float_int[2] = PAIR_KIDS(cr_float_int_t, CR_B_FLOAT, float);
    static const cr_dt_node_t double_int[2] = PAIR_KIDS(cr_double_int_t, CR_B_DOUBLE, double);
    static const cr_dt_node_t long_int[2] = PAIR_KIDS(cr_long_int_t, CR_B_LONG, long);
    static const cr_dt_node_t short_int[2] = PAIR_KIDS(cr_short_int_t, CR_B_SHORT, short);
    static const cr_dt_node_t ldouble_int[2] =
        PAIR_KIDS(cr_ldouble_int_t, CR_B_LDOUBLE, long double);
    /* pairs of one kind: a leaf of two elements */
    static const struct { cr_basic_t pair, elem; } same[] = {
        { CR_B_2INT, CR_B_INT }, { CR_B_F_2INTEGER, CR_B_F_INTEGER },
        { CR_B_F_2REAL, CR_B_F_REAL }, { CR_B_F_2DOUBLE, CR_B_F_DOUBLE },
    };
    switch (d->basic) {
    case CR_B_FLOAT_INT: return cr_dt_builtin_desc(d, float_int, 2);
    case CR_B_DOUBLE_INT: return cr_dt_builtin_desc(d, double_int, 2);
    case CR_B_LONG_INT: return cr_dt_builtin_desc(d, long_int, 2);
    case CR_B_SHORT_INT: return cr_dt_builtin_desc(d, short_int, 2);
    case CR_B_LDOUBLE_INT: return cr_dt_builtin_desc(d, ldouble_int, 2);
    default: break;
    }
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        if (d->basic == same[i].pair) {
            cr_dt_node_t leaf = { .count = 1, .size = d->size, .basic = same[i].elem,
                                  .esize = (int)(d->size / 2) };
            return cr_dt_builtin_desc(d, &leaf, 1);
        }
    cr_dt_node_t leaf = { .count = 1, .size = d->size, .basic = d->basic, .esize = (int)d->size };
    return cr_dt_builtin_desc(d, &leaf, 1);
}

void cr_datatype_init(void)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        cr_datatype_t *d = &builtins[i];
        uint32_t h = (uint32_t)d->handle;
        if (d->handle == MPI_DATATYPE_NULL) continue;
        if (CR_H_STORAGE(h) == CR_ST_BUILTIN) {
            cr_builtin_by_index[h & 0xff] = d;
            if (d->contig && d->true_lb == 0 && d->true_extent == (MPI_Aint)d->size && d->size > 0)
                cr_builtin_plain[h & 0xff] = (uint64_t)h << 32 | (uint64_t)d->size;
        }
        else
            pair_by_index[h & 0x7] = d;
        if (!basic_sizes[d->basic]) basic_sizes[d->basic] = (size_t)d->size;
        /* Non-contiguous pairs still count as one basic element of `basic`. */
        /* the name MPI_Type_get_name reports until MPI_Type_set_name changes it */
        if (!d->name[0]) snprintf(d->name, sizeof d->name, "%s", d->name_builtin);
    }
    /* The layouts need every basic size (alignment), so they come second; a
     * second MPI_Init-like call finds them built. */
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (!builtins[i].desc && builtin_layout(&builtins[i]))
            cr_abort_job(1, "out of memory describing the predefined datatypes");
}

size_t cr_basic_size(cr_basic_t b)
{
    return b > 0 && b < CR_B_COUNT_OF_KINDS ? basic_sizes[b] : 0;
}

cr_datatype_t *cr_datatype_ptr_slow(MPI_Datatype h)
{
    uint32_t u = (uint32_t)h;
    if (CR_H_KIND(u) != CR_K_DATATYPE) return NULL;
    switch (CR_H_STORAGE(u)) {
    case CR_ST_BUILTIN: {
        cr_datatype_t *d = cr_builtin_by_index[u & 0xff];
        return d && d->handle == h ? d : NULL;
    }
    case CR_ST_DIRECT: return (u & 0x03fffff8) == 0 ? pair_by_index[u & 0x7] : NULL;
    case CR_ST_USER: return cr_objtab_get(&cr_datatype_tab, CR_H_INDEX(u));
    default: return NULL;
    }
}

/* ---- queries --------------------------------------------------------------- */
int core_type_size(cr_datatype_t *datatype, MPI_Count *size)
{
    *size = datatype->size;
    return MPI_SUCCESS;
}

int core_type_get_extent(cr_datatype_t *datatype, MPI_Count *lb, MPI_Count *extent)
{
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

int core_type_get_true_extent(cr_datatype_t *datatype, MPI_Count *true_lb,
                              MPI_Count *true_extent)
{
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_extent;
    return MPI_SUCCESS;
}

int core_type_extent(cr_datatype_t *datatype, MPI_Aint *extent)
{
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

int core_type_lb(cr_datatype_t *datatype, MPI_Aint *displacement)
{
    *displacement = datatype->lb;
    return MPI_SUCCESS;
}

int core_type_ub(cr_datatype_t *datatype, MPI_Aint *displacement)
{
    *displacement = datatype->lb + datatype->extent;
    return MPI_SUCCESS;
}

int core_type_get_name(cr_datatype_t *datatype, char *type_name, int *resultlen)
{
    if (!type_name) return cr_error(MPI_ERR_ARG, "type_name=NULL: null pointer");
    snprintf(type_name, MPI_MAX_OBJECT_NAME, "%s", datatype->name);
    *resultlen = (int)strlen(type_name);
    return MPI_SUCCESS;
}

/* The standard lets any datatype be renamed, predefined ones included. */
int core_type_set_name(cr_datatype_t *datatype, const char *type_name)
{
    if (!type_name) return cr_error(MPI_ERR_ARG, "type_name=NULL: null pointer");
    snprintf(datatype->name, sizeof datatype->name, "%s", type_name);
    return MPI_SUCCESS;
}

int core_get_address(const void *location, MPI_Aint *address)
{
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
