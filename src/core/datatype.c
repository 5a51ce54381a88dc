/* SPDX-License-Identifier: MIT */
/* Datatype objects: the predefined types, handle lookup, pack/unpack and the
 * size/extent queries.  A type that is not one contiguous run of bytes carries
 * a block list (cr_dt_desc_t) that pack and unpack walk. */
#include "core/core.h"
#include "core/datatype.h"

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
static cr_datatype_t *builtin_by_index[256];
static cr_datatype_t *pair_by_index[8];

typedef struct { float v; int i; } cr_float_int_t;
typedef struct { double v; int i; } cr_double_int_t;
typedef struct { long v; int i; } cr_long_int_t;
typedef struct { short v; int i; } cr_short_int_t;
typedef struct { long double v; int i; } cr_ldouble_int_t;

#define PAIR_DESC(T, VT)                                                             \
    { .nblocks = 2, .b = { { 0, sizeof(VT) }, { offsetof(T, i), sizeof(int) } } }
static cr_dt_desc_t desc_double_int = PAIR_DESC(cr_double_int_t, double);
static cr_dt_desc_t desc_long_int = PAIR_DESC(cr_long_int_t, long);
static cr_dt_desc_t desc_short_int = PAIR_DESC(cr_short_int_t, short);
static cr_dt_desc_t desc_ldouble_int = PAIR_DESC(cr_ldouble_int_t, long double);

#define BT(h, b, sz) { .handle = (h), .refcount = 1, .committed = 1, .builtin = 1, .basic = (b), \
    .size = (sz), .lb = 0, .extent = (sz), .true_lb = 0, .true_extent = (sz), .nbasic = 1,       \
    .contig = 1, .name_builtin = #h }
#define PT(h, b, T, VT, d) { .handle = (h), .refcount = 1, .committed = 1, .builtin = 1,         \
    .basic = (b), .size = sizeof(VT) + sizeof(int), .lb = 0, .extent = sizeof(T), .true_lb = 0,  \
    .true_extent = sizeof(T), .nbasic = 1,                                                       \
    .contig = sizeof(VT) + sizeof(int) == sizeof(T), .name_builtin = #h, .desc = (d) }

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
    BT(MPI_C_FLOAT_COMPLEX, CR_B_FCOMPLEX, sizeof(float _Complex)),
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
    /* The deprecated bound markers: size 0. */
    { .handle = MPI_LB, .refcount = 1, .committed = 1, .builtin = 1, .basic = CR_B_LB,
      .contig = 1, .name_builtin = "MPI_LB" },
    { .handle = MPI_UB, .refcount = 1, .committed = 1, .builtin = 1, .basic = CR_B_UB,
      .contig = 1, .name_builtin = "MPI_UB" },
    /* value-index pairs */
    PT(MPI_FLOAT_INT, CR_B_FLOAT_INT, cr_float_int_t, float, NULL),
    PT(MPI_DOUBLE_INT, CR_B_DOUBLE_INT, cr_double_int_t, double, &desc_double_int),
    PT(MPI_LONG_INT, CR_B_LONG_INT, cr_long_int_t, long, &desc_long_int),
    PT(MPI_SHORT_INT, CR_B_SHORT_INT, cr_short_int_t, short, &desc_short_int),
    PT(MPI_LONG_DOUBLE_INT, CR_B_LDOUBLE_INT, cr_ldouble_int_t, long double, &desc_ldouble_int),
};

static size_t basic_sizes[CR_B_COUNT_OF_KINDS];

void cr_datatype_init(void)
{
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        cr_datatype_t *d = &builtins[i];
        uint32_t h = (uint32_t)d->handle;
        if (d->handle == MPI_DATATYPE_NULL) continue;
        if (CR_H_STORAGE(h) == CR_ST_BUILTIN)
            builtin_by_index[h & 0xff] = d;
        else
            pair_by_index[h & 0x7] = d;
        if (!basic_sizes[d->basic]) basic_sizes[d->basic] = (size_t)d->size;
        /* Non-contiguous pairs still count as one basic element of `basic`. */
    }
}

size_t cr_basic_size(cr_basic_t b)
{
    return b > 0 && b < CR_B_COUNT_OF_KINDS ? basic_sizes[b] : 0;
}

cr_datatype_t *cr_datatype_ptr(MPI_Datatype h)
{
    uint32_t u = (uint32_t)h;
    if (CR_H_KIND(u) != CR_K_DATATYPE) return NULL;
    switch (CR_H_STORAGE(u)) {
    case CR_ST_BUILTIN: {
        cr_datatype_t *d = builtin_by_index[u & 0xff];
        return d && d->handle == h ? d : NULL;
    }
    case CR_ST_DIRECT: return (u & 0x03fffff8) == 0 ? pair_by_index[u & 0x7] : NULL;
    case CR_ST_USER: return cr_objtab_get(&cr_datatype_tab, CR_H_INDEX(u));
    default: return NULL;
    }
}

/* ---- pack / unpack --------------------------------------------------------- */
void cr_dt_pack(const void *buf, MPI_Aint count, const cr_datatype_t *dt, void *out)
{
    const char *src = (const char *)buf;
    char *dst = out;
    if (dt->contig) {
        memcpy(dst, src + dt->lb, (size_t)count * (size_t)dt->size);
        return;
    }
    const cr_dt_desc_t *d = dt->desc;
    for (MPI_Aint e = 0; e < count; e++, src += dt->extent)
        for (int k = 0; k < d->nblocks; k++) {
            memcpy(dst, src + d->b[k].off, (size_t)d->b[k].len);
            dst += d->b[k].len;
        }
}

void cr_dt_unpack(const void *in, size_t bytes, void *buf, MPI_Aint count, const cr_datatype_t *dt)
{
    const char *src = in;
    char *dst = buf;
    if (dt->contig) {
        size_t n = (size_t)count * (size_t)dt->size;
        memcpy(dst + dt->lb, src, bytes < n ? bytes : n);
        return;
    }
    const cr_dt_desc_t *d = dt->desc;
    for (MPI_Aint e = 0; e < count && bytes; e++, dst += dt->extent)
        for (int k = 0; k < d->nblocks && bytes; k++) {
            size_t n = (size_t)d->b[k].len < bytes ? (size_t)d->b[k].len : bytes;
            memcpy(dst + d->b[k].off, src, n);
            src += n;
            bytes -= n;
        }
}

/* ---- queries --------------------------------------------------------------- */
int core_type_size(MPI_Datatype datatype, int *size)
{
    MPI_Count s = cr_datatype_ptr(datatype)->size;
    *size = s > 0x7fffffff ? MPI_UNDEFINED : (int)s;
    return MPI_SUCCESS;
}

int core_type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    *size = cr_datatype_ptr(datatype)->size;
    return MPI_SUCCESS;
}

int core_type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return core_type_size_c(datatype, size);
}

int core_type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    cr_datatype_t *d = cr_datatype_ptr(datatype);
    *lb = d->lb;
    *extent = d->extent;
    return MPI_SUCCESS;
}

int core_type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    cr_datatype_t *d = cr_datatype_ptr(datatype);
    *true_lb = d->true_lb;
    *true_extent = d->true_extent;
    return MPI_SUCCESS;
}

int core_type_commit(MPI_Datatype *datatype)
{
    cr_datatype_ptr(*datatype)->committed = 1;
    return MPI_SUCCESS;
}

int core_type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    cr_datatype_t *d = cr_datatype_ptr(datatype);
    const char *n = d->builtin ? d->name_builtin : d->name;
    strncpy(type_name, n, MPI_MAX_OBJECT_NAME - 1);
    type_name[MPI_MAX_OBJECT_NAME - 1] = 0;
    *resultlen = (int)strlen(type_name);
    return MPI_SUCCESS;
}

/* Bytes received, from the status (MPICH layout: 64-bit count split in two ints,
 * the low bit of the high word is the cancelled flag). */
MPI_Count cr_status_bytes(const MPI_Status *st)
{
    return (MPI_Count)(((uint64_t)(uint32_t)st->count_hi_and_cancelled >> 1) << 32 |
                       (uint32_t)st->count_lo);
}

void cr_status_set_bytes(MPI_Status *st, MPI_Count bytes)
{
    int cancelled = st->count_hi_and_cancelled & 1;
    st->count_lo = (int)(uint32_t)bytes;
    st->count_hi_and_cancelled = (int)((((uint64_t)bytes >> 32) << 1) | (unsigned)cancelled);
}

int core_get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    cr_datatype_t *d = cr_datatype_ptr(datatype);
    MPI_Count b = cr_status_bytes(status);
    if (d->size == 0)
        *count = b == 0 ? 0 : MPI_UNDEFINED;
    else
        *count = b % d->size ? MPI_UNDEFINED : b / d->size;
    return MPI_SUCCESS;
}

int core_get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count c;
    core_get_count_c(status, datatype, &c);
    *count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
    return MPI_SUCCESS;
}

int core_get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    cr_datatype_t *d = cr_datatype_ptr(datatype);
    MPI_Count b = cr_status_bytes(status);
    if (d->size == 0) {
        *count = b == 0 ? 0 : MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    MPI_Count whole = b / d->size, rest = b % d->size;
    MPI_Count n = whole * d->nbasic;
    if (rest) {
        size_t bs = cr_basic_size(d->basic);
        if (!bs || d->basic == CR_B_NONE || rest % (MPI_Count)bs) {
            *count = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        n += rest / (MPI_Count)bs;
    }
    *count = n;
    return MPI_SUCCESS;
}

int core_get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count c;
    core_get_elements_c(status, datatype, &c);
    *count = c > 0x7fffffff ? MPI_UNDEFINED : (int)c;
    return MPI_SUCCESS;
}

int core_get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return core_get_elements_c(status, datatype, count);
}

int core_status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    cr_status_set_bytes(status, (MPI_Count)count * cr_datatype_ptr(datatype)->size);
    return MPI_SUCCESS;
}

int core_status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    cr_status_set_bytes(status, count * cr_datatype_ptr(datatype)->size);
    return MPI_SUCCESS;
}

int core_status_set_cancelled(MPI_Status *status, int flag)
{
    status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
    return MPI_SUCCESS;
}

int core_test_cancelled(const MPI_Status *status, int *flag)
{
    *flag = status->count_hi_and_cancelled & 1;
    return MPI_SUCCESS;
}

int core_type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    cr_datatype_t *d = cr_datatype_ptr(datatype);
    *lb = d->lb;
    *extent = d->extent;
    return MPI_SUCCESS;
}

int core_type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return core_type_get_extent_c(datatype, lb, extent);
}

int core_type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    cr_datatype_t *d = cr_datatype_ptr(datatype);
    *true_lb = d->true_lb;
    *true_extent = d->true_extent;
    return MPI_SUCCESS;
}

int core_type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return core_type_get_true_extent_c(datatype, true_lb, true_extent);
}

int core_get_address(const void *location, MPI_Aint *address)
{
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

int core_type_set_name(MPI_Datatype datatype, const char *type_name)
{
    cr_datatype_t *d = cr_datatype_ptr(datatype);
    if (d->builtin)
        return cr_error(MPI_ERR_TYPE, "datatype=%s: predefined datatypes keep their names",
                        d->name_builtin);
    snprintf(d->name, sizeof d->name, "%s", type_name);
    return MPI_SUCCESS;
}

/* ---- the first derived type: contiguous ------------------------------------ */
static int type_contiguous(MPI_Aint count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    cr_datatype_t *o = cr_datatype_ptr(oldtype);
    cr_datatype_t *d = calloc(1, sizeof *d);
    if (!d) return cr_error(MPI_ERR_NO_MEM, "no memory for a datatype");
    d->refcount = 1;
    d->basic = o->basic;
    d->size = (MPI_Count)count * o->size;
    d->lb = o->lb;
    d->extent = count * o->extent;
    d->true_lb = o->true_lb;
    d->true_extent = count > 0 ? (count - 1) * o->extent + o->true_extent : 0;
    d->nbasic = (MPI_Count)count * o->nbasic;
    d->contig = o->contig;
    if (!o->contig && count > 0) {
        /* one block per block of each old element */
        const cr_dt_desc_t *od = o->desc;
        size_t nb = (size_t)count * (size_t)od->nblocks;
        cr_dt_desc_t *nd = malloc(sizeof *nd + nb * sizeof nd->b[0]);
        if (!nd) {
            free(d);
            return cr_error(MPI_ERR_NO_MEM, "no memory for a datatype");
        }
        nd->nblocks = (int)nb;
        for (MPI_Aint e = 0, k = 0; e < count; e++)
            for (int j = 0; j < od->nblocks; j++, k++) {
                nd->b[k].off = od->b[j].off + e * o->extent;
                nd->b[k].len = od->b[j].len;
            }
        d->desc = nd;
    }
    int idx = cr_objtab_add(&cr_datatype_tab, d);
    if (idx < 0) {
        free(d->desc);
        free(d);
        return cr_error(MPI_ERR_NO_MEM, "no memory for a datatype handle");
    }
    d->handle = CR_H_MAKE(CR_ST_USER, CR_K_DATATYPE, idx);
    *newtype = d->handle;
    return MPI_SUCCESS;
}

int core_type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_contiguous(count, oldtype, newtype);
}

int core_type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_contiguous((MPI_Aint)count, oldtype, newtype);
}

int core_type_free(MPI_Datatype *datatype)
{
    cr_datatype_t *d = cr_datatype_ptr(*datatype);
    if (d->builtin)
        return cr_error(MPI_ERR_TYPE, "datatype=%s: predefined datatypes cannot be freed",
                        d->name_builtin);
    cr_objtab_remove(&cr_datatype_tab, CR_H_INDEX(d->handle));
    *datatype = MPI_DATATYPE_NULL;
    if (--d->refcount > 0) return MPI_SUCCESS;
    free(d->desc);
    free(d);
    return MPI_SUCCESS;
}
