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

/* Far above any real report; keeps a wrong file from eating memory. */
#define REPORT_MAX_BYTES (256u << 20)

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(12))

/* doc on standard output; 0 or -errno. */
static int
write_stdout(const json_t *doc, char *err, size_t errlen)
{
	int ret;

	errno = 0;
	if (json_dumpf(doc, stdout, DUMP_FLAGS) != 0 ||
			fputc('\n', stdout) == EOF || fflush(stdout) != 0) {
		ret = errno != 0 ? -errno : -EIO;
		rxrr_err(err, errlen, "cannot write report to standard "
			"output: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

/* doc into f, on disk, f closed; 0, or -errno with *step what failed. */
static int
write_file(const json_t *doc, FILE *f, const char **step)
{
	int ret;

	errno = 0;
	if (json_dumpf(doc, f, DUMP_FLAGS) != 0 || fputc('\n', f) == EOF ||
			fflush(f) != 0) {
		ret = errno != 0 ? -errno : -EIO;
		*step = "writing the temporary file";
		fclose(f);
		return ret;
	}
	/* Data on disk before the rename makes it visible under path. */
	if (fsync(fileno(f)) != 0) {
		ret = -errno;
		*step = "fsync of the temporary file";
		fclose(f);
		return ret;
	}
	if (fclose(f) != 0) {
		*step = "closing the temporary file";
		return -errno;
	}
	return 0;
}

/*
 * doc into a new temporary file *tmp in dir, named after base, with the
 * mode of the file at path; 0, or -errno with *step what failed (*tmp,
 * when set, is to be unlinked).
 */
static int
write_temp(const json_t *doc, const char *path, const char *dir,
		const char *base, char **tmp, const char **step)
{
	struct stat st;
	mode_t mode = 0644;
	FILE *f;
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
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		*step = "creating a temporary file";
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	/* mkstemp makes 0600; a report is for reading: keep the old mode. */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	if (fchmod(fd, mode) != 0) {
		ret = -errno;
		*step = "setting the mode of the temporary file";
		close(fd);
		return ret;
	}
	f = fdopen(fd, "w");
	if (f == NULL) {
		ret = -errno;
		*step = "opening the temporary file";
		close(fd);
		return ret;
	}
	return write_file(doc, f, step);
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

int
rxr_report_json_write_atomic(const json_t *doc, const char *path, char *err,
		size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *base, *step = "out of memory";
	char *dir = NULL, *tmp = NULL;
	struct stat st;
	int ret = -ENOMEM;

	if (rxr_path_is_stdout(path))
		return write_stdout(doc, err, errlen);
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
	if (slash == NULL)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
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
	return rxr_report_json_write_atomic(r->doc, path, err, errlen);
}

/* Validation: one context carries the file name and the error buffer. */
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
	V_OBJ,		/* object */
	V_ARR,		/* array */
};

static const char *const vtype_names[] = {
	[V_STR] = "a string",
	[V_BOOL] = "true or false",
	[V_COUNT] = "an integer >= 0",
	[V_NUM] = "a number >= 0",
	[V_NUM_NULL] = "a number >= 0 or null",
	[V_OBJ] = "an object",
	[V_ARR] = "an array",
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

/* What was found instead: the number itself ("-1"), else its type. */
static const char *
found_name(const json_t *v, char *buf, size_t len)
{
	if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.17g", json_real_value(v));
	else
		return json_type_name(v);
	return buf;
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
	case V_OBJ: return json_is_object(v);
	case V_ARR: return json_is_array(v);
	}
	return false;
}

/*
 * obj[key] of type t; *out is NULL when absent and optional. Messages name
 * the field by its path: "<file>: runs[2].pcp.hits: missing".
 */
static int
vfield(struct vctx *c, const json_t *obj, const char *where, const char *key,
		enum vtype t, bool required, const json_t **out)
{
	const json_t *v = json_object_get(obj, key);
	const char *dot = *where != '\0' ? "." : "";

	if (out != NULL)
		*out = v;
	if (v == NULL) {
		if (!required)
			return 0;
		rxrr_err(c->err, c->errlen, "%s: %s%s%s: missing", c->name,
			where, dot, key);
		return -EINVAL;
	}
	if (!vtype_ok(v, t)) {
		char found[32];

		rxrr_err(c->err, c->errlen, "%s: %s%s%s: expected %s, found %s",
			c->name, where, dot, key, vtype_names[t],
			found_name(v, found, sizeof(found)));
		return -EINVAL;
	}
	return 0;
}

/* Every key of obj is one of keys[], of type t, required. */
static int
vfields(struct vctx *c, const json_t *obj, const char *where,
		const char *const *keys, size_t n, enum vtype t)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (vfield(c, obj, where, keys[i], t, true, NULL))
			return -EINVAL;
	return 0;
}

#define NKEYS(a) (sizeof(a) / sizeof((a)[0]))

/*
 * statistics{}: how summary was computed. Optional; alpha, when there, a
 * level a test can be read at (a report's verdicts use it).
 */
static int
validate_statistics(struct vctx *c, const json_t *doc)
{
	static const char *const strs[] = {
		"ci95", "test", "paired_test", "paired_interval",
	};
	const json_t *st, *alpha;

	if (vfield(c, doc, "", "statistics", V_OBJ, false, &st))
		return -EINVAL;
	if (st == NULL)
		return 0;
	for (size_t i = 0; i < NKEYS(strs); i++)
		if (vfield(c, st, "statistics", strs[i], V_STR, false, NULL))
			return -EINVAL;
	if (vfield(c, st, "statistics", "alpha", V_NUM, false, &alpha))
		return -EINVAL;
	if (alpha != NULL && !(json_number_value(alpha) > 0 &&
			json_number_value(alpha) < 1)) {
		rxrr_err(c->err, c->errlen, "%s: statistics.alpha: %g is not "
			"a significance level (0 < alpha < 1)", c->name,
			json_number_value(alpha));
		return -EINVAL;
	}
	return 0;
}

static int
validate_env(struct vctx *c, const json_t *doc)
{
	static const char *const strs[] = {
		"dpdk_version", "host", "cpu_model", "memory", "argv",
	};
	static const char *const port_strs[] = { "driver", "name" };
	const json_t *env, *arr, *v, *mem;
	char where[64], found[32];
	size_t i;

	if (vfield(c, doc, "", "env", V_OBJ, true, &env) ||
			vfields(c, env, "env", strs, NKEYS(strs), V_STR) ||
			vfield(c, env, "env", "lcores", V_ARR, true, &arr) ||
			vfield(c, env, "env", "options", V_OBJ, true, NULL))
		return -EINVAL;
	json_array_foreach(arr, i, v) {
		if (!vtype_ok(v, V_COUNT)) {
			rxrr_err(c->err, c->errlen, "%s: env.lcores[%zu]: "
				"expected %s, found %s", c->name, i,
				vtype_names[V_COUNT],
				found_name(v, found, sizeof(found)));
			return -EINVAL;
		}
	}
	mem = json_object_get(env, "memory");
	if (strcmp(json_string_value(mem), "hugepages") != 0 &&
			strcmp(json_string_value(mem), "no-huge") != 0) {
		rxrr_err(c->err, c->errlen, "%s: env.memory: expected "
			"\"hugepages\" or \"no-huge\", found \"%.64s\"",
			c->name, json_string_value(mem));
		return -EINVAL;
	}
	if (vfield(c, env, "env", "ports", V_ARR, true, &arr))
		return -EINVAL;
	json_array_foreach(arr, i, v) {
		snprintf(where, sizeof(where), "env.ports[%zu]", i);
		if (!json_is_object(v)) {
			rxrr_err(c->err, c->errlen, "%s: %s: expected an object, "
				"found %s", c->name, where, json_type_name(v));
			return -EINVAL;
		}
		if (vfield(c, v, where, "port", V_COUNT, true, NULL) ||
				vfields(c, v, where, port_strs,
					NKEYS(port_strs), V_STR))
			return -EINVAL;
	}
	return 0;
}

static bool
is_pow2(json_int_t v)
{
	return v > 0 && (v & (v - 1)) == 0;
}

static int
validate_hist(struct vctx *c, const json_t *h, const char *where)
{
	static const char *const counts[] = { "lo", "hi", "count" };
	const json_t *unit, *buckets, *b;
	uint64_t seen = 0;
	char w[96];
	size_t i;

	if (vfield(c, h, where, "unit", V_STR, true, &unit) ||
			vfield(c, h, where, "buckets", V_ARR, true, &buckets))
		return -EINVAL;
	if (strcmp(json_string_value(unit), "ns") != 0) {
		rxrr_err(c->err, c->errlen, "%s: %s.unit: expected \"ns\", "
			"found \"%.32s\"", c->name, where,
			json_string_value(unit));
		return -EINVAL;
	}
	json_array_foreach(buckets, i, b) {
		json_int_t lo, hi;
		unsigned int idx;

		snprintf(w, sizeof(w), "%s.buckets[%zu]", where, i);
		if (!json_is_object(b)) {
			rxrr_err(c->err, c->errlen, "%s: %s: expected an object, "
				"found %s", c->name, w, json_type_name(b));
			return -EINVAL;
		}
		if (vfields(c, b, w, counts, NKEYS(counts), V_COUNT))
			return -EINVAL;
		lo = json_integer_value(json_object_get(b, "lo"));
		hi = json_integer_value(json_object_get(b, "hi"));
		/* Only the log2 buckets: [0,1), [1,2), [2,4) ... [2^46, 2^47) */
		if (lo == 0 && hi == 1) {
			idx = 0;
		} else if (is_pow2(lo) && hi / 2 == lo && hi % 2 == 0 &&
				(uint64_t)hi <= rxr_report_hist_hi(
					RXR_REPORT_HIST_BUCKETS - 1)) {
			idx = rxr_report_hist_index((uint64_t)lo);
		} else {
			rxrr_err(c->err, c->errlen, "%s: %s: [%lld, %lld) is not "
				"a log2 bucket", c->name, w, (long long)lo,
				(long long)hi);
			return -EINVAL;
		}
		if (seen & (UINT64_C(1) << idx)) {
			rxrr_err(c->err, c->errlen, "%s: %s: bucket [%lld, %lld) "
				"listed twice", c->name, w, (long long)lo,
				(long long)hi);
			return -EINVAL;
		}
		seen |= UINT64_C(1) << idx;
	}
	return 0;
}

static int
validate_streams(struct vctx *c, const json_t *arr, const char *where)
{
	static const char *const strs[] = { "src", "dst" };
	static const char *const counts[] = {
		"sport", "dport", "proto", "packets", "bytes",
	};
	const json_t *s;
	char w[96];
	size_t i;

	json_array_foreach(arr, i, s) {
		snprintf(w, sizeof(w), "%s.streams[%zu]", where, i);
		if (!json_is_object(s)) {
			rxrr_err(c->err, c->errlen, "%s: %s: expected an object, "
				"found %s", c->name, w, json_type_name(s));
			return -EINVAL;
		}
		if (vfields(c, s, w, strs, NKEYS(strs), V_STR) ||
				vfields(c, s, w, counts, NKEYS(counts), V_COUNT))
			return -EINVAL;
		if (json_integer_value(json_object_get(s, "sport")) > 65535 ||
				json_integer_value(json_object_get(s, "dport")) >
					65535 ||
				json_integer_value(json_object_get(s, "proto")) >
					255) {
			rxrr_err(c->err, c->errlen, "%s: %s: port above 65535 or "
				"protocol above 255", c->name, w);
			return -EINVAL;
		}
	}
	return 0;
}

/* Every element of arr is an object with fields[] of their types. */
struct vspec {
	const char *key;
	enum vtype t;
};

static int
validate_objects(struct vctx *c, const json_t *arr, const char *where,
		const struct vspec *spec, size_t n)
{
	const json_t *e;
	char w[96];
	size_t i, k;

	json_array_foreach(arr, i, e) {
		snprintf(w, sizeof(w), "%s[%zu]", where, i);
		if (!json_is_object(e)) {
			rxrr_err(c->err, c->errlen, "%s: %s: expected an object, "
				"found %s", c->name, w, json_type_name(e));
			return -EINVAL;
		}
		for (k = 0; k < n; k++)
			if (vfield(c, e, w, spec[k].key, spec[k].t, true, NULL))
				return -EINVAL;
	}
	return 0;
}

/*
 * disturbed, disturbed_by and noise{} (optional: older reports have
 * none); disturbed_by names a cause, and only on a disturbed run.
 */
/* disturbed, disturbed_by and whether noise is there; 0 or -EINVAL. */
static int
validate_disturbed(struct vctx *c, const json_t *run, const char *where,
		const json_t **noise)
{
	const json_t *dist, *by, *e;
	size_t i;

	if (vfield(c, run, where, "disturbed", V_BOOL, false, &dist) ||
			vfield(c, run, where, "disturbed_by", V_ARR,
				dist != NULL, &by) ||
			vfield(c, run, where, "noise", V_OBJ, dist != NULL,
				noise))
		return -EINVAL;
	if (dist == NULL && (by != NULL || *noise != NULL)) {
		rxrr_err(c->err, c->errlen, "%s: %s.%s: without %s.disturbed",
			c->name, where, by != NULL ? "disturbed_by" : "noise",
			where);
		return -EINVAL;
	}
	if (dist == NULL)
		return 0;
	if (json_is_true(dist) != (json_array_size(by) != 0)) {
		rxrr_err(c->err, c->errlen, "%s: %s.disturbed_by: %s", c->name,
			where, json_is_true(dist) ? "empty on a disturbed run" :
			"causes on a run not disturbed");
		return -EINVAL;
	}
	json_array_foreach(by, i, e) {
		unsigned int k = 0;
		const char *name;

		while ((name = rxr_report_disturbance_name(k)) != NULL &&
				!(json_is_string(e) &&
				strcmp(json_string_value(e), name) == 0))
			k++;
		if (name == NULL) {
			rxrr_err(c->err, c->errlen, "%s: %s.disturbed_by[%zu]: "
				"not duration, steal or switches", c->name,
				where, i);
			return -EINVAL;
		}
	}
	return 0;
}

static int
validate_noise(struct vctx *c, const json_t *run, const char *where)
{
	static const struct vspec cpus[] = {
		{ "cpu", V_COUNT }, { "steal_share", V_NUM_NULL },
	};
	static const struct vspec lcores[] = {
		{ "lcore", V_COUNT }, { "tid", V_COUNT }, { "own_cpu", V_BOOL },
		{ "nonvoluntary_ctxt_switches", V_COUNT },
		{ "migrations", V_COUNT }, { "runqueue_wait_share", V_NUM_NULL },
	};
	static const struct vspec tasks[] = {
		{ "pid", V_COUNT }, { "comm", V_STR }, { "cpu", V_COUNT },
		{ "cpu_share", V_NUM_NULL },
	};
	static const char *const counts[] = {
		"nonvoluntary_ctxt_switches", "migrations",
	};
	const json_t *noise = NULL, *e, *cpus_a, *lcores_a, *tasks_a;
	char w[64];

	if (validate_disturbed(c, run, where, &noise))
		return -EINVAL;
	if (noise == NULL)
		return 0;
	snprintf(w, sizeof(w), "%s.noise", where);
	if (vfield(c, noise, w, "asked_s", V_NUM_NULL, true, NULL) ||
			vfield(c, noise, w, "steal_share_max", V_NUM_NULL, true,
				NULL) ||
			vfields(c, noise, w, counts, NKEYS(counts), V_COUNT) ||
			vfield(c, noise, w, "cpus", V_ARR, true, &cpus_a) ||
			vfield(c, noise, w, "lcores", V_ARR, true, &lcores_a) ||
			vfield(c, noise, w, "busy_tasks", V_ARR, true, &tasks_a))
		return -EINVAL;
	/* Negative when the run was shorter than asked (cut short). */
	e = json_object_get(noise, "duration_excess");
	if (e == NULL || !(json_is_null(e) || json_is_number(e))) {
		rxrr_err(c->err, c->errlen, "%s: %s.duration_excess: %s", c->name,
			w, e == NULL ? "missing" : "expected a number or null");
		return -EINVAL;
	}
	snprintf(w, sizeof(w), "%s.noise.cpus", where);
	if (validate_objects(c, cpus_a, w, cpus, NKEYS(cpus)))
		return -EINVAL;
	snprintf(w, sizeof(w), "%s.noise.lcores", where);
	if (validate_objects(c, lcores_a, w, lcores, NKEYS(lcores)))
		return -EINVAL;
	snprintf(w, sizeof(w), "%s.noise.busy_tasks", where);
	return validate_objects(c, tasks_a, w, tasks, NKEYS(tasks));
}

/* The run's identity, figures and whether it completed. */
static int
validate_run_figures(struct vctx *c, const json_t *run, const char *where)
{
	static const char *const counts[] = { "rep", "rx_packets", "rx_bytes" };
	const struct rxr_report_figure *f;
	const json_t *strategy, *v, *sub;

	if (vfield(c, run, where, "strategy", V_STR, true, &strategy) ||
			vfield(c, run, where, "bulk", V_BOOL, true, NULL) ||
			vfields(c, run, where, counts, NKEYS(counts), V_COUNT) ||
			vfield(c, run, where, "duration_s", V_NUM, true, NULL))
		return -EINVAL;
	for (unsigned int i = 0; (f = rxr_report_figure(i)) != NULL; i++)
		if (vfield(c, run, where, f->name, V_NUM_NULL,
				f->when == RXR_REPORT_REQUIRED, NULL))
			return -EINVAL;
	if (json_string_length(strategy) == 0) {
		rxrr_err(c->err, c->errlen, "%s: %s.strategy: empty", c->name,
			where);
		return -EINVAL;
	}
	if (vfield(c, run, where, "complete", V_BOOL, false, &v) ||
			vfield(c, run, where, "cut_short", V_STR, v != NULL &&
				json_is_false(v), &sub))
		return -EINVAL;
	if (sub != NULL && (json_string_length(sub) == 0 || !json_is_false(v))) {
		rxrr_err(c->err, c->errlen, "%s: %s.cut_short: %s", c->name,
			where, !json_is_false(v) ? "on a run not marked "
			"\"complete\": false" : "empty");
		return -EINVAL;
	}
	return 0;
}

/* run.field: an object of counts under names of its own (drop causes). */
static int
validate_named_counts(struct vctx *c, const json_t *run, const char *where,
		const char *field, bool required)
{
	const json_t *sub, *v;
	const char *key;
	char found[32];

	if (vfield(c, run, where, field, V_OBJ, required, &sub))
		return -EINVAL;
	json_object_foreach((json_t *)(uintptr_t)sub, key, v) {
		if (!vtype_ok(v, V_COUNT) || *key == '\0') {
			rxrr_err(c->err, c->errlen, "%s: %s.%s.%s: expected "
				"%s, found %s", c->name, where, field, key,
				vtype_names[V_COUNT],
				found_name(v, found, sizeof(found)));
			return -EINVAL;
		}
	}
	return 0;
}

/* run.group by its list (rxr_report.h): required or not, each field's type. */
static int
validate_group(struct vctx *c, const json_t *run, const char *where,
		unsigned int g)
{
	static const enum vtype vtypes[] = {
		[RXR_REPORT_FTYPE_COUNT] = V_COUNT,
		[RXR_REPORT_FTYPE_NUMBER] = V_NUM_NULL,
		[RXR_REPORT_FTYPE_STRING] = V_STR,
	};
	const char *name = rxr_report_group_name(g);
	const struct rxr_report_field *f;
	const json_t *sub;
	unsigned int id;
	char w[64];

	snprintf(w, sizeof(w), "%s.%s", where, name);
	if (vfield(c, run, where, name, V_OBJ, rxr_report_group_required(g),
			&sub))
		return -EINVAL;
	for (id = 0; sub != NULL && (f = rxr_report_field(id)) != NULL; id++)
		if (f->group_id == g && vfield(c, sub, w, f->name,
				vtypes[f->type], true, NULL))
			return -EINVAL;
	return 0;
}

/* The allocator's counters: pcp, zone lock, deferred frees. */
static int
validate_run_pool(struct vctx *c, const json_t *run, const char *where)
{
	static const unsigned int groups[] = { RXR_REPORT_GROUP_pcp,
		RXR_REPORT_GROUP_zone_lock, RXR_REPORT_GROUP_deferred };

	for (size_t i = 0; i < NKEYS(groups); i++)
		if (validate_group(c, run, where, groups[i]))
			return -EINVAL;
	return 0;
}

/* The strategy's own counters and the zeroing's figures. */
static int
validate_run_strategy(struct vctx *c, const json_t *run, const char *where)
{
	/* The strategy's own counters, any names; "recycle" in older
	 * reports, before recycle's became its own. */
	if (validate_named_counts(c, run, where, "strategy_counters", false) ||
			validate_named_counts(c, run, where, "recycle",
				false) ||
			validate_group(c, run, where, RXR_REPORT_GROUP_zeroing))
		return -EINVAL;
	return 0;
}

/* The latency histogram, the streams and what no stream counted. */
static int
validate_run_streams(struct vctx *c, const json_t *run, const char *where)
{
	const json_t *sub;
	char w[64];

	snprintf(w, sizeof(w), "%s.refill_latency_hist", where);
	if (vfield(c, run, where, "refill_latency_hist", V_OBJ, false, &sub) ||
			(sub != NULL && validate_hist(c, sub, w)))
		return -EINVAL;
	if (vfield(c, run, where, "streams", V_ARR, false, &sub) ||
			(sub != NULL && validate_streams(c, sub, where)))
		return -EINVAL;
	if (validate_group(c, run, where, RXR_REPORT_GROUP_streams_untracked) ||
			validate_group(c, run, where,
				RXR_REPORT_GROUP_streams_untracked_by_cause))
		return -EINVAL;
	return vfield(c, run, where, "streams_counted_by_poll", V_COUNT, false,
		NULL);
}

static int
validate_run(struct vctx *c, const json_t *run, size_t idx)
{
	char where[32];

	snprintf(where, sizeof(where), "runs[%zu]", idx);
	if (!json_is_object(run)) {
		rxrr_err(c->err, c->errlen, "%s: %s: expected an object, found %s",
			c->name, where, json_type_name(run));
		return -EINVAL;
	}
	if (validate_run_figures(c, run, where) ||
			validate_named_counts(c, run, where, "drops", true) ||
			validate_run_pool(c, run, where) ||
			validate_run_strategy(c, run, where) ||
			validate_run_streams(c, run, where) ||
			validate_noise(c, run, where))
		return -EINVAL;
	return 0;
}

int
rxr_report_validate(const json_t *doc, const char *name, char *err,
		size_t errlen)
{
	struct vctx c = { .name = name, .err = err, .errlen = errlen };
	const json_t *schema, *runs, *run;
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
	if (vfield(&c, doc, "", "partial", V_BOOL, true, NULL) ||
			vfield(&c, doc, "", "created", V_STR, true, NULL) ||
			validate_env(&c, doc) ||
			vfield(&c, doc, "", "runs", V_ARR, true, &runs) ||
			vfield(&c, doc, "", "summary", V_ARR, false, NULL) ||
			validate_statistics(&c, doc))
		return -EINVAL;
	json_array_foreach(runs, i, run)
		if (validate_run(&c, run, i))
			return -EINVAL;
	return 0;
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

json_t *
rxr_report_json_load(const char *path, char *err, size_t errlen)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	json_t *doc = NULL;
	FILE *f;

	/* A FIFO or a device would block or be read once: regular files only. */
	if (rxr_path_check_input(NULL, path, err, errlen) != 0)
		return NULL;
	f = fopen(path, "r");
	if (f == NULL) {
		rxrr_err(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			char *nb;

			if (cap >= REPORT_MAX_BYTES) {
				rxrr_err(err, errlen, "%s: larger than %u MiB, "
					"not a report", path,
					REPORT_MAX_BYTES >> 20);
				goto out;
			}
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (nb == NULL) {
				rxrr_err(err, errlen, "%s: out of memory", path);
				goto out;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f))
		rxrr_err(err, errlen, "%s: %s", path, strerror(errno));
	else
		doc = rxr_report_json_loadb(buf, len, path, err, errlen);
out:
	fclose(f);
	free(buf);
	return doc;
}

struct rxr_report *
rxr_report_load(const char *path, char *err, size_t errlen)
{
	json_t *doc = rxr_report_json_load(path, err, errlen);

	return doc != NULL ? rxr_report_of_json(doc, path, err, errlen) : NULL;
}
