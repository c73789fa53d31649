/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_CONTEXT_H
#define RXR_CONTEXT_H

/**
 * @file
 * Execution contexts: poll (an EAL lcore owning a pcp, NAPI softirq), task
 * (any other thread) and irq (a signal handler, bracketed by
 * rxr_irq_enter() / rxr_irq_exit()). No system call.
 */

#include <stdint.h>

#include <rte_atomic.h>
#include <rte_lcore.h>
#include <rte_per_lcore.h>

#ifdef __cplusplus
extern "C" {
#endif

RTE_DECLARE_PER_LCORE(uint32_t, rxr_irq_depth);

/** rxr_ctx_lcore: not learned yet (rxr_ctx_lcore_learn()). */
#define RXR_CTX_LCORE_UNKNOWN UINT32_MAX
/** rxr_ctx_lcore: no EAL lcore of a primary process, for good. */
#define RXR_CTX_LCORE_NONE (UINT32_MAX - 1)

/*
 * For the pools' inline dispatch: below RTE_MAX_LCORE, an EAL lcore of a
 * primary outside any handler; NONE, another thread of a primary; UNKNOWN
 * sends the calls out of line (to learn it, or a pool's own reasons).
 */
RTE_DECLARE_PER_LCORE(uint32_t, rxr_ctx_lcore);

/** Learn rxr_ctx_lcore (a handler and a secondary leave it unknown). */
void rxr_ctx_lcore_learn(void);

/** Mark entry into a signal handler that may use a pool. Async-signal-safe. */
static inline void
rxr_irq_enter(void)
{
	RTE_PER_LCORE(rxr_irq_depth)++;
	/* Out of poll context: the interrupted thread learns it again. */
	RTE_PER_LCORE(rxr_ctx_lcore) = RXR_CTX_LCORE_UNKNOWN;
	rte_compiler_barrier();
}

/** Mark exit from such a signal handler. */
static inline void
rxr_irq_exit(void)
{
	rte_compiler_barrier();
	RTE_PER_LCORE(rxr_irq_depth)--;
}

/** True inside a handler bracketed by rxr_irq_enter(). */
static inline int
rxr_in_irq(void)
{
	return RTE_PER_LCORE(rxr_irq_depth) != 0;
}

#ifdef __cplusplus
}
#endif

#endif /* RXR_CONTEXT_H */
