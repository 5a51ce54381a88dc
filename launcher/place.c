/* SPDX-License-Identifier: MIT */
/* Host lists, rank-to-host mapping and per-host binding with hwloc (see place.h).
 *
 * Binding on a host, for nlocal ranks with options o:
 *   units    the objects a rank is given: hwthreads with -bind-to hwthread or
 *            -map-by hwthread, cores otherwise;
 *   domains  where ranks are spread in turn: packages (-map-by socket), NUMA
 *            nodes (-map-by numa), or the whole host (every other map level,
 *            which fills cores in order);
 *   rank i   takes the next o->pe units of domain i mod ndomains;
 *   binding  the hwthreads of its units, widened to their packages or NUMA
 *            nodes with -bind-to socket / numa.
 * When a domain runs out of units the host is oversubscribed, and no rank is
 * bound (stacking several busy ranks on one core is far worse than letting
 * the kernel spread them). */
#define _GNU_SOURCE
#include "place.h"
#include "common.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdlib.h>
#include <string.h>

/* ---- hosts ------------------------------------------------------------------ */

static int host_add(la_hostlist_t *hl, const char *name, size_t len, int slots)
{
    for (int i = 0; i < hl->n; i++)
        if (strlen(hl->h[i].name) == len && !strncmp(hl->h[i].name, name, len)) {
            hl->h[i].slots += slots;
            return 0;
        }
    if (hl->n == hl->cap) {
        hl->cap = hl->cap ? hl->cap * 2 : 8;
        hl->h = la_realloc(hl->h, sizeof *hl->h * (size_t)hl->cap);
    }
    hl->h[hl->n].name = la_malloc(len + 1);
    memcpy(hl->h[hl->n].name, name, len);
    hl->h[hl->n].name[len] = '\0';
    hl->h[hl->n].slots = slots;
    hl->n++;
    return 0;
}

/* One "host[:n]" token of length len. */
static int host_token(la_hostlist_t *hl, const char *s, size_t len, const char *where, char *err, size_t errlen)
{
    const char *colon = memchr(s, ':', len);
    size_t nlen = colon ? (size_t)(colon - s) : len;
    int slots = 1;
    if (nlen == 0) {
        snprintf(err, errlen, "%s: empty host name in \"%.*s\"", where, (int)len, s);
        return -1;
    }
    if (s[0] == '-') {   /* it would reach ssh as an option */
        snprintf(err, errlen, "%s: bad host name \"%.*s\"", where, (int)nlen, s);
        return -1;
    }
    for (size_t i = 0; i < nlen; i++)
        if (isspace((unsigned char)s[i]) || s[i] == ',') {
            snprintf(err, errlen, "%s: bad host name \"%.*s\"", where, (int)nlen, s);
            return -1;
        }
    if (colon) {
        char num[16];
        size_t dl = len - nlen - 1;
        char *end;
        if (dl == 0 || dl >= sizeof num) goto bad;
        memcpy(num, colon + 1, dl);
        num[dl] = '\0';
        long v = strtol(num, &end, 10);
        if (*end || v < 1 || v > 1000000) goto bad;
        slots = (int)v;
    }
    return host_add(hl, s, nlen, slots);
bad:
    snprintf(err, errlen, "%s: bad process count in \"%.*s\" (expected host:N with N >= 1)", where, (int)len, s);
    return -1;
}

int la_hosts_parse_list(la_hostlist_t *hl, const char *list, char *err, size_t errlen)
{
    const char *p = list;
    if (!*p) {
        snprintf(err, errlen, "empty host list");
        return -1;
    }
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0) {
            snprintf(err, errlen, "empty host name in \"%s\"", list);
            return -1;
        }
        if (host_token(hl, p, len, "host list", err, errlen) < 0) return -1;
        p += len;
        if (*p == ',') p++;
    }
    return 0;
}

int la_hosts_parse_file(la_hostlist_t *hl, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read host file \"%s\": %s", path, strerror(errno));
        return -1;
    }
    char line[4096], where[600];
    int lineno = 0, before = hl->n, rc = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s = line;
        while (isspace((unsigned char)*s)) s++;
        size_t len = strcspn(s, " \t\r\n");
        if (len == 0) continue;
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        /* Open MPI's "host slots=N" as well as Hydra's "host:N" */
        char *slots = strstr(s + len, "slots=");
        if (slots && (slots[-1] == ' ' || slots[-1] == '\t') && !memchr(s, ':', len)) {
            char tok[300];
            long v = strtol(slots + 6, NULL, 10);
            snprintf(tok, sizeof tok, "%.*s:%ld", (int)(len < 256 ? len : 256), s, v);
            if (host_token(hl, tok, strlen(tok), where, err, errlen) < 0) {
                rc = -1;
                break;
            }
            continue;
        }
        if (host_token(hl, s, len, where, err, errlen) < 0) {
            rc = -1;
            break;
        }
    }
    fclose(f);
    if (rc == 0 && hl->n == before) {
        snprintf(err, errlen, "host file \"%s\" names no host", path);
        rc = -1;
    }
    return rc;
}

/* Expand one node-list item (no top-level commas) with prefix already built. */
static int expand_item(const char *prefix, const char *s, void (*add)(void *, const char *), void *arg)
{
    const char *open = strchr(s, '[');
    if (!open) {
        char *name = la_asprintf("%s%s", prefix, s);
        add(arg, name);
        free(name);
        return 0;
    }
    const char *close = strchr(open, ']');
    if (!close) return -1;
    char *pre = la_asprintf("%s%.*s", prefix, (int)(open - s), s);
    char *ranges = la_asprintf("%.*s", (int)(close - open - 1), open + 1);
    int rc = 0;
    char *save = NULL;
    for (char *r = strtok_r(ranges, ",", &save); r && rc == 0; r = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(r, '-'), *end;
        int width = dash ? (int)(dash - r) : (int)strlen(r);
        long lo = strtol(r, &end, 10), hi = lo;
        if (end == r || (dash ? end != dash : *end != '\0')) {
            rc = -1;
            break;
        }
        if (dash) {
            hi = strtol(dash + 1, &end, 10);
            if (end == dash + 1 || *end || hi < lo) {
                rc = -1;
                break;
            }
        }
        for (long v = lo; v <= hi && rc == 0; v++) {
            char *p2 = la_asprintf("%s%0*ld", pre, width, v);
            rc = expand_item(p2, close + 1, add, arg);
            free(p2);
        }
    }
    free(pre);
    free(ranges);
    return rc;
}

int la_hosts_expand_nodelist(const char *list, void (*add)(void *arg, const char *name), void *arg)
{
    const char *p = list;
    while (*p) {
        /* the item ends at a comma outside brackets */
        int depth = 0;
        const char *e = p;
        for (; *e && (depth > 0 || *e != ','); e++) {
            if (*e == '[') depth++;
            else if (*e == ']') depth--;
        }
        if (depth != 0 || e == p) return -1;
        char *item = la_asprintf("%.*s", (int)(e - p), p);
        int rc = expand_item("", item, add, arg);
        free(item);
        if (rc < 0) return -1;
        p = *e ? e + 1 : e;
    }
    return 0;
}

struct slurm_names { char **v; int n; };

static void slurm_add(void *arg, const char *name)
{
    struct slurm_names *s = arg;
    s->v = la_realloc(s->v, sizeof *s->v * (size_t)(s->n + 1));
    s->v[s->n++] = la_strdup(name);
}

int la_hosts_from_slurm(la_hostlist_t *hl, char *err, size_t errlen)
{
    const char *nl = getenv("SLURM_JOB_NODELIST");
    if (!nl || !*nl) nl = getenv("SLURM_NODELIST");
    if (!nl || !*nl) {
        snprintf(err, errlen, "SLURM_JOB_ID is set but SLURM_JOB_NODELIST is not");
        return -1;
    }
    struct slurm_names names = { 0 };
    if (la_hosts_expand_nodelist(nl, slurm_add, &names) < 0 || names.n == 0) {
        snprintf(err, errlen, "cannot parse SLURM_JOB_NODELIST=\"%s\"", nl);
        return -1;
    }
    /* SLURM_TASKS_PER_NODE: "2(x3),1" = 2,2,2,1 */
    const char *tpn = getenv("SLURM_TASKS_PER_NODE");
    int k = 0;
    while (tpn && *tpn && k < names.n) {
        char *end;
        long v = strtol(tpn, &end, 10), rep = 1;
        if (end == tpn || v < 1) break;
        if (!strncmp(end, "(x", 2)) {
            rep = strtol(end + 2, &end, 10);
            if (*end != ')') break;
            end++;
        }
        for (long r = 0; r < rep && k < names.n; r++, k++) host_add(hl, names.v[k], strlen(names.v[k]), (int)v);
        tpn = *end == ',' ? end + 1 : end;
    }
    for (; k < names.n; k++) host_add(hl, names.v[k], strlen(names.v[k]), 1);
    for (int i = 0; i < names.n; i++) free(names.v[i]);
    free(names.v);
    return 0;
}

int la_hosts_total_slots(const la_hostlist_t *hl)
{
    int s = 0;
    for (int i = 0; i < hl->n; i++) s += hl->h[i].slots;
    return s;
}

void la_hosts_free(la_hostlist_t *hl)
{
    for (int i = 0; i < hl->n; i++) free(hl->h[i].name);
    free(hl->h);
    *hl = (la_hostlist_t){ 0 };
}

void la_hosts_map(const la_hostlist_t *hl, int n, int ppn, int by_node, int *host_of)
{
    if (by_node) {
        for (int r = 0; r < n; r++) host_of[r] = r % hl->n;
        return;
    }
    int r = 0;
    for (int h = 0; r < n; h = (h + 1) % hl->n) {
        int block = ppn > 0 ? ppn : hl->h[h].slots;
        for (int k = 0; k < block && r < n; k++) host_of[r++] = h;
    }
}

/* ---- options ------------------------------------------------------------------ */

static const struct { const char *name; la_level_t lvl; } level_names[] = {
    { "none", LA_LVL_NONE }, { "no", LA_LVL_NONE },
    { "hwthread", LA_LVL_HWTHREAD }, { "hwthreads", LA_LVL_HWTHREAD }, { "thread", LA_LVL_HWTHREAD },
    { "threads", LA_LVL_HWTHREAD }, { "pu", LA_LVL_HWTHREAD },
    { "core", LA_LVL_CORE }, { "cores", LA_LVL_CORE },
    { "socket", LA_LVL_SOCKET }, { "sockets", LA_LVL_SOCKET }, { "package", LA_LVL_SOCKET },
    { "numa", LA_LVL_NUMA }, { "numanode", LA_LVL_NUMA },
    { "node", LA_LVL_NODE }, { "slot", LA_LVL_SLOT },
};

const char *la_level_name(la_level_t l)
{
    switch (l) {
    case LA_LVL_UNSET: return "unset";
    case LA_LVL_NONE: return "none";
    case LA_LVL_HWTHREAD: return "hwthread";
    case LA_LVL_CORE: return "core";
    case LA_LVL_NUMA: return "numa";
    case LA_LVL_SOCKET: return "socket";
    case LA_LVL_NODE: return "node";
    case LA_LVL_SLOT: return "slot";
    }
    return "?";
}

static la_level_t level_of(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof level_names / sizeof level_names[0]; i++)
        if (strlen(level_names[i].name) == len && !strncasecmp(s, level_names[i].name, len))
            return level_names[i].lvl;
    return LA_LVL_UNSET;
}

static int parse_count(const char *s, int *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < 1 || v > 65536) return -1;
    *out = (int)v;
    return 0;
}

int la_place_parse_bind(la_place_t *o, const char *s, char *err, size_t errlen)
{
    size_t len = strcspn(s, ":");
    la_level_t l = level_of(s, len);
    if (l == LA_LVL_UNSET || l == LA_LVL_NODE || l == LA_LVL_SLOT) {
        snprintf(err, errlen, "unknown binding \"%s\" (none, hwthread, core, socket or numa)", s);
        return -1;
    }
    if (s[len] == ':') {
        int n;
        if ((l != LA_LVL_CORE && l != LA_LVL_HWTHREAD) || parse_count(s + len + 1, &n) < 0) {
            snprintf(err, errlen, "bad binding \"%s\" (core:N and hwthread:N bind each rank to N of them)", s);
            return -1;
        }
        o->pe = n;
    }
    o->bind = l;
    return 0;
}

int la_place_parse_map(la_place_t *o, const char *s, char *err, size_t errlen)
{
    char *copy = la_strdup(s), *save = NULL;
    int rc = 0;
    char *first = strtok_r(copy, ":", &save);
    if (!first) goto bad;
    if (!strcasecmp(first, "ppr")) {
        /* Open MPI's ppr:N:node */
        char *n = strtok_r(NULL, ":", &save), *what = strtok_r(NULL, ":", &save);
        if (!n || !what || parse_count(n, &o->ppn) < 0 || strcasecmp(what, "node")) {
            snprintf(err, errlen, "bad mapping \"%s\" (only ppr:N:node)", s);
            rc = -1;
            goto out;
        }
        o->map = LA_LVL_CORE;
    } else {
        la_level_t l = level_of(first, strlen(first));
        if (l == LA_LVL_UNSET || l == LA_LVL_NONE) goto bad;
        o->map = l;
        o->by_node = l == LA_LVL_NODE;
    }
    for (char *m = strtok_r(NULL, ":", &save); m; m = strtok_r(NULL, ":", &save)) {
        if (!strncasecmp(m, "PE=", 3)) {
            if (parse_count(m + 3, &o->pe) < 0) {
                snprintf(err, errlen, "bad PE count in \"%s\"", s);
                rc = -1;
                goto out;
            }
        } else if (strcasecmp(m, "oversubscribe") && strcasecmp(m, "nooversubscribe") &&
                   strcasecmp(m, "span") && strcasecmp(m, "fill")) {
            snprintf(err, errlen, "unknown mapping modifier \"%s\" in \"%s\" (PE=n)", m, s);
            rc = -1;
            goto out;
        }
    }
    goto out;
bad:
    snprintf(err, errlen, "unknown mapping \"%s\" (core, hwthread, socket, numa, node, slot, ppr:N:node; :PE=n)", s);
    rc = -1;
out:
    free(copy);
    return rc;
}

void la_place_finish(la_place_t *o, const char *omp_num_threads)
{
    if (o->bind == LA_LVL_UNSET) o->bind = o->pe > 0 ? LA_LVL_CORE : LA_LVL_NONE;
    if (o->map == LA_LVL_UNSET)
        o->map = (o->bind == LA_LVL_SOCKET || o->bind == LA_LVL_NUMA || o->bind == LA_LVL_HWTHREAD)
                     ? o->bind : LA_LVL_CORE;
    if (o->pe == 0) {
        int t;
        if (o->bind != LA_LVL_NONE && omp_num_threads && parse_count(omp_num_threads, &t) == 0) {
            o->pe = t;
            o->pe_from_omp = 1;
        } else {
            o->pe = 1;
        }
    }
}

int la_place_progress(const char *courier, const char *mpich)
{
    const char *v = courier ? courier : mpich;
    return v && (!strcasecmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") ||
                 !strcasecmp(v, "on"));
}

/* ---- topology -------------------------------------------------------------------- */

struct la_topo {
    hwloc_topology_t t;
    hwloc_bitmap_t allowed;     /* the CPUs this process may use */
};

la_topo_t *la_topo_load(char *err, size_t errlen)
{
    la_topo_t *t = la_calloc(1, sizeof *t);
    if (hwloc_topology_init(&t->t) < 0 || hwloc_topology_load(t->t) < 0) {
        snprintf(err, errlen, "hwloc cannot read this machine's topology: %s", strerror(errno));
        free(t);
        return NULL;
    }
    t->allowed = hwloc_bitmap_dup(hwloc_topology_get_topology_cpuset(t->t));
    if (hwloc_topology_is_thissystem(t->t)) {
        /* Only the CPUs we may run on (taskset, a cgroup, srun's binding). */
        cpu_set_t mine;
        if (sched_getaffinity(0, sizeof mine, &mine) == 0) {
            hwloc_bitmap_t set = hwloc_bitmap_alloc();
            hwloc_cpuset_from_glibc_sched_affinity(t->t, set, &mine, sizeof mine);
            hwloc_bitmap_and(set, set, t->allowed);
            if (!hwloc_bitmap_iszero(set)) hwloc_bitmap_copy(t->allowed, set);
            hwloc_bitmap_free(set);
        }
    }
    return t;
}

void la_topo_free(la_topo_t *t)
{
    if (!t) return;
    hwloc_bitmap_free(t->allowed);
    hwloc_topology_destroy(t->t);
    free(t);
}

void la_binding_free(la_binding_t *b, int n)
{
    for (int i = 0; b && i < n; i++) {
        free(b[i].omp_places);
        b[i].omp_places = NULL;
    }
}

/* Add "{a,b}" (the OS numbers of set) to places. */
static void places_add(char **places, size_t *len, hwloc_const_bitmap_t set)
{
    char item[1024];
    int n = snprintf(item, sizeof item, "%s{", *len ? "," : "");
    int id, first = 1;
    hwloc_bitmap_foreach_begin(id, set) {
        if (n < (int)sizeof item - 16) n += snprintf(item + n, sizeof item - (size_t)n, "%s%d", first ? "" : ",", id);
        first = 0;
    } hwloc_bitmap_foreach_end();
    n += snprintf(item + n, sizeof item - (size_t)n, "}");
    *places = la_realloc(*places, *len + (size_t)n + 1);
    memcpy(*places + *len, item, (size_t)n + 1);
    *len += (size_t)n;
}

/* The progress thread of a rank bound to set (la_place_t.progress): prog,
 * when the placement found it a unit of its own; else, with -bind-to core,
 * the last hwthread of the rank's last core when that core has several
 * (taken out of set and of the rank's OpenMP places, rebuilt core by core);
 * else set, shared. */
static void progress_place(la_topo_t *t, const la_place_t *o, hwloc_bitmap_t set,
                           hwloc_const_bitmap_t prog, la_binding_t *b, char **places, size_t *plen)
{
    hwloc_bitmap_t p = hwloc_bitmap_dup(prog);
    b->progress = LA_PROGRESS_CORE;
    if (hwloc_bitmap_iszero(p)) {
        b->progress = LA_PROGRESS_SHARED;
        hwloc_bitmap_copy(p, set);
        int last = hwloc_bitmap_last(set);
        hwloc_obj_t pu = last >= 0 ? hwloc_get_pu_obj_by_os_index(t->t, (unsigned)last) : NULL;
        hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(t->t, HWLOC_OBJ_CORE, pu) : NULL;
        if (o->bind == LA_LVL_CORE && core && hwloc_bitmap_weight(core->cpuset) > 1 &&
            hwloc_bitmap_isincluded(core->cpuset, set)) {
            b->progress = LA_PROGRESS_HWTHREAD;
            hwloc_bitmap_only(p, (unsigned)last);
            hwloc_bitmap_clr(set, (unsigned)last);
            free(*places);
            *places = NULL;
            *plen = 0;
            hwloc_bitmap_t in = hwloc_bitmap_alloc();
            int ncores = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_CORE);
            for (int k = 0; k < ncores; k++) {
                hwloc_bitmap_and(in, hwloc_get_obj_by_type(t->t, HWLOC_OBJ_CORE, (unsigned)k)->cpuset, set);
                if (!hwloc_bitmap_iszero(in)) places_add(places, plen, in);
            }
            hwloc_bitmap_free(in);
        }
    }
    CPU_ZERO(&b->progress_cpus);
    hwloc_cpuset_to_glibc_sched_affinity(t->t, p, &b->progress_cpus, sizeof b->progress_cpus);
    hwloc_bitmap_free(p);
}

int la_topo_place(la_topo_t *t, const la_place_t *o, int nlocal, la_binding_t *out, char *why, size_t whylen)
{
    why[0] = '\0';
    for (int i = 0; i < nlocal; i++) out[i] = (la_binding_t){ 0 };
    if (o->bind == LA_LVL_NONE || nlocal <= 0) return 0;

    int by_pu = o->bind == LA_LVL_HWTHREAD || o->map == LA_LVL_HWTHREAD;
    hwloc_obj_type_t utype = by_pu ? HWLOC_OBJ_PU : HWLOC_OBJ_CORE;
    if (hwloc_get_nbobjs_by_type(t->t, utype) <= 0) {   /* no core objects: use hwthreads */
        utype = HWLOC_OBJ_PU;
        by_pu = 1;
    }
    hwloc_obj_type_t dtype = o->map == LA_LVL_SOCKET ? HWLOC_OBJ_PACKAGE
                           : o->map == LA_LVL_NUMA ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_MACHINE;
    int ndom = dtype == HWLOC_OBJ_MACHINE ? 1 : hwloc_get_nbobjs_by_type(t->t, dtype);
    if (ndom <= 0) {
        dtype = HWLOC_OBJ_MACHINE;
        ndom = 1;
    }
    /* the units we may use, in logical order, and the domain of each */
    int total = hwloc_get_nbobjs_by_type(t->t, utype), nunits = 0;
    hwloc_obj_t *unit = la_malloc(sizeof *unit * (size_t)(total + 1));
    int *dom_of = la_malloc(sizeof(int) * (size_t)(total + 1)), *count = la_calloc((size_t)ndom, sizeof(int));
    int *next = la_calloc((size_t)ndom, sizeof(int));
    for (int u = 0; u < total; u++) {
        hwloc_obj_t uo = hwloc_get_obj_by_type(t->t, utype, (unsigned)u);
        if (!hwloc_bitmap_intersects(uo->cpuset, t->allowed)) continue;
        int d = 0;
        for (int k = 0; k < ndom && dtype != HWLOC_OBJ_MACHINE; k++)
            if (hwloc_bitmap_intersects(hwloc_get_obj_by_type(t->t, dtype, (unsigned)k)->cpuset, uo->cpuset)) {
                d = k;
                break;
            }
        unit[nunits] = uo;
        dom_of[nunits++] = d;
        count[d]++;
    }
    /* how many ranks each domain gets, and whether its units suffice (and,
     * binding to cores or hwthreads, whether they leave one more per rank
     * for its progress thread) */
    int ok = 1, spare = o->progress && (o->bind == LA_LVL_CORE || o->bind == LA_LVL_HWTHREAD);
    for (int d = 0; d < ndom && ok; d++) {
        int ranks = nlocal / ndom + (d < nlocal % ndom);
        if ((long)ranks * o->pe > count[d]) ok = 0;
        if ((long)ranks * (o->pe + 1) > count[d]) spare = 0;
    }
    if (!ok) {
        const char *u = by_pu ? "hwthread" : "core";
        snprintf(why, whylen, "%d rank%s x %d %s%s each%s need more than the %d %s%s %s; not binding "
                 "(oversubscribed)", nlocal, nlocal == 1 ? "" : "s", o->pe, u, o->pe == 1 ? "" : "s",
                 o->pe_from_omp ? " (OMP_NUM_THREADS)" : "", nunits, u, nunits == 1 ? "" : "s",
                 ndom > 1 ? (dtype == HWLOC_OBJ_PACKAGE ? "spread over the sockets" : "spread over the NUMA nodes")
                          : "this host offers");
        free(unit);
        free(dom_of);
        free(count);
        free(next);
        return 0;
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc(), mine = hwloc_bitmap_alloc(), prog = hwloc_bitmap_alloc();
    int nnuma = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < nlocal; i++) {
        int d = i % ndom, taken = 0;
        char *places = NULL;
        size_t plen = 0;
        hwloc_bitmap_zero(set);
        hwloc_bitmap_zero(prog);
        for (int u = next[d]; u < nunits && taken < o->pe + spare; u++) {
            if (dom_of[u] != d) continue;
            if (taken == o->pe) {       /* the progress thread's own unit */
                hwloc_bitmap_and(prog, unit[u]->cpuset, t->allowed);
                taken++;
                next[d] = u + 1;
                continue;
            }
            hwloc_obj_t uo = unit[u], wide = uo;
            if (o->bind == LA_LVL_CORE && utype == HWLOC_OBJ_PU)
                wide = hwloc_get_ancestor_obj_by_type(t->t, HWLOC_OBJ_CORE, uo);
            else if (o->bind == LA_LVL_SOCKET)
                wide = hwloc_get_ancestor_obj_by_type(t->t, HWLOC_OBJ_PACKAGE, uo);
            if (o->bind == LA_LVL_NUMA) {
                for (int k = 0; k < nnuma; k++) {
                    hwloc_obj_t no = hwloc_get_obj_by_type(t->t, HWLOC_OBJ_NUMANODE, (unsigned)k);
                    if (no->cpuset && hwloc_bitmap_intersects(no->cpuset, uo->cpuset))
                        hwloc_bitmap_or(set, set, no->cpuset);
                }
                if (nnuma == 0) hwloc_bitmap_or(set, set, t->allowed);
            } else {
                hwloc_bitmap_or(set, set, wide ? wide->cpuset : uo->cpuset);
            }
            hwloc_bitmap_and(mine, uo->cpuset, t->allowed);
            places_add(&places, &plen, mine);
            taken++;
            next[d] = u + 1;
        }
        /* only CPUs we may use (a NUMA node or package may hold others) */
        hwloc_bitmap_and(set, set, t->allowed);
        if (o->progress) progress_place(t, o, set, prog, &out[i], &places, &plen);
        CPU_ZERO(&out[i].cpus);
        hwloc_cpuset_to_glibc_sched_affinity(t->t, set, &out[i].cpus, sizeof out[i].cpus);
        out[i].bound = 1;
        out[i].omp_places = places;
    }
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(mine);
    hwloc_bitmap_free(prog);
    free(unit);
    free(dom_of);
    free(count);
    free(next);
    return 1;
}

/* Index of obj among the children of its ancestor of type `of` that have
 * obj's type (core index within its package, hwthread index within its core). */
static int index_within(hwloc_topology_t t, hwloc_obj_t obj, hwloc_obj_t parent)
{
    int idx = 0;
    if (!parent) return (int)obj->logical_index;
    hwloc_obj_t o = NULL;
    while ((o = hwloc_get_next_obj_inside_cpuset_by_type(t, parent->cpuset, obj->type, o)) && o != obj) idx++;
    return idx;
}

/* "0-2,5" from ascending numbers. */
static void format_ranges(const int *v, int n, char *out, size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (int i = 0; i < n && o < len; ) {
        int j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1) j++;
        int w = j > i ? snprintf(out + o, len - o, "%s%d-%d", o ? "," : "", v[i], v[j])
                      : snprintf(out + o, len - o, "%s%d", o ? "," : "", v[i]);
        if (w < 0) break;
        o += (size_t)w;
        i = j + 1;
    }
}

void la_cpus_format(const cpu_set_t *cpus, char *buf, size_t len)
{
    int v[CPU_SETSIZE], n = 0;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, cpus)) v[n++] = c;
    format_ranges(v, n, buf, len);
}

void la_topo_describe(la_topo_t *t, const cpu_set_t *cpus, char *buf, size_t len)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc(), in = hwloc_bitmap_alloc();
    hwloc_cpuset_from_glibc_sched_affinity(t->t, set, cpus, sizeof *cpus);
    size_t o = 0;
    buf[0] = '\0';
#define OUT(...) do { if (o < len) { int n_ = snprintf(buf + o, len - o, __VA_ARGS__); if (n_ > 0) o += (size_t)n_; } } while (0)
    int ncores = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_CORE);
    int first = 1;
    for (int c = 0; c < ncores; c++) {
        hwloc_obj_t core = hwloc_get_obj_by_type(t->t, HWLOC_OBJ_CORE, (unsigned)c);
        hwloc_bitmap_and(in, core->cpuset, set);
        if (hwloc_bitmap_iszero(in)) continue;
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(t->t, HWLOC_OBJ_PACKAGE, core);
        int idx[256], ni = 0, k = 0;
        hwloc_obj_t pu = NULL;
        while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(t->t, core->cpuset, HWLOC_OBJ_PU, pu))) {
            if (hwloc_bitmap_isset(set, pu->os_index) && ni < 256) idx[ni++] = k;
            k++;
        }
        char hwts[256];
        format_ranges(idx, ni, hwts, sizeof hwts);
        OUT("%ssocket %d[core %d[hwt %s]]", first ? "" : ", ", pkg ? (int)pkg->logical_index : 0,
            index_within(t->t, core, pkg), hwts);
        first = 0;
    }
    if (first) OUT("nothing");
    OUT(": ");
    /* the map: [core/core...] per package, one character per hwthread */
    int npkg = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_PACKAGE);
    for (int p = 0; p < (npkg > 0 ? npkg : 1); p++) {
        hwloc_const_cpuset_t pset = npkg > 0 ? hwloc_get_obj_by_type(t->t, HWLOC_OBJ_PACKAGE, (unsigned)p)->cpuset
                                             : hwloc_topology_get_topology_cpuset(t->t);
        OUT("[");
        hwloc_obj_t core = NULL;
        int nc = 0;
        while ((core = hwloc_get_next_obj_inside_cpuset_by_type(t->t, pset, HWLOC_OBJ_CORE, core))) {
            if (nc++) OUT("/");
            hwloc_obj_t pu = NULL;
            while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(t->t, core->cpuset, HWLOC_OBJ_PU, pu)))
                OUT("%c", hwloc_bitmap_isset(set, pu->os_index) ? 'B' : '.');
        }
        OUT("]");
    }
#undef OUT
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(in);
}

void la_binding_report(la_topo_t *t, const la_binding_t *b, const char *host, int pid, int rank,
                       char *buf, size_t len)
{
    int n = snprintf(buf, len, "[%s:%05d] MCW rank %d ", host, pid, rank);
    if (n < 0 || (size_t)n >= len) return;
    if (!b || !b->bound) {
        snprintf(buf + n, len - (size_t)n, "is not bound (or bound to all available processors)");
        return;
    }
    n += snprintf(buf + n, len - (size_t)n, "bound to ");
    if ((size_t)n < len) la_topo_describe(t, &b->cpus, buf + n, len - (size_t)n);
    n = (int)strlen(buf);
    if (b->progress == LA_PROGRESS_NONE || (size_t)n + 32 >= len) return;
    n += snprintf(buf + n, len - (size_t)n, "; progress thread %s ",
                  b->progress == LA_PROGRESS_SHARED ? "shares it:" : "bound to");
    if ((size_t)n < len) la_topo_describe(t, &b->progress_cpus, buf + n, len - (size_t)n);
}

static void print_set(FILE *f, hwloc_const_bitmap_t set)
{
    char s[1024];
    hwloc_bitmap_list_snprintf(s, sizeof s, set);
    fputs(s, f);
}

void la_topo_print(la_topo_t *t, FILE *f)
{
    int npkg = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_PACKAGE);
    int nnuma = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_NUMANODE);
    int ncore = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_CORE);
    int npu = hwloc_get_nbobjs_by_type(t->t, HWLOC_OBJ_PU);
    char ver[32];
    fprintf(f, "Machine (hwloc %s%s): %d package%s, %d NUMA node%s, %d core%s, %d hardware thread%s\n",
            la_topo_lib_version(ver, sizeof ver), hwloc_topology_is_thissystem(t->t) ? "" : ", synthetic",
            npkg, npkg == 1 ? "" : "s", nnuma, nnuma == 1 ? "" : "s", ncore, ncore == 1 ? "" : "s",
            npu, npu == 1 ? "" : "s");
    fprintf(f, "  CPUs this process may use: ");
    print_set(f, t->allowed);
    fputc('\n', f);
    for (int p = 0; p < (npkg > 0 ? npkg : 1); p++) {
        hwloc_const_cpuset_t pset = hwloc_topology_get_topology_cpuset(t->t);
        if (npkg > 0) {
            hwloc_obj_t po = hwloc_get_obj_by_type(t->t, HWLOC_OBJ_PACKAGE, (unsigned)p);
            pset = po->cpuset;
            fprintf(f, "  Package %d (P#%u): cpus ", p, po->os_index);
            print_set(f, pset);
            fputc('\n', f);
        }
        for (int k = 0; k < nnuma; k++) {
            hwloc_obj_t no = hwloc_get_obj_by_type(t->t, HWLOC_OBJ_NUMANODE, (unsigned)k);
            if (!no->cpuset || !hwloc_bitmap_isincluded(no->cpuset, pset)) continue;
            fprintf(f, "    NUMA node %d (P#%u): cpus ", k, no->os_index);
            print_set(f, no->cpuset);
            if (no->attr && no->attr->numanode.local_memory)
                fprintf(f, ", %llu MiB", (unsigned long long)(no->attr->numanode.local_memory >> 20));
            fputc('\n', f);
        }
        hwloc_obj_t core = NULL;
        while ((core = hwloc_get_next_obj_inside_cpuset_by_type(t->t, pset, HWLOC_OBJ_CORE, core))) {
            fprintf(f, "    Core %u: hwthreads (cpus) ", core->logical_index);
            print_set(f, core->cpuset);
            fputc('\n', f);
        }
    }
}

const char *la_topo_lib_version(char *buf, size_t len)
{
#ifdef HWLOC_VERSION
    snprintf(buf, len, "%s", HWLOC_VERSION);
#else
    unsigned v = hwloc_get_api_version();
    snprintf(buf, len, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
#endif
    return buf;
}
