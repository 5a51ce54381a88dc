/* SPDX-License-Identifier: MIT */
/* The core's interface to the binding layer for dynamic processes (MPI 4.0
 * chapter 11, src/core/dynamic.c and src/core/dyn_names.c): spawning, ports,
 * accept / connect / join, disconnect and the name service.  Conventions as in
 * src/core/api.h.  Every call that builds an intercommunicator reaches the
 * remote processes through the network transport (ofi), started in this
 * process on first use when the job did not need it; docs/dynamic.md says
 * what works and where. */
#ifndef COURIER_CORE_API_DYN_H
#define COURIER_CORE_API_DYN_H
#include "core/core.h"
#include "core/info.h"

/* Collective over comm.  The launcher (Courier's mpiexec) starts maxprocs
 * copies of command with argv as a job of its own; *intercomm has comm's group
 * as local group and the children's MPI_COMM_WORLD as remote group.  Info
 * keys (root's only): host or add-host, hostfile or add-hostfile, wdir,
 * path; soft is ignored.  Without hosts the launcher places the children on
 * the job's host list.  Either every process starts, or none: MPI_ERR_SPAWN
 * (the launcher cannot spawn, a program is missing or not executable, a host
 * cannot be reached, the new processes end without connecting), *intercomm
 * MPI_COMM_NULL, and array_of_errcodes
 * (MPI_ERRCODES_IGNORE allowed) MPI_ERR_SPAWN for every process, at every
 * rank; else MPI_SUCCESS in each. */
int core_comm_spawn(const char *command, char *argv[], int maxprocs, cr_info_t *info, int root,
                    cr_comm_t *comm, MPI_Comm *intercomm, int array_of_errcodes[]);
/* The same with count commands started as one job (MPI_APPNUM 0..count-1). */
int core_comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, cr_comm_t *comm, MPI_Comm *intercomm,
                             int array_of_errcodes[]);
/* The intercommunicator to the parents of a spawned process, MPI_COMM_NULL
 * in a process that was not spawned (or after it disconnected). */
int core_comm_get_parent(MPI_Comm *parent);
/* A port name (at most MPI_MAX_PORT_NAME bytes with the NUL) that
 * MPI_Comm_accept listens on until MPI_Close_port. */
int core_open_port(cr_info_t *info, char *port_name);
int core_close_port(const char *port_name);
/* Collective over comm; port_name, info are significant at root only.
 * accept waits for one connect on the port (COURIER_DYN_ACCEPT_TIMEOUT_MS:
 * MPI_ERR_PORT after it), connect reaches an accept (MPI_ERR_PORT when no
 * accept on the port answers within the info key "timeout", in seconds, or
 * else COURIER_DYN_CONNECT_TIMEOUT_MS). */
int core_comm_accept(const char *port_name, cr_info_t *info, int root, cr_comm_t *comm,
                     MPI_Comm *newcomm);
int core_comm_connect(const char *port_name, cr_info_t *info, int root, cr_comm_t *comm,
                      MPI_Comm *newcomm);
/* Waits until every pending operation on comm completed (a barrier over the
 * intercommunicator), then frees it; *comm becomes MPI_COMM_NULL. */
int core_comm_disconnect(MPI_Comm *comm);
/* An intercommunicator of this process and the one at the other end of the
 * connected stream socket fd (which stays open). */
int core_comm_join(int fd, MPI_Comm *intercomm);
/* The name service (dyn_names.c): Courier's mpiexec serves it; with
 * COURIER_DYN_NAME_DIR set, or under a launcher without one, a directory of
 * files, one per service.  Publish fails with MPI_ERR_SERVICE when the name
 * is taken, lookup with MPI_ERR_NAME when it is not published, unpublish with
 * MPI_ERR_SERVICE when it is not published by this port; MPI_ERR_OTHER when
 * mpiexec's name server cannot be reached. */
int core_publish_name(const char *service_name, cr_info_t *info, const char *port_name);
int core_unpublish_name(const char *service_name, cr_info_t *info, const char *port_name);
int core_lookup_name(const char *service_name, cr_info_t *info, char *port_name);
#endif
