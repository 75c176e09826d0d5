/* Tracer datagrams: encoder (for the tracer) and pure decoder (tmsg.h).
 *
 * Header (80 bytes): u32 magic, u16 version, u16 header length, u32
 * flags, u32 nrec, u64 job, u64 step, i64 rank, u64 pid, u64 tid, u64 seq,
 * u64 dropped_ops, u64 untraced.
 * Record (72 bytes + path, padded to 8): u8 op, u8 reserved, u16 path
 * length, i32 fd, u64 file, offset, size, count, i64 stride, first, last,
 * u64 busy, path bytes. */
#include <string.h>

#include "collectors/client/tracer/tmsg.h"
#include "common/error.h"
#include "proto/record.h"

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static uint16_t get16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

void bcn_tmsg_put_hdr(uint8_t *buf, const struct bcn_tmsg_hdr *h)
{
	uint16_t ver = BCN_TMSG_VERSION, hl = BCN_TMSG_HDR_LEN;

	put32(buf, BCN_TMSG_MAGIC);
	memcpy(buf + 4, &ver, 2);
	memcpy(buf + 6, &hl, 2);
	put32(buf + 8, h->flags);
	put32(buf + 12, h->nrec);
	put64(buf + 16, h->job);
	put64(buf + 24, h->step);
	put64(buf + 32, (uint64_t)h->rank);
	put64(buf + 40, h->pid);
	put64(buf + 48, h->tid);
	put64(buf + 56, h->seq);
	put64(buf + 64, h->dropped_ops);
	put64(buf + 72, h->untraced);
}

size_t bcn_tmsg_rec_size(size_t path_len)
{
	if (path_len > BCN_TMSG_PATH_MAX)
		path_len = BCN_TMSG_PATH_MAX;
	return (BCN_TMSG_REC_LEN + path_len + 7) & ~(size_t)7;
}

size_t bcn_tmsg_put_rec(uint8_t *buf, const struct bcn_iorun *run,
			const char *path, size_t path_len)
{
	size_t n;
	uint16_t pl;
	int32_t fd = run->fd < INT32_MIN || run->fd > INT32_MAX ? -1 :
		     (int32_t)run->fd;

	if (path_len > BCN_TMSG_PATH_MAX)
		path_len = BCN_TMSG_PATH_MAX;
	pl = (uint16_t)path_len;
	n = bcn_tmsg_rec_size(path_len);
	buf[0] = run->op;
	buf[1] = 0;
	memcpy(buf + 2, &pl, 2);
	memcpy(buf + 4, &fd, 4);
	put64(buf + 8, run->file);
	put64(buf + 16, run->offset);
	put64(buf + 24, run->size);
	put64(buf + 32, run->count);
	put64(buf + 40, (uint64_t)run->stride);
	put64(buf + 48, (uint64_t)run->first);
	put64(buf + 56, (uint64_t)run->last);
	put64(buf + 64, run->busy);
	if (path_len)
		memcpy(buf + BCN_TMSG_REC_LEN, path, path_len);
	if (n > BCN_TMSG_REC_LEN + path_len)
		memset(buf + BCN_TMSG_REC_LEN + path_len, 0,
		       n - BCN_TMSG_REC_LEN - path_len);
	return n;
}

int bcn_tmsg_parse_hdr(const uint8_t *buf, size_t len,
		       struct bcn_tmsg_hdr *h)
{
	if (len < 8)
		return -BCN_ETRUNC;
	if (get32(buf) != BCN_TMSG_MAGIC)
		return -BCN_EMAGIC;
	if (get16(buf + 4) != BCN_TMSG_VERSION ||
	    get16(buf + 6) != BCN_TMSG_HDR_LEN)
		return -BCN_EVERSION;
	if (len < BCN_TMSG_HDR_LEN)
		return -BCN_ETRUNC;
	h->flags = get32(buf + 8);
	h->nrec = get32(buf + 12);
	h->job = get64(buf + 16);
	h->step = get64(buf + 24);
	h->rank = (int64_t)get64(buf + 32);
	h->pid = get64(buf + 40);
	h->tid = get64(buf + 48);
	h->seq = get64(buf + 56);
	h->dropped_ops = get64(buf + 64);
	h->untraced = get64(buf + 72);
	return 0;
}

int bcn_tmsg_next(const uint8_t *buf, size_t len, size_t *off,
		  struct bcn_tmsg_rec *rec)
{
	const uint8_t *p;
	size_t pl, n;
	int32_t fd;
	struct bcn_iorun *r = &rec->run;

	if (*off > len || len - *off < BCN_TMSG_REC_LEN)
		return -BCN_ETRUNC;
	p = buf + *off;
	pl = get16(p + 2);
	if (pl > BCN_TMSG_PATH_MAX)
		return -BCN_ERANGE;
	n = bcn_tmsg_rec_size(pl);
	if (len - *off < n)
		return -BCN_ETRUNC;
	memset(r, 0, sizeof(*r));
	r->op = p[0];
	memcpy(&fd, p + 4, 4);
	r->fd = fd;
	r->file = get64(p + 8);
	r->offset = get64(p + 16);
	r->size = get64(p + 24);
	r->count = get64(p + 32);
	r->stride = (int64_t)get64(p + 40);
	r->first = (int64_t)get64(p + 48);
	r->last = (int64_t)get64(p + 56);
	r->busy = get64(p + 64);
	if (r->op >= BCN_IO_OP_MAX || r->count == 0 || r->last < r->first ||
	    r->first < 0)
		return -BCN_ERANGE;
	rec->path = pl ? (const char *)p + BCN_TMSG_REC_LEN : NULL;
	rec->path_len = pl;
	*off += n;
	return 0;
}
