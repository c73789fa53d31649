/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * pcap and pcapng read record by record, each record an Ethernet frame
 * (rxr_capture.h). Formats: the pcap savefile of libpcap's pcap-savefile(5)
 * and the pcapng of the IETF draft "PCAP Next Generation Dump File Format".
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "rxr_capture.h"

#define LT_NULL		0
#define LT_EN10MB	1
#define LT_RAW_DLT	12	/* DLT_RAW written as is by some systems */
#define LT_RAW		101
#define LT_LOOP		108
#define LT_SLL		113
#define LT_IPV4		228
#define LT_IPV6		229
#define LT_SLL2		276

#define ETH_HLEN	14
/* Addresses of an Ethernet header the capture has none for. */
#define RXR_CAPTURE_MAC_SRC "02:00:00:00:00:01"
#define RXR_CAPTURE_MAC_DST "02:00:00:00:00:02"
#define ETYPE_IPV4	0x0800
#define ETYPE_IPV6	0x86dd
/* Room before a record's data for the Ethernet header that replaces its own. */
#define HEADROOM	32
/* The largest pcapng block read: a full record and generous options. */
#define BLOCK_MAX	(RXR_CAPTURE_CAPLEN_MAX + 65536)

#define SHB_TYPE	0x0a0d0d0a
#define SHB_MAGIC	0x1a2b3c4d
#define IDB_TYPE	1
#define PB_TYPE		2
#define SPB_TYPE	3
#define EPB_TYPE	6
#define OPT_TSRESOL	9

static const uint8_t mac_src[6] = { 2, 0, 0, 0, 0, 1 };
static const uint8_t mac_dst[6] = { 2, 0, 0, 0, 0, 2 };

static int
fail(struct rxr_capture *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return -1;
}

static uint32_t
get32(const struct rxr_capture *c, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return c->swap ? __builtin_bswap32(v) : v;
}

static uint16_t
get16(const struct rxr_capture *c, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return c->swap ? __builtin_bswap16(v) : v;
}

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The link-layer header a link type has in place of Ethernet's; -1: none
 * can be given. */
static int
link_hdr_len(uint32_t lt)
{
	switch (lt) {
	case LT_EN10MB: return 0;
	case LT_SLL: return 16;
	case LT_SLL2: return 20;
	case LT_NULL: case LT_LOOP: return 4;
	case LT_RAW: case LT_RAW_DLT: case LT_IPV4: case LT_IPV6: return 0;
	default: return -1;
	}
}

static const char *
rxr_capture_linktype_name(uint32_t lt, char *buf, size_t len)
{
	/* LINKTYPE_RAW is DLT_RAW (12) to libpcap. */
	const char *n = lt == LT_RAW ? "RAW" :
		pcap_datalink_val_to_name((int)lt);

	if (n != NULL)
		return n;
	snprintf(buf, len, "link type %u", lt);
	return buf;
}

/* Room for @p n bytes after HEADROOM. */
static int
buf_room(struct rxr_capture *c, size_t n)
{
	uint8_t *b;

	if (HEADROOM + n <= c->buf_size)
		return 0;
	b = realloc(c->buf, HEADROOM + n);
	if (b == NULL)
		return fail(c, "no memory for a record of %zu bytes", n);
	c->buf = b;
	c->buf_size = HEADROOM + n;
	return 0;
}

/* n bytes at HEADROOM: 1, 0 at a clean end (nothing read), -1 cut. */
static int
read_n(struct rxr_capture *c, size_t n, size_t *got)
{
	if (buf_room(c, n) != 0)
		return -1;
	*got = fread(c->buf + HEADROOM, 1, n, c->f);
	return *got == n ? 1 : *got == 0 && feof(c->f) ? 0 : -1;
}

static int
iface_add(struct rxr_capture *c, uint32_t lt, uint32_t snaplen,
		uint8_t tsresol)
{
	struct rxr_capture_iface *i = realloc(c->ifaces,
		(c->nb_ifaces + 1) * sizeof(*i));

	if (i == NULL)
		return fail(c, "no memory for its interfaces");
	c->ifaces = i;
	i[c->nb_ifaces++] = (struct rxr_capture_iface){
		.linktype = lt, .snaplen = snaplen, .tsresol = tsresol,
		.hlen = (int8_t)link_hdr_len(lt),
	};
	if (snaplen > c->snaplen)
		c->snaplen = snaplen;
	return 0;
}

int
rxr_capture_open(struct rxr_capture *c, FILE *f)
{
	uint8_t h[24] = { 0 };
	uint32_t magic, lt;
	char name[32];
	size_t n;

	memset(c, 0, sizeof(*c));
	c->f = f;
	n = fread(h, 1, sizeof(h), f);
	/* pcap's magics (micro, nano, modified) in the writer's byte order. */
	memcpy(&magic, h, 4);
	c->swap = magic >> 16 != 0xa1b2;
	magic = get32(c, h);
	if (n == 0) {
		fail(c, "empty file, not a capture");
	} else if (n >= 4 && magic == SHB_TYPE) {
		/* Sections are read as blocks by rxr_capture_next(). */
		c->pcapng = c->nano = true;
		if (fseek(f, 0, SEEK_SET) == 0)
			return 0;
		fail(c, "cannot seek back to its start");
	} else if (n < 4 || (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d &&
			magic != 0xa1b2cd34)) {
		fail(c, "not a pcap or pcapng capture (it starts with %02x %02x "
			"%02x %02x)", h[0], h[1], h[2], h[3]);
	} else if (n < sizeof(h)) {
		fail(c, "the pcap header is cut (%zu of 24 bytes)", n);
	} else if (get16(c, h + 4) != 2) {
		fail(c, "pcap version %u.%u, not 2.x", get16(c, h + 4),
			get16(c, h + 6));
	} else {
		c->nano = magic == 0xa1b23c4d;
		c->rec_hdr = magic == 0xa1b2cd34 ? 24 : 16;
		/* The upper bits carry the FCS length, not the link type. */
		lt = get32(c, h + 20) & 0x03ffffff;
		if (link_hdr_len(lt) < 0)
			fail(c, "link type %s (%u): not Ethernet, nor one that "
				"can be given an Ethernet header (LINUX_SLL, "
				"LINUX_SLL2, RAW, IPV4, IPV6, NULL, LOOP)",
				rxr_capture_linktype_name(lt, name, sizeof(name)),
				lt);
		else if (iface_add(c, lt, get32(c, h + 16), 6) == 0)
			return 0;
	}
	rxr_capture_close(c);
	return -1;
}

void
rxr_capture_close(struct rxr_capture *c)
{
	if (c->f != NULL)
		fclose(c->f);
	c->f = NULL;
	free(c->buf);
	c->buf = NULL;
	free(c->ifaces);
	c->ifaces = NULL;
}

/* The pcapng timestamp of @p units at interface resolution @p r. */
static void
ts_set(struct rxr_capture_rec *r, uint64_t units, uint8_t res)
{
	unsigned __int128 ns;
	unsigned int e = res & 0x7f;

	if (res & 0x80) {
		ns = e < 64 ? ((unsigned __int128)units * 1000000000u) >> e : 0;
	} else {
		ns = units;
		for (unsigned int k = e; k < 9; k++)
			ns *= 10;
		for (unsigned int k = 9; k < e && k < 40; k++)
			ns /= 10;
	}
	r->ts_sec = (uint64_t)(ns / 1000000000u);
	r->ts_nsec = (uint32_t)(ns % 1000000000u);
}

/* A section header (its byte order already read): its version; its
 * interfaces start. */
static int
pcapng_section(struct rxr_capture *c, const uint8_t *b, uint32_t blen)
{
	uint32_t magic;

	memcpy(&magic, b + 8, 4);
	if (blen < 28)
		return fail(c, "a section header of %u bytes", blen);
	if (magic != SHB_MAGIC && magic != __builtin_bswap32(SHB_MAGIC))
		return fail(c, "a pcapng section header of bad byte-order "
			"magic after record %" PRIu64, c->records);
	if (get16(c, b + 12) != 1)
		return fail(c, "a pcapng section of version %u.%u (1.x is "
			"read) after record %" PRIu64, get16(c, b + 12),
			get16(c, b + 14), c->records);
	c->section = c->nb_ifaces;
	return 0;
}

/* An interface description block: its link type, snap length, resolution. */
static int
pcapng_iface(struct rxr_capture *c, const uint8_t *b, uint32_t blen)
{
	uint8_t tsresol = 6;

	if (blen < 20)
		return fail(c, "a pcapng interface block of %u bytes after "
			"record %" PRIu64, blen, c->records);
	for (uint32_t o = 16; o + 4 <= blen - 4;) {
		uint16_t code = get16(c, b + o), olen = get16(c, b + o + 2);

		if (code == 0)
			break;
		if (code == OPT_TSRESOL && olen >= 1 && o + 5 <= blen - 4)
			tsresol = b[o + 4];
		o += 4 + ((olen + 3u) & ~3u);
	}
	return iface_add(c, get16(c, b + 8), get32(c, b + 12), tsresol);
}

/*
 * The record at @p d (caplen bytes of a len-byte frame, at least
 * HEADROOM - ETH_HLEN bytes into c->buf) as an Ethernet frame into r:
 * 1, or 0 when it is skipped (counted).
 */
static int
record_take(struct rxr_capture *c, const struct rxr_capture_iface *ifc,
		uint8_t *d, uint32_t caplen, uint32_t len,
		struct rxr_capture_rec *r)
{
	int hl = ifc->hlen;
	uint16_t type = 0;
	const uint8_t *src = mac_src;
	uint32_t af;

	c->records++;
	if (hl < 0) {
		c->skipped[RXR_CAPTURE_SKIP_LINKTYPE]++;
		return 0;
	}
	if (caplen == 0) {
		c->skipped[RXR_CAPTURE_SKIP_EMPTY]++;
		return 0;
	}
	/* Given an Ethernet header, it must still be a record libpcap reads. */
	if (caplen > len || caplen < (uint32_t)hl ||
			caplen - hl > RXR_CAPTURE_CAPLEN_MAX - ETH_HLEN ||
			len - hl > UINT32_MAX - ETH_HLEN) {
		c->skipped[RXR_CAPTURE_SKIP_INVALID]++;
		return 0;
	}
	if (ifc->snaplen != 0 && caplen > ifc->snaplen)
		c->trimmed = true;
	r->data = d;
	if (ifc->linktype != LT_EN10MB) {
		switch (ifc->linktype) {
		case LT_SLL:
			type = be16(d + 14);
			if (be16(d + 4) == 6)
				src = d + 6;
			break;
		case LT_SLL2:
			type = be16(d);
			if (d[11] == 6)
				src = d + 12;
			break;
		case LT_NULL: case LT_LOOP:
			/* LOOP is in network order, NULL in the writer's. */
			memcpy(&af, d, 4);
			if (ifc->linktype == LT_LOOP)
				af = (uint32_t)be16(d) << 16 | be16(d + 2);
			else if ((af & 0xffff0000) != 0)
				af = __builtin_bswap32(af);
			type = af == 2 ? ETYPE_IPV4 : af == 10 || af == 24 ||
				af == 28 || af == 30 ? ETYPE_IPV6 : 0;
			break;
		case LT_IPV4:
			type = ETYPE_IPV4;
			break;
		case LT_IPV6:
			type = ETYPE_IPV6;
			break;
		default:	/* RAW: the IP version says */
			type = d[0] >> 4 == 4 ? ETYPE_IPV4 :
				d[0] >> 4 == 6 ? ETYPE_IPV6 : 0;
		}
		/* Source first: it may lie where the new header goes. */
		memmove(d + hl - ETH_HLEN + 6, src, 6);
		d += hl - ETH_HLEN;
		memcpy(d, mac_dst, 6);
		d[12] = (uint8_t)(type >> 8);
		d[13] = (uint8_t)type;
		caplen += ETH_HLEN - hl;
		len += ETH_HLEN - hl;
		r->data = d;
		c->converted++;
	}
	r->caplen = caplen;
	r->len = len;
	if (caplen < len)
		c->snapped++;
	if (caplen > c->largest)
		c->largest = caplen;
	return 1;
}

static int
too_large(struct rxr_capture *c, uint32_t caplen)
{
	return fail(c, "record %" PRIu64 ": %u bytes captured, more than a "
		"record can hold (%u): a damaged file", c->records + 1, caplen,
		RXR_CAPTURE_CAPLEN_MAX);
}

/* A pcap record: 1, 0 when skipped or at the end, -1 damaged. */
static int
pcap_record(struct rxr_capture *c, struct rxr_capture_rec *r)
{
	uint64_t n = c->records + 1;
	uint32_t caplen, len;
	size_t got = 0;
	int ret;

	ret = read_n(c, c->rec_hdr, &got);
	if (ret <= 0)
		return ret == 0 ? 0 : fail(c, "record %" PRIu64 ": the file "
			"ends inside its header (%zu of %u bytes)", n, got,
			c->rec_hdr);
	caplen = get32(c, c->buf + HEADROOM + 8);
	len = get32(c, c->buf + HEADROOM + 12);
	r->ts_sec = get32(c, c->buf + HEADROOM);
	r->ts_nsec = get32(c, c->buf + HEADROOM + 4) * (c->nano ? 1 : 1000);
	if (caplen > RXR_CAPTURE_CAPLEN_MAX)
		return too_large(c, caplen);
	if (read_n(c, caplen, &got) != 1 && caplen != 0)
		return fail(c, "record %" PRIu64 ": the file ends inside it "
			"(%zu of %u bytes)", n, got, caplen);
	return record_take(c, &c->ifaces[0], c->buf + HEADROOM, caplen, len,
		r);
}

/* A packet block (EPB, SPB or the obsolete PB) of blen bytes at b. */
static int
pcapng_packet(struct rxr_capture *c, uint32_t type, uint8_t *b,
		uint32_t blen, struct rxr_capture_rec *r)
{
	uint64_t n = c->records + 1;
	uint32_t iface = 0, caplen, len, off;

	if (type == SPB_TYPE) {
		if (blen < 16)
			return fail(c, "record %" PRIu64 ": a simple packet "
				"block of %u bytes", n, blen);
		off = 12;
		len = get32(c, b + 8);
		caplen = len < blen - 16 ? len : blen - 16;
		if (c->section < c->nb_ifaces &&
				c->ifaces[c->section].snaplen != 0 &&
				caplen > c->ifaces[c->section].snaplen)
			caplen = c->ifaces[c->section].snaplen;
	} else {
		if (blen < 32)
			return fail(c, "record %" PRIu64 ": a packet block of "
				"%u bytes", n, blen);
		off = 28;
		iface = type == EPB_TYPE ? get32(c, b + 8) : get16(c, b + 8);
		caplen = get32(c, b + 20);
		len = get32(c, b + 24);
		if (caplen > blen - 32)
			return fail(c, "record %" PRIu64 ": %u bytes captured "
				"in a block of %u", n, caplen, blen);
	}
	if (caplen > RXR_CAPTURE_CAPLEN_MAX)
		return too_large(c, caplen);
	if (c->section + iface >= c->nb_ifaces)
		return fail(c, "record %" PRIu64 ": of interface %u, which "
			"its section does not describe", n, iface);
	iface += c->section;
	c->ifaces[iface].records++;
	if (type == SPB_TYPE)
		r->ts_sec = r->ts_nsec = 0;
	else
		ts_set(r, (uint64_t)get32(c, b + 12) << 32 | get32(c, b + 16),
			c->ifaces[iface].tsresol);
	return record_take(c, &c->ifaces[iface], b + off, caplen, len, r);
}

/* A pcapng block: 1 a record, 0 none (or the end), -1 damaged. */
static int
pcapng_block(struct rxr_capture *c, struct rxr_capture_rec *r)
{
	uint64_t n = c->records + 1;
	uint32_t type, blen;
	uint8_t *b;
	size_t got;
	int ret;

	ret = buf_room(c, 12) == 0 ? read_n(c, 8, &got) : -1;
	if (ret <= 0)
		return ret == 0 ? 0 : fail(c, "record %" PRIu64 ": the file "
			"ends inside a block header", n);
	b = c->buf + HEADROOM;
	memcpy(&type, b, 4);
	if (type == SHB_TYPE) {
		/* The byte order is the section's: read its magic. */
		if (fread(b + 8, 1, 4, c->f) != 4)
			return fail(c, "record %" PRIu64 ": the file ends inside "
				"a section header", n);
		memcpy(&blen, b + 8, 4);
		c->swap = blen != SHB_MAGIC;
		blen = get32(c, b + 4);
		got = 12;
	} else {
		type = get32(c, b);
		blen = get32(c, b + 4);
		got = 8;
	}
	if (blen < 12 || blen % 4 != 0 || blen > BLOCK_MAX)
		return fail(c, "record %" PRIu64 ": a block of %u bytes (type "
			"%u): a damaged file", n, blen, type);
	if (buf_room(c, blen) != 0)
		return -1;
	b = c->buf + HEADROOM;
	if (fread(b + got, 1, blen - got, c->f) != blen - got)
		return fail(c, "record %" PRIu64 ": the file ends inside a "
			"block of %u bytes", n, blen);
	if (get32(c, b + blen - 4) != blen)
		return fail(c, "record %" PRIu64 ": a block whose two lengths "
			"differ (%u, %u): a damaged file", n, blen,
			get32(c, b + blen - 4));
	switch (type) {
	case SHB_TYPE:
		return pcapng_section(c, b, blen);
	case IDB_TYPE:
		return pcapng_iface(c, b, blen);
	case EPB_TYPE: case SPB_TYPE: case PB_TYPE:
		return pcapng_packet(c, type, b, blen, r);
	default:	/* statistics, names, custom blocks */
		return 0;
	}
}

int
rxr_capture_next(struct rxr_capture *c, struct rxr_capture_rec *r)
{
	int ret;

	/* 0 is a record skipped or a block without one, until the end. */
	do
		ret = c->pcapng ? pcapng_block(c, r) : pcap_record(c, r);
	while (ret == 0 && !feof(c->f) && !ferror(c->f));
	if (ret == 0 && ferror(c->f))
		return fail(c, "read error after record %" PRIu64, c->records);
	return ret;
}

void
rxr_capture_linktypes(const struct rxr_capture *c, char *buf, size_t len)
{
	size_t off = 0;
	char name[32];

	buf[0] = '\0';
	for (unsigned int i = 0; i < c->nb_ifaces && off < len; i++) {
		unsigned int j;

		for (j = 0; j < i; j++)
			if (c->ifaces[j].linktype == c->ifaces[i].linktype)
				break;
		if (j == i)
			off += snprintf(buf + off, len - off, "%s%s",
				off != 0 ? "," : "", rxr_capture_linktype_name(
					c->ifaces[i].linktype, name,
					sizeof(name)));
	}
}

void
rxr_capture_describe(const struct rxr_capture *c, char *buf, size_t len)
{
	size_t off = 0;
	char name[32];

#define PUT(...) do { if (off < len) off += snprintf(buf + off, len - off, \
	__VA_ARGS__); } while (0)
	buf[0] = '\0';
	for (unsigned int i = 0; i < c->nb_ifaces && c->converted != 0; i++) {
		uint32_t lt = c->ifaces[i].linktype;

		if (c->ifaces[i].hlen < 0 || lt == LT_EN10MB)
			continue;
		PUT("%" PRIu64 " %s records given an Ethernet header (source "
			"%s, destination " RXR_CAPTURE_MAC_DST ")", c->converted,
			rxr_capture_linktype_name(lt, name, sizeof(name)),
			lt == LT_SLL || lt == LT_SLL2 ? "from the SLL header" :
			RXR_CAPTURE_MAC_SRC);
		break;
	}
	if (c->skipped[RXR_CAPTURE_SKIP_EMPTY] +
			c->skipped[RXR_CAPTURE_SKIP_INVALID] +
			c->skipped[RXR_CAPTURE_SKIP_LINKTYPE] == 0)
		return;
	PUT("%sskipped:", off != 0 ? "; " : "");
	if (c->skipped[RXR_CAPTURE_SKIP_EMPTY] != 0)
		PUT(" %" PRIu64 " of zero length,",
			c->skipped[RXR_CAPTURE_SKIP_EMPTY]);
	if (c->skipped[RXR_CAPTURE_SKIP_INVALID] != 0)
		PUT(" %" PRIu64 " with more bytes than their frame or fewer "
			"than their link header,",
			c->skipped[RXR_CAPTURE_SKIP_INVALID]);
	for (unsigned int i = 0; i < c->nb_ifaces; i++)
		if (c->ifaces[i].hlen < 0 && c->ifaces[i].records != 0)
			PUT(" %" PRIu64 " of interface %u (%s),",
				c->ifaces[i].records, i,
				rxr_capture_linktype_name(c->ifaces[i].linktype,
					name, sizeof(name)));
	if (off != 0 && off < len)
		buf[off - 1] = '\0';
#undef PUT
}

static uint32_t
key_hash(const struct rxr_flow_key *k)
{
	const uint8_t *b = (const uint8_t *)k;
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (i = 0; i < sizeof(*k); i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return (uint32_t)(h ^ (h >> 32));
}

int
rxr_capture_flows_init(struct rxr_capture_flows *t, uint32_t max_flows)
{
	memset(t, 0, sizeof(*t));
	t->max_flows = max_flows;
	t->nb_slots = 1024;
	t->slots = calloc(t->nb_slots, sizeof(*t->slots));
	return t->slots == NULL ? -1 : 0;
}

void
rxr_capture_flows_free(struct rxr_capture_flows *t)
{
	free(t->flows);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

int
rxr_capture_flows_add(struct rxr_capture_flows *t,
		const struct rxr_flow_key *k, uint32_t hash, uint16_t queue,
		uint32_t len)
{
	uint32_t mask = t->nb_slots - 1, idx = key_hash(k) & mask;
	struct rxr_capture_flow *f;
	uint32_t *s;

	while (t->slots[idx] != 0) {
		f = &t->flows[t->slots[idx] - 1];
		if (memcmp(&f->key, k, sizeof(*k)) == 0) {
			f->packets++;
			f->bytes += len;
			return 0;
		}
		idx = (idx + 1) & mask;
	}
	if (t->nb_flows >= t->max_flows) {
		t->untracked_packets++;
		t->untracked_bytes += len;
		return 0;
	}
	if (t->nb_flows == t->cap_flows) {
		uint32_t cap = t->cap_flows ? t->cap_flows * 2 : 256;
		struct rxr_capture_flow *nf = realloc(t->flows, cap * sizeof(*nf));

		if (nf == NULL)
			return -1;
		t->flows = nf;
		t->cap_flows = cap;
	}
	f = &t->flows[t->nb_flows];
	f->key = *k;
	f->hash = hash;
	f->queue = queue;
	f->packets = 1;
	f->bytes = len;
	t->slots[idx] = ++t->nb_flows;
	/* Keep the table at most half full: probes stay short. */
	if (t->nb_flows * 2 <= t->nb_slots)
		return 0;
	mask = t->nb_slots * 2 - 1;
	s = calloc(mask + 1, sizeof(*s));
	if (s == NULL)
		return -1;
	for (uint32_t i = 0; i < t->nb_flows; i++) {
		idx = key_hash(&t->flows[i].key) & mask;
		while (s[idx] != 0)
			idx = (idx + 1) & mask;
		s[idx] = i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nb_slots = mask + 1;
	return 0;
}
