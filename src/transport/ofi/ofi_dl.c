/* SPDX-License-Identifier: MIT */
/* libfabric, loaded when the network transport first needs it.
 *
 * The provider interface is reached through function pointers in libfabric's
 * objects (fi_send, fi_read, ... are inline wrappers), so the library itself
 * exports only a handful of functions, and those are defined here: each loads
 * libfabric.so.1 with dlopen on first use and calls the real one, found by its
 * symbol version.  libmpi therefore does not depend on libfabric: a job on one
 * node never loads it, nor the verbs, PSM and EFA libraries it pulls in (whose
 * constructors install signal handlers and allocate memory at program start,
 * before anything of ours runs), and a machine without libfabric runs Courier
 * on one node.  These definitions are hidden in libmpi, so a program that
 * links libfabric itself keeps its own. */
#ifdef COURIER_HAVE_OFI
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dlvsym */
#endif
#include <dlfcn.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <stddef.h>

static void *lib;
static int tried;
static int (*p_getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                        struct fi_info **);
static void (*p_freeinfo)(struct fi_info *);
static struct fi_info *(*p_dupinfo)(const struct fi_info *);
static int (*p_fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
static const char *(*p_strerror)(int);
static uint32_t (*p_version)(void);

/* Load libfabric once; 0 when every function was found. */
static int ofi_dl_load(void)
{
    if (tried) return lib ? 0 : -1;
    tried = 1;
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return -1;
    p_getinfo = (int (*)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                         struct fi_info **))dlvsym(h, "fi_getinfo", "FABRIC_1.3");
    p_freeinfo = (void (*)(struct fi_info *))dlvsym(h, "fi_freeinfo", "FABRIC_1.3");
    p_dupinfo = (struct fi_info * (*)(const struct fi_info *))dlvsym(h, "fi_dupinfo", "FABRIC_1.3");
    p_fabric = (int (*)(struct fi_fabric_attr *, struct fid_fabric **, void *))dlvsym(
        h, "fi_fabric", "FABRIC_1.1");
    p_strerror = (const char *(*)(int))dlvsym(h, "fi_strerror", "FABRIC_1.0");
    p_version = (uint32_t(*)(void))dlvsym(h, "fi_version", "FABRIC_1.0");
    if (!p_getinfo || !p_freeinfo || !p_dupinfo || !p_fabric || !p_strerror || !p_version) {
        dlclose(h);
        return -1;
    }
    lib = h;
    return 0;
}

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
               const struct fi_info *hints, struct fi_info **info)
{
    if (ofi_dl_load()) return -FI_ENOSYS;
    return p_getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info *info)
{
    if (!ofi_dl_load()) p_freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    return ofi_dl_load() ? NULL : p_dupinfo(info);
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    if (ofi_dl_load()) return -FI_ENOSYS;
    return p_fabric(attr, fabric, context);
}

const char *fi_strerror(int errnum)
{
    return ofi_dl_load() ? "libfabric.so.1 cannot be loaded" : p_strerror(errnum);
}

uint32_t fi_version(void)
{
    return ofi_dl_load() ? 0 : p_version();
}
#endif
