/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_PROC_TEXT_H
#define RXR_PROC_TEXT_H

/**
 * @file
 * Parsers of the kernel's text files (/proc, the CPU lists of
 * /sys/devices/system/cpu) and the CPU model, on text so that fixtures
 * test them. Plain C, no DPDK.
 */

#include <sched.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The value of the first line of @p text (NULL: none) whose key is exactly
 * @p key (blanks allowed around it and the ':'). @return the value's first
 * non-blank character within text (it ends at the '\n'), or NULL.
 */
const char *rxr_proc_value(const char *text, const char *key);

/** The number of rxr_proc_value() (status: "nonvoluntary_ctxt_switches",
 * sched: "se.nr_migrations"). @return 0, or -1: no key or no number. */
int rxr_proc_u64(const char *text, const char *key, uint64_t *out);

/**
 * The "cpuN" line of /proc/stat text: its steal ticks (0 before Linux
 * 2.6.11) and all its ticks (guest time is inside user and nice), USER_HZ.
 * @return 0, or -1: no such line, or no parse.
 */
int rxr_proc_stat_cpu(const char *text, unsigned int cpu, uint64_t *steal,
		uint64_t *total);

/**
 * /proc/<pid>/task/<tid>/schedstat: nanoseconds on the CPU and runnable but
 * waiting for a CPU (then timeslices). @return 0, or -1 when the line does
 * not hold three numbers.
 */
int rxr_proc_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns);

/** What /proc/<pid>/stat says of a task. */
struct rxr_proc_task {
	int pid;
	char comm[32];		/**< without its parentheses, cut to fit */
	uint64_t ticks;		/**< on a CPU: utime + stime, USER_HZ */
	int cpu;		/**< the CPU it last ran on */
};

/**
 * /proc/<pid>/stat text. comm may hold blanks and parentheses: it ends at
 * the last ')'. @return 0, or -1 when the line does not parse.
 */
int rxr_proc_pid_stat(const char *text, struct rxr_proc_task *out);

/**
 * A CPU list ("0-3,8,10-11", "" or "\n" for none) into set, which is
 * cleared first. @return the number of CPUs in it, or -1 when the text is
 * not a CPU list or names a CPU past CPU_SETSIZE.
 */
int rxr_proc_cpulist(const char *text, cpu_set_t *set);

/**
 * One CPU or range ("3", "0-3") at *p into set; *p moves past it.
 * @return 0, or -1 when it is none or names a CPU past CPU_SETSIZE.
 */
int rxr_proc_cpu_range(const char **p, cpu_set_t *set);

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
