/* SPDX-License-Identifier: MIT */
/* MPI_Sendrecv and MPI_Sendrecv_replace: periodic ring shifts both ways, a
 * non-periodic shift whose ends talk to MPI_PROC_NULL, sizes across the eager
 * limit. */
#include "mpitest.h"

static const int sizes[] = {0, 1, 100, 4096, 4097, 300000}; /* in ints */
#define NS (int)(sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int *a = mt_malloc(sizeof(int) * 300000), *b = mt_malloc(sizeof(int) * 300000);

    for (int s = 0; s < NS; s++) {
        int n = sizes[s], cnt = -1;
        MPI_Status st;
        for (int i = 0; i < n; i++) { a[i] = rank * 7 + i; b[i] = -1; }
        CHECK_MPI(MPI_Sendrecv(a, n, MPI_INT, right, s, b, n, MPI_INT, left, s, MPI_COMM_WORLD, &st));
        CHECK_INT(st.MPI_SOURCE, left);
        CHECK_INT(st.MPI_TAG, s);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK_INT(cnt, n);
        for (int i = 0; i < n; i++) if (b[i] != left * 7 + i) { CHECK_INT(b[i], left * 7 + i); break; }

        /* replace, shifting left */
        CHECK_MPI(MPI_Sendrecv_replace(a, n, MPI_INT, left, s + 100, right, s + 100, MPI_COMM_WORLD, &st));
        CHECK_INT(st.MPI_SOURCE, right);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK_INT(cnt, n);
        for (int i = 0; i < n; i++) if (a[i] != right * 7 + i) { CHECK_INT(a[i], right * 7 + i); break; }

        /* non-periodic: rank 0 receives from PROC_NULL, the last sends to PROC_NULL */
        int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL, down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
        for (int i = 0; i < n; i++) { a[i] = rank * 3 + i; b[i] = -5; }
        CHECK_MPI(MPI_Sendrecv(a, n, MPI_INT, up, 1, b, n, MPI_INT, down, 1, MPI_COMM_WORLD, &st));
        if (down == MPI_PROC_NULL) {
            CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
            CHECK_INT(st.MPI_TAG, MPI_ANY_TAG);
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK_INT(cnt, 0);
            for (int i = 0; i < n; i++) if (b[i] != -5) { CHECK_INT(b[i], -5); break; }
        } else {
            for (int i = 0; i < n; i++) if (b[i] != down * 3 + i) { CHECK_INT(b[i], down * 3 + i); break; }
        }
        CHECK_MPI(MPI_Sendrecv_replace(a, n, MPI_INT, down, 2, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (up == MPI_PROC_NULL) {
            for (int i = 0; i < n; i++) if (a[i] != rank * 3 + i) { CHECK_INT(a[i], rank * 3 + i); break; }
        } else {
            for (int i = 0; i < n; i++) if (a[i] != up * 3 + i) { CHECK_INT(a[i], up * 3 + i); break; }
        }
    }
    free(a); free(b);
    int rc = mt_finish("p2p_sendrecv_replace");
    MPI_Finalize();
    return rc;
}
