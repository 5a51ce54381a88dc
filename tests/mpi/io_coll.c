/* SPDX-License-Identifier: MIT */
/* MPI-IO collectives under stress: several non-blocking collectives of one
 * file outstanding at once (completed in reverse order) beside independent
 * ones, ranks that contribute nothing, a collective read that meets the end
 * of the file (short counts), files of a sub-communicator and of
 * MPI_COMM_SELF open side by side, hints given as info (cb_buffer_size,
 * cb_nodes, romio_cb_write), MPI_MODE_APPEND and MPI_MODE_SEQUENTIAL with
 * the shared pointer.  Data are checked in memory and in the file. */
#include "iotest.h"

static int rank, size;

static long val(int r, int piece, long i) { return ((long)r << 40) + ((long)piece << 32) + i; }

enum { M = 20000, PIECES = 3 };

/* PIECES non-blocking collective writes outstanding, each piece a strided
 * view region; rank size-1 contributes nothing to piece 1 */
static void outstanding(void)
{
    char path[512];
    MPI_File fh;
    mt_io_path(path, sizeof path, "outst", MPI_COMM_WORLD);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "cb_nodes", size > 1 ? "2" : "1");
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_Info_set(info, "romio_cb_read", "enable");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    MPI_Info_free(&info);
    CHECK_MPI(MPI_File_set_size(fh, 0));
    /* longs, 2 at a time round robin */
    MPI_Datatype ft, v;
    MPI_Type_vector(1, 2, 2 * size, MPI_LONG, &v);
    MPI_Type_create_resized(v, 0, 2L * size * sizeof(long), &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&v);
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * 2 * sizeof(long), MPI_LONG, ft, "native", MPI_INFO_NULL));
    long *a = mt_malloc(PIECES * M * sizeof(long));
    MPI_Request rq[PIECES + 1];
    int cnt[PIECES];
    for (int p = 0; p < PIECES; p++) {
        cnt[p] = (p == 1 && rank == size - 1 && size > 1) ? 0 : M;
        for (long i = 0; i < M; i++) a[p * M + i] = val(rank, p, i);
        CHECK_MPI(MPI_File_iwrite_at_all(fh, (MPI_Offset)p * M, a + p * M, cnt[p], MPI_LONG, &rq[p]));
    }
    /* an independent write beside them, into this rank's stripe after the pieces */
    long tail[4] = { val(rank, 7, 0), val(rank, 7, 1), val(rank, 7, 2), val(rank, 7, 3) };
    CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)PIECES * M, tail, 4, MPI_LONG, &rq[PIECES]));
    for (int p = PIECES; p >= 0; p--) {
        MPI_Status st;
        int c;
        CHECK_MPI(MPI_Wait(&rq[p], &st));
        MPI_Get_count(&st, MPI_LONG, &c);
        CHECK_INT(c, p == PIECES ? 4 : cnt[p]);
    }
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    size_t fl;
    long *f = mt_file_all(path, &fl);
    long total = (long)PIECES * M + 4;
    CHECK_INT(fl, (size_t)total * size * sizeof(long) - (size > 1 ? 0 : 0));
    for (long k = 0; k < total * size && (size_t)(k + 1) * sizeof(long) <= fl; k++) {
        long blk = k / 2, r = blk % size, i = (blk / size) * 2 + k % 2;
        int p = (int)(i / M);
        long want = p < PIECES ? val((int)r, p, i % M) : val((int)r, 7, i - (long)PIECES * M);
        if (p == 1 && r == size - 1 && size > 1) want = 0;   /* a hole that rank never wrote */
        if (f[k] != want) { CHECK(0, "file long %ld = %lx, want %lx", k, f[k], want); break; }
    }
    free(f);
    /* collective read that meets the end of the file: ask for 2 pieces from the last */
    long *b = mt_malloc(2 * M * sizeof(long));
    MPI_Status st;
    int c;
    CHECK_MPI(MPI_File_read_at_all(fh, (MPI_Offset)(PIECES - 1) * M, b, 2 * M, MPI_LONG, &st));
    MPI_Get_count(&st, MPI_LONG, &c);
    /* the last rank's stripe ends the file; the others have their tail but
     * the file ends mid-stripe after the last rank's */
#ifndef MT_REFERENCE_MPICH
    CHECK_INT(c, M + 4);   /* MPICH 4.0's ROMIO reports the whole count of a collective read */
#endif
    for (long i = 0; i < M && i < c; i++) if (b[i] != val(rank, PIECES - 1, i)) { CHECK(0, "eof read [%ld] = %lx", i, b[i]); break; }
    for (int i = 0; i < 4 && M + i < c; i++) CHECK(b[M + i] == val(rank, 7, i), "eof read tail %d", i);
    free(b);
    free(a);
    MPI_Type_free(&ft);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_close(&fh));
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
}

/* A file per half of the ranks and one per rank, open together. */
static void subcomms(void)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    char hpath[512], spath[512];
    mt_io_path(hpath, sizeof hpath, "half", half);
    mt_io_path(spath, sizeof spath, "self", MPI_COMM_SELF);
    MPI_File hf, sf;
    CHECK_MPI(MPI_File_open(half, hpath, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &hf));
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, spath, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &sf));
    int x[100], y[100];
    for (int i = 0; i < 100; i++) x[i] = rank * 1000 + i;
    CHECK_MPI(MPI_File_write_at_all(hf, hr * 100 * sizeof(int), x, 100, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_write_all(sf, x, 100, MPI_INT, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_sync(hf));
    MPI_Barrier(half);
    CHECK_MPI(MPI_File_sync(hf));
    int nx = (hr + 1) % hs, nxw = nx * 2 + rank % 2;
    CHECK_MPI(MPI_File_read_at_all(hf, nx * 100 * sizeof(int), y, 100, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < 100; i++) if (y[i] != nxw * 1000 + i) { CHECK(0, "half read [%d] = %d want %d", i, y[i], nxw * 1000 + i); break; }
    CHECK_MPI(MPI_File_read_at_all(sf, 0, y, 100, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < 100; i++) if (y[i] != x[i]) { CHECK(0, "self read [%d] = %d", i, y[i]); break; }
    MPI_Barrier(half);
    CHECK_MPI(MPI_File_close(&sf));
    CHECK_MPI(MPI_File_close(&hf));
    MPI_Comm_free(&half);
}

/* MPI_MODE_APPEND starts both pointers at the end; MPI_MODE_SEQUENTIAL
 * takes shared-pointer accesses only. */
static void modes(void)
{
    char path[512];
    MPI_File fh;
    mt_io_path(path, sizeof path, "modes", MPI_COMM_WORLD);
    if (rank == 0) {
        FILE *fp = fopen(path, "w");
        CHECK(fp != NULL, "fopen %s", path);
        if (fp) { fwrite("0123456789", 1, 10, fp); fclose(fp); }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
    MPI_Offset pos = -1;
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, 10);
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, 10);
    MPI_Barrier(MPI_COMM_WORLD);   /* before anyone moves it */
    char c = (char)('a' + rank);
    CHECK_MPI(MPI_File_write_ordered(fh, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    size_t fl;
    char *f = mt_file_all(path, &fl);
    CHECK_INT(fl, 10 + size);
    CHECK(memcmp(f, "0123456789", 10) == 0, "append kept the head");
    for (int r = 0; r < size && 10 + r < (int)fl; r++) CHECK(f[10 + r] == 'a' + r, "appended [%d] = %c", r, f[10 + r]);
    free(f);
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh));
    char buf[4];
    int rc = MPI_File_read_at(fh, 0, buf, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    CHECK(rc != MPI_SUCCESS, "read_at on a sequential file succeeded");
    CHECK_MPI(MPI_File_read_ordered(fh, buf, 2, MPI_CHAR, MPI_STATUS_IGNORE));
    CHECK(buf[0] == '0' + 2 * rank % 10 || 2 * rank >= 10, "sequential ordered read %c", buf[0]);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    outstanding();
    subcomms();
    modes();
    int rc = mt_finish("io_coll");
    MPI_Finalize();
    return rc;
}
