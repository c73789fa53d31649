/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_ZERO_PRIV_H
#define RXR_ZERO_PRIV_H

#include "rxr_zero.h"

/*
 * Debug builds: fail the unfenced-nt check when this thread has streaming
 * stores that no fence ordered yet (before publishing frames).
 */
void rxr_zero_debug_check_fenced(const char *where);

#endif /* RXR_ZERO_PRIV_H */
