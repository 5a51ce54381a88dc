/* SPDX-License-Identifier: MIT */
/* Info objects: MPI_Info_* and the predefined MPI_INFO_ENV (see info.h).
 *
 * An info is two parallel arrays of strings in insertion order.  Infos are
 * small (a handful of hints), so lookups are linear scans.  Nothing here needs
 * MPI to be initialised: the standard lets every MPI_Info_* call run before
 * MPI_Init and after MPI_Finalize. */
#define _GNU_SOURCE
#include "core/info.h"
#include "core/api_comm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static cr_objtab_t info_tab;
static cr_info_t info_env = { .handle = MPI_INFO_ENV };
static int info_env_filled;     /* 1: static keys set; 2: also the keys known only after MPI_Init */

/* ---- the object ------------------------------------------------------------ */
static int info_find(const cr_info_t *in, const char *key)
{
    for (int i = 0; i < in->nkeys; i++)
        if (strcmp(in->keys[i], key) == 0) return i;
    return -1;
}

/* Set key to value (both already validated).  Returns 0 or -1 (out of memory). */
static int info_put(cr_info_t *in, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v) return -1;
    int i = info_find(in, key);
    if (i >= 0) {            /* overwrite in place: the key keeps its position */
        free(in->vals[i]);
        in->vals[i] = v;
        return 0;
    }
    if (in->nkeys == in->cap) {
        int cap = in->cap ? 2 * in->cap : 8;
        char **k = realloc(in->keys, (size_t)cap * sizeof *k);
        if (k) in->keys = k;
        char **vv = k ? realloc(in->vals, (size_t)cap * sizeof *vv) : NULL;
        if (!vv) {
            free(v);
            return -1;
        }
        in->vals = vv;
        in->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return -1;
    }
    in->keys[in->nkeys] = k;
    in->vals[in->nkeys] = v;
    in->nkeys++;
    return 0;
}

static void info_clear(cr_info_t *in)
{
    for (int i = 0; i < in->nkeys; i++) {
        free(in->keys[i]);
        free(in->vals[i]);
    }
    free(in->keys);
    free(in->vals);
    in->keys = in->vals = NULL;
    in->nkeys = in->cap = 0;
}

/* A new empty info; with_handle: a user info with a handle. */
static int info_new(int with_handle, cr_info_t **out)
{
    *out = NULL;
    cr_info_t *in = calloc(1, sizeof *in);
    if (!in) return cr_error(MPI_ERR_NO_MEM, "no memory for an info object");
    in->handle = MPI_INFO_NULL;
    if (with_handle) {
        int idx = cr_objtab_add(&info_tab, in);
        if (idx < 0) {
            free(in);
            return cr_error(MPI_ERR_NO_MEM, "no memory for an info handle");
        }
        in->handle = CR_H_MAKE(CR_ST_USER, CR_K_INFO, idx);
    }
    *out = in;
    return MPI_SUCCESS;
}

void cr_info_destroy(cr_info_t *in)
{
    if (!in || in == &info_env) return;
    if (in->handle != MPI_INFO_NULL) cr_objtab_remove(&info_tab, CR_H_INDEX(in->handle));
    info_clear(in);
    free(in);
}

/* out gets every key of in (in order). */
static int info_copy_keys(const cr_info_t *in, cr_info_t *out)
{
    for (int i = 0; in && i < in->nkeys; i++)
        if (info_put(out, in->keys[i], in->vals[i]) != 0)
            return cr_error(MPI_ERR_NO_MEM, "no memory to copy an info object");
    return MPI_SUCCESS;
}

/* ---- MPI_INFO_ENV ------------------------------------------------------------ */
const char *cr_thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
    }
}

/* command = argv[0], argv = the other arguments joined by spaces.  With no
 * argv from the caller they come from /proc/self/cmdline, which works before
 * MPI_Init and does not depend on the program passing argc/argv to it. */
static void env_put_command(cr_info_t *in, int argc, char **argv)
{
    char buf[MPI_MAX_INFO_VAL], cmdline[8192];
    int n = 0;
    char *args[256];
    if (argv && argc > 0) {
        for (int i = 0; i < argc && n < 256; i++) args[n++] = argv[i];
    } else {
        FILE *f = fopen("/proc/self/cmdline", "r");
        size_t len = f ? fread(cmdline, 1, sizeof cmdline - 1, f) : 0;
        if (f) fclose(f);
        cmdline[len] = '\0';
        for (size_t pos = 0; pos < len && n < 256; pos += strlen(cmdline + pos) + 1)
            args[n++] = cmdline + pos;
    }
    if (n == 0) return;
    snprintf(buf, sizeof buf, "%s", args[0]);
    info_put(in, "command", buf);
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 1; i < n && used < sizeof buf - 1; i++) {
        int w = snprintf(buf + used, sizeof buf - used, "%s%s", i > 1 ? " " : "", args[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
    if (n > 1) info_put(in, "argv", buf);
}

/* The keys of the standard's MPI_INFO_ENV that are known from how the program
 * was started: command, argv, maxprocs, host, arch, wdir (soft and file have
 * no meaning for a program started by mpiexec without those options, and no
 * thread level is requested at start-up, so those stay unset).  maxprocs is
 * the process count the launcher gives every process in PMI_SIZE (Courier's
 * mpiexec and MPICH's Hydra set it).  The same keys and values before
 * MPI_Init, after it and after MPI_Finalize, as MPI_Info_create_env promises
 * (MPICH's info/infocreateenv checks it). */
static void env_fill(cr_info_t *in, int argc, char **argv)
{
    char buf[4096];
    env_put_command(in, argc, argv);
    if (gethostname(buf, sizeof buf - 1) == 0) {
        buf[sizeof buf - 1] = '\0';
        info_put(in, "host", buf);
    }
    struct utsname u;
    if (uname(&u) == 0) info_put(in, "arch", u.machine);
    if (getcwd(buf, sizeof buf)) info_put(in, "wdir", buf);
    const char *size = getenv("PMI_SIZE");
    if (size && *size) info_put(in, "maxprocs", size);
}

/* MPI_INFO_ENV: the keys of env_fill, and once MPI_Init has run, the thread
 * level it provides and (where no launcher said) maxprocs, the world size. */
static cr_info_t *info_env_get(void)
{
    if (!info_env_filled) {
        env_fill(&info_env, 0, NULL);
        info_env_filled = 1;
    }
    if (info_env_filled == 1 && cr_proc.state != CR_STATE_PRE_INIT) {
        char buf[32];
        snprintf(buf, sizeof buf, "%d", cr_proc.world_size);
        if (!cr_info_get(&info_env, "maxprocs")) info_put(&info_env, "maxprocs", buf);
        info_put(&info_env, "thread_level", cr_thread_level_name(cr_proc.thread_level));
        info_env_filled = 2;
    }
    return &info_env;
}

/* ---- lookups, copies and argument checks ---------------------------------------- */
cr_info_t *cr_info_ptr(MPI_Info h)
{
    if (h == MPI_INFO_ENV) return info_env_get();
    if (CR_H_STORAGE(h) == CR_ST_USER && CR_H_KIND(h) == CR_K_INFO)
        return (cr_info_t *)cr_objtab_get(&info_tab, CR_H_INDEX(h));
    return NULL;
}

int cr_info_new(cr_info_t **out)
{
    return info_new(0, out);
}

int cr_info_copy(const cr_info_t *in, cr_info_t **out)
{
    *out = NULL;
    if (!in) return MPI_SUCCESS;
    cr_info_t *c;
    int err = info_new(0, &c);
    if (!err && (err = info_copy_keys(in, c))) cr_info_destroy(c);
    if (!err) *out = c;
    return err;
}

int cr_info_to_user(const cr_info_t *in, MPI_Info *out)
{
    cr_info_t *c;
    int err = info_new(1, &c);
    if (!err && (err = info_copy_keys(in, c))) cr_info_destroy(c);
    if (!err) *out = c->handle;
    return err;
}

int cr_info_put(cr_info_t *in, const char *key, const char *value)
{
    if (info_put(in, key, value) != 0)
        return cr_error(MPI_ERR_NO_MEM, "no memory for the info key \"%s\"", key);
    return MPI_SUCCESS;
}

const char *cr_info_get(const cr_info_t *in, const char *key)
{
    int i = in && key ? info_find(in, key) : -1;
    return i >= 0 ? in->vals[i] : NULL;
}

/* The info argument of an MPI_Info_* call: MPI_INFO_NULL (in == NULL) is no
 * info object there. */
static int info_arg(const cr_info_t *in, const char *fname)
{
    if (in) return MPI_SUCCESS;
    return cr_error(MPI_ERR_INFO, "%s: info=MPI_INFO_NULL: not an info object", fname);
}

static int check_key(const char *key, const char *fname)
{
    if (!key) return cr_error(MPI_ERR_INFO_KEY, "%s: key=NULL: a key is required", fname);
    size_t n = strlen(key);
    if (n == 0) return cr_error(MPI_ERR_INFO_KEY, "%s: key=\"\": keys must not be empty", fname);
    if (n >= MPI_MAX_INFO_KEY)
        return cr_error(MPI_ERR_INFO_KEY, "%s: key of %zu characters: at most %d are allowed "
                        "(MPI_MAX_INFO_KEY - 1)", fname, n, MPI_MAX_INFO_KEY - 1);
    return MPI_SUCCESS;
}

static int check_value(const char *value, const char *fname)
{
    if (!value) return cr_error(MPI_ERR_INFO_VALUE, "%s: value=NULL: a value is required", fname);
    size_t n = strlen(value);
    if (n >= MPI_MAX_INFO_VAL)
        return cr_error(MPI_ERR_INFO_VALUE, "%s: value of %zu characters: at most %d are allowed "
                        "(MPI_MAX_INFO_VAL - 1)", fname, n, MPI_MAX_INFO_VAL - 1);
    return MPI_SUCCESS;
}

/* ---- MPI_Info_* ------------------------------------------------------------- */
int core_info_create(MPI_Info *info)
{
    cr_info_t *in;
    int err = info_new(1, &in);
    if (err) return err;
    *info = in->handle;
    return MPI_SUCCESS;
}

int core_info_set(cr_info_t *info, const char *key, const char *value)
{
    int err;
    if ((err = info_arg(info, "MPI_Info_set")) || (err = check_key(key, "MPI_Info_set")) ||
        (err = check_value(value, "MPI_Info_set")))
        return err;
    if (info_put(info, key, value) != 0)
        return cr_error(MPI_ERR_NO_MEM, "MPI_Info_set: key=\"%s\": out of memory", key);
    return MPI_SUCCESS;
}

int core_info_delete(cr_info_t *info, const char *key)
{
    int err;
    if ((err = info_arg(info, "MPI_Info_delete")) || (err = check_key(key, "MPI_Info_delete")))
        return err;
    int i = info_find(info, key);
    if (i < 0)
        return cr_error(MPI_ERR_INFO_NOKEY, "MPI_Info_delete: key=\"%s\": no such key", key);
    free(info->keys[i]);
    free(info->vals[i]);
    /* keep the others in order, for MPI_Info_get_nthkey */
    memmove(info->keys + i, info->keys + i + 1, (size_t)(info->nkeys - i - 1) * sizeof(char *));
    memmove(info->vals + i, info->vals + i + 1, (size_t)(info->nkeys - i - 1) * sizeof(char *));
    info->nkeys--;
    return MPI_SUCCESS;
}

int core_info_get(cr_info_t *info, const char *key, int valuelen, char *value, int *flag)
{
    int err;
    if ((err = info_arg(info, "MPI_Info_get")) || (err = check_key(key, "MPI_Info_get")))
        return err;
    if (valuelen < 0)
        return cr_error(MPI_ERR_ARG, "MPI_Info_get: valuelen=%d: must not be negative", valuelen);
    int i = info_find(info, key);
    *flag = i >= 0;
    if (i < 0) return MPI_SUCCESS;
    if (!value && valuelen > 0)
        return cr_error(MPI_ERR_ARG, "MPI_Info_get: value=NULL with valuelen=%d", valuelen);
    /* value has room for valuelen characters and the NUL: a longer value is
     * truncated, as the standard says. */
    if (value) {
        size_t n = strlen(info->vals[i]);
        if (n > (size_t)valuelen) n = (size_t)valuelen;
        memcpy(value, info->vals[i], n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}

int core_info_get_valuelen(cr_info_t *info, const char *key, int *valuelen, int *flag)
{
    int err;
    if ((err = info_arg(info, "MPI_Info_get_valuelen")) ||
        (err = check_key(key, "MPI_Info_get_valuelen")))
        return err;
    int i = info_find(info, key);
    *flag = i >= 0;
    if (i >= 0) *valuelen = (int)strlen(info->vals[i]);
    return MPI_SUCCESS;
}

/* MPI-4: *buflen is the size of value, NUL included, on entry; on return it is
 * the size the whole value needs (length + 1).  At most *buflen - 1 characters
 * and a NUL are stored; *buflen == 0 stores nothing (value may then be NULL). */
int core_info_get_string(cr_info_t *info, const char *key, int *buflen, char *value, int *flag)
{
    int err;
    if ((err = info_arg(info, "MPI_Info_get_string")) ||
        (err = check_key(key, "MPI_Info_get_string")))
        return err;
    if (*buflen < 0)
        return cr_error(MPI_ERR_ARG, "MPI_Info_get_string: *buflen=%d: must not be negative",
                        *buflen);
    int i = info_find(info, key);
    *flag = i >= 0;
    if (i < 0) return MPI_SUCCESS;
    size_t n = strlen(info->vals[i]);
    if (*buflen > 0) {
        if (!value)
            return cr_error(MPI_ERR_ARG, "MPI_Info_get_string: value=NULL with *buflen=%d", *buflen);
        size_t c = n < (size_t)*buflen - 1 ? n : (size_t)*buflen - 1;
        memcpy(value, info->vals[i], c);
        value[c] = '\0';
    }
    *buflen = (int)n + 1;
    return MPI_SUCCESS;
}

int core_info_get_nkeys(cr_info_t *info, int *nkeys)
{
    int err = info_arg(info, "MPI_Info_get_nkeys");
    if (err) return err;
    *nkeys = info->nkeys;
    return MPI_SUCCESS;
}

int core_info_get_nthkey(cr_info_t *info, int n, char *key)
{
    int err = info_arg(info, "MPI_Info_get_nthkey");
    if (err) return err;
    if (n < 0 || n >= info->nkeys)
        return cr_error(MPI_ERR_ARG, "MPI_Info_get_nthkey: n=%d: the info has %d keys", n,
                        info->nkeys);
    if (!key) return cr_error(MPI_ERR_ARG, "MPI_Info_get_nthkey: key=NULL");
    strcpy(key, info->keys[n]);   /* fits: keys are shorter than MPI_MAX_INFO_KEY */
    return MPI_SUCCESS;
}

int core_info_dup(cr_info_t *info, MPI_Info *newinfo)
{
    int err = info_arg(info, "MPI_Info_dup");
    return err ? err : cr_info_to_user(info, newinfo);
}

int core_info_free(cr_info_t *info)
{
    int err = info_arg(info, "MPI_Info_free");
    if (err) return err;
    if (info == &info_env)
        return cr_error(MPI_ERR_INFO, "MPI_Info_free: info=MPI_INFO_ENV: a predefined info "
                        "cannot be freed");
    cr_info_destroy(info);
    return MPI_SUCCESS;
}

/* A new info with what MPI_INFO_ENV would hold for a program started with
 * argc/argv (the standard's apis.json spells argv `char argv[]`;
 * maint/notes.py PROTO_FIXES makes it the program's char *argv[]). */
int core_info_create_env(int argc, char *argv[], MPI_Info *info)
{
    cr_info_t *in;
    int err = info_new(1, &in);
    if (err) return err;
    env_fill(in, argc, argv);
    *info = in->handle;
    return MPI_SUCCESS;
}
