/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The bottom of the library: errors, numbers and paths in a JSON document,
 * JSON values, printable copies, a growing line of text printed whole or
 * wrapped within 120 columns. Calls nothing else in lib/report.
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_priv.h"

void
rxrr_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

double
rxrr_num(const json_t *v)
{
	if (v == NULL || !json_is_number(v))
		return NAN;
	return json_number_value(v);
}

const json_t *
rxrr_path(const json_t *obj, const char *path)
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

const char *
rxrr_zero_of(const json_t *run, const char *key)
{
	return json_string_value(json_object_get(json_object_get(run,
		"zeroing"), key));
}

bool
rxrr_same_zero(const json_t *a, const json_t *b)
{
	const char *pa = rxrr_zero_of(a, "policy"), *pb = rxrr_zero_of(b, "policy");
	const char *ma = rxrr_zero_of(a, "method"), *mb = rxrr_zero_of(b, "method");

	if (pa == NULL || pb == NULL)
		return pa == pb;
	return strcmp(pa, pb) == 0 &&
		strcmp(ma != NULL ? ma : "", mb != NULL ? mb : "") == 0;
}

bool
rxrr_same_config(const json_t *a, const json_t *b, bool zero)
{
	const char *sa = json_string_value(json_object_get(a, "strategy"));
	const char *sb = json_string_value(json_object_get(b, "strategy"));

	return sa != NULL && sb != NULL && strcmp(sa, sb) == 0 &&
		json_is_true(json_object_get(a, "bulk")) ==
		json_is_true(json_object_get(b, "bulk")) &&
		(!zero || rxrr_same_zero(a, b));
}

/* Whether two runs of one strategy and bulk differ in zeroing: each run
 * against the first of its pair, found by name (linear in the runs). */
bool
rxrr_zero_listed(const json_t *doc)
{
	const json_t *runs = json_object_get(doc, "runs"), *run, *first;
	json_t *seen = json_object();
	bool listed = false;
	char *key;
	size_t i;

	json_array_foreach(runs, i, run) {
		if (seen == NULL || asprintf(&key, "%s\x1f%d", json_string_value(
				json_object_get(run, "strategy")) ?: "",
				json_is_true(json_object_get(run, "bulk"))) < 0)
			break;
		first = json_object_get(seen, key);
		if (first != NULL)
			listed = !rxrr_same_zero(json_array_get(runs,
				json_integer_value(first)), run);
		else
			json_object_set_new(seen, key, json_integer(i));
		free(key);
		if (listed)
			break;
	}
	json_decref(seen);
	return listed;
}

void
rxrr_run_label(const json_t *run, bool zero, char *buf, size_t len)
{
	const char *p = rxrr_zero_of(run, "policy"), *m = rxrr_zero_of(run, "method");
	int n = snprintf(buf, len, "%s-%s", json_string_value(
		json_object_get(run, "strategy")), json_is_true(
		json_object_get(run, "bulk")) ? "bulk" : "nobulk");

	if (zero && p != NULL && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, " zero=%s/%s", p, m != NULL ? m : "?");
}

/* A string from the machine (hostname, cpuinfo) need not be UTF-8. */
json_t *
rxrr_jstr(const char *s)
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

int
rxrr_jset(json_t *obj, const char *key, json_t *v)
{
	if (v == NULL)
		return -1;
	return json_object_set_new(obj, key, v);
}

json_t *
rxrr_jnum(double d)
{
	return isfinite(d) ? json_real(d) : json_null();
}

json_t *
rxrr_jcount(uint64_t c)
{
	return json_integer(c > INT64_MAX ? INT64_MAX : (json_int_t)c);
}

/* The report's alpha: statistics.alpha, else the default. */
double
rxrr_alpha(const json_t *doc)
{
	double a = rxrr_num(json_object_get(json_object_get(doc, "statistics"),
			"alpha"));

	return a > 0 && a < 1 ? a : RXR_REPORT_ALPHA_DEFAULT;
}

/* A copy safe to print: control characters from a file become '?'. */
char *
rxrr_clean_dup(const char *s)
{
	char *c = strdup(s != NULL ? s : "");
	char *p;

	if (c == NULL)
		return NULL;
	for (p = c; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return c;
}

double
rxr_report_pcp_hit_rate(const struct rxr_report_pcp *pcp)
{
	double all = (double)pcp->hits + pcp->misses;

	return all > 0 ? pcp->hits / all : NAN;
}

#define TEXT_COLUMNS 120	/* what a line of the brief output fits in */

void
rxrr_line_add(struct rxrr_line *l, const char *fmt, ...)
{
	va_list ap;
	char *nb;
	int n;

	va_start(ap, fmt);
	n = l->oom ? -1 : vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n >= 0 && l->len + (size_t)n >= l->cap) {
		size_t cap = 2 * (l->len + (size_t)n + 1);

		nb = realloc(l->buf, cap);
		if (nb != NULL) {
			l->buf = nb;
			l->cap = cap;
		}
	}
	if (n < 0 || l->len + (size_t)n >= l->cap) {
		l->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(l->buf + l->len, l->cap - l->len, fmt, ap);
	va_end(ap);
	l->len += (size_t)n;
}

void
rxrr_line_clean(struct rxrr_line *l, const char *s)
{
	for (; s != NULL && *s != '\0'; s++)
		rxrr_line_add(l, "%c", (unsigned char)*s < 0x20 || *s == 0x7f ?
			'?' : *s);
}

/*
 * The line, within width columns when it is a sentence: broken at spaces,
 * the rest indented by four (lists indent their items by two). A word
 * longer than a line stays whole.
 */
static void
line_put(struct rxrr_line *l, FILE *out, size_t width)
{
	char *s = l->buf != NULL ? l->buf : (char[1]){ '\0' };
	size_t start = 0;

	while (l->len > 0 && s[l->len - 1] == ' ')
		l->len--;
	s[l->len] = '\0';
	while (l->len - start > width) {
		size_t cut = start + width;

		while (cut > start && s[cut] != ' ')
			cut--;
		if (cut == start) {
			cut = start + width;
			while (cut < l->len && s[cut] != ' ')
				cut++;
			if (cut == l->len)
				break;
		}
		fprintf(out, "%s%.*s\n", start == 0 ? "" : "    ",
			(int)(cut - start), s + start);
		start = cut + 1;
		width = TEXT_COLUMNS - 4;
	}
	fprintf(out, "%s%s\n", start == 0 ? "" : "    ", s + start);
	l->len = 0;
}

void
rxrr_line_put(struct rxrr_line *l, FILE *out)
{
	line_put(l, out, SIZE_MAX);
}

void
rxrr_line_put_wrapped(struct rxrr_line *l, FILE *out)
{
	line_put(l, out, TEXT_COLUMNS);
}

void
rxrr_line_free(struct rxrr_line *l)
{
	free(l->buf);
	l->buf = NULL;
}
