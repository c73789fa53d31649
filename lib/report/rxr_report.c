/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Report builder: C structs in, a jansson document out; fields of the
 * environment and the runs that the builder does not know in detail set
 * as JSON.
 */

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rxr_proc_text.h"
#include "rxr_report_priv.h"
#include "rxr_stats.h"

struct rxr_report *
rxr_report_create(void)
{
	struct rxr_report *r = calloc(1, sizeof(*r));
	time_t now = time(NULL);
	char created[32];
	struct tm tm;

	if (r == NULL || gmtime_r(&now, &tm) == NULL) {
		free(r);
		return NULL;
	}
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	/* Options may come before env; env keeps its place. */
	r->doc = json_pack("{s:s, s:b, s:s, s:{s:{}}, s:[], s:[]}", "schema",
		RXR_REPORT_SCHEMA, "partial", 0, "created", created, "env",
		"options", "runs", "summary");
	if (r->doc == NULL || rxrr_set_alpha(r, RXR_REPORT_ALPHA_DEFAULT)) {
		rxr_report_free(r);
		return NULL;
	}
	return r;
}

void
rxr_report_free(struct rxr_report *r)
{
	if (r == NULL)
		return;
	json_decref(r->doc);
	free(r);
}

json_t *
rxr_report_json(const struct rxr_report *r)
{
	rxrr_fresh(r);
	return r->doc;
}

void
rxr_report_set_partial(struct rxr_report *r, bool partial)
{
	json_object_set_new(r->doc, "partial", json_boolean(partial));
}

unsigned int
rxr_report_nb_runs(const struct rxr_report *r)
{
	return (unsigned int)json_array_size(json_object_get(r->doc, "runs"));
}

/* Characters that make a shell treat an argument as more than a word. */
static bool
needs_quotes(const char *s)
{
	if (*s == '\0')
		return true;
	return s[strcspn(s, " \t\n'\"\\$`|&;<>()[]{}*?!#~=%")] != '\0';
}

/* argv joined by spaces, each argument quoted when a shell would split it. */
static char *
join_argv(int argc, char *const *argv)
{
	size_t len = 1, pos = 0;
	char *out;
	int i;

	for (i = 0; i < argc; i++)
		len += 4 * strlen(argv[i] != NULL ? argv[i] : "") + 3;
	out = malloc(len);
	if (out == NULL)
		return NULL;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i] != NULL ? argv[i] : "";

		if (i > 0)
			out[pos++] = ' ';
		if (!needs_quotes(a)) {
			memcpy(out + pos, a, strlen(a));
			pos += strlen(a);
			continue;
		}
		out[pos++] = '\'';
		for (; *a != '\0'; a++) {
			if (*a == '\'') {
				/* Close, escaped quote, reopen: '\'' */
				memcpy(out + pos, "'\\''", 4);
				pos += 4;
			} else {
				out[pos++] = *a;
			}
		}
		out[pos++] = '\'';
	}
	out[pos] = '\0';
	return out;
}

/* Counts that come with their arrays; 0 or -EINVAL. */
static int
env_check(const struct rxr_report_env *env, char *err, size_t errlen)
{
	if (env->nb_lcores > 0 && env->lcores == NULL) {
		rxrr_err(err, errlen, "env: %u lcores but no lcore array",
			env->nb_lcores);
		return -EINVAL;
	}
	if (env->argc > 0 && env->argv == NULL) {
		rxrr_err(err, errlen, "env: argc %d but no argv", env->argc);
		return -EINVAL;
	}
	if (env->nb_ports > 0 && env->ports == NULL) {
		rxrr_err(err, errlen, "env: %u ports but no port array",
			env->nb_ports);
		return -EINVAL;
	}
	return 0;
}

/* The lcores and the ports as JSON arrays; NULL on ENOMEM. */
static json_t *
lcores_json(const struct rxr_report_env *env)
{
	json_t *lcores = json_array();

	for (unsigned int i = 0; lcores != NULL && i < env->nb_lcores; i++)
		if (json_array_append_new(lcores, json_integer(env->lcores[i]))) {
			json_decref(lcores);
			return NULL;
		}
	return lcores;
}

static json_t *
ports_json(const struct rxr_report_env *env)
{
	json_t *ports = json_array();

	for (unsigned int i = 0; ports != NULL && i < env->nb_ports; i++) {
		const struct rxr_report_port *p = &env->ports[i];

		if (json_array_append_new(ports, json_pack("{s:i, s:o, s:o}",
				"port", p->port, "driver", rxrr_jstr(p->driver),
				"name", rxrr_jstr(p->name)))) {
			json_decref(ports);
			return NULL;
		}
	}
	return ports;
}

int
rxr_report_set_env(struct rxr_report *r, const struct rxr_report_env *env,
		char *err, size_t errlen)
{
	char host[256] = "unknown", cpu[256];
	json_t *options, *e;
	char *argv_str;

	if (env_check(env, err, errlen) != 0)
		return -EINVAL;
	if (env->host != NULL)
		snprintf(host, sizeof(host), "%s", env->host);
	else if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "unknown");
	host[sizeof(host) - 1] = '\0';
	if (env->cpu_model == NULL)
		rxr_cpu_model(cpu, sizeof(cpu));
	else
		snprintf(cpu, sizeof(cpu), "%s", env->cpu_model);
	/* Options set before env survive a later set_env(). */
	options = json_object_get(json_object_get(r->doc, "env"), "options");
	argv_str = join_argv(env->argc, env->argv);
	/* "o" steals its value, also when packing fails. */
	e = argv_str == NULL ? NULL : json_pack("{s:o, s:o, s:o, s:o, s:s, "
		"s:o, s:o, s:o}", "dpdk_version", rxrr_jstr(env->dpdk_version !=
			NULL ? env->dpdk_version : "unknown"),
		"host", rxrr_jstr(host), "cpu_model", rxrr_jstr(cpu),
		"lcores", lcores_json(env),
		"memory", env->no_huge ? "no-huge" : "hugepages",
		"ports", ports_json(env),
		"options", options != NULL ? json_incref(options) : json_object(),
		"argv", rxrr_jstr(argv_str));
	free(argv_str);
	if (e == NULL || json_object_set_new(r->doc, "env", e) != 0) {
		rxrr_err(err, errlen, "env: out of memory");
		return -ENOMEM;
	}
	return 0;
}

/* obj.key = v (stolen): env.options, env or a run. */
static int
set_key(json_t *obj, const char *key, json_t *v)
{
	if (obj == NULL || key == NULL || v == NULL) {
		json_decref(v);
		return -EINVAL;
	}
	return json_object_set_new(obj, key, v) == 0 ? 0 : -ENOMEM;
}

static int
set_option(struct rxr_report *r, const char *name, json_t *v)
{
	return set_key(json_object_get(json_object_get(r->doc, "env"),
		"options"), name, v);
}

int
rxr_report_set_option_str(struct rxr_report *r, const char *name,
		const char *value)
{
	return set_option(r, name, rxrr_jstr(value));
}

int
rxr_report_set_option_int(struct rxr_report *r, const char *name,
		int64_t value)
{
	return set_option(r, name, json_integer(value));
}

int
rxr_report_set_option_double(struct rxr_report *r, const char *name,
		double value)
{
	return set_option(r, name, rxrr_jnum(value));
}

int
rxr_report_set_option_bool(struct rxr_report *r, const char *name,
		bool value)
{
	return set_option(r, name, json_boolean(value));
}

int
rxr_report_env_set(struct rxr_report *r, const char *key, json_t *v)
{
	return set_key(json_object_get(r->doc, "env"), key, v);
}

int
rxr_report_run_set(struct rxr_report *r, unsigned int idx, const char *key,
		json_t *v)
{
	return set_key(json_array_get(json_object_get(r->doc, "runs"), idx),
		key, v);
}

/* A negative figure is a bug in the caller: say which one. */
static int
check_figure(const char *what, double v, char *err, size_t errlen)
{
	if (isfinite(v) && v < 0) {
		rxrr_err(err, errlen, "run: %s is negative (%g)", what, v);
		return -EINVAL;
	}
	return 0;
}

static double
ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

/* Field id of run as JSON: a count, a number (null unless finite), text. */
#define JSON_COUNT(v) rxrr_jcount(v)
#define JSON_NUMBER(v) rxrr_jnum(v)
#define JSON_STRING(v) rxrr_jstr(v)
static json_t *
field_json(const struct rxr_report_run *run, unsigned int id)
{
	switch (id) {
#define FIELD(g, f, t, r, p, h) \
	case RXR_REPORT_FIELD_##g##_##f: return JSON_##t(run->g.f);
	RXR_REPORT_ALL_FIELDS(FIELD)
#undef FIELD
	}
	return NULL;
}

/* Whether run writes group g: always, or when its has_<group> is set. */
#define WRITES_ALWAYS(run, g) true
#define WRITES_HAS(run, g) ((run)->has_##g)
static bool
group_written(const struct rxr_report_run *run, unsigned int g)
{
	switch (g) {
#define GROUP(g, list, when) \
	case RXR_REPORT_GROUP_##g: return WRITES_##when(run, g);
	RXR_REPORT_GROUPS(GROUP)
#undef GROUP
	}
	return false;
}

/* Group g of run, when written, as {field: value} in list order. */
static int
run_group(json_t *o, const struct rxr_report_run *run, unsigned int g)
{
	const struct rxrr_field *f;
	json_t *sub;
	unsigned int id;

	if (!group_written(run, g))
		return 0;
	sub = json_object();
	if (rxrr_jset(o, rxrr_group_name(g), sub))
		return -ENOMEM;
	for (id = 0; (f = rxrr_field(id)) != NULL; id++)
		if (f->group_id == g && rxrr_jset(sub, f->name, field_json(run, id)))
			return -ENOMEM;
	return 0;
}

/* No NUMBER of a written group is negative; 0 or -EINVAL. */
static int
check_groups(const struct rxr_report_run *run, char *err, size_t errlen)
{
	const struct rxrr_field *f;
	unsigned int id;

	for (id = 0; (f = rxrr_field(id)) != NULL; id++) {
		json_t *v;
		int ret;

		if (f->type != RXRR_FTYPE_NUMBER ||
				!group_written(run, f->group_id))
			continue;
		/* As written: a real, or null for what is not finite. */
		v = field_json(run, id);
		ret = check_figure(f->path, json_is_real(v) ?
			json_real_value(v) : NAN, err, errlen);
		json_decref(v);
		if (ret != 0)
			return -EINVAL;
	}
	return 0;
}

/* The populated range of buckets, zeros inside it kept: the shape shows. */
static json_t *
hist_json(const uint64_t *counts)
{
	json_t *b = json_array();
	int first = 0, last = RXR_REPORT_HIST_BUCKETS - 1;

	while (counts[first] == 0)
		first++;	/* the caller made sure one is not 0 */
	while (counts[last] == 0)
		last--;
	for (int i = first; b != NULL && i <= last; i++)
		if (json_array_append_new(b, json_pack("{s:o, s:o, s:o}", "lo",
				rxrr_jcount(rxrr_hist_lo(i)), "hi",
				rxrr_jcount(rxrr_hist_hi(i)), "count",
				rxrr_jcount(counts[i])))) {
			json_decref(b);
			return NULL;
		}
	return json_pack("{s:s, s:o}", "unit", "ns", "buckets", b);
}

/* Each stream's share of the bytes: smallest, largest, Jain's index. */
static json_t *
fairness_json(const struct rxr_report_run *run)
{
	double *x = malloc(run->nb_streams * sizeof(*x)), sum = 0;
	double lo = INFINITY, hi = 0, jain;
	json_t *o;
	unsigned int i;

	if (x == NULL)
		return NULL;
	for (i = 0; i < run->nb_streams; i++)
		sum += x[i] = (double)run->streams[i].bytes;
	for (i = 0; i < run->nb_streams; i++) {
		lo = fmin(lo, ratio(x[i], sum));
		hi = fmax(hi, ratio(x[i], sum));
	}
	jain = rxr_stats_jain(x, run->nb_streams);
	free(x);
	o = json_pack("{s:i, s:o, s:o, s:o}", "streams", run->nb_streams,
		"min_share", rxrr_jnum(sum > 0 ? lo : NAN),
		"max_share", rxrr_jnum(sum > 0 ? hi : NAN), "jain", rxrr_jnum(jain));
	return o;
}

/*
 * Ethernet bytes on the wire a frame's rx_bytes do not count: preamble and
 * start frame delimiter (8), inter-frame gap (12), frame check sequence (4).
 */
#define WIRE_OVERHEAD_BYTES 24.0
#define BITS_PER_BYTE 8.0
#define GIGA 1e9
#define MEGA 1e6

/* A figure of run (RXR_REPORT_FIGURES). */
static double
figure_of(const struct rxr_report_run *run, const struct rxrr_figure *f)
{
	return *(const double *)(const void *)((const char *)run + f->offset);
}

/* The run's identity and its figures; 0 or -ENOMEM. */
static int
run_figures(json_t *o, const struct rxr_report_run *run)
{
	const struct rxrr_figure *f;

	if (rxrr_jset(o, "strategy", rxrr_jstr(run->strategy)) ||
			rxrr_jset(o, "bulk", json_boolean(run->bulk)) ||
			rxrr_jset(o, "rep", json_integer(run->rep)) ||
			rxrr_jset(o, "duration_s", rxrr_jnum(run->duration_s)) ||
			rxrr_jset(o, "rx_packets", rxrr_jcount(run->rx_packets)) ||
			rxrr_jset(o, "rx_bytes", rxrr_jcount(run->rx_bytes)))
		return -ENOMEM;
	for (unsigned int i = 0; (f = rxrr_figure(i)) != NULL; i++)
		if (rxrr_jset(o, f->name, rxrr_jnum(figure_of(run, f))))
			return -ENOMEM;
	return rxrr_jset(o, "refill_latency_sample_every",
		json_integer(run->refill_latency_sample_every)) ? -ENOMEM : 0;
}

/* "drops": a count per cause, each cause named once; 0, -EINVAL, -ENOMEM. */
static int
run_drops(json_t *o, const struct rxr_report_run *run, char *err,
		size_t errlen)
{
	json_t *drops = json_object();
	unsigned int i;

	if (rxrr_jset(o, "drops", drops))
		return -ENOMEM;
	for (i = 0; i < run->nb_drops; i++) {
		const char *c = run->drops[i].cause;

		if (c == NULL || *c == '\0') {
			rxrr_err(err, errlen, "run %s: drops[%u]: empty cause",
				run->strategy, i);
			return -EINVAL;
		}
		if (json_object_get(drops, c) != NULL) {
			rxrr_err(err, errlen, "run %s: drop cause \"%s\" twice",
				run->strategy, c);
			return -EINVAL;
		}
		if (rxrr_jset(drops, c, rxrr_jcount(run->drops[i].count)))
			return -ENOMEM;
	}
	return 0;
}

/* The strategy's own counters; 0 or -ENOMEM. */
static int
run_counters(json_t *o, const struct rxr_report_run *run)
{
	json_t *sub;

	if (run->nb_strategy_counters == 0)
		return 0;
	sub = json_object();
	if (rxrr_jset(o, "strategy_counters", sub))
		return -ENOMEM;
	for (unsigned int i = 0; i < run->nb_strategy_counters &&
			i < RXR_REPORT_DROPS_MAX; i++)
		if (rxrr_jset(sub, run->strategy_counters[i].cause,
				rxrr_jcount(run->strategy_counters[i].count)))
			return -ENOMEM;
	return 0;
}

/* The refill latency histogram and its percentiles when sampled, then
 * fairness and the streams; 0, -EINVAL or -ENOMEM. */
static int
run_streams(json_t *o, const struct rxr_report_run *run, char *err,
		size_t errlen)
{
	json_t *arr;
	unsigned int i;

	for (i = 0; i < RXR_REPORT_HIST_BUCKETS; i++)
		if (run->refill_latency_ns[i] != 0)
			break;
	if (i < RXR_REPORT_HIST_BUCKETS && (rxrr_jset(o, "refill_latency_hist",
				hist_json(run->refill_latency_ns)) ||
			rxrr_jset(o, "refill_latency_percentiles",
				rxrr_percentiles_json(run->refill_latency_ns))))
		return -ENOMEM;
	if (run->nb_streams == 0)
		return 0;
	arr = json_array();
	if (rxrr_jset(o, "fairness", fairness_json(run)) ||
			rxrr_jset(o, "streams", arr))
		return -ENOMEM;
	for (i = 0; i < run->nb_streams; i++) {
		const struct rxr_report_stream *s = &run->streams[i];
		json_t *sub;

		if (s->src == NULL || s->dst == NULL) {
			rxrr_err(err, errlen, "run %s: streams[%u]: no address",
				run->strategy, i);
			return -EINVAL;
		}
		sub = json_pack("{s:o, s:o, s:i, s:i, s:i}", "src",
			rxrr_jstr(s->src), "dst", rxrr_jstr(s->dst),
			"sport", s->sport, "dport", s->dport, "proto", s->proto);
		if (json_array_append_new(arr, sub) ||
				(s->fragments && rxrr_jset(sub, "fragments",
					json_true())) ||
				rxrr_jset(sub, "packets", rxrr_jcount(s->packets)) ||
				rxrr_jset(sub, "bytes", rxrr_jcount(s->bytes)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * A run as the report's JSON object, its fields in the schema's order:
 * the groups in list order, the strategy's counters before zeroing{}, the
 * latency and the streams before streams_untracked{}.
 */
static json_t *
run_json(const struct rxr_report_run *run, char *err, size_t errlen)
{
	json_t *o = json_object();
	int ret = o == NULL || run_figures(o, run) ? -ENOMEM : 0;

	if (ret == 0 && rxrr_run_mark(o, run, err, errlen) != 0)
		ret = -EINVAL;	/* err set */
	if (ret == 0)
		ret = run_drops(o, run, err, errlen);
	for (unsigned int g = 0; ret == 0 && g < RXR_REPORT_GROUPS_NUM; g++) {
		if (g == RXR_REPORT_GROUP_zeroing)
			ret = run_counters(o, run);
		else if (g == RXR_REPORT_GROUP_streams_untracked)
			ret = run_streams(o, run, err, errlen);
		if (ret == 0)
			ret = run_group(o, run, g);
	}
	if (ret == 0 && run->has_streams_counted_by_poll && rxrr_jset(o,
			"streams_counted_by_poll",
			rxrr_jcount(run->streams_counted_by_poll)))
		ret = -ENOMEM;
	if (ret == -ENOMEM)
		rxrr_err(err, errlen, "run: out of memory");
	if (ret == 0)
		return o;
	json_decref(o);
	return NULL;
}

int
rxr_report_add_run(struct rxr_report *r, const struct rxr_report_run *run,
		char *err, size_t errlen)
{
	json_t *runs = json_object_get(r->doc, "runs");
	struct rxr_report_run full = *run;
	const struct rxrr_figure *f;
	json_t *o, *prev;
	char label[160];
	size_t i;

	full.pcp.hit_rate = rxr_report_pcp_hit_rate(&run->pcp);
	full.gbps = ratio(run->rx_bytes * BITS_PER_BYTE, run->duration_s) / GIGA;
	full.gbps_wire = ratio(((double)run->rx_bytes + WIRE_OVERHEAD_BYTES *
		run->rx_packets) * BITS_PER_BYTE, run->duration_s) / GIGA;
	full.mpps = ratio(run->rx_packets, run->duration_s) / MEGA;
	if (run->strategy == NULL || *run->strategy == '\0') {
		rxrr_err(err, errlen, "run: no strategy name");
		return -EINVAL;
	}
	if (run->nb_drops > RXR_REPORT_DROPS_MAX) {
		rxrr_err(err, errlen, "run %s: %u drop causes, at most %d",
			run->strategy, run->nb_drops, RXR_REPORT_DROPS_MAX);
		return -EINVAL;
	}
	if (run->nb_streams > 0 && run->streams == NULL) {
		rxrr_err(err, errlen, "run %s: %u streams but no array",
			run->strategy, run->nb_streams);
		return -EINVAL;
	}
	if (check_figure("duration_s", run->duration_s, err, errlen))
		return -EINVAL;
	for (unsigned int i = 0; (f = rxrr_figure(i)) != NULL; i++)
		if (check_figure(f->name, figure_of(&full, f), err, errlen))
			return -EINVAL;
	if (check_groups(&full, err, errlen))
		return -EINVAL;
	o = run_json(&full, err, errlen);
	if (o == NULL)
		return -EINVAL;
	/* Two runs with one key would make the summary lie about reps. */
	json_array_foreach(runs, i, prev) {
		if (rxrr_same_config(prev, o, true) && json_integer_value(
				json_object_get(prev, "rep")) == run->rep) {
			rxrr_run_label(o, true, label, sizeof(label));
			rxrr_err(err, errlen, "run %s rep %u: already in the "
				"report", label, run->rep);
			json_decref(o);
			return -EINVAL;
		}
	}
	if (json_array_append_new(runs, o) != 0) {
		rxrr_err(err, errlen, "run: out of memory");
		return -ENOMEM;
	}
	/* Summarized when read or written: its tests cost more than a run. */
	r->stale = true;
	return 0;
}
