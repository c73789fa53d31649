/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_POOL_PRIVATE_H
#define RXR_POOL_PRIVATE_H

/* Internals shared by the strategy files. Not installed. */

#include <errno.h>
#include <sched.h>

#include <rte_common.h>
#include <rte_per_lcore.h>

#include "rxr_strategy.h"

#define NIL UINT32_MAX
#define MAX_CPUS 1024	/* CPU_SETSIZE */
#define CHUNK 64	/* frames per stack buffer when a call is split */

/* A poll lcore's state in one pool. */
struct pool_lcore {
	/* Owner's lines: pcp, bh counter, owner-only counters. */
	struct rxr_pcp *pcp;
	struct rxr_page_pool *pp;
	uint32_t node;
	unsigned int lcore;
	uint64_t deferred_drained;
	uint64_t deferred_drains;
	uint64_t remote_frees;
	uint64_t refill_calls;
	uint64_t refill_frames;
	uint64_t refill_cycles;
	uint64_t hist[RXR_HIST_BUCKETS];
	uint64_t zero_bytes;
	uint64_t zero_cycles;
	struct rxr_zero_supply *supply;	/* background zeroing */

	/* irqsave: the per-pcp lock other contexts try. */
	struct rxr_spinlock pcp_lock __rte_cache_aligned;
	uint64_t zone_fallback;		/* atomic: any context */
	uint64_t released_remote;	/* atomic: recycle, other contexts */

	/*
	 * bh: the deferred-free list, pushed by any context: head frame
	 * index (high half) and frames on the list (low half), one word so
	 * that one compare-and-swap pushes and counts.
	 */
	uint64_t defer_head __rte_cache_aligned;
};

#define DEFER_EMPTY ((uint64_t)NIL << 32)
#define DEFER_HEAD(w) ((uint32_t)((w) >> 32))
#define DEFER_COUNT(w) ((uint32_t)(w))

struct rxr_pool {
	struct rxr_pool_ops ops;	/* first: rxr_pool_alloc_bulk() casts */
	rxr_pool_alloc_t untimed_alloc;	/* under the latency wrapper */
	struct rxr_pool_ops base;	/* the strategy's own, under zeroing */
	struct rxr_zero_payload zp;	/* where payloads are and how to clear */
	uint64_t zero_bytes_other;	/* atomic: task and irq contexts */
	uint64_t zero_cycles_other;
	struct rxr_pool_conf conf;
	char name[32];			/* conf.name points here */
	uint32_t frame_size;
	uint32_t nr_zones;
	struct rxr_zone *zone[RXR_POOL_MAX_NODES];
	uint32_t zone_base[RXR_POOL_MAX_NODES + 1]; /* global frame index */
	uint32_t *defer_next;		/* deferred list links, by global index */
	uint64_t ns_mult;		/* cycles -> ns, 32.32 fixed point */
	rxr_pool_free_t adopt_saved;	/* the strategy's free while adopting */
	struct rxr_pcp * const *adopt_owner;
	void **adopt;
	unsigned int nr_adopt;
	unsigned int max_adopt;
	bool adopt_overflow;
	struct rxr_spinlock reclaim_lock; /* one reclaim at a time */
	bool remote_drain;		/* membarrier: owner-only caches drainable */
	struct pool_lcore *first;
	struct pool_lcore *lcore[RTE_MAX_LCORE];
	struct rxr_pcp *owner_pcp[RTE_MAX_LCORE]; /* ops.owner_pcp points here */
	struct pool_lcore *by_cpu[MAX_CPUS];
};

RTE_DECLARE_PER_LCORE(struct rxr_pool *, rxr_bind_pool);
RTE_DECLARE_PER_LCORE(struct pool_lcore *, rxr_bind_lcore);

/* The calling thread's own state if it is a poll lcore of p, else NULL. */
static inline struct pool_lcore *
self_lcore(const struct rxr_pool *p)
{
	unsigned int lc = rte_lcore_id();

	return likely(lc < RTE_MAX_LCORE) ? p->lcore[lc] : NULL;
}

/* The poll lcore in poll context (owner), NULL in task and irq context. */
static inline struct pool_lcore *
owner_lcore(const struct rxr_pool *p)
{
	struct pool_lcore *ls = self_lcore(p);

	return ls != NULL && !rxr_in_irq() ? ls : NULL;
}

/* The poll lcore of the CPU this thread runs on (vDSO getcpu, no syscall). */
static inline struct pool_lcore *
cpu_lcore(const struct rxr_pool *p)
{
	int cpu = sched_getcpu();

	return cpu >= 0 && cpu < MAX_CPUS ? p->by_cpu[cpu] : NULL;
}

/* Whose deferred list or ring a non-owner's frees go to. */
static inline struct pool_lcore *
task_target(const struct rxr_pool *p)
{
	struct pool_lcore *ls;

	if (RTE_PER_LCORE(rxr_bind_pool) == p)
		return RTE_PER_LCORE(rxr_bind_lcore);
	ls = self_lcore(p);	/* irq on a poll thread: its own list */
	if (ls == NULL)
		ls = cpu_lcore(p);
	return ls != NULL ? ls : p->first;
}

static inline unsigned int
frame_node(const struct rxr_pool *p, const void *f)
{
	if (likely(p->nr_zones == 1))
		return 0;
	for (unsigned int n = 0; n < p->nr_zones; n++)
		if (rxr_zone_owns(p->zone[n], f))
			return n;
	RXR_DEBUG_FAIL(RXR_CHECK_FOREIGN, "pool %s: %p belongs to no zone",
		p->conf.name, f);
}

/* Node for allocations of the calling context. */
static inline unsigned int
ctx_node(const struct rxr_pool *p)
{
	if (likely(p->nr_zones == 1))
		return 0;
	return task_target(p)->node;
}

static inline void
bh_disable(struct pool_lcore *ls)
{
	rxr_pool_bh_disable(ls->pcp);
}

static inline void
bh_enable(struct pool_lcore *ls)
{
	rxr_pool_bh_enable(ls->pcp);
}

/* Zone paths, shared by every strategy. */
int pool_zone_alloc(struct rxr_pool *p, unsigned int node, void **objs,
		unsigned int n, bool bulk);
void pool_zone_free(struct rxr_pool *p, void * const *objs, unsigned int n,
		bool bulk);

typedef void (*local_free_t)(struct rxr_pool *p, struct pool_lcore *ls,
		void * const *objs, unsigned int n);

/*
 * Hand the frames of ls's node to fn; free the others to their own zone
 * (a pcp only ever holds frames of its zone).
 */
static inline void
split_local(struct rxr_pool *p, struct pool_lcore *ls, void * const *objs,
		unsigned int n, local_free_t fn)
{
	void *tmp[CHUNK];
	unsigned int k = 0;

	if (likely(p->nr_zones == 1)) {
		fn(p, ls, objs, n);
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		unsigned int node = frame_node(p, objs[i]);

		if (node != ls->node) {
			pool_zone_free(p, &objs[i], 1, true);
			RXR_STAT_ADD(ls->remote_frees, 1);
			continue;
		}
		tmp[k++] = objs[i];
		if (k == CHUNK) {
			fn(p, ls, tmp, k);
			k = 0;
		}
	}
	if (k != 0)
		fn(p, ls, tmp, k);
}

/*
 * Bulk off: each frame of a call is a call of its own (its own critical
 * section). On failure the frames already taken go back the same way.
 */
static inline int
per_frame_alloc(struct rxr_pool *p, void **objs, unsigned int n,
		rxr_pool_alloc_t one, rxr_pool_free_t undo)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (unlikely(one(p, &objs[i], 1) != 0))
			break;
	if (likely(i == n))
		return 0;
	while (i-- > 0)
		undo(p, &objs[i], 1);
	return -ENOBUFS;
}

static inline void
per_frame_free(struct rxr_pool *p, void * const *objs, unsigned int n,
		rxr_pool_free_t one)
{
	for (unsigned int i = 0; i < n; i++)
		one(p, &objs[i], 1);
}

/* bh's deferred list. */
void pool_defer_push(struct rxr_pool *p, struct pool_lcore *ls,
		void * const *objs, unsigned int n);
unsigned int pool_defer_drain(struct rxr_pool *p, struct pool_lcore *ls,
		local_free_t fn);
/* Frames on ls's deferred list. */
static inline uint32_t
pool_defer_count(const struct pool_lcore *ls)
{
	return DEFER_COUNT(__atomic_load_n(&ls->defer_head, __ATOMIC_RELAXED));
}

/* Strategy tables, bulk and single. */
extern const struct rxr_pool_ops rxr_strategy_zone_ops[2];
extern const struct rxr_pool_ops rxr_strategy_irqsave_ops[2];
extern const struct rxr_pool_ops rxr_strategy_bh_ops[2];
extern const struct rxr_pool_ops rxr_strategy_recycle_ops[2];
extern const struct rxr_pool_ops rxr_strategy_none_ops[2];

/* Zeroing policy wrappers around a strategy's ops (zeroing.c). */
int pool_zero_setup(struct rxr_pool *p);
void pool_zero_lcore_init(struct rxr_pool *p, struct pool_lcore *ls,
		int socket, int *err);

/* Recycle's stop: cache and ring back to the pcp or zone. */
void recycle_flush(struct rxr_pool *p, struct pool_lcore *ls);
/* Cache and ring straight to the zone, by a reclaim that excluded the owner. */
unsigned int recycle_reclaim(struct rxr_pool *p, struct pool_lcore *ls);
/* The pcp free used at bh's enable point. */
void bh_pcp_free(struct rxr_pool *p, struct pool_lcore *ls,
		void * const *objs, unsigned int n);

#endif /* RXR_POOL_PRIVATE_H */
