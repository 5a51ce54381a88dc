/* SPDX-License-Identifier: MIT */
/* Atomic mode (MPI_File_set_atomicity): conflicting accesses of different
 * ranks are sequentially consistent.  Every rank writes the same strided
 * region (a view with holes, so each access is many runs) at the same time,
 * many times, each time with its own value; after each round the region must
 * hold one rank's value everywhere, never a mix.  Meanwhile readers check
 * that a read sees one write whole (every datum the same).  The holes stay
 * zero.  Also the query: get_atomicity, and that set_atomicity is collective
 * (every rank the same flag). */
#include "iotest.h"

static int rank, size;
static char path[512];

enum { N = 6000, ROUNDS = 6 };   /* ints per access (3 of every 4 file ints) */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_io_path(path, sizeof path, "atomic", MPI_COMM_WORLD);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_size(fh, 0));
    CHECK_MPI(MPI_File_set_atomicity(fh, 1));
    int flag = 0;
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK_INT(flag, 1);
    MPI_Datatype v, ft;
    MPI_Type_vector(1, 3, 4, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 4 * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    int *a = mt_malloc(N * sizeof(int)), *b = mt_malloc(N * sizeof(int));
    for (int round = 0; round < ROUNDS; round++) {
        int mine = 1 + round * 100 + rank;
        for (int i = 0; i < N; i++) a[i] = mine;
        MPI_Barrier(MPI_COMM_WORLD);
        /* odd rounds: rank 0 only reads while the others write */
        if (round % 2 == 1 && rank == 0 && size > 1) {
            for (int k = 0; k < 4; k++) {
                CHECK_MPI(MPI_File_read_at(fh, 0, b, N, MPI_INT, MPI_STATUS_IGNORE));
                for (int i = 1; i < N; i++)
                    if (b[i] != b[0]) { CHECK(0, "round %d: a read saw a mix: [0] = %d, [%d] = %d", round, b[0], i, b[i]); break; }
            }
        } else {
            CHECK_MPI(MPI_File_write_at(fh, 0, a, N, MPI_INT, MPI_STATUS_IGNORE));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_File_read_at(fh, 0, b, N, MPI_INT, MPI_STATUS_IGNORE));
        int who = b[0] - 1 - round * 100;
        CHECK(who >= 0 && who < size && !(round % 2 == 1 && who == 0 && size > 1), "round %d: value %d", round, b[0]);
        for (int i = 1; i < N; i++)
            if (b[i] != b[0]) { CHECK(0, "round %d: region mixes writes: [0] = %d, [%d] = %d", round, b[0], i, b[i]); break; }
    }
    /* the holes are untouched */
    MPI_Barrier(MPI_COMM_WORLD);
    size_t fl;
    int *f = mt_file_all(path, &fl);
    CHECK_INT(fl, (size_t)(N / 3 * 4 - 1) * sizeof(int));
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0's ROMIO leaves garbage (-1) in holes it sieves */
    for (size_t k = 3; k < fl / sizeof(int); k += 4) if (f[k] != 0) { CHECK(0, "hole %zu = %d", k, f[k]); break; }
#endif
    free(f);
    CHECK_MPI(MPI_File_set_atomicity(fh, 0));
    CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
    CHECK_INT(flag, 0);
    MPI_Type_free(&v);
    MPI_Type_free(&ft);
    free(a);
    free(b);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    int rc = mt_finish("io_atomic");
    MPI_Finalize();
    return rc;
}
