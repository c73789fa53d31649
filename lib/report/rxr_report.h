/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_REPORT_H
#define RXR_REPORT_H

/**
 * @file
 * Run reports (doc/report-schema.md): built, written, loaded, validated,
 * rendered. Failing functions write one line naming the field into err.
 */

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The schema string written into and required from every report. */
#define RXR_REPORT_SCHEMA "rxrefill-report/1"
/** The schema string of rxr_report_compare_json() documents. */
#define RXR_REPORT_COMPARE_SCHEMA "rxrefill-compare/1"

/** Log2 latency buckets: [0,1), [1,2), [2,4) ... [2^46, 2^47). */
#define RXR_REPORT_HIST_BUCKETS 48
/** Most drop causes one run can carry. */
#define RXR_REPORT_DROPS_MAX 16
/** Significance level of a report that sets none. */
#define RXR_REPORT_ALPHA_DEFAULT 0.05
/** Size of an err buffer. */
#define RXR_REPORT_ERR_LEN 512

/** One drop cause of a run. */
struct rxr_report_drop {
	const char *cause;	/**< "rx_nombuf", "imissed", ...; non-empty */
	uint64_t count;		/**< packets lost for this cause */
};

/** Packets and bytes of one flow. */
struct rxr_report_stream {
	const char *src;	/**< source address, IPv4 or IPv6 text */
	const char *dst;	/**< destination address */
	uint16_t sport;		/**< source port, 0 without ports */
	uint16_t dport;		/**< destination port */
	uint8_t proto;		/**< IP protocol number: 6 TCP, 17 UDP */
	bool fragments;		/**< IPv4 or IPv6 fragments: no ports */
	uint64_t packets;	/**< packets received */
	uint64_t bytes;		/**< frame bytes received */
};

/** Causes of a disturbed repetition (rxr_report_noise.disturbed). */
enum rxr_report_disturbance {
	RXR_REPORT_DISTURBED_DURATION = 1u << 0, /**< ran longer than asked */
	RXR_REPORT_DISTURBED_STEAL = 1u << 1, /**< steal time on a poll CPU */
	RXR_REPORT_DISTURBED_SWITCHES = 1u << 2, /**< own-CPU lcore preempted */
	RXR_REPORT_DISTURBED_STOPPED = 1u << 3, /**< a poll lcore stopped */
};
/** Number of causes in enum rxr_report_disturbance. */
#define RXR_REPORT_DISTURBED_CAUSES 4

/** Name of cause bit i ("duration", ...), NULL past them. */
const char *rxr_report_disturbance_name(unsigned int i);

/** A poll CPU during a repetition. */
struct rxr_report_noise_cpu {
	unsigned int cpu;
	double steal_share;	/**< steal ticks / all its ticks; NaN: unknown */
};

/** A poll lcore's thread during a repetition. */
struct rxr_report_noise_lcore {
	unsigned int lcore;
	int tid;			/**< its thread id; 0: unknown */
	bool own_cpu;			/**< no other thread of the run on it */
	uint64_t nonvoluntary_ctxt_switches;
	uint64_t migrations;		/**< moves to another CPU */
	double runqueue_wait_share;	/**< runnable, not running; NaN: unknown */
	double runnable_share;	/**< running or runnable; NaN: unknown */
};

/** Another process that ran on a poll CPU during a repetition. */
struct rxr_report_noise_task {
	int pid;
	const char *comm;		/**< its command name */
	unsigned int cpu;		/**< the CPU it last ran on */
	double cpu_share;		/**< of one CPU over the window */
};

/** What else took the machine while a repetition was measured. */
struct rxr_report_noise {
	double asked_s;			/**< duration asked; NaN: none (loops) */
	const struct rxr_report_noise_cpu *cpus;
	unsigned int nb_cpus;
	const struct rxr_report_noise_lcore *lcores;
	unsigned int nb_lcores;
	const struct rxr_report_noise_task *busy_tasks;
	unsigned int nb_busy_tasks;
	unsigned int disturbed;		/**< RXR_REPORT_DISTURBED_* bits; 0: not */
};

/**
 * Run figures, X(name, row, when, help): double run.name, runs[].name,
 * its table rows and summary. row: HIGHER or LOWER is better; when:
 * REQUIRED, OPTIONAL (older reports lack it) or SPARSE (a row only when
 * some run has one).
 */
#define RXR_REPORT_FIGURES(X) \
	X(gbps, HIGHER, REQUIRED, "rx_bytes * 8 / duration_s / 1e9") \
	X(gbps_wire, HIGHER, REQUIRED, \
		"(rx_bytes + 24 * rx_packets) * 8 / duration_s / 1e9") \
	X(mpps, HIGHER, REQUIRED, "rx_packets / duration_s / 1e6") \
	X(cycles_per_packet, LOWER, REQUIRED, \
		"poll lcore cycles / rx_packets") \
	X(refill_cycles_per_frame, LOWER, REQUIRED, \
		"refill path cycles per frame, over the sampled iterations") \
	X(allocator_cycles_per_packet, LOWER, OPTIONAL, \
		"cycles in the pool's entry points per packet, sampled") \
	X(consumer_free_cycles_per_packet, LOWER, SPARSE, \
		"consumer cycles spent freeing, per packet it freed")

/**
 * A run's objects, X(group, name, type, row, prec, help): run.group.name,
 * JSON group.name and, unless row is NONE, the table row "group.name".
 * type: COUNT (uint64_t), NUMBER (double, null unless finite) or STRING;
 * row: NONE, COUNT (neither way better), HIGHER or LOWER; prec: decimals.
 */
#define RXR_REPORT_PCP_FIELDS(X) \
	X(pcp, hits, COUNT, NONE, 0, "allocations served by the pcp") \
	X(pcp, misses, COUNT, NONE, 0, "allocations that went to the zone") \
	X(pcp, hit_rate, NUMBER, HIGHER, 4, \
		"hits / (hits + misses)")
#define RXR_REPORT_ZONE_LOCK_FIELDS(X) \
	X(zone_lock, acquisitions, COUNT, NONE, 0, "zone lock acquisitions") \
	X(zone_lock, contended, COUNT, LOWER, 0, \
		"zone lock acquisitions that found it held") \
	X(zone_lock, wait_cycles, COUNT, NONE, 0, \
		"cycles spent spinning on the zone lock") \
	X(zone_lock, wait_share, NUMBER, LOWER, 4, \
		"share of poll time spent waiting for the zone lock, 0..1")
#define RXR_REPORT_DEFERRED_FIELDS(X) \
	X(deferred, queued, COUNT, COUNT, 0, \
		"frames freed by other contexts, queued for the owner") \
	X(deferred, drained, COUNT, COUNT, 0, \
		"frames freed by other contexts and drained by the owner")
#define RXR_REPORT_ZEROING_FIELDS(X) \
	X(zeroing, policy, STRING, NONE, 0, \
		"\"alloc\", \"free\", \"background\"") \
	X(zeroing, method, STRING, NONE, 0, \
		"\"narrow\", \"contig\", \"nt\", ...") \
	X(zeroing, bytes, COUNT, NONE, 0, "bytes cleared") \
	X(zeroing, gbps, NUMBER, HIGHER, 2, "clearing rate, Gbit/s") \
	X(zeroing, max_poll_gap_us, NUMBER, LOWER, 2, \
		"longest poll gap while clearing, us")
/** cycles_per_packet split as the kernel's system time in
 * clear_huge_page() against its user time. */
#define RXR_REPORT_POLL_FIELDS(X) \
	X(poll, clear_cycles_per_packet, NUMBER, LOWER, 1, \
		"poll lcore cycles clearing frames, per packet") \
	X(poll, rest_cycles_per_packet, NUMBER, LOWER, 1, \
		"the other poll lcore cycles per packet")
#define RXR_REPORT_ZEROER_FIELDS(X) \
	X(zeroer, cpu, COUNT, NONE, 0, "the CPU it ran on") \
	X(zeroer, poll_lcores_on_cpu, COUNT, NONE, 0, \
		"poll lcores that share that CPU") \
	X(zeroer, busy_share, NUMBER, LOWER, 3, \
		"share of the window it spent filling supplies") \
	X(zeroer, clear_cycles_per_packet, NUMBER, LOWER, 1, \
		"its cycles clearing frames, per packet received") \
	X(zeroer, get_empty, COUNT, LOWER, 0, \
		"poll lcore allocations that found no pre-zeroed frame") \
	X(zeroer, get_short, COUNT, NONE, 0, \
		"... that found fewer than they asked for")
#define RXR_REPORT_STREAMS_UNTRACKED_FIELDS(X) \
	X(streams_untracked, packets, COUNT, NONE, 0, "packets") \
	X(streams_untracked, bytes, COUNT, NONE, 0, "frame bytes")
#define RXR_REPORT_STREAMS_UNTRACKED_BY_CAUSE_FIELDS(X) \
	X(streams_untracked_by_cause, no_room_packets, COUNT, NONE, 0, \
		"packets of flows the stream table had no room for") \
	X(streams_untracked_by_cause, no_room_bytes, COUNT, NONE, 0, \
		"their frame bytes") \
	X(streams_untracked_by_cause, not_ip_packets, COUNT, NONE, 0, \
		"frames with no IPv4 or IPv6 after the L2 header") \
	X(streams_untracked_by_cause, not_ip_bytes, COUNT, NONE, 0, \
		"their frame bytes") \
	X(streams_untracked_by_cause, truncated_packets, COUNT, NONE, 0, \
		"frames ending inside a header the flow key needs") \
	X(streams_untracked_by_cause, truncated_bytes, COUNT, NONE, 0, \
		"their frame bytes") \
	X(streams_untracked_by_cause, malformed_packets, COUNT, NONE, 0, \
		"frames whose IP or TCP/UDP header contradicts itself") \
	X(streams_untracked_by_cause, malformed_bytes, COUNT, NONE, 0, \
		"their frame bytes")

/** G(group, list, when), when: ALWAYS, or HAS (written when
 * run.has_<group> is set, optional when read). */
#define RXR_REPORT_GROUPS(G) \
	G(pcp, RXR_REPORT_PCP_FIELDS, ALWAYS) \
	G(zone_lock, RXR_REPORT_ZONE_LOCK_FIELDS, ALWAYS) \
	G(deferred, RXR_REPORT_DEFERRED_FIELDS, HAS) \
	G(zeroing, RXR_REPORT_ZEROING_FIELDS, HAS) \
	G(poll, RXR_REPORT_POLL_FIELDS, HAS) \
	G(zeroer, RXR_REPORT_ZEROER_FIELDS, HAS) \
	G(streams_untracked, RXR_REPORT_STREAMS_UNTRACKED_FIELDS, HAS) \
	G(streams_untracked_by_cause, \
		RXR_REPORT_STREAMS_UNTRACKED_BY_CAUSE_FIELDS, HAS)

#define RXR_REPORT_CTYPE_COUNT uint64_t
#define RXR_REPORT_CTYPE_NUMBER double
#define RXR_REPORT_CTYPE_STRING const char *

/** @cond internal */
#define RXR_REPORT_FIGURE_MEMBER_(n, row, when, help) double n;
#define RXR_REPORT_MEMBER_(g, f, t, row, prec, help) RXR_REPORT_CTYPE_##t f;
#define RXR_REPORT_GROUP_ID_(g, list, when) RXR_REPORT_GROUP_##g,
#define RXR_REPORT_GROUP_STRUCT_(g, list, when) \
	struct rxr_report_##g { list(RXR_REPORT_MEMBER_) };
/** @endcond */

RXR_REPORT_GROUPS(RXR_REPORT_GROUP_STRUCT_)

enum rxr_report_group_id {
	RXR_REPORT_GROUPS(RXR_REPORT_GROUP_ID_)
	RXR_REPORT_GROUPS_NUM	/**< number of groups */
};

/** "group.field", checked at compile time. */
#define RXR_REPORT_PATH(g, f) \
	(&(#g "." #f)[0 * sizeof(((struct rxr_report_##g *)0)->f)])

/** pcp.hit_rate: hits / (hits + misses); NaN without allocations. */
double rxr_report_pcp_hit_rate(const struct rxr_report_pcp *pcp);

/** One repetition: zero it, fill what you have; gbps, gbps_wire, mpps and
 * pcp.hit_rate are derived; a double not finite is written as null. */
struct rxr_report_run {
	const char *strategy;		/**< the strategy's registry name */
	bool bulk;			/**< bulk alloc/free on */
	uint32_t rep;			/**< repetition index from 0 */
	const char *cut_short;		/**< why it stopped early; NULL: not */
	double duration_s;		/**< measured seconds, >= 0 */
	uint64_t rx_packets;		/**< packets received */
	uint64_t rx_bytes;		/**< frame bytes received (no FCS) */
	RXR_REPORT_FIGURES(RXR_REPORT_FIGURE_MEMBER_) /**< NAN: unmeasured */
	uint32_t refill_latency_sample_every;	/**< 0: latency off */
	unsigned int nb_drops;		/**< entries used in drops[] */
	struct rxr_report_drop drops[RXR_REPORT_DROPS_MAX];
	struct rxr_report_pcp pcp;
	struct rxr_report_zone_lock zone_lock;
	bool has_deferred;		/**< write deferred{} (bh) */
	struct rxr_report_deferred deferred;
	unsigned int nb_strategy_counters;	/**< the strategy's own */
	struct rxr_report_drop strategy_counters[RXR_REPORT_DROPS_MAX];
	bool has_zeroing;		/**< write zeroing{} (policy != none) */
	struct rxr_report_zeroing zeroing;
	bool has_poll;			/**< write poll{} */
	struct rxr_report_poll poll;
	bool has_zeroer;		/**< write zeroer{} */
	struct rxr_report_zeroer zeroer;
	uint64_t refill_latency_ns[RXR_REPORT_HIST_BUCKETS]; /**< log2 buckets */
	const struct rxr_report_stream *streams; /**< nb_streams flows */
	unsigned int nb_streams;
	bool has_streams_untracked;	/**< frames no stream row holds */
	struct rxr_report_streams_untracked streams_untracked;
	bool has_streams_untracked_by_cause;
	struct rxr_report_streams_untracked_by_cause streams_untracked_by_cause;
	bool has_streams_counted_by_poll;	/**< deferred counting ran */
	uint64_t streams_counted_by_poll;	/**< by the poll lcores */
	bool has_noise;			/**< write noise{} and disturbed */
	struct rxr_report_noise noise;
};

/** An ethdev port of the run. */
struct rxr_report_port {
	uint16_t port;		/**< port id */
	const char *driver;	/**< "net_mlx5", "net_pcap", ... */
	const char *name;	/**< device name */
};

/** The machine and the invocation. */
struct rxr_report_env {
	const char *dpdk_version;	/**< rte_version() */
	const char *host;		/**< NULL: gethostname() */
	const char *cpu_model;		/**< NULL: from /proc/cpuinfo */
	const unsigned int *lcores;	/**< lcore ids used */
	unsigned int nb_lcores;
	bool no_huge;			/**< EAL ran with --no-huge */
	const struct rxr_report_port *ports;
	unsigned int nb_ports;
	int argc;			/**< command line, quoted and joined */
	char *const *argv;
};

/** A report, built here or loaded from a file. */
struct rxr_report;

/** Interleaved repetitions, A B C A B C: a drift spreads over all. */
static inline void
rxr_report_schedule(unsigned int step, unsigned int nb_configs,
		unsigned int *config, unsigned int *rep)
{
	*config = step % nb_configs;
	*rep = step / nb_configs;
}

/** An empty report, created now; NULL when out of memory. */
struct rxr_report *rxr_report_create(void);

/** Free a report made by rxr_report_create() or rxr_report_load(). */
void rxr_report_free(struct rxr_report *r);

/** Set env (host, cpu_model looked up when NULL); 0 or -errno. */
int rxr_report_set_env(struct rxr_report *r, const struct rxr_report_env *env,
		char *err, size_t errlen);

/** Set env.options.name (replaces an earlier value). */
int rxr_report_set_option_str(struct rxr_report *r, const char *name,
		const char *value);
int rxr_report_set_option_int(struct rxr_report *r, const char *name,
		int64_t value);
int rxr_report_set_option_double(struct rxr_report *r, const char *name,
		double value);
int rxr_report_set_option_bool(struct rxr_report *r, const char *name,
		bool value);

/** Mark the report partial (written after every repetition). */
void rxr_report_set_partial(struct rxr_report *r, bool partial);

/** Append a run; 0, -EINVAL (a duplicate, a negative figure) or -ENOMEM. */
int rxr_report_add_run(struct rxr_report *r, const struct rxr_report_run *run,
		char *err, size_t errlen);

/** Number of runs, and of those cut short. */
unsigned int rxr_report_nb_runs(const struct rxr_report *r);
unsigned int rxr_report_nb_cut_short(const struct rxr_report *r);

/** The document, owned by the report; validated again before a write. */
json_t *rxr_report_json(const struct rxr_report *r);

/** Check a document against the schema; 0 or -EINVAL. */
int rxr_report_validate(const json_t *doc, const char *name, char *err,
		size_t errlen);

/** Validate and write to path atomically (temporary file, fsync, rename),
 * keeping the mode of the file replaced; 0 or -errno. */
int rxr_report_write_atomic(const struct rxr_report *r, const char *path,
		char *err, size_t errlen);

/** Load and validate a report file; NULL with err set. */
struct rxr_report *rxr_report_load(const char *path, char *err, size_t errlen);

/** A JSON document as reports are read: a regular file of at most
 * 256 MiB, no duplicate key; NULL with err set. */
json_t *rxr_report_json_load(const char *path, char *err, size_t errlen);

/** rxr_report_json_load() from memory; name is used in messages. */
json_t *rxr_report_json_loadb(const char *buf, size_t len, const char *name,
		char *err, size_t errlen);

/** The report of doc (stolen), validated; NULL with err set. */
struct rxr_report *rxr_report_of_json(json_t *doc, const char *name,
		char *err, size_t errlen);

/** Rows: a metric, or a prefix ending at '.' or '['; none: every row. */
struct rxr_report_select {
	const char *const *metrics;
	unsigned int nb_metrics;
	bool stream_rows;	/**< every stream's row, not only fairness */
	double alpha;		/**< of the n.s. marks; 0: the first report's */
	const atomic_bool *stop;	/**< set by a signal: end the table */
};

/** Whether sel names a known metric or group; their list, for --help. */
bool rxr_report_metric_known(const char *sel);
const char *rxr_report_metric_help(void);

/** Print one report, a column per configuration; 0, -ENOMEM or -EIO. */
int rxr_report_render_text(const struct rxr_report *r, FILE *out,
		const struct rxr_report_select *sel);

/** Print one report within 120 columns; 0, -ENOMEM or -EIO. */
int rxr_report_render_brief(const struct rxr_report *r, FILE *out);

/** Print reports side by side, a column per report; 0, -ENOMEM, -EIO. */
int rxr_report_compare_text(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, FILE *out,
		const struct rxr_report_select *sel);

/** Regressions against the first report, each printed on out: their
 * count, or -ENOMEM; without any, the undecided comparisons. */
int rxr_report_compare_gate(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel, double pct, double drops,
		FILE *out, int *undecided);

/** The comparison as an rxrefill-compare/1 document; NULL on ENOMEM. */
json_t *rxr_report_compare_json(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel);

/** Set env.<key> or runs[idx].<key>, stealing v; 0, -EINVAL or -ENOMEM. */
int rxr_report_env_set(struct rxr_report *r, const char *key, json_t *v);
int rxr_report_run_set(struct rxr_report *r, unsigned int idx,
		const char *key, json_t *v);

/** Print the latency percentiles and, with detail, the per-run tables;
 * 0, -ENOMEM or -EIO. */
int rxr_report_render_extra(const struct rxr_report *r, FILE *out,
		bool detail);

/** Latency percentiles of each configuration; NULL on ENOMEM. */
json_t *rxr_report_percentiles_json(struct rxr_report *const *reports,
		unsigned int n);

/** Warn of each environment difference and debug build; their count. */
int rxr_report_env_differences(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, FILE *out);

/** --reps auto: whether every Gbit/s ratio to the first is decided; why
 * gets the reason or what is open. */
bool rxr_report_reps_auto(const struct rxr_report *r, unsigned int rounds,
		unsigned int max, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* RXR_REPORT_H */
