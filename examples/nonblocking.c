/* SPDX-License-Identifier: MIT */
/* nonblocking: each rank sends a value to the next rank and receives one from
 * the previous (a ring) with MPI_Isend / MPI_Irecv, does some work while the
 * messages move, then completes both with MPI_Waitall. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, out, in = -1;
    MPI_Request req[2];
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    out = 1024 + rank;

    MPI_Irecv(&in, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(&out, 1, MPI_INT, next, 0, MPI_COMM_WORLD, &req[1]);
    double work = 0;
    for (int i = 1; i <= 100000; i++) work += 1.0 / i; /* overlap: compute meanwhile */
    MPI_Waitall(2, req, st);
    printf("rank %d sent %d to rank %d, got %d from rank %d (work %.3f)\n", rank, out, next, in,
           st[0].MPI_SOURCE, work);
    MPI_Finalize();
    return 0;
}
