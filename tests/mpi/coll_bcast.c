/* SPDX-License-Identifier: MIT */
/* MPI_Bcast: every root, counts 0, 1, 7, 1000, 100000, contiguous and
 * non-contiguous datatypes (the holes of a vector type must stay untouched on
 * the receivers), MPI_DOUBLE_INT (a predefined type with a gap), and
 * MPI_COMM_SELF.  Run under COURIER_COLL_BCAST_ALG=1/2 to force algorithms. */
#include "mpitest.h"

static const int counts[] = { 0, 1, 7, 1000, 100000 };

static void one(MPI_Datatype dt, const char *name, int count, int root, int rank)
{
    MPI_Aint lb, extent;
    int size;
    MPI_Type_get_extent(dt, &lb, &extent);
    MPI_Type_size(dt, &size);
    size_t bytes = (size_t)count * (size_t)extent + 16;
    unsigned char *buf = mt_malloc(bytes), *want = mt_malloc(bytes);
    long seed = root * 1000 + count;
    /* what the root sends: the pattern everywhere (gaps included) */
    mt_fill(want, bytes, seed);
    if (rank == root) memcpy(buf, want, bytes);
    else memset(buf, 0xEE, bytes);
    CHECK_MPI(MPI_Bcast(buf, count, dt, root, MPI_COMM_WORLD));
    if (rank != root) {
        /* data bytes: pack the expected buffer's data and the received one's, compare;
         * gap bytes: must still be 0xEE */
        unsigned char *mask = mt_malloc(bytes);
        memset(mask, 0, bytes);
        /* mark the data bytes: "receive" 0xFF-filled data into mask through dt */
        int psize = 0, pos = 0;
        MPI_Pack_size(count, dt, MPI_COMM_SELF, &psize);
        unsigned char *ones = mt_malloc((size_t)psize), *p1 = mt_malloc((size_t)psize),
                      *p2 = mt_malloc((size_t)psize);
        memset(ones, 0xFF, (size_t)psize);
        MPI_Unpack(ones, psize, &pos, mask, count, dt, MPI_COMM_SELF);
        for (size_t i = 0; i < bytes; i++) {
            unsigned char w = mask[i] ? want[i] : 0xEE;
            if (buf[i] != w) {
                CHECK(buf[i] == w, "%s count %d root %d: byte %zu is 0x%02x, expected 0x%02x (%s)",
                      name, count, root, i, buf[i], w, mask[i] ? "data" : "gap");
                break;
            }
        }
        free(ones); free(p1); free(p2); free(mask);
    }
    free(buf);
    free(want);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype vec, cont;
    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);   /* 2 ints of every 5, extent 12 ints */
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(3, MPI_DOUBLE, &cont);
    MPI_Type_commit(&cont);
    struct { MPI_Datatype dt; const char *name; } types[] = {
        { MPI_INT, "MPI_INT" }, { MPI_DOUBLE, "MPI_DOUBLE" }, { MPI_CHAR, "MPI_CHAR" },
        { MPI_BYTE, "MPI_BYTE" }, { vec, "vector" }, { cont, "contiguous" },
        { MPI_DOUBLE_INT, "MPI_DOUBLE_INT" },
    };
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
            for (int root = 0; root < size; root++) {
                /* the largest counts of the larger types only at two roots */
                if (counts[c] == 100000 && t >= 4 && root != 0 && root != size - 1) continue;
                one(types[t].dt, types[t].name, counts[c], root, rank);
            }
    /* repeated small broadcasts from changing roots, back to back */
    for (int k = 0; k < 200; k++) {
        int v = rank == k % size ? k : -1;
        CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, k % size, MPI_COMM_WORLD));
        CHECK_INT(v, k);
    }
    int s = 42;
    CHECK_MPI(MPI_Bcast(&s, 1, MPI_INT, 0, MPI_COMM_SELF));
    CHECK_INT(s, 42);
    MPI_Type_free(&vec);
    MPI_Type_free(&cont);
    return mt_finish("coll_bcast") | (MPI_Finalize() != MPI_SUCCESS);
}
