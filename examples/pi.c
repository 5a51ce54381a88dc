/* SPDX-License-Identifier: MIT */
/* pi: integrate 4 / (1 + x^2) over [0, 1] with the midpoint rule.  Each rank
 * sums every size-th interval; MPI_Reduce adds the partial sums on rank 0. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    long n = 1000000;
    const double pi_ref = 3.141592653589793238462643;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) n = atol(argv[1]);

    double t0 = MPI_Wtime();
    double h = 1.0 / (double)n, local = 0.0, pi = 0.0;
    for (long i = rank; i < n; i += size) {
        double x = h * ((double)i + 0.5);
        local += 4.0 / (1.0 + x * x);
    }
    local *= h;
    MPI_Reduce(&local, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    double t1 = MPI_Wtime();

    printf("rank %d: partial sum %.12f\n", rank, local);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        printf("pi is approximately %.12f, error %.3e (%ld intervals, %d ranks, %.4f s)\n", pi,
               fabs(pi - pi_ref), n, size, t1 - t0);
    }
    MPI_Finalize();
    return 0;
}
