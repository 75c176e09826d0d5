/* Helpers shared by the Lustre collector tests: a fixture file of
 * tests/data/lustre read into a heap buffer of exactly its size (so that
 * AddressSanitizer catches a parser reading past the end). */
#ifndef BCN_TEST_LUSTRE_FIXTURE_H
#define BCN_TEST_LUSTRE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LFX_DIR BCN_TEST_DATA "/lustre/"

/* Reads tests/data/lustre/<rel>; fails the test when it cannot. The
 * caller frees the result. */
static inline char *lfx_read(const char *rel, size_t *len)
{
	char path[1024];
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *exact;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", LFX_DIR, rel);
	f = fopen(path, "rb");
	if (!f || !buf) {
		fprintf(stderr, "cannot read %s\n", path);
		abort();
	}
	for (;;) {
		size_t got = fread(buf + n, 1, cap - n, f);

		n += got;
		if (got == 0)
			break;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
	}
	fclose(f);
	exact = malloc(n ? n : 1);
	if (!exact)
		abort();
	memcpy(exact, buf, n);
	free(buf);
	*len = n;
	return exact;
}

#endif
