/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_FLOW_TABLE_H
#define RXR_FLOW_TABLE_H

/**
 * @file
 * A per-lcore flow table: per-flow packet and byte counters, linear
 * probing over cache-line slots. Nothing is deleted, nothing moves. One
 * lcore updates a table; others read it between runs.
 */

#include <stdint.h>

#include <rte_common.h>

#include "rxr_flow.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Slots probed from a flow's home; beyond, its packets are untracked. */
#define RXR_FLOW_TABLE_PROBE_MAX 128u

/** Most flows a table holds (the sequence numbers are 32 bits). */
#define RXR_FLOW_TABLE_FLOWS_MAX (1u << 30)

/** One flow: a cache line. */
struct rxr_flow_entry {
	struct rxr_flow_key key;
	uint64_t packets;
	uint64_t bytes;
	uint32_t seq;			/**< arrival order from 1; 0: free */
	uint16_t consumer;		/**< (seq - 1) % nb_consumers */
	uint16_t pad;
} __rte_cache_aligned;

struct rxr_flow_table;

/**
 * Make a table for 1..RXR_FLOW_TABLE_FLOWS_MAX flows, faulted in; flows
 * get 1..65535 consumers round robin. Without hugepages a table of 2 MiB
 * or more is anonymous memory that may get transparent huge pages.
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
 * Count a burst: one packet and @p bytes[i] to the flow of @p keys[i];
 * out[i] gets its entry (a count may be undone through it) or NULL.
 * @return how many of the n packets were not counted.
 */
unsigned int rxr_flow_table_update_bulk(struct rxr_flow_table *t,
		const struct rxr_flow_key *keys, const uint32_t *bytes,
		unsigned int n, struct rxr_flow_entry **out);

/** The next entry from *@p pos (0 to start), in no order; NULL at the end. */
const struct rxr_flow_entry *rxr_flow_table_next(
		const struct rxr_flow_table *t, uint32_t *pos);

#ifdef __cplusplus
}
#endif

#endif /* RXR_FLOW_TABLE_H */
