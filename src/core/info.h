/* SPDX-License-Identifier: MIT */
/* Info objects (src/core/info.c): ordered (key, value) string pairs.
 *
 * Handles are MPICH-ABI: user infos are CR_H_MAKE(CR_ST_USER, CR_K_INFO, idx);
 * MPI_INFO_ENV is the one predefined info; MPI_INFO_NULL is never an object.
 * Keys keep the order in which they were first set (MPI_Info_get_nthkey walks
 * that order; overwriting a key keeps its place).  A key is 1 .. MPI_MAX_INFO_KEY-1
 * characters and a value 0 .. MPI_MAX_INFO_VAL-1 characters, so both always fit
 * a C buffer of the constant's size with their terminating NUL.
 * Every function here works before MPI_Init and after MPI_Finalize. */
#ifndef COURIER_CORE_INFO_H
#define COURIER_CORE_INFO_H
#include "core/core.h"

typedef struct cr_info {
    int handle;
    int nkeys, cap;
    char **keys;     /* nkeys strings, in insertion order */
    char **vals;     /* vals[i] belongs to keys[i] */
} cr_info_t;

/* The info object for a handle, or NULL for MPI_INFO_NULL and invalid handles.
 * MPI_INFO_ENV is filled on first use. */
cr_info_t *cr_info_ptr(MPI_Info h);

/* *out = a new info with the keys of in, in the same order; MPI_INFO_NULL in
 * gives MPI_INFO_NULL out.  Returns MPI_SUCCESS or an error code (MPI_ERR_INFO
 * for an invalid handle, MPI_ERR_NO_MEM). */
int cr_info_dup_handle(MPI_Info in, MPI_Info *out);

/* The value stored under key, or NULL when info is MPI_INFO_NULL, invalid, or
 * has no such key.  The string stays valid until the key is set, deleted or the
 * info freed. */
const char *cr_info_lookup(MPI_Info info, const char *key);

#endif
