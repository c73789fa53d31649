/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Splitting a capture over queues as a NIC's RSS would. This is the path
 * that reads user files, so it is the one that is fuzzed: every record is
 * taken as the capture reader hands it over (rxr_capture.h: Ethernet,
 * skipped records counted) and parsed within its captured length.
 */

#include <errno.h>
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

int
gen_split(struct rxr_capture *in, const char *name,
		const struct rxr_flow_rss *rss, bool allow_truncated,
		gen_sink_fn sink, void *ctx, struct gen_split_stats *st,
		struct rxr_capture_flows *ft, struct gen_err *e)
{
	struct rxr_capture_rec rec;
	struct rxr_flow_info info;
	struct pcap_pkthdr h;
	uint32_t hash;
	uint16_t q;
	int r;

	while ((r = rxr_capture_next(in, &rec)) == 1) {
		r = rxr_flow_parse(rec.data, rec.caplen, &info);
		/* What a NIC does not hash gets hash 0: RETA entry 0. */
		q = rxr_flow_rss_queue(rss, r == RXR_FLOW_OK ? &info.key : NULL,
			&hash);
		if (r == RXR_FLOW_OK) {
			st->ip++;
			if (ft != NULL && rxr_capture_flows_add(ft, &info.key, hash, q,
					rec.len) != 0) {
				gen_err_set(e, "out of memory after %llu flows",
					(unsigned long long)ft->nb_flows);
				return -1;
			}
		} else if (r == RXR_FLOW_E_NOT_IP) {
			st->non_ip++;
			st->non_ip_bytes += rec.len;
		} else {
			st->unparsed++;
			st->unparsed_bytes += rec.len;
		}
		h.ts.tv_sec = (time_t)rec.ts_sec;
		h.ts.tv_usec = in->nano ? rec.ts_nsec : rec.ts_nsec / 1000;
		h.caplen = rec.caplen;
		h.len = rec.len;
		if (sink(ctx, q, &h, rec.data, e) != 0)
			return -1;
		st->written++;
	}
	/* A cut or damaged record: the file is unusable from here. */
	if (r < 0 && !allow_truncated) {
		gen_err_set(e, "%s: %s (--allow-truncated splits the records "
			"before)", name, in->err);
		return -1;
	}
	st->truncated = r < 0;
	return 0;
}
