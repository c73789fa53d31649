/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RSEQ_H
#define RSEQ_H

/*
 * PRIVATE to the rseq strategy: its per-CPU state, shared by the slab
 * (strategy_rseq.c) and its registration, reclaim and statistics
 * (rseq_pool.c). The sections themselves are rseq_asm.h's.
 */

#include "rxr_pool_private.h"
#include "rseq_asm.h"

/* Top bit of a pcp's count: a reclaim owns the pcp. */
#define RSEQ_LOCKED 0x80000000u
/* Most frames a slow path moves at once (stack buffer). */
#define RSEQ_TMP 512u

/*
 * Slow-path counters of one CPU. A thread on that CPU adds with one
 * unlocked add that is a section of its own (the kernel's this_cpu_add():
 * a preemption never splits it, and no other CPU adds there); a thread
 * that has left the CPU adds atomically to the away twin, and a reader
 * sums both. A locked add costs 20-60 cycles, and each move between a
 * pcp and the transfer stage counted four.
 */
enum rseq_ctr_id {
	RSEQ_C_RESTARTS,
	RSEQ_C_MIGRATIONS,
	RSEQ_C_ZONE_FALLBACK,
	RSEQ_C_XFER_IN,		/* frames drained into the transfer stage */
	RSEQ_C_XFER_OUT,	/* frames refilled from it */
	RSEQ_C_REMOTE_FREES,	/* frames of another node's zone */
	/* Moved by the slow paths' sections, not by callers' calls: left out
	 * of the pcp's alloc and free counts. */
	RSEQ_C_REFILL_PUSHED,
	RSEQ_C_DRAIN_POPPED,
	RSEQ_C_XFER_ALLOC,	/* handed to callers from the stage */
	/* The pcp's slow-path figures, struct rxr_pcp_stats' of the same
	 * names (its alloc and free are the fast sections' own adds). */
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
	/* Not 0: frames held as offsets from it (offs), else as pointers
	 * (frames). Set by a drain while the stage is empty. */
	uintptr_t base;
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
	/* Before the pcps: the fast paths' checks share the line of the
	 * first CPUs' pointers. */
	unsigned int ncpu;
	uint32_t high;			/* every pcp's */
	uint32_t fits;			/* most n a section takes: high, or 1 */
	/* ncpu with one zone, else 0: the free fast path's one test (with
	 * more, a pcp takes only its zone's frames, a slow path's check). */
	unsigned int free_ncpu;
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

/*
 * ThreadSanitizer sees no access inside the sections: a push releases the
 * pcp and a pop acquires it, the order the sections give frames (and
 * their payloads) that pass through a pcp.
 */
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

/*
 * The calling thread's struct rseq is at the thread pointer plus
 * __rseq_offset, the same for every thread: the sections address it
 * through %fs with that offset. rxrp_rseq_off is a copy made before main()
 * (the loader sets glibc's before any constructor runs): one load from
 * this library's data, not two through the GOT, on the way to the CPU.
 */
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
int rxrp_rseq_xfer_init(struct rseq_xfer *x, uint32_t slots, int socket);
/* Frames in the stage, a snapshot. */
unsigned int rxrp_rseq_xfer_count(const struct rseq_xfer *x);
/*
 * Writes n frames into slots, as offsets from base when it is not 0 (then
 * slots is a uint32_t array), else as pointers. @return n, or 0 when it
 * wrote none.
 */
typedef unsigned int (*rxrp_rseq_fill_t)(void *arg, void *slots,
		uintptr_t base, unsigned int n);
/*
 * Up to k frames of a pool whose offset base is @p base (rxr_pool.off_base)
 * written straight into the slots by fill, a second call where the slots
 * wrap. @return frames in: 0 when the stage has no room for k or cannot
 * take the pool's frames in its form now.
 */
unsigned int rxrp_rseq_xfer_fill(struct rseq_xfer *x, uintptr_t base,
		unsigned int k, rxrp_rseq_fill_t fill, void *arg);
/* As many of the n frames as there is room for. @return how many. */
unsigned int rxrp_rseq_xfer_put(struct rseq_xfer *x, uintptr_t base,
		void * const *objs, unsigned int n);
/* n frames into objs and up to more into tmp, the oldest first.
 * @return n + what tmp got, or 0 when fewer than n are there. */
unsigned int rxrp_rseq_xfer_take(struct rseq_xfer *x, void **objs,
		unsigned int n, void **tmp, unsigned int more);

/* rseq_pool.c: registration, reclaim and statistics, the table's optional
 * members. */
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
