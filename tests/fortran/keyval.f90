! SPDX-License-Identifier: MIT
! `use mpi`: attribute keyvals with Fortran callbacks.  User copy and delete
! callbacks get every argument by reference with INTEGER(KIND=MPI_ADDRESS_KIND)
! values (the value stored, not a pointer) and return their code in ierror;
! MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN and the
! MPI_TYPE_* ones behave as the standard says; MPI_TAG_UB reads as its value;
! the MPI-1 forms (MPI_KEYVAL_CREATE, MPI_ATTR_PUT/GET, MPI_DUP_FN) take
! default INTEGER values; window keyvals can be created and freed.
module kv_state
  use mpi
  implicit none
  integer :: ncopy = 0, ndelete = 0, nerr = 0
  integer :: last_obj = -1, last_key = -1
  integer(kind=MPI_ADDRESS_KIND) :: last_extra = -1, last_val = -1
  logical :: copy_flag = .true.          ! what the copy callback answers
  integer :: copy_ierr = MPI_SUCCESS     ! and its error code
  integer :: delete_ierr = MPI_SUCCESS
  integer :: ncopy1 = 0, ndelete1 = 0, last_val1 = -1, last_extra1 = -1
contains
  subroutine bad(what)
    character(len=*), intent(in) :: what
    integer :: rank, ierr
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    print '(a,i0,2a)', 'FAIL: rank ', rank, ': ', what
    nerr = nerr + 1
  end subroutine bad

  ! communicator and datatype callbacks share these (both are INTEGER handles)
  subroutine copy_fn(oldobj, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierr)
    integer :: oldobj, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    ncopy = ncopy + 1
    last_obj = oldobj
    last_key = keyval
    last_extra = extra_state
    last_val = attribute_val_in
    attribute_val_out = attribute_val_in + 1
    flag = copy_flag
    ierr = copy_ierr
  end subroutine copy_fn

  subroutine delete_fn(obj, keyval, attribute_val, extra_state, ierr)
    integer :: obj, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    ndelete = ndelete + 1
    last_obj = obj
    last_key = keyval
    last_extra = extra_state
    last_val = attribute_val
    ierr = delete_ierr
  end subroutine delete_fn

  ! MPI-1: default INTEGER values
  subroutine copy1_fn(oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierr)
    integer :: oldcomm, keyval, extra_state, attribute_val_in, attribute_val_out, ierr
    logical :: flag
    ncopy1 = ncopy1 + 1
    last_extra1 = extra_state
    last_val1 = attribute_val_in
    attribute_val_out = 2 * attribute_val_in
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine copy1_fn

  subroutine delete1_fn(comm, keyval, attribute_val, extra_state, ierr)
    integer :: comm, keyval, attribute_val, extra_state, ierr
    ndelete1 = ndelete1 + 1
    last_extra1 = extra_state
    last_val1 = attribute_val
    ierr = MPI_SUCCESS
  end subroutine delete1_fn
end module kv_state

program keyval_test
  use mpi
  use kv_state
  implicit none
  integer :: rank, ierr, kv, kv_dup, kv_null, kv1, kv1_dup, tkv, tkv_dup, tkv_null, wkv
  integer :: c1, c2, c3, t1, t2, ival
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  ! predefined attributes read as their values
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. flag) call bad('MPI_TAG_UB: no value')
  if (val < 32767 .or. val > huge(0)) call bad('MPI_TAG_UB is not a tag value (an address?)')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
  if (.not. flag .or. ival < 32767 .or. int(ival, MPI_ADDRESS_KIND) /= val) &
    call bad('MPI_ATTR_GET(MPI_TAG_UB)')

  ! user callbacks on communicators
  extra = 1234
  call MPI_Comm_create_keyval(copy_fn, delete_fn, kv, extra, ierr)
  if (ierr /= MPI_SUCCESS .or. kv == MPI_KEYVAL_INVALID) call bad('comm_create_keyval')
  call MPI_Comm_dup(MPI_COMM_WORLD, c1, ierr)
  call MPI_Comm_set_errhandler(c1, MPI_ERRORS_RETURN, ierr)
  val = 42
  call MPI_Comm_set_attr(c1, kv, val, ierr)
  val = 0
  call MPI_Comm_get_attr(c1, kv, val, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. .not. flag .or. val /= 42) call bad('get_attr after set_attr')
  if (ncopy /= 0 .or. ndelete /= 0) call bad('a callback ran on set_attr')

  call MPI_Comm_dup(c1, c2, ierr)
  if (ierr /= MPI_SUCCESS) call bad('comm_dup with an attribute')
  if (ncopy /= 1) call bad('copy callback did not run once on comm_dup')
  if (last_obj /= c1) call bad('copy callback: oldcomm')
  if (last_key /= kv) call bad('copy callback: keyval')
  if (last_extra /= 1234) call bad('copy callback: extra_state')
  if (last_val /= 42) call bad('copy callback: attribute_val_in')
  val = 0
  call MPI_Comm_get_attr(c2, kv, val, flag, ierr)
  if (.not. flag .or. val /= 43) call bad('the copied value is not attribute_val_out')

  ! flag = .false.: not copied
  copy_flag = .false.
  call MPI_Comm_dup(c1, c3, ierr)
  if (ncopy /= 2) call bad('copy callback did not run on the second dup')
  call MPI_Comm_get_attr(c3, kv, val, flag, ierr)
  if (flag) call bad('attribute copied although the copy callback said .FALSE.')
  call MPI_Comm_free(c3, ierr)
  if (ndelete /= 0) call bad('delete callback ran for an attribute that was not copied')
  copy_flag = .true.

  ! the delete callback on free
  call MPI_Comm_free(c2, ierr)
  if (ierr /= MPI_SUCCESS) call bad('comm_free')
  if (ndelete /= 1) call bad('delete callback did not run once on comm_free')
  if (last_val /= 43 .or. last_extra /= 1234 .or. last_key /= kv) &
    call bad('delete callback: attribute_val / extra_state / keyval')

  ! replacing a value deletes the old one
  val = 7
  call MPI_Comm_set_attr(c1, kv, val, ierr)
  if (ndelete /= 2 .or. last_val /= 42 .or. last_obj /= c1) call bad('set_attr over a value')

  ! ierror from the callbacks: the call fails with that code
  delete_ierr = MPI_ERR_OTHER
  call MPI_Comm_delete_attr(c1, kv, ierr)
  if (ierr /= MPI_ERR_OTHER) call bad('delete callback error not returned')
  call MPI_Comm_get_attr(c1, kv, val, flag, ierr)
  if (.not. flag .or. val /= 7) call bad('attribute gone although its delete callback failed')
  delete_ierr = MPI_SUCCESS
  copy_ierr = MPI_ERR_OTHER
  call MPI_Comm_dup(c1, c3, ierr)
  if (ierr /= MPI_ERR_OTHER) call bad('copy callback error not returned by comm_dup')
  copy_ierr = MPI_SUCCESS
  call MPI_Comm_delete_attr(c1, kv, ierr)
  if (ierr /= MPI_SUCCESS .or. last_val /= 7) call bad('delete_attr')
  call MPI_Comm_get_attr(c1, kv, val, flag, ierr)
  if (flag) call bad('attribute still there after delete_attr')

  ! a freed keyval keeps its callbacks while attributes use it
  val = 99
  call MPI_Comm_set_attr(c1, kv, val, ierr)
  ndelete = 0
  call MPI_Comm_free_keyval(kv, ierr)
  if (ierr /= MPI_SUCCESS .or. kv /= MPI_KEYVAL_INVALID) call bad('comm_free_keyval')
  call MPI_Comm_free(c1, ierr)
  if (ndelete /= 1 .or. last_val /= 99) call bad('delete callback of a freed keyval')

  ! MPI_COMM_DUP_FN and MPI_COMM_NULL_COPY_FN
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv_dup, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kv_null, extra, ierr)
  if (ierr /= MPI_SUCCESS) call bad('create_keyval with the predefined callbacks')
  call MPI_Comm_dup(MPI_COMM_WORLD, c1, ierr)
  val = 2_MPI_ADDRESS_KIND**40 + 5             ! more than a default INTEGER holds
  call MPI_Comm_set_attr(c1, kv_dup, val, ierr)
  val = -3
  call MPI_Comm_set_attr(c1, kv_null, val, ierr)
  call MPI_Comm_dup(c1, c2, ierr)
  call MPI_Comm_get_attr(c2, kv_dup, val, flag, ierr)
  if (.not. flag .or. val /= 2_MPI_ADDRESS_KIND**40 + 5) call bad('MPI_COMM_DUP_FN did not copy the value')
  call MPI_Comm_get_attr(c2, kv_null, val, flag, ierr)
  if (flag) call bad('MPI_COMM_NULL_COPY_FN copied the attribute')
  call MPI_Comm_get_attr(c1, kv_null, val, flag, ierr)
  if (.not. flag .or. val /= -3) call bad('negative attribute value')
  call MPI_Comm_delete_attr(c1, kv_null, ierr)
  if (ierr /= MPI_SUCCESS) call bad('MPI_COMM_NULL_DELETE_FN failed')
  call MPI_Comm_free(c2, ierr)
  call MPI_Comm_free(c1, ierr)
  if (ierr /= MPI_SUCCESS) call bad('comm_free with MPI_COMM_NULL_DELETE_FN')
  call MPI_Comm_free_keyval(kv_dup, ierr)
  call MPI_Comm_free_keyval(kv_null, ierr)

  ! datatypes
  ncopy = 0
  ndelete = 0
  extra = -77
  call MPI_Type_contiguous(2, MPI_INTEGER, t1, ierr)
  call MPI_Type_create_keyval(copy_fn, delete_fn, tkv, extra, ierr)
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkv_dup, extra, ierr)
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, tkv_null, extra, ierr)
  if (ierr /= MPI_SUCCESS) call bad('type_create_keyval')
  val = 1000
  call MPI_Type_set_attr(t1, tkv, val, ierr)
  val = 2000
  call MPI_Type_set_attr(t1, tkv_dup, val, ierr)
  call MPI_Type_set_attr(t1, tkv_null, val, ierr)
  call MPI_Type_dup(t1, t2, ierr)
  if (ncopy /= 1 .or. last_obj /= t1 .or. last_key /= tkv .or. last_extra /= -77 .or. last_val /= 1000) &
    call bad('type copy callback arguments')
  call MPI_Type_get_attr(t2, tkv, val, flag, ierr)
  if (.not. flag .or. val /= 1001) call bad('type attribute copy')
  call MPI_Type_get_attr(t2, tkv_dup, val, flag, ierr)
  if (.not. flag .or. val /= 2000) call bad('MPI_TYPE_DUP_FN')
  call MPI_Type_get_attr(t2, tkv_null, val, flag, ierr)
  if (flag) call bad('MPI_TYPE_NULL_COPY_FN copied the attribute')
  call MPI_Type_free(t2, ierr)
  if (ndelete /= 1 .or. last_val /= 1001 .or. last_extra /= -77) call bad('type delete callback')
  call MPI_Type_delete_attr(t1, tkv, ierr)
  if (ndelete /= 2 .or. last_val /= 1000 .or. last_obj /= t1) call bad('type_delete_attr callback')
  call MPI_Type_free(t1, ierr)
  if (ierr /= MPI_SUCCESS .or. ndelete /= 2) call bad('type_free')
  call MPI_Type_free_keyval(tkv, ierr)
  call MPI_Type_free_keyval(tkv_dup, ierr)
  call MPI_Type_free_keyval(tkv_null, ierr)

  ! windows: keyvals only (no window objects yet)
  call MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, wkv, extra, ierr)
  if (ierr /= MPI_SUCCESS .or. wkv == MPI_KEYVAL_INVALID) call bad('win_create_keyval')
  call MPI_Win_free_keyval(wkv, ierr)
  if (ierr /= MPI_SUCCESS .or. wkv /= MPI_KEYVAL_INVALID) call bad('win_free_keyval')
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, wkv, extra, ierr)
  call MPI_Win_free_keyval(wkv, ierr)

  ! MPI-1: MPI_KEYVAL_CREATE, MPI_ATTR_PUT / GET with default INTEGERs, MPI_DUP_FN
  call MPI_Keyval_create(copy1_fn, delete1_fn, kv1, 55, ierr)
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, kv1_dup, 0, ierr)
  if (ierr /= MPI_SUCCESS) call bad('keyval_create')
  call MPI_Comm_dup(MPI_COMM_WORLD, c1, ierr)
  call MPI_Attr_put(c1, kv1, 21, ierr)
  call MPI_Attr_put(c1, kv1_dup, -8, ierr)
  call MPI_Comm_dup(c1, c2, ierr)
  if (ncopy1 /= 1 .or. last_val1 /= 21 .or. last_extra1 /= 55) call bad('MPI-1 copy callback')
  ival = 0
  call MPI_Attr_get(c2, kv1, ival, flag, ierr)
  if (.not. flag .or. ival /= 42) call bad('MPI-1 copied value')
  call MPI_Attr_get(c2, kv1_dup, ival, flag, ierr)
  if (.not. flag .or. ival /= -8) call bad('MPI_DUP_FN')
  ! the same attribute seen through the MPI-2 call
  call MPI_Comm_get_attr(c2, kv1, val, flag, ierr)
  if (.not. flag .or. val /= 42) call bad('MPI-1 attribute through MPI_COMM_GET_ATTR')
  call MPI_Comm_free(c2, ierr)
  if (ndelete1 /= 1 .or. last_val1 /= 42 .or. last_extra1 /= 55) call bad('MPI-1 delete callback')
  call MPI_Attr_delete(c1, kv1, ierr)
  if (ndelete1 /= 2 .or. last_val1 /= 21) call bad('MPI_ATTR_DELETE callback')
  call MPI_Comm_free(c1, ierr)
  call MPI_Keyval_free(kv1, ierr)
  call MPI_Keyval_free(kv1_dup, ierr)
  if (ierr /= MPI_SUCCESS .or. kv1_dup /= MPI_KEYVAL_INVALID) call bad('keyval_free')

  call MPI_Allreduce(MPI_IN_PLACE, nerr, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. nerr == 0) print '(a)', 'PASS'
  call MPI_Finalize(ierr)
end program keyval_test
