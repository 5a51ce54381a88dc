/* SPDX-License-Identifier: MIT */
/* Communicator odds and ends: names (defaults, set/get, not inherited by
 * dup), Comm_idup (a request that completes, traffic on the result),
 * Comm_dup_with_info / Comm_set_info / Comm_get_info, Comm_split_type
 * (MPI_COMM_TYPE_SHARED; MPI_COMM_TYPE_HW_GUIDED with mpi_hw_resource_type;
 * MPI_COMM_TYPE_HW_UNGUIDED; MPI_UNDEFINED), Comm_test_inter, and the errors
 * of intercommunicator-only calls on an intracommunicator. */
#include "mpitest.h"

static void traffic(MPI_Comm c)
{
    int r, n, v, got = -1;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    v = 500 + r;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (r + 1) % n, 0, &got, 1, MPI_INT, (r - 1 + n) % n, 0, c,
                           MPI_STATUS_IGNORE));
    CHECK_INT(got, 500 + (r - 1 + n) % n);
}

int main(int argc, char **argv)
{
    int rank, size, len, n, flag;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* names */
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world is named '%s'", name);
    CHECK_INT(len, 14);
    CHECK_MPI(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self is named '%s'", name);
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
    CHECK_INT(len, 0);
    CHECK_MPI(MPI_Comm_set_name(dup, "my communicator"));
    CHECK_MPI(MPI_Comm_get_name(dup, name, &len));
    CHECK(strcmp(name, "my communicator") == 0, "got name '%s'", name);
    CHECK_INT(len, 15);
    {
        MPI_Comm d2;
        CHECK_MPI(MPI_Comm_dup(dup, &d2));
        CHECK_MPI(MPI_Comm_get_name(d2, name, &len));
        CHECK_INT(len, 0);   /* names are not copied by dup */
        MPI_Comm_free(&d2);
    }

    /* idup */
    MPI_Comm idup;
    MPI_Request req;
    CHECK_MPI(MPI_Comm_idup(dup, &idup, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "request not freed by MPI_Wait");
    MPI_Comm_size(idup, &n);
    CHECK_INT(n, size);
    traffic(idup);
    {
        /* two at once, completed by Waitall */
        MPI_Comm a, b;
        MPI_Request q[2];
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &a, &q[0]));
        CHECK_MPI(MPI_Comm_idup(idup, &b, &q[1]));
        CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        traffic(a);
        traffic(b);
        int res;
        MPI_Comm_compare(a, b, &res);
        CHECK_INT(res, MPI_CONGRUENT);
        MPI_Comm_free(&a);
        MPI_Comm_free(&b);
    }
    MPI_Comm_free(&idup);

    /* info */
    MPI_Info info, used;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "false");
    MPI_Info_set(info, "courier_test_key", "42");
    MPI_Comm wi;
    CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &wi));
    traffic(wi);
    CHECK_MPI(MPI_Comm_get_info(wi, &used));
    CHECK(used != MPI_INFO_NULL, "Comm_get_info gave MPI_INFO_NULL");
    /* the unknown key is ignored (as MPICH does: its comm/comm_info), the
     * known one kept with its value */
    {
        char v[MPI_MAX_INFO_VAL];
        MPI_Info_get(used, "courier_test_key", MPI_MAX_INFO_VAL - 1, v, &flag);
        CHECK_INT(flag, 0);
#ifndef MT_REFERENCE_MPICH   /* which standard hints MPICH 4.0 returns is its own choice */
        MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL - 1, v, &flag);
        CHECK_INT(flag, 1);
        if (flag) CHECK(strcmp(v, "false") == 0, "value '%s'", v);
#endif
    }
    MPI_Info_free(&used);
    MPI_Info_set(info, "courier_test_key", "43");
    MPI_Info_set(info, "mpi_assert_allow_overtaking", "false");
    CHECK_MPI(MPI_Comm_set_info(wi, info));
    CHECK_MPI(MPI_Comm_get_info(wi, &used));
    {
        char v[MPI_MAX_INFO_VAL];
        MPI_Info_get(used, "courier_test_key", MPI_MAX_INFO_VAL - 1, v, &flag);
        CHECK_INT(flag, 0);
#ifndef MT_REFERENCE_MPICH
        MPI_Info_get(used, "mpi_assert_allow_overtaking", MPI_MAX_INFO_VAL - 1, v, &flag);
        CHECK_INT(flag, 1);
        if (flag) CHECK(strcmp(v, "false") == 0, "value '%s'", v);
#endif
    }
    MPI_Info_free(&used);
    /* the communicator keeps its own copy: freeing ours changes nothing */
    MPI_Info_free(&info);
    CHECK_MPI(MPI_Comm_get_info(wi, &used));
    MPI_Info_free(&used);
    CHECK_MPI(MPI_Comm_get_info(MPI_COMM_WORLD, &used));
    CHECK(used != MPI_INFO_NULL, "Comm_get_info(world) gave MPI_INFO_NULL");
    MPI_Info_free(&used);
    MPI_Comm_free(&wi);

    /* split_type: one node, so SHARED holds everybody, ordered by key */
    MPI_Comm node;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank,
                                  MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &n);
    CHECK_INT(n, size);
    int nr;
    MPI_Comm_rank(node, &nr);
    CHECK_INT(nr, size - 1 - rank);
    traffic(node);
    MPI_Comm_free(&node);
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &node));
    CHECK(node == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
    {
        /* some ranks MPI_UNDEFINED, the others SHARED */
        int type = rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED;
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, type, rank, MPI_INFO_NULL, &node));
        if (rank % 2) {
            CHECK(node == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");
        } else {
            MPI_Comm_size(node, &n);
            CHECK_INT(n, (size + 1) / 2);
            traffic(node);
            MPI_Comm_free(&node);
        }
    }
    /* HW_GUIDED with the standard's shared-memory resource: the node */
    MPI_Info hw;
    MPI_Info_create(&hw);
    MPI_Info_set(hw, "mpi_hw_resource_type", "mpi_shared_memory");
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, hw, &node));
    CHECK(node != MPI_COMM_NULL, "HW_GUIDED mpi_shared_memory gave MPI_COMM_NULL");
    if (node != MPI_COMM_NULL) {
        MPI_Comm_size(node, &n);
        CHECK_INT(n, size);
        traffic(node);
        MPI_Comm_free(&node);
    }
    MPI_Info_free(&hw);
    /* HW_UNGUIDED: MPI_COMM_NULL or a strict subset of the communicator */
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, rank, MPI_INFO_NULL,
                                  &node));
    if (node != MPI_COMM_NULL) {
        MPI_Comm_size(node, &n);
        CHECK(n < size, "HW_UNGUIDED gave %d of %d processes", n, size);
        traffic(node);
        MPI_Comm_free(&node);
    }

    /* intercommunicator queries on an intracommunicator */
    CHECK_MPI(MPI_Comm_test_inter(dup, &flag));
    CHECK_INT(flag, 0);
#ifndef MT_REFERENCE_MPICH
    /* Courier reports MPI_ERR_COMM; MPICH 4.0 lets them through */
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_remote_size(dup, &n);
    CHECK_CLASS(rc, MPI_ERR_COMM);
    MPI_Group g;
    rc = MPI_Comm_remote_group(dup, &g);
    CHECK_CLASS(rc, MPI_ERR_COMM);
#endif
    MPI_Comm_free(&dup);

    int ret = mt_finish("comm_misc");
    MPI_Finalize();
    return ret;
}
