/* SPDX-License-Identifier: MIT */
/* Data access: the family entry of every MPI_File read and write, the
 * memory side of a transfer, run records, and independent access.
 *
 * Independent access of a non-contiguous view goes window by window over
 * the file (ind_rd/wr_buffer_size bytes, like ROMIO's data sieving): the
 * window's stream bytes are walked into run records and then either
 *  - sieved: one read of the window's span, the records copied in or out,
 *    and for writes one write back under a byte-range lock (read-modify-
 *    write); a window without holes is written without the read;
 *  - or moved run by run (one call per block), when sieving is off or the
 *    runs are long (automatic: an average of courier_direct_min_run bytes),
 *    or when a collective chose each rank's own reads (x->direct);
 *  - a file on tmpfs (setting io_mmap): the window (io_mmap_window bytes of
 *    file) is mapped and the blocks copied in or out of the mapping: one
 *    copy, no call per block, nothing read that is not wanted, and ranks
 *    write in parallel.  Reads whose blocks average io_mmap_max_run bytes
 *    or more, and a read window that reaches past the end of the file (a
 *    mapping there faults), go block by block instead; on tmpfs nothing is
 *    sieved (the page cache is the storage: a read of it is a copy).
 * Contiguous views are one call (or one per staging chunk when memory is
 * not contiguous).  Memory that is contiguous is never copied.
 *
 * A sieved write holds a write lock on its window from the read to the
 * write back, always (as ROMIO's): the window holds bytes of other writers,
 * ranks of this handle or handles of other opens of the file (ranks that
 * each open it over MPI_COMM_SELF), and none of their bytes may be lost.
 * Other writes take a write lock on what they change whenever another rank
 * of the handle may sieve: when sieving is not disabled and some rank's
 * view is not contiguous (set_view agrees on it; with contiguous views
 * nobody sieves, and writes make no lock calls, as ROMIO's); atomic mode
 * locks the whole range of every access (read locks for reads), which makes
 * conflicting accesses of different ranks sequentially consistent. */
#define _GNU_SOURCE
#include "io/io.h"
#include "core/datatype.h"
#include "util/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- run records -------------------------------------------------------------------- */
int io_sink_flush(io_sink_t *s)
{
    if (!s->cur.count) return 0;
    int err = s->put(s, &s->cur);
    s->cur.count = 0;
    return err;
}

int io_sink_push(io_sink_t *s, int64_t off, int64_t len, int64_t stride, int64_t count)
{
    if (len <= 0 || count <= 0) return 0;
    if (count > 1 && stride == len) {
        len *= count;
        count = 1;
    }
    if (count == 1) stride = 0;
    io_run_t *c = &s->cur;
    if (c->count) {
        if (c->count == 1 && count == 1 && off == c->off + c->len) {
            c->len += len;
            return 0;
        }
        if (len == c->len) {
            if (c->count == 1) {
                int64_t d = off - c->off;
                if (d > len && (count == 1 || stride == d)) {
                    c->stride = d;
                    c->count += count;
                    return 0;
                }
            } else if (off == c->off + c->count * c->stride && (count == 1 || stride == c->stride)) {
                c->count += count;
                return 0;
            }
        }
        int err = s->put(s, c);
        if (err) return err;
    }
    *c = (io_run_t){ off, len, stride, count };
    return 0;
}

static int runvec_put(io_sink_t *s, const io_run_t *r)
{
    io_runvec_t *rv = (io_runvec_t *)s;
    if (rv->n == rv->cap) {
        int cap = rv->cap ? 2 * rv->cap : 64;
        io_run_t *v = realloc(rv->v, (size_t)cap * sizeof *v);
        if (!v) return cr_error(MPI_ERR_NO_MEM, "out of memory for run records");
        rv->v = v;
        rv->cap = cap;
    }
    rv->v[rv->n++] = *r;
    rv->bytes += r->len * r->count;
    return 0;
}

void io_runvec_init(io_runvec_t *rv)
{
    memset(rv, 0, sizeof *rv);
    rv->s.put = runvec_put;
}

int io_runvec_finish(io_runvec_t *rv)
{
    return io_sink_flush(&rv->s);
}

void io_runvec_free(io_runvec_t *rv)
{
    free(rv->v);
    rv->v = NULL;
    rv->n = rv->cap = 0;
}

static void runvec_reset(io_runvec_t *rv)
{
    rv->n = 0;
    rv->bytes = 0;
    rv->s.cur.count = 0;
}

/* n blocks of SZ bytes, stride apart in the file buffer, to or from the stream. */
#define RUN_LOOP(SZ)                                                             \
    do {                                                                         \
        if (dir == 0)                                                            \
            for (int64_t j = 0; j < n; j++, f += stride, s += (SZ)) memcpy(f, s, (SZ)); \
        else                                                                     \
            for (int64_t j = 0; j < n; j++, f += stride, s += (SZ)) memcpy(s, f, (SZ)); \
    } while (0)

static char *blocks_copy(int dir, char *f, int64_t stride, int64_t len, int64_t n, char *s)
{
    switch (len) {
    case 1: RUN_LOOP(1); break;
    case 2: RUN_LOOP(2); break;
    case 4: RUN_LOOP(4); break;
    case 8: RUN_LOOP(8); break;
    case 16: RUN_LOOP(16); break;
    case 32: RUN_LOOP(32); break;
    default: RUN_LOOP((size_t)len); break;
    }
    return s;
}

void io_runs_copy(int dir, const io_run_t *r, int nr, char *fbuf, int64_t base, char *stream)
{
    for (int i = 0; i < nr; i++)
        stream = blocks_copy(dir, fbuf + (r[i].off - base), r[i].stride, r[i].len, r[i].count, stream);
}

/* ---- the memory side -------------------------------------------------------------------- */
int io_access_bytes(cr_file_t *fh, MPI_Count count, cr_datatype_t *dt, int64_t *bytes,
                    const char *fname)
{
    int64_t each = io_view_type_size(&fh->view, dt);
    if (each < 0)
        return cr_error(MPI_ERR_UNSUPPORTED_DATAREP, "%s: datatype=0x%08x has no size under data "
                        "representation \"%s\"", fname, (unsigned)dt->handle, fh->view.datarep);
    int64_t n = (int64_t)count * each;
    if (n % fh->view.esize)
        return cr_error(MPI_ERR_ARG, "%s: count=%lld of datatype=0x%08x is %lld bytes in the file, "
                        "not a whole number of etypes of %lld bytes", fname, (long long)count,
                        (unsigned)dt->handle, (long long)n, (long long)fh->view.esize);
    *bytes = n;
    return MPI_SUCCESS;
}

int io_xfer_init(io_xfer_t *x, cr_file_t *fh, int write, const void *buf, MPI_Count count,
                 cr_datatype_t *dt, int64_t vpos, int64_t n, const char *fname)
{
    memset(x, 0, sizeof *x);
    x->fh = fh;
    x->write = write;
    x->buf = (char *)buf;
    x->count = count;
    x->dt = dt;
    x->vpos = vpos;
    x->n = n;
    cr_dt_retain(dt);
    if (fh->view.rep_kind != IO_REP_NATIVE && n > 0) {
        x->conv = malloc((size_t)n);
        if (!x->conv) {
            cr_dt_release(dt);
            x->dt = NULL;
            return cr_error(MPI_ERR_NO_MEM, "%s: no memory to convert %lld bytes", fname, (long long)n);
        }
        if (write) {
            int err = io_datarep_convert(&fh->view, CR_DT_PACK, x->buf, count, dt, x->conv, fname);
            if (err) {
                free(x->conv);
                x->conv = NULL;
                cr_dt_release(dt);
                x->dt = NULL;
                return err;
            }
        }
    }
    return MPI_SUCCESS;
}

int io_xfer_finish(io_xfer_t *x, int err, MPI_Status *st, const char *fname)
{
    MPI_Count mem = x->done;
    if (x->conv) {
        int64_t each = x->count ? x->n / x->count : 0;
        MPI_Count elems = each ? x->done / each : 0;
        if (!x->write && !err && elems > 0)
            err = io_datarep_convert(&x->fh->view, CR_DT_UNPACK, x->buf, elems, x->dt, x->conv, fname);
        mem = elems * (x->dt ? x->dt->size : 0);
        free(x->conv);
        x->conv = NULL;
    }
    if (st != MPI_STATUS_IGNORE) {
        st->MPI_SOURCE = MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
        st->count_hi_and_cancelled = 0;
        cr_status_set_bytes(st, err ? 0 : mem);
    }
    if (x->dt) cr_dt_release(x->dt);
    x->dt = NULL;
    return err;
}

char *io_mem_ptr(const io_xfer_t *x, int64_t a, int64_t len)
{
    (void)len;
    if (x->conv) return x->conv + a;
    const cr_datatype_t *dt = x->dt;
    if (dt->contig) return x->buf + dt->true_lb + a;
    if (x->count == 1 && dt->desc) {
        const cr_dt_node_t *r = &cr_dt_desc(dt)->root;
        if (r->count == 1 && (r->nkids == 0 || r->dense))
            return x->buf + r->off + (r->nkids ? r->doff : 0) + a;
    }
    return NULL;
}

void io_mem_pack(const io_xfer_t *x, int64_t a, int64_t len, void *dst)
{
    char *p = io_mem_ptr(x, a, len);
    if (p) memcpy(dst, p, (size_t)len);
    else cr_dt_pack_seg(x->buf, (MPI_Aint)x->count, x->dt, (size_t)a, dst, (size_t)len);
}

void io_mem_unpack(const io_xfer_t *x, int64_t a, int64_t len, const void *src)
{
    char *p = io_mem_ptr(x, a, len);
    if (p) memcpy(p, src, (size_t)len);
    else cr_dt_unpack_seg(x->buf, (MPI_Aint)x->count, x->dt, (size_t)a, src, (size_t)len);
}

/* ---- independent access ---------------------------------------------------------------- */
typedef struct {
    io_xfer_t *x;
    const char *fname;
    char *stage;           /* stream bytes of the window (when memory is not one run) */
    char *sieve;           /* file bytes of the window */
    size_t stage_cap, sieve_cap;
    int lock_writes;       /* take write locks (others may sieve); off in atomic mode */
    int64_t ra_end;        /* direct reads: file bytes before this were asked for ahead */
} indep_t;

static int grow(char **p, size_t *cap, size_t need, const char *fname)
{
    if (need <= *cap) return 0;
    char *n = realloc(*p, need);
    if (!n) return cr_error(MPI_ERR_NO_MEM, "%s: no memory for a %zu-byte I/O buffer", fname, need);
    *p = n;
    *cap = need;
    return 0;
}

/* Stream bytes [a, a + len) of the transfer as contiguous memory: the user's
 * own when they are one run there, else the staging buffer (packed first for
 * writes). */
static int stream_at(indep_t *t, int64_t a, int64_t len, char **out)
{
    char *p = io_mem_ptr(t->x, a, len);
    if (p) {
        *out = p;
        return 0;
    }
    int err = grow(&t->stage, &t->stage_cap, (size_t)len, t->fname);
    if (err) return err;
    if (t->x->write) io_mem_pack(t->x, a, len, t->stage);
    *out = t->stage;
    return 0;
}

/* After a read into what stream_at gave: unpack when it was the stage. */
static void stream_done(indep_t *t, int64_t a, int64_t len, char *p)
{
    if (!t->x->write && p == t->stage && len > 0) io_mem_unpack(t->x, a, len, p);
}

/* File bytes [off, off + n) <-> stream bytes [a, a + n): one contiguous piece. */
static int contig_piece(indep_t *t, int64_t a, int64_t off, int64_t n)
{
    io_xfer_t *x = t->x;
    cr_file_t *fh = x->fh;
    int64_t chunk = x->write ? fh->hints.ind_wr_buffer_size : fh->hints.ind_rd_buffer_size;
    int whole = io_mem_ptr(x, a, n) != NULL;
    if (whole) chunk = n;
    if (chunk < 1) chunk = 1;
    for (int64_t done = 0; done < n;) {
        int64_t k = n - done < chunk ? n - done : chunk;
        char *p;
        int err = stream_at(t, a + done, k, &p);
        if (err) return err;
        if (x->write) {
            if (t->lock_writes && (err = io_lock(fh->fd, 1, off + done, k)))
                return io_errno(err, t->fname, "cannot lock", fh->path);
            err = io_pwrite(fh->fd, p, (size_t)k, off + done);
            if (t->lock_writes) io_unlock(fh->fd, off + done, k);
            if (err) return io_errno(err, t->fname, "cannot write", fh->path);
            x->done += k;
        } else {
            size_t got;
            err = io_pread(fh->fd, p, (size_t)k, off + done, &got);
            if (err) return io_errno(err, t->fname, "cannot read", fh->path);
            stream_done(t, a + done, (int64_t)got, p);
            x->done += (int64_t)got;
            if ((int64_t)got < k) return 1;   /* end of file */
        }
        done += k;
    }
    return 0;
}

static int64_t run_end(const io_run_t *r)
{
    return r->off + (r->count - 1) * r->stride + r->len;
}

/* The records of stream bytes [a, a + len), one block at a time (reads ask
 * for io_read_ahead bytes of the file ahead of the block being read). */
static int direct_blocks(indep_t *t, const io_runvec_t *rv, int64_t a, int64_t len)
{
    io_xfer_t *x = t->x;
    cr_file_t *fh = x->fh;
    char *p;
    int err = stream_at(t, a, len, &p);
    if (err) return err;
    char *s = p;
    int eof = 0;
    int64_t ahead = x->write || fh->fs == IO_FS_TMPFS ? 0 : (int64_t)ut_settings.io_read_ahead;
    int64_t last = run_end(&rv->v[rv->n - 1]);
    for (int i = 0; i < rv->n && !eof; i++) {
        const io_run_t *r = &rv->v[i];
        for (int64_t j = 0; j < r->count && !eof; j++, s += r->len) {
            int64_t off = r->off + j * r->stride;
            if (ahead > 0 && off + r->len > t->ra_end - ahead / 2 && t->ra_end < last)
                t->ra_end = io_read_ahead(fh->fd, off > t->ra_end ? off : t->ra_end, off + ahead, last);
            if (x->write) {
                if (t->lock_writes && (err = io_lock(fh->fd, 1, off, r->len)))
                    return io_errno(err, t->fname, "cannot lock", fh->path);
                err = io_pwrite(fh->fd, s, (size_t)r->len, off);
                if (t->lock_writes) io_unlock(fh->fd, off, r->len);
                if (err) return io_errno(err, t->fname, "cannot write", fh->path);
                x->done += r->len;
            } else {
                size_t got;
                err = io_pread(fh->fd, s, (size_t)r->len, off, &got);
                if (err) return io_errno(err, t->fname, "cannot read", fh->path);
                x->done += (int64_t)got;
                if ((int64_t)got < r->len) eof = 1;
            }
        }
    }
    stream_done(t, a, (int64_t)(s - p), p);
    return eof;
}

static int64_t runvec_blocks(const io_runvec_t *rv)
{
    int64_t n = 0;
    for (int i = 0; i < rv->n; i++) n += rv->v[i].count;
    return n;
}

/* A memory file system (tmpfs: the page cache is the storage): the
 * records' span mapped once and the blocks copied in or out of the mapping,
 * one copy and no call per block, and writes of different ranks copy in
 * parallel (a write call holds the file's lock while it copies).  A write
 * first extends the file to the span's end (fallocate, which never
 * shrinks), as its pwrite would, and holds a read lock on the span when
 * another rank may sieve (a sieving write's write lock excludes it, while
 * ranks that write through mappings go together).  Returns -1 when the span
 * is not mapped (a read reaching past the end of the file, where a mapping
 * faults; a failed fallocate or mmap): the caller moves it another way;
 * else an error or 0. */
static int mapped_blocks(indep_t *t, const io_runvec_t *rv, int64_t a, int64_t len)
{
    io_xfer_t *x = t->x;
    cr_file_t *fh = x->fh;
    int64_t lo = rv->v[0].off, hi = run_end(&rv->v[rv->n - 1]);
    struct stat st;
    if (fstat(fh->fd, &st) != 0) return -1;
    if (hi > st.st_size && (!x->write || fallocate(fh->fd, 0, st.st_size, hi - st.st_size) != 0)) return -1;
    int64_t pg = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
    int64_t mlo = lo - lo % pg;
    size_t mlen = (size_t)(hi - mlo);
    char *m = mmap(NULL, mlen, x->write ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED | MAP_POPULATE,
                   fh->fd, (off_t)mlo);
    if (m == MAP_FAILED) return -1;
    char *p;
    int err = stream_at(t, a, len, &p);
    if (!err && x->write) {
        if (t->lock_writes && (err = io_lock(fh->fd, 0, lo, hi - lo))) {
            err = io_errno(err, t->fname, "cannot lock", fh->path);
        } else {
            io_runs_copy(0, rv->v, rv->n, m, mlo, p);
            if (t->lock_writes) io_unlock(fh->fd, lo, hi - lo);
            x->done += len;
        }
    } else if (!err) {
        io_runs_copy(1, rv->v, rv->n, m, mlo, p);
        stream_done(t, a, len, p);
        x->done += len;
    }
    munmap(m, mlen);
    return err;
}

int io_mapped(const cr_file_t *fh)
{
    return fh->fs == IO_FS_TMPFS && fh->readable && ut_settings.io_mmap;
}

/* One sieved window: the records' span read (writes: when it has holes),
 * the records copied, and written back. */
static int sieve_window(indep_t *t, const io_runvec_t *rv, int64_t a, int64_t len)
{
    io_xfer_t *x = t->x;
    cr_file_t *fh = x->fh;
    int64_t lo = rv->v[0].off, hi = run_end(&rv->v[rv->n - 1]);
    int64_t span = hi - lo;
    int err = grow(&t->sieve, &t->sieve_cap, (size_t)span, t->fname);
    if (err) return err;
    char *p;
    if ((err = stream_at(t, a, len, &p))) return err;
    if (x->write) {
        /* the read-modify-write holds the window's lock whoever else may
         * write there: ranks of this handle, and handles of other opens of
         * the file (a handle over MPI_COMM_SELF knows nothing of them);
         * atomic mode holds the whole access's lock already */
        int holes = rv->bytes != span, lock = !fh->atomic;
        if (lock && (err = io_lock(fh->fd, 1, lo, span)))
            return io_errno(err, t->fname, "cannot lock", fh->path);
        if (holes) {
            size_t got;
            err = io_pread(fh->fd, t->sieve, (size_t)span, lo, &got);
            if (err) {
                if (lock) io_unlock(fh->fd, lo, span);
                return io_errno(err, t->fname, "cannot read (data sieving)", fh->path);
            }
            if ((int64_t)got < span) memset(t->sieve + got, 0, (size_t)(span - (int64_t)got));
        }
        io_runs_copy(0, rv->v, rv->n, t->sieve, lo, p);
        err = io_pwrite(fh->fd, t->sieve, (size_t)span, lo);
        if (lock) io_unlock(fh->fd, lo, span);
        if (err) return io_errno(err, t->fname, "cannot write", fh->path);
        x->done += len;
        return 0;
    }
    size_t got;
    err = io_pread(fh->fd, t->sieve, (size_t)span, lo, &got);
    if (err) return io_errno(err, t->fname, "cannot read", fh->path);
    io_runs_copy(1, rv->v, rv->n, t->sieve, lo, p);
    int64_t avail = len;
    if ((int64_t)got < span) {   /* end of file inside the window */
        avail = io_view_pos(&fh->view, lo + (int64_t)got) - (x->vpos + a);
        if (avail < 0) avail = 0;
        if (avail > len) avail = len;
    }
    stream_done(t, a, avail, p);
    x->done += avail;
    return avail < len;
}

int io_indep(io_xfer_t *x, const char *fname)
{
    cr_file_t *fh = x->fh;
    const io_view_t *v = &fh->view;
    if (x->n <= 0) return MPI_SUCCESS;
    indep_t t = { .x = x, .fname = fname };
    int ds = x->write ? (int)fh->hints.ds_write : (int)fh->hints.ds_read;
    t.lock_writes = x->write && !fh->atomic && fh->size > 1 && fh->hints.ds_write != IO_DISABLE &&
                    fh->any_noncontig;
    int64_t first = io_view_offset(v, x->vpos);
    int64_t last = io_view_offset(v, x->vpos + x->n - 1);
    int one_run = v->contig || (v->monotonic && last - first == x->n - 1);
    int64_t lk_off = 0, lk_len = 0;
    int err = 0;
    if (fh->atomic) {
        /* the whole range, for the whole access */
        if (v->monotonic) {
            lk_off = first;
            lk_len = last + 1 - first;
        }
        if ((err = io_lock(fh->fd, x->write, lk_off, lk_len)))
            return io_errno(err, fname, "cannot lock", fh->path);
    }
    if (one_run) {
        err = contig_piece(&t, 0, first, x->n);
    } else {
        io_runvec_t rv;
        io_runvec_init(&rv);
        /* tmpfs: mapped, window by window */
        int mapped = v->monotonic && io_mapped(fh);
        int64_t win = mapped ? (int64_t)ut_settings.io_mmap_window
                    : x->write ? fh->hints.ind_wr_buffer_size : fh->hints.ind_rd_buffer_size;
        if (win < 1) win = 1;
        int mem_whole = io_mem_ptr(x, 0, x->n) != NULL;
        for (int64_t a = 0; a < x->n && !err;) {
            int64_t end;
            if (v->monotonic) {
                int64_t w = io_view_offset(v, x->vpos + a);
                end = io_view_pos(v, w + win) - x->vpos;
                if (end > x->n) end = x->n;
                if (end <= a) end = a + 1;
            } else {
                end = a + win < x->n ? a + win : x->n;
            }
            runvec_reset(&rv);
            if ((err = io_view_walk(v, x->vpos + a, end - a, &rv.s)) || (err = io_runvec_finish(&rv))) break;
            int64_t nblk = runvec_blocks(&rv);
            int direct = x->direct || mapped || !v->monotonic || ds == IO_DISABLE ||
                         (ds == IO_AUTO && rv.bytes / nblk >= fh->hints.direct_min_run) ||
                         (x->write && !fh->readable && rv.bytes != run_end(&rv.v[rv.n - 1]) - rv.v[0].off);
            if (direct && !mapped && mem_whole && end < x->n) {
                /* long runs: take as much as memory allows in one go */
                int64_t more = x->n - a < ((int64_t)1 << 30) ? x->n : a + ((int64_t)1 << 30);
                runvec_reset(&rv);
                end = more;
                if ((err = io_view_walk(v, x->vpos + a, end - a, &rv.s)) || (err = io_runvec_finish(&rv)))
                    break;
            }
            /* reads of long blocks: a pread each costs less than mapping
             * the span (which maps the bytes between the blocks too) */
            int map = mapped && (x->write || rv.bytes / nblk < (int64_t)ut_settings.io_mmap_max_run);
            err = map ? mapped_blocks(&t, &rv, a, end - a) : -1;
            if (err == -1)
                err = direct ? direct_blocks(&t, &rv, a, end - a) : sieve_window(&t, &rv, a, end - a);
            a = end;
        }
        io_runvec_free(&rv);
    }
    if (fh->atomic) io_unlock(fh->fd, lk_off, lk_len);
    free(t.stage);
    free(t.sieve);
    return err == 1 ? MPI_SUCCESS : err;   /* 1: stopped at the end of the file */
}
