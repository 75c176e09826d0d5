/* beacon archive JOB --config FILE --out FILE [--from T] [--to T] [--json]:
 * reads every record of job JOB from the record store (each layer,
 * t in [--from, --to), the whole store by default), writes their
 * second-pass archive (compress/archive.h, docs/archive.md) to FILE and
 * prints the record count, the first pass's bytes (the records as DATA
 * frames, zlib level 1, each node's in as few frames as the frame limits
 * allow), the archive's bytes and the ratio.
 * beacon archive --expand FILE: prints the archive's records as JSON
 * lines, as `beacon query` prints them; with --into-config FILE2 stores
 * them instead in the record store FILE2's store_* keys describe. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "common/buf.h"
#include "common/error.h"
#include "common/log.h"
#include "common/text.h"
#include "common/timefmt.h"
#include "compress/archive.h"
#include "compress/recset.h"
#include "store/store.h"
#include "store/store_config.h"

#define ARC_ERR_MAX 512
#define ARC_OUT_FLUSH (64u << 10)
#define ARC_TEXT_MAX (16u << 20)         /* output buffer: flush + a record */
#define ARC_FILE_MAX ((size_t)1 << 31)  /* largest archive read */
#define ARC_FIRST_PASS_LEVEL 1          /* as the collectors frame */
#define ARC_RESTORE_BATCH 4096          /* records per store append */
/* Identity of restored records: node, then sequence numbers far above
 * any collector's, one per ARC_RESTORE_BATCH records of the node. */
#define ARC_RESTORE_SEQ (UINT64_C(1) << 62)

struct archive_conf {
	struct bcn_store_settings store;
	char out[PATH_MAX];
	char expand[PATH_MAX];
	char into[PATH_MAX];
	char from[BCN_TIMEFMT_IN_MAX + 1], to[BCN_TIMEFMT_IN_MAX + 1];
	uint64_t max_records;
	bool json;
};

#define M(m) BCN_CFG_MEMBER(struct archive_conf, m)
static const struct bcn_config_opt tab[] = {
	BCN_STORE_CONFIG_OPTIONS(struct archive_conf, store),
	{ "out", BCN_CFG_PATH, M(out),
	  .help = "Write the job's archive to this file." },
	{ "expand", BCN_CFG_PATH, M(expand),
	  .help = "Print the records of this archive as JSON lines instead." },
	{ "into_config", BCN_CFG_PATH, M(into),
	  .help = "With --expand: store the records, in the record store "
		  "this file's store_* keys describe, instead of printing "
		  "them." },
	{ "from", BCN_CFG_STRING, M(from),
	  .help = "Only records with t at or after T (epoch seconds or ISO "
		  "8601); default: the whole store." },
	{ "to", BCN_CFG_STRING, M(to),
	  .help = "Only records with t before T." },
	{ "max_records", BCN_CFG_UINT, M(max_records), .min = 1,
	  .max = INT64_C(1) << 28, .def = "4000000",
	  .help = "Most records one job may have (about 1.3 KB of memory "
		  "each while archiving)." },
	{ "json", BCN_CFG_BOOL, M(json), .def = "no",
	  .help = "Print the summary as one JSON object." },
	{ .name = NULL }
};
#undef M

static void usage(void)
{
	printf("usage: beacon archive JOB --config FILE --out FILE [--from T] "
	       "[--to T] [--json]\n"
	       "       beacon archive --expand FILE [--into-config FILE]\n\n"
	       "Archives every record of job JOB in the record store (all "
	       "layers) into FILE,\n"
	       "merging the nodes' identical record sequences "
	       "(docs/archive.md), and prints\n"
	       "the records, the first pass's bytes (as DATA frames), the "
	       "archive's bytes and\n"
	       "the ratio. --expand prints an archive's records as JSON "
	       "lines. The store\n"
	       "comes from the store_* keys of --config FILE.\n\n");
	bcn_config_help(tab, stdout);
}

/* Options, then JOB before or after them. Returns 0, BCN_CONFIG_HELP or
 * a negative code with err set. */
static int parse_args(struct archive_conf *c, int argc, char **argv,
		      uint64_t *job, char *err)
{
	const char *jobarg = NULL;
	int argi, rc;

	if (argc > 1 && argv[1][0] != '-') {
		jobarg = argv[1];
		argc--;
		argv++;
	}
	rc = bcn_cli_configure(tab, c, BCN_STORE_KEY_PREFIX, argc, argv, &argi,
			       err, ARC_ERR_MAX);
	if (rc)
		return rc;
	if (!jobarg && argi < argc)
		jobarg = argv[argi++];
	if (argi < argc)
		return bcn_fail(err, ARC_ERR_MAX, -BCN_ESYNTAX, "unexpected "
				"argument '%s'", argv[argi]);
	if (c->expand[0])
		return jobarg || c->out[0] ? bcn_fail(err, ARC_ERR_MAX,
			-BCN_ESYNTAX, "--expand takes no JOB and no --out") : 0;
	if (c->into[0])
		return bcn_fail(err, ARC_ERR_MAX, -BCN_ESYNTAX,
				"--into-config goes with --expand");
	if (!jobarg || bcn_text_u64_all(jobarg, strlen(jobarg), job) ||
	    *job == 0)
		return bcn_fail(err, ARC_ERR_MAX, -BCN_ESYNTAX, "JOB: a job id "
				"(a number above 0) is required");
	if (!c->out[0])
		return bcn_fail(err, ARC_ERR_MAX, -BCN_ESYNTAX,
				"--out FILE is required");
	return bcn_store_settings_apply(&c->store, err, ARC_ERR_MAX);
}

static int parse_range(const struct archive_conf *c, int64_t *from,
		       int64_t *to, char *err)
{
	*from = INT64_MIN;
	*to = INT64_MAX;
	if (c->from[0] && bcn_timefmt_parse(c->from, strlen(c->from), from))
		return bcn_fail(err, ARC_ERR_MAX, -BCN_ESYNTAX, "--from: bad "
				"time '%s' (epoch seconds or ISO 8601)", c->from);
	if (c->to[0] && bcn_timefmt_parse(c->to, strlen(c->to), to))
		return bcn_fail(err, ARC_ERR_MAX, -BCN_ESYNTAX, "--to: bad time "
				"'%s' (epoch seconds or ISO 8601)", c->to);
	if (*from > *to)
		return bcn_fail(err, ARC_ERR_MAX, -BCN_ESYNTAX,
				"--from is after --to");
	return 0;
}

/* Every record of job in [from, to), all layers, into set. */
static int read_job(const struct archive_conf *c, uint64_t job, int64_t from,
		    int64_t to, struct bcn_recset *set, char *err)
{
	struct bcn_store_config cfg = c->store.cfg;
	struct bcn_store *s;
	int rc;

	cfg.existing = true;    /* reading never creates a store */
	rc = bcn_store_open(&cfg, &s, err, ARC_ERR_MAX);
	if (rc)
		return rc;
	for (int layer = 1; rc == 0 && layer < BCN_LAYER_MAX; layer++) {
		struct bcn_store_query q = { .layer = layer, .job = job,
					     .from = from, .to = to };

		rc = bcn_store_scan(s, &q, bcn_recset_add_fn, set);
		if (rc)
			bcn_seterr(err, ARC_ERR_MAX, "reading layer %s: %s%s",
				   bcn_layer_name((unsigned)layer),
				   bcn_strerror(rc), rc == -BCN_EFULL ?
				   " (more records than --max-records)" : "");
	}
	bcn_store_close(s);
	return rc;
}

/* Writes data to path through a temporary file renamed over it. */
static int write_file(const char *path, const struct bcn_buf *data, char *err)
{
	char tmp[PATH_MAX + 16];
	FILE *f;
	int rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return bcn_fail(err, ARC_ERR_MAX, -ENAMETOOLONG, "%s: name too "
				"long", path);
	f = fopen(tmp, "wb");
	if (!f)
		return bcn_fail(err, ARC_ERR_MAX, -errno, "%s: %s", tmp,
				strerror(errno));
	if (data->len && fwrite(data->data, 1, data->len, f) != data->len)
		rc = -EIO;
	if (fflush(f) || fsync(fileno(f)))
		rc = -errno;
	if (fclose(f) && !rc)
		rc = -EIO;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		unlink(tmp);
		return bcn_fail(err, ARC_ERR_MAX, rc, "%s: %s", path,
				bcn_strerror(rc));
	}
	return 0;
}

static void print_summary(const struct archive_conf *c,
			  const struct bcn_archive_stats *st, uint64_t first)
{
	double ratio = st->bytes ? (double)first / (double)st->bytes : 0;
	struct bcn_buf b;
	int rc;

	if (!c->json) {
		printf("job %" PRIu64 ": %" PRIu64 " records from %" PRIu64
		       " nodes, %" PRIu64 " groups (%" PRIu64 " nodes merged), "
		       "%" PRIu64 " template records\n", st->job, st->records,
		       st->nodes, st->groups, st->merged_nodes, st->templates);
		printf("first pass (DATA frames, zlib level %d): %" PRIu64
		       " bytes\n", ARC_FIRST_PASS_LEVEL, first);
		printf("archive %s: %" PRIu64 " bytes, ratio %.2f\n", c->out,
		       st->bytes, ratio);
		return;
	}
	bcn_buf_init(&b, 16 * PATH_MAX);
	rc = bcn_buf_printf(&b, "{\"job\":%" PRIu64 ",\"records\":%" PRIu64
			    ",\"nodes\":%" PRIu64 ",\"groups\":%" PRIu64
			    ",\"templates\":%" PRIu64 ",\"merged_nodes\":%"
			    PRIu64 ",\"first_pass_bytes\":%" PRIu64
			    ",\"archive_bytes\":%" PRIu64 ",\"ratio\":%.3f,"
			    "\"out\":", st->job, st->records, st->nodes,
			    st->groups, st->templates, st->merged_nodes, first,
			    st->bytes, ratio);
	if (!rc)
		rc = bcn_buf_add_json_str(&b, c->out);
	if (!rc)
		rc = bcn_buf_adds(&b, "}\n");
	if (!rc)
		fwrite(b.data, 1, b.len, stdout);
	bcn_buf_free(&b);
}

/* beacon archive JOB: store to file. Returns the exit status. */
static int run_archive(const struct archive_conf *c, uint64_t job)
{
	struct bcn_archive_stats st;
	char err[ARC_ERR_MAX] = "";
	struct bcn_recset set;
	struct bcn_buf out;
	int64_t from, to;
	uint64_t first = 0;
	int rc = parse_range(c, &from, &to, err);

	if (rc) {
		fprintf(stderr, "beacon archive: %s\n", err);
		return 2;
	}
	bcn_recset_init(&set, (size_t)c->max_records);
	bcn_buf_init(&out, ARC_FILE_MAX);
	rc = read_job(c, job, from, to, &set, err);
	if (!rc && set.n == 0)
		rc = bcn_fail(err, ARC_ERR_MAX, -ENOENT, "job %" PRIu64 " has "
			      "no record in the store%s", job, c->from[0] ||
			      c->to[0] ? " in that time range" : "");
	if (!rc && (rc = bcn_archive_frame_bytes(set.recs, set.n,
						 ARC_FIRST_PASS_LEVEL, &first)))
		bcn_seterr(err, ARC_ERR_MAX, "framing: %s", bcn_strerror(rc));
	if (!rc && (rc = bcn_archive_encode(job, set.recs, set.n, &out, &st)))
		bcn_seterr(err, ARC_ERR_MAX, "encoding: %s", bcn_strerror(rc));
	if (!rc)
		rc = write_file(c->out, &out, err);
	if (!rc)
		print_summary(c, &st, first);
	else
		fprintf(stderr, "beacon archive: %s\n", err);
	bcn_buf_free(&out);
	bcn_recset_free(&set);
	return rc ? 1 : 0;
}

static int flush_out(struct bcn_buf *b, bool force)
{
	if (!force && b->len < ARC_OUT_FLUSH)
		return 0;
	if (b->len && fwrite(b->data, 1, b->len, stdout) != b->len)
		return -EIO;
	bcn_buf_reset(b);
	return 0;
}

static int print_record(void *arg, const struct bcn_record *r)
{
	struct bcn_buf *b = arg;
	int rc = bcn_record_to_json(r, b);

	if (!rc)
		rc = bcn_buf_add(b, "\n", 1);
	return rc ? rc : flush_out(b, false);
}

/* Records on their way into a store, with their restored identity. */
struct restore {
	struct bcn_store *s;
	struct bcn_recset held;         /* copies, until appended */
	struct bcn_store_item items[ARC_RESTORE_BATCH];
	size_t n;
	char node[BCN_STR_MAX + 1];     /* node of the last record */
	uint64_t pos;                   /* its place in the node's records */
	uint64_t total;
};

static int restore_flush(struct restore *x)
{
	int rc = 0;

	for (size_t i = 0; i < x->n; i++)
		x->items[i].rec = &x->held.recs[i];
	if (x->n)
		rc = bcn_store_append(x->s, x->items, x->n);
	x->total += rc ? 0 : x->n;
	x->n = 0;
	bcn_recset_free(&x->held);
	bcn_recset_init(&x->held, ARC_RESTORE_BATCH);
	return rc;
}

/* Keeps r with the identity (node, ARC_RESTORE_SEQ + pos / batch,
 * pos % batch): the same archive restored twice stores its records once. */
static int restore_record(void *arg, const struct bcn_record *r)
{
	struct restore *x = arg;
	int rc;

	if (strcmp(r->node, x->node) != 0) {
		snprintf(x->node, sizeof(x->node), "%s", r->node);
		x->pos = 0;
	}
	rc = bcn_recset_add(&x->held, r);
	if (rc)
		return rc;
	x->items[x->n++] = (struct bcn_store_item){
		NULL, ARC_RESTORE_SEQ + x->pos / ARC_RESTORE_BATCH,
		(uint32_t)(x->pos % ARC_RESTORE_BATCH), ARC_RESTORE_BATCH };
	x->pos++;
	return x->n == ARC_RESTORE_BATCH ? restore_flush(x) : 0;
}

/* The records of the archive in file into the store of c->into. */
static int restore(const struct archive_conf *c, const struct bcn_buf *file,
		   char *err)
{
	static struct restore x;
	struct bcn_store_settings set = { 0 };
	int rc;

	memset(&set, 0, sizeof(set));
	rc = bcn_config_defaults(bcn_store_options, &set, err, ARC_ERR_MAX);
	if (!rc)
		rc = bcn_store_settings_load(&set, c->into, err, ARC_ERR_MAX);
	if (!rc)
		rc = bcn_store_settings_apply(&set, err, ARC_ERR_MAX);
	set.cfg.existing = false;       /* a restore may create the store */
	if (!rc)
		rc = bcn_store_open(&set.cfg, &x.s, err, ARC_ERR_MAX);
	if (rc)
		return rc;
	x.n = 0;
	x.node[0] = '\0';
	x.total = 0;
	bcn_recset_init(&x.held, ARC_RESTORE_BATCH);
	rc = bcn_archive_decode(file->data, file->len, NULL, restore_record,
				&x, NULL);
	if (!rc)
		rc = restore_flush(&x);
	if (!rc)        /* the store's final layout (sqlite: compaction) */
		rc = bcn_store_flush(x.s);
	if (rc)
		bcn_seterr(err, ARC_ERR_MAX, "%s: restoring: %s", c->expand,
			   bcn_strerror(rc));
	else
		printf("restored %" PRIu64 " records into the store of %s\n",
		       x.total, c->into);
	bcn_recset_free(&x.held);
	bcn_store_close(x.s);
	return rc;
}

/* beacon archive --expand FILE [--into-config FILE]. Returns the exit
 * status. */
static int run_expand(const struct archive_conf *c)
{
	char err[ARC_ERR_MAX] = "";
	struct bcn_buf file, text;
	int rc;

	bcn_buf_init(&file, ARC_FILE_MAX);
	bcn_buf_init(&text, ARC_TEXT_MAX);
	rc = bcn_buf_read_file(&file, c->expand);
	if (rc) {
		bcn_seterr(err, ARC_ERR_MAX, "%s: %s", c->expand,
			   bcn_strerror(rc));
	} else if (c->into[0]) {
		rc = restore(c, &file, err);
	} else {
		rc = bcn_archive_decode(file.data, file.len, NULL, print_record,
					&text, NULL);
		if (!rc)
			rc = flush_out(&text, true);
		if (!rc && fflush(stdout))
			rc = -EIO;
		if (rc)
			bcn_seterr(err, ARC_ERR_MAX, "%s: %s", c->expand,
				   bcn_strerror(rc));
	}
	if (rc)
		fprintf(stderr, "beacon archive: %s\n", err);
	bcn_buf_free(&text);
	bcn_buf_free(&file);
	return rc ? 1 : 0;
}

int bcn_cmd_archive(int argc, char **argv)
{
	static struct archive_conf c;
	char err[ARC_ERR_MAX] = "";
	uint64_t job = 0;
	int rc;

	memset(&c, 0, sizeof(c));
	rc = parse_args(&c, argc, argv, &job, err);
	if (rc == BCN_CONFIG_HELP) {
		usage();
		return 0;
	}
	if (rc) {
		fprintf(stderr, "beacon archive: %s\nTry 'beacon archive "
			"--help'.\n", err);
		return 2;
	}
	rc = bcn_log_open("beacon archive", BCN_LOG_DEST_STDERR,
			  BCN_LOG_WARNING);
	if (rc)
		return 1;
	return c.expand[0] ? run_expand(&c) : run_archive(&c, job);
}
