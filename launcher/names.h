/* SPDX-License-Identifier: MIT */
/* The name service that mpiexec serves to its ranks (MPI_Publish_name,
 * MPI_Lookup_name, MPI_Unpublish_name; docs/dynamic.md).
 *
 * One mpiexec holds the table of service names and their ports: the server.
 * Every other mpiexec that shares it is a client and forwards each request
 * over TCP, one short connection per request, proving that it knows the
 * server's secret (which travels in environment variables and a mode-0600
 * file, never on a command line).  Who is which:
 *   - COURIER_NAMESERVER set ("<addresses> <port> <secret>"): a client of it
 *     (spawned jobs get their parent's this way);
 *   - else COURIER_NAMESERVER_FILE names a file: a client of the server whose
 *     address it holds, when that server answers; else the server, which
 *     writes its address there (and removes the file when it ends);
 *   - else the server of its own job (and of the jobs it spawns).
 * The server listens only once someone else may need it (the file, or a
 * spawn).  Requests of the ranks are answered at once by a server; a client
 * waits for its server's answer (at most COURIER_NAMESERVER_TIMEOUT_MS). */
#ifndef COURIER_LAUNCHER_NAMES_H
#define COURIER_LAUNCHER_NAMES_H
#include <stddef.h>
#include "common.h"

typedef struct la_names la_names_t;

/* Answers of la_names_request. */
enum { LA_NAME_OK = 0, LA_NAME_REFUSED = 1, LA_NAME_FAILED = 2 };
/* Longest service name and port, with the NUL. */
#define LA_NAME_MAX 1024

/* Decide from the settings what this mpiexec is (see above); iface as
 * mpiexec's -iface (NULL: every interface).  Never NULL; a file that cannot
 * be written or read is reported with la_warn and the job serves itself. */
la_names_t *la_names_open(const char *iface);
/* op 'p' publish service -> port, 'l' look service up (port out, plen
 * bytes), 'u' unpublish service published with port.  LA_NAME_OK;
 * LA_NAME_REFUSED (taken, not published, another port) or LA_NAME_FAILED
 * (the server cannot be reached) with the reason in why. */
int la_names_request(la_names_t *ns, int op, const char *service, char *port, size_t plen,
                     char *why, size_t wlen);
/* The address a spawned job's mpiexec gets in COURIER_NAMESERVER (the
 * server starts listening if it did not); NULL when it cannot listen. */
const char *la_names_address(la_names_t *ns);
/* Add the listening socket and open connections to the round's poll set. */
void la_names_poll(la_names_t *ns, la_poll_t *p);
/* Stop serving; remove the address file this mpiexec wrote. */
void la_names_close(la_names_t *ns);
#endif
