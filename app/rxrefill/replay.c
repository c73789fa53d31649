/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Captures given with --replay: each read once before anything starts
 * (checked, counted, its distinct flows sized for the stream table), then
 * one net_pcap port with an RX queue per file.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include <rte_bus_vdev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_hash_crc.h>

#include "rxrefill.h"
#include "rxr_log.h"

/* Distinct flow keys of a capture: open addressing, grown at half full. */
struct flow_set {
	struct rxr_flow_key *keys;
	uint8_t *used;
	uint64_t cap, n;
};

static int
flow_set_add(struct flow_set *fs, const struct rxr_flow_key *k)
{
	uint64_t h;

	if (2 * (fs->n + 1) > fs->cap) {
		struct flow_set big = { .cap = fs->cap ? 2 * fs->cap : 1024 };

		big.keys = malloc(big.cap * sizeof(*big.keys));
		big.used = calloc(big.cap, 1);
		if (big.keys == NULL || big.used == NULL) {
			free(big.keys);
			free(big.used);
			return -1;
		}
		for (uint64_t i = 0; i < fs->cap; i++)
			if (fs->used[i])
				flow_set_add(&big, &fs->keys[i]);
		free(fs->keys);
		free(fs->used);
		*fs = big;
	}
	h = rte_hash_crc(k, sizeof(*k), 0) & (fs->cap - 1);
	while (fs->used[h]) {
		if (memcmp(&fs->keys[h], k, sizeof(*k)) == 0)
			return 0;
		h = (h + 1) & (fs->cap - 1);
	}
	fs->used[h] = 1;
	fs->keys[h] = *k;
	fs->n++;
	return 0;
}

/*
 * Read every capture once: a bad file must fail before EAL ports start,
 * naming the file and the record. Counts give finite replay its target;
 * distinct flows size the poll lcores' stream tables.
 */
static int
scan_file(const char *opt, const char *path, uint16_t room, uint64_t *pkts,
		uint64_t *bytes, uint64_t *segs, uint64_t *flows,
		uint32_t *largest)
{
	struct flow_set fs = { 0 };
	struct rxr_flow_info info;
	bool bad = false;
	char err[PCAP_ERRBUF_SIZE] = "";
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc;
	int ret;

	pc = pcap_open_offline(path, err);
	if (pc == NULL) {
		RXR_LOG(ERR, "%s %s: not a readable capture: %s", opt, path,
			err);
		return -1;
	}
	if (pcap_datalink(pc) != DLT_EN10MB) {
		RXR_LOG(ERR, "%s %s: link type %s, net_pcap replays "
			"Ethernet captures only", opt, path,
			pcap_datalink_val_to_name(pcap_datalink(pc)) ?: "?");
		pcap_close(pc);
		return -1;
	}
	*pkts = *bytes = *segs = 0;
	*largest = 0;
	while ((ret = pcap_next_ex(pc, &h, &data)) == 1) {
		if (h->caplen == 0) {
			RXR_LOG(ERR, "%s %s: record %" PRIu64
				" has zero length", opt, path, *pkts + 1);
			bad = true;
			break;
		}
		if (h->caplen > h->len) {
			RXR_LOG(ERR, "%s %s: record %" PRIu64
				" captures %u bytes of a %u-byte frame", opt,
				path, *pkts + 1, h->caplen, h->len);
			bad = true;
			break;
		}
		(*pkts)++;
		*bytes += h->caplen;
		*largest = RTE_MAX(*largest, h->caplen);
		*segs += (h->caplen + room - 1) / room;
		if (rxr_flow_parse(data, h->caplen, &info) == RXR_FLOW_OK &&
				flow_set_add(&fs, &info.key) != 0) {
			RXR_LOG(ERR, "%s %s: no memory to count its "
				"flows", opt, path);
			bad = true;
			break;
		}
	}
	*flows = fs.n;
	free(fs.keys);
	free(fs.used);
	if (bad) {
		pcap_close(pc);
		return -1;
	}
	if (ret == PCAP_ERROR) {
		RXR_LOG(ERR, "%s %s: bad or truncated record %" PRIu64
			": %s", opt, path, *pkts + 1, pcap_geterr(pc));
		pcap_close(pc);
		return -1;
	}
	pcap_close(pc);
	if (*pkts == 0) {
		RXR_LOG(ERR, "%s %s: the capture holds no packet", opt,
			path);
		return -1;
	}
	return 0;
}

/* A frame larger than one mbuf's data room: what would hold it. */
static void
too_large(const struct app *a, const char *path, uint32_t largest,
		uint16_t room)
{
	uint32_t f;

	for (f = a->opt.frame_size; f <= RXR_MEMPOOL_FRAME_SIZE_MAX;
			f += RTE_CACHE_LINE_SIZE)
		if ((uint32_t)rxr_mempool_data_room(f, 0) -
				RTE_PKTMBUF_HEADROOM >= largest)
			break;
	if (f <= RXR_MEMPOOL_FRAME_SIZE_MAX)
		RXR_LOG(ERR, "--replay %s: frames of up to %u bytes, larger "
			"than the %u-byte data room of --frame-size %u; endless "
			"replay needs each in one mbuf: --frame-size %u or "
			"more, or finite replay (--loops N), which chains "
			"mbufs", path, largest, room, a->opt.frame_size, f);
	else
		RXR_LOG(ERR, "--replay %s: frames of up to %u bytes, larger "
			"than any frame size's data room; endless replay "
			"needs each in one mbuf: use finite replay (--loops "
			"N), which chains mbufs", path, largest);
}

/*
 * Endless replay keeps a copy of every packet in the pool and copies a
 * burst at a time into frames taken all at once: with fewer net_pcap
 * refuses the queue after EAL, in its own words, or receives nothing and
 * counts no drop. @p whose: whose files; @p more: further advice.
 */
static int
endless_frames_check(const struct app *a, const char *whose,
		uint64_t segments, const char *more)
{
	if (a->opt.frames == 0 || a->opt.frames >= segments + a->opt.burst)
		return 0;
	RXR_LOG(ERR, "--frames %u: endless replay keeps the %" PRIu64
		" packets of %s in the pool and takes a burst of %u frames at "
		"a time: give at least %" PRIu64 ", leave --frames out (sized "
		"for them)%s", a->opt.frames, segments, whose, a->opt.burst,
		segments + a->opt.burst, more);
	return -1;
}

int
replay_scan(struct app *a)
{
	struct replay_counts *c = &a->replay_files;
	uint16_t room = rxr_mempool_data_room(a->opt.frame_size, 0) -
		RTE_PKTMBUF_HEADROOM;

	memset(c, 0, sizeof(*c));
	for (unsigned int i = 0; i < a->opt.nb_replay; i++) {
		uint32_t largest;
		uint64_t segs;

		if (scan_file("--replay", a->opt.replay[i], room,
				&c->packets[i], &c->bytes[i], &segs,
				&c->flows[i], &largest) != 0)
			return -1;
		/* net_pcap's endless replay keeps one mbuf per packet and
		 * refuses a chain at queue setup: say so before any port. */
		if (a->opt.loops == 0 && largest > room) {
			too_large(a, a->opt.replay[i], largest, room);
			return -1;
		}
		c->segments += segs;
	}
	if (a->opt.loops == 0)
		return endless_frames_check(a, "the --replay files",
			c->segments, ", or replay the files N times (--loops N)");
	return 0;
}

/*
 * A net_pcap port of the user's own (--vdev net_pcapN,rx_pcap=FILE,...):
 * *nb_files its rx_pcap files, one RX queue each. With infinite_rx=1 it
 * keeps every packet of them in the pool too: count them from the
 * arguments it was probed with, so that its pool and the stream tables
 * are sized as for --replay. Otherwise c zeroed.
 */
int
replay_scan_devargs(const struct app *a, const char *dev,
		const char *devargs, struct replay_counts *c,
		unsigned int *nb_files)
{
	uint16_t room = rxr_mempool_data_room(a->opt.frame_size, 0) -
		RTE_PKTMBUF_HEADROOM;
	char *args = strdup(devargs), *save = NULL, *kv;
	const char *files[MAX_QUEUES];
	unsigned int nb = 0;
	bool endless = false;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	if (args == NULL) {
		RXR_LOG(ERR, "%s: no memory to read its arguments", dev);
		return -1;
	}
	for (kv = strtok_r(args, ",", &save); kv != NULL;
			kv = strtok_r(NULL, ",", &save)) {
		if (strncmp(kv, "rx_pcap=", 8) == 0 && nb < MAX_QUEUES)
			files[nb++] = kv + 8;
		else if (strncmp(kv, "infinite_rx=", 12) == 0)
			endless = strtol(kv + 12, NULL, 10) != 0;
	}
	*nb_files = nb;
	for (unsigned int i = 0; endless && i < nb && ret == 0; i++) {
		uint32_t largest;
		uint64_t segs;

		ret = scan_file(dev, files[i], room, &c->packets[i],
				&c->bytes[i], &segs, &c->flows[i], &largest);
		c->segments += segs;
	}
	free(args);
	if (ret == 0 && endless) {
		char whose[RTE_ETH_NAME_MAX_LEN + 32];

		snprintf(whose, sizeof(whose), "%s's files (infinite_rx)", dev);
		ret = endless_frames_check(a, whose, c->segments, "");
	}
	return ret;
}

int
ports_create_replay(struct app *a)
{
	size_t len = 64;
	uint16_t id;
	char *args;
	int ret;

	/* EAL would take a second probe of the name as done: the port would
	 * replay that device's files, not the ones scanned. */
	if (rte_eth_dev_get_port_by_name(REPLAY_VDEV, &id) == 0) {
		RXR_LOG(ERR, "--vdev %s: the name of the port --replay makes; "
			"give the device another name", REPLAY_VDEV);
		return -1;
	}
	for (unsigned int i = 0; i < a->opt.nb_replay; i++)
		len += strlen(a->opt.replay[i]) + 16;
	args = calloc(1, len);
	if (args == NULL)
		return -1;
	for (unsigned int i = 0; i < a->opt.nb_replay; i++) {
		if (strchr(a->opt.replay[i], ',') != NULL) {
			RXR_LOG(ERR, "--replay %s: a file name with ',' cannot "
				"be passed to net_pcap", a->opt.replay[i]);
			free(args);
			return -1;
		}
		strcat(args, i == 0 ? "rx_pcap=" : ",rx_pcap=");
		strcat(args, a->opt.replay[i]);
	}
	/* Finite replay reads each file once per port start. */
	if (a->opt.loops == 0)
		strcat(args, ",infinite_rx=1");
	ret = rte_eal_hotplug_add("vdev", REPLAY_VDEV, args);
	free(args);
	if (ret != 0) {
		RXR_LOG(ERR, "cannot create the net_pcap replay port: %s",
			rte_strerror(-ret));
		return -1;
	}
	return 0;
}
