/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Output files. Each is written under a temporary name in its own directory
 * and renamed over the final name only once everything succeeded, so a
 * reader never sees half a capture or half a manifest.
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <rte_common.h>

#include "gen.h"
#include "rxr_path.h"

/*
 * The temporary files not yet renamed or removed, for the signal handler:
 * a slot is set once its name is complete and cleared before it is freed,
 * with the signals blocked meanwhile. Room for every output at once: each
 * queue's, the --all file and the manifest.
 */
#define LIVE_MAX (RXR_FLOW_QUEUES_MAX + 2)
static char *volatile live[LIVE_MAX];
static const int stop_signals[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };

static void
stop_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < RTE_DIM(stop_signals); i++)
		sigaddset(set, stop_signals[i]);
}

static void
live_set(const char *from, char *to)
{
	sigset_t set, old;

	stop_set(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	for (size_t i = 0; i < LIVE_MAX; i++)
		if (live[i] == from) {
			live[i] = to;
			break;
		}
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static void
on_stop_signal(int sig)
{
	/* unlink() and raise() are async-signal-safe. */
	for (size_t i = 0; i < LIVE_MAX; i++)
		if (live[i] != NULL)
			unlink(live[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

int
gen_out_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	stop_set(&sa.sa_mask);
	for (size_t i = 0; i < RTE_DIM(stop_signals); i++)
		if (sigaction(stop_signals[i], &sa, NULL) != 0)
			return -1;
	/* A file past ulimit -f: EFBIG, a write error; the signal kills. */
	return signal(SIGXFSZ, SIG_IGN) == SIG_ERR ? -1 : 0;
}

/* Forget a temporary file, removed unless renamed, then free its name. */
static void
tmp_drop(char **tmp, bool remove)
{
	if (*tmp == NULL)
		return;
	if (remove)
		unlink(*tmp);
	live_set(*tmp, NULL);
	free(*tmp);
	*tmp = NULL;
}

/* A temporary file next to path, listed; its name in *tmp (malloc'd). */
static FILE *
tmp_open(const char *path, char **tmp, struct gen_err *e)
{
	mode_t mask = umask(0);
	sigset_t set, old;
	const char *step;
	FILE *f;

	umask(mask);
	/* Created and listed with no signal in between. */
	stop_set(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	f = rxr_path_tmp_open(path, "", 0666 & ~mask, tmp, &step);
	if (f != NULL)
		live_set(NULL, *tmp);
	else
		gen_err_set(e, "%s: cannot create a temporary file next to it: %s",
			path, strerror(errno));
	sigprocmask(SIG_SETMASK, &old, NULL);
	return f;
}

/*
 * Flush and sync a stream we wrote; report the first write error (err: the
 * errno of a failure seen earlier, 0 if none).
 */
static int
sync_file(FILE *f, const char *path, int err, struct gen_err *e)
{
	errno = 0;
	if (err != 0 || fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
		if (err == 0)
			err = errno;
		gen_err_set(e, "%s: write failed: %s", path,
			err != 0 ? strerror(err) : "I/O error");
		return -1;
	}
	return 0;
}

/* The temporary file renamed over path; removed when it cannot be. */
static int
tmp_rename(char **tmp, const char *path, struct gen_err *e)
{
	int ret = rename(*tmp, path);

	if (ret != 0)
		gen_err_set(e, "%s: cannot rename %s over it: %s", path, *tmp,
			strerror(errno));
	tmp_drop(tmp, ret != 0);
	return ret != 0 ? -1 : 0;
}

int
gen_out_open(struct gen_out *o, const char *path, int linktype, int snaplen,
		unsigned int precision, struct gen_err *e)
{
	FILE *f;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->dead = pcap_open_dead_with_tstamp_precision(linktype, snaplen,
		precision);
	if (o->dead == NULL) {
		gen_err_set(e, "%s: cannot set up a libpcap writer", path);
		return -1;
	}
	f = tmp_open(path, &o->tmp, e);
	if (f == NULL)
		return -1;
	o->dumper = pcap_dump_fopen(o->dead, f);
	if (o->dumper == NULL) {
		gen_err_set(e, "%s: %s", path, pcap_geterr(o->dead));
		fclose(f);
		return -1;
	}
	return 0;
}

int
gen_out_write(struct gen_out *o, const struct pcap_pkthdr *h,
		const uint8_t *data, struct gen_err *e)
{
	FILE *f = pcap_dump_file(o->dumper);

	pcap_dump((u_char *)o->dumper, h, data);
	o->packets++;
	o->bytes += h->len;
	o->captured += h->caplen;
	/*
	 * pcap_dump() cannot fail loudly: keep the errno of the first failed
	 * write (a full disk), which later calls would overwrite.
	 */
	if (__builtin_expect(ferror_unlocked(f) != 0, 0) && o->write_errno == 0)
		o->write_errno = errno != 0 ? errno : EIO;
	if (__builtin_expect(o->write_errno != 0, 0) && (o->packets & 0xffff) == 0) {
		gen_err_set(e, "%s: write failed: %s", o->path,
			strerror(o->write_errno));
		return -1;
	}
	return 0;
}

void
gen_out_abort(struct gen_out *o)
{
	if (o->dumper != NULL)
		pcap_dump_close(o->dumper);
	o->dumper = NULL;
	tmp_drop(&o->tmp, true);
	if (o->dead != NULL)
		pcap_close(o->dead);
	o->dead = NULL;
}

/* The manifest, written as the captures are (or to stdout for "-"). */
static int
json_write(const json_t *doc, const char *path, struct gen_err *e)
{
	const size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER;
	int err = 0, ret;
	char *tmp;
	FILE *f;

	if (rxr_path_is_stdout(path)) {
		if (json_dumpf(doc, stdout, flags) != 0 ||
				fputc('\n', stdout) == EOF || fflush(stdout) != 0) {
			gen_err_set(e, "standard output: write failed");
			return -1;
		}
		return 0;
	}
	f = tmp_open(path, &tmp, e);
	if (f == NULL)
		return -1;
	errno = 0;
	if (json_dumpf(doc, f, flags) != 0 || fputc('\n', f) == EOF)
		err = errno != 0 ? errno : EIO;
	ret = sync_file(f, path, err, e);
	if (fclose(f) != 0 && ret == 0) {
		gen_err_set(e, "%s: write failed: %s", path, strerror(errno));
		ret = -1;
	}
	if (ret != 0) {
		tmp_drop(&tmp, true);
		return -1;
	}
	return tmp_rename(&tmp, path, e);
}

int
gen_out_commit(struct gen_out *outs, uint32_t n, const json_t *doc,
		const char *manifest, struct gen_err *e)
{
	uint32_t q;

	/* Every capture on disk before any is renamed. */
	for (q = 0; q < n; q++) {
		struct gen_out *o = &outs[q];
		int ret = sync_file(pcap_dump_file(o->dumper), o->path,
			o->write_errno, e);

		pcap_dump_close(o->dumper);
		o->dumper = NULL;
		if (ret != 0)
			return -1;
	}
	for (q = 0; q < n; q++)
		if (tmp_rename(&outs[q].tmp, outs[q].path, e) != 0)
			return -1;
	return json_write(doc, manifest, e);
}
