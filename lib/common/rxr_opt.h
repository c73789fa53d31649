/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_OPT_H
#define RXR_OPT_H

/**
 * @file
 * Options declared once: a program lists its options in one table, and
 * the parser (getopt_long), the defaults, --help and --options-table (the
 * text the man page and the bash completion are made from, see
 * doc/design.md) all come from it. No DPDK: rxrefill-gen and
 * rxrefill-compare use it too.
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

/**
 * Apply an option's argument to the program's context.
 * @param ctx the context given to rxr_opt_parse() or rxr_opt_defaults().
 * @param arg the argument, NULL for an option that takes none (or an
 *   optional argument that was not given).
 * @param err where to write a message naming the option and the value
 *   on failure.
 * @return 0, RXR_OPT_STOP, or -1 with a message in err.
 */
typedef int (*rxr_opt_set_t)(void *ctx, const char *arg, char *err,
		size_t errlen);

/** One option. */
struct rxr_opt {
	const char *name;	/**< long name without "--" */
	char short_name;	/**< one letter, or 0 */
	/** Metavar ("N", "FILE"); "[N]" for an optional argument; NULL
	 * for an option that takes none. */
	const char *arg;
	/** Default as a user types it, applied through set() by
	 * rxr_opt_defaults() and shown by --help; NULL: none. */
	const char *def;
	/** Completion kind: "file", "words:a,b", "list:a,b", ... (the
	 * options-table contract in doc/design.md); NULL: "none". */
	const char *complete;
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
	/**
	 * true: getopt_long stays silent and rxr_opt_parse() writes its
	 * message ("unknown option '--x'") to err; false: getopt_long
	 * prints its own and err is left empty.
	 */
	bool quiet;
};

/**
 * Apply every option's default (rxr_opt::def) through its setter, in
 * table order. A default the setter refuses is a bug in the table.
 * @return 0, or -1 with a message in err.
 */
int rxr_opt_defaults(const struct rxr_opt_table *t, void *ctx, char *err,
		size_t errlen);

/**
 * Parse argv with getopt_long (from its start: optind is reset),
 * calling each given option's setter in command-line order. Operands are
 * left at argv[optind..argc).
 * @param seen NULL, or t->nb entries: seen[i] is set to the rank (1, 2,
 *   ...) of the first time option i was given, and stays 0 for one never
 *   given.
 * @return 0; RXR_OPT_STOP when a setter asked to stop; RXR_OPT_BAD_VALUE
 *   with the setter's message in err; RXR_OPT_BAD_OPTION with a message
 *   in err, or an empty one when getopt_long printed its own (see quiet).
 */
int rxr_opt_parse(const struct rxr_opt_table *t, void *ctx, int argc,
		char **argv, unsigned int *seen, char *err, size_t errlen);

/** The index of the option named exactly @p name, or -1. */
int rxr_opt_find(const struct rxr_opt_table *t, const char *name);

/**
 * Print the options for --help: under each section heading (in the
 * order sections first appear), every option of it with its help text
 * wrapped within 80 columns and "(default X)" from rxr_opt::def.
 */
void rxr_opt_help(const struct rxr_opt_table *t, FILE *f);

/**
 * Print the table for --options-table: "# options-table 1 PROG", then
 * one line per option in --help order, LONG SHORT ARG DEFAULT COMPLETE
 * SECTION HELP separated by tabs, '-' for a field that is empty. A table
 * that is not right (names and letters unique, every text one line
 * without tabs, the name, section and help given, a setter for each) is
 * not printed.
 * @return 0, or -1 with a message naming the option in err.
 */
int rxr_opt_print_table(const struct rxr_opt_table *t, FILE *f, char *err,
		size_t errlen);

/** true when argv holds RXR_OPT_TABLE_OPTION anywhere. */
bool rxr_opt_table_asked(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* RXR_OPT_H */
