/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Live figures: the main lcore samples the counters every stats period
 * (live_tick(), cold path) and publishes them under a mutex; the
 * rte_telemetry commands /rxrefill/status and /rxrefill/stats read the
 * published copy from EAL's telemetry thread (never the pools, which the
 * main lcore swaps between runs), and --metrics-file writes the same
 * figures in Prometheus text format, atomically, at each sample.
 */

#include <math.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "rxrefill.h"
#include "rxr_path.h"
#include "rxr_log.h"

static const char *const phase_names[] = {
	[PHASE_STARTING] = "starting", [PHASE_WARMUP] = "warmup",
	[PHASE_MEASURING] = "measuring", [PHASE_TEARDOWN] = "teardown",
	[PHASE_DONE] = "done",
};

/* A pool's report groups since its creation (wait_share: the last
 * period's), shown as <group>_<field>. */
#define LIVE_GROUPS(X) \
	RXR_REPORT_PCP_FIELDS(X) \
	RXR_REPORT_ZONE_LOCK_FIELDS(X) \
	RXR_REPORT_DEFERRED_FIELDS(X)

struct live_pool {
	uint16_t port;
	struct rxr_report_pcp pcp;
	struct rxr_report_zone_lock zone_lock;
	struct rxr_report_deferred deferred;
	uint64_t counters[RXR_STRATEGY_COUNTERS_MAX];	/* the strategy's own */
};

/* What the telemetry thread and the metrics file see. */
struct live_view {
	enum live_phase phase;
	char strategy[16];
	char zeroing[32];			/* "alloc/nt", "none" */
	unsigned int nb_counters;		/* the strategy's own counters */
	const char * const *counter_names;
	bool bulk;
	unsigned int rep, reps, config, configs;
	uint64_t phase_tsc, start_tsc;	/* elapsed is computed when asked */
	double mpps, gbps;		/* over the last period */
	uint64_t rx_packets, rx_bytes;	/* since the run began */
	uint64_t drops[CAUSE_MAX];
	unsigned int nb_pools;
	struct live_pool pool[MAX_PORTS];
};

static struct {
	struct app *app;
	pthread_mutex_t lock;
	struct live_view view;		/* published, under lock */
	/* Main lcore only. */
	uint64_t last_tsc, period;
	uint64_t run_packets0, run_bytes0, last_packets, last_bytes;
	uint64_t drops0[CAUSE_MAX];
	uint64_t wait0[MAX_PORTS];
	const struct rte_mempool *mp0[MAX_PORTS];
	struct snapshot now;		/* over 1 MB: static */
	bool baseline;
	bool link_seen;		/* the ports' link read in this run */
	/* --metrics-file: writes that failed, said once per failing spell. */
	uint64_t metrics_writes, metrics_failed;
	bool metrics_failing;
} L = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* L.now taken, and the drops by cause since the start. */
static void
counters_now(uint64_t *drops)
{
	const struct port_counters zero = { 0 };

	snapshot_take(L.app, &L.now);
	memset(drops, 0, sizeof(uint64_t) * CAUSE_MAX);
	drops[CAUSE_CONSUMER_FULL] = L.now.consumer_full;
	for (unsigned int i = 0; i < L.app->nb_ports; i++)
		port_drops(drops, &L.app->ports[i], &zero, &L.now.port[i]);
}

/* Per pool, from L.now's pool counters (they start with the pool). */
static void
pools_now(struct live_view *v, double dt_cycles)
{
	struct app *a = L.app;

	v->nb_pools = 0;
	for (unsigned int i = 0; i < a->nb_ports; i++) {
		struct live_pool *lp = &v->pool[v->nb_pools];
		const struct rte_mempool *mp = a->ports[i].mp;
		const struct rxr_pool_stats *ps = &L.now.pool[i];
		struct rxr_pool_lcore_stats sum;

		if (mp == NULL)
			continue;
		memset(lp, 0, sizeof(*lp));
		lp->port = a->ports[i].id;
		memset(&sum, 0, sizeof(sum));
		for (unsigned int l = 0; l < ps->nr_lcores; l++)
			rxr_pool_lcore_stats_add(&sum, NULL, &ps->lcore[l]);
		/* As the report counts them (fill_run()); 0 for none yet. */
		fill_pool_groups(&lp->pcp, &lp->zone_lock, NULL, ps);
		lp->pcp.hit_rate = rxr_report_pcp_hit_rate(&lp->pcp);
		if (isnan(lp->pcp.hit_rate))
			lp->pcp.hit_rate = 0;
		lp->deferred.drained = sum.deferred_drained;
		lp->deferred.queued = sum.deferred_queued;
		memcpy(lp->counters, sum.counters, sizeof(lp->counters));
		/* A new pool (next run) starts its own wait count. */
		if (L.mp0[i] == mp && L.baseline && dt_cycles > 0)
			lp->zone_lock.wait_share = (double)(
				lp->zone_lock.wait_cycles - L.wait0[i]) /
				(dt_cycles * RTE_MAX(1u, a->nb_pollers));
		L.mp0[i] = mp;
		L.wait0[i] = lp->zone_lock.wait_cycles;
		v->nb_pools++;
	}
}

static int metrics_write(const struct live_view *v);

static void
view_get(struct live_view *v)
{
	pthread_mutex_lock(&L.lock);
	*v = L.view;
	pthread_mutex_unlock(&L.lock);
}

static void
sample(void)
{
	uint64_t now = rte_get_tsc_cycles(), packets, bytes, drops[CAUSE_MAX];
	double hz = (double)rte_get_tsc_hz(), dt = (double)(now - L.last_tsc);
	struct live_view v;

	view_get(&v);
	counters_now(drops);
	packets = L.now.packets;
	bytes = L.now.bytes;
	if (L.baseline && dt > 0) {
		v.mpps = (double)(packets - L.last_packets) / (dt / hz) / 1e6;
		v.gbps = (double)(bytes - L.last_bytes) * 8 / (dt / hz) / 1e9;
	} else {
		v.mpps = v.gbps = 0;
	}
	v.rx_packets = packets - L.run_packets0;
	v.rx_bytes = bytes - L.run_bytes0;
	for (int d = 0; d < CAUSE_MAX; d++)
		v.drops[d] = drops[d] - L.drops0[d];
	pools_now(&v, L.baseline ? dt : 0);
	L.last_tsc = now;
	L.last_packets = packets;
	L.last_bytes = bytes;
	L.baseline = true;
	pthread_mutex_lock(&L.lock);
	L.view = v;
	pthread_mutex_unlock(&L.lock);
	if (L.app->opt.metrics_path != NULL)
		metrics_write(&v);
}

void
live_tick(void)
{
	/* Once per run, as soon as the ports receive (finite runs are short). */
	if (!L.link_seen && L.view.phase == PHASE_MEASURING) {
		env_link_sample(L.app);
		L.link_seen = true;
	}
	if (rte_get_tsc_cycles() - L.last_tsc < L.period)
		return;
	sample();
}

/* A run warms up: counters from here, rates from the next tick. */
void
live_run(const struct run_config *rc, unsigned int rep)
{
	counters_now(L.drops0);
	L.run_packets0 = L.now.packets;
	L.run_bytes0 = L.now.bytes;
	L.baseline = false;
	L.link_seen = false;
	pthread_mutex_lock(&L.lock);
	snprintf(L.view.strategy, sizeof(L.view.strategy), "%s",
		rxr_strategy_name(rc->strategy));
	L.view.nb_counters = rxr_strategy_counters(rc->strategy,
		&L.view.counter_names);
	L.view.bulk = rc->bulk;
	snprintf(L.view.zeroing, sizeof(L.view.zeroing), "%s%s%s",
		rxr_zero_policy_name(rc->zero_policy),
		rc->zero_policy != RXR_ZERO_POLICY_NONE ? "/" : "",
		rc->zero_policy != RXR_ZERO_POLICY_NONE ?
		rxr_zero_method_name(rc->zero_method) : "");
	L.view.rep = rep + 1;
	L.view.config = (unsigned int)(rc - L.app->opt.configs) + 1;
	pthread_mutex_unlock(&L.lock);
	live_phase(PHASE_WARMUP);
}

void
live_phase(enum live_phase ph)
{
	uint64_t now = rte_get_tsc_cycles();

	pthread_mutex_lock(&L.lock);
	L.view.phase = ph;
	L.view.phase_tsc = now;
	pthread_mutex_unlock(&L.lock);
	sample();
}

/* --- rte_telemetry ---------------------------------------------------- */

/* 22.11's telemetry values have no floating type: rates as text. */
static void
add_real(struct rte_tel_data *d, const char *name, double x, int prec)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.*f", prec, x);
	rte_tel_data_add_dict_string(d, name, buf);
}

static int
tel_status(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct live_view v;
	uint64_t now = rte_get_tsc_cycles();
	double hz = (double)rte_get_tsc_hz();

	view_get(&v);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "phase", phase_names[v.phase]);
	rte_tel_data_add_dict_string(d, "strategy", v.strategy);
	rte_tel_data_add_dict_string(d, "bulk", v.bulk ? "on" : "off");
	rte_tel_data_add_dict_string(d, "zeroing", v.zeroing);
	rte_tel_data_add_dict_int(d, "repetition", (int)v.rep);
	rte_tel_data_add_dict_int(d, "repetitions", (int)v.reps);
	rte_tel_data_add_dict_int(d, "configuration", (int)v.config);
	rte_tel_data_add_dict_int(d, "configurations", (int)v.configs);
	add_real(d, "elapsed_s", (double)(now - v.phase_tsc) / hz, 3);
	add_real(d, "uptime_s", (double)(now - v.start_tsc) / hz, 3);
	return 0;
}

static int
tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct live_view v;
	struct rte_tel_data *drops;

	view_get(&v);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "phase", phase_names[v.phase]);
	add_real(d, "mpps", v.mpps, 4);
	add_real(d, "gbps", v.gbps, 4);
	rte_tel_data_add_dict_u64(d, "rx_packets", v.rx_packets);
	rte_tel_data_add_dict_u64(d, "rx_bytes", v.rx_bytes);
	drops = rte_tel_data_alloc();
	if (drops != NULL) {
		rte_tel_data_start_dict(drops);
		for (int k = 0; k < CAUSE_MAX; k++)
			if (drop_cause_live[k])
				rte_tel_data_add_dict_u64(drops,
					drop_cause_names[k], v.drops[k]);
		rte_tel_data_add_dict_container(d, "drops", drops, 0);
	}
	/* One container per pool: containers do not nest deeper. */
	for (unsigned int i = 0; i < v.nb_pools; i++) {
		const struct live_pool *p = &v.pool[i];
		struct rte_tel_data *pd = rte_tel_data_alloc();
		char name[64];

		if (pd == NULL)
			break;
		rte_tel_data_start_dict(pd);
#define TEL_COUNT(name, v) rte_tel_data_add_dict_u64(pd, name, v)
#define TEL_NUMBER(name, v) add_real(pd, name, v, 6)
#define TEL_STRING(name, v) rte_tel_data_add_dict_string(pd, name, v)
#define TEL_FIELD(g, f, t, row, prec, help) TEL_##t(#g "_" #f, p->g.f);
		LIVE_GROUPS(TEL_FIELD)
#undef TEL_FIELD
#undef TEL_STRING
#undef TEL_NUMBER
#undef TEL_COUNT
		/* The strategy's own, under its name: "<strategy>_<counter>". */
		for (unsigned int k = 0; k < v.nb_counters; k++) {
			snprintf(name, sizeof(name), "%s_%s", v.strategy,
				v.counter_names[k]);
			rte_tel_data_add_dict_u64(pd, name, p->counters[k]);
		}
		snprintf(name, sizeof(name), "pool_port%u", p->port);
		rte_tel_data_add_dict_container(d, name, pd, 0);
	}
	return 0;
}

/* --- Prometheus text format -------------------------------------------- */

/* Every metric of the live_view at arg, each sample with the run's labels. */
static int
metrics_print(FILE *f, const void *arg)
{
	const struct live_view *v = arg;
	char labels[128];

	snprintf(labels, sizeof(labels), "strategy=\"%s\",bulk=\"%s\","
		"zeroing=\"%s\"", v->strategy, v->bulk ? "on" : "off",
		v->zeroing);
	fprintf(f, "# HELP rxrefill_phase Current phase (1 for the phase).\n"
		"# TYPE rxrefill_phase gauge\n");
	/* Every sample carries the run's labels, the phase too. */
	for (int p = 0; p <= PHASE_DONE; p++)
		fprintf(f, "rxrefill_phase{%s,phase=\"%s\"} %d\n", labels,
			phase_names[p], p == (int)v->phase);
#define RUN_METRIC(name, type, help, fmt, val) fprintf(f, "# HELP rxrefill_" \
	name " " help "\n# TYPE rxrefill_" name " " type "\nrxrefill_" name \
	"{%s} " fmt "\n", labels, val)
	RUN_METRIC("repetition", "gauge", "Repetition of the current "
		"configuration, from 1.", "%u", v->rep);
	RUN_METRIC("mpps", "gauge", "Received packets per second over the "
		"last stats period, millions.", "%.6f", v->mpps);
	RUN_METRIC("gbps", "gauge", "Received Gbit/s over the last stats "
		"period.", "%.6f", v->gbps);
	RUN_METRIC("rx_packets_total", "counter", "Packets received in the "
		"current run.", "%" PRIu64, v->rx_packets);
	RUN_METRIC("rx_bytes_total", "counter", "Bytes received in the "
		"current run.", "%" PRIu64, v->rx_bytes);
#undef RUN_METRIC
	fprintf(f, "# HELP rxrefill_drops_total Packets dropped in the current "
		"run, by cause.\n# TYPE rxrefill_drops_total counter\n");
	for (int d = 0; d < CAUSE_MAX; d++)
		if (drop_cause_live[d])
			fprintf(f, "rxrefill_drops_total{%s,cause=\"%s\"} %"
				PRIu64 "\n", labels, drop_cause_names[d],
				v->drops[d]);
#define POOL_METRIC(name, type, help, fmt, field) do { \
	fprintf(f, "# HELP rxrefill_" name " " help "\n" \
		"# TYPE rxrefill_" name " " type "\n"); \
	for (unsigned int i = 0; i < v->nb_pools; i++) \
		fprintf(f, "rxrefill_" name "{%s,port=\"%u\"} " fmt "\n", \
			labels, v->pool[i].port, v->pool[i].field); \
} while (0)
	/* Counts as <group>_<field>_total counters, figures as gauges. */
#define METRIC_COUNT(g, f, help) POOL_METRIC(#g "_" #f "_total", "counter", \
	help ".", "%" PRIu64, g.f);
#define METRIC_NUMBER(g, f, help) POOL_METRIC(#g "_" #f, "gauge", \
	help ".", "%.6f", g.f);
#define METRIC(g, f, t, row, prec, help) METRIC_##t(g, f, help)
	LIVE_GROUPS(METRIC)
#undef METRIC
#undef METRIC_NUMBER
#undef METRIC_COUNT
#undef POOL_METRIC
	fprintf(f, "# HELP rxrefill_strategy_total The running strategy's own "
		"counters.\n# TYPE rxrefill_strategy_total counter\n");
	for (unsigned int i = 0; i < v->nb_pools; i++)
		for (unsigned int k = 0; k < v->nb_counters; k++)
			fprintf(f, "rxrefill_strategy_total{%s,port=\"%u\","
				"counter=\"%s\"} %" PRIu64 "\n", labels,
				v->pool[i].port, v->counter_names[k],
				v->pool[i].counters[k]);
	return 0;
}

/* The metrics file, replaced atomically; a failure is said when writes
 * start failing, not every period, and tried again the next. */
static int
metrics_write(const struct live_view *v)
{
	const char *path = L.app->opt.metrics_path, *step;
	int ret;

	L.metrics_writes++;
	ret = rxr_path_write_atomic(path, "", 0644, false, metrics_print, v,
		&step);
	if (ret == 0 && L.metrics_failing)
		RXR_LOG(NOTICE, "--metrics-file %s: written again", path);
	else if (ret != 0 && !L.metrics_failing)
		RXR_LOG(ERR, "--metrics-file %s: %s%s", path, strerror(-ret),
			L.metrics_writes > 1 ? "; tried again every period" :
			"");
	L.metrics_failing = ret != 0;
	L.metrics_failed += ret != 0;
	return ret;
}

int
live_init(struct app *a)
{
	double period = a->opt.stats_period_s > 0 ? a->opt.stats_period_s : 1;

	L.app = a;
	L.last_tsc = rte_get_tsc_cycles();
	L.period = (uint64_t)(period * rte_get_tsc_hz());
	L.view.reps = a->opt.reps;
	L.view.start_tsc = L.view.phase_tsc = L.last_tsc;
	L.view.configs = a->opt.nb_configs;
	/* EAL without telemetry (--no-telemetry): these just go unanswered. */
	if (rte_telemetry_register_cmd("/rxrefill/status", tel_status,
			"Phase, strategy, bulk, zeroing, repetition, elapsed seconds. "
			"No parameters") != 0 ||
			rte_telemetry_register_cmd("/rxrefill/stats", tel_stats,
			"Live Mpps, Gbit/s, drops by cause, per pool pcp, zone "
			"lock, deferred and the strategy's own counters. No parameters") != 0)
		RXR_LOG(WARNING, "warning: telemetry commands not "
			"registered");
	else
		RXR_LOG(DEBUG, "telemetry: /rxrefill/status and /rxrefill/stats "
			"registered, sampled every %.3f s", period);
	if (a->opt.metrics_path != NULL && metrics_write(&L.view) != 0)
		return -1;
	return 0;
}

int
live_fini(void)
{
	int ret = 0;

	live_phase(PHASE_DONE);
	if (L.metrics_failed != 0) {
		RXR_LOG(ERR, "--metrics-file %s: %" PRIu64 " of %" PRIu64
			" writes failed%s", L.app->opt.metrics_path,
			L.metrics_failed, L.metrics_writes, L.metrics_failing ?
			", the last one too" : "");
		ret = -1;
	}
	return ret;
}
