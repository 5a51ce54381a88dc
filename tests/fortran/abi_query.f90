! SPDX-License-Identifier: MIT
! use mpi: MPI 5.0's ABI queries from Fortran (src/core/abi.c).  Courier is
! the MPICH ABI, so MPI_ABI_GET_VERSION gives -1 -1; MPI_ABI_GET_INFO and
! MPI_ABI_GET_FORTRAN_INFO describe this very compiler's types (the sizes
! are checked against storage_size); MPI_ABI_GET_FORTRAN_BOOLEANS writes the
! default LOGICAL's own .TRUE. and .FALSE. (the mpi module declares them
! LOGICAL; other sizes are tested from C, mpi.env_abi), and the setters
! answer MPI_ERR_ABI (the class of the code they return).  Any number of ranks; PASS on rank 0.
program abi_query
  use mpi
  implicit none
  integer :: ierr, rank, major, minor, info, nerr, n
  logical :: lt, lf, is_set, flag
  character(len=MPI_MAX_INFO_VAL) :: val
  integer :: ival
  real :: r
  double precision :: d
  nerr = 0
  call MPI_ABI_GET_VERSION(major, minor, ierr)
  if (ierr /= MPI_SUCCESS .or. major /= -1 .or. minor /= -1) call fail('version before init')
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  call MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)

  call MPI_ABI_GET_INFO(info, ierr)
  if (ierr /= MPI_SUCCESS .or. info == MPI_INFO_NULL) call fail('get_info')
  call MPI_INFO_GET(info, 'mpi_aint_size', MPI_MAX_INFO_VAL, val, flag, ierr)
  read (val, *) n
  if (.not. flag .or. n /= MPI_ADDRESS_KIND) call fail('mpi_aint_size')
  call MPI_INFO_GET(info, 'mpi_offset_size', MPI_MAX_INFO_VAL, val, flag, ierr)
  read (val, *) n
  if (.not. flag .or. n /= MPI_OFFSET_KIND) call fail('mpi_offset_size')
  call MPI_INFO_FREE(info, ierr)

  call MPI_ABI_GET_FORTRAN_INFO(info, ierr)
  if (ierr /= MPI_SUCCESS .or. info == MPI_INFO_NULL) call fail('get_fortran_info')
  call MPI_INFO_GET(info, 'mpi_integer_size', MPI_MAX_INFO_VAL, val, flag, ierr)
  read (val, *) n
  if (.not. flag .or. n /= storage_size(ival) / 8) call fail('mpi_integer_size')
  call MPI_INFO_GET(info, 'mpi_logical_size', MPI_MAX_INFO_VAL, val, flag, ierr)
  read (val, *) n
  if (.not. flag .or. n /= storage_size(lt) / 8) call fail('mpi_logical_size')
  call MPI_INFO_GET(info, 'mpi_real_size', MPI_MAX_INFO_VAL, val, flag, ierr)
  read (val, *) n
  if (.not. flag .or. n /= storage_size(r) / 8) call fail('mpi_real_size')
  call MPI_INFO_GET(info, 'mpi_double_precision_size', MPI_MAX_INFO_VAL, val, flag, ierr)
  read (val, *) n
  if (.not. flag .or. n /= storage_size(d) / 8) call fail('mpi_double_precision_size')
  call MPI_INFO_GET(info, 'mpi_integer8_supported', MPI_MAX_INFO_VAL, val, flag, ierr)
  if (.not. flag .or. val /= 'true') call fail('mpi_integer8_supported')
  call MPI_ABI_SET_FORTRAN_INFO(info, ierr)
  call MPI_ERROR_CLASS(ierr, n, ival)
  if (n /= MPI_ERR_ABI) call fail('set_fortran_info is not MPI_ERR_ABI')
  call MPI_INFO_FREE(info, ierr)

  lt = .false.
  lf = .true.
  call MPI_ABI_GET_FORTRAN_BOOLEANS(storage_size(lt) / 8, lt, lf, is_set, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. lt .or. lf .or. .not. is_set) call fail('booleans')
  if (lt .neqv. .true.) call fail('.TRUE. is not this compiler''s')
  call MPI_ABI_SET_FORTRAN_BOOLEANS(storage_size(lt) / 8, lt, lf, ierr)
  call MPI_ERROR_CLASS(ierr, n, ival)
  if (n /= MPI_ERR_ABI) call fail('set_fortran_booleans is not MPI_ERR_ABI')
  call MPI_ABI_GET_FORTRAN_BOOLEANS(3, lt, lf, is_set, ierr)
  call MPI_ERROR_CLASS(ierr, n, ival)
  if (n /= MPI_ERR_ARG) call fail('logical_size 3 is not MPI_ERR_ARG')

  call MPI_ALLREDUCE(MPI_IN_PLACE, nerr, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. nerr == 0) print '(A)', ' PASS'
  call MPI_FINALIZE(ierr)
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    nerr = nerr + 1
    print *, 'FAIL: ', what
  end subroutine fail
end program abi_query
