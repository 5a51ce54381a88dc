! SPDX-License-Identifier: MIT
! MPI_BCAST of four integers from rank 0; every rank prints what it got
! (the seed prints "processor 1 got 1 2 3 4").
program bcast
  use mpi
  implicit none
  integer, parameter :: count = 4
  integer :: buffer(count), myid, numprocs, ierr, i
  integer, parameter :: source = 0

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, numprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, myid, ierr)
  buffer = 0
  if (myid == source) then
     do i = 1, count
        buffer(i) = i
     end do
  end if
  call MPI_Bcast(buffer, count, MPI_INTEGER, source, MPI_COMM_WORLD, ierr)
  write (*, '(a,i0,a,4(1x,i0))') 'processor ', myid, ' got', buffer
  call MPI_Finalize(ierr)
end program bcast
