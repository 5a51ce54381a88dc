/* SPDX-License-Identifier: MIT */
/* The tools interface (MPI_T, MPI 4.1 chapter 15): the core entries of the
 * MPI_T_* procedures.  Unlike every other entry they take the C binding's
 * own arguments and return MPI_T error codes themselves: MPI_T reports errors
 * by return code only (no error handler is called), may be used before
 * MPI_Init and after MPI_Finalize, and checks its arguments against its own
 * state (MPI_T_ERR_NOT_INITIALIZED before MPI_T_init_thread).
 *
 * What is there (mpit.c):
 *  - one control variable per row of the settings table
 *    (src/util/settings_table.h), named by its environment variable;
 *    settings of the collective selection (COURIER_COLL_*) can be written at
 *    any time (scope MPI_T_SCOPE_ALL_EQ: every rank must write the same value),
 *    every other one only before MPI_Init (then it overrides the environment;
 *    scope MPI_T_SCOPE_LOCAL), and from MPI_Init on its scope is
 *    MPI_T_SCOPE_READONLY and a write answers MPI_T_ERR_CVAR_SET_NOT_NOW;
 *  - performance variables: queue lengths, messages and bytes sent per
 *    transport and protocol, and the algorithm each collective chose last
 *    (listed in mpit.c's table);
 *  - categories grouping them; no events and no event sources (their
 *    procedures answer MPI_T_ERR_INVALID_INDEX or _HANDLE). */
#ifndef COURIER_TOOLS_API_H
#define COURIER_TOOLS_API_H
#include <mpi.h>

/* Every MPI_T procedure runs between core_t_lock and core_t_unlock (the
 * generated binding calls them), so threads may call the interface at once
 * (MPI_T_init_thread provides MPI_THREAD_MULTIPLE): the library lock while
 * the library's locks are on (the variables read the core's state, which it
 * guards), and beneath it the interface's own mutex, which also serialises
 * calls made before MPI_Init or without threads.  core_t_lock returns what
 * core_t_unlock must be given back. */
int core_t_lock(void);
void core_t_unlock(int held);

int core_t_init_thread(int required, int *provided);
int core_t_finalize(void);

int core_t_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len);
int core_t_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len);

int core_t_cvar_get_num(int *num_cvar);
int core_t_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                         int *desc_len, int *bind, int *scope);
int core_t_cvar_get_index(const char *name, int *cvar_index);
int core_t_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count);
int core_t_cvar_handle_free(MPI_T_cvar_handle *handle);
int core_t_cvar_read(MPI_T_cvar_handle handle, void *buf);
int core_t_cvar_write(MPI_T_cvar_handle handle, const void *buf);

int core_t_pvar_get_num(int *num_pvar);
int core_t_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                         char *desc, int *desc_len, int *bind, int *readonly,
                         int *continuous, int *atomic);
int core_t_pvar_get_index(const char *name, int var_class, int *pvar_index);
int core_t_pvar_session_create(MPI_T_pvar_session *pe_session);
int core_t_pvar_session_free(MPI_T_pvar_session *pe_session);
int core_t_pvar_handle_alloc(MPI_T_pvar_session pe_session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count);
int core_t_pvar_handle_free(MPI_T_pvar_session pe_session, MPI_T_pvar_handle *handle);
int core_t_pvar_start(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle);
int core_t_pvar_stop(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle);
int core_t_pvar_read(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf);
int core_t_pvar_write(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle,
                      const void *buf);
int core_t_pvar_reset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle);
int core_t_pvar_readreset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void *buf);

int core_t_category_get_num(int *num_cat);
int core_t_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                             int *desc_len, int *num_cvars, int *num_pvars,
                             int *num_categories);
int core_t_category_get_num_events(int cat_index, int *num_events);
int core_t_category_get_index(const char *name, int *cat_index);
int core_t_category_get_cvars(int cat_index, int len, int indices[]);
int core_t_category_get_pvars(int cat_index, int len, int indices[]);
int core_t_category_get_events(int cat_index, int len, int indices[]);
int core_t_category_get_categories(int cat_index, int len, int indices[]);
int core_t_category_changed(int *update_number);

/* Events and event sources: Courier defines none. */
int core_t_source_get_num(int *num_sources);
int core_t_source_get_info(int source_index, char *name, int *name_len, char *desc,
                           int *desc_len, MPI_T_source_order *ordering,
                           MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info);
int core_t_source_get_timestamp(int source_index, MPI_Count *timestamp);
int core_t_event_get_num(int *num_events);
int core_t_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                          int *desc_len, int *bind);
int core_t_event_get_index(const char *name, int *event_index);
int core_t_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration);
int core_t_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info);
int core_t_event_handle_get_info(MPI_T_event_registration event_registration,
                                 MPI_Info *info_used);
int core_t_event_register_callback(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                   MPI_T_event_cb_function event_cb_function);
int core_t_event_callback_set_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info info);
int core_t_event_callback_get_info(MPI_T_event_registration event_registration,
                                   MPI_T_cb_safety cb_safety, MPI_Info *info_used);
int core_t_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function free_cb_function);
int core_t_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function);
int core_t_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer);
int core_t_event_copy(MPI_T_event_instance event_instance, void *buffer);
int core_t_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp);
int core_t_event_get_source(MPI_T_event_instance event_instance, int *source_index);
#endif
