/* SPDX-License-Identifier: MIT */
/* Communicators and groups: Comm_rank/size, Comm_dup (a separate matching
 * context), Comm_split (colours, keys, MPI_UNDEFINED), Comm_compare, Comm_free,
 * Comm_group, Group_size/rank/translate_ranks/compare/free. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size, r2, s2, res;
    MPI_Init(&argc, &argv);
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(size >= 1 && rank >= 0 && rank < size, "rank %d size %d", rank, size);
    CHECK_MPI(MPI_Comm_rank(MPI_COMM_SELF, &r2));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_SELF, &s2));
    CHECK_INT(r2, 0);
    CHECK_INT(s2, 1);

    /* dup: same group, different context */
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_rank(dup, &r2));
    CHECK_MPI(MPI_Comm_size(dup, &s2));
    CHECK_INT(r2, rank);
    CHECK_INT(s2, size);
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, dup, &res));
    CHECK_INT(res, MPI_CONGRUENT);
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
    CHECK_INT(res, MPI_IDENT);
    {
        /* a message on dup does not match a receive on world */
        int to = (rank + 1) % size, from = (rank + size - 1) % size, a = rank, b = rank + 100, x = -1, y = -1;
        MPI_Request r[2];
        CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, to, 0, dup, &r[0]));
        CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, to, 0, MPI_COMM_WORLD, &r[1]));
        CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE));
        CHECK_INT(y, from + 100);
        CHECK_INT(x, from);
        CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    }

    /* split: even/odd, key reverses the order */
    MPI_Comm half;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    CHECK_MPI(MPI_Comm_size(half, &s2));
    CHECK_MPI(MPI_Comm_rank(half, &r2));
    int nmine = (size - rank % 2 + 1) / 2;
    CHECK_INT(s2, nmine);
    /* reversed order: the highest world rank of my colour is 0 */
    int expect = 0;
    for (int q = size - 1; q > rank; q--) if (q % 2 == rank % 2) expect++;
    CHECK_INT(r2, expect);
    {
        int sum = -1;
        CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
        int want = 0;
        for (int q = rank % 2; q < size; q += 2) want += q;
        CHECK_INT(sum, want);
    }
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, half, &res));
    CHECK_INT(res, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);

    /* same order split is SIMILAR... only when it has all ranks; reorder all ranks */
    MPI_Comm rev;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    CHECK_MPI(MPI_Comm_rank(rev, &r2));
    CHECK_INT(r2, size - 1 - rank);
    CHECK_MPI(MPI_Comm_compare(MPI_COMM_WORLD, rev, &res));
    CHECK_INT(res, size == 1 ? MPI_CONGRUENT : MPI_SIMILAR);

    /* MPI_UNDEFINED colour gives MPI_COMM_NULL */
    MPI_Comm none;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none));
    if (rank == 0) CHECK(none == MPI_COMM_NULL, "split with MPI_UNDEFINED did not give MPI_COMM_NULL");
    else {
        CHECK_MPI(MPI_Comm_size(none, &s2));
        CHECK_INT(s2, size - 1);
        CHECK_MPI(MPI_Comm_free(&none));
    }

    /* groups */
    MPI_Group wg, hg;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_MPI(MPI_Comm_group(half, &hg));
    CHECK_MPI(MPI_Group_size(wg, &s2));
    CHECK_INT(s2, size);
    CHECK_MPI(MPI_Group_rank(wg, &r2));
    CHECK_INT(r2, rank);
    CHECK_MPI(MPI_Group_size(hg, &s2));
    CHECK_INT(s2, nmine);
    {
        int n = nmine, in[64], out[64];
        for (int i = 0; i < n; i++) in[i] = i;
        CHECK_MPI(MPI_Group_translate_ranks(hg, n, in, wg, out));
        for (int i = 0; i < n; i++) {
            /* half rank i is the i-th highest world rank of my colour */
            int q = size - 1;
            while (q % 2 != rank % 2) q--;
            q -= 2 * i;
            CHECK_INT(out[i], q);
        }
        int one = rank, back = -1;
        CHECK_MPI(MPI_Group_translate_ranks(wg, 1, &one, hg, &back));
        CHECK_INT(back, expect);
        if ((rank ^ 1) < size) {
            int other = rank ^ 1; /* the other colour */
            CHECK_MPI(MPI_Group_translate_ranks(wg, 1, &other, hg, &back));
            CHECK_INT(back, MPI_UNDEFINED);
        }
        int pn = MPI_PROC_NULL;
        CHECK_MPI(MPI_Group_translate_ranks(wg, 1, &pn, hg, &back));
        CHECK_INT(back, MPI_PROC_NULL);
    }
    CHECK_MPI(MPI_Group_compare(wg, wg, &res));
    CHECK_INT(res, MPI_IDENT);
    CHECK_MPI(MPI_Group_free(&wg));
    CHECK(wg == MPI_GROUP_NULL, "Group_free did not set MPI_GROUP_NULL");
    CHECK_MPI(MPI_Group_free(&hg));
    {
        MPI_Group eg;
        CHECK_MPI(MPI_Comm_group(MPI_COMM_SELF, &eg));
        CHECK_MPI(MPI_Group_size(eg, &s2));
        CHECK_INT(s2, 1);
        CHECK_MPI(MPI_Group_free(&eg));
        CHECK_MPI(MPI_Group_size(MPI_GROUP_EMPTY, &s2));
        CHECK_INT(s2, 0);
        CHECK_MPI(MPI_Group_rank(MPI_GROUP_EMPTY, &r2));
        CHECK_INT(r2, MPI_UNDEFINED);
    }

    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "Comm_free did not set MPI_COMM_NULL");
    CHECK_MPI(MPI_Comm_free(&half));
    CHECK_MPI(MPI_Comm_free(&rev));
    /* many dup/free cycles must not run out of contexts */
    for (int i = 0; i < 300; i++) {
        MPI_Comm c;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        CHECK_MPI(MPI_Comm_free(&c));
    }
    int rc = mt_finish("env_comm");
    MPI_Finalize();
    return rc;
}
