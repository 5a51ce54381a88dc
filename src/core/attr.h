/* SPDX-License-Identifier: MIT */
/* Attributes and keyvals (src/core/attr.c).
 *
 * Any object that carries attributes has one `void *attrs` field (NULL when it
 * has none) and passes its address here; the list behind it is private to
 * attr.c.  `kind` is the object's handle kind: CR_K_COMM, CR_K_DATATYPE or
 * CR_K_WIN; a keyval made for one kind is refused on the others.  `handle` is
 * the object's MPI handle, which the user's callbacks receive.
 *
 * Callbacks run in the caller's context and may call MPI, including attribute
 * functions on the same object.  A callback that returns other than
 * MPI_SUCCESS makes the MPI call that ran it fail with the callback's code.
 */
#ifndef COURIER_CORE_ATTR_H
#define COURIER_CORE_ATTR_H
#include "core/core.h"

/* Object duplication (MPI_Comm_dup, MPI_Comm_dup_with_info, MPI_Comm_idup,
 * MPI_Type_dup, ...): run the copy callback of every attribute on the old
 * object and attach the values the callbacks return to the new object's list
 * (*new_list must be empty, NULL).  On a callback error the attributes already
 * copied are deleted again (their delete callbacks run), *new_list is left
 * empty and the error code is returned; the caller then frees the new object. */
int cr_attr_copy_all(int kind, int old_handle, void **old_list, int new_handle, void **new_list);

/* Object destruction (MPI_Comm_free, MPI_Type_free, MPI_Win_free, and
 * MPI_Finalize for MPI_COMM_SELF): delete every attribute, most recently set
 * first, running the delete callbacks.  Stops at the first callback that
 * fails and returns its code, leaving that attribute and the older ones in
 * place (the caller must then not destroy the object).  Returns MPI_SUCCESS
 * with *list == NULL otherwise. */
int cr_attr_delete_all(int kind, int handle, void **list);

/* The generic forms behind MPI_{Comm,Type,Win}_{set,get,delete}_attr, for
 * modules whose objects attr.c does not know (windows): keyval is checked
 * against kind; predefined keyvals are refused by set/delete.  get copies the
 * stored value (a void *) to *(void **)value_out and sets *flag.
 * The hook for windows (src/rma): a window object keeps its own `void *attrs`;
 * core_win_set_attr/get_attr/delete_attr call these with CR_K_WIN, the
 * window's handle and &win->attrs; MPI_Win_free calls cr_attr_delete_all
 * first.  The predefined keys (MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
 * MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL) are the window module's to answer
 * before it calls cr_attr_get, which reports them absent (*flag = 0). */
int cr_attr_set(int kind, int handle, void **list, int keyval, void *value, const char *fname);
int cr_attr_get(int kind, void **list, int keyval, void *value_out, int *flag, const char *fname);
int cr_attr_delete(int kind, int handle, void **list, int keyval, const char *fname);

/* The Fortran forms (MPI_X_SET_ATTR, MPI_ATTR_PUT, MPI_X_GET_ATTR,
 * MPI_ATTR_GET; src/fortran/fort_util.c).  An attribute remembers the
 * language that set it (MPI-4.1 19.3.7, Example 19.13): Fortran stores the
 * integer value (legacy != 0: MPI_ATTR_PUT's INTEGER, sign-extended), and a C
 * get (cr_attr_get) of it returns the address of that stored integer (an
 * MPI_Aint, or for MPI_ATTR_PUT an MPI_Fint), valid while the attribute is
 * there.  cr_attr_get_fortran gives the integer: the stored value of a
 * Fortran attribute, the pointer's address of a C one, and the value of the
 * predefined communicator attributes (MPI_TAG_UB, ...; the window module
 * answers the MPI_WIN_* keys itself). */
enum { CR_ATTR_C, CR_ATTR_F_AINT, CR_ATTR_F_INT };
int cr_attr_set_fortran(int kind, int handle, void **list, int keyval, MPI_Aint value,
                        int legacy, const char *fname);
int cr_attr_get_fortran(int kind, void **list, int keyval, MPI_Aint *value, int *flag,
                        const char *fname);
/* The same on communicators and datatypes (attr.c) and windows (src/rma/win.c). */
int core_comm_set_attr_fortran(cr_comm_t *comm, int keyval, MPI_Aint value, int legacy,
                               const char *fname);
int core_comm_get_attr_fortran(cr_comm_t *comm, int keyval, MPI_Aint *value, int *flag,
                               const char *fname);
int core_type_set_attr_fortran(cr_datatype_t *datatype, int keyval, MPI_Aint value);
int core_type_get_attr_fortran(cr_datatype_t *datatype, int keyval, MPI_Aint *value, int *flag);
int core_win_set_attr_fortran(cr_win_t *win, int keyval, MPI_Aint value);
int core_win_get_attr_fortran(cr_win_t *win, int keyval, MPI_Aint *value, int *flag);

/* Keyvals made from Fortran (MPI_COMM_CREATE_KEYVAL, MPI_TYPE_CREATE_KEYVAL,
 * MPI_WIN_CREATE_KEYVAL, MPI_KEYVAL_CREATE; src/fortran/fort_util.c): copy and
 * del are Fortran procedures (NULL: the null callback), called as
 *   copy(oldobj, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
 *   del(obj, keyval, attribute_val, extra_state, ierror)
 * with every argument by reference: handles and keyval INTEGER, the values and
 * extra_state INTEGER(KIND=MPI_ADDRESS_KIND) (legacy != 0: default INTEGER, the
 * MPI-1 form), flag a LOGICAL, ierror the result.  The value a callback sees
 * is what a Fortran get returns (above), and a copy keeps the language of the
 * original attribute.  Otherwise the keyval is like any other of kind. */
int cr_keyval_create_fortran(int kind, void (*copy)(void), void (*del)(void), MPI_Aint extra_state,
                             int legacy, int *keyval);

/* MPI_Finalize's first step: delete the attributes of MPI_COMM_SELF, then
 * those of MPI_COMM_WORLD (the standard's finalize hook, see docs/attributes.md). */
int cr_attr_finalize(void);

#endif
