/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The programs' version line and the DPDK they were built against
 * (rxr_version.h).
 */

#include <stdio.h>
#include <string.h>

#include <rte_version.h>

#include "rxr_build_config.h"
#include "rxr_version.h"
#include "rxr_vcs_version.h"	/* RXR_VCS_DESCRIBE, made by meson's vcs_tag */

const char *
rxr_version(void)
{
	static char buf[128];

	/* Outside a checkout vcs_tag falls back to the project version. */
	if (RXR_VCS_DESCRIBE[0] == '\0' ||
			strcmp(RXR_VCS_DESCRIBE, RXR_VERSION) == 0)
		return RXR_VERSION;
	snprintf(buf, sizeof(buf), "%s (git %s)", RXR_VERSION,
		RXR_VCS_DESCRIBE);
	return buf;
}

void
rxr_version_print(FILE *out, const char *prog, const char *dpdk_running)
{
	fprintf(out, "%s %s\n", prog, rxr_version());
	fprintf(out, "built against DPDK %d.%02d.%d%s\n", RTE_VER_YEAR,
		RTE_VER_MONTH, RTE_VER_MINOR, RTE_VER_SUFFIX);
	if (dpdk_running != NULL)
		fprintf(out, "running with %s\n", dpdk_running);
}
