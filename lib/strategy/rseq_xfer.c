/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rseq's transfer stage (tcmalloc's transfer cache) between a node's pcps
 * and its zone: a ring with a lock and a published index per side
 * (doc/strategies.md). Not in a signal handler.
 *
 * Not DPDK's rte_ring: with it in this place (pops into a stack buffer,
 * then rte_ring_enqueue_burst(); rte_ring_dequeue_bulk() for refills),
 * bench_strategy's rseq_remote_roundtrip_over_mempool_cached.bulk32 was
 * 1.320 against this ring's 0.955 (12 alternated pairs, --no-huge, Intel
 * family 6 model 167, the pair's ratio 1.26-1.54).
 */

#include <string.h>

#include <rte_prefetch.h>

#include "rseq.h"

unsigned int
rxrp_rseq_xfer_count(const struct rseq_xfer *x)
{
	/* The refills' index first: it never passes the drains'. */
	uint32_t t = __atomic_load_n(&x->tail_pub, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&x->head_pub, __ATOMIC_ACQUIRE) - t;
}

/* Under the drains' lock: room for k slots after head, reading the
 * refills' index only when the one seen last leaves too little. */
static __rte_always_inline bool
xfer_room(struct rseq_xfer *x, uint32_t k)
{
	if (x->mask + 1 - (x->head - x->tail_seen) >= k)
		return true;
	x->tail_seen = __atomic_load_n(&x->tail_pub, __ATOMIC_ACQUIRE);
	return x->mask + 1 - (x->head - x->tail_seen) >= k;
}

/*
 * Under the drains' lock: whether frames in the form of @p base (offsets
 * from it, or pointers when 0) can go in now, the stage taking that form
 * while it is empty. Empty: every slot written has been read.
 */
static inline bool
xfer_form(struct rseq_xfer *x, uintptr_t base)
{
	if (likely(x->base == base))
		return true;
	if (x->head == __atomic_load_n(&x->tail_pub, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&x->base, base, __ATOMIC_RELAXED);
		return true;
	}
	return x->base == 0;
}

/* Under the drains' lock: k slots written after head, for the refills. */
static __rte_always_inline void
xfer_publish(struct rseq_xfer *x, uint32_t k)
{
	x->head += k;
	__atomic_store_n(&x->head_pub, x->head, __ATOMIC_RELEASE);
}

unsigned int
rxrp_rseq_xfer_fill(struct rseq_xfer *x, uintptr_t base, unsigned int k,
		rxrp_rseq_fill_t fill, void *arg)
{
	unsigned int done = 0;

	if (rxr_in_irq())
		return 0;
	rxr_spinlock_lock(&x->plock);
	if (xfer_room(x, k) && xfer_form(x, base)) {
		uint32_t at = x->head & x->mask;
		unsigned int part = RTE_MIN(k, x->mask + 1 - at), got;

		/* A second part where the slots wrap. */
		while (done < k && (got = fill(arg, x->base != 0 ?
				(void *)&x->offs[at] : (void *)&x->frames[at],
				x->base, part)) != 0) {
			done += got;
			if (got < part)
				break;
			at = 0;
			part = k - done;
		}
		xfer_publish(x, done);
	}
	rxr_spinlock_unlock(&x->plock);
	return done;
}

unsigned int
rxrp_rseq_xfer_put(struct rseq_xfer *x, uintptr_t base, void * const *objs,
		unsigned int n)
{
	unsigned int k = 0;

	if (rxr_in_irq())
		return 0;
	rxr_spinlock_lock(&x->plock);
	if (xfer_form(x, base)) {
		xfer_room(x, n);
		k = RTE_MIN(n, x->mask + 1 - (x->head - x->tail_seen));
		for (unsigned int i = 0; i < k; i++) {
			uint32_t s = (x->head + i) & x->mask;

			if (x->base == 0)
				x->frames[s] = objs[i];
			else
				x->offs[s] = (uint32_t)((uintptr_t)objs[i] -
					x->base);
		}
		xfer_publish(x, k);
	}
	rxr_spinlock_unlock(&x->plock);
	return k;
}

/* Not rte_prefetch0_write(), a plain prefetcht0 for DPDK's baseline
 * -march; prefetchw is a no-op on CPUs without it. */
static __rte_always_inline void
prefetchw(const void *a)
{
	asm volatile("prefetchw %0" : : "m" (*(const char *)a));
}

/* The slots a refill reads, asked for before its index, so that the
 * misses overlap (a drain's stores wait in the store buffer). */
static __rte_always_inline void
xfer_prefetch(const struct rseq_xfer *x, uint32_t from, uint32_t n)
{
	/* Unlocked: the form may change meanwhile, a hint still. */
	size_t sz = __atomic_load_n(&x->base, __ATOMIC_RELAXED) != 0 ?
		sizeof(*x->offs) : sizeof(*x->frames);
	const char *slots = (const char *)x->frames, *a, *end;
	uint32_t at = from & x->mask, k;

	n = RTE_MIN(n, x->mask + 1);
	k = RTE_MIN(n, x->mask + 1 - at);
	a = RTE_PTR_ALIGN_FLOOR(slots + at * sz, RTE_CACHE_LINE_SIZE);
	for (end = slots + (at + k) * sz; a < end; a += RTE_CACHE_LINE_SIZE)
		rte_prefetch0(a);
	for (a = slots, end = slots + (n - k) * sz; a < end;
			a += RTE_CACHE_LINE_SIZE)
		rte_prefetch0(a);
}

/* n frames out of the slots from @p at (free-running), form @p base. */
static __rte_always_inline void
xfer_load(const struct rseq_xfer *x, uintptr_t base, uint32_t at,
		void **objs, unsigned int n)
{
	uint32_t s = at & x->mask, k = RTE_MIN(n, x->mask + 1 - s);

	if (base == 0) {
		memcpy(objs, &x->frames[s], k * sizeof(*objs));
		memcpy(objs + k, &x->frames[0], (n - k) * sizeof(*objs));
		return;
	}
	for (unsigned int i = 0; i < k; i++)
		objs[i] = (void *)(base + x->offs[s + i]);
	for (unsigned int i = k; i < n; i++)
		objs[i] = (void *)(base + x->offs[i - k]);
}

unsigned int
rxrp_rseq_xfer_take(struct rseq_xfer *x, void **objs, unsigned int n,
		void **tmp, unsigned int more)
{
	uint32_t t, h, rest;
	uintptr_t base;

	if (rxr_in_irq())
		return 0;
	/* The slots first: their address needs only this side's index. */
	t = __atomic_load_n(&x->tail, __ATOMIC_RELAXED);
	xfer_prefetch(x, t, n + more);
	prefetchw(&x->clock);
	h = __atomic_load_n(&x->head_pub, __ATOMIC_ACQUIRE);
	if (h - t < n || h - t > x->mask + 1)
		return 0;
	rxr_spinlock_lock(&x->clock);
	t = x->tail;
	h = __atomic_load_n(&x->head_pub, __ATOMIC_ACQUIRE);
	if (h - t < n) {
		rxr_spinlock_unlock(&x->clock);
		return 0;
	}
	/* After head_pub: the form its slots were written in. */
	base = __atomic_load_n(&x->base, __ATOMIC_RELAXED);
	rest = RTE_MIN(h - t - n, more);
	xfer_load(x, base, t, objs, n);
	xfer_load(x, base, t + n, tmp, rest);
	/* Atomic: the unlocked look reads it. */
	__atomic_store_n(&x->tail, t + n + rest, __ATOMIC_RELAXED);
	__atomic_store_n(&x->tail_pub, t + n + rest, __ATOMIC_RELEASE);
	rxr_spinlock_unlock(&x->clock);
	return n + rest;
}
