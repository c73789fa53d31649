/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cpuid.h>
#include <immintrin.h>

#include <rte_common.h>
#include <rte_cycles.h>

#include "rxr_zero.h"

#define RXR_ZERO_SUBPAGE	4096u	/* narrow's: the base page */

/* --- primitives ---------------------------------------------------------- */

/* Ordinary stores, one string instruction: fast with ERMS/FSRM. */
static inline void
stosb(void *p, size_t n)
{
	__asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(0) : "memory");
}

/* The line the non-temporal bodies clear at a time (x86's cache line). */
#define NT_LINE 64

/*
 * Non-temporal bodies: clear n bytes at p, NT_LINE-aligned, n a non-zero
 * multiple of it, no fence; each built for its target by attribute
 * (doc/zeroing.md, "nt instruction").
 */
typedef void (*nt_body_t)(char *p, size_t n);

static void
nt_body_sse2(char *p, size_t n)
{
	const __m128i z = _mm_setzero_si128();
	char *end = p + n;

	for (; p < end; p += 64) {
		_mm_stream_si128((__m128i *)(void *)p, z);
		_mm_stream_si128((__m128i *)(void *)(p + 16), z);
		_mm_stream_si128((__m128i *)(void *)(p + 32), z);
		_mm_stream_si128((__m128i *)(void *)(p + 48), z);
	}
}

__attribute__((target("avx2"))) static void
nt_body_avx2(char *p, size_t n)
{
	const __m256i z = _mm256_setzero_si256();
	char *end = p + n;

	for (; end - p >= 256; p += 256) {
		_mm256_stream_si256((__m256i *)(void *)p, z);
		_mm256_stream_si256((__m256i *)(void *)(p + 32), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 64), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 96), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 128), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 160), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 192), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 224), z);
	}
	for (; p < end; p += 64) {
		_mm256_stream_si256((__m256i *)(void *)p, z);
		_mm256_stream_si256((__m256i *)(void *)(p + 32), z);
	}
}

__attribute__((target("avx512f"))) static void
nt_body_avx512(char *p, size_t n)
{
	const __m512i z = _mm512_setzero_si512();
	char *end = p + n;

	for (; end - p >= 256; p += 256) {
		_mm512_stream_si512((void *)p, z);
		_mm512_stream_si512((void *)(p + 64), z);
		_mm512_stream_si512((void *)(p + 128), z);
		_mm512_stream_si512((void *)(p + 192), z);
	}
	for (; p < end; p += 64)
		_mm512_stream_si512((void *)p, z);
}

/*
 * CLZERO zeroes the whole line that holds rAX, weakly ordered like a
 * streaming store: the caller's SFENCE orders it (AMD APM vol. 3).
 */
static inline void
clzero(char *p)
{
	__asm__ volatile("clzero" : : "a"(p) : "memory");
}

static void
nt_body_clzero(char *p, size_t n)
{
	char *end = p + n;

	for (; end - p >= 256; p += 256) {
		clzero(p);
		clzero(p + 64);
		clzero(p + 128);
		clzero(p + 192);
	}
	for (; p < end; p += 64)
		clzero(p);
}

static const struct {
	nt_body_t body;
	const char *name;
} nt_isa[RXR_ZERO_NR_NT_ISAS] = {
	[RXR_ZERO_NT_SSE2] = { nt_body_sse2, "sse2" },
	[RXR_ZERO_NT_AVX2] = { nt_body_avx2, "avx2" },
	[RXR_ZERO_NT_AVX512] = { nt_body_avx512, "avx512" },
	[RXR_ZERO_NT_CLZERO] = { nt_body_clzero, "clzero" },
};

/* Debug builds: this thread issued streaming stores that no SFENCE has
 * ordered yet; a test cannot see that from memory, so it is checked. */
static __thread bool nt_unfenced;

static inline void
nt_fence(void)
{
	_mm_sfence();
	if (RXR_DEBUG)
		nt_unfenced = false;
}

/* Debug builds: fail when this thread has streaming stores no fence ordered. */
static void
nt_check_fenced(const char *where)
{
	RXR_DEBUG_CHECK(!nt_unfenced, RXR_CHECK_UNFENCED,
		"%s: streaming stores not fenced", where);
}

/*
 * Non-temporal clear of any extent, without the fence: whole 64-byte lines
 * get streaming stores; the partial lines at either end get ordinary stores,
 * so no line is written both ways and nothing outside the extent is touched.
 */
static inline void
nt_clear_nofence(char *p, size_t len, nt_body_t body)
{
	uintptr_t a = (uintptr_t)p, e = a + len;
	uintptr_t b = RTE_ALIGN_CEIL(a, NT_LINE);
	uintptr_t c = RTE_ALIGN_FLOOR(e, NT_LINE);

	if (c <= b) {
		/* No whole line inside: a short extent. */
		memset(p, 0, len);
		return;
	}
	memset(p, 0, b - a);
	body((char *)b, c - b);
	if (RXR_DEBUG)
		nt_unfenced = true;
	memset((char *)c, 0, e - c);
}

/* --- CPU features -------------------------------------------------------- */

/* Instructions the CPU (and the OS) supports: nt's, and ERMS and FSRM
 * that make REP STOSB fast. */
static bool has_isa[RXR_ZERO_NR_NT_ISAS] = { [RXR_ZERO_NT_BEST] = true };
static bool erms, fsrm;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;
static enum rxr_zero_nt_isa nt_best = RXR_ZERO_NT_SSE2;

static void
cpu_detect(void)
{
	unsigned int a, b, c, d;

	/* The builtins check that the OS saves the wide registers too. */
	__builtin_cpu_init();
	has_isa[RXR_ZERO_NT_SSE2] = __builtin_cpu_supports("sse2");
	has_isa[RXR_ZERO_NT_AVX2] = __builtin_cpu_supports("avx2");
	has_isa[RXR_ZERO_NT_AVX512] = __builtin_cpu_supports("avx512f");
	/* No builtin names these: CPUID leaf 7 and 0x80000008. */
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		erms = (b >> 9) & 1;
		fsrm = (d >> 4) & 1;
	}
	if (__get_cpuid(0x80000008, &a, &b, &c, &d))
		has_isa[RXR_ZERO_NT_CLZERO] = b & 1;
	/* The last the CPU has: CLZERO clears DRAM up to twice as fast as
	 * AVX-512 here. SSE2 is x86-64's baseline. */
	nt_best = RXR_ZERO_NT_CLZERO;
	while (nt_best > RXR_ZERO_NT_SSE2 && !has_isa[nt_best])
		nt_best--;
}

/* --- narrow -------------------------------------------------------------- */

struct narrow {
	uintptr_t a, e;		/* the extent */
	uintptr_t base;		/* start of subpage 0 */
	size_t n;		/* subpages */
	size_t done;		/* subpages cleared */
	size_t per_yield;	/* subpages between yields */
	size_t countdown;	/* subpages before the next yield */
	rxr_zero_yield_t yield;
	void *arg;
};

/* Clear one subpage, clipped to the extent; yield every per_yield. */
static inline void
narrow_step(struct narrow *nw, size_t idx)
{
	uintptr_t s = nw->base + idx * RXR_ZERO_SUBPAGE;
	uintptr_t t = s + RXR_ZERO_SUBPAGE;

	s = RTE_MAX(s, nw->a);
	t = RTE_MIN(t, nw->e);
	stosb((void *)s, t - s);
	nw->done++;
	if (--nw->countdown == 0) {
		nw->countdown = nw->per_yield;
		if (nw->done != nw->n)
			nw->yield(nw->arg);
	}
}

/*
 * Linux's process_huge_page() order: the subpages farthest from the target
 * first (the far end of the extent), then the rest alternately from the
 * left and the right, converging on the target, which is cleared last and
 * so is the most recently written for its user. Each subpage cleared is no
 * farther from the target than the one before.
 */
static void
narrow_clear(struct narrow *nw, size_t t)
{
	size_t n = nw->n, base, l, i;

	if (2 * t <= n) {
		/* Target in the first half: the end goes first. */
		base = 0;
		l = t;
		for (i = n; i-- > 2 * t;)
			narrow_step(nw, i);
	} else {
		/* Target in the second half: the beginning goes first. */
		base = 2 * t - n;
		l = n - t;
		for (i = 0; i < base; i++)
			narrow_step(nw, i);
	}
	for (i = 0; i < l; i++) {
		narrow_step(nw, base + i);
		narrow_step(nw, base + 2 * l - 1 - i);
	}
}

static void
narrow_init(struct narrow *nw, void *addr, size_t len, size_t per_yield,
		rxr_zero_yield_t yield, void *arg)
{
	uintptr_t a = (uintptr_t)addr;
	uintptr_t base = RTE_ALIGN_FLOOR(a, (uintptr_t)RXR_ZERO_SUBPAGE);

	*nw = (struct narrow){ .a = a, .e = a + len, .base = base,
		.n = (RTE_ALIGN_CEIL(a + len, (uintptr_t)RXR_ZERO_SUBPAGE) - base) /
			RXR_ZERO_SUBPAGE,
		.per_yield = per_yield, .countdown = per_yield, .yield = yield,
		.arg = arg };
}

/* --- contig and nt in chunks --------------------------------------------- */

/* contig (body NULL) or nt in chunks; chunk >= len means one piece and no
 * yield. nt fences each chunk before the yield (doc/zeroing.md, "Fences"). */
static void
chunks_clear(char *p, size_t len, size_t chunk, nt_body_t body,
		rxr_zero_yield_t yield, void *arg)
{
	for (;;) {
		size_t n = RTE_MIN(len, chunk);

		if (body == NULL) {
			stosb(p, n);
		} else {
			nt_clear_nofence(p, n, body);
			nt_fence();
		}
		if (n == len)
			return;
		p += n;
		len -= n;
		nt_check_fenced("nt yield");
		yield(arg);
	}
}

/* --- auto ---------------------------------------------------------------- */

/* A size class: how it is probed, what was measured and picked. */
static struct auto_class {
	size_t max_len;		/* the class holds lengths up to this */
	size_t probe_len;	/* extent size timed */
	size_t window;		/* extents of probe_len walk this much memory */
	size_t round_bytes;	/* bytes cleared per timed round */
	unsigned int rounds;
	double contig_gbps, nt_gbps;
	enum rxr_zero_method pick;
} auto_class[] = {
	/* The probes of doc/zeroing.md, "How auto chooses": each round goes
	 * on where the last one stopped, so a large class finds memory cold. */
	{ 4u << 10, 4u << 10, 256u << 10, 4u << 20, 3 },
	{ 64u << 10, 64u << 10, 512u << 10, 4u << 20, 3 },
	{ 2u << 20, 2u << 20, 128u << 20, 16u << 20, 4 },
	{ SIZE_MAX, 8u << 20, 128u << 20, 16u << 20, 4 },
};
#define AUTO_SCRATCH (128u << 20)
/* Classes up to AUTO_LEAN_MAX_LEN lean to contig, larger ones to nt; the
 * other method must beat the lean by AUTO_MARGIN. */
#define AUTO_LEAN_MAX_LEN (64u << 10)
#define AUTO_MARGIN 1.25

static pthread_once_t auto_once = PTHREAD_ONCE_INIT;
static int auto_status;
static double auto_setup_ms, auto_ms;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One round clears round_bytes walking the window from *off; GB/s. The
 * timed round follows an untimed one of the same method: neither pays for
 * the other's write-backs. */
static double
auto_round(char *buf, const struct auto_class *pr, enum rxr_zero_method m,
		size_t *off)
{
	nt_body_t body = m == RXR_ZERO_NT ? nt_isa[nt_best].body : NULL;
	double t0 = 0, t;

	for (int timed = 0; timed < 2; timed++) {
		t0 = now_s();
		for (size_t done = 0; done < pr->round_bytes;
				done += pr->probe_len) {
			if (*off + pr->probe_len > pr->window)
				*off = 0;
			chunks_clear(buf + *off, pr->probe_len, SIZE_MAX, body,
				NULL, NULL);
			*off += pr->probe_len;
		}
	}
	t = now_s() - t0;
	return t > 0 ? pr->round_bytes / t / 1e9 : 0;
}

static void
auto_measure(void)
{
	double t0 = now_s();
	size_t off;
	char *buf;

	pthread_once(&cpu_once, cpu_detect);
	buf = mmap(NULL, AUTO_SCRATCH, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf != MAP_FAILED) {
		/* Transparent huge pages when allowed: 64 faults, not 32768,
		 * and the TLB behaves as over hugepage memory. Touch it all
		 * so that no round pays for faults. */
		madvise(buf, AUTO_SCRATCH, MADV_HUGEPAGE);
		memset(buf, 1, AUTO_SCRATCH);
	}
	auto_setup_ms = (now_s() - t0) * 1e3;
	for (unsigned int i = 0; i < RTE_DIM(auto_class); i++) {
		struct auto_class *ac = &auto_class[i];

		if (buf == MAP_FAILED) {
			/* Features alone: streaming pays off beyond the caches. */
			ac->pick = ac->max_len <= AUTO_LEAN_MAX_LEN ?
				RXR_ZERO_CONTIG : RXR_ZERO_NT;
			continue;
		}
		/* Alternate the two and keep each one's best round: the
		 * machine is shared and a bad round says nothing. */
		off = 0;
		for (unsigned int r = 0; r < ac->rounds; r++) {
			ac->contig_gbps = RTE_MAX(ac->contig_gbps,
				auto_round(buf, ac, RXR_ZERO_CONTIG, &off));
			ac->nt_gbps = RTE_MAX(ac->nt_gbps,
				auto_round(buf, ac, RXR_ZERO_NT, &off));
		}
		if (ac->max_len <= AUTO_LEAN_MAX_LEN)
			ac->pick = ac->nt_gbps > ac->contig_gbps *
				(erms || fsrm ? AUTO_MARGIN : 1.0) ?
				RXR_ZERO_NT : RXR_ZERO_CONTIG;
		else
			ac->pick = ac->contig_gbps > ac->nt_gbps * AUTO_MARGIN ?
				RXR_ZERO_CONTIG : RXR_ZERO_NT;
	}
	if (buf == MAP_FAILED)
		auto_status = -ENOMEM;
	else
		munmap(buf, AUTO_SCRATCH);
	auto_ms = (now_s() - t0) * 1e3;
}

enum rxr_zero_method
rxr_zero_auto_pick(size_t len)
{
	unsigned int i = 0;

	pthread_once(&auto_once, auto_measure);
	while (len > auto_class[i].max_len)
		i++;
	return auto_class[i].pick;
}

/* "inf", or whole KiB or MiB: the sizes of auto_class[]. */
static void
fmt_size(char *buf, size_t len, size_t v)
{
	bool mib = v >= (1u << 20);

	if (v == SIZE_MAX)
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%zu%c", v >> (mib ? 20 : 10), mib ? 'M' : 'K');
}

void
rxr_zero_auto_dump(FILE *out)
{
	pthread_once(&auto_once, auto_measure);
	fprintf(out, "# zero: cpu erms=%d fsrm=%d sse2=%d avx2=%d avx512f=%d clzero=%d, nt instruction %s\n",
		erms, fsrm, has_isa[RXR_ZERO_NT_SSE2], has_isa[RXR_ZERO_NT_AVX2],
		has_isa[RXR_ZERO_NT_AVX512], has_isa[RXR_ZERO_NT_CLZERO],
		nt_isa[nt_best].name);
	fprintf(out, "# zero: auto measured in %.1f ms (%.1f ms of it faulting in %u MiB of scratch)%s\n",
		auto_ms, auto_setup_ms, AUTO_SCRATCH >> 20,
		auto_status != 0 ? " (no scratch memory: features only)" : "");
	for (unsigned int i = 0; i < RTE_DIM(auto_class); i++) {
		const struct auto_class *ac = &auto_class[i];
		char mx[24], pr[24];

		fmt_size(mx, sizeof(mx), ac->max_len);
		fmt_size(pr, sizeof(pr), ac->probe_len);
		fprintf(out, "# zero: auto len<=%s: probe %s contig %.1f GB/s nt %.1f GB/s -> %s\n",
			mx, pr, ac->contig_gbps, ac->nt_gbps,
			rxr_zero_method_name(ac->pick));
	}
}

/* --- extents ------------------------------------------------------------- */

int
rxr_zero_extent(void *addr, size_t len, const struct rxr_zero_opts *opts)
{
	static const struct rxr_zero_opts defaults;
	enum rxr_zero_method m;
	enum rxr_zero_nt_isa isa;
	rxr_zero_yield_t yield;
	size_t chunk;

	if (opts == NULL)
		opts = &defaults;
	pthread_once(&cpu_once, cpu_detect);
	if ((unsigned int)opts->method >= RXR_ZERO_NR_METHODS ||
			(unsigned int)opts->nt_isa >= RXR_ZERO_NR_NT_ISAS ||
			!has_isa[opts->nt_isa] || (addr == NULL && len != 0) ||
			len > UINTPTR_MAX - (uintptr_t)addr)
		return -EINVAL;
	if (len == 0)
		return 0;
	isa = opts->nt_isa == RXR_ZERO_NT_BEST ? nt_best : opts->nt_isa;

	/* Without a yield nothing is chunked: one piece, no call. */
	yield = opts->yield;
	chunk = yield == NULL ? SIZE_MAX : opts->chunk != 0 ? opts->chunk :
		RXR_ZERO_CHUNK_DEFAULT;
	m = opts->method == RXR_ZERO_AUTO ? rxr_zero_auto_pick(len) :
		opts->method;
	switch (m) {
	case RXR_ZERO_NARROW: {
		struct narrow nw;
		uintptr_t ta = opts->target != NULL ?
			(uintptr_t)opts->target : (uintptr_t)addr;

		narrow_init(&nw, addr, len, chunk == SIZE_MAX ? SIZE_MAX :
				RTE_MAX(chunk / RXR_ZERO_SUBPAGE, (size_t)1),
				yield, opts->yield_arg);
		if (ta < nw.a || ta >= nw.e)
			return -EINVAL;
		narrow_clear(&nw, (ta - nw.base) / RXR_ZERO_SUBPAGE);
		break;
	}
	case RXR_ZERO_CONTIG:
	case RXR_ZERO_NT:
		chunks_clear(addr, len, chunk, m == RXR_ZERO_NT ? nt_isa[isa].body :
			NULL, yield, opts->yield_arg);
		break;
	default:
		return -EINVAL;
	}
	nt_check_fenced("rxr_zero_extent");
	return 0;
}

/* Narrow for frames: no yields, converging on subpage 0 (the data). */
static void
narrow_frame(void *p, size_t len)
{
	struct narrow nw;

	narrow_init(&nw, p, len, SIZE_MAX, NULL, NULL);
	narrow_clear(&nw, 0);
}

/* --- names --------------------------------------------------------------- */

/* In the order of their enums. */
static const char *const method_names[] = { "auto", "narrow", "contig", "nt" };
static const char *const policy_names[] = {
	"none", "alloc", "free", "background",
};
_Static_assert(RTE_DIM(method_names) == RXR_ZERO_NR_METHODS &&
	RTE_DIM(policy_names) == RXR_ZERO_NR_POLICIES, "a name per value");

/* Index of name in names[], or -EINVAL with a message listing them. */
static int
parse_name(const char *what, const char * const *names, unsigned int nr,
		const char *name, char *err, size_t errlen)
{
	size_t off;

	for (unsigned int i = 0; name != NULL && i < nr; i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	if (err != NULL && errlen > 0) {
		off = snprintf(err, errlen, "unknown %s '%s' (expected one of:",
				what, name != NULL ? name : "(null)");
		for (unsigned int i = 0; i < nr && off < errlen; i++)
			off += snprintf(err + off, errlen - off, "%s %s",
					i == 0 ? "" : ",", names[i]);
		if (off < errlen)
			snprintf(err + off, errlen - off, ")");
	}
	return -EINVAL;
}

const char *
rxr_zero_method_name(enum rxr_zero_method m)
{
	return (unsigned int)m < RXR_ZERO_NR_METHODS ? method_names[m] :
		"unknown";
}

int
rxr_zero_method_parse(const char *name, enum rxr_zero_method *m, char *err,
		size_t errlen)
{
	int i = parse_name("zeroing method", method_names,
			RXR_ZERO_NR_METHODS, name, err, errlen);

	if (i >= 0)
		*m = (enum rxr_zero_method)i;
	return RTE_MIN(i, 0);
}

const char *
rxr_zero_policy_name(enum rxr_zero_policy p)
{
	return (unsigned int)p < RXR_ZERO_NR_POLICIES ? policy_names[p] :
		"unknown";
}

int
rxr_zero_policy_parse(const char *name, enum rxr_zero_policy *p, char *err,
		size_t errlen)
{
	int i = parse_name("zeroing policy", policy_names,
			RXR_ZERO_NR_POLICIES, name, err, errlen);

	if (i >= 0)
		*p = (enum rxr_zero_policy)i;
	return RTE_MIN(i, 0);
}

/* --- the testing slowdown ----------------------------------------------- */

/* One step of the slowdown's chain: each depends on the last. */
static inline uint64_t
delay_step(uint64_t x)
{
	x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	__asm__ volatile("" : "+r" (x));
	return x;
}

/* No instruction after it starts before every one before it is done (the
 * file is x86's alone: REP STOSB, streaming stores). */
static inline void
delay_fence(void)
{
	__asm__ volatile("lfence" : : : "memory");
}

/* Work, not a spin on the clock: the same CPU time under any load. Fenced
 * on both sides so that its cost adds in full to the caller's misses. */
void
rxr_zero_test_work(uint64_t steps)
{
	uint64_t x = steps;

	delay_fence();
	for (uint64_t i = 0; i < steps; i++)
		x = delay_step(x);
	__asm__ volatile("" : : "r" (x));
	delay_fence();
}

uint64_t
rxr_zero_test_steps(uint32_t cycles)
{
	const uint64_t n = 1 << 16;
	uint64_t best = UINT64_MAX, x = 1;

	/* The fastest of a few timings: the others were preempted. */
	for (int t = 0; cycles != 0 && t < 5; t++) {
		uint64_t t0 = rte_rdtsc_precise();

		for (uint64_t i = 0; i < n; i++)
			x = delay_step(x);
		best = RTE_MIN(best, rte_rdtsc_precise() - t0);
	}
	__asm__ volatile("" : : "r" (x));
	return cycles == 0 ? 0 : RTE_MAX((uint64_t)1,
		((uint64_t)cycles * n + best - 1) / RTE_MAX(best, (uint64_t)1));
}

/* rxr_zero_test_delay(): steps of work per frame, by method. */
static uint64_t test_steps[RXR_ZERO_NR_METHODS];

int
rxr_zero_test_delay(enum rxr_zero_method method, uint32_t cycles)
{
	if (method == RXR_ZERO_AUTO || (unsigned int)method >= RXR_ZERO_NR_METHODS)
		return -EINVAL;
	test_steps[method] = rxr_zero_test_steps(cycles);
	return 0;
}

/* --- frame payloads ------------------------------------------------------ */

int
rxr_zero_payload_init(struct rxr_zero_payload *p, uint32_t frame_size,
		uint32_t offset, uint32_t len, enum rxr_zero_method method)
{
	if ((uint64_t)offset + len > frame_size ||
			(unsigned int)method >= RXR_ZERO_NR_METHODS)
		return -EINVAL;
	if (method == RXR_ZERO_AUTO)
		method = rxr_zero_auto_pick(len);
	p->offset = offset;
	p->len = len;
	p->method = method;
	pthread_once(&cpu_once, cpu_detect);
	p->nt_isa = nt_best;
	return 0;
}

void
rxr_zero_payload_bulk(const struct rxr_zero_payload *p, void * const *frames,
		unsigned int n)
{
	const uint32_t off = p->offset, len = p->len;
	unsigned int i;

	if (unlikely(test_steps[p->method] != 0))
		rxr_zero_test_work(n * test_steps[p->method]);
	/* One decision per bulk, none per frame. */
	switch (p->method) {
	case RXR_ZERO_NT: {
		nt_body_t body = nt_isa[p->nt_isa].body;

		for (i = 0; i < n; i++)
			nt_clear_nofence((char *)frames[i] + off, len, body);
		/* Before anyone is told about these frames. */
		nt_fence();
		break;
	}
	case RXR_ZERO_NARROW:
		for (i = 0; i < n; i++)
			narrow_frame((char *)frames[i] + off, len);
		break;
	default:
		for (i = 0; i < n; i++)
			stosb((char *)frames[i] + off, len);
		break;
	}
	nt_check_fenced("rxr_zero_payload_bulk");
}
