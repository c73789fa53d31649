/* SPDX-License-Identifier: BSD-3-Clause */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_ether.h>
#include <rte_thash.h>

#include "rxr_flow.h"

#define IPV4_HDR_MIN	20
#define IPV6_HDR_LEN	40
#define TCP_HDR_MIN	20
#define UDP_HDR_LEN	8
#define RXR_FLOW_MAX_IPV6_EXT 8	/* skipped before giving up */

/* IPv6 next headers rxr_flow_parse() steps over that netinet/in.h lacks. */
#define NH_HIP		139
#define NH_SHIM6	140

const uint8_t rxr_flow_rss_key_mlx5[RXR_FLOW_RSS_KEY_LEN] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7,
	0xfc, 0xa2, 0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94,
	0x6b, 0x9e, 0x38, 0xd9, 0x2c, 0x9c, 0x03, 0xd1,
	0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56, 0x3d, 0x59,
	0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

const uint8_t rxr_flow_rss_key_ms[RXR_FLOW_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* Byte reads: frames have no alignment guarantee. */
static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

/*
 * TCP/UDP header at l4 of a datagram whose IP header claims l4_claim bytes
 * after it (UINT32_MAX: unknown, an IPv6 jumbogram). Fragments and other
 * protocols have no ports to read: the NIC hashes addresses only.
 */
static int
parse_l4(const uint8_t *p, size_t len, size_t l4, uint32_t l4_claim,
		struct rxr_flow_info *info)
{
	struct rxr_flow_key *key = &info->key;
	size_t hlen;

	if (key->flags & RXR_FLOW_F_FRAG)
		return RXR_FLOW_OK;
	switch (key->proto) {
	case IPPROTO_TCP:
		if (len - l4 < TCP_HDR_MIN)
			return RXR_FLOW_E_TRUNCATED;
		hlen = (size_t)(p[l4 + 12] >> 4) * 4;
		if (hlen < TCP_HDR_MIN || l4_claim < hlen)
			return RXR_FLOW_E_MALFORMED;
		break;
	case IPPROTO_UDP:
		if (len - l4 < UDP_HDR_LEN)
			return RXR_FLOW_E_TRUNCATED;
		if (l4_claim < UDP_HDR_LEN)
			return RXR_FLOW_E_MALFORMED;
		break;
	default:
		return RXR_FLOW_OK;
	}
	key->sport = rd16(p + l4);
	key->dport = rd16(p + l4 + 2);
	key->flags |= RXR_FLOW_F_PORTS;
	return RXR_FLOW_OK;
}

static int
parse_ipv4(const uint8_t *p, size_t len, size_t ofs, struct rxr_flow_info *info)
{
	struct rxr_flow_key *key = &info->key;
	const uint8_t *ip = p + ofs;
	uint32_t ihl, tot;

	if (len - ofs < IPV4_HDR_MIN)
		return RXR_FLOW_E_TRUNCATED;
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	if ((ip[0] >> 4) != 4 || ihl < IPV4_HDR_MIN)
		return RXR_FLOW_E_MALFORMED;
	if (len - ofs < ihl)
		return RXR_FLOW_E_TRUNCATED;
	tot = rd16(ip + 2);
	if (tot < ihl)
		return RXR_FLOW_E_MALFORMED;

	info->nb_ext = ihl > IPV4_HDR_MIN;
	key->family = RXR_FLOW_IPV4;
	key->proto = ip[9];
	memcpy(key->src, ip + 12, 4);
	memcpy(key->dst, ip + 16, 4);

	/* MF set or an offset. */
	if (rd16(ip + 6) & 0x3fff)
		key->flags |= RXR_FLOW_F_FRAG;
	return parse_l4(p, len, ofs + ihl, tot - ihl, info);
}

/* The IPv6 next headers rxr_flow_parse() steps over. */
static const struct {
	uint8_t add, shift;
} ext[UINT8_MAX + 1] = {
	[IPPROTO_HOPOPTS] = { 1, 3 }, [IPPROTO_ROUTING] = { 1, 3 },
	[IPPROTO_DSTOPTS] = { 1, 3 }, [IPPROTO_MH] = { 1, 3 },
	[NH_HIP] = { 1, 3 }, [NH_SHIM6] = { 1, 3 },
	[IPPROTO_AH] = { 2, 2 }, [IPPROTO_FRAGMENT] = { 0, 3 },
};

static int
parse_ipv6(const uint8_t *p, size_t len, size_t ofs, struct rxr_flow_info *info)
{
	struct rxr_flow_key *key = &info->key;
	const uint8_t *ip = p + ofs;
	uint32_t plen, claim;
	size_t pos, hlen;
	uint8_t nh;

	if (len - ofs < IPV6_HDR_LEN)
		return RXR_FLOW_E_TRUNCATED;
	if ((ip[0] >> 4) != 6)
		return RXR_FLOW_E_MALFORMED;

	plen = rd16(ip + 4);
	key->family = RXR_FLOW_IPV6;
	memcpy(key->src, ip + 8, 16);
	memcpy(key->dst, ip + 24, 16);
	nh = ip[6];
	pos = ofs + IPV6_HDR_LEN;

	/* Each skipped header: its length is (p[1] + add) << shift bytes. */
	for (bool last = false; !last && ext[nh].shift != 0;) {
		if (nh != IPPROTO_FRAGMENT && len - pos < 2)
			return RXR_FLOW_E_TRUNCATED;
		hlen = nh == IPPROTO_FRAGMENT ? 8 :
			((size_t)p[pos + 1] + ext[nh].add) << ext[nh].shift;
		if (info->nb_ext == RXR_FLOW_MAX_IPV6_EXT)
			return RXR_FLOW_E_MALFORMED;
		if (len - pos < hlen)
			return RXR_FLOW_E_TRUNCATED;
		/* Headers must fit in the payload, except in a jumbogram. */
		if (plen != 0 && pos + hlen - ofs - IPV6_HDR_LEN > plen)
			return RXR_FLOW_E_MALFORMED;
		if (nh == IPPROTO_FRAGMENT && (rd16(p + pos + 2) & 0xfff9)) {
			key->flags |= RXR_FLOW_F_FRAG;
			/* Past offset 0 no header follows, only data. */
			last = (rd16(p + pos + 2) & 0xfff8) != 0;
		}
		nh = p[pos];
		pos += hlen;
		info->nb_ext++;
	}

	key->proto = nh;
	claim = plen == 0 ? UINT32_MAX :
		plen - (uint32_t)(pos - ofs - IPV6_HDR_LEN);
	return parse_l4(p, len, pos, claim, info);
}

int
rxr_flow_parse(const void *frame, size_t len, struct rxr_flow_info *info)
{
	const uint8_t *p = frame;
	size_t ofs = RTE_ETHER_HDR_LEN;
	uint16_t et;
	int ret;

	memset(info, 0, sizeof(*info));
	if (p == NULL || len < RTE_ETHER_HDR_LEN)
		return RXR_FLOW_E_TRUNCATED;

	et = rd16(p + 12);
	while (et == RTE_ETHER_TYPE_VLAN || et == RTE_ETHER_TYPE_QINQ ||
			et == RTE_ETHER_TYPE_QINQ1) {
		if (info->nb_vlan == RXR_FLOW_MAX_VLAN)
			break;	/* a third tag: not something NICs hash */
		if (len - ofs < RTE_VLAN_HLEN)
			return RXR_FLOW_E_TRUNCATED;
		info->nb_vlan++;
		et = rd16(p + ofs + 2);
		ofs += RTE_VLAN_HLEN;
	}

	if (et == RTE_ETHER_TYPE_IPV4)
		ret = parse_ipv4(p, len, ofs, info);
	else if (et == RTE_ETHER_TYPE_IPV6)
		ret = parse_ipv6(p, len, ofs, info);
	else
		return RXR_FLOW_E_NOT_IP;

	if (ret != RXR_FLOW_OK)
		memset(&info->key, 0, sizeof(info->key));
	return ret;
}

/* Toeplitz over the key's addresses (and ports) as a NIC computes it. */
static uint32_t
flow_hash(const struct rxr_flow_key *key, const struct rxr_flow_rss *rss)
{
	uint32_t tuple[RTE_THASH_V6_L4_LEN];
	uint32_t n, i, naddr;

	if (key->family == RXR_FLOW_IPV4)
		naddr = 1;
	else if (key->family == RXR_FLOW_IPV6)
		naddr = 4;
	else
		return 0;

	/* Words in CPU order, most significant bit first, as Toeplitz reads. */
	for (i = 0; i < naddr; i++) {
		tuple[i] = rd32(key->src + 4 * i);
		tuple[naddr + i] = rd32(key->dst + 4 * i);
	}
	n = 2 * naddr;
	if (rss->fields == RXR_FLOW_RSS_L3L4 && (key->flags & RXR_FLOW_F_PORTS))
		tuple[n++] = (uint32_t)key->sport << 16 | key->dport;
	/* rte_softrss() reads the key as 32-bit words: rss->key is aligned. */
	return rte_softrss(tuple, n, rss->key);
}

int
rxr_flow_rss_init(struct rxr_flow_rss *rss, const uint8_t *key,
		enum rxr_flow_rss_fields fields, uint32_t reta_size,
		uint16_t nb_queues)
{
	uint32_t i;

	memset(rss, 0, sizeof(*rss));
	if (reta_size == 0 || reta_size > RXR_FLOW_RETA_SIZE_MAX ||
			(reta_size & (reta_size - 1)) != 0 ||
			nb_queues == 0 || nb_queues > RXR_FLOW_QUEUES_MAX ||
			nb_queues > reta_size ||
			(fields != RXR_FLOW_RSS_L3L4 && fields != RXR_FLOW_RSS_L3))
		return -EINVAL;
	rss->reta = malloc(reta_size * sizeof(rss->reta[0]));
	if (rss->reta == NULL)
		return -ENOMEM;
	memcpy(rss->key, key != NULL ? key : rxr_flow_rss_key_mlx5,
		RXR_FLOW_RSS_KEY_LEN);
	rss->fields = fields;
	rss->reta_size = reta_size;
	rss->nb_queues = nb_queues;
	for (i = 0; i < reta_size; i++)
		rss->reta[i] = i % nb_queues;
	return 0;
}

void
rxr_flow_rss_fini(struct rxr_flow_rss *rss)
{
	free(rss->reta);
	rss->reta = NULL;
	rss->reta_size = 0;
}

uint16_t
rxr_flow_rss_queue(const struct rxr_flow_rss *rss,
		const struct rxr_flow_key *key, uint32_t *hash_out)
{
	uint32_t hash = key != NULL ? flow_hash(key, rss) : 0;

	if (hash_out != NULL)
		*hash_out = hash;
	/* The low bits index the RETA, as in NICs. */
	return rss->reta[hash & (rss->reta_size - 1)];
}

char *
rxr_flow_addr_str(const struct rxr_flow_key *key, bool dst, char *buf,
		size_t size)
{
	const uint8_t *a = dst ? key->dst : key->src;
	int af = key->family == RXR_FLOW_IPV4 ? AF_INET :
		key->family == RXR_FLOW_IPV6 ? AF_INET6 : AF_UNSPEC;

	if (af == AF_UNSPEC || inet_ntop(af, a, buf, size) == NULL)
		snprintf(buf, size, "?");
	return buf;
}

const char *
rxr_flow_proto_name(uint8_t proto)
{
	static const char *const names[UINT8_MAX + 1] = {
		[IPPROTO_TCP] = "tcp", [IPPROTO_UDP] = "udp",
		[IPPROTO_ICMP] = "icmp", [IPPROTO_ICMPV6] = "icmpv6",
		[IPPROTO_SCTP] = "sctp", [IPPROTO_GRE] = "gre",
		[IPPROTO_ESP] = "esp",
	};

	return names[proto];
}

static void
key_ports(struct rxr_flow_key *key, uint16_t sport, uint16_t dport,
		uint8_t proto)
{
	key->proto = proto;
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		key->sport = sport;
		key->dport = dport;
		key->flags = RXR_FLOW_F_PORTS;
	}
}

void
rxr_flow_key_v4(struct rxr_flow_key *key, uint32_t src, uint32_t dst,
		uint16_t sport, uint16_t dport, uint8_t proto)
{
	uint32_t s = htonl(src), d = htonl(dst);

	memset(key, 0, sizeof(*key));
	key->family = RXR_FLOW_IPV4;
	memcpy(key->src, &s, 4);
	memcpy(key->dst, &d, 4);
	key_ports(key, sport, dport, proto);
}

void
rxr_flow_key_v6(struct rxr_flow_key *key, const uint8_t src[16],
		const uint8_t dst[16], uint16_t sport, uint16_t dport,
		uint8_t proto)
{
	memset(key, 0, sizeof(*key));
	key->family = RXR_FLOW_IPV6;
	memcpy(key->src, src, 16);
	memcpy(key->dst, dst, 16);
	key_ports(key, sport, dport, proto);
}
