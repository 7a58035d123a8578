/*
 * json.h - how the records of the job's directory are read and written
 * (jansson), shared by the files of runtime/jobdir/ only: a record is one
 * JSON object, read bounded from a regular file of the directory and
 * written whole (mcri_jobdir_write); every value read is checked or
 * bounded, so that a record damaged or written by hand is never trusted
 * as it stands.
 */
#ifndef MCRI_JOBDIR_JSON_H_
#define MCRI_JOBDIR_JSON_H_

#include <jansson.h>

#include "jobdir/jobdir.h"

/* The JSON object in `name` (at most `max` bytes), or NULL with err set. */
json_t *mcri_json_read(const struct mcri_jobdir *d, const char *name, size_t max, struct mcr_error *err);
/* obj (its reference taken; NULL: out of memory), indented, as the file
 * `name`, replaced whole. */
int mcri_json_write(const struct mcri_jobdir *d, const char *name, json_t *obj, struct mcr_error *err);
/* The string `key` (or ""), cut to fit `dst` where a UTF-8 character
 * starts, so that what is read can always be written again. */
void mcri_json_str(char *dst, size_t size, const json_t *obj, const char *key);
/* The integer `key`, 0 when it is none. */
long long mcri_json_int(const json_t *obj, const char *key);
/* A time of a record: Unix seconds up to the year 9999, else 0. */
double mcri_json_seconds(const json_t *v);
/* v within 0..max, else 0. */
long long mcri_json_bounded(long long v, long long max);
/* The port `key` (1-65535), else `fallback`. */
int mcri_json_port(const json_t *obj, const char *key, int fallback);

/* An HA pool in the state file (ha.c): as an object (NULL out of
 * memory), and back (anything not an HA pool's is a pool of one:
 * ha->masters 0). */
json_t *mcri_ha_pack(const struct mcri_ha *ha);
void mcri_ha_unpack(const json_t *obj, struct mcri_ha *ha);

#endif /* MCRI_JOBDIR_JSON_H_ */
