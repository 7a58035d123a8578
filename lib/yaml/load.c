/*
 * load.c - a recipe's text into a tree of typed nodes (yaml.h): libyaml's
 * events, anchors and aliases, the document's limits. Scalars are typed in
 * scalar.c, mappings built in mapping.c.
 *
 * Aliases share the anchored node instead of copying it, so "billion laughs"
 * documents cost no memory; every node carries its expanded weight and a
 * document heavier than MCR_MAX_WEIGHT is refused before anything walks it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "yaml/loader.h"

#define MCR_MAX_WEIGHT 200000u
#define MCR_MAX_DEPTH 256

struct anchor {
	char *name;
	struct mcri_node *node;
	struct anchor *next;
};

struct frame {
	struct mcri_node *node;  /* collection under construction */
	/* raw mapping pairs before merge flattening and de-duplication */
	struct mcri_pairs raw;
	struct mcri_node *pending_key;
	bool have_key;
	char *anchor;
};

struct loader {
	struct mcri_doc *doc;
	struct mcr_error *err;
	struct anchor *anchors;
	struct frame stack[MCR_MAX_DEPTH];
	int depth;
	struct mcri_resolver res;
};

static struct mcri_node *new_node(struct loader *ld, enum mcri_type type,
				 const yaml_mark_t *mark)
{
	struct mcri_node *n = calloc(1, sizeof(*n));

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

static void free_node_storage(struct mcri_node *n)
{
	free(n->s);
	free(n->items);
	free(n->keys);
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

static int remember_anchor(struct loader *ld, const char *name,
			   struct mcri_node *node)
{
	struct anchor *a = calloc(1, sizeof(*a));

	if (!a || !(a->name = strdup(name))) {
		free(a);
		return mcri_error_nomem(ld->err);
	}
	a->node = node;
	a->next = ld->anchors; /* newest first: a redefined anchor wins */
	ld->anchors = a;
	return 0;
}

static struct mcri_node *find_anchor(struct loader *ld, const char *name)
{
	for (struct anchor *a = ld->anchors; a; a = a->next)
		if (strcmp(a->name, name) == 0)
			return a->node;
	return NULL;
}

/* Attach a finished node to its parent (or make it the root). */
static int attach(struct loader *ld, struct mcri_node *n)
{
	struct frame *f;

	if (n->weight > MCR_MAX_WEIGHT)
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				   "the recipe expands to more than %u values through aliases; write it out without nested aliases",
				   MCR_MAX_WEIGHT);
	if (ld->depth == 0) {
		ld->doc->root = n;
		return 0;
	}
	f = &ld->stack[ld->depth - 1];
	if (f->node->type == MCRI_T_SEQ) {
		struct mcri_node *seq = f->node;

		if (seq->n == seq->cap) {
			size_t cap = seq->cap ? seq->cap * 2 : 8;
			struct mcri_node **items =
				realloc(seq->items, cap * sizeof(*items));

			if (!items)
				return mcri_error_nomem(ld->err);
			seq->items = items;
			seq->cap = cap;
		}
		seq->items[seq->n++] = n;
		seq->weight = mcri_weight_add(seq->weight, n->weight);
		return 0;
	}
	if (!f->have_key) {
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
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	bool unsupported;
	const char *raw_tag = (const char *)ev->data.scalar.tag;
	const char *tag = mcri_short_tag(raw_tag, &unsupported);
	struct mcri_node *n = new_node(ld, MCRI_T_STR, &ev->start_mark);

	if (!n)
		return mcri_error_nomem(ld->err);
	if (memchr(text, '\0', ev->data.scalar.length))
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				   "a value contains a NUL character; remove it");
	if (unsupported)
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				   "the tag '%s' is not supported in a recipe; remove it",
				   raw_tag);
	if (plain && !tag && strcmp(text, "<<") == 0) {
		n->s = strdup(text);
		if (!n->s)
			return mcri_error_nomem(ld->err);
		n->merge_key = true;
	} else if (mcri_scalar_resolve(&ld->res, ld->doc, n, text, tag, plain,
				       raw_tag, ld->err)) {
		return -1;
	}
	n->complete = true;
	if (ev->data.scalar.anchor &&
	    remember_anchor(ld, (const char *)ev->data.scalar.anchor, n))
		return -1;
	return attach(ld, n);
}

static int on_start(struct loader *ld, yaml_event_t *ev, enum mcri_type type)
{
	bool unsupported;
	const char *raw_tag = (const char *)(type == MCRI_T_MAP ?
						     ev->data.mapping_start.tag :
						     ev->data.sequence_start.tag);
	const char *anchor = (const char *)(type == MCRI_T_MAP ?
						    ev->data.mapping_start.anchor :
						    ev->data.sequence_start.anchor);
	const char *tag = mcri_short_tag(raw_tag, &unsupported);
	struct mcri_node *n = new_node(ld, type, &ev->start_mark);
	struct frame *f;

	if (!n)
		return mcri_error_nomem(ld->err);
	if (unsupported || (tag && strcmp(tag, type == MCRI_T_MAP ? "map" : "seq")))
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				   "the tag '%s' is not supported in a recipe; remove it",
				   raw_tag);
	if (ld->depth == MCR_MAX_DEPTH)
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, n,
				   "the recipe nests more than %d levels deep; flatten it",
				   MCR_MAX_DEPTH);
	f = &ld->stack[ld->depth++];
	memset(f, 0, sizeof(*f));
	f->node = n;
	if (anchor) {
		f->anchor = strdup(anchor);
		if (!f->anchor)
			return mcri_error_nomem(ld->err);
		/* registered now so that a self-reference is detected as a cycle */
		if (remember_anchor(ld, anchor, n))
			return -1;
	}
	return 0;
}

static void free_frame(struct frame *f)
{
	mcri_pairs_free(&f->raw);
	free(f->anchor);
	memset(f, 0, sizeof(*f));
}

static int on_end(struct loader *ld)
{
	struct frame *f = &ld->stack[ld->depth - 1];
	struct mcri_node *n = f->node;
	int rc = 0;

	if (n->type == MCRI_T_MAP)
		rc = mcri_mapping_finish(n, &f->raw, ld->doc, ld->err);
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
	struct mcri_node *target = find_anchor(ld, name);
	struct mcri_node pos = { 0 };

	pos.line = (int)ev->start_mark.line + 1;
	pos.col = (int)ev->start_mark.column + 1;
	if (!target)
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, &pos,
				   "found undefined alias '*%s'; define the anchor '&%s' before using it",
				   name, name);
	if (!target->complete)
		return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, &pos,
				   "the alias '*%s' refers to a value that contains it (a cycle); recipes cannot be recursive",
				   name);
	return attach(ld, target);
}

static int parse_error(struct loader *ld, yaml_parser_t *p)
{
	struct mcri_node pos = { 0 };
	const yaml_mark_t *m = p->problem_mark.line || p->problem_mark.column ?
				       &p->problem_mark : &p->context_mark;

	pos.line = (int)m->line + 1;
	pos.col = (int)m->column + 1;
	if (p->error == YAML_MEMORY_ERROR)
		return mcri_error_nomem(ld->err);
	return mcri_err_at(ld->err, MCR_EINVAL, ld->doc, &pos,
			   "not valid YAML: %s%s%s; fix the syntax",
			   p->problem ? p->problem : "syntax error",
			   p->context ? " " : "", p->context ? p->context : "");
}

int mcri_doc_parse(const char *text, size_t len, const char *name,
		   struct mcri_doc **out, struct mcr_error *err)
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
	if (mcri_resolver_init(&ld.res, err)) {
		mcri_doc_free(ld.doc);
		return -1;
	}
	if (!yaml_parser_initialize(&parser)) {
		mcri_resolver_free(&ld.res);
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
				struct mcri_node pos = { 0 };

				pos.line = (int)ev.start_mark.line + 1;
				pos.col = (int)ev.start_mark.column + 1;
				erc = mcri_err_at(err, MCR_EINVAL, ld.doc, &pos,
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
	while (ld.depth > 0)
		free_frame(&ld.stack[--ld.depth]);
	while (ld.anchors) {
		struct anchor *a = ld.anchors;

		ld.anchors = a->next;
		free(a->name);
		free(a);
	}
	yaml_parser_delete(&parser);
	mcri_resolver_free(&ld.res);
	mcri_doc_free(ld.doc);
	return rc;
}
