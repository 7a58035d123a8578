/* acceptance.c - the recipes and helpers of srtctl's acceptance cases
 * (acceptance.h). */

#include <stdarg.h>

#include "acceptance.h"

const char R[] = HEAD FRONTEND_SERVE ENGINE "roles:\n" PREFILL DECODE D_MSC SERVICES BENCHMARK;
const char D[] = HEAD FRONTEND_DYNAMO ENGINE "roles:\n" PREFILL DECODE SERVICES BENCHMARK;

/* ---- helpers ------------------------------------------------------- */

/* `text` (freed) with `old`, which must occur exactly once, replaced */
char *edit_one(char *text, const char *old, const char *rep)
{
	char *at = strstr(text, old), *out;
	size_t pre, ol = strlen(old), rl = strlen(rep);

	ck_assert_msg(at != NULL, "edit: '%s' not in the recipe", old);
	ck_assert_msg(strstr(at + 1, old) == NULL, "edit: '%s' occurs twice", old);
	pre = (size_t)(at - text);
	out = malloc(strlen(text) - ol + rl + 1);
	ck_assert_ptr_nonnull(out);
	memcpy(out, text, pre);
	memcpy(out + pre, rep, rl);
	strcpy(out + pre + rl, at + ol);
	free(text);
	return out;
}

/* `base` with each (old, new) pair applied in turn, NULL-terminated */
char *edit(const char *base, ...)
{
	char *text = strdup(base);
	const char *old;
	va_list ap;

	va_start(ap, base);
	while ((old = va_arg(ap, const char *)) != NULL)
		text = edit_one(text, old, va_arg(ap, const char *));
	va_end(ap);
	return text;
}

/* the text of an edited recipe must load / be refused */
struct mcr_recipe *load_ok_free(char *yaml)
{
	struct mcr_recipe *r = load_ok(yaml);

	free(yaml);
	return r;
}

/* Files rendered for the master at 10.1.1.1:8700. */
struct mcr_file_list render(const struct mcr_recipe *r)
{
	struct mcr_file_list list;
	struct mcr_error err = { 0 };

	if (mcr_client_configs(r, MASTER, &list, &err))
		ck_abort_msg("mcr_client_configs failed: %s", errmsg(&err));
	return list;
}

/* Text of file `name` in the list, or NULL. */
const char *file_text(const struct mcr_file_list *list, const char *name)
{
	for (size_t i = 0; i < list->count; i++)
		if (strcmp(list->files[i].name, name) == 0)
			return list->files[i].text;
	return NULL;
}

/* Environment of a `role` task, files in /logs, node address 10.1.1.2. */
struct mcr_env worker_env(const struct mcr_recipe *r, enum mcr_role role)
{
	struct mcr_env env;
	struct mcr_error err = { 0 };
	struct mcr_env_input in = {
		.master_address = MASTER,
		.metadata_host = INFRA_IP,
		.config_dir = "/logs",
		.config_name = NULL,
		.local_hostname = "10.1.1.2",
	};

	if (mcr_worker_env(r, role, &in, &env, &err))
		ck_abort_msg("mcr_worker_env(%s) failed: %s", mcr_role_name(role), errmsg(&err));
	return env;
}

/* The string value of "key" in a rendered JSON file (static storage), or
 * NULL when the key is absent or not a string. */
const char *json_str(const char *json, const char *key)
{
	static char val[256];
	char pat[128];
	const char *p, *end;

	snprintf(pat, sizeof(pat), "\n  \"%s\": \"", key);
	if (!(p = strstr(json, pat)))
		return NULL;
	p += strlen(pat);
	end = strchr(p, '"');
	ck_assert_ptr_nonnull(end);
	ck_assert_uint_lt((size_t)(end - p), sizeof(val));
	memcpy(val, p, (size_t)(end - p));
	val[end - p] = '\0';
	return val;
}
