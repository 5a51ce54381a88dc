/* SPDX-License-Identifier: MIT */
/* MPI_Get_hw_resource_info (MPI 4.1 section 11.4): a new info object, which
 * the caller frees, naming the hardware resources that contain the calling
 * process.  Courier's keys: mpi_hw_resource_type, a comma-separated list
 * that starts with mpi_shared_memory, and mpi_hw_res_<kind>_count for each
 * further kind; every kind listed is one MPI_COMM_TYPE_HW_GUIDED accepts, so
 * splitting MPI_COMM_WORLD by it gives a communicator that holds this
 * process. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

#ifndef MT_REFERENCE_MPICH  /* MPICH 4.0.2 does not have it (MPI 4.1); the keys are Courier's */
    MPI_Info hw = MPI_INFO_NULL;
    CHECK_MPI(MPI_Get_hw_resource_info(&hw));
    CHECK(hw != MPI_INFO_NULL, "no info object");
    int nkeys = -1;
    CHECK_MPI(MPI_Info_get_nkeys(hw, &nkeys));
    CHECK(nkeys >= 1, "nkeys %d", nkeys);
    char list[MPI_MAX_INFO_VAL + 1] = "";
    int len = (int)sizeof list - 1, flag = 0;
    CHECK_MPI(MPI_Info_get_string(hw, "mpi_hw_resource_type", &len, list, &flag));
    CHECK_INT(flag, 1);
    CHECK(strncmp(list, "mpi_shared_memory", 17) == 0, "list '%s'", list);
    /* each kind splits the world into communicators that contain this rank */
    char *save = NULL;
    for (char *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        MPI_Info in;
        MPI_Comm c = MPI_COMM_NULL;
        CHECK_MPI(MPI_Info_create(&in));
        CHECK_MPI(MPI_Info_set(in, "mpi_hw_resource_type", k));
        CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, rank, in, &c));
        CHECK(c != MPI_COMM_NULL, "kind %s gave MPI_COMM_NULL", k);
        if (c != MPI_COMM_NULL) {
            int cs = 0;
            CHECK_MPI(MPI_Comm_size(c, &cs));
            CHECK(cs >= 1 && cs <= size, "kind %s: size %d", k, cs);
            CHECK_MPI(MPI_Comm_free(&c));
        }
        if (strcmp(k, "mpi_shared_memory") != 0) {
            char key[64], val[MPI_MAX_INFO_VAL + 1];
            int vlen = (int)sizeof val - 1, f = 0;
            snprintf(key, sizeof key, "mpi_hw_res_%s_count", k);
            CHECK_MPI(MPI_Info_get_string(hw, key, &vlen, val, &f));
            CHECK_INT(f, 1);
            CHECK(f && atoi(val) >= 1, "%s = %s", key, val);
        }
        CHECK_MPI(MPI_Info_free(&in));
    }
    CHECK_MPI(MPI_Info_free(&hw));
    CHECK_INT(hw, MPI_INFO_NULL);
#endif

    int rc = mt_finish("info_hw");
    MPI_Finalize();
    return rc;
}
