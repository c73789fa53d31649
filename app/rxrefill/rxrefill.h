/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXREFILL_H
#define RXREFILL_H

/*
 * rxrefill: receive on real PMDs with each refill strategy in turn and
 * report what each costs. Shared state of the application's files.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rxr_flow.h"
#include "rxr_hugepage.h"
#include "rxr_mempool.h"
#include "rxr_report.h"
#include "rxr_strategy.h"

#define APP "rxrefill"
#define MAX_PORTS 16
#define MAX_QUEUES 64		/* per port */
#define MAX_POLLERS RTE_MAX_LCORE
#define MAX_QUEUES_PER_POLLER 64
#define MAX_CONSUMERS 64	/* per poller */
#define MAX_STREAMS 4096	/* per poller; the rest count as "other" */
#define MAX_BURST 512
#define MAX_REPLAY_FILES MAX_QUEUES
#define MAX_PROFILES 8

/* Where consumers run (DESIGN.md "Contexts": task). */
enum consumer_mode {
	CONSUMER_NONE,		/* rxonly: free at once, no per-stream work */
	CONSUMER_INLINE,	/* in the poll lcore: run to completion */
	CONSUMER_SAME_CPU,	/* a thread on the poll lcore's CPU */
	CONSUMER_OTHER_CPU,	/* a thread on another CPU: remote frees */
};

/* Drop causes counted by the app itself. */
enum drop_cause {
	DROP_CONSUMER_FULL,	/* the stream's receive queue was full */
	DROP_MAX,
};

/* A strategy configuration that runs are made of. */
struct run_config {
	enum rxr_strategy strategy;
	bool bulk;
};

struct options {
	struct run_config configs[2 * RXR_STRATEGY_USER_MAX];
	unsigned int nb_configs;
	unsigned int reps;
	double warmup_s;
	double duration_s;
	unsigned int loops;		/* finite replay: 0 = duration based */
	unsigned int burst;
	unsigned int queues;		/* per port; 0 = auto */
	unsigned int rxd;		/* RX descriptors per queue */
	uint32_t high, batch;
	uint32_t frame_size;
	uint32_t frames;		/* per pool; 0 = auto */
	uint32_t fake_nodes;
	enum consumer_mode consumer;
	unsigned int consumers;		/* per poller */
	unsigned int consumer_depth;
	int stall_consumer;		/* test: this consumer never reads; -1 */
	double stall_s;			/* ... for this long; 0: the whole run */
	double exhaust_at_s;		/* test: take every free frame at ... */
	double exhaust_for_s;		/* ... and hold them this long; 0: off */
	enum rxr_zero_policy zero_policy;
	enum rxr_zero_method zero_method;
	double stats_period_s;
	const char *report_path;
	bool table;
	bool latency;
	const char *replay[MAX_REPLAY_FILES];
	unsigned int nb_replay;
	const char *profiles[MAX_PROFILES];	/* inputs too: never overwritten */
	unsigned int nb_profiles;
	bool list_devices;
	bool help;			/* --help was given: usage printed */
};

/* Arguments after profiles are read in; options point into them. */
struct opts_args {
	int argc;
	int cap;
	char **argv;
};

/* One RX queue as a poll lcore sees it. */
struct poll_queue {
	uint16_t port;
	uint16_t queue;
	struct rxr_pool *pool;
};

/* Per-stream counters, as received. */
struct stream {
	struct rxr_flow_key key;
	uint64_t packets;
	uint64_t bytes;
	uint16_t consumer;
};

struct poller;

/* A consumer: a socket receive queue and whoever reads it. */
struct consumer {
	struct rte_ring *ring;		/* the receive queue (depth) */
	struct poller *poller;
	unsigned int index;
	pthread_t thread;
	bool threaded;
	bool stalled;			/* test: never reads */
	volatile bool stop;
	uint64_t packets;		/* read and freed */
	uint64_t bytes;
	uint64_t checksum;		/* of what it read: keeps the reads */
};

/* A poll lcore: its queues, its streams, its consumers, its counters. */
struct poller {
	unsigned int lcore;
	unsigned int index;
	struct poll_queue q[MAX_QUEUES_PER_POLLER];
	unsigned int nb_q;
	struct rxr_pool *pools[MAX_PORTS];	/* distinct pools polled */
	unsigned int nb_pools;
	struct consumer cons[MAX_CONSUMERS];
	unsigned int nb_cons;

	/* Written by the poll lcore, read by the main lcore (relaxed). */
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t busy_cycles;		/* cycles in iterations that got packets */
	uint64_t cycles;		/* cycles measured */
	uint64_t drops[DROP_MAX];
	uint64_t other_packets;		/* streams past MAX_STREAMS or non-IP */
	uint64_t other_bytes;
	struct stream streams[MAX_STREAMS];
	unsigned int nb_streams;
	uint64_t max_gap_cycles;	/* longest time between two polls */
};


/* A port in use. */
struct port {
	uint16_t id;
	char name[RTE_ETH_NAME_MAX_LEN];
	char driver[64];
	uint16_t nb_q;
	int socket;
	struct rte_mempool *mp;		/* the current run's pool */
	struct rte_mempool *old_mp;	/* the previous run's, until retired */
	bool replay;			/* the net_pcap port made from --replay */
	bool finite;			/* ... without infinite_rx (--loops) */
	bool started;
	uint64_t file_packets[MAX_QUEUES];	/* per queue file */
	uint64_t file_bytes[MAX_QUEUES];
	uint64_t file_segments;		/* mbufs the files need when loaded */
	int xstat_out_of_buffer;	/* xstat ids, -1 when absent */
	int xstat_wqe_errors;
};

/* Global state. */
struct app {
	struct options opt;
	enum rxr_mem_backing backing;
	struct port ports[MAX_PORTS];
	unsigned int nb_ports;
	struct poller pollers[MAX_POLLERS];
	unsigned int nb_pollers;
	unsigned int poll_lcores[MAX_POLLERS];
	int argc;
	char **argv;			/* a copy, as typed */
	unsigned int run_seq;	/* for unique pool names */
	uint64_t lost_frames;	/* conservation failures, all runs */
};

extern struct app app;
extern volatile bool force_quit;	/* SIGINT/SIGTERM */
extern volatile bool run_stop;		/* end of the current run phase */

/* opts.c */
int opts_parse(int argc, char **argv, struct options *o, struct opts_args *a);
int opts_profile_parse(const char *buf, size_t len, const char *name,
		struct opts_args *a);
void opts_args_free(struct opts_args *a);
int opts_check_dashdash(int argc, char **argv);
struct app;
void opts_check_ports(const struct app *a);
void opts_usage(FILE *f);
const char *consumer_mode_name(enum consumer_mode m);

/* signals.c */
void signals_install(void);
int signals_caught(void);
const char *run_cut_short(bool stopped, uint64_t cycles);
void stop_say(unsigned int done, unsigned int total);

/* output.c: the report's path */
int output_check(const struct options *o);
int output_write(struct rxr_report *rep, bool partial, bool final);
void output_say(const struct rxr_report *rep, bool interrupted);

/* ports.c */
int replay_scan(struct app *a);
int ports_create_replay(struct app *a);
int ports_init(struct app *a);
int ports_use_pool(struct app *a, unsigned int run);
int ports_start(struct app *a);
void ports_stop(struct app *a);
int ports_retire_pools(struct app *a, uint64_t *lost);
int ports_close(struct app *a, uint64_t *lost);

struct port_counters {
	uint64_t ipackets, ibytes, imissed, ierrors, rx_nombuf;
	uint64_t out_of_buffer, wqe_errors;
};
void port_counters_read(const struct port *p, struct port_counters *c);

/* poll.c */
int poll_main(void *arg);
void pollers_assign(struct app *a);
void poller_reset(struct poller *p);

/* consumer.c */
int consumers_start(struct app *a, unsigned int run);
void consumers_stop(struct app *a);
void consumer_read(struct consumer *c, struct rte_mbuf **pkts, unsigned int n);

/* zeroer.c: background zeroing, one thread fills every pool's supplies */
int zeroer_start(struct app *a);
void zeroer_stop(struct app *a);

/* rdma.c */
int rdma_list(FILE *out);

#endif /* RXREFILL_H */
