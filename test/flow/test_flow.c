/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * lib/flow unit tests: every header combination the parser knows, every
 * truncation point of each (the frame sits right before an inaccessible
 * page, so a read past the length faults), the Toeplitz hash against
 * Microsoft's RSS verification suite and against a bit-by-bit reference,
 * the RETA, and the text helpers.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "rxr_flow.h"
#include "rxr_test.h"

#define DIM(a) (sizeof(a) / sizeof((a)[0]))

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | p[2] << 8 | p[3];
}

/* ---- a frame builder independent of the parser ---- */

struct spec {
	unsigned int nb_vlan;
	uint16_t tpid[3];	/* outer first */
	int ipver;		/* 4, 6, or 0 for ARP */
	unsigned int v4_opt;	/* bytes of IPv4 options, multiple of 4 */
	unsigned int nb_ext;	/* IPv6 extension headers */
	uint8_t ext[10];	/* their types */
	uint8_t proto;
	unsigned int tcp_opt;	/* bytes of TCP options, multiple of 4 */
	unsigned int payload;
	uint16_t frag;		/* IPv4 flags+offset field, or IPv6 frag field */
};

struct built {
	uint8_t buf[2048];
	size_t len;		/* whole frame */
	size_t hdr_len;		/* end of the last header the key needs */
};

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static const uint8_t v6_src[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t v6_dst[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };

static void
build(struct built *b, const struct spec *s)
{
	uint8_t *p = b->buf;
	size_t o = 12, l4len, ext_start;
	unsigned int i;
	uint8_t nh;
	bool later_frag, any_frag;

	if (s->ipver == 4) {
		later_frag = (s->frag & 0x1fff) != 0;
		any_frag = (s->frag & 0x3fff) != 0;
	} else {
		later_frag = false;
		any_frag = memchr(s->ext, 44, s->nb_ext) != NULL &&
			(s->frag & 0xfff9) != 0;
	}
	memset(b, 0, sizeof(*b));
	memset(p, 0x02, 12);
	for (i = 0; i < s->nb_vlan; i++) {
		wr16(p + o, s->tpid[i]);
		wr16(p + o + 2, 100 + i);
		o += 4;
	}
	if (s->ipver == 0) {
		wr16(p + o, 0x0806);
		o += 2;
		memset(p + o, 0, 28);
		b->len = o + 28;
		b->hdr_len = o;
		return;
	}
	wr16(p + o, s->ipver == 4 ? 0x0800 : 0x86dd);
	o += 2;

	l4len = s->proto == IPPROTO_TCP ? 20 + s->tcp_opt :
		s->proto == IPPROTO_UDP ? 8 : 0;
	if (s->ipver == 4) {
		size_t ihl = 20 + s->v4_opt;

		p[o] = 0x40 | (ihl / 4);
		wr16(p + o + 2, ihl + (later_frag ? 0 : l4len) + s->payload);
		wr16(p + o + 6, s->frag);
		p[o + 8] = 64;
		p[o + 9] = s->proto;
		p[o + 12] = 10; p[o + 13] = 0; p[o + 14] = 0; p[o + 15] = 1;
		p[o + 16] = 10; p[o + 17] = 0; p[o + 18] = 0; p[o + 19] = 2;
		memset(p + o + 20, 1, s->v4_opt);	/* NOPs */
		o += ihl;
	} else {
		size_t ip = o;

		p[o] = 0x60;
		memcpy(p + o + 8, v6_src, 16);
		memcpy(p + o + 24, v6_dst, 16);
		o += 40;
		ext_start = o;
		nh = s->nb_ext > 0 ? s->ext[0] : s->proto;
		p[ip + 6] = nh;
		for (i = 0; i < s->nb_ext; i++) {
			uint8_t next = i + 1 < s->nb_ext ? s->ext[i + 1] : s->proto;
			size_t hl;

			p[o] = next;
			if (s->ext[i] == 44) {
				hl = 8;
				wr16(p + o + 2, s->frag);
				if (s->frag & 0xfff8)
					later_frag = true;
			} else if (s->ext[i] == 51) {
				hl = 16;		/* AH: (2 + 2) * 4 */
				p[o + 1] = 2;
			} else {
				hl = 16;		/* (1 + 1) * 8 */
				p[o + 1] = 1;
			}
			o += hl;
			if (later_frag)
				break;
		}
		wr16(p + ip + 4, (o - ext_start) + (later_frag ? 0 : l4len) +
			s->payload);
	}
	if (later_frag) {
		b->hdr_len = o;
		memset(p + o, 0xee, s->payload);
		b->len = o + s->payload;
		return;
	}
	/* A first fragment carries the L4 header, but nobody reads it. */
	b->hdr_len = o;
	if (s->proto == IPPROTO_TCP) {
		wr16(p + o, 1234);
		wr16(p + o + 2, 5201);
		p[o + 12] = (uint8_t)(((20 + s->tcp_opt) / 4) << 4);
		memset(p + o + 20, 1, s->tcp_opt);
	} else if (s->proto == IPPROTO_UDP) {
		wr16(p + o, 1234);
		wr16(p + o + 2, 5201);
		wr16(p + o + 4, 8 + s->payload);
	}
	o += l4len;
	/* The key needs a TCP header's first 20 bytes, not its options. */
	if (!any_frag && l4len != 0)
		b->hdr_len = o - (s->proto == IPPROTO_TCP ? s->tcp_opt : 0);
	memset(p + o, 0xab, s->payload);
	b->len = o + s->payload;
}

/* ---- guarded buffers: the byte after the frame is unmapped ---- */

static uint8_t *guard_base;
static size_t guard_size;

static const uint8_t *
guarded(const uint8_t *data, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	size_t need = (len + pg - 1) / pg * pg + pg;

	if (guard_size < need) {
		if (guard_base != NULL)
			munmap(guard_base, guard_size);
		guard_base = mmap(NULL, need, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (guard_base == MAP_FAILED)
			abort();
		guard_size = need;
		mprotect(guard_base + need - pg, pg, PROT_NONE);
	}
	memcpy(guard_base + guard_size - pg - len, data, len);
	return guard_base + guard_size - pg - len;
}

/* ---- parse every combination, and every truncation of it ---- */

static int
check_one(const struct spec *s, const char *what)
{
	struct built b;
	struct rxr_flow_info info;
	size_t cut;
	int ret;
	bool later = s->ipver == 4 ? (s->frag & 0x1fff) != 0 : false;
	bool is_frag;

	build(&b, s);
	ret = rxr_flow_parse(guarded(b.buf, b.len), b.len, &info);
	if (s->ipver == 0) {
		RXR_TEST_ASSERT_EQ(ret, RXR_FLOW_E_NOT_IP, what);
		RXR_TEST_ASSERT_EQ(info.nb_vlan, s->nb_vlan, what);
		return 0;
	}
	RXR_TEST_ASSERT(ret == RXR_FLOW_OK, "%s: parse returned %d", what, ret);
	RXR_TEST_ASSERT_EQ(info.nb_vlan, s->nb_vlan, what);
	RXR_TEST_ASSERT_EQ(info.key.family, s->ipver, what);
	if (s->ipver == 6) {
		RXR_TEST_ASSERT(memcmp(info.key.src, v6_src, 16) == 0, "%s: src", what);
		RXR_TEST_ASSERT(memcmp(info.key.dst, v6_dst, 16) == 0, "%s: dst", what);
		for (unsigned int i = 0; i < s->nb_ext; i++)
			if (s->ext[i] == 44 && (s->frag & 0xfff8))
				later = true;
	} else {
		RXR_TEST_ASSERT(info.key.src[3] == 1 && info.key.dst[3] == 2,
			"%s: v4 addresses", what);
	}
	is_frag = s->ipver == 4 ? (s->frag & 0x3fff) != 0 :
		(memchr(s->ext, 44, s->nb_ext) != NULL && (s->frag & 0xfff9));
	RXR_TEST_ASSERT_EQ(!!(info.key.flags & RXR_FLOW_F_FRAG), is_frag, what);
	if (!later)
		RXR_TEST_ASSERT_EQ(info.key.proto, s->proto, what);
	if (!is_frag && (s->proto == IPPROTO_TCP || s->proto == IPPROTO_UDP)) {
		RXR_TEST_ASSERT_EQ(info.key.flags & RXR_FLOW_F_PORTS,
			RXR_FLOW_F_PORTS, what);
		RXR_TEST_ASSERT_EQ(info.key.sport, 1234, what);
		RXR_TEST_ASSERT_EQ(info.key.dport, 5201, what);
	} else {
		RXR_TEST_ASSERT_EQ(info.key.flags & RXR_FLOW_F_PORTS, 0, what);
		RXR_TEST_ASSERT_EQ(info.key.sport | info.key.dport, 0, what);
	}

	/* Every cut before the end of the headers is an error, never a read. */
	for (cut = 0; cut < b.len; cut++) {
		struct rxr_flow_info t;

		ret = rxr_flow_parse(guarded(b.buf, cut), cut, &t);
		if (cut < b.hdr_len) {
			RXR_TEST_ASSERT(ret == RXR_FLOW_E_TRUNCATED,
				"%s: cut at %zu of %zu returned %d", what, cut,
				b.hdr_len, ret);
			RXR_TEST_ASSERT(t.key.family == 0, "%s: key left set", what);
		} else {
			RXR_TEST_ASSERT(ret == RXR_FLOW_OK &&
				memcmp(&t.key, &info.key, sizeof(t.key)) == 0,
				"%s: cut at %zu (headers end at %zu) changed the key",
				what, cut, b.hdr_len);
		}
	}
	return 0;
}

static int
test_parse_combinations(void)
{
	static const uint16_t tpids[][2] = {
		{ 0, 0 }, { 0x8100, 0 }, { 0x88a8, 0x8100 }, { 0x9100, 0x8100 },
		{ 0x8100, 0x8100 },
	};
	static const uint8_t protos[] = { IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, 47 };
	static const struct {
		int ipver;
		unsigned int v4_opt;
		unsigned int nb_ext;
		uint8_t ext[4];
		uint16_t frag;
		const char *name;
	} l3s[] = {
		{ 4, 0, 0, {0}, 0x4000, "ipv4 DF" },
		{ 4, 4, 0, {0}, 0, "ipv4 +4B options" },
		{ 4, 40, 0, {0}, 0, "ipv4 +40B options" },
		{ 4, 0, 0, {0}, 0x2000, "ipv4 first fragment" },
		{ 4, 8, 0, {0}, 0x00b9, "ipv4 later fragment" },
		{ 6, 0, 0, {0}, 0, "ipv6" },
		{ 6, 0, 1, {0}, 0, "ipv6 hop-by-hop" },
		{ 6, 0, 3, {0, 43, 60}, 0, "ipv6 hbh+routing+dstopts" },
		{ 6, 0, 1, {51}, 0, "ipv6 AH" },
		{ 6, 0, 1, {135}, 0, "ipv6 mobility" },
		{ 6, 0, 2, {139, 140}, 0, "ipv6 HIP+shim6" },
		{ 6, 0, 2, {60, 44}, 0, "ipv6 atomic fragment" },
		{ 6, 0, 2, {0, 44}, 0x0001, "ipv6 first fragment" },
		{ 6, 0, 3, {0, 44, 60}, 0x0001, "ipv6 first fragment +dstopts" },
		{ 6, 0, 2, {0, 44}, 0x0058, "ipv6 later fragment" },
	};
	char what[160];
	unsigned int v, l, p, t;

	for (v = 0; v < DIM(tpids); v++) {
		for (l = 0; l < DIM(l3s); l++) {
			for (p = 0; p < DIM(protos); p++) {
				for (t = 0; t < (protos[p] == IPPROTO_TCP ? 2u : 1u); t++) {
					struct spec s = {
						.nb_vlan = (tpids[v][0] != 0) + (tpids[v][1] != 0),
						.tpid = { tpids[v][0], tpids[v][1] },
						.ipver = l3s[l].ipver,
						.v4_opt = l3s[l].v4_opt,
						.nb_ext = l3s[l].nb_ext,
						.proto = protos[p],
						.tcp_opt = t * 12,
						.payload = 7,
						.frag = l3s[l].frag,
					};

					memcpy(s.ext, l3s[l].ext, sizeof(l3s[l].ext));
					snprintf(what, sizeof(what),
						"%u tags %04x/%04x, %s, proto %u%s",
						s.nb_vlan, s.tpid[0], s.tpid[1],
						l3s[l].name, s.proto,
						t ? " +12B options" : "");
					if (check_one(&s, what) != 0)
						return -1;
				}
			}
		}
		{
			struct spec arp = {
				.nb_vlan = (tpids[v][0] != 0) + (tpids[v][1] != 0),
				.tpid = { tpids[v][0], tpids[v][1] },
				.ipver = 0,
			};

			if (check_one(&arp, "arp") != 0)
				return -1;
		}
	}
	return 0;
}

static int
test_parse_not_ip(void)
{
	struct spec s = { .nb_vlan = 3, .tpid = { 0x88a8, 0x8100, 0x8100 },
		.ipver = 4, .proto = IPPROTO_UDP };
	struct rxr_flow_info info;
	struct built b;
	uint8_t llc[60] = { 0 };

	build(&b, &s);
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(b.buf, b.len, &info),
		RXR_FLOW_E_NOT_IP, "three tags");
	RXR_TEST_ASSERT_EQ(info.nb_vlan, 2, "tags read");

	wr16(llc + 12, 46);	/* 802.3 length field */
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(llc, sizeof(llc), &info),
		RXR_FLOW_E_NOT_IP, "802.3 frame");
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(NULL, 0, &info),
		RXR_FLOW_E_TRUNCATED, "NULL frame");
	return 0;
}

static int
test_parse_malformed(void)
{
	struct spec s4 = { .ipver = 4, .proto = IPPROTO_TCP, .payload = 10 };
	struct spec s6 = { .ipver = 6, .proto = IPPROTO_UDP, .payload = 10,
		.nb_ext = 9, .ext = { 0, 60, 60, 60, 60, 60, 60, 60, 60 } };
	struct rxr_flow_info info;
	struct built b;

	build(&b, &s4);
	b.buf[14] = 0x55;	/* version 5 under EtherType IPv4 */
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(b.buf, b.len, &info),
		RXR_FLOW_E_MALFORMED, "ipv4 version");
	b.buf[14] = 0x44;	/* IHL 16 bytes */
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(b.buf, b.len, &info),
		RXR_FLOW_E_MALFORMED, "ipv4 ihl < 5");
	b.buf[14] = 0x45;
	wr16(b.buf + 16, 19);	/* total length < header */
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(b.buf, b.len, &info),
		RXR_FLOW_E_MALFORMED, "ipv4 total length < ihl");
	wr16(b.buf + 16, 30);	/* datagram too short for a TCP header */
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(b.buf, b.len, &info),
		RXR_FLOW_E_MALFORMED, "ipv4 too short for tcp");
	RXR_TEST_ASSERT(info.key.family == 0, "key cleared on error");
	wr16(b.buf + 16, 50);
	b.buf[34 + 12] = 0x40;	/* TCP data offset 4 */
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(b.buf, b.len, &info),
		RXR_FLOW_E_MALFORMED, "tcp doff < 5");

	build(&b, &s6);
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(b.buf, b.len, &info),
		RXR_FLOW_E_MALFORMED, "9 ipv6 extension headers");
	s6.nb_ext = 8;
	build(&b, &s6);
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(b.buf, b.len, &info),
		RXR_FLOW_OK, "8 ipv6 extension headers");
	RXR_TEST_ASSERT_EQ(info.nb_ext, 8, "extensions counted");
	wr16(b.buf + 18, 16 * 3);	/* payload length ends inside the chain */
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(b.buf, b.len, &info),
		RXR_FLOW_E_MALFORMED, "ipv6 extensions beyond payload length");
	b.buf[14] = 0x40;
	RXR_TEST_ASSERT_EQ(rxr_flow_parse(b.buf, b.len, &info),
		RXR_FLOW_E_MALFORMED, "ipv6 version");
	return 0;
}

/* Random bytes, some with a plausible Ethernet/IP start: no crash, sane offsets. */
static int
test_parse_garbage(void)
{
	static const uint16_t ets[] = { 0x0800, 0x86dd, 0x8100, 0x88a8, 0x0806 };
	uint8_t buf[256];
	uint64_t x = 88172645463325252ull;
	unsigned int i, j, ok = 0;

	for (i = 0; i < 200000; i++) {
		struct rxr_flow_info info;
		size_t len;
		int ret;

		for (j = 0; j < sizeof(buf); j++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[j] = (uint8_t)x;
		}
		len = x % sizeof(buf);
		wr16(buf + 12, ets[i % DIM(ets)]);
		if (i & 1)
			buf[14] = (i & 2) ? 0x45 : 0x60;
		ret = rxr_flow_parse(guarded(buf, len), len, &info);
		RXR_TEST_ASSERT(ret <= 0 && ret >= RXR_FLOW_E_MALFORMED,
			"result %d", ret);
		ok += ret == RXR_FLOW_OK;
	}
	printf("# %u of %u random frames parsed as IP\n", ok, i);
	return 0;
}

/* ---- Toeplitz ---- */

/* The hash exactly as Microsoft's RSS specification words it, bit by bit. */
static uint32_t
toeplitz_ref(const uint8_t *in, size_t n, const uint8_t *key)
{
	uint32_t result = 0, window;
	size_t bit, kbit = 32;

	window = (uint32_t)key[0] << 24 | key[1] << 16 | key[2] << 8 | key[3];
	for (bit = 0; bit < n * 8; bit++) {
		if (in[bit / 8] & (0x80 >> (bit % 8)))
			result ^= window;
		window = window << 1 |
			((key[kbit / 8] >> (7 - kbit % 8)) & 1);
		kbit++;
	}
	return result;
}

static const struct {
	const char *src, *dst;
	uint16_t sport, dport;
	uint32_t l3, l3l4;
} ms_v4[] = {
	/* Microsoft RSS verification suite, IPv4 (also in DPDK's test_thash.c). */
	{ "66.9.149.187", "161.142.100.80", 2794, 1766, 0x323e8fc2, 0x51ccc178 },
	{ "199.92.111.2", "65.69.140.83", 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ "24.19.198.95", "12.22.207.184", 12898, 38024, 0xd2d0a5de, 0x5c2b394a },
	{ "38.27.205.30", "209.142.163.6", 48228, 2217, 0x82989176, 0xafc7327f },
	{ "153.39.163.191", "202.188.127.2", 44251, 1303, 0x5d1809c5, 0x10e828a2 },
}, ms_v6[] = {
	{ "3ffe:2501:200:1fff::7", "3ffe:2501:200:3::1", 2794, 1766,
		0x2cc18cd5, 0x40207d3d },
	{ "3ffe:501:8::260:97ff:fe40:efab", "ff02::1", 14230, 4739,
		0x0f0c461c, 0xdde51bbf },
	{ "3ffe:1900:4545:3:200:f8ff:fe21:67cf", "fe80::200:f8ff:fe21:67cf",
		44251, 38024, 0x4b61e985, 0x02d1feef },
};

/* The Toeplitz hash of k under rss_key, through an RSS configuration. */
static uint32_t
hash_of(const struct rxr_flow_key *k, const uint8_t *rss_key,
		enum rxr_flow_rss_fields fields)
{
	struct rxr_flow_rss rss;
	uint32_t hash = UINT32_MAX;

	if (rxr_flow_rss_init(&rss, rss_key, fields, 1, 1) == 0) {
		rxr_flow_rss_queue(&rss, k, &hash);
		rxr_flow_rss_fini(&rss);
	}
	return hash;
}

static int
test_toeplitz_ms_vectors(void)
{
	struct rxr_flow_key k;
	uint8_t s[16], d[16], in[36];
	unsigned int i;

	for (i = 0; i < DIM(ms_v4); i++) {
		inet_pton(AF_INET, ms_v4[i].src, s);
		inet_pton(AF_INET, ms_v4[i].dst, d);
		rxr_flow_key_v4(&k, be32(s), be32(d),
			ms_v4[i].sport, ms_v4[i].dport, IPPROTO_TCP);
		RXR_TEST_ASSERT_EQ(hash_of(&k, rxr_flow_rss_key_ms,
			RXR_FLOW_RSS_L3), ms_v4[i].l3, "v4 l3");
		RXR_TEST_ASSERT_EQ(hash_of(&k, rxr_flow_rss_key_ms,
			RXR_FLOW_RSS_L3L4), ms_v4[i].l3l4, "v4 l3l4");
		/* The bit-by-bit reference agrees, so it can judge other keys. */
		memcpy(in, s, 4);
		memcpy(in + 4, d, 4);
		wr16(in + 8, ms_v4[i].sport);
		wr16(in + 10, ms_v4[i].dport);
		RXR_TEST_ASSERT_EQ(toeplitz_ref(in, 12, rxr_flow_rss_key_ms),
			ms_v4[i].l3l4, "reference v4");
	}
	for (i = 0; i < DIM(ms_v6); i++) {
		inet_pton(AF_INET6, ms_v6[i].src, s);
		inet_pton(AF_INET6, ms_v6[i].dst, d);
		rxr_flow_key_v6(&k, s, d, ms_v6[i].sport, ms_v6[i].dport,
			IPPROTO_TCP);
		RXR_TEST_ASSERT_EQ(hash_of(&k, rxr_flow_rss_key_ms,
			RXR_FLOW_RSS_L3), ms_v6[i].l3, "v6 l3");
		RXR_TEST_ASSERT_EQ(hash_of(&k, rxr_flow_rss_key_ms,
			RXR_FLOW_RSS_L3L4), ms_v6[i].l3l4, "v6 l3l4");
		memcpy(in, s, 16);
		memcpy(in + 16, d, 16);
		wr16(in + 32, ms_v6[i].sport);
		wr16(in + 34, ms_v6[i].dport);
		RXR_TEST_ASSERT_EQ(toeplitz_ref(in, 36, rxr_flow_rss_key_ms),
			ms_v6[i].l3l4, "reference v6");
	}
	/* UDP hashes the ports like TCP; fragments and ICMP do not. */
	rxr_flow_key_v4(&k, 0x420995bb, 0xa18e6450, 2794, 1766, IPPROTO_UDP);
	RXR_TEST_ASSERT_EQ(hash_of(&k, rxr_flow_rss_key_ms,
		RXR_FLOW_RSS_L3L4), 0x51ccc178, "udp v4");
	k.flags = RXR_FLOW_F_FRAG;
	k.sport = k.dport = 0;
	RXR_TEST_ASSERT_EQ(hash_of(&k, rxr_flow_rss_key_ms,
		RXR_FLOW_RSS_L3L4), 0x323e8fc2, "fragment");
	k.family = 0;
	RXR_TEST_ASSERT_EQ(hash_of(&k, rxr_flow_rss_key_ms,
		RXR_FLOW_RSS_L3L4), 0, "no family");
	return 0;
}

static int
test_toeplitz_mlx5_key(void)
{
	static const uint8_t mlx5[40] = {
		0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7,
		0xfc, 0xa2, 0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94,
		0x6b, 0x9e, 0x38, 0xd9, 0x2c, 0x9c, 0x03, 0xd1,
		0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56, 0x3d, 0x59,
		0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
	};
	uint64_t x = 0x9e3779b97f4a7c15ull;
	uint8_t in[36], unaligned[41];
	unsigned int i, j;

	RXR_TEST_ASSERT(memcmp(rxr_flow_rss_key_mlx5, mlx5, 40) == 0,
		"mlx5 default key differs from drivers/net/mlx5");
	for (i = 0; i < 2000; i++) {
		struct rxr_flow_key k;
		bool v6 = i & 1;
		size_t n;

		for (j = 0; j < sizeof(in); j++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			in[j] = x >> 56;
		}
		if (v6) {
			rxr_flow_key_v6(&k, in, in + 16, in[32] << 8 | in[33],
				in[34] << 8 | in[35], IPPROTO_UDP);
			n = 36;
		} else {
			rxr_flow_key_v4(&k, be32(in),
				be32(in + 16),
				in[32] << 8 | in[33], in[34] << 8 | in[35],
				IPPROTO_TCP);
			memmove(in + 4, in + 16, 4);
			memmove(in + 8, in + 32, 4);
			n = 12;
		}
		RXR_TEST_ASSERT_EQ(hash_of(&k, rxr_flow_rss_key_mlx5,
			RXR_FLOW_RSS_L3L4), toeplitz_ref(in, n, mlx5),
			"mlx5 key against the reference");
		/* A key at an odd address works too (no alignment assumed). */
		memcpy(unaligned + 1, mlx5, 40);
		RXR_TEST_ASSERT_EQ(hash_of(&k, unaligned + 1,
			RXR_FLOW_RSS_L3), toeplitz_ref(in, n - 4, mlx5),
			"l3 with an unaligned key");
	}
	return 0;
}

/* ---- RETA ---- */

static int
test_reta(void)
{
	struct rxr_flow_rss rss;
	struct rxr_flow_key k;
	uint32_t i, hash;
	uint16_t q;

	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&rss, NULL, RXR_FLOW_RSS_L3L4,
		RXR_FLOW_RETA_SIZE_DEFAULT, 3), 0, "init 512 x 3");
	RXR_TEST_ASSERT(memcmp(rss.key, rxr_flow_rss_key_mlx5, 40) == 0,
		"default key is mlx5's");
	for (i = 0; i < rss.reta_size; i++)
		RXR_TEST_ASSERT_EQ(rss.reta[i], i % 3, "round robin");
	for (i = 0; i < 1000; i++) {
		rxr_flow_key_v4(&k, 0x0a000001 + i, 0x0a010001, 1024 + i, 5201,
			IPPROTO_TCP);
		q = rxr_flow_rss_queue(&rss, &k, &hash);
		RXR_TEST_ASSERT_EQ(hash, hash_of(&k, rss.key, rss.fields),
			"hash out");
		RXR_TEST_ASSERT_EQ(q, (hash % 512) % 3, "low 9 bits index the table");
	}
	RXR_TEST_ASSERT_EQ(rxr_flow_rss_queue(&rss, NULL, &hash), 0,
		"unhashable traffic goes where entry 0 points");
	RXR_TEST_ASSERT_EQ(hash, 0, "unhashable hash");
	rss.reta[0] = 2;
	RXR_TEST_ASSERT_EQ(rxr_flow_rss_queue(&rss, NULL, NULL), 2,
		"entry 0 moved");
	rxr_flow_rss_fini(&rss);

	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&rss, rxr_flow_rss_key_ms,
		RXR_FLOW_RSS_L3, 128, 128), 0, "128 x 128");
	RXR_TEST_ASSERT(memcmp(rss.key, rxr_flow_rss_key_ms, 40) == 0, "own key");
	rxr_flow_rss_fini(&rss);
	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&rss, NULL, 0, 1, 1), 0, "1 x 1");
	rxr_flow_rss_fini(&rss);

	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&rss, NULL, 0, 0, 1), -EINVAL, "size 0");
	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&rss, NULL, 0, 100, 1), -EINVAL,
		"size not a power of two");
	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&rss, NULL, 0, 131072, 1), -EINVAL,
		"size too large");
	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&rss, NULL, 0, 64, 65), -EINVAL,
		"more queues than entries");
	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&rss, NULL, 0, 4096, 1025), -EINVAL,
		"too many queues");
	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&rss, NULL, 0, 64, 0), -EINVAL,
		"no queues");
	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&rss, NULL, 7, 64, 1), -EINVAL,
		"bad fields");
	return 0;
}

/* ---- text ---- */

static int
test_format(void)
{
	struct rxr_flow_key k;
	char buf[RXR_FLOW_ADDR_STRLEN], small[8];

	rxr_flow_key_v4(&k, 0x0a000001, 0x0a000002, 1234, 5201, IPPROTO_TCP);
	RXR_TEST_ASSERT(strcmp(rxr_flow_addr_str(&k, true, buf, sizeof(buf)),
		"10.0.0.2") == 0, "%s", buf);
	rxr_flow_key_v6(&k, v6_src, v6_dst, 1, 2, IPPROTO_UDP);
	rxr_flow_key_v4(&k, 0x0a000001, 0x0a000002, 1, 2, 47);
	k.proto = 200;
	k.flags = RXR_FLOW_F_FRAG;
	rxr_flow_addr_str(&k, false, small, 4);
	RXR_TEST_ASSERT(strcmp(small, "?") == 0, "address too long for buffer");
	k.family = 0;
	RXR_TEST_ASSERT(strcmp(rxr_flow_addr_str(&k, false, buf, sizeof(buf)),
		"?") == 0, "no family");
	RXR_TEST_ASSERT(rxr_flow_proto_name(253) == NULL, "unknown proto name");
	return 0;
}

int
main(void)
{
	rxr_test_run("parse every header combination and truncation",
		test_parse_combinations);
	rxr_test_run("parse non-IP frames", test_parse_not_ip);
	rxr_test_run("parse malformed headers", test_parse_malformed);
	rxr_test_run("parse random bytes", test_parse_garbage);
	rxr_test_run("toeplitz: Microsoft RSS verification suite",
		test_toeplitz_ms_vectors);
	rxr_test_run("toeplitz: mlx5 default key against a reference",
		test_toeplitz_mlx5_key);
	rxr_test_run("reta", test_reta);
	rxr_test_run("formatting", test_format);
	return rxr_test_done();
}
