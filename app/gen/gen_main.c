/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxrefill-gen: writes one pcap file per RX queue, split the way a NIC's
 * RSS would split the traffic, for net_pcap replay (one file per queue);
 * or splits an existing Ethernet capture the same way. A JSON manifest
 * says exactly what each file holds, so tests can check counts.
 */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>

#include "gen.h"
#include "rxr_path.h"
#include "rxr_version.h"

/* ---- manifest ---- */

/* A count as json_pack() takes it ("I"). */
#define J(v) ((json_int_t)(v))

/* A packets and bytes pair of the manifest. */
static json_t *
count_json(uint64_t packets, uint64_t bytes)
{
	return json_pack("{s:I,s:I}", "packets", J(packets), "bytes", J(bytes));
}

static json_t *
manifest_base(const struct gen_opts *o, const char *mode)
{
	char hex[2 * RXR_FLOW_RSS_KEY_LEN + 1];

	for (unsigned int i = 0; i < RXR_FLOW_RSS_KEY_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", o->key[i]);
	return json_pack("{s:s,s:s,s:s,s:{s:s,s:s,s:s,s:I,s:s,s:I}}",
		"schema", GEN_MANIFEST_SCHEMA, "generator", rxr_version(),
		"mode", mode, "rss", "key", o->key_name, "key_hex", hex,
		"fields", o->fields == RXR_FLOW_RSS_L3 ? "l3" : "l3l4",
		"reta_size", J(o->reta_size), "reta", "round-robin",
		"queues", J(o->queues));
}

/* A file's entry; queue -1: the --all file, no queue or streams. */
static json_t *
file_json(const struct gen_out *out, int queue)
{
	return json_pack("{s:o*,s:o*,s:I,s:I,s:I,s:o*}", "queue", queue < 0 ?
		NULL : json_integer(queue), "file", json_string(out->path),
		"packets", J(out->packets), "bytes", J(out->bytes),
		"captured_bytes", J(out->captured), "streams", queue < 0 ?
		NULL : json_integer(out->streams));
}

static json_t *
stream_json(uint64_t id, const struct rxr_capture_flow *fl)
{
	const struct rxr_flow_key *k = &fl->key;
	char s[RXR_FLOW_ADDR_STRLEN], d[RXR_FLOW_ADDR_STRLEN], h[16];

	snprintf(h, sizeof(h), "0x%08x", fl->hash);
	return json_pack("{s:I,s:s,s:s,s:I,s:I,s:I,s:s*,s:o*,s:s,s:I,s:I,s:I}",
		"id", J(id), "src", rxr_flow_addr_str(k, false, s, sizeof(s)),
		"dst", rxr_flow_addr_str(k, true, d, sizeof(d)),
		"sport", J(k->sport), "dport", J(k->dport), "proto", J(k->proto),
		"proto_name", rxr_flow_proto_name(k->proto), "fragments",
		(k->flags & RXR_FLOW_F_FRAG) ? json_true() : NULL, "hash", h,
		"queue", J(fl->queue), "packets", J(fl->packets), "bytes",
		J(fl->bytes));
}

static json_t *
queues_json(const struct gen_out *outs, uint32_t n)
{
	json_t *a = json_array();

	for (uint32_t q = 0; q < n; q++)
		json_array_append_new(a, file_json(&outs[q], (int)q));
	return a;
}

/* ---- output files ---- */

/* The outputs are o->paths but the last, the manifest. */
struct run {
	struct gen_opts *o;
	struct rxr_flow_rss rss;
	struct gen_out *outs;	/* queues, then the --all file */
	uint32_t nb_outs;
};

static int
run_open(struct run *r, int snaplen, unsigned int precision,
		struct gen_err *e)
{
	r->nb_outs = r->o->nb_paths - 1;
	r->outs = calloc(r->nb_outs, sizeof(*r->outs));
	if (r->outs == NULL) {
		gen_err_set(e, "out of memory");
		return -1;
	}
	for (uint32_t q = 0; q < r->nb_outs; q++)
		if (gen_out_open(&r->outs[q], r->o->paths[q], DLT_EN10MB,
				snaplen, precision, e) != 0)
			return -1;
	return 0;
}

/*
 * Finish every file, then rename them all, then write the manifest doc
 * (taken); the summary says what, unless quiet or on standard output.
 */
static int
run_commit(struct run *r, json_t *doc, const char *what,
		struct gen_err *e)
{
	const struct gen_opts *o = r->o;
	const char *manifest = o->paths[r->nb_outs];
	int ret = gen_out_commit(r->outs, r->nb_outs, doc, manifest, e);
	uint32_t q;

	json_decref(doc);
	if (ret != 0 || o->quiet || rxr_path_is_stdout(manifest))
		return ret;
	printf("%s: %s, %u queues (RSS key %s, %s, RETA %u round robin)\n",
		GEN_PROG, what, o->queues, o->key_name,
		o->fields == RXR_FLOW_RSS_L3 ? "l3" : "l3l4", o->reta_size);
	for (q = 0; q < r->nb_outs; q++)
		printf("  %-28s %6u streams %12llu packets %15llu bytes\n",
			r->outs[q].path, r->outs[q].streams,
			(unsigned long long)r->outs[q].packets,
			(unsigned long long)r->outs[q].bytes);
	printf("  manifest: %s\n", manifest);
	return 0;
}

/* ---- generate ---- */

/* Generated packets are one microsecond apart from this Unix time. */
#define GEN_TS_START_S 1700000000
#define US_PER_S 1000000

/* The manifest of a generated set of files. */
static json_t *
generate_manifest(const struct run *r, const struct gen_stream *st,
		uint64_t bytes)
{
	const struct gen_opts *o = r->o;
	const struct gen_traffic_conf *t = &o->t;
	json_t *doc = manifest_base(o, "generate"), *streams = json_array();
	json_t *vlan = json_array();

	for (uint32_t s = 0; s < t->nb_vlan; s++)
		json_array_append_new(vlan, json_integer(t->vlan[s]));
	for (uint32_t s = 0; s < t->nb_streams; s++)
		json_array_append_new(streams, stream_json(s, &st[s].f));
	json_object_update_new(doc, json_pack("{s:I,s:{s:I,s:s,s:o,s:s,s:I,"
		"s:I,s:b},s:o,s:o,s:o*,s:o}", "seed", J(t->seed), "traffic",
		"ip", J(t->ipver), "proto", t->proto == IPPROTO_TCP ? "tcp" :
		"udp", "vlan", vlan, "size", t->sizes.spec, "streams",
		J(t->nb_streams), "packets_per_stream", J(t->packets),
		"balance", t->balance,
		"total", count_json((uint64_t)t->nb_streams * t->packets, bytes),
		"queues", queues_json(r->outs, o->queues),
		"all", o->all ? file_json(&r->outs[o->queues], -1) : NULL,
		"streams", streams));
	return doc;
}

/*
 * Streams placed on queues by RSS (warning about those off their
 * round-robin queue and about queues that get none), then round robin
 * over the streams, as interleaved flows are captured, into each stream's
 * queue file and the --all file.
 */
static int
generate(struct run *r, struct gen_err *e)
{
	const struct gen_opts *o = r->o;
	const struct gen_traffic_conf *t = &o->t;
	struct gen_stream *st = calloc(t->nb_streams, sizeof(*st));
	uint8_t *buf = malloc(GEN_SIZE_MAX);
	uint32_t s, q, unbalanced;
	uint64_t k, g = 0, bytes = 0;
	struct pcap_pkthdr h;
	char what[512];
	int ret = -1;

	if (st == NULL || buf == NULL) {
		gen_err_set(e, "out of memory");
		goto out;
	}
	unbalanced = gen_streams_setup(st, t, &r->rss);
	if (unbalanced != 0)
		fprintf(stderr, GEN_PROG ": warning: %u streams could not be placed on their round-robin queue; they go where their hash says\n",
			unbalanced);
	if (run_open(r, GEN_SNAPLEN, PCAP_TSTAMP_PRECISION_MICRO, e) != 0)
		goto out;
	for (s = 0; s < t->nb_streams; s++)
		r->outs[st[s].f.queue].streams++;
	if (o->all)
		r->outs[o->queues].streams = t->nb_streams;
	for (q = 0; q < o->queues && t->nb_streams >= o->queues; q++)
		if (r->outs[q].streams == 0)
			fprintf(stderr, GEN_PROG ": warning: queue %u gets no stream with this seed and RSS configuration\n",
				q);
	for (k = 0; k < t->packets; k++) {
		for (s = 0; s < t->nb_streams; s++, g++) {
			uint32_t len = t->sizes.cycle[(k + s) % t->sizes.n];

			gen_build_frame(buf, len, &st[s], s, k, t);
			/* One microsecond apart, from a fixed start: reproducible. */
			h.ts.tv_sec = GEN_TS_START_S + (time_t)(g / US_PER_S);
			h.ts.tv_usec = (suseconds_t)(g % US_PER_S);
			h.caplen = h.len = len;
			if (gen_out_write(&r->outs[st[s].f.queue], &h, buf, e) != 0 ||
					(o->all && gen_out_write(&r->outs[o->queues],
						&h, buf, e) != 0))
				goto out;
			st[s].f.packets++;
			st[s].f.bytes += len;
			bytes += len;
		}
	}
	snprintf(what, sizeof(what), "%u %s/ipv%d streams x %llu packets of %s B",
		t->nb_streams, t->proto == IPPROTO_TCP ? "tcp" : "udp",
		t->ipver, (unsigned long long)t->packets, t->sizes.spec);
	ret = run_commit(r, generate_manifest(r, st, bytes), what, e);
out:
	free(buf);
	free(st);
	return ret;
}

/* ---- split ---- */

static int
split_sink(void *ctx, uint16_t queue, const struct pcap_pkthdr *h,
		const uint8_t *data, struct gen_err *e)
{
	struct run *r = ctx;

	return r != NULL ? gen_out_write(&r->outs[queue], h, data, e) : 0;
}

/* The manifest of a split capture: its "input", what became of it. */
static json_t *
split_manifest(const struct run *r, const struct rxr_capture *c,
		const struct gen_split_stats *st, const struct rxr_capture_flows *ft,
		int snaplen)
{
	const struct gen_opts *o = r->o;
	json_t *doc = manifest_base(o, "split"), *streams = json_array();
	uint64_t total_bytes = 0, un_streams = 0, un_packets = 0, un_bytes = 0;
	char lt[256];
	uint32_t i;

	for (i = 0; i < o->queues; i++)
		total_bytes += r->outs[i].bytes;
	rxr_capture_linktypes(c, lt, sizeof(lt));
	json_object_update_new(doc, json_pack("{s:{s:o*,s:s,s:I,s:s,s:I,s:I,"
		"s:I,s:o,s:o,s:I,s:I,s:I,s:I,s:I,s:b,s:o*},s:o,s:o}", "input",
		"file", json_string(o->split), "linktype", lt,
		"snaplen", J(snaplen), "tstamp_precision",
		c->nano ? "nano" : "micro", "records", J(c->records),
		"written", J(st->written), "ip", J(st->ip),
		"non_ip", count_json(st->non_ip, st->non_ip_bytes),
		"unparsed", count_json(st->unparsed, st->unparsed_bytes),
		"snapped", J(c->snapped), "converted", J(c->converted),
		"skipped_empty", J(c->skipped[RXR_CAPTURE_SKIP_EMPTY]),
		"skipped_invalid", J(c->skipped[RXR_CAPTURE_SKIP_INVALID]),
		"skipped_linktype", J(c->skipped[RXR_CAPTURE_SKIP_LINKTYPE]),
		"truncated", st->truncated, "truncated_at", st->truncated ?
		json_string(c->err) : NULL,
		"total", count_json(st->written, total_bytes),
		"queues", queues_json(r->outs, o->queues)));
	/* The first --max-streams listed, the rest summed. */
	for (i = 0; i < ft->nb_flows; i++) {
		const struct rxr_capture_flow *fl = &ft->flows[i];

		if (i < o->max_streams) {
			json_array_append_new(streams, stream_json(i, fl));
		} else {
			un_streams++;
			un_packets += fl->packets;
			un_bytes += fl->bytes;
		}
	}
	json_object_set_new(doc, "streams", streams);
	json_object_set_new(doc, "streams_unlisted", json_pack(
		"{s:I,s:I,s:I,s:I,s:I}", "streams", J(un_streams), "packets",
		J(un_packets), "bytes", J(un_bytes), "untracked_packets",
		J(ft->untracked_packets), "untracked_bytes",
		J(ft->untracked_bytes)));
	return doc;
}

/*
 * The capture read through once before any output (sink NULL), so that a
 * damaged or unusable input is said about the input, not a temporary
 * file; the queue files take its largest snap length, or its largest
 * record when that is larger (a record libpcap would trim otherwise).
 * Then each frame into the file of the queue RSS gives it.
 */
static int
split(struct run *r, struct gen_err *e)
{
	struct gen_opts *o = r->o;
	struct gen_split_stats st = { 0 };
	struct rxr_capture_flows ft;
	struct rxr_capture in = { .f = NULL };
	char what[512];
	int snaplen, ret = -1;
	uint32_t i;

	if (rxr_capture_flows_init(&ft, GEN_FLOWS_MAX) != 0) {
		gen_err_set(e, "out of memory");
		return -1;
	}
	if (gen_capture_open(&in, fopen(o->split, "rb"), o->split, e) != 0 ||
			gen_split(&in, o->split, &r->rss, o->allow_truncated,
				split_sink, NULL, &st, NULL, e) != 0)
		goto out;
	snaplen = (int)(in.snaplen > in.largest ? in.snaplen : in.largest);
	rxr_capture_close(&in);
	memset(&st, 0, sizeof(st));
	if (gen_capture_open(&in, fopen(o->split, "rb"), o->split, e) != 0 ||
			run_open(r, snaplen != 0 ? snaplen : GEN_SNAPLEN, in.nano ?
				PCAP_TSTAMP_PRECISION_NANO :
				PCAP_TSTAMP_PRECISION_MICRO, e) != 0 ||
			gen_split(&in, o->split, &r->rss, o->allow_truncated,
				split_sink, r, &st, &ft, e) != 0)
		goto out;
	rxr_capture_describe(&in, what, sizeof(what));
	/* Empty files and a manifest of nothing are no split: leave the outputs. */
	if (st.written == 0) {
		gen_err_set(e, "%s: none of its %llu records is a frame to split"
			"%s%s: nothing written", o->split,
			(unsigned long long)in.records, what[0] ? "; " : "",
			what);
		goto out;
	}
	if (what[0] != '\0' && !o->quiet)
		fprintf(stderr, GEN_PROG ": %s: %s\n", o->split, what);
	if (st.truncated)
		fprintf(stderr, GEN_PROG ": warning: %s: damaged (%s); split "
			"the records before\n", o->split, in.err);
	for (i = 0; i < ft.nb_flows; i++)
		r->outs[ft.flows[i].queue].streams++;
	snprintf(what, sizeof(what), "%s: %llu records, %u streams, %llu non-IP, %llu unparsed",
		o->split, (unsigned long long)in.records, ft.nb_flows,
		(unsigned long long)st.non_ip, (unsigned long long)st.unparsed);
	ret = run_commit(r, split_manifest(r, &in, &st, &ft, snaplen), what, e);
out:
	rxr_capture_close(&in);
	rxr_capture_flows_free(&ft);
	return ret;
}

int
main(int argc, char **argv)
{
	struct gen_opts o;
	struct run r = { .o = &o };
	struct gen_err e = { "" };
	unsigned int closed;
	int ret = -1;

	/* Before any file is opened: a closed stderr's descriptor would go to
	 * the first capture, and a warning into it. */
	closed = rxr_path_std_fds_open();
	/* Each line as it is printed, never cut by a diagnostic on stderr. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	gen_opts_parse(&o, argc, argv);
	/* Writes to /dev/null in its place would succeed: said before any
	 * capture is made. */
	if (o.manifest != NULL && strcmp(o.manifest, "-") == 0 &&
			(closed & (1u << STDOUT_FILENO)) != 0) {
		fprintf(stderr, GEN_PROG ": --manifest -: standard output is "
			"closed\n");
		return EXIT_FAILURE;
	}
	/* An interrupted run leaves no *.tmp.* behind. */
	if (gen_out_signals() != 0) {
		perror(GEN_PROG ": sigaction");
		return EXIT_FAILURE;
	}
	if (rxr_flow_rss_init(&r.rss, o.key, o.fields, o.reta_size,
			(uint16_t)o.queues) != 0)
		gen_err_set(&e, "cannot set up RSS");
	else
		ret = o.split != NULL ? split(&r, &e) : generate(&r, &e);
	rxr_flow_rss_fini(&r.rss);
	for (uint32_t q = 0; r.outs != NULL && q < r.nb_outs; q++)
		gen_out_abort(&r.outs[q]);
	free(r.outs);
	gen_sizes_free(&o.t.sizes);
	for (uint32_t i = 0; i < o.nb_paths; i++)
		free(o.paths[i]);
	free(o.paths);
	if (ret != 0) {
		fprintf(stderr, GEN_PROG ": %s\n", e.msg[0] ? e.msg : "failed");
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
