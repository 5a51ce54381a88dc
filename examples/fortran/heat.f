! SPDX-License-Identifier: MIT
! 1-D heat equation dT/dt = alpha d2T/dx2 on 11 points, split over exactly
! 3 ranks with one ghost point on each side (the seed's algorithm): explicit
! time steps, ghost points exchanged with MPI_SEND / MPI_RECV.  Each rank
! writes its 5 points after 3 steps to data<rank>.dat.  Fixed form, mpif.h.
      PROGRAM HEATEQ
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IGLOBAL, ILOCAL, ITIME
      INTEGER IERR, NNODES, MYID
      INTEGER DEST, FROM, STATUS(MPI_STATUS_SIZE), TAG, MSGSZ
      DOUBLE PRECISION XALP, DELX, DELT, PI
      DOUBLE PRECISION T(0:100,0:5)
      CHARACTER(LEN=20) FILEN
      DELX = 0.1D0
      DELT = 1D-4
      XALP = 2.0D0
      TAG = 7
      MSGSZ = 1
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NNODES, IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, MYID, IERR)
      IF (NNODES .NE. 3) THEN
         IF (MYID .EQ. 0) PRINT *, 'This test needs exactly 3 tasks'
         CALL MPI_FINALIZE(IERR)
         STOP 1
      END IF
      PRINT *, 'Process ', MYID, 'of', NNODES, 'has started'
      PI = 4D0*DATAN(1D0)
      DO ILOCAL = 0, 4
         IGLOBAL = 3*MYID + ILOCAL
         T(0,ILOCAL) = DSIN(PI*DELX*DBLE(IGLOBAL))
      END DO
      PRINT *, 'Processor', MYID, 'has finished setting initial',
     +         ' conditions'
      DO ITIME = 1, 3
         IF (MYID .EQ. 0) PRINT *, 'Running Iteration Number ', ITIME
         DO ILOCAL = 1, 3
            T(ITIME,ILOCAL) = T(ITIME-1,ILOCAL) + XALP*DELT/DELX/DELX*
     +        (T(ITIME-1,ILOCAL-1) - 2*T(ITIME-1,ILOCAL)
     +         + T(ITIME-1,ILOCAL+1))
         END DO
!        rank 0 and rank 2 keep their outer boundary values
         IF (MYID .EQ. 0) T(ITIME,0) = T(ITIME-1,0)
         IF (MYID .EQ. 2) T(ITIME,4) = T(ITIME-1,4)
         IF (MYID .EQ. 0) THEN
            PRINT *, 'Sending and receiving overlap points'
            DEST = 1
            CALL MPI_SEND(T(ITIME,3), MSGSZ, MPI_DOUBLE_PRECISION,
     +           DEST, TAG, MPI_COMM_WORLD, IERR)
            FROM = 1
            CALL MPI_RECV(T(ITIME,4), MSGSZ, MPI_DOUBLE_PRECISION,
     +           FROM, TAG, MPI_COMM_WORLD, STATUS, IERR)
         ELSE IF (MYID .EQ. 1) THEN
            FROM = 0
            CALL MPI_RECV(T(ITIME,0), MSGSZ, MPI_DOUBLE_PRECISION,
     +           FROM, TAG, MPI_COMM_WORLD, STATUS, IERR)
            DEST = 2
            CALL MPI_SEND(T(ITIME,3), MSGSZ, MPI_DOUBLE_PRECISION,
     +           DEST, TAG, MPI_COMM_WORLD, IERR)
            FROM = 2
            CALL MPI_RECV(T(ITIME,4), MSGSZ, MPI_DOUBLE_PRECISION,
     +           FROM, TAG, MPI_COMM_WORLD, STATUS, IERR)
            DEST = 0
            CALL MPI_SEND(T(ITIME,1), MSGSZ, MPI_DOUBLE_PRECISION,
     +           DEST, TAG, MPI_COMM_WORLD, IERR)
         ELSE
            DEST = 1
            CALL MPI_SEND(T(ITIME,1), MSGSZ, MPI_DOUBLE_PRECISION,
     +           DEST, TAG, MPI_COMM_WORLD, IERR)
            FROM = 1
            CALL MPI_RECV(T(ITIME,0), MSGSZ, MPI_DOUBLE_PRECISION,
     +           FROM, TAG, MPI_COMM_WORLD, STATUS, IERR)
         END IF
      END DO
      IF (MYID .EQ. 0) PRINT *,
     +     'SOLUTION SENT TO FILE AFTER 3 TIMESTEPS:'
      FILEN = 'data'//CHAR(MYID+48)//'.dat'
      OPEN (15, FILE=FILEN)
      WRITE (15,*) 'Processor ', MYID
      DO ILOCAL = 0, 4
         IGLOBAL = 3*MYID + ILOCAL
         WRITE (15,*) 'ilocal=', ILOCAL, ';iglobal=', IGLOBAL, ';T=',
     +        T(3,ILOCAL)
      END DO
      CLOSE (15)
      CALL MPI_FINALIZE(IERR)
      END
