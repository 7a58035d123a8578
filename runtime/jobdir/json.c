/*
 * json.c - reading and writing the records of the job's directory as JSON
 * objects (json.h).
 */
#include <stdlib.h>
#include <string.h>

#include "jobdir/json.h"

json_t *mcri_json_read(const struct mcri_jobdir *d, const char *name, size_t max, struct mcr_error *err)
{
	json_error_t jerr;
	char *text;
	size_t len;
	json_t *obj;

	if (mcri_jobdir_read(d, name, max, &text, &len, err))
		return NULL;
	obj = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!json_is_object(obj)) {
		json_decref(obj);
		mcri_error_set(err, MCR_EIO, "cannot read %s/%s: %s", d->path, name,
			       obj ? "not a JSON object" : jerr.text);
		return NULL;
	}
	return obj;
}

void mcri_json_str(char *dst, size_t size, const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	size_t n = s ? strlen(s) : 0;

	if (n >= size) {
		n = size - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(dst, s ? s : "", n);
	dst[n] = '\0';
}

long long mcri_json_int(const json_t *obj, const char *key)
{
	return json_integer_value(json_object_get(obj, key));
}

double mcri_json_seconds(const json_t *v)
{
	double t = json_number_value(v);

	return t >= 0 && t < 253402300800.0 ? t : 0;
}

long long mcri_json_bounded(long long v, long long max)
{
	return v >= 0 && v <= max ? v : 0;
}

int mcri_json_port(const json_t *obj, const char *key, int fallback)
{
	long long p = mcri_json_int(obj, key);

	return p >= 1 && p <= 65535 ? (int)p : fallback;
}

int mcri_json_write(const struct mcri_jobdir *d, const char *name, json_t *obj, struct mcr_error *err)
{
	char *text;
	int rc;

	if (!obj)
		return mcri_error_nomem(err);
	text = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(obj);
	if (!text)
		return mcri_error_nomem(err);
	rc = mcri_jobdir_write(d, name, text, strlen(text), true, err);
	free(text);
	return rc;
}
