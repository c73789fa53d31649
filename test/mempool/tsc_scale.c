/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LD_PRELOAD shim for DPDK's mempool_perf_autotest: every row of that test
 * runs for TIME_S (5 s), a compile-time constant, measured against
 * rte_get_timer_hz(), which is rte_get_tsc_hz(). This shim divides the
 * timer frequency by RXR_TSC_SCALE so that every row lasts 5/scale s and
 * the whole test (720 rows) finishes in seconds. The test's code, its
 * checks and the mempool driver under it are unchanged; only its printed
 * rates are scaled down (a row's count over 1/scale of the time, divided
 * by 5 s), so a scaled run proves completion, not rates.
 *
 * EAL exports rte_get_tsc_hz with symbol version DPDK_23: the shim defines
 * it under the same version (tsc_scale.map) and reaches EAL's own through
 * dlvsym().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RXR_TSC_SCALE_ENV "RXR_TSC_SCALE"
#define RXR_TSC_SCALE_MAX 100000

typedef uint64_t (*tsc_hz_fn)(void);

static tsc_hz_fn real_tsc_hz;
static uint64_t tsc_scale;

/* Before main(): a malformed scale stops the program, not a test row. */
__attribute__((constructor)) static void
rxr_tsc_scale_init(void)
{
	const char *s = getenv(RXR_TSC_SCALE_ENV);
	char *end;
	unsigned long long v;

	/* NULL in a program without EAL: it never calls us then. */
	real_tsc_hz = (tsc_hz_fn)dlvsym(RTLD_NEXT, "rte_get_tsc_hz",
		"DPDK_23");
	if (s == NULL) {
		tsc_scale = 1;
		return;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v == 0 ||
			v > RXR_TSC_SCALE_MAX) {
		fprintf(stderr, "tsc_scale: %s=%s: expected an integer "
			"from 1 to %d\n", RXR_TSC_SCALE_ENV, s,
			RXR_TSC_SCALE_MAX);
		abort();
	}
	tsc_scale = v;
	fprintf(stderr, "tsc_scale: timer frequency divided by %llu\n", v);
}

uint64_t rte_get_tsc_hz(void);

uint64_t
rte_get_tsc_hz(void)
{
	uint64_t hz;

	if (real_tsc_hz == NULL) {
		fprintf(stderr, "tsc_scale: no rte_get_tsc_hz@DPDK_23 to "
			"scale\n");
		abort();
	}
	hz = real_tsc_hz() / tsc_scale;
	return hz != 0 ? hz : 1;
}
