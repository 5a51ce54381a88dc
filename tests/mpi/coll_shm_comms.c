/* SPDX-License-Identifier: MIT */
/* Collectives on sub-communicators, and what the node's shared-memory
 * collective areas (src/coll/coll_shm.c) must get right beyond one call:
 * communicators made by splits (even/odd ranks, the first three ranks) with
 * Barrier, Bcast, Reduce, Allreduce, Gather, Scatter, Allgather and Alltoall
 * at small, eager and large sizes (the large ones above the single-copy
 * thresholds), a non-commutative user op at every size (rank order must be
 * kept), blocking calls mixed with non-blocking and persistent ones on the
 * same communicator, many communicators created and freed (each gets its own
 * area), and no segment left in /dev/shm afterwards.  Every result is
 * checked element by element.  Works under any MPI. */
#include <dirent.h>
#include <unistd.h>
#include "mpitest.h"

static int wrank, wsize;

/* Non-commutative: a "digit string" (value, number of digits), a op b =
 * a's digits followed by b's.  The ranks' digits are rank % 9 + 1. */
typedef struct {
    long long v, len;
} digits_t;
static MPI_Datatype digits_dt;
static MPI_Op concat_op;

static long long pow10ll(long long n)
{
    long long r = 1;
    while (n-- > 0) r *= 10;
    return r;
}
static void concat_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    digits_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        b[i].v = a[i].v * pow10ll(b[i].len) + b[i].v;
        b[i].len += a[i].len;
    }
}
/* The digit string of ranks 0 .. p-1 for element i (mod 1e18 safe: p <= 8). */
static digits_t concat_want(int p, long i)
{
    digits_t d = { 0, 0 };
    for (int r = 0; r < p; r++) d.v = d.v * 10 + (r + i) % 9 + 1, d.len++;
    return d;
}

static const long sizes[] = { 1, 100, 3000, 70000 };   /* ints: small, eager, above 8 KiB, large */
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

static int val(int r, long i, int tag)
{
    return r * 100003 + (int)(i % 100000) * 7 + tag;
}

static void run_comm(MPI_Comm c, int tag)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    CHECK_MPI(MPI_Barrier(c));
    for (int si = 0; si < NSIZES; si++) {
        long n = sizes[si];
        int *a = mt_malloc((size_t)n * p * sizeof(int)), *b = mt_malloc((size_t)n * p * sizeof(int));
        int root = (int)(si + tag) % p;
        /* Bcast */
        for (long i = 0; i < n; i++) a[i] = me == root ? val(root, i, tag) : -1;
        CHECK_MPI(MPI_Bcast(a, (int)n, MPI_INT, root, c));
        for (long i = 0; i < n; i++)
            if (a[i] != val(root, i, tag)) { CHECK_INT(a[i], val(root, i, tag)); break; }
        /* Allreduce (sum) and Reduce (max) */
        for (long i = 0; i < n; i++) a[i] = val(me, i, tag);
        CHECK_MPI(MPI_Allreduce(a, b, (int)n, MPI_INT, MPI_SUM, c));
        for (long i = 0; i < n; i++) {
            long long w = 0;
            for (int r = 0; r < p; r++) w += val(r, i, tag);
            if (b[i] != (int)w) { CHECK_INT(b[i], (int)w); break; }
        }
        for (long i = 0; i < n; i++) b[i] = -1;
        CHECK_MPI(MPI_Reduce(a, b, (int)n, MPI_INT, MPI_MAX, root, c));
        if (me == root)
            for (long i = 0; i < n; i++)
                if (b[i] != val(p - 1, i, tag)) { CHECK_INT(b[i], val(p - 1, i, tag)); break; }
        /* Allreduce in place, non-commutative */
        long m = n < 20000 ? n : 20000;
        digits_t *d = mt_malloc((size_t)m * sizeof *d);
        for (long i = 0; i < m; i++) d[i] = (digits_t){ (me + i) % 9 + 1, 1 };
        CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, d, (int)m, digits_dt, concat_op, c));
        for (long i = 0; i < m; i++) {
            digits_t w = concat_want(p, i);
            if (d[i].v != w.v || d[i].len != w.len) { CHECK_INT(d[i].v, w.v); break; }
        }
        free(d);
        /* Gather, Scatter, Allgather, Alltoall: blocks of n / p ints (at least 1) */
        long k = n / p > 0 ? n / p : 1;
        int *blk = mt_malloc((size_t)k * p * sizeof(int));
        for (long i = 0; i < k; i++) blk[i] = val(me, i, tag);
        for (long i = 0; i < k * p; i++) b[i] = -1;
        CHECK_MPI(MPI_Gather(blk, (int)k, MPI_INT, b, (int)k, MPI_INT, root, c));
        if (me == root)
            for (int r = 0; r < p; r++)
                for (long i = 0; i < k; i++)
                    if (b[r * k + i] != val(r, i, tag)) { CHECK_INT(b[r * k + i], val(r, i, tag)); r = p; break; }
        for (long i = 0; i < k * p; i++) a[i] = me == root ? val(i / k, i % k, tag + 1) : -1;
        CHECK_MPI(MPI_Scatter(a, (int)k, MPI_INT, blk, (int)k, MPI_INT, root, c));
        for (long i = 0; i < k; i++)
            if (blk[i] != val(me, i, tag + 1)) { CHECK_INT(blk[i], val(me, i, tag + 1)); break; }
        for (long i = 0; i < k; i++) blk[i] = val(me, i, tag + 2);
        CHECK_MPI(MPI_Allgather(blk, (int)k, MPI_INT, b, (int)k, MPI_INT, c));
        for (int r = 0; r < p; r++)
            for (long i = 0; i < k; i++)
                if (b[r * k + i] != val(r, i, tag + 2)) { CHECK_INT(b[r * k + i], val(r, i, tag + 2)); r = p; break; }
        /* alltoall: block for rank r from me is val(me * 16 + r, i) */
        for (int r = 0; r < p; r++)
            for (long i = 0; i < k; i++) a[r * k + i] = val(me * 16 + r, i, tag);
        CHECK_MPI(MPI_Alltoall(a, (int)k, MPI_INT, b, (int)k, MPI_INT, c));
        for (int r = 0; r < p; r++)
            for (long i = 0; i < k; i++)
                if (b[r * k + i] != val(r * 16 + me, i, tag)) { CHECK_INT(b[r * k + i], val(r * 16 + me, i, tag)); r = p; break; }
        free(blk);
        free(a);
        free(b);
    }
}

/* Blocking, non-blocking and persistent collectives interleaved on c. */
static void run_mixed(MPI_Comm c)
{
    int me, p;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &p);
    enum { N = 5000 };
    int *x = mt_malloc(N * sizeof(int)), *y = mt_malloc(N * sizeof(int)),
        *u = mt_malloc(N * sizeof(int)), *v = mt_malloc(N * sizeof(int));
    int one = me + 1, psum = 0, bsum = 0;
    MPI_Request pr, nr;
    CHECK_MPI(MPI_Allreduce_init(&one, &psum, 1, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &pr));
    for (int it = 0; it < 20; it++) {
        for (int i = 0; i < N; i++) x[i] = val(me, i, it), u[i] = val(me, i, it + 1);
        CHECK_MPI(MPI_Start(&pr));
        CHECK_MPI(MPI_Iallreduce(x, y, N, MPI_INT, MPI_SUM, c, &nr));
        CHECK_MPI(MPI_Allreduce(u, v, N, MPI_INT, MPI_SUM, c));   /* while both are pending */
        CHECK_MPI(MPI_Allreduce(&one, &bsum, 1, MPI_INT, MPI_SUM, c));
        CHECK_MPI(MPI_Wait(&nr, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&pr, MPI_STATUS_IGNORE));
        CHECK_INT(psum, p * (p + 1) / 2);
        CHECK_INT(bsum, p * (p + 1) / 2);
        for (int i = 0; i < N; i++) {
            long long wy = 0, wv = 0;
            for (int r = 0; r < p; r++) wy += val(r, i, it), wv += val(r, i, it + 1);
            if (y[i] != (int)wy || v[i] != (int)wv) {
                CHECK_INT(y[i], (int)wy);
                CHECK_INT(v[i], (int)wv);
                break;
            }
        }
    }
    CHECK_MPI(MPI_Request_free(&pr));
    free(x); free(y); free(u); free(v);
}

/* Segments of the collective areas still named in /dev/shm (Courier names
 * them <job segment>.coll.<pid>.<n>).  A job beside this one may hold one for
 * an instant while its ranks attach: look again before calling it a leak. */
static int leftover_segments(void)
{
    for (int tries = 0; tries < 50; tries++) {
        int found = 0;
        DIR *d = opendir("/dev/shm");
        if (!d) return 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (strstr(e->d_name, ".coll.")) found++;
        closedir(d);
        if (!found) return 0;
        usleep(100000);
    }
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Type_contiguous(2, MPI_LONG_LONG, &digits_dt);
    MPI_Type_commit(&digits_dt);
    MPI_Op_create(concat_fn, 0, &concat_op);

    run_comm(MPI_COMM_WORLD, 1);
    MPI_Comm half, first3;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wsize - wrank, &half));   /* reversed order */
    run_comm(half, 2);
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank < 3 ? 0 : MPI_UNDEFINED, wrank, &first3));
    if (first3 != MPI_COMM_NULL) {
        run_comm(first3, 3);
        run_mixed(first3);
        CHECK_MPI(MPI_Comm_free(&first3));
    }
    run_mixed(MPI_COMM_WORLD);
    run_mixed(half);
    CHECK_MPI(MPI_Comm_free(&half));
    /* many communicators, each with its own area */
    for (int i = 0; i < 100; i++) {
        MPI_Comm d;
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &d));
        int x = wrank + i, s = 0;
        CHECK_MPI(MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, d));
        CHECK_INT(s, wsize * (wsize - 1) / 2 + wsize * i);
        CHECK_MPI(MPI_Barrier(d));
        CHECK_MPI(MPI_Comm_free(&d));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0) CHECK(!leftover_segments(), "a collective segment is left in /dev/shm");
    MPI_Op_free(&concat_op);
    MPI_Type_free(&digits_dt);
    int rc = mt_finish("coll_shm_comms");
    MPI_Finalize();
    return rc;
}
