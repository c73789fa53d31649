/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Strategy tests: every strategy, bulk on and off, hands out and takes back
 * frames from each context (poll, task, irq); statistics match what was
 * done; fake NUMA nodes send remote frames home and recycle waives them;
 * conservation at the end of each.
 */

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_random.h>

#include "rxr_test.h"
#include "test_pool_mem.h"
#include "rxr_pool_private.h"

#define NR_FRAMES 4096u

/* Strategy s's own counter name of poll lcore 0 in st, by its name. */
static uint64_t
counter(const struct rxr_pool_stats *st, enum rxr_strategy s,
		const char *name)
{
	const char * const *names;
	unsigned int n = rxr_strategy_counters(s, &names);

	for (unsigned int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return st->lcore[0].counters[i];
	return 0;
}
#define COUNTER(st, S, name) counter(&(st), RXR_STRATEGY_##S, name)

static struct rxr_pool *
pool_new(enum rxr_strategy s, bool bulk, uint32_t fake_nodes)
{
	struct rxr_pool_conf c = {
		.name = "t", .strategy = s, .bulk = bulk, .socket_id = SOCKET_ID_ANY,
		.fake_nodes = fake_nodes, .nr_poll_lcores = 2,
		.poll_lcores = { 0, 1 }, .latency = true,
		.high = 48, .batch = 16,
	};
	struct rxr_pool *p = rxr_pool_create(&c, 4096, NR_FRAMES, 8);
	int ret;

	if (p == NULL) {
		printf("# rxr_pool_create: %s\n", rte_strerror(rte_errno));
		return NULL;
	}
	ret = test_pool_fill(p, 4096, NR_FRAMES);
	if (ret != 0) {
		printf("# test_pool_fill: %s\n", rte_strerror(-ret));
		test_pool_destroy(p);
		return NULL;
	}
	return p;
}

/* Strategies this process cannot run are left out, saying why. */
static bool
available(enum rxr_strategy s)
{
	char why[160];

	if (rxr_strategy_available(s, why, sizeof(why)))
		return true;
	printf("# %s left out: %s\n", rxr_strategy_name(s), why);
	return false;
}

static int
conserved(struct rxr_pool *p)
{
	rxr_pool_quiesce(p);
	RXR_TEST_ASSERT(rxr_pool_check(p, stdout) == 0, "conservation");
	RXR_TEST_ASSERT_EQ(rxr_pool_avail(p), NR_FRAMES, "avail");
	return 0;
}

/* The context the calling thread is in, for pool p (rxr_context.h). */
enum rxr_context { RXR_CTX_POLL, RXR_CTX_TASK, RXR_CTX_IRQ };

static enum rxr_context
rxrp_context(const struct rxr_pool *p)
{
	if (rxr_in_irq())
		return RXR_CTX_IRQ;
	return rxrp_self_lcore(p) != NULL ? RXR_CTX_POLL : RXR_CTX_TASK;
}

/* --- task context: a plain pthread, not an EAL lcore ---------------------- */

struct task_job {
	struct rxr_pool *p;
	void **objs;
	unsigned int n;
	bool alloc;
	int bind;	/* poll lcore to bind to, or -1 */
	int cpu;	/* CPU to run on, or -1 (0: the field left out) */
	int ret;
	enum rxr_context ctx;
};

static void *
task_main(void *arg)
{
	struct task_job *j = arg;

	if (j->cpu > 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(j->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	if (j->bind >= 0)
		rxr_pool_task_bind(j->p, j->bind);
	j->ctx = rxrp_context(j->p);
	if (j->alloc)
		j->ret = rxr_pool_alloc_bulk(j->p, j->objs, j->n);
	else
		rxr_pool_free_bulk(j->p, j->objs, j->n);
	return NULL;
}

static int
run_task(struct task_job *j)
{
	pthread_t t;

	if (pthread_create(&t, NULL, task_main, j) != 0)
		return -1;
	pthread_join(t, NULL);
	return 0;
}

/* --- irq context: a signal handler on the calling thread ------------------ */

/* volatile: written by the handler behind the compiler's back. */
static volatile struct {
	struct rxr_pool *p;
	void **objs;
	unsigned int n;
	bool alloc;
	int ret;
	enum rxr_context ctx;
} irq_job;

static void
irq_handler(int sig)
{
	rxr_irq_enter();
	irq_job.ctx = rxrp_context(irq_job.p);
	if (irq_job.alloc)
		irq_job.ret = rxr_pool_alloc_bulk(irq_job.p, (void **)irq_job.objs,
				irq_job.n);
	else
		rxr_pool_free_bulk(irq_job.p, (void **)irq_job.objs, irq_job.n);
	rxr_irq_exit();
}

static int
run_irq(struct rxr_pool *p, void **objs, unsigned int n, bool alloc)
{
	irq_job.p = p;
	irq_job.objs = objs;
	irq_job.n = n;
	irq_job.alloc = alloc;
	irq_job.ret = -1;
	raise(SIGUSR1);
	RXR_TEST_ASSERT(irq_job.ctx == RXR_CTX_IRQ, "handler context %d",
		(int)irq_job.ctx);
	return alloc ? irq_job.ret : 0;
}

/* Every strategy and bulk mode, from each context. */
static int
test_contexts(void)
{
	static void *a[256], *b[256], *c[256];

	for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++)
		for (int bulk = 0; bulk < 2 && available(s); bulk++) {
			struct rxr_pool *p = pool_new(s, bulk, 1);
			struct task_job tj = { .p = p, .objs = b, .n = 200,
				.alloc = true, .bind = -1 };
			struct rxr_pool_stats st;

			RXR_TEST_ASSERT(p != NULL, "pool %s", rxr_strategy_name(s));
			printf("# %s bulk %s\n", rxr_strategy_name(s), bulk ? "on" : "off");
			RXR_TEST_ASSERT(rxrp_context(p) == RXR_CTX_POLL,
				"main lcore is a poll lcore");
			/* Bursts below the recycle cache size, as a PMD's;
			 * the first 5 in a latency sample. */
			for (int r = 0; r < 20; r++) {
				rxr_pool_sample(p, r < 5);
				RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 100), 0, "poll alloc");
				rxr_pool_free_bulk(p, a, 100);
			}
			rxr_pool_sample(p, false);
			RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 200), 0, "poll alloc");
			if (run_task(&tj) != 0)
				return -1;
			RXR_TEST_ASSERT(tj.ctx == RXR_CTX_TASK, "task context");
			RXR_TEST_ASSERT_EQ(tj.ret, 0, "task alloc");
			RXR_TEST_ASSERT_EQ(run_irq(p, c, 50, true), 0, "irq alloc");
			for (int i = 0; i < 200; i++)
				for (int k = 0; k < 50; k++)
					RXR_TEST_ASSERT(a[i] != c[k] && b[i] != c[k] &&
						a[i] != b[i], "frame handed out twice");
			/* Cross over: task frees the poll's, irq frees the task's. */
			tj.objs = a;
			tj.alloc = false;
			if (run_task(&tj) != 0 || run_irq(p, b, 200, false) != 0)
				return -1;
			rxr_pool_free_bulk(p, c, 50);
			rxr_pool_poll_end(p);
			rxr_pool_stats(p, &st);
			if (s == RXR_STRATEGY_BH)
				RXR_TEST_ASSERT(st.lcore[0].deferred_drained >= 200,
					"bh drained %" PRIu64 " deferred frees",
					st.lcore[0].deferred_drained);
			if (s == RXR_STRATEGY_RECYCLE)
				RXR_TEST_ASSERT(COUNTER(st, RECYCLE, "alloc_fast") >= 20 * 100 &&
					COUNTER(st, RECYCLE, "recycle_cached") > 0,
					"recycle fast %" PRIu64,
					COUNTER(st, RECYCLE, "alloc_fast"));
			RXR_TEST_ASSERT_EQ(st.lcore[0].refill_calls, 5,
				"sampled refills timed, the others not");
			RXR_TEST_ASSERT(st.lcore[0].sample_cycles >
				st.lcore[0].refill_cycles, "frees timed too");
			if (conserved(p) != 0)
				return -1;
			test_pool_destroy(p);
		}
	return 0;
}

/*
 * Latency sampling keeps the inline owner path (bh's pcp, recycle's alloc
 * cache; with bulk off, one-frame calls) outside the window and times
 * every call inside it; the testing slowdown adds its cycles to every
 * refill.
 */
static int
sampling_inline(enum rxr_strategy s, bool bulk)
{
	struct rxr_pool_conf c = {
		.name = "s", .strategy = s, .bulk = bulk,
		.socket_id = SOCKET_ID_ANY, .nr_poll_lcores = 1,
		.poll_lcores = { 0 }, .latency = true,
	};
	struct rxr_pool *p = rxr_pool_create(&c, 4096, 256, 2);
	struct rxr_pool_stats st;
	static void *a[32];
	uint64_t fast0;

	printf("# %s bulk %s\n", rxr_strategy_name(s), bulk ? "on" : "off");
	RXR_TEST_ASSERT(p != NULL && test_pool_fill(p, 4096, 256) == 0, "pool");
	RXR_TEST_ASSERT(p->ops.owner != NULL && p->owner[0].stack != NULL,
		"sampling turned the inline path off");
	RXR_TEST_ASSERT_EQ(p->ops.section_max, bulk ? UINT_MAX : 1,
		"inline call size");
	rxr_pool_sample(p, true);
	RXR_TEST_ASSERT(RTE_PER_LCORE(rxr_ctx_lcore) >= RTE_MAX_LCORE,
		"window: no inline path");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 32), 0, "alloc");
	rxr_pool_free_bulk(p, a, 32);
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 1), 0, "alloc one");
	rxr_pool_free_bulk(p, a, 1);
	rxr_pool_poll_end(p);
	rxr_pool_sample(p, false);
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT_EQ(st.lcore[0].refill_calls, 2,
		"both refills of the window timed");
	fast0 = s == RXR_STRATEGY_RECYCLE ? COUNTER(st, RECYCLE, "alloc_fast") :
		st.lcore[0].pcp.alloc;
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 32), 0, "alloc");
	rxr_pool_free_bulk(p, a, 32);
	for (int i = 0; i < 8; i++) {
		RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 1), 0, "alloc one");
		rxr_pool_free_bulk(p, a, 1);
	}
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT_EQ(st.lcore[0].refill_calls, 2,
		"no refill timed outside the window");
	/* The inline path keeps the strategy's counters. */
	RXR_TEST_ASSERT_EQ((s == RXR_STRATEGY_RECYCLE ?
		COUNTER(st, RECYCLE, "alloc_fast") : st.lcore[0].pcp.alloc) - fast0,
		32 + 8, "frames counted as served from the owner's stack");
	rxr_pool_quiesce(p);
	RXR_TEST_ASSERT(rxr_pool_check(p, stdout) == 0, "conservation");
	test_pool_destroy(p);
	return 0;
}

static int
test_sampling(void)
{
	struct rxr_pool_conf c = {
		.name = "s", .strategy = RXR_STRATEGY_BH, .bulk = true,
		.socket_id = SOCKET_ID_ANY, .nr_poll_lcores = 1,
		.poll_lcores = { 0 }, .latency = true,
	};
	const uint32_t delay = 2000000;
	/*
	 * The slowdown is work calibrated once to about delay cycles, not a
	 * spin on the clock: a refill may take a few percent less than
	 * delay. A quarter off still tells a delay in the timed region from
	 * one outside it (a few thousand cycles).
	 */
	const uint64_t least = delay - delay / 4;
	struct rxr_pool_stats st;
	struct rxr_pool *p;
	static void *a[32];
	uint64_t t0, dt;

	for (int bulk = 0; bulk < 2; bulk++)
		if (sampling_inline(RXR_STRATEGY_BH, bulk) != 0 ||
				sampling_inline(RXR_STRATEGY_RECYCLE, bulk) != 0)
			return -1;
	c.test_refill_delay = delay;
	p = rxr_pool_create(&c, 4096, 256, 2);
	RXR_TEST_ASSERT(p != NULL && test_pool_fill(p, 4096, 256) == 0, "pool");
	RXR_TEST_ASSERT(p->ops.owner == NULL, "slowdown kept the inline path");
	t0 = rte_rdtsc();
	for (int i = 0; i < 4; i++) {
		RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 8), 0, "alloc");
		rxr_pool_free_bulk(p, a, 8);
	}
	dt = rte_rdtsc() - t0;
	RXR_TEST_ASSERT(dt >= 4 * least, "4 refills took %" PRIu64
		" cycles, less than 4 x %" PRIu64, dt, least);
	/* Sampled refills: the delay is inside the timed region. */
	rxr_pool_sample(p, true);
	for (int i = 0; i < 4; i++) {
		RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 8), 0, "alloc");
		rxr_pool_free_bulk(p, a, 8);
	}
	rxr_pool_sample(p, false);
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT_EQ(st.lcore[0].refill_calls, 4, "sampled refills");
	RXR_TEST_ASSERT(st.lcore[0].refill_cycles >= 4 * least,
		"4 timed refills took %" PRIu64 " cycles, less than 4 x %"
		PRIu64 ": the planted delay is outside the timed region",
		st.lcore[0].refill_cycles, least);
	RXR_TEST_ASSERT(st.lcore[0].refill_cycles / st.lcore[0].refill_frames >=
		least / 8, "refill cycles per frame %" PRIu64 " below the "
		"delay over 8 frames", st.lcore[0].refill_cycles /
		st.lcore[0].refill_frames);
	test_pool_destroy(p);
	return 0;
}

/*
 * A reclaim that asked to empty an owner's caches before the owner entered
 * its section keeps the owner out, on the inline path too: the owner's
 * call waits for the request to be withdrawn and touches nothing before.
 * The helper looks after a pause; correct code passes whatever the timing.
 */
struct reclaim_job {
	struct rxr_pool_bh *bh;
	const uint32_t *count;	/* the owner's stack */
	uint32_t count0;
	bool done;		/* set by the owner when its call returned */
	bool early;		/* the owner's call returned, or touched the stack */
};

static void *
reclaim_helper(void *arg)
{
	struct reclaim_job *j = arg;

	rte_delay_us_sleep(50 * 1000);
	j->early = __atomic_load_n(&j->done, __ATOMIC_ACQUIRE) ||
		__atomic_load_n(j->count, __ATOMIC_RELAXED) != j->count0;
	__atomic_store_n(&j->bh->drain_req, 0, __ATOMIC_RELEASE);
	return NULL;
}

static int
inline_reclaim_one(enum rxr_strategy s, bool alloc)
{
	struct rxr_pool *p = pool_new(s, true, 1);
	struct reclaim_job j;
	struct rxrp_lcore *ls;
	static void *a[4];
	pthread_t t;

	RXR_TEST_ASSERT(p != NULL && p->ops.owner != NULL,
		"%s: pool with an inline path", rxr_strategy_name(s));
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 4), 0, "alloc");
	rxr_pool_free_bulk(p, a, 2);		/* the stack holds frames */
	ls = p->lcore[0];
	j = (struct reclaim_job){ .bh = ls->bh,
		.count = &p->owner[0].stack->count,
		.count0 = p->owner[0].stack->count };
	__atomic_store_n(&ls->bh->drain_req, 1, __ATOMIC_RELEASE);
	RXR_TEST_ASSERT_EQ(pthread_create(&t, NULL, reclaim_helper, &j), 0,
		"helper");
	if (alloc)
		RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 1), 0, "alloc");
	else
		rxr_pool_free_bulk(p, &a[2], 1);
	__atomic_store_n(&j.done, true, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	RXR_TEST_ASSERT(!j.early, "%s %s: the owner went on while a reclaim "
		"held its caches", rxr_strategy_name(s), alloc ? "alloc" : "free");
	rxr_pool_free_bulk(p, alloc ? a : &a[3], 1);
	if (alloc)
		rxr_pool_free_bulk(p, &a[2], 2);
	if (conserved(p) != 0)
		return -1;
	test_pool_destroy(p);
	return 0;
}

static int
test_inline_reclaim(void)
{
	for (int alloc = 0; alloc < 2; alloc++)
		if (inline_reclaim_one(RXR_STRATEGY_BH, alloc) != 0 ||
				inline_reclaim_one(RXR_STRATEGY_RECYCLE, alloc) != 0)
			return -1;
	return 0;
}

/*
 * The inline owner path reads the lcore from one thread-local word that a
 * thread's first call learns: an EAL lcore keeps its id, a thread that is
 * no lcore keeps NONE, a handler leaves it unknown (the thread it
 * interrupted learns again). Once learned, the owner's calls never reach
 * the pool's entry; a handler's always do.
 */
/* volatile: counted in a handler too. */
static volatile unsigned int entry_allocs;
static rxr_pool_alloc_t entry_alloc;

static int
counted_alloc(struct rxr_pool *p, void **objs, unsigned int n)
{
	entry_allocs++;
	return entry_alloc(p, objs, n);
}

static void *
ctx_lcore_task(void *arg)
{
	void *f;

	if (rxr_pool_alloc_bulk(arg, &f, 1) == 0)
		rxr_pool_free_bulk(arg, &f, 1);
	return (void *)(uintptr_t)RTE_PER_LCORE(rxr_ctx_lcore);
}

static int
test_ctx_lcore(void)
{
	struct rxr_pool_conf c = {
		.name = "ctx", .strategy = RXR_STRATEGY_BH, .bulk = true,
		.socket_id = SOCKET_ID_ANY, .nr_poll_lcores = 1,
		.poll_lcores = { rte_lcore_id() },
	};
	struct rxr_pool *p = rxr_pool_create(&c, 4096, 256, 2);
	static void *a[32], *h[1];
	pthread_t t;
	void *seen;

	RXR_TEST_ASSERT(p != NULL && test_pool_fill(p, 4096, 256) == 0, "pool");
	RXR_TEST_ASSERT(p->ops.owner != NULL, "bh has an inline path");
	entry_alloc = p->ops.alloc;
	p->ops.alloc = counted_alloc;
	entry_allocs = 0;
	/* As a thread that has not called yet. */
	RTE_PER_LCORE(rxr_ctx_lcore) = RXR_CTX_LCORE_UNKNOWN;
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 1), 0, "first alloc");
	rxr_pool_free_bulk(p, a, 1);
	RXR_TEST_ASSERT_EQ(RTE_PER_LCORE(rxr_ctx_lcore), rte_lcore_id(),
		"the main lcore learned its id");
	/* The pcp filled (the refill is the strategy's), then counted. */
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 32), 0, "refill");
	rxr_pool_free_bulk(p, a, 32);
	entry_allocs = 0;
	for (int i = 0; i < 8; i++) {
		RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, i % 2 ? 32 : 1), 0,
			"alloc");
		rxr_pool_free_bulk(p, a, i % 2 ? 32 : 1);
	}
	RXR_TEST_ASSERT_EQ(entry_allocs, 0, "the owner's calls stayed inline");
	RXR_TEST_ASSERT_EQ(run_irq(p, h, 1, true), 0, "alloc in a handler");
	RXR_TEST_ASSERT_EQ(entry_allocs, 1, "the handler's call took the entry");
	RXR_TEST_ASSERT_EQ(RTE_PER_LCORE(rxr_ctx_lcore), RXR_CTX_LCORE_UNKNOWN,
		"a handler leaves the word unknown");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 1), 0, "alloc after it");
	rxr_pool_free_bulk(p, a, 1);
	rxr_pool_free_bulk(p, h, 1);
	RXR_TEST_ASSERT_EQ(RTE_PER_LCORE(rxr_ctx_lcore), rte_lcore_id(),
		"learned again after the handler");
	RXR_TEST_ASSERT_EQ(entry_allocs, 1, "and inline again");
	RXR_TEST_ASSERT(pthread_create(&t, NULL, ctx_lcore_task, p) == 0,
		"thread");
	pthread_join(t, &seen);
	RXR_TEST_ASSERT_EQ((uint32_t)(uintptr_t)seen, RXR_CTX_LCORE_NONE,
		"a thread that is no lcore learned NONE");
	p->ops.alloc = entry_alloc;
	rxr_pool_quiesce(p);
	RXR_TEST_ASSERT(rxr_pool_check(p, stdout) == 0, "conservation");
	test_pool_destroy(p);
	return 0;
}

/* Statistics match what was done, strategy by strategy. */
static int
test_stats(void)
{
	static void *a[64];
	struct rxr_pool_stats st0, st;
	struct rxr_pool *p;
	struct task_job tj;

	/* zone, bulk: one lock hold per call; single: one per frame. */
	for (int bulk = 0; bulk < 2; bulk++) {
		p = pool_new(RXR_STRATEGY_ZONE, bulk, 1);
		rxr_pool_stats(p, &st0);
		RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 32), 0, "alloc");
		rxr_pool_free_bulk(p, a, 32);
		rxr_pool_stats(p, &st);
		RXR_TEST_ASSERT_EQ(st.zone[0].lock.acquisitions -
			st0.zone[0].lock.acquisitions, bulk ? 2 : 64, "zone locks");
		RXR_TEST_ASSERT_EQ(st.lcore[0].pcp.alloc, 0, "zone never uses the pcp");
		test_pool_destroy(p);
	}
	/* irqsave: one pcp lock per call or per frame, zone only on refill. */
	for (int bulk = 0; bulk < 2; bulk++) {
		p = pool_new(RXR_STRATEGY_IRQSAVE, bulk, 1);
		rxr_pool_stats(p, &st0);
		RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 8), 0, "alloc");
		rxr_pool_free_bulk(p, a, 8);
		rxr_pool_stats(p, &st);
		RXR_TEST_ASSERT_EQ(COUNTER(st, IRQSAVE, "lock_acquisitions"), bulk ? 2 : 16,
			"pcp locks");
		RXR_TEST_ASSERT_EQ(st.zone[0].lock.acquisitions -
			st0.zone[0].lock.acquisitions, 1, "one refill");
		RXR_TEST_ASSERT_EQ(st.lcore[0].pcp.alloc, 8, "pcp allocs");
		test_pool_destroy(p);
	}
	/* irqsave: a same-CPU context that finds the pcp lock held uses the zone. */
	p = pool_new(RXR_STRATEGY_IRQSAVE, true, 1);
	rxr_spinlock_lock(rxrp_lcore_priv(p->lcore[0]));
	RXR_TEST_ASSERT_EQ(run_irq(p, a, 4, true), 0, "irq alloc while held");
	rxr_spinlock_unlock(rxrp_lcore_priv(p->lcore[0]));
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT_EQ(COUNTER(st, IRQSAVE, "zone_fallback"), 1, "zone fallback");
	RXR_TEST_ASSERT_EQ(st.lcore[0].pcp.alloc, 0, "pcp untouched");
	rxr_pool_free_bulk(p, a, 4);
	if (conserved(p) != 0)
		return -1;
	test_pool_destroy(p);

	/* bh: a task's bulk free is one deferred batch, drained at poll end. */
	p = pool_new(RXR_STRATEGY_BH, true, 1);
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 40), 0, "alloc");
	tj = (struct task_job){ .p = p, .objs = a, .n = 40, .bind = 0 };
	run_task(&tj);
	rxr_pool_stats(p, &st0);
	/* A mempool's count must never fall short: frames waiting count. */
	RXR_TEST_ASSERT_EQ(st0.avail, NR_FRAMES, "deferred frames are available");
	/* Queued is counted while the frames wait, not only once drained. */
	RXR_TEST_ASSERT_EQ(st0.lcore[0].deferred_queued, 40, "queued, waiting");
	RXR_TEST_ASSERT_EQ(st0.lcore[0].deferred_drained, 0, "none drained yet");
	RXR_TEST_ASSERT_EQ(rxr_pool_poll_end(p), 40, "drained at poll end");
	RXR_TEST_ASSERT_EQ(rxr_pool_poll_end(p), 0, "nothing left");
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT_EQ(st.lcore[0].deferred_queued, 40, "queued count");
	RXR_TEST_ASSERT_EQ(st.lcore[0].deferred_drained, 40, "drained count");
	RXR_TEST_ASSERT_EQ(st.lcore[0].deferred_drains, 1, "one drain");
	RXR_TEST_ASSERT_EQ(st.lcore[0].pcp.free, 40, "into the pcp");
	if (conserved(p) != 0)
		return -1;
	test_pool_destroy(p);

	/* recycle: cache, ring, pcp, with page_pool's counters. */
	p = pool_new(RXR_STRATEGY_RECYCLE, true, 1);
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 32), 0, "alloc");
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT_EQ(COUNTER(st, RECYCLE, "alloc_slow"), 1, "slow refill");
	RXR_TEST_ASSERT_EQ(COUNTER(st, RECYCLE, "alloc_fast"), 32, "fast");
	rxr_pool_free_bulk(p, a, 32);
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT_EQ(COUNTER(st, RECYCLE, "recycle_cached"), 32, "cached");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 64), 0, "alloc 64");
	tj = (struct task_job){ .p = p, .objs = a, .n = 64, .bind = 0 };
	run_task(&tj);
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT_EQ(COUNTER(st, RECYCLE, "recycle_ring"), 64, "task frees to ring");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 64), 0, "alloc from ring");
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT(COUNTER(st, RECYCLE, "alloc_refill") >= 1, "ring refill");
	rxr_pool_free_bulk(p, a, 64);
	if (conserved(p) != 0)
		return -1;
	test_pool_destroy(p);
	return 0;
}

/* --- fake NUMA ----------------------------------------------------------- */

static void *numa_objs[128];

static int
alloc_on_lcore1(void *arg)
{
	return rxr_pool_alloc_bulk(arg, numa_objs, 128);
}

static int
test_numa(void)
{
	for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++) {
		struct rxr_pool *p;
		struct rxr_pool_stats st;
		struct task_job tj;

		if (!available(s))
			continue;
		p = pool_new(s, true, 2);
		RXR_TEST_ASSERT(p != NULL, "pool");
		RXR_TEST_ASSERT_EQ(p->lcore[1]->node, 1, "lcore 1 on fake node 1");
		rxr_test_remote_launch(alloc_on_lcore1, p, 1);
		RXR_TEST_ASSERT_EQ(rxr_test_wait_lcore(1), 0, "alloc on lcore 1");
		for (int i = 0; i < 128; i++)
			RXR_TEST_ASSERT_EQ(rxrp_frame_node(p, numa_objs[i]), 1,
				"frames from the lcore's own node");
		if (s == RXR_STRATEGY_RECYCLE) {
			/* Remote frames in lcore 0's ring are waived at refill. */
			tj = (struct task_job){ .p = p, .objs = numa_objs, .n = 128,
				.bind = 0 };
			run_task(&tj);
			RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, numa_objs, 16), 0,
				"alloc on lcore 0");
			rxr_pool_stats(p, &st);
			RXR_TEST_ASSERT_EQ(COUNTER(st, RECYCLE, "alloc_waive"), 128, "waived");
			for (int i = 0; i < 16; i++)
				RXR_TEST_ASSERT_EQ(rxrp_frame_node(p, numa_objs[i]), 0,
					"waived frames never handed out");
			rxr_pool_free_bulk(p, numa_objs, 16);
		} else {
			/* Lcore 0 frees node 1's frames: they go home, not in its pcp. */
			rxr_pool_free_bulk(p, numa_objs, 128);
			rxr_pool_poll_end(p);
			rxr_pool_stats(p, &st);
			if (s != RXR_STRATEGY_ZONE)
				RXR_TEST_ASSERT_EQ(st.lcore[0].remote_frees, 128,
					"remote frees");
			RXR_TEST_ASSERT_EQ(st.lcore[0].pcp.free, 0, "none in lcore 0's pcp");
		}
		if (conserved(p) != 0)
			return -1;
		test_pool_destroy(p);
	}
	return 0;
}

/*
 * The pool's reclaim (an allocation would fail) waits for an owner inside
 * its section rather than leaving its caches: lcore 1 keeps frames in its
 * caches and stays inside its section a while; lcore 0 then allocates
 * every frame the pool says it has. Leaving them made DPDK's
 * mbuf_autotest panic now and then (lcore 1 freeing as lcore 0 ran dry).
 */
static atomic_int held_state;	/* 1: lcore 1 inside, 2: it left */

static int
hold_section_on_lcore1(void *arg)
{
	struct rxr_pool *p = arg;
	struct rxr_pool_bh *bh = p->lcore[1]->bh;
	void *a[32];

	if (rxr_pool_alloc_bulk(p, a, 32) != 0)
		return -1;
	rxr_pool_free_bulk(p, a, 32);
	rxr_pool_bh_disable(bh);
	atomic_store(&held_state, 1);
	rte_delay_us_sleep(100 * 1000);
	atomic_store(&held_state, 2);
	rxr_pool_bh_enable(bh);
	return 0;
}

static int
test_reclaim_waits(void)
{
	static void *a[NR_FRAMES];
	enum rxr_strategy ss[] = { RXR_STRATEGY_BH, RXR_STRATEGY_RECYCLE };

	for (unsigned int k = 0; k < RTE_DIM(ss); k++) {
		struct rxr_pool *p = pool_new(ss[k], true, 1);
		uint64_t n;
		unsigned int got = 0;

		RXR_TEST_ASSERT(p != NULL, "pool");
		atomic_store(&held_state, 0);
		rxr_test_remote_launch(hold_section_on_lcore1, p, 1);
		while (atomic_load(&held_state) == 0)
			rte_pause();
		n = rxr_pool_avail(p);
		while (got < n && rxr_pool_alloc_bulk(p, &a[got], 1) == 0)
			got++;
		RXR_TEST_ASSERT_EQ(rxr_test_wait_lcore(1), 0, "lcore 1");
		RXR_TEST_ASSERT(got == n, "%s: %u of the %" PRIu64 " frames "
			"the pool counted allocated (lcore 1 %s)",
			rxr_strategy_name(ss[k]), got, n,
			atomic_load(&held_state) == 2 ? "had left its section" : "was inside");
		rxr_pool_free_bulk(p, a, got);
		rxr_pool_poll_end(p);
		if (conserved(p) != 0)
			return -1;
		test_pool_destroy(p);
	}
	return 0;
}

/*
 * bh's remote frees travel in batches (up to RXRP_DEFER_BATCH frames
 * of a call each, one push per call): sizes around the batch size, from a
 * plain pthread and from a signal handler, each counted once as available
 * as soon as it is pushed, and every frame comes back exactly once, by the
 * owner's drain and by a reclaim's drain to the zone.
 */
static int
test_defer_batches(void)
{
	static const unsigned int sizes[] = { 1, 2, 13, 31, 32, 33, 63, 64, 65,
		100, 255 };
	static void *a[2048], *back[NR_FRAMES];

	for (int reclaim = 0; reclaim < 2; reclaim++) {
		struct rxr_pool *p = pool_new(RXR_STRATEGY_BH, true, 1);
		struct rxrp_lcore *ls;
		unsigned int all = 0, total = 0, got;
		uint8_t *seen;

		RXR_TEST_ASSERT(p != NULL, "pool");
		ls = rxrp_owner_lcore(p);
		RXR_TEST_ASSERT(ls != NULL, "main lcore owns a pcp");
		for (unsigned int i = 0; i < RTE_DIM(sizes); i++)
			all += sizes[i];
		RXR_TEST_ASSERT(all <= RTE_DIM(a), "test sizes");
		RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, all), 0, "alloc");
		RXR_TEST_ASSERT_EQ(rxr_pool_avail(p), NR_FRAMES - all, "avail");
		for (unsigned int i = 0; i < RTE_DIM(sizes); i++) {
			struct task_job tj = { .p = p, .objs = a + total,
				.n = sizes[i], .alloc = false, .bind = 0 };

			/* Every other batch from a handler on this thread. */
			if (i % 2 == 0) {
				if (run_task(&tj) != 0)
					return -1;
			} else if (run_irq(p, a + total, sizes[i], false) != 0) {
				return -1;
			}
			total += sizes[i];
			RXR_TEST_ASSERT(rxrp_defer_count(ls) == total,
				"deferred after a batch of %u: %u, want %u",
				sizes[i], rxrp_defer_count(ls), total);
			RXR_TEST_ASSERT(rxr_pool_avail(p) == NR_FRAMES - all + total,
				"avail after a batch of %u: %u", sizes[i],
				(unsigned int)rxr_pool_avail(p));
		}
		if (reclaim)
			got = rxrp_defer_drain(p, ls, NULL);
		else
			got = rxr_pool_poll_end(p);
		RXR_TEST_ASSERT(got == all, "%s drained %u of %u",
			reclaim ? "reclaim" : "owner", got, all);
		RXR_TEST_ASSERT_EQ(rxrp_defer_count(ls), 0, "list empty");
		RXR_TEST_ASSERT_EQ(rxr_pool_avail(p), NR_FRAMES, "avail drained");
		/* All of them out again: each frame once, none missing. */
		RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, back, NR_FRAMES), 0,
			"every frame back");
		seen = calloc(p->zone_base[p->nr_zones], 1);
		RXR_TEST_ASSERT(seen != NULL, "calloc");
		for (unsigned int i = 0; i < NR_FRAMES; i++) {
			uint32_t g = rxr_zone_frame_idx(p->zone[0], back[i]);

			if (g >= p->zone_base[1] || seen[g]++ != 0) {
				free(seen);
				RXR_TEST_ASSERT(false, "frame %u handed out twice", g);
			}
		}
		free(seen);
		rxr_pool_free_bulk(p, back, NR_FRAMES);
		if (conserved(p) != 0)
			return -1;
		test_pool_destroy(p);
	}
	return 0;
}

/*
 * rseq: any thread uses the pcp of its CPU (a plain pthread on CPU 1 fills
 * CPU 1's, counted under the poll lcore pinned there); an allocation that
 * would fail takes back what another CPU's pcp holds (the reclaim's fence);
 * frames a consumer on CPU 1 frees reach CPU 0 through the transfer stage,
 * not the zone; its own counters are named. Refused with the reason where glibc did not
 * register rseq (this program under GLIBC_TUNABLES=glibc.pthread.rseq=0).
 */
static int
rseq_one(bool bulk)
{
	struct rxr_pool_conf c = {
		.name = "r", .strategy = RXR_STRATEGY_RSEQ, .bulk = bulk,
		.socket_id = SOCKET_ID_ANY, .nr_poll_lcores = 2,
		.poll_lcores = { 0, 1 }, .high = 48, .batch = 16,
	};
	static void *a[64], *b[20];
	const char * const *names;
	struct rxr_pool_stats st;
	struct task_job tj;
	struct rxr_pool *p;
	char why[160];
	uint64_t held;

	RXR_TEST_ASSERT_EQ(rxr_strategy_counters(RXR_STRATEGY_RSEQ, &names), 5,
		"rseq counters");
	RXR_TEST_ASSERT(strcmp(names[0], "restarts") == 0 &&
		strcmp(names[1], "migrations") == 0, "counter names");
	if (!rxr_strategy_available(RXR_STRATEGY_RSEQ, why, sizeof(why))) {
		printf("# rseq refused: %s\n", why);
		RXR_TEST_ASSERT(why[0] != '\0', "a reason");
		p = rxr_pool_create(&c, 4096, 64, 2);
		RXR_TEST_ASSERT(p == NULL && rte_errno == EINVAL,
			"no pool where rseq is not registered");
		return 0;
	}
	p = rxr_pool_create(&c, 4096, 64, 2);
	RXR_TEST_ASSERT(p != NULL && test_pool_fill(p, 4096, 64) == 0, "pool");
	/* A plain pthread on CPU 1 (lcore 1's, idle): CPU 1's pcp. */
	tj = (struct task_job){ .p = p, .objs = b, .n = 20, .alloc = true,
		.bind = -1, .cpu = 1 };
	RXR_TEST_ASSERT(run_task(&tj) == 0 && tj.ret == 0, "task alloc");
	RXR_TEST_ASSERT(tj.ctx == RXR_CTX_TASK, "task context");
	tj.alloc = false;
	RXR_TEST_ASSERT(run_task(&tj) == 0, "task free");
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT_EQ(st.lcore[1].pcp.free, 20, "freed into CPU 1's pcp");
	RXR_TEST_ASSERT_EQ(st.lcore[1].pcp.alloc, 20, "allocated there");
	RXR_TEST_ASSERT_EQ(st.lcore[0].pcp.alloc, 0, "CPU 0's pcp untouched");
	RXR_TEST_ASSERT_EQ(st.avail, 64, "every frame available");
	/* Counted by the thread on CPU 1: what its pcp holds came from the
	 * zone by its refills. */
	held = st.avail - st.zone[0].nr_free;
	RXR_TEST_ASSERT(st.lcore[1].pcp.alloc_miss >= 1, "CPU 1's misses");
	RXR_TEST_ASSERT_EQ(st.lcore[1].pcp.refill_frames, held,
		"CPU 1's refill");
	/* The whole pool from CPU 0: CPU 1's frames come back by the reclaim,
	 * which counts them for CPU 1 from another CPU. */
	printf("# %" PRIu64 " frames in CPU 1's pcp\n", held);
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 64), 0,
		"alloc of every frame");
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT_EQ(st.lcore[1].pcp.drain_frames, held,
		"CPU 1's frames drained by the reclaim");
	for (int i = 0; i < 64; i++)
		for (int k = i + 1; k < 64; k++)
			RXR_TEST_ASSERT(a[i] != a[k], "frame handed out twice");
	RXR_TEST_ASSERT(rxr_pool_alloc_bulk(p, b, 1) != 0, "nothing left");
	/* A consumer on CPU 1 frees them, 16 a call: CPU 1's pcp fills and
	 * drains into the transfer stage, where CPU 0's refill finds them. */
	for (int i = 0; i < 4; i++) {
		tj = (struct task_job){ .p = p, .objs = a + 16 * i, .n = 16,
			.bind = -1, .cpu = 1 };
		RXR_TEST_ASSERT(run_task(&tj) == 0, "task free");
	}
	RXR_TEST_ASSERT_EQ(rxr_pool_avail(p), 64, "all back");
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT(st.lcore[1].counters[3] >= 16, "drained into the "
		"transfer stage: %" PRIu64, st.lcore[1].counters[3]);
	RXR_TEST_ASSERT_EQ(st.zone[0].nr_free, 0, "none to the zone");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 16), 0, "alloc on CPU 0");
	rxr_pool_stats(p, &st);
	RXR_TEST_ASSERT(st.lcore[0].counters[4] >= 16, "refilled from the "
		"transfer stage: %" PRIu64, st.lcore[0].counters[4]);
	RXR_TEST_ASSERT_EQ(st.zone[0].nr_free, 0, "nothing from the zone");
	rxr_pool_free_bulk(p, a, 16);
	RXR_TEST_ASSERT_EQ(rxr_pool_avail(p), 64, "all back");
	rxr_pool_stats(p, &st);
	printf("# restarts %" PRIu64 ", migrations %" PRIu64 ", zone "
		"fallbacks %" PRIu64 "\n", st.lcore[0].counters[0] +
		st.lcore[1].counters[0], st.lcore[0].counters[1] +
		st.lcore[1].counters[1], st.lcore[0].counters[2] +
		st.lcore[1].counters[2]);
	rxr_pool_quiesce(p);
	RXR_TEST_ASSERT(rxr_pool_check(p, stdout) == 0, "conservation");
	RXR_TEST_ASSERT_EQ(rxr_pool_avail(p), 64, "avail");
	test_pool_destroy(p);
	return 0;
}

static uint64_t
rseq_counter(struct rxr_pool *p, const char *name)
{
	const char * const *names;
	unsigned int nc = rxr_strategy_counters(RXR_STRATEGY_RSEQ, &names);
	struct rxr_pool_stats st;
	uint64_t v = 0;

	rxr_pool_stats(p, &st);
	for (unsigned int l = 0; l < st.nr_lcores; l++)
		for (unsigned int i = 0; i < nc; i++)
			if (strcmp(names[i], name) == 0)
				v += st.lcore[l].counters[i];
	return v;
}

/*
 * rseq's transfer stage keeps frames as 32-bit offsets from the pool's
 * lowest frame while every frame lies within 4 GiB of it. Random traffic
 * on one CPU (frees beyond high drain into the stage, allocations past an
 * empty pcp refill from it), then the pool grows a region that moves the
 * lowest frame (one below) or the span past 4 GiB (one 8 GiB above) while
 * frames are in the stage and out, then traffic again: the stage must
 * carry frames before and after, no frame may be handed out twice, and
 * with every frame out at once each must be one of the pool's (a stage
 * that kept the old base would hand out addresses of neither region).
 */
#define XF_FRAMES 256u
#define XF_GIB ((uintptr_t)1 << 30)

static int
cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

/* Allocate and free bursts at random, up to cap frames out. */
static int
xf_churn(struct rxr_pool *p, void **held, unsigned int *nh,
		unsigned int cap)
{
	for (unsigned int r = 0; r < 4000; r++) {
		unsigned int n = 1 + rte_rand_max(32);

		if (rte_rand_max(2) == 0 && *nh + n <= cap) {
			RXR_TEST_ASSERT(rxr_pool_alloc_bulk(p, held + *nh, n) ==
				0, "allocation of %u with %u out", n, *nh);
			for (unsigned int i = *nh; i < *nh + n; i++)
				for (unsigned int j = 0; j < i; j++)
					RXR_TEST_ASSERT(held[i] != held[j],
						"frame %p handed out twice",
						held[i]);
			*nh += n;
		} else if (*nh != 0) {
			n = RTE_MIN(n, *nh);
			*nh -= n;
			rxr_pool_free_bulk(p, held + *nh, n);
		}
	}
	return 0;
}

/* Anonymous memory at @p want exactly, or NULL when that is taken. */
static void *
xf_map_at(uintptr_t want, size_t len)
{
	void *m = mmap((void *)want, len, PROT_READ | PROT_WRITE,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	if ((uintptr_t)m != want) {
		munmap(m, len);
		return NULL;
	}
	return m;
}

static int
xf_one(bool below)
{
	struct rxr_pool_conf c = {
		.name = "xf", .strategy = RXR_STRATEGY_RSEQ, .bulk = true,
		.socket_id = SOCKET_ID_ANY, .nr_poll_lcores = 1,
		.poll_lcores = { 0 }, .high = 48, .batch = 16,
	};
	static void *held[2 * XF_FRAMES];
	size_t len = (size_t)XF_FRAMES * 4096;
	uint64_t in_first, in_after;
	unsigned int nh = 0;
	uintptr_t first, want;
	struct rxr_pool *p;
	void *m = NULL;

	p = rxr_pool_create(&c, 4096, 2 * XF_FRAMES, 4);
	RXR_TEST_ASSERT(p != NULL && test_pool_fill(p, 4096, XF_FRAMES) == 0,
		"pool of one region");
	first = p->off_base;
	RXR_TEST_ASSERT(first != 0, "one region: offsets from its base");
	if (xf_churn(p, held, &nh, XF_FRAMES) != 0)
		return -1;
	/* Everything back: the stage is left holding offsets. */
	rxr_pool_free_bulk(p, held, nh);
	nh = 0;
	in_first = rseq_counter(p, "xfer_in");
	RXR_TEST_ASSERT(in_first > 0, "the stage carried frames as offsets");
	/* A region below the first (less than 3 GiB: offsets from it span
	 * both), or one 8 GiB or more above it (offsets cannot). */
	for (uintptr_t d = 1; d <= 48 && m == NULL; d++) {
		want = below ? first - d * (XF_GIB / 16) :
			first + (7 + d) * XF_GIB;
		if (below && first <= d * (XF_GIB / 16))
			break;
		m = xf_map_at(want, len);
	}
	if (m == NULL) {
		printf("# no free address %s the pool's region: not tested\n",
			below ? "below" : "8 GiB above");
		rxr_pool_free_bulk(p, held, nh);
		test_pool_destroy(p);
		return 0;
	}
	/* The region's frames given, as the mempool driver adds memory. */
	RXR_TEST_ASSERT_EQ(rxr_pool_add_frames(p, m, XF_FRAMES),
		(int)XF_FRAMES, "second region");
	RXR_TEST_ASSERT(p->off_base == (below ? (uintptr_t)m : 0),
		"offset base %#" PRIxPTR " after a region at %p",
		p->off_base, m);
	/* The new region's frames (with what the zone has of the first)
	 * taken from the zone behind the pool's back and freed through it:
	 * they drain into a stage that still holds offsets of the old form. */
	for (unsigned int k; nh < 2 * XF_FRAMES &&
			(k = rxr_zone_alloc_bulk(p->zone[0], held + nh, 1,
				RTE_MIN(32u, 2 * XF_FRAMES - nh))) != 0;)
		nh += k;
	RXR_TEST_ASSERT(nh >= XF_FRAMES, "%u frames from the zone", nh);
	for (; nh != 0; nh -= RTE_MIN(17u, nh))
		rxr_pool_free_bulk(p, held + nh - RTE_MIN(17u, nh),
			RTE_MIN(17u, nh));
	if (xf_churn(p, held, &nh, 2 * XF_FRAMES) != 0)
		return -1;
	in_after = rseq_counter(p, "xfer_in");
	printf("# region %s: stage took %" PRIu64 " frames before, %" PRIu64
		" after\n", below ? "below" : "8 GiB above", in_first,
		in_after - in_first);
	RXR_TEST_ASSERT(in_after > in_first,
		"the stage carried frames after the pool grew");
	/* Every frame out at once: all different, each the pool's. */
	RXR_TEST_ASSERT(rxr_pool_alloc_bulk(p, held + nh, 2 * XF_FRAMES - nh) ==
		0, "every frame out at once");
	qsort(held, 2 * XF_FRAMES, sizeof(held[0]), cmp_ptr);
	for (unsigned int i = 0; i < 2 * XF_FRAMES; i++) {
		RXR_TEST_ASSERT(i == 0 || held[i] != held[i - 1],
			"frame %p out twice", held[i]);
		RXR_TEST_ASSERT(rxr_zone_owns(p->zone[0], held[i]),
			"%p is none of the pool's frames", held[i]);
	}
	rxr_pool_free_bulk(p, held, 2 * XF_FRAMES);
	rxr_pool_quiesce(p);
	RXR_TEST_ASSERT(rxr_pool_check(p, stdout) == 0, "conservation");
	RXR_TEST_ASSERT_EQ(rxr_pool_avail(p), 2 * XF_FRAMES, "avail");
	test_pool_destroy(p);
	munmap(m, len);
	return 0;
}

static int
test_rseq_xfer_form(void)
{
	if (!available(RXR_STRATEGY_RSEQ))
		return 0;
	return xf_one(true) != 0 || xf_one(false) != 0 ? -1 : 0;
}

/* Bulk on and off: the pool's entries for each (struct rxr_pool_ops). */
static int
test_rseq(void)
{
	return rseq_one(true) != 0 || rseq_one(false) != 0 ? -1 : 0;
}

/*
 * rseq's transfer stage with both sides at once: the main lcore (CPU 0)
 * allocates bursts and hands them to a plain pthread on CPU 1, which
 * frees them, so CPU 1's pcp fills and drains straight into the stage
 * (a section popping into its slots under its lock) while CPU 0's refills
 * push from the stage onto CPU 0's pcp and hand their callers frames from
 * it. No frame may be handed out while it is held (the allocator marks
 * each out, the consumer marks it back before it frees), the stage must
 * have carried frames both ways, and every frame must come back.
 */
#define XR_FRAMES 1024u
#define XR_RING 512u		/* in flight: far below the pool's frames */
#define XR_TOTAL 400000u

struct xr {
	struct rxr_pool *p;
	uint8_t *held;		/* by memmap index; atomic */
	uint32_t nr_idx;
	void *slot[XR_RING];
	uint32_t head;		/* atomic: written by the main lcore */
	uint32_t tail;		/* atomic: written by the consumer */
	bool done;		/* atomic */
	uint64_t bad;		/* atomic: frames handed out while held */
	uint64_t freed;
	int cpu;		/* the CPU the consumer ran on */
};

/* A frame's memmap index, or nr_idx for a frame of no zone. */
static uint32_t
xr_idx(const struct xr *x, void *f)
{
	uint32_t g = rxr_zone_frame_idx(x->p->zone[0], f);

	return g < x->nr_idx ? g : x->nr_idx;
}

static void *
xr_consumer(void *arg)
{
	struct xr *x = arg;
	cpu_set_t set;
	void *objs[32];

	CPU_ZERO(&set);
	CPU_SET(1, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	x->cpu = sched_getcpu();
	for (;;) {
		uint32_t t = x->tail;
		uint32_t avail = __atomic_load_n(&x->head, __ATOMIC_ACQUIRE) - t;
		unsigned int n = RTE_MIN(avail, RTE_DIM(objs));

		if (n == 0) {
			if (__atomic_load_n(&x->done, __ATOMIC_ACQUIRE) &&
					__atomic_load_n(&x->head,
						__ATOMIC_ACQUIRE) == t)
				break;
			rte_pause();
			continue;
		}
		for (unsigned int i = 0; i < n; i++)
			objs[i] = x->slot[(t + i) % XR_RING];
		__atomic_store_n(&x->tail, t + n, __ATOMIC_RELEASE);
		for (unsigned int i = 0; i < n; i++) {
			uint32_t g = xr_idx(x, objs[i]);

			if (g == x->nr_idx || __atomic_exchange_n(&x->held[g],
					0, __ATOMIC_RELAXED) != 1)
				__atomic_fetch_add(&x->bad, 1, __ATOMIC_RELAXED);
		}
		rxr_pool_free_bulk(x->p, objs, n);
		x->freed += n;
	}
	return NULL;
}

static int
xr_one(uint32_t high, uint32_t batch)
{
	struct rxr_pool_conf c = {
		.name = "rx", .strategy = RXR_STRATEGY_RSEQ, .bulk = true,
		.socket_id = SOCKET_ID_ANY, .nr_poll_lcores = 2,
		.poll_lcores = { 0, 1 }, .high = high, .batch = batch,
	};
	static struct xr x;
	uint64_t total = 0, fail = 0, in, out;
	pthread_t t;

	memset(&x, 0, sizeof(x));
	x.p = rxr_pool_create(&c, 4096, XR_FRAMES, 2);
	RXR_TEST_ASSERT(x.p != NULL && test_pool_fill(x.p, 4096, XR_FRAMES) == 0,
		"pool");
	x.nr_idx = x.p->zone_base[1];
	x.held = calloc(x.nr_idx, 1);
	RXR_TEST_ASSERT(x.held != NULL, "calloc");
	RXR_TEST_ASSERT(pthread_create(&t, NULL, xr_consumer, &x) == 0,
		"consumer thread");
	while (total < XR_TOTAL) {
		unsigned int n = 1 + rte_rand_max(32);
		uint32_t h = x.head;
		void *objs[32];

		if (h + n - __atomic_load_n(&x.tail, __ATOMIC_ACQUIRE) >
				XR_RING) {
			rte_pause();
			continue;
		}
		if (rxr_pool_alloc_bulk(x.p, objs, n) != 0) {
			fail++;
			continue;
		}
		for (unsigned int i = 0; i < n; i++) {
			uint32_t g = xr_idx(&x, objs[i]);

			if (g == x.nr_idx || __atomic_exchange_n(&x.held[g], 1,
					__ATOMIC_RELAXED) != 0)
				__atomic_fetch_add(&x.bad, 1, __ATOMIC_RELAXED);
			x.slot[(h + i) % XR_RING] = objs[i];
		}
		__atomic_store_n(&x.head, h + n, __ATOMIC_RELEASE);
		total += n;
	}
	__atomic_store_n(&x.done, true, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	free(x.held);
	in = rseq_counter(x.p, "xfer_in");
	out = rseq_counter(x.p, "xfer_out");
	printf("# high %u batch %u: %" PRIu64 " frames from CPU %d to CPU %d; "
		"stage in %" PRIu64 " out %" PRIu64 "; failed allocs %" PRIu64
		"\n", high, batch, total, sched_getcpu(), x.cpu, in, out, fail);
	RXR_TEST_ASSERT_EQ(x.bad, 0, "frames handed out while held");
	RXR_TEST_ASSERT_EQ(x.freed, total, "every frame handed over freed");
	RXR_TEST_ASSERT_EQ(fail, 0, "allocations that failed");
	if (x.cpu != sched_getcpu())
		/* Most frames went through the stage, both ways. */
		RXR_TEST_ASSERT(in >= total / 2 && out >= total / 2,
			"the stage carried %" PRIu64 " in and %" PRIu64
			" out of %" PRIu64, in, out, total);
	else
		printf("# both threads on one CPU: the stage is not needed\n");
	rxr_pool_quiesce(x.p);
	RXR_TEST_ASSERT(rxr_pool_check(x.p, stdout) == 0, "conservation");
	RXR_TEST_ASSERT_EQ(rxr_pool_avail(x.p), XR_FRAMES, "avail");
	test_pool_destroy(x.p);
	return 0;
}

/*
 * The stage's slots are a power of two: moves of 32 (batch 16) meet its
 * end exactly, moves in steps of 20 (batch 20) wrap inside a move, so
 * that a drain writes and a refill reads across the end.
 */
static int
test_rseq_xfer_race(void)
{
	if (!available(RXR_STRATEGY_RSEQ))
		return 0;
	return xr_one(48, 16) != 0 || xr_one(60, 20) != 0 ? -1 : 0;
}

static int
test_parse(void)
{
	enum rxr_strategy s;

	RXR_TEST_ASSERT(rxr_strategy_parse("bh", false, &s) == 0 &&
		s == RXR_STRATEGY_BH, "bh");
	RXR_TEST_ASSERT(rxr_strategy_parse("IRQSAVE", false, &s) == 0 &&
		s == RXR_STRATEGY_IRQSAVE, "case");
	RXR_TEST_ASSERT(rxr_strategy_parse("none", false, &s) != 0,
		"none is not for users");
	RXR_TEST_ASSERT(rxr_strategy_parse("none", true, &s) == 0, "none for tests");
	RXR_TEST_ASSERT(rxr_strategy_parse("slab", true, &s) != 0, "unknown");
	return 0;
}

/*
 * A task batch (rxr_pool_task_batch()): a thread's frees wait in its own
 * batch, nobody's, until it holds max frames; then one publication puts
 * them all on the owner's list. A flush publishes the rest; the owner's
 * drain gets every frame once. One zone (the division path) and fake
 * nodes (the zones' region lookup).
 */
#define TB_MAX 100u

struct tb_job {
	struct rxr_pool *p;
	struct rxrp_lcore *ls;
	void **objs;
	bool single;
	int fail_line;
	unsigned int seen[4];
};

static void *
tb_main(void *arg)
{
	struct tb_job *j = arg;
	struct rxr_pool *p = j->p;
	unsigned int done = 0;

#define TB_CHECK(c) do { if (!(c) && j->fail_line == 0) j->fail_line = __LINE__; } while (0)
	rxr_pool_task_bind(p, 0);
	TB_CHECK(rxr_pool_task_batch(p, RXR_POOL_TASK_BATCH_MAX + 1) == -EINVAL);
	TB_CHECK(rxr_pool_task_batch(p, TB_MAX) == 0);
	/* 99 frames, in calls of 33 (or one at a time): all held. */
	for (; done < TB_MAX - 1; done += j->single ? 1 : 33)
		rxr_pool_free_bulk(p, j->objs + done, j->single ? 1 : 33);
	j->seen[0] = rxrp_defer_count(j->ls);
	/* The 100th publishes the lot. */
	rxr_pool_free_bulk(p, j->objs + done++, 1);
	j->seen[1] = rxrp_defer_count(j->ls);
	/* 40 more held, then flushed. */
	rxr_pool_free_bulk(p, j->objs + done, 40);
	done += 40;
	j->seen[2] = rxrp_defer_count(j->ls);
	rxr_pool_task_flush(p);
	j->seen[3] = rxrp_defer_count(j->ls);
	TB_CHECK(rxr_pool_task_batch(p, 0) == 0);
	/* No batch: published at once. */
	rxr_pool_free_bulk(p, j->objs + done, 10);
	TB_CHECK(rxrp_defer_count(j->ls) == j->seen[3] + 10);
#undef TB_CHECK
	return NULL;
}

static int
task_batch_case(uint32_t fake_nodes, bool single)
{
	static void *a[150], *back[NR_FRAMES];
	struct rxr_pool *p = pool_new(RXR_STRATEGY_BH, !single, fake_nodes);
	struct tb_job j = { .p = p, .objs = a, .single = single };
	pthread_t t;
	uint8_t *seen;
	unsigned int got;

	RXR_TEST_ASSERT(p != NULL, "pool");
	j.ls = rxrp_owner_lcore(p);
	RXR_TEST_ASSERT(j.ls != NULL, "main lcore owns a pcp");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, RTE_DIM(a)), 0, "alloc");
	RXR_TEST_ASSERT(pthread_create(&t, NULL, tb_main, &j) == 0, "thread");
	pthread_join(t, NULL);
	RXR_TEST_ASSERT(j.fail_line == 0, "task thread check at line %d",
		j.fail_line);
	RXR_TEST_ASSERT_EQ(j.seen[0], 0, "99 frames held in the batch");
	RXR_TEST_ASSERT_EQ(j.seen[1], TB_MAX, "the 100th published them");
	RXR_TEST_ASSERT_EQ(j.seen[2], TB_MAX, "40 more held");
	RXR_TEST_ASSERT_EQ(j.seen[3], TB_MAX + 40, "the flush published them");
	RXR_TEST_ASSERT_EQ(rxr_pool_avail(p), NR_FRAMES, "every frame counted");
	got = rxr_pool_poll_end(p);
	RXR_TEST_ASSERT_EQ(got, RTE_DIM(a), "the owner drained them all");
	/* Fake nodes: an lcore allocates from its own node only; the zones'
	 * check (conserved()) finds a frame freed twice. */
	if (fake_nodes > 1)
		goto out;
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, back, NR_FRAMES), 0,
		"every frame back");
	seen = calloc(p->zone_base[p->nr_zones], 1);
	RXR_TEST_ASSERT(seen != NULL, "calloc");
	for (unsigned int i = 0; i < NR_FRAMES; i++) {
		unsigned int node = rxrp_frame_node(p, back[i]);
		uint32_t g = p->zone_base[node] +
			rxr_zone_frame_idx(p->zone[node], back[i]);

		if (seen[g]++ != 0) {
			free(seen);
			RXR_TEST_ASSERT(false, "frame %u handed out twice", g);
		}
	}
	free(seen);
	rxr_pool_free_bulk(p, back, NR_FRAMES);
out:
	if (conserved(p) != 0)
		return -1;
	test_pool_destroy(p);
	return 0;
}

static int
test_task_batch(void)
{
	for (uint32_t nodes = 1; nodes <= 2; nodes++)
		for (int single = 0; single < 2; single++)
			if (task_batch_case(nodes, single) != 0) {
				printf("# fake nodes %u, bulk %s\n", nodes,
					single ? "off" : "on");
				return -1;
			}
	return 0;
}

/*
 * The sums made from the counter lists: a delta from one snapshot to the
 * next plus the first snapshot is the second, and the pcp's hits and
 * misses split the frames handed out.
 */
static int
test_sums(void)
{
	static struct rxr_pool_stats s0, s1;
	struct rxr_pool_lcore_stats d, t;
	struct rxr_pool *p = pool_new(RXR_STRATEGY_BH, true, 1);
	uint64_t h0, m0, h1, m1, hd, md;
	static void *a[64];

	RXR_TEST_ASSERT(p != NULL, "pool");
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 8), 0, "alloc");
	rxr_pool_free_bulk(p, a, 8);
	rxr_pool_stats(p, &s0);
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 40), 0, "alloc");
	rxr_pool_free_bulk(p, a, 40);
	RXR_TEST_ASSERT_EQ(rxr_pool_alloc_bulk(p, a, 64), 0, "alloc");
	rxr_pool_stats(p, &s1);
	memset(&d, 0, sizeof(d));
	memset(&t, 0, sizeof(t));
	rxr_pool_lcore_stats_add(&d, &s0.lcore[0], &s1.lcore[0]);
	rxr_pool_lcore_stats_add(&t, NULL, &s0.lcore[0]);
	rxr_pool_lcore_stats_add(&t, NULL, &d);
	RXR_TEST_ASSERT_EQ(d.pcp.alloc, 40 + 64, "frames handed out between");
	RXR_TEST_ASSERT_EQ(d.pcp.free, 40, "frames taken back between");
	RXR_TEST_ASSERT(memcmp(&t.pcp, &s1.lcore[0].pcp, sizeof(t.pcp)) == 0 &&
		t.deferred_drains == s1.lcore[0].deferred_drains &&
		t.refill_hist[0] == s1.lcore[0].refill_hist[0],
		"first snapshot plus the delta is the second");
	rxr_pool_pcp_hits(NULL, &s0, &h0, &m0);
	rxr_pool_pcp_hits(NULL, &s1, &h1, &m1);
	rxr_pool_pcp_hits(&s0, &s1, &hd, &md);
	RXR_TEST_ASSERT(hd == h1 - h0 && md == m1 - m0,
		"hits %" PRIu64 " misses %" PRIu64 " between", hd, md);
	RXR_TEST_ASSERT_EQ(h1 + m1, 8 + 40 + 64, "every frame a hit or a miss");
	RXR_TEST_ASSERT(m1 >= 1 && h1 >= 40, "hits %" PRIu64 " misses %"
		PRIu64, h1, m1);
	rxr_pool_free_bulk(p, a, 64);
	if (conserved(p) != 0)
		return -1;
	test_pool_destroy(p);
	return 0;
}

int
main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = irq_handler };

	sigaction(SIGUSR1, &sa, NULL);
	rxr_test_eal_init(argv[0], "0-1", 256, NULL);
	rxr_test_run("strategy names", test_parse);
	rxr_test_run("every strategy, bulk on/off, from poll, task and irq", test_contexts);
	rxr_test_run("statistics match what was done", test_stats);
	rxr_test_run("counter sums and pcp hits from the lists", test_sums);
	rxr_test_run("latency sampling and the testing slowdown", test_sampling);
	rxr_test_run("a pending reclaim keeps the inline owner path out",
		test_inline_reclaim);
	rxr_test_run("the inline path's lcore: learned once per thread, "
		"never in a handler", test_ctx_lcore);
	rxr_test_run("fake NUMA: frames go home, recycle waives", test_numa);
	rxr_test_run("a reclaim waits for an owner inside its section",
		test_reclaim_waits);
	rxr_test_run("bh's remote batches: counted once, none lost", test_defer_batches);
	rxr_test_run("rseq: any thread, per CPU, reclaimed across CPUs", test_rseq);
	rxr_test_run("rseq: drains into the transfer stage while refills "
		"take from it, no frame twice", test_rseq_xfer_race);
	rxr_test_run("rseq: the stage's offsets follow the pool's lowest "
		"frame and span", test_rseq_xfer_form);
	rxr_test_run("task batches: held until full or flushed, then every "
		"frame once", test_task_batch);
	return rxr_test_done();
}
