/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The layers around a strategy's entry points (enum rxrp_layer): the pool
 * (rxr_pool.c) and the zeroing policy (zeroing.c) install theirs here.
 */

#include <errno.h>

#include <rte_debug.h>

#include "rxr_pool_private.h"

int
rxrp_layer_push(struct rxr_pool *p, enum rxrp_layer l, rxr_pool_alloc_t alloc,
		rxr_pool_free_t free)
{
	if ((unsigned int)l < p->top || l >= RXRP_LAYER_MAX)
		return -EINVAL;
	p->below[l].alloc = p->fns.alloc;
	p->below[l].free = p->fns.free;
	rxrp_ops_set(p, alloc != NULL ? alloc : p->fns.alloc,
		free != NULL ? free : p->fns.free);
	p->top = l + 1;
	return 0;
}

void
rxrp_layer_pop(struct rxr_pool *p, enum rxrp_layer l)
{
	RTE_VERIFY(p->top == (unsigned int)l + 1);
	rxrp_ops_set(p, p->below[l].alloc, p->below[l].free);
	p->below[l] = (struct rxrp_fns){ NULL, NULL };
	/* Back to the outermost layer still installed (below[] not NULL). */
	while (p->top > RXRP_LAYER_STRATEGY + 1 &&
			p->below[p->top - 1].alloc == NULL)
		p->top--;
}
