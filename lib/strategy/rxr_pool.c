/* SPDX-License-Identifier: BSD-3-Clause */

/* The pool core: creation, memory, the dispatch's out-of-line calls,
 * quiescence. It reaches the strategies; they call below it. */

#include <errno.h>
#include <stdalign.h>
#include <limits.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include "rxr_pool_private.h"
#include "rxr_log.h"

/* --- creation ------------------------------------------------------------ */

/* One message per rejected field, naming the field and its value. */
#define CONF_REJECT(c, fmt, ...) do { \
	RXR_LOG(ERR, "pool %s: " fmt, (c)->name, __VA_ARGS__); \
	return -EINVAL; \
} while (0)

static int
conf_defaults(struct rxr_pool_conf *c)
{
	const struct rxrp_strategy *st = rxrp_strategy_get(c->strategy);
	char why[160];
	unsigned int lc;

	if (st == NULL)
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
	if (st->available != NULL && !st->available(why, sizeof(why)))
		CONF_REJECT(c, "strategy %s is not available: %s", st->name,
			why);
	if (rxr_strategy_settings_fill(c->strategy, c->settings, why,
			sizeof(why)) != 0)
		CONF_REJECT(c, "%s setting %s", st->name, why);
	return 0;
}

/* The zones and the deferred lists' slots. @return 0 or a positive errno. */
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

/* A poll lcore's state: its pcp and zeroing supply, on node @p node; an
 * lcore pinned to one CPU owns that CPU's pcp. @return 0, -errno. */
static int
lcore_create(struct rxr_pool *p, unsigned int lcore, unsigned int node)
{
	int socket = rte_lcore_to_socket_id(lcore);
	const struct rxr_pool_conf *c = &p->conf;
	rte_cpuset_t cpus = rte_lcore_cpuset(lcore);
	struct rxrp_lcore *ls;

	if (socket < 0 || (unsigned int)socket >= RTE_MAX_NUMA_NODES)
		socket = SOCKET_ID_ANY;
	ls = rte_zmalloc_socket("rxr_pool_lcore", sizeof(*ls),
			RTE_CACHE_LINE_SIZE, socket);
	if (ls == NULL)
		return -ENOMEM;
	p->lcore[lcore] = ls;
	if (p->first == NULL)
		p->first = ls;
	if (CPU_COUNT(&cpus) == 1)
		for (int cpu = 0; cpu < RXRP_MAX_CPUS; cpu++)
			if (CPU_ISSET(cpu, &cpus) && p->by_cpu[cpu] == NULL)
				p->by_cpu[cpu] = ls;
	ls->lcore = lcore;
	ls->node = node;
	ls->defer_head = RXRP_DEFER_EMPTY;
	ls->pcp = rxr_pcp_create(p->zone[node], c->high, c->batch, socket);
	if (ls->pcp == NULL)
		return -rte_errno;
	if (c->zero_policy == RXR_ZERO_POLICY_BACKGROUND) {
		struct rxr_zero_supply_conf sc = {
			.name = c->name, .zone = p->zone[node],
			.capacity = c->zero_supply,
			.payload_offset = p->zp.offset,
			.payload_len = p->zp.len, .method = c->zero_method,
			.socket_id = socket,
		};

		ls->supply = rxr_zero_supply_create(&sc);
		if (ls->supply == NULL)
			return -(rte_errno != 0 ? rte_errno : ENOMEM);
	}
	return 0;
}

/* The entries, chosen once: the strategy's, or the wrapper; inline owner
 * stacks for CAP_OWNER_INLINE with one node and no wrapper. */
static void
entries_set(struct rxr_pool *p)
{
	bool wrapped = p->conf.zero_policy != RXR_ZERO_POLICY_NONE ||
		p->conf.test_refill_delay != 0;

	p->ops.alloc = wrapped ? rxrp_wrap_alloc : p->strategy->alloc;
	p->ops.free = wrapped ? rxrp_wrap_free : p->strategy->free;
	p->ops.defers = (p->strategy->caps &
		RXR_STRATEGY_CAP_DEFERS_FREES) != 0;
	p->ops.section_max = p->conf.bulk ? UINT_MAX : 1;
	if (!wrapped && p->nr_zones == 1 &&
			(p->strategy->caps & RXR_STRATEGY_CAP_OWNER_INLINE))
		p->ops.owner = p->owner;
}

/* The inline path's stack of an lcore that is no poll lcore: it declines. */
static struct rxr_pcp no_stack;

struct rxr_pool *
rxr_pool_create(const struct rxr_pool_conf *conf, uint32_t frame_size,
		uint32_t max_frames, uint32_t max_regions)
{
	struct rxr_pool *p;
	struct rxrp_lcore *ls;
	int err = ENOMEM, ret;

	p = rte_zmalloc_socket("rxr_pool", sizeof(*p), RTE_CACHE_LINE_SIZE,
			conf->socket_id);
	if (p == NULL)
		goto fail;
	p->conf = *conf;
	snprintf(p->name, sizeof(p->name), "%s",
			conf->name != NULL ? conf->name : "pool");
	p->conf.name = p->name;
	err = EINVAL;
	if (conf_defaults(&p->conf) != 0)
		goto fail;
	if (max_frames == 0) {
		RXR_LOG(ERR, "pool %s: max_frames is 0", p->name);
		goto fail;
	}
	p->strategy = rxrp_strategy_get(p->conf.strategy);
	p->frame_size = frame_size;
	p->frame_div = rte_reciprocal_value_u64(frame_size);
	p->nr_zones = p->conf.fake_nodes;
	p->ns_mult = (uint64_t)(((unsigned __int128)NS_PER_S << 32) /
			rte_get_tsc_hz());
	if (p->conf.test_refill_delay != 0)
		p->delay_steps = rxr_zero_test_steps(p->conf.test_refill_delay);
	err = zones_create(p, max_frames, max_regions);
	if (err != 0)
		goto fail;
	ret = rxrp_zero_setup(p);
	/* Lcore i of the list on node i % nr_zones. */
	for (unsigned int i = 0; ret == 0 && i < p->conf.nr_poll_lcores; i++)
		if (p->lcore[p->conf.poll_lcores[i]] == NULL)
			ret = lcore_create(p, p->conf.poll_lcores[i],
					i % p->nr_zones);
	if (ret == 0) {
		for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
			p->owner[lc].stack = &no_stack;
		RXRP_FOREACH_LCORE(p, ls, lc) {
			ls->bh = &p->owner[lc].bh;
			p->owner[lc].stack = ls->pcp;
		}
		if (p->strategy->init != NULL)
			ret = p->strategy->init(p);
	}
	if (ret != 0) {
		err = -ret;
		goto fail;
	}
	entries_set(p);
	return p;
fail:
	rxr_pool_destroy(p);
	rte_errno = err;
	return NULL;
}

void
rxr_pool_destroy(struct rxr_pool *p)
{
	struct rxrp_lcore *ls;

	if (p == NULL)
		return;
	/* Made whole (entries set last): frames may be anywhere. */
	if (p->ops.alloc != NULL)
		rxr_pool_quiesce(p);
	if (p->strategy != NULL && p->strategy->fini != NULL)
		p->strategy->fini(p);
	RXRP_FOREACH_LCORE(p, ls, lc) {
		rxr_zero_supply_destroy(ls->supply);
		rxr_pcp_destroy(ls->pcp);
		rte_free(ls);
	}
	for (unsigned int n = 0; n < RXR_POOL_MAX_NODES; n++)
		rxr_zone_destroy(p->zone[n]);
	rte_free(p->defer_link);
	rte_free(p->defer_rest);
	rte_free(p);
}

/* --- memory -------------------------------------------------------------- */

/* Each node's slice a region of its zone (fake nodes: node k the k-th),
 * in use, then freed into it in one lock hold. flat_base: one zone of one
 * region (index and address a division apart); off_base: every frame
 * within 4 GiB of the lowest. */
int
rxr_pool_add_frames(struct rxr_pool *p, void *addr, unsigned int n)
{
	uint8_t *base = addr;
	unsigned int done = 0;
	void *tmp[RXRP_CHUNK];
	int ret = 0;

	for (unsigned int k = 0; k < p->nr_zones; k++) {
		unsigned int part = k + 1 == p->nr_zones ? n - done :
			n / p->nr_zones;
		uint8_t *lo = base + (size_t)done * p->frame_size;

		if (part == 0)
			continue;
		ret = rxr_zone_add_region(p->zone[k], lo,
				(size_t)part * p->frame_size,
				RXR_ZONE_REGION_ALLOCATED);
		if (ret < 0)
			break;
		rxr_zone_lock(p->zone[k]);
		for (unsigned int i = 0, c; i < part; i += c) {
			c = RTE_MIN(part - i, (unsigned int)RXRP_CHUNK);
			for (unsigned int j = 0; j < c; j++)
				tmp[j] = lo + (size_t)(i + j) * p->frame_size;
			rxr_zone_free_bulk_locked(p->zone[k], tmp, c);
		}
		rxr_zone_unlock(p->zone[k]);
		done += part;
		p->nr_regions++;
		p->span[0] = p->span[1] == 0 ? (uintptr_t)lo :
			RTE_MIN(p->span[0], (uintptr_t)lo);
		p->span[1] = RTE_MAX(p->span[1],
			(uintptr_t)lo + (uintptr_t)part * p->frame_size);
	}
	p->flat_base = p->nr_zones == 1 && p->nr_regions == 1 ? p->span[0] : 0;
	p->off_base = p->span[1] - p->span[0] <= (uint64_t)UINT32_MAX ?
		p->span[0] : 0;
	return ret < 0 ? ret : (int)n;
}

/* --- calls the inline dispatch sends out of line ------------------------- */

/* The pool a poll lcore samples now (rxr_pool_sample()), or NULL. */
static RTE_DEFINE_PER_LCORE(struct rxr_pool *, rxrp_sampled);

void
rxr_pool_sample(struct rxr_pool *p, bool on)
{
	if (!p->conf.latency || rxrp_owner_lcore(p) == NULL)
		return;
	RTE_PER_LCORE(rxrp_sampled) = on ? p : NULL;
	/* Every call out of line for the window; learned again after it. */
	RTE_PER_LCORE(rxr_ctx_lcore) = RXR_CTX_LCORE_UNKNOWN;
}

/* Inside a window: the refill latency histogram and the sampled cycles. */
static int
timed_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct rxrp_lcore *ls = p->lcore[rte_lcore_id()];
	uint64_t t0 = rte_rdtsc(), dt, ns;
	int ret = p->ops.alloc(p, objs, n);

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

static int
timed_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rxrp_lcore *ls = p->lcore[rte_lcore_id()];
	uint64_t t0 = rte_rdtsc();

	p->ops.free(p, objs, n);
	RXR_STAT_ADD(ls->sample_cycles, rte_rdtsc() - t0);
	return 0;
}

/* A secondary process's calls (the entries and caches are the primary's):
 * refused, said once. */
static int
refused_in_secondary(const struct rxr_pool *p, const char *what)
{
	static int secondary = -1;
	static bool said;

	if (__atomic_load_n(&secondary, __ATOMIC_RELAXED) < 0)
		__atomic_store_n(&secondary, rte_eal_process_type() ==
			RTE_PROC_SECONDARY, __ATOMIC_RELAXED);
	if (__atomic_load_n(&secondary, __ATOMIC_RELAXED) == 0)
		return 0;
	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		RXR_LOG(ERR, "%s: %s refused in a secondary process: an "
			"rxrefill pool serves only the process that created "
			"it (its strategy's code and per-lcore caches are the "
			"primary's); give a secondary's pools other ops",
			p->name, what);
	return -EPERM;
}

/* Whether the call is in the poll lcore's sampling window of p; else its
 * lcore word learned, unless it samples another pool. */
static bool
detour_sampled(struct rxr_pool *p)
{
	struct rxr_pool *sampled = RTE_PER_LCORE(rxrp_sampled);

	if (sampled == NULL)
		rxr_ctx_lcore_learn();
	return sampled == p && !rxr_in_irq();
}

int
__rxr_pool_slow(struct rxr_pool *p, void **objs, unsigned int n, bool alloc)
{
	if (unlikely(refused_in_secondary(p, alloc ? "an allocation" :
			"a free") != 0))
		return -EPERM;
	if (detour_sampled(p))
		return alloc ? timed_alloc(p, objs, n) : timed_free(p, objs, n);
	if (RTE_PER_LCORE(rxr_ctx_lcore) < RTE_MAX_LCORE)
		return alloc ? rxr_pool_alloc_bulk(p, objs, n) :
			rxr_pool_free_bulk(p, objs, n);
	return alloc ? p->ops.alloc(p, objs, n) : p->ops.free(p, objs, n);
}

/*
 * Bulk off with an inline owner path: a frame at a time through that path,
 * as the kernel's callers without alloc_pages_bulk() call rmqueue_pcplist()
 * per page; the strategy's own per-frame loop would dispatch twice a frame.
 * A sampled call (no lcore learned) stays whole: one refill, timed once.
 */
static inline bool
owner_per_frame_wanted(const struct rxr_pool *p, unsigned int n)
{
	return unlikely(n > p->ops.section_max) && p->ops.owner != NULL &&
		RTE_PER_LCORE(rxr_ctx_lcore) < RTE_MAX_LCORE;
}

static __rte_noinline int
owner_per_frame(struct rxr_pool *p, void **objs, unsigned int n, bool alloc)
{
	for (unsigned int i = 0; i < n; i++)
		if (unlikely(__rxr_pool_call(p, &objs[i], 1, alloc) != 0)) {
			while (i-- > 0)
				__rxr_pool_call(p, &objs[i], 1, false);
			return -ENOBUFS;
		}
	return 0;
}

int
__rxr_pool_alloc_n(struct rxr_pool *p, void **objs, unsigned int n)
{
	if (owner_per_frame_wanted(p, n))
		return owner_per_frame(p, objs, n, true);
	return __rxr_pool_call(p, objs, n, true);
}

int
__rxr_pool_free_n(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	if (owner_per_frame_wanted(p, n))
		return owner_per_frame(p, (void **)(uintptr_t)objs, n, false);
	return __rxr_pool_call(p, (void **)(uintptr_t)objs, n, false);
}

/* The owner's bh-enable point: its deferred list into its pcp. */
unsigned int
__rxr_pool_poll_end(struct rxr_pool *p)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	unsigned int n;
	uint64_t t0;

	if (unlikely(ls == NULL))
		return 0;
	/* Nothing deferred: one load of a line only remote frees write. */
	if (likely(RXRP_DEFER_HEAD(__atomic_load_n(&ls->defer_head,
			__ATOMIC_RELAXED)) == RXRP_NIL))
		return 0;
	if (likely(RTE_PER_LCORE(rxrp_sampled) != p))
		return rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
	/* A latency sample: the drain is the allocator's work too. */
	t0 = rte_rdtsc();
	n = rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
	RXR_STAT_ADD(ls->sample_cycles, rte_rdtsc() - t0);
	return n;
}

/* --- quiescence ---------------------------------------------------------- */

static unsigned int
lcore_drain_quiet(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	if (p->strategy->drain != NULL)
		return p->strategy->drain(p, ls, true);
	return ls != NULL ? rxrp_lcore_drain(p, ls) : 0;
}

void
rxr_pool_quiesce(struct rxr_pool *p)
{
	struct rxrp_lcore *ls;

	RXRP_FOREACH_LCORE(p, ls, lc)
		lcore_drain_quiet(p, ls);
	lcore_drain_quiet(p, NULL);
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

const struct rxr_pool_conf *
rxr_pool_get_conf(const struct rxr_pool *p)
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
				p->name, frames - free_frames, frames);
		ret = -1;
	}
	return ret;
}
