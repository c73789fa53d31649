/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_FLOW_LOG_H
#define RXR_FLOW_LOG_H

/**
 * @file
 * Deferred flow counting. A poll lcore appends each packet's flow key and
 * length to a log of its own; another thread (the collector) drains the
 * log into a rxr_flow_table. When flows far outnumber the cache, counting
 * a packet costs a cache miss in the table; appending costs a sequential
 * store, so the miss falls on the collector instead of the poll loop.
 *
 * Nothing is lost and nothing waits on a collector that does not run: an
 * append that finds the log full drains the oldest records itself first
 * (the poll loop then pays for the table, as if it counted in place).
 * Records are applied in the order they were appended, so the table's
 * arrival order (its seq) is the poll lcore's.
 *
 * One thread appends. Any thread drains: drains take the log's lock, which
 * append takes only when the log is full. The table belongs to the log
 * while records may be pending: read it after rxr_flow_log_drain() with
 * no appender running.
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
/** The fewest records of a log. */
#define RXR_FLOW_LOG_SIZE_MIN 64u
/** The most records of a log. */
#define RXR_FLOW_LOG_SIZE_MAX (1u << 24)

/** What a log did, since it was created or reset. */
struct rxr_flow_log_stats {
	uint64_t applied;		/**< records counted into the table */
	/** Of those, records the appender drained itself (the log was full). */
	uint64_t applied_by_appender;
	uint64_t untracked_packets;	/**< records the table had no room for */
	uint64_t untracked_bytes;	/**< their bytes */
	uint64_t pending;		/**< appended, not yet applied */
};

/** A flow log (opaque). */
struct rxr_flow_log;

/**
 * Make a log of @p size records draining into @p t.
 *
 * @param size records, a power of 2 from RXR_FLOW_LOG_SIZE_MIN (64) to
 *   RXR_FLOW_LOG_SIZE_MAX (2^24).
 * @param socket_id NUMA socket of the appender, or SOCKET_ID_ANY.
 * @return the log, or NULL with rte_errno EINVAL or ENOMEM.
 */
struct rxr_flow_log *rxr_flow_log_create(struct rxr_flow_table *t,
		uint32_t size, int socket_id);

/** Free a log (NULL is allowed); its table is the caller's. */
void rxr_flow_log_free(struct rxr_flow_log *l);

/**
 * Append one record per packet: the flow of @p keys[i] gets one packet
 * and @p bytes[i] bytes. Called by the log's one appender. When the log
 * has no room for all @p n, the oldest records are applied first, here.
 *
 * @param n at most the log's size.
 */
void rxr_flow_log_append(struct rxr_flow_log *l,
		const struct rxr_flow_key *keys, const uint32_t *bytes,
		unsigned int n);

/**
 * Apply up to @p max of the oldest records to the table.
 *
 * @return records applied (0 when the log was empty).
 */
unsigned int rxr_flow_log_drain(struct rxr_flow_log *l, unsigned int max);

/** The log's counters (pending as the drainers last saw it). */
void rxr_flow_log_stats(struct rxr_flow_log *l, struct rxr_flow_log_stats *s);

/**
 * Drop every pending record and zero the counters. Only with no appender
 * and no drainer running (the table is not touched: reset it apart).
 */
void rxr_flow_log_reset(struct rxr_flow_log *l);

#ifdef __cplusplus
}
#endif

#endif /* RXR_FLOW_LOG_H */
