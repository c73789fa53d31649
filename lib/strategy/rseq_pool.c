/* SPDX-License-Identifier: BSD-3-Clause */

/* rseq's per-CPU pcps and stages, their reclaim from any thread, counters,
 * and what the process must give (x86_64, glibc's rseq area, membarrier). */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/membarrier.h>
#include <sys/syscall.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "rseq.h"
#include "rxr_log.h"

const char * const rxrp_rseq_counters[] = {
	"restarts", "migrations", "zone_fallback", "xfer_in", "xfer_out", NULL,
};

#if RSEQ_BUILT

intptr_t rxrp_rseq_off;

static void __attribute__((constructor))
rseq_off_init(void)
{
	rxrp_rseq_off = __rseq_offset;
}

/* Own every CPU's pcp (the top bit of its count, the sections in flight
 * restarted by membarrier's rseq fence until it holds), then empty pcps
 * and stages. Not in a handler. */
unsigned int
rxrp_rseq_drain(struct rxr_pool *p, struct rxrp_lcore *ls, bool quiet)
{
	struct rseq_pool *rp = rseq_pool_of(p);
	unsigned int got = 0;
	void *tmp[64];
	bool again;

	if (ls != NULL)
		return quiet ? rxrp_lcore_drain(p, ls) : 0;
	if (rp == NULL || rxr_in_irq())
		return 0;
	rxr_spinlock_lock(&rp->lock);
	do {
		again = false;
		for (unsigned int c = 0; c < rp->ncpu; c++)
			if (!(__atomic_load_n(&rp->pcp[c]->count,
					__ATOMIC_SEQ_CST) & RSEQ_LOCKED)) {
				__atomic_fetch_or(&rp->pcp[c]->count,
					RSEQ_LOCKED, __ATOMIC_SEQ_CST);
				again = true;
			}
		if (again && syscall(__NR_membarrier,
				MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ, 0, 0) != 0)
			RXR_LOG(ERR, "pool %s: membarrier rseq fence: %s",
				p->name, strerror(errno));
	} while (again);
	for (unsigned int c = 0; c < rp->ncpu; c++) {
		struct rxr_pcp *pc = rp->pcp[c];
		uint32_t k = __atomic_load_n(&pc->count, __ATOMIC_ACQUIRE) &
			~RSEQ_LOCKED;

		rseq_tsan_acquire(pc);
		if (k != 0) {
			rxr_zone_free_bulk(pc->zone, pc->frames, k);
			rseq_add(rp, c, RSEQ_C_DRAIN_FRAMES, k);
			got += k;
		}
		__atomic_store_n(&pc->count, 0, __ATOMIC_RELEASE);
	}
	for (unsigned int n = 0; n < p->nr_zones; n++) {
		struct rseq_xfer *x = &rp->xfer[n];
		unsigned int k;

		while ((k = RTE_MIN(rxrp_rseq_xfer_count(x),
				(unsigned int)RTE_DIM(tmp))) != 0 &&
				rxrp_rseq_xfer_take(x, tmp, k, tmp, 0) != 0) {
			rxr_zone_free_bulk(p->zone[n], tmp, k);
			got += k;
		}
	}
	rxr_spinlock_unlock(&rp->lock);
	return got;
}

/* What glibc and the kernel must give: checked before a pool is made. */
bool
rxrp_rseq_available(char *why, size_t len)
{
	if (__rseq_size < 20) {
		snprintf(why, len, "glibc registered no rseq area for this "
			"process (__rseq_size %u): the tunable "
			"glibc.pthread.rseq=0, or a kernel without rseq(2)",
			__rseq_size);
		return false;
	}
	if (rxrp_rseq_off != __rseq_offset) {
		snprintf(why, len, "the copy of __rseq_offset (%td) differs "
			"from glibc's (%td): this library's constructor did "
			"not run", rxrp_rseq_off, __rseq_offset);
		return false;
	}
	if (rseq_cpu_now(rxrp_rseq_off) < 0) {
		snprintf(why, len, "this thread's rseq area is not registered "
			"(cpu_id %d)", rseq_cpu_now(rxrp_rseq_off));
		return false;
	}
	if (syscall(__NR_membarrier,
			MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ, 0, 0) != 0) {
		snprintf(why, len, "membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_"
			"EXPEDITED_RSEQ): %s (Linux 5.10 or later), needed to "
			"empty other CPUs' caches", strerror(errno));
		return false;
	}
	return true;
}

#else /* !RSEQ_BUILT */

unsigned int
rxrp_rseq_drain(struct rxr_pool *p, struct rxrp_lcore *ls, bool quiet)
{
	return ls != NULL && quiet ? rxrp_lcore_drain(p, ls) : 0;
}

bool
rxrp_rseq_available(char *why, size_t len)
{
	snprintf(why, len, "its critical sections are written for x86_64 "
		"with glibc's <sys/rseq.h> (2.35 or later); not built for %s",
#if defined(__aarch64__)
		"aarch64"
#else
		"this architecture"
#endif
		);
	return false;
}

#endif /* RSEQ_BUILT */

void
rxrp_rseq_fini(struct rxr_pool *p)
{
	struct rseq_pool *rp = rseq_pool_of(p);

	if (rp == NULL)
		return;
	for (unsigned int c = 0; c < rp->ncpu; c++)
		rxr_pcp_destroy(rp->pcp[c]);
	for (unsigned int n = 0; n < RXR_POOL_MAX_NODES; n++)
		rte_free(rp->xfer[n].frames);
	rte_free(rp);
	p->priv = NULL;
}

/* A pcp per CPU, on the node of its poll lcore; a stage per node. */
int
rxrp_rseq_init(struct rxr_pool *p)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	struct rseq_pool *rp;

	rp = rte_zmalloc_socket("rxr_rseq", sizeof(*rp), RTE_CACHE_LINE_SIZE,
			p->conf.socket_id);
	if (rp == NULL)
		return -ENOMEM;
	p->priv = rp;
	rp->high = p->conf.high;
	rp->fits = p->conf.bulk ? rp->high : 1;
	rp->ncpu = conf > 0 ? RTE_MIN((unsigned int)conf,
		(unsigned int)RXRP_MAX_CPUS) : 1;
	rp->free_ncpu = p->nr_zones == 1 ? rp->ncpu : 0;
	for (unsigned int c = 0; c < rp->ncpu; c++) {
		/* A poll lcore's CPU takes its node, the others in turn. */
		unsigned int node = p->by_cpu[c] != NULL ? p->by_cpu[c]->node :
			c % p->nr_zones;

		rp->node[c] = node;
		rp->pcp[c] = rxr_pcp_create(p->zone[node], p->conf.high,
				p->conf.batch, rxr_zone_socket(p->zone[node]));
		if (rp->pcp[c] == NULL)
			return -rte_errno;
	}
	for (unsigned int n = 0; n < p->nr_zones; n++) {
		struct rseq_xfer *x = &rp->xfer[n];

		x->mask = rte_align32pow2(RSEQ_XFER_BATCHES * p->conf.batch) - 1;
		x->frames = rte_malloc_socket("rxr_rseq_xfer", (x->mask + 1) *
				sizeof(void *), RTE_CACHE_LINE_SIZE,
				rxr_zone_socket(p->zone[n]));
		if (x->frames == NULL)
			return -ENOMEM;
	}
	return 0;
}

uint64_t
rxrp_rseq_held(const struct rxr_pool *p, const struct rxrp_lcore *ls)
{
	const struct rseq_pool *rp = rseq_pool_of(p);
	uint64_t n = 0;

	if (ls != NULL || rp == NULL)
		return 0;
	for (unsigned int c = 0; c < rp->ncpu; c++)
		n += __atomic_load_n(&rp->pcp[c]->count, __ATOMIC_RELAXED) &
			~RSEQ_LOCKED;
	for (unsigned int k = 0; k < p->nr_zones; k++)
		n += rxrp_rseq_xfer_count(&rp->xfer[k]);
	return n;
}

/* A CPU's figures under its pinned poll lcore, else the first, so that
 * sums are the pool's; the slow paths' own moves are not callers'. */
#define CTR(c, id) (RXR_STAT_READ(rp->ctr[c].v[RSEQ_C_##id]) + \
	RXR_STAT_READ(rp->ctr[c].away[RSEQ_C_##id]))

void
rxrp_rseq_stats(const struct rxr_pool *p, const struct rxrp_lcore *ls,
		struct rxr_pool_lcore_stats *o)
{
	const struct rseq_pool *rp = rseq_pool_of(p);

	for (unsigned int c = 0; rp != NULL && c < rp->ncpu; c++) {
		const struct rxrp_lcore *owner = p->by_cpu[c] != NULL ?
			p->by_cpu[c] : p->first;
		struct rxr_pcp_stats s;

		if (owner != ls)
			continue;
		rxr_pcp_stats(rp->pcp[c], &s);
		o->pcp.alloc += s.alloc + CTR(c, ALLOC_ZONE_FRAMES) +
			CTR(c, XFER_ALLOC) - CTR(c, DRAIN_POPPED);
		o->pcp.alloc_miss += CTR(c, ALLOC_MISS);
		o->pcp.alloc_fail += CTR(c, ALLOC_FAIL);
		o->pcp.free += s.free - CTR(c, REFILL_PUSHED);
		o->pcp.free_drain += CTR(c, FREE_DRAIN);
		o->pcp.refill_frames += CTR(c, REFILL_FRAMES);
		o->pcp.alloc_zone_frames += CTR(c, ALLOC_ZONE_FRAMES);
		o->pcp.drain_frames += CTR(c, DRAIN_FRAMES);
		o->counters[0] += CTR(c, RESTARTS);
		o->counters[1] += CTR(c, MIGRATIONS);
		o->counters[2] += CTR(c, ZONE_FALLBACK);
		o->counters[3] += CTR(c, XFER_IN);
		o->counters[4] += CTR(c, XFER_OUT);
		o->remote_frees += CTR(c, REMOTE_FREES);
	}
}
