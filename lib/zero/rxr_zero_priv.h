/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_ZERO_PRIV_H
#define RXR_ZERO_PRIV_H

/*
 * Internal to lib/zero: the non-temporal inner loops, one per instruction
 * set, each built for its own target (DPDK's pkg-config forces
 * -march=corei7, so wider instructions are enabled per function and only
 * called after a run-time check).
 */

#include <stddef.h>

#include "rxr_zero.h"

/* The line the non-temporal bodies clear at a time (x86's cache line). */
#define RXR_ZERO_NT_LINE 64

/*
 * Clear n bytes at p with non-temporal stores, no fence.
 * p is RXR_ZERO_NT_LINE-aligned, n is a non-zero multiple of it.
 */
typedef void (*rxr_zero_nt_body_t)(char *p, size_t n);

void rxr_zero_nt_body_sse2(char *p, size_t n);
void rxr_zero_nt_body_avx2(char *p, size_t n);
void rxr_zero_nt_body_avx512(char *p, size_t n);
void rxr_zero_nt_body_clzero(char *p, size_t n);

/*
 * Debug builds: fail the unfenced-nt check when this thread has streaming
 * stores that no fence ordered yet (before publishing frames).
 */
void rxr_zero_debug_check_fenced(const char *where);

#endif /* RXR_ZERO_PRIV_H */
