/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxrefill: the same traffic, once per refill strategy, side by side.
 *
 * EAL options, then "--", then ours (--help). Worker lcores poll; the main
 * lcore prints progress and writes the report.
 */

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_version.h>

#include "rxrefill.h"

struct app app;
volatile bool force_quit;
volatile bool run_stop;

/* Counters of the whole app at one instant. */
struct snapshot {
	uint64_t tsc;
	uint64_t packets, bytes, busy;
	uint64_t drops[DROP_MAX];
	struct port_counters port[MAX_PORTS];
	struct rxr_pool_stats pool[MAX_PORTS];
};

static void
snapshot_take(struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->tsc = rte_rdtsc();
	for (unsigned int k = 0; k < app.nb_pollers; k++) {
		const struct poller *pl = &app.pollers[k];

		s->packets += RXR_STAT_READ(pl->rx_packets);
		s->bytes += RXR_STAT_READ(pl->rx_bytes);
		s->busy += RXR_STAT_READ(pl->busy_cycles);
		for (int d = 0; d < DROP_MAX; d++)
			s->drops[d] += RXR_STAT_READ(pl->drops[d]);
	}
	for (unsigned int i = 0; i < app.nb_ports; i++) {
		port_counters_read(&app.ports[i], &s->port[i]);
		if (app.ports[i].mp != NULL)
			rxr_pool_stats(rxr_mempool_pool(app.ports[i].mp), &s->pool[i]);
	}
}

/* Sleep up to sec seconds, waking for signals. */
static void
nap(double sec)
{
	uint64_t end = rte_get_timer_cycles() + (uint64_t)(sec * rte_get_timer_hz());

	while (!force_quit && rte_get_timer_cycles() < end)
		rte_delay_us_sleep(RTE_MIN(10000.0, sec * 1e6));
}

static void
progress(const char *tag, struct snapshot *prev)
{
	struct snapshot now;
	double dt;

	snapshot_take(&now);
	dt = (double)(now.tsc - prev->tsc) / rte_get_tsc_hz();
	if (dt <= 0)
		return;
	printf("%s %8.3f Mpps %8.3f Gbit/s", tag,
		(now.packets - prev->packets) / dt / 1e6,
		(now.bytes - prev->bytes) * 8.0 / dt / 1e9);
	for (unsigned int i = 0; i < app.nb_ports; i++)
		printf(" | port %u %.3f Mpps nombuf %" PRIu64, app.ports[i].id,
			(now.port[i].ipackets - prev->port[i].ipackets) / dt / 1e6,
			now.port[i].rx_nombuf - prev->port[i].rx_nombuf);
	printf("\n");
	fflush(stdout);
	*prev = now;
}

static void
launch_pollers(void)
{
	run_stop = false;
	for (unsigned int k = 0; k < app.nb_pollers; k++)
		rte_eal_remote_launch(poll_main, &app.pollers[k],
				app.pollers[k].lcore);
}

static void
wait_pollers(void)
{
	run_stop = true;
	for (unsigned int k = 0; k < app.nb_pollers; k++)
		rte_eal_wait_lcore(app.pollers[k].lcore);
}

/* Packets a port delivered or lost with a cause, since a snapshot. */
static uint64_t
port_accounted(unsigned int i, const struct port_counters *base)
{
	struct port_counters c;

	port_counters_read(&app.ports[i], &c);
	return (c.ipackets - base->ipackets) + (c.rx_nombuf - base->rx_nombuf) +
		(c.ierrors - base->ierrors) + (c.imissed - base->imissed);
}

/*
 * Finite replay: each loop starts the ports (net_pcap reopens its files),
 * receives until every packet of every file is received or dropped with a
 * cause, and stops them. Returns measured TSC cycles; *unaccounted gets
 * what never showed up (a stalled replay).
 */
static uint64_t
run_finite(const char *tag, uint64_t *unaccounted)
{
	uint64_t cycles = 0;

	*unaccounted = 0;
	for (unsigned int loop = 0; loop < app.opt.loops && !force_quit; loop++) {
		struct port_counters base[MAX_PORTS];
		uint64_t expected[MAX_PORTS], last_total = UINT64_MAX, t0;
		uint64_t stall_since = rte_get_timer_cycles();
		bool done = false;

		for (unsigned int i = 0; i < app.nb_ports; i++) {
			port_counters_read(&app.ports[i], &base[i]);
			expected[i] = 0;
			for (unsigned int q = 0; q < app.ports[i].nb_q; q++)
				expected[i] += app.ports[i].file_packets[q];
		}
		if (ports_start(&app) != 0)
			return 0;
		t0 = rte_rdtsc();
		launch_pollers();
		while (!done && !force_quit) {
			uint64_t total = 0;

			done = true;
			for (unsigned int i = 0; i < app.nb_ports; i++) {
				uint64_t got = port_accounted(i, &base[i]);

				total += got;
				if (app.ports[i].finite && got < expected[i])
					done = false;
			}
			if (total != last_total) {
				last_total = total;
				stall_since = rte_get_timer_cycles();
			} else if (rte_get_timer_cycles() - stall_since >
					3 * rte_get_timer_hz()) {
				for (unsigned int i = 0; i < app.nb_ports; i++)
					if (app.ports[i].finite)
						*unaccounted += expected[i] -
							RTE_MIN(expected[i],
								port_accounted(i, &base[i]));
				fprintf(stderr, APP ": %s: replay stalled for 3 s with %"
					PRIu64 " packets unaccounted\n", tag, *unaccounted);
				break;
			}
			rte_delay_us_sleep(200);
		}
		wait_pollers();
		cycles += rte_rdtsc() - t0;
		ports_stop(&app);
	}
	return cycles;
}

static double
ratio(uint64_t a, uint64_t b)
{
	return b != 0 ? (double)a / (double)b : NAN;
}

/* Per-stream rows of the report, merged over the pollers. */
struct stream_rows {
	struct rxr_report_stream *rows;
	char (*addr)[2][RXR_FLOW_ADDR_STRLEN];
	unsigned int n;
};

static int
streams_collect(struct stream_rows *sr)
{
	unsigned int max = 0;

	for (unsigned int k = 0; k < app.nb_pollers; k++)
		max += app.pollers[k].nb_streams;
	sr->n = 0;
	sr->rows = calloc(max + 1, sizeof(*sr->rows));
	sr->addr = calloc(max + 1, sizeof(*sr->addr));
	if (sr->rows == NULL || sr->addr == NULL)
		return -ENOMEM;
	for (unsigned int k = 0; k < app.nb_pollers; k++)
		for (unsigned int j = 0; j < app.pollers[k].nb_streams; j++) {
			const struct stream *s = &app.pollers[k].streams[j];
			struct rxr_report_stream *r = &sr->rows[sr->n];

			rxr_flow_addr_str(&s->key, false, sr->addr[sr->n][0],
				RXR_FLOW_ADDR_STRLEN);
			rxr_flow_addr_str(&s->key, true, sr->addr[sr->n][1],
				RXR_FLOW_ADDR_STRLEN);
			r->src = sr->addr[sr->n][0];
			r->dst = sr->addr[sr->n][1];
			r->sport = s->key.sport;
			r->dport = s->key.dport;
			r->proto = s->key.proto;
			r->packets = s->packets;
			r->bytes = s->bytes;
			sr->n++;
		}
	return 0;
}

static void
add_drop(struct rxr_report_run *r, const char *cause, uint64_t n, bool always)
{
	if ((n != 0 || always) && r->nb_drops < RXR_REPORT_DROPS_MAX)
		r->drops[r->nb_drops++] = (struct rxr_report_drop){ cause, n };
}

static uint64_t
zero_total(const struct snapshot *s, bool cycles)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < app.nb_ports; i++) {
		const struct rxr_pool_stats *ps = &s->pool[i];

		n += cycles ? ps->zero_cycles_other : ps->zero_bytes_other;
		for (unsigned int l = 0; l < ps->nr_lcores; l++)
			n += cycles ? ps->lcore[l].zero_cycles +
				ps->lcore[l].supply.clear_cycles :
				ps->lcore[l].zero_bytes +
				ps->lcore[l].supply.bytes_cleared;
	}
	return n;
}

static void
fill_zeroing(struct rxr_report_run *r, const struct snapshot *a,
		const struct snapshot *b)
{
	static char method[48];
	uint64_t bytes = zero_total(b, false) - zero_total(a, false);
	uint64_t cyc = zero_total(b, true) - zero_total(a, true), gap = 0;
	uint32_t room = rxr_mempool_data_room(app.opt.frame_size, 0);

	if (app.opt.zero_method == RXR_ZERO_AUTO)
		snprintf(method, sizeof(method), "auto:%s",
			rxr_zero_method_name(rxr_zero_auto_pick(room)));
	else
		snprintf(method, sizeof(method), "%s",
			rxr_zero_method_name(app.opt.zero_method));
	for (unsigned int k = 0; k < app.nb_pollers; k++)
		gap = RTE_MAX(gap, app.pollers[k].max_gap_cycles);
	r->has_zeroing = true;
	r->zeroing.policy = rxr_zero_policy_name(app.opt.zero_policy);
	r->zeroing.method = method;
	r->zeroing.bytes = bytes;
	r->zeroing.gbps = cyc != 0 ? bytes * 8.0 /
		((double)cyc / rte_get_tsc_hz()) / 1e9 : NAN;
	r->zeroing.max_poll_gap_us = (double)gap * 1e6 / rte_get_tsc_hz();
}

/* The run's figures from two snapshots. */
static void
fill_run(struct rxr_report_run *r, const struct snapshot *a,
		const struct snapshot *b, uint64_t cycles, uint64_t unaccounted)
{
	uint64_t nombuf = 0, imissed = 0, ierr = 0, oob = 0, zone_alloc = 0;
	uint64_t into_pcp = 0, hits = 0, refill_cycles = 0, refill_frames = 0;
	bool has_oob = false;

	r->duration_s = (double)cycles / rte_get_tsc_hz();
	r->rx_packets = b->packets - a->packets;
	r->rx_bytes = b->bytes - a->bytes;
	r->cycles_per_packet = ratio(b->busy - a->busy, r->rx_packets);
	for (unsigned int i = 0; i < app.nb_ports; i++) {
		const struct rxr_pool_stats *pa = &a->pool[i], *pb = &b->pool[i];

		nombuf += b->port[i].rx_nombuf - a->port[i].rx_nombuf;
		imissed += b->port[i].imissed - a->port[i].imissed;
		ierr += b->port[i].ierrors - a->port[i].ierrors;
		oob += b->port[i].out_of_buffer - a->port[i].out_of_buffer;
		has_oob |= app.ports[i].xstat_out_of_buffer >= 0;
		for (unsigned int z = 0; z < pb->nr_zones; z++) {
			r->zone_lock.acquisitions += pb->zone[z].lock.acquisitions -
				pa->zone[z].lock.acquisitions;
			r->zone_lock.contended += pb->zone[z].lock.contended -
				pa->zone[z].lock.contended;
			r->zone_lock.wait_cycles += pb->zone[z].lock.wait_cycles -
				pa->zone[z].lock.wait_cycles;
			zone_alloc += pb->zone[z].alloc_frames - pa->zone[z].alloc_frames;
		}
		for (unsigned int l = 0; l < pb->nr_lcores; l++) {
			const struct rxr_pool_lcore_stats *la = &pa->lcore[l];
			const struct rxr_pool_lcore_stats *lb = &pb->lcore[l];
			const uint64_t *ra = (const uint64_t *)&la->recycle;
			const uint64_t *rb = (const uint64_t *)&lb->recycle;
			uint64_t *rr = (uint64_t *)&r->recycle;

			hits += (lb->pcp.alloc - la->pcp.alloc) -
				(lb->pcp.alloc_zone_frames - la->pcp.alloc_zone_frames);
			into_pcp += (lb->pcp.refill_frames - la->pcp.refill_frames) -
				(lb->pcp.alloc_zone_frames - la->pcp.alloc_zone_frames);
			r->deferred.drained += lb->deferred_drained - la->deferred_drained;
			for (size_t c = 0; c < sizeof(r->recycle) / sizeof(uint64_t); c++)
				rr[c] += rb[c] - ra[c];
			refill_cycles += lb->refill_cycles - la->refill_cycles;
			refill_frames += lb->refill_frames - la->refill_frames;
			for (unsigned int h = 0; h < RXR_HIST_BUCKETS &&
					h < RXR_REPORT_HIST_BUCKETS; h++)
				r->refill_latency_ns[h] += lb->refill_hist[h] -
					la->refill_hist[h];
		}
	}
	r->pcp.hits = hits;
	r->pcp.misses = zone_alloc > into_pcp ? zone_alloc - into_pcp : 0;
	r->zone_lock.wait_share = cycles != 0 ? (double)r->zone_lock.wait_cycles /
		((double)cycles * app.nb_pollers) : NAN;
	r->refill_cycles_per_frame = ratio(refill_cycles, refill_frames);
	r->deferred.queued = r->deferred.drained;
	add_drop(r, "rx_nombuf", nombuf, true);
	add_drop(r, "imissed", imissed, true);
	add_drop(r, "rx_errors", ierr, false);
	add_drop(r, "rx_out_of_buffer", oob, has_oob);
	add_drop(r, "consumer_full", b->drops[DROP_CONSUMER_FULL] -
		a->drops[DROP_CONSUMER_FULL], app.opt.consumer == CONSUMER_SAME_CPU ||
		app.opt.consumer == CONSUMER_OTHER_CPU);
	add_drop(r, "unaccounted", unaccounted, false);
	if (app.opt.zero_policy != RXR_ZERO_POLICY_NONE)
		fill_zeroing(r, a, b);
}

/*
 * Fault injection (--exhaust AT:SEC): a task-context thread takes every
 * free frame of every pool for SEC seconds, AT seconds into the run, then
 * gives them all back. Refills fail meanwhile; the run must carry on and
 * recover, and no frame may be lost.
 */
struct exhaust {
	pthread_t thread;
	volatile bool quit;
	bool running;
	uint64_t held_max;
	uint64_t rx_at_release;		/* packets received when they came back */
	bool released;
};

static void *
exhaust_main(void *arg)
{
	struct exhaust *ex = arg;
	uint64_t hz = rte_get_timer_hz(), t0 = rte_get_timer_cycles();
	uint64_t at = t0 + (uint64_t)(app.opt.exhaust_at_s * hz);
	uint64_t until = at + (uint64_t)(app.opt.exhaust_for_s * hz);
	void **held[MAX_PORTS] = { NULL };
	uint64_t n[MAX_PORTS] = { 0 };

	while (!ex->quit && rte_get_timer_cycles() < at)
		usleep(500);
	while (!ex->quit && rte_get_timer_cycles() < until) {
		for (unsigned int i = 0; i < app.nb_ports; i++) {
			struct rte_mempool *mp = app.ports[i].mp;

			if (held[i] == NULL)
				held[i] = calloc(mp->size, sizeof(void *));
			/* Keep taking what refills and frees put back. */
			while (held[i] != NULL && n[i] < mp->size &&
					rte_mempool_get(mp, &held[i][n[i]]) == 0)
				n[i]++;
			ex->held_max = RTE_MAX(ex->held_max, n[i]);
		}
		usleep(200);
	}
	for (unsigned int i = 0; i < app.nb_ports; i++) {
		if (n[i] != 0)
			rte_mempool_put_bulk(app.ports[i].mp, held[i], n[i]);
		free(held[i]);
	}
	for (unsigned int k = 0; k < app.nb_pollers; k++)
		ex->rx_at_release += RXR_STAT_READ(app.pollers[k].rx_packets);
	ex->released = true;
	return NULL;
}

static int
run_one(unsigned int step, struct rxr_report *report)
{
	unsigned int cfg, rep;
	const struct run_config *rc;
	struct rxr_report_run r = { 0 };
	struct snapshot *s0 = NULL, *s1 = NULL, *s2 = NULL;
	struct stream_rows sr = { 0 };
	uint64_t cycles, unaccounted = 0;
	char tag[96], err[RXR_REPORT_ERR_LEN];
	struct exhaust ex = { 0 };
	bool stopped;
	int ret = -1;

	rxr_report_schedule(step, app.opt.nb_configs, &cfg, &rep);
	rc = &app.opt.configs[cfg];
	snprintf(tag, sizeof(tag), "[%s bulk %s rep %u/%u]",
		rxr_strategy_name(rc->strategy), rc->bulk ? "on" : "off", rep + 1,
		app.opt.reps);

	ports_stop(&app);
	if (ports_use_pool(&app, cfg) != 0)
		return -1;
	if (ports_retire_pools(&app, &app.lost_frames) != 0)
		fprintf(stderr, APP ": frames were lost in the previous run\n");
	for (unsigned int k = 0; k < app.nb_pollers; k++) {
		struct poller *pl = &app.pollers[k];

		poller_reset(pl);
		pl->nb_pools = 0;
		for (unsigned int q = 0; q < pl->nb_q; q++) {
			bool seen = false;

			for (unsigned int j = 0; j < pl->nb_pools; j++)
				seen |= pl->pools[j] == pl->q[q].pool;
			if (!seen)
				pl->pools[pl->nb_pools++] = pl->q[q].pool;
		}
	}
	s0 = rte_zmalloc("rxr_snap", sizeof(*s0), 0);
	s1 = rte_zmalloc("rxr_snap", sizeof(*s1), 0);
	s2 = rte_zmalloc("rxr_snap", sizeof(*s2), 0);
	if (s0 == NULL || s1 == NULL || s2 == NULL)
		goto out;
	if (consumers_start(&app, cfg) != 0 || zeroer_start(&app) != 0)
		goto stop_consumers;
	memset(&ex, 0, sizeof(ex));
	if (app.opt.exhaust_for_s > 0) {
		if (pthread_create(&ex.thread, NULL, exhaust_main, &ex) != 0)
			goto stop_consumers;
		ex.running = true;
	}
	printf("%s %s\n", tag, app.opt.loops ? "replaying" : "warming up");
	if (app.opt.loops != 0) {
		snapshot_take(s1);
		cycles = run_finite(tag, &unaccounted);
		snapshot_take(s2);
	} else {
		if (ports_start(&app) != 0)
			goto stop_consumers;
		launch_pollers();
		nap(app.opt.warmup_s);
		snapshot_take(s1);
		*s0 = *s1;
		while (!force_quit) {
			double left = app.opt.duration_s -
				(double)(rte_rdtsc() - s1->tsc) / rte_get_tsc_hz();

			if (left <= 0)
				break;
			nap(app.opt.stats_period_s > 0 ?
				RTE_MIN(left, app.opt.stats_period_s) : left);
			if (app.opt.stats_period_s > 0)
				progress(tag, s0);
		}
		snapshot_take(s2);
		cycles = s2->tsc - s1->tsc;
		wait_pollers();
		ports_stop(&app);
	}
	stopped = force_quit;
	if (ex.running) {
		ex.quit = true;
		pthread_join(ex.thread, NULL);
		ex.running = false;
		printf("%s exhaust: held up to %" PRIu64 " frames; %" PRIu64
			" packets received after they came back\n", tag, ex.held_max,
			s2->packets - RTE_MIN(s2->packets, ex.rx_at_release));
	}
	consumers_stop(&app);
	zeroer_stop(&app);

	r.strategy = rxr_strategy_name(rc->strategy);
	r.bulk = rc->bulk;
	r.rep = rep;
	r.cut_short = run_cut_short(stopped, cycles);
	fill_run(&r, s1, s2, cycles, unaccounted);
	r.has_deferred = rc->strategy == RXR_STRATEGY_BH ||
		rc->strategy == RXR_STRATEGY_RECYCLE;
	r.has_recycle = rc->strategy == RXR_STRATEGY_RECYCLE;
	if (app.opt.consumer != CONSUMER_NONE && streams_collect(&sr) == 0) {
		r.streams = sr.rows;
		r.nb_streams = sr.n;
	}
	printf("%s %.3f Mpps %.3f Gbit/s over %.2f s, %" PRIu64 " packets\n", tag,
		r.duration_s > 0 ? r.rx_packets / r.duration_s / 1e6 : 0.0,
		r.duration_s > 0 ? r.rx_bytes * 8.0 / r.duration_s / 1e9 : 0.0,
		r.duration_s, r.rx_packets);
	if (rxr_report_add_run(report, &r, err, sizeof(err)) != 0) {
		fprintf(stderr, APP ": %s\n", err);
		goto out;
	}
	ret = unaccounted != 0 ? 1 : 0;
	goto out;
stop_consumers:
	if (ex.running) {
		ex.quit = true;
		pthread_join(ex.thread, NULL);
	}
	consumers_stop(&app);
	zeroer_stop(&app);
out:
	free(sr.rows);
	free(sr.addr);
	rte_free(s0);
	rte_free(s1);
	rte_free(s2);
	return ret;
}

static int
report_env(struct rxr_report *rep)
{
	struct rxr_report_port ports[MAX_PORTS];
	unsigned int lcores[RTE_MAX_LCORE], nl = 0, lc;
	char err[RXR_REPORT_ERR_LEN], buf[256];
	const struct options *o = &app.opt;
	struct rxr_report_env env = {
		.dpdk_version = rte_version(),
		.no_huge = app.backing == RXR_MEM_NO_HUGE,
		.argc = app.argc, .argv = app.argv,
	};
	size_t off = 0;

	RTE_LCORE_FOREACH(lc)
		lcores[nl++] = lc;
	for (unsigned int i = 0; i < app.nb_ports; i++)
		ports[i] = (struct rxr_report_port){ app.ports[i].id,
			app.ports[i].driver, app.ports[i].name };
	env.lcores = lcores;
	env.nb_lcores = nl;
	env.ports = ports;
	env.nb_ports = app.nb_ports;
	if (rxr_report_set_env(rep, &env, err, sizeof(err)) != 0) {
		fprintf(stderr, APP ": report: %s\n", err);
		return -1;
	}
	for (unsigned int i = 0; i < o->nb_configs && off < sizeof(buf); i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s-%s",
			i ? "," : "", rxr_strategy_name(o->configs[i].strategy),
			o->configs[i].bulk ? "bulk" : "nobulk");
	rxr_report_set_option_str(rep, "strategies", buf);
	rxr_report_set_option_int(rep, "reps", o->reps);
	rxr_report_set_option_double(rep, "warmup_s", o->warmup_s);
	rxr_report_set_option_double(rep, "duration_s", o->loops ? 0 : o->duration_s);
	rxr_report_set_option_int(rep, "loops", o->loops);
	rxr_report_set_option_int(rep, "burst", o->burst);
	rxr_report_set_option_int(rep, "rxd", o->rxd);
	rxr_report_set_option_int(rep, "pcp_high", o->high ? o->high : RXR_PCP_HIGH_DEFAULT);
	rxr_report_set_option_int(rep, "pcp_batch", o->batch ? o->batch : RXR_PCP_BATCH_DEFAULT);
	rxr_report_set_option_int(rep, "frame_size", o->frame_size);
	rxr_report_set_option_int(rep, "fake_nodes", o->fake_nodes);
	rxr_report_set_option_str(rep, "consumer", consumer_mode_name(o->consumer));
	rxr_report_set_option_int(rep, "consumers", o->consumers);
	rxr_report_set_option_int(rep, "consumer_depth", o->consumer_depth);
	rxr_report_set_option_int(rep, "poll_lcores", app.nb_pollers);
	rxr_report_set_option_str(rep, "zero_policy",
		rxr_zero_policy_name(o->zero_policy));
	rxr_report_set_option_str(rep, "zero_method",
		rxr_zero_method_name(o->zero_method));
	return 0;
}

static int
consumers_init(struct app *a)
{
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
				fprintf(stderr, APP ": cannot create a receive queue of %u "
					"packets: %s\n", a->opt.consumer_depth,
					rte_strerror(rte_errno));
				return -1;
			}
		}
	}
	return 0;
}

/*
 * Our options follow the first "--"; EAL gets what comes before. --help and
 * --list-devices also work alone, without EAL options or "--".
 */
static int
parse_app_args(int argc, char **argv, int *eal_argc)
{
	static struct opts_args args;	/* the options point into it */
	char *none[] = { argv[0], NULL };
	int d = 1;

	while (d < argc && strcmp(argv[d], "--") != 0)
		d++;
	*eal_argc = d;
	if (d < argc)
		return opts_parse(argc - d, argv + d, &app.opt, &args);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
			strcmp(argv[1], "--list-devices") == 0)) {
		*eal_argc = 1;
		return opts_parse(argc, argv, &app.opt, &args);
	}
	if (opts_check_dashdash(argc, argv) != 0)
		return -1;
	return opts_parse(1, none, &app.opt, &args);
}

int
main(int argc, char **argv)
{
	struct rxr_report *report;
	int eal_argc, ret, status = EXIT_SUCCESS;
	unsigned int lc;
	uint64_t lost = 0;

	/* First of all: a stop asked for at any point is a clean stop. */
	signals_install();
	/* The command line as typed, before anyone parses it in place. */
	app.argc = argc;
	app.argv = calloc(argc + 1, sizeof(char *));
	for (int i = 0; app.argv != NULL && i < argc; i++)
		app.argv[i] = strdup(argv[i]);
	/* App options first: bad input fails before EAL touches anything. */
	if (parse_app_args(argc, argv, &eal_argc) != 0)
		return EXIT_FAILURE;
	if (app.opt.help)
		return EXIT_SUCCESS;
	if (app.opt.list_devices)
		return rdma_list(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	if (output_check(&app.opt) != 0)
		return EXIT_FAILURE;

	ret = rxr_eal_init(eal_argc, argv, 1024, stdout, &app.backing);
	if (ret < 0) {
		fprintf(stderr, APP ": EAL could not start: %s%s\n",
			rte_strerror(rte_errno), eal_argc == argc ? " (" APP
			"'s own options go after '--')" : "");
		return EXIT_FAILURE;
	}

	RTE_LCORE_FOREACH_WORKER(lc) {
		app.pollers[app.nb_pollers].lcore = lc;
		app.pollers[app.nb_pollers].index = app.nb_pollers;
		app.nb_pollers++;
	}
	if (app.nb_pollers == 0) {
		fprintf(stderr, APP ": no worker lcore to poll with: give EAL at "
			"least two lcores, e.g. -l 0-1 (the main lcore reports)\n");
		status = EXIT_FAILURE;
		goto cleanup;
	}
	if (app.opt.nb_replay != 0 &&
			(replay_scan(&app) != 0 || ports_create_replay(&app) != 0)) {
		status = EXIT_FAILURE;
		goto cleanup;
	}
	if (ports_init(&app) != 0 || consumers_init(&app) != 0) {
		status = EXIT_FAILURE;
		goto cleanup;
	}
	pollers_assign(&app);
	opts_check_ports(&app);
	printf(APP ": %u port(s), %u poll lcore(s), %u configuration(s) x %u "
		"rep(s), consumer %s, memory %s\n", app.nb_ports, app.nb_pollers,
		app.opt.nb_configs, app.opt.reps, consumer_mode_name(app.opt.consumer),
		rxr_mem_backing_name(app.backing));

	report = rxr_report_create();
	if (report == NULL || report_env(report) != 0) {
		status = EXIT_FAILURE;
		goto cleanup;
	}
	for (unsigned int step = 0; step < app.opt.nb_configs * app.opt.reps &&
			!force_quit; step++) {
		ret = run_one(step, report);
		if (ret < 0) {
			status = EXIT_FAILURE;
			break;
		}
		if (ret > 0)
			status = EXIT_FAILURE;
		/* After every run: an interruption leaves a valid report. */
		if (output_write(report, true, false) != 0)
			status = EXIT_FAILURE;
	}
	wait_pollers();
	consumers_stop(&app);
	if (ports_close(&app, &lost) != 0 || app.lost_frames != 0) {
		fprintf(stderr, APP ": conservation: %" PRIu64 " frames lost\n",
			lost + app.lost_frames);
		status = EXIT_FAILURE;
	}
	if (output_write(report, force_quit || status != EXIT_SUCCESS, true) != 0)
		status = EXIT_FAILURE;
	if (app.opt.table && rxr_report_nb_runs(report) != 0)
		rxr_report_render_text(report, stdout, NULL);
	stop_say(rxr_report_nb_runs(report) - rxr_report_nb_cut_short(report),
		app.opt.nb_configs * app.opt.reps);
	output_say(report, force_quit);
	rxr_report_free(report);
cleanup:
	rte_eal_cleanup();
	if (force_quit && status == EXIT_SUCCESS)
		return 128 + signals_caught();
	return status;
}
