! SPDX-License-Identifier: MIT
! MPI-IO from `use mpi_f08`: TYPE(MPI_File), MPI_FILE_NULL, open/close,
! a vector filetype view, collective write_at_all, independent read_at of
! the next rank's data, TYPE(MPI_Status) counts, get_size, file errors
! returned through ierror (the default handler is MPI_ERRORS_RETURN), delete.
program io_f08_test
  use mpi_f08
  implicit none
  integer, parameter :: n = 50
  integer :: rank, np, nerr, ierr, i, cnt, nx, isz
  type(MPI_File) :: fh
  type(MPI_Datatype) :: ft, vt
  type(MPI_Status) :: st
  integer :: a(n), b(n)
  integer(kind=MPI_OFFSET_KIND) :: sz, disp
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext

  nerr = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np)
  isz = storage_size(a(1)) / 8
  fh = MPI_FILE_NULL
  call MPI_File_open(MPI_COMM_WORLD, 'courier_io_f08.dat', MPI_MODE_RDWR + MPI_MODE_CREATE, &
                     MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS .or. fh == MPI_FILE_NULL) call bad('open')
  call MPI_File_set_size(fh, 0_MPI_OFFSET_KIND)
  ! integers round robin, one at a time
  call MPI_Type_vector(1, 1, np, MPI_INTEGER, vt)
  lb = 0
  ext = int(np, MPI_ADDRESS_KIND) * isz
  call MPI_Type_create_resized(vt, lb, ext, ft)
  call MPI_Type_commit(ft)
  disp = int(rank, MPI_OFFSET_KIND) * isz
  call MPI_File_set_view(fh, disp, MPI_INTEGER, ft, 'native', MPI_INFO_NULL)
  a = [(rank * 1000 + i, i = 1, n)]
  call MPI_File_write_at_all(fh, 0_MPI_OFFSET_KIND, a, n, MPI_INTEGER, st)
  call MPI_Get_count(st, MPI_INTEGER, cnt)
  if (cnt /= n) call bad('write_at_all count')
  call MPI_File_sync(fh)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_sync(fh)
  call MPI_File_get_size(fh, sz)
  if (sz /= int(n, MPI_OFFSET_KIND) * np * isz) call bad('get_size')
  ! read the next rank's integers through the plain byte view
  nx = mod(rank + 1, np)
  call MPI_File_set_view(fh, 0_MPI_OFFSET_KIND, MPI_BYTE, MPI_BYTE, 'native', MPI_INFO_NULL)
  b = -1
  do i = 1, n
    call MPI_File_read_at(fh, int((i - 1) * np + nx, MPI_OFFSET_KIND) * isz, b(i), 1, MPI_INTEGER, &
                          MPI_STATUS_IGNORE)
  end do
  if (any(b /= [(nx * 1000 + i, i = 1, n)])) call bad('read_at of the next rank')
  ! an error comes back through ierror
  call MPI_File_read_at(fh, -1_MPI_OFFSET_KIND, b, 1, MPI_INTEGER, st, ierr)
  if (ierr == MPI_SUCCESS) call bad('negative offset accepted')
  call MPI_Type_free(ft)
  call MPI_Type_free(vt)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_File_close(fh)
  if (fh /= MPI_FILE_NULL) call bad('close')
  if (rank == 0) then
    call MPI_File_delete('courier_io_f08.dat', MPI_INFO_NULL, ierr)
    if (ierr /= MPI_SUCCESS) call bad('delete')
  end if
  call MPI_Allreduce(MPI_IN_PLACE, nerr, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. nerr == 0) print '(a)', 'PASS'
  call MPI_Finalize()
contains
  subroutine bad(what)
    character(len=*), intent(in) :: what
    print *, 'FAIL: ', what, ' on rank ', rank
    nerr = nerr + 1
  end subroutine bad
end program io_f08_test
