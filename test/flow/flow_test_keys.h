/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * What the flow table tests share: their random stream (seeded by each
 * test's main, a fixed seed so that runs repeat) and the keys they count.
 */

#ifndef FLOW_TEST_KEYS_H
#define FLOW_TEST_KEYS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_flow.h"
#include "rxr_test.h"

static uint64_t rng;

static inline uint64_t
rnd(void)
{
	return rxr_test_xorshift(&rng);
}

/* nb distinct keys, IPv4 and IPv6, TCP and UDP. */
static inline struct rxr_flow_key *
make_keys(unsigned int nb)
{
	struct rxr_flow_key *k = calloc(nb, sizeof(*k));

	for (unsigned int i = 0; k != NULL && i < nb; i++) {
		/* i in the source port and address keeps them distinct. */
		uint16_t sport = (uint16_t)(1024 + i % 50000);
		uint16_t dport = (uint16_t)(rnd() % 65536);
		uint8_t proto = i % 2 ? 17 : 6;

		if (i % 5 == 4) {
			uint8_t s[16] = { 0xfd }, d[16] = { 0xfd, 1 };

			memcpy(&s[8], &i, sizeof(i));
			for (unsigned int j = 12; j < 16; j++)
				d[j] = (uint8_t)rnd();
			rxr_flow_key_v6(&k[i], s, d, sport, dport, proto);
		} else {
			rxr_flow_key_v4(&k[i], 0x0a000000u + i / 50000 * 65536 +
				i % 50000, 0xc0a80001u, sport, dport, proto);
		}
	}
	return k;
}

#endif /* FLOW_TEST_KEYS_H */
