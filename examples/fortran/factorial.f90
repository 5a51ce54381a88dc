! SPDX-License-Identifier: MIT
! N! as an MPI_REDUCE with MPI_PROD of (rank+1) over N ranks (8! = 40320 on 8).
program factorial
  include 'mpif.h'
  integer :: myid, numprocs, ierr, myidp1, ifactorial
  integer, parameter :: root = 0

  call MPI_INIT(ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, numprocs, ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, myid, ierr)
  myidp1 = myid + 1
  call MPI_REDUCE(myidp1, ifactorial, 1, MPI_INTEGER, MPI_PROD, root, MPI_COMM_WORLD, ierr)
  if (myid == root) write (*, '(i0,a,i0)') numprocs, '! = ', ifactorial
  call MPI_FINALIZE(ierr)
end program factorial
