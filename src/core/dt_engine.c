/* SPDX-License-Identifier: MIT */
/* The datatype engine: normalising a type's loop tree (see datatype.h), and
 * walking it to pack, unpack, count elements and convert to external32.
 *
 * Every walk takes a position in the packed stream ("skip") and a budget of
 * bytes ("left"), so the same code packs a whole message or any segment of it:
 * a node whose packed bytes lie wholly before the position is passed over in
 * O(1) (count x size), and inside a node the first repetition to touch is found
 * by one division. */
#include "core/core.h"
#include "core/datatype.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Address arithmetic that stays defined for MPI_BOTTOM (a NULL base). */
static inline char *at(const void *p, MPI_Aint off)
{
    return (char *)((uintptr_t)p + (uintptr_t)off);
}

/* ---- tree maintenance ------------------------------------------------------- */
void cr_dt_node_free(cr_dt_node_t *n)
{
    for (int k = 0; k < n->nkids; k++) cr_dt_node_free(&n->kids[k]);
    free(n->kids);
    n->kids = NULL;
    n->nkids = 0;
}

int cr_dt_node_copy(cr_dt_node_t *dst, const cr_dt_node_t *src)
{
    *dst = *src;
    dst->kids = NULL;
    if (!src->nkids) return 0;
    dst->kids = calloc((size_t)src->nkids, sizeof *dst->kids);
    if (!dst->kids) {
        dst->nkids = 0;
        return -1;
    }
    for (int k = 0; k < src->nkids; k++)
        if (cr_dt_node_copy(&dst->kids[k], &src->kids[k])) {
            dst->nkids = k;
            cr_dt_node_free(dst);
            return -1;
        }
    return 0;
}

/* One repetition after another with no gap: the whole node is one run. */
static inline bool fully_dense(const cr_dt_node_t *n)
{
    return n->dense && (n->count == 1 || n->stride == (MPI_Aint)n->size);
}

static void leaf_fix(cr_dt_node_t *n)
{
    n->nelem = n->esize ? n->size / n->esize : 0;
    n->dense = 1;
    n->doff = 0;
    if (n->count > 1 && n->stride == (MPI_Aint)n->size) {
        n->size *= n->count;
        n->nelem *= n->count;
        n->count = 1;
    }
    if (n->count == 1) n->stride = 0;
}

/* Can leaf b (following leaf a in type-map order) join a?  Then a grows. */
static bool leaf_merge(cr_dt_node_t *a, const cr_dt_node_t *b)
{
    if (a->nkids || b->nkids || a->basic != b->basic || a->esize != b->esize) return false;
    if (a->count == 1 && b->count == 1 && b->off == a->off + (MPI_Aint)a->size) {
        a->size += b->size;   /* adjacent blocks become one */
        a->nelem = a->esize ? a->size / a->esize : 0;
        return true;
    }
    if (a->size != b->size) return false;
    if (b->count == 1 && a->count > 1 && b->off == a->off + a->count * a->stride) {
        a->count++;           /* one more block of a regular vector */
        return true;
    }
    if (a->count == 1 && b->count >= 1 && (b->count == 1 || b->stride == b->off - a->off)) {
        a->stride = b->off - a->off;   /* a block, then a vector of the same stride */
        a->count += b->count;
        return true;
    }
    return false;
}

/* Where each kid's packed bytes start in one repetition of n. */
static void kids_pos(cr_dt_node_t *n)
{
    MPI_Count at = 0;
    for (int k = 0; k < n->nkids; k++) {
        n->kids[k].pos = at;
        at += n->kids[k].count * n->kids[k].size;
    }
}

/* Fill in size/nelem/dense of n from its kids (already normalised), after
 * splicing single-repetition kids into n, merging neighbour leaves, dropping
 * empty kids and folding a single kid into n. */
void cr_dt_node_normalize(cr_dt_node_t *n)
{
    if (!n->nkids) {
        leaf_fix(n);
        return;
    }
    /* splice and drop */
    int total = 0;
    for (int k = 0; k < n->nkids; k++) {
        const cr_dt_node_t *c = &n->kids[k];
        if (c->count == 0 || c->size == 0) continue;
        total += c->count == 1 && c->nkids ? c->nkids : 1;
    }
    cr_dt_node_t *kids = total ? calloc((size_t)total, sizeof *kids) : NULL;
    if (total && !kids) {   /* keep the unspliced (still correct) tree */
        kids_pos(n);
        return;
    }
    int m = 0;
    for (int k = 0; k < n->nkids; k++) {
        cr_dt_node_t *c = &n->kids[k];
        if (c->count == 0 || c->size == 0) {
            cr_dt_node_free(c);
            continue;
        }
        if (c->count == 1 && c->nkids) {
            for (int j = 0; j < c->nkids; j++) {
                kids[m] = c->kids[j];
                kids[m].off += c->off;
                m++;
            }
            free(c->kids);
        } else {
            kids[m++] = *c;
        }
    }
    free(n->kids);
    /* merge neighbour leaves */
    int w = 0;
    for (int k = 0; k < m; k++) {
        if (w > 0 && leaf_merge(&kids[w - 1], &kids[k])) {
            leaf_fix(&kids[w - 1]);
            continue;
        }
        kids[w++] = kids[k];
    }
    n->kids = kids;
    n->nkids = w;
    if (w == 0) {   /* no data at all */
        free(kids);
        n->kids = NULL;
        n->size = 0;
        n->basic = CR_B_NONE;
        n->esize = 0;
        leaf_fix(n);
        return;
    }
    if (w == 1) {
        cr_dt_node_t c = kids[0];
        if (c.count == 1) {   /* n repeats c's body */
            free(kids);
            n->off += c.off;
            n->nkids = c.nkids;
            n->kids = c.kids;
            n->basic = c.basic;
            n->esize = c.esize;
            n->size = c.size;
            n->nelem = c.nelem;
            n->dense = c.dense;
            n->doff = c.doff;
            if (!n->nkids) leaf_fix(n);
            else if (n->count == 1) n->stride = 0;
            kids_pos(n);
            return;
        }
        if (n->count == 1) {  /* n is c, moved */
            free(kids);
            c.off += n->off;
            *n = c;
            return;
        }
    }
    n->size = 0;
    n->nelem = 0;
    n->dense = 1;
    n->doff = kids[0].off + kids[0].doff;
    MPI_Aint end = n->doff;
    for (int k = 0; k < w; k++) {
        const cr_dt_node_t *c = &kids[k];
        n->size += c->count * c->size;
        n->nelem += c->count * c->nelem;
        if (!fully_dense(c) || c->off + c->doff != end) n->dense = 0;
        end = c->off + c->doff + (MPI_Aint)(c->count * c->size);
    }
    kids_pos(n);
    n->basic = CR_B_NONE;
    n->esize = 0;
    if (n->count == 1) n->stride = 0;
}

/* ---- pack / unpack walks ---------------------------------------------------- */
typedef struct {
    int dir;        /* CR_DT_PACK or CR_DT_UNPACK */
    char *stream;   /* next packed byte to write (pack) or read (unpack) */
    size_t skip;    /* packed bytes still to pass over before copying */
    size_t left;    /* packed bytes still to copy */
} walk_t;

static inline void copy_run(walk_t *w, char *user, size_t n)
{
    char *d = w->dir == CR_DT_PACK ? w->stream : user;
    const char *s = w->dir == CR_DT_PACK ? user : w->stream;
    switch (n) {   /* the common small runs as single loads and stores */
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    case 16: memcpy(d, s, 16); break;
    default: memcpy(d, s, n); break;
    }
    w->stream += n;
    w->left -= n;
}

/* n blocks of `size` bytes, `stride` apart, to or from the stream.  The common
 * element sizes get a loop with a constant-size copy, which the compiler turns
 * into single loads and stores: a vector of doubles moves at memcpy speed. */
#define BLOCK_LOOP(SZ)                                                          \
    do {                                                                        \
        if (dir == CR_DT_PACK)                                                  \
            for (MPI_Aint j = 0; j < n; j++, p += stride, s += (SZ))            \
                memcpy(s, p, (SZ));                                             \
        else                                                                    \
            for (MPI_Aint j = 0; j < n; j++, p += stride, s += (SZ))            \
                memcpy(p, s, (SZ));                                             \
    } while (0)
static void copy_blocks(int dir, char *p, MPI_Aint stride, size_t size, MPI_Aint n, char *s)
{
    switch (size) {
    case 1: BLOCK_LOOP(1); break;
    case 2: BLOCK_LOOP(2); break;
    case 4: BLOCK_LOOP(4); break;
    case 8: BLOCK_LOOP(8); break;
    case 12: BLOCK_LOOP(12); break;
    case 16: BLOCK_LOOP(16); break;
    case 24: BLOCK_LOOP(24); break;
    case 32: BLOCK_LOOP(32); break;
    default: BLOCK_LOOP(size); break;
    }
}

/* The kid of n whose packed bytes hold byte `skip` of one repetition (the
 * last such kid: kids without bytes are passed over). */
static int kid_at(const cr_dt_node_t *n, size_t skip)
{
    int lo = 0, hi = n->nkids - 1;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if ((size_t)n->kids[mid].pos <= skip) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static void walk_node(walk_t *w, const cr_dt_node_t *n, char *base)
{
    size_t rep = (size_t)n->size;
    size_t total = rep * (size_t)n->count;
    if (w->skip >= total) {
        w->skip -= total;
        return;
    }
    char *p = at(base, n->off);
    MPI_Aint i = (MPI_Aint)(w->skip / rep);
    w->skip -= (size_t)i * rep;
    if (n->dense || !n->nkids) {
        p = at(p, n->doff);
        if (n->count == 1 || n->stride == (MPI_Aint)rep) {   /* one run */
            size_t k = total - (size_t)i * rep - w->skip;
            copy_run(w, at(p, i * (MPI_Aint)rep + (MPI_Aint)w->skip), k < w->left ? k : w->left);
            w->skip = 0;
            return;
        }
        if (w->skip) {   /* the tail of a block a previous segment began */
            size_t k = rep - w->skip;
            copy_run(w, at(p, i * n->stride + (MPI_Aint)w->skip), k < w->left ? k : w->left);
            w->skip = 0;
            if (!w->left) return;
            i++;
        }
        MPI_Aint whole = n->count - i;
        if ((size_t)whole > w->left / rep) whole = (MPI_Aint)(w->left / rep);
        copy_blocks(w->dir, at(p, i * n->stride), n->stride, rep, whole, w->stream);
        w->stream += (size_t)whole * rep;
        w->left -= (size_t)whole * rep;
        i += whole;
        if (i < n->count && w->left) copy_run(w, at(p, i * n->stride), w->left);
        return;
    }
    int k = 0;
    if (w->skip) {   /* the first repetition starts inside: find the kid */
        k = kid_at(n, w->skip);
        w->skip -= (size_t)n->kids[k].pos;
    }
    for (; i < n->count; i++, k = 0) {
        char *b = at(p, i * n->stride);
        for (; k < n->nkids; k++) {
            const cr_dt_node_t *c = &n->kids[k];
            if (!w->skip && fully_dense(c)) {   /* one run: no call, no seek */
                size_t len = (size_t)(c->count * c->size);
                copy_run(w, at(b, c->off + c->doff), len < w->left ? len : w->left);
            } else {
                walk_node(w, c, b);
            }
            if (!w->left) return;
        }
    }
}

size_t cr_dt_copy_seg(int dir, void *buf, MPI_Aint count, const cr_datatype_t *dt,
                      size_t offset, void *stream, size_t max)
{
    size_t esz = (size_t)dt->size;
    size_t total = (size_t)count * esz;
    if (count <= 0 || offset >= total) return 0;
    if (max > total - offset) max = total - offset;
    if (dt->contig) {
        char *u = at(buf, dt->true_lb + (MPI_Aint)offset);
        if (dir == CR_DT_PACK) memcpy(stream, u, max);
        else memcpy(u, stream, max);
        return max;
    }
    /* The count elements are one node: count repetitions, extent apart, of
     * the root's body (the root itself when it repeats once), so the walk
     * finds the first element by division and copies the elements of a
     * dense type as strided blocks. */
    const cr_dt_node_t *root = &cr_dt_desc(dt)->root;
    cr_dt_node_t one, all;
    if (root->count == 1) {
        all = *root;
    } else {
        one = *root;
        one.pos = 0;
        all = (cr_dt_node_t){ .size = root->count * root->size, .nkids = 1, .kids = &one,
                              .dense = fully_dense(root), .doff = root->off + root->doff };
    }
    all.count = count;
    all.stride = dt->extent;
    walk_t w = { .dir = dir, .stream = stream, .skip = offset, .left = max };
    walk_node(&w, &all, buf);
    return max - w.left;
}

void cr_dt_pack(const void *buf, MPI_Aint count, const cr_datatype_t *dt, void *out)
{
    cr_dt_copy_seg(CR_DT_PACK, (void *)buf, count, dt, 0, out, (size_t)-1);
}

void cr_dt_unpack(const void *in, size_t bytes, void *buf, MPI_Aint count, const cr_datatype_t *dt)
{
    cr_dt_copy_seg(CR_DT_UNPACK, buf, count, dt, 0, (void *)in, bytes);
}

size_t cr_dt_pack_seg(const void *buf, MPI_Aint count, const cr_datatype_t *dt, size_t offset,
                      void *out, size_t max_bytes)
{
    return cr_dt_copy_seg(CR_DT_PACK, (void *)buf, count, dt, offset, out, max_bytes);
}

size_t cr_dt_unpack_seg(void *buf, MPI_Aint count, const cr_datatype_t *dt, size_t offset,
                        const void *in, size_t bytes)
{
    return cr_dt_copy_seg(CR_DT_UNPACK, buf, count, dt, offset, (void *)in, bytes);
}

/* ---- counting basic elements ------------------------------------------------- */
/* Elements in the first *bytes bytes of n's packed stream (all of it when
 * *bytes is larger); *bytes drops by what n covered; *partial is set when the
 * bytes end inside a basic element. */
static MPI_Count count_node(const cr_dt_node_t *n, MPI_Count *bytes, int *partial)
{
    MPI_Count total = n->size * n->count;
    if (*bytes >= total) {
        *bytes -= total;
        return n->nelem * n->count;
    }
    MPI_Count whole = *bytes / n->size, r = whole * n->nelem;
    *bytes -= whole * n->size;
    if (!*bytes) return r;
    if (!n->nkids) {   /* inside a leaf block */
        r += *bytes / n->esize;
        if (*bytes % n->esize) *partial = 1;
        *bytes = 0;
        return r;
    }
    for (int k = 0; k < n->nkids && *bytes; k++) r += count_node(&n->kids[k], bytes, partial);
    return r;
}

MPI_Count cr_dt_count_elements(const cr_datatype_t *dt, MPI_Count bytes)
{
    if (dt->size == 0) return bytes == 0 ? 0 : -1;
    const cr_dt_node_t *root = &cr_dt_desc(dt)->root;
    MPI_Count whole = bytes / dt->size, rest = bytes % dt->size;
    MPI_Count n = whole * root->nelem * root->count;
    int partial = 0;
    if (rest) n += count_node(root, &rest, &partial);
    return partial ? -1 : n;
}

/* Packed bytes of the first *elems basic elements of n (the inverse of count_node). */
static MPI_Count bytes_node(const cr_dt_node_t *n, MPI_Count *elems)
{
    MPI_Count total = n->nelem * n->count;
    if (*elems >= total) {
        *elems -= total;
        return n->size * n->count;
    }
    MPI_Count whole = *elems / n->nelem, b = whole * n->size;
    *elems -= whole * n->nelem;
    if (!*elems) return b;
    if (!n->nkids) {
        b += *elems * n->esize;
        *elems = 0;
        return b;
    }
    for (int k = 0; k < n->nkids && *elems; k++) b += bytes_node(&n->kids[k], elems);
    return b;
}

MPI_Count cr_dt_elements_bytes(const cr_datatype_t *dt, MPI_Count elems)
{
    const cr_dt_node_t *root = &cr_dt_desc(dt)->root;
    MPI_Count per = root->nelem * root->count;
    if (per == 0) return 0;
    MPI_Count rest = elems % per;
    return elems / per * dt->size + (rest ? bytes_node(root, &rest) : 0);
}

/* ---- external32 -------------------------------------------------------------- */
/* The standard's external32 size of one element of a kind whose native size
 * is esize: C long and wchar_t are narrower there than on LP64 Linux. */
static int ext32_elem_size(cr_basic_t b, int esize)
{
    switch (b) {
    case CR_B_LONG: case CR_B_ULONG: return 4;
    case CR_B_WCHAR: return 2;
    default: return esize;
    }
}

/* Bytes swapped as one unit: complex numbers are two reals. */
static int ext32_swap_unit(cr_basic_t b, int esize)
{
    switch (b) {
    case CR_B_FCOMPLEX: case CR_B_DCOMPLEX: case CR_B_LDCOMPLEX: case CR_B_F_COMPLEX:
    case CR_B_F_DCOMPLEX: case CR_B_F_COMPLEX8: case CR_B_F_COMPLEX16: case CR_B_F_COMPLEX32:
    case CR_B_F_COMPLEX4:
        return esize / 2;
    default: return esize;
    }
}

static MPI_Count ext32_node_size(const cr_dt_node_t *n)
{
    MPI_Count one = 0;
    if (!n->nkids) {
        one = n->nelem * ext32_elem_size(n->basic, n->esize);
    } else {
        for (int k = 0; k < n->nkids; k++) one += ext32_node_size(&n->kids[k]);
    }
    return one * n->count;
}

MPI_Count cr_dt_ext32_size(const cr_datatype_t *dt)
{
    return ext32_node_size(&cr_dt_desc(dt)->root);
}

/* Big-endian bytes of an unsigned value of n bytes, and back. */
static void put_be(unsigned char *s, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8) s[i] = (unsigned char)v;
}
static uint64_t get_be(const unsigned char *s, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | s[i];
    return v;
}

/* One element between native memory u and external32 bytes s. */
static void ext32_elem(int dir, cr_basic_t b, int esize, char *u, unsigned char *s)
{
    int xs = ext32_elem_size(b, esize);
    if (xs != esize) {   /* a narrower integer there: truncate / extend */
        if (dir == CR_DT_PACK) {
            uint64_t v = 0;
            if (b == CR_B_LONG) { long x; memcpy(&x, u, sizeof x); v = (uint64_t)x; }
            else if (b == CR_B_ULONG) { unsigned long x; memcpy(&x, u, sizeof x); v = x; }
            else { wchar_t x; memcpy(&x, u, sizeof x); v = (uint64_t)x; }
            put_be(s, v, xs);
        } else {
            uint64_t v = get_be(s, xs);
            if (b == CR_B_LONG) {
                long x = (long)(int32_t)(uint32_t)v;
                memcpy(u, &x, sizeof x);
            } else if (b == CR_B_ULONG) {
                unsigned long x = (unsigned long)v;
                memcpy(u, &x, sizeof x);
            } else {
                wchar_t x = (wchar_t)v;
                memcpy(u, &x, sizeof x);
            }
        }
        return;
    }
    int unit = ext32_swap_unit(b, esize);
    for (int o = 0; o < esize; o += unit)
        for (int i = 0; i < unit; i++) {
            /* this is a little-endian host (checked at build time in ext32_walk) */
            if (dir == CR_DT_PACK) s[o + i] = (unsigned char)u[o + unit - 1 - i];
            else u[o + unit - 1 - i] = (char)s[o + i];
        }
}

static void ext32_walk(int dir, const cr_dt_node_t *n, char *base, unsigned char **s)
{
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "external32 conversion is written for little-endian hosts"
#endif
    char *p = at(base, n->off);
    for (MPI_Aint i = 0; i < n->count; i++) {
        char *r = at(p, i * n->stride);
        if (n->nkids) {
            for (int k = 0; k < n->nkids; k++) ext32_walk(dir, &n->kids[k], r, s);
            continue;
        }
        int xs = ext32_elem_size(n->basic, n->esize);
        for (MPI_Count e = 0; e < n->nelem; e++, r += n->esize, *s += xs)
            ext32_elem(dir, n->basic, n->esize, r, *s);
    }
}

size_t cr_dt_ext32_copy(int dir, void *buf, MPI_Aint count, const cr_datatype_t *dt,
                        void *stream)
{
    unsigned char *s = stream;
    const cr_dt_node_t *root = &cr_dt_desc(dt)->root;
    for (MPI_Aint e = 0; e < count; e++) ext32_walk(dir, root, at(buf, e * dt->extent), &s);
    return (size_t)(s - (unsigned char *)stream);
}

/* ---- alignment of the basic kinds (struct extents are padded to it) ---------- */
int cr_dt_basic_align(cr_basic_t b)
{
    switch (b) {
    case CR_B_NONE: case CR_B_LB: case CR_B_UB: return 1;
    case CR_B_WCHAR: return _Alignof(wchar_t);
    case CR_B_LONG: case CR_B_ULONG: return _Alignof(long);
    case CR_B_LLONG: case CR_B_ULLONG: return _Alignof(long long);
    case CR_B_FLOAT: return _Alignof(float);
    case CR_B_DOUBLE: return _Alignof(double);
    case CR_B_LDOUBLE: return _Alignof(long double);
    case CR_B_FCOMPLEX: return _Alignof(float _Complex);
    case CR_B_DCOMPLEX: return _Alignof(double _Complex);
    case CR_B_LDCOMPLEX: return _Alignof(long double _Complex);
    case CR_B_AINT: return _Alignof(MPI_Aint);
    case CR_B_OFFSET: return _Alignof(MPI_Offset);
    case CR_B_COUNT: return _Alignof(MPI_Count);
    default: {
        /* the sized kinds: natural alignment, at most that of long double */
        size_t s = cr_basic_size(b);
        size_t a = 1;
        while (a < s && a < _Alignof(long double) && s % (a * 2) == 0) a *= 2;
        return (int)a;
    }
    }
}
