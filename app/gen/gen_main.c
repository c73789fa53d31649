/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxrefill-gen: writes one pcap file per RX queue, split the way a NIC's
 * RSS would split the traffic, for net_pcap replay (one file per queue);
 * or splits an existing Ethernet capture the same way. A JSON manifest
 * says exactly what each file holds, so tests can check counts.
 */

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "rxr_build_config.h"
#include "gen.h"
#include "rxr_version.h"

#define EXIT_USAGE 2

/* Options that only one of the two modes takes. */
#define GIVEN_GEN_ONLY	0x01
#define GIVEN_SPLIT_ONLY 0x02

enum {
	OPT_RETA = 256,
	OPT_KEY,
	OPT_FIELDS,
	OPT_VLAN,
	OPT_SEED,
	OPT_NO_BALANCE,
	OPT_SPLIT,
	OPT_ALLOW_TRUNC,
	OPT_MAX_STREAMS,
	OPT_QUIET,
};

static const struct option long_opts[] = {
	{ "prefix", required_argument, NULL, 'o' },
	{ "manifest", required_argument, NULL, 'm' },
	{ "all", no_argument, NULL, 'a' },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "queues", required_argument, NULL, 'q' },
	{ "reta-size", required_argument, NULL, OPT_RETA },
	{ "rss-key", required_argument, NULL, OPT_KEY },
	{ "rss-fields", required_argument, NULL, OPT_FIELDS },
	{ "streams", required_argument, NULL, 's' },
	{ "packets", required_argument, NULL, 'n' },
	{ "size", required_argument, NULL, 'l' },
	{ "proto", required_argument, NULL, 'p' },
	{ "ipv4", no_argument, NULL, '4' },
	{ "ipv6", no_argument, NULL, '6' },
	{ "vlan", required_argument, NULL, OPT_VLAN },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "no-balance", no_argument, NULL, OPT_NO_BALANCE },
	{ "split", required_argument, NULL, OPT_SPLIT },
	{ "allow-truncated", no_argument, NULL, OPT_ALLOW_TRUNC },
	{ "max-streams", required_argument, NULL, OPT_MAX_STREAMS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	const char *prefix;
	const char *manifest;
	bool all;
	bool quiet;
	uint32_t queues;
	uint32_t reta_size;
	const char *key_name;
	uint8_t key[RXR_FLOW_RSS_KEY_LEN];
	enum rxr_flow_rss_fields fields;
	struct gen_traffic_conf t;
	const char *size_text;
	const char *split;
	bool allow_truncated;
	uint32_t max_streams;
	unsigned int given;
	const char *gen_only_name;
	const char *split_only_name;
};

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: " GEN_PROG " [OPTIONS]                 generate traffic\n"
"       " GEN_PROG " --split CAPTURE [OPTIONS] split an Ethernet capture\n"
"\n"
"Writes PREFIX.q<N>.pcap, one capture per RX queue, holding what a NIC's RSS\n"
"would deliver to queue N, and a JSON manifest of what each file holds.\n"
"Frame sizes are bytes without the FCS, as in the captures.\n"
"\n"
"Output:\n"
"  -o, --prefix PREFIX    output file prefix, may include a directory\n"
"                         (default: rxrefill)\n"
"  -m, --manifest FILE    manifest path, '-' for standard output\n"
"                         (default: PREFIX.json)\n"
"  -a, --all              also write PREFIX.all.pcap: every queue's packets in\n"
"                         emission order, as a capture before RSS (generate)\n"
"      --quiet            no summary on standard output\n"
"\n"
"RSS (how the NIC splits; both modes):\n"
"  -q, --queues N         RX queues, 1..%u (default %u)\n"
"      --reta-size N      indirection table entries, a power of two >= queues\n"
"                         (default %u, filled round robin over the queues)\n"
"      --rss-key KEY      'mlx5' (mlx5's default key, the default), 'ms'\n"
"                         (Microsoft's verification key, Intel's default) or\n"
"                         40 bytes as 80 hex digits, ':' separators allowed\n"
"      --rss-fields F     'l3l4' (addresses, and TCP/UDP ports of\n"
"                         non-fragments; the default) or 'l3' (addresses)\n"
"\n"
"Traffic (generate):\n"
"  -s, --streams N        streams, 1..%u (default %u)\n"
"  -n, --packets N        packets per stream, 1..1000000000 (default %u)\n"
"  -l, --size SIZE        frame length: a number %u..%u (default 64, or\n"
"                         the headers' length when longer), 'imix'\n"
"                         (64x7,594x4,1518x1) or 'imix:SIZExWEIGHT,...'\n"
"                         (up to %u sizes, weights 1..%u)\n"
"  -p, --proto PROTO      'tcp' (default) or 'udp'\n"
"  -4, --ipv4             IPv4 (default)\n"
"  -6, --ipv6             IPv6\n"
"      --vlan ID[,ID]     one 802.1Q tag, or an 802.1ad outer tag and an\n"
"                         802.1Q inner tag; IDs 0..4094\n"
"      --seed N           picks addresses, ports, sequence numbers (default 1)\n"
"      --no-balance       take source ports in the seed's order: the split\n"
"                         is whatever the hash gives, even if uneven. By\n"
"                         default stream i gets a source port whose hash\n"
"                         lands on queue i %% queues\n"
"\n"
"Split (--split):\n"
"      --split CAPTURE    split CAPTURE (pcap or pcapng, Ethernet link type)\n"
"                         instead of generating; non-IP frames, and frames\n"
"                         whose headers are cut, go to RETA entry 0's queue\n"
"      --allow-truncated  a capture cut inside a record: split the records\n"
"                         before the cut instead of failing\n"
"      --max-streams N    streams listed in the manifest, 0..%u (default %u);\n"
"                         the rest are summed in streams_unlisted\n"
"\n"
"  -h, --help             this text\n"
"  -V, --version          version\n"
"\n"
"With real RSS the split is what the NIC's hash says: the same key, fields\n"
"and RETA give the same split. See doc/generator.md.\n",
		RXR_FLOW_QUEUES_MAX, GEN_QUEUES_DEFAULT,
		RXR_FLOW_RETA_SIZE_DEFAULT, GEN_STREAMS_MAX,
		GEN_STREAMS_DEFAULT, GEN_PACKETS_DEFAULT, GEN_SIZE_MIN,
		GEN_SIZE_MAX, GEN_IMIX_MAX_ENTRIES, GEN_IMIX_MAX_WEIGHT,
		GEN_STREAMS_MAX, GEN_LIST_STREAMS_DEFAULT);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, GEN_PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" GEN_PROG " --help' for the options.\n");
	exit(EXIT_USAGE);
}

/* A decimal (or 0x hexadecimal) number in min..max, or a usage error. */
static uint64_t
parse_num(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	unsigned long long v;
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16;
	if (!((s[0] >= '0' && s[0] <= '9')))
		usage_error("%s: '%s' is not a number in %llu..%llu", opt, s,
			(unsigned long long)min, (unsigned long long)max);
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno != 0 || *end != '\0' || end == s + (base == 16 ? 2 : 0) ||
			v < min || v > max)
		usage_error("%s: '%s' is not a number in %llu..%llu", opt, s,
			(unsigned long long)min, (unsigned long long)max);
	return v;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void
parse_key(struct opts *o, const char *s)
{
	const char *p = s;
	unsigned int n = 0;

	if (strcmp(s, "mlx5") == 0) {
		memcpy(o->key, rxr_flow_rss_key_mlx5, sizeof(o->key));
		o->key_name = "mlx5";
		return;
	}
	if (strcmp(s, "ms") == 0) {
		memcpy(o->key, rxr_flow_rss_key_ms, sizeof(o->key));
		o->key_name = "ms";
		return;
	}
	while (*p != '\0') {
		if (*p == ':') {
			p++;
			continue;
		}
		if (hexval(p[0]) < 0 || hexval(p[1]) < 0)
			usage_error("--rss-key: '%s' is not 'mlx5', 'ms' or %u bytes in hex",
				s, RXR_FLOW_RSS_KEY_LEN);
		if (n == RXR_FLOW_RSS_KEY_LEN)
			usage_error("--rss-key: '%s' is longer than %u bytes", s,
				RXR_FLOW_RSS_KEY_LEN);
		o->key[n++] = (uint8_t)(hexval(p[0]) << 4 | hexval(p[1]));
		p += 2;
	}
	if (n != RXR_FLOW_RSS_KEY_LEN)
		usage_error("--rss-key: '%s' has %u bytes, a key has %u", s, n,
			RXR_FLOW_RSS_KEY_LEN);
	o->key_name = "custom";
}

static void
parse_vlan(struct opts *o, const char *s)
{
	char *end;
	unsigned long v;
	const char *p = s;

	o->t.nb_vlan = 0;
	for (;;) {
		if (*p < '0' || *p > '9' || o->t.nb_vlan == 2)
			usage_error("--vlan: '%s' is not ID or OUTER,INNER with IDs 0..4094", s);
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno != 0 || v > 4094 || (*end != ',' && *end != '\0'))
			usage_error("--vlan: '%s' is not ID or OUTER,INNER with IDs 0..4094", s);
		o->t.vlan[o->t.nb_vlan++] = (uint16_t)v;
		if (*end == '\0')
			break;
		p = end + 1;
	}
}

static void
parse_opts(struct opts *o, int argc, char **argv)
{
	struct gen_err e = { "" };
	int c;

	memset(o, 0, sizeof(*o));
	o->prefix = "rxrefill";
	o->queues = GEN_QUEUES_DEFAULT;
	o->reta_size = RXR_FLOW_RETA_SIZE_DEFAULT;
	memcpy(o->key, rxr_flow_rss_key_mlx5, sizeof(o->key));
	o->key_name = "mlx5";
	o->fields = RXR_FLOW_RSS_L3L4;
	o->t.nb_streams = GEN_STREAMS_DEFAULT;
	o->t.packets = GEN_PACKETS_DEFAULT;
	o->t.proto = IPPROTO_TCP;
	o->t.ipver = 4;
	o->t.seed = 1;
	o->t.balance = true;
	o->max_streams = GEN_LIST_STREAMS_DEFAULT;

	while ((c = getopt_long(argc, argv, "o:m:aq:s:n:l:p:46hV", long_opts,
			NULL)) != -1) {
		const char *gen_only = NULL, *split_only = NULL;

		switch (c) {
		case 'o':
			if (optarg[0] == '\0')
				usage_error("--prefix: empty");
			o->prefix = optarg;
			break;
		case 'm':
			if (optarg[0] == '\0')
				usage_error("--manifest: empty");
			o->manifest = optarg;
			break;
		case 'a':
			o->all = true;
			gen_only = "--all";
			break;
		case OPT_QUIET:
			o->quiet = true;
			break;
		case 'q':
			o->queues = parse_num("--queues", optarg, 1,
				RXR_FLOW_QUEUES_MAX);
			break;
		case OPT_RETA:
			o->reta_size = parse_num("--reta-size", optarg, 1,
				RXR_FLOW_RETA_SIZE_MAX);
			if (o->reta_size & (o->reta_size - 1))
				usage_error("--reta-size: %u is not a power of two",
					o->reta_size);
			break;
		case OPT_KEY:
			parse_key(o, optarg);
			break;
		case OPT_FIELDS:
			if (strcmp(optarg, "l3l4") == 0)
				o->fields = RXR_FLOW_RSS_L3L4;
			else if (strcmp(optarg, "l3") == 0)
				o->fields = RXR_FLOW_RSS_L3;
			else
				usage_error("--rss-fields: '%s' is not 'l3l4' or 'l3'",
					optarg);
			break;
		case 's':
			o->t.nb_streams = parse_num("--streams", optarg, 1,
				GEN_STREAMS_MAX);
			gen_only = "--streams";
			break;
		case 'n':
			o->t.packets = parse_num("--packets", optarg, 1,
				1000000000);
			gen_only = "--packets";
			break;
		case 'l':
			o->size_text = optarg;
			gen_only = "--size";
			break;
		case 'p':
			if (strcmp(optarg, "tcp") == 0)
				o->t.proto = IPPROTO_TCP;
			else if (strcmp(optarg, "udp") == 0)
				o->t.proto = IPPROTO_UDP;
			else
				usage_error("--proto: '%s' is not 'tcp' or 'udp'",
					optarg);
			gen_only = "--proto";
			break;
		case '4':
			o->t.ipver = 4;
			gen_only = "--ipv4";
			break;
		case '6':
			o->t.ipver = 6;
			gen_only = "--ipv6";
			break;
		case OPT_VLAN:
			parse_vlan(o, optarg);
			gen_only = "--vlan";
			break;
		case OPT_SEED:
			o->t.seed = parse_num("--seed", optarg, 0, UINT64_MAX);
			gen_only = "--seed";
			break;
		case OPT_NO_BALANCE:
			o->t.balance = false;
			gen_only = "--no-balance";
			break;
		case OPT_SPLIT:
			if (optarg[0] == '\0')
				usage_error("--split: empty file name");
			o->split = optarg;
			break;
		case OPT_ALLOW_TRUNC:
			o->allow_truncated = true;
			split_only = "--allow-truncated";
			break;
		case OPT_MAX_STREAMS:
			o->max_streams = parse_num("--max-streams", optarg, 0,
				GEN_STREAMS_MAX);
			split_only = "--max-streams";
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_SUCCESS);
		case 'V':
			rxr_version_print(stdout, GEN_PROG, NULL);
			exit(EXIT_SUCCESS);
		default:
			/* getopt_long() already said what was wrong. */
			fprintf(stderr, "Try '" GEN_PROG " --help' for the options.\n");
			exit(EXIT_USAGE);
		}
		if (gen_only != NULL && o->gen_only_name == NULL)
			o->gen_only_name = gen_only;
		if (split_only != NULL && o->split_only_name == NULL)
			o->split_only_name = split_only;
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);

	if (o->split != NULL && o->gen_only_name != NULL)
		usage_error("%s is for generating; it does not apply to --split",
			o->gen_only_name);
	if (o->split == NULL && o->split_only_name != NULL)
		usage_error("%s applies to --split only", o->split_only_name);
	if (o->queues > o->reta_size)
		usage_error("--queues %u: more queues than --reta-size entries (%u)",
			o->queues, o->reta_size);

	if (o->split == NULL) {
		uint32_t hdr = gen_hdr_len(&o->t), i;
		static char dflt[16];

		/* 64 B unless the headers need more (IPv6/TCP needs 74). */
		if (o->size_text == NULL) {
			snprintf(dflt, sizeof(dflt), "%u", hdr > 64 ? hdr : 64);
			o->size_text = dflt;
		}

		if (gen_sizes_parse(&o->t.sizes, o->size_text, &e) != 0)
			usage_error("%s", e.msg);
		for (i = 0; i < o->t.sizes.nb_entries; i++)
			if (o->t.sizes.size[i] < hdr)
				usage_error("--size '%s': a %u-byte frame cannot hold the %u bytes of Ethernet%s + IPv%d + %s headers",
					o->size_text, o->t.sizes.size[i], hdr,
					o->t.nb_vlan == 2 ? " + 2 VLAN tags" :
					o->t.nb_vlan == 1 ? " + VLAN tag" : "",
					o->t.ipver,
					o->t.proto == IPPROTO_TCP ? "TCP" : "UDP");
	}
}

/* ---- manifest ---- */

static json_t *
jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static json_t *
manifest_base(const struct opts *o, const char *mode)
{
	char hex[2 * RXR_FLOW_RSS_KEY_LEN + 1];
	json_t *doc = json_object(), *rss = json_object();
	unsigned int i;

	for (i = 0; i < RXR_FLOW_RSS_KEY_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", o->key[i]);
	json_object_set_new(doc, "schema", json_string(GEN_MANIFEST_SCHEMA));
	json_object_set_new(doc, "generator", json_string(rxr_version()));
	json_object_set_new(doc, "mode", json_string(mode));
	json_object_set_new(rss, "key", json_string(o->key_name));
	json_object_set_new(rss, "key_hex", json_string(hex));
	json_object_set_new(rss, "fields", json_string(
		o->fields == RXR_FLOW_RSS_L3 ? "l3" : "l3l4"));
	json_object_set_new(rss, "reta_size", jint(o->reta_size));
	json_object_set_new(rss, "reta", json_string("round-robin"));
	json_object_set_new(rss, "queues", jint(o->queues));
	json_object_set_new(doc, "rss", rss);
	return doc;
}

static json_t *
file_json(const struct gen_out *out, int queue)
{
	json_t *j = json_object();

	if (queue >= 0)
		json_object_set_new(j, "queue", jint((uint64_t)queue));
	json_object_set_new(j, "file", json_string(out->path));
	json_object_set_new(j, "packets", jint(out->packets));
	json_object_set_new(j, "bytes", jint(out->bytes));
	json_object_set_new(j, "captured_bytes", jint(out->captured));
	if (queue >= 0)
		json_object_set_new(j, "streams", jint(out->streams));
	return j;
}

static json_t *
stream_json(uint64_t id, const struct rxr_flow_key *k, uint32_t hash,
		uint16_t queue, uint64_t packets, uint64_t bytes)
{
	char a[RXR_FLOW_ADDR_STRLEN], h[16];
	const char *pn = rxr_flow_proto_name(k->proto);
	json_t *j = json_object();

	snprintf(h, sizeof(h), "0x%08x", hash);
	json_object_set_new(j, "id", jint(id));
	json_object_set_new(j, "src", json_string(rxr_flow_addr_str(k, false, a, sizeof(a))));
	json_object_set_new(j, "dst", json_string(rxr_flow_addr_str(k, true, a, sizeof(a))));
	json_object_set_new(j, "sport", jint(k->sport));
	json_object_set_new(j, "dport", jint(k->dport));
	json_object_set_new(j, "proto", jint(k->proto));
	if (pn != NULL)
		json_object_set_new(j, "proto_name", json_string(pn));
	if (k->flags & RXR_FLOW_F_FRAG)
		json_object_set_new(j, "fragments", json_true());
	json_object_set_new(j, "hash", json_string(h));
	json_object_set_new(j, "queue", jint(queue));
	json_object_set_new(j, "packets", jint(packets));
	json_object_set_new(j, "bytes", jint(bytes));
	return j;
}

static json_t *
queues_json(const struct gen_out *outs, uint32_t n)
{
	json_t *a = json_array();
	uint32_t q;

	for (q = 0; q < n; q++)
		json_array_append_new(a, file_json(&outs[q], (int)q));
	return a;
}

/* ---- running ---- */

struct run {
	struct opts *o;
	struct gen_out *outs;	/* queues, then the --all file */
	uint32_t nb_outs;
	char *manifest_path;
};

static int
run_open(struct run *r, int linktype, int snaplen, unsigned int precision,
		struct gen_err *e)
{
	uint32_t q;
	char *path;

	r->nb_outs = r->o->queues + (r->o->all ? 1 : 0);
	r->outs = calloc(r->nb_outs, sizeof(*r->outs));
	if (r->outs == NULL) {
		gen_err_set(e, "out of memory");
		return -1;
	}
	for (q = 0; q < r->nb_outs; q++) {
		if (q < r->o->queues)
			path = gen_queue_path(r->o->prefix, q);
		else if (asprintf(&path, "%s.all.pcap", r->o->prefix) < 0)
			path = NULL;
		if (path == NULL) {
			gen_err_set(e, "out of memory");
			return -1;
		}
		if (gen_out_open(&r->outs[q], path, linktype, snaplen, precision,
				e) != 0) {
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

/* Finish every file, then rename them all, then write the manifest. */
static int
run_commit(struct run *r, const json_t *doc, struct gen_err *e)
{
	uint32_t q;

	for (q = 0; q < r->nb_outs; q++)
		if (gen_out_finish(&r->outs[q], e) != 0)
			return -1;
	for (q = 0; q < r->nb_outs; q++)
		if (gen_out_commit(&r->outs[q], e) != 0)
			return -1;
	return gen_json_write(doc, r->manifest_path, e);
}

static void
run_cleanup(struct run *r)
{
	uint32_t q;

	for (q = 0; r->outs != NULL && q < r->nb_outs; q++)
		gen_out_abort(&r->outs[q]);
	free(r->outs);
	r->outs = NULL;
}

static void
summary(const struct run *r, const char *what)
{
	uint32_t q;

	if (r->o->quiet || strcmp(r->manifest_path, "-") == 0)
		return;
	printf("%s: %s, %u queues (RSS key %s, %s, RETA %u round robin)\n",
		GEN_PROG, what, r->o->queues, r->o->key_name,
		r->o->fields == RXR_FLOW_RSS_L3 ? "l3" : "l3l4", r->o->reta_size);
	for (q = 0; q < r->nb_outs; q++)
		printf("  %-28s %6u streams %12llu packets %15llu bytes\n",
			r->outs[q].path, r->outs[q].streams,
			(unsigned long long)r->outs[q].packets,
			(unsigned long long)r->outs[q].bytes);
	printf("  manifest: %s\n", r->manifest_path);
}

static int
generate(struct run *r, struct gen_err *e)
{
	struct opts *o = r->o;
	struct gen_traffic_conf *t = &o->t;
	struct rxr_flow_rss rss;
	struct gen_stream *st = NULL;
	struct pcap_pkthdr h;
	uint8_t *buf = NULL;
	json_t *doc = NULL, *traffic, *vlan, *streams;
	uint64_t k, g = 0, total_bytes = 0;
	uint32_t s, unbalanced, q;
	char what[512];
	int ret = -1;

	if (rxr_flow_rss_init(&rss, o->key, o->fields, o->reta_size,
			(uint16_t)o->queues) != 0) {
		gen_err_set(e, "cannot set up RSS");
		return -1;
	}
	st = calloc(t->nb_streams, sizeof(*st));
	buf = malloc(GEN_SIZE_MAX);
	if (st == NULL || buf == NULL) {
		gen_err_set(e, "out of memory");
		goto out;
	}
	unbalanced = gen_streams_setup(st, t, &rss);
	if (unbalanced != 0)
		fprintf(stderr, GEN_PROG ": warning: %u streams could not be placed on their round-robin queue; they go where their hash says\n",
			unbalanced);
	if (run_open(r, DLT_EN10MB, GEN_SNAPLEN, PCAP_TSTAMP_PRECISION_MICRO,
			e) != 0)
		goto out;
	for (s = 0; s < t->nb_streams; s++)
		r->outs[st[s].queue].streams++;
	if (o->all)
		r->outs[o->queues].streams = t->nb_streams;
	for (q = 0; q < o->queues && t->nb_streams >= o->queues; q++)
		if (r->outs[q].streams == 0)
			fprintf(stderr, GEN_PROG ": warning: queue %u gets no stream with this seed and RSS configuration\n",
				q);

	/* Round robin over the streams, as interleaved flows are captured. */
	for (k = 0; k < t->packets; k++) {
		for (s = 0; s < t->nb_streams; s++, g++) {
			uint32_t len = t->sizes.cycle[(k + s) % t->sizes.n];

			gen_build_frame(buf, len, &st[s], s, k, t);
			/* One microsecond apart, from a fixed start: reproducible. */
			h.ts.tv_sec = 1700000000 + (time_t)(g / 1000000);
			h.ts.tv_usec = (suseconds_t)(g % 1000000);
			h.caplen = h.len = len;
			if (gen_out_write(&r->outs[st[s].queue], &h, buf, e) != 0)
				goto out;
			if (o->all && gen_out_write(&r->outs[o->queues], &h, buf,
					e) != 0)
				goto out;
			st[s].packets++;
			st[s].bytes += len;
			total_bytes += len;
		}
	}

	doc = manifest_base(o, "generate");
	json_object_set_new(doc, "seed", jint(t->seed));
	traffic = json_object();
	json_object_set_new(traffic, "ip", jint((uint64_t)t->ipver));
	json_object_set_new(traffic, "proto", json_string(
		t->proto == IPPROTO_TCP ? "tcp" : "udp"));
	vlan = json_array();
	for (s = 0; s < t->nb_vlan; s++)
		json_array_append_new(vlan, jint(t->vlan[s]));
	json_object_set_new(traffic, "vlan", vlan);
	json_object_set_new(traffic, "size", json_string(t->sizes.spec));
	json_object_set_new(traffic, "streams", jint(t->nb_streams));
	json_object_set_new(traffic, "packets_per_stream", jint(t->packets));
	json_object_set_new(traffic, "balance", json_boolean(t->balance));
	json_object_set_new(doc, "traffic", traffic);
	json_object_set_new(doc, "total", json_pack("{s:I,s:I}",
		"packets", (json_int_t)g, "bytes", (json_int_t)total_bytes));
	json_object_set_new(doc, "queues", queues_json(r->outs, o->queues));
	if (o->all)
		json_object_set_new(doc, "all", file_json(&r->outs[o->queues], -1));
	streams = json_array();
	for (s = 0; s < t->nb_streams; s++)
		json_array_append_new(streams, stream_json(s, &st[s].key,
			st[s].hash, st[s].queue, st[s].packets, st[s].bytes));
	json_object_set_new(doc, "streams", streams);

	if (run_commit(r, doc, e) != 0)
		goto out;
	snprintf(what, sizeof(what), "%u %s/ipv%d streams x %llu packets of %s B",
		t->nb_streams, t->proto == IPPROTO_TCP ? "tcp" : "udp",
		t->ipver, (unsigned long long)t->packets, t->sizes.spec);
	summary(r, what);
	ret = 0;
out:
	json_decref(doc);
	free(buf);
	free(st);
	rxr_flow_rss_fini(&rss);
	return ret;
}

static int
split_sink(void *ctx, uint16_t queue, const struct pcap_pkthdr *h,
		const uint8_t *data, struct gen_err *e)
{
	struct run *r = ctx;

	return gen_out_write(&r->outs[queue], h, data, e);
}

static int
split(struct run *r, struct gen_err *e)
{
	struct opts *o = r->o;
	struct rxr_flow_rss rss;
	struct gen_split_stats st;
	struct gen_flowtab ft;
	unsigned int precision;
	json_t *doc = NULL, *input, *streams, *unlisted;
	uint64_t un_streams = 0, un_packets = 0, un_bytes = 0, total_bytes = 0;
	uint32_t i;
	pcap_t *in = NULL;
	char what[512];
	FILE *f;
	int ret = -1;

	memset(&st, 0, sizeof(st));
	if (rxr_flow_rss_init(&rss, o->key, o->fields, o->reta_size,
			(uint16_t)o->queues) != 0) {
		gen_err_set(e, "cannot set up RSS");
		return -1;
	}
	if (gen_flowtab_init(&ft, GEN_FLOWS_MAX) != 0) {
		gen_err_set(e, "out of memory");
		rxr_flow_rss_fini(&rss);
		return -1;
	}
	f = fopen(o->split, "rb");
	if (f == NULL) {
		gen_err_set(e, "%s: %s", o->split, strerror(errno));
		goto out;
	}
	in = gen_capture_open(f, o->split, &precision, e);
	if (in == NULL)
		goto out;
	if (run_open(r, pcap_datalink(in), pcap_snapshot(in), precision, e) != 0)
		goto out;
	if (gen_split(in, o->split, &rss, o->allow_truncated, split_sink, r,
			&st, &ft, e) != 0)
		goto out;
	if (st.truncated)
		fprintf(stderr, GEN_PROG ": warning: %s: capture ends early (%s); split the records before\n",
			o->split, st.truncated_msg);
	for (i = 0; i < ft.nb_flows; i++)
		r->outs[ft.flows[i].queue].streams++;

	doc = manifest_base(o, "split");
	input = json_object();
	json_object_set_new(input, "file", json_string(o->split));
	json_object_set_new(input, "linktype", json_string("EN10MB"));
	json_object_set_new(input, "snaplen", jint((uint64_t)st.snaplen));
	json_object_set_new(input, "tstamp_precision", json_string(
		precision == PCAP_TSTAMP_PRECISION_NANO ? "nano" : "micro"));
	json_object_set_new(input, "records", jint(st.records));
	json_object_set_new(input, "written", jint(st.written));
	json_object_set_new(input, "ip", jint(st.ip));
	json_object_set_new(input, "non_ip", json_pack("{s:I,s:I}",
		"packets", (json_int_t)st.non_ip, "bytes", (json_int_t)st.non_ip_bytes));
	json_object_set_new(input, "unparsed", json_pack("{s:I,s:I}",
		"packets", (json_int_t)st.unparsed, "bytes", (json_int_t)st.unparsed_bytes));
	json_object_set_new(input, "snapped", jint(st.snapped));
	json_object_set_new(input, "skipped_empty", jint(st.skipped_empty));
	json_object_set_new(input, "skipped_invalid", jint(st.skipped_invalid));
	json_object_set_new(input, "truncated", json_boolean(st.truncated));
	if (st.truncated)
		json_object_set_new(input, "truncated_at", json_string(st.truncated_msg));
	json_object_set_new(doc, "input", input);
	for (i = 0; i < o->queues; i++)
		total_bytes += r->outs[i].bytes;
	json_object_set_new(doc, "total", json_pack("{s:I,s:I}",
		"packets", (json_int_t)st.written, "bytes", (json_int_t)total_bytes));
	json_object_set_new(doc, "queues", queues_json(r->outs, o->queues));
	streams = json_array();
	for (i = 0; i < ft.nb_flows; i++) {
		const struct gen_flow *fl = &ft.flows[i];

		if (i < o->max_streams) {
			json_array_append_new(streams, stream_json(i, &fl->key,
				fl->hash, fl->queue, fl->packets, fl->bytes));
		} else {
			un_streams++;
			un_packets += fl->packets;
			un_bytes += fl->bytes;
		}
	}
	json_object_set_new(doc, "streams", streams);
	unlisted = json_pack("{s:I,s:I,s:I,s:I,s:I}",
		"streams", (json_int_t)un_streams,
		"packets", (json_int_t)un_packets,
		"bytes", (json_int_t)un_bytes,
		"untracked_packets", (json_int_t)ft.untracked_packets,
		"untracked_bytes", (json_int_t)ft.untracked_bytes);
	json_object_set_new(doc, "streams_unlisted", unlisted);

	if (run_commit(r, doc, e) != 0)
		goto out;
	snprintf(what, sizeof(what), "%s: %llu records, %u streams, %llu non-IP, %llu unparsed",
		o->split, (unsigned long long)st.records, ft.nb_flows,
		(unsigned long long)st.non_ip, (unsigned long long)st.unparsed);
	summary(r, what);
	ret = 0;
out:
	json_decref(doc);
	if (in != NULL)
		pcap_close(in);
	gen_flowtab_free(&ft);
	rxr_flow_rss_fini(&rss);
	return ret;
}

int
main(int argc, char **argv)
{
	struct opts o;
	struct run r = { .o = &o };
	struct gen_err e = { "" };
	char *mpath = NULL;
	int ret;

	parse_opts(&o, argc, argv);
	if (o.manifest != NULL) {
		r.manifest_path = (char *)(uintptr_t)o.manifest;
	} else {
		if (asprintf(&mpath, "%s.json", o.prefix) < 0)
			return EXIT_FAILURE;
		r.manifest_path = mpath;
	}
	ret = o.split != NULL ? split(&r, &e) : generate(&r, &e);
	run_cleanup(&r);
	gen_sizes_free(&o.t.sizes);
	free(mpath);
	if (ret != 0) {
		fprintf(stderr, GEN_PROG ": %s\n", e.msg[0] ? e.msg : "failed");
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
