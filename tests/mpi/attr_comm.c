/* SPDX-License-Identifier: MIT */
/* Communicator attributes: set/get/delete round trips, copy callbacks at
 * MPI_Comm_dup and MPI_Comm_dup_with_info (arguments: old communicator,
 * keyval, extra_state, old value), MPI_COMM_NULL_COPY_FN vs MPI_COMM_DUP_FN,
 * a copy callback that declines (flag 0), delete callbacks at overwrite, at
 * MPI_Comm_delete_attr and at MPI_Comm_free (counted, with the right
 * arguments), a keyval freed while an attribute still uses it, and the MPI-1
 * forms (MPI_Keyval_create, MPI_Attr_put/get/delete, MPI_DUP_FN). */
#include "mpitest.h"

#define MAXLOG 64
typedef struct {
    int ncopy, ndelete;
    MPI_Comm copy_comm[MAXLOG], delete_comm[MAXLOG];
    void *copy_in[MAXLOG], *delete_val[MAXLOG];
    int copy_key[MAXLOG], delete_key[MAXLOG];
} cb_log_t;

static cb_log_t log_a, log_b;   /* the extra_state of two keyvals */

/* Copies value + 1000 and records its arguments in the log passed as extra_state. */
static int copy_plus(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    cb_log_t *l = extra;
    if (l->ncopy < MAXLOG) {
        l->copy_comm[l->ncopy] = oldcomm;
        l->copy_in[l->ncopy] = in;
        l->copy_key[l->ncopy] = keyval;
    }
    l->ncopy++;
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int copy_decline(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)in, (void)out;
    ((cb_log_t *)extra)->ncopy++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int delete_log(MPI_Comm comm, int keyval, void *val, void *extra)
{
    cb_log_t *l = extra;
    if (l->ndelete < MAXLOG) {
        l->delete_comm[l->ndelete] = comm;
        l->delete_val[l->ndelete] = val;
        l->delete_key[l->ndelete] = keyval;
    }
    l->ndelete++;
    return MPI_SUCCESS;
}

static void *get_attr(MPI_Comm comm, int key, int *flag)
{
    void *v = (void *)(intptr_t)-1;
    CHECK_MPI(MPI_Comm_get_attr(comm, key, &v, flag));
    return v;
}

static void test_round_trip(void)
{
    int key, flag = -1;
    memset(&log_a, 0, sizeof log_a);
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_log, &key, &log_a));
    CHECK(key != MPI_KEYVAL_INVALID, "keyval 0x%x", key);
    get_attr(MPI_COMM_WORLD, key, &flag);
    CHECK_INT(flag, 0);
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(intptr_t)42));
    void *v = get_attr(MPI_COMM_WORLD, key, &flag);
    CHECK(flag == 1 && v == (void *)(intptr_t)42, "flag %d value %p", flag, v);
    /* the same key on MPI_COMM_SELF is a separate attribute */
    get_attr(MPI_COMM_SELF, key, &flag);
    CHECK_INT(flag, 0);
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, key, (void *)(intptr_t)7));
    v = get_attr(MPI_COMM_SELF, key, &flag);
    CHECK(flag == 1 && v == (void *)(intptr_t)7, "self: flag %d value %p", flag, v);
    CHECK_INT(log_a.ndelete, 0);
    /* overwrite: the old value's delete callback runs first */
    CHECK_MPI(MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(intptr_t)43));
    CHECK_INT(log_a.ndelete, 1);
    CHECK(log_a.delete_val[0] == (void *)(intptr_t)42 && log_a.delete_comm[0] == MPI_COMM_WORLD &&
          log_a.delete_key[0] == key, "overwrite deleted %p on 0x%x", log_a.delete_val[0],
          log_a.delete_comm[0]);
    v = get_attr(MPI_COMM_WORLD, key, &flag);
    CHECK(flag == 1 && v == (void *)(intptr_t)43, "after overwrite: %p", v);
    /* delete */
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    CHECK_INT(log_a.ndelete, 2);
    CHECK(log_a.delete_val[1] == (void *)(intptr_t)43, "deleted %p", log_a.delete_val[1]);
    get_attr(MPI_COMM_WORLD, key, &flag);
    CHECK_INT(flag, 0);
    CHECK_MPI(MPI_Comm_delete_attr(MPI_COMM_SELF, key));
    CHECK_INT(log_a.ndelete, 3);
    CHECK_MPI(MPI_Comm_free_keyval(&key));
    CHECK_INT(key, MPI_KEYVAL_INVALID);
}

static void test_dup_and_free(int with_info)
{
    int kplus, knull, kdup, kdecline, flag;
    memset(&log_a, 0, sizeof log_a);
    memset(&log_b, 0, sizeof log_b);
    CHECK_MPI(MPI_Comm_create_keyval(copy_plus, delete_log, &kplus, &log_a));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_log, &knull, &log_b));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
    CHECK_MPI(MPI_Comm_create_keyval(copy_decline, MPI_COMM_NULL_DELETE_FN, &kdecline, &log_b));

    MPI_Comm base;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    CHECK_MPI(MPI_Comm_set_attr(base, kplus, (void *)(intptr_t)(5 + rank)));
    CHECK_MPI(MPI_Comm_set_attr(base, knull, (void *)(intptr_t)6));
    static int shared_obj = 99;
    CHECK_MPI(MPI_Comm_set_attr(base, kdup, &shared_obj));
    CHECK_MPI(MPI_Comm_set_attr(base, kdecline, (void *)(intptr_t)8));

    MPI_Comm copy;
    if (with_info) CHECK_MPI(MPI_Comm_dup_with_info(base, MPI_INFO_NULL, &copy));
    else CHECK_MPI(MPI_Comm_dup(base, &copy));
    /* copy_plus ran once with (base, kplus, &log_a, old value) */
    CHECK_INT(log_a.ncopy, 1);
    CHECK(log_a.copy_comm[0] == base && log_a.copy_key[0] == kplus &&
          log_a.copy_in[0] == (void *)(intptr_t)(5 + rank),
          "copy callback got comm 0x%x key 0x%x value %p", log_a.copy_comm[0], log_a.copy_key[0],
          log_a.copy_in[0]);
    CHECK_INT(log_b.ncopy, 1);     /* the declining callback ran, NULL_COPY never does */
    void *v = get_attr(copy, kplus, &flag);
    CHECK(flag == 1 && v == (void *)(intptr_t)(1005 + rank), "copied value %p flag %d", v, flag);
    get_attr(copy, knull, &flag);
    CHECK(flag == 0, "MPI_COMM_NULL_COPY_FN attribute was copied (flag %d)", flag);
    get_attr(copy, kdecline, &flag);
    CHECK(flag == 0, "declined attribute was copied (flag %d)", flag);
    v = get_attr(copy, kdup, &flag);
    CHECK(flag == 1 && v == &shared_obj, "MPI_COMM_DUP_FN: flag %d value %p", flag, v);
    /* the original is untouched */
    v = get_attr(base, kplus, &flag);
    CHECK(flag == 1 && v == (void *)(intptr_t)(5 + rank), "original value %p", v);

    /* freeing the copy runs the delete callback of its one kplus attribute */
    MPI_Comm copy_handle = copy;
    CHECK_MPI(MPI_Comm_free(&copy));
    CHECK(copy == MPI_COMM_NULL, "freed handle 0x%x", copy);
    CHECK_INT(log_a.ndelete, 1);
    CHECK(log_a.delete_comm[0] == copy_handle && log_a.delete_val[0] == (void *)(intptr_t)(1005 + rank),
          "delete at free got comm 0x%x value %p", log_a.delete_comm[0], log_a.delete_val[0]);
    CHECK_INT(log_b.ndelete, 0);

    /* a keyval freed while base still holds attributes under it: the attribute
     * stays reachable to the callbacks, which run at MPI_Comm_free */
    CHECK_MPI(MPI_Comm_free_keyval(&kplus));
    CHECK_INT(kplus, MPI_KEYVAL_INVALID);
    CHECK_MPI(MPI_Comm_free_keyval(&knull));
    CHECK_MPI(MPI_Comm_free(&base));
    CHECK_INT(log_a.ndelete, 2);
    CHECK(log_a.delete_val[1] == (void *)(intptr_t)(5 + rank), "late delete value %p",
          log_a.delete_val[1]);
    CHECK_INT(log_b.ndelete, 1);
    CHECK(log_b.delete_val[0] == (void *)(intptr_t)6, "late delete value %p", log_b.delete_val[0]);
    CHECK_MPI(MPI_Comm_free_keyval(&kdup));
    CHECK_MPI(MPI_Comm_free_keyval(&kdecline));
}

/* Dup of a dup: each generation adds 1000 */
static void test_generations(void)
{
    int key, flag;
    memset(&log_a, 0, sizeof log_a);
    CHECK_MPI(MPI_Comm_create_keyval(copy_plus, delete_log, &key, &log_a));
    MPI_Comm c[4];
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c[0]));
    CHECK_MPI(MPI_Comm_set_attr(c[0], key, (void *)(intptr_t)1));
    for (int i = 1; i < 4; i++) CHECK_MPI(MPI_Comm_dup(c[i - 1], &c[i]));
    for (int i = 0; i < 4; i++) {
        void *v = get_attr(c[i], key, &flag);
        CHECK(flag && v == (void *)(intptr_t)(1 + 1000 * i), "generation %d: %p", i, v);
    }
    CHECK_INT(log_a.ncopy, 3);
    for (int i = 3; i >= 0; i--) CHECK_MPI(MPI_Comm_free(&c[i]));
    CHECK_INT(log_a.ndelete, 4);
    CHECK_MPI(MPI_Comm_free_keyval(&key));
}

/* MPI-1 names for the same thing */
static void test_legacy(void)
{
    int k1, k2, flag;
    void *v;
    memset(&log_a, 0, sizeof log_a);
    CHECK_MPI(MPI_Keyval_create(MPI_DUP_FN, delete_log, &k1, &log_a));
    CHECK_MPI(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k2, NULL));
    MPI_Comm c, d;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Attr_put(c, k1, (void *)(intptr_t)11));
    CHECK_MPI(MPI_Attr_put(c, k2, (void *)(intptr_t)12));
    CHECK_MPI(MPI_Attr_get(c, k1, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)11, "Attr_get %p", v);
    CHECK_MPI(MPI_Comm_dup(c, &d));
    CHECK_MPI(MPI_Attr_get(d, k1, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)11, "MPI_DUP_FN copy %p flag %d", v, flag);
    CHECK_MPI(MPI_Attr_get(d, k2, &v, &flag));
    CHECK_INT(flag, 0);
    /* the new-style calls see the same attributes */
    CHECK_MPI(MPI_Comm_get_attr(d, k1, &v, &flag));
    CHECK(flag && v == (void *)(intptr_t)11, "Comm_get_attr of Attr_put value %p", v);
    CHECK_MPI(MPI_Attr_delete(d, k1));
    CHECK_INT(log_a.ndelete, 1);
    CHECK_MPI(MPI_Attr_get(d, k1, &v, &flag));
    CHECK_INT(flag, 0);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_INT(log_a.ndelete, 2);
    CHECK_MPI(MPI_Keyval_free(&k1));
    CHECK_MPI(MPI_Keyval_free(&k2));
    CHECK_INT(k1, MPI_KEYVAL_INVALID);
}

/* Many keyvals and attributes at once */
static void test_many(void)
{
    enum { N = 100 };
    int keys[N], flag, bad = 0;
    MPI_Comm c;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    for (int i = 0; i < N; i++) {
        CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keys[i], NULL));
        CHECK_MPI(MPI_Comm_set_attr(c, keys[i], (void *)(intptr_t)(i * 3)));
    }
    MPI_Comm d;
    CHECK_MPI(MPI_Comm_dup(c, &d));
    for (int i = 0; i < N; i++) {
        void *v = get_attr(d, keys[i], &flag);
        bad += !flag || v != (void *)(intptr_t)(i * 3);
    }
    CHECK(bad == 0, "%d of %d attributes wrong after dup", bad, N);
    for (int i = 0; i < N; i += 2) CHECK_MPI(MPI_Comm_delete_attr(d, keys[i]));
    bad = 0;
    for (int i = 0; i < N; i++) {
        void *v = get_attr(d, keys[i], &flag);
        bad += (i % 2 == 0) ? flag != 0 : (!flag || v != (void *)(intptr_t)(i * 3));
    }
    CHECK(bad == 0, "%d of %d attributes wrong after deleting half", bad, N);
    CHECK_MPI(MPI_Comm_free(&d));
    CHECK_MPI(MPI_Comm_free(&c));
    for (int i = 0; i < N; i++) CHECK_MPI(MPI_Comm_free_keyval(&keys[i]));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    test_round_trip();
    test_dup_and_free(0);
    test_dup_and_free(1);
    test_generations();
    test_legacy();
    test_many();
    int rc = mt_finish("attr_comm");
    MPI_Finalize();
    return rc;
}
