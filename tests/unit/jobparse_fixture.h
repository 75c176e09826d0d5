/* Shared by the job-record parser tests: reading a file of tests/data and
 * collecting what a parser delivers (owned copies of the jobs' fields,
 * rejected lines with their reasons). */
#ifndef BCN_JOBPARSE_FIXTURE_H
#define BCN_JOBPARSE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/jobparse.h"

#define JP_MAX 128

struct jp_job {
	struct bcn_job j;
	char step[64], user[64], account[64], partition[64], name[64];
	char nodelist[1024];
};

struct jp_got {
	struct jp_job jobs[JP_MAX];
	size_t n;
	uint64_t bad_line[JP_MAX];
	char bad_reason[JP_MAX][BCN_JOBPARSE_REASON_MAX];
	size_t nbad;
};

static inline void jp_copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src);
}

static inline int jp_job(void *arg, const struct bcn_job *j)
{
	struct jp_got *g = arg;
	struct jp_job *o;

	if (g->n >= JP_MAX)
		return -1;
	o = &g->jobs[g->n++];
	o->j = *j;
	jp_copy(o->step, sizeof(o->step), j->step);
	jp_copy(o->user, sizeof(o->user), j->user);
	jp_copy(o->account, sizeof(o->account), j->account);
	jp_copy(o->partition, sizeof(o->partition), j->partition);
	jp_copy(o->name, sizeof(o->name), j->name);
	jp_copy(o->nodelist, sizeof(o->nodelist), j->nodelist);
	return 0;
}

static inline void jp_err(void *arg, uint64_t line, const char *reason)
{
	struct jp_got *g = arg;

	if (g->nbad < JP_MAX) {
		g->bad_line[g->nbad] = line;
		jp_copy(g->bad_reason[g->nbad], BCN_JOBPARSE_REASON_MAX, reason);
	}
	g->nbad++;
}

/* Reads BCN_TEST_DATA/rel into a malloc'd buffer (NULL on failure). */
static inline char *jp_read(const char *rel, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", BCN_TEST_DATA, rel);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static inline struct jp_got *jp_new(void)
{
	return calloc(1, sizeof(struct jp_got));
}

#endif
