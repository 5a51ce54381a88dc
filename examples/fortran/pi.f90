! SPDX-License-Identifier: MIT
! pi by the midpoint rule on 128000 intervals, each rank summing its share,
! the partial sums combined with MPI_REDUCE (the seed's pi program, in Fortran).
program pi_mpi
  use mpi
  implicit none
  integer, parameter :: intervals = 128000
  integer :: numprocs, rank, ierr, i, iglob, intloc
  double precision :: n_1, x, pi, piloc

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, numprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  print '(a,i0)', 'Hello from MPI task= ', rank
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0)', 'Number of MPI tasks = ', numprocs
  intloc = intervals / numprocs
  piloc = 0.0d0
  n_1 = 1.0d0 / dble(intervals)
  do i = 1, intloc
     iglob = intloc * rank + i
     x = n_1 * (dble(iglob) - 0.5d0)   ! the midpoint of interval iglob
     piloc = piloc + 4.0d0 / (1.0d0 + x * x)
  end do
  call MPI_Reduce(piloc, pi, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,f14.12)', 'Pi = ', pi * n_1
  call MPI_Finalize(ierr)
end program pi_mpi
