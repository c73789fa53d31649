/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxrefill: the same traffic, once per refill strategy, side by side.
 *
 * EAL options, then "--", then ours (--help). Worker lcores poll; the main
 * lcore prints progress and writes the report.
 */

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_version.h>

#include "rxrefill.h"
#include "rxr_opt.h"
#include "rxr_path.h"
#include "rxr_version.h"
#include "rxr_log.h"
#include "rxr_stats.h"

#include <jansson.h>

static struct app app;
/* The main lcore's poller with --main-polls, else NULL (app_setup()). */
static struct poller *main_poller;

/* Deferred counting: the main lcore counts a batch of each log at a time,
 * and sleeps unless one was waiting (right behind its writer, it would
 * pull the lines from under the poll lcore; a log outlasts the sleep). */
#define COLLECT_BATCH 4096
#define COLLECT_IDLE_US 100

#define US_PER_S 1000000

/* How often the main lcore checks a run's end: sleeping through a timed
 * run, through a finite one, polling. */
#define NAP_STEP_US 10000
#define DONE_CHECK_US 200
#define DONE_CHECK_POLLING_US 100

/* A replay loop that delivers nothing new for this long has stalled. */
#define REPLAY_STALL_S 3
/* How often a run looks for a change of a capture replayed as it is. */
#define CHANGE_CHECK_US 10000

/*
 * The finite ports of a run (net_pcap replaying its files once per
 * start): what each must deliver or drop with a cause (expected and any:
 * set up once), a stall, a capture that changed, and when they ran out.
 */
static struct {
	struct port_counters base[MAX_PORTS];
	uint64_t expected[MAX_PORTS];
	uint64_t total, missing;	/* delivered, and not yet (finite) */
	uint64_t last_total, stall_since, next_change_check;
	uint64_t ran_out_tsc;		/* 0: not yet */
	bool any, stalled, changed;
} fin;

/* A run's measured window, and what it received after it (before it:
 * snap_begin.packets, the run's counters being zero at its start). */
static struct window {
	uint64_t cycles;		/* TSC cycles measured */
	uint64_t after;
	uint64_t unaccounted;		/* what a stall left out */
	double ran_out_s;		/* into the window; NAN: did not */
	bool stopped;			/* by a signal while measuring */
} win;

/* The counters at the last progress line and at the window's ends
 * (static: over 1 MB each). */
static struct snapshot snap_prev, snap_begin, snap_end;

/* Before the ports start: the counters every finite port starts from. */
static void
fin_start(void)
{
	fin.last_total = UINT64_MAX;
	fin.stall_since = rte_get_timer_cycles();
	fin.stalled = false;
	fin.ran_out_tsc = 0;
	for (unsigned int i = 0; i < app.nb_ports; i++)
		port_counters_read(&app.ports[i], &fin.base[i]);
}

/* A capture replayed as it is changed (said): the run stops at once. */
static bool
fin_changed(void)
{
	uint64_t now = rte_get_timer_cycles();

	if (!fin.changed && now >= fin.next_change_check) {
		fin.next_change_check = now + rte_get_timer_hz() /
			(US_PER_S / CHANGE_CHECK_US);
		fin.changed = replay_changed(&app);
	}
	return fin.changed;
}

/* Every finite port delivered or dropped its files' packets (the time
 * kept when first seen); fin.total and fin.missing updated. */
static bool
fin_ran_out(void)
{
	fin.total = fin.missing = 0;
	for (unsigned int i = 0; i < app.nb_ports; i++) {
		const struct port_counters *b = &fin.base[i];
		struct port_counters c;
		uint64_t got;

		port_counters_read(&app.ports[i], &c);
		got = (c.ipackets - b->ipackets) + (c.rx_nombuf - b->rx_nombuf) +
			(c.ierrors - b->ierrors) + (c.imissed - b->imissed);
		fin.total += got;
		if (app.ports[i].finite)
			fin.missing += fin.expected[i] -
				RTE_MIN(fin.expected[i], got);
	}
	if (fin.missing == 0 && fin.ran_out_tsc == 0)
		fin.ran_out_tsc = rte_rdtsc();
	return fin.missing == 0;
}

/* The rates since snap_prev, then snap_prev = now. */
static void
progress(const char *tag)
{
	static struct snapshot now;
	const struct snapshot *prev = &snap_prev;
	double dt;

	snapshot_take(&app, &now);
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
	snap_prev = now;
}

/* The worker pollers launched, or stopped and waited for; the main
 * lcore's polls in run_until(). */
static void
pollers_launch(bool launch)
{
	flag_set(&run_stop, !launch);
	for (unsigned int k = 0; k < app.nb_pollers; k++) {
		if (&app.pollers[k] == main_poller)
			continue;
		if (launch)
			rte_eal_remote_launch(poll_main, &app.pollers[k],
					app.pollers[k].lcore);
		else
			rte_eal_wait_lcore(app.pollers[k].lcore);
	}
}

/*
 * Until done(now) says so: the main lcore polls, checking done from its
 * poll loop every DONE_CHECK_POLLING_US (--main-polls), or sleeps idle_us
 * between checks.
 */
static void
run_until(bool (*done)(uint64_t now), double idle_us)
{
	const bool collect = app.streams_deferred;

	if (main_poller == NULL) {
		while (!done(rte_rdtsc()))
			if (!collect || streams_drain(&app, COLLECT_BATCH) <
					COLLECT_BATCH)
				rte_delay_us_sleep(collect ? COLLECT_IDLE_US :
					idle_us);
		return;
	}
	main_poller->control = done;
	poll_main(main_poller);
	main_poller->control = NULL;
}

/* Every packet of the loop received or dropped with a cause, or a stall. */
static bool
finite_done(uint64_t now __rte_unused)
{
	live_tick();
	if (flag_get(&force_quit) || fin_changed() || fin_ran_out())
		return true;
	if (fin.total != fin.last_total) {
		fin.last_total = fin.total;
		fin.stall_since = rte_get_timer_cycles();
		return false;
	}
	if (rte_get_timer_cycles() - fin.stall_since <=
			REPLAY_STALL_S * rte_get_timer_hz())
		return false;
	fin.stalled = true;
	return true;
}

/* Packets the poll lcores received in the run so far. */
static uint64_t
received(void)
{
	uint64_t n = 0;

	for (unsigned int k = 0; k < app.nb_pollers; k++)
		for (unsigned int i = 0; i < app.pollers[k].nb_q; i++)
			n += RXR_STAT_READ(app.pollers[k].q[i].packets);
	return n;
}

/* The measured window opens: noise, counters and detail sampled. */
static void
window_begin(void)
{
	noise_begin(&app);
	snapshot_take(&app, &snap_begin);
	streams_settle(&app, true);
	detail_sample(&app, true);
	live_phase(PHASE_MEASURING);
}

/* The measured window closes, in the reverse order. */
static void
window_end(void)
{
	snapshot_take(&app, &snap_end);
	detail_sample(&app, false);
	noise_end(&app);
}

/* Finite replay, measured whole: each loop starts the ports (net_pcap
 * reopens its files) and stops them when all ran out; a stall or a changed
 * capture ends the run, what never showed up is win.unaccounted. */
static int
run_finite(void)
{
	window_begin();
	for (unsigned int loop = 0; loop < app.opt.loops &&
			!flag_get(&force_quit) && !fin.changed; loop++) {
		uint64_t t0;

		fin_start();
		if (fin_changed() || ports_start(&app) != 0) {
			win.cycles = 0;
			break;
		}
		t0 = rte_rdtsc();
		pollers_launch(true);
		if (main_poller != NULL)
			noise_loop_begin();
		run_until(finite_done, DONE_CHECK_US);
		if (main_poller != NULL)
			noise_loop_end();
		pollers_launch(false);
		win.cycles += rte_rdtsc() - t0;
		/* Counted once the poll lcores are done: a burst they were
		 * still receiving at the stall is received, not missing. */
		win.unaccounted = fin.stalled && !fin_ran_out() ? fin.missing : 0;
		ports_stop(&app);
		if (win.unaccounted != 0)
			break;
	}
	window_end();
	return 0;
}

/* --exhaust AT:SEC: a thread takes every free frame of every pool for SEC
 * seconds, AT seconds into the run; the run must recover, losing none. */
struct exhaust {
	pthread_t thread;
	atomic_bool quit;
	bool running;
	uint64_t held_max;
	uint64_t rx_at_release;		/* packets received when they came back */
};

/* How often the thread looks at the clock before AT, and retakes after. */
#define EXHAUST_WAIT_US 500
#define EXHAUST_RETAKE_US 200

static void *
exhaust_main(void *arg)
{
	struct exhaust *ex = arg;
	uint64_t hz = rte_get_timer_hz(), t0 = rte_get_timer_cycles();
	uint64_t at = t0 + (uint64_t)(app.opt.exhaust_at_s * hz);
	uint64_t until = at + (uint64_t)(app.opt.exhaust_for_s * hz);
	void **held[MAX_PORTS] = { NULL };
	uint64_t n[MAX_PORTS] = { 0 };

	while (!flag_get(&ex->quit) && rte_get_timer_cycles() < at)
		usleep(EXHAUST_WAIT_US);
	while (!flag_get(&ex->quit) && rte_get_timer_cycles() < until) {
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
		usleep(EXHAUST_RETAKE_US);
	}
	for (unsigned int i = 0; i < app.nb_ports; i++) {
		if (n[i] != 0)
			rte_mempool_put_bulk(app.ports[i].mp, held[i], n[i]);
		free(held[i]);
	}
	ex->rx_at_release = received();
	return NULL;
}

/* A duration-based run as the main lcore checks it: the window opens after
 * the warm-up and closes after the duration, a progress line a period. */
static struct timed {
	uint64_t warm_end, end, period, next;
	const char *tag;
	enum { TIM_WARMUP, TIM_MEASURING, TIM_CLOSED } state;
} tim;

static void
timed_open(void)
{
	window_begin();
	tim.end = snap_begin.tsc + (uint64_t)(app.opt.duration_s *
		rte_get_tsc_hz());
	tim.next = snap_begin.tsc + tim.period;
	if (tim.period != 0)
		snap_prev = snap_begin;
	tim.state = TIM_MEASURING;
}

static bool
timed_done(uint64_t now)
{
	live_tick();
	if (fin.any)
		fin_ran_out();
	if (flag_get(&force_quit) || fin_changed())
		return true;
	if (tim.state == TIM_WARMUP) {
		if (now >= tim.warm_end)
			timed_open();
		return false;
	}
	if (tim.period != 0 && (now >= tim.next || now >= tim.end)) {
		progress(tim.tag);
		tim.next += tim.period;
	}
	if (now < tim.end)
		return false;
	window_end();
	tim.state = TIM_CLOSED;
	return true;
}

/* Duration based: warm up, then measure between snap_begin and snap_end;
 * finite ports deliver the rest of their files after it (win.after). */
static int
run_timed(const char *tag)
{
	fin_start();
	if (ports_start(&app) != 0)
		return -1;
	/* --progress rounds: a line per round, none while measuring. */
	tim = (struct timed){ .tag = tag,
		.period = main_poller == NULL && app.opt.stats_period_s > 0 &&
			app.opt.progress == PROGRESS_RUNS ?
			(uint64_t)(app.opt.stats_period_s * rte_get_tsc_hz()) : 0 };
	/* Without a warm-up the window opens before anything is received. */
	if (app.opt.warmup_s <= 0)
		timed_open();
	pollers_launch(true);
	tim.warm_end = rte_rdtsc() + (uint64_t)(app.opt.warmup_s *
		rte_get_tsc_hz());
	run_until(timed_done, NAP_STEP_US);
	/* Stopped, or a capture changed: the window closes here. */
	if (tim.state == TIM_WARMUP)
		window_begin();
	else if (tim.state == TIM_MEASURING && tim.period != 0)
		progress(tag);
	if (tim.state != TIM_CLOSED)
		window_end();
	win.cycles = snap_end.tsc - snap_begin.tsc;
	if (fin.any && !flag_get(&force_quit) && !fin.changed &&
			!fin_ran_out())
		run_until(finite_done, DONE_CHECK_US);
	pollers_launch(false);
	win.unaccounted = fin.stalled && !fin_ran_out() ? fin.missing : 0;
	win.after = received() - snap_end.packets;
	if (fin.ran_out_tsc != 0 && fin.ran_out_tsc < snap_end.tsc)
		win.ran_out_s = fin.ran_out_tsc <= snap_begin.tsc ? 0 :
			(double)(fin.ran_out_tsc - snap_begin.tsc) /
			rte_get_tsc_hz();
	ports_stop(&app);
	return 0;
}

/* One run on the pool in place, into win and the snapshots; teardown is
 * one path, in the reverse order of the set-up, whatever failed. */
static int
run_measure(const char *tag)
{
	struct exhaust ex = { 0 };
	bool zeroer = false;
	int ret = -1;

	win = (struct window){ .ran_out_s = NAN };
	fin.changed = false;
	if (consumers_start(&app) != 0)
		goto teardown;
	zeroer = zeroer_start(&app) == 0;
	if (!zeroer)
		goto teardown;
	if (app.opt.exhaust_for_s > 0) {
		if (pthread_create(&ex.thread, NULL, exhaust_main, &ex) != 0)
			goto teardown;
		ex.running = true;
	}
	noise_run_start();
	if (app.opt.progress == PROGRESS_RUNS)
		printf("%s %s\n", tag, app.opt.loops ? "replaying" : "warming up");
	ret = app.opt.loops != 0 ? run_finite() : run_timed(tag);
	/* A signal during the teardown below leaves the run whole. */
	win.stopped = flag_get(&force_quit);
teardown:
	live_phase(PHASE_TEARDOWN);
	if (ex.running) {
		flag_set(&ex.quit, true);
		pthread_join(ex.thread, NULL);
		if (ret == 0)
			printf("%s exhaust: held up to %" PRIu64 " frames; %" PRIu64
				" packets received after they came back\n", tag,
				ex.held_max, snap_end.packets -
				RTE_MIN(snap_end.packets, ex.rx_at_release));
	}
	if (zeroer)
		zeroer_stop(&app);
	consumers_stop(&app);
	streams_settle(&app, false);
	return ret;
}

/* Shorter, a repetition's timer ticks and first bursts weigh too much. */
#define RUN_TOO_SHORT_S 0.1

/* The Gbit/s of the current round's runs, for --progress rounds. */
static struct {
	double min, max;
	unsigned int runs;
} round_gbps;

/* The result line of a run; one that is cut short or too short says so. */
static void
run_say(const char *tag, const struct rxr_report_run *r)
{
	double mpps = r->duration_s > 0 ? r->rx_packets / r->duration_s / 1e6 : 0;
	double gbps = r->duration_s > 0 ?
		r->rx_bytes * 8.0 / r->duration_s / 1e9 : 0;
	char line[320];

	if (r->cut_short != NULL) {
		snprintf(line, sizeof(line), "%s cut short (%s) after %.2f s, %"
			PRIu64 " packets: not counted", tag, r->cut_short,
			r->duration_s, r->rx_packets);
		say_wrapped("warning: ", line);
		return;
	}
	if (r->duration_s < RUN_TOO_SHORT_S) {
		snprintf(line, sizeof(line), "%s %.3f Mpps %.3f Gbit/s over only "
			"%.3f s, %" PRIu64 " packets: too short to trust (%s)",
			tag, mpps, gbps, r->duration_s, r->rx_packets,
			app.opt.loops ? "more --loops" : "a longer --duration");
		say_wrapped("warning: ", line);
	} else if (app.opt.progress == PROGRESS_RUNS) {
		printf("%s %.3f Mpps %.3f Gbit/s over %.2f s, %" PRIu64
			" packets\n", tag, mpps, gbps, r->duration_s,
			r->rx_packets);
	}
	round_gbps.min = round_gbps.runs ? RTE_MIN(round_gbps.min, gbps) : gbps;
	round_gbps.max = round_gbps.runs ? RTE_MAX(round_gbps.max, gbps) : gbps;
	round_gbps.runs++;
}

/* Why a run not stopped is not whole (said), NULL: whole; a capture that
 * ran out inside the window is said too. */
static const char *
run_incomplete(const char *tag, const struct rxr_report_run *r)
{
	if (win.unaccounted != 0) {
		RXR_LOG(ERR, "%s: replay stalled for %u s with %" PRIu64
			" packets unaccounted", tag, REPLAY_STALL_S,
			win.unaccounted);
		return "replay stalled";
	}
	/* A capture always has packets: none in the window is a failure;
	 * a port with no traffic sent to it may be what is measured. */
	if (r->rx_packets == 0 && replay_ports(&app)) {
		RXR_LOG(ERR, "%s: no packet of the captures received in the "
			"measured window%s", tag, !isnan(win.ran_out_s) ?
			": all were received before it opened (--warmup 0, or "
			"infinite_rx=1, keeps them in)" : "");
		return "nothing received";
	}
	if (r->rx_packets == 0)
		printf("warning: %s no packet received in the measured window: "
			"is traffic sent to the ports?\n", tag);
	if (!isnan(win.ran_out_s))
		printf("warning: %s the capture ran out %.3f s into the %.3f s "
			"window: the rates are of that part of it\n", tag,
			win.ran_out_s, r->duration_s);
	return NULL;
}

/* Run step of the schedule and add it to the report. */
static int
run_one(unsigned int step, struct rxr_report *report)
{
	unsigned int cfg, rep;
	const struct run_config *rc;
	struct rxr_report_run r = { 0 };
	char tag[96], zero[48] = "", err[RXR_REPORT_ERR_LEN];
	unsigned int idx;
	int ret = -1;

	rxr_report_schedule(step, app.opt.nb_configs, &cfg, &rep);
	rc = &app.opt.configs[cfg];
	/* "[<strategy> bulk on rep 2/3]", "[... rep 2, up to 8]". */
	if (app.opt.nb_zeroings > 1)
		snprintf(zero, sizeof(zero), " zero=%s/%s",
			rxr_zero_policy_name(rc->zero_policy),
			rxr_zero_method_name(rc->zero_method));
	snprintf(tag, sizeof(tag), "[%s bulk %s%s rep %u%s%u]",
		rxr_strategy_name(rc->strategy), rc->bulk ? "on" : "off", zero,
		rep + 1, app.opt.reps_auto ? ", up to " : "/", app.opt.reps);

	/* The run's pool in place, the previous one retired (its frames
	 * must all be home). */
	ports_stop(&app);
	if (ports_use_pool(&app, cfg) != 0)
		return -1;
	if (ports_retire_pools(&app, &app.lost_frames) != 0)
		RXR_LOG(ERR, "frames were lost in the previous run");
	for (unsigned int k = 0; k < app.nb_pollers; k++)
		poller_reset(&app.pollers[k]);
	live_run(rc, rep);	/* the warm-up phase */
	if (run_measure(tag) != 0)
		return -1;
	r.rep = rep;
	fill_run(&app, &r, rc, &snap_begin, &snap_end, win.cycles,
		win.unaccounted);
	/* A capture that changed ends the run wherever it was. */
	r.cut_short = fin.changed ? "capture changed" :
		run_cut_short(win.stopped, win.cycles) ?: run_incomplete(tag,
		&r);
	run_say(tag, &r);
	if (app.opt.consumer != CONSUMER_NONE && streams_collect(&app, &r) == 0)
		streams_untracked(&app, &r, tag);
	noise_fill(&app, &r, tag);
	if (rxr_report_add_run(report, &r, err, sizeof(err)) != 0) {
		RXR_LOG(ERR, "%s", err);
		goto out;
	}
	/* The run's packets outside its window, and when a capture ran
	 * out. */
	idx = rxr_report_nb_runs(report) - 1;
	if (detail_attach(&app, report, &snap_begin, &snap_end,
				win.cycles) != 0 ||
			rxr_report_run_set(report, idx, "outside_window",
				json_pack("{s:I, s:I}",
				"before", (json_int_t)snap_begin.packets,
				"after", (json_int_t)win.after)) != 0 ||
			(!isnan(win.ran_out_s) && rxr_report_run_set(report,
				idx, "replay_ran_out_s",
				json_real(win.ran_out_s)) != 0))
		goto out;
	ret = fin.changed ? -1 : r.cut_short != NULL && !win.stopped ? 1 : 0;
out:
	free((void *)(uintptr_t)r.streams);
	return ret;
}

static int
report_env(struct rxr_report *rep)
{
	struct rxr_report_port ports[MAX_PORTS];
	unsigned int lcores[RTE_MAX_LCORE], lc;
	char err[RXR_REPORT_ERR_LEN], buf[256];
	const struct options *o = &app.opt;
	struct rxr_report_env env = {
		.dpdk_version = rte_version(),
		.no_huge = app.backing == RXR_MEM_NO_HUGE,
		.argc = app.argc, .argv = app.argv,
		.lcores = lcores, .ports = ports, .nb_ports = app.nb_ports,
	};
	size_t off = 0;

	RTE_LCORE_FOREACH(lc)
		lcores[env.nb_lcores++] = lc;
	for (unsigned int i = 0; i < app.nb_ports; i++)
		ports[i] = (struct rxr_report_port){ app.ports[i].id,
			app.ports[i].driver, app.ports[i].name };
	if (rxr_report_set_env(rep, &env, err, sizeof(err)) != 0) {
		RXR_LOG(ERR, "report: %s", err);
		return -1;
	}
	if (env_collect(&app, rep) != 0 || noise_env(&app, rep) != 0 ||
			(app.captures != NULL && rxr_report_env_set(rep,
				"captures", json_incref(app.captures)) != 0))
		return -1;
	for (unsigned int i = 0; i < o->nb_configs && off < sizeof(buf);
			i += o->nb_zeroings)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%s-%s",
			i ? "," : "", rxr_strategy_name(o->configs[i].strategy),
			o->configs[i].bulk ? "bulk" : "nobulk");
	rxr_report_set_option_str(rep, "strategies", buf);
	if (o->reps_auto) {
		snprintf(buf, sizeof(buf), "auto:%u", o->reps);
		rxr_report_set_option_str(rep, "reps", buf);
	} else {
		rxr_report_set_option_int(rep, "reps", o->reps);
	}
	rxr_report_set_option_bool(rep, "main_polls", o->main_polls);
	rxr_report_set_option_int(rep, "latency_every",
		o->latency ? o->latency_every : 0);
	if (o->test_refill_delay != 0)
		rxr_report_set_option_int(rep, "test_refill_delay",
			o->test_refill_delay);
	if (o->test_refill_delay != 0 && o->test_refill_delay_config != NULL)
		rxr_report_set_option_str(rep, "test_refill_delay_config",
			o->test_refill_delay_config);
	rxr_report_set_option_double(rep, "warmup_s", o->warmup_s);
	rxr_report_set_option_double(rep, "duration_s", o->loops ? 0 : o->duration_s);
	rxr_report_set_option_int(rep, "loops", o->loops);
	rxr_report_set_option_int(rep, "burst", o->burst);
	rxr_report_set_option_int(rep, "rxd", o->rxd);
	rxr_report_set_option_int(rep, "pcp_high", o->high ? o->high : RXR_PCP_HIGH_DEFAULT);
	rxr_report_set_option_int(rep, "pcp_batch", o->batch ? o->batch : RXR_PCP_BATCH_DEFAULT);
	if (opts_settings_str(o, buf, sizeof(buf)) != 0)
		rxr_report_set_option_str(rep, "strategy_settings", buf);
	rxr_report_set_option_int(rep, "frame_size", o->frame_size);
	rxr_report_set_option_int(rep, "fake_nodes", o->fake_nodes);
	rxr_report_set_option_str(rep, "consumer", consumer_mode_name(o->consumer));
	if (o->consumer != CONSUMER_NONE)
		rxr_report_set_option_str(rep, "stream_counting",
			app.streams_deferred ? "deferred" : "inline");
	rxr_report_set_option_int(rep, "consumers", o->consumers);
	rxr_report_set_option_int(rep, "consumer_depth", o->consumer_depth);
	rxr_report_set_option_int(rep, "poll_lcores", app.nb_pollers);
	rxr_report_set_option_str(rep, "zero_policy", o->zero_policy);
	rxr_report_set_option_str(rep, "zero_method", o->zero_method);
	if (o->test_zero_delay != 0) {
		rxr_report_set_option_int(rep, "test_zero_delay",
			o->test_zero_delay);
		rxr_report_set_option_str(rep, "test_zero_delay_method",
			rxr_zero_method_name(o->test_zero_delay_method));
	}
	return 0;
}

/* After each round: --reps auto decides whether to stop (true), and
 * --progress rounds says how the round went. */
static bool
round_end(unsigned int round, struct rxr_report *report)
{
	char why[256] = "";
	bool done = false;

	if (app.opt.reps_auto)
		done = rxr_report_reps_auto(report, round, app.opt.reps, why,
			sizeof(why));
	if (app.opt.progress == PROGRESS_ROUNDS) {
		/* why starts "round N: " when the rounds go on. */
		const char *w = strchr(why, ':');
		static unsigned int disturbed;	/* before this round */
		char tag[48], line[sizeof(why) + 96];
		int n;

		snprintf(tag, sizeof(tag), "[round %u%s%u] ", round,
			app.opt.reps_auto ? ", up to " : "/", app.opt.reps);
		if (round_gbps.runs != 0)
			n = snprintf(line, sizeof(line), "%u run%s, %.3f to %.3f "
				"Gbit/s", round_gbps.runs, round_gbps.runs == 1 ?
				"" : "s", round_gbps.min, round_gbps.max);
		else
			n = snprintf(line, sizeof(line), "no run to count");
		if (noise_disturbed() != disturbed)
			n += snprintf(line + n, sizeof(line) - n, ", %u disturbed",
				noise_disturbed() - disturbed);
		disturbed = noise_disturbed();
		if (app.opt.reps_auto && !done && w != NULL)
			snprintf(line + n, sizeof(line) - n, ";%s", w + 1);
		say_wrapped(tag, line);
	}
	if (app.opt.reps_auto && (done || app.opt.progress == PROGRESS_RUNS))
		say_wrapped(done ? APP ": reps auto: stop: " : APP ": reps auto: ",
			why);
	round_gbps.runs = 0;
	if (done)
		rxr_report_set_option_str(report, "reps_stop", why);
	return done;
}

/* EAL memory without usable hugepages: --no-huge -m this many MiB. */
#define NO_HUGE_MEMORY_MIB 1024

/* Ours after the first "--", first: bad input fails before EAL starts;
 * --help, --version and --list-devices need no EAL and work alone. The
 * exit status when there is nothing to run, else -1. */
static int
options_take(int argc, char **argv, int *eal_argc)
{
	static struct opts_args args;	/* the options point into it */
	char *none[] = { argv[0], NULL };
	int d = 1, ret;

	/* The options for the man page and completion, wherever asked: an
	 * answer like --help's, then exit. */
	if (rxr_opt_table_asked(argc, argv))
		return opts_print_table(stdout) != 0 ? EXIT_USAGE : EXIT_SUCCESS;
	while (d < argc && strcmp(argv[d], "--") != 0)
		d++;
	*eal_argc = d;
	if (d < argc)
		ret = opts_parse(argc - d, argv + d, &app.opt, &args);
	else if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
			strcmp(argv[1], "--version") == 0 ||
			strcmp(argv[1], "--list-devices") == 0))
		ret = opts_parse(argc, argv, &app.opt, &args);
	else
		ret = opts_check_dashdash(argc, argv) != 0 ? -1 :
			opts_parse(1, none, &app.opt, &args);
	if (ret != 0)
		return EXIT_USAGE;
	if (app.opt.help)
		return EXIT_SUCCESS;
	if (app.opt.version) {
		rxr_version_print(stdout, APP, rte_version());
		return EXIT_SUCCESS;
	}
	if (app.opt.list_devices)
		return rdma_list(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	/* Paths given on the command line that cannot serve: usage too. */
	if (output_check(&app.opt, app.std_closed) != 0)
		return EXIT_USAGE;
	return -1;
}

/* It configures and starts its ports and makes their pools: a secondary
 * would fight the primary for the same devices. */
static int
secondary_refuse(void)
{
	RXR_LOG(ERR, "a secondary process (--proc-type secondary, or auto "
		"beside a running primary of the same --file-prefix): " APP
		" runs as a primary only (it configures its ports and makes "
		"their pools); give it a --file-prefix of its own");
	return EXIT_USAGE;
}

/* Ports, pools, queues and pollers after EAL; the exit status on failure. */
static int
app_setup(void)
{
	const struct options *o = &app.opt;
	unsigned int least = rxr_stats_signflip_min_rounds(
			RXR_REPORT_ALPHA_DEFAULT);
	unsigned int lc;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return secondary_refuse();
	/* --main-polls: the main lcore is the first poller, as in l2fwd. */
	RTE_LCORE_FOREACH(lc) {
		if (lc == rte_get_main_lcore() && !o->main_polls)
			continue;
		if (lc == rte_get_main_lcore()) {
			main_poller = &app.pollers[app.nb_pollers];
			main_poller->control_cycles = rte_get_tsc_hz() /
				(US_PER_S / DONE_CHECK_POLLING_US);
		}
		app.pollers[app.nb_pollers].app = &app;
		app.pollers[app.nb_pollers].lcore = lc;
		app.nb_pollers++;
	}
	if (app.nb_pollers == 0) {
		RXR_LOG(ERR, "no worker lcore to poll with: give EAL at least "
			"two lcores, e.g. -l 0-1 (the main lcore reports), or "
			"--main-polls");
		return EXIT_USAGE;
	}
	/* A usage error: said before any port or pool is made. */
	if (app.opt.consumer == CONSUMER_OTHER_POLL && app.nb_pollers < 2) {
		RXR_LOG(ERR, "--consumer other-poll: needs two poll lcores, "
			"there is %u (-l 0-1 --main-polls, or --lcores "
			"'(0,1)@0,2@1' on two CPUs)", app.nb_pollers);
		return EXIT_USAGE;
	}
	if (cpus_place(&app) != 0)
		return EXIT_USAGE;
	if (app.opt.nb_replay != 0 && ports_create_replay(&app) != 0)
		return EXIT_FAILURE;
	if (ports_init(&app) != 0 || consumers_init(&app) != 0)
		return EXIT_FAILURE;
	for (unsigned int i = 0; i < app.nb_ports; i++) {
		fin.any |= app.ports[i].finite;
		for (unsigned int q = 0; q < app.ports[i].nb_q; q++)
			fin.expected[i] += app.ports[i].files.packets[q];
	}
	pollers_assign(&app);
	opts_check_ports(&app);
	streams_counting_choose(&app);
	noise_init(&app);
	printf(APP ": %u port(s), %u poll lcore(s), %u configs x %u rep(s), "
		"consumer %s%s, memory %s\n", app.nb_ports, app.nb_pollers,
		app.opt.nb_configs, app.opt.reps, consumer_mode_name(app.opt.consumer),
		app.opt.consumer == CONSUMER_NONE ? "" : app.streams_deferred ?
		" (streams counted deferred)" : " (streams counted inline)",
		rxr_mem_backing_name(app.backing));
	/* Repetitions too few for any difference between configurations to
	 * be significant: said before spending the time. */
	if (o->nb_configs >= 2 && o->reps < least)
		RXR_LOG(WARNING, "warning: --reps %s%u: with %u paired rounds "
			"the smallest p a comparison can give is %.3g, not below "
			"alpha %g: no difference between configurations can be "
			"found; use --reps %s%u or more%s",
			o->reps_auto ? "auto:" : "", o->reps, o->reps,
			rxr_stats_signflip_min_p(o->reps),
			RXR_REPORT_ALPHA_DEFAULT, o->reps_auto ? "auto:" : "",
			least, o->reps_auto ? "" : ", or --reps auto");
	return EXIT_SUCCESS;
}

/* The tables (or the noise line) and the closing lines. */
static void
results_say(struct rxr_report *report, bool interrupted)
{
	if (app.opt.table != TABLE_NONE && rxr_report_nb_runs(report) != 0) {
		/* Stopped: no stream rows; stopped during them: no more. */
		bool rows = app.opt.stream_rows && !flag_get(&force_quit);

		flag_set(&listing_stop, false);
		putchar('\n');
		/* Each table ends with the findings, one line each. */
		if (app.opt.table == TABLE_BRIEF)
			rxr_report_render_brief(report, stdout);
		else
			rxr_report_render_text(report, stdout,
				&(struct rxr_report_select){
					.stream_rows = rows,
					.stop = &listing_stop });
		if (app.opt.stream_rows && (!rows || flag_get(&listing_stop)))
			printf("stream rows cut short by %s\n",
				signals_caught_name());
		if (app.opt.table == TABLE_FULL || app.opt.detail)
			rxr_report_render_extra(report, stdout, app.opt.detail);
	} else {
		/* The table says it otherwise. */
		noise_say(&app);
	}
	stop_say(rxr_report_nb_runs(report) - rxr_report_nb_cut_short(report),
		app.opt.nb_configs * app.opt.reps);
	output_say(report, interrupted);
}

/* Every run of the schedule into the report, written after each; the
 * exit status. */
static int
app_run(void)
{
	struct rxr_report *report = rxr_report_create();
	const unsigned int steps = app.opt.nb_configs * app.opt.reps;
	unsigned int step, steps_run = 0;
	uint64_t lost = 0;
	int status = EXIT_SUCCESS;
	/* runs_failed: a run was not whole (a stall, nothing received); the
	 * exit status is a failure unless a signal stopped the session.
	 * all_ran: every step ran, or --reps auto stopped them. */
	bool interrupted, metrics_ok, runs_failed = false, all_ran = false;

	/* Live figures first: they answer during the machine checks too. */
	if (report == NULL || live_init(&app) != 0 || report_env(report) != 0) {
		rxr_report_free(report);
		return EXIT_FAILURE;
	}
	for (step = 0; step < steps && !flag_get(&force_quit); step++) {
		int ret = run_one(step, report);

		steps_run = step + 1;
		if (ret < 0) {
			status = EXIT_FAILURE;
			break;
		}
		runs_failed |= ret > 0;
		/* After every run: an interruption leaves a valid report
		 * (stopped: the last one below, written once). */
		if (!flag_get(&force_quit) && output_write(report, true, false) != 0)
			status = EXIT_FAILURE;
		if ((step + 1) % app.opt.nb_configs == 0 &&
				round_end((step + 1) / app.opt.nb_configs, report)) {
			all_ran = true;
			break;
		}
	}
	all_ran |= steps_run == steps;
	/* Pollers, consumers and ports stopped; frames all home. */
	pollers_launch(false);
	metrics_ok = live_fini() == 0;
	consumers_stop(&app);
	if (ports_close(&app, &lost) != 0 || app.lost_frames != 0) {
		RXR_LOG(ERR, "conservation: %" PRIu64 " frames lost",
			lost + app.lost_frames);
		status = EXIT_FAILURE;
	}
	/*
	 * What the report says: a signal cut a repetition short or came
	 * before the last one; not one after it (or during the table below).
	 */
	interrupted = flag_get(&force_quit) && (!all_ran ||
		rxr_report_nb_cut_short(report) != 0);
	if (output_write(report, interrupted || status != EXIT_SUCCESS, true) != 0)
		status = EXIT_FAILURE;
	if (!metrics_ok || (runs_failed && !flag_get(&force_quit)))
		status = EXIT_FAILURE;
	results_say(report, interrupted);
	rxr_report_free(report);
	detail_free();
	return status;
}

int
main(int argc, char **argv)
{
	int eal_argc, ret, status;

	/* Before any file is opened: none may take a standard stream's place. */
	app.std_closed = rxr_path_std_fds_open();
	/* First of all: a stop asked for at any point is a clean stop. */
	signals_install();
	/*
	 * Progress as it happens, also into a pipe, and each line whole:
	 * a diagnostic on stderr lands between lines, never inside one.
	 */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The command line as typed, before anyone parses it in place. */
	app.argc = argc;
	app.argv = calloc(argc + 1, sizeof(char *));
	for (int i = 0; app.argv != NULL && i < argc; i++)
		app.argv[i] = strdup(argv[i]);
	ret = options_take(argc, argv, &eal_argc);
	if (ret >= 0)
		return ret;

	for (int i = 1; i < eal_argc; i++) {
		app.eal_no_pci |= strcmp(argv[i], "--no-pci") == 0;
		/* Refused before EAL: without hugepages the primary shares
		 * no configuration, and EAL's own failure would hide why. */
		if (strcmp(argv[i], "--proc-type=secondary") == 0 ||
				(strcmp(argv[i], "--proc-type") == 0 &&
				i + 1 < eal_argc &&
				strcmp(argv[i + 1], "secondary") == 0))
			return secondary_refuse();
	}
	/* Before EAL pins this thread: the CPUs the process was given. */
	if (sched_getaffinity(0, sizeof(app.start_cpus), &app.start_cpus) != 0)
		CPU_ZERO(&app.start_cpus);
	/* EAL aborts on a worker lcore it cannot pin: said first. */
	if (cpus_outside(eal_argc, argv, &app.start_cpus))
		return EXIT_FAILURE;
	/* Captures read, and net_pcap's arguments rewritten, before EAL
	 * opens them. */
	if (replay_prepare(&app, eal_argc, argv) != 0)
		return EXIT_FAILURE;
	ret = rxr_eal_init(eal_argc, argv, NO_HUGE_MEMORY_MIB, stdout,
		&app.backing);
	if (ret < 0) {
		/* EAL leaves rte_errno 0 on some failures ("Success"):
		 * its own lines above say why then. */
		RXR_LOG(ERR, "EAL could not start: %s%s",
			rte_errno != 0 ? rte_strerror(rte_errno) :
			"see EAL's message above",
			eal_argc == argc ? " (" APP "'s own options go after '--')" :
			"");
		return EXIT_FAILURE;
	}
	status = app_setup();
	if (status == EXIT_SUCCESS)
		status = app_run();
	noise_free();
	pollers_free(&app);
	rte_eal_cleanup();
	if (flag_get(&force_quit) && status == EXIT_SUCCESS)
		return EXIT_SIGNAL_BASE + signals_caught();
	return status;
}
