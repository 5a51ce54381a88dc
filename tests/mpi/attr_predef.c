/* SPDX-License-Identifier: MIT */
/* Predefined communicator attributes: values of MPI_TAG_UB, MPI_HOST, MPI_IO,
 * MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_LASTUSEDCODE (through
 * MPI_Comm_get_attr and MPI_Attr_get), that a tag of MPI_TAG_UB works, and that
 * the predefined keys cannot be set, deleted or freed (MPI_ERR_KEYVAL). */
#include "mpitest.h"

static int get_int(MPI_Comm comm, int key, int *flag)
{
    int *p = NULL;
    *flag = -1;
    CHECK_MPI(MPI_Comm_get_attr(comm, key, &p, flag));
    if (*flag != 1) return -12345;
    CHECK(p != NULL, "key 0x%x: NULL value pointer", key);
    return p ? *p : -12345;
}

int main(int argc, char **argv)
{
    int rank, size, flag, v;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    v = get_int(MPI_COMM_WORLD, MPI_TAG_UB, &flag);
    CHECK_INT(flag, 1);
    CHECK(v >= 32767, "MPI_TAG_UB = %d", v);
    int tag_ub = v;
    v = get_int(MPI_COMM_WORLD, MPI_HOST, &flag);
    CHECK_INT(flag, 1);
    CHECK(v == MPI_PROC_NULL || (v >= 0 && v < size), "MPI_HOST = %d", v);
    v = get_int(MPI_COMM_WORLD, MPI_IO, &flag);
    CHECK_INT(flag, 1);
    CHECK(v == MPI_ANY_SOURCE || v == MPI_PROC_NULL || (v >= 0 && v < size), "MPI_IO = %d", v);
    v = get_int(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &flag);
    CHECK_INT(flag, 1);
    CHECK(v == 0 || v == 1, "MPI_WTIME_IS_GLOBAL = %d", v);
    v = get_int(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flag);
    CHECK(!flag || v >= size, "MPI_UNIVERSE_SIZE = %d with %d ranks", v, size);
#ifndef MT_REFERENCE_MPICH
    /* set only when the launcher states it (-usize, COURIER_UNIVERSE_SIZE,
     * the hosts' slots), absent otherwise as under Hydra (docs/dynamic.md) */
    const char *usize = getenv("COURIER_UNIVERSE_SIZE");
    CHECK_INT(flag, usize != NULL);
    if (usize && flag) CHECK_INT(v, atoi(usize));
#endif
    v = get_int(MPI_COMM_WORLD, MPI_APPNUM, &flag);
    CHECK(!flag || v == 0, "MPI_APPNUM = %d for a single-program job", v);
    v = get_int(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &flag);
    CHECK_INT(flag, 1);
    CHECK(v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE = %d < MPI_ERR_LASTCODE", v);

    /* the MPI-1 call sees them too */
    int *p = NULL;
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
    CHECK(flag == 1 && p && *p == tag_ub, "MPI_Attr_get(MPI_TAG_UB): flag %d value %d", flag,
          p ? *p : -1);

    /* the largest tag is usable */
    int out = rank, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, tag_ub, &in, 1, MPI_INT,
                           (rank + size - 1) % size, tag_ub, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_INT(in, (rank + size - 1) % size);

    /* predefined keys are read-only */
    int keys[] = { MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL };
    for (int i = 0; i < 4; i++) {
        int rc = MPI_Comm_set_attr(MPI_COMM_WORLD, keys[i], &v);
        CHECK_CLASS(rc, MPI_ERR_KEYVAL);
        rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, keys[i]);
        CHECK_CLASS(rc, MPI_ERR_KEYVAL);
        int k = keys[i];
        rc = MPI_Comm_free_keyval(&k);
        CHECK_CLASS(rc, MPI_ERR_KEYVAL);
    }
    /* and still intact afterwards */
    v = get_int(MPI_COMM_WORLD, MPI_TAG_UB, &flag);
    CHECK(flag == 1 && v == tag_ub, "MPI_TAG_UB after failed changes: %d", v);

    int rc = mt_finish("attr_predef");
    MPI_Finalize();
    return rc;
}
