/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The report groups (RXR_REPORT_GROUPS in rxr_report.h), walked line by
 * line: a written run holds every field of every group, with its type and
 * value, in list order; a run with any one field removed or of another
 * type is refused naming that field; every field with a row is
 * selectable and rendered, and no field without one is selectable.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report.h"
#include "rxr_report_priv.h"
#include "rxr_test.h"

/* Every group's fields, and their ids: FIELD_pcp_hits, ... */
#define FIELDS_OF_(g, list, when) list(FIELD_OF_)
#define ALL_FIELDS(X) RXR_REPORT_GROUPS(FIELDS_OF_)
#define FIELD_ID_(g, f, t, r, p, h) FIELD_##g##_##f,
enum {
#define FIELD_OF_ FIELD_ID_
	ALL_FIELDS(FIELD_ID_)
#undef FIELD_OF_
	FIELDS_NUM
};

/* The group lists as a table, field by id and group by id. */
enum rxrr_ftype { RXRR_FTYPE_COUNT, RXRR_FTYPE_NUMBER, RXRR_FTYPE_STRING };
enum rxrr_row_kind {
	RXRR_ROW_NONE, RXRR_ROW_COUNT, RXRR_ROW_HIGHER, RXRR_ROW_LOWER,
};

struct rxrr_field {
	enum rxr_report_group_id group_id;
	const char *group;
	const char *name;
	const char *path;
	enum rxrr_ftype type;
	enum rxrr_row_kind row;
};

static const struct rxrr_field fields[] = {
#define FIELD(g, f, t, r, p, h) [FIELD_##g##_##f] = { \
	.group_id = RXR_REPORT_GROUP_##g, .group = #g, .name = #f, \
	.path = #g "." #f, .type = RXRR_FTYPE_##t, .row = RXRR_ROW_##r },
#define FIELD_OF_ FIELD
	ALL_FIELDS(FIELD)
#undef FIELD_OF_
#undef FIELD
};

#define REQUIRED_ALWAYS true
#define REQUIRED_HAS false
static const struct {
	const char *name;
	bool required;
} groups[] = {
#define GROUP(g, list, when) [RXR_REPORT_GROUP_##g] = { #g, \
	REQUIRED_##when },
	RXR_REPORT_GROUPS(GROUP)
#undef GROUP
};

static const struct rxrr_field *
rxrr_field(unsigned int id)
{
	return id < FIELDS_NUM ? &fields[id] : NULL;
}

static const char *
rxrr_group_name(unsigned int id)
{
	return groups[id].name;
}

static bool
rxrr_group_required(unsigned int id)
{
	return groups[id].required;
}

/* Distinct values by field id, so that a field written from another's
 * member is seen. */
static const char *const string_values[] = { "s0", "s1", "s2", "s3", "s4",
	"s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14",
	"s15", "s16", "s17", "s18", "s19", "s20", "s21", "s22", "s23", "s24",
	"s25", "s26", "s27", "s28", "s29", "s30", "s31" };
_Static_assert(sizeof(string_values) / sizeof(string_values[0]) >=
	FIELDS_NUM, "a string value per field");

#define VALUE_COUNT(id) ((uint64_t)(id) * 1000 + 7)
#define VALUE_NUMBER(id) ((double)(id) + 0.25)
#define VALUE_STRING(id) (string_values[id])

/* A run with every group written and every field set by its list line. */
static void
fill_run(struct rxr_report_run *run, unsigned int rep)
{
	memset(run, 0, sizeof(*run));
	run->strategy = "bh";
	run->bulk = true;
	run->rep = rep;
	run->duration_s = 1;
	run->rx_packets = 1000;
	run->rx_bytes = 64000;
#define SET(g, f, t, r, p, h) \
	run->g.f = VALUE_##t(FIELD_##g##_##f);
#define FIELD_OF_ SET
	ALL_FIELDS(SET)
#undef FIELD_OF_
#undef SET
#define HAS_ALWAYS(g)
#define HAS_HAS(g) run->has_##g = true;
#define GROUP(g, list, when) HAS_##when(g)
	RXR_REPORT_GROUPS(GROUP)
#undef GROUP
}

static struct rxr_report *
full_report(unsigned int reps)
{
	static const unsigned int lcores[] = { 1 };
	static char *const argv[] = { "rxrefill" };
	const struct rxr_report_env env = { .dpdk_version = "22.11",
		.host = "h", .cpu_model = "c", .lcores = lcores,
		.nb_lcores = 1, .argc = 1, .argv = argv };
	struct rxr_report *r = rxr_report_create();
	struct rxr_report_run run;
	char err[RXR_REPORT_ERR_LEN] = "";
	unsigned int i;

	if (r != NULL && rxr_report_set_env(r, &env, err, sizeof(err)) != 0) {
		fprintf(stdout, "# set_env: %s\n", err);
		rxr_report_free(r);
		return NULL;
	}
	for (i = 0; r != NULL && i < reps; i++) {
		fill_run(&run, i);
		if (rxr_report_add_run(r, &run, err, sizeof(err)) != 0) {
			fprintf(stdout, "# add_run: %s\n", err);
			rxr_report_free(r);
			return NULL;
		}
	}
	return r;
}

/* obj[f->name] is what the list says f holds, of the run fill_run made. */
static int
check_value(const json_t *v, const struct rxrr_field *f, unsigned int id)
{
	double want;

	RXR_TEST_ASSERT(v != NULL, "%s: missing", f->path);
	switch (f->type) {
	case RXRR_FTYPE_COUNT:
		RXR_TEST_ASSERT(json_is_integer(v) && (uint64_t)
			json_integer_value(v) == VALUE_COUNT(id),
			"%s: not count %llu", f->path,
			(unsigned long long)VALUE_COUNT(id));
		break;
	case RXRR_FTYPE_NUMBER:
		/* pcp.hit_rate is derived from the counts, not copied. */
		want = id == FIELD_pcp_hit_rate ?
			(double)VALUE_COUNT(FIELD_pcp_hits) /
			(VALUE_COUNT(FIELD_pcp_hits) +
			 VALUE_COUNT(FIELD_pcp_misses)) :
			VALUE_NUMBER(id);
		RXR_TEST_ASSERT(json_is_real(v) &&
			fabs(json_real_value(v) - want) < 1e-12,
			"%s: not number %g", f->path, want);
		break;
	case RXRR_FTYPE_STRING:
		RXR_TEST_ASSERT(json_is_string(v) && strcmp(
			json_string_value(v), VALUE_STRING(id)) == 0,
			"%s: not \"%s\"", f->path, VALUE_STRING(id));
		break;
	}
	return 0;
}

static int
test_written(void)
{
	struct rxr_report *r = full_report(1);
	const json_t *run, *obj, *v;
	const struct rxrr_field *f;
	const char *key;
	unsigned int g, id;
	size_t nb;

	RXR_TEST_ASSERT(r != NULL, "report");
	run = json_array_get(json_object_get(rxr_report_json(r), "runs"), 0);
	for (g = 0; g < RXR_REPORT_GROUPS_NUM; g++) {
		obj = json_object_get(run, rxrr_group_name(g));
		RXR_TEST_ASSERT(json_is_object(obj), "%s: not written",
			rxrr_group_name(g));
		/* Its keys are the list's, in list order, and no others. */
		id = 0;
		nb = 0;
		json_object_foreach((json_t *)(uintptr_t)obj, key, v) {
			while ((f = rxrr_field(id)) != NULL &&
					f->group_id != g)
				id++;
			RXR_TEST_ASSERT(f != NULL && strcmp(key, f->name) == 0,
				"%s.%s: not the next of the list (%s)",
				rxrr_group_name(g), key,
				f != NULL ? f->name : "none left");
			if (check_value(v, f, id) != 0)
				return -1;
			id++;
			nb++;
		}
		for (; (f = rxrr_field(id)) != NULL; id++)
			RXR_TEST_ASSERT(f->group_id != g, "%s: not written",
				f->path);
		RXR_TEST_ASSERT(nb > 0, "%s: empty", rxrr_group_name(g));
	}
	rxr_report_free(r);
	return 0;
}

/* A copy of doc's only run's field f: removed (bad == NULL) or set to bad. */
static int
expect_refused(const json_t *doc, const struct rxrr_field *f,
		json_t *bad, const char *why)
{
	json_t *copy = json_deep_copy(doc);
	json_t *grp = json_object_get(json_array_get(json_object_get(copy,
		"runs"), 0), f->group);
	char err[RXR_REPORT_ERR_LEN] = "", want[128];
	int ret;

	RXR_TEST_ASSERT(copy != NULL && grp != NULL, "%s: copy", f->path);
	if (bad == NULL)
		json_object_del(grp, f->name);
	else
		json_object_set_new(grp, f->name, bad);
	ret = rxr_report_validate(copy, "g.json", err, sizeof(err));
	json_decref(copy);
	snprintf(want, sizeof(want), "g.json: runs[0].%s: %s", f->path, why);
	RXR_TEST_ASSERT(ret != 0, "%s %s: accepted", f->path, why);
	RXR_TEST_ASSERT(strncmp(err, want, strlen(want)) == 0,
		"%s: \"%s\", expected \"%s...\"", f->path, err, want);
	return 0;
}

static int
test_refused(void)
{
	struct rxr_report *r = full_report(1);
	const struct rxrr_field *f;
	const json_t *doc;
	char err[RXR_REPORT_ERR_LEN];
	unsigned int id, g;

	RXR_TEST_ASSERT(r != NULL, "report");
	doc = rxr_report_json(r);
	RXR_TEST_ASSERT(rxr_report_validate(doc, "g.json", err,
		sizeof(err)) == 0, "the whole run: %s", err);
	for (id = 0; (f = rxrr_field(id)) != NULL; id++) {
		if (expect_refused(doc, f, NULL, "missing") != 0 ||
				expect_refused(doc, f, f->type ==
					RXRR_FTYPE_STRING ?
					json_integer(1) : json_string("1"),
					"expected") != 0)
			return -1;
		/* A count is never negative nor fractional; a number never
		 * negative. */
		if (f->type != RXRR_FTYPE_STRING &&
				expect_refused(doc, f, json_integer(-1),
					"expected") != 0)
			return -1;
		if (f->type == RXRR_FTYPE_COUNT &&
				expect_refused(doc, f, json_real(1.5),
					"expected") != 0)
			return -1;
	}
	/* A whole group: required ones are missed, the others optional. */
	for (g = 0; g < RXR_REPORT_GROUPS_NUM; g++) {
		json_t *copy = json_deep_copy(doc);
		const char *name = rxrr_group_name(g);
		int ret;

		json_object_del(json_array_get(json_object_get(copy, "runs"),
			0), name);
		ret = rxr_report_validate(copy, "g.json", err, sizeof(err));
		json_decref(copy);
		RXR_TEST_ASSERT((ret != 0) == rxrr_group_required(g),
			"without %s: %s", name, ret != 0 ? err : "accepted");
	}
	rxr_report_free(r);
	return 0;
}

/* The text table of r with only sel selected; NULL on failure. */
static char *
render_selected(const struct rxr_report *r, const char *sel)
{
	const char *const metrics[] = { sel };
	struct rxr_report_select s = { .metrics = metrics, .nb_metrics = 1 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (out == NULL)
		return NULL;
	if (rxr_report_render_text(r, out, &s) != 0) {
		fclose(out);
		free(buf);
		return NULL;
	}
	fclose(out);
	return buf;
}

static int
test_selectable(void)
{
	struct rxr_report *r = full_report(2);
	const struct rxrr_field *f;
	const char *help = rxr_report_metric_help();
	char row[128], *text;
	unsigned int id;

	RXR_TEST_ASSERT(r != NULL, "report");
	for (id = 0; (f = rxrr_field(id)) != NULL; id++) {
		bool row_field = f->row != RXRR_ROW_NONE;

		RXR_TEST_ASSERT(rxr_report_metric_known(f->path) == row_field,
			"%s: %s", f->path, row_field ? "a row but not "
			"selectable" : "selectable but no row");
		RXR_TEST_ASSERT(strstr(help, f->group) != NULL ||
			!row_field, "%s: not in the help: %s", f->path, help);
		if (!row_field)
			continue;
		RXR_TEST_ASSERT(rxr_report_metric_known(f->group),
			"%s: group not selectable", f->group);
		snprintf(row, sizeof(row), "[.%s", f->name);
		RXR_TEST_ASSERT(strstr(help, row) != NULL || (snprintf(row,
			sizeof(row), "|.%s", f->name) > 0 &&
			strstr(help, row) != NULL), "%s: not in the help: %s",
			f->path, help);
		text = render_selected(r, f->path);
		RXR_TEST_ASSERT(text != NULL, "%s: render", f->path);
		snprintf(row, sizeof(row), "Median   %s ", f->path);
		RXR_TEST_ASSERT(strstr(text, row) != NULL,
			"%s: no row when selected:\n%s", f->path, text);
		free(text);
	}
	rxr_report_free(r);
	return 0;
}

int
main(void)
{
	rxr_test_run("written", test_written);
	rxr_test_run("refused", test_refused);
	rxr_test_run("selectable", test_selectable);
	return rxr_test_done();
}
