/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_POOL_PRIVATE_H
#define RXR_POOL_PRIVATE_H

/*
 * PRIVATE to lib/strategy: the pool core, the strategy files
 * (strategy_<name>.c) and white-box tests include this header; nothing
 * else may. Not installed. Every symbol carries the prefix rxrp_ / RXRP_.
 *
 * A strategy is a table of operations (struct rxrp_strategy) with required
 * and optional callbacks, as rte_mempool_ops. The core (rxr_pool.c) calls
 * them and names no strategy; the list of strategies is
 * rxr_strategy_list.h. doc/design.md tells the whole story.
 */

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
/*
 * Bytes of a strategy's own per-lcore state: one cache line, between the
 * owner's lines and the line other contexts push deferred frees on. A
 * strategy that needs more allocates it in lcore_init and keeps a pointer.
 */
#define RXRP_LCORE_PRIV_SIZE RTE_CACHE_LINE_SIZE

/*
 * A poll lcore's state in one pool: what the core keeps for every
 * strategy, and the strategy's own state in priv[] (rxrp_lcore_priv()).
 */
struct rxrp_lcore {
	/* Owner's lines: pcp, owner-only counters. */
	struct rxr_pcp *pcp;
	/* The strategy's, set by lcore_init: what its owner path reads first,
	 * on the same line as the pcp pointer. */
	void *owner_data;
	uint32_t node;
	unsigned int lcore;
	uint64_t deferred_drained;
	uint64_t deferred_drains;
	uint64_t remote_frees;
	uint64_t refill_calls;
	uint64_t refill_frames;
	uint64_t refill_cycles;
	uint64_t sample_cycles;		/* alloc + free + drain, sampled */
	bool sampling;			/* rxr_pool_sample() window open */
	uint64_t hist[RXR_HIST_BUCKETS];
	uint64_t zero_bytes;
	uint64_t zero_cycles;
	struct rxr_zero_supply *supply;	/* background zeroing */
	/*
	 * The inline owner path's stack: the pcp unless the strategy's
	 * lcore_init points it at its own cache (ops.owner).
	 */
	struct rxr_pool_owner owner;

	/* The strategy's lcore_priv_size bytes, zeroed at creation. */
	uint8_t priv[RXRP_LCORE_PRIV_SIZE] __rte_cache_aligned;

	/*
	 * The deferred-free list, pushed by any context: head frame index
	 * (high half) and frames on the list (low half), one word so that
	 * one compare-and-swap pushes and counts.
	 */
	uint64_t defer_head __rte_cache_aligned;
};

/*
 * A batch on a deferred list: up to RXRP_DEFER_BATCH frames of one free
 * call, kept under its first frame's global index g (a frame is on one list
 * at a time, so the slots are the batch's alone): the link and count in
 * defer_link[g] (dense, as a single frame needs nothing more) and the other
 * frames' indexes in defer_rest[g]. The drain reads whole batches and
 * follows one link per batch, not one per frame.
 */
#define RXRP_DEFER_BATCH 32
struct rxrp_defer_link {
	uint32_t next;			/* next batch's first frame, or RXRP_NIL */
	uint32_t n;			/* frames in the batch */
};
struct rxrp_defer_rest {
	uint32_t idx[RXRP_DEFER_BATCH - 1]; /* frames 1..n-1, global indexes */
} __rte_aligned(2 * RTE_CACHE_LINE_SIZE);

#define RXRP_DEFER_EMPTY ((uint64_t)RXRP_NIL << 32)
#define RXRP_DEFER_HEAD(w) ((uint32_t)((w) >> 32))
#define RXRP_DEFER_COUNT(w) ((uint32_t)(w))

/*
 * The wrappers around a strategy's functions, innermost first. Each layer
 * calls the one below through rxrp_below(); layers are installed in this
 * order only (rxrp_layer_push()).
 */
enum rxrp_layer {
	RXRP_LAYER_STRATEGY,	/* the strategy's alloc/free, its bulk mode */
	RXRP_LAYER_ZERO,	/* zeroing policy alloc, free or background */
	RXRP_LAYER_TIMING,	/* refill latency of poll-context allocs */
	RXRP_LAYER_ADOPT,	/* populate: frees gathered, not freed */
	RXRP_LAYER_MAX,
};

/* One layer's entry points. */
struct rxrp_fns {
	rxr_pool_alloc_t alloc;
	rxr_pool_free_t free;
};

struct rxrp_strategy;

struct rxr_pool {
	struct rxr_pool_ops ops;	/* first: rxr_pool_alloc_bulk() casts */
	const struct rxrp_strategy *strategy;
	/* below[l]: what layer l wraps; valid for l < top. */
	struct rxrp_fns below[RXRP_LAYER_MAX];
	unsigned int top;		/* layers installed */
	struct rxr_zero_payload zp;	/* where payloads are and how to clear */
	uint64_t zero_bytes_other;	/* atomic: task and irq contexts */
	uint64_t zero_cycles_other;
	struct rxr_pool_conf conf;
	char name[32];			/* conf.name points here */
	uint32_t frame_size;
	struct rte_reciprocal_u64 frame_div; /* of frame_size */
	uintptr_t flat_base;		/* one zone, one region: its base; else 0 */
	/* Every frame less than 4 GiB above it: the lowest frame's address
	 * (frames fit 32-bit offsets from it); else 0. */
	uintptr_t off_base;
	uint32_t nr_regions;		/* added to the zones */
	uint32_t nr_zones;
	struct rxr_zone *zone[RXR_POOL_MAX_NODES];
	uint32_t zone_base[RXR_POOL_MAX_NODES + 1]; /* global frame index */
	struct rxrp_defer_link *defer_link; /* deferred batches, by global */
	struct rxrp_defer_rest *defer_rest; /* index of their first frame */
	uint64_t ns_mult;		/* cycles -> ns, 32.32 fixed point */
	uint64_t delay_steps;		/* test_refill_delay as work: steps */
	const struct rxr_pool_owner *adopt_owner; /* ops.owner, adopting */
	void **adopt;
	unsigned int nr_adopt;
	unsigned int max_adopt;
	bool adopt_overflow;
	struct rxr_spinlock reclaim_lock; /* one reclaim at a time */
	/* membarrier registered (rxrp_bh_reclaim()): 1 yes, -1 no, 0 not yet
	 * asked; under reclaim_lock. */
	int remote_drain;
	/*
	 * Latency sampling with no testing slowdown: the timing layer is in
	 * ops only while a poll lcore samples (rxr_pool_sample()), so that
	 * strategies with no inline path do not pass through it otherwise.
	 */
	bool timing_on_demand;
	unsigned int sampling_lcores;	/* under sample_lock */
	struct rxr_spinlock sample_lock;
	void *priv;			/* the strategy's pool-wide state (pool_init) */
	struct rxrp_lcore *first;
	struct rxrp_lcore *lcore[RTE_MAX_LCORE];
	/* ops.owner points here: a copy of each poll lcore's, pcp NULL for an
	 * lcore inside its sampling window. */
	struct rxr_pool_owner owner[RTE_MAX_LCORE];
	struct rxrp_lcore *by_cpu[RXRP_MAX_CPUS];
	/* The outermost layer (rxrp_ops_set()): what ops' entries call. */
	struct rxrp_fns fns;
};

/* rxr_pool_alloc_bulk() and rxr_pool_free_bulk() read ops at the pool. */
static_assert(offsetof(struct rxr_pool, ops) == 0,
	"struct rxr_pool: ops must be the first member");

/*
 * A strategy. Required: name, alloc and free for bulk off ([0]) and on
 * ([1]). Every other callback may be NULL.
 */
struct rxrp_strategy {
	const char *name;
	uint32_t caps;			/* RXR_STRATEGY_CAP_* */
	rxr_pool_alloc_t alloc[2];
	rxr_pool_free_t free[2];
	/*
	 * Optional: alloc[] with the pool's slow path (__rxr_pool_alloc_slow())
	 * behind it in one function, for struct rxr_pool_ops' alloc:
	 * worth it where no inline path serves the usual call. Its fast path
	 * must not keep registers across a call (both slow paths in one
	 * noinline call), or the entry saves more than it spares.
	 */
	rxr_pool_alloc_t alloc_entry[2];
	/* Optional: free[] returning 0, for struct rxr_pool_ops' free. */
	rxr_pool_free_entry_t free_entry[2];
	/*
	 * Fill the defaults of the strategy's own configuration fields and
	 * reject bad ones, one rxrefill log line naming field and value each.
	 * @return 0 or -EINVAL.
	 */
	int (*conf_check)(struct rxr_pool_conf *c);
	/*
	 * Bytes of per-lcore state the core keeps in rxrp_lcore.priv, at most
	 * RXRP_LCORE_PRIV_SIZE (RXRP_LCORE_PRIV_CHECK() in the strategy file).
	 */
	size_t lcore_priv_size;
	/* Set up / tear down that state. init: 0 or a negative errno. */
	int (*lcore_init)(struct rxr_pool *p, struct rxrp_lcore *ls,
			int socket);
	void (*lcore_fini)(struct rxr_pool *p, struct rxrp_lcore *ls);
	/*
	 * Lcore stop and quiescence: give every frame the lcore holds back
	 * to its zone, the strategy's caches first, then rxrp_lcore_drain(),
	 * inside whatever protects them from the strategy's other contexts
	 * and from the pool's reclaim. NULL: rxrp_lcore_drain() alone.
	 */
	void (*flush)(struct rxr_pool *p, struct rxrp_lcore *ls);
	/*
	 * The pool's reclaim (an allocation would fail), from any thread but
	 * never a signal handler, one at a time: give what the lcore's pcp
	 * and the strategy's own caches hold back to their zones, safe while
	 * the owner and other contexts use the pool, or leave them when that
	 * cannot be made safe (bh's rxrp_bh_reclaim(), irqsave's pcp lock).
	 * NULL: the lcore's caches are out of another thread's reach.
	 * @return frames given back.
	 */
	unsigned int (*lcore_reclaim)(struct rxr_pool *p,
			struct rxrp_lcore *ls);
	/* Frames available in the strategy's own caches (not the pcp). */
	uint64_t (*held)(const struct rxr_pool *p, const struct rxrp_lcore *ls);
	/* Fill the strategy's own fields of the lcore's statistics. */
	void (*stats)(const struct rxr_pool *p, const struct rxrp_lcore *ls,
			struct rxr_pool_lcore_stats *o);
	/*
	 * Names of the strategy's own counters, NULL-terminated, at most
	 * RXR_STRATEGY_COUNTERS_MAX: stats fills o->counters[] in this order
	 * (reports and telemetry print them by these names).
	 */
	const char * const *counter_names;
	/*
	 * The strategy's own settings, nb_settings of them (at most
	 * RXR_STRATEGY_SETTINGS_MAX), in the order of rxr_pool_conf.settings[].
	 * The registry checks each against its range and fills the defaults
	 * (rxr_strategy_settings_fill()) before conf_check runs.
	 */
	const struct rxr_strategy_setting *settings;
	unsigned int nb_settings;
	/*
	 * Check the settings together, each in its range and the defaults
	 * in; bit i of @p given set when settings[i] was given, not defaulted
	 * (a default may follow a given one). NULL: nothing to check.
	 * @return 0, or -EINVAL with a message naming setting and value.
	 */
	int (*settings_check)(uint32_t *settings, uint32_t given, char *why,
			size_t len);
	/*
	 * Whether the strategy can run in this process (a CPU feature, a
	 * kernel or libc facility). NULL: always. @return true, or false with
	 * the reason in @p why.
	 */
	bool (*available)(char *why, size_t len);
	/*
	 * State of the whole pool rather than of a poll lcore (caches per
	 * CPU): pool_init runs once the lcores exist and sets p->priv (0 or
	 * a negative errno); pool_fini frees it. pool_reclaim gives every
	 * frame those caches hold back to the zones, safe while other threads
	 * use the pool (the pool's reclaim, rxr_pool_quiesce(), destroy);
	 * pool_held counts them for rxr_pool_avail(). Each may be NULL.
	 */
	int (*pool_init)(struct rxr_pool *p);
	void (*pool_fini)(struct rxr_pool *p);
	unsigned int (*pool_reclaim)(struct rxr_pool *p);
	uint64_t (*pool_held)(const struct rxr_pool *p);
};

/* The registry, one entry per line of rxr_strategy_list.h. */
#define RXR_STRATEGY(id, name) \
	extern const struct rxrp_strategy rxrp_strategy_##name;
#include "rxr_strategy_list.h"
#undef RXR_STRATEGY

/* The strategy of an enum value, or NULL. */
const struct rxrp_strategy *rxrp_strategy_get(enum rxr_strategy s);

/* Build-time check that a strategy's per-lcore state fits rxrp_lcore. */
#define RXRP_LCORE_PRIV_CHECK(type) \
	static_assert(sizeof(type) <= RXRP_LCORE_PRIV_SIZE && \
		_Alignof(type) <= RTE_CACHE_LINE_SIZE, \
		#type " does not fit rxrp_lcore.priv")

static inline void *
rxrp_lcore_priv(const struct rxrp_lcore *ls)
{
	return (void *)(uintptr_t)ls->priv;
}

/* What layer l wraps. */
static inline const struct rxrp_fns *
rxrp_below(const struct rxr_pool *p, enum rxrp_layer l)
{
	return &p->below[l];
}

/*
 * Install layer l on top: it wraps what the pool calls now. A NULL entry
 * point leaves that one unwrapped. Layers go on in enum order only.
 * @return 0, or -EINVAL when l would not be the outermost.
 */
int rxrp_layer_push(struct rxr_pool *p, enum rxrp_layer l,
		rxr_pool_alloc_t alloc, rxr_pool_free_t free);
/* Remove layer l, the outermost. */
void rxrp_layer_pop(struct rxr_pool *p, enum rxrp_layer l);
/*
 * What the pool calls from now on (the outermost layer's alloc and free,
 * in fns), and the entries that go with them in ops: the strategy's
 * alloc_entry and free_entry when nothing wraps it.
 */
void rxrp_ops_set(struct rxr_pool *p, rxr_pool_alloc_t alloc,
		rxr_pool_free_t free);

RTE_DECLARE_PER_LCORE(struct rxr_pool *, rxrp_bind_pool);
RTE_DECLARE_PER_LCORE(struct rxrp_lcore *, rxrp_bind_lcore);

/* The calling thread's own state if it is a poll lcore of p, else NULL. */
static __rte_always_inline struct rxrp_lcore *
rxrp_self_lcore(const struct rxr_pool *p)
{
	unsigned int lc = rte_lcore_id();

	return likely(lc < RTE_MAX_LCORE) ? p->lcore[lc] : NULL;
}

/* The poll lcore in poll context (owner), NULL in task and irq context. */
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

/* Node for allocations of the calling context. */
static inline unsigned int
rxrp_ctx_node(const struct rxr_pool *p)
{
	if (likely(p->nr_zones == 1))
		return 0;
	return rxrp_task_target(p)->node;
}

static __rte_always_inline void
rxrp_bh_disable(struct rxrp_lcore *ls)
{
	rxr_pool_bh_disable(ls->pcp);
}

static __rte_always_inline void
rxrp_bh_enable(struct rxrp_lcore *ls)
{
	rxr_pool_bh_enable(ls->pcp);
}

/* Zone paths, shared by every strategy. */
int rxrp_zone_alloc(struct rxr_pool *p, unsigned int node, void **objs,
		unsigned int n, bool bulk);
void rxrp_zone_free(struct rxr_pool *p, void * const *objs, unsigned int n,
		bool bulk);

typedef void (*rxrp_local_free_t)(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n);

/* The owner's pcp free under bh (no other protection). */
static inline void
rxrp_pcp_free_owner(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n)
{
	rxrp_bh_disable(ls);
	rxr_pcp_free_bulk(ls->pcp, objs, n);
	rxrp_bh_enable(ls);
}

/* The pcp free with no protection: the caller holds what protects it. */
static inline void
rxrp_pcp_free_raw(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n)
{
	rxr_pcp_free_bulk(ls->pcp, objs, n);
}

/*
 * Hand the frames of ls's node to fn; free the others to their own zone
 * (a pcp only ever holds frames of its zone).
 */
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
		unsigned int node = rxrp_frame_node(p, objs[i]);

		if (node != ls->node) {
			rxrp_zone_free(p, &objs[i], 1, true);
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

/*
 * Bulk off: each frame of a call is a call of its own (its own critical
 * section). On failure the frames already taken go back the same way.
 */
static __rte_noinline __rte_cold int
rxrp_per_frame_rollback(struct rxr_pool *p, void **objs, unsigned int i,
		rxr_pool_free_t undo)
{
	while (i-- > 0)
		undo(p, &objs[i], 1);
	return -ENOBUFS;
}

static __rte_always_inline int
rxrp_per_frame_alloc(struct rxr_pool *p, void **objs, unsigned int n,
		rxr_pool_alloc_t one, rxr_pool_free_t undo)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (unlikely(one(p, &objs[i], 1) != 0))
			return rxrp_per_frame_rollback(p, objs, i, undo);
	return 0;
}

static __rte_always_inline void
rxrp_per_frame_free(struct rxr_pool *p, void * const *objs, unsigned int n,
		rxr_pool_free_t one)
{
	for (unsigned int i = 0; i < n; i++)
		one(p, &objs[i], 1);
}

/*
 * A strategy's bulk-off operations, <pfx>_alloc_single and
 * <pfx>_free_single, from its bulk ones: a call of one frame (what a PMD
 * makes of most bulk-off refills) runs the bulk path inline with no
 * register to save; more frames go one at a time out of line.
 */
#define RXRP_PER_FRAME_OPS(pfx) \
static __rte_noinline int \
pfx##_alloc_frames(struct rxr_pool *p, void **objs, unsigned int n) \
{ \
	return rxrp_per_frame_alloc(p, objs, n, pfx##_alloc_bulk, \
			pfx##_free_bulk); \
} \
static __rte_noinline void \
pfx##_free_frames(struct rxr_pool *p, void * const *objs, unsigned int n) \
{ \
	rxrp_per_frame_free(p, objs, n, pfx##_free_bulk); \
} \
static int \
pfx##_alloc_single(struct rxr_pool *p, void **objs, unsigned int n) \
{ \
	if (likely(n == 1)) \
		return pfx##_alloc_bulk(p, objs, 1); \
	return pfx##_alloc_frames(p, objs, n); \
} \
static void \
pfx##_free_single(struct rxr_pool *p, void * const *objs, unsigned int n) \
{ \
	if (likely(n == 1)) \
		pfx##_free_bulk(p, objs, 1); \
	else \
		pfx##_free_frames(p, objs, n); \
}

/*
 * A strategy's operations in its struct rxrp_strategy: bulk off ([0], from
 * RXRP_PER_FRAME_OPS()) and on ([1]).
 */
#define RXRP_OPS(pfx) \
	.alloc = { pfx##_alloc_single, pfx##_alloc_bulk }, \
	.free = { pfx##_free_single, pfx##_free_bulk }

/*
 * The deferred list: frees from other contexts, pushed lock-free and
 * drained by the owner (into its pcp, through fn) at its bh-enable point.
 * A strategy that uses it has RXR_STRATEGY_CAP_DEFERS_FREES.
 */
void rxrp_defer_push(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n);
unsigned int rxrp_defer_drain(struct rxr_pool *p, struct rxrp_lcore *ls,
		rxrp_local_free_t fn);
/*
 * A non-owner's free onto ls's list: into the calling thread's task batch
 * when it asked for one on p (rxr_pool_task_batch()), else pushed at once.
 */
void rxrp_defer_free(struct rxr_pool *p, struct rxrp_lcore *ls,
		void * const *objs, unsigned int n);
/* Frames on ls's deferred list. */
static inline uint32_t
rxrp_defer_count(const struct rxrp_lcore *ls)
{
	return RXRP_DEFER_COUNT(__atomic_load_n(&ls->defer_head,
			__ATOMIC_RELAXED));
}

/*
 * What every flush ends with: the lcore's zeroing supply, deferred list and
 * pcp back to the zone. The caller excludes the lcore's other users.
 */
void rxrp_lcore_drain(struct rxr_pool *p, struct rxrp_lcore *ls);

/* Zeroing policy layer (zeroing.c). */
int rxrp_zero_setup(struct rxr_pool *p);
int rxrp_zero_lcore_init(struct rxr_pool *p, struct rxrp_lcore *ls,
		int socket);

typedef unsigned int (*rxrp_lcore_reclaim_t)(struct rxr_pool *p,
		struct rxrp_lcore *ls);

/*
 * bh's section out of line (rxr_pool_bh.c), for a strategy whose owner
 * guards its caches with the pcp's bh counter: keep the owner out of its
 * section (a reclaim request and membarrier), then hand own(p, ls) (the
 * strategy's caches; may be NULL) and the pcp to the zone. Leaves them
 * when the owner is inside or the process has no membarrier.
 * @return frames given back.
 */
unsigned int rxrp_bh_reclaim(struct rxr_pool *p, struct rxrp_lcore *ls,
		rxrp_lcore_reclaim_t own);

/* White-box tests only: irqsave's per-pcp lock of an lcore. */
struct rxr_spinlock *rxrp_irqsave_lock_of(struct rxrp_lcore *ls);

#endif /* RXR_POOL_PRIVATE_H */
