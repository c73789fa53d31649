/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Process-wide configuration of pools that an application creates without
 * rxrefill's help (rte_pktmbuf_pool_create() with --mbuf-pool-ops-name
 * rxrefill): mempool ops take no arguments, so the settings come from the
 * environment variable RXREFILL_POOL, in rte_kvargs syntax.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rte_common.h>
#include <rte_kvargs.h>

#include "rxr_mempool.h"
#include "rxr_path.h"

/* The keys of the pool itself; the strategies' settings follow them. */
static const char * const env_pool_keys[] = {
	"strategy", "bulk", "high", "batch", "zero", "zero_method",
};

struct env_parse {
	struct rxr_pool_conf *pc;
	/* Settings given, by strategy: only the pool's may be. */
	uint32_t settings[RXR_STRATEGY_USER_MAX][RXR_STRATEGY_SETTINGS_MAX];
	char err[384];
};

/* A pair whose key env_keys_check() knows; why not taken in e->err. */
static int
env_kv(const char *key, const char *v, struct env_parse *e)
{
	struct rxr_pool_conf *pc = e->pc;
	char why[160], zerr[128];
	uint64_t x;

	if (v == NULL) {
		snprintf(e->err, sizeof(e->err), "%s: missing '=value'", key);
		return -1;
	}
	if (strchr(key, '.') != NULL) {
		enum rxr_strategy s;
		unsigned int i;
		uint32_t u;

		if (rxr_strategy_setting_parse(key, v, &s, &i, &u, e->err,
				sizeof(e->err)) != 0)
			return -1;
		e->settings[s][i] = u;
	} else if (strcmp(key, "strategy") == 0) {
		if (rxr_strategy_parse(v, false, &pc->strategy) != 0) {
			rxr_strategy_user_names(why, sizeof(why));
			snprintf(e->err, sizeof(e->err), "strategy=%s: expected "
				"one of %s", v, why);
			return -1;
		}
		if (!rxr_strategy_available(pc->strategy, why, sizeof(why))) {
			snprintf(e->err, sizeof(e->err), "strategy=%s: not "
				"available here: %s", v, why);
			return -1;
		}
	} else if (strcmp(key, "bulk") == 0) {
		pc->bulk = strcasecmp(v, "on") == 0 || strcmp(v, "1") == 0;
		if (!pc->bulk && strcasecmp(v, "off") != 0 &&
				strcmp(v, "0") != 0) {
			snprintf(e->err, sizeof(e->err),
				"bulk=%s: expected on or off", v);
			return -1;
		}
	} else if (strncmp(key, "zero", 4) == 0) {
		if ((key[4] == '\0' ? rxr_zero_policy_parse(v, &pc->zero_policy,
				zerr, sizeof(zerr)) : rxr_zero_method_parse(v,
				&pc->zero_method, zerr, sizeof(zerr))) != 0) {
			snprintf(e->err, sizeof(e->err), "%s=%.32s: %s", key,
				v, zerr);
			return -1;
		}
	} else {
		/* high or batch: digits only, no sign, blank or hex. */
		if (rxr_parse_decimal(v, 1, UINT16_MAX, &x) != 0) {
			snprintf(e->err, sizeof(e->err), "%s=%.32s: expected a "
				"decimal count in 1..%u", key, v, UINT16_MAX);
			return -1;
		}
		*(key[0] == 'h' ? &pc->high : &pc->batch) = (uint32_t)x;
	}
	return 0;
}

/*
 * What rte_kvargs refused (kv NULL: too many pairs, silently, or not
 * key=value), an unknown key (a strategy's setting: which there are), or
 * a key given twice: rte_kvargs keeps both pairs and the last would win,
 * so "strategy=bh,strategy=zone" would run zone silently.
 */
static int
env_keys_check(const char *s, const struct rte_kvargs *kv, char *err,
		size_t errlen)
{
	unsigned int pairs = 1;
	char keys[512], why[384];
	size_t off = 0;
	enum rxr_strategy st;
	unsigned int idx;
	uint32_t x;

	/* Every key, ", " separated, for messages. */
	for (unsigned int i = 0; i < RTE_DIM(env_pool_keys); i++)
		off += snprintf(keys + off, sizeof(keys) - off, "%s, ",
			env_pool_keys[i]);
	rxr_strategy_setting_keys(keys + off, sizeof(keys) - off, ", ");
	for (const char *c = s; *c != '\0'; c++)
		pairs += *c == ',';
	if (kv == NULL && pairs > RTE_KVARGS_MAX)
		snprintf(err, errlen, "%s: %u key=value pairs, DPDK's "
			"rte_kvargs reads at most %u", RXR_MEMPOOL_ENV,
			pairs, RTE_KVARGS_MAX);
	else if (kv == NULL)
		snprintf(err, errlen, "%s=\"%.100s\": not key=value"
			"[,key=value...] with keys %s", RXR_MEMPOOL_ENV, s,
			keys);
	for (unsigned int i = 0; kv != NULL && i < kv->count; i++) {
		const char *key = kv->pairs[i].key;
		unsigned int j = 0;

		if (strchr(key, '.') != NULL) {
			if (rxr_strategy_setting_parse(key, "1", &st, &idx, &x,
					why, sizeof(why)) == 0)
				continue;
			snprintf(err, errlen, "%s: %s", RXR_MEMPOOL_ENV, why);
			return -EINVAL;
		}
		while (j < RTE_DIM(env_pool_keys) &&
				strcmp(env_pool_keys[j], key) != 0)
			j++;
		if (j < RTE_DIM(env_pool_keys))
			continue;
		snprintf(err, errlen, "%s: unknown key '%s' (keys: %s)",
			RXR_MEMPOOL_ENV, key, keys);
		return -EINVAL;
	}
	for (unsigned int j = 1; kv != NULL && j < kv->count; j++)
		for (unsigned int i = 0; i < j; i++) {
			const struct rte_kvargs_pair *a = &kv->pairs[i];
			const struct rte_kvargs_pair *b = &kv->pairs[j];

			if (strcmp(a->key, b->key) != 0)
				continue;
			snprintf(err, errlen, "%s: %s given twice (%s=%.32s, "
				"then %s=%.32s): give each key once",
				RXR_MEMPOOL_ENV, a->key, a->key,
				a->value != NULL ? a->value : "", b->key,
				b->value != NULL ? b->value : "");
			return -EINVAL;
		}
	return kv == NULL ? -EINVAL : 0;
}

/*
 * DPDK 22.11's rte_kvargs reads "a=b=c" as the pair b=c, dropping a:
 * "bulk=strategy=zone" would run zone with no word about bulk. A pair
 * holds one '='. It also skips empty pairs: "," would run the defaults.
 */
static int
env_pairs_check(const char *s, char *err, size_t errlen)
{
	const char *pair = s;

	for (;;) {
		size_t len = strcspn(pair, ",");
		const char *eq = memchr(pair, '=', len);

		if (len == 0) {
			snprintf(err, errlen, "%s=\"%.64s\": an empty key=value "
				"pair (pairs are separated by one ',')",
				RXR_MEMPOOL_ENV, s);
			return -EINVAL;
		}
		if (eq != NULL && memchr(eq + 1, '=',
				len - (size_t)(eq + 1 - pair)) != NULL) {
			snprintf(err, errlen, "%s: '%.*s': one '=' per "
				"key=value pair (pairs are separated by ',')",
				RXR_MEMPOOL_ENV, (int)RTE_MIN(len, (size_t)64),
				pair);
			return -EINVAL;
		}
		pair += len;
		if (*pair++ == '\0')
			return 0;
	}
}

/* Settings of the pool's strategy only, checked together. */
static int
env_settings(struct env_parse *e, char *err, size_t errlen)
{
	struct rxr_pool_conf *pc = e->pc;
	uint32_t v[RXR_STRATEGY_SETTINGS_MAX];
	char why[256];

	for (unsigned int s = 0; s < RXR_STRATEGY_USER_MAX; s++) {
		const struct rxr_strategy_setting *set;
		unsigned int nb = rxr_strategy_settings(s, &set);

		for (unsigned int i = 0; i < nb; i++) {
			if (e->settings[s][i] == 0 || s == pc->strategy)
				continue;
			snprintf(err, errlen, "%s: %s.%s=%u: the pool's strategy "
				"is %s (strategy=%s to use it)", RXR_MEMPOOL_ENV,
				rxr_strategy_name(s), set[i].name,
				e->settings[s][i], rxr_strategy_name(pc->strategy),
				rxr_strategy_name(s));
			return -EINVAL;
		}
	}
	if (pc->strategy >= RXR_STRATEGY_USER_MAX)
		return 0;
	/* Given as given (0: the default): the pool fills them in again. */
	memcpy(pc->settings, e->settings[pc->strategy], sizeof(pc->settings));
	memcpy(v, pc->settings, sizeof(v));
	if (rxr_strategy_settings_fill(pc->strategy, v, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "%s: refused by %s: %s", RXR_MEMPOOL_ENV,
			rxr_strategy_name(pc->strategy), why);
		return -EINVAL;
	}
	return 0;
}

/*
 * err as a terminal may show it: control characters of the variable
 * (an escape sequence that clears the screen) as \xNN, bytes above 0x7f
 * as they are (UTF-8).
 */
static void
env_err_escape(char *err, size_t errlen)
{
	char raw[1024];
	size_t o = 0;

	snprintf(raw, sizeof(raw), "%s", err);
	for (const char *c = raw; *c != '\0' && o + 5 <= errlen; c++) {
		unsigned char ch = (unsigned char)*c;

		if (ch < 0x20 || ch == 0x7f)
			o += (size_t)snprintf(err + o, errlen - o, "\\x%02x", ch);
		else
			err[o++] = (char)ch;
	}
	if (errlen != 0)
		err[o < errlen ? o : errlen - 1] = '\0';
}

int
rxr_mempool_env_conf(struct rxr_pool_conf *pc, char *err, size_t errlen)
{
	const char *s = getenv(RXR_MEMPOOL_ENV);
	struct env_parse e = { .pc = pc };
	struct rte_kvargs *kv = NULL;
	unsigned int i = 0;
	int ret = -EINVAL;

	memset(pc, 0, sizeof(*pc));
	pc->strategy = RXR_STRATEGY_BH;
	pc->bulk = true;
	if (s == NULL || s[0] == '\0')
		return 0;
	if (env_pairs_check(s, err, errlen) != 0)
		goto out;
	kv = rte_kvargs_parse(s, NULL);
	if (env_keys_check(s, kv, err, errlen) != 0)
		goto out;
	while (i < kv->count && env_kv(kv->pairs[i].key, kv->pairs[i].value,
			&e) == 0)
		i++;
	if (i < kv->count)
		snprintf(err, errlen, "%s: %s", RXR_MEMPOOL_ENV, e.err);
	else if (pc->high != 0 && pc->high < (pc->batch != 0 ? pc->batch :
			RXR_PCP_BATCH_DEFAULT))
		snprintf(err, errlen, "%s: high=%u is below batch=%u",
			RXR_MEMPOOL_ENV, pc->high, pc->batch != 0 ? pc->batch :
			RXR_PCP_BATCH_DEFAULT);
	else
		ret = env_settings(&e, err, errlen);
out:
	rte_kvargs_free(kv);
	if (ret != 0)
		env_err_escape(err, errlen);
	return ret;
}
