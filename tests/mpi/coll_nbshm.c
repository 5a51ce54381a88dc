/* SPDX-License-Identifier: MIT */
/* Non-blocking and persistent barrier, bcast, reduce, allreduce, gather and
 * allgather on one node, which Courier runs through the communicator's
 * shared collective area once a blocking call made it (src/coll/coll_nbshm.c):
 * data checked at 0 B, 8 B, a cache line, 4 KiB, 64 KiB and 256 KiB (above
 * the default slot), in place where allowed; several calls outstanding on
 * one communicator, completed in reverse order and with MPI_Waitall; blocking
 * calls between a non-blocking call and its wait (MPI_Ibarrier; MPI_Bcast;
 * MPI_Wait, and more); persistent calls started many times with new data
 * between the starts, freed inactive and freed while active; the first calls
 * of a new communicator, before its area exists; a non-commutative user op on
 * a derived type (the product in rank order, also persistent with the type
 * and op freed after the init) and double sums bitwise the blocking call's.
 *
 * NBSHM_EXPECT=on or off says whether COURIER_COLL_NB_SHM is on; Courier's
 * coll_<x>_algorithm performance variables then say whether the shm
 * algorithm ran (on: for blocks up to 4 KiB once the area exists; never above
 * the slot, but for bcast, which takes single copy there where it works, not
 * checked; off: never).  Other MPIs: only the data are checked. */
#include "coll_nbvars.h"
#include <time.h>

static int rank, size, expect = -1;
/* a failed data check, counted; 1 (stops the loop over the elements) */
#define CHECK_FAIL(...) (mt_fail_(__FILE__, __LINE__, "data", __VA_ARGS__), 1)
enum { NSIZE = 6, ITERS = 12, SMALL_MAX = 4096, FREED_WAIT_S = 10 };
static const long sizes[NSIZE] = { 0, 8, 64, 4096, 65536, 262144 };   /* bytes */
/* After a non-blocking or persistent call of `bytes` on a communicator whose
 * area exists (area) or not: did the shm algorithm run as expected? */
static void check_alg(int c, long bytes, int area, const char *what)
{
    if (!have_pvar || expect < 0 || size < 2) return;
    if (c == BCAST && bytes > SMALL_MAX && expect) return;   /* shm where single copy works */
    int got = -1;
    CHECK_MPI(MPI_T_pvar_read(session, pv[c], &got));
    int want_shm = expect && area && bytes <= SMALL_MAX;
    if (want_shm)
        CHECK(got == shm_id[c], "%s %s of %ld bytes: algorithm %d, want shm (%d)", what, names[c],
              bytes, got, shm_id[c]);
    else
        CHECK(got != shm_id[c], "%s %s of %ld bytes: shm ran, want a schedule", what, names[c],
              bytes);
}

static int val(int r, long i, int salt)
{
    return r * 1000 + (int)(i % 997) * 3 + salt;
}
static int sum(long i, int salt)
{
    return 1000 * (size * (size - 1) / 2) + size * ((int)(i % 997) * 3 + salt);
}

/* The buffers of one set of the six calls, n ints each (blocks of gather and
 * allgather: n ints per rank). */
typedef struct {
    long n;
    int root, in_place;
    int *bc, *rs, *rr, *as, *ar, *gs, *gr, *ags, *agr;
} set_t;

static int *ibuf(long n)
{
    return mt_malloc(sizeof(int) * (size_t)(n ? n : 1));
}
static void set_init(set_t *s, long n, int root, int in_place)
{
    s->n = n;
    s->root = root;
    s->in_place = in_place;
    s->bc = ibuf(n); s->rs = ibuf(n); s->rr = ibuf(n); s->as = ibuf(n); s->ar = ibuf(n);
    s->gs = ibuf(n); s->gr = ibuf(n * size); s->ags = ibuf(n); s->agr = ibuf(n * size);
}
static void set_free(set_t *s)
{
    free(s->bc); free(s->rs); free(s->rr); free(s->as); free(s->ar);
    free(s->gs); free(s->gr); free(s->ags); free(s->agr);
}
/* New data for a round (salt), the results' buffers cleared. */
static void set_fill(set_t *s, int salt)
{
    long n = s->n;
    for (long i = 0; i < n; i++) {
        s->bc[i] = rank == s->root ? val(s->root, i, salt) : -1;
        s->rs[i] = val(rank, i, salt);
        s->rr[i] = s->in_place && rank == s->root ? val(rank, i, salt) : -1;
        s->as[i] = val(rank, i, salt);
        s->ar[i] = s->in_place ? val(rank, i, salt) : -1;
        s->gs[i] = val(rank, i, salt);
        s->ags[i] = val(rank, i, salt);
    }
    for (long i = 0; i < n * size; i++) {
        s->gr[i] = -1;
        s->agr[i] = -1;
    }
    if (s->in_place) {
        for (long i = 0; i < n; i++) {
            if (rank == s->root) s->gr[rank * n + i] = val(rank, i, salt);
            s->agr[rank * n + i] = val(rank, i, salt);
        }
    }
}
static void set_check(const set_t *s, int salt, const char *what)
{
    long n = s->n;
    int bad = 0;
    for (long i = 0; i < n && !bad; i++) {
        int w = val(s->root, i, salt);
        if (s->bc[i] != w) bad = CHECK_FAIL("%s bcast n=%ld [%ld]: %d, want %d", what, n, i, s->bc[i], w);
        if (rank == s->root && s->rr[i] != sum(i, salt))
            bad = CHECK_FAIL("%s reduce n=%ld [%ld]: %d, want %d", what, n, i, s->rr[i], sum(i, salt));
        if (s->ar[i] != sum(i, salt))
            bad = CHECK_FAIL("%s allreduce n=%ld [%ld]: %d, want %d", what, n, i, s->ar[i], sum(i, salt));
    }
    for (int r = 0; r < size && !bad; r++)
        for (long i = 0; i < n && !bad; i++) {
            int w = val(r, i, salt);
            if (rank == s->root && s->gr[r * n + i] != w)
                bad = CHECK_FAIL("%s gather n=%ld from %d [%ld]: %d, want %d", what, n, r, i,
                                 s->gr[r * n + i], w);
            if (s->agr[r * n + i] != w)
                bad = CHECK_FAIL("%s allgather n=%ld from %d [%ld]: %d, want %d", what, n, r, i,
                                 s->agr[r * n + i], w);
        }
}
/* Start the six calls of a set, non-blocking (init 0) or persistent (init 1),
 * checking the algorithm after each. */
static void set_start(set_t *s, MPI_Comm comm, int init, MPI_Request *req, int area)
{
    int n = (int)s->n, root = s->root, ip = s->in_place;
    long bytes = s->n * (long)sizeof(int);
    const char *what = init ? "persistent" : "non-blocking";
    const void *rsb = ip && rank == root ? MPI_IN_PLACE : s->rs;
    const void *asb = ip ? MPI_IN_PLACE : s->as;
    const void *gsb = ip && rank == root ? MPI_IN_PLACE : s->gs;
    const void *agsb = ip ? MPI_IN_PLACE : s->ags;
    if (init) {
        CHECK_MPI(MPI_Barrier_init(comm, MPI_INFO_NULL, &req[BARRIER]));
        check_alg(BARRIER, 0, area, what);
        CHECK_MPI(MPI_Bcast_init(s->bc, n, MPI_INT, root, comm, MPI_INFO_NULL, &req[BCAST]));
        check_alg(BCAST, bytes, area, what);
        CHECK_MPI(MPI_Reduce_init(rsb, s->rr, n, MPI_INT, MPI_SUM, root, comm, MPI_INFO_NULL,
                                  &req[REDUCE]));
        check_alg(REDUCE, bytes, area, what);
        CHECK_MPI(MPI_Allreduce_init(asb, s->ar, n, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                                     &req[ALLREDUCE]));
        check_alg(ALLREDUCE, bytes, area, what);
        CHECK_MPI(MPI_Gather_init(gsb, n, MPI_INT, s->gr, n, MPI_INT, root, comm, MPI_INFO_NULL,
                                  &req[GATHER]));
        check_alg(GATHER, bytes, area, what);
        CHECK_MPI(MPI_Allgather_init(agsb, n, MPI_INT, s->agr, n, MPI_INT, comm, MPI_INFO_NULL,
                                     &req[ALLGATHER]));
        check_alg(ALLGATHER, bytes, area, what);
        return;
    }
    CHECK_MPI(MPI_Ibarrier(comm, &req[BARRIER]));
    check_alg(BARRIER, 0, area, what);
    CHECK_MPI(MPI_Ibcast(s->bc, n, MPI_INT, root, comm, &req[BCAST]));
    check_alg(BCAST, bytes, area, what);
    CHECK_MPI(MPI_Ireduce(rsb, s->rr, n, MPI_INT, MPI_SUM, root, comm, &req[REDUCE]));
    check_alg(REDUCE, bytes, area, what);
    CHECK_MPI(MPI_Iallreduce(asb, s->ar, n, MPI_INT, MPI_SUM, comm, &req[ALLREDUCE]));
    check_alg(ALLREDUCE, bytes, area, what);
    CHECK_MPI(MPI_Igather(gsb, n, MPI_INT, s->gr, n, MPI_INT, root, comm, &req[GATHER]));
    check_alg(GATHER, bytes, area, what);
    CHECK_MPI(MPI_Iallgather(agsb, n, MPI_INT, s->agr, n, MPI_INT, comm, &req[ALLGATHER]));
    check_alg(ALLGATHER, bytes, area, what);
}

/* Several outstanding on one communicator: reverse order, then Waitall. */
static void t_outstanding(long n, int in_place, int salt)
{
    set_t s;
    MPI_Request req[NCOLL];
    set_init(&s, n, salt % size, in_place);
    for (int how = 0; how < 2; how++, salt++) {
        set_fill(&s, salt);
        set_start(&s, MPI_COMM_WORLD, 0, req, 1);
        if (how == 0)
            for (int c = NCOLL - 1; c >= 0; c--) CHECK_MPI(MPI_Wait(&req[c], MPI_STATUS_IGNORE));
        else
            CHECK_MPI(MPI_Waitall(NCOLL, req, MPI_STATUSES_IGNORE));
        set_check(&s, salt, how ? "waitall" : "reverse waits");
    }
    set_free(&s);
}

/* Blocking calls between non-blocking ones and their waits. */
static void t_mixed(long n, int salt)
{
    int *a = ibuf(n), *b = ibuf(n), *x = ibuf(n), *y = ibuf(n), *z = ibuf(n), *w = ibuf(n);
    int root = (salt + 1) % size;
    MPI_Request r[4];
    for (long i = 0; i < n; i++) {
        a[i] = rank == root ? val(root, i, salt) : -1;
        b[i] = rank == 0 ? val(0, i, salt + 1) : -1;
        x[i] = val(rank, i, salt);
        y[i] = -1;
        z[i] = -1;
        w[i] = rank == root ? val(root, i, salt + 2) : -1;
    }
    int nn = (int)n;
    /* MPI_Ibarrier; MPI_Bcast; MPI_Wait (MPI 4.0, example 6.27's pattern) */
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Ibcast(a, nn, MPI_INT, root, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Bcast(b, nn, MPI_INT, 0, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Iallreduce(x, y, nn, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[2]));
    CHECK_MPI(MPI_Allreduce(x, z, nn, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Ibcast(w, nn, MPI_INT, root, MPI_COMM_WORLD, &r[3]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&r[3], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Waitall(2, &r[1], MPI_STATUSES_IGNORE));
    int bad = 0;
    for (long i = 0; i < n && !bad; i++) {
        if (a[i] != val(root, i, salt)) bad = CHECK_FAIL("mixed ibcast n=%ld [%ld]: %d", n, i, a[i]);
        if (b[i] != val(0, i, salt + 1)) bad = CHECK_FAIL("mixed bcast n=%ld [%ld]: %d", n, i, b[i]);
        if (y[i] != sum(i, salt)) bad = CHECK_FAIL("mixed iallreduce n=%ld [%ld]: %d", n, i, y[i]);
        if (z[i] != sum(i, salt)) bad = CHECK_FAIL("mixed allreduce n=%ld [%ld]: %d", n, i, z[i]);
        if (w[i] != val(root, i, salt + 2))
            bad = CHECK_FAIL("mixed second ibcast n=%ld [%ld]: %d", n, i, w[i]);
    }
    free(a); free(b); free(x); free(y); free(z); free(w);
}

/* Persistent: started ITERS times, new data between the starts, Startall +
 * Waitall and single starts waited for in reverse order; freed inactive. */
static void t_persistent(long n, int in_place, int salt)
{
    set_t s;
    MPI_Request req[NCOLL];
    set_init(&s, n, (salt + 2) % size, in_place);
    set_fill(&s, salt);
    set_start(&s, MPI_COMM_WORLD, 1, req, 1);
    for (int it = 0; it < ITERS; it++) {
        set_fill(&s, salt + it);
        if (it % 2 == 0) {
            CHECK_MPI(MPI_Startall(NCOLL, req));
            CHECK_MPI(MPI_Waitall(NCOLL, req, MPI_STATUSES_IGNORE));
        } else {
            for (int c = 0; c < NCOLL; c++) CHECK_MPI(MPI_Start(&req[c]));
            if (it % 4 == 1) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));   /* a blocking call between */
            for (int c = NCOLL - 1; c >= 0; c--) CHECK_MPI(MPI_Wait(&req[c], MPI_STATUS_IGNORE));
        }
        set_check(&s, salt + it, "persistent");
    }
    for (int c = 0; c < NCOLL; c++) CHECK_MPI(MPI_Request_free(&req[c]));
    set_free(&s);
}

/* A persistent allreduce freed while active: it still completes, driven by
 * any progress (the blocking allreduce after it does not wait for it: the
 * non-blocking calls have a sequence of their own), and its buffer then holds
 * the result. */
static void t_free_active(long n, int salt)
{
    int *x = ibuf(n), *y = ibuf(n), *z = ibuf(n);
    MPI_Request r;
    for (long i = 0; i < n; i++) {
        x[i] = val(rank, i, salt);
        y[i] = -1;
    }
    CHECK_MPI(MPI_Allreduce_init(x, y, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Start(&r));
    CHECK_MPI(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
    CHECK_MPI(MPI_Allreduce(x, z, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));   /* a schedule's run may still go on: MPI says
                                               * nothing of when; the next check only where
                                               * Courier finished it */
    int small = expect == 1 && size > 1 && n * (long)sizeof(int) <= SMALL_MAX;
    /* every rank started it before the barrier: progress finishes it here */
    for (double t0 = MPI_Wtime(); small && MPI_Wtime() - t0 < FREED_WAIT_S;) {
        long i = 0;
        while (i < n && y[i] == sum(i, salt)) i++;
        if (i == n) break;
        int f;
        CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &f, MPI_STATUS_IGNORE));
    }
    int bad = 0;
    for (long i = 0; i < n && !bad; i++) {
        if (z[i] != sum(i, salt)) bad = CHECK_FAIL("allreduce after free n=%ld [%ld]: %d", n, i, z[i]);
        if (small && y[i] != sum(i, salt))
            bad = CHECK_FAIL("freed persistent allreduce n=%ld [%ld]: %d", n, i, y[i]);
    }
    /* x and y stay: a schedule's run (not the shm path) may not have finished */
    if (small && !bad) {
        free(x);
        free(y);
    }
    free(z);
}

/* A new communicator: its first calls come before its area exists (schedules),
 * the ones after a blocking call through the area. */
static void t_new_comm(int salt)
{
    MPI_Comm c;
    MPI_Request req[NCOLL];
    set_t s;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    set_init(&s, 2, 0, 0);
    set_fill(&s, salt);
    set_start(&s, c, 0, req, 0);
    CHECK_MPI(MPI_Waitall(NCOLL, req, MPI_STATUSES_IGNORE));
    set_check(&s, salt, "new communicator, no area");
    CHECK_MPI(MPI_Barrier(c));   /* makes the area */
    set_fill(&s, salt + 1);
    set_start(&s, c, 0, req, 1);
    CHECK_MPI(MPI_Waitall(NCOLL, req, MPI_STATUSES_IGNORE));
    set_check(&s, salt + 1, "new communicator, area");
    set_free(&s);
    CHECK_MPI(MPI_Comm_free(&c));
}

/* A non-commutative op (2x2 matrices of unsigned, product mod 2^32, on a
 * contiguous type) and double sums: the non-blocking and persistent results
 * are the canonical product in rank order and bitwise the blocking call's.
 * The persistent request outlives the user's handles of its type and op. */
typedef struct {
    unsigned m[4];
} mat_t;
static void mat_mul(const mat_t *a, const mat_t *b, mat_t *c)   /* c = a b */
{
    mat_t t;
    t.m[0] = a->m[0] * b->m[0] + a->m[1] * b->m[2];
    t.m[1] = a->m[0] * b->m[1] + a->m[1] * b->m[3];
    t.m[2] = a->m[2] * b->m[0] + a->m[3] * b->m[2];
    t.m[3] = a->m[2] * b->m[1] + a->m[3] * b->m[3];
    *c = t;
}
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) mat_mul((mat_t *)in + i, (mat_t *)inout + i, (mat_t *)inout + i);
}
static mat_t mat_of(int r, int i, int salt)
{
    return (mat_t){ { (unsigned)(r + 1), (unsigned)(i + salt), (unsigned)(2 * r + i), 1u } };
}
static void t_userop(int salt)
{
    enum { NM = 4, ND = 8 };   /* 64 bytes of matrices, 64 of doubles */
    MPI_Datatype mt;
    MPI_Op op;
    CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &mt));
    CHECK_MPI(MPI_Type_commit(&mt));
    CHECK_MPI(MPI_Op_create(mat_op, 0, &op));
    mat_t in[NM], out[NM], want[NM];
    double din[ND], dnb[ND], dbl[ND];
    for (int i = 0; i < NM; i++) {
        in[i] = mat_of(rank, i, salt);
        want[i] = mat_of(0, i, salt);
        for (int r = 1; r < size; r++) {
            mat_t x = mat_of(r, i, salt);
            mat_mul(&want[i], &x, &want[i]);
        }
    }
    for (int i = 0; i < ND; i++) din[i] = 1.0 / (3.0 + rank + i) + salt * 1e-3;
    int root = salt % size;
    MPI_Request r[3];
    memset(out, 0, sizeof out);
    CHECK_MPI(MPI_Ireduce(in, out, NM, mt, op, root, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Iallreduce(din, dnb, ND, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Allreduce(din, dbl, ND, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    if (rank == root)
        CHECK(memcmp(out, want, sizeof want) == 0, "ireduce of a non-commutative op: not the product in rank order");
    CHECK(memcmp(dnb, dbl, sizeof dbl) == 0, "iallreduce of doubles: not bitwise the blocking result");
    /* persistent, the handles freed at once */
    CHECK_MPI(MPI_Allreduce_init(in, out, NM, mt, op, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]));
    CHECK_MPI(MPI_Op_free(&op));
    CHECK_MPI(MPI_Type_free(&mt));
    for (int it = 0; it < 3; it++) {
        memset(out, 0, sizeof out);
        CHECK_MPI(MPI_Start(&r[2]));
        CHECK_MPI(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
        CHECK(memcmp(out, want, sizeof want) == 0, "persistent allreduce of a non-commutative op, start %d", it);
    }
    CHECK_MPI(MPI_Request_free(&r[2]));
}

/* The root of small broadcasts runs ahead while the others sleep (no CPU):
 * with few lines (variant ring4) its calls soon wait in their claim for the
 * readers, and its waiting policy sleeps until a reader's FIN rings it. */
static void t_root_ahead(int salt)
{
    enum { NCALL = 64 };
    int v[NCALL];
    MPI_Request r[NCALL];
    if (rank != 0) {
        struct timespec ts = { 0, 50 * 1000 * 1000 };   /* 50 ms */
        nanosleep(&ts, NULL);
    }
    for (int i = 0; i < NCALL; i++) {
        v[i] = rank == 0 ? val(0, i, salt) : -1;
        CHECK_MPI(MPI_Ibcast(&v[i], 1, MPI_INT, 0, MPI_COMM_WORLD, &r[i]));
        if (i % 2) CHECK_MPI(MPI_Wait(&r[i], MPI_STATUS_IGNORE));
    }
    CHECK_MPI(MPI_Waitall(NCALL, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NCALL; i++)
        if (v[i] != val(0, i, salt)) {
            CHECK(v[i] == val(0, i, salt), "root ahead: ibcast %d got %d", i, v[i]);
            break;
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *e = getenv("NBSHM_EXPECT");
    if (e) expect = !strcmp(e, "on");
    pvar_open();
    t_new_comm(1);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));   /* MPI_COMM_WORLD's area exists from here on */
    for (int k = 0; k < 4; k++) t_userop(k + 2);
    int salt = 10;
    for (int k = 0; k < NSIZE; k++) {
        long n = sizes[k] / (long)sizeof(int);
        for (int ip = 0; ip < 2; ip++) {
            t_outstanding(n, ip, salt += 3);
            t_persistent(n, ip, salt += ITERS + 3);
        }
        t_mixed(n, salt += 3);
        t_free_active(n, salt += 3);
    }
    t_root_ahead(salt += 3);
    /* a long run of small calls: the ring of lines and slots wraps many times */
    for (int it = 0; it < 200; it++) t_mixed(2, salt += 3);
    pvar_close();
    int rc = mt_finish("coll_nbshm");
    MPI_Finalize();
    return rc;
}
