! Coarray Fortran through OpenCoarrays (MPICH-built) on Courier: remote puts
! and gets, strided sections, collectives, atomics, locks, critical and
! sync images; every value is checked and image 1 prints PASS.
program caf_check
  use, intrinsic :: iso_fortran_env, only: atomic_int_kind, lock_type
  implicit none
  integer, parameter :: n = 1000
  integer :: a(n)[*], b(n)[*], me, np, i, right, left, errs
  integer :: counter[*]
  integer(atomic_int_kind) :: hits[*]
  type(lock_type) :: lck[*]
  real(8) :: x, total
  integer :: s

  me = this_image(); np = num_images(); errs = 0
  right = merge(1, me + 1, me == np); left = merge(np, me - 1, me == 1)
  a = [(me * 100000 + i, i = 1, n)]
  b = -1
  counter = 0
  hits = 0
  sync all

  ! put my array into my right neighbour's b, then check what my left put
  b(:)[right] = a
  sync all
  do i = 1, n
    if (b(i) /= left * 100000 + i) errs = errs + 1
  end do

  ! get every other element of my right neighbour's a (strided get)
  b = 0
  b(1:n:2) = a(1:n:2)[right]
  do i = 1, n, 2
    if (b(i) /= right * 100000 + i) errs = errs + 1
  end do
  sync all

  ! collectives
  x = real(me, 8)
  total = x
  call co_sum(total)
  if (total /= real(np * (np + 1) / 2, 8)) errs = errs + 1
  s = me
  call co_max(s)
  if (s /= np) errs = errs + 1
  s = me * 7
  call co_broadcast(s, source_image = np)
  if (s /= np * 7) errs = errs + 1

  ! atomics: every image adds 1 to image 1's counter 50 times
  do i = 1, 50
    call atomic_add(hits[1], 1)
  end do
  sync all
  if (me == 1) then
    call atomic_ref(s, hits[1])
    if (s /= 50 * np) errs = errs + 1
  end if

  ! a lock on image 1 guards a read-modify-write of image 1's counter
  do i = 1, 20
    lock (lck[1])
    counter[1] = counter[1] + 1
    unlock (lck[1])
  end do
  ! critical does the same for image np's counter
  do i = 1, 20
    critical
      counter[np] = counter[np] + 2
    end critical
  end do
  sync all
  if (me == 1 .and. np > 1 .and. counter /= 20 * np) errs = errs + 1
  if (me == np .and. np > 1 .and. counter /= 40 * np) errs = errs + 1
  if (np == 1 .and. counter /= 60) errs = errs + 1

  ! sync images with the neighbours only
  if (np > 1) then
    a(1)[right] = -me
    if (left == right) then
      sync images (left)
    else
      sync images ([left, right])
    end if
    if (a(1) /= -left) errs = errs + 1
  end if

  call co_sum(errs)
  if (me == 1) then
    if (errs == 0) then
      print '(a,i0,a)', 'PASS caf_check (', np, ' images)'
    else
      print '(a,i0,a)', 'FAIL caf_check: ', errs, ' wrong values'
    end if
  end if
end program
