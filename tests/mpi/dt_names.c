/* SPDX-License-Identifier: MIT */
/* Names and the less common predefined types: MPI_Type_get_name of every
 * predefined datatype is its MPI name, MPI_Type_set_name renames predefined
 * and derived types alike, and the half-precision and later-MPICH types
 * (MPIX_C_FLOAT16, MPIX_BFLOAT16, MPI_REAL2, MPI_COMPLEX4, MPI_LOGICALn) are
 * valid datatypes of the right size that travel and, where the standard
 * defines it, reduce. */
#include "mpitest.h"

static int rank, size, next, prev;

#define T(x) { x, #x }
static const struct { MPI_Datatype t; const char *name; } predefined[] = {
    T(MPI_CHAR), T(MPI_SIGNED_CHAR), T(MPI_UNSIGNED_CHAR), T(MPI_BYTE), T(MPI_WCHAR),
    T(MPI_SHORT), T(MPI_UNSIGNED_SHORT), T(MPI_INT), T(MPI_UNSIGNED), T(MPI_LONG),
    T(MPI_UNSIGNED_LONG), T(MPI_LONG_LONG_INT), T(MPI_UNSIGNED_LONG_LONG), T(MPI_FLOAT),
    T(MPI_DOUBLE), T(MPI_LONG_DOUBLE), T(MPI_PACKED), T(MPI_INT8_T), T(MPI_INT16_T),
    T(MPI_INT32_T), T(MPI_INT64_T), T(MPI_UINT8_T), T(MPI_UINT16_T), T(MPI_UINT32_T),
    T(MPI_UINT64_T), T(MPI_C_BOOL), T(MPI_C_DOUBLE_COMPLEX), T(MPI_C_LONG_DOUBLE_COMPLEX),
    T(MPI_AINT), T(MPI_OFFSET), T(MPI_COUNT), T(MPI_CXX_BOOL), T(MPI_CXX_FLOAT_COMPLEX),
    T(MPI_CXX_DOUBLE_COMPLEX), T(MPI_CXX_LONG_DOUBLE_COMPLEX), T(MPI_FLOAT_INT),
    T(MPI_DOUBLE_INT), T(MPI_LONG_INT), T(MPI_SHORT_INT), T(MPI_2INT), T(MPI_LONG_DOUBLE_INT),
    T(MPI_CHARACTER), T(MPI_INTEGER), T(MPI_REAL), T(MPI_LOGICAL), T(MPI_COMPLEX),
    T(MPI_DOUBLE_PRECISION), T(MPI_2INTEGER), T(MPI_2REAL), T(MPI_DOUBLE_COMPLEX),
    T(MPI_2DOUBLE_PRECISION), T(MPI_REAL4), T(MPI_COMPLEX8), T(MPI_REAL8), T(MPI_COMPLEX16),
    T(MPI_REAL16), T(MPI_COMPLEX32), T(MPI_INTEGER1), T(MPI_INTEGER2), T(MPI_INTEGER4),
    T(MPI_INTEGER8), T(MPI_LB), T(MPI_UB),
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 leaves MPIX_C_FLOAT16 unnamed */
    T(MPIX_C_FLOAT16),
#endif
#ifdef MPIX_BFLOAT16
    T(MPIX_BFLOAT16),
#endif
#ifdef MPI_LOGICAL1
    T(MPI_REAL2), T(MPI_COMPLEX4), T(MPI_LOGICAL1), T(MPI_LOGICAL2), T(MPI_LOGICAL4),
    T(MPI_LOGICAL8), T(MPI_LOGICAL16),
#endif
};

static void names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
        name[0] = 0;
        len = -1;
        CHECK_MPI(MPI_Type_get_name(predefined[i].t, name, &len));
        CHECK(strcmp(name, predefined[i].name) == 0 && len == (int)strlen(name),
              "name of %s: '%s' (len %d)", predefined[i].name, name, len);
    }
    /* synonyms: one handle, either name */
    CHECK_MPI(MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, name, &len));
    CHECK(!strcmp(name, "MPI_C_COMPLEX") || !strcmp(name, "MPI_C_FLOAT_COMPLEX"),
          "MPI_C_FLOAT_COMPLEX is named '%s'", name);
    CHECK_MPI(MPI_Type_get_name(MPI_LONG_LONG, name, &len));
    CHECK(!strcmp(name, "MPI_LONG_LONG_INT") || !strcmp(name, "MPI_LONG_LONG"),
          "MPI_LONG_LONG is named '%s'", name);
    /* renaming: predefined types too; each process names its own */
    char mine[32];
    snprintf(mine, sizeof mine, "int of rank %d", rank);
    CHECK_MPI(MPI_Type_set_name(MPI_INT, mine));
    CHECK_MPI(MPI_Type_get_name(MPI_INT, name, &len));
    CHECK(strcmp(name, mine) == 0 && len == (int)strlen(mine), "renamed MPI_INT: '%s'", name);
    int x = rank, y = -1;   /* still MPI_INT underneath */
    CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, next, 0, &y, 1, MPI_INT, prev, 0, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK_INT(y, prev);
    CHECK_MPI(MPI_Type_set_name(MPI_INT, "MPI_INT"));
    CHECK_MPI(MPI_Type_set_name(MPI_DOUBLE_INT, "pair"));
    CHECK_MPI(MPI_Type_get_name(MPI_DOUBLE_INT, name, &len));
    CHECK(strcmp(name, "pair") == 0, "renamed MPI_DOUBLE_INT: '%s'", name);
    CHECK_MPI(MPI_Type_set_name(MPI_DOUBLE_INT, "MPI_DOUBLE_INT"));
    /* a derived type starts without a name; a duplicate does not inherit it */
    MPI_Datatype v, d;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    CHECK_MPI(MPI_Type_get_name(v, name, &len));
    CHECK(len == 0 && name[0] == 0, "new type named '%s'", name);
    CHECK_MPI(MPI_Type_set_name(v, "my vector"));
    CHECK_MPI(MPI_Type_get_name(v, name, &len));
    CHECK(strcmp(name, "my vector") == 0 && len == 9, "derived name '%s'", name);
    MPI_Type_dup(v, &d);
    CHECK_MPI(MPI_Type_get_name(d, name, &len));
    CHECK(len == 0, "dup named '%s'", name);
    MPI_Type_free(&d);
    MPI_Type_free(&v);
}

/* A type of a given size travels round the ring with its bytes intact. */
static void travels(MPI_Datatype t, int want_size, const char *what)
{
    int sz = -1;
    CHECK_MPI(MPI_Type_size(t, &sz));
    CHECK(sz == want_size, "%s: size %d want %d", what, sz, want_size);
    MPI_Aint lb, ext;
    CHECK_MPI(MPI_Type_get_extent(t, &lb, &ext));
    CHECK(lb == 0 && ext == want_size, "%s: lb %ld extent %ld", what, (long)lb, (long)ext);
    unsigned char s[5 * 16], r[5 * 16 + 1];
    mt_fill(s, sizeof s, rank + 11);
    memset(r, 0, sizeof r);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(s, 5, t, next, 4, r, 5, t, prev, 4, MPI_COMM_WORLD, &st));
    CHECK_PATTERN(r, (size_t)(5 * want_size), prev + 11);
    CHECK(r[5 * want_size] == 0, "%s: wrote past 5 elements", what);
    int n = -1;
    CHECK_MPI(MPI_Get_count(&st, t, &n));
    CHECK_INT(n, 5);
    CHECK_MPI(MPI_Get_elements(&st, t, &n));
    CHECK_INT(n, 5);
}

static void extra_types(void)
{
    travels(MPIX_C_FLOAT16, 2, "MPIX_C_FLOAT16");
#if defined(__FLT16_MAX__) && !defined(MT_REFERENCE_MPICH)   /* MPICH 4.0 asserts here */
    /* half-precision sums of small integers are exact */
    _Float16 h[3] = { (_Float16)(rank + 1), (_Float16)0.5, (_Float16)-rank }, hs[3];
    CHECK_MPI(MPI_Allreduce(h, hs, 3, MPIX_C_FLOAT16, MPI_SUM, MPI_COMM_WORLD));
    CHECK((double)hs[0] == size * (size + 1) / 2 && (double)hs[1] == 0.5 * size &&
          (double)hs[2] == -size * (size - 1) / 2, "MPIX_C_FLOAT16 SUM %g %g %g",
          (double)hs[0], (double)hs[1], (double)hs[2]);
    CHECK_MPI(MPI_Allreduce(h, hs, 3, MPIX_C_FLOAT16, MPI_MAX, MPI_COMM_WORLD));
    CHECK((double)hs[0] == size && (double)hs[2] == 0, "MPIX_C_FLOAT16 MAX");
#endif
#ifdef MPIX_BFLOAT16
    travels(MPIX_BFLOAT16, 2, "MPIX_BFLOAT16");
    /* bfloat16 is the upper half of a float: 1.0 is 0x3f80 */
    unsigned short b[2] = { 0x3f80, 0x4000 /* 2.0 */ }, bs[2];
    CHECK_MPI(MPI_Allreduce(b, bs, 2, MPIX_BFLOAT16, MPI_SUM, MPI_COMM_WORLD));
    float f0, f1;
    unsigned u0 = (unsigned)bs[0] << 16, u1 = (unsigned)bs[1] << 16;
    memcpy(&f0, &u0, 4);
    memcpy(&f1, &u1, 4);
    CHECK(f0 == size && f1 == 2 * size, "MPIX_BFLOAT16 SUM %g %g", f0, f1);
#endif
#ifdef MPI_LOGICAL1
    travels(MPI_REAL2, 2, "MPI_REAL2");
    travels(MPI_COMPLEX4, 4, "MPI_COMPLEX4");
    static const struct { MPI_Datatype t; int size; const char *n; } lg[] = {
        { MPI_LOGICAL1, 1, "MPI_LOGICAL1" }, { MPI_LOGICAL2, 2, "MPI_LOGICAL2" },
        { MPI_LOGICAL4, 4, "MPI_LOGICAL4" }, { MPI_LOGICAL8, 8, "MPI_LOGICAL8" },
        { MPI_LOGICAL16, 16, "MPI_LOGICAL16" },
    };
    for (size_t i = 0; i < sizeof lg / sizeof lg[0]; i++) {
        travels(lg[i].t, lg[i].size, lg[i].n);
        /* LOR of "rank == 0": true everywhere; LAND: true only with one rank */
        unsigned char in[16] = { 0 }, out[16];
        in[0] = rank == 0;
        CHECK_MPI(MPI_Allreduce(in, out, 1, lg[i].t, MPI_LOR, MPI_COMM_WORLD));
        CHECK(out[0] == 1, "%s LOR", lg[i].n);
        CHECK_MPI(MPI_Allreduce(in, out, 1, lg[i].t, MPI_LAND, MPI_COMM_WORLD));
        CHECK(out[0] == (size == 1), "%s LAND", lg[i].n);
    }
#endif
    /* the standard's size-specific types beside them */
    travels(MPI_INTEGER1, 1, "MPI_INTEGER1");
    travels(MPI_INTEGER8, 8, "MPI_INTEGER8");
    travels(MPI_COMPLEX16, 16, "MPI_COMPLEX16");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    names();
    extra_types();
    int rc = mt_finish("dt_names");
    MPI_Finalize();
    return rc;
}
