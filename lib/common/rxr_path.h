/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_PATH_H
#define RXR_PATH_H

/**
 * @file
 * Checks every program makes of its paths before anything runs (an input
 * never blocks, an output never replaces what is not the user's regular
 * file), and number parsing. No DPDK.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Whether path means standard output ("-"). */
static inline bool
rxr_path_is_stdout(const char *path)
{
	return path != NULL && path[0] == '-' && path[1] == '\0';
}

/** Size of a buffer for rxr_path_shown(). */
#define RXR_PATH_SHOWN_LEN 256

/** @p path as messages show it: whole, or its ends and length in @p buf. */
const char *rxr_path_shown(const char *path, char *buf, size_t len);

/** What @p path is by lstat() ("a FIFO", ...); NULL with errno on failure. */
const char *rxr_path_kind(const char *path);

/** Check an input is a regular file (after links); 0, or -errno with err
 * prefixed by @p what (the option, or NULL). */
int rxr_path_check_input(const char *what, const char *path, char *err,
		size_t errlen);

/**
 * Create the temporary file of @p path: in its directory (rename() must
 * not cross filesystems), named @p prefix, the name and ".tmp.XXXXXX",
 * of @p mode. @return its stream with its name in *tmp (malloc'd), or NULL
 * with errno set and *step naming what failed.
 */
FILE *rxr_path_tmp_open(const char *path, const char *prefix, mode_t mode,
		char **tmp, const char **step);

/**
 * Replace @p path atomically: @p put writes a temporary file
 * (rxr_path_tmp_open()) that is synced and renamed over it; with
 * @p sync_dir the rename is made durable too. The temporary file is
 * removed on failure. @return 0, or -errno with *step naming what failed.
 */
int rxr_path_write_atomic(const char *path, const char *prefix, mode_t mode,
		bool sync_dir, int (*put)(FILE *f, const void *arg),
		const void *arg, const char **step);

/**
 * Check an output: "-", or missing, a regular file or a link to one or to
 * nothing; none of inputs[]; in a writable directory with @p min_free bytes
 * free. @return 0, or -errno with err naming @p what, path and reason.
 */
int rxr_path_check_output(const char *what, const char *path,
		const char *const *inputs, unsigned int nb_inputs,
		uint64_t min_free, char *err, size_t errlen);

/** Whether two outputs are one file: one inode, or one resolved name. */
bool rxr_path_same(const char *a, const char *b);

/** First in main(): /dev/null on each closed standard descriptor, so that
 * no file takes it; @return the mask of those closed. */
unsigned int rxr_path_std_fds_open(void);

/** Parse digits only ("010" is ten) in [min, max]: 0, -EINVAL, -ERANGE. */
int rxr_parse_decimal(const char *s, uint64_t min, uint64_t max,
		uint64_t *v);

#ifdef __cplusplus
}
#endif

#endif /* RXR_PATH_H */
