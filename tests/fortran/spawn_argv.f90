! SPDX-License-Identifier: MIT
! use mpi: MPI_COMM_SPAWN's Fortran argv.  The list ends at the first blank
! string, and each argument reaches the children without the blanks that pad
! it on either side (as MPICH and Open MPI pass them: " lead" arrives as
! "lead", "d e" keeps its inner blank).  The parents spawn two copies of this
! program; each child compares its command-line arguments with the expected
! ones and sends its count of errors to the parents' root, which prints PASS
! when none was found anywhere.
program spawn_argv
  use mpi
  implicit none
  character(len=8), parameter :: inargv(7) = &
       [character(len=8) :: 'a', 'b=c', 'd e', ' lead', 'trail  ', '  both  ', ' ']
  character(len=8), parameter :: expect(6) = &
       [character(len=8) :: 'a', 'b=c', 'd e', 'lead', 'trail', 'both']
  character(len=256) :: self, arg
  integer :: ierr, rank, parent, inter, errs, i, n, got, status(MPI_STATUS_SIZE)
  integer :: codes(2)

  errs = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_GET_PARENT(parent, ierr)
  if (parent == MPI_COMM_NULL) then
     call get_command_argument(0, self)
     call MPI_COMM_SPAWN(trim(self), inargv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &
          inter, codes, ierr)
     if (ierr /= MPI_SUCCESS) then
        print '(a,i0)', 'FAIL: spawn returned ', ierr
        errs = errs + 1
     else
        if (rank == 0) then
           do i = 1, 2
              call MPI_RECV(got, 1, MPI_INTEGER, MPI_ANY_SOURCE, 7, inter, status, ierr)
              errs = errs + got
           end do
        end if
        call MPI_COMM_DISCONNECT(inter, ierr)
     end if
     call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
     if (rank == 0 .and. errs == 0) print '(a)', 'PASS'
  else
     n = command_argument_count()
     if (n /= size(expect)) then
        print '(a,i0,a,i0)', 'FAIL: child got ', n, ' arguments, expected ', size(expect)
        errs = errs + 1
     end if
     do i = 1, min(n, size(expect))
        call get_command_argument(i, arg)
        if (arg /= expect(i) .or. (i == 3 .and. arg(2:2) /= ' ')) then
           print '(a,i0,5a)', 'FAIL: child argument ', i, ': "', trim(arg), '", expected "', &
                trim(expect(i)), '"'
           errs = errs + 1
        end if
        call get_command_argument(i, arg, length=got)
        if (got /= len_trim(expect(i))) then
           print '(a,i0,a,i0)', 'FAIL: child argument ', i, ' has length ', got
           errs = errs + 1
        end if
     end do
     call MPI_SEND(errs, 1, MPI_INTEGER, 0, 7, parent, ierr)
     call MPI_COMM_DISCONNECT(parent, ierr)
  end if
  call MPI_FINALIZE(ierr)
end program spawn_argv
