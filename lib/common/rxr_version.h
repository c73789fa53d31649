/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_VERSION_H
#define RXR_VERSION_H

/**
 * @file
 * The programs' version (meson's, with `git describe` in a checkout) and
 * the DPDK built against. No EAL needed.
 */

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** "0.1.0" or, from a checkout, "0.1.0 (git 71ceb39-dirty)". */
const char *rxr_version(void);

/** Print a program's --version text: the version, the DPDK built against
 * and the one running if not NULL. */
void rxr_version_print(FILE *out, const char *prog, const char *dpdk_running);

#ifdef __cplusplus
}
#endif

#endif /* RXR_VERSION_H */
