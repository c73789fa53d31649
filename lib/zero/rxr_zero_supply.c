/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "rxr_spinlock.h"
#include "rxr_zero.h"

/* Frames the service takes from the zone per lock hold. */
#define SUPPLY_BATCH 32u

/*
 * A single-producer, single-consumer ring of frame pointers. head and tail
 * run freely (uint32_t wrap-around); head - tail frames are ready. Each side
 * writes only its own index and counters, on its own cache line, and reads
 * the other's index with acquire: the slots it then reads or overwrites
 * were released by the other side's store.
 */
#define PRODUCER_STATS(X) X(clear_cycles) X(frames_supplied) X(service_calls) \
	X(zone_empty)
#define CONSUMER_STATS(X) X(get_calls) X(get_frames) X(get_empty) X(get_short) \
	X(drained)
#define STAT_FIELD(n) uint64_t n;
#define STAT_READ(n) st->n = RXR_STAT_READ(s->n);

struct rxr_zero_supply {
	/* Producer (the service). */
	uint32_t head __rte_cache_aligned;
	PRODUCER_STATS(STAT_FIELD)

	/* Consumer (get_bulk, drain). */
	uint32_t tail __rte_cache_aligned;
	CONSUMER_STATS(STAT_FIELD)

	/* Read-only after creation. */
	struct rxr_zone *zone __rte_cache_aligned;
	struct rxr_zero_payload payload;
	uint32_t capacity;
	uint32_t mask;
	char name[32];

	void *slots[] __rte_cache_aligned;
};

struct rxr_zero_supply *
rxr_zero_supply_create(const struct rxr_zero_supply_conf *conf)
{
	struct rxr_zero_supply *s;
	struct rxr_zero_payload pl;
	uint32_t ring;

	if (conf == NULL || conf->zone == NULL || conf->capacity == 0 ||
			conf->capacity > (1u << 30) ||
			rxr_zero_payload_init(&pl,
				rxr_zone_frame_size(conf->zone),
				conf->payload_offset, conf->payload_len,
				conf->method) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	ring = rte_align32pow2(conf->capacity);
	s = rte_zmalloc_socket("rxr_zero_supply",
			sizeof(*s) + sizeof(s->slots[0]) * ring,
			RTE_CACHE_LINE_SIZE, conf->socket_id);
	if (s == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	s->zone = conf->zone;
	s->payload = pl;
	s->capacity = conf->capacity;
	s->mask = ring - 1;
	snprintf(s->name, sizeof(s->name), "%s",
			conf->name != NULL ? conf->name : "supply");
	return s;
}

void
rxr_zero_supply_destroy(struct rxr_zero_supply *s)
{
	if (s == NULL)
		return;
	rxr_zero_supply_drain(s);
	rte_free(s);
}

unsigned int
rxr_zero_supply_service(struct rxr_zero_supply *s, unsigned int budget)
{
	void *objs[SUPPLY_BATCH];
	uint32_t head = s->head;
	uint32_t room = s->capacity -
		(head - __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE));
	unsigned int want = RTE_MIN(budget, room), done = 0, n, i;
	uint64_t cycles = 0, t0;

	while (done < want) {
		n = rxr_zone_alloc_bulk(s->zone, objs, 1,
				RTE_MIN(want - done, SUPPLY_BATCH));
		if (n == 0) {
			RXR_STAT_ADD(s->zone_empty, 1);
			break;
		}
		t0 = rte_rdtsc();
		/* Ends with a fence for nt (checked in debug builds): the
		 * release store below orders ordinary stores only. */
		rxr_zero_payload_bulk(&s->payload, objs, n);
		cycles += rte_rdtsc() - t0;
		for (i = 0; i < n; i++)
			s->slots[(head + i) & s->mask] = objs[i];
		head += n;
		/* Publish each batch at once: the consumer may be waiting. */
		__atomic_store_n(&s->head, head, __ATOMIC_RELEASE);
		done += n;
	}
	RXR_STAT_ADD(s->service_calls, 1);
	RXR_STAT_ADD(s->frames_supplied, done);
	RXR_STAT_ADD(s->clear_cycles, cycles);
	return done;
}

/* Debug builds: a frame handed out must have a zero payload. */
static void
debug_check_zero(const struct rxr_zero_supply *s, void * const *objs,
		unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *p = (const uint8_t *)objs[i] + s->payload.offset;

		for (uint32_t b = 0; b < s->payload.len; b++)
			if (unlikely(p[b] != 0))
				RXR_DEBUG_FAIL(RXR_CHECK_DIRTY,
					"supply %s: frame %p payload byte %u is 0x%02x",
					s->name, objs[i], b, p[b]);
	}
}

unsigned int
rxr_zero_supply_get_bulk(struct rxr_zero_supply *s, void **objs,
		unsigned int n)
{
	uint32_t tail = s->tail;
	uint32_t ready = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE) - tail;
	unsigned int got = RTE_MIN(n, ready), i;

	for (i = 0; i < got; i++)
		objs[i] = s->slots[(tail + i) & s->mask];
	__atomic_store_n(&s->tail, tail + got, __ATOMIC_RELEASE);
	RXR_STAT_ADD(s->get_calls, 1);
	RXR_STAT_ADD(s->get_frames, got);
	RXR_STAT_ADD(s->get_empty, got == 0 && n != 0);
	RXR_STAT_ADD(s->get_short, got < n);
	if (RXR_DEBUG)
		debug_check_zero(s, objs, got);
	return got;
}

unsigned int
rxr_zero_supply_drain(struct rxr_zero_supply *s)
{
	uint32_t tail = s->tail;
	uint32_t n = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE) - tail;
	uint32_t first = tail & s->mask;
	uint32_t seg = RTE_MIN(n, s->mask + 1 - first);

	/* The ready frames are at most two runs of the ring. */
	if (seg != 0)
		rxr_zone_free_bulk(s->zone, &s->slots[first], seg);
	if (n > seg)
		rxr_zone_free_bulk(s->zone, &s->slots[0], n - seg);
	__atomic_store_n(&s->tail, tail + n, __ATOMIC_RELEASE);
	RXR_STAT_ADD(s->drained, n);
	return n;
}

void
rxr_zero_supply_stats(const struct rxr_zero_supply *s,
		struct rxr_zero_supply_stats *st)
{
	uint32_t tail = __atomic_load_n(&s->tail, __ATOMIC_ACQUIRE);
	uint32_t head = __atomic_load_n(&s->head, __ATOMIC_ACQUIRE);

	PRODUCER_STATS(STAT_READ)
	CONSUMER_STATS(STAT_READ)
	st->bytes_cleared = st->frames_supplied * s->payload.len;
	/* Two separate loads: clamp a torn view to what can be. */
	st->ready = RTE_MIN(head - tail, s->capacity);
	st->capacity = s->capacity;
}
