/* SPDX-License-Identifier: MIT */
/* Helpers shared by the MPI-IO tests (tests/mpi/io_*.c): a file name every
 * rank of a communicator agrees on, and the file's bytes read with POSIX
 * calls (what is really in the file, independent of MPI-IO). */
#ifndef COURIER_IOTEST_H
#define COURIER_IOTEST_H
#include "mpitest.h"
#include <fcntl.h>
#include <unistd.h>

/* $TMPDIR (default /tmp)/courier_<tag>_<pid>_<world rank>.dat of rank 0 of comm. */
static inline void mt_io_path(char *path, size_t n, const char *tag, MPI_Comm comm)
{
    int r, wr;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    if (r == 0) {
        const char *d = getenv("TMPDIR");
        snprintf(path, n, "%s/courier_%s_%d_%d.dat", d && *d ? d : "/tmp", tag, (int)getpid(), wr);
    }
    MPI_Bcast(path, (int)n, MPI_CHAR, 0, comm);
}

/* The file's bytes [off, off + n) (a failed check when there are fewer). */
static inline void mt_file_bytes(const char *path, long off, void *dst, size_t n)
{
    memset(dst, 0xEE, n);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open %s", path);
    if (fd < 0) return;
    ssize_t got = pread(fd, dst, n, off);
    CHECK(got == (ssize_t)n, "pread %zd of %zu at %ld", got, n, off);
    close(fd);
}

/* The whole file in a malloc'ed buffer; *n its size. */
static inline void *mt_file_all(const char *path, size_t *n)
{
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0, "open %s", path);
    off_t end = fd >= 0 ? lseek(fd, 0, SEEK_END) : 0;
    char *b = mt_malloc((size_t)end + 1);
    if (fd >= 0) {
        ssize_t got = pread(fd, b, (size_t)end, 0);
        CHECK(got == end, "pread %zd of %lld", got, (long long)end);
        close(fd);
    }
    *n = (size_t)end;
    return b;
}
#endif
