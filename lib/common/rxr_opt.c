/* SPDX-License-Identifier: BSD-3-Clause */

/* Options from one table: typed parser, defaults, --help, --options-table. */

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_opt.h"
#include "rxr_path.h"

/* Column where --help's text starts, and the width it wraps within:
 * 80 columns and the last one free. */
#define HELP_COL 25
#define HELP_WIDTH 79
/* getopt_long's val of a long-only option: past every char. */
#define LONG_ONLY_VAL 256

int
rxr_opt_find(const struct rxr_opt_table *t, const char *name)
{
	for (unsigned int i = 0; i < t->nb; i++)
		if (strcmp(t->opts[i].name, name) == 0)
			return (int)i;
	return -1;
}

int
rxr_opt_uint(const char *name, const char *s, uint64_t min, uint64_t max,
		uint64_t *v, char *err, size_t errlen)
{
	/* Decimal only: "010" is ten and "0x10" an error. */
	if (rxr_parse_decimal(s, min, max, v) == 0)
		return 0;
	snprintf(err, errlen, "--%s: '%s' is not a decimal whole number in "
		"%llu..%llu", name, s, (unsigned long long)min,
		(unsigned long long)max);
	return -1;
}

int
rxr_opt_number(const char *name, const char *s, double min, double max,
		const char *unit, double *v, char *err, size_t errlen)
{
	char *end;

	/* Digits, one point, an exponent; no hex, inf or nan. */
	errno = 0;
	*v = strtod(s, &end);
	if (errno == 0 && end != s && *end == '\0' &&
			strspn(s, "0123456789.eE+-") == strlen(s) &&
			*v >= min && *v <= max)
		return 0;
	snprintf(err, errlen, "--%s: '%s' is not a decimal number%s%s in "
		"%g..%g", name, s, unit != NULL ? " of " : "",
		unit != NULL ? unit : "", min, max);
	return -1;
}

/* A whole number, enum or bool of o->size bytes at o->off. */
static void
store(const struct rxr_opt *o, void *ctx, uint64_t v)
{
	char *p = (char *)ctx + o->off;

	if (o->size == sizeof(uint64_t))
		*(uint64_t *)p = v;
	else if (o->size == sizeof(uint32_t))
		*(uint32_t *)p = (uint32_t)v;
	else if (o->size == sizeof(uint16_t))
		*(uint16_t *)p = (uint16_t)v;
	else
		*(uint8_t *)p = (uint8_t)v;
}

/* Option o given arg: its typed store (with its message), then its setter. */
static int
apply(const struct rxr_opt *o, void *ctx, const char *arg, char *err,
		size_t errlen)
{
	char *field = (char *)ctx + o->off;
	uint64_t v = o->min;
	size_t off = 0;

	switch (o->type) {
	case RXR_OPT_CALL:
		break;
	case RXR_OPT_UINT:
		if (rxr_opt_uint(o->name, arg, o->min, o->max, &v, err,
				errlen) != 0)
			return -1;
		/* fall through */
	case RXR_OPT_FLAG:
		store(o, ctx, v);
		break;
	case RXR_OPT_NUMBER:
		if (rxr_opt_number(o->name, arg, o->dmin, o->dmax, o->unit,
				(double *)field, err, errlen) != 0)
			return -1;
		break;
	case RXR_OPT_ENUM:
		for (v = 0; o->names[v] != NULL; v++)
			if (strcmp(arg, o->names[v]) == 0)
				break;
		if (o->names[v] != NULL) {
			store(o, ctx, v);
			break;
		}
		off = snprintf(err, errlen, "--%s: '%s' is not ", o->name, arg);
		for (v = 0; o->names[v] != NULL && off < errlen; v++)
			off += snprintf(err + off, errlen - off, "%s%s", v == 0 ?
				"" : o->names[v + 1] == NULL ? " or " : ", ",
				o->names[v]);
		return -1;
	case RXR_OPT_PATH:
		if (arg[0] == '\0') {
			snprintf(err, errlen, "--%s: empty path", o->name);
			return -1;
		}
		/* fall through */
	case RXR_OPT_STR:
		*(const char **)field = arg;
		break;
	}
	return o->set != NULL ? o->set(ctx, arg, err, errlen) : 0;
}

static int
has_arg(const struct rxr_opt *o)
{
	if (o->arg == NULL)
		return no_argument;
	return o->arg[0] == '[' ? optional_argument : required_argument;
}

/* getopt_long's arrays of a table table_check() accepted. */
static void
build_getopt(const struct rxr_opt_table *t, struct option *longs,
		char *shorts)
{
	char *s = shorts;

	*s++ = ':';	/* a missing value returns ':', not '?' */
	for (unsigned int i = 0; i < t->nb; i++) {
		const struct rxr_opt *o = &t->opts[i];

		longs[i] = (struct option){ o->name, has_arg(o), NULL,
			o->short_name != 0 ? o->short_name :
			LONG_ONLY_VAL + (int)i };
		if (o->short_name == 0)
			continue;
		*s++ = o->short_name;
		if (has_arg(o) != no_argument)
			*s++ = ':';
		if (has_arg(o) == optional_argument)
			*s++ = ':';
	}
	longs[t->nb] = (struct option){ NULL, 0, NULL, 0 };
	*s = '\0';
}

/* The option getopt_long returned c for, or -1. */
static int
index_of(const struct rxr_opt_table *t, int c)
{
	if (c >= LONG_ONLY_VAL)
		return c - LONG_ONLY_VAL < (int)t->nb ? c - LONG_ONLY_VAL : -1;
	for (unsigned int i = 0; i < t->nb; i++)
		if (t->opts[i].short_name == c)
			return (int)i;
	return -1;
}

/* What getopt_long found wrong (it prints nothing: opterr 0). */
static void
getopt_error(const struct rxr_opt_table *t, int c, int argc, char **argv,
		char *err, size_t errlen)
{
	const char *word = optind > 0 && optind <= argc ? argv[optind - 1] :
		"?";
	const char *eq = strncmp(word, "--", 2) == 0 ? strchr(word, '=') : NULL;

	/* "--flag=1": the option is known, the value is what is wrong. */
	for (unsigned int i = 0; eq != NULL && i < t->nb; i++)
		if (has_arg(&t->opts[i]) == no_argument &&
				strlen(t->opts[i].name) == (size_t)(eq - word - 2) &&
				strncmp(t->opts[i].name, word + 2, eq - word - 2) == 0) {
			snprintf(err, errlen, "option '--%s' takes no value",
				t->opts[i].name);
			return;
		}
	if (c == ':')
		snprintf(err, errlen, "option '%s' needs a value", word);
	else if (optopt > 0 && optopt < LONG_ONLY_VAL &&
			strncmp(word, "--", 2) != 0)
		snprintf(err, errlen, "unknown option '-%c'", optopt);
	else
		snprintf(err, errlen, "unknown option '%s'", word);
}

/* A text field: given when required, one line without tabs. */
static bool
text_ok(const char *s, bool required)
{
	return s == NULL ? !required : s[0] != '\0' && strpbrk(s, "\t\n") == NULL;
}

/* A typed option's field: the size of what it stores, its range within. */
static bool
field_ok(const struct rxr_opt *o)
{
	uint64_t most = o->type == RXR_OPT_UINT ? o->max : o->min;

	switch (o->type) {
	case RXR_OPT_CALL:
		return o->set != NULL;
	case RXR_OPT_NUMBER:
		return o->size == sizeof(double);
	case RXR_OPT_PATH:
	case RXR_OPT_STR:
		return o->size == sizeof(char *);
	case RXR_OPT_ENUM:
		if (o->names == NULL)
			return false;
		/* fall through */
	default:
		return (o->size == 1 || o->size == 2 || o->size == 4 ||
			o->size == 8) && (o->size == 8 ||
			most >> (8 * o->size) == 0);
	}
}

/* Names and letters unique, texts one line, required fields given. */
static int
table_check(const struct rxr_opt_table *t, char *err, size_t errlen)
{
	if (t->nb > RXR_OPT_MAX) {
		snprintf(err, errlen, "%s: more than %d options", t->prog,
			RXR_OPT_MAX);
		return -1;
	}
	for (unsigned int i = 0; i < t->nb; i++) {
		const struct rxr_opt *o = &t->opts[i];

		if (!text_ok(o->name, true) || !text_ok(o->arg, false) ||
				!text_ok(o->def, false) ||
				!text_ok(o->complete, false) ||
				!text_ok(o->section, true) ||
				!text_ok(o->help, true) || !field_ok(o)) {
			snprintf(err, errlen, "%s: option %u (%s): a field "
				"missing, empty, with a tab or newline, or not "
				"of its type's size",
				t->prog, i, o->name != NULL ? o->name : "?");
			return -1;
		}
		if (rxr_opt_find(t, o->name) != (int)i || (o->short_name != 0 &&
				index_of(t, o->short_name) != (int)i)) {
			snprintf(err, errlen, "%s: --%s: its name or letter "
				"is taken", t->prog, o->name);
			return -1;
		}
	}
	return 0;
}

int
rxr_opt_parse(const struct rxr_opt_table *t, void *ctx, int argc,
		char **argv, unsigned int *seen, char *err, size_t errlen)
{
	struct option longs[RXR_OPT_MAX + 1];
	char shorts[3 * RXR_OPT_MAX + 2];
	unsigned int rank = 0;
	int c;

	if (rxr_opt_table_asked(argc, argv))
		return rxr_opt_print_table(t, stdout, err, errlen) == 0 ?
			RXR_OPT_STOP : RXR_OPT_BAD_VALUE;
	if (table_check(t, err, errlen) != 0)
		return RXR_OPT_BAD_VALUE;
	build_getopt(t, longs, shorts);
	optind = 0;	/* glibc: a full re-initialization, so parsing can repeat */
	opterr = 0;
	for (unsigned int i = 0; i < t->nb; i++)
		if (t->opts[i].def != NULL && apply(&t->opts[i], ctx,
				t->opts[i].def, err, errlen) < 0)
			return RXR_OPT_BAD_VALUE;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		int i = index_of(t, c), ret;

		if (i < 0) {
			getopt_error(t, c, argc, argv, err, errlen);
			return RXR_OPT_BAD_OPTION;
		}
		if (seen != NULL && seen[i] == 0)
			seen[i] = ++rank;
		err[0] = '\0';
		ret = apply(&t->opts[i], ctx, optarg, err, errlen);
		if (ret < 0 && err[0] == '\0')
			snprintf(err, errlen, "--%s: '%s' refused",
				t->opts[i].name, optarg != NULL ? optarg : "");
		if (ret != 0)
			return ret < 0 ? RXR_OPT_BAD_VALUE : RXR_OPT_STOP;
	}
	return 0;
}

/*
 * The options in --help order: sections in the order they first appear,
 * each with all its options in table order. order[] gets t->nb indexes.
 */
static void
help_order(const struct rxr_opt_table *t, unsigned int *order)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < t->nb; i++) {
		bool first = true;

		for (unsigned int j = 0; j < i && first; j++)
			first = strcmp(t->opts[j].section, t->opts[i].section) != 0;
		if (!first)
			continue;
		for (unsigned int j = i; j < t->nb; j++)
			if (strcmp(t->opts[j].section, t->opts[i].section) == 0)
				order[n++] = j;
	}
}

/* Words of text from column col on; new lines start at indent. */
static void
wrap_from(FILE *f, const char *text, int col, int indent, int width)
{
	const char *p = text;
	bool fresh = true;	/* no word on this line yet */

	while (*p == ' ')
		p++;
	while (*p != '\0') {
		int n = (int)strcspn(p, " ");

		if (!fresh && col + 1 + n > width) {
			fputc('\n', f);
			col = 0;
			fresh = true;
		}
		if (fresh)
			col += fprintf(f, "%*s", col < indent ? indent - col : 0, "");
		else
			col += fprintf(f, " ");
		col += fprintf(f, "%.*s", n, p);
		fresh = false;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static void
help_one(const struct rxr_opt *o, bool shorts, FILE *f)
{
	char text[4096];
	int col;

	if (o->short_name != 0)
		col = fprintf(f, "  -%c, --%s", o->short_name, o->name);
	else
		col = fprintf(f, shorts ? "      --%s" : "  --%s", o->name);
	if (o->arg != NULL)
		col += fprintf(f, " %s", o->arg);
	if (col + 2 > HELP_COL) {
		fputc('\n', f);
		col = 0;
	}
	if (o->def != NULL)
		snprintf(text, sizeof(text), "%s (default %s)", o->help, o->def);
	else
		snprintf(text, sizeof(text), "%s", o->help);
	wrap_from(f, text, col, HELP_COL, HELP_WIDTH);
}

void
rxr_opt_help(const struct rxr_opt_table *t, FILE *f)
{
	unsigned int order[RXR_OPT_MAX];
	const char *section = NULL;
	bool shorts = false;

	if (t->nb > RXR_OPT_MAX)
		return;
	for (unsigned int i = 0; i < t->nb; i++)
		shorts |= t->opts[i].short_name != 0;
	help_order(t, order);
	for (unsigned int k = 0; k < t->nb; k++) {
		const struct rxr_opt *o = &t->opts[order[k]];

		if (section == NULL || strcmp(section, o->section) != 0) {
			fprintf(f, "%s%s:\n", section != NULL ? "\n" : "",
				o->section);
			section = o->section;
		}
		help_one(o, shorts, f);
	}
}

static const char *
field(const char *s)
{
	return s != NULL && s[0] != '\0' ? s : "-";
}

int
rxr_opt_print_table(const struct rxr_opt_table *t, FILE *f, char *err,
		size_t errlen)
{
	unsigned int order[RXR_OPT_MAX];

	if (table_check(t, err, errlen) != 0)
		return -1;
	help_order(t, order);
	fprintf(f, "# options-table 1 %s\n", t->prog);
	for (unsigned int k = 0; k < t->nb; k++) {
		const struct rxr_opt *o = &t->opts[order[k]];
		char sn[2] = { o->short_name, '\0' };

		fprintf(f, "%s\t%s\t%s\t%s\t", o->name, field(sn),
			field(o->arg), field(o->def));
		/* An enum completes with its names unless told otherwise. */
		if (o->complete == NULL && o->type == RXR_OPT_ENUM)
			for (unsigned int v = 0; o->names[v] != NULL; v++)
				fprintf(f, "%s%s", v == 0 ? "words:" : ",",
					o->names[v]);
		else
			fputs(o->complete != NULL ? o->complete : "none", f);
		fprintf(f, "\t%s\t%s\n", field(o->section), field(o->help));
	}
	return 0;
}

bool
rxr_opt_table_asked(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], RXR_OPT_TABLE_OPTION) == 0)
			return true;
	return false;
}
