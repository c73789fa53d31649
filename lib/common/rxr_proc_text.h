/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_PROC_TEXT_H
#define RXR_PROC_TEXT_H

/**
 * @file
 * Readers of the kernel's "KEY: value" text (/proc/cpuinfo,
 * /proc/<pid>/status, sched) and the CPU model named by /proc/cpuinfo,
 * for reports and benchmark headers. On text, so that they are tested on
 * fixtures. Plain C with no DPDK: tools that never start EAL use it too.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The value of the first "KEY: value" line of text whose key is key.
 *
 * Blanks may stand before the key and on either side of the ':'; a line
 * whose key only starts with key ("cpu" and "cpu MHz") does not count.
 *
 * @param text
 *   NUL-terminated lines; NULL is taken as no text.
 * @param key
 *   The key, without ':'; an empty key finds nothing.
 * @return
 *   The value's first non-blank character, within text (the value ends at
 *   the line's '\n'), or NULL when no line has the key.
 */
const char *rxr_proc_value(const char *text, const char *key);

/** What rxr_cpu_model() writes when /proc/cpuinfo names no model. */
#define RXR_CPU_MODEL_UNKNOWN "unknown"

/**
 * The CPU model in /proc/cpuinfo text.
 *
 * The value of the first "model name" line (x86), else of the first line
 * keyed by what other architectures name it by: "Processor" (arm32),
 * "cpu model" (mips), "cpu" (powerpc), "uarch" (riscv), "Hardware" (older
 * arm boards). Blanks around the value are cut; an empty value does not
 * count. aarch64 kernels name no model: that text gives -1.
 *
 * @param text
 *   The text of /proc/cpuinfo, NUL-terminated.
 * @param buf
 *   Where the model goes, NUL-terminated and cut to fit; untouched on -1.
 * @param len
 *   Size of buf (> 0).
 * @return
 *   0, or -1 when the text names no model.
 */
int rxr_cpu_model_parse(const char *text, char *buf, size_t len);

/**
 * The CPU model of this machine, read from /proc/cpuinfo.
 *
 * @param buf
 *   Where the model goes (see rxr_cpu_model_parse()), or
 *   RXR_CPU_MODEL_UNKNOWN when the file cannot be read or names none.
 * @param len
 *   Size of buf (> 0).
 * @return
 *   0, or -1 when buf holds RXR_CPU_MODEL_UNKNOWN.
 */
int rxr_cpu_model(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* RXR_PROC_TEXT_H */
