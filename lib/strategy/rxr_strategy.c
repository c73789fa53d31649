/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The registry of strategies: one entry per line of rxr_strategy_list.h,
 * indexed by enum rxr_strategy. Names and capabilities come from each
 * strategy's own table.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rxr_path.h"
#include "rxr_pool_private.h"

static const struct rxrp_strategy * const registry[RXR_STRATEGY_MAX] = {
#define RXR_STRATEGY(id, name) [RXR_STRATEGY_##id] = &rxrp_strategy_##name,
#include "rxr_strategy_list.h"
#undef RXR_STRATEGY
};

const struct rxrp_strategy *
rxrp_strategy_get(enum rxr_strategy s)
{
	return (unsigned int)s < RXR_STRATEGY_MAX ? registry[s] : NULL;
}

const char *
rxr_strategy_name(enum rxr_strategy s)
{
	const struct rxrp_strategy *st = rxrp_strategy_get(s);

	return st != NULL ? st->name : "?";
}

/* snprintf() at *n of buf, *n counting what would have been written. */
static void __rte_format_printf(4, 5)
cat(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf + RTE_MIN(*n, len), len - RTE_MIN(*n, len), fmt, ap);
	va_end(ap);
	*n += k > 0 ? (size_t)k : 0;
}

size_t
rxr_strategy_user_names(char *buf, size_t len)
{
	size_t n = 0;

	if (len != 0)
		buf[0] = '\0';
	for (unsigned int i = 0; i < RXR_STRATEGY_USER_MAX; i++)
		cat(buf, len, &n, "%s%s", i != 0 ? ", " : "", registry[i]->name);
	return n;
}

bool
rxr_strategy_available(enum rxr_strategy s, char *why, size_t len)
{
	const struct rxrp_strategy *st = rxrp_strategy_get(s);
	char tmp[8];

	if (why == NULL || len == 0) {
		why = tmp;
		len = sizeof(tmp);
	}
	why[0] = '\0';
	if (st == NULL)
		snprintf(why, len, "not a strategy");
	return st != NULL && (st->available == NULL || st->available(why, len));
}

unsigned int
rxr_strategy_counters(enum rxr_strategy s, const char * const **names)
{
	const struct rxrp_strategy *st = rxrp_strategy_get(s);
	unsigned int n = 0;

	*names = st != NULL ? st->counters : NULL;
	while (*names != NULL && n < RXR_STRATEGY_COUNTERS_MAX &&
			(*names)[n] != NULL)
		n++;
	return n;
}

unsigned int
rxr_strategy_settings(enum rxr_strategy s,
		const struct rxr_strategy_setting **set)
{
	const struct rxrp_strategy *st = rxrp_strategy_get(s);
	unsigned int n = 0;

	*set = st != NULL ? st->settings : NULL;
	while (*set != NULL && n < RXR_STRATEGY_SETTINGS_MAX &&
			(*set)[n].name != NULL)
		n++;
	if (n == 0)
		*set = NULL;
	return n;
}

static int
setting_index(enum rxr_strategy s, const char *name)
{
	const struct rxr_strategy_setting *set;
	unsigned int n = rxr_strategy_settings(s, &set);

	for (unsigned int i = 0; i < n; i++)
		if (name != NULL && strcmp(set[i].name, name) == 0)
			return (int)i;
	return -1;
}

int
rxr_strategy_settings_fill(enum rxr_strategy s,
		uint32_t settings[RXR_STRATEGY_SETTINGS_MAX], char *why,
		size_t len)
{
	const struct rxr_strategy_setting *set;
	unsigned int n = rxr_strategy_settings(s, &set);
	uint32_t given = 0;

	for (unsigned int i = n; i < RXR_STRATEGY_SETTINGS_MAX; i++)
		if (settings[i] != 0) {
			snprintf(why, len, "#%u = %u: %s has only %u settings",
				i, settings[i], rxr_strategy_name(s), n);
			return -EINVAL;
		}
	for (unsigned int i = 0; i < n; i++) {
		if (settings[i] == 0) {
			settings[i] = set[i].def;
		} else if (settings[i] < set[i].min ||
				settings[i] > set[i].max) {
			snprintf(why, len, "%s %u is out of %u..%u",
				set[i].name, settings[i], set[i].min, set[i].max);
			return -EINVAL;
		} else {
			given |= 1u << i;
		}
		/* What is recorded and sized for is what runs. */
		if (set[i].pow2)
			settings[i] = rte_align32pow2(settings[i]);
	}
	for (unsigned int i = 0; i < n; i++) {
		int j = setting_index(s, set[i].at_most);

		if (j < 0)
			continue;
		if (!(given & (1u << i)))
			settings[i] = RTE_MIN(settings[i], settings[j]);
		if (settings[i] > settings[j]) {
			snprintf(why, len, "%s %u is over %s %u%s", set[i].name,
				settings[i], set[j].name, settings[j],
				given & (1u << j) ? "" : " (the default)");
			return -EINVAL;
		}
	}
	return 0;
}

int
rxr_strategy_setting_parse(const char *key, const char *value,
		enum rxr_strategy *s, unsigned int *index, uint32_t *v,
		char *why, size_t len)
{
	const char *dot = strchr(key, '.');
	const struct rxr_strategy_setting *set;
	char strategy[32], list[256];
	uint64_t x;
	int i;

	if (dot != NULL && (size_t)(dot - key) < sizeof(strategy))
		snprintf(strategy, sizeof(strategy), "%.*s", (int)(dot - key),
			key);
	if (dot == NULL || (size_t)(dot - key) >= sizeof(strategy) ||
			rxr_strategy_parse(strategy, false, s) != 0) {
		char names[128];

		rxr_strategy_setting_keys(list, sizeof(list), ", ");
		rxr_strategy_user_names(names, sizeof(names));
		if (dot == NULL)
			snprintf(why, len, "'%s' is not STRATEGY.SETTING (the "
				"settings: %s)", key, list);
		else
			snprintf(why, len, "'%s': unknown strategy '%.*s' (%s; "
				"the settings: %s)", key, (int)(dot - key), key,
				names, list);
		return -EINVAL;
	}
	i = setting_index(*s, dot + 1);
	if (i < 0) {
		size_t n = 0, nb = rxr_strategy_settings(*s, &set);

		list[0] = '\0';
		for (unsigned int j = 0; j < nb; j++)
			cat(list, sizeof(list), &n, "%s%s", j ? ", " : "",
				set[j].name);
		if (nb == 0)
			snprintf(why, len, "'%s': strategy %s has no settings",
				key, rxr_strategy_name(*s));
		else
			snprintf(why, len, "'%s': strategy %s has no setting "
				"'%s' (it has %s)", key, rxr_strategy_name(*s),
				dot + 1, list);
		return -EINVAL;
	}
	rxr_strategy_settings(*s, &set);
	if (value == NULL) {
		snprintf(why, len, "'%s' has no value (%s=N, N in %u..%u)",
			key, key, set[i].min, set[i].max);
		return -EINVAL;
	}
	if (rxr_parse_decimal(value, set[i].min, set[i].max, &x) != 0) {
		snprintf(why, len, "%s=%s: expected a decimal whole number in "
			"%u..%u", key, value, set[i].min, set[i].max);
		return -EINVAL;
	}
	*index = (unsigned int)i;
	*v = (uint32_t)x;
	return 0;
}

size_t
rxr_strategy_setting_keys(char *buf, size_t len, const char *sep)
{
	size_t n = 0;

	if (len != 0)
		buf[0] = '\0';
	for (unsigned int s = 0; s < RXR_STRATEGY_USER_MAX; s++) {
		const struct rxr_strategy_setting *set;
		unsigned int nb = rxr_strategy_settings(s, &set);

		for (unsigned int i = 0; i < nb; i++)
			cat(buf, len, &n, "%s%s.%s", n != 0 ? sep : "",
				registry[s]->name, set[i].name);
	}
	return n;
}

void
rxr_strategy_settings_print(FILE *f)
{
	for (unsigned int s = 0; s < RXR_STRATEGY_USER_MAX; s++) {
		const struct rxr_strategy_setting *set;
		unsigned int nb = rxr_strategy_settings(s, &set);

		if (nb == 0)
			fprintf(f, "%s: no settings\n", registry[s]->name);
		for (unsigned int i = 0; i < nb; i++)
			fprintf(f, "%s.%s=%u..%u (default %u): %s\n",
				registry[s]->name, set[i].name, set[i].min,
				set[i].max, set[i].def, set[i].help);
	}
}

uint64_t
rxr_strategy_lcore_frames(enum rxr_strategy s,
		const uint32_t settings[RXR_STRATEGY_SETTINGS_MAX])
{
	const struct rxr_strategy_setting *set;
	unsigned int n = rxr_strategy_settings(s, &set);
	uint64_t frames = 0;

	for (unsigned int i = 0; i < n; i++)
		if (set[i].holds_frames)
			frames += settings[i] != 0 ? settings[i] : set[i].def;
	return frames;
}

bool
rxr_strategy_has(enum rxr_strategy s, uint32_t caps)
{
	const struct rxrp_strategy *st = rxrp_strategy_get(s);

	return st != NULL && (st->caps & caps) == caps;
}

int
rxr_strategy_parse(const char *name, bool allow_none, enum rxr_strategy *s)
{
	for (unsigned int i = 0; i < RXR_STRATEGY_MAX; i++)
		if (strcasecmp(name, registry[i]->name) == 0 &&
				(allow_none || !(registry[i]->caps &
					RXR_STRATEGY_CAP_TEST_ONLY))) {
			*s = i;
			return 0;
		}
	return -EINVAL;
}
