/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_FLOW_H
#define RXR_FLOW_H

/**
 * @file
 * Flows as a NIC's RSS sees them: the flow key of an Ethernet frame (VLAN
 * tags, IPv4 options and IPv6 extension headers skipped), its Toeplitz
 * hash and the queue a RETA gives it. Nothing here needs EAL.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RXR_FLOW_IPV4 4
#define RXR_FLOW_IPV6 6

/** Key flag: sport and dport are valid (TCP or UDP, not a fragment). */
#define RXR_FLOW_F_PORTS 0x01
/** Key flag: the datagram is a fragment (ports not hashed, as NICs do). */
#define RXR_FLOW_F_FRAG 0x02

/** A flow key; every byte is defined (unused ones zero): memcmp() compares. */
struct rxr_flow_key {
	uint8_t src[16];	/**< network order; IPv4 uses [0..3] */
	uint8_t dst[16];
	uint16_t sport;		/**< host order; 0 without RXR_FLOW_F_PORTS */
	uint16_t dport;
	uint8_t proto;		/**< after IPv6 extension headers */
	uint8_t family;		/**< RXR_FLOW_IPV4 or RXR_FLOW_IPV6 */
	uint8_t flags;		/**< RXR_FLOW_F_* */
	uint8_t pad;
};

/** Most VLAN tags rxr_flow_parse() skips. */
#define RXR_FLOW_MAX_VLAN 2

/** What rxr_flow_parse() found. */
struct rxr_flow_info {
	struct rxr_flow_key key;	/**< valid when parse returned RXR_FLOW_OK */
	uint8_t nb_vlan;	/**< VLAN tags skipped */
	uint8_t nb_ext;		/**< IPv4: 1 with options; IPv6: headers skipped */
};

/** rxr_flow_parse() results. */
enum rxr_flow_status {
	RXR_FLOW_OK = 0,		/**< an IP datagram; key filled */
	RXR_FLOW_E_NOT_IP = -1,		/**< no IPv4/IPv6 after the L2 header (ARP, LLDP, 3 tags...) */
	RXR_FLOW_E_TRUNCATED = -2,	/**< the frame ends inside a header the key needs */
	RXR_FLOW_E_MALFORMED = -3,	/**< a header contradicts itself (IP version, IHL, lengths) */
};

/**
 * Parse the first @p len bytes of an Ethernet frame into a flow key (a
 * frame cut after its headers parses); info->key is zeroed unless
 * RXR_FLOW_OK.
 * @return RXR_FLOW_OK or a negative enum rxr_flow_status.
 */
int rxr_flow_parse(const void *frame, size_t len, struct rxr_flow_info *info);

/** Bytes in an RSS key (Toeplitz over IPv6 addresses and ports needs 40). */
#define RXR_FLOW_RSS_KEY_LEN 40

/** The RSS key mlx5 programs by default (DPDK's rss_hash_default_key). */
extern const uint8_t rxr_flow_rss_key_mlx5[RXR_FLOW_RSS_KEY_LEN];

/** The key of Microsoft's RSS verification suite, also Intel's default. */
extern const uint8_t rxr_flow_rss_key_ms[RXR_FLOW_RSS_KEY_LEN];

/** Which fields feed the hash. */
enum rxr_flow_rss_fields {
	RXR_FLOW_RSS_L3L4 = 0,	/**< addresses, ports of non-fragments */
	RXR_FLOW_RSS_L3 = 1,	/**< addresses only */
};

/** Default RETA size: mlx5's, and the largest ethdev names (512). */
#define RXR_FLOW_RETA_SIZE_DEFAULT 512
/** Largest RETA rxr_flow_rss_init() accepts. */
#define RXR_FLOW_RETA_SIZE_MAX 65536u
/** Most queues rxr_flow_rss_init() accepts (RTE_MAX_QUEUES_PER_PORT). */
#define RXR_FLOW_QUEUES_MAX 1024

/** An RSS configuration: key, hashed fields and indirection table. */
struct rxr_flow_rss {
	uint8_t key[RXR_FLOW_RSS_KEY_LEN] __attribute__((aligned(4)));
	enum rxr_flow_rss_fields fields;
	uint32_t reta_size;	/**< a power of two */
	uint16_t nb_queues;	/**< queues the table was filled over */
	uint16_t *reta;		/**< hash & (reta_size - 1) -> queue */
};

/**
 * Set up an RSS configuration (@p key NULL: mlx5's), its RETA round robin
 * as DPDK ports do by default; @p reta_size a power of two >= nb_queues.
 * @return 0, -EINVAL on a bad size, -ENOMEM.
 */
int rxr_flow_rss_init(struct rxr_flow_rss *rss, const uint8_t *key,
		enum rxr_flow_rss_fields fields, uint32_t reta_size,
		uint16_t nb_queues);

/** Release what rxr_flow_rss_init() allocated. */
void rxr_flow_rss_fini(struct rxr_flow_rss *rss);

/** The queue a frame of @p key (NULL: unparsed) goes to; its Toeplitz hash
 * as a NIC computes it too (0 for no known family). */
uint16_t rxr_flow_rss_queue(const struct rxr_flow_rss *rss,
		const struct rxr_flow_key *key, uint32_t *hash_out);

/** Buffer size for rxr_flow_addr_str(): an IPv6 address and its NUL. */
#define RXR_FLOW_ADDR_STRLEN 46

/** The source or (@p dst) destination address as text ("?": no family). */
char *rxr_flow_addr_str(const struct rxr_flow_key *key, bool dst, char *buf,
		size_t size);

/** "tcp", "udp", "icmp", "icmpv6", "sctp", ... or NULL for others. */
const char *rxr_flow_proto_name(uint8_t proto);

/** An IPv4 key from host-order addresses and ports (kept for TCP, UDP). */
void rxr_flow_key_v4(struct rxr_flow_key *key, uint32_t src, uint32_t dst,
		uint16_t sport, uint16_t dport, uint8_t proto);

/** An IPv6 key from network-order addresses; as rxr_flow_key_v4(). */
void rxr_flow_key_v6(struct rxr_flow_key *key, const uint8_t src[16],
		const uint8_t dst[16], uint16_t sport, uint16_t dport,
		uint8_t proto);

#ifdef __cplusplus
}
#endif

#endif /* RXR_FLOW_H */
