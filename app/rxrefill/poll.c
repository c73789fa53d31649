/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The poll lcore (poll context, the NAPI softirq; doc/design.md): rx_burst
 * on its queues, account each packet to its stream, hand it to the
 * stream's consumer, and end every iteration at the pools' bh-enable point.
 */

#include <limits.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "rxrefill.h"
#include "rxr_log.h"

/* Packets parsed and counted together: their table misses overlap. */
#define LOOKUP_MAX 64
/*
 * Iterations at most between two TSC reads while every burst comes back
 * full: a read costs more than the rest of a saturated iteration's loop
 * overhead (13% of net_null's rate on one CPU).
 */
#define POLL_TSC_EVERY 8u

void
pollers_assign(struct app *a)
{
	unsigned int k = 0;

	/* Queues round robin over the poll lcores, port by port. */
	for (unsigned int i = 0; i < a->nb_ports; i++)
		for (uint16_t q = 0; q < a->ports[i].nb_q; q++) {
			struct poller *pl = &a->pollers[k++ % a->nb_pollers];

			pl->q[pl->nb_q++] = (struct poll_queue){
				.port = a->ports[i].id, .queue = q,
				.port_idx = (uint16_t)i,
			};
		}
}

/*
 * Rows a poller's stream table needs: the distinct flows of the capture
 * files its queues replay, else STREAMS_DEFAULT; twice as many as the last
 * run when that one had no room for some (grown between runs, never in the
 * poll loop).
 */
static unsigned int
streams_wanted(const struct poller *pl)
{
	uint64_t n = 0;
	bool sized = false;

	for (unsigned int i = 0; i < pl->nb_q; i++) {
		const struct port *p = &pl->app->ports[pl->q[i].port_idx];

		if (p->replay) {
			n += p->files.flows[pl->q[i].queue];
			sized = true;
		}
	}
	if (!sized)
		n = STREAMS_DEFAULT;
	if (pl->table_full != 0 && pl->max_streams != 0)
		n = RTE_MAX(n, 2ull * pl->max_streams);
	return (unsigned int)RTE_MIN(RTE_MAX(n, 64ull), (uint64_t)STREAMS_MAX);
}

static void
streams_free(struct poller *pl)
{
	rxr_flow_log_free(pl->streams_log);
	pl->streams_log = NULL;
	rxr_flow_table_free(pl->streams);
	pl->streams = NULL;
	pl->max_streams = 0;
}

/*
 * The stream table, sized for this run (streams_wanted()) on the poll
 * lcore's socket (hugepages when the run has them), empty: the old one
 * kept when memory runs out. The counters, zero; the pools it ends its
 * iterations on, those of this run.
 */
void
poller_reset(struct poller *pl)
{
	unsigned int n = streams_wanted(pl);
	struct rxr_flow_table *t = NULL;

	pl->nb_pools = 0;
	for (unsigned int q = 0; q < pl->nb_q; q++) {
		const struct port *p = &pl->app->ports[pl->q[q].port_idx];
		unsigned int j = 0;

		/* This run's pool, and the id of a port probed again. */
		pl->q[q].port = p->id;
		pl->q[q].pool = rxr_mempool_pool(p->mp);
		pl->q[q].packets = pl->q[q].bytes = 0;
		while (j < pl->nb_pools && pl->pools[j] != pl->q[q].pool)
			j++;
		if (j == pl->nb_pools)
			pl->pools[pl->nb_pools++] = pl->q[q].pool;
	}

	if (pl->app->opt.consumer != CONSUMER_NONE &&
			(n != pl->max_streams || pl->streams == NULL)) {
		t = rxr_flow_table_create(n, (uint16_t)pl->nb_cons,
				(int)rte_lcore_to_socket_id(pl->lcore));
		if (t == NULL)
			RXR_LOG(WARNING, "poll lcore %u: no memory for a table "
				"of %u streams (%s)%s", pl->lcore, n,
				rte_strerror(rte_errno), pl->streams != NULL ?
				"; keeping the smaller one" :
				"; every packet counts as untracked");
	}
	if (t != NULL) {
		streams_free(pl);
		pl->streams = t;
		pl->max_streams = n;
	} else if (pl->streams != NULL) {
		rxr_flow_table_reset(pl->streams);
	}
	/* Deferred counting: without memory for a log, in place. */
	if (pl->streams_log != NULL) {
		rxr_flow_log_reset(pl->streams_log);
	} else if (pl->streams != NULL && pl->app->streams_deferred) {
		pl->streams_log = rxr_flow_log_create(pl->streams,
				RXR_FLOW_LOG_SIZE_DEFAULT,
				(int)rte_lcore_to_socket_id(pl->lcore));
		if (pl->streams_log == NULL)
			RXR_LOG(WARNING, "poll lcore %u: no memory for a stream "
				"log (%s): it counts its streams in place",
				pl->lcore, rte_strerror(rte_errno));
	}
	pl->busy_cycles = pl->cycles = 0;
	pl->consumer_full = 0;
	memset(pl->untracked, 0, sizeof(pl->untracked));
	pl->table_full = 0;
	pl->streams_self = pl->streams_logged = 0;
	pl->streams_self0 = pl->streams_logged0 = 0;
	pl->max_gap_cycles = 0;
	pl->sample_packets = 0;
	pl->sample_countdown = 0;
	pl->inbox_packets = pl->inbox_free_cycles = 0;
}

void
pollers_free(struct app *a)
{
	for (unsigned int k = 0; k < a->nb_pollers; k++)
		streams_free(&a->pollers[k]);
}

/* Above this share of the measurement's logged packets, a warning. */
#define STREAMS_SELF_WARN_SHARE 0.01

/*
 * What of the last run no stream row holds, by cause: flows the table had
 * no room for, frames that are not IP, or whose headers are cut short or
 * contradict themselves. Into the report, and a line when there is any;
 * another when deferred counting fell on the poll lcores (full logs).
 */
void
streams_untracked(const struct app *a, struct rxr_report_run *r,
		const char *tag)
{
	static const char *const why[UNTRACKED_MAX] = {
		[UNTRACKED_NOT_IP] = "not IP",
		[UNTRACKED_TRUNCATED] = "with truncated headers",
		[UNTRACKED_MALFORMED] = "with malformed headers",
	};
	struct rxr_report_streams_untracked *all = &r->streams_untracked;
	struct untracked u[UNTRACKED_MAX] = { 0 };
	uint64_t full = 0, rows = 0, self = 0, logged = 0;
	bool said = false;

	all->packets = all->bytes = 0;
	for (unsigned int k = 0; k < a->nb_pollers; k++) {
		const struct poller *pl = &a->pollers[k];

		for (unsigned int c = 0; c < UNTRACKED_MAX; c++) {
			u[c].packets += pl->untracked[c].packets;
			u[c].bytes += pl->untracked[c].bytes;
			all->packets += pl->untracked[c].packets;
			all->bytes += pl->untracked[c].bytes;
		}
		full += pl->table_full;
		rows += pl->max_streams;
		self += pl->streams_self;
		logged += pl->streams_logged;
	}
	r->has_streams_untracked = r->has_streams_untracked_by_cause = true;
	/* The report's fields are <cause>_packets, <cause>_bytes, in order. */
	RTE_BUILD_BUG_ON(sizeof(r->streams_untracked_by_cause) != sizeof(u));
	memcpy(&r->streams_untracked_by_cause, u, sizeof(u));
	/* Deferred counting that fell on the poll loops after all. */
	r->has_streams_counted_by_poll = a->streams_deferred;
	r->streams_counted_by_poll = self;
	/*
	 * A poll lcore that counts its own log does work the others do not:
	 * worth a word when it is more than a trace of the measurement.
	 */
	if (!a->opt.main_polls && logged != 0 &&
			(double)self / (double)logged > STREAMS_SELF_WARN_SHARE) {
		char line[512];

		snprintf(line, sizeof(line), "%s streams: the poll lcores "
			"counted %" PRIu64 " of %" PRIu64 " logged packets "
			"(%.1f%%) themselves while measuring: their logs were "
			"full, the main lcore did not keep up (--stream-counting "
			"inline counts in place)", tag, self, logged,
			100.0 * (double)self / (double)logged);
		say_wrapped("warning: ", line);
	}
	if (all->packets == 0)
		return;
	printf("%s streams_untracked: %" PRIu64 " packets, %" PRIu64 " bytes "
		"of the whole run (warm-up included):", tag, all->packets,
		all->bytes);
	for (unsigned int c = 0; c < UNTRACKED_MAX; c++) {
		if (u[c].packets == 0)
			continue;
		printf("%s %" PRIu64 " ", said ? "," : "", u[c].packets);
		said = true;
		if (c == UNTRACKED_NO_ROOM)
			printf("packets of flows a table of %" PRIu64 " rows had "
				"no room for%s", rows, full != 0 ? " (the next "
				"run's table has twice the rows)" : "");
		else
			fputs(why[c], stdout);
	}
	printf("\n");
}

void
streams_counting_choose(struct app *a)
{
	const enum stream_counting c = a->opt.stream_counting;
	const unsigned int main_lcore = rte_get_main_lcore();
	rte_cpuset_t main_cpus = rte_lcore_cpuset(main_lcore);

	a->streams_deferred = false;
	if (a->opt.consumer == CONSUMER_NONE)
		return;
	if (a->opt.consumers > 1) {
		if (c == STREAM_COUNTING_DEFERRED)
			printf(APP ": streams: counted inline: with %u consumers "
				"per poll lcore a flow's entry steers its "
				"packets\n", a->opt.consumers);
		return;
	}
	if (c != STREAM_COUNTING_AUTO) {
		a->streams_deferred = c == STREAM_COUNTING_DEFERRED;
		return;
	}
	if (a->opt.main_polls)
		return;
	/* The collector would take its CPU from a poll lcore. */
	for (unsigned int k = 0; k < a->nb_pollers; k++) {
		rte_cpuset_t poll_cpus = rte_lcore_cpuset(a->pollers[k].lcore);
		rte_cpuset_t both;

		CPU_AND(&both, &main_cpus, &poll_cpus);
		if (CPU_COUNT(&both) != 0) {
			/* The start line says "counted inline"; why: */
			RXR_LOG(INFO, "streams: counted inline: the main "
				"lcore shares a CPU with poll lcore %u, so it "
				"cannot count for the poll lcores",
				a->pollers[k].lcore);
			return;
		}
	}
	a->streams_deferred = true;
}

unsigned int
streams_drain(struct app *a, unsigned int max)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < a->nb_pollers; k++)
		if (a->pollers[k].streams_log != NULL)
			n += rxr_flow_log_drain(a->pollers[k].streams_log, max);
	return n;
}

void
streams_settle(struct app *a, bool mark)
{
	for (unsigned int k = 0; k < a->nb_pollers; k++) {
		struct poller *pl = &a->pollers[k];
		struct rxr_flow_log_stats st;

		if (pl->streams_log == NULL)
			continue;
		while (!mark && rxr_flow_log_drain(pl->streams_log,
					UINT_MAX) != 0)
			;
		rxr_flow_log_stats(pl->streams_log, &st);
		if (mark) {
			pl->streams_self0 = st.applied_by_appender;
			pl->streams_logged0 = st.applied;
			continue;
		}
		/* What the drains found no room for. */
		pl->untracked[UNTRACKED_NO_ROOM].packets += st.untracked_packets;
		pl->untracked[UNTRACKED_NO_ROOM].bytes += st.untracked_bytes;
		pl->table_full += st.untracked_packets;
		/* The measurement's only: warmup's counts are left out. */
		pl->streams_self = st.applied_by_appender -
			RTE_MIN(st.applied_by_appender, pl->streams_self0);
		pl->streams_logged = st.applied -
			RTE_MIN(st.applied, pl->streams_logged0);
		/* Counted into the poller's own fields: not twice next time. */
		rxr_flow_log_reset(pl->streams_log);
	}
}

/* Per consumer staging, filled during a burst, enqueued at its end. */
struct stage {
	struct rte_mbuf *m[MAX_BURST];
	struct rxr_flow_entry *s[MAX_BURST];
	uint8_t why[MAX_BURST];		/* enum untracked_cause, s NULL */
	unsigned int n;
};

_Static_assert(UNTRACKED_NO_ROOM == -RXR_FLOW_OK && UNTRACKED_MAX == 4 &&
	RXR_FLOW_E_MALFORMED == -3,
	"an untracked cause per rxr_flow_parse() error");

/* A packet in no stream row counted under its cause, or taken back. */
static inline void
untracked_add(struct poller *pl, unsigned int why, uint32_t len)
{
	pl->untracked[why].packets++;
	pl->untracked[why].bytes += len;
}

static inline void
untracked_sub(struct poller *pl, unsigned int why, uint32_t len)
{
	pl->untracked[why].packets--;
	pl->untracked[why].bytes -= len;
}

static void
stage_flush(struct poller *pl, struct consumer *c, struct stage *st)
{
	unsigned int k;

	if (st->n == 0)
		return;
	k = rte_ring_enqueue_burst(c->ring, (void **)st->m, st->n, NULL);
	if (k < st->n) {
		/* The socket receive queue is full: dropped, with a cause. */
		for (unsigned int i = k; i < st->n; i++) {
			if (st->s[i] != NULL) {
				st->s[i]->packets--;
				st->s[i]->bytes -= st->m[i]->pkt_len;
			} else {
				untracked_sub(pl, st->why[i], st->m[i]->pkt_len);
			}
		}
		pl->consumer_full += st->n - k;
		rxr_pktmbuf_free_bulk(&st->m[k], st->n - k);
	}
	st->n = 0;
}

/*
 * One consumer, deferred counting: nothing to steer, so the poll loop only
 * parses, and logs the flow and length of each IP packet its consumer
 * took; the table's misses fall on whoever drains the log.
 */
static void
process_logged(struct poller *pl, struct rte_mbuf **pkts, unsigned int n,
		enum consumer_mode mode)
{
	struct rxr_flow_key keys[MAX_BURST];
	uint32_t lens[MAX_BURST];
	int8_t ret[MAX_BURST];
	unsigned int nk = 0, k;

	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct rxr_flow_info info;

		ret[i] = (int8_t)rxr_flow_parse(rte_pktmbuf_mtod(m, void *),
				m->data_len, &info);
		if (ret[i] == RXR_FLOW_OK) {
			keys[nk] = info.key;
			lens[nk++] = m->pkt_len;
		} else {
			untracked_add(pl, -ret[i], m->pkt_len);
		}
	}
	if (mode == CONSUMER_INLINE) {
		consumer_read(&pl->cons[0], pkts, n);
		rxr_pktmbuf_free_bulk(pkts, n);
	} else {
		k = rte_ring_enqueue_burst(pl->cons[0].ring, (void **)pkts, n,
				NULL);
		if (k < n) {
			/* The socket receive queue is full: not counted. */
			for (unsigned int i = k; i < n; i++) {
				if (ret[i] == RXR_FLOW_OK)
					nk--;
				else
					untracked_sub(pl, -ret[i],
						pkts[i]->pkt_len);
			}
			pl->consumer_full += n - k;
			rxr_pktmbuf_free_bulk(&pkts[k], n - k);
		}
	}
	if (nk != 0)
		rxr_flow_log_append(pl->streams_log, keys, lens, nk);
}

static void
process(struct poller *pl, struct poll_queue *q, struct rte_mbuf **pkts,
		unsigned int n, enum consumer_mode mode, struct stage *stages)
{
	const struct rte_mempool *mp = pkts[0]->pool;
	uint64_t bytes = 0, not_plain = 0;

	/* One pass over the first cache lines: lengths, and what the free
	 * needs to know (rxr_pktmbuf_free_scanned()). */
	for (unsigned int i = 0; i < n; i++) {
		bytes += pkts[i]->pkt_len;
		not_plain |= rxr_pktmbuf_not_plain(pkts[i], mp);
	}
	RXR_STAT_ADD(q->packets, n);
	RXR_STAT_ADD(q->bytes, bytes);
	if (mode == CONSUMER_NONE) {
		rxr_pktmbuf_free_scanned(pkts, n, not_plain);
		return;
	}
	if (pl->streams_log != NULL) {
		process_logged(pl, pkts, n, mode);
		return;
	}
	for (unsigned int base = 0; base < n; base += LOOKUP_MAX) {
		unsigned int cnt = RTE_MIN(n - base, (unsigned int)LOOKUP_MAX);
		struct rxr_flow_key keys[LOOKUP_MAX];
		struct rxr_flow_entry *found[LOOKUP_MAX], *ss[LOOKUP_MAX];
		uint32_t lens[LOOKUP_MAX];
		unsigned int idx[LOOKUP_MAX], nk = 0;
		uint8_t why[LOOKUP_MAX];

		for (unsigned int i = 0; i < cnt; i++) {
			struct rte_mbuf *m = pkts[base + i];
			struct rxr_flow_info info;
			int ret;

			ss[i] = NULL;
			ret = rxr_flow_parse(rte_pktmbuf_mtod(m, void *),
					m->data_len, &info);
			/* An IP packet without a row: the table had no room. */
			why[i] = (uint8_t)-ret;
			if (ret == RXR_FLOW_OK) {
				keys[nk] = info.key;
				lens[nk] = m->pkt_len;
				idx[nk++] = i;
			}
		}
		/* The table counts what it holds; the rest is untracked here. */
		if (nk != 0 && pl->streams != NULL) {
			pl->table_full += rxr_flow_table_update_bulk(pl->streams,
					keys, lens, nk, found);
			for (unsigned int j = 0; j < nk; j++)
				ss[idx[j]] = found[j];
		}
		for (unsigned int i = 0; i < cnt; i++) {
			struct rte_mbuf *m = pkts[base + i];
			struct rxr_flow_entry *s = ss[i];
			struct stage *st;

			if (s == NULL)
				untracked_add(pl, why[i], m->pkt_len);
			st = &stages[s != NULL ? s->consumer : 0];
			st->m[st->n] = m;
			st->why[st->n] = why[i];
			st->s[st->n++] = s;
		}
	}
	if (mode == CONSUMER_INLINE) {
		/* Run to completion: read, then free, in the poll lcore. */
		for (unsigned int c = 0; c < pl->nb_cons; c++) {
			struct stage *st = &stages[c];

			if (st->n == 0)
				continue;
			consumer_read(&pl->cons[c], st->m, st->n);
			rxr_pktmbuf_free_bulk(st->m, st->n);
			st->n = 0;
		}
		return;
	}
	for (unsigned int c = 0; c < pl->nb_cons; c++)
		stage_flush(pl, &pl->cons[c], &stages[c]);
}

/*
 * --consumer other-poll: free what the previous poll lcore received, here
 * in this poll loop, as a softirq on another CPU frees a page.
 */
static unsigned int
inbox_free(struct poller *pl)
{
	struct rte_mbuf *m[MAX_BURST];
	unsigned int n;
	uint64_t t0;

	n = rte_ring_dequeue_burst(pl->inbox, (void **)m, RTE_DIM(m), NULL);
	if (n == 0)
		return 0;
	t0 = rte_rdtsc();
	rxr_pktmbuf_free_bulk(m, n);
	RXR_STAT_ADD(pl->inbox_free_cycles, rte_rdtsc() - t0);
	RXR_STAT_ADD(pl->inbox_packets, n);
	return n;
}

/* Open or close the latency sampling window of every pool polled. */
static void
pools_sample(struct poller *pl, bool on)
{
	for (unsigned int i = 0; i < pl->nb_pools; i++)
		rxr_pool_sample(pl->pools[i], on);
}

int
poll_main(void *arg)
{
	struct poller *pl = arg;
	const struct options *o = &pl->app->opt;
	const enum consumer_mode mode = o->consumer;
	const unsigned int burst = o->burst;
	/* One iteration in latency_every is timed (no timing: never). */
	const uint32_t every = o->latency ? o->latency_every : UINT32_MAX;
	/*
	 * A saturated loop (full bursts) reads the TSC once every
	 * POLL_TSC_EVERY iterations: the iterations between two reads are
	 * all busy but perhaps the last, whose time is then taken as the
	 * last idle iteration timed alone. A run whose report carries the
	 * poll gap (a zeroing policy) reads it every iteration, and so does
	 * every configuration of a process that runs one: the same loop.
	 */
	const uint32_t tsc_every = o->zero_policies !=
		1u << RXR_ZERO_POLICY_NONE ? 1 : POLL_TSC_EVERY;
	struct rte_mbuf *pkts[MAX_BURST];
	struct stage *stages;
	uint64_t start, last, max_gap = 0, next_control, idle_cycles = 0;
	uint32_t countdown = pl->sample_countdown != 0 ? pl->sample_countdown :
		every, skipped = 0;
	bool sampling = false, busy = false, full = false;

	stages = rte_zmalloc_socket("rxr_stages", sizeof(*stages) * pl->nb_cons,
			RTE_CACHE_LINE_SIZE, rte_socket_id());
	if (stages == NULL)
		return -ENOMEM;
	unsigned int got = 0;

	start = last = rte_rdtsc();
	next_control = pl->control != NULL ? start : UINT64_MAX;
	while (!flag_get(&run_stop)) {
		if (full && skipped + 1 < tsc_every) {
			skipped++;
		} else {
			/* The read ends the iterations since the last one. */
			uint64_t now = rte_rdtsc(), span = now - last;

			max_gap = RTE_MAX(max_gap, span);
			if (busy)
				RXR_STAT_ADD(pl->busy_cycles, span);
			else if (skipped == 0)
				idle_cycles = span;
			else
				RXR_STAT_ADD(pl->busy_cycles,
					span - RTE_MIN(idle_cycles, span));
			skipped = 0;
			last = now;
			if (unlikely(now >= next_control)) {
				if (pl->control(now))
					break;
				next_control = rte_rdtsc() + pl->control_cycles;
			}
		}
		/* An idle iteration refilled nothing: the window stays open
		 * for the next one, or a run mostly idle (a finite replay
		 * between its loops) might time no refill at all. */
		if (unlikely(sampling) && got != 0) {
			pools_sample(pl, false);
			sampling = false;
			RXR_STAT_ADD(pl->sample_packets, got);
		}
		got = 0;
		if (unlikely(--countdown == 0)) {
			countdown = every;
			if (!sampling) {
				sampling = true;
				pools_sample(pl, true);
			}
		}
		for (unsigned int i = 0; i < pl->nb_q; i++) {
			struct poll_queue *q = &pl->q[i];
			uint16_t n;

			/*
			 * other-poll: while the next poll lcore has not freed
			 * a burst's room, leave the packets in the RX queue
			 * (backpressure, as a full backlog stops NAPI) rather
			 * than free them here: every packet is freed there.
			 */
			if (mode == CONSUMER_OTHER_POLL &&
					rte_ring_free_count(pl->cons[0].ring) < burst)
				continue;
			n = rte_eth_rx_burst(q->port, q->queue, pkts, burst);
			if (n == 0)
				continue;
			got += n;
			process(pl, q, pkts, n, mode, stages);
		}
		busy = got != 0;
		full = got >= burst;
		/* Freeing is work too: such an iteration counts as busy. */
		if (mode == CONSUMER_OTHER_POLL && inbox_free(pl) != 0)
			busy = true;
		/* bh-enable point: drain what other contexts freed. */
		for (unsigned int i = 0; i < pl->nb_pools; i++)
			rxr_pool_poll_end(pl->pools[i]);
	}
	if (sampling) {
		pools_sample(pl, false);
		RXR_STAT_ADD(pl->sample_packets, got);
	}
	/* A window still waiting for packets (the idle end of a finite
	 * loop) opens again at the next launch's first iteration. */
	pl->sample_countdown = sampling && got == 0 ? 1 : countdown;
	RXR_STAT_ADD(pl->cycles, rte_rdtsc() - start);
	pl->max_gap_cycles = RTE_MAX(pl->max_gap_cycles, max_gap);
	rte_free(stages);
	return 0;
}
