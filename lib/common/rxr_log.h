/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_LOG_H
#define RXR_LOG_H

/**
 * @file
 * Diagnostics through rte_log, logtype "rxrefill" (--log-level applies);
 * results stay on stdout.
 */

#include <rte_log.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The "rxrefill" logtype, registered at start-up (level NOTICE). */
extern int rxr_logtype;

/** Log "rxrefill: <fmt>\n" at an rte_log level; @p fmt has no newline. */
#define RXR_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, rxr_logtype, "rxrefill: " fmt "\n", \
		##__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* RXR_LOG_H */
