/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RSEQ_H
#define RSEQ_H

/* PRIVATE to the rseq strategy: its per-CPU state (sections: rseq_asm.h). */

#include "rxr_pool_private.h"
#include "rseq_asm.h"

/* Top bit of a pcp's count: a reclaim owns the pcp. */
#define RSEQ_LOCKED 0x80000000u
/* Most frames a slow path moves at once (stack buffer). */
#define RSEQ_TMP 512u

/* Slow-path counters of one CPU: added by a one-add section
 * (this_cpu_add()), or atomically to the away twin by a thread that left. */
enum rseq_ctr_id {
	RSEQ_C_RESTARTS,
	RSEQ_C_MIGRATIONS,
	RSEQ_C_ZONE_FALLBACK,
	RSEQ_C_XFER_IN,		/* frames drained into the transfer stage */
	RSEQ_C_XFER_OUT,	/* frames refilled from it */
	RSEQ_C_REMOTE_FREES,	/* frames of another node's zone */
	RSEQ_C_REFILL_PUSHED,
	RSEQ_C_DRAIN_POPPED,
	RSEQ_C_XFER_ALLOC,	/* handed to callers from the stage */
	RSEQ_C_ALLOC_MISS,
	RSEQ_C_ALLOC_FAIL,
	RSEQ_C_FREE_DRAIN,
	RSEQ_C_REFILL_FRAMES,
	RSEQ_C_ALLOC_ZONE_FRAMES,
	RSEQ_C_DRAIN_FRAMES,
	RSEQ_NR_CTR
};

struct rseq_ctr {
	uint64_t v[RSEQ_NR_CTR];	/* by threads on this CPU, unlocked */
	uint64_t away[RSEQ_NR_CTR];	/* by any other, atomic */
} __rte_cache_aligned;

/* The transfer stage of a node (rseq_xfer.c): a ring, a lock per side. */
struct rseq_xfer {
	/* Read by both sides, written while the stage is empty. */
	uint32_t mask;			/* slots - 1, slots a power of two */
	uintptr_t base;			/* offs from it, or 0: frames */
	union {
		void **frames;		/* [mask + 1], from tail to head */
		uint32_t *offs;
	};
	/* The drains' side. */
	struct rxr_spinlock plock __rte_cache_aligned;
	uint32_t head;			/* slots written (free-running) */
	uint32_t tail_seen;		/* tail_pub as last read */
	uint32_t head_pub __rte_cache_aligned;	/* head, once written */
	/* The refills' side. */
	struct rxr_spinlock clock __rte_cache_aligned;
	uint32_t tail;			/* slots read (free-running) */
	uint32_t tail_pub __rte_cache_aligned;	/* tail, once read */
} __rte_cache_aligned;

struct rseq_pool {
	/* The fast paths' checks, on the first pcp pointers' line. */
	unsigned int ncpu;
	uint32_t high;			/* every pcp's */
	uint32_t fits;			/* most n a section takes: high, or 1 */
	unsigned int free_ncpu;		/* ncpu with one zone, else 0 */
	struct rxr_pcp *pcp[RXRP_MAX_CPUS];	/* by CPU number */
	struct rxr_spinlock lock;		/* one reclaim at a time */
	uint8_t node[RXRP_MAX_CPUS];		/* zone of each CPU's pcp */
	struct rseq_xfer xfer[RXR_POOL_MAX_NODES];
	struct rseq_ctr ctr[RXRP_MAX_CPUS];
};

static inline struct rseq_pool *
rseq_pool_of(const struct rxr_pool *p)
{
	return p->priv;
}

/* ThreadSanitizer sees no section: a push releases the pcp, a pop acquires. */
#if defined(__SANITIZE_THREAD__)
#define RSEQ_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RSEQ_TSAN 1
#endif
#endif
#ifdef RSEQ_TSAN
#include <sanitizer/tsan_interface.h>
#define rseq_tsan_release(a) __tsan_release(a)
#define rseq_tsan_acquire(a) __tsan_acquire(a)
#else
#define rseq_tsan_release(a) do { } while (0)
#define rseq_tsan_acquire(a) do { } while (0)
#endif

/* The stage: slots for this many batches of a node's pcps. */
#define RSEQ_XFER_BATCHES 16u

#if RSEQ_BUILT

/* __rseq_offset, copied before main(): one load, not two through the GOT. */
extern intptr_t rxrp_rseq_off __attribute__((visibility("hidden")));

/* Count v on CPU cpu's counter id (a CPU out of range: the last one's). */
static __rte_always_inline void
rseq_add(struct rseq_pool *rp, uint32_t cpu, enum rseq_ctr_id id, uint64_t v)
{
	struct rseq_ctr *ct = &rp->ctr[RTE_MIN(cpu, rp->ncpu - 1)];

	if (unlikely(!rseq_add_on(rxrp_rseq_off, cpu, &ct->v[id], v)))
		__atomic_fetch_add(&ct->away[id], v, __ATOMIC_RELAXED);
}

#define RSEQ_COUNT(rp, cpu, id) rseq_add(rp, cpu, id, 1)

#endif

/* rseq_xfer.c: the transfer stage; none of it in a signal handler. */
/* Frames in the stage, a snapshot. */
unsigned int rxrp_rseq_xfer_count(const struct rseq_xfer *x);
/* n frames into slots, as offsets from base (0: pointers); n or 0. */
typedef unsigned int (*rxrp_rseq_fill_t)(void *arg, void *slots,
		uintptr_t base, unsigned int n);
/* Up to k frames written into the slots by fill; 0 without room. */
unsigned int rxrp_rseq_xfer_fill(struct rseq_xfer *x, uintptr_t base,
		unsigned int k, rxrp_rseq_fill_t fill, void *arg);
/* As many of the n frames as there is room for. @return how many. */
unsigned int rxrp_rseq_xfer_put(struct rseq_xfer *x, uintptr_t base,
		void * const *objs, unsigned int n);
/* n frames into objs and up to more into tmp; 0 when fewer than n. */
unsigned int rxrp_rseq_xfer_take(struct rseq_xfer *x, void **objs,
		unsigned int n, void **tmp, unsigned int more);

/* rseq_pool.c: the table's optional members. */
int rxrp_rseq_init(struct rxr_pool *p);
void rxrp_rseq_fini(struct rxr_pool *p);
unsigned int rxrp_rseq_drain(struct rxr_pool *p, struct rxrp_lcore *ls,
		bool quiet);
uint64_t rxrp_rseq_held(const struct rxr_pool *p, const struct rxrp_lcore *ls);
void rxrp_rseq_stats(const struct rxr_pool *p, const struct rxrp_lcore *ls,
		struct rxr_pool_lcore_stats *o);
bool rxrp_rseq_available(char *why, size_t len);
extern const char * const rxrp_rseq_counters[];

#endif /* RSEQ_H */
