/* SPDX-License-Identifier: MIT */
/* Large messages of a struct type, as MPICH's dtpools builds them for
 * "MPI_INT:4+MPI_DOUBLE:8": a struct {int[4]; double[8]} (80 bytes) placed by
 * five layouts: contiguous, indexed with uneven blocks and gaps (one element
 * of the type holding every record), resized with a negative lb and a larger
 * extent, hindexed in descending address order, and hvector with a negative
 * stride.  Each rank sends to the next with one layout and receives with
 * another (point-to-point, eager through rendezvous sizes), then every layout
 * is broadcast to receivers that use other layouts.  Every field of every
 * record is checked, and so are the gaps between records, which must keep
 * their fill. */
#include "mpitest.h"

enum { NFIELD = 12, NLAYOUT = 5 };
typedef struct {
    int i[4];
    double d[8];
} rec_t;

static int rank, size;
static MPI_Datatype base;   /* the struct, extent 80 */

/* One layout of n records: the type and count to pass, and where record j
 * lies from the buffer pointer passed (which is `shift` bytes into an
 * allocation of `span` bytes). */
typedef struct {
    MPI_Datatype type;
    MPI_Aint count, span, shift;
    MPI_Aint *at;   /* n byte offsets from the buffer pointer */
} layout_t;

static const char *layout_name[NLAYOUT] = { "contiguous", "indexed", "resized(lb<0)",
                                            "hindexed descending", "hvector stride<0" };

static void layout_make(int kind, MPI_Aint n, layout_t *l)
{
    l->at = mt_malloc((size_t)n * sizeof *l->at);
    l->count = 1;
    l->shift = 0;
    switch (kind) {
    case 0:   /* n contiguous records */
        l->type = base;
        l->count = n;
        for (MPI_Aint j = 0; j < n; j++) l->at[j] = j * 80;
        l->span = n * 80;
        break;
    case 1: { /* indexed: blocks of 1-3 records, gaps of 1-2 records */
        int *bl = mt_malloc((size_t)n * sizeof *bl), *di = mt_malloc((size_t)n * sizeof *di);
        int nb = 0, pos = 0;
        MPI_Aint j = 0;
        while (j < n) {
            int len = 1 + nb % 3;
            if (len > n - j) len = (int)(n - j);
            bl[nb] = len;
            di[nb] = pos;
            for (int k = 0; k < len; k++) l->at[j++] = (MPI_Aint)(pos + k) * 80;
            pos += len + 1 + nb % 2;
            nb++;
        }
        MPI_Type_indexed(nb, bl, di, base, &l->type);
        l->span = (MPI_Aint)pos * 80;
        free(bl);
        free(di);
        break;
    }
    case 2: { /* resized: lb -40, extent 136: records 136 bytes apart */
        l->type = MPI_DATATYPE_NULL;
        MPI_Type_create_resized(base, -40, 136, &l->type);
        l->count = n;
        l->shift = 40;
        for (MPI_Aint j = 0; j < n; j++) l->at[j] = j * 136;
        l->span = n * 136 + 40;
        break;
    }
    case 3: { /* hindexed of single records, last record first in memory */
        int *bl = mt_malloc((size_t)n * sizeof *bl);
        MPI_Aint *d = mt_malloc((size_t)n * sizeof *d);
        for (MPI_Aint j = 0; j < n; j++) {
            bl[j] = 1;
            d[j] = l->at[j] = (n - 1 - j) * 96;
        }
        MPI_Type_create_hindexed((int)n, bl, d, base, &l->type);
        l->span = n * 96;
        free(bl);
        free(d);
        break;
    }
    default: /* hvector, stride -88: record j at -88 j */
        MPI_Type_create_hvector((int)n, 1, -88, base, &l->type);
        l->shift = (n - 1) * 88;
        for (MPI_Aint j = 0; j < n; j++) l->at[j] = -j * 88;
        l->span = (n - 1) * 88 + 80;
        break;
    }
    if (l->type != base) MPI_Type_commit(&l->type);
}

static void layout_free(layout_t *l)
{
    if (l->type != base) MPI_Type_free(&l->type);
    free(l->at);
}

static double value(int src, MPI_Aint j, int f)
{
    return src * 1e7 + (double)j * NFIELD + f;
}

/* A buffer of layout l: every record from src, or the fill everywhere. */
static char *buffer(const layout_t *l, MPI_Aint n, int src)
{
    char *a = mt_malloc((size_t)l->span);
    memset(a, 0x5a, (size_t)l->span);
    if (src >= 0)
        for (MPI_Aint j = 0; j < n; j++) {
            rec_t r;
            for (int f = 0; f < 4; f++) r.i[f] = (int)value(src, j, f);
            for (int f = 0; f < 8; f++) r.d[f] = value(src, j, 4 + f);
            memcpy(a + l->shift + l->at[j], &r, sizeof r);
        }
    return a;
}

/* Every record from src in place, and every byte outside the records still
 * the fill; returns the number of wrong records and gap bytes. */
static long verify(const layout_t *l, MPI_Aint n, const char *a, int src, const char *what)
{
    long bad = 0;
    char *mark = mt_malloc((size_t)l->span);
    memset(mark, 0, (size_t)l->span);
    for (MPI_Aint j = 0; j < n; j++) {
        rec_t r;
        memcpy(&r, a + l->shift + l->at[j], sizeof r);
        memset(mark + l->shift + l->at[j], 1, sizeof r);
        int ok = 1;
        for (int f = 0; f < 4; f++) ok &= r.i[f] == (int)value(src, j, f);
        for (int f = 0; f < 8; f++) ok &= r.d[f] == value(src, j, 4 + f);
        if (!ok && bad++ < 3)
            CHECK(0, "%s: record %ld from %d: i[0]=%d d[0]=%g, expected %d %g", what, (long)j,
                  src, r.i[0], r.d[0], (int)value(src, j, 0), value(src, j, 4));
    }
    for (MPI_Aint k = 0; k < l->span; k++)
        if (!mark[k] && (unsigned char)a[k] != 0x5a && bad++ < 6)
            CHECK(0, "%s: gap byte %ld written", what, (long)k);
    free(mark);
    return bad;
}

/* Rank r sends n records with layout (r + shift) % NLAYOUT to r + 1, and
 * receives from r - 1 with the next layout. */
static void ring(MPI_Aint n, int shift)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    layout_t ls, lr;
    int ks = (rank + shift) % NLAYOUT, kr = (rank + shift + 1) % NLAYOUT;
    layout_make(ks, n, &ls);
    layout_make(kr, n, &lr);
    char *sb = buffer(&ls, n, rank), *rb = buffer(&lr, n, -1);
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(sb + ls.shift, (int)ls.count, ls.type, next, 7, rb + lr.shift,
                           (int)lr.count, lr.type, prev, 7, MPI_COMM_WORLD, &st));
    int c = -1;
    MPI_Get_count(&st, base, &c);
    CHECK(c == n, "ring n=%ld: Get_count %d", (long)n, c);
    char what[96];
    snprintf(what, sizeof what, "ring n=%ld %s -> %s", (long)n,
             layout_name[(prev + shift) % NLAYOUT], layout_name[kr]);
    verify(&lr, n, rb, prev, what);
    free(sb);
    free(rb);
    layout_free(&ls);
    layout_free(&lr);
}

/* The root sends layout k; rank r receives with layout (k + r) % NLAYOUT. */
static void bcast(MPI_Aint n, int k)
{
    int root = size - 1;
    layout_t l;
    int kind = (k + (rank == root ? 0 : rank + 1)) % NLAYOUT;
    layout_make(kind, n, &l);
    char *b = buffer(&l, n, rank == root ? root : -1);
    CHECK_MPI(MPI_Bcast(b + l.shift, (int)l.count, l.type, root, MPI_COMM_WORLD));
    char what[96];
    snprintf(what, sizeof what, "bcast n=%ld root %s, here %s", (long)n, layout_name[k],
             layout_name[kind]);
    verify(&l, n, b, root, what);
    free(b);
    layout_free(&l);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int bl[2] = { 4, 8 };
    MPI_Aint d[2] = { 0, 16 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
    MPI_Type_create_struct(2, bl, d, ty, &base);
    MPI_Type_commit(&base);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(base, &lb, &ext);
    CHECK(lb == 0 && ext == 80, "base struct: lb %ld extent %ld", (long)lb, (long)ext);
    /* 1 and 60 records go eagerly, 3000 (240 KB) and 40000 (3.2 MB) by rendezvous */
    MPI_Aint ns[] = { 1, 60, 3000, 40000 };
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int s = 0; s < NLAYOUT; s++) ring(ns[i], s);
    MPI_Aint nb[] = { 60, 40000 };
    for (size_t i = 0; i < sizeof nb / sizeof nb[0]; i++)
        for (int k = 0; k < NLAYOUT; k++) bcast(nb[i], k);
    MPI_Type_free(&base);
    int rc = mt_finish("dt_struct_big");
    MPI_Finalize();
    return rc;
}
