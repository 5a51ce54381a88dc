/* SPDX-License-Identifier: MIT */
/* The core's datatype and status entries: what the generated MPI_Type_*,
 * MPI_Pack*, MPI_Unpack*, MPI_Get_count/elements and MPI_Status_* functions
 * call (conventions in src/core/api.h).
 *
 * Each entry serves the int form, the large-count form (_c) and, where MPI-3
 * had one, the _x form of its procedure: counts are MPI_Count, arrays of counts
 * and displacements cr_vec_t, outputs MPI_Count (the binding narrows them for
 * the int forms, to MPI_UNDEFINED where a value does not fit).  `large` is 1
 * when the large-count form was called: a constructor then records its
 * arguments as large counts, as MPI_Type_get_contents_c must return them.
 * Datatype arguments are objects the binding checked (committed where a buffer
 * is involved); `newtype` outputs receive a new handle.  Every entry returns
 * MPI_SUCCESS or a cr_error() code whose message names the argument. */
#ifndef COURIER_CORE_API_DT_H
#define COURIER_CORE_API_DT_H
#include "core/core.h"

/* ---- constructors (dt_create.c) ------------------------------------------------
 * The MPI-1 names MPI_Type_hvector, MPI_Type_hindexed and MPI_Type_struct call
 * the create_ entries (maint/notes.py MEMBERS). */
int core_type_contiguous(MPI_Count count, cr_datatype_t *oldtype, MPI_Datatype *newtype,
                         int large);
/* stride in elements of oldtype (vector) or in bytes (create_hvector) */
int core_type_vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                     cr_datatype_t *oldtype, MPI_Datatype *newtype, int large);
int core_type_create_hvector(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                             cr_datatype_t *oldtype, MPI_Datatype *newtype, int large);
/* displacements in elements of oldtype (indexed, indexed_block) or in bytes */
int core_type_indexed(MPI_Count count, cr_vec_t array_of_blocklengths,
                      cr_vec_t array_of_displacements, cr_datatype_t *oldtype,
                      MPI_Datatype *newtype, int large);
int core_type_create_hindexed(MPI_Count count, cr_vec_t array_of_blocklengths,
                              cr_vec_t array_of_displacements, cr_datatype_t *oldtype,
                              MPI_Datatype *newtype, int large);
int core_type_create_indexed_block(MPI_Count count, MPI_Count blocklength,
                                   cr_vec_t array_of_displacements, cr_datatype_t *oldtype,
                                   MPI_Datatype *newtype, int large);
int core_type_create_hindexed_block(MPI_Count count, MPI_Count blocklength,
                                    cr_vec_t array_of_displacements, cr_datatype_t *oldtype,
                                    MPI_Datatype *newtype, int large);
/* array_of_types: count checked datatypes (MPI_LB / MPI_UB markers allowed) */
int core_type_create_struct(MPI_Count count, cr_vec_t array_of_blocklengths,
                            cr_vec_t array_of_displacements,
                            cr_datatype_t *const array_of_types[], MPI_Datatype *newtype,
                            int large);
/* any lb and extent, negative and zero included */
int core_type_create_resized(cr_datatype_t *oldtype, MPI_Count lb, MPI_Count extent,
                             MPI_Datatype *newtype, int large);
int core_type_create_subarray(int ndims, cr_vec_t array_of_sizes, cr_vec_t array_of_subsizes,
                              cr_vec_t array_of_starts, int order, cr_datatype_t *oldtype,
                              MPI_Datatype *newtype, int large);
int core_type_create_darray(int size, int rank, int ndims, cr_vec_t array_of_gsizes,
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, cr_datatype_t *oldtype,
                            MPI_Datatype *newtype, int large);
/* The same predefined-like type (cached, never freed, combiner
 * MPI_COMBINER_F90_*) for the same arguments: selected_int_kind(r) /
 * selected_real_kind(p, r) of gfortran on x86-64; p or r may be MPI_UNDEFINED.
 * MPI_ERR_ARG when no kind has that precision and range. */
int core_type_create_f90_integer(int r, MPI_Datatype *newtype);
int core_type_create_f90_real(int p, int r, MPI_Datatype *newtype);
int core_type_create_f90_complex(int p, int r, MPI_Datatype *newtype);
/* The predefined type of class typeclass (MPI_TYPECLASS_*) and size bytes. */
int core_type_match_size(int typeclass, int size, MPI_Datatype *datatype);
/* The predefined value-index pair type (MPI_FLOAT_INT, ...) of the two types;
 * MPI_DATATYPE_NULL when there is none (MPI 4.1). */
int core_type_get_value_index(cr_datatype_t *value_type, cr_datatype_t *index_type,
                              MPI_Datatype *pair_type);
int core_type_dup(cr_datatype_t *oldtype, MPI_Datatype *newtype);
int core_type_commit(cr_datatype_t *datatype);
/* Drops the user's reference (the binding then nulls the handle); predefined
 * types, the f90 ones included, are MPI_ERR_TYPE. */
int core_type_free(cr_datatype_t *datatype);

/* ---- envelope and contents (dt_create.c) ---------------------------------------
 * num_large_counts is NULL for MPI_Type_get_envelope, max_large_counts 0 for
 * MPI_Type_get_contents: a type made by a large-count constructor is then
 * MPI_ERR_TYPE (its counts do not fit those arrays). */
int core_type_get_envelope(cr_datatype_t *datatype, MPI_Count *num_integers,
                           MPI_Count *num_addresses, MPI_Count *num_large_counts,
                           MPI_Count *num_datatypes, int *combiner);
int core_type_get_contents(cr_datatype_t *datatype, MPI_Count max_integers,
                           MPI_Count max_addresses, MPI_Count max_large_counts,
                           MPI_Count max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                           MPI_Datatype array_of_datatypes[]);

/* ---- queries (datatype.c) ----------------------------------------------------- */
int core_type_size(cr_datatype_t *datatype, MPI_Count *size);
int core_type_get_extent(cr_datatype_t *datatype, MPI_Count *lb, MPI_Count *extent);
int core_type_get_true_extent(cr_datatype_t *datatype, MPI_Count *true_lb,
                              MPI_Count *true_extent);
/* Predefined types start with the standard's name (MPI_C_FLOAT_COMPLEX is
 * "MPI_C_COMPLEX", its first name); any type may be renamed. */
int core_type_get_name(cr_datatype_t *datatype, char *type_name, int *resultlen);
int core_type_set_name(cr_datatype_t *datatype, const char *type_name);
/* MPI-1: MPI_Type_extent, MPI_Type_lb, MPI_Type_ub. */
int core_type_extent(cr_datatype_t *datatype, MPI_Aint *extent);
int core_type_lb(cr_datatype_t *datatype, MPI_Aint *displacement);
int core_type_ub(cr_datatype_t *datatype, MPI_Aint *displacement);
/* MPI_Get_address and MPI-1's MPI_Address. */
int core_get_address(const void *location, MPI_Aint *address);

/* ---- packing (dt_pack.c) -------------------------------------------------------
 * Native packing writes the engine's packed stream (no header), so the pack
 * size is incount x size; external32 is big-endian with the standard's sizes.
 * A position outside [0, outsize] or data that does not fit is
 * MPI_ERR_TRUNCATE; a datarep other than "external32" MPI_ERR_ARG. */
int core_pack(const void *inbuf, MPI_Count incount, cr_datatype_t *datatype, void *outbuf,
              MPI_Count outsize, MPI_Count *position, cr_comm_t *comm);
int core_unpack(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                MPI_Count outcount, cr_datatype_t *datatype, cr_comm_t *comm);
/* MPI_ERR_COUNT when the int form's size does not fit in an int. */
int core_pack_size(MPI_Count incount, cr_datatype_t *datatype, cr_comm_t *comm,
                   MPI_Count *size, int large);
int core_pack_external(const char datarep[], const void *inbuf, MPI_Count incount,
                       cr_datatype_t *datatype, void *outbuf, MPI_Count outsize,
                       MPI_Count *position);
int core_unpack_external(const char datarep[], const void *inbuf, MPI_Count insize,
                         MPI_Count *position, void *outbuf, MPI_Count outcount,
                         cr_datatype_t *datatype);
int core_pack_external_size(const char datarep[], MPI_Count incount, cr_datatype_t *datatype,
                            MPI_Count *size);

/* ---- status (status.c) ---------------------------------------------------------
 * The status holds the bytes received; counts are derived from them.
 * MPI_STATUS_IGNORE where a status is read or written is MPI_ERR_ARG. */
/* Whole elements received, MPI_UNDEFINED when the bytes end inside one. */
int core_get_count(const MPI_Status *status, cr_datatype_t *datatype, MPI_Count *count);
/* Basic elements received (also of a trailing partial element), MPI_UNDEFINED
 * when the bytes end inside a basic element.  Any datatype, uncommitted ones
 * included. */
int core_get_elements(const MPI_Status *status, cr_datatype_t *datatype, MPI_Count *count);
/* Makes the status say that count basic elements of datatype arrived, so
 * that MPI_Get_elements gives count back (and MPI_Get_count the whole
 * elements they make up). */
int core_status_set_elements(MPI_Status *status, cr_datatype_t *datatype, MPI_Count count);
int core_status_set_cancelled(MPI_Status *status, int flag);
int core_test_cancelled(const MPI_Status *status, int *flag);
/* MPI 4.1: the public fields through calls. */
int core_status_get_source(const MPI_Status *status, int *source);
int core_status_get_tag(const MPI_Status *status, int *tag);
int core_status_get_error(const MPI_Status *status, int *err);
int core_status_set_source(MPI_Status *status, int source);
int core_status_set_tag(MPI_Status *status, int tag);
int core_status_set_error(MPI_Status *status, int err);

#endif
