/* SPDX-License-Identifier: MIT */
/* The data access procedures: core_file_access (every MPI_File_read* and
 * MPI_File_write* with its fixed op, src/io/api.h), the _end of split
 * collectives, and the individual file pointer (seek, get_position,
 * get_byte_offset).
 *
 * Positions are taken when the call starts: an explicit offset, the
 * individual pointer (advanced at once by the whole request, except that a
 * blocking independent read that meets the end of the file advances it by
 * what it read), or the shared pointer (one atomic fetch-and-add; ordered
 * accesses agree on it collectively, op.c).  Blocking independent accesses
 * run here; everything else is an operation (op.c). */
#define _GNU_SOURCE
#include "io/io.h"
#include "core/pt2pt.h"

#include <stdlib.h>
#include <string.h>

static int check_access(cr_file_t *fh, int op, MPI_Offset offset, const char *fname)
{
    int write = op & CR_IO_WRITE, ptr = op & CR_IO_PTRMASK;
    if (write && (fh->amode & MPI_MODE_RDONLY))
        return cr_error(MPI_ERR_READ_ONLY, "%s: the file %s was opened with MPI_MODE_RDONLY", fname,
                        fh->path);
    if (!write && (fh->amode & MPI_MODE_WRONLY))
        return cr_error(MPI_ERR_ACCESS, "%s: the file %s was opened with MPI_MODE_WRONLY", fname, fh->path);
    if ((fh->amode & MPI_MODE_SEQUENTIAL) && ptr != CR_IO_SHARED)
        return cr_error(MPI_ERR_UNSUPPORTED_OPERATION, "%s: a file opened with MPI_MODE_SEQUENTIAL "
                        "takes only shared file pointer accesses", fname);
    if (ptr == CR_IO_AT && offset < 0)
        return cr_error(MPI_ERR_ARG, "%s: offset=%lld: an offset may not be negative", fname,
                        (long long)offset);
    if ((op & CR_IO_SPLIT) && fh->split)
        return cr_error(MPI_ERR_OTHER, "%s: a split collective is already active on this file (one "
                        "at a time: call its _end first)", fname);
    return MPI_SUCCESS;
}

int core_file_access(cr_file_t *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                     cr_datatype_t *datatype, MPI_Status *status, int op, cr_how_t how,
                     MPI_Request *request, const char *fname)
{
    int write = op & CR_IO_WRITE, ptr = op & CR_IO_PTRMASK;
    int coll = (op & (CR_IO_COLL | CR_IO_ORDERED)) != 0;
    int err = check_access(fh, op, offset, fname);
    if (err) return err;
    int64_t n;
    if ((err = io_access_bytes(fh, count, datatype, &n, fname))) return err;
    if (n > 0 && fh->view.fsize == 0)
        return cr_error(MPI_ERR_ARG, "%s: the file view has no data (its filetype is empty)", fname);
    int64_t esize = fh->view.esize, etypes = n / esize;
    int64_t vpos = 0;
    if (ptr == CR_IO_AT) {
        vpos = offset * esize;
    } else if (ptr == CR_IO_INDIV) {
        vpos = fh->fp_ind * esize;
    } else if (!(op & CR_IO_ORDERED)) {
        int64_t old;
        if ((err = io_shfp_fetch_add(fh, etypes, &old, fname))) return err;
        vpos = old * esize;
    }

    if (!coll && how == CR_BLOCKING) {
        io_xfer_t x;
        if ((err = io_xfer_init(&x, fh, write, buf, count, datatype, vpos, n, fname))) return err;
        err = io_indep(&x, fname);
        if (ptr == CR_IO_INDIV) fh->fp_ind += write ? etypes : x.done / esize;
        return io_xfer_finish(&x, err, status, fname);
    }

    io_op_t *o = calloc(1, sizeof *o);
    if (!o) return cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    o->fh = fh;
    o->op = op;
    o->fname = fname;
    o->count_etypes = etypes;
    if ((err = io_xfer_init(&o->x, fh, write, buf, count, datatype, vpos, n, fname))) {
        free(o);
        return err;
    }
    if (ptr == CR_IO_INDIV) fh->fp_ind += etypes;
    if (how == CR_NONBLOCKING && !(op & CR_IO_SPLIT)) {
        cr_request_t *r = cr_request_new(CR_REQ_COLL, 1);
        if (!r) {
            io_xfer_finish(&o->x, 0, MPI_STATUS_IGNORE, fname);
            free(o);
            return cr_error(MPI_ERR_NO_MEM, "%s: no memory for a request", fname);
        }
        r->status.MPI_SOURCE = MPI_ANY_SOURCE;
        r->status.MPI_TAG = MPI_ANY_TAG;
        o->req = r;
        *request = r->handle;
        return io_op_start(o);     /* o belongs to the request now */
    }
    io_op_start(o);
    if (op & CR_IO_SPLIT) {
        fh->split = o;
        fh->split_op = op & ~CR_IO_SPLIT;
        return MPI_SUCCESS;
    }
    err = io_op_wait(o);
    if (status != MPI_STATUS_IGNORE) *status = o->status;
    io_op_free(o);
    return err;
}

int core_file_split_end(cr_file_t *fh, const void *buf, MPI_Status *status, int op, const char *fname)
{
    io_op_t *o = fh->split;
    if (!o || fh->split_op != op)
        return cr_error(MPI_ERR_OTHER, "%s: no matching split collective was begun on this file", fname);
    if (buf != o->x.buf)
        return cr_error(MPI_ERR_BUFFER, "%s: buf=%p is not the buffer given to the _begin call (%p)",
                        fname, buf, (void *)o->x.buf);
    fh->split = NULL;
    int err = io_op_wait(o);
    if (status != MPI_STATUS_IGNORE) *status = o->status;
    io_op_free(o);
    return err;
}

/* ---- the individual file pointer -------------------------------------------------------------- */
int core_file_seek(cr_file_t *fh, MPI_Offset offset, int whence)
{
    static const char fname[] = "MPI_File_seek";
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return cr_error(MPI_ERR_UNSUPPORTED_OPERATION, "%s: not allowed on a file opened with "
                        "MPI_MODE_SEQUENTIAL", fname);
    int64_t base;
    switch (whence) {
    case MPI_SEEK_SET: base = 0; break;
    case MPI_SEEK_CUR: base = fh->fp_ind; break;
    case MPI_SEEK_END: base = io_view_eof_etypes(fh); break;
    default:
        return cr_error(MPI_ERR_ARG, "%s: whence=%d is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END",
                        fname, whence);
    }
    if (base + offset < 0)
        return cr_error(MPI_ERR_ARG, "%s: offset=%lld would move the pointer before the view's start "
                        "(to %lld)", fname, (long long)offset, (long long)(base + offset));
    fh->fp_ind = base + offset;
    return MPI_SUCCESS;
}

int core_file_get_position(cr_file_t *fh, MPI_Offset *offset)
{
    *offset = fh->fp_ind;
    return MPI_SUCCESS;
}

int core_file_get_byte_offset(cr_file_t *fh, MPI_Offset offset, MPI_Offset *disp)
{
    if (offset < 0)
        return cr_error(MPI_ERR_ARG, "MPI_File_get_byte_offset: offset=%lld: an offset may not be "
                        "negative", (long long)offset);
    *disp = fh->view.fsize > 0 ? io_view_offset(&fh->view, offset * fh->view.esize) : fh->view.disp;
    return MPI_SUCCESS;
}
