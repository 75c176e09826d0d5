/* Tracer datagrams: encoder (for the tracer) and pure decoder (tmsg.h).
 *
 * Header (80 bytes): u32 magic, u16 version, u16 header length, u32
 * flags, u32 nrec, u64 job, u64 step, i64 rank, u64 pid, u64 tid, u64 seq,
 * u64 dropped_ops, u64 untraced.
 * Every record starts with u8 op, u8 form, u16 path length, i32 fd, u64
 * file; then, by form (tmsg.h), each followed by the path of an open and
 * zeros up to a multiple of 8 bytes:
 *   full (72 bytes): u64 offset, size, count, i64 stride, first, last,
 *        u64 busy;
 *   one  (48 bytes): u64 offset, size, i64 first, u32 duration, u32 0;
 *   meta (32 bytes): i64 first, u32 duration, u32 0 (offset and size 0).
 * A one or meta record stands for count 1, stride 0, last = first +
 * duration and busy = duration. */
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

/* The shortest form that holds run (NULL: the full form). */
static enum bcn_tmsg_form form_of(const struct bcn_iorun *run)
{
	uint64_t dur;

	if (!run || run->count != 1 || run->stride != 0 ||
	    run->last < run->first)
		return BCN_TMSG_FORM_FULL;
	dur = (uint64_t)run->last - (uint64_t)run->first;
	if (dur > UINT32_MAX || run->busy != dur)
		return BCN_TMSG_FORM_FULL;
	return run->offset == 0 && run->size == 0 ? BCN_TMSG_FORM_META :
						    BCN_TMSG_FORM_ONE;
}

static const size_t form_len[] = {
	[BCN_TMSG_FORM_FULL] = BCN_TMSG_REC_LEN,
	[BCN_TMSG_FORM_ONE] = BCN_TMSG_ONE_LEN,
	[BCN_TMSG_FORM_META] = BCN_TMSG_META_LEN,
};

size_t bcn_tmsg_rec_size(const struct bcn_iorun *run, size_t path_len)
{
	if (path_len > BCN_TMSG_PATH_MAX)
		path_len = BCN_TMSG_PATH_MAX;
	return (form_len[form_of(run)] + path_len + 7) & ~(size_t)7;
}

/* Writes the one-operation tail (first, duration, zero) at p. */
static void put_one(uint8_t *p, const struct bcn_iorun *run)
{
	put64(p, (uint64_t)run->first);
	put32(p + 8, (uint32_t)((uint64_t)run->last - (uint64_t)run->first));
	put32(p + 12, 0);
}

size_t bcn_tmsg_put_rec(uint8_t *buf, const struct bcn_iorun *run,
			const char *path, size_t path_len)
{
	enum bcn_tmsg_form form = form_of(run);
	size_t n, head = form_len[form];
	uint16_t pl;
	int32_t fd = run->fd < INT32_MIN || run->fd > INT32_MAX ? -1 :
		     (int32_t)run->fd;

	if (path_len > BCN_TMSG_PATH_MAX)
		path_len = BCN_TMSG_PATH_MAX;
	pl = (uint16_t)path_len;
	n = (head + path_len + 7) & ~(size_t)7;
	buf[0] = run->op;
	buf[1] = (uint8_t)form;
	memcpy(buf + 2, &pl, 2);
	memcpy(buf + 4, &fd, 4);
	put64(buf + 8, run->file);
	if (form == BCN_TMSG_FORM_META) {
		put_one(buf + 16, run);
	} else if (form == BCN_TMSG_FORM_ONE) {
		put64(buf + 16, run->offset);
		put64(buf + 24, run->size);
		put_one(buf + 32, run);
	} else {
		put64(buf + 16, run->offset);
		put64(buf + 24, run->size);
		put64(buf + 32, run->count);
		put64(buf + 40, (uint64_t)run->stride);
		put64(buf + 48, (uint64_t)run->first);
		put64(buf + 56, (uint64_t)run->last);
		put64(buf + 64, run->busy);
	}
	if (path_len)
		memcpy(buf + head, path, path_len);
	if (n > head + path_len)
		memset(buf + head + path_len, 0, n - head - path_len);
	return n;
}

int bcn_tmsg_parse_hdr(const uint8_t *buf, size_t len,
		       struct bcn_tmsg_hdr *h)
{
	if (len < 8)
		return -BCN_ETRUNC;
	if (get32(buf) != BCN_TMSG_MAGIC)
		return -BCN_EMAGIC;
	if (get16(buf + 4) < 1 || get16(buf + 4) > BCN_TMSG_VERSION ||
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

/* The one-operation tail at p into r (count 1, stride 0); -BCN_ERANGE
 * when its reserved word is not 0 or its end overflows. */
static int get_one(const uint8_t *p, struct bcn_iorun *r)
{
	uint32_t dur = get32(p + 8);

	if (get32(p + 12) != 0)
		return -BCN_ERANGE;
	r->first = (int64_t)get64(p);
	if (r->first < 0 || r->first > INT64_MAX - (int64_t)dur)
		return -BCN_ERANGE;
	r->last = r->first + (int64_t)dur;
	r->busy = dur;
	r->count = 1;
	return 0;
}

/* The fields after the common 16 bytes of a record of form at p into r. */
static int get_tail(const uint8_t *p, unsigned form, struct bcn_iorun *r)
{
	switch (form) {
	case BCN_TMSG_FORM_META:
		return get_one(p + 16, r);
	case BCN_TMSG_FORM_ONE:
		r->offset = get64(p + 16);
		r->size = get64(p + 24);
		return get_one(p + 32, r);
	default:
		r->offset = get64(p + 16);
		r->size = get64(p + 24);
		r->count = get64(p + 32);
		r->stride = (int64_t)get64(p + 40);
		r->first = (int64_t)get64(p + 48);
		r->last = (int64_t)get64(p + 56);
		r->busy = get64(p + 64);
		return 0;
	}
}

int bcn_tmsg_next(const uint8_t *buf, size_t len, size_t *off,
		  struct bcn_tmsg_rec *rec)
{
	const uint8_t *p;
	size_t pl, n, head;
	unsigned form;
	int32_t fd;
	struct bcn_iorun *r = &rec->run;

	if (*off > len || len - *off < BCN_TMSG_META_LEN)
		return -BCN_ETRUNC;
	p = buf + *off;
	form = p[1];
	if (form > BCN_TMSG_FORM_META)
		return -BCN_ERANGE;
	head = form_len[form];
	pl = get16(p + 2);
	if (pl > BCN_TMSG_PATH_MAX)
		return -BCN_ERANGE;
	n = (head + pl + 7) & ~(size_t)7;
	if (len - *off < n)
		return -BCN_ETRUNC;
	for (size_t i = head + pl; i < n; i++)
		if (p[i])
			return -BCN_ERANGE;
	memset(r, 0, sizeof(*r));
	r->op = p[0];
	memcpy(&fd, p + 4, 4);
	r->fd = fd;
	r->file = get64(p + 8);
	if (get_tail(p, form, r) || r->op >= BCN_IO_OP_MAX ||
	    r->count == 0 || r->last < r->first || r->first < 0)
		return -BCN_ERANGE;
	rec->path = pl ? (const char *)p + head : NULL;
	rec->path_len = pl;
	*off += n;
	return 0;
}
