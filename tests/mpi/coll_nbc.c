/* SPDX-License-Identifier: MIT */
/* Non-blocking collectives: every MPI_I<collective> with data checks, small
 * and past the eager limit, MPI_IN_PLACE where allowed; then several
 * outstanding on one communicator at once (same kind and same root too),
 * completed in an order that differs between ranks (Wait in reverse,
 * Waitall, Testany, Testsome loops), overlapping with point-to-point traffic
 * and with blocking collectives, and an Ibarrier that must not complete
 * before every rank has entered it. */
#include <unistd.h>
#include "coll_common.h"

static int rank, size;
enum { NB_MAX = 32 };

/* The pending operations of one round and their checks */
typedef struct {
    MPI_Request req[NB_MAX];
    int n;
} batch_t;

static int *ibuf(long n, int fill)
{
    int *b = mt_malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (long i = 0; i < n; i++) b[i] = fill;
    return b;
}
static int val(int r, long i, int salt) { return r * 1000003 + (int)i * 3 + salt; }

/* Complete a batch in a rank-dependent order. */
static void complete(batch_t *b, int how)
{
    switch (how % 4) {
    case 0:
        for (int i = b->n - 1; i >= 0; i--) CHECK_MPI(MPI_Wait(&b->req[i], MPI_STATUS_IGNORE));
        break;
    case 1:
        CHECK_MPI(MPI_Waitall(b->n, b->req, MPI_STATUSES_IGNORE));
        break;
    case 2: {
        int left = b->n;
        while (left) {
            int idx, flag;
            CHECK_MPI(MPI_Testany(b->n, b->req, &idx, &flag, MPI_STATUS_IGNORE));
            if (flag && idx != MPI_UNDEFINED) left--;
        }
        break;
    }
    default: {
        int left = b->n, out, idx[NB_MAX];
        while (left) {
            CHECK_MPI(MPI_Testsome(b->n, b->req, &out, idx, MPI_STATUSES_IGNORE));
            if (out != MPI_UNDEFINED) left -= out;
        }
        break;
    }
    }
    for (int i = 0; i < b->n; i++) CHECK(b->req[i] == MPI_REQUEST_NULL, "request %d not freed", i);
    b->n = 0;
}

/* One round: start every kind of non-blocking collective with count n, then
 * complete them all in order `how`, then check. */
static void round_all(long n, int root, int how, int salt)
{
    batch_t b = { .n = 0 };
    int N = size;
    /* Ibcast */
    int *bc = ibuf(n, -1);
    if (rank == root) for (long i = 0; i < n; i++) bc[i] = val(root, i, salt);
    CHECK_MPI(MPI_Ibcast(bc, (int)n, MPI_INT, root, MPI_COMM_WORLD, &b.req[b.n++]));
    /* a second Ibcast from the same root, different data */
    int *bc2 = ibuf(n, -1);
    if (rank == root) for (long i = 0; i < n; i++) bc2[i] = val(root, i, salt + 1);
    CHECK_MPI(MPI_Ibcast(bc2, (int)n, MPI_INT, root, MPI_COMM_WORLD, &b.req[b.n++]));
    /* Ireduce, Iallreduce (in place) */
    int *rs = ibuf(n, 0), *rr = ibuf(n, -1), *ar = ibuf(n, 0);
    for (long i = 0; i < n; i++) rs[i] = ar[i] = val(rank, i, salt);
    CHECK_MPI(MPI_Ireduce(rs, rr, (int)n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, &b.req[b.n++]));
    CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, ar, (int)n, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &b.req[b.n++]));
    /* Igather, Iscatter, Iallgather */
    int *gs = ibuf(n, 0), *gr = ibuf(n * N, -1), *ss = ibuf(n * N, 0), *sr = ibuf(n, -1), *ag = ibuf(n * N, -1);
    for (long i = 0; i < n; i++) gs[i] = val(rank, i, salt);
    for (long i = 0; i < n * N; i++) ss[i] = val(root, i, salt);
    CHECK_MPI(MPI_Igather(gs, (int)n, MPI_INT, gr, (int)n, MPI_INT, root, MPI_COMM_WORLD, &b.req[b.n++]));
    CHECK_MPI(MPI_Iscatter(ss, (int)n, MPI_INT, sr, (int)n, MPI_INT, root, MPI_COMM_WORLD, &b.req[b.n++]));
    CHECK_MPI(MPI_Iallgather(gs, (int)n, MPI_INT, ag, (int)n, MPI_INT, MPI_COMM_WORLD, &b.req[b.n++]));
    /* v forms: rank i contributes n + i elements */
    int *vc = mt_malloc(sizeof(int) * N), *vd = mt_malloc(sizeof(int) * N);
    long vt = 0;
    for (int i = 0; i < N; i++) { vc[i] = (int)(n ? n + i : 0); vd[i] = (int)vt; vt += vc[i]; }
    int *vs = ibuf(vc[rank], 0), *vgr = ibuf(vt, -1), *vag = ibuf(vt, -1), *vsr = ibuf(vc[rank], -1);
    int *vss = ibuf(vt, 0);
    for (long i = 0; i < vc[rank]; i++) vs[i] = val(rank, i, salt + 2);
    for (int r = 0; r < N; r++) for (long i = 0; i < vc[r]; i++) vss[vd[r] + i] = val(r, i, salt + 3);
    CHECK_MPI(MPI_Igatherv(vs, vc[rank], MPI_INT, vgr, vc, vd, MPI_INT, root, MPI_COMM_WORLD, &b.req[b.n++]));
    CHECK_MPI(MPI_Iscatterv(vss, vc, vd, MPI_INT, vsr, vc[rank], MPI_INT, root, MPI_COMM_WORLD, &b.req[b.n++]));
    CHECK_MPI(MPI_Iallgatherv(vs, vc[rank], MPI_INT, vag, vc, vd, MPI_INT, MPI_COMM_WORLD, &b.req[b.n++]));
    /* Ialltoall, Ialltoallv, Ialltoallw (same layout as v, with MPI_INT) */
    int *ts = ibuf(n * N, 0), *tr = ibuf(n * N, -1);
    for (int d = 0; d < N; d++) for (long i = 0; i < n; i++) ts[d * n + i] = val(rank, d * n + i, salt);
    CHECK_MPI(MPI_Ialltoall(ts, (int)n, MPI_INT, tr, (int)n, MPI_INT, MPI_COMM_WORLD, &b.req[b.n++]));
    int *tc = mt_malloc(sizeof(int) * N), *td = mt_malloc(sizeof(int) * N), *tdb = mt_malloc(sizeof(int) * N);
    MPI_Datatype *tt = mt_malloc(sizeof(MPI_Datatype) * N);
    for (int d = 0; d < N; d++) { tc[d] = (int)n; td[d] = (int)(d * n); tdb[d] = (int)(d * n * sizeof(int)); tt[d] = MPI_INT; }
    int *tvr = ibuf(n * N, -1), *twr = ibuf(n * N, -1);
    CHECK_MPI(MPI_Ialltoallv(ts, tc, td, MPI_INT, tvr, tc, td, MPI_INT, MPI_COMM_WORLD, &b.req[b.n++]));
    CHECK_MPI(MPI_Ialltoallw(ts, tc, tdb, tt, twr, tc, tdb, tt, MPI_COMM_WORLD, &b.req[b.n++]));
    /* Ireduce_scatter_block, Ireduce_scatter, Iscan, Iexscan */
    int *rsi = ibuf(n * N, 0), *rsb = ibuf(n, -1), *rsv = ibuf(n, -1), *sc = ibuf(n, -1), *ex = ibuf(n, -1);
    for (long i = 0; i < n * N; i++) rsi[i] = val(rank, i, salt);
    int *rc = mt_malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) rc[i] = (int)n;
    CHECK_MPI(MPI_Ireduce_scatter_block(rsi, rsb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &b.req[b.n++]));
    CHECK_MPI(MPI_Ireduce_scatter(rsi, rsv, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &b.req[b.n++]));
    CHECK_MPI(MPI_Iscan(gs, sc, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &b.req[b.n++]));
    CHECK_MPI(MPI_Iexscan(gs, ex, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &b.req[b.n++]));
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &b.req[b.n++]));

    /* overlapping point-to-point: a ring exchange while all of that is pending */
    int token = rank * 7 + salt, got = -1;
    CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % N, salt, &got, 1, MPI_INT,
                           (rank - 1 + N) % N, salt, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_INT(got, ((rank - 1 + N) % N) * 7 + salt);

    complete(&b, how + rank);

    for (long i = 0; i < n; i++) {
        CHECK_INT(bc[i], val(root, i, salt));
        CHECK_INT(bc2[i], val(root, i, salt + 1));
        long sum = 0, pre = 0;
        int mx = val(N - 1, i, salt);
        for (int r = 0; r < N; r++) { sum += val(r, i, salt); if (r < rank) pre += val(r, i, salt); }
        if (rank == root) CHECK_INT(rr[i], (int)sum);
        CHECK_INT(ar[i], mx);
        CHECK_INT(sr[i], val(root, rank * n + i, salt));
        CHECK_INT(sc[i], (int)(pre + val(rank, i, salt)));
        if (rank > 0) CHECK_INT(ex[i], (int)pre);
        long bs = 0;
        for (int r = 0; r < N; r++) bs += val(r, rank * n + i, salt);
        CHECK_INT(rsb[i], (int)bs);
        CHECK_INT(rsv[i], (int)bs);
    }
    for (int r = 0; r < N; r++)
        for (long i = 0; i < n; i++) {
            if (rank == root) CHECK_INT(gr[r * n + i], val(r, i, salt));
            CHECK_INT(ag[r * n + i], val(r, i, salt));
            CHECK_INT(tr[r * n + i], val(r, rank * n + i, salt));
            CHECK_INT(tvr[r * n + i], val(r, rank * n + i, salt));
            CHECK_INT(twr[r * n + i], val(r, rank * n + i, salt));
        }
    for (int r = 0; r < N; r++)
        for (long i = 0; i < vc[r]; i++) {
            if (rank == root) CHECK_INT(vgr[vd[r] + i], val(r, i, salt + 2));
            CHECK_INT(vag[vd[r] + i], val(r, i, salt + 2));
        }
    for (long i = 0; i < vc[rank]; i++) CHECK_INT(vsr[i], val(rank, i, salt + 3));
    free(bc); free(bc2); free(rs); free(rr); free(ar); free(gs); free(gr); free(ss); free(sr);
    free(ag); free(vc); free(vd); free(vs); free(vgr); free(vag); free(vsr); free(vss); free(ts);
    free(tr); free(tc); free(td); free(tdb); free(tt); free(tvr); free(twr); free(rsi); free(rsb);
    free(rsv); free(sc); free(ex); free(rc);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const long ns[] = { 0, 1, 7, 5000 };
    int salt = 0;
    for (int k = 0; k < 4; k++)
        for (int root = 0; root < size; root++)
            for (int how = 0; how < 4; how++) {
                if (ns[k] == 5000 && how != root % 4) continue;
                round_all(ns[k], root, how, salt += 10);
            }

    /* Ibarrier must not complete before everyone entered: rank 0 enters late
     * and sends a message first; the others must have it once the barrier is done. */
    {
        MPI_Request r;
        int flag = 0, v = -1;
        if (rank == 0) {
            usleep(100000);
            for (int i = 1; i < size; i++) CHECK_MPI(MPI_Send(&i, 1, MPI_INT, i, 99, MPI_COMM_WORLD));
        }
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
        if (rank != 0) {
            CHECK_MPI(MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            while (!flag) {
                int done = 0;
                CHECK_MPI(MPI_Test(&r, &done, MPI_STATUS_IGNORE));
                /* done before rank 0's message arrived would be wrong; the message
                 * was sent before rank 0 entered, so it is visible by then */
                CHECK_MPI(MPI_Iprobe(0, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
                if (done) { CHECK(flag, "Ibarrier completed before rank 0 entered it"); r = MPI_REQUEST_NULL; break; }
            }
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_INT(v, rank);
        }
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }

    /* a non-blocking collective pending across blocking ones */
    {
        long n = 20000;
        int *a = ibuf(n, rank + 1), b = rank, c = -1;
        MPI_Request r;
        CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, a, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Bcast(&b, 1, MPI_INT, size - 1, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Allreduce(&rank, &c, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_INT(b, size - 1);
        CHECK_INT(c, size - 1);
        for (long i = 0; i < n; i++) { if (a[i] != size * (size + 1) / 2) { CHECK_INT(a[i], size * (size + 1) / 2); break; } }
        free(a);
    }

    /* many small ones outstanding at once */
    {
        enum { M = 64 };
        MPI_Request r[M];
        int in[M], out[M];
        for (int i = 0; i < M; i++) {
            in[i] = rank + i;
            CHECK_MPI(MPI_Iallreduce(&in[i], &out[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[i]));
        }
        for (int i = M - 1; i >= 0; i--) CHECK_MPI(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
        for (int i = 0; i < M; i++) CHECK_INT(out[i], size * (size - 1) / 2 + size * i);
    }
    return mt_finish("coll_nbc") | (MPI_Finalize() != MPI_SUCCESS);
}
