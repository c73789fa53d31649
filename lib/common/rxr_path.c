/* SPDX-License-Identifier: BSD-3-Clause */

/* Paths given to the programs: inputs that never block, safe outputs. */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "rxr_path.h"

/* Bytes of an output's name its temporary file keeps (NAME_MAX room). */
#define TMP_BASE_MAX 200

static const char *
mode_kind(mode_t m)
{
	static const struct {
		mode_t fmt;
		const char *name;
	} kinds[] = {
		{ S_IFREG, "a regular file" }, { S_IFDIR, "a directory" },
		{ S_IFIFO, "a FIFO" }, { S_IFCHR, "a character device" },
		{ S_IFBLK, "a block device" }, { S_IFSOCK, "a socket" },
		{ S_IFLNK, "a symbolic link" },
	};

	for (unsigned int i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((m & S_IFMT) == kinds[i].fmt)
			return kinds[i].name;
	return "not a regular file";
}

/* The message of a failed check in err; returns ret. */
static int __attribute__((format(printf, 4, 5)))
fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return ret;
}

/* Whole up to SHOWN_MAX characters, else both ends. */
#define SHOWN_MAX 200

const char *
rxr_path_shown(const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);

	if (n <= SHOWN_MAX || len < SHOWN_MAX + 40)
		return path;
	snprintf(buf, len, "%.*s...(%zu characters)...%s", SHOWN_MAX / 2,
		path, n, path + n - SHOWN_MAX / 2);
	return buf;
}

const char *
rxr_path_kind(const char *path)
{
	struct stat st;

	if (lstat(path, &st) != 0)
		return NULL;
	return mode_kind(st.st_mode);
}

int
rxr_path_check_input(const char *what, const char *path, char *err,
		size_t errlen)
{
	const char *sp = what != NULL && *what != '\0' ? " " : "", *path_in_msg;
	char shown[RXR_PATH_SHOWN_LEN];
	struct stat st;

	if (what == NULL)
		what = "";
	path_in_msg = rxr_path_shown(path, shown, sizeof(shown));
	/* stat() never opens: a FIFO is found without blocking on it. */
	if (stat(path, &st) != 0)
		return fail(err, errlen, -errno, "%s%s%s: %s", what, sp,
			path_in_msg, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(err, errlen, S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL,
			"%s%s%s: is %s, not a regular file", what, sp,
			path_in_msg, mode_kind(st.st_mode));
	return 0;
}

/* The directory part of path: "." when there is none. */
static char *
dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* Whether path's links pass through a descriptor's name (/proc/...,
 * /dev/fd/...), that hop's target left in to. */
static bool
fd_link(const char *path, char to[PATH_MAX])
{
	char cur[PATH_MAX];

	snprintf(cur, sizeof(cur), "%s", path);
	for (int hop = 0; hop < 40; hop++) {	/* the kernel's MAXSYMLINKS */
		ssize_t n = readlink(cur, to, PATH_MAX - 1);
		const char *slash;

		if (n <= 0)
			return false;
		to[n] = '\0';
		if (strncmp(to, "/proc/", 6) == 0 ||
				strncmp(to, "/dev/fd/", 8) == 0)
			return true;
		/* A relative target is relative to the link's directory. */
		slash = strrchr(cur, '/');
		if (to[0] != '/' && slash != NULL) {
			int dl = (int)(slash - cur) + 1;

			if (snprintf(cur + dl, sizeof(cur) - dl, "%s", to) >=
					(int)(sizeof(cur) - dl))
				return false;
		} else {
			memcpy(cur, to, (size_t)n + 1);
		}
	}
	return false;
}

int
rxr_path_check_output(const char *what, const char *path,
		const char *const *inputs, unsigned int nb_inputs,
		uint64_t min_free, char *err, size_t errlen)
{
	struct stat st, in, tgt;
	struct statvfs vfs;
	char shown[RXR_PATH_SHOWN_LEN], shown_dir[RXR_PATH_SHOWN_LEN];
	char shown_in[RXR_PATH_SHOWN_LEN], to[PATH_MAX];
	const char *p, *sd;
	bool exists, has_target;
	char *dir;
	int ret;

	if (rxr_path_is_stdout(path))
		return 0;
	p = rxr_path_shown(path, shown, sizeof(shown));
	if (path[0] == '\0')
		return fail(err, errlen, -EINVAL, "%s: empty path", what);
	if (path[strlen(path) - 1] == '/')
		return fail(err, errlen, -EISDIR, "%s %s: names a directory, "
			"not a file", what, p);
	/* lstat: an atomic write replaces a link, never its target. */
	exists = lstat(path, &st) == 0;
	if (!exists && errno != ENOENT)
		return fail(err, errlen, -errno, "%s %s: %s", what, p,
			strerror(errno));
	if (exists && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return fail(err, errlen, S_ISDIR(st.st_mode) ? -EISDIR :
			-EEXIST, "%s %s: is %s, not a regular file: refusing to "
			"replace it", what, p, mode_kind(st.st_mode));
	/* Only links to regular files (or to nothing) may be replaced. */
	if (fd_link(path, to))
		return fail(err, errlen, -EEXIST, "%s %s: is a symbolic link to "
			"a file descriptor (%s), not a file: refusing to replace "
			"it%s", what, p, to, strcmp(what, "--report") == 0 ||
			strcmp(what, "--manifest") == 0 ?
			"; '-' writes to standard output" : "");
	has_target = exists && S_ISLNK(st.st_mode) && stat(path, &tgt) == 0;
	if (has_target && !S_ISREG(tgt.st_mode))
		return fail(err, errlen, S_ISDIR(tgt.st_mode) ? -EISDIR :
			-EEXIST, "%s %s: is a symbolic link to %s, not a regular "
			"file: refusing to replace it", what, p,
			mode_kind(tgt.st_mode));
	/* A link to an input: the write would replace the link, which may be
	 * the very name the input was given by. */
	for (unsigned int i = 0; exists && i < nb_inputs; i++) {
		if (inputs[i] == NULL || stat(inputs[i], &in) != 0)
			continue;
		if (in.st_dev == st.st_dev && in.st_ino == st.st_ino)
			return fail(err, errlen, -EEXIST, "%s %s: is also the "
				"input %s: refusing to overwrite it", what, p,
				rxr_path_shown(inputs[i], shown_in,
					sizeof(shown_in)));
		if (has_target && in.st_dev == tgt.st_dev &&
				in.st_ino == tgt.st_ino)
			return fail(err, errlen, -EEXIST, "%s %s: is a symbolic "
				"link to the input %s: refusing to replace it",
				what, p, rxr_path_shown(inputs[i], shown_in,
					sizeof(shown_in)));
	}
	dir = dir_of(path);
	if (dir == NULL)
		return fail(err, errlen, -ENOMEM, "%s %s: out of memory", what,
			p);
	sd = rxr_path_shown(dir, shown_dir, sizeof(shown_dir));
	ret = stat(dir, &st) != 0 ? -errno : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (ret != 0)
		fail(err, errlen, ret, "%s %s: directory %s: %s", what, p, sd,
			strerror(-ret));
	else if (access(dir, W_OK | X_OK) != 0)
		ret = fail(err, errlen, -errno, "%s %s: cannot write in %s: %s",
			what, p, sd, strerror(errno));
	else if (statvfs(dir, &vfs) == 0 &&
			(uint64_t)vfs.f_bavail * vfs.f_frsize < min_free)
		ret = fail(err, errlen, -ENOSPC, "%s %s: %llu bytes free in %s, "
			"the output needs about %llu", what, p,
			(unsigned long long)vfs.f_bavail * vfs.f_frsize, sd,
			(unsigned long long)min_free);
	free(dir);
	return ret;
}

/* dir resolved, then "/" and the last component; NULL: out of memory. */
static char *
resolved(const char *path)
{
	const char *base = strrchr(path, '/');
	char *dir = dir_of(path), *real, *out = NULL;

	if (dir == NULL)
		return NULL;
	real = realpath(dir, NULL);
	base = base != NULL ? base + 1 : path;
	if (asprintf(&out, "%s/%s", real != NULL ? real : dir, base) < 0)
		out = NULL;
	free(real);
	free(dir);
	return out;
}

bool
rxr_path_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ra, *rb;
	bool same;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	ra = resolved(a);
	rb = resolved(b);
	same = ra != NULL && rb != NULL ? strcmp(ra, rb) == 0 :
		strcmp(a, b) == 0;
	free(ra);
	free(rb);
	return same;
}

int
rxr_parse_decimal(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	uint64_t n = 0;
	const char *p;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (n > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -ERANGE;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (n < min || n > max)
		return -ERANGE;
	*v = n;
	return 0;
}

unsigned int
rxr_path_std_fds_open(void)
{
	unsigned int closed = 0;

	/* open() takes the lowest free descriptor: the closed one. */
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			closed |= 1u << fd;
			/* Without /dev/null there is nothing better to do. */
			if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) < 0)
				break;
		}
	return closed;
}

FILE *
rxr_path_tmp_open(const char *path, const char *prefix, mode_t mode,
		char **tmp, const char **step)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash != NULL ? (int)(slash - path + 1) : 0;
	FILE *f = NULL;
	int fd, err;

	*step = "out of memory";
	/* A name near NAME_MAX has no room for the prefix and suffix. */
	if (asprintf(tmp, "%.*s%s%.*s.tmp.XXXXXX", dirlen, path, prefix,
			TMP_BASE_MAX, path + dirlen) < 0) {
		*tmp = NULL;
		errno = ENOMEM;
		return NULL;
	}
	*step = "creating a temporary file";
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd >= 0) {
		/* mkstemp() makes 0600 files. */
		*step = "setting the mode of the temporary file";
		if (fchmod(fd, mode) == 0) {
			*step = "opening the temporary file";
			f = fdopen(fd, "w");
		}
		if (f == NULL) {
			err = errno;
			close(fd);
			unlink(*tmp);
			errno = err;
		}
	}
	if (f == NULL) {
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

/* The rename itself is durable only once the directory is synced. */
static int
sync_dir_of(const char *path, const char **step)
{
	char *dir = dir_of(path);
	int dfd, ret;

	*step = "opening its directory to fsync it";
	dfd = dir != NULL ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	ret = dir == NULL ? -ENOMEM : dfd < 0 ? -errno : 0;
	free(dir);
	if (ret != 0)
		return ret;
	*step = "fsync of its directory";
	ret = fsync(dfd) != 0 ? -errno : 0;
	close(dfd);
	/* Some filesystems cannot sync a directory; nothing more to do then. */
	return ret == -EINVAL || ret == -EROFS || ret == -ENOTSUP ? 0 : ret;
}

int
rxr_path_write_atomic(const char *path, const char *prefix, mode_t mode,
		bool sync_dir, int (*put)(FILE *f, const void *arg),
		const void *arg, const char **step)
{
	char *tmp;
	FILE *f;
	int ret;

	f = rxr_path_tmp_open(path, prefix, mode, &tmp, step);
	if (f == NULL)
		return -errno;
	*step = "writing the temporary file";
	ret = put(f, arg);
	errno = 0;
	if (ret == 0 && fflush(f) != 0)
		ret = errno != 0 ? -errno : -EIO;
	/* Data on disk before the rename makes it visible under path. */
	if (ret == 0 && fsync(fileno(f)) != 0) {
		ret = -errno;
		*step = "fsync of the temporary file";
	}
	if (fclose(f) != 0 && ret == 0) {
		ret = -errno;
		*step = "closing the temporary file";
	}
	if (ret == 0 && rename(tmp, path) != 0) {
		ret = -errno;
		*step = "renaming the temporary file over it";
	}
	if (ret != 0)
		unlink(tmp);
	free(tmp);
	return ret == 0 && sync_dir ? sync_dir_of(path, step) : ret;
}
