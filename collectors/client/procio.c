/* Parsers of /proc/<pid>/io, /proc/<pid>/stat and /proc/stat's btime
 * (procio.h). */
#include <stdbool.h>
#include <string.h>

#include "collectors/client/procio.h"
#include "common/error.h"
#include "common/text.h"

static int fail(const char **why, int rc, const char *msg)
{
	if (why)
		*why = msg;
	return rc;
}

/* A decimal with an optional '-', in int64. */
static int i64(const char *p, size_t n, int64_t *v)
{
	bool neg = n > 0 && p[0] == '-';
	uint64_t m;
	int rc = bcn_text_u64_all(p + neg, n - neg, &m);

	if (rc)
		return rc;
	if (m > (uint64_t)INT64_MAX + neg)
		return -BCN_ERANGE;
	*v = neg ? (int64_t)(0 - m) : (int64_t)m;
	return 0;
}

int bcn_procio_parse_io(const char *p, size_t len, struct bcn_procio *out,
			const char **why)
{
	static const char *const names[BCN_PROCIO_NCOUNTERS] = {
		"rchar", "wchar", "syscr", "syscw", "read_bytes",
		"write_bytes", "cancelled_write_bytes",
	};
	const char *end = p + len, *line, *nl, *colon, *v;
	uint64_t vals[BCN_PROCIO_NCOUNTERS] = { 0 };
	unsigned have = 0, i;
	int rc;

	memset(out, 0, sizeof(*out));
	for (line = p; line < end; line = nl < end ? nl + 1 : end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		colon = memchr(line, ':', (size_t)(nl - line));
		if (!colon || colon == line || colon + 1 == nl ||
		    colon[1] != ' ')
			return fail(why, -BCN_ESYNTAX,
				    "line is not 'name: value'");
		v = colon + 2;
		for (i = 0; i < BCN_PROCIO_NCOUNTERS; i++)
			if (strlen(names[i]) == (size_t)(colon - line) &&
			    memcmp(names[i], line, (size_t)(colon - line)) == 0)
				break;
		if (i < BCN_PROCIO_NCOUNTERS && (have & 1u << i))
			return fail(why, -BCN_ESYNTAX, "repeated counter");
		rc = bcn_text_u64_all(v, (size_t)(nl - v),
				      i < BCN_PROCIO_NCOUNTERS ? &vals[i] :
				      &(uint64_t){ 0 });
		if (rc)
			return fail(why, rc, rc == -BCN_ERANGE ?
				    "counter above 2^64 - 1" : "bad counter");
		if (i < BCN_PROCIO_NCOUNTERS)
			have |= 1u << i;
	}
	if ((have & 0xf) != 0xf)
		return fail(why, -BCN_ESYNTAX,
			    "missing rchar, wchar, syscr or syscw");
	out->rchar = vals[BCN_PROCIO_RCHAR];
	out->wchar = vals[BCN_PROCIO_WCHAR];
	out->syscr = vals[BCN_PROCIO_SYSCR];
	out->syscw = vals[BCN_PROCIO_SYSCW];
	out->read_bytes = vals[BCN_PROCIO_READ_BYTES];
	out->write_bytes = vals[BCN_PROCIO_WRITE_BYTES];
	out->cancelled_write_bytes = vals[BCN_PROCIO_CANCELLED_WRITE_BYTES];
	out->have = have;
	return 0;
}

/* Stores field number k (3..24) of /proc/<pid>/stat. */
static int stat_field(struct bcn_procstat *s, unsigned k, const char *p,
		      size_t n)
{
	int64_t *ints[] = {
		&s->ppid, &s->pgrp, &s->session, &s->tty_nr, &s->tpgid,
	};
	uint64_t *uns[] = {
		&s->flags, &s->minflt, &s->cminflt, &s->majflt, &s->cmajflt,
		&s->utime, &s->stime,
	};
	int64_t *ints2[] = {
		&s->cutime, &s->cstime, &s->priority, &s->nice,
		&s->num_threads, &s->itrealvalue,
	};

	if (k == 3) {
		if (n != 1 || p[0] < 'A' || p[0] > 'z')
			return -BCN_ESYNTAX;
		s->state = p[0];
		return 0;
	}
	if (k <= 8)
		return i64(p, n, ints[k - 4]);
	if (k <= 15)
		return bcn_text_u64_all(p, n, uns[k - 9]);
	if (k <= 21)
		return i64(p, n, ints2[k - 16]);
	if (k == 22)
		return bcn_text_u64_all(p, n, &s->starttime);
	if (k == 23)
		return bcn_text_u64_all(p, n, &s->vsize);
	return i64(p, n, &s->rss);
}

int bcn_procio_parse_stat(const char *p, size_t len, struct bcn_procstat *out,
			  const char **why)
{
	const char *end = p + len, *open, *close, *f, *sp;
	unsigned k;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len > 0 && p[len - 1] == '\n')
		end--;
	open = memchr(p, '(', (size_t)(end - p));
	close = memrchr(p, ')', (size_t)(end - p));
	if (!open || !close || close < open || open == p || open[-1] != ' ')
		return fail(why, -BCN_ESYNTAX, "no 'pid (comm)'");
	rc = i64(p, (size_t)(open - 1 - p), &out->pid);
	if (rc || out->pid <= 0)
		return fail(why, rc ? rc : -BCN_ERANGE, "bad pid");
	out->comm_len = (size_t)(close - open - 1);
	out->comm_cut = out->comm_len > BCN_PROCIO_COMM_MAX;
	memcpy(out->comm, open + 1, out->comm_cut ? BCN_PROCIO_COMM_MAX :
	       out->comm_len);
	for (k = 3, f = close + 1; k <= BCN_PROCIO_STAT_FIELDS && f < end;
	     k++, f = sp) {
		if (*f != ' ' || f + 1 == end)
			return fail(why, -BCN_ESYNTAX, "fields are not "
				    "separated by single spaces");
		f++;
		sp = memchr(f, ' ', (size_t)(end - f));
		if (!sp)
			sp = end;
		rc = stat_field(out, k, f, (size_t)(sp - f));
		if (rc)
			return fail(why, rc, "bad field");
		out->nfields = k;
	}
	if (out->nfields < BCN_PROCIO_STAT_MIN)
		return fail(why, -BCN_ESYNTAX, "fewer than 22 fields");
	return 0;
}

int bcn_procio_parse_btime(const char *p, size_t len, int64_t *btime)
{
	const char *end = p + len, *line, *nl;
	uint64_t v;

	for (line = p; line < end; line = nl < end ? nl + 1 : end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		if (nl - line > 6 && memcmp(line, "btime ", 6) == 0 &&
		    bcn_text_u64_all(line + 6, (size_t)(nl - line - 6), &v) == 0 &&
		    v <= (uint64_t)INT32_MAX * 4) {
			*btime = (int64_t)v;
			return 0;
		}
	}
	return -BCN_ESYNTAX;
}
