/* SPDX-License-Identifier: MIT */
/* src/pmi/pmix_abi.h declares the part of the PMIx ABI that pmix.c uses, so
 * that Courier builds without PMIx and loads libpmix with dlopen.  This
 * program, built only where <pmix.h> is installed (libpmix-dev), checks each
 * declaration against the real header: constants, key names, the sizes and
 * field offsets of the structures that cross the library boundary. */
#include <pmix.h>

#include "pmi/pmix_abi.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define SAME_INT(ours, theirs) _Static_assert((ours) == (theirs), #ours " != " #theirs)
#define SAME_LAYOUT(ours, theirs, field) \
    _Static_assert(offsetof(ours, field) == offsetof(theirs, field), #ours "." #field)

SAME_INT(CRPMIX_MAX_NSLEN, PMIX_MAX_NSLEN);
SAME_INT(CRPMIX_MAX_KEYLEN, PMIX_MAX_KEYLEN);
SAME_INT(CRPMIX_RANK_WILDCARD, PMIX_RANK_WILDCARD);
SAME_INT(CRPMIX_SUCCESS, PMIX_SUCCESS);
SAME_INT(CRPMIX_ERR_PROC_ABORTED, PMIX_ERR_PROC_ABORTED);
SAME_INT(CRPMIX_ERR_NOT_FOUND, PMIX_ERR_NOT_FOUND);
SAME_INT(CRPMIX_ERR_LOST_CONNECTION, PMIX_ERR_LOST_CONNECTION);
SAME_INT(CRPMIX_ERR_PROC_TERM_WO_SYNC, PMIX_ERR_PROC_TERM_WO_SYNC);
SAME_INT(CRPMIX_EVENT_ACTION_COMPLETE, PMIX_EVENT_ACTION_COMPLETE);
SAME_INT(CRPMIX_BOOL, PMIX_BOOL);
SAME_INT(CRPMIX_STRING, PMIX_STRING);
SAME_INT(CRPMIX_SIZE, PMIX_SIZE);
SAME_INT(CRPMIX_INT, PMIX_INT);
SAME_INT(CRPMIX_INT32, PMIX_INT32);
SAME_INT(CRPMIX_UINT16, PMIX_UINT16);
SAME_INT(CRPMIX_UINT32, PMIX_UINT32);
SAME_INT(CRPMIX_UINT64, PMIX_UINT64);
SAME_INT(CRPMIX_PROC_RANK, PMIX_PROC_RANK);
SAME_INT(CRPMIX_GLOBAL, PMIX_GLOBAL);

SAME_INT(sizeof(crpmix_status_t), sizeof(pmix_status_t));
SAME_INT(sizeof(crpmix_rank_t), sizeof(pmix_rank_t));
SAME_INT(sizeof(crpmix_data_type_t), sizeof(pmix_data_type_t));
SAME_INT(sizeof(crpmix_scope_t), sizeof(pmix_scope_t));
SAME_INT(sizeof(crpmix_proc_t), sizeof(pmix_proc_t));
SAME_LAYOUT(crpmix_proc_t, pmix_proc_t, nspace);
SAME_LAYOUT(crpmix_proc_t, pmix_proc_t, rank);
SAME_LAYOUT(crpmix_value_t, pmix_value_t, type);
SAME_LAYOUT(crpmix_value_t, pmix_value_t, data);
SAME_LAYOUT(crpmix_info_t, pmix_info_t, key);
SAME_LAYOUT(crpmix_info_t, pmix_info_t, flags);
SAME_LAYOUT(crpmix_info_t, pmix_info_t, value);
/* Ours may be smaller (fewer union members): only single values and the first
 * element of info arrays cross the boundary, never arrays of ours. */
_Static_assert(sizeof(crpmix_value_t) <= sizeof(pmix_value_t), "value size");

int main(void)
{
    static const struct {
        const char *ours, *theirs;
    } keys[] = {
        { CRPMIX_KEY_JOB_SIZE, PMIX_JOB_SIZE },      { CRPMIX_KEY_UNIV_SIZE, PMIX_UNIV_SIZE },
        { CRPMIX_KEY_APPNUM, PMIX_APPNUM },          { CRPMIX_KEY_LOCAL_PEERS, PMIX_LOCAL_PEERS },
        { CRPMIX_KEY_COLLECT_DATA, PMIX_COLLECT_DATA }, { CRPMIX_KEY_OPTIONAL, PMIX_OPTIONAL },
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(keys[i].ours, keys[i].theirs)) {
            printf("FAIL: key %s, pmix.h says %s\n", keys[i].ours, keys[i].theirs);
            bad = 1;
        }
    /* Members of the value union that pmix.c reads. */
    pmix_value_t v;
    crpmix_value_t *o = (crpmix_value_t *)&v;
    memset(&v, 0, sizeof v);
    v.data.uint32 = 0x12345678u;
    if (o->data.uint32 != 0x12345678u) bad = 1, printf("FAIL: uint32 member\n");
    v.data.string = (char *)"x";
    if (o->data.string != v.data.string) bad = 1, printf("FAIL: string member\n");
    v.data.flag = true;
    if (!o->data.flag) bad = 1, printf("FAIL: flag member\n");
    if (!bad)
        printf("PASS pmix_abi (PMIx %ld.%ld)\n", (long)PMIX_VERSION_MAJOR,
               (long)PMIX_VERSION_MINOR);
    return bad;
}
