/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_OPT_H
#define RXR_OPT_H

/**
 * @file
 * Options declared once, in a table: getopt_long, typed parsing with its
 * messages, the defaults, --help and --options-table (man page,
 * completion) come from it. No DPDK.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** At most this many options in one table. */
#define RXR_OPT_MAX 64

/** The hidden option that prints the table (rxr_opt_print_table()). */
#define RXR_OPT_TABLE_OPTION "--options-table"

/** A setter's return: stop parsing, successfully (--help, --version). */
#define RXR_OPT_STOP 1
/** rxr_opt_parse(): a setter refused its value. */
#define RXR_OPT_BAD_VALUE (-1)
/** rxr_opt_parse(): an unknown option, or one without its value. */
#define RXR_OPT_BAD_OPTION (-2)

/** Apply an option's @p arg (NULL: none given) to @p ctx: 0,
 * RXR_OPT_STOP, or -1 with @p err naming the option and value. */
typedef int (*rxr_opt_set_t)(void *ctx, const char *arg, char *err,
		size_t errlen);

/** What an option stores at its field, checked with the table's message. */
enum rxr_opt_type {
	RXR_OPT_CALL,	/**< set() does it all */
	RXR_OPT_FLAG,	/**< the value min, whatever the argument */
	RXR_OPT_UINT,	/**< a decimal whole number in min..max */
	RXR_OPT_NUMBER,	/**< a decimal number (of unit) in dmin..dmax */
	RXR_OPT_ENUM,	/**< the index of the argument in names */
	RXR_OPT_PATH,	/**< the argument, not empty */
	RXR_OPT_STR,	/**< the argument */
};

/** One option. */
struct rxr_opt {
	const char *name;	/**< long name without "--" */
	char short_name;	/**< one letter, or 0 */
	const char *arg;	/**< metavar, "[N]" optional; NULL: none */
	const char *def;	/**< default as typed (parsed, and in --help) */
	const char *complete;	/**< "file", "words:a,b"...; NULL: by type */
	const char *section;	/**< --help heading */
	const char *help;	/**< one line: no tab, no newline */
	rxr_opt_set_t set;	/**< CALL: the setter; else run after the store */
	unsigned int flags;	/**< the program's own marks; not read here */
	enum rxr_opt_type type;
	size_t off;		/**< the field's offset in ctx (not CALL) */
	size_t size;		/**< its size: a whole number, enum or bool */
	uint64_t min, max;	/**< FLAG: min is the value; UINT: range */
	double dmin, dmax;	/**< NUMBER: range */
	const char *unit;	/**< NUMBER: "seconds", or NULL */
	const char * const *names;	/**< ENUM: NULL-terminated */
};

/** Field @p m of @p ctx (a type), for the typed initializers below. */
#define RXR_OPT_AT(ctx, m) \
	.off = offsetof(ctx, m), .size = sizeof(((ctx *)0)->m)
/** Typed option initializers (after the positional help text). */
#define RXR_OPT_FLAG_OF(ctx, m, v) \
	.type = RXR_OPT_FLAG, RXR_OPT_AT(ctx, m), .min = (v)
#define RXR_OPT_UINT_OF(ctx, m, lo, hi) \
	.type = RXR_OPT_UINT, RXR_OPT_AT(ctx, m), .min = (lo), .max = (hi)
#define RXR_OPT_NUMBER_OF(ctx, m, lo, hi, u) \
	.type = RXR_OPT_NUMBER, RXR_OPT_AT(ctx, m), .dmin = (lo), \
	.dmax = (hi), .unit = (u)
#define RXR_OPT_ENUM_OF(ctx, m, list) \
	.type = RXR_OPT_ENUM, RXR_OPT_AT(ctx, m), .names = (list)
#define RXR_OPT_PATH_OF(ctx, m) .type = RXR_OPT_PATH, RXR_OPT_AT(ctx, m)
#define RXR_OPT_STR_OF(ctx, m) .type = RXR_OPT_STR, RXR_OPT_AT(ctx, m)

/** A program's options. */
struct rxr_opt_table {
	const char *prog;		/**< program name */
	const struct rxr_opt *opts;
	unsigned int nb;
};

/**
 * Check the table as rxr_opt_print_table() does, apply every default as if
 * given, in table order, then parse argv (optind reset) calling setters in
 * command-line order; operands stay at argv[optind..argc).
 * RXR_OPT_TABLE_OPTION anywhere: only print the table (RXR_OPT_STOP).
 * @param seen NULL, or t->nb ranks (1, 2, ...) of each option's first use.
 * @return 0, RXR_OPT_STOP, RXR_OPT_BAD_VALUE or RXR_OPT_BAD_OPTION (with
 *   err).
 */
int rxr_opt_parse(const struct rxr_opt_table *t, void *ctx, int argc,
		char **argv, unsigned int *seen, char *err, size_t errlen);

/** A decimal whole number ("010" is ten) in min..max for option --name:
 * 0, or -1 with err naming both. */
int rxr_opt_uint(const char *name, const char *s, uint64_t min, uint64_t max,
		uint64_t *v, char *err, size_t errlen);

/** A decimal number (no hex, inf or nan) in min..max, of @p unit (NULL:
 * none), as rxr_opt_uint(). */
int rxr_opt_number(const char *name, const char *s, double min, double max,
		const char *unit, double *v, char *err, size_t errlen);

/** The index of the option named exactly @p name, or -1. */
int rxr_opt_find(const struct rxr_opt_table *t, const char *name);

/** --help: options by section, help wrapped at 80 columns, defaults. */
void rxr_opt_help(const struct rxr_opt_table *t, FILE *f);

/**
 * --options-table: "# options-table 1 PROG", then per option LONG SHORT
 * ARG DEFAULT COMPLETE SECTION HELP, tab separated, '-' when empty.
 * @return 0, or -1 naming the faulty option in err (nothing printed).
 */
int rxr_opt_print_table(const struct rxr_opt_table *t, FILE *f, char *err,
		size_t errlen);

/** true when argv holds RXR_OPT_TABLE_OPTION anywhere. */
bool rxr_opt_table_asked(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* RXR_OPT_H */
