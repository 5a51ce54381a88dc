! SPDX-License-Identifier: MIT
! mpif.h, fixed form: MPI_FILE_CREATE_ERRHANDLER with a Fortran procedure.
! Its arguments are the INTEGER file handle and the INTEGER error code, by
! reference.  Checked: the handler set on a file is called with that file's
! handle and an error of the right class (a read of a write-only file:
! MPI_ERR_ACCESS), by MPI_FILE_CALL_ERRHANDLER with the code given, and, as
! the default handler (on MPI_FILE_NULL), for a failed MPI_FILE_OPEN with
! MPI_FILE_NULL and MPI_ERR_NO_SUCH_FILE; the call returns the code.
      subroutine myerrh(fh, code)
      implicit none
      include 'mpif.h'
      integer fh, code
      integer ncalls, lastfh, lastcode
      common /errhst/ ncalls, lastfh, lastcode
      ncalls = ncalls + 1
      lastfh = fh
      lastcode = code
      end

      program file_errh
      implicit none
      include 'mpif.h'
      integer ncalls, lastfh, lastcode
      common /errhst/ ncalls, lastfh, lastcode
      external myerrh
      integer ierr, rank, errs, eh, eh2, fh, cls, buf(4), code
      integer status(MPI_STATUS_SIZE)
      character*64 fname

      errs = 0
      ncalls = 0
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      write (fname, '(a,i0,a)') 'file_errh_', rank, '.tmp'
      call MPI_FILE_CREATE_ERRHANDLER(myerrh, eh, ierr)
      if (ierr .ne. MPI_SUCCESS) call bad(errs, rank, 'create')

!     a handler on one file: a read of a write-only file
      call MPI_FILE_OPEN(MPI_COMM_SELF, fname, MPI_MODE_WRONLY +
     &     MPI_MODE_CREATE + MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
     &     fh, ierr)
      if (ierr .ne. MPI_SUCCESS) call bad(errs, rank, 'open')
      call MPI_FILE_SET_ERRHANDLER(fh, eh, ierr)
      call MPI_FILE_GET_ERRHANDLER(fh, eh2, ierr)
      if (eh2 .ne. eh) call bad(errs, rank, 'get_errhandler')
      call MPI_ERRHANDLER_FREE(eh2, ierr)
      call MPI_FILE_READ(fh, buf, 4, MPI_INTEGER, status, ierr)
      call MPI_ERROR_CLASS(ierr, cls, code)
      if (ncalls .ne. 1) call bad(errs, rank, 'handler not called')
      if (lastfh .ne. fh) call bad(errs, rank, 'handle')
      call MPI_ERROR_CLASS(lastcode, cls, code)
      if (cls .ne. MPI_ERR_ACCESS) call bad(errs, rank, 'class')
      if (ierr .ne. lastcode) call bad(errs, rank, 'returned code')

!     MPI_FILE_CALL_ERRHANDLER
      call MPI_FILE_CALL_ERRHANDLER(fh, MPI_ERR_OTHER, ierr)
      if (ncalls .ne. 2 .or. lastfh .ne. fh .or.
     &    lastcode .ne. MPI_ERR_OTHER) call bad(errs, rank, 'call')
      call MPI_FILE_CLOSE(fh, ierr)

!     the default handler: a failed open
      call MPI_FILE_SET_ERRHANDLER(MPI_FILE_NULL, eh, ierr)
      call MPI_FILE_OPEN(MPI_COMM_SELF, 'no/such/dir/file',
     &     MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
      if (ncalls .ne. 3) call bad(errs, rank, 'open: not called')
      if (lastfh .ne. MPI_FILE_NULL) call bad(errs, rank, 'open: fh')
      call MPI_ERROR_CLASS(lastcode, cls, code)
      if (cls .ne. MPI_ERR_NO_SUCH_FILE) call bad(errs, rank,
     &     'open: class')
      call MPI_FILE_SET_ERRHANDLER(MPI_FILE_NULL, MPI_ERRORS_RETURN,
     &     ierr)
      call MPI_ERRHANDLER_FREE(eh, ierr)

      call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. errs .eq. 0) print '(a)', 'PASS'
      call MPI_FINALIZE(ierr)
      end

      subroutine bad(errs, rank, what)
      implicit none
      integer errs, rank
      character*(*) what
      integer ncalls, lastfh, lastcode
      common /errhst/ ncalls, lastfh, lastcode
      print '(a,i0,3a,3(1x,i0))', 'FAIL: rank ', rank, ': ', what,
     &     ':', ncalls, lastfh, lastcode
      errs = errs + 1
      end
