/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef TEST_POOL_MEM_H
#define TEST_POOL_MEM_H

/*
 * Memory for a test's pool by the public path, as a mempool's populate
 * gives it: one memzone, its frames given by rxr_pool_add_frames().
 * test_pool_destroy() frees the pool, then its memzone.
 */

#include <stdio.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_memzone.h>

#include "rxr_strategy.h"

#define TEST_POOL_MEM_MAX 64

static struct {
	struct rxr_pool *p;
	const struct rte_memzone *mz;
} test_pool_mem[TEST_POOL_MEM_MAX];

/* Give @p p @p nr_frames free frames of @p frame_size: 0, or -errno. */
static __rte_unused int
test_pool_fill(struct rxr_pool *p, uint32_t frame_size, uint32_t nr_frames)
{
	static unsigned int seq;
	char name[RTE_MEMZONE_NAMESIZE];
	const struct rte_memzone *mz;
	unsigned int slot;
	int ret;

	for (slot = 0; slot < TEST_POOL_MEM_MAX; slot++)
		if (test_pool_mem[slot].mz == NULL)
			break;
	if (slot == TEST_POOL_MEM_MAX || nr_frames == 0)
		return -ENOSPC;
	snprintf(name, sizeof(name), "test_pool_%u", seq++);
	mz = rte_memzone_reserve_aligned(name, (size_t)nr_frames * frame_size,
			SOCKET_ID_ANY, 0, RTE_MAX(frame_size,
				(uint32_t)RTE_CACHE_LINE_SIZE));
	if (mz == NULL)
		return -rte_errno;
	ret = rxr_pool_add_frames(p, mz->addr, nr_frames);
	if (ret < 0) {
		rte_memzone_free(mz);
		return ret;
	}
	test_pool_mem[slot].p = p;
	test_pool_mem[slot].mz = mz;
	return 0;
}

/* rxr_pool_destroy(), then the memory test_pool_fill() gave @p p. */
static __rte_unused void
test_pool_destroy(struct rxr_pool *p)
{
	rxr_pool_destroy(p);
	for (unsigned int slot = 0; p != NULL && slot < TEST_POOL_MEM_MAX;
			slot++) {
		if (test_pool_mem[slot].p == p) {
			rte_memzone_free(test_pool_mem[slot].mz);
			test_pool_mem[slot].p = NULL;
			test_pool_mem[slot].mz = NULL;
		}
	}
}

#endif /* TEST_POOL_MEM_H */
