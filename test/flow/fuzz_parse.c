/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Fuzz target: the frame parser and what reports do with its key.
 * libFuzzer hands over a buffer of exactly size bytes, so AddressSanitizer
 * catches any read past the length. Invariants that a report relies on
 * are checked too: offsets inside the frame, a key with a known family.
 */

#include <stdint.h>
#include <stdlib.h>

#include "rxr_flow.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rxr_flow_rss rss;
	struct rxr_flow_info info;
	char buf[RXR_FLOW_ADDR_STRLEN];
	int ret;

	if (rss.reta == NULL &&
			rxr_flow_rss_init(&rss, NULL, RXR_FLOW_RSS_L3L4, 512, 3) != 0)
		abort();

	ret = rxr_flow_parse(data, size, &info);
	if (ret > 0 || ret < RXR_FLOW_E_MALFORMED)
		abort();
	if (ret != RXR_FLOW_OK) {
		if (info.key.family != 0)
			abort();	/* no half-filled key on error */
		return 0;
	}
	if (info.nb_vlan > RXR_FLOW_MAX_VLAN)
		abort();
	if (info.key.family != RXR_FLOW_IPV4 && info.key.family != RXR_FLOW_IPV6)
		abort();
	if ((info.key.flags & RXR_FLOW_F_PORTS) && (info.key.flags & RXR_FLOW_F_FRAG))
		abort();
	if (rxr_flow_rss_queue(&rss, &info.key, NULL) >= 3)
		abort();
	rxr_flow_addr_str(&info.key, true, buf, sizeof(buf));
	return 0;
}
