/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Strategy benchmark: what each refill strategy costs per frame, on the
 * poll side (refill, and the drain at its bh-enable point) and on the side
 * that frees, with the consumer
 *   local:   in the poll lcore itself (run to completion),
 *   cosched: a pthread pinned to the poll lcore's CPU (the OS interleaves
 *            the two: the race of the 2017 pcp regression), frames handed
 *            over through an SPSC rte_ring,
 *   remote:  a pthread on the other CPU (remote free), same hand-over;
 * single (bulk off, calls of n = 1) and bulk 32 (bulk on, n = 32).
 * Then, in the same run and the same harness, DPDK's own paths as peers:
 *   - a non-EAL thread (no mempool cache) putting to a ring_mp_mc mempool
 *     without cache, against the same thread freeing bh frames (deferred),
 *     and again with the poll lcore getting from a 256 cache, plus the
 *     whole trip (bh's owner drains what was deferred);
 *   - the same thread in DPDK's usual set-up, with a cache of its own
 *     (rte_mempool_cache_create() + rte_mempool_generic_put()), free only
 *     and the whole trip;
 *   - mempool get/put with a 256 cache on an EAL lcore, against bh's owner
 *     path (poll-context alloc + free);
 * and the seed's shape: zone against bh with two pollers (lcores 0 and 1,
 * each handing its frames to the other, which frees them), with the zone
 * lock contention of both.
 *
 * Every timed region is a group of calls between two time stamps; the
 * timer's own cost is subtracted, and a region long enough to hold a
 * preemption (the machine is shared) is left out and counted. Runs are
 * bounded by frame count, repeated in interleaved trials (A B C A B C ...),
 * each trial on a memory layout of its own, and each figure is the median
 * over trials.
 *
 * Runs twice, each in a child process: on hugepages (when usable) and on
 * ordinary memory (--no-huge); each figure's name ends .huge or .nohuge
 * (RXR_BENCH_MEMORY=huge or nohuge in the environment: that run only).
 * Output: "bench: <name> <value> <unit>" and "ratio: <name> <value>" lines
 * (README.md, "Benchmarks"). Never fails on a slow figure; exits non-zero
 * only when it cannot measure (set-up, an allocation failure, frames lost,
 * no valid sample).
 *
 * Cross-CPU figures scale with what a cache line costs between the two
 * CPUs, which on a VM depends on where the host put the vCPUs: the run
 * measures it first (machine.cross_cpu_line_roundtrip), and prints the CPU
 * share poll and consumer really got.
 *
 * Usage: bench_strategy [--quick] [--trials N] [--frames N] [--only TEXT]
 *   --quick      3 trials of 32768 frames (a smoke run, noisier)
 *   --trials N   interleaved trials (default 7)
 *   --frames N   frames per configuration and trial, and per poller in the
 *                two-poller part (default 262144)
 *   --only TEXT  run only the configurations whose name contains TEXT
 *                (for profiling one path with perf or callgrind; the
 *                two-poller part runs when TEXT is part of "two_pollers")
 */

#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "rxr_strategy.h"
#include "rxr_test.h"
#include "test_pool_mem.h"

/* Strategy s's own counter name in ls (0: it has none of that name). */
static uint64_t
counter_of(const struct rxr_pool_lcore_stats *ls, enum rxr_strategy s,
		const char *name)
{
	const char * const *names;
	unsigned int n = rxr_strategy_counters(s, &names);

	for (unsigned int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return ls->counters[i];
	return 0;
}


#define BURST 32u		/* frames per iteration, per hand-over */
#define POOL_FRAMES 8192u	/* frames per pool: far above what is in flight */
#define FRAME_SIZE 4096u
#define RING_SIZE 1024u		/* hand-over ring (1023 usable) */
#define MP_SIZE 8191u		/* peer mempool objects */
#define MP_ELT 64u
#define MP_CACHE 256u
#define PAIR_CHUNK 64u		/* alloc+free pairs per timed region */
#define MAX_TRIALS 31
#define POLL_LCORE 0u		/* the main lcore polls: nothing else spins */

static bool quick;
static unsigned int trials = 7;
static uint64_t frames_per_run = 1u << 18;	/* part 1-3, per config */
static uint64_t frames_two_pollers = 1u << 18;	/* part 4, per poller */
static const char *only;
static uint64_t tsc_hz;
static uint64_t tsc_overhead;	/* cycles of an empty timed region */
static uint64_t thr_base, thr_per_frame; /* preemption cut-off */
static unsigned int poll_cpu, remote_cpu;

/*
 * The trial running. Its loops, the consumers' too, run on a stack and on
 * pool stack tops of its own (rxr_bench_on_stack(), hold()): on --no-huge
 * bh's owner path took 0.7 or 1.3 cycles/frame by that layout alone,
 * which ASLR and the configurations run before chose.
 */
static unsigned int trial_now;

/* --- timed regions ------------------------------------------------------ */

/*
 * The time stamp around a region: rte_rdtsc() is neither ordered against
 * the instructions around it (a short region ends before its work has) nor
 * a compiler barrier (inlined mempool code may move across it). On x86,
 * LFENCE before and after RDTSC waits for what precedes to complete and
 * keeps what follows from starting early, without draining the store
 * buffer as rte_rdtsc_precise()'s MFENCE does.
 */
static __rte_always_inline uint64_t
tsc(void)
{
#ifdef RTE_ARCH_X86
	uint32_t lo, hi;

	asm volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : :
		"memory");
	return ((uint64_t)hi << 32) | lo;
#else
	return rte_rdtsc_precise();
#endif
}

struct acc {
	uint64_t cycles;
	uint64_t frames;
	uint64_t regions;
	uint64_t dropped;	/* regions long enough to hold a preemption */
};

/* A region of dt cycles that handled n frames (work: frames it touched,
 * for the preemption cut-off, e.g. what a poll end drained). */
static __rte_always_inline void
acc_add_work(struct acc *a, uint64_t dt, unsigned int n, unsigned int work)
{
	if (unlikely(dt > thr_base + (uint64_t)RTE_MAX(n, work) * thr_per_frame)) {
		a->dropped++;
		return;
	}
	a->cycles += dt > tsc_overhead ? dt - tsc_overhead : 0;
	a->frames += n;
	a->regions++;
}

static __rte_always_inline void
acc_add(struct acc *a, uint64_t dt, unsigned int n)
{
	acc_add_work(a, dt, n, n);
}

static double
acc_per_frame(const struct acc *a)
{
	return a->frames != 0 ? (double)a->cycles / (double)a->frames : NAN;
}

/*
 * The cost of an empty region, subtracted from every region. On this kind
 * of VM the TSC advances in steps (21 cycles of a 2.1 GHz TSC: 10 ns), so a
 * region reads as a whole number of steps; over many regions the error
 * averages out, which is why the mean, not the minimum, is subtracted.
 */
static uint64_t tsc_step;

static void
calibrate(void)
{
	uint64_t sum = 0, n = 0, step = UINT64_MAX;

	tsc_hz = rte_get_tsc_hz();
	for (int i = 0; i < 200000; i++) {
		uint64_t t0 = tsc();
		uint64_t t1 = tsc();

		if (t1 - t0 < 1000) {
			sum += t1 - t0;
			n++;
		}
	}
	for (int i = 0; i < 10000; i++) {
		uint64_t t0 = rte_rdtsc(), t1;

		while ((t1 = rte_rdtsc()) == t0)
			;
		step = RTE_MIN(step, t1 - t0);
	}
	tsc_overhead = n != 0 ? (sum + n / 2) / n : 0;
	tsc_step = step;
	/* 50 us plus 2000 cycles a frame: far above any region's own cost
	 * (a pcp refill or drain under a contended zone lock included), far
	 * below a scheduler time slice. */
	thr_base = tsc_hz / 20000;
	thr_per_frame = 2000;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of the finite values; NAN when there is none. */
#define MEDIAN_MAX 64u

static double
median(const double *v, unsigned int n)
{
	double s[MEDIAN_MAX];
	unsigned int k = 0;

	for (unsigned int i = 0; i < RTE_MIN(n, MEDIAN_MAX); i++)
		if (!isnan(v[i]))
			s[k++] = v[i];
	if (k == 0)
		return NAN;
	qsort(s, k, sizeof(s[0]), cmp_double);
	return k & 1 ? s[k / 2] : (s[k / 2 - 1] + s[k / 2]) / 2;
}

static void
min_max(const double *v, unsigned int n, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (unsigned int i = 0; i < n; i++)
		if (!isnan(v[i])) {
			*lo = RTE_MIN(*lo, v[i]);
			*hi = RTE_MAX(*hi, v[i]);
		}
}

/* --- what is measured: one of our pools or a DPDK mempool --------------- */

/*
 * BE_MEMPOOL_UCACHE: the mempool as DPDK sets it up for a thread that is
 * not an EAL lcore: the poll lcore gets from its own cache, the other
 * thread puts through a cache of its own (rte_mempool_cache_create() and
 * rte_mempool_generic_put()).
 */
enum be_kind { BE_POOL, BE_MEMPOOL, BE_MEMPOOL_UCACHE };

struct backend {
	enum be_kind kind;
	struct rxr_pool *pool;
	struct rte_mempool *mp;
	struct rte_mempool_cache *ucache;	/* BE_MEMPOOL_UCACHE's put side */
	unsigned int task_batch;	/* BE_POOL: the consumer's task batch */
};

static __rte_always_inline int
be_alloc(const struct backend *be, void **objs, bool single)
{
	if (be->kind == BE_POOL) {
		if (!single)
			return rxr_pool_alloc_bulk(be->pool, objs, BURST);
		for (unsigned int i = 0; i < BURST; i++)
			if (unlikely(rxr_pool_alloc_bulk(be->pool, &objs[i], 1) != 0))
				return -1;
		return 0;
	}
	if (!single)
		return rte_mempool_get_bulk(be->mp, objs, BURST);
	for (unsigned int i = 0; i < BURST; i++)
		if (unlikely(rte_mempool_get(be->mp, &objs[i]) != 0))
			return -1;
	return 0;
}

static __rte_always_inline void
be_free(const struct backend *be, void **objs, bool single)
{
	if (be->kind == BE_POOL) {
		if (!single) {
			rxr_pool_free_bulk(be->pool, objs, BURST);
			return;
		}
		for (unsigned int i = 0; i < BURST; i++)
			rxr_pool_free_bulk(be->pool, &objs[i], 1);
		return;
	}
	if (be->kind == BE_MEMPOOL_UCACHE) {
		if (!single) {
			rte_mempool_generic_put(be->mp, objs, BURST, be->ucache);
			return;
		}
		for (unsigned int i = 0; i < BURST; i++)
			rte_mempool_generic_put(be->mp, &objs[i], 1, be->ucache);
		return;
	}
	if (!single) {
		rte_mempool_put_bulk(be->mp, objs, BURST);
		return;
	}
	for (unsigned int i = 0; i < BURST; i++)
		rte_mempool_put(be->mp, objs[i]);
}

static __rte_always_inline unsigned int
be_poll_end(const struct backend *be)
{
	return be->kind == BE_POOL ? rxr_pool_poll_end(be->pool) : 0;
}

/* --- consumer threads: plain pthreads (task context, no mempool cache) -- */

struct job {
	const struct backend *be;
	bool single;
	bool yield;		/* co-scheduled: give the CPU back when idle */
	struct rte_ring *ring;
	uint64_t frames;
	struct acc free;
	uint64_t cpu_ns;	/* the consumer thread's CPU time for the job */
};

struct consumer {
	pthread_t tid;
	unsigned int cpu;
	sem_t go, done;
	struct job *job;
	bool quit;
};

static struct consumer cons_co, cons_remote;

/* CPU time of the calling thread: how much of a run it really ran (the
 * machine is shared, and cross-CPU figures need both sides running). */
static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static __rte_always_inline void
consume(struct job *j, const bool single, const enum be_kind kind)
{
	const struct backend *be = j->be;
	void *objs[BURST];
	uint64_t got = 0;

	/* The consumer frees onto the deferred list (ring) of the poll
	 * lcore that delivered its frames. */
	if (kind == BE_POOL) {
		rxr_pool_task_bind(be->pool, POLL_LCORE);
		rxr_pool_task_batch(be->pool, be->task_batch);
	}
	while (got < j->frames) {
		uint64_t t0, t1;

		if (rte_ring_dequeue_bulk(j->ring, objs, BURST, NULL) == 0) {
			if (j->yield)
				sched_yield();
			else
				rte_pause();
			continue;
		}
		t0 = tsc();
		be_free(be, objs, single);
		t1 = tsc();
		acc_add(&j->free, t1 - t0, BURST);
		got += BURST;
	}
	/* Untimed: the user cache's frames back to the pool's ring, the
	 * task batch's onto the owner's list. */
	if (be->kind == BE_MEMPOOL_UCACHE)
		rte_mempool_cache_flush(be->ucache, be->mp);
	if (kind == BE_POOL) {
		rxr_pool_task_flush(be->pool);
		rxr_pool_task_batch(be->pool, 0);
	}
}

static int
consume_dispatch(void *arg)
{
	struct job *j = arg;

	if (j->be->kind == BE_POOL) {
		if (j->single)
			consume(j, true, BE_POOL);
		else
			consume(j, false, BE_POOL);
	} else {
		if (j->single)
			consume(j, true, BE_MEMPOOL);
		else
			consume(j, false, BE_MEMPOOL);
	}
	return 0;
}

static void *
consumer_main(void *arg)
{
	struct consumer *c = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c->cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		fprintf(stderr, "bench_strategy: cannot pin a consumer to CPU %u\n",
			c->cpu);
	for (;;) {
		uint64_t t0;

		sem_wait(&c->go);
		if (c->quit)
			break;
		t0 = thread_cpu_ns();
		rxr_bench_on_stack(trial_now, consume_dispatch, c->job);
		c->job->cpu_ns = thread_cpu_ns() - t0;
		sem_post(&c->done);
	}
	return NULL;
}

static int
consumer_start(struct consumer *c, unsigned int cpu)
{
	c->cpu = cpu;
	sem_init(&c->go, 0, 0);
	sem_init(&c->done, 0, 0);
	return pthread_create(&c->tid, NULL, consumer_main, c) == 0 ? 0 : -1;
}

static void
consumer_stop(struct consumer *c)
{
	c->quit = true;
	sem_post(&c->go);
	pthread_join(c->tid, NULL);
}

/* --- the machine: what a cache line costs between the two CPUs ---------- */

/*
 * On a VM the two vCPUs may sit on cores that share a cache or not, and
 * that can change between runs: every cross-CPU figure scales with it. A
 * line bounced between the poll CPU and the remote CPU, ROUNDS round trips
 * per sample, the median sample reported with the run.
 */
#define PP_ROUNDS 256u
#define PP_SAMPLES 64u

static struct {
	uint64_t ball __rte_cache_aligned;
	atomic_bool stop;
} pingpong;

static void *
pingpong_peer(void *arg)
{
	unsigned int cpu = *(unsigned int *)arg;
	cpu_set_t set;
	uint64_t v = 0;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	while (!atomic_load_explicit(&pingpong.stop, memory_order_relaxed)) {
		uint64_t b = __atomic_load_n(&pingpong.ball, __ATOMIC_ACQUIRE);

		if (b & 1) {	/* odd: the poll side served; return it */
			v = b + 1;
			__atomic_store_n(&pingpong.ball, v, __ATOMIC_RELEASE);
		} else {
			rte_pause();
		}
	}
	return NULL;
}

static double
cacheline_roundtrip(void)
{
	double samples[PP_SAMPLES];
	unsigned int n = 0, cpu = remote_cpu;
	pthread_t peer;
	uint64_t b = 0;

	pingpong.ball = 0;
	atomic_store_explicit(&pingpong.stop, false, memory_order_relaxed);
	if (pthread_create(&peer, NULL, pingpong_peer, &cpu) != 0)
		return NAN;
	for (unsigned int s = 0; s < PP_SAMPLES; s++) {
		uint64_t t0 = tsc(), dt;

		for (unsigned int r = 0; r < PP_ROUNDS; r++) {
			__atomic_store_n(&pingpong.ball, ++b, __ATOMIC_RELEASE);
			while (__atomic_load_n(&pingpong.ball, __ATOMIC_ACQUIRE) == b)
				rte_pause();
			b++;
		}
		dt = tsc() - t0;
		/* A sample with a preemption in it is not the line's cost. */
		if (dt < thr_base + PP_ROUNDS * thr_per_frame)
			samples[n++] = (double)dt / PP_ROUNDS;
	}
	atomic_store_explicit(&pingpong.stop, true, memory_order_relaxed);
	pthread_join(peer, NULL);
	return median(samples, n);
}

/* --- poll side ----------------------------------------------------------- */

/* Run to completion: refill, free right here, poll end. */
static __rte_always_inline int
poll_local(const struct backend *be, const bool single, uint64_t frames,
		struct acc *alloc, struct acc *free_, struct acc *drain)
{
	void *objs[BURST];

	for (uint64_t done = 0; done < frames; done += BURST) {
		uint64_t t0, t1, t2, t3;
		unsigned int drained;

		t0 = tsc();
		if (unlikely(be_alloc(be, objs, single) != 0))
			return -1;
		t1 = tsc();
		be_free(be, objs, single);
		t2 = tsc();
		drained = be_poll_end(be);
		t3 = tsc();
		acc_add(alloc, t1 - t0, BURST);
		acc_add(free_, t2 - t1, BURST);
		acc_add_work(drain, t3 - t2, BURST, drained);
	}
	return 0;
}

/* Refill and hand over to a consumer thread, poll end each iteration. */
static __rte_always_inline int
poll_handover(const struct backend *be, const bool single,
		struct rte_ring *r, uint64_t frames, bool yield,
		struct acc *alloc, struct acc *drain)
{
	void *objs[BURST];

	for (uint64_t done = 0; done < frames; done += BURST) {
		uint64_t t0, t1, t2, t3;
		unsigned int drained;

		while (rte_ring_free_count(r) < BURST) {
			if (yield)
				sched_yield();
			else
				rte_pause();
		}
		t0 = tsc();
		if (unlikely(be_alloc(be, objs, single) != 0))
			return -1;
		t1 = tsc();
		if (unlikely(rte_ring_enqueue_bulk(r, objs, BURST, NULL) != BURST))
			return -1;	/* SPSC and room checked: cannot happen */
		t2 = tsc();
		drained = be_poll_end(be);
		t3 = tsc();
		acc_add(alloc, t1 - t0, BURST);
		acc_add_work(drain, t3 - t2, BURST, drained);
	}
	return 0;
}

/* Owner path: alloc + free pairs, PAIR_CHUNK pairs per timed region. */
static __rte_always_inline int
poll_pairs(const struct backend *be, const bool single, uint64_t frames,
		struct acc *pair)
{
	void *objs[BURST];
	unsigned int n = single ? 1 : BURST;
	uint64_t per_region = (uint64_t)PAIR_CHUNK * n;

	for (uint64_t done = 0; done < frames; done += per_region) {
		uint64_t t0 = tsc(), t1;

		for (unsigned int k = 0; k < PAIR_CHUNK; k++) {
			if (be->kind == BE_POOL) {
				if (unlikely(rxr_pool_alloc_bulk(be->pool, objs, n) != 0))
					return -1;
				rxr_pool_free_bulk(be->pool, objs, n);
			} else {
				if (unlikely(rte_mempool_get_bulk(be->mp, objs, n) != 0))
					return -1;
				rte_mempool_put_bulk(be->mp, objs, n);
			}
		}
		t1 = tsc();
		acc_add(pair, t1 - t0, (unsigned int)per_region);
	}
	return 0;
}

/* --- configurations ------------------------------------------------------ */

enum cons { CONS_LOCAL, CONS_COSCHED, CONS_REMOTE, CONS_PAIR };
static const char * const cons_name[] = {
	[CONS_LOCAL] = "consumer_local", [CONS_COSCHED] = "consumer_cosched",
	[CONS_REMOTE] = "consumer_remote", [CONS_PAIR] = "owner",
};

struct config {
	char name[64];
	struct backend be;
	bool single;
	enum cons cons;
	double alloc[MAX_TRIALS], free[MAX_TRIALS], drain[MAX_TRIALS];
	uint64_t regions, dropped;
	/* Pool counters over every trial: what the figures are made of. */
	uint64_t frames;
	struct rxr_lock_stats zone_lock;
	uint64_t pcp_zone_frames;	/* pcp refills and drains */
	uint64_t deferred_drained, deferred_drains;
	uint64_t zone_fallback;
	struct rxr_lock_stats pcp_lock;	/* irqsave's */
	uint64_t wall_ns, poll_cpu_ns, cons_cpu_ns;
};

/* Pool counters that explain a figure, as a delta between two snapshots. */
struct snap {
	struct rxr_lock_stats zl, pl;
	uint64_t pcp_zone, drained, drains, fallback;
};

static void
snap_take(struct rxr_pool *p, struct snap *sn)
{
	static struct rxr_pool_stats st;	/* large: not on the stack */
	enum rxr_strategy s;

	memset(sn, 0, sizeof(*sn));
	if (p == NULL)
		return;
	rxr_pool_stats(p, &st);
	s = rxr_pool_get_conf(p)->strategy;
	sn->zl = st.zone[0].lock;
	for (unsigned int i = 0; i < st.nr_lcores; i++) {
		const struct rxr_pool_lcore_stats *ls = &st.lcore[i];

		sn->pcp_zone += ls->pcp.refill_frames + ls->pcp.drain_frames;
		sn->drained += ls->deferred_drained;
		sn->drains += ls->deferred_drains;
		/* The strategy's own (irqsave's; rseq has zone_fallback). */
		sn->fallback += counter_of(ls, s, "zone_fallback");
		sn->pl.acquisitions += counter_of(ls, s,
			"lock_acquisitions");
		sn->pl.contended += counter_of(ls, s,
			"lock_contended");
		sn->pl.wait_cycles += counter_of(ls, s,
			"lock_wait_cycles");
	}
}

static void
acc_merge(struct config *c, const struct acc *a)
{
	c->regions += a->regions;
	c->dropped += a->dropped;
}

/*
 * The other half of the layout is where the pool's stack top lies (its
 * count), which what ran before leaves as it happens: every configuration
 * starts on an emptied pcp (rxr_pool_quiesce()) or mempool cache and holds
 * trial t's number of frames through its run, so that the top steps
 * through a cache line's eight slots from trial to trial.
 */
#define HOLD_MAX 8u

static int
hold(const struct backend *be, void **held, unsigned int n)
{
	if (be->kind == BE_POOL)
		rxr_pool_quiesce(be->pool);
	else
		rte_mempool_cache_flush(rte_mempool_default_cache(be->mp,
			rte_lcore_id()), be->mp);
	for (unsigned int i = 0; i < n; i++)
		if ((be->kind == BE_POOL ?
				rxr_pool_alloc_bulk(be->pool, &held[i], 1) :
				rte_mempool_get(be->mp, &held[i])) != 0)
			return -1;
	return 0;
}

static void
unhold(const struct backend *be, void **held, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (be->kind == BE_POOL)
			rxr_pool_free_bulk(be->pool, &held[i], 1);
		else
			rte_mempool_put(be->mp, held[i]);
}

static int
run_config(struct config *c, unsigned int trial)
{
	struct acc alloc = { 0 }, free_ = { 0 }, drain = { 0 };
	const struct backend *be = &c->be;
	unsigned int nr_held = trial * 3u % HOLD_MAX;
	void *held[HOLD_MAX];
	struct snap s0, s1;
	uint64_t w0, c0;
	int ret = 0;

	if (hold(be, held, nr_held) != 0) {
		printf("# %s: allocation failed, cannot measure\n", c->name);
		return -1;
	}
	snap_take(be->pool, &s0);
	w0 = wall_ns();
	c0 = thread_cpu_ns();
	if (c->cons == CONS_PAIR) {
		ret = c->single ? poll_pairs(be, true, frames_per_run, &alloc) :
			poll_pairs(be, false, frames_per_run, &alloc);
	} else if (c->cons == CONS_LOCAL) {
		if (be->kind != BE_POOL)
			return -1;
		ret = c->single ?
			poll_local(be, true, frames_per_run, &alloc, &free_, &drain) :
			poll_local(be, false, frames_per_run, &alloc, &free_, &drain);
	} else {
		struct consumer *cs = c->cons == CONS_COSCHED ? &cons_co :
			&cons_remote;
		struct job j = {
			.be = be, .single = c->single,
			.yield = c->cons == CONS_COSCHED,
			.ring = rte_ring_lookup(c->cons == CONS_COSCHED ?
				"bs_ring_co" : "bs_ring_remote"),
			.frames = frames_per_run,
		};

		if (j.ring == NULL)
			return -1;
		cs->job = &j;
		sem_post(&cs->go);
		ret = c->single ?
			poll_handover(be, true, j.ring, frames_per_run, j.yield,
				&alloc, &drain) :
			poll_handover(be, false, j.ring, frames_per_run, j.yield,
				&alloc, &drain);
		if (ret != 0) {
			/* The consumer waits for frames that will not come:
			 * nothing left to measure, the process exits. */
			printf("# %s: allocation failed, cannot measure\n", c->name);
			return -1;
		}
		sem_wait(&cs->done);
		free_ = j.free;
		c->cons_cpu_ns += j.cpu_ns;
		/* Drain what the consumer left on the deferred list. */
		be_poll_end(be);
	}
	if (ret != 0) {
		printf("# %s: allocation failed, cannot measure\n", c->name);
		return -1;
	}
	c->poll_cpu_ns += thread_cpu_ns() - c0;
	c->wall_ns += wall_ns() - w0;
	snap_take(be->pool, &s1);
	unhold(be, held, nr_held);
	c->frames += frames_per_run;
	c->zone_lock.acquisitions += s1.zl.acquisitions - s0.zl.acquisitions;
	c->zone_lock.contended += s1.zl.contended - s0.zl.contended;
	c->zone_lock.wait_cycles += s1.zl.wait_cycles - s0.zl.wait_cycles;
	c->pcp_zone_frames += s1.pcp_zone - s0.pcp_zone;
	c->deferred_drained += s1.drained - s0.drained;
	c->deferred_drains += s1.drains - s0.drains;
	c->zone_fallback += s1.fallback - s0.fallback;
	c->pcp_lock.acquisitions += s1.pl.acquisitions - s0.pl.acquisitions;
	c->pcp_lock.contended += s1.pl.contended - s0.pl.contended;
	c->pcp_lock.wait_cycles += s1.pl.wait_cycles - s0.pl.wait_cycles;
	c->alloc[trial] = acc_per_frame(&alloc);
	c->free[trial] = acc_per_frame(&free_);
	c->drain[trial] = acc_per_frame(&drain);
	acc_merge(c, &alloc);
	acc_merge(c, &free_);
	acc_merge(c, &drain);
	return 0;
}

/* --- set-up -------------------------------------------------------------- */

static struct rxr_pool *
pool_new(enum rxr_strategy s, bool bulk, unsigned int nr_lcores)
{
	struct rxr_pool_conf conf = {
		.strategy = s, .bulk = bulk, .socket_id = SOCKET_ID_ANY,
		.nr_poll_lcores = nr_lcores, .poll_lcores = { 0, 1 },
	};
	char name[32];
	struct rxr_pool *p;

	snprintf(name, sizeof(name), "bs_%s_%s_%u", rxr_strategy_name(s),
		bulk ? "b" : "s", nr_lcores);
	conf.name = name;
	p = rxr_pool_create(&conf, FRAME_SIZE, POOL_FRAMES, 4);
	if (p == NULL) {
		printf("# rxr_pool_create %s: %s\n", name, rte_strerror(rte_errno));
		return NULL;
	}
	if (test_pool_fill(p, FRAME_SIZE, POOL_FRAMES) != 0) {
		printf("# test_pool_fill %s: %s\n", name, rte_strerror(rte_errno));
		test_pool_destroy(p);
		return NULL;
	}
	return p;
}

/* Every frame back in its zone: the measurement lost nothing. */
static int
pool_conserved(struct rxr_pool *p)
{
	rxr_pool_quiesce(p);
	if (rxr_pool_check(p, stdout) != 0 ||
			rxr_pool_avail(p) != rxr_pool_nr_frames(p)) {
		printf("# pool %s lost frames: the figures are not valid\n",
			rxr_pool_get_conf(p)->name);
		return -1;
	}
	return 0;
}

static struct rte_mempool *
mempool_new(const char *name, unsigned int cache)
{
	struct rte_mempool *mp = rte_mempool_create_empty(name, MP_SIZE, MP_ELT,
			cache, 0, SOCKET_ID_ANY, 0);

	if (mp == NULL)
		goto fail;
	/* Named explicitly: DPDK's default, multi-producer multi-consumer. */
	if (rte_mempool_set_ops_byname(mp, "ring_mp_mc", NULL) != 0 ||
			rte_mempool_populate_default(mp) < 0) {
		rte_mempool_free(mp);
		goto fail;
	}
	return mp;
fail:
	printf("# cannot create mempool %s: %s\n", name, rte_strerror(rte_errno));
	return NULL;
}

/* --- parts 1-3: the matrix, interleaved trials -------------------------- */

#define NR_STRATEGIES RXR_STRATEGY_USER_MAX
#define MAX_CONFIGS 64

static struct config configs[MAX_CONFIGS];
static unsigned int nr_configs;
static struct rxr_pool *pools[NR_STRATEGIES][2];	/* [s][bulk] */
static struct rte_mempool *mp_nocache, *mp_cache;
static struct rte_mempool_cache *mp_ucache;	/* the remote thread's own */

static struct config *
config_add(const char *name, struct backend be, bool single, enum cons cons)
{
	struct config *c = &configs[nr_configs];

	if (only != NULL && strstr(name, only) == NULL)
		return NULL;
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->be = be;
	c->single = single;
	c->cons = cons;
	for (unsigned int t = 0; t < MAX_TRIALS; t++)
		c->alloc[t] = c->free[t] = c->drain[t] = NAN;
	nr_configs++;
	return c;
}

static struct config *
config_find(const char *name)
{
	for (unsigned int i = 0; i < nr_configs; i++)
		if (strcmp(configs[i].name, name) == 0)
			return &configs[i];
	return NULL;
}

static const char *
mode_name(bool single)
{
	return single ? "single" : "bulk32";
}

static void
build_configs(void)
{
	char name[64];

	/* Part 1: every strategy, mode and consumer placement. */
	for (unsigned int s = 0; s < NR_STRATEGIES; s++)
		for (int single = 1; single >= 0 && pools[s][0] != NULL; single--)
			for (unsigned int k = CONS_LOCAL; k <= CONS_REMOTE; k++) {
				snprintf(name, sizeof(name), "%s.%s.%s",
					rxr_strategy_name(s), mode_name(single),
					cons_name[k]);
				config_add(name, (struct backend){ BE_POOL,
					pools[s][!single], NULL, NULL }, single, k);
			}
	/* Part 2: the peer of bh's remote free: a non-EAL thread, no cache. */
	for (int single = 1; single >= 0; single--) {
		snprintf(name, sizeof(name), "mempool_nocache.%s.consumer_remote",
			mode_name(single));
		config_add(name, (struct backend){ BE_MEMPOOL, NULL, mp_nocache,
			NULL }, single, CONS_REMOTE);
	}
	/* The same with a 256 cache: the poll lcore (EAL) gets from its cache,
	 * the non-EAL consumer still puts straight to the ring. */
	for (int single = 1; single >= 0; single--) {
		snprintf(name, sizeof(name), "mempool_cache.%s.consumer_remote",
			mode_name(single));
		config_add(name, (struct backend){ BE_MEMPOOL, NULL, mp_cache,
			NULL }, single, CONS_REMOTE);
	}
	/* DPDK's usual set-up for the remote thread: a cache of its own. */
	for (int single = 1; single >= 0; single--) {
		snprintf(name, sizeof(name), "mempool_usercache.%s.consumer_remote",
			mode_name(single));
		config_add(name, (struct backend){ BE_MEMPOOL_UCACHE, NULL,
			mp_cache, mp_ucache }, single, CONS_REMOTE);
	}
	/* bh's consumer as the app runs it: a task batch of its own. */
	for (int single = 1; single >= 0; single--) {
		snprintf(name, sizeof(name), "bh_task_batch.%s.consumer_remote",
			mode_name(single));
		config_add(name, (struct backend){ BE_POOL,
			pools[RXR_STRATEGY_BH][!single], NULL, NULL,
			RXR_POOL_TASK_BATCH_DEFAULT }, single, CONS_REMOTE);
	}
	/* Part 3: bh's owner path against the mempool cache. */
	for (int single = 1; single >= 0; single--) {
		snprintf(name, sizeof(name), "bh.%s.owner", mode_name(single));
		config_add(name, (struct backend){ BE_POOL,
			pools[RXR_STRATEGY_BH][!single], NULL, NULL }, single,
			CONS_PAIR);
		snprintf(name, sizeof(name), "mempool_cache.%s.owner",
			mode_name(single));
		config_add(name, (struct backend){ BE_MEMPOOL, NULL, mp_cache,
			NULL }, single, CONS_PAIR);
	}
}

static double
fig(const struct config *c, const double *v)
{
	return c != NULL ? median(v, trials) : NAN;
}

static void
print_bench(const char *name, double v, const char *unit)
{
	if (!isnan(v))
		printf("bench: %s%s %.2f %s\n", name, rxr_bench_memory_tag(), v,
			unit);
}

static void
print_ratio(const char *name, double ours, double peer)
{
	if (!isnan(ours) && !isnan(peer) && peer > 0)
		printf("ratio: %s%s %.2f\n", name, rxr_bench_memory_tag(),
			ours / peer);
}

/* A strategy's remote-consumer configuration and the peer's, one call size. */
static void
remote_pair(const char *strategy, const char *peer, int single,
		const struct config **o, const struct config **m)
{
	char name[128];

	snprintf(name, sizeof(name), "%s.%s.consumer_remote", strategy,
		mode_name(single));
	*o = config_find(name);
	snprintf(name, sizeof(name), "%s.%s.consumer_remote", peer,
		mode_name(single));
	*m = config_find(name);
}

/* A DPDK peer's remote get/put and a strategy's remote free over its put. */
static void
remote_free_vs_peer(const char *strategy, const char *peer, const char *ratio)
{
	char name[128];

	for (int single = 1; single >= 0; single--) {
		const struct config *o, *m;

		remote_pair(strategy, peer, single, &o, &m);
		if (m == NULL)
			continue;
		snprintf(name, sizeof(name), "%s.%s.consumer_remote.get", peer,
			mode_name(single));
		print_bench(name, fig(m, m->alloc), "cycles/obj");
		snprintf(name, sizeof(name), "%s.%s.consumer_remote.put", peer,
			mode_name(single));
		print_bench(name, fig(m, m->free), "cycles/obj");
		if (o == NULL)
			continue;
		snprintf(name, sizeof(name), "%s.%s", ratio, mode_name(single));
		print_ratio(name, fig(o, o->free), fig(m, m->free));
	}
}

/*
 * The whole remote trip: a strategy's alloc + drain + free over the peer's
 * get + put.
 */
static void
remote_roundtrip_vs_peer(const char *strategy, const char *peer,
		const char *ratio)
{
	char name[128];

	for (int single = 1; single >= 0; single--) {
		const struct config *o, *m;
		double lo, hi, cost, cost_peer;

		remote_pair(strategy, peer, single, &o, &m);
		if (o == NULL || m == NULL)
			continue;
		snprintf(name, sizeof(name), "%s.%s", ratio, mode_name(single));
		cost = fig(o, o->alloc) + fig(o, o->drain) + fig(o, o->free);
		cost_peer = fig(m, m->alloc) + fig(m, m->free);
		/* Spread: the same sums trial by trial (configurations run in
		 * turn within a trial, so trial t of both is the same minutes). */
		lo = INFINITY;
		hi = -INFINITY;
		for (unsigned int t = 0; t < trials; t++) {
			double r = (o->alloc[t] + o->drain[t] + o->free[t]) /
				(m->alloc[t] + m->free[t]);

			if (isnan(r))
				continue;
			lo = RTE_MIN(lo, r);
			hi = RTE_MAX(hi, r);
		}
		if (isnan(cost) || isnan(cost_peer) || cost_peer <= 0)
			continue;
		if (lo <= hi)
			printf("ratio: %s%s %.2f (trial by trial %.2f-%.2f)\n",
				name, rxr_bench_memory_tag(),
				cost / cost_peer, lo, hi);
		else
			printf("ratio: %s%s %.2f\n", name,
				rxr_bench_memory_tag(), cost / cost_peer);
	}
}

static void
report_matrix(void)
{
	char name[96];

	printf("# per configuration, over %u trials: min / median / max cycles "
		"per frame; regions left out as preempted\n", trials);
	for (unsigned int i = 0; i < nr_configs; i++) {
		const struct config *c = &configs[i];
		double lo[3], hi[3];

		min_max(c->alloc, trials, &lo[0], &hi[0]);
		min_max(c->free, trials, &lo[1], &hi[1]);
		min_max(c->drain, trials, &lo[2], &hi[2]);
		if (c->cons == CONS_PAIR) {
			printf("#   %-38s alloc+free %7.2f %7.2f %7.2f  dropped %"
				PRIu64 "/%" PRIu64 "\n", c->name, lo[0],
				median(c->alloc, trials), hi[0], c->dropped,
				c->regions + c->dropped);
			continue;
		}
		printf("#   %-38s alloc %7.2f %7.2f %7.2f  free %7.2f %7.2f %7.2f  "
			"drain %6.2f %6.2f %6.2f  dropped %" PRIu64 "/%" PRIu64 "\n",
			c->name, lo[0], median(c->alloc, trials), hi[0],
			lo[1], median(c->free, trials), hi[1],
			lo[2], median(c->drain, trials), hi[2],
			c->dropped, c->regions + c->dropped);
	}
	printf("# pool counters per frame handed out: zone lock holds (share "
		"contended), frames moved between pcp and zone, frames per "
		"non-empty deferred drain, irqsave zone fallbacks; irqsave pcp "
		"lock: contended acquisitions and wait cycles (all waits, "
		"preempted holders included); CPU time of the poll and the "
		"consumer over wall time (cross-CPU figures need both near "
		"100%%, co-scheduled ones share one CPU)\n");
	for (unsigned int i = 0; i < nr_configs; i++) {
		const struct config *c = &configs[i];
		double fr = (double)c->frames;

		if (c->frames == 0 || (c->be.kind != BE_POOL &&
				c->cons != CONS_COSCHED && c->cons != CONS_REMOTE))
			continue;
		printf("#   %-38s", c->name);
		if (c->be.kind == BE_POOL)
			printf(" zone locks %.3f (%.1f%% contended)  pcp<->zone "
				"%.3f  deferred %.1f/drain  fallbacks %.3f",
				c->zone_lock.acquisitions / fr,
				c->zone_lock.acquisitions != 0 ? 100.0 *
				c->zone_lock.contended /
				c->zone_lock.acquisitions : 0,
				c->pcp_zone_frames / fr, c->deferred_drains != 0 ?
				(double)c->deferred_drained / c->deferred_drains :
				0, c->zone_fallback / fr);
		if (c->pcp_lock.acquisitions != 0)
			printf("  pcp lock contended %" PRIu64 " waited %.0f us",
				c->pcp_lock.contended,
				c->pcp_lock.wait_cycles * 1e6 / tsc_hz);
		if (c->cons == CONS_COSCHED || c->cons == CONS_REMOTE)
			printf("  cpu poll %.0f%% consumer %.0f%%",
				100.0 * c->poll_cpu_ns / c->wall_ns,
				100.0 * c->cons_cpu_ns / c->wall_ns);
		printf("\n");
	}

	/* Part 1 */
	printf("# part 1: poll side (alloc = refill calls, drain = "
		"rxr_pool_poll_end, poll = alloc + drain [+ free when local]) "
		"and consumer side (free), cycles per frame\n");
	for (unsigned int i = 0; i < nr_configs; i++) {
		const struct config *c = &configs[i];
		double a = fig(c, c->alloc), f = fig(c, c->free),
			d = fig(c, c->drain);

		if (c->cons == CONS_PAIR || c->be.kind != BE_POOL)
			continue;
		snprintf(name, sizeof(name), "%.60s.alloc", c->name);
		print_bench(name, a, "cycles/frame");
		snprintf(name, sizeof(name), "%.60s.free", c->name);
		print_bench(name, f, "cycles/frame");
		snprintf(name, sizeof(name), "%.60s.drain", c->name);
		print_bench(name, d, "cycles/frame");
		snprintf(name, sizeof(name), "%.60s.poll", c->name);
		print_bench(name, a + d + (c->cons == CONS_LOCAL ? f : 0),
			"cycles/frame");
	}
	printf("# bulk_over_single.<strategy>: run to completion (consumer_local), "
		"alloc + free per frame, bulk 32 over single; lower is better\n");
	for (unsigned int s = 0; s < NR_STRATEGIES; s++) {
		const struct config *b, *o;

		snprintf(name, sizeof(name), "%s.bulk32.consumer_local",
			rxr_strategy_name(s));
		b = config_find(name);
		snprintf(name, sizeof(name), "%s.single.consumer_local",
			rxr_strategy_name(s));
		o = config_find(name);
		if (b == NULL || o == NULL)
			continue;
		snprintf(name, sizeof(name), "bulk_over_single.%s",
			rxr_strategy_name(s));
		print_ratio(name, fig(b, b->alloc) + fig(b, b->free),
			fig(o, o->alloc) + fig(o, o->free));
	}

	/* Part 2 */
	printf("# part 2: a non-EAL pthread on the other CPU frees what the "
		"poll lcore handed over: bh (deferred list) against rte_mempool "
		"ring_mp_mc without cache (put); lower is better, target <= 0.33 "
		"for single\n");
	remote_free_vs_peer("bh", "mempool_nocache",
		"bh_remote_free_over_mempool_nocache");
	printf("# the same non-EAL puts when the poll lcore gets from a %u "
		"cache (DPDK's usual set-up: only the consumer has no cache)\n",
		MP_CACHE);
	remote_free_vs_peer("bh", "mempool_cache",
		"bh_remote_free_over_mempool_nocache_consumer");
	printf("# the whole trip, both sides: bh poll alloc + poll-end drain + "
		"remote free over mempool get + put (the drain is where bh's owner "
		"pays for the remote frees); lower is better\n");
	remote_roundtrip_vs_peer("bh", "mempool_nocache",
		"bh_remote_roundtrip_over_mempool_nocache");
	printf("# the remote thread in DPDK's usual set-up: a user-owned cache "
		"(rte_mempool_cache_create() + rte_mempool_generic_put()), the "
		"poll lcore getting from its %u cache; free only, then the whole "
		"trip; lower is better, goal <= 1.0 for the trip at bulk 32; bh's "
		"consumer with a task batch of its own (rxr_pool_task_batch(), "
		"%u frames, as the app's consumers), like for like; "
		"bh_unbatched_*: each free call published\n",
		MP_CACHE, RXR_POOL_TASK_BATCH_DEFAULT);
	remote_free_vs_peer("bh_task_batch", "mempool_usercache",
		"bh_remote_free_over_mempool_cached");
	remote_roundtrip_vs_peer("bh_task_batch", "mempool_usercache",
		"bh_remote_roundtrip_over_mempool_cached");
	remote_free_vs_peer("bh", "mempool_usercache",
		"bh_unbatched_remote_free_over_mempool_cached");
	remote_roundtrip_vs_peer("bh", "mempool_usercache",
		"bh_unbatched_remote_roundtrip_over_mempool_cached");
	printf("# rseq, the same trip: the remote thread frees onto its own "
		"CPU's pcp (no deferral, no drain), the poll lcore refills from "
		"the zone what it does not get back; goal <= 1.0 at bulk 32\n");
	remote_free_vs_peer("rseq", "mempool_usercache",
		"rseq_remote_free_over_mempool_cached");
	remote_roundtrip_vs_peer("rseq", "mempool_usercache",
		"rseq_remote_roundtrip_over_mempool_cached");

	/* Part 3 */
	printf("# part 3: owner path, alloc + free of the same burst on the "
		"poll lcore: bh against rte_mempool ring_mp_mc with a %u cache on "
		"an EAL lcore; lower is better, target <= 1.0 at bulk 32\n",
		MP_CACHE);
	for (int single = 1; single >= 0; single--) {
		const struct config *o, *m;

		snprintf(name, sizeof(name), "bh.%s.owner", mode_name(single));
		o = config_find(name);
		if (o != NULL) {
			snprintf(name, sizeof(name), "bh.owner.alloc_free.%s",
				mode_name(single));
			print_bench(name, fig(o, o->alloc), "cycles/frame");
		}
		snprintf(name, sizeof(name), "mempool_cache.%s.owner",
			mode_name(single));
		m = config_find(name);
		if (m != NULL) {
			snprintf(name, sizeof(name), "mempool_cache.get_put.%s",
				mode_name(single));
			print_bench(name, fig(m, m->alloc), "cycles/obj");
		}
		if (o != NULL && m != NULL) {
			snprintf(name, sizeof(name), "bh_over_mempool_cache.%s",
				mode_name(single));
			print_ratio(name, fig(o, o->alloc), fig(m, m->alloc));
		}
	}
}

/* Trial *arg of every configuration, in turn. */
static int
run_trial(void *arg)
{
	unsigned int t = *(unsigned int *)arg;

	for (unsigned int i = 0; i < nr_configs; i++)
		if (run_config(&configs[i], t) != 0)
			return -1;
	return 0;
}

static int
run_matrix(void)
{
	for (unsigned int t = 0; t < trials; t++) {
		trial_now = t;
		if (rxr_bench_on_stack(t, run_trial, &t) != 0)
			return -1;
	}
	return 0;
}

/* --- part 4: two pollers ------------------------------------------------- */

struct poller {
	struct rxr_pool *p;
	bool single;
	struct rte_ring *out, *in;	/* to the other poller, from it */
	uint64_t frames;
	struct acc alloc, free, drain;
	uint64_t elapsed;
	int ret;
};

static uint32_t two_start;

static __rte_always_inline int
two_poll(struct poller *w, const bool single)
{
	const struct backend be = { BE_POOL, w->p, NULL };
	void *objs[BURST];
	uint64_t allocated = 0, freed = 0, t_start;

	/* Start together: the contention is the point. */
	__atomic_fetch_add(&two_start, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&two_start, __ATOMIC_ACQUIRE) < 2)
		rte_pause();
	t_start = tsc();
	while (allocated < w->frames || freed < w->frames) {
		uint64_t t0, t1;
		unsigned int drained;
		bool worked = false;

		if (allocated < w->frames && rte_ring_free_count(w->out) >= BURST) {
			worked = true;
			t0 = tsc();
			if (unlikely(be_alloc(&be, objs, single) != 0))
				return -1;
			t1 = tsc();
			acc_add(&w->alloc, t1 - t0, BURST);
			if (unlikely(rte_ring_enqueue_bulk(w->out, objs, BURST,
					NULL) != BURST))
				return -1;
			allocated += BURST;
		}
		if (rte_ring_dequeue_bulk(w->in, objs, BURST, NULL) == BURST) {
			worked = true;
			t0 = tsc();
			be_free(&be, objs, single);
			t1 = tsc();
			acc_add(&w->free, t1 - t0, BURST);
			freed += BURST;
		}
		/* A poll iteration that found nothing to do is the bench
		 * waiting for its peer, not allocator work: not timed. */
		if (!worked) {
			rte_pause();
			continue;
		}
		t0 = tsc();
		drained = rxr_pool_poll_end(w->p);
		t1 = tsc();
		acc_add_work(&w->drain, t1 - t0, 0, drained);
	}
	w->elapsed = tsc() - t_start;
	return 0;
}

static int
two_poll_main(void *arg)
{
	struct poller *w = arg;

	w->ret = w->single ? two_poll(w, true) : two_poll(w, false);
	return w->ret;
}

static int
two_poll_launch(void *arg)
{
	return rxr_bench_on_stack(trial_now, two_poll_main, arg);
}

struct two_result {
	double cost[MAX_TRIALS];	/* allocator cycles per frame */
	double mfps[MAX_TRIALS];	/* frames per second, both pollers */
	struct rxr_lock_stats lock;	/* zone lock, summed over trials */
	uint64_t elapsed;		/* poller cycles, summed */
	uint64_t dropped, regions;
};

static int
two_pollers_run(struct rxr_pool *p, bool single, struct rte_ring *r01,
		struct rte_ring *r10, struct two_result *res, unsigned int trial)
{
	struct poller w[2] = {
		{ .p = p, .single = single, .out = r01, .in = r10,
		  .frames = frames_two_pollers },
		{ .p = p, .single = single, .out = r10, .in = r01,
		  .frames = frames_two_pollers },
	};
	struct rxr_pool_stats *st0 = malloc(sizeof(*st0)),
		*st1 = malloc(sizeof(*st1));
	struct acc a = { 0 }, f = { 0 }, d = { 0 };
	uint64_t wall;
	int ret;

	if (st0 == NULL || st1 == NULL) {
		free(st0);
		free(st1);
		return -1;
	}
	__atomic_store_n(&two_start, 0, __ATOMIC_RELEASE);
	rxr_pool_stats(p, st0);
	if (rte_eal_remote_launch(two_poll_launch, &w[1], 1) != 0) {
		free(st0);
		free(st1);
		return -1;
	}
	ret = two_poll_launch(&w[0]);
	if (ret != 0) {
		printf("# two pollers: allocation failed, cannot measure\n");
		exit(EXIT_FAILURE);	/* lcore 1 may wait forever */
	}
	ret = rte_eal_wait_lcore(1);
	rxr_pool_stats(p, st1);
	if (ret != 0) {
		free(st0);
		free(st1);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		a.cycles += w[i].alloc.cycles;
		a.frames += w[i].alloc.frames;
		f.cycles += w[i].free.cycles;
		f.frames += w[i].free.frames;
		d.cycles += w[i].drain.cycles;
		res->elapsed += w[i].elapsed;
		res->dropped += w[i].alloc.dropped + w[i].free.dropped +
			w[i].drain.dropped;
		res->regions += w[i].alloc.regions + w[i].free.regions +
			w[i].drain.regions;
	}
	wall = RTE_MAX(w[0].elapsed, w[1].elapsed);
	/* A frame costs its alloc, its free and its share of poll ends. */
	res->cost[trial] = acc_per_frame(&a) + acc_per_frame(&f) +
		(double)d.cycles / (2.0 * frames_two_pollers);
	res->mfps[trial] = wall != 0 ? 2.0 * frames_two_pollers * tsc_hz / wall /
		1e6 : NAN;
	res->lock.acquisitions += st1->zone[0].lock.acquisitions -
		st0->zone[0].lock.acquisitions;
	res->lock.contended += st1->zone[0].lock.contended -
		st0->zone[0].lock.contended;
	res->lock.wait_cycles += st1->zone[0].lock.wait_cycles -
		st0->zone[0].lock.wait_cycles;
	free(st0);
	free(st1);
	return 0;
}

static int
two_pollers(void)
{
	static const enum rxr_strategy strat[2] = { RXR_STRATEGY_ZONE,
		RXR_STRATEGY_BH };
	static struct two_result res[2][2];	/* [strategy][single] */
	struct rxr_pool *p[2][2] = { { NULL } };
	struct rte_ring *r01, *r10;
	char name[96];
	int ret = -1;

	if (only != NULL && strstr("two_pollers", only) == NULL)
		return 0;
	r01 = rte_ring_create("bs_r01", RING_SIZE, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	r10 = rte_ring_create("bs_r10", RING_SIZE, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r01 == NULL || r10 == NULL)
		goto out;
	for (int s = 0; s < 2; s++)
		for (int single = 0; single < 2; single++) {
			p[s][single] = pool_new(strat[s], !single, 2);
			if (p[s][single] == NULL)
				goto out;
			for (unsigned int t = 0; t < MAX_TRIALS; t++)
				res[s][single].cost[t] = res[s][single].mfps[t] = NAN;
		}
	/* Interleaved: zone bh zone bh ..., bulk 32 then single each trial. */
	for (unsigned int t = 0; t < trials; t++) {
		trial_now = t;
		for (int single = 0; single < 2; single++)
			for (int s = 0; s < 2; s++)
				if (two_pollers_run(p[s][single], single, r01, r10,
						&res[s][single], t) != 0)
					goto out;
	}
	for (int s = 0; s < 2; s++)
		for (int single = 0; single < 2; single++)
			if (pool_conserved(p[s][single]) != 0)
				goto out;

	printf("# part 4: two pollers (lcores 0 and 1, same pool), each "
		"allocating %s and handing its frames to the other, which frees "
		"them; cost = allocator cycles (alloc + free + poll end, both "
		"pollers) per frame\n", "bursts of 32");
	for (int single = 0; single < 2; single++)
		for (int s = 0; s < 2; s++) {
			struct two_result *r = &res[s][single];
			const char *sn = rxr_strategy_name(strat[s]);
			double lo, hi;

			min_max(r->cost, trials, &lo, &hi);
			printf("#   %s.%s.two_pollers: cost min %.2f max %.2f; "
				"regions dropped %" PRIu64 "/%" PRIu64 "\n", sn,
				mode_name(single), lo, hi, r->dropped,
				r->regions + r->dropped);
			snprintf(name, sizeof(name), "%s.%s.two_pollers.cost", sn,
				mode_name(single));
			print_bench(name, median(r->cost, trials), "cycles/frame");
			snprintf(name, sizeof(name), "%s.%s.two_pollers.rate", sn,
				mode_name(single));
			print_bench(name, median(r->mfps, trials), "Mframes/s");
			snprintf(name, sizeof(name),
				"%s.%s.two_pollers.zone_lock.contended_share", sn,
				mode_name(single));
			print_bench(name, r->lock.acquisitions != 0 ?
				100.0 * r->lock.contended / r->lock.acquisitions : 0,
				"%");
			snprintf(name, sizeof(name),
				"%s.%s.two_pollers.zone_lock.wait_share", sn,
				mode_name(single));
			print_bench(name, r->elapsed != 0 ?
				100.0 * r->lock.wait_cycles / r->elapsed : 0, "%");
			snprintf(name, sizeof(name),
				"%s.%s.two_pollers.zone_lock.acquisitions_per_frame",
				sn, mode_name(single));
			print_bench(name, (double)r->lock.acquisitions /
				(2.0 * frames_two_pollers * trials), "locks/frame");
		}
	printf("# zone_over_bh.two_pollers: cost per frame of zone over bh, "
		"bulk 32 (.single: calls of one frame); above 1 means bh is "
		"cheaper, lower is better for zone\n");
	print_ratio("zone_over_bh.two_pollers", median(res[0][0].cost, trials),
		median(res[1][0].cost, trials));
	print_ratio("zone_over_bh.two_pollers.single",
		median(res[0][1].cost, trials), median(res[1][1].cost, trials));
	printf("# bh_over_zone.two_pollers.rate: frames per second of bh over "
		"zone; higher is better for bh\n");
	print_ratio("bh_over_zone.two_pollers.rate", median(res[1][0].mfps, trials),
		median(res[0][0].mfps, trials));
	print_ratio("bh_over_zone.two_pollers.rate.single",
		median(res[1][1].mfps, trials), median(res[0][1].mfps, trials));
	ret = 0;
out:
	for (int s = 0; s < 2; s++)
		for (int single = 0; single < 2; single++)
			test_pool_destroy(p[s][single]);
	rte_ring_free(r01);
	rte_ring_free(r10);
	if (ret != 0)
		printf("# two pollers: cannot measure\n");
	return ret;
}

/* --- main ---------------------------------------------------------------- */

static void
usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--quick] [--trials N] [--frames N] "
		"[--only TEXT]\n", prog);
	exit(EXIT_FAILURE);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "trials", required_argument, NULL, 't' },
		{ "frames", required_argument, NULL, 'f' },
		{ "only", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct rte_ring *ring_co, *ring_remote;
	bool trials_set = false, frames_set = false;
	uint64_t t_begin;
	int opt, ret = EXIT_FAILURE;

	/* Hugepages and ordinary memory, a child process each. */
	ret = rxr_bench_each_memory(argc, argv);
	if (ret >= 0)
		return ret;
	ret = EXIT_FAILURE;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'q': quick = true; break;
		case 't':
			trials = (unsigned int)atoi(optarg);
			trials_set = true;
			break;
		case 'f':
			frames_per_run = frames_two_pollers =
				strtoull(optarg, NULL, 0);
			frames_set = true;
			break;
		case 'o': only = optarg; break;
		default: usage(argv[0]);
		}
	}
	if (quick) {
		if (!trials_set)
			trials = 3;
		if (!frames_set)
			frames_per_run = frames_two_pollers = 1u << 15;
	}
	if (trials == 0 || trials > MAX_TRIALS || frames_per_run < BURST)
		usage(argv[0]);
	frames_per_run = frames_per_run / (PAIR_CHUNK * BURST) *
		(PAIR_CHUNK * BURST);
	frames_two_pollers = frames_two_pollers / BURST * BURST;
	if (frames_per_run == 0)
		frames_per_run = PAIR_CHUNK * BURST;

	/* Lcore 0 (main) polls, lcore 1 is the second poller of part 4. */
	rxr_test_eal_init(argv[0], "0-1", 1024, NULL);
	if (rte_lcore_count() < 2 || rte_get_main_lcore() != POLL_LCORE) {
		printf("# needs lcores 0 and 1 on two CPUs: cannot measure\n");
		return EXIT_FAILURE;
	}
	poll_cpu = rte_lcore_to_cpu_id(POLL_LCORE);
	remote_cpu = rte_lcore_to_cpu_id(1);
	calibrate();
	if (RXR_DEBUG)
		printf("# debug checks are compiled in (-Ddebug_checks=true): "
			"these are not release figures\n");
	printf("# TSC %" PRIu64 " Hz, resolution %" PRIu64 " cycles, timer "
		"overhead %" PRIu64 " cycles (mean of an empty region, subtracted "
		"per region), regions above %" PRIu64 " + %" PRIu64
		"/frame cycles left out as preempted\n", tsc_hz, tsc_step, tsc_overhead,
		thr_base, thr_per_frame);
	printf("# poll lcore %u on CPU %u; co-scheduled consumer on CPU %u, "
		"remote consumer on CPU %u (non-EAL pthreads); %u trials of %"
		PRIu64 " frames per configuration, %" PRIu64 " per poller in "
		"part 4; frames of %u bytes, pools of %u, pcp high %u batch %u\n",
		POLL_LCORE, poll_cpu, poll_cpu, remote_cpu, trials,
		frames_per_run, frames_two_pollers, FRAME_SIZE, POOL_FRAMES,
		RXR_PCP_HIGH_DEFAULT, RXR_PCP_BATCH_DEFAULT);
	t_begin = tsc();
	printf("# a cache line bounced between CPU %u and CPU %u: the cost every "
		"cross-CPU figure scales with (on a VM it may change between "
		"runs)\n", poll_cpu, remote_cpu);
	print_bench("machine.cross_cpu_line_roundtrip", cacheline_roundtrip(),
		"cycles");

	for (unsigned int s = 0; s < NR_STRATEGIES; s++) {
		char why[160];

		if (!rxr_strategy_available(s, why, sizeof(why))) {
			printf("# %s left out: %s\n", rxr_strategy_name(s), why);
			continue;
		}
		for (int bulk = 0; bulk < 2; bulk++) {
			pools[s][bulk] = pool_new(s, bulk, 1);
			if (pools[s][bulk] == NULL)
				return EXIT_FAILURE;
		}
	}
	mp_nocache = mempool_new("bs_mp_nocache", 0);
	mp_cache = mempool_new("bs_mp_cache", MP_CACHE);
	mp_ucache = rte_mempool_cache_create(MP_CACHE, SOCKET_ID_ANY);
	ring_co = rte_ring_create("bs_ring_co", RING_SIZE, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	ring_remote = rte_ring_create("bs_ring_remote", RING_SIZE, SOCKET_ID_ANY,
			RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (mp_nocache == NULL || mp_cache == NULL || mp_ucache == NULL ||
			ring_co == NULL || ring_remote == NULL) {
		printf("# set-up failed: cannot measure\n");
		return EXIT_FAILURE;
	}
	printf("# peers: rte_mempool %s, %u objects, cache 0 and %u\n",
		rte_mempool_get_ops(mp_nocache->ops_index)->name, MP_SIZE,
		MP_CACHE);
	if (consumer_start(&cons_co, poll_cpu) != 0 ||
			consumer_start(&cons_remote, remote_cpu) != 0) {
		printf("# cannot start the consumer threads: cannot measure\n");
		return EXIT_FAILURE;
	}

	build_configs();
	if (run_matrix() != 0)
		return EXIT_FAILURE;
	for (unsigned int s = 0; s < NR_STRATEGIES; s++)
		for (int bulk = 0; bulk < 2; bulk++)
			if (pools[s][bulk] != NULL &&
					pool_conserved(pools[s][bulk]) != 0)
				return EXIT_FAILURE;
	consumer_stop(&cons_co);
	consumer_stop(&cons_remote);
	report_matrix();
	for (unsigned int i = 0; i < nr_configs; i++) {
		const struct config *c = &configs[i];

		if (isnan(median(c->alloc, trials))) {
			printf("# %s: no valid sample: cannot measure\n", c->name);
			goto out;
		}
	}

	if (two_pollers() != 0)
		goto out;
	ret = EXIT_SUCCESS;
out:
	printf("# run took %.1f s\n", (double)(tsc() - t_begin) / tsc_hz);
	for (unsigned int s = 0; s < NR_STRATEGIES; s++)
		for (int bulk = 0; bulk < 2; bulk++)
			test_pool_destroy(pools[s][bulk]);
	rte_mempool_free(mp_nocache);
	rte_mempool_cache_free(mp_ucache);
	rte_mempool_free(mp_cache);
	rte_ring_free(ring_co);
	rte_ring_free(ring_remote);
	return ret;
}
