/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Zeroing policies around a strategy: alloc (clear before handing out, as
 * __GFP_ZERO / init_on_alloc), free (clear when given back, init_on_free)
 * and background (the owner takes pre-zeroed frames from its supply first,
 * clearing only what the supply could not give). Picked once at creation;
 * with the policy none no wrapper is installed at all. The layer sits just
 * above the strategy (enum rxrp_layer) and calls it through rxrp_below().
 */

#include <errno.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_log.h>

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

static int
zero_on_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	int ret = rxrp_below(p, RXRP_LAYER_ZERO)->alloc(p, objs, n);

	if (likely(ret == 0))
		clear_counted(p, objs, n);
	return ret;
}

static void
zero_on_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	clear_counted(p, objs, n);
	rxrp_below(p, RXRP_LAYER_ZERO)->free(p, objs, n);
}

static int
zero_background_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	const struct rxrp_fns *base = rxrp_below(p, RXRP_LAYER_ZERO);
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	unsigned int got = 0;
	int ret;

	if (likely(ls != NULL))
		got = rxr_zero_supply_get_bulk(ls->supply, objs, n);
	if (got == n)
		return 0;
	ret = base->alloc(p, objs + got, n - got);
	if (unlikely(ret != 0)) {
		base->free(p, objs, got);
		return ret;
	}
	clear_counted(p, objs + got, n - got);
	return 0;
}

/* @return 0 or the negative errno of the payload set-up, unchanged. */
int
rxrp_zero_setup(struct rxr_pool *p)
{
	const struct rxr_pool_conf *c = &p->conf;
	uint32_t len = c->payload_len != 0 ? c->payload_len :
		p->frame_size - RTE_MIN(c->payload_offset, p->frame_size);
	int ret;

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
	ret = rxr_zero_payload_init(&p->zp, p->frame_size, c->payload_offset,
			len, c->zero_method);
	if (ret != 0)
		return ret;
	switch (c->zero_policy) {
	case RXR_ZERO_POLICY_ALLOC:
		return rxrp_layer_push(p, RXRP_LAYER_ZERO, zero_on_alloc, NULL);
	case RXR_ZERO_POLICY_FREE:
		return rxrp_layer_push(p, RXRP_LAYER_ZERO, NULL, zero_on_free);
	case RXR_ZERO_POLICY_BACKGROUND:
		return rxrp_layer_push(p, RXRP_LAYER_ZERO,
				zero_background_alloc, NULL);
	default:
		return -EINVAL;
	}
}

int
rxrp_zero_lcore_init(struct rxr_pool *p, struct rxrp_lcore *ls, int socket)
{
	const struct rxr_pool_conf *c = &p->conf;
	struct rxr_zero_supply_conf sc = {
		.name = c->name,
		.zone = p->zone[ls->node],
		.capacity = c->zero_supply,
		.payload_offset = p->zp.offset,
		.payload_len = p->zp.len,
		.method = c->zero_method,
		.socket_id = socket,
	};

	if (c->zero_policy != RXR_ZERO_POLICY_BACKGROUND)
		return 0;
	ls->supply = rxr_zero_supply_create(&sc);
	if (ls->supply == NULL)
		return -(rte_errno != 0 ? rte_errno : ENOMEM);
	return 0;
}

unsigned int
rxr_pool_zero_service(struct rxr_pool *p, unsigned int budget)
{
	unsigned int n = 0;

	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (p->lcore[lc] != NULL && p->lcore[lc]->supply != NULL)
			n += rxr_zero_supply_service(p->lcore[lc]->supply, budget);
	return n;
}
