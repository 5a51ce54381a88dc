/* SPDX-License-Identifier: MIT */
/* Parallel HDF5 on Courier: built against Debian's libhdf5-mpich (which is
 * linked with MPICH's libmpich.so.12), run with Courier's library through
 * the ABI (tests/abi/run_hdf5.sh).  Every rank writes its rows of a 2-D
 * dataset with a collective hyperslab write, then an independent one into a
 * second dataset, writes an attribute; the file is reopened and every rank
 * reads and checks all the data.  With an argument, the file is written
 * there and kept (run_hdf5.sh compares h5dump of Courier's and MPICH's). */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { ROWS = 6, COLS = 10 };
static int errors;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL rank %d line %d: ", rank, __LINE__); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); errors++; } } while (0)
#define H5OK(x) do { if ((x) < 0) { fprintf(stderr, "FAIL rank %d line %d: %s\n", rank, __LINE__, #x); errors++; } } while (0)

static double value(int row, int col, int set) { return set * 1e6 + row * 100 + col; }

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[512];
    if (rank == 0 && argc > 1) {
        snprintf(path, sizeof path, "%s", argv[1]);
    } else if (rank == 0) {
        const char *d = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/courier_h5_%d.h5", d && *d ? d : "/tmp", (int)getpid());
    }
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5OK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5OK(file);
    hsize_t dims[2] = { (hsize_t)ROWS * size, COLS };
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dset[2];
    dset[0] = H5Dcreate2(file, "coll", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    dset[1] = H5Dcreate2(file, "indep", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5OK(dset[0]);
    H5OK(dset[1]);
    double buf[ROWS][COLS];
    hsize_t start[2] = { (hsize_t)rank * ROWS, 0 }, count[2] = { ROWS, COLS };
    hid_t mem = H5Screate_simple(2, count, NULL);
    for (int set = 0; set < 2; set++) {
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) buf[r][c] = value(rank * ROWS + r, c, set);
        hid_t fs = H5Dget_space(dset[set]);
        H5OK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL));
        hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
        H5OK(H5Pset_dxpl_mpio(xfer, set == 0 ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
        H5OK(H5Dwrite(dset[set], H5T_NATIVE_DOUBLE, mem, fs, xfer, buf));
        H5Pclose(xfer);
        H5Sclose(fs);
    }
    int nranks = size;
    hid_t as = H5Screate(H5S_SCALAR);
    hid_t attr = H5Acreate2(dset[0], "nranks", H5T_NATIVE_INT, as, H5P_DEFAULT, H5P_DEFAULT);
    H5OK(H5Awrite(attr, H5T_NATIVE_INT, &nranks));
    H5Aclose(attr);
    H5Sclose(as);
    H5Dclose(dset[0]);
    H5Dclose(dset[1]);
    H5Sclose(mem);
    H5Sclose(space);
    H5OK(H5Fclose(file));

    /* reopen read-only; every rank reads everything */
    file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    H5OK(file);
    double *all = malloc(sizeof(double) * ROWS * size * COLS);
    const char *names[2] = { "coll", "indep" };
    for (int set = 0; set < 2; set++) {
        hid_t d = H5Dopen2(file, names[set], H5P_DEFAULT);
        hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
        H5OK(H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE));
        memset(all, 0, sizeof(double) * ROWS * size * COLS);
        H5OK(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, xfer, all));
        for (int r = 0; r < ROWS * size; r++)
            for (int c = 0; c < COLS; c++)
                if (all[r * COLS + c] != value(r, c, set)) {
                    CHECK(0, "%s[%d][%d] = %g, want %g", names[set], r, c, all[r * COLS + c], value(r, c, set));
                    r = ROWS * size;
                    break;
                }
        if (set == 0) {
            int got = -1;
            hid_t a = H5Aopen(d, "nranks", H5P_DEFAULT);
            H5OK(H5Aread(a, H5T_NATIVE_INT, &got));
            H5Aclose(a);
            CHECK(got == size, "attribute nranks = %d", got);
        }
        H5Pclose(xfer);
        H5Dclose(d);
    }
    free(all);
    H5OK(H5Fclose(file));
    H5Pclose(fapl);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && argc < 2) remove(path);
    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s hdf5_parallel (np=%d)\n", total ? "FAIL" : "PASS", size);
    MPI_Finalize();
    return total != 0;
}
