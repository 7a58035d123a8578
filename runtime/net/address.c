/*
 * address.c - addresses: a node's IPv4 for MOONCAKE_MASTER, this host's for
 * MOONCAKE_LOCAL_HOSTNAME.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/base.h"
#include "net/net.h"

int mcri_resolve_ipv4(const char *host, char *addr, size_t size, struct mcr_error *err)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	int rc;

	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0 || !res)
		return mcri_error_set(
			err, MCR_ESTATE,
			"cannot resolve the address of node %s: %s; its NodeAddr in slurm.conf must resolve to an IPv4 address",
			host, gai_strerror(rc));
	if (!inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, addr, (socklen_t)size)) {
		freeaddrinfo(res);
		return mcri_error_set(err, MCR_ESTATE, "cannot format the address of %s", host);
	}
	freeaddrinfo(res);
	return 0;
}

static int iface_ipv4(const char *iface, char *addr, size_t size, struct mcr_error *err)
{
	struct ifaddrs *ifs = NULL;
	int rc = -1;

	if (getifaddrs(&ifs) != 0)
		return mcri_error_set(err, MCR_ESTATE, "cannot list network interfaces: %s", strerror(errno));
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || strcmp(i->ifa_name, iface) != 0)
			continue;
		if (inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, addr, (socklen_t)size))
			rc = 0;
		break;
	}
	freeifaddrs(ifs);
	if (rc)
		mcri_error_set(
			err, MCR_ESTATE,
			"the network interface '%s' (plugstack.conf interface=) has no IPv4 address on this node; fix interface= or the node's network",
			iface);
	return rc;
}

int mcri_local_address(const char *iface, const char *peer, char *addr, size_t size, struct mcr_error *err)
{
	struct sockaddr_in dst = { 0 }, src = { 0 };
	socklen_t len = sizeof(src);
	int fd;

	if (iface && *iface)
		return iface_ipv4(iface, addr, size, err);
	/* the source address the kernel picks toward the master: the address
	 * the master and the other clients can reach this node on */
	dst.sin_family = AF_INET;
	dst.sin_port = htons(MCR_MASTER_PORT);
	if (inet_pton(AF_INET, peer, &dst.sin_addr) != 1)
		return mcri_error_set(err, MCR_ESTATE, "'%s' is not an IPv4 address", peer);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return mcri_error_set(err, MCR_ESTATE, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) != 0 ||
	    getsockname(fd, (struct sockaddr *)&src, &len) != 0 ||
	    !inet_ntop(AF_INET, &src.sin_addr, addr, (socklen_t)size)) {
		int e = errno;

		close(fd);
		return mcri_error_set(
			err, MCR_ESTATE,
			"no route from this node to the master at %s: %s; set interface= in plugstack.conf", peer,
			strerror(e));
	}
	close(fd);
	return 0;
}

bool mcri_own_name_is_loopback(void)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	char name[256];
	bool loopback;

	if (gethostname(name, sizeof(name)) != 0)
		return true;
	name[sizeof(name) - 1] = '\0';
	hints.ai_family = AF_INET;
	if (getaddrinfo(name, NULL, &hints, &res) != 0 || !res)
		return true;
	loopback = (ntohl(((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr) >> 24) == 127;
	freeaddrinfo(res);
	return loopback;
}
