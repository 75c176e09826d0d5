/* beacon-fwdd: configuration keys and the init/sample/fini callbacks that
 * plug the request log and the osc sampling into the collector loop. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "collectors/forwarder/fwdd.h"
#include "common/error.h"

const struct bcn_config_opt bcn_fwdd_options[] = {
	{ "request_log", BCN_CFG_PATH,
	  BCN_CFG_MEMBER(struct bcn_fwdd_conf, request_log),
	  .help = "The forwarding server's request log (docs/fwdlog.md), "
		  "followed like tail -F; not below --root. Empty: no request "
		  "statistics." },
	{ "request_samples", BCN_CFG_UINT,
	  BCN_CFG_MEMBER(struct bcn_fwdd_conf, request_samples),
	  .min = BCN_WDIST_SAMPLES_MIN, .max = BCN_WDIST_SAMPLES_MAX,
	  .def = "65536",
	  .help = "Latency samples kept per window for exact percentiles "
		  "(8 bytes each, twice); beyond, percentiles are within "
		  "0.8%." },
	{ "lustre_client", BCN_CFG_BOOL,
	  BCN_CFG_MEMBER(struct bcn_fwdd_conf, lustre_client), .def = "yes",
	  .help = "Sample the Lustre client's osc devices (RPCs per OST)." },
	{ "osc_max_targets", BCN_CFG_UINT,
	  BCN_CFG_MEMBER(struct bcn_fwdd_conf, osc_max_targets),
	  .min = 1, .max = BCN_FWDRPC_TARGETS_MAX, .def = "4096",
	  .help = "Most osc devices (OST targets) followed." },
	{ "osc_idle_records", BCN_CFG_BOOL,
	  BCN_CFG_MEMBER(struct bcn_fwdd_conf, osc_idle), .def = "no",
	  .help = "Also send the records of osc devices that did nothing "
		  "in the interval (no RPC, none in flight, no page "
		  "pending)." },
	BCN_COLLECTOR_CONFIG_OPTIONS(struct bcn_fwdd_conf, cc),
	{ .name = NULL }
};

static int fwdd_init(void *state, struct bcn_collector *c)
{
	struct bcn_fwdd *s = state;
	const struct bcn_fwdd_conf *conf = s->conf;
	int rc;

	(void)c;
	s->req_on = conf->request_log[0] != '\0';
	s->rpc_on = conf->lustre_client;
	if (!s->req_on && !s->rpc_on) {
		BCN_ERR("nothing to collect: set request_log or lustre_client");
		return -EINVAL;
	}
	if (s->req_on) {
		rc = bcn_fwdreq_init(&s->req, conf->request_log,
				     (size_t)conf->request_samples);
		if (rc) {
			s->req_on = false;
			return rc;
		}
		/* position at the end of an existing log: the first window
		 * starts now */
		bcn_fwdreq_poll(&s->req);
	}
	if (s->rpc_on) {
		rc = bcn_fwdrpc_init(&s->rpc, (size_t)conf->osc_max_targets);
		s->rpc.idle = conf->osc_idle;
		if (rc) {
			s->rpc_on = false;
			return rc;
		}
	}
	return 0;
}

/* Polls the request log and adds the window's fwd_req records. */
static int sample_requests(struct bcn_fwdd *s, struct bcn_collector *c,
			   int64_t t, int64_t dur)
{
	struct bcn_record recs[BCN_FWD_CLASS_MAX];
	size_t n, i;
	int rc, first_err = 0;

	bcn_fwdreq_poll(&s->req);
	bcn_collector_skipped(c, s->req.malformed - s->malformed_seen);
	s->malformed_seen = s->req.malformed;
	bcn_fwdreq_finish(&s->req, t, dur, recs, &n);
	for (i = 0; i < n; i++) {
		rc = bcn_collector_add(c, &recs[i]);
		if (rc && !first_err)
			first_err = rc;
	}
	return first_err;
}

static int fwdd_sample(void *state, struct bcn_collector *c, int64_t t,
		       int64_t dur)
{
	struct bcn_fwdd *s = state;
	int rc = 0, r;

	if (s->req_on)
		rc = sample_requests(s, c, t, dur);
	if (s->rpc_on) {
		r = bcn_fwdrpc_sample(&s->rpc, c, t, dur);
		if (r && !rc)
			rc = r;
	}
	return rc;
}

static void fwdd_fini(void *state)
{
	struct bcn_fwdd *s = state;
	const struct bcn_follow *f = &s->req.follow;

	if (s->req_on) {
		BCN_NOTICE("request log %s: %" PRIu64 " requests, %" PRIu64
			   " queue samples, %" PRIu64 " malformed lines, %"
			   PRIu64 " rejected files, %" PRIu64 " bytes read, %"
			   PRIu64 " rotations, %" PRIu64 " truncations, %"
			   PRIu64 " windows with more than %zu samples",
			   f->path, s->req.requests, s->req.queue_samples,
			   s->req.malformed, s->req.rejected_files, f->bytes,
			   f->rotations, f->truncations, s->req.lat.spills,
			   s->req.lat.max_samples);
		bcn_fwdreq_free(&s->req);
	}
	if (s->rpc_on) {
		BCN_NOTICE("osc: %zu devices now, %" PRIu64 " appeared, %"
			   PRIu64 " disappeared, %" PRIu64 " records, %" PRIu64
			   " idle ones not sent, %" PRIu64
			   " device samples skipped", s->rpc.n,
			   s->rpc.appeared, s->rpc.disappeared, s->rpc.records,
			   s->rpc.idle_records, s->rpc.skipped_targets);
		bcn_fwdrpc_free(&s->rpc);
	}
	s->req_on = s->rpc_on = false;
}

const struct bcn_collector_ops bcn_fwdd_ops = {
	.init = fwdd_init,
	.sample = fwdd_sample,
	.fini = fwdd_fini,
};

static struct bcn_fwdd_conf fwdd_cfg;
static struct bcn_fwdd fwdd_state = { .conf = &fwdd_cfg };

const struct bcn_program bcn_fwdd_program = BCN_COLLECTOR_PROGRAM(
	"beacon-fwdd",
	"Forwarding-node collector: windowed request statistics from the "
	"forwarding server's request log (docs/fwdlog.md) and the Lustre "
	"client's RPCs per OST.",
	bcn_fwdd_options, &fwdd_cfg, &fwdd_cfg.cc, &bcn_fwdd_ops,
	&fwdd_state);
