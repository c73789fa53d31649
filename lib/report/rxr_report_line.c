/* SPDX-License-Identifier: BSD-3-Clause */

/* A growing line of text, printed whole or wrapped within 120 columns. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxr_report_priv.h"

#define TEXT_COLUMNS 120	/* what a line of the brief output fits in */

void
rxrr_line_add(struct rxrr_line *l, const char *fmt, ...)
{
	char *dst = l->big != NULL ? l->big : l->buf;
	size_t cap = l->big != NULL ? l->cap : sizeof(l->buf);
	va_list ap;
	int n;

	if (l->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(dst + l->len, cap - l->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		l->oom = true;
		return;
	}
	if (l->len + (size_t)n >= cap) {
		size_t ncap = 2 * (l->len + (size_t)n + 1);
		char *nb = realloc(l->big, ncap);

		if (nb == NULL) {
			l->oom = true;
			return;
		}
		if (l->big == NULL)
			memcpy(nb, l->buf, l->len);
		l->big = nb;
		l->cap = ncap;
		va_start(ap, fmt);
		vsnprintf(l->big + l->len, ncap - l->len, fmt, ap);
		va_end(ap);
	}
	l->len += (size_t)n;
}

void
rxrr_line_put(struct rxrr_line *l, FILE *out)
{
	char *s = l->big != NULL ? l->big : l->buf;

	while (l->len > 0 && s[l->len - 1] == ' ')
		l->len--;
	s[l->len] = '\0';
	fputs(s, out);
	fputc('\n', out);
	l->len = 0;
}

/*
 * A sentence line within TEXT_COLUMNS: broken at spaces, the rest indented
 * by four (lists indent their items by two). A word longer than a line
 * stays whole.
 */
void
rxrr_line_put_wrapped(struct rxrr_line *l, FILE *out)
{
	char *s = l->big != NULL ? l->big : l->buf;
	size_t start = 0, width = TEXT_COLUMNS;

	while (l->len > 0 && s[l->len - 1] == ' ')
		l->len--;
	s[l->len] = '\0';
	while (l->len - start > width) {
		size_t cut = start + width;

		while (cut > start && s[cut] != ' ')
			cut--;
		if (cut == start) {
			cut = start + width;
			while (cut < l->len && s[cut] != ' ')
				cut++;
			if (cut == l->len)
				break;
		}
		fprintf(out, "%s%.*s\n", start == 0 ? "" : "    ",
			(int)(cut - start), s + start);
		start = cut + 1;
		width = TEXT_COLUMNS - 4;
	}
	fprintf(out, "%s%s\n", start == 0 ? "" : "    ", s + start);
	l->len = 0;
}

void
rxrr_line_free(struct rxrr_line *l)
{
	free(l->big);
	l->big = NULL;
}
