/* SPDX-License-Identifier: MIT */
// sources: src/core/error.c src/util/log.c
/* Error codes: classes survive the encoding, messages come back through
 * MPI_Error_string, classes and codes added by the user (above
 * MPI_ERR_LASTCODE, removable), handlers return or abort with one line on
 * stderr, MPI_Abort's exit status. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/core.h"
#include "core/errh.h"
#include "core/session.h"
#include "core/api_comm.h"
#include "core/api_session.h"
#include "util/settings.h"

/* Stand-ins for the parts of the library error.c uses. */
cr_proc_t cr_proc;
cr_comm_t cr_comm_world, cr_comm_self;
cr_objtab_t cr_comm_tab;
ut_settings_t ut_settings;
static void *objs[CR_OBJTAB_CHUNK];
int cr_objtab_add(cr_objtab_t *t, void *obj)
{
    t->chunks[0] = objs;
    objs[t->next] = obj;
    return t->next++;
}
void cr_objtab_remove(cr_objtab_t *t, int idx) { t->chunks[0][idx] = NULL; }
/* As under a launcher other than Courier's mpiexec: the message printed once. */
void crpmi_abort(int code, const char *msg)
{
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    _exit(code);
}
cr_session_t *cr_session_ptr(MPI_Session h) { (void)h; return NULL; }
/* no files here (src/io keeps their error handlers) */
cr_file_t *cr_file_ptr(MPI_File h) { (void)h; return NULL; }
cr_errhandler_t **cr_file_errh_slot(cr_file_t *f) { (void)f; return NULL; }
MPI_File cr_file_handle(const cr_file_t *f) { (void)f; return MPI_FILE_NULL; }
int core_file_c2f(MPI_File h) { (void)h; return 0; }
/* no windows here (src/rma keeps them): an empty table */
cr_objtab_t cr_win_tab;

static int failures;
#define EXPECT(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); failures++; } } while (0)

static int called;
static void user_handler(MPI_Comm *comm, int *code, ...) { called = *code; (void)comm; }
static int self_called;
static void self_handler(MPI_Comm *comm, int *code, ...)
{
    if (*comm == MPI_COMM_SELF) self_called = *code;
}

int main(void)
{
    char s[MPI_MAX_ERROR_STRING];
    int len, cls;
    cr_proc.state = CR_STATE_INIT;
    cr_proc.world_state = CR_STATE_INIT;
    cr_proc.world_rank = 3;
    cr_comm_world.handle = MPI_COMM_WORLD;
    cr_comm_world.errh = &cr_errh_return;

    /* classes and messages */
    int code = cr_error(MPI_ERR_RANK, "dest=%d: invalid rank (communicator size is %d)", 7, 4);
    EXPECT(code != MPI_ERR_RANK && code > 0 && code <= MPI_ERR_LASTCODE);
    EXPECT(cr_error_class(code) == MPI_ERR_RANK);
    EXPECT(core_error_class(code, &cls) == MPI_SUCCESS && cls == MPI_ERR_RANK);
    EXPECT(core_error_string(code, s, &len) == MPI_SUCCESS);
    EXPECT(strcmp(s, "MPI_ERR_RANK: dest=7: invalid rank (communicator size is 4)") == 0);
    EXPECT(len == (int)strlen(s));
    for (int c = 0; c <= MPI_T_ERR_NOT_SUPPORTED; c++) {
        if (c == 54) continue;              /* no class 54 in MPICH's numbering */
        EXPECT(core_error_class(c, &cls) == MPI_SUCCESS && cls == c);
        EXPECT(core_error_string(c, s, &len) == MPI_SUCCESS && len > 0);
    }
    EXPECT(core_error_string(-5, s, &len) != MPI_SUCCESS);

    /* the ring: after a full turn an old code reads as its class's generic text */
    for (int i = 0; i < CR_ERR_RING; i++) cr_error(MPI_ERR_TAG, "tag=%d", -i);
    EXPECT(core_error_string(code, s, &len) == MPI_SUCCESS && strncmp(s, "MPI_ERR_RANK", 12) == 0);
    EXPECT(strstr(s, "dest=7") == NULL);

    /* user classes, codes, strings: above MPI_ERR_LASTCODE, MPI_LASTUSEDCODE the largest */
    int ucls, ucode, ucode2, pcode;
    EXPECT(cr_error_last_used() == MPI_ERR_LASTCODE);
    EXPECT(core_add_error_class(&ucls) == MPI_SUCCESS && ucls > MPI_ERR_LASTCODE);
    EXPECT(cr_error_last_used() == ucls);
    EXPECT(core_error_string(ucls, s, &len) == MPI_SUCCESS && len == 0);
    EXPECT(core_add_error_code(ucls, &ucode) == MPI_SUCCESS && ucode > ucls);
    EXPECT(core_error_class(ucode, &cls) == MPI_SUCCESS && cls == ucls);
    EXPECT(core_add_error_string(ucode, "my error") == MPI_SUCCESS);
    EXPECT(core_error_string(ucode, s, &len) == MPI_SUCCESS && strcmp(s, "my error") == 0);
    EXPECT(core_add_error_code(ucls, &ucode2) == MPI_SUCCESS && ucode2 != ucode);
    EXPECT(cr_error_last_used() == ucode2);
    EXPECT(core_add_error_code(MPI_ERR_OTHER, &pcode) == MPI_SUCCESS && pcode > MPI_ERR_LASTCODE);
    EXPECT(core_error_class(pcode, &cls) == MPI_SUCCESS && cls == MPI_ERR_OTHER);
    EXPECT(core_add_error_code(0, &pcode) != MPI_SUCCESS);          /* MPI_SUCCESS is no class */
    EXPECT(core_add_error_code(ucode, &pcode) != MPI_SUCCESS);      /* a code is no class */
    EXPECT(core_add_error_string(MPI_ERR_RANK, "x") != MPI_SUCCESS); /* predefined */
    /* removal: strings first, then codes, then the class */
    EXPECT(core_remove_error_code(ucode) != MPI_SUCCESS);           /* it has a string */
    EXPECT(core_remove_error_class(ucls) != MPI_SUCCESS);           /* it has codes */
    EXPECT(core_remove_error_string(ucode) == MPI_SUCCESS);
    EXPECT(core_remove_error_code(ucode) == MPI_SUCCESS);
    EXPECT(core_remove_error_code(ucode) != MPI_SUCCESS);           /* gone */
    EXPECT(core_error_class(ucode, &cls) != MPI_SUCCESS);
    EXPECT(core_remove_error_code(ucode2) == MPI_SUCCESS);
    EXPECT(core_remove_error_class(ucls) == MPI_SUCCESS);
    EXPECT(core_remove_error_class(ucls) != MPI_SUCCESS);
    EXPECT(core_remove_error_class(MPI_ERR_OTHER) != MPI_SUCCESS);  /* predefined */
    EXPECT(cr_error_last_used() == pcode);

    /* MPI_Abort's exit status: never 0 */
    EXPECT(cr_abort_exit_status(0) == 1 && cr_abort_exit_status(256) == 1);
    EXPECT(cr_abort_exit_status(3) == 3 && cr_abort_exit_status(259) == 3);
    EXPECT(cr_abort_exit_status(-1) == 255);

    /* handlers */
    code = cr_error(MPI_ERR_COUNT, "count=-1: negative count");
    EXPECT(core_error_string(code, s, &len) == MPI_SUCCESS &&
           strcmp(s, "MPI_ERR_COUNT: count=-1: negative count") == 0);
    EXPECT(cr_raise_comm(MPI_COMM_WORLD, code, "MPI_Send") == code);
    /* a returned code's string names the call, as the fatal handler's line does */
    EXPECT(core_error_string(code, s, &len) == MPI_SUCCESS &&
           strcmp(s, "MPI_Send: MPI_ERR_COUNT: count=-1: negative count") == 0);
    EXPECT(len == (int)strlen(s));
    EXPECT(cr_raise_comm(MPI_COMM_WORLD, code, "MPI_Comm_call_errhandler") == code);
    EXPECT(core_error_string(code, s, &len) == MPI_SUCCESS && strncmp(s, "MPI_Send: ", 10) == 0);
    int kcode = cr_error(MPI_ERR_KEYVAL, "MPI_Win_set_attr: keyval=5: not a window keyval");
    EXPECT(cr_raise_none(kcode, "MPI_Win_set_attr") == kcode);
    EXPECT(core_error_string(kcode, s, &len) == MPI_SUCCESS &&
           strcmp(s, "MPI_Win_set_attr: MPI_ERR_KEYVAL: keyval=5: not a window keyval") == 0);
    MPI_Errhandler eh;
    EXPECT(core_comm_create_errhandler(user_handler, &eh) == MPI_SUCCESS);
    cr_errhandler_t *e = cr_errhandler_ptr(eh);
    EXPECT(e != NULL);
    EXPECT(core_comm_set_errhandler(&cr_comm_world, e) == MPI_SUCCESS);
    EXPECT(cr_raise_comm(MPI_COMM_WORLD, code, "MPI_Send") == code && called == code);
    EXPECT(core_errhandler_free(e) == MPI_SUCCESS && cr_errhandler_ptr(eh) == NULL);
    EXPECT(cr_raise_comm(MPI_COMM_WORLD, code, "MPI_Send") == code && called == code);  /* still in use */
    /* no object: MPI_COMM_WORLD's handler until MPI_COMM_SELF gets one */
    called = 0;
    EXPECT(cr_raise_none(code, "MPI_Type_size") == code && called == code);
    MPI_Errhandler eh2;
    EXPECT(core_comm_create_errhandler(self_handler, &eh2) == MPI_SUCCESS);
    EXPECT(core_comm_set_errhandler(&cr_comm_self, cr_errhandler_ptr(eh2)) == MPI_SUCCESS);
    called = 0;
    EXPECT(cr_raise_none(code, "MPI_Type_size") == code && called == 0 && self_called == code);
    EXPECT(core_comm_set_errhandler(&cr_comm_self, &cr_errh_return) == MPI_SUCCESS);
    EXPECT(core_errhandler_free(cr_errhandler_ptr(eh2)) == MPI_SUCCESS);
    EXPECT(core_comm_set_errhandler(&cr_comm_world, &cr_errh_fatal) == MPI_SUCCESS);
    EXPECT(cr_raise_none(code, "MPI_Type_size") == code);   /* self's: MPI_ERRORS_RETURN */

    /* MPI_ERRORS_ARE_FATAL: one line on stderr, then the job ends */
    int fds[2];
    EXPECT(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        code = cr_error(MPI_ERR_RANK, "dest=7: invalid rank (communicator size is 4)");
        cr_raise_comm(MPI_COMM_WORLD, code, "MPI_Send");
        _exit(0);
    }
    close(fds[1]);
    char out[1024] = {0};
    ssize_t n = 0, r;
    while ((r = read(fds[0], out + n, sizeof out - 1 - (size_t)n)) > 0) n += r;
    int st;
    waitpid(pid, &st, 0);
    EXPECT(WIFEXITED(st) && WEXITSTATUS(st) != 0);
    EXPECT(strcmp(out, "rank 3: MPI_Send: MPI_ERR_RANK: dest=7: invalid rank "
                       "(communicator size is 4)\n") == 0);   /* once */

    if (failures) return 1;
    printf("test_error: all passed\n");
    return 0;
}
