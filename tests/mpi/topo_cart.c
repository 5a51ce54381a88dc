/* SPDX-License-Identifier: MIT */
/* Cartesian topologies against hand-computed answers at every rank:
 * Cart_create (2-D with one periodic dimension, 3-D, a grid smaller than the
 * communicator, 0-D), Topo_test, Cartdim_get, Cart_get, Cart_rank (with
 * periodic wrap), Cart_coords, Cart_shift (periodic, non-periodic with
 * MPI_PROC_NULL, displacement 2), Cart_sub, Cart_map, the topology copied by
 * Comm_dup, and traffic along a shift. */
#include "mpitest.h"

static int wrap(int c, int d) { return ((c % d) + d) % d; }

/* The expected neighbor along dim at disp (coords of me in c[]). */
static int expect_shift(const int *dims, const int *periods, const int *c, int nd, int dim, int disp)
{
    int cc[3];
    for (int i = 0; i < nd; i++) cc[i] = c[i];
    cc[dim] += disp;
    if (cc[dim] < 0 || cc[dim] >= dims[dim]) {
        if (!periods[dim]) return MPI_PROC_NULL;
        cc[dim] = wrap(cc[dim], dims[dim]);
    }
    int r = 0;
    for (int i = 0; i < nd; i++) r = r * dims[i] + cc[i];
    return r;
}

static void check_grid(MPI_Comm cart, int nd, const int *dims, const int *periods, int rank)
{
    int t, k, gd[3], gp[3], gc[3], c[3], r;
    CHECK_MPI(MPI_Topo_test(cart, &t));
    CHECK_INT(t, MPI_CART);
    CHECK_MPI(MPI_Cartdim_get(cart, &k));
    CHECK_INT(k, nd);
    CHECK_MPI(MPI_Cart_get(cart, nd, gd, gp, gc));
    /* row-major: the last dimension varies fastest */
    for (int i = nd - 1, rem = rank; i >= 0; i--) {
        c[i] = rem % dims[i];
        rem /= dims[i];
    }
    for (int i = 0; i < nd; i++) {
        CHECK_INT(gd[i], dims[i]);
        CHECK_INT(!!gp[i], !!periods[i]);
        CHECK_INT(gc[i], c[i]);
    }
    CHECK_MPI(MPI_Cart_rank(cart, c, &r));
    CHECK_INT(r, rank);
    /* Cart_coords of every rank */
    int size;
    MPI_Comm_size(cart, &size);
    for (int q = 0; q < size; q++) {
        int qc[3];
        CHECK_MPI(MPI_Cart_coords(cart, q, nd, qc));
        for (int i = nd - 1, rem = q; i >= 0; i--) {
            CHECK_INT(qc[i], rem % dims[i]);
            rem /= dims[i];
        }
    }
    for (int dim = 0; dim < nd; dim++) {
        for (int disp = -2; disp <= 2; disp++) {
            int src, dst;
            CHECK_MPI(MPI_Cart_shift(cart, dim, disp, &src, &dst));
            CHECK(dst == expect_shift(dims, periods, c, nd, dim, disp),
                  "shift dim %d disp %d: dest %d, expected %d", dim, disp, dst,
                  expect_shift(dims, periods, c, nd, dim, disp));
            CHECK(src == expect_shift(dims, periods, c, nd, dim, -disp),
                  "shift dim %d disp %d: source %d, expected %d", dim, disp, src,
                  expect_shift(dims, periods, c, nd, dim, -disp));
        }
        /* periodic dimensions wrap in Cart_rank */
        if (periods[dim]) {
            int cc[3];
            for (int i = 0; i < nd; i++) cc[i] = c[i];
            cc[dim] = c[dim] - dims[dim];
            CHECK_MPI(MPI_Cart_rank(cart, cc, &r));
            CHECK_INT(r, rank);
            cc[dim] = c[dim] + 3 * dims[dim];
            CHECK_MPI(MPI_Cart_rank(cart, cc, &r));
            CHECK_INT(r, rank);
        }
    }
    /* data along dimension 0 */
    int src, dst, v = 1000 + rank, got = -5;
    CHECK_MPI(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, dst, 4, &got, 1, MPI_INT, src, 4, cart,
                           MPI_STATUS_IGNORE));
    CHECK_INT(got, src == MPI_PROC_NULL ? -5 : 1000 + src);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* 2-D, dimension 0 periodic, dimension 1 not */
    int dims[3] = { 0, 0, 0 }, periods[3] = { 1, 0, 1 };
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    check_grid(cart, 2, dims, periods, rank);

    /* the topology goes with Comm_dup */
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(cart, &dup));
    check_grid(dup, 2, dims, periods, rank);
    MPI_Comm_free(&dup);

    /* Cart_sub: keep dimension 1 (a row) and keep dimension 0 (a column) */
    int c[2];
    MPI_Cart_coords(cart, rank, 2, c);
    MPI_Comm row, col, none;
    CHECK_MPI(MPI_Cart_sub(cart, (int[]){ 0, 1 }, &row));
    check_grid(row, 1, &dims[1], &periods[1], c[1]);
    int rs;
    MPI_Comm_size(row, &rs);
    CHECK_INT(rs, dims[1]);
    CHECK_MPI(MPI_Cart_sub(cart, (int[]){ 1, 0 }, &col));
    check_grid(col, 1, &dims[0], &periods[0], c[0]);
    {
        /* the row members are the world ranks with my first coordinate */
        int w = -1;
        for (int i = 0; i < dims[1]; i++) {
            w = -1;
            MPI_Group rg, wg;
            MPI_Comm_group(row, &rg);
            MPI_Comm_group(MPI_COMM_WORLD, &wg);
            MPI_Group_translate_ranks(rg, 1, &i, wg, &w);
            CHECK_INT(w, c[0] * dims[1] + i);
            MPI_Group_free(&rg);
            MPI_Group_free(&wg);
        }
    }
    /* nothing kept: a zero-dimensional grid, which holds one process; rank 0
     * of the grid gets it (a communicator congruent to MPI_COMM_SELF), every
     * other process MPI_COMM_NULL, as MPICH does (its topo/cartsuball) */
    CHECK_MPI(MPI_Cart_sub(cart, (int[]){ 0, 0 }, &none));
    if (rank == 0) {
        CHECK(none != MPI_COMM_NULL, "Cart_sub to zero dimensions gave MPI_COMM_NULL at rank 0");
    } else {
        CHECK(none == MPI_COMM_NULL, "Cart_sub to zero dimensions gave a communicator at rank %d",
              rank);
    }
    if (none != MPI_COMM_NULL) {
        int cmp = -1, nd = -1;
        MPI_Comm_size(none, &rs);
        CHECK_INT(rs, 1);
        CHECK_MPI(MPI_Comm_compare(none, MPI_COMM_SELF, &cmp));
        CHECK_INT(cmp, MPI_CONGRUENT);
        CHECK_MPI(MPI_Cartdim_get(none, &nd));
        CHECK_INT(nd, 0);
        /* and a zero-dimensional grid stays one */
        MPI_Comm again;
        CHECK_MPI(MPI_Cart_sub(none, (int[]){ 0 }, &again));
        CHECK(again != MPI_COMM_NULL, "Cart_sub of a zero-dimensional grid gave MPI_COMM_NULL");
        if (again != MPI_COMM_NULL) {
            CHECK_MPI(MPI_Cartdim_get(again, &nd));
            CHECK_INT(nd, 0);
            MPI_Comm_free(&again);
        }
        MPI_Comm_free(&none);
    }
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    MPI_Comm_free(&cart);

    /* 3-D, middle dimension periodic */
    int d3[3] = { 0, 0, 0 }, p3[3] = { 0, 1, 0 };
    MPI_Dims_create(size, 3, d3);
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 3, d3, p3, 1, &cart));
    check_grid(cart, 3, d3, p3, rank);
    MPI_Comm sub;
    CHECK_MPI(MPI_Cart_sub(cart, (int[]){ 1, 0, 1 }, &sub));
    {
        int cc[3], sd[2] = { d3[0], d3[2] }, sp[2] = { p3[0], p3[2] };
        MPI_Cart_coords(cart, rank, 3, cc);
        check_grid(sub, 2, sd, sp, cc[0] * d3[2] + cc[2]);
    }
    MPI_Comm_free(&sub);
    MPI_Comm_free(&cart);

    /* a 1-D grid of size-1 processes: the last rank is left out */
    int n1 = size > 1 ? size - 1 : 1, p1 = 0, newrank;
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, &n1, &p1, &newrank));
    CHECK_INT(newrank, rank < n1 ? rank : MPI_UNDEFINED);
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, &n1, &p1, 0, &cart));
    if (rank >= n1) {
        CHECK(cart == MPI_COMM_NULL, "rank %d outside the grid got a communicator", rank);
    } else {
        check_grid(cart, 1, &n1, &p1, rank);
        MPI_Comm_free(&cart);
    }

    /* no topology on plain communicators */
    int t;
    CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &t));
    CHECK_INT(t, MPI_UNDEFINED);
    /* errors come back under MPI_ERRORS_RETURN */
    {
        MPI_Comm w, c2;
        MPI_Comm_dup(MPI_COMM_WORLD, &w);
        MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
        int big = size + 1, per = 0, src, dst, coords[1] = { size + 5 }, rr;
        int rc = MPI_Cart_create(w, 1, &big, &per, 0, &c2);
        CHECK(rc != MPI_SUCCESS, "Cart_create with %d > %d processes succeeded", big, size);
        rc = MPI_Cart_shift(w, 0, 1, &src, &dst);
        CHECK(rc != MPI_SUCCESS, "Cart_shift without a topology succeeded");
#ifndef MT_REFERENCE_MPICH
        CHECK_CLASS(rc, MPI_ERR_TOPOLOGY);
#endif
        CHECK_MPI(MPI_Cart_create(w, 1, &size, &per, 0, &c2));
        MPI_Comm_set_errhandler(c2, MPI_ERRORS_RETURN);
        rc = MPI_Cart_rank(c2, coords, &rr);
        CHECK(rc != MPI_SUCCESS, "Cart_rank outside a non-periodic dimension succeeded");
        rc = MPI_Cart_shift(c2, 1, 1, &src, &dst);
        CHECK(rc != MPI_SUCCESS, "Cart_shift along a missing dimension succeeded");
        MPI_Comm_free(&c2);
        MPI_Comm_free(&w);
    }
    int ret = mt_finish("topo_cart");
    MPI_Finalize();
    return ret;
}
