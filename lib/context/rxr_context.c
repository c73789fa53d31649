/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Execution context names and the per-lcore IRQ depth (rxr_context.h).
 */

#include "rxr_context.h"

RTE_DEFINE_PER_LCORE(uint32_t, rxr_irq_depth);

const char *
rxr_context_name(enum rxr_context ctx)
{
	static const char * const names[] = {
		[RXR_CTX_POLL] = "poll", [RXR_CTX_TASK] = "task",
		[RXR_CTX_IRQ] = "irq",
	};

	return ctx < RXR_CTX_MAX ? names[ctx] : "?";
}
