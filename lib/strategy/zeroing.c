/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The pool's entries when it zeroes payloads or slows refills for a test
 * (chosen at creation): alloc (__GFP_ZERO), free (init_on_free), background
 * (pre-zeroed frames from the owner's supply first).
 */

#include <errno.h>

#include <rte_cycles.h>

#include "rxr_pool_private.h"
#include "rxr_log.h"

static inline void
clear_counted(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	uint64_t t0 = rte_rdtsc(), dt;

	rxr_zero_payload_bulk(&p->zp, objs, n);
	dt = rte_rdtsc() - t0;
	if (likely(ls != NULL)) {
		RXR_STAT_ADD(ls->zero_bytes, (uint64_t)n * p->zp.len);
		RXR_STAT_ADD(ls->zero_cycles, dt);
	} else {
		__atomic_fetch_add(&p->zero_bytes_other, (uint64_t)n * p->zp.len,
				__ATOMIC_RELAXED);
		__atomic_fetch_add(&p->zero_cycles_other, dt, __ATOMIC_RELAXED);
	}
}

int
rxrp_wrap_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	const struct rxrp_strategy *st = p->strategy;
	enum rxr_zero_policy zp = p->conf.zero_policy;
	struct rxrp_lcore *ls;
	unsigned int got = 0;

	if (unlikely(p->delay_steps != 0))
		rxr_zero_test_work(p->delay_steps);
	if (zp == RXR_ZERO_POLICY_BACKGROUND) {
		ls = rxrp_owner_lcore(p);
		if (likely(ls != NULL))
			got = rxr_zero_supply_get_bulk(ls->supply, objs, n);
		if (got == n)
			return 0;
	}
	if (unlikely(st->alloc(p, objs + got, n - got) != 0)) {
		if (got != 0)
			st->free(p, objs, got);
		return -ENOBUFS;
	}
	if (zp == RXR_ZERO_POLICY_ALLOC || zp == RXR_ZERO_POLICY_BACKGROUND)
		clear_counted(p, objs + got, n - got);
	return 0;
}

int
rxrp_wrap_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	if (p->conf.zero_policy == RXR_ZERO_POLICY_FREE)
		clear_counted(p, objs, n);
	return p->strategy->free(p, objs, n);
}

/* @return 0 or the negative errno of the payload set-up, unchanged. */
int
rxrp_zero_setup(struct rxr_pool *p)
{
	const struct rxr_pool_conf *c = &p->conf;
	uint32_t len = c->payload_len != 0 ? c->payload_len :
		p->frame_size - RTE_MIN(c->payload_offset, p->frame_size);

	if (c->zero_policy == RXR_ZERO_POLICY_NONE)
		return 0;
	if ((uint64_t)c->payload_offset + len > p->frame_size) {
		RXR_LOG(ERR, "pool %s: payload_offset %u + payload_len %u "
			"is over the frame size, %u", c->name,
			c->payload_offset, len, p->frame_size);
		return -EINVAL;
	}
	if ((unsigned int)c->zero_method >= RXR_ZERO_NR_METHODS) {
		RXR_LOG(ERR, "pool %s: zero_method %d is not a method",
			c->name, (int)c->zero_method);
		return -EINVAL;
	}
	return rxr_zero_payload_init(&p->zp, p->frame_size, c->payload_offset,
			len, c->zero_method);
}

unsigned int
rxr_pool_zero_service(struct rxr_pool *p, unsigned int budget)
{
	struct rxrp_lcore *ls;
	unsigned int n = 0;

	RXRP_FOREACH_LCORE(p, ls, lc)
		if (ls->supply != NULL)
			n += rxr_zero_supply_service(ls->supply, budget);
	return n;
}
