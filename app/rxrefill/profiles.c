/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * --profile NAME: a file, or a profile installed under share/rxrefill;
 * its lines are options without their leading '--'.
 */

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>

#include "rxr_opt.h"
#include "rxr_path.h"
#include "rxrefill.h"
#include "rxr_log.h"

static bool
try_dir(const char *dir, const char *name, char *buf, size_t len)
{
	return ((size_t)snprintf(buf, len, "%s/%s.profile", dir, name) < len &&
			access(buf, F_OK) == 0) ||
		((size_t)snprintf(buf, len, "%s/%s", dir, name) < len &&
			access(buf, F_OK) == 0);
}

/*
 * A --profile argument: a path or an existing file as given, else NAME of
 * an installed profile, next to the program first (a relocated install
 * finds its own). NULL, said, when NAME is found nowhere.
 */
static const char *
profile_find(const char *name, char *buf, size_t len)
{
	char dir[PATH_MAX + 64] = "", exe[PATH_MAX];
	ssize_t n;
	int err;

	if (strchr(name, '/') != NULL || access(name, F_OK) == 0 ||
			name[0] == '\0')
		return name;
	err = errno;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		snprintf(dir, sizeof(dir), "%s/%s", dirname(exe),
			RXR_PROFILE_RELDIR);
		if (try_dir(dir, name, buf, len))
			return buf;
	}
	if (try_dir(RXR_PROFILE_DIR, name, buf, len))
		return buf;
	/* Not there for another reason: the caller's error names it. */
	if (err != ENOENT)
		return name;
	RXR_LOG(ERR, "--profile %s: no such file, and no %s.profile among the "
		"installed profiles (%s%s%s)", name, name, dir,
		dir[0] != '\0' ? ", " : "", RXR_PROFILE_DIR);
	return NULL;
}

/* Arguments read from a profile live as long as the options that point in. */
void
opts_args_free(struct opts_args *a)
{
	for (int i = 0; i < a->argc; i++)
		free(a->argv[i]);
	free(a->argv);
	free(a->from);
	memset(a, 0, sizeof(*a));
}

int
opts_args_push(struct opts_args *a, const char *s, const char *file,
		unsigned int line)
{
	if (a->argc + 2 > a->cap) {
		int cap = a->cap != 0 ? 2 * a->cap : 16;
		char **nv = realloc(a->argv, cap * sizeof(*nv));
		struct opts_arg_from *nf;

		if (nv == NULL)
			return -1;
		a->argv = nv;
		nf = realloc(a->from, cap * sizeof(*nf));
		if (nf == NULL)
			return -1;
		a->from = nf;
		a->cap = cap;
	}
	a->from[a->argc] = (struct opts_arg_from){ file, line };
	a->argv[a->argc] = strdup(s);
	if (a->argv[a->argc] == NULL)
		return -1;
	a->argv[++a->argc] = NULL;
	return 0;
}

/*
 * A line names an option of the table in full, with a value when the
 * option takes one and without when it takes none.
 */
static int
profile_line_check(const struct rxr_opt_table *t, const char *file,
		unsigned int line, const char *name, bool has_value)
{
	int i = rxr_opt_find(t, name);
	const struct rxr_opt *o = i >= 0 ? &t->opts[i] : NULL;

	if (o == NULL) {
		RXR_LOG(ERR, "--profile %s:%u: unknown option '%s'; see --help",
			file, line, name);
		return -1;
	}
	if (o->arg != NULL && o->arg[0] != '[' && !has_value) {
		RXR_LOG(ERR, "--profile %s: '%s' needs a value on its line "
			"('%s VALUE')", file, name, name);
		return -1;
	}
	if (o->arg == NULL && has_value) {
		RXR_LOG(ERR, "--profile %s:%u: '%s' takes no value", file,
			line, name);
		return -1;
	}
	return 0;
}

/* Line number @p line of profile @p name, @p n bytes at @p l. */
static int
profile_line(const struct rxr_opt_table *t, const char *l, size_t n,
		const char *name, unsigned int line, struct opts_args *a)
{
	size_t k, v;
	char opt[64], *w;
	int ret;

	/* Control characters other than tabs and CRLF: not text (a message
	 * would echo them to the terminal). */
	for (k = 0; k < n; k++) {
		unsigned char c = (unsigned char)l[k];

		if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') ||
				c == 0x7f) {
			RXR_LOG(ERR, "--profile %s:%u: not a text file "
				"(byte 0x%02x)", name, line, c);
			return -1;
		}
	}
	/* Trim, drop comments. */
	for (k = 0; k < n && l[k] != '#'; k++)
		;
	n = k;
	while (n > 0 && strchr(" \t\r\n", l[n - 1]) != NULL)
		n--;
	for (k = 0; k < n && strchr(" \t", l[k]) != NULL; k++)
		;
	if (k == n)
		return 0;
	for (v = k; v < n && strchr(" \t=", l[v]) == NULL; v++)
		;
	if (v - k + 3 > sizeof(opt) || (l[k] == '-')) {
		RXR_LOG(ERR, "--profile %s:%u: '%.*s' is not an option "
			"name (write options without the leading '--')", name,
			line, (int)RTE_MIN(v - k, (size_t)60), l + k);
		return -1;
	}
	snprintf(opt, sizeof(opt), "--%.*s", (int)(v - k), l + k);
	while (v < n && strchr(" \t=", l[v]) != NULL)
		v++;
	if (profile_line_check(t, name, line, opt + 2, v < n) != 0)
		return -1;
	/*
	 * One word, "--name=value" with the whole name: a line never lends
	 * its option the next word of the command line.
	 */
	if (asprintf(&w, "%s%s%.*s", opt, v < n ? "=" : "", (int)(n - v),
			l + v) < 0)
		return -1;
	ret = opts_args_push(a, w, name, line);
	free(w);
	return ret;
}

int
opts_profile_parse(const struct rxr_opt_table *t, FILE *f, const char *name,
		struct opts_args *a)
{
	unsigned int line = 0;
	size_t cap = 0;
	char *l = NULL;
	ssize_t n;
	int ret = 0;

	while (ret == 0 && (n = getline(&l, &cap, f)) > 0)
		ret = profile_line(t, l, n, name, ++line, a);
	free(l);
	return ret;
}

int
opts_profile_load(const struct rxr_opt_table *t, const char *name,
		struct opts_args *a)
{
	char found[PATH_MAX], err[PATH_MAX + 128];
	const char *path = profile_find(name, found, sizeof(found));
	int ret, first;
	FILE *f;

	if (path == NULL)
		return -1;
	/* A directory is no empty profile, and a FIFO would block. */
	if (rxr_path_check_input("--profile", path, err, sizeof(err)) != 0) {
		RXR_LOG(ERR, "%s", err);
		return -1;
	}
	f = fopen(path, "r");
	if (f == NULL) {
		RXR_LOG(ERR, "--profile %s: %s", path, strerror(errno));
		return -1;
	}
	first = a->argc;
	ret = opts_profile_parse(t, f, path, a);
	fclose(f);
	/* path may be found[] here: the words keep the name as given. */
	for (int i = first; i < a->argc; i++)
		a->from[i].file = name;
	return ret;
}
