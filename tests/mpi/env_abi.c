/* SPDX-License-Identifier: MIT */
/* MPI 5.0's ABI procedures on an implementation of the MPICH ABI (src/core/abi.c):
 * - MPI_Abi_get_version is -1, -1 (the standard ABI is not provided), before
 *   MPI_Init, between and after MPI_Finalize;
 * - MPI_Abi_get_info holds mpi_aint_size, mpi_count_size and mpi_offset_size,
 *   equal to the sizes of the C types (before MPI_Init too);
 * - MPI_Abi_get_fortran_info describes gfortran's INTEGER, REAL, DOUBLE
 *   PRECISION and LOGICAL (the sizes of MPI_INTEGER etc.) and every optional
 *   datatype's _supported key, which agrees with the datatype; MPI_Abi_get_fortran_booleans gives 1 / 0 in every
 *   LOGICAL size, is_set true; the setters answer MPI_ERR_ABI, a bad
 *   logical_size MPI_ERR_ARG;
 * - MPI_<Handle>_toint / _fromint round-trip every handle kind, user-made and
 *   predefined, null handles included; a predefined handle's integer is its
 *   MPICH value; a handle from fromint works; distinct handles give distinct
 *   integers.  The PMPI_ names answer the same. */
#include "mpitest.h"

#include <stdint.h>
#include <string.h>
#include <unistd.h>

static void my_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

static void my_errh(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
}

/* The value of key in info as a long, -1 when absent or not a number. */
static long info_long(MPI_Info info, const char *key)
{
    char v[MPI_MAX_INFO_VAL];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, v, &flag);
    if (!flag) return -1;
    char *end;
    long n = strtol(v, &end, 10);
    return *end ? -1 : n;
}

/* "true" -> 1, "false" -> 0, absent or anything else -> -1. */
static int info_bool(MPI_Info info, const char *key)
{
    char v[MPI_MAX_INFO_VAL];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, v, &flag);
    if (!flag) return -1;
    return !strcmp(v, "true") ? 1 : !strcmp(v, "false") ? 0 : -1;
}

static int version_ok(void)
{
    int major = 0, minor = 0;
    return MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS && major == -1 && minor == -1;
}

static void check_abi_info(const char *when)
{
    MPI_Info info = MPI_INFO_NULL;
    CHECK_MPI(MPI_Abi_get_info(&info));
    CHECK(info != MPI_INFO_NULL, "%s: MPI_Abi_get_info gave MPI_INFO_NULL", when);
    if (info == MPI_INFO_NULL) return;
    CHECK_INT(info_long(info, "mpi_aint_size"), sizeof(MPI_Aint));
    CHECK_INT(info_long(info, "mpi_count_size"), sizeof(MPI_Count));
    CHECK_INT(info_long(info, "mpi_offset_size"), sizeof(MPI_Offset));
    int nkeys = 0;
    CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
    CHECK_INT(nkeys, 3);
    CHECK_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    /* before MPI_Init: both queries may be called at any time */
    CHECK(version_ok(), "MPI_Abi_get_version before MPI_Init");
    {
        int major = 0, minor = 0;
        CHECK(PMPI_Abi_get_version(&major, &minor) == MPI_SUCCESS && major == -1 && minor == -1,
              "PMPI_Abi_get_version gave %d.%d", major, minor);
    }
    check_abi_info("before MPI_Init");

    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    CHECK(version_ok(), "MPI_Abi_get_version");
    check_abi_info("after MPI_Init");

    /* ---- the Fortran ABI ---- */
    MPI_Info finfo = MPI_INFO_NULL;
    CHECK_MPI(MPI_Abi_get_fortran_info(&finfo));
    CHECK(finfo != MPI_INFO_NULL, "MPI_Abi_get_fortran_info gave MPI_INFO_NULL");
    if (finfo != MPI_INFO_NULL) {
        const struct { const char *key; MPI_Datatype t; } sizes[] = {
            {"mpi_logical_size", MPI_LOGICAL}, {"mpi_integer_size", MPI_INTEGER},
            {"mpi_real_size", MPI_REAL}, {"mpi_double_precision_size", MPI_DOUBLE_PRECISION},
        };
        for (int i = 0; i < 4; i++) {
            int sz = 0;
            MPI_Type_size(sizes[i].t, &sz);
            CHECK(info_long(finfo, sizes[i].key) == sz, "%s is %ld, the datatype's size %d",
                  sizes[i].key, info_long(finfo, sizes[i].key), sz);
        }
        CHECK_INT(info_long(finfo, "mpi_integer_size"), sizeof(MPI_Fint));
        CHECK_INT(info_long(finfo, "mpi_logical_size"), 4);
        CHECK_INT(info_long(finfo, "mpi_double_precision_size"), 8);
        /* each optional datatype's key agrees with the datatype (MPI 5.0
         * 21.4: an absent one has size MPI_UNDEFINED); Courier has them all */
        const struct { const char *key; MPI_Datatype t; } kinds[] = {
            {"mpi_logical1_supported", MPI_LOGICAL1}, {"mpi_logical2_supported", MPI_LOGICAL2},
            {"mpi_logical4_supported", MPI_LOGICAL4}, {"mpi_logical8_supported", MPI_LOGICAL8},
            {"mpi_logical16_supported", MPI_LOGICAL16}, {"mpi_integer1_supported", MPI_INTEGER1},
            {"mpi_integer2_supported", MPI_INTEGER2}, {"mpi_integer4_supported", MPI_INTEGER4},
            {"mpi_integer8_supported", MPI_INTEGER8}, {"mpi_integer16_supported", MPI_INTEGER16},
            {"mpi_real2_supported", MPI_REAL2}, {"mpi_real4_supported", MPI_REAL4},
            {"mpi_real8_supported", MPI_REAL8}, {"mpi_real16_supported", MPI_REAL16},
            {"mpi_complex4_supported", MPI_COMPLEX4}, {"mpi_complex8_supported", MPI_COMPLEX8},
            {"mpi_complex16_supported", MPI_COMPLEX16},
            {"mpi_complex32_supported", MPI_COMPLEX32},
            {"mpi_double_complex_supported", MPI_DOUBLE_COMPLEX},
        };
        int nk = (int)(sizeof kinds / sizeof kinds[0]);
        for (int i = 0; i < nk; i++) {
            int sz = MPI_UNDEFINED;
            MPI_Type_size(kinds[i].t, &sz);
            int want = sz != MPI_UNDEFINED && sz > 0;
            CHECK(want, "%s: Courier has every optional Fortran datatype", kinds[i].key);
            CHECK(info_bool(finfo, kinds[i].key) == want, "%s is %d, the datatype says %d",
                  kinds[i].key, info_bool(finfo, kinds[i].key), want);
        }
        int nkeys = 0;
        MPI_Info_get_nkeys(finfo, &nkeys);
        CHECK_INT(nkeys, 4 + nk);
        /* the library's properties are fixed: a setting is refused */
        CHECK_CLASS(MPI_Abi_set_fortran_info(finfo), MPI_ERR_ABI);
        CHECK_MPI(MPI_Info_free(&finfo));
    }
    CHECK_CLASS(MPI_Abi_set_fortran_info(MPI_INFO_NULL), MPI_ERR_INFO);
    {
        int cls = -1;
        MPI_Error_class(MPI_ERR_ABI, &cls);
        CHECK_INT(cls, MPI_ERR_ABI);
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        CHECK_MPI(MPI_Error_string(MPI_ERR_ABI, s, &len));
        CHECK(len > 0 && strstr(s, "MPI_ERR_ABI"), "MPI_Error_string(MPI_ERR_ABI): \"%s\"", s);
    }
    for (int n = 1; n <= 16; n *= 2) {
        unsigned char t[16], f[16], one[16] = {0}, zero[16] = {0};
        memset(t, 0xa5, sizeof t);
        memset(f, 0xa5, sizeof f);
        int is_set = -1;
        CHECK_MPI(MPI_Abi_get_fortran_booleans(n, t, f, &is_set));
        /* .TRUE. is the integer 1 of n bytes, .FALSE. 0 */
        switch (n) {
        case 1: one[0] = 1; break;
        case 2: { uint16_t v = 1; memcpy(one, &v, 2); break; }
        case 4: { uint32_t v = 1; memcpy(one, &v, 4); break; }
        case 8: { uint64_t v = 1; memcpy(one, &v, 8); break; }
        default: { unsigned __int128 v = 1; memcpy(one, &v, 16); break; }
        }
        CHECK(!memcmp(t, one, (size_t)n), "logical_true of %d bytes", n);
        CHECK(!memcmp(f, zero, (size_t)n), "logical_false of %d bytes", n);
        CHECK(n == 16 || t[n] == 0xa5, "logical_true of %d bytes wrote past its size", n);
        CHECK(is_set == 1, "is_set %d for %d bytes", is_set, n);
        CHECK_CLASS(MPI_Abi_set_fortran_booleans(n, t, f), MPI_ERR_ABI);
    }
    {
        int lt = 0, lf = 0, is_set = 0;
        CHECK_MPI(PMPI_Abi_get_fortran_booleans(4, &lt, &lf, &is_set));
        CHECK(lt == 1 && lf == 0 && is_set, "default LOGICAL: %d %d %d", lt, lf, is_set);
        CHECK_CLASS(MPI_Abi_get_fortran_booleans(3, &lt, &lf, &is_set), MPI_ERR_ARG);
        CHECK_CLASS(MPI_Abi_get_fortran_booleans(32, &lt, &lf, &is_set), MPI_ERR_ARG);
        CHECK_CLASS(MPI_Abi_set_fortran_booleans(0, &lt, &lf), MPI_ERR_ARG);
        CHECK_CLASS(MPI_Abi_get_fortran_booleans(4, NULL, &lf, &is_set), MPI_ERR_ARG);
    }

    /* ---- handle serialization: predefined handles keep their MPICH values ---- */
    CHECK_INT(MPI_Comm_toint(MPI_COMM_WORLD), (int)MPI_COMM_WORLD);
    CHECK_INT(MPI_Comm_toint(MPI_COMM_NULL), (int)MPI_COMM_NULL);
    CHECK_INT(MPI_Type_toint(MPI_DOUBLE), (int)MPI_DOUBLE);
    CHECK_INT(MPI_Op_toint(MPI_SUM), (int)MPI_SUM);
    CHECK_INT(PMPI_Comm_toint(MPI_COMM_SELF), (int)MPI_COMM_SELF);
    CHECK(PMPI_Comm_fromint((int)MPI_COMM_SELF) == MPI_COMM_SELF, "PMPI_Comm_fromint");
    CHECK_INT(MPI_File_toint(MPI_FILE_NULL), 0);

#define RT(kind, h) CHECK(MPI_##kind##_fromint(MPI_##kind##_toint(h)) == (h), #kind " " #h)
    RT(Comm, MPI_COMM_WORLD); RT(Comm, MPI_COMM_SELF); RT(Comm, MPI_COMM_NULL);
    RT(Group, MPI_GROUP_EMPTY); RT(Group, MPI_GROUP_NULL);
    RT(Type, MPI_INT); RT(Type, MPI_DOUBLE); RT(Type, MPI_CHAR); RT(Type, MPI_2INT);
    RT(Type, MPI_LONG_DOUBLE_INT); RT(Type, MPI_INTEGER); RT(Type, MPI_LOGICAL16);
    RT(Type, MPIX_C_FLOAT16); RT(Type, MPI_DATATYPE_NULL);
    RT(Op, MPI_SUM); RT(Op, MPI_MAXLOC); RT(Op, MPI_REPLACE); RT(Op, MPI_NO_OP); RT(Op, MPI_OP_NULL);
    RT(Errhandler, MPI_ERRORS_ARE_FATAL); RT(Errhandler, MPI_ERRORS_RETURN);
    RT(Errhandler, MPI_ERRORS_ABORT); RT(Errhandler, MPI_ERRHANDLER_NULL);
    RT(Info, MPI_INFO_ENV); RT(Info, MPI_INFO_NULL);
    RT(Request, MPI_REQUEST_NULL);
    RT(Message, MPI_MESSAGE_NULL); RT(Message, MPI_MESSAGE_NO_PROC);
    RT(Session, MPI_SESSION_NULL);
    RT(Win, MPI_WIN_NULL);
    RT(File, MPI_FILE_NULL);

    /* ---- user-made handles of every kind: round trip, and the result works ---- */
    MPI_Comm dup;
    MPI_Group g;
    MPI_Datatype t;
    MPI_Info info;
    MPI_Op op;
    MPI_Errhandler eh;
    MPI_Request req;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Comm_group(dup, &g));
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    CHECK_MPI(MPI_Info_create(&info));
    CHECK_MPI(MPI_Info_set(info, "k", "v"));
    CHECK_MPI(MPI_Op_create(my_op, 1, &op));
    CHECK_MPI(MPI_Comm_create_errhandler(my_errh, &eh));
    RT(Comm, dup); RT(Group, g); RT(Type, t); RT(Info, info); RT(Op, op); RT(Errhandler, eh);
    CHECK(MPI_Comm_toint(dup) == MPI_Comm_toint(dup), "the same integer every time");
    CHECK(MPI_Comm_toint(dup) != MPI_Comm_toint(MPI_COMM_WORLD), "dup and world differ");
    CHECK(MPI_Comm_toint(dup) != MPI_Comm_toint(MPI_COMM_NULL), "dup and null differ");
    CHECK(MPI_Type_toint(t) != MPI_Type_toint(MPI_INT), "a new type and MPI_INT differ");

    int n = -1;
    CHECK_MPI(MPI_Comm_size(MPI_Comm_fromint(MPI_Comm_toint(dup)), &n));
    CHECK_INT(n, size);
    CHECK_MPI(MPI_Group_size(MPI_Group_fromint(MPI_Group_toint(g)), &n));
    CHECK_INT(n, size);
    CHECK_MPI(MPI_Type_size(MPI_Type_fromint(MPI_Type_toint(t)), &n));
    CHECK_INT(n, 3 * (int)sizeof(int));
    {
        char v[8];
        int flag = 0;
        CHECK_MPI(MPI_Info_get(MPI_Info_fromint(MPI_Info_toint(info)), "k", 7, v, &flag));
        CHECK(flag && !strcmp(v, "v"), "the info through its integer");
    }
    {
        int in = rank + 1, out = 0;
        CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_Op_fromint(MPI_Op_toint(MPI_SUM)),
                                MPI_Comm_fromint(MPI_Comm_toint(dup))));
        CHECK_INT(out, size * (size + 1) / 2);
        int comm_op = 0;
        CHECK_MPI(MPI_Op_commutative(MPI_Op_fromint(MPI_Op_toint(op)), &comm_op));
        CHECK_INT(comm_op, 1);
    }
    {
        MPI_Errhandler back = MPI_ERRHANDLER_NULL;
        CHECK_MPI(MPI_Comm_set_errhandler(dup, MPI_Errhandler_fromint(MPI_Errhandler_toint(eh))));
        CHECK_MPI(MPI_Comm_get_errhandler(dup, &back));
        CHECK(back == eh, "errhandler through its integer");
        MPI_Errhandler_free(&back);
    }

    /* a request and a matched message: self-send, then mprobe and mrecv */
    int x = 40 + rank, y = -1;
    CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, rank, 7, dup, &req));
    RT(Request, req);
    MPI_Message msg = MPI_MESSAGE_NULL;
    CHECK_MPI(MPI_Mprobe(rank, 7, dup, &msg, MPI_STATUS_IGNORE));
    RT(Message, msg);
    CHECK(MPI_Message_toint(msg) != MPI_Message_toint(MPI_MESSAGE_NULL), "a message is not null");
    MPI_Message m2 = MPI_Message_fromint(MPI_Message_toint(msg));
    CHECK_MPI(MPI_Mrecv(&y, 1, MPI_INT, &m2, MPI_STATUS_IGNORE));
    CHECK_INT(y, 40 + rank);
    MPI_Request r2 = MPI_Request_fromint(MPI_Request_toint(req));
    CHECK_MPI(MPI_Wait(&r2, MPI_STATUS_IGNORE));
    CHECK(r2 == MPI_REQUEST_NULL, "the request through its integer completes");

    /* a session */
    {
        MPI_Session s = MPI_SESSION_NULL;
        CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
        RT(Session, s);
        CHECK(MPI_Session_toint(s) != MPI_Session_toint(MPI_SESSION_NULL), "a session is not null");
        int np = -1;
        CHECK_MPI(MPI_Session_get_num_psets(MPI_Session_fromint(MPI_Session_toint(s)), MPI_INFO_NULL,
                                            &np));
        CHECK(np >= 2, "psets of the session through its integer: %d", np);
        CHECK_MPI(MPI_Session_finalize(&s));
    }

    /* a window */
    {
        int mem[4] = {0};
        MPI_Win w = MPI_WIN_NULL;
        CHECK_MPI(MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, dup, &w));
        RT(Win, w);
        MPI_Group wg = MPI_GROUP_NULL;
        CHECK_MPI(MPI_Win_get_group(MPI_Win_fromint(MPI_Win_toint(w)), &wg));
        CHECK_MPI(MPI_Group_size(wg, &n));
        CHECK_INT(n, size);
        MPI_Group_free(&wg);
        CHECK_MPI(MPI_Win_free(&w));
    }

    /* a file (each rank its own, on MPI_COMM_SELF) */
    {
        char path[256];
        snprintf(path, sizeof path, "/tmp/courier_env_abi_%d_%d", (int)getpid(), rank);
        MPI_File fh = MPI_FILE_NULL;
        CHECK_MPI(MPI_File_open(MPI_COMM_SELF, path,
                                MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                                MPI_INFO_NULL, &fh));
        if (fh != MPI_FILE_NULL) {
            RT(File, fh);
            CHECK(MPI_File_toint(fh) != 0, "a file's integer is not MPI_FILE_NULL's");
            int amode = 0;
            CHECK_MPI(MPI_File_get_amode(MPI_File_fromint(MPI_File_toint(fh)), &amode));
            CHECK(amode & MPI_MODE_RDWR, "amode through the file's integer: %d", amode);
            CHECK_MPI(MPI_File_close(&fh));
        }
    }
#undef RT

    MPI_Errhandler_free(&eh);
    MPI_Op_free(&op);
    MPI_Info_free(&info);
    MPI_Type_free(&t);
    MPI_Group_free(&g);
    MPI_Comm_free(&dup);
    int rc = mt_finish("env_abi");
    MPI_Finalize();
    /* after MPI_Finalize */
    if (!version_ok()) {
        fprintf(stderr, "FAIL rank %d: MPI_Abi_get_version after MPI_Finalize\n", rank);
        rc = 1;
    }
    MPI_Info after = MPI_INFO_NULL;
    if (MPI_Abi_get_info(&after) != MPI_SUCCESS || after == MPI_INFO_NULL) {
        fprintf(stderr, "FAIL rank %d: MPI_Abi_get_info after MPI_Finalize\n", rank);
        rc = 1;
    } else {
        MPI_Info_free(&after);
    }
    return rc;
}
