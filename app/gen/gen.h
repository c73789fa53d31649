/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_GEN_H
#define RXR_GEN_H

/*
 * rxrefill-gen internals, shared by the program, its tests and the fuzz
 * target of the split path. Not a public API.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>
#include <jansson.h>

#include "rxr_capture.h"
#include "rxr_flow.h"

#define GEN_PROG		"rxrefill-gen"
#define GEN_MANIFEST_SCHEMA	"rxrefill-gen-manifest/1"

/* Frame length without FCS: Ethernet's minimum .. an IPv4 datagram's
 * maximum. Plain numbers: --help quotes them (RTE_STR). */
#define GEN_SIZE_MIN		60
#define GEN_SIZE_MAX		65535
#define GEN_SNAPLEN		65535
#define GEN_IMIX_MAX_ENTRIES	16
#define GEN_IMIX_MAX_WEIGHT	1000
#define GEN_STREAMS_MAX		100000
#define GEN_PACKETS_MAX		1000000000
#define GEN_DPORT		5201	/* iperf3's */
#define GEN_FLOWS_MAX		(1u << 22)
/* Payload tag: "RXRF", stream id (BE32), packet index in stream (BE32). */
#define GEN_TAG_LEN		12u

/** An error message for the caller to print. */
struct gen_err {
	char msg[1024];
};

void gen_err_set(struct gen_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** Frame sizes: a cycle a stream walks through (one entry for a fixed size). */
struct gen_sizes {
	uint32_t n;		/* cycle length */
	uint32_t *cycle;	/* sizes in emission order */
	uint32_t nb_entries;	/* distinct entries given */
	uint32_t size[GEN_IMIX_MAX_ENTRIES];
	uint32_t weight[GEN_IMIX_MAX_ENTRIES];
	char spec[256];		/* normalized text, for the manifest */
};

/** "N", "imix" or "imix:SIZExWEIGHT,..." (weight 1 when omitted), sizes
 * in GEN_SIZE_MIN..GEN_SIZE_MAX (the caller checks the headers fit). */
int gen_sizes_parse(struct gen_sizes *s, const char *text, struct gen_err *e);
void gen_sizes_free(struct gen_sizes *s);

/** What to generate. */
struct gen_traffic_conf {
	uint32_t nb_streams;
	uint64_t packets;	/* per stream */
	uint8_t proto;		/* IPPROTO_TCP or IPPROTO_UDP */
	int ipver;		/* 4 or 6 */
	uint32_t nb_vlan;	/* 0..2 */
	uint16_t vlan[2];	/* outer first */
	uint64_t seed;
	bool balance;		/* pick source ports so streams spread evenly */
	struct gen_sizes sizes;
};

/** Bytes of headers in a generated frame. */
uint32_t gen_hdr_len(const struct gen_traffic_conf *c);

/** One generated stream: a flow as a split finds it, and its headers' state. */
struct gen_stream {
	struct rxr_capture_flow f;
	uint32_t seq;		/* TCP: next sequence number */
	uint16_t ip_id;
	uint32_t flow_label;
};

/**
 * Stream addresses and ports from the seed; with balance, stream i gets a
 * source port whose hash lands on queue i % nb_queues, else ports come in
 * the seed's order. @return streams that could not be balanced (0 mostly).
 */
uint32_t gen_streams_setup(struct gen_stream *st, const struct gen_traffic_conf *c,
		const struct rxr_flow_rss *rss);

/** Packet @p idx (from 0) of stream @p sid, @p len bytes, into @p buf
 * (GEN_SIZE_MAX bytes); advances the stream's TCP sequence and IP id. */
void gen_build_frame(uint8_t *buf, uint32_t len, struct gen_stream *s,
		uint32_t sid, uint64_t idx, const struct gen_traffic_conf *c);

/** One output capture, written to a temporary file and renamed on commit. */
struct gen_out {
	const char *path;	/* the caller's, while the output lives */
	char *tmp;
	pcap_t *dead;
	pcap_dumper_t *dumper;
	uint64_t packets;
	uint64_t bytes;		/* frame lengths (len) */
	uint64_t captured;	/* bytes in the file (caplen) */
	uint32_t streams;
	int write_errno;	/* of the first failed write, 0 if none */
};

int gen_out_open(struct gen_out *o, const char *path, int linktype,
		int snaplen, unsigned int precision, struct gen_err *e);
int gen_out_write(struct gen_out *o, const struct pcap_pkthdr *h,
		const uint8_t *data, struct gen_err *e);
/** Flush, sync and close the @p n captures, rename each over its path,
 * then write the manifest @p doc the same way (stdout for "-"). */
int gen_out_commit(struct gen_out *outs, uint32_t n, const json_t *doc,
		const char *manifest, struct gen_err *e);
/** Close if open and remove the temporary file. */
void gen_out_abort(struct gen_out *o);

/** Once, before any output: SIGINT, SIGQUIT, SIGTERM and SIGHUP remove
 * every temporary output, then end the program. */
int gen_out_signals(void);

/** What the split made of the records the reader gave (rxr_capture). */
struct gen_split_stats {
	uint64_t written;	/* records written to a queue file */
	uint64_t ip;		/* hashed as IP */
	uint64_t non_ip, non_ip_bytes;		/* no IP: RETA entry 0 */
	uint64_t unparsed, unparsed_bytes;	/* IP, headers cut or bad: RETA entry 0 */
	bool truncated;		/* damaged after what was split: the reader's err */
};

typedef int (*gen_sink_fn)(void *ctx, uint16_t queue,
		const struct pcap_pkthdr *h, const uint8_t *data,
		struct gen_err *e);

/** rxr_capture_open() of @p f (NULL: fopen failed, errno says why),
 * errors naming @p name. */
int gen_capture_open(struct rxr_capture *c, FILE *f, const char *name,
		struct gen_err *e);

/**
 * Every record of @p in to @p sink, with the queue RSS gives it (non-IP
 * and unparsable: RETA entry 0); flows into @p ft unless NULL. A damaged
 * capture is an error unless @p allow_truncated. @return 0, or -1 (@p e).
 */
int gen_split(struct rxr_capture *in, const char *name,
		const struct rxr_flow_rss *rss, bool allow_truncated,
		gen_sink_fn sink, void *ctx, struct gen_split_stats *st,
		struct rxr_capture_flows *ft, struct gen_err *e);

/** rxrefill-gen's options (gen_opts.c). */
struct gen_opts {
	const char *prefix;
	const char *manifest;
	bool all;
	bool quiet;
	uint32_t queues;
	uint32_t reta_size;
	const char *key_name;
	uint8_t key[RXR_FLOW_RSS_KEY_LEN];
	enum rxr_flow_rss_fields fields;
	struct gen_traffic_conf t;
	const char *size_text;
	const char *split;
	bool allow_truncated;
	uint32_t max_streams;
	char **paths;		/* the files written: queues, --all, manifest */
	uint32_t nb_paths;
};

/** The command line into o, paths checked (the split input a regular
 * file, no output a device, FIFO, directory or the input); bad usage is
 * said and exits with status 2. */
void gen_opts_parse(struct gen_opts *o, int argc, char **argv);

#endif /* RXR_GEN_H */
