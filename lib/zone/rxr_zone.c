/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The zone: a buddy allocator over page frames behind one spinlock, and
 * its lock-free pending list of frees (rxr_zone.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_reciprocal.h>

#include "rxr_context.h"
#include "rxr_zone_private.h"

/* Free list links are memmap indices; NIL ends a list. */
#define NIL UINT32_MAX
/* Links of a frame on no list, as LIST_POISON1/2 in Linux. */
#define POISON_NEXT 0xdead0100u
#define POISON_PREV 0xdead0200u

enum page_state {
	PG_TAIL = 0,	/* inside a block whose head says what the block is */
	PG_FREE,	/* head of a free block of 2^order frames */
	PG_ALLOC,	/* head of a block handed to a caller */
	PG_PCP,		/* order-0 frame held by a pcp (debug builds only) */
};

/* A memmap state for a debug message; a corrupted one says so. */
static const char *
state_name(uint8_t state)
{
	static const char * const names[] = {
		[PG_TAIL] = "tail", [PG_FREE] = "free",
		[PG_ALLOC] = "allocated", [PG_PCP] = "in a pcp",
	};

	return state < RTE_DIM(names) ? names[state] : "corrupted";
}

struct rxr_zone *
rxr_zone_create(const struct rxr_zone_conf *conf)
{
	struct rxr_zone *z;

	if (conf == NULL || conf->frame_size == 0 || conf->max_frames == 0 ||
			conf->max_frames >= NIL || conf->max_regions == 0 ||
			conf->max_regions > UINT16_MAX) {
		rte_errno = EINVAL;
		return NULL;
	}
	z = rte_zmalloc_socket("rxr_zone", sizeof(*z), RTE_CACHE_LINE_SIZE,
			conf->socket_id);
	if (z == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	z->memmap = rte_malloc_socket("rxr_memmap",
			sizeof(struct rxr_page) * (size_t)conf->max_frames,
			RTE_CACHE_LINE_SIZE, conf->socket_id);
	z->regions = rte_zmalloc_socket("rxr_zone_regions",
			sizeof(*z->regions) * conf->max_regions, 0,
			conf->socket_id);
	if (z->memmap == NULL || z->regions == NULL) {
		rxr_zone_destroy(z);
		rte_errno = ENOMEM;
		return NULL;
	}
	for (unsigned int o = 0; o < RXR_ZONE_NR_ORDERS; o++)
		z->area[o].head = NIL;
	z->pending = NIL;
	z->max_regions = conf->max_regions;
	z->max_frames = conf->max_frames;
	z->frame_size = conf->frame_size;
	z->frame_div = rte_reciprocal_value_u64(conf->frame_size);
	z->socket_id = conf->socket_id;
	snprintf(z->name, sizeof(z->name), "%s",
			conf->name != NULL ? conf->name : "zone");
	return z;
}

void
rxr_zone_destroy(struct rxr_zone *z)
{
	if (z == NULL)
		return;
	rte_free(z->memmap);
	rte_free(z->regions);
	rte_free(z);
}

/* --- free lists ---------------------------------------------------------- */

static inline void
list_add(struct rxr_zone *z, uint32_t idx, unsigned int order)
{
	struct rxr_page *p = &z->memmap[idx];
	struct rxr_zone_free_area *a = &z->area[order];

	RXR_DEBUG_CHECK(p->next == POISON_NEXT && p->prev == POISON_PREV,
		RXR_CHECK_POISON,
		"zone %s: frame %u (order %u) enters a free list but its links are %#x/%#x, not poison: it is on a list already or its metadata was overwritten",
		z->name, idx, order, p->next, p->prev);
	p->next = a->head;
	p->prev = NIL;
	if (a->head != NIL)
		z->memmap[a->head].prev = idx;
	a->head = idx;
	a->nr_blocks++;
}

static inline void
list_del(struct rxr_zone *z, uint32_t idx, unsigned int order)
{
	struct rxr_page *p = &z->memmap[idx];
	struct rxr_zone_free_area *a = &z->area[order];

	/* As CONFIG_DEBUG_LIST: both neighbours must point back at us. */
	RXR_DEBUG_CHECK(p->prev == NIL ? a->head == idx :
		(p->prev < z->nr_frames && z->memmap[p->prev].next == idx),
		RXR_CHECK_LIST,
		"zone %s: list_del of frame %u (order %u): prev %#x does not point back",
		z->name, idx, order, p->prev);
	RXR_DEBUG_CHECK(p->next == NIL ||
		(p->next < z->nr_frames && z->memmap[p->next].prev == idx),
		RXR_CHECK_LIST,
		"zone %s: list_del of frame %u (order %u): next %#x does not point back",
		z->name, idx, order, p->next);
	if (p->prev == NIL)
		a->head = p->next;
	else
		z->memmap[p->prev].next = p->next;
	if (p->next != NIL)
		z->memmap[p->next].prev = p->prev;
	p->next = POISON_NEXT;
	p->prev = POISON_PREV;
	a->nr_blocks--;
}

/* --- address <-> index --------------------------------------------------- */

static inline const struct rxr_zone_region *
region_of_addr(const struct rxr_zone *z, uintptr_t a)
{
	uint32_t lo = 0, hi = z->nr_regions;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		const struct rxr_zone_region *r = &z->regions[mid];

		if (a < r->base)
			hi = mid;
		else if (a >= r->end)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

/* Memmap index of a frame address; checks ownership and alignment. */
static inline uint32_t
frame_index(const struct rxr_zone *z, const void *frame)
{
	uintptr_t a = (uintptr_t)frame;
	const struct rxr_zone_region *r = region_of_addr(z, a);
	uint64_t off, rel;

	if (unlikely(r == NULL))
		RXR_DEBUG_FAIL(RXR_CHECK_FOREIGN,
			"zone %s: %p is not a frame of this zone", z->name,
			frame);
	off = a - r->base;
	rel = rte_reciprocal_divide_u64(off, &z->frame_div);
	RXR_DEBUG_CHECK(rel * z->frame_size == off, RXR_CHECK_MISALIGNED,
		"zone %s: %p is %" PRIu64 " bytes into frame %" PRIu64
		" (stride %u)", z->name, frame, off - rel * z->frame_size,
		rel, z->frame_size);
	return r->first + (uint32_t)rel;
}

static inline void *
frame_addr(const struct rxr_zone *z, uint32_t idx)
{
	const struct rxr_zone_region *r = &z->regions[z->memmap[idx].region];

	return (void *)(r->base + (uintptr_t)(idx - r->first) * z->frame_size);
}

/* --- buddy core (lock held) ---------------------------------------------- */

static inline void
set_free_block(struct rxr_zone *z, uint32_t idx, unsigned int order)
{
	z->memmap[idx].state = PG_FREE;
	z->memmap[idx].order = order;
	list_add(z, idx, order);
}

static uint32_t
__rmqueue(struct rxr_zone *z, unsigned int order)
{
	unsigned int o = order;
	uint32_t idx;

	while (z->area[o].head == NIL)
		if (++o > RXR_ZONE_MAX_ORDER)
			return NIL;
	idx = z->area[o].head;
	RXR_DEBUG_CHECK(z->memmap[idx].state == PG_FREE &&
		z->memmap[idx].order == o, RXR_CHECK_BUDDY,
		"zone %s: frame %u heads free list %u but is %s of order %u",
		z->name, idx, o, state_name(z->memmap[idx].state),
		z->memmap[idx].order);
	list_del(z, idx, o);
	/* Split: the upper halves go back, the lower one is ours. */
	while (o > order) {
		o--;
		set_free_block(z, idx + (1u << o), o);
	}
	z->memmap[idx].state = PG_ALLOC;
	z->memmap[idx].order = order;
	z->nr_free -= 1u << order;
	return idx;
}

static void
__free_one(struct rxr_zone *z, uint32_t idx, unsigned int order)
{
	struct rxr_page *p = &z->memmap[idx];
	const struct rxr_zone_region *r = &z->regions[p->region];
	uint32_t rel = idx - r->first;

	if (unlikely(p->state != PG_ALLOC && p->state != PG_PCP))
		RXR_DEBUG_FAIL(RXR_CHECK_DOUBLE_FREE,
			"zone %s: frame %u at %p freed but it is %s", z->name,
			idx, frame_addr(z, idx), state_name(p->state));
	RXR_DEBUG_CHECK(p->order == order, RXR_CHECK_STATE,
		"zone %s: frame %u freed as order %u but allocated as order %u",
		z->name, idx, order, p->order);
	z->nr_free += 1u << order;

	while (order < RXR_ZONE_MAX_ORDER) {
		uint32_t brel = rel ^ (1u << order);
		struct rxr_page *b;

		if (brel + (1u << order) > r->nr)
			break;
		b = &z->memmap[r->first + brel];
		/*
		 * The buddy may sit in a pcp whose owner marks its state without
		 * the zone lock (debug builds): read it as the atomic it is. It
		 * is never PG_FREE then, whatever the owner writes.
		 */
		if (__atomic_load_n(&b->state, __ATOMIC_RELAXED) != PG_FREE ||
				b->order != order)
			break;
		list_del(z, r->first + brel, order);
		b->state = PG_TAIL;
		rel &= ~(1u << order);
		order++;
	}
	if (r->first + rel != idx)
		p->state = PG_TAIL;
	set_free_block(z, r->first + rel, order);
}

/* Merge what handlers left on the pending list; lock held. Out of line,
 * so that the entries that take the lock save no registers for it. */
static __rte_noinline void
drain_pending(struct rxr_zone *z)
{
	uint32_t idx = __atomic_exchange_n(&z->pending, NIL, __ATOMIC_ACQUIRE);
	uint64_t n = 0;

	while (idx != NIL) {
		uint32_t next = z->memmap[idx].next;

		z->memmap[idx].next = POISON_NEXT;
		__free_one(z, idx, 0);
		idx = next;
		n++;
	}
	RXR_STAT_ADD(z->free_frames, n);
}

/* The lock (only tried unless @p wait), then what handlers left. */
static inline bool
zone_lock_try(struct rxr_zone *z, bool wait)
{
	if (wait)
		rxr_spinlock_lock(&z->lock);
	else if (!rxr_spinlock_trylock(&z->lock))
		return false;
	if (unlikely(__atomic_load_n(&z->pending, __ATOMIC_RELAXED) != NIL))
		drain_pending(z);
	return true;
}

#define zone_lock(z) ((void)zone_lock_try(z, true))

/* --- regions -------------------------------------------------------------- */

int
rxr_zone_add_region(struct rxr_zone *z, void *addr, size_t len,
		enum rxr_zone_region_state state)
{
	uintptr_t base = (uintptr_t)addr;
	uint64_t nr = len / z->frame_size;
	struct rxr_zone_region *r;
	uint32_t pos, i;

	if (addr == NULL || nr == 0)
		return -EINVAL;
	if (z->nr_regions == z->max_regions ||
			nr > (uint64_t)(z->max_frames - z->nr_frames))
		return -ENOSPC;
	/* Insertion point that keeps regions sorted; reject overlaps. */
	for (pos = 0; pos < z->nr_regions; pos++)
		if (z->regions[pos].base > base)
			break;
	if ((pos > 0 && z->regions[pos - 1].end > base) ||
			(pos < z->nr_regions &&
			 base + nr * z->frame_size > z->regions[pos].base))
		return -EINVAL;

	zone_lock(z);
	memmove(&z->regions[pos + 1], &z->regions[pos],
			(z->nr_regions - pos) * sizeof(*r));
	r = &z->regions[pos];
	r->base = base;
	r->end = base + nr * z->frame_size;
	r->first = z->nr_frames;
	r->nr = nr;
	z->nr_regions++;
	/* Inserting shifted later regions: their frames must follow. */
	for (i = pos; i < z->nr_regions; i++)
		for (uint32_t f = 0; f < z->regions[i].nr; f++)
			z->memmap[z->regions[i].first + f].region = i;

	for (i = 0; i < nr; i++) {
		struct rxr_page *p = &z->memmap[r->first + i];

		p->next = POISON_NEXT;
		p->prev = POISON_PREV;
		p->order = 0;
		p->state = state == RXR_ZONE_REGION_ALLOCATED ? PG_ALLOC : PG_TAIL;
	}
	z->nr_frames += nr;
	if (state == RXR_ZONE_REGION_FREE) {
		/* Largest aligned blocks that fit, as memblock frees do. */
		for (i = 0; i < nr;) {
			unsigned int o = RXR_ZONE_MAX_ORDER;

			while ((i & ((1u << o) - 1)) != 0 || i + (1u << o) > nr)
				o--;
			set_free_block(z, r->first + i, o);
			z->nr_free += 1u << o;
			i += 1u << o;
		}
	}
	rxr_spinlock_unlock(&z->lock);
	return (int)nr;
}

/* --- allocation ---------------------------------------------------------- */

void
rxr_zone_lock(struct rxr_zone *z)
{
	zone_lock(z);
}

void
rxr_zone_unlock(struct rxr_zone *z)
{
	rxr_spinlock_unlock(&z->lock);
}

void *
rxr_zone_alloc(struct rxr_zone *z, unsigned int order)
{
	uint32_t idx;

	if (unlikely(order > RXR_ZONE_MAX_ORDER))
		return NULL;
	zone_lock(z);
	idx = __rmqueue(z, order);
	if (likely(idx != NIL))
		RXR_STAT_ADD(z->alloc_frames, 1u << order);
	else
		RXR_STAT_ADD(z->alloc_fail, 1);
	rxr_spinlock_unlock(&z->lock);
	return idx != NIL ? frame_addr(z, idx) : NULL;
}

void
rxr_zone_free(struct rxr_zone *z, void *frame, unsigned int order)
{
	uint32_t idx = frame_index(z, frame);

	zone_lock(z);
	__free_one(z, idx, order);
	RXR_STAT_ADD(z->free_frames, 1u << order);
	rxr_spinlock_unlock(&z->lock);
}

static __rte_always_inline unsigned int
zone_alloc_locked(struct rxr_zone *z, void **objs, unsigned int min,
		unsigned int max)
{
	unsigned int n, i;

	if (unlikely(z->nr_free < min)) {
		RXR_STAT_ADD(z->alloc_fail, 1);
		return 0;
	}
	n = RTE_MIN((uint64_t)max, z->nr_free);
	for (i = 0; i < n; i++)
		objs[i] = frame_addr(z, __rmqueue(z, 0));
	RXR_STAT_ADD(z->alloc_frames, n);
	return n;
}

unsigned int
rxr_zone_alloc_bulk_locked(struct rxr_zone *z, void **objs, unsigned int min,
		unsigned int max)
{
	return zone_alloc_locked(z, objs, min, max);
}

/* A handler may have interrupted the lock holder: it only tries the lock. */
unsigned int
rxr_zone_alloc_bulk(struct rxr_zone *z, void **objs, unsigned int min,
		unsigned int max)
{
	unsigned int n;

	if (!zone_lock_try(z, !rxr_in_irq()))
		return 0;
	n = zone_alloc_locked(z, objs, min, max);
	rxr_spinlock_unlock(&z->lock);
	return n;
}

static __rte_always_inline void
zone_free_locked(struct rxr_zone *z, void * const *objs,
		unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		__free_one(z, frame_index(z, objs[i]), 0);
	RXR_STAT_ADD(z->free_frames, n);
}

void
rxr_zone_free_bulk_locked(struct rxr_zone *z, void * const *objs,
		unsigned int n)
{
	zone_free_locked(z, objs, n);
}

/* A handler that finds the lock held: a lock-free push onto the pending
 * list, one compare-and-swap. */
void
rxr_zone_free_bulk(struct rxr_zone *z, void * const *objs, unsigned int n)
{
	uint32_t first, last, head;

	if (n == 0)
		return;
	if (zone_lock_try(z, !rxr_in_irq())) {
		zone_free_locked(z, objs, n);
		rxr_spinlock_unlock(&z->lock);
		return;
	}
	first = last = frame_index(z, objs[0]);
	for (unsigned int i = 1; i < n; i++) {
		uint32_t idx = frame_index(z, objs[i]);

		z->memmap[last].next = idx;
		last = idx;
	}
	head = __atomic_load_n(&z->pending, __ATOMIC_RELAXED);
	do {
		z->memmap[last].next = head;
	} while (!__atomic_compare_exchange_n(&z->pending, &head, first, true,
			__ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* --- introspection ------------------------------------------------------- */

void
rxr_zone_stats(const struct rxr_zone *z, struct rxr_zone_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->nr_frames = z->nr_frames;
	st->nr_free = RXR_STAT_READ(z->nr_free);
	for (unsigned int o = 0; o < RXR_ZONE_NR_ORDERS; o++)
		st->nr_blocks[o] = RXR_STAT_READ(z->area[o].nr_blocks);
	st->alloc_frames = RXR_STAT_READ(z->alloc_frames);
	st->free_frames = RXR_STAT_READ(z->free_frames);
	st->alloc_fail = RXR_STAT_READ(z->alloc_fail);
	rxr_spinlock_stats(&z->lock, &st->lock);
}

int
rxr_zone_socket(const struct rxr_zone *z)
{
	return z->socket_id;
}

uint32_t
rxr_zone_frame_size(const struct rxr_zone *z)
{
	return z->frame_size;
}

uint32_t
rxr_zone_frame_idx(const struct rxr_zone *z, const void *frame)
{
	return frame_index(z, frame);
}

void *
rxr_zone_frame_at(const struct rxr_zone *z, uint32_t idx)
{
	return frame_addr(z, idx);
}

bool
rxr_zone_owns(const struct rxr_zone *z, const void *addr)
{
	const struct rxr_zone_region *r = region_of_addr(z, (uintptr_t)addr);

	return r != NULL && ((uintptr_t)addr - r->base) % z->frame_size == 0;
}

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		if (out != NULL) { \
			fprintf(out, "zone %s: buddy invariant: ", z->name); \
			fprintf(out, __VA_ARGS__); \
			fputc('\n', out); \
		} \
		ret = -1; \
		goto done; \
	} \
} while (0)

int
rxr_zone_check(struct rxr_zone *z, FILE *out)
{
	uint8_t *seen = calloc(z->nr_frames + 1, 1);
	uint64_t free_frames = 0;
	int ret = 0;

	if (seen == NULL)
		return -1;
	zone_lock(z);
	for (unsigned int o = 0; o < RXR_ZONE_NR_ORDERS; o++) {
		uint32_t idx = z->area[o].head, prev = NIL, n = 0;

		while (idx != NIL) {
			const struct rxr_page *p;
			const struct rxr_zone_region *r;
			uint32_t rel, brel;

			CHECK(idx < z->nr_frames && n < z->nr_frames,
				"order %u list reaches %#x after %u blocks",
				o, idx, n);
			p = &z->memmap[idx];
			r = &z->regions[p->region];
			rel = idx - r->first;
			CHECK(p->prev == prev, "order %u: frame %u prev %#x, expected %#x",
				o, idx, p->prev, prev);
			CHECK(p->state == PG_FREE && p->order == o,
				"frame %u on order %u list is %s of order %u",
				idx, o, state_name(p->state), p->order);
			CHECK((rel & ((1u << o) - 1)) == 0,
				"frame %u: block of order %u not aligned (frame %u of its region)",
				idx, o, rel);
			CHECK(rel + (1u << o) <= r->nr,
				"frame %u: block of order %u runs past its region", idx, o);
			for (uint32_t f = idx; f < idx + (1u << o); f++) {
				CHECK(!seen[f], "frame %u is in two free blocks", f);
				seen[f] = 1;
				CHECK(f == idx || z->memmap[f].state == PG_TAIL,
					"frame %u inside free block %u is %s", f, idx,
					state_name(z->memmap[f].state));
			}
			brel = rel ^ (1u << o);
			if (o < RXR_ZONE_MAX_ORDER && brel + (1u << o) <= r->nr) {
				const struct rxr_page *b = &z->memmap[r->first + brel];

				CHECK(!(b->state == PG_FREE && b->order == o),
					"free block %u and its buddy %u of order %u were not merged",
					idx, r->first + brel, o);
			}
			free_frames += 1u << o;
			prev = idx;
			idx = p->next;
			n++;
		}
		CHECK(n == z->area[o].nr_blocks, "order %u: %u blocks listed, %u counted",
			o, n, z->area[o].nr_blocks);
	}
	CHECK(free_frames == z->nr_free, "%" PRIu64 " frames in free blocks, %" PRIu64 " counted",
		free_frames, z->nr_free);
done:
	rxr_spinlock_unlock(&z->lock);
	free(seen);
	return ret;
}

/* --- debug state tracking ----------------------------------------------- */

/* Outside the zone lock: the zone may read the state as a buddy's. */
void
rxr_zone_debug_pcp(struct rxr_zone *z, void *frame, bool in)
{
	struct rxr_page *p = &z->memmap[frame_index(z, frame)];
	uint8_t st = __atomic_load_n(&p->state, __ATOMIC_RELAXED);

	if (in && (st != PG_ALLOC || p->order != 0))
		RXR_DEBUG_FAIL(RXR_CHECK_DOUBLE_FREE,
			"zone %s: frame %p freed into a pcp but it is %s",
			z->name, frame, state_name(st));
	if (!in && st != PG_PCP)
		RXR_DEBUG_FAIL(RXR_CHECK_STATE,
			"zone %s: pcp hands out frame %p but it is %s: the pcp list is corrupt",
			z->name, frame, state_name(st));
	__atomic_store_n(&p->state, in ? PG_PCP : PG_ALLOC, __ATOMIC_RELAXED);
}
