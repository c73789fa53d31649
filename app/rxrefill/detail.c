/* SPDX-License-Identifier: BSD-3-Clause */

/* runs[].queues[], runs[].lcores[] and runs[].xstats (those that changed)
 * between the window's ends, on the main lcore. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "rxrefill.h"
#include "rxr_log.h"

struct xstats {
	struct rte_eth_xstat_name *names;
	uint64_t *v0, *v1;
	int n;
};

/* The window's ends (s1 NULL until it closes), and each port's xstats. */
static struct {
	const struct snapshot *s0, *s1;
	struct xstats x[MAX_PORTS];
} d;

static void
xstats_free(struct xstats *x)
{
	free(x->names);
	free(x->v0);
	free(x->v1);
	memset(x, 0, sizeof(*x));
}

void
detail_sample(struct app *a, const struct snapshot *snap, bool first)
{
	d.s1 = first ? NULL : snap;
	if (first)
		d.s0 = snap;
	for (unsigned int i = 0; i < a->nb_ports; i++) {
		struct xstats *x = &d.x[i];
		uint16_t port = a->ports[i].id;

		if (first) {
			int n = rte_eth_xstats_get_names(port, NULL, 0);

			xstats_free(x);
			if (n <= 0)
				continue;
			x->names = calloc(n, sizeof(*x->names));
			x->v0 = calloc(n, sizeof(*x->v0));
			x->v1 = calloc(n, sizeof(*x->v1));
			if (x->names == NULL || x->v0 == NULL || x->v1 == NULL ||
					rte_eth_xstats_get_names(port, x->names,
						n) != n) {
				x->n = 0;
				continue;
			}
			x->n = n;
		}
		if (x->n > 0) {
			struct rte_eth_xstat xs[x->n];
			uint64_t *v = first ? x->v0 : x->v1;

			if (rte_eth_xstats_get(port, xs, x->n) != x->n) {
				x->n = 0;
				continue;
			}
			for (int j = 0; j < x->n; j++)
				if (xs[j].id < (uint64_t)x->n)
					v[xs[j].id] = xs[j].value;
		}
	}
}

static json_t *
queues_json(const struct app *a)
{
	json_t *arr = json_array();

	for (unsigned int k = 0; arr != NULL && k < a->nb_pollers; k++) {
		const struct poller *pl = &a->pollers[k];

		for (unsigned int i = 0; i < pl->nb_q; i++) {
			const struct poll_queue *q = &pl->q[i];
			const struct snapshot *s0 = d.s0, *s1 = d.s1;
			unsigned int pi = 0;
			const struct rte_eth_stats *e0, *e1;
			json_t *o = json_pack("{s:i, s:i, s:i, s:I, s:I}",
				"port", q->port, "queue", q->queue,
				"lcore", pl->lcore,
				"packets", (json_int_t)(s1->qpackets[k][i] -
					s0->qpackets[k][i]),
				"bytes", (json_int_t)(s1->qbytes[k][i] -
					s0->qbytes[k][i]));
			bool has_q = false;

			while (pi + 1 < a->nb_ports && a->ports[pi].id != q->port)
				pi++;
			e0 = &s0->eth[pi];
			e1 = &s1->eth[pi];

			/* A PMD that keeps per-queue counters fills some. */
			for (unsigned int j = 0; j < RTE_ETHDEV_QUEUE_STAT_CNTRS; j++)
				has_q |= e1->q_ipackets[j] != 0;
			if (o != NULL && has_q &&
					q->queue < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
				unsigned int j = q->queue;

				json_object_set_new(o, "q_ipackets", json_integer(
					e1->q_ipackets[j] - e0->q_ipackets[j]));
				json_object_set_new(o, "q_ibytes", json_integer(
					e1->q_ibytes[j] - e0->q_ibytes[j]));
				json_object_set_new(o, "q_errors", json_integer(
					e1->q_errors[j] - e0->q_errors[j]));
			}
			json_array_append_new(arr, o);
		}
	}
	return arr;
}

static json_t *
lcores_json(const struct app *a, uint64_t cycles)
{
	json_t *arr = json_array();

	for (unsigned int k = 0; arr != NULL && k < a->nb_pollers; k++) {
		const struct poller *pl = &a->pollers[k];
		uint64_t busy = d.s1->lbusy[k] - d.s0->lbusy[k];

		json_array_append_new(arr, json_pack("{s:i, s:i, s:o, s:I, s:I, s:o}",
			"lcore", pl->lcore,
			"cpu", lcore_cpu(pl->lcore),
			"consumer_cpu", pl->consumer_cpu >= 0 ?
				json_integer(pl->consumer_cpu) : json_null(),
			"cycles", (json_int_t)cycles,
			"busy_cycles", (json_int_t)busy,
			"busy_share", cycles != 0 ? json_real(RTE_MIN(1.0,
				(double)busy / (double)cycles)) : json_null()));
	}
	return arr;
}

static json_t *
xstats_json(const struct app *a)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; arr != NULL && i < a->nb_ports; i++) {
		const struct xstats *x = &d.x[i];
		json_t *changed = json_object();

		for (int j = 0; changed != NULL && j < x->n; j++)
			if (x->v1[j] != x->v0[j])
				json_object_set_new(changed, x->names[j].name,
					json_integer((json_int_t)(x->v1[j] -
						x->v0[j])));
		json_array_append_new(arr, json_pack("{s:i, s:o}",
			"port", a->ports[i].id, "changed", changed));
	}
	return arr;
}

int
detail_attach(struct app *a, struct rxr_report *rep, uint64_t cycles)
{
	/* A window that never closed (stopped in the warm-up) measured
	 * nothing. */
	static struct snapshot none;
	unsigned int idx = rxr_report_nb_runs(rep) - 1;
	int ret = 0;

	if (d.s0 == NULL || d.s1 == NULL)
		d.s0 = d.s1 = &none;

	if (env_link_commit(a, rep) != 0 ||
			rxr_report_run_set(rep, idx, "queues", queues_json(a)) != 0 ||
			rxr_report_run_set(rep, idx, "lcores",
				lcores_json(a, cycles)) != 0 ||
			rxr_report_run_set(rep, idx, "xstats",
				xstats_json(a)) != 0) {
		RXR_LOG(ERR, "report: per-queue statistics: out of "
			"memory");
		ret = -ENOMEM;
	}
	/* The snapshots are the run's, freed after it. */
	d.s0 = d.s1 = NULL;
	return ret;
}

void
detail_free(void)
{
	for (unsigned int i = 0; i < MAX_PORTS; i++)
		xstats_free(&d.x[i]);
}
