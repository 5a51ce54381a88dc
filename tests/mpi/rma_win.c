/* SPDX-License-Identifier: MIT */
/* The window object: the predefined attributes (MPI_WIN_BASE, SIZE,
 * DISP_UNIT, CREATE_FLAVOR, MODEL) of every flavour, user attributes with
 * copy/delete callbacks, names, info hints (MPI_Win_get_info/set_info),
 * MPI_Win_get_group, error handlers (create, set, get, call, and the errors
 * the library raises: no epoch, out of range, lock on a no_locks window,
 * mismatched datatypes, detach of unknown memory), the large-count _c forms,
 * and MPI_Win_test / flush_local / sync. */
#include "mpitest.h"
#include <string.h>

static int me, np;
static int handler_calls, handler_class;

static void win_handler(MPI_Win *win, int *code, ...)
{
    (void)win;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

static int deleted;
static int del_fn(MPI_Win win, int keyval, void *val, void *extra)
{
    (void)win, (void)keyval, (void)extra;
    deleted += *(int *)val;
    return MPI_SUCCESS;
}

static void attributes(void)
{
    int buf[16];
    int *abuf;
    MPI_Win w[4];
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &w[0]));
    CHECK_MPI(MPI_Win_allocate(40, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &abuf, &w[1]));
    int *sbuf = NULL;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    CHECK_MPI(MPI_Win_allocate_shared(24, 2, MPI_INFO_NULL, node, &sbuf, &w[2]));
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w[3]));
    void *bases[4] = { buf, abuf, sbuf, NULL };
    MPI_Aint sizes[4] = { sizeof buf, 40, 24, 0 };
    int dus[4] = { 4, 8, 2, 1 };
    int flavors[4] = { MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED,
                       MPI_WIN_FLAVOR_DYNAMIC };
    for (int k = 0; k < 4; k++) {
        void *v;
        int flag = 0;
        CHECK_MPI(MPI_Win_get_attr(w[k], MPI_WIN_BASE, &v, &flag));
#ifdef MT_REFERENCE_MPICH    /* MPICH 4.0 reports another address for MPI_Win_allocate */
        if (k != 1)
#endif
        CHECK(flag && v == bases[k], "flavour %d: MPI_WIN_BASE %p, expected %p", k, v, bases[k]);
        CHECK_MPI(MPI_Win_get_attr(w[k], MPI_WIN_SIZE, &v, &flag));
        CHECK(flag, "MPI_WIN_SIZE present");
        CHECK_INT(*(MPI_Aint *)v, sizes[k]);
        CHECK_MPI(MPI_Win_get_attr(w[k], MPI_WIN_DISP_UNIT, &v, &flag));
        CHECK(flag, "MPI_WIN_DISP_UNIT present");
        CHECK_INT(*(int *)v, dus[k]);
        CHECK_MPI(MPI_Win_get_attr(w[k], MPI_WIN_CREATE_FLAVOR, &v, &flag));
        CHECK(flag, "MPI_WIN_CREATE_FLAVOR present");
        CHECK_INT(*(int *)v, flavors[k]);
        CHECK_MPI(MPI_Win_get_attr(w[k], MPI_WIN_MODEL, &v, &flag));
        CHECK(flag, "MPI_WIN_MODEL present");
        CHECK_INT(*(int *)v, MPI_WIN_UNIFIED);
        /* the group is the communicator's */
        MPI_Group g, cg;
        int res;
        CHECK_MPI(MPI_Win_get_group(w[k], &g));
        MPI_Comm_group(k == 2 ? node : MPI_COMM_WORLD, &cg);
        MPI_Group_compare(g, cg, &res);
        CHECK_INT(res, MPI_IDENT);
        MPI_Group_free(&g);
        MPI_Group_free(&cg);
    }
    /* user attributes: the delete callback runs at MPI_Win_delete_attr and at MPI_Win_free */
    int key, val1 = 1, val2 = 10, *got, flag;
    CHECK_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &key, NULL));
    CHECK_MPI(MPI_Win_set_attr(w[0], key, &val1));
    CHECK_MPI(MPI_Win_get_attr(w[0], key, &got, &flag));
    CHECK(flag && got == &val1, "user attribute comes back");
    CHECK_MPI(MPI_Win_delete_attr(w[0], key));
    CHECK_INT(deleted, 1);
    CHECK_MPI(MPI_Win_get_attr(w[0], key, &got, &flag));
    CHECK_INT(flag, 0);
    CHECK_MPI(MPI_Win_set_attr(w[1], key, &val2));
    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_MPI(MPI_Win_get_name(w[0], name, &len));
    CHECK_INT(len, 0);
    CHECK_MPI(MPI_Win_set_name(w[0], "halo window"));
    CHECK_MPI(MPI_Win_get_name(w[0], name, &len));
    CHECK(strcmp(name, "halo window") == 0 && len == 11, "name '%s' (%d)", name, len);
    for (int k = 0; k < 4; k++) CHECK_MPI(MPI_Win_free(&w[k]));
    CHECK_INT(deleted, 11);
    CHECK_MPI(MPI_Win_free_keyval(&key));
    MPI_Comm_free(&node);
}

static int info_is(MPI_Info info, const char *key, const char *want)
{
    char v[64];
    int flag = 0;
    MPI_Info_get(info, key, sizeof v - 1, v, &flag);
    return flag && strcmp(v, want) == 0;
}

static void info(void)
{
    MPI_Info in, used;
    MPI_Info_create(&in);
    MPI_Info_set(in, "no_locks", "true");
    MPI_Info_set(in, "accumulate_ops", "same_op");
    MPI_Info_set(in, "same_size", "true");
    int *p;
    MPI_Win w;
    CHECK_MPI(MPI_Win_allocate(64, 1, in, MPI_COMM_WORLD, &p, &w));
    MPI_Info_free(&in);
    CHECK_MPI(MPI_Win_get_info(w, &used));
    CHECK(info_is(used, "no_locks", "true"), "no_locks=true in the info used");
    CHECK(info_is(used, "accumulate_ops", "same_op"), "accumulate_ops=same_op");
    CHECK(info_is(used, "same_size", "true"), "same_size=true");
    CHECK(info_is(used, "accumulate_ordering", "rar,raw,war,waw"), "default ordering");
    MPI_Info_free(&used);
    /* a lock on a no_locks window is an error the window's handler sees */
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
#ifndef MT_REFERENCE_MPICH    /* erroneous, and MPICH lets it pass */
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_lock_all(0, w), MPI_ERR_RMA_SYNC);
#endif
    /* set_info can lift it */
    MPI_Info_create(&in);
    MPI_Info_set(in, "no_locks", "false");
    CHECK_MPI(MPI_Win_set_info(w, in));
    MPI_Info_free(&in);
    CHECK_MPI(MPI_Win_get_info(w, &used));
    CHECK(info_is(used, "no_locks", "false"), "no_locks=false after MPI_Win_set_info");
    MPI_Info_free(&used);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    CHECK_MPI(MPI_Win_unlock(0, w));
    CHECK_MPI(MPI_Win_free(&w));

    /* alloc_shared_noncontig permits a layout at allocation: a later set_info
     * changes the hint reported (as MPICH's rma/win_info expects), not the
     * layout, which MPI_Win_shared_query still gives */
    MPI_Comm node;
    int nrank, nsize;
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nsize);
    MPI_Info_create(&in);
    MPI_Info_set(in, "alloc_shared_noncontig", "true");
    int *mine;
    CHECK_MPI(MPI_Win_allocate_shared(sizeof(int), sizeof(int), in, node, &mine, &w));
    MPI_Info_free(&in);
    CHECK_MPI(MPI_Win_get_info(w, &used));
    CHECK(info_is(used, "alloc_shared_noncontig", "true"), "alloc_shared_noncontig=true");
    MPI_Info_free(&used);
    MPI_Info_create(&in);
    MPI_Info_set(in, "alloc_shared_noncontig", "false");
    CHECK_MPI(MPI_Win_set_info(w, in));
    MPI_Info_free(&in);
    CHECK_MPI(MPI_Win_get_info(w, &used));
    CHECK(info_is(used, "alloc_shared_noncontig", "false"),
          "alloc_shared_noncontig=false after MPI_Win_set_info");
    MPI_Info_free(&used);
    CHECK_MPI(MPI_Win_fence(0, w));
    *mine = 1000 + nrank;
    CHECK_MPI(MPI_Win_fence(0, w));
    for (int r = 0; r < nsize; r++) {
        MPI_Aint qsize;
        int qdisp, *q = NULL;
        CHECK_MPI(MPI_Win_shared_query(w, r, &qsize, &qdisp, &q));
        CHECK_INT((int)qsize, (int)sizeof(int));
        CHECK_INT(qdisp, (int)sizeof(int));
        if (q) CHECK_INT(*q, 1000 + r);
    }
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Win_free(&w));
    MPI_Comm_free(&node);
}

static void errors(void)
{
    int buf[8] = { 0 };
    MPI_Win w;
    CHECK_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    MPI_Errhandler eh, got;
    CHECK_MPI(MPI_Win_create_errhandler(win_handler, &eh));
    CHECK_MPI(MPI_Win_set_errhandler(w, eh));
    CHECK_MPI(MPI_Win_get_errhandler(w, &got));
    CHECK(got == eh, "MPI_Win_get_errhandler gives the handler set");
    MPI_Errhandler_free(&got);
    int tgt = (me + 1) % np, one = 1;
    /* no epoch */
    handler_calls = 0;
    MPI_Put(&one, 1, MPI_INT, tgt, 0, 1, MPI_INT, w);
    CHECK_INT(handler_calls, 1);
    CHECK_INT(handler_class, MPI_ERR_RMA_SYNC);
    /* MPI_Win_call_errhandler */
    CHECK_MPI(MPI_Win_call_errhandler(w, MPI_ERR_OTHER));
    CHECK_INT(handler_calls, 2);
    CHECK_INT(handler_class, MPI_ERR_OTHER);
    MPI_Errhandler_free(&eh);
    /* the errors come back with MPI_ERRORS_RETURN */
    CHECK_MPI(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tgt, 0, w));
#ifndef MT_REFERENCE_MPICH
    /* erroneous calls that the standard lets an implementation miss (MPICH does) */
    CHECK_CLASS(MPI_Put(&one, 1, MPI_INT, tgt, 8, 1, MPI_INT, w), MPI_ERR_RMA_RANGE);
    CHECK_CLASS(MPI_Put(&one, 1, MPI_INT, tgt, -1, 1, MPI_INT, w), MPI_ERR_RMA_RANGE);
    int two[2];
    CHECK_CLASS(MPI_Get(two, 2, MPI_INT, tgt, 7, 2, MPI_INT, w), MPI_ERR_RMA_RANGE);
    CHECK_CLASS(MPI_Put(&one, 1, MPI_INT, np, 0, 1, MPI_INT, w), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Put(&one, 1, MPI_INT, tgt, 0, 1, MPI_DOUBLE, w), MPI_ERR_TYPE);
    double d = 1;
    CHECK_CLASS(MPI_Accumulate(&d, 1, MPI_DOUBLE, tgt, 0, 2, MPI_INT, MPI_SUM, w), MPI_ERR_TYPE);
    float f = 1;
    int r;
    CHECK_CLASS(MPI_Compare_and_swap(&f, &f, &f, MPI_FLOAT, tgt, 0, w), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Fetch_and_op(&one, &r, MPI_INT, tgt, 0, MPI_OP_NULL, w), MPI_ERR_OP);
    CHECK_CLASS(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tgt, 0, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_fence(0, w), MPI_ERR_RMA_SYNC);
#endif
    /* a correct put still works after the errors */
    CHECK_MPI(MPI_Put(&one, 1, MPI_INT, tgt, 7, 1, MPI_INT, w));
    /* MPI_BYTE on one side matches any bytes on the other (MPICH, mpi4py) */
    unsigned char uc[4] = { 0x11, 0x22, 0x33, (unsigned char)(0x40 + me) };
    CHECK_MPI(MPI_Put(uc, 4, MPI_UNSIGNED_CHAR, tgt, 6, 4, MPI_BYTE, w));
    CHECK_MPI(MPI_Win_flush(tgt, w));
    int back = 0;
    CHECK_MPI(MPI_Get(&back, 4, MPI_BYTE, tgt, 6, 1, MPI_INT, w));
    CHECK_MPI(MPI_Win_flush(tgt, w));
    CHECK(memcmp(&back, uc, 4) == 0, "MPI_UNSIGNED_CHAR put into MPI_BYTE, got back as MPI_INT");
    CHECK_MPI(MPI_Win_unlock(tgt, w));
#ifndef MT_REFERENCE_MPICH
    CHECK_CLASS(MPI_Win_unlock(tgt, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_flush(tgt, w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_complete(w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_wait(w), MPI_ERR_RMA_SYNC);
    CHECK_CLASS(MPI_Win_lock(99, tgt, 0, w), MPI_ERR_LOCKTYPE);
    CHECK_CLASS(MPI_Win_attach(w, buf, 4), MPI_ERR_RMA_FLAVOR);
    int *q;
    MPI_Aint qs;
    int qd;
    CHECK_CLASS(MPI_Win_shared_query(w, 0, &qs, &qd, &q), MPI_ERR_RMA_FLAVOR);
#endif
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_INT(buf[7], 1);
    CHECK_MPI(MPI_Win_free(&w));

    /* dynamic windows: memory not attached, detach of unknown memory */
    CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
    CHECK_MPI(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Win_attach(w, buf, sizeof buf));
#ifndef MT_REFERENCE_MPICH
    CHECK_CLASS(MPI_Win_attach(w, buf + 2, 4), MPI_ERR_RMA_ATTACH);
    CHECK_CLASS(MPI_Win_detach(w, &one), MPI_ERR_RMA_ATTACH);
#endif
    MPI_Aint addr, *all = mt_malloc(np * sizeof(MPI_Aint));
    MPI_Get_address(buf, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, tgt, 0, w));
#ifndef MT_REFERENCE_MPICH
    int rc = MPI_Put(&one, 1, MPI_INT, tgt, all[tgt] + sizeof buf, 1, MPI_INT, w);
    if (rc == MPI_SUCCESS) rc = MPI_Win_flush(tgt, w);   /* a remote target reports it here */
    CHECK_CLASS(rc, MPI_ERR_RMA_RANGE);
#endif
    CHECK_MPI(MPI_Put(&tgt, 1, MPI_INT, tgt, all[tgt] + 4, 1, MPI_INT, w));
    CHECK_MPI(MPI_Win_unlock(tgt, w));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_INT(buf[1], me);
    CHECK_MPI(MPI_Win_detach(w, buf));
    CHECK_MPI(MPI_Win_free(&w));
    free(all);
}

/* The large-count forms, MPI_Win_test, flush_local and sync. */
static void large_count_forms(void)
{
    enum { N = 32 };
    long *mem;
    MPI_Win w;
    CHECK_MPI(MPI_Win_allocate_c(N * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                                 &mem, &w));
    long own[N];
    MPI_Win w2;
    CHECK_MPI(MPI_Win_create_c(own, N * sizeof(long), sizeof(long), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &w2));
    for (int i = 0; i < N; i++) mem[i] = own[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    int tgt = (me + 1) % np, src = (me + np - 1) % np;
    long data[N], back[N], acc[N];
    for (int i = 0; i < N; i++) data[i] = me * 100 + i, acc[i] = 1;
    CHECK_MPI(MPI_Win_lock_all(0, w));
    CHECK_MPI(MPI_Put_c(data, (MPI_Count)N, MPI_LONG, tgt, 0, (MPI_Count)N, MPI_LONG, w));
    CHECK_MPI(MPI_Win_flush_local(tgt, w));
    CHECK_MPI(MPI_Win_flush(tgt, w));
    CHECK_MPI(MPI_Accumulate_c(acc, (MPI_Count)N, MPI_LONG, tgt, 0, (MPI_Count)N, MPI_LONG,
                               MPI_SUM, w));
    CHECK_MPI(MPI_Win_flush_local_all(w));
    CHECK_MPI(MPI_Win_flush_all(w));
    MPI_Request rq;
    CHECK_MPI(MPI_Rget_c(back, (MPI_Count)N, MPI_LONG, tgt, 0, (MPI_Count)N, MPI_LONG, w, &rq));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; i++) CHECK_INT(back[i], me * 100 + i + 1);
    long res[N];
    CHECK_MPI(MPI_Get_accumulate_c(acc, (MPI_Count)N, MPI_LONG, res, (MPI_Count)N, MPI_LONG, tgt,
                                   0, (MPI_Count)N, MPI_LONG, MPI_SUM, w));
    CHECK_MPI(MPI_Win_flush(tgt, w));
    for (int i = 0; i < N; i++) CHECK_INT(res[i], me * 100 + i + 1);
    CHECK_MPI(MPI_Win_sync(w));
    CHECK_MPI(MPI_Win_unlock_all(w));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w));
    for (int i = 0; i < N; i++) CHECK_INT(mem[i], src * 100 + i + 2);
    CHECK_MPI(MPI_Win_unlock(me, w));

    /* PSCW with MPI_Win_test on the create window: everyone exposes to the
     * previous rank and accesses the next one */
    MPI_Group world, gt, gs;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &tgt, &gt);
    MPI_Group_incl(world, 1, &src, &gs);
    CHECK_MPI(MPI_Win_post(gs, 0, w2));
    CHECK_MPI(MPI_Win_start(gt, 0, w2));
    CHECK_MPI(MPI_Put_c(data, (MPI_Count)N, MPI_LONG, tgt, 0, (MPI_Count)N, MPI_LONG, w2));
    CHECK_MPI(MPI_Win_complete(w2));
    int flag = 0;
    for (long spins = 0; !flag; spins++) {
        CHECK_MPI(MPI_Win_test(w2, &flag));
        if (spins > 100000000L) {
            CHECK(0, "MPI_Win_test never completed");
            break;
        }
    }
    for (int i = 0; i < N; i++) CHECK_INT(own[i], src * 100 + i);
    MPI_Group_free(&gt);
    MPI_Group_free(&gs);
    MPI_Group_free(&world);
    CHECK_MPI(MPI_Win_free(&w2));
    /* shared_query_c */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int *s;
    MPI_Win ws;
    CHECK_MPI(MPI_Win_allocate_shared_c(16, 4, MPI_INFO_NULL, node, &s, &ws));
    MPI_Aint qs, qd;
    int *q;
    CHECK_MPI(MPI_Win_shared_query_c(ws, 0, &qs, &qd, &q));
    CHECK_INT(qs, 16);
    CHECK_INT(qd, 4);
    CHECK_MPI(MPI_Win_free(&ws));
    MPI_Comm_free(&node);
    CHECK_MPI(MPI_Win_free(&w));
}

/* Accumulates of no elements combine nothing, so the op need not be defined
 * on the type (mpi4py's test_rma calls Get_accumulate with 0 MPI_BYTE and
 * MPI_SUM; MPICH accepts it), and the window stays as it was. */
static void zero_count_accumulates(void)
{
    unsigned char *base;
    MPI_Win w;
    CHECK_MPI(MPI_Win_allocate(8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w));
    for (int i = 0; i < 8; i++) base[i] = (unsigned char)(10 + i);
    unsigned char o = 1, r = 7;
    int t = (me + 1) % np;
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_MPI(MPI_Get_accumulate(&o, 0, MPI_BYTE, &r, 0, MPI_BYTE, t, 0, 0, MPI_BYTE, MPI_SUM, w));
    CHECK_MPI(MPI_Accumulate(&o, 0, MPI_BYTE, t, 0, 0, MPI_BYTE, MPI_PROD, w));
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_INT(r, 7);
    for (int i = 0; i < 8; i++) CHECK_INT(base[i], 10 + i);
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 does not check the op against the type */
    /* with elements, MPI_SUM on MPI_BYTE is still an error */
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_CLASS(MPI_Accumulate(&o, 1, MPI_BYTE, t, 0, 1, MPI_BYTE, MPI_SUM, w), MPI_ERR_OP);
    /* the same through MPI_Fetch_and_op (both take the direct path's short
     * way on this window up to the op's check) */
    CHECK_CLASS(MPI_Fetch_and_op(&o, &r, MPI_BYTE, t, 0, MPI_SUM, w), MPI_ERR_OP);
    CHECK_MPI(MPI_Win_fence(0, w));
    CHECK_INT(r, 7);
    for (int i = 0; i < 8; i++) CHECK_INT(base[i], 10 + i);
#endif
    CHECK_MPI(MPI_Win_free(&w));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    attributes();
    info();
    errors();
    large_count_forms();
    zero_count_accumulates();
    int rc = mt_finish("rma_win");
    MPI_Finalize();
    return rc;
}
