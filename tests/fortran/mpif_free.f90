! SPDX-License-Identifier: MIT
! mpif.h included in free-form source: scan, gather with MPI_IN_PLACE at the
! root, Type_vector over a 2-D array, Sendrecv with a status array, Testall.
program mpif_free
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, np, nerr, i, n, req(2), st(MPI_STATUS_SIZE), vec
  integer :: a(4, 3), col(4), got(64), sc
  logical :: flag
  nerr = 0
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, np, ierr)
  call MPI_SCAN(rank + 1, sc, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (sc /= (rank + 1) * (rank + 2) / 2) call bad('scan')
  got = -1
  got(rank + 1) = 10 * rank
  if (rank == 0) then
    call MPI_GATHER(MPI_IN_PLACE, 1, MPI_INTEGER, got, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    do i = 1, np
      if (got(i) /= 10 * (i - 1)) call bad('gather in place')
    end do
  else
    call MPI_GATHER(got(rank + 1), 1, MPI_INTEGER, got, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  end if
  ! one row of a 4x3 column-major array: 3 elements with stride 4
  do i = 1, 12
    a(mod(i - 1, 4) + 1, (i - 1) / 4 + 1) = i + 100 * rank
  end do
  call MPI_TYPE_VECTOR(3, 1, 4, MPI_INTEGER, vec, ierr)
  call MPI_TYPE_COMMIT(vec, ierr)
  call MPI_SENDRECV(a(2, 1), 1, vec, mod(rank + 1, np), 9, col, 3, MPI_INTEGER, &
                    mod(rank + np - 1, np), 9, MPI_COMM_WORLD, st, ierr)
  call MPI_GET_COUNT(st, MPI_INTEGER, n, ierr)
  if (n /= 3 .or. st(MPI_SOURCE) /= mod(rank + np - 1, np)) call bad('sendrecv status')
  if (col(1) /= 2 + 100 * mod(rank + np - 1, np) .or. col(3) /= 10 + 100 * mod(rank + np - 1, np)) &
    call bad('vector row')
  call MPI_TYPE_FREE(vec, ierr)
  if (vec /= MPI_DATATYPE_NULL) call bad('type_free')
  call MPI_IRECV(n, 1, MPI_INTEGER, mod(rank + np - 1, np), 3, MPI_COMM_WORLD, req(1), ierr)
  call MPI_ISEND(rank, 1, MPI_INTEGER, mod(rank + 1, np), 3, MPI_COMM_WORLD, req(2), ierr)
  flag = .false.
  do while (.not. flag)
    call MPI_TESTALL(2, req, flag, MPI_STATUSES_IGNORE, ierr)
  end do
  if (n /= mod(rank + np - 1, np)) call bad('testall')
  call MPI_ALLREDUCE(MPI_IN_PLACE, nerr, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. nerr == 0) print '(a)', 'PASS'
  call MPI_FINALIZE(ierr)
contains
  subroutine bad(what)
    character(len=*), intent(in) :: what
    print *, 'FAIL: ', what
    nerr = nerr + 1
  end subroutine bad
end program mpif_free
