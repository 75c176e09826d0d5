/* Tests of proto/fileid.h: the id of a path is stable across versions
 * (pinned values: ids stored by one version are compared with ids made
 * by the next), equal to a byte-by-byte rendering of its definition for
 * every length (whole words, the overlapping last word, short paths
 * zero-padded, little-endian whatever the host), and different for
 * every prefix of a long path and every one-bit change of a path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/fileid.h"

static void test_pinned(void **state)
{
	static const struct {
		const char *path;
		uint64_t id;
	} pins[] = {
		{ "", 0xed8e0760b985de01ULL },
		{ "a", 0x738c73c50eedb6efULL },
		{ "foobar", 0xcbad4bfbd7ff25d7ULL },
		{ "/dev/shm/bcn-tracer-bench.abcdef/file12345",
		  0x4ab2e43942d49e3fULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(pins) / sizeof(pins[0]); i++)
		assert_true(bcn_file_id(pins[i].path, strlen(pins[i].path)) ==
			    pins[i].id);
}

/* The definition, one byte at a time: word k is bytes 8k .. 8k+7, least
 * significant first; the last partial word is the last eight bytes. */
static uint64_t slow_id(const unsigned char *p, size_t n)
{
	uint64_t h = BCN_FILE_ID_SEED ^ ((uint64_t)n * BCN_FILE_ID_KLEN);
	size_t words = (n + 7) / 8;

	for (size_t k = 0; k < words; k++) {
		size_t at = 8 * k;
		uint64_t w = 0;

		if (at + 8 > n)
			at = n >= 8 ? n - 8 : 0;
		for (size_t b = 0; b < 8 && at + b < n; b++)
			w |= (uint64_t)p[at + b] << (8 * b);
		h ^= w * BCN_FILE_ID_KWORD;
		h = (h << 31) | (h >> 33);
		h *= BCN_FILE_ID_KMIX;
	}
	h ^= h >> 33;
	h *= BCN_FILE_ID_KFIN;
	return h ^ (h >> 29);
}

static void test_definition(void **state)
{
	unsigned char buf[80];
	uint64_t x = 88172645463325252ULL;

	(void)state;
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[i] = (unsigned char)x;
		}
		for (size_t n = 0; n <= sizeof(buf); n++)
			assert_true(bcn_file_id((const char *)buf, n) ==
				    slow_id(buf, n));
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* n ids sorted: none may repeat. */
static void assert_distinct(uint64_t *ids, size_t n)
{
	qsort(ids, n, sizeof(*ids), cmp_u64);
	for (size_t i = 1; i < n; i++)
		assert_true(ids[i] != ids[i - 1]);
}

static void test_distinct(void **state)
{
	static char path[300];
	static uint64_t ids[8 * 48 + 1];
	char p[48];
	size_t k = 0;

	(void)state;
	/* every prefix, zeros included (the length is hashed) */
	memset(path, 0, sizeof(path));
	memcpy(path, "/lustre/scratch/u1/run", 22);
	for (size_t n = 0; n < sizeof(path); n++)
		ids[n] = bcn_file_id(path, n);
	assert_distinct(ids, sizeof(path));
	/* every one-bit change of a path */
	memset(p, 'x', sizeof(p));
	memcpy(p, "/lustre/scratch/u1/run.0042/out/h5", 34);
	ids[k++] = bcn_file_id(p, sizeof(p));
	for (size_t i = 0; i < sizeof(p); i++)
		for (int b = 0; b < 8; b++) {
			p[i] ^= (char)(1 << b);
			ids[k++] = bcn_file_id(p, sizeof(p));
			p[i] ^= (char)(1 << b);
		}
	assert_distinct(ids, k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_definition),
		cmocka_unit_test(test_distinct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
