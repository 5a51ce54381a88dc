/* SPDX-License-Identifier: MIT */
/* MPI_Dims_create against hand-computed factorisations (balanced, in
 * non-increasing order, given dims kept), and its errors.  Large numbers
 * (up to 2^31 - 1) and 40,000 calls near a million processes must be quick:
 * for two dimensions each answer is checked against the largest divisor at
 * most the square root, for three the product and the order.  (MPICH's
 * topo/dims5 makes 75,000 such calls; a search over every integer below the
 * number took minutes for it, and this test's time limit catches that.) */
#include "mpitest.h"

static void one(int nnodes, int ndims, const int *given, const int *want)
{
    int dims[16];
    for (int i = 0; i < ndims; i++) dims[i] = given ? given[i] : 0;
    CHECK_MPI(MPI_Dims_create(nnodes, ndims, dims));
    for (int i = 0; i < ndims; i++)
        CHECK(dims[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes,
              ndims, i, dims[i], want[i]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    one(6, 2, NULL, (int[]){ 3, 2 });
    one(7, 2, NULL, (int[]){ 7, 1 });
    one(12, 3, NULL, (int[]){ 3, 2, 2 });
    one(16, 3, NULL, (int[]){ 4, 2, 2 });
    one(24, 3, NULL, (int[]){ 4, 3, 2 });
    one(64, 3, NULL, (int[]){ 4, 4, 4 });
    one(36, 2, NULL, (int[]){ 6, 6 });
    one(30, 3, NULL, (int[]){ 5, 3, 2 });
    one(1, 3, NULL, (int[]){ 1, 1, 1 });
    one(90, 2, NULL, (int[]){ 10, 9 });
    one(100, 3, NULL, (int[]){ 5, 5, 4 });
    one(1000, 3, NULL, (int[]){ 10, 10, 10 });
    one(210, 4, NULL, (int[]){ 7, 5, 3, 2 });
    one(48, 4, NULL, (int[]){ 4, 3, 2, 2 });
    one(120, 3, NULL, (int[]){ 6, 5, 4 });
    one(8, 1, NULL, (int[]){ 8 });
    one(5, 4, NULL, (int[]){ 5, 1, 1, 1 });
    /* given dims stay; the rest share what is left */
    one(12, 2, (int[]){ 0, 3 }, (int[]){ 4, 3 });
    one(24, 3, (int[]){ 0, 2, 0 }, (int[]){ 4, 2, 3 });
    one(16, 3, (int[]){ 2, 0, 0 }, (int[]){ 2, 4, 2 });
    one(6, 2, (int[]){ 2, 3 }, (int[]){ 2, 3 });
    one(8, 0, NULL, NULL);
    /* large: a prime near 2^31, powers of two, products of a few primes */
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 divides by zero on 2^31 - 1 (SIGFPE) */
    one(2147483647, 2, NULL, (int[]){ 2147483647, 1 });
    one(2147483647, 3, NULL, (int[]){ 2147483647, 1, 1 });
#endif
    one(1073741824, 2, NULL, (int[]){ 32768, 32768 });
    one(1073741824, 3, NULL, (int[]){ 1024, 1024, 1024 });
    one(999999, 2, NULL, (int[]){ 1001, 999 });          /* 3^3 7 11 13 37 */
    one(1000000, 3, NULL, (int[]){ 100, 100, 100 });
    one(1000000, 6, NULL, (int[]){ 10, 10, 10, 10, 10, 10 });
    one(1000000, 2, (int[]){ 0, 8 }, (int[]){ 125000, 8 });
    one(65536, 16, NULL, (int[]){ 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 });

    /* many calls near a million: two dimensions against the largest divisor
     * up to the square root; three: the product and the order */
    for (int n = 1000000; n < 1020000; n++) {
        int d2[2] = { 0, 0 }, d3[3] = { 0, 0, 0 }, low = 1;
        CHECK_MPI(MPI_Dims_create(n, 2, d2));
        for (int f = 1; (long)f * f <= n; f++)
            if (n % f == 0) low = f;
        CHECK(d2[1] == low && d2[0] == n / low, "Dims_create(%d, 2) = %d x %d, expected %d x %d",
              n, d2[0], d2[1], n / low, low);
        CHECK_MPI(MPI_Dims_create(n, 3, d3));
        CHECK((long)d3[0] * d3[1] * d3[2] == n && d3[0] >= d3[1] && d3[1] >= d3[2] && d3[2] >= 1,
              "Dims_create(%d, 3) = %d x %d x %d", n, d3[0], d3[1], d3[2]);
    }

    /* errors: nnodes not a multiple of the given dims, a negative dim */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int d[2] = { 2, 0 };
    int rc = MPI_Dims_create(7, 2, d);
    CHECK(rc != MPI_SUCCESS, "Dims_create(7, {2,0}) succeeded");
    d[0] = 2;
    d[1] = 2;
    rc = MPI_Dims_create(6, 2, d);
    CHECK(rc != MPI_SUCCESS, "Dims_create(6, {2,2}) succeeded");
    d[0] = -1;
    d[1] = 0;
    rc = MPI_Dims_create(6, 2, d);
    CHECK(rc != MPI_SUCCESS, "Dims_create(6, {-1,0}) succeeded");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int ret = mt_finish("topo_dims");
    MPI_Finalize();
    return ret;
}
