/*
 * hostport.c - "host:port", read one way everywhere: the rule on an
 * external master (rules/services.c), the metadata server's host (render/
 * env.c) and the address a task resolves (spank/stepd/stepd.c).
 */
#include <stdlib.h>
#include <string.h>

#include "sys/sys.h"

int mcri_host_port_parse(const char *text, char **host, int *port, struct mcr_error *err)
{
	const char *colon = strrchr(text, ':'), *p;
	long value = 0;

	if (!colon || colon == text || strpbrk(text, " \t\n\r\v\f/") || !colon[1])
		goto bad;
	for (p = colon + 1; *p; p++) {
		if (*p < '0' || *p > '9')
			goto bad;
		value = value * 10 + (*p - '0');
		if (value > 65535)
			goto bad;
	}
	if (value < 1)
		goto bad;
	if (host && !(*host = strndup(text, (size_t)(colon - text))))
		return mcri_error_nomem(err);
	if (port)
		*port = (int)value;
	return 0;
bad:
	return mcri_error_set(err, MCR_EINVAL, "'%s' is not host:port (a host, a colon, a port from 1 to 65535)", text);
}
