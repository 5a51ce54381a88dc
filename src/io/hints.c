/* SPDX-License-Identifier: MIT */
/* File hints: the ROMIO names Courier understands (cb_buffer_size, cb_nodes,
 * romio_cb_read/write, romio_ds_read/write, ind_rd/wr_buffer_size,
 * striping_factor/unit, romio_no_indep_rw, file_perm, and Courier's
 * courier_direct_min_run and courier_coll_read_direct), their defaults from the settings table, and the
 * info object MPI_File_get_info returns.  Keys we do not interpret are kept
 * and reported back, as the standard allows. */
#define _GNU_SOURCE
#include "io/io.h"
#include "util/settings.h"
#include "core/info.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void io_hints_default(io_hints_t *h)
{
    memset(h, 0, sizeof *h);
    h->cb_buffer_size = ut_settings.io_cb_buffer_size > 0 ? ut_settings.io_cb_buffer_size : 1;
    h->cb_nodes = ut_settings.io_cb_nodes;
    h->cb_per_node = ut_settings.io_cb_per_node;
    h->cb_read = ut_settings.io_cb_read;
    h->cb_write = ut_settings.io_cb_write;
    h->ds_read = ut_settings.io_ds_read;
    h->ds_write = ut_settings.io_ds_write;
    h->ind_rd_buffer_size = ut_settings.io_ind_rd_buffer_size > 0 ? ut_settings.io_ind_rd_buffer_size : 1;
    h->ind_wr_buffer_size = ut_settings.io_ind_wr_buffer_size > 0 ? ut_settings.io_ind_wr_buffer_size : 1;
    h->direct_min_run = ut_settings.io_direct_min_run;
    h->coll_read_direct = ut_settings.io_coll_read_direct;
    h->file_perm = -1;
}

void io_kv_free(io_kv_t *kv)
{
    for (int i = 0; i < kv->n; i++) {
        free(kv->keys[i]);
        free(kv->vals[i]);
    }
    free(kv->keys);
    free(kv->vals);
    memset(kv, 0, sizeof *kv);
}

static int kv_put(io_kv_t *kv, const char *key, const char *val)
{
    for (int i = 0; i < kv->n; i++)
        if (!strcmp(kv->keys[i], key)) {
            char *v = strdup(val);
            if (!v) return -1;
            free(kv->vals[i]);
            kv->vals[i] = v;
            return 0;
        }
    if (kv->n == kv->cap) {
        int cap = kv->cap ? 2 * kv->cap : 8;
        char **k = realloc(kv->keys, (size_t)cap * sizeof *k);
        if (!k) return -1;
        kv->keys = k;
        char **v = realloc(kv->vals, (size_t)cap * sizeof *v);
        if (!v) return -1;
        kv->vals = v;
        kv->cap = cap;
    }
    char *k = strdup(key), *v = strdup(val);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    kv->keys[kv->n] = k;
    kv->vals[kv->n] = v;
    kv->n++;
    return 0;
}

/* "enable" / "disable" / "automatic" (and true/false). */
static int tri(const char *v, long *out)
{
    if (!strcasecmp(v, "enable") || !strcasecmp(v, "true")) *out = IO_ENABLE;
    else if (!strcasecmp(v, "disable") || !strcasecmp(v, "false")) *out = IO_DISABLE;
    else if (!strcasecmp(v, "automatic") || !strcasecmp(v, "auto")) *out = IO_AUTO;
    else return -1;
    return 0;
}

/* A positive byte count, with an optional k/m/g suffix. */
static int bytes(const char *v, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || n <= 0) return -1;
    switch (tolower((unsigned char)*end)) {
    case 'k': n <<= 10; end++; break;
    case 'm': n <<= 20; end++; break;
    case 'g': n <<= 30; end++; break;
    default: break;
    }
    if (*end) return -1;
    *out = n;
    return 0;
}

static int count(const char *v, long *out)
{
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < 0) return -1;
    *out = n;
    return 0;
}

int io_hints_apply(io_hints_t *h, io_kv_t *kept, const cr_info_t *info, const char *fname)
{
    if (!info) return MPI_SUCCESS;
    for (int i = 0; i < info->nkeys; i++) {
        const char *k = info->keys[i], *v = info->vals[i];
        int bad = 0;
        long x;
        if (!strcmp(k, "cb_buffer_size")) bad = bytes(v, &h->cb_buffer_size);
        else if (!strcmp(k, "cb_nodes")) {
            bad = count(v, &x);
            if (!bad) h->cb_nodes = x;
        } else if (!strcmp(k, "romio_cb_read")) bad = tri(v, &h->cb_read);
        else if (!strcmp(k, "romio_cb_write")) bad = tri(v, &h->cb_write);
        else if (!strcmp(k, "collective_buffering")) {
            bad = tri(v, &x);
            if (!bad && x != IO_AUTO) h->cb_read = h->cb_write = x;
        } else if (!strcmp(k, "romio_ds_read")) bad = tri(v, &h->ds_read);
        else if (!strcmp(k, "romio_ds_write")) bad = tri(v, &h->ds_write);
        else if (!strcmp(k, "ind_rd_buffer_size")) bad = bytes(v, &h->ind_rd_buffer_size);
        else if (!strcmp(k, "ind_wr_buffer_size")) bad = bytes(v, &h->ind_wr_buffer_size);
        else if (!strcmp(k, "courier_direct_min_run")) bad = bytes(v, &h->direct_min_run);
        else if (!strcmp(k, "courier_coll_read_direct")) bad = bytes(v, &h->coll_read_direct);
        else if (!strcmp(k, "striping_factor")) bad = count(v, &h->striping_factor);
        else if (!strcmp(k, "striping_unit")) bad = count(v, &h->striping_unit);
        else if (!strcmp(k, "romio_no_indep_rw")) {
            if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "enable")) h->no_indep_rw = 1;
            else if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "disable")) h->no_indep_rw = 0;
            else bad = -1;
        } else if (!strcmp(k, "file_perm")) {
            char *end;
            errno = 0;
            x = strtol(v, &end, 8);
            bad = errno || end == v || *end || x < 0 || x > 07777 ? -1 : 0;
            if (!bad) h->file_perm = x;
        } else if (kv_put(kept, k, v)) {
            return cr_error(MPI_ERR_NO_MEM, "%s: no memory for hints", fname);
        }
        /* a value we cannot use is ignored, as hints may be (MPI 4.0 14.2.8) and as
         * ROMIO does: the hint keeps its previous value */
        (void)bad;
    }
    return MPI_SUCCESS;
}

static const char *tri_name(long v)
{
    return v == IO_ENABLE ? "enable" : v == IO_DISABLE ? "disable" : "automatic";
}

int io_hints_to_user(const io_hints_t *h, const io_kv_t *kept, int naggr, MPI_Info *out)
{
    cr_info_t *io;
    int err = cr_info_new(&io);
    if (err) return err;
    char v[64];
#define PUT(key, ...)                                  \
    do {                                               \
        snprintf(v, sizeof v, __VA_ARGS__);            \
        if ((err = cr_info_put(io, key, v))) goto out;  \
    } while (0)
    PUT("cb_buffer_size", "%ld", h->cb_buffer_size);
    PUT("romio_cb_read", "%s", tri_name(h->cb_read));
    PUT("romio_cb_write", "%s", tri_name(h->cb_write));
    PUT("cb_nodes", "%d", naggr);
    PUT("romio_no_indep_rw", "%s", h->no_indep_rw ? "true" : "false");
    PUT("romio_ds_read", "%s", tri_name(h->ds_read));
    PUT("romio_ds_write", "%s", tri_name(h->ds_write));
    PUT("ind_rd_buffer_size", "%ld", h->ind_rd_buffer_size);
    PUT("ind_wr_buffer_size", "%ld", h->ind_wr_buffer_size);
    PUT("courier_direct_min_run", "%ld", h->direct_min_run);
    PUT("courier_coll_read_direct", "%ld", h->coll_read_direct);
    if (h->striping_factor) PUT("striping_factor", "%ld", h->striping_factor);
    if (h->striping_unit) PUT("striping_unit", "%ld", h->striping_unit);
    if (h->file_perm >= 0) PUT("file_perm", "%lo", h->file_perm);
#undef PUT
    for (int i = 0; i < kept->n; i++)
        if ((err = cr_info_put(io, kept->keys[i], kept->vals[i]))) goto out;
    err = cr_info_to_user(io, out);
out:
    cr_info_destroy(io);
    return err;
}
