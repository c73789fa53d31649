/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rseq: one pcp per CPU (not per poll lcore), used by any thread on that
 * CPU - poll lcores, consumers, non-EAL threads, signal handlers - with no
 * lock, no atomic and no deferral. Each access is a restartable sequence
 * (rseq(2), on the area glibc registers for every thread): the kernel
 * restarts it at its abort handler when the thread is preempted, migrated
 * or signalled before the one store that commits it, so two contexts on a
 * CPU never interleave inside it. It is the user-space twin of the
 * kernel's preempt_disable() pcp: the same-CPU race of the 2017 pcp
 * regression (a free against a refill in another context) cannot happen.
 *
 * - alloc: load count, leave when it is below n, copy the top n frames out,
 *   store count - n (the commit).
 * - free: load count, leave when count + n is over high, copy n frames in
 *   (stores above count: nobody reads them until the commit), store
 *   count + n (the commit).
 * With bulk on a call is one section whatever n; with bulk off each frame
 * is its own section. Refills and drains start outside any section. With
 * a node's transfer stage they run a section of their own under the
 * stage's lock, straight between the stage's slots and the pcp of
 * whatever CPU the thread runs on by then (the CPU may have changed; a
 * restart redoes the copy into slots nobody reads until the count is
 * stored). With the zone, frames come under its lock, then go onto (or
 * come off) that pcp under a section again; what does not fit goes back.
 *
 * The pool's reclaim (an allocation would fail, quiesce, destroy) empties
 * every CPU's pcp from one thread: it sets the top bit of each count (a
 * section then finds its pcp "short" and "full" with the same comparisons
 * it makes anyway), restarts every section in flight with membarrier's
 * rseq fence, and owns the pcps once the bit survived a fence.
 *
 * Counters (per CPU, kept by the slow paths only): restarts (sections the
 * kernel aborted: preemption, a signal or a migration, which the kernel
 * does not tell apart), migrations (a restart or a start that found the
 * thread on another CPU than the one it read), zone_fallback (calls that
 * used the zone: pcp being reclaimed, thread without rseq, too many
 * restarts in a row), xfer_in and xfer_out (frames into and out of the
 * transfer stage).
 *
 * x86_64 only: other architectures are refused with the reason
 * (rxr_strategy_available()), as are processes where glibc did not
 * register rseq (glibc.pthread.rseq=0, an old kernel).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/membarrier.h>
#include <sys/syscall.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "rxr_pool_private.h"
#include "rxr_log.h"

#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define RSEQ_BUILT 1
#endif
#endif
#ifndef RSEQ_BUILT
#define RSEQ_BUILT 0
#endif

/*
 * ThreadSanitizer sees no access inside the sections: a push releases the
 * pcp and a pop acquires it, the order the sections give frames (and
 * their payloads) that pass through a pcp.
 */
#if defined(__SANITIZE_THREAD__)
#define RSEQ_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RSEQ_TSAN 1
#endif
#endif
#ifdef RSEQ_TSAN
#include <sanitizer/tsan_interface.h>
#define rseq_tsan_release(a) __tsan_release(a)
#define rseq_tsan_acquire(a) __tsan_acquire(a)
#else
#define rseq_tsan_release(a) do { } while (0)
#define rseq_tsan_acquire(a) do { } while (0)
#endif

/* Top bit of a pcp's count: a reclaim owns the pcp. */
#define RSEQ_LOCKED 0x80000000u
/* Most frames a slow path moves at once (stack buffer). */
#define RSEQ_TMP 512u
/* Restarts in a row before a call uses the zone. */
#define RSEQ_RETRIES 64u

enum { RSEQ_DONE, RSEQ_BAIL, RSEQ_ABORTED };

/*
 * Slow-path counters of one CPU. A thread on that CPU adds with one
 * unlocked add that is a section of its own (the kernel's this_cpu_add():
 * a preemption never splits it, and no other CPU adds there); a thread
 * that has left the CPU adds atomically to the away twin, and a reader
 * sums both. A locked add costs 20-60 cycles, and each move between a
 * pcp and the transfer stage counted four.
 */
enum rseq_ctr_id {
	RSEQ_C_RESTARTS,
	RSEQ_C_MIGRATIONS,
	RSEQ_C_ZONE_FALLBACK,
	RSEQ_C_XFER_IN,		/* frames drained into the transfer stage */
	RSEQ_C_XFER_OUT,	/* frames refilled from it */
	RSEQ_C_REMOTE_FREES,	/* frames of another node's zone */
	/* Moved by the slow paths' sections, not by callers' calls: left out
	 * of the pcp's alloc and free counts. */
	RSEQ_C_REFILL_PUSHED,
	RSEQ_C_DRAIN_POPPED,
	RSEQ_C_XFER_ALLOC,	/* handed to callers from the stage */
	/* The pcp's slow-path figures, struct rxr_pcp_stats' of the same
	 * names (its alloc and free are the fast sections' own adds). */
	RSEQ_C_ALLOC_MISS,
	RSEQ_C_ALLOC_FAIL,
	RSEQ_C_FREE_DRAIN,
	RSEQ_C_REFILL_FRAMES,
	RSEQ_C_ALLOC_ZONE_FRAMES,
	RSEQ_C_DRAIN_FRAMES,
	RSEQ_NR_CTR
};

struct rseq_ctr {
	uint64_t v[RSEQ_NR_CTR];	/* by threads on this CPU, unlocked */
	uint64_t away[RSEQ_NR_CTR];	/* by any other, atomic */
} __rte_cache_aligned;

static const char * const rseq_counter_names[] = {
	"restarts", "migrations", "zone_fallback", "xfer_in", "xfer_out", NULL,
};

/*
 * Between the pcps and the zone of one node, whole batches handed from the
 * CPUs that free to the CPUs that allocate (tcmalloc's transfer cache): a
 * consumer on another CPU than the poll fills its own CPU's pcp, whose
 * drain would otherwise give every frame to the buddy allocator and the
 * poll's refill take it back. A ring: drains (producers) and refills
 * (consumers) each serialize on a lock of their own side, and each side
 * publishes its index on a line of its own, so that a side's lock and
 * index stay on the CPU that moves frames there and only the published
 * indexes and the slots cross CPUs; a drain reads the refills' index only
 * when the one it saw last leaves too little room. One copy of the frames
 * per move on each side; never waited for in a signal handler. A pool
 * whose frames lie within 4 GiB keeps them there as 32-bit offsets from
 * the lowest, sixteen to a line instead of eight.
 */
#define RSEQ_XFER_BATCHES 16u
/*
 * Batches a drain gives the stage and a refill takes from it at once (at
 * most high - batch): a lock hold costs a cross-CPU miss or two whatever
 * the count, so the stage moves several batches (the zone still sees
 * single batches). bench_strategy's remote round trip at bulk 32 over
 * DPDK's user cache: 3.3 moving one batch, 1.8 three, 1.5 five.
 */
#define RSEQ_XFER_MOVE 5u
struct rseq_xfer {
	/* Read by both sides, written while the stage is empty. */
	uint32_t mask;			/* slots - 1, slots a power of two */
	/* Not 0: frames held as offsets from it (offs), else as pointers
	 * (frames). Set by a drain while the stage is empty. */
	uintptr_t base;
	union {
		void **frames;		/* [mask + 1], from tail to head */
		uint32_t *offs;
	};
	/* The drains' side. */
	struct rxr_spinlock plock __rte_cache_aligned;
	uint32_t head;			/* slots written (free-running) */
	uint32_t tail_seen;		/* tail_pub as last read */
	uint32_t head_pub __rte_cache_aligned;	/* head, once written */
	/* The refills' side. */
	struct rxr_spinlock clock __rte_cache_aligned;
	uint32_t tail;			/* slots read (free-running) */
	uint32_t tail_pub __rte_cache_aligned;	/* tail, once read */
} __rte_cache_aligned;

struct rseq_pool {
	/* Before the pcps: the fast paths' checks share the line of the
	 * first CPUs' pointers. */
	unsigned int ncpu;
	uint32_t high;				/* every pcp's: most n a section takes */
	/* ncpu with one zone, else 0: the free fast path's one test (with
	 * more, a pcp takes only its zone's frames, a slow path's check). */
	unsigned int free_ncpu;
	struct rxr_pcp *pcp[RXRP_MAX_CPUS];	/* by CPU number */
	struct rxr_spinlock lock;		/* one reclaim at a time */
	uint8_t node[RXRP_MAX_CPUS];		/* zone of each CPU's pcp */
	struct rseq_xfer xfer[RXR_POOL_MAX_NODES];
	struct rseq_ctr ctr[RXRP_MAX_CPUS];
};

/* The sections keep count at offset 0 and address the rest by offset. */
static_assert(offsetof(struct rxr_pcp, count) == 0,
	"struct rxr_pcp: the sections load count at offset 0");

static inline struct rseq_pool *
rseq_pool_of(const struct rxr_pool *p)
{
	return p->priv;
}

/* Debug builds: each frame's zone told it entered (or left) a pcp. */
static inline void
rseq_debug_move(const struct rxr_pool *p, void * const *objs, unsigned int n,
		void (*mark)(struct rxr_zone *, void *))
{
	if (RXR_DEBUG)
		for (unsigned int i = 0; i < n; i++)
			mark(p->zone[rxrp_frame_node(p, objs[i])], objs[i]);
}

#define rseq_debug_in(p, objs, n) \
	rseq_debug_move(p, objs, n, rxr_zone_debug_to_pcp)
#define rseq_debug_out(p, objs, n) \
	rseq_debug_move(p, objs, n, rxr_zone_debug_from_pcp)

#if RSEQ_BUILT

/*
 * The calling thread's struct rseq is at the thread pointer plus
 * __rseq_offset, the same for every thread: the sections and the reads
 * below address it through %fs with that offset. rseq_off is a copy made
 * before main() (the loader sets glibc's before any constructor runs):
 * one load from this library's data, not two through the GOT, and none
 * that waits for the pool's, on the way to the CPU number.
 */
static intptr_t rseq_off;

static void __attribute__((constructor))
rseq_off_init(void)
{
	rseq_off = __rseq_offset;
}

#define RSEQ_READ32(rs, field) __extension__ ({ \
	uint32_t v_; \
	asm volatile ("movl %%fs:%c[f](%[r]), %[v]" : [v] "=r" (v_) \
		: [r] "r" (rs), [f] "i" (offsetof(struct rseq, field))); \
	v_; })

static __rte_always_inline uint32_t
rseq_cpu_start(intptr_t rs)
{
	return RSEQ_READ32(rs, cpu_id_start);
}

/* Negative when the thread has no rseq registration. */
static __rte_always_inline int32_t
rseq_cpu_now(intptr_t rs)
{
	return (int32_t)RSEQ_READ32(rs, cpu_id);
}

/*
 * Every section's prologue: the descriptor of the section (struct rseq_cs:
 * version, flags, start ip, length, abort ip) in section __rseq_cs, the
 * arming store of its address into rseq_cs, the start (label 1), the check
 * that the thread still runs on CPU %[cpu], and the load of the pcp's
 * count into %[c]. Labels: 1 start, 2 post-commit, 4 abort (after the
 * signature), 9 the exit; %[ret] is RSEQ_BAIL from here on.
 */
#define RSEQ_ASM_START(scratch) \
	".pushsection __rseq_cs, \"aw\"\n\t" \
	".balign 32\n\t" \
	"3:\n\t" \
	".long 0x0, 0x0\n\t" \
	".quad 1f, (2f - 1f), 4f\n\t" \
	".popsection\n\t" \
	"movl $1, %[ret]\n\t" \
	"leaq 3b(%%rip), %" scratch "\n\t" \
	"movq %" scratch ", %%fs:%c[cs](%[rs])\n\t" \
	"1:\n\t" \
	"cmpl %k[cpu], %%fs:%c[cpuid](%[rs])\n\t" \
	"jnz 9f\n\t"
#define RSEQ_ASM_ENTER(scratch) \
	RSEQ_ASM_START(scratch) \
	"movl (%[pc]), %k[c]\n\t"

/*
 * A pop's start: leave when the pcp holds fewer than n (signed: a
 * reclaim's top bit set reads as short), else %[c] the new count and
 * %[src] the first frame to copy out.
 */
#define RSEQ_ASM_POP_START \
	RSEQ_ASM_ENTER("[src]") \
	"cmpl %k[n], %k[c]\n\t" \
	"jl 9f\n\t" \
	"subl %k[n], %k[c]\n\t" \
	"leaq %c[frames](%[pc],%[c],8), %[src]\n\t"

/* A pop's end, after the last read of a frame: the count, then done. */
#define RSEQ_ASM_POP_COMMIT \
	"addq %[n], %c[salloc](%[pc])\n\t" \
	"movl %k[c], (%[pc])\n\t"

/* The exit (label 9) and the abort handler, out of line: says aborted. */
#define RSEQ_ASM_EXIT \
	"9:\n\t" \
	".pushsection __rseq_failure, \"ax\"\n\t" \
	".long " RTE_STR(RSEQ_SIG) "\n\t" \
	"4:\n\t" \
	"movl $2, %[ret]\n\t" \
	"jmp 9b\n\t" \
	".popsection\n\t"

/* After the commit (label 2): done. */
#define RSEQ_ASM_LEAVE \
	"2:\n\t" \
	"movl $0, %[ret]\n\t" \
	RSEQ_ASM_EXIT

/* Every section's first inputs: the rseq area, the pcp, the CPU. */
#define RSEQ_ASM_IN(rs, pc, cpu) \
	[rs] "r" (rs), [pc] "r" (pc), [cpu] "r" (cpu)

/* Every section's last inputs: the offsets it uses. */
#define RSEQ_ASM_OFFSETS \
	[cs] "i" (offsetof(struct rseq, rseq_cs)), \
	[cpuid] "i" (offsetof(struct rseq, cpu_id)), \
	[frames] "i" (offsetof(struct rxr_pcp, frames)), \
	[high] "i" (offsetof(struct rxr_pcp, high)), \
	[salloc] "i" (offsetof(struct rxr_pcp, stats.alloc)), \
	[sfree] "i" (offsetof(struct rxr_pcp, stats.free))

/*
 * The steps of a copy of n frames (n >= 1): the first n % 4 one at a time
 * (@p one, element %q[ret] - 1), then four per step (@p four, elements
 * %q[ret] to %q[ret] + 3), in ascending order. Restartable: it only
 * writes where nobody reads until the commit. The index is %[ret]
 * (RSEQ_BAIL until the copy, set again by the commit or the abort), so
 * that the section needs no other general register than those it had: a
 * fast path without register saves. Labels 5-8.
 */
#define RSEQ_ASM_STEPS(one, four) \
	"movl %k[n], %k[ret]\n\t" \
	"andl $3, %k[ret]\n\t" \
	"jz 7f\n\t" \
	"6:\n\t" \
	one \
	"decq %q[ret]\n\t" \
	"jnz 6b\n\t" \
	"movl %k[n], %k[ret]\n\t" \
	"andl $3, %k[ret]\n\t" \
	"7:\n\t" \
	"cmpq %[n], %q[ret]\n\t" \
	"jae 8f\n\t" \
	"5:\n\t" \
	four \
	"addq $4, %q[ret]\n\t" \
	"cmpq %[n], %q[ret]\n\t" \
	"jb 5b\n\t" \
	"8:\n\t"

/*
 * Copy n frame pointers from %[from] to %[to], four per step in two SSE2
 * moves (the x86_64 baseline, no CPU-specific code). Uses %[v0], %[v1].
 */
#define RSEQ_ASM_COPY(from, to) RSEQ_ASM_STEPS( \
	"movq -8(%" from ",%q[ret],8), %[v0]\n\t" \
	"movq %[v0], -8(%" to ",%q[ret],8)\n\t", \
	"movdqu (%" from ",%q[ret],8), %[v0]\n\t" \
	"movdqu 16(%" from ",%q[ret],8), %[v1]\n\t" \
	"movdqu %[v0], (%" to ",%q[ret],8)\n\t" \
	"movdqu %[v1], 16(%" to ",%q[ret],8)\n\t")

/*
 * The same into 32-bit offsets at %[to]: each frame less the base (%[b],
 * and in both halves of %[vb]), four per step by keeping the low halves of
 * two SSE2 subtractions. Uses %[t], %[v0], %[v1].
 */
#define RSEQ_ASM_COPY_OFF(from, to) RSEQ_ASM_STEPS( \
	"movq -8(%" from ",%q[ret],8), %[t]\n\t" \
	"subq %[b], %[t]\n\t" \
	"movl %k[t], -4(%" to ",%q[ret],4)\n\t", \
	"movdqu (%" from ",%q[ret],8), %[v0]\n\t" \
	"movdqu 16(%" from ",%q[ret],8), %[v1]\n\t" \
	"psubq %[vb], %[v0]\n\t" \
	"psubq %[vb], %[v1]\n\t" \
	"shufps $0x88, %[v1], %[v0]\n\t" \
	"movdqu %[v0], (%" to ",%q[ret],4)\n\t")

/*
 * *ctr += v, the add being the section's commit: done when the thread runs
 * on @p cpu from the check to the add, else nothing (another CPU, or
 * preempted, migrated or signalled before the add). @return true when
 * added.
 */
static __rte_always_inline bool
rseq_add_on(intptr_t rs, uint32_t cpu, uint64_t *ctr, uint64_t v)
{
	unsigned long scratch;
	int ret;

	asm volatile(
		RSEQ_ASM_START("[s]")
		"addq %[v], (%[ctr])\n\t"
		RSEQ_ASM_LEAVE
		: [ret] "=&r" (ret), [s] "=&r" (scratch)
		: [rs] "r" (rs), [cpu] "r" (cpu), [ctr] "r" (ctr), [v] "r" (v),
		  [cs] "i" (offsetof(struct rseq, rseq_cs)),
		  [cpuid] "i" (offsetof(struct rseq, cpu_id))
		: "memory", "cc");
	return ret == 0;
}

/* Count v on CPU cpu's counter id (a CPU out of range: the last one's). */
static __rte_always_inline void
rseq_add(struct rseq_pool *rp, uint32_t cpu, enum rseq_ctr_id id, uint64_t v)
{
	struct rseq_ctr *ct = &rp->ctr[RTE_MIN(cpu, rp->ncpu - 1)];

	if (unlikely(!rseq_add_on(rseq_off, cpu, &ct->v[id], v)))
		__atomic_fetch_add(&ct->away[id], v, __ATOMIC_RELAXED);
}

#define RSEQ_COUNT(rp, cpu, id) rseq_add(rp, cpu, id, 1)

/* Calls served by the zone because no pcp could be used. */
static int
rseq_zone_alloc(struct rxr_pool *p, struct rseq_pool *rp, uint32_t cpu,
		void **objs, unsigned int n)
{
	RSEQ_COUNT(rp, cpu, RSEQ_C_ZONE_FALLBACK);
	return rxrp_zone_alloc(p, cpu < rp->ncpu ? rp->node[cpu] : 0, objs, n,
			true);
}

/* Two 16-byte registers for RSEQ_ASM_COPY. */
typedef long long rseq_v2di __attribute__((vector_size(16)));

/*
 * Pop the top n (1 <= n <= high) frames of CPU cpu's pcp into objs, objs[n - 1] the
 * hottest. The commit is the store of the new count, after the last load
 * of a frame; stats.alloc is one add just before it (a restart between
 * the two counts the frames twice, nothing else).
 * RXRP_RSEQ_PLANT_EARLY_COMMIT (test builds only) commits before the
 * copy, the bug the stress test must catch: a context that interrupts
 * the copy pushes over the slots still being read.
 */
static __rte_always_inline int
rseq_pop(intptr_t rs, struct rxr_pcp *pc, uint32_t cpu, void **objs,
		unsigned long n)
{
	unsigned long c, src;
	rseq_v2di v0, v1;
	int ret;

	asm volatile(
		RSEQ_ASM_POP_START
#ifdef RXRP_RSEQ_PLANT_EARLY_COMMIT
		RSEQ_ASM_POP_COMMIT
		"2:\n\t"
		RSEQ_ASM_COPY("[src]", "[objs]")
		"movl $0, %[ret]\n\t"
		RSEQ_ASM_EXIT
#else
		RSEQ_ASM_COPY("[src]", "[objs]")
		RSEQ_ASM_POP_COMMIT
		RSEQ_ASM_LEAVE
#endif
		: [ret] "=&r" (ret), [c] "=&r" (c), [src] "=&r" (src),
		  [v0] "=&x" (v0), [v1] "=&x" (v1)
		: RSEQ_ASM_IN(rs, pc, cpu),
		  [objs] "r" (objs), [n] "r" (n), RSEQ_ASM_OFFSETS
		: "memory", "cc");
	return ret;
}

/*
 * rseq_pop() into 32-bit offsets from @p base (every frame of the pcp lies
 * less than 4 GiB above it): the transfer stage's form for such pools.
 */
static __rte_always_inline int
rseq_pop_off(intptr_t rs, struct rxr_pcp *pc, uint32_t cpu, uint32_t *offs,
		uintptr_t base, unsigned long n)
{
	unsigned long c, src, t;
	rseq_v2di v0, v1, vb = { (long long)base, (long long)base };
	int ret;

	asm volatile(
		RSEQ_ASM_POP_START
		RSEQ_ASM_COPY_OFF("[src]", "[offs]")
		RSEQ_ASM_POP_COMMIT
		RSEQ_ASM_LEAVE
		: [ret] "=&r" (ret), [c] "=&r" (c), [src] "=&r" (src),
		  [t] "=&r" (t), [v0] "=&x" (v0), [v1] "=&x" (v1)
		: RSEQ_ASM_IN(rs, pc, cpu),
		  [offs] "r" (offs), [n] "r" (n), [b] "r" (base),
		  [vb] "x" (vb), RSEQ_ASM_OFFSETS
		: "memory", "cc");
	return ret;
}

/*
 * Push n (1 <= n <= high) frames onto CPU cpu's pcp, objs[n - 1] the hottest. The
 * frames are stored above count (no commit: nobody reads there), then
 * count + n is stored (the commit).
 */
static __rte_always_inline int
rseq_push(intptr_t rs, struct rxr_pcp *pc, uint32_t cpu,
		void * const *objs, unsigned long n)
{
	unsigned long c, dst;
	rseq_v2di v0, v1;
	int ret;

	asm volatile(
		RSEQ_ASM_ENTER("[dst]")
		"leaq %c[frames](%[pc],%[c],8), %[dst]\n\t"
		"addl %k[n], %k[c]\n\t"
		/* Unsigned: full, or a reclaim's top bit set. */
		"cmpl %c[high](%[pc]), %k[c]\n\t"
		"ja 9f\n\t"
		RSEQ_ASM_COPY("[objs]", "[dst]")
		"addq %[n], %c[sfree](%[pc])\n\t"
		"movl %k[c], (%[pc])\n\t"
		RSEQ_ASM_LEAVE
		: [ret] "=&r" (ret), [c] "=&r" (c), [dst] "=&r" (dst),
		  [v0] "=&x" (v0), [v1] "=&x" (v1)
		: RSEQ_ASM_IN(rs, pc, cpu),
		  [objs] "r" (objs), [n] "r" (n), RSEQ_ASM_OFFSETS
		: "memory", "cc");
	return ret;
}

/*
 * One frame (the per-frame calls of bulk off, a PMD's one-mbuf refill):
 * the same sections without the loop, in fewer registers.
 */
static __rte_always_inline int
rseq_pop1(intptr_t rs, struct rxr_pcp *pc, uint32_t cpu, void **objs)
{
	unsigned long c, d;
	int ret;

	asm volatile(
		RSEQ_ASM_ENTER("[d]")
		"cmpl $1, %k[c]\n\t"
		"jl 9f\n\t"
		"decl %k[c]\n\t"
		"movq %c[frames](%[pc],%[c],8), %[d]\n\t"
		"movq %[d], (%[objs])\n\t"
#ifdef RXRP_RSEQ_PLANT_EARLY_COMMIT
		/* The planted bug needs a read after the commit: here, one. */
		"incq %c[salloc](%[pc])\n\t"
		"movl %k[c], (%[pc])\n\t"
		"2:\n\t"
		"movq %c[frames](%[pc],%[c],8), %[d]\n\t"
		"movq %[d], (%[objs])\n\t"
		"movl $0, %[ret]\n\t"
		RSEQ_ASM_EXIT
#else
		"incq %c[salloc](%[pc])\n\t"
		"movl %k[c], (%[pc])\n\t"
		RSEQ_ASM_LEAVE
#endif
		: [ret] "=&r" (ret), [c] "=&r" (c), [d] "=&r" (d)
		: RSEQ_ASM_IN(rs, pc, cpu),
		  [objs] "r" (objs), RSEQ_ASM_OFFSETS
		: "memory", "cc");
	return ret;
}

static __rte_always_inline int
rseq_push1(intptr_t rs, struct rxr_pcp *pc, uint32_t cpu, void * const *objs)
{
	unsigned long c, e, d;
	int ret;

	asm volatile(
		RSEQ_ASM_ENTER("[d]")
		"leal 1(%q[c]), %k[e]\n\t"
		"cmpl %c[high](%[pc]), %k[e]\n\t"
		"ja 9f\n\t"
		"movq (%[objs]), %[d]\n\t"
		"movq %[d], %c[frames](%[pc],%[c],8)\n\t"
		"incq %c[sfree](%[pc])\n\t"
		"movl %k[e], (%[pc])\n\t"
		RSEQ_ASM_LEAVE
		: [ret] "=&r" (ret), [c] "=&r" (c), [e] "=&r" (e), [d] "=&r" (d)
		: RSEQ_ASM_IN(rs, pc, cpu),
		  [objs] "r" (objs), RSEQ_ASM_OFFSETS
		: "memory", "cc");
	return ret;
}

/* After a section that did not commit: restart or migration to count. */
static __rte_noinline __rte_cold void
rseq_count_retry(struct rseq_pool *rp, intptr_t rs, uint32_t cpu,
		int r)
{
	if (r == RSEQ_ABORTED)
		RSEQ_COUNT(rp, cpu, RSEQ_C_RESTARTS);
	if (rseq_cpu_start(rs) != cpu)
		RSEQ_COUNT(rp, cpu, RSEQ_C_MIGRATIONS);
}

/* rseq_take()'s node for a pop whose frames may go anywhere. */
#define RSEQ_ANY_NODE (-1)

/* Debug builds: rseq_debug_out() for frames popped into offsets. */
static inline void
rseq_debug_out_off(const struct rxr_pool *p, const uint32_t *offs,
		uintptr_t base, unsigned int n)
{
	for (unsigned int i = 0; RXR_DEBUG && i < n; i++) {
		void *f = (void *)(base + offs[i]);

		rseq_debug_out(p, &f, 1);
	}
}

/*
 * Pop n frames from the pcp of the CPU the thread runs on, if that CPU is
 * of node @p node (or node is RSEQ_ANY_NODE), into objs, or into offs as
 * offsets from base when objs is NULL. @return 0, or -ENOBUFS when it is
 * short (or reclaimed) with *cpu the CPU it was, or -EAGAIN when no pcp
 * could be used (*cpu: the last CPU read).
 */
static __rte_always_inline int
rseq_take_to(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
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
			if (objs == NULL)
				rseq_debug_out_off(p, offs, base, n);
			else
				rseq_debug_out(p, objs, n);
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

static __rte_always_inline int
rseq_take(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs, int node,
		void **objs, unsigned int n, uint32_t *cpu_out)
{
	return rseq_take_to(p, rp, rs, node, objs, NULL, 0, n, cpu_out);
}

enum { RSEQ_PUSHED, RSEQ_FULL, RSEQ_NO_PCP };

/*
 * Push n frames of node @p node onto the pcp of the CPU the thread runs
 * on. RSEQ_FULL: that pcp has no room (or is being reclaimed), *cpu_out
 * the CPU; RSEQ_NO_PCP: no pcp could be used. Not pushed: nothing done.
 */
static __rte_always_inline int
rseq_put(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
		unsigned int node, void * const *objs, unsigned int n,
		uint32_t *cpu_out)
{
	rseq_debug_in(p, objs, n);
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
			rseq_debug_out(p, objs, n);
			return RSEQ_FULL;
		}
		if (rseq_cpu_now(rs) < 0)
			break;
		rseq_count_retry(rp, rs, cpu, r);
	}
	rseq_debug_out(p, objs, n);
	return RSEQ_NO_PCP;
}

/* Frames one move to or from the stage takes: what leaves a batch of room. */
static inline uint32_t
rseq_xfer_move(const struct rxr_pcp *pc)
{
	return RTE_MAX(pc->batch, RTE_MIN(RSEQ_XFER_MOVE * pc->batch,
			pc->high - pc->batch));
}

/*
 * A line this side will write, maybe last written on another CPU: asked
 * for with intent to write while other misses are outstanding. Not
 * rte_prefetch0_write(): built for DPDK's baseline (-march=corei7) it is a
 * plain prefetcht0; prefetchw is a no-op on CPUs without it.
 */
static __rte_always_inline void
rseq_prefetchw(const void *a)
{
	asm volatile("prefetchw %0" : : "m" (*(const char *)a));
}

/*
 * The slots a refill reads, last written on the other CPU: asked for all
 * at once before its index is read, so that the misses overlap. Slots a
 * drain writes are not asked for: its stores wait for their lines in the
 * store buffer, behind the caller's back, where prefetching them made the
 * remote trip slower (doc/strategies.md).
 */
static __rte_always_inline void
rseq_xfer_prefetch(struct rseq_xfer *x, uint32_t from, uint32_t n)
{
	/* Unlocked: the form may change meanwhile, a hint still. */
	size_t sz = __atomic_load_n(&x->base, __ATOMIC_RELAXED) != 0 ?
		sizeof(*x->offs) : sizeof(*x->frames);
	const char *a, *end;
	uint32_t at = from & x->mask, k;

	n = RTE_MIN(n, x->mask + 1);
	k = RTE_MIN(n, x->mask + 1 - at);
	a = RTE_PTR_ALIGN_FLOOR((const char *)x->frames + at * sz,
			RTE_CACHE_LINE_SIZE);
	end = (const char *)x->frames + (at + k) * sz;

	for (; a < end; a += RTE_CACHE_LINE_SIZE)
		rte_prefetch0(a);
	end = (const char *)x->frames + (n - k) * sz;
	for (a = (const char *)x->frames; a < end; a += RTE_CACHE_LINE_SIZE)
		rte_prefetch0(a);
}

/*
 * Under the drains' lock: whether p's frames can go in now, the stage
 * taking the form the pool allows while it is empty (offsets from another
 * base, or pointers, once a region added since moved the lowest frame or
 * the span past 4 GiB, and the last offsets are out). Empty: every slot
 * written has been read, the refills' index says so.
 */
static inline bool
rseq_xfer_form(const struct rxr_pool *p, struct rseq_xfer *x)
{
	uintptr_t base = p->off_base;

	if (likely(x->base == base))
		return true;
	if (x->head == __atomic_load_n(&x->tail_pub, __ATOMIC_ACQUIRE)) {
		__atomic_store_n(&x->base, base, __ATOMIC_RELAXED);
		return true;
	}
	return x->base == 0;
}

/*
 * Under the drains' lock: room for k slots after head, reading the
 * refills' index only when the one seen last leaves too little.
 */
static __rte_always_inline bool
rseq_xfer_room(struct rseq_xfer *x, uint32_t k)
{
	if (x->mask + 1 - (x->head - x->tail_seen) >= k)
		return true;
	x->tail_seen = __atomic_load_n(&x->tail_pub, __ATOMIC_ACQUIRE);
	return x->mask + 1 - (x->head - x->tail_seen) >= k;
}

/* Under the drains' lock: k slots written after head, for the refills. */
static __rte_always_inline void
rseq_xfer_publish(struct rseq_xfer *x, uint32_t k)
{
	x->head += k;
	__atomic_store_n(&x->head_pub, x->head, __ATOMIC_RELEASE);
}

/* n frames into the slots from @p at (free-running), in the stage's form. */
static __rte_always_inline void
rseq_xfer_store(struct rseq_xfer *x, uint32_t at, void * const *objs,
		unsigned int n)
{
	uintptr_t base = x->base;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t s = (at + i) & x->mask;

		if (base == 0)
			x->frames[s] = objs[i];
		else
			x->offs[s] = (uint32_t)((uintptr_t)objs[i] - base);
	}
}

/* n frames out of the slots from @p at (free-running), form @p base. */
static __rte_always_inline void
rseq_xfer_load(const struct rseq_xfer *x, uintptr_t base, uint32_t at,
		void **objs, unsigned int n)
{
	uint32_t s = at & x->mask, k = RTE_MIN(n, x->mask + 1 - s);

	if (base == 0) {
		memcpy(objs, &x->frames[s], k * sizeof(*objs));
		memcpy(objs + k, &x->frames[0], (n - k) * sizeof(*objs));
		return;
	}
	for (unsigned int i = 0; i < k; i++)
		objs[i] = (void *)(base + x->offs[s + i]);
	for (unsigned int i = k; i < n; i++)
		objs[i] = (void *)(base + x->offs[i - k]);
}

static void rseq_xfer_return(struct rxr_pool *p, struct rseq_pool *rp,
		unsigned int node, void * const *objs, unsigned int n,
		uint32_t cpu);

/*
 * The pcp was short: n frames for the caller and up to more for a pcp from
 * node's transfer stage, the oldest first. Under the refills' lock, n go
 * to the caller and the rest into @p tmp (RSEQ_TMP frames), and the index
 * gives up both; after it, a section pushes the rest onto the pcp of the
 * CPU the thread is on (if of that node), so that the hold is the stage's
 * lines crossing and nothing else. What the pcp has no room for goes
 * back. @return frames taken (0: fewer than n there, or a handler, which
 * never waits for the lock), *pushed of them onto *cpu_out's pcp.
 */
static unsigned int
rseq_xfer_refill(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
		unsigned int node, void **objs, unsigned int n,
		unsigned int more, void **tmp, unsigned int *pushed,
		uint32_t *cpu_out)
{
	struct rseq_xfer *x = &rp->xfer[node];
	uint32_t t, h, rest;
	uintptr_t base;

	*pushed = 0;
	if (rxr_in_irq())
		return 0;
	/* The slots first: their address needs only this side's index. */
	t = __atomic_load_n(&x->tail, __ATOMIC_RELAXED);
	rseq_xfer_prefetch(x, t, n + RTE_MIN(more, RSEQ_TMP));
	rseq_prefetchw(&x->clock);
	h = __atomic_load_n(&x->head_pub, __ATOMIC_ACQUIRE);
	if (h - t < n || h - t > x->mask + 1)
		return 0;
	rxr_spinlock_lock(&x->clock);
	t = x->tail;
	h = __atomic_load_n(&x->head_pub, __ATOMIC_ACQUIRE);
	if (h - t < n) {
		rxr_spinlock_unlock(&x->clock);
		return 0;
	}
	/* After head_pub: the form its slots were written in. */
	base = __atomic_load_n(&x->base, __ATOMIC_RELAXED);
	rest = RTE_MIN(RTE_MIN(h - t - n, more), RSEQ_TMP);
	rseq_xfer_load(x, base, t, objs, n);
	rseq_xfer_load(x, base, t + n, tmp, rest);
	/* Atomic: the unlocked look reads it. */
	__atomic_store_n(&x->tail, t + n + rest, __ATOMIC_RELAXED);
	__atomic_store_n(&x->tail_pub, t + n + rest, __ATOMIC_RELEASE);
	rxr_spinlock_unlock(&x->clock);
	if (rest != 0 && rseq_put(p, rp, rs, node, tmp, rest,
			cpu_out) != RSEQ_PUSHED) {
		rseq_xfer_return(p, rp, node, tmp, rest, *cpu_out);
		rest = 0;
	}
	*pushed = rest;
	return n + rest;
}

/*
 * The pcp was full: k frames off the top of the pcp of the CPU the thread
 * is on (if of node) straight into node's transfer stage, under the
 * drains' lock: a section pops them (as offsets when that is the stage's
 * form) into the slots after head, which no refill reads until head is
 * published, so a restart pops again into the same slots; a second
 * section where the slots wrap. The pcp may not be the one that was full
 * (a migration): what matters is that it has the frames. @return frames
 * moved (*cpu_out the CPU popped; fewer than k when the second section
 * found the pcp short), -ENOSPC when the stage has no room for k, cannot
 * take p's frames in its form yet, or this is a handler (which never
 * waits for the lock), or rseq_take()'s error.
 */
static int
rseq_xfer_drain(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
		unsigned int node, unsigned int k, uint32_t *cpu_out)
{
	struct rseq_xfer *x = &rp->xfer[node];
	int ret = -ENOSPC;

	if (rxr_in_irq())
		return -ENOSPC;
	rxr_spinlock_lock(&x->plock);
	if (rseq_xfer_room(x, k) && rseq_xfer_form(p, x)) {
		uint32_t at = x->head & x->mask;
		unsigned int part = RTE_MIN(k, x->mask + 1 - at), done = 0;
		uint32_t cpu2;

		while (done < k) {
			int r;

			if (x->base != 0)
				r = rseq_take_to(p, rp, rs, (int)node, NULL,
					&x->offs[at], x->base, part,
					done == 0 ? cpu_out : &cpu2);
			else
				r = rseq_take(p, rp, rs, (int)node,
					&x->frames[at], part,
					done == 0 ? cpu_out : &cpu2);
			if (r != 0) {
				if (done == 0)
					ret = r;
				break;
			}
			done += part;
			at = 0;
			part = k - done;
		}
		if (done != 0) {
			rseq_xfer_publish(x, done);
			ret = (int)done;
		}
	}
	rxr_spinlock_unlock(&x->plock);
	return ret;
}

/* Frames into node's transfer stage. @return how many it took. */
static unsigned int
rseq_xfer_put(struct rxr_pool *p, struct rseq_pool *rp, unsigned int node,
		void * const *objs, unsigned int n)
{
	struct rseq_xfer *x = &rp->xfer[node];
	unsigned int k = 0;

	if (rxr_in_irq())
		return 0;
	rxr_spinlock_lock(&x->plock);
	if (rseq_xfer_form(p, x)) {
		rseq_xfer_room(x, n);
		k = RTE_MIN(n, x->mask + 1 - (x->head - x->tail_seen));
		rseq_xfer_store(x, x->head, objs, k);
		rseq_xfer_publish(x, k);
	}
	rxr_spinlock_unlock(&x->plock);
	return k;
}

/*
 * Frames taken out of the stage that no pcp had room for: back in, the
 * zone taking what the stage no longer can (counted out of the stage and
 * drained on @p cpu).
 */
static __rte_noinline __rte_cold void
rseq_xfer_return(struct rxr_pool *p, struct rseq_pool *rp, unsigned int node,
		void * const *objs, unsigned int n, uint32_t cpu)
{
	unsigned int back = rseq_xfer_put(p, rp, node, objs, n);

	if (back == n)
		return;
	rxrp_zone_free(p, objs + back, n - back, true);
	cpu = RTE_MIN(cpu, rp->ncpu - 1);
	rseq_add(rp, cpu, RSEQ_C_XFER_OUT, n - back);
	rseq_add(rp, cpu, RSEQ_C_DRAIN_FRAMES, n - back);
}

/* Take frames from a zone, between min and max, never waiting in irq. */
static unsigned int
rseq_zone_take(struct rxr_zone *z, void **objs, unsigned int min,
		unsigned int max)
{
	if (unlikely(rxr_in_irq()))
		return rxr_zone_alloc_bulk_nowait(z, objs, min, max);
	return rxr_zone_alloc_bulk(z, objs, min, max);
}

/*
 * The pcp was short: n frames for the caller and more for the pcp in one
 * lock hold, from the transfer stage (a move) when it has n, else from
 * the zone (a batch); pushed onto the pcp of the CPU the thread is on by
 * then (what does not fit goes to the zone).
 */
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
		if (rxrp_zone_alloc(p, node, objs, n, true) != 0)
			goto fail;
		rseq_add(rp, cpu, RSEQ_C_REFILL_FRAMES, n);
		rseq_add(rp, cpu, RSEQ_C_ALLOC_ZONE_FRAMES, n);
		return 0;
	}
	/* No more than the pcp has room for as it was: the rest is pushed
	 * after the stage's lock, and what does not fit goes back. */
	got = rseq_xfer_refill(p, rp, rs, node, objs, n,
			RTE_MIN(rseq_xfer_move(pc), pc->high - RTE_MIN(c, pc->high)),
			tmp, &rest, &to);
	if (got != 0) {
		/* Frames another CPU gave back: no zone transfer. */
		rseq_add(rp, cpu, RSEQ_C_XFER_OUT, got);
		rseq_add(rp, cpu, RSEQ_C_XFER_ALLOC, n);
		if (rest != 0)
			rseq_add(rp, to, RSEQ_C_REFILL_PUSHED, rest);
		return 0;
	}
	got = rseq_zone_take(p->zone[node], tmp, n, n + pc->batch);
	if (got == 0) {
		/* The zonelist: other nodes before failing. */
		if (rxrp_zone_alloc(p, node, objs, n, true) != 0)
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
		rxrp_zone_free(p, tmp, rest, true);
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
	intptr_t rs = rseq_off;
	uint32_t cpu;
	int ret;

	if (unlikely(n == 0))
		return 0;
	if (cpu0 < rp->ncpu && (r0 == RSEQ_ABORTED ||
			(r0 == RSEQ_BAIL && rseq_cpu_start(rs) != cpu0)))
		rseq_count_retry(rp, rs, cpu0, r0);
	/* More than any pcp holds: the zone (the sections take n <= high). */
	if (unlikely(n > rp->high))
		return rxrp_zone_alloc(p, rp->node[rseq_cpu_start(rs) %
				rp->ncpu], objs, n, true);
	ret = rseq_take(p, rp, rs, RSEQ_ANY_NODE, objs, n, &cpu);
	if (likely(ret == 0))
		return 0;
	if (ret == -ENOBUFS)
		return rseq_refill(p, rp, rs, cpu, objs, n);
	return rseq_zone_alloc(p, rp, cpu, objs, n);
}

/* The pool's entry's slow path: rseq's, then the pool's reclaim. */
static __rte_noinline int
rseq_alloc_slow_entry(struct rxr_pool *p, void **objs, unsigned int n,
		uint32_t cpu0, int r0)
{
	if (likely(rseq_alloc_slow(p, objs, n, cpu0, r0) == 0))
		return 0;
	return __rxr_pool_alloc_slow(p, objs, n);
}

/* 1 <= n <= high, what a section takes; one frame always fits (high >= 1). */
static __rte_always_inline bool
rseq_fits(const struct rseq_pool *rp, unsigned int n)
{
	if (__builtin_constant_p(n) && n == 1)
		return true;
	return n - 1 < rp->high;
}

/*
 * The fast path: one section on the CPU the thread is on, no retry, few
 * registers; anything else (a restart, a short pcp, more frames than a
 * pcp holds) is the slow path's, which starts over. @p entry: the pool's
 * reclaim too when that fails, in the same call out of line.
 */
static __rte_always_inline int
rseq_alloc_fast(struct rxr_pool *p, void **objs, unsigned int n, bool entry)
{
	struct rseq_pool *rp = rseq_pool_of(p);
	intptr_t rs = rseq_off;
	uint32_t cpu = rseq_cpu_start(rs);
	int r = RSEQ_BAIL;

	if (likely(cpu < rp->ncpu) && likely(rseq_fits(rp, n))) {
		struct rxr_pcp *pc = rp->pcp[cpu];

		r = n == 1 ? rseq_pop1(rs, pc, cpu, objs) :
			rseq_pop(rs, pc, cpu, objs, n);
		if (likely(r == RSEQ_DONE)) {
			rseq_tsan_acquire(pc);
			rseq_debug_out(p, objs, n);
			return 0;
		}
	}
	if (entry)
		return rseq_alloc_slow_entry(p, objs, n, cpu, r);
	return rseq_alloc_slow(p, objs, n, cpu, r);
}

/*
 * The pcp was full: pop what Linux's free_pcppages_bulk() would give back
 * (a multiple of batch, enough to make room; at least a transfer move) and
 * give it to the transfer stage, the zone what the stage cannot take, then
 * push. The frames come off the top: a section cannot move the coldest
 * from the bottom with one commit.
 */
static __rte_noinline __rte_cold void
rseq_drain(struct rxr_pool *p, struct rseq_pool *rp, intptr_t rs,
		unsigned int node, void * const *objs, unsigned int n,
		uint32_t cpu)
{
	void *tmp[RSEQ_TMP];

	for (unsigned int tries = 0; tries < 4; tries++) {
		struct rxr_pcp *pc = rp->pcp[cpu];
		uint32_t c = __atomic_load_n(&pc->count, __ATOMIC_RELAXED);
		uint32_t k = 0, in = 0, got_cpu;

		if (c & RSEQ_LOCKED)
			break;
		if (c + n > pc->high)
			k = RTE_MIN(RTE_MIN(RTE_MAX(rxr_roundup(c + n - pc->high,
				pc->batch), rseq_xfer_move(pc)), c), RSEQ_TMP);
		if (k != 0) {
			/* Straight into the stage; else through tmp, the
			 * zone taking what the stage cannot. */
			int r = rseq_xfer_drain(p, rp, rs, node, k, &got_cpu);

			if (r > 0)
				in = k = (uint32_t)r;
			else if (r == -ENOSPC && rseq_take(p, rp, rs, (int)node,
					tmp, k, &got_cpu) == 0)
				in = rseq_xfer_put(p, rp, node, tmp, k);
			else
				k = 0;
		}
		if (k != 0) {
			rseq_add(rp, got_cpu, RSEQ_C_XFER_IN, in);
			if (in < k) {
				rxrp_zone_free(p, tmp + in, k - in, true);
				rseq_add(rp, got_cpu, RSEQ_C_DRAIN_FRAMES, k - in);
			}
			rseq_add(rp, got_cpu, RSEQ_C_DRAIN_POPPED, k);
			RSEQ_COUNT(rp, got_cpu, RSEQ_C_FREE_DRAIN);
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
	rxrp_zone_free(p, objs, n, true);
}

/* Frames of one node: onto the pcp of the CPU, if it is of that node. */
static __rte_always_inline void
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
			rxrp_zone_free(p, objs, n, true);
			return;
		}
	}
	/* More than any pcp holds: the zone (the sections take n <= high). */
	if (unlikely(n > rp->high)) {
		rxrp_zone_free(p, objs, n, true);
		return;
	}
	r = rseq_put(p, rp, rs, node, objs, n, &cpu);
	if (likely(r == RSEQ_PUSHED))
		return;
	if (r == RSEQ_FULL) {
		rseq_drain(p, rp, rs, node, objs, n, cpu);
		return;
	}
	RSEQ_COUNT(rp, cpu, RSEQ_C_ZONE_FALLBACK);
	rxrp_zone_free(p, objs, n, true);
}

/*
 * Everything but one section that committed at the first try. Returns 0,
 * so that the entries reach it by a tail jump (no stack frame on their
 * fast path).
 */
static __rte_noinline int
rseq_free_slow(struct rxr_pool *p, void * const *objs, unsigned int n,
		uint32_t cpu0, int r0)
{
	struct rseq_pool *rp = rseq_pool_of(p);
	intptr_t rs = rseq_off;

	if (cpu0 < rp->ncpu && (r0 == RSEQ_ABORTED ||
			(r0 == RSEQ_BAIL && rseq_cpu_start(rs) != cpu0)))
		rseq_count_retry(rp, rs, cpu0, r0);

	if (unlikely(n == 0))
		return 0;
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

/* As rseq_alloc_fast(): one section, one node, else the slow path; 0. */
static __rte_always_inline int
rseq_free_fast(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	struct rseq_pool *rp = rseq_pool_of(p);
	intptr_t rs = rseq_off;
	uint32_t cpu = rseq_cpu_start(rs);
	int r = RSEQ_BAIL;

	if (likely(cpu < rp->free_ncpu) && likely(rseq_fits(rp, n))) {
		struct rxr_pcp *pc = rp->pcp[cpu];

		rseq_debug_in(p, objs, n);
		rseq_tsan_release(pc);
		r = n == 1 ? rseq_push1(rs, pc, cpu, objs) :
			rseq_push(rs, pc, cpu, objs, n);
		if (likely(r == RSEQ_DONE))
			return 0;
		rseq_debug_out(p, objs, n);
	}
	return rseq_free_slow(p, objs, n, cpu, r);
}

/*
 * Every CPU's pcp: set the top bit of its count, restart every section in
 * flight (membarrier's rseq fence), set it again where a section that
 * started before it committed over it, until it holds everywhere; then
 * the pcps are ours to empty. Any thread, any time but in a handler.
 */
static unsigned int
rseq_pool_reclaim(struct rxr_pool *p)
{
	struct rseq_pool *rp = rseq_pool_of(p);
	unsigned int got = 0;
	bool again;

	if (rxr_in_irq())
		return 0;
	rxr_spinlock_lock(&rp->lock);
	for (unsigned int c = 0; c < rp->ncpu; c++)
		__atomic_fetch_or(&rp->pcp[c]->count, RSEQ_LOCKED,
			__ATOMIC_SEQ_CST);
	do {
		if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ,
				0, 0) != 0)
			RXR_LOG(ERR, "pool %s: membarrier rseq fence: %s",
				p->name, strerror(errno));
		again = false;
		for (unsigned int c = 0; c < rp->ncpu; c++)
			if (!(__atomic_load_n(&rp->pcp[c]->count,
					__ATOMIC_SEQ_CST) & RSEQ_LOCKED)) {
				__atomic_fetch_or(&rp->pcp[c]->count,
					RSEQ_LOCKED, __ATOMIC_SEQ_CST);
				again = true;
			}
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

		rxr_spinlock_lock(&x->plock);
		rxr_spinlock_lock(&x->clock);
		while (x->tail != x->head) {
			void *tmp[64];
			uint32_t k = RTE_MIN(x->head - x->tail, RTE_DIM(tmp));

			rseq_xfer_load(x, x->base, x->tail, tmp, k);
			rxr_zone_free_bulk(p->zone[n], tmp, k);
			__atomic_store_n(&x->tail, x->tail + k,
				__ATOMIC_RELAXED);
			got += k;
		}
		__atomic_store_n(&x->tail_pub, x->tail, __ATOMIC_RELEASE);
		rxr_spinlock_unlock(&x->clock);
		rxr_spinlock_unlock(&x->plock);
	}
	rxr_spinlock_unlock(&rp->lock);
	return got;
}

/* What glibc and the kernel must give: checked before a pool is made. */
static bool
rseq_available(char *why, size_t len)
{
	if (__rseq_size < 20) {
		snprintf(why, len, "glibc registered no rseq area for this "
			"process (__rseq_size %u): the tunable "
			"glibc.pthread.rseq=0, or a kernel without rseq(2)",
			__rseq_size);
		return false;
	}
	if (rseq_off != __rseq_offset) {
		snprintf(why, len, "the copy of __rseq_offset (%td) differs "
			"from glibc's (%td): this library's constructor did "
			"not run", rseq_off, __rseq_offset);
		return false;
	}
	if (rseq_cpu_now(rseq_off) < 0) {
		snprintf(why, len, "this thread's rseq area is not registered "
			"(cpu_id %d)", rseq_cpu_now(rseq_off));
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

/* Never called: rseq_available() refuses every pool. */
static int
rseq_alloc_fast(struct rxr_pool *p, void **objs, unsigned int n,
		bool entry __rte_unused)
{
	return rxrp_zone_alloc(p, 0, objs, n, true);
}

static int
rseq_free_fast(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	rxrp_zone_free(p, objs, n, true);
	return 0;
}

static unsigned int
rseq_pool_reclaim(struct rxr_pool *p)
{
	return 0;
}

static bool
rseq_available(char *why, size_t len)
{
#if defined(__aarch64__)
	const char *arch = "aarch64";
#else
	const char *arch = "this architecture";
#endif
	snprintf(why, len, "its critical sections are written for x86_64 "
		"with glibc's <sys/rseq.h> (2.35 or later); not built for %s",
		arch);
	return false;
}

#endif /* RSEQ_BUILT */

static int
rseq_alloc_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	return rseq_alloc_fast(p, objs, n, false);
}

static void
rseq_free_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	(void)rseq_free_fast(p, objs, n);
}

/* Bulk off: a section per frame. */
RXRP_PER_FRAME_OPS(rseq)

/*
 * The pool's entries (struct rxr_pool_ops' alloc_entry and free_entry):
 * every call of a PMD through the mempool driver, no inline path serving
 * rseq. The section, then on any failure one call that runs rseq's slow
 * path and the pool's.
 */
static int
rseq_alloc_entry_bulk(struct rxr_pool *p, void **objs, unsigned int n)
{
	return rseq_alloc_fast(p, objs, n, true);
}

static __rte_noinline int
rseq_alloc_entry_frames(struct rxr_pool *p, void **objs, unsigned int n)
{
	if (likely(rseq_alloc_frames(p, objs, n) == 0))
		return 0;
	return __rxr_pool_alloc_slow(p, objs, n);
}

static int
rseq_alloc_entry_single(struct rxr_pool *p, void **objs, unsigned int n)
{
	if (likely(n == 1))
		return rseq_alloc_fast(p, objs, 1, true);
	return rseq_alloc_entry_frames(p, objs, n);
}

static int
rseq_free_entry_bulk(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	return rseq_free_fast(p, objs, n);
}

static int
rseq_free_entry_single(struct rxr_pool *p, void * const *objs, unsigned int n)
{
	if (likely(n == 1))
		return rseq_free_fast(p, objs, 1);
	rseq_free_frames(p, objs, n);
	return 0;
}

static int
rseq_pool_init(struct rxr_pool *p)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	struct rseq_pool *rp;

	rp = rte_zmalloc_socket("rxr_rseq", sizeof(*rp), RTE_CACHE_LINE_SIZE,
			p->conf.socket_id);
	if (rp == NULL)
		return -ENOMEM;
	rp->high = p->conf.high;
	rp->ncpu = conf > 0 ? RTE_MIN((unsigned int)conf, (unsigned int)RXRP_MAX_CPUS) : 1;
	rp->free_ncpu = p->nr_zones == 1 ? rp->ncpu : 0;
	for (unsigned int c = 0; c < rp->ncpu; c++) {
		/* A poll lcore's CPU takes its node, the others in turn. */
		unsigned int node = p->by_cpu[c] != NULL ? p->by_cpu[c]->node :
			c % p->nr_zones;

		rp->node[c] = node;
		rp->pcp[c] = rxr_pcp_create(p->zone[node], p->conf.high,
				p->conf.batch, rxr_zone_socket(p->zone[node]));
		if (rp->pcp[c] == NULL) {
			int err = rte_errno;

			for (unsigned int k = 0; k < c; k++)
				rxr_pcp_destroy(rp->pcp[k]);
			rte_free(rp);
			return -err;
		}
	}
	for (unsigned int n = 0; n < p->nr_zones; n++) {
		struct rseq_xfer *x = &rp->xfer[n];

		x->mask = rte_align32pow2(RSEQ_XFER_BATCHES *
				p->conf.batch) - 1;
		x->frames = rte_malloc_socket("rxr_rseq_xfer",
				(x->mask + 1) * sizeof(void *), RTE_CACHE_LINE_SIZE,
				rxr_zone_socket(p->zone[n]));
		if (x->frames == NULL) {
			for (unsigned int k = 0; k < rp->ncpu; k++)
				rxr_pcp_destroy(rp->pcp[k]);
			for (unsigned int k = 0; k < n; k++)
				rte_free(rp->xfer[k].frames);
			rte_free(rp);
			return -ENOMEM;
		}
	}
	p->priv = rp;
	return 0;
}

static void
rseq_pool_fini(struct rxr_pool *p)
{
	struct rseq_pool *rp = rseq_pool_of(p);

	for (unsigned int c = 0; c < rp->ncpu; c++)
		rxr_pcp_destroy(rp->pcp[c]);
	for (unsigned int n = 0; n < RXR_POOL_MAX_NODES; n++)
		rte_free(rp->xfer[n].frames);
	rte_free(rp);
	p->priv = NULL;
}

static uint64_t
rseq_pool_held(const struct rxr_pool *p)
{
	const struct rseq_pool *rp = rseq_pool_of(p);
	uint64_t n = 0;

	for (unsigned int c = 0; c < rp->ncpu; c++)
		n += __atomic_load_n(&rp->pcp[c]->count, __ATOMIC_RELAXED) &
			~RSEQ_LOCKED;
	for (unsigned int k = 0; k < p->nr_zones; k++) {
		/* The refills' index first: it never passes the drains'. */
		uint32_t t = __atomic_load_n(&rp->xfer[k].tail_pub,
				__ATOMIC_ACQUIRE);

		n += __atomic_load_n(&rp->xfer[k].head_pub,
				__ATOMIC_ACQUIRE) - t;
	}
	return n;
}

/*
 * Per-CPU figures under the poll lcore pinned to that CPU, the other
 * CPUs' under the first poll lcore, so that sums over lcores are the
 * pool's. pcp.alloc counts the frames handed straight from the zone too,
 * as the pcp's own refill does; the frames the slow paths move through
 * sections of their own are not callers' allocs and frees.
 */
/* Counter id of CPU c: both halves. */
#define CTR(c, id) (RXR_STAT_READ(rp->ctr[c].v[RSEQ_C_##id]) + \
	RXR_STAT_READ(rp->ctr[c].away[RSEQ_C_##id]))

static void
rseq_stats(const struct rxr_pool *p, const struct rxrp_lcore *ls,
		struct rxr_pool_lcore_stats *o)
{
	const struct rseq_pool *rp = rseq_pool_of(p);

	if (rp == NULL)
		return;
	for (unsigned int c = 0; c < rp->ncpu; c++) {
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
#undef CTR

const struct rxrp_strategy rxrp_strategy_rseq = {
	.name = "rseq",
	RXRP_OPS(rseq),
	.alloc_entry = { rseq_alloc_entry_single, rseq_alloc_entry_bulk },
	.free_entry = { rseq_free_entry_single, rseq_free_entry_bulk },
	.stats = rseq_stats,
	.counter_names = rseq_counter_names,
	.available = rseq_available,
	.pool_init = rseq_pool_init,
	.pool_fini = rseq_pool_fini,
	.pool_reclaim = rseq_pool_reclaim,
	.pool_held = rseq_pool_held,
};
