! SPDX-License-Identifier: MIT
! mpif.h, fixed form: MPI_FILE_SET_VIEW with MPI_DISPLACEMENT_CURRENT, which
! the standard makes INTEGER(KIND=MPI_OFFSET_KIND) (as a default INTEGER the
! procedure read 4 bytes of garbage with it and the view went nowhere).  A
! file of a header and one record per rank is read as a stream
! (MPI_MODE_SEQUENTIAL): rank 0 takes the header through the shared pointer,
! then every rank puts its view where that pointer stands and reads its own
! record with MPI_FILE_READ_ORDERED.  Checked: the header, each record, the
! view's displacement (4 bytes) and the status's count.
      program setview_current
      implicit none
      include 'mpif.h'
      integer ierr, rank, nprocs, errs, fh, buf(2), cnt
      integer status(MPI_STATUS_SIZE)
      integer etype, ftype
      integer(kind=MPI_OFFSET_KIND) off, disp
      character*16 rep

      errs = 0
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)

!     the file: header nprocs + 500, then rank r's record r + 1000
      call MPI_FILE_OPEN(MPI_COMM_WORLD, 'setview_current.tmp',
     &     MPI_MODE_WRONLY + MPI_MODE_CREATE, MPI_INFO_NULL, fh, ierr)
      if (ierr .ne. MPI_SUCCESS) call bad(errs, rank, 'open(w)', ierr)
      if (rank .eq. 0) then
         buf(1) = nprocs + 500
         off = 0
         call MPI_FILE_WRITE_AT(fh, off, buf, 1, MPI_INTEGER, status,
     &        ierr)
      endif
      buf(1) = rank + 1000
      off = 4 * (rank + 1)
      call MPI_FILE_WRITE_AT_ALL(fh, off, buf, 1, MPI_INTEGER, status,
     &     ierr)
      if (ierr .ne. MPI_SUCCESS) call bad(errs, rank, 'write', ierr)
      call MPI_FILE_CLOSE(fh, ierr)

      call MPI_FILE_OPEN(MPI_COMM_WORLD, 'setview_current.tmp',
     &     MPI_MODE_RDONLY + MPI_MODE_SEQUENTIAL +
     &     MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, fh, ierr)
      if (ierr .ne. MPI_SUCCESS) call bad(errs, rank, 'open(r)', ierr)
      if (rank .eq. 0) then
         buf(1) = -1
         call MPI_FILE_READ_SHARED(fh, buf, 1, MPI_INTEGER, status,
     &        ierr)
         if (buf(1) .ne. nprocs + 500) call bad(errs, rank, 'header',
     &        buf(1))
      endif
      call MPI_BARRIER(MPI_COMM_WORLD, ierr)
      call MPI_FILE_SET_VIEW(fh, MPI_DISPLACEMENT_CURRENT, MPI_INTEGER,
     &     MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
      if (ierr .ne. MPI_SUCCESS) call bad(errs, rank, 'set_view', ierr)
      call MPI_FILE_GET_VIEW(fh, disp, etype, ftype, rep, ierr)
      if (disp .ne. 4) call bad(errs, rank, 'view displacement',
     &     int(disp))
      buf(1) = -1
      buf(2) = -2
      call MPI_FILE_READ_ORDERED(fh, buf, 1, MPI_INTEGER, status, ierr)
      if (ierr .ne. MPI_SUCCESS) call bad(errs, rank, 'read', ierr)
      if (buf(1) .ne. rank + 1000) call bad(errs, rank, 'record',
     &     buf(1))
      if (buf(2) .ne. -2) call bad(errs, rank, 'beyond', buf(2))
      call MPI_GET_COUNT(status, MPI_INTEGER, cnt, ierr)
      if (cnt .ne. 1) call bad(errs, rank, 'count', cnt)
      call MPI_FILE_CLOSE(fh, ierr)

      call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. errs .eq. 0) print '(a)', 'PASS'
      call MPI_FINALIZE(ierr)
      end

      subroutine bad(errs, rank, what, val)
      implicit none
      integer errs, rank, val
      character*(*) what
      print '(a,i0,3a,i0)', 'FAIL: rank ', rank, ': ', what, ': ', val
      errs = errs + 1
      end
