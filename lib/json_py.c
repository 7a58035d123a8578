/*
 * json_py.c - client configs written byte for byte as Python's
 * json.dumps(obj, indent=2) writes them (§2.1 "Encoding").
 *
 * The values are the recipe's own YAML nodes, which already carry Python's
 * types. jansson's json_dumps() cannot produce this text: it differs from
 * Python exactly where the spec pins the format down (floats: "%.17g" vs
 * Python's shortest repr such as 64.0 or 1e+16; \u escapes: upper- vs
 * lower-case hex, DEL; Infinity/NaN: refused vs written). jansson stays the
 * reader: the tests parse every file we write with it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* json.dumps turns non-string keys into strings this way */
static char *json_key(const struct mcr_node *k)
{
	char num[64];

	switch (k->type) {
	case MCR_T_STR:
		return strdup(k->s);
	case MCR_T_NULL:
		return strdup("null");
	case MCR_T_BOOL:
		return strdup(k->b ? "true" : "false");
	case MCR_T_INT:
		return k->s ? strdup(k->s) : mcr_asprintf("%lld", k->i);
	case MCR_T_FLOAT:
		if (isnan(k->f))
			return strdup("NaN");
		if (isinf(k->f))
			return strdup(k->f < 0 ? "-Infinity" : "Infinity");
		mcr_float_repr(k->f, num, sizeof(num));
		return strdup(num);
	default:
		return NULL;
	}
}

/* Python's ensure_ascii string encoding. */
static void put_string(struct mcr_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	mcr_buf_puts(b, "\"");
	while (p < end) {
		unsigned int cp;
		int extra;

		if (*p < 0x80) {
			unsigned char c = *p++;

			switch (c) {
			case '"':
				mcr_buf_puts(b, "\\\"");
				break;
			case '\\':
				mcr_buf_puts(b, "\\\\");
				break;
			case '\n':
				mcr_buf_puts(b, "\\n");
				break;
			case '\r':
				mcr_buf_puts(b, "\\r");
				break;
			case '\t':
				mcr_buf_puts(b, "\\t");
				break;
			case '\b':
				mcr_buf_puts(b, "\\b");
				break;
			case '\f':
				mcr_buf_puts(b, "\\f");
				break;
			default:
				if (c < 0x20 || c == 0x7f)
					mcr_buf_printf(b, "\\u%04x", c);
				else
					mcr_buf_add(b, (const char *)&c, 1);
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
			mcr_buf_printf(b, "\\u%04x\\u%04x", 0xd800 + (cp >> 10),
				       0xdc00 + (cp & 0x3ff));
		} else {
			mcr_buf_printf(b, "\\u%04x", cp);
		}
	}
	mcr_buf_puts(b, "\"");
}

static void indent(struct mcr_buf *b, int level)
{
	mcr_buf_puts(b, "\n");
	for (int i = 0; i < level; i++)
		mcr_buf_puts(b, "  ");
}

static void put_node(struct mcr_buf *b, const struct mcr_node *n, int level)
{
	char num[64];

	switch (n->type) {
	case MCR_T_NULL:
		mcr_buf_puts(b, "null");
		break;
	case MCR_T_BOOL:
		mcr_buf_puts(b, n->b ? "true" : "false");
		break;
	case MCR_T_INT:
		if (n->s)
			mcr_buf_puts(b, n->s);
		else
			mcr_buf_printf(b, "%lld", n->i);
		break;
	case MCR_T_FLOAT:
		if (isnan(n->f))
			mcr_buf_puts(b, "NaN");
		else if (isinf(n->f))
			mcr_buf_puts(b, n->f < 0 ? "-Infinity" : "Infinity");
		else {
			mcr_float_repr(n->f, num, sizeof(num));
			mcr_buf_puts(b, num);
		}
		break;
	case MCR_T_STR:
		put_string(b, n->s, strlen(n->s));
		break;
	case MCR_T_SEQ:
		if (n->n == 0) {
			mcr_buf_puts(b, "[]");
			break;
		}
		mcr_buf_puts(b, "[");
		for (size_t i = 0; i < n->n; i++) {
			if (i)
				mcr_buf_puts(b, ",");
			indent(b, level + 1);
			put_node(b, n->items[i], level + 1);
		}
		indent(b, level);
		mcr_buf_puts(b, "]");
		break;
	case MCR_T_MAP:
		if (n->n == 0) {
			mcr_buf_puts(b, "{}");
			break;
		}
		mcr_buf_puts(b, "{");
		for (size_t i = 0; i < n->n; i++) {
			char *key = json_key(n->keys[i]);

			if (i)
				mcr_buf_puts(b, ",");
			indent(b, level + 1);
			if (!key) {
				b->oom = true;
				return;
			}
			put_string(b, key, strlen(key));
			free(key);
			mcr_buf_puts(b, ": ");
			put_node(b, n->items[i], level + 1);
		}
		indent(b, level);
		mcr_buf_puts(b, "}");
		break;
	}
}

/* ---- payloads: ordered key -> value maps ---------------------------- */

int mcr_payload_set(struct mcr_payload *p, const char *key,
		    const struct mcr_node *val, const char *text)
{
	struct mcr_payload_entry *e = NULL;
	char *t = NULL;

	if (text && !(t = strdup(text)))
		return -1;
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->e[i].key, key) == 0)
			e = &p->e[i];
	if (!e) {
		if (p->n == p->cap) {
			size_t cap = p->cap ? p->cap * 2 : 16;
			struct mcr_payload_entry *ne =
				realloc(p->e, cap * sizeof(*ne));

			if (!ne) {
				free(t);
				return -1;
			}
			p->e = ne;
			p->cap = cap;
		}
		e = &p->e[p->n];
		memset(e, 0, sizeof(*e));
		if (!(e->key = strdup(key))) {
			free(t);
			return -1;
		}
		p->n++;
	}
	free(e->text);
	free(e->src);
	e->src = NULL;
	e->text = t;
	e->val = val;
	return 0;
}

int mcr_payload_merge_map(struct mcr_payload *p, const struct mcr_node *map,
			  const char *src)
{
	if (!mcr_is_map(map))
		return 0;
	for (size_t i = 0; i < map->n; i++) {
		char *key = json_key(map->keys[i]);
		int rc = key ? mcr_payload_set(p, key, map->items[i], NULL) : -1;

		if (rc == 0 && src) {
			struct mcr_payload_entry *e = (struct mcr_payload_entry *)mcr_payload_get(p, key);

			if (!(e->src = strdup(src)))
				rc = -1;
		}
		free(key);
		if (rc)
			return -1;
	}
	return 0;
}

const struct mcr_payload_entry *mcr_payload_get(const struct mcr_payload *p,
						const char *key)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->e[i].key, key) == 0)
			return &p->e[i];
	return NULL;
}

void mcr_payload_free(struct mcr_payload *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->e[i].key);
		free(p->e[i].text);
		free(p->e[i].src);
	}
	free(p->e);
	memset(p, 0, sizeof(*p));
}

char *mcr_payload_dumps(const struct mcr_payload *p)
{
	struct mcr_buf b = { 0 };

	if (p->n == 0)
		return strdup("{}");
	mcr_buf_puts(&b, "{");
	for (size_t i = 0; i < p->n; i++) {
		if (i)
			mcr_buf_puts(&b, ",");
		indent(&b, 1);
		put_string(&b, p->e[i].key, strlen(p->e[i].key));
		mcr_buf_puts(&b, ": ");
		if (p->e[i].val)
			put_node(&b, p->e[i].val, 1);
		else
			put_string(&b, p->e[i].text, strlen(p->e[i].text));
	}
	indent(&b, 0);
	mcr_buf_puts(&b, "}");
	return mcr_buf_take(&b);
}
