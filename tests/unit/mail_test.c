/* Unit tests of analysis/anomaly/mail: the headers of a message and
 * their values, RFC 2047 Subjects for non-ASCII components (decoded back
 * here), hostile components and severities with CR, LF and control
 * characters that must not add a header, long evidence wrapped by the
 * quoted-printable encoding (decoded back here), CRLF everywhere, a
 * Message-ID stable across retries, and bad addresses refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/anomaly/mail.h"
#include "common/buf.h"
#include "common/error.h"

#define S(x) ((int64_t)(x) * 1000000000ll)
#define NOW S(1795000000)       /* 2026-11-18T11:06:40Z */

static const char *const rcpt2[] = { "ops@example.org", "io@example.org" };

static struct bcn_anomaly sample(const char *component)
{
	struct bcn_anomaly a;

	memset(&a, 0, sizeof(a));
	a.id = 42;
	snprintf(a.kind, sizeof(a.kind), "slow_ost");
	snprintf(a.component, sizeof(a.component), "%s", component);
	a.from = S(1795000000) - S(5400);
	a.to = S(1795000000);
	snprintf(a.severity, sizeof(a.severity), "warning");
	a.score = 3.25;
	snprintf(a.evidence, sizeof(a.evidence), "{\"median_ms\":12.5,"
		 "\"baseline_ms\":3,\"osts\":{\"slow\":1,\"peers\":7},"
		 "\"note\":\"line1\\nline2\"}");
	a.jobs[0] = (struct bcn_anomaly_job){ 77, BCN_ANOMALY_AFFECTED };
	a.jobs[1] = (struct bcn_anomaly_job){ 78, BCN_ANOMALY_AFFECTED };
	a.jobs[2] = (struct bcn_anomaly_job){ 90, BCN_ANOMALY_ACCUSED };
	a.njobs = 3;
	snprintf(a.state, sizeof(a.state), "open");
	a.detected = a.updated = a.to;
	return a;
}

static struct bcn_mail_params params(void)
{
	struct bcn_mail_params p = {
		.alert_id = 7, .kind = BCN_MAIL_NEW, .from = "beacon@hpc.example",
		.to = rcpt2, .nto = 2, .web_url = "https://beacon.example/",
		.now = NOW,
	};
	return p;
}

/* Composes into a NUL-terminated string (caller frees). */
static char *compose(const struct bcn_anomaly *a,
		     const struct bcn_mail_params *p)
{
	struct bcn_buf b;

	bcn_buf_init(&b, BCN_MAIL_MAX);
	assert_int_equal(bcn_mail_compose(a, p, &b), 0);
	assert_int_equal(bcn_buf_add(&b, "", 1), 0);
	return (char *)b.data;
}

/* The invariants of every message: CRLF only, lines of at most 78
 * bytes, a header block of known fields and continuations. */
static void check_shape(const char *m)
{
	static const char *const known[] = { "From:", "To:", "Subject:",
		"Date:", "Message-ID:", "MIME-Version:", "Content-Type:",
		"Content-Transfer-Encoding:", "Auto-Submitted:",
		"X-Beacon-Anomaly:", "X-Beacon-Alert:", NULL };
	const char *line = m;
	bool head = true;

	for (const char *p = m; *p; p++) {
		if (*p == '\r')
			assert_int_equal(p[1], '\n');
		if (*p == '\n')
			assert_true(p > m && p[-1] == '\r');
		if (*p != '\n')
			continue;
		assert_true(p - line + 1 <= 998);
		if (!head)
			assert_true(p - line + 1 <= 78);
		if (head && p - line == 1) {
			head = false;
		} else if (head && *line != ' ') {
			bool ok = false;

			for (int i = 0; known[i]; i++)
				ok = ok || !strncmp(line, known[i],
						    strlen(known[i]));
			if (!ok)
				fail_msg("unknown header line: %.*s",
					 (int)(p - line), line);
		}
		for (const char *q = line; head && q < p - 1; q++)
			assert_false((unsigned char)*q < 0x20 && *q != '\t');
		line = p + 1;
	}
	assert_false(head);
	assert_true(*line == '\0');     /* ends with CRLF */
}

/* The unfolded value of header name ("" when absent) into out. */
static void header(const char *m, const char *name, char *out, size_t cap)
{
	size_t nl = strlen(name), n = 0;
	const char *p = m;

	out[0] = '\0';
	while (*p && strncmp(p, "\r\n", 2)) {
		if (!strncasecmp(p, name, nl) && p[nl] == ':') {
			p += nl + 1;
			while (*p == ' ')
				p++;
			while (*p && n + 1 < cap) {
				if (!strncmp(p, "\r\n ", 3))
					p += 2;
				else if (!strncmp(p, "\r\n", 2))
					break;
				out[n++] = *p++;
			}
			out[n] = '\0';
			return;
		}
		p = strstr(p, "\r\n") + 2;
	}
}

/* The body, quoted-printable decoded, with "\n" line ends (caller
 * frees). */
static char *body(const char *m)
{
	const char *p = strstr(m, "\r\n\r\n") + 4;
	char *out = malloc(strlen(p) + 1), *o = out;

	while (*p) {
		if (!strncmp(p, "=\r\n", 3)) {
			p += 3;
		} else if (*p == '=' && p[1] && p[2]) {
			char hex[3] = { p[1], p[2], 0 };

			*o++ = (char)strtol(hex, NULL, 16);
			p += 3;
		} else if (!strncmp(p, "\r\n", 2)) {
			*o++ = '\n';
			p += 2;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return out;
}

static int b64(char c)
{
	const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			  "0123456789+/";
	const char *p = strchr(abc, c);

	return c && p ? (int)(p - abc) : -1;
}

/* Decodes a Subject made of "=?UTF-8?B?...?=" words into out. */
static void decode_words(const char *s, char *out, size_t cap)
{
	size_t n = 0;

	while ((s = strstr(s, "=?UTF-8?B?"))) {
		uint32_t v = 0;
		int bits = 0;

		for (s += 10; *s && *s != '?'; s++) {
			if (*s == '=')
				continue;
			v = v << 6 | (uint32_t)b64(*s);
			bits += 6;
			if (bits >= 8 && n + 1 < cap) {
				bits -= 8;
				out[n++] = (char)(v >> bits & 0xff);
			}
		}
	}
	out[n] = '\0';
}

static void test_headers(void **state)
{
	static const struct { const char *name, *value; } want[] = {
		{ "From", "beacon <beacon@hpc.example>" },
		{ "To", "ops@example.org, io@example.org" },
		{ "Subject", "[beacon] slow_ost simfs-OST0003 (warning) since "
			     "2026-11-18T09:36:40Z" },
		{ "Date", "Wed, 18 Nov 2026 11:06:40 +0000" },
		{ "Message-ID", "<alert-7.anomaly-42@hpc.example>" },
		{ "MIME-Version", "1.0" },
		{ "Content-Type", "text/plain; charset=utf-8" },
		{ "Content-Transfer-Encoding", "quoted-printable" },
		{ "X-Beacon-Anomaly", "42" },
		{ "X-Beacon-Alert", "new" },
	};
	struct bcn_anomaly a = sample("simfs-OST0003");
	struct bcn_mail_params p = params();
	char *m = compose(&a, &p), v[1024], *b;

	(void)state;
	check_shape(m);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		header(m, want[i].name, v, sizeof(v));
		assert_string_equal(v, want[i].value);
	}
	b = body(m);
	assert_non_null(strstr(b, "Component: simfs-OST0003\n"));
	assert_non_null(strstr(b, "Window:    2026-11-18T09:36:40Z .. "
			       "2026-11-18T11:06:40Z (1h 30m 0s)\n"));
	assert_non_null(strstr(b, "Severity:  warning (score 3.25)\n"));
	assert_non_null(strstr(b, "State:     open\n"));
	assert_non_null(strstr(b, "Affected:   77, 78\n"));
	assert_non_null(strstr(b, "Accused:    90\n"));
	assert_non_null(strstr(b, "  median_ms: 12.5\n"));
	assert_non_null(strstr(b, "  baseline_ms: 3\n"));
	assert_non_null(strstr(b, "  osts.peers: 7\n"));
	assert_non_null(strstr(b, "  note: line1 line2\n"));
	assert_non_null(strstr(b, "Details: https://beacon.example/anomalies/42\n"));
	free(b);
	free(m);
	/* a reminder says so */
	p.kind = BCN_MAIL_REMINDER;
	p.seq = 2;
	m = compose(&a, &p);
	header(m, "Subject", v, sizeof(v));
	assert_string_equal(v, "[beacon] reminder 2: slow_ost simfs-OST0003 "
			    "(warning) since 2026-11-18T09:36:40Z");
	header(m, "X-Beacon-Alert", v, sizeof(v));
	assert_string_equal(v, "reminder 2");
	free(m);
}

static void test_subject_encoding(void **state)
{
	static const struct { const char *component, *decoded; } cases[] = {
		{ "Düsseldorf-OST0001", "Düsseldorf-OST0001" },
		{ "文件系统-OST0002-文件系统-OST0002-文件系统-OST0002",
		  "文件系统-OST0002-文件系统-OST0002-文件系统-OST0002" },
		{ "bad\xff\xfeutf8", "bad\xef\xbf\xbd\xef\xbf\xbdutf8" },
		{ "emoji-😀-ost", "emoji-😀-ost" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct bcn_anomaly a = sample(cases[i].component);
		struct bcn_mail_params p = params();
		char *m = compose(&a, &p), v[2048], d[2048], want[2048];

		check_shape(m);
		header(m, "Subject", v, sizeof(v));
		assert_non_null(strstr(v, "=?UTF-8?B?"));
		for (char *q = v; *q; q++)
			assert_true((unsigned char)*q < 0x80);
		decode_words(v, d, sizeof(d));
		snprintf(want, sizeof(want), "[beacon] slow_ost %s (warning) "
			 "since 2026-11-18T09:36:40Z", cases[i].decoded);
		assert_string_equal(d, want);
		free(m);
	}
}

static void test_hostile(void **state)
{
	static const char *const comps[] = {
		"ost\r\nBcc: evil@x",
		"ost\nBcc: evil@x\n\nbody",
		"ost\rBcc: evil@x",
		"\x01\x02\x7f\x1b[31m",
		"ost\r\n Bcc: continuation",
		"=?UTF-8?B?DQpCY2M6IGV2aWxAeA==?=",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(comps) / sizeof(comps[0]); i++) {
		struct bcn_anomaly a = sample(comps[i]);
		struct bcn_mail_params p = params();
		char *m, v[1024];

		snprintf(a.severity, sizeof(a.severity), "x\r\nBcc: y@z");
		snprintf(a.kind, sizeof(a.kind), "k\nTo: y@z");
		snprintf(a.evidence, sizeof(a.evidence), "{\"k\\r\\nBcc: e@x\":"
			 "\"v\\r\\n.\\r\\nRCPT TO:<e@x>\"}");
		m = compose(&a, &p);
		check_shape(m);        /* no unknown header line */
		header(m, "Bcc", v, sizeof(v));
		assert_string_equal(v, "");
		header(m, "To", v, sizeof(v));
		assert_string_equal(v, "ops@example.org, io@example.org");
		free(m);
	}
}

static void test_long_evidence(void **state)
{
	struct bcn_anomaly a = sample("simfs-OST0003");
	struct bcn_mail_params p = params();
	char *m, *b, val[600], line[700];
	size_t n = 0;

	(void)state;
	memset(val, 'x', 500);
	memcpy(val + 100, "=é ", 4);
	val[500] = '\0';
	n += (size_t)snprintf(a.evidence, sizeof(a.evidence), "{\"long\":\"%s\"",
			      val);
	for (int i = 0; i < 300; i++)
		n += (size_t)snprintf(a.evidence + n, sizeof(a.evidence) - n,
				      ",\"k%03d\":%d", i, i);
	snprintf(a.evidence + n, sizeof(a.evidence) - n, "}");
	m = compose(&a, &p);
	check_shape(m);
	b = body(m);
	snprintf(line, sizeof(line), "  long: %s\n", val);
	assert_non_null(strstr(b, line));
	assert_non_null(strstr(b, "  k198: 198\n"));
	assert_null(strstr(b, "  k199: 199\n"));       /* 200 lines shown */
	assert_non_null(strstr(b, "  (101 more not shown)\n"));
	free(b);
	free(m);
	/* evidence that is not a JSON object is shown as it is */
	snprintf(a.evidence, sizeof(a.evidence), "not json\r\n.");
	m = compose(&a, &p);
	check_shape(m);
	b = body(m);
	assert_non_null(strstr(b, "Evidence:\n  not json  .\n"));
	free(b);
	free(m);
}

static void test_message_id(void **state)
{
	struct bcn_anomaly a = sample("simfs-OST0003");
	struct bcn_mail_params p = params();
	char *m1, *m2, v1[256], v2[256], id[BCN_MAIL_MSGID_MAX];

	(void)state;
	m1 = compose(&a, &p);
	p.now += S(3600);       /* a retry an hour later */
	m2 = compose(&a, &p);
	header(m1, "Message-ID", v1, sizeof(v1));
	header(m2, "Message-ID", v2, sizeof(v2));
	assert_string_equal(v1, v2);
	bcn_mail_message_id(7, 42, "beacon@hpc.example", id, sizeof(id));
	assert_string_equal(v1, id);
	free(m2);
	p.alert_id = 8;
	m2 = compose(&a, &p);
	header(m2, "Message-ID", v2, sizeof(v2));
	assert_string_not_equal(v1, v2);
	bcn_mail_message_id(7, 42, "weird@dom ain", id, sizeof(id));
	assert_string_equal(id, "<alert-7.anomaly-42@beacon.invalid>");
	free(m1);
	free(m2);
}

static void test_addresses(void **state)
{
	static const struct { const char *addr; bool ok; } cases[] = {
		{ "a@b.example", true }, { "first.last+tag@x.org", true },
		{ "", false }, { "a", false }, { "@b", false }, { "a@", false },
		{ "a@b@c", false }, { "a b@c", false }, { "a@b\r\nBcc: x", false },
		{ "<a@b>", false }, { "a@b,c@d", false }, { "\"a\"@b", false },
		{ "é@b", false },
	};
	struct bcn_anomaly a = sample("ost");
	struct bcn_mail_params p = params();
	const char *bad[] = { "ops@example.org", "x\n@y" };
	struct bcn_buf b;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(bcn_mail_addr_ok(cases[i].addr), cases[i].ok);
	bcn_buf_init(&b, BCN_MAIL_MAX);
	p.to = bad;
	assert_int_equal(bcn_mail_compose(&a, &p, &b), -EINVAL);
	p.to = rcpt2;
	p.nto = 0;
	assert_int_equal(bcn_mail_compose(&a, &p, &b), -EINVAL);
	p.nto = 2;
	p.from = "beacon";
	assert_int_equal(bcn_mail_compose(&a, &p, &b), -EINVAL);
	assert_int_equal(b.len, 0);
	/* the bound is honoured */
	p = params();
	bcn_buf_free(&b);
	bcn_buf_init(&b, 300);
	assert_int_equal(bcn_mail_compose(&a, &p, &b), -BCN_EFULL);
	bcn_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headers),
		cmocka_unit_test(test_subject_encoding),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_long_evidence),
		cmocka_unit_test(test_message_id),
		cmocka_unit_test(test_addresses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
