/* SPDX-License-Identifier: MIT */
/* MPI-IO two-phase rounds (docs/io.md, "Collective access and two-phase
 * I/O"): strided collective writes and reads forced through two-phase
 * (romio_cb_write / romio_cb_read) with a cb_buffer_size smaller than one
 * rank's data, so that every aggregator moves its domain in many rounds
 * and its write of one round runs while the next round's data arrive
 * (two sets of buffers).  Blocks that tile a window (written from where
 * they arrived, one pwritev), blocks cut by the windows' edges, block
 * sizes that do not divide the window, a rank that writes fewer blocks or
 * none (holes: the window is read first and the holes keep the file's
 * bytes), memory that is not one run (the rank's own data packed first),
 * and two non-blocking collective writes outstanding at once.  After each
 * write the whole file is compared, byte for byte with POSIX reads, with a
 * model of what every rank wrote, then each rank reads its blocks back
 * collectively. */
#include "iotest.h"

static int rank, size;

/* the value of element k (file bytes 8k .. 8k + 7) written with seed */
static int64_t elem(long k, int seed) { return (int64_t)k * 11 + seed * 1000003L + 5; }

typedef struct {
    int B;           /* bytes per block, a multiple of 8 */
    long K;          /* blocks of every rank but the last */
    long Klast;      /* blocks of the last rank */
    int gaps;        /* memory: every other int64 (not one run) */
    int cb;          /* cb_buffer_size */
} shape_t;

static long blocks_of(const shape_t *s, int r) { return r == size - 1 ? s->Klast : s->K; }

/* The model: elements of the file after rank r wrote its blocks with seed
 * at stream offset base blocks (a region of K * size blocks). */
static void model_write(int64_t *m, const shape_t *s, long base, int r, int seed)
{
    long per = s->B / 8;
    for (long k = 0; k < blocks_of(s, r); k++) {
        long blk = (base + k) * size + r;
        for (long i = 0; i < per; i++) m[blk * per + i] = elem(blk * per + i, seed);
    }
}

/* The model marks elements no rank wrote (holes inside the file) with
 * HOLE: POSIX reads give zeros there (MPICH 4.0's ROMIO leaves the bytes
 * its sieving read there, which the check then skips). */
#define HOLE INT64_MIN

static void check_model(const char *path, const int64_t *m, long nelem, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    size_t fl;
    int64_t *f = mt_file_all(path, &fl);
    CHECK(fl == (size_t)nelem * 8, "%s: file of %zu bytes, want %ld", what, fl, nelem * 8);
    for (long k = 0; k < nelem && (size_t)(k + 1) * 8 <= fl; k++) {
#ifdef MT_REFERENCE_MPICH
        if (m[k] == HOLE) continue;
#endif
        if (f[k] != (m[k] == HOLE ? 0 : m[k])) {
            CHECK(0, "%s: file element %ld = %lld, want %lld", what, k, (long long)f[k],
                  (long long)(m[k] == HOLE ? 0 : m[k]));
            break;
        }
    }
    free(f);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* This rank's buffer for n elements of seed at stream block base: the
 * memory type is every other int64 when s->gaps (count n), else int64s. */
static void fill(int64_t *buf, const shape_t *s, long base, int seed, long nblk)
{
    long per = s->B / 8, step = s->gaps ? 2 : 1;
    for (long k = 0; k < nblk; k++)
        for (long i = 0; i < per; i++) {
            long blk = (base + k) * size + rank;
            buf[(k * per + i) * step] = elem(blk * per + i, seed);
        }
}

static void check_read(const int64_t *got, const int64_t *want, long n, int step, const char *what)
{
    for (long i = 0; i < n; i++)
        if (got[i * step] != want[i * step]) {
            CHECK(0, "%s: read element %ld = %lld, want %lld", what, i, (long long)got[i * step],
                  (long long)want[i * step]);
            break;
        }
}

static void run(const shape_t *s)
{
    char path[512], what[128];
    mt_io_path(path, sizeof path, "rounds", MPI_COMM_WORLD);
    long per = s->B / 8, Kmax = s->K > s->Klast ? s->K : s->Klast;
    long region = Kmax * size;                 /* blocks of one region */
    long nelem = 2 * region * per;             /* two regions */
    int step = s->gaps ? 2 : 1;
    MPI_Datatype blk, ft, mt = MPI_INT64_T;
    MPI_Type_contiguous(s->B, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)size * s->B, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&blk);
    if (s->gaps) {
        MPI_Datatype one;
        MPI_Type_create_resized(MPI_INT64_T, 0, 16, &one);
        mt = one;
        MPI_Type_commit(&mt);
    }
    size_t cap = (size_t)(Kmax * per * step + 1) * sizeof(int64_t);
    int64_t *a = mt_malloc(cap), *a2 = mt_malloc(cap), *b = mt_malloc(cap);
    int64_t *m = mt_malloc((size_t)nelem * sizeof *m);
    for (long i = 0; i < nelem; i++) m[i] = HOLE;
    memset(a, 0, cap);
    memset(a2, 0, cap);
    MPI_Info info;
    MPI_Info_create(&info);
    char v[32];
    snprintf(v, sizeof v, "%d", s->cb);
    MPI_Info_set(info, "cb_buffer_size", v);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * s->B, MPI_BYTE, ft, "native", info));
    long mine = blocks_of(s, rank), n = mine * per;
    MPI_Offset second = (MPI_Offset)Kmax * s->B;   /* stream offset of region 2 */

    /* 1: both regions at once, non-blocking, every rank its blocks */
    fill(a, s, 0, 1, mine);
    fill(a2, s, Kmax, 2, mine);
    MPI_Request rq[2];
    CHECK_MPI(MPI_File_iwrite_at_all(fh, 0, a, (int)n, mt, &rq[0]));
    CHECK_MPI(MPI_File_iwrite_at_all(fh, second, a2, (int)n, mt, &rq[1]));
    CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    for (int r = 0; r < size; r++) {
        model_write(m, s, 0, r, 1);
        model_write(m, s, Kmax, r, 2);
    }
    snprintf(what, sizeof what, "B=%d cb=%d gaps=%d two iwrite_at_all", s->B, s->cb, s->gaps);
    /* the file ends with the last block of region 2 that some rank wrote */
    long fileblocks = 0;
    for (int r = 0; r < size; r++)
        if ((Kmax + blocks_of(s, r) - 1) * size + r + 1 > fileblocks) fileblocks = (Kmax + blocks_of(s, r) - 1) * size + r + 1;
    check_model(path, m, fileblocks * per, what);
    memset(b, 0, cap);
    MPI_Status st;
    CHECK_MPI(MPI_File_read_at_all(fh, second, b, (int)n, mt, &st));
    int c;
    MPI_Get_count(&st, mt, &c);
    CHECK(c == (int)n, "%s: read count %d, want %ld", what, c, n);
    check_read(b, a2, n, step, what);

    /* 2: region 1 again, rank 1 (of more than two) writes nothing: its
     * blocks are holes that keep seed 1 */
    int skip = size > 2 && rank == 1;
    fill(a, s, 0, 3, mine);
    CHECK_MPI(MPI_File_write_at_all(fh, 0, a, skip ? 0 : (int)n, mt, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    for (int r = 0; r < size; r++)
        if (!(size > 2 && r == 1)) model_write(m, s, 0, r, 3);
    snprintf(what, sizeof what, "B=%d cb=%d gaps=%d write_at_all with holes", s->B, s->cb, s->gaps);
    check_model(path, m, fileblocks * per, what);
    memset(b, 0, cap);
    CHECK_MPI(MPI_File_read_at_all(fh, 0, b, (int)n, mt, &st));
    if (skip) fill(a, s, 0, 1, mine);
    check_read(b, a, n, step, what);

    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Info_free(&info);
    MPI_Type_free(&ft);
    if (s->gaps) MPI_Type_free(&mt);
    free(a);
    free(a2);
    free(b);
    free(m);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const shape_t shapes[] = {
        { 4096, 20, 20, 0, 12288 },    /* windows of 3 blocks: whole blocks, many rounds */
        { 4096, 20, 13, 1, 10000 },    /* windows cut blocks; the last rank writes fewer; memory with gaps */
        { 1000, 37, 37, 0, 3000 },     /* blocks that do not divide the window */
        { 1000, 30, 29, 1, 65536 },    /* one round or two */
        { 24, 500, 500, 0, 1000 },     /* short blocks: copied into the window */
        { 24, 700, 650, 1, 65536 },    /* many blocks per window (more than IOV_MAX with io_cb_iov_min=1) */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) run(&shapes[i]);
    int rc = mt_finish("io_rounds");
    MPI_Finalize();
    return rc;
}
