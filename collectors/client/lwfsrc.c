/* The LWFS log source of beacon-clientd (lwfsrc.h): the follower's line
 * callback, the bounded handle and process tables (hash chains over fixed
 * arrays, with a least-recently-used order for eviction) and the records
 * made from the compressors' runs. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "proto/fileid.h"
#include "collectors/client/lwfsrc.h"
#include "collectors/client/procmon.h"
#include "collectors/runtime/collector.h"
#include "common/error.h"
#include "proto/record.h"
#include "compress/iorun.h"

#define NIL UINT32_MAX

/* A map from (ka, kb) to slot numbers 0..cap-1, with the slots in order
 * of last use; the caller keeps the values in arrays of cap slots. */
struct lru {
	uint32_t cap, n, mask;
	uint32_t *bucket;               /* mask + 1 chain heads */
	uint32_t *chain;                /* next slot in the same bucket */
	uint32_t *prev, *next;          /* use order */
	uint32_t oldest, newest;
	uint32_t *free;                 /* stack of free slots */
	uint64_t *ka, *kb;
};

struct handle_ent {
	uint64_t file;
	char *path;                     /* NUL-terminated, or NULL */
};

struct pid_ent {
	struct bcn_iorun_ctx rc;
	struct bcn_lwfsrc *s;
	uint32_t pid;
	bool job_known;
	uint64_t job, step;
	int64_t rank;
	uint64_t last_sample;           /* of its last line */
};

struct bcn_lwfsrc_tabs {
	struct lru handles, pids;
	struct handle_ent *h;
	struct pid_ent *p;
};

static int lru_init(struct lru *l, uint32_t cap)
{
	uint32_t nb = 1;

	memset(l, 0, sizeof(*l));
	while (nb < 2 * cap)
		nb <<= 1;
	l->cap = cap;
	l->mask = nb - 1;
	l->bucket = malloc(nb * sizeof(*l->bucket));
	l->chain = malloc(cap * sizeof(*l->chain));
	l->prev = malloc(cap * sizeof(*l->prev));
	l->next = malloc(cap * sizeof(*l->next));
	l->free = malloc(cap * sizeof(*l->free));
	l->ka = malloc(cap * sizeof(*l->ka));
	l->kb = malloc(cap * sizeof(*l->kb));
	if (!l->bucket || !l->chain || !l->prev || !l->next || !l->free ||
	    !l->ka || !l->kb)
		return -ENOMEM;
	memset(l->bucket, 0xff, nb * sizeof(*l->bucket));
	for (uint32_t i = 0; i < cap; i++)
		l->free[i] = cap - 1 - i;
	l->oldest = l->newest = NIL;
	return 0;
}

static void lru_free(struct lru *l)
{
	free(l->bucket);
	free(l->chain);
	free(l->prev);
	free(l->next);
	free(l->free);
	free(l->ka);
	free(l->kb);
	memset(l, 0, sizeof(*l));
}

static uint32_t lru_hash(const struct lru *l, uint64_t ka, uint64_t kb)
{
	uint64_t h = (ka * 0x9e3779b97f4a7c15ULL) ^ kb;

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	return (uint32_t)h & l->mask;
}

static void lru_unlink(struct lru *l, uint32_t i)
{
	if (l->prev[i] != NIL)
		l->next[l->prev[i]] = l->next[i];
	else
		l->oldest = l->next[i];
	if (l->next[i] != NIL)
		l->prev[l->next[i]] = l->prev[i];
	else
		l->newest = l->prev[i];
}

static void lru_append(struct lru *l, uint32_t i)
{
	l->prev[i] = l->newest;
	l->next[i] = NIL;
	if (l->newest != NIL)
		l->next[l->newest] = i;
	else
		l->oldest = i;
	l->newest = i;
}

/* The slot of (ka, kb) or NIL; touch makes it the most recently used. */
static uint32_t lru_find(struct lru *l, uint64_t ka, uint64_t kb, bool touch)
{
	uint32_t i = l->bucket[lru_hash(l, ka, kb)];

	while (i != NIL && (l->ka[i] != ka || l->kb[i] != kb))
		i = l->chain[i];
	if (i != NIL && touch && l->newest != i) {
		lru_unlink(l, i);
		lru_append(l, i);
	}
	return i;
}

/* Adds (ka, kb), which must be absent, as the most recently used; the map
 * must not be full. Returns its slot. */
static uint32_t lru_add(struct lru *l, uint64_t ka, uint64_t kb)
{
	uint32_t i = l->free[l->cap - 1 - l->n], b = lru_hash(l, ka, kb);

	l->n++;
	l->ka[i] = ka;
	l->kb[i] = kb;
	l->chain[i] = l->bucket[b];
	l->bucket[b] = i;
	lru_append(l, i);
	return i;
}

static void lru_del(struct lru *l, uint32_t i)
{
	uint32_t *pp = &l->bucket[lru_hash(l, l->ka[i], l->kb[i])];

	while (*pp != i)
		pp = &l->chain[*pp];
	*pp = l->chain[i];
	lru_unlink(l, i);
	l->n--;
	l->free[l->cap - 1 - l->n] = i;
}

/* Resolves the job of a process once. */
static void pid_job(struct bcn_lwfsrc *s, struct pid_ent *pe)
{
	struct bcn_procjob j;

	if (pe->job_known || !s->c)
		return;
	pe->job_known = true;
	pe->rank = -1;
	if (bcn_procmon_job(s->c, pe->pid, &s->buf, &j))
		return;
	if (j.has_job) {
		pe->job = j.job;
		pe->step = j.step;
	}
	if (j.has_rank)
		pe->rank = j.rank;
}

/* The path an open record carries: its handle's, or a failed OPEN's. */
static const char *open_path(struct bcn_lwfsrc *s, const struct pid_ent *pe,
			     const struct bcn_iorun *run)
{
	struct bcn_lwfsrc_tabs *tb = s->tabs;
	uint32_t i;

	if (run->fd < 0)
		return s->pend_path && s->pend_file == run->file ?
		       s->pend_path : "";
	i = lru_find(&tb->handles, pe->pid, (uint64_t)run->fd, false);
	if (i == NIL || tb->h[i].file != run->file || !tb->h[i].path)
		return "";
	return tb->h[i].path;
}

/* The compressors' emit function: one record per run. */
static void emit_run(void *arg, const struct bcn_iorun *run)
{
	struct pid_ent *pe = arg;
	struct bcn_lwfsrc *s = pe->s;
	struct bcn_record r;

	if (!s->c)
		return;
	pid_job(s, pe);
	bcn_record_init(&r, BCN_REC_IO);
	r.t = run->first;
	r.dur = run->last > run->first ? run->last - run->first : 0;
	r.job = pe->job;
	r.u.io.step = pe->step;
	r.u.io.rank = pe->rank;
	r.u.io.pid = pe->pid;
	r.u.io.op = run->op;
	r.u.io.fd = run->fd;
	r.u.io.file = run->file;
	if (run->op == BCN_IO_OPEN)
		r.u.io.path = open_path(s, pe, run);
	r.u.io.offset = run->offset;
	r.u.io.size = run->size;
	r.u.io.count = run->count;
	r.u.io.stride = run->stride;
	r.u.io.busy = run->busy;
	if (bcn_collector_add(s->c, &r))
		s->emit_errors++;
	else
		s->records++;
}

/* The entry of pid, made (evicting the least recently active process,
 * its runs flushed first) when absent. */
static struct pid_ent *pid_get(struct bcn_lwfsrc *s, uint32_t pid)
{
	struct bcn_lwfsrc_tabs *tb = s->tabs;
	struct pid_ent *pe;
	uint32_t i = lru_find(&tb->pids, pid, 0, true);

	if (i != NIL)
		return &tb->p[i];
	if (tb->pids.n == tb->pids.cap) {
		i = tb->pids.oldest;
		bcn_iorun_flush(&tb->p[i].rc);
		lru_del(&tb->pids, i);
		s->pid_evictions++;
	}
	i = lru_add(&tb->pids, pid, 0);
	pe = &tb->p[i];
	memset(pe, 0, sizeof(*pe));
	pe->s = s;
	pe->pid = pid;
	pe->rank = -1;
	bcn_iorun_init(&pe->rc, BCN_IORUN_STRIDED, BCN_LWFS_IORUN_SLOTS, 0,
		       emit_run, pe);
	return pe;
}

/* Emits the runs of handle h of process pid, if that process is known. */
static void close_runs(struct bcn_lwfsrc *s, uint64_t pid, uint64_t h)
{
	struct bcn_lwfsrc_tabs *tb = s->tabs;
	uint32_t i = lru_find(&tb->pids, pid, 0, false);

	if (i != NIL)
		bcn_iorun_close_fd(&tb->p[i].rc, (int64_t)h);
}

/* Forgets handle slot i. */
static void handle_drop(struct bcn_lwfsrc *s, uint32_t i)
{
	struct bcn_lwfsrc_tabs *tb = s->tabs;

	free(tb->h[i].path);
	tb->h[i].path = NULL;
	lru_del(&tb->handles, i);
}

/* Remembers that handle h of process pid is the file of path (n bytes,
 * s->pbuf). The runs of an entry replaced or evicted are emitted first,
 * while their path is known. */
static void handle_put(struct bcn_lwfsrc *s, uint32_t pid, uint64_t h,
		       uint64_t file, const char *path, size_t n)
{
	struct bcn_lwfsrc_tabs *tb = s->tabs;
	uint32_t i = lru_find(&tb->handles, pid, h, true);

	if (i != NIL) {
		close_runs(s, pid, h);
		handle_drop(s, i);
	} else if (tb->handles.n == tb->handles.cap) {
		i = tb->handles.oldest;
		close_runs(s, tb->handles.ka[i], tb->handles.kb[i]);
		handle_drop(s, i);
		s->handle_evictions++;
	}
	i = lru_add(&tb->handles, pid, h);
	tb->h[i].file = file;
	tb->h[i].path = malloc(n + 1);
	if (tb->h[i].path) {
		memcpy(tb->h[i].path, path, n);
		tb->h[i].path[n] = '\0';
	}
}

/* The file id behind handle h of process pid, 0 when unknown. */
static uint64_t handle_file(struct bcn_lwfsrc *s, uint32_t pid, uint64_t h)
{
	struct bcn_lwfsrc_tabs *tb = s->tabs;
	uint32_t i = lru_find(&tb->handles, pid, h, true);

	if (i == NIL) {
		s->unknown_handles++;
		return 0;
	}
	return tb->h[i].file;
}

/* Unescapes path p of line l into s->pbuf; returns its id. */
static uint64_t path_id(struct bcn_lwfsrc *s, const char *p, size_t n,
			size_t *dlen)
{
	int k = bcn_lwfs_unescape(p, n, s->pbuf, BCN_LWFS_PATH_MAX);

	*dlen = k > 0 ? (size_t)k : 0;
	s->pbuf[*dlen] = '\0';
	return bcn_file_id(s->pbuf, *dlen);
}

/* The operation the compressor gets for line l (docs/lwfs-log.md, "From
 * lines to records"). */
static void make_op(struct bcn_lwfsrc *s, const struct bcn_lwfs_line *l,
		    struct bcn_ioop *op, size_t *dlen)
{
	bool failed = l->has_result && l->result < 0;

	memset(op, 0, sizeof(*op));
	*dlen = 0;
	op->op = l->op;
	op->fd = -1;
	op->start = l->t;
	op->end = l->t;
	if (l->has_dur)
		op->end = l->dur > INT64_MAX - l->t ? INT64_MAX : l->t + l->dur;
	if (l->path)
		op->file = path_id(s, l->path, l->path_len, dlen);
	if (l->has_handle) {
		op->fd = (int64_t)l->handle;
		op->file = handle_file(s, l->pid, l->handle);
	}
	switch (l->lop) {
	case BCN_LWFS_OPEN:
	case BCN_LWFS_CREATE:
		op->file = bcn_file_id(s->pbuf, *dlen);
		op->fd = l->has_ret_handle ? (int64_t)l->ret_handle : -1;
		break;
	case BCN_LWFS_READ:
	case BCN_LWFS_WRITE:
		op->offset = l->offset;
		op->size = failed ? 0 : l->has_result ? (uint64_t)l->result :
			   l->size;
		break;
	case BCN_LWFS_TRUNCATE:
		op->offset = l->has_size ? l->size : 0;
		break;
	default:
		break;
	}
}

/* Feeds one parsed operation to its process's compressor. */
static void do_op(struct bcn_lwfsrc *s, const struct bcn_lwfs_line *l)
{
	struct pid_ent *pe = pid_get(s, l->pid);
	struct bcn_ioop op;
	size_t dlen;
	uint32_t i;

	pe->last_sample = s->sample_no;
	make_op(s, l, &op, &dlen);
	if ((l->lop == BCN_LWFS_OPEN || l->lop == BCN_LWFS_CREATE) &&
	    l->has_ret_handle)
		handle_put(s, l->pid, l->ret_handle, op.file, s->pbuf, dlen);
	bcn_iorun_add(&pe->rc, &op);
	if (l->lop == BCN_LWFS_RELEASE) {
		bcn_iorun_close_fd(&pe->rc, op.fd);
		i = lru_find(&s->tabs->handles, l->pid, l->handle, false);
		if (i != NIL)
			handle_drop(s, i);
	} else if (op.op == BCN_IO_OPEN && op.fd < 0) {
		s->pend_file = op.file;
		s->pend_path = s->pbuf;
		bcn_iorun_close_fd(&pe->rc, -1);
		s->pend_path = NULL;
	}
}

/* Logs a malformed line with its position (rate-limited). */
static void report(struct bcn_lwfsrc *s, const struct bcn_follow_pos *pos,
		   const char *why)
{
	if (pos->from_start)
		bcn_complain(&s->bad_line, BCN_LOG_WARNING,
			     "lwfs log %s line %" PRIu64 ": %s; line skipped "
			     "(%" PRIu64 " malformed so far)", pos->path,
			     pos->lineno, why, s->malformed);
	else
		bcn_complain(&s->bad_line, BCN_LOG_WARNING,
			     "lwfs log %s line %" PRIu64 " after the resume "
			     "point (byte %" PRIu64 "): %s; line skipped (%"
			     PRIu64 " malformed so far)", pos->path,
			     pos->lineno, pos->offset, why, s->malformed);
}

int bcn_lwfsrc_line(void *arg, const char *line, size_t len,
		    const struct bcn_follow_pos *pos)
{
	struct bcn_lwfsrc *s = arg;
	struct bcn_lwfs_line l;
	enum bcn_lwfs_error err;
	const char *why = pos->defect;

	if (s->skip_first && pos->from_start && pos->lineno == 1 &&
	    pos->offset == 0) {
		/* the follower shows an existing file's first line before
		 * it skips to the end: it is not new */
		s->skip_first = false;
		return 0;
	}
	if (!why && bcn_lwfs_parse(line, len, s->utc_offset, &l, &err))
		why = bcn_lwfs_error_str(err);
	if (why) {
		s->malformed++;
		report(s, pos, why);
		return 0;
	}
	s->lines++;
	do_op(s, &l);
	return 0;
}

/* Flushes every compressor; forgets processes idle for too long. */
static void flush_all(struct bcn_lwfsrc *s)
{
	struct bcn_lwfsrc_tabs *tb = s->tabs;
	uint32_t i;

	for (i = tb->pids.oldest; i != NIL; i = tb->pids.next[i])
		bcn_iorun_flush(&tb->p[i].rc);
	while ((i = tb->pids.oldest) != NIL &&
	       s->sample_no - tb->p[i].last_sample >= BCN_LWFS_PID_IDLE) {
		lru_del(&tb->pids, i);
		s->pids_expired++;
	}
}

int bcn_lwfsrc_sample(struct bcn_lwfsrc *s, struct bcn_collector *c,
		      int64_t t, int64_t dur)
{
	(void)t;
	(void)dur;
	if (!s->on)
		return 0;
	s->c = c;
	s->sample_no++;
	s->skip_first = !s->follow.polled;
	bcn_follow_poll(&s->follow, bcn_lwfsrc_line, s);
	flush_all(s);
	bcn_collector_skipped(c, s->malformed - s->malformed_seen);
	s->malformed_seen = s->malformed;
	s->c = NULL;
	return 0;
}

/* The follower's callback at start-up: the existing log is history. */
static int discard(void *arg, const char *line, size_t len,
		   const struct bcn_follow_pos *pos)
{
	(void)arg;
	(void)line;
	(void)len;
	(void)pos;
	return 0;
}

static int init_tables(struct bcn_lwfsrc *s, const struct bcn_lwfs_conf *conf)
{
	struct bcn_lwfsrc_tabs *tb;
	int rc;

	tb = s->tabs = calloc(1, sizeof(*tb));
	if (!tb)
		return -ENOMEM;
	rc = lru_init(&tb->handles, (uint32_t)conf->handles_max);
	if (!rc)
		rc = lru_init(&tb->pids, (uint32_t)conf->pids_max);
	if (rc)
		return rc;
	tb->h = calloc((size_t)conf->handles_max, sizeof(*tb->h));
	tb->p = calloc((size_t)conf->pids_max, sizeof(*tb->p));
	return tb->h && tb->p ? 0 : -ENOMEM;
}

int bcn_lwfsrc_init(struct bcn_lwfsrc *s, const struct bcn_lwfs_conf *conf)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->follow.fd = -1;
	bcn_buf_init(&s->buf, BCN_PROCMON_FILE_MAX);
	if (conf->log[0] == '\0')
		return 0;
	rc = bcn_lwfs_parse_utc_offset(conf->utc_offset,
				       strlen(conf->utc_offset),
				       &s->utc_offset);
	if (rc) {
		BCN_ERR("lwfs_utc_offset '%s': want +HH:MM or -HH:MM",
			conf->utc_offset);
		return -EINVAL;
	}
	if (conf->handles_max < 16 ||
	    conf->handles_max > BCN_LWFS_HANDLES_LIMIT ||
	    conf->pids_max < 1 || conf->pids_max > BCN_LWFS_PIDS_LIMIT) {
		BCN_ERR("lwfs_handles_max or lwfs_pids_max out of range");
		return -EINVAL;
	}
	rc = init_tables(s, conf);
	if (!rc)
		rc = bcn_follow_init(&s->follow, conf->log, BCN_LWFS_LINE_MAX,
				     BCN_LWFS_POLL_MAX);
	if (rc) {
		bcn_lwfsrc_free(s);
		return rc;
	}
	bcn_follow_poll(&s->follow, discard, NULL);
	s->on = true;
	return 0;
}

void bcn_lwfsrc_free(struct bcn_lwfsrc *s)
{
	struct bcn_lwfsrc_tabs *tb = s->tabs;

	if (tb) {
		if (tb->h)
			for (uint32_t i = tb->handles.oldest; i != NIL;
			     i = tb->handles.next[i])
				free(tb->h[i].path);
		free(tb->h);
		free(tb->p);
		lru_free(&tb->handles);
		lru_free(&tb->pids);
		free(tb);
	}
	s->tabs = NULL;
	bcn_follow_free(&s->follow);
	bcn_buf_free(&s->buf);
	s->on = false;
}
