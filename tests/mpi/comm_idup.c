/* SPDX-License-Identifier: MIT */
/* MPI_Comm_idup and MPI_Comm_idup_with_info are non-blocking: an idup may be
 * started, other communication done (which needs the other ranks to have
 * started theirs, or not), and the idup completed later; overlapping idups on
 * communicators that share processes complete whatever order they are waited
 * in; an idup outstanding while the same process makes other communicators
 * (blocking dup, split) still gets a context of its own.  Every new
 * communicator is checked with traffic (an allreduce, a ring of sends) and
 * keeps its attributes and hints.  Also on an intercommunicator. */
#include "mpitest.h"

/* The communicator works and is apart from MPI_COMM_WORLD's traffic. */
static void check_comm(MPI_Comm c, const char *what)
{
    int rank, size, sum = -1;
    CHECK_MPI(MPI_Comm_rank(c, &rank));
    CHECK_MPI(MPI_Comm_size(c, &size));
    CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == size * (size - 1) / 2, "%s: allreduce %d", what, sum);
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (size > 1 && size == wsize) {
        /* a ring on c while a message with the same tag waits on WORLD */
        int v = -1, w = -1;
        MPI_Request wr;
        int tok = 1000 + wrank;
        CHECK_MPI(MPI_Isend(&tok, 1, MPI_INT, (wrank + 1) % wsize, 5, MPI_COMM_WORLD, &wr));
        CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 5, &v, 1, MPI_INT,
                               (rank + size - 1) % size, 5, c, MPI_STATUS_IGNORE));
        CHECK(v == (rank + size - 1) % size, "%s: ring got %d", what, v);
        CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, (wrank + wsize - 1) % wsize, 5, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        CHECK_INT(w, 1000 + (wrank + wsize - 1) % wsize);
        CHECK_MPI(MPI_Wait(&wr, MPI_STATUS_IGNORE));
    }
}

static int copies;
static int copy_fn(MPI_Comm old, int key, void *extra, void *in, void *out, int *flag)
{
    (void)old, (void)key, (void)extra;
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm n, m, big;
    MPI_Request req, reqs[8];

    /* 1. rank 0 takes the others' messages before it starts its idup: the
     * others must not block in theirs (MPICH's comm_idup pattern) */
    int buf[2];
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            CHECK_MPI(MPI_Recv(buf, 2, MPI_INT, i, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(buf[0] == i && buf[1] == size + i, "message from %d: %d %d", i, buf[0], buf[1]);
        }
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &n, &req));
    } else {
        CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &n, &req));
        buf[0] = rank;
        buf[1] = size + rank;
        CHECK_MPI(MPI_Ssend(buf, 2, MPI_INT, 0, 0, MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "the idup request was not freed");
    check_comm(n, "idup");
    int cmp;
    CHECK_MPI(MPI_Comm_compare(n, MPI_COMM_WORLD, &cmp));
    CHECK_INT(cmp, MPI_CONGRUENT);
    CHECK_MPI(MPI_Comm_free(&n));

    /* 2. pairs of overlapping communicators, waited in opposite orders: each
     * rank is in (rank, rank+1) as "first" and (rank-1, rank) as "second" */
    if (size > 1) {
        MPI_Comm pair[2], dups[2];
        for (int i = 0; i < size; i++) {
            MPI_Comm tmp;
            int member = rank == i || rank == (i + 1) % size;
            CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, member ? 0 : MPI_UNDEFINED, rank == i ? 0 : 1,
                                     &tmp));
            if (rank == i) pair[0] = tmp;
            else if (rank == (i + 1) % size) pair[1] = tmp;
        }
        /* (with 2 ranks both pairs are the same two ranks, two communicators) */
        CHECK_MPI(MPI_Comm_idup(pair[0], &dups[0], &reqs[0]));
        CHECK_MPI(MPI_Comm_idup(pair[1], &dups[1], &reqs[1]));
        if (rank % 2) {
            CHECK_MPI(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
            CHECK_MPI(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));
        } else {
            CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
        }
        /* each pair's two members swap their world ranks on the duplicate */
        int mine = rank, other[2] = { -1, -1 };
        MPI_Request x[4];
        for (int k = 0; k < 2; k++) {
            int s2, peer;
            MPI_Comm_size(dups[k], &s2);
            CHECK_INT(s2, 2);
            MPI_Comm_rank(dups[k], &peer);
            CHECK_MPI(MPI_Irecv(&other[k], 1, MPI_INT, 1 - peer, 9, dups[k], &x[2 * k]));
            CHECK_MPI(MPI_Isend(&mine, 1, MPI_INT, 1 - peer, 9, dups[k], &x[2 * k + 1]));
        }
        CHECK_MPI(MPI_Waitall(4, x, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 2; k++) {
            int want = k == 0 ? (rank + 1) % size : (rank + size - 1) % size;
            CHECK(other[k] == want, "pair %d: got %d, expected %d", k, other[k], want);
            CHECK_MPI(MPI_Comm_free(&dups[k]));
            CHECK_MPI(MPI_Comm_free(&pair[k]));
        }
    }

    /* 3. several idups outstanding, blocking creations in between, attributes
     * and hints: the contexts stay apart */
    int key;
    CHECK_MPI(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    MPI_Comm base;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    CHECK_MPI(MPI_Comm_set_attr(base, key, (void *)(intptr_t)100));
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "courier_test_hint", "yes");
    MPI_Info_set(info, "mpi_assert_exact_length", "false");
    MPI_Comm d[4];
    copies = 0;
    CHECK_MPI(MPI_Comm_idup(base, &d[0], &reqs[0]));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &m));                        /* blocking, meanwhile */
    CHECK_MPI(MPI_Comm_idup_with_info(base, info, &d[1], &reqs[1]));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &big));  /* blocking, meanwhile */
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &d[2], &reqs[2]));
    CHECK_MPI(MPI_Comm_idup(big, &d[3], &reqs[3]));
    MPI_Info_free(&info);
    /* complete them in reverse order on odd ranks */
    if (rank % 2)
        for (int k = 3; k >= 0; k--) CHECK_MPI(MPI_Wait(&reqs[k], MPI_STATUS_IGNORE));
    else
        CHECK_MPI(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
    check_comm(m, "dup meanwhile");
    check_comm(big, "split meanwhile");
    for (int k = 0; k < 4; k++) check_comm(d[k], "idup of many");
    CHECK_INT(copies, 2);
    void *val;
    int flag;
    CHECK_MPI(MPI_Comm_get_attr(d[0], key, &val, &flag));
    CHECK(flag && (intptr_t)val == 101, "attribute copied: flag %d value %ld", flag, (long)(intptr_t)val);
    /* the unknown hint is ignored (as MPICH does), the known one kept */
    MPI_Info used;
    char v[16] = "";
    CHECK_MPI(MPI_Comm_get_info(d[1], &used));
    CHECK_MPI(MPI_Info_get(used, "courier_test_hint", sizeof v - 1, v, &flag));
    CHECK(!flag, "unknown hint of idup_with_info kept: \"%s\"", v);
#ifndef MT_REFERENCE_MPICH   /* which standard hints MPICH 4.0 returns is its own choice */
    CHECK_MPI(MPI_Info_get(used, "mpi_assert_exact_length", sizeof v - 1, v, &flag));
    CHECK(flag && strcmp(v, "false") == 0, "hint of idup_with_info: flag %d \"%s\"", flag, v);
#endif
    MPI_Info_free(&used);
    int bsize;
    MPI_Comm_size(big, &bsize);
    MPI_Comm_size(d[3], &cmp);
    CHECK_INT(cmp, bsize);
    for (int k = 0; k < 4; k++) MPI_Comm_free(&d[k]);
    MPI_Comm_free(&m);
    MPI_Comm_free(&big);
    MPI_Comm_free(&base);
    MPI_Comm_free_keyval(&key);

    /* 4. MPI_Test drives it too */
    CHECK_MPI(MPI_Comm_idup(MPI_COMM_WORLD, &n, &req));
    flag = 0;
    for (long i = 0; !flag; i++) CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    check_comm(n, "idup by test");
    MPI_Comm_free(&n);

    /* 5. an intercommunicator: even and odd ranks */
    if (size > 1) {
        MPI_Comm half, ic, icd;
        CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
        CHECK_MPI(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 77, &ic));
        CHECK_MPI(MPI_Comm_idup(ic, &icd, &req));
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        int inter = 0, lsize, rsize, lrank;
        MPI_Comm_test_inter(icd, &inter);
        MPI_Comm_size(icd, &lsize);
        MPI_Comm_remote_size(icd, &rsize);
        MPI_Comm_rank(icd, &lrank);
        CHECK(inter, "idup of an intercommunicator is an intercommunicator");
        CHECK_INT(lsize, (size + (rank % 2 ? 0 : 1)) / 2);
        CHECK_INT(rsize, size - lsize);
        /* local rank 0 of each side swaps a value with the other side's */
        if (lrank == 0) {
            int out = rank, in = -1;
            CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, 0, 3, &in, 1, MPI_INT, 0, 3, icd,
                                   MPI_STATUS_IGNORE));
            CHECK_INT(in, rank % 2 ? 0 : 1);
        }
        int sum = -1, one = 1;
        CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, icd));
        CHECK_INT(sum, rsize);
        MPI_Comm_free(&icd);
        MPI_Comm_free(&ic);
        MPI_Comm_free(&half);
    }

    int rc = mt_finish("comm_idup");
    MPI_Finalize();
    return rc;
}
