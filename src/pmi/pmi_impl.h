/* SPDX-License-Identifier: MIT */
/* Inside src/pmi: the table of operations each process-manager client fills
 * (pmi_wire.c: the PMI-1 and PMI-2 wire protocols; pmix.c: PMIx through a
 * dlopen'ed libpmix) and the helpers they share with the front end (pmi.c).
 * Nothing outside src/pmi includes this header. */
#ifndef COURIER_PMI_IMPL_H
#define COURIER_PMI_IMPL_H
#include "pmi/pmi.h"

#include <stddef.h>

/* One client.  The front end (pmi.c) checks arguments and state before it
 * calls these, so every pointer is valid and init has succeeded.  Each
 * function returns 0 or -1 (after printing why through crpmi_err). */
typedef struct {
    /* Publish key=value; visible to the other ranks after fence. */
    int (*put)(const char *key, const char *value);
    /* Look up a key that rank published before the last fence.  Returns 1
     * (no message) when it did not. */
    int (*get)(int rank, const char *key, char *val, int len);
    /* Commit this rank's puts and wait for every rank (data collected). */
    int (*fence)(void);
    /* Ask the process manager to end the job.  May return when it cannot
     * (the front end then leaves by itself). */
    void (*abort)(int code, const char *msg);
    /* Tell the process manager this rank is done; close the connection. */
    int (*finalize)(void);
    /* The job's ranks on this node, as the process manager knows them:
     * a malloc'ed array in *ranks, its length in *n.  -1 when not known. */
    int (*local_ranks)(int **ranks, int *n);
    /* 0 while the process manager is reachable and has reported no dead
     * rank; otherwise -1 with the reason in why (len bytes).  Never blocks. */
    int (*check)(char *why, size_t len);
    /* Start a new job (crpmi_spawn): args and env are NUL-separated lists of
     * alen and elen bytes.  0, or -1 with the reason in why and no message.
     * NULL where the process manager has no spawn the client can use. */
    int (*spawn)(const char *args, size_t alen, const char *env, size_t elen, char *why,
                 size_t wlen);
    /* Has the job of the last successful spawn ended?  1 yes, 0 no, -1 not
     * known.  NULL where the process manager cannot say. */
    int (*spawn_ended)(void);
    /* The launcher's name service (crpmi_name), same contract; NULL where
     * the process manager has none the client can use. */
    int (*name)(int op, const char *service, char *port, size_t plen, char *why, size_t wlen);
} crpmi_ops_t;

/* The wire protocols (pmi_wire.c).  version: 0 automatic (ask for PMI-2 over
 * PMI_FD when PMI_JOBID is set, as srun --mpi=pmi2 does, and take what the
 * launcher answers; else PMI-1), 1 or 2 insist on one.
 * Fills info (rank, size, appnum, universe_size, kvsname, max_key, max_val,
 * flavour); returns the table, or NULL after a message. */
const crpmi_ops_t *crpmi_wire_init(crpmi_info_t *info, int version);
/* PMIx (pmix.c): loads libpmix, connects to the local PMIx server named by
 * the PMIX_* environment.  Same contract as crpmi_wire_init. */
const crpmi_ops_t *crpmi_pmix_init(crpmi_info_t *info);

/* Print "courier: [rank R] PMI: <message>" on stderr. */
void crpmi_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The rank this process has in the job, for messages (-1 before init). */
extern int crpmi_my_rank;
/* Parse a PMI_process_mapping value ("(vector,(0,2,2),(2,1,1))": blocks of
 * (first node, nodes, ranks per node)) and return the ranks that share a node
 * with `rank` among `size`: a malloc'ed array in *ranks, its length in *n.
 * -1 when the value does not parse or does not cover rank. */
int crpmi_parse_mapping(const char *map, int rank, int size, int **ranks, int *n);
#endif
