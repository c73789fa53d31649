/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The path a PMD runs, against DPDK's default. Every strategy serves an
 * mbuf pool made by rxr_pktmbuf_pool_create() with rxrefill's default
 * options (read from the application's own option parser, so frame size,
 * refill timing, pcp high/batch and zeroing are what `rxrefill` runs with),
 * and is reached the way a PMD reaches it:
 *   rte_pktmbuf_alloc_bulk() -> rte_mempool_get_bulk() -> (cache size 0)
 *   -> ops dequeue -> the strategy; rte_pktmbuf_free_bulk() ->
 *   rte_mempool_put_bulk() -> ops enqueue -> the strategy;
 * and one rxr_pool_poll_end() per burst, as the poll loop does, with the
 * latency window the poll loop opens (one burst in --latency-every timed
 * through rxr_pool_sample(), none with --no-latency). The peer is
 * a pool from rte_pktmbuf_pool_create() with a 256 cache (ring_mp_mc
 * behind it), on the same lcore, through the same calls.
 *
 *   bulk32: bursts of 32 with the strategy's bulk on;
 *   bulk1:  32 calls of one frame (rte_pktmbuf_alloc()/rte_pktmbuf_free())
 *           a burst, with the strategy's bulk off (a driver that refills
 *           one descriptor at a time).
 *
 * Each trial runs every configuration once, in turn (A B C ... A B C ...);
 * a trial's figure is the median over timed regions of 64 bursts (a region
 * that held a preemption is an outlier, not a mean's weight), in cycles per
 * frame for one alloc and one free. Ratios are taken trial by trial against
 * the peer of the same trial: the median ratio is printed with the lowest
 * and highest.
 *
 * Each trial makes every pool anew behind a spacer of another size, and
 * runs on a stack at another page offset (rxr_bench_on_stack()), so that
 * where the pools' structures and objects fall (against each other, the
 * burst array, 4 KiB boundaries, the cache's sets) changes from trial to
 * trial: a figure is a median over layouts, not one layout's luck (with
 * the pools made once, one pool structure 16 bytes larger moved a ratio
 * by 30% on one CPU).
 *
 * A third configuration per call size, ops_floor, is what any mempool
 * driver without a cache pays at least on this path: DPDK's dispatch
 * through the ops table to a driver whose dequeue and enqueue are a bare
 * array stack (no protection, no lookup; one lcore only, so not a real
 * driver). ops_floor_over_mempool_cache is the structural part of every
 * ratio; <strategy>_via_mempool_over_ops_floor what the strategy adds.
 * A fourth, ops_floor_section, is the same stack inside bh's kind of
 * section (a flag stored, a drain request loaded, the flag cleared) with
 * a frame counter: the least a driver pays that keeps its stack safe from
 * a same-CPU handler and counts its frames, as bh does;
 * ops_floor_section_over_ops_floor is what that mechanism alone costs.
 *
 * Runs twice, each in a child process: on hugepages (when usable) and on
 * ordinary memory (--no-huge); each figure's name ends .huge or .nohuge
 * (RXR_BENCH_MEMORY=huge or nohuge in the environment: that run only).
 * Output: "bench: <name> <value> <unit>", "ratio: <name> <value> (min ..,
 * max .., N trials)" (lower is better); never fails on a slow figure, only
 * when it cannot measure (set-up, an allocation failure, frames lost).
 *
 * Usage: bench_mempool_path [--quick] [--trials N] [--only TEXT]
 *                           [-- rxrefill options]
 *   --quick      3 trials of fewer frames (a smoke run, noisier)
 *   --trials N   interleaved trials (default 9)
 *   --only TEXT  only the configurations whose name holds TEXT, with the
 *                peer of the same call size (for perf or callgrind)
 *   --solo TEXT  only the configurations whose name holds TEXT, peers
 *                too only if theirs does, no ratios: one path per process,
 *                for instruction counts (callgrind)
 *   -- ...       rxrefill options that change the defaults, e.g.
 *                --no-latency or --frame-size 4096
 */

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rxrefill.h"
#include "rxr_mempool.h"
#include "rxr_pcp.h"
#include "rxr_strategy.h"
#include "rxr_test.h"

#define BURST 32u
#define REGION 64u		/* bursts per timed region */
#define POOL_FRAMES 4096u	/* far above what is in flight */
#define PEER_CACHE 256u
#define MAX_TRIALS 31
#define MAX_REGIONS 4096u

enum pool_kind { POOL_PEER, POOL_FLOOR, POOL_FLOOR_SECTION, POOL_OURS };

struct config {
	char name[64];
	enum pool_kind kind;
	enum rxr_strategy strategy;	/* POOL_OURS */
	struct config *same_pool;	/* app_free: the pool of this one */
	struct rte_mempool *mp;
	struct rxr_pool *pool;		/* NULL: the DPDK peer or the floor */
	bool single;			/* bulk1 */
	bool app_free;			/* frees as the app: rxr_pktmbuf_free_bulk() */
	char label[48];			/* name in ratios */
	const struct config *peer;
	const struct config *floor;
	const struct config *floor_section;	/* POOL_OURS */
	double trial[MAX_TRIALS];	/* cycles per frame */
};

/*
 * The floor: a cacheless driver that does nothing but move pointers, one
 * array stack per pool, for the lcore that runs the benchmark only. The
 * stack is a struct rxr_pcp (count, frames) and the section's floor
 * enters and leaves bh's own section (__rxr_pool_bh_enter_outer()) and
 * counts in the stack's stats as bh's inline path does; nothing ever asks
 * it to drain.
 */
static struct rxr_pool_bh floor_bh;

static int
floor_alloc(struct rte_mempool *mp)
{
	struct rxr_pcp *st = rte_zmalloc_socket("bmp_floor",
			sizeof(*st) + (size_t)mp->size * sizeof(void *),
			RTE_CACHE_LINE_SIZE, mp->socket_id);

	if (st == NULL)
		return -ENOMEM;
	mp->pool_data = st;
	return 0;
}

static void
floor_free(struct rte_mempool *mp)
{
	rte_free(mp->pool_data);
}

static __rte_always_inline bool
floor_enter(struct rxr_pcp *st, const bool section)
{
	return !section || likely(__rxr_pool_bh_enter_outer(&floor_bh));
}

/* Out of the section, n frames counted in *stat as bh counts them. */
static __rte_always_inline void
floor_leave(struct rxr_pcp *st, uint64_t *stat, unsigned int n,
		const bool section)
{
	if (section) {
		RXR_STAT_ADD(*stat, n);
		__rxr_pool_bh_leave_outer(&floor_bh);
	}
}

static __rte_always_inline int
floor_push(struct rte_mempool *mp, void * const *objs, unsigned int n,
		const bool section)
{
	struct rxr_pcp *st = mp->pool_data;
	uint32_t len;

	if (unlikely(!floor_enter(st, section)))
		return -EBUSY;
	len = st->count;
	if (n == 1)
		st->frames[len] = objs[0];
	else
		memcpy(&st->frames[len], objs, n * sizeof(*objs));
	st->count = len + n;
	floor_leave(st, &st->stats.free, n, section);
	return 0;
}

static __rte_always_inline int
floor_pop(struct rte_mempool *mp, void **objs, unsigned int n,
		const bool section)
{
	struct rxr_pcp *st = mp->pool_data;
	uint32_t len;

	if (unlikely(!floor_enter(st, section)))
		return -EBUSY;
	len = st->count;
	if (unlikely(n > len)) {
		floor_leave(st, &st->stats.alloc, 0, section);
		return -ENOBUFS;
	}
	len -= n;
	st->count = len;
	if (n == 1)
		objs[0] = st->frames[len];
	else
		memcpy(objs, &st->frames[len], n * sizeof(*objs));
	floor_leave(st, &st->stats.alloc, n, section);
	return 0;
}

static unsigned int
floor_get_count(const struct rte_mempool *mp)
{
	return ((const struct rxr_pcp *)mp->pool_data)->count;
}

/*
 * The two floors' ops: bare (false) or in the section (true). One frame
 * has a copy of its own, as in the driver, so that it is leaf code that
 * saves no register around the bulk copy's call.
 */
#define FLOOR_OPS(pfx, ops_name, section) \
static __rte_noinline int \
pfx##_push_n(struct rte_mempool *mp, void * const *objs, unsigned int n) \
{ \
	return floor_push(mp, objs, n, section); \
} \
static int \
pfx##_enqueue(struct rte_mempool *mp, void * const *objs, unsigned int n) \
{ \
	if (n == 1) \
		return floor_push(mp, objs, 1, section); \
	return pfx##_push_n(mp, objs, n); \
} \
static __rte_noinline int \
pfx##_pop_n(struct rte_mempool *mp, void **objs, unsigned int n) \
{ \
	return floor_pop(mp, objs, n, section); \
} \
static int \
pfx##_dequeue(struct rte_mempool *mp, void **objs, unsigned int n) \
{ \
	if (n == 1) \
		return floor_pop(mp, objs, 1, section); \
	return pfx##_pop_n(mp, objs, n); \
} \
static struct rte_mempool_ops pfx##_ops = { \
	.name = ops_name, \
	.alloc = floor_alloc, \
	.free = floor_free, \
	.enqueue = pfx##_enqueue, \
	.dequeue = pfx##_dequeue, \
	.get_count = floor_get_count, \
}; \
RTE_MEMPOOL_REGISTER_OPS(pfx##_ops)

FLOOR_OPS(floor, "bmp_floor", false);
FLOOR_OPS(floor_section, "bmp_floor_section", true);

static unsigned int trials = 9;
static uint32_t sample_every;	/* one burst in N timed; 0: none */
static uint64_t frames_per_trial = 1u << 19;
static const char *only;
static bool solo;		/* --solo: peers only when they match */
/* Peer and floors per call size, each strategy per call size, app_free. */
static struct config configs[3 * RXR_STRATEGY_USER_MAX + 6];
static unsigned int nr_configs;
static double regions[MAX_REGIONS];

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One burst: what a PMD's refill and the app's free do, then poll end. */
static __rte_always_inline int
burst(struct rte_mempool *mp, struct rxr_pool *p, const bool single,
		const bool app_free, bool sample)
{
	struct rte_mbuf *m[BURST];

	/* The poll loop's latency window: this whole iteration. */
	if (unlikely(sample))
		rxr_pool_sample(p, true);

	if (single) {
		for (unsigned int i = 0; i < BURST; i++)
			if (unlikely((m[i] = rte_pktmbuf_alloc(mp)) == NULL))
				return -1;
		for (unsigned int i = 0; i < BURST; i++)
			rte_pktmbuf_free(m[i]);
	} else {
		if (unlikely(rte_pktmbuf_alloc_bulk(mp, m, BURST) != 0))
			return -1;
		if (app_free)
			rxr_pktmbuf_free_bulk(m, BURST);
		else
			rte_pktmbuf_free_bulk(m, BURST);
	}
	if (p != NULL)
		rxr_pool_poll_end(p);
	if (unlikely(sample))
		rxr_pool_sample(p, false);
	return 0;
}

static __rte_always_inline int
run_regions(struct rte_mempool *mp, struct rxr_pool *p, const bool single,
		const bool app_free, unsigned int nr)
{
	/* As poll_main(): a countdown, the window when it reaches zero. */
	uint32_t every = p != NULL && sample_every != 0 ? sample_every :
		UINT32_MAX;
	uint32_t countdown = every;

	for (unsigned int r = 0; r < nr; r++) {
		uint64_t t0 = rte_rdtsc_precise(), t1;

		for (unsigned int k = 0; k < REGION; k++) {
			bool sample = --countdown == 0;

			if (unlikely(sample))
				countdown = every;
			if (unlikely(burst(mp, p, single, app_free, sample) != 0))
				return -1;
		}
		t1 = rte_rdtsc_precise();
		regions[r] = (double)(t1 - t0) / (REGION * BURST);
	}
	return 0;
}

static int
run_config(struct config *c, unsigned int t)
{
	unsigned int nr = RTE_MIN(frames_per_trial / (REGION * BURST),
			(uint64_t)MAX_REGIONS);
	int ret;

	if (nr == 0)
		nr = 1;
	if (c->single)
		ret = run_regions(c->mp, c->pool, true, false, nr);
	else if (c->app_free)
		ret = run_regions(c->mp, c->pool, false, true, nr);
	else
		ret = run_regions(c->mp, c->pool, false, false, nr);
	if (ret != 0) {
		printf("# %s: allocation failed, cannot measure\n", c->name);
		return -1;
	}
	c->trial[t] = median(regions, nr);
	return 0;
}

/* Trial *arg of every configuration, after an untimed pass that warms
 * every pool (pcp, caches, TLB). */
static int
run_trial(void *arg)
{
	unsigned int t = *(unsigned int *)arg;

	for (unsigned int i = 0; i < 2 * nr_configs; i++)
		if (run_config(&configs[i % nr_configs], t) != 0)
			return -1;
	return 0;
}

static struct rte_mempool *
our_pool(const struct options *o, enum rxr_strategy s, bool bulk)
{
	struct rxr_mempool_conf c = {
		/* As ports_use_pool() sets up a pool from the options. */
		.pool = {
			.strategy = s, .bulk = bulk,
			.high = o->high, .batch = o->batch,
			.fake_nodes = o->fake_nodes,
			.latency = o->latency,
			.test_refill_delay = o->test_refill_delay,
			.zero_policy = o->configs[0].zero_policy,
			.zero_method = o->configs[0].zero_method,
			.nr_poll_lcores = 1, .poll_lcores = { rte_lcore_id() },
		},
		.frame_size = o->frame_size,
	};
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;

	snprintf(name, sizeof(name), "bmp_%s_%d", rxr_strategy_name(s), bulk);
	mp = rxr_pktmbuf_pool_create(name, POOL_FRAMES, &c, rte_socket_id());
	if (mp == NULL)
		printf("# %s: cannot create: %s\n", name, rte_strerror(rte_errno));
	return mp;
}

static const char *
mode_name(bool single)
{
	return single ? "bulk1" : "bulk32";
}

static struct config *
config_add(const char *name, enum pool_kind kind, enum rxr_strategy s,
		bool single)
{
	struct config *c = &configs[nr_configs++];

	snprintf(c->name, sizeof(c->name), "%s", name);
	c->kind = kind;
	c->strategy = s;
	if (kind == POOL_OURS)
		snprintf(c->label, sizeof(c->label), "%s_via_mempool",
			rxr_strategy_name(s));
	else
		snprintf(c->label, sizeof(c->label), "%s",
			kind == POOL_FLOOR ? "ops_floor" : "ops_floor_section");
	c->single = single;
	return c;
}

/* The configurations, with no pool yet (pools_make()). */
static void
build(void)
{
	struct config *pc[2], *fc[2], *sc[2];
	char name[64], why[160];

	for (int single = 0; single < 2; single++) {
		snprintf(name, sizeof(name), "mempool_cache.%s", mode_name(single));
		pc[single] = solo && strstr(name, only) == NULL ? NULL :
			config_add(name, POOL_PEER, 0, single);
		snprintf(name, sizeof(name), "ops_floor.%s", mode_name(single));
		fc[single] = solo && strstr(name, only) == NULL ? NULL :
			config_add(name, POOL_FLOOR, 0, single);
		if (fc[single] != NULL)
			fc[single]->peer = pc[single];
		snprintf(name, sizeof(name), "ops_floor_section.%s",
			mode_name(single));
		sc[single] = solo && strstr(name, only) == NULL ? NULL :
			config_add(name, POOL_FLOOR_SECTION, 0, single);
		if (sc[single] != NULL) {
			sc[single]->peer = pc[single];
			sc[single]->floor = fc[single];
		}
	}
	for (int single = 0; single < 2; single++)
		for (unsigned int s = 0; s < RXR_STRATEGY_USER_MAX; s++) {
			struct config *c, *via;

			snprintf(name, sizeof(name), "%s_via_mempool.%s",
				rxr_strategy_name(s), mode_name(single));
			if (only != NULL && strstr(name, only) == NULL)
				continue;
			if (!rxr_strategy_available(s, why, sizeof(why))) {
				printf("# %s left out: %s\n", name, why);
				continue;
			}
			via = c = config_add(name, POOL_OURS, s, single);
			c->peer = pc[single];
			c->floor = fc[single];
			c->floor_section = sc[single];
			/* The same pool freed as rxrefill's poll loop frees. */
			snprintf(name, sizeof(name), "%s_app_free.%s",
				rxr_strategy_name(s), mode_name(single));
			if (single || (solo && strstr(name, only) == NULL))
				continue;
			c = config_add(name, POOL_OURS, s, single);
			c->same_pool = via;
			c->app_free = true;
			snprintf(c->label, sizeof(c->label), "%s_app_free",
				rxr_strategy_name(s));
			c->peer = pc[single];
			c->floor = fc[single];
		}
}

static void *spacer;
static struct rte_mempool *peer_mp, *floor_mp, *floor_section_mp;

/*
 * Trial t's pools, made behind a spacer whose size steps through 4 KiB a
 * cache line at a time (37 lines a trial, so that neighbouring trials are
 * far apart).
 */
static int
pools_make(const struct options *o, unsigned int t)
{
	size_t len = RTE_CACHE_LINE_SIZE * (1 + (t * 37u) % 64u);

	spacer = rte_malloc("bmp_spacer", len, RTE_CACHE_LINE_SIZE);
	peer_mp = rte_pktmbuf_pool_create("bmp_peer", 8191, PEER_CACHE, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	floor_mp = rte_pktmbuf_pool_create_by_ops("bmp_floor", 8191, 0, 0,
			RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id(),
			floor_ops.name);
	floor_section_mp = rte_pktmbuf_pool_create_by_ops("bmp_floor_sec", 8191,
			0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id(),
			floor_section_ops.name);
	if (spacer == NULL || peer_mp == NULL || floor_mp == NULL ||
			floor_section_mp == NULL) {
		printf("# peer or floor pool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	for (unsigned int i = 0; i < nr_configs; i++) {
		struct config *c = &configs[i];

		if (c->kind == POOL_PEER)
			c->mp = peer_mp;
		else if (c->kind == POOL_FLOOR)
			c->mp = floor_mp;
		else if (c->kind == POOL_FLOOR_SECTION)
			c->mp = floor_section_mp;
		else if (c->same_pool != NULL)
			c->mp = c->same_pool->mp;
		else
			c->mp = our_pool(o, c->strategy, !c->single);
		if (c->mp == NULL)
			return -1;
		c->pool = rxr_mempool_pool(c->mp);
	}
	return 0;
}

/* Every frame back in its zone, every mbuf back in the peer. */
static int
conserved(void)
{
	int ret = 0;

	for (unsigned int i = 0; i < nr_configs; i++) {
		struct config *c = &configs[i];

		if (c->mp == NULL)
			continue;
		if (c->pool != NULL) {
			rxr_pool_quiesce(c->pool);
			if (rxr_pool_check(c->pool, stdout) != 0)
				ret = -1;
		}
		if (rte_mempool_avail_count(c->mp) != c->mp->size) {
			printf("# %s: %u of %u objects back: frames lost, the "
				"figures are not valid\n", c->name,
				rte_mempool_avail_count(c->mp), c->mp->size);
			ret = -1;
		}
	}
	return ret;
}

/* Every pool of the trial freed, once every frame is back. */
static int
pools_free(void)
{
	int ret = conserved();

	for (unsigned int i = 0; i < nr_configs; i++) {
		struct config *c = &configs[i];

		if (c->kind == POOL_OURS && c->same_pool == NULL)
			rte_mempool_free(c->mp);
		c->mp = NULL;
		c->pool = NULL;
	}
	rte_mempool_free(peer_mp);
	rte_mempool_free(floor_mp);
	rte_mempool_free(floor_section_mp);
	rte_free(spacer);
	peer_mp = floor_mp = floor_section_mp = NULL;
	spacer = NULL;
	return ret;
}

/* Trial by trial against a configuration of the same trials. */
static void
ratio_line(const struct config *c, const struct config *base,
		const char *name, const char *base_name)
{
	double v[MAX_TRIALS], med;

	for (unsigned int t = 0; t < trials; t++)
		v[t] = c->trial[t] / base->trial[t];
	med = median(v, trials);
	printf("ratio: %s_over_%s.%s%s %.3f (min %.3f, max %.3f, %u trials)\n",
		name, base_name, mode_name(c->single), rxr_bench_memory_tag(),
		med, v[0], v[trials - 1], trials);
}

static void
report(void)
{
	double v[MAX_TRIALS];

	printf("# cycles per frame (one alloc + one free, poll end per burst): "
		"min / median / max over %u interleaved trials\n", trials);
	for (unsigned int i = 0; i < nr_configs; i++) {
		const struct config *c = &configs[i];

		double med;

		memcpy(v, c->trial, trials * sizeof(*v));
		med = median(v, trials);	/* sorts v */
		printf("bench: %s.alloc_free%s %.2f cycles/frame\n", c->name,
			rxr_bench_memory_tag(), med);
		printf("#   %-32s %7.2f %7.2f %7.2f\n", c->name, v[0], med,
			v[trials - 1]);
	}
	printf("# <strategy>_via_mempool_over_mempool_cache.<bulk1|bulk32>: "
		"ours over the 256 cache, trial by trial; lower is better, "
		"goal for bh and recycle <= 1.0; rseq <= 0.6 at bulk 32 and "
		"at most bh's at bulk 1\n");
	for (unsigned int i = 0; i < nr_configs; i++) {
		const struct config *c = &configs[i];

		if (c->peer != NULL)
			ratio_line(c, c->peer, c->label, "mempool_cache");
	}
	printf("# <strategy>_via_mempool_over_ops_floor: what the strategy "
		"adds to the least any cacheless driver pays; <strategy>_app_free: "
		"the same pool freed with rxr_pktmbuf_free_bulk(), as rxrefill's "
		"poll loop frees (its floor and peer still free through "
		"rte_pktmbuf_free_bulk())\n");
	for (unsigned int i = 0; i < nr_configs; i++) {
		const struct config *c = &configs[i];

		if (c->floor != NULL)
			ratio_line(c, c->floor, c->label, "ops_floor");
	}
	printf("# <strategy>_via_mempool_over_ops_floor_section: what the "
		"strategy adds to a stack in bh's kind of section with a "
		"counter\n");
	for (unsigned int i = 0; i < nr_configs; i++) {
		const struct config *c = &configs[i];

		if (c->floor_section != NULL)
			ratio_line(c, c->floor_section, c->label,
				"ops_floor_section");
	}
}

static void
usage(const char *prog)
{
	printf("usage: %s [--quick] [--trials N] [--only TEXT] [--solo TEXT] "
		"[-- rxrefill options]\n", prog);
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "trials", required_argument, NULL, 't' },
		{ "only", required_argument, NULL, 'o' },
		{ "solo", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *app_argv[64] = { (char *)(uintptr_t)"rxrefill" };
	int app_argc = 1, c, ret = EXIT_FAILURE;
	struct opts_args oa;
	struct options o;

	/* Hugepages and ordinary memory, a child process each. */
	ret = rxr_bench_each_memory(argc, argv);
	if (ret >= 0)
		return ret;
	ret = EXIT_FAILURE;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'q':
			trials = 3;
			frames_per_trial = 1u << 16;
			break;
		case 't':
			trials = (unsigned int)strtoul(optarg, NULL, 10);
			if (trials < 1 || trials > MAX_TRIALS) {
				printf("# --trials: 1..%u\n", MAX_TRIALS);
				return EXIT_FAILURE;
			}
			break;
		case 'o':
			only = optarg;
			break;
		case 's':
			only = optarg;
			solo = true;
			break;
		case 'h':
			usage(argv[0]);
			return EXIT_SUCCESS;
		default:
			usage(argv[0]);
			return EXIT_FAILURE;
		}
	}
	/* What getopt left after "--" are rxrefill's own options. */
	for (int i = optind; i < argc && app_argc < 63; i++)
		app_argv[app_argc++] = argv[i];
	if (opts_parse(app_argc, app_argv, &o, &oa) != 0) {
		printf("# rxrefill options not accepted\n");
		return EXIT_FAILURE;
	}

	sample_every = o.latency ? o.latency_every : 0;
	rxr_test_eal_init(argv[0], "0", 512, NULL);
	if (RXR_DEBUG)
		printf("# debug checks compiled in: figures are not valid\n");
	printf("# rxrefill options: frame size %u, refill timing %s %u, pcp "
		"high %u batch %u, zeroing %s; %u trials of %" PRIu64
		" frames per configuration\n", o.frame_size,
		o.latency ? "on, one burst in" : "off", o.latency ? sample_every : 0,
		o.high != 0 ? o.high : RXR_PCP_HIGH_DEFAULT,
		o.batch != 0 ? o.batch : RXR_PCP_BATCH_DEFAULT,
		o.zero_policy, trials, frames_per_trial);
	build();
	for (unsigned int t = 0; t < trials; t++) {
		if (pools_make(&o, t) != 0)
			goto out;
		if (rxr_bench_on_stack(t, run_trial, &t) != 0)
			goto out;
		if (pools_free() != 0)
			goto out;
	}
	report();
	ret = EXIT_SUCCESS;
out:
	pools_free();
	opts_args_free(&oa);
	rte_eal_cleanup();
	return ret;
}
