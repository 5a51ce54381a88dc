/* SPDX-License-Identifier: MIT */
/* Every MPI-IO data access routine through a view with holes: explicit
 * offset, individual pointer and shared pointer; independent blocking,
 * independent non-blocking, collective, non-blocking collective (ordered for
 * the shared pointer, which has no non-blocking collective) and split
 * collective; each in its int and _c (MPI_Count) form, writes and reads.
 * Each routine writes its own slice of the file; after every write the whole
 * file is compared byte for byte (POSIX reads) with a model of what every
 * rank wrote, holes included, and the slice is read back with the matching
 * read routine. */
#include "iotest.h"

static int rank, size;
static char path[512];

enum { K = 8 };   /* ints per rank per slice (even: 2 ints per rank per filetype instance) */
typedef enum { P_AT, P_IND, P_SH } ptr_t;
typedef enum { M_IND, M_IIND, M_COLL, M_ICOLL, M_SPLIT } how_t;
static const char *pname[] = { "explicit", "individual", "shared" };
static const char *mname[] = { "independent", "non-blocking", "collective/ordered",
                               "non-blocking collective", "split" };

/* A filetype instance is 2*size+1 ints: a hole, then 2 ints of each rank.
 * Own view of rank r: displacement 1+2r ints, 2 ints per instance.  Common
 * view (shared pointer): displacement 1 int, 2*size ints per instance. */
static MPI_Datatype view_type(int ints)
{
    MPI_Datatype v, ft;
    MPI_Type_vector(1, ints, 2 * size + 1, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * size + 1) * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&v);
    return ft;
}
/* File int of stream int j of rank r's own view, and of the common view. */
static long own_int(int r, long j) { return 1 + 2 * r + (j / 2) * (2 * size + 1) + j % 2; }
static long common_int(long j) { return 1 + (j / (2 * size)) * (2 * size + 1) + j % (2 * size); }
static int value(int r, int slice, int i) { return 1 + r * 100000 + slice * 100 + i; }

static int *model;      /* the file as it should be, in ints */
static long model_n;    /* ints in the file */

/* File int of int i of rank r's data in slice s under pointer kind p. */
static long where(ptr_t p, int r, int s, int i)
{
    return p == P_SH ? common_int((long)s * K * size + (long)r * K + i) : own_int(r, (long)s * K + i);
}

static void one(MPI_File fh, int write, ptr_t p, how_t m, int large, int s, int *buf)
{
    MPI_Status st;
    MPI_Request rq;
    MPI_Offset off = (MPI_Offset)s * K;
    int cnt = K;
    MPI_Count ccnt = K;
    int turns = p == P_SH && (m == M_IND || m == M_IIND);
    if (p == P_IND) CHECK_MPI(MPI_File_seek(fh, off, MPI_SEEK_SET));
    if (p == P_SH) CHECK_MPI(MPI_File_seek_shared(fh, (MPI_Offset)s * K * size, MPI_SEEK_SET));
    for (int r = 0; r < size; r++) {
        if (turns) MPI_Barrier(MPI_COMM_WORLD);   /* shared pointer in rank order */
        if (turns ? r != rank : r > 0) continue;
        switch (write * 64 + p * 16 + m * 2 + large) {
    case 1 * 64 + P_AT * 16 + M_IND * 2 + 0:
        CHECK_MPI(MPI_File_write_at(fh, off, buf, cnt, MPI_INT, &st)); break;
    case 1 * 64 + P_AT * 16 + M_IND * 2 + 1:
        CHECK_MPI(MPI_File_write_at_c(fh, off, buf, ccnt, MPI_INT, &st)); break;
    case 1 * 64 + P_AT * 16 + M_IIND * 2 + 0:
        CHECK_MPI(MPI_File_iwrite_at(fh, off, buf, cnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 1 * 64 + P_AT * 16 + M_IIND * 2 + 1:
        CHECK_MPI(MPI_File_iwrite_at_c(fh, off, buf, ccnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 1 * 64 + P_AT * 16 + M_COLL * 2 + 0:
        CHECK_MPI(MPI_File_write_at_all(fh, off, buf, cnt, MPI_INT, &st)); break;
    case 1 * 64 + P_AT * 16 + M_COLL * 2 + 1:
        CHECK_MPI(MPI_File_write_at_all_c(fh, off, buf, ccnt, MPI_INT, &st)); break;
    case 1 * 64 + P_AT * 16 + M_ICOLL * 2 + 0:
        CHECK_MPI(MPI_File_iwrite_at_all(fh, off, buf, cnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 1 * 64 + P_AT * 16 + M_ICOLL * 2 + 1:
        CHECK_MPI(MPI_File_iwrite_at_all_c(fh, off, buf, ccnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 1 * 64 + P_AT * 16 + M_SPLIT * 2 + 0:
        CHECK_MPI(MPI_File_write_at_all_begin(fh, off, buf, cnt, MPI_INT)); CHECK_MPI(MPI_File_write_at_all_end(fh, buf, &st)); break;
    case 1 * 64 + P_AT * 16 + M_SPLIT * 2 + 1:
        CHECK_MPI(MPI_File_write_at_all_begin_c(fh, off, buf, ccnt, MPI_INT)); CHECK_MPI(MPI_File_write_at_all_end(fh, buf, &st)); break;
    case 1 * 64 + P_IND * 16 + M_IND * 2 + 0:
        CHECK_MPI(MPI_File_write(fh, buf, cnt, MPI_INT, &st)); break;
    case 1 * 64 + P_IND * 16 + M_IND * 2 + 1:
        CHECK_MPI(MPI_File_write_c(fh, buf, ccnt, MPI_INT, &st)); break;
    case 1 * 64 + P_IND * 16 + M_IIND * 2 + 0:
        CHECK_MPI(MPI_File_iwrite(fh, buf, cnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 1 * 64 + P_IND * 16 + M_IIND * 2 + 1:
        CHECK_MPI(MPI_File_iwrite_c(fh, buf, ccnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 1 * 64 + P_IND * 16 + M_COLL * 2 + 0:
        CHECK_MPI(MPI_File_write_all(fh, buf, cnt, MPI_INT, &st)); break;
    case 1 * 64 + P_IND * 16 + M_COLL * 2 + 1:
        CHECK_MPI(MPI_File_write_all_c(fh, buf, ccnt, MPI_INT, &st)); break;
    case 1 * 64 + P_IND * 16 + M_ICOLL * 2 + 0:
        CHECK_MPI(MPI_File_iwrite_all(fh, buf, cnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 1 * 64 + P_IND * 16 + M_ICOLL * 2 + 1:
        CHECK_MPI(MPI_File_iwrite_all_c(fh, buf, ccnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 1 * 64 + P_IND * 16 + M_SPLIT * 2 + 0:
        CHECK_MPI(MPI_File_write_all_begin(fh, buf, cnt, MPI_INT)); CHECK_MPI(MPI_File_write_all_end(fh, buf, &st)); break;
    case 1 * 64 + P_IND * 16 + M_SPLIT * 2 + 1:
        CHECK_MPI(MPI_File_write_all_begin_c(fh, buf, ccnt, MPI_INT)); CHECK_MPI(MPI_File_write_all_end(fh, buf, &st)); break;
    case 1 * 64 + P_SH * 16 + M_IND * 2 + 0:
        CHECK_MPI(MPI_File_write_shared(fh, buf, cnt, MPI_INT, &st)); break;
    case 1 * 64 + P_SH * 16 + M_IND * 2 + 1:
        CHECK_MPI(MPI_File_write_shared_c(fh, buf, ccnt, MPI_INT, &st)); break;
    case 1 * 64 + P_SH * 16 + M_IIND * 2 + 0:
        CHECK_MPI(MPI_File_iwrite_shared(fh, buf, cnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 1 * 64 + P_SH * 16 + M_IIND * 2 + 1:
        CHECK_MPI(MPI_File_iwrite_shared_c(fh, buf, ccnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 1 * 64 + P_SH * 16 + M_COLL * 2 + 0:
        CHECK_MPI(MPI_File_write_ordered(fh, buf, cnt, MPI_INT, &st)); break;
    case 1 * 64 + P_SH * 16 + M_COLL * 2 + 1:
        CHECK_MPI(MPI_File_write_ordered_c(fh, buf, ccnt, MPI_INT, &st)); break;
    case 1 * 64 + P_SH * 16 + M_SPLIT * 2 + 0:
        CHECK_MPI(MPI_File_write_ordered_begin(fh, buf, cnt, MPI_INT)); CHECK_MPI(MPI_File_write_ordered_end(fh, buf, &st)); break;
    case 1 * 64 + P_SH * 16 + M_SPLIT * 2 + 1:
        CHECK_MPI(MPI_File_write_ordered_begin_c(fh, buf, ccnt, MPI_INT)); CHECK_MPI(MPI_File_write_ordered_end(fh, buf, &st)); break;
    case 0 * 64 + P_AT * 16 + M_IND * 2 + 0:
        CHECK_MPI(MPI_File_read_at(fh, off, buf, cnt, MPI_INT, &st)); break;
    case 0 * 64 + P_AT * 16 + M_IND * 2 + 1:
        CHECK_MPI(MPI_File_read_at_c(fh, off, buf, ccnt, MPI_INT, &st)); break;
    case 0 * 64 + P_AT * 16 + M_IIND * 2 + 0:
        CHECK_MPI(MPI_File_iread_at(fh, off, buf, cnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 0 * 64 + P_AT * 16 + M_IIND * 2 + 1:
        CHECK_MPI(MPI_File_iread_at_c(fh, off, buf, ccnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 0 * 64 + P_AT * 16 + M_COLL * 2 + 0:
        CHECK_MPI(MPI_File_read_at_all(fh, off, buf, cnt, MPI_INT, &st)); break;
    case 0 * 64 + P_AT * 16 + M_COLL * 2 + 1:
        CHECK_MPI(MPI_File_read_at_all_c(fh, off, buf, ccnt, MPI_INT, &st)); break;
    case 0 * 64 + P_AT * 16 + M_ICOLL * 2 + 0:
        CHECK_MPI(MPI_File_iread_at_all(fh, off, buf, cnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 0 * 64 + P_AT * 16 + M_ICOLL * 2 + 1:
        CHECK_MPI(MPI_File_iread_at_all_c(fh, off, buf, ccnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 0 * 64 + P_AT * 16 + M_SPLIT * 2 + 0:
        CHECK_MPI(MPI_File_read_at_all_begin(fh, off, buf, cnt, MPI_INT)); CHECK_MPI(MPI_File_read_at_all_end(fh, buf, &st)); break;
    case 0 * 64 + P_AT * 16 + M_SPLIT * 2 + 1:
        CHECK_MPI(MPI_File_read_at_all_begin_c(fh, off, buf, ccnt, MPI_INT)); CHECK_MPI(MPI_File_read_at_all_end(fh, buf, &st)); break;
    case 0 * 64 + P_IND * 16 + M_IND * 2 + 0:
        CHECK_MPI(MPI_File_read(fh, buf, cnt, MPI_INT, &st)); break;
    case 0 * 64 + P_IND * 16 + M_IND * 2 + 1:
        CHECK_MPI(MPI_File_read_c(fh, buf, ccnt, MPI_INT, &st)); break;
    case 0 * 64 + P_IND * 16 + M_IIND * 2 + 0:
        CHECK_MPI(MPI_File_iread(fh, buf, cnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 0 * 64 + P_IND * 16 + M_IIND * 2 + 1:
        CHECK_MPI(MPI_File_iread_c(fh, buf, ccnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 0 * 64 + P_IND * 16 + M_COLL * 2 + 0:
        CHECK_MPI(MPI_File_read_all(fh, buf, cnt, MPI_INT, &st)); break;
    case 0 * 64 + P_IND * 16 + M_COLL * 2 + 1:
        CHECK_MPI(MPI_File_read_all_c(fh, buf, ccnt, MPI_INT, &st)); break;
    case 0 * 64 + P_IND * 16 + M_ICOLL * 2 + 0:
        CHECK_MPI(MPI_File_iread_all(fh, buf, cnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 0 * 64 + P_IND * 16 + M_ICOLL * 2 + 1:
        CHECK_MPI(MPI_File_iread_all_c(fh, buf, ccnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 0 * 64 + P_IND * 16 + M_SPLIT * 2 + 0:
        CHECK_MPI(MPI_File_read_all_begin(fh, buf, cnt, MPI_INT)); CHECK_MPI(MPI_File_read_all_end(fh, buf, &st)); break;
    case 0 * 64 + P_IND * 16 + M_SPLIT * 2 + 1:
        CHECK_MPI(MPI_File_read_all_begin_c(fh, buf, ccnt, MPI_INT)); CHECK_MPI(MPI_File_read_all_end(fh, buf, &st)); break;
    case 0 * 64 + P_SH * 16 + M_IND * 2 + 0:
        CHECK_MPI(MPI_File_read_shared(fh, buf, cnt, MPI_INT, &st)); break;
    case 0 * 64 + P_SH * 16 + M_IND * 2 + 1:
        CHECK_MPI(MPI_File_read_shared_c(fh, buf, ccnt, MPI_INT, &st)); break;
    case 0 * 64 + P_SH * 16 + M_IIND * 2 + 0:
        CHECK_MPI(MPI_File_iread_shared(fh, buf, cnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 0 * 64 + P_SH * 16 + M_IIND * 2 + 1:
        CHECK_MPI(MPI_File_iread_shared_c(fh, buf, ccnt, MPI_INT, &rq)); CHECK_MPI(MPI_Wait(&rq, &st)); break;
    case 0 * 64 + P_SH * 16 + M_COLL * 2 + 0:
        CHECK_MPI(MPI_File_read_ordered(fh, buf, cnt, MPI_INT, &st)); break;
    case 0 * 64 + P_SH * 16 + M_COLL * 2 + 1:
        CHECK_MPI(MPI_File_read_ordered_c(fh, buf, ccnt, MPI_INT, &st)); break;
    case 0 * 64 + P_SH * 16 + M_SPLIT * 2 + 0:
        CHECK_MPI(MPI_File_read_ordered_begin(fh, buf, cnt, MPI_INT)); CHECK_MPI(MPI_File_read_ordered_end(fh, buf, &st)); break;
    case 0 * 64 + P_SH * 16 + M_SPLIT * 2 + 1:
        CHECK_MPI(MPI_File_read_ordered_begin_c(fh, buf, ccnt, MPI_INT)); CHECK_MPI(MPI_File_read_ordered_end(fh, buf, &st)); break;

        default:
            CHECK(0, "no routine for write %d pointer %d mode %d large %d", write, p, m, large);
            return;
        }
        int got = -1;
        MPI_Get_count(&st, MPI_INT, &got);
        CHECK(got == K, "%s %s %s%s: count %d", write ? "write" : "read", pname[p], mname[m],
              large ? " _c" : "", got);
    }
    if (turns) MPI_Barrier(MPI_COMM_WORLD);
    (void)off; (void)cnt; (void)ccnt; (void)rq;
}

static void check_file(const char *what)
{
    size_t fl;
    int *f = mt_file_all(path, &fl);
    CHECK(fl == (size_t)model_n * sizeof(int), "%s: file has %zu bytes, expected %zu", what, fl,
          (size_t)model_n * sizeof(int));
    for (long k = 0; k < model_n && (size_t)(k + 1) * sizeof(int) <= fl; k++) {
#ifdef MT_REFERENCE_MPICH
        if (model[k] == 0) continue;   /* MPICH 4.0's ROMIO leaves garbage (-1) in holes it sieves */
#endif
        if (f[k] != model[k]) {
            CHECK(0, "%s: file int %ld = %d, expected %d", what, k, f[k], model[k]);
            break;
        }
    }
    free(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_io_path(path, sizeof path, "matrix", MPI_COMM_WORLD);
    MPI_File fh;
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    CHECK_MPI(MPI_File_set_size(fh, 0));
    MPI_Datatype own = view_type(2), common = view_type(2 * size);
    int nslices = 3 * 5 * 2;
    model_n = where(P_AT, size - 1, nslices, 0);   /* past the end of every slice */
    model = calloc((size_t)model_n, sizeof(int));
    long top = 0;   /* file ints written so far: the file's size */
    int buf[K], back[K];
    int s = 0;
    for (int p = P_AT; p <= P_SH; p++) {
        if (p == P_SH) CHECK_MPI(MPI_File_set_view(fh, sizeof(int), MPI_INT, common, "native", MPI_INFO_NULL));
        else CHECK_MPI(MPI_File_set_view(fh, (MPI_Offset)(1 + 2 * rank) * sizeof(int), MPI_INT, own, "native",
                                         MPI_INFO_NULL));
        for (int m = M_IND; m <= M_SPLIT; m++) {
            if (p == P_SH && m == M_ICOLL) continue;
            for (int large = 0; large < 2; large++, s++) {
                char what[128];
                snprintf(what, sizeof what, "%s %s%s (slice %d)", pname[p], mname[m], large ? " _c" : "", s);
                for (int i = 0; i < K; i++) buf[i] = value(rank, s, i);
                one(fh, 1, (ptr_t)p, (how_t)m, large, s, buf);
                for (int r = 0; r < size; r++)
                    for (int i = 0; i < K; i++) {
                        long w = where((ptr_t)p, r, s, i);
                        model[w] = value(r, s, i);
                        if (w + 1 > top) top = w + 1;
                    }
                long saved = model_n;
                model_n = top;
                CHECK_MPI(MPI_File_sync(fh));
                MPI_Barrier(MPI_COMM_WORLD);
                CHECK_MPI(MPI_File_sync(fh));
                check_file(what);
                model_n = saved;
                memset(back, 0, sizeof back);
                one(fh, 0, (ptr_t)p, (how_t)m, large, s, back);
                for (int i = 0; i < K; i++)
                    if (back[i] != buf[i]) {
                        CHECK(0, "%s: read back [%d] = %d, expected %d", what, i, back[i], buf[i]);
                        break;
                    }
                MPI_Barrier(MPI_COMM_WORLD);   /* nobody writes the next slice while others read */
            }
        }
    }
    MPI_Type_free(&own);
    MPI_Type_free(&common);
    free(model);
    CHECK_MPI(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) CHECK_MPI(MPI_File_delete(path, MPI_INFO_NULL));
    int rc = mt_finish("io_matrix");
    MPI_Finalize();
    return rc;
}
