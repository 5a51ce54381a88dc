/* SPDX-License-Identifier: MIT */
/* mpibench helpers: data patterns, statistics, buffers, /proc readers. */
#define _GNU_SOURCE
#include "bench.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A cheap pattern generator (xorshift) so that a byte in the wrong place or
 * from the wrong message is noticed. */
void bench_fill(char *buf, size_t n, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (char)(x >> 24);
    }
}

long bench_verify(const char *buf, size_t n, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1u;
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        if (buf[i] != (char)(x >> 24))
            bad++;
    }
    return bad;
}

unsigned bench_seed(int rank, size_t bytes, int salt)
{
    return (unsigned)rank * 7919u + (unsigned)bytes * 31u + (unsigned)salt * 104729u + 17u;
}

size_t bench_parse_size(const char *s, int *ok)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    *ok = end != s;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end)
        *ok = 0;
    return (size_t)v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v in place. */
double bench_median(double *v, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Page-aligned, touched once so that first-touch page faults are not timed. */
void *bench_alloc(size_t n)
{
    void *p = NULL;
    if (n == 0)
        n = 64;
    if (posix_memalign(&p, 4096, n) != 0) {
        fprintf(stderr, "mpibench: cannot allocate %zu bytes\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(p, 0, n);
    return p;
}

int bench_err_text(char *buf, size_t n, int rc, const char *what)
{
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS)
        return 0;
    s[0] = 0;
    MPI_Error_string(rc, s, &len);
    snprintf(buf, n, "%s: %s", what, s);
    return 1;
}

int bench_mpi_err(bench_ctx_t *c, int rc, const char *what)
{
    return bench_err_text(c->errbuf, sizeof c->errbuf, rc, what);
}

void bench_clean_text(char *s)
{
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || *s == ',' || (unsigned char)*s < 32)
            *s = ' ';
}

void bench_share_text(char *buf, int n, int mine)
{
    int rank, in[2], out[2];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    in[0] = mine ? 1 : 0;
    in[1] = rank;
    MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    if (out[1] != 0) {
        if (rank == out[1])
            MPI_Send(buf, n, MPI_CHAR, 0, 99, MPI_COMM_WORLD);
        else if (rank == 0)
            MPI_Recv(buf, n, MPI_CHAR, out[1], 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    buf[n - 1] = 0;
    bench_clean_text(buf);
}

void bench_usage_fail(const char *prog, void (*usage)(FILE *), const char *msg, const char *arg)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        fprintf(stderr, "%s: %s%s%s\n", prog, msg, arg ? ": " : "", arg ? arg : "");
        usage(stderr);
    }
    MPI_Finalize();
    exit(2);
}

const char *bench_metric_unit(bench_metric_t m)
{
    switch (m) {
    case METRIC_LAT: return "us";
    case METRIC_BW: return "MB/s";
    case METRIC_RATE: return "msg/s";
    }
    return "?";
}

long bench_status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t fl = strlen(field);
    long v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, field, fl) && line[fl] == ':') {
            v = strtol(line + fl + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return v;
}

/* A shared mapping that is not a shared library or executable: the MPI's
 * shared-memory segments, whether their /dev/shm name still exists or was
 * unlinked ("(deleted)"), System V segments, memfd. */
static int is_shm_mapping(const char *perms, const char *path)
{
    if (perms[3] != 's' || !path[0])
        return 0;
    if (strstr(path, ".so"))
        return 0;
    if (!strncmp(path, "/dev/zero", 9))
        return 0;
    return !strncmp(path, "/dev/shm/", 9) || !strncmp(path, "/SYSV", 5) ||
           !strncmp(path, "/memfd:", 7) || strstr(path, "(deleted)") ||
           !strncmp(path, "/tmp/", 5) || !strncmp(path, "/run/", 5) ||
           !strncmp(path, "/var/", 5);
}

void bench_shm_kib(long *size, long *rss, long *pss)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[1024];
    int in = 0;
    *size = *rss = *pss = 0;
    if (!f) {
        *size = *rss = *pss = -1;
        return;
    }
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        int n = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s%n", &lo, &hi, perms, &n) == 3) {
            char *path = line + n;
            while (*path == ' ')
                path++;
            path[strcspn(path, "\n")] = 0;
            in = is_shm_mapping(perms, path);
            continue;
        }
        if (!in)
            continue;
        if (!strncmp(line, "Size:", 5))
            *size += strtol(line + 5, NULL, 10);
        else if (!strncmp(line, "Rss:", 4))
            *rss += strtol(line + 4, NULL, 10);
        else if (!strncmp(line, "Pss:", 4))
            *pss += strtol(line + 4, NULL, 10);
    }
    fclose(f);
}

long bench_devshm_kib(double since, int *nfiles)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    long kib = 0;
    *nfiles = 0;
    if (!d)
        return -1;
    while ((e = readdir(d))) {
        char p[512];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "/dev/shm/%s", e->d_name);
        if (stat(p, &st) || !S_ISREG(st.st_mode) || st.st_uid != getuid())
            continue;
        if ((double)st.st_ctime + 1.0 < since)
            continue;
        kib += (long)(st.st_blocks / 2);
        (*nfiles)++;
    }
    closedir(d);
    return kib;
}

/* First line of MPI_Get_library_version, with quotes and backslashes made safe
 * for CSV and JSON. */
void bench_library_version(char *out, size_t n)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    size_t j = 0;
    v[0] = 0;
    MPI_Get_library_version(v, &len);
    for (int i = 0; v[i] && v[i] != '\n' && j + 1 < n; i++) {
        char ch = v[i];
        if (ch == '"' || ch == '\\' || ch == ',' || (unsigned char)ch < 32)
            ch = ' ';
        out[j++] = ch;
    }
    while (j > 0 && out[j - 1] == ' ')
        j--;
    out[j] = 0;
}

void bench_thread_cpus(char *out, size_t n)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    size_t used = 0;
    out[0] = 0;
    if (!d)
        return;
    while ((e = readdir(d)) && used + 1 < n) {
        char p[300], name[64] = "?", cpus[128] = "?", line[256];
        FILE *f;
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "/proc/self/task/%s/comm", e->d_name);
        if ((f = fopen(p, "r"))) {
            if (fgets(name, sizeof name, f))
                name[strcspn(name, "\n")] = 0;
            fclose(f);
        }
        snprintf(p, sizeof p, "/proc/self/task/%s/status", e->d_name);
        if ((f = fopen(p, "r"))) {
            while (fgets(line, sizeof line, f))
                if (!strncmp(line, "Cpus_allowed_list:", 18)) {
                    snprintf(cpus, sizeof cpus, "%s", line + 18 + strspn(line + 18, " \t"));
                    cpus[strcspn(cpus, "\n")] = 0;
                    for (char *q = cpus; *q; q++)
                        if (*q == ',')
                            *q = '+';   /* "0-1,4" as 0-1+4: commas are CSV's */
                    break;
                }
            fclose(f);
        }
        int w = snprintf(out + used, n - used, "%s%s:%s", used ? " " : "", name, cpus);
        if (w < 0)
            break;
        used += (size_t)w < n - used ? (size_t)w : n - used - 1;
    }
    closedir(d);
    bench_clean_text(out);
}
