/* SPDX-License-Identifier: BSD-3-Clause */

/* Parsers of the kernel's text files and the CPU model (rxr_proc_text.h). */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_proc_text.h"

/* The line after l, or NULL after the last. */
static const char *
next_line(const char *l)
{
	const char *nl = strchr(l, '\n');

	return nl != NULL ? nl + 1 : NULL;
}

/* A decimal number at *p, blanks before it skipped; *p moves past it. */
static int
next_u64(const char **p, uint64_t *v)
{
	const char *s = *p + strspn(*p, " \t");
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	*p = end;
	return 0;
}

const char *
rxr_proc_value(const char *text, const char *key)
{
	size_t klen = strlen(key);

	if (klen == 0)
		return NULL;
	for (const char *l = text; l != NULL && *l != '\0'; l = next_line(l)) {
		const char *p = l + strspn(l, " \t");

		if (strncmp(p, key, klen) != 0)
			continue;
		p += klen + strspn(p + klen, " \t");
		/* Else a longer key that starts with key. */
		if (*p == ':')
			return p + 1 + strspn(p + 1, " \t");
	}
	return NULL;
}

int
rxr_proc_u64(const char *text, const char *key, uint64_t *out)
{
	const char *p = rxr_proc_value(text, key);

	return p != NULL ? next_u64(&p, out) : -1;
}

int
rxr_proc_stat_cpu(const char *text, unsigned int cpu, uint64_t *steal,
		uint64_t *total)
{
	char name[24];
	size_t nlen = (size_t)snprintf(name, sizeof(name), "cpu%u", cpu);

	for (const char *l = text; l != NULL && *l != '\0'; l = next_line(l)) {
		const char *p = l + nlen;
		uint64_t v = 0;
		int n = 0;

		if (strncmp(l, name, nlen) != 0 || (*p != ' ' && *p != '\t'))
			continue;
		/* user nice system idle iowait irq softirq steal [guest ...] */
		for (*total = 0; n < 8 && next_u64(&p, &v) == 0; n++)
			*total += v;
		*steal = n == 8 ? v : 0;
		/* Kernels since 2.6 give at least seven fields. */
		return n >= 4 ? 0 : -1;
	}
	return -1;
}

int
rxr_proc_schedstat(const char *text, uint64_t *run_ns, uint64_t *wait_ns)
{
	const char *p = text;
	uint64_t slices;

	if (next_u64(&p, run_ns) != 0 || next_u64(&p, wait_ns) != 0 ||
			next_u64(&p, &slices) != 0)
		return -1;
	return p[strspn(p, " \t\n")] == '\0' ? 0 : -1;
}

int
rxr_proc_pid_stat(const char *text, struct rxr_proc_task *out)
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
	/* Field 3 is the state; utime and stime are 14 and 15, cpu 39. */
	p = close + 1 + strspn(close + 1, " ");
	if (*p == '\0' || *p == '\n')
		return -1;
	p++;
	for (int field = 4; field <= 39; field++) {
		/* Some fields can be negative (priority, nice): skip a sign. */
		p += strspn(p, " ");
		if (*p == '-')
			p++;
		if (next_u64(&p, &v) != 0)
			return -1;
		if (field == 14 || field == 15)
			out->ticks += v;
		else if (field == 39)
			out->cpu = v < CPU_SETSIZE ? (int)v : -1;
	}
	return out->cpu >= 0 ? 0 : -1;
}

int
rxr_proc_cpu_range(const char **p, cpu_set_t *set)
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
rxr_proc_cpulist(const char *text, cpu_set_t *set)
{
	const char *p = text + strspn(text, " \t");

	CPU_ZERO(set);
	if (*p == '\0' || *p == '\n')
		return 0;
	while (rxr_proc_cpu_range(&p, set) == 0) {
		if (*p != ',')
			return p[strspn(p, " \t\n")] == '\0' ? CPU_COUNT(set) :
				-1;
		p++;
	}
	return -1;
}

/* The first non-empty value of key into buf, blanks at its end cut. */
static int
cpuinfo_value(const char *text, const char *key, char *buf, size_t len)
{
	for (const char *v = rxr_proc_value(text, key); v != NULL;
			v = rxr_proc_value(next_line(v), key)) {
		const char *eol = v + strcspn(v, "\n");

		while (eol > v && isspace((unsigned char)eol[-1]))
			eol--;
		if (eol == v)
			continue;
		snprintf(buf, len, "%.*s", (int)(eol - v), v);
		return 0;
	}
	return -1;
}

int
rxr_cpu_model_parse(const char *text, char *buf, size_t len)
{
	static const char *const keys[] = {
		"model name", "Processor", "cpu model", "cpu", "uarch",
		"Hardware",
	};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (cpuinfo_value(text, keys[i], buf, len) == 0)
			return 0;
	return -1;
}

int
rxr_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t cap = 0;
	char *text = NULL;
	int ret = -1;

	/* The whole file: it holds no NUL. */
	if (f != NULL && getdelim(&text, &cap, '\0', f) > 0)
		ret = rxr_cpu_model_parse(text, buf, len);
	if (f != NULL)
		fclose(f);
	free(text);
	if (ret != 0)
		snprintf(buf, len, "%s", RXR_CPU_MODEL_UNKNOWN);
	return ret;
}
