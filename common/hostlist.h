/* Slurm hostlist expressions: expand "cn[001-128,130],gpu[1-4]" into host
 * names and compress a list of names back into such an expression.
 * Grammar, ordering and zero-padding rules: docs/hostlist.md. */
#ifndef BCN_HOSTLIST_H
#define BCN_HOSTLIST_H

#include <stddef.h>

#include "common/buf.h"

/* Longest host name, in bytes, without the terminating NUL. */
#define BCN_HOSTLIST_NAME_MAX   255
/* Hard cap on the names one expansion may produce, whatever the caller
 * asks for. */
#define BCN_HOSTLIST_MAX_HOSTS  1048576
/* Most bracket groups in one element ("a[1-2]b[3-4]" has two). */
#define BCN_HOSTLIST_MAX_GROUPS 16
/* Most digits in one number of a range; keeps values below 10^18. */
#define BCN_HOSTLIST_MAX_DIGITS 18

/* An expanded host list. hosts[0..n-1] point into one arena of
 * NUL-terminated names owned by the list. */
struct bcn_hostlist {
	char **hosts;
	size_t n;
	char *arena;
	size_t arena_len;
};

/* Expands the hostlist expression expr[0..len-1] (not NUL-terminated) into
 * *out, which the caller frees with bcn_hostlist_free() on success; on
 * failure *out is left empty. Top-level elements keep their order; within
 * one bracket the numbers are sorted ascending and deduplicated; several
 * brackets form a cartesian product, leftmost varying slowest. The empty
 * string is the empty list. At most max_hosts (itself capped at
 * BCN_HOSTLIST_MAX_HOSTS) names are produced.
 * Returns 0, -EINVAL (NULL argument), -ENOMEM, -BCN_ESYNTAX (grammar),
 * -BCN_ERANGE (descending range, number or name too long, too many
 * groups) or -BCN_ETOOBIG (more than max_hosts names). On error a message
 * with the 1-based column is written to err (if err and errlen > 0). */
int bcn_hostlist_expand(const char *expr, size_t len, size_t max_hosts,
			struct bcn_hostlist *out, char *err, size_t errlen);

/* Frees the names and arrays of hl and leaves it empty; NULL is a no-op. */
void bcn_hostlist_free(struct bcn_hostlist *hl);

/* Sorts hl->hosts into canonical hostlist order (the order in which the
 * output of bcn_hostlist_format() expands) and drops duplicates. Cannot
 * fail except for -ENOMEM; returns 0 or -ENOMEM, -EINVAL for NULL. */
int bcn_hostlist_sort_unique(struct bcn_hostlist *hl);

/* Appends to out a compressed expression for hosts[0..n-1], e.g.
 * "cn[001-128,130],gpu[1-4]": names are grouped by the text before and
 * after their last run of digits and by its zero padding, duplicates are
 * dropped, and the groups come in canonical order, so that expanding the
 * result yields exactly the sorted, unique list. Appends nothing for n 0.
 * Returns 0, -EINVAL (NULL argument, empty name, name longer than
 * BCN_HOSTLIST_NAME_MAX or with a character the grammar reserves),
 * -BCN_ETOOBIG (n > BCN_HOSTLIST_MAX_HOSTS), -BCN_EFULL (out's maximum
 * reached; out keeps what it had before) or -ENOMEM. */
int bcn_hostlist_format(const char *const *hosts, size_t n,
			struct bcn_buf *out);

#endif
