/* beacon import-jobs --config FILE --format sacct|swf|csv [options] FILE...
 * and beacon import-map --config FILE FILE...: job records and the
 * compute-to-forwarding map into the job database (docs/jobdb.md). The
 * database comes from the jobdb_* keys of --config (any beacon
 * configuration; its other keys are skipped). Re-importing updates and
 * never duplicates; a bad row is reported with file, line and reason and
 * the rest is still imported. On a terminal a progress line runs on
 * standard error; at the end the counts are printed (--json: one object).
 * Exit status: 0 when every row was imported, 1 when a row was rejected
 * or a file or the database failed, 2 for bad usage. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/buf.h"
#include "common/clock.h"
#include "common/error.h"
#include "jobdb/jobdb.h"
#include "jobs/fwdmap.h"
#include "jobs/jobcsv.h"
#include "jobs/sacct.h"
#include "jobs/swf.h"

#define IMPORT_ERR_MAX 512
#define IMPORT_FILE_MAX (1ull << 31)    /* largest file read at once */
#define PROGRESS_MS 200

static const char *const formats[] = { "sacct", "swf", "csv", NULL };
enum { FMT_SACCT, FMT_SWF, FMT_CSV };

struct import_conf {
	struct bcn_jobdb_config db;
	int format;
	char columns[4096];
	char delimiter[16];
	int64_t utc_offset;
	bool json;
};

#define M(m) BCN_CFG_MEMBER(struct import_conf, m)
static const struct bcn_config_opt jobs_tab[] = {
	BCN_JOBDB_CONFIG_OPTIONS(struct import_conf, db),
	{ "format", BCN_CFG_ENUM, M(format), .words = formats, .def = "sacct",
	  .help = "sacct (sacct --parsable2), swf (Standard Workload Format) "
		  "or csv (docs/jobdb.md)." },
	{ "columns", BCN_CFG_STRING, M(columns),
	  .help = "sacct without a header line: its columns, as given to "
		  "sacct --format." },
	{ "delimiter", BCN_CFG_STRING, M(delimiter),
	  .help = "sacct: the field delimiter (sacct --delimiter); default |." },
	{ "utc_offset", BCN_CFG_INT, M(utc_offset), .min = -86400,
	  .max = 86400, .def = "0",
	  .help = "sacct: seconds the cluster's clock is ahead of UTC "
		  "(sacct prints local time unless run with TZ=UTC)." },
	{ "json", BCN_CFG_BOOL, M(json), .def = "no",
	  .help = "Print the counts as one JSON object." },
	{ .name = NULL }
};
static const struct bcn_config_opt map_tab[] = {
	BCN_JOBDB_CONFIG_OPTIONS(struct import_conf, db),
	{ "json", BCN_CFG_BOOL, M(json), .def = "no",
	  .help = "Print the counts as one JSON object." },
	{ .name = NULL }
};
#undef M

struct import {
	const char *cmd, *file;
	struct bcn_jobdb *db;
	uint64_t inserted, updated, unchanged, rejected, failed;
	uint64_t line, lines;           /* progress within the file */
	int64_t next_progress;
	bool tty;
	int dberr;
};

static void progress(struct import *im, bool last)
{
	int64_t now = bcn_mono_ms();
	int pct, bar = 30;

	if (!im->tty || (!last && now < im->next_progress))
		return;
	im->next_progress = now + PROGRESS_MS;
	pct = im->lines ? (int)(100 * im->line / im->lines) : 100;
	if (pct > 100)
		pct = 100;
	fprintf(stderr, "\r%s [%-*.*s] %3d%% %llu rows%s", im->file, bar,
		pct * bar / 100, "##############################", pct,
		(unsigned long long)(im->inserted + im->updated + im->unchanged +
				     im->rejected), last ? "\n" : "");
}

static void count(struct import *im, int rc, const char *what)
{
	if (rc == BCN_JOBDB_INSERTED)
		im->inserted++;
	else if (rc == BCN_JOBDB_UPDATED)
		im->updated++;
	else if (rc == BCN_JOBDB_UNCHANGED)
		im->unchanged++;
	else if (rc == -BCN_ESYNTAX || rc == -BCN_ETOOBIG) {
		im->rejected++;
		fprintf(stderr, "%s%s: %s\n", im->tty ? "\r" : "", what,
			bcn_jobdb_error(im->db));
	} else {
		im->failed++;
		im->dberr = rc;
	}
}

static int on_job(void *arg, const struct bcn_job *j)
{
	struct import *im = arg;
	char what[64];

	snprintf(what, sizeof(what), "job %llu", (unsigned long long)j->id);
	count(im, bcn_jobdb_upsert_job(im->db, j), what);
	im->line++;
	progress(im, false);
	return im->dberr;               /* a database error stops the import */
}

static int on_map(void *arg, const struct bcn_fwdmap_entry *e)
{
	struct import *im = arg;

	count(im, bcn_jobdb_add_fwdmap(im->db, e), e->compute);
	im->line++;
	progress(im, false);
	return im->dberr;
}

static void on_bad(void *arg, uint64_t line, const char *reason)
{
	struct import *im = arg;

	im->rejected++;
	fprintf(stderr, "%s%s:%llu: %s\n", im->tty ? "\r" : "", im->file,
		(unsigned long long)line, reason);
}

static int parse_file(struct import *im, const struct import_conf *c,
		      bool map, const char *buf, size_t len)
{
	struct bcn_jobparse_opts o = {
		.columns = c->columns[0] ? c->columns : NULL,
		.delim = c->delimiter, .utc_offset_s = c->utc_offset,
	};

	if (map)
		return bcn_fwdmap_parse(buf, len, on_map, on_bad, im, NULL);
	switch (c->format) {
	case FMT_SWF:
		return bcn_swf_parse(buf, len, &o, on_job, on_bad, im, NULL);
	case FMT_CSV:
		return bcn_jobcsv_parse(buf, len, &o, on_job, on_bad, im, NULL);
	default:
		return bcn_sacct_parse(buf, len, &o, on_job, on_bad, im, NULL);
	}
}

static int import_file(struct import *im, const struct import_conf *c,
		       bool map, const char *path)
{
	struct bcn_buf b;
	int rc;

	im->file = path;
	bcn_buf_init(&b, IMPORT_FILE_MAX);
	rc = bcn_buf_read_file(&b, path);
	if (rc) {
		fprintf(stderr, "beacon %s: %s: %s\n", im->cmd, path,
			bcn_strerror(rc));
		bcn_buf_free(&b);
		return rc;
	}
	im->line = im->lines = 0;
	for (size_t i = 0; i < b.len; i++)
		im->lines += b.data[i] == '\n';
	rc = parse_file(im, c, map, b.data ? (const char *)b.data : "", b.len);
	progress(im, true);
	if (rc == -BCN_ESYNTAX && !map)
		fprintf(stderr, "beacon %s: %s: no usable header (the columns "
			"must include JobID or JobIDRaw; give --columns for "
			"output made with --noheader)\n", im->cmd, path);
	else if (rc && im->dberr)
		fprintf(stderr, "beacon %s: %s: %s\n", im->cmd, path,
			bcn_jobdb_error(im->db));
	bcn_buf_free(&b);
	return rc;
}

static void usage(FILE *out, bool map, const struct bcn_config_opt *tab)
{
	fprintf(out, map ?
		"usage: beacon import-map --config FILE [--json] MAPFILE...\n"
		"Stores compute-to-forwarding map files (docs/jobdb.md) in the "
		"job database.\n" :
		"usage: beacon import-jobs --config FILE --format sacct|swf|csv "
		"[--columns LIST] [--delimiter D] [--utc-offset S] [--json] "
		"FILE...\nStores job records in the job database: re-importing "
		"updates, never duplicates; bad rows are reported and skipped.\n");
	fprintf(out, "The database comes from the jobdb_* keys of --config "
		"FILE (other keys are skipped). Exit status 0 when every row was "
		"stored, 1 when a row was rejected or a file or the database "
		"failed, 2 for bad usage.\n\n");
	bcn_config_help(tab, out);
}

static int finish(struct import *im, const struct import_conf *c, int rc)
{
	if (c->json)
		printf("{\"inserted\":%llu,\"updated\":%llu,\"unchanged\":%llu,"
		       "\"rejected\":%llu,\"failed\":%llu}\n",
		       (unsigned long long)im->inserted,
		       (unsigned long long)im->updated,
		       (unsigned long long)im->unchanged,
		       (unsigned long long)im->rejected,
		       (unsigned long long)im->failed);
	else
		printf("imported %llu, updated %llu, unchanged %llu, "
		       "rejected %llu\n", (unsigned long long)im->inserted,
		       (unsigned long long)im->updated,
		       (unsigned long long)im->unchanged,
		       (unsigned long long)im->rejected);
	return rc || im->rejected || im->failed ? 1 : 0;
}

static int run_import(int argc, char **argv, bool map)
{
	const struct bcn_config_opt *tab = map ? map_tab : jobs_tab;
	static struct import_conf c;
	struct import im = { .cmd = map ? "import-map" : "import-jobs" };
	char err[IMPORT_ERR_MAX];
	int rc, argi = argc, frc = 0;

	memset(&c, 0, sizeof(c));
	rc = bcn_cli_configure(tab, &c, "jobdb_", argc, argv, &argi, err,
			       sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		usage(stdout, map, tab);
		return 0;
	}
	if (rc) {
		fprintf(stderr, "beacon %s: %s\n", im.cmd, err);
		return 2;
	}
	if (argi >= argc) {
		usage(stderr, map, tab);
		return 2;
	}
	rc = bcn_jobdb_open(&c.db, &im.db, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon %s: %s\n", im.cmd, err);
		return 1;
	}
	im.tty = isatty(STDERR_FILENO);
	for (; argi < argc && !im.dberr; argi++)
		if (import_file(&im, &c, map, argv[argi]))
			frc = 1;
	bcn_jobdb_close(im.db);
	return finish(&im, &c, frc);
}

int bcn_cmd_import_jobs(int argc, char **argv)
{
	return run_import(argc, argv, false);
}

int bcn_cmd_import_map(int argc, char **argv)
{
	return run_import(argc, argv, true);
}
