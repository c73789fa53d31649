/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_FLOW_TABLE_H
#define RXR_FLOW_TABLE_H

/**
 * @file
 * A per-lcore flow table: per-flow packet and byte counters for a poll
 * loop, with room for millions of flows. Linear probing over cache-line
 * slots (key, counters, consumer): a packet of a known flow touches one
 * line, and a burst is hashed and prefetched before it probes so that its
 * misses overlap. A new flow takes a free slot within
 * RXR_FLOW_TABLE_PROBE_MAX of its home while the table holds fewer than
 * max_flows, else its packets are untracked. Nothing is deleted, nothing
 * moves. One lcore updates a table; others read it between runs.
 */

#include <stdint.h>

#include <rte_common.h>

#include "rxr_flow.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Slots probed from a flow's home slot. At a load factor of 1/2 a million
 * flows are displaced by a few tens at most: the window bounds a packet's
 * cost without leaving a flow without room in a table that is not full.
 */
#define RXR_FLOW_TABLE_PROBE_MAX 128u

/** Slots allocated per flow of max_flows: the load factor is at most 1/2. */
#define RXR_FLOW_TABLE_SLOTS_PER_FLOW 2u

/** Most flows a table holds (the sequence numbers are 32 bits). */
#define RXR_FLOW_TABLE_FLOWS_MAX (1u << 30)

/** One flow: a cache line. */
struct rxr_flow_entry {
	struct rxr_flow_key key;	/**< the flow */
	uint64_t packets;		/**< packets counted */
	uint64_t bytes;			/**< their bytes */
	/** 1 + the number of flows inserted before this one; 0: free slot. */
	uint32_t seq;
	/** (seq - 1) % nb_consumers: fixed for the life of the entry. */
	uint16_t consumer;
	uint16_t pad;			/**< zero */
} __rte_cache_aligned;

/** A flow table (opaque). */
struct rxr_flow_table;

/**
 * Make a table for up to @p max_flows flows, zeroed, faulted in: from
 * rte_malloc on @p socket_id, but without hugepages (EAL's memory is then
 * 4 KiB pages: a TLB miss per packet) a table of 2 MiB or more is
 * anonymous memory of its own that may get transparent huge pages (on the
 * creating thread's node, outside EAL's -m).
 *
 * @param max_flows 1..RXR_FLOW_TABLE_FLOWS_MAX.
 * @param nb_consumers 1..65535: flows are given consumers round robin in
 *   the order they arrive.
 * @param socket_id NUMA socket, or SOCKET_ID_ANY.
 * @return the table, or NULL with rte_errno EINVAL or ENOMEM.
 */
struct rxr_flow_table *rxr_flow_table_create(uint32_t max_flows,
		uint16_t nb_consumers, int socket_id);

/** Free a table (NULL is allowed). */
void rxr_flow_table_free(struct rxr_flow_table *t);

/** Forget every flow: the table is as created. */
void rxr_flow_table_reset(struct rxr_flow_table *t);

/** Flows in the table. */
uint32_t rxr_flow_table_count(const struct rxr_flow_table *t);

/**
 * Count a burst: one packet and @p bytes[i] bytes to the flow of
 * @p keys[i], inserted when new and there is room.
 * @param out out[i] receives the entry counted (which never moves: a count
 *   may be undone through it), or NULL when there was no room.
 * @return how many of the n packets were not counted (out[i] NULL).
 */
unsigned int rxr_flow_table_update_bulk(struct rxr_flow_table *t,
		const struct rxr_flow_key *keys, const uint32_t *bytes,
		unsigned int n, struct rxr_flow_entry **out);

/** The entry of a flow, or NULL when the table has none; counts nothing. */
const struct rxr_flow_entry *rxr_flow_table_lookup(
		const struct rxr_flow_table *t, const struct rxr_flow_key *key);

/**
 * Iterate over the entries, each once, in no order (seq gives arrival).
 * @param pos 0 to start; updated.
 * @return the next entry, or NULL at the end.
 */
const struct rxr_flow_entry *rxr_flow_table_next(
		const struct rxr_flow_table *t, uint32_t *pos);

#ifdef __cplusplus
}
#endif

#endif /* RXR_FLOW_TABLE_H */
