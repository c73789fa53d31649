/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_REPORT_H
#define RXR_REPORT_H

/**
 * @file
 * Run reports: one JSON document per run (doc/report-schema.md), built
 * from C structs, written atomically, loaded, validated and rendered as
 * mmtests-shaped text tables. libc and jansson only: no EAL.
 *
 * Functions that can fail take a buffer (err, errlen; err may be NULL)
 * and write into it one line naming the file or field involved.
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
/** A good size for error buffers. */
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
	/** Measured longer than asked: the process was stopped or starved. */
	RXR_REPORT_DISTURBED_DURATION = 1u << 0,
	/** The hypervisor ran something else on a poll CPU (steal time). */
	RXR_REPORT_DISTURBED_STEAL = 1u << 1,
	/** A poll lcore with a CPU of its own was switched out involuntarily. */
	RXR_REPORT_DISTURBED_SWITCHES = 1u << 2,
	/** A poll lcore neither ran nor waited for a CPU for part of the time
	 * it polled: the process was stopped (SIGSTOP, a cgroup freezer). */
	RXR_REPORT_DISTURBED_STOPPED = 1u << 3,
};
/** Number of causes in enum rxr_report_disturbance. */
#define RXR_REPORT_DISTURBED_CAUSES 4

/** Name of cause bit i ("duration", "steal", "switches", "stopped"), NULL
 * past them. */
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
	/** No other thread of the run is placed on its CPUs: switches count. */
	bool own_cpu;
	uint64_t nonvoluntary_ctxt_switches;
	uint64_t migrations;		/**< moves to another CPU */
	/** Share of the window it was runnable but waiting for a CPU; NaN:
	 * unknown (a kernel without schedstat). */
	double runqueue_wait_share;
	/** Share of the time it polled that it was running or waiting for a
	 * CPU (1 unless stopped); NaN: unknown. */
	double runnable_share;
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
 * @name Run figures
 * X(name, row, when, help): the double run.name, the JSON field
 * runs[].name (list order; null unless finite), its check, its table
 * rows (Min, Median, Mean, Stddev, Max) and its summary statistics.
 * - row: HIGHER or LOWER (better that way).
 * - when: REQUIRED, OPTIONAL (absent from older reports; a row always)
 *   or SPARSE (a row only when some run has one).
 * @{
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

/** @} */

/**
 * @name Report groups
 * A run's fixed-name objects ("pcp": {"hits": ...}), a list per group:
 * X(group, name, type, row, prec, help) is run.group.name, the JSON field
 * group.name (list order), its check and, unless row is NONE, a table row
 * "group.name".
 * - type: COUNT (uint64_t; integer >= 0), NUMBER (double; number >= 0,
 *   null unless finite) or STRING (const char *).
 * - row: NONE, COUNT (neither way better), HIGHER or LOWER; prec: decimals.
 * @{
 */
/** The pcp: allocations served from the per-lcore cache or not. */
#define RXR_REPORT_PCP_FIELDS(X) \
	X(pcp, hits, COUNT, NONE, 0, "allocations served by the pcp") \
	X(pcp, misses, COUNT, NONE, 0, "allocations that went to the zone") \
	X(pcp, hit_rate, NUMBER, HIGHER, 4, \
		"hits / (hits + misses)")
/** The zone lock. */
#define RXR_REPORT_ZONE_LOCK_FIELDS(X) \
	X(zone_lock, acquisitions, COUNT, NONE, 0, "zone lock acquisitions") \
	X(zone_lock, contended, COUNT, LOWER, 0, \
		"zone lock acquisitions that found it held") \
	X(zone_lock, wait_cycles, COUNT, NONE, 0, \
		"cycles spent spinning on the zone lock") \
	X(zone_lock, wait_share, NUMBER, LOWER, 4, \
		"share of poll time spent waiting for the zone lock, 0..1")
/** Frees deferred to the owner lcore (bh); written when has_deferred. */
#define RXR_REPORT_DEFERRED_FIELDS(X) \
	X(deferred, queued, COUNT, COUNT, 0, \
		"frames freed by other contexts, queued for the owner") \
	X(deferred, drained, COUNT, COUNT, 0, \
		"frames freed by other contexts and drained by the owner")
/** Frame zeroing; written when has_zeroing (policy other than none). */
#define RXR_REPORT_ZEROING_FIELDS(X) \
	X(zeroing, policy, STRING, NONE, 0, \
		"\"alloc\", \"free\", \"background\"") \
	X(zeroing, method, STRING, NONE, 0, \
		"\"narrow\", \"contig\", \"nt\", ...") \
	X(zeroing, bytes, COUNT, NONE, 0, "bytes cleared") \
	X(zeroing, gbps, NUMBER, HIGHER, 2, "clearing rate, Gbit/s") \
	X(zeroing, max_poll_gap_us, NUMBER, LOWER, 2, \
		"longest poll gap while clearing, us")
/**
 * cycles_per_packet split: clearing frames (the kernel's system time in
 * clear_huge_page()) against the rest (its user time). Written when
 * has_poll: several zeroings per strategy and bulk.
 */
#define RXR_REPORT_POLL_FIELDS(X) \
	X(poll, clear_cycles_per_packet, NUMBER, LOWER, 1, \
		"poll lcore cycles clearing frames, per packet") \
	X(poll, rest_cycles_per_packet, NUMBER, LOWER, 1, \
		"the other poll lcore cycles per packet")
/** The background policy's zeroing thread; written when has_zeroer. */
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
/** What no stream row holds (non-IP frames, flows past the table);
 * written when has_streams_untracked. */
#define RXR_REPORT_STREAMS_UNTRACKED_FIELDS(X) \
	X(streams_untracked, packets, COUNT, NONE, 0, "packets") \
	X(streams_untracked, bytes, COUNT, NONE, 0, "frame bytes")
/** streams_untracked by cause, adding up to it; written when
 * has_streams_untracked_by_cause (reports before it lack the group). */
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

/**
 * The groups: G(group, list, when). when: ALWAYS, or HAS (written when
 * run.has_<group> is set, optional when read).
 */
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

/** Every group's fields, in the order of RXR_REPORT_GROUPS. */
#define RXR_REPORT_ALL_FIELDS(X) \
	RXR_REPORT_PCP_FIELDS(X) \
	RXR_REPORT_ZONE_LOCK_FIELDS(X) \
	RXR_REPORT_DEFERRED_FIELDS(X) \
	RXR_REPORT_ZEROING_FIELDS(X) \
	RXR_REPORT_POLL_FIELDS(X) \
	RXR_REPORT_ZEROER_FIELDS(X) \
	RXR_REPORT_STREAMS_UNTRACKED_FIELDS(X) \
	RXR_REPORT_STREAMS_UNTRACKED_BY_CAUSE_FIELDS(X)

/** C type of a field of each type. */
#define RXR_REPORT_CTYPE_COUNT uint64_t
#define RXR_REPORT_CTYPE_NUMBER double
#define RXR_REPORT_CTYPE_STRING const char *

/** @cond internal */
#define RXR_REPORT_FIGURE_MEMBER_(n, row, when, help) double n;
#define RXR_REPORT_MEMBER_(g, f, t, row, prec, help) RXR_REPORT_CTYPE_##t f;
#define RXR_REPORT_FIELD_ID_(g, f, t, row, prec, help) \
	RXR_REPORT_FIELD_##g##_##f,
#define RXR_REPORT_GROUP_ID_(g, list, when) RXR_REPORT_GROUP_##g,
#define RXR_REPORT_GROUP_STRUCT_(g, list, when) \
	struct rxr_report_##g { list(RXR_REPORT_MEMBER_) };
/** @endcond */

/* struct rxr_report_pcp, struct rxr_report_zone_lock, ...: run.<group>. */
RXR_REPORT_GROUPS(RXR_REPORT_GROUP_STRUCT_)

/** Fields by id: RXR_REPORT_FIELD_pcp_hits, ... */
enum rxr_report_field_id {
	RXR_REPORT_ALL_FIELDS(RXR_REPORT_FIELD_ID_)
	RXR_REPORT_FIELDS_NUM	/**< number of fields */
};

/** Groups by id: RXR_REPORT_GROUP_pcp, ... */
enum rxr_report_group_id {
	RXR_REPORT_GROUPS(RXR_REPORT_GROUP_ID_)
	RXR_REPORT_GROUPS_NUM	/**< number of groups */
};

/**
 * "group.field" as a constant string, for a table of metric names; a
 * compile error when struct rxr_report_<group> has no such member.
 */
#define RXR_REPORT_PATH(g, f) \
	(&(#g "." #f)[0 * sizeof(((struct rxr_report_##g *)0)->f)])

/** pcp.hit_rate: hits / (hits + misses); NaN without allocations. */
double rxr_report_pcp_hit_rate(const struct rxr_report_pcp *pcp);
/** @} */

/**
 * One repetition of one (strategy, bulk) pair, as measured; zero it and
 * fill what you have. rxr_report_add_run() derives gbps, gbps_wire, mpps
 * and pcp.hit_rate from the counters. A double that is not finite is
 * written as null ("could not be measured").
 */
struct rxr_report_run {
	const char *strategy;		/**< the strategy's registry name */
	bool bulk;			/**< bulk alloc/free on */
	uint32_t rep;			/**< repetition index from 0 */
	/**
	 * NULL: ran to its end ("complete": true). Else why it stopped
	 * early ("SIGTERM", ...): "complete": false with "cut_short", and
	 * left out of the summary, the tables and the comparisons.
	 */
	const char *cut_short;
	double duration_s;		/**< measured seconds, >= 0 */
	uint64_t rx_packets;		/**< packets received */
	uint64_t rx_bytes;		/**< frame bytes received (no FCS) */
	/** The figures (RXR_REPORT_FIGURES): NAN where not measured. */
	RXR_REPORT_FIGURES(RXR_REPORT_FIGURE_MEMBER_)
	/** One poll-context refill in this many is timed into
	 * refill_latency_ns and refill_cycles_per_frame; 0: off. */
	uint32_t refill_latency_sample_every;
	unsigned int nb_drops;		/**< entries used in drops[] */
	struct rxr_report_drop drops[RXR_REPORT_DROPS_MAX];
	struct rxr_report_pcp pcp;
	struct rxr_report_zone_lock zone_lock;
	bool has_deferred;		/**< write deferred{} (bh) */
	struct rxr_report_deferred deferred;
	/** The strategy's own counters: strategy_counters{name: count}. */
	unsigned int nb_strategy_counters;
	struct rxr_report_drop strategy_counters[RXR_REPORT_DROPS_MAX];
	bool has_zeroing;		/**< write zeroing{} (policy != none) */
	struct rxr_report_zeroing zeroing;
	bool has_poll;			/**< write poll{} */
	struct rxr_report_poll poll;
	bool has_zeroer;		/**< write zeroer{} */
	struct rxr_report_zeroer zeroer;
	/** Refill latency, counts per log2 bucket (RXR_REPORT_HIST_BUCKETS). */
	uint64_t refill_latency_ns[RXR_REPORT_HIST_BUCKETS];
	const struct rxr_report_stream *streams; /**< nb_streams flows */
	unsigned int nb_streams;
	bool has_streams_untracked;	/**< write streams_untracked{} */
	/** What no stream row holds: non-IP frames, flows past the table. */
	struct rxr_report_streams_untracked streams_untracked;
	/** Write streams_untracked_by_cause{}. */
	bool has_streams_untracked_by_cause;
	/** streams_untracked by cause: no room, not IP, truncated, malformed. */
	struct rxr_report_streams_untracked_by_cause streams_untracked_by_cause;
	/** Deferred stream counting ran: write streams_counted_by_poll. */
	bool has_streams_counted_by_poll;
	/** Of the packets logged, those the poll lcores counted themselves. */
	uint64_t streams_counted_by_poll;
	/** Write noise{}, disturbed and disturbed_by. */
	bool has_noise;
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

/**
 * Interleaved repetitions, A B C A B C ...: a slow drift of a shared
 * machine spreads over every config.
 */
static inline void
rxr_report_schedule(unsigned int step, unsigned int nb_configs,
		unsigned int *config, unsigned int *rep)
{
	*config = step % nb_configs;
	*rep = step / nb_configs;
}

/**
 * Create an empty report: schema set, partial false, created now, no env,
 * no runs. NULL when out of memory.
 */
struct rxr_report *rxr_report_create(void);

/** Free a report made by rxr_report_create() or rxr_report_load(). */
void rxr_report_free(struct rxr_report *r);

/**
 * Set env. host and cpu_model are looked up when NULL.
 * @return 0, or -EINVAL/-ENOMEM with err filled.
 */
int rxr_report_set_env(struct rxr_report *r, const struct rxr_report_env *env,
		char *err, size_t errlen);

/** Set env.options.name to a string (replaces an earlier value). */
int rxr_report_set_option_str(struct rxr_report *r, const char *name,
		const char *value);
/** Set env.options.name to an integer. */
int rxr_report_set_option_int(struct rxr_report *r, const char *name,
		int64_t value);
/** Set env.options.name to a number. */
int rxr_report_set_option_double(struct rxr_report *r, const char *name,
		double value);
/** Set env.options.name to a bool. */
int rxr_report_set_option_bool(struct rxr_report *r, const char *name,
		bool value);

/**
 * Mark the report partial (interrupted) or complete: rxrefill writes it
 * partial after every repetition, so an interrupted run leaves a valid one.
 */
void rxr_report_set_partial(struct rxr_report *r, bool partial);

/**
 * Append a run; the summary follows when the report is next written or
 * read (rxr_report_json()).
 * @return 0; -EINVAL (no strategy, an empty or duplicate drop cause, a
 *   configuration and rep already present, a stream without addresses,
 *   a negative figure) or -ENOMEM, with err filled.
 */
int rxr_report_add_run(struct rxr_report *r, const struct rxr_report_run *run,
		char *err, size_t errlen);

/** Number of runs, complete or cut short. */
unsigned int rxr_report_nb_runs(const struct rxr_report *r);

/** Number of runs marked "complete": false (cut short). */
unsigned int rxr_report_nb_cut_short(const struct rxr_report *r);

/** The document, owned by the report; validated again before a write. */
json_t *rxr_report_json(const struct rxr_report *r);

/**
 * Check a document against the schema.
 * @param name  prefix of the message, usually the file name
 * @return 0, or -EINVAL with err naming the field, e.g.
 *   "a.json: runs[2].pcp.hits: missing".
 */
int rxr_report_validate(const json_t *doc, const char *name, char *err,
		size_t errlen);

/**
 * Validate the report and write it to path atomically: a temporary file
 * in the same directory (a killed writer may leave a ".<name>.tmp.XXXXXX"),
 * fsync, rename over path (a symlink is replaced, not followed), fsync the
 * directory. The file keeps the mode of the one it replaces, else 0644.
 * @return 0 or -errno, with err naming path and the failed step; after a
 *   failed fsync of the directory the report is in place but might not
 *   survive a power loss.
 */
int rxr_report_write_atomic(const struct rxr_report *r, const char *path,
		char *err, size_t errlen);

/**
 * Load and validate a report file.
 * @return the report, or NULL with err set: "<path>:3:14: malformed
 *   JSON: ...", "<path>: runs[0].gbps: missing", ...
 */
struct rxr_report *rxr_report_load(const char *path, char *err, size_t errlen);

/**
 * Read a JSON document as reports are read: a regular file of at most
 * 256 MiB, no duplicate key. New reference, or NULL with err set.
 */
json_t *rxr_report_json_load(const char *path, char *err, size_t errlen);

/** rxr_report_json_load() from memory; name is used in messages. */
json_t *rxr_report_json_loadb(const char *buf, size_t len, const char *name,
		char *err, size_t errlen);

/** The report of a document, validated; doc is stolen, also on failure.
 * NULL with err set. */
struct rxr_report *rxr_report_of_json(json_t *doc, const char *name,
		char *err, size_t errlen);

/**
 * Row selection. A selector picks a metric it names or is a prefix of,
 * ending at '.' or '[' ("drops" picks every drops.<cause>). NULL or no
 * selectors: everything.
 */
struct rxr_report_select {
	const char *const *metrics;
	unsigned int nb_metrics;
	/** Every stream's row; else only fairness, unless selected. */
	bool stream_rows;
	/** Significance level of the n.s. marks; 0: the first report's. */
	double alpha;
	/** NULL, or a flag a signal handler sets: the table then ends
	 * early, so that a long stream listing answers a stop at once. */
	const atomic_bool *stop;
};

/** Whether sel names a known metric or group (rxr_report_metric_help()). */
bool rxr_report_metric_known(const char *sel);

/** The known metric names and groups, for --help. */
const char *rxr_report_metric_help(void);

/**
 * Print one report as text: header, a column per configuration with %
 * against the first (n.s. on each metric's tested row), the refill latency
 * histogram, stream rows, and the Gbit/s findings against the first
 * configuration and bulk on: "zone-bulk: 0.66x bh-bulk Gbit/s (95% CI
 * 0.55-0.79, p 0.016, 8 paired rounds)".
 * @return 0, -ENOMEM or -EIO.
 */
int rxr_report_render_text(const struct rxr_report *r, FILE *out,
		const struct rxr_report_select *sel);

/**
 * Print one report within 120 columns: a row per configuration with the
 * metrics that decide (Gbit/s, Mpps, refill and allocator cycles, drops,
 * the zone lock's wait share), then the findings.
 * @return 0, -ENOMEM or -EIO.
 */
int rxr_report_render_brief(const struct rxr_report *r, FILE *out);

/**
 * Print reports side by side, a column per report (headed by labels), %
 * against the first; rows "<config>.<metric>", "-" where a report lacks
 * the configuration. Unpaired tests (a report given twice is paired over
 * its own rounds); the findings follow.
 * @return 0, -ENOMEM or -EIO.
 */
int rxr_report_compare_text(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, FILE *out,
		const struct rxr_report_select *sel);

/**
 * Regressions against the first report on the tested rows: a drop cause
 * rising by more than @p drops a repetition; another metric significantly
 * worse by more than @p pct percent. Each printed on @p out (may be NULL)
 * as "worse: <config>.<metric> <label>: ...". When there is none,
 * @p undecided gets the comparisons that cannot decide (else 0): a side
 * without a value, a test that cannot reach alpha with these runs, or a
 * report with no configuration in common with the first, each printed as
 * "undecided: ...".
 * @return the number of regressions, or -ENOMEM.
 */
int rxr_report_compare_gate(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel, double pct, double drops,
		FILE *out, int *undecided);

/**
 * The comparison as an rxrefill-compare/1 document; with n == 1, that
 * report's own table. New reference; NULL on ENOMEM.
 */
json_t *rxr_report_compare_json(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n,
		const struct rxr_report_select *sel);

/** Set env.<key> (versions, build, kernel, ...); steals v.
 * @return 0, -EINVAL (no env, NULL key or value) or -ENOMEM. */
int rxr_report_env_set(struct rxr_report *r, const char *key, json_t *v);

/** Set runs[idx].<key> (queues, lcores, xstats); steals v.
 * @return 0, -EINVAL (no such run) or -ENOMEM. */
int rxr_report_run_set(struct rxr_report *r, unsigned int idx,
		const char *key, json_t *v);

/**
 * Print a note on debug checks, each configuration's refill latency
 * percentiles and, with detail, every run's per-queue, per-lcore and
 * changed extended statistics.
 * @return 0, -ENOMEM or -EIO.
 */
int rxr_report_render_extra(const struct rxr_report *r, FILE *out,
		bool detail);

/**
 * Each configuration's refill latency percentiles: [{"config",
 * "percentile", "ns", "lo", "hi"}], the last three an entry per report
 * (null: no histogram). New reference; NULL on ENOMEM.
 */
json_t *rxr_report_percentiles_json(struct rxr_report *const *reports,
		unsigned int n);

/**
 * Print a "warning: ..." line for each environment or workload field in
 * which a report differs from the first (a field it lacks is not
 * compared), and for each report measured with debug checks.
 * @return the number of warnings.
 */
int rxr_report_env_differences(struct rxr_report *const *reports,
		const char *const *labels, unsigned int n, FILE *out);

/**
 * --reps auto: a ratio to the first configuration is decided when its
 * interval excludes 1 or is within +- this many percent (about 8 rounds
 * on a shared 2-vCPU machine where configurations differ by less than
 * their noise).
 */
#define RXR_REPORT_AUTO_RATIO_PCT 20.0
/** --reps auto, one configuration: its interval within this % of its mean. */
#define RXR_REPORT_AUTO_MEAN_PCT 2.0

/**
 * --reps auto after round @p rounds of @p max: whether every Gbit/s ratio
 * to the first configuration is decided (with one configuration, its
 * interval of the mean). @p why gets the reason, or what is still open.
 */
bool rxr_report_reps_auto(const struct rxr_report *r, unsigned int rounds,
		unsigned int max, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* RXR_REPORT_H */
