/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The mempool driver as a generic DPDK application uses it: pools made by
 * rte_pktmbuf_pool_create() with RXREFILL_POOL, no rxr_pool_poll_end().
 * - Odd object sizes and counts populate on 4 KiB pages and hugepages.
 * - A malformed RXREFILL_POOL is refused.
 * - Under every strategy, frames freed by a worker lcore, a registered
 *   non-EAL thread, a plain pthread and the interrupt thread are all
 *   allocatable again by the main lcore, avail_count never falls short,
 *   and every frame is home when the pool is freed.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rxr_log.h"
#include "rxr_mempool.h"
#include "rxr_test.h"

#define NB 512u

static struct rte_mempool *
make_pool(const char *env, unsigned int n, uint16_t room)
{
	static unsigned int seq;
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "plg%u", seq++);
	if (env != NULL)
		setenv(RXR_MEMPOOL_ENV, env, 1);
	else
		unsetenv(RXR_MEMPOOL_ENV);
	return rte_pktmbuf_pool_create_by_ops(name, n, 0, 0, room,
			SOCKET_ID_ANY, RXR_MEMPOOL_OPS_NAME);
}

/* Every frame back in its zone once the application has freed all. */
static int
whole(struct rte_mempool *mp, unsigned int n)
{
	struct rxr_pool *p = rxr_mempool_pool(mp);

	RXR_TEST_ASSERT(p != NULL, "our pool");
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), n, "avail_count");
	rxr_pool_quiesce(p);
	RXR_TEST_ASSERT(rxr_pool_check(p, stdout) == 0, "pool whole");
	return 0;
}

static int
test_sizes(void)
{
	/* Frame sizes of rxrefill --frame-size that used to fail, and more. */
	static const uint16_t rooms[] = { 0, 1, 100, 256, 448, 1088, 1600,
		1664, RTE_MBUF_DEFAULT_DATAROOM, 3000, 4096, 9000 };
	static const unsigned int counts[] = { 1, 7, 128, 1000, 4099 };

	for (unsigned int i = 0; i < RTE_DIM(rooms); i++)
		for (unsigned int j = 0; j < RTE_DIM(counts); j++) {
			uint16_t room = rooms[i] + RTE_PKTMBUF_HEADROOM;
			struct rte_mempool *mp = make_pool(NULL, counts[j], room);
			struct rte_mbuf **m;

			RXR_TEST_ASSERT(mp != NULL, "%u objects with a data room "
				"of %u: %s", counts[j], room,
				rte_strerror(rte_errno));
			m = calloc(counts[j], sizeof(*m));
			RXR_TEST_ASSERT(rte_pktmbuf_alloc_bulk(mp, m,
				counts[j]) == 0, "all %u allocated", counts[j]);
			for (unsigned int k = 0; k < counts[j]; k++)
				RXR_TEST_ASSERT(m[k]->buf_len == room, "buf_len");
			rte_pktmbuf_free_bulk(m, counts[j]);
			free(m);
			if (whole(mp, counts[j]) != 0)
				return -1;
			rte_mempool_free(mp);
		}
	return 0;
}

/* Plain mempools (not mbufs): tiny and odd objects, packed or aligned. */
static int
test_raw_sizes(void)
{
	static const unsigned int elts[] = { 1, 8, 24, 40, 100, 1000, 5000,
		70000 };
	static const unsigned int flags[] = { 0, RTE_MEMPOOL_F_NO_CACHE_ALIGN,
		RTE_MEMPOOL_F_NO_IOVA_CONTIG };
	void *objs[300];

	unsetenv(RXR_MEMPOOL_ENV);
	for (unsigned int i = 0; i < RTE_DIM(elts); i++)
		for (unsigned int f = 0; f < RTE_DIM(flags); f++) {
			struct rte_mempool *mp = rte_mempool_create_empty("raw",
					RTE_DIM(objs), elts[i], 0, 0,
					SOCKET_ID_ANY, flags[f]);

			RXR_TEST_ASSERT(mp != NULL, "create");
			RXR_TEST_ASSERT(rte_mempool_set_ops_byname(mp,
				RXR_MEMPOOL_OPS_NAME, NULL) == 0, "ops");
			RXR_TEST_ASSERT(rte_mempool_populate_default(mp) ==
				(int)RTE_DIM(objs), "objects of %u bytes, "
				"flags %#x: %s", elts[i], flags[f],
				rte_strerror(rte_errno));
			RXR_TEST_ASSERT(rte_mempool_get_bulk(mp, objs,
				RTE_DIM(objs)) == 0, "get all");
			for (unsigned int k = 0; k < RTE_DIM(objs); k++)
				memset(objs[k], 0xa5, elts[i]);
			rte_mempool_put_bulk(mp, objs, RTE_DIM(objs));
			if (whole(mp, RTE_DIM(objs)) != 0)
				return -1;
			rte_mempool_free(mp);
		}
	return 0;
}

static void
count_obj(struct rte_mempool *mp, void *arg, void *obj, unsigned int i)
{
	unsigned int *n = arg;

	*n += rte_mempool_from_obj(obj) == mp;
}

/*
 * Zeroing clears the data room and nothing else: with no data room
 * (rte_pktmbuf_pool_create()'s data_room_size 0, as mbuf_autotest's
 * refcnt pool) an object is all mbuf header, and the mempool's header of
 * the next object (its link in the pool's list of objects, its pool) is
 * not the mbuf's to clear.
 */
static int
test_zero_no_room(void)
{
	static const char * const envs[] = { "zero=alloc", "zero=free" };
	struct rte_mbuf *m[64];

	for (unsigned int i = 0; i < RTE_DIM(envs); i++) {
		struct rte_mempool *mp = make_pool(envs[i], RTE_DIM(m), 0);
		unsigned int n = 0;

		RXR_TEST_ASSERT(mp != NULL, "pool");
		RXR_TEST_ASSERT(rte_pktmbuf_alloc_bulk(mp, m, RTE_DIM(m)) == 0,
			"alloc");
		rte_pktmbuf_free_bulk(m, RTE_DIM(m));
		rte_mempool_obj_iter(mp, count_obj, &n);
		RXR_TEST_ASSERT_EQ(n, RTE_DIM(m), envs[i]);
		rte_mempool_free(mp);
	}
	unsetenv(RXR_MEMPOOL_ENV);
	return 0;
}

/* rxrefill's own pools: --frame-size values that once failed to adopt. */
static int
test_frame_sizes(void)
{
	static const uint32_t sizes[] = { 640, 1536, 2176, 2240, 4096, 9216 };

	for (unsigned int i = 0; i < RTE_DIM(sizes); i++) {
		struct rxr_mempool_conf c = { .frame_size = sizes[i],
			.pool = { .strategy = RXR_STRATEGY_BH, .bulk = true } };
		struct rte_mempool *mp;
		char name[32];

		snprintf(name, sizeof(name), "fs%u", sizes[i]);
		mp = rxr_pktmbuf_pool_create(name, 4099, &c, SOCKET_ID_ANY);
		RXR_TEST_ASSERT(mp != NULL, "frame size %u: %s", sizes[i],
			rte_strerror(rte_errno));
		RXR_TEST_ASSERT_EQ(rxr_pool_nr_frames(rxr_mempool_pool(mp)), 4099,
			"frames");
		if (whole(mp, 4099) != 0)
			return -1;
		rte_mempool_free(mp);
	}
	return 0;
}

/* RXREFILL_POOL=env is refused with a message holding needle. */
static int
env_refused(const char *env, const char *needle)
{
	struct rxr_pool_conf pc;
	char err[512];

	setenv(RXR_MEMPOOL_ENV, env, 1);
	RXR_TEST_ASSERT(rxr_mempool_env_conf(&pc, err, sizeof(err)) == -EINVAL,
		"RXREFILL_POOL=%s accepted", env);
	RXR_TEST_ASSERT(strstr(err, needle) != NULL, "RXREFILL_POOL=%s: want "
		"\"%s\" in \"%s\"", env, needle, err);
	return 0;
}

/* The strategies' settings: what is refused says why, what is taken
 * reaches the pool. */
static int
env_settings_check(void)
{
	struct rte_mempool *mp;
	const struct rxr_pool_conf *c;
	const struct rxr_strategy_setting *set;
	int cache = 0, refill = 1, ring = 2;	/* as recycle declares them */

	RXR_TEST_ASSERT(rxr_strategy_settings(RXR_STRATEGY_RECYCLE, &set) == 3 &&
		strcmp(set[cache].name, "cache") == 0 &&
		strcmp(set[refill].name, "refill") == 0 &&
		strcmp(set[ring].name, "ring") == 0, "recycle's settings");

	if (env_refused("strategy=recycle,recycle.rnig=1",
				"no setting 'rnig' (it has cache, refill, ring)") ||
			env_refused("foo.ring=1", "unknown strategy 'foo'") ||
			env_refused("colour=blue", "unknown key 'colour' (keys: "
				"strategy, bulk") ||
			env_refused("colour=blue", "recycle.ring") ||
			env_refused("strategy=recycle,recycle.ring=abc",
				"recycle.ring=abc: expected a decimal whole "
				"number in 1..32768") ||
			env_refused("strategy=recycle,recycle.ring=0", "1..32768") ||
			env_refused("recycle.ring=64", "recycle.ring=64: the "
				"pool's strategy is bh") ||
			env_refused("strategy=recycle,recycle.cache=16,"
				"recycle.refill=32", "refused by recycle: refill 32 "
				"is over cache 16"))
		return -1;
	/* Order does not matter: the strategy may come after its settings. */
	mp = make_pool("recycle.ring=64,recycle.cache=16,strategy=recycle", 64,
		RTE_MBUF_DEFAULT_BUF_SIZE);
	RXR_TEST_ASSERT(mp != NULL, "recycle settings refused");
	c = rxr_pool_get_conf(rxr_mempool_pool(mp));
	RXR_TEST_ASSERT(c->strategy == RXR_STRATEGY_RECYCLE &&
		c->settings[ring] == 64 && c->settings[cache] == 16 &&
		c->settings[refill] == 16, "recycle settings %u %u %u",
		c->settings[cache], c->settings[refill], c->settings[ring]);
	if (whole(mp, 64) != 0)
		return -1;
	rte_mempool_free(mp);
	unsetenv(RXR_MEMPOOL_ENV);
	return 0;
}

/* Each refusal names the key and the value given, then why. */
static int
env_messages_check(void)
{
	/* zero=x printed "zero=unknown zeroing policy 'x'". */
	if (env_refused("zero=x", "RXREFILL_POOL: zero=x: unknown zeroing "
				"policy 'x'") ||
			env_refused("zero_method=x", "RXREFILL_POOL: "
				"zero_method=x: unknown zeroing method 'x'") ||
			env_refused("bulk=maybe", "RXREFILL_POOL: bulk=maybe: "
				"expected on or off"))
		return -1;
	/* A key given twice: the last one won, silently. */
	if (env_refused("strategy=bh,strategy=zone", "RXREFILL_POOL: "
				"strategy given twice (strategy=bh, then "
				"strategy=zone)") ||
			env_refused("strategy=bh,bulk=on,strategy=bh",
				"strategy given twice") ||
			env_refused("zero=alloc,zero=alloc",
				"zero given twice") ||
			env_refused("strategy=recycle,recycle.ring=64,"
				"recycle.ring=128", "recycle.ring given twice"))
		return -1;
	/* rte_kvargs read "a=b=c" as b=c: bulk=strategy=zone ran zone. */
	if (env_refused("bulk=strategy=zone", "RXREFILL_POOL: "
				"'bulk=strategy=zone': one '=' per key=value "
				"pair") ||
			env_refused("strategy=bh,bulk=off=on", "'bulk=off=on'") ||
			env_refused("strategy==zone", "'strategy==zone'"))
		return -1;
	/* rte_kvargs skips empty pairs: "," ran the defaults. */
	if (env_refused(",", "RXREFILL_POOL=\",\": an empty key=value pair") ||
			env_refused("strategy=zone,", "an empty key=value pair") ||
			env_refused(",strategy=zone", "an empty key=value pair") ||
			env_refused("strategy=zone,,bulk=off",
				"an empty key=value pair"))
		return -1;
	/* The value was logged raw: an escape sequence reached the terminal
	 * (\x1b[2J cleared it). */
	if (env_refused("strategy=bh\x1b[2J\n", "strategy=bh\\x1b[2J\\x0a: "
				"expected one of"))
		return -1;
	unsetenv(RXR_MEMPOOL_ENV);
	return 0;
}

static int
test_env(void)
{
	static const char * const bad[] = {
		"strategy=slab", "bulk=maybe", "high=0", "batch=-3", "high=8,batch=63",
		"zero=sometimes", "colour=blue", "strategy", "high=99999999",
		"strategy=none", ",",
		/* Decimal only: hex, signs and blanks are no counts. */
		"high=0x100", "high=+256", "high= 256", "batch=1e2",
		"high=4294967552",
		/* A strategy's settings: by the registry's names, in range,
		 * of the pool's strategy, checked together. */
		"strategy=recycle,recycle.rnig=1", "recycle.ring=64",
		"strategy=recycle,recycle.ring=0", "strategy=recycle,recycle.ring",
		"strategy=recycle,recycle.cache=16,recycle.refill=32",
		"strategy=bh,bh.ring=4", "strategy=recycle,recycle.ring=40000",
	};
	struct rte_mempool *mp;

	for (unsigned int i = 0; i < RTE_DIM(bad); i++) {
		mp = make_pool(bad[i], 64, RTE_MBUF_DEFAULT_BUF_SIZE);
		RXR_TEST_ASSERT(mp == NULL, "RXREFILL_POOL=%s accepted", bad[i]);
	}
	/* "010" is ten, not octal eight. */
	mp = make_pool("strategy=irqsave,bulk=off,high=0128,batch=016,zero=alloc",
			64, RTE_MBUF_DEFAULT_BUF_SIZE);
	RXR_TEST_ASSERT(mp != NULL, "good settings refused");
	{
		const struct rxr_pool_conf *c = rxr_pool_get_conf(rxr_mempool_pool(mp));

		RXR_TEST_ASSERT_EQ(c->strategy, RXR_STRATEGY_IRQSAVE, "strategy");
		RXR_TEST_ASSERT_EQ(c->bulk, false, "bulk");
		RXR_TEST_ASSERT_EQ(c->high, 128, "high");
		RXR_TEST_ASSERT_EQ(c->batch, 16, "batch");
		RXR_TEST_ASSERT_EQ(c->zero_policy, RXR_ZERO_POLICY_ALLOC, "zero");
		/* The mbuf header is never cleared: only the data room. */
		RXR_TEST_ASSERT_EQ(c->payload_offset, sizeof(struct rte_mbuf),
			"payload offset");
	}
	{
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);

		RXR_TEST_ASSERT(m != NULL && m->pool == mp && m->buf_addr != NULL,
			"mbuf intact under zero=alloc");
		rte_pktmbuf_free(m);
	}
	if (whole(mp, 64) != 0)
		return -1;
	rte_mempool_free(mp);
	return env_settings_check() != 0 ? -1 : env_messages_check();
}

/* --- frees from every kind of thread ------------------------------------ */

struct job {
	struct rte_mbuf **m;
	unsigned int n;
	atomic_int done;
};

static void
free_all(struct job *j)
{
	/* One at a time, as a generic application does. */
	for (unsigned int i = 0; i < j->n; i++)
		rte_pktmbuf_free(j->m[i]);
	atomic_store_explicit(&j->done, 1, memory_order_release);
}

static int
worker_free(void *arg)
{
	free_all(arg);
	return 0;
}

static void *
pthread_free(void *arg)
{
	free_all(arg);
	return NULL;
}

static void *
registered_free(void *arg)
{
	if (rte_thread_register() != 0)
		return (void *)1;
	free_all(arg);
	rte_thread_unregister();
	return NULL;
}

static void
alarm_free(void *arg)
{
	free_all(arg);
}

enum freer { BY_WORKER, BY_REGISTERED, BY_PTHREAD, BY_INTERRUPT, NR_FREERS };
static const char * const freer_names[] = {
	"worker lcore", "registered thread", "plain pthread", "interrupt thread",
};

static int
run_freer(enum freer f, struct job *j)
{
	pthread_t t;
	void *ret = NULL;

	switch (f) {
	case BY_WORKER:
		RXR_TEST_ASSERT(rxr_test_remote_launch(worker_free, j, 1) == 0,
			"launch");
		rxr_test_wait_lcore(1);
		break;
	case BY_REGISTERED:
	case BY_PTHREAD:
		RXR_TEST_ASSERT(pthread_create(&t, NULL, f == BY_PTHREAD ?
			pthread_free : registered_free, j) == 0, "thread");
		pthread_join(t, &ret);
		RXR_TEST_ASSERT(ret == NULL, "rte_thread_register");
		break;
	default:
		RXR_TEST_ASSERT(rte_eal_alarm_set(1, alarm_free, j) == 0, "alarm");
		while (!atomic_load_explicit(&j->done, memory_order_acquire))
			usleep(1000);
		break;
	}
	return 0;
}

static int
test_threads(void)
{
	static const char * const confs[] = {
		"strategy=zone", "strategy=irqsave", "strategy=bh",
		"strategy=recycle", "strategy=bh,bulk=off",
		"strategy=recycle,bulk=off", "strategy=irqsave,bulk=off",
		"strategy=rseq", "strategy=rseq,bulk=off",
	};
	static struct rte_mbuf *m[NB];

	for (unsigned int c = 0; c < RTE_DIM(confs); c++) {
		struct rte_mempool *mp;
		char why[160];

		if (strstr(confs[c], "rseq") != NULL &&
				!rxr_strategy_available(RXR_STRATEGY_RSEQ, why,
					sizeof(why))) {
			printf("# %s left out: %s\n", confs[c], why);
			continue;
		}
		mp = make_pool(confs[c], NB, RTE_MBUF_DEFAULT_BUF_SIZE);
		RXR_TEST_ASSERT(mp != NULL, "%s", confs[c]);
		for (int f = 0; f < NR_FREERS; f++) {
			struct job j = { .m = m, .n = NB };

			/* Main takes every frame, another thread frees them. */
			RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), NB,
				"avail before");
			for (unsigned int i = 0; i < NB; i++) {
				m[i] = rte_pktmbuf_alloc(mp);
				RXR_TEST_ASSERT(m[i] != NULL, "%s, freed by %s: "
					"mbuf %u of %u", confs[c],
					freer_names[f == 0 ? 0 : f - 1], i, NB);
			}
			RXR_TEST_ASSERT(rte_pktmbuf_alloc(mp) == NULL, "empty");
			if (run_freer(f, &j) != 0)
				return -1;
			RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), NB,
				"avail after the frees");
			/* The next round allocates them all again from main. */
		}
		/* And a worker lcore allocates what main and others freed. */
		for (unsigned int i = 0; i < NB; i++) {
			m[i] = rte_pktmbuf_alloc(mp);
			RXR_TEST_ASSERT(m[i] != NULL, "%s: last round %u", confs[c], i);
		}
		rte_pktmbuf_free_bulk(m, NB);
		if (whole(mp, NB) != 0)
			return -1;
		rte_mempool_free(mp);
	}
	return 0;
}

/*
 * Memory IOVA-contiguous only in small pieces (testpmd's --mp-alloc=xmem:
 * external 4 KiB pages, IOVA as PA) reaches populate in a chunk per
 * piece, and each chunk is a region of the zone. Past the regions a pool
 * takes, its creation failed with "cannot adopt 1 objects: No space left
 * on device" and no word of why or what to do: now the message counts
 * the chunks and says. One object per chunk, a gap between chunks.
 */
static int
test_chunks(void)
{
	const unsigned int n = 70000;
	struct rte_mempool *mp;
	char *logbuf = NULL;
	size_t loglen = 0, stride;
	unsigned int i;
	uint8_t *mem;
	FILE *f;
	int ret = 0;

	unsetenv(RXR_MEMPOOL_ENV);
	mp = rte_mempool_create_empty("plgchunks", n, 64, 0, 0, SOCKET_ID_ANY,
		0);
	RXR_TEST_ASSERT(mp != NULL, "empty pool: %s", rte_strerror(rte_errno));
	RXR_TEST_ASSERT(rte_mempool_set_ops_byname(mp, RXR_MEMPOOL_OPS_NAME,
		NULL) == 0, "our ops");
	stride = mp->header_size + mp->elt_size + mp->trailer_size;
	mem = rte_zmalloc("plgchunks", (size_t)n * 2 * stride,
		RTE_CACHE_LINE_SIZE);
	RXR_TEST_ASSERT(mem != NULL, "memory for the chunks");
	f = open_memstream(&logbuf, &loglen);
	RXR_TEST_ASSERT(f != NULL, "memstream");
	rte_openlog_stream(f);
	for (i = 0; i < n && ret >= 0; i++) {
		uint8_t *va = mem + (size_t)i * 2 * stride;

		ret = rte_mempool_populate_iova(mp, (char *)va,
			rte_mem_virt2iova(va), stride, NULL, NULL);
	}
	rte_openlog_stream(NULL);
	fclose(f);
	rte_mempool_free(mp);
	rte_free(mem);
	RXR_TEST_ASSERT(ret < 0, "%u chunks of one object each all taken", n);
	RXR_TEST_ASSERT(ret == -ENOSPC, "chunk %u: %d, not -ENOSPC", i, ret);
	RXR_TEST_ASSERT(strstr(logbuf, "cannot adopt 1 objects: chunk ") !=
		NULL && strstr(logbuf, "chunks a pool of 70000 objects") !=
		NULL && strstr(logbuf, "or fewer objects") != NULL,
		"the message says why and what to do: %s", logbuf);
	printf("# %.*s\n", (int)strcspn(strstr(logbuf, "cannot adopt"), "\n"),
		strstr(logbuf, "cannot adopt"));
	free(logbuf);
	return 0;
}

/*
 * A pool with DPDK's per-lcore cache: what the cache holds when
 * rte_mempool_free() runs is counted apart from frames the application
 * still holds. It was a NOTICE that N frames "are not home (some may sit
 * in the mempool's per-lcore caches)" in every such pool, with or without
 * a leak: a leak hid among the cached frames.
 */
static int
home_with_cache(unsigned int leak, const char *needle, const char *absent)
{
	static unsigned int seq;
	struct rte_mbuf *m[64];
	struct rte_mempool *mp;
	char name[RTE_MEMPOOL_NAMESIZE], *logbuf = NULL;
	uint32_t level = rte_log_get_level(rxr_logtype);
	size_t loglen = 0;
	FILE *f;

	unsetenv(RXR_MEMPOOL_ENV);
	snprintf(name, sizeof(name), "plgcache%u", seq++);
	mp = rte_pktmbuf_pool_create_by_ops(name, 1024, 32, 0,
		RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY, RXR_MEMPOOL_OPS_NAME);
	RXR_TEST_ASSERT(mp != NULL, "pool with a cache");
	RXR_TEST_ASSERT(rte_pktmbuf_alloc_bulk(mp, m, RTE_DIM(m)) == 0,
		"mbufs");
	/* Freed one by one: the cache keeps them. */
	for (unsigned int i = leak; i < RTE_DIM(m); i++)
		rte_pktmbuf_free(m[i]);
	f = open_memstream(&logbuf, &loglen);
	RXR_TEST_ASSERT(f != NULL, "memstream");
	rte_log_set_level(rxr_logtype, RTE_LOG_DEBUG);
	rte_openlog_stream(f);
	rte_mempool_free(mp);
	rte_openlog_stream(NULL);
	rte_log_set_level(rxr_logtype, level);
	fclose(f);
	RXR_TEST_ASSERT(strstr(logbuf, needle) != NULL &&
		(absent == NULL || strstr(logbuf, absent) == NULL),
		"leak %u: want \"%s\" in: %s", leak, needle, logbuf);
	free(logbuf);
	return 0;
}

static int
test_cache_home(void)
{
	if (home_with_cache(0, "all 1024 frames are home but the ",
				"not home") != 0 ||
			home_with_cache(3, "3 of 1024 frames are not home, and ",
				NULL) != 0)
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	rxr_test_eal_init(argv[0], "0-1", 512, NULL);
	rxr_test_run("any object size and count populates", test_sizes);
	rxr_test_run("plain mempools of any object size populate", test_raw_sizes);
	rxr_test_run("rxrefill's odd frame sizes populate", test_frame_sizes);
	rxr_test_run("RXREFILL_POOL: settings applied, malformed refused", test_env);
	rxr_test_run("zeroing: the data room only, none without one",
		test_zero_no_room);
	rxr_test_run("frees from any thread, no poll end, every strategy",
		test_threads);
	rxr_test_run("memory in more chunks than a pool takes: said so",
		test_chunks);
	rxr_test_run("frames in the mempool's caches told from a leak",
		test_cache_home);
	return rxr_test_done();
}
