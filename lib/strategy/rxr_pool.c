/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <string.h>
#include <strings.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rxr_pool_private.h"

RTE_DEFINE_PER_LCORE(struct rxr_pool *, rxr_bind_pool);
RTE_DEFINE_PER_LCORE(struct pool_lcore *, rxr_bind_lcore);

static const char * const strategy_names[] = {
	[RXR_STRATEGY_ZONE] = "zone",
	[RXR_STRATEGY_IRQSAVE] = "irqsave",
	[RXR_STRATEGY_BH] = "bh",
	[RXR_STRATEGY_RECYCLE] = "recycle",
	[RXR_STRATEGY_NONE] = "none",
};

const char *
rxr_strategy_name(enum rxr_strategy s)
{
	return s < RXR_STRATEGY_MAX ? strategy_names[s] : "?";
}

int
rxr_strategy_parse(const char *name, bool allow_none, enum rxr_strategy *s)
{
	for (unsigned int i = 0; i < RXR_STRATEGY_MAX; i++)
		if (strcasecmp(name, strategy_names[i]) == 0 &&
				(i != RXR_STRATEGY_NONE || allow_none)) {
			*s = i;
			return 0;
		}
	return -EINVAL;
}

static const struct rxr_pool_ops *
strategy_ops(enum rxr_strategy s, bool bulk)
{
	static const struct rxr_pool_ops *tables[] = {
		[RXR_STRATEGY_ZONE] = rxr_strategy_zone_ops,
		[RXR_STRATEGY_IRQSAVE] = rxr_strategy_irqsave_ops,
		[RXR_STRATEGY_BH] = rxr_strategy_bh_ops,
		[RXR_STRATEGY_RECYCLE] = rxr_strategy_recycle_ops,
		[RXR_STRATEGY_NONE] = rxr_strategy_none_ops,
	};

	return &tables[s][bulk ? 1 : 0];
}

/* --- refill latency ------------------------------------------------------ */

static int
timed_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct pool_lcore *ls = owner_lcore(p);
	uint64_t t0, dt, ns;
	int ret;

	if (ls == NULL)
		return p->untimed_alloc(p, objs, n);
	t0 = rte_rdtsc();
	ret = p->untimed_alloc(p, objs, n);
	dt = rte_rdtsc() - t0;
	ns = (uint64_t)(((unsigned __int128)dt * p->ns_mult) >> 32);
	RXR_STAT_ADD(ls->refill_calls, 1);
	RXR_STAT_ADD(ls->refill_frames, ret == 0 ? n : 0);
	RXR_STAT_ADD(ls->refill_cycles, dt);
	RXR_STAT_ADD(ls->hist[RTE_MIN(ns == 0 ? 0 : 64 - __builtin_clzll(ns),
		RXR_HIST_BUCKETS - 1)], 1);
	return ret;
}

/* --- creation ------------------------------------------------------------ */

static int
conf_defaults(struct rxr_pool_conf *c)
{
	unsigned int lc;

	if (c->strategy >= RXR_STRATEGY_MAX)
		return -EINVAL;
	if (c->batch == 0)
		c->batch = RXR_PCP_BATCH_DEFAULT;
	if (c->high == 0)
		c->high = RTE_MAX(RXR_PCP_HIGH_DEFAULT, c->batch);
	if (c->high < c->batch)
		return -EINVAL;
	if (c->fake_nodes == 0)
		c->fake_nodes = 1;
	if (c->fake_nodes > RXR_POOL_MAX_NODES)
		return -EINVAL;
	if (c->recycle_cache == 0)
		c->recycle_cache = RXR_RECYCLE_CACHE_SIZE;
	if (c->recycle_refill == 0)
		c->recycle_refill = RTE_MIN(RXR_RECYCLE_CACHE_REFILL, c->recycle_cache);
	if (c->recycle_ring == 0)
		c->recycle_ring = RXR_RECYCLE_RING_SIZE;
	if (c->zero_supply == 0)
		c->zero_supply = 2 * c->batch;
	if (c->zero_policy > RXR_ZERO_POLICY_BACKGROUND)
		return -EINVAL;
	if (c->nr_poll_lcores == 0)
		RTE_LCORE_FOREACH(lc)
			c->poll_lcores[c->nr_poll_lcores++] = lc;
	for (unsigned int i = 0; i < c->nr_poll_lcores; i++)
		if (c->poll_lcores[i] >= RTE_MAX_LCORE)
			return -EINVAL;
	return 0;
}

static struct pool_lcore *
lcore_create(struct rxr_pool *p, unsigned int lcore, unsigned int node)
{
	int socket = rte_lcore_to_socket_id(lcore);
	struct pool_lcore *ls;

	if (socket < 0 || (unsigned int)socket >= RTE_MAX_NUMA_NODES)
		socket = SOCKET_ID_ANY;
	ls = rte_zmalloc_socket("rxr_pool_lcore", sizeof(*ls),
			RTE_CACHE_LINE_SIZE, socket);
	if (ls == NULL)
		return NULL;
	ls->lcore = lcore;
	ls->node = node;
	ls->defer_head = DEFER_EMPTY;
	ls->pcp = rxr_pcp_create(p->zone[node], p->conf.high, p->conf.batch,
			socket);
	if (ls->pcp == NULL)
		goto fail;
	if (p->conf.strategy == RXR_STRATEGY_RECYCLE) {
		ls->pp = rxr_page_pool_create(p->conf.recycle_cache,
				p->conf.recycle_refill, p->conf.recycle_ring,
				socket);
		if (ls->pp == NULL)
			goto fail;
	}
	return ls;
fail:
	rxr_pcp_destroy(ls->pcp);
	rte_free(ls);
	return NULL;
}

struct rxr_pool *
rxr_pool_create(const struct rxr_pool_conf *conf, uint32_t frame_size,
		uint32_t max_frames, uint32_t max_regions)
{
	struct rxr_pool *p;
	uint32_t total = 0;
	int err = ENOMEM;

	p = rte_zmalloc_socket("rxr_pool", sizeof(*p), RTE_CACHE_LINE_SIZE,
			conf->socket_id);
	if (p == NULL)
		goto fail;
	p->conf = *conf;
	snprintf(p->name, sizeof(p->name), "%s",
			conf->name != NULL ? conf->name : "pool");
	p->conf.name = p->name;
	if (conf_defaults(&p->conf) != 0 || max_frames == 0) {
		err = EINVAL;
		goto fail;
	}
	p->frame_size = frame_size;
	p->nr_zones = p->conf.fake_nodes;
	for (unsigned int n = 0; n < p->nr_zones; n++) {
		char name[RTE_MEMZONE_NAMESIZE];
		struct rxr_zone_conf zc = {
			.name = name, .socket_id = conf->socket_id,
			.frame_size = frame_size,
			/* Each fake node may get a whole run's remainder. */
			.max_frames = max_frames / p->nr_zones + max_regions + 1,
			.max_regions = max_regions,
		};

		snprintf(name, sizeof(name), "%.16s.n%u", p->name, n);
		p->zone[n] = rxr_zone_create(&zc);
		if (p->zone[n] == NULL) {
			err = rte_errno;
			goto fail;
		}
		p->zone_base[n] = total;
		total += zc.max_frames;
	}
	p->zone_base[p->nr_zones] = total;
	p->defer_next = rte_malloc_socket("rxr_defer_next",
			(size_t)total * sizeof(uint32_t), RTE_CACHE_LINE_SIZE,
			conf->socket_id);
	if (p->defer_next == NULL)
		goto fail;

	p->ops = *strategy_ops(p->conf.strategy, p->conf.bulk);
	if (pool_zero_setup(p) != 0) {
		err = EINVAL;
		goto fail;
	}
	for (unsigned int i = 0; i < p->conf.nr_poll_lcores; i++) {
		unsigned int lc = p->conf.poll_lcores[i];
		struct pool_lcore *ls;
		rte_cpuset_t cpus;
		int zerr;

		if (p->lcore[lc] != NULL)
			continue;
		ls = lcore_create(p, lc, i % p->nr_zones);
		if (ls == NULL) {
			err = rte_errno;
			goto fail;
		}
		p->lcore[lc] = ls;
		pool_zero_lcore_init(p, ls, rte_lcore_to_socket_id(lc), &zerr);
		if (zerr != 0) {
			err = zerr;
			goto fail;
		}
		if (p->first == NULL)
			p->first = ls;
		/* An lcore pinned to one CPU owns that CPU's pcp. */
		cpus = rte_lcore_cpuset(lc);
		if (CPU_COUNT(&cpus) == 1)
			for (int c = 0; c < MAX_CPUS; c++)
				if (CPU_ISSET(c, &cpus) && p->by_cpu[c] == NULL)
					p->by_cpu[c] = ls;
	}
	if (p->first == NULL) {
		err = EINVAL;
		goto fail;
	}
	/*
	 * bh and recycle keep their caches free of atomics: a reclaim by
	 * another thread pairs its request with a process-wide barrier.
	 */
	if ((p->conf.strategy == RXR_STRATEGY_BH ||
			p->conf.strategy == RXR_STRATEGY_RECYCLE) &&
			syscall(__NR_membarrier,
				MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		p->remote_drain = true;
	p->ns_mult = (uint64_t)(((unsigned __int128)NS_PER_S << 32) /
			rte_get_tsc_hz());
	if (p->conf.latency) {
		p->untimed_alloc = p->ops.alloc;
		p->ops.alloc = timed_alloc;
	}
	/* bh's owner path inline, when nothing needs to wrap it. */
	if (p->conf.strategy == RXR_STRATEGY_BH && p->conf.bulk &&
			p->nr_zones == 1 && !p->conf.latency &&
			p->conf.zero_policy == RXR_ZERO_POLICY_NONE) {
		for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
			if (p->lcore[lc] != NULL)
				p->owner_pcp[lc] = p->lcore[lc]->pcp;
		p->ops.owner_pcp = p->owner_pcp;
	}
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
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		struct pool_lcore *ls = p->lcore[lc];

		if (ls == NULL)
			continue;
		if (p->zone[ls->node] != NULL) {
			pool_defer_drain(p, ls, bh_pcp_free);
			if (ls->pp != NULL)
				recycle_flush(p, ls);
		}
		rxr_zero_supply_destroy(ls->supply);
		rxr_pcp_destroy(ls->pcp);
		rxr_page_pool_destroy(ls->pp);
		rte_free(ls);
	}
	for (unsigned int n = 0; n < RXR_POOL_MAX_NODES; n++)
		rxr_zone_destroy(p->zone[n]);
	rte_free(p->defer_next);
	rte_free(p);
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
		if (ret < 0)
			return ret;
		total += ret;
		done += part;
	}
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

		if (ret != 0)
			return ret;
	}
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
	p->adopt_saved = p->ops.free;
	p->ops.free = adopt_free;
	/* Every free must reach adopt_free, the owner's inline path too. */
	p->adopt_owner = p->ops.owner_pcp;
	p->ops.owner_pcp = NULL;
	return 0;
}

int
rxr_pool_adopt_end(struct rxr_pool *p)
{
	unsigned int i, j;
	int ret = 0;

	if (p->adopt == NULL)
		return -EINVAL;
	p->ops.free = p->adopt_saved;
	p->ops.owner_pcp = p->adopt_owner;
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
		pool_zone_free(p, &p->adopt[i], j - i, true);
	}
	ret = (int)p->nr_adopt;
out:
	rte_free(p->adopt);
	p->adopt = NULL;
	return ret;
}

/* --- zone paths ---------------------------------------------------------- */

static int
zone_alloc_from(struct rxr_zone *z, void **objs, unsigned int n, bool bulk)
{
	unsigned int i;

	/* A handler may have interrupted the lock holder: never wait. */
	if (unlikely(rxr_in_irq()))
		return rxr_zone_alloc_bulk_nowait(z, objs, n, n) == n ? 0 : -ENOBUFS;
	if (bulk)
		return rxr_zone_alloc_bulk(z, objs, n, n) == n ? 0 : -ENOBUFS;
	for (i = 0; i < n; i++) {
		objs[i] = rxr_zone_alloc(z, 0);
		if (unlikely(objs[i] == NULL))
			break;
	}
	if (likely(i == n))
		return 0;
	while (i-- > 0)
		rxr_zone_free(z, objs[i], 0);
	return -ENOBUFS;
}

int
pool_zone_alloc(struct rxr_pool *p, unsigned int node, void **objs,
		unsigned int n, bool bulk)
{
	if (likely(zone_alloc_from(p->zone[node], objs, n, bulk) == 0))
		return 0;
	/* The zonelist: other nodes before failing, as the kernel does. */
	for (unsigned int k = 1; k < p->nr_zones; k++)
		if (zone_alloc_from(p->zone[(node + k) % p->nr_zones], objs, n,
				bulk) == 0)
			return 0;
	return -ENOBUFS;
}

static inline void
zone_free_to(struct rxr_zone *z, void * const *objs, unsigned int n,
		bool bulk)
{
	if (unlikely(rxr_in_irq()))
		rxr_zone_free_bulk_nowait(z, objs, n);
	else if (bulk)
		rxr_zone_free_bulk(z, objs, n);
	else
		for (unsigned int i = 0; i < n; i++)
			rxr_zone_free(z, objs[i], 0);
}

void
pool_zone_free(struct rxr_pool *p, void * const *objs, unsigned int n,
		bool bulk)
{
	if (likely(p->nr_zones == 1)) {
		zone_free_to(p->zone[0], objs, n, bulk);
		return;
	}
	/* Runs of the same node together. */
	for (unsigned int i = 0; i < n;) {
		unsigned int node = frame_node(p, objs[i]), j = i + 1;

		while (j < n && frame_node(p, objs[j]) == node)
			j++;
		zone_free_to(p->zone[node], objs + i, j - i, bulk);
		i = j;
	}
}

/* --- bh's deferred list -------------------------------------------------- */

static inline uint32_t
global_idx(const struct rxr_pool *p, const void *f)
{
	unsigned int node = frame_node(p, f);

	return p->zone_base[node] + rxr_zone_frame_idx(p->zone[node], f);
}

static inline void *
global_frame(const struct rxr_pool *p, uint32_t g)
{
	unsigned int node = 0;

	while (g >= p->zone_base[node + 1])
		node++;
	return rxr_zone_frame_at(p->zone[node], g - p->zone_base[node]);
}

/*
 * Lock-free push of a linked batch (Treiber stack): one compare-and-swap
 * per call, never waits on another thread, so a signal handler may push.
 * The word carries the list's frame count, so the pool's count of
 * available frames includes frames waiting here. A drain takes the whole
 * list at once, so there is no ABA.
 */
void
pool_defer_push(struct rxr_pool *p, struct pool_lcore *ls, void * const *objs,
		unsigned int n)
{
	uint32_t first, last;
	uint64_t head, want;

	if (n == 0)
		return;
	first = last = global_idx(p, objs[0]);
	for (unsigned int i = 1; i < n; i++) {
		uint32_t g = global_idx(p, objs[i]);

		p->defer_next[last] = g;
		last = g;
	}
	head = __atomic_load_n(&ls->defer_head, __ATOMIC_RELAXED);
	do {
		p->defer_next[last] = DEFER_HEAD(head);
		want = ((uint64_t)first << 32) | (DEFER_COUNT(head) + n);
	} while (!__atomic_compare_exchange_n(&ls->defer_head, &head, want,
			true, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/*
 * Take ls's whole list and hand it to fn in chunks (fn NULL: to the zone).
 * The count drops only once the frames are where fn put them. Any thread
 * may drain any list.
 */
unsigned int
pool_defer_drain(struct rxr_pool *p, struct pool_lcore *ls, local_free_t fn)
{
	void *tmp[CHUNK];
	unsigned int k = 0, total = 0;
	uint64_t head;
	uint32_t g;

	head = __atomic_load_n(&ls->defer_head, __ATOMIC_RELAXED);
	do {
		if (DEFER_HEAD(head) == NIL)
			return 0;
	} while (!__atomic_compare_exchange_n(&ls->defer_head, &head,
			(uint64_t)NIL << 32 | DEFER_COUNT(head), true,
			__ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	g = DEFER_HEAD(head);
	while (g != NIL) {
		tmp[k++] = global_frame(p, g);
		g = p->defer_next[g];
		if (k == CHUNK || g == NIL) {
			if (fn != NULL)
				split_local(p, ls, tmp, k, fn);
			else
				pool_zone_free(p, tmp, k, true);
			total += k;
			k = 0;
		}
	}
	__atomic_fetch_sub(&ls->defer_head, (uint64_t)total, __ATOMIC_RELEASE);
	if (fn != NULL) {
		RXR_STAT_ADD(ls->deferred_drained, total);
		RXR_STAT_ADD(ls->deferred_drains, 1);
	}
	return total;
}

/* --- reclaim: nothing stays out of reach when an allocation would fail --- */

void
__rxr_pool_bh_wait(struct rxr_pcp *pcp)
{
	do {
		__atomic_store_n(&pcp->bh_count, pcp->bh_count - 1,
				__ATOMIC_RELEASE);
		while (__atomic_load_n(&pcp->drain_req, __ATOMIC_ACQUIRE) != 0)
			rte_pause();
		__atomic_store_n(&pcp->bh_count, pcp->bh_count + 1,
				__ATOMIC_RELAXED);
		rte_compiler_barrier();
	} while (__atomic_load_n(&pcp->drain_req, __ATOMIC_ACQUIRE) != 0);
}

/*
 * Empty a bh or recycle owner's caches from another thread (Dekker's
 * pattern with an asymmetric barrier): publish the request, make every
 * thread of the process execute a full barrier, then read the owner's
 * section counter. Zero: the owner is outside and will see the request
 * before it enters, so its caches are ours until the request is cleared.
 * Not zero: it is working and its caches are in use; leave them. The pcp
 * lock keeps out a stop or quiesce flushing the same caches.
 */
static unsigned int
reclaim_owner_caches(struct rxr_pool *p, struct pool_lcore *ls)
{
	struct rxr_pcp *pcp = ls->pcp;
	unsigned int got = 0;

	if (!rxr_spinlock_trylock(&ls->pcp_lock))
		return 0;
	__atomic_store_n(&pcp->drain_req, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0 &&
			__atomic_load_n(&pcp->bh_count, __ATOMIC_ACQUIRE) == 0) {
		if (ls->pp != NULL)
			got = recycle_reclaim(p, ls);
		got += pcp->count;
		rxr_pcp_drain(pcp);
	}
	__atomic_store_n(&pcp->drain_req, 0, __ATOMIC_RELEASE);
	rxr_spinlock_unlock(&ls->pcp_lock);
	return got;
}

/* irqsave: every context takes the pcp lock, so a reclaim may too. */
static unsigned int
reclaim_locked_pcp(struct rxr_pool *p, struct pool_lcore *ls)
{
	unsigned int got;

	rxr_spinlock_lock(&ls->pcp_lock);
	got = ls->pcp->count;
	rxr_pcp_drain(ls->pcp);
	rxr_spinlock_unlock(&ls->pcp_lock);
	return got;
}

/*
 * Deferred lists to the zone, then, outside signal handlers, the caches
 * of every lcore the strategy lets another thread empty.
 * @return frames brought back.
 */
static unsigned int
pool_reclaim(struct rxr_pool *p)
{
	unsigned int got = 0;
	bool irq = rxr_in_irq();

	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (p->lcore[lc] != NULL)
			got += pool_defer_drain(p, p->lcore[lc], NULL);
	if (irq)
		return got;
	rxr_spinlock_lock(&p->reclaim_lock);
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		struct pool_lcore *ls = p->lcore[lc];

		if (ls == NULL)
			continue;
		switch (p->conf.strategy) {
		case RXR_STRATEGY_IRQSAVE:
			got += reclaim_locked_pcp(p, ls);
			break;
		case RXR_STRATEGY_BH:
		case RXR_STRATEGY_RECYCLE:
			if (p->remote_drain)
				got += reclaim_owner_caches(p, ls);
			break;
		default:
			break;
		}
	}
	rxr_spinlock_unlock(&p->reclaim_lock);
	return got;
}

int
__rxr_pool_alloc_slow(struct rxr_pool *p, void **objs, unsigned int n)
{
	const struct rxr_pool_ops *ops = &p->ops;

	if (pool_reclaim(p) == 0)
		return -ENOBUFS;
	return ops->alloc(p, objs, n) == 0 ? 0 : -ENOBUFS;
}

/* --- lcore life cycle ---------------------------------------------------- */

unsigned int
rxr_pool_poll_end(struct rxr_pool *p)
{
	struct pool_lcore *ls = owner_lcore(p);

	if (unlikely(ls == NULL))
		return 0;
	return pool_defer_drain(p, ls, bh_pcp_free);
}

static void
lcore_flush(struct rxr_pool *p, struct pool_lcore *ls)
{
	/*
	 * Under irqsave, a thread or handler on the same CPU may be using this
	 * pcp right now (ThreadSanitizer caught the stop racing one): drain it
	 * inside the same lock they take. The other strategies pay one
	 * uncontended lock at stop time.
	 */
	rxr_spinlock_lock(&ls->pcp_lock);
	if (ls->supply != NULL)
		rxr_zero_supply_drain(ls->supply);
	pool_defer_drain(p, ls, bh_pcp_free);
	if (ls->pp != NULL)
		recycle_flush(p, ls);
	rxr_pcp_drain(ls->pcp);
	rxr_spinlock_unlock(&ls->pcp_lock);
}

void
rxr_pool_lcore_stop(struct rxr_pool *p)
{
	struct pool_lcore *ls = owner_lcore(p);

	if (ls != NULL)
		lcore_flush(p, ls);
}

void
rxr_pool_quiesce(struct rxr_pool *p)
{
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++)
		if (p->lcore[lc] != NULL)
			lcore_flush(p, p->lcore[lc]);
	/* A lock hold merges what handlers left pending. */
	for (unsigned int n = 0; n < p->nr_zones; n++) {
		rxr_zone_lock(p->zone[n]);
		rxr_zone_unlock(p->zone[n]);
	}
}

int
rxr_pool_task_bind(struct rxr_pool *p, unsigned int lcore)
{
	if (lcore >= RTE_MAX_LCORE || p->lcore[lcore] == NULL)
		return -EINVAL;
	RTE_PER_LCORE(rxr_bind_pool) = p;
	RTE_PER_LCORE(rxr_bind_lcore) = p->lcore[lcore];
	return 0;
}

enum rxr_context
rxr_pool_context(const struct rxr_pool *p)
{
	if (rxr_in_irq())
		return RXR_CTX_IRQ;
	return self_lcore(p) != NULL ? RXR_CTX_POLL : RXR_CTX_TASK;
}

/* --- introspection ------------------------------------------------------- */

uint64_t
rxr_pool_avail(const struct rxr_pool *p)
{
	uint64_t n = 0;

	for (unsigned int z = 0; z < p->nr_zones; z++) {
		struct rxr_zone_stats zs;

		rxr_zone_stats(p->zone[z], &zs);
		n += zs.nr_free;
	}
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		const struct pool_lcore *ls = p->lcore[lc];

		if (ls == NULL)
			continue;
		n += pool_defer_count(ls);
		n += __atomic_load_n(&ls->pcp->count, __ATOMIC_RELAXED);
		if (ls->supply != NULL) {
			struct rxr_zero_supply_stats ss;

			rxr_zero_supply_stats(ls->supply, &ss);
			n += ss.ready;
		}
		if (ls->pp != NULL)
			n += __atomic_load_n(&ls->pp->cache.count,
					__ATOMIC_RELAXED) +
				rxr_ptr_ring_count(&ls->pp->ring);
	}
	return n;
}

uint64_t
rxr_pool_nr_frames(const struct rxr_pool *p)
{
	uint64_t n = 0;

	for (unsigned int z = 0; z < p->nr_zones; z++) {
		struct rxr_zone_stats zs;

		rxr_zone_stats(p->zone[z], &zs);
		n += zs.nr_frames;
	}
	return n;
}

void
rxr_pool_stats(const struct rxr_pool *p, struct rxr_pool_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->nr_zones = p->nr_zones;
	for (unsigned int z = 0; z < p->nr_zones; z++) {
		rxr_zone_stats(p->zone[z], &st->zone[z]);
		st->nr_frames += st->zone[z].nr_frames;
	}
	st->avail = rxr_pool_avail(p);
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) {
		const struct pool_lcore *ls = p->lcore[lc];
		struct rxr_pool_lcore_stats *o;

		if (ls == NULL)
			continue;
		o = &st->lcore[st->nr_lcores++];
		o->lcore = ls->lcore;
		o->node = ls->node;
		rxr_pcp_stats(ls->pcp, &o->pcp);
		rxr_spinlock_stats(&ls->pcp_lock, &o->pcp_lock);
		o->zone_fallback = RXR_STAT_READ(ls->zone_fallback);
		o->deferred_drained = RXR_STAT_READ(ls->deferred_drained);
		o->deferred_drains = RXR_STAT_READ(ls->deferred_drains);
		o->remote_frees = RXR_STAT_READ(ls->remote_frees);
		if (ls->pp != NULL) {
			rxr_page_pool_stats(ls->pp, &o->recycle);
			o->recycle.recycle_released_refcnt +=
				RXR_STAT_READ(ls->released_remote);
		}
		o->refill_calls = RXR_STAT_READ(ls->refill_calls);
		o->refill_frames = RXR_STAT_READ(ls->refill_frames);
		o->refill_cycles = RXR_STAT_READ(ls->refill_cycles);
		for (unsigned int b = 0; b < RXR_HIST_BUCKETS; b++)
			o->refill_hist[b] = RXR_STAT_READ(ls->hist[b]);
		o->zero_bytes = RXR_STAT_READ(ls->zero_bytes);
		o->zero_cycles = RXR_STAT_READ(ls->zero_cycles);
		if (ls->supply != NULL)
			rxr_zero_supply_stats(ls->supply, &o->supply);
	}
	st->zero_bytes_other = RXR_STAT_READ(p->zero_bytes_other);
	st->zero_cycles_other = RXR_STAT_READ(p->zero_cycles_other);
}

const struct rxr_pool_conf *
rxr_pool_conf(const struct rxr_pool *p)
{
	return &p->conf;
}

struct rxr_zone *
rxr_pool_zone(const struct rxr_pool *p, unsigned int node)
{
	return node < p->nr_zones ? p->zone[node] : NULL;
}

int
rxr_pool_frame_node(const struct rxr_pool *p, const void *frame)
{
	for (unsigned int n = 0; n < p->nr_zones; n++)
		if (rxr_zone_owns(p->zone[n], frame))
			return n;
	return -1;
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
