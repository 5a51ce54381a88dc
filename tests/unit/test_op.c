/* SPDX-License-Identifier: MIT */
// sources: src/core/op.c src/core/objtab.c
/* Unit test of src/core/op.c: every (op, type) kernel against hand-computed
 * answers, the op x type definition table against the standard, MINLOC/MAXLOC
 * ties, derived datatypes (dense and with holes), and user operations (the
 * order of operands, the handle they get, MPI_Op_commutative / MPI_Op_free).
 * Build: cc -Iinclude -Isrc tests/unit/test_op.c src/core/op.c src/core/objtab.c
 * (the few core functions op.c needs beyond those are stubbed below). */
#include <complex.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/core.h"
#include "core/api.h"

static int failures, checks;
#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        checks++;                                                         \
        if (!(cond)) {                                                    \
            failures++;                                                   \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
        }                                                                 \
    } while (0)

/* ---- stubs for the rest of the core ------------------------------------ */
static int last_error_class;
static char last_error_msg[256];
int cr_error(int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error_msg, sizeof last_error_msg, fmt, ap);
    va_end(ap);
    last_error_class = cls;
    return cls;
}
void cr_abort_job(int exitcode, const char *msg)
{
    fprintf(stderr, "abort: %s\n", msg ? msg : "");
    exit(exitcode ? exitcode : 1);
}
/* A "strided" derived layout for the tests: each element is nblk records of
 * rec bytes, the j-th at byte j*stride; extent = nblk*stride. */
typedef struct { int nblk; size_t rec; MPI_Aint stride; } test_layout_t;
void cr_dt_pack(const void *buf, MPI_Aint count, const cr_datatype_t *dt, void *out)
{
    const test_layout_t *l = dt->desc;
    char *o = out;
    for (MPI_Aint e = 0; e < count; e++)
        for (int j = 0; j < l->nblk; j++, o += l->rec)
            memcpy(o, (const char *)buf + e * dt->extent + j * l->stride, l->rec);
}
void cr_dt_unpack(const void *in, size_t bytes, void *buf, MPI_Aint count,
                  const cr_datatype_t *dt)
{
    const test_layout_t *l = dt->desc;
    const char *s = in;
    for (MPI_Aint e = 0; e < count; e++)
        for (int j = 0; j < l->nblk; j++, s += l->rec)
            memcpy((char *)buf + e * dt->extent + j * l->stride, s, l->rec);
}
static cr_datatype_t user_dt = { .handle = 0x4c000405 /* MPI_INT */, .basic = CR_B_INT,
                                 .size = 4, .extent = 4, .true_extent = 4, .nbasic = 1,
                                 .contig = 1, .builtin = 1, .name_builtin = "MPI_INT" };
/* MPI_INT is the one predefined type the user-op tests look up (inline, through the table). */
cr_datatype_t *cr_builtin_by_index[256] = { [MPI_INT & 0xff] = &user_dt };
cr_datatype_t *cr_datatype_ptr_slow(MPI_Datatype h) { return NULL; }
size_t cr_basic_size(cr_basic_t b) { return 0; }

/* ---- helpers -------------------------------------------------------------- */
static const MPI_Op all_ops[] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND,
                                  MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC,
                                  MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP };
enum { NOPS = 14 };
static const char *const opn[] = { "MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR",
                                   "LXOR", "BXOR", "MINLOC", "MAXLOC", "REPLACE", "NO_OP" };
static int opi(MPI_Op op) { return CR_H_INDEX(op) - 1; }
static int covered[NOPS][CR_B_COUNT_OF_KINDS];

static cr_datatype_t mkdt(cr_basic_t b, size_t esize)
{
    cr_datatype_t d = { .handle = 0x4c000000 | (int)b, .refcount = 1, .committed = 1,
                        .builtin = 1, .basic = b, .size = (MPI_Count)esize, .lb = 0,
                        .extent = (MPI_Aint)esize, .true_lb = 0,
                        .true_extent = (MPI_Aint)esize, .nbasic = 1, .contig = 1,
                        .name_builtin = "test type" };
    return d;
}

static void run(MPI_Op op, cr_basic_t b, size_t esize, const void *in, void *inout, int n)
{
    cr_datatype_t d = mkdt(b, esize);
    cr_op_t *o = cr_op_ptr(op);
    CHECK(o != NULL, "cr_op_ptr(0x%x)", (unsigned)op);
    CHECK(cr_op_check(o, &d) == MPI_SUCCESS, "op %s undefined on kind %d", opn[opi(op)], b);
    cr_op_apply(o, in, inout, n, &d);
    covered[opi(op)][b] = 1;
}

/* The bfloat16 bits of a small integer (exact: the upper half of the float). */
static uint16_t bf16(int v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)(u >> 16);
}

/* ---- integer and floating types: the same small exact values -------------- */
#define N9 9
static const int va[N9] = { 3, 0, 1, 6, 2, 5, 1, 0, 12 };
static const int vb[N9] = { 2, 0, 1, 3, 7, 5, 0, 1, 10 };
static const int ex_max[N9] = { 3, 0, 1, 6, 7, 5, 1, 1, 12 };
static const int ex_min[N9] = { 2, 0, 1, 3, 2, 5, 0, 0, 10 };
static const int ex_sum[N9] = { 5, 0, 2, 9, 9, 10, 1, 1, 22 };
static const int ex_prod[N9] = { 6, 0, 1, 18, 14, 25, 0, 0, 120 };
static const int ex_land[N9] = { 1, 0, 1, 1, 1, 1, 0, 0, 1 };
static const int ex_lor[N9] = { 1, 0, 1, 1, 1, 1, 1, 1, 1 };
static const int ex_lxor[N9] = { 0, 0, 0, 0, 0, 0, 1, 1, 0 };
static const int ex_band[N9] = { 2, 0, 1, 2, 2, 5, 0, 0, 8 };
static const int ex_bor[N9] = { 3, 0, 1, 7, 7, 5, 1, 1, 14 };
static const int ex_bxor[N9] = { 1, 0, 0, 5, 5, 0, 1, 1, 6 };

#define TEST_ONE(T, KIND, OP, EX)                                                        \
    do {                                                                                 \
        T a[N9], r[N9];                                                                  \
        for (int i = 0; i < N9; i++) a[i] = (T)va[i], r[i] = (T)vb[i];                   \
        run(OP, KIND, sizeof(T), a, r, N9);                                              \
        for (int i = 0; i < N9; i++)                                                     \
            CHECK(r[i] == (T)(EX)[i], "%s on %s [%d]", #OP, #T, i);                      \
    } while (0)
#define TEST_ARITH(T, K)                                                                 \
    TEST_ONE(T, K, MPI_MAX, ex_max); TEST_ONE(T, K, MPI_MIN, ex_min);                    \
    TEST_ONE(T, K, MPI_SUM, ex_sum); TEST_ONE(T, K, MPI_PROD, ex_prod);                  \
    TEST_ONE(T, K, MPI_REPLACE, va); TEST_ONE(T, K, MPI_NO_OP, vb)
#define TEST_LOGIC(T, K)                                                                 \
    TEST_ONE(T, K, MPI_LAND, ex_land); TEST_ONE(T, K, MPI_LOR, ex_lor);                  \
    TEST_ONE(T, K, MPI_LXOR, ex_lxor)
#define TEST_BIT(T, K)                                                                   \
    TEST_ONE(T, K, MPI_BAND, ex_band); TEST_ONE(T, K, MPI_BOR, ex_bor);                  \
    TEST_ONE(T, K, MPI_BXOR, ex_bxor)
#define TEST_CINT(T, K) TEST_ARITH(T, K); TEST_LOGIC(T, K); TEST_BIT(T, K)
#define TEST_FINT(T, K) TEST_ARITH(T, K); TEST_LOGIC(T, K); TEST_BIT(T, K)

/* negative values and wrap-around for signed types */
#define TEST_SIGNED(T, K, TMAX, TMIN)                                                    \
    do {                                                                                 \
        T a[4] = { -3, TMAX, -5, 4 }, r[4] = { 2, 1, -7, -4 };                            \
        run(MPI_SUM, K, sizeof(T), a, r, 4);                                             \
        CHECK(r[0] == -1 && r[1] == TMIN && r[2] == -12 && r[3] == 0, "signed SUM %s", #T); \
        T c[4] = { -3, -1, -5, 4 }, s[4] = { 2, -9, -7, -4 };                             \
        run(MPI_MAX, K, sizeof(T), c, s, 4);                                             \
        CHECK(s[0] == 2 && s[1] == -1 && s[2] == -5 && s[3] == 4, "signed MAX %s", #T);  \
        T m[2] = { -3, TMIN }, p[2] = { 5, -1 };                                          \
        run(MPI_PROD, K, sizeof(T), m, p, 2);                                            \
        CHECK(p[0] == -15 && p[1] == TMIN, "signed PROD %s", #T);                        \
    } while (0)

static void test_integers_and_floats(void)
{
    TEST_CINT(signed char, CR_B_SCHAR); TEST_CINT(unsigned char, CR_B_UCHAR);
    TEST_CINT(short, CR_B_SHORT); TEST_CINT(unsigned short, CR_B_USHORT);
    TEST_CINT(int, CR_B_INT); TEST_CINT(unsigned, CR_B_UINT);
    TEST_CINT(long, CR_B_LONG); TEST_CINT(unsigned long, CR_B_ULONG);
    TEST_CINT(long long, CR_B_LLONG); TEST_CINT(unsigned long long, CR_B_ULLONG);
    TEST_CINT(int8_t, CR_B_INT8); TEST_CINT(int16_t, CR_B_INT16);
    TEST_CINT(int32_t, CR_B_INT32); TEST_CINT(int64_t, CR_B_INT64);
    TEST_CINT(uint8_t, CR_B_UINT8); TEST_CINT(uint16_t, CR_B_UINT16);
    TEST_CINT(uint32_t, CR_B_UINT32); TEST_CINT(uint64_t, CR_B_UINT64);
    TEST_CINT(char, CR_B_CHAR);   /* MPICH's extension of the C integer group */
    TEST_FINT(int32_t, CR_B_F_INTEGER); TEST_FINT(int8_t, CR_B_F_INTEGER1);
    TEST_FINT(int16_t, CR_B_F_INTEGER2); TEST_FINT(int32_t, CR_B_F_INTEGER4);
    TEST_FINT(int64_t, CR_B_F_INTEGER8); TEST_FINT(__int128, CR_B_F_INTEGER16);
    TEST_FINT(MPI_Aint, CR_B_AINT); TEST_FINT(MPI_Offset, CR_B_OFFSET);
    TEST_FINT(MPI_Count, CR_B_COUNT);
    TEST_ARITH(float, CR_B_FLOAT); TEST_ARITH(double, CR_B_DOUBLE);
    TEST_ARITH(long double, CR_B_LDOUBLE);
    TEST_ARITH(float, CR_B_F_REAL); TEST_ARITH(double, CR_B_F_DOUBLE);
    TEST_ARITH(float, CR_B_F_REAL4); TEST_ARITH(double, CR_B_F_REAL8);
#ifdef __SIZEOF_FLOAT128__
    TEST_ARITH(_Float128, CR_B_F_REAL16);
#else
    TEST_ARITH(long double, CR_B_F_REAL16);
#endif
    TEST_ARITH(_Float16, CR_B_FLOAT16); TEST_ARITH(_Float16, CR_B_F_REAL2);
    /* the logical ops on floating point: MPICH's extension (see op.c) */
    TEST_LOGIC(float, CR_B_FLOAT); TEST_LOGIC(double, CR_B_DOUBLE);
    TEST_LOGIC(long double, CR_B_LDOUBLE); TEST_LOGIC(float, CR_B_F_REAL);
    TEST_LOGIC(double, CR_B_F_DOUBLE); TEST_LOGIC(float, CR_B_F_REAL4);
    TEST_LOGIC(double, CR_B_F_REAL8); TEST_LOGIC(_Float16, CR_B_FLOAT16);
    TEST_LOGIC(_Float16, CR_B_F_REAL2);
#ifdef __SIZEOF_FLOAT128__
    TEST_LOGIC(_Float128, CR_B_F_REAL16);
#else
    TEST_LOGIC(long double, CR_B_F_REAL16);
#endif
    TEST_SIGNED(__int128, CR_B_F_INTEGER16, (((unsigned __int128)1 << 127) - 1),
                (-(__int128)(((unsigned __int128)1 << 127) - 1) - 1));
    /* bfloat16: small integers are exact (8 significant bits) */
    {
        const int *ex[4] = { ex_max, ex_min, ex_sum, ex_prod };
        MPI_Op ops[4] = { MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD };
        for (int k = 0; k < 4; k++) {
            uint16_t a[N9], r[N9];
            for (int i = 0; i < N9; i++) a[i] = bf16(va[i]), r[i] = bf16(vb[i]);
            run(ops[k], CR_B_BFLOAT16, 2, a, r, N9);
            for (int i = 0; i < N9; i++)
                CHECK(r[i] == bf16(ex[k][i]), "bfloat16 %s [%d]: 0x%04x", opn[opi(ops[k])], i,
                      r[i]);
        }
        uint16_t a[2] = { bf16(1), bf16(2) }, r[2] = { bf16(5), bf16(6) };
        run(MPI_REPLACE, CR_B_BFLOAT16, 2, a, r, 2);
        CHECK(r[0] == bf16(1) && r[1] == bf16(2), "bfloat16 REPLACE");
        run(MPI_NO_OP, CR_B_BFLOAT16, 2, a, r, 2);
        /* rounding: 1 + 2^-8 is halfway between two bfloat16 values: to even (1) */
        uint16_t x[1] = { bf16(1) }, y[1] = { 0x3b80 /* 2^-8 */ };
        run(MPI_SUM, CR_B_BFLOAT16, 2, x, y, 1);
        CHECK(y[0] == bf16(1), "bfloat16 SUM rounds to even: 0x%04x", y[0]);
    }
    TEST_SIGNED(signed char, CR_B_SCHAR, SCHAR_MAX, SCHAR_MIN);
#if CHAR_MIN < 0
    TEST_SIGNED(char, CR_B_CHAR, CHAR_MAX, CHAR_MIN);
#endif
    TEST_SIGNED(short, CR_B_SHORT, SHRT_MAX, SHRT_MIN);
    TEST_SIGNED(int, CR_B_INT, INT_MAX, INT_MIN);
    TEST_SIGNED(long, CR_B_LONG, LONG_MAX, LONG_MIN);
    TEST_SIGNED(long long, CR_B_LLONG, LLONG_MAX, LLONG_MIN);
    TEST_SIGNED(int8_t, CR_B_INT8, INT8_MAX, INT8_MIN);
    TEST_SIGNED(int16_t, CR_B_INT16, INT16_MAX, INT16_MIN);
    TEST_SIGNED(int32_t, CR_B_INT32, INT32_MAX, INT32_MIN);
    TEST_SIGNED(int64_t, CR_B_INT64, INT64_MAX, INT64_MIN);
    TEST_SIGNED(int32_t, CR_B_F_INTEGER, INT32_MAX, INT32_MIN);
    TEST_SIGNED(int64_t, CR_B_F_INTEGER8, INT64_MAX, INT64_MIN);
    TEST_SIGNED(MPI_Aint, CR_B_AINT, LONG_MAX, LONG_MIN);
    /* unsigned wrap */
    {
        unsigned a[2] = { UINT_MAX, 3 }, r[2] = { 2, UINT_MAX };
        run(MPI_SUM, CR_B_UINT, sizeof(unsigned), a, r, 2);
        CHECK(r[0] == 1 && r[1] == 2, "unsigned SUM wrap");
        unsigned short c[1] = { 65535 }, s[1] = { 65535 };
        run(MPI_PROD, CR_B_USHORT, 2, c, s, 1);
        CHECK(s[0] == 1, "unsigned short PROD wrap: %u", s[0]);
    }
    /* non-integral floating values */
    {
        double a[3] = { 0.5, -2.25, 1e300 }, r[3] = { 0.25, 4.0, 1e300 };
        run(MPI_SUM, CR_B_DOUBLE, 8, a, r, 3);
        CHECK(r[0] == 0.75 && r[1] == 1.75 && r[2] == 2e300, "double SUM");
        float c[2] = { -1.5f, 3.0f }, s[2] = { -2.5f, -3.0f };
        run(MPI_MIN, CR_B_FLOAT, 4, c, s, 2);
        CHECK(s[0] == -2.5f && s[1] == -3.0f, "float MIN");
    }
}

/* ---- complex --------------------------------------------------------------- */
#define TEST_COMPLEX(T, K)                                                              \
    do {                                                                                \
        T a[2] = { 1 + 2 * I, 3 - 1 * I }, r[2] = { 2 + 0.5 * I, -1 + 1 * I };          \
        run(MPI_SUM, K, sizeof(T), a, r, 2);                                            \
        CHECK(r[0] == 3 + 2.5 * I && r[1] == 2, "complex SUM %s", #K);                  \
        T c[2] = { 1 + 2 * I, 3 - 1 * I }, s[2] = { 2 + 0.5 * I, -1 + 1 * I };          \
        run(MPI_PROD, K, sizeof(T), c, s, 2);                                           \
        CHECK(s[0] == 1 + 4.5 * I && s[1] == -2 + 4 * I, "complex PROD %s", #K);        \
        T d[1] = { 7 - 7 * I }, t[1] = { 1 };                                           \
        run(MPI_REPLACE, K, sizeof(T), d, t, 1);                                        \
        CHECK(t[0] == 7 - 7 * I, "complex REPLACE %s", #K);                             \
        run(MPI_NO_OP, K, sizeof(T), a, t, 1);                                          \
        CHECK(t[0] == 7 - 7 * I, "complex NO_OP %s", #K);                               \
    } while (0)
static void test_complex(void)
{
    TEST_COMPLEX(float _Complex, CR_B_FCOMPLEX);
    TEST_COMPLEX(double _Complex, CR_B_DCOMPLEX);
    TEST_COMPLEX(long double _Complex, CR_B_LDCOMPLEX);
    TEST_COMPLEX(float _Complex, CR_B_F_COMPLEX);
    TEST_COMPLEX(double _Complex, CR_B_F_DCOMPLEX);
    TEST_COMPLEX(float _Complex, CR_B_F_COMPLEX8);
    TEST_COMPLEX(double _Complex, CR_B_F_COMPLEX16);
#ifdef __SIZEOF_FLOAT128__
    TEST_COMPLEX(_Complex _Float128, CR_B_F_COMPLEX32);
#else
    TEST_COMPLEX(long double _Complex, CR_B_F_COMPLEX32);
#endif
    TEST_COMPLEX(_Complex _Float16, CR_B_F_COMPLEX4);
}

/* ---- logical and byte -------------------------------------------------------- */
static void test_logical_byte(void)
{
    {
        bool a[4] = { 1, 0, 1, 0 }, r[4];
        static const bool xl[4] = { 1, 0, 0, 0 }, xo[4] = { 1, 1, 1, 0 }, xx[4] = { 0, 1, 1, 0 };
        const bool *ex[3] = { xl, xo, xx };
        MPI_Op ops[3] = { MPI_LAND, MPI_LOR, MPI_LXOR };
        for (int k = 0; k < 3; k++) {
            bool init[4] = { 1, 1, 0, 0 };
            memcpy(r, init, sizeof r);
            run(ops[k], CR_B_BOOL, sizeof(bool), a, r, 4);
            CHECK(!memcmp(r, ex[k], sizeof r), "bool %s", opn[opi(ops[k])]);
        }
        bool init[4] = { 1, 1, 0, 0 };
        memcpy(r, init, sizeof r);
        run(MPI_REPLACE, CR_B_BOOL, 1, a, r, 4);
        CHECK(!memcmp(r, a, sizeof r), "bool REPLACE");
        run(MPI_NO_OP, CR_B_BOOL, 1, init, r, 4);
        CHECK(!memcmp(r, a, sizeof r), "bool NO_OP");
    }
    {   /* Fortran LOGICAL: any non-zero is true; results are 0 / 1 */
        int32_t a[4] = { 7, 0, -1, 0 };
        int32_t ex[3][4] = { { 1, 0, 0, 0 }, { 1, 1, 1, 0 }, { 0, 1, 1, 0 } };
        MPI_Op ops[3] = { MPI_LAND, MPI_LOR, MPI_LXOR };
        for (int k = 0; k < 3; k++) {
            int32_t r[4] = { 1, 5, 0, 0 };
            run(ops[k], CR_B_F_LOGICAL, 4, a, r, 4);
            CHECK(!memcmp(r, ex[k], sizeof r), "LOGICAL %s", opn[opi(ops[k])]);
        }
        int32_t r[4] = { 1, 5, 0, 0 };
        run(MPI_REPLACE, CR_B_F_LOGICAL, 4, a, r, 4);
        CHECK(!memcmp(r, a, sizeof r), "LOGICAL REPLACE");
        run(MPI_NO_OP, CR_B_F_LOGICAL, 4, ex[0], r, 4);
        CHECK(!memcmp(r, a, sizeof r), "LOGICAL NO_OP");
    }
    {
        unsigned char a[3] = { 0xF0, 0x0F, 0xFF };
        unsigned char ex[3][3] = { { 0x30, 0x0C, 0x00 }, { 0xFC, 0x3F, 0xFF }, { 0xCC, 0x33, 0xFF } };
        MPI_Op ops[3] = { MPI_BAND, MPI_BOR, MPI_BXOR };
        for (int k = 0; k < 3; k++) {
            unsigned char r[3] = { 0x3C, 0x3C, 0x00 };
            run(ops[k], CR_B_BYTE, 1, a, r, 3);
            CHECK(!memcmp(r, ex[k], 3), "BYTE %s", opn[opi(ops[k])]);
        }
        unsigned char r[3] = { 0x3C, 0x3C, 0x00 };
        run(MPI_REPLACE, CR_B_BYTE, 1, a, r, 3);
        CHECK(!memcmp(r, a, 3), "BYTE REPLACE");
        run(MPI_NO_OP, CR_B_BYTE, 1, ex[0], r, 3);
        CHECK(!memcmp(r, a, 3), "BYTE NO_OP");
    }
    /* the sized Fortran logicals */
#define TEST_FLOGIC(T, K)                                                                \
    TEST_LOGIC(T, K); TEST_ONE(T, K, MPI_REPLACE, va); TEST_ONE(T, K, MPI_NO_OP, vb)
    TEST_FLOGIC(int8_t, CR_B_F_LOGICAL1); TEST_FLOGIC(int16_t, CR_B_F_LOGICAL2);
    TEST_FLOGIC(int32_t, CR_B_F_LOGICAL4); TEST_FLOGIC(int64_t, CR_B_F_LOGICAL8);
    TEST_FLOGIC(__int128, CR_B_F_LOGICAL16);
    /* REPLACE / NO_OP on the kinds no other op takes */
    {
        char a[2] = { 'x', 'y' }, r[2] = { 'a', 'b' };
        run(MPI_REPLACE, CR_B_CHAR, 1, a, r, 2);
        CHECK(r[0] == 'x' && r[1] == 'y', "CHAR REPLACE");
        run(MPI_NO_OP, CR_B_CHAR, 1, "qq", r, 2);
        CHECK(r[0] == 'x' && r[1] == 'y', "CHAR NO_OP");
    }
}

/* ---- MINLOC / MAXLOC ------------------------------------------------------------ */
/* in:    (1,5) (3,2) (2,4) (4,9) (5,5)
 * inout: (2,0) (3,7) (1,9) (4,3) (5,5)
 * MAXLOC (2,0) (3,2) (2,4) (4,3) (5,5)    MINLOC (1,5) (3,2) (1,9) (4,3) (5,5) */
#define TEST_PAIR(VT, IT, K)                                                             \
    do {                                                                                 \
        typedef struct { VT v; IT i; } p_t;                                              \
        const p_t a[5] = { { 1, 5 }, { 3, 2 }, { 2, 4 }, { 4, 9 }, { 5, 5 } };           \
        const p_t b[5] = { { 2, 0 }, { 3, 7 }, { 1, 9 }, { 4, 3 }, { 5, 5 } };           \
        const p_t mx[5] = { { 2, 0 }, { 3, 2 }, { 2, 4 }, { 4, 3 }, { 5, 5 } };          \
        const p_t mn[5] = { { 1, 5 }, { 3, 2 }, { 1, 9 }, { 4, 3 }, { 5, 5 } };          \
        p_t r[5];                                                                        \
        memcpy(r, b, sizeof r);                                                          \
        run(MPI_MAXLOC, K, sizeof(p_t), a, r, 5);                                        \
        for (int i = 0; i < 5; i++)                                                      \
            CHECK(r[i].v == mx[i].v && r[i].i == mx[i].i, "MAXLOC %s [%d]", #K, i);       \
        memcpy(r, b, sizeof r);                                                          \
        run(MPI_MINLOC, K, sizeof(p_t), a, r, 5);                                        \
        for (int i = 0; i < 5; i++)                                                      \
            CHECK(r[i].v == mn[i].v && r[i].i == mn[i].i, "MINLOC %s [%d]", #K, i);       \
        memcpy(r, b, sizeof r);                                                          \
        run(MPI_REPLACE, K, sizeof(p_t), a, r, 5);                                       \
        for (int i = 0; i < 5; i++)                                                      \
            CHECK(r[i].v == a[i].v && r[i].i == a[i].i, "REPLACE %s [%d]", #K, i);        \
        run(MPI_NO_OP, K, sizeof(p_t), b, r, 5);                                         \
        for (int i = 0; i < 5; i++)                                                      \
            CHECK(r[i].v == a[i].v && r[i].i == a[i].i, "NO_OP %s [%d]", #K, i);          \
    } while (0)
static void test_pairs(void)
{
    TEST_PAIR(float, int, CR_B_FLOAT_INT);
    TEST_PAIR(double, int, CR_B_DOUBLE_INT);
    TEST_PAIR(long, int, CR_B_LONG_INT);
    TEST_PAIR(short, int, CR_B_SHORT_INT);
    TEST_PAIR(int, int, CR_B_2INT);
    TEST_PAIR(long double, int, CR_B_LDOUBLE_INT);
    TEST_PAIR(int32_t, int32_t, CR_B_F_2INTEGER);
    TEST_PAIR(float, float, CR_B_F_2REAL);
    TEST_PAIR(double, double, CR_B_F_2DOUBLE);
}

/* ---- the definition table against the standard --------------------------------- */
static void test_table(void)
{
    enum { G_CINT = 1, G_FINT = 2, G_FLOAT = 4, G_CPLX = 8, G_LOGIC = 16, G_BYTE = 32,
           G_PAIR = 64, G_OTHER = 128, G_BF16 = 256 };
    int group[CR_B_COUNT_OF_KINDS] = { 0 };
    cr_basic_t cint[] = { CR_B_SCHAR, CR_B_UCHAR, CR_B_SHORT, CR_B_USHORT, CR_B_INT, CR_B_UINT,
                          CR_B_LONG, CR_B_ULONG, CR_B_LLONG, CR_B_ULLONG, CR_B_INT8, CR_B_INT16,
                          CR_B_INT32, CR_B_INT64, CR_B_UINT8, CR_B_UINT16, CR_B_UINT32,
                          CR_B_UINT64, CR_B_CHAR /* MPICH's extension, see op.c */ };
    cr_basic_t fint[] = { CR_B_F_INTEGER, CR_B_F_INTEGER1, CR_B_F_INTEGER2, CR_B_F_INTEGER4,
                          CR_B_F_INTEGER8, CR_B_F_INTEGER16, CR_B_AINT, CR_B_OFFSET,
                          CR_B_COUNT };
    cr_basic_t flt[] = { CR_B_FLOAT, CR_B_DOUBLE, CR_B_LDOUBLE, CR_B_F_REAL, CR_B_F_DOUBLE,
                         CR_B_F_REAL4, CR_B_F_REAL8, CR_B_F_REAL16, CR_B_FLOAT16,
                         CR_B_F_REAL2 };
    cr_basic_t cpx[] = { CR_B_FCOMPLEX, CR_B_DCOMPLEX, CR_B_LDCOMPLEX, CR_B_F_COMPLEX,
                         CR_B_F_DCOMPLEX, CR_B_F_COMPLEX8, CR_B_F_COMPLEX16, CR_B_F_COMPLEX32,
                         CR_B_F_COMPLEX4 };
    cr_basic_t lgc[] = { CR_B_BOOL, CR_B_F_LOGICAL, CR_B_F_LOGICAL1, CR_B_F_LOGICAL2,
                         CR_B_F_LOGICAL4, CR_B_F_LOGICAL8, CR_B_F_LOGICAL16 };
    cr_basic_t pair[] = { CR_B_FLOAT_INT, CR_B_DOUBLE_INT, CR_B_LONG_INT, CR_B_SHORT_INT,
                          CR_B_2INT, CR_B_LDOUBLE_INT, CR_B_F_2INTEGER, CR_B_F_2REAL,
                          CR_B_F_2DOUBLE };
    cr_basic_t other[] = { CR_B_WCHAR, CR_B_PACKED, CR_B_F_CHARACTER };
#define SETG(arr, g) for (size_t i = 0; i < sizeof arr / sizeof arr[0]; i++) group[arr[i]] = g
    SETG(cint, G_CINT); SETG(fint, G_FINT); SETG(flt, G_FLOAT); SETG(cpx, G_CPLX);
    SETG(lgc, G_LOGIC); SETG(pair, G_PAIR); SETG(other, G_OTHER);
    group[CR_B_BYTE] = G_BYTE;
    group[CR_B_BFLOAT16] = G_BF16;   /* floating point, but no logical ops on it */
    /* allowed groups per op, MPI-4.1 section 6.9.2 */
    int allowed[NOPS];
    allowed[opi(MPI_MAX)] = allowed[opi(MPI_MIN)] = G_CINT | G_FINT | G_FLOAT | G_BF16;
    allowed[opi(MPI_SUM)] = allowed[opi(MPI_PROD)] = G_CINT | G_FINT | G_FLOAT | G_BF16 | G_CPLX;
    /* (the logical ops on Fortran integers and floating point: MPICH's extension) */
    allowed[opi(MPI_LAND)] = allowed[opi(MPI_LOR)] = allowed[opi(MPI_LXOR)] =
        G_CINT | G_LOGIC | G_FINT | G_FLOAT;
    allowed[opi(MPI_BAND)] = allowed[opi(MPI_BOR)] = allowed[opi(MPI_BXOR)] =
        G_CINT | G_FINT | G_BYTE;
    allowed[opi(MPI_MINLOC)] = allowed[opi(MPI_MAXLOC)] = G_PAIR;
    allowed[opi(MPI_REPLACE)] = allowed[opi(MPI_NO_OP)] = ~0;
    for (int k = 0; k < NOPS; k++) {
        cr_op_t *o = cr_op_ptr(all_ops[k]);
        CHECK(o && o->builtin && o->handle == all_ops[k], "builtin op %s", opn[k]);
        for (int b = CR_B_NONE; b < CR_B_COUNT_OF_KINDS; b++) {
            cr_datatype_t d = mkdt((cr_basic_t)b, 4);
            int want = b != CR_B_NONE && b != CR_B_LB && b != CR_B_UB && (allowed[k] & group[b]);
            last_error_class = 0;
            int rc = cr_op_check(o, &d);
            CHECK((rc == MPI_SUCCESS) == !!want, "op %s on kind %d: check says %d, want %d",
                  opn[k], b, rc, want);
            if (rc) CHECK(rc == MPI_ERR_OP && strstr(last_error_msg, opn[k]), "error message '%s'",
                          last_error_msg);
            if (want && group[b] != G_OTHER)
                CHECK(covered[k][b], "no value test for op %s on kind %d", opn[k], b);
        }
    }
    CHECK(cr_op_ptr(MPI_OP_NULL) == NULL, "MPI_OP_NULL is not an op");
    CHECK(cr_op_ptr((MPI_Op)0x5800000f) == NULL, "0x5800000f is not an op");
    CHECK(cr_op_ptr(MPI_COMM_WORLD) == NULL, "a communicator is not an op");
}

/* ---- derived datatypes ---------------------------------------------------------- */
static void test_derived(void)
{
    /* dense: a contiguous type of 3 ints, 2 elements */
    {
        cr_datatype_t d = mkdt(CR_B_INT, 12);
        d.nbasic = 3;
        d.builtin = 0;
        int a[6] = { 1, 2, 3, 4, 5, 6 }, r[6] = { 10, 20, 30, 40, 50, 60 };
        cr_op_apply(cr_op_ptr(MPI_SUM), a, r, 2, &d);
        for (int i = 0; i < 6; i++) CHECK(r[i] == 11 * (i + 1), "contiguous SUM [%d]", i);
    }
    /* holes: 2 ints at stride 8 bytes per element (extent 16), 3 elements */
    {
        test_layout_t l = { 2, 4, 8 };
        cr_datatype_t d = mkdt(CR_B_INT, 8);
        d.nbasic = 2;
        d.extent = d.true_extent = 16;
        d.contig = 0;
        d.builtin = 0;
        d.desc = &l;
        int a[12], r[12];
        for (int i = 0; i < 12; i++) a[i] = i, r[i] = 100 * i;
        cr_op_apply(cr_op_ptr(MPI_SUM), a, r, 3, &d);
        for (int i = 0; i < 12; i++)
            CHECK(r[i] == (i % 2 == 0 ? 101 * i : 100 * i), "strided SUM [%d] = %d", i, r[i]);
        for (int i = 0; i < 12; i++) a[i] = i, r[i] = 100 * i;
        cr_op_apply(cr_op_ptr(MPI_REPLACE), a, r, 3, &d);
        for (int i = 0; i < 12; i++)
            CHECK(r[i] == (i % 2 == 0 ? i : 100 * i), "strided REPLACE [%d] = %d", i, r[i]);
    }
    /* pairs with holes: every other DOUBLE_INT, packed as 12-byte records */
    {
        typedef struct { double v; int i; } di_t;
        test_layout_t l = { 1, 12, 0 };
        cr_datatype_t d = mkdt(CR_B_DOUBLE_INT, 12);
        d.extent = 2 * sizeof(di_t);
        d.true_extent = 12;
        d.contig = 0;
        d.builtin = 0;
        d.desc = &l;
        di_t a[4] = { { 1, 5 }, { 99, 99 }, { 3, 2 }, { 99, 99 } };
        di_t r[4] = { { 2, 0 }, { 0, 0 }, { 3, 7 }, { 0, 0 } };
        cr_op_apply(cr_op_ptr(MPI_MAXLOC), a, r, 2, &d);
        CHECK(r[0].v == 2 && r[0].i == 0 && r[2].v == 3 && r[2].i == 2 && r[1].v == 0 &&
              r[3].i == 0, "strided MAXLOC");
        cr_op_apply(cr_op_ptr(MPI_MINLOC), a, r, 2, &d);
        CHECK(r[0].v == 1 && r[0].i == 5 && r[2].v == 3 && r[2].i == 2, "strided MINLOC");
    }
    /* count 0 touches nothing */
    {
        int a[1] = { 1 }, r[1] = { 2 };
        cr_datatype_t d = mkdt(CR_B_INT, 4);
        cr_op_apply(cr_op_ptr(MPI_SUM), a, r, 0, &d);
        CHECK(r[0] == 2, "count 0");
    }
    /* derived type not made of one basic kind */
    {
        cr_datatype_t d = mkdt(CR_B_NONE, 12);
        d.builtin = 0;
        d.name_builtin = NULL;
        strcpy(d.name, "mystruct");
        int rc = cr_op_check(cr_op_ptr(MPI_SUM), &d);
        CHECK(rc == MPI_ERR_OP && strstr(last_error_msg, "mystruct") &&
              strstr(last_error_msg, "MPI_SUM"), "SUM on a struct: %d '%s'", rc, last_error_msg);
    }
}

/* ---- user operations ---------------------------------------------------------- */
/* 2x2 integer matrices, product: associative, not commutative. */
typedef struct { int m[4]; } mat_t;
static MPI_Datatype seen_type;
static int seen_len, calls;
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    mat_t *a = in, *b = inout;
    seen_type = *dt;
    seen_len = *len;
    calls++;
    int n = *dt == MPI_INT ? *len / 4 : *len;   /* MPI_INT: 4 ints a matrix */
    for (int k = 0; k < n; k++) {
        mat_t r;
        r.m[0] = a[k].m[0] * b[k].m[0] + a[k].m[1] * b[k].m[2];
        r.m[1] = a[k].m[0] * b[k].m[1] + a[k].m[1] * b[k].m[3];
        r.m[2] = a[k].m[2] * b[k].m[0] + a[k].m[3] * b[k].m[2];
        r.m[3] = a[k].m[2] * b[k].m[1] + a[k].m[3] * b[k].m[3];
        b[k] = r;
    }
}
static void test_user(void)
{
    MPI_Op op;
    CHECK(core_op_create(matmul, NULL, 0, &op) == MPI_SUCCESS, "MPI_Op_create");
    CHECK(CR_H_STORAGE(op) == CR_ST_USER && CR_H_KIND(op) == CR_K_OP, "user op handle 0x%x",
          (unsigned)op);
    int c = -1;
    cr_op_t *o = cr_op_ptr(op);
    CHECK(core_op_commutative(o, &c) == MPI_SUCCESS && c == 0, "non-commutative");
    int cs = -1;
    CHECK(core_op_commutative(cr_op_ptr(MPI_SUM), &cs) == MPI_SUCCESS && cs == 1, "SUM commutative");
    CHECK(o && !o->builtin && o->user_fn == matmul, "user op object");
    /* A = [1 1; 0 1], B = [1 0; 1 1]: A*B = [2 1; 1 1], B*A = [1 1; 1 2] */
    mat_t a[2] = { { { 1, 1, 0, 1 } }, { { 1, 0, 1, 1 } } };
    mat_t b[2] = { { { 1, 0, 1, 1 } }, { { 1, 1, 0, 1 } } };
    /* reduce_local: inout = in op inout, i.e. a[k]*b[k]; the user function gets
     * the datatype handle and the count as given (2 ints as 8 "elements") */
    calls = 0;
    cr_datatype_t dint = mkdt(CR_B_INT, sizeof(int));
    dint.handle = MPI_INT;
    CHECK(core_reduce_local(a, b, 8, &dint, o) == MPI_SUCCESS, "reduce_local");
    CHECK(calls == 1 && seen_type == MPI_INT && seen_len == 8, "user fn args %d 0x%x %d", calls,
          (unsigned)seen_type, seen_len);
    CHECK(b[0].m[0] == 2 && b[0].m[1] == 1 && b[0].m[2] == 1 && b[0].m[3] == 1 &&
          b[1].m[0] == 1 && b[1].m[1] == 1 && b[1].m[2] == 1 && b[1].m[3] == 2,
          "reduce_local: inout = in op inout");
    /* the same through cr_op_apply with a 4-int datatype (handle of a user type) */
    mat_t a2[2] = { { { 1, 1, 0, 1 } }, { { 1, 0, 1, 1 } } };
    mat_t b2[2] = { { { 1, 0, 1, 1 } }, { { 1, 1, 0, 1 } } };
    cr_datatype_t d = mkdt(CR_B_INT, sizeof(mat_t));
    d.nbasic = 4;
    d.handle = (MPI_Datatype)0xcc000007;
    cr_op_apply(o, a2, b2, 2, &d);
    CHECK(b2[0].m[0] == 2 && b2[0].m[1] == 1 && b2[0].m[2] == 1 && b2[0].m[3] == 1,
          "in op inout order (A*B)");
    CHECK(b2[1].m[0] == 1 && b2[1].m[1] == 1 && b2[1].m[2] == 1 && b2[1].m[3] == 2,
          "in op inout order (B*A)");
    CHECK(seen_len == 2, "user fn count %d", seen_len);
    /* a user op is defined on every datatype, derived ones included */
    cr_datatype_t s = mkdt(CR_B_NONE, 12);
    CHECK(cr_op_check(o, &s) == MPI_SUCCESS, "user op on a struct type");
    MPI_Op op2;
    CHECK(core_op_create(matmul, NULL, 1, &op2) == MPI_SUCCESS && op2 != op, "second op");
    CHECK(core_op_commutative(cr_op_ptr(op2), &c) == MPI_SUCCESS && c == 1, "commutative user op");
    CHECK(core_op_free(o) == MPI_SUCCESS && cr_op_ptr(op) == NULL, "MPI_Op_free");
    CHECK(cr_op_ptr(CR_H_MAKE(CR_ST_USER, CR_K_OP, CR_H_INDEX(op2))) != NULL, "op2 alive");
    CHECK(core_op_free(cr_op_ptr(MPI_SUM)) == MPI_ERR_OP, "freeing MPI_SUM is an error");
    /* a reference held by a pending operation keeps a freed op alive */
    cr_op_t *o2 = cr_op_ptr(op2);
    cr_op_retain(o2);
    CHECK(core_op_free(o2) == MPI_SUCCESS && cr_op_ptr(op2) == o2, "op2 alive while held");
    cr_op_release(o2);
    CHECK(cr_op_ptr(op2) == NULL, "op2 gone after the last release");
}

/* A long vector, so the vectorised loop bodies and their tails both run. */
static void test_long(void)
{
    enum { N = 1037 };
    static double a[N], r[N];
    static int ia[N], ir[N];
    for (int i = 0; i < N; i++) a[i] = i * 0.5, r[i] = N - i, ia[i] = i, ir[i] = 3 * i;
    cr_datatype_t d = mkdt(CR_B_DOUBLE, 8), di = mkdt(CR_B_INT, 4);
    cr_op_apply(cr_op_ptr(MPI_MAX), a, r, N, &d);
    cr_op_apply(cr_op_ptr(MPI_BXOR), ia, ir, N, &di);
    for (int i = 0; i < N; i++) {
        double w = i * 0.5 > N - i ? i * 0.5 : N - i;
        CHECK(r[i] == w, "long MAX [%d]", i);
        CHECK(ir[i] == (i ^ (3 * i)), "long BXOR [%d]", i);
    }
}

int main(void)
{
    test_integers_and_floats();
    test_complex();
    test_logical_byte();
    test_pairs();
    test_table();
    test_derived();
    test_user();
    test_long();
    printf("test_op: %d checks, %d failures\n", checks, failures);
    if (failures) return 1;
    printf("PASS\n");
    return 0;
}
