/* SPDX-License-Identifier: MIT */
/* The association of floating-point reductions, bit for bit (issue 18: answers
 * identical to MPICH's).  Each rank contributes doubles (and floats) of widely
 * different magnitudes and signs, so that two associations of the same sum
 * almost never give the same bits, and every result is compared bit for bit
 * with the association MPICH's default algorithms give, computed locally:
 *   - MPI_Allreduce, MPI_Iallreduce (recursive doubling up to 2048 bytes,
 *     reduce-scatter + allgather above: the same association per element):
 *     the first 2r ranks (r = p - p2, p2 the largest power of two <= p) are
 *     added in pairs (a0+a1), (a2+a3), ..., giving p2 units, which are added
 *     as a balanced tree: ((u0+u1)+(u2+u3)) ...;
 *   - MPI_Reduce up to 2048 bytes (binomial tree rooted at the root): with
 *     b_k = a_(root+k mod p), tree(b_0 .. b_p-1), where tree(x_0 .. x_n-1) =
 *     tree(x_0 .. x_M-1) + tree(x_M .. x_n-1), M the largest power of two < n;
 *     above 2048 bytes (reduce-scatter + gather) the allreduce association;
 *   - MPI_Reduce_scatter_block (recursive halving): the p2 units of the
 *     allreduce, added farthest first: ((u0+u2)+(u1+u3)) at 4.
 * At 3 or more ranks the test also checks that its data tell associations
 * apart (the expected sums differ from the rank-order folds), so a pass means
 * something.  Blocking and MPI_IN_PLACE forms, every root. */
#include "mpitest.h"
#include <math.h>
#include <stdint.h>

#define SHORT_BYTES 2048   /* MPICH's MPIR_CVAR_{ALL,}REDUCE_SHORT_MSG_SIZE */
#define MAXP 64

static int rank, size;

/* MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE above its short limit
 * (reduce-scatter + gather), so the reference run tries in place only below. */
#ifdef MT_REFERENCE_MPICH
#define IN_PLACE_OK(n) ((n) * (long)sizeof(double) <= SHORT_BYTES)
#else
#define IN_PLACE_OK(n) 1
#endif

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Rank r's element k of vector `seed`: seed 0 is the pattern 1e16, 1, -1e16,
 * 1 shifted by rank; the others are random magnitudes 2^-20 .. 2^60. */
static double val(int seed, int r, long k)
{
    if (seed == 0) {
        static const double pat[4] = { 1e16, 1.0, -1e16, 1.0 };
        return pat[(r + k) % 4];
    }
    uint64_t x = mix((uint64_t)seed * 1000003u + (uint64_t)r * 7919u + (uint64_t)k * 104729u);
    double m = 1.0 + (double)((x >> 8) & 0xfffff) / 1048576.0;
    return ((x >> 40) & 1 ? -1.0 : 1.0) * ldexp(m, (int)(x % 80) - 20);
}

/* The balanced tree: split at the largest power of two below n. */
static double tree_d(const double *x, int n)
{
    if (n == 1) return x[0];
    int m = 1;
    while (m * 2 < n) m *= 2;
    return tree_d(x, m) + tree_d(x + m, n - m);
}
static float tree_f(const float *x, int n)
{
    if (n == 1) return x[0];
    int m = 1;
    while (m * 2 < n) m *= 2;
    return tree_f(x, m) + tree_f(x + m, n - m);
}

enum { RECDBL, BINOMIAL, HALVING, LEFT, RIGHT };

static int pof2(int p)
{
    int q = 1;
    while (q * 2 <= p) q *= 2;
    return q;
}
static int bitrev(int j, int n)
{
    int r = 0;
    for (int b = 1; b < n; b <<= 1) r = (r << 1) | ((j & b) != 0);
    return r;
}

/* The sum of a[0 .. p-1] (rank order) in association `how`. */
#define DEF_EXPECT(NAME, T, TREE)                                                          \
    static T NAME(const T *a, int p, int how, int root)                                    \
    {                                                                                      \
        T u[MAXP], v[MAXP], s;                                                             \
        int q = pof2(p), r = p - q;                                                        \
        switch (how) {                                                                     \
        case BINOMIAL:                                                                     \
            for (int k = 0; k < p; k++) u[k] = a[(k + root) % p];                          \
            return TREE(u, p);                                                             \
        case LEFT:                                                                         \
            s = a[0];                                                                      \
            for (int k = 1; k < p; k++) s = s + a[k];                                      \
            return s;                                                                      \
        case RIGHT:                                                                        \
            s = a[p - 1];                                                                  \
            for (int k = p - 2; k >= 0; k--) s = a[k] + s;                                 \
            return s;                                                                      \
        default:                                                                           \
            for (int j = 0; j < q; j++) u[j] = j < r ? a[2 * j] + a[2 * j + 1] : a[j + r]; \
            if (how == RECDBL) return TREE(u, q);                                          \
            for (int j = 0; j < q; j++) v[j] = u[bitrev(j, q)];                            \
            return TREE(v, q);                                                             \
        }                                                                                  \
    }
DEF_EXPECT(expect_d, double, tree_d)
DEF_EXPECT(expect_f, float, tree_f)

/* Expected element k of vector seed in association how (doubles, floats). */
static double want_d(int seed, long k, int how, int root)
{
    double a[MAXP];
    for (int r = 0; r < size; r++) a[r] = val(seed, r, k);
    return expect_d(a, size, how, root);
}
static float want_f(int seed, long k, int how, int root)
{
    float a[MAXP];
    for (int r = 0; r < size; r++) a[r] = (float)val(seed, r, k);
    return expect_f(a, size, how, root);
}

static void check_d(const char *what, int seed, long n, long first, const double *got, int how,
                    int root)
{
    for (long k = 0; k < n; k++) {
        double w = want_d(seed, first + k, how, root);
        if (memcmp(&w, &got[k], sizeof w)) {
            CHECK(0, "%s of %ld doubles (vector %d, root %d), element %ld: %a (%.17g), want %a "
                  "(%.17g)", what, n, seed, root, first + k, got[k], got[k], w, w);
            return;
        }
    }
}

static void fill_d(double *buf, int seed, long n, long first)
{
    for (long k = 0; k < n; k++) buf[k] = val(seed, rank, first + k);
}

/* The association that MPICH's Reduce of n bytes takes. */
static int reduce_how(long bytes)
{
    return bytes <= SHORT_BYTES ? BINOMIAL : RECDBL;
}

static void allreduce(int seed, long n, int in_place, int nonblocking)
{
    double *in = mt_malloc(n * sizeof *in), *out = mt_malloc(n * sizeof *out);
    fill_d(in_place ? out : in, seed, n, 0);
    const void *s = in_place ? MPI_IN_PLACE : in;
    if (nonblocking) {
        MPI_Request req;
        CHECK_MPI(MPI_Iallreduce(s, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Allreduce(s, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    }
    check_d(nonblocking ? "MPI_Iallreduce" : in_place ? "MPI_Allreduce (in place)" : "MPI_Allreduce",
            seed, n, 0, out, RECDBL, 0);
    free(in);
    free(out);
}

static void allreduce_float(int seed, long n)
{
    float *in = mt_malloc(n * sizeof *in), *out = mt_malloc(n * sizeof *out);
    for (long k = 0; k < n; k++) in[k] = (float)val(seed, rank, k);
    CHECK_MPI(MPI_Allreduce(in, out, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD));
    for (long k = 0; k < n; k++) {
        float w = want_f(seed, k, RECDBL, 0);
        if (memcmp(&w, &out[k], sizeof w)) {
            CHECK(0, "MPI_Allreduce of %ld floats (vector %d), element %ld: %a, want %a", n, seed,
                  k, (double)out[k], (double)w);
            break;
        }
    }
    free(in);
    free(out);
}

static void reduce(int seed, long n, int root, int in_place)
{
    double *in = mt_malloc(n * sizeof *in), *out = mt_malloc(n * sizeof *out);
    int ip = in_place && rank == root;
    fill_d(ip ? out : in, seed, n, 0);
    CHECK_MPI(MPI_Reduce(ip ? MPI_IN_PLACE : in, out, (int)n, MPI_DOUBLE, MPI_SUM, root,
                         MPI_COMM_WORLD));
    if (rank == root)
        check_d(in_place ? "MPI_Reduce (in place)" : "MPI_Reduce", seed, n, 0, out,
                reduce_how(n * (long)sizeof(double)), root);
    free(in);
    free(out);
}

static void reduce_scatter_block(int seed, long per)
{
    long n = per * size;
    double *in = mt_malloc(n * sizeof *in), *out = mt_malloc(per * sizeof *out);
    fill_d(in, seed, n, 0);
    CHECK_MPI(MPI_Reduce_scatter_block(in, out, (int)per, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    check_d("MPI_Reduce_scatter_block", seed, per, per * rank, out, HALVING, 0);
    free(in);
    free(out);
}

/* Do the data tell the associations apart?  (Only the pattern and random
 * vectors at 3+ ranks; at 2 there is one association.) */
static void power(void)
{
    if (size < 3) return;
    int differ_right = 0, differ_left = 0;
    for (int seed = 0; seed < 4; seed++) {
        for (long k = 0; k < 64; k++) {
            double w = want_d(seed, k, RECDBL, 0);
            double l = want_d(seed, k, LEFT, 0), r = want_d(seed, k, RIGHT, 0);
            differ_right |= memcmp(&w, &r, sizeof w) != 0;
            differ_left |= memcmp(&w, &l, sizeof w) != 0;
        }
    }
    CHECK(differ_right, "the data do not tell recursive doubling from a right-to-left fold");
    if (size >= 4) CHECK(differ_left, "the data do not tell recursive doubling from a left fold");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > MAXP) {
        if (rank == 0) printf("coll_rorder: at most %d ranks\n", MAXP);
        MPI_Finalize();
        return 0;
    }
    power();
    /* 1 double (HPCG's and miniFE's dot products), a cache line, 2048 bytes
     * (MPICH's short limit), just above it, and 1024 doubles */
    static const long counts[] = { 1, 8, 256, 300, 1024 };
    for (int seed = 0; seed < 4; seed++) {
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            long n = counts[c];
            allreduce(seed, n, 0, 0);
            allreduce(seed, n, 1, 0);
            allreduce(seed, n, 0, 1);
            for (int root = 0; root < size; root++) reduce(seed, n, root, IN_PLACE_OK(n) && (root & 1));
        }
        allreduce_float(seed, 1);
        allreduce_float(seed, 37);
        reduce_scatter_block(seed, 1);
        reduce_scatter_block(seed, 16);
    }
    return mt_finish("coll_rorder") ? (MPI_Finalize(), 1) : (MPI_Finalize(), 0);
}
