/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The registry of strategies: one entry per line of rxr_strategy_list.h,
 * indexed by enum rxr_strategy. Names and capabilities come from each
 * strategy's own table.
 */

#include <stdio.h>
#include <string.h>
#include <strings.h>

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

size_t
rxr_strategy_user_names(char *buf, size_t len)
{
	size_t n = 0;

	if (len != 0)
		buf[0] = '\0';
	for (unsigned int i = 0; i < RXR_STRATEGY_USER_MAX; i++) {
		int k = snprintf(buf + RTE_MIN(n, len), len - RTE_MIN(n, len),
				"%s%s", i != 0 ? ", " : "", registry[i]->name);

		n += k > 0 ? (size_t)k : 0;
	}
	return n;
}

bool
rxr_strategy_available(enum rxr_strategy s, char *why, size_t len)
{
	const struct rxrp_strategy *st = rxrp_strategy_get(s);

	if (why != NULL && len != 0)
		why[0] = '\0';
	if (st == NULL) {
		if (why != NULL)
			snprintf(why, len, "not a strategy");
		return false;
	}
	if (st->available == NULL)
		return true;
	if (why == NULL) {
		char tmp[8];

		return st->available(tmp, sizeof(tmp));
	}
	return st->available(why, len);
}

/* Entries of a NULL-terminated list, at most max. */
static unsigned int
names_count(const char * const *names, unsigned int max)
{
	unsigned int n = 0;

	while (names != NULL && n < max && names[n] != NULL)
		n++;
	return n;
}

static int
names_index(const char * const *names, unsigned int n, const char *name)
{
	for (unsigned int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

unsigned int
rxr_strategy_counters(enum rxr_strategy s, const char * const **names)
{
	const struct rxrp_strategy *st = rxrp_strategy_get(s);

	*names = st != NULL ? st->counter_names : NULL;
	return names_count(*names, RXR_STRATEGY_COUNTERS_MAX);
}

int
rxr_strategy_counter_index(enum rxr_strategy s, const char *name)
{
	const char * const *names;
	unsigned int n = rxr_strategy_counters(s, &names);

	return names_index(names, n, name);
}

unsigned int
rxr_strategy_settings(enum rxr_strategy s, const char * const **names)
{
	const struct rxrp_strategy *st = rxrp_strategy_get(s);

	*names = st != NULL ? st->setting_names : NULL;
	return names_count(*names, RXR_STRATEGY_SETTINGS_MAX);
}

int
rxr_strategy_setting_index(enum rxr_strategy s, const char *name)
{
	const char * const *names;
	unsigned int n = rxr_strategy_settings(s, &names);

	return names_index(names, n, name);
}

uint32_t
rxr_strategy_caps(enum rxr_strategy s)
{
	const struct rxrp_strategy *st = rxrp_strategy_get(s);

	return st != NULL ? st->caps : 0;
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
