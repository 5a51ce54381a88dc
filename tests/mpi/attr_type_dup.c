/* SPDX-License-Identifier: MIT */
/* Datatype attributes across MPI_Type_dup: MPI_TYPE_DUP_FN copies the value,
 * MPI_TYPE_NULL_COPY_FN does not, a user copy callback gets (old type, keyval,
 * extra_state, old value), and freeing both types runs the delete callbacks. */
#include "mpitest.h"

static int ncopy, ndelete;
static MPI_Datatype copy_from;

static int copy_cb(MPI_Datatype old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)key;
    CHECK(extra == (void *)&ncopy, "extra_state %p", extra);
    ncopy++;
    copy_from = old;
    *(void **)out = (void *)((intptr_t)in * 2);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t, (void)key, (void)val, (void)extra;
    ndelete++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int kdup, knull, kuser, flag;
    void *v;
    MPI_Init(&argc, &argv);
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, delete_cb, &kdup, NULL));
    CHECK_MPI(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_cb, &knull, NULL));
    CHECK_MPI(MPI_Type_create_keyval(copy_cb, delete_cb, &kuser, &ncopy));
    MPI_Datatype t, u;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_set_attr(t, kdup, (void *)(intptr_t)3));
    CHECK_MPI(MPI_Type_set_attr(t, knull, (void *)(intptr_t)4));
    CHECK_MPI(MPI_Type_set_attr(t, kuser, (void *)(intptr_t)5));
    CHECK_MPI(MPI_Type_dup(t, &u));
    CHECK_MPI(MPI_Type_get_attr(u, kdup, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)3, "MPI_TYPE_DUP_FN: flag %d %p", flag, v);
    CHECK_MPI(MPI_Type_get_attr(u, knull, &v, &flag));
    CHECK_INT(flag, 0);
    CHECK_MPI(MPI_Type_get_attr(u, kuser, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)10, "user copy: flag %d %p", flag, v);
    CHECK_INT(ncopy, 1);
    CHECK(copy_from == t, "copy callback got 0x%x, expected 0x%x", copy_from, t);
    CHECK_MPI(MPI_Type_free(&u));
    CHECK_INT(ndelete, 2);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_INT(ndelete, 5);
    CHECK_MPI(MPI_Type_free_keyval(&kdup));
    CHECK_MPI(MPI_Type_free_keyval(&knull));
    CHECK_MPI(MPI_Type_free_keyval(&kuser));
    int rc = mt_finish("attr_type_dup");
    MPI_Finalize();
    return rc;
}
