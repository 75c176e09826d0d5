/* The daemon body of beacon-ostd and beacon-mdsd: per target and
 * interval, BCN_REC_OST or BCN_REC_MDS records of the whole target, of
 * each export (client NID) and of each job in job_stats
 * (docs/collectors-lustre.md), from the shared Lustre server sampler
 * (lustre_server.h). The configuration struct and the keys both roles
 * share are here; each program (collectors/ost/ostd.c,
 * collectors/mds/mdsd.c) builds its option table from them, with its own
 * keys, and describes itself with BCN_COLLECTOR_PROGRAM over
 * bcn_lustre_daemon_ops. */
#ifndef BCN_LUSTRE_DAEMON_H
#define BCN_LUSTRE_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "collectors/lustresrv/lustre_tree.h"
#include "collectors/runtime/collector.h"
#include "common/config.h"

struct bcn_lustre_server;

/* The configuration of either daemon (the keys below fill it). */
struct bcn_lustre_daemon_conf {
	bool exports;
	bool jobs;
	bool brw;                       /* beacon-ostd's brw_stats key */
	bool idle;
	int64_t jobs_every_ms;
	int64_t exports_every_ms;
	uint64_t budget_us;
	uint64_t max_entities;
	uint64_t forget_after;
	struct bcn_collector_conf cc;
	enum bcn_lustre_role role;
};

/* .offset and .size of a member of struct bcn_lustre_daemon_conf. */
#define BCN_LUSTRE_DAEMON_MEMBER(f) \
	BCN_CFG_MEMBER(struct bcn_lustre_daemon_conf, f)

/* The option table entries both daemons have, the collector's included;
 * put it in a table after the daemon's own keys. */
#define BCN_LUSTRE_DAEMON_OPTIONS \
	{ "exports", BCN_CFG_BOOL, BCN_LUSTRE_DAEMON_MEMBER(exports), \
	  .def = "yes", \
	  .help = "Send per-export (client NID) records from " \
		  "exports/<nid>/stats." }, \
	{ "job_stats", BCN_CFG_BOOL, BCN_LUSTRE_DAEMON_MEMBER(jobs), \
	  .def = "yes", \
	  .help = "Send per-job records from job_stats." }, \
	{ "job_stats_interval", BCN_CFG_DURATION, \
	  BCN_LUSTRE_DAEMON_MEMBER(jobs_every_ms), .min = 0, \
	  .max = 86400000, .def = "0", \
	  .help = "Read job_stats at most this often (0: every sample, " \
		  "unless read_budget_us stretches the period); job records " \
		  "cover the time since the previous read." }, \
	{ "exports_interval", BCN_CFG_DURATION, \
	  BCN_LUSTRE_DAEMON_MEMBER(exports_every_ms), .min = 0, \
	  .max = 86400000, .def = "0", \
	  .help = "Read the per-export stats at most this often (0: every " \
		  "sample, unless read_budget_us stretches the period)." }, \
	{ "read_budget_us", BCN_CFG_UINT, BCN_LUSTRE_DAEMON_MEMBER(budget_us), \
	  .min = 0, .max = 1000000, .def = "300", \
	  .help = "CPU time, in microseconds per second, that the job_stats " \
		  "and per-export reads may take on average (300: 0.03% of a " \
		  "core); on a large server their period stretches to keep " \
		  "within it (0: no limit)." }, \
	{ "idle_records", BCN_CFG_BOOL, BCN_LUSTRE_DAEMON_MEMBER(idle), \
	  .def = "no", \
	  .help = "Also send export and job records of intervals without " \
		  "activity." }, \
	{ "max_entities", BCN_CFG_UINT, \
	  BCN_LUSTRE_DAEMON_MEMBER(max_entities), .min = 16, \
	  .max = 1u << 24, .def = "1048576", \
	  .help = "Targets, exports and jobs whose previous counters are " \
		  "remembered, at most." }, \
	{ "forget_after", BCN_CFG_UINT, \
	  BCN_LUSTRE_DAEMON_MEMBER(forget_after), .min = 1, \
	  .max = 1000000, .def = "3", \
	  .help = "Forget an export or job missing from this many samples " \
		  "in a row." }, \
	BCN_COLLECTOR_CONFIG_OPTIONS(struct bcn_lustre_daemon_conf, cc)

/* The state of either daemon: conf points to its configuration (role
 * set), srv is the sampler's while the loop runs. */
struct bcn_lustre_daemon {
	struct bcn_lustre_daemon_conf *conf;
	struct bcn_lustre_server *srv;
};

/* init, sample and fini for the collector loop, over a struct
 * bcn_lustre_daemon. */
extern const struct bcn_collector_ops bcn_lustre_daemon_ops;

#endif
