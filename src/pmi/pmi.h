/* SPDX-License-Identifier: MIT */
/* Client of the PMI-1 wire protocol (the protocol MPICH's Hydra speaks and
 * Courier's own mpiexec serves).  The launcher passes PMI_FD (an inherited
 * socket) or PMI_PORT (host:port to connect to) plus PMI_RANK, PMI_SIZE, and
 * for PMI_PORT also PMI_ID.  Without any of these the process is a singleton:
 * rank 0 of 1, and every call below works locally.
 * All functions return 0 on success and -1 on failure (message on stderr). */
#ifndef COURIER_PMI_H
#define COURIER_PMI_H

typedef struct {
    int rank;          /* this process's rank in the job */
    int size;          /* number of processes in the job */
    int appnum;        /* MPI_APPNUM */
    int singleton;     /* 1 when no launcher was found */
    char kvsname[256]; /* the job's key-value space */
    int max_key, max_val;
} crpmi_info_t;

int crpmi_init(crpmi_info_t *info);
/* Publish key=value in the job's KVS; visible to others after crpmi_barrier(). */
int crpmi_put(const char *key, const char *value);
/* Look up a key published by any rank before the last barrier.  The value is
 * copied into val (len bytes, NUL-terminated). */
int crpmi_get(const char *key, char *val, int len);
/* Collective over all ranks of the job; also commits puts. */
int crpmi_barrier(void);
/* Ask the launcher to end the whole job with the given exit code; does not return
 * when a launcher is present (falls back to _exit(code)). */
void crpmi_abort(int code, const char *msg);
int crpmi_finalize(void);
#endif
