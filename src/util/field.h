/* SPDX-License-Identifier: MIT */
/* A key=value field of a line of blank-separated fields, as the PMI-1 wire
 * protocol writes them (cmd=get kvsname=k key=x).  Shared by the library's
 * PMI client (src/pmi/pmi_wire.c) and mpiexec's PMI server (launcher/kvs.c). */
#ifndef UT_FIELD_H
#define UT_FIELD_H

#include <string.h>

/* The value of key in line, copied into out (outlen bytes, cut to fit and
 * NUL-terminated; out may be NULL).  Returns the value's full length, or -1
 * when the key is absent. */
static inline int ut_line_field(const char *line, const char *key, char *out, size_t outlen)
{
    size_t klen = strlen(key);
    const char *p = line;
    while (*p) {
        while (*p == ' ' || *p == '\t') p++;
        if (!strncmp(p, key, klen) && p[klen] == '=') {
            const char *v = p + klen + 1;
            size_t vlen = strcspn(v, " \t");
            if (out && outlen) {
                size_t c = vlen < outlen - 1 ? vlen : outlen - 1;
                memcpy(out, v, c);
                out[c] = '\0';
            }
            return (int)vlen;
        }
        p += strcspn(p, " \t");
    }
    return -1;
}

#endif
