/* SPDX-License-Identifier: MIT */
/* The MPI-1 datatype procedures that the MPICH ABI still exports (programs
 * built with MPICH call them): MPI_Address, MPI_Type_extent, MPI_Type_lb,
 * MPI_Type_ub, MPI_Type_hvector, MPI_Type_hindexed, MPI_Type_struct (with the
 * MPI_LB / MPI_UB markers).  Each must agree with its MPI-2 replacement
 * (bounds, envelope, argument errors) and move the same data. */
#include "mpitest.h"

static int rank, size, next, prev;

/* Two types have the same size, bounds and type map (checked by sending one
 * and comparing with what the other packs). */
static void same_as(MPI_Datatype old, MPI_Datatype new_, const char *what)
{
    MPI_Aint ext, lb, ub, l2, e2;
    int s1, s2;
    CHECK_MPI(MPI_Type_extent(old, &ext));
    CHECK_MPI(MPI_Type_lb(old, &lb));
    CHECK_MPI(MPI_Type_ub(old, &ub));
    CHECK_MPI(MPI_Type_get_extent(new_, &l2, &e2));
    MPI_Type_size(old, &s1);
    MPI_Type_size(new_, &s2);
    CHECK(ext == e2 && lb == l2 && ub == l2 + e2 && s1 == s2,
          "%s: extent %ld lb %ld ub %ld size %d, want %ld %ld %ld %d", what, (long)ext,
          (long)lb, (long)ub, s1, (long)e2, (long)l2, (long)(l2 + e2), s2);
    /* the old type's data from the previous rank equals the new type's packing of it */
    enum { N = 256 };
    unsigned char src[N], dst[N], want[N], pk[N];
    mt_fill(src, N, rank + 3);
    unsigned char *base = src + 64, *dbase = dst + 64;
    memset(dst, 0, N);
    CHECK_MPI(MPI_Sendrecv(base, 2, old, next, 1, dbase, 2, new_, prev, 1, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    unsigned char psrc[N];
    mt_fill(psrc, N, prev + 3);
    int pos = 0;
    MPI_Pack(psrc + 64, 2, new_, pk, N, &pos, MPI_COMM_SELF);
    memset(want, 0, N);
    int up = 0;
    MPI_Unpack(pk, pos, &up, want + 64, 2, new_, MPI_COMM_SELF);
    CHECK(memcmp(dst, want, N) == 0, "%s: data differs", what);
}

static void legacy(void)
{
    /* MPI_Address is MPI_Get_address */
    double x[4];
    MPI_Aint a1, a2, a3;
    CHECK_MPI(MPI_Address(&x[2], &a1));
    CHECK_MPI(MPI_Get_address(&x[2], &a2));
    CHECK_MPI(MPI_Address(&x[0], &a3));
    CHECK(a1 == a2 && a1 - a3 == 2 * (MPI_Aint)sizeof(double), "MPI_Address");

    /* predefined bounds */
    MPI_Aint e, l, u;
    CHECK_MPI(MPI_Type_extent(MPI_DOUBLE, &e));
    CHECK_MPI(MPI_Type_lb(MPI_DOUBLE, &l));
    CHECK_MPI(MPI_Type_ub(MPI_DOUBLE, &u));
    CHECK(e == 8 && l == 0 && u == 8, "MPI_DOUBLE: extent %ld lb %ld ub %ld", (long)e, (long)l,
          (long)u);

    /* hvector */
    MPI_Datatype o, n;
    CHECK_MPI(MPI_Type_hvector(3, 2, 12, MPI_SHORT, &o));
    MPI_Type_create_hvector(3, 2, 12, MPI_SHORT, &n);
    MPI_Type_commit(&o);
    MPI_Type_commit(&n);
    same_as(o, n, "hvector");
    int ni, na, nd, comb;
    MPI_Type_get_envelope(o, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_HVECTOR || comb == MPI_COMBINER_HVECTOR_INTEGER,
          "hvector combiner %d", comb);
    MPI_Type_free(&o);
    MPI_Type_free(&n);

    /* hindexed with a negative displacement */
    int bl[3] = { 1, 3, 2 };
    MPI_Aint d[3] = { 40, -16, 8 };
    CHECK_MPI(MPI_Type_hindexed(3, bl, d, MPI_INT, &o));
    MPI_Type_create_hindexed(3, bl, d, MPI_INT, &n);
    MPI_Type_commit(&o);
    MPI_Type_commit(&n);
    same_as(o, n, "hindexed");
    MPI_Type_get_envelope(o, &ni, &na, &nd, &comb);
    CHECK((comb == MPI_COMBINER_HINDEXED || comb == MPI_COMBINER_HINDEXED_INTEGER) && nd == 1,
          "hindexed combiner %d", comb);
    MPI_Type_free(&o);
    MPI_Type_free(&n);

    /* struct with the MPI-1 bound markers: lb -8, ub 24 around an int and a char */
    int sbl[4] = { 1, 1, 1, 1 };
    MPI_Aint sd[4] = { -8, 0, 6, 24 };
    MPI_Datatype sty[4] = { MPI_LB, MPI_INT, MPI_CHAR, MPI_UB };
    CHECK_MPI(MPI_Type_struct(4, sbl, sd, sty, &o));
    MPI_Type_commit(&o);
    CHECK_MPI(MPI_Type_extent(o, &e));
    CHECK_MPI(MPI_Type_lb(o, &l));
    CHECK_MPI(MPI_Type_ub(o, &u));
    CHECK(e == 32 && l == -8 && u == 24, "markers: extent %ld lb %ld ub %ld", (long)e, (long)l,
          (long)u);
    int two[2] = { 1, 1 };
    MPI_Aint tod[2] = { 0, 6 };
    MPI_Datatype tot[2] = { MPI_INT, MPI_CHAR }, inner;
    MPI_Type_create_struct(2, two, tod, tot, &inner);
    MPI_Type_create_resized(inner, -8, 32, &n);
    MPI_Type_commit(&n);
    same_as(o, n, "struct with markers");
    MPI_Type_get_envelope(o, &ni, &na, &nd, &comb);
    CHECK((comb == MPI_COMBINER_STRUCT || comb == MPI_COMBINER_STRUCT_INTEGER) && nd == 4,
          "struct combiner %d nd %d", comb, nd);
    MPI_Type_free(&inner);
    MPI_Type_free(&o);
    MPI_Type_free(&n);

    /* negative counts and block lengths are MPI_ERR_COUNT, as for the MPI-2
     * forms (they were taken as sizes: MPI_ERR_NO_MEM), and make no type */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    o = MPI_DATATYPE_NULL;
    CHECK_CLASS(MPI_Type_hindexed(-1, bl, d, MPI_INT, &o), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_struct(-2, sbl, sd, sty, &o), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_hvector(-1, 2, 12, MPI_SHORT, &o), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Type_hvector(3, -2, 12, MPI_SHORT, &o), MPI_ERR_COUNT);
    CHECK(o == MPI_DATATYPE_NULL, "a failed constructor made a type");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    legacy();
    int rc = mt_finish("dt_legacy");
    MPI_Finalize();
    return rc;
}
