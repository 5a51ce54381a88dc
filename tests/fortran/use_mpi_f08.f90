! SPDX-License-Identifier: MIT
! `use mpi_f08`: handle types and their ==, TYPE(MPI_Status), optional
! ierror, MPI_STATUS_IGNORE, MPI_IN_PLACE, MPI_Sizeof, string and logical
! arguments, an error code returned through ierror, Fortran type reductions,
! large-count (MPI_COUNT_KIND) overloads, MPI_Type_get_envelope_c and
! MPI_Type_get_contents_c.
program use_mpi_f08_test
  use mpi_f08
  implicit none
  integer :: rank, np, nerr, ierr, n, i, cls, rlen
  type(MPI_Comm) :: dup
  type(MPI_Status) :: st
  type(MPI_Request) :: req(2)
  type(MPI_Datatype) :: t
  integer :: buf(8), v(3)
  real(kind=8) :: x(2)
  integer(kind=8) :: big
  integer(kind=MPI_COUNT_KIND) :: c8
  integer(kind=MPI_ADDRESS_KIND) :: lb, ext, aints(1)
  integer(kind=MPI_COUNT_KIND) :: ni, na, nc, nd, counts(3)
  integer :: ints(3)
  type(MPI_Datatype) :: types(1)
  logical :: flag, lv
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: msg

  nerr = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (ierr /= MPI_SUCCESS) call bad('ierror present')
  call MPI_Sizeof(x, n); if (n /= 8) call bad('sizeof')
  call MPI_Sizeof(big, n); if (n /= 8) call bad('sizeof int8')
  ! p2p with TYPE(MPI_Status)
  if (rank == 0) then
    buf = [(i, i = 1, 8)]
    call MPI_Send(buf, 5, MPI_INTEGER, 1, 17, MPI_COMM_WORLD)
    call MPI_Ssend(buf(6), 3, MPI_INTEGER, 1, 18, MPI_COMM_WORLD)
  else if (rank == 1) then
    call MPI_Recv(buf, 8, MPI_INTEGER, 0, MPI_ANY_TAG, MPI_COMM_WORLD, st)
    if (st%MPI_SOURCE /= 0 .or. st%MPI_TAG /= 17) call bad('status fields')
    call MPI_Get_count(st, MPI_INTEGER, n)
    if (n /= 5 .or. buf(5) /= 5) call bad('get_count')
    call MPI_Recv(buf, 8, MPI_INTEGER, 0, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    if (buf(3) /= 8) call bad('status_ignore recv')
  end if
  ! nonblocking with request handles; Waitall with STATUSES_IGNORE
  call MPI_Irecv(v(1), 1, MPI_INTEGER, mod(rank + np - 1, np), 2, MPI_COMM_WORLD, req(1))
  call MPI_Isend(rank, 1, MPI_INTEGER, mod(rank + 1, np), 2, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  if (v(1) /= mod(rank + np - 1, np)) call bad('ring')
  if (req(1) /= MPI_REQUEST_NULL .or. .not. (req(2) == MPI_REQUEST_NULL)) call bad('request null')
  ! collectives with MPI_IN_PLACE and Fortran types
  v = [rank, 1, 2 * rank]
  call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  if (v(1) /= np - 1 .or. v(3) /= 2 * (np - 1)) call bad('allreduce in place')
  x = [1d0 * rank, 2d0]
  call MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_REAL8, MPI_SUM, MPI_COMM_WORLD)
  if (x(1) /= np * (np - 1) / 2d0 .or. x(2) /= 2d0 * np) call bad('real8 sum')
  big = 2_8**40 + rank
  call MPI_Allreduce(MPI_IN_PLACE, big, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD)
  if (big /= 2_8**40 + np - 1) call bad('integer8 max')
  lv = rank == 0
  call MPI_Allreduce(MPI_IN_PLACE, lv, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD)
  if (.not. lv) call bad('logical lxor')
  ! handles and names
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  if (dup == MPI_COMM_WORLD .or. dup == MPI_COMM_NULL) call bad('dup handle')
  call MPI_Comm_set_name(dup, 'f08 dup')
  call MPI_Comm_get_name(dup, name, rlen)
  if (name /= 'f08 dup' .or. rlen /= 7) call bad('comm name')
  call MPI_Comm_free(dup)
  if (dup /= MPI_COMM_NULL) call bad('comm_free')
  call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, t)
  call MPI_Type_commit(t)
  call MPI_Type_size(t, n)
  if (n /= 16) call bad('contiguous size')
  call MPI_Type_free(t)
  ! large-count forms through the same generic names
  c8 = 3
  v = rank
  call MPI_Bcast(v, c8, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (any(v /= 0)) call bad('bcast with a count of MPI_COUNT_KIND')
  call MPI_Type_size(MPI_DOUBLE_COMPLEX, c8)
  if (c8 /= 16) call bad('type_size_c')
  call MPI_Type_get_extent(MPI_INTEGER, lb, ext)
  if (lb /= 0 .or. ext /= 4) call bad('type_get_extent')
  ! MPI_Type_get_envelope_c / _contents_c: an int-constructed vector reports
  ! its ints in num_integers and no large counts ...
  call MPI_Type_vector(2, 1, 3, MPI_INTEGER, t)
  call MPI_Type_get_envelope(t, ni, na, nc, nd, cls)
  if (cls /= MPI_COMBINER_VECTOR .or. ni /= 3 .or. na /= 0 .or. nc /= 0 .or. nd /= 1) &
    call bad('type_get_envelope_c of a vector')
  ints = -1; counts = -1
  call MPI_Type_get_contents(t, 3_MPI_COUNT_KIND, 1_MPI_COUNT_KIND, 3_MPI_COUNT_KIND, &
                             1_MPI_COUNT_KIND, ints, aints, counts, types, ierr)
  if (ierr /= MPI_SUCCESS .or. any(ints /= [2, 1, 3]) .or. any(counts /= -1) .or. &
      types(1) /= MPI_INTEGER) call bad('type_get_contents_c of a vector')
  call MPI_Type_free(t)
  ! ... a large-count vector its counts in num_large_counts
  c8 = 5
  call MPI_Type_vector(c8, 2_MPI_COUNT_KIND, 4_MPI_COUNT_KIND, MPI_INTEGER, t)
  call MPI_Type_get_envelope(t, ni, na, nc, nd, cls)
  if (cls /= MPI_COMBINER_VECTOR .or. ni /= 0 .or. na /= 0 .or. nc /= 3 .or. nd /= 1) &
    call bad('type_get_envelope_c of a large-count vector')
  ints = -1; counts = -1
  call MPI_Type_get_contents(t, ni, na, nc, nd, ints, aints, counts, types)
  if (any(counts /= [5, 2, 4]) .or. ints(1) /= -1 .or. types(1) /= MPI_INTEGER) &
    call bad('type_get_contents_c of a large-count vector')
  call MPI_Type_free(t)
  call MPI_Initialized(flag)
  if (.not. flag) call bad('initialized')
  ! an error returned through ierror
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(buf, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  if (ierr == MPI_SUCCESS .or. cls /= MPI_ERR_COUNT) call bad('error count')
  call MPI_Error_string(ierr, msg, rlen)
  if (rlen <= 0 .or. len_trim(msg) /= rlen) call bad('error string')
  if (MPI_Wtime() <= 0d0) call bad('wtime')
  call MPI_Allreduce(MPI_IN_PLACE, nerr, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. nerr == 0) print '(a)', 'PASS'
  call MPI_Finalize()
contains
  subroutine bad(what)
    character(len=*), intent(in) :: what
    print *, 'FAIL: ', what
    nerr = nerr + 1
  end subroutine bad
end program use_mpi_f08_test
