/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The "rxrefill" logtype (rxr_log.h), the debug-check failure path
 * (rxr_common.h) and the spinlock's slow path (rxr_spinlock.h).
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "rxr_common.h"
#include "rxr_log.h"

/* As testpmd registers its own: "rxrefill", NOTICE unless --log-level says. */
RTE_LOG_REGISTER_DEFAULT(rxr_logtype, NOTICE);

void
rxr_debug_fail(const char *check, const char *file, int line,
		const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	/* One rte_log line (CRIT, the rxrefill logtype), then abort. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	RXR_LOG(CRIT, "debug check failed: %s: %s (%s:%d)", check, msg, file,
		line);
	fflush(stderr);
	abort();
}

#include "rxr_spinlock.h"

void
__rxr_spinlock_wait(struct rxr_spinlock *l)
{
	uint64_t t0 = rte_rdtsc();

	do {
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED) != 0)
			rte_pause();
	} while (!__rxr_spinlock_try(l));
	/* We hold the lock now: plain single-writer updates are safe. */
	RXR_STAT_ADD(l->stats.contended, 1);
	RXR_STAT_ADD(l->stats.wait_cycles, rte_rdtsc() - t0);
}
