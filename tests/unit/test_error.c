/* SPDX-License-Identifier: MIT */
// sources: src/core/error.c
/* Error codes: classes survive the encoding, messages come back through
 * MPI_Error_string, handlers return or abort with one line on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/core.h"
#include "core/errh.h"
#include "core/api.h"
#include "binding/core_legacy.h" /* transition: entries not yet in an api.h */
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
    fprintf(stderr, "[courier] %s\n", msg);
    fflush(stderr);
    _exit(code);
}

static int failures;
#define EXPECT(cond) do { if (!(cond)) { fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); failures++; } } while (0)

static int called;
static void user_handler(MPI_Comm *comm, int *code, ...) { called = *code; (void)comm; }

int main(void)
{
    char s[MPI_MAX_ERROR_STRING];
    int len, cls;
    cr_proc.state = CR_STATE_INIT;
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

    /* user classes, codes, strings */
    int ucls, ucode;
    EXPECT(core_add_error_class(&ucls) == MPI_SUCCESS && ucls >= CR_ERR_FIRST_USER_CLASS);
    EXPECT(core_add_error_code(ucls, &ucode) == MPI_SUCCESS);
    EXPECT(core_error_class(ucode, &cls) == MPI_SUCCESS && cls == ucls);
    EXPECT(core_add_error_string(ucode, "my error") == MPI_SUCCESS);
    EXPECT(core_error_string(ucode, s, &len) == MPI_SUCCESS && strcmp(s, "my error") == 0);

    /* handlers */
    code = cr_error(MPI_ERR_COUNT, "count=-1: negative count");
    EXPECT(cr_raise_comm(MPI_COMM_WORLD, code, "MPI_Send") == code);
    MPI_Errhandler eh;
    EXPECT(core_comm_create_errhandler(user_handler, &eh) == MPI_SUCCESS);
    EXPECT(cr_errhandler_ptr(eh) != NULL);
    EXPECT(core_comm_set_errhandler(MPI_COMM_WORLD, eh) == MPI_SUCCESS);
    EXPECT(cr_raise_comm(MPI_COMM_WORLD, code, "MPI_Send") == code && called == code);
    EXPECT(core_errhandler_free(&eh) == MPI_SUCCESS && eh == MPI_ERRHANDLER_NULL);
    EXPECT(core_comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS);

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
    EXPECT(strcmp(out, "[courier] rank 3: MPI_Send: MPI_ERR_RANK: dest=7: invalid rank "
                       "(communicator size is 4)\n") == 0);

    if (failures) return 1;
    printf("test_error: all passed\n");
    return 0;
}
