/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxrefill-gen's options: parsing, their checks against each other, and
 * the paths they name (an input never blocks, an output never replaces
 * what is not a regular file, nor the input).
 */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>

#include <rte_common.h>

#include "rxr_opt.h"
#include "rxr_path.h"
#include "gen.h"
#include "rxr_version.h"

#define EXIT_USAGE 2

/* rxr_opt::flags: options that only one of the two modes takes. */
#define GEN_ONLY	0x01
#define SPLIT_ONLY	0x02

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

/* The option that names o->paths[i] in a message. */
static const char *
path_opt(const struct gen_opts *o, unsigned int i)
{
	return i < o->queues ? "--prefix" : i + 1 < o->nb_paths ? "--all" :
		"--manifest";
}

/*
 * Inputs and outputs, before anything is opened: the capture to split is
 * a regular file (a FIFO would block, a directory holds nothing), no
 * output replaces a device, a FIFO, a directory or that capture, and no
 * two outputs are one file (a manifest named like a capture would replace
 * it, and the run would still exit 0). o->paths: PREFIX.q<N>.pcap,
 * PREFIX.all.pcap with --all, then the manifest.
 */
static void
check_paths(struct gen_opts *o)
{
	const char *inputs[1] = { o->split }, *name = strrchr(o->prefix, '/');
	unsigned int nb_in = o->split != NULL ? 1 : 0, nb_out, i, j;
	char err[PATH_MAX + 256], shown[2][RXR_PATH_SHOWN_LEN];

	/* A capture that cannot be read: status 1, as --help says. */
	if (o->split != NULL &&
			rxr_path_check_input("--split", o->split, err, sizeof(err)) != 0) {
		fprintf(stderr, GEN_PROG ": %s\n", err);
		exit(EXIT_FAILURE);
	}
	if (rxr_path_is_stdout(o->prefix))
		usage_error("--prefix -: the prefix names %u capture files; "
			"standard output ('-') is for --manifest", o->queues +
			(o->all ? 1 : 0));
	/* "g/" would name the hidden files g/.q0.pcap and g/.json. */
	name = name != NULL ? name + 1 : o->prefix;
	if (strcmp(name, "") == 0 || strcmp(name, ".") == 0 ||
			strcmp(name, "..") == 0)
		usage_error("--prefix %s: names a directory, not a prefix "
			"(give DIR/NAME)", rxr_path_shown(o->prefix, shown[0],
				sizeof(shown[0])));
	nb_out = o->nb_paths = o->queues + (o->all ? 1 : 0) + 1;
	o->paths = calloc(o->nb_paths, sizeof(*o->paths));
	for (i = 0; o->paths != NULL && i < o->nb_paths; i++)
		if ((i < o->queues ? asprintf(&o->paths[i], "%s.q%u.pcap",
				o->prefix, i) : i + 1 < o->nb_paths ?
				asprintf(&o->paths[i], "%s.all.pcap", o->prefix) :
				o->manifest != NULL ?
				asprintf(&o->paths[i], "%s", o->manifest) :
				asprintf(&o->paths[i], "%s.json", o->prefix)) < 0)
			usage_error("out of memory");
	if (o->paths == NULL)
		usage_error("out of memory");
	/* The files the prefix names are reported as --prefix's. */
	for (i = 0; i < nb_out; i++)
		if (rxr_path_check_output(i + 1 < nb_out ? "--prefix" :
				"--manifest", o->paths[i], inputs, nb_in, 0,
				err, sizeof(err)) != 0)
			usage_error("%s", err);
	/* Standard output is no file. */
	if (rxr_path_is_stdout(o->paths[nb_out - 1]))
		nb_out--;
	for (j = 1; j < nb_out; j++)
		for (i = 0; i < j; i++)
			if (rxr_path_same(o->paths[i], o->paths[j]))
				usage_error("%s %s: is also the %s output %s: one "
					"run cannot write both", path_opt(o, j),
					rxr_path_shown(o->paths[j], shown[0],
						sizeof(shown[0])), path_opt(o, i),
					rxr_path_shown(o->paths[i], shown[1],
						sizeof(shown[1])));
}

static int
set_key(void *c, const char *s, char *err, size_t errlen)
{
	struct gen_opts *o = c;
	unsigned int n = 0, byte;
	const char *p;

	if (strcmp(s, "mlx5") == 0 || strcmp(s, "ms") == 0) {
		memcpy(o->key, s[1] == 'l' ? rxr_flow_rss_key_mlx5 :
			rxr_flow_rss_key_ms, sizeof(o->key));
		o->key_name = s[1] == 'l' ? "mlx5" : "ms";
		return 0;
	}
	for (p = s; *p != '\0'; p += *p == ':' ? 1 : 2) {
		if (*p == ':')
			continue;
		if (!isxdigit((unsigned char)p[0]) ||
				!isxdigit((unsigned char)p[1])) {
			snprintf(err, errlen, "--rss-key: '%s' is not 'mlx5', 'ms' "
				"or %u bytes in hex", s, RXR_FLOW_RSS_KEY_LEN);
			return -1;
		}
		if (n == RXR_FLOW_RSS_KEY_LEN) {
			snprintf(err, errlen, "--rss-key: '%s' is longer than %u "
				"bytes", s, RXR_FLOW_RSS_KEY_LEN);
			return -1;
		}
		sscanf(p, "%2x", &byte);
		o->key[n++] = (uint8_t)byte;
	}
	if (n != RXR_FLOW_RSS_KEY_LEN) {
		snprintf(err, errlen, "--rss-key: '%s' has %u bytes, a key has %u",
			s, n, RXR_FLOW_RSS_KEY_LEN);
		return -1;
	}
	o->key_name = "custom";
	return 0;
}

static int
set_vlan(void *c, const char *s, char *err, size_t errlen)
{
	struct gen_opts *o = c;
	char *end;
	unsigned long v;
	const char *p = s;

	o->t.nb_vlan = 0;
	for (;;) {
		errno = 0;
		v = *p >= '0' && *p <= '9' && o->t.nb_vlan < 2 ?
			strtoul(p, &end, 10) : ULONG_MAX;
		if (errno != 0 || v > 4094 || (*end != ',' && *end != '\0')) {
			snprintf(err, errlen, "--vlan: '%s' is not ID or "
				"OUTER,INNER with IDs 0..4094", s);
			return -1;
		}
		o->t.vlan[o->t.nb_vlan++] = (uint16_t)v;
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
}

/* --reta-size: a power of two. */
static int
check_reta(void *c, const char *arg, char *err, size_t errlen)
{
	uint32_t v = ((struct gen_opts *)c)->reta_size;

	if ((v & (v - 1)) == 0)
		return 0;
	snprintf(err, errlen, "--reta-size: %u is not a power of two", v);
	return -1;
}

static int
set_proto(void *c, const char *arg, char *err, size_t errlen)
{
	if (strcmp(arg, "tcp") != 0 && strcmp(arg, "udp") != 0) {
		snprintf(err, errlen, "--proto: '%s' is not 'tcp' or 'udp'",
			arg);
		return -1;
	}
	((struct gen_opts *)c)->t.proto = arg[0] == 't' ? IPPROTO_TCP :
		IPPROTO_UDP;
	return 0;
}

static int set_help(void *c, const char *arg, char *err, size_t errlen);

static int
set_version(void *c, const char *arg, char *err, size_t errlen)
{
	rxr_version_print(stdout, GEN_PROG, NULL);
	exit(EXIT_SUCCESS);
}

/* Typed options: a field of struct gen_opts. */
#define OPT_FLAG(m, v) RXR_OPT_FLAG_OF(struct gen_opts, m, v)
#define OPT_UINT(m, lo, hi) RXR_OPT_UINT_OF(struct gen_opts, m, lo, hi)
#define OPT_PATH(m) RXR_OPT_PATH_OF(struct gen_opts, m)

/* --rss-fields, by enum rxr_flow_rss_fields. */
static const char * const fields_names[] = {
	[RXR_FLOW_RSS_L3L4] = "l3l4", [RXR_FLOW_RSS_L3] = "l3", NULL,
};

#define S_OUTPUT "Output"
#define S_RSS "RSS (how the NIC splits; both modes)"
#define S_TRAFFIC "Traffic (generate)"
#define S_SPLIT "Split (--split)"
#define S_OTHER "Other"

static const struct rxr_opt opt_list[] = {
	{ "prefix", 'o', "PREFIX", "rxrefill", "file", S_OUTPUT,
		"output file prefix, may include a directory",
		OPT_PATH(prefix) },
	{ "manifest", 'm', "FILE", NULL, "file:json", S_OUTPUT,
		"manifest path, '-' for standard output (default: "
		"PREFIX.json)", OPT_PATH(manifest) },
	{ "all", 'a', NULL, NULL, NULL, S_OUTPUT,
		"also write PREFIX.all.pcap: every queue's packets in emission "
		"order, as a capture before RSS (generate)", OPT_FLAG(all, true),
		.flags = GEN_ONLY },
	{ "quiet", 0, NULL, NULL, NULL, S_OUTPUT,
		"no summary on standard output", OPT_FLAG(quiet, true) },
	{ "queues", 'q', "N", "2", NULL, S_RSS,
		"RX queues, 1.." RTE_STR(RXR_FLOW_QUEUES_MAX),
		OPT_UINT(queues, 1, RXR_FLOW_QUEUES_MAX) },
	{ "reta-size", 0, "N", RTE_STR(RXR_FLOW_RETA_SIZE_DEFAULT), NULL, S_RSS,
		"indirection table entries, a power of two >= queues, filled "
		"round robin over the queues",
		OPT_UINT(reta_size, 1, RXR_FLOW_RETA_SIZE_MAX),
		.set = check_reta },
	{ "rss-key", 0, "KEY", "mlx5", "words:mlx5,ms", S_RSS,
		"'mlx5' (mlx5's default key), 'ms' (Microsoft's verification "
		"key, Intel's default) or 40 bytes as 80 hex digits, ':' "
		"separators allowed", set_key, 0 },
	{ "rss-fields", 0, "F", "l3l4", NULL, S_RSS,
		"'l3l4' (addresses, and TCP/UDP ports of non-fragments) or "
		"'l3' (addresses)",
		RXR_OPT_ENUM_OF(struct gen_opts, fields, fields_names) },
	{ "streams", 's', "N", "8", NULL, S_TRAFFIC,
		"streams, 1.." RTE_STR(GEN_STREAMS_MAX),
		OPT_UINT(t.nb_streams, 1, GEN_STREAMS_MAX), .flags = GEN_ONLY },
	{ "packets", 'n', "N", "1000", NULL, S_TRAFFIC,
		"packets per stream, 1.." RTE_STR(GEN_PACKETS_MAX),
		OPT_UINT(t.packets, 1, GEN_PACKETS_MAX), .flags = GEN_ONLY },
	{ "size", 'l', "SIZE", NULL, "words:64,128,256,512,1024,1500,imix",
		S_TRAFFIC, "frame length: a number " RTE_STR(GEN_SIZE_MIN) ".."
		RTE_STR(GEN_SIZE_MAX) " (default 64, or the headers' length when "
		"longer), 'imix' (64x7,594x4,1518x1) or 'imix:SIZExWEIGHT,...' "
		"(up to " RTE_STR(GEN_IMIX_MAX_ENTRIES) " sizes, weights 1.."
		RTE_STR(GEN_IMIX_MAX_WEIGHT) ")",
		RXR_OPT_STR_OF(struct gen_opts, size_text), .flags = GEN_ONLY },
	{ "proto", 'p', "PROTO", "tcp", "words:tcp,udp", S_TRAFFIC,
		"'tcp' or 'udp'", set_proto, GEN_ONLY },
	{ "ipv4", '4', NULL, NULL, NULL, S_TRAFFIC, "IPv4 (the default)",
		OPT_FLAG(t.ipver, 4), .flags = GEN_ONLY },
	{ "ipv6", '6', NULL, NULL, NULL, S_TRAFFIC, "IPv6",
		OPT_FLAG(t.ipver, 6), .flags = GEN_ONLY },
	{ "vlan", 0, "ID[,ID]", NULL, NULL, S_TRAFFIC,
		"one 802.1Q tag, or an 802.1ad outer tag and an 802.1Q inner "
		"tag; IDs 0..4094", set_vlan, GEN_ONLY },
	{ "seed", 0, "N", "1", NULL, S_TRAFFIC,
		"picks addresses, ports, sequence numbers",
		OPT_UINT(t.seed, 0, UINT64_MAX), .flags = GEN_ONLY },
	{ "no-balance", 0, NULL, NULL, NULL, S_TRAFFIC,
		"take source ports in the seed's order: the split is whatever "
		"the hash gives, even if uneven. By default stream i gets a "
		"source port whose hash lands on queue i % queues",
		OPT_FLAG(t.balance, false), .flags = GEN_ONLY },
	{ "split", 0, "CAPTURE", NULL, "file:pcap,pcapng,cap", S_SPLIT,
		"split CAPTURE (pcap or pcapng, Ethernet link type) instead of "
		"generating; non-IP frames, and frames whose headers are cut, "
		"go to RETA entry 0's queue", OPT_PATH(split) },
	{ "allow-truncated", 0, NULL, NULL, NULL, S_SPLIT,
		"a capture cut inside a record: split the records before the "
		"cut instead of failing", OPT_FLAG(allow_truncated, true),
		.flags = SPLIT_ONLY },
	{ "max-streams", 0, "N", "100000", NULL, S_SPLIT, "streams listed in "
		"the manifest, 0.." RTE_STR(GEN_STREAMS_MAX) "; the rest are "
		"summed in streams_unlisted",
		OPT_UINT(max_streams, 0, GEN_STREAMS_MAX), .flags = SPLIT_ONLY },
	{ "help", 'h', NULL, NULL, NULL, S_OTHER, "this text", set_help },
	{ "version", 'V', NULL, NULL, NULL, S_OTHER, "version", set_version },
};

static const struct rxr_opt_table opt_table = {
	GEN_PROG, opt_list, RTE_DIM(opt_list),
};

static int
set_help(void *c, const char *arg, char *err, size_t errlen)
{
	printf(
"Usage: " GEN_PROG " [OPTIONS]                 generate traffic\n"
"       " GEN_PROG " --split CAPTURE [OPTIONS] split an Ethernet capture\n"
"\n"
"Writes PREFIX.q<N>.pcap, one capture per RX queue, holding what a NIC's RSS\n"
"would deliver to queue N, and a JSON manifest of what each file holds.\n"
"Frame sizes are bytes without the FCS, as in the captures.\n"
"\n");
	rxr_opt_help(&opt_table, stdout);
	printf(
"\n"
"Numbers are decimal. No output may be a device, a FIFO, a directory or\n"
"the capture given to --split; that capture must be a regular file. No two\n"
"outputs may be one file, and PREFIX must end in a name, not in '/'.\n"
"\n"
"With real RSS the split is what the NIC's hash says: the same key, fields\n"
"and RETA give the same split. See doc/generator.md.\n"
"\n"
"Exit status: 0 on success; 1 when a capture cannot be read or split, or an\n"
"output cannot be written (the message names the file); 2 on bad usage\n"
"(an unknown option or a bad value).\n");
	exit(EXIT_SUCCESS);
}

/* The first option given of those marked flag, or -1. */
static int
first_given(const unsigned int *seen, unsigned int flag)
{
	int first = -1;

	for (unsigned int i = 0; i < RTE_DIM(opt_list); i++)
		if ((opt_list[i].flags & flag) && seen[i] != 0 &&
				(first < 0 || seen[i] < seen[first]))
			first = i;
	return first;
}

/* Frame sizes: the default from the headers, each size holds them. */
static void
check_sizes(struct gen_opts *o)
{
	struct gen_err e = { "" };
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

void
gen_opts_parse(struct gen_opts *o, int argc, char **argv)
{
	unsigned int seen[RTE_DIM(opt_list)] = { 0 };
	int ret, gen_only, split_only;
	char err[1024];

	memset(o, 0, sizeof(*o));
	o->t.ipver = 4;		/* unless -6 */
	o->t.balance = true;	/* unless --no-balance */
	ret = rxr_opt_parse(&opt_table, o, argc, argv, seen, err, sizeof(err));
	if (ret == RXR_OPT_STOP)
		exit(EXIT_SUCCESS);
	if (ret != 0)
		usage_error("%s", err);
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	gen_only = first_given(seen, GEN_ONLY);
	split_only = first_given(seen, SPLIT_ONLY);
	if (o->split != NULL && gen_only >= 0)
		usage_error("--%s is for generating; it does not apply to "
			"--split", opt_list[gen_only].name);
	if (o->split == NULL && split_only >= 0)
		usage_error("--%s applies to --split only",
			opt_list[split_only].name);
	if (o->queues > o->reta_size)
		usage_error("--queues %u: more queues than --reta-size entries (%u)",
			o->queues, o->reta_size);
	check_paths(o);
	if (o->split == NULL)
		check_sizes(o);
}
