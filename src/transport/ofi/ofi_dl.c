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
 * links libfabric itself keeps its own.
 *
 * libfabric 1.17 starts every provider built into it at its first call,
 * whatever FI_PROVIDER says (the filter applies after each provider's init
 * ran), and the verbs provider's init reads /proc/kallsyms twice, 5 MB of
 * text the kernel formats on every read, looking for GPU peer-memory and
 * dma-buf symbols: 0.3-0.7 s of CPU in every process of a multi-node job,
 * for memory registrations of GPU buffers that Courier never asks libfabric
 * for.  Unless COURIER_OFI_KALLSYMS=1, the loaded library's fopen (its
 * procedure linkage table slot, nothing else in the process) is pointed at
 * ofi_fopen, for which that one file does not exist.
 *
 * Debian's libfabric.so.1 also links libpsm2.so.2 and libpsm_infinipath.so.1
 * (its psm2 and psm providers; the latter pulls in libinfinipath.so.4), and
 * libpsm2 and libinfinipath each calibrate the CPU's clock in an ELF
 * constructor when loaded: the loading thread is pinned to CPU 0 and sleeps
 * 125 us at a time until 100 ms have passed, so dlopen takes 0.2 s of wall
 * time in every process of a multi-node job, which no setting of theirs
 * avoids.  Where no device for them exists (no /dev/hfi?_*, no /dev/ipath*)
 * and unless COURIER_OFI_PSM_LIBS=1, stand-ins with the same sonames
 * (standin/psm_standin.c: functions that report no device, no constructor;
 * installed in courier/ beside libmpi) are loaded first, and the dynamic
 * loader takes them for libfabric's dependencies: the providers find no
 * device, as they would with the real libraries there.  If libfabric does not
 * load with them (one that needs a function they lack), they are unloaded
 * and libfabric loads with the real ones.  A real one already in the process
 * (a program that links it) is left in place. */
#ifdef COURIER_HAVE_OFI
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dlvsym */
#endif
#include "transport/ofi/ofi.h"
#include "util/settings.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <link.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *lib;
static int tried;
static int (*p_getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                        struct fi_info **);
static void (*p_freeinfo)(struct fi_info *);
static struct fi_info *(*p_dupinfo)(const struct fi_info *);
static int (*p_fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
static const char *(*p_strerror)(int);
static uint32_t (*p_version)(void);

/* What libfabric's fopen does instead (see the top of the file). */
static FILE *ofi_fopen(const char *path, const char *mode)
{
    if (path && strcmp(path, "/proc/kallsyms") == 0) {
        errno = ENOENT;
        return NULL;
    }
    return fopen(path, mode);
}

/* An address of the dynamic section: glibc has usually relocated it already. */
static uintptr_t dyn_addr(const struct link_map *lm, uintptr_t v)
{
    return v < lm->l_addr ? v + lm->l_addr : v;
}

typedef struct {
    uintptr_t base, relro_lo, relro_hi;
} relro_t;

static int find_relro(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    relro_t *r = arg;
    if (info->dlpi_addr != r->base) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            r->relro_lo = r->base + info->dlpi_phdr[i].p_vaddr;
            r->relro_hi = r->relro_lo + info->dlpi_phdr[i].p_memsz;
        }
    return 1;
}

#if __ELF_NATIVE_CLASS == 64
#define REL_SYM(info) ELF64_R_SYM(info)
#else
#define REL_SYM(info) ELF32_R_SYM(info)
#endif

/* Point the procedure linkage table slot of fopen in library h at ofi_fopen;
 * 0, or -1 when h has none this code understands (nothing changed). */
static int redirect_fopen(void *h)
{
    struct link_map *lm;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_ld) return -1;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *rel = NULL;
    size_t relsz = 0;
    long kind = 0;
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_SYMTAB) symtab = (const void *)dyn_addr(lm, d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB) strtab = (const void *)dyn_addr(lm, d->d_un.d_ptr);
        else if (d->d_tag == DT_JMPREL) rel = (const void *)dyn_addr(lm, d->d_un.d_ptr);
        else if (d->d_tag == DT_PLTRELSZ) relsz = d->d_un.d_val;
        else if (d->d_tag == DT_PLTREL) kind = (long)d->d_un.d_val;
    }
    if (!symtab || !strtab || !rel || kind != DT_RELA) return -1;
    relro_t r = { lm->l_addr, 0, 0 };
    dl_iterate_phdr(find_relro, &r);
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < relsz / sizeof *rel; i++) {
        const ElfW(Sym) *sym = &symtab[REL_SYM(rel[i].r_info)];
        if (strcmp(strtab + sym->st_name, "fopen") != 0) continue;
        uintptr_t slot = lm->l_addr + rel[i].r_offset;
        void *pg = (void *)(slot & ~(page - 1));
        int ro = slot >= r.relro_lo && slot < r.relro_hi;   /* read-only after loading */
        if (ro && mprotect(pg, page, PROT_READ | PROT_WRITE) != 0) return -1;
        __atomic_store_n((void **)slot, (void *)ofi_fopen, __ATOMIC_RELAXED);
        if (ro) mprotect(pg, page, PROT_READ);
        return 0;
    }
    return -1;
}

/* The stand-ins' sonames (see the top of the file), their handles once loaded. */
static const char *const standin_names[] = { "libpsm2.so.2", "libpsm_infinipath.so.1" };
static void *standin[sizeof standin_names / sizeof standin_names[0]];

/* 1 when a device the real libraries drive exists (Omni-Path: /dev/hfi1_0,
 * which psm2 and psm2-compat's psm use; TrueScale: /dev/ipath*). */
static int psm_device_present(void)
{
    static const char *const patterns[] = { "/dev/hfi[0-9]_*", "/dev/ipath*" };
    for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        glob_t g;
        int rc = glob(patterns[i], GLOB_NOSORT, NULL, &g);
        if (rc == 0) globfree(&g);
        if (rc == 0 || rc == GLOB_NOSPACE) return 1;
    }
    return 0;
}

/* The directory the stand-ins were installed in: courier/ beside the object
 * holding this code (libmpi), or COURIER_OFI_STANDIN_DIR where a unit test
 * builds this file into itself; 0, or -1 when it cannot be told. */
static int standin_dir(char *buf, size_t len)
{
#ifdef COURIER_OFI_STANDIN_DIR
    return snprintf(buf, len, "%s", COURIER_OFI_STANDIN_DIR) < (int)len ? 0 : -1;
#else
    Dl_info di;
    if (!dladdr((void *)standin_dir, &di) || !di.dli_fname) return -1;
    const char *slash = strrchr(di.dli_fname, '/');
    if (!slash) return -1;
    int n = snprintf(buf, len, "%.*s/courier", (int)(slash - di.dli_fname), di.dli_fname);
    return n > 0 && n < (int)len ? 0 : -1;
#endif
}

/* Load the stand-ins that apply (see the top of the file); a stand-in that
 * cannot be loaded leaves the real library to the loader. */
static void standins_load(void)
{
    char dir[PATH_MAX];
    if (ut_settings.ofi_psm_libs || psm_device_present() || standin_dir(dir, sizeof dir)) return;
    for (size_t i = 0; i < sizeof standin / sizeof standin[0]; i++) {
        void *real = dlopen(standin_names[i], RTLD_LAZY | RTLD_NOLOAD);
        if (real) {   /* already in the process: its constructors ran */
            dlclose(real);
            continue;
        }
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/%s", dir, standin_names[i]);
        standin[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
}

/* Unload the stand-ins (libfabric did not load with them). */
static int standins_unload(void)
{
    int any = 0;
    for (size_t i = 0; i < sizeof standin / sizeof standin[0]; i++)
        if (standin[i]) {
            dlclose(standin[i]);
            standin[i] = NULL;
            any = 1;
        }
    return any;
}

/* Load libfabric once; 0 when every function was found. */
static int ofi_dl_load(void)
{
    if (tried) return lib ? 0 : -1;
    tried = 1;
    standins_load();
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h && standins_unload()) h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
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
    if (!ut_settings.ofi_kallsyms) redirect_fopen(h);
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
