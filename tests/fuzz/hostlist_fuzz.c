/* libFuzzer target for common/hostlist. Expands the input as an expression
 * and, when that works, checks expand(format(list)) == sort_unique(list);
 * then formats the input's lines as a list of names and checks the same.
 * A broken invariant aborts, which libFuzzer reports as a crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/hostlist.h"

/* Small caps keep every run fast. */
#define FUZZ_MAX_HOSTS  4096
#define FUZZ_MAX_OUTPUT (4u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts unless expanding format(hl) gives sort_unique(hl); permutes hl. */
static void check_roundtrip(struct bcn_hostlist *hl)
{
	struct bcn_hostlist back;
	struct bcn_buf b;
	char err[256];
	size_t i;

	bcn_buf_init(&b, FUZZ_MAX_OUTPUT);
	if (bcn_hostlist_format((const char *const *)hl->hosts, hl->n, &b))
		abort();
	if (bcn_hostlist_expand((const char *)b.data, b.len, FUZZ_MAX_HOSTS,
				&back, err, sizeof(err)))
		abort();
	if (bcn_hostlist_sort_unique(hl))
		abort();
	if (back.n != hl->n)
		abort();
	for (i = 0; i < back.n; i++)
		if (strcmp(back.hosts[i], hl->hosts[i]) != 0)
			abort();
	bcn_hostlist_free(&back);
	bcn_buf_free(&b);
}

/* Formats the input's lines as host names; valid lists must round-trip. */
static void fuzz_format(const uint8_t *data, size_t size)
{
	struct bcn_hostlist hl = { 0 };
	char *copy = malloc(size + 1);
	char **names = malloc(FUZZ_MAX_HOSTS * sizeof(*names));
	struct bcn_buf b;
	size_t i, start = 0;

	if (!copy || !names)
		goto out;
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (i = 0; i <= size && hl.n < FUZZ_MAX_HOSTS; i++) {
		if (i < size && copy[i] != '\n')
			continue;
		copy[i] = '\0';
		names[hl.n++] = copy + start;
		start = i + 1;
	}
	hl.hosts = names;
	bcn_buf_init(&b, FUZZ_MAX_OUTPUT);
	/* names with reserved characters are refused; the rest must work */
	if (bcn_hostlist_format((const char *const *)names, hl.n, &b) == 0)
		check_roundtrip(&hl);
	bcn_buf_free(&b);
out:
	free(names);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bcn_hostlist hl;
	char err[256];

	if (bcn_hostlist_expand((const char *)data, size, FUZZ_MAX_HOSTS, &hl,
				err, sizeof(err)) == 0) {
		check_roundtrip(&hl);
		bcn_hostlist_free(&hl);
	} else if (err[0] == '\0') {
		abort();        /* every failure must explain itself */
	}
	fuzz_format(data, size);
	return 0;
}
