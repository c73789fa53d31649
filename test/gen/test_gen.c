/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxrefill-gen integration tests. Runs the program with several option
 * sets and reads every file back with libpcap: the files hold exactly what
 * the manifest says, every checksum verifies (computed here, not with the
 * generator's DPDK helpers), every stream lies wholly in the queue its
 * hash selects, payloads and TCP sequence numbers are what they should be.
 * The split mode must give back the generator's own files, and bad input
 * must end in a non-zero exit with a message naming the problem.
 *
 * Usage: test_gen PATH-TO-rxrefill-gen
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <jansson.h>
#include <pcap/pcap.h>

#include "rxr_flow.h"
#include "rxr_test.h"

#define MAX_ARGS 40

static const char *gen;
static char dir[64];
static char errout[8192];

/* ---- running the program ---- */

/* Run gen with a NULL-terminated list; stderr into errout. Exit code, or -signal. */
static int
run_argv(const char *const *args)
{
	char *argv[MAX_ARGS + 2];
	int fds[2], status, n = 0;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	argv[n++] = (char *)(uintptr_t)gen;
	while (args[n - 1] != NULL && n <= MAX_ARGS) {
		argv[n] = (char *)(uintptr_t)args[n - 1];
		n++;
	}
	argv[n] = NULL;
	fflush(stdout);
	if (pipe(fds) != 0)
		return -1000;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		execv(gen, argv);
		_exit(127);
	}
	close(fds[1]);
	while (len < sizeof(errout) - 1 &&
			(r = read(fds[0], errout + len, sizeof(errout) - 1 - len)) > 0)
		len += (size_t)r;
	errout[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int
run(const char *first, ...)
{
	const char *args[MAX_ARGS + 1];
	va_list ap;
	int n = 0;

	va_start(ap, first);
	for (args[n] = first; args[n] != NULL && n < MAX_ARGS; args[n] = va_arg(ap, const char *))
		n++;
	va_end(ap);
	args[n] = NULL;
	return run_argv(args);
}

static const char *
path(const char *name)
{
	static char bufs[8][512];
	static unsigned int i;
	char *b = bufs[i++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", dir, name);
	return b;
}

/* Not with path(): callers may hold its buffers. */
static void
clean_dir(void)
{
	char f[512];
	struct dirent *d;
	DIR *dp = opendir(dir);

	while (dp != NULL && (d = readdir(dp)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s", dir, d->d_name);
		unlink(f);
	}
	if (dp != NULL)
		closedir(dp);
}

static unsigned int
count_files(void)
{
	struct dirent *d;
	DIR *dp = opendir(dir);
	unsigned int n = 0;

	while (dp != NULL && (d = readdir(dp)) != NULL)
		n += d->d_name[0] != '.';
	if (dp != NULL)
		closedir(dp);
	return n;
}

/* ---- checking what was written ---- */

static uint32_t
sum16(const uint8_t *p, size_t n, uint32_t s)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | p[2] << 8 | p[3];
}

struct mstream {
	struct rxr_flow_key key;
	uint32_t hash;
	uint16_t queue;
	uint64_t packets, bytes;
	uint64_t seen_packets, seen_bytes, next_idx;
	uint32_t next_seq;
	bool seq_set;
};

struct manifest {
	json_t *doc;
	bool split;
	struct rxr_flow_rss rss;
	int ipver;
	uint8_t proto;
	unsigned int nb_vlan;
	uint16_t vlan[2];
	uint32_t sizes[16], nb_sizes;
	uint32_t nb_streams;
	uint64_t pps;
	struct mstream *st;
	uint64_t size_count[16];
};

static uint64_t
jget(json_t *o, const char *k)
{
	return (uint64_t)json_integer_value(json_object_get(o, k));
}

static void
manifest_free(struct manifest *m)
{
	json_decref(m->doc);
	free(m->st);
	rxr_flow_rss_fini(&m->rss);
	memset(m, 0, sizeof(*m));
}

static int
manifest_load(struct manifest *m, const char *file)
{
	json_error_t jerr;
	json_t *rss, *t, *a, *s;
	const char *hex, *size;
	uint8_t key[RXR_FLOW_RSS_KEY_LEN];
	size_t i;

	memset(m, 0, sizeof(*m));
	m->doc = json_load_file(file, 0, &jerr);
	RXR_TEST_ASSERT(m->doc != NULL, "%s: %s", file, jerr.text);
	RXR_TEST_ASSERT(strcmp(json_string_value(json_object_get(m->doc, "schema")),
		"rxrefill-gen-manifest/1") == 0, "schema");
	m->split = strcmp(json_string_value(json_object_get(m->doc, "mode")),
		"split") == 0;
	rss = json_object_get(m->doc, "rss");
	hex = json_string_value(json_object_get(rss, "key_hex"));
	RXR_TEST_ASSERT(hex != NULL && strlen(hex) == 80, "key_hex");
	for (i = 0; i < sizeof(key); i++) {
		unsigned int b;

		sscanf(hex + 2 * i, "%2x", &b);
		key[i] = (uint8_t)b;
	}
	RXR_TEST_ASSERT_EQ(rxr_flow_rss_init(&m->rss, key,
		strcmp(json_string_value(json_object_get(rss, "fields")), "l3") == 0 ?
			RXR_FLOW_RSS_L3 : RXR_FLOW_RSS_L3L4,
		(uint32_t)jget(rss, "reta_size"), (uint16_t)jget(rss, "queues")),
		0, "rss from the manifest");

	t = json_object_get(m->doc, "traffic");
	if (t != NULL) {
		m->ipver = (int)jget(t, "ip");
		m->proto = strcmp(json_string_value(json_object_get(t, "proto")),
			"tcp") == 0 ? IPPROTO_TCP : IPPROTO_UDP;
		a = json_object_get(t, "vlan");
		m->nb_vlan = (unsigned int)json_array_size(a);
		for (i = 0; i < m->nb_vlan && i < 2; i++)
			m->vlan[i] = (uint16_t)json_integer_value(json_array_get(a, i));
		size = json_string_value(json_object_get(t, "size"));
		if (strncmp(size, "imix:", 5) == 0)
			size += 5;
		for (;;) {
			char *end;

			m->sizes[m->nb_sizes++] = (uint32_t)strtoul(size, &end, 10);
			end = strchr(end, ',');
			if (end == NULL || m->nb_sizes == 16)
				break;
			size = end + 1;
		}
		m->pps = jget(t, "packets_per_stream");
	}

	a = json_object_get(m->doc, "streams");
	m->nb_streams = (uint32_t)json_array_size(a);
	m->st = calloc(m->nb_streams + 1, sizeof(*m->st));
	json_array_foreach(a, i, s) {
		struct mstream *ms = &m->st[i];
		uint8_t src[16], dst[16];
		uint32_t hash;
		int v6 = strchr(json_string_value(json_object_get(s, "src")), ':') != NULL;

		RXR_TEST_ASSERT(inet_pton(v6 ? AF_INET6 : AF_INET,
			json_string_value(json_object_get(s, "src")), src) == 1 &&
			inet_pton(v6 ? AF_INET6 : AF_INET,
			json_string_value(json_object_get(s, "dst")), dst) == 1,
			"stream %zu addresses", i);
		if (v6)
			rxr_flow_key_v6(&ms->key, src, dst, (uint16_t)jget(s, "sport"),
				(uint16_t)jget(s, "dport"), (uint8_t)jget(s, "proto"));
		else
			rxr_flow_key_v4(&ms->key, rd32(src), rd32(dst),
				(uint16_t)jget(s, "sport"), (uint16_t)jget(s, "dport"),
				(uint8_t)jget(s, "proto"));
		if (json_is_true(json_object_get(s, "fragments"))) {
			ms->key.flags = RXR_FLOW_F_FRAG;
			ms->key.sport = ms->key.dport = 0;
		}
		ms->hash = (uint32_t)strtoul(json_string_value(json_object_get(s, "hash")),
			NULL, 16);
		ms->queue = (uint16_t)jget(s, "queue");
		ms->packets = jget(s, "packets");
		ms->bytes = jget(s, "bytes");
		RXR_TEST_ASSERT_EQ(jget(s, "id"), i, "stream ids in order");
		rxr_flow_rss_queue(&m->rss, &ms->key, &hash);
		RXR_TEST_ASSERT_EQ(hash, ms->hash,
			"manifest hash is the Toeplitz hash of the stream");
		RXR_TEST_ASSERT_EQ(m->rss.reta[ms->hash & (m->rss.reta_size - 1)],
			ms->queue, "manifest queue is the RETA entry of the hash");
	}
	return 0;
}

static struct mstream *
find_stream(struct manifest *m, const struct rxr_flow_key *k)
{
	uint32_t i;

	for (i = 0; i < m->nb_streams; i++)
		if (memcmp(&m->st[i].key, k, sizeof(*k)) == 0)
			return &m->st[i];
	return NULL;
}

/* A generated frame: headers, checksums, payload, sequence. */
static int
check_generated(struct manifest *m, const uint8_t *d, uint32_t len,
		const struct rxr_flow_info *fi, struct mstream **out, uint32_t *sid_out)
{
	/* The headers generated: Ethernet, tags, IP, TCP or UDP, no options. */
	uint32_t l3 = 14 + 4 * m->nb_vlan, l4ofs = l3 + (m->ipver == 4 ? 20 : 40);
	uint32_t pay = l4ofs + (m->proto == IPPROTO_TCP ? 20 : 8);
	const uint8_t *ip = d + l3, *l4 = d + l4ofs;
	uint32_t l4len = len - l4ofs, plen = len - pay, j, s, sid;
	uint64_t idx;
	struct mstream *ms;
	unsigned int i;
	bool size_ok = false;

	for (i = 0; i < m->nb_sizes; i++)
		if (m->sizes[i] == len) {
			size_ok = true;
			m->size_count[i]++;
		}
	RXR_TEST_ASSERT(size_ok, "frame length %u not among the sizes", len);
	RXR_TEST_ASSERT_EQ(fi->nb_vlan, m->nb_vlan, "VLAN tags");
	for (i = 0; i < m->nb_vlan; i++)
		RXR_TEST_ASSERT_EQ(rd16(d + 14 + 4 * i) & 0xfff, m->vlan[i],
			"VLAN id");
	if (m->nb_vlan == 2)
		RXR_TEST_ASSERT(d[12] == 0x88 && d[13] == 0xa8 && d[16] == 0x81,
			"802.1ad outer, 802.1Q inner");
	RXR_TEST_ASSERT_EQ(fi->key.family, m->ipver, "IP version");
	RXR_TEST_ASSERT_EQ(fi->key.proto, m->proto, "protocol");
	RXR_TEST_ASSERT_EQ(m->ipver == 4 ? rd16(ip + 2) : 40 + rd16(ip + 4),
		len - l3, "IP length");

	if (m->ipver == 4) {
		RXR_TEST_ASSERT_EQ(fold(sum16(ip, 20, 0)), 0xffff, "IPv4 header checksum");
		s = sum16(ip + 12, 8, 0) + m->proto + l4len;
	} else {
		s = sum16(ip + 8, 32, 0) + (l4len >> 16) + (l4len & 0xffff) + m->proto;
	}
	RXR_TEST_ASSERT_EQ(fold(sum16(l4, l4len, s)), 0xffff, "L4 checksum");
	if (m->proto == IPPROTO_UDP) {
		RXR_TEST_ASSERT((l4[6] | l4[7]) != 0, "UDP checksum present");
		RXR_TEST_ASSERT_EQ(l4[4] << 8 | l4[5], l4len, "UDP length");
	}

	/* Payload: "RXRF", stream id, packet index, then byte j = j & 0xff. */
	{
		uint8_t tag[12] = { 'R', 'X', 'R', 'F' };
		const uint8_t *p = d + pay;

		/* The tag is cut in small frames: find the stream by its key. */
		ms = find_stream(m, &fi->key);
		RXR_TEST_ASSERT(ms != NULL, "frame of no stream in the manifest");
		sid = (uint32_t)(ms - m->st);
		if (plen >= 8)
			RXR_TEST_ASSERT_EQ(rd32(p + 4), sid, "stream id in the payload");
		idx = ms->next_idx++;
		tag[4] = sid >> 24; tag[5] = sid >> 16; tag[6] = sid >> 8; tag[7] = sid;
		tag[8] = idx >> 24; tag[9] = idx >> 16; tag[10] = idx >> 8; tag[11] = idx;
		for (j = 0; j < plen; j++)
			RXR_TEST_ASSERT_EQ(p[j], j < 12 ? tag[j] : (uint8_t)j,
				"payload byte (packets of a stream out of order?)");
	}
	if (m->proto == IPPROTO_TCP) {
		uint32_t seq = rd32(l4 + 4);

		if (ms->seq_set)
			RXR_TEST_ASSERT_EQ(seq, ms->next_seq, "TCP sequence number");
		ms->seq_set = true;
		ms->next_seq = seq + plen;
	}
	*out = ms;
	*sid_out = sid;
	return 0;
}

struct verify_result {
	uint64_t packets;
	uint32_t queue_streams[64];
	uint32_t nb_sizes;
	uint32_t sizes[16];
	uint64_t size_count[16];
};

/* Read back every queue file of a manifest. */
static int
verify(const char *manifest_file, struct verify_result *vr)
{
	struct manifest m;
	json_t *queues, *qe;
	uint64_t total_packets = 0, total_bytes = 0;
	size_t q;
	uint32_t i;

	memset(vr, 0, sizeof(*vr));
	if (manifest_load(&m, manifest_file) != 0)
		return -1;
	queues = json_object_get(m.doc, "queues");
	RXR_TEST_ASSERT_EQ(json_array_size(queues), m.rss.nb_queues, "queue entries");
	json_array_foreach(queues, q, qe) {
		char errbuf[PCAP_ERRBUF_SIZE];
		const char *file = json_string_value(json_object_get(qe, "file"));
		pcap_t *p = pcap_open_offline(file, errbuf);
		struct pcap_pkthdr *h;
		const u_char *d;
		uint64_t packets = 0, bytes = 0, captured = 0, last_ts = 0;
		int r;

		RXR_TEST_ASSERT(p != NULL, "%s: %s", file, errbuf);
		RXR_TEST_ASSERT_EQ(pcap_datalink(p), DLT_EN10MB, "link type");
		RXR_TEST_ASSERT_EQ(jget(qe, "queue"), q, "queue number");
		while ((r = pcap_next_ex(p, &h, &d)) == 1) {
			struct rxr_flow_info fi;
			struct mstream *ms = NULL;
			uint32_t sid = 0;
			uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000u + h->ts.tv_usec;
			int ret = rxr_flow_parse(d, h->caplen, &fi);

			packets++;
			bytes += h->len;
			captured += h->caplen;
			if (m.split) {
				ms = ret == RXR_FLOW_OK ? find_stream(&m, &fi.key) : NULL;
				RXR_TEST_ASSERT(ret != RXR_FLOW_OK || ms != NULL,
					"%s: record %llu: flow missing from the manifest",
					file, (unsigned long long)packets);
				if (ms == NULL) {
					RXR_TEST_ASSERT_EQ(rxr_flow_rss_queue(&m.rss, NULL, NULL),
						q, "unhashable frame in RETA entry 0's queue");
					continue;
				}
			} else {
				RXR_TEST_ASSERT_EQ(h->caplen, h->len, "whole frames");
				RXR_TEST_ASSERT(ret == RXR_FLOW_OK,
					"%s: record %llu: parse returned %d",
					file, (unsigned long long)packets, ret);
				RXR_TEST_ASSERT(ts >= last_ts, "timestamps go forward");
				last_ts = ts;
				if (check_generated(&m, d, h->len, &fi, &ms, &sid) != 0) {
					printf("# in %s record %llu\n", file,
						(unsigned long long)packets);
					pcap_close(p);
					return -1;
				}
			}
			RXR_TEST_ASSERT_EQ(rxr_flow_rss_queue(&m.rss, &fi.key, NULL), q,
				"frame in the queue its hash selects");
			RXR_TEST_ASSERT_EQ(ms->queue, q, "stream wholly in its queue");
			ms->seen_packets++;
			ms->seen_bytes += h->len;
		}
		RXR_TEST_ASSERT(r == PCAP_ERROR_BREAK, "%s: %s", file, pcap_geterr(p));
		pcap_close(p);
		RXR_TEST_ASSERT_EQ(packets, jget(qe, "packets"), "queue packets as in the manifest");
		RXR_TEST_ASSERT_EQ(bytes, jget(qe, "bytes"), "queue bytes as in the manifest");
		RXR_TEST_ASSERT_EQ(captured, jget(qe, "captured_bytes"), "captured bytes");
		if (q < 64)
			vr->queue_streams[q] = (uint32_t)jget(qe, "streams");
		total_packets += packets;
		total_bytes += bytes;
	}
	for (i = 0; i < m.nb_streams; i++) {
		RXR_TEST_ASSERT_EQ(m.st[i].seen_packets, m.st[i].packets,
			"stream packets as in the manifest");
		RXR_TEST_ASSERT_EQ(m.st[i].seen_bytes, m.st[i].bytes,
			"stream bytes as in the manifest");
		if (!m.split)
			RXR_TEST_ASSERT_EQ(m.st[i].packets, m.pps, "packets per stream");
	}
	RXR_TEST_ASSERT_EQ(total_packets, jget(json_object_get(m.doc, "total"), "packets"),
		"total packets");
	RXR_TEST_ASSERT_EQ(total_bytes, jget(json_object_get(m.doc, "total"), "bytes"),
		"total bytes");
	if (!m.split)
		RXR_TEST_ASSERT_EQ(total_packets, m.nb_streams * m.pps,
			"streams x packets");

	/* The --all capture: everything, round robin over the streams. */
	if (json_object_get(m.doc, "all") != NULL) {
		char errbuf[PCAP_ERRBUF_SIZE];
		json_t *all = json_object_get(m.doc, "all");
		pcap_t *p = pcap_open_offline(json_string_value(
			json_object_get(all, "file")), errbuf);
		struct pcap_pkthdr *h;
		const u_char *d;
		uint64_t n = 0, bytes = 0;

		RXR_TEST_ASSERT(p != NULL, "all: %s", errbuf);
		while (pcap_next_ex(p, &h, &d) == 1) {
			struct rxr_flow_info fi;

			RXR_TEST_ASSERT_EQ(rxr_flow_parse(d, h->caplen, &fi), 0, "all: parse");
			RXR_TEST_ASSERT_EQ(find_stream(&m, &fi.key) - m.st,
				n % m.nb_streams, "all: streams interleave round robin");
			n++;
			bytes += h->len;
		}
		pcap_close(p);
		RXR_TEST_ASSERT_EQ(n, total_packets, "all: packets");
		RXR_TEST_ASSERT_EQ(bytes, jget(all, "bytes"), "all: bytes");
	}
	vr->packets = total_packets;
	vr->nb_sizes = m.nb_sizes;
	memcpy(vr->sizes, m.sizes, sizeof(m.sizes));
	memcpy(vr->size_count, m.size_count, sizeof(m.size_count));
	manifest_free(&m);
	return 0;
}

/* ---- generate ---- */

/* Run gen with the prefix D/g plus the given options, then verify. */
static int
gen_and_verify(struct verify_result *vr, const char *first, ...)
{
	const char *args[MAX_ARGS + 1] = { "-o", path("g"), "--quiet" };
	va_list ap;
	int n = 3, rc;

	va_start(ap, first);
	for (args[n] = first; args[n] != NULL && n < MAX_ARGS; args[n] = va_arg(ap, const char *))
		n++;
	va_end(ap);
	args[n] = NULL;
	clean_dir();
	rc = run_argv(args);
	RXR_TEST_ASSERT_EQ(rc, 0, errout);
	return verify(path("g.json"), vr);
}

static int
test_default(void)
{
	struct verify_result vr;

	if (gen_and_verify(&vr, NULL) != 0)
		return -1;
	RXR_TEST_ASSERT_EQ(vr.packets, 8 * 1000, "8 streams x 1000 packets");
	RXR_TEST_ASSERT(vr.queue_streams[0] == 4 && vr.queue_streams[1] == 4,
		"8 streams over 2 queues: %u + %u", vr.queue_streams[0],
		vr.queue_streams[1]);
	RXR_TEST_ASSERT_EQ(vr.size_count[0], 8000, "64-byte frames");
	return 0;
}

static int
test_sizes(void)
{
	struct verify_result vr;

	if (gen_and_verify(&vr, "--size", "1518", "-p", "udp", "-n", "50", NULL) != 0)
		return -1;
	RXR_TEST_ASSERT_EQ(vr.size_count[0], 400, "1518-byte frames");
	if (gen_and_verify(&vr, "--size", "60", "-p", "udp", "-n", "20", NULL) != 0)
		return -1;
	if (gen_and_verify(&vr, "--size", "9000", "-s", "4", "-q", "4", "-n", "20", NULL) != 0)
		return -1;
	RXR_TEST_ASSERT_EQ(vr.size_count[0], 80, "9000-byte frames");
	if (gen_and_verify(&vr, "--size", "65535", "-s", "2", "-n", "2", "-6", NULL) != 0)
		return -1;
	return 0;
}

static int
test_imix(void)
{
	struct verify_result vr;

	/* 24 packets per stream: the 12-packet cycle twice, exactly 7:4:1. */
	if (gen_and_verify(&vr, "--size", "imix", "-n", "24", NULL) != 0)
		return -1;
	RXR_TEST_ASSERT_EQ(vr.nb_sizes, 3, "three sizes");
	RXR_TEST_ASSERT(vr.sizes[0] == 64 && vr.sizes[1] == 594 && vr.sizes[2] == 1518,
		"classic IMIX sizes");
	RXR_TEST_ASSERT_EQ(vr.size_count[0], 8 * 14, "64 B: 7 of 12");
	RXR_TEST_ASSERT_EQ(vr.size_count[1], 8 * 8, "594 B: 4 of 12");
	RXR_TEST_ASSERT_EQ(vr.size_count[2], 8 * 2, "1518 B: 1 of 12");
	if (gen_and_verify(&vr, "--size", "imix:128x2,1024,9000x1", "-6", "-p", "udp",
			"-n", "8", "-a", NULL) != 0)
		return -1;
	RXR_TEST_ASSERT_EQ(vr.size_count[0], 8 * 4, "128 B: 2 of 4");
	return 0;
}

static int
test_ipv6_vlan(void)
{
	struct verify_result vr;

	if (gen_and_verify(&vr, "-6", "-n", "30", NULL) != 0)
		return -1;
	if (gen_and_verify(&vr, "--vlan", "100", "-n", "10", NULL) != 0)
		return -1;
	if (gen_and_verify(&vr, "--vlan", "100,200", "-p", "udp", "-n", "10", NULL) != 0)
		return -1;
	if (gen_and_verify(&vr, "-6", "--vlan", "0,4094", "--size", "imix:82x3,1500",
			"-n", "8", "-a", NULL) != 0)
		return -1;
	return 0;
}

static int
test_many_streams(void)
{
	struct verify_result vr;
	unsigned int q;

	if (gen_and_verify(&vr, "-s", "100", "-q", "3", "-n", "5", NULL) != 0)
		return -1;
	for (q = 0; q < 3; q++)
		RXR_TEST_ASSERT(vr.queue_streams[q] == 33 || vr.queue_streams[q] == 34,
			"100 streams over 3 queues: queue %u has %u", q,
			vr.queue_streams[q]);
	if (gen_and_verify(&vr, "-s", "1000", "-q", "8", "--reta-size", "128",
			"-n", "2", "-p", "udp", "-6", NULL) != 0)
		return -1;
	for (q = 0; q < 8; q++)
		RXR_TEST_ASSERT_EQ(vr.queue_streams[q], 125, "1000 streams over 8 queues");
	/* More streams than one source address has ports for balancing. */
	if (gen_and_verify(&vr, "-s", "40000", "-q", "2", "-n", "1", NULL) != 0)
		return -1;
	RXR_TEST_ASSERT(vr.queue_streams[0] == 20000, "40000 streams: %u on queue 0",
		vr.queue_streams[0]);
	return 0;
}

static int
test_rss_options(void)
{
	struct verify_result vr;

	/* Unbalanced: whatever the hash says, still consistent. */
	if (gen_and_verify(&vr, "--no-balance", "--seed", "7", "-s", "16", "-q", "4",
			"--rss-key", "ms", "-n", "3", NULL) != 0)
		return -1;
	if (gen_and_verify(&vr, "--rss-key",
			"00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:"
			"00112233445566778899aabbccddeeff0123456789abcdef",
			"-q", "4", "-n", "3", NULL) != 0)
		return -1;
	/*
	 * Addresses only: every stream shares one address pair, so one hash,
	 * so one queue, whatever the ports. What a NIC would do, too.
	 */
	clean_dir();
	RXR_TEST_ASSERT_EQ(run("-o", path("g"), "--quiet", "--rss-fields", "l3",
		"-n", "3", NULL), 0, errout);
	RXR_TEST_ASSERT(strstr(errout, "could not be placed") != NULL,
		"warns about streams it cannot balance: %s", errout);
	if (verify(path("g.json"), &vr) != 0)
		return -1;
	RXR_TEST_ASSERT(vr.queue_streams[0] == 8 || vr.queue_streams[1] == 8,
		"l3 hashing puts one address pair on one queue");
	return 0;
}

static int
files_equal(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int ca, cb, eq = fa != NULL && fb != NULL;

	while (eq) {
		ca = fgetc(fa);
		cb = fgetc(fb);
		if (ca != cb)
			eq = 0;
		if (ca == EOF)
			break;
	}
	if (fa != NULL)
		fclose(fa);
	if (fb != NULL)
		fclose(fb);
	return eq;
}

static int
test_seed(void)
{
	json_t *a, *b;

	clean_dir();
	RXR_TEST_ASSERT_EQ(run("-o", path("a"), "--quiet", "--seed", "42", "-n", "5", NULL), 0, errout);
	RXR_TEST_ASSERT_EQ(run("-o", path("b"), "--quiet", "--seed", "42", "-n", "5", NULL), 0, errout);
	RXR_TEST_ASSERT_EQ(run("-o", path("c"), "--quiet", "--seed", "43", "-n", "5", NULL), 0, errout);
	RXR_TEST_ASSERT(files_equal(path("a.q0.pcap"), path("b.q0.pcap")) &&
		files_equal(path("a.q1.pcap"), path("b.q1.pcap")),
		"same seed, same files");
	RXR_TEST_ASSERT(!files_equal(path("a.q0.pcap"), path("c.q0.pcap")),
		"another seed, other streams");
	a = json_load_file(path("a.json"), 0, NULL);
	b = json_load_file(path("c.json"), 0, NULL);
	RXR_TEST_ASSERT(a != NULL && b != NULL, "manifests");
	RXR_TEST_ASSERT(!json_equal(json_object_get(a, "streams"),
		json_object_get(b, "streams")), "another seed, other 5-tuples");
	json_decref(a);
	json_decref(b);
	return 0;
}

/* ---- split ---- */

static int
compare_streams(const char *ma, const char *mb)
{
	static const char *const fields[] = {
		"src", "dst", "sport", "dport", "proto", "hash", "queue",
		"packets", "bytes",
	};
	json_t *a = json_load_file(ma, 0, NULL), *b = json_load_file(mb, 0, NULL);
	json_t *sa, *sb, *qa, *qb;
	size_t i, f;

	RXR_TEST_ASSERT(a != NULL && b != NULL, "manifests load");
	sa = json_object_get(a, "streams");
	sb = json_object_get(b, "streams");
	RXR_TEST_ASSERT_EQ(json_array_size(sa), json_array_size(sb), "stream count");
	for (i = 0; i < json_array_size(sa); i++)
		for (f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
			RXR_TEST_ASSERT(json_equal(json_object_get(json_array_get(sa, i), fields[f]),
				json_object_get(json_array_get(sb, i), fields[f])),
				"stream %zu: %s differs", i, fields[f]);
	qa = json_object_get(a, "queues");
	qb = json_object_get(b, "queues");
	for (i = 0; i < json_array_size(qa); i++) {
		RXR_TEST_ASSERT_EQ(jget(json_array_get(qa, i), "packets"),
			jget(json_array_get(qb, i), "packets"), "queue packets");
		RXR_TEST_ASSERT_EQ(jget(json_array_get(qa, i), "bytes"),
			jget(json_array_get(qb, i), "bytes"), "queue bytes");
		RXR_TEST_ASSERT_EQ(jget(json_array_get(qa, i), "streams"),
			jget(json_array_get(qb, i), "streams"), "queue streams");
	}
	json_decref(a);
	json_decref(b);
	return 0;
}

static int
test_split_roundtrip(void)
{
	struct verify_result vr;
	static const char *const opts[][16] = {
		{ "-o", NULL, "--quiet", "-a", "-n", "10", "-s", "12", "-q", "3",
			"--size", "imix", "--vlan", "7", NULL },
		{ "-o", NULL, "--quiet", "-a", "-n", "10", "-s", "9", "-q", "4",
			"-6", "-p", "udp", "--seed", "5", NULL },
	};
	const char *args[16];
	char qa[32], qb[32];
	unsigned int i, q, nq;

	for (i = 0; i < 2; i++) {
		clean_dir();
		memcpy(args, opts[i], sizeof(args));
		args[1] = path("g");
		RXR_TEST_ASSERT_EQ(run_argv(args), 0, errout);
		nq = (unsigned int)atoi(opts[i][9]);
		RXR_TEST_ASSERT_EQ(run("--split", path("g.all.pcap"), "-o", path("s"),
			"--quiet", "-q", opts[i][9], NULL), 0, errout);
		for (q = 0; q < nq; q++) {
			snprintf(qa, sizeof(qa), "g.q%u.pcap", q);
			snprintf(qb, sizeof(qb), "s.q%u.pcap", q);
			RXR_TEST_ASSERT(files_equal(path(qa), path(qb)),
				"split of the --all capture gives back %s byte for byte", qa);
		}
		if (compare_streams(path("g.json"), path("s.json")) != 0)
			return -1;
		if (verify(path("s.json"), &vr) != 0)
			return -1;
	}
	/* The same capture over another queue count still checks out. */
	RXR_TEST_ASSERT_EQ(run("--split", path("g.all.pcap"), "-o", path("t"),
		"--quiet", "-q", "8", "--reta-size", "64", NULL), 0, errout);
	return verify(path("t.json"), &vr);
}

/* Frames for a hand-made capture. */
static size_t
frame_v4(uint8_t *f, uint8_t proto, uint16_t fragfield, size_t len)
{
	memset(f, 0, len);
	f[0] = 0x02;
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[20] = (uint8_t)(fragfield >> 8);
	f[21] = (uint8_t)fragfield;
	f[22] = 64;
	f[23] = proto;
	f[26] = 10; f[29] = 1;
	f[30] = 10; f[33] = 2;
	f[34] = 0x04; f[35] = 0xd2;	/* 1234 */
	f[36] = 0x14; f[37] = 0x51;	/* 5201 */
	f[46] = 0x50;
	return len;
}

static int
write_capture(const char *file, int dlt, unsigned int precision)
{
	pcap_t *dead = pcap_open_dead_with_tstamp_precision(dlt, 65535, precision);
	pcap_dumper_t *d = pcap_dump_open(dead, file);
	struct pcap_pkthdr h = { .ts = { 1, 2 } };
	uint8_t f[1514];

	RXR_TEST_ASSERT(d != NULL, "%s", pcap_geterr(dead));
	/* 1: IPv4 TCP */
	h.caplen = h.len = (uint32_t)frame_v4(f, IPPROTO_TCP, 0x4000, 80);
	pcap_dump((u_char *)d, &h, f);
	/* 2: ARP */
	memset(f, 0, 60);
	f[12] = 0x08; f[13] = 0x06;
	h.caplen = h.len = 60;
	pcap_dump((u_char *)d, &h, f);
	/* 3: IPv6 UDP behind a VLAN tag */
	memset(f, 0, 100);
	f[12] = 0x81; f[15] = 5; f[16] = 0x86; f[17] = 0xdd;
	f[18] = 0x60; f[23] = 100 - 58; f[24] = IPPROTO_UDP;
	f[25] = 64; f[26] = 0xfd; f[41] = 1; f[42] = 0xfd; f[57] = 2;
	f[58] = 0x30; f[59] = 0x39; f[60] = 0x00; f[61] = 0x35;
	h.caplen = h.len = 100;
	pcap_dump((u_char *)d, &h, f);
	/* 4: LLDP */
	memset(f, 0, 60);
	f[12] = 0x88; f[13] = 0xcc;
	pcap_dump((u_char *)d, &h, f);
	/* 5: snapped inside the TCP header: cannot be hashed */
	frame_v4(f, IPPROTO_TCP, 0, 1514);
	h.caplen = 40;
	h.len = 1514;
	pcap_dump((u_char *)d, &h, f);
	/* 6: snapped after the headers: hashed */
	h.caplen = 60;
	pcap_dump((u_char *)d, &h, f);
	/* 7: an empty record */
	h.caplen = h.len = 0;
	pcap_dump((u_char *)d, &h, f);
	/* 8: more captured than the frame had */
	h.caplen = 60;
	h.len = 50;
	pcap_dump((u_char *)d, &h, f);
	/* 9: a later IPv4 fragment: addresses only */
	h.caplen = h.len = (uint32_t)frame_v4(f, IPPROTO_UDP, 0x00b9, 200);
	pcap_dump((u_char *)d, &h, f);
	pcap_dump_close(d);
	pcap_close(dead);
	return 0;
}

static int
test_split_odd_records(void)
{
	struct verify_result vr;
	json_t *m, *in;
	uint8_t magic[4];
	FILE *f;

	clean_dir();
	if (write_capture(path("odd.pcap"), DLT_EN10MB, PCAP_TSTAMP_PRECISION_NANO) != 0)
		return -1;
	RXR_TEST_ASSERT_EQ(run("--split", path("odd.pcap"), "-o", path("s"),
		"--quiet", NULL), 0, errout);
	m = json_load_file(path("s.json"), 0, NULL);
	RXR_TEST_ASSERT(m != NULL, "manifest");
	in = json_object_get(m, "input");
	RXR_TEST_ASSERT_EQ(jget(in, "records"), 9, "records");
	RXR_TEST_ASSERT_EQ(jget(in, "written"), 7, "written");
	RXR_TEST_ASSERT_EQ(jget(in, "ip"), 4, "hashed as IP");
	RXR_TEST_ASSERT_EQ(jget(json_object_get(in, "non_ip"), "packets"), 2, "non-IP");
	RXR_TEST_ASSERT_EQ(jget(json_object_get(in, "unparsed"), "packets"), 1, "unparsed");
	RXR_TEST_ASSERT_EQ(jget(in, "snapped"), 2, "snapped");
	RXR_TEST_ASSERT_EQ(jget(in, "skipped_empty"), 1, "empty");
	RXR_TEST_ASSERT_EQ(jget(in, "skipped_invalid"), 1, "caplen > len");
	RXR_TEST_ASSERT(strcmp(json_string_value(json_object_get(in, "tstamp_precision")),
		"nano") == 0, "nanosecond input noticed");
	/* The snapped TCP frame belongs to the first frame's flow. */
	RXR_TEST_ASSERT_EQ(json_array_size(json_object_get(m, "streams")), 3,
		"streams: tcp, udp over ipv6, a fragment");
	json_decref(m);
	f = fopen(path("s.q0.pcap"), "rb");
	RXR_TEST_ASSERT(f != NULL && fread(magic, 1, 4, f) == 4, "q0");
	fclose(f);
	RXR_TEST_ASSERT(magic[0] == 0x4d && magic[1] == 0x3c, "nanosecond output");
	return verify(path("s.json"), &vr);
}

/* ---- bad input ---- */

static int
expect_fail(const char *needle, const char *const *args)
{
	int rc;

	rc = run_argv(args);
	RXR_TEST_ASSERT(rc > 0, "%s %s ...: exit %d (a signal is negative)",
		args[0], args[1] ? args[1] : "", rc);
	RXR_TEST_ASSERT(strstr(errout, needle) != NULL,
		"%s %s ...: message lacks '%s': %s", args[0], args[1] ? args[1] : "",
		needle, errout);
	return 0;
}

static int
test_bad_captures(void)
{
	static char big[65536];
	struct stat sb;
	size_t n;
	FILE *f;
	json_t *m;
	unsigned int files;

	clean_dir();
	RXR_TEST_ASSERT_EQ(run("-o", path("g"), "--quiet", "-a", "-n", "20", NULL), 0, errout);
	/* A capture cut in the middle of its last record. */
	f = fopen(path("g.all.pcap"), "rb");
	n = fread(big, 1, sizeof(big), f);
	fclose(f);
	RXR_TEST_ASSERT(n > 1000, "read the capture");
	f = fopen(path("cut.pcap"), "wb");
	fwrite(big, 1, n - 30, f);
	fclose(f);
	f = fopen(path("text.pcap"), "wb");
	fputs("this is not a capture\n", f);
	fclose(f);
	f = fopen(path("empty.pcap"), "wb");
	fclose(f);
	if (write_capture(path("raw.pcap"), DLT_IEEE802_11, PCAP_TSTAMP_PRECISION_MICRO) != 0)
		return -1;
	files = count_files();

	{
		const char *a[] = { "--split", path("nope.pcap"), "-o", path("x"), NULL };
		if (expect_fail("nope.pcap: No such file", a) != 0) return -1;
	}
	{
		const char *a[] = { "--split", path("text.pcap"), "-o", path("x"), NULL };
		if (expect_fail("text.pcap: not a pcap or pcapng capture", a) != 0) return -1;
	}
	{
		const char *a[] = { "--split", path("empty.pcap"), "-o", path("x"), NULL };
		if (expect_fail("empty.pcap: empty file", a) != 0) return -1;
	}
	{
		const char *a[] = { "--split", path("cut.pcap"), "-o", path("x"), NULL };
		if (expect_fail("cut.pcap: record 160: the file ends inside it", a) != 0) return -1;
	}
	{
		const char *a[] = { "--split", path("raw.pcap"), "-o", path("x"), NULL };
		if (expect_fail("raw.pcap: link type IEEE802_11", a) != 0) return -1;
	}
	{
		const char *a[] = { "--split", dir, "-o", path("x"), NULL };
		if (expect_fail("is a directory, not a regular file", a) != 0)
			return -1;
	}
	RXR_TEST_ASSERT_EQ(count_files(), files, "failed runs leave no files behind");

	/* Asked for, a cut capture gives what comes before the cut. */
	RXR_TEST_ASSERT_EQ(run("--split", path("cut.pcap"), "-o", path("x"),
		"--quiet", "--allow-truncated", NULL), 0, errout);
	RXR_TEST_ASSERT(strstr(errout, "damaged") != NULL, "warned: %s", errout);
	m = json_load_file(path("x.json"), 0, NULL);
	RXR_TEST_ASSERT(m != NULL, "manifest");
	RXR_TEST_ASSERT(json_is_true(json_object_get(json_object_get(m, "input"),
		"truncated")), "truncated noted");
	RXR_TEST_ASSERT_EQ(jget(json_object_get(m, "input"), "records"), 159,
		"all records but the cut one");
	json_decref(m);
	RXR_TEST_ASSERT(stat(path("x.q0.pcap"), &sb) == 0, "outputs written");
	return 0;
}

static int
test_bad_options(void)
{
	static const struct {
		const char *needle;
		const char *args[6];
	} cases[] = {
		{ "--queues", { "-q", "0" } },
		{ "--queues", { "-q", "1025" } },
		{ "--queues", { "--queues", "two" } },
		{ "--size", { "--size", "10" } },
		{ "--size", { "--size", "70000" } },
		{ "--size", { "--size", "abc" } },
		{ "--size", { "--size", "" } },
		{ "--size", { "--size", "imix:64x0" } },
		{ "--size", { "--size", "imix:64x7," } },
		{ "--size", { "--size", "imix:64y7" } },
		{ "--size", { "--size", "imix:" } },
		{ "--size", { "--size", "imix:64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64,64" } },
		{ "cannot hold the 74 bytes", { "-6", "--size", "64" } },
		{ "cannot hold the 82 bytes", { "-6", "--vlan", "1,2", "--size", "imix:82,81" } },
		{ "--vlan", { "--vlan", "4095" } },
		{ "--vlan", { "--vlan", "1,2,3" } },
		{ "--vlan", { "--vlan", "1," } },
		{ "--vlan", { "--vlan", "-1" } },
		{ "--streams", { "-s", "0" } },
		{ "--streams", { "-s", "100001" } },
		{ "--packets", { "-n", "0" } },
		{ "--packets", { "-n", "-5" } },
		{ "--packets", { "-n", "99999999999999999999999" } },
		{ "--reta-size", { "--reta-size", "100" } },
		{ "--reta-size", { "--reta-size", "0" } },
		{ "more queues than --reta-size", { "--reta-size", "64", "-q", "65" } },
		{ "--rss-key", { "--rss-key", "zz" } },
		{ "--rss-key", { "--rss-key", "2cc681d1" } },
		{ "--rss-fields", { "--rss-fields", "l4" } },
		{ "--proto", { "-p", "sctp" } },
		{ "--seed", { "--seed", "x" } },
		{ "--seed", { "--seed", "0x" } },
		{ "unknown option '--bogus'", { "--bogus" } },
		{ "unexpected argument 'extra'", { "extra" } },
		{ "option '--split' needs a value", { "--split" } },
		{ "--streams is for generating", { "--split", "x.pcap", "-s", "3" } },
		{ "--allow-truncated applies to --split only", { "--allow-truncated" } },
		{ "--max-streams applies to --split only", { "--max-streams", "5" } },
		{ "--prefix: empty", { "-o", "" } },
	};
	const char *args[10];
	unsigned int i, j;

	clean_dir();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		args[0] = "-o";
		args[1] = path("bad");
		for (j = 0; j < 6 && cases[i].args[j] != NULL; j++)
			args[2 + j] = cases[i].args[j];
		args[2 + j] = NULL;
		if (expect_fail(cases[i].needle, args) != 0)
			return -1;
	}
	{
		const char *a[] = { "-o", path("nodir/x"), NULL };

		if (expect_fail("nodir: No such file or directory", a) != 0)
			return -1;
	}
	RXR_TEST_ASSERT_EQ(count_files(), 0, "bad options write nothing");
	return 0;
}

static int
test_help(void)
{
	static const char *const opts[] = {
		"--prefix", "--manifest", "--all", "--quiet", "--queues",
		"--reta-size", "--rss-key", "--rss-fields", "--streams",
		"--packets", "--size", "--proto", "--ipv4", "--ipv6", "--vlan",
		"--seed", "--no-balance", "--split", "--allow-truncated",
		"--max-streams", "--help", "--version",
	};
	char out[16384];
	size_t n, i;
	FILE *p;
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "'%s' --help", gen);
	p = popen(cmd, "r");
	RXR_TEST_ASSERT(p != NULL, "popen");
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	RXR_TEST_ASSERT_EQ(pclose(p), 0, "--help exits 0");
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		RXR_TEST_ASSERT(strstr(out, opts[i]) != NULL, "--help lacks %s", opts[i]);
	RXR_TEST_ASSERT_EQ(run("--version", NULL), 0, "--version");
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH-TO-rxrefill-gen\n", argv[0]);
		return EXIT_FAILURE;
	}
	gen = argv[1];
	snprintf(dir, sizeof(dir), "%s/rxrgen.XXXXXX",
		getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror(dir);
		return EXIT_FAILURE;
	}
	rxr_test_run("default: 8 streams over 2 queues", test_default);
	rxr_test_run("fixed sizes 60..65535", test_sizes);
	rxr_test_run("imix", test_imix);
	rxr_test_run("ipv6 and vlan", test_ipv6_vlan);
	rxr_test_run("more streams than queues", test_many_streams);
	rxr_test_run("rss key, fields, balance", test_rss_options);
	rxr_test_run("seed", test_seed);
	rxr_test_run("split gives back the generated files", test_split_roundtrip);
	rxr_test_run("split of odd records", test_split_odd_records);
	rxr_test_run("bad captures", test_bad_captures);
	rxr_test_run("bad options", test_bad_options);
	rxr_test_run("help and version", test_help);
	clean_dir();
	rmdir(dir);
	return rxr_test_done();
}
