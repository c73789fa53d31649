/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Report builder and schema: C structs in, a jansson document out, by the
 * same field lists that validate any document; fields of the environment
 * and the runs that the builder does not know in detail set as JSON.
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

/* argv joined by spaces, an argument quoted when a shell would take it
 * for more than a word. */
static char *
join_argv(int argc, char *const *argv)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);

	for (int i = 0; f != NULL && i < argc; i++) {
		const char *a = argv[i] != NULL ? argv[i] : "";

		fputs(i > 0 ? " " : "", f);
		if (*a != '\0' && a[strcspn(a,
				" \t\n'\"\\$`|&;<>()[]{}*?!#~=%")] == '\0') {
			fputs(a, f);
			continue;
		}
		fputc('\'', f);
		for (; *a != '\0'; a++)
			if (*a == '\'')
				fputs("'\\''", f);	/* close, quote, reopen */
			else
				fputc(*a, f);
		fputc('\'', f);
	}
	if (f == NULL || fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
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

/*
 * The schema: each object of a report a list of its fields, in the order
 * they are written. A field has a JSON type, whether it is required, its
 * own fields (an object) or element (an array), the checks its type
 * cannot say and, when the builder writes it from a C struct, the member
 * it comes from. The builder walks the lists to write a run, the
 * validator to check any document. Messages name the field by its path:
 * "<file>: runs[2].pcp.hits: missing", "<file>: runs[0].rx_packets:
 * expected an integer >= 0, found -1".
 */
struct vctx {
	const char *name;
	char *err;
	size_t errlen;
};

enum ftype {
	F_ANY,		/* written, not checked */
	F_STR,		/* string */
	F_BOOL,		/* true or false */
	F_COUNT,	/* integer >= 0 */
	F_NUM,		/* number >= 0 */
	F_NUM_NULL,	/* number >= 0 or null */
	F_REAL_NULL,	/* number or null */
	F_OBJ,		/* object with the fields of sub */
	F_ARR,		/* array of elements as sub[0] */
	F_COUNTS,	/* object of integers >= 0 under names of its own */
};

static const char *const ftype_names[] = {
	[F_STR] = "a string",
	[F_BOOL] = "true or false",
	[F_COUNT] = "an integer >= 0",
	[F_NUM] = "a number >= 0",
	[F_NUM_NULL] = "a number >= 0 or null",
	[F_REAL_NULL] = "a number or null",
	[F_OBJ] = "an object",
	[F_ARR] = "an array",
	[F_COUNTS] = "an object",
};

/* The C member a field is written from (C_NONE: from elsewhere). */
enum ctype {
	C_NONE, C_STR, C_BOOL, C_U8, C_U16, C_U32, C_INT, C_U64,
	C_DBL,		/* null unless finite */
	C_OBJ,		/* a struct of the fields of sub */
	C_ARR,		/* a pointer at off, its count (unsigned int) at nb */
	/* An array of struct rxr_report_drop at off, its count at nb, as
	 * {cause: count}: each cause non-empty and named once. */
	C_COUNTS,
};

struct field {
	const char *key;	/* NULL ends a list */
	enum ftype t;
	bool required;
	const struct field *sub;
	/* What the type cannot say; 0 or -EINVAL with the message. */
	int (*check)(struct vctx *c, const json_t *v, const char *path);
	enum ctype c;
	size_t off;		/* of the member */
	size_t has;		/* 1 + offset of the bool it is written on; 0:
				 * always */
	size_t nb;		/* C_ARR, C_COUNTS: offset of the count */
	size_t size;		/* C_ARR: size of an element */
	/* A run's field written by code of its own (and what follows it). */
	int (*put)(json_t *o, const struct rxr_report_run *run, char *err,
		size_t errlen);
};

static const char *
json_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a real";
	case JSON_TRUE: return "true";
	case JSON_FALSE: return "false";
	case JSON_NULL: return "null";
	}
	return "something else";
}

static bool
ftype_ok(const json_t *v, enum ftype t)
{
	switch (t) {
	case F_ANY: return true;
	case F_STR: return json_is_string(v);
	case F_BOOL: return json_is_boolean(v);
	case F_COUNT: return json_is_integer(v) && json_integer_value(v) >= 0;
	case F_NUM: return json_is_number(v) && json_number_value(v) >= 0;
	case F_NUM_NULL: return json_is_null(v) ||
		(json_is_number(v) && json_number_value(v) >= 0);
	case F_REAL_NULL: return json_is_null(v) || json_is_number(v);
	case F_OBJ: case F_COUNTS: return json_is_object(v);
	case F_ARR: return json_is_array(v);
	}
	return false;
}

static int __attribute__((format(printf, 3, 4)))
vfail(struct vctx *c, const char *path, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	rxrr_err(c->err, c->errlen, "%s: %s%s%s", c->name, path,
		*path != '\0' ? ": " : "", msg);
	return -EINVAL;
}

static int vobject(struct vctx *c, const json_t *obj, const char *path,
		const struct field *fields);

/* v at path against s: its type, then its fields, elements or counts. */
static int
vvalue(struct vctx *c, const json_t *v, const char *path,
		const struct field *s)
{
	char sub[160];
	const char *key;
	const json_t *e;
	size_t i;

	if (!ftype_ok(v, s->t)) {
		char found[32];

		if (json_is_integer(v))
			snprintf(found, sizeof(found), "%lld",
				(long long)json_integer_value(v));
		else if (json_is_real(v))
			snprintf(found, sizeof(found), "%.17g",
				json_real_value(v));
		else
			snprintf(found, sizeof(found), "%s", json_type_name(v));
		return vfail(c, path, "expected %s, found %s", ftype_names[s->t],
			found);
	}
	if (s->t == F_OBJ && s->sub != NULL && vobject(c, v, path, s->sub))
		return -EINVAL;
	json_array_foreach(s->t == F_ARR && s->sub != NULL ? v : NULL, i, e) {
		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (vvalue(c, e, sub, s->sub))
			return -EINVAL;
	}
	json_object_foreach(s->t == F_COUNTS ? (json_t *)(uintptr_t)v : NULL,
			key, e) {
		static const struct field count = { NULL, F_COUNT };

		snprintf(sub, sizeof(sub), "%s.%s", path, key);
		if (*key == '\0')
			return vfail(c, sub, "an empty name");
		if (vvalue(c, e, sub, &count))
			return -EINVAL;
	}
	return s->check != NULL ? s->check(c, v, path) : 0;
}

/* obj's fields: each present as its spec says, or absent when optional. */
static int
vobject(struct vctx *c, const json_t *obj, const char *path,
		const struct field *fields)
{
	for (const struct field *f = fields; f->key != NULL; f++) {
		const json_t *v = json_object_get(obj, f->key);
		char sub[160];

		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "",
			f->key);
		if (v == NULL && f->required)
			return vfail(c, sub, "missing");
		if (v != NULL && vvalue(c, v, sub, f))
			return -EINVAL;
	}
	return 0;
}

static int
check_memory(struct vctx *c, const json_t *v, const char *path)
{
	const char *m = json_string_value(v);

	if (strcmp(m, "hugepages") == 0 || strcmp(m, "no-huge") == 0)
		return 0;
	return vfail(c, path, "expected \"hugepages\" or \"no-huge\", found "
		"\"%.64s\"", m);
}

static int
check_alpha(struct vctx *c, const json_t *v, const char *path)
{
	if (json_number_value(v) > 0 && json_number_value(v) < 1)
		return 0;
	return vfail(c, path, "%g is not a significance level (0 < alpha < 1)",
		json_number_value(v));
}

static int
check_nonempty(struct vctx *c, const json_t *v, const char *path)
{
	return json_string_length(v) != 0 ? 0 : vfail(c, path, "empty");
}

static int
check_unit(struct vctx *c, const json_t *v, const char *path)
{
	return strcmp(json_string_value(v), "ns") == 0 ? 0 :
		vfail(c, path, "expected \"ns\", found \"%.32s\"",
			json_string_value(v));
}

/* Only the log2 buckets, each once: [0,1), [1,2), [2,4) ... [2^46, 2^47). */
static int
check_buckets(struct vctx *c, const json_t *v, const char *path)
{
	uint64_t seen = 0;
	const json_t *b;
	char sub[160];
	size_t i;

	json_array_foreach(v, i, b) {
		json_int_t lo = json_integer_value(json_object_get(b, "lo"));
		json_int_t hi = json_integer_value(json_object_get(b, "hi"));
		unsigned int idx = rxrr_hist_index((uint64_t)lo);

		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (!(lo == 0 && hi == 1) && !(lo > 0 && (lo & (lo - 1)) == 0 &&
				hi == 2 * lo && (uint64_t)hi <= rxrr_hist_hi(
					RXR_REPORT_HIST_BUCKETS - 1)))
			return vfail(c, sub, "[%lld, %lld) is not a log2 bucket",
				(long long)lo, (long long)hi);
		if (seen & (UINT64_C(1) << idx))
			return vfail(c, sub, "bucket [%lld, %lld) listed twice",
				(long long)lo, (long long)hi);
		seen |= UINT64_C(1) << idx;
	}
	return 0;
}

static int
check_stream(struct vctx *c, const json_t *v, const char *path)
{
	if (json_integer_value(json_object_get(v, "sport")) <= 65535 &&
			json_integer_value(json_object_get(v, "dport")) <= 65535 &&
			json_integer_value(json_object_get(v, "proto")) <= 255)
		return 0;
	return vfail(c, path, "port above 65535 or protocol above 255");
}

static int
check_cause(struct vctx *c, const json_t *v, const char *path)
{
	for (unsigned int k = 0; rxr_report_disturbance_name(k) != NULL; k++)
		if (strcmp(json_string_value(v),
				rxr_report_disturbance_name(k)) == 0)
			return 0;
	return vfail(c, path, "not duration, steal, switches or stopped");
}

/*
 * A run as a whole: cut_short only on a run "complete": false, and
 * there required; disturbed, disturbed_by and noise together (reports
 * before noise accounting have none), causes only on a disturbed run.
 */
static int
check_run(struct vctx *c, const json_t *run, const char *path)
{
	const json_t *complete = json_object_get(run, "complete");
	const json_t *cut = json_object_get(run, "cut_short");
	const json_t *dist = json_object_get(run, "disturbed");
	const json_t *by = json_object_get(run, "disturbed_by");
	const json_t *noise = json_object_get(run, "noise");
	char sub[160];

	snprintf(sub, sizeof(sub), "%s.cut_short", path);
	if (json_is_false(complete) && cut == NULL)
		return vfail(c, sub, "missing");
	if (cut != NULL && !json_is_false(complete))
		return vfail(c, sub, "on a run not marked \"complete\": false");
	if (cut != NULL && json_string_length(cut) == 0)
		return vfail(c, sub, "empty");
	snprintf(sub, sizeof(sub), "%s.%s", path, by == NULL ? "disturbed_by" :
		"noise");
	if (dist != NULL && (by == NULL || noise == NULL))
		return vfail(c, sub, "missing");
	snprintf(sub, sizeof(sub), "%s.%s", path, by != NULL ? "disturbed_by" :
		"noise");
	if (dist == NULL && (by != NULL || noise != NULL))
		return vfail(c, sub, "without %s.disturbed", path);
	snprintf(sub, sizeof(sub), "%s.disturbed_by", path);
	if (dist != NULL && json_is_true(dist) != (json_array_size(by) != 0))
		return vfail(c, sub, json_is_true(dist) ? "empty on a disturbed "
			"run" : "causes on a run not disturbed");
	return 0;
}

static int put_marks(json_t *o, const struct rxr_report_run *run, char *err,
		size_t errlen);

/* The refill latency histogram, its populated range of buckets (zeros
 * inside it kept: the shape shows), and its percentiles; 0 or -ENOMEM. */
static int
put_latency(json_t *o, const struct rxr_report_run *run,
		char *err __attribute__((unused)), size_t errlen __attribute__((unused)))
{
	const uint64_t *counts = run->refill_latency_ns;
	int first = 0, last = RXR_REPORT_HIST_BUCKETS - 1;
	json_t *b;

	while (first <= last && counts[first] == 0)
		first++;
	if (first > last)
		return 0;
	while (counts[last] == 0)
		last--;
	b = json_array();
	for (int i = first; b != NULL && i <= last; i++)
		if (json_array_append_new(b, json_pack("{s:o, s:o, s:o}", "lo",
				rxrr_jcount(rxrr_hist_lo(i)), "hi",
				rxrr_jcount(rxrr_hist_hi(i)), "count",
				rxrr_jcount(counts[i])))) {
			json_decref(b);
			b = NULL;
		}
	return rxrr_jset(o, "refill_latency_hist", b == NULL ? NULL :
			json_pack("{s:s, s:o}", "unit", "ns", "buckets", b)) ||
		rxrr_jset(o, "refill_latency_percentiles",
			rxrr_percentiles_json(counts)) ? -ENOMEM : 0;
}

static double
ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

/* Each stream's share of the bytes: smallest, largest, Jain's index
 * (sum x)^2 / (n * sum x^2) (before the streams); 0, -EINVAL (a stream
 * without addresses), -ENOMEM. */
static int
put_fairness(json_t *o, const struct rxr_report_run *run, char *err,
		size_t errlen)
{
	double sum = 0, sum2 = 0, lo = INFINITY, hi = 0;

	for (unsigned int i = 0; i < run->nb_streams; i++) {
		double x = (double)run->streams[i].bytes;

		if (run->streams[i].src == NULL || run->streams[i].dst == NULL) {
			rxrr_err(err, errlen, "run %s: streams[%u]: no address",
				run->strategy, i);
			return -EINVAL;
		}
		sum += x;
		sum2 += x * x;
		lo = fmin(lo, x);
		hi = fmax(hi, x);
	}
	if (run->nb_streams == 0)
		return 0;
	return rxrr_jset(o, "fairness", json_pack("{s:i, s:o, s:o, s:o}",
		"streams", run->nb_streams,
		"min_share", rxrr_jnum(ratio(lo, sum)),
		"max_share", rxrr_jnum(ratio(hi, sum)),
		"jain", rxrr_jnum(ratio(sum * sum, run->nb_streams * sum2)))) ?
		-ENOMEM : 0;
}

#define FEND { NULL, F_ANY, false, NULL, NULL, C_NONE, 0, 0, 0, 0, NULL }
/* name[]: an array of elements as s (a field list) checks. */
#define FARR(name, t, s, check) \
	static const struct field name[] = { { NULL, t, true, s, check }, FEND }
/* Member m of struct s, of C type ct; written only when the bool m is. */
#define MEMBER(s, ct, m) .c = C_##ct, .off = offsetof(struct s, m)
#define HAS(s, m) .has = offsetof(struct s, m) + 1
/* An array member m of struct s (C_ARR or C_COUNTS) with its count nb_m. */
#define LIST(s, ct, m) .c = C_##ct, .off = offsetof(struct s, m), \
	.nb = offsetof(struct s, nb_##m), .size = sizeof(*((struct s *)0)->m)

static const struct field no_fields[] = { FEND };
/* An lcore id: an unsigned int, written as a uint32_t. */
_Static_assert(sizeof(unsigned int) == sizeof(uint32_t), "lcore ids");
static const struct field lcore_ids[] = {
	{ NULL, F_COUNT, true, .c = C_U32 }, FEND
};

static const struct field port_fields[] = {
	{ "port", F_COUNT, true, MEMBER(rxr_report_port, U16, port) },
	{ "driver", F_STR, true, MEMBER(rxr_report_port, STR, driver) },
	{ "name", F_STR, true, MEMBER(rxr_report_port, STR, name) },
	FEND
};
FARR(ports, F_OBJ, port_fields, NULL);

/* Written from the env (lcores, ports) or from what set_env() found. */
static const struct field env_fields[] = {
	{ "dpdk_version", F_STR, true },
	{ "host", F_STR, true },
	{ "cpu_model", F_STR, true },
	{ "lcores", F_ARR, true, lcore_ids, LIST(rxr_report_env, ARR, lcores) },
	{ "memory", F_STR, true, NULL, check_memory },
	{ "ports", F_ARR, true, ports, LIST(rxr_report_env, ARR, ports) },
	{ "options", F_OBJ, true, no_fields },
	{ "argv", F_STR, true },
	FEND
};

static const struct field statistics_fields[] = {
	{ "ci95", F_STR }, { "test", F_STR }, { "paired_test", F_STR },
	{ "paired_interval", F_STR },
	{ "alpha", F_NUM, false, NULL, check_alpha },
	FEND
};

/* pcp_fields, ...; pcp_required, pcp_has: the group lists (rxr_report.h). */
#define F_TYPE_COUNT F_COUNT
#define F_TYPE_NUMBER F_NUM_NULL
#define F_TYPE_STRING F_STR
#define C_TYPE_COUNT C_U64
#define C_TYPE_NUMBER C_DBL
#define C_TYPE_STRING C_STR
#define REQUIRED_ALWAYS true
#define REQUIRED_HAS false
#define HAS_ALWAYS(g) 0
#define HAS_HAS(g) (offsetof(struct rxr_report_run, has_##g) + 1)
#define GROUP_FIELD_(g, f, t, r, p, h) { #f, F_TYPE_##t, true, \
	.c = C_TYPE_##t, .off = offsetof(struct rxr_report_##g, f) },
#define GROUP_FIELDS_(g, list, when) \
	static const struct field g##_fields[] = { list(GROUP_FIELD_) FEND }; \
	enum { g##_required = REQUIRED_##when, g##_has = HAS_##when(g) };
RXR_REPORT_GROUPS(GROUP_FIELDS_)
/* Group g of a run: written always, or when its has_<g> is set. */
#define GROUP(g) { #g, F_OBJ, g##_required, g##_fields, .c = C_OBJ, \
	.off = offsetof(struct rxr_report_run, g), .has = g##_has }

#define CPU(ct, m) MEMBER(rxr_report_noise_cpu, ct, m)
static const struct field cpu_fields[] = {
	{ "cpu", F_COUNT, true, CPU(U32, cpu) },
	{ "steal_share", F_NUM_NULL, true, CPU(DBL, steal_share) },
	FEND
};
FARR(cpus, F_OBJ, cpu_fields, NULL);
#define LCORE(ct, m) MEMBER(rxr_report_noise_lcore, ct, m)
static const struct field lcore_fields[] = {
	{ "lcore", F_COUNT, true, LCORE(U32, lcore) },
	{ "tid", F_COUNT, true, LCORE(INT, tid) },
	{ "own_cpu", F_BOOL, true, LCORE(BOOL, own_cpu) },
	{ "nonvoluntary_ctxt_switches", F_COUNT, true,
		LCORE(U64, nonvoluntary_ctxt_switches) },
	{ "migrations", F_COUNT, true, LCORE(U64, migrations) },
	{ "runqueue_wait_share", F_NUM_NULL, true,
		LCORE(DBL, runqueue_wait_share) },
	{ "runnable_share", F_NUM_NULL, false, LCORE(DBL, runnable_share) },
	FEND
};
FARR(lcores, F_OBJ, lcore_fields, NULL);
#define TASK(ct, m) MEMBER(rxr_report_noise_task, ct, m)
static const struct field task_fields[] = {
	{ "pid", F_COUNT, true, TASK(INT, pid) },
	{ "comm", F_STR, true, TASK(STR, comm) },
	{ "cpu", F_COUNT, true, TASK(U32, cpu) },
	{ "cpu_share", F_NUM_NULL, true, TASK(DBL, cpu_share) },
	FEND
};
FARR(tasks, F_OBJ, task_fields, NULL);

/* Written by put_marks(): the window's figures, per CPU, lcore and busy
 * task. */
static const struct field noise_fields[] = {
	{ "asked_s", F_NUM_NULL, true,
		MEMBER(rxr_report_noise, DBL, asked_s) },
	/* Negative when the run was shorter than asked (cut short). */
	{ "duration_excess", F_REAL_NULL, true },
	{ "steal_share_max", F_NUM_NULL, true },
	{ "nonvoluntary_ctxt_switches", F_COUNT, true },
	{ "migrations", F_COUNT, true },
	{ "cpus", F_ARR, true, cpus, LIST(rxr_report_noise, ARR, cpus) },
	{ "lcores", F_ARR, true, lcores, LIST(rxr_report_noise, ARR, lcores) },
	{ "busy_tasks", F_ARR, true, tasks,
		LIST(rxr_report_noise, ARR, busy_tasks) },
	FEND
};

static const struct field bucket_fields[] = {
	{ "lo", F_COUNT, true }, { "hi", F_COUNT, true },
	{ "count", F_COUNT, true }, FEND
};
FARR(buckets, F_OBJ, bucket_fields, NULL);
static const struct field hist_fields[] = {
	{ "unit", F_STR, true, NULL, check_unit },
	{ "buckets", F_ARR, true, buckets, check_buckets },
	FEND
};

#define STREAM(ct, m) MEMBER(rxr_report_stream, ct, m)
static const struct field stream_fields[] = {
	{ "src", F_STR, true, STREAM(STR, src) },
	{ "dst", F_STR, true, STREAM(STR, dst) },
	{ "sport", F_COUNT, true, STREAM(U16, sport) },
	{ "dport", F_COUNT, true, STREAM(U16, dport) },
	{ "proto", F_COUNT, true, STREAM(U8, proto) },
	{ "fragments", F_ANY, false, STREAM(BOOL, fragments),
		HAS(rxr_report_stream, fragments) },
	{ "packets", F_COUNT, true, STREAM(U64, packets) },
	{ "bytes", F_COUNT, true, STREAM(U64, bytes) },
	FEND
};
FARR(streams, F_OBJ, stream_fields, check_stream);
FARR(causes, F_STR, NULL, check_cause);

#define RUN(ct, m) MEMBER(rxr_report_run, ct, m)
#define FIGURE_REQUIRED true
#define FIGURE_OPTIONAL false
#define FIGURE_SPARSE false
#define FIGURE_(n, row, when, help) \
	{ #n, F_NUM_NULL, FIGURE_##when, RUN(DBL, n) },
static const struct field run_fields[] = {
	{ "strategy", F_STR, true, NULL, check_nonempty, RUN(STR, strategy) },
	{ "bulk", F_BOOL, true, RUN(BOOL, bulk) },
	{ "rep", F_COUNT, true, RUN(U32, rep) },
	{ "duration_s", F_NUM, true, RUN(DBL, duration_s) },
	{ "rx_packets", F_COUNT, true, RUN(U64, rx_packets) },
	{ "rx_bytes", F_COUNT, true, RUN(U64, rx_bytes) },
	RXR_REPORT_FIGURES(FIGURE_)
	{ "refill_latency_sample_every", F_ANY, false,
		RUN(U32, refill_latency_sample_every) },
	/* complete, cut_short and the noise marks: put_marks(). */
	{ "complete", F_BOOL, .put = put_marks },
	{ "cut_short", F_STR },
	{ "disturbed", F_BOOL },
	{ "disturbed_by", F_ARR, false, causes },
	{ "noise", F_OBJ, false, noise_fields },
	{ "drops", F_COUNTS, true, LIST(rxr_report_run, COUNTS, drops) },
	GROUP(pcp),
	GROUP(zone_lock),
	GROUP(deferred),
	/* The strategy's own counters; "recycle" in older reports. */
	{ "strategy_counters", F_COUNTS, false,
		LIST(rxr_report_run, COUNTS, strategy_counters) },
	{ "recycle", F_COUNTS },
	GROUP(zeroing),
	GROUP(poll),
	GROUP(zeroer),
	/* With refill_latency_percentiles. */
	{ "refill_latency_hist", F_OBJ, false, hist_fields,
		.put = put_latency },
	/* With fairness. */
	{ "streams", F_ARR, false, streams, LIST(rxr_report_run, ARR, streams),
		.put = put_fairness },
	GROUP(streams_untracked),
	GROUP(streams_untracked_by_cause),
	{ "streams_counted_by_poll", F_COUNT, false,
		RUN(U64, streams_counted_by_poll),
		HAS(rxr_report_run, has_streams_counted_by_poll) },
	FEND
};
FARR(runs_spec, F_OBJ, run_fields, check_run);

static int write_fields(json_t *o, const char *s, const struct field *fields,
		const json_t *found, char *err, size_t errlen);

/* Member f of the struct at s as JSON; NULL when out of memory. */
static json_t *
member_json(const struct field *f, const char *s)
{
	const char *p = s + f->off, *e;
	unsigned int n, i;
	json_t *arr, *v;

	switch (f->c) {
	case C_STR: return rxrr_jstr(*(const char *const *)p);
	case C_BOOL: return json_boolean(*(const bool *)p);
	case C_U8: return json_integer(*(const uint8_t *)p);
	case C_U16: return json_integer(*(const uint16_t *)p);
	case C_U32: return json_integer(*(const uint32_t *)p);
	case C_INT: return json_integer(*(const int *)p);
	case C_U64: return rxrr_jcount(*(const uint64_t *)p);
	case C_DBL: return rxrr_jnum(*(const double *)p);
	case C_ARR:
		arr = json_array();
		n = *(const unsigned int *)(s + f->nb);
		for (i = 0; arr != NULL && i < n; i++) {
			e = *(const char *const *)p + i * f->size;
			v = f->sub->t == F_OBJ ? json_object() :
				member_json(f->sub, e);
			if (json_array_append_new(arr, v) != 0 ||
					(f->sub->t == F_OBJ && write_fields(v, e,
						f->sub->sub, NULL, NULL, 0))) {
				json_decref(arr);
				return NULL;
			}
		}
		return arr;
	case C_NONE: case C_OBJ: case C_COUNTS: break;
	}
	return NULL;
}

/* C_COUNTS field f of the run at s into o; 0, -EINVAL or -ENOMEM. */
static int
write_counts(json_t *o, const char *s, const struct field *f, char *err,
		size_t errlen)
{
	const struct rxr_report_drop *d = (const void *)(s + f->off);
	const char *strategy = ((const struct rxr_report_run *)
		(const void *)s)->strategy;
	unsigned int n = *(const unsigned int *)(s + f->nb);

	/* An empty name is refused by the schema, as in a file. */
	for (unsigned int i = 0; i < n && i < RXR_REPORT_DROPS_MAX; i++) {
		const char *cause = d[i].cause != NULL ? d[i].cause : "";

		if (json_object_get(o, cause) != NULL) {
			rxrr_err(err, errlen, "run %s: %s \"%s\" twice",
				strategy, strcmp(f->key, "drops") == 0 ? "drop cause" :
				"counter", cause);
			return -EINVAL;
		}
		if (rxrr_jset(o, cause, rxrr_jcount(d[i].count)))
			return -ENOMEM;
	}
	return 0;
}

/*
 * The fields of the struct at s into o, in list order: each by its put(),
 * from its member, or from found (values of the fields without a member,
 * by key); an array not required only when it has elements. The values
 * are the schema's to check. 0, -EINVAL (err set) or -ENOMEM.
 */
static int
write_fields(json_t *o, const char *s, const struct field *fields,
		const json_t *found, char *err, size_t errlen)
{
	for (const struct field *f = fields; f->key != NULL; f++) {
		json_t *v;
		int ret;

		if (f->has != 0 && !*(const bool *)(s + f->has - 1))
			continue;
		if (f->c == C_ARR && *(const unsigned int *)(s + f->nb) > 0 &&
				*(const void *const *)(s + f->off) == NULL) {
			rxrr_err(err, errlen, "%u %s but no array",
				*(const unsigned int *)(s + f->nb), f->key);
			return -EINVAL;
		}
		ret = f->put == NULL ? 0 : f->put(o, (const void *)s, err, errlen);
		if (ret != 0)
			return ret == -ENOMEM ? -ENOMEM : -EINVAL;
		if (f->c == C_NONE) {
			v = json_object_get(found, f->key);
			if (v != NULL && json_object_set(o, f->key, v) != 0)
				return -ENOMEM;
			continue;
		}
		if ((f->c == C_ARR || f->c == C_COUNTS) && !f->required &&
				*(const unsigned int *)(s + f->nb) == 0)
			continue;
		v = f->c == C_OBJ || f->c == C_COUNTS ? json_object() :
			member_json(f, s);
		if (rxrr_jset(o, f->key, v) != 0)
			return -ENOMEM;
		ret = f->c == C_OBJ ? write_fields(v, s + f->off, f->sub, NULL,
			err, errlen) : f->c == C_COUNTS ? write_counts(v, s, f, err,
			errlen) : 0;
		if (ret != 0)
			return ret;
	}
	return 0;
}

/*
 * complete, cut_short and, with a noise record, disturbed, disturbed_by and
 * noise{}; 0, -EINVAL or -ENOMEM.
 */
static int
put_marks(json_t *o, const struct rxr_report_run *run, char *err,
		size_t errlen)
{
	const struct rxr_report_noise *n = &run->noise;
	json_t *by, *found, *noise;
	double steal_max = NAN;
	uint64_t sw = 0, mig = 0;
	unsigned int i;
	int ret;

	if (run->has_noise && n->disturbed >> RXR_REPORT_DISTURBED_CAUSES != 0) {
		rxrr_err(err, errlen, "run %s: disturbed by unknown causes 0x%x",
			run->strategy, n->disturbed);
		return -EINVAL;
	}
	if (rxrr_jset(o, "complete", json_boolean(run->cut_short == NULL)) ||
			(run->cut_short != NULL && rxrr_jset(o, "cut_short",
				rxrr_jstr(run->cut_short))))
		return -ENOMEM;
	if (!run->has_noise)
		return 0;
	for (i = 0; i < n->nb_cpus; i++)
		if (!isnan(n->cpus[i].steal_share) &&
				!(n->cpus[i].steal_share <= steal_max))
			steal_max = n->cpus[i].steal_share;
	for (i = 0; i < n->nb_lcores; i++) {
		sw += n->lcores[i].nonvoluntary_ctxt_switches;
		mig += n->lcores[i].migrations;
	}
	by = json_array();
	if (rxrr_jset(o, "disturbed", json_boolean(n->disturbed != 0)) ||
			rxrr_jset(o, "disturbed_by", by))
		return -ENOMEM;
	for (i = 0; i < RXR_REPORT_DISTURBED_CAUSES; i++)
		if ((n->disturbed & (1u << i)) && json_array_append_new(by,
				json_string(rxr_report_disturbance_name(i))))
			return -ENOMEM;
	noise = json_object();
	if (rxrr_jset(o, "noise", noise))
		return -ENOMEM;
	found = json_pack("{s:o, s:o, s:o, s:o}", "duration_excess",
		rxrr_jnum(n->asked_s > 0 ? run->duration_s / n->asked_s - 1 :
			NAN), "steal_share_max", rxrr_jnum(steal_max),
		"nonvoluntary_ctxt_switches", rxrr_jcount(sw),
		"migrations", rxrr_jcount(mig));
	ret = found == NULL ? -ENOMEM : write_fields(noise, (const void *)n,
		noise_fields, found, err, errlen);
	json_decref(found);
	return ret;
}

int
rxr_report_set_env(struct rxr_report *r, const struct rxr_report_env *env,
		char *err, size_t errlen)
{
	char host[256] = "unknown", cpu[256];
	json_t *options, *found, *e;
	char *argv_str;
	int ret;

	if (env->argc > 0 && env->argv == NULL) {
		rxrr_err(err, errlen, "env: argc %d but no argv", env->argc);
		return -EINVAL;
	}
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
	found = argv_str == NULL ? NULL : json_pack("{s:o, s:o, s:o, s:s, "
		"s:o, s:o}", "dpdk_version", rxrr_jstr(env->dpdk_version !=
			NULL ? env->dpdk_version : "unknown"),
		"host", rxrr_jstr(host), "cpu_model", rxrr_jstr(cpu),
		"memory", env->no_huge ? "no-huge" : "hugepages",
		"options", options != NULL ? json_incref(options) : json_object(),
		"argv", rxrr_jstr(argv_str));
	free(argv_str);
	e = json_object();
	ret = found == NULL || e == NULL ? -ENOMEM : write_fields(e,
		(const void *)env, env_fields, found, err, errlen);
	if (ret == 0 && json_object_set(r->doc, "env", e) != 0)
		ret = -ENOMEM;
	json_decref(found);
	json_decref(e);
	if (ret == -ENOMEM)
		rxrr_err(err, errlen, "env: out of memory");
	return ret;
}

/*
 * Ethernet bytes on the wire a frame's rx_bytes do not count: preamble and
 * start frame delimiter (8), inter-frame gap (12), frame check sequence (4).
 */
#define WIRE_OVERHEAD_BYTES 24.0
#define BITS_PER_BYTE 8.0
#define GIGA 1e9
#define MEGA 1e6

int
rxr_report_add_run(struct rxr_report *r, const struct rxr_report_run *run,
		char *err, size_t errlen)
{
	json_t *runs = json_object_get(r->doc, "runs");
	struct vctx c = { .name = "report", .err = err, .errlen = errlen };
	struct rxr_report_run full = *run;
	json_t *o, *prev;
	char label[160], path[32];
	size_t i;
	int ret;

	full.pcp.hit_rate = rxr_report_pcp_hit_rate(&run->pcp);
	full.gbps = ratio(run->rx_bytes * BITS_PER_BYTE, run->duration_s) / GIGA;
	full.gbps_wire = ratio(((double)run->rx_bytes + WIRE_OVERHEAD_BYTES *
		run->rx_packets) * BITS_PER_BYTE, run->duration_s) / GIGA;
	full.mpps = ratio(run->rx_packets, run->duration_s) / MEGA;
	if (run->nb_drops > RXR_REPORT_DROPS_MAX) {
		rxrr_err(err, errlen, "run %s: %u drop causes, at most %d",
			run->strategy, run->nb_drops, RXR_REPORT_DROPS_MAX);
		return -EINVAL;
	}
	o = json_object();
	ret = o == NULL ? -ENOMEM : write_fields(o, (const void *)&full,
		run_fields, NULL, err, errlen);
	if (ret == -ENOMEM)
		rxrr_err(err, errlen, "run: out of memory");
	/* The caller's figures, as the schema checks a file's. */
	snprintf(path, sizeof(path), "runs[%zu]", json_array_size(runs));
	if (ret != 0 || vvalue(&c, o, path, &runs_spec[0]) != 0) {
		json_decref(o);
		return -EINVAL;
	}
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

/*
 * One run per configuration (strategy, bulk, zeroing) and rep: the rounds
 * pair runs by rep. At most RXR_STATS_MAX_N complete runs per
 * configuration, all the statistics take: past it every figure would be
 * "-" and a gate would pass.
 */
static int
check_unique(struct vctx *c, const json_t *runs)
{
	json_t *seen = json_object();
	const json_t *run, *first;
	int ret = 0;
	size_t i;

	json_array_foreach(runs, i, run) {
		const char *s = json_string_value(json_object_get(run,
			"strategy"));
		const char *zp = rxrr_zero_of(run, "policy");
		const char *zm = rxrr_zero_of(run, "method");
		long long rep = json_integer_value(json_object_get(run, "rep"));
		char *key, path[32], label[160];
		json_int_t nb;

		/* The whole names: a label is cut at its buffer's length. */
		rxrr_run_label(run, true, label, sizeof(label));
		if (seen == NULL || asprintf(&key, "%s\x1f%d\x1f%s\x1f%s\x1f%lld",
				s, json_is_true(json_object_get(run, "bulk")),
				zp ? zp : "", zm ? zm : "", rep) < 0) {
			ret = vfail(c, "runs", "out of memory");
			break;
		}
		first = json_object_get(seen, key);
		snprintf(path, sizeof(path), "runs[%zu]", i);
		if (first != NULL)
			ret = vfail(c, path, "%.100s rep %lld again, as runs[%lld]: "
				"one run per strategy, bulk, zeroing and rep",
				label, rep, (long long)json_integer_value(first));
		else if (json_object_set_new(seen, key, json_integer(i)) != 0)
			ret = vfail(c, path, "out of memory");
		/* The configuration's count of complete runs: the key
		 * without its rep. */
		*strrchr(key, '\x1f') = '\0';
		nb = json_integer_value(json_object_get(seen, key)) +
			!json_is_false(json_object_get(run, "complete"));
		if (ret == 0 && nb > RXR_STATS_MAX_N)
			ret = vfail(c, path, "configuration %.100s has more than "
				"%u complete runs: at most %u per configuration "
				"can be compared", label, RXR_STATS_MAX_N,
				RXR_STATS_MAX_N);
		else if (ret == 0 && json_object_set_new(seen, key,
				json_integer(nb)) != 0)
			ret = vfail(c, path, "out of memory");
		free(key);
		if (ret != 0)
			break;
	}
	json_decref(seen);
	return ret;
}

int
rxr_report_validate(const json_t *doc, const char *name, char *err,
		size_t errlen)
{
	static const struct field top[] = {
		{ "partial", F_BOOL, true },
		{ "created", F_STR, true },
		{ "env", F_OBJ, true, env_fields },
		{ "runs", F_ARR, true, runs_spec },
		{ "summary", F_ARR },
		{ "statistics", F_OBJ, false, statistics_fields },
		FEND
	};
	struct vctx c = { .name = name, .err = err, .errlen = errlen };
	const json_t *schema;

	if (!json_is_object(doc)) {
		rxrr_err(err, errlen, "%s: %s, not an rxrefill report", name,
			json_type_name(doc));
		return -EINVAL;
	}
	/* The schema first: a report of another version is not "broken". */
	schema = json_object_get(doc, "schema");
	if (schema == NULL) {
		rxrr_err(err, errlen, "%s: no \"schema\" field, not an rxrefill "
			"report (expected \"%s\")", name, RXR_REPORT_SCHEMA);
		return -EINVAL;
	}
	if (!json_is_string(schema) ||
			strcmp(json_string_value(schema), RXR_REPORT_SCHEMA)) {
		if (json_is_string(schema))
			rxrr_err(err, errlen, "%s: schema \"%.64s\" is not "
				"supported, this build reads \"%s\"", name,
				json_string_value(schema), RXR_REPORT_SCHEMA);
		else
			rxrr_err(err, errlen, "%s: schema is %s, expected the "
				"string \"%s\"", name, json_type_name(schema),
				RXR_REPORT_SCHEMA);
		return -EINVAL;
	}
	if (vobject(&c, doc, "", top))
		return -EINVAL;
	return check_unique(&c, json_object_get(doc, "runs"));
}

