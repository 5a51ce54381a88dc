/* SPDX-License-Identifier: MIT */
/* Communicator creation with traffic on the results: Comm_split (colors,
 * keys, MPI_UNDEFINED), Comm_create (a subgroup; the rest get MPI_COMM_NULL),
 * Comm_create_group (only the group calls; two disjoint groups at once, with
 * different tags), and context isolation: the same tag and source on two
 * communicators never cross. */
#include "mpitest.h"

/* A ring exchange on comm with a checked payload. */
static void ring(MPI_Comm comm, long seed)
{
    int r, n, buf[64], got[64];
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    int to = (r + 1) % n, from = (r - 1 + n) % n;
    for (int i = 0; i < 64; i++) buf[i] = (int)(seed * 1000 + r * 64 + i);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(buf, 64, MPI_INT, to, 5, got, 64, MPI_INT, from, 5, comm, &st));
    CHECK_INT(st.MPI_SOURCE, from);
    for (int i = 0; i < 64; i++) CHECK_INT(got[i], seed * 1000 + from * 64 + i);
}

/* Messages with the same (source, tag) on comms a and b, received in the
 * opposite order: each arrives on its own communicator. */
static void isolation(MPI_Comm a, MPI_Comm b)
{
    int r, n;
    MPI_Comm_rank(a, &r);
    MPI_Comm_size(a, &n);
    int to = (r + 1) % n, from = (r - 1 + n) % n, va = 1000 + r, vb = 2000 + r, x = -1, y = -1;
    MPI_Request q[2];
    CHECK_MPI(MPI_Isend(&va, 1, MPI_INT, to, 9, a, &q[0]));
    CHECK_MPI(MPI_Isend(&vb, 1, MPI_INT, to, 9, b, &q[1]));
    CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 9, b, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, from, MPI_ANY_TAG, a, MPI_STATUS_IGNORE));
    CHECK_INT(x, 1000 + from);
    CHECK_INT(y, 2000 + from);
    CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
}

/* isolation against a second communicator over the same group */
static void isolation_dup(MPI_Comm c)
{
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    isolation(c, d);
    isolation(d, c);
    MPI_Comm_free(&d);
}

int main(int argc, char **argv)
{
    int rank, size, r, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* split in three colors, the last rank left out; keys reverse the order */
    MPI_Comm third;
    int color = rank == size - 1 && size > 1 ? MPI_UNDEFINED : rank % 3;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &third));
    if (color == MPI_UNDEFINED) {
        CHECK(third == MPI_COMM_NULL, "left-out rank got a communicator");
    } else {
        int want_n = 0, want_r = 0;
        for (int q = 0; q < size; q++) {
            int qc = q == size - 1 && size > 1 ? MPI_UNDEFINED : q % 3;
            if (qc != color) continue;
            want_n++;
            if (q > rank) want_r++;
        }
        MPI_Comm_size(third, &n);
        MPI_Comm_rank(third, &r);
        CHECK_INT(n, want_n);
        CHECK_INT(r, want_r);
        ring(third, 1);
        isolation_dup(third);
        {
            /* a split of third that keeps it whole: a second context, same group */
            MPI_Comm again;
            CHECK_MPI(MPI_Comm_split(third, 0, r, &again));
            isolation(third, again);
            MPI_Comm_free(&again);
        }
        /* a split of a split */
        MPI_Comm sub;
        CHECK_MPI(MPI_Comm_split(third, r % 2, r, &sub));
        ring(sub, 2);
        isolation_dup(sub);
        CHECK_MPI(MPI_Comm_free(&sub));
        CHECK_MPI(MPI_Comm_free(&third));
    }

    /* Comm_create: the even ranks, in reverse order */
    MPI_Group wg, eg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int ne = (size + 1) / 2, *ev = mt_malloc(sizeof(int) * ne);
    for (int i = 0; i < ne; i++) ev[i] = 2 * (ne - 1 - i);
    CHECK_MPI(MPI_Group_incl(wg, ne, ev, &eg));
    MPI_Comm even;
    CHECK_MPI(MPI_Comm_create(MPI_COMM_WORLD, eg, &even));
    if (rank % 2) {
        CHECK(even == MPI_COMM_NULL, "odd rank got a communicator from Comm_create");
    } else {
        MPI_Comm_size(even, &n);
        MPI_Comm_rank(even, &r);
        CHECK_INT(n, ne);
        CHECK_INT(r, ne - 1 - rank / 2);
        ring(even, 3);
        isolation_dup(even);
        int sum = 0;
        CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, even));
        int want = 0;
        for (int q = 0; q < size; q += 2) want += q;
        CHECK_INT(sum, want);
    }

    /* Comm_create_group: evens and odds at the same time, only members call */
    MPI_Group og;
    int no = size / 2, *od = mt_malloc(sizeof(int) * (no ? no : 1));
    for (int i = 0; i < no; i++) od[i] = 2 * i + 1;
    CHECK_MPI(MPI_Group_incl(wg, no, od, &og));
    MPI_Comm mine;
    if (rank % 2 == 0) CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, eg, 11, &mine));
    else CHECK_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, og, 12, &mine));
    MPI_Comm_size(mine, &n);
    MPI_Comm_rank(mine, &r);
    CHECK_INT(n, rank % 2 ? no : ne);
    CHECK_INT(r, rank % 2 ? rank / 2 : ne - 1 - rank / 2);
    ring(mine, 4);
    isolation_dup(mine);
    if (rank % 2 == 0) {
        isolation(even, mine);
        isolation(mine, even);
        /* again from the new communicator, over its first half only */
        MPI_Group mg, hg;
        MPI_Comm half;
        int range[1][3] = { { 0, (n - 1) / 2, 1 } };
        MPI_Comm_group(mine, &mg);
        CHECK_MPI(MPI_Group_range_incl(mg, 1, range, &hg));
        if (r <= (n - 1) / 2) {
            CHECK_MPI(MPI_Comm_create_group(mine, hg, 0, &half));
            int hn;
            MPI_Comm_size(half, &hn);
            CHECK_INT(hn, (n - 1) / 2 + 1);
            ring(half, 5);
            isolation_dup(half);
            MPI_Comm_free(&half);
        }
        MPI_Group_free(&mg);
        MPI_Group_free(&hg);
        MPI_Comm_free(&even);
    }
    /* the new communicators and world all still work together */
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    ring(MPI_COMM_WORLD, 6);
    MPI_Comm_free(&mine);
    MPI_Group_free(&eg);
    MPI_Group_free(&og);
    MPI_Group_free(&wg);
    free(ev);
    free(od);
    int rc = mt_finish("comm_split");
    MPI_Finalize();
    return rc;
}
