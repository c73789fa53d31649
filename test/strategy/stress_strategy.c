/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Stress: one pool, every context at once, for millions of frame operations:
 * - a poll lcore (lcore 1) refilling and freeing, handing frames to
 * - a task thread co-scheduled on the same CPU (the race of the 2017 pcp regression),
 * - a task thread on the other CPU (remote frees), and
 * - timer-driven signal handlers (irq context) on the poll thread and the
 *   co-scheduled thread, allocating and freeing.
 * - with --migrate, a task thread with a timer signal of its own that
 *   another thread moves between the two CPUs as often as it can
 *   (sched_setaffinity), wherever it is in its loop.
 * At the end every frame must be back in its zone and no debug check may
 * have fired. With --expect-corruption the run (strategy none unless one is
 * given: a build with a planted bug) is made in a child process that must
 * be stopped by a debug check.
 *
 * Usage: stress_strategy STRATEGY [--single] [--ops N] [--seconds S]
 *                        [--fake-nodes N] [--migrate] [--expect-corruption]
 */

#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_random.h>
#include <rte_malloc.h>

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


#define NR_FRAMES 8192u
#define BURST 32u
#define STASH 8u

/*
 * Hand-over from the poll lcore to a consumer. Not rte_ring: Debian's DPDK
 * builds rte_ring with plain loads and rte_smp_*mb() barriers, which
 * ThreadSanitizer cannot see, so every frame passed through it would look
 * like a race. C11 acquire/release makes the hand-over visible to it.
 */
#define HANDOVER 1024u
struct handover {
	uint32_t head __rte_cache_aligned;	/* producer */
	uint32_t tail __rte_cache_aligned;	/* consumer */
	void *slot[HANDOVER];
};

static unsigned int
handover_put(struct handover *h, void * const *objs, unsigned int n)
{
	uint32_t head = h->head;
	uint32_t room = HANDOVER - (head - __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE));

	n = RTE_MIN(n, room);
	for (unsigned int i = 0; i < n; i++)
		h->slot[(head + i) % HANDOVER] = objs[i];
	__atomic_store_n(&h->head, head + n, __ATOMIC_RELEASE);
	return n;
}

static unsigned int
handover_get(struct handover *h, void **objs, unsigned int n)
{
	uint32_t tail = h->tail;
	uint32_t avail = __atomic_load_n(&h->head, __ATOMIC_ACQUIRE) - tail;

	n = RTE_MIN(n, avail);
	for (unsigned int i = 0; i < n; i++)
		objs[i] = h->slot[(tail + i) % HANDOVER];
	__atomic_store_n(&h->tail, tail + n, __ATOMIC_RELEASE);
	return n;
}

static struct rxr_pool *pool;
static struct handover *to_co, *to_remote;
static bool stop;		/* atomic */
static uint64_t deadline;
static unsigned int poll_cpu = 1, remote_cpu;

struct counts {
	uint64_t alloc, free, fail;
};
static struct counts c_poll, c_co, c_remote, c_migrate;
static bool migrate;
static uint64_t migrate_flips;
static enum rxr_zero_policy zero_policy = RXR_ZERO_POLICY_NONE;
static uint64_t dirty_found;

/* With a zeroing policy every frame handed out must be zero... */
static void
check_zero(void * const *objs, unsigned int n)
{
	if (zero_policy == RXR_ZERO_POLICY_NONE)
		return;
	for (unsigned int i = 0; i < n; i++) {
		const uint64_t *w = objs[i];

		for (unsigned int k = 0; k < 4096 / sizeof(*w); k++)
			if (w[k] != 0) {
				__atomic_fetch_add(&dirty_found, 1, __ATOMIC_RELAXED);
				break;
			}
	}
}

/* ... and frames are dirtied before they go back, so that it matters. */
static void
dirty(void * const *objs, unsigned int n)
{
	if (zero_policy == RXR_ZERO_POLICY_NONE)
		return;
	for (unsigned int i = 0; i < n; i++) {
		memset(objs[i], 0xa5, 64);
		memset((uint8_t *)objs[i] + 4096 - 64, 0x5a, 64);
	}
}
static uint64_t c_irq_alloc, c_irq_free, c_irq_fail;

/*
 * Contexts that did their part (atomic): the poll lcore keeps going past
 * its count until all have, within the time limit, since on a loaded
 * machine a thread may not run at all before the count is reached.
 */
enum {
	PART_IRQ = 1u << 0, PART_CO = 1u << 1, PART_REMOTE = 1u << 2,
	PART_MIGRATE = 1u << 3, PART_MOVE = 1u << 4,
};
static unsigned int took_part, parts_wanted;

static void
part_done(unsigned int part)
{
	if ((__atomic_load_n(&took_part, __ATOMIC_RELAXED) & part) == 0)
		__atomic_fetch_or(&took_part, part, __ATOMIC_RELAXED);
}

static bool
all_took_part(void)
{
	return (__atomic_load_n(&took_part, __ATOMIC_RELAXED) & parts_wanted) ==
		parts_wanted;
}

/* --- irq: a timer signal, per thread stash ------------------------------ */

static RTE_DEFINE_PER_LCORE(void *, stash[STASH]);
static RTE_DEFINE_PER_LCORE(unsigned int, nstash);

static void
irq_handler(int sig, siginfo_t *si, void *uc)
{
	unsigned int n = RTE_PER_LCORE(nstash);

	rxr_irq_enter();
	if (n + 2 <= STASH) {
		if (rxr_pool_alloc_bulk(pool, &RTE_PER_LCORE(stash)[n], 2) == 0) {
			RTE_PER_LCORE(nstash) = n + 2;
			__atomic_fetch_add(&c_irq_alloc, 2, __ATOMIC_RELAXED);
			part_done(PART_IRQ);
		} else {
			__atomic_fetch_add(&c_irq_fail, 1, __ATOMIC_RELAXED);
		}
	} else {
		rxr_pool_free_bulk(pool, RTE_PER_LCORE(stash), n);
		RTE_PER_LCORE(nstash) = 0;
		__atomic_fetch_add(&c_irq_free, n, __ATOMIC_RELAXED);
	}
	rxr_irq_exit();
}

/* Called by each thread after its timer is gone. */
static void
stash_release(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	rxr_pool_free_bulk(pool, RTE_PER_LCORE(stash), RTE_PER_LCORE(nstash));
	__atomic_fetch_add(&c_irq_free, RTE_PER_LCORE(nstash), __ATOMIC_RELAXED);
	RTE_PER_LCORE(nstash) = 0;
}

static timer_t
irq_timer_for_self(long interval_ns)
{
	struct sigevent sev = {
		.sigev_notify = SIGEV_THREAD_ID,
		.sigev_signo = SIGRTMIN,
	};
	struct itimerspec its = {
		.it_interval = { 0, interval_ns }, .it_value = { 0, interval_ns },
	};
	timer_t t;

	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) != 0 ||
			timer_settime(t, 0, &its, NULL) != 0) {
		perror("stress: timer_create");
		exit(EXIT_FAILURE);
	}
	return t;
}

static bool
time_up(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED) ||
		rte_get_timer_cycles() > deadline;
}

/* --- poll: refill and hand out, as rx_burst and a consumer would -------- */

static uint64_t target_ops;
static uint64_t min_ops = 2000000;
static long irq_scale = 1;	/* sanitizer runs: fewer, farther signals */

static int
poll_main(void *arg)
{
	timer_t t = irq_timer_for_self(50 * 1000 * irq_scale);
	void *objs[BURST];
	uint64_t it = 0;

	while (!time_up() && (c_poll.alloc + c_poll.free < target_ops ||
			!all_took_part())) {
		unsigned int n = 1 + rte_rand_max(BURST), k;

		if (rxr_pool_alloc_bulk(pool, objs, n) != 0) {
			c_poll.fail++;
			rxr_pool_poll_end(pool);
			continue;
		}
		c_poll.alloc += n;
		check_zero(objs, n);
		dirty(objs, n);
		/* A third to each consumer, the rest freed right here. */
		k = handover_put(it & 1 ? to_co : to_remote, objs, n / 3);
		rxr_pool_free_bulk(pool, objs + k, n - k);
		c_poll.free += n - k;
		rxr_pool_poll_end(pool);
		it++;
	}
	__atomic_store_n(&stop, true, __ATOMIC_RELAXED);
	timer_delete(t);
	stash_release();
	return 0;
}

/* --- tasks: consume (free what the poll handed over) and churn ---------- */

static void
task_loop(struct handover *r, struct counts *c, unsigned int part,
		bool yield)
{
	void *objs[BURST];
	uint64_t it = 0;

	while (!time_up()) {
		unsigned int n = handover_get(r, objs, BURST);

		if (n != 0) {
			rxr_pool_free_bulk(pool, objs, n);
			c->free += n;
			part_done(part);
		}
		/* Its own allocations too (process context allocating). */
		n = 1 + rte_rand_max(8);
		if (rxr_pool_alloc_bulk(pool, objs, n) == 0) {
			c->alloc += n;
			check_zero(objs, n);
			dirty(objs, n);
			rxr_pool_free_bulk(pool, objs, n);
			c->free += n;
		} else {
			c->fail++;
		}
		/* Share the CPU finely with the poll thread. */
		if (yield && (++it & 15) == 0)
			sched_yield();
	}
}

static void
pin(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *
co_main(void *arg)
{
	timer_t t;

	pin(poll_cpu);
	t = irq_timer_for_self(70 * 1000 * irq_scale);
	task_loop(to_co, &c_co, PART_CO, true);
	timer_delete(t);
	stash_release();
	return NULL;
}

static void *
remote_main(void *arg)
{
	pin(remote_cpu);
	task_loop(to_remote, &c_remote, PART_REMOTE, false);
	return NULL;
}

/*
 * A task thread moved between the two CPUs by another thread (its affinity
 * flipped as often as that thread runs), so that moves land anywhere in its loop, in the
 * middle of a call too.
 */
static pid_t migrate_tid;	/* atomic */

static void *
migrate_main(void *arg)
{
	timer_t t = irq_timer_for_self(60 * 1000 * irq_scale);
	void *objs[BURST];

	__atomic_store_n(&migrate_tid, (pid_t)syscall(SYS_gettid),
		__ATOMIC_RELEASE);
	while (!time_up()) {
		unsigned int n = 1 + rte_rand_max(BURST);

		if (rxr_pool_alloc_bulk(pool, objs, n) != 0) {
			c_migrate.fail++;
			continue;
		}
		c_migrate.alloc += n;
		check_zero(objs, n);
		dirty(objs, n);
		rxr_pool_free_bulk(pool, objs, n);
		c_migrate.free += n;
		part_done(PART_MIGRATE);
	}
	timer_delete(t);
	stash_release();
	return NULL;
}

static void *
mover_main(void *arg)
{
	pid_t tid;

	while ((tid = __atomic_load_n(&migrate_tid, __ATOMIC_ACQUIRE)) == 0)
		sched_yield();
	while (!time_up()) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(migrate_flips & 1 ? poll_cpu : remote_cpu, &set);
		if (sched_setaffinity(tid, sizeof(set), &set) == 0) {
			migrate_flips++;
			part_done(PART_MOVE);
		}
	}
	return NULL;
}

/* Background zeroing: the service fills the poll lcore's supply. */
static void *
zeroer_main(void *arg)
{
	pin(remote_cpu);
	while (!time_up())
		if (rxr_pool_zero_service(pool, 32) == 0)
			sched_yield();
	return NULL;
}

static void
drain_ring(struct handover *r)
{
	void *obj;

	while (handover_get(r, &obj, 1) == 1)
		rxr_pool_free_bulk(pool, &obj, 1);
}

static int
run(enum rxr_strategy s, bool bulk, uint32_t fake_nodes, double seconds)
{
	struct rxr_pool_conf c = {
		.name = "stress", .strategy = s, .bulk = bulk,
		.socket_id = SOCKET_ID_ANY, .fake_nodes = fake_nodes,
		.nr_poll_lcores = 1, .poll_lcores = { 1 },
		.zero_policy = zero_policy,
	};
	struct sigaction sa = { .sa_sigaction = irq_handler,
		.sa_flags = SA_SIGINFO | SA_RESTART };
	struct rxr_pool_stats st;
	pthread_t co, remote, zeroer, mig, mover;
	const char * const *cnames;
	unsigned int ncounters = rxr_strategy_counters(s, &cnames);
	rte_cpuset_t cpus = rte_lcore_cpuset(1);
	uint64_t total;
	int ret;

	for (unsigned int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &cpus)) {
			poll_cpu = i;
			break;
		}
	remote_cpu = rte_lcore_to_cpu_id(rte_get_main_lcore());
	sigaction(SIGRTMIN, &sa, NULL);
	pool = rxr_pool_create(&c, 4096, NR_FRAMES, 8);
	if (pool == NULL || test_pool_fill(pool, 4096, NR_FRAMES) != 0) {
		printf("# cannot create the pool: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	to_co = rte_zmalloc("to_co", sizeof(*to_co), RTE_CACHE_LINE_SIZE);
	to_remote = rte_zmalloc("to_remote", sizeof(*to_remote),
			RTE_CACHE_LINE_SIZE);
	if (to_co == NULL || to_remote == NULL)
		return -1;
	__atomic_store_n(&stop, false, __ATOMIC_RELAXED);
	__atomic_store_n(&took_part, 0, __ATOMIC_RELAXED);
	parts_wanted = PART_IRQ | PART_CO | PART_REMOTE |
		(migrate ? PART_MIGRATE | PART_MOVE : 0);

	deadline = rte_get_timer_cycles() + (uint64_t)(seconds * rte_get_timer_hz());
	pthread_create(&co, NULL, co_main, NULL);
	pthread_create(&remote, NULL, remote_main, NULL);
	if (migrate) {
		__atomic_store_n(&migrate_tid, 0, __ATOMIC_RELAXED);
		pthread_create(&mig, NULL, migrate_main, NULL);
		pthread_create(&mover, NULL, mover_main, NULL);
	}
	if (zero_policy == RXR_ZERO_POLICY_BACKGROUND)
		pthread_create(&zeroer, NULL, zeroer_main, NULL);
	rxr_test_remote_launch(poll_main, NULL, 1);
	ret = rxr_test_wait_lcore(1);
	pthread_join(co, NULL);
	pthread_join(remote, NULL);
	if (migrate) {
		pthread_join(mig, NULL);
		pthread_join(mover, NULL);
	}
	if (zero_policy == RXR_ZERO_POLICY_BACKGROUND)
		pthread_join(zeroer, NULL);
	drain_ring(to_co);
	drain_ring(to_remote);

	rxr_pool_quiesce(pool);
	rxr_pool_stats(pool, &st);
	total = c_poll.alloc + c_poll.free + c_co.alloc + c_co.free +
		c_remote.alloc + c_remote.free + c_irq_alloc + c_irq_free +
		c_migrate.alloc + c_migrate.free;
	printf("# %s bulk %s: poll %" PRIu64 "/%" PRIu64 " co-task %" PRIu64 "/%" PRIu64
		" remote-task %" PRIu64 "/%" PRIu64 " irq %" PRIu64 "/%" PRIu64
		" (alloc/free frames); failed allocs poll %" PRIu64 " co %" PRIu64
		" remote %" PRIu64 " irq %" PRIu64 "\n",
		rxr_strategy_name(s), bulk ? "on" : "off",
		c_poll.alloc, c_poll.free, c_co.alloc, c_co.free,
		c_remote.alloc, c_remote.free, c_irq_alloc, c_irq_free,
		c_poll.fail, c_co.fail, c_remote.fail, c_irq_fail);
	printf("# zone lock: %" PRIu64 " acquisitions, %" PRIu64 " contended; "
		"pcp lock %" PRIu64 "/%" PRIu64 "; zone fallbacks %" PRIu64
		"; deferred drained %" PRIu64 "; remote frees %" PRIu64 "\n",
		st.zone[0].lock.acquisitions, st.zone[0].lock.contended,
		counter_of(&st.lcore[0], s, "lock_acquisitions"),
		counter_of(&st.lcore[0], s, "lock_contended"),
		counter_of(&st.lcore[0], s, "zone_fallback"),
		st.lcore[0].deferred_drained,
		st.lcore[0].remote_frees);
	if (migrate)
		printf("# migrating task %" PRIu64 "/%" PRIu64 " (alloc/free "
			"frames), %" PRIu64 " moves, failed allocs %" PRIu64 "\n",
			c_migrate.alloc, c_migrate.free, migrate_flips,
			c_migrate.fail);
	for (unsigned int i = 0; i < ncounters; i++) {
		uint64_t v = 0;

		for (unsigned int l = 0; l < st.nr_lcores; l++)
			v += st.lcore[l].counters[i];
		printf("# %s %s: %" PRIu64 "\n", rxr_strategy_name(s),
			cnames[i], v);
	}
	RXR_TEST_ASSERT(ret == 0, "poll lcore");
	RXR_TEST_ASSERT(c_irq_alloc > 0 && c_co.free > 0 && c_remote.free > 0 &&
		(!migrate || (c_migrate.free > 0 && migrate_flips > 0)),
		"every context took part");
	RXR_TEST_ASSERT(total >= min_ops, "only %" PRIu64 " frame operations in %.0f s",
		total, seconds);
	RXR_TEST_ASSERT_EQ(dirty_found, 0, "frames handed out with a dirty payload");
	if (zero_policy == RXR_ZERO_POLICY_BACKGROUND)
		RXR_TEST_ASSERT(st.lcore[0].supply.get_frames > 0,
			"the supply served allocations");
	RXR_TEST_ASSERT(rxr_pool_check(pool, stdout) == 0, "conservation");
	RXR_TEST_ASSERT_EQ(rxr_pool_avail(pool), NR_FRAMES, "every frame available");
	printf("# %" PRIu64 " frame operations, every frame back in its zone\n", total);
	test_pool_destroy(pool);
	rte_free(to_co);
	rte_free(to_remote);
	return 0;
}

static enum rxr_strategy strategy = RXR_STRATEGY_NONE;
static bool bulk = true;
static uint32_t fake_nodes = 1;
static double seconds = 20;

static int
test_stress(void)
{
	return run(strategy, bulk, fake_nodes, seconds);
}

/*
 * Child: the same stress with no protection (none) or a strategy built
 * with a planted bug; must die by a debug check.
 */
static void
corrupt_child(void *arg)
{
	char **argv = arg;
	uint64_t end;

	rxr_test_eal_init(argv[0], "0-1", 256, NULL);
	/* A planted race may need more than one run to be hit: run again
	 * until a check stops the child or the time is up. */
	end = rte_get_timer_cycles() + (uint64_t)(seconds * rte_get_timer_hz());
	do {
		if (run(strategy, bulk, 1, seconds) != 0)
			exit(EXIT_FAILURE);
	} while (rte_get_timer_cycles() < end);
}

static char **saved_argv;

static int
test_corruption_caught(void)
{
	alarm((unsigned int)seconds * 3 + 30);	/* a hang is a failure */
	return rxr_test_expect_abort(corrupt_child, saved_argv,
		"rxrefill: debug check failed:");
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "single", no_argument, NULL, 's' },
		{ "ops", required_argument, NULL, 'o' },
		{ "seconds", required_argument, NULL, 't' },
		{ "fake-nodes", required_argument, NULL, 'f' },
		{ "expect-corruption", no_argument, NULL, 'c' },
		{ "migrate", no_argument, NULL, 'm' },
		{ "zero", required_argument, NULL, 'z' },
		{ NULL, 0, NULL, 0 },
	};
	bool corruption = false;
	char why[160];
	int opt;

	target_ops = 3000000;
	/* Sanitizer runs are 5-15x slower: they scale the work down. */
	if (getenv("RXR_STRESS_SCALE") != NULL && atoi(getenv("RXR_STRESS_SCALE")) > 1) {
		target_ops /= atoi(getenv("RXR_STRESS_SCALE"));
		min_ops /= atoi(getenv("RXR_STRESS_SCALE"));
		irq_scale = atoi(getenv("RXR_STRESS_SCALE"));
	}
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's': bulk = false; break;
		case 'o': target_ops = strtoull(optarg, NULL, 0); break;
		case 't': seconds = atof(optarg); break;
		case 'f': fake_nodes = atoi(optarg); break;
		case 'c': corruption = true; break;
		case 'm': migrate = true; break;
		case 'z':
			if (rxr_zero_policy_parse(optarg, &zero_policy, NULL, 0) != 0) {
				fprintf(stderr, "unknown zeroing policy %s\n", optarg);
				return EXIT_FAILURE;
			}
			break;
		default:
			fprintf(stderr, "usage: %s STRATEGY [--single] [--ops N] "
				"[--seconds S] [--fake-nodes N] [--migrate] "
				"[--expect-corruption]\n",
				argv[0]);
			return EXIT_FAILURE;
		}
	}
	if (optind < argc && rxr_strategy_parse(argv[optind], corruption,
			&strategy) != 0) {
		char names[128];

		rxr_strategy_user_names(names, sizeof(names));
		fprintf(stderr, "%s: unknown strategy '%s': give one of %s\n",
			argv[0], argv[optind], names);
		return EXIT_FAILURE;
	}
	if (corruption) {
		char name[96];

		if (!RXR_DEBUG) {
			printf("1..0 # SKIP needs -Ddebug_checks=true\n");
			return 0;
		}
		saved_argv = argv;
		snprintf(name, sizeof(name), "strategy %s: the race is caught "
			"by a debug check", rxr_strategy_name(strategy));
		rxr_test_run(name, test_corruption_caught);
		return rxr_test_done();
	}
	if (optind >= argc) {
		char names[128];

		rxr_strategy_user_names(names, sizeof(names));
		fprintf(stderr, "%s: give a strategy: %s\n", argv[0], names);
		return EXIT_FAILURE;
	}
	rxr_test_eal_init(argv[0], "0-1", 256, NULL);
	if (!rxr_strategy_available(strategy, why, sizeof(why))) {
		printf("1..0 # SKIP strategy %s is not available: %s\n",
			rxr_strategy_name(strategy), why);
		return 0;
	}
	rxr_test_run("poll + co-scheduled task + remote task + irq, conservation",
		test_stress);
	return rxr_test_done();
}
