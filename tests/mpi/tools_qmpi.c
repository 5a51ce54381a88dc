/* SPDX-License-Identifier: MIT */
/* QMPI, MPICH's tool-registration interface: a tool registers itself from a
 * constructor, before MPI_Init, as MPICH's mpi_t/qmpi_test does, and asks for
 * its own MPI_Send and MPI_Recv.  Courier, like Debian's MPICH build, refuses
 * registration: every QMPI function answers MPI_ERR_UNSUPPORTED_OPERATION,
 * before MPI_Init and after, whatever its arguments (NULLs, ids and enum
 * values out of range included), and writes nothing through the pointers it
 * is given; the tool's functions are never called; and the program's
 * messages (MPI_Send / MPI_Recv, eager and rendezvous sizes) arrive intact.
 * Under an MPI whose QMPI accepts the tool (MPICH built with QMPI, the tool
 * named in MPIR_CVAR_QMPI_TOOL_LIST) the test checks instead that the tool saw
 * every MPI_Send and MPI_Recv.  tests/abi/run_qmpi.sh also runs this program
 * built with MPICH's mpicc on Courier. */
#include "mpitest.h"

#define TOOL_NAME "tools_qmpi"
/* What a pointer the functions must not write through holds before the call. */
#define SENTINEL_ID (-7)
/* Message sizes in bytes: eager, and two above any eager limit. */
static const int sizes[] = { 4, 4096, 1 << 20 };
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

/* What the constructor saw, checked from main once MPI is up. */
static int ctor_ran, ctor_initialized = -1, ctor_rc[6];
static int tool_on;                /* registration succeeded */
static int tool_init_calls, tool_send_calls, tool_recv_calls;
static int my_tool_id = -1;
static int sends_made, recvs_made; /* by this program */

static void tool_init(int tool_id);

__attribute__((constructor)) static void register_tool(void)
{
    ctor_ran = 1;
    MPI_Initialized(&ctor_initialized);
    QMPI_Context ctx = { NULL };
    void (*fp)(void) = NULL;
    int next = SENTINEL_ID;
    void *p = &next;
    ctor_rc[0] = QMPI_Register_tool_name(TOOL_NAME, tool_init);
    tool_on = ctor_rc[0] == MPI_SUCCESS;
    if (tool_on) return;     /* an MPI with QMPI: the rest would be a real tool's calls */
    ctor_rc[1] = QMPI_Register_tool_storage(1, &next);
    ctor_rc[2] = QMPI_Register_function(1, MPI_SEND_T, (void (*)(void))tool_init);
    ctor_rc[3] = QMPI_Get_function(1, MPI_SEND_T, &fp, &next);
    ctor_rc[4] = QMPI_Get_tool_storage(ctx, 1, &p);
    ctor_rc[5] = QMPI_Get_calling_address(ctx, &p);
    if (fp != NULL || next != SENTINEL_ID || p != (void *)&next) ctor_rc[0] = -1;   /* written */
}

/* The tool's own MPI_Send and MPI_Recv: count, then call the next in the chain. */
static int tool_send(QMPI_Context context, int tool_id, const void *buf, int count,
                     MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    QMPI_Send_t *next_fn = NULL;
    int next_id = -1;
    tool_send_calls++;
    QMPI_Get_function(tool_id, MPI_SEND_T, (void (**)(void))&next_fn, &next_id);
    return next_fn(context, next_id, buf, count, datatype, dest, tag, comm);
}

static int tool_recv(QMPI_Context context, int tool_id, void *buf, int count,
                     MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    QMPI_Recv_t *next_fn = NULL;
    int next_id = -1;
    tool_recv_calls++;
    QMPI_Get_function(tool_id, MPI_RECV_T, (void (**)(void))&next_fn, &next_id);
    return next_fn(context, next_id, buf, count, datatype, source, tag, comm, status);
}

static void tool_init(int tool_id)
{
    tool_init_calls++;
    my_tool_id = tool_id;
    QMPI_Register_function(tool_id, MPI_SEND_T, (void (*)(void))tool_send);
    QMPI_Register_function(tool_id, MPI_RECV_T, (void (*)(void))tool_recv);
}

/* A refused call: class MPI_ERR_UNSUPPORTED_OPERATION and a message. */
static void check_refused(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = -1;
    CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    CHECK_CLASS(rc, MPI_ERR_UNSUPPORTED_OPERATION);
    msg[0] = '\0';
    CHECK_MPI(MPI_Error_string(rc, msg, &len));
    CHECK(len > 0 && (int)strlen(msg) == len, "%s: message of length %d \"%s\"", what, len, msg);
}

/* Every QMPI function with right and wrong arguments, MPI initialized. */
static void check_calls(void)
{
    static char long_name[QMPI_MAX_TOOL_NAME_LENGTH + 2];
    memset(long_name, 'q', sizeof long_name - 1);
    QMPI_Context ctx = { NULL }, junk;
    void *junk_stack[1] = { NULL };
    junk.storage_stack = junk_stack;
    void (*fp)(void) = NULL;
    int next = SENTINEL_ID;
    void *p = &next;
    enum QMPI_Functions_enum bad_hi = (enum QMPI_Functions_enum)MPI_LAST_FUNC_T;
    enum QMPI_Functions_enum bad_lo = (enum QMPI_Functions_enum)-1;

    check_refused(QMPI_Register_tool_name(TOOL_NAME "_late", tool_init), "Register_tool_name");
    check_refused(QMPI_Register_tool_name(NULL, tool_init), "Register_tool_name(NULL name)");
    check_refused(QMPI_Register_tool_name("", tool_init), "Register_tool_name(empty name)");
    check_refused(QMPI_Register_tool_name(long_name, tool_init), "Register_tool_name(long name)");
    long_name[QMPI_MAX_TOOL_NAME_LENGTH] = '\0';     /* the longest name allowed */
    check_refused(QMPI_Register_tool_name(long_name, tool_init), "Register_tool_name(longest name)");
    check_refused(QMPI_Register_tool_name(TOOL_NAME, NULL), "Register_tool_name(NULL init)");
    int ids[] = { 1, 0, -1, 1000000 };
    for (int i = 0; i < (int)(sizeof ids / sizeof ids[0]); i++) {
        int id = ids[i];
        check_refused(QMPI_Register_tool_storage(id, &next), "Register_tool_storage");
        check_refused(QMPI_Register_tool_storage(id, NULL), "Register_tool_storage(NULL)");
        check_refused(QMPI_Register_function(id, MPI_RECV_T, (void (*)(void))tool_recv), "Register_function");
        check_refused(QMPI_Register_function(id, MPI_RECV_T, NULL), "Register_function(NULL)");
        check_refused(QMPI_Register_function(id, bad_hi, (void (*)(void))tool_recv), "Register_function(enum high)");
        check_refused(QMPI_Register_function(id, bad_lo, (void (*)(void))tool_recv), "Register_function(enum low)");
        check_refused(QMPI_Get_function(id, MPI_RECV_T, &fp, &next), "Get_function");
        check_refused(QMPI_Get_function(id, MPI_LAST_FUNC_T, &fp, &next), "Get_function(enum high)");
        check_refused(QMPI_Get_function(id, MPI_RECV_T, NULL, &next), "Get_function(NULL function)");
        check_refused(QMPI_Get_function(id, MPI_RECV_T, &fp, NULL), "Get_function(NULL id)");
        check_refused(QMPI_Get_tool_storage(ctx, id, &p), "Get_tool_storage");
        check_refused(QMPI_Get_tool_storage(junk, id, &p), "Get_tool_storage(junk context)");
        check_refused(QMPI_Get_tool_storage(ctx, id, NULL), "Get_tool_storage(NULL)");
    }
    check_refused(QMPI_Get_calling_address(ctx, &p), "Get_calling_address");
    check_refused(QMPI_Get_calling_address(junk, &p), "Get_calling_address(junk context)");
    check_refused(QMPI_Get_calling_address(ctx, NULL), "Get_calling_address(NULL)");
    /* nothing written through the pointers */
    CHECK(fp == NULL, "function_ptr written: %p", (void *)(uintptr_t)fp);
    CHECK_INT(next, SENTINEL_ID);
    CHECK(p == (void *)&next, "storage or address written: %p", p);
    CHECK(junk_stack[0] == NULL, "the context's storage written: %p", junk_stack[0]);
}

/* Messages through MPI_Send and MPI_Recv: a ring (posted receive first, so
 * that one rank is a ring too), then pairs (0,1), (2,3) ping-pong. */
static void check_traffic(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int s = 0; s < NSIZES; s++) {
        int n = sizes[s];
        unsigned char *out = mt_malloc((size_t)n), *in = mt_malloc((size_t)n);
        long seed_out = 100L * s + rank, seed_in = 100L * s + left;
        mt_fill(out, (size_t)n, seed_out);
        memset(in, 0, (size_t)n);
        MPI_Request req;
        CHECK_MPI(MPI_Irecv(in, n, MPI_BYTE, left, s, MPI_COMM_WORLD, &req));
        CHECK_MPI(MPI_Send(out, n, MPI_BYTE, right, s, MPI_COMM_WORLD));
        sends_made++;
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK_PATTERN(in, (size_t)n, seed_in);

        int partner = rank ^ 1;
        if (partner < size) {
            MPI_Status st;
            long seed_ping = 1000L + 100L * s + (rank & ~1), seed_pong = seed_ping + 1;
            memset(in, 0, (size_t)n);
            if (rank % 2 == 0) {
                mt_fill(out, (size_t)n, seed_ping);
                CHECK_MPI(MPI_Send(out, n, MPI_BYTE, partner, NSIZES + s, MPI_COMM_WORLD));
                CHECK_MPI(MPI_Recv(in, n, MPI_BYTE, partner, NSIZES + s, MPI_COMM_WORLD, &st));
                CHECK_PATTERN(in, (size_t)n, seed_pong);
            } else {
                CHECK_MPI(MPI_Recv(in, n, MPI_BYTE, partner, NSIZES + s, MPI_COMM_WORLD, &st));
                CHECK_PATTERN(in, (size_t)n, seed_ping);
                mt_fill(out, (size_t)n, seed_pong);
                CHECK_MPI(MPI_Send(out, n, MPI_BYTE, partner, NSIZES + s, MPI_COMM_WORLD));
            }
            sends_made++;
            recvs_made++;
            int got = -1;
            CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &got));
            CHECK_INT(got, n);
            CHECK_INT(st.MPI_SOURCE, partner);
            CHECK_INT(st.MPI_TAG, NSIZES + s);
        }
        free(out);
        free(in);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    CHECK_INT(ctor_ran, 1);
    CHECK_INT(ctor_initialized, 0);
    if (!tool_on) {
        /* refused before MPI_Init, every function, nothing written */
        CHECK(ctor_rc[0] != -1, "a QMPI function wrote through a pointer before MPI_Init");
        for (int i = 0; i < 6; i++) check_refused(ctor_rc[i], "a QMPI call before MPI_Init");
        check_calls();
    }

    check_traffic(rank, size);

    if (tool_on) {
        CHECK_INT(tool_init_calls, 1);
        CHECK(my_tool_id >= 1, "tool id %d", my_tool_id);
        CHECK_INT(tool_send_calls, sends_made);
        CHECK_INT(tool_recv_calls, recvs_made);
    } else {
        CHECK_INT(tool_init_calls, 0);
        CHECK_INT(tool_send_calls, 0);
        CHECK_INT(tool_recv_calls, 0);
    }
    if (rank == 0) printf("qmpi: registration %s\n", tool_on ? "accepted" : "refused");
    int rc = mt_finish("tools_qmpi");
    MPI_Finalize();
    return rc;
}
