/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Unit tests of the clear methods: every byte of the extent zero, no byte
 * outside it written (0xA5 guards), chunk boundaries and yields as
 * documented, narrow's order observed from memory at each yield, names.
 * No EAL: the methods work on any memory.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_test.h"
#include "rxr_zero.h"
#include "zero_isa.h"

#define GUARD 8192u
#define PAT 0xA5

/* Methods and nt instructions to run every check with. */
struct variant {
	const char *name;
	enum rxr_zero_method method;
	enum rxr_zero_nt_isa isa;
};

static struct variant variants[8];
static unsigned int nr_variants;

static void
variants_init(void)
{
	static const enum rxr_zero_nt_isa isas[] = {
		RXR_ZERO_NT_SSE2, RXR_ZERO_NT_AVX2, RXR_ZERO_NT_AVX512,
		RXR_ZERO_NT_CLZERO,
	};
	static char names[4][32];

	variants[nr_variants++] = (struct variant){ "narrow", RXR_ZERO_NARROW, 0 };
	variants[nr_variants++] = (struct variant){ "contig", RXR_ZERO_CONTIG, 0 };
	variants[nr_variants++] = (struct variant){ "auto", RXR_ZERO_AUTO, 0 };
	for (unsigned int i = 0; i < RTE_DIM(isas); i++) {
		if (!isa_supported(isas[i])) {
			printf("# nt-%s: not on this CPU, not tested\n",
				isa_names[isas[i]]);
			continue;
		}
		snprintf(names[i], sizeof(names[i]), "nt-%s",
			isa_names[isas[i]]);
		variants[nr_variants++] = (struct variant){ names[i],
			RXR_ZERO_NT, isas[i] };
	}
}

/* A buffer: GUARD, up to 4 KiB of misalignment, the extent, GUARD. */
static uint8_t *buf;
static size_t buf_cap;	/* allocated */
static size_t buf_len;	/* in use by the current case */

static uint8_t *
buf_get(size_t len, size_t misalign)
{
	size_t need = len + 2 * GUARD + 4096;

	if (need > buf_cap) {
		free(buf);
		if (posix_memalign((void **)&buf, 4096, need) != 0)
			abort();
		buf_cap = need;
	}
	buf_len = need;
	memset(buf, PAT, need);
	return buf + GUARD + misalign;
}

/* First offset in [p, p + len) whose byte is not v, or len. */
static size_t
first_not(const uint8_t *p, size_t len, uint8_t v)
{
	size_t i = 0;

	/* Words first: the 2 MiB cases would be slow byte by byte. */
	uint64_t w = 0x0101010101010101ull * v, x;

	for (; i < len && ((uintptr_t)(p + i) & 7) != 0; i++)
		if (p[i] != v)
			return i;
	for (; i + 8 <= len; i += 8) {
		memcpy(&x, p + i, 8);
		if (x != w)
			break;
	}
	for (; i < len; i++)
		if (p[i] != v)
			return i;
	return len;
}

/* The extent is all zero and everything else in the buffer is PAT. */
static int
check_extent(const uint8_t *ext, size_t len, const char *what)
{
	size_t head = ext - buf, tail = buf_len - head - len, off;

	off = first_not(buf, head, PAT);
	RXR_TEST_ASSERT(off == head, "%s: byte %zd before the extent written",
		what, (ssize_t)off - (ssize_t)head);
	off = first_not(ext, len, 0);
	RXR_TEST_ASSERT(off == len, "%s: byte %zu of %zu not zero", what,
		off, len);
	off = first_not(ext + len, tail, PAT);
	RXR_TEST_ASSERT(off == tail, "%s: byte %zu after the extent written",
		what, off);
	return 0;
}

static const size_t sizes[] = {
	0, 1, 2, 63, 64, 65, 127, 255, 256, 257, 4095, 4096, 4097, 8191,
	12288, (64u << 10) + 13, (1u << 20) - 1, 2u << 20,
};
static const size_t misaligns[] = { 0, 1, 8, 13, 63, 64, 100, 4095 };
/* 0 means no yield (one piece); the others are chunk sizes. */
static const size_t chunks[] = { 0, 1000, 4096, 65536 };

struct yield_log {
	unsigned long calls;
};

static void
count_yield(void *arg)
{
	((struct yield_log *)arg)->calls++;
}

static int
test_fill(void)
{
	char what[160];

	for (unsigned int v = 0; v < nr_variants; v++)
	for (unsigned int s = 0; s < RTE_DIM(sizes); s++)
	for (unsigned int m = 0; m < RTE_DIM(misaligns); m++)
	for (unsigned int c = 0; c < RTE_DIM(chunks); c++) {
		size_t len = sizes[s];
		uint8_t *ext;
		struct yield_log yl = { 0 };
		struct rxr_zero_opts o = {
			.method = variants[v].method,
			.nt_isa = variants[v].isa,
			.chunk = chunks[c],
			.yield = chunks[c] != 0 ? count_yield : NULL,
			.yield_arg = &yl,
		};

		/* The largest size only with the first chunk sizes: enough
		 * for its tail and quick. */
		if (len > (64u << 10) && c > 1)
			continue;
		ext = buf_get(len, misaligns[m]);
		/* narrow converges on the middle: both loops run. */
		o.target = ext + len / 2;
		snprintf(what, sizeof(what), "%s len %zu misalign %zu chunk %zu",
			variants[v].name, len, misaligns[m], chunks[c]);
		RXR_TEST_ASSERT_EQ(rxr_zero_extent(ext, len, &o), 0, what);
		if (check_extent(ext, len, what) != 0)
			return -1;
	}
	return 0;
}

/*
 * Chunk boundaries: at the k-th yield exactly the first k chunks are zero
 * and the rest still holds the pattern; exactly ceil(len / chunk) - 1 yields.
 */
struct progress {
	uint8_t *ext;
	size_t len;
	size_t chunk;
	unsigned long calls;
	int bad;
};

static void
progress_yield(void *arg)
{
	struct progress *p = arg;
	size_t done = ++p->calls * p->chunk, prev = done - p->chunk, next;

	if (p->bad)
		return;
	if (done >= p->len) {
		printf("# yield %lu at or after the end (%zu >= %zu)\n",
			p->calls, done, p->len);
		p->bad = 1;
		return;
	}
	/* Linear cost: the chunk just done, the one ahead and the last
	 * byte; check_extent() covers everything once at the end. */
	next = RTE_MIN(p->chunk, p->len - done);
	if (first_not(p->ext + prev, p->chunk, 0) != p->chunk) {
		printf("# yield %lu: bytes %zu..%zu not all zero\n",
			p->calls, prev, done);
		p->bad = 1;
	} else if (first_not(p->ext + done, next, PAT) != next ||
			p->ext[p->len - 1] != PAT) {
		printf("# yield %lu: bytes past %zu already written\n",
			p->calls, done);
		p->bad = 1;
	}
}

static int
test_chunk_yields(void)
{
	static const size_t lens[] = { 1, 4095, 4096, 4097, 65536, 65537,
		(256u << 10) + 1, 1u << 20 };
	static const size_t cks[] = { 1, 7, 64, 1000, 4096, 65536,
		RXR_ZERO_CHUNK_DEFAULT };
	char what[160];

	for (unsigned int v = 0; v < nr_variants; v++)
	for (unsigned int l = 0; l < RTE_DIM(lens); l++)
	for (unsigned int c = 0; c < RTE_DIM(cks); c++)
	for (unsigned int m = 0; m < 2; m++) {
		struct progress p = { .len = lens[l], .chunk = cks[c] };
		struct rxr_zero_opts o = {
			.method = variants[v].method,
			.nt_isa = variants[v].isa,
			.chunk = cks[c],
			.yield = progress_yield,
			.yield_arg = &p,
		};
		unsigned long expect = (p.len + p.chunk - 1) / p.chunk - 1;

		/* narrow's chunks are whole subpages: its own test. auto
		 * is contig or nt, both covered. */
		if (o.method == RXR_ZERO_NARROW || o.method == RXR_ZERO_AUTO)
			continue;
		/* Byte-sized chunks of a MiB: a million yields, pointless. */
		if (p.len / p.chunk > 20000)
			continue;
		p.ext = buf_get(p.len, m == 0 ? 0 : 13);
		snprintf(what, sizeof(what), "%s len %zu chunk %zu misalign %s",
			variants[v].name, p.len, p.chunk, m == 0 ? "0" : "13");
		RXR_TEST_ASSERT_EQ(rxr_zero_extent(p.ext, p.len, &o), 0, what);
		RXR_TEST_ASSERT(!p.bad, "%s: wrong progress at a yield", what);
		RXR_TEST_ASSERT_EQ(p.calls, expect, what);
		if (check_extent(p.ext, p.len, what) != 0)
			return -1;
	}
	/* The default chunk when opts.chunk is 0. */
	{
		struct yield_log yl = { 0 };
		struct rxr_zero_opts o = {
			.method = RXR_ZERO_CONTIG,
			.yield = count_yield,
			.yield_arg = &yl,
		};
		size_t len = 10 * (size_t)RXR_ZERO_CHUNK_DEFAULT + 1;
		uint8_t *ext = buf_get(len, 0);

		RXR_TEST_ASSERT_EQ(rxr_zero_extent(ext, len, &o), 0, "default");
		RXR_TEST_ASSERT_EQ(yl.calls, 10, "yields at the default chunk");
	}
	return 0;
}

/*
 * narrow's order, observed from memory: with one subpage per yield, each
 * yield finds exactly one more subpage zero (wholly), never touched before.
 * The subpage still holding the pattern after the last yield is the one
 * cleared last: it must be the target. Each subpage cleared must be no
 * farther from the target than the one before (Linux's order).
 */
struct order {
	uint8_t *ext;
	size_t len;
	size_t n;		/* subpages */
	uintptr_t base;		/* start of subpage 0 */
	uint8_t *cleared;	/* per subpage */
	size_t *seq;		/* subpages in the order observed */
	size_t nr_seq;
	unsigned long calls;
	int bad;
};

static void
sub_range(const struct order *o, size_t i, uint8_t **s, size_t *len)
{
	uintptr_t a = (uintptr_t)o->ext, e = a + o->len;
	uintptr_t lo = RTE_MAX(o->base + i * 4096, a);
	uintptr_t hi = RTE_MIN(o->base + (i + 1) * 4096, e);

	*s = (uint8_t *)lo;
	*len = hi - lo;
}

static void
order_yield(void *arg)
{
	struct order *o = arg;
	size_t newly = 0, which = 0;

	o->calls++;
	if (o->bad)
		return;
	for (size_t i = 0; i < o->n; i++) {
		uint8_t *s;
		size_t l;

		if (o->cleared[i])
			continue;
		sub_range(o, i, &s, &l);
		/* Untouched subpages hold the pattern at both ends. */
		if (s[0] == PAT && s[l - 1] == PAT)
			continue;
		if (first_not(s, l, 0) != l) {
			printf("# yield %lu: subpage %zu partly cleared\n",
				o->calls, i);
			o->bad = 1;
			return;
		}
		o->cleared[i] = 1;
		which = i;
		newly++;
	}
	if (newly != 1) {
		printf("# yield %lu: %zu subpages newly cleared, expected 1\n",
			o->calls, newly);
		o->bad = 1;
		return;
	}
	o->seq[o->nr_seq++] = which;
}

static size_t
dist(size_t a, size_t b)
{
	return a > b ? a - b : b - a;
}

static int
narrow_order_case(size_t len, size_t misalign, size_t target)
{
	struct order o = { .len = len };
	struct rxr_zero_opts opts = {
		.method = RXR_ZERO_NARROW,
		.chunk = 4096,
		.yield = order_yield,
		.yield_arg = &o,
	};
	char what[128];
	int ret = -1;
	uint8_t *s;
	size_t l;

	o.ext = buf_get(len, misalign);
	o.base = (uintptr_t)o.ext & ~(uintptr_t)4095;
	o.n = ((uintptr_t)o.ext + len + 4095 - o.base) / 4096;
	if (target >= o.n)
		target = o.n - 1;
	o.cleared = calloc(o.n, 1);
	o.seq = calloc(o.n, sizeof(*o.seq));
	if (o.cleared == NULL || o.seq == NULL)
		goto out;
	/* Any byte of the subpage: its last, then its first. */
	sub_range(&o, target, &s, &l);
	opts.target = s + (target % 2 == 0 ? l - 1 : 0);
	snprintf(what, sizeof(what), "narrow len %zu misalign %zu target %zu",
		len, misalign, target);

	if (rxr_zero_extent(o.ext, len, &opts) != 0) {
		printf("# %s: failed\n", what);
		goto out;
	}
	if (o.bad || o.calls != o.n - 1 || o.nr_seq != o.n - 1) {
		printf("# %s: %lu yields, %zu observed, %zu subpages\n",
			what, o.calls, o.nr_seq, o.n);
		goto out;
	}
	/* The one not seen at any yield was cleared after the last. */
	for (size_t i = 0; i < o.n; i++)
		if (!o.cleared[i])
			o.seq[o.nr_seq++] = i;
	if (o.nr_seq != o.n || o.seq[o.n - 1] != target) {
		printf("# %s: last cleared subpage %zu, expected the target\n",
			what, o.seq[o.nr_seq - 1]);
		goto out;
	}
	for (size_t i = 1; i < o.n; i++)
		if (dist(o.seq[i], target) > dist(o.seq[i - 1], target)) {
			printf("# %s: step %zu clears subpage %zu, farther than %zu\n",
				what, i, o.seq[i], o.seq[i - 1]);
			goto out;
		}
	if (check_extent(o.ext, len, what) != 0)
		goto out;
	ret = 0;
out:
	free(o.cleared);
	free(o.seq);
	return ret;
}

static int
test_narrow_order(void)
{
	/* A 2 MiB hugepage, and an unaligned extent with partial ends. */
	static const struct { size_t len, misalign; } ext[] = {
		{ 2u << 20, 0 }, { (64u << 10) + 13, 100 }, { 3 * 4096, 4095 },
		{ 4096, 0 }, { 100, 4000 },
	};

	for (unsigned int e = 0; e < RTE_DIM(ext); e++) {
		size_t n = (ext[e].misalign + ext[e].len + 4095) / 4096;
		size_t targets[] = { 0, 1, n / 2 - (n > 1), n / 2, n / 2 + 1,
			n - 2 + (n < 2), n - 1 };

		for (unsigned int t = 0; t < RTE_DIM(targets); t++)
			if (narrow_order_case(ext[e].len, ext[e].misalign,
					targets[t]) != 0)
				return -1;
	}
	return 0;
}

/* narrow's yields: every chunk / 4096 subpages, never after the last. */
static int
test_narrow_yields(void)
{
	static const struct { size_t len, chunk; unsigned long expect; } c[] = {
		{ 2u << 20, 65536, 31 },	/* 512 subpages, 16 per yield */
		{ 2u << 20, 1000, 511 },	/* below a subpage: 1 per yield */
		{ 4096, 4096, 0 },
		{ 40960, 8192, 4 },
		{ 40961, 8192, 5 },
	};

	for (unsigned int i = 0; i < RTE_DIM(c); i++) {
		struct yield_log yl = { 0 };
		struct rxr_zero_opts o = {
			.method = RXR_ZERO_NARROW,
			.chunk = c[i].chunk,
			.yield = count_yield,
			.yield_arg = &yl,
		};
		uint8_t *ext = buf_get(c[i].len, 0);

		o.target = ext + c[i].len - 1;

		RXR_TEST_ASSERT_EQ(rxr_zero_extent(ext, c[i].len, &o), 0,
			"narrow");
		RXR_TEST_ASSERT_EQ(yl.calls, c[i].expect, "narrow yields");
		if (check_extent(ext, c[i].len, "narrow yields") != 0)
			return -1;
	}
	return 0;
}

static int
test_invalid(void)
{
	uint8_t *ext = buf_get(8192, 0);
	struct rxr_zero_opts o = { .method = RXR_ZERO_NARROW };

	/* A target outside the extent. */
	o.target = ext + 8192;
	RXR_TEST_ASSERT_EQ(rxr_zero_extent(ext, 8192, &o), -EINVAL, "target after");
	o.target = ext - 1;
	RXR_TEST_ASSERT_EQ(rxr_zero_extent(ext, 8192, &o), -EINVAL, "target before");
	o.method = RXR_ZERO_NR_METHODS;
	RXR_TEST_ASSERT_EQ(rxr_zero_extent(ext, 8192, &o), -EINVAL, "method");
	o.method = RXR_ZERO_NT;
	o.nt_isa = RXR_ZERO_NR_NT_ISAS;
	RXR_TEST_ASSERT_EQ(rxr_zero_extent(ext, 8192, &o), -EINVAL, "isa");
	RXR_TEST_ASSERT_EQ(rxr_zero_extent(NULL, 1, NULL), -EINVAL, "NULL");
	/* Nothing was written by the refused calls. */
	RXR_TEST_ASSERT(first_not(buf, buf_len, PAT) == buf_len,
		"a refused call wrote");
	RXR_TEST_ASSERT_EQ(rxr_zero_extent(NULL, 0, NULL), 0, "empty");
	return 0;
}

static int
test_names(void)
{
	enum rxr_zero_method m;
	enum rxr_zero_policy p;
	char err[160];

	for (int i = 0; i < RXR_ZERO_NR_METHODS; i++) {
		RXR_TEST_ASSERT_EQ(rxr_zero_method_parse(
			rxr_zero_method_name(i), &m, NULL, 0), 0, "method");
		RXR_TEST_ASSERT_EQ(m, i, "method round trip");
	}
	for (int i = 0; i < RXR_ZERO_NR_POLICIES; i++) {
		RXR_TEST_ASSERT_EQ(rxr_zero_policy_parse(
			rxr_zero_policy_name(i), &p, NULL, 0), 0, "policy");
		RXR_TEST_ASSERT_EQ(p, i, "policy round trip");
	}
	RXR_TEST_ASSERT(strcmp(rxr_zero_method_name(RXR_ZERO_NT), "nt") == 0,
		"nt name");
	RXR_TEST_ASSERT(strcmp(rxr_zero_policy_name(RXR_ZERO_POLICY_BACKGROUND),
		"background") == 0, "background name");
	RXR_TEST_ASSERT(strcmp(rxr_zero_method_name(99), "unknown") == 0,
		"out of range");

	m = RXR_ZERO_NT;
	RXR_TEST_ASSERT_EQ(rxr_zero_method_parse("stosb", &m, err,
		sizeof(err)), -EINVAL, "unknown method");
	RXR_TEST_ASSERT_EQ(m, RXR_ZERO_NT, "untouched on error");
	printf("# %s\n", err);
	RXR_TEST_ASSERT(strstr(err, "'stosb'") != NULL &&
		strstr(err, "auto, narrow, contig, nt") != NULL,
		"message names the input and the choices: %s", err);
	RXR_TEST_ASSERT_EQ(rxr_zero_policy_parse("Alloc", &p, err,
		sizeof(err)), -EINVAL, "case matters");
	printf("# %s\n", err);
	RXR_TEST_ASSERT(strstr(err, "none, alloc, free, background") != NULL,
		"policy message: %s", err);
	RXR_TEST_ASSERT_EQ(rxr_zero_policy_parse(NULL, &p, err, 8), -EINVAL,
		"NULL name");
	RXR_TEST_ASSERT_EQ(rxr_zero_method_parse("", &m, NULL, 0), -EINVAL,
		"empty name");
	return 0;
}

static int
test_auto(void)
{
	static const size_t lens[] = { 1, 4096, 4097, 65536, 2u << 20,
		(2u << 20) + 1, 1u << 30 };
	char *dump = NULL, *line, *save = NULL;
	unsigned int classes = 0;
	size_t dump_len = 0;
	FILE *f = open_memstream(&dump, &dump_len);

	RXR_TEST_ASSERT(f != NULL, "no memory");
	rxr_zero_auto_dump(f);
	fclose(f);
	fputs(dump, stdout);
	for (unsigned int i = 0; i < RTE_DIM(lens); i++) {
		enum rxr_zero_method m = rxr_zero_auto_pick(lens[i]);

		RXR_TEST_ASSERT(m == RXR_ZERO_CONTIG || m == RXR_ZERO_NT,
			"auto picks a concrete method for %zu: %d", lens[i], m);
	}
	/* Each class measured, and its bound picks what the table says. */
	for (line = strtok_r(dump, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save)) {
		char max[16], pick[16];
		double contig, nt;
		size_t bound;

		if (sscanf(line, "# zero: auto len<=%15[^:]: probe %*s contig %lf "
				"GB/s nt %lf GB/s -> %15s", max, &contig, &nt,
				pick) != 4)
			continue;
		classes++;
		RXR_TEST_ASSERT(contig > 0 && nt > 0, "class %s measured", max);
		bound = strcmp(max, "inf") == 0 ? SIZE_MAX : strtoul(max, NULL,
			10) << (strchr(max, 'M') != NULL ? 20 : 10);
		RXR_TEST_ASSERT(strcmp(rxr_zero_method_name(
			rxr_zero_auto_pick(bound)), pick) == 0,
			"pick of the class bound %s", max);
		if (bound == SIZE_MAX)
			break;
	}
	free(dump);
	RXR_TEST_ASSERT_EQ(classes, 4, "classes up to an open last one");
	return 0;
}

/* Payload areas: cleared; header and trailer of each frame untouched. */
static int
test_payload(void)
{
	enum { FRAME = 4096, N = 40 };
	static const struct { uint32_t off, len; } areas[] = {
		{ 128, 2048 }, { 192, 3000 }, { 0, FRAME }, { 100, 0 },
		{ 4095, 1 },
	};
	struct rxr_zero_payload p;
	void *frames[N];
	uint8_t *mem;
	char what[96];

	RXR_TEST_ASSERT_EQ(rxr_zero_payload_init(&p, FRAME, 128, FRAME - 127,
		RXR_ZERO_CONTIG), -EINVAL, "payload past the frame");
	RXR_TEST_ASSERT_EQ(rxr_zero_payload_init(&p, FRAME, UINT32_MAX, 2,
		RXR_ZERO_CONTIG), -EINVAL, "offset overflow");
	RXR_TEST_ASSERT_EQ(rxr_zero_payload_init(&p, FRAME, 0, 1,
		RXR_ZERO_NR_METHODS), -EINVAL, "bad method");
	for (unsigned int m = 0; m < RXR_ZERO_NR_METHODS; m++)
	for (unsigned int a = 0; a < RTE_DIM(areas); a++) {
		mem = buf_get((size_t)N * FRAME * 2, 0);
		/* Every other frame: the gaps must stay untouched too. */
		for (unsigned int i = 0; i < N; i++)
			frames[i] = mem + (size_t)(N - 1 - i) * 2 * FRAME;
		snprintf(what, sizeof(what), "%s payload %u+%u",
			rxr_zero_method_name(m), areas[a].off, areas[a].len);
		RXR_TEST_ASSERT_EQ(rxr_zero_payload_init(&p, FRAME, areas[a].off,
			areas[a].len, m), 0, what);
		RXR_TEST_ASSERT(p.method != RXR_ZERO_AUTO, "%s: resolved", what);
		rxr_zero_payload_bulk(&p, frames, N);
		for (unsigned int i = 0; i < N; i++) {
			uint8_t *f = frames[i];

			RXR_TEST_ASSERT(first_not(f, areas[a].off, PAT) ==
				areas[a].off, "%s: header written", what);
			RXR_TEST_ASSERT(first_not(f + areas[a].off,
				areas[a].len, 0) == areas[a].len,
				"%s: payload not zero", what);
			RXR_TEST_ASSERT(first_not(f + areas[a].off +
				areas[a].len, 2 * FRAME - areas[a].off -
				areas[a].len, PAT) == 2 * FRAME -
				areas[a].off - areas[a].len,
				"%s: trailer written", what);
		}
	}
	return 0;
}

int
main(void)
{
	printf("# nt uses %s (the auto test prints the CPU's features)\n",
		isa_names[isa_best()]);
	variants_init();
	rxr_test_run("names", test_names);
	rxr_test_run("invalid", test_invalid);
	rxr_test_run("fill every method, size, alignment, chunk", test_fill);
	rxr_test_run("chunk yields and progress", test_chunk_yields);
	rxr_test_run("narrow yields", test_narrow_yields);
	rxr_test_run("narrow clears the target last", test_narrow_order);
	rxr_test_run("auto", test_auto);
	rxr_test_run("payload areas", test_payload);
	free(buf);
	return rxr_test_done();
}
