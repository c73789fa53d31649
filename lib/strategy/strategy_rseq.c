/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rseq: tcmalloc's per-CPU slab (cpu_cache.h) over the kernel's pcp, one
 * per CPU, each access a restartable sequence (rseq_asm.h): the user-space
 * twin of the kernel's preempt_disable() pcp. rseq_alloc() and rseq_free()
 * are Allocate() and Deallocate(), one section on the thread's CPU;
 * rseq_refill() (Refill(), rmqueue_bulk) and rseq_overflow() (Overflow(),
 * free_pcppages_bulk) go through the node's transfer stage (tcmalloc's
 * transfer cache, rseq_xfer.c). doc/strategies.md says where it differs.
 */

#include <string.h>

#include "rseq.h"

#if RSEQ_BUILT

/* Restarts in a row before a call uses the zone. */
#define RSEQ_RETRIES 64u
/*
 * Batches one move to or from the stage takes (at most high - batch): a
 * move costs a cross-CPU miss or two whatever the count. bench_strategy's
 * remote round trip at bulk 32 over DPDK's user cache: 3.3 moving one
 * batch, 1.8 three, 1.5 five.
 */
#define RSEQ_XFER_MOVE 5u

/* Debug builds: each frame's zone told it entered (or left) a pcp. */
static inline void
rseq_debug(const struct rxr_pool *p, void * const *objs, unsigned int n,
		bool in)
{
	for (unsigned int i = 0; RXR_DEBUG && i < n; i++)
		rxr_zone_debug_pcp(p->zone[rxrp_frame_node(p, objs[i])],
			objs[i], in);
}

/* --- sections with retries: the slow paths' moves ------------------------ */

/* After a section that did not commit: restart or migration to count. */
static __rte_noinline __rte_cold void
rseq_count_retry(struct rseq_pool *rp, intptr_t rs, uint32_t cpu, int r)
{
	if (r == RSEQ_ABORTED)
		RSEQ_COUNT(rp, cpu, RSEQ_C_RESTARTS);
	if (rseq_cpu_start(rs) != cpu)
		RSEQ_COUNT(rp, cpu, RSEQ_C_MIGRATIONS);
}

/* A fast path's section that did not commit: what to count. */
static inline void
rseq_count_fast(struct rseq_pool *rp, intptr_t rs, uint32_t cpu0, int r0)
{
	if (cpu0 < rp->ncpu && (r0 == RSEQ_ABORTED ||
			(r0 == RSEQ_BAIL && rseq_cpu_start(rs) != cpu0)))
		rseq_count_retry(rp, rs, cpu0, r0);
}

/* rseq_take()'s node for a pop whose frames may go anywhere. */
#define RSEQ_ANY_NODE (-1)

/*
 * Pop n frames from the thread's CPU's pcp, if of @p node (or any), into
 * objs, or as offsets from base into offs when objs is NULL. @return 0,
 * -ENOBUFS when short with *cpu_out its CPU, -EAGAIN when no pcp served.
 */
static __rte_always_inline int
rseq_take(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
		int node, void **objs, uint32_t *offs, uintptr_t base,
		unsigned int n, uint32_t *cpu_out)
{
	for (unsigned int k = 0; k < RSEQ_RETRIES; k++) {
		uint32_t cpu = rseq_cpu_start(rs);
		struct rxr_pcp *pc;
		int r;

		*cpu_out = cpu;
		if (unlikely(cpu >= rp->ncpu) || (node != RSEQ_ANY_NODE &&
				rp->node[cpu] != (unsigned int)node))
			return -EAGAIN;
		pc = rp->pcp[cpu];
		if (objs == NULL)
			r = rseq_pop_off(rs, pc, cpu, offs, base, n);
		else
			r = n == 1 ? rseq_pop1(rs, pc, cpu, objs) :
				rseq_pop(rs, pc, cpu, objs, n);
		if (likely(r == RSEQ_DONE)) {
			rseq_tsan_acquire(pc);
			for (unsigned int i = 0; RXR_DEBUG && i < n; i++) {
				void *f = objs != NULL ? objs[i] :
					(void *)(base + offs[i]);

				rseq_debug(p, &f, 1, false);
			}
			return 0;
		}
		if (r == RSEQ_BAIL && rseq_cpu_now(rs) == (int32_t)cpu)
			return -ENOBUFS;
		if (rseq_cpu_now(rs) < 0)
			return -EAGAIN;		/* this thread has no rseq */
		rseq_count_retry(rp, rs, cpu, r);
	}
	return -EAGAIN;
}

enum { RSEQ_PUSHED, RSEQ_FULL, RSEQ_NO_PCP };

/* Push n frames of @p node onto the thread's CPU's pcp; RSEQ_FULL (no
 * room, *cpu_out its CPU) or RSEQ_NO_PCP: nothing done. */
static __rte_always_inline int
rseq_put(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
		unsigned int node, void * const *objs, unsigned int n,
		uint32_t *cpu_out)
{
	rseq_debug(p, objs, n, true);
	for (unsigned int k = 0; k < RSEQ_RETRIES; k++) {
		uint32_t cpu = rseq_cpu_start(rs);
		struct rxr_pcp *pc;
		int r;

		*cpu_out = cpu;
		if (unlikely(cpu >= rp->ncpu) || unlikely(rp->node[cpu] != node))
			break;
		pc = rp->pcp[cpu];
		rseq_tsan_release(pc);
		r = n == 1 ? rseq_push1(rs, pc, cpu, objs) :
			rseq_push(rs, pc, cpu, objs, n);
		if (likely(r == RSEQ_DONE))
			return RSEQ_PUSHED;
		if (r == RSEQ_BAIL && rseq_cpu_now(rs) == (int32_t)cpu) {
			rseq_debug(p, objs, n, false);
			return RSEQ_FULL;
		}
		if (rseq_cpu_now(rs) < 0)
			break;
		rseq_count_retry(rp, rs, cpu, r);
	}
	rseq_debug(p, objs, n, false);
	return RSEQ_NO_PCP;
}

/* --- the transfer stage (rseq_xfer.c) ----------------------------------- */

/* Frames one move to or from the stage takes: what leaves a batch of room. */
static inline uint32_t
rseq_xfer_move(const struct rxr_pcp *pc)
{
	return RTE_MAX(pc->batch, RTE_MIN(RSEQ_XFER_MOVE * pc->batch,
			pc->high - pc->batch));
}

/* Into node's stage, the rest to the zone. @return frames the stage took. */
static unsigned int
rseq_xfer_put(struct rxr_pool *p, struct rseq_pool *rp, unsigned int node,
		void * const *objs, unsigned int n, uint32_t cpu)
{
	unsigned int in = rxrp_rseq_xfer_put(&rp->xfer[node], p->off_base,
			objs, n);

	if (in < n) {
		rxrp_zone_free(p, objs + in, n - in);
		rseq_add(rp, cpu, RSEQ_C_DRAIN_FRAMES, n - in);
	}
	return in;
}

/*
 * n frames for the caller and up to @p more from node's stage, the extra
 * pushed onto the thread's CPU's pcp after the stage's lock (what does
 * not fit goes back). @return frames taken (0: fewer than n), *pushed of
 * them onto *cpu_out's pcp.
 */
static unsigned int
rseq_xfer_take(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
		unsigned int node, void **objs, unsigned int n,
		unsigned int more, unsigned int *pushed, uint32_t *cpu_out)
{
	void *tmp[RSEQ_TMP];
	unsigned int k = rxrp_rseq_xfer_take(&rp->xfer[node], objs, n, tmp,
			RTE_MIN(more, RSEQ_TMP));

	*pushed = 0;
	if (k > n && rseq_put(p, rp, rs, node, tmp, k - n,
			cpu_out) != RSEQ_PUSHED) {
		/* Back to the stage; what goes on to the zone is out. */
		rseq_add(rp, *cpu_out, RSEQ_C_XFER_OUT, k - n -
			rseq_xfer_put(p, rp, node, tmp, k - n, *cpu_out));
		return n;
	}
	*pushed = k > n ? k - n : 0;
	return k;
}

/* A drain's pop straight into the stage's slots (rxrp_rseq_xfer_fill()). */
struct rseq_fill {
	struct rxr_pool *p;
	struct rseq_pool *rp;
	intptr_t rs;
	unsigned int node;
	uint32_t cpu;		/* the CPU of the first pop */
	bool popped;
};

static unsigned int
rseq_fill(void *arg, void *slots, uintptr_t base, unsigned int n)
{
	struct rseq_fill *f = arg;
	uint32_t cpu;

	if (rseq_take(f->p, f->rp, f->rs, (int)f->node, base != 0 ? NULL :
			slots, slots, base, n, &cpu) != 0)
		return 0;
	if (!f->popped)
		f->cpu = cpu;
	f->popped = true;
	return n;
}

/* --- alloc: Allocate(), and Refill() when the pcp is short --------------- */

/* Calls served by the zone because no pcp could be used. */
static int
rseq_zone_alloc(struct rxr_pool *p, struct rseq_pool *rp, uint32_t cpu,
		void **objs, unsigned int n)
{
	RSEQ_COUNT(rp, cpu, RSEQ_C_ZONE_FALLBACK);
	return rxrp_zone_alloc(p, cpu < rp->ncpu ? rp->node[cpu] : 0, objs, n);
}

/* The pcp short: n frames and more for the pcp, from the stage when it
 * has n, else a batch from the zone (rmqueue_bulk). */
static __rte_noinline __rte_cold int
rseq_refill(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
		uint32_t cpu, void **objs, unsigned int n)
{
	struct rxr_pcp *pc = rp->pcp[cpu];
	unsigned int node = rp->node[cpu], got, rest;
	void *tmp[RSEQ_TMP];
	uint32_t to = cpu, c = __atomic_load_n(&pc->count, __ATOMIC_RELAXED);

	if (c & RSEQ_LOCKED)
		return rseq_zone_alloc(p, rp, cpu, objs, n);
	RSEQ_COUNT(rp, cpu, RSEQ_C_ALLOC_MISS);
	if (n + pc->batch > RSEQ_TMP) {
		if (rxrp_zone_alloc(p, node, objs, n) != 0)
			goto fail;
		rseq_add(rp, cpu, RSEQ_C_REFILL_FRAMES, n);
		rseq_add(rp, cpu, RSEQ_C_ALLOC_ZONE_FRAMES, n);
		return 0;
	}
	/* No more than the pcp has room for as it was. */
	got = rseq_xfer_take(p, rp, rs, node, objs, n,
			RTE_MIN(rseq_xfer_move(pc), pc->high - RTE_MIN(c, pc->high)),
			&rest, &to);
	if (got != 0) {
		/* Frames another CPU gave back: no zone transfer. */
		rseq_add(rp, cpu, RSEQ_C_XFER_OUT, got);
		rseq_add(rp, cpu, RSEQ_C_XFER_ALLOC, n);
		if (rest != 0)
			rseq_add(rp, to, RSEQ_C_REFILL_PUSHED, rest);
		return 0;
	}
	got = rxr_zone_alloc_bulk(p->zone[node], tmp, n, n + pc->batch);
	if (got == 0) {
		/* The zonelist: other nodes before failing. */
		if (rxrp_zone_alloc(p, node, objs, n) != 0)
			goto fail;
		rseq_add(rp, cpu, RSEQ_C_REFILL_FRAMES, n);
		rseq_add(rp, cpu, RSEQ_C_ALLOC_ZONE_FRAMES, n);
		return 0;
	}
	rseq_add(rp, cpu, RSEQ_C_REFILL_FRAMES, got);
	rseq_add(rp, cpu, RSEQ_C_ALLOC_ZONE_FRAMES, n);
	rest = got - n;
	memcpy(objs, tmp + rest, n * sizeof(*objs));
	if (rest == 0)
		return 0;
	if (rseq_put(p, rp, rs, node, tmp, rest, &cpu) == RSEQ_PUSHED)
		rseq_add(rp, cpu, RSEQ_C_REFILL_PUSHED, rest);
	else
		rxrp_zone_free(p, tmp, rest);
	return 0;
fail:
	RSEQ_COUNT(rp, cpu, RSEQ_C_ALLOC_FAIL);
	return -ENOBUFS;
}

/* Everything but one section that committed at the first try. */
static __rte_noinline int
rseq_alloc_slow(struct rxr_pool *p, void **objs, unsigned int n,
		uint32_t cpu0, int r0)
{
	struct rseq_pool *rp = rseq_pool_of(p);
	intptr_t rs = rxrp_rseq_off;
	uint32_t cpu;
	int ret;

	if (rxrp_per_frame(p, n))
		return rxrp_alloc_frames(p, objs, n);
	rseq_count_fast(rp, rs, cpu0, r0);
	if (unlikely(n > rp->high)) {
		/* More than any pcp holds: the zone (sections take n <= high). */
		ret = rxrp_zone_alloc(p, rp->node[rseq_cpu_start(rs) % rp->ncpu],
				objs, n);
	} else {
		ret = rseq_take(p, rp, rs, RSEQ_ANY_NODE, objs, NULL, 0, n,
				&cpu);
		if (ret == -ENOBUFS)
			ret = rseq_refill(p, rp, rs, cpu, objs, n);
		else if (ret != 0)
			ret = rseq_zone_alloc(p, rp, cpu, objs, n);
	}
	return likely(ret == 0) ? 0 : rxrp_alloc_failed(p, objs, n);
}

/* One section's pop, or RSEQ_BAIL beyond rp->fits (one frame always fits). */
static __rte_always_inline int
rseq_pop_n(const struct rseq_pool *rp, intptr_t rs, struct rxr_pcp *pc,
		uint32_t cpu, void **objs, unsigned int n)
{
	if (n == 1)
		return rseq_pop1(rs, pc, cpu, objs);
	if (unlikely(n - 1 >= rp->fits))
		return RSEQ_BAIL;
	return rseq_pop(rs, pc, cpu, objs, n);
}

static __rte_always_inline int
rseq_push_n(const struct rseq_pool *rp, intptr_t rs, struct rxr_pcp *pc,
		uint32_t cpu, void * const *objs, unsigned int n)
{
	if (n == 1)
		return rseq_push1(rs, pc, cpu, objs);
	if (unlikely(n - 1 >= rp->fits))
		return RSEQ_BAIL;
	return rseq_push(rs, pc, cpu, objs, n);
}

/* Allocate(): one section, no retry; anything else starts over, slow. */
static __rte_always_inline int
rseq_alloc_section(struct rxr_pool *p, void **objs, unsigned int n)
{
	struct rseq_pool *rp = rseq_pool_of(p);
	intptr_t rs = rxrp_rseq_off;
	uint32_t cpu = rseq_cpu_start(rs);
	int r = RSEQ_BAIL;

	if (likely(cpu < rp->ncpu)) {
		struct rxr_pcp *pc = rp->pcp[cpu];

		r = rseq_pop_n(rp, rs, pc, cpu, objs, n);
		if (likely(r == RSEQ_DONE)) {
			rseq_tsan_acquire(pc);
			rseq_debug(p, objs, n, false);
			return 0;
		}
	}
	return rseq_alloc_slow(p, objs, n, cpu, r);
}

static __rte_noinline int
rseq_alloc_burst(struct rxr_pool *p, void **objs, unsigned int n)
{
	return rseq_alloc_section(p, objs, n);
}

/* One frame as leaf code (no register to save), a burst by a jump. */
static int
rseq_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	if (likely(n == 1))
		return rseq_alloc_section(p, objs, 1);
	return rseq_alloc_burst(p, objs, n);
}

/* --- free: Deallocate(), and Overflow() when the pcp is full ------------- */

/*
 * The pcp full: pop what free_pcppages_bulk() would (batches, at least a
 * stage move) into the stage, the rest to the zone, then push. Off the
 * top: a section cannot move the coldest with one commit.
 */
static __rte_noinline __rte_cold void
rseq_overflow(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
		unsigned int node, void * const *objs, unsigned int n,
		uint32_t cpu)
{
	void *tmp[RSEQ_TMP];

	for (unsigned int tries = 0; tries < 4; tries++) {
		struct rxr_pcp *pc = rp->pcp[cpu];
		uint32_t c = __atomic_load_n(&pc->count, __ATOMIC_RELAXED);
		uint32_t k = 0, got_cpu;

		if (c & RSEQ_LOCKED)
			break;
		if (c + n > pc->high)
			k = RTE_MIN(RTE_MIN(RTE_MAX(rxr_roundup(c + n - pc->high,
				pc->batch), rseq_xfer_move(pc)), c), RSEQ_TMP);
		if (k != 0) {
			/* Straight into the stage; else through tmp. */
			struct rseq_fill f = { p, rp, rs, node, cpu, false };
			unsigned int in = rxrp_rseq_xfer_fill(&rp->xfer[node],
					p->off_base, k, rseq_fill, &f);

			got_cpu = f.cpu;
			if (in != 0)
				k = in;
			else if (rseq_take(p, rp, rs, (int)node, tmp, NULL,
					0, k, &got_cpu) == 0)
				in = rseq_xfer_put(p, rp, node, tmp, k, got_cpu);
			else
				k = 0;
			if (k != 0) {
				rseq_add(rp, got_cpu, RSEQ_C_XFER_IN, in);
				rseq_add(rp, got_cpu, RSEQ_C_DRAIN_POPPED, k);
				RSEQ_COUNT(rp, got_cpu, RSEQ_C_FREE_DRAIN);
			}
		}
		switch (rseq_put(p, rp, rs, node, objs, n, &cpu)) {
		case RSEQ_PUSHED:
			return;
		case RSEQ_NO_PCP:
			goto zone;
		default:
			break;
		}
		if (cpu >= rp->ncpu)
			break;
	}
zone:
	RSEQ_COUNT(rp, cpu, RSEQ_C_ZONE_FALLBACK);
	rxrp_zone_free(p, objs, n);
}

/* Frames of one node: onto the pcp of the CPU, if it is of that node. */
static void
rseq_free_node(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
		unsigned int node, void * const *objs, unsigned int n)
{
	uint32_t cpu;
	int r;

	if (unlikely(p->nr_zones > 1)) {
		cpu = rseq_cpu_start(rs);
		if (cpu >= rp->ncpu || rp->node[cpu] != node) {
			/* A pcp only holds frames of its zone. */
			rseq_add(rp, cpu, RSEQ_C_REMOTE_FREES, n);
			rxrp_zone_free(p, objs, n);
			return;
		}
	}
	/* More than any pcp holds: the zone (the sections take n <= high). */
	if (unlikely(n > rp->high)) {
		rxrp_zone_free(p, objs, n);
		return;
	}
	r = rseq_put(p, rp, rs, node, objs, n, &cpu);
	if (likely(r == RSEQ_PUSHED))
		return;
	if (r == RSEQ_FULL) {
		rseq_overflow(p, rp, rs, node, objs, n, cpu);
		return;
	}
	RSEQ_COUNT(rp, cpu, RSEQ_C_ZONE_FALLBACK);
	rxrp_zone_free(p, objs, n);
}

/* All but a first-try section; 0, for rseq_free()'s tail jump. */
static __rte_noinline int
rseq_free_slow(struct rxr_pool *p, void * const *objs, unsigned int n,
		uint32_t cpu0, int r0)
{
	struct rseq_pool *rp = rseq_pool_of(p);
	intptr_t rs = rxrp_rseq_off;

	if (rxrp_per_frame(p, n))
		return rxrp_free_frames(p, objs, n);
	rseq_count_fast(rp, rs, cpu0, r0);
	if (likely(p->nr_zones == 1)) {
		rseq_free_node(p, rp, rs, 0, objs, n);
		return 0;
	}
	/* Runs of one node: each goes where its frames belong. */
	for (unsigned int i = 0; i < n;) {
		unsigned int node = rxrp_frame_node(p, objs[i]), j = i + 1;

		while (j < n && rxrp_frame_node(p, objs[j]) == node)
			j++;
		rseq_free_node(p, rp, rs, node, objs + i, j - i);
		i = j;
	}
	return 0;
}

/* Deallocate(): as rseq_alloc(), one section of one node, else slow. */
static __rte_always_inline int
rseq_free_section(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rseq_pool *rp = rseq_pool_of(p);
	intptr_t rs = rxrp_rseq_off;
	uint32_t cpu = rseq_cpu_start(rs);
	int r = RSEQ_BAIL;

	if (likely(cpu < rp->free_ncpu)) {
		struct rxr_pcp *pc = rp->pcp[cpu];

		rseq_debug(p, objs, n, true);
		rseq_tsan_release(pc);
		r = rseq_push_n(rp, rs, pc, cpu, objs, n);
		if (likely(r == RSEQ_DONE))
			return 0;
		rseq_debug(p, objs, n, false);
	}
	return rseq_free_slow(p, objs, n, cpu, r);
}

static __rte_noinline int
rseq_free_burst(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	return rseq_free_section(p, objs, n);
}

static int
rseq_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	if (likely(n == 1))
		return rseq_free_section(p, objs, 1);
	return rseq_free_burst(p, objs, n);
}

#else /* !RSEQ_BUILT */

/* Never called: rxrp_rseq_available() refuses every pool. */
static int
rseq_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	return rxrp_zone_alloc(p, 0, objs, n);
}

static int
rseq_free(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	rxrp_zone_free(p, objs, n);
	return 0;
}

#endif /* RSEQ_BUILT */

const struct rxrp_strategy rxrp_strategy_rseq = {
	.name = "rseq",
	.alloc = rseq_alloc,
	.free = rseq_free,
	.init = rxrp_rseq_init,
	.fini = rxrp_rseq_fini,
	.drain = rxrp_rseq_drain,
	.held = rxrp_rseq_held,
	.stats = rxrp_rseq_stats,
	.counters = rxrp_rseq_counters,
	.available = rxrp_rseq_available,
};
