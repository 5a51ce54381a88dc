/* SPDX-License-Identifier: MIT */
/* NULL where a call writes its result (issue 11; MPICH's nullarg tests
 * in errors/): every output pointer that the standard does not allow to be NULL
 * is checked by the generated binding, so a wide sample of calls, one per
 * family at least, each given NULL for one output, must return MPI_ERR_ARG
 * through MPI_ERRORS_RETURN, with a message that names the argument and its
 * value ("ranks2=NULL").  The sentinels stay valid: MPI_STATUS_IGNORE,
 * MPI_STATUSES_IGNORE, MPI_ERRCODES_IGNORE, and NULL for an array of no
 * elements.  Afterwards the library still works (an allreduce, checked).
 *
 * With ERR_NULLPTR_FATAL=1 in the environment one NULL output
 * (MPI_Type_extent's) goes to MPI_ERRORS_ARE_FATAL: err.list checks that the
 * job ends with a message naming the call, the class and the argument.  Any
 * number of ranks. */
#include "mpitest.h"

/* rc must be MPI_ERR_ARG and its string must hold "<arg>=NULL". */
#define CHECK_NULLARG(call, arg) \
    do { int rc__ = (call); CHECK_CLASS(rc__, MPI_ERR_ARG); check_text(rc__, arg, #call); } while (0)

static void check_text(int rc, const char *arg, const char *call)
{
    char s[MPI_MAX_ERROR_STRING], want[64];
    int len = 0;
    s[0] = 0;
    if (rc == MPI_SUCCESS) return;          /* CHECK_CLASS reported it */
    MPI_Error_string(rc, s, &len);
    snprintf(want, sizeof want, "%s=NULL", arg);
#ifndef MT_REFERENCE_MPICH   /* MPICH's texts say it otherwise */
    CHECK(strstr(s, want) != NULL, "%s: message \"%s\" does not name %s", call, s, want);
#else
    (void)want;
    (void)call;
#endif
}

static void add_fn(void *a, void *b, int *n, MPI_Datatype *t)
{
    (void)a; (void)b; (void)n; (void)t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *fatal = getenv("ERR_NULLPTR_FATAL");
    if (fatal && !strcmp(fatal, "1")) {
        MPI_Type_extent(MPI_INT, NULL);     /* ends the job */
        printf("FAIL err_nullptr: MPI_Type_extent(MPI_INT, NULL) returned\n");
        MPI_Finalize();
        return 1;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Group world, rev;
    int n, buf[4] = { 0 }, *ranks = mt_malloc((size_t)size * sizeof(int));
    for (int i = 0; i < size; i++) ranks[i] = size - 1 - i;
    CHECK_MPI(MPI_Comm_group(comm, &world));
    CHECK_MPI(MPI_Group_incl(world, size, ranks, &rev));

    /* the deprecated datatype queries (MPICH's type_{extent,lb,ub}_nullarg) */
    CHECK_NULLARG(MPI_Type_extent(MPI_INT, NULL), "extent");
    CHECK_NULLARG(MPI_Type_lb(MPI_INT, NULL), "displacement");
    CHECK_NULLARG(MPI_Type_ub(MPI_INT, NULL), "displacement");
    CHECK_NULLARG(MPI_Address(buf, NULL), "address");
    /* groups (group_translate_ranks_nullarg): NULL is fine for no ranks */
    CHECK_NULLARG(MPI_Group_translate_ranks(rev, size, ranks, world, NULL), "ranks2");
    CHECK_MPI(MPI_Group_translate_ranks(rev, 0, NULL, world, NULL));
    CHECK_NULLARG(MPI_Group_size(world, NULL), "size");
    CHECK_NULLARG(MPI_Group_rank(world, NULL), "rank");
    CHECK_NULLARG(MPI_Group_compare(world, rev, NULL), "result");
    CHECK_NULLARG(MPI_Group_union(world, rev, NULL), "newgroup");
    /* communicators */
    CHECK_NULLARG(MPI_Comm_size(comm, NULL), "size");
    CHECK_NULLARG(MPI_Comm_rank(comm, NULL), "rank");
    CHECK_NULLARG(MPI_Comm_compare(comm, MPI_COMM_SELF, NULL), "result");
    CHECK_NULLARG(MPI_Comm_test_inter(comm, NULL), "flag");
    CHECK_NULLARG(MPI_Comm_group(comm, NULL), "group");
    CHECK_NULLARG(MPI_Comm_get_errhandler(comm, NULL), "errhandler");
    char name[MPI_MAX_OBJECT_NAME];
    CHECK_NULLARG(MPI_Comm_get_name(comm, NULL, &n), "comm_name");
    CHECK_NULLARG(MPI_Comm_get_name(comm, name, NULL), "resultlen");
    /* datatypes */
    MPI_Aint lb, ext;
    MPI_Count clb, cext;
    CHECK_NULLARG(MPI_Type_size(MPI_INT, NULL), "size");
    CHECK_NULLARG(MPI_Type_get_extent(MPI_INT, NULL, &ext), "lb");
    CHECK_NULLARG(MPI_Type_get_extent(MPI_INT, &lb, NULL), "extent");
    CHECK_NULLARG(MPI_Type_get_true_extent_x(MPI_INT, &clb, NULL), "true_extent");
    CHECK_NULLARG(MPI_Type_get_extent_x(MPI_INT, NULL, &cext), "lb");
    CHECK_NULLARG(MPI_Type_contiguous(2, MPI_INT, NULL), "newtype");
    CHECK_NULLARG(MPI_Type_vector(2, 1, 2, MPI_INT, NULL), "newtype");
    CHECK_NULLARG(MPI_Type_get_name(MPI_INT, NULL, &n), "type_name");
    CHECK_NULLARG(MPI_Get_address(buf, NULL), "address");
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(buf, 2, MPI_INT, rank, 5, buf + 2, 2, MPI_INT, rank, 5, comm, &st));
    CHECK_NULLARG(MPI_Get_count(&st, MPI_INT, NULL), "count");
    CHECK_NULLARG(MPI_Get_elements(&st, MPI_INT, NULL), "count");
    /* point-to-point and requests: the ignore sentinels stay valid */
    MPI_Request req = MPI_REQUEST_NULL;
    CHECK_NULLARG(MPI_Isend(buf, 1, MPI_INT, rank, 6, comm, NULL), "request");
    CHECK_NULLARG(MPI_Irecv(buf, 1, MPI_INT, rank, 6, comm, NULL), "request");
    CHECK_NULLARG(MPI_Iprobe(MPI_ANY_SOURCE, 99, comm, NULL, MPI_STATUS_IGNORE), "flag");
    CHECK_NULLARG(MPI_Recv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, comm, NULL), "status");
    CHECK_MPI(MPI_Recv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, comm, MPI_STATUS_IGNORE));
    CHECK_NULLARG(MPI_Test(&req, NULL, MPI_STATUS_IGNORE), "flag");
    CHECK_NULLARG(MPI_Wait(&req, NULL), "status");
    CHECK_NULLARG(MPI_Waitall(1, &req, NULL), "array_of_statuses");
    CHECK_MPI(MPI_Waitall(1, &req, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Waitall(0, NULL, NULL));
    CHECK_NULLARG(MPI_Testall(1, &req, NULL, MPI_STATUSES_IGNORE), "flag");
    CHECK_NULLARG(MPI_Waitany(1, &req, NULL, MPI_STATUS_IGNORE), "index");
    CHECK_NULLARG(MPI_Request_get_status(req, NULL, MPI_STATUS_IGNORE), "flag");
    CHECK_NULLARG(MPI_Send_init(buf, 1, MPI_INT, rank, 7, comm, NULL), "request");
    /* collectives, operations */
    CHECK_NULLARG(MPI_Ibarrier(comm, NULL), "request");
    MPI_Op op;
    CHECK_NULLARG(MPI_Op_commutative(MPI_SUM, NULL), "commute");
    CHECK_NULLARG(MPI_Op_create(add_fn, 1, NULL), "op");
    (void)op;
    /* info, errors, environment */
    MPI_Info info;
    CHECK_NULLARG(MPI_Info_create(NULL), "info");
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_NULLARG(MPI_Info_get_nkeys(info, NULL), "nkeys");
    CHECK_MPI(MPI_Info_free(&info));
    int cls;
    char text[MPI_MAX_ERROR_STRING];
    CHECK_NULLARG(MPI_Error_class(MPI_ERR_ARG, NULL), "errorclass");
    CHECK_NULLARG(MPI_Error_string(MPI_ERR_ARG, NULL, &n), "string");
    CHECK_NULLARG(MPI_Error_string(MPI_ERR_ARG, text, NULL), "resultlen");
    (void)cls;
    char host[MPI_MAX_PROCESSOR_NAME];
    CHECK_NULLARG(MPI_Get_processor_name(NULL, &n), "name");
    CHECK_NULLARG(MPI_Get_processor_name(host, NULL), "resultlen");
    CHECK_NULLARG(MPI_Query_thread(NULL), "provided");
    CHECK_NULLARG(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL),
                  "comm_keyval");
    /* topologies: an array of ndims elements */
    int dims[2] = { 0, 0 }, periods[2] = { 0, 0 }, coords[2];
    CHECK_NULLARG(MPI_Dims_create(size, 2, NULL), "dims");
    CHECK_MPI(MPI_Dims_create(size, 2, dims));
    MPI_Comm cart;
    CHECK_NULLARG(MPI_Cart_create(comm, 2, dims, periods, 0, NULL), "comm_cart");
    CHECK_MPI(MPI_Cart_create(comm, 2, dims, periods, 0, &cart));
    CHECK_NULLARG(MPI_Cartdim_get(cart, NULL), "ndims");
    CHECK_NULLARG(MPI_Cart_coords(cart, rank, 2, NULL), "coords");
    CHECK_MPI(MPI_Cart_coords(cart, rank, 2, coords));
    CHECK_NULLARG(MPI_Cart_get(cart, 2, dims, periods, NULL), "coords");
    CHECK_NULLARG(MPI_Topo_test(cart, NULL), "status");
    CHECK_MPI(MPI_Comm_free(&cart));

    /* the library still works, and every rank got here */
    int one = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK_INT(sum, size);
    MPI_Group_free(&rev);
    MPI_Group_free(&world);
    free(ranks);
    int rc = mt_finish("err_nullptr");
    MPI_Finalize();
    return rc;
}
