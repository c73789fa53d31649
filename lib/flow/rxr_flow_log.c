/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The flow log: a ring of records with one appender and locked drainers.
 * head (appender) and tail (drainers) are free-running 32-bit counters;
 * the records are two arrays, keys and lengths, so that a drain hands a
 * contiguous run of each to rxr_flow_table_update_bulk() as it is.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rxr_flow_log.h"
#include "rxr_spinlock.h"

/* Records given to the table per call (it prefetches 64 at a time). */
#define DRAIN_CHUNK 256u

struct rxr_flow_log {
	/* Read-only after creation. */
	struct rxr_flow_key *keys;
	uint32_t *bytes;
	uint32_t mask;
	struct rxr_flow_table *t;

	/* The appender's. */
	uint32_t head __rte_cache_aligned;	/* published with release */
	uint32_t tail_seen;			/* its last look at tail */

	/* The drainers', under lock. */
	uint32_t tail __rte_cache_aligned;	/* published with release */
	struct rxr_spinlock lock;
	struct rxr_flow_log_stats st;
} __rte_cache_aligned;

struct rxr_flow_log *
rxr_flow_log_create(struct rxr_flow_table *t, uint32_t size, int socket_id)
{
	struct rxr_flow_log *l;

	if (t == NULL || size < RXR_FLOW_LOG_SIZE_MIN ||
			size > RXR_FLOW_LOG_SIZE_MAX ||
			!rte_is_power_of_2(size)) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* One allocation: the log, then its keys, then their lengths (each
	 * array starts on a cache line: size is a multiple of 64). */
	l = rte_zmalloc_socket("rxr_flow_log", sizeof(*l) + (size_t)size *
			(sizeof(*l->keys) + sizeof(*l->bytes)),
			RTE_CACHE_LINE_SIZE, socket_id);
	if (l == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	l->keys = (struct rxr_flow_key *)(l + 1);
	l->bytes = (uint32_t *)(l->keys + size);
	l->mask = size - 1;
	l->t = t;
	return l;
}

void
rxr_flow_log_free(struct rxr_flow_log *l)
{
	rte_free(l);
}

/* Apply up to max of the oldest records; the lock is held. */
static unsigned int
drain_locked(struct rxr_flow_log *l, unsigned int max)
{
	uint32_t tail = l->tail;
	uint32_t avail = __atomic_load_n(&l->head, __ATOMIC_ACQUIRE) - tail;
	unsigned int todo = RTE_MIN(avail, max), done = 0;
	struct rxr_flow_entry *out[DRAIN_CHUNK];

	while (done < todo) {
		uint32_t i = tail & l->mask;
		unsigned int cnt = RTE_MIN(RTE_MIN(todo - done, DRAIN_CHUNK),
				l->mask + 1 - i);

		if (rxr_flow_table_update_bulk(l->t, &l->keys[i], &l->bytes[i],
				cnt, out) != 0) {
			for (unsigned int j = 0; j < cnt; j++)
				if (out[j] == NULL) {
					l->st.untracked_packets++;
					l->st.untracked_bytes += l->bytes[i + j];
				}
		}
		done += cnt;
		tail += cnt;
		/* Room for the appender as soon as a chunk is counted. */
		__atomic_store_n(&l->tail, tail, __ATOMIC_RELEASE);
	}
	l->st.applied += done;
	return done;
}

unsigned int
rxr_flow_log_drain(struct rxr_flow_log *l, unsigned int max)
{
	unsigned int n;

	/* Cheap look first: an idle collector must not take the lock. */
	if (__atomic_load_n(&l->head, __ATOMIC_ACQUIRE) ==
			__atomic_load_n(&l->tail, __ATOMIC_RELAXED))
		return 0;
	rxr_spinlock_lock(&l->lock);
	n = drain_locked(l, max);
	rxr_spinlock_unlock(&l->lock);
	return n;
}

/*
 * The log has no room for n: count a quarter of it (at least n) here,
 * rather than wait for a collector that may not run at all.
 */
static void __rte_noinline
append_full(struct rxr_flow_log *l, unsigned int n)
{
	unsigned int done;

	rxr_spinlock_lock(&l->lock);
	done = drain_locked(l, RTE_MAX(n, (l->mask + 1) / 4));
	l->st.applied_by_appender += done;
	rxr_spinlock_unlock(&l->lock);
	l->tail_seen = __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE);
}

void
rxr_flow_log_append(struct rxr_flow_log *l, const struct rxr_flow_key *keys,
		const uint32_t *bytes, unsigned int n)
{
	const uint32_t size = l->mask + 1;
	uint32_t head = l->head;
	uint32_t i, first;

	RXR_DEBUG_CHECK(n <= size, "flow_log",
		"append of %u records to a log of %u", n, size);
	if (unlikely(size - (head - l->tail_seen) < n)) {
		l->tail_seen = __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE);
		if (size - (head - l->tail_seen) < n)
			append_full(l, n);
	}
	i = head & l->mask;
	first = RTE_MIN(n, size - i);
	memcpy(&l->keys[i], keys, first * sizeof(*keys));
	memcpy(&l->bytes[i], bytes, first * sizeof(*bytes));
	if (first < n) {
		memcpy(&l->keys[0], keys + first, (n - first) * sizeof(*keys));
		memcpy(&l->bytes[0], bytes + first,
			(n - first) * sizeof(*bytes));
	}
	__atomic_store_n(&l->head, head + n, __ATOMIC_RELEASE);
}

void
rxr_flow_log_stats(struct rxr_flow_log *l, struct rxr_flow_log_stats *s)
{
	rxr_spinlock_lock(&l->lock);
	*s = l->st;
	s->pending = __atomic_load_n(&l->head, __ATOMIC_ACQUIRE) - l->tail;
	rxr_spinlock_unlock(&l->lock);
}

void
rxr_flow_log_reset(struct rxr_flow_log *l)
{
	l->head = l->tail = l->tail_seen = 0;
	memset(&l->st, 0, sizeof(l->st));
}
