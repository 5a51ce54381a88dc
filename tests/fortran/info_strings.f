! SPDX-License-Identifier: MIT
! mpif.h: the Fortran rules of info keys and values (MPI-4.1 10.1):
! leading and trailing blanks are not part of a key or value; MPI_INFO_GET
! and MPI_INFO_GET_STRING leave the value variable alone when the key is
! not there; MPI_INFO_GET_STRING's buflen counts characters without a
! NUL, 0 asks only for the length, a shorter one truncates (the rest of
! the variable blank).  Any number of ranks; PASS on rank 0.
      SUBROUTINE FAIL(NERR, WHAT)
      IMPLICIT NONE
      INTEGER NERR
      CHARACTER*(*) WHAT
      NERR = NERR + 1
      PRINT *, 'FAIL: ', WHAT
      END

      PROGRAM INFOSTR
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NERR, INFO, BUFL, VLEN, NKEYS, J
      LOGICAL FLAG
      CHARACTER*(MPI_MAX_INFO_VAL) VAL
      CHARACTER*(MPI_MAX_INFO_KEY) KEY
      NERR = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL MPI_INFO_SET(INFO, '  Key A ', ' value 1  ', IERR)
      CALL MPI_INFO_SET(INFO, 'k2', 'abcdefg', IERR)
      CALL MPI_INFO_GET_NKEYS(INFO, NKEYS, IERR)
      IF (NKEYS .NE. 2) CALL FAIL(NERR, 'nkeys')
      CALL MPI_INFO_GET_NTHKEY(INFO, 0, KEY, IERR)
      IF (KEY .NE. 'Key A') CALL FAIL(NERR, 'blanks kept in the key')
      CALL MPI_INFO_GET(INFO, 'Key A', MPI_MAX_INFO_VAL, VAL, FLAG,
     +     IERR)
      IF (.NOT. FLAG .OR. VAL .NE. 'value 1')
     +     CALL FAIL(NERR, 'blanks kept in the value')
      CALL MPI_INFO_GET_VALUELEN(INFO, ' Key A', VLEN, FLAG, IERR)
      IF (.NOT. FLAG .OR. VLEN .NE. 7) CALL FAIL(NERR, 'valuelen')
!     a key that is not there: the variable stays
      VAL = 'canary'
      CALL MPI_INFO_GET(INFO, 'nokey', MPI_MAX_INFO_VAL, VAL, FLAG,
     +     IERR)
      IF (FLAG .OR. VAL .NE. 'canary') CALL FAIL(NERR, 'get: missing')
      BUFL = 10
      CALL MPI_INFO_GET_STRING(INFO, 'nokey', BUFL, VAL, FLAG, IERR)
      IF (FLAG .OR. VAL .NE. 'canary' .OR. BUFL .NE. 10)
     +     CALL FAIL(NERR, 'get_string: missing')
!     buflen 0: the length only
      BUFL = 0
      CALL MPI_INFO_GET_STRING(INFO, 'k2', BUFL, VAL, FLAG, IERR)
      IF (.NOT. FLAG .OR. BUFL .NE. 7 .OR. VAL .NE. 'canary')
     +     CALL FAIL(NERR, 'get_string: length only')
!     buflen 3: truncated, the rest blank, the full length back
      BUFL = 3
      CALL MPI_INFO_GET_STRING(INFO, 'k2', BUFL, VAL, FLAG, IERR)
      IF (.NOT. FLAG .OR. BUFL .NE. 7 .OR. VAL .NE. 'abc')
     +     CALL FAIL(NERR, 'get_string: truncated')
      DO J = 4, MPI_MAX_INFO_VAL
         IF (VAL(J:J) .NE. ' ') CALL FAIL(NERR, 'get_string: not blank')
      END DO
      BUFL = MPI_MAX_INFO_VAL
      CALL MPI_INFO_GET_STRING(INFO, 'Key A', BUFL, VAL, FLAG, IERR)
      IF (.NOT. FLAG .OR. BUFL .NE. 7 .OR. VAL .NE. 'value 1')
     +     CALL FAIL(NERR, 'get_string: whole')
      CALL MPI_INFO_DELETE(INFO, ' k2 ', IERR)
      CALL MPI_INFO_GET_NKEYS(INFO, NKEYS, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. NKEYS .NE. 1)
     +     CALL FAIL(NERR, 'delete with blanks')
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, NERR, 1, MPI_INTEGER, MPI_SUM,
     +     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0 .AND. NERR .EQ. 0) PRINT *, 'PASS'
      CALL MPI_FINALIZE(IERR)
      END
