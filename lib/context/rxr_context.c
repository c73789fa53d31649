/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The per-lcore IRQ depth (rxr_context.h).
 */

#include "rxr_context.h"

RTE_DEFINE_PER_LCORE(uint32_t, rxr_irq_depth);

