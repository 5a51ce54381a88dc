/* SPDX-License-Identifier: MIT */
/* Crash reports with function names (see backtrace.h).  glibc's backtrace()
 * walks the stack; names come from dladdr(), or, for symbols the dynamic
 * table lacks, from the ELF .symtab of the object that holds the address,
 * which we map read-only and search in the handler itself. */
#define _GNU_SOURCE
#include "util/backtrace.h"
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { BT_MAX_FRAMES = 64, BT_ALTSTACK_BYTES = 64 * 1024, BT_LABEL_BYTES = 256 };

static const int bt_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static char bt_label[BT_LABEL_BYTES];
static int bt_installed;
/* the handler's own stack (static: nothing to free, nothing for valgrind to call lost) */
static char bt_altstack[BT_ALTSTACK_BYTES];

/* ---- async-signal-safe output: a small buffer flushed with write() ---- */
typedef struct {
    int fd;
    size_t len;
    char buf[512];
} bt_out_t;

static void out_flush(bt_out_t *o)
{
    size_t off = 0;
    while (off < o->len) {
        ssize_t n = write(o->fd, o->buf + off, o->len - off);
        if (n <= 0) break;
        off += (size_t)n;
    }
    o->len = 0;
}

static void out_str(bt_out_t *o, const char *s)
{
    for (; *s; s++) {
        if (o->len == sizeof o->buf) out_flush(o);
        o->buf[o->len++] = *s;
    }
}

static void out_num(bt_out_t *o, uintptr_t v, unsigned base)
{
    char tmp[2 * sizeof v + 1];
    int i = (int)sizeof tmp - 1;
    tmp[i] = '\0';
    do {
        tmp[--i] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v && i > 0);
    if (base == 16) out_str(o, "0x");
    out_str(o, tmp + i);
}

/* ---- names from an object's own symbol table ---- */
/* Find the function in `path` that holds `off` (an address relative to the
 * object's load base for shared objects and PIE, absolute for ET_EXEC) and
 * copy its name.  Returns the offset into the function, or -1. */
static long elf_lookup(const char *path, uintptr_t base, uintptr_t addr, char *name, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    long found = -1;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(ElfW(Ehdr))) {
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    const unsigned char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return -1;
    const ElfW(Ehdr) *eh = (const void *)m;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shoff == 0 ||
        eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > size)
        goto done;
    uintptr_t want = eh->e_type == ET_EXEC ? addr : addr - base;
    const ElfW(Shdr) *sh = (const void *)(m + eh->e_shoff);
    for (int pass = 0; pass < 2 && found < 0; pass++) {
        unsigned kind = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
        for (int i = 0; i < eh->e_shnum; i++) {
            if (sh[i].sh_type != kind || sh[i].sh_link >= eh->e_shnum) continue;
            const ElfW(Shdr) *strs = &sh[sh[i].sh_link];
            if (sh[i].sh_offset + sh[i].sh_size > size || strs->sh_offset + strs->sh_size > size)
                continue;
            const ElfW(Sym) *sym = (const void *)(m + sh[i].sh_offset);
            size_t n = sh[i].sh_size / sizeof(ElfW(Sym));
            /* the function whose [value, value+size) holds the address; else
             * the nearest sized-0 symbol below it (hand-written assembly) */
            const ElfW(Sym) *best = NULL, *near = NULL;
            for (size_t k = 0; k < n; k++) {
                if ((sym[k].st_info & 0xf) != STT_FUNC || sym[k].st_value == 0) continue;
                uintptr_t lo = sym[k].st_value, hi = lo + sym[k].st_size;
                if (want >= lo && want < hi) {
                    best = &sym[k];
                    break;
                }
                if (sym[k].st_size == 0 && want >= lo && (!near || lo > near->st_value))
                    near = &sym[k];
            }
            if (!best) best = near;
            if (best && best->st_name < strs->sh_size) {
                const char *s = (const char *)(m + strs->sh_offset + best->st_name);
                size_t j = 0;
                while (j + 1 < len && s[j] && strs->sh_offset + best->st_name + j < size) {
                    name[j] = s[j];
                    j++;
                }
                name[j] = '\0';
                found = (long)(want - best->st_value);
                break;
            }
        }
    }
done:
    munmap((void *)m, size);
    return found;
}

void ut_backtrace_write(int fd, int skip)
{
    void *frames[BT_MAX_FRAMES];
    int n = backtrace(frames, BT_MAX_FRAMES);
    bt_out_t o = { .fd = fd, .len = 0 };
    for (int i = skip; i < n; i++) {
        /* a return address points after the call: look up the call itself */
        uintptr_t pc = (uintptr_t)frames[i];
        uintptr_t look = pc > 0 ? pc - 1 : pc;
        Dl_info info;
        memset(&info, 0, sizeof info);
        int have = dladdr((void *)look, &info) != 0;
        char name[256];
        long off = -1;
        if (have && info.dli_sname && info.dli_saddr) {
            off = (long)(look - (uintptr_t)info.dli_saddr);
            size_t j = 0;
            for (; j + 1 < sizeof name && info.dli_sname[j]; j++) name[j] = info.dli_sname[j];
            name[j] = '\0';
        } else if (have) {
            const char *path = info.dli_fname && info.dli_fname[0] == '/' ? info.dli_fname : "/proc/self/exe";
            off = elf_lookup(path, (uintptr_t)info.dli_fbase, look, name, sizeof name);
        }
        out_str(&o, "  #");
        out_num(&o, (uintptr_t)(i - skip), 10);
        out_str(&o, " ");
        if (off >= 0) {
            out_str(&o, name);
            out_str(&o, "+");
            out_num(&o, (uintptr_t)off + 1, 16);
        } else {
            out_num(&o, pc, 16);
        }
        if (have && info.dli_fname && info.dli_fname[0]) {
            out_str(&o, " (");
            out_str(&o, info.dli_fname);
            out_str(&o, "+");
            out_num(&o, pc - (uintptr_t)info.dli_fbase, 16);
            out_str(&o, ")");
        }
        out_str(&o, "\n");
    }
    out_flush(&o);
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV (segmentation fault)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic exception)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGABRT: return "SIGABRT (aborted)";
    }
    return "a fatal signal";
}

static void bt_handler(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    bt_out_t o = { .fd = STDERR_FILENO, .len = 0 };
    out_str(&o, "[courier] ");
    out_str(&o, bt_label);
    out_str(&o, ": ");
    out_str(&o, signal_name(sig));
    if (sig != SIGABRT) {
        out_str(&o, " at address ");
        out_num(&o, (uintptr_t)si->si_addr, 16);
    }
    out_str(&o, "; backtrace:\n");
    out_flush(&o);
    ut_backtrace_write(STDERR_FILENO, 1);
    /* SA_RESETHAND restored the default action: returning re-executes a
     * faulting instruction, and a sent signal is raised again on return */
    raise(sig);
}

int ut_backtrace_install(const char *label)
{
    size_t j = 0;
    for (; label && label[j] && j + 1 < sizeof bt_label; j++) bt_label[j] = label[j];
    bt_label[j] = '\0';
    if (bt_installed) return 0;

    /* the first backtrace() loads libgcc_s: do it now, not in the handler */
    void *warm[2];
    (void)backtrace(warm, 2);

    stack_t ss = { .ss_sp = bt_altstack, .ss_size = sizeof bt_altstack, .ss_flags = 0 };
    sigaltstack(&ss, NULL);

    int ok = 0;
    for (size_t i = 0; i < sizeof bt_signals / sizeof bt_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(bt_signals[i], NULL, &old) != 0) continue;
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;  /* someone else's */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = bt_handler;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
        sigemptyset(&sa.sa_mask);
        if (sigaction(bt_signals[i], &sa, NULL) == 0) ok = 1;
    }
    bt_installed = 1;
    return ok ? 0 : -1;
}
