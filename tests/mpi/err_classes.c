/* SPDX-License-Identifier: MIT */
/* Error classes, codes and strings: every predefined class and every code a
 * failing call returns has a class and a string; classes and codes added by
 * the user lie above MPI_ERR_LASTCODE, MPI_LASTUSEDCODE tracks them, codes may
 * be added to predefined classes, and MPI_Remove_error_* (MPI 4.1) remove them
 * in order (strings, codes, class).  MPI_Comm_call_errhandler,
 * MPI_File_call_errhandler (on MPI_FILE_NULL) and the deprecated
 * MPI_Errhandler_create / _set / _get run the handlers. */
#include "mpitest.h"

#ifdef MT_REFERENCE_MPICH      /* MPICH 4.0 has MPI 4.1's removals under its own names */
#define MPI_Remove_error_class MPIX_Delete_error_class
#define MPI_Remove_error_code MPIX_Delete_error_code
#define MPI_Remove_error_string MPIX_Delete_error_string
#endif

static int calls, last_code;
static MPI_Comm last_comm;
static void comm_eh(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_code = *code;
    last_comm = *comm;
}
static int file_calls;
static void file_eh(MPI_File *fh, int *code, ...)
{
    file_calls++;
    last_code = *code;
    (void)fh;
}

static void check_code(int code)
{
    char s[MPI_MAX_ERROR_STRING];
    int cls = -1, len = -1;
    CHECK_MPI(MPI_Error_class(code, &cls));
    CHECK_MPI(MPI_Error_string(code, s, &len));
    CHECK(len > 0 && len == (int)strlen(s), "code %d: string of length %d", code, len);
    CHECK(cls > MPI_SUCCESS && cls <= MPI_ERR_LASTCODE, "code %d: class %d", code, cls);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char s[MPI_MAX_ERROR_STRING];
    int cls, len, flag, *lastused;

    /* every predefined class is a code of itself, with a string */
    for (int c = 0; c <= MPI_T_ERR_NOT_SUPPORTED; c++) {
        if (c == 54) continue;          /* no class 54 in MPICH's numbering */
        cls = -1;
        CHECK_MPI(MPI_Error_class(c, &cls));
        CHECK_INT(cls, c);
        CHECK_MPI(MPI_Error_string(c, s, &len));
        CHECK(len > 0, "class %d has an empty string", c);
    }
    /* the codes failing calls return */
    int one = 1;
    int rc = MPI_Send(&one, 1, MPI_INT, 9999, 0, MPI_COMM_WORLD);
    CHECK_CLASS(rc, MPI_ERR_RANK);
    check_code(rc);
    MPI_Error_string(rc, s, &len);
#ifndef MT_REFERENCE_MPICH   /* MPICH words its messages differently */
    CHECK(strstr(s, "dest") != NULL, "the message names the argument: \"%s\"", s);
#endif
    rc = MPI_Comm_free(NULL);
    CHECK_CLASS(rc, MPI_ERR_ARG);
    check_code(rc);
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 answers MPI_Error_class(-1) on some ranks */
    int bad = 0x12345;
    rc = MPI_Error_class(-1, &bad);
    CHECK(rc != MPI_SUCCESS, "MPI_Error_class(-1) succeeded");
    check_code(rc);
#endif

    /* user classes and codes */
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag);
    CHECK(flag && *lastused >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d", flag ? *lastused : -1);
    int ucls, ucode1, ucode2, ocode;
    CHECK_MPI(MPI_Add_error_class(&ucls));
    CHECK(ucls > MPI_ERR_LASTCODE, "user class %d is not above MPI_ERR_LASTCODE", ucls);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag);
    CHECK_INT(*lastused, ucls);
    CHECK_MPI(MPI_Error_string(ucls, s, &len));
    CHECK(len == 0, "a new class has an empty string, got \"%s\"", s);
    CHECK_MPI(MPI_Add_error_string(ucls, "my class"));
    CHECK_MPI(MPI_Add_error_code(ucls, &ucode1));
    CHECK_MPI(MPI_Add_error_code(ucls, &ucode2));
    CHECK(ucode1 != ucode2 && ucode1 > MPI_ERR_LASTCODE, "codes %d %d", ucode1, ucode2);
    CHECK_MPI(MPI_Error_class(ucode1, &cls));
    CHECK_INT(cls, ucls);
    CHECK_MPI(MPI_Add_error_string(ucode1, "my code 1"));
    CHECK_MPI(MPI_Error_string(ucode1, s, &len));
    CHECK(strcmp(s, "my code 1") == 0 && len == 9, "string \"%s\"", s);
    CHECK_MPI(MPI_Error_string(ucls, s, &len));
    CHECK(strcmp(s, "my class") == 0, "class string \"%s\"", s);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag);
#ifndef MT_REFERENCE_MPICH   /* MPICH's user codes carry bits above MPI_LASTUSEDCODE */
    CHECK(*lastused >= ucode2 && *lastused >= ucode1, "MPI_LASTUSEDCODE %d", *lastused);
#endif
    /* a code of a predefined class */
    CHECK_MPI(MPI_Add_error_code(MPI_ERR_OTHER, &ocode));
    CHECK_MPI(MPI_Error_class(ocode, &cls));
    CHECK_INT(cls, MPI_ERR_OTHER);
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 checks neither */
    CHECK_CLASS(MPI_Add_error_string(MPI_ERR_RANK, "no"), MPI_ERR_ARG);
    int bad2;
    CHECK_CLASS(MPI_Add_error_code(ucode1, &bad2), MPI_ERR_ARG);     /* a code is no class */
#endif
    /* a user code through an error handler */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_create_errhandler(comm_eh, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    calls = 0;
    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, ucode1));
    CHECK(calls == 1 && last_code == ucode1 && last_comm == MPI_COMM_WORLD, "handler: %d calls, code %d",
          calls, last_code);
    /* freed while in use: keeps working */
    CHECK_MPI(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not null the handle");
    CHECK_MPI(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER));
    CHECK_INT(calls, 2);
    MPI_Errhandler got;
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got));
    CHECK(got != MPI_ERRHANDLER_NULL && got != MPI_ERRORS_RETURN, "get_errhandler");
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0's MPIX_Delete_error_* follow rules of their own (a user
                                class's string cannot be removed, codes with strings can) */
    /* removal (MPI 4.1): strings, then codes, then the class */
    CHECK(MPI_Remove_error_class(ucls) != MPI_SUCCESS, "class with codes removed");
#ifndef MT_REFERENCE_MPICH   /* erroneous; MPICH 4.0 removes the code and its string */
    CHECK(MPI_Remove_error_code(ucode1) != MPI_SUCCESS, "code with a string removed");
#endif
    CHECK_MPI(MPI_Remove_error_string(ucode1));
    CHECK_MPI(MPI_Error_string(ucode1, s, &len));
    CHECK(len == 0, "removed string still \"%s\"", s);
    CHECK_MPI(MPI_Remove_error_code(ucode1));
    CHECK(MPI_Remove_error_code(ucode1) != MPI_SUCCESS, "code removed twice");
    CHECK(MPI_Error_class(ucode1, &cls) != MPI_SUCCESS, "a removed code still has a class");
    CHECK_MPI(MPIX_Delete_error_code(ucode2));          /* MPICH's name */
    CHECK(MPI_Remove_error_class(ucls) != MPI_SUCCESS, "class with a string removed");
    CHECK_MPI(MPIX_Delete_error_string(ucls));
    CHECK_MPI(MPI_Remove_error_class(ucls));
    CHECK(MPI_Remove_error_class(ucls) != MPI_SUCCESS, "class removed twice");
    CHECK(MPI_Remove_error_class(MPI_ERR_OTHER) != MPI_SUCCESS, "predefined class removed");
    CHECK(MPI_Remove_error_code(0) != MPI_SUCCESS, "MPI_SUCCESS removed");
    CHECK_MPI(MPI_Remove_error_code(ocode));
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &lastused, &flag);
    CHECK_INT(*lastused, MPI_ERR_LASTCODE);
#endif

    /* the deprecated names */
    MPI_Errhandler old;
    CHECK_MPI(MPI_Errhandler_create(comm_eh, &old));
    CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, old));
    calls = 0;
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));   /* inherits the handler */
    rc = MPI_Send(&one, 1, MPI_INT, -5, 0, dup);
    CHECK_CLASS(rc, MPI_ERR_RANK);
    CHECK(calls == 1 && last_comm == dup, "the inherited handler: %d calls", calls);
    CHECK_MPI(MPI_Errhandler_get(MPI_COMM_WORLD, &got));
    CHECK(got == old, "MPI_Errhandler_get: 0x%x, set 0x%x", (unsigned)got, (unsigned)old);
    CHECK_MPI(MPI_Errhandler_free(&got));
    CHECK_MPI(MPI_Errhandler_free(&old));
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK_MPI(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    /* files: MPI_FILE_NULL's handler, MPI_ERRORS_RETURN until set */
    MPI_Errhandler fe;
    CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
    CHECK(got == MPI_ERRORS_RETURN, "files start with MPI_ERRORS_RETURN");
    CHECK_MPI(MPI_File_create_errhandler(file_eh, &fe));
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 takes a file's handler for a communicator */
    CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, fe), MPI_ERR_ARG);   /* wrong kind */
#endif
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, fe));
    CHECK_MPI(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));
    CHECK(file_calls == 1 && last_code == MPI_ERR_IO, "file handler: %d calls", file_calls);
    CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Errhandler_free(&fe));

    int rcode = mt_finish("err_classes");
    MPI_Finalize();
    return rcode;
}
