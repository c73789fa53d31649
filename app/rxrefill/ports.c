/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Ports: captures checked before anything starts, the net_pcap replay port,
 * configuration with RSS, one rxrefill pool per port and run, counters.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "rxrefill.h"

#define REPLAY_VDEV "net_pcap_rxrefill"

/*
 * Read every capture once: a bad file must fail before EAL ports start,
 * naming the file and the record. Counts give finite replay its target.
 */
static int
scan_file(const char *path, uint16_t room, uint64_t *pkts, uint64_t *bytes,
		uint64_t *segs)
{
	char err[PCAP_ERRBUF_SIZE] = "";
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc;
	int ret;

	pc = pcap_open_offline(path, err);
	if (pc == NULL) {
		fprintf(stderr, APP ": --replay %s: not a readable capture: %s\n",
			path, err);
		return -1;
	}
	if (pcap_datalink(pc) != DLT_EN10MB) {
		fprintf(stderr, APP ": --replay %s: link type %s, net_pcap replays "
			"Ethernet captures only\n", path,
			pcap_datalink_val_to_name(pcap_datalink(pc)) ?: "?");
		pcap_close(pc);
		return -1;
	}
	*pkts = *bytes = *segs = 0;
	while ((ret = pcap_next_ex(pc, &h, &data)) == 1) {
		if (h->caplen == 0) {
			fprintf(stderr, APP ": --replay %s: record %" PRIu64
				" has zero length\n", path, *pkts + 1);
			pcap_close(pc);
			return -1;
		}
		if (h->caplen > h->len) {
			fprintf(stderr, APP ": --replay %s: record %" PRIu64
				" captures %u bytes of a %u-byte frame\n", path,
				*pkts + 1, h->caplen, h->len);
			pcap_close(pc);
			return -1;
		}
		(*pkts)++;
		*bytes += h->caplen;
		*segs += (h->caplen + room - 1) / room;
	}
	if (ret == PCAP_ERROR) {
		fprintf(stderr, APP ": --replay %s: bad or truncated record %" PRIu64
			": %s\n", path, *pkts + 1, pcap_geterr(pc));
		pcap_close(pc);
		return -1;
	}
	pcap_close(pc);
	if (*pkts == 0) {
		fprintf(stderr, APP ": --replay %s: the capture holds no packet\n",
			path);
		return -1;
	}
	return 0;
}

int
replay_scan(struct app *a)
{
	struct port *p = &a->ports[0];
	uint16_t room = rxr_mempool_data_room(a->opt.frame_size, 0) -
		RTE_PKTMBUF_HEADROOM;

	p->file_segments = 0;
	for (unsigned int i = 0; i < a->opt.nb_replay; i++) {
		uint64_t segs;

		if (scan_file(a->opt.replay[i], room, &p->file_packets[i],
				&p->file_bytes[i], &segs) != 0)
			return -1;
		p->file_segments += segs;
	}
	return 0;
}

int
ports_create_replay(struct app *a)
{
	size_t len = 64;
	char *args;
	int ret;

	for (unsigned int i = 0; i < a->opt.nb_replay; i++)
		len += strlen(a->opt.replay[i]) + 16;
	args = calloc(1, len);
	if (args == NULL)
		return -1;
	for (unsigned int i = 0; i < a->opt.nb_replay; i++) {
		if (strchr(a->opt.replay[i], ',') != NULL) {
			fprintf(stderr, APP ": --replay %s: a file name with ',' cannot "
				"be passed to net_pcap\n", a->opt.replay[i]);
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
		fprintf(stderr, APP ": cannot create the net_pcap replay port: %s\n",
			rte_strerror(-ret));
		return -1;
	}
	return 0;
}

static int
xstat_id(uint16_t port, const char *name)
{
	uint64_t id;

	return rte_eth_xstats_get_id_by_name(port, name, &id) == 0 ? (int)id : -1;
}

static int
port_configure(struct app *a, struct port *p, const struct rte_eth_dev_info *di)
{
	static uint8_t rss_key[RXR_FLOW_RSS_KEY_LEN];
	struct rte_eth_conf conf = { 0 };
	int ret;

	if (p->nb_q > di->max_rx_queues) {
		fprintf(stderr, APP ": port %u (%s) can do at most %u RX queues, "
			"asked for %u\n", p->id, p->driver, di->max_rx_queues, p->nb_q);
		return -1;
	}
	if (p->nb_q > 1 && di->flow_type_rss_offloads != 0) {
		memcpy(rss_key, rxr_flow_rss_key_mlx5, sizeof(rss_key));
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_key = rss_key;
		conf.rx_adv_conf.rss_conf.rss_key_len = sizeof(rss_key);
		conf.rx_adv_conf.rss_conf.rss_hf = (RTE_ETH_RSS_IP |
			RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
			di->flow_type_rss_offloads;
		if (di->hash_key_size != 0 && di->hash_key_size != sizeof(rss_key))
			conf.rx_adv_conf.rss_conf.rss_key = NULL;
	}
	/* Frames larger than a buffer arrive chained rather than dropped. */
	if (di->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	ret = rte_eth_dev_configure(p->id, p->nb_q, 1, &conf);
	if (ret != 0) {
		fprintf(stderr, APP ": port %u (%s): cannot configure %u RX queues: %s\n",
			p->id, p->driver, p->nb_q, rte_strerror(-ret));
		return -1;
	}
	ret = rte_eth_tx_queue_setup(p->id, 0, 512, p->socket, NULL);
	if (ret != 0) {
		fprintf(stderr, APP ": port %u (%s): cannot set up a TX queue: %s\n",
			p->id, p->driver, rte_strerror(-ret));
		return -1;
	}
	return 0;
}

int
ports_init(struct app *a)
{
	uint16_t id;

	RTE_ETH_FOREACH_DEV(id) {
		struct rte_eth_dev_info di;
		struct port *p;
		int ret;

		if (a->nb_ports == MAX_PORTS) {
			fprintf(stderr, APP ": more than %d ports; use -a/--vdev to pick\n",
				MAX_PORTS);
			return -1;
		}
		p = &a->ports[a->nb_ports];
		/* replay_scan() filled ports[0]'s file counts already. */
		if (a->nb_ports != 0)
			memset(p, 0, sizeof(*p));
		p->id = id;
		ret = rte_eth_dev_info_get(id, &di);
		if (ret != 0) {
			fprintf(stderr, APP ": port %u: no device info: %s\n", id,
				rte_strerror(-ret));
			return -1;
		}
		rte_eth_dev_get_name_by_port(id, p->name);
		snprintf(p->driver, sizeof(p->driver), "%s", di.driver_name);
		p->socket = rte_eth_dev_socket_id(id);
		if (p->socket < 0)
			p->socket = (int)rte_socket_id();
		p->replay = strcmp(p->name, REPLAY_VDEV) == 0;
		p->finite = p->replay && a->opt.loops != 0;
		if (strcmp(p->name, REPLAY_VDEV) == 0)
			p->nb_q = a->opt.nb_replay;
		else
			p->nb_q = a->opt.queues != 0 ? a->opt.queues :
				RTE_MAX(1u, a->nb_pollers);
		if (strcmp(p->name, REPLAY_VDEV) == 0 && a->opt.queues != 0 &&
				a->opt.queues != a->opt.nb_replay) {
			fprintf(stderr, APP ": --queues %u, but --replay gives %u files: "
				"net_pcap has one RX queue per file\n", a->opt.queues,
				a->opt.nb_replay);
			return -1;
		}
		if (p->nb_q > MAX_QUEUES) {
			fprintf(stderr, APP ": port %u: at most %d queues\n", id,
				MAX_QUEUES);
			return -1;
		}
		if (port_configure(a, p, &di) != 0)
			return -1;
		p->xstat_out_of_buffer = xstat_id(id, "rx_out_of_buffer");
		p->xstat_wqe_errors = xstat_id(id, "rx_wqe_errors");
		a->nb_ports++;
	}
	if (a->nb_ports == 0) {
		fprintf(stderr, APP ": no port: give a NIC with -a <PCI>, a virtual "
			"device with --vdev, or captures with -- --replay FILES "
			"(rxrefill-gen writes some); rxrefill --list-devices lists "
			"RDMA NICs\n");
		return -1;
	}
	return 0;
}

/*
 * net_pcap with infinite_rx loads its files at queue setup and closes them
 * at stop, so its queues cannot be set up again: a new run gets a new port.
 * Closing the old one hands every mbuf back to the old pool.
 */
static int
replay_recreate(struct app *a, struct port *p)
{
	struct rte_eth_dev_info di;
	uint16_t old = p->id, id;

	if (p->started)
		rte_eth_dev_stop(p->id);
	p->started = false;
	rte_eth_dev_close(p->id);
	if (rte_eal_hotplug_remove("vdev", REPLAY_VDEV) != 0 ||
			ports_create_replay(a) != 0 ||
			rte_eth_dev_get_port_by_name(REPLAY_VDEV, &id) != 0) {
		fprintf(stderr, APP ": cannot re-create the replay port\n");
		return -1;
	}
	p->id = id;
	for (unsigned int k = 0; k < a->nb_pollers; k++)
		for (unsigned int q = 0; q < a->pollers[k].nb_q; q++)
			if (a->pollers[k].q[q].port == old)
				a->pollers[k].q[q].port = id;
	if (rte_eth_dev_info_get(id, &di) != 0)
		return -1;
	return port_configure(a, p, &di);
}

/* Frames a port's pool needs so that no strategy starves by construction. */
static uint32_t
pool_frames(const struct app *a, const struct port *p)
{
	const struct options *o = &a->opt;
	uint32_t high = o->high != 0 ? o->high : RXR_PCP_HIGH_DEFAULT;
	uint64_t n;

	if (o->frames != 0)
		return o->frames;
	n = (uint64_t)p->nb_q * (o->rxd + 2 * o->burst);
	n += (uint64_t)a->nb_pollers * (high + RXR_RECYCLE_CACHE_SIZE +
		RXR_RECYCLE_RING_SIZE);
	if (o->consumer == CONSUMER_SAME_CPU || o->consumer == CONSUMER_OTHER_CPU ||
			o->consumer == CONSUMER_OTHER_POLL)
		n += (uint64_t)a->nb_pollers * o->consumers * o->consumer_depth;
	/* infinite_rx keeps a copy of every file packet in the pool. */
	if (!p->finite)
		n += p->file_segments;
	n += 1024;
	return (uint32_t)RTE_MIN(n, (uint64_t)1 << 26);
}

/*
 * Set up every RX queue with a fresh pool for this run's strategy; the
 * previous run's pool is retired by ports_retire_pools() afterwards.
 */
int
ports_use_pool(struct app *a, unsigned int run)
{
	const struct run_config *rc = &a->opt.configs[run];

	for (unsigned int i = 0; i < a->nb_ports; i++) {
		struct port *p = &a->ports[i];
		struct rxr_mempool_conf c = {
			.pool = {
				.strategy = rc->strategy, .bulk = rc->bulk,
				.high = a->opt.high, .batch = a->opt.batch,
				.fake_nodes = a->opt.fake_nodes,
				.latency = a->opt.latency,
				.test_refill_delay = a->opt.test_refill_delay,
				.zero_policy = a->opt.zero_policy,
				.zero_method = a->opt.zero_method,
			},
			.frame_size = a->opt.frame_size,
		};
		char name[RTE_MEMPOOL_NAMESIZE];
		uint32_t n = pool_frames(a, p);

		/* Only the lcores that poll this port own a pcp in its pool. */
		for (unsigned int k = 0; k < a->nb_pollers; k++)
			for (unsigned int q = 0; q < a->pollers[k].nb_q; q++)
				if (a->pollers[k].q[q].port == p->id) {
					c.pool.poll_lcores[c.pool.nr_poll_lcores++] =
						a->pollers[k].lcore;
					break;
				}
		if (p->mp != NULL && p->replay && replay_recreate(a, p) != 0)
			return -1;
		snprintf(name, sizeof(name), "rxr_p%u_%u", p->id, a->run_seq++);
		/* The old pool gets its mbufs back when the queues are set up again. */
		p->old_mp = p->mp;
		p->mp = rxr_pktmbuf_pool_create(name, n, &c, p->socket);
		if (p->mp == NULL) {
			fprintf(stderr, APP ": port %u: cannot create a pool of %u "
				"frames of %u bytes (%s): %s%s\n", p->id, n,
				a->opt.frame_size, rxr_strategy_name(rc->strategy),
				rte_strerror(rte_errno),
				a->backing == RXR_MEM_NO_HUGE ? "; with --no-huge, "
				"raise EAL's -m" : "; reserve more hugepages");
			return -1;
		}
		for (uint16_t q = 0; q < p->nb_q; q++) {
			int ret = rte_eth_rx_queue_setup(p->id, q, a->opt.rxd,
					p->socket, NULL, p->mp);

			if (ret != 0) {
				fprintf(stderr, APP ": port %u (%s) queue %u: cannot set "
					"up %u descriptors: %s\n", p->id, p->driver, q,
					a->opt.rxd, rte_strerror(-ret));
				return -1;
			}
		}
		for (unsigned int k = 0; k < a->nb_pollers; k++)
			for (unsigned int q = 0; q < a->pollers[k].nb_q; q++)
				if (a->pollers[k].q[q].port == p->id)
					a->pollers[k].q[q].pool = rxr_mempool_pool(p->mp);
	}
	return 0;
}

int
ports_start(struct app *a)
{
	for (unsigned int i = 0; i < a->nb_ports; i++) {
		int ret = rte_eth_dev_start(a->ports[i].id);

		if (ret != 0) {
			fprintf(stderr, APP ": port %u (%s): cannot start: %s\n",
				a->ports[i].id, a->ports[i].driver, rte_strerror(-ret));
			return -1;
		}
		a->ports[i].started = true;
		rte_eth_promiscuous_enable(a->ports[i].id);
	}
	return 0;
}

void
ports_stop(struct app *a)
{
	for (unsigned int i = 0; i < a->nb_ports; i++)
		if (a->ports[i].started) {
			rte_eth_dev_stop(a->ports[i].id);
			a->ports[i].started = false;
		}
}

/*
 * A pool whose queues were set up again (or closed) has every frame back
 * from the PMD: check that each is home in its zone, then free it.
 */
static int
pool_retire(struct port *p, struct rte_mempool *mp, uint64_t *lost)
{
	struct rxr_pool *pool = rxr_mempool_pool(mp);
	unsigned int avail;
	int ret = 0;

	rxr_pool_quiesce(pool);
	avail = rte_mempool_avail_count(mp);
	if (avail != mp->size || rxr_pool_check(pool, stderr) != 0) {
		fprintf(stderr, APP ": port %u: %u of %u frames did not come back "
			"to their zone\n", p->id, mp->size - avail, mp->size);
		*lost += mp->size - avail;
		ret = -1;
	}
	rte_mempool_free(mp);
	return ret;
}

int
ports_retire_pools(struct app *a, uint64_t *lost)
{
	int ret = 0;

	for (unsigned int i = 0; i < a->nb_ports; i++) {
		struct port *p = &a->ports[i];

		if (p->old_mp != NULL && pool_retire(p, p->old_mp, lost) != 0)
			ret = -1;
		p->old_mp = NULL;
	}
	return ret;
}

int
ports_close(struct app *a, uint64_t *lost)
{
	int ret = ports_retire_pools(a, lost);

	for (unsigned int i = 0; i < a->nb_ports; i++) {
		struct port *p = &a->ports[i];

		if (p->started)
			rte_eth_dev_stop(p->id);
		p->started = false;
		/* Closing releases the queues and the mbufs they hold. */
		rte_eth_dev_close(p->id);
		if (p->mp != NULL && pool_retire(p, p->mp, lost) != 0)
			ret = -1;
		p->mp = NULL;
	}
	return ret;
}
void
port_counters_read(const struct port *p, struct port_counters *c)
{
	struct rte_eth_stats st;

	memset(c, 0, sizeof(*c));
	if (rte_eth_stats_get(p->id, &st) == 0) {
		c->ipackets = st.ipackets;
		c->ibytes = st.ibytes;
		c->imissed = st.imissed;
		c->ierrors = st.ierrors;
		c->rx_nombuf = st.rx_nombuf;
	}
	if (p->xstat_out_of_buffer >= 0) {
		uint64_t id = p->xstat_out_of_buffer;

		rte_eth_xstats_get_by_id(p->id, &id, &c->out_of_buffer, 1);
	}
	if (p->xstat_wqe_errors >= 0) {
		uint64_t id = p->xstat_wqe_errors;

		rte_eth_xstats_get_by_id(p->id, &id, &c->wqe_errors, 1);
	}
}
