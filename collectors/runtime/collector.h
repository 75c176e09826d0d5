/* The skeleton every collector daemon shares (beacon-clientd, beacon-fwdd,
 * beacon-ostd, beacon-mdsd, beacon-swd; docs/collectors.md): the common
 * command line and configuration keys of the collectors' contract
 * (--root, --node, --interval, --count, --output, the sender's keys,
 * logging), and the sampling loop: at fixed CLOCK_MONOTONIC ticks it asks
 * the daemon's sampler for the records of one interval, packs them into
 * DATA frames and submits them through the sender library (or appends
 * them to --output), until --count samples were taken or SIGTERM/SIGINT
 * arrives; then it flushes and returns. SIGUSR1 takes one extra sample at
 * once (tests change fixture files between samples with it).
 *
 * A daemon embeds a struct bcn_collector_conf in its configuration struct,
 * puts BCN_COLLECTOR_CONFIG_OPTIONS(its struct, member) in its table next
 * to its own keys, and describes itself with BCN_COLLECTOR_PROGRAM; its
 * main() is bcn_program_main() over that description. */
#ifndef BCN_COLLECTOR_H
#define BCN_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/config.h"
#include "proto/frame.h"
#include "common/log.h"
#include "common/program.h"
#include "proto/record.h"
#include "delivery/sender.h"

#define BCN_COLLECTOR_PATH_MAX 4096     /* --root, --output, file paths */
#define BCN_COLLECTOR_FILE_MAX (64u << 20) /* largest file read at once */

/* The settings every collector shares. */
struct bcn_collector_conf {
	char root[BCN_COLLECTOR_PATH_MAX];      /* "/" or a fixture tree */
	char node[BCN_NODE_MAX + 1];            /* "": the host name */
	int64_t interval_ms;                    /* sampling interval */
	uint64_t count;                         /* samples; 0: run forever */
	char output[BCN_COLLECTOR_PATH_MAX];    /* "": send; "-": stdout */
	uint64_t frame_bytes;                   /* cut frames above this */
	int64_t frame_age_ms;                   /* hold records for the
						 * next samples' frame up to
						 * this long; 0: a frame each
						 * sample */
	int64_t flush_timeout_ms;               /* on exit, wait for ACKs */
	char stats_file[BCN_COLLECTOR_PATH_MAX];/* "": none; "-": stderr */
	int64_t health_interval_ms;             /* health records; 0: none */
	int frame_codec;                        /* BCN_COLLECTOR_CODEC_* */
	int64_t zstd_level;                     /* frame_codec zstd's level */
	int64_t columnar_cpu_us;                /* frame_codec auto: CPU
						 * time for columns, per
						 * second */
	int log_level;
	int log_dest;
	struct bcn_sender_conf send;            /* node set by the loop */
};

/* log_dest words: "stderr", "syslog". */
extern const char *const bcn_collector_log_dests[];

/* frame_codec words: "auto" (the default: columnar payloads while
 * their cost stays within frame_columnar_cpu, else zstd), "zstd", "zlib"
 * (for log servers older than the zstd frame flag, docs/protocol.md),
 * "columnar" (columnar payloads compressed with zstd, for log servers
 * that read them). */
enum { BCN_COLLECTOR_CODEC_AUTO, BCN_COLLECTOR_CODEC_ZSTD,
       BCN_COLLECTOR_CODEC_ZLIB, BCN_COLLECTOR_CODEC_COLUMNAR };
extern const char *const bcn_collector_codecs[];

/* Configuration table entries for a struct bcn_collector_conf member m of
 * a daemon's configuration struct type:
 *
 *	static const struct bcn_config_opt tab[] = {
 *		{ "perfquery", BCN_CFG_PATH, ... },     // the daemon's keys
 *		BCN_COLLECTOR_CONFIG_OPTIONS(struct swd_conf, cc),
 *		{ .name = NULL }
 *	};
 *
 * Keys: root, node, interval, count, output, frame_bytes, frame_age,
 * flush_timeout,
 * stats_file, health_interval, frame_codec, frame_columnar_cpu,
 * frame_zstd_level, log_level, log_dest and the
 * sender's (BCN_SENDER_CONFIG_OPTS:
 * shardmap, server, key_file, send_*). */
#define BCN_COLLECTOR_CONFIG_OPTIONS(type, m) \
	BCN_COLLECTOR_CONFIG_OPTIONS_FRAME(type, m, "1M", "0")

/* The same with other defaults for frame_bytes and frame_age
 * (beacon-clientd keeps its frames small, its records arriving all the
 * time rather than once a tick, and holds them a few seconds: a frame a
 * second of a few traced operations was mostly the frame's own costs). */
#define BCN_COLLECTOR_CONFIG_OPTIONS_FRAME(type, m, frame_def, age_def) \
	{ "root", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.root), .min = 1, \
	  .def = "/", \
	  .help = "Read /proc, /sys and /sys/kernel/debug below this " \
		  "directory." }, \
	{ "node", BCN_CFG_STRING, BCN_CFG_MEMBER(type, m.node), \
	  .help = "This node's name in the records (default: the host " \
		  "name)." }, \
	{ "interval", BCN_CFG_DURATION, BCN_CFG_MEMBER(type, m.interval_ms), \
	  .min = 10, .max = 86400000, .def = "1s", \
	  .help = "Sampling interval (bare number: seconds)." }, \
	{ "count", BCN_CFG_UINT, BCN_CFG_MEMBER(type, m.count), \
	  .min = 0, .max = INT64_MAX, .def = "0", \
	  .help = "Take this many samples, flush and exit (0: run until " \
		  "SIGTERM)." }, \
	{ "output", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.output), \
	  .help = "Write the frames to this file ('-': standard output) " \
		  "instead of sending them." }, \
	{ "frame_bytes", BCN_CFG_SIZE, BCN_CFG_MEMBER(type, m.frame_bytes), \
	  .min = 4096, .max = 8u << 20, .def = frame_def, \
	  .help = "Cut a sample's records into frames of about this many " \
		  "uncompressed bytes." }, \
	{ "frame_age", BCN_CFG_DURATION, BCN_CFG_MEMBER(type, m.frame_age_ms), \
	  .min = 0, .max = 60000, .def = age_def, \
	  .help = "Hold a sample's records for the frames of the next " \
		  "samples up to this long (a frame goes when it reaches " \
		  "frame_bytes, at the first sample this long after its " \
		  "first record, and at exit; 0: a frame each sample)." }, \
	{ "flush_timeout", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.flush_timeout_ms), .min = 0, \
	  .max = 3600000, .def = "5s", \
	  .help = "On exit, wait this long for the log server to " \
		  "acknowledge the last frames." }, \
	{ "stats_file", BCN_CFG_PATH, BCN_CFG_MEMBER(type, m.stats_file), \
	  .help = "On exit, append one JSON line of loop statistics (CPU " \
		  "time per sample, memory) to this file ('-': stderr)." }, \
	{ "frame_codec", BCN_CFG_ENUM, BCN_CFG_MEMBER(type, m.frame_codec), \
	  .words = bcn_collector_codecs, .def = "auto", \
	  .help = "Send columnar payloads (about half the bytes) while " \
		  "they cost at most frame_columnar_cpu and take 40% off " \
		  "the bytes of the delta rows they replace, else rows with " \
		  "io records in the delta form, compressed with zstd " \
		  "(auto); or always plain zstd rows, or zlib rows for " \
		  "log servers that predate zstd frames, or always " \
		  "columnar payloads. Log servers that predate columnar " \
		  "payloads and delta rows need zstd or zlib." }, \
	{ "frame_columnar_cpu", BCN_CFG_INT, \
	  BCN_CFG_MEMBER(type, m.columnar_cpu_us), .min = 0, \
	  .max = 1000000, .def = "500", \
	  .help = "With frame_codec auto: microseconds of CPU time per " \
		  "second that columnar payloads may take (500: 0.05% of " \
		  "a core); while that credit is spent, frames go as zstd " \
		  "rows (0: always)." }, \
	{ "frame_zstd_level", BCN_CFG_INT, \
	  BCN_CFG_MEMBER(type, m.zstd_level), .min = -7, .max = 19, \
	  .def = "-2", \
	  .help = "zstd's level for frame_codec zstd: negative levels are " \
		  "faster (with a small hash table), higher ones smaller " \
		  "(docs/clientd.md, \"Footprint\")." }, \
	{ "health_interval", BCN_CFG_DURATION, \
	  BCN_CFG_MEMBER(type, m.health_interval_ms), .min = 0, \
	  .max = 86400000, .def = "60s", \
	  .help = "Send a health record (this daemon's own counters) this " \
		  "often to the log server (0: never)." }, \
	{ "log_level", BCN_CFG_ENUM, BCN_CFG_MEMBER(type, m.log_level), \
	  .words = bcn_log_level_names, .def = "notice", \
	  .help = "Least severe level logged." }, \
	{ "log_dest", BCN_CFG_ENUM, BCN_CFG_MEMBER(type, m.log_dest), \
	  .words = bcn_collector_log_dests, .def = "stderr", \
	  .help = "Where the log goes." }, \
	BCN_SENDER_CONFIG_OPTS(type, m.send)

/* The running loop, handed to the sampler to emit records through. */
struct bcn_collector;

/* What a daemon plugs into the loop; state is the daemon's own. */
struct bcn_collector_ops {
	/* Called once after the configuration is read and logging is set
	 * up, before the first sample (c gives bcn_collector_conf() and
	 * bcn_collector_path()). Returns 0, or a negative code to exit 1. */
	int (*init)(void *state, struct bcn_collector *c);
	/* Takes one sample closing the interval [t_ns, t_ns + dur_ns) (wall
	 * time, ns since the epoch) and emits its records with
	 * bcn_collector_add(). dur_ns is the monotonic time since the
	 * previous sample (the interval on the first); t_ns + dur_ns is now,
	 * and each window starts where the previous one ended (unless the
	 * wall clock was stepped by more than a second). Problems
	 * with single files are reported with bcn_collector_file_error()
	 * and must not stop the sample. A negative return is logged
	 * (rate-limited) and the loop goes on; records already added are
	 * sent. */
	int (*sample)(void *state, struct bcn_collector *c, int64_t t_ns,
		      int64_t dur_ns);
	/* Called once before the loop returns (also after a failed init);
	 * may be NULL. */
	void (*fini)(void *state);
	/* Optional (NULL: none): a descriptor the loop watches between
	 * samples, or -1. When it is readable the loop calls ready() in
	 * its own thread; ready() may add records with
	 * bcn_collector_add() (they go out with the next sample's frames,
	 * or earlier when a frame fills up) and must not block. */
	int (*watch_fd)(void *state);
	int (*ready)(void *state, struct bcn_collector *c);
	/* Optional: whether a sample now would have nothing to do (no
	 * records held back, nothing followed, nothing to report). While it
	 * says so and no frame is being built, the loop skips its ticks
	 * until ready() is called or a health record is due: an idle
	 * daemon does not wake (a compute node's jitter). Samples then
	 * close longer windows. Not with count. */
	bool (*idle)(void *state);
	/* Take one last sample, over the part of an interval that has
	 * passed, when SIGTERM/SIGINT stops the loop. */
	bool sample_on_stop;
};

/* What the collector loop needs of a daemon besides its configuration. */
struct bcn_collector_daemon {
	struct bcn_collector_conf *cc;  /* the collector part of the
					 * program's conf */
	const struct bcn_collector_ops *ops;
	void *state;                    /* handed to every op */
};

/* The run() of a collector program (common/program.h), whose options
 * table contains BCN_COLLECTOR_CONFIG_OPTIONS for member cc of its conf
 * and whose kind is a struct bcn_collector_daemon: opens the log, fills
 * in cc->node, opens the sender (or the --output file), runs ops->init,
 * the loop and ops->fini, flushes. Never exits the process. Returns 0
 * (done, or stopped by SIGTERM/SIGINT), 1 (could not start or run) or 2
 * (bad log settings or no node name). */
int bcn_collector_run(const struct bcn_program *p);

/* A collector program's table, for a file-scope definition:
 *
 *	const struct bcn_program bcn_fwdd_program = BCN_COLLECTOR_PROGRAM(
 *		"beacon-fwdd", "Forwarding-node collector: ...",
 *		fwdd_options, &conf, &conf.cc, &fwdd_ops, &state);
 */
#define BCN_COLLECTOR_PROGRAM(prog, desc, tab, conf_ptr, cc_ptr, ops_ptr, \
			      state_ptr) \
	{ .name = (prog), .description = (desc), .options = (tab), \
	  .conf = (conf_ptr), .run = bcn_collector_run, \
	  .kind = &(const struct bcn_collector_daemon){ \
		.cc = (cc_ptr), .ops = (ops_ptr), .state = (state_ptr) } }

/* Adds one record to the current frame; r->node is ignored (frames carry
 * the node). When the frame is full or above frame_bytes (at most half of
 * send_max_frame when sending) it is finished and sent (or written) first.
 * Returns 0; -BCN_ERANGE for a record that fails bcn_record_check; a
 * send/write error; -ENOMEM. Every failure is counted and logged
 * (rate-limited) here and the record dropped: a sampler may go on with
 * its next record. */
int bcn_collector_add(struct bcn_collector *c, const struct bcn_record *r);

/* Whether the sample being taken is the daemon's last (a stop was asked
 * for, or the configured count of samples ends with it): sources that
 * hold records back add them all now. */
bool bcn_collector_last_sample(const struct bcn_collector *c);

/* The effective configuration (node filled in). */
const struct bcn_collector_conf *bcn_collector_conf(
	const struct bcn_collector *c);

/* Writes root + "/" + rel (rel may start with '/') to out[0..len-1],
 * without doubled slashes. Returns 0 or -BCN_EFULL. Pure. */
int bcn_collector_path_join(const char *root, const char *rel, char *out,
			    size_t len);

/* bcn_collector_path_join with the configured root. */
int bcn_collector_path(const struct bcn_collector *c, const char *rel,
		       char *out, size_t len);

/* Reads the file rel below the root into b (emptied first; at most
 * b->max bytes). On failure it reports the file through
 * bcn_collector_file_error and returns the error (-ENOENT, -EACCES,
 * -BCN_EFULL, ...): the caller skips what the file would have given. */
int bcn_collector_read(struct bcn_collector *c, const char *rel,
		       struct bcn_buf *b);

/* Reports that a file (a path for the message) could not be read or
 * parsed (rc): counted, and logged as a warning rate-limited per path
 * (the first failure at once, repeats with growing intervals). */
void bcn_collector_file_error(struct bcn_collector *c, const char *path,
			      int rc);

/* Counts lines a parser skipped as malformed in the current sample; the
 * loop logs the total per sample (rate-limited) and in its statistics. */
void bcn_collector_skipped(struct bcn_collector *c, uint64_t lines);

/* Loop counters, also written to stats_file at exit. */
struct bcn_collector_stats {
	uint64_t samples;               /* samples taken */
	uint64_t records;               /* records added */
	uint64_t frames;                /* frames sent or written */
	uint64_t bad_records;           /* refused by bcn_record_check */
	uint64_t send_errors;           /* frames that could not be sent */
	uint64_t sample_errors;         /* sample() returned an error */
	uint64_t file_errors;           /* bcn_collector_file_error calls */
	uint64_t skipped_lines;         /* bcn_collector_skipped totals */
	uint64_t overruns;              /* ticks missed: sampling too slow */
	uint64_t sample_cpu_ns;         /* thread CPU time in sample() +
					 * framing, all samples */
	uint64_t sample_cpu_max_ns;     /* the largest of one sample */
	uint64_t sample_wall_ns;        /* elapsed time, all samples */
	uint64_t sample_wall_max_ns;
	uint64_t last_cpu_ns;           /* CPU time of the last sample */
	uint64_t health;                /* health records sent (not in
					 * records) */
	uint64_t columnar_frames;       /* frames with columnar payloads */
	uint64_t columnar_cpu_ns;       /* thread CPU time of the frames that
					 * tried columns (frame_codec auto) */
	uint64_t columnar_declined;     /* tries where columns did not take
					 * 40% off the delta rows' bytes */
};

/* Copies the loop counters into *st. */
void bcn_collector_stats(const struct bcn_collector *c,
			 struct bcn_collector_stats *st);

#endif
