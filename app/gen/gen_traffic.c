/* SPDX-License-Identifier: BSD-3-Clause */

/* Generated traffic: frame sizes, stream addresses and ports, frames. */

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "gen.h"

#define IMIX_CLASSIC	"imix:64x7,594x4,1518x1"
#define PORT_FIRST	1024u
#define PORT_COUNT	(65536u - PORT_FIRST)

/* Header lengths of the frames written: no IP options, no TCP options. */
#define ETH_ADDRS_LEN	(2 * RTE_ETHER_ADDR_LEN)
#define IPV4_HLEN	((uint32_t)sizeof(struct rte_ipv4_hdr))
#define IPV6_HLEN	((uint32_t)sizeof(struct rte_ipv6_hdr))
#define TCP_HLEN	((uint32_t)sizeof(struct rte_tcp_hdr))
#define UDP_HLEN	((uint32_t)sizeof(struct rte_udp_hdr))
/* IPv4 TTL and IPv6 hop limit, as hosts send. */
#define GEN_TTL		64
/* Streams per source address: half the ports, so balancing has choice. */
#define STREAMS_PER_ADDR (PORT_COUNT / 2)

void
gen_err_set(struct gen_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

/* A decimal number with nothing else around it. */
static int
parse_u32(const char *s, char **end, uint32_t *out)
{
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno != 0 || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* What starts a weighted list of sizes. */
#define IMIX_PREFIX "imix:"
#define IMIX_PREFIX_LEN (sizeof(IMIX_PREFIX) - 1)

/* "SIZE[xWEIGHT],..." (after IMIX_PREFIX, or a plain size) of --size
 * text into s. */
static int
imix_list_parse(struct gen_sizes *s, const char *text, const char *p,
		struct gen_err *e)
{
	uint32_t size, weight;
	char *end;

	for (;;) {
		const char *tok = p;

		if (parse_u32(p, &end, &size) != 0) {
			gen_err_set(e, "--size '%s': expected SIZE[xWEIGHT] at '%s'",
				text, tok);
			return -1;
		}
		weight = 1;
		if (*end == 'x' && parse_u32(end + 1, &end, &weight) != 0) {
			gen_err_set(e, "--size '%s': expected a weight after 'x' in '%s'",
				text, tok);
			return -1;
		}
		if (*end != ',' && *end != '\0') {
			gen_err_set(e, "--size '%s': unexpected '%c' in '%s'",
				text, *end, tok);
			return -1;
		}
		if (size < GEN_SIZE_MIN || size > GEN_SIZE_MAX) {
			gen_err_set(e, "--size '%s': frame size %u is outside %u..%u (bytes without FCS)",
				text, size, GEN_SIZE_MIN, GEN_SIZE_MAX);
			return -1;
		}
		if (weight < 1 || weight > GEN_IMIX_MAX_WEIGHT) {
			gen_err_set(e, "--size '%s': weight in '%s' is outside 1..%u",
				text, tok, GEN_IMIX_MAX_WEIGHT);
			return -1;
		}
		if (s->nb_entries == GEN_IMIX_MAX_ENTRIES) {
			gen_err_set(e, "--size '%s': more than %u sizes", text,
				GEN_IMIX_MAX_ENTRIES);
			return -1;
		}
		s->size[s->nb_entries] = size;
		s->weight[s->nb_entries++] = weight;
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
}

int
gen_sizes_parse(struct gen_sizes *s, const char *text, struct gen_err *e)
{
	int64_t cur[GEN_IMIX_MAX_ENTRIES] = { 0 };
	const char *list = strcmp(text, "imix") == 0 ? IMIX_CLASSIC : text;
	bool imix = strncmp(list, IMIX_PREFIX, IMIX_PREFIX_LEN) == 0;
	uint32_t size, i, k, total = 0;
	size_t used = 0;
	char *end;

	memset(s, 0, sizeof(*s));
	if (!imix && (parse_u32(text, &end, &size) != 0 || *end != '\0')) {
		gen_err_set(e, "--size '%s': not a frame size, 'imix' or 'imix:SIZExWEIGHT,...'",
			text);
		return -1;
	}
	if (imix_list_parse(s, text, imix ? list + IMIX_PREFIX_LEN : text,
			e) != 0)
		return -1;
	/* The spec: "imix:SIZExWEIGHT,...", else "SIZE". */
	if (imix)
		used = (size_t)snprintf(s->spec, sizeof(s->spec), IMIX_PREFIX);
	for (i = 0; i < s->nb_entries && used < sizeof(s->spec); i++)
		used += (size_t)snprintf(s->spec + used, sizeof(s->spec) - used,
			imix ? "%s%ux%u" : "%s%u", i ? "," : "", s->size[i],
			s->weight[i]);
	/* The cycle: each size as often as its weight, by smooth weighted
	 * round robin, so that sizes mix instead of coming in runs. */
	for (i = 0; i < s->nb_entries; i++)
		total += s->weight[i];
	s->cycle = malloc(total * sizeof(s->cycle[0]));
	if (s->cycle == NULL) {
		gen_err_set(e, "out of memory");
		return -1;
	}
	for (k = 0; k < total; k++) {
		uint32_t best = 0;

		for (i = 0; i < s->nb_entries; i++) {
			cur[i] += s->weight[i];
			if (cur[i] > cur[best])
				best = i;
		}
		cur[best] -= total;
		s->cycle[k] = s->size[best];
	}
	s->n = total;
	return 0;
}

void
gen_sizes_free(struct gen_sizes *s)
{
	free(s->cycle);
	s->cycle = NULL;
	s->n = 0;
}

uint32_t
gen_hdr_len(const struct gen_traffic_conf *c)
{
	return RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN * c->nb_vlan +
		(c->ipver == 4 ? IPV4_HLEN : IPV6_HLEN) +
		(c->proto == IPPROTO_TCP ? TCP_HLEN : UDP_HLEN);
}

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t
gcd(uint32_t a, uint32_t b)
{
	while (b != 0) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = (uint8_t)v;
}

static inline void
wr32(uint8_t *p, uint32_t v)
{
	wr16(p, v >> 16);
	wr16(p + 2, (uint16_t)v);
}

/* The key of a stream from address group g with source port sport. */
static void
stream_key(struct rxr_flow_key *k, const struct gen_traffic_conf *c,
		uint64_t ra, uint64_t rb, uint32_t g, uint16_t sport)
{
	if (c->ipver == 4) {
		/* Clients in 10/8, the server in 192.168/16. */
		uint32_t src = 0x0a000000u |
			((uint32_t)(((ra & 0xffff) << 8) + 1 + g) & 0xffffff);
		uint32_t dst = 0xc0a80000u | (uint32_t)((rb & 0xff) << 8) |
			(uint32_t)(1 + (rb >> 8) % 254);

		rxr_flow_key_v4(k, src, dst, sport, GEN_DPORT, c->proto);
	} else {
		/* fd00:AAAA:BBBB:1::g+1 -> fd00:AAAA:BBBB:2::1 (unique local). */
		uint8_t src[16] = { 0xfd, 0x00 }, dst[16] = { 0xfd, 0x00 };

		wr32(src + 2, (uint32_t)ra);
		wr32(dst + 2, (uint32_t)ra);
		src[7] = 1;
		dst[7] = 2;
		wr32(src + 12, g + 1);
		dst[15] = 1;
		rxr_flow_key_v6(k, src, dst, sport, GEN_DPORT, c->proto);
	}
}

uint32_t
gen_streams_setup(struct gen_stream *st, const struct gen_traffic_conf *c,
		const struct rxr_flow_rss *rss)
{
	uint64_t x = c->seed, ra = splitmix64(&x), rb = splitmix64(&x);
	uint32_t start = splitmix64(&x) % PORT_COUNT;
	uint32_t stride = (uint32_t)(splitmix64(&x) % PORT_COUNT) | 1;
	uint32_t nq = rss->nb_queues, i, j, unbalanced = 0;
	uint32_t *cursor = calloc(nq, sizeof(*cursor));
	uint16_t *qof = malloc(PORT_COUNT * sizeof(*qof));
	uint8_t *used = malloc(PORT_COUNT);
	uint32_t free_cursor = 0;
	struct rxr_flow_key k;

	if (cursor == NULL || qof == NULL || used == NULL)
		abort();	/* a few hundred KiB at start-up */
	/* A stride coprime to the port count walks every port once, spread. */
	while (gcd(stride, PORT_COUNT) != 1)
		stride += 2;

	for (i = 0; i < c->nb_streams; i++) {
		struct gen_stream *s = &st[i];
		uint32_t g = i / STREAMS_PER_ADDR, target = i % nq;

		if (i % STREAMS_PER_ADDR == 0) {
			/* A new source address: every port is free again. */
			memset(used, 0, PORT_COUNT);
			memset(cursor, 0, nq * sizeof(*cursor));
			free_cursor = 0;
			for (j = 0; c->balance && j < PORT_COUNT; j++) {
				stream_key(&k, c, ra, rb, g, PORT_FIRST +
					(start + (uint64_t)j * stride) % PORT_COUNT);
				qof[j] = rxr_flow_rss_queue(rss, &k, NULL);
			}
		}
		j = PORT_COUNT;
		if (c->balance) {
			for (j = cursor[target]; j < PORT_COUNT; j++)
				if (!used[j] && qof[j] == target)
					break;
			if (j < PORT_COUNT)
				cursor[target] = j + 1;
			else
				unbalanced++;
		}
		if (j == PORT_COUNT) {
			while (used[free_cursor])
				free_cursor++;
			j = free_cursor;
		}
		used[j] = 1;

		memset(s, 0, sizeof(*s));
		stream_key(&s->f.key, c, ra, rb, g, PORT_FIRST +
			(start + (uint64_t)j * stride) % PORT_COUNT);
		s->f.queue = rxr_flow_rss_queue(rss, &s->f.key, &s->f.hash);
		s->seq = (uint32_t)splitmix64(&x);
		s->ip_id = (uint16_t)splitmix64(&x);
		s->flow_label = (uint32_t)splitmix64(&x) & 0xfffff;
	}
	free(cursor);
	free(qof);
	free(used);
	return unbalanced;
}

/* The IPv4 or IPv6 header of a len-byte frame at l3; returns where L4 starts. */
static uint32_t
frame_ip(uint8_t *buf, uint32_t l3, uint32_t len, struct gen_stream *s,
		const struct gen_traffic_conf *c)
{
	uint8_t *ip = buf + l3;
	uint16_t ck;

	if (c->ipver != 4) {
		wr32(ip, 0x60000000u | s->flow_label);
		wr16(ip + 4, (uint16_t)(len - l3 - IPV6_HLEN));
		ip[6] = c->proto;
		ip[7] = GEN_TTL;
		memcpy(ip + 8, s->f.key.src, 16);
		memcpy(ip + 24, s->f.key.dst, 16);
		return l3 + IPV6_HLEN;
	}
	memset(ip, 0, IPV4_HLEN);
	ip[0] = 0x45;
	wr16(ip + 2, (uint16_t)(len - l3));
	wr16(ip + 4, s->ip_id++);
	wr16(ip + 6, 0x4000);		/* DF, as TCP stacks send */
	ip[8] = GEN_TTL;
	ip[9] = c->proto;
	memcpy(ip + 12, s->f.key.src, 4);
	memcpy(ip + 16, s->f.key.dst, 4);
	ck = rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip);
	memcpy(ip + 10, &ck, 2);	/* already in wire order */
	return l3 + IPV4_HLEN;
}

void
gen_build_frame(uint8_t *buf, uint32_t len, struct gen_stream *s,
		uint32_t sid, uint64_t idx, const struct gen_traffic_conf *c)
{
	static const uint8_t macs[ETH_ADDRS_LEN] = {
		0x02, 0, 0, 0, 0, 0x02,		/* the receiving port */
		0x02, 0, 0, 0, 0, 0x01,		/* the sender */
	};
	uint32_t hlen = c->proto == IPPROTO_TCP ? TCP_HLEN : UDP_HLEN;
	uint8_t tag[GEN_TAG_LEN] = { 'R', 'X', 'R', 'F' };
	uint32_t l3 = ETH_ADDRS_LEN, l4, plen, j;
	uint16_t ck;

	/* MAC addresses, VLAN tags (802.1ad outer, 802.1Q inner), EtherType. */
	memcpy(buf, macs, sizeof(macs));
	for (j = 0; j < c->nb_vlan; j++, l3 += RTE_VLAN_HLEN) {
		wr16(buf + l3, j + 1 < c->nb_vlan ? RTE_ETHER_TYPE_QINQ :
			RTE_ETHER_TYPE_VLAN);
		wr16(buf + l3 + 2, c->vlan[j]);
	}
	wr16(buf + l3, c->ipver == 4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	l3 += 2;
	l4 = frame_ip(buf, l3, len, s, c);
	plen = len - l4 - hlen;
	/* TCP or UDP, checksum 0 until the payload is in. */
	memset(buf + l4, 0, hlen);
	wr16(buf + l4, s->f.key.sport);
	wr16(buf + l4 + 2, s->f.key.dport);
	if (c->proto == IPPROTO_TCP) {
		wr32(buf + l4 + 4, s->seq);
		wr32(buf + l4 + 8, 1);		/* the receiver's ISN + 1 */
		buf[l4 + 12] = (TCP_HLEN / 4) << 4;	/* data offset, words */
		buf[l4 + 13] = 0x18;		/* PSH, ACK */
		wr16(buf + l4 + 14, 0xffff);
		s->seq += plen;
	} else {
		wr16(buf + l4 + 4, (uint16_t)(len - l4));
	}

	/* Payload: the tag (cut if there is no room), then byte j = j & 0xff. */
	wr32(tag + 4, sid);
	wr32(tag + 8, (uint32_t)idx);
	for (j = 0; j < plen; j++)
		buf[l4 + hlen + j] = j < GEN_TAG_LEN ? tag[j] : (uint8_t)j;

	if (c->ipver == 4)
		ck = rte_ipv4_udptcp_cksum((const struct rte_ipv4_hdr *)(buf + l3),
			buf + l4);
	else
		ck = rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr *)(buf + l3),
			buf + l4);
	memcpy(buf + l4 + (c->proto == IPPROTO_TCP ?
		offsetof(struct rte_tcp_hdr, cksum) :
		offsetof(struct rte_udp_hdr, dgram_cksum)), &ck, sizeof(ck));
}
