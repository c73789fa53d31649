/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The rxrefill mempool driver under real PMDs: for every strategy, bulk on
 * and off, an mbuf pool made by rxr_pktmbuf_pool_create() serves net_null
 * and net_pcap (infinite_rx) the way testpmd's rxonly does (rx_burst, then
 * rte_pktmbuf_free_bulk). After the port is closed every frame is back in
 * its zone.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include <rte_bus_vdev.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "rxr_mempool.h"
#include "rxr_test.h"

#define NR_MBUFS 4096u
#define PKT_LEN 128u
#define FILE_PKTS 64u

static char pcap_path[64];

/* A small capture: FILE_PKTS UDP-looking frames of PKT_LEN bytes. */
static int
write_capture(void)
{
	pcap_t *pd = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d;
	uint8_t pkt[PKT_LEN];
	int fd;

	strcpy(pcap_path, "/tmp/rxr_mp_XXXXXX");
	fd = mkstemp(pcap_path);
	if (pd == NULL || fd < 0)
		return -1;
	close(fd);
	d = pcap_dump_open(pd, pcap_path);
	if (d == NULL)
		return -1;
	for (unsigned int i = 0; i < FILE_PKTS; i++) {
		struct pcap_pkthdr h = { .caplen = PKT_LEN, .len = PKT_LEN };

		memset(pkt, (int)i, sizeof(pkt));
		pkt[12] = 0x08;	/* IPv4 ethertype */
		pkt[13] = 0x00;
		pcap_dump((u_char *)d, &h, pkt);
	}
	pcap_dump_close(d);
	pcap_close(pd);
	return 0;
}

struct run_result {
	uint64_t pkts, bytes;
};

static int
rx_run(const char *vdev, const char *args, struct rte_mempool *mp,
		struct run_result *res)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_mbuf *pkts[32];
	struct rxr_pool *p = rxr_mempool_pool(mp);
	uint16_t port;
	int ret;

	ret = rte_eal_hotplug_add("vdev", vdev, args);
	RXR_TEST_ASSERT(ret == 0, "hotplug %s: %s", vdev, rte_strerror(-ret));
	RXR_TEST_ASSERT(rte_eth_dev_get_port_by_name(vdev, &port) == 0, "port");
	RXR_TEST_ASSERT(rte_eth_dev_configure(port, 1, 1, &conf) == 0, "configure");
	ret = rte_eth_rx_queue_setup(port, 0, 256, rte_socket_id(), NULL, mp);
	RXR_TEST_ASSERT(ret == 0, "rx queue setup: %s", rte_strerror(-ret));
	RXR_TEST_ASSERT(rte_eth_tx_queue_setup(port, 0, 256, rte_socket_id(),
		NULL) == 0, "tx queue setup");
	RXR_TEST_ASSERT(rte_eth_dev_start(port) == 0, "start");
	memset(res, 0, sizeof(*res));
	for (int it = 0; it < 20000 && res->pkts < 100000; it++) {
		uint16_t n = rte_eth_rx_burst(port, 0, pkts, RTE_DIM(pkts));

		for (uint16_t i = 0; i < n; i++)
			res->bytes += pkts[i]->pkt_len;
		res->pkts += n;
		rte_pktmbuf_free_bulk(pkts, n);
		rxr_pool_poll_end(p);
	}
	RXR_TEST_ASSERT(rte_eth_dev_stop(port) == 0, "stop");
	RXR_TEST_ASSERT(rte_eth_dev_close(port) == 0, "close");
	RXR_TEST_ASSERT(rte_eal_hotplug_remove("vdev", vdev) == 0, "remove");
	return 0;
}

static int
one_pool(enum rxr_strategy s, bool bulk, const char *vdev, const char *args)
{
	struct rxr_mempool_conf c = {
		.pool = { .strategy = s, .bulk = bulk, .nr_poll_lcores = 1,
			.poll_lcores = { rte_lcore_id() } },
	};
	struct rxr_pool_stats st;
	struct run_result res;
	struct rte_mempool *mp;
	struct rxr_pool *p;

	mp = rxr_pktmbuf_pool_create("rxr_test_mp", NR_MBUFS, &c, rte_socket_id());
	RXR_TEST_ASSERT(mp != NULL, "pool: %s", rte_strerror(rte_errno));
	p = rxr_mempool_pool(mp);
	RXR_TEST_ASSERT(p != NULL, "the pool is ours");
	RXR_TEST_ASSERT_EQ(mp->cache_size, 0, "no mempool cache");
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), NR_MBUFS, "all free at start");
	RXR_TEST_ASSERT_EQ(rte_pktmbuf_data_room_size(mp),
		RTE_MBUF_DEFAULT_BUF_SIZE, "DPDK's default buffer per frame");
	RXR_TEST_ASSERT_EQ(mp->header_size + mp->elt_size + mp->trailer_size,
		RXR_MEMPOOL_FRAME_SIZE_DEFAULT, "default stride");
	if (rx_run(vdev, args, mp, &res) != 0)
		return -1;
	printf("# %s bulk %-3s %s: %" PRIu64 " packets, %" PRIu64 " bytes\n",
		rxr_strategy_name(s), bulk ? "on" : "off", vdev, res.pkts, res.bytes);
	RXR_TEST_ASSERT(res.pkts >= 100000, "received %" PRIu64, res.pkts);
	if (strncmp(vdev, "net_pcap", 8) == 0)
		RXR_TEST_ASSERT_EQ(res.bytes, res.pkts * PKT_LEN, "bytes");
	rxr_pool_stats(p, &st);
	if (s != RXR_STRATEGY_ZONE)
		RXR_TEST_ASSERT(st.lcore[0].pcp.alloc > 0, "refilled through the pcp");
	else
		RXR_TEST_ASSERT(st.zone[0].lock.acquisitions > res.pkts / 64,
			"zone strategy takes the zone lock");
	rxr_pool_quiesce(p);
	RXR_TEST_ASSERT(rxr_pool_check(p, stdout) == 0, "conservation");
	RXR_TEST_ASSERT_EQ(rte_mempool_avail_count(mp), NR_MBUFS, "all back");
	rte_mempool_free(mp);
	return 0;
}

static int
test_null(void)
{
	for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++)
		for (int bulk = 0; bulk < 2; bulk++)
			if (one_pool(s, bulk, "net_null_t", "") != 0)
				return -1;
	return 0;
}

static int
test_pcap(void)
{
	char args[128];

	snprintf(args, sizeof(args), "rx_pcap=%s,infinite_rx=1", pcap_path);
	for (int s = 0; s < RXR_STRATEGY_USER_MAX; s++)
		for (int bulk = 0; bulk < 2; bulk++)
			if (one_pool(s, bulk, "net_pcap_t", args) != 0)
				return -1;
	return 0;
}

static int
test_bad_frame_size(void)
{
	struct rxr_mempool_conf c = { .frame_size = 256 };

	RXR_TEST_ASSERT(rxr_pktmbuf_pool_create("rxr_small", 64, &c,
		rte_socket_id()) == NULL, "256-byte frames cannot hold an mbuf");
	RXR_TEST_ASSERT_EQ(rte_errno, EINVAL, "EINVAL");
	RXR_TEST_ASSERT_EQ(rxr_mempool_data_room(2048, 0), 1856, "2 KiB frames");
	return 0;
}

int
main(int argc, char **argv)
{
	if (write_capture() != 0) {
		fprintf(stderr, "cannot write a capture\n");
		return EXIT_FAILURE;
	}
	rxr_test_eal_init(argv[0], "0", 512, NULL);
	rxr_test_run("net_null rxonly, every strategy, bulk on/off", test_null);
	rxr_test_run("net_pcap infinite_rx, every strategy, bulk on/off", test_pcap);
	rxr_test_run("a frame too small for an mbuf is refused", test_bad_frame_size);
	unlink(pcap_path);
	return rxr_test_done();
}
