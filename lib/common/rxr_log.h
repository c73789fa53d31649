/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_LOG_H
#define RXR_LOG_H

/**
 * @file
 * Diagnostics of the rxrefill programs through rte_log: one logtype,
 * "rxrefill", so that EAL's --log-level=rxrefill:debug and its syslog
 * settings apply to them as to DPDK's own messages. Results (tables,
 * progress lines, reports) stay on stdout; only diagnostics go here.
 * Libraries return errors and log nothing on their own.
 */

#include <rte_log.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The "rxrefill" logtype, registered at start-up (level NOTICE). */
extern int rxr_logtype;

/**
 * Log one line at an rte_log level (ERR, WARNING, NOTICE, INFO, DEBUG):
 * "rxrefill: <message>\n". The message carries no trailing newline.
 */
#define RXR_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rxr_logtype, "rxrefill: " fmt "\n", \
		##__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* RXR_LOG_H */
