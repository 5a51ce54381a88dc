/* SPDX-License-Identifier: MIT */
/* cg_poisson: parallel conjugate gradients for the 2D Poisson problem.
 *
 * Problem: Laplace's equation -(u_xx + u_yy) = 0 on the unit square with
 * u = sin(pi x) sinh(pi y) on the boundary (nonzero only on the top edge
 * y = 1), which is also the exact solution.  Five-point stencil on a grid of
 * mesh width h ("gridsize"), unknowns at the interior points; the boundary
 * values go to the right-hand side.  CG stops when |r|^2 <= eps^2 |r0|^2 or
 * after --maxiter iterations; every 50th iteration the residual is
 * recomputed as b - A x instead of updated.
 *
 * Parallelism: the processes form a Cartesian grid TopoX x TopoY
 * (MPI_Dims_create, or --topo, then MPI_Cart_create; neighbours from
 * MPI_Cart_shift).  Each owns a block of the interior points plus one ghost
 * layer.  Before every stencil application the ghost layers are exchanged
 * with MPI_Sendrecv: rows are contiguous, columns are sent as one
 * MPI_Type_vector element.  Dot products are local sums combined with
 * MPI_Allreduce; they are summed exactly (see acc_add), so every process grid
 * computes the same numbers bit for bit: the same iterations, the same
 * residual.  --plain-dot sums in ordinary doubles instead: faster, but the
 * last digits then depend on the process grid.
 *
 *   mpiexec -n P cg_poisson [--topo XxY] [--gridsize H] [--eps E] [--maxiter N]
 *                           [--plain-dot]
 *
 * Defaults: the assignment's validation run, gridsize 0.001 and eps 1e-7
 * (about a million unknowns; smaller problems for a quick look: --gridsize
 * 0.01).  Output: one table row "nMPI TopoX TopoY nIterations Residuum Time"
 * and the largest error against the exact solution. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* One process's block of the grid. */
typedef struct {
    int n;                      /* interior points per dimension, whole grid */
    double h;                   /* mesh width */
    int nx, ny;                 /* interior points of this block */
    int ld;                     /* row length with ghosts: nx + 2 */
    int x0, y0;                 /* global index (1..n) of the block's first point */
    int left, right, down, up;  /* neighbours, MPI_PROC_NULL at the boundary */
    MPI_Comm comm;              /* the Cartesian communicator */
    MPI_Datatype column;        /* ny doubles, stride ld: one column */
} block_t;

#define AT(b, v, i, j) ((v)[(size_t)(j) * (size_t)(b)->ld + (size_t)(i)])

enum { TAG_UP = 1, TAG_DOWN, TAG_LEFT, TAG_RIGHT };

/* Fill v's ghost layer from the neighbours' edges.  At the physical boundary
 * (MPI_PROC_NULL) the ghosts keep their value, which is 0 for all vectors. */
static void exchange_ghosts(const block_t *b, double *v)
{
    /* top row up, bottom ghost row from below; bottom row down, top ghost from above */
    MPI_Sendrecv(&AT(b, v, 1, b->ny), b->nx, MPI_DOUBLE, b->up, TAG_UP, &AT(b, v, 1, 0), b->nx,
                 MPI_DOUBLE, b->down, TAG_UP, b->comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(b, v, 1, 1), b->nx, MPI_DOUBLE, b->down, TAG_DOWN, &AT(b, v, 1, b->ny + 1),
                 b->nx, MPI_DOUBLE, b->up, TAG_DOWN, b->comm, MPI_STATUS_IGNORE);
    /* right column right, left ghost column from the left; and the mirror image */
    MPI_Sendrecv(&AT(b, v, b->nx, 1), 1, b->column, b->right, TAG_RIGHT, &AT(b, v, 0, 1), 1,
                 b->column, b->left, TAG_RIGHT, b->comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(b, v, 1, 1), 1, b->column, b->left, TAG_LEFT, &AT(b, v, b->nx + 1, 1), 1,
                 b->column, b->right, TAG_LEFT, b->comm, MPI_STATUS_IGNORE);
}

/* out = A v on the interior (v's ghosts must be current) */
static void apply_stencil(const block_t *b, const double *v, double *out)
{
    for (int j = 1; j <= b->ny; j++)
        for (int i = 1; i <= b->nx; i++)
            AT(b, out, i, j) = 4.0 * AT(b, v, i, j) - AT(b, v, i - 1, j) - AT(b, v, i + 1, j) -
                               AT(b, v, i, j - 1) - AT(b, v, i, j + 1);
}

/* ---- exact, order-independent dot products --------------------------------
 * The sum of the same numbers in a different order can round differently, so
 * a plain dot product would depend on how the grid is cut into blocks.  We add
 * every product exactly into an integer accumulator: limb k counts units of
 * 2^(ACC_LOW + 32 k); a product's 53-bit significand lands in at most three
 * limbs, each piece below 2^32, so an int64 limb holds 2^31 products without
 * carrying.  The limbs are summed over the processes with MPI_Allreduce on
 * MPI_INT64_T (integer addition: exact in any order) and only then rounded to
 * a double.  Products below 2^ACC_LOW are cut off, in the same way on every
 * process grid. */
#define ACC_LIMBS 40
#define ACC_LOW (-640)

static void acc_add(int64_t *acc, double v)
{
    uint64_t bits, u;
    memcpy(&bits, &v, sizeof bits);
    int neg = (int)(bits >> 63), ex = (int)((bits >> 52) & 0x7ff);
    u = bits & (((uint64_t)1 << 52) - 1); /* v = +-u 2^(ex - 1075) */
    if (ex == 0x7ff) return;                /* inf or nan: not in this problem */
    if (ex == 0) ex = 1;                    /* subnormal */
    else u |= (uint64_t)1 << 52;
    int sh = ex - 1075 - ACC_LOW; /* bit of u's unit above 2^ACC_LOW */
    if (sh < 0) {
        u = sh > -64 ? u >> -sh : 0;
        sh = 0;
    }
    int k = sh / 32, bit = sh % 32;
    if (u == 0 || k + 2 >= ACC_LIMBS) return; /* zero; or beyond 2^600: not in this problem */
    int64_t p0 = (int64_t)((u << bit) & 0xffffffffu);
    uint64_t rest = bit ? u >> (32 - bit) : u >> 32;
    int64_t p1 = (int64_t)(rest & 0xffffffffu), p2 = (int64_t)(rest >> 32);
    acc[k] += neg ? -p0 : p0;
    acc[k + 1] += neg ? -p1 : p1;
    acc[k + 2] += neg ? -p2 : p2;
}

static double acc_value(int64_t *acc)
{
    double v = 0.0;
    for (int k = 0; k + 1 < ACC_LIMBS; k++) { /* carries up: limbs below the top in [0, 2^32) */
        int64_t carry = acc[k] >> 32;
        acc[k] -= carry * ((int64_t)1 << 32);
        acc[k + 1] += carry;
    }
    for (int k = 0; k < ACC_LIMBS; k++) v += ldexp((double)acc[k], ACC_LOW + 32 * k);
    return v;
}

static int plain_dot = 0; /* --plain-dot: ordinary double sums instead */

static double dot(const block_t *b, const double *u, const double *v)
{
    int64_t local[ACC_LIMBS] = {0}, global[ACC_LIMBS];
    if (plain_dot) {
        double l = 0.0, g;
        for (int j = 1; j <= b->ny; j++)
            for (int i = 1; i <= b->nx; i++) l += AT(b, u, i, j) * AT(b, v, i, j);
        MPI_Allreduce(&l, &g, 1, MPI_DOUBLE, MPI_SUM, b->comm);
        return g;
    }
    for (int j = 1; j <= b->ny; j++)
        for (int i = 1; i <= b->nx; i++) acc_add(local, AT(b, u, i, j) * AT(b, v, i, j));
    MPI_Allreduce(local, global, ACC_LIMBS, MPI_INT64_T, MPI_SUM, b->comm);
    return acc_value(global);
}

/* y = y + a x on the interior */
static void axpy(const block_t *b, double *y, double a, const double *x)
{
    for (int j = 1; j <= b->ny; j++)
        for (int i = 1; i <= b->nx; i++) AT(b, y, i, j) += a * AT(b, x, i, j);
}

/* d = r + beta d on the interior */
static void xpby(const block_t *b, double *d, const double *r, double beta)
{
    for (int j = 1; j <= b->ny; j++)
        for (int i = 1; i <= b->nx; i++) AT(b, d, i, j) = AT(b, r, i, j) + beta * AT(b, d, i, j);
}

static double exact(const block_t *b, int gi, int gj)
{
    return sin(M_PI * gi * b->h) * sinh(M_PI * gj * b->h);
}

/* b = the boundary values next to each interior point (the stencil's
 * neighbours that are not unknowns); only the top edge is nonzero */
static void init_rhs(const block_t *b, double *rhs)
{
    for (int j = 1; j <= b->ny; j++)
        for (int i = 1; i <= b->nx; i++)
            AT(b, rhs, i, j) = b->y0 + j - 1 == b->n ? exact(b, b->x0 + i - 1, b->n + 1) : 0.0;
}

/* block [off, off + len) of n points split over p parts, part c */
static void split(int n, int p, int c, int *off, int *len)
{
    int base = n / p, rem = n % p;
    *len = base + (c < rem);
    *off = c * base + (c < rem ? c : rem);
}

static void usage(void)
{
    fprintf(stderr, "usage: cg_poisson [--topo XxY] [--gridsize H] [--eps E] [--maxiter N] "
                    "[--plain-dot]\n");
}

int main(int argc, char **argv)
{
    int rank, size, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], maxiter = 100000;
    double gridsize = 0.001, eps = 1e-7;
    block_t b;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        int ok = i + 1 < argc;
        if (ok && !strcmp(argv[i], "--topo"))
            ok = sscanf(argv[++i], "%dx%d", &dims[0], &dims[1]) == 2;
        else if (ok && !strcmp(argv[i], "--gridsize")) gridsize = atof(argv[++i]);
        else if (ok && !strcmp(argv[i], "--eps")) eps = atof(argv[++i]);
        else if (ok && !strcmp(argv[i], "--maxiter")) maxiter = atoi(argv[++i]);
        else if ((ok = !strcmp(argv[i], "--plain-dot"))) plain_dot = 1;
        else ok = 0;
        if (!ok) {
            if (rank == 0) usage();
            MPI_Finalize();
            return 2;
        }
    }
    b.n = (int)lround(1.0 / gridsize) - 1;
    b.h = 1.0 / (b.n + 1);
    if (dims[0] < 0 || dims[1] < 0 || (dims[0] && dims[1] && dims[0] * dims[1] != size) ||
        b.n < 1 || eps <= 0 || maxiter < 0) {
        if (rank == 0)
            fprintf(stderr, "cg_poisson: bad arguments (--topo must multiply to %d processes)\n",
                    size);
        MPI_Finalize();
        return 2;
    }
    MPI_Dims_create(size, 2, dims); /* fills the zeros; keeps a full --topo as given */
    if (dims[0] > b.n || dims[1] > b.n) {
        if (rank == 0) fprintf(stderr, "cg_poisson: more processes than grid points in a row\n");
        MPI_Finalize();
        return 2;
    }

    /* Cartesian grid: dimension 0 is x (columns), dimension 1 is y (rows) */
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &b.comm);
    MPI_Comm_rank(b.comm, &rank);
    MPI_Cart_coords(b.comm, rank, 2, coords);
    MPI_Cart_shift(b.comm, 0, 1, &b.left, &b.right);
    MPI_Cart_shift(b.comm, 1, 1, &b.down, &b.up);
    split(b.n, dims[0], coords[0], &b.x0, &b.nx);
    split(b.n, dims[1], coords[1], &b.y0, &b.ny);
    b.x0 += 1, b.y0 += 1;
    b.ld = b.nx + 2;
    MPI_Type_vector(b.ny, 1, b.ld, MPI_DOUBLE, &b.column);
    MPI_Type_commit(&b.column);

    size_t len = (size_t)(b.nx + 2) * (size_t)(b.ny + 2);
    double *x = calloc(len, sizeof(double)), *r = calloc(len, sizeof(double));
    double *d = calloc(len, sizeof(double)), *q = calloc(len, sizeof(double));
    double *rhs = calloc(len, sizeof(double));
    if (!x || !r || !d || !q || !rhs) MPI_Abort(MPI_COMM_WORLD, 1);
    init_rhs(&b, rhs);

    if (rank == 0)
        printf("cg_poisson: Laplace equation on the unit square, u = sin(pi x) sinh(pi y) on the "
               "boundary\ngrid %d x %d points (gridsize %g, %d x %d unknowns), eps %g, "
               "%d processes as %d x %d (TopoX x TopoY), %s dot products\n",
               b.n + 2, b.n + 2, gridsize, b.n, b.n, eps, size, dims[0], dims[1],
               plain_dot ? "plain" : "exact");

    MPI_Barrier(b.comm);
    double t0 = MPI_Wtime();

    /* r = b - A x, d = r (x starts at 0) */
    exchange_ghosts(&b, x);
    apply_stencil(&b, x, q);
    memcpy(r, rhs, len * sizeof(double));
    axpy(&b, r, -1.0, q);
    memcpy(d, r, len * sizeof(double));
    double delta_new = dot(&b, r, r), delta_stop = delta_new * eps * eps;
    int iters = 0;
    while (iters < maxiter && delta_new > delta_stop) {
        exchange_ghosts(&b, d); /* q = A d */
        apply_stencil(&b, d, q);
        double alpha = delta_new / dot(&b, d, q);
        axpy(&b, x, alpha, d);
        iters++;
        if (iters % 50 == 0) { /* r = b - A x, against drift */
            exchange_ghosts(&b, x);
            apply_stencil(&b, x, q);
            memcpy(r, rhs, len * sizeof(double));
            axpy(&b, r, -1.0, q);
        } else {
            axpy(&b, r, -alpha, q);
        }
        double delta_old = delta_new;
        delta_new = dot(&b, r, r);
        xpby(&b, d, r, delta_new / delta_old);
    }

    double t = MPI_Wtime() - t0, tmax, err = 0.0, err_max;
    for (int j = 1; j <= b.ny; j++)
        for (int i = 1; i <= b.nx; i++) {
            double e = fabs(AT(&b, x, i, j) - exact(&b, b.x0 + i - 1, b.y0 + j - 1));
            if (e > err) err = e;
        }
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, b.comm);
    MPI_Reduce(&err, &err_max, 1, MPI_DOUBLE, MPI_MAX, 0, b.comm);
    if (rank == 0) {
        printf("%-5s %-6s %-6s %-12s %-13s %s\n", "nMPI", "TopoX", "TopoY", "nIterations",
               "Residuum", "Time[s]");
        printf("%-5d %-6d %-6d %-12d %-13.6g %.4f\n", size, dims[0], dims[1], iters,
               sqrt(delta_new), tmax);
        printf("%s after %d iterations; max error against the exact solution %.3e\n",
               delta_new <= delta_stop ? "converged" : "NOT converged", iters, err_max);
    }

    MPI_Type_free(&b.column);
    MPI_Comm_free(&b.comm);
    free(x), free(r), free(d), free(q), free(rhs);
    MPI_Finalize();
    return delta_new <= delta_stop ? 0 : 1;
}
