/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Ports: configuration with RSS, one rxrefill pool per port and run
 * (probing a device again when its queues cannot take another pool),
 * counters and NIC-side drop causes. Captures and the replay port: replay.c.
 */

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_devargs.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_pci.h>

#include "rxrefill.h"
#include "rxr_log.h"

#define REPROBE_TRIES 10	/* probes, REPROBE_GAP_US apart, for a queue setup */
#define REPROBE_GAP_US (100 * 1000)
/* The kernel unbinds a closed XDP socket from its queue this long after. */
#define XSK_UNBIND_WAIT_US (200 * 1000)
/* The one TX queue (never sent on; some PMDs will not start without). */
#define TX_DESCS 512
/* Frames past what the queues, caches and consumers can hold; the most. */
#define POOL_FRAMES_SLACK 1024
#define POOL_FRAMES_MAX (UINT32_C(1) << 26)
/* How long start waits for links that come up late, and how often it looks. */
#define LINK_WAIT_S 3
#define LINK_POLL_US (10 * 1000)

static int
port_info(uint16_t id, struct rte_eth_dev_info *di)
{
	int ret = rte_eth_dev_info_get(id, di);

	if (ret != 0)
		RXR_LOG(ERR, "port %u: no device info: %s", id,
			rte_strerror(-ret));
	return ret;
}

/* RSS over its queues, one TX queue, mlx5's rx_out_of_buffer found. */
static int
port_configure(struct app *a, struct port *p, const struct rte_eth_dev_info *di)
{
	static uint8_t rss_key[RXR_FLOW_RSS_KEY_LEN];
	struct rte_eth_conf conf = { 0 };
	uint64_t xid;
	int ret;

	if (p->nb_q > di->max_rx_queues) {
		RXR_LOG(ERR, "port %u (%s) can do at most %u RX queues, "
			"asked for %u (%s): give --queues %u", p->id, p->driver,
			di->max_rx_queues, p->nb_q, a->opt.queues != 0 ?
			"--queues" : "the default", di->max_rx_queues);
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
		RXR_LOG(ERR, "port %u (%s): cannot configure %u RX queues: %s",
			p->id, p->driver, p->nb_q, rte_strerror(-ret));
		return -1;
	}
	ret = rte_eth_tx_queue_setup(p->id, 0, TX_DESCS, p->socket, NULL);
	if (ret != 0) {
		RXR_LOG(ERR, "port %u (%s): cannot set up a TX queue: %s",
			p->id, p->driver, rte_strerror(-ret));
		return -1;
	}
	p->xstat_out_of_buffer = rte_eth_xstats_get_id_by_name(p->id,
		"rx_out_of_buffer", &xid) == 0 ? (int)xid : -1;
	return 0;
}

/* Whether a probed port sits on device @p name (a PCI DOMAIN:BUS:DEV.FN,
 * a virtual device's name). */
static bool
device_has_port(const char *name)
{
	uint16_t id;

	RTE_ETH_FOREACH_DEV(id) {
		struct rte_eth_dev_info di;

		if (rte_eth_dev_info_get(id, &di) == 0 && di.device != NULL &&
				strcmp(rte_dev_name(di.device), name) == 0)
			return true;
	}
	return false;
}

/* The device's bus, name and devargs, to probe it again. */
static void
port_identity(struct port *p, const struct rte_eth_dev_info *di)
{
	const struct rte_devargs *da;

	if (di->device == NULL)
		return;
	snprintf(p->bus, sizeof(p->bus), "%s",
		rte_bus_name(rte_dev_bus(di->device)));
	snprintf(p->devname, sizeof(p->devname), "%s", rte_dev_name(di->device));
	da = rte_dev_devargs(di->device);
	if ((size_t)snprintf(p->devargs, sizeof(p->devargs), "%s",
			da != NULL && da->args != NULL ? da->args : "") >=
			sizeof(p->devargs)) {
		RXR_LOG(ERR, "port %u (%s): devargs longer than %zu bytes: "
			"it cannot be probed again", p->id, p->driver,
			sizeof(p->devargs) - 1);
		return;
	}
	p->reprobe_ok = true;
}

/*
 * What the port's PMD asks of every run, decided once.
 * net_pcap (--replay's or a --vdev's): its files as read before EAL, and
 * one queue per file unless --queues says otherwise, so that no file goes
 * unread unsaid. Without infinite_rx it replays them once per start; with
 * it, it loads them at queue setup: probed again for a pool.
 * net_af_xdp (DPDK 22.11): a second XDP socket on a bound queue fails
 * (EBUSY) and the failed setup forgets the first socket, which then stays
 * bound until the process exits: never set up twice. Its buffers must each
 * sit in one 4 KiB page: frames of exactly a page, unless --frame-size
 * asked for one of at most a page; the default frame (an odd number of
 * cache lines) does not tile a page, so at the exact stride some of its
 * buffers would cross one.
 */
static int
port_kind(struct app *a, struct port *p)
{
	const uint32_t page = (uint32_t)RTE_PGSIZE_4K;
	const struct replay_counts *c = NULL;

	for (unsigned int i = 0; c == NULL && i < a->nb_pcap_devs; i++)
		if (strcmp(a->pcap_devs[i].name, p->name) == 0)
			c = &a->pcap_devs[i].files;
	if (c != NULL && c->nb != 0) {
		p->files = *c;
		p->finite = !c->endless;
		p->always_reprobe = c->endless;
		if (a->opt.queues == 0)
			p->nb_q = c->nb;
		else if (p->nb_q < c->nb)
			RXR_LOG(WARNING, "%s: --queues %u receives %u of its %u "
				"rx_pcap files; the others are never read",
				p->name, p->nb_q, p->nb_q, c->nb);
	}
	p->xsk = strcmp(p->driver, "net_af_xdp") == 0;
	p->always_reprobe |= p->xsk;
	if (!p->xsk || (a->opt.frame_size <= page &&
			(a->opt.frame_size_set || page % a->opt.frame_size == 0)))
		return 0;
	if (a->opt.frame_size_set) {
		RXR_LOG(ERR, "--frame-size %u: port %u (%s) takes buffers of at "
			"most %u bytes, each inside one page", a->opt.frame_size,
			p->id, p->driver, page);
		return -1;
	}
	printf(APP ": port %u (%s) takes buffers inside one %u-byte page: "
		"frames of %u bytes for every port\n", p->id, p->driver, page,
		page);
	a->opt.frame_size = page;
	return 0;
}

/* Why no PMD took PCI device @p addr, from sysfs, one error line. */
static void
pci_explain(const struct app *a, const char *given, const char *addr)
{
	char path[PATH_MAX], file[PATH_MAX + 8];
	char vendor[16], cls[16], name[49], drv[64] = "no driver";

	if (a->eal_no_pci) {
		RXR_LOG(ERR, "-a %s: given with --no-pci, which turns EAL's "
			"PCI bus off: no PCI device is probed; leave --no-pci "
			"out to use %s", given, addr);
		return;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", addr);
	if (access(path, F_OK) != 0) {
		RXR_LOG(ERR, "-a %s: no PCI device %s on this machine (lspci -D "
			"lists them; " APP " --list-devices the RDMA NICs)",
			given, addr);
		return;
	}
	snprintf(file, sizeof(file), "%s/vendor", path);
	read_first_line(file, vendor, sizeof(vendor));
	snprintf(file, sizeof(file), "%s/class", path);
	read_first_line(file, cls, sizeof(cls));
	snprintf(file, sizeof(file), "%s/driver", path);
	if (read_link_name(file, name, sizeof(name)))
		snprintf(drv, sizeof(drv), "driver %s", name);
	if ((strtoul(cls, NULL, 16) >> 16) != 0x02)
		RXR_LOG(ERR, "-a %s: %s is not a network controller (PCI class "
			"%s, %s)", given, addr, cls, drv);
	else if (strcmp(vendor, "0x15b3") == 0)
		RXR_LOG(ERR, "-a %s: %s is a Mellanox NIC (%s) that no PMD took: "
			"DPDK's mlx5 PMD needs it bound to its kernel driver "
			"mlx5_core and rdma-core (libibverbs with its mlx5 "
			"provider); " APP " --list-devices shows what rdma-core "
			"sees, EAL's messages above why the probe failed",
			given, addr, drv);
	else
		RXR_LOG(ERR, "-a %s: %s is a NIC (vendor %s, %s) that no PMD "
			"took: most PMDs need it bound to vfio-pci, which takes "
			"it from the kernel (dpdk-devbind.py --bind=vfio-pci %s; "
			"never the NIC this machine is reached through), and a "
			"driver for it in this DPDK; EAL's messages above say "
			"more", given, addr, vendor, drv, addr);
}

/*
 * Every device given with -a, and every network device given with
 * --vdev, must have become a port: say for each one that did not why
 * (EAL says nothing of a PCI address that is not there, and goes on when
 * a virtual device fails), rather than run on the other ports without it.
 * @return how many devices have no port.
 */
static int
devices_check(const struct app *a)
{
	struct rte_devargs *da;
	int n = 0;

	RTE_EAL_DEVARGS_FOREACH("vdev", da) {
		if (strncmp(da->name, "net_", 4) != 0 ||
				device_has_port(da->name))
			continue;
		RXR_LOG(ERR, "--vdev %s: its PMD made no port (EAL's messages "
			"above say why)", da->name);
		n++;
	}

	RTE_EAL_DEVARGS_FOREACH("pci", da) {
		struct rte_pci_addr pa;
		char addr[PCI_PRI_STR_SIZE];

		if (da->policy != RTE_DEV_ALLOWED)
			continue;
		/* The name a PCI device's ports carry, whatever form -a had. */
		if (rte_pci_addr_parse(da->name, &pa) != 0) {
			RXR_LOG(ERR, "-a %s: not a PCI address (DOMAIN:BUS:"
				"DEVICE.FUNCTION, as lspci -D prints)", da->name);
			n++;
			continue;
		}
		rte_pci_device_name(&pa, addr, sizeof(addr));
		if (device_has_port(addr))
			continue;
		pci_explain(a, da->name, addr);
		n++;
	}
	return n;
}

int
ports_init(struct app *a)
{
	uint16_t id;

	RTE_ETH_FOREACH_DEV(id) {
		struct rte_eth_dev_info di;
		struct port *p;

		if (a->nb_ports == MAX_PORTS) {
			RXR_LOG(ERR, "more than %d ports; use -a/--vdev to pick",
				MAX_PORTS);
			return -1;
		}
		p = &a->ports[a->nb_ports];
		memset(p, 0, sizeof(*p));
		p->id = id;
		if (port_info(id, &di) != 0)
			return -1;
		rte_eth_dev_get_name_by_port(id, p->name);
		snprintf(p->driver, sizeof(p->driver), "%s", di.driver_name);
		p->socket = rte_eth_dev_socket_id(id);
		if (p->socket < 0)
			p->socket = (int)rte_socket_id();
		p->replay = strcmp(p->name, REPLAY_VDEV) == 0;
		port_identity(p, &di);
		p->nb_q = a->opt.queues != 0 ? a->opt.queues :
			RTE_MAX(1u, a->nb_pollers);
		if (port_kind(a, p) != 0)
			return -1;
		if (p->nb_q > MAX_QUEUES) {
			RXR_LOG(ERR, "port %u: at most %d queues", id,
				MAX_QUEUES);
			return -1;
		}
		if (port_configure(a, p, &di) != 0)
			return -1;
		a->nb_ports++;
	}
	if (devices_check(a) != 0)
		return -1;
	if (a->nb_ports == 0) {
		RXR_LOG(ERR, "no port: give a NIC with -a <PCI>, a virtual "
			"device with --vdev, or captures with -- --replay FILES "
			"(rxrefill-gen writes some); rxrefill --list-devices lists "
			"RDMA NICs");
		return -1;
	}
	return 0;
}

static void
port_stop(struct port *p)
{
	if (p->started)
		rte_eth_dev_stop(p->id);
	p->started = false;
}

/* @return how many XDP sockets the PMD left open and were closed. */
static unsigned int
port_close(struct port *p)
{
	port_stop(p);
	rte_eth_dev_close(p->id);
	return xsk_close_stale(p);
}

/*
 * Close the port and probe its device again (vdev or PCI hotplug), then
 * configure it as before: closing releases the queues and every mbuf the
 * PMD held, whatever pool it came from.
 */
static int
port_reprobe(struct app *a, struct port *p)
{
	struct rte_eth_dev_info di;
	uint16_t id;
	int ret;

	if (!p->reprobe_ok) {
		RXR_LOG(ERR, "port %u (%s): no device to probe again",
			p->id, p->driver);
		return -1;
	}
	if (port_close(p) != 0)
		rte_delay_us_sleep(XSK_UNBIND_WAIT_US);
	ret = rte_eal_hotplug_remove(p->bus, p->devname);
	if (ret == 0)
		ret = rte_eal_hotplug_add(p->bus, p->devname, p->devargs);
	if (ret != 0) {
		RXR_LOG(ERR, "port %u (%s): cannot probe %s device %s "
			"again: %s", p->id, p->driver, p->bus, p->devname,
			rte_strerror(-ret));
		return -1;
	}
	if (rte_eth_dev_get_port_by_name(p->name, &id) != 0) {
		RXR_LOG(ERR, "%s device %s probed again, but it has no "
			"port %s", p->bus, p->devname, p->name);
		return -1;
	}
	p->id = id;
	return port_info(id, &di) != 0 ? -1 : port_configure(a, p, &di);
}

/* Every RX queue on p->mp; the XDP sockets it opens found (xsk.c). */
static int
queues_setup(struct port *p, unsigned int rxd, bool again)
{
	xsk_setup_begin(p);
	for (uint16_t q = 0; q < p->nb_q; q++) {
		int ret = rte_eth_rx_queue_setup(p->id, q, rxd, p->socket, NULL,
				p->mp);

		if (ret != 0) {
			RXR_LOG(ERR, "port %u (%s) queue %u: cannot set up "
				"%u descriptors%s: %s", p->id, p->driver, q, rxd,
				again ? " with another pool" : "", rte_strerror(-ret));
			xsk_setup_end(p, false);
			return -1;
		}
	}
	xsk_setup_end(p, true);
	return 0;
}

static void
reclaim_obj(struct rte_mempool *mp, void *arg, void *obj,
		unsigned int idx __rte_unused)
{
	unsigned int *out = arg;

	/* Not taken out by pool_reclaim() (refcnt 0): one the PMD lost. */
	if (rte_mbuf_refcnt_read(obj) != 0) {
		rte_pktmbuf_reset(obj);
		++*out;
	}
	rte_mbuf_refcnt_set(obj, 1);
	rte_mempool_put(mp, obj);
}

/*
 * A failed queue setup can take frames of the new pool and lose them
 * (net_af_xdp of DPDK 22.11 fills its fill queue before it fails). Once the
 * port is closed and the pool was never used by anything else, every frame
 * that is not home is such a frame: take the free ones out, marked, and
 * put every frame of the pool back. @return how many were not home.
 */
static unsigned int
pool_reclaim(struct rte_mempool *mp)
{
	unsigned int out = 0;
	void *obj;

	rxr_pool_quiesce(rxr_mempool_pool(mp));
	if (rte_mempool_avail_count(mp) == mp->size)
		return 0;
	while (rte_mempool_get(mp, &obj) == 0)
		rte_mbuf_refcnt_set(obj, 0);
	rte_mempool_obj_iter(mp, reclaim_obj, &out);
	return out;
}

/* rxr_pool_check()'s findings, one rte_log line each. */
static int
pool_check_logged(struct rxr_pool *pool)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret;

	if (f == NULL)
		return rxr_pool_check(pool, stderr);
	ret = rxr_pool_check(pool, f);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line != NULL;
			line = strtok_r(NULL, "\n", &save))
		RXR_LOG(ERR, "%s", line);
	free(buf);
	return ret;
}

/*
 * The pool at *slot, if any, no queue uses any more: every frame must be
 * home in its zone; then it is freed. *slot is emptied.
 */
static int
pool_retire(struct port *p, struct rte_mempool **slot, uint64_t *lost)
{
	struct rte_mempool *mp = *slot;
	struct rxr_pool *pool;
	unsigned int avail, got;

	if (mp == NULL)
		return 0;
	*slot = NULL;
	pool = rxr_mempool_pool(mp);
	/* net_af_xdp leaves its fill ring's frames in its UMEM, the pool. */
	if (p->xsk && (got = pool_reclaim(mp)) != 0)
		RXR_LOG(NOTICE, "port %u (%s): %u frames its closed queues kept "
			"are back in their zone", p->id, p->driver, got);
	rxr_pool_quiesce(pool);
	avail = rte_mempool_avail_count(mp);
	if (avail != mp->size || pool_check_logged(pool) != 0) {
		RXR_LOG(ERR, "port %u: %u of %u frames did not come back "
			"to their zone; its pool is kept, so that they land in "
			"live memory if they come back later", p->id,
			mp->size - avail, mp->size);
		*lost += mp->size - avail;
		return -1;
	}
	rte_mempool_free(mp);
	return 0;
}

/* A pool with the frames no strategy starves with, by construction. */
static struct rte_mempool *
pool_new(struct app *a, struct port *p, const struct rxr_mempool_conf *c)
{
	const struct options *o = &a->opt;
	uint32_t high = o->high != 0 ? o->high : RXR_PCP_HIGH_DEFAULT;
	uint64_t n = (uint64_t)p->nb_q * (o->rxd + 2 * o->burst), held = 0;
	char name[RTE_MEMPOOL_NAMESIZE];
	struct rte_mempool *mp;

	/* What the strategy that holds the most may hold, whichever runs:
	 * every strategy gets the same pool. */
	for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++)
		held = RTE_MAX(held, rxr_strategy_lcore_frames(s,
			o->settings[s]));
	n += (uint64_t)a->nb_pollers * (high + held);
	if (consumer_queued(o->consumer))
		n += (uint64_t)a->nb_pollers * o->consumers * (o->consumer_depth +
			RXR_POOL_TASK_BATCH_DEFAULT);
	/* infinite_rx keeps a copy of every file packet in the pool. */
	if (p->files.endless)
		n += p->files.segments;
	n = o->frames != 0 ? o->frames :
		RTE_MIN(n + POOL_FRAMES_SLACK, (uint64_t)POOL_FRAMES_MAX);
	snprintf(name, sizeof(name), "rxr_p%u_%u", p->id, a->run_seq++);
	mp = rxr_pktmbuf_pool_create(name, n, c, p->socket);
	if (mp == NULL)
		RXR_LOG(ERR, "port %u: cannot create a pool of %" PRIu64 " "
			"frames of %u bytes (%s, %" PRIu64 " MiB for the frames "
			"alone): %s%s", p->id, n, a->opt.frame_size,
			rxr_strategy_name(c->pool.strategy),
			(n * a->opt.frame_size + (1u << 20) - 1) >> 20,
			rte_strerror(rte_errno),
			a->backing == RXR_MEM_NO_HUGE ? "; with --no-huge, "
			"raise EAL's -m" : "; reserve more hugepages");
	return mp;
}

/*
 * The queues could not take the new pool: close the port, probe it again,
 * get back what the failed setup took, and try again. The pool was never
 * used by anything but the failed setups, so every frame out of it after a
 * close is one they lost. net_af_xdp can fail a setup right after a probe
 * (its XDP program still being replaced), hence the tries.
 */
static int
port_renew(struct app *a, struct port *p)
{
	unsigned int got;

	p->always_reprobe = true;
	for (unsigned int t = 0; t < REPROBE_TRIES; t++) {
		RXR_LOG(NOTICE, "port %u (%s): closing it and probing %s "
			"again for the new pool", p->id, p->driver, p->devname);
		if (port_reprobe(a, p) != 0)
			return -1;
		got = pool_reclaim(p->mp);
		if (got != 0)
			RXR_LOG(NOTICE, "port %u (%s): %u frames the failed "
				"setup took are back", p->id, p->driver, got);
		if (queues_setup(p, a->opt.rxd, false) == 0)
			return 0;
		rte_delay_us_sleep(REPROBE_GAP_US);
	}
	return -1;
}

/*
 * Set up every RX queue with a fresh pool for this run's strategy; the
 * previous run's pool is retired by ports_retire_pools() afterwards, once
 * the PMD gave back every frame of it. When a queue cannot be set up again
 * or the PMD keeps frames of the old pool, the port is closed and probed
 * again, and it is from then on for every new pool.
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
				/* @CONFIG: the others take the same path, 1 cycle. */
				.test_refill_delay = a->opt.test_refill_delay == 0 ?
					0 : opts_refill_delayed(&a->opt, rc) ?
					a->opt.test_refill_delay : 1,
				.zero_policy = rc->zero_policy,
				.zero_method = rc->zero_method,
			},
			.frame_size = a->opt.frame_size,
		};
		const bool again = p->mp != NULL;
		unsigned int held = 0;

		/* The strategy's own settings (--strategy-setting). */
		memcpy(c.pool.settings, a->opt.settings[rc->strategy],
			sizeof(c.pool.settings));
		/* Only the lcores that poll this port own a pcp in its pool. */
		for (unsigned int k = 0; k < a->nb_pollers; k++)
			for (unsigned int q = 0; q < a->pollers[k].nb_q; q++)
				if (a->pollers[k].q[q].port_idx == i) {
					c.pool.poll_lcores[c.pool.nr_poll_lcores++] =
						a->pollers[k].lcore;
					break;
				}
		if (again && p->always_reprobe) {
			if (port_reprobe(a, p) != 0)
				return -1;
			/*
			 * Closed, the port holds nothing of the old pool: retire
			 * it before the new one is made, so that two pools never
			 * need memory at once (with infinite_rx each holds every
			 * packet of the captures: the second run failed where
			 * the first fit).
			 */
			if (pool_retire(p, &p->mp, &a->lost_frames) != 0)
				RXR_LOG(ERR, "frames were lost in the previous run");
		}
		p->old_mp = p->mp;
		p->mp = pool_new(a, p, &c);
		if (p->mp == NULL)
			return -1;
		if (queues_setup(p, a->opt.rxd, again) != 0 &&
				(!again || port_renew(a, p) != 0))
			return -1;
		/* Frames of the old pool the PMD still holds (not home in a
		 * pcp or the zone) come back on close. */
		if (p->old_mp != NULL && !p->always_reprobe) {
			rxr_pool_quiesce(rxr_mempool_pool(p->old_mp));
			held = p->old_mp->size -
				rte_mempool_avail_count(p->old_mp);
		}
		if (held != 0) {
			RXR_LOG(NOTICE, "port %u (%s) holds %u frames of the "
				"previous pool after a new setup: closing it and "
				"probing %s again", p->id, p->driver, held,
				p->devname);
			p->always_reprobe = true;
			if (port_reprobe(a, p) != 0 ||
					(queues_setup(p, a->opt.rxd, false) != 0 &&
					 port_renew(a, p) != 0))
				return -1;
		}
	}
	return 0;
}

static bool
link_down(uint16_t id)
{
	struct rte_eth_link l;

	return rte_eth_link_get_nowait(id, &l) == 0 &&
		l.link_status == RTE_ETH_LINK_DOWN;
}

int
ports_start(struct app *a)
{
	uint64_t end;

	for (unsigned int i = 0; i < a->nb_ports; i++) {
		int ret = rte_eth_dev_start(a->ports[i].id);

		if (ret != 0) {
			RXR_LOG(ERR, "port %u (%s): cannot start: %s",
				a->ports[i].id, a->ports[i].driver, rte_strerror(-ret));
			return -1;
		}
		a->ports[i].started = true;
		rte_eth_promiscuous_enable(a->ports[i].id);
	}
	/*
	 * A port whose link comes up after start (net_memif's handshake with
	 * its peer, a tap or veth interface) would miss the start of the run:
	 * wait for every link a little, and say which stayed down.
	 */
	end = rte_get_timer_cycles() + LINK_WAIT_S * rte_get_timer_hz();
	for (unsigned int i = 0; i < a->nb_ports; i++) {
		struct port *p = &a->ports[i];

		while (link_down(p->id) && !flag_get(&force_quit) &&
				rte_get_timer_cycles() < end)
			rte_delay_us_sleep(LINK_POLL_US);
		if (!p->link_warned && link_down(p->id)) {
			RXR_LOG(WARNING, "warning: port %u (%s): link still down "
				"3 s after start", p->id, p->driver);
			p->link_warned = true;
		}
	}
	return 0;
}

void
ports_stop(struct app *a)
{
	for (unsigned int i = 0; i < a->nb_ports; i++)
		port_stop(&a->ports[i]);
}

int
ports_retire_pools(struct app *a, uint64_t *lost)
{
	int ret = 0;

	for (unsigned int i = 0; i < a->nb_ports; i++)
		if (pool_retire(&a->ports[i], &a->ports[i].old_mp,
				lost) != 0)
			ret = -1;
	return ret;
}

/*
 * Close every port first: the PMDs hand back what they hold (rings, fill
 * queues, preloaded files), then every pool is checked.
 */
int
ports_close(struct app *a, uint64_t *lost)
{
	int ret;

	for (unsigned int i = 0; i < a->nb_ports; i++)
		port_close(&a->ports[i]);
	ret = ports_retire_pools(a, lost);
	for (unsigned int i = 0; i < a->nb_ports; i++)
		if (pool_retire(&a->ports[i], &a->ports[i].mp, lost) != 0)
			ret = -1;
	return ret;
}

void
port_counters_read(const struct port *p, struct port_counters *c)
{
	struct rte_eth_stats st;

	memset(c, 0, sizeof(*c));
	if (rte_eth_stats_get(p->id, &st) == 0) {
		c->ipackets = st.ipackets;
		c->imissed = st.imissed;
		c->ierrors = st.ierrors;
		c->rx_nombuf = st.rx_nombuf;
	}
	if (p->xstat_out_of_buffer >= 0) {
		uint64_t id = p->xstat_out_of_buffer;

		rte_eth_xstats_get_by_id(p->id, &id, &c->out_of_buffer, 1);
	}
	if (p->xsk)
		xsk_stats_read(p, c);
}
