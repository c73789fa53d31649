/* SPDX-License-Identifier: BSD-3-Clause */

/* Reports on disk: atomic writes and loading. */

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rxr_path.h"
#include "rxr_report_priv.h"

/* Far above any real report; keeps a wrong file from eating memory. */
#define REPORT_MAX_BYTES (256u << 20)

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(12))

/* doc and a newline into f, flushed; 0 or -errno. */
static int
dump(const json_t *doc, FILE *f)
{
	errno = 0;
	if (json_dumpf(doc, f, DUMP_FLAGS) != 0 || fputc('\n', f) == EOF ||
			fflush(f) != 0)
		return errno != 0 ? -errno : -EIO;
	return 0;
}

/*
 * doc on disk in a new temporary file *tmp in dir, named after base, with
 * the mode of the file at path; 0, or -errno with *step what failed (*tmp,
 * when set, is to be unlinked).
 */
static int
write_temp(const json_t *doc, const char *path, const char *dir,
		const char *base, char **tmp, const char **step)
{
	struct stat st;
	mode_t mode = 0644;
	FILE *f = NULL;
	int fd, ret;

	/*
	 * Same directory as the target: rename() must not cross filesystems.
	 * The name keeps at most RXR_PATH_TMP_BASE_MAX bytes of base: a name
	 * near NAME_MAX has no room for the prefix and suffix.
	 */
	if (asprintf(tmp, "%s/.%.*s.tmp.XXXXXX", dir, RXR_PATH_TMP_BASE_MAX,
			base) < 0) {
		*tmp = NULL;
		*step = "out of memory";
		return -ENOMEM;
	}
	*step = "creating a temporary file";
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(*tmp);
		*tmp = NULL;
		return ret;
	}
	/* mkstemp makes 0600; a report is for reading: keep the old mode. */
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		mode = st.st_mode & 07777;
	*step = "setting the mode of the temporary file";
	if (fchmod(fd, mode) == 0) {
		*step = "opening the temporary file";
		f = fdopen(fd, "w");
	}
	if (f == NULL) {
		ret = -errno;
		close(fd);
		return ret;
	}
	*step = "writing the temporary file";
	ret = dump(doc, f);
	/* Data on disk before the rename makes it visible under path. */
	if (ret == 0 && fsync(fileno(f)) != 0) {
		ret = -errno;
		*step = "fsync of the temporary file";
	}
	if (fclose(f) != 0 && ret == 0) {
		ret = -errno;
		*step = "closing the temporary file";
	}
	return ret;
}

/* The rename itself is durable only once the directory is synced. */
static int
sync_dir(const char *dir, const char **step)
{
	int dfd, ret;

	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		*step = "opening its directory to fsync it";
		return -errno;
	}
	ret = fsync(dfd) != 0 ? -errno : 0;
	close(dfd);
	/* Some filesystems cannot sync a directory; nothing more to do then. */
	if (ret != 0 && ret != -EINVAL && ret != -EROFS && ret != -ENOTSUP) {
		*step = "fsync of its directory";
		return ret;
	}
	return 0;
}

int
rxr_report_write_atomic(const struct rxr_report *r, const char *path,
		char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	const char *base, *step = "out of memory";
	char *dir, *tmp = NULL, verr[RXR_REPORT_ERR_LEN];
	const json_t *doc = r->doc;
	struct stat st;
	int ret = -ENOMEM;

	/* Never write what rxr_report_load() would refuse. */
	if (rxrr_fresh(r) != 0 || rxrr_noise_count(r->doc) != 0) {
		rxrr_err(err, errlen, "%s: summary: out of memory", path);
		return -ENOMEM;
	}
	if (rxr_report_validate(doc, "report", verr, sizeof(verr)) != 0) {
		rxrr_err(err, errlen, "cannot write report %s: %s", path, verr);
		return -EINVAL;
	}
	if (rxr_path_is_stdout(path)) {
		ret = dump(doc, stdout);
		if (ret != 0)
			rxrr_err(err, errlen, "cannot write report to standard "
				"output: %s", strerror(-ret));
		return ret;
	}
	base = slash != NULL ? slash + 1 : path;
	if (*base == '\0') {
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
	dir = slash == NULL ? strdup(".") : slash == path ? strdup("/") :
		strndup(path, (size_t)(slash - path));
	if (dir != NULL)
		ret = write_temp(doc, path, dir, base, &tmp, &step);
	if (ret == 0 && rename(tmp, path) != 0) {
		ret = -errno;
		step = "renaming the temporary file over it";
	}
	if (ret == 0) {
		free(tmp);
		tmp = NULL;
		ret = sync_dir(dir, &step);
	}
	if (ret != 0)
		rxrr_err(err, errlen, "cannot write report %s: %s: %s", path,
			step, strerror(-ret));
	if (tmp != NULL) {
		unlink(tmp);
		free(tmp);
	}
	free(dir);
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
	json_t *doc = rxr_report_json_load(path, err, errlen);

	return doc != NULL ? rxr_report_of_json(doc, path, err, errlen) : NULL;
}
