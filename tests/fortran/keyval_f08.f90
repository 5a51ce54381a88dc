! SPDX-License-Identifier: MIT
! `use mpi_f08`: attribute keyvals whose callbacks are module procedures with
! the standard's interfaces (PROCEDURE(MPI_Comm_copy_attr_function) and
! friends, TYPE(MPI_Comm) / TYPE(MPI_Datatype) handles), the predefined
! MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN, MPI_TYPE_DUP_FN, ..., optional ierror.
module kv08_state
  use mpi_f08
  implicit none
  integer :: ncopy = 0, ndelete = 0, nerr = 0
  integer :: last_key = -1
  type(MPI_Comm) :: last_comm
  type(MPI_Datatype) :: last_type
  integer(kind=MPI_ADDRESS_KIND) :: last_extra = -1, last_val = -1
  integer :: delete_ierr = MPI_SUCCESS
contains
  subroutine bad(what)
    character(len=*), intent(in) :: what
    integer :: rank
    call MPI_Comm_rank(MPI_COMM_WORLD, rank)
    print '(a,i0,2a)', 'FAIL: rank ', rank, ': ', what
    nerr = nerr + 1
  end subroutine bad

  subroutine comm_copy(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, &
                       flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    ncopy = ncopy + 1
    last_comm = oldcomm
    last_key = comm_keyval
    last_extra = extra_state
    last_val = attribute_val_in
    attribute_val_out = attribute_val_in * 10
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine comm_copy

  subroutine comm_delete(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    ndelete = ndelete + 1
    last_comm = comm
    last_key = comm_keyval
    last_extra = extra_state
    last_val = attribute_val
    ierror = delete_ierr
  end subroutine comm_delete

  subroutine type_copy(oldtype, type_keyval, extra_state, attribute_val_in, attribute_val_out, &
                       flag, ierror)
    type(MPI_Datatype) :: oldtype
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    ncopy = ncopy + 1
    last_type = oldtype
    last_key = type_keyval
    last_extra = extra_state
    last_val = attribute_val_in
    attribute_val_out = -attribute_val_in
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine type_copy

  subroutine type_delete(datatype, type_keyval, attribute_val, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    ndelete = ndelete + 1
    last_type = datatype
    last_key = type_keyval
    last_extra = extra_state
    last_val = attribute_val
    ierror = MPI_SUCCESS
  end subroutine type_delete
end module kv08_state

program keyval_f08_test
  use mpi_f08
  use kv08_state
  implicit none
  integer :: rank, ierr, kv, kv_dup, kv_null, tkv, tkv_dup, wkv
  type(MPI_Comm) :: c1, c2
  type(MPI_Datatype) :: t1, t2
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)

  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag)
  if (.not. flag .or. val < 32767 .or. val > huge(0)) call bad('MPI_TAG_UB is not a tag value')

  ! user callbacks
  extra = 31
  call MPI_Comm_create_keyval(comm_copy, comm_delete, kv, extra, ierr)
  if (ierr /= MPI_SUCCESS .or. kv == MPI_KEYVAL_INVALID) call bad('comm_create_keyval')
  call MPI_Comm_dup(MPI_COMM_WORLD, c1)
  call MPI_Comm_set_errhandler(c1, MPI_ERRORS_RETURN)
  val = 6
  call MPI_Comm_set_attr(c1, kv, val)
  call MPI_Comm_dup(c1, c2)
  if (ncopy /= 1) call bad('copy callback did not run once')
  if (last_comm /= c1 .or. last_key /= kv .or. last_extra /= 31 .or. last_val /= 6) &
    call bad('copy callback arguments')
  val = 0
  call MPI_Comm_get_attr(c2, kv, val, flag)
  if (.not. flag .or. val /= 60) call bad('copied value')
  call MPI_Comm_free(c2)
  if (ndelete /= 1 .or. last_val /= 60 .or. last_extra /= 31 .or. last_key /= kv) &
    call bad('delete callback on comm_free')
  delete_ierr = MPI_ERR_ARG
  call MPI_Comm_delete_attr(c1, kv, ierr)
  if (ierr /= MPI_ERR_ARG) call bad('delete callback ierror not returned')
  delete_ierr = MPI_SUCCESS
  call MPI_Comm_delete_attr(c1, kv, ierr)
  if (ierr /= MPI_SUCCESS .or. ndelete /= 3 .or. last_val /= 6 .or. last_comm /= c1) &
    call bad('comm_delete_attr')
  call MPI_Comm_get_attr(c1, kv, val, flag)
  if (flag) call bad('attribute still there after delete_attr')
  call MPI_Comm_free_keyval(kv)
  if (kv /= MPI_KEYVAL_INVALID) call bad('comm_free_keyval')

  ! the predefined callbacks
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kv_dup, extra)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, kv_null, extra)
  val = -2_MPI_ADDRESS_KIND**35
  call MPI_Comm_set_attr(c1, kv_dup, val)
  call MPI_Comm_set_attr(c1, kv_null, val)
  call MPI_Comm_dup(c1, c2)
  call MPI_Comm_get_attr(c2, kv_dup, val, flag)
  if (.not. flag .or. val /= -2_MPI_ADDRESS_KIND**35) call bad('MPI_COMM_DUP_FN')
  call MPI_Comm_get_attr(c2, kv_null, val, flag)
  if (flag) call bad('MPI_COMM_NULL_COPY_FN copied the attribute')
  call MPI_Comm_free(c2)
  call MPI_Comm_free(c1, ierr)
  if (ierr /= MPI_SUCCESS) call bad('comm_free with MPI_COMM_NULL_DELETE_FN')
  call MPI_Comm_free_keyval(kv_dup)
  call MPI_Comm_free_keyval(kv_null)

  ! datatypes
  ncopy = 0
  ndelete = 0
  extra = 8
  call MPI_Type_contiguous(3, MPI_REAL, t1)
  call MPI_Type_create_keyval(type_copy, type_delete, tkv, extra)
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, tkv_dup, extra)
  val = 5
  call MPI_Type_set_attr(t1, tkv, val)
  call MPI_Type_set_attr(t1, tkv_dup, val)
  call MPI_Type_dup(t1, t2)
  if (ncopy /= 1 .or. last_type /= t1 .or. last_key /= tkv .or. last_extra /= 8 .or. last_val /= 5) &
    call bad('type copy callback arguments')
  call MPI_Type_get_attr(t2, tkv, val, flag)
  if (.not. flag .or. val /= -5) call bad('type copied value')
  call MPI_Type_get_attr(t2, tkv_dup, val, flag)
  if (.not. flag .or. val /= 5) call bad('MPI_TYPE_DUP_FN')
  call MPI_Type_free(t2)
  if (ndelete /= 1 .or. last_val /= -5 .or. last_extra /= 8) call bad('type delete callback')
  call MPI_Type_free(t1)
  if (ndelete /= 2 .or. last_val /= 5) call bad('type delete callback on type_free')
  call MPI_Type_free_keyval(tkv)
  call MPI_Type_free_keyval(tkv_dup)
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, tkv, extra)
  call MPI_Type_free_keyval(tkv)

  call MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, wkv, extra, ierr)
  if (ierr /= MPI_SUCCESS) call bad('win_create_keyval')
  call MPI_Win_free_keyval(wkv)
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, wkv, extra)
  call MPI_Win_free_keyval(wkv)

  call MPI_Allreduce(MPI_IN_PLACE, nerr, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. nerr == 0) print '(a)', 'PASS'
  call MPI_Finalize()
end program keyval_f08_test
