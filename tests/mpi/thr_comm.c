/* SPDX-License-Identifier: MIT */
/* Communicator creation from several threads at once (MPI_THREAD_MULTIPLE):
 * every thread repeatedly makes a communicator from a parent of its own, in
 * turn with MPI_Comm_dup, MPI_Comm_create (its whole group), MPI_Comm_split
 * (by parity, reversed order, one rank sometimes left out),
 * MPI_Comm_split_type (MPI_COMM_TYPE_SHARED), MPI_Comm_create_group (the
 * group reversed) and MPI_Intercomm_create between the even and odd ranks
 * followed by MPI_Intercomm_merge; it checks the new communicator's rank and
 * size, passes values around it (and across the intercommunicator) and
 * frees it.  Two creations running at once in one process must not agree on
 * the same context id: a message would then reach the other thread's
 * communicator and a value would be wrong.  Argument: threads (default 3). */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 8
#define ROUNDS 48
#define KINDS 6

static MPI_Comm base[MAXT];
static int rank, size;

/* Pass (tag, round, base rank) around the ring of c; the value from the
 * previous rank must name that rank's rank in the thread's base. */
static void ring_check(MPI_Comm c, int t, int i, const char *what)
{
    int crank, csize;
    CHECK_MPI(MPI_Comm_rank(c, &crank));
    CHECK_MPI(MPI_Comm_size(c, &csize));
    int v[3] = { t, i, rank }, r[3] = { -1, -1, -1 };
    int next = (crank + 1) % csize, prev = (crank - 1 + csize) % csize, want = -1;
    CHECK_MPI(MPI_Sendrecv(v, 3, MPI_INT, next, 7, r, 3, MPI_INT, prev, 7, c,
                           MPI_STATUS_IGNORE));
    MPI_Group cg, bg;
    CHECK_MPI(MPI_Comm_group(c, &cg));
    CHECK_MPI(MPI_Comm_group(base[t], &bg));
    CHECK_MPI(MPI_Group_translate_ranks(cg, 1, &prev, bg, &want));
    CHECK(r[0] == t && r[1] == i && r[2] == want,
          "thread %d round %d (%s): got (%d,%d,%d) from rank %d, want (%d,%d,%d)", t, i, what,
          r[0], r[1], r[2], prev, t, i, want);
    CHECK_MPI(MPI_Group_free(&cg));
    CHECK_MPI(MPI_Group_free(&bg));
}

/* Even and odd ranks: an intercommunicator between them, checked with an
 * allreduce (each side gets the other's sum of ranks), then merged with
 * the odd side high, checked on the ring. */
static void inter_check(int t, int i)
{
    int color = rank % 2;
    MPI_Comm local, inter, merged;
    CHECK_MPI(MPI_Comm_split(base[t], color, rank, &local));
    CHECK_MPI(MPI_Intercomm_create(local, 0, base[t], color ? 0 : 1, 100 + i, &inter));
    int rsize, lsum = 0, rsum = 0, got = -1;
    CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
    for (int r = 0; r < size; r++) *(r % 2 == color ? &lsum : &rsum) += r;
    CHECK_INT(rsize, color ? (size + 1) / 2 : size / 2);
    CHECK_MPI(MPI_Allreduce(&rank, &got, 1, MPI_INT, MPI_SUM, inter));
    CHECK(got == rsum, "thread %d round %d: intercomm allreduce gave %d, want %d", t, i, got,
          rsum);
    CHECK_MPI(MPI_Intercomm_merge(inter, color, &merged));
    int mrank;
    CHECK_MPI(MPI_Comm_rank(merged, &mrank));
    CHECK_INT(mrank, color ? (size + 1) / 2 + rank / 2 : rank / 2);
    ring_check(merged, t, i, "Intercomm_merge");
    CHECK_MPI(MPI_Comm_free(&merged));
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&local));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Group g, rev;
    CHECK_MPI(MPI_Comm_group(base[t], &g));
    int range[1][3] = { { size - 1, 0, -1 } };
    CHECK_MPI(MPI_Group_range_incl(g, 1, range, &rev));
    for (int i = 0; i < ROUNDS; i++) {
        /* each thread starts at another kind, so different calls meet too */
        int kind = (i + t) % KINDS, crank = -1, csize = -1;
        MPI_Comm c = MPI_COMM_NULL;
        const char *what = "";
        switch (kind) {
        case 0:
            what = "Comm_dup";
            CHECK_MPI(MPI_Comm_dup(base[t], &c));
            break;
        case 1:
            what = "Comm_create";
            CHECK_MPI(MPI_Comm_create(base[t], g, &c));
            break;
        case 2: {
            what = "Comm_split";
            int out = size > 1 && rank == 0 && i % 4 == 2;
            CHECK_MPI(MPI_Comm_split(base[t], out ? MPI_UNDEFINED : rank % 2, -rank, &c));
            if (out) {
                CHECK(c == MPI_COMM_NULL, "thread %d round %d: split with MPI_UNDEFINED gave "
                      "a communicator", t, i);
                continue;
            }
            /* members of my parity, highest rank first (rank 0 perhaps out) */
            int n = 0, me = 0, out0 = size > 1 && i % 4 == 2;
            for (int r = size - 1; r >= 0; r--)
                if (r % 2 == rank % 2 && !(out0 && r == 0)) {
                    if (r == rank) me = n;
                    n++;
                }
            CHECK_MPI(MPI_Comm_rank(c, &crank));
            CHECK_MPI(MPI_Comm_size(c, &csize));
            CHECK(crank == me && csize == n, "thread %d round %d: split gave rank %d of %d, "
                  "want %d of %d", t, i, crank, csize, me, n);
            break;
        }
        case 3:
            what = "Comm_split_type";
            CHECK_MPI(MPI_Comm_split_type(base[t], MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                                          &c));
            CHECK_MPI(MPI_Comm_size(c, &csize));
            CHECK_INT(csize, size);
            break;
        case 4:
            what = "Comm_create_group";
            CHECK_MPI(MPI_Comm_create_group(base[t], rev, i, &c));
            CHECK_MPI(MPI_Comm_rank(c, &crank));
            CHECK_INT(crank, size - 1 - rank);
            break;
        default:
            if (size > 1) inter_check(t, i);
            continue;
        }
        ring_check(c, t, i, what);
        CHECK_MPI(MPI_Comm_free(&c));
    }
    CHECK_MPI(MPI_Group_free(&rev));
    CHECK_MPI(MPI_Group_free(&g));
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_rank();
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nt = argc > 1 ? atoi(argv[1]) : 3;
    if (nt < 1 || nt > MAXT) nt = 3;
    for (int t = 0; t < nt; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
    pthread_t th[MAXT];
    for (int t = 0; t < nt; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < nt; t++) CHECK_MPI(MPI_Comm_free(&base[t]));
    int rc = mt_finish("thr_comm");
    MPI_Finalize();
    return rc;
}
