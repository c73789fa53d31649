/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_FLOW_LOG_H
#define RXR_FLOW_LOG_H

/**
 * @file
 * Deferred flow counting: a poll lcore appends each packet's flow key and
 * length to its own log, and a collector drains it into a rxr_flow_table,
 * in order. One thread appends; drains, from any thread, take the log's
 * lock, which append takes only when full.
 */

#include <stdint.h>

#include <rte_common.h>

#include "rxr_flow.h"
#include "rxr_flow_table.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Records a log holds by default: 4 ms of a poll lcore at 16 Mpps. */
#define RXR_FLOW_LOG_SIZE_DEFAULT 65536u
#define RXR_FLOW_LOG_SIZE_MIN 64u
#define RXR_FLOW_LOG_SIZE_MAX (1u << 24)

/** What a log did, since it was created or reset. */
struct rxr_flow_log_stats {
	uint64_t applied;		/**< records counted into the table */
	uint64_t applied_by_appender;	/**< of those, when the log was full */
	uint64_t untracked_packets;	/**< records the table had no room for */
	uint64_t untracked_bytes;
	uint64_t pending;		/**< appended, not yet applied */
};

struct rxr_flow_log;

/**
 * Make a log of @p size records (a power of 2 in the limits above) draining
 * into @p t. @return the log, or NULL with rte_errno EINVAL or ENOMEM.
 */
struct rxr_flow_log *rxr_flow_log_create(struct rxr_flow_table *t,
		uint32_t size, int socket_id);

/** Free a log (NULL is allowed); its table is the caller's. */
void rxr_flow_log_free(struct rxr_flow_log *l);

/** Append @p n (<= size) records; without room, the oldest are applied. */
void rxr_flow_log_append(struct rxr_flow_log *l,
		const struct rxr_flow_key *keys, const uint32_t *bytes,
		unsigned int n);

/** Apply up to @p max of the oldest records; @return records applied. */
unsigned int rxr_flow_log_drain(struct rxr_flow_log *l, unsigned int max);

/** The log's counters (pending as the drainers last saw it). */
void rxr_flow_log_stats(struct rxr_flow_log *l, struct rxr_flow_log_stats *s);

/** Drop pending records, zero the counters (nobody running; not the table). */
void rxr_flow_log_reset(struct rxr_flow_log *l);

#ifdef __cplusplus
}
#endif

#endif /* RXR_FLOW_LOG_H */
