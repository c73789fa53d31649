/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RSEQ_ASM_H
#define RSEQ_ASM_H

/*
 * PRIVATE to the rseq strategy: its restartable sequences (rseq(2)), x86_64,
 * on glibc's rseq area. Each checks the CPU, works on its pcp and commits
 * with one store; RSEQ_DONE, RSEQ_BAIL (short, full, reclaimed, another
 * CPU) or RSEQ_ABORTED (preempted, migrated or signalled).
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
 * Every section's prologue: its struct rseq_cs in __rseq_cs, the arming
 * store, the start (1), the CPU check, the load of the count into %[c].
 * Labels: 1 start, 2 post-commit, 4 abort, 9 exit; %[ret] RSEQ_BAIL.
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

/* A pop's start: out when short (signed: a reclaim's bit reads short),
 * else %[c] the new count and %[src] the first frame out. */
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
 * A copy of n >= 1 frames: n % 4 one at a time (@p one, element %q[ret] -
 * 1), then four a step (@p four), ascending, indexed by %[ret] so that the
 * section needs no other register. Labels 5-8.
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

/* Copy n frame pointers, four a step in two SSE2 moves (%[v0], %[v1]). */
#define RSEQ_ASM_COPY(from, to) RSEQ_ASM_STEPS( \
	"movq -8(%" from ",%q[ret],8), %[v0]\n\t" \
	"movq %[v0], -8(%" to ",%q[ret],8)\n\t", \
	"movdqu (%" from ",%q[ret],8), %[v0]\n\t" \
	"movdqu 16(%" from ",%q[ret],8), %[v1]\n\t" \
	"movdqu %[v0], (%" to ",%q[ret],8)\n\t" \
	"movdqu %[v1], 16(%" to ",%q[ret],8)\n\t")

/* The same into 32-bit offsets from %[b] (%[vb] both halves): the low
 * halves of two SSE2 subtractions. Uses %[t], %[v0], %[v1]. */
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

/* *ctr += v as a section's commit on @p cpu. @return true when added. */
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
 * Pop the top n (1..high) frames into objs, objs[n - 1] the hottest; the
 * commit stores the count after the last frame's load (stats.alloc just
 * before: a restart between counts twice). RXRP_RSEQ_PLANT_EARLY_COMMIT
 * (tests) commits before the copy, the bug the stress test must catch.
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

/* rseq_pop() into 32-bit offsets from @p base, the stage's form. */
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

/* Push n (1..high) frames, objs[n - 1] the hottest: stored above count,
 * then count + n (the commit). */
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

/* One frame: the same sections without the loop, in fewer registers. */
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
