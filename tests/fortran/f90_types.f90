! SPDX-License-Identifier: MIT
! `use mpi`: the Fortran 90 parameterised types.  MPI_TYPE_CREATE_F90_INTEGER,
! _REAL and _COMPLEX give, for the kinds selected_int_kind / selected_real_kind
! pick, a type of that kind's size, the same handle for the same arguments,
! the F90 combiner with the arguments as contents; variables of those kinds
! travel round the ring and reduce with it.  MPI_TYPE_MATCH_SIZE answers for
! the storage sizes of default REAL and DOUBLE PRECISION.
program f90_types
  use mpi
  implicit none
  integer, parameter :: ik = selected_int_kind(15)
  integer, parameter :: rk = selected_real_kind(15, 300)
  integer, parameter :: ck = selected_real_kind(6)
  integer :: rank, nprocs, ierr, nerr, next, prev, i
  integer :: tint, tint2, treal, tcplx, tm, sz, ni, na, nd, comb
  integer :: ints(2), dts(1), st(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: adds(1)
  integer(kind=ik) :: iv(3), is(3)
  real(kind=rk) :: rv(2), rs(2)
  complex(kind=ck) :: cv, cs
  real :: r4
  double precision :: r8

  nerr = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)

  ! an 8-byte integer kind
  call MPI_Type_create_f90_integer(15, tint, ierr)
  call MPI_Type_create_f90_integer(15, tint2, ierr)
  if (ierr /= MPI_SUCCESS .or. tint /= tint2) call bad('f90_integer: not the same handle twice')
  call MPI_Type_size(tint, sz, ierr)
  if (sz /= storage_size(iv(1)) / 8) call bad('f90_integer: size')
  call MPI_Type_get_envelope(tint, ni, na, nd, comb, ierr)
  if (comb /= MPI_COMBINER_F90_INTEGER .or. ni /= 1 .or. na /= 0 .or. nd /= 0) &
       call bad('f90_integer: envelope')
  call MPI_Type_get_contents(tint, 2, 0, 1, ints, adds, dts, ierr)
  if (ints(1) /= 15) call bad('f90_integer: contents')
  iv = (/ int(rank + 1, ik), 2_ik**40, -int(rank, ik) /)
  call MPI_Allreduce(iv, is, 3, tint, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (is(1) /= nprocs * (nprocs + 1) / 2 .or. is(2) /= nprocs * 2_ik**40 .or. &
       is(3) /= -nprocs * (nprocs - 1) / 2) call bad('f90_integer: SUM')
  call MPI_Sendrecv(iv, 3, tint, next, 1, is, 3, tint, prev, 1, MPI_COMM_WORLD, st, ierr)
  if (is(1) /= prev + 1 .or. is(3) /= -prev) call bad('f90_integer: ring')

  ! double precision by precision and range
  call MPI_Type_create_f90_real(15, 300, treal, ierr)
  call MPI_Type_size(treal, sz, ierr)
  if (sz /= storage_size(rv(1)) / 8) call bad('f90_real: size')
  call MPI_Type_get_envelope(treal, ni, na, nd, comb, ierr)
  call MPI_Type_get_contents(treal, 2, 0, 1, ints, adds, dts, ierr)
  if (comb /= MPI_COMBINER_F90_REAL .or. ni /= 2 .or. ints(1) /= 15 .or. ints(2) /= 300) &
       call bad('f90_real: envelope')
  rv = (/ 0.5_rk * (rank + 1), -real(rank, rk) /)
  call MPI_Allreduce(rv, rs, 2, treal, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rs(1) /= 0.25_rk * nprocs * (nprocs + 1) .or. rs(2) /= -0.5_rk * nprocs * (nprocs - 1)) &
       call bad('f90_real: SUM')

  ! single complex by precision only
  call MPI_Type_create_f90_complex(6, MPI_UNDEFINED, tcplx, ierr)
  call MPI_Type_size(tcplx, sz, ierr)
  if (sz /= 2 * storage_size(r4) / 8) call bad('f90_complex: size')
  cv = cmplx(rank + 1, 1, kind=ck)
  call MPI_Allreduce(cv, cs, 1, tcplx, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (real(cs) /= 0.5 * nprocs * (nprocs + 1) .or. aimag(cs) /= nprocs) &
       call bad('f90_complex: SUM')

  ! match_size for the default kinds
  call MPI_Type_match_size(MPI_TYPECLASS_REAL, storage_size(r8) / 8, tm, ierr)
  call MPI_Type_size(tm, sz, ierr)
  if (ierr /= MPI_SUCCESS .or. sz /= 8) call bad('match_size real 8')
  r8 = 1.0d0
  call MPI_Allreduce(MPI_IN_PLACE, r8, 1, tm, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (r8 /= nprocs) call bad('match_size: SUM')
  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, tm, ierr)
  call MPI_Type_size(tm, sz, ierr)
  if (sz /= 4) call bad('match_size integer 4')

  i = nerr
  call MPI_Allreduce(i, nerr, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. nerr == 0) print '(a)', 'PASS'
  call MPI_Finalize(ierr)
contains
  subroutine bad(what)
    character(len=*), intent(in) :: what
    print '(a,i0,2a)', 'FAIL: rank ', rank, ': ', what
    nerr = nerr + 1
  end subroutine bad
end program f90_types
