/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Fuzz target: rxrefill-gen's capture reader and split path, on the bytes
 * of a whole capture file (fmemopen, as the program does with fopen). The
 * records go to a libpcap writer on /dev/null so that the writer sees
 * whatever lengths the reader lets through.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink {
	pcap_t *dead;		/* kept reachable: it lives for the process */
	pcap_dumper_t *d;
	uint64_t sum;
};

static int
sink_write(void *ctx, uint16_t queue, const struct pcap_pkthdr *h,
		const uint8_t *data, struct gen_err *e)
{
	struct sink *s = ctx;
	uint32_t i;

	if (queue >= 4 || h->caplen == 0 || h->caplen > h->len ||
			h->caplen > RXR_CAPTURE_CAPLEN_MAX)
		abort();	/* the reader promised to skip these */
	for (i = 0; i < h->caplen; i++)
		s->sum += data[i];
	pcap_dump((u_char *)s->d, h, data);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rxr_flow_rss rss;
	static struct sink sink;
	struct gen_split_stats st = { 0 };
	struct rxr_capture_flows ft;
	struct gen_err e = { "" };
	struct rxr_capture in;
	uint64_t flowed = 0, skipped = 0;
	uint32_t i;
	FILE *f;

	if (rss.reta == NULL) {
		FILE *null = fopen("/dev/null", "wb");

		sink.dead = pcap_open_dead(DLT_EN10MB, 65535);
		if (rxr_flow_rss_init(&rss, NULL, RXR_FLOW_RSS_L3L4, 64, 4) != 0 ||
				sink.dead == NULL || null == NULL)
			abort();
		sink.d = pcap_dump_fopen(sink.dead, null);
		if (sink.d == NULL)
			abort();
	}
	if (size == 0)
		return 0;	/* fmemopen() refuses empty buffers */
	f = fmemopen((void *)(uintptr_t)data, size, "rb");
	if (f == NULL)
		abort();
	if (gen_capture_open(&in, f, "fuzz", &e) != 0)
		return 0;
	/* A small table, so that the untracked path runs too. */
	if (rxr_capture_flows_init(&ft, 16) != 0)
		abort();
	if (gen_split(&in, "fuzz", &rss, data[size - 1] & 1, sink_write, &sink,
			&st, &ft, &e) == 0) {
		for (i = 0; i < RXR_CAPTURE_SKIP_MAX; i++)
			skipped += in.skipped[i];
		if (st.written + skipped != in.records ||
				st.ip + st.non_ip + st.unparsed != st.written)
			abort();
		for (i = 0; i < ft.nb_flows; i++)
			flowed += ft.flows[i].packets;
		if (flowed + ft.untracked_packets != st.ip)
			abort();
	}
	rxr_capture_flows_free(&ft);
	rxr_capture_close(&in);
	return 0;
}
