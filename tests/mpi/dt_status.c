/* SPDX-License-Identifier: MIT */
/* What a status says about a message: MPI_Get_count and MPI_Get_elements (and
 * their _x / _c forms) agree for partial messages of derived types (whole
 * elements, basic elements of a trailing partial element, MPI_UNDEFINED where
 * the data ends inside one), for any datatype (uncommitted, empty, pair
 * types), and MPI_Status_set_elements(_x/_c), MPI_Status_set_cancelled and
 * MPI_Test_cancelled set and read what the receive calls would; MPI 4.1's
 * MPI_Status_get/set_source/tag/error where the library has them. */
#include "mpitest.h"

static int rank, size, next, prev;

/* count, elements of t in st: the int, _x and _c forms must agree */
static void counts(const MPI_Status *st, MPI_Datatype t, int want_count, int want_elems,
                   const char *what)
{
    int c = -2, e = -2;
    MPI_Count cc = -2, ec = -2, ex = -2;
    CHECK_MPI(MPI_Get_count(st, t, &c));
    CHECK_MPI(MPI_Get_elements(st, t, &e));
    CHECK_MPI(MPI_Get_count_c(st, t, &cc));
    CHECK_MPI(MPI_Get_elements_c(st, t, &ec));
    CHECK_MPI(MPI_Get_elements_x(st, t, &ex));
    CHECK(c == want_count && cc == want_count, "%s: Get_count %d / %lld, want %d", what, c,
          (long long)cc, want_count);
    CHECK(e == want_elems && ec == want_elems && ex == want_elems,
          "%s: Get_elements %d / _c %lld / _x %lld, want %d", what, e, (long long)ec,
          (long long)ex, want_elems);
}

/* Messages shorter than the receive: every length from 0 to 3 elements of
 * {int, double, double}, received as a struct type. */
static void partial(void)
{
    int bl[2] = { 1, 2 };
    MPI_Aint d[2] = { 0, 8 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE }, s;
    MPI_Type_create_struct(2, bl, d, ty, &s);   /* int, double, double: extent 24 */
    MPI_Type_commit(&s);
    struct { int i; double a, b; } out[3], in[3];
    for (int k = 0; k < 3; k++) {
        out[k].i = 10 * rank + k;
        out[k].a = rank + 0.5 * k;
        out[k].b = -rank - k;
    }
    /* the first n basic elements: a prefix of the type map, sent as a struct
     * of the same displacements cut short */
    for (int n = 0; n <= 9; n++) {
        int nb[6], ne = 0;
        MPI_Aint nd[6];
        MPI_Datatype nt[6], part;
        for (int k = 0; k < 3 && 3 * k < n; k++) {
            int left = n - 3 * k;
            nb[ne] = 1;
            nd[ne] = 24 * k;
            nt[ne++] = MPI_INT;
            if (left > 1) {
                nb[ne] = left > 2 ? 2 : 1;
                nd[ne] = 24 * k + 8;
                nt[ne++] = MPI_DOUBLE;
            }
        }
        MPI_Type_create_struct(ne, nb, nd, nt, &part);
        MPI_Type_commit(&part);
        memset(in, 0, sizeof in);
        MPI_Status st;
        CHECK_MPI(MPI_Sendrecv(out, ne ? 1 : 0, part, next, 20 + n, in, 3, s, prev, 20 + n,
                               MPI_COMM_WORLD, &st));
        char what[32];
        snprintf(what, sizeof what, "%d basic elements", n);
        counts(&st, s, n % 3 ? MPI_UNDEFINED : n / 3, n, what);
        /* MPI_BYTE and MPI_INT views of the same bytes */
        int bytes = 20 * (n / 3) + (n % 3 == 0 ? 0 : n % 3 == 1 ? 4 : 12);
        counts(&st, MPI_BYTE, bytes, bytes, what);
        counts(&st, MPI_INT, bytes % 4 ? MPI_UNDEFINED : bytes / 4,
               bytes % 4 ? MPI_UNDEFINED : bytes / 4, what);
        /* what arrived is the data */
        for (int k = 0; k < 3; k++) {
            int has = 3 * k < n;
            CHECK(in[k].i == (has ? 10 * prev + k : 0), "%s: int %d", what, k);
            CHECK(in[k].a == (3 * k + 1 < n ? prev + 0.5 * k : 0), "%s: a %d", what, k);
            CHECK(in[k].b == (3 * k + 2 < n ? -prev - k : 0), "%s: b %d", what, k);
        }
        MPI_Type_free(&part);
    }
    MPI_Type_free(&s);

    /* a vector received partially: 5 ints into vector(2 blocks of 2) x 3 */
    MPI_Datatype v;
    MPI_Type_vector(2, 2, 3, MPI_INT, &v);
    MPI_Type_commit(&v);
    int src[5] = { rank, rank + 1, rank + 2, rank + 3, rank + 4 }, dst[15];
    for (int i = 0; i < 15; i++) dst[i] = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(src, 5, MPI_INT, next, 40, dst, 3, v, prev, 40, MPI_COMM_WORLD, &st));
    counts(&st, v, MPI_UNDEFINED, 5, "5 ints as vectors");
    /* extent 5 ints: element 0 at 0,1,3,4; element 1 at 5,... */
    static const int where[5] = { 0, 1, 3, 4, 5 };
    for (int i = 0; i < 5; i++) CHECK(dst[where[i]] == prev + i, "vector part [%d]", i);
    CHECK(dst[2] == -1 && dst[6] == -1, "holes untouched");
    MPI_Type_free(&v);
}

/* Any datatype is accepted by Get_count / Get_elements: uncommitted, empty,
 * the pair types, a dup. */
static void any_datatype(void)
{
    double d[4] = { 1, 2, 3, 4 }, r[4];
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(d, 4, MPI_DOUBLE, next, 50, r, 4, MPI_DOUBLE, prev, 50,
                           MPI_COMM_WORLD, &st));
    MPI_Datatype unc, empty, dup;
    MPI_Type_contiguous(2, MPI_DOUBLE, &unc);   /* never committed */
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 wants it committed; the standard does not */
    counts(&st, unc, 2, 4, "uncommitted contiguous");
#endif
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    int c = -2;
    CHECK_MPI(MPI_Get_count(&st, empty, &c));
    CHECK_INT(c, MPI_UNDEFINED);   /* 32 bytes are no number of empty elements */
    MPI_Type_dup(MPI_DOUBLE, &dup);
    counts(&st, dup, 4, 4, "dup of MPI_DOUBLE");
    counts(&st, MPI_2INT, 4, 8, "MPI_2INT");   /* two ints per element */
    MPI_Type_free(&unc);
    MPI_Type_free(&empty);
    MPI_Type_free(&dup);
    /* an empty message: 0 of anything */
    CHECK_MPI(MPI_Sendrecv(d, 0, MPI_DOUBLE, next, 51, r, 4, MPI_DOUBLE, prev, 51,
                           MPI_COMM_WORLD, &st));
    counts(&st, MPI_DOUBLE_INT, 0, 0, "empty message");
    /* MPI_PROC_NULL: count 0, source MPI_PROC_NULL, tag MPI_ANY_TAG */
    CHECK_MPI(MPI_Recv(r, 4, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    counts(&st, MPI_DOUBLE, 0, 0, "MPI_PROC_NULL receive");
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG, "PROC_NULL status");
}

/* The status setters, as a generalized request's query function uses them. */
static void setters(void)
{
    MPI_Status st;
    int flag = -1;
    memset(&st, 0, sizeof st);
    CHECK_MPI(MPI_Status_set_elements(&st, MPI_DOUBLE, 3));
    counts(&st, MPI_DOUBLE, 3, 3, "set_elements(3 doubles)");
    counts(&st, MPI_FLOAT, 6, 6, "3 doubles as floats");
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(flag, 0);
    CHECK_MPI(MPI_Status_set_cancelled(&st, 1));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag != 0, "cancelled flag set");
    counts(&st, MPI_DOUBLE, 3, 3, "count kept beside the flag");
    CHECK_MPI(MPI_Status_set_cancelled(&st, 0));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_INT(flag, 0);
    /* elements of a derived type: whole elements and a partial one */
    MPI_Datatype s;
    int bl[2] = { 1, 1 };
    MPI_Aint dd[2] = { 0, 8 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
    MPI_Type_create_struct(2, bl, dd, ty, &s);
    MPI_Type_commit(&s);
#ifndef MT_REFERENCE_MPICH
    /* MPI_STATUS_SET_ELEMENTS: MPI_Get_elements returns the count set, so it
     * counts basic elements (MPICH 4.0 takes it as whole elements of s) */
    CHECK_MPI(MPI_Status_set_elements_x(&st, s, 5));
    counts(&st, s, MPI_UNDEFINED, 5, "set_elements_x(5) of {int, double}");
    counts(&st, MPI_BYTE, 28, 28, "5 basic elements in bytes");
    CHECK_MPI(MPI_Status_set_elements(&st, s, 4));
    counts(&st, s, 2, 4, "set_elements(4) of {int, double}");
#endif
    MPI_Type_free(&s);
    /* a real receive's status: not cancelled */
    int x = rank, y;
    CHECK_MPI(MPI_Sendrecv(&x, 1, MPI_INT, next, 60, &y, 1, MPI_INT, prev, 60, MPI_COMM_WORLD,
                           &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0 && y == prev && st.MPI_SOURCE == prev && st.MPI_TAG == 60,
          "received status");
#ifdef COURIER   /* MPI 4.1; MPICH 4.0 lacks them */
    int v = -1;
    CHECK_MPI(MPI_Status_get_source(&st, &v));
    CHECK_INT(v, prev);
    CHECK_MPI(MPI_Status_get_tag(&st, &v));
    CHECK_INT(v, 60);
    CHECK_MPI(MPI_Status_set_source(&st, 12345));
    CHECK_MPI(MPI_Status_set_tag(&st, 77));
    CHECK_MPI(MPI_Status_set_error(&st, MPI_ERR_TAG));
    CHECK(st.MPI_SOURCE == 12345 && st.MPI_TAG == 77 && st.MPI_ERROR == MPI_ERR_TAG,
          "setters write the fields");
    CHECK_MPI(MPI_Status_get_error(&st, &v));
    CHECK_INT(v, MPI_ERR_TAG);
    /* the wildcards are values a status may hold (mpi4py starts with them) */
    CHECK_MPI(MPI_Status_set_source(&st, MPI_ANY_SOURCE));
    CHECK_MPI(MPI_Status_set_tag(&st, MPI_ANY_TAG));
    CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG, "wildcards kept");
    CHECK_MPI(MPI_Status_set_source(&st, 12345));
    CHECK_MPI(MPI_Status_set_tag(&st, 77));
    counts(&st, MPI_INT, 1, 1, "count kept by the field setters");
    CHECK_MPI(MPI_Status_set_elements_c(&st, MPI_INT, 7));
    counts(&st, MPI_INT, 7, 7, "set_elements_c");
    /* MPI_STATUS_IGNORE is no status */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int c;
    CHECK_CLASS(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_set_source(MPI_STATUS_IGNORE, 1), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;
    partial();
    any_datatype();
    setters();
    int rc = mt_finish("dt_status");
    MPI_Finalize();
    return rc;
}
