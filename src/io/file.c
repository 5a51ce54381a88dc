/* SPDX-License-Identifier: MIT */
/* File objects: handles, MPI_File_open / close / delete, sizes, groups,
 * access modes, hints, sync and atomicity, and the small collectives the
 * layer runs on a file's private communicator.
 *
 * MPI_File is a pointer type in the MPICH ABI; Courier's file handles are
 * ordinary Courier handles (kind CR_K_FILE, an index into a table) stored in
 * it, so MPI_File_c2f is a cast and a stale handle is detected.
 *
 * Open is collective and all-or-nothing: with MPI_MODE_CREATE rank 0 creates
 * the file first (so MPI_MODE_EXCL has one winner), then every rank opens it,
 * and one allgather tells every rank of every failure, the node each rank
 * is on (for choosing aggregators), the access mode (which must agree), the
 * size (MPI_MODE_APPEND) and the token naming the shared-pointer file. */
#define _GNU_SOURCE
#include "io/io.h"
#include "coll/api.h"
#include "core/comm_priv.h"
#include "core/errh.h"
#include "util/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static cr_objtab_t file_tab;

static inline MPI_File handle_of(int h)
{
    return (MPI_File)(uintptr_t)(uint32_t)h;
}

cr_file_t *cr_file_ptr(MPI_File h)
{
    uintptr_t u = (uintptr_t)h;
    if (u > UINT32_MAX) return NULL;
    int v = (int)(uint32_t)u;
    if (CR_H_STORAGE(v) != CR_ST_USER || CR_H_KIND(v) != CR_K_FILE) return NULL;
    cr_file_t *f = cr_objtab_get(&file_tab, CR_H_INDEX(v));
    return f && f->handle == h ? f : NULL;
}

cr_errhandler_t **cr_file_errh_slot(cr_file_t *f)
{
    return &f->errh;
}

MPI_File cr_file_handle(const cr_file_t *f)
{
    return f->handle;
}

int core_file_c2f(MPI_File file)
{
    return cr_file_ptr(file) ? (int)(uint32_t)(uintptr_t)file : 0;
}

MPI_File core_file_f2c(MPI_Fint file)
{
    MPI_File h = handle_of(file);
    return cr_file_ptr(h) ? h : MPI_FILE_NULL;
}

/* MPI 5.0's serialization: the handle integer itself, unchecked (an invalid
 * handle is erroneous there), so toint(MPI_FILE_NULL) is 0 and back. */
int core_file_toint(MPI_File file)
{
    return (int)(uint32_t)(uintptr_t)file;
}

MPI_File core_file_fromint(int file)
{
    return handle_of(file);
}

/* ---- collectives on the file's communicator ---------------------------------------- */
int io_coll_bcast(cr_file_t *fh, void *buf, size_t bytes, int root)
{
    if (fh->size == 1 || bytes == 0) return MPI_SUCCESS;
    return core_bcast(buf, (MPI_Count)bytes, cr_datatype_ptr(MPI_BYTE), root, fh->comm, CR_BLOCKING,
                      NULL, NULL);
}

int io_coll_allgather(cr_file_t *fh, const int64_t *in, int n, int64_t *out)
{
    if (fh->size == 1) {
        memcpy(out, in, (size_t)n * sizeof *in);
        return MPI_SUCCESS;
    }
    cr_datatype_t *t = cr_datatype_ptr(MPI_INT64_T);
    return core_allgather(in, n, t, out, n, t, fh->comm, CR_BLOCKING, NULL, NULL);
}

int io_coll_max(cr_file_t *fh, int64_t *inout, int n)
{
    if (fh->size == 1) return MPI_SUCCESS;
    return core_allreduce(MPI_IN_PLACE, inout, n, cr_datatype_ptr(MPI_INT64_T), cr_op_ptr(MPI_MAX),
                          fh->comm, CR_BLOCKING, NULL, NULL);
}

int io_coll_barrier(cr_file_t *fh)
{
    if (fh->size == 1) return MPI_SUCCESS;
    return core_barrier(fh->comm, CR_BLOCKING, NULL, NULL);
}

/* Rank 0's hints on every rank (after each rank applied its info). */
int io_hints_agree(cr_file_t *fh, cr_info_t *info, const char *fname)
{
    int err = io_hints_apply(&fh->hints, &fh->kept, info, fname);
    int64_t e = err ? cr_error_class(err) : 0;
    int rc = io_coll_max(fh, &e, 1);
    if (rc) return rc;
    if (e) return err ? err : cr_error((int)e, "%s: another rank's info was not accepted", fname);
    return io_coll_bcast(fh, &fh->hints, sizeof fh->hints, 0);
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* Aggregators: cb_nodes of them (0: io_cb_per_node of each node's ranks,
 * all of them when that is 0), taken from the nodes in turn, the lowest
 * ranks of each node first; domains go to them in rank order. */
static int choose_aggregators(cr_file_t *fh)
{
    int *start = calloc((size_t)fh->nnodes + 1, sizeof *start);
    if (!start) return -1;
    for (int r = 0; r < fh->size; r++) start[fh->node_of[r] + 1]++;
    int want = (int)fh->hints.cb_nodes;
    if (want <= 0) {
        /* every node's share: its ranks read and copy in parallel */
        long per = fh->hints.cb_per_node;
        want = 0;
        for (int k = 0; k < fh->nnodes; k++)
            want += per > 0 && start[k + 1] > per ? (int)per : start[k + 1];
    }
    if (want > fh->size) want = fh->size;
    if (want < 1) want = 1;
    int *aggr = malloc((size_t)want * sizeof *aggr);
    int *byn = malloc((size_t)fh->size * sizeof *byn);
    if (!aggr || !byn) {
        free(aggr);
        free(start);
        free(byn);
        return -1;
    }
    for (int k = 0; k < fh->nnodes; k++) start[k + 1] += start[k];
    int *fill = malloc((size_t)fh->nnodes * sizeof *fill);
    if (!fill) {
        free(aggr);
        free(start);
        free(byn);
        return -1;
    }
    memcpy(fill, start, (size_t)fh->nnodes * sizeof *fill);
    for (int r = 0; r < fh->size; r++) byn[fill[fh->node_of[r]]++] = r;
    free(fill);
    int n = 0;
    for (int k = 0; n < want; k++) {
        int any = 0;
        for (int node = 0; node < fh->nnodes && n < want; node++)
            if (start[node] + k < start[node + 1]) {
                aggr[n++] = byn[start[node] + k];
                any = 1;
            }
        if (!any) break;
    }
    qsort(aggr, (size_t)n, sizeof *aggr, cmp_int);
    free(start);
    free(byn);
    free(fh->aggr);
    fh->aggr = aggr;
    fh->naggr = n;
    return 0;
}

/* This process's node: the lowest world rank that shares its node. */
static int64_t my_node(void)
{
    if (cr_proc.local_of_world)
        for (int r = 0; r < cr_proc.world_size; r++)
            if (cr_proc.local_of_world[r] >= 0) return r;
    return cr_proc.world_rank;
}

static void file_destroy(cr_file_t *f)
{
    if (!f) return;
    if (f->fd >= 0) close(f->fd);
    io_shfp_close(f, 0);
    if (f->handle != MPI_FILE_NULL) cr_objtab_remove(&file_tab, CR_H_INDEX((int)(uintptr_t)f->handle));
    io_view_free(&f->view);
    io_kv_free(&f->kept);
    if (f->errh) cr_errhandler_release(f->errh);
    if (f->comm) cr_comm_release(f->comm);
    free(f->node_of);
    free(f->aggr);
    free(f->path);
    free(f);
}

static int check_amode(int amode, const char *fname)
{
    int rw = !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    const int known = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
                      MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL |
                      MPI_MODE_APPEND | MPI_MODE_SEQUENTIAL;
    if (amode & ~known)
        return cr_error(MPI_ERR_AMODE, "%s: amode=0x%x has unknown bits 0x%x", fname, amode, amode & ~known);
    if (rw != 1)
        return cr_error(MPI_ERR_AMODE, "%s: amode=0x%x must have exactly one of MPI_MODE_RDONLY, "
                        "MPI_MODE_WRONLY and MPI_MODE_RDWR", fname, amode);
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return cr_error(MPI_ERR_AMODE, "%s: amode=0x%x: MPI_MODE_RDONLY with MPI_MODE_CREATE or "
                        "MPI_MODE_EXCL", fname, amode);
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        return cr_error(MPI_ERR_AMODE, "%s: amode=0x%x: MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL", fname,
                        amode);
    return MPI_SUCCESS;
}

/* Open path as amode asks; with create, create it (exclusively with EXCL).
 * WRONLY files are opened read-write where allowed, so that sieved and
 * aggregated writes can read the holes they fill.  Returns an fd or -errno. */
static int open_fd(const char *path, int amode, int create, long perm, int *readable)
{
    int flags = O_CLOEXEC;
    if (create && (amode & MPI_MODE_CREATE)) flags |= O_CREAT | ((amode & MPI_MODE_EXCL) ? O_EXCL : 0);
    mode_t mode = perm >= 0 ? (mode_t)perm : 0666;
    int fd;
    *readable = 1;
    if (amode & MPI_MODE_RDONLY) {
        fd = open(path, flags | O_RDONLY, mode);
    } else {
        fd = open(path, flags | O_RDWR, mode);
        if (fd < 0 && (errno == EACCES || errno == EROFS) && (amode & MPI_MODE_WRONLY)) {
            fd = open(path, flags | O_WRONLY, mode);
            *readable = 0;
        }
    }
    if (fd < 0) return -errno;
    if (perm >= 0 && (flags & O_CREAT)) (void)fchmod(fd, (mode_t)perm);
    return fd;
}

static unsigned long open_seq;

int core_file_open(cr_comm_t *comm, const char *filename, int amode, cr_info_t *info,
                   MPI_File *fh, const char *fname)
{
    if (comm->remote)
        return cr_error(MPI_ERR_COMM, "%s: comm=0x%08x is an intercommunicator", fname,
                        (unsigned)comm->handle);
    int err = check_amode(amode, fname);
    if (err) return err;
    if (!filename || !*filename)
        return cr_error(MPI_ERR_BAD_FILE, "%s: filename is %s", fname, filename ? "empty" : "NULL");
    cr_file_t *f = calloc(1, sizeof *f);
    if (!f) return cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    f->fd = -1;
    f->shfp_fd = -1;
    f->handle = MPI_FILE_NULL;
    io_view_init_default(&f->view);
    io_hints_default(&f->hints);
    uint32_t ctx;
    if ((err = cr_ctx_alloc(comm, &ctx))) {
        file_destroy(f);
        return err;
    }
    comm->group->refcount++;
    f->comm = cr_comm_make_internal(comm->group, ctx);
    if (!f->comm) {
        file_destroy(f);
        return cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    f->rank = f->comm->rank;
    f->size = f->comm->size;
    f->amode = amode;
    f->path = strdup(io_fs_strip_prefix(filename));
    if (!f->path) {
        file_destroy(f);
        return cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    if ((err = io_hints_agree(f, info, fname))) {
        file_destroy(f);
        return err;
    }

    /* rank 0 creates, then the others open */
    int64_t rc0 = 0;
    if (f->rank == 0) {
        f->fd = open_fd(f->path, amode, 1, f->hints.file_perm, &f->readable);
        if (f->fd < 0) rc0 = -f->fd;
    }
    if (amode & MPI_MODE_CREATE) {
        if ((err = io_coll_bcast(f, &rc0, sizeof rc0, 0))) {
            file_destroy(f);
            return err;
        }
    }
    int64_t mine[6] = { 0, my_node(), amode, 0, (int64_t)getpid(), (int64_t)++open_seq };
    if (f->rank == 0) mine[0] = rc0;
    else if (!rc0) {
        f->fd = open_fd(f->path, amode, 0, f->hints.file_perm, &f->readable);
        if (f->fd < 0) mine[0] = -f->fd;
    }
    struct stat st;
    if (f->fd >= 0 && fstat(f->fd, &st) == 0) mine[3] = st.st_size;
    int64_t *all = malloc((size_t)f->size * sizeof mine);
    if (!all) {
        file_destroy(f);
        return cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    if ((err = io_coll_allgather(f, mine, 6, all))) {
        free(all);
        file_destroy(f);
        return err;
    }
    for (int r = 0; r < f->size; r++) {
        if (all[6 * r]) {
            int e = (int)all[6 * r];
            err = r == f->rank ? io_errno(e, fname, "cannot open", f->path)
                               : io_errno(e, fname, r == 0 && (amode & MPI_MODE_CREATE) && rc0
                                                       ? "rank 0 cannot create" : "another rank cannot open",
                                          f->path);
            break;
        }
        if (all[6 * r + 2] != amode) {
            err = cr_error(MPI_ERR_NOT_SAME, "%s: amode=0x%x here, 0x%x at rank %d", fname, amode,
                           (int)all[6 * r + 2], r);
            break;
        }
    }
    if (!err) {
        /* nodes in order of first appearance */
        f->node_of = malloc((size_t)f->size * sizeof *f->node_of);
        if (!f->node_of) err = cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
        for (int r = 0; !err && r < f->size; r++) {
            int n = -1;
            for (int q = 0; q < r && n < 0; q++)
                if (all[6 * q + 1] == all[6 * r + 1]) n = f->node_of[q];
            f->node_of[r] = n >= 0 ? n : f->nnodes++;
        }
        if (!err && choose_aggregators(f)) err = cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    }
    if (!err) {
        f->fs = io_fs_detect(f->path);
        if (amode & MPI_MODE_APPEND) f->fp_ind = f->shfp_init = all[3];
        /* the shared pointer's hidden file, beside the file: rank 0's token */
        const char *slash = strrchr(f->path, '/');
        int dirlen = slash ? (int)(slash - f->path) + 1 : 0;
        if (asprintf(&f->shfp_path, "%.*s.%s.courier-shfp.%lld.%lld", dirlen, f->path,
                     slash ? slash + 1 : f->path, (long long)all[4], (long long)all[5]) < 0) {
            f->shfp_path = NULL;
            err = cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
        }
    }
    free(all);
    if (!err) {
        int idx = cr_objtab_add(&file_tab, f);
        if (idx < 0) err = cr_error(MPI_ERR_NO_MEM, "%s: no memory for a file handle", fname);
        else f->handle = handle_of(CR_H_MAKE(CR_ST_USER, CR_K_FILE, idx));
    }
    if (err) {
        file_destroy(f);
        return err;
    }
    f->errh = cr_file_errh_default();
    *fh = f->handle;
    return MPI_SUCCESS;
}

int core_file_close(cr_file_t *fh)
{
    /* finish what the user should have waited for, so nothing runs on freed state */
    if (fh->split) {
        io_op_wait(fh->split);
        io_op_free(fh->split);
        fh->split = NULL;
    }
    io_op_drain(fh);
    int err = MPI_SUCCESS;
    if (fh->fd >= 0 && close(fh->fd) != 0) err = io_errno(errno, "MPI_File_close", "close", fh->path);
    fh->fd = -1;
    int had_shfp = fh->shfp_fd >= 0;
    io_shfp_close(fh, 0);
    int64_t any_shfp = had_shfp;
    int rc = io_coll_max(fh, &any_shfp, 1);   /* also: everyone is done with the file */
    if (!err) err = rc;
    if (fh->rank == 0) {
        if (any_shfp && fh->shfp_path) unlink(fh->shfp_path);
        if ((fh->amode & MPI_MODE_DELETE_ON_CLOSE) && unlink(fh->path) != 0 && !err)
            err = io_errno(errno, "MPI_File_close", "delete-on-close of", fh->path);
    }
    file_destroy(fh);
    return err;
}

int core_file_delete(const char *filename, cr_info_t *info)
{
    (void)info;
    if (!filename || !*filename)
        return cr_error(MPI_ERR_BAD_FILE, "MPI_File_delete: filename is %s", filename ? "empty" : "NULL");
    const char *path = io_fs_strip_prefix(filename);
    if (unlink(path) != 0) return io_errno(errno, "MPI_File_delete", "cannot delete", path);
    return MPI_SUCCESS;
}

/* ---- sizes ----------------------------------------------------------------------------- */
static int resize(cr_file_t *fh, MPI_Offset size, int grow_only, const char *fname)
{
    if (size < 0)
        return cr_error(MPI_ERR_ARG, "%s: size=%lld: a file size may not be negative", fname, (long long)size);
    if (fh->amode & MPI_MODE_RDONLY)
        return cr_error(MPI_ERR_READ_ONLY, "%s: the file %s is open read-only", fname, fh->path);
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return cr_error(MPI_ERR_UNSUPPORTED_OPERATION, "%s: not allowed on a file opened with "
                        "MPI_MODE_SEQUENTIAL", fname);
    int64_t e = 0;
    if (fh->rank == 0) {
        struct stat st;
        if (fstat(fh->fd, &st) != 0) e = errno;
        else if (!grow_only && st.st_size != size) {
            if (ftruncate(fh->fd, (off_t)size) != 0) e = errno;
        } else if (grow_only && st.st_size < size) {
            int rc = posix_fallocate(fh->fd, st.st_size, (off_t)(size - st.st_size));
            if (rc == EOPNOTSUPP || rc == EINVAL) rc = ftruncate(fh->fd, (off_t)size) ? errno : 0;
            e = rc;
        }
    }
    int err = io_coll_bcast(fh, &e, sizeof e, 0);
    if (err) return err;
    if (e) return io_errno((int)e, fname, "cannot resize", fh->path);
    return MPI_SUCCESS;
}

int core_file_set_size(cr_file_t *fh, MPI_Offset size)
{
    return resize(fh, size, 0, "MPI_File_set_size");
}

int core_file_preallocate(cr_file_t *fh, MPI_Offset size)
{
    return resize(fh, size, 1, "MPI_File_preallocate");
}

int core_file_get_size(cr_file_t *fh, MPI_Offset *size)
{
    struct stat st;
    if (fstat(fh->fd, &st) != 0) return io_errno(errno, "MPI_File_get_size", "cannot stat", fh->path);
    *size = st.st_size;
    return MPI_SUCCESS;
}

/* ---- queries and hints -------------------------------------------------------------------- */
int core_file_get_group(cr_file_t *fh, MPI_Group *group)
{
    cr_group_t *g = fh->comm->group;
    g->refcount++;
    return cr_group_to_handle(g, group);
}

int core_file_get_amode(cr_file_t *fh, int *amode)
{
    *amode = fh->amode;
    return MPI_SUCCESS;
}

int io_file_update_aggregators(cr_file_t *fh, const char *fname)
{
    if (choose_aggregators(fh)) return cr_error(MPI_ERR_NO_MEM, "%s: out of memory", fname);
    return MPI_SUCCESS;
}

int core_file_set_info(cr_file_t *fh, cr_info_t *info)
{
    int err = io_hints_agree(fh, info, "MPI_File_set_info");
    return err ? err : io_file_update_aggregators(fh, "MPI_File_set_info");
}

int core_file_get_info(cr_file_t *fh, MPI_Info *info_used)
{
    return io_hints_to_user(&fh->hints, &fh->kept, fh->naggr, info_used);
}

int core_file_sync(cr_file_t *fh)
{
    if (fh->amode & MPI_MODE_RDONLY) return MPI_SUCCESS;
    if (fsync(fh->fd) != 0 && errno != EINVAL && errno != EROFS)
        return io_errno(errno, "MPI_File_sync", "cannot sync", fh->path);
    return MPI_SUCCESS;
}

int core_file_set_atomicity(cr_file_t *fh, int flag)
{
    int64_t v[2] = { flag != 0, -(int64_t)(flag != 0) };
    int err = io_coll_max(fh, v, 2);
    if (err) return err;
    if (v[0] != -v[1])
        return cr_error(MPI_ERR_NOT_SAME, "MPI_File_set_atomicity: flag=%d here, ranks disagree", flag);
    fh->atomic = flag != 0;
    return MPI_SUCCESS;
}

int core_file_get_atomicity(cr_file_t *fh, int *flag)
{
    *flag = fh->atomic;
    return MPI_SUCCESS;
}
