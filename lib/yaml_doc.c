/*
 * yaml_doc.c - load a recipe with libyaml into a tree typed as PyYAML's
 * safe_load types it (YAML 1.1 implicit resolution, merge keys, aliases).
 *
 * Aliases share the anchored node instead of copying it, so "billion laughs"
 * documents cost no memory; every node carries its expanded weight and a
 * document heavier than MCR_MAX_WEIGHT is refused before anything walks it.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "internal.h"

#define MCR_MAX_WEIGHT 200000u
#define MCR_MAX_DEPTH 256

#define TAG_PREFIX "tag:yaml.org,2002:"

struct anchor {
	char *name;
	struct mcr_node *node;
	struct anchor *next;
};

struct frame {
	struct mcr_node *node;  /* collection under construction */
	/* raw mapping pairs before merge flattening and de-duplication */
	struct mcr_node **rk, **rv;
	size_t rn, rcap;
	struct mcr_node *pending_key;
	bool have_key;
	char *anchor;
};

struct loader {
	struct mcr_doc *doc;
	struct mcr_error *err;
	struct anchor *anchors;
	struct frame stack[MCR_MAX_DEPTH];
	int depth;
	regex_t re_int, re_float, re_bool, re_null;
	bool re_ok;
};

static struct mcr_node *new_node(struct loader *ld, enum mcr_type type,
				 const yaml_mark_t *mark)
{
	struct mcr_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->type = type;
	n->line = (int)mark->line + 1;
	n->col = (int)mark->column + 1;
	n->weight = 1;
	n->next_alloc = ld->doc->arena;
	ld->doc->arena = n;
	return n;
}

static size_t add_weight(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static void free_node_storage(struct mcr_node *n)
{
	free(n->s);
	free(n->items);
	free(n->keys);
	free(n);
}

void mcr_doc_free(struct mcr_doc *doc)
{
	struct mcr_node *n, *next;

	if (!doc)
		return;
	for (n = doc->arena; n; n = next) {
		next = n->next_alloc;
		free_node_storage(n);
	}
	free(doc->name);
	free(doc);
}

/* ---- implicit typing (PyYAML resolver.py, YAML 1.1) ----------------- */

static const char *RE_INT =
	"^([-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)"
	"|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+)$";
static const char *RE_FLOAT =
	"^([-+]?([0-9][0-9_]*)\\.[0-9_]*([eE][-+][0-9]+)?"
	"|\\.[0-9][0-9_]*([eE][-+][0-9]+)?"
	"|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\\.[0-9_]*"
	"|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN))$";
static const char *RE_BOOL =
	"^(yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE"
	"|on|On|ON|off|Off|OFF)$";
static const char *RE_NULL = "^(~|null|Null|NULL|)$";

static int compile_res(struct loader *ld)
{
	if (regcomp(&ld->re_int, RE_INT, REG_EXTENDED | REG_NOSUB) != 0)
		return -1;
	if (regcomp(&ld->re_float, RE_FLOAT, REG_EXTENDED | REG_NOSUB) != 0) {
		regfree(&ld->re_int);
		return -1;
	}
	if (regcomp(&ld->re_bool, RE_BOOL, REG_EXTENDED | REG_NOSUB) != 0) {
		regfree(&ld->re_int);
		regfree(&ld->re_float);
		return -1;
	}
	if (regcomp(&ld->re_null, RE_NULL, REG_EXTENDED | REG_NOSUB) != 0) {
		regfree(&ld->re_int);
		regfree(&ld->re_float);
		regfree(&ld->re_bool);
		return -1;
	}
	ld->re_ok = true;
	return 0;
}

static void free_res(struct loader *ld)
{
	if (!ld->re_ok)
		return;
	regfree(&ld->re_int);
	regfree(&ld->re_float);
	regfree(&ld->re_bool);
	regfree(&ld->re_null);
	ld->re_ok = false;
}

/* text without '_' (PyYAML removes them before converting numbers) */
static char *strip_underscores(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = text; *p; p++)
		if (*p != '_')
			*o++ = *p;
	*o = '\0';
	return out;
}

/* PyYAML construct_yaml_int. 0 ok, 1 a decimal int beyond 64 bits (*out
 * clamped), -1 not an int (or out of range in another base). */
static int construct_int(const char *text, long long *out, bool *range)
{
	char *v = strip_underscores(text), *p, *end;
	int sign = 1, base = 10, rc = -1;
	long long value = 0;

	*range = false;
	if (!v)
		return -1;
	p = v;
	if (*p == '-')
		sign = -1;
	if (*p == '-' || *p == '+')
		p++;
	if (*p == '\0')
		goto out;
	if (strcmp(p, "0") == 0) {
		*out = 0;
		rc = 0;
		goto out;
	}
	if (strchr(p, ':')) {
		/* sexagesimal: 1:30 = 90 */
		char *save = NULL, *part;

		for (part = strtok_r(p, ":", &save); part;
		     part = strtok_r(NULL, ":", &save)) {
			long long d;

			errno = 0;
			d = strtoll(part, &end, 10);
			if (errno || *end || end == part)
				goto out;
			if (__builtin_mul_overflow(value, 60, &value) ||
			    __builtin_add_overflow(value, d, &value)) {
				*range = true;
				goto out;
			}
		}
		*out = sign * value;
		rc = 0;
		goto out;
	}
	if (p[0] == '0' && p[1] == 'b') {
		base = 2;
		p += 2;
	} else if (p[0] == '0' && p[1] == 'x') {
		base = 16;
		p += 2;
	} else if (p[0] == '0') {
		base = 8;
	}
	if (*p == '\0')
		goto out;
	errno = 0;
	{
		unsigned long long u = strtoull(p, &end, base);

		if (*end)
			goto out;
		if (errno == ERANGE || u > (unsigned long long)LLONG_MAX + (sign < 0)) {
			*range = true;
			/* a decimal integer beyond 64 bits is still an int to
			 * Python: the caller keeps its digits */
			rc = base == 10 ? 1 : -1;
			*out = sign < 0 ? LLONG_MIN : LLONG_MAX;
			goto out;
		}
		*out = sign < 0 ? (long long)(0 - u) : (long long)u;
	}
	rc = 0;
out:
	free(v);
	return rc;
}

/* PyYAML construct_yaml_float. */
static int construct_float(const char *text, double *out)
{
	char *v = strip_underscores(text), *p, *end;
	double sign = 1.0;
	int rc = -1;

	if (!v)
		return -1;
	for (p = v; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	p = v;
	if (*p == '-')
		sign = -1.0;
	if (*p == '-' || *p == '+')
		p++;
	if (strcmp(p, ".inf") == 0) {
		*out = sign * INFINITY;
		rc = 0;
	} else if (strcmp(p, ".nan") == 0) {
		*out = NAN;
		rc = 0;
	} else if (strchr(p, ':')) {
		char *save = NULL, *part;
		double value = 0.0;

		for (part = strtok_r(p, ":", &save); part;
		     part = strtok_r(NULL, ":", &save)) {
			double d = strtod(part, &end);

			if (*end || end == part)
				goto out;
			value = value * 60.0 + d;
		}
		*out = sign * value;
		rc = 0;
	} else {
		double d = strtod(p, &end);

		if (*end || end == p)
			goto out;
		*out = sign * d;
		rc = 0;
	}
out:
	free(v);
	return rc;
}

static bool bool_value(const char *text, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on" };
	static const char *const no[] = { "no", "false", "off" };

	for (size_t i = 0; i < 3; i++) {
		if (strcasecmp(text, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (strcasecmp(text, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

/* An int beyond 64 bits: n->i is clamped, n->s keeps its decimal digits
 * (sign, no '_', no '+') for repr and JSON, as Python prints it. */
static int big_int(struct loader *ld, struct mcr_node *n, const char *text)
{
	char *digits = strip_underscores(text), *p;

	if (!digits)
		return mcr_err_nomem(ld->err);
	p = digits[0] == '+' ? digits + 1 : digits;
	n->type = MCR_T_INT;
	n->s = strdup(p);
	free(digits);
	return n->s ? 0 : mcr_err_nomem(ld->err);
}

static int set_scalar(struct loader *ld, struct mcr_node *n, const char *text,
		      const char *tag, bool plain, const char *raw_tag)
{
	bool range = false;

	if (!tag && plain) {
		if (regexec(&ld->re_null, text, 0, NULL, 0) == 0) {
			n->type = MCR_T_NULL;
			return 0;
		}
		if (regexec(&ld->re_bool, text, 0, NULL, 0) == 0) {
			n->type = MCR_T_BOOL;
			bool_value(text, &n->b);
			return 0;
		}
		if (regexec(&ld->re_int, text, 0, NULL, 0) == 0) {
			int rc = construct_int(text, &n->i, &range);

			if (rc == 1)
				return big_int(ld, n, text);
			if (rc == 0) {
				n->type = MCR_T_INT;
				return 0;
			}
			if (range)
				return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, n,
						  "integer '%s' is out of range (at most 64 bits)",
						  text);
		}
		if (regexec(&ld->re_float, text, 0, NULL, 0) == 0 &&
		    construct_float(text, &n->f) == 0) {
			n->type = MCR_T_FLOAT;
			return 0;
		}
		tag = NULL; /* a plain string */
	}
	if (!tag || strcmp(tag, "str") == 0) {
		n->type = MCR_T_STR;
		n->s = strdup(text);
		return n->s ? 0 : mcr_err_nomem(ld->err);
	}
	if (strcmp(tag, "null") == 0) {
		n->type = MCR_T_NULL;
		return 0;
	}
	if (strcmp(tag, "bool") == 0) {
		n->type = MCR_T_BOOL;
		if (bool_value(text, &n->b))
			return 0;
	} else if (strcmp(tag, "int") == 0) {
		int rc = construct_int(text, &n->i, &range);

		n->type = MCR_T_INT;
		if (rc == 1)
			return big_int(ld, n, text);
		if (rc == 0)
			return 0;
	} else if (strcmp(tag, "float") == 0) {
		n->type = MCR_T_FLOAT;
		if (construct_float(text, &n->f) == 0)
			return 0;
	} else {
		return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				  "the tag '%s' is not supported in a recipe; remove it",
				  raw_tag);
	}
	return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, n,
			  "'%s' cannot be read as !!%s; fix the value or drop the tag",
			  text, tag);
}

/* "tag:yaml.org,2002:int" -> "int"; "!" (non-specific) -> NULL; others kept. */
static const char *short_tag(const char *tag, bool *unsupported)
{
	*unsupported = false;
	if (!tag || strcmp(tag, "!") == 0)
		return NULL;
	if (strncmp(tag, TAG_PREFIX, strlen(TAG_PREFIX)) == 0)
		return tag + strlen(TAG_PREFIX);
	*unsupported = true;
	return tag;
}

/* ---- mapping construction ------------------------------------------ */

static bool is_numeric(const struct mcr_node *n)
{
	return n->type == MCR_T_INT || n->type == MCR_T_FLOAT ||
	       n->type == MCR_T_BOOL;
}

static double numeric(const struct mcr_node *n)
{
	if (n->type == MCR_T_INT)
		return (double)n->i;
	if (n->type == MCR_T_FLOAT)
		return n->f;
	return n->b ? 1.0 : 0.0;
}

/* Python dict key equality for scalar keys (1 == 1.0 == True). */
static bool key_equal(const struct mcr_node *a, const struct mcr_node *b)
{
	if (a->type == MCR_T_STR || b->type == MCR_T_STR)
		return a->type == b->type && strcmp(a->s, b->s) == 0;
	if (a->type == MCR_T_NULL || b->type == MCR_T_NULL)
		return a->type == b->type;
	if (a->type == MCR_T_INT && b->type == MCR_T_INT)
		return a->s || b->s ? a->s && b->s && strcmp(a->s, b->s) == 0 :
				      a->i == b->i;
	if (is_numeric(a) && is_numeric(b))
		return numeric(a) == numeric(b);
	return false;
}

static int map_put(struct loader *ld, struct mcr_node *map,
		   struct mcr_node *key, struct mcr_node *val)
{
	for (size_t i = 0; i < map->n; i++) {
		if (key_equal(map->keys[i], key)) {
			map->items[i] = val; /* later wins, first position kept */
			return 0;
		}
	}
	if (map->n == map->cap) {
		size_t cap = map->cap ? map->cap * 2 : 8;
		struct mcr_node **k = realloc(map->keys, cap * sizeof(*k));

		if (!k)
			return mcr_err_nomem(ld->err);
		map->keys = k;
		k = realloc(map->items, cap * sizeof(*k));
		if (!k)
			return mcr_err_nomem(ld->err);
		map->items = k;
		map->cap = cap;
	}
	map->keys[map->n] = key;
	map->items[map->n] = val;
	map->n++;
	return 0;
}

struct pairs {
	struct mcr_node **k, **v;
	size_t n, cap;
};

static int pairs_add(struct loader *ld, struct pairs *p, struct mcr_node *k,
		     struct mcr_node *v)
{
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 8;
		struct mcr_node **nk = realloc(p->k, cap * sizeof(*nk)), **nv;

		if (!nk)
			return mcr_err_nomem(ld->err);
		p->k = nk;
		nv = realloc(p->v, cap * sizeof(*nv));
		if (!nv)
			return mcr_err_nomem(ld->err);
		p->v = nv;
		p->cap = cap;
	}
	p->k[p->n] = k;
	p->v[p->n] = v;
	p->n++;
	return 0;
}

/* a plain `<<` key: PyYAML resolves it to tag:yaml.org,2002:merge */
static bool is_merge_key(const struct mcr_node *k)
{
	return k->merge_key;
}

/* PyYAML SafeConstructor.flatten_mapping then construct_mapping. */
static int finish_mapping(struct loader *ld, struct frame *f)
{
	struct mcr_node *map = f->node;
	struct pairs merge = { 0 };
	int rc = -1;

	for (size_t i = 0; i < f->rn; i++) {
		struct mcr_node *k = f->rk[i], *v = f->rv[i];

		if (!is_merge_key(k))
			continue;
		if (v->type == MCR_T_MAP) {
			for (size_t j = 0; j < v->n; j++)
				if (pairs_add(ld, &merge, v->keys[j], v->items[j]))
					goto out;
		} else if (v->type == MCR_T_SEQ) {
			for (size_t s = v->n; s-- > 0;) {
				struct mcr_node *sub = v->items[s];

				if (sub->type != MCR_T_MAP) {
					mcr_err_at(ld->err, MCR_EINVAL, ld->doc, sub,
						   "expected a mapping for merging (<<), but found another value; merge only mappings");
					goto out;
				}
				for (size_t j = 0; j < sub->n; j++)
					if (pairs_add(ld, &merge, sub->keys[j],
						      sub->items[j]))
						goto out;
			}
		} else {
			mcr_err_at(ld->err, MCR_EINVAL, ld->doc, v,
				   "expected a mapping or list of mappings for merging (<<); merge only mappings");
			goto out;
		}
	}
	for (size_t i = 0; i < merge.n; i++)
		if (map_put(ld, map, merge.k[i], merge.v[i]))
			goto out;
	for (size_t i = 0; i < f->rn; i++) {
		struct mcr_node *k = f->rk[i];

		if (is_merge_key(k))
			continue;
		if (k->type == MCR_T_SEQ || k->type == MCR_T_MAP) {
			mcr_err_at(ld->err, MCR_EINVAL, ld->doc, k,
				   "found unhashable key (a list or mapping used as a key); use a plain key");
			goto out;
		}
		if (map_put(ld, map, k, f->rv[i]))
			goto out;
	}
	for (size_t i = 0; i < map->n; i++)
		map->weight = add_weight(map->weight,
					 add_weight(map->keys[i]->weight,
						    map->items[i]->weight));
	rc = 0;
out:
	free(merge.k);
	free(merge.v);
	return rc;
}

/* ---- the event loop ------------------------------------------------ */

static int remember_anchor(struct loader *ld, const char *name,
			   struct mcr_node *node)
{
	struct anchor *a = calloc(1, sizeof(*a));

	if (!a || !(a->name = strdup(name))) {
		free(a);
		return mcr_err_nomem(ld->err);
	}
	a->node = node;
	a->next = ld->anchors; /* newest first: a redefined anchor wins */
	ld->anchors = a;
	return 0;
}

static struct mcr_node *find_anchor(struct loader *ld, const char *name)
{
	for (struct anchor *a = ld->anchors; a; a = a->next)
		if (strcmp(a->name, name) == 0)
			return a->node;
	return NULL;
}

/* Attach a finished node to its parent (or make it the root). */
static int attach(struct loader *ld, struct mcr_node *n)
{
	struct frame *f;

	if (n->weight > MCR_MAX_WEIGHT)
		return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				  "the recipe expands to more than %u values through aliases; write it out without nested aliases",
				  MCR_MAX_WEIGHT);
	if (ld->depth == 0) {
		ld->doc->root = n;
		return 0;
	}
	f = &ld->stack[ld->depth - 1];
	if (f->node->type == MCR_T_SEQ) {
		struct mcr_node *seq = f->node;

		if (seq->n == seq->cap) {
			size_t cap = seq->cap ? seq->cap * 2 : 8;
			struct mcr_node **items =
				realloc(seq->items, cap * sizeof(*items));

			if (!items)
				return mcr_err_nomem(ld->err);
			seq->items = items;
			seq->cap = cap;
		}
		seq->items[seq->n++] = n;
		seq->weight = add_weight(seq->weight, n->weight);
		return 0;
	}
	if (!f->have_key) {
		f->pending_key = n;
		f->have_key = true;
		return 0;
	}
	if (f->rn == f->rcap) {
		size_t cap = f->rcap ? f->rcap * 2 : 8;
		struct mcr_node **k = realloc(f->rk, cap * sizeof(*k));

		if (!k)
			return mcr_err_nomem(ld->err);
		f->rk = k;
		k = realloc(f->rv, cap * sizeof(*k));
		if (!k)
			return mcr_err_nomem(ld->err);
		f->rv = k;
		f->rcap = cap;
	}
	f->rk[f->rn] = f->pending_key;
	f->rv[f->rn] = n;
	f->rn++;
	f->have_key = false;
	return 0;
}

static int on_scalar(struct loader *ld, yaml_event_t *ev)
{
	const char *text = (const char *)ev->data.scalar.value;
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	bool unsupported;
	const char *raw_tag = (const char *)ev->data.scalar.tag;
	const char *tag = short_tag(raw_tag, &unsupported);
	struct mcr_node *n = new_node(ld, MCR_T_STR, &ev->start_mark);

	if (!n)
		return mcr_err_nomem(ld->err);
	if (memchr(text, '\0', ev->data.scalar.length))
		return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				  "a value contains a NUL character; remove it");
	if (unsupported)
		return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				  "the tag '%s' is not supported in a recipe; remove it",
				  raw_tag);
	if (plain && !tag && strcmp(text, "<<") == 0) {
		n->s = strdup(text);
		if (!n->s)
			return mcr_err_nomem(ld->err);
		n->merge_key = true;
	} else if (set_scalar(ld, n, text, tag, plain, raw_tag)) {
		return -1;
	}
	n->complete = true;
	if (ev->data.scalar.anchor &&
	    remember_anchor(ld, (const char *)ev->data.scalar.anchor, n))
		return -1;
	return attach(ld, n);
}

static int on_start(struct loader *ld, yaml_event_t *ev, enum mcr_type type)
{
	bool unsupported;
	const char *raw_tag = (const char *)(type == MCR_T_MAP ?
						     ev->data.mapping_start.tag :
						     ev->data.sequence_start.tag);
	const char *anchor = (const char *)(type == MCR_T_MAP ?
						    ev->data.mapping_start.anchor :
						    ev->data.sequence_start.anchor);
	const char *tag = short_tag(raw_tag, &unsupported);
	struct mcr_node *n = new_node(ld, type, &ev->start_mark);
	struct frame *f;

	if (!n)
		return mcr_err_nomem(ld->err);
	if (unsupported || (tag && strcmp(tag, type == MCR_T_MAP ? "map" : "seq")))
		return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				  "the tag '%s' is not supported in a recipe; remove it",
				  raw_tag);
	if (ld->depth == MCR_MAX_DEPTH)
		return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				  "the recipe nests more than %d levels deep; flatten it",
				  MCR_MAX_DEPTH);
	f = &ld->stack[ld->depth++];
	memset(f, 0, sizeof(*f));
	f->node = n;
	if (anchor) {
		f->anchor = strdup(anchor);
		if (!f->anchor)
			return mcr_err_nomem(ld->err);
		/* registered now so that a self-reference is detected as a cycle */
		if (remember_anchor(ld, anchor, n))
			return -1;
	}
	return 0;
}

static void free_frame(struct frame *f)
{
	free(f->rk);
	free(f->rv);
	free(f->anchor);
	memset(f, 0, sizeof(*f));
}

static int on_end(struct loader *ld)
{
	struct frame *f = &ld->stack[ld->depth - 1];
	struct mcr_node *n = f->node;
	int rc = 0;

	if (n->type == MCR_T_MAP)
		rc = finish_mapping(ld, f);
	n->complete = true;
	free_frame(f);
	ld->depth--;
	if (rc)
		return rc;
	return attach(ld, n);
}

static int on_alias(struct loader *ld, yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	struct mcr_node *target = find_anchor(ld, name);
	struct mcr_node pos = { 0 };

	pos.line = (int)ev->start_mark.line + 1;
	pos.col = (int)ev->start_mark.column + 1;
	if (!target)
		return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, &pos,
				  "found undefined alias '*%s'; define the anchor '&%s' before using it",
				  name, name);
	if (!target->complete)
		return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, &pos,
				  "the alias '*%s' refers to a value that contains it (a cycle); recipes cannot be recursive",
				  name);
	return attach(ld, target);
}

static int parse_error(struct loader *ld, yaml_parser_t *p)
{
	struct mcr_node pos = { 0 };
	const yaml_mark_t *m = p->problem_mark.line || p->problem_mark.column ?
				       &p->problem_mark : &p->context_mark;

	pos.line = (int)m->line + 1;
	pos.col = (int)m->column + 1;
	if (p->error == YAML_MEMORY_ERROR)
		return mcr_err_nomem(ld->err);
	return mcr_err_at(ld->err, MCR_EINVAL, ld->doc, &pos,
			  "not valid YAML: %s%s%s; fix the syntax",
			  p->problem ? p->problem : "syntax error",
			  p->context ? " " : "", p->context ? p->context : "");
}

int mcr_doc_parse(const char *text, size_t len, const char *name,
		  struct mcr_doc **out, struct mcr_error *err)
{
	struct loader ld = { 0 };
	yaml_parser_t parser;
	yaml_event_t ev;
	int rc = -1, docs = 0;
	bool done = false;

	*out = NULL;
	ld.err = err;
	ld.doc = calloc(1, sizeof(*ld.doc));
	if (!ld.doc || !(ld.doc->name = strdup(name ? name : "recipe"))) {
		free(ld.doc);
		return mcr_err_nomem(err);
	}
	if (compile_res(&ld)) {
		mcr_error_set(err, MCR_EIO, "cannot compile the YAML resolvers");
		mcr_doc_free(ld.doc);
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		free_res(&ld);
		mcr_doc_free(ld.doc);
		return mcr_err_nomem(err);
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done) {
		int erc = 0;

		if (!yaml_parser_parse(&parser, &ev)) {
			parse_error(&ld, &parser);
			goto out;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				struct mcr_node pos = { 0 };

				pos.line = (int)ev.start_mark.line + 1;
				pos.col = (int)ev.start_mark.column + 1;
				erc = mcr_err_at(err, MCR_EINVAL, ld.doc, &pos,
						 "expected a single document in the stream, but found another one; keep one recipe per file");
			}
			break;
		case YAML_SCALAR_EVENT:
			erc = on_scalar(&ld, &ev);
			break;
		case YAML_SEQUENCE_START_EVENT:
			erc = on_start(&ld, &ev, MCR_T_SEQ);
			break;
		case YAML_MAPPING_START_EVENT:
			erc = on_start(&ld, &ev, MCR_T_MAP);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			erc = on_end(&ld);
			break;
		case YAML_ALIAS_EVENT:
			erc = on_alias(&ld, &ev);
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
		if (erc)
			goto out;
	}
	*out = ld.doc;
	ld.doc = NULL;
	rc = 0;
out:
	while (ld.depth > 0)
		free_frame(&ld.stack[--ld.depth]);
	while (ld.anchors) {
		struct anchor *a = ld.anchors;

		ld.anchors = a->next;
		free(a->name);
		free(a);
	}
	yaml_parser_delete(&parser);
	free_res(&ld);
	mcr_doc_free(ld.doc);
	return rc;
}

/* ---- accessors ----------------------------------------------------- */

size_t mcr_map_index(const struct mcr_node *map, const char *key)
{
	if (!map || map->type != MCR_T_MAP)
		return (size_t)-1;
	for (size_t i = 0; i < map->n; i++)
		if (map->keys[i]->type == MCR_T_STR && !is_merge_key(map->keys[i]) &&
		    strcmp(map->keys[i]->s, key) == 0)
			return i;
	return (size_t)-1;
}

struct mcr_node *mcr_map_get(const struct mcr_node *map, const char *key)
{
	size_t i = mcr_map_index(map, key);

	return i == (size_t)-1 ? NULL : map->items[i];
}

bool mcr_is_map(const struct mcr_node *n)
{
	return n && n->type == MCR_T_MAP;
}

bool mcr_is_seq(const struct mcr_node *n)
{
	return n && n->type == MCR_T_SEQ;
}

bool mcr_is_str(const struct mcr_node *n)
{
	return n && n->type == MCR_T_STR;
}

bool mcr_nonempty_map(const struct mcr_node *n)
{
	return n && n->type == MCR_T_MAP && n->n > 0;
}

bool mcr_truthy(const struct mcr_node *n)
{
	if (!n)
		return false;
	switch (n->type) {
	case MCR_T_NULL:
		return false;
	case MCR_T_BOOL:
		return n->b;
	case MCR_T_INT:
		return n->i != 0;
	case MCR_T_FLOAT:
		return n->f != 0.0;
	case MCR_T_STR:
		return n->s[0] != '\0';
	default:
		return n->n > 0;
	}
}

void mcr_float_repr(double v, char *buf, size_t size)
{
	char tmp[64], digits[32];
	int prec, exp10, nd = 0;
	char *e;

	if (isnan(v)) {
		snprintf(buf, size, "nan");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, v < 0 ? "-inf" : "inf");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	/* tmp = [-]d[.ddd]e[+-]xx */
	e = strchr(tmp, 'e');
	exp10 = atoi(e + 1);
	for (char *p = tmp; p < e; p++)
		if (*p >= '0' && *p <= '9')
			digits[nd++] = *p;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	{
		struct mcr_buf b = { 0 };
		char *s;

		if (signbit(v))
			mcr_buf_puts(&b, "-");
		if (exp10 < -4 || exp10 >= 16) {
			mcr_buf_add(&b, digits, 1);
			if (nd > 1) {
				mcr_buf_puts(&b, ".");
				mcr_buf_add(&b, digits + 1, (size_t)nd - 1);
			}
			mcr_buf_printf(&b, "e%c%02d", exp10 < 0 ? '-' : '+',
				       exp10 < 0 ? -exp10 : exp10);
		} else if (exp10 < 0) {
			mcr_buf_puts(&b, "0.");
			for (int i = 0; i < -exp10 - 1; i++)
				mcr_buf_puts(&b, "0");
			mcr_buf_add(&b, digits, (size_t)nd);
		} else {
			int intlen = exp10 + 1;

			for (int i = 0; i < intlen; i++)
				mcr_buf_add(&b, i < nd ? &digits[i] : "0", 1);
			mcr_buf_puts(&b, ".");
			if (nd > intlen)
				mcr_buf_add(&b, digits + intlen, (size_t)(nd - intlen));
			else
				mcr_buf_puts(&b, "0");
		}
		s = mcr_buf_take(&b);
		snprintf(buf, size, "%s", s ? s : "?");
		free(s);
	}
}

static void repr_str(struct mcr_buf *b, const char *s)
{
	char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';

	mcr_buf_add(b, &q, 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p == (unsigned char)q) {
			mcr_buf_add(b, "\\", 1);
			mcr_buf_add(b, (const char *)p, 1);
		} else if (*p == '\n') {
			mcr_buf_puts(b, "\\n");
		} else if (*p == '\r') {
			mcr_buf_puts(b, "\\r");
		} else if (*p == '\t') {
			mcr_buf_puts(b, "\\t");
		} else if (*p < 0x20 || *p == 0x7f) {
			mcr_buf_printf(b, "\\x%02x", *p);
		} else {
			mcr_buf_add(b, (const char *)p, 1);
		}
	}
	mcr_buf_add(b, &q, 1);
}

static void repr_into(struct mcr_buf *b, const struct mcr_node *n, bool quote,
		      int depth)
{
	char num[64];

	if (depth > 8) {
		mcr_buf_puts(b, "...");
		return;
	}
	switch (n->type) {
	case MCR_T_NULL:
		mcr_buf_puts(b, "None");
		break;
	case MCR_T_BOOL:
		mcr_buf_puts(b, n->b ? "True" : "False");
		break;
	case MCR_T_INT:
		if (n->s)
			mcr_buf_puts(b, n->s);
		else
			mcr_buf_printf(b, "%lld", n->i);
		break;
	case MCR_T_FLOAT:
		mcr_float_repr(n->f, num, sizeof(num));
		mcr_buf_puts(b, num);
		break;
	case MCR_T_STR:
		if (quote)
			repr_str(b, n->s);
		else
			mcr_buf_puts(b, n->s);
		break;
	case MCR_T_SEQ:
		mcr_buf_puts(b, "[");
		for (size_t i = 0; i < n->n; i++) {
			if (i)
				mcr_buf_puts(b, ", ");
			repr_into(b, n->items[i], true, depth + 1);
		}
		mcr_buf_puts(b, "]");
		break;
	case MCR_T_MAP:
		mcr_buf_puts(b, "{");
		for (size_t i = 0; i < n->n; i++) {
			if (i)
				mcr_buf_puts(b, ", ");
			repr_into(b, n->keys[i], true, depth + 1);
			mcr_buf_puts(b, ": ");
			repr_into(b, n->items[i], true, depth + 1);
		}
		mcr_buf_puts(b, "}");
		break;
	}
}

char *mcr_repr(const struct mcr_node *n)
{
	struct mcr_buf b = { 0 };

	if (!n)
		return strdup("None");
	repr_into(&b, n, true, 0);
	return mcr_buf_take(&b);
}

char *mcr_pystr(const struct mcr_node *n)
{
	struct mcr_buf b = { 0 };

	if (!n)
		return strdup("None");
	repr_into(&b, n, false, 0);
	return mcr_buf_take(&b);
}

char *mcr_key_str(const struct mcr_node *key)
{
	return mcr_pystr(key);
}
