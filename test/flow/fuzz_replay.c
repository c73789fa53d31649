/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Runs a fuzz target's entry point over files, without libFuzzer: the seed
 * corpus and every crash input ever found stay regression tests in every
 * build, gcc included. Arguments are files or directories (dot files are
 * skipped). TAP output, one line per input.
 */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned int n;

static int
run_file(const char *file)
{
	struct stat sb;
	uint8_t *buf;
	FILE *f;
	int saved;

	if (stat(file, &sb) != 0 || (f = fopen(file, "rb")) == NULL) {
		printf("not ok %u - %s: cannot read\n", ++n, file);
		return -1;
	}
	/* Exactly the file's size, so that a sanitizer sees over-reads. */
	buf = malloc(sb.st_size > 0 ? (size_t)sb.st_size : 1);
	if (buf == NULL || fread(buf, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
		printf("not ok %u - %s: cannot read\n", ++n, file);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	/* What the target prints (a --help text) is not TAP: to stderr. */
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	if (saved >= 0)
		dup2(STDERR_FILENO, STDOUT_FILENO);
	LLVMFuzzerTestOneInput(buf, (size_t)sb.st_size);
	fflush(stdout);
	if (saved >= 0) {
		dup2(saved, STDOUT_FILENO);
		close(saved);
	}
	free(buf);
	printf("ok %u - %s\n", ++n, file);
	return 0;
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char **argv)
{
	int i, fail = 0;

	for (i = 1; i < argc; i++) {
		struct stat sb;
		struct dirent *d;
		char **names = NULL;
		size_t nn = 0, k;
		DIR *dp;

		if (stat(argv[i], &sb) == 0 && !S_ISDIR(sb.st_mode)) {
			fail |= run_file(argv[i]);
			continue;
		}
		dp = opendir(argv[i]);
		if (dp == NULL) {
			printf("not ok %u - %s: not a file or directory\n", ++n, argv[i]);
			fail = 1;
			continue;
		}
		while ((d = readdir(dp)) != NULL) {
			if (d->d_name[0] == '.')
				continue;
			names = realloc(names, (nn + 1) * sizeof(*names));
			if (names == NULL || asprintf(&names[nn], "%s/%s", argv[i], d->d_name) < 0)
				abort();
			nn++;
		}
		closedir(dp);
		if (nn > 1)
			qsort(names, nn, sizeof(*names), cmp);
		for (k = 0; k < nn; k++) {
			fail |= run_file(names[k]);
			free(names[k]);
		}
		free(names);
	}
	printf("1..%u\n", n);
	return fail ? EXIT_FAILURE : EXIT_SUCCESS;
}
