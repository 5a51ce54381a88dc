/* SPDX-License-Identifier: MIT */
/* The MPI-1 attribute calls that the MPICH ABI still exports and binaries
 * built with MPICH call: MPI_Keyval_create / MPI_Keyval_free with
 * MPI_Copy_function / MPI_Delete_function callbacks, MPI_Attr_put,
 * MPI_Attr_get (user and predefined keys), MPI_Attr_delete; mixed with the
 * MPI-2 names on the same keyval; the callbacks run on MPI_Comm_dup,
 * MPI_Attr_put over a value, MPI_Attr_delete and MPI_Comm_free, and a keyval
 * freed while in use keeps working for the attributes that use it. */
#include "mpitest.h"

static int copies, deletes;
static int copy_fn(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)key;
    copies++;
    CHECK((intptr_t)extra == 7, "extra_state %ld", (long)(intptr_t)extra);
    *(void **)out = (char *)in + 10;
    *flag = 1;
    return MPI_SUCCESS;
}
static int delete_fn(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int key, flag = 0;
    void *val;
    CHECK_MPI(MPI_Keyval_create(copy_fn, delete_fn, &key, (void *)(intptr_t)7));
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    CHECK_MPI(MPI_Attr_put(c, key, (void *)(intptr_t)5));
    CHECK_MPI(MPI_Attr_get(c, key, &val, &flag));
    CHECK(flag && (intptr_t)val == 5, "Attr_get: flag %d value %ld", flag, (long)(intptr_t)val);
    /* the MPI-2 name sees the same attribute */
    CHECK_MPI(MPI_Comm_get_attr(c, key, &val, &flag));
    CHECK(flag && (intptr_t)val == 5, "Comm_get_attr: flag %d value %ld", flag, (long)(intptr_t)val);
    /* a new value deletes the old one */
    CHECK_MPI(MPI_Attr_put(c, key, (void *)(intptr_t)6));
    CHECK_INT(deletes, 1);
    /* dup copies through the MPI-1 copy function */
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    CHECK_INT(copies, 1);
    CHECK_MPI(MPI_Attr_get(d, key, &val, &flag));
    CHECK(flag && (intptr_t)val == 16, "copied value %ld", (long)(intptr_t)val);
    CHECK_MPI(MPI_Attr_delete(d, key));
    CHECK_INT(deletes, 2);
    CHECK_MPI(MPI_Attr_get(d, key, &val, &flag));
    CHECK(!flag, "deleted attribute still there");
    /* predefined keys through the old name */
    int *ub;
    CHECK_MPI(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
    CHECK(flag && *ub >= 32767, "MPI_TAG_UB %d", flag ? *ub : -1);
    /* the keyval freed while c uses it: the attribute lives on */
    CHECK_MPI(MPI_Keyval_free(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "Keyval_free did not reset the key");
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_INT(deletes, 3);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_INT(deletes, 3);
    /* errors: a freed keyval */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_CLASS(MPI_Attr_put(MPI_COMM_WORLD, key, NULL), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Keyval_free(&key), MPI_ERR_KEYVAL);
    int rc = mt_finish("attr_legacy");
    MPI_Finalize();
    return rc;
}
