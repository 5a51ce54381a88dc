/* SPDX-License-Identifier: MIT */
/* Collectives on an intercommunicator (even vs odd ranks of MPI_COMM_WORLD):
 * Barrier (nobody leaves before everybody entered, checked with a message
 * sent just before entering), Bcast from a root in each group (MPI_ROOT /
 * MPI_PROC_NULL / remote root rank), Allreduce (each group gets the other
 * group's sum, and a non-commutative-safe check with MPI_MAX / MPI_SUM on
 * vectors), and the non-blocking Ibarrier / Ibcast / Iallreduce in flight together. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        int rc = mt_finish("comm_intercomm_coll");
        MPI_Finalize();
        return rc;
    }
    int color = rank % 2, nlocal = color ? size / 2 : (size + 1) / 2, nremote = size - nlocal;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 3, &inter));
    int lr;
    MPI_Comm_rank(inter, &lr);

    /* barrier: every process sends world rank 0 a message before entering;
     * world rank 0 must find all of them already there after the barrier */
    for (int it = 0; it < 3; it++) {
        int v = rank;
        MPI_Request q;
        CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, 0, 50 + it, MPI_COMM_WORLD, &q));
        CHECK_MPI(MPI_Barrier(inter));
        if (rank == 0) {
            for (int s = 0; s < size; s++) {
                int flag = 0;
                CHECK_MPI(MPI_Iprobe(s, 50 + it, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                CHECK(flag, "iteration %d: rank %d's message not there after the barrier", it, s);
                int x;
                MPI_Recv(&x, 1, MPI_INT, s, 50 + it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
        MPI_Wait(&q, MPI_STATUS_IGNORE);
    }

    /* bcast: root = last process of each group in turn */
    for (int g = 0; g < 2; g++) {
        int n = 1000, *buf = mt_malloc(sizeof(int) * n);
        /* group g (0 evens, 1 odds) holds the root: its last process */
        int root = color == g ? (lr == nlocal - 1 ? MPI_ROOT : MPI_PROC_NULL) : nremote - 1;
        for (int i = 0; i < n; i++) buf[i] = root == MPI_ROOT ? i * 3 + g : -1;
        CHECK_MPI(MPI_Bcast(buf, n, MPI_INT, root, inter));
        if (root == MPI_PROC_NULL) {
            for (int i = 0; i < n; i++) CHECK_INT(buf[i], -1);
        } else {
            for (int i = 0; i < n; i++) CHECK_INT(buf[i], i * 3 + g);
        }
        free(buf);
    }

    /* allreduce: each group gets the other's reduction */
    {
        int n = 300, *in = mt_malloc(sizeof(int) * n), *out = mt_malloc(sizeof(int) * n);
        for (int i = 0; i < n; i++) in[i] = rank * 1000 + i;
        CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, inter));
        for (int i = 0; i < n; i++) {
            int want = 0;
            for (int q = 1 - color; q < size; q += 2) want += q * 1000 + i;
            CHECK_INT(out[i], want);
        }
        CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_MAX, inter));
        int maxr = (size - 1) % 2 == 1 - color ? size - 1 : size - 2;
        for (int i = 0; i < n; i++) CHECK_INT(out[i], maxr * 1000 + i);
        free(in);
        free(out);
    }

    /* non-blocking forms, all three in flight at once */
    {
        int n = 50, b[50], in[50], out[50];
        int root = color == 1 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        for (int i = 0; i < n; i++) {
            b[i] = root == MPI_ROOT ? 7 * i : -1;
            in[i] = rank + i;
            out[i] = -1;
        }
        MPI_Request q[3];
        CHECK_MPI(MPI_Ibarrier(inter, &q[0]));
        CHECK_MPI(MPI_Ibcast(b, n, MPI_INT, root, inter, &q[1]));
        CHECK_MPI(MPI_Iallreduce(in, out, n, MPI_INT, MPI_SUM, inter, &q[2]));
        CHECK_MPI(MPI_Waitall(3, q, MPI_STATUSES_IGNORE));
        for (int i = 0; i < n; i++) {
            CHECK_INT(b[i], root == MPI_PROC_NULL ? -1 : 7 * i);
            int want = 0;
            for (int r = 1 - color; r < size; r += 2) want += r + i;
            CHECK_INT(out[i], want);
        }
    }

    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    int rc = mt_finish("comm_intercomm_coll");
    MPI_Finalize();
    return rc;
}
