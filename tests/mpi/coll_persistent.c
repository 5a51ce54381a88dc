/* SPDX-License-Identifier: MIT */
/* Persistent collectives (MPI 4.0, 6.13): every MPI_<collective>_init, started
 * several times with new data between the starts (Start, Startall, completed
 * by Wait, Waitall, Test loops), freed inactive and freed while active; the
 * persistent neighbourhood collectives on a periodic Cartesian ring; and the
 * large-count (_c) forms of the v and w collectives with MPI_Count / MPI_Aint
 * arrays, blocking, non-blocking and persistent. */
#include "mpitest.h"

static int rank, size;
enum { NP = 17, ITERS = 3 };

static int *ibuf(long n, int fill)
{
    int *b = mt_malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (long i = 0; i < n; i++) b[i] = fill;
    return b;
}
static int val(int r, long i, int salt) { return r * 1000003 + (int)i * 3 + salt; }

/* The buffers of one set of persistent collectives, count n, root root. */
typedef struct {
    long n;
    int root;
    int *bc, *rs, *rr, *ar, *gs, *gr, *ss, *sr, *ag;
    int *vc, *vd, *vs, *vgr, *vag, *vsr, *vss;
    int *ts, *tr, *tc, *td, *tdb, *tvr, *twr;
    MPI_Datatype *tt;
    int *rsi, *rsb, *rsv, *rc, *sc, *ex;
    long vt;
    MPI_Request req[NP];
} pset_t;

static void pset_init(pset_t *p, long n, int root)
{
    int N = size;
    p->n = n;
    p->root = root;
    p->bc = ibuf(n, -1);
    p->rs = ibuf(n, 0); p->rr = ibuf(n, -1); p->ar = ibuf(n, 0);
    p->gs = ibuf(n, 0); p->gr = ibuf(n * N, -1); p->ss = ibuf(n * N, 0); p->sr = ibuf(n, -1);
    p->ag = ibuf(n * N, -1);
    p->vc = mt_malloc(sizeof(int) * N); p->vd = mt_malloc(sizeof(int) * N);
    p->vt = 0;
    for (int i = 0; i < N; i++) { p->vc[i] = (int)(n ? n + i : 0); p->vd[i] = (int)p->vt; p->vt += p->vc[i]; }
    p->vs = ibuf(p->vc[rank], 0); p->vgr = ibuf(p->vt, -1); p->vag = ibuf(p->vt, -1);
    p->vsr = ibuf(p->vc[rank], -1); p->vss = ibuf(p->vt, 0);
    p->ts = ibuf(n * N, 0); p->tr = ibuf(n * N, -1);
    p->tc = mt_malloc(sizeof(int) * N); p->td = mt_malloc(sizeof(int) * N); p->tdb = mt_malloc(sizeof(int) * N);
    p->tt = mt_malloc(sizeof(MPI_Datatype) * N);
    for (int d = 0; d < N; d++) {
        p->tc[d] = (int)n; p->td[d] = (int)(d * n); p->tdb[d] = (int)(d * n * sizeof(int)); p->tt[d] = MPI_INT;
    }
    p->tvr = ibuf(n * N, -1); p->twr = ibuf(n * N, -1);
    p->rsi = ibuf(n * N, 0); p->rsb = ibuf(n, -1); p->rsv = ibuf(n, -1); p->sc = ibuf(n, -1); p->ex = ibuf(n, -1);
    p->rc = mt_malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) p->rc[i] = (int)n;

    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info in = MPI_INFO_NULL;
    MPI_Request *q = p->req;
    int ni = (int)n;
    CHECK_MPI(MPI_Bcast_init(p->bc, ni, MPI_INT, root, w, in, q++));
    CHECK_MPI(MPI_Reduce_init(p->rs, p->rr, ni, MPI_INT, MPI_SUM, root, w, in, q++));
    CHECK_MPI(MPI_Allreduce_init(MPI_IN_PLACE, p->ar, ni, MPI_INT, MPI_MAX, w, in, q++));
    CHECK_MPI(MPI_Gather_init(p->gs, ni, MPI_INT, p->gr, ni, MPI_INT, root, w, in, q++));
    CHECK_MPI(MPI_Scatter_init(p->ss, ni, MPI_INT, p->sr, ni, MPI_INT, root, w, in, q++));
    CHECK_MPI(MPI_Allgather_init(p->gs, ni, MPI_INT, p->ag, ni, MPI_INT, w, in, q++));
    CHECK_MPI(MPI_Gatherv_init(p->vs, p->vc[rank], MPI_INT, p->vgr, p->vc, p->vd, MPI_INT, root, w, in, q++));
    CHECK_MPI(MPI_Scatterv_init(p->vss, p->vc, p->vd, MPI_INT, p->vsr, p->vc[rank], MPI_INT, root, w, in, q++));
    CHECK_MPI(MPI_Allgatherv_init(p->vs, p->vc[rank], MPI_INT, p->vag, p->vc, p->vd, MPI_INT, w, in, q++));
    CHECK_MPI(MPI_Alltoall_init(p->ts, ni, MPI_INT, p->tr, ni, MPI_INT, w, in, q++));
    CHECK_MPI(MPI_Alltoallv_init(p->ts, p->tc, p->td, MPI_INT, p->tvr, p->tc, p->td, MPI_INT, w, in, q++));
    CHECK_MPI(MPI_Alltoallw_init(p->ts, p->tc, p->tdb, p->tt, p->twr, p->tc, p->tdb, p->tt, w, in, q++));
    CHECK_MPI(MPI_Reduce_scatter_block_init(p->rsi, p->rsb, ni, MPI_INT, MPI_SUM, w, in, q++));
    CHECK_MPI(MPI_Reduce_scatter_init(p->rsi, p->rsv, p->rc, MPI_INT, MPI_SUM, w, in, q++));
    CHECK_MPI(MPI_Scan_init(p->gs, p->sc, ni, MPI_INT, MPI_SUM, w, in, q++));
    CHECK_MPI(MPI_Exscan_init(p->gs, p->ex, ni, MPI_INT, MPI_SUM, w, in, q++));
    CHECK_MPI(MPI_Barrier_init(w, in, q++));
    CHECK_INT((int)(q - p->req), NP);
}

/* New send data for one start. */
static void pset_fill(pset_t *p, int salt)
{
    long n = p->n;
    int N = size;
    if (rank == p->root) for (long i = 0; i < n; i++) p->bc[i] = val(p->root, i, salt);
    for (long i = 0; i < n; i++) p->rs[i] = p->ar[i] = p->gs[i] = val(rank, i, salt);
    for (long i = 0; i < n * N; i++) p->ss[i] = val(p->root, i, salt);
    for (long i = 0; i < p->vc[rank]; i++) p->vs[i] = val(rank, i, salt + 2);
    for (int r = 0; r < N; r++) for (long i = 0; i < p->vc[r]; i++) p->vss[p->vd[r] + i] = val(r, i, salt + 3);
    for (int d = 0; d < N; d++) for (long i = 0; i < n; i++) p->ts[d * n + i] = val(rank, d * n + i, salt);
    for (long i = 0; i < n * N; i++) p->rsi[i] = val(rank, i, salt);
}

static void pset_check(pset_t *p, int salt)
{
    long n = p->n;
    int N = size, root = p->root;
    for (long i = 0; i < n; i++) {
        CHECK_INT(p->bc[i], val(root, i, salt));
        long sum = 0, pre = 0;
        for (int r = 0; r < N; r++) { sum += val(r, i, salt); if (r < rank) pre += val(r, i, salt); }
        if (rank == root) CHECK_INT(p->rr[i], (int)sum);
        CHECK_INT(p->ar[i], val(N - 1, i, salt));
        CHECK_INT(p->sr[i], val(root, rank * n + i, salt));
        CHECK_INT(p->sc[i], (int)(pre + val(rank, i, salt)));
        if (rank > 0) CHECK_INT(p->ex[i], (int)pre);
        long bs = 0;
        for (int r = 0; r < N; r++) bs += val(r, rank * n + i, salt);
        CHECK_INT(p->rsb[i], (int)bs);
        CHECK_INT(p->rsv[i], (int)bs);
    }
    for (int r = 0; r < N; r++)
        for (long i = 0; i < n; i++) {
            if (rank == root) CHECK_INT(p->gr[r * n + i], val(r, i, salt));
            CHECK_INT(p->ag[r * n + i], val(r, i, salt));
            CHECK_INT(p->tr[r * n + i], val(r, rank * n + i, salt));
            CHECK_INT(p->tvr[r * n + i], val(r, rank * n + i, salt));
            CHECK_INT(p->twr[r * n + i], val(r, rank * n + i, salt));
        }
    for (int r = 0; r < N; r++)
        for (long i = 0; i < p->vc[r]; i++) {
            if (rank == root) CHECK_INT(p->vgr[p->vd[r] + i], val(r, i, salt + 2));
            CHECK_INT(p->vag[p->vd[r] + i], val(r, i, salt + 2));
        }
    for (long i = 0; i < p->vc[rank]; i++) CHECK_INT(p->vsr[i], val(rank, i, salt + 3));
}

static void pset_free(pset_t *p)
{
    for (int i = 0; i < NP; i++) {
        CHECK_MPI(MPI_Request_free(&p->req[i]));
        CHECK(p->req[i] == MPI_REQUEST_NULL, "request %d not nulled by MPI_Request_free", i);
    }
    free(p->bc); free(p->rs); free(p->rr); free(p->ar); free(p->gs); free(p->gr); free(p->ss);
    free(p->sr); free(p->ag); free(p->vc); free(p->vd); free(p->vs); free(p->vgr); free(p->vag);
    free(p->vsr); free(p->vss); free(p->ts); free(p->tr); free(p->tc); free(p->td); free(p->tdb);
    free(p->tt); free(p->tvr); free(p->twr); free(p->rsi); free(p->rsb); free(p->rsv); free(p->rc);
    free(p->sc); free(p->ex);
}

/* Complete the started set: Waitall, Wait one by one in reverse, or Test loops. */
static void pset_complete(pset_t *p, int how)
{
    if (how % 3 == 0) {
        CHECK_MPI(MPI_Waitall(NP, p->req, MPI_STATUSES_IGNORE));
    } else if (how % 3 == 1) {
        for (int i = NP - 1; i >= 0; i--) CHECK_MPI(MPI_Wait(&p->req[i], MPI_STATUS_IGNORE));
    } else {
        int done = 0;
        while (!done) CHECK_MPI(MPI_Testall(NP, p->req, &done, MPI_STATUSES_IGNORE));
    }
    /* completed persistent requests stay allocated (inactive) */
    for (int i = 0; i < NP; i++) CHECK(p->req[i] != MPI_REQUEST_NULL, "persistent request %d freed", i);
}

static void test_persistent(long n, int root, int *salt)
{
    pset_t p;
    pset_init(&p, n, root);
    for (int it = 0; it < ITERS; it++) {
        *salt += 10;
        pset_fill(&p, *salt);
        if (it % 2 == 0) {
            CHECK_MPI(MPI_Startall(NP, p.req));
        } else {
            for (int i = 0; i < NP; i++) CHECK_MPI(MPI_Start(&p.req[i]));
        }
        pset_complete(&p, it + rank);
        pset_check(&p, *salt);
    }
    /* a Wait on an inactive persistent request returns at once, empty status */
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&p.req[0], &st));
    CHECK_INT(st.MPI_SOURCE, MPI_ANY_SOURCE);
    pset_free(&p);
}

/* Free an active persistent allreduce: the run goes on and finishes by itself. */
static void test_free_active(void)
{
    int in = rank + 1, out = -1;
    MPI_Request r;
    CHECK_MPI(MPI_Allreduce_init(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Request_free(&r));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));   /* progresses the freed run */
    int again = -1;
    CHECK_MPI(MPI_Allreduce(&in, &again, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(again, size * (size + 1) / 2);
}

/* The persistent neighbourhood collectives on a periodic ring (a process may
 * be its own neighbour, or the same neighbour on both sides). */
static void test_neighbor(int *salt)
{
    MPI_Comm ring;
    int dims[1] = { size }, periods[1] = { 1 };
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    enum { K = 3 };
    int sb[2 * K], ag[2 * K], a2a[2 * K], agv[2 * K + 2], a2av[2 * K], a2aw[2 * K];
    int cnt[2] = { K, K }, dsp[2] = { 0, K + 2 }, adsp[2] = { 0, K };
    MPI_Aint bdsp[2] = { 0, K * sizeof(int) };
    MPI_Datatype tys[2] = { MPI_INT, MPI_INT };
    MPI_Request r[5];
    MPI_Info in = MPI_INFO_NULL;
    CHECK_MPI(MPI_Neighbor_allgather_init(sb, K, MPI_INT, ag, K, MPI_INT, ring, in, &r[0]));
    CHECK_MPI(MPI_Neighbor_alltoall_init(sb, K, MPI_INT, a2a, K, MPI_INT, ring, in, &r[1]));
    CHECK_MPI(MPI_Neighbor_allgatherv_init(sb, K, MPI_INT, agv, cnt, dsp, MPI_INT, ring, in, &r[2]));
    CHECK_MPI(MPI_Neighbor_alltoallv_init(sb, cnt, adsp, MPI_INT, a2av, cnt, adsp, MPI_INT, ring, in, &r[3]));
    CHECK_MPI(MPI_Neighbor_alltoallw_init(sb, cnt, bdsp, tys, a2aw, cnt, bdsp, tys, ring, in, &r[4]));
    for (int it = 0; it < ITERS; it++) {
        *salt += 10;
        for (int i = 0; i < 2 * K; i++) sb[i] = val(rank, i, *salt);
        for (int i = 0; i < 2 * K; i++) ag[i] = a2a[i] = a2av[i] = a2aw[i] = -1;
        for (int i = 0; i < 2 * K + 2; i++) agv[i] = -1;
        CHECK_MPI(MPI_Startall(5, r));
        CHECK_MPI(MPI_Waitall(5, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < K; i++) {
            /* allgather: block 0 from the left neighbour, block 1 from the right */
            CHECK_INT(ag[i], val(left, i, *salt));
            CHECK_INT(ag[K + i], val(right, i, *salt));
            CHECK_INT(agv[i], val(left, i, *salt));
            CHECK_INT(agv[K + 2 + i], val(right, i, *salt));
            /* alltoall: the left neighbour's block for its right (1), the right's for its left (0) */
            CHECK_INT(a2a[i], val(left, K + i, *salt));
            CHECK_INT(a2a[K + i], val(right, i, *salt));
            CHECK_INT(a2av[i], val(left, K + i, *salt));
            CHECK_INT(a2av[K + i], val(right, i, *salt));
            CHECK_INT(a2aw[i], val(left, K + i, *salt));
            CHECK_INT(a2aw[K + i], val(right, i, *salt));
        }
        CHECK_INT(agv[K], -1);
        CHECK_INT(agv[K + 1], -1);
    }
    for (int i = 0; i < 5; i++) CHECK_MPI(MPI_Request_free(&r[i]));
    CHECK_MPI(MPI_Comm_free(&ring));
}

/* Large-count forms: MPI_Count counts and MPI_Aint displacements. */
static void test_large_count(int *salt)
{
    int N = size;
    *salt += 10;
    MPI_Count *cc = mt_malloc(sizeof(MPI_Count) * N);
    MPI_Aint *dd = mt_malloc(sizeof(MPI_Aint) * N), *bd = mt_malloc(sizeof(MPI_Aint) * N);
    MPI_Datatype *tt = mt_malloc(sizeof(MPI_Datatype) * N);
    long total = 0;
    for (int i = 0; i < N; i++) {
        cc[i] = i + 2;
        dd[i] = total + i;   /* a gap of i before each block */
        total += cc[i] + i;
        tt[i] = MPI_INT;
    }
    int mine = rank + 2;
    int *s = ibuf(mine, 0), *g = ibuf(total, -1), *a = ibuf(total, -1);
    for (int i = 0; i < mine; i++) s[i] = val(rank, i, *salt);
    CHECK_MPI(MPI_Gatherv_c(s, mine, MPI_INT, g, cc, dd, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_Request r;
    CHECK_MPI(MPI_Iallgatherv_c(s, mine, MPI_INT, a, cc, dd, MPI_INT, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int p = 0; p < N; p++)
        for (int i = 0; i < cc[p]; i++) {
            if (rank == 0) CHECK_INT(g[dd[p] + i], val(p, i, *salt));
            CHECK_INT(a[dd[p] + i], val(p, i, *salt));
        }
    /* scatterv_c from the last rank, persistent, started twice */
    int *sv = ibuf(total, 0), *rv = ibuf(mine, -1);
    CHECK_MPI(MPI_Scatterv_init_c(sv, cc, dd, MPI_INT, rv, mine, MPI_INT, N - 1, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &r));
    for (int it = 0; it < 2; it++) {
        for (int p = 0; p < N; p++) for (int i = 0; i < cc[p]; i++) sv[dd[p] + i] = val(p, i, *salt + it);
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < mine; i++) CHECK_INT(rv[i], val(rank, i, *salt + it));
    }
    CHECK_MPI(MPI_Request_free(&r));
    /* alltoallv_c / alltoallw_c: two ints to and from everyone */
    for (int i = 0; i < N; i++) { cc[i] = 2; dd[i] = 2 * i; bd[i] = (MPI_Aint)(2 * i * sizeof(int)); }
    int *ts = ibuf(2 * N, 0), *tv = ibuf(2 * N, -1), *tw = ibuf(2 * N, -1);
    for (int i = 0; i < 2 * N; i++) ts[i] = val(rank, i, *salt);
    CHECK_MPI(MPI_Alltoallv_c(ts, cc, dd, MPI_INT, tv, cc, dd, MPI_INT, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ialltoallw_c(ts, cc, bd, tt, tw, cc, bd, tt, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int p = 0; p < N; p++)
        for (int i = 0; i < 2; i++) {
            CHECK_INT(tv[2 * p + i], val(p, 2 * rank + i, *salt));
            CHECK_INT(tw[2 * p + i], val(p, 2 * rank + i, *salt));
        }
    /* reduce_scatter_c with MPI_Count counts, bcast_c, reduce_c */
    int *rsin = ibuf(2 * N, 0), rsout[2] = { -1, -1 };
    for (int i = 0; i < 2 * N; i++) rsin[i] = val(rank, i, *salt);
    CHECK_MPI(MPI_Reduce_scatter_c(rsin, rsout, cc, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 2; i++) {
        long sum = 0;
        for (int p = 0; p < N; p++) sum += val(p, 2 * rank + i, *salt);
        CHECK_INT(rsout[i], (int)sum);
    }
    MPI_Count one = 1;
    int b = rank == 0 ? 4242 : -1;
    CHECK_MPI(MPI_Bcast_c(&b, one, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK_INT(b, 4242);
    free(cc); free(dd); free(bd); free(tt); free(s); free(g); free(a); free(sv); free(rv);
    free(ts); free(tv); free(tw); free(rsin);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static const long ns[] = { 0, 1, 7, 5000 };
    int salt = 0;
    for (int k = 0; k < 4; k++)
        for (int root = 0; root < size; root++) {
            if (ns[k] == 5000 && root != size - 1) continue;
            test_persistent(ns[k], root, &salt);
        }
    test_free_active();
    test_neighbor(&salt);
    test_large_count(&salt);
    return mt_finish("coll_persistent") | (MPI_Finalize() != MPI_SUCCESS);
}
