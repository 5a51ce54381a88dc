/* SPDX-License-Identifier: MIT */
/* Intercommunicators: Intercomm_create between the even and the odd ranks of
 * MPI_COMM_WORLD, point-to-point across (status.MPI_SOURCE is the sender's
 * rank in the remote group), Comm_test_inter / remote_size / remote_group,
 * Comm_dup (a separate context), Comm_compare, Comm_split and Comm_create on
 * the intercommunicator, and Intercomm_merge with both orders of `high`. */
#include "mpitest.h"

/* Every process sends one message to every remote rank; each message carries
 * (sender's local rank, receiver's remote rank, seed). */
static void traffic(MPI_Comm inter, int seed)
{
    int lr, ln, rsize = 0;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_size(inter, &ln);
    MPI_Comm_remote_size(inter, &rsize);
    const int rn = rsize > 0 ? rsize : 1;   /* an intercommunicator has a remote group */
    int *out = mt_malloc(sizeof(int) * 3 * (size_t)rn);
    MPI_Request *q = mt_malloc(sizeof(MPI_Request) * (size_t)rn);
    for (int d = 0; d < rn; d++) {
        out[3 * d] = lr;
        out[3 * d + 1] = d;
        out[3 * d + 2] = seed;
        CHECK_MPI(MPI_Isend(&out[3 * d], 3, MPI_INT, d, 100, inter, &q[d]));
    }
    int *seen = calloc((size_t)rn, sizeof(int));
    for (int i = 0; i < rn; i++) {
        int in[3] = { -1, -1, -1 };
        MPI_Status st;
        CHECK_MPI(MPI_Recv(in, 3, MPI_INT, MPI_ANY_SOURCE, 100, inter, &st));
        CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rn, "source %d of %d", st.MPI_SOURCE, rn);
        CHECK_INT(st.MPI_SOURCE, in[0]);
        CHECK_INT(st.MPI_TAG, 100);
        CHECK_INT(in[1], lr);
        CHECK_INT(in[2], seed);
        if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rn) seen[st.MPI_SOURCE]++;
    }
    for (int s = 0; s < rn; s++) CHECK_INT(seen[s], 1);
    /* a directed receive from a named remote rank */
    if (lr == 0) {
        int v = 7000 + seed;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rn - 1, 1, inter));
    }
    if (lr == ln - 1) {
        int v = -1;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 1, inter, &st));
        CHECK_INT(v, 7000 + seed);
        CHECK_INT(st.MPI_SOURCE, 0);
    }
    CHECK_MPI(MPI_Waitall(rn, q, MPI_STATUSES_IGNORE));
    free(out);
    free(q);
    free(seen);
}

static void check_merge(MPI_Comm inter, int high, int color, int nlocal, int nremote, int rank)
{
    MPI_Comm merged;
    int lr, r, n, flag;
    MPI_Comm_rank(inter, &lr);
    CHECK_MPI(MPI_Intercomm_merge(inter, high, &merged));
    MPI_Comm_size(merged, &n);
    MPI_Comm_rank(merged, &r);
    MPI_Comm_test_inter(merged, &flag);
    CHECK_INT(flag, 0);
    CHECK_INT(n, nlocal + nremote);
    /* the group that said high=1 comes last */
    CHECK_INT(r, high ? nremote + lr : lr);
    /* every merged rank belongs to exactly one process: gather world ranks */
    int *all = mt_malloc(sizeof(int) * n);
    CHECK_MPI(MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, merged));
    for (int i = 0; i < n; i++) {
        /* merged rank i: low group first, each group in its local order */
        int lowcolor = high ? 1 - color : color;
        int nlow = high ? nremote : nlocal;
        int want = i < nlow ? 2 * i + lowcolor : 2 * (i - nlow) + 1 - lowcolor;
        CHECK_INT(all[i], want);
    }
    free(all);
    (void)color;
    MPI_Comm_free(&merged);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        int rc = mt_finish("comm_intercomm");
        MPI_Finalize();
        return rc;
    }
    int color = rank % 2, nlocal = color ? size / 2 : (size + 1) / 2, nremote = size - nlocal;
    MPI_Comm local, inter;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local));
    /* leaders: local rank 0 = world 0 (evens) and world 1 (odds) */
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 77, &inter));

    int flag = 0, n, r;
    MPI_Comm_test_inter(inter, &flag);
    CHECK_INT(flag, 1);
    MPI_Comm_test_inter(local, &flag);
    CHECK_INT(flag, 0);
    MPI_Comm_size(inter, &n);
    MPI_Comm_rank(inter, &r);
    CHECK_INT(n, nlocal);
    CHECK_INT(r, rank / 2);
    CHECK_MPI(MPI_Comm_remote_size(inter, &n));
    CHECK_INT(n, nremote);

    /* the remote group, in world ranks */
    MPI_Group rg, wg;
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int gs;
    MPI_Group_size(rg, &gs);
    CHECK_INT(gs, nremote);
    for (int i = 0; i < nremote; i++) {
        int w;
        MPI_Group_translate_ranks(rg, 1, &i, wg, &w);
        CHECK_INT(w, 2 * i + 1 - color);
    }
    MPI_Group_free(&rg);
    MPI_Group_free(&wg);

    traffic(inter, 1);

    /* dup: same groups, separate context */
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(inter, &dup));
    MPI_Comm_test_inter(dup, &flag);
    CHECK_INT(flag, 1);
    int res;
    MPI_Comm_compare(inter, dup, &res);
    CHECK_INT(res, MPI_CONGRUENT);
    MPI_Comm_compare(inter, local, &res);
    CHECK_INT(res, MPI_UNEQUAL);
    {
        /* same tag and source on both: each arrives on its own communicator */
        int a = 1, b = 2, x = 0, y = 0;
        MPI_Request q[2];
        CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, 0, 3, inter, &q[0]));
        CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, 0, 3, dup, &q[1]));
        if (r == 0) {
            for (int i = 0; i < nremote; i++) {
                CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, i, 3, dup, MPI_STATUS_IGNORE));
                CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, i, 3, inter, MPI_STATUS_IGNORE));
                CHECK_INT(x, 1);
                CHECK_INT(y, 2);
            }
        }
        CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    }
    traffic(dup, 2);

    /* split the intercommunicator: local rank parity on both sides */
    MPI_Comm sp;
    CHECK_MPI(MPI_Comm_split(inter, r % 2, -r, &sp));
    int rem_same = 0, loc_same = 0;
    for (int i = 0; i < nremote; i++) rem_same += i % 2 == r % 2;
    for (int i = 0; i < nlocal; i++) loc_same += i % 2 == r % 2;
    if (rem_same == 0) {
        CHECK(sp == MPI_COMM_NULL, "split with no remote partner gave a communicator");
    } else {
        MPI_Comm_test_inter(sp, &flag);
        CHECK_INT(flag, 1);
        MPI_Comm_size(sp, &n);
        CHECK_INT(n, loc_same);
        MPI_Comm_remote_size(sp, &n);
        CHECK_INT(n, rem_same);
        int sr;
        MPI_Comm_rank(sp, &sr);
        int want = 0;   /* keys -r: higher local ranks first */
        for (int i = r + 1; i < nlocal; i++) want += i % 2 == r % 2;
        CHECK_INT(sr, want);
        traffic(sp, 3);
        MPI_Comm_free(&sp);
    }

    /* Comm_create on the intercommunicator: each side keeps its first half
     * (rounded up), in reverse order */
    {
        MPI_Group lg, half;
        MPI_Comm_group(inter, &lg);
        int keep = (nlocal + 1) / 2, rkeep = (nremote + 1) / 2, range[1][3] = { { keep - 1, 0, -1 } };
        CHECK_MPI(MPI_Group_range_incl(lg, 1, range, &half));
        MPI_Comm ci;
        CHECK_MPI(MPI_Comm_create(inter, half, &ci));
        if (r >= keep) {
            CHECK(ci == MPI_COMM_NULL, "local rank %d outside the group got a communicator", r);
        } else {
            MPI_Comm_test_inter(ci, &flag);
            CHECK_INT(flag, 1);
            MPI_Comm_size(ci, &n);
            CHECK_INT(n, keep);
            MPI_Comm_remote_size(ci, &n);
            CHECK_INT(n, rkeep);
            int cr;
            MPI_Comm_rank(ci, &cr);
            CHECK_INT(cr, keep - 1 - r);
            traffic(ci, 5);
            MPI_Comm_free(&ci);
        }
        MPI_Group_free(&half);
        MPI_Group_free(&lg);
    }

    /* merge: the evens low, then the odds low */
    check_merge(inter, color, color, nlocal, nremote, rank);
    check_merge(dup, 1 - color, color, nlocal, nremote, rank);
    /* both high: some order, but one merged communicator that works */
    {
        MPI_Comm m;
        CHECK_MPI(MPI_Intercomm_merge(inter, 1, &m));
        MPI_Comm_size(m, &n);
        CHECK_INT(n, size);
        int sum = 0;
        CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, m));
        CHECK_INT(sum, size * (size - 1) / 2);
        MPI_Comm_free(&m);
    }
    /* an intercommunicator made from merged pieces: Intercomm_create with
     * a non-zero local leader and a peer that is not MPI_COMM_WORLD */
    {
        MPI_Comm peer, inter2;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &peer));
        int ll = nlocal - 1, rl = color ? 2 * (nremote - 1) : 2 * (nremote - 1) + 1;
        CHECK_MPI(MPI_Intercomm_create(local, ll, peer, rl, 5, &inter2));
        traffic(inter2, 4);
        MPI_Comm_free(&inter2);
        MPI_Comm_free(&peer);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    int rc = mt_finish("comm_intercomm");
    MPI_Finalize();
    return rc;
}
