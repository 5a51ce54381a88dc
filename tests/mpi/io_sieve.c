/* SPDX-License-Identifier: MIT */
/* Independent non-contiguous writes with data sieving (romio_ds_write=
 * enable) beside concurrent writers of interleaved regions.  A sieved
 * write is a read-modify-write of a window of the file that also holds the
 * other ranks' bytes; the standard lets each write change only its own
 * bytes, so the window must be locked while it is read, filled and written
 * back, or a neighbour's bytes written in between are lost.
 *
 * Every rank owns the elements r, r + P, r + 2P, ... of the file (elements
 * of 1, 3 and 8 bytes; a strided view with the rank's displacement) and
 * writes them independently, all ranks at once, in many calls of a few
 * elements, with sieve windows (ind_wr_buffer_size) from a few hundred
 * bytes to a few KiB, so that every window is shared with the other ranks.
 * After each round every rank compares the whole file, with POSIX reads,
 * with what every rank wrote (each round writes other values, so a lost
 * write shows as the previous round's byte).  The same is done
 *  - with one file handle over MPI_COMM_WORLD, blocking write_at;
 *  - with the same handle and non-blocking iwrite_at, all of a round's
 *    calls outstanding at once (they run on the I/O helper thread);
 *  - with one handle per rank (each rank opens the file on MPI_COMM_SELF):
 *    the handles share nothing but the file, and a sieving write must still
 *    lock its window. */
#include "iotest.h"

static int rank, size;

/* byte i of element k in round `seed` */
static unsigned char val(long k, int i, int seed) { return (unsigned char)(k * 7 + i * 29 + seed * 53 + 1); }

typedef struct {
    int esz;        /* bytes per element */
    int win;        /* ind_wr_buffer_size */
    int chunk;      /* elements per write call */
    long K;         /* elements per rank */
} shape_t;

enum { ROUNDS = 3, ROUNDS_SELF = 8, MAX_REQ = 4096 };
enum { H_WORLD, H_WORLD_NB, H_SELF };
static const char *const how_name[] = { "one handle", "one handle, iwrite_at", "a handle per rank" };

static void fill(unsigned char *a, const shape_t *s, int seed)
{
    for (long j = 0; j < s->K; j++)
        for (int i = 0; i < s->esz; i++) a[j * s->esz + i] = val(j * size + rank, i, seed);
}

/* The whole file against every rank's elements of `seed`. */
static void check_file(const char *path, const shape_t *s, int seed, const char *what)
{
    size_t fl;
    long nelem = s->K * size;
    unsigned char *f = mt_file_all(path, &fl);
    CHECK(fl == (size_t)(nelem * s->esz), "%s: file of %zu bytes, want %ld", what, fl, nelem * s->esz);
    long bad = 0, first = -1;
    for (long k = 0; k < nelem && (size_t)((k + 1) * s->esz) <= fl; k++)
        for (int i = 0; i < s->esz; i++)
            if (f[k * s->esz + i] != val(k, i, seed)) {
                if (first < 0) first = k;
                bad++;
            }
    CHECK(bad == 0, "%s: %ld wrong byte(s), the first in element %ld (rank %ld's): %d, want %d", what, bad,
          first, first < 0 ? -1L : first % size, first < 0 ? 0 : f[first * s->esz],
          first < 0 ? 0 : val(first, 0, seed));
    free(f);
}

static void run(const shape_t *s, int how)
{
    char path[512], what[160];
    mt_io_path(path, sizeof path, "sieve", MPI_COMM_WORLD);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", "enable");
    char w[32];
    snprintf(w, sizeof w, "%d", s->win);
    MPI_Info_set(info, "ind_wr_buffer_size", w);
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(s->esz, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)size * s->esz, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&blk);
    MPI_File fh;
    if (how == H_SELF) {
        /* a fresh file that every rank then opens by itself */
        if (rank == 0) {
            CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
            CHECK_MPI(MPI_File_set_size(fh, 0));
            CHECK_MPI(MPI_File_close(&fh));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDWR, info, &fh));
    } else {
        CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
        CHECK_MPI(MPI_File_set_size(fh, 0));
    }
    CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)rank * s->esz, MPI_BYTE, ft, "native", info));
    unsigned char *a = mt_malloc((size_t)(s->K * s->esz));
    MPI_Request *rq = mt_malloc(MAX_REQ * sizeof *rq);
    int rounds = how == H_SELF ? ROUNDS_SELF : ROUNDS;
    for (int round = 0; round < rounds; round++) {
        int seed = 1 + round + 20 * how;
        fill(a, s, seed);
        MPI_Barrier(MPI_COMM_WORLD);
        int nrq = 0;
        for (long j = 0; j < s->K; j += s->chunk) {
            int n = (int)(s->K - j < s->chunk ? s->K - j : s->chunk) * s->esz;
            MPI_Offset at = (MPI_Offset)j * s->esz;
            if (how == H_WORLD_NB && nrq < MAX_REQ)
                CHECK_MPI(MPI_File_iwrite_at(fh, at, a + j * s->esz, n, MPI_BYTE, &rq[nrq++]));
            else
                CHECK_MPI(MPI_File_write_at(fh, at, a + j * s->esz, n, MPI_BYTE, MPI_STATUS_IGNORE));
        }
        CHECK_MPI(MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE));
        /* sync, barrier, sync: every rank's writes are in the file */
        CHECK_MPI(MPI_File_sync(fh));
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_File_sync(fh));
        snprintf(what, sizeof what, "%s, %d-byte elements, %d-byte windows, round %d", how_name[how], s->esz,
                 s->win, round);
        check_file(path, s, seed, what);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    free(rq);
    free(a);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const shape_t shapes[] = {
        { 8, 4096, 64, 6000 },    /* windows of 4 KiB, calls of 512 bytes of data */
        { 1, 256, 100, 30000 },   /* single bytes: every window holds every rank's */
        { 3, 1000, 37, 8000 },    /* windows and calls that cut elements' runs unevenly */
    };
    for (int how = H_WORLD; how <= H_SELF; how++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) run(&shapes[k], how);
    int rc = mt_finish("io_sieve");
    MPI_Finalize();
    return rc;
}
