/* libFuzzer target for collectors/lustre/lustre_jobstats: feeds arbitrary
 * bytes (copied to a buffer of exactly their length) to the job_stats
 * parser through the OST and MDT maps, whole and cut in two at a point
 * the input chooses, and checks that both give the same jobs, that every
 * job id is non-empty, NUL-free and bounded, that only the map's slots
 * are set, and that the job id helpers keep their contracts. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/lustre/lustre_jobstats.h"
#include "common/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct bcn_lustre_map ost_map, md_map;
static int maps_ready;

struct digest {
	uint64_t jobs, hash;
	unsigned nslots;
};

static void mix(struct digest *d, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		d->hash = (d->hash ^ b[i]) * 1099511628211ULL;
}

static int job_cb(void *arg, const struct bcn_lustre_job *job)
{
	struct digest *d = arg;

	if (job->jobid_len == 0 || job->jobid_len > BCN_LUSTRE_JOBID_MAX ||
	    job->jobid[job->jobid_len] != '\0' ||
	    memchr(job->jobid, '\0', job->jobid_len))
		abort();
	if (job->vals.present >> d->nslots)
		abort();
	d->jobs++;
	mix(d, job->jobid, job->jobid_len);
	mix(d, &job->vals.present, sizeof(job->vals.present));
	mix(d, job->vals.v, d->nslots * sizeof(job->vals.v[0]));
	mix(d, &job->snapshot_ns, sizeof(job->snapshot_ns));
	return 0;
}

static void check(const char *s, size_t len, const struct bcn_lustre_map *m)
{
	struct bcn_lustre_jobstats a, b;
	struct digest x = { 0, 0, m->nslots }, y = { 0, 0, m->nslots };
	size_t cut = len ? (uint8_t)s[len - 1] % len : 0;

	if (bcn_lustre_jobstats_parse(&a, m, s, len, job_cb, &x))
		abort();
	bcn_lustre_jobstats_init(&b, m, job_cb, &y);
	if (bcn_lustre_jobstats_feed(&b, s, cut) ||
	    bcn_lustre_jobstats_feed(&b, s + cut, len - cut) ||
	    bcn_lustre_jobstats_finish(&b))
		abort();
	if (x.jobs != y.jobs || x.hash != y.hash || a.jobs != x.jobs ||
	    a.malformed != b.malformed || a.empty_ids != b.empty_ids ||
	    a.bad_ids != b.bad_ids || a.unmapped != b.unmapped)
		abort();
}

static void check_ids(const char *s, size_t len)
{
	char out[BCN_LUSTRE_JOBID_MAX + 1];
	uint64_t job = 1;
	size_t n = 0;
	int rc = bcn_lustre_jobid_unquote(s, len, out, sizeof(out), &n);

	if (rc == 0 && (n > BCN_LUSTRE_JOBID_MAX || out[n] != '\0' ||
			memchr(out, '\0', n)))
		abort();
	if (rc && rc != -BCN_ESYNTAX && rc != -BCN_EFULL)
		abort();
	rc = bcn_lustre_jobid_slurm(s, len, &job);
	if ((rc && job != 0) || (rc && rc != -BCN_ESYNTAX))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1);

	if (!s)
		return 0;
	if (!maps_ready) {
		if (bcn_lustre_map_init(&ost_map, bcn_lustre_ost_fields,
					bcn_lustre_ost_nfields,
					BCN_LUSTRE_OST_SLOTS) ||
		    bcn_lustre_map_init(&md_map, bcn_lustre_md_fields,
					bcn_lustre_md_nfields,
					BCN_LUSTRE_MD_SLOTS))
			abort();
		maps_ready = 1;
	}
	if (size)
		memcpy(s, data, size);
	check(s, size, &ost_map);
	check(s, size, &md_map);
	check_ids(s, size < 300 ? size : 300);
	free(s);
	return 0;
}
