! SPDX-License-Identifier: MIT
! `use mpi` with a C helper (attr_lang_c.c): attributes across languages
! (MPI-4.1 19.3.7, Example 19.13).  An attribute Fortran sets with
! MPI_X_SET_ATTR reads in C as a pointer to the MPI_Aint value, one set with
! MPI_ATTR_PUT as a pointer to the int; Fortran reads the values back (MPI_ATTR_PUT's
! sign-extended); an attribute C sets reads in Fortran as the pointer's
! address.  On communicators, datatypes and windows; through duplication
! with Fortran and C copy callbacks; C delete callbacks see the address of
! the value; the predefined attributes read as values in Fortran.
program attr_lang
  use mpi
  implicit none
  integer :: ierr, rank, errs, i, ival
  integer :: fkey, key1, fkey_t, fkey_w, comm2, comm3, t, tdup, tdup2, win
  integer :: ckeys(4), tag_c
  integer(kind=MPI_ADDRESS_KIND) :: val, got, addr, big, zero, winsize, base
  integer :: wbuf(16)
  logical :: flag
  external c_read_comm_aint, c_read_comm_int, c_read_type_aint, c_read_win_aint, c_tag_ub
  external c_set_comm_ptr, c_set_type_ptr, c_set_win_ptr, c_keyvals, c_deleted

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  errs = 0
  zero = 0
  big = huge(big) - 98765_MPI_ADDRESS_KIND      ! uses every byte

  ! ---- communicators, MPI-2 form ----
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, fkey, zero, ierr)
  val = 5555 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, fkey, val, ierr)
  call c_read_comm_aint(MPI_COMM_WORLD, fkey, val, errs)
  call fget(MPI_COMM_WORLD, fkey, val, 'comm 5555')
  val = -big + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, fkey, val, ierr)    ! replaces it
  call c_read_comm_aint(MPI_COMM_WORLD, fkey, val, errs)
  call fget(MPI_COMM_WORLD, fkey, val, 'comm -big')
  ! a Fortran copy callback's copy is a Fortran attribute too
  call MPI_Comm_dup(MPI_COMM_WORLD, comm2, ierr)
  call c_read_comm_aint(comm2, fkey, val, errs)
  call fget(comm2, fkey, val, 'comm dup')

  ! ---- MPI-1 form: INTEGER values ----
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, key1, 0, ierr)
  ival = -123456 - rank
  call MPI_Attr_put(comm2, key1, ival, ierr)
  call c_read_comm_int(comm2, key1, ival, errs)
  call MPI_Attr_get(comm2, key1, i, flag, ierr)
  if (.not. flag .or. i /= ival) call bad('MPI_ATTR_GET of MPI_ATTR_PUT')
  call fget(comm2, key1, int(ival, MPI_ADDRESS_KIND), 'MPI_ATTR_PUT sign-extended')

  ! ---- C sets a pointer: Fortran reads its address ----
  call c_set_comm_ptr(comm2, fkey, addr)
  call fget(comm2, fkey, addr, 'C pointer on comm')

  ! ---- C callbacks on Fortran attributes ----
  call c_keyvals(ckeys)
  val = 777
  call MPI_Comm_set_attr(comm2, ckeys(1), val, ierr)
  val = 888 + rank
  call MPI_Comm_set_attr(comm2, ckeys(2), val, ierr)
  call MPI_Comm_dup(comm2, comm3, ierr)
  ! the C copy callback answered a pointer of its own to 777 + 2: a C attribute
  call c_read_comm_aint(comm3, ckeys(1), 779_MPI_ADDRESS_KIND, errs)
  ! C's MPI_COMM_DUP_FN passes the address it got on: the Fortran value is copied
  call c_read_comm_aint(comm3, ckeys(2), val, errs)
  call fget(comm3, ckeys(2), val, 'C MPI_COMM_DUP_FN copy')
  call MPI_Comm_delete_attr(comm2, ckeys(1), ierr)
  call c_deleted(got)
  if (got /= 777) call bad('C delete callback of a Fortran attribute')
  call MPI_Comm_free(comm3, ierr)
  call c_deleted(got)
  if (got /= 779) call bad('C delete callback of the C copy')

  ! ---- datatypes ----
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, fkey_t, zero, ierr)
  call MPI_Type_contiguous(2, MPI_INTEGER, t, ierr)
  val = big - rank
  call MPI_Type_set_attr(t, fkey_t, val, ierr)
  call c_read_type_aint(t, fkey_t, val, errs)
  call MPI_Type_get_attr(t, fkey_t, got, flag, ierr)
  if (.not. flag .or. got /= val) call bad('type: Fortran get')
  call MPI_Type_dup(t, tdup, ierr)
  call c_read_type_aint(tdup, fkey_t, val, errs)
  val = 31
  call MPI_Type_set_attr(t, ckeys(3), val, ierr)      ! C keyval, C's MPI_TYPE_DUP_FN
  call MPI_Type_dup(t, tdup2, ierr)
  call c_read_type_aint(tdup2, ckeys(3), val, errs)
  call c_set_type_ptr(t, fkey_t, addr)
  call MPI_Type_get_attr(t, fkey_t, got, flag, ierr)
  if (.not. flag .or. got /= addr) call bad('type: C pointer read in Fortran')
  call MPI_Type_free(tdup2, ierr)
  call MPI_Type_free(tdup, ierr)
  call MPI_Type_free(t, ierr)

  ! ---- windows ----
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, fkey_w, zero, ierr)
  winsize = 64
  call MPI_Win_create(wbuf, winsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  val = -(big / 3) - rank
  call MPI_Win_set_attr(win, fkey_w, val, ierr)
  call c_read_win_aint(win, fkey_w, val, errs)
  call MPI_Win_get_attr(win, fkey_w, got, flag, ierr)
  if (.not. flag .or. got /= val) call bad('win: Fortran get')
  call c_set_win_ptr(win, ckeys(4), addr)
  call MPI_Win_get_attr(win, ckeys(4), got, flag, ierr)
  if (.not. flag .or. got /= addr) call bad('win: C pointer read in Fortran')
  call MPI_Win_get_attr(win, MPI_WIN_SIZE, got, flag, ierr)
  if (.not. flag .or. got /= winsize) call bad('MPI_WIN_SIZE')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, got, flag, ierr)
  if (.not. flag .or. got /= 4) call bad('MPI_WIN_DISP_UNIT')
  call MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, got, flag, ierr)
  if (.not. flag .or. got /= MPI_WIN_FLAVOR_CREATE) call bad('MPI_WIN_CREATE_FLAVOR')
  call MPI_Get_address(wbuf, base, ierr)
  call MPI_Win_get_attr(win, MPI_WIN_BASE, got, flag, ierr)
  if (.not. flag .or. got /= base) call bad('MPI_WIN_BASE')
  call MPI_Win_free(win, ierr)

  ! ---- predefined attributes ----
  call c_tag_ub(tag_c)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, got, flag, ierr)
  if (.not. flag .or. got /= tag_c .or. got < 32767) call bad('MPI_TAG_UB')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, i, flag, ierr)
  if (.not. flag .or. i /= tag_c) call bad('MPI_TAG_UB through MPI_ATTR_GET')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, got, flag, ierr)
  if (.not. flag .or. (got /= 0 .and. got /= 1)) call bad('MPI_WTIME_IS_GLOBAL')

  call MPI_Comm_free(comm2, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, fkey, ierr)
  call MPI_Comm_free_keyval(fkey, ierr)
  call MPI_Keyval_free(key1, ierr)
  call MPI_Type_free_keyval(fkey_t, ierr)
  call MPI_Win_free_keyval(fkey_w, ierr)
  do i = 1, 2
    call MPI_Comm_free_keyval(ckeys(i), ierr)
  end do
  call MPI_Type_free_keyval(ckeys(3), ierr)
  call MPI_Win_free_keyval(ckeys(4), ierr)

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print '(a)', 'PASS'
  call MPI_Finalize(ierr)

contains
  subroutine bad(what)
    character(len=*), intent(in) :: what
    print '(a,i0,2a)', 'FAIL: rank ', rank, ': ', what
    errs = errs + 1
  end subroutine bad

  subroutine fget(comm, key, want, what)
    integer, intent(in) :: comm, key
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: want
    character(len=*), intent(in) :: what
    integer(kind=MPI_ADDRESS_KIND) :: v
    logical :: f
    integer :: e
    v = -1
    call MPI_Comm_get_attr(comm, key, v, f, e)
    if (.not. f .or. v /= want) then
      print '(a,i0,3a,i0,a,i0)', 'FAIL: rank ', rank, ': ', what, ': want ', want, ' got ', v
      errs = errs + 1
    end if
  end subroutine fget
end program attr_lang
