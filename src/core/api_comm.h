/* SPDX-License-Identifier: MIT */
/* The core's interface to the binding layer for communicators, groups,
 * process topologies, attributes, info objects, errors and error handlers,
 * and the environment (init, finalize, inquiry, timers).  Conventions as in
 * src/core/api.h: every entry receives objects (the binding has checked and
 * converted each handle argument), returns MPI_SUCCESS or a cr_error() code,
 * and its parameters carry the standard's names.  New handles the user gets
 * (newcomm, newgroup, ...) are written through MPI_X * outputs.
 *
 * Procedures bound to another's entry (deprecated names, the world model's
 * MPI_Init) are listed in maint/notes.py MEMBERS.
 */
#ifndef COURIER_CORE_API_COMM_H
#define COURIER_CORE_API_COMM_H
#include "core/core.h"
#include "core/info.h"

/* ---- communicators (comm.c, comm_idup.c, intercomm.c) --------------------------- */
int core_comm_rank(cr_comm_t *comm, int *rank);
int core_comm_size(cr_comm_t *comm, int *size);
/* MPI_ERR_COMM on an intracommunicator. */
int core_comm_remote_size(cr_comm_t *comm, int *size);
int core_comm_test_inter(cr_comm_t *comm, int *flag);
/* MPI_IDENT (the same object), MPI_CONGRUENT, MPI_SIMILAR or MPI_UNEQUAL;
 * intercommunicators compare both groups. */
int core_comm_compare(cr_comm_t *comm1, cr_comm_t *comm2, int *result);
/* A new handle to the local (remote) group. */
int core_comm_group(cr_comm_t *comm, MPI_Group *group);
int core_comm_remote_group(cr_comm_t *comm, MPI_Group *group);
int core_comm_set_name(cr_comm_t *comm, const char *comm_name);
int core_comm_get_name(cr_comm_t *comm, char *comm_name, int *resultlen);
/* Hints: set replaces them with a copy of info; get returns a new info. */
int core_comm_set_info(cr_comm_t *comm, cr_info_t *info);
int core_comm_get_info(cr_comm_t *comm, MPI_Info *info_used);
/* Collective over comm: same groups, a fresh context, a copy of the topology,
 * the attributes that the copy callbacks keep; the hints of comm (dup) or
 * info (dup_with_info). */
int core_comm_dup(cr_comm_t *comm, MPI_Comm *newcomm);
int core_comm_dup_with_info(cr_comm_t *comm, cr_info_t *info, MPI_Comm *newcomm);
/* The non-blocking forms: *newcomm names the new communicator at once; it
 * may be used after *request completes (comm_idup.c). */
int core_comm_idup(cr_comm_t *comm, MPI_Comm *newcomm, MPI_Request *request);
int core_comm_idup_with_info(cr_comm_t *comm, cr_info_t *info, MPI_Comm *newcomm,
                             MPI_Request *request);
int core_comm_split(cr_comm_t *comm, int color, int key, MPI_Comm *newcomm);
/* MPI_COMM_TYPE_SHARED, _HW_GUIDED (info mpi_hw_resource_type), _HW_UNGUIDED,
 * on intra- and intercommunicators (hwloc levels, comm_hw.c). */
int core_comm_split_type(cr_comm_t *comm, int split_type, int key, cr_info_t *info,
                         MPI_Comm *newcomm);
int core_comm_create(cr_comm_t *comm, cr_group_t *group, MPI_Comm *newcomm);
/* MPI_Get_hw_resource_info (MPI 4.1 section 11.4, comm_hw.c): a new info
 * naming the hardware resources that contain this process, at the moment of
 * the call: mpi_hw_resource_type lists them, coarse to fine, by the names
 * MPI_COMM_TYPE_HW_GUIDED accepts; mpi_hw_res_<name>_count gives how many
 * objects of each kind the node has (hwloc; the node alone without it). */
int core_get_hw_resource_info(MPI_Info *hw_info);
/* Collective over group only; comm must be an intracommunicator. */
int core_comm_create_group(cr_comm_t *comm, cr_group_t *group, int tag, MPI_Comm *newcomm);
/* Collective over group (of a session or of the world model), no parent
 * communicator; stringtag tells concurrent calls apart. */
int core_comm_create_from_group(cr_group_t *group, const char *stringtag, cr_info_t *info,
                                cr_errhandler_t *errhandler, MPI_Comm *newcomm);
/* Deletes the attributes (a failing delete callback fails the call), then
 * drops the user's handle; pending operations keep the object alive. */
int core_comm_free(cr_comm_t *comm);
int core_intercomm_create(cr_comm_t *local_comm, int local_leader, cr_comm_t *peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm);
int core_intercomm_create_from_groups(cr_group_t *local_group, int local_leader,
                                      cr_group_t *remote_group, int remote_leader,
                                      const char *stringtag, cr_info_t *info,
                                      cr_errhandler_t *errhandler, MPI_Comm *newintercomm);
int core_intercomm_merge(cr_comm_t *intercomm, int high, MPI_Comm *newintracomm);

/* ---- groups (group.c) ------------------------------------------------------------- */
int core_group_size(cr_group_t *group, int *size);
int core_group_rank(cr_group_t *group, int *rank);
/* Drops one reference of the user's handle; when the user holds no more, the
 * handle becomes invalid (a second free of it is MPI_ERR_GROUP). */
int core_group_free(cr_group_t *group);
int core_group_compare(cr_group_t *group1, cr_group_t *group2, int *result);
int core_group_translate_ranks(cr_group_t *group1, int n, const int ranks1[],
                               cr_group_t *group2, int ranks2[]);
int core_group_incl(cr_group_t *group, int n, const int ranks[], MPI_Group *newgroup);
int core_group_excl(cr_group_t *group, int n, const int ranks[], MPI_Group *newgroup);
int core_group_range_incl(cr_group_t *group, int n, int ranges[][3], MPI_Group *newgroup);
int core_group_range_excl(cr_group_t *group, int n, int ranges[][3], MPI_Group *newgroup);
int core_group_union(cr_group_t *group1, cr_group_t *group2, MPI_Group *newgroup);
int core_group_intersection(cr_group_t *group1, cr_group_t *group2, MPI_Group *newgroup);
int core_group_difference(cr_group_t *group1, cr_group_t *group2, MPI_Group *newgroup);

/* ---- process topologies (topo.c) ------------------------------------------------ */
int core_topo_test(cr_comm_t *comm, int *status);
int core_cart_create(cr_comm_t *comm_old, int ndims, const int dims[], const int periods[],
                     int reorder, MPI_Comm *comm_cart);
int core_cart_map(cr_comm_t *comm, int ndims, const int dims[], const int periods[],
                  int *newrank);
int core_cartdim_get(cr_comm_t *comm, int *ndims);
int core_cart_get(cr_comm_t *comm, int maxdims, int dims[], int periods[], int coords[]);
int core_cart_rank(cr_comm_t *comm, const int coords[], int *rank);
int core_cart_coords(cr_comm_t *comm, int rank, int maxdims, int coords[]);
int core_cart_shift(cr_comm_t *comm, int direction, int disp, int *rank_source,
                    int *rank_dest);
int core_cart_sub(cr_comm_t *comm, const int remain_dims[], MPI_Comm *newcomm);
int core_dims_create(int nnodes, int ndims, int dims[]);
int core_graph_create(cr_comm_t *comm_old, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph);
int core_graph_map(cr_comm_t *comm, int nnodes, const int index[], const int edges[],
                   int *newrank);
int core_graphdims_get(cr_comm_t *comm, int *nnodes, int *nedges);
int core_graph_get(cr_comm_t *comm, int maxindex, int maxedges, int index[], int edges[]);
int core_graph_neighbors_count(cr_comm_t *comm, int rank, int *nneighbors);
int core_graph_neighbors(cr_comm_t *comm, int rank, int maxneighbors, int neighbors[]);
int core_dist_graph_create_adjacent(cr_comm_t *comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    cr_info_t *info, int reorder, MPI_Comm *comm_dist_graph);
int core_dist_graph_create(cr_comm_t *comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], cr_info_t *info,
                           int reorder, MPI_Comm *comm_dist_graph);
int core_dist_graph_neighbors_count(cr_comm_t *comm, int *indegree, int *outdegree,
                                    int *weighted);
int core_dist_graph_neighbors(cr_comm_t *comm, int maxindegree, int sources[],
                              int sourceweights[], int maxoutdegree, int destinations[],
                              int destweights[]);

/* ---- attributes and keyvals (attr.c) -------------------------------------------
 * The MPI-1 names (MPI_Keyval_create, MPI_Attr_put, ...) are bound to the
 * communicator entries (maint/notes.py MEMBERS); fname names the call in
 * error messages. */
int core_comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                            void *extra_state);
int core_comm_free_keyval(int *comm_keyval, const char *fname);
int core_comm_set_attr(cr_comm_t *comm, int comm_keyval, void *attribute_val, const char *fname);
int core_comm_get_attr(cr_comm_t *comm, int comm_keyval, void *attribute_val, int *flag,
                       const char *fname);
int core_comm_delete_attr(cr_comm_t *comm, int comm_keyval, const char *fname);
int core_type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval,
                            void *extra_state);
int core_type_free_keyval(int *type_keyval);
int core_type_set_attr(cr_datatype_t *datatype, int type_keyval, void *attribute_val);
int core_type_get_attr(cr_datatype_t *datatype, int type_keyval, void *attribute_val, int *flag);
int core_type_delete_attr(cr_datatype_t *datatype, int type_keyval);
/* Window keyvals work; window attributes wait for window objects (RMA). */
int core_win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state);
int core_win_free_keyval(int *win_keyval);

/* ---- info objects (info.c); every one callable before MPI_Init ------------------ */
int core_info_create(MPI_Info *info);
int core_info_create_env(int argc, char *argv[], MPI_Info *info);
/* info NULL (MPI_INFO_NULL) is MPI_ERR_INFO in every call below. */
int core_info_set(cr_info_t *info, const char *key, const char *value);
int core_info_delete(cr_info_t *info, const char *key);
int core_info_get(cr_info_t *info, const char *key, int valuelen, char *value, int *flag);
int core_info_get_valuelen(cr_info_t *info, const char *key, int *valuelen, int *flag);
int core_info_get_string(cr_info_t *info, const char *key, int *buflen, char *value, int *flag);
int core_info_get_nkeys(cr_info_t *info, int *nkeys);
int core_info_get_nthkey(cr_info_t *info, int n, char *key);
int core_info_dup(cr_info_t *info, MPI_Info *newinfo);
int core_info_free(cr_info_t *info);

/* ---- errors and error handlers (error.c) ------------------------------------- */
/* Every code Courier returns has a class and a string; user classes and codes
 * (MPI_Add_error_*) are above MPI_ERR_LASTCODE's class range (errh.h). */
int core_error_class(int errorcode, int *errorclass);
int core_error_string(int errorcode, char *string, int *resultlen);
int core_add_error_class(int *errorclass);
/* errorclass: a predefined class or one from MPI_Add_error_class. */
int core_add_error_code(int errorclass, int *errorcode);
int core_add_error_string(int errorcode, const char *string);
/* MPI 4.1; MPICH 4.0.2 exports them as MPIX_Delete_error_* (maint/notes.py). */
int core_remove_error_class(int errorclass);
int core_remove_error_code(int errorcode);
int core_remove_error_string(int errorcode);
int core_comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                MPI_Errhandler *errhandler);
int core_file_create_errhandler(MPI_File_errhandler_function *file_errhandler_fn,
                                MPI_Errhandler *errhandler);
int core_session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler);
int core_errhandler_free(cr_errhandler_t *errhandler);
int core_comm_set_errhandler(cr_comm_t *comm, cr_errhandler_t *errhandler);
int core_comm_get_errhandler(cr_comm_t *comm, MPI_Errhandler *errhandler);
/* Run the handler of the object on errorcode; MPI_SUCCESS once it returns. */
int core_comm_call_errhandler(cr_comm_t *comm, int errorcode);
/* file NULL: MPI_FILE_NULL, whose handler new files inherit. */
int core_file_set_errhandler(cr_file_t *file, cr_errhandler_t *errhandler);
int core_file_get_errhandler(cr_file_t *file, MPI_Errhandler *errhandler);
int core_file_call_errhandler(cr_file_t *fh, int errorcode);

/* ---- the environment (init.c, misc.c, fint.c) -------------------------------- */
/* MPI_Init is MPI_Init_thread(MPI_THREAD_SINGLE); provided may be NULL.
 * The level provided is at most MPI_THREAD_SERIALIZED. */
int core_init_thread(int *argc, char ***argv, int required, int *provided);
int core_finalize(void);
/* Ends the job; the exit status is errorcode mod 256, or 1 where that is 0. */
int core_abort(cr_comm_t *comm, int errorcode);
int core_initialized(int *flag);
int core_finalized(int *flag);
int core_query_thread(int *provided);
int core_is_thread_main(int *flag);
int core_get_version(int *version, int *subversion);
int core_get_library_version(char *version, int *resultlen);
int core_get_processor_name(char *name, int *resultlen);
double core_wtime(void);
double core_wtick(void);
MPI_Aint core_aint_add(MPI_Aint base, MPI_Aint disp);
MPI_Aint core_aint_diff(MPI_Aint addr1, MPI_Aint addr2);
int core_alloc_mem(MPI_Aint size, cr_info_t *info, void *baseptr);
int core_free_mem(void *base);
int core_pcontrol(const int level);
/* Statuses between C, Fortran (MPI_Fint[MPI_F_STATUS_SIZE]) and Fortran 2008
 * (MPI_F08_status); MPI_STATUS_IGNORE and MPI_F_STATUS(ES)_IGNORE are
 * MPI_ERR_ARG. */
int core_status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int core_status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);
int core_status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status);
int core_status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status);
int core_status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status);
int core_status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status);

/* ---- MPI 5.0's ABI inquiry and handle serialization (abi.c) -------------------
 * Courier implements the MPICH ABI (libmpi.so.12), not the MPI 5.0 standard ABI
 * (libmpi_abi): MPI_Abi_get_version gives -1, -1, as the standard says for an
 * implementation that does not provide the standard ABI; both queries may be
 * called at any time.  MPI_Abi_get_info's info holds mpi_aint_size,
 * mpi_count_size and mpi_offset_size (bytes, as decimal strings).
 * The Fortran ABI details are those of Courier's own Fortran bindings
 * (gfortran's: 4-byte INTEGER, REAL and LOGICAL, .TRUE. 1, .FALSE. 0; an
 * optional datatype's _supported key says what the datatype says), fixed
 * when the library was built, so the setters answer MPI_ERR_ABI: the standard's
 * "only the first call affects the library" has been made by the library. */
int core_abi_get_version(int *abi_major, int *abi_minor);
int core_abi_get_info(MPI_Info *info);
int core_abi_get_fortran_info(MPI_Info *info);
/* info NULL (MPI_INFO_NULL) is MPI_ERR_INFO, any other MPI_ERR_ABI. */
int core_abi_set_fortran_info(cr_info_t *info);
/* logical_size: a power of two up to 16 (the LOGICAL kinds gfortran has), else
 * MPI_ERR_ARG; the values are written in logical_size bytes. */
int core_abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false,
                                  int *is_set);
int core_abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false);
/* MPICH ABI handles are ints, so a handle's integer is its value: the same for
 * every call, the predefined handles (null handles included) their MPICH
 * values, and fromint(toint(h)) == h.  As the standard says, these check
 * nothing (an invalid handle or an integer toint did not give is erroneous)
 * and return no error code. */
int core_comm_toint(MPI_Comm comm);
MPI_Comm core_comm_fromint(int comm);
int core_errhandler_toint(MPI_Errhandler errhandler);
MPI_Errhandler core_errhandler_fromint(int errhandler);
int core_group_toint(MPI_Group group);
MPI_Group core_group_fromint(int group);
int core_info_toint(MPI_Info info);
MPI_Info core_info_fromint(int info);
int core_message_toint(MPI_Message message);
MPI_Message core_message_fromint(int message);
int core_op_toint(MPI_Op op);
MPI_Op core_op_fromint(int op);
int core_request_toint(MPI_Request request);
MPI_Request core_request_fromint(int request);
int core_session_toint(MPI_Session session);
MPI_Session core_session_fromint(int session);
int core_type_toint(MPI_Datatype datatype);
MPI_Datatype core_type_fromint(int datatype);
int core_win_toint(MPI_Win win);
MPI_Win core_win_fromint(int win);

#endif
