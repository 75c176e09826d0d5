/* Test helper for tests/integration/dwt_pywt.sh: runs the wavelet library
 * (analysis/anomaly/dwt.h) on cases read from stdin, one a line,
 *   OP WAVELET MODE LEVEL FLAG PARAM N V1 .. VN
 * (unused fields are "-" or 0) and prints, per case, one line per result
 * array "LABEL COUNT V1 .. VCOUNT" with %.17g, or "err CODE", then "end":
 *   dwt      one level of V: "ca", "cd"
 *   idwt     V = cA then cD, N/2 each: "rec"
 *   wavedec  at LEVEL (<= 0: the maximum): "lens" (level, then the
 *            lengths of cA_n, cD_n .. cD_1), "coef" (all, in that
 *            order), then waverec of it: "rec"
 *   thr      V thresholded at PARAM, FLAG soft or hard: "thr"
 *   univ     the universal threshold of wavedec(V): "univ"
 *   denoise  FLAG soft or hard, PARAM the scale: "den"
 *   len      N alone: "len" (dwt_coeff_len, idwt_len of it, max_level)
 * usage: dwt_oracle < CASES */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/anomaly/dwt.h"

#define FIELDS 8

static void put(const char *label, const double *v, size_t n)
{
	printf("%s %zu", label, n);
	for (size_t i = 0; i < n; i++)
		printf(" %.17g", v[i]);
	putchar('\n');
}

struct ocase {
	char *f[FIELDS];        /* op wavelet mode level flag param n */
	int w, mode, level;
	double param;
	size_t n;
	double *v;
};

static int run_dwt(struct ocase *c)
{
	size_t m = bcn_dwt_coeff_len(c->n, c->w, c->mode);
	double *ca = calloc(m + 1, sizeof(double)), *cd = calloc(m + 1, sizeof(double));
	int rc = ca && cd ? bcn_dwt(c->v, c->n, c->w, c->mode, ca, cd) : -ENOMEM;

	if (!rc) {
		put("ca", ca, m);
		put("cd", cd, m);
	}
	free(ca);
	free(cd);
	return rc;
}

static int run_idwt(struct ocase *c)
{
	size_t m = c->n / 2, len = bcn_idwt_len(m, c->w, c->mode), got = 0;
	double *out = calloc(len + 1, sizeof(double));
	int rc = out ? bcn_idwt(c->v, c->v + m, m, c->w, c->mode, out, &got) : -ENOMEM;

	if (!rc)
		put("rec", out, got);
	free(out);
	return rc;
}

static int run_wavedec(struct ocase *c)
{
	struct bcn_wavedec d;
	double lens[BCN_DWT_LEVEL_MAX + 2], *rec = NULL;
	size_t got = 0;
	int rc = bcn_wavedec(c->v, c->n, c->w, c->mode, c->level, &d);

	if (rc)
		return rc;
	lens[0] = d.level;
	for (int i = 0; i <= d.level; i++)
		lens[i + 1] = (double)d.len[i];
	put("lens", lens, (size_t)d.level + 2);
	put("coef", d.c, d.total);
	rec = calloc(bcn_waverec_len(&d) + 1, sizeof(double));
	rc = rec ? bcn_waverec(&d, rec, bcn_waverec_len(&d), &got) : -ENOMEM;
	if (!rc)
		put("rec", rec, got);
	free(rec);
	bcn_wavedec_free(&d);
	return rc;
}

static int run_other(struct ocase *c, const char *op)
{
	struct bcn_dwt_denoise_opts o;
	struct bcn_wavedec d;
	double t, lens[3];
	int rc = 0;

	if (!strcmp(op, "thr")) {
		bcn_dwt_threshold(c->v, c->n, c->param, !strcmp(c->f[4], "soft"));
		put("thr", c->v, c->n);
	} else if (!strcmp(op, "univ")) {
		rc = bcn_wavedec(c->v, c->n, c->w, c->mode, c->level, &d);
		if (rc)
			return rc;
		t = bcn_dwt_universal_threshold(&d);
		put("univ", &t, 1);
		bcn_wavedec_free(&d);
	} else if (!strcmp(op, "denoise")) {
		o = (struct bcn_dwt_denoise_opts){ c->w, c->mode, c->level,
			!strcmp(c->f[4], "soft"), c->param };
		rc = bcn_dwt_denoise(c->v, c->n, &o, c->v);
		if (!rc)
			put("den", c->v, c->n);
	} else if (!strcmp(op, "len")) {
		lens[0] = (double)bcn_dwt_coeff_len(c->n, c->w, c->mode);
		lens[1] = (double)bcn_idwt_len((size_t)lens[0], c->w, c->mode);
		lens[2] = bcn_dwt_max_level(c->n, c->w);
		put("len", lens, 3);
	} else {
		rc = -EINVAL;
	}
	return rc;
}

/* Splits line into the case's fields and values; 0 or -EINVAL. */
static int parse(char *line, struct ocase *c)
{
	char *save = NULL, *tok, *end;

	for (int i = 0; i < FIELDS - 1; i++) {
		c->f[i] = strtok_r(i ? NULL : line, " \t\n", &save);
		if (!c->f[i])
			return -EINVAL;
	}
	if (strcmp(c->f[1], "-") && bcn_wavelet_parse(c->f[1], &c->w))
		return -EINVAL;
	if (strcmp(c->f[2], "-") && bcn_dwt_mode_parse(c->f[2], &c->mode))
		return -EINVAL;
	errno = 0;
	c->level = (int)strtol(c->f[3], &end, 10);
	if (errno || *end || c->level < -1000 || c->level > 1000)
		return -EINVAL;
	c->param = strtod(c->f[5], &end);
	if (*end)
		return -EINVAL;
	c->n = strtoul(c->f[6], &end, 10);
	if (errno || *end || c->f[6][0] == '-' || c->n > BCN_DWT_LEN_MAX)
		return -EINVAL;
	c->v = calloc(c->n + 1, sizeof(double));
	if (!c->v)
		return -ENOMEM;
	if (!strcmp(c->f[0], "len"))
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		tok = strtok_r(NULL, " \t\n", &save);
		if (!tok)
			return -EINVAL;
		c->v[i] = strtod(tok, &end);
		if (*end)
			return -EINVAL;
	}
	return 0;
}

int main(void)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, stdin) > 0) {
		struct ocase c = { .w = 1 };
		int rc = parse(line, &c);

		if (!rc && !strcmp(c.f[0], "dwt"))
			rc = run_dwt(&c);
		else if (!rc && !strcmp(c.f[0], "idwt"))
			rc = run_idwt(&c);
		else if (!rc && !strcmp(c.f[0], "wavedec"))
			rc = run_wavedec(&c);
		else if (!rc)
			rc = run_other(&c, c.f[0]);
		if (rc)
			printf("err %d\n", rc);
		puts("end");
		free(c.v);
	}
	free(line);
	return 0;
}
