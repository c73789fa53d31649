/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Non-temporal inner loops. Each one is compiled for its instruction set
 * with a target attribute and is only reached after rxr_zero.c checked the
 * CPU (and the OS, for AVX state) with __builtin_cpu_supports or CPUID.
 * Four lines per iteration keep the store queue busy without a long tail.
 */

#include <stdint.h>

#include <immintrin.h>

#include "rxr_zero_priv.h"

void
rxr_zero_nt_body_sse2(char *p, size_t n)
{
	const __m128i z = _mm_setzero_si128();
	char *end = p + n;

	for (; p < end; p += 64) {
		_mm_stream_si128((__m128i *)(void *)p, z);
		_mm_stream_si128((__m128i *)(void *)(p + 16), z);
		_mm_stream_si128((__m128i *)(void *)(p + 32), z);
		_mm_stream_si128((__m128i *)(void *)(p + 48), z);
	}
}

__attribute__((target("avx2"))) void
rxr_zero_nt_body_avx2(char *p, size_t n)
{
	const __m256i z = _mm256_setzero_si256();
	char *end = p + n;

	for (; end - p >= 256; p += 256) {
		_mm256_stream_si256((__m256i *)(void *)p, z);
		_mm256_stream_si256((__m256i *)(void *)(p + 32), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 64), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 96), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 128), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 160), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 192), z);
		_mm256_stream_si256((__m256i *)(void *)(p + 224), z);
	}
	for (; p < end; p += 64) {
		_mm256_stream_si256((__m256i *)(void *)p, z);
		_mm256_stream_si256((__m256i *)(void *)(p + 32), z);
	}
}

__attribute__((target("avx512f"))) void
rxr_zero_nt_body_avx512(char *p, size_t n)
{
	const __m512i z = _mm512_setzero_si512();
	char *end = p + n;

	for (; end - p >= 256; p += 256) {
		_mm512_stream_si512((void *)p, z);
		_mm512_stream_si512((void *)(p + 64), z);
		_mm512_stream_si512((void *)(p + 128), z);
		_mm512_stream_si512((void *)(p + 192), z);
	}
	for (; p < end; p += 64)
		_mm512_stream_si512((void *)p, z);
}

/*
 * CLZERO zeroes the whole line that holds rAX, weakly ordered like a
 * streaming store: the caller's SFENCE orders it (AMD APM vol. 3).
 */
static inline void
clzero(char *p)
{
	__asm__ volatile("clzero" : : "a"(p) : "memory");
}

void
rxr_zero_nt_body_clzero(char *p, size_t n)
{
	char *end = p + n;

	for (; end - p >= 256; p += 256) {
		clzero(p);
		clzero(p + 64);
		clzero(p + 128);
		clzero(p + 192);
	}
	for (; p < end; p += 64)
		clzero(p);
}
