/* beacon-clientd's LWFS log source (docs/clientd-sources.md): follows the
 * trace log of an LWFS-style forwarding client (docs/lwfs-log.md) like
 * tail -F, parses every new line (lwfs.h), maps handles to files through
 * a bounded table filled by OPEN and CREATE lines, compresses each
 * process's operations into runs (compress/iorun.h) and, at the end of
 * every sample, emits one io record per run, attributed to the process's
 * Slurm job. */
#ifndef BCN_LWFSRC_H
#define BCN_LWFSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collectors/client/lwfs.h"
#include "common/buf.h"
#include "common/config.h"
#include "collectors/runtime/follow.h"
#include "common/log.h"

#define BCN_LWFS_HANDLES_LIMIT (1u << 22)       /* largest handles_max */
#define BCN_LWFS_PIDS_LIMIT 65536               /* largest pids_max */
#define BCN_LWFS_IORUN_SLOTS 8          /* open runs per process */
#define BCN_LWFS_PID_IDLE 60            /* samples without a line after
					 * which a process is forgotten */
#define BCN_LWFS_POLL_MAX (16u << 20)   /* log bytes read per sample */
#define BCN_LWFS_OFFSET_LEN 16          /* lwfs_utc_offset buffer */

struct bcn_lwfs_conf {
	char log[BCN_FOLLOW_PATH_MAX];          /* "": the source is off */
	char utc_offset[BCN_LWFS_OFFSET_LEN];   /* "+08:00" */
	uint64_t handles_max;
	uint64_t pids_max;
};

/* Configuration table entries for a struct bcn_lwfs_conf member m of a
 * daemon's configuration struct type (like BCN_COLLECTOR_CONFIG_OPTIONS):
 * keys lwfs_log, lwfs_utc_offset, lwfs_handles_max, lwfs_pids_max. */
#define BCN_LWFS_CONFIG_OPTIONS(type, m) \
	{ "lwfs_log", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.log), \
	  .help = "Trace log of the LWFS forwarding client " \
		  "(docs/lwfs-log.md), followed like tail -F; not below " \
		  "--root. Empty: no LWFS source." }, \
	{ "lwfs_utc_offset", BCN_CFG_STRING, \
	  BCN_CFG_MEMBER(type, m.utc_offset), .min = 1, .def = "+00:00", \
	  .help = "UTC offset of the times in the LWFS log, +HH:MM or " \
		  "-HH:MM (+08:00 for China Standard Time)." }, \
	{ "lwfs_handles_max", BCN_CFG_UINT, \
	  BCN_CFG_MEMBER(type, m.handles_max), .min = 16, \
	  .max = BCN_LWFS_HANDLES_LIMIT, .def = "16384", \
	  .help = "Open LWFS handles remembered (handle to file); the " \
		  "least recently used is forgotten beyond." }, \
	{ "lwfs_pids_max", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.pids_max), \
	  .min = 1, .max = BCN_LWFS_PIDS_LIMIT, .def = "1024", \
	  .help = "Processes with their own compressor (about 1.5 KiB " \
		  "each); the least recently active is flushed and " \
		  "forgotten beyond." }

struct bcn_lwfsrc_tabs;
struct bcn_collector;

struct bcn_lwfsrc {
	bool on;                        /* a log is configured */
	int32_t utc_offset;             /* seconds east of UTC */
	struct bcn_follow follow;
	struct bcn_lwfsrc_tabs *tabs;   /* handles and processes */
	struct bcn_collector *c;        /* during a sample */
	struct bcn_buf buf;             /* /proc reads for jobs */
	bool skip_first;                /* the follower's header line */
	uint64_t sample_no;
	uint64_t pend_file;             /* a failed OPEN's path, while its */
	const char *pend_path;          /* run is emitted */
	char pbuf[BCN_LWFS_PATH_MAX + 1];       /* one path, unescaped */
	/* statistics since bcn_lwfsrc_init */
	uint64_t lines;                 /* operations parsed */
	uint64_t malformed, malformed_seen;
	uint64_t records, emit_errors;
	uint64_t unknown_handles;       /* handles with no OPEN seen */
	uint64_t handle_evictions, pid_evictions, pids_expired;
	struct bcn_complain bad_line;
};

/* Prepares s from conf: off (and 0) when conf->log is empty; else checks
 * the settings, and positions at the end of an existing log.
 * Returns 0, -EINVAL (a bad UTC offset or bound; logged) or -ENOMEM. */
int bcn_lwfsrc_init(struct bcn_lwfsrc *s, const struct bcn_lwfs_conf *conf);
void bcn_lwfsrc_free(struct bcn_lwfsrc *s);

/* Takes one sample for the window [t, t + dur) into c: reads what the
 * log gained (following rotation and truncation), feeds each operation to
 * its process's compressor, then flushes every compressor and emits one
 * io record per run: t = the run's first start, dur = to its last end,
 * count, stride, busy, offset, size, fd = the handle (-1 for none), file
 * (from the handle table or the path; 0 when unknown), path on open
 * records, pid, and job, step and rank of the process (job 0 when
 * unknown). Malformed lines are counted (bcn_collector_skipped) and
 * logged, rate-limited, with their position. Returns 0 (log errors are
 * logged by the follower). */
int bcn_lwfsrc_sample(struct bcn_lwfsrc *s, struct bcn_collector *c,
		      int64_t t, int64_t dur);

/* Accounts one log line (the bcn_follow_line_fn of the follower, usable
 * on its own during a sample): an operation is parsed and fed to its
 * process's compressor, a malformed line counted and reported. Returns 0. */
int bcn_lwfsrc_line(void *s, const char *line, size_t len,
		    const struct bcn_follow_pos *pos);

#endif
