/* SPDX-License-Identifier: BSD-3-Clause */

/* Reports on disk: atomic writes, loading, schema validation. */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rxr_path.h"
#include "rxr_report_priv.h"
#include "rxr_stats.h"

/* Far above any real report; keeps a wrong file from eating memory. */
#define REPORT_MAX_BYTES (256u << 20)

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(12))

/* doc and a newline into f, flushed; 0 or -errno. */
static int
dump(const json_t *doc, FILE *f)
{
	errno = 0;
	if (json_dumpf(doc, f, DUMP_FLAGS) != 0 || fputc('\n', f) == EOF ||
			fflush(f) != 0)
		return errno != 0 ? -errno : -EIO;
	return 0;
}

/*
 * doc on disk in a new temporary file *tmp in dir, named after base, with
 * the mode of the file at path; 0, or -errno with *step what failed (*tmp,
 * when set, is to be unlinked).
 */
static int
write_temp(const json_t *doc, const char *path, const char *dir,
		const char *base, char **tmp, const char **step)
{
	struct stat st;
	mode_t mode = 0644;
	FILE *f = NULL;
	int fd, ret;

	/*
	 * Same directory as the target: rename() must not cross filesystems.
	 * The name keeps at most RXR_PATH_TMP_BASE_MAX bytes of base: a name
	 * near NAME_MAX has no room for the prefix and suffix.
	 */
	if (asprintf(tmp, "%s/.%.*s.tmp.XXXXXX", dir, RXR_PATH_TMP_BASE_MAX,
			base) < 0) {
		*tmp = NULL;
		*step = "out of memory";
		return -ENOMEM;
	}
	*step = "creating a temporary file";
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	/* mkstemp makes 0600; a report is for reading: keep the old mode. */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	*step = "setting the mode of the temporary file";
	if (fchmod(fd, mode) == 0) {
		*step = "opening the temporary file";
		f = fdopen(fd, "w");
	}
	if (f == NULL) {
		ret = -errno;
		close(fd);
		return ret;
	}
	*step = "writing the temporary file";
	ret = dump(doc, f);
	/* Data on disk before the rename makes it visible under path. */
	if (ret == 0 && fsync(fileno(f)) != 0) {
		ret = -errno;
		*step = "fsync of the temporary file";
	}
	if (fclose(f) != 0 && ret == 0) {
		ret = -errno;
		*step = "closing the temporary file";
	}
	return ret;
}

/* The rename itself is durable only once the directory is synced. */
static int
sync_dir(const char *dir, const char **step)
{
	int dfd, ret;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		*step = "opening its directory to fsync it";
		return -errno;
	}
	ret = fsync(dfd) != 0 ? -errno : 0;
	close(dfd);
	/* Some filesystems cannot sync a directory; nothing more to do then. */
	if (ret != 0 && ret != -EINVAL && ret != -EROFS && ret != -ENOTSUP) {
		*step = "fsync of its directory";
		return ret;
	}
	return 0;
}

static int
json_write_atomic(const json_t *doc, const char *path, char *err,
		size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *base, *step = "out of memory";
	char *dir, *tmp = NULL;
	struct stat st;
	int ret = -ENOMEM;

	if (rxr_path_is_stdout(path)) {
		ret = dump(doc, stdout);
		if (ret != 0)
			rxrr_err(err, errlen, "cannot write report to standard "
				"output: %s", strerror(-ret));
		return ret;
	}
	base = slash != NULL ? slash + 1 : path;
	if (*base == '\0') {
		rxrr_err(err, errlen, "cannot write report %s: not a file name",
			path);
		return -EINVAL;
	}
	/* The rename would replace a device, a FIFO, ... by a file. */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
			!S_ISLNK(st.st_mode)) {
		rxrr_err(err, errlen, "cannot write report %s: is %s, not a "
			"regular file: refusing to replace it", path,
			rxr_path_kind(path));
		return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
	}
	dir = slash == NULL ? strdup(".") : slash == path ? strdup("/") :
		strndup(path, (size_t)(slash - path));
	if (dir != NULL)
		ret = write_temp(doc, path, dir, base, &tmp, &step);
	if (ret == 0 && rename(tmp, path) != 0) {
		ret = -errno;
		step = "renaming the temporary file over it";
	}
	if (ret == 0) {
		free(tmp);
		tmp = NULL;
		ret = sync_dir(dir, &step);
	}
	if (ret != 0)
		rxrr_err(err, errlen, "cannot write report %s: %s: %s", path,
			step, strerror(-ret));
	if (tmp != NULL) {
		unlink(tmp);
		free(tmp);
	}
	free(dir);
	return ret;
}

int
rxr_report_write_atomic(const struct rxr_report *r, const char *path,
		char *err, size_t errlen)
{
	char verr[RXR_REPORT_ERR_LEN];

	/* Never write what rxr_report_load() would refuse. */
	if (rxrr_fresh(r) != 0 || rxrr_noise_count(r->doc) != 0) {
		rxrr_err(err, errlen, "%s: summary: out of memory", path);
		return -ENOMEM;
	}
	if (rxr_report_validate(r->doc, "report", verr, sizeof(verr)) != 0) {
		rxrr_err(err, errlen, "cannot write report %s: %s", path, verr);
		return -EINVAL;
	}
	return json_write_atomic(r->doc, path, err, errlen);
}

/*
 * Validation, from a description of the schema: each object a list of
 * its fields, each field a type, whether it is required, its own fields
 * (an object), its element (an array) and the checks its type cannot
 * say. Messages name the field by its path: "<file>: runs[2].pcp.hits:
 * missing", "<file>: runs[0].rx_packets: expected an integer >= 0,
 * found -1".
 */
struct vctx {
	const char *name;
	char *err;
	size_t errlen;
};

enum vtype {
	V_STR,		/* string */
	V_BOOL,		/* true or false */
	V_COUNT,	/* integer >= 0 */
	V_NUM,		/* number >= 0 */
	V_NUM_NULL,	/* number >= 0 or null */
	V_REAL_NULL,	/* number or null */
	V_OBJ,		/* object with the fields of sub */
	V_ARR,		/* array of elements as sub[0] */
	V_COUNTS,	/* object of integers >= 0 under names of its own */
};

static const char *const vtype_names[] = {
	[V_STR] = "a string",
	[V_BOOL] = "true or false",
	[V_COUNT] = "an integer >= 0",
	[V_NUM] = "a number >= 0",
	[V_NUM_NULL] = "a number >= 0 or null",
	[V_REAL_NULL] = "a number or null",
	[V_OBJ] = "an object",
	[V_ARR] = "an array",
	[V_COUNTS] = "an object",
};

struct vspec {
	const char *key;	/* NULL ends a list */
	enum vtype t;
	bool required;
	const struct vspec *sub;
	/* What the type cannot say; 0 or -EINVAL with the message. */
	int (*check)(struct vctx *c, const json_t *v, const char *path);
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
vtype_ok(const json_t *v, enum vtype t)
{
	switch (t) {
	case V_STR: return json_is_string(v);
	case V_BOOL: return json_is_boolean(v);
	case V_COUNT: return json_is_integer(v) && json_integer_value(v) >= 0;
	case V_NUM: return json_is_number(v) && json_number_value(v) >= 0;
	case V_NUM_NULL: return json_is_null(v) ||
		(json_is_number(v) && json_number_value(v) >= 0);
	case V_REAL_NULL: return json_is_null(v) || json_is_number(v);
	case V_OBJ: case V_COUNTS: return json_is_object(v);
	case V_ARR: return json_is_array(v);
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
		const struct vspec *fields);

/* v at path against s: its type, then its fields, elements or counts. */
static int
vvalue(struct vctx *c, const json_t *v, const char *path,
		const struct vspec *s)
{
	char sub[160];
	const char *key;
	const json_t *e;
	size_t i;

	if (!vtype_ok(v, s->t)) {
		char found[32];

		if (json_is_integer(v))
			snprintf(found, sizeof(found), "%lld",
				(long long)json_integer_value(v));
		else if (json_is_real(v))
			snprintf(found, sizeof(found), "%.17g",
				json_real_value(v));
		else
			snprintf(found, sizeof(found), "%s", json_type_name(v));
		return vfail(c, path, "expected %s, found %s", vtype_names[s->t],
			found);
	}
	if (s->t == V_OBJ && s->sub != NULL && vobject(c, v, path, s->sub))
		return -EINVAL;
	json_array_foreach(s->t == V_ARR && s->sub != NULL ? v : NULL, i, e) {
		snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
		if (vvalue(c, e, sub, s->sub))
			return -EINVAL;
	}
	json_object_foreach(s->t == V_COUNTS ? (json_t *)(uintptr_t)v : NULL,
			key, e) {
		static const struct vspec count = { NULL, V_COUNT };

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
		const struct vspec *fields)
{
	for (const struct vspec *f = fields; f->key != NULL; f++) {
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

#define VEND { NULL, V_STR, false, NULL, NULL }
/* An array of elements as s (a field list) checks. */
#define VARR(name, t, s, check) \
	static const struct vspec name[] = { { NULL, t, true, s, check }, VEND }

static const struct vspec no_fields[] = { VEND };
VARR(counts, V_COUNT, NULL, NULL);
VARR(objects, V_OBJ, NULL, NULL);

static const struct vspec port_fields[] = {
	{ "port", V_COUNT, true }, { "driver", V_STR, true },
	{ "name", V_STR, true }, VEND
};
VARR(ports, V_OBJ, port_fields, NULL);

static const struct vspec env_fields[] = {
	{ "dpdk_version", V_STR, true },
	{ "host", V_STR, true },
	{ "cpu_model", V_STR, true },
	{ "memory", V_STR, true, NULL, check_memory },
	{ "argv", V_STR, true },
	{ "lcores", V_ARR, true, counts },
	{ "options", V_OBJ, true, no_fields },
	{ "ports", V_ARR, true, ports },
	VEND
};

static const struct vspec statistics_fields[] = {
	{ "ci95", V_STR }, { "test", V_STR }, { "paired_test", V_STR },
	{ "paired_interval", V_STR },
	{ "alpha", V_NUM, false, NULL, check_alpha },
	VEND
};

#define VSPEC_COUNT V_COUNT
#define VSPEC_NUMBER V_NUM_NULL
#define VSPEC_STRING V_STR
#define VSPEC_ALWAYS true
#define VSPEC_HAS false
#define VFIELD(g, f, t, r, p, h) { #f, VSPEC_##t, true },
/* pcp_fields, ...; pcp_required, ...: the group lists (rxr_report.h). */
#define VGROUP(g, list, when) \
	static const struct vspec g##_fields[] = { list(VFIELD) VEND }; \
	enum { g##_required = VSPEC_##when };
RXR_REPORT_GROUPS(VGROUP)
#define VGROUP_SPEC(g) { #g, V_OBJ, g##_required, g##_fields }

static const struct vspec cpu_fields[] = {
	{ "cpu", V_COUNT, true }, { "steal_share", V_NUM_NULL, true }, VEND
};
VARR(cpus, V_OBJ, cpu_fields, NULL);
static const struct vspec lcore_fields[] = {
	{ "lcore", V_COUNT, true }, { "tid", V_COUNT, true },
	{ "own_cpu", V_BOOL, true },
	{ "nonvoluntary_ctxt_switches", V_COUNT, true },
	{ "migrations", V_COUNT, true },
	{ "runqueue_wait_share", V_NUM_NULL, true },
	{ "runnable_share", V_NUM_NULL, false }, VEND
};
VARR(lcores, V_OBJ, lcore_fields, NULL);
static const struct vspec task_fields[] = {
	{ "pid", V_COUNT, true }, { "comm", V_STR, true },
	{ "cpu", V_COUNT, true }, { "cpu_share", V_NUM_NULL, true }, VEND
};
VARR(tasks, V_OBJ, task_fields, NULL);

static const struct vspec noise_fields[] = {
	{ "asked_s", V_NUM_NULL, true },
	{ "steal_share_max", V_NUM_NULL, true },
	{ "nonvoluntary_ctxt_switches", V_COUNT, true },
	{ "migrations", V_COUNT, true },
	{ "cpus", V_ARR, true, cpus },
	{ "lcores", V_ARR, true, lcores },
	{ "busy_tasks", V_ARR, true, tasks },
	/* Negative when the run was shorter than asked (cut short). */
	{ "duration_excess", V_REAL_NULL, true },
	VEND
};

static const struct vspec bucket_fields[] = {
	{ "lo", V_COUNT, true }, { "hi", V_COUNT, true },
	{ "count", V_COUNT, true }, VEND
};
VARR(buckets, V_OBJ, bucket_fields, NULL);
static const struct vspec hist_fields[] = {
	{ "unit", V_STR, true, NULL, check_unit },
	{ "buckets", V_ARR, true, buckets, check_buckets },
	VEND
};

static const struct vspec stream_fields[] = {
	{ "src", V_STR, true }, { "dst", V_STR, true },
	{ "sport", V_COUNT, true }, { "dport", V_COUNT, true },
	{ "proto", V_COUNT, true }, { "packets", V_COUNT, true },
	{ "bytes", V_COUNT, true }, VEND
};
VARR(streams, V_OBJ, stream_fields, check_stream);
VARR(causes, V_STR, NULL, check_cause);

/* The run's fields in the order they are checked (figures: between). */
static const struct vspec run_head[] = {
	{ "strategy", V_STR, true, NULL, check_nonempty },
	{ "bulk", V_BOOL, true },
	{ "rep", V_COUNT, true },
	{ "rx_packets", V_COUNT, true },
	{ "rx_bytes", V_COUNT, true },
	{ "duration_s", V_NUM, true },
	VEND
};

static const struct vspec run_tail[] = {
	{ "complete", V_BOOL },
	{ "cut_short", V_STR },
	{ "drops", V_COUNTS, true },
	VGROUP_SPEC(pcp),
	VGROUP_SPEC(zone_lock),
	VGROUP_SPEC(deferred),
	/* The strategy's own counters; "recycle" in older reports. */
	{ "strategy_counters", V_COUNTS },
	{ "recycle", V_COUNTS },
	VGROUP_SPEC(zeroing),
	VGROUP_SPEC(poll),
	VGROUP_SPEC(zeroer),
	{ "refill_latency_hist", V_OBJ, false, hist_fields },
	{ "streams", V_ARR, false, streams },
	VGROUP_SPEC(streams_untracked),
	VGROUP_SPEC(streams_untracked_by_cause),
	{ "streams_counted_by_poll", V_COUNT },
	{ "disturbed", V_BOOL },
	{ "disturbed_by", V_ARR, false, causes },
	{ "noise", V_OBJ, false, noise_fields },
	VEND
};

static int
validate_run(struct vctx *c, const json_t *run, size_t idx)
{
	static const struct vspec obj = { NULL, V_OBJ, true, no_fields };
	const struct rxrr_figure *f;
	char path[32];

	snprintf(path, sizeof(path), "runs[%zu]", idx);
	if (vvalue(c, run, path, &obj) || vobject(c, run, path, run_head))
		return -EINVAL;
	for (unsigned int i = 0; (f = rxrr_figure(i)) != NULL; i++) {
		struct vspec s[] = { { f->name, V_NUM_NULL,
			f->when == RXRR_REQUIRED }, VEND };

		if (vobject(c, run, path, s))
			return -EINVAL;
	}
	return vobject(c, run, path, run_tail) || check_run(c, run, path) ?
		-EINVAL : 0;
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
	static const struct vspec top[] = {
		{ "partial", V_BOOL, true },
		{ "created", V_STR, true },
		{ "env", V_OBJ, true, env_fields },
		{ "runs", V_ARR, true, objects },
		{ "summary", V_ARR },
		{ "statistics", V_OBJ, false, statistics_fields },
		VEND
	};
	struct vctx c = { .name = name, .err = err, .errlen = errlen };
	const json_t *schema, *run;
	size_t i;

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
	json_array_foreach(json_object_get(doc, "runs"), i, run)
		if (validate_run(&c, run, i))
			return -EINVAL;
	return check_unique(&c, json_object_get(doc, "runs"));
}

json_t *
rxr_report_json_loadb(const char *buf, size_t len, const char *name,
		char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *doc;

	if (len == 0) {
		rxrr_err(err, errlen, "%s: empty file, not a report", name);
		return NULL;
	}
	/* Duplicate keys would make "which value counts" a guess. */
	doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (doc == NULL)
		rxrr_err(err, errlen, "%s:%d:%d: malformed JSON: %s", name,
			jerr.line, jerr.column, jerr.text);
	return doc;
}

struct rxr_report *
rxr_report_of_json(json_t *doc, const char *name, char *err, size_t errlen)
{
	struct rxr_report *r = NULL;

	if (doc != NULL && rxr_report_validate(doc, name, err, errlen) == 0) {
		r = calloc(1, sizeof(*r));
		if (r == NULL)
			rxrr_err(err, errlen, "%s: out of memory", name);
	}
	if (r == NULL)
		json_decref(doc);
	else
		r->doc = doc;
	return r;
}

/* A report file for jansson: what was read, how it failed. */
struct reader {
	FILE *f;
	size_t len;
	int err;	/* errno of a failed read */
};

static size_t
read_some(void *buf, size_t buflen, void *data)
{
	struct reader *rd = data;
	size_t n = fread(buf, 1, buflen, rd->f);

	rd->len += n;
	if (ferror(rd->f))
		rd->err = errno != 0 ? errno : EIO;
	return rd->err != 0 || rd->len >= REPORT_MAX_BYTES ? (size_t)-1 : n;
}

json_t *
rxr_report_json_load(const char *path, char *err, size_t errlen)
{
	struct reader rd = { .err = 0 };
	json_error_t jerr;
	struct stat st;
	json_t *doc;

	/* A FIFO or a device would block or be read once: regular files only. */
	if (rxr_path_check_input(NULL, path, err, errlen) != 0)
		return NULL;
	rd.f = fopen(path, "r");
	if (rd.f == NULL) {
		rxrr_err(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	/* The size first, as a file read whole would say it. */
	if (fstat(fileno(rd.f), &st) == 0 && st.st_size >= REPORT_MAX_BYTES)
		rd.len = REPORT_MAX_BYTES;
	/* Duplicate keys would make "which value counts" a guess. */
	doc = rd.len != 0 ? NULL : json_load_callback(read_some, &rd,
		JSON_REJECT_DUPLICATES, &jerr);
	fclose(rd.f);
	if (doc != NULL)
		return doc;
	if (rd.err != 0)
		rxrr_err(err, errlen, "%s: %s", path, strerror(rd.err));
	else if (rd.len >= REPORT_MAX_BYTES)
		rxrr_err(err, errlen, "%s: larger than %u MiB, not a report",
			path, REPORT_MAX_BYTES >> 20);
	else if (rd.len == 0)
		rxrr_err(err, errlen, "%s: empty file, not a report", path);
	else
		rxrr_err(err, errlen, "%s:%d:%d: malformed JSON: %s", path,
			jerr.line, jerr.column, jerr.text);
	return NULL;
}

struct rxr_report *
rxr_report_load(const char *path, char *err, size_t errlen)
{
	json_t *doc = rxr_report_json_load(path, err, errlen);

	return doc != NULL ? rxr_report_of_json(doc, path, err, errlen) : NULL;
}
