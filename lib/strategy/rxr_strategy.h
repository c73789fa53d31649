/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_STRATEGY_H
#define RXR_STRATEGY_H

/**
 * @file
 * Refill strategies: the allocator behind one buffer pool, one zone per
 * NUMA node and a pcp per poll lcore; frames always return to their zone.
 */

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>

#include <rte_atomic.h>
#include <rte_lcore.h>

#include "rxr_context.h"
#include "rxr_pcp.h"
#include "rxr_zero.h"
#include "rxr_zone.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The refill strategies, one per line of rxr_strategy_list.h. */
enum rxr_strategy {
#define RXR_STRATEGY(id, name) RXR_STRATEGY_##id,
#include "rxr_strategy_list.h"
#undef RXR_STRATEGY
	RXR_STRATEGY_MAX,
};

/** Strategies offered to users (the test-only NONE is last). */
#define RXR_STRATEGY_USER_MAX RXR_STRATEGY_NONE

/** The strategy's name, as rxr_strategy_list.h gives it; "?" out of range. */
const char *rxr_strategy_name(enum rxr_strategy s);

/** The users' strategies, ", " separated; the length, as snprintf. */
size_t rxr_strategy_user_names(char *buf, size_t len);

/** Other contexts' frees wait on a deferred list for rxr_pool_poll_end(). */
#define RXR_STRATEGY_CAP_DEFERS_FREES	(1u << 0)
/** The owner's fast path is a stack under the bh section, run inline. */
#define RXR_STRATEGY_CAP_OWNER_INLINE	(1u << 1)
/** No protection: for tests that prove the debug checks; not offered. */
#define RXR_STRATEGY_CAP_TEST_ONLY	(1u << 2)

/** Whether @p s can run in this process; false with why (may be NULL). */
bool rxr_strategy_available(enum rxr_strategy s, char *why, size_t len);

/** Most counters of a strategy's own (rxr_pool_lcore_stats.counters). */
#define RXR_STRATEGY_COUNTERS_MAX 16

/** Names of @p s's own counters (rxr_pool_lcore_stats.counters[]); how many. */
unsigned int rxr_strategy_counters(enum rxr_strategy s,
		const char * const **names);

/** Most settings of a strategy's own (rxr_pool_conf.settings). */
#define RXR_STRATEGY_SETTINGS_MAX 4

/** A strategy's own setting (options, keys and help come from it). */
struct rxr_strategy_setting {
	const char *name;	/**< one lower-case word ("ring"); NULL ends */
	uint32_t def;		/**< taken when rxr_pool_conf leaves it 0 */
	uint32_t min;		/**< smallest accepted, at least 1 */
	uint32_t max;		/**< largest accepted */
	bool holds_frames;	/**< frames an lcore holds (pool sizing) */
	bool pow2;		/**< rounded up to a power of two */
	const char *at_most;	/**< a setting it may not exceed, or NULL */
	const char *help;	/**< one line: no tab, no newline */
};

/** @p s's settings, as rxr_pool_conf.settings[]; how many (0: *set NULL). */
unsigned int rxr_strategy_settings(enum rxr_strategy s,
		const struct rxr_strategy_setting **set);

/**
 * Check @p s's settings (each in range, then at_most) and fill defaults.
 * @return 0, or -EINVAL naming the setting and value in @p why.
 */
int rxr_strategy_settings_fill(enum rxr_strategy s,
		uint32_t settings[RXR_STRATEGY_SETTINGS_MAX], char *why,
		size_t len);

/**
 * Parse "STRATEGY.NAME" and a decimal VALUE in the setting's range.
 * @return 0, or -EINVAL with @p why naming the input and what is valid.
 */
int rxr_strategy_setting_parse(const char *key, const char *value,
		enum rxr_strategy *s, unsigned int *index, uint32_t *v,
		char *why, size_t len);

/** Every users' "STRATEGY.NAME", @p sep separated; the length, as snprintf. */
size_t rxr_strategy_setting_keys(char *buf, size_t len, const char *sep);

/** Print each users' strategy's settings: key, range, default, help. */
void rxr_strategy_settings_print(FILE *f);

/** Frames an lcore's strategy caches may hold beyond the pcp (sizing). */
uint64_t rxr_strategy_lcore_frames(enum rxr_strategy s,
		const uint32_t settings[RXR_STRATEGY_SETTINGS_MAX]);

/** True when @p s has every RXR_STRATEGY_CAP_* in @p caps. */
bool rxr_strategy_has(enum rxr_strategy s, uint32_t caps);

/** Parse a strategy name ("none" only with @p allow_none); 0 or -EINVAL. */
int rxr_strategy_parse(const char *name, bool allow_none,
		enum rxr_strategy *s);

/** Most nodes a pool may have, fake or real. */
#define RXR_POOL_MAX_NODES 4
/** log2 buckets of the refill latency histogram, in ns. */
#define RXR_HIST_BUCKETS 40

/** How a pool is set up. Zeroed fields take the defaults. */
struct rxr_pool_conf {
	const char *name;
	enum rxr_strategy strategy;
	bool bulk;		/**< one critical section per call */
	uint32_t high;		/**< pcp high (default RXR_PCP_HIGH_DEFAULT) */
	uint32_t batch;		/**< pcp batch (default RXR_PCP_BATCH_DEFAULT) */
	int socket_id;		/**< socket of a single-node pool */
	uint32_t fake_nodes;	/**< tests: poll lcore i on node i % n */
	/** Poll lcores (each owns a pcp); none given: every enabled lcore. */
	uint32_t nr_poll_lcores;
	uint32_t poll_lcores[RTE_MAX_LCORE];
	/** The strategy's settings (rxr_strategy_settings()); 0: default. */
	uint32_t settings[RXR_STRATEGY_SETTINGS_MAX];
	bool latency;		/**< time refills in rxr_pool_sample() */
	uint32_t test_refill_delay; /**< TSC cycles added to every refill */
	enum rxr_zero_policy zero_policy;
	enum rxr_zero_method zero_method;
	uint32_t payload_offset; /**< frame bytes before the payload (headers) */
	uint32_t payload_len;	/**< payload bytes; 0: the rest of the frame */
	uint32_t zero_supply;	/**< background: frames kept ready per lcore */
};

struct rxr_pool;

/**
 * Create a pool for @p max_frames frames of @p frame_size bytes in at most
 * @p max_regions regions. @return the pool, or NULL with rte_errno set.
 */
struct rxr_pool *rxr_pool_create(const struct rxr_pool_conf *conf,
		uint32_t frame_size, uint32_t max_frames, uint32_t max_regions);

/** Destroy a pool (drains every pcp and cache first). */
void rxr_pool_destroy(struct rxr_pool *p);

/**
 * Give the pool @p n free frames at its stride from @p addr (DPDK's
 * populate), before it is shared. @return n, or -errno (-ENOSPC: every
 * region taken).
 */
int rxr_pool_add_frames(struct rxr_pool *p, void *addr, unsigned int n);

/** A pool's entry for allocations: 0, or -ENOBUFS with nothing taken. */
typedef int (*rxr_pool_alloc_t)(struct rxr_pool *p, void **objs,
		unsigned int n);
/** A pool's entry for frees: 0, so that a caller reaches it by a jump. */
typedef int (*rxr_pool_free_t)(struct rxr_pool *p, void * const *objs,
		unsigned int n);

/** bh's section (local_bh_disable()'s count), written by the owner only. */
struct rxr_pool_bh {
	uint32_t count;		/**< nesting depth */
	uint32_t drain_req;	/**< a reclaim waits for count 0 */
};

/** A poll lcore's section and inline stack, on a line the owner writes. */
struct rxr_pool_owner {
	struct rxr_pool_bh bh;
	struct rxr_pcp *stack;	/**< bh's pcp, recycle's alloc cache */
} __rte_cache_aligned;

/** A pool's first member, read by the inline dispatch. */
struct rxr_pool_ops {
	rxr_pool_alloc_t alloc;	/**< the strategy's, or the zeroing wrapper */
	rxr_pool_free_t free;	/**< the same for a free */
	/** The stacks by lcore id, run inline (CAP_OWNER_INLINE), or NULL. */
	struct rxr_pool_owner *owner;
	unsigned int section_max; /**< frames per section: any, or 1 (bulk off) */
	bool defers;	/**< rxr_pool_poll_end() has lists to drain */
};

/* An owner that found a reclaim's request at its outermost entry. */
void __rxr_pool_bh_wait(struct rxr_pool_bh *bh);

/** bh's local_bh_disable(); a reclaimer orders it with membarrier(). */
static __rte_always_inline void
rxr_pool_bh_disable(struct rxr_pool_bh *bh)
{
	uint32_t c = bh->count + 1;

	__atomic_store_n(&bh->count, c, __ATOMIC_RELAXED);
	rte_compiler_barrier();
	if (unlikely(__atomic_load_n(&bh->drain_req, __ATOMIC_ACQUIRE) != 0) &&
			c == 1)
		__rxr_pool_bh_wait(bh);
}

/** bh's local_bh_enable(). */
static __rte_always_inline void
rxr_pool_bh_enable(struct rxr_pool_bh *bh)
{
	__atomic_store_n(&bh->count, bh->count - 1, __ATOMIC_RELEASE);
}

/* The inline path's outermost section: false when nested or asked. */
static __rte_always_inline bool
__rxr_pool_bh_enter_outer(struct rxr_pool_bh *bh)
{
	if (unlikely(__atomic_load_n(&bh->count, __ATOMIC_RELAXED) != 0))
		return false;
	__atomic_store_n(&bh->count, 1, __ATOMIC_RELAXED);
	rte_compiler_barrier();
	if (unlikely(__atomic_load_n(&bh->drain_req, __ATOMIC_ACQUIRE) != 0)) {
		__atomic_store_n(&bh->count, 0, __ATOMIC_RELEASE);
		return false;
	}
	return true;
}

static __rte_always_inline void
__rxr_pool_bh_leave_outer(struct rxr_pool_bh *bh)
{
	__atomic_store_n(&bh->count, 0, __ATOMIC_RELEASE);
}

/* Calls the dispatch cannot place (lcore unknown, handler, sampling). */
int __rxr_pool_slow(struct rxr_pool *p, void **objs, unsigned int n,
		bool alloc);
/* The dispatch out of line, for calls of more than one frame. */
int __rxr_pool_alloc_n(struct rxr_pool *p, void **objs, unsigned int n);
int __rxr_pool_free_n(struct rxr_pool *p, void * const *objs,
		unsigned int n);

/* The owner's stack inline, else the pool's entry (both directions). */
static __rte_always_inline int
__rxr_pool_call(struct rxr_pool *p, void **objs, unsigned int n, bool alloc)
{
	const struct rxr_pool_ops *ops = (const struct rxr_pool_ops *)p;
	uint32_t lc = RTE_PER_LCORE(rxr_ctx_lcore);

	if (likely(lc < RTE_MAX_LCORE)) {
		struct rxr_pool_owner *o = ops->owner;
		struct rxr_pcp *st;

		/* Read before the section's barrier, so that it is read once. */
		if (o != NULL && (n == 1 || likely(n <= ops->section_max)) &&
				(st = o[lc].stack, likely(
				__rxr_pool_bh_enter_outer(&o[lc].bh)))) {
			bool done = alloc ? rxr_pcp_pop(st, objs, n) :
				rxr_pcp_push(st, objs, n);

			__rxr_pool_bh_leave_outer(&o[lc].bh);
			if (likely(done))
				return 0;
		}
	} else if (unlikely(lc != RXR_CTX_LCORE_NONE)) {
		return __rxr_pool_slow(p, objs, n, alloc);
	}
	return alloc ? ops->alloc(p, objs, n) : ops->free(p, objs, n);
}

/** Allocate @p n frames from any context, all or nothing: 0 or -ENOBUFS. */
static __rte_always_inline int
rxr_pool_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	/* One frame inline, leaf code; a burst by a jump, so that the
	 * one-frame path saves no registers. */
	if (likely(n == 1))
		return __rxr_pool_call(p, objs, 1, true);
	return __rxr_pool_alloc_n(p, objs, n);
}

/** Free @p n frames from any context; 0 (a caller reaches it by a jump). */
static __rte_always_inline int
rxr_pool_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	if (likely(n == 1))
		return __rxr_pool_call(p, (void **)(uintptr_t)objs, 1, false);
	return __rxr_pool_free_n(p, objs, n);
}

/* rxr_pool_poll_end() of a strategy that defers frees. */
unsigned int __rxr_pool_poll_end(struct rxr_pool *p);

/** Once per poll iteration: the deferred list into the pcp; frames drained. */
static __rte_always_inline unsigned int
rxr_pool_poll_end(struct rxr_pool *p)
{
	const struct rxr_pool_ops *ops = (const struct rxr_pool_ops *)p;

	if (!ops->defers)
		return 0;
	return __rxr_pool_poll_end(p);
}

/** Time the calling poll lcore's calls from @p on to off (conf.latency). */
void rxr_pool_sample(struct rxr_pool *p, bool on);

/** Every cached frame back to the zones; only when no poll lcore runs. */
void rxr_pool_quiesce(struct rxr_pool *p);

/** The pool is being freed: the testing slowdown ends. */
void rxr_pool_teardown(struct rxr_pool *p);

/** Send the calling thread's frees to poll lcore @p lcore; 0 or -EINVAL. */
int rxr_pool_task_bind(struct rxr_pool *p, unsigned int lcore);

/** Most frames rxr_pool_task_batch() lets a thread hold. */
#define RXR_POOL_TASK_BATCH_MAX 4096u
/** The consumers' task batch: DPDK's usual cache, below the pcp high. */
#define RXR_POOL_TASK_BATCH_DEFAULT 256u

/**
 * Batch the calling thread's frees to @p p (0 or 1: none), as a user
 * mempool cache; the thread calls rxr_pool_task_flush() before it waits.
 * @return 0, or -EINVAL above RXR_POOL_TASK_BATCH_MAX.
 */
int rxr_pool_task_batch(struct rxr_pool *p, unsigned int max);

/** Publish the calling thread's task batch on @p p, if it has one. */
void rxr_pool_task_flush(struct rxr_pool *p);

/** Background zeroing, one thread at a time; frames made ready. */
unsigned int rxr_pool_zero_service(struct rxr_pool *p, unsigned int budget);

/** The core's counters of a poll lcore, X(name, help). */
#define RXR_POOL_LCORE_COUNTERS(X) \
	X(deferred_drained, "frames drained from the deferred list") \
	X(deferred_drains, "non-empty drains of the deferred list") \
	X(remote_frees, "frames of another node freed here") \
	X(refill_calls, "timed (sampled) poll-context allocs") \
	X(refill_frames, "frames of those") \
	X(refill_cycles, "cycles of those") \
	X(sample_cycles, "sampled cycles in alloc, free and the drain") \
	X(zero_bytes, "bytes zeroed in poll context (alloc/free policy)") \
	X(zero_cycles, "cycles spent zeroing them")

struct rxr_pool_stats;

/** Per poll lcore statistics. */
struct rxr_pool_lcore_stats {
	unsigned int lcore;
	unsigned int node;
	struct rxr_pcp_stats pcp;
#define RXR_POOL_LCORE_FIELD(name, help) uint64_t name;
	RXR_POOL_LCORE_COUNTERS(RXR_POOL_LCORE_FIELD)
#undef RXR_POOL_LCORE_FIELD
	uint64_t deferred_queued; /**< drained plus waiting */
	uint64_t refill_hist[RXR_HIST_BUCKETS]; /**< [i]: ns in [2^(i-1), 2^i) */
	struct rxr_zero_supply_stats supply;
	uint64_t counters[RXR_STRATEGY_COUNTERS_MAX]; /**< the strategy's */
};

/** @p sum += @p b - @p a (NULL: zero) for every counter but the supply's. */
void rxr_pool_lcore_stats_add(struct rxr_pool_lcore_stats *sum,
		const struct rxr_pool_lcore_stats *a,
		const struct rxr_pool_lcore_stats *b);

/** pcp hits and misses between two snapshots (@p a NULL: since creation). */
void rxr_pool_pcp_hits(const struct rxr_pool_stats *a,
		const struct rxr_pool_stats *b, uint64_t *hits, uint64_t *misses);

/** Pool statistics. */
struct rxr_pool_stats {
	uint64_t nr_frames;
	uint64_t avail;		/**< frames in zones, pcps and caches */
	unsigned int nr_zones;
	struct rxr_zone_stats zone[RXR_POOL_MAX_NODES];
	unsigned int nr_lcores;
	struct rxr_pool_lcore_stats lcore[RTE_MAX_LCORE];
	uint64_t zero_bytes_other;	/**< zeroing by task and irq contexts */
	uint64_t zero_cycles_other;
};

/** Snapshot of every counter; safe while the pool is in use. */
void rxr_pool_stats(const struct rxr_pool *p, struct rxr_pool_stats *st);

/** Frames available anywhere in the pool; exact when nothing moves. */
uint64_t rxr_pool_avail(const struct rxr_pool *p);

/** Frames in the pool. */
uint64_t rxr_pool_nr_frames(const struct rxr_pool *p);

/** The pool's configuration, its defaults filled in. */
const struct rxr_pool_conf *rxr_pool_get_conf(const struct rxr_pool *p);

/** At quiescence: every frame home, buddies intact; 0, or -1 told on @p out. */
int rxr_pool_check(struct rxr_pool *p, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* RXR_STRATEGY_H */
