! SPDX-License-Identifier: MIT
! The Fortran program of the build-system tests: use mpi, a checked allreduce.
program hello
    use mpi
    implicit none
    integer :: ierr, rank, nprocs, total
    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (total == nprocs * (nprocs - 1) / 2) then
        write (*, '(a,i0,a,i0)') 'PASS fortran rank ', rank, ' of ', nprocs
    else
        write (*, '(a,i0,a,i0)') 'FAIL fortran rank ', rank, ' of ', nprocs
    end if
    call MPI_Finalize(ierr)
end program hello
