/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The out-of-line part of bh's section (the pcp's bh counter, the inline
 * part is in rxr_strategy.h), for the strategies whose owner guards its
 * caches with it (bh, recycle): an owner that meets a reclaim waits it
 * out, and the reclaim that empties an owner's caches from another thread
 * while keeping the owner out.
 */

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_pause.h>

#include "rxr_pool_private.h"

void
__rxr_pool_bh_wait(struct rxr_pcp *pcp)
{
	do {
		__atomic_store_n(&pcp->bh_count, pcp->bh_count - 1,
				__ATOMIC_RELEASE);
		while (__atomic_load_n(&pcp->drain_req, __ATOMIC_ACQUIRE) != 0)
			rte_pause();
		__atomic_store_n(&pcp->bh_count, pcp->bh_count + 1,
				__ATOMIC_RELAXED);
		rte_compiler_barrier();
	} while (__atomic_load_n(&pcp->drain_req, __ATOMIC_ACQUIRE) != 0);
}

/*
 * Empty an owner's caches from another thread when the owner takes no
 * atomics (Dekker's pattern with an asymmetric barrier): publish the
 * request, make every thread of the process execute a full barrier, then
 * read the owner's section counter. Zero: the owner is outside and will
 * see the request before it enters, so its caches are ours until the
 * request is cleared. Not zero: it is working (or stopping) with them;
 * wait until it leaves, as drain_all_pages() waits for every CPU's drain
 * (its section waits for nothing the reclaim holds, and an entry that
 * sees the request backs off). Left, the frames it held made an
 * allocation fail with the pool not empty.
 */
unsigned int
rxrp_bh_reclaim(struct rxr_pool *p, struct rxrp_lcore *ls,
		rxrp_lcore_reclaim_t own)
{
	struct rxr_pcp *pcp = ls->pcp;
	unsigned int got = 0;

	/*
	 * An owner that takes no atomics keeps its caches reclaimable by
	 * pairing the request word with a process-wide barrier: registered
	 * the first time it is needed. None: out of reach.
	 */
	if (p->remote_drain == 0)
		p->remote_drain = syscall(__NR_membarrier,
			MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0 ?
			1 : -1;
	if (p->remote_drain < 0)
		return 0;
	__atomic_store_n(&pcp->drain_req, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		goto out;
	/* Not its own: the owner itself would wait for ever. */
	while (__atomic_load_n(&pcp->bh_count, __ATOMIC_ACQUIRE) != 0 &&
			ls != rxrp_self_lcore(p))
		rte_pause();
	if (__atomic_load_n(&pcp->bh_count, __ATOMIC_ACQUIRE) == 0) {
		if (own != NULL)
			got = own(p, ls);
		got += pcp->count;
		rxr_pcp_drain(pcp);
	}
out:
	__atomic_store_n(&pcp->drain_req, 0, __ATOMIC_RELEASE);
	return got;
}
