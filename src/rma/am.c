/* SPDX-License-Identifier: MIT */
/* RMA through active messages: targets on other nodes (see rma.h). */
#include "rma/rma.h"

static int no_am(void)
{
    return cr_error(MPI_ERR_UNSUPPORTED_OPERATION, "windows across nodes are not supported yet");
}

int rma_am_init(void) { return no_am(); }
int rma_am_put(cr_win_t *w, int target, const void *packed, size_t bytes, MPI_Aint disp,
               MPI_Aint tcount, cr_datatype_t *tdt) { return no_am(); }
int rma_am_get(cr_win_t *w, int target, void *packed, size_t bytes, MPI_Aint disp,
               MPI_Aint tcount, cr_datatype_t *tdt, volatile int *done) { return no_am(); }
int rma_am_acc(cr_win_t *w, int target, const void *packed, size_t bytes, void *old,
               MPI_Aint disp, MPI_Aint tcount, cr_datatype_t *tdt, const cr_op_t *op,
               int cas, volatile int *done) { return no_am(); }
int rma_am_flush(cr_win_t *w, int target) { return no_am(); }
int rma_am_lock(cr_win_t *w, int target, int type) { return no_am(); }
int rma_am_unlock(cr_win_t *w, int target, int type) { return no_am(); }
int rma_am_post(cr_win_t *w, int origin) { return no_am(); }
int rma_am_complete(cr_win_t *w, int target) { return no_am(); }
