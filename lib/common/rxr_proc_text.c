/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Readers of /proc "KEY: value" text and of the CPU model
 * (rxr_proc_text.h).
 */

#include <ctype.h>
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

const char *
rxr_proc_value(const char *text, const char *key)
{
	size_t klen = strlen(key);

	if (klen == 0)
		return NULL;
	for (const char *l = text; l != NULL && *l != '\0'; l = next_line(l)) {
		const char *p = l;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, key, klen) != 0)
			continue;
		p += klen;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;	/* a longer key that starts with key */
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		return p;
	}
	return NULL;
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
