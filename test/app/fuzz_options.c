/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Fuzz the application's option strings and run profiles: what a user
 * types after "--" and what a --profile file holds. Input: 'P' then the
 * text of a profile, or else NUL-separated arguments.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxrefill.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options o;
	struct opts_args a;

	memset(&a, 0, sizeof(a));
	if (size > 0 && data[0] == 'P') {
		struct opts_args prof = { 0 };
		char *argv0[] = { (char *)"rxrefill", NULL };
		FILE *f = size > 1 ? fmemopen((void *)(uintptr_t)(data + 1),
			size - 1, "r") : NULL;

		/* The profile's arguments, then parsed as options. */
		if (f != NULL && opts_profile_parse(f, "fuzz", &prof) == 0 &&
				prof.argc > 0) {
			char **argv = calloc(prof.argc + 2, sizeof(*argv));

			if (argv != NULL) {
				argv[0] = argv0[0];
				memcpy(argv + 1, prof.argv, prof.argc * sizeof(*argv));
				opts_parse(prof.argc + 1, argv, &o, &a);
				opts_args_free(&a);
				free(argv);
			}
		}
		if (f != NULL)
			fclose(f);
		opts_args_free(&prof);
		return 0;
	}
	{
		char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
		int argc = 1;
		size_t i = 0;

		if (buf == NULL)
			return 0;
		memcpy(buf, data, size);
		buf[size] = '\0';
		argv[0] = (char *)"rxrefill";
		while (i < size && argc < MAX_ARGS) {
			char *arg = buf + i;

			i += strlen(arg) + 1;
			/* A profile names a file: the harness reads no files. */
			if (strncmp(arg, "--profile", 9) == 0)
				continue;
			argv[argc++] = arg;
		}
		argv[argc] = NULL;
		opts_parse(argc, argv, &o, &a);
		opts_args_free(&a);
		free(buf);
	}
	return 0;
}
