! SPDX-License-Identifier: MIT
! MPI_ALLREDUCE with MPI_MAX of one pseudo-random integer per rank; the rank
! whose number is the maximum reports it (the seed's IRAND, as a fixed LCG so
! the run is reproducible).
program allreduce
  use mpi_f08
  implicit none
  integer :: myid, numprocs, imaxloc, imax, i
  integer(kind=8) :: seed

  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, numprocs)
  call MPI_Comm_rank(MPI_COMM_WORLD, myid)
  seed = 12345 + 7919 * myid
  do i = 1, 3
     seed = mod(1103515245_8 * seed + 12345_8, 2147483648_8)
  end do
  imaxloc = int(mod(seed, 1000000_8))
  call MPI_Allreduce(imaxloc, imax, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  if (imax == imaxloc) write (*, '(a,i0,a,i0)') 'Max= ', imax, ' on task ', myid
  call MPI_Finalize()
end program allreduce
