/* SPDX-License-Identifier: BSD-3-Clause */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixture.h"

/* Shapes loosely follow the 2017 thread: zone-lock bound vs bh line rate. */
struct shape {
	const char *strategy;
	bool bulk;
	double mpkts;		/* million packets in 2 s */
	double cpp;		/* cycles per packet */
	double refill;		/* refill cycles per frame */
	double hit;		/* pcp hit share */
	double wait_share;
	unsigned int lat_bucket;	/* where most refills land */
};

static const struct shape shapes[] = {
	{ "zone", true, 5.0, 800.0, 420.0, 0.0, 0.6287, 8 },
	{ "bh", true, 15.0, 280.0, 60.0, 0.99, 0.0012, 6 },
	{ "recycle", true, 15.6, 250.0, 18.0, 0.995, 0.0001, 5 },
	{ "bh", false, 11.0, 360.0, 95.0, 0.98, 0.0020, 7 },
};

static void
add_run(struct rxr_report *r, const struct fixture_conf *conf,
		const struct shape *s, unsigned int rep)
{
	struct rxr_report_stream streams[2];
	struct rxr_report_run run;
	char err[RXR_REPORT_ERR_LEN];
	/* Small drift between reps, bounded for long runs of reps. */
	double jitter = rep % 5;
	double k = conf->scale * (1.0 + 0.02 * jitter);
	uint64_t pkts = (uint64_t)llround(s->mpkts * 1e6 * k);
	uint64_t allocs = pkts;

	memset(&run, 0, sizeof(run));
	run.strategy = s->strategy;
	run.bulk = s->bulk;
	run.rep = rep;
	run.duration_s = 2.0;
	run.rx_packets = pkts;
	run.rx_bytes = pkts * 1500;
	run.cycles_per_packet = s->cpp * (1.0 - 0.01 * jitter);
	run.refill_cycles_per_frame = s->refill * (1.0 - 0.01 * jitter);
	run.allocator_cycles_per_packet = s->refill * 1.5 * (1.0 - 0.01 * jitter);
	run.consumer_free_cycles_per_packet = NAN;
	run.refill_latency_sample_every = 64;
	run.drops[0].cause = "rx_nombuf";
	run.drops[0].count = strcmp(s->strategy, "zone") == 0 ? 1200 + rep % 5 :
		0;
	run.drops[1].cause = "imissed";
	run.drops[1].count = strcmp(s->strategy, "zone") == 0 ? 3400 : 10;
	run.nb_drops = 2;
	run.pcp.hits = (uint64_t)llround(allocs * s->hit);
	run.pcp.misses = allocs - run.pcp.hits;
	run.zone_lock.acquisitions = s->hit > 0 ? run.pcp.misses / 63 + 1 :
		allocs;
	run.zone_lock.contended = (uint64_t)llround(
		run.zone_lock.acquisitions * s->wait_share);
	run.zone_lock.wait_cycles = run.zone_lock.contended * 900;
	run.zone_lock.wait_share = s->wait_share;
	if (strcmp(s->strategy, "bh") == 0) {
		run.has_deferred = true;
		run.deferred.queued = 4096;
		run.deferred.drained = 4096;
	}
	if (strcmp(s->strategy, "recycle") == 0) {
		/* Its own counters, as the recycle strategy names them. */
		const struct rxr_report_drop rc[] = {
			{ "alloc_fast", pkts - pkts / 64 },
			{ "alloc_slow", pkts / 64 },
			{ "alloc_refill", pkts / 64 },
			{ "recycle_cached", pkts - 1000 },
			{ "recycle_ring", 1000 },
		};

		run.nb_strategy_counters = sizeof(rc) / sizeof(rc[0]);
		memcpy(run.strategy_counters, rc, sizeof(rc));
	}
	/* Most refills in one bucket, a tail, and a rare slow one. */
	run.refill_latency_ns[s->lat_bucket] = 90000;
	run.refill_latency_ns[s->lat_bucket + 1] = 9000;
	run.refill_latency_ns[s->lat_bucket + 3] = 990;
	run.refill_latency_ns[s->lat_bucket + 6] = 10;
	streams[0] = (struct rxr_report_stream){
		.src = "10.0.0.1", .dst = "10.0.0.2", .sport = 40000,
		.dport = 5001, .proto = 6, .packets = pkts / 2,
		.bytes = pkts / 2 * 1500,
	};
	streams[1] = (struct rxr_report_stream){
		.src = "fd00::1", .dst = "fd00::2", .sport = 40001,
		.dport = 5001, .proto = 17, .packets = pkts - pkts / 2,
		.bytes = (pkts - pkts / 2) * 1500,
	};
	run.streams = streams;
	run.nb_streams = 2;
	if (rxr_report_add_run(r, &run, err, sizeof(err)) != 0) {
		fprintf(stderr, "fixture: %s\n", err);
		exit(EXIT_FAILURE);
	}
}

struct rxr_report *
fixture_report(const struct fixture_conf *conf)
{
	static const unsigned int lcores[] = { 1, 2 };
	static const struct rxr_report_port ports[] = {
		{ .port = 0, .driver = "net_pcap", .name = "net_pcap0" },
	};
	static char *const argv[] = {
		"rxrefill", "-l", "1,2", "--vdev", "net_pcap0,rx_pcap=a b.pcap",
		"--", "--strategy", "all",
	};
	struct rxr_report_env env = {
		.dpdk_version = "DPDK 22.11.1",
		.host = conf->host,
		.cpu_model = "Test CPU @ 2.00GHz",
		.lcores = lcores,
		.nb_lcores = 2,
		.ports = ports,
		.nb_ports = 1,
		.argc = 8,
		.argv = argv,
	};
	const struct shape *use[4];
	unsigned int nuse = 0, step, cfg, rep;
	char err[RXR_REPORT_ERR_LEN];
	struct rxr_report *r = rxr_report_create();

	if (r == NULL || rxr_report_set_env(r, &env, err, sizeof(err)) != 0 ||
			json_object_set_new(rxr_report_json(r), "created",
				json_string("2024-05-01T10:00:00Z")) != 0 ||
			rxr_report_set_option_int(r, "duration_s", 2) != 0 ||
			rxr_report_set_option_str(r, "strategy", "all") != 0) {
		fprintf(stderr, "fixture: cannot build a report\n");
		exit(EXIT_FAILURE);
	}
	use[nuse++] = &shapes[0];
	use[nuse++] = &shapes[1];
	if (conf->with_recycle)
		use[nuse++] = &shapes[2];
	if (conf->with_nobulk)
		use[nuse++] = &shapes[3];
	for (step = 0; step < nuse * conf->reps; step++) {
		rxr_report_schedule(step, nuse, &cfg, &rep);
		add_run(r, conf, use[cfg], rep);
	}
	rxr_report_set_partial(r, conf->partial);
	return r;
}

struct rxr_report *
fixture_load_buffer(const char *buf, size_t len, const char *name, char *err,
		size_t errlen)
{
	json_t *doc = rxr_report_json_loadb(buf, len, name, err, errlen);

	return doc != NULL ? rxr_report_of_json(doc, name, err, errlen) : NULL;
}
