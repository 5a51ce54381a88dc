/* SPDX-License-Identifier: MIT */
/* The shared file pointer: a small hidden file beside the file
 * (".<name>.courier-shfp.<pid>.<n>", named by rank 0 at open), read and
 * updated under an exclusive byte-range lock.  Every rank of every host that
 * sees the file system sees the same pointer, whatever the other ranks are
 * doing (no rank has to serve it), and a rank that dies mid-update leaves a
 * valid value: the pointer is kept in two slots {generation, value, check},
 * each update writes the older slot, and a reader takes the valid slot with
 * the higher generation.  The file is created on first use and removed by
 * MPI_File_close; until it exists the pointer is its initial value (0, or
 * the file's size with MPI_MODE_APPEND). */
#define _GNU_SOURCE
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    int64_t gen, value;
    uint64_t check;
    int64_t pad;
} slot_t;

static uint64_t slot_check(const slot_t *s)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)s->gen;
    h = (h ^ (h >> 31)) * 0xbf58476d1ce4e5b9ull ^ (uint64_t)s->value;
    return (h ^ (h >> 27)) * 0x94d049bb133111ebull;
}

static int shfp_open(cr_file_t *fh, const char *fname)
{
    if (fh->shfp_fd >= 0) return MPI_SUCCESS;
    int fd = open(fh->shfp_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return io_errno(errno, fname, "cannot open the shared file pointer's file", fh->shfp_path);
    fh->shfp_fd = fd;
    return MPI_SUCCESS;
}

/* Read the current slot (under the lock): its index and value. */
static int shfp_read(cr_file_t *fh, int *cur, int64_t *value, int64_t *gen, const char *fname)
{
    slot_t s[2];
    size_t got;
    int e = io_pread(fh->shfp_fd, s, sizeof s, 0, &got);
    if (e) return io_errno(e, fname, "cannot read the shared file pointer", fh->shfp_path);
    int best = -1;
    for (int i = 0; i < 2; i++) {
        if (got < (size_t)(i + 1) * sizeof(slot_t)) break;
        if (s[i].check != slot_check(&s[i]) || s[i].gen <= 0) continue;
        if (best < 0 || s[i].gen > s[best].gen) best = i;
    }
    if (best < 0) {   /* never written */
        *cur = 1;
        *value = fh->shfp_init;
        *gen = 0;
        return MPI_SUCCESS;
    }
    *cur = best;
    *value = s[best].value;
    *gen = s[best].gen;
    return MPI_SUCCESS;
}

static int shfp_write(cr_file_t *fh, int cur, int64_t gen, int64_t value, const char *fname)
{
    slot_t s = { gen + 1, value, 0, 0 };
    s.check = slot_check(&s);
    int e = io_pwrite(fh->shfp_fd, &s, sizeof s, (int64_t)(1 - cur) * (int64_t)sizeof s);
    if (e) return io_errno(e, fname, "cannot update the shared file pointer", fh->shfp_path);
    return MPI_SUCCESS;
}

/* Read the pointer, and with set != NULL replace it by set(old, arg). */
static int shfp_update(cr_file_t *fh, int write, int64_t add, int absolute, int64_t *old,
                       const char *fname)
{
    int err = shfp_open(fh, fname);
    if (err) return err;
    int e = io_lock(fh->shfp_fd, write, 0, 2 * (int64_t)sizeof(slot_t));
    if (e) return io_errno(e, fname, "cannot lock the shared file pointer", fh->shfp_path);
    int cur;
    int64_t value, gen;
    err = shfp_read(fh, &cur, &value, &gen, fname);
    if (!err) {
        if (old) *old = value;
        if (write) err = shfp_write(fh, cur, gen, absolute ? add : value + add, fname);
    }
    io_unlock(fh->shfp_fd, 0, 2 * (int64_t)sizeof(slot_t));
    return err;
}

int io_shfp_fetch_add(cr_file_t *fh, int64_t delta, int64_t *old, const char *fname)
{
    return shfp_update(fh, 1, delta, 0, old, fname);
}

int io_shfp_set(cr_file_t *fh, int64_t value, const char *fname)
{
    return shfp_update(fh, 1, value, 1, NULL, fname);
}

int io_shfp_get(cr_file_t *fh, int64_t *value, const char *fname)
{
    if (fh->shfp_fd < 0 && access(fh->shfp_path, F_OK) != 0) {
        *value = fh->shfp_init;
        return MPI_SUCCESS;
    }
    return shfp_update(fh, 0, 0, 0, value, fname);
}

void io_shfp_close(cr_file_t *fh, int remove)
{
    if (fh->shfp_fd >= 0) close(fh->shfp_fd);
    fh->shfp_fd = -1;
    if (remove && fh->shfp_path) unlink(fh->shfp_path);
}

/* ---- MPI_File_seek_shared, MPI_File_get_position_shared ---------------------------------- */
/* The end of the file as an etype offset of the view: the etypes wholly
 * before the file's size. */
int64_t io_view_eof_etypes(cr_file_t *fh)
{
    struct stat st;
    if (fstat(fh->fd, &st) != 0) return 0;
    const io_view_t *v = &fh->view;
    int64_t pos = v->monotonic ? io_view_pos(v, st.st_size) : st.st_size - v->disp;
    if (pos < 0) pos = 0;
    return pos / v->esize;
}

int core_file_seek_shared(cr_file_t *fh, MPI_Offset offset, int whence)
{
    static const char fname[] = "MPI_File_seek_shared";
    int64_t chk[4] = { offset, -offset, whence, -whence };
    int err = io_coll_max(fh, chk, 4);   /* also: every earlier shared access is done */
    if (err) return err;
    if (chk[0] != -chk[1] || chk[2] != -chk[3])
        return cr_error(MPI_ERR_NOT_SAME, "%s: offset=%lld whence=%d here; other ranks differ", fname,
                        (long long)offset, whence);
    int64_t res[2] = { 0, 0 };   /* error class, errno */
    if (fh->rank == 0) {
        int64_t base = 0;
        if (whence == MPI_SEEK_CUR) err = io_shfp_get(fh, &base, fname);
        else if (whence == MPI_SEEK_END) base = io_view_eof_etypes(fh);
        else if (whence != MPI_SEEK_SET)
            err = cr_error(MPI_ERR_ARG, "%s: whence=%d is not MPI_SEEK_SET, _CUR or _END", fname, whence);
        if (!err && base + offset < 0)
            err = cr_error(MPI_ERR_ARG, "%s: offset=%lld would move the pointer before the view's "
                           "start (to %lld)", fname, (long long)offset, (long long)(base + offset));
        if (!err) err = io_shfp_set(fh, base + offset, fname);
        res[0] = err ? cr_error_class(err) : 0;
    }
    int rc = io_coll_bcast(fh, res, sizeof res, 0);
    if (rc) return rc;
    if (fh->rank == 0) return err;
    if (res[0]) return cr_error((int)res[0], "%s: offset=%lld whence=%d: rank 0 could not move the "
                                "shared file pointer", fname, (long long)offset, whence);
    return MPI_SUCCESS;
}

int core_file_get_position_shared(cr_file_t *fh, MPI_Offset *offset)
{
    int64_t v;
    int err = io_shfp_get(fh, &v, "MPI_File_get_position_shared");
    if (!err) *offset = v;
    return err;
}
