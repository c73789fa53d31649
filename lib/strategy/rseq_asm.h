/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RSEQ_ASM_H
#define RSEQ_ASM_H

/*
 * PRIVATE to strategy_rseq.c: the restartable sequences (rseq(2)) of the
 * rseq strategy, x86_64 only, on the area glibc registers for every
 * thread. Each section checks that the thread runs on a given CPU, works
 * on that CPU's pcp and commits with one store; the kernel sends a thread
 * preempted, migrated or signalled before the commit to the abort handler.
 * Each returns RSEQ_DONE, RSEQ_BAIL (the pcp short, full or being
 * reclaimed, or the thread on another CPU) or RSEQ_ABORTED.
 */

#include <stddef.h>
#include <stdint.h>

#include <rte_common.h>

#include "rxr_pcp.h"

#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define RSEQ_BUILT 1
#endif
#endif
#ifndef RSEQ_BUILT
#define RSEQ_BUILT 0
#endif

enum { RSEQ_DONE, RSEQ_BAIL, RSEQ_ABORTED };

#if RSEQ_BUILT

/* The sections load count at offset 0 and address the rest by offset. */
static_assert(offsetof(struct rxr_pcp, count) == 0,
	"struct rxr_pcp: the sections load count at offset 0");

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

#endif /* RSEQ_BUILT */

#endif /* RSEQ_ASM_H */
