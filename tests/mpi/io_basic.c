/* SPDX-License-Identifier: MIT */
/* MPI-IO basics: open/close/delete with their errors, size, amode, group,
 * info, atomicity, the default file error handler (MPI_ERRORS_RETURN), and
 * contiguous independent reads and writes at explicit offsets, through the
 * individual pointer (seek, get_position, get_byte_offset) and through the
 * shared pointer, blocking, non-blocking and large-count.  Every datum is
 * checked in memory and, with POSIX reads, in the file. */
#include "iotest.h"
#include <sys/stat.h>

static int rank, size;
static char path[512];

static void make_path(const char *tag) { mt_io_path(path, sizeof path, tag, MPI_COMM_WORLD); }

static void file_bytes(long off, void *dst, size_t n) { mt_file_bytes(path, off, dst, n); }

static void open_errors(void)
{
    MPI_File fh;
    make_path("err");
    if (rank == 0) unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    /* default handler on MPI_FILE_NULL is MPI_ERRORS_RETURN */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "default file errhandler 0x%x", (unsigned)eh);
    MPI_Errhandler_free(&eh);
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    CHECK_CLASS(rc, MPI_ERR_NO_SUCH_FILE);
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    CHECK_CLASS(rc, MPI_ERR_AMODE);
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
    CHECK_CLASS(rc, MPI_ERR_AMODE);
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close sets MPI_FILE_NULL");
    rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_EXCL,
                       MPI_INFO_NULL, &fh);
    CHECK_CLASS(rc, MPI_ERR_FILE_EXISTS);
    /* reading a write-only file */
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    char c;
    rc = MPI_File_read_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    CHECK(rc != MPI_SUCCESS, "read of a WRONLY file succeeded");
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        rc = MPI_File_delete(path, MPI_INFO_NULL);
        CHECK_CLASS(rc, MPI_ERR_NO_SUCH_FILE);
    }
}

static void attributes(void)
{
    MPI_File fh;
    make_path("attr");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                            MPI_INFO_NULL, &fh));
    int amode = 0, flag = -1, res = -1;
    CHECK_MPI(MPI_File_get_amode(fh, &amode));
    CHECK_INT(amode, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE);
    MPI_Group g, wg;
    CHECK_MPI(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &res);
    CHECK_INT(res, MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK_INT(flag, 0);
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK_INT(flag, 1);
    CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    MPI_Offset sz = -1;
    CHECK_MPI(MPI_File_set_size(fh, 1000));
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, 1000);
    MPI_Barrier(MPI_COMM_WORLD);   /* before anyone changes the size again */
    CHECK_MPI(MPI_File_set_size(fh, 10));
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, 10);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_preallocate(fh, 4096));
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, 4096);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_preallocate(fh, 100));   /* never shrinks */
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, 4096);
    /* info: a hint we set comes back */
    MPI_Info info, used;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    CHECK_MPI(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
    CHECK_MPI(MPI_File_get_info(fh, &used));
    char val[MPI_MAX_INFO_VAL + 1];
    int found = 0;
    MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, val, &found);
    CHECK(found && strcmp(val, "1048576") == 0, "cb_buffer_size found %d value %s", found, found ? val : "");
    MPI_Info_free(&used);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    struct stat st;
    CHECK(stat(path, &st) != 0, "MPI_MODE_DELETE_ON_CLOSE left %s", path);
}

enum { N = 1000 };

static void contiguous(void)
{
    MPI_File fh;
    MPI_Status st;
    int cnt;
    make_path("contig");
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_size(fh, 0));
    int *a = mt_malloc(N * sizeof(int)), *b = mt_malloc(N * sizeof(int));
    /* explicit offsets: rank r writes ints [r*N, (r+1)*N) */
    for (int i = 0; i < N; i++) a[i] = rank * N + i;
    CHECK_MPI(MPI_File_write_at(fh, (MPI_Offset)rank * N * sizeof(int), a, N, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, N);
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    /* read the next rank's block */
    int nx = (rank + 1) % size;
    memset(b, 0, N * sizeof(int));
    CHECK_MPI(MPI_File_read_at(fh, (MPI_Offset)nx * N * sizeof(int), b, N, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, N);
    for (int i = 0; i < N; i++) CHECK(b[i] == nx * N + i, "read_at [%d] = %d", i, b[i]);
    /* in the file */
    file_bytes((long)nx * N * sizeof(int), b, N * sizeof(int));
    for (int i = 0; i < N; i++) CHECK(b[i] == nx * N + i, "file [%d] = %d", i, b[i]);
    MPI_Offset sz;
    CHECK_MPI(MPI_File_get_size(fh, &sz));
    CHECK_INT(sz, (MPI_Offset)size * N * sizeof(int));

    /* reading past the end: a short count */
    CHECK_MPI(MPI_File_read_at(fh, sz - 2 * sizeof(int), b, 10, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, 2);

    /* individual pointer: seek, read, position */
    MPI_Offset pos = -1, disp = -1;
    CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)nx * N * sizeof(int) + 40, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read(fh, b, 5, MPI_INT, &st));
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, (MPI_Offset)nx * N * sizeof(int) + 60);
    for (int i = 0; i < 5; i++) CHECK_INT(b[i], nx * N + 10 + i);
    CHECK_MPI(MPI_File_seek(fh, -20, MPI_SEEK_CUR));
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, (MPI_Offset)nx * N * sizeof(int) + 40);
    CHECK_MPI(MPI_File_seek(fh, -4, MPI_SEEK_END));
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, sz - 4);
    CHECK_MPI(MPI_File_get_byte_offset(fh, 123, &disp));
    CHECK_INT(disp, 123);
    int rc = MPI_File_seek(fh, -1, MPI_SEEK_SET);
    CHECK_CLASS(rc, MPI_ERR_ARG);

    /* non-blocking and large-count forms: rank r overwrites its block with r+1000
     * once every rank has read */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request rq[2];
    for (int i = 0; i < N; i++) a[i] = (rank + 1000) * N + i;
    CHECK_MPI(MPI_File_iwrite_at(fh, (MPI_Offset)rank * N * sizeof(int), a, N / 2, MPI_INT, &rq[0]));
    CHECK_MPI(MPI_File_seek(fh, (MPI_Offset)rank * N * sizeof(int) + N / 2 * sizeof(int), MPI_SEEK_SET));
    CHECK_MPI(MPI_File_iwrite_c(fh, a + N / 2, (MPI_Count)(N - N / 2), MPI_INT, &rq[1]));
    MPI_Status sts[2];
    CHECK_MPI(MPI_Waitall(2, rq, sts));
    MPI_Get_count(&sts[0], MPI_INT, &cnt);
    CHECK_INT(cnt, N / 2);
    MPI_Get_count(&sts[1], MPI_INT, &cnt);
    CHECK_INT(cnt, N - N / 2);
    CHECK_MPI(MPI_File_get_position(fh, &pos));
    CHECK_INT(pos, (MPI_Offset)(rank + 1) * N * sizeof(int));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_sync(fh));
    memset(b, 0, N * sizeof(int));
    CHECK_MPI(MPI_File_iread_at(fh, (MPI_Offset)nx * N * sizeof(int), b, N, MPI_INT, &rq[0]));
    CHECK_MPI(MPI_Wait(&rq[0], &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, N);
    for (int i = 0; i < N; i++) CHECK(b[i] == (nx + 1000) * N + i, "iread_at [%d] = %d", i, b[i]);
    MPI_Count ccnt = 0;
    CHECK_MPI(MPI_File_read_at_c(fh, 0, b, (MPI_Count)N, MPI_INT, &st));
    MPI_Get_count_c(&st, MPI_INT, &ccnt);
    CHECK_INT(ccnt, N);
    for (int i = 0; i < N; i++) CHECK(b[i] == 1000 * N + i, "read_at_c [%d] = %d", i, b[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_close(&fh));

    /* shared pointer: every rank appends 10 ints tagged with its rank */
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_size(fh, 0));
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 10; i++) a[i] = rank * 100 + i;
    CHECK_MPI(MPI_File_write_shared(fh, a, 10, MPI_INT, &st));
    CHECK_MPI(MPI_File_iwrite_shared(fh, a, 10, MPI_INT, &rq[0]));
    CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_File_get_position_shared(fh, &pos));
    CHECK_INT(pos, (MPI_Offset)size * 20 * sizeof(int));
    CHECK_MPI(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    int *all = mt_malloc((size_t)size * 20 * sizeof(int));
    file_bytes(0, all, (size_t)size * 20 * sizeof(int));
    int *seen = calloc((size_t)size, sizeof(int));
    for (int blk = 0; blk < 2 * size; blk++) {
        int r = all[blk * 10] / 100;
        CHECK(r >= 0 && r < size, "block %d owner %d", blk, r);
        if (r < 0 || r >= size) continue;
        seen[r]++;
        for (int i = 0; i < 10; i++) CHECK(all[blk * 10 + i] == r * 100 + i, "shared blk %d [%d] = %d", blk, i, all[blk * 10 + i]);
    }
    for (int r = 0; r < size; r++) CHECK_INT(seen[r], 2);
    /* seek_shared (collective) and read_shared */
    CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    CHECK_MPI(MPI_File_read_shared(fh, b, 10, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_INT(cnt, 10);
    int r0 = b[0] / 100;
    for (int i = 0; i < 10; i++) CHECK_INT(b[i], r0 * 100 + i);
    free(all);
    free(seen);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    open_errors();
    attributes();
    contiguous();
    int rc = mt_finish("io_basic");
    MPI_Finalize();
    return rc;
}
