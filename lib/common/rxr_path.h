/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_PATH_H
#define RXR_PATH_H

/**
 * @file
 * Checks of the files a program is given, made before anything runs, so
 * that an input never blocks and an output never replaces what is not
 * the user's regular file. Every rxrefill program (rxrefill, rxrefill-gen,
 * rxrefill-compare) checks its paths with these. No DPDK here.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The path every output option reads as standard output. */
#define RXR_PATH_STDOUT "-"

/** Whether path means standard output ("-"). */
static inline bool
rxr_path_is_stdout(const char *path)
{
	return path != NULL && path[0] == '-' && path[1] == '\0';
}

/** Size of a buffer for rxr_path_shown(). */
#define RXR_PATH_SHOWN_LEN 256

/**
 * path as a message should show it: whole when short, else its two ends
 * and its length, so that the reason after it is never cut off.
 * @param buf
 *   Room for the shortened form, at least RXR_PATH_SHOWN_LEN bytes.
 * @return path itself or buf.
 */
const char *rxr_path_shown(const char *path, char *buf, size_t len);

/**
 * What kind of file path names: "a directory", "a FIFO", "a character
 * device", "a block device", "a socket", "a regular file", "a symbolic
 * link" (lstat(), not followed); NULL when it does not exist or cannot
 * be looked up (errno set).
 */
const char *rxr_path_kind(const char *path);

/**
 * Check an input before opening it: it must exist and be a regular file
 * (after symbolic links). FIFOs, character devices and sockets would block
 * or be read only once; directories hold no data.
 * @param what  the option, e.g. "--replay", used in the message; NULL:
 *   the message starts with the path
 * @return 0, or -errno with err: "--replay x: is a FIFO, not a regular
 *   file" or "--replay x: No such file or directory".
 */
int rxr_path_check_input(const char *what, const char *path, char *err,
		size_t errlen);

/**
 * Bytes of an output's name its temporary file keeps: with the dot and
 * ".tmp.XXXXXX" around it, a name near NAME_MAX (255) would not fit.
 */
#define RXR_PATH_TMP_BASE_MAX 200

/**
 * Check an output before anything runs. "-" (standard output) passes.
 * Otherwise path must be missing, a regular file or a symbolic link to a
 * regular file or to nothing (an atomic write replaces the name, never
 * what a link points to; a link to a file descriptor, a device, a FIFO
 * or a directory is refused); it must
 * not be any of inputs[] (the same device and inode); its directory must
 * exist, be writable and have at least min_free bytes free.
 * @param what  the option, e.g. "--report", used in the message
 * @return 0, or -errno with err naming path and the reason.
 */
int rxr_path_check_output(const char *what, const char *path,
		const char *const *inputs, unsigned int nb_inputs,
		uint64_t min_free, char *err, size_t errlen);

/**
 * Whether two names given as outputs are one file: the same device and
 * inode when both exist, else the same directory (resolved) and name
 * ("m.json" and "./m.json", before either is written).
 */
bool rxr_path_same(const char *a, const char *b);

/**
 * Open /dev/null on each of standard input, output and error that is
 * closed, first thing in main(): the next file opened would take its
 * descriptor, and what is printed would land in it (an output capture,
 * EAL's shared configuration).
 * @return a mask of those that were closed: bit 0 stdin, 1 stdout,
 *   2 stderr.
 */
unsigned int rxr_path_std_fds_open(void);

/**
 * Parse a decimal number with no sign, no leading space, no base prefix
 * ("010" is ten, "0x10" is refused), in [min, max].
 * @return 0, or -EINVAL (not a decimal number) or -ERANGE (out of range).
 */
int rxr_parse_decimal(const char *s, uint64_t min, uint64_t max,
		uint64_t *v);

#ifdef __cplusplus
}
#endif

#endif /* RXR_PATH_H */
