/* SPDX-License-Identifier: MIT */
/* Where ranks run: the host list (-hosts, host files, a Slurm allocation),
 * which rank goes to which host (as Hydra spreads them), and, on each host,
 * which CPUs each rank is bound to (hwloc's view of the machine).  mpiexec,
 * courier_proxy and `courier_info --topology` all place ranks through these
 * functions, so what courier_info prints is what a job gets. */
#ifndef COURIER_LAUNCHER_PLACE_H
#define COURIER_LAUNCHER_PLACE_H
#include <sched.h>
#include <stddef.h>
#include <stdio.h>

/* ---- hosts ------------------------------------------------------------------ */

typedef struct {
    char *name;
    int slots;          /* processes per block (Hydra's host:n, default 1) */
} la_host_t;

typedef struct {
    la_host_t *h;
    int n, cap;
} la_hostlist_t;

/* Add "h1,h2:2,..." (a host named twice keeps its first place, slots add up).
 * Returns 0, or -1 with a message in err. */
int la_hosts_parse_list(la_hostlist_t *hl, const char *list, char *err, size_t errlen);
/* Add the hosts of a host file: one "host[:n]" per line (Hydra's), or
 * "host slots=n" (Open MPI's), '#' comments. */
int la_hosts_parse_file(la_hostlist_t *hl, const char *path, char *err, size_t errlen);
/* Add the hosts of the Slurm allocation we run in (SLURM_JOB_NODELIST with
 * SLURM_TASKS_PER_NODE for the slots).  Returns 0, or -1 with a message. */
int la_hosts_from_slurm(la_hostlist_t *hl, char *err, size_t errlen);
/* Expand a Slurm node list ("n[01-03,7],gpu1") into names, calling add for
 * each.  Returns 0, or -1 when the list is malformed. */
int la_hosts_expand_nodelist(const char *list, void (*add)(void *arg, const char *name), void *arg);
int la_hosts_total_slots(const la_hostlist_t *hl);
void la_hosts_free(la_hostlist_t *hl);

/* host_of[r] for ranks 0..n-1.  By default as Hydra: each host in turn takes a
 * block of consecutive ranks (its slots, or ppn when ppn > 0), round and
 * round; by_node: one rank per host in turn (Open MPI's --map-by node). */
void la_hosts_map(const la_hostlist_t *hl, int n, int ppn, int by_node, int *host_of);

/* ---- placement options ---------------------------------------------------------- */

typedef enum {
    LA_LVL_UNSET = 0, LA_LVL_NONE, LA_LVL_HWTHREAD, LA_LVL_CORE, LA_LVL_NUMA,
    LA_LVL_SOCKET, LA_LVL_NODE, LA_LVL_SLOT
} la_level_t;

typedef struct {
    la_level_t bind;    /* -bind-to: NONE, HWTHREAD, CORE, NUMA or SOCKET */
    la_level_t map;     /* -map-by: how ranks are spread over a host's objects */
    int pe;             /* cores (hwthreads with -bind-to hwthread) per rank; 0 unset */
    int pe_from_omp;    /* pe came from OMP_NUM_THREADS */
    int ppn;            /* ranks per host (-ppn, ppr:N:node); 0 unset */
    int by_node;        /* -map-by node: ranks round-robin over hosts */
    int report;         /* --report-bindings */
    int progress;       /* the ranks run a progress thread (COURIER_ASYNC_PROGRESS):
                           bind it apart from their compute threads (la_topo_place) */
} la_place_t;

/* Parse a -bind-to value (none, hwthread, core, socket, numa, and Hydra's
 * core:N / hwthread:N for N per rank) or a -map-by value (core, hwthread,
 * socket, numa, node, slot, ppr:N:node, each with Open MPI's :PE=n).
 * Return 0, or -1 with a message in err. */
int la_place_parse_bind(la_place_t *o, const char *s, char *err, size_t errlen);
int la_place_parse_map(la_place_t *o, const char *s, char *err, size_t errlen);
/* Fill in the defaults once every option is read: a map level, and no
 * binding unless asked for (-bind-to, or a PE count, which binds to cores).
 * OpenMP-aware: when binding and no PE count was given, omp_num_threads (the
 * ranks' OMP_NUM_THREADS, may be NULL) sets it. */
void la_place_finish(la_place_t *o, const char *omp_num_threads);
const char *la_level_name(la_level_t l);
/* Whether the ranks run a progress thread, from the values their environment
 * gives COURIER_ASYNC_PROGRESS and MPICH's MPIR_CVAR_ASYNC_PROGRESS (either
 * may be NULL; the first wins), as the library reads them. */
int la_place_progress(const char *courier, const char *mpich);

/* ---- this machine ------------------------------------------------------------------ */

typedef struct la_topo la_topo_t;

typedef struct {
    int bound;          /* 0: the rank is not bound */
    cpu_set_t cpus;     /* its CPUs (OS numbers) */
    char *omp_places;   /* its cores or hwthreads as OMP_PLACES ("{0,4},{1,5}"), malloc'ed */
    int progress;       /* its progress thread's CPUs: LA_PROGRESS_* */
    cpu_set_t progress_cpus;
} la_binding_t;
/* Where a bound rank's progress thread goes (la_place_t.progress): a core (or
 * hwthread, with -bind-to hwthread) of its own beside the rank's when the
 * host has one spare per rank; else, where cores have several hwthreads, the
 * last hwthread of the rank's last core, which its compute threads then do
 * not get; else it shares the rank's CPUs. */
enum { LA_PROGRESS_NONE = 0, LA_PROGRESS_CORE, LA_PROGRESS_HWTHREAD, LA_PROGRESS_SHARED };

/* hwloc's topology of this machine restricted to the CPUs this process may
 * use (its affinity), or a synthetic one when HWLOC_SYNTHETIC or
 * HWLOC_XMLFILE says so.  NULL with a message in err on failure. */
la_topo_t *la_topo_load(char *err, size_t errlen);
void la_topo_free(la_topo_t *t);
/* Bindings of the nlocal ranks of one host (out[0..nlocal-1]).  Returns 1
 * when they are bound; 0 when not: -bind-to none, or too few cores for the
 * ranks (then why says so, and no rank is bound rather than several sharing
 * a core).  With o->progress each binding also says where the rank's
 * progress thread goes (LA_PROGRESS_*); cpus are then its compute CPUs. */
int la_topo_place(la_topo_t *t, const la_place_t *o, int nlocal, la_binding_t *out,
                  char *why, size_t whylen);
void la_binding_free(la_binding_t *b, int n);
/* Open MPI's description of a binding: "socket 0[core 1[hwt 0]]: [./B]". */
void la_topo_describe(la_topo_t *t, const cpu_set_t *cpus, char *buf, size_t len);
/* The line --report-bindings prints for a rank (no newline); with a progress
 * thread, its CPUs follow ("; progress thread bound to ..."). */
void la_binding_report(la_topo_t *t, const la_binding_t *b, const char *host, int pid, int rank,
                       char *buf, size_t len);
/* "0-3,8": the CPUs of a set as a list. */
void la_cpus_format(const cpu_set_t *cpus, char *buf, size_t len);
/* The machine as hwloc sees it: packages, NUMA nodes, cores, hwthreads. */
void la_topo_print(la_topo_t *t, FILE *f);
/* hwloc's version, for mpiexec -info. */
const char *la_topo_lib_version(char *buf, size_t len);
#endif
