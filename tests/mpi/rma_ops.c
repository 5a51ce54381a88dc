/* SPDX-License-Identifier: MIT */
/* Every one-sided operation (Put, Get, Accumulate, Get_accumulate,
 * Fetch_and_op, Compare_and_swap, Rput, Rget, Raccumulate, Rget_accumulate;
 * contiguous and derived datatypes on either side) under every
 * synchronization mode (fence, post/start/complete/wait, exclusive and shared
 * lock, lock_all with flush) on every window kind (create, allocate,
 * allocate_shared, dynamic).  Each rank works on the next rank's window and
 * checks what the previous rank left in its own. */
#include "mpitest.h"
#include <string.h>

enum { N = 64 };
enum { K_CREATE, K_ALLOCATE, K_SHARED, K_DYNAMIC, NKINDS };
enum { S_FENCE, S_PSCW, S_EXCL, S_SHARED, S_LOCKALL, NSYNC };
static const char *kind_names[] = { "create", "allocate", "shared", "dynamic" };
static const char *sync_names[] = { "fence", "pscw", "lock_exclusive", "lock_shared",
                                    "lock_all" };

static int me, np;

static int val(int rank, int i)
{
    return rank * 1000 + i;
}

static void run(int kind, int sync)
{
    int tgt = (me + 1) % np, src = (me + np - 1) % np;
    int *mem = NULL, *own = NULL;
    MPI_Win win;
    MPI_Aint base_disp = 0;      /* the target's displacement of element 0 */
    if (kind == K_CREATE) {
        own = mt_malloc(N * sizeof(int));
        CHECK_MPI(MPI_Win_create(own, N * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                 MPI_COMM_WORLD, &win));
        mem = own;
    } else if (kind == K_ALLOCATE) {
        CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &mem, &win));
    } else if (kind == K_SHARED) {
        CHECK_MPI(MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                          MPI_COMM_WORLD, &mem, &win));
    } else {
        own = mt_malloc(N * sizeof(int));
        CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        CHECK_MPI(MPI_Win_attach(win, own, N * sizeof(int)));
        mem = own;
        MPI_Aint mine;
        MPI_Get_address(own, &mine);
        MPI_Aint *all = mt_malloc(np * sizeof(MPI_Aint));
        MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
        base_disp = all[tgt];
        free(all);
    }
    int du = kind == K_DYNAMIC ? (int)sizeof(int) : 1;   /* displacement of element i: i * du */
    /* every rank's window: val(rank, i) */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    for (int i = 0; i < N; i++) mem[i] = val(me, i);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Group world, gt, gs;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &tgt, &gt);
    MPI_Group_incl(world, 1, &src, &gs);
    switch (sync) {
    case S_FENCE: CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win)); break;
    case S_PSCW:
        CHECK_MPI(MPI_Win_post(gs, 0, win));
        CHECK_MPI(MPI_Win_start(gt, 0, win));
        break;
    case S_EXCL: CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tgt, 0, win)); break;
    case S_SHARED: CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, tgt, 0, win)); break;
    default: CHECK_MPI(MPI_Win_lock_all(0, win)); break;
    }
#define D(i) (base_disp + (MPI_Aint)(i) * du)
    int put[8], get[8], one = me + 1, add5[4], gacc[4], fop_in = 3, fop_out = -7;
    int cas_new = -1, cas_cmp = val(tgt, 37), cas_out = 0, rput[4], rget[4], racc[4];
    int rgacc[4], vget[8];
    for (int i = 0; i < 8; i++) put[i] = 700000 + me * 100 + i;
    for (int i = 0; i < 4; i++) {
        add5[i] = 5;
        rput[i] = 800000 + me * 100 + i;
        racc[i] = 900000 + me * 100 + i;
    }
    memset(get, 0, sizeof get);
    memset(vget, 0, sizeof vget);
    int ones[8];
    for (int i = 0; i < 8; i++) ones[i] = one;
    MPI_Datatype vec;    /* 4 ints, every other one */
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    CHECK_MPI(MPI_Put(put, 8, MPI_INT, tgt, D(0), 8, MPI_INT, win));
    CHECK_MPI(MPI_Put(put, 4, MPI_INT, tgt, D(8), 1, vec, win));          /* 8,10,12,14 */
    CHECK_MPI(MPI_Get(get, 8, MPI_INT, tgt, D(16), 8, MPI_INT, win));
    CHECK_MPI(MPI_Accumulate(ones, 8, MPI_INT, tgt, D(24), 8, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Get_accumulate(add5, 4, MPI_INT, gacc, 4, MPI_INT, tgt, D(32), 4, MPI_INT,
                                 MPI_SUM, win));
    CHECK_MPI(MPI_Fetch_and_op(&fop_in, &fop_out, MPI_INT, tgt, D(36), MPI_SUM, win));
    CHECK_MPI(MPI_Compare_and_swap(&cas_new, &cas_cmp, &cas_out, MPI_INT, tgt, D(37), win));
    MPI_Request rq[4];
    CHECK_MPI(MPI_Rput(rput, 4, MPI_INT, tgt, D(40), 4, MPI_INT, win, &rq[0]));
    CHECK_MPI(MPI_Rget(rget, 4, MPI_INT, tgt, D(44), 4, MPI_INT, win, &rq[1]));
    CHECK_MPI(MPI_Raccumulate(racc, 4, MPI_INT, tgt, D(48), 4, MPI_INT, MPI_REPLACE, win, &rq[2]));
    CHECK_MPI(MPI_Rget_accumulate(NULL, 0, MPI_INT, rgacc, 4, MPI_INT, tgt, D(52), 4, MPI_INT,
                                  MPI_NO_OP, win, &rq[3]));
    CHECK_MPI(MPI_Get(vget, 1, vec, tgt, D(56), 4, MPI_INT, win));        /* into 0,2,4,6 */
    CHECK_MPI(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE));
    switch (sync) {
    case S_FENCE: CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win)); break;
    case S_PSCW:
        CHECK_MPI(MPI_Win_complete(win));
        CHECK_MPI(MPI_Win_wait(win));
        break;
    case S_EXCL:
    case S_SHARED: CHECK_MPI(MPI_Win_unlock(tgt, win)); break;
    default:
        CHECK_MPI(MPI_Win_flush(tgt, win));
        CHECK_MPI(MPI_Win_unlock_all(win));
        break;
    }
    /* what came back from the target */
    for (int i = 0; i < 8; i++) CHECK_INT(get[i], val(tgt, 16 + i));
    for (int i = 0; i < 4; i++) {
        CHECK_INT(gacc[i], val(tgt, 32 + i));
        CHECK_INT(rget[i], val(tgt, 44 + i));
        CHECK_INT(rgacc[i], val(tgt, 52 + i));
        CHECK_INT(vget[2 * i], val(tgt, 56 + i));
        CHECK_INT(vget[2 * i + 1], 0);
    }
    CHECK_INT(fop_out, val(tgt, 36));
    CHECK_INT(cas_out, val(tgt, 37));
    MPI_Barrier(MPI_COMM_WORLD);
    /* what the previous rank did to this rank's window */
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    for (int i = 0; i < 8; i++) CHECK_INT(mem[i], 700000 + src * 100 + i);
    for (int i = 0; i < 8; i++)
        CHECK_INT(mem[8 + i], i % 2 == 0 ? 700000 + src * 100 + i / 2 : val(me, 8 + i));
    for (int i = 16; i < 24; i++) CHECK_INT(mem[i], val(me, i));
    for (int i = 24; i < 32; i++) CHECK_INT(mem[i], val(me, i) + src + 1);
    for (int i = 32; i < 36; i++) CHECK_INT(mem[i], val(me, i) + 5);
    CHECK_INT(mem[36], val(me, 36) + 3);
    CHECK_INT(mem[37], -1);
    for (int i = 0; i < 4; i++) {
        CHECK_INT(mem[40 + i], 800000 + src * 100 + i);
        CHECK_INT(mem[48 + i], 900000 + src * 100 + i);
        CHECK_INT(mem[52 + i], val(me, 52 + i));
    }
    MPI_Win_unlock(me, win);
    if (mt_errors_) fprintf(stderr, "rank %d: failures in %s/%s\n", me, kind_names[kind],
                            sync_names[sync]);
    MPI_Type_free(&vec);
    MPI_Group_free(&gt);
    MPI_Group_free(&gs);
    MPI_Group_free(&world);
    if (kind == K_DYNAMIC) CHECK_MPI(MPI_Win_detach(win, own));
    CHECK_MPI(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free sets MPI_WIN_NULL");
    free(own);
}

/* MPI_Win_allocate_shared memory is load/store memory of every rank. */
static void shared_loadstore(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr, nn;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &nn);
    for (int noncontig = 0; noncontig < 2; noncontig++) {
        MPI_Info info;
        MPI_Info_create(&info);
        if (noncontig) MPI_Info_set(info, "alloc_shared_noncontig", "true");
        int *mine;
        MPI_Win win;
        /* rank r holds r+1 ints */
        CHECK_MPI(MPI_Win_allocate_shared((nr + 1) * sizeof(int), sizeof(int), info, node, &mine,
                                          &win));
        MPI_Info_free(&info);
        MPI_Win_lock_all(0, win);
        for (int i = 0; i <= nr; i++) mine[i] = nr * 100 + i;
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        int *first = NULL;
        for (int r = 0; r < nn; r++) {
            MPI_Aint size;
            int du, *p;
            CHECK_MPI(MPI_Win_shared_query(win, r, &size, &du, &p));
            CHECK_INT((int)size, (int)((r + 1) * sizeof(int)));
            CHECK_INT(du, (int)sizeof(int));
            for (int i = 0; i <= r; i++) CHECK_INT(p[i], r * 100 + i);
            if (r == 0) first = p;
            /* contiguous by default: rank r's memory follows rank r-1's */
            if (!noncontig) CHECK(p == first + r * (r + 1) / 2, "contiguous shared memory");
        }
        MPI_Aint size;
        int du, *p;
        CHECK_MPI(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &du, &p));
        CHECK(p == first, "MPI_PROC_NULL gives the first rank's memory");
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
    }
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int k = 0; k < NKINDS; k++) {
        int node_size;
        MPI_Comm node;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &node_size);
        MPI_Comm_free(&node);
        if (k == K_SHARED && node_size != np) continue;   /* ranks on several nodes */
        for (int s = 0; s < NSYNC; s++) run(k, s);
    }
    shared_loadstore();
    int rc = mt_finish("rma_ops");
    MPI_Finalize();
    return rc;
}
