/* SPDX-License-Identifier: MIT */
/* MPI_Allreduce and MPI_Reduce over the sizes where the folds on one node
 * change path (coll8): operands in the control line (up to 48/56 bytes), in a
 * cell (1 KiB), in a slot (32 KiB, also the single-copy threshold), the
 * two-rank recursive-doubling range (7 KiB .. the 8 KiB eager limit), and
 * single copy above; with and without MPI_IN_PLACE, every root.
 *   - the predefined ops on the 4- and 8-byte kinds that have AVX2 and
 *     three-operand kernels (cr_op_apply3), and on MPI_SHORT, which has
 *     neither: exact against a local fold of every rank's (known) operand;
 *   - a non-commutative user op (2x2 matrix products, mod 2^32): the product
 *     in rank order;
 *   - MPI_SUM of doubles of widely different magnitudes: bit for bit the same
 *     on every rank, and the same as MPI_Iallreduce and MPI_Allreduce_init
 *     give (at two ranks also the same as a0 + a1 computed here).
 * Run with the algorithms forced through the settings (tests/mpi/coll.list). */
#include "mpitest.h"
#include <math.h>
#include <stdint.h>

static int rank, size;

static const long sizes[] = { 4, 8, 40, 48, 52, 56, 64, 1016, 1024, 1032, 4096, 7160, 7168, 8192, 8200,
                              16384, 32760, 32768, 32776, 65536 };
enum { NSIZES = sizeof(sizes) / sizeof(sizes[0]), BIG = 1 << 20 };

/* Rank r's element k: small, so sums and products of a few stay exact. */
static long ival(int r, long k)
{
    return (long)((r * 31 + k * 7) % 13) - 6;
}

#define DEF_CHECK(NAME, T, U, BITOPS)                                                      \
    static void NAME(MPI_Datatype dt, MPI_Op op, long bytes, int inplace, int root)       \
    {                                                                                    \
        long n = bytes / (long)sizeof(T);                                                \
        T *s = mt_malloc((size_t)n * sizeof(T) + 1), *r = mt_malloc((size_t)n * sizeof(T) + 1); \
        for (long k = 0; k < n; k++) {                                                   \
            T v = (T)ival(rank, k);                                                      \
            if (op == MPI_PROD) v = (T)(ival(rank, k) % 2 == 0 ? 1 : ival(rank, k) % 3 + 2); \
            s[k] = v;                                                                    \
            r[k] = (T)-99;                                                               \
        }                                                                                \
        if (inplace) memcpy(r, s, (size_t)n * sizeof(T));                                 \
        const void *sb = inplace && (root < 0 || root == rank) ? MPI_IN_PLACE : s;         \
        if (root < 0) CHECK_MPI(MPI_Allreduce(sb, r, (int)n, dt, op, MPI_COMM_WORLD));     \
        else CHECK_MPI(MPI_Reduce(sb, rank == root ? r : NULL, (int)n, dt, op, root,       \
                                  MPI_COMM_WORLD));                                      \
        if (root < 0 || root == rank) {                                                  \
            for (long k = 0; k < n; k++) {                                               \
                T want = 0;                                                              \
                for (int i = 0; i < size; i++) {                                         \
                    T v = (T)ival(i, k);                                                 \
                    if (op == MPI_PROD) v = (T)(ival(i, k) % 2 == 0 ? 1 : ival(i, k) % 3 + 2); \
                    if (i == 0) want = v;                                                \
                    else if (op == MPI_SUM) want = (T)((U)want + (U)v);                  \
                    else if (op == MPI_PROD) want = (T)((U)want * (U)v);                 \
                    else if (op == MPI_MAX) want = v > want ? v : want;                  \
                    else if (op == MPI_MIN) want = v < want ? v : want;                  \
                    else BITOPS(T, U)                                                    \
                }                                                                        \
                if (r[k] != want) {                                                      \
                    CHECK(r[k] == want, "%s %s %ld bytes inplace %d root %d: element %ld " \
                          "is %g, expected %g", #T, root < 0 ? "Allreduce" : "Reduce",   \
                          bytes, inplace, root, k, (double)r[k], (double)want);          \
                    break;                                                               \
                }                                                                        \
            }                                                                            \
        }                                                                                \
        free(s);                                                                         \
        free(r);                                                                         \
    }
#define INT_BITOPS(T, U)                                                                 \
    if (op == MPI_BAND) want = (T)((U)want & (U)v);                                      \
    else if (op == MPI_BOR) want = (T)((U)want | (U)v);                                  \
    else if (op == MPI_BXOR) want = (T)((U)want ^ (U)v);
#define NO_BITOPS(T, U) {}
DEF_CHECK(check_int, int, unsigned, INT_BITOPS)
DEF_CHECK(check_uint, unsigned, unsigned, INT_BITOPS)
DEF_CHECK(check_long, long, unsigned long, INT_BITOPS)
DEF_CHECK(check_i64, int64_t, uint64_t, INT_BITOPS)
DEF_CHECK(check_short, short, unsigned, INT_BITOPS)
DEF_CHECK(check_float, float, float, NO_BITOPS)
DEF_CHECK(check_double, double, double, NO_BITOPS)

typedef void (*check_fn)(MPI_Datatype, MPI_Op, long, int, int);

static void each_root(check_fn f, MPI_Datatype dt, MPI_Op op, long bytes, int inplace)
{
    f(dt, op, bytes, inplace, -1);
    for (int root = 0; root < size; root++) f(dt, op, bytes, inplace, root);
}

/* ---- a non-commutative op: 2x2 matrices of uint32, multiplied in order -------- */
typedef struct { uint32_t m[4]; } mat_t;
static mat_t mat_mul(mat_t a, mat_t b)
{
    mat_t c = { { a.m[0] * b.m[0] + a.m[1] * b.m[2], a.m[0] * b.m[1] + a.m[1] * b.m[3],
                  a.m[2] * b.m[0] + a.m[3] * b.m[2], a.m[2] * b.m[1] + a.m[3] * b.m[3] } };
    return c;
}
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    mat_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++) b[i] = mat_mul(a[i], b[i]);
}
static mat_t mat_val(int r, long k)
{
    mat_t m = { { (uint32_t)(r + 2), (uint32_t)(k % 5 + 1), (uint32_t)(r * 3 + k % 7),
                  (uint32_t)(k % 3 + 1) } };
    return m;
}

static void check_mat(MPI_Datatype dt, MPI_Op op, long bytes, int inplace, int root)
{
    long n = bytes / (long)sizeof(mat_t);
    if (n < 1) return;
    mat_t *s = mt_malloc((size_t)n * sizeof(mat_t)), *r = mt_malloc((size_t)n * sizeof(mat_t));
    for (long k = 0; k < n; k++) s[k] = r[k] = mat_val(rank, k);
    const void *sb = inplace && (root < 0 || root == rank) ? MPI_IN_PLACE : s;
    if (root < 0) CHECK_MPI(MPI_Allreduce(sb, r, (int)n, dt, op, MPI_COMM_WORLD));
    else CHECK_MPI(MPI_Reduce(sb, r, (int)n, dt, op, root, MPI_COMM_WORLD));
    if (root < 0 || root == rank) {
        for (long k = 0; k < n; k++) {
            mat_t want = mat_val(0, k);
            for (int i = 1; i < size; i++) want = mat_mul(want, mat_val(i, k));
            if (memcmp(&want, &r[k], sizeof want)) {
                CHECK(0, "matrix product, %ld bytes inplace %d root %d: element %ld is "
                      "{%u %u %u %u}, expected {%u %u %u %u}", bytes, inplace, root, k,
                      r[k].m[0], r[k].m[1], r[k].m[2], r[k].m[3], want.m[0], want.m[1],
                      want.m[2], want.m[3]);
                break;
            }
        }
    }
    free(s);
    free(r);
}

/* ---- double sums: the same bits everywhere and in every form -------------------- */
static double dval(int r, long k)
{
    uint64_t x = (uint64_t)r * 0x9e3779b97f4a7c15ull + (uint64_t)k * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 31;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 29;
    double m = 1.0 + (double)((x >> 8) & 0xfffff) / 1048576.0;
    return ((x >> 40) & 1 ? -1.0 : 1.0) * ldexp(m, (int)(x % 60) - 20);
}

static void check_dsum(long bytes, int inplace)
{
    long n = bytes / (long)sizeof(double);
    if (n < 1) return;
    size_t b = (size_t)n * sizeof(double);
    double *s = mt_malloc(b), *r = mt_malloc(b), *ri = mt_malloc(b), *rp = mt_malloc(b);
    double *r0 = mt_malloc(b);
    for (long k = 0; k < n; k++) s[k] = dval(rank, k);
    memcpy(r, s, b);
    memcpy(ri, s, b);
    memcpy(rp, s, b);
    CHECK_MPI(MPI_Allreduce(inplace ? MPI_IN_PLACE : s, r, (int)n, MPI_DOUBLE, MPI_SUM,
                            MPI_COMM_WORLD));
    MPI_Request q;
    CHECK_MPI(MPI_Iallreduce(inplace ? MPI_IN_PLACE : s, ri, (int)n, MPI_DOUBLE, MPI_SUM,
                             MPI_COMM_WORLD, &q));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Allreduce_init(inplace ? MPI_IN_PLACE : s, rp, (int)n, MPI_DOUBLE, MPI_SUM,
                                 MPI_COMM_WORLD, MPI_INFO_NULL, &q));
    CHECK_MPI(MPI_Start(&q));
    CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Request_free(&q));
    memcpy(r0, r, b);
    CHECK_MPI(MPI_Bcast(r0, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    CHECK(!memcmp(r, r0, b), "double sum of %ld bytes (inplace %d) differs from rank 0's", bytes,
          inplace);
    CHECK(!memcmp(r, ri, b), "double sum of %ld bytes (inplace %d): MPI_Iallreduce's differs",
          bytes, inplace);
    CHECK(!memcmp(r, rp, b), "double sum of %ld bytes (inplace %d): MPI_Allreduce_init's differs",
          bytes, inplace);
    if (size <= 2) {
        for (long k = 0; k < n; k++) {
            double want = size == 1 ? dval(0, k) : dval(0, k) + dval(1, k);
            if (memcmp(&want, &r[k], sizeof want)) {
                CHECK(0, "double sum of %ld bytes: element %ld is %a, expected %a", bytes, k,
                      r[k], want);
                break;
            }
        }
        /* Reduce at two ranks: the same single addition */
        for (int root = 0; root < size; root++) {
            memcpy(r0, s, b);
            CHECK_MPI(MPI_Reduce(inplace && rank == root ? MPI_IN_PLACE : s, r0, (int)n,
                                 MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD));
            if (rank == root)
                CHECK(!memcmp(r, r0, b), "double Reduce of %ld bytes to %d (inplace %d) "
                      "differs from Allreduce", bytes, root, inplace);
        }
    }
    free(s);
    free(r);
    free(ri);
    free(rp);
    free(r0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const MPI_Op arith[] = { MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN };
    static const MPI_Op bits[] = { MPI_BAND, MPI_BOR, MPI_BXOR };
    MPI_Datatype matt;
    MPI_Op matop;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_UINT32_T, &matt));
    CHECK_MPI(MPI_Type_commit(&matt));
    CHECK_MPI(MPI_Op_create(mat_op, 0, &matop));
    for (int si = 0; si < NSIZES; si++) {
        long bytes = sizes[si];
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int o = 0; o < 4; o++) {
                each_root(check_int, MPI_INT, arith[o], bytes, inplace);
                each_root(check_double, MPI_DOUBLE, arith[o], bytes, inplace);
                if (inplace == (o & 1)) {   /* the rest in half the combinations */
                    each_root(check_uint, MPI_UNSIGNED, arith[o], bytes, inplace);
                    each_root(check_long, MPI_LONG, arith[o], bytes, inplace);
                    each_root(check_i64, MPI_INT64_T, arith[o], bytes, inplace);
                    each_root(check_float, MPI_FLOAT, arith[o], bytes, inplace);
                    each_root(check_short, MPI_SHORT, arith[o], bytes, inplace);
                }
            }
            for (int o = 0; o < 3; o++) each_root(check_int, MPI_INT, bits[o], bytes, inplace);
            each_root(check_mat, matt, matop, bytes, inplace);
            check_dsum(bytes, inplace);
        }
    }
    /* one large vector (single copy, or messages at two ranks) */
    for (int inplace = 0; inplace < 2; inplace++) {
        each_root(check_int, MPI_INT, MPI_SUM, BIG, inplace);
        each_root(check_mat, matt, matop, BIG, inplace);
        check_dsum(BIG, inplace);
    }
    MPI_Op_free(&matop);
    MPI_Type_free(&matt);
    int rc = mt_finish("coll_fold");
    MPI_Finalize();
    return rc;
}
