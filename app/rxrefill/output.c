/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The report's path: checked before EAL starts (never a device, a FIFO, a
 * directory or one of the inputs; a writable directory with room), first
 * written when a repetition has completed, so a session that fails early
 * leaves an existing report as it was; "-" is standard output. The
 * --metrics-file path is checked here too, against the same inputs.
 */

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "rxr_path.h"
#include "rxrefill.h"
#include "rxr_log.h"

/* Room a report takes: a few KiB per repetition, more with streams. */
#define REPORT_BYTES_BASE 16384u
#define REPORT_BYTES_PER_RUN 65536u

static const char *report_path;	/* --report */
static FILE *report_stdout;	/* "-": the real standard output */
static bool report_failed;	/* a write failed: said once, not retried */
static bool report_written;

int
output_check(const struct options *o, unsigned int std_closed)
{
	const char *inputs[MAX_REPLAY_FILES + MAX_PROFILES + 1];
	unsigned int n = 0;
	char err[PATH_MAX + 256];
	uint64_t need = REPORT_BYTES_BASE +
		(uint64_t)REPORT_BYTES_PER_RUN * o->nb_configs * o->reps;
	int fd;

	for (unsigned int i = 0; i < o->nb_replay; i++)
		inputs[n++] = o->replay[i];
	for (unsigned int i = 0; i < o->nb_profiles; i++)
		inputs[n++] = o->profiles[i];
	if (rxr_path_check_output("--report", o->report_path, inputs, n, need,
			err, sizeof(err)) != 0) {
		RXR_LOG(ERR, "%s", err);
		return -1;
	}
	if (o->nb_configs == 0) {
		RXR_LOG(ERR, "no strategy configuration to run");
		return -1;
	}
	report_path = o->report_path;
	if (rxr_path_is_stdout(report_path)) {
		if (std_closed & (1u << STDOUT_FILENO)) {
			RXR_LOG(ERR, "--report -: standard output is closed");
			return -1;
		}
		/* Standard output carries the report alone: everything else
		 * printed there goes to standard error from now on. */
		fflush(stdout);
		fd = dup(STDOUT_FILENO);
		if (fd < 0 || (report_stdout = fdopen(fd, "w")) == NULL ||
				dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			RXR_LOG(ERR, "--report -: %s", strerror(errno));
			return -1;
		}
	}
	if (o->metrics_path == NULL)
		return 0;
	if (rxr_path_is_stdout(o->metrics_path)) {
		RXR_LOG(ERR, "--metrics-file -: rewritten every period, it needs "
			"a file");
		return -1;
	}
	/* Two writers of one file, however either is spelled. */
	if (rxr_path_same(o->metrics_path, o->report_path)) {
		RXR_LOG(ERR, "--metrics-file %s: is also the --report file",
			o->metrics_path);
		return -1;
	}
	inputs[n++] = o->report_path;
	if (rxr_path_check_output("--metrics-file", o->metrics_path, inputs, n,
			64 * 1024, err, sizeof(err)) != 0) {
		RXR_LOG(ERR, "%s", err);
		return -1;
	}
	return 0;
}

/* Runs that were not cut short. */
static unsigned int
complete_runs(const struct rxr_report *rep)
{
	return rxr_report_nb_runs(rep) - rxr_report_nb_cut_short(rep);
}

int
output_write(struct rxr_report *rep, bool partial, bool final)
{
	char err[RXR_REPORT_ERR_LEN];
	json_t *doc;

	/* No repetition ran to its end: leave what is at the path as it is. */
	if (report_failed || complete_runs(rep) == 0)
		return report_failed ? -1 : 0;
	rxr_report_set_partial(rep, partial);
	if (report_stdout == NULL) {
		if (rxr_report_write_atomic(rep, report_path, err,
				sizeof(err)) != 0)
			goto fail;
	} else if (final) {
		/* One document on a stream: the last one only. */
		doc = rxr_report_json(rep);
		if (rxr_report_validate(doc, "report", err, sizeof(err)) != 0)
			goto fail;
		errno = 0;
		if (json_dumpf(doc, report_stdout, JSON_INDENT(2) |
					JSON_REAL_PRECISION(12)) != 0 ||
				fputc('\n', report_stdout) == EOF ||
				fflush(report_stdout) != 0) {
			snprintf(err, sizeof(err), "cannot write report to "
				"standard output: %s",
				strerror(errno != 0 ? errno : EIO));
			goto fail;
		}
	} else {
		return 0;
	}
	report_written = true;
	return 0;
fail:
	RXR_LOG(ERR, "%s%s", err, final ? "" :
		"; the runs go on, the report will not be written again");
	report_failed = true;
	return -1;
}

/* The last line: where the report is, or why there is none. */
void
output_say(const struct rxr_report *rep, bool interrupted)
{
	/* An earlier write may still be there (a later one found the disk
	 * full), or gone with its directory. */
	if (report_failed && report_written && report_stdout == NULL &&
			access(report_path, F_OK) == 0)
		RXR_LOG(ERR, "report %s holds only the runs before the write "
			"that failed (see above; partial: true)",
			report_path);
	else if (report_failed)
		RXR_LOG(ERR, "no report written (see above)");
	else if (!report_written && complete_runs(rep) == 0)
		RXR_LOG(ERR, "no repetition completed: no report "
			"written%s", rxr_path_is_stdout(report_path) ?
			"" : ", the path was left as it was");
	else
		printf(APP ": report %s%s\n", rxr_path_is_stdout(report_path) ?
			"written to standard output" : report_path,
			interrupted ? " (partial: interrupted)" : "");
	fflush(stdout);
}

/* Lines within this many columns, as the brief table. */
#define SAY_COLUMNS 120

/* The last occurrence of sep in text[0, room), or NULL. */
static const char *
last_cut(const char *text, const char *sep, size_t room)
{
	const char *cut = NULL, *p;

	for (p = strstr(text, sep); p != NULL && (size_t)(p - text) < room;
			p = strstr(p + 1, sep))
		cut = p;
	return cut;
}

/*
 * prefix and text on one line, or broken to fit SAY_COLUMNS: after "; "
 * when one fits, else at a space; a word longer than a line stays whole.
 */
void
say_wrapped(const char *prefix, const char *text)
{
	size_t room = SAY_COLUMNS - RTE_MIN(strlen(prefix),
		(size_t)SAY_COLUMNS / 2);

	while (strlen(text) > room) {
		const char *cut = last_cut(text, "; ", room);
		size_t keep = 1;	/* the ';' */

		if (cut == NULL) {
			cut = last_cut(text, " ", room + 1);
			keep = 0;
		}
		if (cut == NULL || cut == text)
			break;
		printf("%s%.*s\n", prefix, (int)(cut - text + keep), text);
		text = cut + keep + 1;
		prefix = "  ";
		room = SAY_COLUMNS - 2;
	}
	printf("%s%s\n", prefix, text);
}
