/* SPDX-License-Identifier: MIT */
/* Growable index -> pointer tables for user objects (see core.h).  Writers
 * hold the library lock; readers may not (cr_objtab_get), so every store a
 * reader can see is atomic, and a new entry is published by `next` last. */
#include "core/core.h"
#include <stdlib.h>

int cr_objtab_add(cr_objtab_t *t, void *obj)
{
    int idx;
    if (t->nfree > 0) {
        idx = t->free_list[--t->nfree];
    } else {
        idx = t->next;
        int c = idx / CR_OBJTAB_CHUNK;
        if (c >= CR_OBJTAB_MAXCHUNKS) return -1;
        if (!t->chunks[c]) {
            void **chunk = calloc(CR_OBJTAB_CHUNK, sizeof(void *));
            if (!chunk) return -1;
            __atomic_store_n(&t->chunks[c], chunk, __ATOMIC_RELEASE);
        }
    }
    __atomic_store_n(&t->chunks[idx / CR_OBJTAB_CHUNK][idx % CR_OBJTAB_CHUNK], obj, __ATOMIC_RELEASE);
    if (idx == t->next) __atomic_store_n(&t->next, idx + 1, __ATOMIC_RELEASE);
    return idx;
}

void cr_objtab_remove(cr_objtab_t *t, int idx)
{
    if (idx < 0 || idx >= t->next) return;
    __atomic_store_n(&t->chunks[idx / CR_OBJTAB_CHUNK][idx % CR_OBJTAB_CHUNK], NULL, __ATOMIC_RELEASE);
    if (t->nfree == t->free_cap) {
        int cap = t->free_cap ? 2 * t->free_cap : 256;
        int *fl = realloc(t->free_list, (size_t)cap * sizeof(int));
        if (!fl) return; /* the index is simply never reused */
        t->free_list = fl;
        t->free_cap = cap;
    }
    t->free_list[t->nfree++] = idx;
}
