/* SPDX-License-Identifier: MIT */
/* C half of attr_lang.f90: reads attributes the Fortran program set, sets
 * attributes the Fortran program reads, and makes keyvals with C callbacks.
 * Each check returns its number of failures (printing a FAIL line). */
#include <stdio.h>
#include <mpi.h>

static int fail(const char *what, long long want, long long got)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("FAIL: rank %d: C: %s: want %lld, got %lld\n", rank, what, want, got);
    return 1;
}

/* MPI-4.1 Example 19.13 B: an attribute Fortran set with MPI_X_SET_ATTR reads
 * in C as a pointer to the MPI_Aint value. */
void c_read_comm_aint_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *want, MPI_Fint *errs)
{
    MPI_Aint *val = NULL;
    int flag = 0;
    MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *key, &val, &flag);
    if (!flag) *errs += fail("MPI_Comm_get_attr flag", 1, 0);
    else if (*val != *want) *errs += fail("MPI_Comm_get_attr *val", *want, *val);
}

/* MPI_ATTR_PUT's INTEGER reads as a pointer to an int. */
void c_read_comm_int_(MPI_Fint *comm, MPI_Fint *key, MPI_Fint *want, MPI_Fint *errs)
{
    int *val = NULL, flag = 0;
    MPI_Attr_get(MPI_Comm_f2c(*comm), *key, &val, &flag);
    if (!flag) *errs += fail("MPI_Attr_get flag", 1, 0);
    else if (*val != *want) *errs += fail("MPI_Attr_get *val", *want, *val);
}

void c_read_type_aint_(MPI_Fint *type, MPI_Fint *key, MPI_Aint *want, MPI_Fint *errs)
{
    MPI_Aint *val = NULL;
    int flag = 0;
    MPI_Type_get_attr(MPI_Type_f2c(*type), *key, &val, &flag);
    if (!flag) *errs += fail("MPI_Type_get_attr flag", 1, 0);
    else if (*val != *want) *errs += fail("MPI_Type_get_attr *val", *want, *val);
}

void c_read_win_aint_(MPI_Fint *win, MPI_Fint *key, MPI_Aint *want, MPI_Fint *errs)
{
    MPI_Aint *val = NULL;
    int flag = 0;
    MPI_Win_get_attr(MPI_Win_f2c(*win), *key, &val, &flag);
    if (!flag) *errs += fail("MPI_Win_get_attr flag", 1, 0);
    else if (*val != *want) *errs += fail("MPI_Win_get_attr *val", *want, *val);
}

/* MPI_TAG_UB in C: a pointer to the int. */
void c_tag_ub_(MPI_Fint *out)
{
    int *v = NULL, flag = 0;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
    *out = flag ? *v : -1;
}

/* C sets a pointer; Fortran reads the pointer's address as an integer, which
 * *addr receives for the comparison. */
static int cvalue = 4242;
void c_set_comm_ptr_(MPI_Fint *comm, MPI_Fint *key, MPI_Aint *addr)
{
    MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *key, &cvalue);
    *addr = (MPI_Aint)&cvalue;
}

void c_set_type_ptr_(MPI_Fint *type, MPI_Fint *key, MPI_Aint *addr)
{
    MPI_Type_set_attr(MPI_Type_f2c(*type), *key, &cvalue);
    *addr = (MPI_Aint)&cvalue;
}

void c_set_win_ptr_(MPI_Fint *win, MPI_Fint *key, MPI_Aint *addr)
{
    MPI_Win_set_attr(MPI_Win_f2c(*win), *key, &cvalue);
    *addr = (MPI_Aint)&cvalue;
}

/* C callbacks on attributes Fortran set: they see the address of the value.
 * The copy callback returns a pointer to a value of its own (+ 2, as MPICH's
 * fandcattrc does to the pointer; here to the value), the delete callback
 * records the value it was given. */
static MPI_Aint copied[8];
static int ncopied;
static MPI_Aint deleted = -1;
static int ccopy(MPI_Comm comm, int key, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)key, (void)extra;
    copied[ncopied % 8] = *(MPI_Aint *)in + 2;
    *(void **)out = &copied[ncopied++ % 8];
    *flag = 1;
    return MPI_SUCCESS;
}

static int cdelete(MPI_Comm comm, int key, void *val, void *extra)
{
    (void)comm, (void)key, (void)extra;
    deleted = *(MPI_Aint *)val;
    return MPI_SUCCESS;
}

/* keys: [0] C callbacks above, [1] C's MPI_COMM_DUP_FN, [2] a type keyval
 * with MPI_TYPE_DUP_FN, [3] a window keyval with no callbacks. */
void c_keyvals_(MPI_Fint *keys)
{
    int k;
    MPI_Comm_create_keyval(ccopy, cdelete, &k, NULL);
    keys[0] = k;
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &k, NULL);
    keys[1] = k;
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &k, NULL);
    keys[2] = k;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k, NULL);
    keys[3] = k;
}

void c_deleted_(MPI_Aint *v)
{
    *v = deleted;
}
