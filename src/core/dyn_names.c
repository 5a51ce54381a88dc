/* SPDX-License-Identifier: MIT */
/* The name service of dynamic processes (MPI_Publish_name, MPI_Lookup_name,
 * MPI_Unpublish_name).  Under Courier's mpiexec the launcher serves the names
 * (launcher/names.c: the job, the jobs it spawns, and separately started jobs
 * that share its name server).  With COURIER_DYN_NAME_DIR set, or where the
 * launcher has no name service, a directory serves them (that setting, else
 * /tmp/courier-names-<uid>, mode 0700) holding one file per published
 * service, named by the service name in hex and holding the port name: every
 * Courier process of the same user that sees the directory shares them. */
#define _GNU_SOURCE
#include "core/api_dyn.h"
#include "pmi/pmi.h"
#include "util/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Ask the launcher's name service, unless COURIER_DYN_NAME_DIR asks for the
 * directory: MPI_SUCCESS, an MPI error after a message (refused: class
 * refused_class), or -1 to use the directory. */
static int by_launcher(const char *fname, int op, const char *service, char *port, size_t plen,
                       int refused_class)
{
    const char *dir = (const char *)(intptr_t)ut_settings.dyn_name_dir;
    if (dir && *dir) return -1;
    if (!*service) return cr_error(MPI_ERR_ARG, "%s: service_name is empty", fname);
    char why[600] = "";
    int rc = crpmi_name(op, service, port, plen, why, sizeof why);
    if (rc < 0) return -1;
    if (rc == 0) return MPI_SUCCESS;
    if (rc == 1) return cr_error(refused_class, "%s: %s", fname, why);
    return cr_error(MPI_ERR_OTHER, "%s: mpiexec's name service: %s", fname, why);
}

/* The file of a service: 0, or an MPI error after a message. */
static int service_path(const char *fname, const char *service, char *path, size_t len)
{
    const char *dir = (const char *)(intptr_t)ut_settings.dyn_name_dir;
    char def[64];
    if (!dir || !*dir) {
        snprintf(def, sizeof def, "/tmp/courier-names-%u", (unsigned)getuid());
        dir = def;
    }
    if (!*service)
        return cr_error(MPI_ERR_ARG, "%s: service_name is empty", fname);
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return cr_error(MPI_ERR_OTHER, "%s: cannot create the name directory %s: %s", fname, dir,
                        strerror(errno));
    size_t n = (size_t)snprintf(path, len, "%s/", dir);
    for (const unsigned char *s = (const unsigned char *)service; *s && n + 3 < len; s++)
        n += (size_t)snprintf(path + n, len - n, "%02x", *s);
    if (n + 3 >= len)
        return cr_error(MPI_ERR_ARG, "%s: service_name \"%.100s...\" is too long", fname, service);
    return MPI_SUCCESS;
}

/* The port published for a service into port (MPI_MAX_PORT_NAME bytes): 0, or -1. */
static int service_read(const char *path, char *port)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t k = read(fd, port, MPI_MAX_PORT_NAME - 1);
    close(fd);
    if (k <= 0) return -1;
    port[k] = '\0';
    return 0;
}

int core_publish_name(const char *service_name, cr_info_t *info, const char *port_name)
{
    (void)info;
    char path[4096], port[MPI_MAX_PORT_NAME];
    snprintf(port, sizeof port, "%s", port_name);
    int lrc = by_launcher("MPI_Publish_name", 'p', service_name, port, sizeof port, MPI_ERR_SERVICE);
    if (lrc >= 0) return lrc;
    int err = service_path("MPI_Publish_name", service_name, path, sizeof path);
    if (err) return err;
    /* written under a temporary name and linked: a reader never sees half a port */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    size_t len = strlen(port_name);
    if (fd < 0 || write(fd, port_name, len) != (ssize_t)len) {
        int e = errno;
        if (fd >= 0) close(fd);
        unlink(tmp);
        return cr_error(MPI_ERR_OTHER, "MPI_Publish_name: cannot write %s: %s", tmp, strerror(e));
    }
    close(fd);
    int rc = link(tmp, path), e = errno;
    unlink(tmp);
    if (rc < 0 && e == EEXIST)
        return cr_error(MPI_ERR_SERVICE, "MPI_Publish_name: service_name=\"%.200s\" is already "
                        "published", service_name);
    if (rc < 0)
        return cr_error(MPI_ERR_OTHER, "MPI_Publish_name: cannot create %s: %s", path, strerror(e));
    return MPI_SUCCESS;
}

int core_unpublish_name(const char *service_name, cr_info_t *info, const char *port_name)
{
    (void)info;
    char path[4096], port[MPI_MAX_PORT_NAME];
    snprintf(port, sizeof port, "%s", port_name);
    int lrc = by_launcher("MPI_Unpublish_name", 'u', service_name, port, sizeof port, MPI_ERR_SERVICE);
    if (lrc >= 0) return lrc;
    int err = service_path("MPI_Unpublish_name", service_name, path, sizeof path);
    if (err) return err;
    if (service_read(path, port) != 0)
        return cr_error(MPI_ERR_SERVICE, "MPI_Unpublish_name: service_name=\"%.200s\" is not "
                        "published", service_name);
    if (strcmp(port, port_name))
        return cr_error(MPI_ERR_SERVICE, "MPI_Unpublish_name: service_name=\"%.200s\" is "
                        "published with another port than port_name=\"%.200s\"", service_name,
                        port_name);
    unlink(path);
    return MPI_SUCCESS;
}

int core_lookup_name(const char *service_name, cr_info_t *info, char *port_name)
{
    (void)info;
    char path[4096];
    int lrc = by_launcher("MPI_Lookup_name", 'l', service_name, port_name, MPI_MAX_PORT_NAME,
                          MPI_ERR_NAME);
    if (lrc >= 0) return lrc;
    int err = service_path("MPI_Lookup_name", service_name, path, sizeof path);
    if (err) return err;
    if (service_read(path, port_name) != 0)
        return cr_error(MPI_ERR_NAME, "MPI_Lookup_name: service_name=\"%.200s\" is not "
                        "published", service_name);
    return MPI_SUCCESS;
}
