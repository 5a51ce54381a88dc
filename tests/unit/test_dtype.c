/* SPDX-License-Identifier: MIT */
// sources: src/core/datatype.c src/core/dt_engine.c src/core/dt_create.c src/core/dt_pack.c src/core/status.c src/core/objtab.c
// timeout: 60
/* Unit test of the datatype engine and constructors.  Every constructor's layout
 * is checked byte by byte against a reference pack computed from a type map
 * written down by hand (a list of (offset, length) byte blocks per element and
 * the extent): full pack and unpack, unpack of a short byte count, and the
 * segment-wise pack/unpack at many split points.  Also: bounds and extents,
 * nested types, negative strides and displacements, resized types, zero counts,
 * a 1e6-element vector that must stay one loop, MPI_Get_elements on partial
 * data, external32 byte order, envelopes and contents, reference counts.
 * Build: cc -Iinclude -Isrc tests/unit/test_dtype.c <the sources above>
 * (the few core functions they need beyond those are stubbed below). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/core.h"
#include "core/datatype.h"
#include "core/api_dt.h"

static int failures, checks;
#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        checks++;                                                         \
        if (!(cond)) {                                                    \
            failures++;                                                   \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);          \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
        }                                                                 \
    } while (0)

/* ---- stubs for the rest of the core ------------------------------------ */
int cr_error(int cls, const char *fmt, ...)
{
    (void)fmt;
    return cls;
}
void cr_abort_job(int exitcode, const char *msg)
{
    fprintf(stderr, "abort: %s\n", msg ? msg : "");
    exit(exitcode ? exitcode : 1);
}
int cr_attr_copy_all(int kind, int old_handle, void **old_list, int new_handle, void **new_list)
{
    (void)kind; (void)old_handle; (void)old_list; (void)new_handle; (void)new_list;
    return 0;
}
int cr_attr_delete_all(int kind, int handle, void **list)
{
    (void)kind; (void)handle; (void)list;
    return 0;
}
int cr_threaded;   /* single-threaded: plain reference counts (dt_create.c) */

/* ---- calling the core entries with handles -------------------------------- */
#define O(h) cr_datatype_ptr(h)
static void tfree(MPI_Datatype *t)
{
    CHECK(core_type_free(O(*t)) == MPI_SUCCESS, "free 0x%x", (unsigned)*t);
    *t = MPI_DATATYPE_NULL;
}
static int mkstruct(int n, const int *bl, const MPI_Aint *d, const MPI_Datatype *ty,
                    MPI_Datatype *out)
{
    cr_datatype_t *objs[16];
    for (int i = 0; i < n; i++) objs[i] = O(ty[i]);
    return core_type_create_struct(n, CR_VEC(bl), CR_VEC(d), objs, out, 0);
}

/* ---- the reference: a type map by hand ---------------------------------- */
typedef struct { MPI_Aint off, len; } blk_t;
typedef struct {
    const char *name;
    int nb;
    blk_t b[16];
    MPI_Aint extent;
    const blk_t *bp;   /* when set, the nb blocks are there instead of in b */
} map_t;

static inline const blk_t *map_blocks(const map_t *m)
{
    return m->bp ? m->bp : m->b;
}

enum { ARENA = 1 << 18, ORIGIN = ARENA / 2 };   /* room for negative displacements */
static unsigned char src_arena[ARENA], dst_arena[ARENA], ref_arena[ARENA];
static unsigned char packed[ARENA], ref_packed[ARENA], seg[ARENA];

static MPI_Aint ref_pack(const map_t *m, MPI_Aint count)
{
    const blk_t *b = map_blocks(m);
    MPI_Aint n = 0;
    for (MPI_Aint e = 0; e < count; e++)
        for (int k = 0; k < m->nb; k++) {
            memcpy(ref_packed + n, src_arena + ORIGIN + e * m->extent + b[k].off,
                   (size_t)b[k].len);
            n += b[k].len;
        }
    return n;
}

/* Reference unpack of the first `bytes` bytes of ref_packed into ref_arena. */
static void ref_unpack(const map_t *m, MPI_Aint count, MPI_Aint bytes)
{
    const blk_t *b = map_blocks(m);
    memset(ref_arena, 0, sizeof ref_arena);
    MPI_Aint n = 0;
    for (MPI_Aint e = 0; e < count; e++)
        for (int k = 0; k < m->nb && n < bytes; k++) {
            MPI_Aint l = b[k].len < bytes - n ? b[k].len : bytes - n;
            memcpy(ref_arena + ORIGIN + e * m->extent + b[k].off, ref_packed + n, (size_t)l);
            n += l;
        }
}

/* Check type h (count elements) against map m in every way the engine is used. */
static void check_layout(MPI_Datatype h, MPI_Aint count, const map_t *m)
{
    cr_datatype_t *dt = cr_datatype_ptr(h);
    CHECK(dt != NULL, "%s: no type", m->name);
    if (!dt) return;
    for (size_t i = 0; i < sizeof src_arena; i++) src_arena[i] = (unsigned char)(i * 7 + 3);
    MPI_Aint total = ref_pack(m, count);
    CHECK(total == count * dt->size, "%s: size %lld, map says %lld", m->name,
          (long long)dt->size, (long long)(total / (count ? count : 1)));
    CHECK(dt->extent == m->extent, "%s: extent %lld, expected %lld", m->name,
          (long long)dt->extent, (long long)m->extent);
    memset(packed, 0xee, (size_t)total + 16);
    cr_dt_pack(src_arena + ORIGIN, count, dt, packed);
    CHECK(memcmp(packed, ref_packed, (size_t)total) == 0, "%s: pack differs", m->name);
    CHECK(packed[total] == 0xee, "%s: pack wrote past the end", m->name);
    /* full and short unpacks */
    MPI_Aint cuts[] = { total, total - 1, total / 2, 1, 0 };
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        if (cuts[c] < 0) continue;
        ref_unpack(m, count, cuts[c]);
        memset(dst_arena, 0, sizeof dst_arena);
        cr_dt_unpack(ref_packed, (size_t)cuts[c], dst_arena + ORIGIN, count, dt);
        CHECK(memcmp(dst_arena, ref_arena, sizeof dst_arena) == 0, "%s: unpack of %lld bytes "
              "differs", m->name, (long long)cuts[c]);
    }
    /* segments: every split into pieces of a few sizes, from every start */
    size_t pieces[] = { 1, 3, 7, 13, 64 };
    for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
        memset(seg, 0, (size_t)total + 1);
        memset(dst_arena, 0, sizeof dst_arena);
        size_t off = 0;
        while (off < (size_t)total) {
            size_t got = cr_dt_pack_seg(src_arena + ORIGIN, count, dt, off, seg + off, pieces[p]);
            size_t want = (size_t)total - off < pieces[p] ? (size_t)total - off : pieces[p];
            CHECK(got == want, "%s: seg pack at %zu moved %zu, expected %zu", m->name, off, got,
                  want);
            size_t put = cr_dt_unpack_seg(dst_arena + ORIGIN, count, dt, off, ref_packed + off,
                                          pieces[p]);
            CHECK(put == want, "%s: seg unpack at %zu moved %zu", m->name, off, put);
            if (!got) break;
            off += got;
        }
        CHECK(memcmp(seg, ref_packed, (size_t)total) == 0, "%s: seg pack by %zu differs",
              m->name, pieces[p]);
        ref_unpack(m, count, total);
        CHECK(memcmp(dst_arena, ref_arena, sizeof dst_arena) == 0, "%s: seg unpack by %zu "
              "differs", m->name, pieces[p]);
    }
    CHECK(cr_dt_pack_seg(src_arena + ORIGIN, count, dt, (size_t)total, seg, 8) == 0,
          "%s: seg pack past the end", m->name);
    /* random splits, as a pipelined transfer makes them: each segment starts
     * where the last one ended, anywhere inside a piece of the type, and a
     * segment of no bytes moves nothing */
    unsigned rnd = 12345u + (unsigned)total;
    size_t spans[] = { 5, 97, 4099 };
    for (size_t p = 0; p < sizeof spans / sizeof spans[0]; p++) {
        memset(seg, 0xee, (size_t)total + 1);
        memset(dst_arena, 0, sizeof dst_arena);
        size_t off = 0;
        while (off < (size_t)total) {
            rnd = rnd * 1103515245u + 12345u;
            size_t len = (rnd >> 8) % spans[p];
            size_t want = (size_t)total - off < len ? (size_t)total - off : len;
            size_t got = cr_dt_pack_seg(src_arena + ORIGIN, count, dt, off, seg + off, len);
            CHECK(got == want, "%s: random seg pack at %zu moved %zu, expected %zu", m->name, off,
                  got, want);
            if (!len) CHECK(seg[off] == 0xee, "%s: an empty segment at %zu wrote", m->name, off);
            size_t put = cr_dt_unpack_seg(dst_arena + ORIGIN, count, dt, off, ref_packed + off,
                                          len);
            CHECK(put == want, "%s: random seg unpack at %zu moved %zu", m->name, off, put);
            if (got != want) break;
            off += want;
        }
        CHECK(memcmp(seg, ref_packed, (size_t)total) == 0, "%s: random seg pack (up to %zu) "
              "differs", m->name, spans[p]);
        ref_unpack(m, count, total);
        CHECK(memcmp(dst_arena, ref_arena, sizeof dst_arena) == 0, "%s: random seg unpack (up "
              "to %zu) differs", m->name, spans[p]);
    }
}

static void check_bounds(MPI_Datatype h, const char *name, MPI_Aint lb, MPI_Aint extent,
                         MPI_Aint tlb, MPI_Aint text)
{
    cr_datatype_t *d = cr_datatype_ptr(h);
    CHECK(d->lb == lb && d->extent == extent, "%s: lb/extent %lld/%lld, expected %lld/%lld", name,
          (long long)d->lb, (long long)d->extent, (long long)lb, (long long)extent);
    CHECK(d->true_lb == tlb && d->true_extent == text, "%s: true lb/extent %lld/%lld, expected "
          "%lld/%lld", name, (long long)d->true_lb, (long long)d->true_extent, (long long)tlb,
          (long long)text);
}

static MPI_Datatype commit(MPI_Datatype t)
{
    core_type_commit(O(t));
    return t;
}

/* ---- the constructors ------------------------------------------------------- */
static void test_vector_family(void)
{
    MPI_Datatype t;
    core_type_vector(3, 2, 4, O(MPI_INT), &t, 0);
    map_t m = { "vector(3,2,4,int)", 3, { { 0, 8 }, { 16, 8 }, { 32, 8 } }, 40 };
    check_layout(commit(t), 1, &m);
    check_layout(t, 3, &m);
    check_bounds(t, m.name, 0, 40, 0, 40);
    CHECK(cr_datatype_ptr(t)->basic == CR_B_INT, "vector keeps basic int");
    tfree(&t);

    /* negative byte stride: blocks at 0 and -24, lb -24 */
    core_type_create_hvector(2, 1, -24, O(MPI_DOUBLE), &t, 0);
    map_t h = { "hvector(2,1,-24,double)", 2, { { 0, 8 }, { -24, 8 } }, 32 };
    check_layout(commit(t), 2, &h);
    check_bounds(t, h.name, -24, 32, -24, 32);
    tfree(&t);

    /* stride equal to the block: contiguous after all */
    core_type_vector(4, 2, 2, O(MPI_SHORT), &t, 0);
    map_t c = { "vector(4,2,2,short)", 1, { { 0, 16 } }, 16 };
    check_layout(commit(t), 5, &c);
    CHECK(cr_datatype_ptr(t)->contig, "a gapless vector is contiguous");
    tfree(&t);

    core_type_contiguous(0, O(MPI_INT), &t, 0);
    map_t z = { "contiguous(0)", 0, { { 0, 0 } }, 0 };
    check_layout(commit(t), 3, &z);
    tfree(&t);

    core_type_vector(0, 3, 5, O(MPI_INT), &t, 0);
    check_layout(commit(t), 2, &z);
    tfree(&t);

    /* the predefined pair types with a hole: value then index, 12 of 16 bytes */
    map_t di = { "MPI_DOUBLE_INT", 2, { { 0, 8 }, { 8, 4 } }, 16 };
    check_layout(MPI_DOUBLE_INT, 3, &di);
    map_t si = { "MPI_SHORT_INT", 2, { { 0, 2 }, { 4, 4 } }, 8 };
    check_layout(MPI_SHORT_INT, 3, &si);
    core_type_vector(2, 1, 2, O(MPI_DOUBLE_INT), &t, 0);
    map_t vdi = { "vector of MPI_DOUBLE_INT", 2, { { 0, 12 }, { 32, 12 } }, 48 };
    check_layout(commit(t), 2, &vdi);
    CHECK(cr_datatype_ptr(t)->basic == CR_B_DOUBLE_INT, "vector of pairs keeps the pair kind");
    tfree(&t);
}

static void test_indexed_family(void)
{
    MPI_Datatype t;
    int bl[] = { 2, 0, 1 }, di[] = { 5, 1, 0 };
    core_type_indexed(3, CR_VEC(bl), CR_VEC(di), O(MPI_INT), &t, 0);
    map_t m = { "indexed", 2, { { 20, 8 }, { 0, 4 } }, 28 };
    check_layout(commit(t), 3, &m);
    check_bounds(t, m.name, 0, 28, 0, 28);
    tfree(&t);

    int hbl[] = { 1, 2 };
    MPI_Aint hd[] = { 10, -6 };
    core_type_create_hindexed(2, CR_VEC(hbl), CR_VEC(hd), O(MPI_SHORT), &t, 0);
    map_t h = { "hindexed", 2, { { 10, 2 }, { -6, 4 } }, 18 };
    check_layout(commit(t), 2, &h);
    check_bounds(t, h.name, -6, 18, -6, 18);
    tfree(&t);

    int bd[] = { 4, 2, 0 };
    core_type_create_indexed_block(3, 1, CR_VEC(bd), O(MPI_DOUBLE), &t, 0);
    map_t b = { "indexed_block (descending)", 3, { { 32, 8 }, { 16, 8 }, { 0, 8 } }, 40 };
    check_layout(commit(t), 2, &b);
    tfree(&t);

    MPI_Aint hbd[] = { 3, 11, 30 };
    core_type_create_hindexed_block(3, 2, CR_VEC(hbd), O(MPI_CHAR), &t, 0);
    map_t hb = { "hindexed_block", 3, { { 3, 2 }, { 11, 2 }, { 30, 2 } }, 29 };
    check_layout(commit(t), 4, &hb);
    check_bounds(t, hb.name, 3, 29, 3, 29);
    tfree(&t);
}

static void test_struct_nested_resized(void)
{
    MPI_Datatype s, v, r, in, t;
    int bl[] = { 1, 1, 2 };
    MPI_Aint d[] = { 0, 8, 16 };
    MPI_Datatype ty[] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
    mkstruct(3, bl, d, ty, &s);
    /* extent 18 rounded up to the double's alignment */
    map_t ms = { "struct{int,double,char[2]}", 3, { { 0, 4 }, { 8, 8 }, { 16, 2 } }, 24 };
    check_layout(commit(s), 3, &ms);
    CHECK(cr_datatype_ptr(s)->basic == CR_B_NONE, "a mixed struct has no basic kind");

    core_type_vector(2, 1, 3, O(s), &v, 0);   /* elements at 0 and 72 */
    map_t mv = { "vector of struct", 6,
                 { { 0, 4 }, { 8, 8 }, { 16, 2 }, { 72, 4 }, { 80, 8 }, { 88, 2 } }, 96 };
    check_layout(commit(v), 2, &mv);

    /* struct of (vector of int) and (a struct) with a negative displacement */
    MPI_Datatype iv;
    core_type_vector(2, 1, 2, O(MPI_INT), &iv, 0);                 /* ints 0 and 2 */
    int bl2[] = { 1, 1 };
    MPI_Aint d2[] = { 40, -32 };
    MPI_Datatype ty2[] = { iv, s };
    mkstruct(2, bl2, d2, ty2, &in);
    map_t mi = { "struct{vector@40, struct@-32}", 5,
                 { { 40, 4 }, { 48, 4 }, { -32, 4 }, { -24, 8 }, { -16, 2 } }, 88 };
    check_layout(commit(in), 2, &mi);
    check_bounds(in, mi.name, -32, 88, -32, 84);

    /* resized: the same data, a new lb/extent; count > 1 uses the new extent */
    core_type_create_resized(O(iv), -4, 20, &r, 0);
    map_t mr = { "resized(vector, -4, 20)", 2, { { 0, 4 }, { 8, 4 } }, 20 };
    check_layout(commit(r), 4, &mr);
    check_bounds(r, mr.name, -4, 20, 0, 12);
    CHECK(!cr_datatype_ptr(r)->contig, "a resized vector is not contiguous");

    /* resizing a contiguous type to a larger extent keeps one block per element */
    core_type_create_resized(O(MPI_INT), 0, 12, &t, 0);
    map_t mt = { "resized(int, 0, 12)", 1, { { 0, 4 } }, 12 };
    check_layout(commit(t), 5, &mt);
    tfree(&t);

    /* contiguous of a resized type with an lb below zero */
    MPI_Datatype c;
    core_type_create_resized(O(MPI_INT), -8, 4, &t, 0);
    core_type_contiguous(3, O(t), &c, 0);
    map_t mc = { "contiguous(3, resized(int,-8,4))", 1, { { 0, 12 } }, 12 };
    check_layout(commit(c), 2, &mc);
    check_bounds(c, mc.name, -8, 12, 0, 12);
    CHECK(!cr_datatype_ptr(c)->contig, "lb != true_lb is not contiguous");
    tfree(&c);
    tfree(&t);

    /* MPI-1 markers: explicit lb and ub */
    int bl3[] = { 1, 1, 1 };
    MPI_Aint d3[] = { -4, 0, 16 };
    MPI_Datatype ty3[] = { MPI_LB, MPI_INT, MPI_UB };
    mkstruct(3, bl3, d3, ty3, &t);
    map_t mm = { "struct{LB@-4,int,UB@16}", 1, { { 0, 4 } }, 20 };
    check_layout(commit(t), 3, &mm);
    check_bounds(t, mm.name, -4, 20, 0, 4);
    tfree(&t);
    /* a marker sets only its own bound (MPICH's reading, its test
     * struct_no_real_types): {LB@10} has ub 0, {UB@8} lb 0 */
    int one[] = { 1, 1 };
    MPI_Aint d10[] = { 10, 0 }, d8[] = { 8 };
    MPI_Datatype tlb[] = { MPI_LB, MPI_INT }, tub[] = { MPI_UB };
    mkstruct(1, one, d10, tlb, &t);
    check_bounds(t, "struct{LB@10}", 10, -10, 0, 0);
    tfree(&t);
    mkstruct(1, one, d8, tub, &t);
    check_bounds(t, "struct{UB@8}", 0, 8, 0, 0);
    tfree(&t);
    /* an empty struct, NULL arrays allowed (MPICH's struct_zero_count) */
    CHECK(core_type_create_struct(0, CR_VEC_NONE, CR_VEC_NONE, NULL, &t, 0) == 0,
          "struct of count 0");
    check_bounds(t, "struct{}", 0, 0, 0, 0);
    MPI_Count ni, na, nd;
    int comb;
    core_type_get_envelope(O(t), &ni, &na, NULL, &nd, &comb);
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 1 && na == 0 && nd == 0, "empty struct envelope");
    tfree(&t);
    mkstruct(2, one, d10, tlb, &t);   /* {LB@10, int@0}: ub from the int */
    check_bounds(t, "struct{LB@10,int@0}", 10, -6, 0, 4);
    tfree(&t);

    /* freeing the parts first: the composite keeps working */
    tfree(&s);
    tfree(&iv);
    check_layout(v, 2, &mv);
    check_layout(in, 1, &mi);
    tfree(&v);
    tfree(&in);
    tfree(&r);
}

static void test_subarray_darray(void)
{
    MPI_Datatype t;
    /* 4 x 5 ints, C order, rows 1..2, columns 2..4 */
    int sz[] = { 4, 5 }, sub[] = { 2, 3 }, st[] = { 1, 2 };
    core_type_create_subarray(2, CR_VEC(sz), CR_VEC(sub), CR_VEC(st), MPI_ORDER_C, O(MPI_INT), &t, 0);
    map_t m = { "subarray C", 2, { { (1 * 5 + 2) * 4, 12 }, { (2 * 5 + 2) * 4, 12 } }, 80 };
    check_layout(commit(t), 2, &m);
    check_bounds(t, m.name, 0, 80, 28, 32);
    tfree(&t);
    /* the same numbers in Fortran order: dimension 0 varies fastest */
    core_type_create_subarray(2, CR_VEC(sz), CR_VEC(sub), CR_VEC(st), MPI_ORDER_FORTRAN, O(MPI_INT), &t, 0);
    map_t f = { "subarray Fortran", 3,
                { { (2 * 4 + 1) * 4, 8 }, { (3 * 4 + 1) * 4, 8 }, { (4 * 4 + 1) * 4, 8 } }, 80 };
    check_layout(commit(t), 2, &f);
    tfree(&t);
    /* 3-D, C order: 3 x 2 x 4 doubles, sub 2 x 1 x 2 at (1, 1, 1) */
    int s3[] = { 3, 2, 4 }, u3[] = { 2, 1, 2 }, o3[] = { 1, 1, 1 };
    core_type_create_subarray(3, CR_VEC(s3), CR_VEC(u3), CR_VEC(o3), MPI_ORDER_C, O(MPI_DOUBLE), &t, 0);
    map_t m3 = { "subarray 3-D", 2,
                 { { ((1 * 2 + 1) * 4 + 1) * 8, 16 }, { ((2 * 2 + 1) * 4 + 1) * 8, 16 } }, 192 };
    check_layout(commit(t), 1, &m3);
    tfree(&t);

    /* darray: 10 ints over 3 processes, cyclic(2): rank 1 holds 2,3 and 8,9 */
    int g[] = { 10 }, dist[] = { MPI_DISTRIBUTE_CYCLIC }, darg[] = { 2 }, ps[] = { 3 };
    core_type_create_darray(3, 1, 1, CR_VEC(g), dist, darg, ps, MPI_ORDER_C, O(MPI_INT), &t, 0);
    map_t dc = { "darray cyclic(2)", 2, { { 8, 8 }, { 32, 8 } }, 40 };
    check_layout(commit(t), 1, &dc);
    tfree(&t);
    /* 2-D 4 x 6, block x cyclic on a 2 x 2 grid, rank 3 = coords (1, 1):
     * rows 2..3, columns 1, 3, 5 */
    int g2[] = { 4, 6 }, d2[] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC };
    int a2[] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, p2[] = { 2, 2 };
    core_type_create_darray(4, 3, 2, CR_VEC(g2), d2, a2, p2, MPI_ORDER_C, O(MPI_INT), &t, 0);
    map_t db = { "darray block x cyclic", 6,
                 { { (2 * 6 + 1) * 4, 4 }, { (2 * 6 + 3) * 4, 4 }, { (2 * 6 + 5) * 4, 4 },
                   { (3 * 6 + 1) * 4, 4 }, { (3 * 6 + 3) * 4, 4 }, { (3 * 6 + 5) * 4, 4 } }, 96 };
    check_layout(commit(t), 1, &db);
    tfree(&t);
    /* a block that leaves the last process short: 7 over 2 -> rank 1 holds 4..6 */
    int g3[] = { 7 }, d3[] = { MPI_DISTRIBUTE_BLOCK }, a3[] = { MPI_DISTRIBUTE_DFLT_DARG };
    int p3[] = { 2 };
    core_type_create_darray(2, 1, 1, CR_VEC(g3), d3, a3, p3, MPI_ORDER_FORTRAN, O(MPI_SHORT), &t, 0);
    map_t ds = { "darray block short", 1, { { 8, 6 } }, 14 };
    check_layout(commit(t), 1, &ds);
    tfree(&t);
}

/* A million-element vector stays one loop, packs right, and is fast to seek. */
static void test_big_vector(void)
{
    enum { N = 1000000 };
    MPI_Datatype t, c;
    core_type_vector(N, 1, 2, O(MPI_DOUBLE), &t, 0);
    core_type_contiguous(N, O(t), &c, 0);   /* 1e12 elements' worth of layout, never expanded */
    const cr_dt_desc_t *x = cr_dt_desc(cr_datatype_ptr(t));
    CHECK(x->root.nkids == 0 && x->root.count == N, "vector is one leaf of %d blocks (got "
          "nkids %d count %lld)", N, x->root.nkids, (long long)x->root.count);
    const cr_dt_desc_t *xc = cr_dt_desc(cr_datatype_ptr(c));
    CHECK(xc->root.nkids <= 1, "contiguous of a vector stays small");
    double *a = malloc(2 * (size_t)N * sizeof *a), *p = malloc((size_t)N * sizeof *p);
    for (int i = 0; i < 2 * N; i++) a[i] = i;
    cr_dt_pack(a, 1, cr_datatype_ptr(t), p);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += p[i] != 2.0 * i;
    CHECK(!bad, "big vector pack: %d wrong", bad);
    /* a segment deep inside */
    double q[3];
    size_t got = cr_dt_pack_seg(a, 1, cr_datatype_ptr(t), 8 * 777777 + 4, q, 16);
    CHECK(got == 16, "deep segment size %zu", got);
    double want[3] = { 2.0 * 777777, 2.0 * 777778, 2.0 * 777779 };
    CHECK(memcmp(q, (char *)want + 4, 16) == 0, "deep segment bytes");
    free(a);
    free(p);
    tfree(&c);
    tfree(&t);
}

/* ---- types of many pieces -------------------------------------------------
 * A seek into a node with many kids is a binary search over their packed
 * positions (dt_engine.c).  These types have hundreds of kids, in a type-map
 * order that is not address order, with pieces of no data among them; each is
 * checked by check_layout (whole, short, fixed and random segments). */
enum { NPIECE = 400, NIDX = 500 };
static blk_t many_b[2 * NPIECE];

/* The extent of a type whose data blocks are b[0..n) (no explicit bounds),
 * rounded up to align. */
static MPI_Aint blocks_extent(const blk_t *b, int n, MPI_Aint align)
{
    MPI_Aint lo = 0, hi = 0;
    int seen = 0;
    for (int k = 0; k < n; k++) {
        if (!b[k].len) continue;
        if (!seen || b[k].off < lo) lo = b[k].off;
        if (!seen || b[k].off + b[k].len > hi) hi = b[k].off + b[k].len;
        seen = 1;
    }
    MPI_Aint ext = hi - lo;
    return ext % align ? ext + align - ext % align : ext;
}

static void test_many_pieces(void)
{
    /* struct: ints (1-3) and doubles (1-2) alternating, every seventh piece
     * empty, each in a 32-byte slot of a shuffled order, from -4000 up */
    static int bl[NPIECE], slot[NPIECE];
    static MPI_Aint d[NPIECE];
    static cr_datatype_t *ty[NPIECE];
    unsigned r = 7;
    for (int i = 0; i < NPIECE; i++) slot[i] = i;
    for (int i = NPIECE - 1; i > 0; i--) {
        r = r * 1103515245u + 12345u;
        int j = (int)((r >> 8) % (unsigned)(i + 1)), t = slot[i];
        slot[i] = slot[j];
        slot[j] = t;
    }
    for (int i = 0; i < NPIECE; i++) {
        int dbl = i % 2;
        ty[i] = O(dbl ? MPI_DOUBLE : MPI_INT);
        bl[i] = i % 7 == 3 ? 0 : dbl ? 1 + (i / 2) % 2 : 1 + i % 3;
        d[i] = -4000 + 32 * (MPI_Aint)slot[i] + (dbl ? (i % 3) * 8 : (i % 5) * 4);
        many_b[i] = (blk_t){ d[i], bl[i] * (dbl ? 8 : 4) };
    }
    MPI_Datatype s, v, rs, t;
    core_type_create_struct(NPIECE, CR_VEC(bl), CR_VEC(d), ty, &s, 0);
    map_t ms = { "struct of 400 shuffled pieces", NPIECE, { { 0, 0 } },
                 blocks_extent(many_b, NPIECE, 8), many_b };
    check_layout(commit(s), 3, &ms);
    const cr_dt_node_t *root = &cr_dt_desc(O(s))->root;
    CHECK(root->nkids > NPIECE / 2, "the struct keeps its pieces apart (%d kids)", root->nkids);

    /* a vector of it: the root repeats, count > 1 */
    core_type_vector(2, 1, 3, O(s), &v, 0);
    for (int i = 0; i < NPIECE; i++)
        many_b[NPIECE + i] = (blk_t){ many_b[i].off + 3 * ms.extent, many_b[i].len };
    map_t mv = { "vector(2,1,3) of the struct", 2 * NPIECE, { { 0, 0 } }, 4 * ms.extent,
                 many_b };
    check_layout(commit(v), 2, &mv);

    /* resized to a lower lb and a larger extent */
    core_type_create_resized(O(s), -5000, ms.extent + 64, &rs, 0);
    map_t mr = { "resized struct (lb -5000)", NPIECE, { { 0, 0 } }, ms.extent + 64, many_b };
    check_layout(commit(rs), 3, &mr);
    check_bounds(rs, mr.name, -5000, ms.extent + 64, cr_datatype_ptr(s)->true_lb,
                 cr_datatype_ptr(s)->true_extent);
    tfree(&rs);
    tfree(&v);
    tfree(&s);

    /* indexed ints with uneven gaps and zero-length blocks, ascending and
     * descending displacements */
    static int ibl[NIDX], idi[NIDX];
    for (int dir = 0; dir < 2; dir++) {
        int at = 0;
        for (int i = 0; i < NIDX; i++) {
            int k = dir ? NIDX - 1 - i : i;
            ibl[k] = i % 4;
            idi[k] = at;
            at += ibl[k] + 1 + i % 3;
        }
        for (int k = 0; k < NIDX; k++) many_b[k] = (blk_t){ 4 * (MPI_Aint)idi[k], 4 * ibl[k] };
        core_type_indexed(NIDX, CR_VEC(ibl), CR_VEC(idi), O(MPI_INT), &t, 0);
        map_t mi = { dir ? "indexed, 500 blocks descending" : "indexed, 500 blocks ascending",
                     NIDX, { { 0, 0 } }, blocks_extent(many_b, NIDX, 1), many_b };
        check_layout(commit(t), 3, &mi);
        tfree(&t);
    }
}

static void test_elements(void)
{
    MPI_Datatype s;
    int bl[] = { 1, 2 };
    MPI_Aint d[] = { 0, 8 };
    MPI_Datatype ty[] = { MPI_INT, MPI_DOUBLE };
    mkstruct(2, bl, d, ty, &s);   /* 20 bytes: int, double, double */
    cr_datatype_t *dt = cr_datatype_ptr(s);
    struct { MPI_Count bytes, elems; } cases[] = {
        { 0, 0 }, { 4, 1 }, { 12, 2 }, { 20, 3 }, { 24, 4 }, { 40, 6 }, { 44, 7 }, { 48, -1 },
        { 6, -1 }, { 26, -1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        MPI_Status st;
        memset(&st, 0, sizeof st);
        cr_status_set_bytes(&st, cases[i].bytes);
        MPI_Count n = -5;
        core_get_elements(&st, dt, &n);
        MPI_Count want = cases[i].elems < 0 ? MPI_UNDEFINED : cases[i].elems;
        CHECK(n == want, "Get_elements after %lld bytes: %lld, expected %lld",
              (long long)cases[i].bytes, (long long)n, (long long)want);
    }
    for (int e = 0; e <= 7; e++) {
        MPI_Status st;
        memset(&st, 0, sizeof st);
        core_status_set_elements(&st, dt, e);
        MPI_Count back = -1;
        core_get_elements(&st, dt, &back);
        CHECK(back == e, "Status_set_elements(%d) then Get_elements gives %lld", e,
              (long long)back);
    }
    CHECK(cr_dt_count_elements(cr_datatype_ptr(MPI_2INT), 8) == 2, "MPI_2INT is two ints");
    CHECK(cr_dt_count_elements(dt, 20) == 3, "one struct, three elements");
    tfree(&s);
}

static void test_external32(void)
{
    int i = 0x01020304;
    double dbl = 1.0;   /* 3f f0 00 .. */
    long l = -2;
    unsigned char out[64];
    MPI_Count pos = 0, sz = 0;
    CHECK(core_pack_external("external32", &i, 1, O(MPI_INT), out, sizeof out, &pos) == 0, "pack int");
    CHECK(pos == 4 && out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 4, "int big-endian");
    core_pack_external("external32", &dbl, 1, O(MPI_DOUBLE), out, sizeof out, &pos);
    CHECK(pos == 12 && out[4] == 0x3f && out[5] == 0xf0 && out[11] == 0, "double big-endian");
    core_pack_external("external32", &l, 1, O(MPI_LONG), out, sizeof out, &pos);
    CHECK(pos == 16 && out[12] == 0xff && out[15] == 0xfe, "long is 4 bytes in external32");
    core_pack_external_size("external32", 3, O(MPI_LONG), &sz);
    CHECK(sz == 12, "external32 size of 3 longs: %lld", (long long)sz);
    int i2 = 0;
    double d2 = 0;
    long l2 = 0;
    pos = 0;
    core_unpack_external("external32", out, 16, &pos, &i2, 1, O(MPI_INT));
    core_unpack_external("external32", out, 16, &pos, &d2, 1, O(MPI_DOUBLE));
    core_unpack_external("external32", out, 16, &pos, &l2, 1, O(MPI_LONG));
    CHECK(i2 == i && d2 == dbl && l2 == l && pos == 16, "external32 round trip");
    CHECK(core_pack_external("native", &i, 1, O(MPI_INT), out, sizeof out, &pos) == MPI_ERR_ARG,
          "unknown datarep");
    pos = 60;
    CHECK(core_pack_external("external32", &dbl, 1, O(MPI_DOUBLE), out, sizeof out, &pos) ==
          MPI_ERR_TRUNCATE, "external32 overflow");
}

/* The int forms' envelope (no large-count array) through the one entry. */
static int envelope(MPI_Datatype t, MPI_Count *ni, MPI_Count *na, MPI_Count *nd, int *comb)
{
    return core_type_get_envelope(O(t), ni, na, NULL, nd, comb);
}

static void test_envelope(void)
{
    MPI_Datatype t, inner, got[2];
    int bl[] = { 2, 1 }, di[] = { 3, 0 };
    core_type_vector(2, 1, 3, O(MPI_FLOAT), &inner, 0);
    core_type_indexed(2, CR_VEC(bl), CR_VEC(di), O(inner), &t, 0);
    MPI_Count ni, na, nc, nd;
    int comb;
    envelope(t, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_INDEXED && ni == 5 && na == 0 && nd == 1, "indexed envelope %d "
          "%lld %lld %lld", comb, (long long)ni, (long long)na, (long long)nd);
    int ints[5];
    MPI_Aint ad[1];
    core_type_get_contents(O(t), 5, 0, 0, 1, ints, ad, NULL, got);
    CHECK(ints[0] == 2 && ints[1] == 2 && ints[2] == 1 && ints[3] == 3 && ints[4] == 0,
          "indexed contents");
    CHECK(got[0] == inner, "contents returns the inner handle");
    tfree(&got[0]);   /* the caller's reference */
    tfree(&inner);
    CHECK(cr_datatype_ptr(t) != NULL, "outer type alive");
    envelope(MPI_INT, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_NAMED && ni == 0 && nd == 0, "named envelope");
    CHECK(core_type_get_contents(O(MPI_INT), 0, 0, 0, 0, NULL, NULL, NULL, NULL) == MPI_ERR_TYPE,
          "contents of a named type is an error");
    tfree(&t);

    /* a large-count constructor records large counts; the int forms refuse it */
    MPI_Count c3[3];
    core_type_vector(4, 2, 7, O(MPI_INT), &t, 1);
    core_type_get_envelope(O(t), &ni, &na, &nc, &nd, &comb);
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 0 && na == 0 && nc == 3 && nd == 1,
          "vector_c envelope");
    core_type_get_contents(O(t), 0, 0, 3, 1, NULL, NULL, c3, got);
    CHECK(c3[0] == 4 && c3[1] == 2 && c3[2] == 7 && got[0] == MPI_INT, "vector_c contents");
    CHECK(envelope(t, &ni, &na, &nd, &comb) == MPI_ERR_TYPE, "int envelope of a large-count type");
    CHECK(core_type_get_contents(O(t), 0, 0, 0, 1, NULL, NULL, NULL, got) == MPI_ERR_TYPE,
          "int contents of a large-count type");
    tfree(&t);
    /* every large-count constructor: counts in the large array, in the standard's order */
    MPI_Count lbl[] = { 3, 1 }, ldi[] = { 5, 0 };
    MPI_Count big[8];
    core_type_create_hindexed(2, CR_VEC(lbl), CR_VEC(ldi), O(MPI_SHORT), &t, 1);
    core_type_get_envelope(O(t), &ni, &na, &nc, &nd, &comb);
    core_type_get_contents(O(t), 0, 0, 8, 1, NULL, NULL, big, got);
    CHECK(comb == MPI_COMBINER_HINDEXED && ni == 0 && na == 0 && nc == 5 && big[0] == 2 &&
          big[1] == 3 && big[2] == 1 && big[3] == 5 && big[4] == 0, "hindexed_c contents");
    tfree(&t);
    core_type_create_hindexed_block(2, 4, CR_VEC(ldi), O(MPI_SHORT), &t, 1);
    core_type_get_contents(O(t), 0, 0, 8, 1, NULL, NULL, big, got);
    core_type_get_envelope(O(t), &ni, &na, &nc, &nd, &comb);
    CHECK(comb == MPI_COMBINER_HINDEXED_BLOCK && nc == 4 && big[0] == 2 && big[1] == 4 &&
          big[2] == 5 && big[3] == 0, "hindexed_block_c contents");
    tfree(&t);
    core_type_create_resized(O(MPI_INT), -4, 16, &t, 1);
    core_type_get_contents(O(t), 0, 0, 8, 1, NULL, NULL, big, got);
    core_type_get_envelope(O(t), &ni, &na, &nc, &nd, &comb);
    CHECK(comb == MPI_COMBINER_RESIZED && na == 0 && nc == 2 && big[0] == -4 && big[1] == 16,
          "resized_c contents");
    tfree(&t);
    MPI_Count gs[] = { 10 };
    int dist[] = { MPI_DISTRIBUTE_BLOCK }, darg[] = { MPI_DISTRIBUTE_DFLT_DARG }, ps[] = { 2 };
    int dints[8];
    core_type_create_darray(2, 0, 1, CR_VEC(gs), dist, darg, ps, MPI_ORDER_C, O(MPI_INT), &t, 1);
    core_type_get_envelope(O(t), &ni, &na, &nc, &nd, &comb);
    core_type_get_contents(O(t), 8, 0, 8, 1, dints, NULL, big, got);
    CHECK(comb == MPI_COMBINER_DARRAY && ni == 7 && nc == 1 && big[0] == 10 && dints[0] == 2 &&
          dints[2] == 1 && dints[3] == MPI_DISTRIBUTE_BLOCK && dints[5] == 2 &&
          dints[6] == MPI_ORDER_C, "darray_c contents (ni %lld nc %lld)", (long long)ni,
          (long long)nc);
    tfree(&t);

    core_type_create_resized(O(MPI_DOUBLE), 8, 24, &t, 0);
    envelope(t, &ni, &na, &nd, &comb);
    MPI_Aint rad[2] = { 0, 0 };
    core_type_get_contents(O(t), 0, 2, 0, 1, NULL, rad, NULL, got);
    CHECK(comb == MPI_COMBINER_RESIZED && na == 2 && nd == 1 && got[0] == MPI_DOUBLE &&
          rad[0] == 8 && rad[1] == 24, "resized envelope");
    CHECK(core_type_get_contents(O(t), 0, 1, 0, 1, NULL, rad, NULL, got) == MPI_ERR_ARG,
          "contents into too small arrays");
    MPI_Datatype dup;
    core_type_dup(O(t), &dup);
    envelope(dup, &ni, &na, &nd, &comb);
    core_type_get_contents(O(dup), 0, 0, 0, 1, NULL, NULL, NULL, got);
    CHECK(comb == MPI_COMBINER_DUP && nd == 1 && got[0] == t, "dup envelope");
    tfree(&got[0]);
    MPI_Count lb, ext;
    core_type_get_extent(O(dup), &lb, &ext);
    CHECK(lb == 8 && ext == 24, "dup keeps the bounds");
    tfree(&dup);
    tfree(&t);

    int sz[] = { 4, 4 }, sub[] = { 2, 2 }, st[] = { 1, 0 };
    core_type_create_subarray(2, CR_VEC(sz), CR_VEC(sub), CR_VEC(st), MPI_ORDER_FORTRAN,
                              O(MPI_INT), &t, 0);
    int si[8];
    envelope(t, &ni, &na, &nd, &comb);
    core_type_get_contents(O(t), 8, 0, 0, 1, si, NULL, NULL, got);
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && si[0] == 2 && si[1] == 4 && si[3] == 2 &&
          si[5] == 1 && si[6] == 0 && si[7] == MPI_ORDER_FORTRAN, "subarray contents");
    tfree(&t);

    MPI_Datatype m;
    CHECK(core_type_match_size(MPI_TYPECLASS_REAL, 8, &m) == 0 &&
          cr_datatype_ptr(m)->size == 8, "match_size real 8");
    CHECK(core_type_match_size(MPI_TYPECLASS_INTEGER, 3, &m) == MPI_ERR_ARG, "no 3-byte int");
    CHECK(core_type_match_size(MPI_TYPECLASS_REAL, 2, &m) == 0 && m == MPIX_C_FLOAT16,
          "match_size real 2");
    CHECK(core_type_match_size(MPI_TYPECLASS_INTEGER, 16, &m) == 0 && O(m)->size == 16,
          "match_size integer 16");
    CHECK(core_type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m) == 0 && m == MPI_C_DOUBLE_COMPLEX,
          "match_size complex 16");
    CHECK(core_type_match_size(7, 4, &m) == MPI_ERR_ARG, "bad typeclass");
    core_type_get_value_index(O(MPI_DOUBLE), O(MPI_INT), &m);
    CHECK(m == MPI_DOUBLE_INT, "value_index double/int");
    core_type_get_value_index(O(MPI_REAL), O(MPI_REAL), &m);
    CHECK(m == MPI_2REAL, "value_index real/real");
    core_type_get_value_index(O(MPI_DOUBLE), O(MPI_LONG), &m);
    CHECK(m == MPI_DATATYPE_NULL, "value_index without a pair type");
}

/* Fortran 90 parameterised types: the right kind, cached, an envelope of their
 * own, not freeable. */
static void test_f90(void)
{
    static const struct { int comb, p, r; MPI_Datatype like; } cases[] = {
        { MPI_COMBINER_F90_INTEGER, 0, 1, MPI_INTEGER1 },
        { MPI_COMBINER_F90_INTEGER, 0, 4, MPI_INTEGER2 },
        { MPI_COMBINER_F90_INTEGER, 0, 9, MPI_INTEGER4 },
        { MPI_COMBINER_F90_INTEGER, 0, 10, MPI_INTEGER8 },
        { MPI_COMBINER_F90_INTEGER, 0, 30, CR_H_MAKE(CR_ST_BUILTIN, CR_K_DATATYPE, 0x1032) },
        { MPI_COMBINER_F90_REAL, 6, MPI_UNDEFINED, MPI_REAL4 },
        { MPI_COMBINER_F90_REAL, MPI_UNDEFINED, 38, MPI_REAL8 },
        { MPI_COMBINER_F90_REAL, 15, 307, MPI_REAL8 },
        { MPI_COMBINER_F90_REAL, 17, MPI_UNDEFINED, MPI_LONG_DOUBLE },
        { MPI_COMBINER_F90_REAL, 30, 100, MPI_REAL16 },
        { MPI_COMBINER_F90_COMPLEX, 3, 10, MPI_COMPLEX8 },
        { MPI_COMBINER_F90_COMPLEX, 14, MPI_UNDEFINED, MPI_COMPLEX16 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int comb = cases[k].comb, p = cases[k].p, r = cases[k].r;
        MPI_Datatype t = MPI_DATATYPE_NULL, again = MPI_DATATYPE_NULL;
        int err = comb == MPI_COMBINER_F90_INTEGER ? core_type_create_f90_integer(r, &t)
                  : comb == MPI_COMBINER_F90_REAL ? core_type_create_f90_real(p, r, &t)
                                                  : core_type_create_f90_complex(p, r, &t);
        CHECK(err == 0, "f90 case %zu: error %d", k, err);
        if (err) continue;
        if (comb == MPI_COMBINER_F90_INTEGER) core_type_create_f90_integer(r, &again);
        else if (comb == MPI_COMBINER_F90_REAL) core_type_create_f90_real(p, r, &again);
        else core_type_create_f90_complex(p, r, &again);
        CHECK(again == t, "f90 case %zu: the same arguments give the same type", k);
        cr_datatype_t *d = O(t), *like = O(cases[k].like);
        CHECK(d->size == like->size && d->extent == like->extent && d->basic == like->basic &&
              d->builtin && d->committed, "f90 case %zu: stands for the predefined type", k);
        MPI_Count ni, na, nd;
        int c, ints[2] = { -1, -1 };
        envelope(t, &ni, &na, &nd, &c);
        core_type_get_contents(O(t), 2, 0, 0, 0, ints, NULL, NULL, NULL);
        int nint = comb == MPI_COMBINER_F90_INTEGER ? 1 : 2;
        CHECK(c == comb && ni == nint && na == 0 && nd == 0, "f90 case %zu: envelope", k);
        CHECK(nint == 1 ? ints[0] == r : ints[0] == p && ints[1] == r, "f90 case %zu: contents", k);
        CHECK(core_type_free(d) == MPI_ERR_TYPE, "f90 case %zu: cannot be freed", k);
    }
    MPI_Datatype t;
    CHECK(core_type_create_f90_integer(39, &t) == MPI_ERR_ARG, "no integer kind of range 39");
    CHECK(core_type_create_f90_real(34, 0, &t) == MPI_ERR_ARG, "no real of precision 34");
    CHECK(core_type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t) == MPI_ERR_ARG,
          "p and r both undefined");
}

/* Every predefined type has its MPI name, any type can be renamed, and the
 * half-precision and later MPICH types have their sizes. */
static void test_names(void)
{
    static const struct { MPI_Datatype t; const char *name; int size; } types[] = {
        { MPI_CHAR, "MPI_CHAR", 1 }, { MPI_INT, "MPI_INT", 4 },
        { MPI_LONG_LONG, "MPI_LONG_LONG_INT", 8 }, { MPI_C_COMPLEX, "MPI_C_COMPLEX", 8 },
        { MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16 }, { MPI_2INT, "MPI_2INT", 8 },
        { MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 12 }, { MPI_LB, "MPI_LB", 0 },
        { MPI_INTEGER8, "MPI_INTEGER8", 8 }, { MPI_COUNT, "MPI_COUNT", 8 },
        { MPIX_C_FLOAT16, "MPIX_C_FLOAT16", 2 }, { MPIX_BFLOAT16, "MPIX_BFLOAT16", 2 },
        { MPI_REAL2, "MPI_REAL2", 2 }, { MPI_COMPLEX4, "MPI_COMPLEX4", 4 },
        { CR_H_MAKE(CR_ST_BUILTIN, CR_K_DATATYPE, 0x1032), "MPI_INTEGER16", 16 },
        { MPI_LOGICAL1, "MPI_LOGICAL1", 1 }, { MPI_LOGICAL2, "MPI_LOGICAL2", 2 },
        { MPI_LOGICAL4, "MPI_LOGICAL4", 4 }, { MPI_LOGICAL8, "MPI_LOGICAL8", 8 },
        { MPI_LOGICAL16, "MPI_LOGICAL16", 16 },
    };
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        cr_datatype_t *d = O(types[k].t);
        CHECK(d != NULL, "%s is a datatype", types[k].name);
        if (!d) continue;
        core_type_get_name(d, name, &len);
        CHECK(strcmp(name, types[k].name) == 0 && len == (int)strlen(types[k].name),
              "name of %s: %s", types[k].name, name);
        MPI_Count sz;
        core_type_size(d, &sz);
        CHECK(sz == types[k].size, "size of %s: %lld", types[k].name, (long long)sz);
    }
    /* a predefined type can be renamed (and renamed back) */
    CHECK(core_type_set_name(O(MPI_INT), "int") == 0, "rename MPI_INT");
    core_type_get_name(O(MPI_INT), name, &len);
    CHECK(strcmp(name, "int") == 0 && len == 3, "MPI_INT renamed: %s", name);
    core_type_set_name(O(MPI_INT), "MPI_INT");
    /* names are cut at MPI_MAX_OBJECT_NAME - 1 characters */
    char longname[2 * MPI_MAX_OBJECT_NAME];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    MPI_Datatype t;
    core_type_contiguous(2, O(MPI_INT), &t, 0);
    core_type_get_name(O(t), name, &len);
    CHECK(len == 0 && name[0] == 0, "a new type has no name");
    core_type_set_name(O(t), longname);
    core_type_get_name(O(t), name, &len);
    CHECK(len == MPI_MAX_OBJECT_NAME - 1, "long name cut to %d, got %d", MPI_MAX_OBJECT_NAME - 1,
          len);
    tfree(&t);
}

/* MPI_Get_count and MPI_Get_elements agree on partial messages of derived
 * types; the status setters and getters. */
static void test_status(void)
{
    MPI_Datatype v;
    core_type_vector(3, 2, 4, O(MPI_SHORT), &v, 0);   /* 6 shorts, 12 bytes */
    MPI_Status st;
    memset(&st, 0, sizeof st);
    MPI_Count n;
    for (MPI_Count bytes = 0; bytes <= 40; bytes++) {
        cr_status_set_bytes(&st, bytes);
        core_get_count(&st, O(v), &n);
        CHECK(n == (bytes % 12 ? MPI_UNDEFINED : bytes / 12), "Get_count at %lld bytes: %lld",
              (long long)bytes, (long long)n);
        core_get_elements(&st, O(v), &n);
        CHECK(n == (bytes % 2 ? MPI_UNDEFINED : bytes / 2), "Get_elements at %lld bytes: %lld",
              (long long)bytes, (long long)n);
    }
    /* large counts survive the split count field */
    core_status_set_elements(&st, O(MPI_DOUBLE), (MPI_Count)3 << 31);
    core_get_elements(&st, O(MPI_DOUBLE), &n);
    CHECK(n == (MPI_Count)3 << 31, "large element count %lld", (long long)n);
    CHECK(cr_status_bytes(&st) == (MPI_Count)24 << 31, "large byte count");
    core_status_set_elements(&st, O(v), 7);   /* one vector and one short */
    core_get_count(&st, O(v), &n);
    CHECK(n == MPI_UNDEFINED, "7 shorts are not whole vectors");
    core_get_elements(&st, O(v), &n);
    CHECK(n == 7 && cr_status_bytes(&st) == 14, "Status_set_elements(7) of vectors");
    CHECK(core_status_set_elements(&st, O(v), -1) == MPI_ERR_COUNT, "negative count");
    /* the cancelled flag lives beside the count */
    int flag = -1;
    core_status_set_cancelled(&st, 1);
    core_test_cancelled(&st, &flag);
    CHECK(flag == 1 && cr_status_bytes(&st) == 14, "cancelled, count kept");
    core_status_set_elements(&st, O(MPI_BYTE), 5);
    core_test_cancelled(&st, &flag);
    CHECK(flag == 1, "set_elements keeps the cancelled flag");
    core_status_set_cancelled(&st, 0);
    core_test_cancelled(&st, &flag);
    CHECK(flag == 0 && cr_status_bytes(&st) == 5, "not cancelled");
    /* a type without data: 0 for an empty message, else undefined */
    cr_status_set_bytes(&st, 0);
    core_get_count(&st, O(MPI_LB), &n);
    CHECK(n == 0, "Get_count of MPI_LB on nothing");
    int v2;
    core_status_set_source(&st, 3);
    core_status_set_tag(&st, 77);
    core_status_set_error(&st, MPI_ERR_TAG);
    core_status_get_source(&st, &v2);
    CHECK(v2 == 3 && st.MPI_SOURCE == 3, "source");
    core_status_get_tag(&st, &v2);
    CHECK(v2 == 77 && st.MPI_TAG == 77, "tag");
    core_status_get_error(&st, &v2);
    CHECK(v2 == MPI_ERR_TAG && st.MPI_ERROR == MPI_ERR_TAG, "error");
    CHECK(core_get_count(MPI_STATUS_IGNORE, O(MPI_INT), &n) == MPI_ERR_ARG,
          "MPI_STATUS_IGNORE is not a status");
    tfree(&v);
    /* pack size: the int form refuses what does not fit */
    MPI_Count ps;
    CHECK(core_pack_size((MPI_Count)1 << 30, O(MPI_DOUBLE), NULL, &ps, 0) == MPI_ERR_COUNT,
          "Pack_size beyond an int");
    CHECK(core_pack_size((MPI_Count)1 << 30, O(MPI_DOUBLE), NULL, &ps, 1) == 0 &&
          ps == (MPI_Count)8 << 30, "Pack_size_c");
}

/* A type held by a pending operation outlives MPI_Type_free. */
static void test_refcount(void)
{
    MPI_Datatype t;
    core_type_vector(2, 1, 2, O(MPI_INT), &t, 0);
    cr_datatype_t *d = cr_datatype_ptr(t);
    cr_dt_retain(d);
    MPI_Datatype h = t;
    tfree(&t);
    CHECK(t == MPI_DATATYPE_NULL, "handle cleared");
    CHECK(cr_datatype_ptr(h) == d && d->size == 8, "still alive while retained");
    cr_dt_release(d);
    CHECK(cr_datatype_ptr(h) == NULL, "gone after the last release");
}

int main(void)
{
    cr_datatype_init();
    test_vector_family();
    test_indexed_family();
    test_struct_nested_resized();
    test_subarray_darray();
    test_big_vector();
    test_many_pieces();
    test_elements();
    test_external32();
    test_envelope();
    test_f90();
    test_names();
    test_status();
    test_refcount();
    printf("test_dtype: %d checks, %d failures\n", checks, failures);
    if (failures) return 1;
    printf("PASS\n");
    return 0;
}
