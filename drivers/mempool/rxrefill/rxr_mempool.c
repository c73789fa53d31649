/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The mempool driver's operations (struct rte_mempool_ops "rxrefill"):
 * a pool per mempool, enqueue and dequeue into it, populate as regions.
 * The pktmbuf frame layout is rxr_mempool_layout.c's.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rxr_log.h"
#include "rxr_mempool.h"

/* Where the data room is, so that zeroing never clears headers; a pool of
 * headers only (pinned external buffers, no data room) is not zeroed. */
static void
payload_of(const struct rte_mempool *mp, struct rxr_pool_conf *pc)
{
	const struct rte_pktmbuf_pool_private *priv;
	bool pinned;

	pc->payload_offset = 0;
	pc->payload_len = mp->elt_size;
	if (mp->private_data_size < sizeof(*priv))
		return;
	priv = rte_mempool_get_priv((struct rte_mempool *)(uintptr_t)mp);
	pinned = (priv->flags & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) != 0;
	if (pinned || priv->mbuf_data_room_size == 0) {
		if (pc->zero_policy != RXR_ZERO_POLICY_NONE)
			RXR_LOG(NOTICE, "%s: zero=%s not applied: the pool's "
				"objects are only mbuf headers (%s)", mp->name,
				rxr_zero_policy_name(pc->zero_policy), pinned ?
				"its data rooms are pinned external buffers" :
				"no data room");
		pc->zero_policy = RXR_ZERO_POLICY_NONE;
		return;
	}
	if (sizeof(struct rte_mbuf) + priv->mbuf_priv_size +
			priv->mbuf_data_room_size > mp->elt_size)
		return;
	pc->payload_offset = sizeof(struct rte_mbuf) + priv->mbuf_priv_size;
	pc->payload_len = priv->mbuf_data_room_size;
}

/* Regions the pool may need: one per chunk, a chunk at worst a page. */
static uint32_t
max_regions_for(const struct rte_mempool *mp, uint32_t stride)
{
	size_t pg_sz;
	uint64_t per_page = 1, regions;

	if (rte_mempool_get_page_size((struct rte_mempool *)(uintptr_t)mp,
			&pg_sz) == 0 && pg_sz > stride)
		per_page = pg_sz / stride;
	regions = ((uint64_t)mp->size + per_page - 1) / per_page +
		RTE_MAX_MEMSEG_LISTS;
	return (uint32_t)RTE_MIN(regions, (uint64_t)UINT16_MAX);
}

static void rxr_mp_destroy_event(enum rte_mempool_event event,
		struct rte_mempool *mp, void *arg);
static bool destroy_event_registered;

static int
rxr_mp_alloc(struct rte_mempool *mp)
{
	const struct rxr_mempool_conf *c = mp->pool_config;
	struct rxr_pool_conf pc;
	uint32_t stride = mp->header_size + mp->elt_size + mp->trailer_size;
	const struct rxr_strategy_setting *set;
	char settings[160] = "", err[256];
	struct rxr_pool *p;
	size_t off = 0;

	if (c != NULL) {
		pc = c->pool;
	} else {
		/* A pool the application made: settings from the environment. */
		if (rxr_mempool_env_conf(&pc, err, sizeof(err)) != 0) {
			RXR_LOG(ERR, "%s: %s", mp->name, err);
			return -EINVAL;
		}
		payload_of(mp, &pc);
	}
	pc.name = mp->name;
	pc.socket_id = mp->socket_id;
	p = rxr_pool_create(&pc, stride, mp->size, max_regions_for(mp, stride));
	if (p == NULL) {
		RXR_LOG(ERR, "%s: cannot create an rxrefill pool of %u "
			"objects of %u bytes: %s", mp->name, mp->size, stride,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	pc = *rxr_pool_get_conf(p);
	/* " recycle.cache=128 recycle.refill=64 ...": the strategy's own. */
	for (unsigned int i = 0, n = rxr_strategy_settings(pc.strategy, &set);
			i < n && off < sizeof(settings); i++)
		off += snprintf(settings + off, sizeof(settings) - off,
			" %s.%s=%u", rxr_strategy_name(pc.strategy),
			set[i].name, pc.settings[i]);
	/* Said once per pool; rxrefill's own pools are in its report. */
	rte_log(c == NULL ? RTE_LOG_NOTICE : RTE_LOG_DEBUG, rxr_logtype,
		"rxrefill: %s: rxrefill strategy=%s bulk=%s high=%u "
		"batch=%u zero=%s zero_method=%s%s, %u objects of %u bytes, "
		"%u poll lcores%s\n", mp->name, rxr_strategy_name(pc.strategy),
		pc.bulk ? "on" : "off", pc.high, pc.batch,
		rxr_zero_policy_name(pc.zero_policy),
		rxr_zero_method_name(pc.zero_method), settings, mp->size,
		stride, pc.nr_poll_lcores,
		c != NULL ? "" : " (" RXR_MEMPOOL_ENV ")");
	mp->pool_data = p;
	if (!__atomic_exchange_n(&destroy_event_registered, true,
			__ATOMIC_RELAXED))
		rte_mempool_event_callback_register(rxr_mp_destroy_event, NULL);
	return 0;
}

/* Whatever the application, say at destroy whether every frame came home:
 * a shortfall at ERR, all home at DEBUG; the mempool caches counted apart. */
static void
rxr_mp_destroy_event(enum rte_mempool_event event, struct rte_mempool *mp,
		void *arg)
{
	struct rxr_pool *p = rxr_mempool_pool(mp);
	uint64_t frames, avail;
	unsigned int cached = 0;

	if (event != RTE_MEMPOOL_EVENT_DESTROY || p == NULL)
		return;
	/* rte_mempool_free() takes every frame back next: no refills. */
	rxr_pool_teardown(p);
	/* Creation failed while populating: the creator says why. */
	if (mp->populated_size < mp->size) {
		RXR_LOG(DEBUG, "%s: destroyed with %u of %u objects populated",
			mp->name, mp->populated_size, mp->size);
		return;
	}
	rxr_pool_quiesce(p);
	frames = rxr_pool_nr_frames(p);
	avail = rxr_pool_avail(p);
	/* The mempool's per-lcore caches, which rte_mempool_free() does
	 * not flush to the driver: out of the zone, not lost. */
	for (unsigned int i = 0; mp->cache_size != 0 &&
			mp->local_cache != NULL && i < RTE_MAX_LCORE; i++)
		cached += mp->local_cache[i].len;
	if (rxr_pool_check(p, NULL) == 0)
		RXR_LOG(DEBUG, "%s: all %" PRIu64 " frames are home",
			mp->name, frames);
	else if (cached != 0 && frames - avail == cached)
		RXR_LOG(DEBUG, "%s: all %" PRIu64 " frames are home but the "
			"%u in the mempool's per-lcore caches, which "
			"rte_mempool_free() does not flush", mp->name, frames,
			cached);
	else if (cached != 0 && frames - avail > cached)
		RXR_LOG(ERR, "%s: %" PRIu64 " of %" PRIu64 " frames are not "
			"home, and %u more are in the mempool's per-lcore "
			"caches", mp->name, frames - avail - cached, frames,
			cached);
	else
		RXR_LOG(ERR, "%s: %" PRIu64 " of %" PRIu64 " frames are not "
			"home", mp->name, frames - avail, frames);
}

static void
rxr_mp_free(struct rte_mempool *mp)
{
	rxr_pool_destroy(mp->pool_data);
	mp->pool_data = NULL;
}

/* The PMD's path, one dispatch per direction (lib/strategy). */
static int
rxr_mp_enqueue(struct rte_mempool *mp, void * const *objs, unsigned int n)
{
	return rxr_pool_free_bulk(mp->pool_data, objs, n);
}

static int
rxr_mp_dequeue(struct rte_mempool *mp, void **objs, unsigned int n)
{
	return rxr_pool_alloc_bulk(mp->pool_data, objs, n);
}

static unsigned int
rxr_mp_get_count(const struct rte_mempool *mp)
{
	return (unsigned int)rxr_pool_avail(mp->pool_data);
}

/* Objects at the exact stride over one IOVA-contiguous chunk (no gap at
 * each page, unlike the standard helper): one region of the zone. */
static int
rxr_mp_populate(struct rte_mempool *mp, unsigned int max_objs, void *vaddr,
		rte_iova_t iova, size_t len, rte_mempool_populate_obj_cb_t *obj_cb,
		void *obj_cb_arg)
{
	struct rxr_pool *p = mp->pool_data;
	struct rxr_zero_opts zo = { .method = rxr_pool_get_conf(p)->zero_method };
	size_t stride = mp->header_size + mp->elt_size + mp->trailer_size;
	unsigned int n = RTE_MIN((size_t)max_objs, len / stride), i;
	int ret;

	if (n == 0)
		return 0;
	/* Memory entering the zone is cleared before frames are set up. */
	ret = rxr_zero_extent(vaddr, n * stride, &zo);
	if (ret != 0)
		return ret;
	for (i = 0; i < n; i++) {
		size_t off = i * stride + mp->header_size;

		obj_cb(mp, obj_cb_arg, RTE_PTR_ADD(vaddr, off),
			iova == RTE_BAD_IOVA ? RTE_BAD_IOVA : iova + off);
	}
	ret = rxr_pool_add_frames(p, RTE_PTR_ADD(vaddr, mp->header_size), n);
	if (ret == -ENOSPC) {
		/* More chunks than regions (testpmd's --mp-alloc=xmem: a
		 * chunk per 4 KiB page): say so, not just "no space". */
		RXR_LOG(ERR, "%s: cannot adopt %u objects: chunk %u of the "
			"pool's memory (%zu bytes) is past the %u chunks a pool "
			"of %u objects of %zu bytes takes (memory that is "
			"IOVA-contiguous only page by page comes in a chunk per "
			"page); use memory IOVA-contiguous in larger pieces "
			"(hugepages) or fewer objects", mp->name, n,
			mp->nb_mem_chunks + 1, len,
			max_regions_for(mp, (uint32_t)stride), mp->size, stride);
		return ret;
	}
	if (ret < 0) {
		RXR_LOG(ERR, "%s: cannot adopt %u objects: %s",
			mp->name, n, strerror(-ret));
		return ret;
	}
	return (int)n;
}

static struct rte_mempool_ops rxr_mempool_ops = {
	.name = RXR_MEMPOOL_OPS_NAME,
	.alloc = rxr_mp_alloc,
	.free = rxr_mp_free,
	.enqueue = rxr_mp_enqueue,
	.dequeue = rxr_mp_dequeue,
	.get_count = rxr_mp_get_count,
	.populate = rxr_mp_populate,
};

int rxr_mempool_ops_index = -1;

/* RTE_MEMPOOL_REGISTER_OPS(), keeping the index for the fast lookup. */
RTE_INIT(rxr_mempool_ops_register)
{
	int idx = rte_mempool_register_ops(&rxr_mempool_ops);

	if (idx >= 0)
		rxr_mempool_ops_index = idx;
}

struct rxr_pool *
rxr_mempool_pool(const struct rte_mempool *mp)
{
	if (mp == NULL || mp->ops_index < 0 ||
			strcmp(rte_mempool_get_ops(mp->ops_index)->name,
				RXR_MEMPOOL_OPS_NAME) != 0)
		return NULL;
	return mp->pool_data;
}
