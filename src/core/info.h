/* SPDX-License-Identifier: MIT */
/* Info objects (src/core/info.c): ordered (key, value) string pairs.
 *
 * Handles are MPICH-ABI: user infos are CR_H_MAKE(CR_ST_USER, CR_K_INFO, idx);
 * MPI_INFO_ENV is the one predefined info; MPI_INFO_NULL is never an object.
 * Keys keep the order in which they were first set (MPI_Info_get_nthkey walks
 * that order; overwriting a key keeps its place).  A key is 1 .. MPI_MAX_INFO_KEY-1
 * characters and a value 0 .. MPI_MAX_INFO_VAL-1 characters, so both always fit
 * a C buffer of the constant's size with their terminating NUL.
 * Every function here works before MPI_Init and after MPI_Finalize.
 *
 * Other objects keep hints as private copies without a handle (cr_info_copy),
 * and hand the user a new info with a handle (cr_info_to_user). */
#ifndef COURIER_CORE_INFO_H
#define COURIER_CORE_INFO_H
#include "core/core.h"

struct cr_info {
    int handle;      /* MPI_INFO_NULL for a private copy */
    int nkeys, cap;
    char **keys;     /* nkeys strings, in insertion order */
    char **vals;     /* vals[i] belongs to keys[i] */
};

/* The info object for a handle, or NULL for MPI_INFO_NULL and invalid handles.
 * MPI_INFO_ENV is filled on first use. */
cr_info_t *cr_info_ptr(MPI_Info h);

/* A new empty private info (no handle), or MPI_ERR_NO_MEM. */
int cr_info_new(cr_info_t **out);
/* A private copy of in (NULL in: *out NULL), or MPI_ERR_NO_MEM. */
int cr_info_copy(const cr_info_t *in, cr_info_t **out);
/* A new user info (with a handle) holding the keys of in (NULL: empty). */
int cr_info_to_user(const cr_info_t *in, MPI_Info *out);
/* Free an info object: a private copy, or a user info with its handle. */
void cr_info_destroy(cr_info_t *in);
/* Set key to value in a private copy (both valid); 0 or MPI_ERR_NO_MEM. */
int cr_info_put(cr_info_t *in, const char *key, const char *value);

/* The value stored under key, or NULL when in is NULL or has no such key.
 * The string stays valid until the key is set, deleted or the info freed. */
const char *cr_info_get(const cr_info_t *in, const char *key);

/* "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE", the values of the
 * thread_level keys (MPI_INFO_ENV, MPI_Session_get_info). */
const char *cr_thread_level_name(int level);

#endif
