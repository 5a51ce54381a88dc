/* SPDX-License-Identifier: MIT */
/* Where the ranks of an MPI job run, for the multi-host start-up test
 * (test_hosts.sh start4): every rank prints "rank R size S host H"; the ranks
 * then allgather their host names and sum their ranks over the network, and
 * rank 0 prints "map H0 H1 ..." and "sum OK" once every value is checked
 * (each rank checks that the sum is size * (size - 1) / 2 and that its own
 * entry of the map is its host). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    printf("rank %d size %d host %s\n", rank, size, host);
    fflush(stdout);
    char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    if (!all) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Allgather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    long sum = 0, mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int bad = sum != (long)size * (size - 1) / 2 || strcmp(all + (size_t)rank * MPI_MAX_PROCESSOR_NAME, host);
    if (bad) printf("UNEXPECTED rank %d: sum %ld, map entry %s\n", rank, sum, all + (size_t)rank * MPI_MAX_PROCESSOR_NAME);
    int anybad = 0;
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("map");
        for (int r = 0; r < size; r++) printf(" %s", all + (size_t)r * MPI_MAX_PROCESSOR_NAME);
        printf("\n%s\n", anybad ? "sum BAD" : "sum OK");
    }
    free(all);
    MPI_Finalize();
    return 0;
}
