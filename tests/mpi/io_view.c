/* SPDX-License-Identifier: MIT */
/* MPI-IO views and collective access: derived filetypes and etypes
 * (interleaved vectors, a subarray, a resized struct with holes), non-
 * contiguous memory types, independent (data sieving) and collective
 * (two-phase) reads and writes, explicit-offset collectives, non-blocking
 * collectives, split collectives, ordered access, get_view, get_byte_offset
 * and get_type_extent.  Every datum is checked in memory and in the file
 * (POSIX reads).  The settings variants in io.list force or forbid two-phase
 * buffering, sieving and small buffers so that every path runs. */
#include "iotest.h"

static int rank, size;
static char path[512];

static void make_path(const char *tag) { mt_io_path(path, sizeof path, tag, MPI_COMM_WORLD); }

static void *file_all(size_t *n) { return mt_file_all(path, n); }

/* Blocks of B ints, round robin over the ranks: rank r owns blocks r, r+size, ... */
enum { B = 3, NB = 200 };

static int owner_value(int r, long k) { return r * 1000003 + (int)k; }

static void interleaved(void)
{
    MPI_File fh;
    MPI_Status st;
    int cnt;
    make_path("inter");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_size(fh, 0));
    MPI_Datatype ft, ft2;
    MPI_Type_vector(1, B, B * size, MPI_INT, &ft2);
    MPI_Type_create_resized(ft2, 0, (MPI_Aint)B * size * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&ft2);
    const MPI_Offset disp = 64;
    CHECK_MPI(MPI_File_set_view(fh, disp + (MPI_Offset)rank * B * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL));
    /* get_view gives back the types */
    MPI_Offset d;
    MPI_Datatype et, ft3;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_MPI(MPI_File_get_view(fh, &d, &et, &ft3, rep));
    CHECK_INT(d, disp + (MPI_Offset)rank * B * sizeof(int));
    CHECK(et == MPI_INT, "etype");
    CHECK(strcmp(rep, "native") == 0, "datarep %s", rep);
    int n1, n2;
    MPI_Type_size(ft3, &n1);
    MPI_Type_size(ft, &n2);
    CHECK_INT(n1, n2);
    MPI_Type_free(&ft3);
    MPI_Offset bo;
    CHECK_MPI(MPI_File_get_byte_offset(fh, B + 1, &bo));
    CHECK_INT(bo, disp + (MPI_Offset)rank * B * sizeof(int) + (MPI_Offset)B * size * sizeof(int) + sizeof(int));

    int n = B * NB;
    int *a = mt_malloc(n * sizeof(int)), *b = mt_malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) a[i] = owner_value(rank, i);
    /* collective write of the first half through the pointer, the second with write_at_all */
    CHECK_MPI(MPI_File_write_all(fh, a, n / 2, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, n / 2);
    CHECK_MPI(MPI_File_write_at_all(fh, n / 2, a + n / 2, n - n / 2, MPI_INT, &st));
    MPI_Offset pos;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, n / 2);
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    size_t fl;
    char *f = file_all(&fl);
    CHECK_INT(fl, disp + (size_t)size * n * sizeof(int));
    for (long k = 0; k < (long)size * n && (size_t)(disp + 4 * k + 4) <= fl; k++) {
        int v;
        memcpy(&v, f + disp + 4 * k, 4);
        long blk = k / B;
        int r = (int)(blk % size);
        long i = (blk / size) * B + k % B;
        if (v != owner_value(r, i)) { CHECK(0, "file int %ld = %d, want %d", k, v, owner_value(r, i)); break; }
    }
    free(f);
    /* read back collectively: everyone reads rank (rank+1)'s data through a view */
    int nx = (rank + 1) % size;
    CHECK_MPI(MPI_File_set_view(fh, disp + (MPI_Offset)nx * B * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL));
    memset(b, 0, n * sizeof(int));
    CHECK_MPI(MPI_File_read_all(fh, b, n, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, n);
    for (int i = 0; i < n; i++) if (b[i] != owner_value(nx, i)) { CHECK(0, "read_all [%d] = %d", i, b[i]); break; }
    /* independent non-contiguous read (sieving) into a strided memory type */
    MPI_Datatype mt;
    MPI_Type_vector(n, 1, 2, MPI_INT, &mt);
    MPI_Type_commit(&mt);
    int *c = mt_malloc(2 * n * sizeof(int));
    for (int i = 0; i < 2 * n; i++) c[i] = -7;
    CHECK_MPI(MPI_File_read_at(fh, 0, c, 1, mt, &st));
    MPI_Get_count(&st, mt, &cnt);
    CHECK_INT(cnt, 1);
    for (int i = 0; i < n; i++) {
        if (c[2 * i] != owner_value(nx, i) || c[2 * i + 1] != -7) {
            CHECK(0, "strided read [%d] = %d,%d", i, c[2 * i], c[2 * i + 1]); break; }
    }
    /* non-blocking collective read, then split collective read, of halves */
    MPI_Request rq;
    memset(b, 0, n * sizeof(int));
    CHECK_MPI(MPI_File_iread_at_all(fh, 0, b, n / 2, MPI_INT, &rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, n / 2);
    CHECK_MPI(MPI_File_read_at_all_begin(fh, n / 2, b + n / 2, n - n / 2, MPI_INT));
    CHECK_MPI(MPI_File_read_at_all_end(fh, b + n / 2, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, n - n / 2);
    for (int i = 0; i < n; i++) if (b[i] != owner_value(nx, i)) { CHECK(0, "iread_all/split [%d] = %d", i, b[i]); break; }
    MPI_Barrier(MPI_COMM_WORLD);
    /* independent non-contiguous writes (sieved read-modify-write): every
     * rank rewrites its own blocks from a strided memory type, then the
     * whole file is checked */
    CHECK_MPI(MPI_File_set_view(fh, disp + (MPI_Offset)rank * B * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL));
    for (int i = 0; i < n; i++) { c[2 * i] = owner_value(rank, i) + 7; c[2 * i + 1] = -1; }
    CHECK_MPI(MPI_File_write_at(fh, 0, c, 1, mt, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, n);
    /* and a split collective write of the first block again, unchanged values */
    CHECK_MPI(MPI_File_write_all_begin(fh, c, 1, mt));
    CHECK_MPI(MPI_File_write_all_end(fh, c, &st));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    f = file_all(&fl);
    CHECK_INT(fl, disp + (size_t)size * n * sizeof(int));
    for (long k = 0; k < (long)size * n && (size_t)(disp + 4 * k + 4) <= fl; k++) {
        int v;
        memcpy(&v, f + disp + 4 * k, 4);
        long blk = k / B;
        int r = (int)(blk % size);
        long i = (blk / size) * B + k % B;
        if (v != owner_value(r, i) + 7) { CHECK(0, "file int %ld = %d after sieved writes, want %d", k, v, owner_value(r, i) + 7); break; }
    }
    for (int i = 0; i < 64; i++) if (f[i] != 0) { CHECK(0, "hole byte %d = %d", i, f[i]); break; }
    free(f);
    MPI_Type_free(&mt);
    MPI_Type_free(&ft);
    free(a);
    free(b);
    free(c);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_close(&fh));
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
}

/* A 2-D array of doubles, ROWS x (size*CB) columns, each rank owning a column
 * block (subarray filetype), written with a struct etype of 2 doubles. */
enum { ROWS = 37, CB = 5 };

static void subarray(void)
{
    MPI_File fh;
    MPI_Status st;
    make_path("sub");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_size(fh, 0));
    MPI_Datatype pair, ft;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    int gs[2] = { ROWS, size * CB }, ls[2] = { ROWS, CB }, s0[2] = { 0, rank * CB };
    MPI_Type_create_subarray(2, gs, ls, s0, MPI_ORDER_C, pair, &ft);
    MPI_Type_commit(&ft);
    CHECK_MPI(MPI_File_set_view(fh, 0, pair, ft, "native", MPI_INFO_NULL));
    MPI_Count ext = 0;
    CHECK_MPI(MPI_File_get_type_extent_c(fh, pair, &ext));
    CHECK_INT(ext, 16);
    int n = ROWS * CB * 2;
    double *a = mt_malloc(n * sizeof(double)), *b = mt_malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) a[i] = rank * 1e6 + i;
    CHECK_MPI(MPI_File_write_all(fh, a, ROWS * CB, pair, &st));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    size_t fl;
    double *f = file_all(&fl);
    CHECK_INT(fl, (size_t)ROWS * size * CB * 16);
    for (int row = 0; row < ROWS && fl == (size_t)ROWS * size * CB * 16; row++)
        for (int col = 0; col < size * CB; col++)
            for (int h = 0; h < 2; h++) {
                int r = col / CB;
                double want = r * 1e6 + (row * CB + col % CB) * 2 + h;
                double got = f[(row * size * CB + col) * 2 + h];
                if (got != want) { CHECK(0, "file [%d][%d].%d = %g want %g", row, col, h, got, want); row = ROWS; col = size * CB; break; }
            }
    free(f);
    CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    memset(b, 0, n * sizeof(double));
    MPI_Request rq;
    CHECK_MPI(MPI_File_iread_all(fh, b, ROWS * CB, pair, &rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    int cnt;
    MPI_Get_count(&st, pair, &cnt);
    CHECK_INT(cnt, ROWS * CB);
    for (int i = 0; i < n; i++) if (b[i] != a[i]) { CHECK(0, "iread_all [%d] = %g", i, b[i]); break; }
    /* a count that is not a whole number of etypes is an error */
    int rc = MPI_File_read_at(fh, 0, b, 3, MPI_DOUBLE, &st);
    CHECK(rc != MPI_SUCCESS, "read of 3 doubles with a 2-double etype succeeded");
    MPI_Type_free(&ft);
    MPI_Type_free(&pair);
    free(a);
    free(b);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
}

/* Ordered writes and reads: rank r writes r+1 ints; they land in rank order. */
static void ordered(void)
{
    MPI_File fh;
    MPI_Status st;
    make_path("ord");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_size(fh, 0));
    int a[8], b[8];
    for (int i = 0; i <= rank; i++) a[i] = rank * 10 + i;
    for (int rep = 0; rep < 2; rep++) {
        if (rep == 0) CHECK_MPI(MPI_File_write_ordered(fh, a, rank + 1, MPI_INT, &st));
        else {
            CHECK_MPI(MPI_File_write_ordered_begin(fh, a, rank + 1, MPI_INT));
            CHECK_MPI(MPI_File_write_ordered_end(fh, a, &st));
        }
    }
    MPI_Offset pos;
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    int tot = size * (size + 1) / 2;
    CHECK_INT(pos, 2 * tot * (MPI_Offset)sizeof(int));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    size_t fl;
    int *f = file_all(&fl);
    CHECK_INT(fl, 2 * tot * sizeof(int));
    for (int rep = 0, k = 0; rep < 2 && fl == 2 * tot * sizeof(int); rep++)
        for (int r = 0; r < size; r++)
            for (int i = 0; i <= r; i++, k++) CHECK(f[k] == r * 10 + i, "ordered file [%d] = %d", k, f[k]);
    free(f);
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    memset(b, 0, sizeof b);
    CHECK_MPI(MPI_File_read_ordered(fh, b, rank + 1, MPI_INT, &st));
    for (int i = 0; i <= rank; i++) CHECK_INT(b[i], rank * 10 + i);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    interleaved();
    subarray();
    ordered();
    int rc = mt_finish("io_view");
    MPI_Finalize();
    return rc;
}
