/* SPDX-License-Identifier: MIT */
/* MPI-IO collective paths chosen for speed (docs/io.md, "Collective access
 * and two-phase I/O"): a 2-D block-distributed array (subarray views whose
 * rows are runs of a few KiB) and a strided pattern of 4 KiB blocks, which
 * collective reads move directly (each rank its own runs: setting
 * io_coll_read_direct), and a strided pattern of 40-byte blocks, which goes
 * through two-phase with every rank of the node an aggregator (setting
 * io_cb_per_node); each read blocking, non-blocking and split; a direct
 * collective read that meets the end of the file, with a rank that reads
 * nothing; independent writes beside a sieving rank and with every view
 * contiguous (neighbours); and (Courier only) the number of aggregators
 * MPI_File_get_info reports.  Data are checked in memory and, with POSIX reads, in the file. */
#include "iotest.h"

static int rank, size;

/* the value of element k of the file */
static int64_t elem(long k, int seed) { return (int64_t)k * 7 + seed * 1000003L + 1; }

/* Reads count elements of memtype into b three ways (read_all, iread_all,
 * read_all_begin/end) and checks each against want (n int64 values). */
static void read_3ways(MPI_File fh, int64_t *b, const int64_t *want, long n, int count, MPI_Datatype mt,
                       const char *what)
{
    for (int way = 0; way < 3; way++) {
        memset(b, 0, (size_t)n * sizeof *b);
        MPI_Status st;
        if (way == 0) {
            CHECK_MPI(MPI_File_read_at_all(fh, 0, b, count, mt, &st));
        } else if (way == 1) {
            MPI_Request rq;
            CHECK_MPI(MPI_File_iread_at_all(fh, 0, b, count, mt, &rq));
            CHECK_MPI(MPI_Wait(&rq, &st));
        } else {
            CHECK_MPI(MPI_File_read_at_all_begin(fh, 0, b, count, mt));
            CHECK_MPI(MPI_File_read_at_all_end(fh, b, &st));
        }
        int c;
        MPI_Get_count(&st, mt, &c);
        CHECK(c == count, "%s way %d: count %d, want %d", what, way, c, count);
        for (long i = 0; i < n; i++)
            if (b[i] != want[i]) {
                CHECK(0, "%s way %d: element %ld = %lld, want %lld", what, way, i, (long long)b[i],
                      (long long)want[i]);
                break;
            }
    }
}

/* The whole file, checked against elem(k, seed) for its nelem elements. */
static void check_file(const char *path, long nelem, int seed, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    size_t fl;
    int64_t *f = mt_file_all(path, &fl);
    CHECK(fl == (size_t)nelem * sizeof(int64_t), "%s: file of %zu bytes, want %zu", what, fl,
          (size_t)nelem * sizeof(int64_t));
    for (long k = 0; k < nelem && (size_t)(k + 1) * sizeof *f <= fl; k++)
        if (f[k] != elem(k, seed)) {
            CHECK(0, "%s: file element %ld = %lld, want %lld", what, k, (long long)f[k],
                  (long long)elem(k, seed));
            break;
        }
    free(f);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* R x C int64 elements, block-distributed over a process grid with more
 * columns than rows, as bench/iobench's block2d */
static void block2d(int C)
{
    enum { R = 24 };
    char path[512];
    mt_io_path(path, sizeof path, "paths2d", MPI_COMM_WORLD);
    int dims[2] = { 0, 0 };
    MPI_Dims_create(size, 2, dims);
    int pr = dims[1], pc = dims[0];
    int pi = rank / pc, pj = rank % pc;
    int r0 = pi * R / pr, lr = (pi + 1) * R / pr - r0;
    int c0 = pj * C / pc, lc = (pj + 1) * C / pc - c0;
    int sizes[2] = { R, C }, sub[2] = { lr, lc }, start[2] = { r0, c0 };
    MPI_Datatype ft;
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_INT64_T, &ft);
    MPI_Type_commit(&ft);
    long n = (long)lr * lc;
    int64_t *a = mt_malloc((size_t)(n + 1) * sizeof *a), *b = mt_malloc((size_t)(n + 1) * sizeof *b);
    for (int i = 0; i < lr; i++)
        for (int j = 0; j < lc; j++) a[(long)i * lc + j] = elem((long)(r0 + i) * C + c0 + j, C);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT64_T, ft, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_write_at_all(fh, 0, a, (int)n, MPI_INT64_T, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    char what[64];
    snprintf(what, sizeof what, "block2d C=%d", C);
    check_file(path, (long)R * C, C, what);
    read_3ways(fh, b, a, n, (int)n, MPI_INT64_T, what);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Type_free(&ft);
    free(a);
    free(b);
}

/* Rank r owns blocks r, r + P, ... of B bytes (B a multiple of 8); K blocks
 * each.  Then a read of K + 2 blocks meets the end of the file, and the last
 * rank (with more than one) reads nothing. */
static void strided(int B, int K)
{
    char path[512];
    mt_io_path(path, sizeof path, "pathsst", MPI_COMM_WORLD);
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(B, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)size * B, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&blk);
    long per = B / 8, n = (long)K * per;
    int64_t *a = mt_malloc((size_t)(n + 2 * per) * sizeof *a), *b = mt_malloc((size_t)(n + 2 * per) * sizeof *b);
    for (long k = 0; k < K; k++)
        for (long i = 0; i < per; i++) a[k * per + i] = elem(((long)k * size + rank) * per + i, B);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * B, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    CHECK_MPI(MPI_File_write_at_all(fh, 0, a, (int)n, MPI_INT64_T, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(fh));
    char what[64];
    snprintf(what, sizeof what, "strided B=%d", B);
    check_file(path, n * size, B, what);
    read_3ways(fh, b, a, n, (int)n, MPI_INT64_T, what);
    /* past the end: K blocks come back (what the buffer holds after them is
     * not defined: a sieved or aggregated read may have filled it) */
    int want = size > 1 && rank == size - 1 ? 0 : (int)(n + 2 * per);
    for (long i = 0; i < n + 2 * per; i++) b[i] = -1;
    MPI_Status st;
    CHECK_MPI(MPI_File_read_at_all(fh, 0, b, want, MPI_INT64_T, &st));
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0's ROMIO reports the whole requested count */
    int c;
    MPI_Get_count(&st, MPI_INT64_T, &c);
    CHECK(c == (want ? n : 0), "%s at the end: count %d, want %ld", what, c, want ? n : 0L);
#endif
    for (long i = 0; want && i < n; i++) {
        int64_t w = a[i];
        if (b[i] != w) {
            CHECK(0, "%s at the end: element %ld = %lld, want %lld", what, i, (long long)b[i], (long long)w);
            break;
        }
    }
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Type_free(&ft);
    free(a);
    free(b);
}

/* Independent writes with and without a sieving neighbour (Courier takes
 * byte-range locks for writes only while some rank's view is not
 * contiguous).  First, several rounds in which the odd ranks write their
 * 8-byte elements through a strided view (runs far below
 * courier_direct_min_run: sieved, a read-modify-write of windows that hold
 * the even ranks' elements) while the even ranks, with the contiguous
 * default view, write theirs one call each: no element may be lost (Courier
 * only: ROMIO's contiguous writes take no lock, so its sieving can lose
 * them).  Then every rank's view is contiguous and each writes its slice in
 * pieces, all at once.  The file is checked after each round. */
static void neighbours(long K)
{
    char path[512];
    mt_io_path(path, sizeof path, "pathsnb", MPI_COMM_WORLD);
    MPI_Datatype ft;
    MPI_Type_create_resized(MPI_INT64_T, 0, (MPI_Aint)size * 8, &ft);
    MPI_Type_commit(&ft);
    int64_t *a = mt_malloc((size_t)K * sizeof *a);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
#ifndef MT_REFERENCE_MPICH
    for (int round = 0; round < 3; round++) {
        int seed = 50 + round;
        for (long k = 0; k < K; k++) a[k] = elem(k * size + rank, seed);
        int odd = rank % 2;
        CHECK_MPI(MPI_File_set_view(fh, odd ? (MPI_Offset)rank * 8 : 0, MPI_INT64_T, odd ? ft : MPI_INT64_T,
                                    "native", MPI_INFO_NULL));
        if (odd) {
            CHECK_MPI(MPI_File_write_at(fh, 0, a, (int)K, MPI_INT64_T, MPI_STATUS_IGNORE));
        } else {
            for (long k = 0; k < K; k++)
                CHECK_MPI(MPI_File_write_at(fh, k * size + rank, &a[k], 1, MPI_INT64_T, MPI_STATUS_IGNORE));
        }
        CHECK_MPI(MPI_File_sync(fh));
        char what[64];
        snprintf(what, sizeof what, "beside a sieving rank, round %d", round);
        check_file(path, K * size, seed, what);
    }
#endif
    for (int round = 0; round < 2; round++) {
        int seed = 60 + round;
        CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT64_T, MPI_INT64_T, "native", MPI_INFO_NULL));
        for (long k = 0; k < K; k++) a[k] = elem(rank * K + k, seed);
        for (long k = 0; k < K; k += 100) {
            int n = K - k < 100 ? (int)(K - k) : 100;
            CHECK_MPI(MPI_File_write_at(fh, rank * K + k, a + k, n, MPI_INT64_T, MPI_STATUS_IGNORE));
        }
        CHECK_MPI(MPI_File_sync(fh));
        char what[64];
        snprintf(what, sizeof what, "contiguous views, round %d", round);
        check_file(path, K * size, seed, what);
    }
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Type_free(&ft);
    free(a);
}

/* cb_nodes as MPI_File_get_info reports it: by default every rank of every
 * node aggregates; COURIER_IO_CB_PER_NODE=k takes k of each node's ranks */
static void aggregators(void)
{
#ifndef MT_REFERENCE_MPICH   /* ROMIO takes one aggregator per node */
    char path[512];
    mt_io_path(path, sizeof path, "pathsag", MPI_COMM_WORLD);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    const char *e = getenv("COURIER_IO_CB_PER_NODE");
    int k = e ? atoi(e) : 0;
    int mine = nr == 0 ? (k > 0 && k < ns ? k : ns) : 0, want;
    MPI_Allreduce(&mine, &want, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_free(&node);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                            MPI_INFO_NULL, &fh));
    MPI_Info info;
    CHECK_MPI(MPI_File_get_info(fh, &info));
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, "cb_nodes", MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag && atoi(v) == want, "cb_nodes = %s, want %d", flag ? v : "(none)", want);
    MPI_Info_free(&info);
    CHECK_MPI(MPI_File_close(&fh));
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    block2d(1200);     /* rows of 4800 bytes at 2 and 4 ranks, of 3200 at 3 */
    block2d(30);       /* short rows: two-phase */
    strided(4096, 6);
    strided(40, 300);
    neighbours(3000);
    aggregators();
    int rc = mt_finish("io_paths");
    MPI_Finalize();
    return rc;
}
