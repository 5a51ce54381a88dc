/* SPDX-License-Identifier: MIT */
/* Communicators from groups in the world model: MPI_Comm_create_from_group
 * over MPI_COMM_WORLD's group and over subgroups (concurrent calls with
 * different groups and tags), MPI_Intercomm_create_from_groups, the error
 * handler and hints the new communicators get, MPI_GROUP_EMPTY giving
 * MPI_COMM_NULL; and MPI_Comm_create_group, which MPI 4.1 defines on
 * intracommunicators only (MPI_ERR_COMM on an intercommunicator). */
#include "mpitest.h"

static int eh_calls;
static void eh(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
    eh_calls++;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    /* the whole world, with a user error handler and a hint */
    MPI_Errhandler e;
    MPI_Comm_create_errhandler(eh, &e);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "courier_hint", "42");
    MPI_Info_set(info, "mpi_assert_allow_overtaking", "false");
    MPI_Comm all;
    CHECK_MPI(MPI_Comm_create_from_group(world, "test.all", info, e, &all));
    MPI_Info_free(&info);
    int r = -1, n = -1, sum = -1;
    MPI_Comm_rank(all, &r);
    MPI_Comm_size(all, &n);
    CHECK(r == rank && n == size, "rank %d size %d", r, n);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, all);
    CHECK_INT(sum, size * (size - 1) / 2);
    int rc = MPI_Send(&r, 1, MPI_INT, size + 3, 0, all);
    CHECK_CLASS(rc, MPI_ERR_RANK);
    CHECK_INT(eh_calls, 1);
    /* an unknown hint is ignored (as MPICH does), a known one kept */
    MPI_Info used;
    char v[8] = "";
    int flag = 0;
    MPI_Comm_get_info(all, &used);
    MPI_Info_get(used, "courier_hint", 7, v, &flag);
    CHECK(!flag, "unknown hint kept: \"%s\"", v);
#ifndef MT_REFERENCE_MPICH   /* which standard hints MPICH 4.0 returns is its own choice */
    MPI_Info_get(used, "mpi_assert_allow_overtaking", 7, v, &flag);
    CHECK(flag && strcmp(v, "false") == 0, "hint: flag %d \"%s\"", flag, v);
#endif
    MPI_Info_free(&used);
    MPI_Errhandler_free(&e);

    /* halves, reversed, and the same tag with different groups */
    MPI_Group lo, hi, rev;
    int range_lo[1][3] = { { 0, (size - 1) / 2, 1 } };
    int range_rev[1][3] = { { size - 1, 0, -1 } };
    MPI_Group_range_incl(world, 1, range_lo, &lo);
    MPI_Group_difference(world, lo, &hi);
    MPI_Group_range_incl(world, 1, range_rev, &rev);
    MPI_Group mine = rank <= (size - 1) / 2 ? lo : hi;
    MPI_Comm half, back;
    CHECK_MPI(MPI_Comm_create_from_group(mine, "test.half", MPI_INFO_NULL, MPI_ERRORS_RETURN, &half));
    CHECK_MPI(MPI_Comm_create_from_group(rev, "test.half", MPI_INFO_NULL, MPI_ERRORS_RETURN, &back));
    int hs, hr, br;
    MPI_Comm_size(half, &hs);
    MPI_Comm_rank(half, &hr);
    MPI_Comm_rank(back, &br);
    CHECK_INT(hs, rank <= (size - 1) / 2 ? (size + 1) / 2 : size / 2);
    CHECK_INT(hr, rank <= (size - 1) / 2 ? rank : rank - (size + 1) / 2);
    CHECK_INT(br, size - 1 - rank);
    int hsum = -1, bsum = -1;
    MPI_Allreduce(&rank, &hsum, 1, MPI_INT, MPI_SUM, half);
    MPI_Allreduce(&br, &bsum, 1, MPI_INT, MPI_SUM, back);
    int lo_n = (size + 1) / 2;
    CHECK_INT(hsum, rank < lo_n ? lo_n * (lo_n - 1) / 2 : (size * (size - 1) - lo_n * (lo_n - 1)) / 2);
    CHECK_INT(bsum, size * (size - 1) / 2);

    /* an intercommunicator between the halves */
    if (size > 1) {
        MPI_Comm ic;
        CHECK_MPI(MPI_Intercomm_create_from_groups(mine, 0, mine == lo ? hi : lo, 0, "test.ic",
                                                   MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic));
        int rsize = -1, inter = 0;
        MPI_Comm_remote_size(ic, &rsize);
        MPI_Comm_test_inter(ic, &inter);
        CHECK(inter && rsize == size - hs, "intercomm: inter %d remote size %d", inter, rsize);
        /* every process of the low half sends its world rank to remote rank 0 */
        if (mine == lo) {
            MPI_Send(&rank, 1, MPI_INT, 0, 8, ic);
        } else if (hr == 0) {
            for (int i = 0; i < rsize; i++) {
                int got = -1;
                MPI_Status st;
                MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 8, ic, &st);
                CHECK(got == st.MPI_SOURCE, "from remote rank %d: %d", st.MPI_SOURCE, got);
            }
        }
        /* MPI_Comm_create_group is for intracommunicators */
        MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
        MPI_Comm bad;
        MPI_Group icg;
        MPI_Comm_group(ic, &icg);
        rc = MPI_Comm_create_group(ic, icg, 5, &bad);
        CHECK_CLASS(rc, MPI_ERR_COMM);
        MPI_Group_free(&icg);
        MPI_Comm_free(&ic);
    }

    /* the empty group: MPI_COMM_NULL, nothing to agree on */
    MPI_Comm none = MPI_COMM_WORLD;
    CHECK_MPI(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "test.none", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &none));
    CHECK(none == MPI_COMM_NULL, "MPI_GROUP_EMPTY gave a communicator");
    /* a group the caller is not in */
    if (size > 1) {
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 does not check that the caller is in the group */
        MPI_Group other = mine == lo ? hi : lo;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm x;
        rc = MPI_Comm_create_from_group(other, "test.notmine", MPI_INFO_NULL, MPI_ERRORS_RETURN, &x);
        CHECK_CLASS(rc, MPI_ERR_GROUP);
#endif
    }

    MPI_Comm_free(&back);
    MPI_Comm_free(&half);
    MPI_Comm_free(&all);
    MPI_Group_free(&lo);
    MPI_Group_free(&hi);
    MPI_Group_free(&rev);
    MPI_Group_free(&world);
    rc = mt_finish("comm_from_group");
    MPI_Finalize();
    return rc;
}
