/* SPDX-License-Identifier: MIT */
/* QMPI, MPICH's tool-registration interface (declared in mpi_proto.h by
 * maint/gen_bindings.py): a tool registers itself by name, usually from a
 * constructor before MPI_Init, and then its own versions of MPI procedures,
 * which the library would call in a chain of tools before its own.
 *
 * Courier exports the six registration functions so that binaries built
 * against MPICH, which call them, load and run; registration never succeeds.
 * That is what Debian's MPICH build does too (QMPI compiled out): every one
 * of the six answers MPI_ERR_UNSUPPORTED_OPERATION, before MPI_Init and
 * after, whatever its arguments, and writes nothing.  A tool then knows that
 * QMPI is unavailable and the program runs untouched; the MPI entry points
 * never look for tools, so their fast paths stay as they are.
 *
 * Each answer is a code of that class whose message (MPI_Error_string) says
 * why, and names an argument that is wrong as well.  No error handler is
 * called: there is no communicator, and the callers are constructors and
 * tools that look at the code.  None of the functions writes through a
 * pointer it is given; the only one read is tool_name, at most
 * QMPI_MAX_TOOL_NAME_LENGTH + 1 bytes of it.  No state is kept, so they are
 * safe from any thread at any time, before MPI_Init and after MPI_Finalize. */
#include "core/core.h"
#include <string.h>

/* The class every QMPI function answers, as MPICH's does. */
#define CR_QMPI_REFUSED MPI_ERR_UNSUPPORTED_OPERATION
#define CR_QMPI_WHY "QMPI tool registration is not supported by Courier; the program runs without tools"

/* Why a tool id is wrong: ids are handed out from 1 by a successful
 * registration, and none ever succeeds. */
static const char *tool_id_problem(int tool_id)
{
    return tool_id < 1 ? "is not a tool id (ids start at 1)" : "names no registered tool";
}

static int function_enum_ok(enum QMPI_Functions_enum function_enum)
{
    int v = (int)function_enum;
    return v >= 0 && v < (int)MPI_LAST_FUNC_T;
}

int QMPI_Register_tool_name(const char *tool_name, void (*init_function_ptr)(int tool_id))
{
    static const char fn[] = "QMPI_Register_tool_name";
    if (!tool_name) return cr_error(CR_QMPI_REFUSED, "%s: tool_name is NULL; " CR_QMPI_WHY, fn);
    size_t len = strnlen(tool_name, QMPI_MAX_TOOL_NAME_LENGTH + 1);
    if (len == 0) return cr_error(CR_QMPI_REFUSED, "%s: tool_name is empty; " CR_QMPI_WHY, fn);
    if (len > QMPI_MAX_TOOL_NAME_LENGTH)
        return cr_error(CR_QMPI_REFUSED, "%s: tool_name is longer than QMPI_MAX_TOOL_NAME_LENGTH (%d); " CR_QMPI_WHY,
                        fn, QMPI_MAX_TOOL_NAME_LENGTH);
    if (!init_function_ptr)
        return cr_error(CR_QMPI_REFUSED, "%s: init_function_ptr of tool \"%s\" is NULL; " CR_QMPI_WHY, fn, tool_name);
    return cr_error(CR_QMPI_REFUSED, "%s: tool \"%s\" not registered; " CR_QMPI_WHY, fn, tool_name);
}

int QMPI_Register_tool_storage(int tool_id, void *tool_storage)
{
    (void)tool_storage;     /* any pointer, NULL included, is a tool's to give */
    return cr_error(CR_QMPI_REFUSED, "QMPI_Register_tool_storage: tool_id %d %s; " CR_QMPI_WHY,
                    tool_id, tool_id_problem(tool_id));
}

int QMPI_Register_function(int calling_tool_id, enum QMPI_Functions_enum function_enum,
                           void (*function_ptr)(void))
{
    static const char fn[] = "QMPI_Register_function";
    if (!function_enum_ok(function_enum))
        return cr_error(CR_QMPI_REFUSED, "%s: function_enum %d is outside [0, MPI_LAST_FUNC_T = %d); " CR_QMPI_WHY,
                        fn, (int)function_enum, (int)MPI_LAST_FUNC_T);
    if (!function_ptr) return cr_error(CR_QMPI_REFUSED, "%s: function_ptr is NULL; " CR_QMPI_WHY, fn);
    return cr_error(CR_QMPI_REFUSED, "%s: calling_tool_id %d %s; " CR_QMPI_WHY, fn, calling_tool_id,
                    tool_id_problem(calling_tool_id));
}

int QMPI_Get_function(int calling_tool_id, enum QMPI_Functions_enum function_enum,
                      void (**function_ptr)(void), int *next_tool_id)
{
    static const char fn[] = "QMPI_Get_function";
    if (!function_enum_ok(function_enum))
        return cr_error(CR_QMPI_REFUSED, "%s: function_enum %d is outside [0, MPI_LAST_FUNC_T = %d); " CR_QMPI_WHY,
                        fn, (int)function_enum, (int)MPI_LAST_FUNC_T);
    if (!function_ptr) return cr_error(CR_QMPI_REFUSED, "%s: function_ptr is NULL; " CR_QMPI_WHY, fn);
    if (!next_tool_id) return cr_error(CR_QMPI_REFUSED, "%s: next_tool_id is NULL; " CR_QMPI_WHY, fn);
    return cr_error(CR_QMPI_REFUSED, "%s: calling_tool_id %d %s; " CR_QMPI_WHY, fn, calling_tool_id,
                    tool_id_problem(calling_tool_id));
}

/* A context is what the library hands a tool's function when it calls it;
 * with no tool registered it never calls one, so no context is valid. */
int QMPI_Get_tool_storage(QMPI_Context context, int tool_id, void **storage)
{
    static const char fn[] = "QMPI_Get_tool_storage";
    (void)context;
    if (!storage) return cr_error(CR_QMPI_REFUSED, "%s: storage is NULL; " CR_QMPI_WHY, fn);
    return cr_error(CR_QMPI_REFUSED, "%s: tool_id %d %s and the context is none the library made; " CR_QMPI_WHY,
                    fn, tool_id, tool_id_problem(tool_id));
}

int QMPI_Get_calling_address(QMPI_Context context, void **address)
{
    static const char fn[] = "QMPI_Get_calling_address";
    (void)context;
    if (!address) return cr_error(CR_QMPI_REFUSED, "%s: address is NULL; " CR_QMPI_WHY, fn);
    return cr_error(CR_QMPI_REFUSED, "%s: the context is none the library made; " CR_QMPI_WHY, fn);
}
