/*
 * load.c - a recipe's text into a tree of typed nodes (yaml.h): libyaml's
 * events, anchors and aliases, the document's limits. Scalars are typed in
 * scalar.c, mappings built in mapping.c.
 *
 * Aliases share the anchored node instead of copying it, so "billion laughs"
 * documents cost no memory; every node carries its expanded weight (values)
 * and size (bytes of text), and a document beyond the limits of yaml.h is
 * refused as soon as a node or a collection being built exceeds them,
 * before anything walks it. Anchors are found by hash: the loader is
 * linear in the input on every shape.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "yaml/loader.h"

struct anchor {
	char *name;
	struct mcri_node *node;
	int line, col; /* where it was defined */
};

struct frame {
	struct mcri_node *node; /* collection under construction */
	/* raw mapping pairs before merge flattening and de-duplication */
	struct mcri_pairs raw;
	struct mcri_node *pending_key;
	bool have_key;
};

struct loader {
	struct mcri_doc *doc;
	struct mcr_error *err;
	struct anchor *anchors; /* in order of definition */
	size_t nanchors, anchors_cap;
	struct mcri_index anchor_index; /* by name */
	struct mcri_budget budget;
	struct frame stack[MCRI_MAX_DEPTH];
	int depth;
};

static struct mcri_node *new_node(struct loader *ld, enum mcri_type type, const yaml_mark_t *mark)
{
	struct mcri_node *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->type = type;
	n->line = (int)mark->line + 1;
	n->col = (int)mark->column + 1;
	n->weight = 1;
	n->bytes = 1;
	n->next_alloc = ld->doc->arena;
	ld->doc->arena = n;
	ld->budget.values++;
	return n;
}

static void free_node_storage(struct mcri_node *n)
{
	free(n->s);
	free(n->items);
	free(n->keys);
	if (n->index) {
		mcri_index_free(n->index);
		free(n->index);
	}
	free(n);
}

void mcri_doc_free(struct mcri_doc *doc)
{
	struct mcri_node *n, *next;

	if (!doc)
		return;
	for (n = doc->arena; n; n = next) {
		next = n->next_alloc;
		free_node_storage(n);
	}
	free(doc->name);
	free(doc);
}

/* a position for a message where no node exists */
static struct mcri_node at_mark(const yaml_mark_t *m)
{
	struct mcri_node pos = { 0 };

	pos.line = (int)m->line + 1;
	pos.col = (int)m->column + 1;
	return pos;
}

/* the recipe has more values than a recipe can (before the one at `at`
 * is built) */
static int too_many_values(struct loader *ld, const struct mcri_node *at)
{
	return mcri_err_at(
		ld->err, MCR_EINVAL, ld->doc, at,
		"the recipe has more than %u values (keys, items and scalars); a recipe describes one job: remove what it does not need",
		MCRI_MAX_VALUES);
}

static bool anchor_eq(const void *ctx, size_t pos)
{
	const struct loader *ld = ((const void *const *)ctx)[0];
	const char *name = ((const void *const *)ctx)[1];

	return strcmp(ld->anchors[pos].name, name) == 0;
}

static struct anchor *find_anchor(struct loader *ld, const char *name)
{
	const void *ctx[2] = { ld, name };
	size_t i = mcri_index_find(&ld->anchor_index, mcri_hash(&ld->doc->hashkey, name, strlen(name)), anchor_eq, ctx);

	return i == MCRI_NOT_FOUND ? NULL : &ld->anchors[i];
}

/* Define anchor `name` for `node`; PyYAML refuses a second definition. */
static int remember_anchor(struct loader *ld, const char *name, struct mcri_node *node)
{
	struct anchor *a = find_anchor(ld, name);

	if (a)
		return mcri_err_at(
			ld->err, MCR_EINVAL, ld->doc, node,
			"found duplicate anchor '&%s' (first defined at line %d, column %d); give each anchor its own name",
			name, a->line, a->col);
	if (ld->nanchors == ld->anchors_cap) {
		size_t cap = ld->anchors_cap ? ld->anchors_cap * 2 : 16;
		struct anchor *v = realloc(ld->anchors, cap * sizeof(*v));

		if (!v)
			return mcri_error_nomem(ld->err);
		ld->anchors = v;
		ld->anchors_cap = cap;
	}
	a = &ld->anchors[ld->nanchors];
	if (!(a->name = strdup(name)))
		return mcri_error_nomem(ld->err);
	if (mcri_index_add(&ld->anchor_index, mcri_hash(&ld->doc->hashkey, name, strlen(name)), ld->nanchors)) {
		free(a->name);
		return mcri_error_nomem(ld->err);
	}
	a->node = node;
	a->line = node->line;
	a->col = node->col;
	ld->nanchors++;
	return 0;
}

/* the expanded size of n (or of the collection it is being added to)
 * within the limits; `aliased`: whether aliases made it so large */
static int check_size(struct loader *ld, const struct mcri_node *n)
{
	if (n->weight > MCRI_MAX_VALUES && ld->budget.aliases)
		return mcri_err_at(
			ld->err, MCR_EINVAL, ld->doc, n,
			"the recipe expands to more than %u values through aliases; write it out without nested aliases",
			MCRI_MAX_VALUES);
	if (n->weight > MCRI_MAX_VALUES)
		return too_many_values(ld, n);
	if (n->bytes > ld->budget.max_bytes && ld->budget.aliases)
		return mcri_err_at(
			ld->err, MCR_EINVAL, ld->doc, n,
			"the recipe expands through aliases to more than %zu bytes of values (%u times its %zu bytes, plus %u KiB); write the aliased values out, or alias smaller ones",
			ld->budget.max_bytes, MCRI_EXPANSION_FACTOR, ld->doc->input_len, MCRI_EXPANSION_SLACK >> 10);
	if (n->bytes > ld->budget.max_bytes)
		return mcri_err_at(
			ld->err, MCR_EINVAL, ld->doc, n,
			"the recipe's values hold more than %zu bytes of text (%u times its %zu bytes, plus %u KiB); a recipe describes one job: remove what it does not need",
			ld->budget.max_bytes, MCRI_EXPANSION_FACTOR, ld->doc->input_len, MCRI_EXPANSION_SLACK >> 10);
	return 0;
}

/* Attach a finished node to its parent (or make it the root). The running
 * size of the parent (before a mapping's duplicate keys are dropped, an
 * upper bound) is checked as it grows. */
static int attach(struct loader *ld, struct mcri_node *n)
{
	struct frame *f = ld->depth ? &ld->stack[ld->depth - 1] : NULL;
	bool key = f && f->node->type == MCRI_T_MAP && !f->have_key;

	if (check_size(ld, n))
		return -1;
	if ((n->merge_key || n->value_key) && !key)
		return mcri_err_at(
			ld->err, MCR_EINVAL, ld->doc, n,
			"'%s' is YAML's %s key, and PyYAML cannot read it as a value (safe_load fails); quote it ('%s') to keep it a string",
			n->merge_key ? "<<" : "=", n->merge_key ? "merge" : "value", n->merge_key ? "<<" : "=");
	if (!f) {
		ld->doc->root = n;
		return 0;
	}
	f->node->weight = mcri_weight_add(f->node->weight, n->weight);
	f->node->bytes = mcri_weight_add(f->node->bytes, n->bytes);
	if (check_size(ld, f->node))
		return -1;
	if (f->node->type == MCRI_T_SEQ) {
		struct mcri_node *seq = f->node;

		if (seq->n == seq->cap) {
			size_t cap = seq->cap ? seq->cap * 2 : 8;
			struct mcri_node **items = realloc(seq->items, cap * sizeof(*items));

			if (!items)
				return mcri_error_nomem(ld->err);
			seq->items = items;
			seq->cap = cap;
		}
		seq->items[seq->n++] = n;
		return 0;
	}
	if (key) {
		f->pending_key = n;
		f->have_key = true;
		return 0;
	}
	f->have_key = false;
	return mcri_pairs_add(&f->raw, f->pending_key, n, ld->err);
}

static int on_scalar(struct loader *ld, yaml_event_t *ev)
{
	const char *text = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	const char *raw_tag = (const char *)ev->data.scalar.tag;
	bool unsupported;
	const char *tag = mcri_short_tag(raw_tag, &unsupported);
	/* PyYAML resolves a plain scalar, and any tagged `!`, by its text */
	bool implicit = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE || (raw_tag && strcmp(raw_tag, "!") == 0);
	struct mcri_node *n = new_node(ld, MCRI_T_STR, &ev->start_mark);

	if (!n)
		return mcri_error_nomem(ld->err);
	if (ld->budget.values > MCRI_MAX_VALUES)
		return too_many_values(ld, n);
	n->bytes = mcri_weight_add(len, 1);
	if (memchr(text, '\0', len))
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, n, "a value contains a NUL character; remove it");
	if (unsupported)
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				   "the tag '%s' is not supported in a recipe; remove it", raw_tag);
	if (mcri_scalar_resolve(ld->doc, n, text, len, tag, implicit, raw_tag, ld->err))
		return -1;
	n->complete = true;
	if (ev->data.scalar.anchor && remember_anchor(ld, (const char *)ev->data.scalar.anchor, n))
		return -1;
	return attach(ld, n);
}

static int on_start(struct loader *ld, yaml_event_t *ev, enum mcri_type type)
{
	bool unsupported;
	const char *raw_tag =
		(const char *)(type == MCRI_T_MAP ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
	const char *anchor =
		(const char *)(type == MCRI_T_MAP ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
	const char *tag = mcri_short_tag(raw_tag, &unsupported);
	struct mcri_node *n = new_node(ld, type, &ev->start_mark);
	struct frame *f;

	if (!n)
		return mcri_error_nomem(ld->err);
	if (ld->budget.values > MCRI_MAX_VALUES)
		return too_many_values(ld, n);
	if (unsupported || (tag && strcmp(tag, type == MCRI_T_MAP ? "map" : "seq")))
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				   "the tag '%s' is not supported in a recipe; remove it", raw_tag);
	if (ld->depth == MCRI_MAX_DEPTH)
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				   "the recipe nests more than %d levels deep; flatten it", MCRI_MAX_DEPTH);
	f = &ld->stack[ld->depth++];
	memset(f, 0, sizeof(*f));
	f->node = n;
	/* registered now so that a self-reference is detected as a cycle */
	if (anchor && remember_anchor(ld, anchor, n))
		return -1;
	return 0;
}

static void free_frame(struct frame *f)
{
	mcri_pairs_free(&f->raw);
	memset(f, 0, sizeof(*f));
}

static int on_end(struct loader *ld)
{
	struct frame *f = &ld->stack[ld->depth - 1];
	struct mcri_node *n = f->node;
	int rc = 0;

	if (n->type == MCRI_T_MAP)
		rc = mcri_mapping_finish(n, &f->raw, &ld->budget, ld->doc, ld->err);
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
	struct anchor *a = find_anchor(ld, name);
	struct mcri_node *target = a ? a->node : NULL;
	struct mcri_node pos = at_mark(&ev->start_mark);

	ld->budget.aliases++;
	if (!target)
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, &pos,
				   "found undefined alias '*%s'; define the anchor '&%s' before using it", name, name);
	if (!target->complete)
		return mcri_err_at(
			ld->err, MCR_EINVAL, ld->doc, &pos,
			"the alias '*%s' refers to a value that contains it (a cycle); recipes cannot be recursive",
			name);
	return attach(ld, target);
}

static int parse_error(struct loader *ld, yaml_parser_t *p)
{
	struct mcri_node pos =
		at_mark(p->problem_mark.line || p->problem_mark.column ? &p->problem_mark : &p->context_mark);

	if (p->error == YAML_MEMORY_ERROR)
		return mcri_error_nomem(ld->err);
	return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, &pos, "not valid YAML: %s%s%s; fix the syntax",
			   p->problem ? p->problem : "syntax error", p->context ? " " : "",
			   p->context ? p->context : "");
}

int mcri_doc_parse(const char *text, size_t len, const char *name, struct mcri_doc **out, struct mcr_error *err)
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
		return mcri_error_nomem(err);
	}
	ld.doc->input_len = len;
	mcri_hashkey_init(&ld.doc->hashkey);
	ld.budget.max_bytes =
		mcri_weight_add(MCRI_EXPANSION_SLACK,
				len > SIZE_MAX / MCRI_EXPANSION_FACTOR ? SIZE_MAX : len * MCRI_EXPANSION_FACTOR);
	if (!yaml_parser_initialize(&parser)) {
		mcri_doc_free(ld.doc);
		return mcri_error_nomem(err);
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
				struct mcri_node pos = at_mark(&ev.start_mark);

				erc = mcri_err_at(
					err, MCR_EINVAL, ld.doc, &pos,
					"expected a single document in the stream, but found another one; keep one recipe per file");
			}
			break;
		case YAML_SCALAR_EVENT:
			erc = on_scalar(&ld, &ev);
			break;
		case YAML_SEQUENCE_START_EVENT:
			erc = on_start(&ld, &ev, MCRI_T_SEQ);
			break;
		case YAML_MAPPING_START_EVENT:
			erc = on_start(&ld, &ev, MCRI_T_MAP);
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
	/* what the loader refuses is the YAML (a duplicate key, a tag, an
	 * anchor bomb, the depth), whoever's reader set it */
	if (rc && err && err->code == MCR_E_INVALID)
		err->code = MCR_E_YAML;
	while (ld.depth > 0)
		free_frame(&ld.stack[--ld.depth]);
	for (size_t i = 0; i < ld.nanchors; i++)
		free(ld.anchors[i].name);
	free(ld.anchors);
	mcri_index_free(&ld.anchor_index);
	yaml_parser_delete(&parser);
	mcri_doc_free(ld.doc);
	return rc;
}
