/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The option table (lib/common/rxr_opt.h): defaults applied by the parse,
 * parsing and its messages, --help within 80 columns with each default
 * once, --options-table in the contract's format.
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rxr_opt.h"
#include "rxr_test.h"

#define NB_OPTS 5

struct ctx {
	unsigned long n;
	const char *name;
	bool flag;
	int calls;
};

static int
set_n(void *c, const char *arg, char *err, size_t errlen)
{
	struct ctx *x = c;
	char *end;

	x->calls++;
	x->n = strtoul(arg, &end, 10);
	if (*end != '\0' || end == arg) {
		snprintf(err, errlen, "--count: '%s' is not a number", arg);
		return -1;
	}
	return 0;
}

static int
set_name(void *c, const char *arg, char *err, size_t errlen)
{
	((struct ctx *)c)->name = arg;
	return 0;
}

static int
set_flag(void *c, const char *arg, char *err, size_t errlen)
{
	((struct ctx *)c)->flag = arg == NULL;
	return 0;
}

static int
set_stop(void *c, const char *arg, char *err, size_t errlen)
{
	return RXR_OPT_STOP;
}

/* Sections interleaved on purpose: --help groups them. */
static const struct rxr_opt opts[] = {
	{ "count", 'c', "N", "7", NULL, "Numbers", "how many", set_n, 0 },
	{ "name", 0, "WORD", "abc", "words:abc,def", "Words",
		"a name, one of two words, with a help text long enough to "
		"be wrapped on more than one line of the output", set_name, 0 },
	{ "a-very-long-option-name", 'v', "SOMETHING", NULL, NULL, "Numbers",
		"its help starts on a line of its own", set_flag, 0 },
	{ "flag", 'f', NULL, NULL, NULL, "Words", "a flag", set_flag, 0 },
	{ "stop", 0, NULL, NULL, NULL, "Other", "stops", set_stop, 0 },
};

static const struct rxr_opt_table table = { "test_opt", opts, NB_OPTS };

/* What --help (table false) or --options-table (true) prints. */
static char *
capture(const struct rxr_opt_table *t, bool as_table)
{
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	if (as_table && rxr_opt_print_table(t, f, err, sizeof(err)) != 0)
		fprintf(f, "%s", err);
	else if (!as_table)
		rxr_opt_help(t, f);
	fclose(f);
	return buf;
}

static int
test_defaults_and_parse(void)
{
	struct ctx x = { 0 };
	char err[256];
	unsigned int seen[NB_OPTS] = { 0 };
	char *argv[] = { "prog", "--name", "def", "-c", "42", "-f", "op",
		"--count=9", NULL };
	int ret;

	RXR_TEST_ASSERT(rxr_opt_parse(&table, &x, 1, argv, NULL, err,
		sizeof(err)) == 0, "%s", err);
	RXR_TEST_ASSERT_EQ(x.n, 7, "default count");
	RXR_TEST_ASSERT(x.name != NULL && strcmp(x.name, "abc") == 0,
		"default name %s", x.name);
	ret = rxr_opt_parse(&table, &x, 8, argv, seen, err, sizeof(err));
	RXR_TEST_ASSERT_EQ(ret, 0, "parse");
	RXR_TEST_ASSERT_EQ(x.n, 9, "the last --count wins");
	RXR_TEST_ASSERT(strcmp(x.name, "def") == 0, "name %s", x.name);
	RXR_TEST_ASSERT(x.flag, "-f");
	RXR_TEST_ASSERT_EQ(seen[1], 1, "--name given first");
	RXR_TEST_ASSERT_EQ(seen[0], 2, "--count second");
	RXR_TEST_ASSERT_EQ(seen[3], 3, "-f third");
	RXR_TEST_ASSERT_EQ(seen[2], 0, "-v never");
	RXR_TEST_ASSERT(optind == 7 && strcmp(argv[optind], "op") == 0,
		"operand at %d", optind);
	return 0;
}

static int
parse_error(char **argv, int argc, const char *want)
{
	struct ctx x = { 0 };
	char err[256];
	int ret = rxr_opt_parse(&table, &x, argc, argv, NULL, err, sizeof(err));

	RXR_TEST_ASSERT_EQ(ret, strncmp(want, "--", 2) == 0 ?
		RXR_OPT_BAD_VALUE : RXR_OPT_BAD_OPTION, want);
	RXR_TEST_ASSERT(strcmp(err, want) == 0, "'%s', not '%s'", err, want);
	return 0;
}

static int
test_errors(void)
{
	char *a1[] = { "prog", "--bogus", NULL };
	char *a2[] = { "prog", "-x", NULL };
	char *a3[] = { "prog", "--count", NULL };
	char *a4[] = { "prog", "-c", "x1", NULL };
	char *a5[] = { "prog", "--flag=1", NULL };
	char *a6[] = { "prog", "--stop", "--bogus", NULL };
	char *a7[] = { "prog", "--fla=1", NULL };
	struct ctx x = { 0 };
	char err[256];

	if (parse_error(a1, 2, "unknown option '--bogus'") != 0 ||
			parse_error(a2, 2, "unknown option '-x'") != 0 ||
			parse_error(a3, 2, "option '--count' needs a value") != 0 ||
			parse_error(a4, 3, "--count: 'x1' is not a number") != 0 ||
			parse_error(a5, 2, "option '--flag' takes no value") != 0 ||
			parse_error(a7, 2, "unknown option '--fla=1'") != 0)
		return -1;
	RXR_TEST_ASSERT_EQ(rxr_opt_parse(&table, &x, 3, a6, NULL, err,
		sizeof(err)), RXR_OPT_STOP, "a setter stops the parse");
	RXR_TEST_ASSERT_EQ(rxr_opt_find(&table, "flag"), 3, "find");
	RXR_TEST_ASSERT_EQ(rxr_opt_find(&table, "fla"), -1, "exact names");
	return 0;
}

static int
test_help(void)
{
	char *h = capture(&table, false), *line, *save = NULL;
	const char *numbers, *words, *other;
	int lines = 0;

	RXR_TEST_ASSERT(h != NULL, "no help");
	numbers = strstr(h, "Numbers:\n");
	words = strstr(h, "\nWords:\n");
	other = strstr(h, "\nOther:\n");
	RXR_TEST_ASSERT(numbers == h && words != NULL && other != NULL &&
		words < other, "sections in order of appearance:\n%s", h);
	RXR_TEST_ASSERT(strstr(h, "-v, --a-very-long-option-name") < words,
		"the options of a section together:\n%s", h);
	RXR_TEST_ASSERT(strstr(h, "  -c, --count N          how many "
		"(default 7)\n") != NULL, "label, text and default:\n%s", h);
	RXR_TEST_ASSERT(strstr(h, "SOMETHING\n                         its "
		"help") != NULL, "a long label on its own line:\n%s", h);
	RXR_TEST_ASSERT(strstr(h, "      --name WORD") != NULL,
		"long-only aligned with the short ones:\n%s", h);
	RXR_TEST_ASSERT(strstr(h, "(default abc)") != NULL &&
		strstr(strstr(h, "(default abc)") + 13, "abc") == NULL,
		"the default once:\n%s", h);
	for (line = strtok_r(h, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save), lines++)
		RXR_TEST_ASSERT(strlen(line) < 80, "80 columns or more: '%s'",
			line);
	RXR_TEST_ASSERT(lines >= 9, "%d lines: the long text wrapped", lines);
	free(h);
	return 0;
}

static int
test_table(void)
{
	char *s = capture(&table, true);
	static const char *const want[] = {
		"# options-table 1 test_opt",
		"count\tc\tN\t7\tnone\tNumbers\thow many",
		"a-very-long-option-name\tv\tSOMETHING\t-\tnone\tNumbers\t"
			"its help starts on a line of its own",
		"name\t-\tWORD\tabc\twords:abc,def\tWords\ta name, one of two "
			"words, with a help text long enough to be wrapped on "
			"more than one line of the output",
		"flag\tf\t-\t-\tnone\tWords\ta flag",
		"stop\t-\t-\t-\tnone\tOther\tstops",
	};
	char *line, *save = NULL;
	unsigned int i = 0;

	RXR_TEST_ASSERT(s != NULL, "no table");
	for (line = strtok_r(s, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save), i++) {
		RXR_TEST_ASSERT(i < sizeof(want) / sizeof(want[0]),
			"extra line '%s'", line);
		RXR_TEST_ASSERT(strcmp(line, want[i]) == 0, "'%s', not '%s'",
			line, want[i]);
	}
	RXR_TEST_ASSERT_EQ(i, sizeof(want) / sizeof(want[0]), "lines");
	free(s);
	return 0;
}

/* Typed options: stored at their field, refused with the table's words. */
struct typed_ctx {
	uint32_t n;
	uint64_t big;
	double sec;
	int mode;
	bool flag;
	const char *path;
};

static const char * const modes[] = { "one", "two", "three", NULL };

static const struct rxr_opt typed_opts[] = {
	{ "n", 0, "N", "5", NULL, "T", "n",
		RXR_OPT_UINT_OF(struct typed_ctx, n, 1, 9) },
	{ "big", 0, "N", NULL, NULL, "T", "big",
		RXR_OPT_UINT_OF(struct typed_ctx, big, 0, UINT64_MAX) },
	{ "sec", 0, "SEC", "0.5", NULL, "T", "sec",
		RXR_OPT_NUMBER_OF(struct typed_ctx, sec, 0, 10,
			"seconds") },
	{ "mode", 0, "M", "two", NULL, "T", "mode",
		RXR_OPT_ENUM_OF(struct typed_ctx, mode, modes) },
	{ "flag", 0, NULL, NULL, NULL, "T", "flag",
		RXR_OPT_FLAG_OF(struct typed_ctx, flag, true) },
	{ "path", 0, "FILE", NULL, "file", "T", "path",
		RXR_OPT_PATH_OF(struct typed_ctx, path) },
};

static const struct rxr_opt_table typed_table = { "typed", typed_opts,
	sizeof(typed_opts) / sizeof(typed_opts[0]) };

static int
check_refused(const struct rxr_opt *o, unsigned int n, const char *want)
{
	const struct rxr_opt_table t = { "bad", o, n };
	char *out = capture(&t, true);

	/* Refused: the message in place of the table. */
	RXR_TEST_ASSERT(out != NULL && strstr(out, want) != NULL &&
		strstr(out, "# options-table") == NULL, "'%s' lacks '%s'", out,
		want);
	free(out);
	return 0;
}

static int
test_check(void)
{
	const struct rxr_opt twice[] = { opts[0], opts[1], opts[0] };
	struct rxr_opt letter[] = { opts[0], opts[1] }, tab[] = { opts[0] },
		none[] = { opts[0] }, small[] = { typed_opts[0] },
		wide[] = { typed_opts[2] };
	char *good = capture(&table, true);

	letter[1].short_name = 'c';
	tab[0].help = "a\ttab";
	none[0].section = NULL;
	small[0].max = 256;	/* a uint32_t holds it: refused as a byte */
	small[0].size = 1;
	wide[0].size = sizeof(float);	/* a double written into a float */
	RXR_TEST_ASSERT(good != NULL && strncmp(good, "# options-table", 15) ==
		0, "%s", good);
	free(good);
	return check_refused(twice, 3, "--count: its name or letter") ||
		check_refused(letter, 2, "--name: its name or letter") ||
		check_refused(tab, 1, "option 0 (count)") ||
		check_refused(none, 1, "option 0 (count)") ||
		check_refused(small, 1, "option 0 (n)") ||
		check_refused(wide, 1, "option 0 (sec)");
}

static int
typed_refused(const char *opt, const char *val, const char *want)
{
	struct typed_ctx x = { 0 };
	char *argv[] = { "prog", (char *)(uintptr_t)opt, (char *)(uintptr_t)val,
		NULL };
	char err[256];
	int ret = rxr_opt_parse(&typed_table, &x, 3, argv, NULL, err,
		sizeof(err));

	RXR_TEST_ASSERT(ret == RXR_OPT_BAD_VALUE, "%s %s: %d", opt, val, ret);
	RXR_TEST_ASSERT(strcmp(err, want) == 0, "'%s', not '%s'", err, want);
	return 0;
}

static int
test_typed(void)
{
	struct typed_ctx x = { 0 };
	char *argv[] = { "prog", "--n=09", "--big", "18446744073709551615",
		"--sec", "2.5e0", "--mode", "three", "--flag", "--path", "p",
		NULL };
	char err[256], *out;

	RXR_TEST_ASSERT(rxr_opt_parse(&typed_table, &x, 1, argv, NULL, err,
		sizeof(err)) == 0, "%s", err);
	RXR_TEST_ASSERT(x.n == 5 && x.sec == 0.5 && x.mode == 1 && !x.flag,
		"defaults %u %g %d", x.n, x.sec, x.mode);
	RXR_TEST_ASSERT(rxr_opt_parse(&typed_table, &x, 11, argv, NULL, err,
		sizeof(err)) == 0, "%s", err);
	RXR_TEST_ASSERT(x.n == 9 && x.big == UINT64_MAX && x.sec == 2.5 &&
		x.mode == 2 && x.flag && strcmp(x.path, "p") == 0,
		"%u %" PRIu64 " %g %d", x.n, x.big, x.sec, x.mode);
	out = capture(&typed_table, true);
	RXR_TEST_ASSERT(out != NULL && strstr(out, "mode\t-\tM\ttwo\t"
		"words:one,two,three\tT\tmode\n") != NULL,
		"an enum completes with its names:\n%s", out);
	free(out);
	return typed_refused("--n", "0x1", "--n: '0x1' is not a decimal "
			"whole number in 1..9") ||
		typed_refused("--n", "10", "--n: '10' is not a decimal whole "
			"number in 1..9") ||
		typed_refused("--sec", "inf", "--sec: 'inf' is not a decimal "
			"number of seconds in 0..10") ||
		typed_refused("--mode", "four", "--mode: 'four' is not one, "
			"two or three") ||
		typed_refused("--path", "", "--path: empty path");
}

static int
test_asked(void)
{
	char *a[] = { "prog", "-l", "0-1", "--", "--options-table", NULL };
	char *b[] = { "prog", "--options-tabl", NULL };

	RXR_TEST_ASSERT(rxr_opt_table_asked(5, a), "anywhere in argv");
	RXR_TEST_ASSERT(!rxr_opt_table_asked(2, b), "the exact word only");
	return 0;
}

int
main(void)
{
	rxr_test_run("defaults_and_parse", test_defaults_and_parse);
	rxr_test_run("errors", test_errors);
	rxr_test_run("help", test_help);
	rxr_test_run("table", test_table);
	rxr_test_run("check", test_check);
	rxr_test_run("typed", test_typed);
	rxr_test_run("asked", test_asked);
	return rxr_test_done();
}
