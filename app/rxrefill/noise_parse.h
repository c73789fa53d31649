/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef NOISE_PARSE_H
#define NOISE_PARSE_H

/*
 * Parsers of the kernel's text files that noise accounting reads
 * (/proc/stat, /proc/<pid>/task/<tid>/status and sched, /proc/<pid>/stat,
 * the CPU lists of /sys/devices/system/cpu, whose ranges cpus.c reads in
 * EAL's lcore options too). On text, not files, so that they are tested
 * on fixtures; no DPDK here.
 */

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One CPU's line of /proc/stat, in USER_HZ ticks. */
struct noise_cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* Every tick of the line (guest time is already inside user and nice). */
uint64_t noise_cpu_total(const struct noise_cpu_times *t);

/*
 * The "cpuN" line of /proc/stat text (cpu < 0: the "cpu" line of all
 * CPUs). Fields a kernel does not have (steal before 2.6.11) are 0.
 * @return 0, or -1 when there is no such line or it does not parse.
 */
int noise_parse_stat_cpu(const char *text, int cpu,
		struct noise_cpu_times *out);

/*
 * The number after "key:" at the start of a line, as in /proc/.../status
 * ("nonvoluntary_ctxt_switches:\t12") and /proc/.../sched
 * ("se.nr_migrations    :    3"): blanks may stand before and after the
 * colon. @return 0, or -1 when the key is absent or its value no number.
 */
int noise_parse_field(const char *text, const char *key, uint64_t *out);

/*
 * /proc/<pid>/task/<tid>/schedstat: nanoseconds on the CPU, nanoseconds
 * runnable but waiting for a CPU, and timeslices.
 * @return 0, or -1 when the line does not hold three numbers.
 */
int noise_parse_schedstat(const char *text, uint64_t *run_ns,
		uint64_t *wait_ns, uint64_t *slices);

/* What /proc/<pid>/stat says of a task. */
struct noise_task {
	int pid;
	char comm[32];		/* without its parentheses, cut to fit */
	uint64_t utime;		/* USER_HZ ticks */
	uint64_t stime;
	int cpu;		/* the CPU it last ran on */
};

/*
 * /proc/<pid>/stat text. comm may hold blanks and parentheses: it ends at
 * the last ')'. @return 0, or -1 when the line does not parse.
 */
int noise_parse_pid_stat(const char *text, struct noise_task *out);

/*
 * A CPU list ("0-3,8,10-11", "" or "\n" for none) into set, which is
 * cleared first. @return the number of CPUs in it, or -1 when the text is
 * not a CPU list or names a CPU past CPU_SETSIZE.
 */
int noise_parse_cpulist(const char *text, cpu_set_t *set);

/*
 * One CPU or range ("3", "0-3") at *p into set; *p moves past it.
 * @return 0, or -1 when it is none or names a CPU past CPU_SETSIZE.
 */
int noise_parse_cpu_range(const char **p, cpu_set_t *set);

#endif /* NOISE_PARSE_H */
