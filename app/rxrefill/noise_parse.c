/* SPDX-License-Identifier: BSD-3-Clause */

/* Kernel text files that noise accounting reads, parsed from memory. */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise_parse.h"
#include "rxr_proc_text.h"

uint64_t
noise_cpu_total(const struct noise_cpu_times *t)
{
	return t->user + t->nice + t->system + t->idle + t->iowait + t->irq +
		t->softirq + t->steal;
}

/* A decimal number at *p, blanks before it skipped; *p moves past it. */
static int
next_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	*p = end;
	return 0;
}

/* The start of the line after p's, or NULL at the end of the text. */
static const char *
next_line(const char *p)
{
	p = strchr(p, '\n');
	return p != NULL ? p + 1 : NULL;
}

int
noise_parse_stat_cpu(const char *text, int cpu, struct noise_cpu_times *out)
{
	char name[24];
	size_t nlen;

	if (cpu < 0)
		snprintf(name, sizeof(name), "cpu");
	else
		snprintf(name, sizeof(name), "cpu%d", cpu);
	nlen = strlen(name);
	for (const char *l = text; l != NULL && *l != '\0'; l = next_line(l)) {
		uint64_t *f = &out->user;
		const char *p = l + nlen;
		int n = 0;

		if (strncmp(l, name, nlen) != 0 || (*p != ' ' && *p != '\t'))
			continue;
		memset(out, 0, sizeof(*out));
		/* user nice system idle iowait irq softirq steal [guest ...] */
		while (n < 8 && next_u64(&p, &f[n]) == 0)
			n++;
		/* Kernels since 2.6 give at least seven fields. */
		return n >= 4 ? 0 : -1;
	}
	return -1;
}

int
noise_parse_field(const char *text, const char *key, uint64_t *out)
{
	const char *p = rxr_proc_value(text, key);

	return p != NULL ? next_u64(&p, out) : -1;
}

int
noise_parse_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns,
		uint64_t *slices)
{
	const char *p = text;

	if (next_u64(&p, run_ns) != 0 || next_u64(&p, wait_ns) != 0 ||
			next_u64(&p, slices) != 0)
		return -1;
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	return *p == '\0' ? 0 : -1;
}

int
noise_parse_pid_stat(const char *text, struct noise_task *out)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	const char *p;
	uint64_t v;
	size_t clen;
	char *end;
	long pid;

	memset(out, 0, sizeof(*out));
	out->cpu = -1;
	if (open == NULL || close == NULL || close < open)
		return -1;
	errno = 0;
	pid = strtol(text, &end, 10);
	if (errno != 0 || end == text || pid <= 0 || pid > INT32_MAX)
		return -1;
	out->pid = (int)pid;
	clen = (size_t)(close - open - 1);
	if (clen >= sizeof(out->comm))
		clen = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, clen);
	out->comm[clen] = '\0';
	/* Field 3 is the state; utime and stime are 14 and 15, cpu 39. */
	p = close + 1;
	while (*p == ' ')
		p++;
	if (*p == '\0' || *p == '\n')
		return -1;
	p++;
	for (int field = 4; field <= 39; field++) {
		/* Some fields can be negative (priority, nice): skip a sign. */
		while (*p == ' ')
			p++;
		if (*p == '-')
			p++;
		if (next_u64(&p, &v) != 0)
			return -1;
		if (field == 14)
			out->utime = v;
		else if (field == 15)
			out->stime = v;
		else if (field == 39)
			out->cpu = v < CPU_SETSIZE ? (int)v : -1;
	}
	return out->cpu >= 0 ? 0 : -1;
}

int
noise_parse_cpu_range(const char **p, cpu_set_t *set)
{
	uint64_t lo, hi;

	if (!isdigit((unsigned char)**p) || next_u64(p, &lo) != 0)
		return -1;
	hi = lo;
	if (**p == '-') {
		(*p)++;
		if (!isdigit((unsigned char)**p) || next_u64(p, &hi) != 0 ||
				hi < lo)
			return -1;
	}
	if (hi >= CPU_SETSIZE)
		return -1;
	for (uint64_t c = lo; c <= hi; c++)
		CPU_SET(c, set);
	return 0;
}

int
noise_parse_cpulist(const char *text, cpu_set_t *set)
{
	const char *p = text;

	CPU_ZERO(set);
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '\n')
		return 0;
	while (noise_parse_cpu_range(&p, set) == 0) {
		if (*p != ',') {
			while (*p == ' ' || *p == '\t' || *p == '\n')
				p++;
			return *p == '\0' ? CPU_COUNT(set) : -1;
		}
		p++;
	}
	return -1;
}
