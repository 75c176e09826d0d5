/* beacon query: prints records of one layer from the record store as JSON
 * lines, or with --sum one JSON line of sums per time bucket. The store
 * is described by the store_* keys of a configuration file (any beacon
 * daemon's file: other keys are skipped) and --store-* options; see
 * docs/store.md. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/error.h"
#include "common/text.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "store/store.h"
#include "store/store_config.h"

#define QUERY_OUT_FLUSH (64u << 10)
#define QUERY_OUT_MAX (4u << 20)
#define QUERY_STORE_OPTS 32             /* store keys we can offer */
#define QUERY_ERR_MAX 512

enum {
	OPT_CONFIG = 1000, OPT_LAYER, OPT_ENTITY, OPT_JOB, OPT_FROM, OPT_TO,
	OPT_LIMIT, OPT_SUM, OPT_PART, OPT_DUMP, OPT_HELP,
	OPT_STORE = 2000,               /* + index in bcn_store_options */
};

static const struct option fixed_opts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "layer", required_argument, NULL, OPT_LAYER },
	{ "entity", required_argument, NULL, OPT_ENTITY },
	{ "job", required_argument, NULL, OPT_JOB },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "sum", required_argument, NULL, OPT_SUM },
	{ "part", required_argument, NULL, OPT_PART },
	{ "dump-config", no_argument, NULL, OPT_DUMP },
	{ "help", no_argument, NULL, OPT_HELP },
};

#define NFIXED (sizeof(fixed_opts) / sizeof(fixed_opts[0]))

struct query_args {
	const char *config;
	struct bcn_store_query q;
	bool have_layer;
	int64_t bucket_ns;              /* 0: print records */
	bool dump, help;
	const char *set[QUERY_STORE_OPTS];      /* --store-* values */
};

struct query_out {
	struct bcn_buf buf;
	int layer;
	uint64_t lines;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: beacon query --config FILE --layer L [--entity E] "
		"[--job J]\n"
		"                    [--part P] [--from T] [--to T] [--limit N] "
		"[--sum BUCKET]\n\n"
		"Prints the records of layer L (client, forward, ost, mds, "
		"switch, job,\n"
		"collector, or a record type such as io) with t in [--from, --to) "
		"as JSON\nlines, ordered by t.\n"
		"With --sum, prints one JSON line per non-empty bucket of "
		"width BUCKET\n"
		"(e.g. 1h, 15m, 1d; a bare number is seconds) with the record "
		"count and the\n"
		"sums of read/write bytes and read/write/meta/other "
		"operations.\n\n"
		"  --entity E   node, OST or MDT target, SWITCH/PORT or job id, "
		"by layer\n"
		"  --job J      only records of job J\n"
		"  --part P     which records of the ost and mds layers: total "
		"(default: each\n"
		"               target's own totals), job (per-job records), "
		"client (per-export\n"
		"               records) or any (all: sums then count a "
		"target's I/O more than\n"
		"               once); with --job, ost and mds default to job\n"
		"  --from T     T: epoch seconds (1704921530.5) or ISO 8601 "
		"with Z or an\n"
		"  --to T       offset (2024-01-10T21:18:50Z, "
		"2024-01-11T05:18:50+08:00) or\n"
		"               a date alone (2024-01-10, midnight UTC)\n"
		"  --limit N    at most N records\n\n"
		"The store comes from the store_* keys of --config FILE (any "
		"beacon daemon's\n"
		"configuration; its other keys are skipped), overridden by the "
		"options below.\n\n");
	bcn_config_help(bcn_store_options, out);
}

static int parse_time(const char *opt, const char *s, int64_t *ns, char *err)
{
	int rc = bcn_timefmt_parse(s, strlen(s), ns);

	if (rc)
		snprintf(err, QUERY_ERR_MAX, "--%s '%s': %s (expected epoch "
			 "seconds, or ISO 8601 such as 2024-01-10T21:18:50Z "
			 "or 2024-01-10)", opt, s, rc == -BCN_ERANGE ?
			 "out of range" : "not a time");
	return rc;
}

/* Handles one option of the fixed set. */
static int take_opt(struct query_args *a, int opt, const char *val, char *err)
{
	int rc = 0, layer;

	switch (opt) {
	case OPT_CONFIG: a->config = val; break;
	case OPT_ENTITY: a->q.entity = val; break;
	case OPT_DUMP: a->dump = true; break;
	case OPT_HELP: a->help = true; break;
	case OPT_FROM: return parse_time("from", val, &a->q.from, err);
	case OPT_TO: return parse_time("to", val, &a->q.to, err);
	case OPT_LAYER:
		layer = bcn_layer_parse(val);
		if (layer < 0) {
			snprintf(err, QUERY_ERR_MAX, "unknown layer '%s' (one of "
				 "client, forward, ost, mds, switch, job, "
				 "collector)", val);
			return layer;
		}
		a->q.layer = layer;
		a->have_layer = true;
		break;
	case OPT_JOB:
	case OPT_LIMIT:
		rc = bcn_text_u64_all(val, strlen(val), opt == OPT_JOB ?
				      &a->q.job : &a->q.limit);
		if (rc)
			snprintf(err, QUERY_ERR_MAX, "--%s '%s': not a number",
				 opt == OPT_JOB ? "job" : "limit", val);
		break;
	case OPT_PART:
		rc = bcn_store_part_parse(val, &a->q.part);
		if (rc)
			snprintf(err, QUERY_ERR_MAX, "--part '%s': one of total, "
				 "job, client, any", val);
		break;
	case OPT_SUM:
		rc = bcn_timefmt_parse_duration(val, strlen(val), &a->bucket_ns);
		if (rc)
			snprintf(err, QUERY_ERR_MAX, "--sum '%s': not a bucket "
				 "width such as 1h, 15m or 90 (seconds)", val);
		break;
	default:
		snprintf(err, QUERY_ERR_MAX, "unknown option");
		return -EINVAL;
	}
	return rc;
}

/* Fills the long options: the fixed ones, then --store-xxx for every
 * store key store_xxx (names in names[]). */
static int build_opts(struct option *opts,
		      char names[][BCN_CFG_KEY_MAX + 1])
{
	size_t n = 0;

	memcpy(opts, fixed_opts, sizeof(fixed_opts));
	for (; bcn_store_options[n].name; n++) {
		if (n == QUERY_STORE_OPTS)
			return -BCN_EFULL;
		snprintf(names[n], BCN_CFG_KEY_MAX + 1, "%s",
			 bcn_store_options[n].name);
		for (char *p = names[n]; *p; p++)
			if (*p == '_')
				*p = '-';
		opts[NFIXED + n] = (struct option){ names[n], required_argument,
						    NULL, OPT_STORE + (int)n };
	}
	opts[NFIXED + n] = (struct option){ NULL, 0, NULL, 0 };
	return 0;
}

static int parse_args(int argc, char **argv, struct query_args *a, char *err)
{
	static char names[QUERY_STORE_OPTS][BCN_CFG_KEY_MAX + 1];
	struct option opts[NFIXED + QUERY_STORE_OPTS + 1];
	int opt, rc;

	memset(a, 0, sizeof(*a));
	a->q.from = INT64_MIN;
	a->q.to = INT64_MAX;
	rc = build_opts(opts, names);
	if (rc) {
		snprintf(err, QUERY_ERR_MAX, "too many store options");
		return rc;
	}
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'h') {
			a->help = true;
		} else if (opt >= OPT_STORE && opt < OPT_STORE + QUERY_STORE_OPTS) {
			if (a->set[opt - OPT_STORE]) {
				snprintf(err, QUERY_ERR_MAX, "--%s given twice",
					 names[opt - OPT_STORE]);
				return -EINVAL;
			}
			a->set[opt - OPT_STORE] = optarg;
		} else if (opt == '?' || opt == ':') {
			snprintf(err, QUERY_ERR_MAX, "unknown option or missing "
				 "value: '%s'", argv[optind - 1]);
			return -EINVAL;
		} else if ((rc = take_opt(a, opt, optarg, err)) != 0) {
			return rc;
		}
	}
	if (optind < argc) {
		snprintf(err, QUERY_ERR_MAX, "unexpected argument '%s'",
			 argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* Defaults, then the store keys of the file, then --store-* options. */
static int load_settings(const struct query_args *a,
			 struct bcn_store_settings *set, char *err)
{
	int rc;

	rc = bcn_config_defaults(bcn_store_options, set, err, QUERY_ERR_MAX);
	if (!rc && a->config)
		rc = bcn_store_settings_load(set, a->config, err, QUERY_ERR_MAX);
	for (size_t k = 0; !rc && k < QUERY_STORE_OPTS; k++)
		if (a->set[k])
			rc = bcn_config_set(bcn_store_options, set,
					    bcn_store_options[k].name, a->set[k],
					    err, QUERY_ERR_MAX);
	if (!rc && !a->dump)
		rc = bcn_store_settings_apply(set, err, QUERY_ERR_MAX);
	return rc;
}

static int flush_out(struct query_out *o, bool force)
{
	if (!force && o->buf.len < QUERY_OUT_FLUSH)
		return 0;
	if (o->buf.len && fwrite(o->buf.data, 1, o->buf.len, stdout) !=
	    o->buf.len)
		return -EIO;
	bcn_buf_reset(&o->buf);
	return 0;
}

static int print_record(void *arg, const struct bcn_record *r)
{
	struct query_out *o = arg;
	int rc = bcn_record_to_json(r, &o->buf);

	if (!rc)
		rc = bcn_buf_add(&o->buf, "\n", 1);
	o->lines++;
	return rc ? rc : flush_out(o, false);
}

static int print_bucket(void *arg, const struct bcn_store_bucket *b)
{
	struct query_out *o = arg;
	char when[BCN_TIMEFMT_OUT_MAX];
	int rc = bcn_timefmt_format(b->t, when, sizeof(when));

	if (!rc)
		rc = bcn_buf_printf(&o->buf, "{\"layer\":\"%s\",\"t\":%" PRId64
				    ",\"time\":\"%s\",\"records\":%" PRIu64
				    ",\"read_bytes\":%" PRIu64 ",\"write_bytes\":%"
				    PRIu64 ",\"read_ops\":%" PRIu64
				    ",\"write_ops\":%" PRIu64 ",\"meta_ops\":%"
				    PRIu64 ",\"other_ops\":%" PRIu64 "}\n",
				    bcn_layer_name((unsigned)o->layer), b->t,
				    when, b->records, b->sum.read_bytes,
				    b->sum.write_bytes, b->sum.read_ops,
				    b->sum.write_ops, b->sum.meta_ops,
				    b->sum.other_ops);
	o->lines++;
	return rc ? rc : flush_out(o, false);
}

static int dump_settings(const struct bcn_store_settings *set)
{
	struct bcn_buf out;
	int rc;

	bcn_buf_init(&out, QUERY_OUT_MAX);
	rc = bcn_config_dump(bcn_store_options, set, &out);
	if (!rc && fwrite(out.data, 1, out.len, stdout) != out.len)
		rc = -EIO;
	bcn_buf_free(&out);
	if (rc)
		fprintf(stderr, "beacon query: --dump-config: %s\n",
			bcn_strerror(rc));
	return rc ? 1 : 0;
}

/* Opens the store and prints what a asks for. Returns the exit status. */
static int run_query(const struct query_args *a,
		     const struct bcn_store_settings *set)
{
	struct bcn_store_config cfg = set->cfg;
	char err[QUERY_ERR_MAX];
	struct bcn_store *s;
	struct query_out o;
	int rc;

	cfg.existing = true;    /* a query never creates a store */
	rc = bcn_store_open(&cfg, &s, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "beacon query: opening the store: %s\n", err);
		return 1;
	}
	memset(&o, 0, sizeof(o));
	bcn_buf_init(&o.buf, QUERY_OUT_MAX);
	o.layer = a->q.layer;
	if (a->bucket_ns)
		rc = bcn_store_sum(s, &a->q, a->bucket_ns, print_bucket, &o);
	else
		rc = bcn_store_scan(s, &a->q, print_record, &o);
	if (!rc)
		rc = flush_out(&o, true);
	if (!rc && fflush(stdout))
		rc = -EIO;
	if (rc)
		fprintf(stderr, "beacon query: %s\n", bcn_strerror(rc));
	bcn_buf_free(&o.buf);
	bcn_store_close(s);
	return rc ? 1 : 0;
}

int bcn_cmd_query(int argc, char **argv)
{
	char err[QUERY_ERR_MAX] = "";
	struct bcn_store_settings set = { 0 };
	struct query_args a;
	int rc;

	rc = parse_args(argc, argv, &a, err);
	if (rc) {
		fprintf(stderr, "beacon query: %s\nTry 'beacon query --help'.\n",
			err);
		return 2;
	}
	if (a.help) {
		usage(stdout);
		return 0;
	}
	rc = load_settings(&a, &set, err);
	if (rc) {
		fprintf(stderr, "beacon query: %s\n", err);
		return 2;
	}
	if (a.dump)
		return dump_settings(&set);
	if (!a.have_layer || a.q.from > a.q.to) {
		fprintf(stderr, "beacon query: %s\n", !a.have_layer ?
			"--layer is required" : "--from is after --to");
		return 2;
	}
	rc = bcn_log_open("beacon query", BCN_LOG_DEST_STDERR, BCN_LOG_WARNING);
	if (rc)
		return 1;
	return run_query(&a, &set);
}
