/* SPDX-License-Identifier: BSD-3-Clause */

/* Reports on disk: atomic writes and loading. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rxr_path.h"
#include "rxr_report_priv.h"

/* Far above any real report; keeps a wrong file from eating memory. */
#define REPORT_MAX_BYTES (256u << 20)

/* The document at doc and a newline into f (flushed by the caller). */
static int
dump(FILE *f, const void *doc)
{
	errno = 0;
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) != 0 ||
			fputc('\n', f) == EOF)
		return errno != 0 ? -errno : -EIO;
	return 0;
}

int
rxr_report_write_atomic(const struct rxr_report *r, const char *path,
		char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *step;
	char verr[RXR_REPORT_ERR_LEN];
	struct stat st;
	mode_t mode = 0644;
	int ret;

	/* Never write what rxr_report_load() would refuse. */
	if (rxrr_fresh(r) != 0 || rxrr_noise_count(r->doc) != 0) {
		rxrr_err(err, errlen, "%s: summary: out of memory", path);
		return -ENOMEM;
	}
	if (rxr_report_validate(r->doc, "report", verr, sizeof(verr)) != 0) {
		rxrr_err(err, errlen, "cannot write report %s: %s", path, verr);
		return -EINVAL;
	}
	if (*(slash != NULL ? slash + 1 : path) == '\0') {
		rxrr_err(err, errlen, "cannot write report %s: not a file name",
			path);
		return -EINVAL;
	}
	/* The rename would replace a device, a FIFO, ... by a file. */
	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) &&
			!S_ISLNK(st.st_mode)) {
		rxrr_err(err, errlen, "cannot write report %s: is %s, not a "
			"regular file: refusing to replace it", path,
			rxr_path_kind(path));
		return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
	}
	/* A report is for reading: keep the old file's mode. */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	ret = rxr_path_write_atomic(path, ".", mode, true, dump, r->doc, &step);
	if (ret != 0)
		rxrr_err(err, errlen, "cannot write report %s: %s: %s", path,
			step, strerror(-ret));
	return ret;
}

json_t *
rxr_report_json_loadb(const char *buf, size_t len, const char *name,
		char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *doc;

	if (len == 0) {
		rxrr_err(err, errlen, "%s: empty file, not a report", name);
		return NULL;
	}
	/* Duplicate keys would make "which value counts" a guess. */
	doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (doc == NULL)
		rxrr_err(err, errlen, "%s:%d:%d: malformed JSON: %s", name,
			jerr.line, jerr.column, jerr.text);
	return doc;
}

struct rxr_report *
rxr_report_of_json(json_t *doc, const char *name, char *err, size_t errlen)
{
	struct rxr_report *r = NULL;

	if (doc != NULL && rxr_report_validate(doc, name, err, errlen) == 0) {
		r = calloc(1, sizeof(*r));
		if (r == NULL)
			rxrr_err(err, errlen, "%s: out of memory", name);
	}
	if (r == NULL)
		json_decref(doc);
	else
		r->doc = doc;
	return r;
}

/* A report file for jansson: what was read, how it failed. */
struct reader {
	FILE *f;
	size_t len;
	int err;	/* errno of a failed read */
};

static size_t
read_some(void *buf, size_t buflen, void *data)
{
	struct reader *rd = data;
	size_t n = fread(buf, 1, buflen, rd->f);

	rd->len += n;
	if (ferror(rd->f))
		rd->err = errno != 0 ? errno : EIO;
	return rd->err != 0 || rd->len >= REPORT_MAX_BYTES ? (size_t)-1 : n;
}

json_t *
rxr_report_json_load(const char *path, char *err, size_t errlen)
{
	struct reader rd = { .err = 0 };
	json_error_t jerr;
	struct stat st;
	json_t *doc;

	/* A FIFO or a device would block or be read once: regular files only. */
	if (rxr_path_check_input(NULL, path, err, errlen) != 0)
		return NULL;
	rd.f = fopen(path, "r");
	if (rd.f == NULL) {
		rxrr_err(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	/* The size first, as a file read whole would say it. */
	if (fstat(fileno(rd.f), &st) == 0 && st.st_size >= REPORT_MAX_BYTES)
		rd.len = REPORT_MAX_BYTES;
	/* Duplicate keys would make "which value counts" a guess. */
	doc = rd.len != 0 ? NULL : json_load_callback(read_some, &rd,
		JSON_REJECT_DUPLICATES, &jerr);
	fclose(rd.f);
	if (doc != NULL)
		return doc;
	if (rd.err != 0)
		rxrr_err(err, errlen, "%s: %s", path, strerror(rd.err));
	else if (rd.len >= REPORT_MAX_BYTES)
		rxrr_err(err, errlen, "%s: larger than %u MiB, not a report",
			path, REPORT_MAX_BYTES >> 20);
	else if (rd.len == 0)
		rxrr_err(err, errlen, "%s: empty file, not a report", path);
	else
		rxrr_err(err, errlen, "%s:%d:%d: malformed JSON: %s", path,
			jerr.line, jerr.column, jerr.text);
	return NULL;
}

struct rxr_report *
rxr_report_load(const char *path, char *err, size_t errlen)
{
	return rxr_report_of_json(rxr_report_json_load(path, err, errlen), path,
		err, errlen);
}
