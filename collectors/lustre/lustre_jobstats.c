/* Lustre job_stats: a line-driven state machine over chunked input. Each
 * "- job_id:" line closes the previous block (handing it to the callback)
 * and opens the next; blocks with an empty or unusable job id are skipped
 * whole. Counter lines are read only as far as the map needs (samples,
 * and the sum for bytes), then checked to end with '}'. Pure. */
#include <errno.h>
#include <string.h>

#include "collectors/lustre/lustre_jobstats.h"
#include "common/error.h"
#include "common/text.h"

enum js_state {
	JS_NONE = 0,    /* before the first block */
	JS_JOB,         /* in a block that will be handed over */
	JS_SKIP,        /* in a block being skipped */
};

int bcn_lustre_jobid_unquote(const char *s, size_t len, char *out,
			     size_t outlen, size_t *n)
{
	const char *p = s, *end = s + len;
	size_t o = 0;

	if (outlen == 0)
		return -BCN_EFULL;
	if (len > 0 && *s == '"') {
		if (len < 2 || s[len - 1] != '"')
			return -BCN_ESYNTAX;
		p++;
		end--;
	}
	while (p < end) {
		char c = *p++;

		if (c == '\0')
			return -BCN_ESYNTAX;
		if (c == '\\' && *s == '"') {
			int hi, lo;

			if (end - p < 3 || p[0] != 'x')
				return -BCN_ESYNTAX;
			hi = bcn_text_hexval(p[1]);
			lo = bcn_text_hexval(p[2]);
			if (hi < 0 || lo < 0 || (hi | lo) == 0)
				return -BCN_ESYNTAX;
			c = (char)(hi << 4 | lo);
			p += 3;
		} else if (c == '"' && *s == '"') {
			return -BCN_ESYNTAX;
		}
		if (o + 1 >= outlen)
			return -BCN_EFULL;
		out[o++] = c;
	}
	out[o] = '\0';
	*n = o;
	return 0;
}

int bcn_lustre_jobid_slurm(const char *id, size_t len, uint64_t *job)
{
	const char *p = id;

	*job = 0;
	if (len == 0 || (id[0] == '0' && len > 1))
		return -BCN_ESYNTAX;
	if (bcn_text_u64(&p, id + len, job) || p != id + len) {
		*job = 0;
		return -BCN_ESYNTAX;
	}
	return 0;
}

/* Hands the current block over if it is a job. */
static int js_close(struct bcn_lustre_jobstats *js)
{
	int rc = 0;

	if (js->state == JS_JOB) {
		js->jobs++;
		rc = js->fn(js->arg, &js->cur);
	}
	js->state = JS_NONE;
	return rc;
}

/* "- job_id: ID": closes the previous block, opens the next. */
static int js_open(struct bcn_lustre_jobstats *js, const char *p,
		   const char *end)
{
	struct bcn_lustre_job *j = &js->cur;
	int rc = js_close(js);

	if (rc < 0)
		return rc;
	p = bcn_text_skip_space(p, end);
	if (p == end) {
		js->empty_ids++;
		js->state = JS_SKIP;
		return 0;
	}
	if (bcn_lustre_jobid_unquote(p, (size_t)(end - p), j->jobid,
				     sizeof(j->jobid), &j->jobid_len)) {
		js->bad_ids++;
		js->state = JS_SKIP;
		return 0;
	}
	if (j->jobid_len == 0) {        /* "" */
		js->empty_ids++;
		js->state = JS_SKIP;
		return 0;
	}
	j->snapshot_ns = j->start_ns = j->elapsed_ns = -1;
	bcn_lustre_vals_clear(&j->vals, js->map->nslots);
	js->state = JS_JOB;
	return 0;
}

/* Reads "key: value" pairs of "{ samples: N, unit: U, ..., sum: S, ... }"
 * until samples (and sum when want_sum) are known. Returns 0 or
 * -BCN_ESYNTAX. */
static int js_values(const char *p, const char *end, bool want_sum,
		     uint64_t *samples, uint64_t *sum)
{
	bool have_samples = false, have_sum = !want_sum;

	if (p == end || *p != '{')
		return -BCN_ESYNTAX;
	p++;
	while (!(have_samples && have_sum)) {
		const char *k, *colon;
		size_t klen;

		p = bcn_text_skip_space(p, end);
		k = p;
		colon = memchr(p, ':', (size_t)(end - p));
		if (!colon)
			return -BCN_ESYNTAX;
		klen = (size_t)(colon - k);
		p = bcn_text_skip_space(colon + 1, end);
		if (klen == 7 && memcmp(k, "samples", 7) == 0) {
			if (bcn_text_u64(&p, end, samples))
				return -BCN_ESYNTAX;
			have_samples = true;
		} else if (klen == 3 && memcmp(k, "sum", 3) == 0) {
			if (bcn_text_u64(&p, end, sum))
				return -BCN_ESYNTAX;
			have_sum = true;
		} else {
			/* unit, min, max, sumsq: a plain token */
			while (p < end && *p != ',' && *p != '}' && *p != '{')
				p++;
		}
		p = bcn_text_skip_space(p, end);
		if (p == end || (*p != ',' && *p != '}'))
			return -BCN_ESYNTAX;
		if (*p == '}' && !(have_samples && have_sum))
			return -BCN_ESYNTAX;
		p++;
	}
	return 0;
}

/* "  name: { samples: ... }" inside a block; colon ends the name. */
static void js_counter(struct bcn_lustre_jobstats *js, const char *p,
		       const char *colon, const char *end)
{
	uint8_t idx[BCN_LUSTRE_MAP_REFS];
	uint64_t samples = 0, sum = 0;
	bool want_sum = false;
	unsigned i, n;

	if (colon == p || end[-1] != '}') {
		js->malformed++;
		return;
	}
	n = bcn_lustre_map_find(js->map, p, (size_t)(colon - p), idx);
	for (i = 0; i < n; i++)
		want_sum |= js->map->fields[idx[i]].value == BCN_LUSTRE_SUM;
	if (js_values(bcn_text_skip_space(colon + 1, end), end, want_sum, &samples,
		      &sum)) {
		js->malformed++;
		return;
	}
	if (n == 0)
		js->unmapped++;
	if (js->state != JS_JOB)
		return;
	for (i = 0; i < n; i++) {
		bool s = js->map->fields[idx[i]].value == BCN_LUSTRE_SUM;

		bcn_lustre_vals_put(&js->cur.vals, js->map, idx[i],
				    s ? sum : samples);
	}
}

static bool key_is(const char *p, size_t len, const char *key, size_t n)
{
	return len == n && memcmp(p, key, n) == 0;
}

/* "  snapshot_time: T", "  start_time: T", "  elapsed_time: T": returns
 * 1 if the key is one of these (the time parsed or the line counted),
 * else 0. */
static int js_time(struct bcn_lustre_jobstats *js, const char *p,
		   const char *colon, const char *end)
{
	struct bcn_lustre_job *j = &js->cur;
	size_t len = (size_t)(colon - p);
	int64_t *t;

	if (key_is(p, len, "snapshot_time", 13))
		t = &j->snapshot_ns;
	else if (key_is(p, len, "start_time", 10))
		t = &j->start_ns;
	else if (key_is(p, len, "elapsed_time", 12))
		t = &j->elapsed_ns;
	else
		return 0;
	if (bcn_lustre_parse_time(colon + 1, (size_t)(end - colon - 1), t))
		js->malformed++;
	return 1;
}

static int js_line(void *arg, const char *line, size_t len)
{
	struct bcn_lustre_jobstats *js = arg;
	const char *end = bcn_text_trim_space(line, line + len);
	const char *p = bcn_text_skip_space(line, end);
	const char *colon;

	if (p == end)
		return 0;
	if (*p == '-') {
		p = bcn_text_skip_space(p + 1, end);
		if ((size_t)(end - p) >= 7 && memcmp(p, "job_id:", 7) == 0)
			return js_open(js, p + 7, end);
		js->malformed++;
		return 0;
	}
	if (js->state == JS_NONE) {
		if ((size_t)(end - p) == 10 && memcmp(p, "job_stats:", 10) == 0)
			return 0;
		js->malformed++;
		return 0;
	}
	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon) {
		js->malformed++;
		return 0;
	}
	if (!js_time(js, p, colon, end))
		js_counter(js, p, colon, end);
	return 0;
}

void bcn_lustre_jobstats_init(struct bcn_lustre_jobstats *js,
			      const struct bcn_lustre_map *map,
			      bcn_lustre_job_fn *fn, void *arg)
{
	js->jobs = js->empty_ids = js->bad_ids = 0;
	js->malformed = js->unmapped = 0;
	js->map = map;
	js->fn = fn;
	js->arg = arg;
	js->state = JS_NONE;
	js->rc = 0;
	bcn_lustre_lines_init(&js->lines);
}

int bcn_lustre_jobstats_feed(struct bcn_lustre_jobstats *js, const char *buf,
			     size_t len)
{
	if (js->rc == 0)
		js->rc = bcn_lustre_lines_feed(&js->lines, buf, len, js_line,
					       js);
	return js->rc;
}

int bcn_lustre_jobstats_finish(struct bcn_lustre_jobstats *js)
{
	if (js->rc == 0)
		js->rc = bcn_lustre_lines_end(&js->lines, js_line, js);
	if (js->rc == 0)
		js->rc = js_close(js);
	js->malformed += (uint32_t)js->lines.overlong_lines;
	js->lines.overlong_lines = 0;
	return js->rc;
}

int bcn_lustre_jobstats_parse(struct bcn_lustre_jobstats *js,
			      const struct bcn_lustre_map *map,
			      const char *buf, size_t len,
			      bcn_lustre_job_fn *fn, void *arg)
{
	bcn_lustre_jobstats_init(js, map, fn, arg);
	bcn_lustre_jobstats_feed(js, buf, len);
	return bcn_lustre_jobstats_finish(js);
}
