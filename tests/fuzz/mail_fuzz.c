/* libFuzzer target for analysis/anomaly/mail: fills a struct
 * bcn_anomaly (kind, component, severity, state, evidence, the web URL,
 * times, score, jobs, the alert kind) from the input and checks the
 * invariants of the composed message: composing never fails but for
 * the size bound; no bare CR or LF anywhere; every line, the last
 * included, ends in CRLF; no line longer than 998 bytes, no body line
 * longer than 78; the header block has only the known fields and their
 * continuations, with no control characters. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/mail.h"
#include "common/buf.h"
#include "common/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const known[] = { "From: ", "To: ", "Subject:", "Date: ",
	"Message-ID: ", "MIME-Version: ", "Content-Type: ",
	"Content-Transfer-Encoding: ", "Auto-Submitted: ",
	"X-Beacon-Anomaly: ", "X-Beacon-Alert: ", NULL };

/* Takes the next field (up to a NUL byte of the input) into out. */
static void field(const uint8_t **p, const uint8_t *end, char *out,
		  size_t cap)
{
	const uint8_t *z = memchr(*p, 0, (size_t)(end - *p));
	size_t n = z ? (size_t)(z - *p) : (size_t)(end - *p);

	memcpy(out, *p, n < cap - 1 ? n : cap - 1);
	out[n < cap - 1 ? n : cap - 1] = '\0';
	*p += z ? n + 1 : n;
}

static int64_t take64(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int i = 0; i < 8 && *p < end; i++)
		v = v << 8 | *(*p)++;
	return (int64_t)v;
}

static void check_header_line(const uint8_t *l, size_t n)
{
	bool ok = l[0] == ' ';

	for (int i = 0; !ok && known[i]; i++)
		ok = n >= strlen(known[i]) &&
		     !memcmp(l, known[i], strlen(known[i]));
	if (!ok)
		abort();
	for (size_t i = 0; i < n; i++)
		if (l[i] < 0x20 || l[i] >= 0x7f)
			abort();
}

static void check(const struct bcn_buf *b)
{
	size_t start = 0;
	bool head = true;

	if (b->len < 2 || memcmp(b->data + b->len - 2, "\r\n", 2))
		abort();
	for (size_t i = 0; i < b->len; i++) {
		if (b->data[i] == '\r' && (i + 1 == b->len ||
					   b->data[i + 1] != '\n'))
			abort();
		if (b->data[i] == '\n' && (i == 0 || b->data[i - 1] != '\r'))
			abort();
		if (b->data[i] != '\n')
			continue;
		size_t n = i - 1 - start;       /* without CRLF */

		if (n > 998 || (!head && n > 76))
			abort();
		if (head && n == 0)
			head = false;
		else if (head)
			check_header_line(b->data + start, n);
		start = i + 1;
	}
	if (head)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const to[] = { "ops@example.org", "b@x.example" };
	const uint8_t *p = data, *end = data + size;
	struct bcn_anomaly *a = calloc(1, sizeof(*a));
	struct bcn_mail_params mp = { .from = "beacon@hpc.example", .to = to,
				      .nto = 2 };
	char url[512];
	struct bcn_buf b;
	int rc;

	if (!a || size < 4) {
		free(a);
		return 0;
	}
	mp.kind = p[0] & 1 ? BCN_MAIL_REMINDER : BCN_MAIL_NEW;
	mp.seq = p[1];
	a->njobs = p[2] % (BCN_ANOMALY_JOBS_MAX + 1);
	for (size_t i = 0; i < a->njobs; i++) {
		a->jobs[i].job = (uint64_t)i * 977 + p[3];
		a->jobs[i].role = (p[3] >> (i % 8)) & 1;
	}
	p += 4;
	a->id = (uint64_t)take64(&p, end);
	mp.alert_id = (uint64_t)take64(&p, end);
	a->from = take64(&p, end);
	a->to = take64(&p, end);
	a->detected = take64(&p, end);
	mp.now = take64(&p, end);
	memcpy(&a->score, &a->to, sizeof(a->score));
	field(&p, end, a->kind, sizeof(a->kind));
	field(&p, end, a->component, sizeof(a->component));
	field(&p, end, a->severity, sizeof(a->severity));
	field(&p, end, a->state, sizeof(a->state));
	field(&p, end, url, sizeof(url));
	field(&p, end, a->evidence, sizeof(a->evidence));
	mp.web_url = url;
	bcn_buf_init(&b, BCN_MAIL_MAX);
	rc = bcn_mail_compose(a, &mp, &b);
	if (rc && rc != -BCN_EFULL)
		abort();
	if (!rc)
		check(&b);
	bcn_buf_free(&b);
	free(a);
	return 0;
}
