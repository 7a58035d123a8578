/*
 * json.c - client configs written byte for byte as Python's
 * json.dumps(obj, indent=2) writes them (reference §7).
 *
 * The values are the recipe's own YAML nodes, which already carry Python's
 * types. jansson's json_dumps() cannot produce this text: it differs from
 * Python exactly where the reference (§7) pins the format down (floats: "%.17g" vs
 * Python's shortest repr such as 64.0 or 1e+16; \u escapes: upper- vs
 * lower-case hex, DEL; Infinity/NaN: refused vs written). jansson stays the
 * reader: the tests parse every file we write with it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

/* Python's ensure_ascii string encoding. */
static void put_string(struct mcri_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	mcri_buf_puts(b, "\"");
	while (p < end) {
		unsigned int cp;
		int extra;

		if (*p < 0x80) {
			unsigned char c = *p++;

			switch (c) {
			case '"':
				mcri_buf_puts(b, "\\\"");
				break;
			case '\\':
				mcri_buf_puts(b, "\\\\");
				break;
			case '\n':
				mcri_buf_puts(b, "\\n");
				break;
			case '\r':
				mcri_buf_puts(b, "\\r");
				break;
			case '\t':
				mcri_buf_puts(b, "\\t");
				break;
			case '\b':
				mcri_buf_puts(b, "\\b");
				break;
			case '\f':
				mcri_buf_puts(b, "\\f");
				break;
			default:
				if (c < 0x20 || c == 0x7f)
					mcri_buf_printf(b, "\\u%04x", c);
				else
					mcri_buf_add(b, (const char *)&c, 1);
			}
			continue;
		}
		/* libyaml accepted only valid UTF-8 */
		if ((*p & 0xe0) == 0xc0) {
			cp = *p & 0x1f;
			extra = 1;
		} else if ((*p & 0xf0) == 0xe0) {
			cp = *p & 0x0f;
			extra = 2;
		} else {
			cp = *p & 0x07;
			extra = 3;
		}
		p++;
		for (int i = 0; i < extra && p < end; i++)
			cp = (cp << 6) | (*p++ & 0x3f);
		if (cp >= 0x10000) {
			cp -= 0x10000;
			mcri_buf_printf(b, "\\u%04x\\u%04x", 0xd800 + (cp >> 10), 0xdc00 + (cp & 0x3ff));
		} else {
			mcri_buf_printf(b, "\\u%04x", cp);
		}
	}
	mcri_buf_puts(b, "\"");
}

static void indent(struct mcri_buf *b, int level)
{
	mcri_buf_puts(b, "\n");
	for (int i = 0; i < level; i++)
		mcri_buf_puts(b, "  ");
}

/* n at indentation `level`; stops adding once the text passes `max` bytes
 * (the caller refuses it then) */
static void put_node(struct mcri_buf *b, const struct mcri_node *n, int level, size_t max)
{
	char num[64];

	if (b->len > max)
		return;
	switch (n->type) {
	case MCRI_T_NULL:
		mcri_buf_puts(b, "null");
		break;
	case MCRI_T_BOOL:
		mcri_buf_puts(b, n->b ? "true" : "false");
		break;
	case MCRI_T_INT:
		if (n->s)
			mcri_buf_puts(b, n->s);
		else
			mcri_buf_printf(b, "%lld", n->i);
		break;
	case MCRI_T_FLOAT:
		if (isnan(n->f))
			mcri_buf_puts(b, "NaN");
		else if (isinf(n->f))
			mcri_buf_puts(b, n->f < 0 ? "-Infinity" : "Infinity");
		else {
			mcri_float_repr(n->f, num, sizeof(num));
			mcri_buf_puts(b, num);
		}
		break;
	case MCRI_T_STR:
		put_string(b, n->s, strlen(n->s));
		break;
	case MCRI_T_SEQ:
		if (n->n == 0) {
			mcri_buf_puts(b, "[]");
			break;
		}
		mcri_buf_puts(b, "[");
		for (size_t i = 0; i < n->n && b->len <= max; i++) {
			if (i)
				mcri_buf_puts(b, ",");
			indent(b, level + 1);
			put_node(b, n->items[i], level + 1, max);
		}
		indent(b, level);
		mcri_buf_puts(b, "]");
		break;
	case MCRI_T_MAP:
		if (n->n == 0) {
			mcri_buf_puts(b, "{}");
			break;
		}
		mcri_buf_puts(b, "{");
		for (size_t i = 0; i < n->n && b->len <= max; i++) {
			char *key = mcri_json_key(n->keys[i]);

			if (i)
				mcri_buf_puts(b, ",");
			indent(b, level + 1);
			if (!key) {
				b->oom = true;
				return;
			}
			put_string(b, key, strlen(key));
			free(key);
			mcri_buf_puts(b, ": ");
			put_node(b, n->items[i], level + 1, max);
		}
		indent(b, level);
		mcri_buf_puts(b, "}");
		break;
	}
}

int mcri_payload_dumps(const struct mcr_recipe *r, const struct mcri_payload *p, const char *what, size_t *budget,
		       char **out, struct mcr_error *err)
{
	struct mcri_buf b = { 0 };

	*out = NULL;
	mcri_buf_puts(&b, "{");
	for (size_t i = 0; i < p->n && b.len <= *budget; i++) {
		if (i)
			mcri_buf_puts(&b, ",");
		indent(&b, 1);
		put_string(&b, p->e[i].key, strlen(p->e[i].key));
		mcri_buf_puts(&b, ": ");
		if (p->e[i].val)
			put_node(&b, p->e[i].val, 1, *budget);
		else
			put_string(&b, p->e[i].text, strlen(p->e[i].text));
	}
	if (p->n)
		indent(&b, 0);
	mcri_buf_puts(&b, "}");
	if (!b.oom && b.len > *budget) {
		free(b.p);
		return mcri_error_set(
			err, MCR_EINVAL,
			"the client config %s would take the render past %zu bytes, what one render may write for this recipe (%u times its %zu bytes, plus %u KiB); make the client config's values smaller (aliases repeat a value wherever they are used)",
			what, mcri_render_max(r), MCRI_RENDER_FACTOR, r->doc->input_len, MCRI_RENDER_SLACK >> 10);
	}
	if (!(*out = mcri_buf_take(&b)))
		return mcri_error_nomem(err);
	*budget -= strlen(*out);
	return 0;
}

char *mcri_value_json(const struct mcri_node *n, const char *text)
{
	struct mcri_buf b = { 0 };
	char *s, *w;

	if (n)
		put_node(&b, n, 0, SIZE_MAX); /* a value of a loaded recipe: bounded by its limits */
	else
		put_string(&b, text, strlen(text));
	if (!(s = mcri_buf_take(&b)))
		return NULL;
	/* one line: a collection's newlines and indents become one blank */
	w = s;
	for (const char *r = s; *r; r++) {
		if (*r == '\n') {
			while (r[1] == ' ')
				r++;
			if (w > s && (w[-1] == '[' || w[-1] == '{'))
				continue;
			if (r[1] == ']' || r[1] == '}')
				continue;
			*w++ = ' ';
			continue;
		}
		*w++ = *r;
	}
	*w = '\0';
	return s;
}
