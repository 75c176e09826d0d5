/* Files, groups of files and access patterns of a job's report
 * (report_files.h, docs/report.md "Depth"): bcn_rfiles_add() counts each io
 * record into its file (or the overflow), the job, its process and its
 * (process, file) stream; bcn_rfiles_finish() groups the files by path,
 * picks the top rows and sums the rest. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/report_files.h"
#include "common/error.h"
#include "common/timefmt.h"

enum { CLS_CONSEC, CLS_SEQ, CLS_RANDOM, CLS_UNORDERED };

/* The most common sizes of a file (space-saving summary, weighted):
 * exact while at most BCN_RFILES_SIZES sizes came. */
struct rf_sizes {
	uint64_t size[BCN_RFILES_SIZES], ops[BCN_RFILES_SIZES];
	unsigned n;
	bool lossy;
};

struct bcn_rfiles_file {
	uint64_t id;
	char *path;                     /* from its open record, or NULL */
	uint64_t procs;
	struct rf_sizes sizes;
	struct bcn_rfiles_stats s;
};

/* The latest runs of one (process, file, direction), by start time:
 * start, first offset and end offset (after the last operation). Each
 * kept run's first operation was classified against the run before it
 * here (or against offset 0 when it is the first and none was evicted). */
struct rf_hist {
	int64_t t[BCN_RFILES_WINDOW];
	uint64_t off[BCN_RFILES_WINDOW], end[BCN_RFILES_WINDOW];
	unsigned n;
	bool evicted;
};

struct bcn_rfiles_pair {
	uint64_t proc, file;
	struct rf_hist dir[2];          /* read, write */
};

struct bcn_rfiles_proc {
	char *node;
	uint64_t pid;
	int64_t rank;
	uint64_t time;                  /* busy of every operation */
};

/* What one record adds to its file's figures and the job's. */
struct rf_rec {
	struct bcn_record_totals t;
	uint64_t small_r, small_w, mis_stripe, mis_page;
	uint64_t rtime, wtime, mtime;
	uint64_t size;
	int64_t t0, t1;
};

void bcn_rfiles_config_defaults(struct bcn_rfiles_config *c)
{
	c->files_max = 65536;
	c->groups_max = 16384;
	c->rows_max = 20;
	c->pairs_max = 262144;
	c->procs_max = 65536;
	c->stripe_bytes = 1u << 20;
	c->page_bytes = 4096;
	c->small_bytes = 1u << 20;
}

static void partial(struct bcn_rfiles *f, const char *why)
{
	if (!f->partial)
		snprintf(f->why, sizeof(f->why), "%s", why);
	f->partial = true;
}

void bcn_rfiles_init(struct bcn_rfiles *f, const struct bcn_rfiles_config *c)
{
	memset(f, 0, sizeof(*f));
	f->cfg = *c;
	bcn_u64map_init(&f->file_ix, (size_t)c->files_max);
	bcn_u64map_init(&f->pair_ix, (size_t)c->pairs_max);
	bcn_u64map_init(&f->proc_ix, (size_t)c->procs_max);
}

void bcn_rfiles_free(struct bcn_rfiles *f)
{
	for (size_t i = 0; i < f->nfiles; i++)
		free(f->files[i].path);
	free(f->files);
	free(f->pairs);
	for (size_t i = 0; i < f->nprocs; i++)
		free(f->procs[i].node);
	free(f->procs);
	bcn_u64map_free(&f->file_ix);
	bcn_u64map_free(&f->pair_ix);
	bcn_u64map_free(&f->proc_ix);
	memset(f, 0, sizeof(*f));
}

/* ---- arithmetic ---- */

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* The inverse of a modulo m (a and m coprime, m > 1). */
static uint64_t inverse(uint64_t a, uint64_t m)
{
	__int128 r0 = m, r1 = a % m, s0 = 0, s1 = 1;

	while (r1) {
		__int128 q = r0 / r1, t;

		t = r0 - q * r1;
		r0 = r1;
		r1 = t;
		t = s0 - q * s1;
		s0 = s1;
		s1 = t;
	}
	s0 %= (__int128)m;
	return (uint64_t)(s0 < 0 ? s0 + m : s0);
}

uint64_t bcn_rfiles_misaligned(uint64_t off, int64_t stride, uint64_t n,
			       uint64_t align)
{
	uint64_t o, d, g, m, want, i0, aligned;

	if (align <= 1 || !n)
		return 0;
	o = off % align;
	d = stride >= 0 ? (uint64_t)stride % align :
	    (align - (0 - (uint64_t)stride) % align) % align;
	if (!d)
		return o ? n : 0;
	/* i * d = -o (mod align): solvable when gcd(d, align) divides o,
	 * then for i = i0 (mod align / g) */
	g = gcd(d, align);
	if (o % g)
		return n;
	m = align / g;
	want = ((align - o) % align) / g;
	i0 = m == 1 ? 0 : (uint64_t)((unsigned __int128)want *
				     inverse(d / g, m) % m);
	aligned = i0 < n ? (n - 1 - i0) / m + 1 : 0;
	return n - aligned;
}

/* The end offset of a run's last operation, clamped to [0, 2^64). */
static uint64_t run_end(const struct bcn_rec_io *io)
{
	__int128 lim = (__int128)UINT64_MAX * 2;
	__int128 e = (__int128)(io->count - 1) * io->stride;

	if (e > lim)
		return UINT64_MAX;
	if (e < -lim)
		return 0;
	e += (__int128)io->offset + io->size;
	return e < 0 ? 0 : e > (__int128)UINT64_MAX ? UINT64_MAX : (uint64_t)e;
}

static unsigned classify(uint64_t off, uint64_t prev_end)
{
	return off == prev_end ? CLS_CONSEC : off > prev_end ? CLS_SEQ :
	       CLS_RANDOM;
}

/* ---- figures ---- */

static void stats_class(struct bcn_rfiles_stats *s, unsigned cls, uint64_t n,
			bool sub)
{
	uint64_t *c = cls == CLS_CONSEC ? &s->consec_ops :
		      cls == CLS_SEQ ? &s->seq_ops :
		      cls == CLS_RANDOM ? &s->random_ops : &s->unordered_ops;

	*c = sub ? *c - n : *c + n;
}

/* Adds n operations of class cls to the file's figures and the job's. */
static void classes(struct bcn_rfiles *f, struct bcn_rfiles_stats *fs,
		    unsigned cls, uint64_t n, bool sub)
{
	(void)f;                /* the job's: the files' at the end */
	stats_class(fs, cls, n, sub);
}

static void stats_span(struct bcn_rfiles_stats *s, int64_t t0, int64_t t1)
{
	if (!s->first || t0 < s->first)
		s->first = t0;
	if (t1 > s->last)
		s->last = t1;
}

static void stats_sizes(struct bcn_rfiles_stats *s, uint64_t lo, uint64_t hi)
{
	if (!s->read_ops && !s->write_ops) {
		s->size_min = lo;
		s->size_max = hi;
		return;
	}
	if (lo < s->size_min)
		s->size_min = lo;
	if (hi > s->size_max)
		s->size_max = hi;
}

static void stats_apply(struct bcn_rfiles_stats *s, const struct rf_rec *x)
{
	if (x->t.read_ops || x->t.write_ops)
		stats_sizes(s, x->size, x->size);
	s->read_bytes += x->t.read_bytes;
	s->write_bytes += x->t.write_bytes;
	s->read_ops += x->t.read_ops;
	s->write_ops += x->t.write_ops;
	s->meta_ops += x->t.meta_ops;
	s->other_ops += x->t.other_ops;
	s->small_read_ops += x->small_r;
	s->small_write_ops += x->small_w;
	s->misaligned_stripe += x->mis_stripe;
	s->misaligned_page += x->mis_page;
	s->read_time += x->rtime;
	s->write_time += x->wtime;
	s->meta_time += x->mtime;
	stats_span(s, x->t0, x->t1);
}

/* Adds src's figures to dst's. */
static void stats_merge(struct bcn_rfiles_stats *dst,
			const struct bcn_rfiles_stats *src)
{
	if (src->read_ops || src->write_ops)
		stats_sizes(dst, src->size_min, src->size_max);
	dst->read_bytes += src->read_bytes;
	dst->write_bytes += src->write_bytes;
	dst->read_ops += src->read_ops;
	dst->write_ops += src->write_ops;
	dst->meta_ops += src->meta_ops;
	dst->other_ops += src->other_ops;
	dst->consec_ops += src->consec_ops;
	dst->seq_ops += src->seq_ops;
	dst->random_ops += src->random_ops;
	dst->unordered_ops += src->unordered_ops;
	dst->small_read_ops += src->small_read_ops;
	dst->small_write_ops += src->small_write_ops;
	dst->misaligned_stripe += src->misaligned_stripe;
	dst->misaligned_page += src->misaligned_page;
	dst->read_time += src->read_time;
	dst->write_time += src->write_time;
	dst->meta_time += src->meta_time;
	if (src->first || src->last)
		stats_span(dst, src->first, src->last);
}

/* What record r adds, its pattern aside. */
static void rec_figures(const struct bcn_rfiles *f, const struct bcn_record *r,
			const struct bcn_record_totals *t, struct rf_rec *x)
{
	const struct bcn_rec_io *io = &r->u.io;
	uint64_t data;

	memset(x, 0, sizeof(*x));
	x->t = *t;
	data = x->t.read_ops + x->t.write_ops;
	x->size = io->size;
	x->t0 = r->t;
	if (__builtin_add_overflow(r->t, r->dur > 0 ? r->dur : 0, &x->t1))
		x->t1 = INT64_MAX;
	if (x->t.read_ops)
		x->rtime = io->busy;
	else if (x->t.write_ops || io->op == BCN_IO_SYNC)
		x->wtime = io->busy;
	else
		x->mtime = io->busy;
	if (!data)
		return;
	if (io->size < f->cfg.small_bytes) {
		x->small_r = x->t.read_ops;
		x->small_w = x->t.write_ops;
	}
	x->mis_stripe = bcn_rfiles_misaligned(io->offset, io->stride, data,
					      f->cfg.stripe_bytes);
	/* aligned to the stripe is aligned to a page that divides it */
	x->mis_page = !x->mis_stripe && f->cfg.page_bytes &&
		      f->cfg.stripe_bytes % f->cfg.page_bytes == 0 ? 0 :
		      bcn_rfiles_misaligned(io->offset, io->stride, data,
					    f->cfg.page_bytes);
}

static void sizes_add(struct rf_sizes *z, uint64_t size, uint64_t ops)
{
	unsigned min = 0;

	for (unsigned i = 0; i < z->n; i++) {
		if (z->size[i] == size) {
			z->ops[i] += ops;
			return;
		}
		if (z->ops[i] < z->ops[min])
			min = i;
	}
	if (z->n < BCN_RFILES_SIZES) {
		z->size[z->n] = size;
		z->ops[z->n++] = ops;
		return;
	}
	z->lossy = true;                /* the least counted makes room */
	z->size[min] = size;
	z->ops[min] += ops;
}

/* The most common size of z (most operations, then the smaller). */
static void sizes_top(const struct rf_sizes *z, uint64_t *size, uint64_t *ops)
{
	*size = *ops = 0;
	for (unsigned i = 0; i < z->n; i++)
		if (z->ops[i] > *ops || (z->ops[i] == *ops && z->size[i] < *size)) {
			*size = z->size[i];
			*ops = z->ops[i];
		}
}

/* ---- tables ---- */

/* The file of id, added when new; NULL beyond files_max (the overflow).
 * Returns 0 or -ENOMEM. */
static int file_get(struct bcn_rfiles *f, uint64_t id,
		    struct bcn_rfiles_file **out)
{
	uint64_t ix, *v;
	bool fresh;
	int rc;

	*out = NULL;
	if (bcn_u64map_find(&f->file_ix, id, &ix)) {
		*out = &f->files[ix];
		return 0;
	}
	if (f->nfiles >= f->cfg.files_max) {
		partial(f, "more files than files_max");
		return 0;
	}
	if (f->nfiles == f->cap_files) {
		size_t cap = f->cap_files ? f->cap_files * 2 : 64;
		struct bcn_rfiles_file *n = realloc(f->files, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		f->files = n;
		f->cap_files = cap;
	}
	rc = bcn_u64map_get(&f->file_ix, id, &v, &fresh);
	if (rc == -BCN_EFULL) {
		partial(f, "more files than files_max");
		return 0;
	}
	if (rc)
		return rc;
	*v = f->nfiles;
	*out = &f->files[f->nfiles++];
	memset(*out, 0, sizeof(**out));
	(*out)->id = id;
	return 0;
}

/* The stream pair of (proc, file), added when new (counting a process of
 * file); NULL beyond pairs_max. Returns 0 or -ENOMEM. */
static int pair_get(struct bcn_rfiles *f, uint64_t proc, uint64_t id,
		    struct bcn_rfiles_file *file, struct bcn_rfiles_pair **out)
{
	uint64_t key = bcn_tally_hash(proc, &id, sizeof(id)), ix, *v;
	bool fresh;
	int rc;

	*out = NULL;
	if (bcn_u64map_find(&f->pair_ix, key, &ix)) {
		*out = &f->pairs[ix];
		return 0;
	}
	if (f->npairs == f->cap_pairs && f->npairs < f->cfg.pairs_max) {
		size_t cap = f->cap_pairs ? f->cap_pairs * 2 : 64;
		struct bcn_rfiles_pair *n = realloc(f->pairs, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		f->pairs = n;
		f->cap_pairs = cap;
	}
	rc = bcn_u64map_get(&f->pair_ix, key, &v, &fresh);
	if (rc == -BCN_EFULL) {
		partial(f, "more (process, file) pairs than pairs_max");
		return 0;
	}
	if (rc)
		return rc;
	*v = f->npairs;
	*out = &f->pairs[f->npairs++];
	memset(*out, 0, sizeof(**out));
	(*out)->proc = proc;
	(*out)->file = id;
	if (file)
		file->procs++;
	return 0;
}

/* Adds a record's busy time to its process (key: the hash of node, pid
 * and rank). Returns 0 or -ENOMEM. */
static int proc_time(struct bcn_rfiles *f, uint64_t key,
		     const struct bcn_record *r, uint64_t busy, size_t *pix)
{
	struct bcn_rfiles_proc *p;
	uint64_t ix, *v;
	bool fresh;
	int rc;

	*pix = SIZE_MAX;
	if (bcn_u64map_find(&f->proc_ix, key, &ix)) {
		f->procs[ix].time += busy;
		*pix = (size_t)ix;
		return 0;
	}
	if (f->nprocs == f->cap_procs && f->nprocs < f->cfg.procs_max) {
		size_t cap = f->cap_procs ? f->cap_procs * 2 : 64;

		if (!(p = realloc(f->procs, cap * sizeof(*p))))
			return -ENOMEM;
		f->procs = p;
		f->cap_procs = cap;
	}
	if (f->nprocs < f->cfg.procs_max) {
		p = &f->procs[f->nprocs];
		if (!(p->node = strndup(r->node, BCN_NODE_MAX)))
			return -ENOMEM;
	}
	rc = bcn_u64map_get(&f->proc_ix, key, &v, &fresh);
	if (rc == -BCN_EFULL) {
		partial(f, "more processes than procs_max");
		return 0;
	}
	if (rc) {
		free(f->procs[f->nprocs].node);
		return rc;
	}
	*v = f->nprocs;
	*pix = f->nprocs;
	p = &f->procs[f->nprocs++];
	p->pid = r->u.io.pid;
	p->rank = r->u.io.rank;
	p->time = busy;
	return 0;
}

/* Classifies the first operation of a run (start t, offsets off to end)
 * against the run before it in stream h, moves the next run's class when
 * this one comes between, and keeps the run in h. */
static void hist_insert(struct bcn_rfiles *f, struct bcn_rfiles_stats *fs,
			struct rf_hist *h, int64_t t, uint64_t off,
			uint64_t end)
{
	unsigned p = h->n;

	while (p > 0 && h->t[p - 1] > t)
		p--;
	if (p == 0 && h->evicted) {     /* its predecessor may be gone */
		classes(f, fs, CLS_UNORDERED, 1, false);
		return;
	}
	classes(f, fs, classify(off, p ? h->end[p - 1] : 0), 1, false);
	if (p < h->n) {                 /* the next run follows this one */
		unsigned was = classify(h->off[p], p ? h->end[p - 1] : 0);
		unsigned now = classify(h->off[p], end);

		if (was != now) {
			classes(f, fs, was, 1, true);
			classes(f, fs, now, 1, false);
		}
	}
	if (h->n == BCN_RFILES_WINDOW) {        /* drop the oldest */
		h->evicted = true;
		if (p == 0)
			return;
		memmove(h->t, h->t + 1, (p - 1) * sizeof(h->t[0]));
		memmove(h->off, h->off + 1, (p - 1) * sizeof(h->off[0]));
		memmove(h->end, h->end + 1, (p - 1) * sizeof(h->end[0]));
		p--;
	} else {
		memmove(h->t + p + 1, h->t + p, (h->n - p) * sizeof(h->t[0]));
		memmove(h->off + p + 1, h->off + p,
			(h->n - p) * sizeof(h->off[0]));
		memmove(h->end + p + 1, h->end + p,
			(h->n - p) * sizeof(h->end[0]));
		h->n++;
	}
	h->t[p] = t;
	h->off[p] = off;
	h->end[p] = end;
}

/* The access pattern of a data record's operations. */
static void pattern(struct bcn_rfiles *f, const struct bcn_record *r,
		    struct bcn_rfiles_pair *p, struct bcn_rfiles_stats *fs)
{
	const struct bcn_rec_io *io = &r->u.io;
	unsigned inner = io->stride < 0 ? CLS_RANDOM :
			 (uint64_t)io->stride == io->size ? CLS_CONSEC :
			 (uint64_t)io->stride > io->size ? CLS_SEQ : CLS_RANDOM;

	if (io->count > 1)
		classes(f, fs, inner, io->count - 1, false);
	if (!p) {
		classes(f, fs, CLS_UNORDERED, 1, false);
		return;
	}
	hist_insert(f, fs, &p->dir[io->op == BCN_IO_WRITE], r->t, io->offset,
		    run_end(io));
}

/* Whether r is of the last record's process and file. */
static bool same_stream(const struct bcn_rfiles *f, const struct bcn_record *r)
{
	return f->last.on && f->last.file == r->u.io.file &&
	       f->last.pid == r->u.io.pid && f->last.rank == r->u.io.rank &&
	       !strcmp(f->last.node, r->node);
}

/* The file, process and stream of r looked up (added when new), and
 * kept as the last record's. Returns 0 or -ENOMEM. */
static int stream_find(struct bcn_rfiles *f, const struct bcn_record *r,
		       struct bcn_rfiles_file **file, struct bcn_rfiles_pair **p)
{
	const struct bcn_rec_io *io = &r->u.io;
	uint64_t proc;
	size_t pix;
	int rc;

	f->last.on = false;
	if ((rc = file_get(f, io->file, file)))
		return rc;
	proc = bcn_tally_hash(0, r->node, strlen(r->node));
	proc = bcn_tally_hash(proc, &io->pid, sizeof(io->pid));
	proc = bcn_tally_hash(proc, &io->rank, sizeof(io->rank));
	if ((rc = proc_time(f, proc, r, io->busy, &pix)) ||
	    (rc = pair_get(f, proc, io->file, *file, p)))
		return rc;
	snprintf(f->last.node, sizeof(f->last.node), "%s", r->node);
	f->last.pid = io->pid;
	f->last.rank = io->rank;
	f->last.file = io->file;
	f->last.proc = proc;
	f->last.file_ix = *file ? (size_t)(*file - f->files) : SIZE_MAX;
	f->last.proc_ix = pix;
	f->last.pair_ix = *p ? (size_t)(*p - f->pairs) : SIZE_MAX;
	f->last.on = strlen(r->node) <= BCN_NODE_MAX;
	return 0;
}

int bcn_rfiles_add(struct bcn_rfiles *f, const struct bcn_record *r,
		   const struct bcn_record_totals *t)
{
	const struct bcn_rec_io *io = &r->u.io;
	struct bcn_rfiles_file *file;
	struct bcn_rfiles_pair *p;
	struct bcn_rfiles_stats *fs;
	struct rf_rec x;
	int rc;

	if (r->type != BCN_REC_IO || !io->count)
		return 0;
	rec_figures(f, r, t, &x);
	if (same_stream(f, r)) {
		file = f->last.file_ix == SIZE_MAX ? NULL :
		       &f->files[f->last.file_ix];
		if (f->last.proc_ix != SIZE_MAX)
			f->procs[f->last.proc_ix].time += io->busy;
		p = f->last.pair_ix == SIZE_MAX ? NULL :
		    &f->pairs[f->last.pair_ix];
	} else if ((rc = stream_find(f, r, &file, &p))) {
		return rc;
	}
	if (file && !file->path && io->op == BCN_IO_OPEN && io->path &&
	    io->path[0] && !(file->path = strdup(io->path)))
		return -ENOMEM;
	fs = file ? &file->s : &f->overflow;
	stats_apply(fs, &x);
	if (!x.t.read_ops && !x.t.write_ops)
		return 0;
	if (file)
		sizes_add(&file->sizes, io->size, io->count);
	pattern(f, r, p, fs);
	return 0;
}

/* ---- the result ---- */

void bcn_rfiles_group_name(const char *path, char *out, size_t len)
{
	size_t k = 0;

	if (!len)
		return;
	for (const char *s = path; *s && k + 1 < len; s++) {
		if (*s >= '0' && *s <= '9') {
			while (s[1] >= '0' && s[1] <= '9')
				s++;
			out[k++] = '#';
		} else {
			out[k++] = *s;
		}
	}
	out[k] = '\0';
}

/* A group of files while the result is made. */
struct rf_group {
	const char *key;                /* the tally's */
	size_t file;                    /* its first file */
	uint64_t files;
	struct rf_sizes sizes;
	struct bcn_rfiles_stats s;
	size_t row;                     /* row index, or SIZE_MAX: rest */
};

struct rf_build {
	struct bcn_tally names;         /* group name -> index */
	struct rf_group *g;
	size_t ng;
	size_t *group_of;               /* file -> group, SIZE_MAX: overflow */
};

static void sizes_merge(struct rf_sizes *dst, const struct rf_sizes *src)
{
	for (unsigned i = 0; i < src->n; i++)
		sizes_add(dst, src->size[i], src->ops[i]);
	dst->lossy |= src->lossy;
}

/* The name of file i: its path, or "file <id hex>". */
static const char *file_name(const struct bcn_rfiles_file *file, char *buf,
			     size_t len)
{
	if (file->path)
		return file->path;
	snprintf(buf, len, "file %016" PRIx64, file->id);
	return buf;
}

/* Puts every file into its group (or the overflow beyond groups_max). */
static int build_groups(struct bcn_rfiles *f, struct rf_build *b,
			struct bcn_rfiles_result *res)
{
	char key[BCN_STR_MAX + 2];
	struct bcn_tally_entry *e;
	int rc;

	for (size_t i = 0; i < f->nfiles; i++) {
		struct bcn_rfiles_file *file = &f->files[i];
		struct rf_group *g;

		if (file->path)
			bcn_rfiles_group_name(file->path, key, sizeof(key));
		else            /* never grouped: a name no path has */
			snprintf(key, sizeof(key), "\001%016" PRIx64, file->id);
		rc = bcn_tally_get(&b->names, key, &e);
		if (rc == -BCN_EFULL) {
			partial(f, "more file groups than groups_max");
			b->group_of[i] = SIZE_MAX;
			stats_merge(&res->overflow.s, &file->s);
			res->overflow.files++;
			continue;
		}
		if (rc)
			return rc;
		if (e->v[0] == 0) {     /* new: index + 1 */
			g = &b->g[b->ng];
			memset(g, 0, sizeof(*g));
			g->file = i;
			e->v[0] = ++b->ng;
		}
		g = &b->g[e->v[0] - 1];
		g->key = e->key;
		b->group_of[i] = e->v[0] - 1;
		g->files++;
		stats_merge(&g->s, &file->s);
		sizes_merge(&g->sizes, &file->sizes);
	}
	return 0;
}

static uint64_t bytes_of(const struct bcn_rfiles_stats *s)
{
	return s->read_bytes + s->write_bytes;
}

static int group_cmp(const void *a, const void *b)
{
	const struct rf_group *x = *(const struct rf_group *const *)a;
	const struct rf_group *y = *(const struct rf_group *const *)b;
	uint64_t bx = bytes_of(&x->s), by = bytes_of(&y->s);

	if (bx != by)
		return bx > by ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* The top rows_max groups become rows (a one-file group as its file),
 * the others the rest. */
static int build_rows(struct bcn_rfiles *f, struct rf_build *b,
		      struct bcn_rfiles_result *res)
{
	struct rf_group **order = malloc((b->ng ? b->ng : 1) * sizeof(*order));
	char buf[64];
	int rc = 0;

	if (!order)
		return -ENOMEM;
	for (size_t k = 0; k < b->ng; k++)
		order[k] = &b->g[k];
	qsort(order, b->ng, sizeof(*order), group_cmp);
	res->nrows = b->ng < f->cfg.rows_max ? b->ng : (size_t)f->cfg.rows_max;
	res->rows = calloc(res->nrows ? res->nrows : 1, sizeof(*res->rows));
	if (!res->rows) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < b->ng; k++) {
		struct rf_group *g = order[k];
		struct bcn_rfiles_row *row = &res->rows[k];

		if (k >= res->nrows) {
			g->row = SIZE_MAX;
			stats_merge(&res->rest.s, &g->s);
			res->rest.files += g->files;
			continue;
		}
		g->row = k;
		row->group = g->files > 1;
		row->files = g->files;
		row->s = g->s;
		row->name = strdup(row->group ? g->key :
				   file_name(&f->files[g->file], buf, sizeof(buf)));
		if (!row->name) {
			rc = -ENOMEM;
			goto out;
		}
		sizes_top(&g->sizes, &row->size_common, &row->size_common_ops);
		row->size_exact = !g->sizes.lossy;
	}
out:
	free(order);
	return rc;
}

/* Distinct processes per row, from the (process, file) pairs. */
static int build_procs(struct bcn_rfiles *f, struct rf_build *b,
		       struct bcn_rfiles_result *res)
{
	struct bcn_u64map seen;
	int rc = 0;

	bcn_u64map_init(&seen, f->npairs + 1);
	for (size_t i = 0; !rc && i < f->npairs; i++) {
		const struct bcn_rfiles_pair *p = &f->pairs[i];
		struct bcn_rfiles_row *row = &res->overflow;
		uint64_t ix, slot, key, *v;
		bool fresh;

		slot = SIZE_MAX - 1;    /* the overflow */
		if (bcn_u64map_find(&f->file_ix, p->file, &ix) &&
		    b->group_of[ix] != SIZE_MAX) {
			slot = b->g[b->group_of[ix]].row;
			row = slot == SIZE_MAX ? &res->rest : &res->rows[slot];
		}
		key = bcn_tally_hash(p->proc, &slot, sizeof(slot));
		rc = bcn_u64map_get(&seen, key, &v, &fresh);
		if (!rc && fresh)
			row->procs++;
	}
	bcn_u64map_free(&seen);
	return rc;
}

/* Files by direction; processes and the busiest. */
static void build_counts(struct bcn_rfiles *f, struct bcn_rfiles_result *res)
{
	const struct bcn_rfiles_proc *top = NULL;

	for (size_t i = 0; i < f->nfiles; i++) {
		const struct bcn_rfiles_stats *s = &f->files[i].s;

		if (s->read_ops && s->write_ops)
			res->read_write++;
		else if (s->read_ops)
			res->read_only++;
		else if (s->write_ops)
			res->write_only++;
		else
			res->meta_only++;
	}
	res->files = f->nfiles;
	res->procs = f->nprocs;
	for (size_t i = 0; i < f->nprocs; i++)
		if (!top || f->procs[i].time > top->time)
			top = &f->procs[i];
	if (top) {
		res->proc_time_max = top->time;
		snprintf(res->busiest_node, sizeof(res->busiest_node), "%s",
			 top->node);
		res->busiest_pid = top->pid;
		res->busiest_rank = top->rank;
	}
}

int bcn_rfiles_finish(struct bcn_rfiles *f, struct bcn_rfiles_result *out)
{
	struct rf_build b;
	size_t n = f->nfiles ? f->nfiles : 1;
	int rc = -ENOMEM;

	memset(out, 0, sizeof(*out));
	memset(&b, 0, sizeof(b));
	bcn_tally_init(&b.names, (size_t)f->cfg.groups_max);
	b.g = malloc(n * sizeof(*b.g));
	b.group_of = malloc(n * sizeof(*b.group_of));
	out->overflow.name = strdup("overflow");
	out->rest.name = strdup("rest");
	if (!b.g || !b.group_of || !out->overflow.name || !out->rest.name)
		goto out;
	stats_merge(&out->overflow.s, &f->overflow);
	if ((rc = build_groups(f, &b, out)))
		goto out;
	if ((rc = build_rows(f, &b, out)))
		goto out;
	if ((rc = build_procs(f, &b, out)))
		goto out;
	build_counts(f, out);
	out->groups = b.ng;
	out->rest.group = out->rest.files > 1;
	memset(&f->total, 0, sizeof(f->total));
	for (size_t i = 0; i < f->nfiles; i++)
		stats_merge(&f->total, &f->files[i].s);
	stats_merge(&f->total, &f->overflow);
	out->total = f->total;
	out->stripe_bytes = f->cfg.stripe_bytes;
	out->page_bytes = f->cfg.page_bytes;
	out->small_bytes = f->cfg.small_bytes;
	out->partial = f->partial;
	snprintf(out->why, sizeof(out->why), "%s", f->why);
out:
	bcn_tally_free(&b.names);
	free(b.g);
	free(b.group_of);
	if (rc)
		bcn_rfiles_result_free(out);
	return rc;
}

void bcn_rfiles_result_free(struct bcn_rfiles_result *res)
{
	for (size_t i = 0; res->rows && i < res->nrows; i++)
		free(res->rows[i].name);
	free(res->rows);
	free(res->rest.name);
	free(res->overflow.name);
	memset(res, 0, sizeof(*res));
}

/* ---- JSON ---- */

static double share(uint64_t part, uint64_t whole)
{
	return whole ? (double)part / (double)whole : 0;
}

static int json_time(struct bcn_buf *b, const char *key, int64_t ns)
{
	char t[BCN_TIMEFMT_OUT_MAX];

	if (!ns || bcn_timefmt_format(ns, t, sizeof(t)))
		return bcn_buf_printf(b, ",\"%s\":null", key);
	return bcn_buf_printf(b, ",\"%s\":\"%s\"", key, t);
}

/* The members of s, each after a comma. */
static int json_stats(struct bcn_buf *b, const struct bcn_rfiles_stats *s)
{
	int rc = bcn_buf_printf(b, ",\"read_bytes\":%" PRIu64 ",\"write_bytes\":%"
		PRIu64 ",\"read_ops\":%" PRIu64 ",\"write_ops\":%" PRIu64
		",\"meta_ops\":%" PRIu64 ",\"other_ops\":%" PRIu64
		",\"consecutive_ops\":%" PRIu64 ",\"sequential_ops\":%" PRIu64
		",\"random_ops\":%" PRIu64 ",\"unordered_ops\":%" PRIu64
		",\"small_read_ops\":%" PRIu64 ",\"small_write_ops\":%" PRIu64
		",\"misaligned_stripe_ops\":%" PRIu64 ",\"misaligned_page_ops\":%"
		PRIu64 ",\"read_time\":%.6f,\"write_time\":%.6f,\"meta_time\":"
		"%.6f,\"size_min\":%" PRIu64 ",\"size_max\":%" PRIu64,
		s->read_bytes, s->write_bytes, s->read_ops, s->write_ops,
		s->meta_ops, s->other_ops, s->consec_ops, s->seq_ops,
		s->random_ops, s->unordered_ops, s->small_read_ops,
		s->small_write_ops, s->misaligned_stripe, s->misaligned_page,
		(double)s->read_time / 1e9, (double)s->write_time / 1e9,
		(double)s->meta_time / 1e9, s->size_min, s->size_max);

	rc = rc ? rc : json_time(b, "first", s->first);
	return rc ? rc : json_time(b, "last", s->last);
}

static int json_row(struct bcn_buf *b, const struct bcn_rfiles_row *row)
{
	int rc = bcn_buf_adds(b, "{\"name\":");

	rc = rc ? rc : bcn_buf_add_json_str(b, row->name ? row->name : "");
	rc = rc ? rc : bcn_buf_printf(b, ",\"group\":%s,\"files\":%" PRIu64
		",\"procs\":%" PRIu64 ",\"size_common\":%" PRIu64
		",\"size_common_ops\":%" PRIu64 ",\"size_exact\":%s",
		row->group ? "true" : "false", row->files, row->procs,
		row->size_common, row->size_common_ops,
		row->size_exact ? "true" : "false");
	rc = rc ? rc : json_stats(b, &row->s);
	return rc ? rc : bcn_buf_adds(b, "}");
}

/* Shares of the job's data operations, and the time per process. */
static int json_shares(struct bcn_buf *b, const struct bcn_rfiles_result *res)
{
	const struct bcn_rfiles_stats *s = &res->total;
	uint64_t data = s->read_ops + s->write_ops, np = res->procs;
	double sum = (double)(s->read_time + s->write_time + s->meta_time);

	return bcn_buf_printf(b, ",\"pattern\":{\"consecutive\":%.6f,"
		"\"sequential\":%.6f,\"random\":%.6f,\"unordered\":%.6f},"
		"\"small\":{\"read\":%.6f,\"write\":%.6f,\"all\":%.6f},"
		"\"misaligned\":{\"stripe\":%.6f,\"page\":%.6f},"
		"\"time\":{\"read\":%.6f,\"write\":%.6f,\"meta\":%.6f,"
		"\"procs\":%" PRIu64 ",\"mean_read\":%.6f,\"mean_write\":%.6f,"
		"\"mean_meta\":%.6f,\"mean\":%.6f,\"busiest\":{\"time\":%.6f,"
		"\"pid\":%" PRIu64 ",\"rank\":%" PRId64 ",\"node\":",
		share(s->consec_ops, data), share(s->seq_ops, data),
		share(s->random_ops, data), share(s->unordered_ops, data),
		share(s->small_read_ops, s->read_ops),
		share(s->small_write_ops, s->write_ops),
		share(s->small_read_ops + s->small_write_ops, data),
		share(s->misaligned_stripe, data), share(s->misaligned_page, data),
		(double)s->read_time / 1e9, (double)s->write_time / 1e9,
		(double)s->meta_time / 1e9, np,
		np ? (double)s->read_time / 1e9 / (double)np : 0,
		np ? (double)s->write_time / 1e9 / (double)np : 0,
		np ? (double)s->meta_time / 1e9 / (double)np : 0,
		np ? sum / 1e9 / (double)np : 0,
		(double)res->proc_time_max / 1e9, res->busiest_pid,
		res->busiest_rank);
}

int bcn_rfiles_to_json(const struct bcn_rfiles_result *res,
		       struct bcn_buf *out)
{
	int rc = bcn_buf_printf(out, "{\"files\":%" PRIu64 ",\"groups\":%" PRIu64
		",\"read_only\":%" PRIu64 ",\"write_only\":%" PRIu64
		",\"read_write\":%" PRIu64 ",\"meta_only\":%" PRIu64
		",\"stripe_bytes\":%" PRIu64 ",\"page_bytes\":%" PRIu64
		",\"small_bytes\":%" PRIu64, res->files, res->groups,
		res->read_only, res->write_only, res->read_write, res->meta_only,
		res->stripe_bytes, res->page_bytes, res->small_bytes);

	rc = rc ? rc : json_shares(out, res);
	rc = rc ? rc : bcn_buf_add_json_str(out, res->busiest_node);
	rc = rc ? rc : bcn_buf_adds(out, "}},\"total\":{\"name\":\"total\"");
	rc = rc ? rc : json_stats(out, &res->total);
	rc = rc ? rc : bcn_buf_adds(out, "},\"rows\":[");
	for (size_t i = 0; !rc && i < res->nrows; i++) {
		rc = i ? bcn_buf_adds(out, ",") : 0;
		rc = rc ? rc : json_row(out, &res->rows[i]);
	}
	rc = rc ? rc : bcn_buf_adds(out, "],\"rest\":");
	rc = rc ? rc : json_row(out, &res->rest);
	rc = rc ? rc : bcn_buf_adds(out, ",\"overflow\":");
	rc = rc ? rc : json_row(out, &res->overflow);
	rc = rc ? rc : bcn_buf_printf(out, ",\"partial\":%s,\"partial_reason\":",
				      res->partial ? "true" : "false");
	rc = rc ? rc : bcn_buf_add_json_str(out, res->why);
	return rc ? rc : bcn_buf_adds(out, "}");
}
