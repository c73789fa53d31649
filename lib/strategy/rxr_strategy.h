/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_STRATEGY_H
#define RXR_STRATEGY_H

/**
 * @file
 * Refill strategies: the allocator behind one buffer pool, in one of the
 * ways doc/design.md describes, all sharing the zone and pcp code. Each is
 * one file, strategy_<name>.c, behind a table of operations
 * (rxr_pool_private.h); users ask for capabilities (rxr_strategy_caps()),
 * not for names.
 *
 * - zone: no per-lcore cache; every alloc and free takes the zone lock.
 * - irqsave: any context may use the pcp of the CPU it runs on, inside a
 *   per-pcp lock taken with an atomic; a context that finds it held (a
 *   signal handler, a thread that preempted the owner) uses the zone.
 * - bh: only the owning poll lcore touches its pcp, inside a plain nesting
 *   counter and compiler barriers. Other contexts free onto the owner's
 *   deferred list (lock-free, one atomic per call) which the owner drains at
 *   its bh-enable point, rxr_pool_poll_end(); they allocate from the zone.
 * - recycle: page_pool in front of bh: an alloc cache and a ring of frames
 *   other contexts returned.
 * - rseq: one pcp per CPU, used by any thread on that CPU, each access a
 *   restartable sequence (rseq(2)): no lock, no atomic, no deferral.
 * - none: no protection at all, for the stress test that proves the debug
 *   checks catch the corruption. Not offered to users.
 *
 * With bulk off, every frame of a call is its own critical section (one
 * lock hold, one bh section, one deferred push per frame), as a driver that
 * refills one descriptor at a time.
 *
 * A pool has one zone per NUMA node and a set of poll lcores, each owning a
 * pcp on its node's zone. Frames always return to their own zone.
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

/** Number of strategies offered to users (the test-only NONE is last). */
#define RXR_STRATEGY_USER_MAX RXR_STRATEGY_NONE

/** The strategy's name, as rxr_strategy_list.h gives it; "?" out of range. */
const char *rxr_strategy_name(enum rxr_strategy s);

/**
 * The names of the strategies offered to users, in order, separated by
 * ", ", for help texts and messages.
 * @return the length of the whole list, as snprintf (>= len: cut short).
 */
size_t rxr_strategy_user_names(char *buf, size_t len);

/* Capabilities of a strategy (rxr_strategy_caps()). */
/** Other contexts' frees wait on a deferred list until the owner drains it
 * at rxr_pool_poll_end(): the report's deferred{} counters apply. */
#define RXR_STRATEGY_CAP_DEFERS_FREES	(1u << 0)
/** page_pool recycling in front of the pcp (its counters are the
 * strategy's own, rxr_strategy_counters()). */
#define RXR_STRATEGY_CAP_RECYCLES	(1u << 1)
/** Other contexts on the owner's CPU use its pcp under a per-pcp lock
 * (its lock_* counters are the strategy's own). */
#define RXR_STRATEGY_CAP_PCP_LOCK	(1u << 2)
/** The owner's fast alloc and free are a stack of frames under the bh
 * section and nothing else, so rxr_pool_alloc_bulk() runs them inline. */
#define RXR_STRATEGY_CAP_OWNER_INLINE	(1u << 3)
/** No protection: for tests that prove the debug checks; not offered. */
#define RXR_STRATEGY_CAP_TEST_ONLY	(1u << 4)

/**
 * Whether strategy @p s can run in this process: some need a CPU, kernel
 * or libc facility (rseq needs x86_64 and the rseq area glibc registers).
 * @return true, or false with the reason in @p why (may be NULL).
 */
bool rxr_strategy_available(enum rxr_strategy s, char *why, size_t len);

/** Most counters of a strategy's own (rxr_pool_lcore_stats.counters). */
#define RXR_STRATEGY_COUNTERS_MAX 16

/**
 * The names of strategy @p s's own counters, in the order of
 * rxr_pool_lcore_stats.counters[]. @return how many (0: none).
 */
unsigned int rxr_strategy_counters(enum rxr_strategy s,
		const char * const **names);

/** Most settings of a strategy's own (rxr_pool_conf.settings). */
#define RXR_STRATEGY_SETTINGS_MAX 4

/**
 * One setting of a strategy's own, as the strategy declares it: every
 * user-facing word about it (options, environment keys, help, docs) comes
 * from here.
 */
struct rxr_strategy_setting {
	const char *name;	/**< one lower-case word ("ring"); NULL ends */
	uint32_t def;		/**< taken when rxr_pool_conf leaves it 0 */
	uint32_t min;		/**< smallest accepted, at least 1 */
	uint32_t max;		/**< largest accepted */
	/** Frames a poll lcore may hold because of it (a cache, a ring):
	 * rxr_strategy_lcore_frames() adds it up for pool sizing. */
	bool holds_frames;
	bool pow2;		/**< rounded up to a power of two */
	/** Another setting this one may not exceed; the default follows it
	 * down when it is smaller. NULL: none. */
	const char *at_most;
	const char *help;	/**< one line: no tab, no newline */
};

/**
 * Strategy @p s's own settings, in the order of rxr_pool_conf.settings[].
 * @return how many (0: none, *set NULL).
 */
unsigned int rxr_strategy_settings(enum rxr_strategy s,
		const struct rxr_strategy_setting **set);

/**
 * Check strategy @p s's settings and fill the defaults in place: each
 * given one (non-zero) within its range, then against the others
 * (recycle: refill at most cache).
 * @return 0, or -EINVAL with a message naming the setting and its value
 *   in @p why ("ring 0 is out of 1..32768").
 */
int rxr_strategy_settings_fill(enum rxr_strategy s,
		uint32_t settings[RXR_STRATEGY_SETTINGS_MAX], char *why,
		size_t len);

/**
 * Parse one setting as users write it, "STRATEGY.NAME" and a decimal
 * VALUE: a strategy offered to users, one of its settings, a whole number
 * in the setting's range.
 * @return 0 with the strategy, the setting's index and the value set; or
 *   -EINVAL with a message in @p why that names the input and lists what
 *   is valid (the strategies, or the strategy's settings).
 */
int rxr_strategy_setting_parse(const char *key, const char *value,
		enum rxr_strategy *s, unsigned int *index, uint32_t *v,
		char *why, size_t len);

/**
 * Every "STRATEGY.NAME" of the strategies offered to users, separated by
 * @p sep. @return the length of the whole list, as snprintf.
 */
size_t rxr_strategy_setting_keys(char *buf, size_t len, const char *sep);

/**
 * Print every user strategy's settings, one per line: "STRATEGY.NAME",
 * its range, default and help; a strategy without settings says so.
 */
void rxr_strategy_settings_print(FILE *f);

/**
 * Frames a poll lcore's strategy caches may hold with @p settings (0: the
 * default), beyond the pcp: for sizing a pool so that none starves by
 * construction.
 */
uint64_t rxr_strategy_lcore_frames(enum rxr_strategy s,
		const uint32_t settings[RXR_STRATEGY_SETTINGS_MAX]);

/** RXR_STRATEGY_CAP_* of @p s; 0 out of range. */
uint32_t rxr_strategy_caps(enum rxr_strategy s);

/** True when @p s has every capability in @p caps. */
static inline bool
rxr_strategy_has(enum rxr_strategy s, uint32_t caps)
{
	return (rxr_strategy_caps(s) & caps) == caps;
}

/**
 * Parse a strategy name. A test-only strategy ("none") is accepted only
 * when @p allow_none.
 * @return 0, or -EINVAL for an unknown name.
 */
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
	/**
	 * Split the memory into this many fake NUMA nodes (test option on a
	 * one-node machine); 0 or 1 keeps the real layout. Poll lcore i of
	 * the list lives on fake node i % fake_nodes.
	 */
	uint32_t fake_nodes;
	/** Poll lcores (each owns a pcp); none given: every enabled lcore. */
	uint32_t nr_poll_lcores;
	uint32_t poll_lcores[RTE_MAX_LCORE];
	/**
	 * The strategy's own settings, declared by it (rxr_strategy_settings());
	 * 0 takes the setting's default.
	 */
	uint32_t settings[RXR_STRATEGY_SETTINGS_MAX];
	/**
	 * Time poll-context refills, frees and drains, in the poll iterations
	 * the poll lcore marks with rxr_pool_sample() (refill latency
	 * histogram, refill_cycles, sample_cycles).
	 */
	bool latency;
	/**
	 * Testing: about this many TSC cycles of work in every refill (alloc
	 * call), a known slowdown for the tests of the statistics: a chain
	 * of dependent steps, timed once at pool creation, so that a thread
	 * preempted in it does not get it done by the clock. 0: off.
	 */
	uint32_t test_refill_delay;
	/**
	 * Zeroing of frame payloads: none, alloc (__GFP_ZERO), free
	 * (init_on_free) or background (a supply of pre-zeroed frames per
	 * poll lcore, filled by rxr_pool_zero_service()).
	 */
	enum rxr_zero_policy zero_policy;
	enum rxr_zero_method zero_method;	/**< how payloads are cleared */
	uint32_t payload_offset; /**< frame bytes before the payload (headers) */
	uint32_t payload_len;	/**< payload bytes; 0: the rest of the frame */
	uint32_t zero_supply;	/**< background: frames kept ready per lcore */
};

struct rxr_pool;

/**
 * Create a pool with room for @p max_frames frames of @p frame_size bytes
 * (stride) in at most @p max_regions regions. Memory comes later with
 * rxr_pool_reserve() or adoption.
 * @return the pool, or NULL with rte_errno set: EINVAL for a rejected
 * configuration field (one rxrefill log line names the field and its value),
 * otherwise the code of what failed, unchanged (ENOMEM, the zone's).
 */
struct rxr_pool *rxr_pool_create(const struct rxr_pool_conf *conf,
		uint32_t frame_size, uint32_t max_frames, uint32_t max_regions);

/** Destroy a pool (drains every pcp and cache first). */
void rxr_pool_destroy(struct rxr_pool *p);

/**
 * Adopt frames that arrive one object at a time rather than as a region.
 * Between begin and end, frames freed to the pool are only gathered (at
 * most @p max_frames); end groups them into runs at the frame stride, adds
 * each run as a region and frees every frame into its zone. DPDK's populate
 * step enqueues each object it creates: this is how the mempool driver
 * learns where the objects are without re-deriving DPDK's layout rules.
 * Not thread-safe: populate runs before the pool is shared.
 * @return 0 / frames adopted, or a negative errno.
 */
int rxr_pool_adopt_begin(struct rxr_pool *p, unsigned int max_frames);
int rxr_pool_adopt_end(struct rxr_pool *p);

/** Reserve EAL memory for @p nr_frames free frames (tests, benchmarks). */
int rxr_pool_reserve(struct rxr_pool *p, uint32_t nr_frames);

/** A pool's entry for allocations: 0, or -ENOBUFS with nothing taken. */
typedef int (*rxr_pool_alloc_t)(struct rxr_pool *p, void **objs,
		unsigned int n);
/** A pool's entry for frees: 0, so that a caller that returns a status
 * (a mempool driver's enqueue) reaches it by a jump. */
typedef int (*rxr_pool_free_t)(struct rxr_pool *p, void * const *objs,
		unsigned int n);

/**
 * bh's section of a poll lcore (local_bh_disable()'s count): written by the
 * owner only, with no atomic instruction; a reclaim that wants the owner's
 * caches asks through drain_req and waits until count is 0.
 */
struct rxr_pool_bh {
	uint32_t count;		/**< nesting depth, 0 outside */
	uint32_t drain_req;	/**< a reclaim is emptying the caches */
};

/**
 * A poll lcore's bh section and the stack its inline owner path works on,
 * a line of its own: the section words and the stack pointer are one load
 * away from the pool, on the line the owner writes.
 */
struct rxr_pool_owner {
	struct rxr_pool_bh bh;
	struct rxr_pcp *stack;	/**< bh's pcp, recycle's alloc cache */
} __rte_cache_aligned;

/**
 * The public part of a pool, for the inline dispatch: the first member of
 * every pool (rxr_pool_private.h asserts it at build time). Set at
 * creation, read-only after (adoption aside, before the pool is shared).
 */
struct rxr_pool_ops {
	/** The strategy's alloc, or the wrapper when the pool zeroes or
	 * slows refills down (testing). */
	rxr_pool_alloc_t alloc;
	rxr_pool_free_t free;	/**< the same for a free */
	/**
	 * A strategy with RXR_STRATEGY_CAP_OWNER_INLINE, one node and no
	 * wrapper: the poll lcores' stacks by lcore id (an empty one for
	 * another lcore), so that their own refills and frees run inline
	 * with no call at all. NULL otherwise.
	 */
	struct rxr_pool_owner *owner;
	/** Most frames one critical section takes: any with bulk on, one
	 * with bulk off (the strategies split longer calls). */
	unsigned int section_max;
	/** rxr_pool_poll_end() has deferred lists to drain. */
	bool defers;
};

/* An owner that found a reclaim's request at its outermost entry. */
void __rxr_pool_bh_wait(struct rxr_pool_bh *bh);

/**
 * bh's local_bh_disable(): a counter and a compiler barrier, then a look at
 * the reclaim request. No atomic instruction: on x86 the stores and loads
 * below are plain moves, ordered against a reclaimer by its membarrier();
 * their atomic spelling only tells the compiler (and ThreadSanitizer)
 * that another thread reads them.
 */
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

/*
 * The inline path's section, outermost only: entered when the counter is
 * 0, left by storing 0 (constants, not the value read: no chain through
 * memory from one call to the next). Nested, or asked by a reclaim to keep
 * out: false, not entered, and the strategy's own path, which nests or
 * waits, takes the call.
 */
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

/* The calls the dispatch cannot place: a thread that has not learned its
 * lcore yet, a handler, a poll lcore sampling, a secondary process. */
int __rxr_pool_alloc_slow(struct rxr_pool *p, void **objs, unsigned int n);
int __rxr_pool_free_slow(struct rxr_pool *p, void * const *objs,
		unsigned int n);
/* The dispatch out of line, for calls of more than one frame. */
int __rxr_pool_alloc_n(struct rxr_pool *p, void **objs, unsigned int n);
int __rxr_pool_free_n(struct rxr_pool *p, void * const *objs,
		unsigned int n);

/*
 * The dispatch of both directions: the calling poll lcore's stack inline
 * when the pool has one (rxr_pool_ops.owner; a stack that cannot serve the
 * call, or another lcore's empty one, declines), anything else one jump to
 * the pool's entry or, for a thread not placed yet, out of line.
 */
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
		return alloc ? __rxr_pool_alloc_slow(p, objs, n) :
			__rxr_pool_free_slow(p, objs, n);
	}
	return alloc ? ops->alloc(p, objs, n) : ops->free(p, objs, n);
}

/**
 * Allocate @p n frames from any context. All or nothing. Fails only when
 * the frames are not in the pool: in use, or held by a recycle ring, a
 * zeroing supply or an lcore inside its own call.
 * @return 0, or -ENOBUFS.
 */
static __rte_always_inline int
rxr_pool_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	/* One frame (a driver refilling one descriptor, rte_pktmbuf_alloc())
	 * inline, leaf code; a burst by a jump: its copy would make the
	 * one-frame path save registers. */
	if (n == 1)
		return __rxr_pool_call(p, objs, 1, true);
	return __rxr_pool_alloc_n(p, objs, n);
}

/**
 * Free @p n frames from any context.
 * @return 0, so that a caller that returns a status reaches the pool's
 *   entry by a jump.
 */
static __rte_always_inline int
rxr_pool_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	if (n == 1)
		return __rxr_pool_call(p, (void **)(uintptr_t)objs, 1, false);
	return __rxr_pool_free_n(p, objs, n);
}

/* rxr_pool_poll_end() of a strategy that defers frees. */
unsigned int __rxr_pool_poll_end(struct rxr_pool *p);

/**
 * The bh-enable point of a poll lcore: drain its deferred list into its
 * pcp. A poll loop calls this once per iteration; other contexts must not.
 * No call for a strategy without deferred lists.
 * @return frames drained.
 */
static __rte_always_inline unsigned int
rxr_pool_poll_end(struct rxr_pool *p)
{
	const struct rxr_pool_ops *ops = (const struct rxr_pool_ops *)p;

	if (!ops->defers)
		return 0;
	return __rxr_pool_poll_end(p);
}

/**
 * Latency sampling, by the poll lcore for itself: between
 * rxr_pool_sample(p, true) and rxr_pool_sample(p, false) its refills,
 * frees and its drain at the bh-enable point are timed (its calls leave
 * the inline owner path for that window only). No effect without
 * conf.latency or outside a poll lcore.
 */
void rxr_pool_sample(struct rxr_pool *p, bool on);

/**
 * Return every frame held by every poll lcore's caches to the zones. Only
 * when no poll lcore runs (at exit, before a conservation check).
 */
void rxr_pool_quiesce(struct rxr_pool *p);

/**
 * The pool is being freed: what is taken from it now is not a refill, so
 * the testing slowdown (test_refill_delay) ends. rte_mempool_free() takes
 * back every frame one call at a time: with the slowdown, a pool of
 * thousands of frames would take as many delays to free.
 */
void rxr_pool_teardown(struct rxr_pool *p);

/**
 * Bind the calling thread's frees (task context) to a poll lcore's
 * deferred list or ring: a consumer binds to the poll lcore that delivered
 * its packets. Unbound threads use the poll lcore of their CPU, else the
 * first poll lcore.
 * @return 0, or -EINVAL when @p lcore is not a poll lcore of the pool.
 */
int rxr_pool_task_bind(struct rxr_pool *p, unsigned int lcore);

/** Most frames rxr_pool_task_batch() lets a thread hold. */
#define RXR_POOL_TASK_BATCH_MAX 4096u
/**
 * The task batch the application's consumers use: DPDK's usual cache, and
 * below the default pcp high (a drain larger than the room in the owner's
 * pcp goes on to the zone, and refills come back from it).
 */
#define RXR_POOL_TASK_BATCH_DEFAULT 256u

/**
 * Let the calling thread's task-context frees to @p p (strategies that
 * defer frees: bh) gather in a batch of its own, up to @p max frames, that
 * goes to the owner's deferred list with one atomic operation when full,
 * as a thread's own mempool cache (rte_mempool_cache_create()) does for
 * rte_mempool. Frames in the batch are nobody's until it is published:
 * the thread calls rxr_pool_task_flush() before it waits (idle, blocked)
 * and before it ends, and counts up to @p max frames of the pool as its
 * own. Frees from a signal handler are never batched. A new call
 * publishes the old batch.
 * @param max 0 or 1: no batch (each free call published, the default).
 * @return 0, or -EINVAL above RXR_POOL_TASK_BATCH_MAX.
 */
int rxr_pool_task_batch(struct rxr_pool *p, unsigned int max);

/** Publish the calling thread's task batch on @p p, if it has one. */
void rxr_pool_task_flush(struct rxr_pool *p);

/**
 * Background zeroing: fill every poll lcore's supply of pre-zeroed frames
 * by up to @p budget frames each. One thread at a time (a service lcore or
 * a thread of the application's). @return frames made ready.
 */
unsigned int rxr_pool_zero_service(struct rxr_pool *p, unsigned int budget);

/**
 * The core's plain counters of a poll lcore, one line each: X(name, help).
 * The fields of struct rxr_pool_lcore_stats and rxr_pool_lcore_stats_add()
 * are made from this list; the pcp's come from RXR_PCP_COUNTERS and a
 * strategy's own from its counter names (rxr_strategy_counters()).
 */
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
	/**
	 * Frames other contexts put on the deferred list: deferred_drained
	 * and what waits on the list when read (no count on the push path,
	 * which stays one compare-and-swap). A drain between the two reads
	 * is missed until the next snapshot.
	 */
	uint64_t deferred_queued;
	uint64_t refill_hist[RXR_HIST_BUCKETS]; /**< [i]: ns in [2^(i-1), 2^i) */
	struct rxr_zero_supply_stats supply; /**< background policy */
	/** The strategy's own counters, named by rxr_strategy_counters(). */
	uint64_t counters[RXR_STRATEGY_COUNTERS_MAX];
};

/**
 * Add what every counter of @p b counts beyond @p a (NULL: from zero) to
 * @p sum: the pcp's, the core's, the histogram and the strategy's own
 * (the zeroing supply's not). Both of one pool and strategy.
 */
void rxr_pool_lcore_stats_add(struct rxr_pool_lcore_stats *sum,
		const struct rxr_pool_lcore_stats *a,
		const struct rxr_pool_lcore_stats *b);

/**
 * pcp hits and misses between two snapshots of one pool (@p a NULL: since
 * its creation), as reports and telemetry count them: allocations the
 * pcps served from frames they held, and frames the zones handed out
 * other than to refill a pcp. The hit rate is hits / (hits + misses).
 */
void rxr_pool_pcp_hits(const struct rxr_pool_stats *a,
		const struct rxr_pool_stats *b, uint64_t *hits, uint64_t *misses);

/** Pool statistics. */
struct rxr_pool_stats {
	uint64_t nr_frames;	/**< frames in the pool */
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

/**
 * Frames available: in zones, pcps, recycle caches and rings, zeroing
 * supplies and deferred lists (a frame on a deferred list counts from its
 * push until it is in a pcp or zone). Exact when nothing moves; a snapshot
 * taken while another thread moves frames between two of these places may
 * be off by the frames in its hands, as DPDK's own ring and cache counts.
 */
uint64_t rxr_pool_avail(const struct rxr_pool *p);

/** Frames in the pool. */
uint64_t rxr_pool_nr_frames(const struct rxr_pool *p);

/** The pool's configuration, its defaults filled in. */
const struct rxr_pool_conf *rxr_pool_get_conf(const struct rxr_pool *p);

/**
 * Conservation check at quiescence: every frame back in a zone and every
 * zone's buddy invariants intact. @return 0, or -1 with what is missing
 * printed on @p out.
 */
int rxr_pool_check(struct rxr_pool *p, FILE *out);

#ifdef __cplusplus
}
#endif

#endif /* RXR_STRATEGY_H */
