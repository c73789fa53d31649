/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The per-lcore IRQ depth and poll lcore id (rxr_context.h).
 */

#include <rte_eal.h>

#include "rxr_context.h"

RTE_DEFINE_PER_LCORE(uint32_t, rxr_irq_depth);
RTE_DEFINE_PER_LCORE(uint32_t, rxr_ctx_lcore) = RXR_CTX_LCORE_UNKNOWN;

void
rxr_ctx_lcore_learn(void)
{
	unsigned int lc = rte_lcore_id();
	enum rte_lcore_role_t role;

	/* The handler returns to a thread that may be in poll context; a
	 * secondary's lcore ids name the primary's lcores too. */
	if (rxr_in_irq() || rte_eal_process_type() != RTE_PROC_PRIMARY)
		return;
	/* No lcore (one that registers later is a task context to the
	 * inline paths; the strategies' own paths see its id). */
	role = lc < RTE_MAX_LCORE ? rte_eal_lcore_role(lc) : ROLE_OFF;
	RTE_PER_LCORE(rxr_ctx_lcore) = role == ROLE_RTE ||
		role == ROLE_SERVICE ? lc : RXR_CTX_LCORE_NONE;
}
