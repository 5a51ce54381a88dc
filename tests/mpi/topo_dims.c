/* SPDX-License-Identifier: MIT */
/* MPI_Dims_create against hand-computed factorisations (balanced, in
 * non-increasing order, given dims kept), and its errors. */
#include "mpitest.h"

static void one(int nnodes, int ndims, const int *given, const int *want)
{
    int dims[8];
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
