/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Process-wide configuration of pools that an application creates without
 * rxrefill's help (rte_pktmbuf_pool_create() with --mbuf-pool-ops-name
 * rxrefill): mempool ops take no arguments, so the settings come from the
 * environment variable RXREFILL_POOL, in rte_kvargs syntax.
 */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_kvargs.h>
#include <rte_log.h>

#include "rxr_mempool.h"

static const char * const env_keys[] = {
	"strategy", "bulk", "high", "batch", "zero", "zero_method", NULL,
};

struct env_parse {
	struct rxr_pool_conf *pc;
	char err[192];
};

/* Decimal digits only: no sign, blank, hex or octal ("010" is ten). */
static int
parse_u32(const char *key, const char *v, uint32_t *out, struct env_parse *e)
{
	uint32_t x = 0;
	const char *p;

	for (p = v; *p >= '0' && *p <= '9' && x <= UINT16_MAX; p++)
		x = x * 10 + (uint32_t)(*p - '0');
	if (v[0] == '\0' || *p != '\0' || x == 0 || x > UINT16_MAX) {
		snprintf(e->err, sizeof(e->err), "%s=%.32s: expected a "
			"decimal count in 1..%u", key, v, UINT16_MAX);
		return -1;
	}
	*out = x;
	return 0;
}

static int
env_kv(const char *key, const char *v, void *arg)
{
	struct env_parse *e = arg;
	struct rxr_pool_conf *pc = e->pc;
	char zerr[128];

	if (v == NULL) {
		snprintf(e->err, sizeof(e->err), "%s: missing '=value'", key);
		return -1;
	}
	if (strcmp(key, "strategy") == 0) {
		char names[128], why[160];

		if (rxr_strategy_parse(v, false, &pc->strategy) != 0) {
			rxr_strategy_user_names(names, sizeof(names));
			snprintf(e->err, sizeof(e->err), "strategy=%s: expected "
				"one of %s", v, names);
			return -1;
		}
		if (!rxr_strategy_available(pc->strategy, why, sizeof(why))) {
			snprintf(e->err, sizeof(e->err), "strategy=%s: not "
				"available here: %s", v, why);
			return -1;
		}
	} else if (strcmp(key, "bulk") == 0) {
		if (strcasecmp(v, "on") == 0 || strcmp(v, "1") == 0)
			pc->bulk = true;
		else if (strcasecmp(v, "off") == 0 || strcmp(v, "0") == 0)
			pc->bulk = false;
		else {
			snprintf(e->err, sizeof(e->err),
				"bulk=%s: expected on or off", v);
			return -1;
		}
	} else if (strcmp(key, "high") == 0) {
		return parse_u32(key, v, &pc->high, e);
	} else if (strcmp(key, "batch") == 0) {
		return parse_u32(key, v, &pc->batch, e);
	} else if (strcmp(key, "zero") == 0) {
		if (rxr_zero_policy_parse(v, &pc->zero_policy, zerr,
				sizeof(zerr)) != 0) {
			snprintf(e->err, sizeof(e->err), "zero=%s", zerr);
			return -1;
		}
	} else if (strcmp(key, "zero_method") == 0) {
		if (rxr_zero_method_parse(v, &pc->zero_method, zerr,
				sizeof(zerr)) != 0) {
			snprintf(e->err, sizeof(e->err), "zero_method=%s", zerr);
			return -1;
		}
	}
	return 0;
}

int
rxr_mempool_env_conf(struct rxr_pool_conf *pc, char *err, size_t errlen)
{
	const char *s = getenv(RXR_MEMPOOL_ENV);
	struct env_parse e = { .pc = pc };
	struct rte_kvargs *kv;
	int ret;

	memset(pc, 0, sizeof(*pc));
	pc->strategy = RXR_STRATEGY_BH;
	pc->bulk = true;
	if (s == NULL || s[0] == '\0')
		return 0;
	kv = rte_kvargs_parse(s, env_keys);
	if (kv == NULL) {
		unsigned int pairs = 1;

		for (const char *c = s; *c != '\0'; c++)
			pairs += *c == ',';
		/* rte_kvargs refuses more pairs than it holds, silently. */
		if (pairs > RTE_KVARGS_MAX)
			snprintf(err, errlen, "%s: %u key=value pairs, DPDK's "
				"rte_kvargs reads at most %u", RXR_MEMPOOL_ENV,
				pairs, RTE_KVARGS_MAX);
		else
			snprintf(err, errlen, "%s=\"%.100s\": not "
				"key=value[,key=value...] with keys strategy, "
				"bulk, high, batch, zero, zero_method",
				RXR_MEMPOOL_ENV, s);
		return -EINVAL;
	}
	ret = rte_kvargs_process(kv, NULL, env_kv, &e);
	rte_kvargs_free(kv);
	if (ret != 0) {
		snprintf(err, errlen, "%s: %s", RXR_MEMPOOL_ENV, e.err);
		return -EINVAL;
	}
	if (pc->high != 0 && pc->high < (pc->batch != 0 ? pc->batch :
			RXR_PCP_BATCH_DEFAULT)) {
		snprintf(err, errlen, "%s: high=%u is below batch=%u",
			RXR_MEMPOOL_ENV, pc->high, pc->batch != 0 ? pc->batch :
			RXR_PCP_BATCH_DEFAULT);
		return -EINVAL;
	}
	return 0;
}
