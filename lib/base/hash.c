/*
 * hash.c - keyed string hashing (SipHash-1-3) and an index of positions by
 * hash, so that a mapping, the anchors, a client config or an environment
 * finds a key in constant time whatever keys a recipe holds. The key is
 * random per document (mcri_hashkey_init), so no recipe can be written to
 * make every key collide.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"

void mcri_hashkey_init(struct mcri_hashkey *hk)
{
	struct timespec ts;

	if (getrandom(hk->k, sizeof(hk->k), GRND_NONBLOCK) == (ssize_t)sizeof(hk->k))
		return;
	/* no entropy yet (early boot): the clock, the process and ASLR */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	hk->k[0] = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)(uintptr_t)hk;
	hk->k[1] = ((uint64_t)getpid() << 17) ^ (uint64_t)(uintptr_t)&ts ^ 0x736f6d6570736575ULL;
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                                       \
	do {                                                                                                           \
		v0 += v1;                                                                                              \
		v1 = ROTL(v1, 13);                                                                                     \
		v1 ^= v0;                                                                                              \
		v0 = ROTL(v0, 32);                                                                                     \
		v2 += v3;                                                                                              \
		v3 = ROTL(v3, 16);                                                                                     \
		v3 ^= v2;                                                                                              \
		v0 += v3;                                                                                              \
		v3 = ROTL(v3, 21);                                                                                     \
		v3 ^= v0;                                                                                              \
		v2 += v1;                                                                                              \
		v1 = ROTL(v1, 17);                                                                                     \
		v1 ^= v2;                                                                                              \
		v2 = ROTL(v2, 32);                                                                                     \
	} while (0)

uint64_t mcri_hash(const struct mcri_hashkey *hk, const void *data, size_t len)
{
	const unsigned char *p = data, *end = p + (len & ~(size_t)7);
	uint64_t k0 = hk ? hk->k[0] : 0, k1 = hk ? hk->k[1] : 0;
	uint64_t v0 = 0x736f6d6570736575ULL ^ k0, v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ k0, v3 = 0x7465646279746573ULL ^ k1;
	uint64_t b = (uint64_t)len << 56, m;

	for (; p < end; p += 8) {
		memcpy(&m, p, 8);
		v3 ^= m;
		SIPROUND;
		v0 ^= m;
	}
	for (size_t i = 0; i < (len & 7); i++)
		b |= (uint64_t)p[i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

static int grow(struct mcri_index *ix)
{
	size_t cap = ix->mask ? (ix->mask + 1) * 2 : 16;
	struct mcri_index_slot *s = calloc(cap, sizeof(*s));

	if (!s)
		return -1;
	for (size_t i = 0; ix->mask && i <= ix->mask; i++) {
		size_t j;

		if (!ix->slot[i].pos1)
			continue;
		for (j = ix->slot[i].hash & (cap - 1); s[j].pos1; j = (j + 1) & (cap - 1))
			;
		s[j] = ix->slot[i];
	}
	free(ix->slot);
	ix->slot = s;
	ix->mask = cap - 1;
	return 0;
}

int mcri_index_add(struct mcri_index *ix, uint64_t hash, size_t pos)
{
	size_t j;

	if (pos >= UINT32_MAX)
		return -1;
	/* at most half full: a probe ends after about two slots */
	if ((ix->n + 1) * 2 > (ix->mask ? ix->mask + 1 : 0) && grow(ix))
		return -1;
	for (j = (uint32_t)hash & ix->mask; ix->slot[j].pos1; j = (j + 1) & ix->mask)
		;
	ix->slot[j].pos1 = (uint32_t)pos + 1;
	ix->slot[j].hash = (uint32_t)hash;
	ix->n++;
	return 0;
}

size_t mcri_index_find(const struct mcri_index *ix, uint64_t hash, bool (*eq)(const void *ctx, size_t pos),
		       const void *ctx)
{
	if (!ix->mask)
		return MCRI_NOT_FOUND;
	for (size_t j = (uint32_t)hash & ix->mask; ix->slot[j].pos1; j = (j + 1) & ix->mask)
		if (ix->slot[j].hash == (uint32_t)hash && eq(ctx, ix->slot[j].pos1 - 1))
			return ix->slot[j].pos1 - 1;
	return MCRI_NOT_FOUND;
}

void mcri_index_free(struct mcri_index *ix)
{
	free(ix->slot);
	ix->slot = NULL;
	ix->mask = ix->n = 0;
}
