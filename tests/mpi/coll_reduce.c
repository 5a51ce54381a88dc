/* SPDX-License-Identifier: MIT */
/* MPI_Reduce and MPI_Allreduce (and MPI_Reduce_local): every predefined op on
 * every type the standard allows it on, every root, in place and not, counts
 * 0, 1, 7, 1000 (100000 for a few), against a reference folded here in rank
 * order; a non-commutative user op (2x2 matrix product) that must combine in
 * rank order; a vector datatype with holes that must stay untouched; and
 * bit-identical floating-point Allreduce results on every rank.  Beyond the
 * standard, as MPICH does (its coll/op* tests rely on it): MPI_CHAR with the C
 * integer ops, and the logical ops on Fortran integers and floating point.
 * Run under COURIER_COLL_ALLREDUCE_ALG=1/2 to force algorithms.
 * Validating against Debian's MPICH 4.0.2 needs MPIR_CVAR_DEVICE_COLLECTIVES=none:
 * its ch4 device MPI_Reduce crashes on MPI_IN_PLACE at a non-zero root from
 * about 1000 ints up. */
#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include "mpitest.h"

enum { OMAX, OMIN, OSUM, OPROD, OLAND, OLOR, OLXOR, OBAND, OBOR, OBXOR, OMAXLOC, OMINLOC, NOP };
static const MPI_Op mpi_ops[NOP] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR,
                                     MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC,
                                     MPI_MINLOC };
static const char *const op_names[NOP] = { "MAX", "MIN", "SUM", "PROD", "LAND", "LOR", "LXOR",
                                           "BAND", "BOR", "BXOR", "MAXLOC", "MINLOC" };
enum { G_CINT = 1, G_FINT = 2, G_FLOAT = 4, G_CPLX = 8, G_LOGIC = 16, G_BYTE = 32, G_PAIR = 64 };
/* The logical ops on Fortran integers and floating point are MPICH's extension;
 * MPICH 4.0.2's check accepts them but its MPI_LAND kernel asserts on some. */
#ifdef MT_REFERENCE_MPICH
enum { G_LOGICAL_OPS = G_CINT | G_LOGIC };
#else
enum { G_LOGICAL_OPS = G_CINT | G_LOGIC | G_FINT | G_FLOAT };
#endif
static const int op_groups[NOP] = {
    G_CINT | G_FINT | G_FLOAT, G_CINT | G_FINT | G_FLOAT, G_CINT | G_FINT | G_FLOAT | G_CPLX,
    G_CINT | G_FINT | G_FLOAT | G_CPLX, G_LOGICAL_OPS, G_LOGICAL_OPS, G_LOGICAL_OPS,
    G_CINT | G_FINT | G_BYTE, G_CINT | G_FINT | G_BYTE, G_CINT | G_FINT | G_BYTE, G_PAIR, G_PAIR
};

/* The value rank r contributes at element i for op o (small, exact everywhere). */
static long gen(int o, int r, long i, int sgn)
{
    switch (o) {
    case OMAX: case OMIN: return (r * 7 + i) % 11 - (sgn ? 5 : 0);
    case OSUM: return (r + i) % 4;
    case OPROD: return (r + i) % 5 == 0 ? 2 : 1;
    case OLAND: return (r * 3 + i) % 5 != 0 ? (r + i) % 3 + 1 : 0;
    case OLOR: return (r + i * 3) % 7 == 0 ? 2 : 0;
    case OLXOR: return (r * i) % 3 == 1 ? 3 : 0;
    case OBAND: case OBOR: case OBXOR: return (i * 37 + r * 11 + 5) & 0x7f;
    default: return (r + i) % 3;   /* MINLOC / MAXLOC value; the index is r */
    }
}
/* The expected result at element i: fold over ranks 0..n-1. */
static long expect(int o, int n, long i, int sgn, long *idx)
{
    long acc = gen(o, 0, i, sgn);
    *idx = 0;
    if ((o == OLAND || o == OLOR || o == OLXOR) && n > 1) acc = acc != 0;   /* one rank: a copy */
    for (int r = 1; r < n; r++) {
        long v = gen(o, r, i, sgn);
        switch (o) {
        case OMAX: acc = v > acc ? v : acc; break;
        case OMIN: acc = v < acc ? v : acc; break;
        case OSUM: acc += v; break;
        case OPROD: acc *= v; break;
        case OLAND: acc = acc && v; break;
        case OLOR: acc = acc || v; break;
        case OLXOR: acc = acc != (v != 0); break;
        case OBAND: acc &= v; break;
        case OBOR: acc |= v; break;
        case OBXOR: acc ^= v; break;
        case OMAXLOC: if (v > acc) acc = v, *idx = r; break;   /* ties keep the lower rank */
        case OMINLOC: if (v < acc) acc = v, *idx = r; break;
        }
    }
    return acc;
}

typedef struct {
    const char *name;
    MPI_Datatype dt;
    int group, sgn;
    size_t esize;                            /* bytes per element in memory */
    void (*set)(void *b, long i, long v, long idx);
    int (*eq)(const void *b, long i, long v, long idx);
} tinfo_t;

#define SCALAR(NAME, T)                                                                 \
    static void set_##NAME(void *b, long i, long v, long idx) { ((T *)b)[i] = (T)v; }   \
    static int eq_##NAME(const void *b, long i, long v, long idx) { return ((const T *)b)[i] == (T)v; }
#define COMPLEX(NAME, T)                                                                \
    static void set_##NAME(void *b, long i, long v, long idx) { ((T *)b)[i] = (T)v + (T)v * I; } \
    static int eq_##NAME(const void *b, long i, long v, long idx) { return 0; }
#define PAIR(NAME, VT, IT)                                                              \
    typedef struct { VT v; IT i; } NAME##_t;                                            \
    static void set_##NAME(void *b, long i, long v, long idx)                           \
    { ((NAME##_t *)b)[i].v = (VT)v; ((NAME##_t *)b)[i].i = (IT)idx; }                   \
    static int eq_##NAME(const void *b, long i, long v, long idx)                       \
    { return ((const NAME##_t *)b)[i].v == (VT)v && ((const NAME##_t *)b)[i].i == (IT)idx; }
SCALAR(char, char) SCALAR(schar, signed char) SCALAR(uchar, unsigned char) SCALAR(short, short)
SCALAR(ushort, unsigned short) SCALAR(int, int) SCALAR(uint, unsigned) SCALAR(long, long)
SCALAR(ulong, unsigned long) SCALAR(llong, long long) SCALAR(ullong, unsigned long long)
SCALAR(i8, int8_t) SCALAR(i16, int16_t) SCALAR(i32, int32_t) SCALAR(i64, int64_t)
SCALAR(u8, uint8_t) SCALAR(u16, uint16_t) SCALAR(u32, uint32_t) SCALAR(u64, uint64_t)
SCALAR(aint, MPI_Aint) SCALAR(offset, MPI_Offset) SCALAR(count, MPI_Count)
SCALAR(float, float) SCALAR(double, double) SCALAR(ldouble, long double) SCALAR(bool, bool)
COMPLEX(fc, float _Complex) COMPLEX(dc, double _Complex) COMPLEX(ldc, long double _Complex)
PAIR(fi, float, int) PAIR(di, double, int) PAIR(li, long, int) PAIR(si, short, int)
PAIR(ii, int, int) PAIR(ldi, long double, int) PAIR(f2i, int32_t, int32_t)
PAIR(f2r, float, float) PAIR(f2d, double, double)

/* Complex results: SUM of v + vi is s + si; PROD of (v + vi) is v1*..*vn * (1+i)^n. */
static int cplx_eq(const tinfo_t *t, const void *b, long i, int o, int n, long ev)
{
    long double re, im;
    if (t->esize == sizeof(float _Complex)) re = crealf(((float _Complex *)b)[i]), im = cimagf(((float _Complex *)b)[i]);
    else if (t->esize == sizeof(double _Complex)) re = creal(((double _Complex *)b)[i]), im = cimag(((double _Complex *)b)[i]);
    else re = creall(((long double _Complex *)b)[i]), im = cimagl(((long double _Complex *)b)[i]);
    if (o == OSUM) return re == ev && im == ev;
    long double _Complex w = ev;
    for (int r = 0; r < n; r++) w *= 1 + 1.0L * I;
    return re == creall(w) && im == cimagl(w);
}

#define T_(N, DT, G, S, CT) { #DT, DT, G, S, sizeof(CT), set_##N, eq_##N }
static const tinfo_t types[] = {
    T_(schar, MPI_SIGNED_CHAR, G_CINT, 1, signed char), T_(uchar, MPI_UNSIGNED_CHAR, G_CINT, 0, unsigned char),
    T_(short, MPI_SHORT, G_CINT, 1, short), T_(ushort, MPI_UNSIGNED_SHORT, G_CINT, 0, unsigned short),
    T_(int, MPI_INT, G_CINT, 1, int), T_(uint, MPI_UNSIGNED, G_CINT, 0, unsigned),
    T_(long, MPI_LONG, G_CINT, 1, long), T_(ulong, MPI_UNSIGNED_LONG, G_CINT, 0, unsigned long),
    T_(llong, MPI_LONG_LONG, G_CINT, 1, long long),
    T_(ullong, MPI_UNSIGNED_LONG_LONG, G_CINT, 0, unsigned long long),
    T_(i8, MPI_INT8_T, G_CINT, 1, int8_t), T_(i16, MPI_INT16_T, G_CINT, 1, int16_t),
    T_(i32, MPI_INT32_T, G_CINT, 1, int32_t), T_(i64, MPI_INT64_T, G_CINT, 1, int64_t),
    T_(u8, MPI_UINT8_T, G_CINT, 0, uint8_t), T_(u16, MPI_UINT16_T, G_CINT, 0, uint16_t),
    T_(u32, MPI_UINT32_T, G_CINT, 0, uint32_t), T_(u64, MPI_UINT64_T, G_CINT, 0, uint64_t),
    T_(i32, MPI_INTEGER, G_FINT, 1, int32_t), T_(i8, MPI_INTEGER1, G_FINT, 1, int8_t),
    T_(i16, MPI_INTEGER2, G_FINT, 1, int16_t), T_(i32, MPI_INTEGER4, G_FINT, 1, int32_t),
    T_(i64, MPI_INTEGER8, G_FINT, 1, int64_t),
    T_(aint, MPI_AINT, G_FINT, 1, MPI_Aint), T_(offset, MPI_OFFSET, G_FINT, 1, MPI_Offset),
    T_(count, MPI_COUNT, G_FINT, 1, MPI_Count),
    T_(float, MPI_FLOAT, G_FLOAT, 1, float), T_(double, MPI_DOUBLE, G_FLOAT, 1, double),
    T_(ldouble, MPI_LONG_DOUBLE, G_FLOAT, 1, long double),
    T_(float, MPI_REAL, G_FLOAT, 1, float), T_(double, MPI_DOUBLE_PRECISION, G_FLOAT, 1, double),
    T_(float, MPI_REAL4, G_FLOAT, 1, float), T_(double, MPI_REAL8, G_FLOAT, 1, double),
    T_(fc, MPI_C_FLOAT_COMPLEX, G_CPLX, 1, float _Complex),
    T_(dc, MPI_C_DOUBLE_COMPLEX, G_CPLX, 1, double _Complex),
    T_(ldc, MPI_C_LONG_DOUBLE_COMPLEX, G_CPLX, 1, long double _Complex),
    T_(fc, MPI_COMPLEX, G_CPLX, 1, float _Complex), T_(dc, MPI_DOUBLE_COMPLEX, G_CPLX, 1, double _Complex),
    T_(fc, MPI_COMPLEX8, G_CPLX, 1, float _Complex), T_(dc, MPI_COMPLEX16, G_CPLX, 1, double _Complex),
    T_(bool, MPI_C_BOOL, G_LOGIC, 0, bool), T_(i32, MPI_LOGICAL, G_LOGIC, 0, int32_t),
    T_(uchar, MPI_BYTE, G_BYTE, 0, unsigned char),
    T_(fi, MPI_FLOAT_INT, G_PAIR, 1, fi_t), T_(di, MPI_DOUBLE_INT, G_PAIR, 1, di_t),
    T_(li, MPI_LONG_INT, G_PAIR, 1, li_t), T_(si, MPI_SHORT_INT, G_PAIR, 1, si_t),
    T_(ii, MPI_2INT, G_PAIR, 1, ii_t), T_(ldi, MPI_LONG_DOUBLE_INT, G_PAIR, 1, ldi_t),
    T_(f2i, MPI_2INTEGER, G_PAIR, 1, f2i_t), T_(f2r, MPI_2REAL, G_PAIR, 1, f2r_t),
    T_(f2d, MPI_2DOUBLE_PRECISION, G_PAIR, 1, f2d_t),
    T_(char, MPI_CHAR, G_CINT, CHAR_MIN < 0, char),   /* MPICH's extension */
};
enum { NTYPES = sizeof types / sizeof types[0] };

static int rank, size;

static void fill(const tinfo_t *t, void *b, int o, long count, int r)
{
    for (long i = 0; i < count; i++) t->set(b, i, gen(o, r, i, t->sgn), r);
}
static void verify(const tinfo_t *t, const void *b, int o, long count, const char *what, int root,
                   int inplace)
{
    for (long i = 0; i < count; i++) {
        long idx, ev = expect(o, size, i, t->sgn, &idx);
        int ok = t->group == G_CPLX ? cplx_eq(t, b, i, o, size, ev) : t->eq(b, i, ev, idx);
        if (!ok) {
            CHECK(ok, "%s %s on %s count %ld root %d inplace %d: element %ld wrong (want %ld/%ld)",
                  what, op_names[o], t->name, count, root, inplace, i, ev, idx);
            return;
        }
    }
}

static void test_type_op(const tinfo_t *t, int o, long count, int all_roots)
{
    size_t bytes = (size_t)count * t->esize;
    unsigned char *sb = mt_malloc(bytes), *rb = mt_malloc(bytes);
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int root = 0; root < size; root++) {
            if (!all_roots && root != 0 && root != size - 1) continue;
            memset(rb, 0xA5, bytes);
            if (inplace && rank == root) fill(t, rb, o, count, rank);
            else fill(t, sb, o, count, rank);
            CHECK_MPI(MPI_Reduce(inplace && rank == root ? MPI_IN_PLACE : sb,
                                 rank == root ? rb : NULL, (int)count, t->dt, mpi_ops[o], root,
                                 MPI_COMM_WORLD));
            if (rank == root) verify(t, rb, o, count, "Reduce", root, inplace);
        }
        memset(rb, 0xA5, bytes);
        if (inplace) fill(t, rb, o, count, rank);
        else fill(t, sb, o, count, rank);
        CHECK_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : sb, rb, (int)count, t->dt, mpi_ops[o],
                                MPI_COMM_WORLD));
        verify(t, rb, o, count, "Allreduce", -1, inplace);
    }
    free(sb);
    free(rb);
}

/* ---- a non-commutative user op: 2x2 int matrix product ------------------------ */
typedef struct { int m[4]; } mat_t;
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    mat_t *a = in, *b = inout;
    for (int k = 0; k < *len; k++) {
        mat_t r;
        r.m[0] = a[k].m[0] * b[k].m[0] + a[k].m[1] * b[k].m[2];
        r.m[1] = a[k].m[0] * b[k].m[1] + a[k].m[1] * b[k].m[3];
        r.m[2] = a[k].m[2] * b[k].m[0] + a[k].m[3] * b[k].m[2];
        r.m[3] = a[k].m[2] * b[k].m[1] + a[k].m[3] * b[k].m[3];
        b[k] = r;
    }
}
static mat_t mat_of(int r, long i)
{
    mat_t x = { { r % 3 + 1, (int)(i % 3), 1, (r + (int)i) % 2 } };
    return x;
}
static void test_user_op(void)
{
    MPI_Op op;
    MPI_Datatype mt;
    MPI_Type_contiguous(4, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    MPI_Op_create(matmul, 0, &op);
    int commute = -1;
    MPI_Op_commutative(op, &commute);
    CHECK_INT(commute, 0);
    static const long ucounts[] = { 0, 1, 7, 1000 };
    for (size_t c = 0; c < sizeof ucounts / sizeof ucounts[0]; c++) {
        long count = ucounts[c];
        mat_t *sb = mt_malloc((size_t)count * sizeof(mat_t)), *rb = mt_malloc((size_t)count * sizeof(mat_t));
        mat_t *want = mt_malloc((size_t)count * sizeof(mat_t));
        for (long i = 0; i < count; i++) {
            mat_t acc = mat_of(size - 1, i);
            for (int r = size - 2; r >= 0; r--) {   /* M0 * M1 * ... * Mn-1 */
                int one = 1;
                mat_t a = mat_of(r, i);
                matmul(&a, &acc, &one, &mt);
            }
            want[i] = acc;
        }
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int root = 0; root < size; root++) {
                for (long i = 0; i < count; i++) (inplace && rank == root ? rb : sb)[i] = mat_of(rank, i);
                CHECK_MPI(MPI_Reduce(inplace && rank == root ? MPI_IN_PLACE : sb, rb, (int)count, mt,
                                     op, root, MPI_COMM_WORLD));
                if (rank == root && count && memcmp(rb, want, (size_t)count * sizeof(mat_t)))
                    CHECK(0, "user op Reduce count %ld root %d inplace %d: wrong order", count,
                          root, inplace);
            }
            for (long i = 0; i < count; i++) (inplace ? rb : sb)[i] = mat_of(rank, i);
            CHECK_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : sb, rb, (int)count, mt, op,
                                    MPI_COMM_WORLD));
            if (count && memcmp(rb, want, (size_t)count * sizeof(mat_t)))
                CHECK(0, "user op Allreduce count %ld inplace %d: wrong order", count, inplace);
        }
        free(sb); free(rb); free(want);
    }
    MPI_Op_free(&op);
    CHECK(op == MPI_OP_NULL, "MPI_Op_free sets MPI_OP_NULL");
    MPI_Type_free(&mt);
}

/* ---- a vector type with holes and a user op on it (predefined ops are only
 * defined on predefined types): SUM of ints 0 and 2 of every 3 ------------------ */
static void vecsum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++) {
        b[3 * k] += a[3 * k];
        b[3 * k + 2] += a[3 * k + 2];
    }
}
static void test_vector(void)
{
    MPI_Datatype v, vr;
    MPI_Op op;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);   /* ints 0 and 2 */
    MPI_Type_create_resized(v, 0, 3 * sizeof(int), &vr);   /* extent 3 ints */
    MPI_Type_commit(&vr);
    MPI_Op_create(vecsum, 1, &op);
    static const long vcounts[] = { 1, 7, 1000 };
    for (size_t c = 0; c < 3; c++) {
        long count = vcounts[c], n = count * 3;   /* ints spanned */
        int *sb = mt_malloc((size_t)n * sizeof(int)), *rb = mt_malloc((size_t)n * sizeof(int));
        for (int root = 0; root < size; root++) {
            for (long k = 0; k < n; k++) sb[k] = (int)(k + rank), rb[k] = -7;
            CHECK_MPI(MPI_Reduce(sb, rb, (int)count, vr, op, root, MPI_COMM_WORLD));
            if (rank == root)
                for (long k = 0; k < n; k++) {
                    int w = (k % 3) != 1 ? (int)(size * k + size * (size - 1) / 2) : -7;
                    if (rb[k] != w) { CHECK(rb[k] == w, "vector Reduce root %d count %ld int %ld: %d, want %d", root, count, k, rb[k], w); break; }
                }
        }
        for (long k = 0; k < n; k++) rb[k] = (k % 3) != 1 ? (int)(k + rank) : -7;
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, rb, (int)count, vr, op, MPI_COMM_WORLD));
        for (long k = 0; k < n; k++) {
            int w = (k % 3) != 1 ? (int)(size * k + size * (size - 1) / 2) : -7;
            if (rb[k] != w) { CHECK(rb[k] == w, "vector Allreduce count %ld int %ld: %d, want %d", count, k, rb[k], w); break; }
        }
        free(sb); free(rb);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&v);
    MPI_Type_free(&vr);
}

/* ---- every rank gets the same bits --------------------------------------------- */
static void test_bitwise_identical(long count)
{
    double *x = mt_malloc((size_t)count * sizeof(double)), *y = mt_malloc((size_t)count * sizeof(double));
    double *z = mt_malloc((size_t)count * sizeof(double));
    srand(1234 + rank);
    for (long i = 0; i < count; i++) x[i] = (rand() / (double)RAND_MAX - 0.5) * (1 << (rank % 20));
    CHECK_MPI(MPI_Allreduce(x, y, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    memcpy(z, y, (size_t)count * sizeof(double));
    CHECK_MPI(MPI_Bcast(z, (int)count, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    CHECK(!memcmp(y, z, (size_t)count * sizeof(double)), "Allreduce SUM of %ld doubles differs from rank 0's bits", count);
    free(x); free(y); free(z);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const long counts[] = { 0, 1, 7, 1000 };
    for (int t = 0; t < NTYPES; t++)
        for (int o = 0; o < NOP; o++) {
            if (!(op_groups[o] & types[t].group)) continue;
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                test_type_op(&types[t], o, counts[c], counts[c] <= 1);
        }
    /* large counts for a few */
    test_type_op(&types[4], OSUM, 100000, 1);     /* MPI_INT */
    test_type_op(&types[27], OMAX, 100000, 0);    /* MPI_DOUBLE */
    test_type_op(&types[44], OMAXLOC, 100000, 0); /* MPI_DOUBLE_INT */
    test_user_op();
    test_vector();
    test_bitwise_identical(1000);
    test_bitwise_identical(100000);
    /* Reduce_local: inout = in op inout */
    int a[3] = { 1, 5, -2 }, b[3] = { 4, 2, -3 };
    CHECK_MPI(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_MAX));
    CHECK(b[0] == 4 && b[1] == 5 && b[2] == -2, "Reduce_local MAX");
    return mt_finish("coll_reduce") | (MPI_Finalize() != MPI_SUCCESS);
}
