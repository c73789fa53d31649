/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The refill strategies, one line each. RXR_STRATEGY(ID, name) makes
 * RXR_STRATEGY_<ID> in enum rxr_strategy (rxr_strategy.h) and registers
 * rxrp_strategy_<name>, the table of operations strategy_<name>.c defines
 * (rxr_strategy.c). Users' strategies come in the order reports show them,
 * the test-only one last (RXR_STRATEGY_USER_MAX counts those before it).
 *
 * No include guard: every use defines RXR_STRATEGY, includes this file and
 * undefines it.
 */

RXR_STRATEGY(ZONE, zone)
RXR_STRATEGY(IRQSAVE, irqsave)
RXR_STRATEGY(BH, bh)
RXR_STRATEGY(RECYCLE, recycle)
RXR_STRATEGY(RSEQ, rseq)
RXR_STRATEGY(NONE, none)
