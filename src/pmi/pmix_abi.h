/* SPDX-License-Identifier: MIT */
/* The part of the PMIx client ABI that pmix.c uses, declared here so that
 * Courier builds without PMIx's headers and loads libpmix.so.2 at run time
 * (dlopen) only when a PMIx launcher started it.  Names carry a CRPMIX_ /
 * crpmix_ prefix so that tests/unit/test_pmix_abi.c can include this header
 * next to the real <pmix.h> and check every constant, type size and field
 * offset below against it (the PMIx Standard fixes them; PMIx 2.x to 5.x
 * agree).  Only the first element of any pmix_info_t array is ever passed,
 * so the size of the value union does not matter, only where it starts. */
#ifndef COURIER_PMIX_ABI_H
#define COURIER_PMIX_ABI_H
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define CRPMIX_MAX_NSLEN 255
#define CRPMIX_MAX_KEYLEN 511

typedef int crpmix_status_t;
typedef uint32_t crpmix_rank_t;
typedef uint16_t crpmix_data_type_t;
typedef uint8_t crpmix_scope_t;

#define CRPMIX_RANK_WILDCARD (UINT32_MAX - 1)

/* Status codes. */
#define CRPMIX_SUCCESS 0
#define CRPMIX_ERR_PROC_ABORTED -7
#define CRPMIX_ERR_NOT_FOUND -46
#define CRPMIX_ERR_LOST_CONNECTION -61
#define CRPMIX_ERR_PROC_TERM_WO_SYNC -200
#define CRPMIX_EVENT_ACTION_COMPLETE -334

/* Data types of pmix_value_t. */
#define CRPMIX_BOOL 1
#define CRPMIX_STRING 3
#define CRPMIX_SIZE 4
#define CRPMIX_INT 6
#define CRPMIX_INT32 9
#define CRPMIX_UINT16 13
#define CRPMIX_UINT32 14
#define CRPMIX_UINT64 15
#define CRPMIX_PROC_RANK 40

/* Scope of a put. */
#define CRPMIX_GLOBAL 3

/* Keys (reserved attribute names). */
#define CRPMIX_KEY_JOB_SIZE "pmix.job.size"
#define CRPMIX_KEY_UNIV_SIZE "pmix.univ.size"
#define CRPMIX_KEY_APPNUM "pmix.appnum"
#define CRPMIX_KEY_LOCAL_PEERS "pmix.lpeers"
#define CRPMIX_KEY_COLLECT_DATA "pmix.collect"
#define CRPMIX_KEY_OPTIONAL "pmix.optional"

typedef struct {
    char nspace[CRPMIX_MAX_NSLEN + 1];
    crpmix_rank_t rank;
} crpmix_proc_t;

typedef struct {
    crpmix_data_type_t type;
    union {
        bool flag;
        char *string;
        size_t size;
        int integer;
        int32_t int32;
        uint16_t uint16;
        uint32_t uint32;
        uint64_t uint64;
        crpmix_rank_t rank;
        void *ptr;
    } data;
} crpmix_value_t;

typedef struct {
    char key[CRPMIX_MAX_KEYLEN + 1];
    uint32_t flags;
    crpmix_value_t value;
} crpmix_info_t;

/* Event notification (PMIx_Register_event_handler). */
typedef void (*crpmix_op_cbfunc_t)(crpmix_status_t status, void *cbdata);
typedef void (*crpmix_event_done_fn_t)(crpmix_status_t status, crpmix_info_t *results,
                                       size_t nresults, crpmix_op_cbfunc_t cbfunc,
                                       void *thiscbdata, void *notification_cbdata);
typedef void (*crpmix_event_fn_t)(size_t evhdlr_registration_id, crpmix_status_t status,
                                  const crpmix_proc_t *source, crpmix_info_t info[], size_t ninfo,
                                  crpmix_info_t *results, size_t nresults,
                                  crpmix_event_done_fn_t cbfunc, void *cbdata);

/* The client functions, by the names dlsym finds them under. */
typedef crpmix_status_t (*crpmix_init_fn_t)(crpmix_proc_t *proc, crpmix_info_t info[],
                                            size_t ninfo);
typedef crpmix_status_t (*crpmix_finalize_fn_t)(const crpmix_info_t info[], size_t ninfo);
typedef crpmix_status_t (*crpmix_put_fn_t)(crpmix_scope_t scope, const char key[],
                                           crpmix_value_t *val);
typedef crpmix_status_t (*crpmix_commit_fn_t)(void);
typedef crpmix_status_t (*crpmix_fence_fn_t)(const crpmix_proc_t procs[], size_t nprocs,
                                             const crpmix_info_t info[], size_t ninfo);
typedef crpmix_status_t (*crpmix_get_fn_t)(const crpmix_proc_t *proc, const char key[],
                                           const crpmix_info_t info[], size_t ninfo,
                                           crpmix_value_t **val);
typedef crpmix_status_t (*crpmix_abort_fn_t)(int status, const char msg[], crpmix_proc_t procs[],
                                             size_t nprocs);
typedef const char *(*crpmix_error_string_fn_t)(crpmix_status_t status);
typedef crpmix_status_t (*crpmix_register_event_fn_t)(crpmix_status_t codes[], size_t ncodes,
                                                      crpmix_info_t info[], size_t ninfo,
                                                      crpmix_event_fn_t evhdlr, void *cbfunc,
                                                      void *cbdata);
#endif
