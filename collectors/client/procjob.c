/* Slurm job, step and rank of a process from its cgroup and environment
 * texts (procjob.h). */
#include <stdbool.h>
#include <string.h>

#include "collectors/client/procjob.h"

/* A decimal number of 1..10 digits, the whole of p[0..n), at most max. */
static bool number(const char *p, size_t n, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)(p[i] - '0') >= 10)
			return false;
		x = x * 10 + (uint64_t)(p[i] - '0');
	}
	if (x > max)
		return false;
	*v = x;
	return true;
}

static bool prefixed(const char *p, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && memcmp(p, pre, k) == 0;
}

/* The step of a "step_..." component. */
static bool step_of(const char *p, size_t n, uint64_t *step)
{
	static const struct { const char *name; uint64_t id; } special[] = {
		{ "step_batch", BCN_PROCJOB_STEP_BATCH },
		{ "step_extern", BCN_PROCJOB_STEP_EXTERN },
		{ "step_interactive", BCN_PROCJOB_STEP_INTERACTIVE },
	};

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		if (strlen(special[i].name) == n &&
		    memcmp(special[i].name, p, n) == 0) {
			*step = special[i].id;
			return true;
		}
	}
	return prefixed(p, n, "step_") &&
	       number(p + 5, n - 5, BCN_PROCJOB_ID_MAX, step);
}

/* Looks for .../slurm*.../job_<id>[/step_<id>] in one cgroup path. */
static void cgroup_path(const char *p, size_t n, struct bcn_procjob *j)
{
	const char *end = p + n, *comp, *next;
	bool under_slurm = false;
	size_t k;

	memset(j, 0, sizeof(*j));
	for (comp = p; comp < end; comp = next < end ? next + 1 : end) {
		next = memchr(comp, '/', (size_t)(end - comp));
		if (!next)
			next = end;
		k = (size_t)(next - comp);
		if (j->has_job) {
			j->has_step = step_of(comp, k, &j->step);
			return;
		}
		if (under_slurm && prefixed(comp, k, "job_") &&
		    number(comp + 4, k - 4, BCN_PROCJOB_ID_MAX, &j->job) &&
		    j->job > 0)
			j->has_job = true;
		else if (prefixed(comp, k, "slurm"))
			under_slurm = true;
	}
}

void bcn_procjob_cgroup(const char *p, size_t len, struct bcn_procjob *out)
{
	const char *end = p + len, *line, *nl, *c1, *c2;
	struct bcn_procjob j;

	memset(out, 0, sizeof(*out));
	for (line = p; line < end; line = nl < end ? nl + 1 : end) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		if (nl == line)
			continue;
		c1 = memchr(line, ':', (size_t)(nl - line));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(nl - c1 - 1)) : NULL;
		if (!c2 || c1 == line || c2 + 1 == nl || c2[1] != '/') {
			out->bad_lines++;
			continue;
		}
		if (out->has_job && out->has_step)
			continue;
		cgroup_path(c2 + 1, (size_t)(nl - c2 - 1), &j);
		if (j.has_job && (!out->has_job || j.has_step)) {
			j.bad_lines = out->bad_lines;
			*out = j;
		}
	}
}

/* The value of NAME=VALUE in entry e of n bytes, if e names it. */
static bool env_value(const char *e, size_t n, const char *name,
		      const char **v, size_t *vn)
{
	size_t k = strlen(name);

	if (n <= k || memcmp(e, name, k) != 0 || e[k] != '=')
		return false;
	*v = e + k + 1;
	*vn = n - k - 1;
	return true;
}

/* Variables read, by preference within each field (lower is better). */
static const struct {
	const char *name;
	int field;              /* 0 job, 1 step, 2 rank */
	int pref;
} env_vars[] = {
	{ "SLURM_JOB_ID", 0, 0 }, { "SLURM_JOBID", 0, 1 },
	{ "SLURM_STEP_ID", 1, 0 }, { "SLURM_STEPID", 1, 1 },
	{ "OMPI_COMM_WORLD_RANK", 2, 0 }, { "PMI_RANK", 2, 1 },
	{ "PMIX_RANK", 2, 2 }, { "SLURM_PROCID", 2, 3 },
};

void bcn_procjob_environ(const char *p, size_t len, struct bcn_procjob *out)
{
	const char *end = p + len, *e, *z, *v;
	int best[3] = { 99, 99, 99 };
	size_t vn, i;
	uint64_t x;

	memset(out, 0, sizeof(*out));
	for (e = p; e < end; e = z < end ? z + 1 : end) {
		z = memchr(e, '\0', (size_t)(end - e));
		if (!z)
			z = end;
		for (i = 0; i < sizeof(env_vars) / sizeof(env_vars[0]); i++) {
			int f = env_vars[i].field;

			if (env_vars[i].pref >= best[f] ||
			    !env_value(e, (size_t)(z - e), env_vars[i].name,
					&v, &vn))
				continue;
			if (f == 0 && number(v, vn, BCN_PROCJOB_ID_MAX, &x) &&
			    x > 0) {
				out->job = x;
				out->has_job = true;
			} else if (f == 1 &&
				   number(v, vn, BCN_PROCJOB_ID_MAX, &x)) {
				out->step = x;
				out->has_step = true;
			} else if (f == 2 && number(v, vn,
						    BCN_PROCJOB_RANK_MAX, &x)) {
				out->rank = (int64_t)x;
				out->has_rank = true;
			} else {
				continue;
			}
			best[f] = env_vars[i].pref;
		}
	}
}

void bcn_procjob_merge(const struct bcn_procjob *cg,
		       const struct bcn_procjob *env, struct bcn_procjob *out)
{
	memset(out, 0, sizeof(*out));
	if (cg->has_job) {
		out->has_job = true;
		out->job = cg->job;
		out->has_step = cg->has_step;
		out->step = cg->step;
	} else if (env->has_job) {
		out->has_job = true;
		out->job = env->job;
		out->has_step = env->has_step;
		out->step = env->step;
	}
	if (out->has_job && !out->has_step)
		out->step = BCN_PROCJOB_STEP_NONE;
	if (env->has_rank && (!env->has_job || !out->has_job ||
			      env->job == out->job)) {
		out->has_rank = true;
		out->rank = env->rank;
	}
}
