/* SPDX-License-Identifier: BSD-3-Clause */

/* Report builder: C structs in, a jansson document out; and the summary. */

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rxr_report_priv.h"
#include "rxr_stats.h"

void
rr_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

double
rr_num(const json_t *v)
{
	if (v == NULL || !json_is_number(v))
		return NAN;
	return json_number_value(v);
}

const json_t *
rr_path(const json_t *obj, const char *path)
{
	const char *dot = strchr(path, '.');
	char head[64];
	size_t n;

	if (obj == NULL || !json_is_object(obj))
		return NULL;
	if (dot == NULL)
		return json_object_get(obj, path);
	n = (size_t)(dot - path);
	if (n >= sizeof(head))
		return NULL;
	memcpy(head, path, n);
	head[n] = '\0';
	obj = json_object_get(obj, head);
	if (obj == NULL || !json_is_object(obj))
		return NULL;
	/* The rest is one key: drop causes may hold dots. */
	return json_object_get(obj, dot + 1);
}

void
rr_group_label(const char *strategy, bool bulk, char *buf, size_t len)
{
	snprintf(buf, len, "%s-%s", strategy, bulk ? "bulk" : "nobulk");
}

void
rr_groups_free(struct rr_group *groups, size_t nb)
{
	size_t i;

	for (i = 0; i < nb; i++)
		free(groups[i].runs);
	free(groups);
}

int
rr_groups(const json_t *doc, struct rr_group **groups, size_t *nb)
{
	const json_t *runs = json_object_get(doc, "runs");
	struct rr_group *g = NULL;
	size_t n = 0, i, j, nruns;

	*groups = NULL;
	*nb = 0;
	if (runs == NULL || !json_is_array(runs))
		return 0;
	nruns = json_array_size(runs);
	for (i = 0; i < nruns; i++) {
		json_t *run = json_array_get(runs, i);
		const char *s = json_string_value(json_object_get(run, "strategy"));
		bool bulk = json_is_true(json_object_get(run, "bulk"));

		/* A run cut short (or disturbed, when excluded) is kept in
		 * runs[] but in no statistic. */
		if (s == NULL || !rxr_report_run_counted(doc, run))
			continue;
		for (j = 0; j < n; j++)
			if (g[j].bulk == bulk && strcmp(g[j].strategy, s) == 0)
				break;
		if (j == n) {
			struct rr_group *ng = realloc(g, (n + 1) * sizeof(*g));

			if (ng == NULL)
				goto nomem;
			g = ng;
			/* At most nruns runs per group: one allocation. */
			g[n].runs = calloc(nruns, sizeof(json_t *));
			if (g[n].runs == NULL)
				goto nomem;
			g[n].strategy = s;
			g[n].bulk = bulk;
			g[n].nb_runs = 0;
			n++;
		}
		g[j].runs[g[j].nb_runs++] = run;
	}
	*groups = g;
	*nb = n;
	return 0;
nomem:
	rr_groups_free(g, n);
	return -ENOMEM;
}

/* JSON has no NaN nor infinity: "not measured" is null. */
static json_t *
jnum(double d)
{
	return isfinite(d) ? json_real(d) : json_null();
}

/* JSON integers are signed 64-bit: clamp counters rather than wrap. */
static json_t *
jcount(uint64_t c)
{
	return json_integer(c > INT64_MAX ? INT64_MAX : (json_int_t)c);
}

/* A string from the machine (hostname, cpuinfo) need not be UTF-8. */
json_t *
rr_jstr(const char *s)
{
	json_t *j;
	char *copy;
	size_t i;

	if (s == NULL)
		s = "";
	j = json_string(s);
	if (j != NULL)
		return j;
	copy = strdup(s);
	if (copy == NULL)
		return NULL;
	for (i = 0; copy[i] != '\0'; i++)
		if ((unsigned char)copy[i] >= 0x80)
			copy[i] = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

/* json_object_set_new that also fails on a NULL value (ENOMEM earlier). */
static int
jset(json_t *obj, const char *key, json_t *v)
{
	if (v == NULL)
		return -1;
	return json_object_set_new(obj, key, v);
}

int
rr_jset(json_t *obj, const char *key, json_t *v)
{
	return jset(obj, key, v);
}

json_t *
rr_jnum(double d)
{
	return jnum(d);
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
			rxr_report_set_alpha(r, RXR_REPORT_ALPHA_DEFAULT)) {
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
	rr_fresh(r);
	return r->doc;
}

int
rxr_report_set_created(struct rxr_report *r, time_t t)
{
	return format_created(r->doc, t);
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

/* First "model name" of /proc/cpuinfo, or "unknown". */
static void
cpu_model_default(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(buf, len, "unknown");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) != 0 || colon == NULL)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
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

int
rxr_report_set_env(struct rxr_report *r, const struct rxr_report_env *env,
		char *err, size_t errlen)
{
	char host[256], cpu[256];
	json_t *e, *lcores, *ports, *options;
	char *argv_str;
	unsigned int i;

	if (env->nb_lcores > 0 && env->lcores == NULL) {
		rr_err(err, errlen, "env: %u lcores but no lcore array",
			env->nb_lcores);
		return -EINVAL;
	}
	if (env->argc > 0 && env->argv == NULL) {
		rr_err(err, errlen, "env: argc %d but no argv", env->argc);
		return -EINVAL;
	}
	if (env->nb_ports > 0 && env->ports == NULL) {
		rr_err(err, errlen, "env: %u ports but no port array",
			env->nb_ports);
		return -EINVAL;
	}
	if (env->host == NULL) {
		if (gethostname(host, sizeof(host)) != 0)
			snprintf(host, sizeof(host), "unknown");
		host[sizeof(host) - 1] = '\0';
	} else {
		snprintf(host, sizeof(host), "%s", env->host);
	}
	if (env->cpu_model == NULL)
		cpu_model_default(cpu, sizeof(cpu));
	else
		snprintf(cpu, sizeof(cpu), "%s", env->cpu_model);

	/* Options set before env survive a later set_env(). */
	options = json_object_get(json_object_get(r->doc, "env"), "options");
	options = options != NULL ? json_incref(options) : json_object();
	e = json_object();
	lcores = json_array();
	ports = json_array();
	argv_str = join_argv(env->argc, env->argv);
	if (e == NULL || lcores == NULL || ports == NULL || options == NULL ||
			argv_str == NULL)
		goto nomem;
	for (i = 0; i < env->nb_lcores; i++)
		if (json_array_append_new(lcores, json_integer(env->lcores[i])))
			goto nomem;
	for (i = 0; i < env->nb_ports; i++) {
		const struct rxr_report_port *p = &env->ports[i];
		json_t *po = json_object();

		if (po == NULL || json_array_append_new(ports, po) ||
				jset(po, "port", json_integer(p->port)) ||
				jset(po, "driver", rr_jstr(p->driver)) ||
				jset(po, "name", rr_jstr(p->name)))
			goto nomem;
	}
	if (jset(e, "dpdk_version", rr_jstr(env->dpdk_version != NULL ?
				env->dpdk_version : "unknown")) ||
			jset(e, "host", rr_jstr(host)) ||
			jset(e, "cpu_model", rr_jstr(cpu)) ||
			json_object_set(e, "lcores", lcores) ||
			jset(e, "memory", json_string(env->no_huge ?
				"no-huge" : "hugepages")) ||
			json_object_set(e, "ports", ports) ||
			json_object_set(e, "options", options) ||
			jset(e, "argv", rr_jstr(argv_str)))
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
	rr_err(err, errlen, "env: out of memory");
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
	return set_option(r, name, rr_jstr(value));
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

/* A negative figure is a bug in the caller: say which one. */
static int
check_figure(const char *what, double v, char *err, size_t errlen)
{
	if (isfinite(v) && v < 0) {
		rr_err(err, errlen, "run: %s is negative (%g)", what, v);
		return -EINVAL;
	}
	return 0;
}

static double
ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
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
				jset(o, "lo", jcount(rxr_report_hist_lo(i))) ||
				jset(o, "hi", jcount(rxr_report_hist_hi(i))) ||
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

static json_t *
run_json(const struct rxr_report_run *run, char *err, size_t errlen)
{
	json_t *o = json_object(), *drops = NULL, *sub;
	double d = run->duration_s;
	unsigned int i, j;
	bool any_hist = false;

	if (o == NULL)
		goto nomem;
	if (jset(o, "strategy", rr_jstr(run->strategy)) ||
			jset(o, "bulk", json_boolean(run->bulk)) ||
			jset(o, "rep", json_integer(run->rep)) ||
			jset(o, "duration_s", jnum(d)) ||
			jset(o, "rx_packets", jcount(run->rx_packets)) ||
			jset(o, "rx_bytes", jcount(run->rx_bytes)) ||
			jset(o, "gbps", jnum(ratio(run->rx_bytes * 8.0, d) / 1e9)) ||
			jset(o, "gbps_wire", jnum(ratio(((double)run->rx_bytes +
				24.0 * run->rx_packets) * 8.0, d) / 1e9)) ||
			jset(o, "mpps", jnum(ratio(run->rx_packets, d) / 1e6)) ||
			jset(o, "cycles_per_packet",
				jnum(run->cycles_per_packet)) ||
			jset(o, "refill_cycles_per_frame",
				jnum(run->refill_cycles_per_frame)) ||
			jset(o, "allocator_cycles_per_packet",
				jnum(run->allocator_cycles_per_packet)) ||
			jset(o, "consumer_free_cycles_per_packet",
				jnum(run->consumer_free_cycles_per_packet)) ||
			jset(o, "refill_latency_sample_every",
				json_integer(run->refill_latency_sample_every)))
		goto nomem;
	if (rr_run_mark(o, run, err, errlen) != 0)
		goto inval;

	drops = json_object();
	if (drops == NULL || json_object_set(o, "drops", drops))
		goto nomem;
	for (i = 0; i < run->nb_drops; i++) {
		const char *c = run->drops[i].cause;

		if (c == NULL || *c == '\0') {
			rr_err(err, errlen, "run %s: drops[%u]: empty cause",
				run->strategy, i);
			goto inval;
		}
		for (j = 0; j < i; j++)
			if (strcmp(run->drops[j].cause, c) == 0)
				break;
		if (j < i) {
			rr_err(err, errlen, "run %s: drop cause \"%s\" twice",
				run->strategy, c);
			goto inval;
		}
		if (jset(drops, c, jcount(run->drops[i].count)))
			goto nomem;
	}

	sub = json_object();
	if (jset(o, "pcp", sub) ||
			jset(sub, "hits", jcount(run->pcp.hits)) ||
			jset(sub, "misses", jcount(run->pcp.misses)) ||
			jset(sub, "hit_rate", jnum(ratio(run->pcp.hits,
				(double)run->pcp.hits + run->pcp.misses))))
		goto nomem;
	sub = json_object();
	if (jset(o, "zone_lock", sub) ||
			jset(sub, "acquisitions",
				jcount(run->zone_lock.acquisitions)) ||
			jset(sub, "contended", jcount(run->zone_lock.contended)) ||
			jset(sub, "wait_cycles",
				jcount(run->zone_lock.wait_cycles)) ||
			jset(sub, "wait_share", jnum(run->zone_lock.wait_share)))
		goto nomem;
	if (run->has_deferred) {
		sub = json_object();
		if (jset(o, "deferred", sub) ||
				jset(sub, "queued", jcount(run->deferred.queued)) ||
				jset(sub, "drained", jcount(run->deferred.drained)))
			goto nomem;
	}
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
	if (run->has_zeroing) {
		sub = json_object();
		if (jset(o, "zeroing", sub) ||
				jset(sub, "policy", rr_jstr(run->zeroing.policy)) ||
				jset(sub, "method", rr_jstr(run->zeroing.method)) ||
				jset(sub, "bytes", jcount(run->zeroing.bytes)) ||
				jset(sub, "gbps", jnum(run->zeroing.gbps)) ||
				jset(sub, "max_poll_gap_us",
					jnum(run->zeroing.max_poll_gap_us)))
			goto nomem;
	}
	for (i = 0; i < RXR_REPORT_HIST_BUCKETS; i++)
		any_hist |= run->refill_latency_ns[i] != 0;
	if (any_hist && (jset(o, "refill_latency_hist",
				hist_json(run->refill_latency_ns)) ||
			jset(o, "refill_latency_percentiles",
				rr_percentiles_json(run->refill_latency_ns))))
		goto nomem;
	if (run->nb_streams > 0 && jset(o, "fairness", fairness_json(run)))
		goto nomem;
	if (run->nb_streams > 0) {
		json_t *arr = json_array();

		if (jset(o, "streams", arr))
			goto nomem;
		for (i = 0; i < run->nb_streams; i++) {
			const struct rxr_report_stream *s = &run->streams[i];

			if (s->src == NULL || s->dst == NULL) {
				rr_err(err, errlen,
					"run %s: streams[%u]: no address",
					run->strategy, i);
				goto inval;
			}
			sub = json_object();
			if (sub == NULL || json_array_append_new(arr, sub) ||
					jset(sub, "src", rr_jstr(s->src)) ||
					jset(sub, "dst", rr_jstr(s->dst)) ||
					jset(sub, "sport", json_integer(s->sport)) ||
					jset(sub, "dport", json_integer(s->dport)) ||
					jset(sub, "proto", json_integer(s->proto)) ||
					jset(sub, "packets", jcount(s->packets)) ||
					jset(sub, "bytes", jcount(s->bytes)))
				goto nomem;
		}
	}
	if (run->has_streams_untracked && jset(o, "streams_untracked", json_pack(
			"{s:o,s:o}", "packets", jcount(run->streams_untracked.packets),
			"bytes", jcount(run->streams_untracked.bytes))))
		goto nomem;
	if (run->has_streams_counted_by_poll && jset(o,
			"streams_counted_by_poll",
			jcount(run->streams_counted_by_poll)))
		goto nomem;
	json_decref(drops);
	return o;
nomem:
	rr_err(err, errlen, "run: out of memory");
inval:
	json_decref(drops);
	json_decref(o);
	return NULL;
}

int
rxr_report_add_run(struct rxr_report *r, const struct rxr_report_run *run,
		char *err, size_t errlen)
{
	json_t *runs = json_object_get(r->doc, "runs");
	json_t *o, *prev;
	size_t i;

	if (run->strategy == NULL || *run->strategy == '\0') {
		rr_err(err, errlen, "run: no strategy name");
		return -EINVAL;
	}
	if (run->nb_drops > RXR_REPORT_DROPS_MAX) {
		rr_err(err, errlen, "run %s: %u drop causes, at most %d",
			run->strategy, run->nb_drops, RXR_REPORT_DROPS_MAX);
		return -EINVAL;
	}
	if (run->nb_streams > 0 && run->streams == NULL) {
		rr_err(err, errlen, "run %s: %u streams but no array",
			run->strategy, run->nb_streams);
		return -EINVAL;
	}
	if (check_figure("duration_s", run->duration_s, err, errlen) ||
			check_figure("cycles_per_packet",
				run->cycles_per_packet, err, errlen) ||
			check_figure("refill_cycles_per_frame",
				run->refill_cycles_per_frame, err, errlen) ||
			check_figure("zone_lock.wait_share",
				run->zone_lock.wait_share, err, errlen) ||
			(run->has_zeroing && (check_figure("zeroing.gbps",
				run->zeroing.gbps, err, errlen) ||
			check_figure("zeroing.max_poll_gap_us",
				run->zeroing.max_poll_gap_us, err, errlen))))
		return -EINVAL;
	/* Two runs with one key would make the summary lie about reps. */
	json_array_foreach(runs, i, prev) {
		const char *ps = json_string_value(json_object_get(prev,
					"strategy"));

		if (ps != NULL && strcmp(ps, run->strategy) == 0 &&
				json_is_true(json_object_get(prev, "bulk")) ==
					run->bulk &&
				json_integer_value(json_object_get(prev, "rep")) ==
					run->rep) {
			rr_err(err, errlen, "run %s bulk %s rep %u: already in "
				"the report", run->strategy,
				run->bulk ? "on" : "off", run->rep);
			return -EINVAL;
		}
	}
	o = run_json(run, err, errlen);
	if (o == NULL)
		return -EINVAL;
	if (json_array_append_new(runs, o) != 0) {
		rr_err(err, errlen, "run: out of memory");
		return -ENOMEM;
	}
	/* Summarized when read or written: its tests cost more than a run. */
	r->stale = true;
	return 0;
}
