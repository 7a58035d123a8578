/* public_api.c - a user of libmooncake_recipe.so that includes only the
 * public header and links only the shared library (tests/artifact/
 * library.sh): a recipe loads, a refused one prints its message. */
#include <stdio.h>
#include <string.h>

#include "mooncake_recipe.h"

int main(void)
{
	static const char ok[] = "schema: 2\nroles: {agg: {}}\n";
	static const char bad[] = "schema: 1\n";
	struct mcr_recipe *r = NULL;
	struct mcr_error err;
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	if (mcr_recipe_load_buffer(ok, strlen(ok), "ok.yaml", &r, &err)) {
		mcr_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	mcr_recipe_free(r);
	if (mcr_recipe_load_buffer(bad, strlen(bad), "bad.yaml", &r, &err) == 0)
		return 1;
	mcr_error_format(&err, msg, sizeof(msg));
	printf("%s\n", msg);
	return 0;
}
