/* SPDX-License-Identifier: MIT */
/* iobench: MPI-IO bandwidth of three access patterns, in standard MPI only, so
 * that the same source builds with any MPI (bench/compare --io builds it with
 * Courier, MPICH and Open MPI).  docs/benchmarks.md describes the use.
 *
 *   mpiexec -n N iobench [--size 1G] [--dir DIR] [--reps 5] [--check] [pattern ...]
 *
 * Patterns (all write one shared file of --size bytes, then read it back):
 *   block2d  a 2-D array of 8-byte elements, R x C, block-distributed over a
 *            process grid (MPI_Dims_create, the larger factor across the
 *            columns, so that every rank's block is strided in the file at 2
 *            ranks too); each rank's view is a subarray filetype;
 *            MPI_File_write_all / MPI_File_read_all of the local block.
 *   strided  the file is blocks of --block bytes; rank r owns blocks r, r+P,
 *            r+2P, ... (the filetype is one block resized to an extent of P
 *            blocks, at displacement r blocks); write_all / read_all.
 *   indep    rank r owns the r-th contiguous P-th of the file and writes and
 *            reads it with MPI_File_write_at / MPI_File_read_at in transfers
 *            of --xfer bytes (independent, default view).
 *
 * Timing.  A write is timed on every rank from just before MPI_File_open to
 * just after MPI_File_close, with MPI_File_sync before the close, so the time
 * includes the transfer of the data to the storage device as MPI_File_sync
 * defines it; a read from before MPI_File_open to after MPI_File_close.  Every
 * repetition starts after an MPI_Barrier, its time is the slowest rank's, and
 * its bandwidth is the file's size over that time (MB/s, 10^6 bytes/s).
 * Before a read the file's pages are dropped from the page cache
 * (posix_fadvise POSIX_FADV_DONTNEED after the sync; tmpfs keeps them, being
 * memory), unless --keep-cache.
 *
 * Checks.  Every byte of the file has a value that depends on its offset and
 * on the repetition, so stale data from an earlier repetition is noticed.
 * Every read's buffer is checked after the timed read.  With --check every
 * rank also reads its contiguous P-th of the file after each write with POSIX
 * pread and checks it (and rank 0 the file's size), independently of the MPI.
 * Files are deleted after every repetition and after an error.
 */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#define IO_MAX_HINTS 16
#define IO_CHECK_CHUNK ((size_t)4 << 20) /* bytes per pread in the --check pass */

enum { PAT_BLOCK2D, PAT_STRIDED, PAT_INDEP, PAT_COUNT };
static const char *const pat_names[PAT_COUNT] = { "block2d", "strided", "indep" };

typedef struct {
    size_t size;            /* requested file size */
    size_t block;           /* strided: bytes per block */
    size_t xfer;            /* indep: bytes per MPI_File_write_at / read_at */
    int reps;
    int check;
    int keep_cache;
    int progress;
    bench_fmt_t fmt;
    const char *dir;
    int want[PAT_COUNT];
    int nhints;
    char *hint_key[IO_MAX_HINTS], *hint_val[IO_MAX_HINTS];
    int rank, np;
} io_opts_t;

/* What one rank does in one pattern: its part of the file as memory runs
 * (the buffer holds `local` bytes), the view and the datatype of the calls. */
typedef struct {
    int pat;
    size_t fsize;           /* bytes in the file */
    size_t local;           /* bytes this rank writes */
    char *buf;
    /* views: etype, filetype, displacement; memory: count of memtype */
    MPI_Datatype etype, ftype, mtype;
    MPI_Offset disp;
    int count;
    /* block2d */
    size_t R, C, r0, c0, lr, lc;
    /* strided */
    size_t nblocks;
    /* indep */
    size_t off0;
    char path[4096];
    char errbuf[MPI_MAX_ERROR_STRING + 128];
} io_job_t;

/* phases of one timed repetition, seconds (the slowest rank's, each) */
typedef struct {
    double total, open, io, sync, close;
} io_time_t;

static io_opts_t opt;
static char libver[256];

static void usage(FILE *f)
{
    fputs("usage: mpiexec -n N iobench [options] [block2d|strided|indep ...]\n"
          "options:\n"
          "  --size S        file size per pattern (default 1G; K, M, G suffixes)\n"
          "  --dir D         directory of the files (default .)\n"
          "  --reps N        timed repetitions of write + read (default 5)\n"
          "  --block S       strided: bytes per block (default 4K)\n"
          "  --xfer S        indep: bytes per write_at / read_at (default 16M)\n"
          "  --hint K=V      an info hint given to MPI_File_open (repeatable)\n"
          "  --check         also check the written file with POSIX reads; prints PASS or FAIL\n"
          "  --quick         --size 64M --reps 3\n"
          "  --keep-cache    do not drop the file's pages from the page cache before a read\n"
          "  --format F      table (default) or json (one object per line)\n"
          "  --progress / --quiet   progress lines on stderr on / off (default: on a terminal)\n",
          f);
}

static void fail_usage(const char *msg, const char *arg)
{
    bench_usage_fail("iobench", usage, msg, arg);
}

/* ---- the file's contents ----------------------------------------------------- */

/* Byte `off` of the file in repetition `seed`: byte (off mod 8) of a 64-bit
 * mix of the word index (splitmix64's finalizer). */
static uint64_t pat_word(uint64_t w, uint64_t seed)
{
    uint64_t z = w + seed * 0x9e3779b97f4a7c15ull + 1;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned char pat_byte(uint64_t off, uint64_t seed)
{
    return (unsigned char)(pat_word(off >> 3, seed) >> ((off & 7) * 8));
}

/* Fills buf with the file's bytes [off, off + n), or (check) counts the
 * bytes of buf that differ from them.  Words are little-endian byte order
 * of the mix on every host, so files compare across hosts. */
static long pat_run(char *buf, uint64_t off, size_t n, uint64_t seed, int check)
{
    unsigned char *b = (unsigned char *)buf;
    long bad = 0;
    size_t i = 0;
    while (i < n && ((off + i) & 7)) {
        unsigned char v = pat_byte(off + i, seed);
        if (check)
            bad += b[i] != v;
        else
            b[i] = v;
        i++;
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t v = pat_word((off + i) >> 3, seed);
        unsigned char w[8];
        for (int k = 0; k < 8; k++)
            w[k] = (unsigned char)(v >> (8 * k));
        if (check) {
            if (memcmp(b + i, w, 8))
                for (int k = 0; k < 8; k++)
                    bad += b[i + k] != w[k];
        } else {
            memcpy(b + i, w, 8);
        }
    }
    for (; i < n; i++) {
        unsigned char v = pat_byte(off + i, seed);
        if (check)
            bad += b[i] != v;
        else
            b[i] = v;
    }
    return bad;
}

/* Fills (check = 0) or checks this rank's buffer against the file contents
 * of repetition `seed`; returns the number of wrong bytes. */
static long job_data(io_job_t *j, uint64_t seed, int check)
{
    long bad = 0;
    if (j->pat == PAT_BLOCK2D) {
        for (size_t i = 0; i < j->lr; i++)
            bad += pat_run(j->buf + i * j->lc * 8, ((j->r0 + i) * j->C + j->c0) * 8, j->lc * 8, seed,
                           check);
    } else if (j->pat == PAT_STRIDED) {
        size_t k = (size_t)j->count;
        for (size_t i = 0; i < k; i++)
            bad += pat_run(j->buf + i * opt.block, ((size_t)opt.rank + i * (size_t)opt.np) * opt.block,
                           opt.block, seed, check);
    } else {
        bad += pat_run(j->buf, j->off0, j->local, seed, check);
    }
    return bad;
}

/* ---- setting a pattern up ---------------------------------------------------- */

static int job_setup(io_job_t *j, int pat, const char *file)
{
    size_t P = (size_t)opt.np, r = (size_t)opt.rank;
    memset(j, 0, sizeof *j);
    j->pat = pat;
    j->etype = j->ftype = j->mtype = MPI_DATATYPE_NULL;
    snprintf(j->path, sizeof j->path, "%s", file);
    if (pat == PAT_BLOCK2D) {
        int dims[2] = { 0, 0 };
        MPI_Dims_create(opt.np, 2, dims);
        size_t pr = (size_t)dims[1], pc = (size_t)dims[0];   /* more columns than rows */
        size_t g = opt.size / 8;
        j->R = (size_t)sqrt((double)g);
        while (j->R > 1 && j->R * j->R > g)
            j->R--;
        j->C = j->R ? g / j->R : 0;
        if (j->R < pr || j->C < pc || j->C > 0x7fffffff)
            return -1;
        size_t pi = r / pc, pj = r % pc;
        j->r0 = pi * j->R / pr;
        j->lr = (pi + 1) * j->R / pr - j->r0;
        j->c0 = pj * j->C / pc;
        j->lc = (pj + 1) * j->C / pc - j->c0;
        j->fsize = j->R * j->C * 8;
        j->local = j->lr * j->lc * 8;
        int sizes[2] = { (int)j->R, (int)j->C }, sub[2] = { (int)j->lr, (int)j->lc },
            start[2] = { (int)j->r0, (int)j->c0 };
        MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_UINT64_T, &j->ftype);
        MPI_Type_contiguous((int)j->lc, MPI_UINT64_T, &j->mtype);   /* one local row */
        j->etype = MPI_UINT64_T;
        j->count = (int)j->lr;
    } else if (pat == PAT_STRIDED) {
        MPI_Datatype blk;
        j->nblocks = opt.size / opt.block;
        size_t k = j->nblocks > r ? (j->nblocks - r + P - 1) / P : 0;
        if (j->nblocks < 1 || k > 0x7fffffff)
            return -1;
        j->fsize = j->nblocks * opt.block;
        j->local = k * opt.block;
        MPI_Type_contiguous((int)opt.block, MPI_BYTE, &blk);
        MPI_Type_create_resized(blk, 0, (MPI_Aint)(P * opt.block), &j->ftype);
        MPI_Type_free(&blk);
        MPI_Type_contiguous((int)opt.block, MPI_BYTE, &j->mtype);
        j->etype = MPI_BYTE;
        j->disp = (MPI_Offset)(r * opt.block);
        j->count = (int)k;
    } else {
        j->fsize = opt.size;
        j->off0 = r * opt.size / P;
        j->local = (r + 1) * opt.size / P - j->off0;
        j->etype = MPI_BYTE;
    }
    if (j->ftype != MPI_DATATYPE_NULL)
        MPI_Type_commit(&j->ftype);
    if (j->mtype != MPI_DATATYPE_NULL)
        MPI_Type_commit(&j->mtype);
    j->buf = bench_alloc(j->local);
    return 0;
}

static void job_free(io_job_t *j)
{
    if (j->ftype != MPI_DATATYPE_NULL)
        MPI_Type_free(&j->ftype);
    if (j->mtype != MPI_DATATYPE_NULL)
        MPI_Type_free(&j->mtype);
    free(j->buf);
    j->buf = NULL;
}

/* ---- one timed write or read ------------------------------------------------- */

/* Keeps the first error's text of this rank. */
static int io_err(io_job_t *j, int rc, const char *what)
{
    if (j->errbuf[0])
        return rc != MPI_SUCCESS;
    return bench_err_text(j->errbuf, sizeof j->errbuf, rc, what);
}

static MPI_Info make_info(void)
{
    MPI_Info info = MPI_INFO_NULL;
    if (opt.nhints == 0)
        return info;
    MPI_Info_create(&info);
    for (int i = 0; i < opt.nhints; i++)
        MPI_Info_set(info, opt.hint_key[i], opt.hint_val[i]);
    return info;
}

/* The data transfer of one write (write = 1) or read of the whole local part. */
static int job_transfer(io_job_t *j, MPI_File fh, int write)
{
    if (j->pat == PAT_INDEP) {
        size_t done = 0;
        while (done < j->local) {
            size_t n = j->local - done < opt.xfer ? j->local - done : opt.xfer;
            MPI_Offset at = (MPI_Offset)(j->off0 + done);
            int rc = write ? MPI_File_write_at(fh, at, j->buf + done, (int)n, MPI_BYTE, MPI_STATUS_IGNORE)
                           : MPI_File_read_at(fh, at, j->buf + done, (int)n, MPI_BYTE, MPI_STATUS_IGNORE);
            if (io_err(j, rc, write ? "MPI_File_write_at" : "MPI_File_read_at"))
                return 1;
            done += n;
        }
        return 0;
    }
    int rc = write ? MPI_File_write_all(fh, j->buf, j->count, j->mtype, MPI_STATUS_IGNORE)
                   : MPI_File_read_all(fh, j->buf, j->count, j->mtype, MPI_STATUS_IGNORE);
    return io_err(j, rc, write ? "MPI_File_write_all" : "MPI_File_read_all");
}

/* One timed write or read; returns non-zero on an MPI error (on any rank). */
static int job_timed(io_job_t *j, int write, io_time_t *t)
{
    MPI_File fh = MPI_FILE_NULL;
    MPI_Info info = make_info();
    double ph[5] = { 0, 0, 0, 0, 0 };   /* total open io sync close */
    int err = 0;
    int amode = write ? MPI_MODE_CREATE | MPI_MODE_RDWR : MPI_MODE_RDONLY;

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    err = io_err(j, MPI_File_open(MPI_COMM_WORLD, j->path, amode, info, &fh), "MPI_File_open");
    double t1 = MPI_Wtime();
    if (!err && j->ftype != MPI_DATATYPE_NULL)
        err = io_err(j, MPI_File_set_view(fh, j->disp, j->etype, j->ftype, "native", info),
                     "MPI_File_set_view");
    if (!err)
        err = job_transfer(j, fh, write);
    double t2 = MPI_Wtime();
    /* sync and close are collective: called after a failed transfer too */
    if (fh != MPI_FILE_NULL && write)
        err |= io_err(j, MPI_File_sync(fh), "MPI_File_sync");
    double t3 = MPI_Wtime();
    if (fh != MPI_FILE_NULL)
        err |= io_err(j, MPI_File_close(&fh), "MPI_File_close");
    double t4 = MPI_Wtime();
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    ph[0] = t4 - t0;
    ph[1] = t1 - t0;
    ph[2] = t2 - t1;
    ph[3] = t3 - t2;
    ph[4] = t4 - t3;
    double mx[5];
    MPI_Allreduce(ph, mx, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t->total = mx[0];
    t->open = mx[1];
    t->io = mx[2];
    t->sync = mx[3];
    t->close = mx[4];
    int any;
    MPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

/* Drops the file's pages from this host's page cache (they are clean after
 * MPI_File_sync), so that the read comes from the device. */
static void drop_cache(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
}

/* --check: this rank's contiguous P-th of the file through POSIX reads, and
 * on rank 0 the file's size; returns wrong bytes (missing bytes count). */
static long posix_check(io_job_t *j, uint64_t seed)
{
    size_t P = (size_t)opt.np, r = (size_t)opt.rank;
    size_t lo = r * j->fsize / P, hi = (r + 1) * j->fsize / P;
    long bad = 0;
    int fd = open(j->path, O_RDONLY);
    if (fd < 0) {
        snprintf(j->errbuf, sizeof j->errbuf, "open(%.300s): %s", j->path, strerror(errno));
        return (long)(hi - lo) + 1;
    }
    if (opt.rank == 0) {
        struct stat st;
        if (fstat(fd, &st) == 0 && (size_t)st.st_size != j->fsize) {
            fprintf(stderr, "iobench: %s: file size %lld, expected %zu\n", pat_names[j->pat],
                    (long long)st.st_size, j->fsize);
            bad++;
        }
    }
    char *b = malloc(IO_CHECK_CHUNK);
    for (size_t off = lo; b && off < hi;) {
        size_t n = hi - off < IO_CHECK_CHUNK ? hi - off : IO_CHECK_CHUNK;
        ssize_t got = pread(fd, b, n, (off_t)off);
        if (got <= 0) {
            bad += (long)(hi - off);
            break;
        }
        bad += pat_run(b, off, (size_t)got, seed, 1);
        off += (size_t)got;
    }
    free(b);
    close(fd);
    return bad;
}

/* ---- output ----------------------------------------------------------------- */

static const char *fs_name(const char *dir)
{
    struct statfs s;
    if (statfs(dir, &s) != 0)
        return "?";
    switch ((unsigned long)s.f_type) {
    case 0x01021994UL: return "tmpfs";
    case 0xEF53UL: return "ext4";
    case 0x58465342UL: return "xfs";
    case 0x9123683EUL: return "btrfs";
    case 0x794c7630UL: return "overlayfs";
    case 0x6969UL: return "nfs";
    case 0x0BD00BD0UL: return "lustre";
    case 0x47504653UL: return "gpfs";
    case 0x65735546UL: return "fuse";
    case 0x2FC12FC1UL: return "zfs";
    default: return "other";
    }
}

static void out_header(const char *fs)
{
    if (opt.rank != 0)
        return;
    if (opt.fmt == FMT_JSON)
        printf("{\"test\":\"info\",\"library\":\"%s\",\"np\":%d,\"mode\":\"%s\",\"dir\":\"%s\","
               "\"fs\":\"%s\",\"size\":%zu,\"reps\":%d,\"block\":%zu,\"xfer\":%zu}\n",
               libver, opt.np, opt.check ? "check" : "full", opt.dir, fs, opt.size, opt.reps, opt.block,
               opt.xfer);
    else
        printf("# iobench, np=%d, %s, %s (%s), file %zu bytes, %d repetition(s)\n# %s\n"
               "# bandwidth in MB/s (10^6 bytes/s); write: open to close, with MPI_File_sync; "
               "read: open to close%s\n"
               "%-8s %-6s %12s %10s %10s %10s %8s %8s %8s %8s %6s\n",
               opt.np, opt.check ? "check mode" : "full mode", opt.dir, fs, opt.size, opt.reps, libver,
               opt.keep_cache ? " (page cache kept)" : ", the page cache dropped before (not on tmpfs)",
               "pattern", "op", "bytes", "best", "median", "worst", "open_s", "io_s", "sync_s", "close_s",
               "check");
    fflush(stdout);
}

static void out_result(const io_job_t *j, int write, double *bw, io_time_t *med, int n, long bad)
{
    if (opt.rank != 0)
        return;
    double m = bench_median(bw, n);   /* sorts bw */
    const char *op = write ? "write" : "read";
    const char *chk = bad ? "FAIL" : "ok";
    if (opt.fmt == FMT_JSON)
        printf("{\"test\":\"io\",\"pattern\":\"%s\",\"op\":\"%s\",\"np\":%d,\"bytes\":%zu,\"reps\":%d,"
               "\"unit\":\"MB/s\",\"max\":%.6g,\"median\":%.6g,\"min\":%.6g,\"open_s\":%.6g,\"io_s\":%.6g,"
               "\"sync_s\":%.6g,\"close_s\":%.6g,\"check\":\"%s\"}\n",
               pat_names[j->pat], op, opt.np, j->fsize, n, bw[n - 1], m, bw[0], med->open, med->io,
               med->sync, med->close, chk);
    else
        printf("%-8s %-6s %12zu %10.1f %10.1f %10.1f %8.4f %8.4f %8.4f %8.4f %6s\n", pat_names[j->pat], op,
               j->fsize, bw[n - 1], m, bw[0], med->open, med->io, med->sync, med->close, chk);
    fflush(stdout);
}

static void out_error(int pat, const char *text)
{
    if (opt.rank != 0)
        return;
    if (opt.fmt == FMT_JSON) {
        printf("{\"test\":\"io\",\"pattern\":\"%s\",\"np\":%d,\"error\":\"%s\"}\n", pat_names[pat],
               opt.np, text);
    } else {
        printf("%-8s n/a (error: %s)\n", pat_names[pat], text);
    }
    fflush(stdout);
}

/* The text of the first rank's error, at rank 0 (cleaned for JSON). */
static void agree_error(io_job_t *j)
{
    bench_share_text(j->errbuf, (int)sizeof j->errbuf, j->errbuf[0] != 0);
    if (opt.rank == 0 && !j->errbuf[0])
        snprintf(j->errbuf, sizeof j->errbuf, "an MPI call failed");
}

static double median_of(double *v, int n)
{
    double tmp[n];
    memcpy(tmp, v, sizeof tmp);
    return bench_median(tmp, n);
}

/* ---- one pattern -------------------------------------------------------------- */

/* Runs one pattern; returns 1 when data were wrong, 2 on an MPI error, else 0. */
static int run_pattern(int pat, const char *base)
{
    io_job_t j;
    char file[4096];
    snprintf(file, sizeof file, "%.4000s.%s", base, pat_names[pat]);
    int bad_setup = job_setup(&j, pat, file), any_bad;
    MPI_Allreduce(&bad_setup, &any_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (bad_setup || any_bad) {
        char t[160];
        snprintf(t, sizeof t, "--size %zu is too small for %d ranks (or a count too large)", opt.size,
                 opt.np);
        out_error(pat, t);
        job_free(&j);
        return 2;
    }
    int n = opt.reps;
    double *bw[2], *ph[2][4];
    for (int w = 0; w < 2; w++) {
        bw[w] = calloc((size_t)n, sizeof(double));
        for (int k = 0; k < 4; k++)
            ph[w][k] = calloc((size_t)n, sizeof(double));
    }
    long bad[2] = { 0, 0 }; /* wrong bytes: written file (POSIX check), read data */
    int err = 0;
    for (int rep = 0; rep < n && !err; rep++) {
        uint64_t seed = (uint64_t)(rep + 1) * 1000003u + (uint64_t)pat * 7919u;
        if (opt.progress && opt.rank == 0)
            fprintf(stderr, "iobench: %s repetition %d/%d\n", pat_names[pat], rep + 1, n);
        if (opt.rank == 0)
            unlink(file);   /* a fresh file every time */
        job_data(&j, seed, 0);
        for (int w = 1; w >= 0 && !err; w--) {
            io_time_t t;
            if (!w) {
                if (!opt.keep_cache)
                    drop_cache(file);
                memset(j.buf, 0, j.local);
            }
            err = job_timed(&j, w, &t);
            if (err)
                break;
            bw[w][rep] = (double)j.fsize / (t.total > 1e-9 ? t.total : 1e-9) / 1e6;
            ph[w][0][rep] = t.open;
            ph[w][1][rep] = t.io;
            ph[w][2][rep] = t.sync;
            ph[w][3][rep] = t.close;
            long mine = w ? (opt.check ? posix_check(&j, seed) : 0) : job_data(&j, seed, 1), sum;
            MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (sum && opt.rank == 0)
                fprintf(stderr, "iobench: %s %s, repetition %d: %ld wrong byte(s)%s\n", pat_names[pat],
                        w ? "write (file checked with POSIX reads)" : "read", rep + 1, sum,
                        w ? "" : " in the data read");
            bad[w] += sum;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (opt.rank == 0)
            unlink(file);
    }
    if (err) {
        agree_error(&j);
        out_error(pat, j.errbuf);
        MPI_Barrier(MPI_COMM_WORLD);
        if (opt.rank == 0)
            unlink(file);
    } else {
        for (int w = 1; w >= 0; w--) {
            io_time_t med = { 0, median_of(ph[w][0], n), median_of(ph[w][1], n), median_of(ph[w][2], n),
                              median_of(ph[w][3], n) };
            out_result(&j, w, bw[w], &med, n, bad[w]);
        }
    }
    for (int w = 0; w < 2; w++) {
        free(bw[w]);
        for (int k = 0; k < 4; k++)
            free(ph[w][k]);
    }
    job_free(&j);
    return err ? 2 : (bad[0] || bad[1]) ? 1 : 0;
}

/* ---- main --------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    int quiet = 0, force_progress = 0, any_named = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &opt.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &opt.np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    bench_library_version(libver, sizeof libver);

    opt.size = (size_t)1 << 30;
    opt.block = 4096;
    opt.xfer = (size_t)16 << 20;
    opt.reps = 5;
    opt.fmt = FMT_TABLE;
    opt.dir = ".";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1;
#define NEEDVAL()                                      \
    do {                                               \
        if (!val)                                      \
            fail_usage("missing value for option", a); \
        i++;                                           \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (opt.rank == 0)
                usage(stdout);
            MPI_Finalize();
            return 0;
        } else if (!strcmp(a, "--size")) {
            NEEDVAL();
            opt.size = bench_parse_size(val, &ok);
            ok = ok && opt.size > 0;
        } else if (!strcmp(a, "--block")) {
            NEEDVAL();
            opt.block = bench_parse_size(val, &ok);
            ok = ok && opt.block > 0 && opt.block <= 0x7fffffff;
        } else if (!strcmp(a, "--xfer")) {
            NEEDVAL();
            opt.xfer = bench_parse_size(val, &ok);
            ok = ok && opt.xfer > 0 && opt.xfer <= 0x7fffffff;
        } else if (!strcmp(a, "--reps")) {
            NEEDVAL();
            opt.reps = atoi(val);
            ok = opt.reps >= 1;
        } else if (!strcmp(a, "--dir")) {
            NEEDVAL();
            opt.dir = val;
        } else if (!strcmp(a, "--hint")) {
            NEEDVAL();
            const char *eq = strchr(val, '=');
            ok = eq && eq != val && opt.nhints < IO_MAX_HINTS;
            if (ok) {
                opt.hint_key[opt.nhints] = strndup(val, (size_t)(eq - val));
                opt.hint_val[opt.nhints++] = strdup(eq + 1);
            }
        } else if (!strcmp(a, "--check")) {
            opt.check = 1;
        } else if (!strcmp(a, "--quick")) {
            opt.size = (size_t)64 << 20;
            opt.reps = 3;
        } else if (!strcmp(a, "--keep-cache")) {
            opt.keep_cache = 1;
        } else if (!strcmp(a, "--format")) {
            NEEDVAL();
            if (!strcmp(val, "table")) opt.fmt = FMT_TABLE;
            else if (!strcmp(val, "json")) opt.fmt = FMT_JSON;
            else fail_usage("unknown format", val);
        } else if (!strcmp(a, "--progress")) {
            force_progress = 1;
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (a[0] == '-') {
            fail_usage("unknown option", a);
        } else {
            int k = 0;
            while (k < PAT_COUNT && strcmp(a, pat_names[k]))
                k++;
            if (k == PAT_COUNT)
                fail_usage("unknown pattern", a);
            opt.want[k] = 1;
            any_named = 1;
        }
        if (!ok)
            fail_usage("bad value for option", a);
    }
    if (!any_named)
        for (int k = 0; k < PAT_COUNT; k++)
            opt.want[k] = 1;
    opt.progress = quiet ? 0 : (force_progress || isatty(2));

    /* the files' names: DIR/iobench.<rank 0's pid>.<pattern> */
    char base[4096];
    long pid = (long)getpid();
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    snprintf(base, sizeof base, "%s/iobench.%ld", opt.dir, pid);
    struct stat st;
    int dir_ok = stat(opt.dir, &st) == 0 && S_ISDIR(st.st_mode), all_ok;
    MPI_Allreduce(&dir_ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok)
        fail_usage("not a directory", opt.dir);

    out_header(fs_name(opt.dir));
    int worst = 0;
    for (int k = 0; k < PAT_COUNT; k++)
        if (opt.want[k]) {
            int r = run_pattern(k, base);
            worst = r > worst ? r : worst;
        }
    if (opt.rank == 0 && opt.check) {
        if (worst)
            printf("FAIL iobench check (np=%d): %s\n", opt.np,
                   worst == 1 ? "wrong data in the file or in a read" : "an MPI call failed");
        else
            printf("PASS iobench check (np=%d)\n", opt.np);
    }
    fflush(stdout);
    for (int i = 0; i < opt.nhints; i++) {
        free(opt.hint_key[i]);
        free(opt.hint_val[i]);
    }
    MPI_Finalize();
    return worst ? 1 : 0;
}
