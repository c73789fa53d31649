/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_POOL_PRIVATE_H
#define RXR_POOL_PRIVATE_H

/* PRIVATE to lib/strategy and its white-box tests. */

#include <assert.h>
#include <errno.h>
#include <sched.h>
#include <stddef.h>

#include <rte_common.h>
#include <rte_per_lcore.h>
#include <rte_reciprocal.h>

#include "rxr_strategy.h"

#define RXRP_NIL UINT32_MAX
#define RXRP_MAX_CPUS 1024	/* CPU_SETSIZE */
#define RXRP_CHUNK 64		/* frames per stack buffer in split calls */

/* A poll lcore's state in one pool; the strategy's own in priv[]. */
struct rxrp_lcore {
	struct rxr_pool_bh *bh;		/* in the pool's owner[] */
	struct rxr_pcp *pcp;
	void *owner_data;		/* the strategy's owner path's (init) */
	uint32_t node;
	unsigned int lcore;
#define RXRP_LCORE_FIELD(name, help) uint64_t name;
	RXR_POOL_LCORE_COUNTERS(RXRP_LCORE_FIELD)
#undef RXRP_LCORE_FIELD
	uint64_t hist[RXR_HIST_BUCKETS];
	struct rxr_zero_supply *supply;	/* background zeroing */

	/* The strategy's own, zeroed at creation (RXRP_LCORE_PRIV_CHECK()). */
	uint8_t priv[RTE_CACHE_LINE_SIZE] __rte_cache_aligned;

	/* The deferred list: head frame index (high half) and count. */
	uint64_t defer_head __rte_cache_aligned;
};

/* A deferred batch of one free call, kept under its first frame's global
 * index g: link and count in defer_link[g], the others in defer_rest[g]. */
#define RXRP_DEFER_BATCH 32
struct rxrp_defer_link {
	uint32_t next;			/* next batch's first frame, or RXRP_NIL */
	uint32_t n;
};
struct rxrp_defer_rest {
	uint32_t idx[RXRP_DEFER_BATCH - 1]; /* frames 1..n-1, global indexes */
} __rte_aligned(2 * RTE_CACHE_LINE_SIZE);

#define RXRP_DEFER_EMPTY ((uint64_t)RXRP_NIL << 32)
#define RXRP_DEFER_HEAD(w) ((uint32_t)((w) >> 32))
#define RXRP_DEFER_COUNT(w) ((uint32_t)(w))

struct rxrp_strategy;

struct rxr_pool {
	struct rxr_pool_ops ops;	/* first: the inline dispatch casts */
	const struct rxrp_strategy *strategy;
	struct rxr_pool_conf conf;
	char name[32];			/* conf.name points here */
	struct rxr_zero_payload zp;
	uint64_t zero_bytes_other;	/* atomic: task and irq contexts */
	uint64_t zero_cycles_other;
	uint64_t ns_mult;		/* cycles -> ns, 32.32 fixed point */
	uint64_t delay_steps;		/* test_refill_delay as work: steps */
	uint32_t frame_size;
	struct rte_reciprocal_u64 frame_div; /* of frame_size */
	uintptr_t flat_base;		/* one zone, one region: its base; else 0 */
	uintptr_t off_base;		/* lowest frame if all within 4 GiB, or 0 */
	uint32_t nr_regions;
	uint32_t nr_zones;
	struct rxr_zone *zone[RXR_POOL_MAX_NODES];
	uint32_t zone_base[RXR_POOL_MAX_NODES + 1]; /* global frame index */
	struct rxrp_defer_link *defer_link; /* deferred batches, by global */
	struct rxrp_defer_rest *defer_rest; /* index of their first frame */
	uintptr_t span[2];		/* [lowest frame, end of the highest) */
	struct rxr_spinlock reclaim_lock; /* one reclaim at a time */
	int remote_drain;		/* membarrier: 1 yes, -1 no, 0 unasked */
	/* The strategy's pool-wide state (init): a line with the tables. */
	void *priv __rte_cache_aligned;
	struct rxrp_lcore *first;
	struct rxrp_lcore *lcore[RTE_MAX_LCORE];
	struct rxrp_lcore *by_cpu[RXRP_MAX_CPUS];
	/* Every poll lcore's section and stack; ops.owner when inline. */
	struct rxr_pool_owner owner[RTE_MAX_LCORE];
};

static_assert(offsetof(struct rxr_pool, ops) == 0,
	"struct rxr_pool: ops must be the first member");

/* A strategy, as rte_mempool_ops: alloc and free required, the rest may be
 * NULL. For drain and held, ls NULL: the pool-wide caches. */
struct rxrp_strategy {
	const char *name;
	uint32_t caps;		/* RXR_STRATEGY_CAP_* */
	/* REQUIRES: any thread or handler, n >= 1. All or none: 0 or -ENOBUFS. */
	rxr_pool_alloc_t alloc;
	/* REQUIRES: any thread or handler, n >= 1, frames of this pool in use. */
	rxr_pool_free_t free;
	/* REQUIRES: creation, one thread, lcores made, nothing shared. 0 or -errno. */
	int (*init)(struct rxr_pool *p);
	/* REQUIRES: destroy, everything drained; after any init, a failed one too. */
	void (*fini)(struct rxr_pool *p);
	/* REQUIRES quiet: ls's owner stopped, or is the caller; else not a handler,
	 * one at a time (reclaim_lock), owners running. Returns frames given back. */
	unsigned int (*drain)(struct rxr_pool *p, struct rxrp_lcore *ls,
			bool quiet);
	/* REQUIRES: nothing, no lock taken: frames in ls's own caches, a snapshot. */
	uint64_t (*held)(const struct rxr_pool *p, const struct rxrp_lcore *ls);
	/* REQUIRES: nothing, no lock taken: adds ls's own counters into o. */
	void (*stats)(const struct rxr_pool *p, const struct rxrp_lcore *ls,
			struct rxr_pool_lcore_stats *o);
	/* Names of o->counters[], NULL last, at most RXR_STRATEGY_COUNTERS_MAX. */
	const char * const *counters;
	/* conf.settings[] in order, a NULL name last, at most _SETTINGS_MAX. */
	const struct rxr_strategy_setting *settings;
	/* REQUIRES: nothing, no pool. Whether this process can run it, or why not. */
	bool (*available)(char *why, size_t len);
};

/* The registry, one entry per line of rxr_strategy_list.h. */
#define RXR_STRATEGY(id, name) \
	extern const struct rxrp_strategy rxrp_strategy_##name;
#include "rxr_strategy_list.h"
#undef RXR_STRATEGY

const struct rxrp_strategy *rxrp_strategy_get(enum rxr_strategy s);

/* A strategy's own counters from its X(name, help) list: RXRP_C_<name>. */
#define RXRP_COUNTER_ENUM(name, help) RXRP_C_##name,
#define RXRP_COUNTER_NAME(name, help) #name,
#define RXRP_COUNTERS_DEFINE(LIST, names) \
	enum { LIST(RXRP_COUNTER_ENUM) RXRP_NB_COUNTERS }; \
	static_assert(RXRP_NB_COUNTERS <= RXR_STRATEGY_COUNTERS_MAX, \
		#LIST " do not fit rxr_pool_lcore_stats.counters"); \
	static const char * const names[] = { LIST(RXRP_COUNTER_NAME) NULL }

/* A strategy's per-lcore state fits rxrp_lcore.priv. */
#define RXRP_LCORE_PRIV_CHECK(type) \
	static_assert(sizeof(type) <= RTE_CACHE_LINE_SIZE && \
		_Alignof(type) <= RTE_CACHE_LINE_SIZE, \
		#type " does not fit rxrp_lcore.priv")

static inline void *
rxrp_lcore_priv(const struct rxrp_lcore *ls)
{
	return (void *)(uintptr_t)ls->priv;
}

#define RXRP_FOREACH_LCORE(p, ls, lc) \
	for (unsigned int lc = 0; lc < RTE_MAX_LCORE; lc++) \
		if (((ls) = (p)->lcore[lc]) != NULL)

RTE_DECLARE_PER_LCORE(struct rxr_pool *, rxrp_bind_pool);
RTE_DECLARE_PER_LCORE(struct rxrp_lcore *, rxrp_bind_lcore);

/* The calling thread's own state if it is a poll lcore of p, else NULL. */
static __rte_always_inline struct rxrp_lcore *
rxrp_self_lcore(const struct rxr_pool *p)
{
	unsigned int lc = rte_lcore_id();

	return likely(lc < RTE_MAX_LCORE) ? p->lcore[lc] : NULL;
}

/* The poll lcore in poll context (owner), else NULL. */
static __rte_always_inline struct rxrp_lcore *
rxrp_owner_lcore(const struct rxr_pool *p)
{
	struct rxrp_lcore *ls = rxrp_self_lcore(p);

	return ls != NULL && !rxr_in_irq() ? ls : NULL;
}

/* The poll lcore of the CPU this thread runs on (vDSO getcpu, no syscall). */
static inline struct rxrp_lcore *
rxrp_cpu_lcore(const struct rxr_pool *p)
{
	int cpu = sched_getcpu();

	return cpu >= 0 && cpu < RXRP_MAX_CPUS ? p->by_cpu[cpu] : NULL;
}

/* Whose deferred list or ring a non-owner's frees go to. */
static inline struct rxrp_lcore *
rxrp_task_target(const struct rxr_pool *p)
{
	struct rxrp_lcore *ls;

	if (RTE_PER_LCORE(rxrp_bind_pool) == p)
		return RTE_PER_LCORE(rxrp_bind_lcore);
	ls = rxrp_self_lcore(p);	/* irq on a poll thread: its own list */
	if (ls == NULL)
		ls = rxrp_cpu_lcore(p);
	return ls != NULL ? ls : p->first;
}

static inline unsigned int
rxrp_frame_node(const struct rxr_pool *p, const void *f)
{
	if (likely(p->nr_zones == 1))
		return 0;
	for (unsigned int n = 0; n < p->nr_zones; n++)
		if (rxr_zone_owns(p->zone[n], f))
			return n;
	RXR_DEBUG_FAIL(RXR_CHECK_FOREIGN, "pool %s: %p belongs to no zone",
		p->conf.name, f);
}

static inline unsigned int
rxrp_ctx_node(const struct rxr_pool *p)
{
	if (likely(p->nr_zones == 1))
		return 0;
	return rxrp_task_target(p)->node;
}

/* The zonelist's other nodes, and frees of several nodes. */
int rxrp_zone_alloc_other(struct rxr_pool *p, unsigned int node, void **objs,
		unsigned int n);
void rxrp_zone_free_nodes(struct rxr_pool *p, void * const *objs,
		unsigned int n);

/* An alloc falls back to other nodes (the zonelist), frees go home; inline,
 * so that a strategy reaches the zone by one call. */
static inline int
rxrp_zone_alloc(struct rxr_pool *p, unsigned int node, void **objs,
		unsigned int n)
{
	if (likely(rxr_zone_alloc_bulk(p->zone[node], objs, n, n) == n))
		return 0;
	return rxrp_zone_alloc_other(p, node, objs, n);
}

static inline void
rxrp_zone_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	if (likely(p->nr_zones == 1))
		rxr_zone_free_bulk(p->zone[0], objs, n);
	else
		rxrp_zone_free_nodes(p, objs, n);
}

/* Every strategy's failed alloc: drain_all_pages(), then one more try. */
int rxrp_alloc_failed(struct rxr_pool *p, void **objs, unsigned int n);

/* Bulk off: a strategy call per frame (an alloc rolled back on failure). */
int rxrp_alloc_frames(struct rxr_pool *p, void **objs, unsigned int n);
int rxrp_free_frames(struct rxr_pool *p, void * const *objs, unsigned int n);

static __rte_always_inline bool
rxrp_per_frame(const struct rxr_pool *p, unsigned int n)
{
	return n > p->ops.section_max;
}

typedef void (*rxrp_local_free_t)(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n);

/* The frames of ls's node to fn, the others to their own zone. */
static __rte_always_inline void
rxrp_split_local(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n, rxrp_local_free_t fn)
{
	void *tmp[RXRP_CHUNK];
	unsigned int k = 0;

	if (likely(p->nr_zones == 1)) {
		fn(p, ls, objs, n);
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (rxrp_frame_node(p, objs[i]) != ls->node) {
			rxrp_zone_free(p, &objs[i], 1);
			RXR_STAT_ADD(ls->remote_frees, 1);
			continue;
		}
		tmp[k++] = objs[i];
		if (k == RXRP_CHUNK) {
			fn(p, ls, tmp, k);
			k = 0;
		}
	}
	if (k != 0)
		fn(p, ls, tmp, k);
}

/* bh's free_unref_page_commit(): onto the owner's pcp under its section. */
static inline void
rxrp_pcp_free_owner(struct rxr_pool *p __rte_unused, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n)
{
	rxr_pool_bh_disable(ls->bh);
	rxr_pcp_free_bulk(ls->pcp, objs, n);
	rxr_pool_bh_enable(ls->bh);
}

/* The pcp free of a strategy whose caller holds the pcp (irqsave, none). */
static __rte_always_inline void
rxrp_pcp_free_local(struct rxr_pool *p __rte_unused, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n)
{
	rxr_pcp_free_bulk(ls->pcp, objs, n);
}

/* The deferred list (RXR_STRATEGY_CAP_DEFERS_FREES): pushed lock-free by
 * other contexts, drained through fn (NULL: to the zone) by the owner. */
void rxrp_defer_push(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n);
unsigned int rxrp_defer_drain(struct rxr_pool *p, struct rxrp_lcore *ls,
		rxrp_local_free_t fn);
/* A non-owner's free: into its task batch if it has one, else pushed. */
void rxrp_defer_free(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n);
static inline uint32_t
rxrp_defer_count(const struct rxrp_lcore *ls)
{
	return RXRP_DEFER_COUNT(__atomic_load_n(&ls->defer_head,
			__ATOMIC_RELAXED));
}

/* A quiet drain's end: supply, deferred list and pcp to the zone. */
unsigned int rxrp_lcore_drain(struct rxr_pool *p, struct rxrp_lcore *ls);

/* bh's reclaim: the owner kept out (membarrier), then own() (may be NULL)
 * and the pcp to the zone. @return frames given back. */
unsigned int rxrp_bh_reclaim(struct rxr_pool *p, struct rxrp_lcore *ls,
		unsigned int (*own)(struct rxr_pool *p, struct rxrp_lcore *ls));

/* zeroing.c: the entries when zeroing or the test slowdown is on. */
int rxrp_zero_setup(struct rxr_pool *p);
int rxrp_wrap_alloc(struct rxr_pool *p, void **objs, unsigned int n);
int rxrp_wrap_free(struct rxr_pool *p, void * const *objs, unsigned int n);

#endif /* RXR_POOL_PRIVATE_H */
