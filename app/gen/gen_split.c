/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Splitting a capture over queues as a NIC's RSS would. This is the path
 * that reads user files, so it is the one that is fuzzed: every record is
 * taken as libpcap hands it over and parsed within its captured length.
 */

#include <stdlib.h>
#include <string.h>

#include "gen.h"

pcap_t *
gen_capture_open(FILE *f, const char *name, unsigned int *precision,
		struct gen_err *e)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	uint8_t m[4] = { 0 };
	size_t n;
	pcap_t *p;

	/*
	 * Keep the file's own timestamp precision, so that splitting a
	 * capture we wrote gives back byte-identical files. pcapng may carry
	 * anything: nanoseconds lose nothing.
	 */
	n = fread(m, 1, sizeof(m), f);
	if (n == 0 && feof(f)) {
		gen_err_set(e, "%s: empty file, not a capture", name);
		fclose(f);
		return NULL;
	}
	*precision = PCAP_TSTAMP_PRECISION_MICRO;
	if (n == sizeof(m) &&
			((m[0] == 0x4d && m[1] == 0x3c && m[2] == 0xb2 && m[3] == 0xa1) ||
			 (m[0] == 0xa1 && m[1] == 0xb2 && m[2] == 0x3c && m[3] == 0x4d) ||
			 (m[0] == 0x0a && m[1] == 0x0d && m[2] == 0x0d && m[3] == 0x0a)))
		*precision = PCAP_TSTAMP_PRECISION_NANO;
	if (fseek(f, 0, SEEK_SET) != 0) {
		gen_err_set(e, "%s: cannot seek back to its start (a regular file is needed)",
			name);
		fclose(f);
		return NULL;
	}
	p = pcap_fopen_offline_with_tstamp_precision(f, *precision, errbuf);
	if (p == NULL) {
		gen_err_set(e, "%s: not a capture libpcap can read: %s", name,
			errbuf);
		fclose(f);	/* libpcap leaves it to us on failure */
	}
	return p;
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
gen_flowtab_init(struct gen_flowtab *t, uint32_t max_flows)
{
	memset(t, 0, sizeof(*t));
	t->max_flows = max_flows;
	t->nb_slots = 1024;
	t->slots = calloc(t->nb_slots, sizeof(*t->slots));
	return t->slots == NULL ? -1 : 0;
}

void
gen_flowtab_free(struct gen_flowtab *t)
{
	free(t->flows);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static int
flowtab_grow(struct gen_flowtab *t)
{
	uint32_t n = t->nb_slots * 2, i, idx;
	uint32_t *s = calloc(n, sizeof(*s));

	if (s == NULL)
		return -1;
	for (i = 0; i < t->nb_flows; i++) {
		idx = key_hash(&t->flows[i].key) & (n - 1);
		while (s[idx] != 0)
			idx = (idx + 1) & (n - 1);
		s[idx] = i + 1;
	}
	free(t->slots);
	t->slots = s;
	t->nb_slots = n;
	return 0;
}

int
gen_flowtab_add(struct gen_flowtab *t, const struct rxr_flow_key *k,
		uint32_t hash, uint16_t queue, uint32_t len)
{
	uint32_t mask = t->nb_slots - 1, idx = key_hash(k) & mask;
	struct gen_flow *f;

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
		struct gen_flow *nf = realloc(t->flows, cap * sizeof(*nf));

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
	if (t->nb_flows * 2 > t->nb_slots)
		return flowtab_grow(t);
	return 0;
}

int
gen_split_check_linktype(pcap_t *in, const char *name, struct gen_err *e)
{
	int linktype = pcap_datalink(in);
	const char *lt;

	if (linktype == DLT_EN10MB)
		return 0;
	lt = pcap_datalink_val_to_name(linktype);
	gen_err_set(e, "%s: link type %s (%d) is not Ethernet; only Ethernet (EN10MB) captures can be split",
		name, lt != NULL ? lt : "unknown", linktype);
	return -1;
}

int
gen_split(pcap_t *in, const char *name, const struct rxr_flow_rss *rss,
		bool allow_truncated, gen_sink_fn sink, void *ctx,
		struct gen_split_stats *st, struct gen_flowtab *ft,
		struct gen_err *e)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	struct rxr_flow_info info;
	uint32_t hash;
	uint16_t q;
	int r;

	st->linktype = pcap_datalink(in);
	st->snaplen = pcap_snapshot(in);
	if (gen_split_check_linktype(in, name, e) != 0)
		return -1;

	for (;;) {
		r = pcap_next_ex(in, &h, &data);
		if (r == PCAP_ERROR_BREAK)
			break;		/* end of file */
		if (r == PCAP_ERROR) {
			/* A cut or damaged record: the file is unusable from here. */
			if (!allow_truncated) {
				gen_err_set(e, "%s: capture is truncated or damaged after %llu records: %s (--allow-truncated splits what comes before)",
					name, (unsigned long long)st->records,
					pcap_geterr(in));
				return -1;
			}
			st->truncated = true;
			snprintf(st->truncated_msg, sizeof(st->truncated_msg),
				"after %llu records: %s",
				(unsigned long long)st->records, pcap_geterr(in));
			break;
		}
		if (r != 1)
			continue;	/* live captures only */
		st->records++;

		if (h->caplen == 0) {
			st->skipped_empty++;
			continue;
		}
		if (h->caplen > h->len) {
			/* More bytes than the frame had: not a real record. */
			st->skipped_invalid++;
			continue;
		}
		if (h->caplen < h->len)
			st->snapped++;

		r = rxr_flow_parse(data, h->caplen, &info);
		if (r == RXR_FLOW_OK) {
			q = rxr_flow_rss_queue(rss, &info.key, &hash);
			st->ip++;
			if (ft != NULL && gen_flowtab_add(ft, &info.key, hash, q,
					h->len) != 0) {
				gen_err_set(e, "out of memory after %llu flows",
					(unsigned long long)ft->nb_flows);
				return -1;
			}
		} else {
			/* What a NIC does not hash gets hash 0: RETA entry 0. */
			q = rxr_flow_rss_queue(rss, NULL, NULL);
			if (r == RXR_FLOW_E_NOT_IP) {
				st->non_ip++;
				st->non_ip_bytes += h->len;
			} else {
				st->unparsed++;
				st->unparsed_bytes += h->len;
			}
		}
		if (sink(ctx, q, h, data, e) != 0)
			return -1;
		st->written++;
	}
	return 0;
}
