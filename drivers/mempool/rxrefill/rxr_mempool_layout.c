/* SPDX-License-Identifier: BSD-3-Clause */

/* The pktmbuf frame layout (an object exactly one stride) and
 * rxr_pktmbuf_pool_create(). */

#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "rxr_log.h"
#include "rxr_mempool.h"

#define MP_FLAGS RTE_MEMPOOL_F_NO_SPREAD	/* exact stride, no padding */
#define OBJ_HDR 64u				/* rte_mempool_objhdr, cache-aligned */
/* DPDK's default mbuf buffer: a stride under 4 KiB (doc/layout.md). */
#define DATA_BUF RTE_MBUF_DEFAULT_BUF_SIZE
/* Least data room a frame must leave after the headroom. */
#define MIN_DATA 64u

uint16_t
rxr_mempool_data_room(uint32_t frame_size, uint16_t priv_size)
{
	uint32_t hdrs = sizeof(struct rte_mbuf) + priv_size;
	uint32_t e = frame_size > OBJ_HDR ? frame_size - OBJ_HDR : 0;
	struct rte_mempool_objsz sz;

	/* The element size that makes header + element + trailer exactly
	 * the stride. */
	for (int tries = 0; tries < 3 && e > 0; tries++) {
		uint32_t total = rte_mempool_calc_obj_size(e, MP_FLAGS, &sz);

		if (total == frame_size)
			return e < hdrs + RTE_PKTMBUF_HEADROOM + MIN_DATA ||
				e - hdrs > UINT16_MAX ? 0 : e - hdrs;
		if (total > frame_size && total - frame_size < e)
			e -= total - frame_size;
		else if (total < frame_size)
			e += frame_size - total;
		else
			break;
	}
	return 0;
}

uint32_t
rxr_mempool_frame_size_min(uint16_t priv_size)
{
	return RTE_ALIGN_CEIL(OBJ_HDR + sizeof(struct rte_mbuf) + priv_size +
		RTE_PKTMBUF_HEADROOM + MIN_DATA, RTE_CACHE_LINE_SIZE);
}

int
rxr_pktmbuf_frame_size_check(uint32_t frame_size, uint16_t priv_size,
		char *err, size_t errlen)
{
	uint32_t min = rxr_mempool_frame_size_min(priv_size);

	/* Each reason ends with the valid range: every hint lies in it. */
	if (frame_size > RXR_MEMPOOL_FRAME_SIZE_MAX) {
		snprintf(err, errlen, "%u is above %u: an mbuf's data room is "
			"16 bits; frame sizes are multiples of %u in %u..%u",
			frame_size, RXR_MEMPOOL_FRAME_SIZE_MAX,
			RTE_CACHE_LINE_SIZE, min, RXR_MEMPOOL_FRAME_SIZE_MAX);
		return -EINVAL;
	}
	/* Before the multiple: its hints must not fall below the least. */
	if (frame_size < min) {
		snprintf(err, errlen, "%u is below %u, the least that holds the "
			"object header (%u), an mbuf (%zu), %u bytes of private "
			"area, %u of headroom and %u of data; try %u",
			frame_size, min, OBJ_HDR, sizeof(struct rte_mbuf),
			priv_size, RTE_PKTMBUF_HEADROOM, MIN_DATA, min);
		return -EINVAL;
	}
	/* In min..max and min, max multiples of 64: so are both hints. */
	if (frame_size % RTE_CACHE_LINE_SIZE != 0) {
		snprintf(err, errlen, "%u is not a multiple of %u (mempool "
			"objects are whole cache lines); try %u or %u, frame "
			"sizes are multiples of %u in %u..%u",
			frame_size, RTE_CACHE_LINE_SIZE,
			RTE_ALIGN_FLOOR(frame_size, RTE_CACHE_LINE_SIZE),
			RTE_ALIGN_CEIL(frame_size, RTE_CACHE_LINE_SIZE),
			RTE_CACHE_LINE_SIZE, min, RXR_MEMPOOL_FRAME_SIZE_MAX);
		return -EINVAL;
	}
	if (rxr_mempool_data_room(frame_size, priv_size) == 0) {
		snprintf(err, errlen, "%u: this DPDK's mempool cannot lay out "
			"an object of exactly that stride", frame_size);
		return -EINVAL;
	}
	return 0;
}

struct rte_mempool *
rxr_pktmbuf_pool_create(const char *name, unsigned int n,
		const struct rxr_mempool_conf *conf, int socket_id)
{
	struct rxr_mempool_conf c = *conf;
	struct rte_pktmbuf_pool_private priv = { 0 };
	struct rte_mempool *mp;
	uint16_t room;
	int ret;

	/* DPDK's table of ops was full when this driver loaded. */
	if (rxr_mempool_ops_index < 0) {
		RXR_LOG(ERR, "%s: the %s mempool driver is not registered: "
			"DPDK's table of %d mempool ops was full when it loaded "
			"(DPDK said \"Maximum number of mempool ops structs "
			"exceeded\"); load fewer mempool drivers", name,
			RXR_MEMPOOL_OPS_NAME, RTE_MEMPOOL_MAX_OPS_IDX);
		rte_errno = ENOENT;
		return NULL;
	}
	/* The mbuf's lines and RTE_MBUF_DEFAULT_BUF_SIZE's, made odd (| one
	 * line): frame i's header in set (i * lines) mod 64, every set. */
	if (c.frame_size == 0)
		c.frame_size = (RTE_ALIGN_CEIL(OBJ_HDR + sizeof(struct rte_mbuf) +
			c.priv_size, RTE_CACHE_LINE_SIZE) + RTE_ALIGN_CEIL(DATA_BUF,
			RTE_CACHE_LINE_SIZE)) | RTE_CACHE_LINE_SIZE;
	room = rxr_mempool_data_room(c.frame_size, c.priv_size);
	if (room == 0 || c.priv_size % RTE_MBUF_PRIV_ALIGN != 0) {
		RXR_LOG(ERR, "%s: a frame of %u bytes cannot hold an mbuf "
			"(%zu bytes), %u bytes of private area and %u of headroom",
			name, c.frame_size, sizeof(struct rte_mbuf), c.priv_size,
			RTE_PKTMBUF_HEADROOM);
		rte_errno = EINVAL;
		return NULL;
	}
	priv.mbuf_data_room_size = room;
	priv.mbuf_priv_size = c.priv_size;
	/* Zeroing clears the data room, never the mbuf the pool initialized. */
	c.pool.payload_offset = sizeof(struct rte_mbuf) + c.priv_size;
	c.pool.payload_len = room;

	mp = rte_mempool_create_empty(name, n, c.pool.payload_offset + room, 0,
			sizeof(priv), socket_id, MP_FLAGS);
	if (mp == NULL)
		return NULL;
	rte_pktmbuf_pool_init(mp, &priv);
	ret = rte_mempool_set_ops_byname(mp, RXR_MEMPOOL_OPS_NAME, &c);
	if (ret != 0) {
		RXR_LOG(ERR, "%s: cannot select ops %s: %s", name,
			RXR_MEMPOOL_OPS_NAME, rte_strerror(-ret));
		goto fail;
	}
	ret = rte_mempool_populate_default(mp);
	if (ret < 0) {
		RXR_LOG(ERR, "%s: cannot populate %u frames of %u bytes: %s",
			name, n, c.frame_size, rte_strerror(-ret));
		goto fail;
	}
	/* pool_config pointed at our stack copy, consumed by alloc. */
	mp->pool_config = NULL;
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
fail:
	rte_mempool_free(mp);
	rte_errno = -ret;
	return NULL;
}
