/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The strategies, one line each, in report order, the test-only one last:
 * RXR_STRATEGY(ID, name) makes RXR_STRATEGY_<ID> and registers the table
 * rxrp_strategy_<name> of strategy_<name>.c. No include guard.
 */

RXR_STRATEGY(ZONE, zone)
RXR_STRATEGY(IRQSAVE, irqsave)
RXR_STRATEGY(BH, bh)
RXR_STRATEGY(RECYCLE, recycle)
RXR_STRATEGY(RSEQ, rseq)
RXR_STRATEGY(NONE, none)
