/* SPDX-License-Identifier: MIT */
/* Which algorithm runs a collective: selection as data.
 *
 * coll_algs lists every algorithm with its id (the value that forces it) and
 * its conditions (commutative ops only; intercommunicators or not).
 * coll_rules is the default choice: for each collective, the first row whose
 * limits hold and whose algorithm's conditions hold wins.  A row's limits are
 * settings (util/settings_table.h), read at each call, so no number lives
 * here: min_ranks <= communicator size <= max_ranks and
 * min_bytes <= bytes <= max_bytes, where `bytes` is coll_args_t.bytes (the
 * per-rank block for the gather/scatter/alltoall families, the whole vector
 * for the reductions).  A NULL limit is no limit.  A row marked OVERSUB
 * holds only for blocking calls on a communicator whose ranks all share this
 * node (coll_shm_usable) when the node's ranks outnumber its cores
 * (cr_proc.oversubscribed): there each wait may cost a context switch, and
 * an algorithm with fewer synchronisations can win over one that moves less
 * data.  The last row of each collective should take everything its
 * communicators allow.
 *
 * The setting coll_<name>_alg (COURIER_COLL_<NAME>_ALG=<id>) forces an
 * algorithm (0: automatic); a forced algorithm that cannot run a call (a
 * commutative-only one with a non-commutative op, or one for the other kind
 * of communicator) falls back to the table.  Collectives with a single
 * algorithm have no such setting.
 *
 * Intercommunicators: an algorithm flagged COLL_ALG_INTER serves only them,
 * the others only intracommunicators; when none fits, coll_select returns
 * NULL and the caller reports MPI_ERR_UNSUPPORTED_OPERATION.  Each collective
 * but Scan/Exscan has one intercommunicator algorithm; having no rule row, it
 * is found by the fallback loop at the end of coll_select (so a forced
 * intracommunicator algorithm also falls back to it). */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include "coll/coll.h"
#include "coll/coll_hier.h"
#include "coll/coll_inter.h"
#include "coll/coll_shm.h"
#include "util/settings.h"

static const coll_alg_t coll_algs[] = {
    { COLL_BARRIER, 1, "dissemination", 0, coll_barrier_dissemination },
    { COLL_BCAST, 1, "binomial", 0, coll_bcast_binomial },
    { COLL_BCAST, 2, "scatter_allgather", 0, coll_bcast_scatter_allgather },
    { COLL_REDUCE, 1, "binomial", 0, coll_reduce_binomial },
    { COLL_ALLREDUCE, 1, "recdbl", 0, coll_allreduce_recdbl },
    { COLL_ALLREDUCE, 2, "reduce_bcast", 0, coll_allreduce_reduce_bcast },
    { COLL_GATHER, 1, "binomial", 0, coll_gather_binomial },
    { COLL_GATHER, 2, "linear", 0, coll_gather_linear },
    { COLL_GATHERV, 1, "linear", 0, coll_gatherv_linear },
    { COLL_SCATTER, 1, "binomial", 0, coll_scatter_binomial },
    { COLL_SCATTER, 2, "linear", 0, coll_scatter_linear },
    { COLL_SCATTERV, 1, "linear", 0, coll_scatterv_linear },
    { COLL_ALLGATHER, 1, "ring", 0, coll_allgather_ring },
    { COLL_ALLGATHER, 2, "bruck", 0, coll_allgather_bruck },
    { COLL_ALLGATHERV, 1, "ring", 0, coll_allgatherv_ring },
    { COLL_ALLTOALL, 1, "pairwise", 0, coll_alltoall_pairwise },
    { COLL_ALLTOALL, 2, "bruck", 0, coll_alltoall_bruck },
    { COLL_ALLTOALLV, 1, "pairwise", 0, coll_alltoall_pairwise },
    { COLL_ALLTOALLW, 1, "pairwise", 0, coll_alltoall_pairwise },
    { COLL_REDUCE_SCATTER, 1, "reduce_scatterv", 0, coll_reduce_scatter_reduce_scatterv },
    { COLL_REDUCE_SCATTER, 2, "ring", COLL_ALG_COMMUTATIVE, coll_reduce_scatter_ring },
    { COLL_REDUCE_SCATTER_BLOCK, 1, "reduce_scatterv", 0, coll_reduce_scatter_reduce_scatterv },
    { COLL_REDUCE_SCATTER_BLOCK, 2, "ring", COLL_ALG_COMMUTATIVE, coll_reduce_scatter_ring },
    { COLL_SCAN, 1, "recdbl", 0, coll_scan_recdbl },
    { COLL_EXSCAN, 1, "recdbl", 0, coll_exscan_recdbl },
    /* intercommunicators */
    { COLL_BARRIER, 2, "inter", COLL_ALG_INTER, coll_inter_barrier },
    { COLL_BCAST, 3, "inter", COLL_ALG_INTER, coll_inter_bcast },
    { COLL_ALLREDUCE, 3, "inter", COLL_ALG_INTER, coll_inter_allreduce },
    { COLL_REDUCE, 2, "inter", COLL_ALG_INTER, coll_inter_reduce },
    { COLL_GATHER, 3, "inter", COLL_ALG_INTER, coll_inter_gather },
    { COLL_GATHERV, 2, "inter", COLL_ALG_INTER, coll_inter_gather },
    { COLL_SCATTER, 3, "inter", COLL_ALG_INTER, coll_inter_scatter },
    { COLL_SCATTERV, 2, "inter", COLL_ALG_INTER, coll_inter_scatter },
    { COLL_ALLGATHER, 3, "inter", COLL_ALG_INTER, coll_inter_allgather },
    { COLL_ALLGATHERV, 2, "inter", COLL_ALG_INTER, coll_inter_allgather },
    { COLL_ALLTOALL, 3, "inter", COLL_ALG_INTER, coll_inter_alltoall },
    { COLL_ALLTOALLV, 2, "inter", COLL_ALG_INTER, coll_inter_alltoall },
    { COLL_ALLTOALLW, 2, "inter", COLL_ALG_INTER, coll_inter_alltoall },
    { COLL_REDUCE_SCATTER, 3, "inter", COLL_ALG_INTER, coll_inter_reduce_scatter },
    { COLL_REDUCE_SCATTER_BLOCK, 3, "inter", COLL_ALG_INTER, coll_inter_reduce_scatter },
    /* Scan and Exscan are not defined on intercommunicators (coll.c says so) */
    /* direct algorithms through the node's shared memory (coll_shm.h): blocking
     * calls on intracommunicators whose ranks all share this node */
#define SHM COLL_ALG_SHM
#define CMA (COLL_ALG_SHM | COLL_ALG_CMA)
    /* NB: also non-blocking and persistent calls (coll_nbshm.c) */
#define NB COLL_ALG_NB
    { COLL_BARRIER, 3, "shm", SHM | NB, NULL, coll_barrier_shm, NULL },
    { COLL_BCAST, 4, "shm", SHM | NB, NULL, coll_bcast_shm, coll_bcast_shm_fits },
    { COLL_BCAST, 5, "cma", CMA, NULL, coll_bcast_cma, NULL },
    { COLL_BCAST, 7, "pipe", SHM, NULL, coll_bcast_pipe, coll_bcast_pipe_fits },
    { COLL_REDUCE, 3, "shm", SHM | NB, NULL, coll_reduce_shm, coll_reduce_shm_fits },
    { COLL_REDUCE, 4, "cma", CMA, NULL, coll_reduce_cma, coll_reduce_cma_fits },
    { COLL_REDUCE, 6, "pipe", SHM | COLL_ALG_COMMUTATIVE, NULL, coll_reduce_pipe,
      coll_reduce_pipe_fits },
    { COLL_ALLREDUCE, 4, "shm", SHM | NB, NULL, coll_allreduce_shm, coll_allreduce_shm_fits },
    { COLL_ALLREDUCE, 5, "cma", CMA, NULL, coll_allreduce_cma, coll_allreduce_cma_fits },
    { COLL_ALLREDUCE, 7, "pipe_bcast", SHM | COLL_ALG_COMMUTATIVE, NULL, coll_allreduce_pipe,
      coll_reduce_pipe_fits },
    { COLL_GATHER, 4, "shm", SHM | NB, NULL, coll_gather_shm, coll_gather_shm_fits },
    { COLL_GATHER, 5, "cma", CMA, NULL, coll_gather_cma, NULL },
    { COLL_SCATTER, 4, "shm", SHM, NULL, coll_scatter_shm, coll_scatter_shm_fits },
    { COLL_SCATTER, 5, "cma", CMA, NULL, coll_scatter_cma, NULL },
    { COLL_ALLGATHER, 4, "shm", SHM | NB, NULL, coll_allgather_shm, coll_allgather_shm_fits },
    { COLL_ALLGATHER, 5, "cma", CMA, NULL, coll_allgather_cma, NULL },
    { COLL_ALLTOALL, 4, "shm", SHM, NULL, coll_alltoall_shm, coll_alltoall_shm_fits },
    { COLL_ALLTOALL, 5, "cma", CMA, NULL, coll_alltoall_cma, coll_alltoallv_cma_fits },
    { COLL_ALLTOALLV, 3, "cma", CMA, NULL, coll_alltoallv_cma, coll_alltoallv_cma_fits },
    { COLL_REDUCE_SCATTER, 4, "shm", SHM, NULL, coll_reduce_scatter_shm, coll_reduce_scatter_shm_fits },
    { COLL_REDUCE_SCATTER, 5, "cma", CMA, NULL, coll_reduce_scatter_cma, coll_reduce_scatter_cma_fits },
    { COLL_REDUCE_SCATTER_BLOCK, 4, "shm", SHM, NULL, coll_reduce_scatter_shm, coll_reduce_scatter_shm_fits },
    { COLL_REDUCE_SCATTER_BLOCK, 5, "cma", CMA, NULL, coll_reduce_scatter_cma, coll_reduce_scatter_cma_fits },
    { COLL_SCAN, 2, "shm", SHM, NULL, coll_scan_shm, coll_scan_shm_fits },
    { COLL_SCAN, 4, "cma", CMA, NULL, coll_scan_cma, coll_scan_cma_fits },
    /* through the staging buffers (coll_stage.c) */
    { COLL_ALLREDUCE, 8, "stage", SHM, NULL, coll_allreduce_stage, coll_allreduce_stage_fits },
    { COLL_ALLGATHER, 7, "stage", SHM, NULL, coll_allgather_stage, coll_allgather_stage_fits },
    { COLL_ALLTOALL, 7, "stage", SHM, NULL, coll_alltoall_stage, coll_alltoall_stage_fits },
    { COLL_REDUCE_SCATTER, 7, "stage", SHM, NULL, coll_reduce_scatter_stage,
      coll_reduce_scatter_stage_fits },
    { COLL_REDUCE_SCATTER_BLOCK, 7, "stage", SHM, NULL, coll_reduce_scatter_stage,
      coll_reduce_scatter_stage_fits },
    { COLL_EXSCAN, 2, "shm", SHM, NULL, coll_exscan_shm, coll_scan_shm_fits },
#undef SHM
#undef CMA
#undef NB
    /* hierarchical (coll_hier.h): blocking calls on intracommunicators whose
     * ranks span nodes: a node phase plus a leaders' phase */
#define HIER COLL_ALG_HIER
    { COLL_BARRIER, 4, "hier", HIER, NULL, coll_barrier_hier, NULL },
    { COLL_BCAST, 6, "hier", HIER, NULL, coll_bcast_hier, NULL },
    { COLL_REDUCE, 5, "hier", HIER | COLL_ALG_COMMUTATIVE, NULL, coll_reduce_hier, NULL },
    { COLL_ALLREDUCE, 6, "hier", HIER | COLL_ALG_COMMUTATIVE, NULL, coll_allreduce_hier, NULL },
    { COLL_GATHER, 6, "hier", HIER, NULL, coll_gather_hier, NULL },
    { COLL_ALLGATHER, 6, "hier", HIER, NULL, coll_allgather_hier, NULL },
    { COLL_SCATTER, 6, "hier", HIER, NULL, coll_scatter_hier, NULL },
    { COLL_ALLTOALL, 6, "hier", HIER, NULL, coll_alltoall_hier, NULL },
    { COLL_REDUCE_SCATTER, 6, "hier", HIER | COLL_ALG_COMMUTATIVE, NULL, coll_reduce_scatter_hier, NULL },
    { COLL_REDUCE_SCATTER_BLOCK, 6, "hier", HIER | COLL_ALG_COMMUTATIVE, NULL, coll_reduce_scatter_hier, NULL },
    { COLL_SCAN, 3, "hier", HIER, NULL, coll_scan_hier, coll_scan_hier_fits },
    { COLL_EXSCAN, 3, "hier", HIER, NULL, coll_exscan_hier, coll_scan_hier_fits },
#undef HIER
};
enum { NALGS = sizeof(coll_algs) / sizeof(coll_algs[0]) };

typedef struct {
    coll_kind_t coll;
    const long *min_ranks, *max_ranks;   /* settings, or NULL: no limit */
    const long *min_bytes, *max_bytes;
    int alg;                             /* id in coll_algs */
    int oversub;                         /* OVERSUB: only oversubscribed on one node */
} coll_rule_t;
enum { OVERSUB = 1 };

#define S(field) (&ut_settings.field)
static const coll_rule_t coll_rules[] = {
    /* On one node: single copy for large data, else the shared segment when the
     * call fits a slot (the algorithms' fits), else the message algorithms. */
    { COLL_BARRIER, NULL, NULL, NULL, NULL, 3 },
    /* A pair (or any communicator of at most coll_p2p_max_ranks): large data
     * as point-to-point messages, which split one copy between the two
     * processes (pt2pt.c), where cma copies it with one process alone: at 2
     * ranks and 1 MiB reduce 71 us against 131, gather and scatter 65-68
     * against 80-85 (docs/collectives.md, "Pairs").  Bcast splits its cma
     * copy itself (coll_bcast_cma.c), so that a receiver that disagrees on the
     * length still meets the root on the shared area. */
    { COLL_REDUCE, NULL, S(coll_p2p_max_ranks), S(coll_p2p_min_bytes), NULL, 1 },
    { COLL_GATHER, NULL, S(coll_p2p_max_ranks), S(coll_p2p_min_bytes), NULL, 2 },
    { COLL_SCATTER, NULL, S(coll_p2p_max_ranks), S(coll_p2p_min_bytes), NULL, 2 },
    /* oversubscribed: through the root's slot where the message fits one,
     * else from the cma size up to the pipe buffers through the root's pipe
     * buffer, the root waiting for nobody (64 KiB: 32 ranks 145 us of CPU per
     * call against cma's 604, 64 ranks 274 against 1954; docs/collectives.md,
     * "Pipelined reduce") */
    { COLL_BCAST, NULL, NULL, NULL, NULL, 4, OVERSUB },
    { COLL_BCAST, S(coll_bcast_pipe_min_ranks), NULL, S(coll_bcast_cma_min_bytes), NULL, 7,
      OVERSUB },
    { COLL_BCAST, NULL, NULL, S(coll_bcast_cma_min_bytes), NULL, 5 },
    { COLL_BCAST, NULL, NULL, NULL, NULL, 4 },
    /* oversubscribed: through the slots where the vector fits one, above that
     * segments down a binomial tree through the pipe buffers, each rank
     * waiting only for its children and its parent, rather than every rank's
     * operand read by system calls between two meetings of all (at 32 ranks
     * on 2 cores and 64 KiB 458 us against 2042, at 4 ranks 50 against 226);
     * larger vectors go in segments through the slots, which only small
     * communicators gain by (docs/collectives.md, "Pipelined reduce") */
    { COLL_REDUCE, NULL, NULL, NULL, NULL, 3, OVERSUB },
    { COLL_REDUCE, S(coll_reduce_pipe_min_ranks), NULL, NULL, S(coll_reduce_pipe_max_bytes), 6,
      OVERSUB },
    { COLL_REDUCE, S(coll_reduce_pipe_min_ranks), S(coll_reduce_pipe_all_max_ranks), NULL, NULL, 6,
      OVERSUB },
    { COLL_REDUCE, NULL, NULL, S(coll_reduce_cma_min_bytes), NULL, 4 },
    { COLL_REDUCE, NULL, NULL, NULL, NULL, 3 },
    /* A pair, from 2 KiB up to the eager limit: recursive doubling's two eager
     * messages beat the slots (coll8, quiet, load 1: 2 KiB 1.33 us against
     * 1.62, 4 KiB 1.84 against 2.67, 8 KiB 2.6 against 4.9; the slots win at
     * 512 B and tie at 1 KiB, and rendezvous loses above; docs/collectives.md) */
    { COLL_ALLREDUCE, NULL, S(coll_p2p_max_ranks), S(coll_allreduce_p2p_min_bytes),
      S(eager_limit), 1 },
    /* oversubscribed: single copy's three synchronisations of all ranks cost
     * 9 context switches per call at 4 ranks on 2 cores, reduce + bcast's
     * trees 8 but half the CPU time up to about 128 KiB (docs/collectives.md) */
    /* oversubscribed, above a slot: the pipelined reduce to rank 0 and a
     * broadcast on the area, up to the pipe buffer (64 KiB: 4 ranks 42 us
     * against 69 for reduce + bcast's trees and 107 for cma, 16 ranks 589
     * against 790 and 676; level with cma at 32 and 64 ranks;
     * docs/collectives.md, "Pipelined reduce") */
    { COLL_ALLREDUCE, S(coll_reduce_pipe_min_ranks), NULL, S(coll_allreduce_cma_min_bytes),
      S(coll_reduce_pipe_max_bytes), 7, OVERSUB },
    { COLL_ALLREDUCE, NULL, NULL, S(coll_allreduce_cma_min_bytes),
      S(coll_allreduce_oversub_tree_max_bytes), 2, OVERSUB },
    /* large vectors through the staging buffers, two copies at memory speed
     * rather than one through the kernel page by page (the buffers exist
     * only where ranks do not outnumber cores; docs/collectives.md, "Staging
     * buffers") */
    { COLL_ALLREDUCE, NULL, NULL, S(coll_allreduce_stage_min_bytes), NULL, 8 },
    { COLL_ALLREDUCE, NULL, NULL, S(coll_allreduce_cma_min_bytes), NULL, 5 },
    { COLL_ALLREDUCE, NULL, NULL, NULL, NULL, 4 },
    { COLL_GATHER, NULL, NULL, S(coll_gather_cma_min_bytes), NULL, 5 },
    { COLL_GATHER, NULL, NULL, NULL, NULL, 4 },
    { COLL_SCATTER, NULL, NULL, S(coll_scatter_cma_min_bytes), NULL, 5 },
    { COLL_SCATTER, NULL, NULL, NULL, NULL, 4 },
    { COLL_ALLGATHER, NULL, NULL, S(coll_allgather_stage_min_bytes), NULL, 7 },
    { COLL_ALLGATHER, NULL, NULL, S(coll_allgather_cma_min_bytes), NULL, 5 },
    { COLL_ALLGATHER, NULL, NULL, NULL, NULL, 4 },
    { COLL_ALLTOALL, NULL, NULL, S(coll_alltoall_stage_min_bytes), NULL, 7 },
    { COLL_ALLTOALL, NULL, NULL, S(coll_alltoall_cma_min_bytes), NULL, 5 },
    { COLL_ALLTOALL, NULL, NULL, NULL, NULL, 4 },
    { COLL_ALLTOALLV, NULL, NULL, NULL, NULL, 3 },
    /* oversubscribed: through the slots (in rounds when the blocks need them)
     * wherever that fits, rather than p - 1 cross-memory copies of one block
     * per rank (docs/collectives.md, coll6) */
    { COLL_REDUCE_SCATTER, NULL, NULL, NULL, NULL, 4, OVERSUB },
    { COLL_REDUCE_SCATTER, NULL, NULL, S(coll_reduce_scatter_stage_min_bytes), NULL, 7 },
    { COLL_REDUCE_SCATTER, NULL, NULL, S(coll_reduce_scatter_cma_min_bytes), NULL, 5 },
    { COLL_REDUCE_SCATTER, NULL, NULL, NULL, NULL, 4 },
    { COLL_REDUCE_SCATTER_BLOCK, NULL, NULL, NULL, NULL, 4, OVERSUB },
    { COLL_REDUCE_SCATTER_BLOCK, NULL, NULL, S(coll_reduce_scatter_stage_min_bytes), NULL, 7 },
    { COLL_REDUCE_SCATTER_BLOCK, NULL, NULL, S(coll_reduce_scatter_cma_min_bytes), NULL, 5 },
    { COLL_REDUCE_SCATTER_BLOCK, NULL, NULL, NULL, NULL, 4 },
    { COLL_SCAN, NULL, NULL, NULL, NULL, 2 },
    /* oversubscribed, above a slot: a chain of single copies, each rank waiting
     * once, rather than recursive doubling's log2 p waits (docs/collectives.md) */
    { COLL_SCAN, NULL, NULL, NULL, NULL, 4, OVERSUB },
    { COLL_EXSCAN, NULL, NULL, NULL, NULL, 2 },
    /* Across nodes with several ranks on each node: hierarchical (never on one
     * node, where the rows above come first; coll_hier_usable says when). */
    { COLL_BARRIER, NULL, NULL, NULL, NULL, 4 },
    { COLL_BCAST, NULL, NULL, NULL, NULL, 6 },
    { COLL_REDUCE, NULL, NULL, NULL, NULL, 5 },
    { COLL_ALLREDUCE, NULL, NULL, NULL, NULL, 6 },
    { COLL_GATHER, NULL, NULL, NULL, NULL, 6 },
    { COLL_ALLGATHER, NULL, NULL, NULL, NULL, 6 },
    { COLL_SCATTER, NULL, NULL, NULL, NULL, 6 },
    /* alltoall: the leaders relay every block, worth it for small ones only */
    { COLL_ALLTOALL, NULL, NULL, NULL, S(coll_alltoall_hier_max_bytes), 6 },
    { COLL_REDUCE_SCATTER, NULL, NULL, NULL, NULL, 6 },
    { COLL_REDUCE_SCATTER_BLOCK, NULL, NULL, NULL, NULL, 6 },
    { COLL_SCAN, NULL, NULL, NULL, NULL, 3 },
    { COLL_EXSCAN, NULL, NULL, NULL, NULL, 3 },
    /* the message algorithms (schedules) */
    { COLL_BARRIER, NULL, NULL, NULL, NULL, 1 },
    /* small communicators or small messages: binomial; else scatter + ring allgather */
    { COLL_BCAST, NULL, S(coll_bcast_binomial_max_ranks), NULL, NULL, 1 },
    { COLL_BCAST, NULL, NULL, NULL, S(coll_bcast_binomial_max_bytes), 1 },
    { COLL_BCAST, NULL, NULL, NULL, NULL, 2 },
    { COLL_REDUCE, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLREDUCE, NULL, NULL, NULL, NULL, 1 },
    { COLL_GATHER, NULL, NULL, NULL, S(coll_gather_binomial_max_bytes), 1 },
    { COLL_GATHER, NULL, NULL, NULL, NULL, 2 },
    { COLL_GATHERV, NULL, NULL, NULL, NULL, 1 },
    { COLL_SCATTER, NULL, NULL, NULL, S(coll_scatter_binomial_max_bytes), 1 },
    { COLL_SCATTER, NULL, NULL, NULL, NULL, 2 },
    { COLL_SCATTERV, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLGATHER, NULL, NULL, NULL, S(coll_allgather_bruck_max_bytes), 2 },
    { COLL_ALLGATHER, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLGATHERV, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLTOALL, S(coll_alltoall_bruck_min_ranks), NULL, NULL,
      S(coll_alltoall_bruck_max_bytes), 2 },
    { COLL_ALLTOALL, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLTOALLV, NULL, NULL, NULL, NULL, 1 },
    { COLL_ALLTOALLW, NULL, NULL, NULL, NULL, 1 },
    { COLL_REDUCE_SCATTER, NULL, NULL, S(coll_reduce_scatter_ring_min_bytes), NULL, 2 },
    { COLL_REDUCE_SCATTER, NULL, NULL, NULL, NULL, 1 },
    { COLL_REDUCE_SCATTER_BLOCK, NULL, NULL, S(coll_reduce_scatter_ring_min_bytes), NULL, 2 },
    { COLL_REDUCE_SCATTER_BLOCK, NULL, NULL, NULL, NULL, 1 },
    { COLL_SCAN, NULL, NULL, NULL, NULL, 1 },
    { COLL_EXSCAN, NULL, NULL, NULL, NULL, 1 },
};

/* The forcing setting of each collective (NULL: one algorithm only). */
static const long *const coll_force[COLL_NCOLL] = {
    [COLL_BARRIER] = S(coll_barrier_alg), [COLL_BCAST] = S(coll_bcast_alg),
    [COLL_REDUCE] = S(coll_reduce_alg), [COLL_ALLREDUCE] = S(coll_allreduce_alg),
    [COLL_GATHER] = S(coll_gather_alg), [COLL_SCATTER] = S(coll_scatter_alg),
    [COLL_ALLGATHER] = S(coll_allgather_alg), [COLL_ALLTOALL] = S(coll_alltoall_alg),
    [COLL_REDUCE_SCATTER] = S(coll_reduce_scatter_alg),
    [COLL_REDUCE_SCATTER_BLOCK] = S(coll_reduce_scatter_alg),
    [COLL_SCAN] = S(coll_scan_alg), [COLL_EXSCAN] = S(coll_scan_alg),
};
#undef S

static const coll_alg_t *find_alg(coll_kind_t coll, int id)
{
    for (int i = 0; i < NALGS; i++)
        if (coll_algs[i].coll == coll && coll_algs[i].id == id) return &coll_algs[i];
    return NULL;
}

int coll_forced_alg(coll_kind_t coll)
{
    const long *f = coll_force[coll];
    if (!f || *f <= 0 || *f > INT_MAX || !find_alg(coll, (int)*f)) return 0;
    return (int)*f;
}

/* What kind of call a selection is for: a blocking one that may run a direct
 * algorithm, a schedule only, or a non-blocking or persistent one (schedules,
 * and the shm algorithms with a state machine). */
enum { SEL_SCHED = 0, SEL_DIRECT = 1, SEL_NB = 2 };

/* forced: the algorithm was forced by its setting (the hierarchical ones then
 * take any communicator whose ranks span nodes, not only those whose every
 * node holds COURIER_COLL_HIER_MIN_PPN ranks). */
static int applies(const coll_alg_t *alg, const cr_comm_t *comm, const coll_args_t *a,
                   int mode, int forced)
{
    int direct = mode == SEL_DIRECT;
    if (!(alg->flags & COLL_ALG_INTER) != !comm->remote) return 0;
    if (alg->flags & COLL_ALG_COMMUTATIVE && a->op && !a->op->commute) return 0;
    if (alg->flags & COLL_ALG_HIER)
        return direct && coll_hier_usable((cr_comm_t *)comm, forced) &&
               (!alg->fits || alg->fits(comm, a));
    if (!(alg->flags & COLL_ALG_SHM)) return 1;
    if (mode == SEL_NB)
        return (alg->flags & COLL_ALG_NB) && coll_nbshm_ready(comm) &&
               coll_nbshm_fits(alg->coll, comm, a, alg->fits);
    return direct && coll_shm_usable(comm, !!(alg->flags & COLL_ALG_CMA)) &&
           (!alg->fits || alg->fits(comm, a));
}

static int within(long v, const long *min, const long *max)
{
    return (!min || v >= *min) && (!max || v <= *max);
}

int coll_last_alg[COLL_NCOLL];

/* Each collective's rule rows in table order, with their algorithms looked
 * up, built once: walking the whole table and looking each row's algorithm up
 * among all of them took 440 of the 790 instructions of an 8-byte MPI_Bcast
 * at 2 ranks (callgrind, 25 Nov). */
enum { NRULES = sizeof(coll_rules) / sizeof(coll_rules[0]) };
typedef struct {
    const coll_rule_t *rule;
    const coll_alg_t *alg;
} coll_row_t;
static coll_row_t coll_rows[NRULES];
static int coll_row_first[COLL_NCOLL + 1];
static pthread_once_t coll_rows_once = PTHREAD_ONCE_INIT;
static int coll_rows_ready;   /* set (release) once the rows are built */

static void coll_rows_build(void)
{
    int k = 0;
    for (int c = 0; c < COLL_NCOLL; c++) {
        coll_row_first[c] = k;
        for (int i = 0; i < NRULES; i++)
            if (coll_rules[i].coll == (coll_kind_t)c)
                coll_rows[k++] = (coll_row_t){ &coll_rules[i], find_alg((coll_kind_t)c,
                                                                         coll_rules[i].alg) };
    }
    coll_row_first[COLL_NCOLL] = k;
    __atomic_store_n(&coll_rows_ready, 1, __ATOMIC_RELEASE);
}

static const coll_alg_t *select_alg(coll_kind_t coll, const cr_comm_t *comm,
                                    const coll_args_t *a, int mode)
{
    int direct = mode == SEL_DIRECT;
    if (CR_UNLIKELY(__atomic_load_n(&ut_settings_notice, __ATOMIC_RELAXED))) ut_settings_say();
    int id = coll_forced_alg(coll);
    if (id) {
        const coll_alg_t *alg = find_alg(coll, id);
        if (alg && applies(alg, comm, a, mode, 1)) return alg;
    }
    long bytes = a->bytes > (size_t)LONG_MAX ? LONG_MAX : (long)a->bytes;
    if (CR_UNLIKELY(!__atomic_load_n(&coll_rows_ready, __ATOMIC_ACQUIRE)))
        pthread_once(&coll_rows_once, coll_rows_build);
    for (int i = coll_row_first[coll]; i < coll_row_first[coll + 1]; i++) {
        const coll_rule_t *r = coll_rows[i].rule;
        if (!within(comm->size, r->min_ranks, r->max_ranks) ||
            !within(bytes, r->min_bytes, r->max_bytes))
            continue;
        if (r->oversub && !(direct && cr_proc.oversubscribed && coll_shm_usable(comm, 0)))
            continue;
        const coll_alg_t *alg = coll_rows[i].alg;
        if (alg && applies(alg, comm, a, mode, 0)) return alg;
    }
    /* no row matched: any algorithm of the collective that can run the call */
    for (int i = 0; i < NALGS; i++)
        if (coll_algs[i].coll == coll && applies(&coll_algs[i], comm, a, mode, 0))
            return &coll_algs[i];
    return NULL;
}

/* Remember the choice for the tools interface (coll_last_alg).  Threads
 * select without the library lock (coll.c, coll_call_mt): a relaxed atomic
 * store, the plain store it was on x86 (testing first whether the value
 * changes, to spare threads on distinct communicators the shared line,
 * cost single-threaded calls 4 instructions more: callgrind, 25 Nov). */
static const coll_alg_t *chosen(coll_kind_t coll, const coll_alg_t *alg)
{
    __atomic_store_n(&coll_last_alg[coll], alg ? alg->id : 0, __ATOMIC_RELAXED);
    return alg;
}

/* The memo (coll_shm_t.memo).  A blocking call on a communicator whose
 * shared area exists takes the last choice made for its collective there
 * when nothing that choice read has changed since: the settings
 * (ut_settings_serial: the rows' limits, forcing, COURIER_COLL_SHM), and of
 * the call what the rows and the algorithms' conditions (applies, the fits
 * functions) read: bytes, count, the datatype's size, extent, true extent
 * and contiguity (the layout a slot must hold), whether the op commutes,
 * MPI_IN_PLACE on either side.  Once the area exists the communicator's own
 * state is settled (every rank on this node, so never hierarchical; single
 * copy known), and its size and cr_proc.oversubscribed never change.  The
 * one condition that reads more is reduce_scatter's in rounds (the counts
 * of every rank, oversubscribed only): calls with vectors of counts are not
 * memoized there.  A fits function that comes to read anything else must
 * add it to the key.  Walking the rows took about 190 of the some 700
 * instructions of an 8-byte MPI_Allreduce at 2 ranks outside its waits
 * (callgrind, coll10); a hit takes about 70 (coll_call's share of it). */
enum {
    MEMO_IN_PLACE_S = 1, MEMO_IN_PLACE_R = 2, MEMO_CONTIG = 4, MEMO_OP = 8, MEMO_COMMUTE = 16,
};

static unsigned memo_bits(const coll_args_t *a)
{
    return (a->sbuf == MPI_IN_PLACE ? MEMO_IN_PLACE_S : 0u) |
           (a->rbuf == MPI_IN_PLACE ? MEMO_IN_PLACE_R : 0u) |
           (a->dt && a->dt->contig ? MEMO_CONTIG : 0u) | (a->op ? MEMO_OP : 0u) |
           (a->op && a->op->commute ? MEMO_COMMUTE : 0u);
}

static int memo_same(const coll_memo_t *m, unsigned long serial, const coll_args_t *a,
                     unsigned bits)
{
    const cr_datatype_t *dt = a->dt;
    return m->serial == serial && m->bytes == a->bytes && m->count == a->count &&
           m->bits == bits &&
           (dt ? m->ext == dt->extent && m->text == dt->true_extent && m->size == dt->size
               : m->size == 0 && m->ext == 0 && m->text == 0);
}

const coll_alg_t *coll_select(coll_kind_t coll, const cr_comm_t *comm, const coll_args_t *a)
{
    coll_shm_t *sh = comm->coll_shm;
    if (!sh || sh->state != CSHM_OK || comm->remote ||
        (cr_proc.oversubscribed && (a->rcounts.p || a->scounts.p)))
        return chosen(coll, select_alg(coll, comm, a, SEL_DIRECT));
    coll_memo_t *m = &sh->memo[coll];
    unsigned long serial = __atomic_load_n(&ut_settings_serial, __ATOMIC_RELAXED);
    unsigned bits = memo_bits(a);
    if (CR_LIKELY(memo_same(m, serial, a, bits))) return chosen(coll, m->alg);
    const coll_alg_t *alg = select_alg(coll, comm, a, SEL_DIRECT);
    const cr_datatype_t *dt = a->dt;
    *m = (coll_memo_t){ serial, a->bytes, a->count, dt ? dt->extent : 0, dt ? dt->true_extent : 0,
                        dt ? (MPI_Aint)dt->size : 0, bits, alg };
    return chosen(coll, alg);
}

const coll_alg_t *coll_select_sched(coll_kind_t coll, const cr_comm_t *comm,
                                    const coll_args_t *a)
{
    return chosen(coll, select_alg(coll, comm, a, SEL_SCHED));
}

const coll_alg_t *coll_select_nb(coll_kind_t coll, const cr_comm_t *comm, const coll_args_t *a)
{
    return chosen(coll, select_alg(coll, comm, a, SEL_NB));
}
