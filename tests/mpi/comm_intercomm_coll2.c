/* SPDX-License-Identifier: MIT */
/* The intercommunicator forms of the rooted, all-to-all and reduction
 * collectives (MPI-4.0 6.2.2): Gather(v), Scatter(v), Allgather(v),
 * Alltoall(v,w), Reduce, Allreduce, Reduce_scatter(_block), each checked
 * element by element, with gaps between blocks left untouched.
 *
 * Two intercommunicators of unequal or interleaved groups: world ranks below
 * size/3 (at least one) against the rest, and even against odd ranks.  Rooted
 * collectives run with the root in each group in turn (MPI_ROOT at the root,
 * MPI_PROC_NULL at its group-mates, the root's rank at the other group); the
 * others run twice with different counts.  Every collective runs blocking,
 * non-blocking one at a time, and non-blocking all in flight together.
 * Reductions use a non-commutative (associative) op, so the order of the
 * operands (rank order of the contributing group) is checked too.  Send and
 * receive datatypes differ where the standard allows it (same signature).
 * Last, Scan/Exscan on an intercommunicator must fail with MPI_ERR_COMM. */
#include "mpitest.h"

/* One side of an intercommunicator, as a test sees it */
typedef struct {
    MPI_Comm comm;
    int g;          /* this process's group: 0 or 1 */
    int lr;         /* its rank in its group */
    int nl, nr;     /* local and remote group sizes */
} ic_t;

static MPI_Datatype int2, int3, affine_type;   /* contiguous(2/3, int); (a, b) pairs */
static MPI_Op affine_op;

/* The int that process (g, r) contributes at position i */
static int val(int g, int r, int i) { return (g + 1) * 1000000 + r * 1000 + i; }

/* Affine maps x -> a x + b (mod 2^32); "p op q" is p then q.  Composition is
 * associative but not commutative, so a wrong operand order shows. */
typedef struct { unsigned a, b; } affine_t;
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const affine_t *p = in;
    affine_t *q = inout;
    for (int k = 0; k < *len; k++) {
        affine_t r = { p[k].a * q[k].a, p[k].b * q[k].a + q[k].b };
        q[k] = r;
    }
}
static affine_t affine_val(int g, int r, int j)
{
    return (affine_t){ (unsigned)(2 * r + 3 + j), (unsigned)(g * 7 + r * 5 + j + 1) };
}
/* v(g, 0, j) op v(g, 1, j) op ... op v(g, n-1, j) */
static affine_t affine_fold(int g, int n, int j)
{
    affine_t acc = affine_val(g, 0, j);
    for (int r = 1; r < n; r++) {
        affine_t next = affine_val(g, r, j);
        int one = 1;
        affine_fn(&acc, &next, &one, NULL);
        acc = next;
    }
    return acc;
}

/* ---- one collective call: start it, later check it ------------------------------ */
enum { LEAF, ROOT, IDLE };   /* role in a rooted collective */
enum { MAXP = 8 };
typedef struct call {
    const char *name;
    int rg;                  /* group holding the root (rooted), or a variant (others) */
    int role, root_lr;
    MPI_Request req;
    void *p[MAXP];           /* buffers and arrays, freed after the check */
    int n[4];                /* sizes the check needs */
    void (*check)(const ic_t *ic, struct call *c);
} call_t;

static int *ints(int n, int fill)
{
    int *b = mt_malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) b[i] = fill;
    return b;
}

static call_t *new_call(const char *name, int rg, void (*check)(const ic_t *, call_t *))
{
    call_t *c = calloc(1, sizeof(*c));
    if (!c) MPI_Abort(MPI_COMM_WORLD, 2);
    c->name = name;
    c->rg = rg;
    c->req = MPI_REQUEST_NULL;
    c->check = check;
    return c;
}

/* The root argument of a rooted collective whose root is in group rg: its
 * last process for group 0, its first for group 1. */
static int root_arg(const ic_t *ic, call_t *c)
{
    int nroot = ic->g == c->rg ? ic->nl : ic->nr;
    c->root_lr = c->rg == 0 ? nroot - 1 : 0;
    if (ic->g != c->rg) {
        c->role = LEAF;
        return c->root_lr;
    }
    c->role = ic->lr == c->root_lr ? ROOT : IDLE;
    return c->role == ROOT ? MPI_ROOT : MPI_PROC_NULL;
}

/* ---- Gather: 3 ints from each leaf, received as one int3 per block ---------------- */
static void check_gather(const ic_t *ic, call_t *c)
{
    int *rbuf = c->p[1];
    for (int r = 0; r < ic->nr; r++)
        for (int i = 0; i < 3; i++)
            CHECK_INT(rbuf[r * 3 + i], c->role == ROOT ? val(1 - ic->g, r, i) : -1);
}
static call_t *t_gather(const ic_t *ic, int rg, MPI_Request *rq)
{
    call_t *c = new_call("gather", rg, check_gather);
    int root = root_arg(ic, c);
    int *sbuf = ints(3, 0), *rbuf = ints(ic->nr * 3, -1);
    for (int i = 0; i < 3; i++) sbuf[i] = val(ic->g, ic->lr, i);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    int sc = c->role == LEAF ? 3 : 0, rc = c->role == ROOT ? 1 : 0;
    if (rq) CHECK_MPI(MPI_Igather(sbuf, sc, MPI_INT, rbuf, rc, int3, root, ic->comm, rq));
    else CHECK_MPI(MPI_Gather(sbuf, sc, MPI_INT, rbuf, rc, int3, root, ic->comm));
    return c;
}

/* ---- Gatherv: leaf r sends r+1 ints; blocks at the root two ints apart ------------ */
static void check_gatherv(const ic_t *ic, call_t *c)
{
    int *rbuf = c->p[1], *displs = c->p[3], len = c->n[0];
    int *want = ints(len, -1);
    if (c->role == ROOT)
        for (int r = 0; r < ic->nr; r++)
            for (int i = 0; i <= r; i++) want[displs[r] + i] = val(1 - ic->g, r, i);
    for (int k = 0; k < len; k++) CHECK_INT(rbuf[k], want[k]);
    free(want);
}
static call_t *t_gatherv(const ic_t *ic, int rg, MPI_Request *rq)
{
    call_t *c = new_call("gatherv", rg, check_gatherv);
    int root = root_arg(ic, c);
    int *counts = ints(ic->nr, 0), *displs = ints(ic->nr, 0), len = 0;
    for (int r = 0; r < ic->nr; r++) {
        counts[r] = r + 1;
        displs[r] = len;
        len += r + 1 + 2;
    }
    int *sbuf = ints(ic->lr + 1, 0), *rbuf = ints(len, -1);
    for (int i = 0; i <= ic->lr; i++) sbuf[i] = val(ic->g, ic->lr, i);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    c->p[2] = counts;
    c->p[3] = displs;
    c->n[0] = len;
    int sc = c->role == LEAF ? ic->lr + 1 : 0;
    if (rq)
        CHECK_MPI(MPI_Igatherv(sbuf, sc, MPI_INT, rbuf, counts, displs, MPI_INT, root, ic->comm, rq));
    else
        CHECK_MPI(MPI_Gatherv(sbuf, sc, MPI_INT, rbuf, counts, displs, MPI_INT, root, ic->comm));
    return c;
}

/* ---- Scatter: one int2 per leaf from the root, received as 2 ints ---------------- */
static void check_scatter(const ic_t *ic, call_t *c)
{
    int *rbuf = c->p[1];
    for (int i = 0; i < 2; i++)
        CHECK_INT(rbuf[i], c->role == LEAF ? val(1 - ic->g, c->root_lr, ic->lr * 10 + i) : -1);
}
static call_t *t_scatter(const ic_t *ic, int rg, MPI_Request *rq)
{
    call_t *c = new_call("scatter", rg, check_scatter);
    int root = root_arg(ic, c);
    int *sbuf = ints(ic->nr * 2, 0), *rbuf = ints(2, -1);
    for (int r = 0; r < ic->nr; r++)
        for (int i = 0; i < 2; i++) sbuf[r * 2 + i] = val(ic->g, ic->lr, r * 10 + i);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    int sc = c->role == ROOT ? 1 : 0, rc = c->role == LEAF ? 2 : 0;
    if (rq) CHECK_MPI(MPI_Iscatter(sbuf, sc, int2, rbuf, rc, MPI_INT, root, ic->comm, rq));
    else CHECK_MPI(MPI_Scatter(sbuf, sc, int2, rbuf, rc, MPI_INT, root, ic->comm));
    return c;
}

/* ---- Scatterv: leaf r gets r % 3 ints (some none), blocks in reverse order -------- */
static void check_scatterv(const ic_t *ic, call_t *c)
{
    int *rbuf = c->p[1], n = c->role == LEAF ? ic->lr % 3 : 0;
    for (int i = 0; i < 3; i++)
        CHECK_INT(rbuf[i], i < n ? val(1 - ic->g, c->root_lr, ic->lr * 10 + i) : -1);
}
static call_t *t_scatterv(const ic_t *ic, int rg, MPI_Request *rq)
{
    call_t *c = new_call("scatterv", rg, check_scatterv);
    int root = root_arg(ic, c);
    int *counts = ints(ic->nr, 0), *displs = ints(ic->nr, 0), len = 0;
    for (int r = ic->nr - 1; r >= 0; r--) {
        counts[r] = r % 3;
        displs[r] = len;
        len += r % 3 + 1;
    }
    int *sbuf = ints(len, -7), *rbuf = ints(3, -1);
    for (int r = 0; r < ic->nr; r++)
        for (int i = 0; i < counts[r]; i++) sbuf[displs[r] + i] = val(ic->g, ic->lr, r * 10 + i);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    c->p[2] = counts;
    c->p[3] = displs;
    int rc = c->role == LEAF ? ic->lr % 3 : 0;
    if (rq)
        CHECK_MPI(MPI_Iscatterv(sbuf, counts, displs, MPI_INT, rbuf, rc, MPI_INT, root, ic->comm, rq));
    else
        CHECK_MPI(MPI_Scatterv(sbuf, counts, displs, MPI_INT, rbuf, rc, MPI_INT, root, ic->comm));
    return c;
}

/* ---- Allgather: 2 + v ints from everybody, one block per remote process ----------- */
static void check_allgather(const ic_t *ic, call_t *c)
{
    int *rbuf = c->p[1], n = 2 + c->rg;
    for (int r = 0; r < ic->nr; r++)
        for (int i = 0; i < n; i++) CHECK_INT(rbuf[r * n + i], val(1 - ic->g, r, i));
}
static call_t *t_allgather(const ic_t *ic, int v, MPI_Request *rq)
{
    call_t *c = new_call("allgather", v, check_allgather);
    int n = 2 + v;
    int *sbuf = ints(n, 0), *rbuf = ints(ic->nr * n, -1);
    for (int i = 0; i < n; i++) sbuf[i] = val(ic->g, ic->lr, i);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    if (rq) CHECK_MPI(MPI_Iallgather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, ic->comm, rq));
    else CHECK_MPI(MPI_Allgather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, ic->comm));
    return c;
}

/* ---- Allgatherv: process r sends r % 3 + 1 + v ints; one-int gaps ------------------- */
static int agv_count(int r, int v) { return r % 3 + 1 + v; }
static void check_allgatherv(const ic_t *ic, call_t *c)
{
    int *rbuf = c->p[1], *displs = c->p[3], len = c->n[0];
    int *want = ints(len, -1);
    for (int r = 0; r < ic->nr; r++)
        for (int i = 0; i < agv_count(r, c->rg); i++) want[displs[r] + i] = val(1 - ic->g, r, i);
    for (int k = 0; k < len; k++) CHECK_INT(rbuf[k], want[k]);
    free(want);
}
static call_t *t_allgatherv(const ic_t *ic, int v, MPI_Request *rq)
{
    call_t *c = new_call("allgatherv", v, check_allgatherv);
    int *counts = ints(ic->nr, 0), *displs = ints(ic->nr, 0), len = 1;
    for (int r = 0; r < ic->nr; r++) {
        counts[r] = agv_count(r, v);
        displs[r] = len;
        len += counts[r] + 1;
    }
    int n = agv_count(ic->lr, v);
    int *sbuf = ints(n, 0), *rbuf = ints(len, -1);
    for (int i = 0; i < n; i++) sbuf[i] = val(ic->g, ic->lr, i);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    c->p[2] = counts;
    c->p[3] = displs;
    c->n[0] = len;
    if (rq) CHECK_MPI(MPI_Iallgatherv(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, ic->comm, rq));
    else CHECK_MPI(MPI_Allgatherv(sbuf, n, MPI_INT, rbuf, counts, displs, MPI_INT, ic->comm));
    return c;
}

/* ---- Alltoall: block t of process s is val(s, t * 10 + i) ------------------------- */
static void check_alltoall(const ic_t *ic, call_t *c)
{
    int *rbuf = c->p[1], n = 2 + c->rg;
    for (int r = 0; r < ic->nr; r++)
        for (int i = 0; i < n; i++) CHECK_INT(rbuf[r * n + i], val(1 - ic->g, r, ic->lr * 10 + i));
}
static call_t *t_alltoall(const ic_t *ic, int v, MPI_Request *rq)
{
    call_t *c = new_call("alltoall", v, check_alltoall);
    int n = 2 + v;
    int *sbuf = ints(ic->nr * n, 0), *rbuf = ints(ic->nr * n, -1);
    for (int t = 0; t < ic->nr; t++)
        for (int i = 0; i < n; i++) sbuf[t * n + i] = val(ic->g, ic->lr, t * 10 + i);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    if (rq) CHECK_MPI(MPI_Ialltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, ic->comm, rq));
    else CHECK_MPI(MPI_Alltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, ic->comm));
    return c;
}

/* ---- Alltoallv: (s + t + v) % 3 ints from s to t; received in reverse order -------- */
static int a2av_count(int s, int t, int v) { return (s + t + v) % 3; }
static void check_alltoallv(const ic_t *ic, call_t *c)
{
    int *rbuf = c->p[1], *rdispls = c->p[5], len = c->n[0];
    int *want = ints(len, -1);
    for (int s = 0; s < ic->nr; s++)
        for (int i = 0; i < a2av_count(s, ic->lr, c->rg); i++)
            want[rdispls[s] + i] = val(1 - ic->g, s, ic->lr * 10 + i);
    for (int k = 0; k < len; k++) CHECK_INT(rbuf[k], want[k]);
    free(want);
}
static call_t *t_alltoallv(const ic_t *ic, int v, MPI_Request *rq)
{
    call_t *c = new_call("alltoallv", v, check_alltoallv);
    int *sc = ints(ic->nr, 0), *sd = ints(ic->nr, 0), *rc = ints(ic->nr, 0), *rd = ints(ic->nr, 0);
    int slen = 0, rlen = 0;
    for (int t = 0; t < ic->nr; t++) {
        sc[t] = a2av_count(ic->lr, t, v);
        sd[t] = slen;
        slen += sc[t];
    }
    for (int s = ic->nr - 1; s >= 0; s--) {
        rc[s] = a2av_count(s, ic->lr, v);
        rd[s] = rlen;
        rlen += rc[s] + 1;
    }
    int *sbuf = ints(slen, 0), *rbuf = ints(rlen, -1);
    for (int t = 0; t < ic->nr; t++)
        for (int i = 0; i < sc[t]; i++) sbuf[sd[t] + i] = val(ic->g, ic->lr, t * 10 + i);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    c->p[2] = sc;
    c->p[3] = sd;
    c->p[4] = rc;
    c->p[5] = rd;
    c->n[0] = rlen;
    if (rq) CHECK_MPI(MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, ic->comm, rq));
    else CHECK_MPI(MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, ic->comm));
    return c;
}

/* ---- Alltoallw: ((s + 2t + v) % 3) * 2 ints from s to t, sent as ints to even t and
 * as int2 to odd t, received as int2 from even s and as ints from odd s ------------- */
static int a2aw_ints(int s, int t, int v) { return (s + 2 * t + v) % 3 * 2; }
static void check_alltoallw(const ic_t *ic, call_t *c)
{
    int *rbuf = c->p[1], *rdispls = c->p[5], len = c->n[0];
    int *want = ints(len, -1);
    for (int s = 0; s < ic->nr; s++)
        for (int i = 0; i < a2aw_ints(s, ic->lr, c->rg); i++)
            want[rdispls[s] / (int)sizeof(int) + i] = val(1 - ic->g, s, ic->lr * 10 + i);
    for (int k = 0; k < len; k++) CHECK_INT(rbuf[k], want[k]);
    free(want);
}
static call_t *t_alltoallw(const ic_t *ic, int v, MPI_Request *rq)
{
    call_t *c = new_call("alltoallw", v, check_alltoallw);
    int *sc = ints(ic->nr, 0), *sd = ints(ic->nr, 0), *rc = ints(ic->nr, 0), *rd = ints(ic->nr, 0);
    MPI_Datatype *st = mt_malloc(sizeof(MPI_Datatype) * (size_t)ic->nr);
    MPI_Datatype *rt = mt_malloc(sizeof(MPI_Datatype) * (size_t)ic->nr);
    int slen = 0, rlen = 0;   /* in ints; displacements are in bytes */
    for (int t = 0; t < ic->nr; t++) {
        int n = a2aw_ints(ic->lr, t, v);
        st[t] = t % 2 ? int2 : MPI_INT;
        sc[t] = t % 2 ? n / 2 : n;
        sd[t] = slen * (int)sizeof(int);
        slen += n;
    }
    for (int s = ic->nr - 1; s >= 0; s--) {
        int n = a2aw_ints(s, ic->lr, v);
        rt[s] = s % 2 ? MPI_INT : int2;
        rc[s] = s % 2 ? n : n / 2;
        rd[s] = rlen * (int)sizeof(int);
        rlen += n + 1;
    }
    int *sbuf = ints(slen, 0), *rbuf = ints(rlen, -1);
    for (int t = 0; t < ic->nr; t++)
        for (int i = 0; i < a2aw_ints(ic->lr, t, v); i++)
            sbuf[sd[t] / (int)sizeof(int) + i] = val(ic->g, ic->lr, t * 10 + i);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    c->p[2] = sc;
    c->p[3] = sd;
    c->p[4] = rc;
    c->p[5] = rd;
    c->p[6] = st;
    c->p[7] = rt;
    c->n[0] = rlen;
    if (rq) CHECK_MPI(MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, ic->comm, rq));
    else CHECK_MPI(MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, ic->comm));
    return c;
}

/* ---- Reduce: 3 affine maps, folded over the leaves in rank order ------------------ */
static void check_affine(const affine_t *got, int g, int n, int first, int count)
{
    for (int k = 0; k < count; k++) {
        affine_t want = affine_fold(g, n, first + k);
        CHECK(got[k].a == want.a && got[k].b == want.b,
              "element %d: got (%u, %u), expected (%u, %u)", first + k, got[k].a, got[k].b,
              want.a, want.b);
    }
}
static void check_reduce(const ic_t *ic, call_t *c)
{
    affine_t *rbuf = c->p[1];
    if (c->role == ROOT) {
        check_affine(rbuf, 1 - ic->g, ic->nr, 0, 3);
    } else {
        for (int k = 0; k < 3; k++) CHECK(rbuf[k].a == 0 && rbuf[k].b == 0, "element %d written", k);
    }
}
static call_t *t_reduce(const ic_t *ic, int rg, MPI_Request *rq)
{
    call_t *c = new_call("reduce", rg, check_reduce);
    int root = root_arg(ic, c);
    affine_t *sbuf = mt_malloc(3 * sizeof(*sbuf)), *rbuf = calloc(3, sizeof(*rbuf));
    for (int j = 0; j < 3; j++) sbuf[j] = affine_val(ic->g, ic->lr, j);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    if (rq) CHECK_MPI(MPI_Ireduce(sbuf, rbuf, 3, affine_type, affine_op, root, ic->comm, rq));
    else CHECK_MPI(MPI_Reduce(sbuf, rbuf, 3, affine_type, affine_op, root, ic->comm));
    return c;
}

/* ---- Allreduce: 4 + v affine maps; each group gets the other's fold --------------- */
static void check_allreduce(const ic_t *ic, call_t *c)
{
    check_affine(c->p[1], 1 - ic->g, ic->nr, 0, 4 + c->rg);
}
static call_t *t_allreduce(const ic_t *ic, int v, MPI_Request *rq)
{
    call_t *c = new_call("allreduce", v, check_allreduce);
    int n = 4 + v;
    affine_t *sbuf = mt_malloc((size_t)n * sizeof(*sbuf)), *rbuf = calloc((size_t)n, sizeof(*rbuf));
    for (int j = 0; j < n; j++) sbuf[j] = affine_val(ic->g, ic->lr, j);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    if (rq) CHECK_MPI(MPI_Iallreduce(sbuf, rbuf, n, affine_type, affine_op, ic->comm, rq));
    else CHECK_MPI(MPI_Allreduce(sbuf, rbuf, n, affine_type, affine_op, ic->comm));
    return c;
}

/* ---- Reduce_scatter: a vector of 13 + v affine maps (the same length in both
 * groups), spread as evenly as possible over this group (zero blocks where
 * the group is larger than the vector) ------------------------------------------- */
static void check_reduce_scatter(const ic_t *ic, call_t *c)
{
    check_affine(c->p[1], 1 - ic->g, ic->nr, c->n[0], c->n[1]);
}
static call_t *t_reduce_scatter(const ic_t *ic, int v, MPI_Request *rq)
{
    call_t *c = new_call("reduce_scatter", v, check_reduce_scatter);
    int total = v ? 5 : 13;
    int *counts = ints(ic->nl, 0), off = 0;
    for (int i = 0; i < ic->nl; i++) {
        counts[i] = total / ic->nl + (i < total % ic->nl);
        if (i < ic->lr) off += counts[i];
    }
    affine_t *sbuf = mt_malloc((size_t)total * sizeof(*sbuf));
    affine_t *rbuf = calloc((size_t)counts[ic->lr] + 1, sizeof(*rbuf));
    for (int j = 0; j < total; j++) sbuf[j] = affine_val(ic->g, ic->lr, j);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    c->p[2] = counts;
    c->n[0] = off;
    c->n[1] = counts[ic->lr];
    if (rq) CHECK_MPI(MPI_Ireduce_scatter(sbuf, rbuf, counts, affine_type, affine_op, ic->comm, rq));
    else CHECK_MPI(MPI_Reduce_scatter(sbuf, rbuf, counts, affine_type, affine_op, ic->comm));
    return c;
}

/* ---- Reduce_scatter_block: MPI_SUM of ints; the vector is nl * nr * (2 + v) long,
 * so each group's recvcount is (2 + v) times the other group's size -------------- */
static void check_reduce_scatter_block(const ic_t *ic, call_t *c)
{
    int *rbuf = c->p[1], n = ic->nr * (2 + c->rg);
    for (int k = 0; k < n; k++) {
        int want = 0;
        for (int r = 0; r < ic->nr; r++) want += val(1 - ic->g, r, ic->lr * n + k);
        CHECK_INT(rbuf[k], want);
    }
}
static call_t *t_reduce_scatter_block(const ic_t *ic, int v, MPI_Request *rq)
{
    call_t *c = new_call("reduce_scatter_block", v, check_reduce_scatter_block);
    int n = ic->nr * (2 + v), total = n * ic->nl;
    int *sbuf = ints(total, 0), *rbuf = ints(n, -1);
    for (int j = 0; j < total; j++) sbuf[j] = val(ic->g, ic->lr, j);
    c->p[0] = sbuf;
    c->p[1] = rbuf;
    if (rq) CHECK_MPI(MPI_Ireduce_scatter_block(sbuf, rbuf, n, MPI_INT, MPI_SUM, ic->comm, rq));
    else CHECK_MPI(MPI_Reduce_scatter_block(sbuf, rbuf, n, MPI_INT, MPI_SUM, ic->comm));
    return c;
}

/* ---- driver --------------------------------------------------------------------- */
typedef call_t *(*start_fn)(const ic_t *ic, int rg, MPI_Request *rq);
static const start_fn tests[] = {
    t_gather, t_gatherv, t_scatter, t_scatterv, t_allgather, t_allgatherv,
    t_alltoall, t_alltoallv, t_alltoallw, t_reduce, t_allreduce, t_reduce_scatter,
    t_reduce_scatter_block,
};
enum { NTESTS = sizeof(tests) / sizeof(tests[0]) };

static void finish(const ic_t *ic, call_t *c)
{
    c->check(ic, c);
    for (int i = 0; i < MAXP; i++) free(c->p[i]);
    free(c);
}

static void run_all(const ic_t *ic)
{
    for (int rg = 0; rg < 2; rg++) {
        /* blocking, then each non-blocking form completed on its own */
        for (int t = 0; t < NTESTS; t++) finish(ic, tests[t](ic, rg, NULL));
        for (int t = 0; t < NTESTS; t++) {
            MPI_Request q;
            call_t *c = tests[t](ic, rg, &q);
            CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
            finish(ic, c);
        }
        /* all non-blocking forms in flight together, completed in an order
         * that differs between the two groups */
        call_t *cs[NTESTS];
        MPI_Request qs[NTESTS];
        for (int t = 0; t < NTESTS; t++) cs[t] = tests[t](ic, rg, &qs[t]);
        if (ic->g == 0) {
            CHECK_MPI(MPI_Waitall(NTESTS, qs, MPI_STATUSES_IGNORE));
        } else {
            for (int t = NTESTS - 1; t >= 0; t--) CHECK_MPI(MPI_Wait(&qs[t], MPI_STATUS_IGNORE));
        }
        for (int t = 0; t < NTESTS; t++) finish(ic, cs[t]);
    }
}

/* Scan and Exscan are not defined on intercommunicators. */
static void check_scans_refused(const ic_t *ic)
{
    int in = 1, out = 0;
    MPI_Comm_set_errhandler(ic->comm, MPI_ERRORS_RETURN);
    int rc = MPI_Scan(&in, &out, 1, MPI_INT, MPI_SUM, ic->comm);
    CHECK(rc != MPI_SUCCESS, "MPI_Scan on an intercommunicator succeeded");
    CHECK_CLASS(rc, MPI_ERR_COMM);
    rc = MPI_Exscan(&in, &out, 1, MPI_INT, MPI_SUM, ic->comm);
    CHECK(rc != MPI_SUCCESS, "MPI_Exscan on an intercommunicator succeeded");
    CHECK_CLASS(rc, MPI_ERR_COMM);
#ifndef MT_REFERENCE_MPICH
    /* MPI_IN_PLACE between two groups means nothing (Courier refuses it; MPICH
     * 4.0 does not check) */
    int buf[16];
    rc = MPI_Allgather(MPI_IN_PLACE, 1, MPI_INT, buf, 1, MPI_INT, ic->comm);
    CHECK_CLASS(rc, MPI_ERR_BUFFER);
#endif
    MPI_Comm_set_errhandler(ic->comm, MPI_ERRORS_ARE_FATAL);
}

/* An intercommunicator between the processes of color 0 and those of color 1. */
static void with_intercomm(int color, int remote_leader)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm local;
    ic_t ic = { .g = color };
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 7, &ic.comm));
    MPI_Comm_rank(ic.comm, &ic.lr);
    MPI_Comm_size(ic.comm, &ic.nl);
    MPI_Comm_remote_size(ic.comm, &ic.nr);
    run_all(&ic);
    check_scans_refused(&ic);
    MPI_Comm_free(&ic.comm);
    MPI_Comm_free(&local);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size >= 2) {
        MPI_Type_contiguous(2, MPI_INT, &int2);
        MPI_Type_contiguous(3, MPI_INT, &int3);
        MPI_Type_contiguous(2, MPI_UNSIGNED, &affine_type);
        MPI_Type_commit(&int2);
        MPI_Type_commit(&int3);
        MPI_Type_commit(&affine_type);
        MPI_Op_create(affine_fn, 0, &affine_op);

        /* world ranks below size/3 (at least one) against the rest */
        int low = size / 3 > 0 ? size / 3 : 1;
        with_intercomm(rank < low, rank < low ? low : 0);
        /* even against odd world ranks */
        with_intercomm(rank % 2, rank % 2 ? 0 : 1);

        MPI_Op_free(&affine_op);
        MPI_Type_free(&int2);
        MPI_Type_free(&int3);
        MPI_Type_free(&affine_type);
    }
    int rc = mt_finish("comm_intercomm_coll2");
    MPI_Finalize();
    return rc;
}
