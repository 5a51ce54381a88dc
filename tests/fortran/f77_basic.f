! SPDX-License-Identifier: MIT
! mpif.h in fixed form: point-to-point with status arrays and
! MPI_STATUS_IGNORE, MPI_IN_PLACE, LOGICAL and CHARACTER arguments, error
! codes through IERROR, 1-based indices, Fortran datatypes in reductions.
! Prints PASS on rank 0 when every check holds.  Needs 2+ ranks.
      PROGRAM F77BASIC
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, NERR, I, N, ICLASS, RLEN, IDX
      INTEGER STATUS(MPI_STATUS_SIZE), REQS(2)
      INTEGER STATS(MPI_STATUS_SIZE,2)
      INTEGER IBUF(10), ISUM(3), IPAIR(2,2), IRES(2,2)
      INTEGER*8 I8, I8S
      DOUBLE PRECISION D(3), DS(3)
      REAL R4, R4S
      COMPLEX C, CS
      DOUBLE COMPLEX Z, ZS
      LOGICAL FLAG, LA, LO
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) PNAME
      CHARACTER*(MPI_MAX_ERROR_STRING) ESTR
      NERR = 0
      CALL MPI_INIT(IERR)
      IF (IERR .NE. MPI_SUCCESS) NERR = NERR + 1
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL MPI_INITIALIZED(FLAG, IERR)
      IF (.NOT. FLAG) CALL FAIL(NERR, 'initialized')
!     point to point: status array fields, MPI_GET_COUNT, STATUS_IGNORE
      IF (RANK .EQ. 0) THEN
         DO I = 1, 10
            IBUF(I) = I * 11
         END DO
         CALL MPI_SEND(IBUF, 7, MPI_INTEGER, 1, 42, MPI_COMM_WORLD,
     +        IERR)
         CALL MPI_SEND(IBUF, 3, MPI_INTEGER, 1, 43, MPI_COMM_WORLD,
     +        IERR)
      ELSE IF (RANK .EQ. 1) THEN
         CALL MPI_PROBE(0, 42, MPI_COMM_WORLD, STATUS, IERR)
         CALL MPI_IPROBE(0, 42, MPI_COMM_WORLD, FLAG, STATUS, IERR)
         IF (.NOT. FLAG) CALL FAIL(NERR, 'iprobe flag')
         CALL MPI_RECV(IBUF, 10, MPI_INTEGER, MPI_ANY_SOURCE,
     +        MPI_ANY_TAG, MPI_COMM_WORLD, STATUS, IERR)
         IF (STATUS(MPI_SOURCE) .NE. 0) CALL FAIL(NERR, 'source')
         IF (STATUS(MPI_TAG) .NE. 42) CALL FAIL(NERR, 'tag')
         CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, N, IERR)
         IF (N .NE. 7 .OR. IBUF(7) .NE. 77) CALL FAIL(NERR, 'count')
         CALL MPI_RECV(IBUF, 10, MPI_INTEGER, 0, 43, MPI_COMM_WORLD,
     +        MPI_STATUS_IGNORE, IERR)
         IF (IERR .NE. 0 .OR. IBUF(3) .NE. 33) CALL FAIL(NERR, 'ign')
      END IF
!     nonblocking ring: WAITALL with STATUSES_IGNORE, WAITANY index
      CALL MPI_IRECV(IBUF(1), 1, MPI_INTEGER, MOD(RANK+NP-1,NP), 5,
     +     MPI_COMM_WORLD, REQS(1), IERR)
      CALL MPI_ISEND(RANK, 1, MPI_INTEGER, MOD(RANK+1,NP), 5,
     +     MPI_COMM_WORLD, REQS(2), IERR)
      CALL MPI_WAITANY(2, REQS, IDX, STATUS, IERR)
      IF (IDX .LT. 1 .OR. IDX .GT. 2) CALL FAIL(NERR, 'waitany index')
      IF (REQS(IDX) .NE. MPI_REQUEST_NULL) CALL FAIL(NERR, 'req null')
      CALL MPI_WAITALL(2, REQS, MPI_STATUSES_IGNORE, IERR)
      IF (IBUF(1) .NE. MOD(RANK+NP-1,NP)) CALL FAIL(NERR, 'ring')
      CALL MPI_IRECV(IBUF(2), 1, MPI_INTEGER, MOD(RANK+NP-1,NP), 6,
     +     MPI_COMM_WORLD, REQS(1), IERR)
      CALL MPI_ISEND(RANK, 1, MPI_INTEGER, MOD(RANK+1,NP), 6,
     +     MPI_COMM_WORLD, REQS(2), IERR)
      CALL MPI_WAITALL(2, REQS, STATS, IERR)
      IF (STATS(MPI_SOURCE,1) .NE. MOD(RANK+NP-1,NP))
     +     CALL FAIL(NERR, 'waitall statuses')
!     collectives: MPI_IN_PLACE and Fortran types in reductions
      ISUM(1) = RANK
      ISUM(2) = 1
      ISUM(3) = -RANK
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, ISUM, 3, MPI_INTEGER, MPI_SUM,
     +     MPI_COMM_WORLD, IERR)
      IF (ISUM(1) .NE. NP*(NP-1)/2 .OR. ISUM(2) .NE. NP)
     +     CALL FAIL(NERR, 'in_place sum')
      D(1) = 0.5D0 * RANK
      D(2) = 1.0D0
      D(3) = -1.0D0 * RANK
      CALL MPI_ALLREDUCE(D, DS, 3, MPI_DOUBLE_PRECISION, MPI_MAX,
     +     MPI_COMM_WORLD, IERR)
      IF (DS(1) .NE. 0.5D0*(NP-1) .OR. DS(3) .NE. 0.0D0)
     +     CALL FAIL(NERR, 'double max')
      R4 = 2.0
      CALL MPI_ALLREDUCE(R4, R4S, 1, MPI_REAL, MPI_PROD,
     +     MPI_COMM_WORLD, IERR)
      IF (R4S .NE. 2.0**NP) CALL FAIL(NERR, 'real prod')
      I8 = 3000000000_8 + RANK
      CALL MPI_ALLREDUCE(I8, I8S, 1, MPI_INTEGER8, MPI_MIN,
     +     MPI_COMM_WORLD, IERR)
      IF (I8S .NE. 3000000000_8) CALL FAIL(NERR, 'integer8 min')
      C = CMPLX(1.0, RANK)
      CALL MPI_ALLREDUCE(C, CS, 1, MPI_COMPLEX, MPI_SUM,
     +     MPI_COMM_WORLD, IERR)
      IF (CS .NE. CMPLX(REAL(NP), REAL(NP*(NP-1)/2)))
     +     CALL FAIL(NERR, 'complex sum')
      Z = DCMPLX(0.0D0, 1.0D0)
      CALL MPI_ALLREDUCE(Z, ZS, 1, MPI_DOUBLE_COMPLEX, MPI_PROD,
     +     MPI_COMM_WORLD, IERR)
      IF (ZS .NE. (0.0D0, 1.0D0)**NP) CALL FAIL(NERR, 'dcomplex prod')
      LA = RANK .GE. 0
      CALL MPI_ALLREDUCE(LA, LO, 1, MPI_LOGICAL, MPI_LAND,
     +     MPI_COMM_WORLD, IERR)
      IF (.NOT. LO) CALL FAIL(NERR, 'logical land')
      LA = RANK .EQ. NP - 1
      CALL MPI_ALLREDUCE(LA, LO, 1, MPI_LOGICAL, MPI_LOR,
     +     MPI_COMM_WORLD, IERR)
      IF (.NOT. LO) CALL FAIL(NERR, 'logical lor')
      IPAIR(1,1) = 100 - RANK
      IPAIR(2,1) = RANK
      IPAIR(1,2) = RANK
      IPAIR(2,2) = RANK
      CALL MPI_ALLREDUCE(IPAIR, IRES, 2, MPI_2INTEGER, MPI_MAXLOC,
     +     MPI_COMM_WORLD, IERR)
      IF (IRES(1,1) .NE. 100 .OR. IRES(2,1) .NE. 0 .OR.
     +    IRES(1,2) .NE. NP-1 .OR. IRES(2,2) .NE. NP-1)
     +     CALL FAIL(NERR, '2integer maxloc')
!     datatype sizes
      CALL MPI_TYPE_SIZE(MPI_DOUBLE_PRECISION, N, IERR)
      IF (N .NE. 8) CALL FAIL(NERR, 'size double precision')
      CALL MPI_TYPE_SIZE(MPI_DOUBLE_COMPLEX, N, IERR)
      IF (N .NE. 16) CALL FAIL(NERR, 'size double complex')
      CALL MPI_TYPE_SIZE(MPI_LOGICAL, N, IERR)
      IF (N .NE. 4) CALL FAIL(NERR, 'size logical')
!     character arguments
      CALL MPI_COMM_SET_NAME(MPI_COMM_WORLD, 'my world   ', IERR)
      CALL MPI_COMM_GET_NAME(MPI_COMM_WORLD, NAME, RLEN, IERR)
      IF (NAME .NE. 'my world' .OR. RLEN .NE. 8)
     +     CALL FAIL(NERR, 'comm name')
      CALL MPI_GET_PROCESSOR_NAME(PNAME, RLEN, IERR)
      IF (RLEN .LE. 0 .OR. LEN_TRIM(PNAME) .NE. RLEN)
     +     CALL FAIL(NERR, 'processor name')
!     errors come back through IERROR with MPI_ERRORS_RETURN
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     +     IERR)
      CALL MPI_SEND(IBUF, 1, MPI_INTEGER, NP + 5, 0, MPI_COMM_WORLD,
     +     IERR)
      IF (IERR .EQ. MPI_SUCCESS) CALL FAIL(NERR, 'bad rank accepted')
      CALL MPI_ERROR_CLASS(IERR, ICLASS, I)
      IF (ICLASS .NE. MPI_ERR_RANK) CALL FAIL(NERR, 'error class')
      CALL MPI_ERROR_STRING(IERR, ESTR, RLEN, I)
      IF (RLEN .LE. 0 .OR. LEN_TRIM(ESTR) .NE. RLEN)
     +     CALL FAIL(NERR, 'error string')
      IF (MPI_WTIME() .LE. 0.0D0) CALL FAIL(NERR, 'wtime')
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, NERR, 1, MPI_INTEGER, MPI_SUM,
     +     MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0 .AND. NERR .EQ. 0) PRINT '(A)', 'PASS'
      CALL MPI_FINALIZE(IERR)
      CALL MPI_FINALIZED(FLAG, IERR)
      IF (.NOT. FLAG) PRINT *, 'FAIL: finalized'
      END

      SUBROUTINE FAIL(NERR, WHAT)
      INTEGER NERR
      CHARACTER*(*) WHAT
      PRINT *, 'FAIL: ', WHAT
      NERR = NERR + 1
      END
