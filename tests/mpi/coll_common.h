/* SPDX-License-Identifier: MIT */
/* Helpers for the collective tests (tests/mpi/coll_*.c): a small set of
 * datatypes whose layout the test knows (which "slots" of an element's extent
 * hold data), so buffers can be filled with values that identify the sender
 * and the position, and checked, holes included (they must keep the
 * sentinel -1).  Works under any MPI. */
#ifndef COURIER_COLL_COMMON_H
#define COURIER_COLL_COMMON_H
#include "mpitest.h"

typedef struct {
    MPI_Datatype dt;
    const char *name;
    int is_double;   /* slots are doubles, else ints */
    int nval;        /* data slots per element */
    int ext;         /* slots per element's extent */
    int pos[4];      /* the data slots */
} ct_type_t;

enum { CT_INT, CT_DOUBLE, CT_CONTIG, CT_VECTOR, CT_NTYPES };
static ct_type_t ct_types[CT_NTYPES];

/* Call after MPI_Init. */
static inline void ct_init_types(void)
{
    ct_types[CT_INT] = (ct_type_t){ MPI_INT, "MPI_INT", 0, 1, 1, { 0 } };
    ct_types[CT_DOUBLE] = (ct_type_t){ MPI_DOUBLE, "MPI_DOUBLE", 1, 1, 1, { 0 } };
    MPI_Datatype c, v;
    MPI_Type_contiguous(3, MPI_INT, &c);
    MPI_Type_commit(&c);
    ct_types[CT_CONTIG] = (ct_type_t){ c, "contiguous(3,int)", 0, 3, 3, { 0, 1, 2 } };
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);   /* int, hole, int: extent 3 ints */
    MPI_Type_commit(&v);
    ct_types[CT_VECTOR] = (ct_type_t){ v, "vector(2,1,2,int)", 0, 2, 3, { 0, 2 } };
}
static inline void ct_free_types(void)
{
    MPI_Type_free(&ct_types[CT_CONTIG].dt);
    MPI_Type_free(&ct_types[CT_VECTOR].dt);
}

/* The value of data slot k of what rank `who` contributes (tag: which call) */
static inline long ct_val(int who, long k, int tag)
{
    return (long)who * 1000003L + k * 7 + tag * 13 + 1;
}
static inline size_t ct_slot(const ct_type_t *t) { return t->is_double ? sizeof(double) : sizeof(int); }
static inline size_t ct_bytes(const ct_type_t *t, long count)
{
    return (size_t)(count > 0 ? count : 1) * (size_t)t->ext * ct_slot(t);
}
static inline void ct_put(const ct_type_t *t, void *buf, long slot, long v)
{
    if (t->is_double) ((double *)buf)[slot] = (double)v;
    else ((int *)buf)[slot] = (int)v;
}
static inline long ct_get(const ct_type_t *t, const void *buf, long slot)
{
    return t->is_double ? (long)((const double *)buf)[slot] : (long)((const int *)buf)[slot];
}
/* Sentinel everywhere in count elements. */
static inline void ct_clear(const ct_type_t *t, void *buf, long count)
{
    for (long s = 0; s < count * t->ext; s++) ct_put(t, buf, s, -1);
}
static inline void *ct_alloc(const ct_type_t *t, long count)
{
    void *b = mt_malloc(ct_bytes(t, count));
    ct_clear(t, b, count);
    return b;
}
/* count elements at buf: data slot k (counted from first) gets ct_val(who, k, tag) */
static inline void ct_fill(const ct_type_t *t, void *buf, long count, int who, long first, int tag)
{
    for (long e = 0; e < count; e++)
        for (int j = 0; j < t->nval; j++)
            ct_put(t, buf, e * t->ext + t->pos[j], ct_val(who, first + e * t->nval + j, tag));
}
/* Check count elements as ct_fill wrote them, holes still -1.  Returns 1 if good. */
static inline int ct_check_(const ct_type_t *t, const void *buf, long count, int who, long first, int tag,
                     const char *file, int line, const char *what)
{
    for (long e = 0; e < count; e++) {
        int d = 0;
        for (int s = 0; s < t->ext; s++) {
            long want = -1;
            if (d < t->nval && t->pos[d] == s) want = ct_val(who, first + e * t->nval + d++, tag);
            long got = ct_get(t, buf, e * t->ext + s);
            if (got != want) {
                mt_fail_(file, line, what, "%s: element %ld slot %d is %ld, expected %ld (from rank %d)",
                         t->name, e, s, got, want, who);
                return 0;
            }
        }
    }
    return 1;
}
#define CT_CHECK(t, buf, count, who, first, tag, ...) \
    do { char w_[256]; snprintf(w_, sizeof w_, __VA_ARGS__); \
         ct_check_((t), (buf), (count), (who), (first), (tag), __FILE__, __LINE__, w_); } while (0)
/* All slots of count elements must still be -1. */
static inline int ct_untouched_(const ct_type_t *t, const void *buf, long count, const char *file,
                         int line, const char *what)
{
    for (long s = 0; s < count * t->ext; s++)
        if (ct_get(t, buf, s) != -1) {
            mt_fail_(file, line, what, "%s: slot %ld is %ld, expected untouched -1", t->name, s,
                     ct_get(t, buf, s));
            return 0;
        }
    return 1;
}
#define CT_UNTOUCHED(t, buf, count, ...) \
    do { char w_[256]; snprintf(w_, sizeof w_, __VA_ARGS__); \
         ct_untouched_((t), (buf), (count), __FILE__, __LINE__, w_); } while (0)

/* Element counts every test tries: nothing, one, odd, and past the 16 KiB eager limit */
static const int ct_counts[] = { 0, 1, 7, 3000 };
enum { CT_NCOUNTS = sizeof(ct_counts) / sizeof(ct_counts[0]) };


/* ---- reductions ----------------------------------------------------------- */
/* Each kind: a datatype, an op, and how one element of one rank looks
 * (nint ints, or one double).  The affine op is associative and not
 * commutative: it composes x -> m*x + c maps, earlier rank first. */
typedef struct {
    MPI_Datatype dt;
    MPI_Op op;
    const char *name;
    int nint;        /* ints per element (0: one double) */
    int kind;
} rd_kind_t;
enum { RD_INT_SUM, RD_DOUBLE_SUM, RD_2INT_MAXLOC, RD_CONTIG_USERSUM, RD_AFFINE, RD_NKINDS };
static rd_kind_t rd_kinds[RD_NKINDS];
enum { RD_P = 1000003 };

static inline void rd_affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++) {
        long long m = (long long)a[2 * i] * b[2 * i] % RD_P;
        long long c = ((long long)b[2 * i] * a[2 * i + 1] + b[2 * i + 1]) % RD_P;
        b[2 * i] = (int)m;
        b[2 * i + 1] = (int)c;
    }
}
static inline void rd_usersum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;   /* contiguous(3, int) */
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < 3 * *len; i++) b[i] += a[i];
}

/* Call after ct_init_types(). */
static inline void rd_init_kinds(void)
{
    MPI_Op aff, usum;
    MPI_Op_create(rd_affine_fn, 0, &aff);
    MPI_Op_create(rd_usersum_fn, 1, &usum);
    rd_kinds[RD_INT_SUM] = (rd_kind_t){ MPI_INT, MPI_SUM, "MPI_INT/MPI_SUM", 1, RD_INT_SUM };
    rd_kinds[RD_DOUBLE_SUM] = (rd_kind_t){ MPI_DOUBLE, MPI_SUM, "MPI_DOUBLE/MPI_SUM", 0, RD_DOUBLE_SUM };
    rd_kinds[RD_2INT_MAXLOC] = (rd_kind_t){ MPI_2INT, MPI_MAXLOC, "MPI_2INT/MPI_MAXLOC", 2, RD_2INT_MAXLOC };
    rd_kinds[RD_CONTIG_USERSUM] = (rd_kind_t){ ct_types[CT_CONTIG].dt, usum, "contiguous(3,int)/user sum", 3, RD_CONTIG_USERSUM };
    rd_kinds[RD_AFFINE] = (rd_kind_t){ MPI_2INT, aff, "MPI_2INT/non-commutative user op", 2, RD_AFFINE };
}
static inline void rd_free_kinds(void)
{
    MPI_Op_free(&rd_kinds[RD_CONTIG_USERSUM].op);
    MPI_Op_free(&rd_kinds[RD_AFFINE].op);
}
static inline size_t rd_esize(const rd_kind_t *k) { return k->nint ? sizeof(int) * (size_t)k->nint : sizeof(double); }

/* Element e of rank r's input */
static inline void rd_value(const rd_kind_t *k, int r, long e, void *out)
{
    int *o = out;
    switch (k->kind) {
    case RD_INT_SUM: o[0] = (r + 1) * (int)(e % 13 + 1) + (int)(e % 1000); break;
    case RD_DOUBLE_SUM: *(double *)out = (double)((r + 1) * (e % 17 + 1)) + 0.5; break;
    case RD_2INT_MAXLOC: o[0] = (int)((r * 7 + e) % 5); o[1] = r; break;
    case RD_CONTIG_USERSUM: for (int j = 0; j < 3; j++) o[j] = (r + 1) * (int)(e % 11 + j); break;
    case RD_AFFINE: o[0] = (int)((r + e) % 7 + 2); o[1] = (int)((3 * r + e) % 11 + 1); break;
    }
}
/* acc = acc op next, acc holding the earlier ranks */
static inline void rd_combine(const rd_kind_t *k, void *acc, const void *next)
{
    int *a = acc;
    const int *b = next;
    switch (k->kind) {
    case RD_INT_SUM: a[0] += b[0]; break;
    case RD_DOUBLE_SUM: *(double *)acc += *(const double *)next; break;
    case RD_2INT_MAXLOC: if (b[0] > a[0] || (b[0] == a[0] && b[1] < a[1])) { a[0] = b[0]; a[1] = b[1]; } break;
    case RD_CONTIG_USERSUM: for (int j = 0; j < 3; j++) a[j] += b[j]; break;
    case RD_AFFINE: {
        int t[2] = { b[0], b[1] };
        rd_affine_fn(a, t, &(int){ 1 }, NULL);
        a[0] = t[0];
        a[1] = t[1];
        break;
    }
    }
}
/* count elements of rank r's input, element numbers starting at first */
static inline void rd_fill(const rd_kind_t *k, void *buf, long count, int r, long first)
{
    for (long e = 0; e < count; e++) rd_value(k, r, first + e, (char *)buf + e * rd_esize(k));
}
/* Expected reduction over ranks lo..hi of elements first.. */
static inline void rd_expect(const rd_kind_t *k, void *out, long count, int lo, int hi, long first)
{
    char tmp[64];
    for (long e = 0; e < count; e++) {
        char *o = (char *)out + e * rd_esize(k);
        rd_value(k, lo, first + e, o);
        for (int r = lo + 1; r <= hi; r++) {
            rd_value(k, r, first + e, tmp);
            rd_combine(k, o, tmp);
        }
    }
}
/* Byte-exact comparison: reductions must give the same bits everywhere. */
static inline int rd_check_(const rd_kind_t *k, const void *got, const void *want, long count,
                     const char *file, int line, const char *what)
{
    size_t es = rd_esize(k);
    for (long e = 0; e < count; e++)
        if (memcmp((const char *)got + e * es, (const char *)want + e * es, es)) {
            const int *g = (const int *)((const char *)got + e * es), *w = (const int *)((const char *)want + e * es);
            mt_fail_(file, line, what, "%s: element %ld differs (first ints %d vs expected %d)",
                     k->name, e, g[0], w[0]);
            return 0;
        }
    return 1;
}
#define RD_CHECK(k, got, want, count, ...) \
    do { char w_[256]; snprintf(w_, sizeof w_, __VA_ARGS__); \
         rd_check_((k), (got), (want), (count), __FILE__, __LINE__, w_); } while (0)
#endif
