/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Start EAL the way every C test does (rxr_test_eal_init()) and end:
 * for test_eal_prefix.py, which checks what a test's start removes of
 * dead tests' runtime directories.
 */

#include <rte_common.h>
#include <rte_eal.h>

#include "rxr_test.h"

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	rxr_test_eal_init(argv[0], "0", 64, NULL);
	rte_eal_cleanup();
	return 0;
}
