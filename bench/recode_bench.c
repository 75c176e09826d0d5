/* Frame codecs compared on the same records (bench/tracer_dxt.sh): reads
 * a file of frames (beacon-clientd --output) and frames each frame's
 * records again, with the same cuts, in row form with zstd and zlib and
 * in columnar form with zstd at several levels and zlib -9. Each recoded
 * frame is decoded again and its records compared with the original's as
 * JSON (lossless yes/no). Prints one JSON object per codec with the bytes
 * and encode CPU per record, then one per column of the columnar form
 * (its bytes per operation uncompressed, and through zstd 3 alone: what
 * is left to squeeze).
 * usage: recode_bench FRAMES_FILE OPERATIONS */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "common/error.h"
#include "proto/columnar.h"
#include "proto/frame.h"
#include "proto/frame_reader.h"

struct codec {
	const char *name;
	int columnar, zstd, level;
	int hlog;                       /* zstd's hashLog, 0: the level's */
	int iodelta;                    /* io rows in the delta form */
	size_t bytes;
	double cpu;
	int lossless;
	struct bcn_frame_builder b;     /* kept across frames, as a daemon's */
	int have_b;
};

static struct codec codecs[] = {
	{ .name = "row-zstd-1", .columnar = 0, .zstd = 1, .level = -1, .lossless = 1 },
	{ .name = "row-zstd-1-h10", .columnar = 0, .zstd = 1, .level = -1, .hlog = 10, .lossless = 1 },
	{ .name = "row-zstd-2-h10", .columnar = 0, .zstd = 1, .level = -2, .hlog = 10, .lossless = 1 },
	{ .name = "row-delta-zstd-2-h10", .columnar = 0, .zstd = 1, .level = -2, .hlog = 10, .iodelta = 1, .lossless = 1 },
	{ .name = "row-delta-zstd-5-h10", .columnar = 0, .zstd = 1, .level = -5, .hlog = 10, .iodelta = 1, .lossless = 1 },
	{ .name = "row-delta-zstd1", .columnar = 0, .zstd = 1, .level = 1, .iodelta = 1, .lossless = 1 },
	{ .name = "row-delta-raw", .columnar = 0, .zstd = 0, .level = 0, .iodelta = 1, .lossless = 1 },
	{ .name = "row-zstd-3-h10", .columnar = 0, .zstd = 1, .level = -3, .hlog = 10, .lossless = 1 },
	{ .name = "row-zstd-5", .columnar = 0, .zstd = 1, .level = -5, .lossless = 1 },
	{ .name = "row-zstd-5-h10", .columnar = 0, .zstd = 1, .level = -5, .hlog = 10, .lossless = 1 },
	{ .name = "row-zstd1", .columnar = 0, .zstd = 1, .level = 1, .lossless = 1 },
	{ .name = "row-zlib1", .columnar = 0, .zstd = 0, .level = 1, .lossless = 1 },
	{ .name = "row-zlib9", .columnar = 0, .zstd = 0, .level = 9, .lossless = 1 },
	{ .name = "columnar-raw", .columnar = 1, .zstd = 0, .level = 0, .lossless = 1 },
	{ .name = "columnar-zstd-1", .columnar = 1, .zstd = 1, .level = -1, .lossless = 1 },
	{ .name = "columnar-zstd1", .columnar = 1, .zstd = 1, .level = 1, .lossless = 1 },
	{ .name = "columnar-zstd3", .columnar = 1, .zstd = 1, .level = 3, .lossless = 1 },
	{ .name = "columnar-zstd5", .columnar = 1, .zstd = 1, .level = 5, .lossless = 1 },
	{ .name = "columnar-zstd7", .columnar = 1, .zstd = 1, .level = 7, .lossless = 1 },
	{ .name = "columnar-zstd9", .columnar = 1, .zstd = 1, .level = 9, .lossless = 1 },
	{ .name = "columnar-zstd19", .columnar = 1, .zstd = 1, .level = 19, .lossless = 1 },
	{ .name = "columnar-zlib9", .columnar = 1, .zstd = 0, .level = 9, .lossless = 1 },
};
#define NCODECS (sizeof(codecs) / sizeof(codecs[0]))

#define COLS_MAX 4096
static struct colsum {
	unsigned type;
	const char *slot;
	size_t bytes;
	size_t zbytes;          /* the column alone through zstd 3 */
	unsigned mode_mask;
} cols[COLS_MAX];
static size_t ncols;
/* cols index of each column of the frame last recoded, in its order */
static size_t order[COLS_MAX];
static size_t norder;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add_col(void *arg, unsigned type, const char *slot, uint32_t n,
		    size_t bytes, unsigned mode)
{
	(void)arg;
	(void)n;
	for (size_t i = 0; i < ncols; i++)
		if (cols[i].type == type && strcmp(cols[i].slot, slot) == 0) {
			cols[i].bytes += bytes;
			cols[i].mode_mask |= 1u << mode;
			return;
		}
	if (ncols < COLS_MAX)
		cols[ncols++] = (struct colsum){ type, slot, bytes, 0, 1u << mode };
}

static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/* Walks the columnar payload p (docs/protocol.md) and adds each column's
 * size through zstd at level 3 alone to its entry of cols (the i-th
 * column met is the i-th the stats reported: order[i]). */
static void add_zcols(const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t n, l, type, slot, cnt;
	uint8_t z[1 << 16];

	if (get_varint(&p, end, &n))
		return;
	for (uint64_t i = 0; i < n; i++)
		if (get_varint(&p, end, &l) || (p += l) > end)
			return;
	if (get_varint(&p, end, &n))
		return;
	for (uint64_t i = 0; i < n && i < norder; i++) {
		if (get_varint(&p, end, &type) || get_varint(&p, end, &slot) ||
		    get_varint(&p, end, &cnt) || p++ >= end ||
		    get_varint(&p, end, &l) || l > (uint64_t)(end - p))
			return;
		size_t zl = ZSTD_compress(z, sizeof(z), p, l, 3);

		if (!ZSTD_isError(zl))
			cols[order[i]].zbytes += zl;
		p += l;
	}
}

/* The records of f as JSON lines into out. */
static int to_json(struct bcn_frame *f, struct bcn_buf *out)
{
	struct bcn_record r;
	int rc;

	bcn_buf_reset(out);
	bcn_frame_rewind(f);
	while ((rc = bcn_frame_next(f, &r)) == 1)
		if (bcn_record_to_json(&r, out) || bcn_buf_add(out, "\n", 1))
			return -BCN_EFULL;
	return rc;
}


static void note_order(void *arg, unsigned type, const char *slot,
		       uint32_t n, size_t bytes, unsigned mode)
{
	(void)arg;
	(void)n;
	(void)bytes;
	(void)mode;
	for (size_t i = 0; i < ncols && norder < COLS_MAX; i++)
		if (cols[i].type == type && strcmp(cols[i].slot, slot) == 0) {
			order[norder++] = i;
			return;
		}
}

/* Frames f's records with codec c; adds its bytes and checks them. */
static int recode(struct bcn_frame *f, struct codec *c, struct bcn_buf *want,
		  struct bcn_buf *wire, struct bcn_buf *got, int stats)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_builder *b = &c->b;
	struct bcn_frame g;
	struct bcn_record r;
	size_t used;
	double t0;
	int rc = 0;

	if (!c->have_b) {
		bcn_frame_builder_init(b, &lim, c->level);
		if (c->zstd)
			rc = bcn_frame_builder_zstd(b, c->level);
		if (!rc && c->hlog)
			rc = bcn_frame_builder_zstd_hashlog(b, c->hlog);
		if (!rc && c->columnar)
			rc = bcn_frame_builder_columnar(b);
		bcn_frame_builder_iodelta(b, c->iodelta);
		c->have_b = 1;
	}
	bcn_frame_rewind(f);
	while (!rc && bcn_frame_next(f, &r) == 1)
		rc = bcn_frame_builder_add(b, &r);
	bcn_buf_reset(wire);
	t0 = cpu_now();
	if (!rc)
		rc = bcn_frame_builder_finish(b, f->node, f->hdr.seq, wire);
	c->cpu += cpu_now() - t0;
	if (!rc && stats && (wire->data[6] & BCN_FRAME_F_COLUMNAR)) {
		bcn_col_enc_stats(b->cenc, add_col, NULL);
		norder = 0;
		bcn_col_enc_stats(b->cenc, note_order, NULL);
		add_zcols(b->cbuf.data, b->cbuf.len);
	}
	if (rc)
		return rc;
	c->bytes += wire->len;
	bcn_frame_init(&g);
	rc = bcn_frame_open(&g, wire->data, wire->len, &lim, &used);
	if (!rc)
		rc = to_json(&g, got);
	if (rc || got->len != want->len ||
	    memcmp(got->data, want->data, want->len) != 0)
		c->lossless = 0;
	bcn_frame_free(&g);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct bcn_frame_limits lim = BCN_FRAME_LIMITS_DEFAULT;
	struct bcn_frame_reader rd;
	struct bcn_frame f;
	struct bcn_buf want, wire, got;
	uint64_t at, records = 0, frames = 0, ops;
	size_t orig = 0;
	int fd, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: recode_bench FRAMES_FILE OPERATIONS\n");
		return 2;
	}
	ops = strtoull(argv[2], NULL, 10);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || ops == 0) {
		fprintf(stderr, "recode_bench: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bcn_frame_reader_init(&rd, fd, &lim);
	bcn_frame_init(&f);
	bcn_buf_init(&want, 1u << 30);
	bcn_buf_init(&got, 1u << 30);
	bcn_buf_init(&wire, 1u << 26);
	while ((rc = bcn_frame_reader_next(&rd, &f, &at)) != 0) {
		if (rc < 0 || f.hdr.kind != BCN_FRAME_DATA)
			continue;
		orig += rd.last_len;
		frames++;
		records += f.hdr.count;
		if (to_json(&f, &want))
			return 1;
		for (size_t i = 0; i < NCODECS; i++)
			if (recode(&f, &codecs[i], &want, &wire, &got,
				   strcmp(codecs[i].name, "columnar-zstd3") == 0)) {
				fprintf(stderr, "recode_bench: %s failed\n",
					codecs[i].name);
				return 1;
			}
	}
	printf("{\"bench\":\"recode\",\"codec\":\"as-sent\",\"frames\":%llu,"
	       "\"records\":%llu,\"bytes\":%zu,\"bytes_per_op\":%.2f}\n",
	       (unsigned long long)frames, (unsigned long long)records, orig,
	       (double)orig / (double)ops);
	for (size_t i = 0; i < NCODECS; i++)
		printf("{\"bench\":\"recode\",\"codec\":\"%s\",\"bytes\":%zu,"
		       "\"bytes_per_op\":%.2f,\"encode_ns_per_record\":%.0f,"
		       "\"lossless\":%s}\n", codecs[i].name, codecs[i].bytes,
		       (double)codecs[i].bytes / (double)ops,
		       records ? codecs[i].cpu * 1e9 / (double)records : 0.0,
		       codecs[i].lossless ? "true" : "false");
	for (size_t i = 0; i < ncols; i++)
		printf("{\"bench\":\"recode\",\"column\":\"%s.%s\",\"modes\":%u,"
		       "\"raw_bytes_per_op\":%.3f,\"zstd3_alone_bytes_per_op\":%.3f}\n",
		       cols[i].type ? bcn_record_desc(cols[i].type)->name : "",
		       cols[i].slot, cols[i].mode_mask,
		       (double)cols[i].bytes / (double)ops,
		       (double)cols[i].zbytes / (double)ops);
	for (size_t i = 0; i < NCODECS; i++)
		if (codecs[i].have_b)
			bcn_frame_builder_free(&codecs[i].b);
	bcn_frame_free(&f);
	bcn_frame_reader_free(&rd);
	bcn_buf_free(&want);
	bcn_buf_free(&got);
	bcn_buf_free(&wire);
	close(fd);
	return 0;
}
