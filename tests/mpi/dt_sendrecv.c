/* SPDX-License-Identifier: MIT */
/* Non-contiguous data on the wire: each rank sends to the next with one type
 * map and the receiver uses a different map of the same type signature
 * (vector <-> contiguous, struct <-> indexed of bytes, subarray <-> contiguous),
 * small (eager) and large (rendezvous) counts.  The received bytes are checked
 * at the positions computed by hand; bytes outside the map must stay untouched.
 * MPI_Get_elements / MPI_Get_count are checked on a message that ends inside
 * a derived element. */
#include <stddef.h>
#include "mpitest.h"

static int rank, size;

/* vector(n, 1, 3, double) -> n contiguous doubles, and back */
static void vector_contig(int n)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    double *a = mt_malloc(3 * (size_t)n * sizeof *a), *b = mt_malloc((size_t)n * sizeof *b);
    MPI_Datatype v;
    MPI_Type_vector(n, 1, 3, MPI_DOUBLE, &v);
    MPI_Type_commit(&v);
    for (int i = 0; i < 3 * n; i++) a[i] = rank * 1e6 + i;
    for (int i = 0; i < n; i++) b[i] = -1;
    CHECK_MPI(MPI_Sendrecv(a, 1, v, next, 1, b, n, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        if (b[i] != prev * 1e6 + 3 * i) { CHECK(0, "vector->contig n=%d [%d] = %g", n, i, b[i]); break; }
    /* and the other way: contiguous in, every third slot out */
    for (int i = 0; i < 3 * n; i++) a[i] = -2;
    for (int i = 0; i < n; i++) b[i] = rank * 1e6 + i;
    CHECK_MPI(MPI_Sendrecv(b, n, MPI_DOUBLE, next, 2, a, 1, v, prev, 2, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    for (int i = 0; i < 3 * n; i++) {
        double want = i % 3 ? -2 : prev * 1e6 + i / 3;
        if (a[i] != want) { CHECK(0, "contig->vector n=%d [%d] = %g want %g", n, i, a[i], want); break; }
    }
    MPI_Type_free(&v);
    free(a);
    free(b);
}

/* struct {int; double; char[3]} (as bytes) <-> indexed MPI_BYTE blocks, another layout */
typedef struct { int i; double d; char c[3]; } rec_t;
static void struct_indexed(int n)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    MPI_Datatype s, s1;
    /* the fields as bytes, so both sides have the signature of 15 MPI_BYTEs */
    int bl[] = { sizeof(int), sizeof(double), 3 };
    MPI_Aint d[] = { offsetof(rec_t, i), offsetof(rec_t, d), offsetof(rec_t, c) };
    MPI_Datatype ty[] = { MPI_BYTE, MPI_BYTE, MPI_BYTE };
    MPI_Type_create_struct(3, bl, d, ty, &s1);
    MPI_Type_create_resized(s1, 0, sizeof(rec_t), &s);
    MPI_Type_commit(&s);
    /* the receiver: for each record 4 + 8 + 3 = 15 bytes, placed 16 apart,
     * each field in its own block with a one-byte gap before the double */
    int rbl[3];
    int rd[3];
    rbl[0] = 4; rd[0] = 0;
    rbl[1] = 8; rd[1] = 5;
    rbl[2] = 3; rd[2] = 13;
    MPI_Datatype one, rtype;
    MPI_Type_indexed(3, rbl, rd, MPI_BYTE, &one);
    MPI_Type_create_resized(one, 0, 16, &rtype);
    MPI_Type_commit(&rtype);
    rec_t *a = mt_malloc((size_t)n * sizeof *a);
    unsigned char *r = mt_malloc(16 * (size_t)n);
    for (int k = 0; k < n; k++) {
        a[k].i = rank * 1000 + k;
        a[k].d = k + 0.25;
        a[k].c[0] = 'a' + k % 26; a[k].c[1] = 'b'; a[k].c[2] = (char)rank;
    }
    memset(r, 0x5a, 16 * (size_t)n);
    CHECK_MPI(MPI_Sendrecv(a, n, s, next, 3, r, n, rtype, prev, 3, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++) {
        int iv;
        double dv;
        memcpy(&iv, r + 16 * k, 4);
        memcpy(&dv, r + 16 * k + 5, 8);
        int ok = iv == prev * 1000 + k && dv == k + 0.25 && r[16 * k + 4] == 0x5a &&
                 r[16 * k + 13] == 'a' + k % 26 && r[16 * k + 14] == 'b' &&
                 r[16 * k + 15] == (unsigned char)prev;
        if (!ok) { CHECK(0, "struct->indexed n=%d record %d", n, k); break; }
    }
    /* back: the byte layout into the struct */
    memset(a, 0, (size_t)n * sizeof *a);
    for (int k = 0; k < n; k++) {
        int iv = rank * 7 + k;
        double dv = -k;
        memcpy(r + 16 * k, &iv, 4);
        memcpy(r + 16 * k + 5, &dv, 8);
        r[16 * k + 13] = 'x'; r[16 * k + 14] = 'y'; r[16 * k + 15] = 'z';
    }
    CHECK_MPI(MPI_Sendrecv(r, n, rtype, next, 4, a, n, s, prev, 4, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    for (int k = 0; k < n; k++)
        if (a[k].i != prev * 7 + k || a[k].d != -k || a[k].c[0] != 'x' || a[k].c[2] != 'z') {
            CHECK(0, "indexed->struct n=%d record %d", n, k);
            break;
        }
    MPI_Type_free(&s);
    MPI_Type_free(&s1);
    MPI_Type_free(&one);
    MPI_Type_free(&rtype);
    free(a);
    free(r);
}

/* A 2-D subarray of an n x n int matrix sent as contiguous rows. */
static void subarray_rows(int n)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    int sz[2] = { n, n }, sub[2] = { n / 2, n / 3 }, st[2] = { n / 4, n / 5 };
    MPI_Datatype t;
    MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    int *m = mt_malloc((size_t)n * n * sizeof *m), *r = mt_malloc((size_t)sub[0] * sub[1] * sizeof *r);
    for (int i = 0; i < n * n; i++) m[i] = rank * n * n + i;
    MPI_Request q[2];
    CHECK_MPI(MPI_Irecv(r, sub[0] * sub[1], MPI_INT, prev, 5, MPI_COMM_WORLD, &q[0]));
    CHECK_MPI(MPI_Isend(m, 1, t, next, 5, MPI_COMM_WORLD, &q[1]));
    CHECK_MPI(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    MPI_Type_free(&t);
    for (int i = 0; i < sub[0]; i++)
        for (int j = 0; j < sub[1]; j++) {
            int want = prev * n * n + (st[0] + i) * n + st[1] + j;
            if (r[i * sub[1] + j] != want) {
                CHECK(0, "subarray n=%d (%d,%d) = %d want %d", n, i, j, r[i * sub[1] + j], want);
                i = sub[0];
                break;
            }
        }
    free(m);
    free(r);
}

/* A message shorter than the receive: Get_count / Get_elements on partial data. */
static void partial_elements(void)
{
    int next = (rank + 1) % size, prev = (rank - 1 + size) % size;
    MPI_Datatype s;
    int bl[] = { 1, 1 };
    MPI_Aint d[] = { 0, 8 };
    MPI_Datatype ty[] = { MPI_INT, MPI_DOUBLE };
    MPI_Type_create_struct(2, bl, d, ty, &s);   /* 12 bytes of data, extent 16 */
    MPI_Type_commit(&s);
    char sbuf[64] = { 0 }, rbuf[64];
    /* 2 whole elements + an int: 5 basic elements, not a whole number of s */
    int sizes[] = { 28, 24, 4, 0 };
    int elems[] = { 5, 4, 1, 0 };
    int counts[] = { MPI_UNDEFINED, 2, MPI_UNDEFINED, 0 };
    for (int k = 0; k < 4; k++) {
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(sbuf, sizes[k], MPI_BYTE, next, 6, rbuf, 3, s, prev, 6,
                               MPI_COMM_WORLD, &st));
        int e = -7, c = -7;
        MPI_Get_elements(&st, s, &e);
        MPI_Get_count(&st, s, &c);
        CHECK(e == elems[k], "Get_elements after %d bytes: %d, expected %d", sizes[k], e, elems[k]);
        CHECK(c == counts[k], "Get_count after %d bytes: %d, expected %d", sizes[k], c, counts[k]);
        MPI_Count ex = -7;
        MPI_Get_elements_x(&st, s, &ex);
        CHECK(ex == elems[k], "Get_elements_x after %d bytes: %lld", sizes[k], (long long)ex);
    }
    MPI_Type_free(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int ns[] = { 1, 7, 100, 5000, 100000 };   /* eager through rendezvous sizes */
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        vector_contig(ns[i]);
        struct_indexed(ns[i]);
    }
    int ms[] = { 6, 40, 300 };
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) subarray_rows(ms[i]);
    partial_elements();
    int rc = mt_finish("dt_sendrecv");
    MPI_Finalize();
    return rc;
}
