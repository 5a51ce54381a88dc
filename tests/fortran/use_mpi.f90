! SPDX-License-Identifier: MIT
! `use mpi`: explicit interfaces, MPI_Sizeof, Reduce with MPI_IN_PLACE at the
! root, Type_create_struct with MPI_ADDRESS_KIND displacements, Comm_split /
! Comm_dup / Comm_compare, Op_create with a Fortran user function, Waitsome's
! 1-based indices, Type_get_name, logical Comm_test_inter.
module user_ops
contains
  subroutine absmax(invec, inoutvec, len, datatype)
    integer :: len, datatype
    integer :: invec(len), inoutvec(len)
    integer :: i
    do i = 1, len
      inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
    end do
  end subroutine absmax
end module user_ops

program use_mpi_test
  use mpi
  use user_ops
  implicit none
  integer :: ierr, rank, np, nerr, sz, i, cnt, half, dup, res, newt, op, outcount
  integer :: r(3), idx(2), req(2), vals(2)
  integer :: st(MPI_STATUS_SIZE, 2)
  integer(kind=MPI_ADDRESS_KIND) :: disp(2), base
  integer :: blens(2), types(2)
  double precision :: d(5), dsum(5)
  real(kind=8) :: r8
  complex(kind=8) :: z
  integer(kind=2) :: i2
  logical :: lg, inter
  character(len=MPI_MAX_OBJECT_NAME) :: tname
  type pair
    sequence
    integer :: i
    double precision :: x
  end type pair
  type(pair) :: p(2)

  nerr = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  call MPI_Sizeof(r8, sz, ierr);   if (sz /= 8) call bad('sizeof real8')
  call MPI_Sizeof(z, sz, ierr);    if (sz /= 16) call bad('sizeof complex8')
  call MPI_Sizeof(i2, sz, ierr);   if (sz /= 2) call bad('sizeof int2')
  call MPI_Sizeof(d, sz, ierr);    if (sz /= 8) call bad('sizeof array')
  call MPI_Sizeof(lg, sz, ierr);   if (sz /= 4) call bad('sizeof logical')
  call MPI_Sizeof(rank, sz, ierr); if (sz /= 4) call bad('sizeof integer')
  ! reduce in place at the root
  d = rank + 0.25d0
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, d, 5, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    if (abs(d(3) - (np * (np - 1) / 2 + 0.25d0 * np)) > 1d-12) call bad('reduce in place')
  else
    call MPI_Reduce(d, dsum, 5, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  end if
  ! a struct type from MPI_Get_address displacements
  call MPI_Get_address(p(1)%i, base, ierr)
  call MPI_Get_address(p(1)%x, disp(2), ierr)
  disp(1) = 0
  disp(2) = disp(2) - base
  blens = 1
  types(1) = MPI_INTEGER
  types(2) = MPI_DOUBLE_PRECISION
  call MPI_Type_create_struct(2, blens, disp, types, newt, ierr)
  call MPI_Type_commit(newt, ierr)
  call MPI_Type_size(newt, sz, ierr)
  if (sz /= 12) call bad('struct size')
  if (rank == 0) then
    p(1) = pair(7, 2.5d0)
    p(2) = pair(-1, -1d0)
  end if
  call MPI_Bcast(p, 1, newt, 0, MPI_COMM_WORLD, ierr)
  if (p(1)%i /= 7 .or. p(1)%x /= 2.5d0) call bad('bcast struct')
  call MPI_Type_free(newt, ierr)
  ! communicators
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
  call MPI_Comm_size(half, sz, ierr)
  if (sz /= (np + 1 - mod(rank, 2)) / 2) call bad('split size')
  call MPI_Comm_rank(half, i, ierr)
  if (i /= sz - 1 - rank / 2) call bad('split key order')
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_compare(dup, MPI_COMM_WORLD, res, ierr)
  if (res /= MPI_CONGRUENT) call bad('compare dup')
  call MPI_Comm_test_inter(dup, inter, ierr)
  if (inter) call bad('test_inter')
  call MPI_Comm_free(dup, ierr)
  if (dup /= MPI_COMM_NULL) call bad('comm_free')
  call MPI_Comm_free(half, ierr)
  ! a user-defined reduction written in Fortran
  call MPI_Op_create(absmax, .true., op, ierr)
  vals(1) = -(rank + 1) * 3
  vals(2) = rank
  call MPI_Allreduce(vals, r, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  if (r(1) /= 3 * np .or. r(2) /= np - 1) call bad('user op')
  call MPI_Op_free(op, ierr)
  ! Waitsome: indices are 1-based in Fortran
  call MPI_Irecv(vals(1), 1, MPI_INTEGER, mod(rank + np - 1, np), 1, MPI_COMM_WORLD, req(1), ierr)
  call MPI_Isend(rank, 1, MPI_INTEGER, mod(rank + 1, np), 1, MPI_COMM_WORLD, req(2), ierr)
  cnt = 0
  do while (cnt < 2)
    call MPI_Waitsome(2, req, outcount, idx, st, ierr)
    do i = 1, outcount
      if (idx(i) < 1 .or. idx(i) > 2) call bad('waitsome index')
      if (idx(i) == 1 .and. st(MPI_SOURCE, i) /= mod(rank + np - 1, np)) call bad('waitsome status')
    end do
    cnt = cnt + outcount
  end do
  call MPI_Type_get_name(MPI_DOUBLE_PRECISION, tname, sz, ierr)
  if (tname /= 'MPI_DOUBLE_PRECISION' .or. sz /= 20) call bad('type name '//trim(tname))
  call MPI_Allreduce(MPI_IN_PLACE, nerr, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. nerr == 0) print '(a)', 'PASS'
  call MPI_Finalize(ierr)
contains
  subroutine bad(what)
    character(len=*), intent(in) :: what
    print *, 'FAIL: ', what
    nerr = nerr + 1
  end subroutine bad
end program use_mpi_test
