/* SPDX-License-Identifier: MIT */
/* The large-count (_c) forms of the datatype procedures: every constructor
 * against its int form (same size, bounds and data moved, contents in the
 * large-count array), data through a ring with MPI_Send_c / MPI_Recv_c,
 * MPI_Get_count_c / MPI_Get_elements_c / _x on what arrived, MPI_Pack_c &
 * co, MPI_Type_size_c / get_extent_c / get_true_extent_c, and counts beyond
 * an int (a type of 3e9 bytes, described but never allocated). */
#include "mpitest.h"
#include <limits.h>

static int rank, size, next, prev;

/* Both types have the same layout: size, extent, true extent. */
static void same_layout(MPI_Datatype a, MPI_Datatype b, const char *what)
{
    MPI_Count sa, sb, la, ea, lb, eb, tla, tea, tlb, teb;
    CHECK_MPI(MPI_Type_size_c(a, &sa));
    CHECK_MPI(MPI_Type_size_c(b, &sb));
    CHECK_MPI(MPI_Type_get_extent_c(a, &la, &ea));
    CHECK_MPI(MPI_Type_get_extent_c(b, &lb, &eb));
    CHECK_MPI(MPI_Type_get_true_extent_c(a, &tla, &tea));
    CHECK_MPI(MPI_Type_get_true_extent_c(b, &tlb, &teb));
    CHECK(sa == sb && la == lb && ea == eb && tla == tlb && tea == teb,
          "%s: size %lld/%lld lb %lld/%lld extent %lld/%lld true %lld+%lld/%lld+%lld", what,
          (long long)sa, (long long)sb, (long long)la, (long long)lb, (long long)ea,
          (long long)eb, (long long)tla, (long long)tea, (long long)tlb, (long long)teb);
    /* the int and _x forms agree with the _c ones */
    int si;
    MPI_Aint al, ae;
    MPI_Count xl, xe, xs;
    CHECK_MPI(MPI_Type_size(a, &si));
    CHECK_MPI(MPI_Type_size_x(a, &xs));
    CHECK_MPI(MPI_Type_get_extent(a, &al, &ae));
    CHECK_MPI(MPI_Type_get_extent_x(a, &xl, &xe));
    CHECK(si == sa && xs == sa && al == la && ae == ea && xl == la && xe == ea,
          "%s: int/_x forms differ", what);
    CHECK_MPI(MPI_Type_get_true_extent(a, &al, &ae));
    CHECK_MPI(MPI_Type_get_true_extent_x(a, &xl, &xe));
    CHECK(al == tla && ae == tea && xl == tla && xe == tea, "%s: true extent forms differ", what);
}

/* The envelope of a type made by a _c constructor: counts only in the large array. */
static void large_envelope(MPI_Datatype t, int combiner, MPI_Count nc_want,
                           const MPI_Count *want, const char *what)
{
    MPI_Count ni, na, nc, nd;
    int comb;
    CHECK_MPI(MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &comb));
    CHECK(comb == combiner && nc == nc_want, "%s: combiner %d nc %lld", what, comb,
          (long long)nc);
    if (nc != nc_want || nc > 16 || ni > 16 || nd > 16) return;
    int ints[16];
    MPI_Aint addrs[16];
    MPI_Count counts[16];
    MPI_Datatype types[16];
    CHECK_MPI(MPI_Type_get_contents_c(t, ni, na, nc, nd, ints, addrs, counts, types));
    for (MPI_Count i = 0; i < nc; i++)
        CHECK(counts[i] == want[i], "%s: large count [%lld] = %lld, want %lld", what,
              (long long)i, (long long)counts[i], (long long)want[i]);
    for (MPI_Count i = 0; i < nd; i++) {
        int c2;
        MPI_Count a, b, c, d;
        MPI_Type_get_envelope_c(types[i], &a, &b, &c, &d, &c2);
        if (c2 != MPI_COMBINER_NAMED) MPI_Type_free(&types[i]);
    }
}

/* Send count elements of t around the ring (as the _c calls), receive into a
 * buffer of the same layout and compare the bytes the type covers. */
static void ring(MPI_Datatype t, MPI_Count count, const char *what)
{
    MPI_Count lb, extent, tlb, text, sz;
    MPI_Type_get_extent_c(t, &lb, &extent);
    MPI_Type_get_true_extent_c(t, &tlb, &text);
    MPI_Type_size_c(t, &sz);
    MPI_Count span = (count - 1) * extent + text + 64;
    unsigned char *sbuf = mt_malloc((size_t)span), *rbuf = mt_malloc((size_t)span);
    unsigned char *want = mt_malloc((size_t)span), *packed = mt_malloc((size_t)(sz * count + 1));
    unsigned char *s0 = sbuf - tlb + 32, *r0 = rbuf - tlb + 32, *w0 = want - tlb + 32;
    mt_fill(sbuf, (size_t)span, 1000 * rank + count);
    /* what arrives: the sender's bytes under the type map, nothing else */
    unsigned char *pbuf = mt_malloc((size_t)span);
    mt_fill(pbuf, (size_t)span, 1000 * prev + count);
    MPI_Count pos = 0;
    CHECK_MPI(MPI_Pack_c(pbuf - tlb + 32, count, t, packed, sz * count + 1, &pos, MPI_COMM_SELF));
    memset(want, 0xa5, (size_t)span);
    pos = 0;
    CHECK_MPI(MPI_Unpack_c(packed, sz * count, &pos, w0, count, t, MPI_COMM_SELF));
    CHECK(pos == sz * count, "%s: unpacked %lld of %lld bytes", what, (long long)pos,
          (long long)(sz * count));
    memset(rbuf, 0xa5, (size_t)span);
    MPI_Request req;
    MPI_Status st;
    CHECK_MPI(MPI_Irecv_c(r0, count, t, prev, 7, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Send_c(s0, count, t, next, 7, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(memcmp(rbuf, want, (size_t)span) == 0, "%s: data differs", what);
    MPI_Count n;
    CHECK_MPI(MPI_Get_count_c(&st, t, &n));
    CHECK(n == count, "%s: Get_count_c %lld want %lld", what, (long long)n, (long long)count);
    CHECK_MPI(MPI_Get_elements_c(&st, MPI_BYTE, &n));
    CHECK(n == sz * count, "%s: Get_elements_c(MPI_BYTE) %lld", what, (long long)n);
    MPI_Count ex;
    CHECK_MPI(MPI_Get_elements_x(&st, t, &ex));
    CHECK_MPI(MPI_Get_elements_c(&st, t, &n));
    CHECK(n == ex && n > 0, "%s: Get_elements_c %lld, _x %lld", what, (long long)n,
          (long long)ex);
    free(sbuf);
    free(rbuf);
    free(want);
    free(packed);
    free(pbuf);
}

static void constructors(void)
{
    MPI_Datatype a, b;
    /* contiguous */
    CHECK_MPI(MPI_Type_contiguous_c(5, MPI_INT, &a));
    MPI_Type_contiguous(5, MPI_INT, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "contiguous");
    MPI_Count w1[] = { 5 };
    large_envelope(a, MPI_COMBINER_CONTIGUOUS, 1, w1, "contiguous_c");
    ring(a, 3, "contiguous_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    /* vector, negative stride */
    CHECK_MPI(MPI_Type_vector_c(3, 2, -4, MPI_DOUBLE, &a));
    MPI_Type_vector(3, 2, -4, MPI_DOUBLE, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "vector");
    MPI_Count w2[] = { 3, 2, -4 };
    large_envelope(a, MPI_COMBINER_VECTOR, 3, w2, "vector_c");
    ring(a, 2, "vector_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    /* hvector */
    CHECK_MPI(MPI_Type_create_hvector_c(4, 1, 10, MPI_SHORT, &a));
    MPI_Type_create_hvector(4, 1, 10, MPI_SHORT, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "hvector");
    MPI_Count w3[] = { 4, 1, 10 };
    large_envelope(a, MPI_COMBINER_HVECTOR, 3, w3, "hvector_c");
    ring(a, 5, "hvector_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    /* indexed */
    MPI_Count cbl[] = { 2, 0, 3 }, cdi[] = { 7, 1, 0 };
    int ibl[] = { 2, 0, 3 }, idi[] = { 7, 1, 0 };
    CHECK_MPI(MPI_Type_indexed_c(3, cbl, cdi, MPI_FLOAT, &a));
    MPI_Type_indexed(3, ibl, idi, MPI_FLOAT, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "indexed");
    MPI_Count w4[] = { 3, 2, 0, 3, 7, 1, 0 };
    large_envelope(a, MPI_COMBINER_INDEXED, 7, w4, "indexed_c");
    ring(a, 2, "indexed_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    /* hindexed */
    MPI_Count chd[] = { 24, -8, 0 };
    MPI_Aint ahd[] = { 24, -8, 0 };
    CHECK_MPI(MPI_Type_create_hindexed_c(3, cbl, chd, MPI_CHAR, &a));
    MPI_Type_create_hindexed(3, ibl, ahd, MPI_CHAR, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "hindexed");
    MPI_Count w5[] = { 3, 2, 0, 3, 24, -8, 0 };
    large_envelope(a, MPI_COMBINER_HINDEXED, 7, w5, "hindexed_c");
    ring(a, 3, "hindexed_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    /* indexed_block and hindexed_block */
    MPI_Count cbd[] = { 6, 0, 3 };
    int ibd[] = { 6, 0, 3 };
    CHECK_MPI(MPI_Type_create_indexed_block_c(3, 2, cbd, MPI_INT, &a));
    MPI_Type_create_indexed_block(3, 2, ibd, MPI_INT, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "indexed_block");
    MPI_Count w6[] = { 3, 2, 6, 0, 3 };
    large_envelope(a, MPI_COMBINER_INDEXED_BLOCK, 5, w6, "indexed_block_c");
    ring(a, 2, "indexed_block_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    MPI_Count chb[] = { 40, 0, 17 };
    MPI_Aint ahb[] = { 40, 0, 17 };
    CHECK_MPI(MPI_Type_create_hindexed_block_c(3, 3, chb, MPI_CHAR, &a));
    MPI_Type_create_hindexed_block(3, 3, ahb, MPI_CHAR, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "hindexed_block");
    MPI_Count w7[] = { 3, 3, 40, 0, 17 };
    large_envelope(a, MPI_COMBINER_HINDEXED_BLOCK, 5, w7, "hindexed_block_c");
    ring(a, 4, "hindexed_block_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    /* struct */
    MPI_Count sbl[] = { 1, 2, 3 }, sdi[] = { 0, 8, 24 };
    int sibl[] = { 1, 2, 3 };
    MPI_Aint sadi[] = { 0, 8, 24 };
    MPI_Datatype sty[] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
    CHECK_MPI(MPI_Type_create_struct_c(3, sbl, sdi, sty, &a));
    MPI_Type_create_struct(3, sibl, sadi, sty, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "struct");
    MPI_Count w8[] = { 3, 1, 2, 3, 0, 8, 24 };
    large_envelope(a, MPI_COMBINER_STRUCT, 7, w8, "struct_c");
    ring(a, 3, "struct_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    /* resized */
    CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, -4, 12, &a));
    MPI_Type_create_resized(MPI_INT, -4, 12, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "resized");
    MPI_Count w9[] = { -4, 12 };
    large_envelope(a, MPI_COMBINER_RESIZED, 2, w9, "resized_c");
    ring(a, 4, "resized_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    /* subarray: 4 x 6 doubles, rows 1..2, columns 2..4 */
    MPI_Count csz[] = { 4, 6 }, csub[] = { 2, 3 }, cst[] = { 1, 2 };
    int isz[] = { 4, 6 }, isub[] = { 2, 3 }, ist[] = { 1, 2 };
    CHECK_MPI(MPI_Type_create_subarray_c(2, csz, csub, cst, MPI_ORDER_C, MPI_DOUBLE, &a));
    MPI_Type_create_subarray(2, isz, isub, ist, MPI_ORDER_C, MPI_DOUBLE, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "subarray");
    MPI_Count w10[] = { 4, 6, 2, 3, 1, 2 };
    large_envelope(a, MPI_COMBINER_SUBARRAY, 6, w10, "subarray_c");
    ring(a, 2, "subarray_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    /* darray: 12 ints, cyclic(2) over this job's ranks */
    MPI_Count cg[] = { 12 };
    int ig[] = { 12 }, dist[] = { MPI_DISTRIBUTE_CYCLIC }, darg[] = { 2 }, ps[] = { size };
    CHECK_MPI(MPI_Type_create_darray_c(size, rank, 1, cg, dist, darg, ps, MPI_ORDER_C, MPI_INT,
                                       &a));
    MPI_Type_create_darray(size, rank, 1, ig, dist, darg, ps, MPI_ORDER_C, MPI_INT, &b);
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    same_layout(a, b, "darray");
    MPI_Count w11[] = { 12 };
    large_envelope(a, MPI_COMBINER_DARRAY, 1, w11, "darray_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
}

/* Counts beyond an int: a type of 3e9 bytes (never allocated), element counts
 * in a status, pack sizes. */
static void beyond_int(void)
{
    const MPI_Count big = 3000000000LL;
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_contiguous_c(big, MPI_BYTE, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    MPI_Count sz, lb, ext;
    CHECK_MPI(MPI_Type_size_c(t, &sz));
    CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &ext));
    CHECK(sz == big && ext == big && lb == 0, "3e9-byte type: size %lld extent %lld",
          (long long)sz, (long long)ext);
    int isz = 0;
    CHECK_MPI(MPI_Type_size(t, &isz));
    CHECK_INT(isz, MPI_UNDEFINED);
    MPI_Count psz;
    CHECK_MPI(MPI_Pack_size_c(2, t, MPI_COMM_WORLD, &psz));
    CHECK(psz >= 2 * big, "Pack_size_c %lld", (long long)psz);
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 wraps this size at 32 bits */
    MPI_Count esz;
    CHECK_MPI(MPI_Pack_external_size_c("external32", 2, t, &esz));
    CHECK(esz == 2 * big, "Pack_external_size_c %lld", (long long)esz);
#endif
    MPI_Type_free(&t);

    MPI_Status st;
    MPI_Count n;
    int in;
    CHECK_MPI(MPI_Status_set_elements_x(&st, MPI_INT, big));
    CHECK_MPI(MPI_Get_elements_c(&st, MPI_INT, &n));
    CHECK(n == big, "Get_elements_c after set_elements_x: %lld", (long long)n);
    CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
    CHECK(n == big, "Get_count_c: %lld", (long long)n);
    CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &in));
    CHECK_INT(in, MPI_UNDEFINED);
    CHECK_MPI(MPI_Get_count(&st, MPI_INT, &in));
    CHECK_INT(in, MPI_UNDEFINED);
    CHECK_MPI(MPI_Get_count_c(&st, MPI_DOUBLE, &n));
    CHECK(n == big / 2, "the same bytes as doubles: %lld", (long long)n);
#ifdef COURIER   /* MPI_Status_set_elements_c is MPI 4.1; MPICH 4.0 lacks it */
    CHECK_MPI(MPI_Status_set_elements_c(&st, MPI_SHORT, big + 1));
    CHECK_MPI(MPI_Get_elements_c(&st, MPI_SHORT, &n));
    CHECK(n == big + 1, "Status_set_elements_c: %lld", (long long)n);
    CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &n));
    CHECK(n == 2 * (big + 1), "bytes %lld", (long long)n);
#endif
}

/* Pack and unpack, native and external32, with the _c calls. */
static void pack_c(void)
{
    double d[6] = { 1.5, -2, 3.25, 4, 5, -6.5 };
    MPI_Datatype v;
    MPI_Type_vector_c(3, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    MPI_Count psz = 0, pos = 0;
    CHECK_MPI(MPI_Pack_size_c(2, v, MPI_COMM_WORLD, &psz));
    char *buf = mt_malloc((size_t)psz);
    CHECK_MPI(MPI_Pack_c(d, 1, v, buf, psz, &pos, MPI_COMM_WORLD));
    CHECK(pos == 24, "Pack_c position %lld", (long long)pos);
    double back[6] = { 0 };
    MPI_Count upos = 0;
    CHECK_MPI(MPI_Unpack_c(buf, pos, &upos, back, 3, MPI_DOUBLE, MPI_COMM_WORLD));
    CHECK(back[0] == 1.5 && back[1] == 3.25 && back[2] == 5 && upos == 24, "Unpack_c");
    free(buf);
    unsigned char ext[64];
    MPI_Count epos = 0, esz = 0;
    CHECK_MPI(MPI_Pack_external_size_c("external32", 1, v, &esz));
    CHECK(esz == 24, "external32 size %lld", (long long)esz);
    CHECK_MPI(MPI_Pack_external_c("external32", d, 1, v, ext, sizeof ext, &epos));
    CHECK(epos == 24 && ext[0] == 0x3f && ext[1] == 0xf8 && ext[8] == 0x40 && ext[9] == 0x0a,
          "external32 bytes %02x %02x %02x %02x", ext[0], ext[1], ext[8], ext[9]);
    double e2[6] = { 0 };
    MPI_Count eu = 0;
    CHECK_MPI(MPI_Unpack_external_c("external32", ext, epos, &eu, e2, 1, v));
    CHECK(e2[0] == 1.5 && e2[2] == 3.25 && e2[4] == 5 && e2[1] == 0 && eu == 24,
          "Unpack_external_c");
    MPI_Type_free(&v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    constructors();
    beyond_int();
    pack_c();
    int rc = mt_finish("dt_large");
    MPI_Finalize();
    return rc;
}
