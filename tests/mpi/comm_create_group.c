/* SPDX-License-Identifier: MIT */
/* MPI_Comm_create_group in a loop over changing groups of MPI_COMM_WORLD,
 * always with tag 0: a member that is in one round's group may run ahead
 * into the next round while others are still in this one, so the agreement
 * messages of consecutive calls over different groups meet at a process and
 * must not be confused (MPICH's comm/comm_group_rand hung on that).  In every
 * round the members check the new communicator: its size, their rank in it
 * (world order), its group against the one asked for, and an allreduce of
 * the world ranks and a ring exchange over it.  Any number of ranks. */
#include "mpitest.h"

enum { ROUNDS = 200 };

/* A deterministic pseudo-random bit per (round, rank), the same everywhere. */
static int member(int round, int r)
{
    unsigned x = (unsigned)round * 2654435761u ^ (unsigned)(r + 1) * 40503u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    return (x >> 7) & 1u;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int *ranks = mt_malloc((size_t)size * sizeof(int));

    for (int j = 0; j < ROUNDS; j++) {
        int n = 0, me = -1;
        long sum = 0;
        for (int r = 0; r < size; r++)
            if (member(j, r)) {
                if (r == rank) me = n;
                ranks[n++] = r;
                sum += r;
            }
        MPI_Group g;
        MPI_Group_incl(world, n, ranks, &g);
        if (me >= 0) {
            MPI_Comm c = MPI_COMM_NULL;
            CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c));
            int cs = -1, cr = -1, cmp = -1;
            MPI_Comm_size(c, &cs);
            MPI_Comm_rank(c, &cr);
            CHECK_INT(cs, n);
            CHECK_INT(cr, me);
            MPI_Group cg;
            MPI_Comm_group(c, &cg);
            MPI_Group_compare(cg, g, &cmp);
            CHECK_INT(cmp, MPI_IDENT);
            MPI_Group_free(&cg);
            long got = -1, mine = rank;
            CHECK_MPI(MPI_Allreduce(&mine, &got, 1, MPI_LONG, MPI_SUM, c));
            CHECK(got == sum, "round %d: allreduce of world ranks %ld, expected %ld", j, got, sum);
            int from = -1, to = (me + 1) % n, left = (me - 1 + n) % n;
            CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, to, j, &from, 1, MPI_INT, left, j, c,
                                   MPI_STATUS_IGNORE));
            CHECK(from == ranks[left], "round %d: ring got %d, expected %d", j, from, ranks[left]);
            MPI_Comm_free(&c);
        }
        MPI_Group_free(&g);
    }
    free(ranks);
    MPI_Group_free(&world);
    int rc = mt_finish("comm_create_group");
    MPI_Finalize();
    return rc;
}
