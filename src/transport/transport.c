/* SPDX-License-Identifier: MIT */
/* The "not supported" stubs that fill a transport's empty ops slots (transport.h). */
#include "transport/transport.h"

tr_status_t tr_stub_am_bulk(tr_iface_t *tr, uint64_t addr, const tr_am_hdr_t *hdr,
                            const void *payload, size_t len, tr_comp_t *comp)
{
    (void)tr, (void)addr, (void)hdr, (void)payload, (void)len, (void)comp;
    return TR_ERR_UNSUPPORTED;
}

tr_status_t tr_stub_mem_key(tr_iface_t *tr, void *buf, size_t len, tr_rkey_t *key)
{
    (void)tr, (void)len;
    key->w[0] = (uint64_t)(uintptr_t)buf;
    key->w[1] = key->w[2] = 0;
    return TR_OK;
}

void tr_stub_mem_release(tr_iface_t *tr, tr_rkey_t *key)
{
    (void)tr, (void)key;
}

tr_status_t tr_stub_get(tr_iface_t *tr, uint64_t addr, void *local, size_t len,
                        const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)tr, (void)addr, (void)local, (void)len, (void)key, (void)off, (void)comp;
    return TR_ERR_UNSUPPORTED;
}

tr_status_t tr_stub_put(tr_iface_t *tr, uint64_t addr, const void *local, size_t len,
                        const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)tr, (void)addr, (void)local, (void)len, (void)key, (void)off, (void)comp;
    return TR_ERR_UNSUPPORTED;
}

tr_status_t tr_stub_flush(tr_iface_t *tr, uint64_t addr, tr_comp_t *comp)
{
    (void)tr, (void)addr, (void)comp;
    return TR_OK;
}

size_t tr_stub_atomic_max(tr_iface_t *tr, tr_aop_t op, tr_atype_t type, int form)
{
    (void)tr, (void)op, (void)type, (void)form;
    return 0;
}

tr_status_t tr_stub_atomic(tr_iface_t *tr, uint64_t addr, tr_aop_t op, tr_atype_t type,
                           const void *operand, const void *compare, void *result, size_t count,
                           const tr_rkey_t *key, size_t off, tr_comp_t *comp)
{
    (void)tr, (void)addr, (void)op, (void)type, (void)operand, (void)compare, (void)result;
    (void)count, (void)key, (void)off, (void)comp;
    return TR_ERR_UNSUPPORTED;
}

int tr_stub_sleep_prepare(tr_iface_t *tr)
{
    (void)tr;
    return -1;
}

void tr_stub_sleep_wait(tr_iface_t *tr, long max_us)
{
    (void)tr, (void)max_us;
}

void tr_stub_sleep_cancel(tr_iface_t *tr)
{
    (void)tr;
}

int tr_stub_sleep_fd(tr_iface_t *tr)
{
    (void)tr;
    return -1;
}

void tr_stub_sleep_wake(tr_iface_t *tr)
{
    (void)tr;
}

tr_status_t tr_stub_my_address(tr_iface_t *tr, void *addr, size_t *len)
{
    (void)tr, (void)addr, (void)len;
    return TR_ERR_UNSUPPORTED;
}

tr_status_t tr_stub_add_peer(tr_iface_t *tr, const void *addr, size_t len, int32_t id,
                             uint64_t *handle)
{
    (void)tr, (void)addr, (void)len, (void)id, (void)handle;
    return TR_ERR_UNSUPPORTED;
}

void tr_stub_finalize(tr_iface_t *tr)
{
    (void)tr;
}

const char *tr_status_str(tr_status_t st)
{
    switch (st) {
    case TR_OK: return "ok";
    case TR_INPROGRESS: return "in progress";
    case TR_ERR_NO_RESOURCE: return "no resource";
    case TR_ERR_UNSUPPORTED: return "not supported";
    case TR_ERR_REFUSED: return "refused";
    case TR_ERR_UNREACHABLE: return "unreachable";
    case TR_ERR_NO_MEMORY: return "out of memory";
    case TR_ERR_IO: return "I/O error";
    }
    return "?";
}
