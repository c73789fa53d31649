/* SPDX-License-Identifier: BSD-3-Clause */

/* The nt instructions as the tests see them, through the public API only. */

#ifndef TEST_ZERO_ISA_H
#define TEST_ZERO_ISA_H

#include <stdbool.h>

#include "rxr_zero.h"

static const char *const isa_names[RXR_ZERO_NR_NT_ISAS] = {
	"best", "sse2", "avx2", "avx512", "clzero",
};

/* Whether this CPU runs nt with isa: rxr_zero_extent() refuses it if not. */
static inline bool
isa_supported(enum rxr_zero_nt_isa isa)
{
	struct rxr_zero_opts o = { .method = RXR_ZERO_NT, .nt_isa = isa };

	return rxr_zero_extent(NULL, 0, &o) == 0;
}

/* What RXR_ZERO_NT_BEST stands for: the first the CPU has from CLZERO. */
static inline enum rxr_zero_nt_isa
isa_best(void)
{
	enum rxr_zero_nt_isa isa = RXR_ZERO_NT_CLZERO;

	while (isa > RXR_ZERO_NT_SSE2 && !isa_supported(isa))
		isa--;
	return isa;
}

#endif /* TEST_ZERO_ISA_H */
