/* Component anomaly detectors (docs/anomaly.md, "Components"): over one
 * window of the record store, per forwarding node, OST, MDT and switch,
 * in time buckets, the rules that find slow forwarding nodes and OSTs,
 * cache thrashing, metadata storms, congested forwarding nodes and their
 * likely aggressors, and hot switch uplinks. What they find goes into the
 * job database (jobdb/anomalies.h), merged with what earlier rounds
 * found, so a round over the same data twice changes nothing. */
#ifndef BCN_ANOMALY_DETECT_H
#define BCN_ANOMALY_DETECT_H

#include <stdint.h>

#include "analysis/stores.h"
#include "common/config.h"
#include "jobdb/anomalies.h"

struct bcn_detect_config {
	int64_t bucket_ms;              /* anomaly_bucket */
	int64_t lookback_ms;            /* anomaly_lookback */
	int64_t gap_ms;                 /* anomaly_merge_gap */
	uint64_t max_components;
	/* slow: the paper's long-running rule */
	uint64_t slow_pct;              /* of the known peak */
	int64_t slow_min_ms;
	uint64_t slow_min_buckets;      /* flagged buckets in a run */
	uint64_t slow_job_pct;          /* job-relative rate of a slow OST */
	uint64_t ost_peak, fwd_peak;    /* bytes/s; 0: learned */
	/* slow_fwd: service time against the peers' */
	uint64_t service_pct;           /* of the peers' median */
	int64_t service_min_ms;
	uint64_t service_min_reqs;      /* per bucket */
	/* slow_ost: disk I/O time (brw_stats) against the peers' */
	uint64_t ost_service_pct;
	int64_t ost_service_min_ms;
	uint64_t ost_service_min_ios;   /* per bucket */
	/* cache_thrash */
	uint64_t thrash_pct;            /* backend / compute-side reads */
	uint64_t thrash_min_bytes;      /* backend reads per second */
	int64_t thrash_min_ms;
	/* md_storm */
	uint64_t storm_fwd_rate;        /* metadata requests/s, a fwd node */
	uint64_t storm_mdt_rate;        /* operations/s, an MDT */
	int64_t storm_min_ms;
	/* interference: a congested forwarding node */
	uint64_t queue_high;
	int64_t queue_min_ms;
	uint64_t prone_meta_rate;       /* client meta ops/s in I/O phases */
	uint64_t prone_iops;
	uint64_t prone_share_pct;       /* of the node's bytes */
	uint64_t interference_pct;      /* a victim's bandwidth without the
					 * job / with it */
	/* hot_switch */
	uint64_t hot_pct;               /* busiest port / the rest, or an
					 * uplink / its peers' median */
	uint64_t hot_util_pct;          /* an uplink's utilisation */
	uint64_t hot_min_bytes;         /* busiest port, bytes/s */
	int64_t hot_min_ms;
};

#define BCN_DETECT_CONFIG_OPTIONS(type, m) \
	{ "anomaly_bucket", BCN_CFG_DURATION, BCN_CFG_MEMBER(type, m.bucket_ms), \
	  .min = 1000, .max = 3600000, .def = "1m", \
	  .help = "Time bucket of the component detectors." }, \
	{ "anomaly_lookback", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.lookback_ms), .min = 60000, \
	  .max = 7 * 86400000ll, .def = "3h", \
	  .help = "Each round reads this much before its end (longer than " \
		  "the longest minimum duration)." }, \
	{ "anomaly_merge_gap", BCN_CFG_DURATION, BCN_CFG_MEMBER(type, m.gap_ms), \
	  .max = 86400000, .def = "10m", \
	  .help = "An anomaly seen again within this time of its end is the " \
		  "same one, going on." }, \
	{ "anomaly_max_components", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.max_components), .min = 1, .max = 1 << 22, \
	  .def = "200000", .help = "Components (forwarding nodes, OSTs, MDTs, " \
	  "switch ports) one round follows; more are counted and skipped." }, \
	{ "anomaly_slow_pct", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.slow_pct), \
	  .min = 1, .max = 99, .def = "30", \
	  .help = "slow_ost, slow_fwd: bandwidth under this percent of the " \
		  "known peak..." }, \
	{ "anomaly_slow_min_duration", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.slow_min_ms), .min = 60000, .max = 7 * 86400000ll, .def = "60m", \
	  .help = "...for at least this long, while its peers are busy." }, \
	{ "anomaly_slow_min_buckets", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.slow_min_buckets), .min = 1, .max = 10080, \
	  .def = "5", .help = "slow_ost, slow_fwd: buckets in use while the " \
	  "peers were busy, at least." }, \
	{ "anomaly_slow_job_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.slow_job_pct), .min = 1, .max = 99, \
	  .def = "50", .help = "slow_ost: and the jobs that also use other " \
	  "OSTs get less than this percent of what their average OST gives " \
	  "them." }, \
	{ "anomaly_ost_peak_bw", BCN_CFG_SIZE, BCN_CFG_MEMBER(type, m.ost_peak), \
	  .help = "Known peak bandwidth of an OST, bytes/s; 0: the largest " \
		  "seen of it or of the median OST." }, \
	{ "anomaly_fwd_peak_bw", BCN_CFG_SIZE, BCN_CFG_MEMBER(type, m.fwd_peak), \
	  .help = "Known peak bandwidth of a forwarding node, bytes/s; 0: " \
		  "learned as for OSTs." }, \
	{ "anomaly_service_pct", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.service_pct), \
	  .min = 101, .max = 100000, .def = "150", \
	  .help = "slow_fwd: mean service time of reads and writes at this " \
		  "percent or more of the median of the nodes that carried at " \
		  "least its load in the bucket..." }, \
	{ "anomaly_service_min_duration", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.service_min_ms), .min = 60000, .max = 7 * 86400000ll, .def = "3m", \
	  .help = "...in buckets making at least this long in all, with no " \
		  "bucket in between in which it was as fast as its peers." }, \
	{ "anomaly_service_min_requests", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.service_min_reqs), .min = 1, .max = 1ll << 40, .def = "50", \
	  .help = "slow_fwd: requests a bucket needs to count." }, \
	{ "anomaly_ost_service_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.ost_service_pct), .min = 101, .max = 100000, \
	  .def = "150", .help = "slow_ost: mean disk I/O time (brw_stats) " \
	  "at this percent or more of the median of the OSTs that carried at " \
	  "least its load in the bucket..." }, \
	{ "anomaly_ost_service_min_duration", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.ost_service_min_ms), .min = 60000, \
	  .max = 7 * 86400000ll, .def = "3m", \
	  .help = "...in buckets making at least this long in all, as for " \
		  "slow_fwd." }, \
	{ "anomaly_ost_service_min_ios", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.ost_service_min_ios), .min = 1, \
	  .max = 1ll << 40, .def = "20", \
	  .help = "slow_ost: disk I/Os a bucket needs to count." }, \
	{ "anomaly_thrash_pct", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.thrash_pct), \
	  .min = 101, .max = 100000, .def = "200", \
	  .help = "cache_thrash: a forwarding node's backend reads above " \
		  "this percent of what its compute nodes read..." }, \
	{ "anomaly_thrash_min_bytes", BCN_CFG_SIZE, \
	  BCN_CFG_MEMBER(type, m.thrash_min_bytes), .def = "16M", \
	  .help = "...at this many bytes/s at least..." }, \
	{ "anomaly_thrash_min_duration", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.thrash_min_ms), .min = 60000, .max = 7 * 86400000ll, .def = "3m", \
	  .help = "...for at least this long in all (reads come and go: gaps " \
		  "up to anomaly_merge_gap do not end it)." }, \
	{ "anomaly_storm_fwd_rate", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.storm_fwd_rate), .min = 1, .max = 1ll << 40, .def = "5000", \
	  .help = "md_storm: metadata requests/s through a forwarding node." }, \
	{ "anomaly_storm_mdt_rate", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.storm_mdt_rate), .min = 1, .max = 1ll << 40, .def = "20000", \
	  .help = "md_storm: operations/s at an MDT." }, \
	{ "anomaly_storm_min_duration", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.storm_min_ms), .min = 60000, .max = 7 * 86400000ll, .def = "3m", \
	  .help = "md_storm: for at least this long." }, \
	{ "anomaly_queue_high", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.queue_high), \
	  .min = 1, .max = 1ll << 40, .def = "64", \
	  .help = "interference: a forwarding node's queue (95th percentile " \
		  "of a window) this long or longer is congested..." }, \
	{ "anomaly_queue_min_duration", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.queue_min_ms), .min = 60000, .max = 7 * 86400000ll, .def = "5m", \
	  .help = "...for at least this long." }, \
	{ "anomaly_prone_meta_rate", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.prone_meta_rate), .min = 1, .max = 1ll << 40, \
	  .def = "300", .help = "interference: a job asking this many " \
	  "metadata operations per second in its I/O phases is prone..." }, \
	{ "anomaly_prone_iops", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.prone_iops), \
	  .min = 1, .max = 1ll << 40, .def = "10000", \
	  .help = "...and so is one with this many data operations per second " \
		  "or in N-1 mode..." }, \
	{ "anomaly_prone_share_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.prone_share_pct), .min = 1, .max = 100, \
	  .def = "30", .help = "...when it moves this percent of the " \
	  "congested node's bytes." }, \
	{ "anomaly_interference_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.interference_pct), .min = 101, \
	  .max = 100000, .def = "150", .help = "interference: a prone job " \
	  "active for anomaly_queue_min_duration of the congestion is accused " \
	  "only when another job behind the node moved this percent as much " \
	  "per minute without it as it did with it (its victim)." }, \
	{ "anomaly_hot_util_pct", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.hot_util_pct), .min = 1, .max = 100, \
	  .def = "80", .help = "hot_switch: an uplink (by the topology) " \
	  "busier in one direction than this percent of its link rate..." }, \
	{ "anomaly_hot_pct", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.hot_pct), \
	  .min = 101, .max = 100000, .def = "150", \
	  .help = "hot_switch: ...or above this percent of the median of its " \
		  "peer uplinks or of its share of the host ports' bytes (a " \
		  "switch without topology: its busiest port above this " \
		  "percent of all its other ports)..." }, \
	{ "anomaly_hot_min_bytes", BCN_CFG_SIZE, BCN_CFG_MEMBER(type, m.hot_min_bytes), \
	  .def = "1M", .help = "...at this many counter units/s at least..." }, \
	{ "anomaly_hot_min_duration", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.hot_min_ms), .min = 60000, .max = 7 * 86400000ll, .def = "5m", \
	  .help = "...for at least this long." }

void bcn_detect_config_defaults(struct bcn_detect_config *c);

struct bcn_detect_stats {
	uint64_t records;               /* read */
	uint64_t skipped;               /* components over the maximum */
	uint64_t found;                 /* anomalies found this round */
	uint64_t inserted, updated;     /* of them, new and grown */
	uint64_t closed;                /* closed: ended before the window */
};

/* One round over [to - lookback, to): reads the forward, ost, mds and
 * switch layers, applies every rule, stores what it finds (db may be
 * NULL: nothing stored and no jobs named), calls found(arg, a) (when not
 * NULL) for each, and closes the anomalies that ended more than a merge
 * gap before the earliest bucket in which a rule could still see them.
 * now is the time stored with them. Returns 0 or a negative code with
 * err set. */
int bcn_detect_round(const struct bcn_detect_config *c,
		     const struct bcn_stores *ss, struct bcn_jobdb *db,
		     int64_t to, int64_t now, bcn_anomaly_fn *found, void *arg,
		     struct bcn_detect_stats *st, char *err, size_t errlen);

/* The jobs running at t on the compute nodes that forwarding node fwd
 * serves (the job database's map), each once with how many of its nodes
 * are behind fwd, at most max. Returns how many (0 on a database error). */
size_t bcn_detect_jobs_behind(struct bcn_jobdb *db, const char *fwd, int64_t t,
			      uint64_t *jobs, uint32_t *nodes_of, size_t max);

#endif
