! SPDX-License-Identifier: MIT
! Bounce: ranks pair up (0-1, 2-3, ...); even ranks send a message of
! increasing size to their partner and get it back, NREPEATS times per size;
! rank 0 reports the elapsed time per message, then the latency (zero-length
! message) and the bandwidth (largest message), in the seed's format.
! Needs an even number of ranks.  Fixed form, mpif.h.
      PROGRAM BOUNCE
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER MAXCOUNT, NREPEATS, NSIZES
      PARAMETER (MAXCOUNT=1000000, NREPEATS=50, NSIZES=7)
      DOUBLE PRECISION SBUF(MAXCOUNT), RBUF(MAXCOUNT)
      DOUBLE PRECISION TIME1, TIME2, TLATENCY, BW
      INTEGER LENGTH(NSIZES), STATUS(MPI_STATUS_SIZE)
      INTEGER IERR, NNODES, NODEID, NS, NR, N
      DATA LENGTH /0, 10, 100, 1000, 10000, 100000, 1000000/
      DO N = 1, MAXCOUNT
         SBUF(N) = 0.0D0
         RBUF(N) = 0.0D0
      END DO
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NNODES, IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, NODEID, IERR)
      IF (NODEID .EQ. 0) WRITE (*,*) 'Number of processors =', NNODES
      IF (MOD(NNODES,2) .NE. 0) THEN
         IF (NODEID .EQ. 0)
     +      WRITE (6,*) ' You must specify an even number of nodes.'
         CALL MPI_FINALIZE(IERR)
         STOP 1
      END IF
      TLATENCY = 0.0D0
      BW = 0.0D0
      DO NS = 1, NSIZES
         CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
         TIME1 = MPI_WTIME()
         DO NR = 1, NREPEATS
!           send in one direction i -> i+1
            IF (MOD(NODEID,2) .EQ. 0) THEN
               CALL MPI_SEND(SBUF, LENGTH(NS), MPI_REAL8, NODEID+1, 1,
     +              MPI_COMM_WORLD, IERR)
            ELSE
               CALL MPI_RECV(RBUF, LENGTH(NS), MPI_REAL8, NODEID-1, 1,
     +              MPI_COMM_WORLD, STATUS, IERR)
            END IF
!           and back i+1 -> i
            IF (MOD(NODEID,2) .EQ. 1) THEN
               CALL MPI_SEND(SBUF, LENGTH(NS), MPI_REAL8, NODEID-1, 1,
     +              MPI_COMM_WORLD, IERR)
            ELSE
               CALL MPI_RECV(RBUF, LENGTH(NS), MPI_REAL8, NODEID+1, 1,
     +              MPI_COMM_WORLD, STATUS, IERR)
            END IF
         END DO
         TIME2 = MPI_WTIME()
         IF (NODEID .EQ. 0) THEN
            WRITE (6, FMT='(A,I9,A,10X,A,F10.4,A)') 'msglen =',
     +           8*LENGTH(NS), ' bytes,', 'elapsed time =',
     +           0.5D3*(TIME2-TIME1)/NREPEATS, ' msec'
            CALL FLUSH(6)
         END IF
         IF (NS .EQ. 1) TLATENCY = 0.5D6*(TIME2-TIME1)/NREPEATS
         IF (NS .EQ. NSIZES)
     +      BW = 8.0D0*LENGTH(NS)/(0.5D6*(TIME2-TIME1)/NREPEATS)
      END DO
      IF (NODEID .EQ. 0) THEN
         WRITE (6, FMT='(A,F7.1,A)') 'latency = ', TLATENCY,
     +        ' microseconds'
         WRITE (6,*) 'bandwidth = ', BW, ' MBytes/sec'
         WRITE (6,*) '(approximate values for mpi_send/mpi_recv)'
      END IF
      CALL MPI_FINALIZE(IERR)
      END
