/* SPDX-License-Identifier: MIT */
/* MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw (and MPI_Alltoall_c): counts 0,
 * 1, 7 and past the eager limit, MPI_INT, MPI_DOUBLE, a contiguous and a
 * vector type, MPI_IN_PLACE; the v form with per-pair counts (some zero) and
 * gaps between blocks, the w form with a different datatype per pair and
 * byte displacements.  Every value names its sender, its destination and its
 * position.  Run under COURIER_COLL_ALLTOALL_ALG=1/2. */
#include "coll_common.h"

static int rank, size;

static void alltoall_one(const ct_type_t *t, int count, int inplace, int tag)
{
    size_t bs = (size_t)count * t->ext * ct_slot(t);
    long per = (long)count * t->nval;   /* data slots per block */
    void *sbuf = ct_alloc(t, (long)count * size), *rbuf = ct_alloc(t, (long)count * size);
    ct_fill(t, inplace ? rbuf : sbuf, (long)count * size, rank, 0, tag);
    CHECK_MPI(MPI_Alltoall(inplace ? MPI_IN_PLACE : sbuf, count, t->dt, rbuf, count, t->dt,
                           MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CT_CHECK(t, (char *)rbuf + i * bs, count, i, rank * per, tag,
                 "Alltoall count %d inplace %d block from %d", count, inplace, i);
    free(sbuf);
    free(rbuf);
}

/* elements from rank a to rank b (symmetric, as MPI_IN_PLACE needs) */
static int pcount(int count, int a, int b) { return count ? ((a + b + count) % 4) * (count / 3 + 1) : 0; }

static void alltoallv_one(const ct_type_t *t, int count, int inplace, int tag)
{
    size_t es = (size_t)t->ext * ct_slot(t);
    int *sc = mt_malloc(sizeof(int) * size), *sd = mt_malloc(sizeof(int) * size);
    int *rc = mt_malloc(sizeof(int) * size), *rd = mt_malloc(sizeof(int) * size);
    long stot = 0, rtot = 0;
    for (int i = 0; i < size; i++) {
        int j = size - 1 - i;   /* send blocks in reverse order */
        sc[j] = pcount(count, rank, j);
        sd[j] = (int)stot + 1;
        stot += sc[j] + 1;
        rc[i] = pcount(count, i, rank);
        rd[i] = (int)rtot + 2;
        rtot += rc[i] + 2;
    }
    void *sbuf = ct_alloc(t, stot), *rbuf = ct_alloc(t, rtot);
    for (int d = 0; d < size; d++) {
        if (inplace) ct_fill(t, (char *)rbuf + rd[d] * es, rc[d], rank, d * 50000L, tag);
        else ct_fill(t, (char *)sbuf + sd[d] * es, sc[d], rank, d * 50000L, tag);
    }
    CHECK_MPI(MPI_Alltoallv(inplace ? MPI_IN_PLACE : sbuf, sc, sd, t->dt, rbuf, rc, rd, t->dt,
                            MPI_COMM_WORLD));
    long at = 0;
    for (int i = 0; i < size; i++) {
        CT_UNTOUCHED(t, (char *)rbuf + at * es, rd[i] - at, "Alltoallv gap before %d", i);
        CT_CHECK(t, (char *)rbuf + rd[i] * es, rc[i], i, rank * 50000L, tag,
                 "Alltoallv count %d inplace %d block from %d", count, inplace, i);
        at = rd[i] + rc[i];
    }
    free(sbuf); free(rbuf); free(sc); free(sd); free(rc); free(rd);
}

static void alltoallw_one(int count, int inplace, int tag)
{
    int *sc = mt_malloc(sizeof(int) * size), *sd = mt_malloc(sizeof(int) * size);
    int *rc = mt_malloc(sizeof(int) * size), *rd = mt_malloc(sizeof(int) * size);
    MPI_Datatype *st = mt_malloc(sizeof(MPI_Datatype) * size), *rt = mt_malloc(sizeof(MPI_Datatype) * size);
    const ct_type_t **tp = mt_malloc(sizeof(*tp) * size);
    size_t stot = 8, rtot = 16;
    for (int i = 0; i < size; i++) {
        const ct_type_t *t = &ct_types[(rank + i) % CT_NTYPES];   /* the pair's type */
        tp[i] = t;
        st[i] = rt[i] = t->dt;
        sc[i] = pcount(count, rank, i);
        rc[i] = pcount(count, i, rank);
        sd[i] = (int)stot;
        stot += (ct_bytes(t, sc[i]) + 15) & ~(size_t)7;   /* keep doubles aligned */
        rd[i] = (int)rtot;
        rtot += (ct_bytes(t, rc[i]) + 15) & ~(size_t)7;
    }
    char *sbuf = mt_malloc(stot), *rbuf = mt_malloc(rtot);
    for (int i = 0; i < size; i++) {
        ct_clear(tp[i], sbuf + sd[i], sc[i]);
        ct_clear(tp[i], rbuf + rd[i], rc[i]);
        if (inplace) ct_fill(tp[i], rbuf + rd[i], rc[i], rank, i * 50000L, tag);
        else ct_fill(tp[i], sbuf + sd[i], sc[i], rank, i * 50000L, tag);
    }
    CHECK_MPI(MPI_Alltoallw(inplace ? MPI_IN_PLACE : sbuf, sc, sd, st, rbuf, rc, rd, rt,
                            MPI_COMM_WORLD));
    for (int i = 0; i < size; i++)
        CT_CHECK(tp[i], rbuf + rd[i], rc[i], i, rank * 50000L, tag,
                 "Alltoallw count %d inplace %d block from %d", count, inplace, i);
    free(sbuf); free(rbuf); free(sc); free(sd); free(rc); free(rd); free(st); free(rt); free(tp);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    ct_init_types();
    int tag = 0;
    for (int c = 0; c < CT_NCOUNTS; c++)
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int ti = 0; ti < CT_NTYPES; ti++) {
                alltoall_one(&ct_types[ti], ct_counts[c], inplace, ++tag);
                alltoallv_one(&ct_types[ti], ct_counts[c], inplace, ++tag);
            }
            alltoallw_one(ct_counts[c], inplace, ++tag);
        }
    {
        int *s = mt_malloc(sizeof(int) * size), *r = mt_malloc(sizeof(int) * size);
        for (int i = 0; i < size; i++) s[i] = rank * 100 + i;
        CHECK_MPI(MPI_Alltoall_c(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD));
        for (int i = 0; i < size; i++) CHECK_INT(r[i], i * 100 + rank);
        free(s);
        free(r);
    }
    {   /* empty blocks with NULL buffers (mpi4py's zero messages), then real data:
         * nothing is read from a NULL buffer, and the next call is in step */
        int *zc = mt_malloc(sizeof(int) * size);
        for (int i = 0; i < size; i++) zc[i] = 0;
        CHECK_MPI(MPI_Alltoallv(NULL, zc, zc, MPI_INT, NULL, zc, zc, MPI_INT, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Alltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Allgatherv(NULL, 0, MPI_INT, NULL, zc, zc, MPI_INT, MPI_COMM_WORLD));
        int *s = mt_malloc(sizeof(int) * size), *r = mt_malloc(sizeof(int) * size);
        for (int i = 0; i < size; i++) { s[i] = rank * 1000 + i; r[i] = -1; }
        CHECK_MPI(MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD));
        for (int i = 0; i < size; i++) CHECK_INT(r[i], i * 1000 + rank);
        free(zc);
        free(s);
        free(r);
    }
    ct_free_types();
    return mt_finish("coll_alltoall") | (MPI_Finalize() != MPI_SUCCESS);
}
