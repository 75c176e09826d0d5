/* beacon jobs [--config FILE] [--user U] [--since T] [--until T]
 * [--state S] [--mode M] [--min-bytes N] [--limit N] [--json]: the jobs of
 * the job database (docs/jobdb.md), most recent first, as a table or as
 * one JSON object per line. T is epoch seconds or ISO 8601. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/timefmt.h"
#include "jobdb/jobdb.h"

#define JOBS_ERR_MAX 512

struct jobs_conf {
	struct bcn_jobdb_config db;
	char user[BCN_JOB_STR_MAX + 1];
	char since[BCN_TIMEFMT_IN_MAX + 1], until[BCN_TIMEFMT_IN_MAX + 1];
	char state[32], mode[16];
	uint64_t min_bytes, limit;
	bool json;
};

#define M(m) BCN_CFG_MEMBER(struct jobs_conf, m)
static const struct bcn_config_opt tab[] = {
	BCN_JOBDB_CONFIG_OPTIONS(struct jobs_conf, db),
	{ "user", BCN_CFG_STRING, M(user), .help = "Only this user's jobs." },
	{ "since", BCN_CFG_STRING, M(since),
	  .help = "Jobs still running at or after T (epoch seconds or ISO 8601)." },
	{ "until", BCN_CFG_STRING, M(until),
	  .help = "Jobs started before T." },
	{ "state", BCN_CFG_STRING, M(state),
	  .help = "Only jobs in this state (COMPLETED, RUNNING, FAILED, ...)." },
	{ "mode", BCN_CFG_STRING, M(mode),
	  .help = "Only jobs whose report found this I/O mode (N-N, N-1, N-M, "
		  "1-1, mixed, none)." },
	{ "min_bytes", BCN_CFG_SIZE, M(min_bytes), .def = "0",
	  .help = "Only jobs whose report counts at least this many bytes read "
		  "and written." },
	{ "limit", BCN_CFG_UINT, M(limit), .min = 1, .max = 1000000,
	  .def = "100", .help = "At most this many jobs." },
	{ "json", BCN_CFG_BOOL, M(json), .def = "no",
	  .help = "One JSON object per job." },
	{ .name = NULL }
};
#undef M

static void iso(int64_t ns, char *out, size_t n)
{
	if (!ns || bcn_timefmt_format(ns, out, n))
		snprintf(out, n, "-");
}

static int print_json(const struct bcn_job *j, const struct bcn_jobdb_usage *u)
{
	char start[BCN_TIMEFMT_OUT_MAX], end[BCN_TIMEFMT_OUT_MAX];
	struct bcn_buf b;
	int rc;

	iso(j->start, start, sizeof(start));
	iso(j->end, end, sizeof(end));
	bcn_buf_init(&b, 1u << 20);
	rc = bcn_buf_printf(&b, "{\"job\":%" PRIu64 ",\"user\":", j->id);
	if (!rc)
		rc = bcn_buf_add_json_str(&b, j->user);
	if (!rc)
		rc = bcn_buf_adds(&b, ",\"name\":");
	if (!rc)
		rc = bcn_buf_add_json_str(&b, j->name);
	if (!rc)
		rc = bcn_buf_printf(&b, ",\"nnodes\":%" PRIu64 ",\"nodelist\":",
				    j->nnodes);
	if (!rc)
		rc = bcn_buf_add_json_str(&b, j->nodelist);
	if (!rc)
		rc = bcn_buf_printf(&b, ",\"start\":\"%s\",\"end\":%s%s%s,"
				    "\"state\":\"%s\"", start, j->end ? "\"" : "",
				    j->end ? end : "null", j->end ? "\"" : "",
				    bcn_job_state_name(j->state));
	if (!rc && u)
		rc = bcn_buf_printf(&b, ",\"read_bytes\":%" PRIu64 ",\"write_bytes\""
				    ":%" PRIu64 ",\"mode\":\"%s\"", u->read_bytes,
				    u->write_bytes, u->mode);
	if (!rc)
		rc = bcn_buf_adds(&b, "}\n");
	if (!rc && fwrite(b.data, 1, b.len, stdout) != b.len)
		rc = -EIO;
	bcn_buf_free(&b);
	return rc;
}

static int print_row(void *arg, const struct bcn_job *j,
		     const struct bcn_jobdb_usage *u)
{
	const struct jobs_conf *c = arg;
	char start[BCN_TIMEFMT_OUT_MAX], end[BCN_TIMEFMT_OUT_MAX];
	char rd[24] = "-", wr[24] = "-";

	if (c->json)
		return print_json(j, u);
	iso(j->start, start, sizeof(start));
	iso(j->end, end, sizeof(end));
	if (u) {
		snprintf(rd, sizeof(rd), "%" PRIu64, u->read_bytes);
		snprintf(wr, sizeof(wr), "%" PRIu64, u->write_bytes);
	}
	printf("%-10" PRIu64 " %-12.12s %-16.16s %6" PRIu64 " %-20s %-20s "
	       "%-10s %14s %14s %s\n", j->id, j->user, j->name, j->nnodes,
	       start, end, bcn_job_state_name(j->state), rd, wr,
	       u ? u->mode : "-");
	return 0;
}

/* Fills the filter from the options. Returns 0 or -BCN_ESYNTAX. */
static int filter(const struct jobs_conf *c, struct bcn_jobdb_filter *f,
		  char *err, size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->user = c->user;
	f->mode = c->mode;
	f->min_bytes = c->min_bytes;
	f->limit = c->limit;
	f->state = -1;
	if (c->since[0] && bcn_timefmt_parse(c->since, strlen(c->since), &f->since))
		return bcn_fail(err, errlen, -BCN_ESYNTAX, "--since: bad time "
				"'%s' (epoch seconds or ISO 8601)", c->since);
	if (c->until[0] && bcn_timefmt_parse(c->until, strlen(c->until), &f->until))
		return bcn_fail(err, errlen, -BCN_ESYNTAX, "--until: bad time "
				"'%s' (epoch seconds or ISO 8601)", c->until);
	if (c->state[0] &&
	    (f->state = bcn_job_state_parse(c->state, strlen(c->state))) < 0)
		return bcn_fail(err, errlen, -BCN_ESYNTAX, "--state: unknown "
				"state '%s'", c->state);
	return 0;
}

int bcn_cmd_jobs(int argc, char **argv)
{
	static struct jobs_conf c;
	struct bcn_jobdb_filter f;
	struct bcn_jobdb *db;
	char err[JOBS_ERR_MAX];
	int rc, argi;

	memset(&c, 0, sizeof(c));
	rc = bcn_cli_configure(tab, &c, "jobdb_", argc, argv, &argi, err,
			       sizeof(err));
	if (rc == BCN_CONFIG_HELP) {
		printf("usage: beacon jobs [--config FILE] [--user U] [--since T] "
		       "[--until T] [--state S] [--mode M] [--min-bytes N] "
		       "[--limit N] [--json]\nLists the jobs of the job database, "
		       "most recent first.\n\n");
		bcn_config_help(tab, stdout);
		return 0;
	}
	if (!rc && argi < argc)
		rc = bcn_fail(err, sizeof(err), -BCN_ESYNTAX, "unexpected "
			      "argument '%s'", argv[argi]);
	if (!rc)
		rc = filter(&c, &f, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon jobs: %s\n", err);
		return 2;
	}
	rc = bcn_jobdb_open(&c.db, &db, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon jobs: %s\n", err);
		return 1;
	}
	if (!c.json)
		printf("%-10s %-12s %-16s %6s %-20s %-20s %-10s %14s %14s %s\n",
		       "JOB", "USER", "NAME", "NODES", "START", "END", "STATE",
		       "READ", "WRITTEN", "MODE");
	rc = bcn_jobdb_list_jobs(db, &f, print_row, &c);
	if (rc < 0)
		fprintf(stderr, "beacon jobs: %s\n", bcn_jobdb_error(db));
	bcn_jobdb_close(db);
	return rc ? 1 : 0;
}
