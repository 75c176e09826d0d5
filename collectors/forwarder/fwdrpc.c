/* Sampling of the Lustre client's osc devices on a forwarding node into
 * fwd_rpc records (fwdrpc.h). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/forwarder/fwdrpc.h"
#include "common/error.h"

/* Where Lustre versions put the osc device files, in order of preference:
 * procfs (up to 2.10 everything; later rpc_stats and import), debugfs
 * (stats from 2.12 on), sysfs. */
static const char *const bases[] = {
	"proc/fs/lustre/osc",
	"sys/kernel/debug/lustre/osc",
	"sys/fs/lustre/osc",
};
#define NBASES (sizeof(bases) / sizeof(bases[0]))

static const char *const fnames[BCN_OSC_NFILES] = {
	"stats", "rpc_stats", "import"
};

int bcn_fwdrpc_init(struct bcn_fwdrpc *o, size_t max_targets)
{
	int rc;

	memset(o, 0, sizeof(*o));
	if (max_targets == 0 || max_targets > BCN_FWDRPC_TARGETS_MAX)
		return -EINVAL;
	o->max = max_targets;
	bcn_buf_init(&o->fbuf, BCN_LUSTRE_OSC_FILE_MAX);
	rc = bcn_lustre_map_init(&o->map, bcn_lustre_osc_fields,
				 bcn_lustre_osc_nfields, BCN_LUSTRE_OSC_SLOTS);
	if (!rc)
		rc = bcn_counter_table_new("osc", max_targets,
					   BCN_FWDRPC_FORGET_SWEEPS, &o->ctr);
	if (rc)
		bcn_fwdrpc_free(o);
	return rc;
}

void bcn_fwdrpc_free(struct bcn_fwdrpc *o)
{
	bcn_counter_table_free(o->ctr);
	bcn_buf_free(&o->fbuf);
	free(o->t);
	memset(o, 0, sizeof(*o));
}

/* The index where dir is or would be inserted; *found says which. */
static size_t find(const struct bcn_fwdrpc *o, const char *dir, bool *found)
{
	size_t lo = 0, hi = o->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(o->t[mid].dir, dir);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* Marks the osc device dir as present, adding it if new. */
static int see(struct bcn_fwdrpc *o, const char *dir)
{
	struct bcn_fwdrpc_target *t;
	char target[BCN_FWDRPC_NAME_MAX];
	bool found;
	size_t i, n = strlen(dir);

	if (n >= sizeof(t->dir) || bcn_lustre_osc_target_name(dir, target,
							sizeof(target)))
		return 0;       /* not an OST's osc device */
	i = find(o, dir, &found);
	if (found) {
		o->t[i].seen = true;
		return 0;
	}
	if (o->n >= o->max) {
		bcn_complain(&o->full_c, BCN_LOG_WARNING, "more than %zu osc "
			     "devices; ignoring %s (raise osc_max_targets)",
			     o->max, dir);
		return -BCN_EFULL;
	}
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 64;

		t = realloc(o->t, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		o->t = t;
		o->cap = cap;
	}
	memmove(&o->t[i + 1], &o->t[i], (o->n - i) * sizeof(*o->t));
	o->n++;
	t = &o->t[i];
	memset(t, 0, sizeof(*t));
	memcpy(t->dir, dir, n + 1);
	memcpy(t->target, target, strlen(target) + 1);
	memset(t->base, -1, sizeof(t->base));
	t->seen = true;
	o->appeared++;
	BCN_INFO("osc device %s (%s) appeared", t->dir, t->target);
	return 0;
}

/* Lists the osc devices of every base directory. Returns 0, or the error
 * of a base directory that exists but cannot be read. */
static int scan(struct bcn_fwdrpc *o, struct bcn_collector *c)
{
	char path[BCN_COLLECTOR_PATH_MAX];
	struct dirent *de;
	size_t b, i, j;
	DIR *d;
	int rc = 0;

	for (i = 0; i < o->n; i++)
		o->t[i].seen = false;
	for (b = 0; b < NBASES; b++) {
		if (bcn_collector_path(c, bases[b], path, sizeof(path)))
			return -BCN_EFULL;
		d = opendir(path);
		if (!d) {
			if (errno != ENOENT && errno != ENOTDIR) {
				rc = -errno;
				bcn_collector_file_error(c, path, rc);
			}
			continue;
		}
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.' || see(o, de->d_name) != -ENOMEM)
				continue;
			BCN_ERR("out of memory listing osc devices");
			rc = -ENOMEM;
			break;
		}
		closedir(d);
	}
	for (i = j = 0; i < o->n; i++) {
		if (o->t[i].seen) {
			o->t[j++] = o->t[i];
			continue;
		}
		BCN_INFO("osc device %s disappeared", o->t[i].dir);
		bcn_counter_forget(o->ctr, o->t[i].dir);
		o->disappeared++;
	}
	o->n = j;
	return rc;
}

/* Records where file f of t is (base index, or -2 for nowhere). A stats
 * or rpc_stats file that comes or goes changes what the target's counter
 * vector means, so the target starts afresh (its next sample is a first
 * one); import only gives a gauge. */
static void set_base(struct bcn_fwdrpc *o, struct bcn_fwdrpc_target *t, int f,
		     int8_t base)
{
	uint8_t found = base == -2 ? BCN_FWDRPC_ABSENT : BCN_FWDRPC_PRESENT;

	if (f != BCN_OSC_IMPORT && t->found[f] && t->found[f] != found)
		bcn_counter_forget(o->ctr, t->dir);
	t->found[f] = found;
	t->base[f] = base;
}

/* The path of file f of target t relative to the root, looking the file
 * up in the base directories when needed. Returns 0, 1 when no base has
 * the file, or -BCN_EFULL. */
static int file_rel(struct bcn_fwdrpc *o, struct bcn_collector *c,
		    struct bcn_fwdrpc_target *t, int f, char *rel, size_t len)
{
	char path[BCN_COLLECTOR_PATH_MAX];
	size_t b;
	int n;

	if (t->base[f] == -2 && o->samples % BCN_FWDRPC_RETRY_ABSENT == 0)
		t->base[f] = -1;
	if (t->base[f] == -2)
		return 1;
	for (b = t->base[f] >= 0 ? (size_t)t->base[f] : 0; b < NBASES; b++) {
		n = snprintf(rel, len, "%s/%s/%s", bases[b], t->dir, fnames[f]);
		if (n < 0 || (size_t)n >= len)
			return -BCN_EFULL;
		if (t->base[f] >= 0)
			return 0;
		if (bcn_collector_path(c, rel, path, sizeof(path)))
			return -BCN_EFULL;
		if (access(path, F_OK) == 0) {
			set_base(o, t, f, (int8_t)b);
			return 0;
		}
	}
	set_base(o, t, f, -2);
	return 1;
}

/* Reads file f of t into o->fbuf, its path relative to the root into rel.
 * Returns 0, 1 when no base has it, or the (reported) error; a vanished
 * file is looked up again next time. */
static int read_file(struct bcn_fwdrpc *o, struct bcn_collector *c,
		     struct bcn_fwdrpc_target *t, int f, char *rel, size_t len)
{
	int rc;

	rc = file_rel(o, c, t, f, rel, len);
	if (rc)
		return rc;
	rc = bcn_collector_read(c, rel, &o->fbuf);
	if (rc == -ENOENT)
		t->base[f] = -1;
	return rc;
}

/* Reports a file that was read but did not parse. */
static int parse_failed(struct bcn_collector *c, const char *rel, int rc)
{
	char path[BCN_COLLECTOR_PATH_MAX];

	if (bcn_collector_path(c, rel, path, sizeof(path)) == 0)
		bcn_collector_file_error(c, path, rc);
	return rc;
}

/* Reads and parses the files of one target. Returns 0, or a negative code
 * when a file it has could not be read or parsed (target skipped). */
static int read_target(struct bcn_fwdrpc *o, struct bcn_collector *c,
		       struct bcn_fwdrpc_target *t,
		       struct bcn_lustre_stats *stats, bool *have_stats,
		       struct bcn_lustre_rpc *rpc, bool *have_rpc,
		       uint64_t *in_flight)
{
	char rel[BCN_COLLECTOR_PATH_MAX];
	int rc;

	*have_stats = *have_rpc = false;
	*in_flight = UINT64_MAX;
	rc = read_file(o, c, t, BCN_OSC_STATS, rel, sizeof(rel));
	if (rc < 0)
		return rc;
	if (rc == 0) {
		rc = bcn_lustre_stats_parse((const char *)o->fbuf.data,
					    o->fbuf.len, &o->map, stats);
		bcn_collector_skipped(c, stats->malformed);
		if (rc)
			return parse_failed(c, rel, rc);
		*have_stats = true;
	}
	rc = read_file(o, c, t, BCN_OSC_RPC_STATS, rel, sizeof(rel));
	if (rc < 0)
		return rc;
	if (rc == 0) {
		rc = bcn_lustre_rpc_parse((const char *)o->fbuf.data,
					  o->fbuf.len, rpc);
		bcn_collector_skipped(c, rpc->c.malformed);
		if (rc)
			return parse_failed(c, rel, rc);
		*have_rpc = true;
	}
	if (*have_rpc && (rpc->have & (BCN_RPC_HAVE_READ_IN_FLIGHT |
					BCN_RPC_HAVE_WRITE_IN_FLIGHT)))
		return 0;
	if (read_file(o, c, t, BCN_OSC_IMPORT, rel, sizeof(rel)) == 0) {
		rc = bcn_lustre_osc_import_inflight((const char *)o->fbuf.data,
					     o->fbuf.len, in_flight);
		if (rc) {
			*in_flight = UINT64_MAX;
			if (rc != -ENOENT)
				parse_failed(c, rel, rc);
		}
	}
	return 0;
}

/* Samples one target and adds its record. */
static void sample_target(struct bcn_fwdrpc *o, struct bcn_collector *c,
			  struct bcn_fwdrpc_target *t, int64_t now)
{
	uint64_t cur[BCN_LUSTRE_OSC_NCOUNTERS], delta[BCN_LUSTRE_OSC_NCOUNTERS];
	struct bcn_lustre_stats stats;
	struct bcn_lustre_rpc rpc;
	struct bcn_record r;
	bool have_stats, have_rpc;
	uint64_t in_flight;
	int64_t prev;
	int rc;

	rc = read_target(o, c, t, &stats, &have_stats, &rpc, &have_rpc,
			 &in_flight);
	if (rc) {
		o->skipped_targets++;
		return;
	}
	bcn_lustre_osc_counters(have_stats ? &stats : NULL, have_rpc ? &rpc : NULL,
			 cur);
	rc = bcn_counter_update(o->ctr, t->dir, cur, NULL, BCN_LUSTRE_OSC_NCOUNTERS,
				now, delta, NULL, &prev);
	if (rc < 0 || (rc & BCN_COUNTER_F_FIRST))
		return;
	bcn_lustre_osc_record(&r, t->target, prev, now - prev, delta,
		       have_rpc ? &rpc : NULL, in_flight);
	if (!o->idle && !r.u.fwd_rpc.in_flight && !r.u.fwd_rpc.pending_pages &&
	    bcn_counter_all_zero(delta, BCN_LUSTRE_OSC_NCOUNTERS)) {
		o->idle_records++;
		return;
	}
	if (bcn_collector_add(c, &r) == 0)
		o->records++;
}

int bcn_fwdrpc_sample(struct bcn_fwdrpc *o, struct bcn_collector *c,
		      int64_t t, int64_t dur)
{
	size_t i;
	int rc;

	rc = scan(o, c);
	for (i = 0; i < o->n; i++)
		sample_target(o, c, &o->t[i], t + dur);
	bcn_counter_sweep(o->ctr);
	o->samples++;
	return rc;
}
