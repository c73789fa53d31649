/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxrefill-gen's options: parsing, their checks against each other, and
 * the paths they name (an input never blocks, an output never replaces
 * what is not a regular file, nor the input).
 */

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "rxr_build_config.h"
#include "rxr_path.h"
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
"Numbers are decimal. No output may be a device, a FIFO, a directory or\n"
"the capture given to --split; that capture must be a regular file.\n"
"\n"
"  -h, --help             this text\n"
"  -V, --version          version\n"
"\n"
"With real RSS the split is what the NIC's hash says: the same key, fields\n"
"and RETA give the same split. See doc/generator.md.\n"
"\n"
"Exit status: 0 on success; 1 when a capture cannot be read or split, or an\n"
"output cannot be written (the message names the file); 2 on bad usage\n"
"(an unknown option or a bad value).\n",
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

/* A decimal number in min..max ("010" is ten, "0x10" an error), or a usage error. */
static uint64_t
parse_num(const char *opt, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (rxr_parse_decimal(s, min, max, &v) != 0)
		usage_error("%s: '%s' is not a decimal number in %llu..%llu", opt,
			s, (unsigned long long)min, (unsigned long long)max);
	return v;
}

/*
 * Inputs and outputs, before anything is opened: the capture to split is
 * a regular file (a FIFO would block, a directory holds nothing), and no
 * output replaces a device, a FIFO, a directory or that capture.
 */
static void
check_paths(const struct gen_opts *o)
{
	const char *inputs[1] = { o->split };
	unsigned int nb_in = o->split != NULL ? 1 : 0;
	char err[PATH_MAX + 256], *path, *mpath = NULL;

	if (o->split != NULL &&
			rxr_path_check_input("--split", o->split, err, sizeof(err)) != 0)
		usage_error("%s", err);
	if (rxr_path_is_stdout(o->prefix))
		usage_error("--prefix -: the prefix names %u capture files; "
			"standard output ('-') is for --manifest", o->queues +
			(o->all ? 1 : 0));
	for (uint32_t q = 0; q <= o->queues; q++) {
		if (q == o->queues && !o->all)
			break;
		if (q < o->queues)
			path = gen_queue_path(o->prefix, q);
		else if (asprintf(&path, "%s.all.pcap", o->prefix) < 0)
			path = NULL;
		if (path == NULL)
			usage_error("out of memory");
		if (rxr_path_check_output("--prefix", path, inputs, nb_in, 0,
				err, sizeof(err)) != 0) {
			free(path);
			usage_error("%s", err);
		}
		free(path);
	}
	if (o->manifest == NULL && asprintf(&mpath, "%s.json", o->prefix) < 0)
		usage_error("out of memory");
	if (rxr_path_check_output("--manifest", o->manifest != NULL ?
			o->manifest : mpath, inputs, nb_in, 0, err,
			sizeof(err)) != 0) {
		free(mpath);
		usage_error("%s", err);
	}
	free(mpath);
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
parse_key(struct gen_opts *o, const char *s)
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
parse_vlan(struct gen_opts *o, const char *s)
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

void
gen_opts_parse(struct gen_opts *o, int argc, char **argv)
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
	check_paths(o);

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
