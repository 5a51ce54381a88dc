/* SPDX-License-Identifier: MIT */
/* The Fortran 90 parameterised types from C: MPI_Type_create_f90_integer,
 * _real and _complex return the type of the matching Fortran kind (its size),
 * the same handle for the same arguments, an envelope with the combiner and
 * the arguments, and a type usable in communication and reductions;
 * MPI_Type_match_size returns predefined types of the asked size that reduce
 * too.  Unsupported precisions are MPI_ERR_ARG-like errors, not crashes. */
#include "mpitest.h"
#include <complex.h>

static int rank, size, next, prev;

static void check_f90(MPI_Datatype t, int combiner, int p, int r, int want_size, const char *what)
{
    int sz = -1, ni, na, nd, comb;
    CHECK_MPI(MPI_Type_size(t, &sz));
    CHECK(sz == want_size, "%s: size %d want %d", what, sz, want_size);
    CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
    int nint = combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2;
    CHECK(comb == combiner && ni == nint && na == 0 && nd == 0, "%s: envelope %d %d %d %d", what,
          comb, ni, na, nd);
    if (comb != combiner || ni != nint) return;
    int ints[2] = { -7, -7 };
    MPI_Datatype dummy;
    CHECK_MPI(MPI_Type_get_contents(t, 2, 0, 1, ints, NULL, &dummy));
    if (combiner == MPI_COMBINER_F90_INTEGER)
        CHECK(ints[0] == r, "%s: contents r=%d", what, ints[0]);
    else
        CHECK(ints[0] == p && ints[1] == r, "%s: contents p=%d r=%d", what, ints[0], ints[1]);
}

static void integers(void)
{
    static const struct { int r, size; } k[] = { { 1, 1 }, { 2, 1 }, { 3, 2 }, { 4, 2 },
                                                 { 5, 4 }, { 9, 4 }, { 10, 8 }, { 18, 8 } };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        MPI_Datatype t, t2;
        char what[64];
        snprintf(what, sizeof what, "f90_integer(%d)", k[i].r);
        CHECK_MPI(MPI_Type_create_f90_integer(k[i].r, &t));
        CHECK_MPI(MPI_Type_create_f90_integer(k[i].r, &t2));
        CHECK(t == t2, "%s: a second call gives another handle", what);
        check_f90(t, MPI_COMBINER_F90_INTEGER, 0, k[i].r, k[i].size, what);
    }
    /* an 8-byte integer kind, summed over the ranks and sent round the ring */
    MPI_Datatype i8;
    CHECK_MPI(MPI_Type_create_f90_integer(15, &i8));
    long long v[3] = { rank + 1, (long long)1 << 40, -rank }, s[3] = { 0, 0, 0 };
    CHECK_MPI(MPI_Allreduce(v, s, 3, i8, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s[0] == (long long)size * (size + 1) / 2 && s[1] == ((long long)size << 40) &&
          s[2] == -(long long)size * (size - 1) / 2, "f90 integer(15) SUM %lld %lld %lld",
          s[0], s[1], s[2]);
    CHECK_MPI(MPI_Allreduce(v, s, 3, i8, MPI_MAX, MPI_COMM_WORLD));
    CHECK(s[0] == size && s[2] == 0, "f90 integer MAX %lld %lld", s[0], s[2]);
    long long got[3] = { 0, 0, 0 };
    CHECK_MPI(MPI_Sendrecv(v, 3, i8, next, 1, got, 3, i8, prev, 1, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(got[0] == prev + 1 && got[2] == -prev, "f90 integer ring %lld %lld", got[0], got[2]);
    /* a derived type built on it */
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, i8, &vec);
    MPI_Type_commit(&vec);
    long long four[4] = { 10 * rank, -1, 10 * rank + 1, -1 }, four_r[4] = { 0, 7, 0, 7 };
    CHECK_MPI(MPI_Sendrecv(four, 1, vec, next, 2, four_r, 1, vec, prev, 2, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(four_r[0] == 10 * prev && four_r[1] == 7 && four_r[2] == 10 * prev + 1 &&
          four_r[3] == 7, "vector of f90 integers");
    MPI_Type_free(&vec);
}

static void reals(void)
{
    static const struct { int p, r, size; } k[] = {
        { 3, 10, 4 }, { 3, MPI_UNDEFINED, 4 }, { MPI_UNDEFINED, 10, 4 }, { 6, 37, 4 },
        { 7, 30, 8 }, { 7, MPI_UNDEFINED, 8 }, { MPI_UNDEFINED, 38, 8 }, { 15, 307, 8 },
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        MPI_Datatype t, t2, c;
        char what[64];
        snprintf(what, sizeof what, "f90_real(%d, %d)", k[i].p, k[i].r);
        CHECK_MPI(MPI_Type_create_f90_real(k[i].p, k[i].r, &t));
        CHECK_MPI(MPI_Type_create_f90_real(k[i].p, k[i].r, &t2));
        CHECK(t == t2, "%s: a second call gives another handle", what);
        check_f90(t, MPI_COMBINER_F90_REAL, k[i].p, k[i].r, k[i].size, what);
        snprintf(what, sizeof what, "f90_complex(%d, %d)", k[i].p, k[i].r);
        CHECK_MPI(MPI_Type_create_f90_complex(k[i].p, k[i].r, &c));
        check_f90(c, MPI_COMBINER_F90_COMPLEX, k[i].p, k[i].r, 2 * k[i].size, what);
    }
    /* double precision: a reduction and a message */
    MPI_Datatype d, z;
    CHECK_MPI(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &d));
    double v[2] = { 0.5 * (rank + 1), -rank }, s[2];
    CHECK_MPI(MPI_Allreduce(v, s, 2, d, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s[0] == 0.25 * size * (size + 1) && s[1] == -0.5 * size * (size - 1),
          "f90 real SUM %g %g", s[0], s[1]);
    CHECK_MPI(MPI_Allreduce(v, s, 2, d, MPI_MIN, MPI_COMM_WORLD));
    CHECK(s[0] == 0.5 && s[1] == -(size - 1), "f90 real MIN %g %g", s[0], s[1]);
    /* single complex: SUM and PROD */
    CHECK_MPI(MPI_Type_create_f90_complex(6, MPI_UNDEFINED, &z));
    float _Complex c = (float)(rank + 1) + 1.0f * I, cs = 0;
    CHECK_MPI(MPI_Allreduce(&c, &cs, 1, z, MPI_SUM, MPI_COMM_WORLD));
    CHECK(crealf(cs) == 0.5f * size * (size + 1) && cimagf(cs) == size, "f90 complex SUM %g%+gi",
          crealf(cs), cimagf(cs));
    float _Complex one = 1.0f * I, prod = 0;
    CHECK_MPI(MPI_Allreduce(&one, &prod, 1, z, MPI_PROD, MPI_COMM_WORLD));
    static const float re[4] = { 0, -1, 0, 1 }, im[4] = { 1, 0, -1, 0 };   /* i^size */
    CHECK(crealf(prod) == re[(size - 1) % 4] && cimagf(prod) == im[(size - 1) % 4],
          "f90 complex PROD i^%d = %g%+gi", size, crealf(prod), cimagf(prod));
    double _Complex dz[2] = { rank + 2.0 * I, -1.0 }, dr[2] = { 0, 0 };
    MPI_Datatype z16;
    CHECK_MPI(MPI_Type_create_f90_complex(15, 300, &z16));
    CHECK_MPI(MPI_Sendrecv(dz, 2, z16, next, 3, dr, 2, z16, prev, 3, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(creal(dr[0]) == prev && cimag(dr[0]) == 2 && creal(dr[1]) == -1, "f90 complex ring");
}

static void match_size(void)
{
    static const struct { int cls, size; } k[] = {
        { MPI_TYPECLASS_INTEGER, 1 }, { MPI_TYPECLASS_INTEGER, 2 }, { MPI_TYPECLASS_INTEGER, 4 },
        { MPI_TYPECLASS_INTEGER, 8 }, { MPI_TYPECLASS_REAL, 4 }, { MPI_TYPECLASS_REAL, 8 },
        { MPI_TYPECLASS_COMPLEX, 8 }, { MPI_TYPECLASS_COMPLEX, 16 },
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        CHECK_MPI(MPI_Type_match_size(k[i].cls, k[i].size, &t));
        int sz = -1;
        MPI_Type_size(t, &sz);
        CHECK(sz == k[i].size, "match_size(%d, %d): size %d", k[i].cls, k[i].size, sz);
        /* a reduction of ones: the sum is the number of ranks, in any of the types
         * (complex: the real part; a real or complex component of 4 or 8 bytes) */
        int comp = k[i].cls == MPI_TYPECLASS_COMPLEX ? k[i].size / 2 : k[i].size;
        unsigned char in[32] = { 0 }, out[32] = { 0 };
        float f1 = 1;
        double d1 = 1;
        if (k[i].cls == MPI_TYPECLASS_INTEGER) in[0] = 1;   /* little-endian one */
        else if (comp == 4) memcpy(in, &f1, 4);
        else memcpy(in, &d1, 8);
        CHECK_MPI(MPI_Allreduce(in, out, 1, t, MPI_SUM, MPI_COMM_WORLD));
        long long got = 0;
        if (k[i].cls == MPI_TYPECLASS_INTEGER) {
            memcpy(&got, out, (size_t)k[i].size);
        } else if (comp == 4) {
            memcpy(&f1, out, 4);
            got = (long long)f1;
        } else {
            memcpy(&d1, out, 8);
            got = (long long)d1;
        }
        CHECK(got == size, "match_size(%d, %d): SUM of ones %lld", k[i].cls, k[i].size, got);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t) != MPI_SUCCESS, "3-byte integer");
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 5, &t) != MPI_SUCCESS, "5-byte real");
    CHECK(MPI_Type_create_f90_real(1000, MPI_UNDEFINED, &t) != MPI_SUCCESS,
          "1000-digit real");
    CHECK(MPI_Type_create_f90_integer(1000, &t) != MPI_SUCCESS, "1000-digit integer");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    integers();
    reals();
    match_size();
    int rc = mt_finish("dt_f90");
    MPI_Finalize();
    return rc;
}
