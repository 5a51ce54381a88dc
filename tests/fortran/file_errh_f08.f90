! SPDX-License-Identifier: MIT
! `use mpi_f08`: MPI_File_create_errhandler with a Fortran procedure taking
! TYPE(MPI_File) (one INTEGER, the Fortran handle) and the error code.  The
! handler set on a file is called with that file and the code by
! MPI_File_call_errhandler, and with MPI_ERR_ACCESS's class for a read of a
! write-only file.
module file_errh_state
  use mpi_f08
  implicit none
  integer :: ncalls = 0, lastcode = -1
  type(MPI_File) :: lastfh
contains
  subroutine handler(fh, code)
    type(MPI_File) :: fh
    integer :: code
    ncalls = ncalls + 1
    lastfh = fh
    lastcode = code
  end subroutine handler
end module file_errh_state

program file_errh_f08
  use mpi_f08
  use file_errh_state
  implicit none
  type(MPI_Errhandler) :: eh
  type(MPI_File) :: fh
  type(MPI_Status) :: status
  integer :: rank, errs, cls, ierr, buf(4)
  character(len=64) :: fname

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  write (fname, '(a,i0,a)') 'file_errh_f08_', rank, '.tmp'
  call MPI_File_create_errhandler(handler, eh)
  call MPI_File_open(MPI_COMM_SELF, fname, MPI_MODE_WRONLY + MPI_MODE_CREATE + &
                     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh)
  call MPI_File_set_errhandler(fh, eh)
  call MPI_File_call_errhandler(fh, MPI_ERR_OTHER)
  if (ncalls /= 1 .or. lastfh /= fh .or. lastcode /= MPI_ERR_OTHER) call bad('call_errhandler')
  call MPI_File_read(fh, buf, 4, MPI_INTEGER, status, ierr)
  call MPI_Error_class(lastcode, cls)
  if (ncalls /= 2 .or. lastfh /= fh .or. cls /= MPI_ERR_ACCESS .or. ierr /= lastcode) &
    call bad('read of a write-only file')
  call MPI_File_close(fh)
  call MPI_Errhandler_free(eh)
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. errs == 0) print '(a)', 'PASS'
  call MPI_Finalize()
contains
  subroutine bad(what)
    character(len=*), intent(in) :: what
    print '(a,i0,2a,2(1x,i0))', 'FAIL: rank ', rank, ': ', what, ncalls, lastcode
    errs = errs + 1
  end subroutine bad
end program file_errh_f08
