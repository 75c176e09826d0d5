/* Logging: level filtering, standard error or syslog output, a capture
 * hook for tests and rate-limited complaints. Every message is formatted
 * in a buffer on the caller's stack and written with a single write() (or
 * one syslog() call), so threads never share formatting state. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"

#define LOG_TS_MAX 80	/* "2024-05-01T12:34:56.789Z", room for any int */
#define LOG_LINE_MAX (BCN_LOG_MSG_MAX + BCN_LOG_IDENT_MAX + 96)
#define LOG_DEFAULT_IDENT "beacon"

const char *const bcn_log_level_names[] = {
	[BCN_LOG_ERR] = "error",
	[BCN_LOG_WARNING] = "warning",
	[BCN_LOG_NOTICE] = "notice",
	[BCN_LOG_INFO] = "info",
	[BCN_LOG_DEBUG] = "debug",
	[BCN_LOG_NLEVELS] = NULL,
};

static const int log_syslog_prio[BCN_LOG_NLEVELS] = {
	[BCN_LOG_ERR] = LOG_ERR,
	[BCN_LOG_WARNING] = LOG_WARNING,
	[BCN_LOG_NOTICE] = LOG_NOTICE,
	[BCN_LOG_INFO] = LOG_INFO,
	[BCN_LOG_DEBUG] = LOG_DEBUG,
};

_Atomic int bcn_log_threshold = BCN_LOG_INFO;

static int log_dest = BCN_LOG_DEST_STDERR;
static char log_ident[BCN_LOG_IDENT_MAX] = LOG_DEFAULT_IDENT;
static void (*log_sink)(void *arg, int level, const char *msg);
static void *log_sink_arg;

static int level_valid(int level)
{
	return level >= BCN_LOG_ERR && level < BCN_LOG_NLEVELS;
}

int bcn_log_open(const char *ident, int dest, int level)
{
	const char *base;
	size_t n;

	if (!level_valid(level) ||
	    (dest != BCN_LOG_DEST_STDERR && dest != BCN_LOG_DEST_SYSLOG))
		return -EINVAL;
	if (ident) {
		base = strrchr(ident, '/');
		base = base ? base + 1 : ident;
		n = strnlen(base, sizeof(log_ident) - 1);
		memcpy(log_ident, base, n);
		log_ident[n] = '\0';
	}
	if (log_dest == BCN_LOG_DEST_SYSLOG)
		closelog();
	log_dest = dest;
	if (dest == BCN_LOG_DEST_SYSLOG)
		openlog(log_ident, LOG_PID, LOG_DAEMON);
	atomic_store(&bcn_log_threshold, level);
	return 0;
}

void bcn_log_close(void)
{
	if (log_dest == BCN_LOG_DEST_SYSLOG)
		closelog();
	log_dest = BCN_LOG_DEST_STDERR;
}

int bcn_log_set_level(int level)
{
	if (!level_valid(level))
		return -EINVAL;
	atomic_store(&bcn_log_threshold, level);
	return 0;
}

int bcn_log_get_level(void)
{
	return atomic_load(&bcn_log_threshold);
}

int bcn_log_level_parse(const char *name, int *level)
{
	int i;

	if (!name)
		return -EINVAL;
	for (i = 0; i < BCN_LOG_NLEVELS; i++) {
		if (strcasecmp(name, bcn_log_level_names[i]) == 0) {
			*level = i;
			return 0;
		}
	}
	if (strcasecmp(name, "err") == 0) {
		*level = BCN_LOG_ERR;
		return 0;
	}
	if (strcasecmp(name, "warn") == 0) {
		*level = BCN_LOG_WARNING;
		return 0;
	}
	return -EINVAL;
}

const char *bcn_log_level_name(int level)
{
	return level_valid(level) ? bcn_log_level_names[level] : "unknown";
}

void bcn_log_set_sink(void (*fn)(void *arg, int level, const char *msg),
		      void *arg)
{
	log_sink = fn;
	log_sink_arg = arg;
}

/* Formats "YYYY-MM-DDTHH:MM:SS.mmmZ" for the current UTC time. */
static void log_timestamp(char *ts, size_t len)
{
	struct timespec now;
	struct tm tm;

	if (clock_gettime(CLOCK_REALTIME, &now) != 0 ||
	    !gmtime_r(&now.tv_sec, &tm)) {
		snprintf(ts, len, "0000-00-00T00:00:00.000Z");
		return;
	}
	snprintf(ts, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, now.tv_nsec / 1000000L);
}

/* Writes all of buf to fd, retrying on EINTR and short writes. */
static void log_write_fd(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

static void log_emit_stderr(int level, const char *msg)
{
	char ts[LOG_TS_MAX];
	char line[LOG_LINE_MAX];
	int n;

	log_timestamp(ts, sizeof(ts));
	n = snprintf(line, sizeof(line), "%s %s[%ld] %s: %s\n", ts, log_ident,
		     (long)getpid(), bcn_log_level_names[level], msg);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line)) {
		n = (int)sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	log_write_fd(STDERR_FILENO, line, (size_t)n);
}

/* Cuts an overlong message with "...", drops trailing newlines and turns
 * the remaining control characters into '?'. */
static void log_clean(char *msg, int n)
{
	size_t len, i;

	if (n < 0) {
		snprintf(msg, BCN_LOG_MSG_MAX, "(message format error)");
		return;
	}
	if ((size_t)n >= BCN_LOG_MSG_MAX)
		memcpy(msg + BCN_LOG_MSG_MAX - 4, "...", 4);
	len = strlen(msg);
	while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
		msg[--len] = '\0';
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)msg[i];
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			msg[i] = '?';
	}
}

void bcn_log_vwrite(int level, const char *fmt, va_list ap)
{
	char msg[BCN_LOG_MSG_MAX];
	int n;

	if (level < BCN_LOG_ERR)
		level = BCN_LOG_ERR;
	if (level > BCN_LOG_DEBUG)
		level = BCN_LOG_DEBUG;
	if (!BCN_LOG_ENABLED(level))
		return;
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	log_clean(msg, n);
	if (log_sink)
		log_sink(log_sink_arg, level, msg);
	else if (log_dest == BCN_LOG_DEST_SYSLOG)
		syslog(log_syslog_prio[level], "%s", msg);
	else
		log_emit_stderr(level, msg);
}

void bcn_log_write(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bcn_log_vwrite(level, fmt, ap);
	va_end(ap);
}

static int64_t log_monotonic_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		return 0;
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void complain_emit(const struct bcn_complain *c, int level,
			  const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
static void complain_vat(struct bcn_complain *c, int64_t now_ms, int level,
			 const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/* Logs the formatted message, followed by the suppressed count if any. */
static void complain_emit(const struct bcn_complain *c, int level,
			  const char *fmt, va_list ap)
{
	char msg[BCN_LOG_MSG_MAX];

	if (!BCN_LOG_ENABLED(level))
		return;
	if (c->suppressed == 0) {
		bcn_log_vwrite(level, fmt, ap);
		return;
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	bcn_log_write(level, "%s (%llu similar message%s suppressed)", msg,
		      (unsigned long long)c->suppressed,
		      c->suppressed == 1 ? "" : "s");
}

static void complain_vat(struct bcn_complain *c, int64_t now_ms, int level,
			 const char *fmt, va_list ap)
{
	if (c->interval_ms > 0 && now_ms - c->last_ms < c->interval_ms) {
		c->suppressed++;
		return;
	}
	complain_emit(c, level, fmt, ap);
	if (c->interval_ms <= 0)
		c->interval_ms = BCN_COMPLAIN_MIN_MS;
	else if (c->interval_ms >= BCN_COMPLAIN_MAX_MS / 2)
		c->interval_ms = BCN_COMPLAIN_MAX_MS;
	else
		c->interval_ms *= 2;
	c->last_ms = now_ms;
	c->suppressed = 0;
}

void bcn_complain_at(struct bcn_complain *c, int64_t now_ms, int level,
		     const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	complain_vat(c, now_ms, level, fmt, ap);
	va_end(ap);
}

void bcn_complain(struct bcn_complain *c, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	complain_vat(c, log_monotonic_ms(), level, fmt, ap);
	va_end(ap);
}

void bcn_complain_release(struct bcn_complain *c, int level,
			  const char *fmt, ...)
{
	va_list ap;

	if (c->interval_ms <= 0)
		return;
	va_start(ap, fmt);
	complain_emit(c, level, fmt, ap);
	va_end(ap);
	c->interval_ms = 0;
	c->last_ms = 0;
	c->suppressed = 0;
}
