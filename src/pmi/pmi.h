/* SPDX-License-Identifier: MIT */
/* Courier's client of the process manager: rank, size, a key-value space
 * shared by the job, a barrier, abort.  One interface over three protocols,
 * chosen at run time from the environment (setting COURIER_PMI overrides):
 *   PMIx       PMIX_RANK and PMIX_NAMESPACE set, no PMI_FD/PMI_PORT
 *              (srun --mpi=pmix, Open MPI's prterun): libpmix.so.2 is
 *              loaded with dlopen, so Courier does not depend on it
 *   PMI-2      PMI_FD and PMI_JOBID set (srun --mpi=pmi2) and the launcher
 *              accepts version 2 in its reply to init
 *   PMI-1      PMI_FD set otherwise (Courier's mpiexec, Hydra), or PMI_PORT +
 *              PMI_ID (Hydra's -pmi-port)
 *   singleton  none of these: rank 0 of 1, every call below works locally.
 * All functions return 0 on success and -1 on failure (message on stderr),
 * except where stated. */
#ifndef COURIER_PMI_H
#define COURIER_PMI_H
#include <stddef.h>

typedef struct {
    int rank;          /* this process's rank in the job */
    int size;          /* number of processes in the job */
    int appnum;        /* MPI_APPNUM (0 where the launcher does not say: Slurm) */
    int universe_size; /* MPI_UNIVERSE_SIZE as the launcher states it, else size */
    int universe_stated; /* 1 when the launcher stated it (MPI_UNIVERSE_SIZE is set) */
    int singleton;     /* 1 when no launcher was found */
    const char *flavour;  /* "PMI-1", "PMI-2", "PMIx" or "singleton" */
    char kvsname[256]; /* the job's name (key-value space, namespace) */
    int max_key, max_val; /* longest key and value, in bytes, with the NUL */
} crpmi_info_t;

int crpmi_init(crpmi_info_t *info);
/* Publish key=value in the job's KVS; visible to others after crpmi_barrier().
 * Keys and values are printable text without white space or ';'.  A value
 * longer than the launcher takes (max_val: 1024 bytes under PMI-2) is stored
 * in parts, under key (which then holds "%parts:N") and key:0 .. key:N-1;
 * crpmi_get() joins them, so callers see one value of any length.  Values
 * of callers must not start with "%parts:". */
int crpmi_put(const char *key, const char *value);
/* Look up a key that rank `rank` published before the last barrier (PMIx
 * keeps keys per rank; the PMI wire protocols have one space for the job and
 * only use it to find the key).  The value is copied into val (len bytes,
 * NUL-terminated).  A key that was not published gives -1 without a message
 * (callers may probe). */
int crpmi_get(int rank, const char *key, char *val, int len);
/* Collective over all ranks of the job; also commits puts. */
int crpmi_barrier(void);
/* Ask the launcher to end the whole job with the given exit code; does not
 * return (falls back to _exit(code) when the launcher does not act).  msg
 * reaches stderr once: through Courier's mpiexec, which prints it with the
 * rank and host, or printed here as "[courier] msg" under other launchers. */
void crpmi_abort(int code, const char *msg) __attribute__((noreturn));
int crpmi_finalize(void);
/* The ranks of the job on this node as the process manager knows them
 * (PMIx's local peers, PMI's PMI_process_mapping), in increasing order:
 * a malloc'ed array in *ranks (the caller frees it), its length in *n.
 * Returns -1 without a message where the process manager does not say. */
int crpmi_local_ranks(int **ranks, int *n);
/* Whether the process manager is still there: 0 while it is; -1 with the
 * reason in why (len bytes) when its connection was lost or it reported a
 * dead rank.  Cheap (one poll() with timeout 0, or a flag) and never blocks;
 * 0 for a singleton and after crpmi_finalize(). */
int crpmi_check(char *why, size_t len);
/* Ask the launcher to start a new job (dynamic processes, MPI_Comm_spawn):
 * args[0..nargs) is the argument list a launcher command line would take
 * (Courier's mpiexec options, then programs and arguments, ":" between
 * programs); env[0..nenv) are "NAME=VALUE" settings the new processes get
 * on top of the launcher's environment.  0 once the launcher started the new
 * job's launcher; -1 with the reason in why (len bytes), and no message,
 * where the launcher cannot spawn (only Courier's mpiexec can) or refused. */
int crpmi_spawn(char *const *args, int nargs, char *const *env, int nenv, char *why, size_t len);
/* Whether the job of the last successful crpmi_spawn has ended (all its
 * processes are gone): 1 ended, 0 still running, -1 where the launcher cannot
 * say.  A spawning root that still waits for the new processes asks it. */
int crpmi_spawn_ended(void);
/* The launcher's name service (MPI_Publish_name and friends; Courier's
 * mpiexec serves one): op 'p' publishes service with port, 'l' looks service
 * up (the port into port, plen bytes), 'u' unpublishes service published
 * with port.  0 done; 1 refused (taken, not published, another port) and 2
 * failed (the launcher's name server cannot be reached), both with the
 * reason in why (wlen bytes); -1, no message, where the launcher has no name
 * service. */
int crpmi_name(int op, const char *service, char *port, size_t plen, char *why, size_t wlen);
#endif
