/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * recycle: page_pool in front of bh. The owner allocates from its alloc
 * cache, refilled from the ptr_ring (frames other contexts returned), then
 * from the pcp in bulk; frames of another node found in the ring are waived
 * to their zone. The owner's frees go to the cache, then the ring; other
 * contexts' frees go to the ring. What does not fit is released to the
 * allocator the bh way.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_log.h>

#include "rxr_pool_private.h"
#include "rxr_log.h"

/*
 * Per poll lcore: the page_pool is in owner_data, on the owner's first
 * line, for the fast path; here, what other contexts had to release.
 */
struct recycle_lcore {
	uint64_t released_remote;	/* atomic: other contexts */
};
RXRP_LCORE_PRIV_CHECK(struct recycle_lcore);

static inline struct recycle_lcore *
recycle_of(const struct rxrp_lcore *ls)
{
	return rxrp_lcore_priv(ls);
}

static inline struct rxr_page_pool *
pp_of(const struct rxrp_lcore *ls)
{
	return ls->owner_data;
}

/* Ring -> cache, waiving remote frames. @return frames taken off the ring. */
static __rte_noinline unsigned int
cache_refill_from_ring(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	struct rxr_page_pool *pp = pp_of(ls);
	struct rxr_alloc_cache *c = &pp->cache;
	void *tmp[RXRP_CHUNK];
	unsigned int want = RTE_MIN(RTE_MIN(c->refill, c->size - c->count),
			(uint32_t)RXRP_CHUNK);
	unsigned int got = rxr_ptr_ring_consume(&pp->ring, tmp, want);

	if (got == 0)
		return 0;
	RXR_STAT_ADD(pp->stats.alloc_refill, 1);
	for (unsigned int i = 0; i < got; i++) {
		unsigned int node = rxrp_frame_node(p, tmp[i]);

		if (unlikely(node != ls->node)) {
			rxr_zone_free(p->zone[node], tmp[i], 0);
			RXR_STAT_ADD(pp->stats.alloc_waive, 1);
			continue;
		}
		c->frames[c->count++] = tmp[i];
	}
	return got;
}

static __rte_always_inline int
recycle_owner_alloc(struct rxr_pool *p, struct rxrp_lcore *ls, void **objs,
		unsigned int n)
{
	struct rxr_page_pool *pp = pp_of(ls);
	struct rxr_alloc_cache *c = &pp->cache;
	unsigned int room, k;

	if (likely(c->count >= n))
		goto fast;
	if (unlikely(n > c->size)) {
		/* Larger than the cache: straight from the pcp. */
		if (rxr_pcp_alloc_bulk(ls->pcp, objs, n) != 0) {
			RXR_STAT_ADD(pp->stats.alloc_empty, 1);
			return -ENOBUFS;
		}
		RXR_STAT_ADD(pp->stats.alloc_slow, 1);
		return 0;
	}
	while (c->count < n && cache_refill_from_ring(p, ls) != 0)
		;
	/* Frames released the bh way, before the pcp goes to the zone. */
	if (c->count < n && ls->pcp->count < n - c->count &&
			rxrp_defer_count(ls) != 0)
		rxrp_defer_drain(p, ls, rxrp_pcp_free_owner);
	if (c->count < n) {
		room = c->size - c->count;
		k = RTE_MIN(c->refill, room);
		if (k < n - c->count || rxr_pcp_alloc_bulk(ls->pcp,
				&c->frames[c->count], k) != 0) {
			k = n - c->count;
			if (rxr_pcp_alloc_bulk(ls->pcp, &c->frames[c->count],
					k) != 0) {
				RXR_STAT_ADD(pp->stats.alloc_empty, 1);
				return -ENOBUFS;
			}
		}
		c->count += k;
		RXR_STAT_ADD(pp->stats.alloc_slow, 1);
	}
fast:
	c->count -= n;
	memcpy(objs, &c->frames[c->count], n * sizeof(*objs));
	RXR_STAT_ADD(pp->stats.alloc_fast, n);
	return 0;
}

/* Produce into ls's ring without ever waiting. @return frames produced. */
static unsigned int
ring_produce(struct rxr_page_pool *pp, void * const *objs, unsigned int n)
{
	unsigned int done;

	if (!rxr_spinlock_trylock(&pp->ring.producer_lock))
		return 0;
	done = rxr_ptr_ring_produce_locked(&pp->ring, objs, n);
	RXR_STAT_ADD(pp->ring_produced, done);
	RXR_STAT_ADD(pp->ring_full, n - done);
	rxr_spinlock_unlock(&pp->ring.producer_lock);
	return done;
}

/* Owner frees of local frames: cache, then ring, then the pcp. */
static __rte_always_inline void
recycle_owner_free_local(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n)
{
	struct rxr_page_pool *pp = pp_of(ls);
	struct rxr_alloc_cache *c = &pp->cache;
	unsigned int k = RTE_MIN(n, c->size - c->count), r;

	memcpy(&c->frames[c->count], objs, k * sizeof(*objs));
	c->count += k;
	RXR_STAT_ADD(pp->stats.recycle_cached, k);
	if (likely(k == n))
		return;
	RXR_STAT_ADD(pp->stats.recycle_cache_full, n - k);
	r = ring_produce(pp, objs + k, n - k);
	if (k + r == n)
		return;
	RXR_STAT_ADD(pp->stats.recycle_released_refcnt, n - k - r);
	rxr_pcp_free_bulk(ls->pcp, objs + k + r, n - k - r);
}

static __rte_always_inline int
recycle_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	int ret;

	if (unlikely(ls == NULL))
		return rxrp_zone_alloc(p, rxrp_ctx_node(p), objs, n, true);
	rxrp_bh_disable(ls);
	ret = recycle_owner_alloc(p, ls, objs, n);
	rxrp_bh_enable(ls);
	return ret;
}

static __rte_always_inline void
recycle_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rxrp_lcore *ls = rxrp_owner_lcore(p);
	struct recycle_lcore *rl;
	unsigned int done;

	if (likely(ls != NULL)) {
		rxrp_bh_disable(ls);
		rxrp_split_local(p, ls, objs, n, recycle_owner_free_local);
		rxrp_bh_enable(ls);
		return;
	}
	/* Another context: the owner's ring, else release the bh way. */
	ls = rxrp_task_target(p);
	rl = recycle_of(ls);
	done = ring_produce(pp_of(ls), objs, n);
	if (done == n)
		return;
	__atomic_fetch_add(&rl->released_remote, n - done, __ATOMIC_RELAXED);
	rxrp_defer_push(p, ls, objs + done, n - done);
}

RXRP_PER_FRAME_OPS(recycle)

/* Under bh's reclaim, the owner kept out: cache and ring to the zone. */
static unsigned int
recycle_reclaim_caches(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	struct rxr_page_pool *pp = pp_of(ls);
	void *tmp[RXRP_CHUNK];
	unsigned int got, total = pp->cache.count;

	rxrp_zone_free(p, pp->cache.frames, pp->cache.count, true);
	__atomic_store_n(&pp->cache.count, 0, __ATOMIC_RELAXED);
	while ((got = rxr_ptr_ring_consume(&pp->ring, tmp, RXRP_CHUNK)) != 0) {
		rxrp_zone_free(p, tmp, got, true);
		total += got;
	}
	return total;
}

/* The pool's reclaim: cache, ring and pcp, while the owner is kept out. */
static unsigned int
recycle_reclaim(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	return rxrp_bh_reclaim(p, ls, recycle_reclaim_caches);
}

/*
 * Lcore stop: cache and ring back to the pcp, then the core's drain, all
 * inside the section, which keeps a reclaim out meanwhile.
 */
static void
recycle_flush(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	struct rxr_page_pool *pp = pp_of(ls);
	void *tmp[RXRP_CHUNK];
	unsigned int got;

	rxrp_bh_disable(ls);
	rxr_pcp_free_bulk(ls->pcp, pp->cache.frames, pp->cache.count);
	pp->cache.count = 0;
	while ((got = rxr_ptr_ring_consume(&pp->ring, tmp, RXRP_CHUNK)) != 0)
		rxrp_split_local(p, ls, tmp, got, rxrp_pcp_free_owner);
	rxrp_lcore_drain(p, ls);
	rxrp_bh_enable(ls);
}

/*
 * Its own settings (rxr_pool_conf.settings[]): X(name, default, min, max,
 * holds frames, help). The defaults are page_pool's; the ring's limit is
 * page_pool_init()'s (a larger pool_size is refused with E2BIG).
 */
#define RECYCLE_SETTINGS(X) \
	X(cache, RXR_RECYCLE_CACHE_SIZE, 1, 8192, true, \
		"frames in the owner's alloc cache (page_pool's " \
		"PP_ALLOC_CACHE_SIZE)") \
	X(refill, RXR_RECYCLE_CACHE_REFILL, 1, 8192, false, \
		"frames per refill of the cache, at most cache (default: " \
		"PP_ALLOC_CACHE_REFILL, or cache when smaller)") \
	X(ring, RXR_RECYCLE_RING_SIZE, 1, 32768, true, \
		"slots of the ring that takes frames freed by other contexts, " \
		"rounded up to a power of two (page_pool's pool_size)")

enum {
#define RECYCLE_SETTING_ENUM(name, def, min, max, holds, help) \
	RECYCLE_S_##name,
	RECYCLE_SETTINGS(RECYCLE_SETTING_ENUM)
#undef RECYCLE_SETTING_ENUM
	RECYCLE_NB_SETTINGS,
};
static_assert(RECYCLE_NB_SETTINGS <= RXR_STRATEGY_SETTINGS_MAX,
	"recycle settings do not fit rxr_pool_conf.settings");

static const struct rxr_strategy_setting recycle_settings[] = {
#define RECYCLE_SETTING_DECL(n, d, lo, hi, holds, h) \
	{ .name = #n, .def = d, .min = lo, .max = hi, .holds_frames = holds, \
		.help = h },
	RECYCLE_SETTINGS(RECYCLE_SETTING_DECL)
#undef RECYCLE_SETTING_DECL
};

#define RECYCLE_SETTING(c, name) ((c)->settings[RECYCLE_S_##name])

/*
 * The defaults are in and each is in its range: refill within the cache;
 * the ring as it will be made (a power of two), so that what is recorded
 * and sized for is what runs.
 */
static int
recycle_settings_check(uint32_t *settings, uint32_t given, char *why,
		size_t len)
{
	uint32_t cache = settings[RECYCLE_S_cache];
	uint32_t *refill = &settings[RECYCLE_S_refill];

	settings[RECYCLE_S_ring] = rte_align32pow2(settings[RECYCLE_S_ring]);

	/* The default refill never exceeds a smaller cache. */
	if (!(given & (1u << RECYCLE_S_refill)))
		*refill = RTE_MIN(*refill, cache);
	if (*refill > cache) {
		snprintf(why, len, "refill %u is over cache %u%s", *refill,
			cache, given & (1u << RECYCLE_S_cache) ? "" :
			" (the default)");
		return -EINVAL;
	}
	return 0;
}

static int
recycle_lcore_init(struct rxr_pool *p, struct rxrp_lcore *ls, int socket)
{
	struct rxr_page_pool *pp;

	pp = rxr_page_pool_create(RECYCLE_SETTING(&p->conf, cache),
			RECYCLE_SETTING(&p->conf, refill),
			RECYCLE_SETTING(&p->conf, ring), socket);
	if (pp == NULL)
		return -(rte_errno != 0 ? rte_errno : ENOMEM);
	ls->owner_data = pp;
	/* The inline owner path: the alloc cache, as recycle_owner_alloc()'s
	 * and recycle_owner_free_local()'s fast paths. */
	ls->owner.count = &pp->cache.count;
	ls->owner.frames = pp->cache.frames;
	ls->owner.max = pp->cache.size;
	ls->owner.pcp_frames = false;
	ls->owner.alloc_stat = &pp->stats.alloc_fast;
	ls->owner.free_stat = &pp->stats.recycle_cached;
	return 0;
}

static void
recycle_lcore_fini(struct rxr_pool *p, struct rxrp_lcore *ls)
{
	rxr_page_pool_destroy(pp_of(ls));
	ls->owner_data = NULL;
}

static uint64_t
recycle_held(const struct rxr_pool *p, const struct rxrp_lcore *ls)
{
	struct rxr_page_pool *pp = pp_of(ls);

	return __atomic_load_n(&pp->cache.count, __ATOMIC_RELAXED) +
		rxr_ptr_ring_count(&pp->ring);
}

static void
recycle_stats(const struct rxr_pool *p, const struct rxrp_lcore *ls,
		struct rxr_pool_lcore_stats *o)
{
	const struct recycle_lcore *rl = recycle_of(ls);
	struct rxr_recycle_stats st;

	rxr_page_pool_stats(pp_of(ls), &st);
	st.recycle_released_refcnt += RXR_STAT_READ(rl->released_remote);
#define RECYCLE_COUNTER_OUT(name, help) \
	o->counters[RXR_RECYCLE_C_##name] += st.name;
	RXR_RECYCLE_COUNTERS(RECYCLE_COUNTER_OUT)
#undef RECYCLE_COUNTER_OUT
}

/* The report's and telemetry's names: the list's, in its order. */
static const char * const recycle_counter_names[] = {
#define RECYCLE_COUNTER_NAME(name, help) #name,
	RXR_RECYCLE_COUNTERS(RECYCLE_COUNTER_NAME)
#undef RECYCLE_COUNTER_NAME
	NULL,
};
static_assert(RXR_RECYCLE_NB_COUNTERS <= RXR_STRATEGY_COUNTERS_MAX,
	"recycle counters do not fit rxr_pool_lcore_stats.counters");

const struct rxrp_strategy rxrp_strategy_recycle = {
	.name = "recycle",
	.caps = RXR_STRATEGY_CAP_DEFERS_FREES | RXR_STRATEGY_CAP_RECYCLES |
		RXR_STRATEGY_CAP_OWNER_INLINE,
	RXRP_OPS(recycle),
	.lcore_priv_size = sizeof(struct recycle_lcore),
	.lcore_init = recycle_lcore_init,
	.lcore_fini = recycle_lcore_fini,
	.flush = recycle_flush,
	.lcore_reclaim = recycle_reclaim,
	.held = recycle_held,
	.stats = recycle_stats,
	.counter_names = recycle_counter_names,
	.settings = recycle_settings,
	.nb_settings = RECYCLE_NB_SETTINGS,
	.settings_check = recycle_settings_check,
};
