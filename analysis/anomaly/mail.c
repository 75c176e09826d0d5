/* The alert e-mail of an anomaly (mail.h): headers built only from
 * sanitised values, a body of readable lines (the evidence flattened to
 * "key: value"), quoted-printable encoded with CRLF line ends. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "analysis/anomaly/mail.h"
#include "common/error.h"
#include "common/timefmt.h"
#include "common/utf8.h"

#define KEY_SHOW_MAX 64                 /* bytes of an evidence key shown */
#define VALUE_SHOW_MAX 512              /* bytes of an evidence value */
#define EVIDENCE_DEPTH 4                /* nested objects flattened */
#define QP_COLS 75                      /* encoded bytes before "=" CRLF */
#define WORD_BYTES 45                   /* text bytes per encoded-word */
#define SUBJECT_MAX 4096

static bool is_ctl(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Appends s, at most max bytes of it (never reading further), with
 * every control character a space. */
static int add_plain(struct bcn_buf *b, const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	size_t start = b->len;
	int rc = bcn_buf_add(b, s, n);

	for (size_t i = start; !rc && i < b->len; i++)
		if (is_ctl(b->data[i]))
			b->data[i] = ' ';
	return rc;
}

bool bcn_mail_addr_ok(const char *s)
{
	size_t n = strnlen(s, BCN_MAIL_ADDR_MAX + 1), at = n;

	if (n == 0 || n > BCN_MAIL_ADDR_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= 0x20 || c >= 0x7f || strchr("\"(),:;<>[\\]", c))
			return false;
		if (c == '@') {
			if (at != n)
				return false;
			at = i;
		}
	}
	return at > 0 && at + 1 < n;
}

void bcn_mail_message_id(uint64_t alert_id, uint64_t anomaly_id,
			 const char *from, char *out, size_t cap)
{
	const char *at = from ? strrchr(from, '@') : NULL;
	char dom[64];
	size_t n = 0;

	for (at = at ? at + 1 : ""; *at && n + 1 < sizeof(dom); at++) {
		char c = *at;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '-'))
			break;
		dom[n++] = c;
	}
	if (*at)        /* a character no domain has, or too long */
		n = 0;
	dom[n] = '\0';
	snprintf(out, cap, "<alert-%" PRIu64 ".anomaly-%" PRIu64 "@%s>",
		 alert_id, anomaly_id, n ? dom : "beacon.invalid");
}

static void iso(int64_t ns, char *out, size_t cap)
{
	if (bcn_timefmt_format(ns, out, cap))
		snprintf(out, cap, "?");
}

/* The length of [from, to] as "4d 1h 0m 5s", "1h 0m 0s", "2m 30s". */
static void duration(int64_t from, int64_t to, char *out, size_t cap)
{
	uint64_t ns = to > from ? (uint64_t)to - (uint64_t)from : 0;
	long long s = (long long)(ns / BCN_NS_PER_SEC);
	long long d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60;

	if (d)
		snprintf(out, cap, "%lldd %lldh %lldm %llds", d, h, m, s % 60);
	else if (h)
		snprintf(out, cap, "%lldh %lldm %llds", h, m, s % 60);
	else
		snprintf(out, cap, "%lldm %llds", m, s % 60);
}

static int add_date(struct bcn_buf *b, int64_t ns)
{
	static const char *const wday[] = { "Sun", "Mon", "Tue", "Wed", "Thu",
					    "Fri", "Sat" };
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May",
					   "Jun", "Jul", "Aug", "Sep", "Oct",
					   "Nov", "Dec" };
	time_t t = (time_t)bcn_timefmt_floor_div(ns, BCN_NS_PER_SEC);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || tm.tm_wday < 0 || tm.tm_wday > 6 ||
	    tm.tm_mon < 0 || tm.tm_mon > 11) {
		t = 0;
		gmtime_r(&t, &tm);
	}
	return bcn_buf_printf(b, "Date: %s, %02d %s %04d %02d:%02d:%02d "
			      "+0000\r\n", wday[tm.tm_wday], tm.tm_mday,
			      mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
			      tm.tm_min, tm.tm_sec);
}

static void base64(const uint8_t *p, size_t n, char *out)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t o = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		out[o++] = abc[v >> 18 & 63];
		out[o++] = abc[v >> 12 & 63];
		out[o++] = i + 1 < n ? abc[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? abc[v & 63] : '=';
	}
	out[o] = '\0';
}

/* The Subject text (valid UTF-8, no control characters) into s. */
static int subject_text(const struct bcn_anomaly *a,
			const struct bcn_mail_params *p, struct bcn_buf *s)
{
	char since[BCN_TIMEFMT_OUT_MAX];
	size_t replaced;
	int rc = bcn_buf_adds(s, "[beacon] ");

	iso(a->from, since, sizeof(since));
	if (!rc && p->kind == BCN_MAIL_REMINDER)
		rc = bcn_buf_printf(s, "reminder %u: ", p->seq);
	rc = rc ? rc : add_plain(s, a->kind, sizeof(a->kind) - 1);
	rc = rc ? rc : bcn_buf_adds(s, " ");
	rc = rc ? rc : add_plain(s, a->component, sizeof(a->component) - 1);
	rc = rc ? rc : bcn_buf_adds(s, " (");
	rc = rc ? rc : add_plain(s, a->severity, sizeof(a->severity) - 1);
	rc = rc ? rc : bcn_buf_printf(s, ") since %s", since);
	return rc ? rc : bcn_utf8_sanitize(s, 0, &replaced);
}

/* "Subject:" as is when ASCII, else as RFC 2047 "B" encoded-words of
 * whole characters, one per folded line. */
static int add_subject(struct bcn_buf *out, const struct bcn_buf *s)
{
	char word[WORD_BYTES / 3 * 4 + 8];
	bool ascii = true;
	size_t i = 0;
	int rc;

	for (size_t k = 0; k < s->len; k++)
		ascii = ascii && s->data[k] < 0x80;
	if (ascii) {
		rc = bcn_buf_adds(out, "Subject: ");
		rc = rc ? rc : bcn_buf_add(out, s->data, s->len);
		return rc ? rc : bcn_buf_adds(out, "\r\n");
	}
	rc = bcn_buf_adds(out, "Subject:");
	while (!rc && i < s->len) {
		size_t end = i + WORD_BYTES < s->len ? i + WORD_BYTES : s->len;

		while (end < s->len && end > i + 1 &&
		       (s->data[end] & 0xc0) == 0x80)
			end--;
		base64(s->data + i, end - i, word);
		rc = bcn_buf_printf(out, "%s =?UTF-8?B?%s?=", i ? "\r\n" : "",
				    word);
		i = end;
	}
	return rc ? rc : bcn_buf_adds(out, "\r\n");
}

static int add_to(struct bcn_buf *out, const struct bcn_mail_params *p)
{
	int rc = bcn_buf_adds(out, "To: ");

	for (size_t i = 0; !rc && i < p->nto; i++)
		rc = bcn_buf_printf(out, "%s%s", i ? ",\r\n " : "", p->to[i]);
	return rc ? rc : bcn_buf_adds(out, "\r\n");
}

static int add_headers(const struct bcn_anomaly *a,
		       const struct bcn_mail_params *p, struct bcn_buf *out)
{
	char msgid[BCN_MAIL_MSGID_MAX];
	struct bcn_buf subj;
	int rc;

	bcn_buf_init(&subj, SUBJECT_MAX);
	bcn_mail_message_id(p->alert_id, a->id, p->from, msgid, sizeof(msgid));
	rc = bcn_buf_printf(out, "From: beacon <%s>\r\n", p->from);
	rc = rc ? rc : add_to(out, p);
	rc = rc ? rc : subject_text(a, p, &subj);
	rc = rc ? rc : add_subject(out, &subj);
	rc = rc ? rc : add_date(out, p->now);
	rc = rc ? rc : bcn_buf_printf(out, "Message-ID: %s\r\n", msgid);
	rc = rc ? rc : bcn_buf_adds(out, "MIME-Version: 1.0\r\n"
				    "Content-Type: text/plain; charset=utf-8\r\n"
				    "Content-Transfer-Encoding: quoted-printable\r\n"
				    "Auto-Submitted: auto-generated\r\n");
	rc = rc ? rc : bcn_buf_printf(out, "X-Beacon-Anomaly: %" PRIu64 "\r\n",
				      a->id);
	if (!rc && p->kind == BCN_MAIL_REMINDER)
		rc = bcn_buf_printf(out, "X-Beacon-Alert: reminder %u\r\n",
				    p->seq);
	else if (!rc)
		rc = bcn_buf_adds(out, "X-Beacon-Alert: new\r\n");
	rc = rc ? rc : bcn_buf_adds(out, "\r\n");
	bcn_buf_free(&subj);
	return rc;
}

static int add_jobs(struct bcn_buf *b, const struct bcn_anomaly *a,
		    const char *label, int role)
{
	size_t n = 0;
	int rc = bcn_buf_printf(b, "%-11s", label);

	for (size_t i = 0; !rc && i < a->njobs && i < BCN_ANOMALY_JOBS_MAX; i++)
		if (a->jobs[i].role == role)
			rc = bcn_buf_printf(b, "%s%" PRIu64, n++ ? ", " : " ",
					    a->jobs[i].job);
	if (!rc && !n)
		rc = bcn_buf_adds(b, " none");
	return rc ? rc : bcn_buf_adds(b, "\n");
}

struct evidence {
	struct bcn_buf *b;
	unsigned lines, more;
};

/* One "  key: value" line of the evidence. */
static int ev_leaf(struct evidence *e, const char *key, json_t *v)
{
	char num[64], *dump = NULL;
	const char *s = num;
	int rc;

	if (e->lines >= BCN_MAIL_EVIDENCE_LINES) {
		e->more++;
		return 0;
	}
	if (json_is_string(v))
		s = json_string_value(v);
	else if (json_is_integer(v))
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(v));
	else if (json_is_real(v))
		snprintf(num, sizeof(num), "%.6g", json_real_value(v));
	else if (json_is_boolean(v) || json_is_null(v))
		s = json_is_true(v) ? "true" : json_is_null(v) ? "null" : "false";
	else
		s = dump = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	rc = bcn_buf_adds(e->b, "  ");
	rc = rc ? rc : add_plain(e->b, key, KEY_SHOW_MAX);
	rc = rc ? rc : bcn_buf_adds(e->b, ": ");
	s = s ? s : "?";
	rc = rc ? rc : add_plain(e->b, s, VALUE_SHOW_MAX);
	if (!rc && strnlen(s, VALUE_SHOW_MAX + 1) > VALUE_SHOW_MAX)
		rc = bcn_buf_adds(e->b, "...");
	rc = rc ? rc : bcn_buf_adds(e->b, "\n");
	free(dump);
	e->lines++;
	return rc;
}

/* The members of o, nested objects as "outer.inner" keys. */
static int ev_object(struct evidence *e, const char *prefix, json_t *o,
		     int depth)
{
	const char *k;
	json_t *v;
	int rc = 0;

	json_object_foreach(o, k, v) {
		char key[KEY_SHOW_MAX + 1];
		size_t pl = strnlen(prefix, KEY_SHOW_MAX);

		memcpy(key, prefix, pl);
		if (pl && pl < KEY_SHOW_MAX)
			key[pl++] = '.';
		snprintf(key + pl, sizeof(key) - pl, "%.*s",
			 (int)(KEY_SHOW_MAX - pl), k);
		if (json_is_object(v) && json_object_size(v) &&
		    depth < EVIDENCE_DEPTH)
			rc = ev_object(e, key, v, depth + 1);
		else
			rc = ev_leaf(e, key, v);
		if (rc)
			break;
	}
	return rc;
}

static int add_evidence(struct bcn_buf *b, const char *text)
{
	struct evidence e = { .b = b };
	json_t *o = json_loadb(text, strnlen(text, BCN_ANOMALY_EVIDENCE_MAX),
			       0, NULL);
	int rc = bcn_buf_adds(b, "Evidence:\n");

	if (!rc && !json_is_object(o)) {
		rc = bcn_buf_adds(b, "  ");
		rc = rc ? rc : add_plain(b, text, BCN_ANOMALY_EVIDENCE_MAX - 1);
		rc = rc ? rc : bcn_buf_adds(b, "\n");
	} else if (!rc && !json_object_size(o)) {
		rc = bcn_buf_adds(b, "  none\n");
	} else if (!rc) {
		rc = ev_object(&e, "", o, 1);
		if (!rc && e.more)
			rc = bcn_buf_printf(b, "  (%u more not shown)\n", e.more);
	}
	json_decref(o);
	return rc;
}

/* The text of the body, lines ending in "\n" (before encoding). */
static int body_text(const struct bcn_anomaly *a,
		     const struct bcn_mail_params *p, struct bcn_buf *b)
{
	char from[BCN_TIMEFMT_OUT_MAX], to[BCN_TIMEFMT_OUT_MAX], det[64];
	char dur[64], now[BCN_TIMEFMT_OUT_MAX];
	const char *url = p->web_url ? p->web_url : "";
	size_t ul = strlen(url);
	int rc;

	iso(a->from, from, sizeof(from));
	iso(a->to, to, sizeof(to));
	iso(a->detected, det, sizeof(det));
	iso(p->now, now, sizeof(now));
	duration(a->from, a->to, dur, sizeof(dur));
	if (p->kind == BCN_MAIL_REMINDER)
		rc = bcn_buf_printf(b, "Reminder %u: this I/O anomaly is still "
				    "open.\n\n", p->seq);
	else
		rc = bcn_buf_adds(b, "beacon detected an I/O anomaly.\n\n");
	rc = rc ? rc : bcn_buf_adds(b, "Kind:      ");
	rc = rc ? rc : add_plain(b, a->kind, sizeof(a->kind) - 1);
	rc = rc ? rc : bcn_buf_adds(b, "\nComponent: ");
	rc = rc ? rc : add_plain(b, a->component, sizeof(a->component) - 1);
	rc = rc ? rc : bcn_buf_printf(b, "\nWindow:    %s .. %s (%s)\n",
				      from, to, dur);
	rc = rc ? rc : bcn_buf_adds(b, "Severity:  ");
	rc = rc ? rc : add_plain(b, a->severity, sizeof(a->severity) - 1);
	rc = rc ? rc : bcn_buf_printf(b, " (score %.4g)\nState:     ", a->score);
	rc = rc ? rc : add_plain(b, a->state, sizeof(a->state) - 1);
	rc = rc ? rc : bcn_buf_printf(b, "\nDetected:  %s\n", det);
	rc = rc ? rc : add_jobs(b, a, "Affected:", BCN_ANOMALY_AFFECTED);
	rc = rc ? rc : add_jobs(b, a, "Accused:", BCN_ANOMALY_ACCUSED);
	rc = rc ? rc : bcn_buf_adds(b, "\n");
	rc = rc ? rc : add_evidence(b, a->evidence);
	while (ul && url[ul - 1] == '/')
		ul--;
	if (!rc && ul) {
		rc = bcn_buf_adds(b, "\nDetails: ");
		rc = rc ? rc : add_plain(b, url, ul);
		rc = rc ? rc : bcn_buf_printf(b, "/anomalies/%" PRIu64 "\n",
					      a->id);
	}
	return rc ? rc : bcn_buf_printf(b, "\n-- \nbeacon alert %" PRIu64
					" about anomaly %" PRIu64 ", %s\n",
					p->alert_id, a->id, now);
}

/* One line of text, quoted-printable, with soft breaks and CRLF. */
static int qp_line(struct bcn_buf *out, const uint8_t *p, size_t n)
{
	size_t col = 0;
	int rc = 0;

	for (size_t i = 0; !rc && i < n; i++) {
		uint8_t c = p[i];
		char tok[4];
		size_t tl = 1;

		if ((c >= 33 && c <= 126 && c != '=') ||
		    ((c == ' ' || c == '\t') && i + 1 < n))
			tok[0] = (char)c;
		else
			tl = (size_t)snprintf(tok, sizeof(tok), "=%02X", c);
		if (col + tl > QP_COLS) {
			rc = bcn_buf_add(out, "=\r\n", 3);
			col = 0;
		}
		rc = rc ? rc : bcn_buf_add(out, tok, tl);
		col += tl;
	}
	return rc ? rc : bcn_buf_add(out, "\r\n", 2);
}

static int qp_body(struct bcn_buf *out, const struct bcn_buf *text)
{
	size_t i = 0;
	int rc = 0;

	while (!rc && i < text->len) {
		const uint8_t *nl = memchr(text->data + i, '\n', text->len - i);
		size_t end = nl ? (size_t)(nl - text->data) : text->len;

		rc = qp_line(out, text->data + i, end - i);
		i = end + 1;
	}
	return rc;
}

int bcn_mail_compose(const struct bcn_anomaly *a,
		     const struct bcn_mail_params *p, struct bcn_buf *out)
{
	struct bcn_buf text;
	size_t replaced;
	int rc;

	if (!p->from || !bcn_mail_addr_ok(p->from) || !p->to || !p->nto ||
	    p->nto > BCN_MAIL_RCPT_MAX)
		return -EINVAL;
	for (size_t i = 0; i < p->nto; i++)
		if (!p->to[i] || !bcn_mail_addr_ok(p->to[i]))
			return -EINVAL;
	bcn_buf_init(&text, BCN_MAIL_MAX);
	rc = add_headers(a, p, out);
	rc = rc ? rc : body_text(a, p, &text);
	rc = rc ? rc : bcn_utf8_sanitize(&text, 0, &replaced);
	rc = rc ? rc : qp_body(out, &text);
	bcn_buf_free(&text);
	return rc;
}
