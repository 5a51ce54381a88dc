/* SPDX-License-Identifier: MIT */
/* The POSIX layer of MPI-IO: file-system detection, whole transfers with
 * pread/pwrite, byte-range locks, and errno -> MPI error class.  Every file
 * system goes through these POSIX calls; detection only changes defaults
 * (docs/io.md). */
#define _GNU_SOURCE
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

/* statfs magic numbers (linux/magic.h and the parallel file systems' own). */
#define FS_MAGIC_TMPFS 0x01021994
#define FS_MAGIC_NFS 0x6969
#define FS_MAGIC_LUSTRE 0x0BD00BD0
#define FS_MAGIC_GPFS 0x47504653
#define FS_MAGIC_PVFS2 0x20030528
#define FS_MAGIC_BEEGFS 0x19830326

int io_fs_detect(const char *path)
{
    struct statfs sf;
    int rc = statfs(path, &sf);
    if (rc != 0) {
        /* the file may not exist yet: ask about its directory */
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash == dir) slash[1] = 0;
        else if (slash) *slash = 0;
        else snprintf(dir, sizeof dir, ".");
        rc = statfs(dir, &sf);
    }
    if (rc != 0) return IO_FS_POSIX;
    switch ((unsigned long)sf.f_type) {
    case FS_MAGIC_TMPFS: return IO_FS_TMPFS;
    case FS_MAGIC_NFS: return IO_FS_NFS;
    case FS_MAGIC_LUSTRE: return IO_FS_LUSTRE;
    case FS_MAGIC_GPFS: return IO_FS_GPFS;
    case FS_MAGIC_PVFS2:
    case FS_MAGIC_BEEGFS: return IO_FS_OTHER_PARALLEL;
    default: return IO_FS_POSIX;
    }
}

const char *io_fs_name(int fs)
{
    switch (fs) {
    case IO_FS_TMPFS: return "tmpfs";
    case IO_FS_NFS: return "nfs";
    case IO_FS_LUSTRE: return "lustre";
    case IO_FS_GPFS: return "gpfs";
    case IO_FS_OTHER_PARALLEL: return "parallel";
    default: return "posix";
    }
}

/* ROMIO lets a name say its file system ("ufs:/tmp/x"); the prefixes it
 * knows are accepted and dropped (every one is served through POSIX). */
const char *io_fs_strip_prefix(const char *name)
{
    static const char *const prefixes[] = {
        "ufs:", "nfs:", "lustre:", "gpfs:", "pvfs2:", "panfs:", "beegfs:", "daos:",
        "testfs:", "xfs:", "tmpfs:", "posix:"
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i]);
        if (!strncasecmp(name, prefixes[i], n)) return name + n;
    }
    return name;
}

int io_errno(int e, const char *fname, const char *what, const char *path)
{
    int cls;
    switch (e) {
    case ENOENT: case ENOTDIR: cls = MPI_ERR_NO_SUCH_FILE; break;
    case EEXIST: cls = MPI_ERR_FILE_EXISTS; break;
    case EACCES: case EPERM: cls = MPI_ERR_ACCESS; break;
    case EROFS: cls = MPI_ERR_READ_ONLY; break;
    case ENOSPC: case EFBIG: cls = MPI_ERR_NO_SPACE; break;
#ifdef EDQUOT
    case EDQUOT: cls = MPI_ERR_QUOTA; break;
#endif
    case ENAMETOOLONG: case EISDIR: case ELOOP: cls = MPI_ERR_BAD_FILE; break;
    case ETXTBSY: cls = MPI_ERR_FILE_IN_USE; break;
    case ENOMEM: cls = MPI_ERR_NO_MEM; break;
    default: cls = MPI_ERR_IO; break;
    }
    return cr_error(cls, "%s: %s %s: %s", fname, what, path ? path : "", strerror(e));
}

int io_pwrite(int fd, const void *buf, size_t n, int64_t off)
{
    const char *p = buf;
    while (n > 0) {
        size_t chunk = n > (size_t)1 << 30 ? (size_t)1 << 30 : n;
        ssize_t w = pwrite(fd, p, chunk, (off_t)off);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (w == 0) return ENOSPC;
        p += w;
        off += w;
        n -= (size_t)w;
    }
    return 0;
}

int io_pwritev(int fd, struct iovec *iov, int n, int64_t off)
{
    while (n > 0) {
        ssize_t w = pwritev(fd, iov, n < IOV_MAX ? n : IOV_MAX, (off_t)off);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        if (w == 0) return ENOSPC;
        off += w;
        for (size_t left = (size_t)w; left > 0 && n > 0;) {
            if (left >= iov->iov_len) {
                left -= iov->iov_len;
                iov++;
                n--;
            } else {
                iov->iov_base = (char *)iov->iov_base + left;
                iov->iov_len -= left;
                left = 0;
            }
        }
        while (n > 0 && iov->iov_len == 0) {
            iov++;
            n--;
        }
    }
    return 0;
}

int64_t io_read_ahead(int fd, int64_t from, int64_t to, int64_t limit)
{
    if (to > limit) to = limit;
    if (to > from) (void)posix_fadvise(fd, (off_t)from, (off_t)(to - from), POSIX_FADV_WILLNEED);
    return to > from ? to : from;
}

void io_write_behind(int fd, int64_t off, int64_t len)
{
    /* a hint: the pages are written again by sync, or by the kernel, if
     * this fails */
    (void)sync_file_range(fd, (off64_t)off, (off64_t)len, SYNC_FILE_RANGE_WRITE);
}

int io_pread(int fd, void *buf, size_t n, int64_t off, size_t *done)
{
    char *p = buf;
    size_t got = 0;
    while (got < n) {
        size_t chunk = n - got > (size_t)1 << 30 ? (size_t)1 << 30 : n - got;
        ssize_t r = pread(fd, p + got, chunk, (off_t)(off + (int64_t)got));
        if (r < 0) {
            if (errno == EINTR) continue;
            *done = got;
            return errno;
        }
        if (r == 0) break;   /* end of file */
        got += (size_t)r;
    }
    *done = got;
    return 0;
}

static int lock_cmd(int fd, int cmd_ofd, int cmd_posix, short type, int64_t off, int64_t len)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)off;
    fl.l_len = (off_t)len;
    int rc;
#ifdef F_OFD_SETLKW
    do rc = fcntl(fd, cmd_ofd, &fl); while (rc < 0 && errno == EINTR);
    if (rc == 0 || errno != EINVAL) return rc < 0 ? errno : 0;
#else
    (void)cmd_ofd;
#endif
    do rc = fcntl(fd, cmd_posix, &fl); while (rc < 0 && errno == EINTR);
    return rc < 0 ? errno : 0;
}

int io_lock(int fd, int write, int64_t off, int64_t len)
{
#ifdef F_OFD_SETLKW
    return lock_cmd(fd, F_OFD_SETLKW, F_SETLKW, write ? F_WRLCK : F_RDLCK, off, len);
#else
    return lock_cmd(fd, 0, F_SETLKW, write ? F_WRLCK : F_RDLCK, off, len);
#endif
}

void io_unlock(int fd, int64_t off, int64_t len)
{
#ifdef F_OFD_SETLK
    lock_cmd(fd, F_OFD_SETLK, F_SETLK, F_UNLCK, off, len);
#else
    lock_cmd(fd, 0, F_SETLK, F_UNLCK, off, len);
#endif
}
