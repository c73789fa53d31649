/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Captures: those of --replay and of the user's own net_pcap devices (the
 * --vdev rx_pcap files), each read before EAL starts (checked, counted,
 * its distinct flows sized for the stream table, copied as Ethernet when
 * net_pcap would read it otherwise); then for --replay one net_pcap port
 * with an RX queue per file.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <jansson.h>

#include <rte_errno.h>
#include <rte_ethdev.h>

#include "rxrefill.h"
#include "rxr_capture.h"
#include "rxr_log.h"
#include "rxr_path.h"

/* A capture and what became of its records, for the report's env. */
static json_t *
capture_json(const char *opt, const char *path, const struct rxr_capture *c,
		uint64_t pkts, uint64_t bytes, bool copied)
{
	char linktypes[256], note[512];

	rxr_capture_linktypes(c, linktypes, sizeof(linktypes));
	rxr_capture_describe(c, note, sizeof(note));
	return json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, "
		"s:I, s:I, s:b, s:s}", "file", path, "given_with", opt,
		"format", c->pcapng ? "pcapng" : "pcap", "linktypes", linktypes,
		"records", (json_int_t)c->records, "packets", (json_int_t)pkts,
		"bytes", (json_int_t)bytes, "snapped", (json_int_t)c->snapped,
		"converted", (json_int_t)c->converted,
		"skipped_empty", (json_int_t)c->skipped[RXR_CAPTURE_SKIP_EMPTY],
		"skipped_invalid",
		(json_int_t)c->skipped[RXR_CAPTURE_SKIP_INVALID],
		"skipped_linktype",
		(json_int_t)c->skipped[RXR_CAPTURE_SKIP_LINKTYPE],
		"copied", copied, "note", note);
}

/* The capture at path opened for reading; said when it cannot be. */
static int
capture_open(struct rxr_capture *cap, const char *opt, const char *path)
{
	char err[RXR_PATH_SHOWN_LEN + 64];
	FILE *f = NULL;

	/* A FIFO would block fopen(), a directory would read as empty. */
	if (rxr_path_check_input(opt, path, err, sizeof(err)) != 0)
		RXR_LOG(ERR, "%s", err);
	else if ((f = fopen(path, "rb")) == NULL)
		RXR_LOG(ERR, "%s %s: %s", opt, path, strerror(errno));
	else if (rxr_capture_open(cap, f) != 0)
		RXR_LOG(ERR, "%s %s: %s", opt, path, cap->err);
	else
		return 0;
	return -1;
}

/*
 * The capture's records, read afresh, into the copy net_pcap replays:
 * Ethernet, every record whole, in a file unlinked at once and named
 * through /proc, so that no other process can change it and it goes when
 * the process does, however it ends. @return the copy's name, or NULL.
 */
static char *
capture_copy(const char *opt, const char *path)
{
	const char *dir = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
	/* Nanosecond pcap, EN10MB, every record within the snap length. */
	const uint32_t hdr[6] = { 0xa1b23c4d, 2 | 4 << 16, 0, 0,
		RXR_CAPTURE_CAPLEN_MAX, 1 };
	char tmpl[PATH_MAX], name[32];
	struct rxr_capture cap;
	struct rxr_capture_rec r;
	FILE *f;
	int fd, ret;

	if (capture_open(&cap, opt, path) != 0)
		return NULL;
	snprintf(tmpl, sizeof(tmpl), "%s/rxrefill-capture-XXXXXX", dir);
	fd = mkstemp(tmpl);
	if (fd < 0) {
		RXR_LOG(ERR, "%s %s: cannot make the Ethernet copy net_pcap "
			"replays in %s: %s (set TMPDIR)", opt, path, dir,
			strerror(errno));
		rxr_capture_close(&cap);
		return NULL;
	}
	unlink(tmpl);
	f = fdopen(dup(fd), "wb");
	if (f == NULL || fwrite(hdr, sizeof(hdr), 1, f) != 1) {
		RXR_LOG(ERR, "%s %s: cannot write its copy in %s: %s", opt,
			path, dir, strerror(errno));
		if (f != NULL)
			fclose(f);
		ret = -1;
	} else {
		while ((ret = rxr_capture_next(&cap, &r)) == 1) {
			const uint32_t h[4] = { (uint32_t)r.ts_sec, r.ts_nsec,
				r.caplen, r.len };

			fwrite(h, sizeof(h), 1, f);
			fwrite(r.data, r.caplen, 1, f);
		}
		if (ret < 0)
			RXR_LOG(ERR, "%s %s: %s", opt, path, cap.err);
		if ((ferror(f) | fclose(f)) != 0) {
			RXR_LOG(ERR, "%s %s: cannot write its copy: %s", opt,
				path, strerror(errno));
			ret = -1;
		}
	}
	rxr_capture_close(&cap);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	if (ret == 0)
		return strdup(name);
	close(fd);
	return NULL;
}

/*
 * A capture for net_pcap, queue q of c, read before EAL as every route
 * does (rxr_capture.h's rule): a bad file fails naming the file and the
 * record. Counts give finite replay its target; distinct flows size the
 * stream tables. One that net_pcap (libpcap) would read otherwise
 * (pcapng, another link type, records skipped or longer than the snap
 * length) is replayed from an Ethernet copy; one replayed as it is is
 * watched for changes (replay_changed()).
 */
static int
capture_scan(struct app *a, const char *opt, const char *path,
		struct replay_counts *c, unsigned int q)
{
	uint16_t room = rxr_mempool_data_room(a->opt.frame_size, 0) -
		RTE_PKTMBUF_HEADROOM;
	struct rxr_capture_flows fs;
	struct rxr_flow_info info;
	struct rxr_capture_rec r;
	struct rxr_capture cap;
	char note[512];
	bool copy;
	int ret;

	c->given[q] = path;
	if (capture_open(&cap, opt, path) != 0)
		return -1;
	if (rxr_capture_flows_init(&fs, UINT32_MAX) != 0) {
		RXR_LOG(ERR, "%s %s: no memory to count its flows", opt, path);
		rxr_capture_close(&cap);
		return -1;
	}
	while ((ret = rxr_capture_next(&cap, &r)) == 1) {
		c->packets[q]++;
		c->bytes[q] += r.caplen;
		c->largest = RTE_MAX(c->largest, r.caplen);
		c->segments += (r.caplen + room - 1) / room;
		if (rxr_flow_parse(r.data, r.caplen, &info) == RXR_FLOW_OK &&
				rxr_capture_flows_add(&fs, &info.key, 0, 0,
					r.caplen) != 0) {
			snprintf(cap.err, sizeof(cap.err), "no memory to "
				"count its flows");
			ret = -1;
			break;
		}
	}
	c->flows[q] = fs.nb_flows;
	rxr_capture_flows_free(&fs);
	rxr_capture_describe(&cap, note, sizeof(note));
	if (ret == 0 && c->packets[q] == 0) {
		RXR_LOG(ERR, "%s %s: no record to replay%s%s", opt, path,
			note[0] ? "; " : "", note);
		ret = -1;
	} else if (ret < 0) {
		RXR_LOG(ERR, "%s %s: %s", opt, path, cap.err);
	} else if (note[0] != '\0') {
		printf(APP ": %s %s: %s; net_pcap replays an Ethernet copy\n",
			opt, path, note);
	}
	copy = cap.pcapng || cap.trimmed || cap.converted != 0 ||
		cap.skipped[RXR_CAPTURE_SKIP_EMPTY] +
		cap.skipped[RXR_CAPTURE_SKIP_INVALID] +
		cap.skipped[RXR_CAPTURE_SKIP_LINKTYPE] != 0;
	c->read[q] = ret != 0 || !copy ? path : capture_copy(opt, path);
	if (ret == 0 && (c->read[q] == NULL ||
			(!copy && stat(path, &c->st[q]) != 0)))
		ret = -1;
	if (ret == 0 && (a->captures != NULL || (a->captures = json_array())))
		json_array_append_new(a->captures, capture_json(opt, path, &cap,
			c->packets[q], c->bytes[q], copy));
	rxr_capture_close(&cap);
	return ret;
}

/* A frame larger than one mbuf's data room: what would hold it, or
 * @p finite, replay that chains mbufs. */
static void
too_large(const struct app *a, const char *opt, const char *path,
		uint32_t largest, uint16_t room, const char *finite)
{
	char bigger[48] = "";
	uint32_t f;

	for (f = a->opt.frame_size; f <= RXR_MEMPOOL_FRAME_SIZE_MAX;
			f += RTE_CACHE_LINE_SIZE)
		if ((uint32_t)rxr_mempool_data_room(f, 0) -
				RTE_PKTMBUF_HEADROOM >= largest)
			break;
	if (f <= RXR_MEMPOOL_FRAME_SIZE_MAX)
		snprintf(bigger, sizeof(bigger), "--frame-size %u or more, or ",
			f);
	RXR_LOG(ERR, "%s %s: frames of up to %u bytes, larger than the "
		"%u-byte data room of --frame-size %u; endless replay needs "
		"each in one mbuf: %s%s, which chains mbufs", opt, path,
		largest, room, a->opt.frame_size, bigger, finite);
}

/*
 * The rx_pcap files of net_pcap device d (named), given with @p opt in
 * @p arg ("NAME,KEY=VALUE,..."), each read by capture_scan(); d->arg is the
 * argument EAL reads, rewritten to name the copies made. --replay's files
 * are checked for endless replay one by one, as they are read. Endless
 * replay keeps a copy of every packet in the pool and copies a burst at
 * a time into frames taken all at once: with fewer net_pcap refuses the
 * queue after EAL, in its own words, or receives nothing and counts no
 * drop.
 */
static int
pcap_dev_read(struct app *a, struct pcap_dev *d, const char *opt,
		const char *arg, uint16_t room, bool replay)
{
	struct replay_counts *c = &d->files;
	char *kv, *save = NULL, *out;
	/* The files' names point into copy (files.given[]). */
	char *copy = strdup(arg);

	out = d->arg = calloc(1, strlen(arg) + 32 * MAX_QUEUES + 1);
	if (copy == NULL || out == NULL) {
		free(copy);
		return -1;
	}
	for (kv = strtok_r(copy, ",", &save); kv != NULL;
			kv = strtok_r(NULL, ",", &save)) {
		if (strncmp(kv, "infinite_rx=", 12) == 0)
			c->endless = strtol(kv + 12, NULL, 10) != 0;
		if (strncmp(kv, "rx_pcap=", 8) != 0 || c->nb == MAX_QUEUES) {
			strcat(out, ",");
			strcat(out, kv);
			continue;
		}
		if (replay)
			c->largest = 0;
		if (capture_scan(a, opt, kv + 8, c, c->nb) != 0)
			return -1;
		strcat(out, ",rx_pcap=");
		strcat(out, c->read[c->nb++]);
		/* net_pcap's endless replay keeps one mbuf per packet and
		 * refuses a chain at queue setup: say so before any port. */
		if (replay && c->endless && c->largest > room) {
			too_large(a, opt, kv + 8, c->largest, room,
				"finite replay (--loops N)");
			return -1;
		}
	}
	if (d->files.nb == 0)
		free(copy);
	if (!c->endless)
		return 0;
	if (c->largest > room) {
		too_large(a, "--vdev", d->name, c->largest, room,
			"infinite_rx=0");
		return -1;
	}
	if (a->opt.frames == 0 || a->opt.frames >= c->segments + a->opt.burst)
		return 0;
	RXR_LOG(ERR, "--frames %u: endless replay keeps the %" PRIu64
		" packets of %s%s in the pool and takes a burst of %u frames "
		"at a time: give at least %" PRIu64 ", leave --frames out "
		"(sized for them)%s", a->opt.frames, c->segments, replay ?
		"the --replay files" : d->name, replay ? "" :
		"'s files (infinite_rx)", a->opt.burst,
		c->segments + a->opt.burst, replay ? ", or replay the files N "
		"times (--loops N)" : "");
	return -1;
}

/*
 * The --replay files, as the table's first net_pcap device, then the
 * --vdev net_pcap devices of EAL's arguments, each argument rewritten to
 * name the copies made. Counts kept by device name for ports_init().
 */
int
replay_prepare(struct app *a, int argc, char **argv)
{
	uint16_t room = rxr_mempool_data_room(a->opt.frame_size, 0) -
		RTE_PKTMBUF_HEADROOM;

	if (a->opt.nb_replay != 0) {
		char *arg = NULL;
		size_t len;
		FILE *f = open_memstream(&arg, &len);
		int ret;

		if (f == NULL)
			return -1;
		/* No name has a ',' or '=': --replay refuses them. */
		fputs(REPLAY_VDEV, f);
		for (unsigned int i = 0; i < a->opt.nb_replay; i++)
			fprintf(f, ",rx_pcap=%s", a->opt.replay[i]);
		/* Finite replay reads each file once per port start. */
		fputs(a->opt.loops == 0 ? ",infinite_rx=1" : "", f);
		a->nb_pcap_devs = 1;
		snprintf(a->pcap_devs[0].name, RTE_DEV_NAME_MAX_LEN, "%s",
			REPLAY_VDEV);
		a->pcap_devs[0].files.endless = a->opt.loops == 0;
		ret = fclose(f) != 0 ? -1 : pcap_dev_read(a, &a->pcap_devs[0],
			"--replay", arg, room, true);
		free(arg);
		if (ret != 0)
			return -1;
	}
	for (int i = 1; i < argc; i++) {
		char *arg = strncmp(argv[i], "--vdev=", 7) == 0 ? argv[i] + 7 :
			strcmp(argv[i], "--vdev") == 0 && i + 1 < argc ?
			argv[++i] : NULL;
		char opt[RTE_DEV_NAME_MAX_LEN + 8];
		struct pcap_dev *d;

		if (arg == NULL || strncmp(arg, "net_pcap", 8) != 0 ||
				a->nb_pcap_devs == MAX_PORTS)
			continue;
		d = &a->pcap_devs[a->nb_pcap_devs++];
		snprintf(d->name, sizeof(d->name), "%.*s",
			(int)strcspn(arg, ","), arg);
		snprintf(opt, sizeof(opt), "--vdev %s", d->name);
		if (pcap_dev_read(a, d, opt, arg, room, false) != 0)
			return -1;
		argv[i] = d->arg + 1;	/* past the first "," */
	}
	return 0;
}

bool
replay_ports(const struct app *a)
{
	for (unsigned int i = 0; i < a->nb_ports; i++)
		if (a->ports[i].files.nb != 0)
			return true;
	return false;
}

bool
replay_changed(const struct app *a)
{
	for (unsigned int i = 0; i < a->nb_ports; i++) {
		const struct replay_counts *c = &a->ports[i].files;

		for (unsigned int q = 0; q < c->nb; q++) {
			const struct stat *was = &c->st[q];
			struct stat now;
			const char *why;

			if (c->read[q] != c->given[q])
				continue;
			why = stat(c->given[q], &now) != 0 ? strerror(errno) :
				now.st_size != was->st_size ? "its size" :
				now.st_ino != was->st_ino ||
				now.st_dev != was->st_dev ? "another file" :
				now.st_mtim.tv_sec != was->st_mtim.tv_sec ||
				now.st_mtim.tv_nsec != was->st_mtim.tv_nsec ?
				"its modification time" : NULL;
			if (why == NULL)
				continue;
			RXR_LOG(ERR, "%s: the capture changed while it was "
				"replayed (%s): the run stops, its counts no "
				"longer match the file", c->given[q], why);
			return true;
		}
	}
	return false;
}

int
ports_create_replay(struct app *a)
{
	uint16_t id;
	int ret;

	/* EAL would take a second probe of the name as done: the port would
	 * replay that device's files, not the ones scanned. */
	if (rte_eth_dev_get_port_by_name(REPLAY_VDEV, &id) == 0) {
		RXR_LOG(ERR, "--vdev %s: the name of the port --replay makes; "
			"give the device another name", REPLAY_VDEV);
		return -1;
	}
	/* Its argument as replay_prepare() rewrote it, past ",NAME,". */
	ret = rte_eal_hotplug_add("vdev", REPLAY_VDEV,
		strchr(a->pcap_devs[0].arg + 1, ',') + 1);
	if (ret != 0) {
		RXR_LOG(ERR, "cannot create the net_pcap replay port: %s",
			rte_strerror(-ret));
		return -1;
	}
	return 0;
}
