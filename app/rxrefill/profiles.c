/* SPDX-License-Identifier: BSD-3-Clause */

/* --profile NAME: a file, or a profile installed under share/rxrefill. */

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rxrefill.h"

const char *
profile_find(const char *name, char *buf, size_t len)
{
	/* A path, or an existing file, is taken as given. */
	if (strchr(name, '/') != NULL || access(name, F_OK) == 0)
		return name;
	if ((size_t)snprintf(buf, len, "%s/%s.profile", RXR_PROFILE_DIR,
			name) < len && access(buf, F_OK) == 0)
		return buf;
	if ((size_t)snprintf(buf, len, "%s/%s", RXR_PROFILE_DIR, name) < len &&
			access(buf, F_OK) == 0)
		return buf;
	/* Not found: the caller's error names what was given. */
	return name;
}
