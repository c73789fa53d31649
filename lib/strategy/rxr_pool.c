/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <stdalign.h>
#include <limits.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_pause.h>
#include <rte_reciprocal.h>

#include <unistd.h>

#include "rxr_pool_private.h"
#include "rxr_log.h"

static void lcore_flush(struct rxr_pool *p, struct rxrp_lcore *ls);

/* --- refill latency ------------------------------------------------------ */

/* One step of the testing slowdown's chain: each depends on the last. */
static inline uint64_t
delay_step(uint64_t x)
{
	x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	__asm__ volatile("" : "+r" (x));
	return x;
}

/* No instruction after it starts before every one before it is done. */
static inline void
delay_fence(void)
{
#if defined(RTE_ARCH_X86)
	__asm__ volatile("lfence" : : : "memory");
#else
	rte_mb();
#endif
}

/*
 * Testing slowdown: a fixed amount of work in every refill. Spinning on
 * the clock would end early in wall time for a thread preempted inside
 * it, so the slowdown would shrink as the machine gets busier; the work
 * takes the same CPU time whatever the load. Fenced on both sides, so
 * that it does not run in the shadow of the refill's cache misses: its
 * cost adds in full, linear in the cycles asked.
 */
static void
test_delay(const struct rxr_pool *p)
{
	uint64_t x = p->delay_steps;

	delay_fence();
	for (uint64_t i = 0; i < p->delay_steps; i++)
		x = delay_step(x);
	__asm__ volatile("" : : "r" (x));
	delay_fence();
}

/* Steps for test_refill_delay cycles: the fastest of a few timings. */
static uint64_t
delay_steps_for(uint32_t cycles)
{
	const uint64_t n = 1 << 16;
	uint64_t best = UINT64_MAX, x = 1;

	for (int t = 0; t < 5; t++) {
		uint64_t t0 = rte_rdtsc_precise();

		for (uint64_t i = 0; i < n; i++)
			x = delay_step(x);
		best = RTE_MIN(best, rte_rdtsc_precise() - t0);
	}
	__asm__ volatile("" : : "r" (x));
	best = RTE_MAX(best, (uint64_t)1);
	return RTE_MAX((uint64_t)1, ((uint64_t)cycles * n + best - 1) / best);
}

/*
 * The timing layer. Only in the poll iterations the poll lcore samples
 * (rxr_pool_sample()): timing every call would cost more than the refill.
 */
static int
timed_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	rxr_pool_alloc_t untimed = rxrp_below(p, RXRP_LAYER_TIMING)->alloc;
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	uint64_t t0, dt, ns;
	int ret;

	if (ls == NULL || !ls->sampling) {
		if (unlikely(p->conf.test_refill_delay != 0))
			test_delay(p);
		return untimed(p, objs, n);
	}
	t0 = rte_rdtsc();
	/* Inside the timed region: the slowdown shows in the refill cost. */
	if (unlikely(p->conf.test_refill_delay != 0))
		test_delay(p);
	ret = untimed(p, objs, n);
	dt = rte_rdtsc() - t0;
	ns = (uint64_t)(((unsigned __int128)dt * p->ns_mult) >> 32);
	RXR_STAT_ADD(ls->refill_calls, 1);
	RXR_STAT_ADD(ls->refill_frames, ret == 0 ? n : 0);
	RXR_STAT_ADD(ls->refill_cycles, dt);
	RXR_STAT_ADD(ls->sample_cycles, dt);
	RXR_STAT_ADD(ls->hist[RTE_MIN(ns == 0 ? 0 : 64 - __builtin_clzll(ns),
		RXR_HIST_BUCKETS - 1)], 1);
	return ret;
}

static void
timed_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	rxr_pool_free_t untimed = rxrp_below(p, RXRP_LAYER_TIMING)->free;
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	uint64_t t0;

	if (ls == NULL || !ls->sampling) {
		untimed(p, objs, n);
		return;
	}
	t0 = rte_rdtsc();
	untimed(p, objs, n);
	RXR_STAT_ADD(ls->sample_cycles, rte_rdtsc() - t0);
}

/* The timing layer in ops (a window is open) or out of the way. */
static void
timing_set(struct rxr_pool *p, bool on)
{
	const struct rxrp_fns *b = rxrp_below(p, RXRP_LAYER_TIMING);

	rxrp_ops_set(p, on ? timed_alloc : b->alloc, on ? timed_free : b->free);
}

void
rxr_pool_sample(struct rxr_pool *p, bool on)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);

	if (!p->conf.latency || ls == NULL)
		return;
	if (p->timing_on_demand && ls->sampling != on) {
		rxr_spinlock_lock(&p->sample_lock);
		p->sampling_lcores += on ? 1 : -1;
		/* Not while a layer sits above it (adoption). */
		if (p->top == RXRP_LAYER_TIMING + 1)
			timing_set(p, p->sampling_lcores != 0);
		rxr_spinlock_unlock(&p->sample_lock);
	}
	ls->sampling = on;
	/* The inline owner path makes no call to time: left for the window. */
	if (p->ops.owner != NULL)
		p->owner[ls->lcore].pcp = on ? NULL : ls->owner.pcp;
}

/* --- creation ------------------------------------------------------------ */

/* One message per rejected field, naming the field and its value. */
#define CONF_REJECT(c, fmt, ...) do { \
	RXR_LOG(ERR, "pool %s: " fmt, (c)->name, __VA_ARGS__); \
	return -EINVAL; \
} while (0)

static int
conf_defaults(struct rxr_pool_conf *c)
{
	const struct rxrp_strategy *st;
	char why[160];
	unsigned int lc;

	if (rxrp_strategy_get(c->strategy) == NULL)
		CONF_REJECT(c, "strategy %d is not a strategy (0 to %d)",
			(int)c->strategy, RXR_STRATEGY_MAX - 1);
	if (c->batch == 0)
		c->batch = RXR_PCP_BATCH_DEFAULT;
	if (c->high == 0)
		c->high = RTE_MAX(RXR_PCP_HIGH_DEFAULT, c->batch);
	if (c->high < c->batch)
		CONF_REJECT(c, "high %u is below batch %u", c->high, c->batch);
	if (c->fake_nodes == 0)
		c->fake_nodes = 1;
	if (c->fake_nodes > RXR_POOL_MAX_NODES)
		CONF_REJECT(c, "fake_nodes %u is over the most, %u",
			c->fake_nodes, RXR_POOL_MAX_NODES);
	if (c->zero_supply == 0)
		c->zero_supply = 2 * c->batch;
	if (c->zero_policy > RXR_ZERO_POLICY_BACKGROUND)
		CONF_REJECT(c, "zero_policy %d is not a zeroing policy",
			(int)c->zero_policy);
	if (c->nr_poll_lcores > RTE_MAX_LCORE)
		CONF_REJECT(c, "nr_poll_lcores %u is over RTE_MAX_LCORE, %u",
			c->nr_poll_lcores, RTE_MAX_LCORE);
	if (c->nr_poll_lcores == 0)
		RTE_LCORE_FOREACH(lc)
			c->poll_lcores[c->nr_poll_lcores++] = lc;
	for (unsigned int i = 0; i < c->nr_poll_lcores; i++)
		if (c->poll_lcores[i] >= RTE_MAX_LCORE)
			CONF_REJECT(c, "poll_lcores[%u] %u is not an lcore "
				"id (below %u)", i, c->poll_lcores[i],
				RTE_MAX_LCORE);
	st = rxrp_strategy_get(c->strategy);
	if (st->available != NULL && !st->available(why, sizeof(why)))
		CONF_REJECT(c, "strategy %s is not available: %s", st->name,
			why);
	if (rxr_strategy_settings_fill(c->strategy, c->settings, why,
			sizeof(why)) != 0)
		CONF_REJECT(c, "%s setting %s", st->name, why);
	return st->conf_check != NULL ? st->conf_check(c) : 0;
}

/* A poll lcore's state, the core's and the strategy's. @return 0, -errno. */
static int
lcore_create(struct rxr_pool *p, unsigned int lcore, unsigned int node,
		struct rxrp_lcore **out)
{
	const struct rxrp_strategy *st = p->strategy;
	int socket = rte_lcore_to_socket_id(lcore);
	struct rxrp_lcore *ls;
	int ret = -ENOMEM;

	if (socket < 0 || (unsigned int)socket >= RTE_MAX_NUMA_NODES)
		socket = SOCKET_ID_ANY;
	if (st->lcore_priv_size > RXRP_LCORE_PRIV_SIZE) {
		RXR_LOG(ERR, "pool %s: strategy %s wants %zu bytes per "
			"lcore, over %u", p->name, st->name,
			st->lcore_priv_size, RXRP_LCORE_PRIV_SIZE);
		return -EINVAL;
	}
	ls = rte_zmalloc_socket("rxr_pool_lcore", sizeof(*ls),
			RTE_CACHE_LINE_SIZE, socket);
	if (ls == NULL)
		return -ENOMEM;
	ls->lcore = lcore;
	ls->node = node;
	ls->defer_head = RXRP_DEFER_EMPTY;
	ls->pcp = rxr_pcp_create(p->zone[node], p->conf.high, p->conf.batch,
			socket);
	if (ls->pcp == NULL) {
		ret = -rte_errno;
		goto fail;
	}
	ls->owner = (struct rxr_pool_owner){
		.pcp = ls->pcp, .count = &ls->pcp->count,
		.frames = ls->pcp->frames, .max = ls->pcp->high,
		.pcp_frames = true, .alloc_stat = &ls->pcp->stats.alloc,
		.free_stat = &ls->pcp->stats.free,
	};
	if (st->lcore_init != NULL) {
		ret = st->lcore_init(p, ls, socket);
		if (ret != 0)
			goto fail;
	}
	ret = rxrp_zero_lcore_init(p, ls, socket);
	if (ret != 0) {
		if (st->lcore_fini != NULL)
			st->lcore_fini(p, ls);
		goto fail;
	}
	*out = ls;
	return 0;
fail:
	rxr_pcp_destroy(ls->pcp);
	rte_free(ls);
	return ret;
}

/*
 * The inline owner path of rxr_pool_alloc_bulk(): only when the pool calls
 * the strategy's functions unwrapped and the strategy says their fast path
 * is its owner stack under the nesting counter; with bulk off, for
 * one-frame calls only.
 */
static void
owner_inline_setup(struct rxr_pool *p)
{
	/* Latency sampling alone leaves the inline path only while it samples. */
	bool sampling_only = p->top == RXRP_LAYER_TIMING + 1 &&
		p->below[RXRP_LAYER_ZERO].alloc == NULL &&
		p->conf.test_refill_delay == 0;

	if (!(p->strategy->caps & RXR_STRATEGY_CAP_OWNER_INLINE) ||
			p->nr_zones != 1 ||
			(p->top != RXRP_LAYER_STRATEGY + 1 && !sampling_only))
		return;
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (p->lcore[lc] != NULL)
			p->owner[lc] = p->lcore[lc]->owner;
	p->ops.owner_max = p->conf.bulk ? UINT_MAX : 1;
	p->ops.owner = p->owner;
}

/*
 * The zones, one per (fake) node, and the deferred lists' slots for every
 * frame they may hold. @return 0, or the positive errno.
 */
static int
zones_create(struct rxr_pool *p, uint32_t max_frames, uint32_t max_regions)
{
	int socket = p->conf.socket_id;
	uint32_t total = 0;

	for (unsigned int n = 0; n < p->nr_zones; n++) {
		char name[RTE_MEMZONE_NAMESIZE];
		struct rxr_zone_conf zc = {
			.name = name, .socket_id = socket,
			.frame_size = p->frame_size,
			/* Each fake node may get a whole run's remainder. */
			.max_frames = max_frames / p->nr_zones + max_regions + 1,
			.max_regions = max_regions,
		};

		snprintf(name, sizeof(name), "%.16s.n%u", p->name, n);
		p->zone[n] = rxr_zone_create(&zc);
		if (p->zone[n] == NULL)
			return rte_errno;
		p->zone_base[n] = total;
		total += zc.max_frames;
	}
	p->zone_base[p->nr_zones] = total;
	p->defer_link = rte_malloc_socket("rxr_defer_link",
			(size_t)total * sizeof(struct rxrp_defer_link),
			RTE_CACHE_LINE_SIZE, socket);
	p->defer_rest = rte_malloc_socket("rxr_defer_rest",
			(size_t)total * sizeof(struct rxrp_defer_rest),
			alignof(struct rxrp_defer_rest), socket);
	return p->defer_link == NULL || p->defer_rest == NULL ? ENOMEM : 0;
}

/* Every poll lcore's state; lcore i of the list on node i % nr_zones. */
static int
lcores_create(struct rxr_pool *p)
{
	for (unsigned int i = 0; i < p->conf.nr_poll_lcores; i++) {
		unsigned int lc = p->conf.poll_lcores[i];
		struct rxrp_lcore *ls = NULL;
		rte_cpuset_t cpus;
		int ret;

		if (p->lcore[lc] != NULL)
			continue;
		ret = lcore_create(p, lc, i % p->nr_zones, &ls);
		if (ret != 0)
			return ret;
		p->lcore[lc] = ls;
		if (p->first == NULL)
			p->first = ls;
		/* An lcore pinned to one CPU owns that CPU's pcp. */
		cpus = rte_lcore_cpuset(lc);
		if (CPU_COUNT(&cpus) == 1)
			for (int c = 0; c < RXRP_MAX_CPUS; c++)
				if (CPU_ISSET(c, &cpus) && p->by_cpu[c] == NULL)
					p->by_cpu[c] = ls;
	}
	return 0;
}

/* The timing layer, outermost but adoption's; then the inline path. */
static void
timing_setup(struct rxr_pool *p)
{
	if (p->conf.test_refill_delay != 0)
		p->delay_steps = delay_steps_for(p->conf.test_refill_delay);
	if (p->conf.latency || p->conf.test_refill_delay != 0)
		rxrp_layer_push(p, RXRP_LAYER_TIMING, timed_alloc,
			p->conf.latency ? timed_free : NULL);
	if (p->conf.latency && p->conf.test_refill_delay == 0) {
		p->timing_on_demand = true;
		timing_set(p, false);
	}
	owner_inline_setup(p);
}

struct rxr_pool *
rxr_pool_create(const struct rxr_pool_conf *conf, uint32_t frame_size,
		uint32_t max_frames, uint32_t max_regions)
{
	struct rxr_pool *p;
	int err = ENOMEM, ret;

	p = rte_zmalloc_socket("rxr_pool", sizeof(*p), RTE_CACHE_LINE_SIZE,
			conf->socket_id);
	if (p == NULL)
		goto fail;
	p->conf = *conf;
	snprintf(p->name, sizeof(p->name), "%s",
			conf->name != NULL ? conf->name : "pool");
	p->conf.name = p->name;
	if (conf_defaults(&p->conf) != 0) {
		err = EINVAL;
		goto fail;
	}
	if (max_frames == 0) {
		RXR_LOG(ERR, "pool %s: max_frames is 0", p->name);
		err = EINVAL;
		goto fail;
	}
	p->strategy = rxrp_strategy_get(p->conf.strategy);
	p->ops.defers = (p->strategy->caps & RXR_STRATEGY_CAP_DEFERS_FREES) != 0;
	p->frame_size = frame_size;
	p->frame_div = rte_reciprocal_value_u64(frame_size);
	p->nr_zones = p->conf.fake_nodes;
	p->ns_mult = (uint64_t)(((unsigned __int128)NS_PER_S << 32) /
			rte_get_tsc_hz());
	err = zones_create(p, max_frames, max_regions);
	if (err != 0)
		goto fail;
	/* The layers, innermost first (enum rxrp_layer). */
	rxrp_layer_push(p, RXRP_LAYER_STRATEGY,
			p->strategy->alloc[p->conf.bulk],
			p->strategy->free[p->conf.bulk]);
	ret = rxrp_zero_setup(p);
	if (ret == 0)
		ret = lcores_create(p);
	if (ret == 0 && p->strategy->pool_init != NULL)
		ret = p->strategy->pool_init(p);
	if (ret != 0) {
		err = -ret;
		goto fail;
	}
	timing_setup(p);
	return p;
fail:
	rxr_pool_destroy(p);
	rte_errno = err;
	return NULL;
}

void
rxr_pool_destroy(struct rxr_pool *p)
{
	if (p == NULL)
		return;
	if (p->priv != NULL && p->strategy->pool_reclaim != NULL)
		p->strategy->pool_reclaim(p);
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		struct rxrp_lcore *ls = p->lcore[lc];

		if (ls == NULL)
			continue;
		lcore_flush(p, ls);
		if (p->strategy->lcore_fini != NULL)
			p->strategy->lcore_fini(p, ls);
		rxr_zero_supply_destroy(ls->supply);
		rxr_pcp_destroy(ls->pcp);
		rte_free(ls);
	}
	if (p->priv != NULL && p->strategy->pool_fini != NULL)
		p->strategy->pool_fini(p);
	for (unsigned int n = 0; n < RXR_POOL_MAX_NODES; n++)
		rxr_zone_destroy(p->zone[n]);
	rte_free(p->defer_link);
	rte_free(p->defer_rest);
	rte_free(p);
}

/*
 * After regions were added. One zone of one region (a pool populated from
 * one chunk, one reserved memzone): frame index and address are one
 * division or multiplication away, without the zone's region lookup (the
 * deferred lists convert every frame both ways). Frames that all lie
 * within 4 GiB: a frame is a 32-bit offset from the lowest (rseq's
 * transfer stage keeps them so).
 */
static void
layout_update(struct rxr_pool *p, unsigned int regions_added)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	p->nr_regions += regions_added;
	p->flat_base = p->nr_zones == 1 && p->nr_regions == 1 ?
		(uintptr_t)rxr_zone_frame_at(p->zone[0], 0) : 0;
	for (unsigned int n = 0; n < p->nr_zones; n++) {
		uintptr_t l, h;

		rxr_zone_span(p->zone[n], &l, &h);
		if (h != 0) {
			lo = RTE_MIN(lo, l);
			hi = RTE_MAX(hi, h);
		}
	}
	p->off_base = hi != 0 && hi - lo <= (uint64_t)UINT32_MAX ? lo : 0;
}

int
rxr_pool_add_region(struct rxr_pool *p, void *addr, size_t len,
		rte_iova_t iova, enum rxr_zone_region_state state)
{
	uint64_t nr = len / p->frame_size, done = 0;
	int total = 0;

	if (addr == NULL || nr == 0)
		return -EINVAL;
	/* With fake nodes, node k gets the k-th slice of the run. */
	for (unsigned int n = 0; n < p->nr_zones; n++) {
		uint64_t part = n + 1 == p->nr_zones ? nr - done :
			nr / p->nr_zones;
		int ret;

		if (part == 0)
			continue;
		ret = rxr_zone_add_region(p->zone[n],
				(uint8_t *)addr + done * p->frame_size,
				part * p->frame_size,
				iova == RTE_BAD_IOVA ? iova : iova + done * p->frame_size,
				state);
		if (ret < 0) {
			layout_update(p, n);
			return ret;
		}
		total += ret;
		done += part;
	}
	layout_update(p, p->nr_zones);
	return total;
}

int
rxr_pool_reserve(struct rxr_pool *p, uint32_t nr_frames)
{
	/* One memzone per node: fake nodes each get their own. */
	for (unsigned int n = 0; n < p->nr_zones; n++) {
		uint32_t part = n + 1 == p->nr_zones ?
			nr_frames - nr_frames / p->nr_zones * n :
			nr_frames / p->nr_zones;
		int ret = rxr_zone_reserve(p->zone[n], part);

		if (ret != 0) {
			layout_update(p, n);
			return ret;
		}
	}
	layout_update(p, p->nr_zones);
	return 0;
}

/* --- adopting populated objects ------------------------------------------ */

static void
adopt_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	if (unlikely(p->nr_adopt + n > p->max_adopt)) {
		p->adopt_overflow = true;
		return;
	}
	memcpy(&p->adopt[p->nr_adopt], objs, n * sizeof(*objs));
	p->nr_adopt += n;
}

int
rxr_pool_adopt_begin(struct rxr_pool *p, unsigned int max_frames)
{
	if (p->adopt != NULL || max_frames == 0)
		return -EINVAL;
	p->adopt = rte_malloc("rxr_adopt", (size_t)max_frames * sizeof(void *), 0);
	if (p->adopt == NULL)
		return -ENOMEM;
	p->nr_adopt = 0;
	p->max_adopt = max_frames;
	p->adopt_overflow = false;
	rxrp_layer_push(p, RXRP_LAYER_ADOPT, NULL, adopt_free);
	/* Every free must reach adopt_free, the owner's inline path too. */
	p->adopt_owner = p->ops.owner;
	p->ops.owner = NULL;
	return 0;
}

int
rxr_pool_adopt_end(struct rxr_pool *p)
{
	unsigned int i, j;
	int ret = 0;

	if (p->adopt == NULL)
		return -EINVAL;
	rxrp_layer_pop(p, RXRP_LAYER_ADOPT);
	p->ops.owner = p->adopt_owner;
	if (p->adopt_overflow) {
		ret = -ENOSPC;
		goto out;
	}
	/* Runs of objects at the frame stride become regions. */
	for (i = 0; i < p->nr_adopt; i = j) {
		uintptr_t base = (uintptr_t)p->adopt[i];
		int added;

		for (j = i + 1; j < p->nr_adopt &&
				(uintptr_t)p->adopt[j] == base +
				(uintptr_t)(j - i) * p->frame_size; j++)
			;
		added = rxr_pool_add_region(p, p->adopt[i],
				(size_t)(j - i) * p->frame_size, RTE_BAD_IOVA,
				RXR_ZONE_REGION_ALLOCATED);
		if (added < 0) {
			ret = added;
			goto out;
		}
		rxrp_zone_free(p, &p->adopt[i], j - i, true);
	}
	ret = (int)p->nr_adopt;
out:
	rte_free(p->adopt);
	p->adopt = NULL;
	return ret;
}

/* --- lcore life cycle ---------------------------------------------------- */

/* Inside whatever the strategy's flush takes against its other users. */
static void
lcore_flush(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	if (p->strategy->flush != NULL)
		p->strategy->flush(p, ls);
	else
		rxrp_lcore_drain(p, ls);
}

void
rxr_pool_lcore_stop(struct rxr_pool *p)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);

	if (ls != NULL)
		lcore_flush(p, ls);
}

void
rxr_pool_quiesce(struct rxr_pool *p)
{
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (p->lcore[lc] != NULL)
			lcore_flush(p, p->lcore[lc]);
	if (p->priv != NULL && p->strategy->pool_reclaim != NULL)
		p->strategy->pool_reclaim(p);
	/* A lock hold merges what handlers left pending. */
	for (unsigned int n = 0; n < p->nr_zones; n++) {
		rxr_zone_lock(p->zone[n]);
		rxr_zone_unlock(p->zone[n]);
	}
}

void
rxr_pool_teardown(struct rxr_pool *p)
{
	p->delay_steps = 0;
}

enum rxr_context
rxr_pool_context(const struct rxr_pool *p)
{
	if (rxr_in_irq())
		return RXR_CTX_IRQ;
	return rxrp_self_lcore(p) != NULL ? RXR_CTX_POLL : RXR_CTX_TASK;
}

/* --- introspection ------------------------------------------------------- */

const struct rxr_pool_conf *
rxr_pool_conf(const struct rxr_pool *p)
{
	return &p->conf;
}

int
rxr_pool_check(struct rxr_pool *p, FILE *out)
{
	uint64_t free_frames = 0, frames = 0;
	int ret = 0;

	for (unsigned int n = 0; n < p->nr_zones; n++) {
		struct rxr_zone_stats zs;

		if (rxr_zone_check(p->zone[n], out) != 0)
			ret = -1;
		rxr_zone_stats(p->zone[n], &zs);
		free_frames += zs.nr_free;
		frames += zs.nr_frames;
	}
	if (free_frames != frames) {
		if (out != NULL)
			fprintf(out, "pool %s: %" PRIu64 " of %" PRIu64
				" frames are not back in their zone\n",
				p->name,
				frames - free_frames, frames);
		ret = -1;
	}
	return ret;
}
