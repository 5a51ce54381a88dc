/* SPDX-License-Identifier: MIT */
/* Datatype internals shared by the core (see core.h for cr_datatype_t). */
#ifndef COURIER_CORE_DATATYPE_H
#define COURIER_CORE_DATATYPE_H
#include "core/core.h"

/* Layout of one element of a non-contiguous type: blocks of bytes, in type-map
 * order, each at an offset from the element's start.  The datatypes issue
 * replaces this with a compact flattened description. */
typedef struct {
    int nblocks;
    struct { MPI_Aint off, len; } b[2];   /* really b[nblocks] for types built at run time */
} cr_dt_desc_t;

extern cr_objtab_t cr_datatype_tab;
void cr_datatype_init(void);
MPI_Count cr_status_bytes(const MPI_Status *st);
void cr_status_set_bytes(MPI_Status *st, MPI_Count bytes);
#endif
