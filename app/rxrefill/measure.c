/* SPDX-License-Identifier: BSD-3-Clause */

/* What a run measured: the app's counters at one instant (a snapshot),
 * and the report's figures from two of them: the run's, and its
 * runs[].queues[], runs[].lcores[] and runs[].xstats (those that changed). */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "rxrefill.h"
#include "rxr_log.h"

void
snapshot_take(const struct app *app, struct snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->tsc = rte_rdtsc();
	for (unsigned int k = 0; k < app->nb_pollers; k++) {
		const struct poller *pl = &app->pollers[k];

		for (unsigned int i = 0; i < pl->nb_q; i++) {
			s->qpackets[k][i] = RXR_STAT_READ(pl->q[i].packets);
			s->qbytes[k][i] = RXR_STAT_READ(pl->q[i].bytes);
			s->packets += s->qpackets[k][i];
			s->bytes += s->qbytes[k][i];
		}
		s->lbusy[k] = RXR_STAT_READ(pl->busy_cycles);
		s->busy += s->lbusy[k];
		s->sample_packets += RXR_STAT_READ(pl->sample_packets);
		s->freed += RXR_STAT_READ(pl->inbox_packets);
		s->free_cycles += RXR_STAT_READ(pl->inbox_free_cycles);
		for (unsigned int c = 0; c < pl->nb_cons; c++) {
			if (!pl->cons[c].threaded)
				continue;
			s->freed += RXR_STAT_READ(pl->cons[c].packets);
			s->free_cycles += RXR_STAT_READ(pl->cons[c].free_cycles);
		}
		s->consumer_full += RXR_STAT_READ(pl->consumer_full);
	}
	for (unsigned int i = 0; i < app->nb_ports; i++) {
		port_counters_read(&app->ports[i], &s->port[i]);
		if (rte_eth_stats_get(app->ports[i].id, &s->eth[i]) != 0)
			memset(&s->eth[i], 0, sizeof(s->eth[i]));
		if (app->ports[i].mp != NULL)
			rxr_pool_stats(rxr_mempool_pool(app->ports[i].mp), &s->pool[i]);
	}
}

static double
ratio(uint64_t a, uint64_t b)
{
	return b != 0 ? (double)a / (double)b : NAN;
}

/*
 * Every poller's stream rows into run->streams, each poller's in the order
 * its flows came; the text of their addresses after them, in the same
 * allocation (the caller frees run->streams).
 */
int
streams_collect(const struct app *app, struct rxr_report_run *run)
{
	struct rxr_report_stream *rows;
	char (*addr)[2][RXR_FLOW_ADDR_STRLEN];
	unsigned int max = 0, n = 0;

	for (unsigned int k = 0; k < app->nb_pollers; k++)
		if (app->pollers[k].streams != NULL)
			max += rxr_flow_table_count(app->pollers[k].streams);
	rows = calloc(max + 1, sizeof(*rows) + sizeof(*addr));
	if (rows == NULL)
		return -ENOMEM;
	addr = (void *)&rows[max + 1];
	run->streams = rows;
	for (unsigned int k = 0; k < app->nb_pollers; k++) {
		const struct rxr_flow_table *t = app->pollers[k].streams;
		const struct rxr_flow_entry *s;
		uint32_t pos = 0;

		if (t == NULL)
			continue;
		while ((s = rxr_flow_table_next(t, &pos)) != NULL) {
			/* seq numbers this table's flows 1..count. */
			unsigned int i = n + s->seq - 1;
			struct rxr_report_stream *r = &rows[i];

			rxr_flow_addr_str(&s->key, false, addr[i][0],
				RXR_FLOW_ADDR_STRLEN);
			rxr_flow_addr_str(&s->key, true, addr[i][1],
				RXR_FLOW_ADDR_STRLEN);
			r->src = addr[i][0];
			r->dst = addr[i][1];
			r->sport = s->key.sport;
			r->dport = s->key.dport;
			r->proto = s->key.proto;
			r->fragments = (s->key.flags & RXR_FLOW_F_FRAG) != 0;
			r->packets = s->packets;
			r->bytes = s->bytes;
		}
		n += rxr_flow_table_count(t);
	}
	run->nb_streams = n;
	return 0;
}

#define DROP_CAUSE_NAME_(id, name, live) name,
const char *const drop_cause_names[CAUSE_MAX] = { DROP_CAUSES(DROP_CAUSE_NAME_) };
#define DROP_CAUSE_LIVE_(id, name, live) live,
const bool drop_cause_live[CAUSE_MAX] = { DROP_CAUSES(DROP_CAUSE_LIVE_) };

/*
 * The drops of each cause in a port's counters between reads a and b.
 * XDP sockets: a packet that found the fill ring empty (no buffer posted:
 * mlx5's rx_out_of_buffer) counts in both rx_dropped and
 * fill_ring_empty_descs in copy mode, so the causes are split to add up to
 * packets: fill ring empty, other rx_dropped (too long a frame), and RX
 * ring full (the application did not take what was received).
 */
void
port_drops(uint64_t n[CAUSE_MAX], const struct port *p,
		const struct port_counters *a, const struct port_counters *b)
{
	uint64_t dropped = b->xdp_rx_dropped - a->xdp_rx_dropped;
	uint64_t empty = RTE_MIN(dropped,
		b->xdp_fill_ring_empty - a->xdp_fill_ring_empty);

	n[CAUSE_RX_NOMBUF] += b->rx_nombuf - a->rx_nombuf;
	n[CAUSE_IMISSED] += b->imissed - a->imissed;
	n[CAUSE_RX_ERRORS] += b->ierrors - a->ierrors;
	n[CAUSE_RX_OUT_OF_BUFFER] += b->out_of_buffer - a->out_of_buffer;
	if (!p->xsk)
		return;
	n[CAUSE_XDP_FILL_RING_EMPTY] += empty;
	n[CAUSE_XDP_RX_DROPPED] += dropped - empty;
	n[CAUSE_XDP_RX_RING_FULL] += b->xdp_rx_ring_full - a->xdp_rx_ring_full;
}

/*
 * The clears of the window: the poll lcores' (alloc, free policies: in
 * @p sum), the supplies' (background: the zeroing thread's, sum->supply)
 * and other contexts' (@p other_bytes, @p other_cycles).
 */
static void
fill_zeroing(const struct app *app, struct rxr_report_run *r,
		const struct run_config *rc, uint64_t cycles,
		const struct rxr_pool_lcore_stats *sum, uint64_t other_bytes,
		uint64_t other_cycles)
{
	static char method[48];
	uint32_t room = rxr_mempool_data_room(app->opt.frame_size, 0);
	const struct rxr_zero_supply_stats *sup = &sum->supply;
	uint64_t gap = 0, zcycles = other_cycles + sum->zero_cycles +
		sup->clear_cycles;

	/* The split of cycles_per_packet: the clears, and all the rest. */
	r->has_poll = true;
	r->poll.clear_cycles_per_packet = ratio(sum->zero_cycles,
		r->rx_packets);
	r->poll.rest_cycles_per_packet = r->cycles_per_packet -
		r->poll.clear_cycles_per_packet;
	if (rc->zero_policy == RXR_ZERO_POLICY_BACKGROUND) {
		r->has_zeroer = true;
		r->zeroer.cpu = (uint64_t)app->zeroer_cpu;
		for (unsigned int k = 0; k < app->nb_pollers; k++)
			r->zeroer.poll_lcores_on_cpu +=
				lcore_cpu(app->pollers[k].lcore) == app->zeroer_cpu;
		r->zeroer.busy_share = cycles != 0 ?
			(double)sup->clear_cycles / (double)cycles : NAN;
		r->zeroer.clear_cycles_per_packet = ratio(sup->clear_cycles,
			r->rx_packets);
		r->zeroer.get_empty = sup->get_empty;
		r->zeroer.get_short = sup->get_short;
	}
	if (rc->zero_policy == RXR_ZERO_POLICY_NONE)
		return;
	if (rc->zero_method == RXR_ZERO_AUTO)
		snprintf(method, sizeof(method), "auto:%s",
			rxr_zero_method_name(rxr_zero_auto_pick(room)));
	else
		snprintf(method, sizeof(method), "%s",
			rxr_zero_method_name(rc->zero_method));
	for (unsigned int k = 0; k < app->nb_pollers; k++)
		gap = RTE_MAX(gap, app->pollers[k].max_gap_cycles);
	r->has_zeroing = true;
	r->zeroing.policy = rxr_zero_policy_name(rc->zero_policy);
	r->zeroing.method = method;
	r->zeroing.bytes = other_bytes + sum->zero_bytes + sup->bytes_cleared;
	r->zeroing.gbps = zcycles != 0 ? r->zeroing.bytes * 8.0 /
		((double)zcycles / rte_get_tsc_hz()) / 1e9 : NAN;
	r->zeroing.max_poll_gap_us = (double)gap * 1e6 / rte_get_tsc_hz();
}

/* One pool's pcp and zone lock counts between two snapshots (a NULL: since
 * its creation) added; the report's zone_lock COUNTs are the lock's. */
void
fill_pool_groups(struct rxr_report_pcp *pcp, struct rxr_report_zone_lock *zl,
		const struct rxr_pool_stats *a, const struct rxr_pool_stats *b)
{
	uint64_t hits, misses;

	for (unsigned int z = 0; z < b->nr_zones; z++) {
#define LOCK_SUM_COUNT(f) zl->f += b->zone[z].lock.f - \
	(a != NULL ? a->zone[z].lock.f : 0);
#define LOCK_SUM_NUMBER(f)
#define LOCK_SUM(g, f, t, row, prec, help) LOCK_SUM_##t(f)
		RXR_REPORT_ZONE_LOCK_FIELDS(LOCK_SUM)
#undef LOCK_SUM
#undef LOCK_SUM_NUMBER
#undef LOCK_SUM_COUNT
	}
	rxr_pool_pcp_hits(a, b, &hits, &misses);
	pcp->hits += hits;
	pcp->misses += misses;
}

/* The run's figures from two snapshots. */
void
fill_run(const struct app *app, struct rxr_report_run *r,
		const struct run_config *rc, const struct snapshot *a,
		const struct snapshot *b, uint64_t cycles, uint64_t unaccounted)
{
	uint64_t n[CAUSE_MAX] = { 0 };
	bool shown[CAUSE_MAX] = { [CAUSE_RX_NOMBUF] = true,
		[CAUSE_IMISSED] = true };
	struct rxr_pool_lcore_stats sum;
	const char * const *cnames;
	uint64_t other_bytes = 0, other_cycles = 0;

	memset(&sum, 0, sizeof(sum));
	r->strategy = rxr_strategy_name(rc->strategy);
	r->bulk = rc->bulk;
	r->has_deferred = rxr_strategy_has(rc->strategy,
		RXR_STRATEGY_CAP_DEFERS_FREES);
	r->nb_strategy_counters = rxr_strategy_counters(rc->strategy, &cnames);
	r->duration_s = (double)cycles / rte_get_tsc_hz();
	r->rx_packets = b->packets - a->packets;
	r->rx_bytes = b->bytes - a->bytes;
	r->cycles_per_packet = ratio(b->busy - a->busy, r->rx_packets);
	for (unsigned int i = 0; i < app->nb_ports; i++) {
		const struct rxr_pool_stats *pa = &a->pool[i], *pb = &b->pool[i];

		port_drops(n, &app->ports[i], &a->port[i], &b->port[i]);
		shown[CAUSE_RX_OUT_OF_BUFFER] |=
			app->ports[i].xstat_out_of_buffer >= 0;
		shown[CAUSE_XDP_FILL_RING_EMPTY] |= app->ports[i].xsk;
		other_bytes += pb->zero_bytes_other - pa->zero_bytes_other;
		other_cycles += pb->zero_cycles_other - pa->zero_cycles_other;
		for (unsigned int l = 0; l < pb->nr_lcores; l++) {
			const struct rxr_zero_supply_stats *sa = &pa->lcore[l].supply;
			const struct rxr_zero_supply_stats *sb = &pb->lcore[l].supply;

			rxr_pool_lcore_stats_add(&sum, &pa->lcore[l],
				&pb->lcore[l]);
			/* Not in rxr_pool_lcore_stats_add(): the supply's. */
			sum.supply.bytes_cleared += sb->bytes_cleared - sa->bytes_cleared;
			sum.supply.clear_cycles += sb->clear_cycles - sa->clear_cycles;
			sum.supply.get_empty += sb->get_empty - sa->get_empty;
			sum.supply.get_short += sb->get_short - sa->get_short;
		}
		fill_pool_groups(&r->pcp, &r->zone_lock, pa, pb);
	}
	r->deferred.drained = sum.deferred_drained;
	r->deferred.queued = sum.deferred_queued;
	for (unsigned int c = 0; c < RXR_STRATEGY_COUNTERS_MAX &&
			c < RXR_REPORT_DROPS_MAX; c++)
		r->strategy_counters[c] = (struct rxr_report_drop){
			c < r->nb_strategy_counters ? cnames[c] : NULL,
			sum.counters[c] };
	for (unsigned int h = 0; h < RXR_HIST_BUCKETS &&
			h < RXR_REPORT_HIST_BUCKETS; h++)
		r->refill_latency_ns[h] = sum.refill_hist[h];
	r->zone_lock.wait_share = cycles != 0 ? (double)r->zone_lock.wait_cycles /
		((double)cycles * app->nb_pollers) : NAN;
	r->refill_cycles_per_frame = ratio(sum.refill_cycles, sum.refill_frames);
	/* Sampled iterations: their allocator cycles over their packets. */
	r->allocator_cycles_per_packet = ratio(sum.sample_cycles,
		b->sample_packets - a->sample_packets);
	r->consumer_free_cycles_per_packet = ratio(b->free_cycles -
		a->free_cycles, b->freed - a->freed);
	r->refill_latency_sample_every = app->opt.latency ?
		app->opt.latency_every : 0;
	n[CAUSE_CONSUMER_FULL] = b->consumer_full - a->consumer_full;
	n[CAUSE_UNACCOUNTED] = unaccounted;
	/* Shown at 0 too: what every run has, or this run could have. */
	shown[CAUSE_XDP_RX_DROPPED] = shown[CAUSE_XDP_RX_RING_FULL] =
		shown[CAUSE_XDP_FILL_RING_EMPTY];
	shown[CAUSE_CONSUMER_FULL] = consumer_queued(app->opt.consumer);
	for (unsigned int c = 0; c < CAUSE_MAX; c++)
		if ((n[c] != 0 || shown[c]) && r->nb_drops < RXR_REPORT_DROPS_MAX)
			r->drops[r->nb_drops++] = (struct rxr_report_drop){
				drop_cause_names[c], n[c] };
	if (app->opt.zero_policies != 1u << RXR_ZERO_POLICY_NONE)
		fill_zeroing(app, r, rc, cycles, &sum, other_bytes,
			other_cycles);
}

/* Each port's xstats at the window's ends (v[0], v[1]: one allocation). */
static struct xstats {
	struct rte_eth_xstat_name *names;
	uint64_t *v[2];
	int n;
} xstats[MAX_PORTS];

static void
xstats_free(struct xstats *x)
{
	free(x->names);
	free(x->v[0]);
	memset(x, 0, sizeof(*x));
}

void
detail_sample(const struct app *a, bool first)
{
	for (unsigned int i = 0; i < a->nb_ports; i++) {
		struct xstats *x = &xstats[i];
		uint16_t port = a->ports[i].id;

		if (first) {
			int n = rte_eth_xstats_get_names(port, NULL, 0);

			xstats_free(x);
			if (n <= 0)
				continue;
			x->names = calloc(n, sizeof(*x->names));
			x->v[0] = calloc(2 * n, sizeof(*x->v[0]));
			if (x->names == NULL || x->v[0] == NULL ||
					rte_eth_xstats_get_names(port, x->names,
						n) != n)
				continue;
			x->v[1] = x->v[0] + n;
			x->n = n;
		}
		if (x->n > 0) {
			struct rte_eth_xstat xs[x->n];

			if (rte_eth_xstats_get(port, xs, x->n) != x->n) {
				x->n = 0;
				continue;
			}
			for (int j = 0; j < x->n; j++)
				if (xs[j].id < (uint64_t)x->n)
					x->v[!first][xs[j].id] = xs[j].value;
		}
	}
}

static json_t *
queues_json(const struct app *a, const struct snapshot *s0,
		const struct snapshot *s1)
{
	json_t *arr = json_array();

	for (unsigned int k = 0; arr != NULL && k < a->nb_pollers; k++) {
		const struct poller *pl = &a->pollers[k];

		for (unsigned int i = 0; i < pl->nb_q; i++) {
			const struct poll_queue *q = &pl->q[i];
			const struct rte_eth_stats *e0 = &s0->eth[q->port_idx];
			const struct rte_eth_stats *e1 = &s1->eth[q->port_idx];
			json_t *o = json_pack("{s:i, s:i, s:i, s:I, s:I}",
				"port", q->port, "queue", q->queue,
				"lcore", pl->lcore,
				"packets", (json_int_t)(s1->qpackets[k][i] -
					s0->qpackets[k][i]),
				"bytes", (json_int_t)(s1->qbytes[k][i] -
					s0->qbytes[k][i]));
			bool has_q = false;

			/* A PMD that keeps per-queue counters fills some. */
			for (unsigned int j = 0; j < RTE_ETHDEV_QUEUE_STAT_CNTRS; j++)
				has_q |= e1->q_ipackets[j] != 0;
			if (o != NULL && has_q &&
					q->queue < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
				unsigned int j = q->queue;

				json_object_set_new(o, "q_ipackets", json_integer(
					e1->q_ipackets[j] - e0->q_ipackets[j]));
				json_object_set_new(o, "q_ibytes", json_integer(
					e1->q_ibytes[j] - e0->q_ibytes[j]));
				json_object_set_new(o, "q_errors", json_integer(
					e1->q_errors[j] - e0->q_errors[j]));
			}
			json_array_append_new(arr, o);
		}
	}
	return arr;
}

static json_t *
lcores_json(const struct app *a, const struct snapshot *s0,
		const struct snapshot *s1, uint64_t cycles)
{
	json_t *arr = json_array();

	for (unsigned int k = 0; arr != NULL && k < a->nb_pollers; k++) {
		const struct poller *pl = &a->pollers[k];
		uint64_t busy = s1->lbusy[k] - s0->lbusy[k];

		json_array_append_new(arr, json_pack("{s:i, s:i, s:o, s:I, s:I, s:o}",
			"lcore", pl->lcore,
			"cpu", lcore_cpu(pl->lcore),
			"consumer_cpu", pl->consumer_cpu >= 0 ?
				json_integer(pl->consumer_cpu) : json_null(),
			"cycles", (json_int_t)cycles,
			"busy_cycles", (json_int_t)busy,
			"busy_share", cycles != 0 ? json_real(RTE_MIN(1.0,
				(double)busy / (double)cycles)) : json_null()));
	}
	return arr;
}

static json_t *
xstats_json(const struct app *a)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; arr != NULL && i < a->nb_ports; i++) {
		const struct xstats *x = &xstats[i];
		json_t *changed = json_object();

		for (int j = 0; changed != NULL && j < x->n; j++)
			if (x->v[1][j] != x->v[0][j])
				json_object_set_new(changed, x->names[j].name,
					json_integer((json_int_t)(x->v[1][j] -
						x->v[0][j])));
		json_array_append_new(arr, json_pack("{s:i, s:o}",
			"port", a->ports[i].id, "changed", changed));
	}
	return arr;
}

int
detail_attach(struct app *a, struct rxr_report *rep, const struct snapshot *s0,
		const struct snapshot *s1, uint64_t cycles)
{
	unsigned int idx = rxr_report_nb_runs(rep) - 1;

	if (env_link_commit(a, rep) != 0 ||
			rxr_report_run_set(rep, idx, "queues",
				queues_json(a, s0, s1)) != 0 ||
			rxr_report_run_set(rep, idx, "lcores",
				lcores_json(a, s0, s1, cycles)) != 0 ||
			rxr_report_run_set(rep, idx, "xstats",
				xstats_json(a)) != 0) {
		RXR_LOG(ERR, "report: per-queue statistics: out of "
			"memory");
		return -ENOMEM;
	}
	return 0;
}

void
detail_free(void)
{
	for (unsigned int i = 0; i < MAX_PORTS; i++)
		xstats_free(&xstats[i]);
}
