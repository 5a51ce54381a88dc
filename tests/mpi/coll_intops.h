/* SPDX-License-Identifier: MIT */
/* Integer reductions whose every element a test checks exactly: rank r's
 * element i (coll_val), four kinds of op (MPI_SUM, MPI_MAX, a commutative
 * user addition, and a user op that is associative but not commutative,
 * a op b = a, whose reduction is rank 0's vector only if rank order is
 * kept), and the expected result of each over p ranks (coll_want).
 * Shared by coll_reduce_pipe and coll_stage.  Include after mpitest.h. */
#ifndef COURIER_TESTS_COLL_INTOPS_H
#define COURIER_TESTS_COLL_INTOPS_H

static int coll_val(int r, long i)
{
    return (int)((r * 131 + i * 7) % 1013) - 500;
}

static void coll_add_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void coll_first_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++) ((int *)inout)[i] = ((int *)in)[i];
}

enum { K_SUM, K_MAX, K_USER_ADD, K_USER_FIRST, NKIND };
static const char *const kind_names[NKIND] = { "sum", "max", "user add", "user first" };

/* ops[k] for each kind (the user ops created); coll_ops_free frees them. */
static void coll_ops_make(MPI_Op *ops)
{
    ops[K_SUM] = MPI_SUM;
    ops[K_MAX] = MPI_MAX;
    MPI_Op_create(coll_add_fn, 1, &ops[K_USER_ADD]);
    MPI_Op_create(coll_first_fn, 0, &ops[K_USER_FIRST]);
}
static void coll_ops_free(MPI_Op *ops)
{
    MPI_Op_free(&ops[K_USER_ADD]);
    MPI_Op_free(&ops[K_USER_FIRST]);
}

static long coll_want(int kind, long i, int p)
{
    long acc = coll_val(0, i);
    for (int r = 1; r < p; r++) {
        long v = coll_val(r, i);
        if (kind == K_SUM || kind == K_USER_ADD) acc += v;
        else if (kind == K_MAX) acc = v > acc ? v : acc;
    }
    return acc;
}
#endif
