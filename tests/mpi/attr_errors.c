/* SPDX-License-Identifier: MIT */
/* Attribute error cases, with MPI_ERRORS_RETURN: a freed keyval and
 * MPI_KEYVAL_INVALID are refused (MPI_ERR_KEYVAL), a keyval of another object
 * kind is refused, a copy callback's error fails MPI_Comm_dup with that error,
 * and a delete callback's error fails MPI_Comm_delete_attr, the overwriting
 * MPI_Comm_set_attr and MPI_Comm_free (the attribute stays until its callback
 * succeeds). */
#include "mpitest.h"

static int fail_copy, fail_delete, ndelete;

static int copy_cb(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    if (fail_copy) return fail_copy;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    if (fail_delete) return fail_delete;
    ndelete++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int key, flag, rc;
    void *v;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* a freed keyval (with no attribute left) cannot be used */
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    int stale = key;
    CHECK_MPI(MPI_Comm_free_keyval(&key));
    CHECK_INT(key, MPI_KEYVAL_INVALID);
#ifndef MT_REFERENCE_MPICH
    /* MPICH 4.0 does not notice a freed keyval: the calls succeed and its
     * reference count goes wrong (an assertion fails in MPI_Finalize) */
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, stale, &v, &flag);
    CHECK_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, stale, NULL);
    CHECK_CLASS(rc, MPI_ERR_KEYVAL);
#else
    (void)stale;
#endif
    rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag);
    CHECK_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, NULL);
    CHECK_CLASS(rc, MPI_ERR_KEYVAL);
    key = MPI_KEYVAL_INVALID;
    rc = MPI_Comm_free_keyval(&key);
    CHECK_CLASS(rc, MPI_ERR_KEYVAL);

    /* a datatype keyval is not a communicator keyval, and the reverse */
    int tkey;
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &tkey, NULL));
    rc = MPI_Comm_set_attr(MPI_COMM_WORLD, tkey, NULL);
    CHECK_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    rc = MPI_Type_set_attr(MPI_INT, key, NULL);
    CHECK_CLASS(rc, MPI_ERR_KEYVAL);
    rc = MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &v, &flag);
    CHECK_CLASS(rc, MPI_ERR_KEYVAL);
    CHECK_MPI(MPI_Type_free_keyval(&tkey));
    CHECK_MPI(MPI_Comm_free_keyval(&key));

    /* copy callback error: MPI_Comm_dup fails with the callback's code */
    CHECK_MPI(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, NULL));
    MPI_Comm base, dup = MPI_COMM_NULL;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Comm_set_attr(base, key, (void *)(intptr_t)5));
    fail_copy = MPI_ERR_SPAWN;      /* an unusual class, so it cannot come from elsewhere */
    rc = MPI_Comm_dup(base, &dup);
    CHECK_CLASS(rc, MPI_ERR_SPAWN);
    fail_copy = 0;
    /* the communicator works afterwards, and dup succeeds now */
    CHECK_MPI(MPI_Comm_dup(base, &dup));
    CHECK_MPI(MPI_Comm_get_attr(dup, key, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)5, "copied value %p", v);
    CHECK_MPI(MPI_Barrier(dup));

    /* delete callback error: delete, overwrite and free fail, attribute stays */
    int before = ndelete;
    fail_delete = MPI_ERR_SPAWN;
    rc = MPI_Comm_delete_attr(dup, key);
    CHECK_CLASS(rc, MPI_ERR_SPAWN);
    CHECK_MPI(MPI_Comm_get_attr(dup, key, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)5, "attribute after failed delete: flag %d %p", flag, v);
    rc = MPI_Comm_set_attr(dup, key, (void *)(intptr_t)6);
    CHECK_CLASS(rc, MPI_ERR_SPAWN);
    CHECK_MPI(MPI_Comm_get_attr(dup, key, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)5, "attribute after failed overwrite: flag %d %p", flag, v);
    fail_delete = 0;
    CHECK_MPI(MPI_Comm_delete_attr(dup, key));
    CHECK_INT(ndelete, before + 1);
    CHECK_MPI(MPI_Comm_get_attr(dup, key, &v, &flag));
    CHECK_INT(flag, 0);
    /* deleting an attribute that is not there is no error (nor a callback) */
    CHECK_MPI(MPI_Comm_delete_attr(dup, key));
    CHECK_INT(ndelete, before + 1);
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Comm_free(&base));
    CHECK_INT(ndelete, before + 2);
    CHECK_MPI(MPI_Comm_free_keyval(&key));

    rc = mt_finish("attr_errors");
    MPI_Finalize();
    return rc;
}
