/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_PROC_TEXT_H
#define RXR_PROC_TEXT_H

/**
 * @file
 * Readers of the kernel's "KEY: value" text (/proc) and the CPU model, on
 * text so that fixtures test them. Plain C, no DPDK.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The value of the first line of @p text (NULL: none) whose key is exactly
 * @p key (blanks allowed around it and the ':'). @return the value's first
 * non-blank character within text (it ends at the '\n'), or NULL.
 */
const char *rxr_proc_value(const char *text, const char *key);

/** What rxr_cpu_model() writes when /proc/cpuinfo names no model. */
#define RXR_CPU_MODEL_UNKNOWN "unknown"

/**
 * The CPU model in /proc/cpuinfo @p text: the first non-empty "model name"
 * (x86), else "Processor" (arm32), "cpu model" (mips), "cpu" (powerpc),
 * "uarch" (riscv) or "Hardware", trimmed and cut to fit @p buf (len > 0).
 * @return 0, or -1 (buf untouched) when it names none (aarch64).
 */
int rxr_cpu_model_parse(const char *text, char *buf, size_t len);

/** This machine's CPU model; -1 with RXR_CPU_MODEL_UNKNOWN when none. */
int rxr_cpu_model(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* RXR_PROC_TEXT_H */
