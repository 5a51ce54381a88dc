// SPDX-License-Identifier: MIT
// The C++ program of the build-system tests: mpi.h from C++, a checked allreduce.
#include <mpi.h>
#include <iostream>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> mine{rank, 2 * rank}, sum(2, -1);
    MPI_Allreduce(mine.data(), sum.data(), 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const int want = size * (size - 1) / 2;
    const bool ok = sum[0] == want && sum[1] == 2 * want;
    std::cout << (ok ? "PASS" : "FAIL") << " cxx rank " << rank << " of " << size << std::endl;
    MPI_Finalize();
    return ok ? 0 : 1;
}
