/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Background zeroing (doc/zeroing.md, policy background): one thread,
 * on a CPU no poll lcore runs on when there is one, keeps every poll
 * lcore's supply of pre-zeroed frames filled.
 */

#include <pthread.h>
#include <unistd.h>

#include <rte_lcore.h>

#include "rxrefill.h"
#include "rxr_log.h"

/* With every supply full, the thread sleeps this long before looking. */
#define ZEROER_IDLE_US 20

static pthread_t zeroer;
static atomic_bool zeroer_quit;
static bool zeroer_running;

static void *
zeroer_main(void *arg)
{
	struct app *a = arg;

	cpus_pin_self(a->zeroer_cpu, "zeroing thread");
	while (!flag_get(&zeroer_quit)) {
		unsigned int made = 0;

		for (unsigned int i = 0; i < a->nb_ports; i++)
			if (a->ports[i].mp != NULL)
				made += rxr_pool_zero_service(
					rxr_mempool_pool(a->ports[i].mp),
					RXR_ZERO_SUPPLY_SERVICE_BUDGET);
		/* Supplies full: let the main lcore's work run. */
		if (made == 0)
			usleep(ZEROER_IDLE_US);
	}
	return NULL;
}

int
zeroer_start(struct app *a)
{
	if (!(a->opt.zero_policies & 1u << RXR_ZERO_POLICY_BACKGROUND))
		return 0;
	flag_set(&zeroer_quit, false);
	if (pthread_create(&zeroer, NULL, zeroer_main, a) != 0) {
		RXR_LOG(ERR, "cannot start the zeroing thread");
		return -1;
	}
	zeroer_running = true;
	return 0;
}

void
zeroer_stop(struct app *a)
{
	if (!zeroer_running)
		return;
	flag_set(&zeroer_quit, true);
	pthread_join(zeroer, NULL);
	zeroer_running = false;
}
