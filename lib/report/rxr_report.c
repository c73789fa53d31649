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

/* Short names for the many fields below. */
static inline json_t *
jnum(double d)
{
	return rxrr_jnum(d);
}

static inline json_t *
jcount(uint64_t c)
{
	return rxrr_jcount(c);
}

static inline int
jset(json_t *obj, const char *key, json_t *v)
{
	return rxrr_jset(obj, key, v);
}

static int
format_created(json_t *doc, time_t t)
{
	char buf[32];
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL)
		return -EINVAL;
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return jset(doc, "created", json_string(buf)) == 0 ? 0 : -ENOMEM;
}

struct rxr_report *
rxr_report_create(void)
{
	struct rxr_report *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->doc = json_object();
	if (r->doc == NULL ||
			jset(r->doc, "schema", json_string(RXR_REPORT_SCHEMA)) ||
			jset(r->doc, "partial", json_false()) ||
			format_created(r->doc, time(NULL)) != 0 ||
			/* Options may come before env; env keeps its place. */
			jset(r->doc, "env", json_pack("{s:{}}", "options")) ||
			jset(r->doc, "runs", json_array()) ||
			jset(r->doc, "summary", json_array()) ||
			rxrr_set_alpha(r, RXR_REPORT_ALPHA_DEFAULT)) {
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

/* The lcores as a JSON array; NULL on ENOMEM. */
static json_t *
lcores_json(const struct rxr_report_env *env)
{
	json_t *lcores = json_array();
	unsigned int i;

	for (i = 0; lcores != NULL && i < env->nb_lcores; i++)
		if (json_array_append_new(lcores, json_integer(env->lcores[i]))) {
			json_decref(lcores);
			return NULL;
		}
	return lcores;
}

/* The ports, each {port, driver, name}; NULL on ENOMEM. */
static json_t *
ports_json(const struct rxr_report_env *env)
{
	json_t *ports = json_array();
	unsigned int i;

	for (i = 0; ports != NULL && i < env->nb_ports; i++) {
		const struct rxr_report_port *p = &env->ports[i];
		json_t *po = json_object();

		if (po == NULL || json_array_append_new(ports, po) ||
				jset(po, "port", json_integer(p->port)) ||
				jset(po, "driver", rxrr_jstr(p->driver)) ||
				jset(po, "name", rxrr_jstr(p->name))) {
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
	char host[256], cpu[256];
	json_t *e, *lcores, *ports, *options;
	char *argv_str;

	if (env_check(env, err, errlen) != 0)
		return -EINVAL;
	if (env->host == NULL) {
		if (gethostname(host, sizeof(host)) != 0)
			snprintf(host, sizeof(host), "unknown");
		host[sizeof(host) - 1] = '\0';
	} else {
		snprintf(host, sizeof(host), "%s", env->host);
	}
	if (env->cpu_model == NULL)
		rxr_cpu_model(cpu, sizeof(cpu));
	else
		snprintf(cpu, sizeof(cpu), "%s", env->cpu_model);

	/* Options set before env survive a later set_env(). */
	options = json_object_get(json_object_get(r->doc, "env"), "options");
	options = options != NULL ? json_incref(options) : json_object();
	e = json_object();
	lcores = lcores_json(env);
	ports = ports_json(env);
	argv_str = join_argv(env->argc, env->argv);
	if (e == NULL || lcores == NULL || ports == NULL || options == NULL ||
			argv_str == NULL)
		goto nomem;
	if (jset(e, "dpdk_version", rxrr_jstr(env->dpdk_version != NULL ?
				env->dpdk_version : "unknown")) ||
			jset(e, "host", rxrr_jstr(host)) ||
			jset(e, "cpu_model", rxrr_jstr(cpu)) ||
			json_object_set(e, "lcores", lcores) ||
			jset(e, "memory", json_string(env->no_huge ?
				"no-huge" : "hugepages")) ||
			json_object_set(e, "ports", ports) ||
			json_object_set(e, "options", options) ||
			jset(e, "argv", rxrr_jstr(argv_str)))
		goto nomem;
	json_decref(lcores);
	json_decref(ports);
	json_decref(options);
	free(argv_str);
	return json_object_set_new(r->doc, "env", e) == 0 ? 0 : -ENOMEM;
nomem:
	json_decref(e);
	json_decref(lcores);
	json_decref(ports);
	json_decref(options);
	free(argv_str);
	rxrr_err(err, errlen, "env: out of memory");
	return -ENOMEM;
}

/* env.options, created on first use so options may come before env. */
static json_t *
options_obj(struct rxr_report *r)
{
	json_t *env = json_object_get(r->doc, "env");
	json_t *o;

	if (env == NULL) {
		env = json_object();
		if (env == NULL || json_object_set_new(r->doc, "env", env))
			return NULL;
	}
	o = json_object_get(env, "options");
	if (o == NULL) {
		o = json_object();
		if (o == NULL || json_object_set_new(env, "options", o))
			return NULL;
	}
	return o;
}

static int
set_option(struct rxr_report *r, const char *name, json_t *v)
{
	json_t *o = options_obj(r);

	if (o == NULL || name == NULL || v == NULL) {
		json_decref(v);
		return -EINVAL;
	}
	return json_object_set_new(o, name, v) == 0 ? 0 : -ENOMEM;
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
	return set_option(r, name, jnum(value));
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
	json_t *env = json_object_get(r->doc, "env");

	if (env == NULL || v == NULL || key == NULL) {
		json_decref(v);
		return -EINVAL;
	}
	return json_object_set_new(env, key, v) == 0 ? 0 : -ENOMEM;
}

int
rxr_report_run_set(struct rxr_report *r, unsigned int idx, const char *key,
		json_t *v)
{
	json_t *run = json_array_get(json_object_get(r->doc, "runs"), idx);

	if (run == NULL || v == NULL || key == NULL) {
		json_decref(v);
		return -EINVAL;
	}
	return json_object_set_new(run, key, v) == 0 ? 0 : -ENOMEM;
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
#define JSON_COUNT(v) jcount(v)
#define JSON_NUMBER(v) jnum(v)
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
	if (jset(o, rxrr_group_name(g), sub))
		return -ENOMEM;
	for (id = 0; (f = rxrr_field(id)) != NULL; id++)
		if (f->group_id == g && jset(sub, f->name, field_json(run, id)))
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

static json_t *
hist_json(const uint64_t *counts)
{
	json_t *h = json_object(), *b = json_array();
	int first = -1, last = -1, i;

	if (h == NULL || b == NULL)
		goto nomem;
	for (i = 0; i < RXR_REPORT_HIST_BUCKETS; i++) {
		if (counts[i] == 0)
			continue;
		if (first < 0)
			first = i;
		last = i;
	}
	/* Populated range only, zeros inside it kept: the shape stays visible. */
	for (i = first; first >= 0 && i <= last; i++) {
		json_t *o = json_object();

		if (o == NULL || json_array_append_new(b, o) ||
				jset(o, "lo", jcount(rxrr_hist_lo(i))) ||
				jset(o, "hi", jcount(rxrr_hist_hi(i))) ||
				jset(o, "count", jcount(counts[i])))
			goto nomem;
	}
	if (jset(h, "unit", json_string("ns")) ||
			json_object_set(h, "buckets", b))
		goto nomem;
	json_decref(b);
	return h;
nomem:
	json_decref(h);
	json_decref(b);
	return NULL;
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
		"min_share", jnum(sum > 0 ? lo : NAN),
		"max_share", jnum(sum > 0 ? hi : NAN), "jain", jnum(jain));
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

	if (jset(o, "strategy", rxrr_jstr(run->strategy)) ||
			jset(o, "bulk", json_boolean(run->bulk)) ||
			jset(o, "rep", json_integer(run->rep)) ||
			jset(o, "duration_s", jnum(run->duration_s)) ||
			jset(o, "rx_packets", jcount(run->rx_packets)) ||
			jset(o, "rx_bytes", jcount(run->rx_bytes)))
		return -ENOMEM;
	for (unsigned int i = 0; (f = rxrr_figure(i)) != NULL; i++)
		if (jset(o, f->name, jnum(figure_of(run, f))))
			return -ENOMEM;
	return jset(o, "refill_latency_sample_every",
		json_integer(run->refill_latency_sample_every)) ? -ENOMEM : 0;
}

/* "drops": a count per cause, each cause named once; 0, -EINVAL, -ENOMEM. */
static int
run_drops(json_t *o, const struct rxr_report_run *run, char *err,
		size_t errlen)
{
	json_t *drops = json_object();
	unsigned int i, j;

	if (jset(o, "drops", drops))
		return -ENOMEM;
	for (i = 0; i < run->nb_drops; i++) {
		const char *c = run->drops[i].cause;

		if (c == NULL || *c == '\0') {
			rxrr_err(err, errlen, "run %s: drops[%u]: empty cause",
				run->strategy, i);
			return -EINVAL;
		}
		for (j = 0; j < i; j++)
			if (strcmp(run->drops[j].cause, c) == 0)
				break;
		if (j < i) {
			rxrr_err(err, errlen, "run %s: drop cause \"%s\" twice",
				run->strategy, c);
			return -EINVAL;
		}
		if (jset(drops, c, jcount(run->drops[i].count)))
			return -ENOMEM;
	}
	return 0;
}

/* The allocator's counters: pcp, zone lock, deferred frees; 0 or -ENOMEM. */
static int
run_pool(json_t *o, const struct rxr_report_run *run)
{
	if (run_group(o, run, RXR_REPORT_GROUP_pcp) ||
			run_group(o, run, RXR_REPORT_GROUP_zone_lock) ||
			run_group(o, run, RXR_REPORT_GROUP_deferred))
		return -ENOMEM;
	return 0;
}

/* The strategy's own counters and the zeroing's figures; 0 or -ENOMEM. */
static int
run_strategy(json_t *o, const struct rxr_report_run *run)
{
	json_t *sub;

	if (run->nb_strategy_counters != 0) {
		sub = json_object();
		if (jset(o, "strategy_counters", sub))
			goto nomem;
		for (unsigned int i = 0; i < run->nb_strategy_counters &&
				i < RXR_REPORT_DROPS_MAX; i++)
			if (jset(sub, run->strategy_counters[i].cause,
					jcount(run->strategy_counters[i].count)))
				goto nomem;
	}
	if (run_group(o, run, RXR_REPORT_GROUP_zeroing) ||
			run_group(o, run, RXR_REPORT_GROUP_poll) ||
			run_group(o, run, RXR_REPORT_GROUP_zeroer))
		goto nomem;
	return 0;
nomem:
	return -ENOMEM;
}

/* The refill latency histogram and its percentiles, when sampled. */
static int
run_latency(json_t *o, const struct rxr_report_run *run)
{
	bool any_hist = false;
	unsigned int i;

	for (i = 0; i < RXR_REPORT_HIST_BUCKETS; i++)
		any_hist |= run->refill_latency_ns[i] != 0;
	if (any_hist && (jset(o, "refill_latency_hist",
				hist_json(run->refill_latency_ns)) ||
			jset(o, "refill_latency_percentiles",
				rxrr_percentiles_json(run->refill_latency_ns))))
		return -ENOMEM;
	return 0;
}

/* Fairness, the streams and what no stream counted; 0, -EINVAL, -ENOMEM. */
static int
run_streams(json_t *o, const struct rxr_report_run *run, char *err,
		size_t errlen)
{
	json_t *arr, *sub;
	unsigned int i;

	if (run->nb_streams > 0 && jset(o, "fairness", fairness_json(run)))
		return -ENOMEM;
	if (run->nb_streams > 0) {
		arr = json_array();
		if (jset(o, "streams", arr))
			return -ENOMEM;
		for (i = 0; i < run->nb_streams; i++) {
			const struct rxr_report_stream *s = &run->streams[i];

			if (s->src == NULL || s->dst == NULL) {
				rxrr_err(err, errlen,
					"run %s: streams[%u]: no address",
					run->strategy, i);
				return -EINVAL;
			}
			sub = json_object();
			if (sub == NULL || json_array_append_new(arr, sub) ||
					jset(sub, "src", rxrr_jstr(s->src)) ||
					jset(sub, "dst", rxrr_jstr(s->dst)) ||
					jset(sub, "sport", json_integer(s->sport)) ||
					jset(sub, "dport", json_integer(s->dport)) ||
					jset(sub, "proto", json_integer(s->proto)) ||
					(s->fragments && jset(sub, "fragments",
						json_true())) ||
					jset(sub, "packets", jcount(s->packets)) ||
					jset(sub, "bytes", jcount(s->bytes)))
				return -ENOMEM;
		}
	}
	if (run_group(o, run, RXR_REPORT_GROUP_streams_untracked) ||
			run_group(o, run,
				RXR_REPORT_GROUP_streams_untracked_by_cause))
		return -ENOMEM;
	if (run->has_streams_counted_by_poll && jset(o,
			"streams_counted_by_poll",
			jcount(run->streams_counted_by_poll)))
		return -ENOMEM;
	return 0;
}

/* A run as the report's JSON object, its fields in the schema's order. */
static json_t *
run_json(const struct rxr_report_run *run, char *err, size_t errlen)
{
	json_t *o = json_object();
	int ret;

	if (o == NULL || run_figures(o, run) != 0)
		goto nomem;
	if (rxrr_run_mark(o, run, err, errlen) != 0)
		goto inval;
	ret = run_drops(o, run, err, errlen);
	if (ret == 0)
		ret = run_pool(o, run);
	if (ret == 0)
		ret = run_strategy(o, run);
	if (ret == 0)
		ret = run_latency(o, run);
	if (ret == 0)
		ret = run_streams(o, run, err, errlen);
	if (ret == -EINVAL)
		goto inval;
	if (ret != 0)
		goto nomem;
	return o;
nomem:
	rxrr_err(err, errlen, "run: out of memory");
inval:
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
