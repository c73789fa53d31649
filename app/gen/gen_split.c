/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Splitting a capture over queues as a NIC's RSS would. This is the path
 * that reads user files, so it is the one that is fuzzed: every record is
 * taken as the capture reader hands it over (rxr_capture.h: Ethernet,
 * skipped records counted) and parsed within its captured length.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int
gen_capture_open(struct rxr_capture *c, FILE *f, const char *name,
		struct gen_err *e)
{
	if (f == NULL) {
		gen_err_set(e, "%s: %s", name, strerror(errno));
		return -1;
	}
	if (rxr_capture_open(c, f) == 0)
		return 0;
	gen_err_set(e, "%s: %s", name, c->err);
	return -1;
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
gen_split(struct rxr_capture *in, const char *name,
		const struct rxr_flow_rss *rss, bool allow_truncated,
		gen_sink_fn sink, void *ctx, struct gen_split_stats *st,
		struct gen_flowtab *ft, struct gen_err *e)
{
	struct rxr_capture_rec rec;
	struct rxr_flow_info info;
	struct pcap_pkthdr h;
	uint32_t hash;
	uint16_t q;
	int r;

	while ((r = rxr_capture_next(in, &rec)) == 1) {
		r = rxr_flow_parse(rec.data, rec.caplen, &info);
		if (r == RXR_FLOW_OK) {
			q = rxr_flow_rss_queue(rss, &info.key, &hash);
			st->ip++;
			if (ft != NULL && gen_flowtab_add(ft, &info.key, hash, q,
					rec.len) != 0) {
				gen_err_set(e, "out of memory after %llu flows",
					(unsigned long long)ft->nb_flows);
				return -1;
			}
		} else {
			/* What a NIC does not hash gets hash 0: RETA entry 0. */
			q = rxr_flow_rss_queue(rss, NULL, NULL);
			if (r == RXR_FLOW_E_NOT_IP) {
				st->non_ip++;
				st->non_ip_bytes += rec.len;
			} else {
				st->unparsed++;
				st->unparsed_bytes += rec.len;
			}
		}
		h.ts.tv_sec = (time_t)rec.ts_sec;
		h.ts.tv_usec = in->nano ? rec.ts_nsec : rec.ts_nsec / 1000;
		h.caplen = rec.caplen;
		h.len = rec.len;
		if (sink(ctx, q, &h, rec.data, e) != 0)
			return -1;
		st->written++;
	}
	if (r < 0) {
		/* A cut or damaged record: the file is unusable from here. */
		if (!allow_truncated) {
			gen_err_set(e, "%s: %s (--allow-truncated splits the "
				"records before)", name, in->err);
			return -1;
		}
		st->truncated = true;
		snprintf(st->truncated_msg, sizeof(st->truncated_msg), "%s",
			in->err);
	}
	return 0;
}
