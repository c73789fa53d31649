/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_HUGEPAGE_H
#define RXR_HUGEPAGE_H

/**
 * @file
 * Where EAL memory comes from: hugepages when a mounted hugetlbfs has free
 * ones, ordinary memory (--no-huge -m <MiB>) otherwise. Every program
 * starts EAL through rxr_eal_init(): one fallback, always printed.
 */

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Hugepages the kernel offers to this process. */
struct rxr_hugepage_info {
	unsigned int free_2m;	/**< free 2 MiB pages not reserved, all nodes */
	unsigned int free_1g;	/**< free 1 GiB pages not reserved, all nodes */
	bool mounted;		/**< a hugetlbfs is mounted */
	bool mounted_2m;	/**< a hugetlbfs of 2 MiB pages is mounted */
	bool mounted_1g;	/**< a hugetlbfs of 1 GiB pages is mounted */
};

/** Read /sys/kernel/mm/hugepages and /proc/mounts (never fails).
 * @return true when a mounted hugetlbfs serves a size with free pages. */
bool rxr_hugepage_probe(struct rxr_hugepage_info *info);

/** What backs this process's EAL memory, after rxr_eal_init(). */
enum rxr_mem_backing {
	RXR_MEM_HUGEPAGES,	/**< hugetlbfs pages */
	RXR_MEM_NO_HUGE,	/**< anonymous memory, --no-huge */
};

/** "hugepages" or "no-huge", as printed and written in reports. */
const char *rxr_mem_backing_name(enum rxr_mem_backing b);

/**
 * rte_eal_init(), with "--no-huge -m <fallback_mib>" added when no hugepage
 * is usable, said on @p log. @return rte_eal_init()'s; *backing set.
 */
int rxr_eal_init(int argc, char **argv, unsigned int fallback_mib,
		FILE *log, enum rxr_mem_backing *backing);

#ifdef __cplusplus
}
#endif

#endif /* RXR_HUGEPAGE_H */
