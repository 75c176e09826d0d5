/* First-pass compression of I/O operations into constant-stride runs
 * (contract in iorun.h). Runs inside traced application threads: no
 * allocation, no system calls, no locks, constant work per operation
 * (a scan of at most BCN_IORUN_SLOTS_MAX open runs). Offsets are
 * unsigned 64-bit, strides signed 64-bit; every step that would leave
 * [0, 2^64) or the int64 stride range opens a new run instead. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "compress/iorun.h"

/* |stride| as an unsigned value, exact for INT64_MIN too. */
static uint64_t magnitude(int64_t stride)
{
	return stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride;
}

/* Whether next == from + stride without leaving [0, 2^64). */
static int steps_to(uint64_t from, int64_t stride, uint64_t next)
{
	if (stride >= 0)
		return next >= from && next - from == (uint64_t)stride;
	return next < from && from - next == magnitude(stride);
}

/* The signed stride from a to b, when it fits in int64. */
static int stride_between(uint64_t a, uint64_t b, int64_t *stride)
{
	uint64_t d;

	if (b >= a) {
		d = b - a;
		if (d > (uint64_t)INT64_MAX)
			return 0;
		*stride = (int64_t)d;
		return 1;
	}
	d = a - b;                      /* 1 .. 2^64 - 1 */
	if (d - 1 > (uint64_t)INT64_MAX)
		return 0;
	*stride = -(int64_t)(d - 1) - 1;
	return 1;
}

/* Whether op (same key as r) continues r; *stride is the run's stride
 * once op is in it. */
static int continues(const struct bcn_iorun_ctx *x, const struct bcn_iorun *r,
		     const struct bcn_ioop *op, int64_t *stride)
{
	uint64_t last;

	if (op->size != r->size || r->count == UINT64_MAX)
		return 0;
	if (r->count == 1) {
		if (x->mode == BCN_IORUN_STRIDED)
			return stride_between(r->offset, op->offset, stride);
		if (op->size > (uint64_t)INT64_MAX)
			return 0;
		*stride = (int64_t)op->size;
		return steps_to(r->offset, *stride, op->offset);
	}
	/* the offset of the run's last operation; the modular product is
	 * exact because that offset is in [0, 2^64) */
	last = r->offset + (r->count - 1) * (uint64_t)r->stride;
	*stride = r->stride;
	return steps_to(last, r->stride, op->offset);
}

/* end - start, 0 when negative, without signed overflow. */
static uint64_t duration(const struct bcn_ioop *op)
{
	return op->end > op->start ? (uint64_t)op->end - (uint64_t)op->start
				   : 0;
}

static void run_open(struct bcn_iorun *r, const struct bcn_ioop *op)
{
	r->op = op->op;
	r->fd = op->fd;
	r->file = op->file;
	r->offset = op->offset;
	r->size = op->size;
	r->count = 1;
	r->stride = 0;
	r->first = op->start;
	r->last = op->end;
	r->busy = duration(op);
}

static void run_extend(struct bcn_iorun *r, const struct bcn_ioop *op,
		       int64_t stride)
{
	uint64_t busy = r->busy + duration(op);

	r->count++;
	r->stride = stride;
	if (op->end > r->last)
		r->last = op->end;
	r->busy = busy < r->busy ? UINT64_MAX : busy;
}

static void emit(struct bcn_iorun_ctx *x, const struct bcn_iorun *run)
{
	x->runs_out++;
	if (x->emit)
		x->emit(x->arg, run);
}

/* Removes slot i and emits its run; the compressor is consistent while
 * the callback runs. */
static void close_slot(struct bcn_iorun_ctx *x, unsigned i)
{
	struct bcn_iorun done = x->open[i];
	unsigned last = --x->nopen;

	if (i != last) {
		x->open[i] = x->open[last];
		x->used[i] = x->used[last];
	}
	emit(x, &done);
}

/* The least recently used open run among those of fd (any fd when
 * all_fds), or x->nopen when there is none. */
static unsigned oldest(const struct bcn_iorun_ctx *x, int64_t fd, int all_fds)
{
	unsigned best = x->nopen;

	for (unsigned i = 0; i < x->nopen; i++) {
		if (!all_fds && x->open[i].fd != fd)
			continue;
		if (best == x->nopen || x->used[i] < x->used[best])
			best = i;
	}
	return best;
}

void bcn_iorun_init(struct bcn_iorun_ctx *x, enum bcn_iorun_mode mode,
		    unsigned slots, uint64_t max_count,
		    bcn_iorun_emit_fn *emit_fn, void *arg)
{
	memset(x, 0, sizeof(*x));
	if (slots < 1)
		slots = 1;
	if (slots > BCN_IORUN_SLOTS_MAX)
		slots = BCN_IORUN_SLOTS_MAX;
	if (mode != BCN_IORUN_STRIDED) {
		mode = BCN_IORUN_CONTIG;
		slots = 1;              /* the paper: the preceding op only */
	}
	x->mode = mode;
	x->slots = slots;
	x->max_count = max_count;
	x->emit = emit_fn;
	x->arg = arg;
}

void bcn_iorun_add(struct bcn_iorun_ctx *x, const struct bcn_ioop *op)
{
	struct bcn_iorun done;
	unsigned i;
	int64_t stride;
	int closing = 1;

	x->ops_in++;
	x->clock++;
	for (i = 0; i < x->nopen; i++) {
		const struct bcn_iorun *r = &x->open[i];

		if (r->op == op->op && r->fd == op->fd && r->file == op->file)
			break;
	}
	if (i < x->nopen && continues(x, &x->open[i], op, &stride)) {
		run_extend(&x->open[i], op, stride);
		x->used[i] = x->clock;
		if (x->max_count && x->open[i].count >= x->max_count)
			close_slot(x, i);
		return;
	}
	/* op opens a run: in its key's slot (closing the run it does not
	 * continue), else in a free slot, else in the LRU run's slot */
	if (i == x->nopen) {
		if (x->nopen < x->slots) {
			x->nopen++;
			closing = 0;
		} else {
			i = oldest(x, 0, 1);
		}
	}
	if (closing)
		done = x->open[i];
	run_open(&x->open[i], op);
	x->used[i] = x->clock;
	if (closing)
		emit(x, &done);
	if (x->max_count == 1)
		close_slot(x, i);
}

void bcn_iorun_close_fd(struct bcn_iorun_ctx *x, int64_t fd)
{
	unsigned i;

	while ((i = oldest(x, fd, 0)) < x->nopen)
		close_slot(x, i);
}

void bcn_iorun_flush(struct bcn_iorun_ctx *x)
{
	while (x->nopen)
		close_slot(x, oldest(x, 0, 1));
}

void bcn_iorun_reset(struct bcn_iorun_ctx *x)
{
	x->nopen = 0;
	x->ops_in = 0;
	x->runs_out = 0;
}

int bcn_iorun_expand(const struct bcn_iorun *run, uint64_t i,
		     struct bcn_ioop *op)
{
	uint64_t m, d;

	if (i >= run->count)
		return -ERANGE;
	m = magnitude(run->stride);
	if (m && i > UINT64_MAX / m)
		return -ERANGE;
	d = i * m;
	if (run->stride >= 0 ? run->offset > UINT64_MAX - d : run->offset < d)
		return -ERANGE;
	memset(op, 0, sizeof(*op));
	op->op = run->op;
	op->fd = run->fd;
	op->file = run->file;
	op->offset = run->stride >= 0 ? run->offset + d : run->offset - d;
	op->size = run->size;
	if (i == 0)
		op->start = run->first;
	if (i == run->count - 1)
		op->end = run->last;
	return 0;
}
