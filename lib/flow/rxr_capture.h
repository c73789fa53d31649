/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_CAPTURE_H
#define RXR_CAPTURE_H

/**
 * @file
 * One reader for pcap (any byte order, micro- or nanosecond, modified) and
 * pcapng. Every record comes out as an Ethernet frame: LINUX_SLL(2), RAW,
 * IPV4, IPV6, NULL and LOOP records are given an Ethernet header. Records
 * are skipped as enum rxr_capture_skip says (a pcap file of a link type
 * that cannot be converted is refused at open); a record that cannot be
 * read makes rxr_capture_next() fail naming it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rxr_flow.h"

/** Most bytes one record may hold (libpcap's and Wireshark's limit). */
#define RXR_CAPTURE_CAPLEN_MAX 262144u

/** Why a record was skipped. */
enum rxr_capture_skip {
	RXR_CAPTURE_SKIP_EMPTY,		/**< caplen 0 */
	RXR_CAPTURE_SKIP_INVALID,	/**< caplen > len, < link header, > max */
	RXR_CAPTURE_SKIP_LINKTYPE,	/**< an interface of another link type */
	RXR_CAPTURE_SKIP_MAX,
};

/** An interface of the capture (a pcap file has one). */
struct rxr_capture_iface {
	uint32_t linktype;	/**< LINKTYPE_* value */
	uint32_t snaplen;	/**< 0: none given */
	int8_t hlen;		/**< link header replaced by Ethernet's; -1: skipped */
	uint8_t tsresol;	/**< pcapng if_tsresol */
	uint64_t records;
};

/** One record, as an Ethernet frame. */
struct rxr_capture_rec {
	const uint8_t *data;	/**< valid until the next call */
	uint32_t caplen;
	uint32_t len;		/**< the frame's length, >= caplen */
	uint64_t ts_sec;
	uint32_t ts_nsec;
};

/** An open capture and what was read of it so far. */
struct rxr_capture {
	bool pcapng;
	bool nano;		/**< nanosecond pcap, or pcapng */
	uint64_t records;	/**< records read, skipped ones included */
	uint64_t skipped[RXR_CAPTURE_SKIP_MAX];
	uint64_t snapped;	/**< records returned with caplen < len */
	uint64_t converted;	/**< records given an Ethernet header */
	uint32_t largest;	/**< largest caplen returned */
	uint32_t snaplen;	/**< largest snap length of its interfaces */
	bool trimmed;		/**< a record longer than its snap length */
	struct rxr_capture_iface *ifaces;	/**< of every section */
	unsigned int nb_ifaces;
	char err[192];
	/* Private. */
	FILE *f;
	bool swap;
	unsigned int rec_hdr;	/* pcap record header: 16, or 24 (modified) */
	unsigned int section;	/* ifaces[] index of the section's first */
	uint8_t *buf;
	size_t buf_size;
};

/** Read the header of the capture @p f, now owned; 0, or -1 with c->err. */
int rxr_capture_open(struct rxr_capture *c, FILE *f);

/** The next record to replay; 1, 0 at the end, -1 with c->err set. */
int rxr_capture_next(struct rxr_capture *c, struct rxr_capture_rec *r);

void rxr_capture_close(struct rxr_capture *c);

/** The distinct link types of its interfaces so far: "EN10MB,NULL". */
void rxr_capture_linktypes(const struct rxr_capture *c, char *buf,
		size_t len);

/** What was skipped and converted so far, as a message ("" for none). */
void rxr_capture_describe(const struct rxr_capture *c, char *buf,
		size_t len);

/** One flow of a capture: its key, where RSS sends it, its counts. */
struct rxr_capture_flow {
	struct rxr_flow_key key;
	uint32_t hash;
	uint16_t queue;
	uint64_t packets, bytes;
};

/** The flows of a capture, in first-seen order. */
struct rxr_capture_flows {
	struct rxr_capture_flow *flows;
	uint32_t nb_flows;
	uint32_t cap_flows;
	uint32_t *slots;	/**< index + 1, 0 empty */
	uint32_t nb_slots;
	uint32_t max_flows;	/**< beyond: counted in untracked */
	uint64_t untracked_packets, untracked_bytes;
};

/** An empty table that lists up to @p max_flows; 0, or -1 (no memory). */
int rxr_capture_flows_init(struct rxr_capture_flows *t, uint32_t max_flows);
void rxr_capture_flows_free(struct rxr_capture_flows *t);
/** Account a frame of @p len bytes; 0, or -1 when out of memory. */
int rxr_capture_flows_add(struct rxr_capture_flows *t,
		const struct rxr_flow_key *k, uint32_t hash, uint16_t queue,
		uint32_t len);

#endif /* RXR_CAPTURE_H */
