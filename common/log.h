/* Logging for every beacon program (after collectd and redis): five levels,
 * one global threshold checked before any argument is evaluated, output to
 * standard error (one ISO-8601 UTC timestamped line per message, written
 * with a single write()) or to syslog, a capture hook for tests, and
 * collectd-style "complaints" that rate-limit a repeating failure. */
#ifndef BCN_LOG_H
#define BCN_LOG_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>

/* Levels, most severe first. The values are the indexes of
 * bcn_log_level_names, so a configuration option of type BCN_CFG_ENUM over
 * that list stores a level directly. */
enum bcn_log_level {
	BCN_LOG_ERR = 0,
	BCN_LOG_WARNING,
	BCN_LOG_NOTICE,
	BCN_LOG_INFO,
	BCN_LOG_DEBUG,
	BCN_LOG_NLEVELS
};

/* Destinations for bcn_log_open. */
enum bcn_log_dest {
	BCN_LOG_DEST_STDERR = 0,
	BCN_LOG_DEST_SYSLOG,
};

#define BCN_LOG_IDENT_MAX 64	/* program name, longer ones are cut */
#define BCN_LOG_MSG_MAX 1024	/* one message; longer ones end in "..." */

/* Complaint intervals: the second report of a failure comes after
 * BCN_COMPLAIN_MIN_MS, each later one after twice the previous wait, up to
 * BCN_COMPLAIN_MAX_MS. */
#define BCN_COMPLAIN_MIN_MS 1000
#define BCN_COMPLAIN_MAX_MS (86400 * 1000)

/* "error", "warning", "notice", "info", "debug", NULL. */
extern const char *const bcn_log_level_names[];

/* The current threshold: messages with a level above it are dropped. Read
 * it through BCN_LOG_ENABLED; change it with bcn_log_set_level. */
extern _Atomic int bcn_log_threshold;

#define BCN_LOG_ENABLED(level) \
	((int)(level) <= atomic_load_explicit(&bcn_log_threshold, \
					      memory_order_relaxed))

/* BCN_LOG(level, fmt, ...): logs a printf-style message. The arguments are
 * neither evaluated nor formatted when the level is filtered out. */
#define BCN_LOG(level, ...) \
	do { \
		int bcn_log_lvl_ = (level); \
		if (BCN_LOG_ENABLED(bcn_log_lvl_)) \
			bcn_log_write(bcn_log_lvl_, __VA_ARGS__); \
	} while (0)

#define BCN_ERR(...) BCN_LOG(BCN_LOG_ERR, __VA_ARGS__)
#define BCN_WARN(...) BCN_LOG(BCN_LOG_WARNING, __VA_ARGS__)
#define BCN_NOTICE(...) BCN_LOG(BCN_LOG_NOTICE, __VA_ARGS__)
#define BCN_INFO(...) BCN_LOG(BCN_LOG_INFO, __VA_ARGS__)
#define BCN_DEBUG(...) BCN_LOG(BCN_LOG_DEBUG, __VA_ARGS__)

/* Sets the program name shown in every message (the part after the last
 * '/', so argv[0] is fine; NULL keeps the current one, "beacon" at start),
 * the destination (enum bcn_log_dest) and the threshold level. With
 * BCN_LOG_DEST_SYSLOG it calls openlog(ident, LOG_PID, LOG_DAEMON).
 * Call it once at start-up, before starting threads.
 * Returns 0, or -EINVAL for an unknown destination or level (nothing is
 * changed then). */
int bcn_log_open(const char *ident, int dest, int level);

/* Closes syslog if it was opened and returns to standard error. */
void bcn_log_close(void);

/* Sets the threshold level; safe from any thread. Returns 0 or -EINVAL. */
int bcn_log_set_level(int level);

/* Returns the current threshold level. */
int bcn_log_get_level(void);

/* Parses a level name (case-insensitive): "error"/"err", "warning"/"warn",
 * "notice", "info", "debug". Stores the level in *level.
 * Returns 0 or -EINVAL. */
int bcn_log_level_parse(const char *name, int *level);

/* Returns the name of a level ("error" ... "debug"), or "unknown". */
const char *bcn_log_level_name(int level);

/* Test hook: while fn is not NULL every message that passes the threshold
 * goes to fn(arg, level, message) instead of the destination; message is
 * the formatted text without timestamp or ident, valid during the call.
 * Set it before starting threads. */
void bcn_log_set_sink(void (*fn)(void *arg, int level, const char *msg),
		      void *arg);

/* Formats and emits one message if level passes the threshold. Messages
 * longer than BCN_LOG_MSG_MAX - 1 bytes are cut and end in "..."; control
 * characters other than tab become '?' so a message is one line. Use the
 * BCN_LOG macros rather than calling these directly. */
void bcn_log_write(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void bcn_log_vwrite(int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* State of one rate-limited complaint; initialise with
 * BCN_COMPLAIN_INIT or zero it. Not locked: one complaint belongs to one
 * thread (or is protected by its owner's lock). */
struct bcn_complain {
	int64_t last_ms;	/* when the last report was logged */
	int64_t interval_ms;	/* 0: no failure is active */
	uint64_t suppressed;	/* reports dropped since the last one */
};

#define BCN_COMPLAIN_INIT { 0, 0, 0 }

/* Reports a failure. The first call after a release (or ever) logs the
 * message; later calls log only once the current interval has passed since
 * the last logged report, appending " (N similar messages suppressed)" when
 * some were dropped, and then double the interval (BCN_COMPLAIN_MIN_MS up
 * to BCN_COMPLAIN_MAX_MS). Time is read from CLOCK_MONOTONIC. */
void bcn_complain(struct bcn_complain *c, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As bcn_complain, with the current time now_ms (milliseconds on any
 * monotonic scale) given by the caller; for tests and callers that already
 * hold a timestamp. */
void bcn_complain_at(struct bcn_complain *c, int64_t now_ms, int level,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Reports recovery: if a failure is active, logs the message once (with
 * the count of suppressed reports, if any) and resets the complaint;
 * otherwise does nothing. */
void bcn_complain_release(struct bcn_complain *c, int level,
			  const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
