/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXREFILL_H
#define RXREFILL_H

/*
 * rxrefill: receive on real PMDs with each refill strategy in turn and
 * report what each costs. Shared state of the application's files.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "rxr_flow.h"
#include "rxr_flow_log.h"
#include "rxr_flow_table.h"
#include "rxr_hugepage.h"
#include "rxr_mempool.h"
#include "rxr_report.h"
#include "rxr_strategy.h"

/* The net_pcap port --replay makes. */
#define REPLAY_VDEV "net_pcap_rxrefill"
#define APP "rxrefill"
#define MAX_PORTS 16
#define MAX_QUEUES 64		/* per port */
#define MAX_POLLERS RTE_MAX_LCORE
#define MAX_QUEUES_PER_POLLER 64
#define MAX_CONSUMERS 64	/* per poller */
#define STREAMS_DEFAULT 65536	/* per poller, when no capture sizes it */
#define STREAMS_MAX (1u << 24)	/* per poller: the table grows up to this */
#define MAX_BURST 512
#define MAX_REPLAY_FILES MAX_QUEUES
#define MAX_PROFILES 8

/* Who counts the packets of each stream (--stream-counting). */
enum stream_counting {
	STREAM_COUNTING_AUTO,		/* deferred when the main lcore has a CPU of its own */
	STREAM_COUNTING_DEFERRED,	/* the poll lcore logs, the main lcore counts */
	STREAM_COUNTING_INLINE,		/* the poll lcore counts */
};

/* Where consumers run (task context, doc/design.md). */
enum consumer_mode {
	CONSUMER_NONE,		/* rxonly: free at once, no per-stream work */
	CONSUMER_INLINE,	/* in the poll lcore: run to completion */
	CONSUMER_SAME_CPU,	/* a thread on the poll lcore's CPU */
	CONSUMER_OTHER_CPU,	/* a thread on another CPU: remote frees */
	CONSUMER_OTHER_POLL,	/* the next poll lcore, in its poll loop */
};

/* --reps auto: the smallest MAX accepted, and the default MAX. */
#define REPS_AUTO_MIN 5
#define REPS_AUTO_MAX 10

/* The limits of a disturbed repetition (doc/report-schema.md,
 * env.noise_limits). */
#define NOISE_DURATION_EXCESS 0.05
#define NOISE_STEAL_SHARE 0.05
#define NOISE_SWITCHES_PER_S 100
#define NOISE_WAIT_SHARE 0.05
#define NOISE_STOPPED_SHARE 0.05
#define NOISE_STOPPED_MIN_S 0.05	/* ... and at least this long */
#define NOISE_BUSY_SHARE 0.05

/* Why packets were lost, in the report's order: X(id, name, live), live:
 * also in telemetry and the metrics file. */
#define DROP_CAUSES(X) \
	X(RX_NOMBUF, "rx_nombuf", true) \
	X(IMISSED, "imissed", true) \
	X(RX_ERRORS, "rx_errors", true) \
	X(RX_OUT_OF_BUFFER, "rx_out_of_buffer", false) \
	X(XDP_FILL_RING_EMPTY, "xdp_fill_ring_empty", false) \
	X(XDP_RX_DROPPED, "xdp_rx_dropped", false) \
	X(XDP_RX_RING_FULL, "xdp_rx_ring_full", false) \
	X(CONSUMER_FULL, "consumer_full", true) \
	X(UNACCOUNTED, "unaccounted", false)

#define DROP_CAUSE_ID_(id, name, live) CAUSE_##id,
enum drop_cause_id { DROP_CAUSES(DROP_CAUSE_ID_) CAUSE_MAX };
extern const char *const drop_cause_names[CAUSE_MAX];
extern const bool drop_cause_live[CAUSE_MAX];

/* Why no stream row holds a packet: no room, or rxr_flow_parse()'s error. */
enum untracked_cause {
	UNTRACKED_NO_ROOM = 0,
	UNTRACKED_NOT_IP = -RXR_FLOW_E_NOT_IP,
	UNTRACKED_TRUNCATED = -RXR_FLOW_E_TRUNCATED,
	UNTRACKED_MALFORMED = -RXR_FLOW_E_MALFORMED,
	UNTRACKED_MAX,
};

/* Packets and frame bytes of one untracked cause. */
struct untracked {
	uint64_t packets;
	uint64_t bytes;
};

/* Consumers that are a queue and its reader (thread or poll lcore). */
static inline bool
consumer_queued(enum consumer_mode m)
{
	return m == CONSUMER_SAME_CPU || m == CONSUMER_OTHER_CPU ||
		m == CONSUMER_OTHER_POLL;
}

/* A strategy configuration that runs are made of. */
struct run_config {
	enum rxr_strategy strategy;
	bool bulk;
	enum rxr_zero_policy zero_policy;
	enum rxr_zero_method zero_method;	/* none: the first listed */
};

/* Exit status besides EXIT_SUCCESS and EXIT_FAILURE (as --help says). */
#define EXIT_USAGE 2
#define EXIT_SIGNAL_BASE 128

/* --table: the text table at the end. */
enum table_mode { TABLE_NONE, TABLE_BRIEF, TABLE_FULL };
/* --progress: a line per run, or per round of every configuration. */
enum progress_mode { PROGRESS_RUNS, PROGRESS_ROUNDS };

struct options {
	struct run_config configs[2 * RXR_STRATEGY_USER_MAX *
		RXR_ZERO_NR_POLICIES * RXR_ZERO_NR_METHODS];
	unsigned int nb_configs;
	unsigned int reps;		/* with reps_auto: the most rounds */
	bool reps_auto;
	bool disturbed_exclude;		/* disturbed repetitions not counted */
	bool main_polls;		/* the main lcore polls too */
	unsigned int latency_every;	/* one sampled poll iteration in N */
	uint32_t test_refill_delay;	/* test: cycles added to every refill */
	const char *test_refill_delay_config;	/* ... of it only; NULL: all */
	bool stream_rows;		/* every stream's row in the table */
	double warmup_s;
	double duration_s;
	unsigned int loops;		/* finite replay: 0 = duration based */
	unsigned int burst;
	unsigned int queues;		/* per port; 0 = auto */
	unsigned int rxd;		/* RX descriptors per queue */
	uint32_t high, batch;
	/* --strategy-setting: each strategy's own, 0 for its default */
	uint32_t settings[RXR_STRATEGY_USER_MAX][RXR_STRATEGY_SETTINGS_MAX];
	uint32_t frame_size;
	bool frame_size_set;		/* given with --frame-size */
	uint32_t frames;		/* per pool; 0 = auto */
	uint32_t fake_nodes;
	enum consumer_mode consumer;
	unsigned int consumers;		/* per poller */
	unsigned int consumer_depth;
	enum stream_counting stream_counting;
	int stall_consumer;		/* test: this consumer never reads; -1 */
	double stall_s;			/* ... for this long; 0: the whole run */
	unsigned int consumer_lag_us;	/* test: wait after an empty queue */
	double exhaust_at_s;		/* test: take every free frame at ... */
	double exhaust_for_s;		/* ... and hold them this long; 0: off */
	unsigned int zero_policies;	/* 1 << policy, of every config */
	unsigned int nb_zeroings;	/* configs per strategy and bulk */
	const char *zero_policy, *zero_method;	/* as listed */
	uint32_t test_zero_delay;	/* test: cycles added to a clear ... */
	enum rxr_zero_method test_zero_delay_method;	/* ... of this method */
	double stats_period_s;
	const char *report_path;
	enum table_mode table;
	enum progress_mode progress;
	bool latency;
	const char *replay[MAX_REPLAY_FILES];
	unsigned int nb_replay;
	const char *profiles[MAX_PROFILES];	/* inputs too: never overwritten */
	unsigned int nb_profiles;
	bool list_devices;
	bool help;			/* --help was given: usage printed */
	bool version;			/* --version was given */
	bool detail;			/* per-queue/lcore/xstats tables */
	const char *metrics_path;	/* --metrics-file: Prometheus text */
};

/* Arguments after profiles are read in; options point into them. */
struct opts_args {
	int argc;
	int cap;
	char **argv;
	/* Per word: the --profile file and line it came from (NULL, 0: the
	 * command line), so that a bad value is said where it is written. */
	struct opts_arg_from {
		const char *file;
		unsigned int line;
	} *from;
};

/* One RX queue as a poll lcore sees it. */
struct poll_queue {
	uint16_t port;
	uint16_t queue;
	uint16_t port_idx;	/* in app.ports[] */
	struct rxr_pool *pool;
	uint64_t packets;	/* received; written by the poll lcore */
	uint64_t bytes;
};

struct app;
struct poller;

/* A consumer: a socket receive queue and whoever reads it. */
struct consumer {
	struct rte_ring *ring;		/* the receive queue (depth) */
	struct poller *poller;
	unsigned int index;
	pthread_t thread;
	bool threaded;
	bool stalled;			/* test: never reads */
	atomic_bool stop;		/* release: its poller's last packets are queued */
	uint64_t packets;		/* read and freed */
	uint64_t bytes;
	uint64_t free_cycles;		/* in rxr_pktmbuf_free_bulk() */
	uint64_t checksum;		/* of what it read: keeps the reads */
};

/* A poll lcore: its queues, its streams, its consumers, its counters. */
struct poller {
	const struct app *app;
	unsigned int lcore;
	struct poll_queue q[MAX_QUEUES_PER_POLLER];
	unsigned int nb_q;
	struct rxr_pool *pools[MAX_PORTS];	/* distinct pools polled */
	unsigned int nb_pools;
	struct consumer cons[MAX_CONSUMERS];
	unsigned int nb_cons;
	int consumer_cpu;		/* its consumer threads', -1: none */

	/* Written by the poll lcore, read by the main lcore (relaxed); what
	 * it received is its queues' counters (poll_queue.packets, bytes). */
	uint64_t busy_cycles;		/* cycles in iterations that got packets */
	uint64_t cycles;		/* cycles measured */
	uint64_t consumer_full;		/* dropped: a receive queue was full */
	struct untracked untracked[UNTRACKED_MAX];	/* in no stream row, by cause */
	uint64_t table_full;		/* packets the table refused: it grows */
	uint64_t streams_logged;	/* deferred: packets counted from the log */
	uint64_t streams_self;		/* ... of them by the poll lcore (log full) */
	uint64_t streams_logged0, streams_self0;	/* the same at warmup's end */
	/* Per-stream counters, as received: this poller's only. */
	struct rxr_flow_table *streams;
	/* Deferred counting: the poll lcore appends, the main lcore drains. */
	struct rxr_flow_log *streams_log;
	unsigned int max_streams;	/* flows it holds */
	uint64_t max_gap_cycles;	/* longest time between two polls */
	uint64_t sample_packets;	/* received in latency-sampled iterations */
	/* Iterations to the next sampled one, 0: a full period; kept
	 * across a run's launches (one per --loops loop). */
	uint32_t sample_countdown;

	/* --consumer other-poll: the previous poll lcore's packets to free. */
	struct rte_ring *inbox;
	uint64_t inbox_packets;		/* freed from the inbox */
	uint64_t inbox_free_cycles;

	/* --main-polls: the main lcore's loop calls this every
	 * control_cycles; true ends it. NULL elsewhere. */
	bool (*control)(uint64_t now);
	uint64_t control_cycles;
};

/* An XDP socket a port's PMD opened: its descriptor and inode. */
struct xsk_sock {
	int fd;
	unsigned long ino;
};

/* What a net_pcap port's files hold, one per queue (replay_prepare()). */
struct replay_counts {
	uint64_t packets[MAX_QUEUES];
	uint64_t bytes[MAX_QUEUES];
	uint64_t segments;		/* mbufs the files need when loaded */
	uint64_t flows[MAX_QUEUES];	/* distinct flows per queue file */
	const char *given[MAX_QUEUES];	/* the files as named */
	const char *read[MAX_QUEUES];	/* what net_pcap reads: them, or copies */
	struct stat st[MAX_QUEUES];	/* of a file read as it is */
	unsigned int nb;
	uint32_t largest;		/* the largest record */
	bool endless;			/* infinite_rx: loaded in the pool */
};

/* A net_pcap device of the user's (--vdev) and its files. */
struct pcap_dev {
	char name[RTE_DEV_NAME_MAX_LEN];
	struct replay_counts files;
	char *arg;		/* the --vdev argument EAL reads, rewritten */
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
	bool finite;			/* replays its files once per start */
	bool started;
	bool link_warned;		/* said once that its link stayed down */
	struct replay_counts files;	/* a net_pcap port's; else zero */
	int xstat_out_of_buffer;	/* its xstat id, -1 when absent */
	/* Probing the device again (ports.c port_reprobe). */
	char bus[32];
	char devname[RTE_DEV_NAME_MAX_LEN];
	char devargs[8192];		/* as probed: --replay names every file */
	bool reprobe_ok;		/* bus, devname and devargs known */
	bool always_reprobe;		/* a queue cannot take another pool */
	/* net_af_xdp (its pool is its UMEM): its XDP sockets, for their
	 * statistics (xsk.c). */
	bool xsk;
	struct xsk_sock xsk_socks[2 * MAX_QUEUES];
	unsigned int nb_xsk;
};

/* Global state. */
struct app {
	struct options opt;
	enum rxr_mem_backing backing;
	bool eal_no_pci;		/* EAL was given --no-pci */
	struct port ports[MAX_PORTS];
	unsigned int nb_ports;
	/* Counted before EAL: --replay's (first, named REPLAY_VDEV), then
	 * the --vdev net_pcap devices'. */
	struct pcap_dev pcap_devs[MAX_PORTS];
	unsigned int nb_pcap_devs;
	struct json_t *captures;	/* env.captures: what each file held */
	struct poller pollers[MAX_POLLERS];
	unsigned int nb_pollers;
	bool streams_deferred;		/* --stream-counting, resolved: logs */
	int argc;
	char **argv;			/* a copy, as typed */
	unsigned int run_seq;	/* for unique pool names */
	uint64_t lost_frames;	/* conservation failures, all runs */
	unsigned int std_closed;	/* rxr_path_std_fds_open(): closed at start */
	/* The CPUs the process was given (before EAL pinned its thread):
	 * where threads that are no lcore may run. */
	rte_cpuset_t start_cpus;
	int zeroer_cpu;			/* cpus_place(); -1: none */
};

/* Stop flags (signals.c), relaxed: requests that publish no data (an
 * lcore wait or a thread join orders the rest). */
extern atomic_bool force_quit;		/* a stop signal */
extern atomic_bool listing_stop;	/* ... during the table */
extern atomic_bool run_stop;		/* end of the current run phase */

static inline bool
flag_get(const atomic_bool *f)
{
	return atomic_load_explicit(f, memory_order_relaxed);
}

static inline void
flag_set(atomic_bool *f, bool v)
{
	atomic_store_explicit(f, v, memory_order_relaxed);
}

/* opts.c */
int opts_parse(int argc, char **argv, struct options *o, struct opts_args *a);
int opts_check_dashdash(int argc, char **argv);
void opts_check_ports(const struct app *a);
/* --options-table: the options as the man page and completion read them. */
int opts_print_table(FILE *f);
/*
 * The settings of the strategies the configurations run, defaults filled
 * in: "recycle.cache=128,recycle.refill=64,recycle.ring=1024".
 * @return the length; 0 when none of them has settings.
 */
size_t opts_settings_str(const struct options *o, char *buf, size_t len);
bool opts_refill_delayed(const struct options *o,
		const struct run_config *rc);
/* A --profile's lines, as words on a (opts_args_free() frees them). */
int opts_profile_parse(FILE *f, const char *name, struct opts_args *a);
void opts_args_free(struct opts_args *a);
const char *consumer_mode_name(enum consumer_mode m);

/* signals.c */
void signals_install(void);
int signals_caught(void);
const char *signals_caught_name(void);
const char *run_cut_short(bool stopped, uint64_t cycles);
void stop_say(unsigned int done, unsigned int total);

/* output.c: the report's path, and lines for the terminal */
/* --report and --metrics-file; std_closed: rxr_path_std_fds_open()'s. */
int output_check(const struct options *o, unsigned int std_closed);
int output_write(struct rxr_report *rep, bool partial, bool final);
void output_say(const struct rxr_report *rep, bool interrupted);
/* prefix and text within 120 columns, broken after "; " where it can. */
void say_wrapped(const char *prefix, const char *text);

/* replay.c: captures read before EAL, then a net_pcap port, a queue per
 * --replay file. replay_prepare() rewrites the net_pcap --vdev arguments
 * among EAL's to name the copies it made. */
int replay_prepare(struct app *a, int eal_argc, char **argv);
/* Whether a port replays captures (net_pcap with files). */
bool replay_ports(const struct app *a);
/* A file replayed as it is changed since it was read: said, true. */
bool replay_changed(const struct app *a);
int ports_create_replay(struct app *a);

/* ports.c */
int ports_init(struct app *a);
int ports_use_pool(struct app *a, unsigned int run);
int ports_start(struct app *a);
void ports_stop(struct app *a);
int ports_retire_pools(struct app *a, uint64_t *lost);
int ports_close(struct app *a, uint64_t *lost);

struct port_counters {
	uint64_t ipackets, imissed, ierrors, rx_nombuf;
	uint64_t out_of_buffer;
	uint64_t xdp_rx_dropped, xdp_rx_ring_full, xdp_fill_ring_empty;
};
void port_counters_read(const struct port *p, struct port_counters *c);

/* xsk.c */
void xsk_setup_begin(struct port *p);
void xsk_setup_end(struct port *p, bool done);
void xsk_stats_read(const struct port *p, struct port_counters *c);
unsigned int xsk_close_stale(struct port *p);

/* poll.c */
int poll_main(void *arg);
void pollers_assign(struct app *a);
void poller_reset(struct poller *p);
void pollers_free(struct app *a);
void streams_untracked(const struct app *a, struct rxr_report_run *r,
		const char *tag);
/* --stream-counting resolved into a->streams_deferred, and said. */
void streams_counting_choose(struct app *a);
/* Deferred counting: up to max logged packets of each poll lcore counted. */
unsigned int streams_drain(struct app *a, unsigned int max);
/* After a run: every logged packet counted; mark: the window opens. */
void streams_settle(struct app *a, bool mark);

/* consumer.c */
int consumers_init(struct app *a);
int consumers_start(struct app *a);
void consumers_stop(struct app *a);
void consumer_read(struct consumer *c, struct rte_mbuf **pkts, unsigned int n);

/* measure.c */
/* Counters of the whole app at one instant. */
struct snapshot {
	uint64_t tsc;
	uint64_t packets, bytes, busy;	/* the sums of the arrays below */
	uint64_t qpackets[MAX_POLLERS][MAX_QUEUES_PER_POLLER];
	uint64_t qbytes[MAX_POLLERS][MAX_QUEUES_PER_POLLER];
	uint64_t lbusy[MAX_POLLERS];	/* each poll lcore's busy_cycles */
	uint64_t sample_packets;	/* received in latency-sampled iterations */
	uint64_t freed, free_cycles;	/* by consumers (threads, other-poll) */
	uint64_t consumer_full;
	struct port_counters port[MAX_PORTS];
	struct rte_eth_stats eth[MAX_PORTS];	/* for runs[].queues */
	struct rxr_pool_stats pool[MAX_PORTS];
};

void snapshot_take(const struct app *app, struct snapshot *s);
void port_drops(uint64_t n[CAUSE_MAX], const struct port *p,
		const struct port_counters *a, const struct port_counters *b);

int streams_collect(const struct app *app, struct rxr_report_run *run);
/* The window's ends: each port's xstats (detail_attach() reads them). */
void detail_sample(const struct app *a, bool first);
int detail_attach(struct app *a, struct rxr_report *rep,
		const struct snapshot *s0, const struct snapshot *s1,
		uint64_t cycles);
void detail_free(void);
void fill_run(const struct app *app, struct rxr_report_run *r,
		const struct run_config *rc, const struct snapshot *a,
		const struct snapshot *b, uint64_t cycles, uint64_t unaccounted);
void fill_pool_groups(struct rxr_report_pcp *pcp,
		struct rxr_report_zone_lock *zl, const struct rxr_pool_stats *a,
		const struct rxr_pool_stats *b);

/* zeroer.c: background zeroing, one thread fills every pool's supplies */
int zeroer_start(struct app *a);
void zeroer_stop(struct app *a);

/* rdma.c */
int rdma_list(FILE *out);

/* envinfo.c: versions, build, kernel, CPUs, ports into the report's env */
int env_collect(struct app *a, struct rxr_report *rep);
void env_link_sample(struct app *a);	/* while receiving */
int env_link_commit(struct app *a, struct rxr_report *rep);
/* The first CPU of an lcore's set, -1 when it has none. */
int lcore_cpu(unsigned int lcore);
/* First line of a small file (sysfs, /proc), without its newline, in buf;
 * false, and buf "", when unreadable. */
bool read_first_line(const char *path, char *buf, size_t len);
/* The last part of the symbolic link at @p path (a sysfs device's driver
 * or PCI address) in buf; false, and buf untouched, when it is none. */
bool read_link_name(const char *path, char *buf, size_t len);
/* A small file, whole and NUL-terminated, at the path @p fmt makes as
 * printf; its length, or -1 when it cannot be opened. */
ssize_t read_file(char *buf, size_t len, const char *fmt, ...)
	__rte_format_printf(3, 4);

/* cpus.c: a CPU that -l, -c or --lcores in EAL's arguments pin an lcore to
 * and this process cannot run on, said; false when there is none. The
 * thread's affinity is left as @p own, the process's at start. */
bool cpus_outside(int argc, char **argv, const rte_cpuset_t *own);
/* After EAL: each poll lcore's consumer_cpu and the zeroing thread's CPU;
 * -1 with the reason said when other-cpu leaves a poll lcore none. */
int cpus_place(struct app *a);
/* The calling thread onto cpus_place()'s @p cpu; said, naming @p who, when
 * it cannot be (-1: none). */
void cpus_pin_self(int cpu, const char *who);

/* noise.c: machine checks at start, the noise of each measured window */
/* After EAL: the lcores' thread ids, the machine check's first sample. */
void noise_init(struct app *a);
/* The machine check's line and env.machine, a second after noise_init. */
int noise_env(struct app *a, struct rxr_report *rep);
/* A repetition starts, its poll lcores not yet: other processes' times. */
void noise_run_start(void);
/* The measured window's ends, from the main lcore. */
void noise_begin(const struct app *a);
void noise_end(const struct app *a);
/* A --loops loop's ends, from the main lcore: when it polls, what of the
 * loop its thread ran or waited for a CPU. */
void noise_loop_begin(void);
void noise_loop_end(void);
/* The window's noise into r; a line when it was disturbed. */
void noise_fill(const struct app *a, struct rxr_report_run *r,
		const char *tag);
/* How many repetitions were disturbed, and whether they count. */
void noise_say(const struct app *a);
/* Repetitions marked disturbed so far. */
unsigned int noise_disturbed(void);
void noise_free(void);

/* telemetry.c: /rxrefill/status and /rxrefill/stats, --metrics-file; the
 * other live_*() calls come after live_init(). */
enum live_phase {
	PHASE_STARTING,
	PHASE_WARMUP,
	PHASE_MEASURING,
	PHASE_TEARDOWN,
	PHASE_DONE,
};
int live_init(struct app *a);
/* A run starts: its configuration, repetition, and PHASE_WARMUP. */
void live_run(const struct run_config *rc, unsigned int rep);
void live_phase(enum live_phase ph);
void live_tick(void);
/* -1 when a --metrics-file write failed (said). */
int live_fini(void);

#endif /* RXREFILL_H */
