/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Consumers (task context, doc/design.md): each holds the packets of its
 * streams in a receive queue like a socket's, reads their payload and frees
 * them, in the poll lcore (inline), in a thread on the poll lcore's CPU
 * (co-scheduled: the race behind the 2017 pcp list corruption) or on
 * another CPU (remote frees).
 */

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_lcore.h>

#include "rxrefill.h"
#include "rxr_log.h"

#define CONSUMER_BURST 64		/* packets taken from the queue at a time */
#define CONSUMER_STALL_NAP_US 1000	/* --stall-consumer: between looks */

/* Read every byte of the payload: what a socket reader costs the cache. */
void
consumer_read(struct consumer *c, struct rte_mbuf **pkts, unsigned int n)
{
	uint64_t sum = c->checksum, bytes = 0;

	for (unsigned int i = 0; i < n; i++) {
		for (const struct rte_mbuf *m = pkts[i]; m != NULL; m = m->next)
			sum += rte_raw_cksum(rte_pktmbuf_mtod(m, const void *),
					m->data_len);
		bytes += pkts[i]->pkt_len;
	}
	c->checksum = sum;
	RXR_STAT_ADD(c->packets, n);
	RXR_STAT_ADD(c->bytes, bytes);
}

/* The thread's task batch to its poll lcore's list: before any wait. */
static void
task_flush(const struct poller *pl)
{
	if (pl->nb_pools != 0)
		rxr_pool_task_flush(pl->pools[0]);
}

static void *
consumer_main(void *arg)
{
	struct consumer *c = arg;
	struct poller *pl = c->poller;
	const struct options *o = &pl->app->opt;
	const unsigned int lag_us = o->consumer_lag_us;
	uint64_t stall_end = o->stall_s > 0 ? rte_get_timer_cycles() +
		(uint64_t)(o->stall_s * rte_get_timer_hz()) : UINT64_MAX;
	struct rte_mbuf *pkts[CONSUMER_BURST];
	char who[48];

	snprintf(who, sizeof(who), "consumer %u of lcore %u", c->index,
		pl->lcore);
	cpus_pin_self(pl->consumer_cpu, who);
	/*
	 * Frees from here are task-context frees owed to our poll lcore,
	 * gathered in a task batch (DPDK's usual per-thread cache) so that
	 * what crosses to the poll lcore's CPU moves once per batch; the
	 * batch is published whenever this thread is about to wait.
	 */
	if (pl->nb_pools != 0) {
		rxr_pool_task_bind(pl->pools[0], pl->lcore);
		rxr_pool_task_batch(pl->pools[0], RXR_POOL_TASK_BATCH_DEFAULT);
	}
	for (;;) {
		/*
		 * Read before the queue: once the stop is seen, every packet
		 * the stopped poll lcore queued is seen too, so an empty queue
		 * after it is empty for good. Read after an empty queue, it
		 * could leave what the poll lcore queued in between.
		 */
		bool stopping = atomic_load_explicit(&c->stop, memory_order_acquire);
		unsigned int n;

		if (c->stalled && !stopping &&
				rte_get_timer_cycles() < stall_end) {
			/* A stalled reader is blocked, not spinning. */
			task_flush(pl);
			usleep(CONSUMER_STALL_NAP_US);
			continue;
		}
		n = rte_ring_dequeue_burst(c->ring, (void **)pkts, RTE_DIM(pkts),
				NULL);
		if (n != 0) {
			uint64_t t0;

			consumer_read(c, pkts, n);
			t0 = rte_rdtsc();
			rxr_pktmbuf_free_bulk(pkts, n);
			RXR_STAT_ADD(c->free_cycles, rte_rdtsc() - t0);
			continue;
		}
		task_flush(pl);
		if (unlikely(lag_us != 0))
			usleep(lag_us);
		if (stopping)
			break;
		/* Idle: give the CPU to the poll lcore or the other consumers. */
		sched_yield();
	}
	if (pl->nb_pools != 0)
		rxr_pool_task_batch(pl->pools[0], 0);
	return NULL;
}

int
consumers_init(struct app *a)
{
	/* One queue each, to the next poll lcore (there is one). */
	if (a->opt.consumer == CONSUMER_OTHER_POLL)
		a->opt.consumers = 1;
	for (unsigned int k = 0; k < a->nb_pollers; k++) {
		struct poller *pl = &a->pollers[k];

		pl->nb_cons = a->opt.consumers;
		for (unsigned int i = 0; i < pl->nb_cons; i++) {
			char name[RTE_RING_NAMESIZE];

			snprintf(name, sizeof(name), "rxr_c%u_%u", k, i);
			pl->cons[i].poller = pl;
			pl->cons[i].index = i;
			pl->cons[i].ring = rte_ring_create(name, a->opt.consumer_depth,
				rte_lcore_to_socket_id(pl->lcore),
				RING_F_SP_ENQ | RING_F_SC_DEQ | RING_F_EXACT_SZ);
			if (pl->cons[i].ring == NULL) {
				RXR_LOG(ERR, "cannot create a receive queue of %u "
					"packets: %s", a->opt.consumer_depth,
					rte_strerror(rte_errno));
				return -1;
			}
		}
		if (a->opt.consumer == CONSUMER_OTHER_POLL)
			a->pollers[(k + 1) % a->nb_pollers].inbox =
				pl->cons[0].ring;
	}
	return 0;
}

int
consumers_start(struct app *a)
{
	bool threaded = a->opt.consumer == CONSUMER_SAME_CPU ||
		a->opt.consumer == CONSUMER_OTHER_CPU;

	for (unsigned int k = 0; k < a->nb_pollers; k++) {
		struct poller *pl = &a->pollers[k];

		for (unsigned int i = 0; i < pl->nb_cons; i++) {
			struct consumer *c = &pl->cons[i];

			atomic_init(&c->stop, false);
			c->threaded = threaded;
			c->stalled = (int)i == a->opt.stall_consumer;
			c->packets = c->bytes = c->free_cycles = 0;
			if (!threaded)
				continue;
			if (pthread_create(&c->thread, NULL, consumer_main, c) != 0) {
				RXR_LOG(ERR, "cannot start consumer %u of lcore %u",
					i, pl->lcore);
				c->threaded = false;
				return -1;
			}
		}
	}
	return 0;
}

/* Frees every packet still in ring r; how many. */
static unsigned int
ring_free_all(struct rte_ring *r)
{
	struct rte_mbuf *m[CONSUMER_BURST];
	unsigned int n, freed = 0;

	while ((n = rte_ring_dequeue_burst(r, (void **)m, RTE_DIM(m),
			NULL)) != 0) {
		rxr_pktmbuf_free_bulk(m, n);
		freed += n;
	}
	return freed;
}

/*
 * After the pollers stopped: consumers drain their queues and end; with
 * other-poll, what a poll lcore had not freed yet is freed here. A
 * consumer ends with its queue empty; should one not, what is left is
 * freed as an error, so that no packet outlives its run's pool.
 */
void
consumers_stop(struct app *a)
{
	for (unsigned int k = 0; k < a->nb_pollers; k++) {
		if (a->pollers[k].inbox != NULL)
			ring_free_all(a->pollers[k].inbox);
		for (unsigned int i = 0; i < a->pollers[k].nb_cons; i++) {
			struct consumer *c = &a->pollers[k].cons[i];
			unsigned int left;

			if (!c->threaded)
				continue;
			/* After the poll lcores stopped: their last packets
			 * are in the queue before the consumer can see this. */
			atomic_store_explicit(&c->stop, true, memory_order_release);
			pthread_join(c->thread, NULL);
			c->threaded = false;
			left = ring_free_all(c->ring);
			if (left != 0)
				RXR_LOG(ERR, "consumer %u of lcore %u ended with "
					"%u packets in its queue", i,
					a->pollers[k].lcore, left);
		}
	}
}
