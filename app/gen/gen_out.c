/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Output files. Each is written under a temporary name in its own directory
 * and renamed over the final name only once everything succeeded, so a
 * reader never sees half a capture or half a manifest.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "gen.h"

char *
gen_queue_path(const char *prefix, unsigned int queue)
{
	char *p;

	if (asprintf(&p, "%s.q%u.pcap", prefix, queue) < 0)
		return NULL;
	return p;
}

/* A temporary file next to path; its name in *tmp (malloc'd). */
static FILE *
tmp_open(const char *path, char **tmp, struct gen_err *e)
{
	mode_t mask;
	FILE *f;
	int fd;

	if (asprintf(tmp, "%s.tmp.XXXXXX", path) < 0) {
		*tmp = NULL;
		gen_err_set(e, "out of memory");
		return NULL;
	}
	fd = mkstemp(*tmp);
	if (fd < 0) {
		gen_err_set(e, "%s: cannot create a temporary file next to it: %s",
			path, strerror(errno));
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	/* mkstemp() makes 0600 files; give the final ones the usual mode. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		gen_err_set(e, "%s: %s", *tmp, strerror(errno));
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	f = fdopen(fd, "wb");
	if (f == NULL) {
		gen_err_set(e, "%s: %s", *tmp, strerror(errno));
		close(fd);
		unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

/* Flush and sync a stream we wrote; report the first write error. */
static int
sync_file(FILE *f, const char *path, struct gen_err *e)
{
	errno = 0;
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
		gen_err_set(e, "%s: write failed: %s", path,
			errno != 0 ? strerror(errno) : "I/O error");
		return -1;
	}
	return 0;
}

int
gen_out_open(struct gen_out *o, const char *path, int linktype, int snaplen,
		unsigned int precision, struct gen_err *e)
{
	FILE *f;

	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (o->path == NULL) {
		gen_err_set(e, "out of memory");
		return -1;
	}
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
		gen_err_set(e, "%s: %s", o->tmp, pcap_geterr(o->dead));
		fclose(f);
		return -1;
	}
	return 0;
}

int
gen_out_write(struct gen_out *o, const struct pcap_pkthdr *h,
		const uint8_t *data, struct gen_err *e)
{
	pcap_dump((u_char *)o->dumper, h, data);
	o->packets++;
	o->bytes += h->len;
	o->captured += h->caplen;
	/* pcap_dump() cannot fail loudly: look at the stream now and then. */
	if ((o->packets & 0xffff) == 0 && ferror(pcap_dump_file(o->dumper))) {
		gen_err_set(e, "%s: write failed: %s", o->path, strerror(errno));
		return -1;
	}
	return 0;
}

int
gen_out_finish(struct gen_out *o, struct gen_err *e)
{
	int ret;

	if (o->dumper == NULL)
		return 0;
	ret = sync_file(pcap_dump_file(o->dumper), o->path, e);
	pcap_dump_close(o->dumper);
	o->dumper = NULL;
	return ret;
}

int
gen_out_commit(struct gen_out *o, struct gen_err *e)
{
	if (rename(o->tmp, o->path) != 0) {
		gen_err_set(e, "%s: cannot rename %s over it: %s", o->path,
			o->tmp, strerror(errno));
		return -1;
	}
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

void
gen_out_abort(struct gen_out *o)
{
	if (o->dumper != NULL)
		pcap_dump_close(o->dumper);
	o->dumper = NULL;
	if (o->tmp != NULL)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	if (o->dead != NULL)
		pcap_close(o->dead);
	o->dead = NULL;
	free(o->path);
	o->path = NULL;
}

int
gen_json_write(const json_t *doc, const char *path, struct gen_err *e)
{
	const size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER;
	char *tmp;
	FILE *f;
	int ret = -1;

	if (strcmp(path, "-") == 0) {
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
	if (json_dumpf(doc, f, flags) != 0 || fputc('\n', f) == EOF)
		gen_err_set(e, "%s: write failed: %s", path, strerror(errno));
	else if (sync_file(f, path, e) == 0)
		ret = 0;
	if (fclose(f) != 0 && ret == 0) {
		gen_err_set(e, "%s: write failed: %s", path, strerror(errno));
		ret = -1;
	}
	if (ret == 0 && rename(tmp, path) != 0) {
		gen_err_set(e, "%s: cannot rename %s over it: %s", path, tmp,
			strerror(errno));
		ret = -1;
	}
	if (ret != 0)
		unlink(tmp);
	free(tmp);
	return ret;
}
