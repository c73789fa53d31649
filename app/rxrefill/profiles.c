/* SPDX-License-Identifier: BSD-3-Clause */

/* --profile NAME: a file, or a profile installed under share/rxrefill. */

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rxrefill.h"

static bool
try_dir(const char *dir, const char *name, char *buf, size_t len)
{
	return ((size_t)snprintf(buf, len, "%s/%s.profile", dir, name) < len &&
			access(buf, F_OK) == 0) ||
		((size_t)snprintf(buf, len, "%s/%s", dir, name) < len &&
			access(buf, F_OK) == 0);
}

const char *
profile_find(const char *name, char *buf, size_t len)
{
	char exe[PATH_MAX], dir[PATH_MAX + 64];
	ssize_t n;

	/* A path, or an existing file, is taken as given. */
	if (strchr(name, '/') != NULL || access(name, F_OK) == 0 ||
			name[0] == '\0')
		return name;
	/* Next to the program first: a relocated install finds its own. */
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
	/* Not found: the caller's error names what was given. */
	return name;
}
