/* SPDX-License-Identifier: MIT */
/* The adaptive protocol choice for time-sliced peers: the decisions of
 * adapt.h, with no clock and no transport of their own (the unit test drives
 * them with made-up observations). */
#include "core/adapt.h"

void cr_adapt_init(cr_adapt_t *a, const cr_adapt_cfg_t *cfg, int oversubscribed)
{
    a->eager = cfg->mode == CR_ADAPT_FORCE || (cfg->mode == CR_ADAPT_AUTO && oversubscribed);
    a->since_probe = 0;
    a->interval = cfg->probe_every;
    a->slow = a->fast = a->unknown = 0;
}

int cr_adapt_choose_eager(cr_adapt_t *a, const cr_adapt_cfg_t *cfg)
{
    if (cfg->mode == CR_ADAPT_FORCE) return 1;
    if (cfg->mode != CR_ADAPT_AUTO || !a->eager) return 0;
    if (++a->since_probe >= a->interval) {
        a->since_probe = 0;
        return 0;            /* this one measures whether the peer polls again */
    }
    return 1;
}

int cr_adapt_verdict(const cr_adapt_cfg_t *cfg, const cr_adapt_obs_t *o)
{
    if (o->peer_slept) return CR_PEER_NOT_RUNNING;
    if (o->look_ns <= cfg->slow_ns) return CR_PEER_RUNNING;
    if (cfg->busy_bytes_per_us && o->copied >= o->look_ns / 1000u * cfg->busy_bytes_per_us)
        return CR_PEER_RUNNING;
    if (o->peer_idle || !o->queued) return CR_PEER_NOT_RUNNING;
    return CR_PEER_UNKNOWN;
}

int cr_adapt_observe(cr_adapt_t *a, const cr_adapt_cfg_t *cfg, const cr_adapt_obs_t *o)
{
    if (cfg->mode != CR_ADAPT_AUTO) return CR_PEER_UNKNOWN;
    int v = cr_adapt_verdict(cfg, o);
    if (v == CR_PEER_NOT_RUNNING) {
        a->slow++;
        if (a->eager) {
            /* a probe found it still not running: probe half as often */
            uint32_t max = cfg->probe_max > cfg->probe_every ? cfg->probe_max : cfg->probe_every;
            a->interval = a->interval > max / 2 ? max : a->interval * 2;
        } else {
            a->eager = 1;
            a->since_probe = 0;
            a->interval = cfg->probe_every;
        }
    } else if (v == CR_PEER_RUNNING) {
        a->fast++;
        a->eager = 0;
        a->interval = cfg->probe_every;
    } else {
        a->unknown++;
    }
    return v;
}
