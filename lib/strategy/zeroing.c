/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Zeroing policies around a strategy: alloc (clear before handing out, as
 * __GFP_ZERO / init_on_alloc), free (clear when given back, init_on_free)
 * and background (the owner takes pre-zeroed frames from its supply first,
 * clearing only what the supply could not give). Picked once at creation;
 * with the policy none no wrapper is installed at all.
 */

#include <errno.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "rxr_pool_private.h"

static inline void
clear_counted(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct pool_lcore *ls = owner_lcore(p);
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
	int ret = p->base.alloc(p, objs, n);

	if (likely(ret == 0))
		clear_counted(p, objs, n);
	return ret;
}

static void
zero_on_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	clear_counted(p, objs, n);
	p->base.free(p, objs, n);
}

static int
zero_background_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct pool_lcore *ls = owner_lcore(p);
	unsigned int got = 0;
	int ret;

	if (likely(ls != NULL))
		got = rxr_zero_supply_get_bulk(ls->supply, objs, n);
	if (got == n)
		return 0;
	ret = p->base.alloc(p, objs + got, n - got);
	if (unlikely(ret != 0)) {
		p->base.free(p, objs, got);
		return ret;
	}
	clear_counted(p, objs + got, n - got);
	return 0;
}

int
pool_zero_setup(struct rxr_pool *p)
{
	const struct rxr_pool_conf *c = &p->conf;
	uint32_t len = c->payload_len != 0 ? c->payload_len :
		p->frame_size - RTE_MIN(c->payload_offset, p->frame_size);
	int ret;

	p->base = p->ops;
	if (c->zero_policy == RXR_ZERO_POLICY_NONE)
		return 0;
	ret = rxr_zero_payload_init(&p->zp, p->frame_size, c->payload_offset,
			len, c->zero_method);
	if (ret != 0)
		return ret;
	switch (c->zero_policy) {
	case RXR_ZERO_POLICY_ALLOC:
		p->ops.alloc = zero_on_alloc;
		break;
	case RXR_ZERO_POLICY_FREE:
		p->ops.free = zero_on_free;
		break;
	case RXR_ZERO_POLICY_BACKGROUND:
		p->ops.alloc = zero_background_alloc;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

void
pool_zero_lcore_init(struct rxr_pool *p, struct pool_lcore *ls, int socket,
		int *err)
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

	*err = 0;
	if (c->zero_policy != RXR_ZERO_POLICY_BACKGROUND)
		return;
	ls->supply = rxr_zero_supply_create(&sc);
	if (ls->supply == NULL)
		*err = rte_errno != 0 ? rte_errno : ENOMEM;
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
