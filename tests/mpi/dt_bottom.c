/* SPDX-License-Identifier: MIT */
/* Absolute addresses: struct and hindexed types whose displacements are
 * MPI_Get_address results, used with MPI_BOTTOM as the buffer in blocking,
 * non-blocking and collective calls and in MPI_Pack (a small message and one
 * large enough for the rendezvous protocol); and the corners of
 * MPI_Type_create_resized: negative lower bounds, extents smaller than the
 * data (interleaved elements), zero extent, resized types inside structs,
 * resizing a resized type. */
#include "mpitest.h"

static int rank, size, next, prev;

enum { BIG = 40000 };   /* doubles: 320 KB, over any eager limit */

typedef struct {
    int id;
    double vals[3];
    char tag[6];
    double *big;
} scattered_t;

/* A type that addresses the members of s absolutely (from MPI_BOTTOM). */
static MPI_Datatype absolute_type(scattered_t *s, int with_big)
{
    int bl[4] = { 1, 3, 6, BIG };
    MPI_Aint d[4];
    MPI_Datatype ty[4] = { MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_DOUBLE }, t;
    MPI_Get_address(&s->id, &d[0]);
    MPI_Get_address(s->vals, &d[1]);
    MPI_Get_address(s->tag, &d[2]);
    MPI_Get_address(s->big, &d[3]);
    CHECK_MPI(MPI_Type_create_struct(with_big ? 4 : 3, bl, d, ty, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

static void fill(scattered_t *s, int who)
{
    s->id = 1000 + who;
    for (int i = 0; i < 3; i++) s->vals[i] = who + 0.25 * i;
    memset(s->tag, 0, sizeof s->tag);
    snprintf(s->tag, sizeof s->tag, "r%03d", who % 1000);
    for (int i = 0; i < BIG; i++) s->big[i] = who * 1e6 + i;
}

static void check_filled(const scattered_t *s, int who, int with_big, const char *what)
{
    char tag[6] = { 0 };
    snprintf(tag, sizeof tag, "r%03d", who % 1000);
    CHECK(s->id == 1000 + who, "%s: id %d want %d", what, s->id, 1000 + who);
    for (int i = 0; i < 3; i++)
        CHECK(s->vals[i] == who + 0.25 * i, "%s: vals[%d] %g", what, i, s->vals[i]);
    CHECK(memcmp(s->tag, tag, 6) == 0, "%s: tag '%.5s' want '%s'", what, s->tag, tag);
    if (!with_big) return;
    int bad = 0;
    for (int i = 0; i < BIG; i++) bad += s->big[i] != who * 1e6 + i;
    CHECK(bad == 0, "%s: %d wrong doubles in the big block", what, bad);
}

static void clear(scattered_t *s)
{
    s->id = -1;
    memset(s->vals, 0, sizeof s->vals);
    memset(s->tag, 0, sizeof s->tag);
    memset(s->big, 0, BIG * sizeof *s->big);
}

static void bottom(void)
{
    scattered_t out, in;
    out.big = mt_malloc(BIG * sizeof(double));
    in.big = mt_malloc(BIG * sizeof(double));
    fill(&out, rank);
    for (int with_big = 0; with_big <= 1; with_big++) {
        const char *what = with_big ? "MPI_BOTTOM large" : "MPI_BOTTOM small";
        MPI_Datatype st = absolute_type(&out, with_big), rt = absolute_type(&in, with_big);
        /* blocking */
        clear(&in);
        MPI_Status status;
        CHECK_MPI(MPI_Sendrecv(MPI_BOTTOM, 1, st, next, 5, MPI_BOTTOM, 1, rt, prev, 5,
                               MPI_COMM_WORLD, &status));
        check_filled(&in, prev, with_big, what);
        int n = -1;
        CHECK_MPI(MPI_Get_count(&status, rt, &n));
        CHECK_INT(n, 1);
        CHECK_MPI(MPI_Get_elements(&status, rt, &n));
        CHECK_INT(n, 1 + 3 + 6 + (with_big ? BIG : 0));
        /* non-blocking */
        clear(&in);
        MPI_Request rq[2];
        CHECK_MPI(MPI_Irecv(MPI_BOTTOM, 1, rt, prev, 6, MPI_COMM_WORLD, &rq[0]));
        CHECK_MPI(MPI_Isend(MPI_BOTTOM, 1, st, next, 6, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        check_filled(&in, prev, with_big, what);
        /* a broadcast from the last rank */
        int root = size - 1;
        clear(&in);
        if (rank == root) fill(&in, root);
        CHECK_MPI(MPI_Bcast(MPI_BOTTOM, 1, rt, root, MPI_COMM_WORLD));
        check_filled(&in, root, with_big, "bcast from MPI_BOTTOM");
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 refuses MPI_BOTTOM in MPI_Pack (inbuf=NULL) */
        /* packing from and to absolute addresses */
        int psz = 0, pos = 0;
        MPI_Pack_size(1, st, MPI_COMM_WORLD, &psz);
        char *buf = mt_malloc((size_t)psz);
        CHECK_MPI(MPI_Pack(MPI_BOTTOM, 1, st, buf, psz, &pos, MPI_COMM_WORLD));
        clear(&in);
        int upos = 0;
        CHECK_MPI(MPI_Unpack(buf, pos, &upos, MPI_BOTTOM, 1, rt, MPI_COMM_WORLD));
        CHECK(upos == pos, "unpack used %d of %d bytes", upos, pos);
        check_filled(&in, rank, with_big, "pack from MPI_BOTTOM");
        free(buf);
#endif
        MPI_Type_free(&st);
        MPI_Type_free(&rt);
    }
    /* an hindexed type of absolute addresses, received as a plain array */
    double a = 1.5 + rank, b = -2.5 - rank, got[2] = { 0, 0 };
    MPI_Aint ad[2];
    int bl[2] = { 1, 1 };
    MPI_Get_address(&b, &ad[0]);
    MPI_Get_address(&a, &ad[1]);
    MPI_Datatype h;
    MPI_Type_create_hindexed(2, bl, ad, MPI_DOUBLE, &h);
    MPI_Type_commit(&h);
    CHECK_MPI(MPI_Sendrecv(MPI_BOTTOM, 1, h, next, 7, got, 2, MPI_DOUBLE, prev, 7,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got[0] == -2.5 - prev && got[1] == 1.5 + prev, "hindexed from MPI_BOTTOM: %g %g",
          got[0], got[1]);
    MPI_Type_free(&h);
    free(out.big);
    free(in.big);
}

static void check_bounds(MPI_Datatype t, MPI_Aint lb, MPI_Aint ext, MPI_Aint tlb, MPI_Aint text,
                         const char *what)
{
    MPI_Aint l, e, tl, te;
    MPI_Type_get_extent(t, &l, &e);
    MPI_Type_get_true_extent(t, &tl, &te);
    CHECK(l == lb && e == ext && tl == tlb && te == text,
          "%s: lb %ld extent %ld true %ld+%ld, want %ld %ld %ld+%ld", what, (long)l, (long)e,
          (long)tl, (long)te, (long)lb, (long)ext, (long)tlb, (long)text);
}

static void resized(void)
{
    int src[16], dst[16];
    for (int i = 0; i < 16; i++) src[i] = 100 * rank + i;
    /* interleaved: ints 0 and 3 of each element, elements one int apart */
    MPI_Datatype v, t;
    MPI_Type_vector(2, 1, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, sizeof(int), &t);
    MPI_Type_commit(&t);
    check_bounds(t, 0, sizeof(int), 0, 4 * sizeof(int), "interleaved");
    for (int i = 0; i < 16; i++) dst[i] = -1;
    CHECK_MPI(MPI_Sendrecv(src, 3, t, next, 8, dst, 6, MPI_INT, prev, 8, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    static const int order[6] = { 0, 3, 1, 4, 2, 5 };
    for (int i = 0; i < 6; i++)
        CHECK(dst[i] == 100 * prev + order[i], "interleaved [%d] = %d", i, dst[i]);
    MPI_Type_free(&t);
    MPI_Type_free(&v);
    /* zero extent: every element is the same int */
    MPI_Type_create_resized(MPI_INT, 0, 0, &t);
    MPI_Type_commit(&t);
    check_bounds(t, 0, 0, 0, sizeof(int), "zero extent");
    for (int i = 0; i < 16; i++) dst[i] = -1;
    CHECK_MPI(MPI_Sendrecv(src + 5, 4, t, next, 9, dst, 4, MPI_INT, prev, 9, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++) CHECK(dst[i] == 100 * prev + 5, "zero extent [%d] = %d", i, dst[i]);
    MPI_Type_free(&t);
    /* a negative lower bound: element i is the int at 2i + 1, lb -4 */
    MPI_Type_create_resized(MPI_INT, -(MPI_Aint)sizeof(int), 2 * sizeof(int), &t);
    MPI_Type_commit(&t);
    check_bounds(t, -(MPI_Aint)sizeof(int), 2 * sizeof(int), 0, sizeof(int), "negative lb");
    for (int i = 0; i < 16; i++) dst[i] = -1;
    CHECK_MPI(MPI_Sendrecv(src + 1, 5, t, next, 10, dst + 1, 5, t, prev, 10, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < 11; i++)
        CHECK(dst[i] == (i % 2 ? 100 * prev + i : -1), "negative lb [%d] = %d", i, dst[i]);
    /* resizing a resized type replaces its bounds */
    MPI_Datatype t2;
    MPI_Type_create_resized(t, 0, 3 * sizeof(int), &t2);
    MPI_Type_commit(&t2);
    check_bounds(t2, 0, 3 * sizeof(int), 0, sizeof(int), "resized twice");
    for (int i = 0; i < 16; i++) dst[i] = -1;
    CHECK_MPI(MPI_Sendrecv(src, 4, t2, next, 11, dst, 4, MPI_INT, prev, 11, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++) CHECK(dst[i] == 100 * prev + 3 * i, "resized twice [%d]", i);
    /* explicit bounds inside a struct win over the data's (as MPI_LB / MPI_UB
     * markers do): the struct's bounds are the resized member's, although the
     * plain int lies beyond them */
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { 0, 8 * sizeof(int) };
    MPI_Datatype ty[2] = { t, MPI_INT }, s;
    MPI_Type_create_struct(2, bl, d, ty, &s);
    MPI_Type_commit(&s);
#ifndef MT_REFERENCE_MPICH
    check_bounds(s, -(MPI_Aint)sizeof(int), 2 * sizeof(int), 0, 9 * sizeof(int),
                 "struct of a resized type");
#else   /* MPICH 4.0 drops the markers: the bounds span the int too */
    check_bounds(s, -(MPI_Aint)sizeof(int), 10 * sizeof(int), 0, 9 * sizeof(int),
                 "struct of a resized type");
#endif
    for (int i = 0; i < 16; i++) dst[i] = -1;
    CHECK_MPI(MPI_Sendrecv(src + 1, 1, s, next, 12, dst, 2, MPI_INT, prev, 12, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK(dst[0] == 100 * prev + 1 && dst[1] == 100 * prev + 9, "struct of resized: %d %d",
          dst[0], dst[1]);
    /* a resized type with an extent that is not a multiple of its alignment */
    MPI_Datatype odd;
    MPI_Type_create_resized(MPI_CHAR, 0, 3, &odd);
    MPI_Type_commit(&odd);
    char cs[12], cr[4] = { 0, 0, 0, 0 };
    for (int i = 0; i < 12; i++) cs[i] = (char)('a' + i + rank);
    CHECK_MPI(MPI_Sendrecv(cs, 4, odd, next, 13, cr, 4, MPI_CHAR, prev, 13, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++) CHECK(cr[i] == (char)('a' + 3 * i + prev), "odd extent [%d]", i);
    MPI_Type_free(&odd);
    MPI_Type_free(&s);
    MPI_Type_free(&t2);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    bottom();
    resized();
    int rc = mt_finish("dt_bottom");
    MPI_Finalize();
    return rc;
}
