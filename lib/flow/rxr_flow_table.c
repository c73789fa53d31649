/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The flow table: linear probing over cache-line entries, no deletions.
 * nb_slots home slots, then RXR_FLOW_TABLE_PROBE_MAX - 1 more so that a
 * window never wraps around.
 */

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "rxr_flow_table.h"

/* Keys hashed and prefetched ahead of their probes. */
#define BULK_CHUNK 64u
/* Slots per flow of max_flows: the load factor is at most 1/2. */
#define RXR_FLOW_TABLE_SLOTS_PER_FLOW 2u

/* Seed of the CRC: any value; fixed so that tables are reproducible. */
#define HASH_SEED 0x9e3779b9u

struct rxr_flow_table {
	struct rxr_flow_entry *slots;	/* nb_slots + PROBE_MAX - 1 */
	uint32_t nb_slots;		/* home slots */
	uint32_t max_flows;
	uint32_t nb_flows;
	uint16_t nb_consumers;
	uint16_t next_consumer;		/* nb_flows % nb_consumers */
	void *map;			/* the slots' own mapping, if any */
	size_t mapped;			/* its length; 0: rte_malloc */
} __rte_cache_aligned;

_Static_assert(sizeof(struct rxr_flow_entry) == RTE_CACHE_LINE_SIZE,
	"an entry is one cache line");
/* A key hashes and compares as this many 8-byte words. */
#define KEY_WORDS 5
_Static_assert(sizeof(struct rxr_flow_key) == KEY_WORDS * sizeof(uint64_t),
	"keys hash as KEY_WORDS words");

static inline uint64_t
word(const struct rxr_flow_key *k, unsigned int i)
{
	uint64_t w;

	/* Keys may be only 2-byte aligned: memcpy compiles to a load. */
	memcpy(&w, (const uint8_t *)k + sizeof(w) * i, sizeof(w));
	return w;
}

static inline uint32_t
key_hash(const struct rxr_flow_key *k)
{
	uint32_t h = HASH_SEED;

	for (unsigned int i = 0; i < KEY_WORDS; i++)
		h = rte_hash_crc_8byte(word(k, i), h);
	return h;
}

static inline bool
key_eq(const struct rxr_flow_key *a, const struct rxr_flow_key *b)
{
	uint64_t d = 0;

	for (unsigned int i = 0; i < KEY_WORDS; i++)
		d |= word(a, i) ^ word(b, i);
	return d == 0;
}

/* The home slot: the hash scaled to nb_slots (no modulo, no power of 2). */
static inline uint32_t
home_of(const struct rxr_flow_table *t, uint32_t h)
{
	return (uint32_t)(((uint64_t)h * t->nb_slots) >> 32);
}

#define THP_SIZE ((size_t)2 << 20)

static size_t
slots_size(uint32_t nb_slots)
{
	return ((size_t)nb_slots + RXR_FLOW_TABLE_PROBE_MAX - 1) *
		sizeof(struct rxr_flow_entry);
}

/* The slots, as rxr_flow_table_create() says (EAL's --no-huge memory is
 * a memfd, which transparent huge pages do not cover). */
static struct rxr_flow_entry *
slots_alloc(struct rxr_flow_table *t, size_t size, int socket_id)
{
	void *p;

	t->mapped = 0;
	if (!rte_eal_has_hugepages() && size >= THP_SIZE) {
		size_t len = RTE_ALIGN_CEIL(size, THP_SIZE) + THP_SIZE;

		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED) {
			/* Aligned, so that every 2 MiB of it can be one page. */
			uintptr_t a = RTE_ALIGN_CEIL((uintptr_t)p, THP_SIZE);

			(void)madvise((void *)a, len - (a - (uintptr_t)p),
				MADV_HUGEPAGE);
			t->map = p;
			t->mapped = len;
			/* Fault it all in now, not in the poll loop. */
			memset((void *)a, 0, size);
			return (void *)a;
		}
	}
	return rte_zmalloc_socket("rxr_flow_slots", size, RTE_CACHE_LINE_SIZE,
			socket_id);
}

struct rxr_flow_table *
rxr_flow_table_create(uint32_t max_flows, uint16_t nb_consumers,
		int socket_id)
{
	struct rxr_flow_table *t;
	uint32_t nb_slots;

	if (max_flows == 0 || max_flows > RXR_FLOW_TABLE_FLOWS_MAX ||
			nb_consumers == 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	nb_slots = max_flows * RXR_FLOW_TABLE_SLOTS_PER_FLOW;
	t = rte_zmalloc_socket("rxr_flow_table", sizeof(*t),
			RTE_CACHE_LINE_SIZE, socket_id);
	if (t != NULL)
		t->slots = slots_alloc(t, slots_size(nb_slots), socket_id);
	if (t == NULL || t->slots == NULL) {
		rte_free(t);
		rte_errno = ENOMEM;
		return NULL;
	}
	t->nb_slots = nb_slots;
	t->max_flows = max_flows;
	t->nb_consumers = nb_consumers;
	return t;
}

void
rxr_flow_table_free(struct rxr_flow_table *t)
{
	if (t == NULL)
		return;
	if (t->mapped != 0)
		munmap(t->map, t->mapped);
	else
		rte_free(t->slots);
	rte_free(t);
}

void
rxr_flow_table_reset(struct rxr_flow_table *t)
{
	memset(t->slots, 0, slots_size(t->nb_slots));
	t->nb_flows = 0;
	t->next_consumer = 0;
}

uint32_t
rxr_flow_table_count(const struct rxr_flow_table *t)
{
	return t->nb_flows;
}

/*
 * The entry of key, probing from its home slot; a new flow takes the first
 * free slot, which is where a lookup of it stops (nothing is ever deleted).
 */
static inline struct rxr_flow_entry *
find_or_add(struct rxr_flow_table *t, const struct rxr_flow_key *key,
		uint32_t home)
{
	struct rxr_flow_entry *e = &t->slots[home];

	for (unsigned int i = 0; i < RXR_FLOW_TABLE_PROBE_MAX; i++, e++) {
		if (e->seq == 0) {
			if (unlikely(t->nb_flows == t->max_flows))
				return NULL;
			e->key = *key;
			e->seq = ++t->nb_flows;
			e->consumer = t->next_consumer;
			if (++t->next_consumer == t->nb_consumers)
				t->next_consumer = 0;
			return e;
		}
		if (key_eq(&e->key, key))
			return e;
	}
	return NULL;
}

unsigned int
rxr_flow_table_update_bulk(struct rxr_flow_table *t,
		const struct rxr_flow_key *keys, const uint32_t *bytes,
		unsigned int n, struct rxr_flow_entry **out)
{
	uint32_t home[BULK_CHUNK];
	unsigned int untracked = 0;

	for (unsigned int base = 0; base < n; base += BULK_CHUNK) {
		unsigned int cnt = RTE_MIN(n - base, BULK_CHUNK);

		/* Every slot's miss at once, then the probes find them in cache. */
		for (unsigned int i = 0; i < cnt; i++) {
			home[i] = home_of(t, key_hash(&keys[base + i]));
			rte_prefetch0(&t->slots[home[i]]);
		}
		for (unsigned int i = 0; i < cnt; i++) {
			struct rxr_flow_entry *e = find_or_add(t, &keys[base + i],
					home[i]);

			out[base + i] = e;
			if (unlikely(e == NULL)) {
				untracked++;
				continue;
			}
			e->packets++;
			e->bytes += bytes[base + i];
		}
	}
	return untracked;
}

const struct rxr_flow_entry *
rxr_flow_table_next(const struct rxr_flow_table *t, uint32_t *pos)
{
	const uint32_t end = t->nb_slots + RXR_FLOW_TABLE_PROBE_MAX - 1;

	while (*pos < end) {
		const struct rxr_flow_entry *e = &t->slots[(*pos)++];

		if (e->seq != 0)
			return e;
	}
	return NULL;
}
