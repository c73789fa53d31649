/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_TEST_H
#define RXR_TEST_H

/**
 * @file
 * Tiny TAP harness for rxrefill's test programs (meson protocol 'tap').
 * A test case is a function returning 0 on success; RXR_TEST_ASSERT prints
 * what failed and returns -1 from it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rxr_hugepage.h"

#define RXR_TEST_ASSERT(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stdout, "# FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stdout, __VA_ARGS__); \
		fprintf(stdout, "\n"); \
		return -1; \
	} \
} while (0)

#define RXR_TEST_ASSERT_EQ(a, b, what) do { \
	long long a_ = (long long)(a), b_ = (long long)(b); \
	RXR_TEST_ASSERT(a_ == b_, "%s: got %lld, expected %lld", what, a_, b_); \
} while (0)

/** Next number of a xorshift64 sequence (reproducible, never 0 from a
 * nonzero state). */
static inline uint64_t
rxr_test_xorshift(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/**
 * Join the lines a report wrapped within 120 columns (a line break and
 * the four spaces of a continuation become one space), in place, so that
 * a test can look for a whole sentence. @return text (NULL stays NULL).
 */
char *rxr_test_unwrap(char *text);

/** Run one test case and print its TAP line. */
void rxr_test_run(const char *name, int (*fn)(void));

/** Print the TAP plan; return the process exit status. */
int rxr_test_done(void);

/**
 * Run fn(arg) in a child process and expect it to abort with a message
 * containing @p needle on stderr (a debug check firing).
 * @return 0 when it did, -1 otherwise (with a diagnostic printed).
 */
int rxr_test_expect_abort(void (*fn)(void *), void *arg, const char *needle);

/**
 * Start EAL for a test: -l lcores, --no-pci, a file prefix unique to this
 * process, hugepages when usable else --no-huge -m mib. Extra EAL arguments
 * (e.g. "--vdev=net_null0") may follow, NULL-terminated.
 * Exits the process with a message when EAL cannot start.
 */
enum rxr_mem_backing rxr_test_eal_init(const char *prog, const char *lcores,
		unsigned int mib, ...);

/**
 * rte_eal_remote_launch() and rte_eal_wait_lcore() with the ordering they
 * give made visible to ThreadSanitizer: DPDK's own hand-off is in code
 * TSan does not see, so what the main lcore wrote before the launch, or
 * reads after the wait, would be reported as racing with the worker
 * (and memory rte_malloc() hands out again, as racing with its last user).
 * @return what the DPDK call returns.
 */
int rxr_test_remote_launch(int (*fn)(void *), void *arg, unsigned int lcore);
int rxr_test_wait_lcore(unsigned int lcore);

/**
 * Benchmarks: print the CPU model, then run the calling program again
 * (same arguments) once on hugepages, when usable, and once on ordinary
 * memory (--no-huge), each a child process of its own, since EAL starts
 * once per process. In such a child it returns -1 at once and the caller
 * carries on measuring; rxr_test_eal_init() then takes the child's memory.
 * @return in the parent, the exit status: failure when a child failed.
 */
int rxr_bench_each_memory(int argc, char **argv);

/** Suffix of a benchmark child's figure names: ".huge", ".nohuge", or ""
 * outside rxr_bench_each_memory(). */
const char *rxr_bench_memory_tag(void);

/**
 * Benchmarks: fn(arg) on a stack at a page offset set by trial, whatever
 * the caller's (which ASLR sets): 26 cache lines further into a page each
 * trial. Where a timed loop's stack (its burst array, the frames of its
 * calls) falls against the pools' data within 4 KiB can decide a figure
 * by itself; run every configuration of trial t on trial t's stack, and
 * the median and spread over trials cover the layouts instead of one.
 * @return what fn returns.
 */
int rxr_bench_on_stack(unsigned int trial, int (*fn)(void *), void *arg);

#endif /* RXR_TEST_H */
