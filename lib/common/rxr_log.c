/* SPDX-License-Identifier: BSD-3-Clause */

#include "rxr_log.h"

/* As testpmd registers its own: "rxrefill", NOTICE unless --log-level says. */
RTE_LOG_REGISTER_DEFAULT(rxr_logtype, NOTICE);
