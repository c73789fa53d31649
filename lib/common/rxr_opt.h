/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_OPT_H
#define RXR_OPT_H

/**
 * @file
 * Options declared once, in a table: getopt_long, the defaults, --help and
 * --options-table (man page, completion) come from it. No DPDK.
 */

#include <stdbool.h>
#include <stddef.h>
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

/** One option. */
struct rxr_opt {
	const char *name;	/**< long name without "--" */
	char short_name;	/**< one letter, or 0 */
	const char *arg;	/**< metavar, "[N]" optional; NULL: none */
	const char *def;	/**< default as typed (set() and --help) */
	const char *complete;	/**< "file", "words:a,b", ...; NULL: none */
	const char *section;	/**< --help heading */
	const char *help;	/**< one line: no tab, no newline */
	rxr_opt_set_t set;	/**< never NULL */
	unsigned int flags;	/**< the program's own marks; not read here */
};

/** A program's options. */
struct rxr_opt_table {
	const char *prog;		/**< program name */
	const struct rxr_opt *opts;
	unsigned int nb;
	bool quiet;	/**< errors to err, not by getopt_long to stderr */
};

/** Apply every default through its setter, in table order: 0 or -1. */
int rxr_opt_defaults(const struct rxr_opt_table *t, void *ctx, char *err,
		size_t errlen);

/**
 * Parse argv (optind reset) calling setters in command-line order;
 * operands stay at argv[optind..argc).
 * @param seen NULL, or t->nb ranks (1, 2, ...) of each option's first use.
 * @return 0, RXR_OPT_STOP, RXR_OPT_BAD_VALUE or RXR_OPT_BAD_OPTION (with
 *   err, empty when getopt_long printed its own).
 */
int rxr_opt_parse(const struct rxr_opt_table *t, void *ctx, int argc,
		char **argv, unsigned int *seen, char *err, size_t errlen);

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
