/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_COMMON_H
#define RXR_COMMON_H

/**
 * @file
 * The debug checks (meson option debug_checks, RXR_DEBUG=1; free
 * otherwise) and small helpers shared by every library.
 */

#include <stdint.h>
#include <inttypes.h>

#include <rte_common.h>
#include <rte_branch_prediction.h>

#include "rxr_build_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Log "rxrefill: debug check failed: <check>: <message> (<file>:<line>)"
 * at CRIT, then abort(). */
__rte_noreturn void rxr_debug_fail(const char *check, const char *file, int line,
		const char *fmt, ...) __rte_format_printf(4, 5);

/** Fail the named debug check with a printf-style message. */
#define RXR_DEBUG_FAIL(check, ...) \
	rxr_debug_fail(check, __FILE__, __LINE__, __VA_ARGS__)

/** A debug check; @p cond is not evaluated at all when RXR_DEBUG is 0. */
#define RXR_DEBUG_CHECK(cond, check, ...) do { \
	if (RXR_DEBUG && unlikely(!(cond))) \
		RXR_DEBUG_FAIL(check, __VA_ARGS__); \
} while (0)

/** Names of the debug checks, as printed when they fire. */
#define RXR_CHECK_DOUBLE_FREE	"double-free"
#define RXR_CHECK_FOREIGN	"foreign-frame"
#define RXR_CHECK_MISALIGNED	"misaligned-frame"
#define RXR_CHECK_BUDDY		"buddy-invariant"
#define RXR_CHECK_POISON	"poisoned-metadata"
#define RXR_CHECK_LIST		"list-corruption"
#define RXR_CHECK_STATE		"frame-state"

/** Round x up to a multiple of a (a > 0, not necessarily a power of two). */
static inline uint32_t
rxr_roundup(uint32_t x, uint32_t a)
{
	return (x + a - 1) / a * a;
}

#ifdef __cplusplus
}
#endif

#endif /* RXR_COMMON_H */
