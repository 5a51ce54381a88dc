! SPDX-License-Identifier: MIT
! mpif.h in fixed form: generalized requests with Fortran callbacks
! (MPI_GREQUEST_START: the query callback's status reaches MPI_WAIT,
! the cancel callback gets complete as a LOGICAL, the free callback
! changes the caller's extra_state, which is passed by reference, and
! returns its error code through IERROR), and the MPI-1 procedures that
! later standards removed but MPICH still exports (MPI_TYPE_HINDEXED,
! MPI_TYPE_STRUCT and MPI_TYPE_HVECTOR with default INTEGER
! displacements, MPI_TYPE_EXTENT, MPI_TYPE_LB, MPI_TYPE_UB,
! MPI_ERRHANDLER_SET and MPI_ERRHANDLER_GET, MPI_ADDRESS): data sent
! around a ring with the types is checked.  Any number of ranks.
! Prints PASS on rank 0 when every check holds.
      SUBROUTINE QFN(EXTRA, STATUS, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER(KIND=MPI_ADDRESS_KIND) EXTRA
      INTEGER STATUS(MPI_STATUS_SIZE), IERR
      STATUS(MPI_SOURCE) = 7
      STATUS(MPI_TAG) = 11
      CALL MPI_STATUS_SET_CANCELLED(STATUS, .FALSE., IERR)
      CALL MPI_STATUS_SET_ELEMENTS(STATUS, MPI_INTEGER, 3, IERR)
      EXTRA = EXTRA + 100
      IERR = MPI_SUCCESS
      END

      SUBROUTINE FFN(EXTRA, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER(KIND=MPI_ADDRESS_KIND) EXTRA
      INTEGER IERR
      EXTRA = EXTRA - 1
      IERR = MPI_SUCCESS
      END

      SUBROUTINE CFN(EXTRA, COMPLETE, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER(KIND=MPI_ADDRESS_KIND) EXTRA
      LOGICAL COMPLETE
      INTEGER IERR
      IF (COMPLETE) THEN
         EXTRA = EXTRA + 20
      ELSE
         EXTRA = EXTRA + 10
      END IF
      IERR = MPI_SUCCESS
      END

      SUBROUTINE FFNERR(EXTRA, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER(KIND=MPI_ADDRESS_KIND) EXTRA
      INTEGER IERR
      EXTRA = -5
      IERR = MPI_ERR_OTHER
      END

      SUBROUTINE FAIL(NERR, WHAT)
      IMPLICIT NONE
      INTEGER NERR
      CHARACTER*(*) WHAT
      NERR = NERR + 1
      PRINT *, 'FAIL: ', WHAT
      END

      PROGRAM LEGACY
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      EXTERNAL QFN, FFN, CFN, FFNERR
      INTEGER IERR, RANK, NP, NERR, I, N, ICLASS, NEXT, PREV
      INTEGER REQ, STATUS(MPI_STATUS_SIZE), EH
      INTEGER(KIND=MPI_ADDRESS_KIND) EXTRA
!     the callbacks change EXTRA behind the compiler's back
      VOLATILE EXTRA
      LOGICAL FLAG
      INTEGER T1, T2, T3, T4, TYPES(2), BLENS(3), DISPS(3)
      INTEGER EXT, LB, UB, ADDR
      INTEGER SBUF(40), RBUF(40)
      NERR = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      NEXT = MOD(RANK + 1, NP)
      PREV = MOD(RANK + NP - 1, NP)

!     a generalized request: not complete before MPI_GREQUEST_COMPLETE,
!     the query callback fills the status MPI_WAIT returns, the free
!     callback runs once and changes EXTRA itself
      EXTRA = 1
      CALL MPI_GREQUEST_START(QFN, FFN, CFN, EXTRA, REQ, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(NERR, 'grequest_start')
      CALL MPI_TEST(REQ, FLAG, STATUS, IERR)
      IF (FLAG) CALL FAIL(NERR, 'complete before grequest_complete')
      CALL MPI_GREQUEST_COMPLETE(REQ, IERR)
      CALL MPI_WAIT(REQ, STATUS, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(NERR, 'wait')
      IF (REQ .NE. MPI_REQUEST_NULL) CALL FAIL(NERR, 'request null')
      IF (STATUS(MPI_SOURCE) .NE. 7) CALL FAIL(NERR, 'query source')
      IF (STATUS(MPI_TAG) .NE. 11) CALL FAIL(NERR, 'query tag')
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, N, IERR)
      IF (N .NE. 3) CALL FAIL(NERR, 'query count')
!     query added 100, free took 1 away: extra_state is by reference
      IF (EXTRA .NE. 100) CALL FAIL(NERR, 'extra_state by reference')
!     cancel before completion: the callback sees complete = .FALSE.
      EXTRA = 0
      CALL MPI_GREQUEST_START(QFN, FFN, CFN, EXTRA, REQ, IERR)
      CALL MPI_CANCEL(REQ, IERR)
      IF (EXTRA .NE. 10) CALL FAIL(NERR, 'cancel callback')
      CALL MPI_GREQUEST_COMPLETE(REQ, IERR)
      CALL MPI_WAIT(REQ, MPI_STATUS_IGNORE, IERR)
      IF (EXTRA .NE. 109) CALL FAIL(NERR, 'cancel then wait')
!     a free callback's error code is what MPI_WAIT returns
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     +     IERR)
      CALL MPI_GREQUEST_START(QFN, FFNERR, CFN, EXTRA, REQ, IERR)
      CALL MPI_GREQUEST_COMPLETE(REQ, IERR)
      CALL MPI_WAIT(REQ, STATUS, IERR)
      CALL MPI_ERROR_CLASS(IERR, ICLASS, I)
      IF (ICLASS .NE. MPI_ERR_OTHER) CALL FAIL(NERR, 'free ierror')
      IF (EXTRA .NE. -5) CALL FAIL(NERR, 'free with error ran')

!     MPI_ERRHANDLER_GET / SET (MPI-1 names)
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, EH, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. EH .NE. MPI_ERRORS_RETURN)
     +     CALL FAIL(NERR, 'errhandler_get')
      CALL MPI_ERRHANDLER_FREE(EH, IERR)
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL,
     +     IERR)
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, EH, IERR)
      IF (EH .NE. MPI_ERRORS_ARE_FATAL) CALL FAIL(NERR, 'errh set')
      CALL MPI_ERRHANDLER_FREE(EH, IERR)
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)

!     MPI_TYPE_HINDEXED with INTEGER displacements in bytes: blocks of
!     2, 1 and 3 integers at integers 0, 5 and 9
      BLENS(1) = 2
      BLENS(2) = 1
      BLENS(3) = 3
      DISPS(1) = 0
      DISPS(2) = 20
      DISPS(3) = 36
      CALL MPI_TYPE_HINDEXED(3, BLENS, DISPS, MPI_INTEGER, T1, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(NERR, 'type_hindexed')
      CALL MPI_TYPE_COMMIT(T1, IERR)
      CALL MPI_TYPE_EXTENT(T1, EXT, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. EXT .NE. 48)
     +     CALL FAIL(NERR, 'hindexed extent')
      CALL MPI_TYPE_LB(T1, LB, IERR)
      IF (LB .NE. 0) CALL FAIL(NERR, 'hindexed lb')
      CALL MPI_TYPE_UB(T1, UB, IERR)
      IF (UB .NE. 48) CALL FAIL(NERR, 'hindexed ub')
      CALL MPI_TYPE_SIZE(T1, N, IERR)
      IF (N .NE. 24) CALL FAIL(NERR, 'hindexed size')
      DO I = 1, 40
         SBUF(I) = 1000 * RANK + I
         RBUF(I) = -1
      END DO
!     two elements of T1 around the ring: integers 1-2, 6, 10-12 and
!     13-14, 18, 22-24 (the second element starts at byte 48)
      CALL MPI_SENDRECV(SBUF, 2, T1, NEXT, 1, RBUF, 2, T1, PREV, 1,
     +     MPI_COMM_WORLD, STATUS, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(NERR, 'hindexed sendrecv')
      DO I = 1, 24
         N = MOD(I - 1, 12) + 1
         IF (N .LE. 2 .OR. N .EQ. 6 .OR. N .GE. 10) THEN
            IF (RBUF(I) .NE. 1000 * PREV + I)
     +           CALL FAIL(NERR, 'hindexed data')
         ELSE
            IF (RBUF(I) .NE. -1) CALL FAIL(NERR, 'hindexed gap')
         END IF
      END DO

!     MPI_TYPE_HVECTOR: 3 blocks of 2 integers, 16 bytes apart
      CALL MPI_TYPE_HVECTOR(3, 2, 16, MPI_INTEGER, T2, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(NERR, 'type_hvector')
      CALL MPI_TYPE_COMMIT(T2, IERR)
      CALL MPI_TYPE_EXTENT(T2, EXT, IERR)
      IF (EXT .NE. 40) CALL FAIL(NERR, 'hvector extent')
      DO I = 1, 40
         RBUF(I) = -1
      END DO
      CALL MPI_SENDRECV(SBUF, 1, T2, NEXT, 2, RBUF, 6, MPI_INTEGER,
     +     PREV, 2, MPI_COMM_WORLD, STATUS, IERR)
      DO I = 1, 3
         IF (RBUF(2*I-1) .NE. 1000 * PREV + 4*I - 3 .OR.
     +       RBUF(2*I) .NE. 1000 * PREV + 4*I - 2)
     +        CALL FAIL(NERR, 'hvector data')
      END DO

!     MPI_TYPE_STRUCT: one integer at byte 4 and T2 at byte 32
      BLENS(1) = 1
      BLENS(2) = 1
      DISPS(1) = 4
      DISPS(2) = 32
      TYPES(1) = MPI_INTEGER
      TYPES(2) = T2
      CALL MPI_TYPE_STRUCT(2, BLENS, DISPS, TYPES, T3, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAIL(NERR, 'type_struct')
      CALL MPI_TYPE_COMMIT(T3, IERR)
      CALL MPI_TYPE_LB(T3, LB, IERR)
      IF (LB .NE. 4) CALL FAIL(NERR, 'struct lb')
      CALL MPI_TYPE_UB(T3, UB, IERR)
      IF (UB .NE. 72) CALL FAIL(NERR, 'struct ub')
      CALL MPI_TYPE_SIZE(T3, N, IERR)
      IF (N .NE. 28) CALL FAIL(NERR, 'struct size')
      DO I = 1, 40
         RBUF(I) = -1
      END DO
      CALL MPI_SENDRECV(SBUF, 1, T3, NEXT, 3, RBUF, 7, MPI_INTEGER,
     +     PREV, 3, MPI_COMM_WORLD, STATUS, IERR)
      IF (RBUF(1) .NE. 1000 * PREV + 2) CALL FAIL(NERR, 'struct int')
      DO I = 1, 3
         IF (RBUF(2*I) .NE. 1000 * PREV + 4*I + 5 .OR.
     +       RBUF(2*I+1) .NE. 1000 * PREV + 4*I + 6)
     +        CALL FAIL(NERR, 'struct data')
      END DO
!     a negative count is an error through IERROR, not a crash
      CALL MPI_TYPE_HINDEXED(-1, BLENS, DISPS, MPI_INTEGER, T4, IERR)
      CALL MPI_ERROR_CLASS(IERR, ICLASS, I)
      IF (ICLASS .NE. MPI_ERR_COUNT .AND. ICLASS .NE. MPI_ERR_ARG)
     +     CALL FAIL(NERR, 'hindexed count -1')

!     MPI_ADDRESS: an address as a default INTEGER when it fits in one
!     (two of them 8 bytes apart), else an error of class MPI_ERR_ARG
!     (MPICH 4.0 answers MPI_ERR_OTHER)
      CALL MPI_ADDRESS(SBUF(1), ADDR, IERR)
      IF (IERR .EQ. MPI_SUCCESS) THEN
         CALL MPI_ADDRESS(SBUF(3), N, IERR)
         IF (IERR .EQ. MPI_SUCCESS .AND. N - ADDR .NE. 8)
     +        CALL FAIL(NERR, 'address difference')
      END IF
      IF (IERR .NE. MPI_SUCCESS) THEN
         CALL MPI_ERROR_CLASS(IERR, ICLASS, I)
         IF (ICLASS .NE. MPI_ERR_ARG .AND. ICLASS .NE. MPI_ERR_OTHER)
     +        CALL FAIL(NERR, 'address range')
      END IF

      CALL MPI_TYPE_FREE(T1, IERR)
      CALL MPI_TYPE_FREE(T2, IERR)
      CALL MPI_TYPE_FREE(T3, IERR)
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, NERR, 1, MPI_INTEGER, MPI_SUM,
     +     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0 .AND. NERR .EQ. 0) PRINT *, 'PASS'
      CALL MPI_FINALIZE(IERR)
      END
