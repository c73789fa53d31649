/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Clear rates of every method against glibc memset in the same run, and the
 * longest gap between two yields (a simulated poll) while 1 GiB is cleared
 * in chunks.
 *
 *   bench: zero.<method>.<size> <GB/s> GB/s
 *   ratio: <method>_over_memset.<size> <ours / memset's>   (higher is better)
 *   bench: zero.max_poll_gap.<method> <us> us
 *
 * Working sets: 4K and 64K clear the same extent again and again (a
 * recycled frame, warm in L1/L2); 2M walks distinct extents over 256 MiB (a
 * hugepage about to be used, not in cache); 1G is one extent, from a 1 GiB
 * hugepage memzone when one can be reserved, else anonymous memory with
 * transparent huge pages (said on a '#' line). Rounds of all methods are
 * interleaved (A B C A B C) and each figure is the median round; the spread
 * is on a '#' line. Fails only when memory cannot be had.
 */

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_memzone.h>

#include "rxr_test.h"
#include "rxr_zero.h"
#include "zero_isa.h"

#define GIB (1ul << 30)
#define MAX_ROUNDS 9

/* Through a volatile pointer: the compiler may not fold the baseline. */
static void *(*volatile memset_fn)(void *, int, size_t) = memset;

struct method {
	const char *name;
	int memset;			/* the baseline */
	struct rxr_zero_opts opts;
	int ratio;			/* print a ratio over memset */
	int extra;			/* another nt instruction: large sizes */
};

static struct method methods[8];
static unsigned int nr_methods;

static void
methods_init(void)
{
	static const enum rxr_zero_nt_isa isas[] = {
		RXR_ZERO_NT_AVX512, RXR_ZERO_NT_AVX2, RXR_ZERO_NT_SSE2,
	};
	static char names[RTE_DIM(isas)][24];
	enum rxr_zero_nt_isa best = isa_best();

	methods[nr_methods++] = (struct method){ .name = "memset", .memset = 1 };
	methods[nr_methods++] = (struct method){ .name = "narrow",
		.opts.method = RXR_ZERO_NARROW, .ratio = 1 };
	methods[nr_methods++] = (struct method){ .name = "contig",
		.opts.method = RXR_ZERO_CONTIG, .ratio = 1 };
	methods[nr_methods++] = (struct method){ .name = "nt",
		.opts.method = RXR_ZERO_NT, .ratio = 1 };
	methods[nr_methods++] = (struct method){ .name = "auto",
		.opts.method = RXR_ZERO_AUTO, .ratio = 1 };
	/* The other streaming instructions, to show why nt uses its own. */
	for (unsigned int i = 0; i < RTE_DIM(isas); i++) {
		if (isas[i] == best || !isa_supported(isas[i]))
			continue;
		snprintf(names[i], sizeof(names[i]), "nt_%s",
			isa_names[isas[i]]);
		methods[nr_methods++] = (struct method){ .name = names[i],
			.opts.method = RXR_ZERO_NT, .opts.nt_isa = isas[i],
			.extra = 1 };
	}
}

struct size_case {
	const char *name;
	size_t len;
	size_t window;		/* extents walk this much memory */
	size_t round_bytes;	/* cleared per timed round */
	unsigned int rounds;
	int extra_isas;		/* also time the other nt instructions */
};

static const struct size_case size_cases[] = {
	{ "4K", 4u << 10, 4u << 10, 64u << 20, 7, 0 },
	{ "64K", 64u << 10, 64u << 10, 64u << 20, 7, 0 },
	{ "2M", 2u << 20, 256u << 20, 256u << 20, 7, 1 },
	{ "1G", GIB, GIB, GIB, 5, 1 },
};

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
clear(const struct method *m, uint8_t *p, size_t len)
{
	if (m->memset) {
		memset_fn(p, 0, len);
		return 0;
	}
	return rxr_zero_extent(p, len, &m->opts);
}

/* Beyond the last-level cache a core sees (32 MiB here). */
#define WARM_BYTES (64u << 20)

/*
 * One timed round of method m over the case; GB/s, or < 0 on error.
 * Cold cases first clear the end of the window with the same method,
 * untimed: the caches then hold what this method leaves behind (dirty
 * lines for REP STOSB, none for streaming stores) rather than the
 * write-backs owed by the method timed before it.
 */
static double
round_gbps(const struct method *m, const struct size_case *c, uint8_t *mem)
{
	size_t off = 0, done, warm = RTE_MIN(c->len, (size_t)WARM_BYTES);
	uint64_t t0, t;

	if (c->window > WARM_BYTES)
		for (done = 0; done < WARM_BYTES; done += warm)
			if (clear(m, mem + c->window - WARM_BYTES + done,
					warm) != 0)
				return -1;
	t0 = rte_rdtsc();
	for (done = 0; done < c->round_bytes; done += c->len) {
		if (clear(m, mem + off, c->len) != 0)
			return -1;
		off += c->len;
		if (off + c->len > c->window)
			off = 0;
	}
	t = rte_rdtsc() - t0;
	return (double)c->round_bytes * rte_get_tsc_hz() / RTE_MAX(t, 1ul) / 1e9;
}

static int
bench_sizes(uint8_t *mem)
{
	static double gbps[RTE_DIM(size_cases)][RTE_DIM(methods)][MAX_ROUNDS];

	for (unsigned int s = 0; s < RTE_DIM(size_cases); s++) {
		const struct size_case *c = &size_cases[s];
		double med[RTE_DIM(methods)];

		for (unsigned int r = 0; r < c->rounds; r++)
			for (unsigned int i = 0; i < nr_methods; i++) {
				if (!c->extra_isas && methods[i].extra)
					continue;
				gbps[s][i][r] = round_gbps(&methods[i], c, mem);
				if (gbps[s][i][r] < 0) {
					printf("# %s.%s: clear failed\n",
						methods[i].name, c->name);
					return -1;
				}
			}
		for (unsigned int i = 0; i < nr_methods; i++) {
			double *v = gbps[s][i];

			if (!c->extra_isas && methods[i].extra)
				continue;
			qsort(v, c->rounds, sizeof(*v), cmp_double);
			med[i] = v[c->rounds / 2];
			printf("bench: zero.%s.%s %.2f GB/s\n", methods[i].name,
				c->name, med[i]);
			printf("# zero.%s.%s: min %.2f median %.2f max %.2f GB/s over %u rounds\n",
				methods[i].name, c->name, v[0], med[i],
				v[c->rounds - 1], c->rounds);
		}
		for (unsigned int i = 0; i < nr_methods; i++)
			if (methods[i].ratio)
				printf("ratio: %s_over_memset.%s %.3f\n",
					methods[i].name, c->name, med[i] / med[0]);
		fflush(stdout);
	}
	return 0;
}

/* The simulated poll: note when it ran. */
struct poll_sim {
	uint64_t last;
	uint64_t max_gap;
	unsigned long calls;
	uint64_t *gaps;
	size_t nr_gaps;
	size_t cap;
};

static void
poll_note(struct poll_sim *p)
{
	uint64_t now = rte_rdtsc(), gap = now - p->last;

	if (gap > p->max_gap)
		p->max_gap = gap;
	if (p->nr_gaps < p->cap)
		p->gaps[p->nr_gaps++] = gap;
	p->last = now;
}

static void
poll_yield(void *arg)
{
	struct poll_sim *p = arg;

	p->calls++;
	poll_note(p);
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One clear of 1 GiB with yields; gaps appended to p->gaps. GB/s. */
static double
gap_run(struct poll_sim *p, uint8_t *mem, enum rxr_zero_method m,
		size_t chunk, uint64_t *run_max, uint64_t *cycles)
{
	struct rxr_zero_opts o = {
		.method = m,
		.chunk = chunk,
		.yield = poll_yield,
		.yield_arg = p,
	};
	uint64_t t0;

	p->max_gap = 0;
	t0 = p->last = rte_rdtsc();
	if (rxr_zero_extent(mem, GIB, &o) != 0)
		return -1;
	poll_note(p);
	*run_max = p->max_gap;
	*cycles = p->last - t0;
	return (double)GIB * rte_get_tsc_hz() / *cycles / 1e9;
}

/* The same poll loop with nothing to clear: what the machine itself does
 * to a spinning thread (timer ticks, the hypervisor) over @p cycles. */
static uint64_t
idle_run(uint64_t cycles)
{
	uint64_t t0 = rte_rdtsc(), last = t0, now, max_gap = 0;

	do {
		now = rte_rdtsc();
		max_gap = RTE_MAX(max_gap, now - last);
		last = now;
	} while (now - t0 < cycles);
	return max_gap;
}

static double
pct(const uint64_t *sorted, size_t n, double q)
{
	return sorted[RTE_MIN((size_t)(n * q), n - 1)];
}

static int
bench_poll_gap(uint8_t *mem)
{
	static const enum rxr_zero_method gm[] = {
		RXR_ZERO_CONTIG, RXR_ZERO_NT, RXR_ZERO_NARROW,
	};
	static const size_t sweep[] = {
		32u << 10, 64u << 10, 128u << 10, 256u << 10, 512u << 10,
		2u << 20,
	};
	enum { RUNS = 3 };
	const double us = 1e6 / rte_get_tsc_hz();
	size_t cap = (GIB / (32u << 10) + 2) * RUNS;
	uint64_t *gaps = malloc(cap * sizeof(*gaps));
	uint64_t run_max[RUNS], idle_max = 0, longest = 0, cycles;
	double gbps[RUNS];
	struct poll_sim p;

	if (gaps == NULL)
		return -1;
	printf("# poll gap: 1 GiB cleared with the default chunk (%u KiB), %u runs; the yield reads the TSC (a simulated poll); the gaps before the first and after the last yield count\n",
		RXR_ZERO_CHUNK_DEFAULT >> 10, RUNS);
	for (unsigned int m = 0; m < RTE_DIM(gm); m++) {
		const char *name = rxr_zero_method_name(gm[m]);
		uint64_t max = 0;

		p = (struct poll_sim){ .gaps = gaps, .cap = cap };
		for (unsigned int r = 0; r < RUNS; r++) {
			gbps[r] = gap_run(&p, mem, gm[m], 0, &run_max[r],
					&cycles);
			if (gbps[r] < 0)
				return -1;
			max = RTE_MAX(max, run_max[r]);
			longest = RTE_MAX(longest, cycles);
		}
		qsort(gaps, p.nr_gaps, sizeof(*gaps), cmp_u64);
		printf("bench: zero.max_poll_gap.%s %.1f us\n", name, max * us);
		printf("bench: zero.p99_poll_gap.%s %.1f us\n", name,
			pct(gaps, p.nr_gaps, 0.99) * us);
		printf("bench: zero.median_poll_gap.%s %.2f us\n", name,
			pct(gaps, p.nr_gaps, 0.5) * us);
		printf("# zero.poll_gap.%s: per-run max %.1f %.1f %.1f us; p99.9 %.1f us over %zu gaps; %.2f %.2f %.2f GB/s with yields\n",
			name, run_max[0] * us, run_max[1] * us, run_max[2] * us,
			pct(gaps, p.nr_gaps, 0.999) * us, p.nr_gaps,
			gbps[0], gbps[1], gbps[2]);
		fflush(stdout);
	}
	/* As long as the slowest clear above took, RUNS times. */
	for (unsigned int r = 0; r < RUNS; r++)
		idle_max = RTE_MAX(idle_max, idle_run(longest));
	printf("bench: zero.max_poll_gap.idle %.1f us\n", idle_max * us);
	printf("# zero.max_poll_gap.idle: the same loop clearing nothing for %.1f ms: this machine's own interruptions, which no chunk size removes\n",
		longest * us / 1e3);

	/* Why the default: rate and gaps against the chunk size. */
	for (unsigned int c = 0; c < RTE_DIM(sweep); c++)
		for (unsigned int m = 0; m < 2; m++) {
			p = (struct poll_sim){ .gaps = gaps, .cap = cap };
			gbps[0] = gap_run(&p, mem, gm[m], sweep[c],
					&run_max[0], &cycles);
			if (gbps[0] < 0)
				return -1;
			qsort(gaps, p.nr_gaps, sizeof(*gaps), cmp_u64);
			printf("# chunk sweep: %-6s %4zu KiB: %6.2f GB/s, median gap %6.1f us, p99 %6.1f us, max %6.1f us\n",
				rxr_zero_method_name(gm[m]), sweep[c] >> 10,
				gbps[0], pct(gaps, p.nr_gaps, 0.5) * us,
				pct(gaps, p.nr_gaps, 0.99) * us,
				run_max[0] * us);
		}
	free(gaps);
	return 0;
}

/* kB of this process's anonymous memory in transparent huge pages. */
static long
thp_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* 1 GiB: a 1 GiB hugepage memzone when possible, else THP anonymous. */
static uint8_t *
gib_get(const struct rte_memzone **mz)
{
	uint8_t *mem;

	*mz = rte_memzone_reserve_aligned("bench_zero_1g", GIB, SOCKET_ID_ANY,
			RTE_MEMZONE_1GB, GIB);
	if (*mz != NULL) {
		printf("# memory.1G: one 1 GiB hugepage memzone\n");
		return (*mz)->addr;
	}
	printf("# memory.1G: no 1 GiB hugepage memzone (%s): ordinary anonymous memory, transparent huge pages requested (madvise)\n",
		rte_strerror(rte_errno));
	mem = mmap(NULL, GIB, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return NULL;
	madvise(mem, GIB, MADV_HUGEPAGE);
	return mem;
}

int
main(int argc, char **argv)
{
	const struct rte_memzone *mz;
	uint8_t *mem;
	int ret;

	(void)argc;
	rxr_test_eal_init(argv[0], "0", 64, NULL);
	methods_init();
	mem = gib_get(&mz);
	if (mem == NULL) {
		printf("# cannot get 1 GiB of memory: not measured\n");
		return EXIT_FAILURE;
	}
	/* Fault everything in first: rounds time clearing, not the kernel. */
	memset(mem, 1, GIB);
	if (mz == NULL)
		printf("# memory.1G: %ld MiB of the 1024 in transparent huge pages\n",
			thp_kb() / 1024);
	/* Before any round, so that auto's one-time measurement is not
	 * timed as part of a clear. */
	rxr_zero_auto_dump(stdout);
	printf("# working sets: 4K and 64K re-clear one extent (warm), 2M walks 256 MiB (cold), 1G is one extent; narrow targets subpage 0; figures are medians of interleaved rounds\n");
	fflush(stdout);

	ret = bench_sizes(mem);
	if (ret == 0)
		ret = bench_poll_gap(mem);
	if (mz != NULL)
		rte_memzone_free(mz);
	else
		munmap(mem, GIB);
	return ret == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
