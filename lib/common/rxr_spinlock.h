/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_SPINLOCK_H
#define RXR_SPINLOCK_H

/**
 * @file
 * A test-and-test-and-set spinlock that counts acquisitions, contended
 * ones and TSC cycles waiting, written by the holder only.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_pause.h>

#include "rxr_common.h"

/** Single-writer counter update that concurrent readers may load. */
#define RXR_STAT_ADD(c, v) \
	__atomic_store_n(&(c), (c) + (v), __ATOMIC_RELAXED)
/** Relaxed read of a counter written by another thread. */
#define RXR_STAT_READ(c) __atomic_load_n(&(c), __ATOMIC_RELAXED)

/** Lock cost counters. */
struct rxr_lock_stats {
	uint64_t acquisitions;	/**< successful lock() and trylock() */
	uint64_t contended;	/**< acquisitions that had to wait */
	uint64_t wait_cycles;	/**< TSC cycles spent waiting */
};

/** A counting spinlock. Zero-initialized means unlocked. */
struct rxr_spinlock {
	uint32_t locked;
	struct rxr_lock_stats stats;
};

static inline bool
__rxr_spinlock_try(struct rxr_spinlock *l)
{
	return __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE) == 0;
}

/* Out of line: the wait loop and its timing are the cold part. */
void __rxr_spinlock_wait(struct rxr_spinlock *l);

/** Take the lock, spinning if needed. */
static inline void
rxr_spinlock_lock(struct rxr_spinlock *l)
{
	if (unlikely(!__rxr_spinlock_try(l)))
		__rxr_spinlock_wait(l);
	RXR_STAT_ADD(l->stats.acquisitions, 1);
}

/** Take the lock only if it is free; never waits. @return true if taken. */
static inline bool
rxr_spinlock_trylock(struct rxr_spinlock *l)
{
	if (__atomic_load_n(&l->locked, __ATOMIC_RELAXED) != 0 ||
			!__rxr_spinlock_try(l))
		return false;
	RXR_STAT_ADD(l->stats.acquisitions, 1);
	return true;
}

/** Release the lock. */
static inline void
rxr_spinlock_unlock(struct rxr_spinlock *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/** Relaxed snapshot of the counters (may be read while others hold it). */
static inline void
rxr_spinlock_stats(const struct rxr_spinlock *l, struct rxr_lock_stats *s)
{
	s->acquisitions = RXR_STAT_READ(l->stats.acquisitions);
	s->contended = RXR_STAT_READ(l->stats.contended);
	s->wait_cycles = RXR_STAT_READ(l->stats.wait_cycles);
}

#endif /* RXR_SPINLOCK_H */
