/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxrefill-compare as a user runs it: on reports written by lib/report,
 * and on files that are not reports. argv[1]: the rxrefill-compare binary.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rxr_report.h"
#include "rxr_stats.h"
#include "rxr_test.h"
#include "report_fixture.h"

static const char *compare_bin;
static char dir[] = "/tmp/rxr_compare_cli.XXXXXX";

/* Output of the last run. */
static char out[1 << 20];
static char err[1 << 16];
static int status;

static char *
file_in_dir(const char *name)
{
	static char paths[8][256];
	static unsigned int next;
	char *p = paths[next++ % 8];

	snprintf(p, 256, "%s/%s", dir, name);
	return p;
}

static void
slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* Run rxrefill-compare with args (NULL-terminated); 0 when it ran. */
static int
run(const char *arg0, ...)
{
	const char *argv[16];
	char *opath = file_in_dir("stdout"), *epath = file_in_dir("stderr");
	va_list ap;
	int argc = 0, fd;
	pid_t pid;

	argv[argc++] = compare_bin;
	va_start(ap, arg0);
	for (const char *a = arg0; a != NULL && argc < 15;
			a = va_arg(ap, const char *))
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, STDOUT_FILENO);
		fd = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, STDERR_FILENO);
		execv(compare_bin, (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	slurp(opath, out, sizeof(out));
	slurp(epath, err, sizeof(err));
	return 0;
}

#define EXITED(code) (WIFEXITED(status) && WEXITSTATUS(status) == (code))

static int
write_text(const char *name, const char *text)
{
	FILE *f = fopen(file_in_dir(name), "w");

	if (f == NULL)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static int
write_report(const char *name, const struct fixture_conf *conf)
{
	struct rxr_report *r = fixture_report(conf);
	char e[RXR_REPORT_ERR_LEN];
	int ret = rxr_report_write_atomic(r, file_in_dir(name), e, sizeof(e));

	if (ret != 0)
		printf("# %s\n", e);
	rxr_report_free(r);
	return ret;
}

static int
setup(void)
{
	struct fixture_conf a = { .host = "hostA", .scale = 1, .reps = 3,
		.with_recycle = true };
	struct fixture_conf b = { .host = "hostB", .scale = 1.1, .reps = 3,
		.with_recycle = true };
	struct fixture_conf c = { .host = "hostC", .scale = 0.9, .reps = 1,
		.partial = true };
	struct rxr_report *r;
	json_t *doc;

	RXR_TEST_ASSERT(write_report("monday.json", &a) == 0 &&
		write_report("tuesday.json", &b) == 0 &&
		write_report("wednesday.json", &c) == 0, "write reports");
	/* A report of a later schema: same shape, other version string. */
	r = fixture_report(&a);
	doc = json_deep_copy(rxr_report_json(r));
	json_object_set_new(doc, "schema", json_string("rxrefill-report/2"));
	RXR_TEST_ASSERT(json_dump_file(doc, file_in_dir("future.json"), 0) ==
		0, "future.json");
	json_decref(doc);
	/* A report missing a required field. */
	doc = json_deep_copy(rxr_report_json(r));
	json_object_del(json_array_get(json_object_get(doc, "runs"), 1),
		"mpps");
	RXR_TEST_ASSERT(json_dump_file(doc, file_in_dir("nompps.json"), 0) ==
		0, "nompps.json");
	json_decref(doc);
	rxr_report_free(r);
	RXR_TEST_ASSERT(write_text("malformed.json",
		"{\n  \"schema\": \"rxrefill-report/1\",\n  \"runs\": [,]\n}\n")
		== 0 && write_text("empty.json", "") == 0 &&
		write_text("list.json", "[1, 2, 3]\n") == 0, "write files");
	return 0;
}

static int
test_three_reports(void)
{
	RXR_TEST_ASSERT(run(file_in_dir("monday.json"),
		file_in_dir("tuesday.json"), file_in_dir("wednesday.json"),
		NULL) == 0, "run");
	RXR_TEST_ASSERT(EXITED(0), "exit status %d, stderr: %s", status, err);
	RXR_TEST_ASSERT(strstr(out, "3 reports") != NULL &&
		strstr(out, "positive % = better") != NULL, "header:\n%s", out);
	RXR_TEST_ASSERT(strstr(out, "wednesday: created") != NULL &&
		strstr(out, "partial (interrupted run)") != NULL,
		"legend:\n%s", out);
	/* The mmtests shape: label, name, value (delta) per column. */
	RXR_TEST_ASSERT(strstr(out, "Median   zone-bulk.gbps ") != NULL &&
		strstr(out, "Min      bh-bulk.mpps ") != NULL &&
		strstr(out, "(  0.00%)") != NULL &&
		strstr(out, "( 10.00%)") != NULL &&
		strstr(out, "(-10.00%)") != NULL, "table:\n%s", out);
	/* wednesday has no recycle run: '-' in its column. */
	RXR_TEST_ASSERT(strstr(out, "recycle-bulk.gbps") != NULL, "recycle");
	{
		const char *l = strstr(out, "Median   recycle-bulk.gbps");
		const char *e = l != NULL ? strchr(l, '\n') : NULL;

		RXR_TEST_ASSERT(l != NULL && e != NULL && e[-1] == '-',
			"missing strategy must end its row with '-': %.*s",
			e != NULL ? (int)(e - l) : 0, l);
	}
	RXR_TEST_ASSERT(strstr(out, "@refill_ns[zone-bulk]:") != NULL &&
		strstr(out, "[1K, 2K)") != NULL, "histogram");
	RXR_TEST_ASSERT(err[0] == '\0', "stderr: %s", err);
	return 0;
}

static int
test_one_report(void)
{
	RXR_TEST_ASSERT(run(file_in_dir("monday.json"), NULL) == 0, "run");
	RXR_TEST_ASSERT(EXITED(0), "exit status %d: %s", status, err);
	/* A single report: its strategies side by side. */
	RXR_TEST_ASSERT(strstr(out, "host hostA") != NULL &&
		strstr(out, "zone-bulk") != NULL &&
		strstr(out, "recycle-bulk") != NULL &&
		strstr(out, "Median   gbps ") != NULL &&
		strstr(out, "@refill_ns:") != NULL, "output:\n%s", out);
	return 0;
}

static int
test_metric(void)
{
	RXR_TEST_ASSERT(run("--metric", "gbps", "-m", "drops.imissed",
		file_in_dir("monday.json"), file_in_dir("tuesday.json"),
		NULL) == 0, "run");
	RXR_TEST_ASSERT(EXITED(0), "exit status %d: %s", status, err);
	RXR_TEST_ASSERT(strstr(out, "zone-bulk.gbps ") != NULL &&
		strstr(out, "zone-bulk.drops.imissed") != NULL &&
		strstr(out, "gbps_wire") == NULL && strstr(out, "mpps") == NULL &&
		strstr(out, "rx_nombuf") == NULL &&
		strstr(out, "@refill_ns") == NULL, "selection:\n%s", out);
	RXR_TEST_ASSERT(run("--metric", "gbps,bogus",
		file_in_dir("monday.json"), NULL) == 0, "run");
	RXR_TEST_ASSERT(EXITED(2) && strstr(err, "\"bogus\"") != NULL,
		"unknown metric: status %d, stderr %s", status, err);
	RXR_TEST_ASSERT(run("--metric", "gbps,,mpps",
		file_in_dir("monday.json"), NULL) == 0, "run");
	RXR_TEST_ASSERT(EXITED(2) && strstr(err, "empty") != NULL,
		"empty metric: status %d, stderr %s", status, err);
	return 0;
}

static int
test_json(void)
{
	json_error_t jerr;
	json_t *doc, *row;
	size_t i;
	bool missing = false;

	RXR_TEST_ASSERT(run("--json", file_in_dir("monday.json"),
		file_in_dir("wednesday.json"), NULL) == 0, "run");
	RXR_TEST_ASSERT(EXITED(0), "exit status %d: %s", status, err);
	doc = json_loads(out, 0, &jerr);
	RXR_TEST_ASSERT(doc != NULL, "--json output is not JSON: %s (%d:%d)",
		jerr.text, jerr.line, jerr.column);
	RXR_TEST_ASSERT(!strcmp(json_string_value(json_object_get(doc,
		"schema")), RXR_REPORT_COMPARE_SCHEMA), "schema");
	RXR_TEST_ASSERT(!strcmp(json_string_value(json_object_get(
		json_array_get(json_object_get(doc, "reports"), 1), "label")),
		"wednesday"), "label");
	json_array_foreach(json_object_get(doc, "rows"), i, row)
		if (!strcmp(json_string_value(json_object_get(row, "config")),
				"recycle-bulk"))
			missing |= json_is_null(json_array_get(
				json_object_get(row, "values"), 1));
	RXR_TEST_ASSERT(missing, "missing strategy must be null in JSON");
	json_decref(doc);
	return 0;
}

/* Not a report: non-zero exit, the message names the file. */
static int
expect_rejected(const char *name, const char *needle)
{
	const char *path = file_in_dir(name);

	RXR_TEST_ASSERT(run(file_in_dir("monday.json"), path, NULL) == 0,
		"run");
	RXR_TEST_ASSERT(EXITED(1), "%s: exit status %d, expected 1", name,
		status);
	RXR_TEST_ASSERT(strstr(err, path) != NULL && strstr(err, needle),
		"%s: stderr \"%s\" lacks the path or \"%s\"", name, err,
		needle);
	RXR_TEST_ASSERT(out[0] == '\0', "%s: printed a table anyway", name);
	return 0;
}

static int
test_other_schema(void)
{
	return expect_rejected("future.json",
		"schema \"rxrefill-report/2\" is not supported");
}

static int
test_malformed(void)
{
	return expect_rejected("malformed.json", ":3:") ||
		expect_rejected("malformed.json", "malformed JSON");
}

static int
test_missing_field(void)
{
	return expect_rejected("nompps.json", "runs[1].mpps: missing");
}

static int
test_missing_file(void)
{
	return expect_rejected("nosuch.json", "No such file or directory");
}

static int
test_empty_file(void)
{
	return expect_rejected("empty.json", "empty file");
}

static int
test_not_an_object(void)
{
	return expect_rejected("list.json", "not an rxrefill report");
}

static int
test_usage(void)
{
	static const char *const options[] = {
		"--metric", "--json", "--version", "--help", "--alpha",
		"--fail-if-worse", "--streams",
	};
	size_t i;

	RXR_TEST_ASSERT(run(NULL) == 0 && EXITED(2) &&
		strstr(err, "no report") != NULL, "no argument: %d %s",
		status, err);
	RXR_TEST_ASSERT(run("--bogus", NULL) == 0 && EXITED(2), "bad option");
	RXR_TEST_ASSERT(run("--help", NULL) == 0 && EXITED(0), "--help");
	for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		RXR_TEST_ASSERT(strstr(out, options[i]) != NULL,
			"--help does not document %s", options[i]);
	RXR_TEST_ASSERT(run("--version", NULL) == 0 && EXITED(0) &&
		strstr(out, RXR_REPORT_SCHEMA) != NULL, "--version");
	return 0;
}

/* A line of out that contains both needles, or NULL. */
static const char *
line_with(const char *a, const char *b)
{
	static char line[4096];
	const char *p = out;

	while (*p != '\0') {
		size_t n = strcspn(p, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)n, p);
		if (strstr(line, a) != NULL && strstr(line, b) != NULL)
			return line;
		p += n + (p[n] == '\n');
	}
	return NULL;
}

/*
 * Statistics between reports: 5 reps 20% slower are significant (p =
 * 2/252), the same figures are not; --fail-if-worse gates on them.
 */
static int
test_statistics_gate(void)
{
	struct fixture_conf base = { .host = "b", .scale = 1, .reps = 5 };
	struct fixture_conf slow = { .host = "s", .scale = 0.8, .reps = 5 };
	struct fixture_conf same = { .host = "t", .scale = 1, .reps = 5 };
	char b[256], sl[256], sa[256];
	const char *l;

	/* file_in_dir() reuses its buffers: keep copies. */
	snprintf(b, sizeof(b), "%s", file_in_dir("base5.json"));
	snprintf(sl, sizeof(sl), "%s", file_in_dir("slow5.json"));
	snprintf(sa, sizeof(sa), "%s", file_in_dir("same5.json"));

	RXR_TEST_ASSERT(write_report("base5.json", &base) == 0 &&
		write_report("slow5.json", &slow) == 0 &&
		write_report("same5.json", &same) == 0, "write reports");
	RXR_TEST_ASSERT(run(b, sl, NULL) == 0 && EXITED(0), "plain: %d", status);
	l = line_with("Mean", "zone-bulk.gbps ");
	RXR_TEST_ASSERT(l != NULL && strstr(l, "-20.00%") != NULL &&
		strstr(l, "n.s.") == NULL, "slow row: %s", l ? l : "none");
	RXR_TEST_ASSERT(strstr(out, "n.s.: not significant at alpha 0.05") !=
		NULL, "no line naming the test and alpha");
	RXR_TEST_ASSERT(run(b, sa, NULL) == 0 && EXITED(0), "same: %d %s", status, err);
	l = line_with("Mean", "zone-bulk.gbps ");
	RXR_TEST_ASSERT(l != NULL && strstr(l, "n.s.") != NULL,
		"same figures not marked n.s.: %s", l ? l : "none");

	RXR_TEST_ASSERT(run("--fail-if-worse", "10", b, sl, NULL) == 0 &&
		EXITED(3) && strstr(err, "worse: zone-bulk.gbps slow5") != NULL,
		"20%% worse, gate 10%%: %d %s", status, err);
	RXR_TEST_ASSERT(run("--fail-if-worse", "30", b, sl, NULL) == 0 &&
		EXITED(0), "20%% worse, gate 30%%: %d %s", status, err);
	/* Faster: more packets, so more lock contentions (a count). */
	RXR_TEST_ASSERT(run("--fail-if-worse", "10", "-m", "gbps,mpps", sl, b,
		NULL) == 0 && EXITED(0), "better: %d %s", status, err);
	RXR_TEST_ASSERT(run("--fail-if-worse", "1", b, sa, NULL) == 0 &&
		EXITED(0), "same: %d %s", status, err);
	/* p = 0.0079 is not below alpha 0.005, and 5 against 5 runs never
	 * can be: the gate cannot decide (exit 4), it does not pass. */
	RXR_TEST_ASSERT(run("--alpha", "0.005", "--fail-if-worse", "10", b, sl,
		NULL) == 0 && EXITED(4) && strstr(err, "cannot decide") != NULL &&
		strstr(err, "undecided: zone-bulk.gbps slow5: 5 against 5 runs, "
		"unpaired, the smallest p the test can give is 0.00794") != NULL,
		"alpha 0.005: %d %s", status, err);
	/* 2 against 3 runs and 41% worse: cannot decide, not a pass. */
	{
		struct fixture_conf two = { .host = "b", .scale = 1, .reps = 2 };
		struct fixture_conf three = { .host = "s", .scale = 0.59,
			.reps = 3 };
		char t2[256], t3[256];

		snprintf(t2, sizeof(t2), "%s", file_in_dir("two.json"));
		snprintf(t3, sizeof(t3), "%s", file_in_dir("three.json"));
		RXR_TEST_ASSERT(write_report("two.json", &two) == 0 &&
			write_report("three.json", &three) == 0, "write");
		RXR_TEST_ASSERT(run("--fail-if-worse", "5", "-m", "gbps", t2, t3,
			NULL) == 0 && EXITED(4) && strstr(err, "--fail-if-worse "
			"cannot decide") != NULL, "2 against 3: %d %s", status,
			err);
		/* One report: nothing to be worse than; it passed, silent. */
		RXR_TEST_ASSERT(run("--fail-if-worse", "5", t2, NULL) == 0 &&
			EXITED(2) && strstr(err, "give two or more") != NULL,
			"one report gated: %d %s", status, err);
		unlink(t2);
		unlink(t3);
	}
	/* Untested (one value on a side) reads n.t., as in rxrefill's own
	 * table, not n.s. (tested, not significant). */
	{
		struct fixture_conf one = { .host = "o", .scale = 0.5,
			.reps = 1 };
		struct fixture_conf two = { .host = "b", .scale = 1, .reps = 2 };
		char t1[256], t2[256];
		const char *fmts[] = { "text", "markdown" };

		snprintf(t1, sizeof(t1), "%s", file_in_dir("one.json"));
		snprintf(t2, sizeof(t2), "%s", file_in_dir("two_b.json"));
		RXR_TEST_ASSERT(write_report("one.json", &one) == 0 &&
			write_report("two_b.json", &two) == 0, "write");
		for (unsigned int i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
			RXR_TEST_ASSERT(run("-f", fmts[i], "-m", "gbps", t2, t1,
				NULL) == 0 && EXITED(0), "%s: %s", fmts[i], err);
			RXR_TEST_ASSERT(strstr(out, "n.t.") != NULL &&
				strstr(out, "% n.s.") == NULL &&
				strstr(out, ") n.s.") == NULL,
				"%s, 2 against 1: %s", fmts[i], out);
		}
		unlink(t1);
		unlink(t2);
	}
	RXR_TEST_ASSERT(run("--alpha", "1", b, NULL) == 0 && EXITED(2) &&
		strstr(err, "--alpha: '1'") != NULL, "alpha 1: %s", err);
	RXR_TEST_ASSERT(run("--fail-if-worse", "x", b, NULL) == 0 &&
		EXITED(2) && strstr(err, "--fail-if-worse") != NULL,
		"pct x: %s", err);
	RXR_TEST_ASSERT(run("--json", b, sl, NULL) == 0 && EXITED(0) &&
		strstr(out, "\"significant\"") != NULL, "json significance");
	unlink(b);
	unlink(sl);
	unlink(sa);
	return 0;
}

/* A fixture report with the runs of doc edited by fn, written as name. */
static int
write_edited(const char *name, void (*fn)(json_t *doc))
{
	struct fixture_conf c = { .host = "e", .scale = 1, .reps = 1 };
	struct rxr_report *r = fixture_report(&c);
	json_t *doc = json_deep_copy(rxr_report_json(r));
	int ret;

	rxr_report_free(r);
	json_object_del(doc, "summary");
	fn(doc);
	ret = json_dump_file(doc, file_in_dir(name), 0);
	if (ret != 0)
		printf("# %s: cannot write\n", name);
	json_decref(doc);
	return ret;
}

static unsigned int nb_runs_wanted;

/* nb_runs_wanted complete zone-bulk runs, and one cut short. */
static void
many_runs(json_t *doc)
{
	json_t *runs = json_object_get(doc, "runs");
	json_t *first = json_deep_copy(json_array_get(runs, 0)), *cut;
	unsigned int i;

	json_array_clear(runs);
	for (i = 0; i < nb_runs_wanted; i++) {
		json_t *run = json_deep_copy(first);

		json_object_set_new(run, "rep", json_integer(i + 1));
		json_array_append_new(runs, run);
	}
	cut = json_deep_copy(first);
	json_object_set_new(cut, "complete", json_false());
	json_object_set_new(cut, "cut_short", json_string("SIGTERM"));
	json_array_append_new(runs, cut);
	json_decref(first);
}

/*
 * More runs of one configuration than the statistics take: every figure
 * was "-" and --fail-if-worse passed. Now refused by name; the limit
 * itself still compares, and a cut-short run does not count.
 */
static int
test_runs_limit(void)
{
	char over[256], at[256];

	snprintf(over, sizeof(over), "%s", file_in_dir("over.json"));
	snprintf(at, sizeof(at), "%s", file_in_dir("at.json"));
	nb_runs_wanted = RXR_STATS_MAX_N + 1;
	RXR_TEST_ASSERT(write_edited("over.json", many_runs) == 0, "write");
	nb_runs_wanted = RXR_STATS_MAX_N;
	RXR_TEST_ASSERT(write_edited("at.json", many_runs) == 0, "write");
	RXR_TEST_ASSERT(run("--fail-if-worse", "1", over, over, NULL) == 0 &&
		EXITED(1) && strstr(err, "over.json: runs[4096]: configuration "
			"zone-bulk has more than") != NULL, "over the limit: %d %s",
		status, err);
	RXR_TEST_ASSERT(run("--json", over, NULL) == 0 && EXITED(1),
		"--json over the limit: %d", status);
	RXR_TEST_ASSERT(run("--fail-if-worse", "1", at, at, NULL) == 0 &&
		EXITED(0), "at the limit: %d %s", status, err);
	{
		const char *l = line_with("Mean", "zone-bulk.gbps ");

		RXR_TEST_ASSERT(l != NULL && strstr(l, "(  0.00%)") != NULL,
			"at the limit, no figure: %s", l ? l : "none");
	}
	unlink(over);
	unlink(at);
	return 0;
}

#define NB_FLOWS 3000

/* Run 0 with flows 0..NB_FLOWS-1, run 1 with flows NB_FLOWS/2.. on. */
static void
many_streams(json_t *doc)
{
	json_t *runs = json_object_get(doc, "runs");
	unsigned int r, i;

	for (r = 0; r < 2; r++) {
		json_t *arr = json_array();

		for (i = 0; i < NB_FLOWS; i++) {
			unsigned int f = i + r * NB_FLOWS / 2;
			char src[32];

			snprintf(src, sizeof(src), "10.%u.%u.%u", f >> 16 & 255,
				f >> 8 & 255, f & 255);
			json_array_append_new(arr, json_pack("{s:s,s:s,s:i,s:i,"
				"s:i,s:I,s:I}", "src", src, "dst", "10.9.9.9",
				"sport", 1000 + f % 5000, "dport", 80,
				"proto", 17, "packets", (json_int_t)(f + 1),
				"bytes", (json_int_t)(64 * (f + 1))));
		}
		json_object_set_new(json_array_get(runs, r), "streams", arr);
	}
}

static size_t
count_of(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p != NULL;
			p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * -s on thousands of streams: every flow once, in order of first sight,
 * 0 where a run did not see it (hash tables instead of pairwise matching).
 */
static int
test_stream_rows_many(void)
{
	char f[256];
	const char *l;

	snprintf(f, sizeof(f), "%s", file_in_dir("flows.json"));
	RXR_TEST_ASSERT(write_edited("flows.json", many_streams) == 0,
		"write");
	RXR_TEST_ASSERT(run("-s", "-m", "streams.packets", f, NULL) == 0 &&
		EXITED(0), "-s: %d %s", status, err);
	RXR_TEST_ASSERT(count_of(out, "streams.packets[") ==
		NB_FLOWS + NB_FLOWS / 2, "%zu stream rows, not %d",
		count_of(out, "streams.packets["), NB_FLOWS + NB_FLOWS / 2);
	/* Flow 0: only in run 0 (zone); the last: only in run 1 (bh). */
	l = line_with("Median", "streams.packets[10.0.0.0:1000>");
	RXR_TEST_ASSERT(l != NULL && strstr(l, " 1 ") != NULL, "flow 0: %s",
		l ? l : "none");
	l = line_with("Median", "streams.packets[10.0.17.147:5499>");
	RXR_TEST_ASSERT(l != NULL && strstr(l, " 0 ") != NULL &&
		strstr(l, " 4500") != NULL, "flow 4499: %s", l ? l : "none");
	RXR_TEST_ASSERT(strstr(out, "10.0.0.0:1000>") <
		strstr(out, "10.0.0.1:1001>"), "order of first sight");
	unlink(f);
	return 0;
}

static void
cleanup(void)
{
	static const char *const names[] = {
		"monday.json", "tuesday.json", "wednesday.json", "future.json",
		"nompps.json", "malformed.json", "empty.json", "list.json",
		"stdout", "stderr",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(file_in_dir(names[i]));
	rmdir(dir);
}

/*
 * One report's exports are its own table: a column per configuration,
 * the tested cells with ratio, interval, p and the test that ran.
 */
static int
test_one_report_exports(void)
{
	static const char head[] = "config,metric,statistic,report,value,"
		"delta_pct,better,p,significant,ratio,ci_lo,ci_hi,test,paired,n,"
		"n_base,p_unpaired,difference\n";
	const char *p, *e;
	int bars = -1;

	RXR_TEST_ASSERT(run("-f", "csv", file_in_dir("monday.json"), NULL) ==
		0 && EXITED(0), "csv: %d %s", status, err);
	RXR_TEST_ASSERT(strncmp(out, head, strlen(head)) == 0,
		"csv header: %.200s", out);
	RXR_TEST_ASSERT(strstr(out, ",gbps,mean,bh-bulk,") != NULL &&
		strstr(out, "\"exact sign-flip permutation test over paired "
		"rounds, mean log-ratio (all 2^n sign vectors)\",true,3,3,") !=
		NULL, "csv rows:\n%s", out);
	RXR_TEST_ASSERT(run("-f", "markdown", file_in_dir("monday.json"),
		NULL) == 0 && EXITED(0), "markdown: %d %s", status, err);
	/* 3 rounds: a ratio and p, no interval (the test rejects none). */
	RXR_TEST_ASSERT(strstr(out, "| zone-bulk | bh-bulk | recycle-bulk |") !=
		NULL && strstr(out, "x p ") != NULL, "markdown:\n%s", out);
	/* Every line as many cells as the header, percentiles included. */
	for (p = out; *p != '\0'; p = *e ? e + 1 : e) {
		int n = 0;

		e = strchr(p, '\n');
		if (e == NULL)
			e = p + strlen(p);
		for (const char *q = p; q < e; q++)
			n += *q == '|' && (q == p || q[-1] != '\\');
		RXR_TEST_ASSERT(bars < 0 || n == bars, "%d cells, not %d: %.*s",
			n, bars, (int)(e - p), p);
		bars = n;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s RXREFILL_COMPARE\n", argv[0]);
		return EXIT_FAILURE;
	}
	compare_bin = argv[1];
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	rxr_test_run("setup", setup);
	rxr_test_run("three_reports", test_three_reports);
	rxr_test_run("one_report", test_one_report);
	rxr_test_run("metric", test_metric);
	rxr_test_run("json", test_json);
	rxr_test_run("other_schema", test_other_schema);
	rxr_test_run("malformed", test_malformed);
	rxr_test_run("missing_field", test_missing_field);
	rxr_test_run("missing_file", test_missing_file);
	rxr_test_run("empty_file", test_empty_file);
	rxr_test_run("not_an_object", test_not_an_object);
	rxr_test_run("usage", test_usage);
	rxr_test_run("statistics_gate", test_statistics_gate);
	rxr_test_run("one_report_exports", test_one_report_exports);
	rxr_test_run("runs_limit", test_runs_limit);
	rxr_test_run("stream_rows_many", test_stream_rows_many);
	cleanup();
	return rxr_test_done();
}
