/* SPDX-License-Identifier: MIT */
/* Datatype attributes: set/get/delete on a predefined and on a derived type,
 * delete callbacks at overwrite, delete and MPI_Type_free (counted, with the
 * type's handle and the value), a type keyval freed while in use. */
#include "mpitest.h"

static int ndelete;
static MPI_Datatype last_type;
static void *last_val;
static int extra_obj;

static int delete_cb(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)key;
    CHECK(extra == &extra_obj, "extra_state %p", extra);
    ndelete++;
    last_type = t;
    last_val = val;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int key, flag;
    void *v;
    MPI_Init(&argc, &argv);
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_cb, &key, &extra_obj));

    /* on a predefined type */
    CHECK_MPI(MPI_Type_get_attr(MPI_DOUBLE, key, &v, &flag));
    CHECK_INT(flag, 0);
    CHECK_MPI(MPI_Type_set_attr(MPI_DOUBLE, key, (void *)(intptr_t)17));
    CHECK_MPI(MPI_Type_get_attr(MPI_DOUBLE, key, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)17, "MPI_DOUBLE: flag %d %p", flag, v);
    CHECK_MPI(MPI_Type_get_attr(MPI_INT, key, &v, &flag));
    CHECK_INT(flag, 0);
    CHECK_MPI(MPI_Type_delete_attr(MPI_DOUBLE, key));
    CHECK_INT(ndelete, 1);
    CHECK(last_type == MPI_DOUBLE && last_val == (void *)(intptr_t)17, "delete got 0x%x %p",
          last_type, last_val);

    /* on a derived type, freed with the attribute still on it */
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    CHECK_MPI(MPI_Type_set_attr(t, key, (void *)(intptr_t)1));
    CHECK_MPI(MPI_Type_set_attr(t, key, (void *)(intptr_t)2));   /* overwrite */
    CHECK_INT(ndelete, 2);
    CHECK(last_val == (void *)(intptr_t)1, "overwrite deleted %p", last_val);
    CHECK_MPI(MPI_Type_get_attr(t, key, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)2, "derived: flag %d %p", flag, v);
    MPI_Datatype handle = t;
    CHECK_MPI(MPI_Type_free_keyval(&key));          /* still referenced by t's attribute */
    CHECK_INT(key, MPI_KEYVAL_INVALID);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_INT(ndelete, 3);
    CHECK(last_type == handle && last_val == (void *)(intptr_t)2, "free deleted 0x%x %p",
          last_type, last_val);

    int rc = mt_finish("attr_type");
    MPI_Finalize();
    return rc;
}
